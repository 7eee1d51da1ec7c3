#!/usr/bin/env bash
# The store's transactions (and so fsyncs) a play-by-email turn costs: starts a fresh melee-server
# on an empty data directory, plays the README's PBEM guide's first six turns with the `melee`
# command line (each `melee submit` connects, joins, sends one command and leaves), and prints
# `melee_store_transactions_total` from /metrics after the match's creation and after each turn.
#
#   bench/pbem_transactions.sh [SERVER_BINARY] [PORT]      # defaults: build/server/melee-server 9461
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
server=${1:-$repo/build/server/melee-server}
port=${2:-9461}
melee=$repo/build/client-sdk/melee
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
"$server" --port "$port" --data-dir "$work/data" >"$work/server.log" 2>&1 &
pid=$!
transactions() {
  curl -sf "http://127.0.0.1:$port/metrics" | awk '/^melee_store_transactions_total /{print $2}'
}
for _ in $(seq 50); do transactions >/dev/null 2>&1 && break; sleep 0.1; done
export MELEE_SERVER=ws://127.0.0.1:$port/ws
cd "$work"
"$melee" match create --title "Hill 621" --out hill621 >/dev/null
cat >a.json <<'UNITS'
{"location": {"name": "G3"}, "attacker": "SEAT_SIDE_A",
 "units": [{"id": "G1", "owner": "SEAT_SIDE_A", "kind": "UNIT_KIND_SQUAD",
            "name": "4-6-7", "firepower": 4, "morale": 7}]}
UNITS
cat >b.json <<'UNITS'
{"units": [{"id": "R1", "owner": "SEAT_SIDE_B", "kind": "UNIT_KIND_SQUAD",
            "name": "4-4-7", "firepower": 4, "morale": 7}]}
UNITS
counts=("$(transactions)")
for turn in "side_a --setup a.json" "side_b --setup b.json" "side_b --confirm" \
            "side_a --confirm" "side_a --announce" "side_b --announce"; do
  read -r seat args <<<"$turn"
  # shellcheck disable=SC2086
  "$melee" submit --seat "hill621/$seat.seat" $args >/dev/null
  # A turn's last transaction (its session's end) commits after the CLI has left.
  sleep 0.3
  counts+=("$(transactions)")
done
echo "transactions after creation and after each of 6 turns: ${counts[*]}"
echo "a turn: $(( (counts[6] - counts[0]) / 6 )) transaction(s)"
