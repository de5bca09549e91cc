#!/usr/bin/env bash
# Workers that last: WORKERS workers (one agent each, each in its own clone)
# run a plan of SPRINTS sprints from a real git server on 127.0.0.1 (`git
# daemon --enable=receive-pack`) for about DURATION seconds while
#  - workers are killed with SIGKILL at random (and started again in their
#    clone a few seconds later: the new worker publishes what the killed one
#    left queued; the sprint a killed worker held is taken by another worker
#    once its lease lapses);
#  - the server has outages shorter than the lease: the daemon is killed and
#    started again, or stopped (SIGSTOP) and continued, so connections are
#    refused or hang.
# Sampled every second during the run: zombie processes whose parent is a
# worker or one of its descendants (/proc), and the worktrees of each clone
# (`git worktree list`): at most one per unit. At the end:
#  - every sprint COMPLETED exactly once (`git supervisor log --format json`);
#  - claims per sprint: a sprint claimed again is allowed only when the
#    worker that held the earlier claim was SIGKILLed; any other re-run
#    (e.g. because of an outage) is a failure;
#  - `git fsck` clean on the server's repository.
# Usage: scripts/soak-workers.sh [DURATION_S] [SPRINTS] [WORKERS]
#   default 1800 500 4; a short try: scripts/soak-workers.sh 180 60 4
# Environment: AGENT_MS (each agent's work; default paced so the run lasts
# about DURATION), SPRINTS_PER_UNIT (4), LEASE (30, seconds), KILL_EVERY
# (mean seconds between SIGKILLs, 40), OUTAGE_EVERY (mean seconds between
# outages, 60), OUTAGE_MAX (longest outage, seconds, 12; below the lease),
# BIN (the binary; default a release build), KEEP (keep the work directory).
# Exit status 0 when every check holds.
set -euo pipefail
duration=${1:-1800}
sprints=${2:-500}
nworkers=${3:-4}
per_unit=${SPRINTS_PER_UNIT:-4}
lease=${LEASE:-30}
kill_every=${KILL_EVERY:-40}
outage_every=${OUTAGE_EVERY:-60}
outage_max=${OUTAGE_MAX:-12}
units=$(( (sprints + per_unit - 1) / per_unit ))
sprints=$(( units * per_unit ))
# Paced so the workers are busy for about 3/4 of DURATION (the rest is
# claims, verdicts, kills and outages).
agent_ms=${AGENT_MS:-$(( nworkers * duration * 750 / sprints ))}
[ "$agent_ms" -ge 500 ] || agent_ms=500
cd "$(dirname "$0")/.."
[ -n "${BIN:-}" ] || cargo build --release --quiet
bin=${BIN:-${CARGO_TARGET_DIR:-$PWD/target}/release/git-supervisor}
work=$(mktemp -d /tmp/soak-workers.XXXXXX)
echo "work directory: $work"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null NO_COLOR=1
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$work/server" "$work/pids"
host=$(hostname)

daemon_up() {
  git daemon --reuseaddr --export-all --enable=receive-pack --listen=127.0.0.1 \
    --port="$port" --base-path="$work/server" "$work/server" >/dev/null 2>&1 &
  echo $! > "$work/pids/daemon"
  until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do sleep 0.05; done
}

# worker_up I: worker I in its clone, in the background; its pid in
# pids/worker-I, and in `workers` with its start time.
worker_up() {
  local i=$1 c=$work/clones/w$1
  (cd "$c" && exec "$bin" worker --poll 200ms --format json >> "$work/worker-$i.out" 2>&1) &
  echo $! > "$work/pids/worker-$i"
  echo "$! $i $EPOCHREALTIME" >> "$work/workers"
  disown $!
}

cleanup() {
  touch "$work/stop"
  for f in "$work"/pids/*; do
    [ -f "$f" ] || continue
    p=$(cat "$f")
    kill -CONT "$p" 2>/dev/null || true
    kill "$p" 2>/dev/null || true
  done
  [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT

daemon_up

# The plan: UNITS independent units of PER_UNIT sprints each.
src=$work/plan
mkdir -p "$src/.workflow"
{
  printf -- '---\nfeature_name: Soak\n---\n# Soak\n\n| Unit | Dependencies |\n|---|---|\n'
  for u in $(seq -w 1 "$units"); do printf '| unit%s | none |\n' "$u"; done
  for u in $(seq -w 1 "$units"); do
    printf '\n## unit%s\n' "$u"
    for s in $(seq 1 "$per_unit"); do
      printf '\n### Sprint %s: Part %s of unit %s\n\n- Write `unit%s-%s.txt`\n' "$s" "$s" "$u" "$u" "$s"
    done
  done
} > "$src/EXECUTION_PLAN.md"
# The agent works AGENT_MS (give or take a fifth) and commits one file.
cat > "$src/.workflow/agent.sh" <<AGENT
#!/bin/bash
echo "\$EPOCHREALTIME \$SUPERVISOR_UNIT \$SUPERVISOR_SPRINT \$\$" >> "$work/agent-starts"
sleep \$(awk -v r=\$RANDOM "BEGIN { print $agent_ms * (0.8 + 0.4 * r / 32768) / 1000 }")
f="\${SUPERVISOR_UNIT_DIR:-.}/\$SUPERVISOR_UNIT-\$SUPERVISOR_SPRINT.txt"
mkdir -p "\$(dirname "\$f")"
# Appended: a sprint handed to an agent again still has work to commit.
echo "\$SUPERVISOR_UNIT \$SUPERVISOR_SPRINT \$EPOCHREALTIME" >> "\$f"
git add -- "\$f"
git commit -q -m "\$SUPERVISOR_UNIT: sprint \$SUPERVISOR_SPRINT"
AGENT
chmod +x "$src/.workflow/agent.sh"
printf '[agent]\ncommand = [".workflow/agent.sh"]\nprompt = "stdin"\n\n[run]\npoll_interval = "200ms"\nlease = "%ss"\n' "$lease" \
  > "$src/.workflow/config.toml"
(cd "$src" && git init -q -b main && git config user.name S && git config user.email s@example.com \
  && git add -A && git commit -qm plan)
git clone -q --bare "$src" "$work/server/soak.git"
git -C "$src" remote add origin "git://127.0.0.1:$port/soak.git"
for i in $(seq 1 "$nworkers"); do
  git clone -q "git://127.0.0.1:$port/soak.git" "$work/clones/w$i"
  git -C "$work/clones/w$i" config user.name W
  git -C "$work/clones/w$i" config user.email w@example.com
done

# The sampler: zombies under workers, worktrees per unit per clone.
python3 - "$work" "$nworkers" > "$work/samples.json" 2> "$work/sampler.err" <<'PY' &
import json, os, re, subprocess, sys, time
work, n = sys.argv[1], int(sys.argv[2])
zombies = {}          # "pid<-ppid" -> [first seen, last seen]
max_worktrees = 0     # most worktrees of one unit in one clone
max_total = 0         # most unit worktrees in one clone
over = []             # samples with two worktrees of a unit in a clone
samples = 0
last_wt = 0.0
def worker_pids():
    out = set()
    for i in range(1, n + 1):
        try:
            out.add(int(open(f"{work}/pids/worker-{i}").read()))
        except Exception:
            pass
    return out
while not os.path.exists(f"{work}/stop"):
    samples += 1
    procs = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            stat = open(f"/proc/{d}/stat").read()
        except Exception:
            continue
        rest = stat[stat.rindex(")") + 2:].split()
        procs[int(d)] = (rest[0], int(rest[1]))
    under = worker_pids()
    grew = True
    while grew:
        grew = False
        for pid, (state, ppid) in procs.items():
            if ppid in under and pid not in under and state != "Z":
                under.add(pid)
                grew = True
    for pid, (state, ppid) in procs.items():
        if state == "Z" and ppid in under:
            z = zombies.setdefault(f"{pid}<-{ppid}", [time.time(), time.time()])
            z[1] = time.time()
    if time.time() - last_wt >= 2:
        last_wt = time.time()
        for i in range(1, n + 1):
            r = subprocess.run(["git", "-C", f"{work}/clones/w{i}", "worktree", "list", "--porcelain"],
                               capture_output=True, text=True)
            per = {}
            for line in r.stdout.splitlines():
                m = re.match(r"branch refs/heads/supervisor/[^/]+/units/(.+)-[0-9a-f]{8}$", line)
                if m:
                    per[m.group(1)] = per.get(m.group(1), 0) + 1
            if per:
                max_worktrees = max(max_worktrees, max(per.values()))
                max_total = max(max_total, sum(per.values()))
                for u, c in per.items():
                    if c > 1:
                        over.append([time.time(), i, u, c])
    time.sleep(1)
# A zombie seen once may be one a worker was about to reap: those seen in
# samples 5 s apart or more are the ones left.
lasting = {k: round(b - a, 1) for k, (a, b) in zombies.items() if b - a >= 5}
print(json.dumps({"samples": samples, "zombies_seen": len(zombies),
                  "zombies_lasting": len(lasting),
                  "zombie_longest_s": max([b - a for a, b in zombies.values()], default=0),
                  "zombies": sorted(lasting.items())[:20], "max_worktrees_per_unit": max_worktrees,
                  "max_unit_worktrees_in_a_clone": max_total, "over": over[:20]}))
PY
echo $! > "$work/pids/sampler"

t0=$EPOCHREALTIME
(cd "$src" && "$bin" start --remote origin --yes > "$work/start.out" 2>&1) || { cat "$work/start.out"; exit 1; }
for i in $(seq 1 "$nworkers"); do worker_up "$i"; done
echo "started: $units units x $per_unit sprints = $sprints sprints, $nworkers workers, agent ${agent_ms} ms, lease ${lease}s"

completed() {
  git -C "$work/server/soak.git" log --format=%s refs/supervisor/state 2>/dev/null \
    | grep -c ': sprint .* -> COMPLETED$' || true
}

# Chaos until DURATION has passed (or the run is done): SIGKILLs and
# outages at random times, one at a time.
end=$(( $(date +%s) + duration ))
kills=0 outages=0 outage_s=0
next_kill=$(( $(date +%s) + RANDOM % (2 * kill_every) + 5 ))
next_outage=$(( $(date +%s) + RANDOM % (2 * outage_every) + 5 ))
while [ "$(date +%s)" -lt "$end" ]; do
  now=$(date +%s)
  done_now=$(completed)
  [ "$done_now" -ge "$sprints" ] && break
  if [ "$now" -ge "$next_kill" ]; then
    i=$(( RANDOM % nworkers + 1 ))
    p=$(cat "$work/pids/worker-$i")
    if kill -0 "$p" 2>/dev/null; then
      kill -KILL "$p"
      echo "$p $i $EPOCHREALTIME" >> "$work/kills"
      kills=$((kills + 1))
      sleep $(( RANDOM % 5 + 1 ))
      worker_up "$i"
    fi
    next_kill=$(( $(date +%s) + RANDOM % (2 * kill_every) + 1 ))
  elif [ "$now" -ge "$next_outage" ]; then
    d=$(( RANDOM % (outage_max - 1) + 2 ))
    p=$(cat "$work/pids/daemon")
    if [ $((RANDOM % 2)) = 0 ]; then
      kill "$p"; wait "$p" 2>/dev/null || true
      echo "down $d $EPOCHREALTIME" >> "$work/outages"
      sleep "$d"
      daemon_up
    else
      kill -STOP "$p"
      echo "stopped $d $EPOCHREALTIME" >> "$work/outages"
      sleep "$d"
      kill -CONT "$p"
    fi
    outages=$((outages + 1)) outage_s=$((outage_s + d))
    next_outage=$(( $(date +%s) + RANDOM % (2 * outage_every) + 1 ))
  fi
  sleep 1
  if [ $(( (now - ${t0%.*}) / 15 )) != "${shown:-}" ]; then
    shown=$(( (now - ${t0%.*}) / 15 ))
    printf '%5ds: %d/%d sprints completed, %d kills, %d outages\n' \
      $(( now - ${t0%.*} )) "$done_now" "$sprints" "$kills" "$outages"
  fi
done

# The run finishes on its own; a worker still running after that, or a run
# that does not finish within 10 minutes, fails the soak.
limit=$(( $(date +%s) + 600 ))
while [ "$(completed)" -lt "$sprints" ] && [ "$(date +%s)" -lt "$limit" ]; do
  # A worker that left (its run finished, or an error) is not restarted.
  sleep 2
done
t1=$EPOCHREALTIME
for i in $(seq 1 "$nworkers"); do
  p=$(cat "$work/pids/worker-$i")
  for _ in $(seq 1 60); do kill -0 "$p" 2>/dev/null || break; sleep 1; done
  kill -0 "$p" 2>/dev/null && echo "worker $i ($p) still running after the run" >> "$work/problems"
done
touch "$work/stop"
wait "$(cat "$work/pids/sampler")" 2>/dev/null || true

(cd "$work/clones/w1" && "$bin" worker --once --format json > /dev/null 2>&1 || true)
(cd "$work/clones/w1" && "$bin" log --format json --no-pager > "$work/log.json")
fsck=$(git -C "$work/server/soak.git" fsck --full 2>&1 && echo ok || echo FAILED)
worktrees_left=0
for i in $(seq 1 "$nworkers"); do
  n=$(git -C "$work/clones/w$i" worktree list --porcelain | grep -c '^branch refs/heads/supervisor/' || true)
  worktrees_left=$((worktrees_left + n))
done

python3 - "$work" "$host" "$sprints" "$t0" "$t1" "$kills" "$outages" "$outage_s" "$fsck" "$worktrees_left" <<'PY'
import json, os, sys, collections
work, host, sprints, t0, t1, kills, outages, outage_s, fsck, left = sys.argv[1:]
log = json.load(open(f"{work}/log.json"))
killed = set()
if os.path.exists(f"{work}/kills"):
    killed = {f"{host}/{l.split()[0]}" for l in open(f"{work}/kills")}
completed = collections.Counter()
claims = collections.defaultdict(list)
expired = collections.Counter()
for e in reversed(log):  # oldest first
    if not e.get("sprint"):
        continue
    key = f'{e["unit"]}/{e["sprint"]}'
    if e["to"] == "COMPLETED":
        completed[key] += 1
    if e["event"] == "agent-started":
        w = e["why"].split()[1] if e["why"].startswith("Worker ") else "?"
        claims[key].append(w)
    if e["event"] == "lease-expired":
        expired[key] += 1
keys = set(claims) | set(completed)
once = sum(1 for k in keys if completed[k] == 1)
twice = sorted(k for k in keys if completed[k] > 1)
never = int(sprints) - len([k for k in keys if completed[k] >= 1])
after_kill = other = 0
others = []
for k, ws in claims.items():
    for w in ws[:-1]:
        if w in killed:
            after_kill += 1
        else:
            other += 1
            others.append((k, ws))
s = json.load(open(f"{work}/samples.json"))
problems = open(f"{work}/problems").read().strip() if os.path.exists(f"{work}/problems") else ""
wall = float(t1) - float(t0)
print(f"| sprints | {sprints} ({len(keys)} claimed at least once) |")
print(f"| wall time | {wall / 60:.1f} min |")
print(f"| worker SIGKILLs | {kills} |")
print(f"| server outages | {outages} ({outage_s} s in all) |")
print(f"| COMPLETED exactly once | {once} / {sprints} (twice or more: {len(twice)}, never: {never}) |")
print(f"| re-runs after a SIGKILL of the worker holding the sprint | {after_kill} |")
print(f"| re-runs otherwise (an outage, a lost lease) | {other} |")
print(f"| lapsed leases recorded | {sum(expired.values())} |")
print(f"| zombies under workers: seen / lasting 5 s or more (longest) | {s['zombies_seen']} / {s['zombies_lasting']} ({s['zombie_longest_s']:.1f} s; {s['samples']} samples) |")
print(f"| most worktrees of one unit in one clone (most unit worktrees in a clone) | {s['max_worktrees_per_unit']} ({s['max_unit_worktrees_in_a_clone']}) |")
print(f"| unit worktrees left at the end | {left} |")
print(f"| git fsck on the server | {fsck.splitlines()[-1]} |")
if twice: print("completed more than once:", twice[:10])
if others: print("re-runs not after a SIGKILL:", others[:10])
if s["zombies"]: print("zombies:", s["zombies"][:10])
if s["over"]: print("two worktrees of a unit:", s["over"][:10])
if problems: print(problems)
ok = (once == int(sprints) and not twice and other == 0 and s["zombies_lasting"] == 0
      and s["max_worktrees_per_unit"] <= 1 and fsck.strip().endswith("ok") and not problems)
print("soak:", "PASSED" if ok else "FAILED")
sys.exit(0 if ok else 1)
PY
