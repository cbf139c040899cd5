#!/usr/bin/env bash
# What a class histogram costs the profiled JVM: the pause of each heap walk (the VM is stopped
# while IterateThroughHeap runs) on a heap holding about 200 MB (bench/java HeapHold: 3.3 M
# small objects and 1600 arrays), as the recording states it (report --view histogram, JSON
# `histograms`: each walk's pause_ns), with a histogram every second.
# Usage: bench/histogram.sh [BUILD_DIR]   (env: MB=200, HOLD_MS=6000, JAVA=java)
set -euo pipefail

build=${1:-build}
java=$(command -v "${JAVA:-java}")
javac=$(dirname "$(realpath "$java")")/javac
stackscope=$build/bin/stackscope
[[ -x $stackscope ]] || { echo "histogram.sh: $stackscope is missing (build first)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$javac" -d "$tmp/classes" "$(dirname "$0")/java/src/io/stackscope/bench/HeapHold.java"
"$stackscope" record --histo 1s -o "$tmp/histo.ssr" -- "$java" -Xmx512m -XX:+UseSerialGC -cp "$tmp/classes" \
  io.stackscope.bench.HeapHold "${MB:-200}" "${HOLD_MS:-6000}" >"$tmp/out" 2>"$tmp/err"
"$stackscope" report "$tmp/histo.ssr" --view histogram --json >"$tmp/view.json"
echo "java:    $("$java" -version 2>&1 | head -1)"
echo "heap:    $(cat "$tmp/out"), ${MB:-200} MB held"
python3 - "$tmp/view.json" <<'PY'
import json, sys, statistics
view = json.load(open(sys.argv[1]))
pauses = [p["pause_ns"] / 1e6 for p in view["histograms"]]
total = view["all_classes"]
print(f"walks:   {len(pauses)}, pause ms each: {' '.join(f'{p:.1f}' for p in pauses)} (the first ones while the heap fills)")
full = pauses[-3:]  # the heap is full by then
print(f"full heap: pause ms min {min(full):.1f}, median {statistics.median(full):.1f}, max {max(full):.1f} (last 3 walks)")
print(f"last:    {total['instances']} objects, {total['bytes'] / 2**20:.1f} MiB in {len(view['classes'])} classes")
PY
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) at the end"
