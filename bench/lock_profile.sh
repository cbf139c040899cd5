#!/usr/bin/env bash
# Where the lock trace's cost lies on LockContention, by `perf record` samples (5 kHz of CPU
# clock, every thread of the process): per run, the process's samples in all, the agent's
# writer thread's, and those in libstackscope.so on the workload's own threads (contender-N).
# Counts of samples are less noisy than lock_rounds.sh's CPU ratios for telling apart a change
# that moves 1-2 % of the process, and say on which side of the agent it moved. Needs perf
# (Debian's linux-perf) and the right to use it (root, or kernel.perf_event_paranoid <= 1).
# Usage: bench/lock_profile.sh 'NAME=JVM OPTIONS' ... (run in interleaved rounds)
#   e.g. bench/lock_profile.sh none= lock=-agentpath:build/lib/libstackscope.so=event=lock,file=/tmp/l.ssr
#   (env: ROUNDS=3, JAVA=java, LOCKS=2000000, JAR=build/tests/java/stackscope_workloads.jar)
set -euo pipefail

rounds=${ROUNDS:-3}
locks=${LOCKS:-2000000}
java=$(command -v "${JAVA:-java}")
jar=${JAR:-build/tests/java/stackscope_workloads.jar}
command -v perf > /dev/null || { echo "lock_profile.sh: perf is missing (apt-get install -y linux-perf)" >&2; exit 1; }
[[ -e $jar ]] || { echo "lock_profile.sh: $jar is missing (build first)" >&2; exit 1; }
(($# >= 1)) || { echo "usage: lock_profile.sh NAME=OPTIONS ..." >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "java: $("$java" -version 2>&1 | head -1); rounds: $rounds; LockContention 4 $locks"
for ((round = 1; round <= rounds; ++round)); do
  for config in "$@"; do
    name=${config%%=*}
    read -r -a options <<< "${config#*=}"
    perf record -q -F 4999 -o "$tmp/run.data" -- "$java" -Xmx64m -XX:+UseSerialGC "${options[@]}" \
      -cp "$jar" io.stackscope.workloads.LockContention 4 "$locks" > /dev/null 2>&1
    perf report -i "$tmp/run.data" --stdio -g none --sort comm,dso -F sample,comm,dso 2> /dev/null |
      awk -v name="$name" -v round="$round" '
        /^#/ || NF == 0 { next }
        { total += $1 }
        /stackscope-writ/ { writer += $1 }
        /contender/ && /libstackscope/ { waiting += $1 }
        END { printf "%-10s round %d  samples %6d  writer %5d  agent on the workload threads %5d\n", name, round, total, writer, waiting }'
  done
done
