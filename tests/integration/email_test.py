#!/usr/bin/env python3
"""Email notices (docs/notifications.md) with real parts: a real melee-server mails through a real
SMTP relay on loopback (smtp_sink.py, on Debian's python3-aiosmtpd); the tests read the saved
mails and act on them with the real `melee` command line.

Usage: email_test.py MELEE_SERVER_BINARY MELEE_CLI_BINARY CASE
CASE is a test class below (EmailNotices, EmailRelay, EmailPrivacy, EmailGame).
"""

import asyncio
import email
import email.policy
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request

import websockets

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER_BINARY = ""
CLI = ""
ALICE = "alice.pbem@example.org"
BOB = "bob+melee@mail.example.net"


# ---- the parts ------------------------------------------------------------------------------

class Sink:
    """smtp_sink.py in a process of its own: saves every mail in `directory`."""

    def __init__(self, directory, port=0, tls=None, user=None):
        self.directory, self.port, self.tls, self.user = directory, port, tls, user
        self.process = None

    def start(self):
        args = ["/usr/bin/python3", os.path.join(HERE, "smtp_sink.py"), "--dir", self.directory,
                "--port", str(self.port)]
        if self.tls:
            args += ["--tls-cert", self.tls[0], "--tls-key", self.tls[1], "--require-starttls"]
        if self.user:
            args += ["--user", self.user[0], "--password", self.user[1]]
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        text=True)
        line = self.process.stdout.readline()
        found = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        assert found, f"the SMTP sink did not start: {line!r}"
        self.port = int(found.group(1))
        return self

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        self.process = None

    def mails(self):
        """Every mail saved so far, oldest first, parsed."""
        if not os.path.isdir(self.directory):
            return []
        names = sorted(n for n in os.listdir(self.directory) if n.endswith(".eml"))
        out = []
        for name in names:
            with open(os.path.join(self.directory, name), "rb") as f:
                out.append(Mail(f.read()))
        return out

    def wait_for(self, count, timeout=30, to=None):
        """Waits until `count` mails (to `to`, when given) arrived; returns them."""
        deadline = time.time() + timeout
        while True:
            mails = [m for m in self.mails() if to is None or m.rcpt == to]
            if len(mails) >= count or time.time() > deadline:
                return mails
            time.sleep(0.1)


class Mail:
    """One saved mail: the sink's envelope lines, headers, text and attachments."""

    def __init__(self, raw):
        self.raw = raw
        self.message = email.message_from_bytes(raw, policy=email.policy.default)
        self.rcpt = self.message["X-Sink-Rcpt-To"]
        self.auth = self.message["X-Sink-Auth"]
        self.subject = str(self.message["Subject"])
        self.text = self.message.get_body(("plain",)).get_content().replace("\r\n", "\n")
        self.attachments = {part.get_filename(): part.get_content()
                            for part in self.message.iter_attachments()}

    def attachment(self, suffix):
        for name, content in self.attachments.items():
            if name.endswith(suffix):
                return name, content if isinstance(content, bytes) else content.encode()
        raise AssertionError(f"no *{suffix} attached; attachments: {list(self.attachments)}")

    def save(self, suffix, folder):
        """Saves the attachment ending in `suffix` as its own name in `folder`; returns its path."""
        name, content = self.attachment(suffix)
        path = os.path.join(folder, name)
        with open(path, "wb") as f:
            f.write(content)
        os.chmod(path, 0o600)
        return path

    def act_line(self):
        """The one-line `melee` command the mail gives for what is awaited now."""
        found = re.search(r"act in one shot:\n  (melee .*)\n", self.text)
        assert found, f"the mail gives no command:\n{self.text}"
        return found.group(1)


class Server:
    """A real melee-server with its data in `work`/data, mailing through `smtp_port`."""

    def __init__(self, work, smtp_port=None, extra=(), port=0):
        self.work, self.smtp_port, self.extra, self.port = work, smtp_port, list(extra), port
        self.process = None
        self.log_path = os.path.join(work, "server.log")

    def start(self):
        args = [SERVER_BINARY, "--port", str(self.port), "--data-dir",
                os.path.join(self.work, "data")]
        if self.smtp_port is not None:
            args += ["--smtp-url", f"smtp://127.0.0.1:{self.smtp_port}",
                     "--smtp-from", "referee@melee.example.org"]
        args += self.extra
        log = open(self.log_path, "a")
        self.process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while time.time() < deadline:
            found = re.findall(r"listening on http://127\.0\.0\.1:(\d+)", self.log())
            if found and self.process.poll() is None:
                self.port = int(found[-1])
                return self
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"the server did not start:\n{self.log()}")

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def stop(self, sig=signal.SIGTERM):
        if self.process and self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(timeout=20)
        self.process = None

    @property
    def ws(self):
        return f"ws://127.0.0.1:{self.port}/ws"

    def env(self):
        return dict(os.environ, MELEE_SERVER=self.ws)

    def http(self, method, path, body=None, token=None):
        """Returns (status, parsed JSON or text) of one request."""
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", method=method,
                                         data=None if body is None else body.encode())
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                status, text = answer.status, answer.read().decode()
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read().decode()
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text

    def metric(self, name):
        _, text = self.http("GET", "/metrics")
        found = re.search(rf"^{name} ([0-9.e+]+)$", text, re.M)
        return float(found.group(1)) if found else None

    def key(self):
        _, answer = self.http("GET", "/api/server-key")
        return answer["public_key_hex"]


def melee(work, env, *args, check=True):
    done = subprocess.run([CLI, *args], cwd=work, env=env, capture_output=True, text=True,
                          timeout=60)
    if check:
        assert done.returncode == 0, f"melee {' '.join(args)} exited {done.returncode}:\n" \
                                     f"{done.stdout}{done.stderr}"
    return done


def seat(path):
    with open(path) as f:
        return json.load(f)


def register(server, seat_file, body):
    link = seat(seat_file)
    return server.http("PUT", f"/api/matches/{link['match_id']}/notifications", json.dumps(body),
                       link["token"])


ALICE_ROSTER = """location: G3 woods-or-building
attacker: side_a
nationality: german
G1: 4-6-7
L1: 8-1 leader on G1
"""


def create_match(work, server, folder="pavlov", title="Pavlov's House", extra=()):
    melee(work, server.env(), "match", "create", "--title", title, "--out", folder, *extra)
    return os.path.join(work, folder)


def enter_units(work, server, folder):
    """Alice enters her roster, Bob his units and confirms: Alice's turn to confirm."""
    with open(os.path.join(work, "alice.txt"), "w") as f:
        f.write(ALICE_ROSTER)
    env = server.env()
    melee(work, env, "submit", "--seat", f"{folder}/side_a.seat", "--setup", "alice.txt")
    melee(work, env, "submit", "--seat", f"{folder}/side_b.seat", "--fact", "nationality: russian",
          "--unit", "R1: 4-4-7", "--unit", "R2: 4-4-7")
    melee(work, env, "submit", "--seat", f"{folder}/side_b.seat", "--confirm")


def to_announcements(work, server, folder):
    """From Alice's turn to confirm to both sides' declarations: five notices, three for Alice
    (confirm, announce, declare) and two for Bob (announce, declare)."""
    env = server.env()
    melee(work, env, "submit", "--seat", f"{folder}/side_a.seat", "--confirm")
    melee(work, env, "submit", "--seat", f"{folder}/side_a.seat", "--announce")
    melee(work, env, "submit", "--seat", f"{folder}/side_b.seat", "--announce")


def make_certificate(work):
    cert, key = os.path.join(work, "relay-cert.pem"), os.path.join(work, "relay-key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert,
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-days", "2"], check=True, capture_output=True)
    return cert, key


class Work(unittest.TestCase):
    """A temporary folder, and the processes to stop at the end."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.work = self.tmp.name
        self.parts = []

    def tearDown(self):
        for part in reversed(self.parts):
            part.stop()
        self.tmp.cleanup()

    def sink(self, **kwargs):
        sink = Sink(os.path.join(self.work, "mails"), **kwargs).start()
        self.parts.append(sink)
        return sink

    def server(self, smtp_port, extra=()):
        server = Server(self.work, smtp_port, extra).start()
        self.parts.append(server)
        return server


# ---- the tests --------------------------------------------------------------------------------

class EmailNotices(Work):
    def test_your_turn_mail_says_what_and_by_when_and_its_match_file_verifies(self):
        sink = self.sink()
        server = self.server(sink.port)
        folder = create_match(self.work, server, extra=["--declaration-deadline", "3600"])
        status, answer = register(server, f"{folder}/side_a.seat", {"email": ALICE})
        self.assertEqual(status, 200, answer)
        self.assertEqual(answer["email"], ALICE)
        enter_units(self.work, server, folder)

        [mail] = sink.wait_for(1)
        link = seat(f"{folder}/side_a.seat")
        self.assertEqual(mail.rcpt, ALICE)
        self.assertEqual(mail.subject, "Melee Pavlov's House: your turn (set-up)")
        self.assertRegex(mail.message["Message-ID"], r"^<[0-9a-f]{32}@melee\.example\.org>$")
        self.assertIn("It is your turn (set-up). The match waits for side_a: confirm the set-up.",
                      mail.text)
        self.assertIn("side_b entered its units: R1 4-4-7 russian, R2 4-4-7 russian", mail.text)
        self.assertIn("side_b confirmed", mail.text)
        self.assertIn(f"http://127.0.0.1:{server.port}/match.html#m={link['match_id']}"
                      f"&as=side_a&t={link['token']}", mail.text)
        seat_name = f"{link['match_id']}-side_a.seat"
        self.assertEqual(mail.act_line(), f"melee submit --seat {seat_name} --confirm")

        # The attached match file verifies with the server's key; the seat file acts.
        mine = os.path.join(self.work, "inbox")
        os.makedirs(mine)
        match_file = mail.save(".melee.json", mine)
        self.assertEqual(os.path.basename(match_file), f"{link['match_id']}-side_a.melee.json")
        melee(self.work, {}, "verify", match_file, "--key", server.key())  # exit 0: it verifies
        seat_file = mail.save(".seat", mine)
        self.assertEqual(seat(seat_file)["token"], link["token"])
        self.assertEqual(seat(seat_file)["server"], server.ws)
        command = mail.act_line().split()
        melee(mine, {}, *command[1:])

        # Now Alice announces first, by the deadline the match set.
        [_, mail] = sink.wait_for(2)
        self.assertRegex(mail.subject, r"^Melee Pavlov's House: your turn \(announcement\), by "
                                       r"\d{4}-\d\d-\d\d \d\d:\d\d UTC$")
        self.assertIn(f"melee submit --seat {seat_name} --announce", mail.text)
        self.assertEqual(server.metric("melee_emails_delivered_total"), 2)
        self.assertEqual(server.metric("melee_emails_pending"), 0)
        self.assertEqual(server.metric("melee_email_attempts_failed_total"), 0)

    def test_malformed_addresses_are_refused_naming_the_problem(self):
        sink = self.sink()
        server = self.server(sink.port)
        folder = create_match(self.work, server)
        refused = [
            ({"email": "alice@example.org\r\nBcc: all@example.org"}, "line break"),
            ({"email": "alice @example.org"}, "space"),
            ({"email": "alice.example.org"}, "no @"),
            ({"email": "alice@@example.org"}, "more than one @"),
            ({"email": "alice@localhost"}, "has no dot"),
            ({"email": "alice@-bad.example.org"}, "hyphen"),
            ({"email": "alice@exa_mple.org"}, "'_'"),
            ({"email": "alice@example.123"}, "ends in a number"),
            ({"email": "alice@[127.0.0.1]"}, "address literal"),
            ({"email": ".alice@example.org"}, "dot"),
            ({"email": "a" * 65 + "@example.org"}, "65 bytes long"),
            ({"email": "a@" + "b" * 60 + "." + "c" * 200 + ".org"}, "at most 254"),
            ({"email": "Alice <alice@example.org>"}, "bare address"),
            ({"email": "alice@bücher.example"}, "non-ASCII"),
            ({"email": ""}, "empty"),
            ({"email": ALICE, "digest_minutes": -5}, "whole number of minutes"),
            ({"email": ALICE, "digest_minutes": 2.5}, "whole number of minutes"),
            ({"email": ALICE, "digest_minutes": 100000}, "a week"),
            ({"emial": ALICE}, "\\\"emial\\\" is not one of them"),
            ({}, "must be a JSON object"),
        ]
        for body, problem in refused:
            status, answer = register(server, f"{folder}/side_a.seat", body)
            self.assertEqual(status, 400, body)
            self.assertIn(problem, json.dumps(answer), body)
        # Only a seat registers.
        match_id = seat(f"{folder}/side_a.seat")["match_id"]
        path = f"/api/matches/{match_id}/notifications"
        body = json.dumps({"email": ALICE})
        self.assertEqual(server.http("PUT", path, body, "nope")[0], 401)
        self.assertEqual(server.http("PUT", path, body,
                                     seat(f"{folder}/spectator.seat")["token"])[0], 401)
        self.assertEqual(server.http("PUT", path, body,
                                     seat(f"{folder}/director.seat")["token"])[0], 403)
        # Change, then remove: nothing more is mailed.
        self.assertEqual(register(server, f"{folder}/side_a.seat", {"email": ALICE})[0], 200)
        self.assertEqual(register(server, f"{folder}/side_a.seat",
                                  {"email": "alice2@example.org"})[0], 200)
        status, answer = server.http("DELETE", path + "?channel=email", None,
                                     seat(f"{folder}/side_a.seat")["token"])
        self.assertEqual((status, answer.get("email")), (200, ""), answer)
        self.assertEqual(server.http("DELETE", path + "?channel=fax", None,
                                     seat(f"{folder}/side_a.seat")["token"])[0], 400)
        enter_units(self.work, server, folder)
        time.sleep(2)
        self.assertEqual(sink.mails(), [])

    def test_a_server_without_a_relay_refuses_mail_registrations(self):
        server = self.server(None)
        folder = create_match(self.work, server)
        status, answer = register(server, f"{folder}/side_a.seat", {"email": ALICE})
        self.assertEqual(status, 400)
        self.assertIn("this server sends no mail: start it with --smtp-url", json.dumps(answer))

    def test_a_digest_combines_the_notices_of_its_window(self):
        sink = self.sink()
        server = self.server(sink.port)
        folder = create_match(self.work, server)
        status, answer = register(server, f"{folder}/side_a.seat",
                                  {"email": ALICE, "digest_minutes": 1})
        self.assertEqual((status, answer.get("digest_minutes")), (200, 1), answer)
        enter_units(self.work, server, folder)
        [first] = sink.wait_for(1)  # the window opens with a mail at once
        self.assertEqual(first.subject, "Melee Pavlov's House: your turn (set-up)")
        sent = time.time()
        to_announcements(self.work, server, folder)  # two more notices for Alice: announce, declare
        time.sleep(5)
        self.assertEqual(len(sink.mails()), 1, "a mail inside the digest's window")
        self.assertEqual(server.metric("melee_emails_pending"), 2)
        mails = sink.wait_for(2, timeout=90)
        self.assertEqual(len(mails), 2)
        self.assertGreaterEqual(time.time() - sent, 55)
        digest = mails[1]
        self.assertEqual(digest.subject, "Melee Pavlov's House: your turn (declaration) "
                                         "(2 notices)")
        self.assertIn("2 notices since your last mail:", digest.text)
        self.assertIn("It is your turn (announcement).", digest.text)
        self.assertIn("It is your turn (declaration).", digest.text)
        self.assertIn("side_b announces", digest.text)
        # The newest match file: it holds every event so far.
        last = json.loads(digest.attachment(".melee.json")[1])["events"][-1]["seq"]
        view = melee(self.work, server.env(), "match", "status", "--seat",
                     f"{folder}/director.seat").stdout
        self.assertIn(f"last event #{last}", view)
        time.sleep(3)
        self.assertEqual(len(sink.mails()), 2)


class EmailRelay(Work):
    def test_starttls_and_auth_against_the_relay(self):
        cert, key = make_certificate(self.work)
        sink = self.sink(tls=(cert, key), user=("melee-relay", "s3cret word"))
        password = os.path.join(self.work, "smtp-password")
        with open(password, "w") as f:
            f.write("s3cret word\n")
        server = self.server(sink.port, ["--smtp-starttls", "--smtp-user", "melee-relay",
                                         "--smtp-password-file", password,
                                         "--smtp-ca-file", cert])
        folder = create_match(self.work, server)
        self.assertEqual(register(server, f"{folder}/side_a.seat", {"email": ALICE})[0], 200)
        enter_units(self.work, server, folder)
        [mail] = sink.wait_for(1)
        self.assertEqual(mail.auth, "melee-relay")
        self.assertEqual(mail.subject, "Melee Pavlov's House: your turn (set-up)")
        self.assertNotIn("s3cret", server.log())

    def test_a_relay_down_for_a_while_gets_every_notice_once_it_is_back(self):
        sink = self.sink()
        port = sink.port
        sink.stop()
        server = self.server(port)
        folder = create_match(self.work, server)
        self.assertEqual(register(server, f"{folder}/side_a.seat", {"email": ALICE})[0], 200)
        self.assertEqual(register(server, f"{folder}/side_b.seat", {"email": BOB})[0], 200)
        enter_units(self.work, server, folder)
        to_announcements(self.work, server, folder)
        time.sleep(3)
        self.assertEqual(server.metric("melee_emails_pending"), 5)
        self.assertGreater(server.metric("melee_email_attempts_failed_total"), 0)
        self.assertGreater(server.metric("melee_emails_oldest_pending_seconds"), 1)
        sink.start()
        mails = sink.wait_for(5, timeout=60)
        subjects = sorted((m.rcpt, m.subject) for m in mails)
        self.assertEqual(subjects, sorted([
            (ALICE, "Melee Pavlov's House: your turn (set-up)"),
            (ALICE, "Melee Pavlov's House: your turn (announcement)"),
            (ALICE, "Melee Pavlov's House: your turn (declaration)"),
            (BOB, "Melee Pavlov's House: your turn (announcement)"),
            (BOB, "Melee Pavlov's House: your turn (declaration)")]))
        self.assertEqual(server.metric("melee_emails_pending"), 0)

    def test_notices_committed_before_a_sigkill_are_mailed_after_the_restart(self):
        sink = self.sink()
        port = sink.port
        sink.stop()
        server = self.server(port)
        folder = create_match(self.work, server)
        self.assertEqual(register(server, f"{folder}/side_a.seat", {"email": ALICE})[0], 200)
        enter_units(self.work, server, folder)  # acknowledged: Alice's notice is durable
        server.stop(signal.SIGKILL)
        self.assertEqual(sink.mails(), [])
        sink.start()
        server.start()
        [mail] = sink.wait_for(1, timeout=30)
        self.assertEqual(mail.subject, "Melee Pavlov's House: your turn (set-up)")
        self.assertIn(f"http://127.0.0.1:{server.port}/match.html#m=", mail.text)


async def record_frames(url, hello, frames, stop):
    async with websockets.connect(url, max_size=None) as ws:
        await ws.send(json.dumps(hello))
        while not stop.is_set():
            try:
                frames.append(await asyncio.wait_for(ws.recv(), 0.2))
            except asyncio.TimeoutError:
                pass


class Recorder:
    """Records every frame a WebSocket client of the match receives, on a thread of its own."""

    def __init__(self, url, hello):
        self.frames, self.stop_event = [], threading.Event()
        self.thread = threading.Thread(
            target=lambda: asyncio.run(record_frames(url, hello, self.frames, self.stop_event)))
        self.thread.start()

    def stop(self):
        self.stop_event.set()
        self.thread.join(timeout=10)


class EmailPrivacy(Work):
    def test_no_address_leaves_the_server_but_in_its_own_mails(self):
        sink = self.sink()
        server = self.server(sink.port)
        folder = create_match(self.work, server)
        a, b = seat(f"{folder}/side_a.seat"), seat(f"{folder}/side_b.seat")
        director, spectator = seat(f"{folder}/director.seat"), seat(f"{folder}/spectator.seat")
        match_id = a["match_id"]
        recorders = [
            Recorder(server.ws, {"command_id": "b", "join_seat": {"match_id": match_id,
                                                                  "seat_token": b["token"]}}),
            Recorder(server.ws, {"command_id": "s", "spectate": {
                "match_id": match_id, "spectator_key": spectator["token"]}}),
            Recorder(server.ws, {"command_id": "d", "spectate": {
                "match_id": match_id, "spectator_key": director["token"]}}),
        ]
        self.assertEqual(register(server, f"{folder}/side_a.seat", {"email": ALICE})[0], 200)
        self.assertEqual(register(server, f"{folder}/side_b.seat", {"email": BOB})[0], 200)
        enter_units(self.work, server, folder)
        to_announcements(self.work, server, folder)
        mails = sink.wait_for(5)
        self.assertEqual(len(mails), 5)
        time.sleep(1)
        for recorder in recorders:
            recorder.stop()
        env = server.env()
        exports = []
        for name in ("side_a", "side_b", "director"):
            out = os.path.join(self.work, f"{name}.melee.json")
            melee(self.work, env, "export", "--seat", f"{folder}/{name}.seat", "--out", out)
            with open(out) as f:
                exports.append((name, f.read()))
        _, inbox = server.http("POST", "/api/inbox", json.dumps({"seats": [
            {"match_id": match_id, "token": t} for t in (a["token"], b["token"],
                                                          director["token"])]}))
        places = [(f"a frame to {who}", frame) for who, recorder in
                  zip(("side_b", "the spectator", "the director"), recorders)
                  for frame in recorder.frames]
        places += [(f"{name}'s match file", text) for name, text in exports]
        places += [("the inbox", json.dumps(inbox)), ("the server's log", server.log()),
                   ("/metrics", server.http("GET", "/metrics")[1])]
        self.assertGreater(len(places), 20)
        self.assertTrue(any("DeclarationSealed" in p or "event" in p for _, p in places))
        for address in (ALICE, BOB, "alice.pbem", "bob+melee"):
            for where, text in places:
                self.assertNotIn(address, text, f"{address} in {where}")
        # Each mail goes to its own seat only, and names no other address.
        for mail in mails:
            other = BOB if mail.rcpt == ALICE else ALICE
            self.assertEqual([a.addr_spec for a in mail.message["To"].addresses], [mail.rcpt])
            self.assertNotIn(other.encode(), mail.raw)
            mine = a if mail.rcpt == ALICE else b
            theirs = b if mail.rcpt == ALICE else a
            self.assertIn(mine["token"].encode(), mail.raw.replace(b"=\r\n", b""))
            self.assertNotIn(theirs["token"], mail.text)
            self.assertNotIn(theirs["token"].encode(), b"".join(
                c if isinstance(c, bytes) else c.encode() for c in mail.attachments.values()))


class EmailGame(Work):
    """Done means (issue 25): two players who are never online together finish a match driven
    only by the mails they receive. Each turn the newest mail of a seat is read, its seat file
    saved, and its one-line command run, with the player's own decision in place of what the
    mail leaves in capitals; the server rolls its real dice."""

    @staticmethod
    def attack(mail):
        """The player's decision where the mail's command leaves capitals: every unit of his
        still able to fight against every enemy unit still there, as the mail's view shows
        them ("  side_a: G1 4-6-7 german, L1 8-1 leader (eliminated)")."""
        me = "side_a" if mail.rcpt == ALICE else "side_b"
        them = "side_b" if me == "side_a" else "side_a"

        def units(side, fighting):
            line = re.search(rf"^  {side}: (.*)$", mail.text, re.M)
            labels = line.group(1).split(", ") if line else []
            gone = ("(eliminated)", "(captured)", "(withdrawn)") + (("broken",) if fighting else ())
            return [label.split()[0] for label in labels if not any(g in label for g in gone)]

        return f"{' '.join(units(me, True))} > {' '.join(units(them, False))}"

    def test_two_players_finish_a_match_driven_only_by_their_mails(self):
        sink = self.sink()
        server = self.server(sink.port)
        folder = create_match(self.work, server)
        self.assertEqual(register(server, f"{folder}/side_a.seat", {"email": ALICE})[0], 200)
        self.assertEqual(register(server, f"{folder}/side_b.seat", {"email": BOB})[0], 200)
        enter_units(self.work, server, folder)
        homes = {ALICE: os.path.join(self.work, "alice"), BOB: os.path.join(self.work, "bob")}
        for home in homes.values():
            os.makedirs(home)
        # A close combat's end is not the match's when a Melee goes on (A11.15): a seat told "the
        # close combat is over" may be mailed its next CCPh. Done when both were told and no mail
        # came for a while.
        read, acted, ended, quiet_since = 0, 0, set(), time.time()
        deadline = time.time() + 240
        while time.time() < deadline:
            mails = sink.mails()
            if len(mails) == read:
                if len(ended) == 2 and time.time() - quiet_since > 3:
                    break
                time.sleep(0.1)
                continue
            quiet_since = time.time()
            mail = mails[read]
            read += 1
            if "the close combat is over" in mail.subject:
                ended.add(mail.rcpt)
                continue
            ended.discard(mail.rcpt)
            # A seat acts on its newest mail only: an older one may be overtaken already.
            if any(m.rcpt == mail.rcpt for m in mails[read:]):
                continue
            home = homes[mail.rcpt]
            mail.save(".seat", home)
            line = mail.act_line().split("   (")[0]
            if not line.startswith(("melee submit", "melee choose")):
                continue  # nothing to do now (melee match status)
            # No unit selected when the dice offer a choice (stay, A11.22); the player's attack,
            # or none when the rules refuse it (exit 1, the rule named).
            command = (line.replace("YOUR-UNITS > TARGETS", self.attack(mail))
                       .replace("--select UNITS", '--select ""'))
            env = dict(os.environ, PATH=os.path.dirname(CLI) + os.pathsep + os.environ["PATH"])
            done = subprocess.run(["/bin/bash", "-c", command], cwd=home, capture_output=True,
                                  text=True, timeout=60, env=env)
            if done.returncode == 1 and "--attack" in command:
                command = line.replace("'YOUR-UNITS > TARGETS'", "none")
                done = subprocess.run(["/bin/bash", "-c", command], cwd=home,
                                      capture_output=True, text=True, timeout=60, env=env)
            self.assertEqual(done.returncode, 0, f"{command}:\n{done.stdout}{done.stderr}\n"
                                                 f"from the mail:\n{mail.text}")
            acted += 1
        self.assertEqual(ended, {ALICE, BOB}, f"after {acted} commands, {read} mails")
        self.assertGreaterEqual(acted, 5)  # confirm, two announcements, two attacks, at least
        view = melee(self.work, server.env(), "match", "status", "--seat",
                     f"{folder}/director.seat").stdout
        self.assertIn(": over,", view)


class EmailGuide(Work):
    """docs/notifications.md's guide for players, its shell blocks run verbatim (variables carry
    from one block to the next, as in one terminal); where the guide says a mail arrives, the
    test waits for that player's next mail and saves its attachments where the player works."""

    def guide(self):
        with open(os.path.join(HERE, "..", "..", "docs", "notifications.md")) as f:
            text = f.read()
        found = re.search(r"<!-- email-guide:start -->(.*)<!-- email-guide:end -->", text, re.S)
        self.assertTrue(found, "docs/notifications.md has no email-guide block")
        return re.findall(r"```sh\n(.*?)```|<!-- email-guide:mail (\w+) -->", found.group(1),
                          re.S)

    def test_the_players_guide_runs_verbatim(self):
        sink = self.sink()
        server = self.server(sink.port)
        env = dict(server.env(), MELEE_URL=f"http://127.0.0.1:{server.port}",
                   PATH=os.path.dirname(CLI) + os.pathsep + os.environ["PATH"])
        state = os.path.join(self.work, ".guide-env")
        read = {"alice@example.org": 0, "bob@example.org": 0}
        steps = self.guide()
        self.assertGreater(len(steps), 5)
        for block, reader in steps:
            if reader:
                address = f"{reader}@example.org"
                mails = sink.wait_for(read[address] + 1, to=address)
                self.assertGreater(len(mails), read[address], f"no mail for {reader}")
                for name in mails[read[address]].attachments:
                    mails[read[address]].save(name[name.rfind("-"):], self.work)
                read[address] += 1
                continue
            script = (f"set -euo pipefail -a\n[ -f {state} ] && . {state}\n{block}\n"
                      f"export -p > {state}\n")
            done = subprocess.run(["/bin/bash", "-c", script], cwd=self.work, env=env,
                                  capture_output=True, text=True, timeout=60)
            self.assertEqual(done.returncode, 0, f"{block}\n{done.stdout}{done.stderr}")
        self.assertEqual(read, {"alice@example.org": 3, "bob@example.org": 2})


if __name__ == "__main__":
    SERVER_BINARY, CLI = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    suite = unittest.defaultTestLoader.loadTestsFromName(sys.argv[3], sys.modules[__name__])
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)
