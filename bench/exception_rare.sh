#!/usr/bin/env bash
# What the exception trace costs a program that rarely throws (issue 9's "a trace costs
# <= 2 % when its events are rare"): bench/java FixedWork (single-threaded CPU work, no
# exceptions of its own) in interleaved rounds of: no agent; the agent with event=gc (the
# exception trace off); event=gc,exception (the default source, exceptions created); and
# event=gc,exception,exception=thrown (JVMTI's Exception event, whose capability changes how
# HotSpot compiles throws). Printed per config: the median over rounds of the work's own
# time (FixedWork's work_ns: start-up and shutdown left out) and of the process CPU (user +
# system), each over the no-agent run of the same round, and the exceptions recorded.
# Usage: bench/exception_rare.sh [BUILD_DIR]   (env: ROUNDS=7, REPEATS=10, JAVA=java)
set -euo pipefail

build=${1:-build}
rounds=${ROUNDS:-7}
repeats=${REPEATS:-10}
source "$(dirname "$0")/fixedwork_tools.sh"

configs=(off created thrown)
declare -A events=([off]=gc [created]=gc,exception [thrown]=gc,exception,exception=thrown)

run() {  # CONFIG: prints "WORK_NS CPU_S"
  local agent_option=() TIMEFORMAT='%U %S' times
  [[ $1 != none ]] && agent_option=("-agentpath:$agent=event=${events[$1]},file=$tmp/$1.ssr")
  times=$( { time "$java" -Xmx256m -XX:+UseSerialGC "${agent_option[@]}" -cp "$jar" io.stackscope.bench.FixedWork \
             work "$repeats" >"$tmp/out" 2>"$tmp/err"; } 2>&1 ) ||
    { echo "exception_rare.sh: FixedWork failed under $1:" >&2; cat "$tmp/err" >&2; exit 1; }
  awk -v t="$times" '$1 == "work_ns" {w = $2} END {split(t, a, " "); printf "%s %.3f\n", w, a[1] + a[2]}' "$tmp/out"
}

source "$(dirname "$0")/rounds_stats.sh"

echo "java: $("$java" -version 2>&1 | head -1); rounds: $rounds; FixedWork work $repeats"
declare -A work_ratio=() cpu_ratio=()
for ((r = 0; r < rounds; ++r)); do
  read -r work0 cpu0 < <(run none)
  for config in "${configs[@]}"; do
    read -r work cpu < <(run "$config")
    work_ratio[$config]+="$(awk -v a="$work" -v b="$work0" 'BEGIN{print a / b}') "
    cpu_ratio[$config]+="$(awk -v a="$cpu" -v b="$cpu0" 'BEGIN{print a / b}') "
  done
done
for config in "${configs[@]}"; do
  recorded=$("$stackscope" info "$tmp/$config.ssr" --json | awk '$1 == "\"exception\":" {gsub(/[^0-9]/, "", $2); n = $2} END{print n + 0}')
  printf '%-8s work x%s  cpu x%s  exceptions %s  (work ratios: %s)\n' "$config" \
    "$(tr ' ' '\n' <<<"${work_ratio[$config]}" | grep . | median)" \
    "$(tr ' ' '\n' <<<"${cpu_ratio[$config]}" | grep . | median)" "$recorded" "${work_ratio[$config]}"
done
