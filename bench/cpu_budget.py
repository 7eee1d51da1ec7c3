#!/usr/bin/env python3
"""Where the server's CPU goes, a command at a time: the round under perf, by component.

    /usr/bin/python3 bench/cpu_budget.py                          # N = 100, R = 60
    /usr/bin/python3 bench/cpu_budget.py --matches 1000 --rounds 10 --out DIR

Runs match_bench (closed loop, a fresh server, no idle connections) with melee-server started
under `perf record --call-graph dwarf` (Debian's linux-perf; run as root, or with
kernel.perf_event_paranoid <= 1), then gives each sample to the innermost frame of its stack that
names a component (COMPONENTS below: the store's threads by name, then the rules, rendering,
signing, the transport, ...), and prints each component's share of the server's samples and its
CPU in microseconds a command (samples / frequency / commands). The matches' creation, before
the timed rounds, is a line of its own. Writes OUT/budget.csv (component, samples, share,
us_per_command, top leaf functions) and keeps OUT/perf.data and match_bench's output beside it.

perf's sampling costs the server some CPU of its own, and a dwarf stack of 8 KiB is sometimes
cut short (its samples then fall to the outer components or to "other"): read the shares, and
compare budgets made in the same window. A run at the defaults takes about a minute.
"""

import argparse
import collections
import csv
import os
import re
import shutil
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (component, what it is, substrings of a frame's symbol). A sample goes to the component of the
# innermost frame that matches; the order below settles a frame matching two components.
COMPONENTS = [
    ("create", "the matches' creation (its seed chain), before the timed rounds",
     ["Matches::Create", "SeedChain::SeedChain"]),
    ("sign", "Ed25519 signature of a close combat's head (libsodium)",
     ["ServerSecrets::Sign"]),
    ("dice", "committed dice: HMAC-SHA256 a die, the seed chain's steps",
     ["CommittedDice", "Dice::Roll", "SeedChain::At"]),
    ("hash chain", "SHA-256 of each event into the match's chain, seal commitments",
     ["ChainAll", "ChainHash", "SealCommitment"]),
    ("rules", "the engine: validating and resolving a command, applying its events",
     ["AslRules::Decide", "AslRules::Apply", "CocRules::", "VvRules::", "TypedRuleset"]),
    ("event text", "each logged event's readable account (DescribeEvent)",
     ["DescribeEvent"]),
    ("log form", "each event converted to its stored protobuf form and serialized",
     ["LogEvent", "EventToProto", "SerializeDeterministic"]),
    ("views", "each viewer's view of the match, rendered and framed",
     ["RenderView", "ViewPartsBytes", "MakeView", "WriteForces"]),
    ("event renderings", "each event as each viewer may see it",
     ["RenderEvent", "RenderShown", "RenderLogged", "ApplyAndShow"]),
    ("planning", "the rest of turning a command into a plan (state copy, forces, notices)",
     ["PlanCommand", "PlanRuleset", "PlanMelee", "Plan::Plan", "Plan::~Plan", "NoticesOf",
      "EnterSilentAnnouncements", "FoldEnded", "SituationOf"]),
    ("commit", "applying a durable plan to the match (answers, recent events, deadlines)",
     ["Match::Commit", "AnswerBook", "RecentEvents", "Match::Append", "Match::Execute",
      "Match::Process", "RunQueued"]),
    ("decode", "a command's frame decoded and dispatched",
     ["DecodeClientMessage", "Dispatcher::Handle", "CountCommand"]),
    ("ws write", "frames written to the sessions: Beast, Asio and the kernel's sendmsg",
     ["Match::Send", "Deliver", "DoWrite", "OnWrite", "write_op<", "sendmsg"]),
    ("ws read", "frames read from the sessions: Beast, Asio and the kernel's recvmsg",
     ["recv_op", "read_some_op", "OnRead", "recvmsg"]),
    ("scheduler", "Asio's scheduler and strands between handlers, waiting included",
     ["epoll_wait", "scheduler::", "strand_executor_service", "futex"]),
]
# The store's threads (persistence/thread_name.h), whatever their stacks.
THREADS = {
    "melee-store": ("store writer", "the store's writer thread: SQLite, the WAL's writes and fsync"),
    "melee-ckpt": ("store checkpoints", "the store's checkpoint thread"),
}
DESCRIPTIONS = dict((name, text) for name, text, _ in COMPONENTS)
DESCRIPTIONS.update(dict(THREADS.values()))
DESCRIPTIONS["other"] = "every other frame (startup, allocator-only stacks, cut stacks)"


def log(message):
    print(message, flush=True)


def parse_samples(text):
    """Yields (thread name, [(symbol, dso)] innermost first) for each sample of `perf script`."""
    comm, frames = None, []
    frame = re.compile(r"^\s+[0-9a-f]+ (.*) \((.*)\)$")
    for line in text.splitlines():
        if not line.strip():
            if comm is not None:
                yield comm, frames
            comm, frames = None, []
        elif not line[0].isspace():
            comm, frames = line.split()[0], []
        else:
            found = frame.match(line)
            if found and comm is not None:
                frames.append((found.group(1), found.group(2)))
    if comm is not None:
        yield comm, frames


def component_of(comm, frames):
    if comm in THREADS:
        return THREADS[comm][0]
    for symbol, _ in frames:
        for name, _, patterns in COMPONENTS:
            if any(p in symbol for p in patterns):
                return name
    return "other"


def leaf_name(frames):
    if not frames:
        return "?"
    symbol, dso = frames[0]
    symbol = re.sub(r"\(.*", "", symbol)
    if len(symbol) > 60:
        symbol = symbol[:57] + "..."
    return ("[k] " if "kernel" in dso else "") + symbol


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--frequency", type=int, default=999, help="perf's samples a second")
    parser.add_argument("--build", default=os.path.join(REPO, "build"))
    parser.add_argument("--server-binary", help="melee-server (default: BUILD/server/melee-server)")
    parser.add_argument("--melee-withdrawal", choices=["none", "allowed"], default="none")
    parser.add_argument("--out", default=None, help="where to keep the results (default: a new "
                        "directory under /tmp)")
    args = parser.parse_args()

    perf = shutil.which("perf")
    if perf is None:
        sys.exit("cpu_budget: no perf on PATH (Debian: apt-get install linux-perf)")
    bench = os.path.join(args.build, "bench", "match_bench")
    server = args.server_binary or os.path.join(args.build, "server", "melee-server")
    for path in (bench, server):
        if not os.access(path, os.X_OK):
            sys.exit("cpu_budget: %s is not built" % path)
    out = args.out or subprocess.check_output(["mktemp", "-d", "/tmp/cpu-budget-XXXXXX"],
                                              text=True).strip()
    os.makedirs(out, exist_ok=True)
    data = os.path.join(out, "perf.data")
    wrapper = os.path.join(out, "server-under-perf.sh")
    # match_bench stops its server with SIGTERM: the wrapper hands it to melee-server itself, so
    # that perf writes its data and exits with the server's own status.
    with open(wrapper, "w") as f:
        f.write("#!/bin/bash\n"
                "%s record -q -F %d --call-graph dwarf,8192 -o %s -- %s \"$@\" &\n"
                "perf_pid=$!\n"
                "trap 'pkill -TERM -P $perf_pid' TERM INT\n"
                "wait $perf_pid; status=$?\n"
                "while kill -0 $perf_pid 2>/dev/null; do wait $perf_pid; status=$?; done\n"
                "exit $status\n" % (perf, args.frequency, data, os.path.abspath(server)))
    os.chmod(wrapper, 0o755)

    table = os.path.join(out, "match_bench.csv")
    log("== match_bench --matches %d --rounds %d, melee-server under perf (%d Hz)"
        % (args.matches, args.rounds, args.frequency))
    with open(os.path.join(out, "match_bench.txt"), "w") as text:
        status = subprocess.run(
            [bench, "--matches", str(args.matches), "--rounds", str(args.rounds),
             "--idle-connections", "0", "--fresh-server", "--server-binary", wrapper,
             "--melee-withdrawal", args.melee_withdrawal, "--csv", table],
            stdout=text, stderr=subprocess.STDOUT).returncode
    with open(table) as f:
        rows = list(csv.DictReader(f))
    if status != 0 or not rows or int(rows[0]["errors"]) or int(rows[0]["leaks"]):
        sys.exit("cpu_budget: match_bench failed or its checks did not hold (exit %d), see %s"
                 % (status, os.path.join(out, "match_bench.txt")))
    commands = int(rows[0]["commands"])

    log("== perf script")
    script = subprocess.run([perf, "script", "-i", data, "--no-inline", "-F", "comm,tid,ip,sym,dso"],
                            capture_output=True, text=True)
    if script.returncode != 0:
        sys.exit("cpu_budget: perf script failed: %s" % script.stderr.strip()[-500:])
    counts, leaves = collections.Counter(), collections.defaultdict(collections.Counter)
    for comm, frames in parse_samples(script.stdout):
        name = component_of(comm, frames)
        counts[name] += 1
        leaves[name][leaf_name(frames)] += 1
    total = sum(counts.values())
    if total == 0:
        sys.exit("cpu_budget: perf recorded no sample of the server")

    budget = os.path.join(out, "budget.csv")
    timed = total - counts["create"]
    log("\n%d rounds, %d commands, %d samples of the server (%.1f s of CPU; %.0f us a command "
        "outside the matches' creation)\n" % (int(rows[0]["rounds"]), commands, total,
                                             total / args.frequency,
                                             timed / args.frequency / commands * 1e6))
    log("%-18s %6s %7s  %s" % ("component", "share", "us/cmd", "hottest leaves"))
    with open(budget, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["component", "samples", "share", "us_per_command", "description",
                         "top_leaves"])
        for name, n in counts.most_common():
            us = n / args.frequency / commands * 1e6
            top = leaves[name].most_common(3)
            log("%-18s %5.1f%% %7.1f  %s" % (name, 100.0 * n / total, us,
                                              "; ".join("%s %.1f%%" % (leaf, 100.0 * k / total)
                                                        for leaf, k in top)))
            writer.writerow([name, n, "%.4f" % (n / total), "%.2f" % us, DESCRIPTIONS[name],
                             "; ".join(leaf for leaf, _ in top)])
    log("\nWhat each component is:")
    for name, _ in counts.most_common():
        log("  %-18s %s" % (name, DESCRIPTIONS[name]))
    log("\n%s\n(perf.data, match_bench's output and its CSV beside it)" % budget)


if __name__ == "__main__":
    main()
