#!/usr/bin/env bash
# How long `stop --timeout 2s` and `killall` take with N agents that ignore
# SIGTERM and keep printing (so the watchdog leaves them alone): every
# agent must be asked at once and ended after one kill grace (5 s here),
# not one grace per agent.
# Usage: scripts/bench-stop.sh [AGENTS]   (default 4)
set -euo pipefail
agents=${1:-4}
cd "$(dirname "$0")/.."
[ -n "${BIN:-}" ] || cargo build --release --quiet
bin=${BIN:-$PWD/target/release/git-supervisor}
work=$(mktemp -d)
trap 'pkill -f "$work" 2>/dev/null || true; rm -rf "$work" "$work.supervisor"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null NO_COLOR=1
repo=$work/repo
git init -q -b main "$repo"
cd "$repo"
git config user.name Bench && git config user.email bench@example.com
{
  echo "# Stubborn Agents"
  echo
  for i in $(seq 1 "$agents"); do
    printf '## unit%s\n\nDirectory: `unit%s`\n\n### Sprint 1: Work\n\n- Write `unit%s/a.txt`\n\n' "$i" "$i" "$i"
  done
} > EXECUTION_PLAN.md
for i in $(seq 1 "$agents"); do mkdir -p "unit$i" && echo "# progress" > "unit$i/PROGRESS.md"; done
mkdir -p .workflow
cat > .workflow/agent.sh <<'SH'
#!/bin/sh
trap '' TERM
while true; do echo working; sleep 0.5; done
SH
chmod +x .workflow/agent.sh
printf '[agent]\ncommand = [".workflow/agent.sh"]\nprompt = "stdin"\nkill_grace = "5s"\n\n[run]\npoll_interval = "200ms"\nworkspace = "worktree"\n' > .workflow/config.toml
git add -A && git commit -qm "stubborn agents"
running() { "$bin" status --format json | python3 -c 'import json,sys; s=json.load(sys.stdin); print(sum(1 for u in s["units"] if u["current"] and u["current"]["state"]=="RUNNING"))'; }
wait_running() { for _ in $(seq 1 100); do [ "$(running)" = "$agents" ] && return; sleep 0.2; done; echo "agents never ran" >&2; exit 1; }
"$bin" start >/dev/null
wait_running
s=$(date +%s.%N); "$bin" stop --timeout 2s >/dev/null 2>&1; e=$(date +%s.%N)
printf 'stop --timeout 2s, %s agents ignoring SIGTERM: %.1f s\n' "$agents" "$(echo "$e - $s" | bc)"
"$bin" resume >/dev/null
wait_running
s=$(date +%s.%N); "$bin" killall >/dev/null 2>&1; e=$(date +%s.%N)
printf 'killall, %s agents ignoring SIGTERM: %.1f s\n' "$agents" "$(echo "$e - $s" | bc)"
