#!/usr/bin/env bash
# Measures, in one run, what thread annotations and the collection-time filter cost:
#   1. overhead: wall time of bench/java AnnotatedBusy (16 busy threads, one annotated as
#      user u1, the others as other users) with the agent in wall mode at 1 ms, without and
#      with filter=user:u1, each over a run without the agent, in interleaved rounds (the
#      order alternates); median ratio of the work phase over the rounds, and the same for
#      the process's CPU time; samples taken and lost in each agent run;
#   2. the cost of Stackscope.annotate/enter in ns per call (bench/java AnnotateCost: warm-up,
#      then the best of 5 timed runs of CALLS calls) without the agent, with it, and with it
#      and filter=user:u1.
# Usage: bench/annotation.sh [BUILD_DIR]
#   env: PAIRS=5, JAVA=java, THREADS=16, ROUNDS=40 (work per thread), CALLS=1000000
# Needs bash, awk and coreutils only; run on an otherwise idle machine.
set -euo pipefail

build=${1:-build}
pairs=${PAIRS:-5}
threads=${THREADS:-16}
rounds=${ROUNDS:-40}
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

# Runs AnnotatedBusy under CONFIG; prints "WORK_NS CPU_NS".
busy() {
  # shellcheck disable=SC2046 # config_options prints zero or one word
  "$java" -Xmx256m -XX:+UseSerialGC $(config_options "$1") -cp "$cp" io.stackscope.bench.AnnotatedBusy \
    "$threads" "$rounds" | awk '/^work_ns /{w=$2} /^cpu_ns /{c=$2} END{print w, c}'
}

source "$(dirname "$0")/rounds_stats.sh"
# "TAKEN LOST" of the recording of CONFIG (its last run).
samples() {
  "$stackscope" report "$tmp/$1.ssr" --json | tr -d ' \n' |
    awk '{match($0, /"samples":[0-9]+/); t = substr($0, RSTART + 10, RLENGTH - 10)
          match($0, /"lost_total":[0-9]+/); l = substr($0, RSTART + 13, RLENGTH - 13); print t, l}'
}

echo "machine: $(nproc) cores, $(awk -F': ' '/model name/{print $2; exit}' /proc/cpuinfo)"
echo "jdk:     $("$java" -version 2>&1 | head -1)"
echo

# 1. Overhead, interleaved: each round runs the three configs, in reverse order every other
#    round, and divides each agent run by that round's run without.
for ((round = 1; round <= pairs; round++)); do
  order=(none wall filter)
  ((round % 2 == 0)) && order=(filter wall none)
  for config in "${order[@]}"; do busy "$config" >"$tmp/time.$config"; done
  read -r base_work base_cpu <"$tmp/time.none"
  for config in wall filter; do
    read -r work cpu <"$tmp/time.$config"
    awk -v w="$work" -v bw="$base_work" -v c="$cpu" -v bc="$base_cpu" \
      'BEGIN{printf "%.4f %.4f\n", w / bw, c / bc}' >>"$tmp/ratios.$config"
    samples "$config" >>"$tmp/samples.$config"
  done
  echo "round $round/$pairs: work phase without agent $((base_work / 1000000)) ms," \
       "wall $(($(cut -d' ' -f1 "$tmp/time.wall") / 1000000)) ms," \
       "wall+filter $(($(cut -d' ' -f1 "$tmp/time.filter") / 1000000)) ms" >&2
done
printf '%d busy threads, one annotated user u1; wall mode at 1 ms\n' "$threads"
printf 'Overhead: median [min..max] over %d interleaved rounds of with / without agent\n' "$pairs"
printf '%-28s %24s %24s %16s\n' config "work-phase wall time" "process CPU time" "samples (lost)"
for config in wall filter; do
  name=$([[ $config == wall ]] && echo "wall@1ms, no filter" || echo "wall@1ms, filter=user:u1")
  range() { cut -d' ' -f"$1" "$tmp/ratios.$config" | sort -g |
              awk '{v[NR]=$1} END{m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2; printf "%.3f [%.3f..%.3f]", m, v[1], v[NR]}'; }
  printf '%-28s %24s %24s %16s\n' "$name" "$(range 1)" "$(range 2)" \
    "$(cut -d' ' -f1 "$tmp/samples.$config" | median) ($(cut -d' ' -f2 "$tmp/samples.$config" | median))"
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
