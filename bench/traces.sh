#!/usr/bin/env bash
# Measures, in one run, what the gc, exception and lock traces cost a JVM, side by side with
# JFR's equivalent events (jdk.GarbageCollection, jdk.JavaExceptionThrow: bench/traces.jfc;
# jdk.JavaMonitorEnter, jdk.ThreadPark, jdk.JavaMonitorWait at 1 ms: bench/locks.jfc; nothing
# else), on fixed work from the test workloads:
#   gc:        ForcedGcs N (N full collections, Serial, -XX:-ExplicitGCInvokesConcurrent)
#   exception: Throws N 3  (N + N/2 caught exceptions and 3 uncaught)
#   lock:      LockContention 4 N (4 threads, N iterations each on a contended monitor and
#              ReentrantLock, every 2000th holding it 2 ms: most waits under the 1 ms threshold)
# For each workload, configs run in interleaved rounds: no agent, the agent with the trace,
# the agent with only the other trace (this one off), JFR with the event; for exception also
# the agent's exception=thrown source ("thrown"; "on" is the default, created). Printed: the
# median over rounds of each config's process CPU (user + system) and wall time over the
# no-agent run of the same round, the events each recorded, and bytes per event at the
# margin ((size at N - size at N/5) / (events at N - events at N/5)).
# Usage: bench/traces.sh [BUILD_DIR]
#   (env: ROUNDS=7, JAVA=java, GCS=300, THROWS=200000, LOCKS=200000, TRACES="gc exception lock")
set -euo pipefail

build=${1:-build}
rounds=${ROUNDS:-7}
gcs=${GCS:-300}
throws=${THROWS:-200000}
locks=${LOCKS:-200000}
traces=${TRACES:-gc exception lock}
java=$(command -v "${JAVA:-java}")
jfr_tool=$(dirname "$(realpath "$java")")/jfr
here=$(cd "$(dirname "$0")" && pwd)
agent=$(realpath "$build/lib/libstackscope.so")
stackscope=$build/bin/stackscope
jar=$build/tests/java/stackscope_workloads.jar
for needed in "$agent" "$stackscope" "$jar" "$jfr_tool"; do
  [[ -e $needed ]] || { echo "traces.sh: $needed is missing (build first)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# JVM options of CONFIG (none, on, thrown, off, jfr) for TRACE (gc, exception, lock), recording to $tmp.
config_options() {
  local other=exception settings=traces.jfc
  [[ $2 == exception ]] && other=gc
  [[ $2 == lock ]] && settings=locks.jfc
  case $1 in
    none) ;;
    on) echo "-agentpath:$agent=event=$2,file=$tmp/$2-on.ssr" ;;
    thrown) echo "-agentpath:$agent=event=$2,exception=thrown,file=$tmp/$2-thrown.ssr" ;;
    off) echo "-agentpath:$agent=event=$other,file=$tmp/$2-off.ssr" ;;
    jfr) echo "-XX:StartFlightRecording:settings=$here/$settings,filename=$tmp/$2-jfr.jfr" ;;
  esac
}

workload() {  # TRACE SCALE(1 or 5): the main class and its arguments
  case $1 in
    gc) echo "io.stackscope.workloads.ForcedGcs $((gcs / $2))" ;;
    exception) echo "io.stackscope.workloads.Throws $((throws / $2)) 3" ;;
    lock) echo "io.stackscope.workloads.LockContention 4 $((locks / $2))" ;;
  esac
}

run() {  # CONFIG TRACE SCALE: prints "WALL_S CPU_S"
  local TIMEFORMAT='%R %U %S' times
  # shellcheck disable=SC2046
  times=$( { time "$java" -Xmx64m -XX:+UseSerialGC -XX:-ExplicitGCInvokesConcurrent $(config_options "$1" "$2") \
             -cp "$jar" $(workload "$2" "$3") >"$tmp/out" 2>"$tmp/err"; } 2>&1 ) ||
    { echo "traces.sh: $2 workload failed under $1:" >&2; cat "$tmp/err" >&2; exit 1; }
  awk -v t="$times" 'BEGIN{split(t, a, " "); printf "%s %.3f\n", a[1], a[2] + a[3]}'
}

source "$(dirname "$0")/rounds_stats.sh"

events() {  # CONFIG TRACE: the events of the trace in that config's last recording
  case $1 in
    # The record count in info's "records" object (pretty-printed: one "name": N a line).
    on|thrown|off) "$stackscope" info "$tmp/$2-$1.ssr" --json |
              awk -v k="\"$2\":" '$1 == k {gsub(/[^0-9]/, "", $2); n = $2} END{print n + 0}' ;;
    jfr) local e=jdk.GarbageCollection
         [[ $2 == exception ]] && e=jdk.JavaExceptionThrow
         [[ $2 == lock ]] && e='jdk.JavaMonitorEnter|jdk.ThreadPark|jdk.JavaMonitorWait'
         "$jfr_tool" summary "$tmp/$2-jfr.jfr" | awk -v e="^($e)\$" '$1 ~ e {n += $2} END{print n + 0}' ;;
  esac
}
size() { case $1 in on|thrown|off) stat -c %s "$tmp/$2-$1.ssr" ;; jfr) stat -c %s "$tmp/$2-jfr.jfr" ;; esac; }

echo "java: $("$java" -version 2>&1 | head -1); rounds: $rounds; gc: ForcedGcs $gcs; exception: Throws $throws;" \
     "lock: LockContention 4 $locks"
for trace in $traces; do
  configs="on off jfr"
  [[ $trace == exception ]] && configs="on thrown off jfr"
  declare -A cpu_ratio=() wall_ratio=()
  for ((r = 0; r < rounds; ++r)); do
    read -r wall0 cpu0 < <(run none "$trace" 1)
    for config in $configs; do
      read -r wall cpu < <(run "$config" "$trace" 1)
      cpu_ratio[$config]+="$(awk -v a="$cpu" -v b="$cpu0" 'BEGIN{print a / b}') "
      wall_ratio[$config]+="$(awk -v a="$wall" -v b="$wall0" 'BEGIN{print a / b}') "
    done
  done
  for config in $configs; do
    n_big=$(events "$config" "$trace"); s_big=$(size "$config" "$trace")
    run "$config" "$trace" 5 >/dev/null
    n_small=$(events "$config" "$trace"); s_small=$(size "$config" "$trace")
    per_event=$(awk -v a="$s_big" -v b="$s_small" -v n="$n_big" -v m="$n_small" \
                'BEGIN{print (n > m) ? sprintf("%.1f", (a - b) / (n - m)) : "-"}')
    printf '%-9s %-6s cpu x%s  wall x%s  events %s  bytes/event %s\n' "$trace" "$config" \
      "$(tr ' ' '\n' <<<"${cpu_ratio[$config]}" | grep . | median)" \
      "$(tr ' ' '\n' <<<"${wall_ratio[$config]}" | grep . | median)" "$n_big" "$per_event"
  done
  unset cpu_ratio wall_ratio
done
