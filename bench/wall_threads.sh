#!/usr/bin/env bash
# Measures, in one run, what wall mode costs a JVM with many idle threads (bench/java
# IdleCrowd: IDLE threads parked on a latch, BUSY threads mixing integers for SECONDS):
#   * throughput: the busy threads' work with the agent (wall, INTERVAL) over the work of a
#     run without it, in interleaved pairs (the order alternates); median ratio;
#   * sample loss: samples lost / (taken + lost) in each agent run, with the reasons.
# Usage: bench/wall_threads.sh [BUILD_DIR]
#   env: PAIRS=5, JAVA=java, IDLE=2000, BUSY=4, RUN_SECONDS=5, INTERVAL=1ms
# Needs bash, awk, python3 (to read the JSON report) and coreutils; run on an idle machine.
set -euo pipefail

build=${1:-build}
pairs=${PAIRS:-5}
idle=${IDLE:-2000}
busy=${BUSY:-4}
seconds=${RUN_SECONDS:-5}
interval=${INTERVAL:-1ms}
java=$(command -v "${JAVA:-java}")
javac=$(dirname "$(realpath "$java")")/javac
agent=$(realpath "$build/lib/libstackscope.so")
stackscope=$build/bin/stackscope
src=$(dirname "$0")/java/src/io/stackscope/bench
for needed in "$agent" "$stackscope" "$javac"; do
  [[ -e $needed ]] || { echo "wall_threads.sh: $needed is missing (build first)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$javac" --release 17 -d "$tmp/classes" "$src/IdleCrowd.java"

# Runs IdleCrowd, with the agent when $1 names a recording; prints the busy threads' ops.
run() {
  local options=()
  [[ -n $1 ]] && options=("-agentpath:$agent=event=wall,interval=$interval,file=$1")
  "$java" -Xmx512m -Xss256k -XX:+UseSerialGC "${options[@]}" -cp "$tmp/classes" io.stackscope.bench.IdleCrowd \
    "$idle" "$busy" "$seconds" 2>"$tmp/err" | awk '/^ops /{print $2}' ||
    { echo "wall_threads.sh: IdleCrowd failed:" >&2; cat "$tmp/err" >&2; exit 1; }
}

# "LOSS_PCT TAKEN LOST REASONS" of a recording.
loss() {
  "$stackscope" report "$1" --view threads --json --no-cache | python3 -c '
import json, sys
r = json.load(sys.stdin)
taken, lost = r["samples"], r["lost_total"]
reasons = ",".join("%s=%d" % (k, v) for k, v in sorted(r["lost"].items()))
print("%.2f %d %d %s" % (100.0 * lost / max(taken + lost, 1), taken, lost, reasons or "-"))'
}

source "$(dirname "$0")/rounds_stats.sh"

echo "IdleCrowd: $idle idle + $busy busy threads, ${seconds}s, wall mode at $interval, $pairs pairs ($(nproc) CPUs)"
ratios=() losses=()
for ((i = 1; i <= pairs; i++)); do
  if ((i % 2)); then base=$(run ""); with=$(run "$tmp/wall$i.ssr")
  else with=$(run "$tmp/wall$i.ssr"); base=$(run ""); fi
  read -r pct taken lost reasons < <(loss "$tmp/wall$i.ssr")
  ratio=$(awk -v a="$with" -v b="$base" 'BEGIN{printf "%.4f", a / b}')
  printf 'pair %d: ops without %s, with %s (ratio %s); samples %s taken, %s lost (%s%%: %s)\n' \
    "$i" "$base" "$with" "$ratio" "$taken" "$lost" "$pct" "$reasons"
  ratios+=("$ratio") losses+=("$pct")
done
printf 'median throughput with/without: %s (cost %s%%)\n' "$(printf '%s\n' "${ratios[@]}" | median)" \
  "$(printf '%s\n' "${ratios[@]}" | median | awk '{printf "%.1f", 100 * (1 - $1)}')"
printf 'median sample loss: %s%%\n' "$(printf '%s\n' "${losses[@]}" | median)"
