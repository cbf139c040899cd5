#!/usr/bin/env bash
# Speed of the pictures, the summary and the exports on 1 M-sample synthetic recordings
# (bench/synth/synth_recording.cpp): 2 000 distinct stacks (a steady service) and 50 000 (a
# varied program such as javac), each command's wall time and peak memory (median of RUNS), and
# the flame graph page in Chromium (bench/flame_page.mjs): time to the first drawn frame and to
# a search. Not a test. Usage: [BIN=build/bin] bench/pictures.sh [SAMPLES=1000000] [RUNS=3]
set -euo pipefail
cd "$(dirname "$0")/.."
samples=${1:-1000000}
runs=${2:-3}
bin=${BIN:-build/bin}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Median wall seconds and peak RSS (MB) of RUNS runs of a command.
measure() {
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%e %M' "$@" 2>&1 >/dev/null | tail -1
  done | sort -n | awk -v n="$runs" 'NR == int((n + 1) / 2) {printf "%.2f s, %.0f MB", $1, $2 / 1024}'
}

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for stacks in 2000 50000; do
  f="$work/synth-$stacks.ssr"
  "$bin/synth_recording" "$f" "$samples" 60 8 "$stacks" >/dev/null
  echo "recording: $samples samples, $stacks distinct stacks, $(stat -c %s "$f") bytes"
  echo "  report (methods)        $(measure "$bin/stackscope" report "$f" --no-cache)"
  echo "  flame -o .html          $(measure "$bin/stackscope" flame "$f" -o "$work/flame.html")  page $(stat -c %s "$work/flame.html") bytes"
  echo "  graph -o .svg (dot)     $(measure "$bin/stackscope" graph "$f" -o "$work/graph.svg")"
  echo "  summary                 $(measure "$bin/stackscope" summary "$f")"
  echo "  timeline -o .html       $(measure "$bin/stackscope" timeline "$f" -o "$work/timeline.html")"
  echo "  diff (itself)           $(measure "$bin/stackscope" diff "$f" "$f")"
  for format in pprof collapsed speedscope chrome profilerj-xml; do
    printf '  export %-16s %s\n' "$format" "$(measure "$bin/stackscope" export "$f" --format "$format" -o "$work/out")"
  done
  echo "  flame page in Chromium: $(node bench/flame_page.mjs "$work/flame.html") (ms)"
done
