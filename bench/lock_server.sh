#!/usr/bin/env bash
# What a trace costs a contended server: Jetty (Debian's libjetty9-java) serving
# bench/server/ContendedServer.java to wrk on 127.0.0.1, configurations interleaved in rounds
# as bench/lock_rounds.sh does. A run starts the server, warms it with WARMUP seconds of load,
# then loads it for SECONDS_OF_LOAD more and reads what the server did in that window: requests served
# (wrk's count) and the server's CPU (utime + stime of /proc/PID/stat). Printed per
# configuration: the median throughput and server CPU per request, and the paired ratios of
# each to the first configuration's, with their 95 % confidence intervals (rounds_stats.sh).
# CPU per request is the cost the trace adds to each request; throughput also feels the
# client, which shares the machine.
# Usage: bench/lock_server.sh 'NAME=JVM OPTIONS' ...   (the first is the reference)
#   e.g. bench/lock_server.sh none= lock=-agentpath:$PWD/build/lib/libstackscope.so=event=lock,file=/tmp/l.ssr \
#          jfr=-XX:StartFlightRecording=settings=$PWD/bench/locks.jfc,filename=/tmp/l.jfr
#   (env: ROUNDS=7, JAVA=java, SECONDS_OF_LOAD=5, WARMUP=3, CONNECTIONS=32, PORT=18431; needs
#   `apt-get install -y libjetty9-java wrk`)
set -euo pipefail

rounds=${ROUNDS:-7}
seconds=${SECONDS_OF_LOAD:-5}
warmup=${WARMUP:-3}
connections=${CONNECTIONS:-32}
port=${PORT:-18431}
java=$(command -v "${JAVA:-java}")
javac=$(dirname "$(readlink -f "$java")")/javac
jars=/usr/share/java
classpath=$jars/jetty9-server.jar:$jars/jetty9-http.jar:$jars/jetty9-io.jar:$jars/jetty9-util.jar:$jars/servlet-api.jar
for need in "$jars/jetty9-server.jar" "$(command -v wrk || echo wrk)" "$javac"; do
  [[ -e $need ]] || { echo "lock_server.sh: $need is missing (apt-get install -y libjetty9-java wrk)" >&2; exit 1; }
done
(($# >= 2)) || { echo "usage: lock_server.sh NAME=OPTIONS NAME=OPTIONS ..." >&2; exit 1; }
source "$(dirname "$0")/rounds_stats.sh"
tmp=$(mktemp -d)
server=
trap '[[ -n $server ]] && kill "$server" 2>/dev/null; rm -rf "$tmp"' EXIT
"$javac" -d "$tmp" -cp "$classpath" "$(dirname "$0")/server/ContendedServer.java"

names=() options=()
for config in "$@"; do
  names+=("${config%%=*}")
  options+=("${config#*=}")
done

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }  # utime + stime, in clock ticks
load() { wrk -t2 -c"$connections" -d"$1"s "http://127.0.0.1:$port/page"; }

run() {  # OPTIONS: prints "requests/s cpu-ms-per-1000-requests" of the loaded window
  # shellcheck disable=SC2086  # the options: words
  "$java" -Xmx256m $1 -cp "$classpath:$tmp" ContendedServer "$port" $((warmup + seconds + 30)) \
    >"$tmp/out" 2>"$tmp/err" &
  server=$!
  for _ in $(seq 100); do grep -q started "$tmp/out" && break; sleep 0.1; done
  grep -q started "$tmp/out" || { echo "lock_server.sh: the server did not start with '$1':" >&2; cat "$tmp/err" >&2; exit 1; }
  load "$warmup" >/dev/null
  local before after
  before=$(cpu_ticks "$server")
  load "$seconds" >"$tmp/wrk"
  after=$(cpu_ticks "$server")
  kill "$server"
  wait "$server" || true
  server=
  awk -v ticks=$((after - before)) -v hz="$(getconf CLK_TCK)" -v s="$seconds" \
    '/requests in/ {printf "%.1f %.4f\n", $1 / s, 1e6 * ticks / hz / $1}' "$tmp/wrk"
}

echo "java: $("$java" -version 2>&1 | head -1); rounds: $rounds; ${seconds}s of wrk -c$connections after ${warmup}s; $(uptime)"
for ((r = 0; r < rounds; ++r)); do
  for i in "${!names[@]}"; do
    run "${options[$i]}" >"$tmp/run"
    read -r rate cpu <"$tmp/run"
    echo "$rate" >>"$tmp/rate-$i"
    echo "$cpu" >>"$tmp/cpu-$i"
    [[ $i == 0 ]] && reference_rate=$rate reference_cpu=$cpu
    awk -v a="$rate" -v b="$reference_rate" 'BEGIN{print a / b}' >>"$tmp/rate-ratio-$i"
    awk -v a="$cpu" -v b="$reference_cpu" 'BEGIN{print a / b}' >>"$tmp/cpu-ratio-$i"
  done
done
for i in "${!names[@]}"; do
  printf '%-8s %9s req/s  paired x%.3f (95%%: %s)   %7s CPU ms per 1000 requests  paired x%.3f (95%%: %s)\n' \
    "${names[$i]}" "$(median <"$tmp/rate-$i")" "$(median <"$tmp/rate-ratio-$i")" "$(median_interval <"$tmp/rate-ratio-$i")" \
    "$(median <"$tmp/cpu-$i")" "$(median <"$tmp/cpu-ratio-$i")" "$(median_interval <"$tmp/cpu-ratio-$i")"
done
echo "end: $(uptime)"
