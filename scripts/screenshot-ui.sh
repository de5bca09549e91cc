#!/usr/bin/env bash
# The README's screenshot of `git supervisor ui` (docs/ui.png), made again:
# the scripted demo (`git supervisor demo`: four units over three layers,
# one flaky sprint retried) run to the end in a temporary directory, its
# page opened in headless Chromium at 1000×560 and photographed.
# Usage: scripts/screenshot-ui.sh [OUT.png] [PAGE]
#   PAGE: the page's hash, e.g. '#/sprint/api/1' (default: the overview)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/ui.png}
page=${2:-}
cargo build -q --bin git-supervisor --example screenshot-ui
target=${CARGO_TARGET_DIR:-target}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$target/debug/git-supervisor" demo --dir "$work/demo" >/dev/null
"$target/debug/examples/screenshot-ui" "$target/debug/git-supervisor" "$work/demo" "$out" "$page"
