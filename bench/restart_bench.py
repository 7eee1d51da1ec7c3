#!/usr/bin/python3
"""restart_bench: how long melee-server takes to listen with many finished matches in its store.

Fills a fresh store with N finished asl matches played through the real server (each a whole
close combat: set-up, announcements, two sealed declarations, a Melee (A11.15) in which side A
withdraws unopposed (A11.2), about 30 events), then starts the server on that store several times,
alternating the default (a dormant match is listed, loaded when first asked for, and replayed in
the background) with --eager-recovery (every match replayed before listening, as before). For
each start it reports the time from exec to "listening", the server's RSS then, the first answer
to a seat of a dormant match (which loads it), and the background replay's own report.

Usage: /usr/bin/python3 bench/restart_bench.py [--server-binary build/server/melee-server]
           [--matches 2000] [--starts 3] [--concurrency 32] [--csv out.csv] [--data DIR]
--data DIR keeps the store (and the seats' tokens) in DIR and reuses it on the next run; a store
whose fill was stopped early is measured without the first-join probe.
"""
import argparse
import asyncio
import csv
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import websockets

LISTENING = re.compile(rb"listening on http://127\.0\.0\.1:(\d+)")
REPLAYED = re.compile(rb"replayed (\d+) dormant match\(es\) in the background in ([0-9.]+) s")


class Server:
    """melee-server on a free loopback port; its output collected on a thread of the loop."""

    def __init__(self, binary: str, data: str, *extra: str):
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            [binary, "--port", "0", "--listen", "127.0.0.1", "--data-dir", data,
             "--messages-per-second", "1000000", "--match-creations-per-minute", "0",
             "--max-connections-per-address", "100000", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.output = b""
        self.port = 0
        self.listen_seconds = 0.0
        # Drained all along by a thread: a server blocked on a full pipe would stall its threads.
        self.reader = threading.Thread(target=self.drain, daemon=True)
        self.reader.start()

    def drain(self) -> None:
        for line in iter(self.process.stdout.readline, b""):
            self.output += line

    def wait_for(self, pattern: re.Pattern, timeout: float):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            found = pattern.search(self.output)
            if found:
                return found
            if self.process.poll() is not None:
                raise RuntimeError("melee-server exited:\n" + self.output.decode(errors="replace"))
            time.sleep(0.002)
        raise RuntimeError(f"melee-server never printed {pattern.pattern!r}:\n"
                           + self.output.decode(errors="replace")[-3000:])

    def wait_listening(self) -> None:
        found = self.wait_for(LISTENING, 600)
        self.listen_seconds = time.monotonic() - self.started
        self.port = int(found.group(1))

    def rss_kib(self) -> int:
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        if self.process.wait(300) != 0:
            raise RuntimeError("melee-server did not stop cleanly:\n"
                               + self.output.decode(errors="replace")[-3000:])


class Seat:
    """One seat over its own WebSocket, speaking the JSON mapping."""

    def __init__(self, ws, name: str):
        self.ws, self.name, self.count, self.match, self.seq, self.view = ws, name, 0, "", 0, {}

    def record(self, message: dict) -> None:
        if "event" in message:
            self.seq = max(self.seq, int(message["event"]["seq"]))
        if "view" in message:
            self.view = message["view"]
        if "joined" in message:
            self.view = message["joined"]["view"]
            self.seq = max(self.seq, int(self.view.get("seq", 0)))

    async def call(self, body: dict) -> dict:
        self.count += 1
        command_id = f"{self.name}-{self.count}"
        await self.ws.send(json.dumps({"command_id": command_id, **body}))
        while True:
            message = json.loads(await asyncio.wait_for(self.ws.recv(), 30))
            self.record(message)
            if message.get("command_id") == command_id:
                if "error" in message:
                    raise RuntimeError(f"{self.name}: {message['error']}")
                return message

    async def act(self, kind: str, body: dict) -> dict:
        return await self.call({kind: {"match_id": self.match, "expected_seq": str(self.seq),
                                       **body}})

    async def sync(self, seq: int) -> None:
        """Reads until this seat has seen event `seq` and the view after it."""
        await self.wait(lambda v: int(v.get("seq", 0)) >= seq)

    async def wait(self, done) -> None:
        while not done(self.view) or int(self.view.get("seq", 0)) < self.seq:
            self.record(json.loads(await asyncio.wait_for(self.ws.recv(), 30)))


def squad(unit_id: str, owner: str) -> dict:
    return {"id": unit_id, "owner": owner, "kind": "UNIT_KIND_SQUAD", "firepower": 4,
            "morale": 7, "name": "4-4-7"}


async def play_finished_match(url: str, number: int) -> dict:
    """One whole close combat that ends without a roll: nobody attacks in CCPh 1, and in the Melee
    that goes on side A withdraws unopposed. Returns the match's tokens."""
    none = {"client_entropy": "cmVzdGFydC1iZW5jaA==", "declaration": {"asl": {"attacks": []}}}
    async with websockets.connect(url) as ws_a, websockets.connect(url) as ws_b:
        a, b = Seat(ws_a, f"a{number}"), Seat(ws_b, f"b{number}")
        created = (await a.call({"create_match": {"settings": {
            "ruleset": "asl", "title": f"restart bench {number}"}}}))["match_created"]
        a.match = b.match = created["match_id"]
        await a.call({"join_seat": {"match_id": a.match, "seat_token": created["side_a_token"]}})
        await b.call({"join_seat": {"match_id": b.match, "seat_token": created["side_b_token"]}})

        async def turn(seat: Seat, other: Seat, kind: str, body: dict) -> None:
            await seat.sync(other.seq)
            await seat.act(kind, body)

        await turn(a, b, "submit_setup", {"asl": {"location": {"name": "G3"},
                                                  "attacker": "SEAT_SIDE_A",
                                                  "units": [squad("G1", "SEAT_SIDE_A")]}})
        await turn(b, a, "submit_setup", {"asl": {"units": [squad("R1", "SEAT_SIDE_B")]}})
        # CCPh 1: both confirm, announce (side A, the ATTACKER, first) and seal no attack.
        for kind, body in (("confirm_setup", {}), ("announce", {"asl": {}}),
                           ("seal_declaration", none)):
            await turn(a, b, kind, body)
            await turn(b, a, kind, body)
        # CCPh 2, the Melee going on: side B is the ATTACKER; side A withdraws G1 unopposed.
        await b.wait(lambda v: int(v.get("ccph", 1)) == 2 and
                     any(w.startswith("side_b") for w in v.get("waiting_for", [])))
        await turn(b, a, "announce", {"asl": {}})
        await turn(a, b, "announce", {"asl": {"withdraw": ["G1"]}})
        await turn(b, a, "seal_declaration", none)
        await turn(a, b, "seal_declaration", none)
        await a.wait(lambda v: v.get("stage") == "STAGE_ENDED")
        return created


async def fill(url: str, matches: int, concurrency: int) -> list[dict]:
    gate = asyncio.Semaphore(concurrency)
    done = 0
    started = time.monotonic()

    async def one(number: int) -> dict:
        nonlocal done
        async with gate:
            created = await play_finished_match(url, number)
            done += 1
            if done % 500 == 0:
                rate = done / (time.monotonic() - started)
                print(f"  {done} matches played ({rate:.0f}/s)", file=sys.stderr, flush=True)
            return created

    return await asyncio.gather(*(one(n) for n in range(matches)))


async def first_answer(port: int, created: dict) -> float:
    """Seconds from connecting to a seat of a dormant match to the server's answer (it loads)."""
    started = time.monotonic()
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws") as ws:
        seat = Seat(ws, "probe")
        joined = await seat.call({"join_seat": {"match_id": created["match_id"],
                                                "seat_token": created["side_a_token"]}})
        assert joined["joined"]["view"]["stage"] == "STAGE_ENDED", joined
    return time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--server-binary", default="build/server/melee-server")
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--starts", type=int, default=3, help="starts of each kind, alternating")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--csv", help="also write the rows here")
    parser.add_argument("--data", help="the store to use: filled when it does not exist yet, "
                        "and kept (default: a temporary one)")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="melee-restart-bench-")
    data = args.data or os.path.join(work, "data")
    tokens = os.path.join(data, "restart-bench-matches.json")
    try:
        if os.path.exists(tokens):
            with open(tokens) as kept:
                created = json.load(kept)
            filled = 0.0
        elif args.data and os.path.exists(os.path.join(data, "melee.db")):
            created = []  # a store filled otherwise (or a fill stopped early): no seat to probe
            filled = 0.0
        else:
            server = Server(args.server_binary, data)
            server.wait_listening()
            started = time.monotonic()
            created = asyncio.run(fill(f"ws://127.0.0.1:{server.port}/ws", args.matches,
                                       args.concurrency))
            filled = time.monotonic() - started
            server.stop()
            with open(tokens, "w") as kept:
                json.dump(created, kept)
        size = sum(os.path.getsize(os.path.join(data, f)) for f in os.listdir(data))
        print(f"restart_bench: {len(created) or 'a kept store of'} finished asl matches "
              f"({'played in %.1f s' % filled if filled else 'kept from an earlier run'}); "
              f"store {size / 1e6:.1f} MB; {os.cpu_count()} cores")
        print(f"{'start':>8} {'mode':>8} {'listen s':>9} {'RSS MiB':>8} {'1st join ms':>12} "
              f"{'bg replay s':>12} {'replayed':>9}")
        rows = []
        for start in range(args.starts):
            for mode in ("dormant", "eager"):
                extra = ("--eager-recovery",) if mode == "eager" else ()
                server = Server(args.server_binary, data, *extra)
                server.wait_listening()
                rss = server.rss_kib() / 1024
                join_ms = (asyncio.run(first_answer(server.port, random.choice(created))) * 1000
                           if created else float("nan"))
                served = re.search(rb"(\d+) dormant match\(es\) in the store", server.output)
                replay_s, replayed = "", ""
                if mode == "dormant":
                    found = server.wait_for(REPLAYED, 600)
                    replayed, replay_s = int(found.group(1)), float(found.group(2))
                server.stop()
                row = {"start": start + 1, "mode": mode,
                       "matches": len(created) or (int(served.group(1)) if served else 0),
                       "listen_s": round(server.listen_seconds, 3), "rss_mib": round(rss, 1),
                       "first_join_ms": round(join_ms, 1), "background_replay_s": replay_s,
                       "replayed": replayed}
                rows.append(row)
                print(f"{row['start']:>8} {mode:>8} {row['listen_s']:>9.3f} {row['rss_mib']:>8.1f} "
                      f"{row['first_join_ms']:>12.1f} {str(replay_s):>12} {str(replayed):>9}",
                      flush=True)
        if args.csv:
            with open(args.csv, "w", newline="") as out:
                writer = csv.DictWriter(out, fieldnames=list(rows[0]))
                writer.writeheader()
                writer.writerows(rows)
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
