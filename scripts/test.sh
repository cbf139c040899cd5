#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite (unit, golden and real-JVM integration tests).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --test-dir build --output-on-failure -j"$(nproc)" --timeout 600
