#!/usr/bin/env bash
# Installs what stackscope needs from Debian's packages (only what is missing) and builds it.
# Usage: scripts/setup.sh [TARGET...]  builds only the given CMake targets (demo.sh: the agent,
# the command and the demo program), or everything (test.sh: the test suite and benchmarks
# too) when none is given. The build directory is build/, or $STACKSCOPE_BUILD_DIR.
# Used by demo.sh and test.sh; safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${STACKSCOPE_BUILD_DIR:-build}

packages=(cmake g++ make pkg-config libzstd-dev zlib1g-dev libdw-dev nlohmann-json3-dev libcli11-dev libfmt-dev
          libgtest-dev libgmock-dev libbenchmark-dev openjdk-17-jdk-headless
          libreadline-dev  # the prompt of `stackscope connect`: line editing, history, completion
          clang libclang-rt-14-dev  # clang: the libFuzzer targets of tests/fuzz
          libc6-dbg  # libc's .symtab for native frames' names: 7.4 MB download, 11 MB installed
          libtinyxml2-dev)  # the tests' reader of the XML exports (CMake's configure step looks for it)
# What only the test suite needs (a full build): the real readers of the exports.
# go tool pprof reads the pprof exports, Graphviz's dot the call graph; Chromium, driven by Playwright from Node.js, runs the
# flame graph page (tests/web).
if [ $# -eq 0 ]; then
  packages+=(golang-go chromium graphviz)
  command -v npm >/dev/null || packages+=(nodejs npm)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

targets=()
for target in "$@"; do targets+=(--target "$target"); done
echo "setup: building ${*:-everything} into $build/ (log: $build/build.log)" >&2
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
if ! cmake --build "$build" -j"$(nproc)" "${targets[@]}" >"$build/build.log" 2>&1; then
  tail -n 60 "$build/build.log" >&2
  echo "setup: the build failed; the whole log is $build/build.log" >&2
  exit 1
fi
