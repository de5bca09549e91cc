#!/usr/bin/env bash
# The `ui` page on a run of 200 sprints and 10,000 transitions in headless
# Chromium: first paint, update latency, the history view (BENCHMARKS.md).
# Usage: scripts/bench-ui.sh
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo bench --bench ui
