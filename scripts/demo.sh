#!/usr/bin/env bash
# Sets up, builds what the demo needs (the agent, the command, the demo program; not the
# tests or benchmarks), profiles the bundled demo Java program and prints its report.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh stackscope stackscope_cli demo
exec demo/run-demo.sh "${STACKSCOPE_BUILD_DIR:-build}"
