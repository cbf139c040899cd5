#!/usr/bin/env bash
# What following virtual threads costs a program that switches them all the time: bench/java
# VirtualHandoff (4 pairs of virtual threads handing a token back and forth through
# SynchronousQueues, every hand-off an unmount and a mount), JDK 21+. For ROUNDS rounds,
# interleaved: no agent; the agent loaded at the JVM's start (event=cpu); the agent attached
# after the warm-up (stackscope attach -e cpu), for the whole timed part; and attached for 1 s
# after the warm-up and detached before the timed part (what an attach leaves behind: HotSpot
# takes its slower mount path for good once an agent was loaded), and the same
# with --no-vthreads; start, attach and detached also with BASELINE's build when given. Prints per config the median (min-max) of the
# timed part's process CPU and wall time, and the medians' ratios to no agent.
# Usage: bench/virtual_handoff.sh [BUILD_DIR]
#   env: ROUNDS=5, JAVA (a JDK 21+ java; default Temurin 25's if installed, else java),
#        BASELINE=<another build dir>, HANDOFFS=300000 (round trips per pair, timed)
set -euo pipefail

build=${1:-build}
rounds=${ROUNDS:-5}
handoffs=${HANDOFFS:-300000}
temurin=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
java=${JAVA:-$([[ -x $temurin ]] && echo "$temurin" || command -v java)}
jar=$build/bench/fixedwork.jar
[[ -e $jar ]] || { echo "virtual_handoff.sh: $jar is missing (build first)" >&2; exit 1; }
builds=("new:$build")
[[ -n ${BASELINE:-} ]] && builds+=("baseline:$BASELINE")
for b in "${builds[@]}"; do
  dir=${b#*:}
  for needed in "$dir/lib/libstackscope.so" "$dir/bin/stackscope"; do
    [[ -e $needed ]] || { echo "virtual_handoff.sh: $needed is missing" >&2; exit 1; }
  done
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$java" -cp "$jar" io.stackscope.bench.VirtualHandoff 1 10 10 > "$tmp/probe" 2>&1 || {
  echo "virtual_handoff.sh: $java has no virtual threads (JDK 21+ needed)" >&2; exit 1; }

# One timed run: prints "cpu_ms wall_ms".
timed() {  # CONFIG: none | start:DIR | attach:DIR | detached:DIR | detached-novt:DIR
  local config=$1 out=$tmp/out go=$tmp/go jvm
  rm -f "$go" "$tmp"/*.ssr
  case $config in
    none) "$java" -cp "$jar" io.stackscope.bench.VirtualHandoff 4 100000 "$handoffs" > "$out" ;;
    start:*) "$java" "-agentpath:${config#start:}/lib/libstackscope.so=event=cpu,file=$tmp/s.ssr" \
               -cp "$jar" io.stackscope.bench.VirtualHandoff 4 100000 "$handoffs" > "$out" 2>/dev/null ;;
    attach:*)
      "$java" -cp "$jar" io.stackscope.bench.VirtualHandoff 4 100000 "$handoffs" "$go" > "$out" 2>/dev/null &
      jvm=$!
      until grep -q warm "$out"; do sleep 0.05; done
      PATH=$(dirname "$java"):$PATH "${config#attach:}/bin/stackscope" attach "$jvm" -e cpu -d 120s -o "$tmp/a.ssr" \
        > /dev/null 2>&1 &
      local attach=$!
      until [[ -s $tmp/a.ssr ]]; do sleep 0.05; done
      touch "$go"
      wait "$jvm"
      wait "$attach" || true ;;
    detached*)
      "$java" -cp "$jar" io.stackscope.bench.VirtualHandoff 4 100000 "$handoffs" "$go" > "$out" 2>/dev/null &
      jvm=$!
      until grep -q warm "$out"; do sleep 0.05; done
      local flags=(-e cpu -d 1s)
      [[ $config == detached-novt:* ]] && flags+=(--no-vthreads)
      PATH=$(dirname "$java"):$PATH "${config#*:}/bin/stackscope" attach "$jvm" "${flags[@]}" -o "$tmp/d.ssr" \
        > /dev/null 2>&1
      touch "$go"
      wait "$jvm" ;;
  esac
  awk '/^handoffs/ {print $6, $4}' "$out"
}

configs=(none)
for b in "${builds[@]}"; do configs+=("start:${b#*:}" "attach:${b#*:}" "detached:${b#*:}"); done
configs+=("detached-novt:$build")  # --no-vthreads is newer than some baselines
for ((round = 1; round <= rounds; ++round)); do
  for config in "${configs[@]}"; do
    echo "$config $(timed "$config")"
  done
done > "$tmp/runs"

python3 - "$tmp/runs" "${builds[@]}" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    config, cpu, wall = line.split()
    runs.setdefault(config, []).append((float(cpu), float(wall)))
names = {b.split(':', 1)[1]: b.split(':', 1)[0] for b in sys.argv[2:]}
def name(config):
    kind, _, path = config.partition(':')
    return kind if not path else f"{names.get(path, path)} agent, {kind}"
base_cpu = statistics.median(c for c, _ in runs['none'])
base_wall = statistics.median(w for _, w in runs['none'])
print(f"{'config':<26} {'CPU ms median (min-max)':>26} {'x':>6} {'wall ms median (min-max)':>26} {'x':>6}")
for config, values in runs.items():
    cpu = [c for c, _ in values]; wall = [w for _, w in values]
    mc, mw = statistics.median(cpu), statistics.median(wall)
    print(f"{name(config):<26} {f'{mc:.0f} ({min(cpu):.0f}-{max(cpu):.0f})':>26} {mc / base_cpu:6.2f} "
          f"{f'{mw:.0f} ({min(wall):.0f}-{max(wall):.0f})':>26} {mw / base_wall:6.2f}")
PY
