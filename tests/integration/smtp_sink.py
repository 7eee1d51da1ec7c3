#!/usr/bin/env python3
"""A small SMTP relay for tests, on Debian's python3-aiosmtpd: it takes every message and saves
it, as sent, in a directory; nothing is forwarded.

Usage: smtp_sink.py --dir DIR [--port N] [--tls-cert PEM --tls-key PEM] [--require-starttls]
                    [--user NAME --password WORD]

It listens on 127.0.0.1 (port N, or a free one), prints "smtp-sink listening on 127.0.0.1:PORT"
once it takes connections, and runs until SIGTERM or SIGINT. Each message becomes
DIR/NNNN.eml (written to a temporary name, then renamed: a reader never sees half a mail),
headed by two lines of the sink's own, "X-Sink-Rcpt-To:" (the envelope's recipients) and
"X-Sink-Auth:" (the user that authenticated, or "none").

--tls-cert/--tls-key offer STARTTLS; --require-starttls refuses every command but EHLO, NOOP,
QUIT and STARTTLS before it. --user/--password require AUTH (PLAIN or LOGIN) before MAIL, and
refuse any other credentials.
"""
import argparse
import itertools
import os
import signal
import socket
import ssl
import sys
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


class SaveToDirectory:
    """The aiosmtpd handler: saves each message in `directory`, numbered in arrival order."""

    def __init__(self, directory: str):
        self.directory = directory
        self.numbers = itertools.count(1)
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            number = next(self.numbers)
        user = session.auth_data.login.decode() if isinstance(session.auth_data,
                                                               LoginPassword) else "none"
        head = (f"X-Sink-Rcpt-To: {', '.join(envelope.rcpt_tos)}\r\n"
                f"X-Sink-Auth: {user}\r\n").encode()
        path = os.path.join(self.directory, f"{number:04d}.eml")
        with open(path + ".tmp", "wb") as out:
            out.write(head + envelope.original_content)
        os.rename(path + ".tmp", path)
        return "250 Message accepted for delivery"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    parser.add_argument("--require-starttls", action="store_true")
    parser.add_argument("--user")
    parser.add_argument("--password")
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)

    options = {}
    if args.tls_cert:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.tls_cert, args.tls_key)
        options["tls_context"] = context
        options["require_starttls"] = args.require_starttls
    if args.user:
        def authenticate(server, session, envelope, mechanism, auth_data):
            ok = (isinstance(auth_data, LoginPassword) and
                  auth_data.login.decode() == args.user and
                  auth_data.password.decode() == args.password)
            return AuthResult(success=ok, handled=False, auth_data=auth_data)
        options["authenticator"] = authenticate
        options["auth_required"] = True
        # AUTH in clear only when no TLS is offered (a test of AUTH alone).
        options["auth_require_tls"] = bool(args.tls_cert)

    port = args.port or free_port()
    controller = Controller(SaveToDirectory(args.dir), hostname="127.0.0.1", port=port,
                            **options)
    controller.start()
    print(f"smtp-sink listening on 127.0.0.1:{port}", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    controller.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
