#!/usr/bin/env python3
"""An independent client against the real melee-server: Python's websockets library speaking
the protobuf JSON mapping in text frames, as a browser or a script would.

Usage: python_client_test.py PATH/TO/melee-server
Prints '<n> passed, <m> failed' and exits non-zero on any failure.
"""
import asyncio
import base64
import hashlib
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
    for order in ("DECLARATION_ORDER_SEALED", "DECLARATION_ORDER_ATTACKER_FIRST"):
        await play_close_combat(url, order, check)
    await play_vehicle_close_combat(url, check)
    await play_coc_close_combat(url, check)
    return failures


class Player:
    """One seat over its own WebSocket, speaking JSON; records events, the view and the seq."""

    def __init__(self, ws, name: str):
        self.ws, self.name, self.count = ws, name, 0
        self.match, self.seq, self.view, self.events = "", 0, {}, []

    def record(self, message: dict) -> None:
        if "event" in message:
            seq = int(message["event"]["seq"])
            assert seq == self.seq + 1, f"{self.name}: seq {seq} after {self.seq}"
            self.seq = seq
            self.events.append(message["event"])
        if "view" in message:
            self.view = message["view"]
        if "joined" in message:
            self.view = message["joined"]["view"]

    async def call(self, body: dict) -> dict:
        self.count += 1
        command_id = f"{self.name}-{self.count}"
        await self.ws.send(json.dumps({"command_id": command_id, **body}))
        while True:
            message = json.loads(await asyncio.wait_for(self.ws.recv(), 5))
            self.record(message)
            if message.get("command_id") == command_id:
                return message

    async def act(self, kind: str, body: dict) -> dict:
        return await self.call({kind: {"match_id": self.match, "expected_seq": str(self.seq), **body}})

    async def wait_seq(self, seq: int) -> None:
        while self.seq < seq or int(self.view.get("seq", 0)) < self.seq:
            self.record(json.loads(await asyncio.wait_for(self.ws.recv(), 5)))


async def play_close_combat(url: str, order: str, check) -> None:
    """A whole A11 close combat between two JSON clients, in one declaration order."""
    async with websockets.connect(url) as ws_a, websockets.connect(url) as ws_b:
        a, b = Player(ws_a, "a"), Player(ws_b, "b")
        created = await a.call({"create_match": {"settings": {
            "ruleset": "asl", "declaration_order": order, "title": "python " + order}}})
        tokens = created.get("match_created", {})
        check(bool(tokens.get("side_a_token")), f"{order}: create_match answers seat tokens")
        a.match = b.match = tokens.get("match_id", "")
        joined_a = await a.call({"join_seat": {"match_id": a.match,
                                               "seat_token": tokens.get("side_a_token")}})
        joined_b = await b.call({"join_seat": {"match_id": b.match,
                                               "seat_token": tokens.get("side_b_token")}})
        check(joined_a.get("joined", {}).get("seat") == "SEAT_SIDE_A"
              and joined_b.get("joined", {}).get("seat") == "SEAT_SIDE_B",
              f"{order}: join_seat binds each token to its seat")

        def squad(unit_id: str, owner: str) -> dict:
            return {"id": unit_id, "owner": owner, "kind": "UNIT_KIND_SQUAD", "firepower": 4}

        ack = await a.act("submit_setup", {"asl": {"location": {"name": "H4"},
                                                   "attacker": "SEAT_SIDE_A",
                                                   "units": [squad("G1", "SEAT_SIDE_A")]}})
        check("ack" in ack, f"{order}: side A enters its units")
        ack = await b.act("submit_setup", {"asl": {"units": [squad("R1", "SEAT_SIDE_B")]}})
        check("ack" in ack, f"{order}: side B enters its units")
        for player in (a, b):
            await player.wait_seq(max(a.seq, b.seq))
            check("ack" in await player.act("confirm_setup", {}), f"{order}: {player.name} confirms")
        for player in (a, b):
            await player.wait_seq(max(a.seq, b.seq))
            check("ack" in await player.act("announce", {"asl": {}}),
                  f"{order}: {player.name} announces (ATTACKER first)")
        await b.wait_seq(a.seq)
        attack = {"G1": "R1", "R1": "G1"}
        first, second = (b, a) if order == "DECLARATION_ORDER_SEALED" else (a, b)
        for player in (first, second):
            await player.wait_seq(max(a.seq, b.seq))
            mine = "G1" if player is a else "R1"
            sealed = await player.act("seal_declaration", {
                "client_entropy": "cHl0aG9uLWVudHJvcHk=",
                "declaration": {"asl": {"attacks": [{"attackers": [mine],
                                                      "targets": [attack[mine]]}]}}})
            check(len(sealed.get("ack", {}).get("receipt", "")) == 44,
                  f"{order}: {player.name} seals and gets a SHA-256 receipt")
            check(opens(sealed.get("ack", {})),
                  f"{order}: {player.name}'s receipt is SHA-256('melee/v2/seal|' + nonce + sealed)")
        # Answer whatever choices the server's dice bring, until the combat is over (ended, or
        # both squads locked in a Melee that the server carries on into CCPh 2).
        def over(view: dict) -> bool:
            return view.get("stage") == "STAGE_ENDED" or view.get("ccph", 1) > 1
        for _ in range(20):
            await a.wait_seq(max(a.seq, b.seq))
            await b.wait_seq(max(a.seq, b.seq))
            if over(a.view):
                break
            for player in (a, b):
                pending = player.view.get("asl", {}).get("pending")
                if pending and pending.get("seat") == player.view.get("seat"):
                    selected = pending["options"][:1] if pending.get("min_selected") else []
                    await player.act("make_choice", {"choice_id": str(pending["id"]),
                                                     "selected": selected})
        check(over(a.view) and over(b.view), f"{order}: the close combat ends for both seats")
        kinds = [event.get("asl", {}).get("kind") for event in a.events]
        check(kinds.count("EVENT_KIND_ATTACK_RESOLVED") == 2,
              f"{order}: both attacks are resolved with the server's dice")
        check(a.seq == b.seq and [e["seq"] for e in a.events] == [e["seq"] for e in b.events],
              f"{order}: both seats saw every seq once, in order")
        # Each seat checks the other's commitment once it is opened, with hashlib alone.
        for player in (a, b):
            other = "SEAT_SIDE_B" if player is a else "SEAT_SIDE_A"
            commitments = {e["seq"]: e["declaration_sealed"]["receipt"] for e in player.events
                           if e.get("declaration_sealed", {}).get("seat") == other}
            early = [e for e in player.events
                     if e.get("declaration_sealed", {}).get("seat") == other
                     and "opening" in e["declaration_sealed"]]
            openings = [o for e in player.events
                        for o in e.get("declarations_revealed", {}).get("openings", [])
                        if o.get("seat") == other] + [e["declaration_sealed"]["opening"]
                                                      for e in early]
            check(bool(commitments) and bool(openings) and all(
                      opens(o) and commitments.get(o.get("sealed_seq")) == o.get("receipt")
                      for o in openings),
                  f"{order}: {player.name} opens the other side's commitment after the reveal")
            if order == "DECLARATION_ORDER_SEALED":
                check(not early, f"{order}: {player.name} gets no opening before the reveal")


def opens(opening: dict) -> bool:
    """Whether a seal's opening (an ack or a SealOpening, as JSON) opens its commitment: SHA-256
    of the text "melee/v2/seal|", the 32-byte nonce and the sealed bytes (docs/fair-play.md)."""
    nonce = base64.b64decode(opening.get("seal_nonce", opening.get("nonce", "")))
    sealed = base64.b64decode(opening.get("sealed", ""))
    receipt = base64.b64decode(opening.get("receipt", ""))
    return len(nonce) == 32 and hashlib.sha256(b"melee/v2/seal|" + nonce + sealed).digest() == receipt


async def play_vehicle_close_combat(url: str, check) -> None:
    """An A11 close combat with a vehicle between two JSON clients: the sides alternate single
    attacks (A11.31), the squads on the tank and the tank's CMG on a squad, until it is over."""
    async with websockets.connect(url) as ws_a, websockets.connect(url) as ws_b:
        a, b = Player(ws_a, "a"), Player(ws_b, "b")
        created = await a.call({"create_match": {"settings": {"ruleset": "asl",
                                                              "title": "python vehicle"}}})
        tokens = created.get("match_created", {})
        a.match = b.match = tokens.get("match_id", "")
        await a.call({"join_seat": {"match_id": a.match, "seat_token": tokens.get("side_a_token")}})
        await b.call({"join_seat": {"match_id": b.match, "seat_token": tokens.get("side_b_token")}})
        squads = [{"id": unit_id, "owner": "SEAT_SIDE_A", "kind": "UNIT_KIND_SQUAD",
                   "firepower": 4} for unit_id in ("R1", "R2")]
        tank = {"id": "T1", "owner": "SEAT_SIDE_B", "kind": "UNIT_KIND_VEHICLE",
                "name": "PzIVH", "vehicle": {"cmg": 5, "bmg": True}}
        check("ack" in await a.act("submit_setup", {"asl": {"location": {"name": "L5"},
                                                             "attacker": "SEAT_SIDE_A",
                                                             "units": squads}}),
              "vehicle: side A enters two squads")
        check("ack" in await b.act("submit_setup", {"asl": {"units": [tank]}}),
              "vehicle: side B enters a tank (UNIT_KIND_VEHICLE)")
        for kind, body in (("confirm_setup", {}), ("announce", {"asl": {}})):
            for player in (a, b):
                await player.wait_seq(max(a.seq, b.seq))
                await player.act(kind, body)
        await a.wait_seq(b.seq)
        asl = a.view.get("asl", {})
        check(asl.get("alternating") is True and asl.get("to_act") == "SEAT_SIDE_A",
              "vehicle: sequential CC, alternating, the non-vehicular side first (A11.31)")
        two = await a.act("seal_declaration", {"client_entropy": "dmVoaWNsZQ==",
                                               "declaration": {"asl": {"attacks": [
            {"attackers": ["R1"], "targets": ["T1"]}, {"attackers": ["R2"], "targets": ["T1"]}]}}})
        check(two.get("error", {}).get("rule_ref") == "A11.31",
              "vehicle: two attacks in one turn are refused naming A11.31")
        squads_left, cmg_used = ["R1", "R2"], False
        for _ in range(30):
            await a.wait_seq(max(a.seq, b.seq))
            await b.wait_seq(max(a.seq, b.seq))
            if a.view.get("stage") == "STAGE_ENDED" or a.view.get("ccph", 1) > 1:
                break
            for player in (a, b):
                view = player.view.get("asl", {})
                pending = view.get("pending")
                if pending and pending.get("seat") == player.view.get("seat"):
                    await player.act("make_choice", {"choice_id": str(pending["id"]),
                                                     "selected": []})
                    break
                if view.get("phase") != "PHASE_DECLARE" or view.get("to_act") != \
                        player.view.get("seat"):
                    continue
                attacks = []
                if player is a and squads_left:
                    attacks = [{"attackers": [squads_left.pop(0)], "targets": ["T1"]}]
                elif player is b and not cmg_used:
                    cmg_used = True
                    attacks = [{"attackers": ["T1"], "weapons": ["cmg"], "targets": ["R2"]}]
                await player.act("seal_declaration", {"client_entropy": "dmVoaWNsZQ==",
                                                      "declaration": {"asl": {"attacks": attacks}}})
                break
        check(all(p.view.get("stage") == "STAGE_ENDED" or p.view.get("ccph", 1) > 1 for p in (a, b)),
              "vehicle: the close combat ends for both seats")
        vehicle_attacks = [event["asl"]["attack"] for event in a.events
                           if event.get("asl", {}).get("kind") == "EVENT_KIND_ATTACK_RESOLVED"]
        check(any(attack.get("vs_vehicle") for attack in vehicle_attacks),
              "vehicle: an attack on the tank is resolved against the CCV (A11.5)")


async def play_coc_close_combat(url: str, check) -> None:
    """A whole Chain of Command rule 17 close combat between two JSON clients: both declarations
    sealed, then each odd-hit placement the server's dice ask for, until the contact is over."""
    async with websockets.connect(url) as ws_a, websockets.connect(url) as ws_b:
        a, b = Player(ws_a, "a"), Player(ws_b, "b")
        created = await a.call({"create_match": {"settings": {"ruleset": "coc",
                                                              "title": "python coc"}}})
        tokens = created.get("match_created", {})
        check(bool(tokens.get("side_b_token")), "coc: create_match answers seat tokens")
        a.match = b.match = tokens.get("match_id", "")
        await a.call({"join_seat": {"match_id": a.match, "seat_token": tokens.get("side_a_token")}})
        await b.call({"join_seat": {"match_id": b.match, "seat_token": tokens.get("side_b_token")}})

        def unit(unit_id: str, side: str, role: str, teams: list) -> dict:
            return {"id": unit_id, "side": side, "role": role,
                    "teams": [{"id": t, "figures": n} for t, n in teams],
                    "leaders": [{"id": unit_id + "_leader"}]}

        ack = await a.act("submit_setup", {"coc": {
            "attacker": "SEAT_SIDE_A", "obstacle": "OBSTACLE_MINOR", "force_morale": 9,
            "units": [unit("section", "SEAT_SIDE_A", "ROLE_ATTACKER",
                           [("rifles", 6), ("bren", 3)])]}})
        check("ack" in ack, "coc: side A enters its section")
        ack = await b.act("submit_setup", {"coc": {"force_morale": 8, "units": [
            unit("gruppe", "SEAT_SIDE_B", "ROLE_DEFENDER", [("mg", 3), ("schutzen", 5)])]}})
        check("ack" in ack, "coc: side B enters its squad")
        for player in (a, b):
            await player.wait_seq(max(a.seq, b.seq))
            check("ack" in await player.act("confirm_setup", {}), f"coc: {player.name} confirms")
        for player in (b, a):
            await player.wait_seq(max(a.seq, b.seq))
            sealed = await player.act("seal_declaration", {
                "client_entropy": "cHl0aG9uLWVudHJvcHk=",
                "declaration": {"coc": {"declare": {"advance": player is a}}}})
            check(len(sealed.get("ack", {}).get("receipt", "")) == 44,
                  f"coc: {player.name} seals its declaration and gets a receipt")
        # Place whatever odd hits the server's dice bring (17.4.1), until the contact is over.
        for _ in range(20):
            await a.wait_seq(max(a.seq, b.seq))
            await b.wait_seq(max(a.seq, b.seq))
            if a.view.get("stage") == "STAGE_ENDED":
                break
            for player, side in ((a, "side_a"), (b, "side_b")):
                coc = player.view.get("coc", {})
                if not coc.get(side + "_owes") or coc.get(side + "_sealed"):
                    continue
                owed = coc.get("report", {}).get(side, {})
                mine = [team["id"] for viewed in coc.get("units", [])
                        if viewed["unit"].get("side") == player.view.get("seat")
                        and viewed["unit"].get("role") != "ROLE_SUPPORT" and not viewed.get("gone")
                        for team in viewed["unit"].get("teams", []) if team.get("figures", 0) > 0]
                place = {"odd_kills": mine[:owed.get("odd_kills", 0)],
                         "odd_shock": mine[:owed.get("odd_shock", 0)]}
                await player.act("seal_declaration", {
                    "client_entropy": "cHl0aG9uLWVudHJvcHk=",
                    "declaration": {"coc": {"place": place}}})
        check(a.view.get("stage") == "STAGE_ENDED" and b.view.get("stage") == "STAGE_ENDED",
              "coc: the close combat ends for both seats")
        kinds = [event.get("coc", {}).get("kind") for event in a.events]
        check("EVENT_KIND_ROUND_ROLLED" in kinds and "EVENT_KIND_CONTACT_ENDED" in kinds,
              "coc: the server rolled the Combat Dice and ended the contact")
        check(a.seq == b.seq and [e["seq"] for e in a.events] == [e["seq"] for e in b.events],
              "coc: both seats saw every seq once, in order")


def start_server(binary: str, data: str):
    """melee-server on a free port with its SQLite store in `data`: (process, ws URL)."""
    server = subprocess.Popen([binary, "--port", "0", "--data-dir", data],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in server.stdout:
        found = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
        if found:
            return server, f"ws://127.0.0.1:{found.group(1)}/ws"
    server.terminate()
    raise RuntimeError("the server did not start")


def stop_server(server) -> None:
    server.terminate()
    server.wait(timeout=10)


async def seat(url: str, name: str, match: str, token: str, after_seq: int = 0):
    ws = await websockets.connect(url)
    player = Player(ws, name)
    # A new connection numbers its commands afresh: command ids must not repeat the old ones
    # (a repeated id is a retry, answered with the first answer).
    player.count = 1000 * (after_seq != 0)
    player.match, player.seq = match, after_seq
    await player.call({"join_seat": {"match_id": match, "seat_token": token,
                                     "after_seq": str(after_seq)}})
    return player


async def all_say_nothing(a: Player, b: Player, attacker: Player, check, what: str) -> None:
    """Both announce nothing (ATTACKER first) and seal no attack: nobody is hurt, the Melee holds."""
    defender = b if attacker is a else a
    for player in (attacker, defender):
        await player.wait_seq(max(a.seq, b.seq))
        check("ack" in await player.act("announce", {"asl": {}}), f"{what}: {player.name} announces")
    for player in (attacker, defender):
        await player.wait_seq(max(a.seq, b.seq))
        check("ack" in await player.act("seal_declaration", {"declaration": {"asl": {}}}),
              f"{what}: {player.name} seals")


async def wait_ccph(player: Player, ccph: int) -> None:
    for _ in range(50):
        if int(player.view.get("ccph", 1)) == ccph and int(player.view.get("seq", 0)) >= player.seq:
            return
        player.record(json.loads(await asyncio.wait_for(player.ws.recv(), 5)))


def force_unit(view: dict, unit_id: str) -> dict:
    for side in ("side_a_force", "side_b_force"):
        for unit in view.get(side, []):
            if unit.get("id") == unit_id:
                return unit
    return {}


async def play_melee_through_three_ccphs(binary: str, data: str, check) -> None:
    """Forces that persist (docs/forces.md), as JSON clients see them: a Melee held through three
    CCPhs with units entered once, unit updates between the phases, and a server restart."""
    server, url = start_server(binary, data)
    try:
        async with websockets.connect(url) as ws:
            creator = Player(ws, "creator")
            created = (await creator.call({"create_match": {"settings": {"ruleset": "asl"}}}))
        tokens = created["match_created"]
        match = tokens["match_id"]
        a = await seat(url, "a", match, tokens["side_a_token"])
        b = await seat(url, "b", match, tokens["side_b_token"])

        def squad(unit_id: str, owner: str, **more) -> dict:
            return {"id": unit_id, "owner": owner, "kind": "UNIT_KIND_SQUAD", "firepower": 4,
                    **more}

        await a.act("submit_setup", {"asl": {"location": {"name": "H4"}, "attacker": "SEAT_SIDE_A",
                                             "units": [squad("G1", "SEAT_SIDE_A")]}})
        await b.act("submit_setup", {"asl": {"units": [squad("R1", "SEAT_SIDE_B")]}})
        for player in (a, b):
            await player.wait_seq(max(a.seq, b.seq))
            await player.act("confirm_setup", {})
        await all_say_nothing(a, b, a, check, "forces, CCPh 1")
        await wait_ccph(a, 2)
        check(a.view.get("asl", {}).get("attacker") == "SEAT_SIDE_B"
              and a.view.get("asl", {}).get("location", {}).get("melee") is True,
              "forces: the Melee goes on into CCPh 2 by itself, side B attacking")

        # Between the phases: B brings a concealed squad into J5; A sees only a "?".
        ack = await b.act("update_units", {"updates": [{
            "unit": "R2", "kind": "UPDATE_KIND_ENTER", "location": "J5", "note": "secret path",
            "asl": squad("R2", "SEAT_SIDE_B", name="SECRET-R2", concealed=True)}]})
        check("ack" in ack, "forces: side B reports a unit update")
        refused = await a.act("update_units", {"updates": [{"unit": "R1",
                                                            "kind": "UPDATE_KIND_BREAK"}]})
        check("only its own units" in refused.get("error", {}).get("message", ""),
              "forces: an update of the other side's unit is refused")
        await a.wait_seq(b.seq)
        shown = a.events[-1].get("units_updated", {}).get("updates", [{}])[0]
        check(shown.get("hidden") is True and shown.get("location") == "J5"
              and "asl" not in shown and "note" not in shown,
              "forces: the opponent sees the concealed unit's update only as a '?'")
        check(force_unit(a.view, "R2").get("hidden") is True,
              "forces: the opponent's view of the force shows a '?'")

        # A restart in the middle of CCPh 2; both seats resume from their last seq.
        for player in (a, b):
            await player.ws.close()
        stop_server(server)
        server, url = start_server(binary, data)
        a = await seat(url, "a", match, tokens["side_a_token"], a.seq)
        b = await seat(url, "b", match, tokens["side_b_token"], b.seq)
        check(int(a.view.get("ccph", 0)) == 2 and not a.events,
              "forces: after a restart the CCPh and the forces come back, nothing missed")

        await all_say_nothing(a, b, b, check, "forces, CCPh 2")
        await wait_ccph(a, 3)
        await b.wait_seq(a.seq)
        check(a.view.get("asl", {}).get("attacker") == "SEAT_SIDE_A",
              "forces: CCPh 3 starts, side A attacking")
        units = {u["unit"]["id"] for u in a.view.get("asl", {}).get("units", [])}
        check(units == {"G1", "R1"}, "forces: CCPh 3 holds the carried G1 and R1, entered once")
        everything = json.dumps(a.events) + json.dumps(a.view)
        check("SECRET-R2" not in everything and "secret path" not in everything,
              "forces: nothing of B's concealed unit reached A")
        for player in (a, b):
            await player.ws.close()
    finally:
        stop_server(server)


def main() -> int:
    binary = sys.argv[1]
    failures: list[str] = []
    passed = 0

    def check(condition: bool, what: str) -> None:
        nonlocal passed
        print(("ok   " if condition else "FAIL ") + what)
        if condition:
            passed += 1
        else:
            failures.append(what)

    with tempfile.TemporaryDirectory() as data:
        server, url = start_server(binary, data)
        try:
            for failure in asyncio.run(run_checks(url)):
                if failure not in failures:
                    failures.append(failure)
        finally:
            stop_server(server)
    with tempfile.TemporaryDirectory() as data:
        asyncio.run(play_melee_through_three_ccphs(binary, data, check))
    total = 5 + 2 * 13 + 10 + passed + len(failures) - len([f for f in failures if
                                                            not f.startswith("forces")])
    print(f"{total - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
