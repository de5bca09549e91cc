#!/usr/bin/env bash
# Does a notify command that hangs (or fails) delay the run? An 8-unit run
# whose every agent meets a usage limit once ("try again in 1 second"):
# 8 pauses, their ends and the run's end, each a notification. Timed as
# `start --wait` on a fresh copy of the repository, with `[notify] command`
# hanging (`sleep 30`, killed at its 10 s timeout), failing (exit 3), and
# absent (the baseline), side by side with farm-bench.
# Usage: scripts/bench-notify.sh [RUNS]   (default 5; BIN= to use a built binary)
set -euo pipefail
runs=${1:-5}
cd "$(dirname "$0")/.."
[ -n "${BIN:-}" ] || cargo build --release --quiet
bin=${BIN:-$PWD/target/release/git-supervisor}
work=$(mktemp -d)
trap 'pkill -f "$work" 2>/dev/null || true; rm -rf "$work"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null NO_COLOR=1
template=$work/template
git init -q -b main "$template"
cd "$template"
git config user.name Bench && git config user.email bench@example.com
{
  echo "# Limited Agents"
  echo
  echo "| Unit | Directory | Layer | Sprints |"
  echo "|---|---|---|---|"
  for i in $(seq 1 8); do echo "| u$i | u$i | 0 | 1 |"; done
  for i in $(seq 1 8); do
    printf '\n## u%s\n\n### Sprint 1: Work\n\n**Exit Criteria**:\n- [ ] `u%s/1.txt` exists\n' "$i" "$i"
  done
} > EXECUTION_PLAN.md
for i in $(seq 1 8); do mkdir -p "u$i" && echo "# progress" > "u$i/PROGRESS.md"; done
mkdir -p .workflow
cat > .workflow/agent.sh <<'SH'
#!/bin/sh
if mkdir "$SUPERVISOR_WORKDIR/.git/limited-$SUPERVISOR_UNIT" 2>/dev/null; then
  echo "ERROR: You've hit your usage limit. Try again in 1 second."; exit 1
fi
echo done > "$SUPERVISOR_UNIT/1.txt"
git add "$SUPERVISOR_UNIT/1.txt"
git commit -qm "$SUPERVISOR_UNIT: sprint 1" -m "Supervisor-Sprint: $SUPERVISOR_UNIT/1
Supervisor-Status: complete" -- "$SUPERVISOR_UNIT/1.txt"
SH
chmod +x .workflow/agent.sh
printf '[agent]\ncommand = [".workflow/agent.sh"]\nprompt = "stdin"\n\n[run]\npoll_interval = "200ms"\nworkspace = "shared"\n' > .workflow/config.toml
git add -A && git commit -qm "limited agents"
cat > "$work/once.sh" <<SH
#!/bin/sh
# One run on a fresh copy; \$1 = none | hang | fail.
set -e
copy=\$(mktemp -d "$work/run.XXXXXX")
git clone -q "$template" "\$copy/repo"
cd "\$copy/repo"
git config user.name Bench && git config user.email bench@example.com
case "\$1" in
  hang) printf '\n[notify]\ncommand = ["sh", "-c", "sleep 30"]\ntimeout = "10s"\n' >> .workflow/config.toml ;;
  fail) printf '\n[notify]\ncommand = ["sh", "-c", "exit 3"]\n' >> .workflow/config.toml ;;
esac
git commit -q --allow-empty -am "notify: \$1"
"$bin" start --wait >/dev/null
test "\$("$bin" status --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["overall"])')" = completed
SH
chmod +x "$work/once.sh"
echo "hanging notify command vs none:"
farm-bench -n "$runs" --timeout 600 --vs "$work/once.sh none" -- "$work/once.sh" hang
echo "failing notify command vs none:"
farm-bench -n "$runs" --timeout 600 --vs "$work/once.sh none" -- "$work/once.sh" fail
