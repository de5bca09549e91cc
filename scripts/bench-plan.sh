#!/usr/bin/env bash
# Whole-process parse time of generated plans: UNITS units x 20 sprints each,
# for several sizes, to show that cost is linear in plan size.
# Usage: scripts/bench-plan.sh [RUNS]   (release build; prints a Markdown table)
set -euo pipefail
runs=${1:-7}
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=$PWD/target/release/git-supervisor
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

generate() { # units -> EXECUTION_PLAN.md in $work/$1
  local units=$1 dir=$work/$1
  mkdir -p "$dir"
  awk -v units="$units" 'BEGIN {
    print "# Generated plan\n"
    print "| Package | Directory | Depends on | Sprints |"
    print "|---------|-----------|------------|---------|"
    for (u = 0; u < units; u++) {
      dep = (u == 0) ? "—" : sprintf("unit-%d", u - 1)
      printf "| unit-%d | unit-%d | %s | 20 |\n", u, u, dep
    }
    print ""
    for (u = 0; u < units; u++) {
      printf "## unit-%d\n\n", u
      for (s = 1; s <= 20; s++) {
        printf "### Sprint %d: Implement part %d of unit %d\n\n", s, s, u
        printf "- Create `unit-%d/src/part%d.rs`\n- Write tests\n\n", u, s
        printf "**Exit Criteria**:\n- [ ] `cargo test -p unit-%d` passes\n- [ ] `unit-%d/src/part%d.rs` exists\n\n", u, u, s
      }
    }
  }' > "$dir/EXECUTION_PLAN.md"
}

best_ms() { # dir -> best wall time of $runs runs, in ms
  local best=999999999 start end
  for _ in $(seq "$runs"); do
    start=$(date +%s%N)
    "$bin" plan "$1" --format json > /dev/null
    end=$(date +%s%N)
    (( (end - start) < best )) && best=$((end - start))
  done
  echo "scale=1; $best / 1000000" | bc
}

echo "| units x sprints | plan size | best of $runs (ms) | ms per 1,000 sprints |"
echo "|---|---|---|---|"
for units in 125 250 500 1000; do
  generate "$units"
  size=$(du -h "$work/$units/EXECUTION_PLAN.md" | cut -f1)
  ms=$(best_ms "$work/$units")
  per=$(echo "scale=2; $ms / ($units * 20 / 1000)" | bc)
  echo "| $units x 20 | $size | $ms | $per |"
done
