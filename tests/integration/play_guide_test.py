#!/usr/bin/env python3
"""docs/play-guide.md run as it is written: a Melee over three CCPhs, side A typed live into
`melee play` in a pseudo-terminal, side B by `melee submit`, against a real server with its real
dice (the guide's commands do not depend on them).

Usage: play_guide_test.py MELEE_SERVER_BINARY MELEE_CLI_BINARY SOURCE_DIR
"""

import os
import re
import shlex
import subprocess
import sys
import tempfile

from play_test import Terminal, start_server


def guide_blocks(source_dir):
    """The fenced blocks between the guide's markers, in order: (language, lines)."""
    with open(os.path.join(source_dir, "docs", "play-guide.md")) as f:
        text = f.read()
    found = re.search(r"<!-- play-guide -->(.*)<!-- play-guide:end -->", text, re.S)
    assert found, "docs/play-guide.md has no play-guide block"
    return [(language, [line for line in body.splitlines() if line.strip()])
            for language, body in re.findall(r"```(\w+)\n(.*?)```", found.group(1), re.S)]


def run_guide(server_binary, cli, source_dir):
    with tempfile.TemporaryDirectory() as work:
        os.symlink(os.path.join(source_dir, "examples"), os.path.join(work, "examples"))
        server, env = start_server(server_binary, work)
        env["PATH"] = os.path.dirname(cli) + os.pathsep + env.get("PATH", "")
        term = None
        try:
            for language, lines in guide_blocks(source_dir):
                if language == "sh":
                    done = subprocess.run(["/bin/bash", "-euo", "pipefail", "-c", "\n".join(lines)],
                                          cwd=work, env=env, capture_output=True, text=True,
                                          timeout=60)
                    assert done.returncode == 0, f"{lines} exited {done.returncode}:\n" \
                                                 f"{done.stdout}{done.stderr}"
                    continue
                # Each line is typed once Alice's session waits for input with nothing on its
                # way (so the other side acts only after her last command was answered).
                for line in lines:
                    if line.startswith("$ "):
                        term = Terminal(shlex.split(line[2:]), work, env)
                    elif line.startswith("side_a> "):
                        term.settle()
                        term.type(line[len("side_a> "):])
                    else:
                        raise AssertionError(f"not a line of the guide's session: {line!r}")
                if not lines[-1].endswith("> quit"):
                    term.settle()
            code = term.process.wait(timeout=30)
            term.read_rest()
            assert code == 0, f"melee play exited {code}:\n{term.screen}"
            for expected in (
                    r"Since you last looked:",
                    r"side_b entered its units: R1 4-4-7 russian, R2 4-4-7 russian",
                    r"Waiting for: side_a: announce",        # shown unasked after Bob confirmed
                    r"Infantry of both sides remain: Melee \[A11\.15\]",
                    r"Forces \(CCPh 2\):",
                    r"Forces \(CCPh 3\):",
                    r"Kill # \d",                           # the odds of Alice's attack
                    r"sealed; receipt [0-9a-f]{64}",
                    r"declarations revealed",
                    r"roll A11\.11 CC DR: \d \(coloured\)",
            ):
                assert re.search(expected, term.screen), f"no {expected!r} on the screen:\n" \
                                                         f"{term.screen}"
            # What a person saw, kept next to the build for a look.
            with open(os.path.join(os.environ.get("MELEE_SCREEN_DIR", work), "play-guide.txt"),
                      "w") as f:
                f.write(term.screen)
        finally:
            if term and term.process.poll() is None:
                term.process.kill()
            server.terminate()
            server.wait(timeout=10)


def main():
    try:
        run_guide(sys.argv[1], sys.argv[2], sys.argv[3])
    except AssertionError as failure:
        print(f"FAILED: {failure}")
        return 1
    print("docs/play-guide.md: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
