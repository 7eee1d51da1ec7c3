#!/usr/bin/env bash
# Instructions a command of a melee-server binary, counted by callgrind: the round
# (match_bench --matches 10) played for 20 rounds and for 60, each with its own server under
# `valgrind --tool=callgrind`; the difference of the two totals divided by the difference of
# the commands leaves the start and the matches' creation out. The dice differ from run to run,
# and with them a run's count by up to ±10 %: compare binaries by the mean of several runs each.
#
#   bench/instructions_per_command.sh [SERVER_BINARY] [BUILD_DIR]   # needs valgrind
#
# Under valgrind OpenSSL's SHA-256 and libsodium's Ed25519 run their portable code, so hashing
# and signing weigh more than they do on the machine (docs/benchmarks.md, step 35).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
build="${2:-$repo/build}"
server="$(realpath "${1:-$build/server/melee-server}")"
command -v valgrind > /dev/null || { echo "needs valgrind (Debian: apt-get install valgrind)" >&2; exit 2; }
work="$(mktemp -d /tmp/melee-instructions.XXXXXX)"
declare -A total commands
for rounds in 20 60; do
  cat > "$work/server.sh" << WRAPPER
#!/usr/bin/env bash
exec valgrind --tool=callgrind --callgrind-out-file="$work/callgrind-$rounds.out" "$server" "\$@"
WRAPPER
  chmod +x "$work/server.sh"
  "$build/bench/match_bench" --matches 10 --rounds "$rounds" --idle-connections 0 --fresh-server \
    --server-binary "$work/server.sh" --csv "$work/run-$rounds.csv" > "$work/run-$rounds.txt" 2>&1 \
    || { echo "match_bench failed: $work/run-$rounds.txt" >&2; exit 1; }
  total[$rounds]=$(awk '/^(totals|summary):/ {print $2; exit}' "$work/callgrind-$rounds.out")
  commands[$rounds]=$(python3 -c "import csv,sys; r=list(csv.DictReader(open(sys.argv[1])))[0]; \
assert r['leaks']=='0' and r['errors']=='0', 'leaks or errors'; print(r['commands'])" "$work/run-$rounds.csv")
done
echo "$server: ${total[20]} / ${total[60]} instructions for ${commands[20]} / ${commands[60]} commands:" \
  "$(( (total[60] - total[20]) / (commands[60] - commands[20]) )) instructions a command" \
  "(callgrind profiles in $work)"
