#!/usr/bin/env bash
# Agent memory over a long run, with rotation and without (issue 10 §5, docs/benchmarks.md):
# bench/java ClassChurn (new classes, methods and stacks all the time, ~20 % of a core) under
# the agent in cpu mode at INTERVAL, side by side in one run: once with rotate=ROTATE,
# maxfiles=MAXFILES, once into one file, and once without the agent (what the JVM itself
# grows by: HotSpot never frees a jmethodID, and the agent asks one for each new method it
# samples). Every EVERY seconds it prints each JVM's resident memory (VmRSS,
# /proc/PID/status) and the recordings' files; at the end, each JVM's growth from the first
# sample at or after one minute to the last. Both JVMs run the same code with a fixed heap
# (-Xms = -Xmx, pre-touched) and interpreted (-Xint: no code cache filling up with each new
# class's compiled code), so what differs between the first two is the agent's tables.
# With NMT=1 every JVM runs with HotSpot's Native Memory Tracking (-XX:NativeMemoryTracking=summary):
# a baseline is taken with jcmd at the first sample at or after one minute, and at the end
# each JVM's `VM.native_memory summary.diff` against it goes to the output (categories whose
# committed memory moved), with glibc's heap in use (malloc_stats through gdb, every malloc of
# the process: the JVM's and the agent's) at both points. What NMT tracks is the JVM's own memory;
# what the heap grew beyond NMT's malloc growth is malloc outside the JVM (the agent, libc).
# jcmd and gdb are for this diagnosis only; the agent never uses them.
# Usage: bench/rotation.sh [BUILD_DIR]
#   (env: MINUTES=10, EVERY=30, ROTATE=60s, MAXFILES=3, INTERVAL=1ms, RATE=20, JAVA=java, NMT=0)
set -euo pipefail

build=${1:-build}
minutes=${MINUTES:-10}
every=${EVERY:-30}
rotate=${ROTATE:-60s}
maxfiles=${MAXFILES:-3}
interval=${INTERVAL:-1ms}
rate=${RATE:-20}
java=$(command -v "${JAVA:-java}")
nmt=${NMT:-0}
jcmd=$(dirname "$(realpath "$java")")/jcmd
nmt_flags=()
((nmt)) && nmt_flags=(-XX:NativeMemoryTracking=summary)
agent=$(realpath "$build/lib/libstackscope.so")
jar=$(realpath "$build/bench/fixedwork.jar")
for needed in "$agent" "$jar"; do
  [[ -e $needed ]] || { echo "rotation.sh: $needed is missing (build first)" >&2; exit 1; }
done
tmp=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"' EXIT

seconds=$((minutes * 60))
start_jvm() {  # NAME AGENT_OPTIONS: starts ClassChurn in the background, its pid in $tmp/NAME.pid
  local name=$1 options=$2
  mkdir -p "$tmp/$name"
  # It runs one period longer than the series, so that the last sample finds it alive.
  "$java" -Xint -Xms128m -Xmx128m -XX:+AlwaysPreTouch -XX:+UseSerialGC \
    "${nmt_flags[@]}" \
    ${options:+"-agentpath:$agent=event=cpu,interval=$interval,file=$tmp/$name/run.ssr$options"} \
    -cp "$jar" io.stackscope.bench.ClassChurn "$((seconds + every))" "$rate" >"$tmp/$name.out" 2>"$tmp/$name.err" &
  pids+=($!)
  echo $! >"$tmp/$name.pid"
}
# glibc's heap, every arena and mmapped block: "IN_USE SYSTEM" bytes (what malloc handed out,
# what it holds from the kernel). gdb makes the process call malloc_stats(), which prints to
# its stderr; the last totals there.
heap_bytes() {  # NAME
  gdb -batch -p "$(cat "$tmp/$1.pid")" -ex 'call ((void(*)(void))malloc_stats)()' >/dev/null 2>&1
  awk '/^Total/ {total = 1} total && /system bytes/ {held = $NF} total && /in use bytes/ {used = $NF; total = 0}
       END {print used, held}' "$tmp/$1.err"
}
nmt_mark() {  # NAME baseline|end: NMT's baseline, or its diff against it, and the heap in use
  local pid
  pid=$(cat "$tmp/$1.pid")
  heap_bytes "$1" >"$tmp/$1.heap-$2"
  if [[ $2 == baseline ]]; then
    "$jcmd" "$pid" VM.native_memory baseline >/dev/null
  else
    "$jcmd" "$pid" VM.native_memory summary.diff >"$tmp/$1.nmt"
  fi
}
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
files_of() { find "$tmp/$1" -name '*.ssr' | wc -l; }
mb_of() { du -sm "$tmp/$1" | cut -f1; }

start_jvm rotated ",rotate=$rotate,maxfiles=$maxfiles"
start_jvm single ","
start_jvm none ""
rotated=$(cat "$tmp/rotated.pid") single=$(cat "$tmp/single.pid") none=$(cat "$tmp/none.pid")
echo "ClassChurn for ${minutes} min, cpu at $interval, $rate new classes/s; rotate=$rotate maxfiles=$maxfiles vs one file vs no agent"
echo "machine: $(nproc) CPUs, $(uptime | sed 's/.*load average/load average/')"
printf '%8s %14s %10s %14s %10s %14s\n' time_s rotated_rss_MB files single_rss_MB file_MB no_agent_MB
first=() last=()
for ((t = every; t <= seconds; t += every)); do
  sleep "$every"
  for p in "$rotated" "$single" "$none"; do
    kill -0 "$p" 2>/dev/null || { echo "a JVM ended early" >&2; cat "$tmp"/*.err >&2; exit 1; }
  done
  last=("$(rss_kb "$rotated")" "$(rss_kb "$single")" "$(rss_kb "$none")")
  printf '%8d %14.1f %10d %14.1f %10d %14.1f\n' "$t" "$(bc -l <<<"${last[0]}/1024")" "$(files_of rotated)" \
    "$(bc -l <<<"${last[1]}/1024")" "$(mb_of single)" "$(bc -l <<<"${last[2]}/1024")"
  if ((t >= 60 && ${#first[@]} == 0)); then
    first=("${last[@]}")
    ((nmt)) && for name in rotated single none; do nmt_mark "$name" baseline; done
  fi
done
((nmt)) && for name in rotated single none; do nmt_mark "$name" end; done
wait "$rotated" "$single" "$none" || true
echo "growth from the first sample at >= 60 s to the last: rotated $(( (last[0] - first[0]) / 1024 )) MB," \
     "one file $(( (last[1] - first[1]) / 1024 )) MB, no agent $(( (last[2] - first[2]) / 1024 )) MB"
echo "classes defined: rotated $(cut -d' ' -f2 "$tmp/rotated.out"), one file $(cut -d' ' -f2 "$tmp/single.out")," \
     "no agent $(cut -d' ' -f2 "$tmp/none.out")"
if ((nmt)); then
  for name in rotated single none; do
    echo "== $name: NMT from the baseline to the end (KB; categories whose committed memory moved)"
    # The total, and each category block (its indented lines) whose committed memory moved.
    awk '/^Total/ {print} /^-/ {show = / committed=[0-9]+KB [+-]/} /^$/ {show = 0} show' "$tmp/$name.nmt"
    read -r used_base system_base <"$tmp/$name.heap-baseline" || true
    read -r used_end system_end <"$tmp/$name.heap-end" || true
    if [[ -n ${used_base:-} && -n ${used_end:-} ]]; then
      echo "glibc heap in use: $((used_base / 1024)) KB -> $((used_end / 1024)) KB ($(((used_end - used_base) / 1024)) KB);" \
        "held from the kernel: $((system_base / 1024)) KB -> $((system_end / 1024)) KB ($(((system_end - system_base) / 1024)) KB)"
    fi
  done
fi
echo "machine at the end: $(uptime | sed 's/.*load average/load average/')"
grep -h stackscope "$tmp"/*.err | sort | uniq -c | head -5 || true
