#!/usr/bin/env bash
# Sets up, builds everything and runs the whole test suite (unit, golden and real-JVM
# integration tests).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --test-dir "${STACKSCOPE_BUILD_DIR:-build}" --output-on-failure -j"$(nproc)" --timeout 600
