#!/usr/bin/env bash
# The run loop's own cost over a demo-sized run (the demo's plan and its
# scripted agent), repeated RUNS times:
#  - latency from an agent's exit to the next agent's process start (median),
#  - the engine's own CPU time per transition (every git-supervisor process
#    except the scripted agent, from GIT_SUPERVISOR_CPU_LOG; the git and
#    criteria subprocesses it runs are not included).
# Usage: scripts/bench-run.sh [RUNS]
set -euo pipefail
runs=${1:-5}
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=$PWD/target/release/git-supervisor
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin" demo --dir "$work/template" > /dev/null
cat > "$work/agent.sh" <<AGENT
#!/bin/bash
echo "start \$EPOCHREALTIME" >> "$work/times"
"$bin" demo-agent
rc=\$?
echo "end \$EPOCHREALTIME" >> "$work/times"
exit \$rc
AGENT
chmod +x "$work/agent.sh"
: > "$work/times"; : > "$work/cpu"; transitions=0
for r in $(seq "$runs"); do
  d=$work/run$r
  mkdir -p "$d/.workflow"
  cp "$work/template/EXECUTION_PLAN.md" "$d/"
  for u in store auth api web; do mkdir -p "$d/$u"; printf '# %s\n' "$u" > "$d/$u/PROGRESS.md"; done
  printf '[agent]\ncommand = ["%s"]\n\n[run]\npoll_interval = "200ms"\n' "$work/agent.sh" > "$d/.workflow/config.toml"
  (cd "$d" && git init -q -b main && git config user.name B && git config user.email b@example.com \
    && git add -A && git commit -qm plan)
  echo "run $r" >> "$work/times"
  (cd "$d" && GIT_SUPERVISOR_CPU_LOG=$work/cpu "$bin" start --wait > /dev/null)
  transitions=$((transitions + $(git -C "$d" rev-list --count refs/supervisor/state)))
done
python3 - "$work/times" "$work/cpu" "$transitions" <<'PY'
import sys, statistics
times, cpu, transitions = sys.argv[1], sys.argv[2], int(sys.argv[3])
lat = []
events = []
def flush():
    # Each start is caused by the latest exit before it (the first
    # dispatches of a run follow `start`, not an exit, and are skipped).
    last_end = None
    for kind, t in sorted(events, key=lambda e: e[1]):
        if kind == "end":
            last_end = t
        elif last_end is not None:
            lat.append((t - last_end) * 1000)
            last_end = None
for line in open(times):
    if line.startswith("run"):
        flush(); events.clear(); continue
    kind, t = line.split()
    events.append((kind, float(t)))
flush()
engine = [l.split() for l in open(cpu) if not l.startswith("demo-agent")]
total_us = sum(int(u) + int(s) for _, u, s in engine)
print(f"| exit → next agent start, median | {statistics.median(lat):.1f} ms (n={len(lat)}, min {min(lat):.1f}, max {max(lat):.1f}) |")
print(f"| engine CPU per transition | {total_us / transitions / 1000:.2f} ms ({len(engine)} engine processes, {transitions} transitions) |")
PY
