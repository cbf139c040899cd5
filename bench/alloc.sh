#!/usr/bin/env bash
# Measures, in one run, what the alloc trace costs a JVM, side by side with JFR's allocation
# sampling (jdk.ObjectAllocationSample alone, throttle 300/s as in JFR's profile settings:
# bench/alloc.jfc), on fixed allocation-heavy work (bench/java AllocHeavy). Configs run in
# interleaved pairs with a run without agent: the agent with event=alloc at 512k (the
# default), the agent with event=live at 512k, the agent with event=cpu only (the trace off),
# and JFR. Printed: the median over pairs of each config's process CPU (user + system) and
# wall time over the no-agent run of its pair, the events it recorded, and bytes per event at
# the margin ((size at ROUNDS_OF_WORK - size at a fifth of it) / their event difference).
# Usage: bench/alloc.sh [BUILD_DIR]   (env: PAIRS=7, JAVA=java, WORK=40 rounds of AllocHeavy)
set -euo pipefail

build=${1:-build}
pairs=${PAIRS:-7}
work=${WORK:-40}
java=$(command -v "${JAVA:-java}")
jfr_tool=$(dirname "$(realpath "$java")")/jfr
here=$(cd "$(dirname "$0")" && pwd)
agent=$(realpath "$build/lib/libstackscope.so")
stackscope=$build/bin/stackscope
jar=$build/bench/fixedwork.jar
for needed in "$agent" "$stackscope" "$jar" "$jfr_tool"; do
  [[ -e $needed ]] || { echo "alloc.sh: $needed is missing (build first)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

configs=(alloc live off jfr)
declare -A label=([alloc]="stackscope event=alloc,alloc=512k" [live]="stackscope event=live,alloc=512k"
                  [off]="stackscope event=cpu (alloc off)" [jfr]="JFR jdk.ObjectAllocationSample 300/s")

config_options() {
  case $1 in
    none) ;;
    alloc) echo "-agentpath:$agent=event=alloc,alloc=512k,file=$tmp/alloc.ssr" ;;
    live) echo "-agentpath:$agent=event=live,alloc=512k,file=$tmp/live.ssr" ;;
    off) echo "-agentpath:$agent=event=cpu,file=$tmp/off.ssr" ;;
    jfr) echo "-XX:StartFlightRecording:settings=$here/alloc.jfc,filename=$tmp/jfr.jfr" ;;
  esac
}

run() {  # CONFIG ROUNDS: prints "WALL_S CPU_S"
  local TIMEFORMAT='%R %U %S' times
  # shellcheck disable=SC2046
  times=$( { time "$java" -Xmx256m -XX:+UseSerialGC $(config_options "$1") \
             -cp "$jar" io.stackscope.bench.AllocHeavy "$2" >"$tmp/out" 2>"$tmp/err"; } 2>&1 ) ||
    { echo "alloc.sh: AllocHeavy failed under $1:" >&2; cat "$tmp/err" >&2; exit 1; }
  awk -v t="$times" 'BEGIN{split(t, a, " "); printf "%s %.3f\n", a[1], a[2] + a[3]}'
}

source "$(dirname "$0")/rounds_stats.sh"

events() {  # CONFIG: the allocation samples in that config's last recording
  case $1 in
    alloc|live|off) "$stackscope" info "$tmp/$1.ssr" --json |
                      awk '$1 == "\"alloc\":" {gsub(/[^0-9]/, "", $2); n = $2} END{print n + 0}' ;;
    jfr) "$jfr_tool" summary "$tmp/jfr.jfr" | awk '$1 == "jdk.ObjectAllocationSample" {print $2}' ;;
  esac
}
size() { case $1 in jfr) stat -c %s "$tmp/jfr.jfr" ;; *) stat -c %s "$tmp/$1.ssr" ;; esac; }

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "java: $("$java" -version 2>&1 | head -1); pairs: $pairs; work: AllocHeavy $work"
declare -A cpu_ratio=() wall_ratio=()
for ((p = 0; p < pairs; ++p)); do
  for config in "${configs[@]}"; do
    read -r wall0 cpu0 < <(run none "$work")
    read -r wall cpu < <(run "$config" "$work")
    cpu_ratio[$config]+="$(awk -v a="$cpu" -v b="$cpu0" 'BEGIN{print a / b}') "
    wall_ratio[$config]+="$(awk -v a="$wall" -v b="$wall0" 'BEGIN{print a / b}') "
  done
done
for config in "${configs[@]}"; do
  run "$config" "$work" >/dev/null
  n_big=$(events "$config"); s_big=$(size "$config")
  run "$config" $((work / 5)) >/dev/null
  n_small=$(events "$config"); s_small=$(size "$config")
  per_event=$(awk -v a="$s_big" -v b="$s_small" -v n="$n_big" -v m="$n_small" \
              'BEGIN{print (n > m) ? sprintf("%.1f", (a - b) / (n - m)) : "-"}')
  printf '%-40s cpu x%s  wall x%s  events %s  bytes/event %s\n' "${label[$config]}" \
    "$(tr ' ' '\n' <<<"${cpu_ratio[$config]}" | grep . | median)" \
    "$(tr ' ' '\n' <<<"${wall_ratio[$config]}" | grep . | median)" "$n_big" "$per_event"
done
