#!/usr/bin/env bash
# What our hooks cost a `git commit`, measured side by side in one run:
# paired and alternating (one commit without hooks, one with, repeated), in
# two repositories that differ only in their hooks.
#  A. hooks installed, no run                  ÷ no hooks  (goal ≤ 1.3x)
#  B. hooks installed, the commit completes the
#     running sprint so the hook's tick records
#     transitions                               ÷ no hooks  (goal ≤ 2.0x)
# Usage: scripts/bench-hooks.sh [PAIRS]
set -euo pipefail
pairs=${1:-40}
cd "$(dirname "$0")/.."
cargo build --release --quiet
export PATH=$PWD/target/release:$PATH
work=$(mktemp -d)
cleanup() { pkill -f "$work" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

mkrepo() { # dir
  git init -q -b main "$1"
  git -C "$1" config user.name Bench; git -C "$1" config user.email bench@example.com
  git -C "$1" commit -q --allow-empty -m init
}

# A plan of many small sprints; each is completed by one benchmark commit
# (its trailers mark the sprint complete, so the post-commit tick verifies
# and records it while the sprint's agent — a loop that waits for that
# commit — is still running).
plan() {
  echo "# Bench"
  for i in $(seq 1 $((pairs + 5))); do
    printf '\n## Sprint %d: Create file %d\n\n**Exit Criteria**:\n- [ ] `s/%d.txt` exists\n' "$i" "$i" "$i"
  done
}

mkrepo "$work/plain"
mkrepo "$work/idle";  (cd "$work/idle" && git-supervisor hooks install >/dev/null)
mkrepo "$work/busy"
(cd "$work/busy" && plan > EXECUTION_PLAN.md && mkdir -p .workflow s \
  && printf '[agent]\ncommand = ["sh", "-c", "while ! git log -1 --format=%%B | grep -q Bench/$SUPERVISOR_SPRINT; do sleep 0.05; done; sleep 0.5"]\n\n[run]\npoll_interval = "5s"\n' > .workflow/config.toml \
  && git add -A && git commit -qm plan && git-supervisor hooks install >/dev/null \
  && git-supervisor start --yes >/dev/null)

commit_ms() { # dir message [sprint]
  local dir=$1 msg=$2 n=${3:-}
  if [ -n "$n" ]; then
    echo "$n" > "$dir/s/$n.txt"; git -C "$dir" add -A
    msg=$(printf '%s\n\nSupervisor-Sprint: Bench/%s\nSupervisor-Status: complete' "$msg" "$n")
  fi
  local t0=$EPOCHREALTIME
  git -C "$dir" commit -q --allow-empty -m "$msg"
  local t1=$EPOCHREALTIME
  echo "$t0 $t1" | awk '{ printf "%.3f\n", ($2 - $1) * 1000 }'
}

: > "$work/a"; : > "$work/b"
for i in $(seq "$pairs"); do
  p=$(commit_ms "$work/plain" "p$i"); h=$(commit_ms "$work/idle" "h$i"); echo "$p $h" >> "$work/a"
  p=$(commit_ms "$work/plain" "q$i"); b=$(commit_ms "$work/busy" "b$i" "$i"); echo "$p $b" >> "$work/b"
  # Wait until the hook's tick has completed sprint i and the next sprint's
  # agent runs, so that every measured commit finds the same situation.
  for _ in $(seq 200); do
    git -C "$work/busy" log --format=%s refs/supervisor/state | grep -q "sprint $((i + 1)) DISPATCHED -> RUNNING" && break
    sleep 0.02
  done
done
completed=$(git -C "$work/busy" log --format=%B refs/supervisor/state | grep -c "the agent's commit marked it complete" || true)
python3 - "$work/a" "$work/b" "$completed" <<'PY'
import sys, statistics
def load(p):
    rows = [tuple(map(float, l.split())) for l in open(p) if l.strip()]
    base = statistics.median(r[0] for r in rows); hook = statistics.median(r[1] for r in rows)
    ratio = statistics.median(r[1] / r[0] for r in rows)
    return base, hook, ratio, len(rows)
for name, path in (("A. hooks installed, no run", sys.argv[1]), ("B. hook records transitions", sys.argv[2])):
    base, hook, ratio, n = load(path)
    print(f"| {name} | {base:.2f} ms | {hook:.2f} ms | {ratio:.2f}x | {n} |")
print(f"(sprints completed by the post-commit hook's tick in B: {sys.argv[3]})")
PY
