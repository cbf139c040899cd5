#!/usr/bin/env bash
# What the control server costs a JVM (docs/protocol.md), side by side in one run:
#   1. an idle connected client: bench/java FixedWork (fixed work) with the agent at cpu@1ms
#      and control=0, without a client and with one `stackscope connect PID` prompt connected
#      (authenticated, sending nothing), in interleaved pairs; median ratio of the process's
#      CPU time and of the work's wall time;
#   2. streaming: the same with a `stackscope connect PID stream` client from the start:
#      the ratio, and the events (samples) per second that reached the client, checked equal
#      to the recording byte for byte.
# Usage: bench/control.sh [BUILD_DIR]   (env: PAIRS=5, JAVA=java, REPEATS=30)
set -euo pipefail

build=${1:-build}
pairs=${PAIRS:-5}
repeats=${REPEATS:-30}
java=$(command -v "${JAVA:-java}")
agent=$(realpath "$build/lib/libstackscope.so")
stackscope=$(realpath "$build/bin/stackscope")
jar=$build/bench/fixedwork.jar
for needed in "$agent" "$stackscope" "$jar"; do
  [[ -e $needed ]] || { echo "control.sh: $needed is missing (build first)" >&2; exit 1; }
done
tmp=$(mktemp -d)
client=
trap '[[ -n $client ]] && kill "$client" 2>/dev/null; rm -rf "$tmp"' EXIT

# Runs FixedWork with the control server under CONFIG (alone, idle, stream); prints
# "CPU_S WORK_NS": the process's CPU time (user + system, from bash's time) and the work's
# wall time as FixedWork prints it. The client connects as soon as the control files exist.
run() {
  local config=$1 TIMEFORMAT='%U %S' times pid
  rm -f "$tmp/pid" "$tmp/run.ssr" "$tmp/stream.ssr"
  if [[ $config != alone ]]; then
    (
      until [[ -s $tmp/pid ]] && pid=$(cat "$tmp/pid") && [[ -e /tmp/stackscope-$pid.address ]]; do sleep 0.01; done
      if [[ $config == idle ]]; then
        exec > /dev/null 2>&1 < <(sleep 3600)  # the prompt waits for a line that never comes
        exec "$stackscope" connect "$pid"
      else
        exec "$stackscope" connect "$pid" stream -o "$tmp/stream.ssr" > /dev/null
      fi
    ) &
    client=$!
  fi
  times=$( { time bash -c 'echo $$ > "$0"; exec "$@"' "$tmp/pid" "$java" -Xmx256m -XX:+UseSerialGC \
             "-agentpath:$agent=event=cpu,interval=1ms,control=0,file=$tmp/run.ssr" \
             -cp "$jar" io.stackscope.bench.FixedWork work "$repeats" >"$tmp/out" 2>"$tmp/err"; } 2>&1 ) ||
    { echo "control.sh: FixedWork failed under $config:" >&2; cat "$tmp/err" >&2; exit 1; }
  if [[ -n $client ]]; then
    [[ $config == stream ]] && wait "$client" || kill "$client" 2>/dev/null || true  # a stream ends with the JVM
    wait "$client" 2>/dev/null || true
    client=
  fi
  awk -v times="$times" '/^work_ns /{w=$2} END{split(times, t, " "); printf "%.3f %.0f\n", t[1] + t[2], w}' "$tmp/out"
}

samples() { "$stackscope" info "$1" --json | tr -d ' \n' | grep -o '"sample":[0-9]*' | head -1 | cut -d: -f2; }
median() { sort -g | awk '{v[NR]=$1} END{print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

echo "machine: $(nproc) cores, $(awk -F': ' '/model name/{print $2; exit}' /proc/cpuinfo)"
echo "jdk:     $("$java" -version 2>&1 | head -1)"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min averages) at the start"
echo

for ((round = 1; round <= pairs; round++)); do
  order=(alone idle stream)
  ((round % 2 == 0)) || order=(stream idle alone)
  for config in "${order[@]}"; do
    run "$config" >"$tmp/time.$config"
    if [[ $config == stream ]]; then
      cmp -s "$tmp/stream.ssr" "$tmp/run.ssr" || { echo "control.sh: the stream differs from the recording" >&2; exit 1; }
      read -r _ work <"$tmp/time.stream"
      echo "$(samples "$tmp/stream.ssr") $work $(stat -c %s "$tmp/stream.ssr")" >>"$tmp/streamed"
    fi
  done
  read -r base_cpu base_work <"$tmp/time.alone"
  for config in idle stream; do
    read -r cpu work <"$tmp/time.$config"
    awk -v c=$cpu -v bc=$base_cpu -v w=$work -v bw=$base_work 'BEGIN{printf "%.5f %.5f\n", c / bc, w / bw}' \
      >>"$tmp/ratios.$config"
  done
  echo "round $round/$pairs: alone CPU ${base_cpu}s, work $((base_work / 1000000)) ms" >&2
done

summary() {
  local values
  values=$(cut -d' ' -f"$2" "$tmp/ratios.$1" | sort -g)
  printf '%.4f (%.3f-%.3f)' "$(median <<<"$values")" "$(head -1 <<<"$values")" "$(tail -1 <<<"$values")"
}
printf 'With a client / without, median (min-max) over %d interleaved rounds, agent cpu@1ms\n' "$pairs"
printf '%-28s %-24s %-24s\n' client "process, CPU" "work phase, wall"
printf '%-28s %-24s %-24s\n' "one idle connected client" "$(summary idle 1)" "$(summary idle 2)"
printf '%-28s %-24s %-24s\n' "one streaming client" "$(summary stream 1)" "$(summary stream 2)"
echo
# Events per second through the stream: the samples the client received over the work's wall
# time (the stream carries what the agent records, at the rate it records it).
awk '{printf "stream: %d samples, %d bytes over %.2f s of work: %.0f samples/s\n", $1, $3, $2 / 1e9, $1 / ($2 / 1e9)}' \
  "$tmp/streamed"
echo
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) at the end"
