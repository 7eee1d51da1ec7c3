#!/usr/bin/env bash
# build_time.sh: how long a fresh build of everything (tests and benchmarks included) takes, as
# the README's test command builds it (Ninja, -DMELEE_WERROR=ON, the default build type), with
# ccache off, from a clean clone of a revision of this repository.
#
#   bench/build_time.sh              # HEAD
#   bench/build_time.sh 48cc7b5      # another revision, to compare in the same window
#   JOBS=2 KEEP=1 bench/build_time.sh   # JOBS: as many compilers at once (default: Ninja's)
#
# Prints the wall-clock time, the compilers' CPU time, the largest compiler's memory, the ten
# slowest steps and the steps' time by folder (from Ninja's log). Takes the build lock (/tmp/melee-build.lock) so that no other
# build on the machine runs meanwhile; the clone and build folder go under ${TMPDIR:-/tmp} and are
# removed afterwards unless KEEP=1.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
rev="${1:-HEAD}"
work="$(mktemp -d "${TMPDIR:-/tmp}/melee-build-time.XXXXXX")"
[[ "${KEEP:-0}" == 1 ]] || trap 'rm -rf "$work"' EXIT

git clone -q "$repo" "$work/src"
git -C "$work/src" checkout -q "$rev"
export CCACHE_DISABLE=1
cmake -S "$work/src" -B "$work/build" -G Ninja -DMELEE_WERROR=ON >/dev/null
echo "building $(git -C "$work/src" rev-parse --short HEAD) (ccache off) in $work"
flock /tmp/melee-build.lock /usr/bin/time -f '%e %U %S %M' -o "$work/time" \
  cmake --build "$work/build" ${JOBS:+-j "$JOBS"} >"$work/build.log" 2>&1 ||
  { tail -30 "$work/build.log"; exit 1; }
read -r wall user sys rss <"$work/time"
awk -v w="$wall" -v u="$user" -v s="$sys" -v m="$rss" 'BEGIN {
  printf "wall %d:%02d  user %.0f s  system %.0f s  largest compiler %.1f GiB\n",
         w / 60, w % 60, u, s, m / 1048576 }'
echo "slowest steps (s):"
awk 'NR > 1 { printf "%7.1f  %s\n", ($2 - $1) / 1000, $4 }' "$work/build/.ninja_log" |
  sort -rn | head -10
echo "steps' time by folder (s, steps):"
awk 'NR > 1 { n = split($4, part, "/"); dir = part[1]
              if (n > 3 && part[2] != "CMakeFiles") dir = dir "/" part[2]
              t[dir] += ($2 - $1) / 1000; c[dir]++ }
     END { for (d in t) printf "%7.0f  %4d  %s\n", t[d], c[d], d }' "$work/build/.ninja_log" |
  sort -rn
