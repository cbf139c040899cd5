#!/usr/bin/env bash
# Where cpu sampling's CPU goes, thread kind by thread kind, measured in a way other load on
# the machine hardly disturbs: each thread's own CPU time (schedstat) rather than the
# process's wall time. FixedWork (bench/overhead.sh's workload) runs without the agent, with
# it at INTERVAL and native=no, and in mixed mode, in interleaved rounds; each thread's CPU at
# its last poll is summed per kind (the main Java thread, the C2 and C1 compilers, the VM
# thread, GC threads, other JVM threads, the agent's writer and its other threads), beside the
# recording's samples per kind. The table gives medians over the rounds, and per kind the
# CPU above the run without the agent divided by that kind's samples: what a sample costs on
# that thread (timer, signal, handler), or for the agent's threads (whose samples column is
# all the run's samples) what they spend per sample. The process row: user + system time of
# the whole process, threads that ended before the last poll included.
# BASE=DIR adds the same two configs with DIR's agent (lib/libstackscope.so), in the same
# rounds: a before/after measure.
# WORKLOAD="loop 100" (FixedWork's arguments) runs another workload: a short one shows what
# start-up and shutdown cost.
# Usage: bench/thread_kinds.sh [BUILD_DIR]   (env: ROUNDS=5, INTERVAL=1ms, JAVA=java, BASE=,
#        WORKLOAD=work)
set -euo pipefail

build=${1:-build}
rounds=${ROUNDS:-5}
interval=${INTERVAL:-1ms}
base=${BASE:-}
read -ra workload <<<"${WORKLOAD:-work}"
source "$(dirname "$0")/fixedwork_tools.sh"
configs=(none java mixed)
declare -A agent_of=([java]=$agent [mixed]=$agent) native_of=([java]=no [mixed]=yes)
if [[ -n $base ]]; then
  base_agent=$(realpath "$base/lib/libstackscope.so")
  configs+=(base-java base-mixed)
  agent_of+=([base-java]=$base_agent [base-mixed]=$base_agent)
  native_of+=([base-java]=no [base-mixed]=yes)
fi

# The poll waits on a FIFO no one writes to: `sleep` would fork, and its CPU would count in
# the children's times that give the process's total.
mkfifo "$tmp/never"
exec {never}<>"$tmp/never"
pause() { read -rt 0.1 -u "$never" || true; }

# The CPU time (user + system, ms) of this shell's ended children, from the `times` output
# in FILE. `times` itself must run in this shell: a subshell's children start at zero.
children_cpu_ms() {
  awk 'NR == 2 {for (i = 1; i <= 2; i++) {split($i, t, /[ms]/); ms += 60000 * t[1] + 1000 * t[2]}
                printf "%.0f\n", ms}' "$1"
}

# Kind of a thread, from its name (spaces as '_'; the recording's JVM threads have "jvm:" first).
kind_of='function kind(name) {
  sub(/^jvm:/, "", name)
  if (name == "java" || name == "main") return "main"
  if (name ~ /^C2_Compiler/) return "C2"
  if (name ~ /^C1_Compiler/) return "C1"
  if (name == "VM_Thread") return "VM_thread"
  if (name ~ /^(GC_Thread|G1_|ZGC|Z_|Shenandoah)/) return "GC"
  if (name ~ /^stackscope-writ/) return "writer"
  if (name ~ /^stackscope-/) return "agent_other"
  return "other_jvm"
}'

# Runs CONFIG once; appends "CONFIG KIND CPU_MS SAMPLES" lines to $tmp/kinds, one per kind,
# and "CONFIG process CPU_MS SAMPLES" for the whole process.
run_config() {
  local config=$1 options=() before after
  [[ $config == none ]] || options=(-agentpath:"${agent_of[$config]}=event=cpu,interval=$interval,native=${native_of[$config]},file=$tmp/rec.ssr")
  times >"$tmp/times.before"
  "$java" -Xmx256m -XX:+UseSerialGC "${options[@]}" -cp "$jar" io.stackscope.bench.FixedWork "${workload[@]}" \
    >"$tmp/out" 2>"$tmp/err" &
  poll_thread_cpu $! "$tmp/threads" || { echo "thread_kinds.sh: the JVM failed under $config:" >&2; cat "$tmp/err" >&2; exit 1; }
  times >"$tmp/times.after"
  before=$(children_cpu_ms "$tmp/times.before")
  after=$(children_cpu_ms "$tmp/times.after")
  if [[ $config == none ]]; then : >"$tmp/samples"; else
    "$stackscope" report "$tmp/rec.ssr" --view threads --top 0 |
      awk '$1 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ {name = $4; for (i = 5; i <= NF; i++) name = name "_" $i; print name, $1}' \
      >"$tmp/samples"
  fi
  awk -v config="$config" -v process=$((after - before)) "$kind_of"'
    FILENAME ~ /samples$/ {samples[kind($1)] += $2; total_samples += $2; next}
    {cpu[kind($2)] += $3 / 1e6}
    END {samples["writer"] = samples["agent_other"] = total_samples  # they work for every sample
         for (k in cpu) printf "%s %s %.1f %d\n", config, k, cpu[k], samples[k]
         printf "%s process %d %d\n", config, process, total_samples}' "$tmp/samples" "$tmp/threads" >>"$tmp/kinds"
}

echo "jdk:     $("$java" -version 2>&1 | head -1); interval $interval; FixedWork ${workload[*]}; $rounds rounds"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) at the start"
for ((round = 1; round <= rounds; round++)); do
  order=("${configs[@]}")
  # Odd rounds in reverse order: no config always runs first.
  ((round % 2 == 0)) || for ((i = ${#configs[@]} - 1, j = 0; i >= 0; i--, j++)); do order[j]=${configs[i]}; done
  for config in "${order[@]}"; do run_config "$config"; done
  echo "round $round/$rounds done" >&2
done

# Per kind and config: median CPU ms, median samples, and (median CPU - median CPU without the
# agent) / median samples in µs. The process row's per-sample figure is over all samples.
printf '%-12s %-11s %10s %9s %14s\n' kind config cpu_ms samples us_per_sample
sort -k2,2 -k1,1 "$tmp/kinds" | awk -v order="${configs[*]}" '
  function median(list,   n, v, i, j, t) {
    n = split(list, v, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) {t = v[j]; v[j] = v[j - 1]; v[j - 1] = t}
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  {cpu[$2, $1] = cpu[$2, $1] " " $3; samples[$2, $1] = samples[$2, $1] " " $4; kinds[$2] = 1}
  END {
    n = split(order, configs, " ")
    for (k in kinds) {
      base = ((k, "none") in cpu) ? median(cpu[k, "none"]) : 0
      for (c = 1; c <= n; c++) {
        if (!((k, configs[c]) in cpu)) continue
        ms = median(cpu[k, configs[c]]); s = median(samples[k, configs[c]])
        printf "%-12s %-11s %10.1f %9d %14s\n", k, configs[c], ms, s,
               configs[c] == "none" || s == 0 ? "-" : sprintf("%.1f", 1000 * (ms - base) / s)
      }
    }
  }' | sort -s -k1,1
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) at the end"
