#!/usr/bin/env bash
# What the lock trace costs LockContention, told apart at the level of 2 %: many interleaved
# rounds of a few configurations (each round runs every configuration once, in order), the
# process CPU of each run by `perf stat -e task-clock` (CPU used, not time waiting for a CPU).
# Printed per configuration: the median CPU over rounds (ms), its range, the median of the
# per-round ratios to the first configuration (the paired ratio: a round's runs share the
# machine's load of that moment) with its 95 % confidence interval, and the ratio of medians.
# A single contended run spreads by several per cent (how long threads spin depends on
# scheduling); the medians of 11+ rounds are what can separate 2 % from 7 %.
# Usage: bench/lock_rounds.sh 'NAME=[VAR=VALUE ...] JVM OPTIONS' ... (the first is the reference,
#   e.g. none=; VAR=VALUE words before the options go to the JVM's environment)
#   e.g. bench/lock_rounds.sh none= off=-agentpath:build/lib/libstackscope.so=event=gc,file=/tmp/o.ssr \
#          on=-agentpath:build/lib/libstackscope.so=event=lock,file=/tmp/l.ssr
#   (env: ROUNDS=11, JAVA=java, LOCKS=2000000, JAR=build/tests/java/stackscope_workloads.jar,
#   WORKLOAD='io.stackscope.workloads.LockContention 4 $LOCKS': another main class and its
#   arguments on JAR, e.g. JAR=build/bench/fixedwork.jar WORKLOAD='io.stackscope.bench.AllocHeavy 40'
#   for the alloc trace's cost per sample, with HEAP=256m (default 64m) as bench/alloc.sh runs it)
set -euo pipefail

rounds=${ROUNDS:-11}
locks=${LOCKS:-2000000}
java=$(command -v "${JAVA:-java}")
jar=${JAR:-build/tests/java/stackscope_workloads.jar}
workload=${WORKLOAD:-io.stackscope.workloads.LockContention 4 $locks}
heap=${HEAP:-64m}
[[ -e $jar ]] || { echo "lock_rounds.sh: $jar is missing (build first)" >&2; exit 1; }
(($# >= 2)) || { echo "usage: lock_rounds.sh NAME=OPTIONS NAME=OPTIONS ..." >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

names=() options=()
for config in "$@"; do
  names+=("${config%%=*}")
  options+=("${config#*=}")
done

run() {  # OPTIONS: prints the run's task-clock in ms
  local environment=() jvm=() word
  # shellcheck disable=SC2086
  for word in $1; do
    if [[ ${#jvm[@]} == 0 && $word != -* && $word == *=* ]]; then environment+=("$word"); else jvm+=("$word"); fi
  done
  # shellcheck disable=SC2086  # $workload: a main class and its arguments, split
  perf stat -x, -e task-clock -o "$tmp/stat" env "${environment[@]}" \
    "$java" -Xmx"$heap" -XX:+UseSerialGC "${jvm[@]}" -cp "$jar" $workload \
    >"$tmp/out" 2>"$tmp/err" || { echo "lock_rounds.sh: failed with '$1':" >&2; cat "$tmp/err" >&2; exit 1; }
  awk -F, '$3 == "task-clock" {printf "%.1f\n", $1}' "$tmp/stat"
}

source "$(dirname "$0")/rounds_stats.sh"

echo "java: $("$java" -version 2>&1 | head -1); rounds: $rounds; $workload; $(uptime)"
for ((r = 0; r < rounds; ++r)); do
  for i in "${!names[@]}"; do
    ms=$(run "${options[$i]}")
    echo "$ms" >>"$tmp/cpu-$i"
    [[ $i == 0 ]] && reference=$ms
    awk -v a="$ms" -v b="$reference" 'BEGIN{print a / b}' >>"$tmp/ratio-$i"
  done
done
reference_median=$(median <"$tmp/cpu-0")
for i in "${!names[@]}"; do
  printf '%-12s cpu %8s ms (%s-%s)  paired x%.3f (95%%: %s)  medians x%.3f\n' "${names[$i]}" \
    "$(median <"$tmp/cpu-$i")" "$(sort -g "$tmp/cpu-$i" | head -1)" "$(sort -g "$tmp/cpu-$i" | tail -1)" \
    "$(median <"$tmp/ratio-$i")" "$(median_interval <"$tmp/ratio-$i")" \
    "$(awk -v a="$(median <"$tmp/cpu-$i")" -v b="$reference_median" 'BEGIN{print a / b}')"
done
echo "end: $(uptime)"
