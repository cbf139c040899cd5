#!/usr/bin/env bash
# Sets up, builds everything and runs the whole test suite (unit, golden and real-JVM
# integration tests).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# Playwright, speedscope and ajv for the browser tests, from the lock file; Playwright downloads
# no browser (Debian's Chromium is used).
(cd tests/web && npm ci --no-audit --no-fund --loglevel=error)
ctest --test-dir "${STACKSCOPE_BUILD_DIR:-build}" --output-on-failure -j"$(nproc)" --timeout 600
