#!/usr/bin/env bash
# Speed of the analysis engine on synthetic recordings (bench/synth/synth_recording.cpp):
#   1. the method statistic over 50 M samples: samples per second, wall and per CPU second;
#   2. a one-minute window of a 24-hour recording: bytes read against the file size;
#   3. navigation depth 1 against depth 5 on the same recording (one pass either way);
#   4. the same view served from the view cache.
# Not a test. Usage: bench/analysis.sh [SAMPLES=50000000] [RUNS=3]   (after a build in build/)
set -euo pipefail
cd "$(dirname "$0")/.."
samples=${1:-50000000}
runs=${2:-3}
bin=build/bin
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
size=$(stat -c %s "$work/big.ssr")
echo "recording: $samples samples, $size bytes ($(awk -v s="$size" -v n="$samples" 'BEGIN {printf "%.2f", s / n}') bytes/sample)"

read -r wall cpu < <(measure "$bin/stackscope" report "$work/big.ssr" --no-cache --top 10)
awk -v n="$samples" -v w="$wall" -v c="$cpu" 'BEGIN {
  printf "methods view, end to end (decode + statistic): %.2f s wall, %.2f s CPU -> %.1f M samples/s wall, %.1f M samples per CPU second\n", w, c, n / w / 1e6, n / c / 1e6 }'

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
