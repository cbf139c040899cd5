#!/usr/bin/env bash
# What a refresh of `stackscope top` costs as the streamed recording grows: bench/java
# GrowingStacks (new stacks every 100 ms, nearly no CPU) recorded in wall mode at 10 ms with
# control=0, watched by `stackscope top PID --json` for REFRESHES refreshes at 1 s; the CPU time
# of the top process (/proc/PID/stat, 10 ms ticks) per refresh over the first minute and over
# the last, and the median stream_bytes_read (what a refresh read of the stream) in each. With
# OLD=path/to/another/stackscope, that binary watches the same JVM at the same time (no byte
# counts: older tops do not report them).
# Usage: bench/top_refresh.sh [BUILD_DIR]   (env: REFRESHES=660, JAVA=java, OLD=)
set -euo pipefail

build=${1:-build}
refreshes=${REFRESHES:-660}
java=$(command -v "${JAVA:-java}")
javac=$(dirname "$(realpath "$java")")/javac
agent=$(realpath "$build/lib/libstackscope.so")
stackscope=$(realpath "$build/bin/stackscope")
tmp=$(mktemp -d)
jvm=
trap '[[ -n $jvm ]] && kill "$jvm" 2>/dev/null; rm -rf "$tmp"' EXIT

"$javac" --release 17 -d "$tmp/classes" "$(dirname "$0")/java/src/io/stackscope/bench/GrowingStacks.java"
"$java" -Xss64m "-agentpath:$agent=event=wall,interval=10ms,control=0,file=$tmp/grow.ssr" \
  -cp "$tmp/classes" io.stackscope.bench.GrowingStacks >/dev/null 2>"$tmp/jvm.err" &
jvm=$!
until grep -q "control server on" "$tmp/jvm.err"; do sleep 0.2; done

watch() {  # BINARY OUT: one line per refresh: iteration, the top process's CPU s, bytes read
  python3 - "$1" "$jvm" "$refreshes" "$2" <<'PY'
import json, os, subprocess, sys
binary, pid, n, out = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
top = subprocess.Popen([binary, "top", pid, "--json", "--iterations", n], stdout=subprocess.PIPE, text=True)
tick = os.sysconf("SC_CLK_TCK")
with open(out, "w") as f:
    for line in top.stdout:
        fields = open(f"/proc/{top.pid}/stat").read().rsplit(")", 1)[1].split()
        view = json.loads(line)
        f.write(f'{view["iteration"]} {(int(fields[11]) + int(fields[12])) / tick} {view.get("stream_bytes_read", -1)} {view.get("stream_bytes", -1)}\n')
top.wait()
PY
}
watch "$stackscope" "$tmp/new.txt" &
watchers=$!
[[ -n ${OLD:-} ]] && { watch "$(realpath "$OLD")" "$tmp/old.txt" & watchers="$watchers $!"; }
wait $watchers

python3 - "$tmp" "$refreshes" <<'PY'
import os, statistics, sys
tmp, n = sys.argv[1], int(sys.argv[2])
for name in ("new", "old"):
    path = f"{tmp}/{name}.txt"
    if not os.path.exists(path):
        continue
    rows = {int(r[0]): r for r in (line.split() for line in open(path))}
    def minute(first, last):
        cpu_ms = (float(rows[last][1]) - float(rows[first][1])) * 1000 / (last - first)
        read = statistics.median(int(rows[i][2]) for i in range(first + 1, last + 1))
        return f"{cpu_ms:.1f} ms CPU/refresh, median {read} bytes read/refresh, stream {rows[last][3]} bytes"
    print(f"{name}: refreshes 2-60: {minute(2, 60)}; refreshes {n - 60}-{n}: {minute(n - 60, n)}")
PY
