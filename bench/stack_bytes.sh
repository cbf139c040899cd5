#!/usr/bin/env bash
# What stacks cost in a recording: javac compiling java.util's sources from the JDK's src.zip
# (a varied workload: many distinct, deep stacks) recorded in cpu mode at each PERIOD, then
# the file's bytes per sample and, by record type, the bytes the records take
# (bench/record_bytes.py). Mixed mode is on (the agent's default), so stacks carry native and
# kernel frames and the JVM's own threads are sampled.
# Usage: bench/stack_bytes.sh [BUILD_DIR]   (env: JAVA_HOME=a JDK with lib/src.zip, PERIODS="1ms 10ms")
set -euo pipefail

build=${1:-build}
jdk=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
stackscope=$build/bin/stackscope
for needed in "$stackscope" "$jdk/bin/javac" "$jdk/lib/src.zip"; do
  [[ -e $needed ]] || { echo "stack_bytes.sh: $needed is missing" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

(cd "$tmp" && unzip -q "$jdk/lib/src.zip" 'java.base/java/util/*')
mapfile -t sources < <(find "$tmp/java.base" -name '*.java' | sort)
echo "javac on ${#sources[@]} sources of java.util, JDK $("$jdk/bin/java" -version 2>&1 | head -1)"
for period in ${PERIODS:-1ms 10ms}; do
  "$stackscope" record -e cpu -i "$period" -o "$tmp/javac-$period.ssr" -- \
    "$jdk/bin/javac" --patch-module "java.base=$tmp/java.base" -d "$tmp/out-$period" "${sources[@]}" 2>&1 | grep '^stackscope:' || true
  echo "== period $period"
  "$stackscope" info "$tmp/javac-$period.ssr" | grep -E '^(Format|Records|Samples):'
  python3 "$(dirname "$0")/record_bytes.py" "$tmp/javac-$period.ssr"
  [[ -z ${KEEP:-} ]] || cp "$tmp/javac-$period.ssr" "$KEEP-$period.ssr"
done
