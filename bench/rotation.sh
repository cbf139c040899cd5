#!/usr/bin/env bash
# Agent memory over a long run, with rotation and without (issue 10 §5, docs/benchmarks.md):
# bench/java ClassChurn (new classes, methods and stacks all the time, ~20 % of a core) under
# the agent in cpu mode at INTERVAL, twice side by side in one run: once with rotate=ROTATE,
# maxfiles=MAXFILES, once into one file. Every EVERY seconds it prints each JVM's resident
# memory (VmRSS, /proc/PID/status) and the recording's files; at the end, each JVM's growth
# from the first minute's sample to the last. Both JVMs run the same code with a fixed heap
# (-Xms = -Xmx, pre-touched) and interpreted (-Xint: no code cache filling up with each new
# class's compiled code), so what differs between them is the agent's tables.
# Usage: bench/rotation.sh [BUILD_DIR]
#   (env: MINUTES=10, EVERY=30, ROTATE=60s, MAXFILES=3, INTERVAL=1ms, RATE=20, JAVA=java)
set -euo pipefail

build=${1:-build}
minutes=${MINUTES:-10}
every=${EVERY:-30}
rotate=${ROTATE:-60s}
maxfiles=${MAXFILES:-3}
interval=${INTERVAL:-1ms}
rate=${RATE:-20}
java=$(command -v "${JAVA:-java}")
agent=$(realpath "$build/lib/libstackscope.so")
jar=$(realpath "$build/bench/fixedwork.jar")
for needed in "$agent" "$jar"; do
  [[ -e $needed ]] || { echo "rotation.sh: $needed is missing (build first)" >&2; exit 1; }
done
tmp=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"' EXIT

seconds=$((minutes * 60))
start_jvm() {  # NAME EXTRA_OPTIONS: starts ClassChurn in the background, its pid in $tmp/NAME.pid
  local name=$1 extra=$2
  mkdir -p "$tmp/$name"
  "$java" -Xint -Xms128m -Xmx128m -XX:+AlwaysPreTouch -XX:+UseSerialGC \
    "-agentpath:$agent=event=cpu,interval=$interval,file=$tmp/$name/run.ssr$extra" \
    -cp "$jar" io.stackscope.bench.ClassChurn "$seconds" "$rate" >"$tmp/$name.out" 2>"$tmp/$name.err" &
  pids+=($!)
  echo $! >"$tmp/$name.pid"
}
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
files_of() { find "$tmp/$1" -name '*.ssr' | wc -l; }
mb_of() { du -sm "$tmp/$1" | cut -f1; }

start_jvm rotated ",rotate=$rotate,maxfiles=$maxfiles"
start_jvm single ""
rotated=$(cat "$tmp/rotated.pid") single=$(cat "$tmp/single.pid")
echo "ClassChurn for ${minutes} min, cpu at $interval, $rate new classes/s; rotate=$rotate maxfiles=$maxfiles vs one file"
echo "machine: $(nproc) CPUs, $(uptime | sed 's/.*load average/load average/')"
printf '%8s %14s %10s %14s %10s\n' time_s rotated_rss_MB files single_rss_MB file_MB
first_rot=0 first_one=0 last_rot=0 last_one=0
for ((t = every; t <= seconds; t += every)); do
  sleep "$every"
  kill -0 "$rotated" 2>/dev/null && kill -0 "$single" 2>/dev/null || { echo "a JVM ended early" >&2; cat "$tmp"/*.err >&2; exit 1; }
  r=$(rss_kb "$rotated") s=$(rss_kb "$single")
  printf '%8d %14.1f %10d %14.1f %10d\n' "$t" "$(bc -l <<<"$r/1024")" "$(files_of rotated)" "$(bc -l <<<"$s/1024")" "$(mb_of single)"
  if ((t >= 60 && first_rot == 0)); then first_rot=$r first_one=$s; fi
  last_rot=$r last_one=$s
done
wait "$rotated" "$single" || true
echo "growth from the first sample at >= 60 s to the last: rotated $(( (last_rot - first_rot) / 1024 )) MB," \
     "one file $(( (last_one - first_one) / 1024 )) MB"
echo "classes defined: rotated $(cut -d' ' -f2 "$tmp/rotated.out"), one file $(cut -d' ' -f2 "$tmp/single.out")"
echo "machine at the end: $(uptime | sed 's/.*load average/load average/')"
grep -h stackscope "$tmp"/*.err | sort | uniq -c | head -5 || true
