#!/usr/bin/env python3
"""Melee and its peer, boardgame.io, on the same round, side by side in one window.

    /usr/bin/python3 bench/compare_peer.py                      # N = 100, 1000; R = 20; twice
    /usr/bin/python3 bench/compare_peer.py --matches 1,10,100,1000 --repetitions 2 --out DIR

Copies the peer harness (../shared/peers/bgio beside the repository; never written to) into
BUILD/peer-bgio, runs `npm ci` there (package-lock.json pins every version), then alternates,
--repetitions times: boardgame.io's in-memory server at every N (its run.sh with
MATRIX="memory:N:1 ...", which warms each server up first and ends with its dice probe), then
match_bench (closed loop, durable store, --idle-connections 0, and like the peer a fresh server
per N: --fresh-server) at the same N and R. Writes every
run's figures to OUT/compare.csv (columns: docs/benchmarks.md), keeps each side's own output and
results beside it, and prints a table with the ratios Melee / boardgame.io: rounds/s (higher is
better for Melee), server CPU per round and per command (a boardgame.io move; lower is better).
A default run takes about 5 minutes. Exit status 1 when a run failed or its checks did not hold.
"""

import argparse
import csv
import datetime
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# /proc counts CPU in 10 ms ticks: below this much server CPU a per-round figure is noise (the
# peer's report.js draws the same line).
MIN_CPU_S = 0.2

COLUMNS = [
    "system", "rep", "matches", "rounds_per_match", "rounds_per_s", "commands_per_s",
    "commands_per_round", "round_p50_ms", "round_p95_ms", "round_p99_ms", "server_cpu_s",
    "server_cpu_us_per_round", "server_cpu_us_per_command", "server_rss_mib", "client_cpu_s",
    "checks_ok", "started", "loadavg_1m", "source", "melee_withdrawal",
    "server_system_cpu_us_per_command",
]


def positive_list(text):
    try:
        values = [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError("expected comma-separated positive integers: %r" % text)
    if not values or any(v <= 0 for v in values):
        raise argparse.ArgumentTypeError("expected comma-separated positive integers: %r" % text)
    return values


def positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("expected a positive integer: %r" % text)
    if value <= 0:
        raise argparse.ArgumentTypeError("expected a positive integer: %r" % text)
    return value


def log(message):
    print(message, flush=True)


def run_logged(argv, cwd, path, env=None):
    """Runs argv with its output into `path` (and returns its exit status)."""
    with open(path, "w") as out:
        return subprocess.run(argv, cwd=cwd, env=env, stdout=out,
                              stderr=subprocess.STDOUT).returncode


def prepare_peer(source, scratch, npm_ci):
    """Copies the peer harness into `scratch` (without its installed or generated folders) and
    installs its pinned dependencies there."""
    ignore = shutil.ignore_patterns("node_modules", "results", ".data")
    os.makedirs(scratch, exist_ok=True)
    shutil.copytree(source, scratch, ignore=ignore, dirs_exist_ok=True)
    if npm_ci:
        log("== npm ci in %s" % scratch)
        status = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                                cwd=scratch).returncode
        if status != 0:
            sys.exit("compare_peer: npm ci failed in %s (exit %d)" % (scratch, status))
    elif not os.path.isfile(os.path.join(scratch, "node_modules", "boardgame.io", "package.json")):
        sys.exit("compare_peer: --no-npm-ci, but %s has no node_modules" % scratch)


def run_peer(scratch, matches, rounds, out_dir, rep):
    """One run.sh over every N; returns a row per N (or per N that produced a result)."""
    env = dict(os.environ, ROUNDS=str(rounds), MATRIX=" ".join("memory:%d:1" % n for n in matches))
    text = os.path.join(out_dir, "bgio-rep%d.txt" % rep)
    started = datetime.datetime.now().isoformat(timespec="seconds")
    load = os.getloadavg()[0]
    status = run_logged(["bash", "run.sh"], scratch, text, env)
    with open(text) as f:
        output = f.read()
    found = re.search(r"results in (results/\S+)", output)
    if status != 0 or not found:
        log("   boardgame.io run.sh failed (exit %d), see %s" % (status, text))
        return [], False
    results = os.path.join(scratch, found.group(1))
    rows, ok = [], True
    for n in matches:
        path = os.path.join(results, "memory-n%d-r1.json" % n)
        if not os.path.isfile(path):
            log("   boardgame.io N=%d: no result (%s)" % (n, path))
            ok = False
            continue
        with open(path) as f:
            r = json.load(f)
        checks = r["checks"]
        good = (checks["sealedLeaks"] == 0 and checks["logArgLeaks"] == 0
                and checks["seatMismatches"] == 0 and r["failedMatches"] == 0
                and not r["timedOut"] and r["roundsDone"] == r["roundsPlanned"])
        ok = ok and good
        server = r["server"]
        rows.append({
            "system": "bgio", "rep": rep, "matches": n, "rounds_per_match": r["rounds"],
            "rounds_per_s": r["roundsPerS"], "commands_per_s": r["movesPerS"],
            "commands_per_round": 2, "round_p50_ms": r["latencyMs"]["p50"],
            "round_p95_ms": r["latencyMs"]["p95"], "round_p99_ms": r["latencyMs"]["p99"],
            "server_cpu_s": server["cpuPlayS"],
            "server_cpu_us_per_round": server["cpuPlayS"] * 1e6 / r["roundsDone"],
            "server_cpu_us_per_command": server["cpuUsPerMove"],
            "server_rss_mib": server["rssMiB"], "client_cpu_s": r["loadgenCpuPlayS"],
            "checks_ok": int(good), "started": started, "loadavg_1m": load,
            "source": os.path.relpath(path, out_dir),
        })
    return rows, ok


def run_melee(bench, matches, rounds, out_dir, rep, melee_withdrawal):
    """One match_bench over every N (closed loop); returns a row per N."""
    table = os.path.join(out_dir, "melee-rep%d.csv" % rep)
    text = os.path.join(out_dir, "melee-rep%d.txt" % rep)
    started = datetime.datetime.now().isoformat(timespec="seconds")
    load = os.getloadavg()[0]
    status = run_logged([bench, "--matches", ",".join(map(str, matches)), "--rounds", str(rounds),
                         "--idle-connections", "0", "--fresh-server", "--csv", table,
                         "--melee-withdrawal", melee_withdrawal], REPO,
                        text)
    if not os.path.isfile(table):
        log("   match_bench failed (exit %d), see %s" % (status, text))
        return [], False
    rows = []
    with open(table, newline="") as f:
        for r in csv.DictReader(f):
            if r["mode"] != "closed":
                continue
            good = r["violations"] == "0" and r["errors"] == "0" and r["stalled"] == "0" and int(
                r["rounds"]) == int(r["matches"]) * rounds
            rows.append({
                "system": "melee", "rep": rep, "matches": int(r["matches"]),
                "rounds_per_match": rounds, "rounds_per_s": float(r["rounds_per_s"]),
                "commands_per_s": float(r["commands_per_s"]),
                "commands_per_round": float(r["commands_per_round"]),
                "round_p50_ms": float(r["round_p50_ms"]), "round_p95_ms": float(r["round_p95_ms"]),
                "round_p99_ms": float(r["round_p99_ms"]), "server_cpu_s": float(r["server_cpu_s"]),
                "server_cpu_us_per_round": float(r["server_cpu_us_per_round"]),
                "server_cpu_us_per_command": float(r["server_cpu_us_per_command"]),
                "server_rss_mib": int(r["rss_after_kib"]) / 1024,
                "client_cpu_s": float(r["client_cpu_s"]), "checks_ok": int(good),
                "started": started, "loadavg_1m": load, "source": os.path.basename(table),
                "melee_withdrawal": melee_withdrawal,
                "server_system_cpu_us_per_command": float(r["server_system_cpu_us_per_command"]),
            })
    ok = status == 0 and len(rows) == len(matches) and all(row["checks_ok"] for row in rows)
    if status != 0:
        log("   match_bench exited with %d, see %s" % (status, text))
    return rows, ok


def fmt(value, digits=0):
    return "-" if value is None else "{:,.{}f}".format(value, digits)


def print_table(rows, matches, repetitions):
    """A Markdown table: per N and repetition, both sides and the ratio Melee / boardgame.io."""
    by = {(r["system"], r["matches"], r["rep"]): r for r in rows}
    log("")
    log("| N | rep | Melee rounds/s | bgio rounds/s | ratio | Melee CPU µs/round | bgio CPU "
        "µs/round | ratio | Melee CPU µs/command | bgio CPU µs/move | ratio |")
    log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    ratios = {}
    for n in matches:
        for rep in range(1, repetitions + 1):
            m, b = by.get(("melee", n, rep)), by.get(("bgio", n, rep))
            cells = [str(n), str(rep)]
            for key, digits in (("rounds_per_s", 0), ("server_cpu_us_per_round", 0),
                                ("server_cpu_us_per_command", 0)):
                mv = m[key] if m else None
                bv = b[key] if b else None
                if key != "rounds_per_s":  # too little CPU to divide
                    mv = mv if m and m["server_cpu_s"] >= MIN_CPU_S else None
                    bv = bv if b and b["server_cpu_s"] >= MIN_CPU_S else None
                ratio = mv / bv if mv is not None and bv else None
                failed = (m and not int(m["checks_ok"])) or (b and not int(b["checks_ok"]))
                if ratio is not None and not failed:
                    ratios.setdefault((n, key), []).append(ratio)
                cells += [fmt(mv, digits) + (" †" if m and not int(m["checks_ok"]) else ""),
                          fmt(bv, digits) + (" †" if b and not int(b["checks_ok"]) else ""),
                          fmt(ratio, 2) + ("×" if ratio else "")]
            log("| " + " | ".join(cells) + " |")
    log("(CPU per round or command: '-' where that run's server used under %.1f s of CPU, too "
        "few 10 ms ticks to divide. †: the run failed or its checks did not hold; its ratios are "
        "left out of the medians below.)" % MIN_CPU_S)
    log("")
    for n in matches:
        parts = []
        for key, what in (("rounds_per_s", "rounds/s"), ("server_cpu_us_per_round", "CPU/round"),
                          ("server_cpu_us_per_command", "CPU/command")):
            values = ratios.get((n, key), [])
            if values:
                parts.append("%s %.2f× (%.2f–%.2f)" % (what, statistics.median(values),
                                                       min(values), max(values)))
        log("N = %d, Melee / boardgame.io, median (range) over the repetitions: %s"
            % (n, "; ".join(parts) if parts else "no pair of runs"))
    log("")
    # What 10x the peer asks of the load generator alone: its CPU a round (client_cpu_s over the
    # rounds played) times ten times the peer's rounds/s, in cores, against the machine's.
    for n in matches:
        cores = []
        for rep in range(1, repetitions + 1):
            m, b = by.get(("melee", n, rep)), by.get(("bgio", n, rep))
            if not m or not b or m["client_cpu_s"] < MIN_CPU_S:
                continue
            per_round_s = m["client_cpu_s"] / (m["matches"] * m["rounds_per_match"])
            cores.append(per_round_s * 10 * b["rounds_per_s"])
        if cores:
            span = ("%.1f" % cores[0] if len(cores) == 1
                    else "%.1f–%.1f" % (min(cores), max(cores)))
            log("N = %d: at 10× boardgame.io's rounds/s match_bench alone would need %s cores "
                "(its own CPU a round); this machine has %d" % (n, span, os.cpu_count()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=positive_list, default=[100, 1000],
                        help="match counts N, comma-separated (default 100,1000)")
    parser.add_argument("--rounds", type=positive_int, default=20,
                        help="rounds per match R (default 20)")
    parser.add_argument("--repetitions", type=positive_int, default=2,
                        help="how many times to alternate boardgame.io and Melee (default 2)")
    parser.add_argument("--build-dir", default=os.path.join(REPO, "build"),
                        help="the build with bench/match_bench (default: REPO/build); the peer "
                             "is copied to BUILD/peer-bgio")
    parser.add_argument("--out", help="output folder (default: BUILD/compare-peer/<date-time>)")
    parser.add_argument("--peer", default=os.path.join(REPO, "..", "shared", "peers", "bgio"),
                        help="the peer harness to copy (default: REPO/../shared/peers/bgio)")
    parser.add_argument("--melee-withdrawal", choices=("none", "allowed"), default="none",
                        help="Melee's matches: the SSR 'no voluntary Withdrawal from Melee' (none: "
                             "nothing to announce in the 3-vs-3, as in the peer's game, which has "
                             "no Withdrawal) or allowed (both sides announce each CCPh)")
    parser.add_argument("--no-npm-ci", dest="npm_ci", action="store_false",
                        help="reuse the copy's node_modules from an earlier run")
    args = parser.parse_args()

    peer = os.path.realpath(args.peer)
    if not os.path.isfile(os.path.join(peer, "run.sh")):
        sys.exit("compare_peer: no peer harness (run.sh) in %s" % peer)
    build = os.path.realpath(args.build_dir)
    bench = os.path.join(build, "bench", "match_bench")
    if not os.access(bench, os.X_OK):
        sys.exit("compare_peer: no %s; build it first (cmake --build %s --target match_bench "
                 "melee-server)" % (bench, args.build_dir))
    for tool in ("node", "npm", "bash"):
        if shutil.which(tool) is None:
            sys.exit("compare_peer: %s is not installed" % tool)
    out_dir = os.path.realpath(args.out or os.path.join(
        build, "compare-peer", datetime.datetime.now().strftime("%Y%m%d-%H%M%S")))
    os.makedirs(out_dir, exist_ok=True)
    scratch = os.path.join(build, "peer-bgio")
    if os.path.commonpath([scratch, peer]) == peer:
        sys.exit("compare_peer: the scratch copy %s would be inside the peer %s" % (scratch, peer))

    t0 = time.time()
    prepare_peer(peer, scratch, args.npm_ci)
    log("== N = %s, R = %d, %d repetitions, alternating boardgame.io (memory) and Melee (durable "
        "store); %d cores; output in %s" % (",".join(map(str, args.matches)), args.rounds,
                                            args.repetitions, os.cpu_count(), out_dir))
    rows, ok = [], True
    for rep in range(1, args.repetitions + 1):
        for system, runner in (("boardgame.io", lambda: run_peer(scratch, args.matches,
                                                                 args.rounds, out_dir, rep)),
                               ("Melee", lambda: run_melee(bench, args.matches, args.rounds,
                                                           out_dir, rep,
                                                           args.melee_withdrawal))):
            log("-- rep %d: %s (load average %.2f) ..." % (rep, system, os.getloadavg()[0]))
            new, good = runner()
            ok = ok and good
            rows += new
            for r in new:
                kernel = r.get("server_system_cpu_us_per_command")
                if r["server_cpu_s"] < MIN_CPU_S:
                    kernel = None  # too few ticks to divide (MIN_CPU_S)
                log("   N=%-5d %8.0f rounds/s, round p50 %.1f ms p99 %.1f ms, server CPU %.0f "
                    "µs/round%s%s" % (r["matches"], r["rounds_per_s"], r["round_p50_ms"],
                                      r["round_p99_ms"], r["server_cpu_us_per_round"],
                                      "" if kernel is None else
                                      " (%.0f µs a command in the kernel)" % kernel,
                                      "" if r["checks_ok"] else "  CHECKS FAILED"))

    path = os.path.join(out_dir, "compare.csv")
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        for r in rows:
            writer.writerow({k: (round(v, 3) if isinstance(v, float) else v) for k, v in r.items()})
    print_table(rows, args.matches, args.repetitions)
    log("\n%s (%d s in all)" % (path, time.time() - t0))
    if not ok:
        log("compare_peer: some runs failed or their checks did not hold (see above)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
