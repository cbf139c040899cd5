#!/usr/bin/env bash
# Time from `stackscope attach` to the first sample: for ROUNDS attaches to one running JVM
# (tests/java Spinner, one thread burning CPU), the wall-clock time from just before the
# command starts to the first sample in its recording, in two parts:
#   * attach: to the session's start (the recording's start_epoch_ns: the agent has its
#     capabilities and is about to open the file); the front-end's checks, the trigger file
#     and SIGQUIT (first attach only), the socket, HotSpot's load;
#   * first sample: from the session's start to the first sample's offset in the recording,
#     found to 1 ms by bisecting `report --to` (a count of samples before an offset).
# Target: at most 300 ms in all. The first attach of a JVM (listener not yet running, library
# not yet loaded) is shown apart from the later ones.
# Usage: bench/attach_latency.sh [BUILD_DIR]    env: ROUNDS=5, JAVA=java, INTERVAL=1ms
# Needs python3 (JSON) and coreutils.
set -euo pipefail

build=${1:-build}
rounds=${ROUNDS:-5}
interval=${INTERVAL:-1ms}
java=$(command -v "${JAVA:-java}")
stackscope=$build/bin/stackscope
jar=$build/tests/java/stackscope_workloads.jar
for needed in "$stackscope" "$jar"; do
  [[ -e $needed ]] || { echo "attach_latency.sh: $needed is missing (build first)" >&2; exit 1; }
done
tmp=$(mktemp -d)
"$java" -cp "$jar" io.stackscope.workloads.Spinner > "$tmp/out" 2>&1 &
jvm=$!
trap 'kill "$jvm" 2>/dev/null; rm -rf "$tmp"' EXIT
until grep -q spinning "$tmp/out"; do sleep 0.1; done

samples_before() {  # samples in FILE before offset MS
  "$stackscope" report "$1" --to "$2ms" --json 2>/dev/null | python3 -c 'import json,sys; print(int(json.load(sys.stdin)["samples"]))'
}

echo "round attach_ms first_sample_ms total_ms"
for ((round = 1; round <= rounds; ++round)); do
  file=$tmp/r$round.ssr
  t0=$(date +%s%N)
  "$stackscope" attach "$jvm" -e cpu -i "$interval" --duration 1s -o "$file" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  start=$("$stackscope" info "$file" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["recording"]["start_epoch_ns"])')
  low=0 high=1000  # ms: no sample before low, one before high
  [[ $(samples_before "$file" $high) -gt 0 ]] || { echo "round $round: no sample in the first second" >&2; exit 1; }
  while ((high - low > 1)); do
    mid=$(((low + high) / 2))
    if [[ $(samples_before "$file" $mid) -gt 0 ]]; then high=$mid; else low=$mid; fi
  done
  attach_ms=$(((start - t0) / 1000000))
  echo "$round $attach_ms $high $((attach_ms + high))"
done
