#!/usr/bin/env bash
# Measures, in one run, what cpu sampling costs a JVM, side by side with JDK Flight Recorder:
#   1. overhead: time of bench/java FixedWork with the agent at 10 ms and 1 ms (and at 1 ms with
#      native=no), and with JFR (settings=profile), each over a run without, in interleaved
#      pairs; median ratio;
#   2. samples taken vs due on a tight loop (due = the loop thread's CPU time / interval);
#   3. bytes per sample at the margin: (size of an 8 s loop - size of a 2 s loop) / (their
#      sample difference), which leaves out the fixed cost of headers, maps and start-up.
# Beside part 1, in the same rounds: the platform's floor, bench/signal_floor.c's fixed loop
# under each timer kind the agent may use, at 10 ms and 1 ms, with an empty handler, over a
# run without a timer: what signalling a thread costs before the agent's handler does anything.
# Usage: bench/overhead.sh [BUILD_DIR]   (env: PAIRS=7 (0: parts 2 and 3 only), JAVA=java,
#        FLOOR_ITERATIONS=300000000: the floor's loop, about 1 s of CPU)
# Needs bash, awk and coreutils only; run on an otherwise idle machine.
set -euo pipefail

build=${1:-build}
pairs=${PAIRS:-7}
java=$(command -v "${JAVA:-java}")
jfr_tool=$(dirname "$(realpath "$java")")/jfr
agent=$build/lib/libstackscope.so
stackscope=$build/bin/stackscope
jar=$build/bench/fixedwork.jar
signal_floor=$build/bin/signal_floor
floor_iterations=${FLOOR_ITERATIONS:-300000000}
for needed in "$agent" "$stackscope" "$jar" "$jfr_tool" "$signal_floor"; do
  [[ -e $needed ]] || { echo "overhead.sh: $needed is missing (build first)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

configs=(none cpu10 cpu1 cpu1java jfr)
measured=("${configs[@]:1}")
# cpu1java: mixed mode off (native=no), to tell what sampling the JVM's own threads and walking
# native frames cost beside the Java walk.
declare -A label=([cpu10]="stackscope cpu@10ms" [cpu1]="stackscope cpu@1ms"
                  [cpu1java]="stackscope @1ms native=no" [jfr]="JFR settings=profile")

# The floor's timers: KIND@INTERVAL_US. task-clock-kernel-chain is what mixed mode asks where
# the kernel lets it see kernel stacks (root, perf_event_paranoid <= 1); elsewhere it does not
# open and is left out.
floors=(task-clock@10000 task-clock-kernel-chain@10000 cpu-timer@10000
        task-clock@1000 task-clock-kernel-chain@1000 cpu-timer@1000)
if ! "$signal_floor" task-clock-kernel-chain 1000 1 >/dev/null 2>&1; then
  floors=("${floors[@]/task-clock-kernel-chain@*/}")
  read -ra floors <<<"${floors[*]}"
fi
kernel_chains() { [[ " ${floors[*]} " == *" task-clock-kernel-chain@1000 "* ]]; }
# The floor under each config of ours: the agent's first choice of timer (cpu_sampler.h) at
# its interval, with the kernel chain in mixed mode where it is taken.
declare -A floor_of=([cpu10]=task-clock@10000 [cpu1]=task-clock@1000 [cpu1java]=task-clock@1000)
if kernel_chains; then floor_of[cpu10]=task-clock-kernel-chain@10000 floor_of[cpu1]=task-clock-kernel-chain@1000; fi

# Runs the floor's loop under FLOOR (KIND@INTERVAL_US, or none); prints "CPU_NS SIGNALS".
run_floor() {
  local kind=${1%@*} interval_us=${1#*@}
  [[ $1 == none ]] && interval_us=1000
  "$signal_floor" "$kind" "$interval_us" "$floor_iterations" | awk '{print $2, $4}' ||
    { echo "overhead.sh: signal_floor $1 failed" >&2; exit 1; }
}

# The JVM options that turn a config on, recording to $tmp/CONFIG.
config_options() {
  case $1 in
    none) ;;
    cpu10) echo "-agentpath:$(realpath "$agent")=event=cpu,interval=10ms,file=$tmp/cpu10.ssr" ;;
    cpu1) echo "-agentpath:$(realpath "$agent")=event=cpu,interval=1ms,file=$tmp/cpu1.ssr" ;;
    cpu1java) echo "-agentpath:$(realpath "$agent")=event=cpu,interval=1ms,native=no,file=$tmp/cpu1java.ssr" ;;
    # Without DebugNonSafepoints JDK 17's JFR takes almost no samples in some runs of the tight
    # loop (7 or 9 of ~800 due, seen here): give JFR its best setting, as its users are told to.
    jfr) echo "-XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints" \
              "-XX:StartFlightRecording=settings=profile,filename=$tmp/jfr.jfr" ;;
  esac
}

# Runs FixedWork ARGS under CONFIG; prints "WALL_S CPU_S WORK_NS THREAD_CPU_NS": the
# process's wall and CPU (user + system, all its threads) time from bash's `time`, then what
# the workload printed.
run() {
  local config=$1; shift
  local TIMEFORMAT='%R %U %S' times
  # shellcheck disable=SC2046 # config_options prints words without spaces of their own
  times=$( { time "$java" -Xmx256m -XX:+UseSerialGC $(config_options "$config") \
             -cp "$jar" io.stackscope.bench.FixedWork "$@" >"$tmp/out" 2>"$tmp/err"; } 2>&1 ) ||
    { echo "overhead.sh: FixedWork $* failed under $config:" >&2; cat "$tmp/err" >&2; exit 1; }
  awk -v times="$times" '/^work_ns /{w=$2} /^cpu_ns /{c=$2}
    END{split(times, t, " "); printf "%s %.3f %.0f %.0f\n", t[1], t[2] + t[3], w, c}' "$tmp/out"
}

source "$(dirname "$0")/rounds_stats.sh"

# Samples in a recording of CONFIG: ours from `report --json`, JFR's from `jfr summary`.
samples() {
  case $1 in
    jfr) "$jfr_tool" summary "$tmp/jfr.jfr" | awk '$1=="jdk.ExecutionSample"{print $2}' ;;
    *) "$stackscope" report "$tmp/$1.ssr" --json | tr -d ' \n' | grep -o '"samples":[0-9]*' |
         head -1 | cut -d: -f2 ;;
  esac
}
lost() {
  [[ $1 == jfr ]] && { echo "-"; return; }  # JFR does not count the samples it misses
  "$stackscope" report "$tmp/$1.ssr" --json | tr -d ' \n' | grep -o '"lost_total":[0-9]*' |
    head -1 | cut -d: -f2
}
recording() { [[ $1 == jfr ]] && echo "$tmp/jfr.jfr" || echo "$tmp/$1.ssr"; }
interval_ns() { [[ $1 == cpu1 ]] && echo 1000000 || echo 10000000; }  # profile.jfc: 10 ms

echo "machine: $(nproc) cores, $(awk -F': ' '/model name/{print $2; exit}' /proc/cpuinfo)"
echo "jdk:     $("$java" -version 2>&1 | head -1)"
echo "kernel:  $(uname -r); kernel call chains in mixed mode: $(kernel_chains && echo yes || echo no)"
# Other work on the machine is the main source of noise: say how much there was.
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min averages) at the start"
echo

# 1. Overhead. Each round pairs every config with a run without; odd rounds run in reverse
#    order so that neither side of a pair always goes first. Three ratios per pair: wall time
#    of the work alone, wall time of the whole process (start-up and shutdown included), and
#    CPU time of the whole process, which another load on the machine disturbs far less.
for ((round = 1; round <= pairs; round++)); do
  order=("${configs[@]}")
  ((round % 2 == 0)) || order=(jfr cpu1java cpu1 cpu10 none)
  for config in "${order[@]}"; do
    run "$config" work >"$tmp/time.$config"
  done
  read -r base_wall base_cpu base_work _ <"$tmp/time.none"
  for config in "${measured[@]}"; do
    read -r wall cpu work _ <"$tmp/time.$config"
    awk -v w=$work -v bw=$base_work -v p=$wall -v bp=$base_wall -v c=$cpu -v bc=$base_cpu \
      'BEGIN{printf "%.5f %.5f %.5f\n", w / bw, p / bp, c / bc}' >>"$tmp/ratios.$config"
  done
  order=(none "${floors[@]}")
  ((round % 2 == 0)) || order=("${floors[@]}" none)
  for floor in "${order[@]}"; do
    run_floor "$floor" >"$tmp/floor.$floor"
  done
  read -r base_cpu _ <"$tmp/floor.none"
  for floor in "${floors[@]}"; do
    read -r cpu signals <"$tmp/floor.$floor"
    # The ratio, three times, so that summary() reads it as any config's third ratio.
    awk -v c="$cpu" -v bc="$base_cpu" -v s="$signals" \
      'BEGIN{r = c / bc; printf "%.5f %.5f %.5f %.1f\n", r, r, r, s / (c / 1e9)}' >>"$tmp/ratios.$floor"
  done
  echo "pair $round/$pairs: without agent work $((base_work / 1000000)) ms" >&2
done

# Median, with the range of the pair ratios, which shows how noisy the machine was.
summary() {
  local values
  values=$(cut -d' ' -f"$2" "$tmp/ratios.$1" | sort -g)
  printf '%.4f (%.3f-%.3f)' "$(median <<<"$values")" "$(head -1 <<<"$values")" \
    "$(tail -1 <<<"$values")"
}
if ((pairs > 0)); then  # PAIRS=0: the tight loop alone (samples, bytes per sample)
  printf 'Overhead: median (min-max) over %d interleaved pairs of time with / without\n' "$pairs"
  printf '%-27s %-22s %-22s %-22s %s\n' config "work phase, wall" "process, wall" "process, CPU" \
    "floor (its timer, empty handler)"
  for config in "${measured[@]}"; do
    floor=${floor_of[$config]:-}
    printf '%-27s %-22s %-22s %-22s %s\n' "${label[$config]}" "$(summary $config 1)" \
      "$(summary $config 2)" "$(summary $config 3)" \
      "$([[ -n $floor ]] && printf '%s %s' "$(summary "$floor" 3)" "$floor" || echo -)"
  done
  echo
  printf 'Floor: one thread'"'"'s fixed loop, CPU time with the timer / without, empty SIGPROF handler\n'
  printf '%-36s %-22s %s\n' timer@interval_us "CPU ratio" "signals per s of CPU"
  for floor in "${floors[@]}"; do
    printf '%-36s %-22s %s\n' "$floor" "$(summary "$floor" 3)" "$(cut -d' ' -f4 "$tmp/ratios.$floor" | median)"
  done
  echo
fi

# 2 and 3. A 2 s and an 8 s tight loop per config.
printf 'Tight loop, 8 s of CPU: samples taken vs due; bytes per sample, 8 s run minus 2 s run\n'
printf '%-22s %8s %8s %9s %8s %12s\n' config taken due taken/due lost bytes/sample
for config in cpu10 cpu1 jfr; do
  run "$config" loop 2000 >/dev/null
  short_samples=$(samples "$config")
  short_bytes=$(stat -c %s "$(recording "$config")")
  run "$config" loop 8000 >"$tmp/loop"
  read -r _ _ _ cpu <"$tmp/loop"
  long_samples=$(samples "$config")
  long_bytes=$(stat -c %s "$(recording "$config")")
  awk -v taken="$long_samples" -v cpu="$cpu" -v interval="$(interval_ns "$config")" \
      -v lost="$(lost "$config")" -v name="${label[$config]}" \
      -v bytes=$((long_bytes - short_bytes)) -v extra=$((long_samples - short_samples)) \
    'BEGIN{due = cpu / interval
           printf "%-22s %8d %8.0f %8.1f%% %8s %12.1f\n", name, taken, due, 100 * taken / due,
                  lost, extra ? bytes / extra : 0}'
done
echo
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) at the end"
