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
#    another worker first (`lost_claims`) and the requests (fetches and
#    pushes) the workers sent the remote (`remote_requests`), per sprint.
#    The run is published first; then every worker starts as a CI job
#    does (`worker --once`, default back-off), and the wall time runs from
#    `start --remote` to the server's last COMPLETED transition.
# Usage: scripts/bench-workers.sh [AGENT_MS] [SAMPLES] [SPRINTS] [WORKERS]
#   default 3000 15 40 "1 2 4"; SAMPLES 0 skips the claim latency; e.g.
#   scripts/bench-workers.sh 10000 0 48 "16 8 1"
# The speed-up is over the count 1 when WORKERS has it, else the first.
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

# clones NAME N: N clones of NAME.git, as N machines have them.
clones() {
  local name=$1 n=$2
  for i in $(seq 1 "$n"); do
    local c=$work/clones/$name-$i
    rm -rf "$c"
    git clone -q "git://127.0.0.1:$port/$name.git" "$c"
    git -C "$c" config user.name W; git -C "$c" config user.email w@example.com
  done
}

# workers NAME N [ARGS...]: a worker in each of the N clones of NAME, in the
# background (their pids in $pids).
workers() {
  pids=
  local name=$1 n=$2
  shift 2
  for i in $(seq 1 "$n"); do
    (cd "$work/clones/$name-$i" && "$bin" worker --poll 100ms --format json "$@" > "$work/$name-$i.json" 2>"$work/$name-$i.err") &
    pids="$pids $!"
    all_pids="$all_pids $!"
  done
}

# completed NAME: the sprints the server's run holds COMPLETED.
completed() {
  git -C "$work/server/$1.git" log --format=%s refs/supervisor/state 2>/dev/null | grep -c ': sprint .* RUNNING -> COMPLETED$' || true
}

# Claim latency.
: > "$work/latencies"
for k in $(seq 1 "$samples"); do
  repo "lat$k" 2
  : > "$work/agent-starts"
  clones "lat$k" 1
  workers "lat$k" 1
  sleep 0.5
  (cd "$work/lat$k" && "$bin" start --yes --remote origin > "$work/lat$k.out" 2>&1)
  published=$EPOCHREALTIME
  wait $pids
  started=$(head -1 "$work/agent-starts")
  echo "$published $started" >> "$work/latencies"
done

# Throughput.
: > "$work/rates"
for n in $counts; do
  repo "tp$n" "$sprints"
  clones "tp$n" "$n"
  t0=$EPOCHREALTIME
  (cd "$work/tp$n" && "$bin" start --yes --remote origin > "$work/tp$n.out" 2>&1)
  workers "tp$n" "$n" --once
  # The state ref read by the shell itself each 0.1 s (no process), the
  # transitions counted only when it moved: the harness must not load the
  # machine it measures (a `git log` each 0.1 s was a tenth of its git
  # processes).
  ref=$work/server/tp$n.git/refs/supervisor/state
  last= count=0
  until [ "$count" -ge "$sprints" ]; do
    cur=
    [ -e "$ref" ] && read -r cur < "$ref"
    if [ "$cur" != "$last" ]; then
      last=$cur
      count=$(completed "tp$n")
      continue
    fi
    sleep 0.1
    # Every worker left without finishing the run: stop waiting.
    alive=0
    for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 1 ] || break
  done
  t1=$EPOCHREALTIME
  wait $pids || true
  done_count=$(completed "tp$n")
  # Lost races and requests, as each worker reported them when it left
  # (its last line).
  races=$(python3 - "$work"/tp"$n"-*.json <<'PY'
import json, sys
refused = lost = fetches = pushes = 0
for path in sys.argv[1:]:
    s = json.loads(open(path).read().strip().splitlines()[-1])
    refused += s["refused_pushes"]
    lost += s["lost_claims"]
    fetches += s["fetches"]
    pushes += s["pushes"]
print(refused, lost, fetches, pushes)
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
    n, t0, t1, done, refused, lost, fetches, pushes = line.split()
    wall = float(t1) - float(t0)
    rates.append((int(n), int(done), wall, int(done) / wall * 60, int(refused), int(lost), int(fetches), int(pushes)))
base = next((r[3] for r in rates if r[0] == 1), rates[0][3])
agent_s = int(sys.argv[3]) / 1000
print("| workers | sprints of %d ms | wall | agent-time floor | sprints/min | speed-up | refused pushes per sprint | lost claims | remote requests per sprint (fetches + pushes) |" % int(sys.argv[3]))
print("|---|---|---|---|---|---|---|---|---|")
for n, done, wall, rate, refused, lost, fetches, pushes in rates:
    per = lambda x: x / done if done else float("nan")
    floor = -(-done // n) * agent_s
    print(f"| {n} | {done} | {wall:.1f} s | {floor:.0f} s | {rate:.1f} | {rate / base:.2f}x | {per(refused):.2f} ({refused}) | {lost} | {per(fetches + pushes):.2f} ({per(fetches):.2f} + {per(pushes):.2f}) |")
PY
