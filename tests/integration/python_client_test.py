#!/usr/bin/env python3
"""An independent client against the real melee-server: Python's websockets library speaking
the protobuf JSON mapping in text frames, as a browser or a script would.

Usage: python_client_test.py PATH/TO/melee-server
Prints '<n> passed, <m> failed' and exits non-zero on any failure.
"""
import asyncio
import json
import re
import subprocess
import sys
import tempfile

import websockets


async def run_checks(url: str) -> list[str]:
    failures: list[str] = []

    def check(condition: bool, what: str) -> None:
        print(("ok   " if condition else "FAIL ") + what)
        if not condition:
            failures.append(what)

    async with websockets.connect(url, max_size=None) as ws:
        await ws.send(json.dumps({"command_id": "py1", "hello": {"client_name": "python"}}))
        reply = json.loads(await asyncio.wait_for(ws.recv(), 5))
        check(reply.get("command_id") == "py1", "hello answer carries the command_id")
        check(reply.get("hello", {}).get("server_name") == "melee-server", "hello names the server")

        await ws.send("{this is not json")
        reply = json.loads(await asyncio.wait_for(ws.recv(), 5))
        check(reply.get("error", {}).get("code") == "ERROR_CODE_MALFORMED_FRAME",
              "malformed JSON gets ERROR_CODE_MALFORMED_FRAME")

        await ws.send(json.dumps({"command_id": "py2", "teleport": {}}))
        reply = json.loads(await asyncio.wait_for(ws.recv(), 5))
        check(reply.get("error", {}).get("code") == "ERROR_CODE_UNKNOWN_MESSAGE",
              "unknown command gets ERROR_CODE_UNKNOWN_MESSAGE")

        await ws.send("x" * (100 * 1024))
        reply = json.loads(await asyncio.wait_for(ws.recv(), 5))
        check(reply.get("error", {}).get("code") == "ERROR_CODE_MESSAGE_TOO_LARGE",
              "oversized message gets ERROR_CODE_MESSAGE_TOO_LARGE")

        await ws.send(json.dumps({"command_id": "py3", "ping": {"nonce": "7"}}))
        reply = json.loads(await asyncio.wait_for(ws.recv(), 5))
        check(reply.get("pong", {}).get("nonce") == "7", "connection still serves after errors")
    return failures


def main() -> int:
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as data:
        server = subprocess.Popen([binary, "--port", "0", "--data-dir", data],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            port = None
            for line in server.stdout:
                found = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
                if found:
                    port = int(found.group(1))
                    break
            if port is None:
                print("server did not start; 0 passed, 1 failed")
                return 1
            failures = asyncio.run(run_checks(f"ws://127.0.0.1:{port}/ws"))
        finally:
            server.terminate()
            server.wait(timeout=10)
    total = 5
    print(f"{total - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
