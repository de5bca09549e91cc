#!/usr/bin/env bash
# Workers on a remote, through a real git server on 127.0.0.1 (`git daemon`
# with pushes enabled), each worker in its own clone:
#  - claim latency: a worker idles on the remote; `start --remote` publishes
#    two DISPATCHED sprints; the time from `start` returning to the first
#    agent's first instruction (median of SAMPLES runs);
#  - throughput: a plan of SPRINTS independent sprints whose agent works
#    AGENT_MS and commits, run by each count of WORKERS (one agent each):
#    sprints per minute, the speed-up over the first count, and the pushes
#    the remote refused (lost races: the workers' `refused_pushes`) per
#    sprint, with the claims that found every waiting sprint taken by
#    another worker first (`lost_claims`).
# Usage: scripts/bench-workers.sh [AGENT_MS] [SAMPLES] [SPRINTS] [WORKERS]
#   default 3000 15 40 "1 2 4"; SAMPLES 0 skips the claim latency; e.g.
#   scripts/bench-workers.sh 5000 0 64 "1 8"
# The first count of WORKERS is the base of the speed-up.
set -euo pipefail
agent_ms=${1:-3000}
samples=${2:-15}
sprints=${3:-40}
counts=${4:-1 2 4}
cd "$(dirname "$0")/.."
[ -n "${BIN:-}" ] || cargo build --release --quiet
bin=${BIN:-${CARGO_TARGET_DIR:-$PWD/target}/release/git-supervisor}
work=$(mktemp -d)
[ -z "${KEEP:-}" ] || echo "work: $work" >&2
daemon_pid=
all_pids=
cleanup() {
  [ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null
  for p in $all_pids; do kill "$p" 2>/dev/null || true; done
  [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null NO_COLOR=1
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$work/server"
git daemon --reuseaddr --export-all --enable=receive-pack --listen=127.0.0.1 \
  --port="$port" --base-path="$work/server" "$work/server" >/dev/null 2>&1 &
daemon_pid=$!
until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do sleep 0.05; done

# repo NAME UNITS: a plan of UNITS independent one-sprint units, served as
# NAME.git; the starting clone is $work/NAME.
repo() {
  local name=$1 units=$2 dir=$work/$1
  mkdir -p "$dir/.workflow"
  {
    # A unit table that says no unit waits for another: sections numbered
    # alike (unit1, unit2) would otherwise run one after another.
    printf -- '---\nfeature_name: Bench\n---\n# Bench\n\n| Unit | Dependencies |\n|---|---|\n'
    for u in $(seq -w 1 "$units"); do printf '| unit%s | none |\n' "$u"; done
    for u in $(seq -w 1 "$units"); do
      printf '\n## unit%s\n\n### Sprint 1: Write part %s\n\n- Write `unit%s.txt`\n' "$u" "$u" "$u"
    done
  } > "$dir/EXECUTION_PLAN.md"
  cat > "$dir/.workflow/agent.sh" <<AGENT
#!/bin/bash
echo "\$EPOCHREALTIME" >> "$work/agent-starts"
sleep \$(awk "BEGIN { print $agent_ms / 1000 }")
f="\${SUPERVISOR_UNIT_DIR:-.}/\$SUPERVISOR_UNIT.txt"
mkdir -p "\$(dirname "\$f")"
echo "\$SUPERVISOR_UNIT" > "\$f"
git add -- "\$f"
git commit -q -m "\$SUPERVISOR_UNIT: sprint 1"
AGENT
  chmod +x "$dir/.workflow/agent.sh"
  printf '[agent]\ncommand = [".workflow/agent.sh"]\nprompt = "stdin"\n\n[run]\npoll_interval = "100ms"\nlease = "1m"\n' \
    > "$dir/.workflow/config.toml"
  (cd "$dir" && git init -q -b main && git config user.name B && git config user.email b@example.com \
    && git add -A && git commit -qm plan)
  rm -rf "$work/server/$name.git"
  git clone -q --bare "$dir" "$work/server/$name.git"
  git -C "$dir" remote add origin "git://127.0.0.1:$port/$name.git"
}

# workers NAME N: N workers in N clones of NAME.git, in the background
# (their pids in $pids).
workers() {
  pids=
  local name=$1 n=$2
  for i in $(seq 1 "$n"); do
    local c=$work/clones/$name-$i
    rm -rf "$c"
    git clone -q "git://127.0.0.1:$port/$name.git" "$c"
    git -C "$c" config user.name W; git -C "$c" config user.email w@example.com
    (cd "$c" && "$bin" worker --poll 100ms --format json > "$work/$name-$i.json" 2>&1) &
    pids="$pids $!"
    all_pids="$all_pids $!"
  done
}

# Claim latency.
: > "$work/latencies"
for k in $(seq 1 "$samples"); do
  repo "lat$k" 2
  : > "$work/agent-starts"
  workers "lat$k" 1
  sleep 0.5
  (cd "$work/lat$k" && "$bin" start --remote origin > "$work/lat$k.out" 2>&1)
  published=$EPOCHREALTIME
  wait $pids
  started=$(head -1 "$work/agent-starts")
  echo "$published $started" >> "$work/latencies"
done

# Throughput.
: > "$work/rates"
for n in $counts; do
  repo "tp$n" "$sprints"
  workers "tp$n" "$n"
  sleep 0.5
  t0=$EPOCHREALTIME
  (cd "$work/tp$n" && "$bin" start --remote origin > "$work/tp$n.out" 2>&1)
  wait $pids
  t1=$EPOCHREALTIME
  done_count=$(git -C "$work/server/tp$n.git" log --format=%s refs/supervisor/state | grep -c ': sprint .* RUNNING -> COMPLETED$' || true)
  # Lost races, as each worker reported them when it left.
  races=$(python3 - "$work"/tp"$n"-*.json <<'PY'
import json, sys
refused = lost = 0
for path in sys.argv[1:]:
    text = open(path).read()
    s = json.loads(text[text.index("{"):])
    refused += s["refused_pushes"]
    lost += s["lost_claims"]
print(refused, lost)
PY
)
  echo "$n $t0 $t1 $done_count $races" >> "$work/rates"
done

python3 - "$work/latencies" "$work/rates" "$agent_ms" "$samples" <<'PY'
import sys, statistics
lat = [ (float(b) - float(a)) * 1000 for a, b in (l.split() for l in open(sys.argv[1])) ]
if lat:
    print(f"| claim latency, median of {len(lat)} (min / max) | {statistics.median(lat):.0f} ms ({min(lat):.0f} / {max(lat):.0f} ms) |")
rates = []
for line in open(sys.argv[2]):
    n, t0, t1, done, refused, lost = line.split()
    wall = float(t1) - float(t0)
    rates.append((int(n), int(done), wall, int(done) / wall * 60, int(refused), int(lost)))
base = rates[0][3]
for n, done, wall, rate, refused, lost in rates:
    per = refused / done if done else float("nan")
    print(f"| {n} worker(s): {done} sprints of {int(sys.argv[3])} ms | {wall:.1f} s, {rate:.1f} sprints/min, {rate / base:.2f}x; {refused} refused pushes ({per:.2f} per sprint), {lost} lost claims |")
PY
