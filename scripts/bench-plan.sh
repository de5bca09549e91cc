#!/usr/bin/env bash
# Whole-process parse time of generated plans: UNITS units x 20 sprints each,
# for several sizes, to show that cost is linear in plan size. Two shapes:
# `sections` (a unit table, `## unit` sections holding `### Sprint N:`) and
# `flat` (a `| WU | … | Sorties |` table with ids and counts, a status table,
# flat `## Sortie N:` headings numbered across the plan shared out by the
# counts, `Sortie N Success` headings at the end, ranged dependencies).
# Usage: scripts/bench-plan.sh [RUNS]   (release build; prints Markdown tables)
#        BIN=path/to/git-supervisor scripts/bench-plan.sh [RUNS]   (that binary)
set -euo pipefail
runs=${1:-7}
cd "$(dirname "$0")/.."
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet
fi
bin=${BIN:-$PWD/target/release/git-supervisor}
# KEEP=DIR keeps the generated plans there (`DIR/1000/EXECUTION_PLAN.md`,
# `DIR/flat-1000/…`), for callgrind or another binary.
if [ -n "${KEEP:-}" ]; then
  work=$KEEP
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi

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

generate_flat() { # units -> EXECUTION_PLAN.md in $work/flat-$1
  local units=$1 dir=$work/flat-$1
  mkdir -p "$dir"
  awk -v units="$units" 'BEGIN {
    print "# Generated sortie plan\n"
    print "| Phase | Status |\n|---|---|\n| Build | in progress |\n| **Total** | 1 |\n"
    print "| WU | Directory | Layer | Dependencies | Sorties |"
    print "|----|-----------|-------|--------------|---------|"
    for (u = 0; u < units; u++) {
      dep = (u == 0) ? "none (first)" : ((u < 3) ? sprintf("WU%d", u - 1) : sprintf("WU%d through WU%d", u - 3, u - 1))
      printf "| WU%d — `unit-%d` | `unit-%d/` | %d–%d | %s | 20 (S%d–S%d) |\n", u, u, u, u, u + 1, dep, u * 20 + 1, u * 20 + 20
    }
    print "| **Total** | | | | **" units * 20 "** |\n"
    print "## Sortie Definitions\n"
    for (u = 0; u < units; u++) {
      for (s = 1; s <= 20; s++) {
        n = u * 20 + s
        printf "### Sortie %d: Implement part %d of unit %d\n\n", n, s, u
        printf "- Create `unit-%d/src/part%d.rs`\n- Write tests\n\n", u, s
        printf "* **Exit Criteria:**\n  * `cargo test -p unit-%d` passes\n  * `unit-%d/src/part%d.rs` exists\n\n", u, u, s
      }
    }
    print "## Success Criteria\n"
    for (n = 1; n <= units * 20; n += 10) {
      printf "### Sortie %d Success\n- [ ] `make check` passes\n\n", n
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

for shape in sections flat; do
  echo
  echo "Shape: $shape"
  echo
  echo "| units x sprints | plan size | best of $runs (ms) | ms per 1,000 sprints |"
  echo "|---|---|---|---|"
  for units in 125 250 500 1000; do
    if [ "$shape" = sections ]; then
      generate "$units"
      dir=$work/$units
    else
      generate_flat "$units"
      dir=$work/flat-$units
    fi
    size=$(du -h "$dir/EXECUTION_PLAN.md" | cut -f1)
    ms=$(best_ms "$dir")
    per=$(echo "scale=2; $ms / ($units * 20 / 1000)" | bc)
    echo "| $units x 20 | $size | $ms | $per |"
  done
done
