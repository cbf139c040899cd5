#!/usr/bin/env bash
# Profiles the bundled demo program and prints its report: hot methods, the top of the call
# tree, then the threads. Usage: demo/run-demo.sh [BUILD_DIR]  (default: build, built with
# cmake -S . -B build && cmake --build build -j2).
set -euo pipefail
cd "$(dirname "$0")/.."

build=${1:-build}
stackscope=$build/bin/stackscope
for needed in "$stackscope" "$build/lib/libstackscope.so" "$build/demo/demo.jar"; do
  if [[ ! -e $needed ]]; then
    echo "run-demo: $needed is missing; build first: cmake -S . -B $build && cmake --build $build -j2" >&2
    exit 1
  fi
done

"$stackscope" record -e cpu -i 10ms -o "$build/demo.ssr" -- \
  java -Xmx256m -cp "$build/demo/demo.jar" io.stackscope.demo.Demo
echo
echo "== hot methods =="
"$stackscope" report "$build/demo.ssr" --top 15
echo
echo "== call tree =="
"$stackscope" report "$build/demo.ssr" --view tree --top 15
echo
echo "== threads =="
"$stackscope" report "$build/demo.ssr" --view threads
