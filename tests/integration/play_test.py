#!/usr/bin/env python3
"""`melee play` as a person uses it: in a pseudo-terminal, typing a declaration and reading the
screen for its preview, its receipt and the result with every roll.

Usage: play_test.py MELEE_SERVER_BINARY MELEE_CLI_BINARY. Starts the real server on a free port
(with its real dice), sets a close combat up with one-shot `melee submit` commands, then plays
side A interactively while side B declares by `melee submit`.
"""

import json
import os
import pty
import re
import select
import subprocess
import sys
import tempfile
import time


class Terminal:
    """A program on a pseudo-terminal: what it printed so far, and a way to type."""

    def __init__(self, argv, cwd, env):
        master, slave = pty.openpty()
        self.process = subprocess.Popen(argv, cwd=cwd, env=env, stdin=slave, stdout=slave,
                                        stderr=slave, close_fds=True)
        os.close(slave)
        self.master = master
        self.screen = ""

    mark = 0

    def _read(self, timeout):
        """Adds what the program printed within `timeout` seconds to the screen: None when
        nothing came, False when the program has ended (nothing more will come), else True."""
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return None
        try:
            data = os.read(self.master, 4096)
        except OSError:
            data = b""
        if not data:
            return False
        self.screen += data.decode("utf-8", "replace")
        return True

    def read_until(self, pattern, timeout=20.0):
        """Reads until `pattern` (a regex) appears after what was already matched; returns it."""
        deadline = time.monotonic() + timeout
        regex = re.compile(pattern)
        while True:
            found = regex.search(self.screen, self.mark)
            if found:
                self.mark = found.end()
                return found
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {pattern!r} on the screen:\n{self.screen}")
            if self._read(left) is False:
                raise AssertionError(f"the program ended before {pattern!r}:\n{self.screen}")

    def settle(self, prompt=r"side_[ab]> $", quiet=0.5, timeout=20.0):
        """Reads until nothing more comes for `quiet` seconds and the screen ends with `prompt`:
        the program waits for input and nothing is on its way (the other side acts only when the
        test makes it)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"the screen did not settle on {prompt!r}:\n{self.screen}")
            got = self._read(min(quiet, left))
            if got is False:
                raise AssertionError(f"the program ended while settling:\n{self.screen}")
            if got is None and re.search(prompt, self.screen):
                self.mark = len(self.screen)
                return

    def read_rest(self):
        """After the program ended: reads what it printed that was not read yet."""
        while self._read(1.0):
            pass

    def quit(self):
        """Waits for the prompt, types quit and checks that melee play exits 0."""
        self.read_until(r"side_[ab]> ")
        self.type("quit")
        code = self.process.wait(timeout=20)
        assert code == 0, f"melee play exited {code}:\n{self.screen}"

    def type(self, line):
        os.write(self.master, (line + "\n").encode())


def melee(cli, cwd, env, *args):
    done = subprocess.run([cli, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=30)
    if done.returncode != 0:
        raise AssertionError(f"melee {' '.join(args)} exited {done.returncode}:\n"
                             f"{done.stdout}{done.stderr}")
    return done.stdout


UNITS_A = ('{"location": {"name": "G3"}, "attacker": "SEAT_SIDE_A", "units": [{"id": "G1", '
           '"owner": "SEAT_SIDE_A", "kind": "UNIT_KIND_SQUAD", "name": "4-6-7", '
           '"firepower": 4, "morale": 7}]}')
UNITS_B = ('{"units": [{"id": "R1", "owner": "SEAT_SIDE_B", "kind": "UNIT_KIND_SQUAD", '
           '"name": "4-4-7", "firepower": 4, "morale": 7}, {"id": "R2", "owner": "SEAT_SIDE_B", '
           '"kind": "UNIT_KIND_SQUAD", "name": "4-4-7", "firepower": 4, "morale": 7, '
           '"concealed": true}]}')


def asl_at_designation(cli, work, env, name, units_a, units_b):
    """Creates asl match `name` by email (seat files in `work`/`name`), enters both sides'
    units, confirms and announces nothing: the Location is at designation."""
    melee(cli, work, env, "match", "create", "--out", name)
    for seat, units in (("a", units_a), ("b", units_b)):
        with open(os.path.join(work, f"{name}-{seat}.json"), "w") as f:
            f.write(units)
    for seat, args in (("a", ["--setup", f"{name}-a.json"]), ("b", ["--setup", f"{name}-b.json"]),
                       ("a", ["--confirm"]), ("b", ["--confirm"]),
                       ("a", ["--announce"]), ("b", ["--announce"])):
        melee(cli, work, env, "submit", "--seat", f"{name}/side_{seat}.seat", *args)


def start_server(server_binary, work, port=0):
    """Starts the real server on `port` (0: a free one) with its data in `work`; returns it and
    the environment that points `melee` at it."""
    log = open(os.path.join(work, "server.log"), "w+")
    server = subprocess.Popen([server_binary, "--port", str(port), "--data-dir",
                               os.path.join(work, "data")], stdout=log, stderr=subprocess.STDOUT)
    for _ in range(200):
        log.seek(0)
        found = re.search(r"listening on http://127\.0\.0\.1:(\d+)", log.read())
        if found:
            return server, dict(os.environ, MELEE_SERVER=f"ws://127.0.0.1:{found.group(1)}/ws")
        time.sleep(0.05)
    server.terminate()
    raise AssertionError("the server did not start")


def play(server_binary, cli):
    with tempfile.TemporaryDirectory() as work:
        server, env = start_server(server_binary, work)
        try:
            with open(os.path.join(work, "b-attacks.json"), "w") as f:
                f.write('{"attacks": [{"attackers": ["R1", "R2"], "targets": ["G1"]}]}')
            asl_at_designation(cli, work, env, "m", UNITS_A, UNITS_B)

            term = Terminal([cli, "play", "--seat", "m/side_a.seat"], work, env)
            # The Location as side A may see it: B's concealed squad is "?".
            term.read_until(r"side_b: R1 4-4-7, R2 \?")
            term.read_until(r"side_a> ")
            term.type("attack G1 > R1")
            term.read_until(r"4:4 -> 1-1, Kill # 5 \[A11\.11\]")
            term.read_until(r"eliminated\s+16\.67%\s+\(1/6\)")
            term.read_until(r"side_a> ")
            term.type("attack G1 > R2")
            term.read_until(r"refused: A11\.12: unit G1 already attacks")
            term.read_until(r"side_a> ")
            term.type("seal")
            term.read_until(r"sealed; receipt [0-9a-f]{64}")
            term.read_until(r"side_a> ")
            melee(cli, work, env, "submit", "--seat", "m/side_b.seat", "--declaration",
                  "b-attacks.json")
            term.type("wait 20")
            term.read_until(r"declarations revealed")
            term.read_until(r"roll A11\.11 CC DR: \d \(coloured\)")
            # An Original 2 or 12 gives its side a choice: side A answers it here (stay), side B
            # with `melee choose`; then side A waits on, until the CC is over.
            while True:
                found = term.read_until(r"(Your choice (\d+):|choice (\d+) for side_b|"
                                        r"the close combat is over)")
                if found.group(1).startswith("the close combat"):
                    break
                term.read_until(r"side_a> ")
                if found.group(2):
                    term.type(f"choose {found.group(2)}")
                else:
                    melee(cli, work, env, "choose", "--seat", "m/side_b.seat", "--choice",
                          found.group(3))
                    term.type("wait 20")
            term.quit()
            # When both sides still hold units in G3 they are locked in Melee, and the server
            # carries it on into the next CCPh at once (A11.15): the first status may show that
            # set-up; after it, nothing is new.
            status = melee(cli, work, env, "match", "status", "--seat", "m/side_a.seat")
            if "Nothing new since you last looked" not in status:
                assert "in Melee" in status, status
                status = melee(cli, work, env, "match", "status", "--seat", "m/side_a.seat")
                assert "Nothing new since you last looked" in status, status
        finally:
            server.terminate()
            server.wait(timeout=10)


SOVIETS = ('{"attacker": "SEAT_SIDE_A", "position": "POSITION_BUILDING_FROM_OUTSIDE", '
           '"force_morale": 9, "units": [{"id": "smg", "side": "SEAT_SIDE_A", '
           '"role": "ROLE_ATTACKER", "movement_dice": 1, "through_arcs": ["lmg"], '
           '"teams": [{"id": "smg_team", "figures": 7, "smgs": 7}], '
           '"leaders": [{"id": "sergeant", "smg": true}]}]}')
GERMANS = ('{"force_morale": 9, "units": [{"id": "squad", "side": "SEAT_SIDE_B", '
           '"role": "ROLE_DEFENDER", "teams": [{"id": "lmg", "figures": 3, "lmgs": 1}, '
           '{"id": "rifles", "figures": 5}], "leaders": [{"id": "unteroffizier", '
           '"status": "LEADER_STATUS_WOUNDED", "team": "lmg"}]}]}')


def play_coc(server_binary, cli):
    """Side A plays rule 17's "In action" in `melee play`: its set-up, the exact odds of the first
    round, its sealed declaration, the server's Combat Dice; side B acts by `melee submit`."""
    with tempfile.TemporaryDirectory() as work:
        server, env = start_server(server_binary, work)
        try:
            melee(cli, work, env, "match", "create", "--ruleset", "coc", "--out", "c")
            for name, text in (("soviets.json", SOVIETS), ("germans.json", GERMANS),
                               ("assault.json", '{"declare": {"advance": true}}'),
                               ("hold.json", '{"declare": {}}')):
                with open(os.path.join(work, name), "w") as f:
                    f.write(text)
            melee(cli, work, env, "submit", "--seat", "c/side_b.seat", "--setup", "germans.json")
            term = Terminal([cli, "play", "--seat", "c/side_a.seat"], work, env)
            term.read_until(r"side_a> ")
            term.type("setup soviets.json")
            term.read_until(r"side_a> ")
            term.type("confirm")
            term.read_until(r"side_a> ")
            melee(cli, work, env, "submit", "--seat", "c/side_b.seat", "--confirm")
            term.type("wait 20")
            term.read_until(r"close_combat set up")
            term.read_until(r"side_a> ")
            term.type("odds")
            term.read_until(r"side_a \(attacker\): 8 Combat Dice")
            term.read_until(r"side_b \(defender\): 13 Combat Dice")
            term.read_until(r"attacker scores more hits: 15\.72% \(548254720/3486784401\)")
            term.read_until(r"side_a> ")
            term.type("attack smg > squad")
            term.read_until(r"attack: a command of asl matches; in a coc match, seal FILE")
            term.read_until(r"side_a> ")
            term.type("seal assault.json")
            term.read_until(r"sealed; receipt [0-9a-f]{64}")
            term.read_until(r"side_a> ")
            melee(cli, work, env, "submit", "--seat", "c/side_b.seat", "--declaration",
                  "hold.json")
            term.type("wait 20")
            term.read_until(r"declarations revealed")
            term.read_until(r"combat 1, round 1: side_a 8 Combat Dice")
            term.quit()
        finally:
            server.terminate()
            server.wait(timeout=10)


RUSSIANS = ('{"location": {"name": "L5"}, "attacker": "SEAT_SIDE_A", "units": ['
            '{"id": "R1", "owner": "SEAT_SIDE_A", "kind": "UNIT_KIND_SQUAD", "name": "4-4-7", '
            '"firepower": 4, "morale": 7}, {"id": "R2", "owner": "SEAT_SIDE_A", '
            '"kind": "UNIT_KIND_SQUAD", "name": "4-4-7", "firepower": 4, "morale": 7}]}')
TANK = ('{"units": [{"id": "T1", "owner": "SEAT_SIDE_B", "kind": "UNIT_KIND_VEHICLE", '
        '"name": "PzIVH", "vehicle": {"cmg": 5, "bmg": true}}]}')


def play_vehicle(server_binary, cli):
    """An asl close combat with a vehicle: the preview of an attack on it, the A11.31 refusal of
    two attacks in one turn, then one attack sealed and resolved by the server."""
    with tempfile.TemporaryDirectory() as work:
        server, env = start_server(server_binary, work)
        try:
            asl_at_designation(cli, work, env, "v", RUSSIANS, TANK)
            term = Terminal([cli, "play", "--seat", "v/side_a.seat"], work, env)
            term.read_until(r"side_a> ")
            term.type("attack R1 > T1")
            term.read_until(r"vs a vehicle: no odds, Kill # = CCV 5 \[A11\.5\]")
            term.read_until(r"immobilized\s+11\.11%\s+\(1/9\)")
            term.read_until(r"side_a> ")
            term.type("attack R2 > T1")
            term.read_until(r"added: your declaration has 2 attack\(s\)")
            term.read_until(r"side_a> ")
            term.type("seal")
            term.read_until(r"refused: A11\.31")
            term.read_until(r"side_a> ")
            term.type("clear")
            term.read_until(r"side_a> ")
            term.type("attack R1 > T1")
            term.read_until(r"side_a> ")
            term.type("seal")
            term.read_until(r"side_a attacks vehicle T1 with R1: CCV 5")
            term.read_until(r"(side_b: declare one attack or pass \(A11\.31\)|"
                            r"the close combat is over|Your choice)")
            term.quit()
        finally:
            server.terminate()
            server.wait(timeout=10)


def play_live(server_binary, cli):
    """What the other side does shows in `melee play` as it happens, without typing; a server
    restart is reconnected and resumed by itself, and play goes on."""
    with tempfile.TemporaryDirectory() as work:
        server, env = start_server(server_binary, work)
        try:
            port = re.search(r":(\d+)/ws", env["MELEE_SERVER"]).group(1)
            asl_at_designation(cli, work, env, "l", UNITS_A, UNITS_B)
            with open(os.path.join(work, "b-attacks.json"), "w") as f:
                f.write('{"attacks": [{"attackers": ["R1"], "targets": ["G1"]}]}')
            term = Terminal([cli, "play", "--seat", "l/side_a.seat"], work, env)
            term.read_until(r"What the other side does shows as it happens")
            term.read_until(r"side_a> ")
            # The server goes down and comes back on the same port and data: the session says so
            # and resumes by itself.
            server.terminate()
            server.wait(timeout=10)
            term.read_until(r"reconnecting by itself")
            server, env = start_server(server_binary, work, port)
            term.read_until(r"connected again; resuming after event #\d+")
            term.read_until(r"side_a> ")
            # Side B seals by email; side A's screen shows it without a key pressed.
            melee(cli, work, env, "submit", "--seat", "l/side_b.seat", "--declaration",
                  "b-attacks.json")
            term.read_until(r"side_b sealed its declaration")
            term.read_until(r"Waiting for: side_a")
            term.read_until(r"side_a> ")
            term.type("attack G1 > R1")
            term.read_until(r"added: your declaration has 1 attack")
            term.read_until(r"side_a> ")
            term.type("seal")
            term.read_until(r"sealed; receipt [0-9a-f]{64}")
            term.read_until(r"declarations revealed")
            term.read_until(r"roll A11\.11 CC DR: \d \(coloured\)")
            term.quit()
        finally:
            server.terminate()
            server.wait(timeout=10)


class FaultProxy:
    """tests/testing/fault_proxy in front of the server: faults as lines on its stdin."""

    def __init__(self, binary, upstream_port):
        self.process = subprocess.Popen([binary, "--upstream", str(upstream_port)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        found = re.match(r"listening on (\d+)", self.process.stdout.readline())
        if not found:
            raise AssertionError("fault_proxy did not start")
        self.port = int(found.group(1))

    def do(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline().strip()
        if answer != "ok":
            raise AssertionError(f"fault_proxy refused '{line}': {answer}")

    def stop(self):
        self.process.stdin.close()
        self.process.wait(timeout=10)


def play_through_faults(server_binary, cli, proxy_binary):
    """`melee play` through a faulty network: a reset is reconnected and resumed by itself; a
    partition that closes nothing is noticed (no answer to a ping) and a seal typed during it is
    sent once the network heals, applied once."""
    with tempfile.TemporaryDirectory() as work:
        server, env = start_server(server_binary, work)
        proxy = None
        try:
            port = re.search(r":(\d+)/ws", env["MELEE_SERVER"]).group(1)
            proxy = FaultProxy(proxy_binary, port)
            asl_at_designation(cli, work, env, "f", UNITS_A, UNITS_B)
            # Side A's seat file points at the proxy (side B's submits go straight to the server).
            seat_path = os.path.join(work, "f", "side_a.seat")
            with open(seat_path) as f:
                seat = json.load(f)
            seat["server"] = f"ws://127.0.0.1:{proxy.port}/ws"
            with open(seat_path, "w") as f:
                json.dump(seat, f)
            term = Terminal([cli, "play", "--seat", "f/side_a.seat"], work, env)
            term.read_until(r"side_a> ")
            proxy.do("reset")
            term.read_until(r"reconnecting by itself")
            term.read_until(r"connected again; resuming after event #\d+")
            term.read_until(r"side_a> ")
            term.type("attack G1 > R1")
            term.read_until(r"added: your declaration has 1 attack")
            term.read_until(r"side_a> ")
            proxy.do("blackhole")
            term.type("seal")
            term.read_until(r"reconnecting by itself", timeout=60.0)
            proxy.do("heal")
            term.read_until(r"connected again; resuming after event #\d+", timeout=60.0)
            # The seal's answer came after `melee play` stopped waiting for it: shown when it came.
            term.read_until(r"the command sent earlier was applied: event #\d+; "
                            r"sealed; receipt [0-9a-f]{64}")
            with open(os.path.join(work, "b-attacks.json"), "w") as f:
                f.write('{"attacks": [{"attackers": ["R1"], "targets": ["G1"]}]}')
            melee(cli, work, env, "submit", "--seat", "f/side_b.seat", "--declaration",
                  "b-attacks.json")
            term.read_until(r"declarations revealed")
            term.read_until(r"roll A11\.11 CC DR: \d \(coloured\)")
            term.quit()
            if term.screen.count("sealed; receipt") != 1:
                raise AssertionError(f"the seal was not answered exactly once:\n{term.screen}")
        finally:
            if proxy:
                proxy.stop()
            server.terminate()
            server.wait(timeout=10)


def main():
    try:
        if len(sys.argv) > 3:
            play_through_faults(sys.argv[1], sys.argv[2], sys.argv[3])
        play_live(sys.argv[1], sys.argv[2])
        play(sys.argv[1], sys.argv[2])
        play_vehicle(sys.argv[1], sys.argv[2])
        play_coc(sys.argv[1], sys.argv[2])
    except AssertionError as failure:
        print(f"FAILED: {failure}")
        return 1
    print("melee play: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
