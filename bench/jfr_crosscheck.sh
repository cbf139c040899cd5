#!/usr/bin/env bash
# Cross-checks stackscope's cpu profile of a varied real workload against JFR's CPU-time
# sampler (jdk.CPUTimeSample, JDK 25+): javac compiling java.util's ~370 sources from the
# JDK's src.zip, once under each profiler at the same period, then the self shares of the
# top 10 methods of either side compared (bench/self_shares.py). Both are samplers of one
# run each, so a difference of a point or two is noise; a method far apart is a finding.
# Usage: bench/jfr_crosscheck.sh [BUILD_DIR]   (env: JAVA_HOME=a JDK 25+, PERIOD=5ms)
set -euo pipefail

build=${1:-build}
jdk=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
period=${PERIOD:-5ms}
stackscope=$build/bin/stackscope
for needed in "$stackscope" "$jdk/bin/javac" "$jdk/bin/jfr" "$jdk/lib/src.zip"; do
  [[ -e $needed ]] || { echo "jfr_crosscheck.sh: $needed is missing" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

(cd "$tmp" && unzip -q "$jdk/lib/src.zip" 'java.base/java/util/*')
mapfile -t sources < <(find "$tmp/java.base" -name '*.java' | sort)
compile() { "$@" --patch-module "java.base=$tmp/java.base" -d "$tmp/out-$RANDOM" "${sources[@]}"; }
echo "javac on ${#sources[@]} sources of java.util, JDK $("$jdk/bin/java" -version 2>&1 | head -1), period $period"

# --no-native: JFR names Java methods only (a sample in native or VM code goes to its innermost
# Java frame on both sides), and samples only Java threads.
compile "$stackscope" record -e cpu -i "$period" --no-native -o "$tmp/javac.ssr" -- "$jdk/bin/javac" 2>&1 | grep '^stackscope:'
"$stackscope" report "$tmp/javac.ssr" --top 0 --json --no-cache >"$tmp/ours.json"

compile "$jdk/bin/javac" "-J-XX:StartFlightRecording:jdk.CPUTimeSample#enabled=true,jdk.CPUTimeSample#throttle=$period,filename=$tmp/javac.jfr" \
  2>&1 | grep -v '^\[' || true
"$jdk/bin/jfr" print --events jdk.CPUTimeSample --json "$tmp/javac.jfr" >"$tmp/jfr.json"
echo "JFR: $("$jdk/bin/jfr" summary "$tmp/javac.jfr" | awk '/jdk.CPUTimeSample |jdk.CPUTimeSamplesLost/ {printf "%s %s  ", $1, $2}')"

python3 "$(dirname "$0")/self_shares.py" "$tmp/ours.json" "$tmp/jfr.json" 10
