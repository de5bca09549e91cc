#!/usr/bin/env bash
# Diagnostics on a plan of N units, each depending on a unit that does not
# exist: the bytes `plan` writes (text to stderr, `--format json` to stdout)
# and its whole-process time. Every bad reference names a few close units,
# never the whole plan; a terminal is shown the first 100 problems, JSON all.
# Usage: scripts/bench-unknown-deps.sh [SIZES...]   (release build)
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=${*:-1000 2000 4000 8000}
cargo build --release --locked --quiet
bin=$PWD/target/release/git-supervisor
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "| units | text: stderr bytes | text: time (ms) | json: stdout bytes | json: time (ms) |"
echo "|---|---|---|---|---|"
for n in $sizes; do
  dir=$work/u$n
  mkdir -p "$dir"
  awk -v n="$n" 'BEGIN {
    print "# Many units"
    for (i = 0; i < n; i++) printf "\n## unit-%05d\n\nDepends on: ghost-%05d\n\n### Sprint 1: Work\n", i, i
  }' > "$dir/EXECUTION_PLAN.md"
  start=$(date +%s%N)
  (cd "$dir" && NO_COLOR=1 "$bin" plan > /dev/null 2> "$work/err" || true)
  mid=$(date +%s%N)
  (cd "$dir" && "$bin" plan --format json > "$work/json" 2> /dev/null || true)
  end=$(date +%s%N)
  echo "| $n | $(wc -c < "$work/err") | $(( (mid - start) / 1000000 )) | $(wc -c < "$work/json") | $(( (end - mid) / 1000000 )) |"
done
