#!/usr/bin/env bash
# Sets up, builds, profiles the bundled demo Java program and prints its report.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec demo/run-demo.sh
