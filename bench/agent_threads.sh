#!/usr/bin/env bash
# What the agent's own threads cost per sample, measured in a way other load on the machine
# hardly disturbs: the CPU time (utime + stime, /proc/PID/task/TID/stat) of each `stackscope-*`
# thread of a JVM running FixedWork's tight loop with the agent, divided by the samples the
# recording holds. The signal handler runs on the sampled thread, not here: see
# docs/benchmarks.md for its cost from `perf record`.
# Usage: bench/agent_threads.sh [BUILD_DIR]   (env: RUNS=3, LOOP_MS=8000, OPTIONS=event=cpu,interval=1ms,
#        JAVA=java)
set -euo pipefail

build=${1:-build}
runs=${RUNS:-3}
loop_ms=${LOOP_MS:-8000}
options=${OPTIONS:-event=cpu,interval=1ms}
source "$(dirname "$0")/fixedwork_tools.sh"
echo "jdk:     $("$java" -version 2>&1 | head -1); agent options: $options; loop: $loop_ms ms"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) at the start"
printf '%-4s %-20s %10s %9s %14s\n' run thread cpu_ms samples us_per_sample
for ((run = 1; run <= runs; run++)); do
  "$java" -Xmx256m -XX:+UseSerialGC -agentpath:"$agent=$options,file=$tmp/rec.ssr" \
    -cp "$jar" io.stackscope.bench.FixedWork loop "$loop_ms" >"$tmp/out" 2>"$tmp/err" &
  poll_thread_cpu $! "$tmp/threads" || { echo "agent_threads.sh: the JVM failed:" >&2; cat "$tmp/err" >&2; exit 1; }
  samples=$("$stackscope" report "$tmp/rec.ssr" --json | tr -d ' \n' | grep -o '"samples":[0-9]*' |
              head -1 | cut -d: -f2)
  awk -v run="$run" -v samples="$samples" \
    '$2 ~ /^stackscope-/ {ms = $3 / 1e6; printf "%-4s %-20s %10.1f %9d %14.1f\n", run, $2, ms, samples,
      samples ? 1000 * ms / samples : 0}' "$tmp/threads"
done
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) at the end"
