#!/usr/bin/env python3
"""match_bench's open loop and its CSV, as a test: a short run must pass match_bench's own checks
(no seat sees the opponent's unrevealed declaration, both seats agree after every round, no
command refused, nothing stalls: exit status 0) and write a CSV with its header and one row per
run and per idle-connection measurement, with every column documented in docs/benchmarks.md.
No timing is asserted. A second short run does the same with --fresh-server (a server per run).

Usage: match_bench_open_loop_test.py MATCH_BENCH SOURCE_DIR
"""

import csv
import os
import subprocess
import sys
import tempfile

MATCHES = [2, 3]
ROUNDS = 3


def fail(why, output=""):
    print(output)
    print("FAIL: " + why)
    sys.exit(1)


def run(argv):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=240)


def main():
    bench, source = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "bench.csv")
        # A closed-loop run per N (the loads are percentages of it), then the open loop at 50 % of
        # it and at a fixed, low rate.
        done = run([bench, "--matches", ",".join(map(str, MATCHES)), "--rounds", str(ROUNDS),
                    "--open-loop-load", "50", "--open-loop-rate", "20", "--idle-connections", "5",
                    "--csv", path])
        if done.returncode != 0:
            fail("match_bench exited with %d" % done.returncode, done.stdout)
        print(done.stdout)
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        header, body = rows[0], rows[1:]
        if header[:5] != ["mode", "frames", "server_threads", "seed", "matches"]:
            fail("unexpected CSV header: %s" % header)
        records = [dict(zip(header, row)) for row in body]
        if any(len(row) != len(header) for row in body):
            fail("a CSV row does not have %d fields" % len(header))
        expected = []
        for n in MATCHES:
            expected += [("closed", str(n), ""), ("open", str(n), "50.0"), ("open", str(n), "")]
        expected += [("idle-after-runs", "", ""), ("idle-fresh", "", "")]
        got = [(r["mode"], r["matches"], r["load_pct"]) for r in records]
        if got != expected:
            fail("CSV rows (mode, matches, load_pct) %s, expected %s" % (got, expected))
        for r in records:
            if r["mode"].startswith("idle"):
                if r["idle_answered"] != "5":
                    fail("idle row: %s" % r)
                continue
            want_rounds = int(r["matches"]) * ROUNDS
            if int(r["rounds"]) != want_rounds:
                fail("%s N=%s: %s rounds, expected %d" % (r["mode"], r["matches"], r["rounds"],
                                                          want_rounds))
            for column in ("leaks", "disagreements", "violations", "errors", "stalled"):
                if r[column] != "0":
                    fail("%s N=%s: %s = %s" % (r["mode"], r["matches"], column, r[column]))
            if r["mode"] == "open" and not r["offered_rounds_per_s"]:
                fail("open-loop row without its offered rate: %s" % r)
            if r["mode"] == "open" and r["load_pct"] == "" and r["offered_rounds_per_s"] != "20.00":
                fail("the fixed-rate row offered %s rounds/s" % r["offered_rounds_per_s"])
            # Measured from when it was due is never less than from when it happened.
            if float(r["round_sched_p99_ms"]) < 0 or float(r["ack_due_p99_ms"]) < float(
                    r["ack_p99_ms"]) - 1e-9:
                fail("latency from the due time below the one from the send: %s" % r)

        with open(os.path.join(source, "docs", "benchmarks.md")) as f:
            doc = f.read()
        missing = [c for c in header if "`%s`" % c not in doc]
        if missing:
            fail("CSV columns not described in docs/benchmarks.md: %s" % missing)

        # --fresh-server: each run on a server of its own, which starts with no match in it.
        fresh_csv = os.path.join(scratch, "fresh.csv")
        fresh = run([bench, "--matches", "2", "--rounds", "2", "--open-loop-load", "50",
                     "--idle-connections", "0", "--fresh-server", "--csv", fresh_csv])
        if fresh.returncode != 0:
            fail("match_bench --fresh-server exited with %d" % fresh.returncode, fresh.stdout)
        if "a fresh server for each run" not in fresh.stdout.splitlines()[0]:
            fail("the report does not say each run had a fresh server", fresh.stdout)
        with open(fresh_csv, newline="") as f:
            fresh_rows = list(csv.DictReader(f))
        if [(r["mode"], r["load_pct"]) for r in fresh_rows] != [("closed", ""), ("open", "50.0")]:
            fail("--fresh-server rows: %s" % fresh_rows)
        for r in fresh_rows:
            if r["leaks"] != "0" or r["errors"] != "0" or int(r["rounds"]) != 4:
                fail("--fresh-server run: %s" % r)

        # Bad options are refused with a message, before any server starts.
        for argv, what in (
                (["--open-loop-load", "0"], "a load of 0 %"),
                (["--open-loop-rate", "-5"], "a negative rate"),
                (["--csv", os.path.join(scratch, "no", "such", "dir.csv")], "an unwritable CSV")):
            bad = run([bench, "--matches", "1", "--rounds", "1", "--idle-connections", "0"] + argv)
            if bad.returncode == 0 or not bad.stdout.strip():
                fail("%s was accepted (exit %d)" % (what, bad.returncode), bad.stdout)
    print("ok")


if __name__ == "__main__":
    main()
