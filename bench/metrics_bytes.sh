#!/usr/bin/env bash
# What the per-thread metric deltas (metrics=cpu,alloc) cost in the recording: bytes per sample
# at the margin ((8 s loop - 2 s loop) / their sample difference, as overhead.sh measures it) of
# bench/java FixedWork's tight loop, with and without them, at 10 ms and 1 ms.
# Usage: bench/metrics_bytes.sh [BUILD_DIR]   (env: JAVA=java)
set -euo pipefail
b=${1:-build}; java=${JAVA:-java}; tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for cfg in "10ms cpu,alloc" "10ms none" "1ms cpu,alloc" "1ms none"; do
  set -- $cfg
  for len in 2000 8000; do
    $java -Xmx256m -XX:+UseSerialGC -agentpath:$b/lib/libstackscope.so=event=cpu,interval=$1,metrics=$2,file=$tmp/r$len.ssr -cp $b/bench/fixedwork.jar io.stackscope.bench.FixedWork loop $len >/dev/null 2>&1
  done
  s2=$($b/bin/stackscope info $tmp/r2000.ssr --json | python3 -c 'import json,sys;print(json.load(sys.stdin)["samples"])')
  s8=$($b/bin/stackscope info $tmp/r8000.ssr --json | python3 -c 'import json,sys;print(json.load(sys.stdin)["samples"])')
  b2=$(stat -c %s $tmp/r2000.ssr); b8=$(stat -c %s $tmp/r8000.ssr)
  echo "interval=$1 metrics=$2: samples $s2/$s8 bytes/sample $(python3 -c "print(round(($b8-$b2)/($s8-$s2),2))")"
done
