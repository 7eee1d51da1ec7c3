#!/usr/bin/env python3
"""Draws the benchmark figures of docs/benchmarks.md from the benchmarks' CSV files.

    /usr/bin/python3 bench/plot.py --compare bench/results/compare.csv \\
        --open-loop bench/results/open-loop.csv [--out-dir docs] [--png-dir /tmp]

--compare (bench/compare_peer.py's compare.csv, one or more) gives
  docs/benchmarks-throughput.svg: rounds/s and server CPU per round against N, Melee and
  boardgame.io, every repetition a point, the line through the medians;
  docs/benchmarks-latency.svg: round latency p50 and p99 against N, the same way.
--open-loop (match_bench --csv files with open-loop rows, one or more) gives
  docs/benchmarks-open-loop.svg: command→answer and round latency against the offered load (in %
  of the closed-loop rounds/s measured just before at the same N), one panel per N.
--soak (match_bench --soak-csv, one file) gives
  docs/benchmarks-soak.svg: the server over a soak, against time: RSS and open files; melee.db
  and its WAL; the database's bytes per round stored (flat: no bloat beyond the log itself).
Needs matplotlib (Debian's python3-matplotlib; run with /usr/bin/python3).
"""

import argparse
import csv
import os
import statistics
import sys
from collections import defaultdict

try:
    import matplotlib
    matplotlib.use("Agg")
    # Text as text (small, searchable SVGs) and fixed element ids: the same data, the same file.
    matplotlib.rcParams["svg.fonttype"] = "none"
    matplotlib.rcParams["svg.hashsalt"] = "melee"
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
except ImportError:
    sys.exit("plot.py: matplotlib is missing: apt-get install python3-matplotlib (scripts/setup), "
             "and run it with /usr/bin/python3")

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SYSTEMS = (("melee", "Melee (SQLite, synchronous=FULL)", "tab:blue", "o"),
           ("bgio", "boardgame.io 0.50.2 (in memory)", "tab:orange", "s"))
TARGET_MS = 5.0  # issue 26: p99 command→answer at 50 % of the maximum throughput, N = 1000


def read(paths):
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            rows += [dict(r, file=path) for r in csv.DictReader(f)]
    return rows


def plain(value, _):
    return "{:,.0f}".format(value) if value >= 1 else "{:g}".format(value)


def log_axis(axis, low, high):
    """A log axis from `low` to `high` labelled in plain numbers: 1, 2, 5, 10, ..., or 1, 2, 3,
    5, 7, 10, ... when it spans little more than a decade."""
    subs = (1.0, 2.0, 3.0, 5.0, 7.0) if high / low < 20 else (1.0, 2.0, 5.0)
    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(plain))
    axis.set_minor_formatter(NullFormatter())


def save(fig, name, out_dir, png_dir):
    path = os.path.join(out_dir, name + ".svg")
    # No date in the SVG, so that the same data gives the same file.
    fig.savefig(path, metadata={"Date": None})
    print(path)
    if png_dir:
        fig.savefig(os.path.join(png_dir, name + ".png"), dpi=110)
    plt.close(fig)


def by_system(rows, key):
    """{system: {N: [values over the repetitions]}}"""
    data = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r.get(key, "") != "":
            data[r["system"]][int(r["matches"])].append(float(r[key]))
    return data


def against_n(ax, rows, series, title, ylabel):
    """Plots each (column, line style, label suffix) of `series` against N for both systems."""
    for key, style, suffix in series:
        data = by_system(rows, key)
        for system, label, colour, marker in SYSTEMS:
            if system not in data:
                continue
            ns = sorted(data[system])
            for n in ns:
                ax.scatter([n] * len(data[system][n]), data[system][n], color=colour, alpha=0.35,
                           marker=marker, s=18)
            ax.plot(ns, [statistics.median(data[system][n]) for n in ns], style, color=colour,
                    marker=marker, label=label + suffix)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(plain))
    log_axis(ax.yaxis, *ax.get_ylim())
    ax.set_xlabel("matches N playing at once (log scale)")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8)


def plot_compare(rows, out_dir, png_dir):
    rows = [r for r in rows if r["checks_ok"] == "1"]  # a failed run's figures mean nothing
    reps = len({(r["file"], r["rep"]) for r in rows})
    rounds = sorted({r["rounds_per_match"] for r in rows})
    note = "closed loop, R = %s rounds per match, up to %d runs per point (alternating), 2 shared " \
        "cores" % ("/".join(rounds), reps)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.6))
    against_n(left, rows, [("rounds_per_s", "-", "")], "Throughput",
              "rounds per second (log scale)")
    # /proc counts CPU in 10 ms ticks: runs with less than 0.2 s of server CPU are left out.
    against_n(right, [r for r in rows if float(r["server_cpu_s"]) >= 0.2],
              [("server_cpu_us_per_round", "-", "")],
              "Server CPU per round (runs with ≥ 0.2 s of server CPU)",
              "server CPU µs per round (log scale)")
    fig.suptitle("The close-combat round: Melee against boardgame.io\n" + note, fontsize=10)
    fig.tight_layout()
    save(fig, "benchmarks-throughput", out_dir, png_dir)

    fig, ax = plt.subplots(figsize=(7.5, 5))
    against_n(ax, rows, [("round_p50_ms", "-", ", p50"), ("round_p99_ms", "--", ", p99")],
              "Round latency (second seal sent → both players hold the result)\n" + note,
              "round latency, ms (log scale)")
    fig.tight_layout()
    save(fig, "benchmarks-latency", out_dir, png_dir)


def plot_open_loop(rows, out_dir, png_dir):
    # The load of a run: its own load_pct, else its offered rate over the closed-loop run of the
    # same N before it in the same file.
    panels = defaultdict(list)
    closed = {}
    for r in rows:
        n = int(r["matches"]) if r["matches"] else None
        if r["mode"] == "closed":
            closed[n] = float(r["rounds_per_s"])
        elif r["mode"] == "open":
            if r["load_pct"]:
                load = float(r["load_pct"])
            elif closed.get(n):
                load = 100 * float(r["offered_rounds_per_s"]) / closed[n]
            else:
                continue
            panels[n].append((load, r, closed.get(n)))
    if not panels:
        sys.exit("plot.py: no open-loop rows in --open-loop")
    ns = sorted(panels)
    fig, axes = plt.subplots(1, len(ns), figsize=(6.5 * len(ns), 5.4), squeeze=False)
    series = (("ack_p50_ms", "command→answer p50, from send", "tab:blue", "-", "o"),
              ("ack_p99_ms", "command→answer p99, from send", "tab:blue", "--", "o"),
              ("ack_due_p99_ms", "command→answer p99, from due time", "tab:purple", ":", "^"),
              ("round_sched_p50_ms", "round p50, from scheduled arrival", "tab:green", "-", "s"),
              ("round_sched_p99_ms", "round p99, from scheduled arrival", "tab:green", "--", "s"))
    for ax, n in zip(axes[0], ns):
        points = sorted(panels[n], key=lambda p: p[0])
        loads = sorted({p[0] for p in points})
        for key, label, colour, style, marker in series:
            # Several runs at one load: every run a faint point, the line through their median.
            if len(loads) < len(points):
                ax.scatter([p[0] for p in points], [float(p[1][key]) for p in points],
                           color=colour, marker=marker, alpha=0.35, s=18)
            medians = [statistics.median(float(p[1][key]) for p in points if p[0] == load)
                       for load in loads]
            ax.plot(loads, medians, style, color=colour, marker=marker, label=label)
        ax.axhline(TARGET_MS, color="tab:red", linewidth=1, alpha=0.7)
        ax.annotate("target: command→answer p99 ≤ 5 ms at 50 %", (1.0, TARGET_MS),
                    xycoords=("axes fraction", "data"), xytext=(-4, 3),
                    textcoords="offset points", ha="right", va="bottom", color="tab:red",
                    fontsize=8)
        ax.set_yscale("log")
        log_axis(ax.yaxis, *ax.get_ylim())
        ax.set_xlabel("offered load, % of the closed-loop maximum")
        ax.set_ylabel("latency, ms (log scale)")
        maximum = points[0][2]
        ax.set_title("N = %d matches%s" % (n, ", max %.0f rounds/s (closed loop)" % maximum
                                           if maximum else ""), fontsize=10)
        ax.grid(True, which="major", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3 if len(ns) > 1 else 2, fontsize=9,
               frameon=False)
    fig.suptitle("Melee, open loop: Poisson arrivals of rounds (durable store, 2 shared cores)",
                 fontsize=11)
    fig.tight_layout(rect=(0, 0.1 if len(ns) > 1 else 0.16, 1, 1))
    save(fig, "benchmarks-open-loop", out_dir, png_dir)


def plot_soak(rows, out_dir, png_dir):
    t = [float(r["elapsed_s"]) / 60 for r in rows]
    rss = [int(r["rss_kib"]) / 1024 for r in rows]
    fds = [int(r["open_files"]) for r in rows]
    db = [int(r["db_bytes"]) / 2**20 for r in rows]
    wal = [int(r["wal_bytes"]) / 2**20 for r in rows]
    rounds = [int(r["rounds"]) for r in rows]
    per_round = [(d * 2**20) / n if n else None for d, n in zip(db, rounds)]
    last = rows[-1]
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8), constrained_layout=True)
    ax = axes[0]
    ax.plot(t, rss, color="tab:blue", label="RSS (MiB)")
    ax.set_ylim(0, max(rss) * 1.15)
    ax.set_ylabel("server RSS, MiB")
    ax.set_xlabel("minutes")
    ax2 = ax.twinx()
    ax2.plot(t, fds, color="tab:green", label="open files")
    ax2.set_ylim(0, max(fds) * 2)
    ax2.set_ylabel("open files", color="tab:green")
    ax.set_title("server process")
    ax = axes[1]
    ax.plot(t, db, color="tab:purple")
    ax.set_xlabel("minutes")
    ax.set_ylabel("melee.db, MiB", color="tab:purple")
    ax2 = ax.twinx()
    ax2.plot(t, wal, color="tab:orange")
    ax2.set_ylim(0, max(wal) * 3)
    ax2.set_ylabel("melee.db-wal, MiB (bounded)", color="tab:orange")
    ax.set_title("database files")
    ax = axes[2]
    ax.plot([x for x, y in zip(t, per_round) if y], [y for y in per_round if y],
            color="tab:purple")
    ax.set_ylim(0, max(y for y in per_round if y) * 1.3)
    ax.set_xlabel("minutes")
    ax.set_ylabel("melee.db bytes per round stored")
    ax.set_title("database growth per round")
    fig.suptitle("Soak: %s matches created and finished, %s rounds, %s reconnects, %s errors, "
                 "%s leaks" % ("{:,}".format(int(last["finished"])),
                               "{:,}".format(int(last["rounds"])),
                               "{:,}".format(int(last["reconnects"])), last["errors"],
                               last["leaks"]), fontsize=10)
    save(fig, "benchmarks-soak", out_dir, png_dir)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compare", nargs="+", default=[],
                        help="compare.csv files from bench/compare_peer.py")
    parser.add_argument("--open-loop", nargs="+", default=[],
                        help="match_bench --csv files with open-loop rows")
    parser.add_argument("--soak", help="a match_bench --soak-csv file")
    parser.add_argument("--out-dir", default=os.path.join(REPO, "docs"),
                        help="where the SVGs go (default: REPO/docs)")
    parser.add_argument("--png-dir", help="also write PNGs here (to look at them)")
    args = parser.parse_args()
    if not args.compare and not args.open_loop and not args.soak:
        parser.error("give --compare, --open-loop and/or --soak")
    for path in args.compare + args.open_loop + ([args.soak] if args.soak else []):
        if not os.path.isfile(path):
            parser.error("no such file: %s" % path)
    os.makedirs(args.out_dir, exist_ok=True)
    if args.png_dir:
        os.makedirs(args.png_dir, exist_ok=True)
    if args.compare:
        plot_compare(read(args.compare), args.out_dir, args.png_dir)
    if args.open_loop:
        plot_open_loop(read(args.open_loop), args.out_dir, args.png_dir)
    if args.soak:
        plot_soak(read([args.soak]), args.out_dir, args.png_dir)


if __name__ == "__main__":
    main()
