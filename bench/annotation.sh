#!/usr/bin/env bash
# Measures, in one run, what thread annotations and the collection-time filter cost:
#   1. overhead: wall time of bench/java AnnotatedBusy (16 busy threads, one annotated as
#      user u1, the others as other users) with the agent in wall mode at 1 ms, without and
#      with filter=user:u1, each over a run without the agent, in interleaved rounds (the
#      order alternates); median ratio of the work phase over the rounds;
#   2. the cost of Stackscope.annotate/enter in ns per call (bench/java AnnotateCost: warm-up,
#      then the best of 5 timed runs of CALLS calls) without the agent, with it, and with it
#      and filter=user:u1.
# Usage: bench/annotation.sh [BUILD_DIR]   (env: PAIRS=5, JAVA=java, THREADS=16, CALLS=1000000)
# Needs bash, awk and coreutils only; run on an otherwise idle machine.
set -euo pipefail

build=${1:-build}
pairs=${PAIRS:-5}
threads=${THREADS:-16}
calls=${CALLS:-1000000}
java=$(command -v "${JAVA:-java}")
javac=$(dirname "$(realpath "$java")")/javac
agent=$(realpath "$build/lib/libstackscope.so")
api_jar=$(realpath "$build/lib/stackscope.jar")
stackscope=$build/bin/stackscope
src=$(dirname "$0")/java/src/io/stackscope/bench
for needed in "$agent" "$api_jar" "$stackscope" "$javac"; do
  [[ -e $needed ]] || { echo "annotation.sh: $needed is missing (build first)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$javac" --release 17 -cp "$api_jar" -d "$tmp/classes" "$src/AnnotatedBusy.java" "$src/AnnotateCost.java"
cp="$tmp/classes:$api_jar"

# The JVM options that turn a config on, recording to $tmp/CONFIG.ssr.
config_options() {
  case $1 in
    none) ;;
    wall) echo "-agentpath:$agent=event=wall,interval=1ms,file=$tmp/wall.ssr" ;;
    filter) echo "-agentpath:$agent=event=wall,interval=1ms,filter=user:u1,file=$tmp/filter.ssr" ;;
    cpu) echo "-agentpath:$agent=event=cpu,interval=10ms,file=$tmp/cpu.ssr" ;;
    cpufilter) echo "-agentpath:$agent=event=cpu,interval=10ms,filter=user:u1,file=$tmp/cpufilter.ssr" ;;
  esac
}

# Runs AnnotatedBusy under CONFIG; prints its work_ns.
busy() {
  # shellcheck disable=SC2046 # config_options prints zero or one word
  "$java" -Xmx256m -XX:+UseSerialGC $(config_options "$1") -cp "$cp" io.stackscope.bench.AnnotatedBusy \
    "$threads" | awk '/^work_ns /{print $2}'
}

median() { sort -g | awk '{v[NR]=$1} END{print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
samples() { "$stackscope" report "$tmp/$1.ssr" --json | tr -d ' \n' | grep -o '"samples":[0-9]*' | head -1 | cut -d: -f2; }

echo "machine: $(nproc) cores, $(awk -F': ' '/model name/{print $2; exit}' /proc/cpuinfo)"
echo "jdk:     $("$java" -version 2>&1 | head -1)"
echo

# 1. Overhead, interleaved: each round runs the three configs, in reverse order every other
#    round, and divides each agent run by that round's run without.
for ((round = 1; round <= pairs; round++)); do
  order=(none wall filter)
  ((round % 2 == 0)) && order=(filter wall none)
  for config in "${order[@]}"; do busy "$config" >"$tmp/time.$config"; done
  base=$(cat "$tmp/time.none")
  for config in wall filter; do
    awk -v w="$(cat "$tmp/time.$config")" -v b="$base" 'BEGIN{printf "%.4f\n", w / b}' >>"$tmp/ratios.$config"
  done
  echo "round $round/$pairs: without agent $((base / 1000000)) ms, wall $(($(cat "$tmp/time.wall") / 1000000)) ms," \
       "wall+filter $(($(cat "$tmp/time.filter") / 1000000)) ms" >&2
done
printf '%d busy threads, one annotated user u1; wall mode at 1 ms\n' "$threads"
printf 'Overhead: median over %d interleaved rounds of work-phase wall time with / without agent\n' "$pairs"
printf '%-32s %8s %10s %10s\n' config median min max
for config in wall filter; do
  name=$([[ $config == wall ]] && echo "wall@1ms, no filter" || echo "wall@1ms, filter=user:u1")
  printf '%-32s %8.3f %10.3f %10.3f   (%s samples in the last run)\n' "$name" \
    "$(median <"$tmp/ratios.$config")" "$(sort -g "$tmp/ratios.$config" | head -1)" \
    "$(sort -g "$tmp/ratios.$config" | tail -1)" "$(samples "$config")"
done
echo

# 2. Cost per call.
printf 'Stackscope calls, ns per call (best of 5 runs of %d calls after warm-up)\n' "$calls"
printf '%-36s %10s %10s %10s %10s\n' config same alternate scope flip
for config in none cpu cpufilter; do
  case $config in
    none) name="no agent" ;;
    cpu) name="agent (cpu@10ms)" ;;
    cpufilter) name="agent (cpu@10ms), filter=user:u1" ;;
  esac
  # shellcheck disable=SC2046
  "$java" -Xmx256m -XX:+UseSerialGC $(config_options "$config") -cp "$cp" io.stackscope.bench.AnnotateCost \
    "$calls" >"$tmp/cost.$config"
  awk -v name="$name" '/^case /{v[$2]=$3} END{printf "%-36s %10s %10s %10s %10s\n", name, v["same"],
       v["alternate"], v["scope"], v["flip"]}' "$tmp/cost.$config"
done
