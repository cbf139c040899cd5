#!/usr/bin/env bash
# Speed of the analysis engine on synthetic recordings (bench/synth/synth_recording.cpp):
#   1. the method statistic over 50 M samples: samples per second, wall and per CPU second,
#      on one core (taskset) and on every core (chunks are decoded in parallel); with
#      BASELINE=DIR, the same for DIR/stackscope (an earlier build) side by side, as ratios;
#      then, on one core, the same view with a filter that keeps every sample (rows kept);
#   2. a one-minute window of a 24-hour recording: bytes read against the file size;
#   3. navigation depth 1 against depth 5 on the same recording (one pass either way);
#   4. the same view served from the view cache;
#   5. user instructions per event over 2 M samples (perf's counter, or valgrind's where the
#      machine has no hardware counters), for both builds.
# Not a test. Usage: [BIN=build/bin] [BASELINE=other/bin] bench/analysis.sh [SAMPLES=50000000] [RUNS=3]
set -euo pipefail
cd "$(dirname "$0")/.."
samples=${1:-50000000}
runs=${2:-3}
bin=${BIN:-build/bin}
baseline=${BASELINE:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Runs a command RUNS times; prints the median wall, user+sys CPU seconds of the runs.
measure() {
  local results=() line
  for _ in $(seq "$runs"); do
    line=$( { TIMEFORMAT='%R %U %S'; time "$@" >/dev/null; } 2>&1 | tail -1)
    results+=("$(awk '{printf "%.3f %.3f", $1, $2 + $3}' <<<"$line")")
  done
  printf '%s\n' "${results[@]}" | sort -n | awk -v n="$runs" 'NR == int((n + 1) / 2)'
}

echo "machine: $(nproc) cores, $(uname -r)"
"$bin/synth_recording" "$work/big.ssr" "$samples" $((samples / 800)) >/dev/null
# The baseline reads the same recording as its own writer wrote it (a reader of an older
# format version refuses a newer file).
[[ -n "$baseline" ]] && "$baseline/synth_recording" "$work/big-base.ssr" "$samples" $((samples / 800)) >/dev/null
size=$(stat -c %s "$work/big.ssr")
echo "recording: $samples samples, $size bytes ($(awk -v s="$size" -v n="$samples" 'BEGIN {printf "%.2f", s / n}') bytes/sample)"

# The methods view end to end (decode + statistic) by one build on one core and on all cores.
methods_view() {  # NAME STACKSCOPE RECORDING
  local one_w one_c all_w all_c
  read -r one_w one_c < <(measure taskset -c 0 "$2" report "$3" --no-cache --top 10)
  read -r all_w all_c < <(measure "$2" report "$3" --no-cache --top 10)
  awk -v name="$1" -v n="$samples" -v a="$one_w" -v b="$one_c" -v c="$all_w" -v d="$all_c" -v cores="$(nproc)" 'BEGIN {
    printf "methods view, %s: 1 core %.2f s wall, %.2f s CPU (%.1f M samples/s); %d cores %.2f s wall, %.2f s CPU (%.1f M samples/s wall, %.1f M per CPU second); speed-up %.2f\n",
      name, a, b, n / a / 1e6, cores, c, d, n / c / 1e6, n / d / 1e6, a / c }' >&2
  echo "$one_w $all_w"
}
read -r this_one this_all < <(methods_view "this build ($bin)" "$bin/stackscope" "$work/big.ssr")
if [[ -n "$baseline" ]]; then
  read -r base_one base_all < <(methods_view "baseline ($baseline)" "$baseline/stackscope" "$work/big-base.ssr")
  awk -v a="$this_one" -v b="$base_one" -v c="$this_all" -v d="$base_all" 'BEGIN {
    printf "this build against the baseline, wall time ratio: 1 core %.2f, all cores %.2f (below 1: faster)\n", a / b, c / d }'
fi

# The same view with a filter that keeps every sample: a predicate needs a row per sample
# (the plain view folds samples per stack while loading, analysis/load.h).
read -r rows_w rows_c < <(measure taskset -c 0 "$bin/stackscope" report "$work/big.ssr" --no-cache --top 10 --where 'thread=*')
awk -v n="$samples" -v a="$rows_w" -v b="$rows_c" 'BEGIN {
  printf "methods view with rows (--where thread=*), this build, 1 core: %.2f s wall, %.2f s CPU (%.1f M per CPU second)\n", a, b, n / b / 1e6 }'

# User instructions per event, which the machine's load does not change: from perf's counter
# where the machine has one, else counted by valgrind (callgrind) over a 2 M-sample recording.
instructions_per_event() {  # STACKSCOPE RECORDING EVENTS
  local count
  count=$(perf stat -x, -e instructions:u "$1" report "$2" --no-cache --top 10 2>&1 >/dev/null | awk -F, '/instructions/ && $1 ~ /^[0-9]+$/ {print $1}')
  if [[ -z "$count" ]] && command -v valgrind >/dev/null; then
    count=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" report "$2" --no-cache --top 10 2>&1 >/dev/null | awk '/Collected :/ {print $NF}')
  fi
  [[ -n "$count" ]] && awk -v c="$count" -v n="$3" 'BEGIN {printf "%.0f", c / n}'
}
"$bin/synth_recording" "$work/small.ssr" 2000000 2500 >/dev/null
echo "user instructions per event (2 M samples): this build $(instructions_per_event "$bin/stackscope" "$work/small.ssr" 2000000)"
if [[ -n "$baseline" ]]; then
  "$baseline/synth_recording" "$work/small-base.ssr" 2000000 2500 >/dev/null
  echo "user instructions per event (2 M samples): baseline $(instructions_per_event "$baseline/stackscope" "$work/small-base.ssr" 2000000)"
fi

read -r d1 c1 < <(measure "$bin/stackscope" report "$work/big.ssr" --no-cache --view 'methods[bench.pkg1.*]/threads')
read -r d5 c5 < <(measure "$bin/stackscope" report "$work/big.ssr" --no-cache \
  --view 'users[u*]/threads[worker-*]/states[running]/methods[bench.pkg1.*]/methods[bench.*]/threads')
awk -v a="$d1" -v b="$d5" -v ca="$c1" -v cb="$c5" 'BEGIN {
  printf "navigation: depth 1 %.2f s wall / %.2f s CPU, depth 5 %.2f s wall / %.2f s CPU, CPU ratio %.2f\n", a, ca, b, cb, cb / ca }'

"$bin/stackscope" report "$work/big.ssr" --view 'methods[bench.pkg1.*]/threads' >/dev/null  # fill the cache
read -r hit _ < <(measure "$bin/stackscope" report "$work/big.ssr" --view 'methods[bench.pkg1.*]/threads')
echo "cached view: $hit s"

# 24 hours at 100 samples/s, flushed once a simulated second like the agent.
"$bin/synth_recording" "$work/day.ssr" 8640000 86400 >/dev/null
json=$("$bin/stackscope" report "$work/day.ssr" --no-cache --from 10h --to 10h1m --json --top 1)
read -r got read_bytes file_size < <(grep -E '"(samples|bytes_read|file_size)"' <<<"$json" | tr -dc '0-9\n ' | awk '{print $NF}' | paste -sd' ' | awk '{print $3, $1, $2}')
awk -v r="$read_bytes" -v f="$file_size" -v s="$got" 'BEGIN {
  printf "one minute of a 24 h recording: %d samples, read %d of %d bytes (%.3f%%)\n", s, r, f, 100 * r / f }'
