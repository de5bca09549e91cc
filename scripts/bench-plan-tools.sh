#!/usr/bin/env bash
# Whole-process time of the plan tools on large inputs, at several sizes, to
# show how cost grows: `evaluate --check` on one sprint of N tasks (every
# task names a file under one of four directories, so it is oversized and
# split by concern and then by size), `analyze --format json` on N units in
# layers (each unit depends on the whole layer below, as layered plans do)
# and `breakdown` of a requirements document of N items.
# Usage: scripts/bench-plan-tools.sh [RUNS]   (release build; Markdown tables)
# BIN=path times another binary (an older build); TASKS, UNITS and REQS
# override the sizes (space-separated lists).
set -euo pipefail
runs=${1:-3}
cd "$(dirname "$0")/.."
if [ -z "${BIN:-}" ]; then
  cargo build --release --locked --quiet
fi
bin=${BIN:-$PWD/target/release/git-supervisor}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tasks_plan() { # N -> one sprint of N tasks
  local dir=$work/tasks-$1
  mkdir -p "$dir"
  awk -v n="$1" 'BEGIN {
    print "# Big sprint\n\n## Sprint 1: Everything\n"
    split("core api web cli", d, " ")
    for (k = 1; k <= n; k++) printf "- Create `%s/file%d.rs`\n", d[k % 4 + 1], k
    print "\n**Exit Criteria**:\n- [ ] It works correctly"
  }' > "$dir/EXECUTION_PLAN.md"
  echo "$dir"
}

units_plan() { # N -> N units in layers of 20, two sprints each
  local dir=$work/units-$1
  mkdir -p "$dir"
  awk -v n="$1" 'BEGIN {
    print "# Many units\n\n## Goals\n\n- Every unit is built\n"
    print "| Unit | Directory | Layer |\n|------|-----------|-------|"
    for (u = 0; u < n; u++) printf "| unit-%d | unit-%d | %d |\n", u, u, int(u / 20)
    print ""
    for (u = 0; u < n; u++) {
      printf "## unit-%d\n\n", u
      for (s = 1; s <= 2; s++) {
        printf "### Sprint %d: Part %d of unit %d\n\n- Create `unit-%d/part%d.rs`\n\n", s, s, u, u, s
        printf "**Exit Criteria**:\n- [ ] `cargo test -p unit-%d` passes\n\n", u
      }
    }
  }' > "$dir/EXECUTION_PLAN.md"
  echo "$dir"
}

reqs_doc() { # N -> REQUIREMENTS.md of N items over 10 sections
  local dir=$work/reqs-$1
  mkdir -p "$dir"
  awk -v n="$1" 'BEGIN {
    print "# Big product\n"
    for (k = 0; k < n; k++) {
      if (k % (n / 10) == 0) printf "\n## Area %d requirements\n\n", k / (n / 10)
      printf "- The system MUST record item %d in `area%d/item%d.rs`\n", k, int(k / (n / 10)), k
    }
  }' > "$dir/REQUIREMENTS.md"
  echo "$dir"
}

best_ms() { # command... -> best wall time of $runs runs, in ms
  local best=999999999999 start end
  for _ in $(seq "$runs"); do
    start=$(date +%s%N)
    "$@" > /dev/null 2>&1 || true
    end=$(date +%s%N)
    (( (end - start) < best )) && best=$((end - start))
  done
  echo "scale=1; $best / 1000000" | bc
}

echo "| command | input | best of $runs (ms) | µs per item |"
echo "|---|---|---|---|"
for n in ${TASKS:-625 1250 2500 5000}; do
  d=$(tasks_plan $n)
  ms=$(best_ms "$bin" evaluate --check "$d/EXECUTION_PLAN.md")
  echo "| evaluate --check | 1 sprint x $n tasks | $ms | $(echo "scale=1; $ms * 1000 / $n" | bc) |"
done
for n in ${UNITS:-200 400 800 1600}; do
  d=$(units_plan $n)
  ms=$(best_ms "$bin" analyze --format json "$d/EXECUTION_PLAN.md")
  echo "| analyze --format json | $n units x 2 sprints | $ms | $(echo "scale=1; $ms * 1000 / $n" | bc) |"
done
for n in ${REQS:-12500 25000 50000 100000}; do
  d=$(reqs_doc $n)
  ms=$(best_ms sh -c "cd '$d' && rm -f EXECUTION_PLAN.md && '$bin' breakdown")
  echo "| breakdown | $n requirement items | $ms | $(echo "scale=1; $ms * 1000 / $n" | bc) |"
done
