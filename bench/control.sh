#!/usr/bin/env bash
# What the control server costs a JVM (docs/protocol.md), side by side in one run:
#   1. an idle connected client: bench/java FixedWork (fixed work) with the agent at cpu@1ms
#      and control=0, without a client and with one `stackscope connect PID` prompt connected
#      (authenticated, sending nothing), in interleaved pairs; median ratio of the process's
#      CPU time and of the work's wall time;
#   2. streaming: the same with a `stackscope connect PID stream` client from the start:
#      the ratio, and the events (samples) per second that reached the client, checked equal
#      to the recording byte for byte;
#   3. catch-up: a recording of bench/java IdleCrowd (IDLE=500 parked threads and one busy,
#      wall mode at 10 ms: 50 000 samples/s) stopped after CATCHUP_S=10 s, then streamed whole
#      by a client that connects only then: its samples and bytes over the client's wall time
#      (connecting included), what the stream delivers when it need not wait for the writer.
# Usage: bench/control.sh [BUILD_DIR]   (env: PAIRS=5 (0: part 3 only), JAVA=java, REPEATS=30, CATCHUP_S=10)
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
source "$(dirname "$0")/rounds_stats.sh"

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
if ((pairs > 0)); then  # PAIRS=0: the catch-up alone
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
fi

# 3. Catch-up.
javac=$(dirname "$(realpath "$java")")/javac
"$javac" --release 17 -d "$tmp/classes" "$(dirname "$0")/java/src/io/stackscope/bench/IdleCrowd.java"
"$java" -Xmx512m -Xss256k -XX:+UseSerialGC \
  "-agentpath:$agent=event=wall,interval=10ms,control=0,file=$tmp/crowd.ssr" \
  -cp "$tmp/classes" io.stackscope.bench.IdleCrowd 500 1 $((${CATCHUP_S:-10} + 60)) >/dev/null 2>"$tmp/crowd.err" &
crowd=$!
until [[ -e /tmp/stackscope-$crowd.address ]]; do sleep 0.05; done
sleep "${CATCHUP_S:-10}"
"$stackscope" connect "$crowd" stop >/dev/null
TIMEFORMAT='%R'
seconds=$( { time "$stackscope" connect "$crowd" stream -o "$tmp/crowd-stream.ssr" >/dev/null; } 2>&1 )
kill "$crowd"
wait "$crowd" 2>/dev/null || true
cmp -s "$tmp/crowd-stream.ssr" "$tmp/crowd.ssr" || { echo "control.sh: the catch-up stream differs from the recording" >&2; exit 1; }
awk -v s="$(samples "$tmp/crowd-stream.ssr")" -v b="$(stat -c %s "$tmp/crowd-stream.ssr")" -v t="$seconds" \
  'BEGIN{printf "catch-up: %d samples, %d bytes streamed whole in %.3f s (client start and connect included): %.0f samples/s, %.1f MB/s\n", s, b, t, s / t, b / t / 1e6}'
echo
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) at the end"
