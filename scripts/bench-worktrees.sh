#!/usr/bin/env bash
# A worktree run at scale: a 200-sprint plan over 16 independent units (so
# 16 agents at once, each in its own worktree), run by a scripted agent that
# works AGENT_MS per sprint and makes a small real commit. Reports:
#  - the run's wall time over its critical path of agent time (the longest
#    unit's summed agent durations, as measured around the agent process):
#    what the engine and the merge queue add;
#  - merges on the integration branch, and sprints per minute.
# Then the merge queue alone: `cargo bench --bench merge_queue`.
# Usage: scripts/bench-worktrees.sh [AGENT_MS]   (default 8000)
set -euo pipefail
agent_ms=${1:-8000}
cd "$(dirname "$0")/.."
[ -n "${BIN:-}" ] || cargo build --release --quiet
bin=${BIN:-$PWD/target/release/git-supervisor}
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
repo=$work/repo
mkdir -p "$repo/.workflow"
{
  printf '# Two Hundred Sprints\n'
  for u in $(seq -w 1 16); do
    n=12; [ "$u" -le 8 ] && n=13
    printf '\n## unit%s\n' "$u"
    for s in $(seq 1 "$n"); do
      printf '\n### Sprint %s: Step %s of unit %s\n\n- Write `unit%s/%s.txt`\n' "$s" "$s" "$u" "$u" "$s"
    done
  done
} > "$repo/EXECUTION_PLAN.md"
cat > "$work/agent.sh" <<AGENT
#!/bin/bash
start=\$EPOCHREALTIME
sleep $(awk "BEGIN { print $agent_ms / 1000 }")
f="\$SUPERVISOR_UNIT/\$SUPERVISOR_SPRINT.txt"
mkdir -p "\$SUPERVISOR_UNIT"
echo "\$SUPERVISOR_UNIT sprint \$SUPERVISOR_SPRINT" > "\$f"
git add -- "\$f"
git commit -q -m "\$SUPERVISOR_UNIT: sprint \$SUPERVISOR_SPRINT" \
  -m "Supervisor-Sprint: \$SUPERVISOR_UNIT/\$SUPERVISOR_SPRINT
Supervisor-Status: complete"
rc=\$?
echo "\$SUPERVISOR_UNIT \$start \$EPOCHREALTIME" >> "$work/times"
exit \$rc
AGENT
chmod +x "$work/agent.sh"
printf '[agent]\ncommand = ["%s"]\nprompt = "stdin"\n\n[run]\npoll_interval = "200ms"\nworkspace = "worktree"\n\n[workspace]\ndir = "%s"\n' \
  "$work/agent.sh" "$work/worktrees" > "$repo/.workflow/config.toml"
(cd "$repo" && git init -q -b main && git config user.name B && git config user.email b@example.com \
  && git add -A && git commit -qm plan)
: > "$work/times"
t0=$EPOCHREALTIME
(cd "$repo" && "$bin" start --wait > "$work/out" 2>&1) || { cat "$work/out"; exit 1; }
t1=$EPOCHREALTIME
branch=$(git -C "$repo" for-each-ref --format='%(refname:short)' 'refs/heads/supervisor/*/integration')
merges=$(git -C "$repo" rev-list --merges --count "$branch")
python3 - "$work/times" "$t0" "$t1" "$merges" "$agent_ms" <<'PY'
import sys, collections
times, t0, t1, merges, agent_ms = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
per_unit = collections.defaultdict(float)
sprints = 0
for line in open(times):
    unit, a, b = line.split()
    per_unit[unit] += float(b) - float(a)
    sprints += 1
critical = max(per_unit.values())
wall = t1 - t0
print(f"| agent time per sprint | {agent_ms} ms |")
print(f"| sprints / units / agents at once | {sprints} / {len(per_unit)} / {len(per_unit)} |")
print(f"| critical path of agent time | {critical:.1f} s |")
print(f"| run wall time (`start --wait`) | {wall:.1f} s |")
print(f"| wall / critical path | {wall / critical:.3f}x |")
print(f"| merges on the integration branch | {merges} |")
print(f"| sprints completed per minute | {sprints / wall * 60:.1f} |")
PY
cargo bench --quiet --bench merge_queue 2>/dev/null
