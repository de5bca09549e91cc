#!/usr/bin/env bash
# Eight units in parallel (worktrees), two pairs of them editing the same
# file, each sprint an agent that works SECONDS then commits: the run's wall
# time against its agents' critical path, with on_overlap = warn (every
# unit at once: the path is one sprint) and serialize (the plan names the
# shared files, so each pair runs one after the other: two sprints).
# Overlap notices are counted from the history.
# Usage: scripts/bench-overlap.sh [SECONDS]   (default 5; BIN= to use a built binary)
set -euo pipefail
secs=${1:-5}
cd "$(dirname "$0")/.."
[ -n "${BIN:-}" ] || cargo build --release --quiet
bin=${BIN:-$PWD/target/release/git-supervisor}
work=$(mktemp -d)
trap 'pkill -f "$work" 2>/dev/null || true; rm -rf "$work" "$work"/*.supervisor' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null NO_COLOR=1
run() { # MODE
  local repo=$work/$1
  git init -q -b main "$repo"
  cd "$repo"
  git config user.name Bench && git config user.email bench@example.com
  {
    echo "# Overlapping units"; echo
    echo "| Unit | Directory | Layer | Sprints |"; echo "|---|---|---|---|"
    for i in $(seq 1 8); do echo "| u$i | u$i | 0 | 1 |"; done
    for i in $(seq 1 8); do
      case $i in 1|2) f='- Edit `shared-a.txt`';; 3|4) f='- Edit `shared-b.txt`';; *) f='- Do the work';; esac
      printf '\n## u%s\n\n### Sprint 1: Work\n\n%s\n\n**Exit Criteria**:\n- [ ] `true`\n' "$i" "$f"
    done
  } > EXECUTION_PLAN.md
  for i in $(seq 1 8); do mkdir -p "u$i" && echo "# progress" > "u$i/PROGRESS.md"; done
  seq 1 10 | sed 's/^/line /' > shared-a.txt
  cp shared-a.txt shared-b.txt
  mkdir -p .workflow
  cat > .workflow/agent.sh <<SH
#!/bin/sh
# Edit first, then work: the overlap is there to be seen while both work.
case "\$SUPERVISOR_UNIT" in
  u1) sed -i '1s/.*/u1/' shared-a.txt; f=shared-a.txt;;
  u2) sed -i '10s/.*/u2/' shared-a.txt; f=shared-a.txt;;
  u3) sed -i '1s/.*/u3/' shared-b.txt; f=shared-b.txt;;
  u4) sed -i '10s/.*/u4/' shared-b.txt; f=shared-b.txt;;
  *) echo done > "\$SUPERVISOR_UNIT/own.txt"; f="\$SUPERVISOR_UNIT/own.txt";;
esac
sleep $secs
git add "\$f"
git commit -qm "\$SUPERVISOR_UNIT" -m "Supervisor-Sprint: \$SUPERVISOR_UNIT/1
Supervisor-Status: complete" -- "\$f"
SH
  chmod +x .workflow/agent.sh
  printf '[agent]\ncommand = [".workflow/agent.sh"]\nprompt = "stdin"\n\n[run]\npoll_interval = "200ms"\nworkspace = "worktree"\non_overlap = "%s"\n' "$1" > .workflow/config.toml
  git add -A && git commit -qm "plan ($1)"
  local s e
  s=$(date +%s.%N); "$bin" start --wait >/dev/null; e=$(date +%s.%N)
  local path=$secs
  [ "$1" = serialize ] && path=$((secs * 2))
  local notices retries
  notices=$(git log --format=%H --grep="both edit" refs/supervisor/state | wc -l)
  retries=$(git log --format=%s refs/supervisor/state | grep -c -- "-> BACKOFF" || true)
  printf '%-9s wall %.1f s, critical path %s s (+%.0f%%), overlap notices %s, retries %s\n' \
    "$1" "$(echo "$e - $s" | bc)" "$path" "$(echo "($e - $s - $path) * 100 / $path" | bc -l)" "$notices" "$retries"
  cd - >/dev/null
}
run warn
run serialize
