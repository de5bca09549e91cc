#!/usr/bin/env bash
# The cost of a tick that reconciles 10 new commits, on a history of 1,000
# commits and on one of 100,000, measured side by side (alternating) in one
# run. The tick reads only the commits after the last reconciled one, so the
# cost should follow the new commits, not the history's length (goal: the
# 100,000-commit tick within 1.2x of the 1,000-commit one).
# Usage: scripts/bench-reconcile.sh [RUNS]
set -euo pipefail
runs=${1:-31}
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=$PWD/target/release/git-supervisor
work=$(mktemp -d)
cleanup() { pkill -f "$work" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

history() { # dir commits
  git init -q -b main "$1"
  awk -v n="$2" 'BEGIN {
    for (i = 1; i <= n; i++) {
      printf "commit refs/heads/main\nmark :%d\ncommitter H <h@example.com> %d +0000\ndata 7\nhistory\n", i, 1700000000 + i
      if (i > 1) printf "from :%d\n", i - 1
      c = sprintf("line %d\n", i)
      printf "M 100644 inline history/f%d.txt\ndata %d\n%s\n", i % 100, length(c), c
    }
  }' | git -C "$1" fast-import --quiet
  git -C "$1" checkout -q main
  git -C "$1" config user.name B; git -C "$1" config user.email b@example.com
  mkdir -p "$1/.workflow" "$1/app"
  printf '# Bench\n\n## Sprint 1: Create the app\n\n**Exit Criteria**:\n- [ ] `app/1.txt` exists\n' > "$1/EXECUTION_PLAN.md"
  printf '[agent]\ncommand = ["sleep", "600"]\n' > "$1/.workflow/config.toml"
  git -C "$1" add -A; git -C "$1" commit -qm plan
  (cd "$1" && "$bin" start > /dev/null)
  for i in $(seq 10); do git -C "$1" commit -q --allow-empty -m "new $i"; done
}

history "$work/small" 1000
history "$work/large" 100000

tick_ms() { # dir
  rm -f "$1/.git/supervisor/reconciled"   # forget what was scanned: a real walk each time
  local t0=$EPOCHREALTIME
  (cd "$1" && "$bin" tick > /dev/null)
  local t1=$EPOCHREALTIME
  echo "$t0 $t1" | awk '{ printf "%.3f\n", ($2 - $1) * 1000 }'
}

: > "$work/times"
for _ in $(seq "$runs"); do
  echo "$(tick_ms "$work/small") $(tick_ms "$work/large")" >> "$work/times"
done
python3 - "$work/times" <<'PY'
import sys, statistics
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
small = statistics.median(r[0] for r in rows); large = statistics.median(r[1] for r in rows)
print("| history | tick reconciling 10 new commits (median ms) |")
print("|---|---|")
print(f"| 1,000 commits | {small:.2f} |")
print(f"| 100,000 commits | {large:.2f} |")
print(f"| ratio (median of paired ratios) | {statistics.median(r[1] / r[0] for r in rows):.2f}x |")
PY
