#!/usr/bin/env bash
# What one round of a worker fetches, on a remote that kept finished runs:
# a bare repository served by `git daemon` on 127.0.0.1 holds the current
# run (its state, UNITS leases and UNITS unit branches plus the
# integration branch) and OLD finished runs (each UNITS unit branches, an
# integration branch and its archived state under refs/supervisor/runs/).
# A clone fetches the way a worker's first fetch does (every run:
# `+refs/supervisor/*` and `+refs/heads/supervisor/*`) and the way its
# later rounds do (the state, the leases and the run's branches), ROUNDS
# times each with one new state commit between fetches, and prints the
# median time of one fetch and the bytes the server sent (ref
# advertisement and pack, from GIT_TRACE_PACKET).
# Usage: scripts/bench-fetch.sh [OLD] [UNITS] [ROUNDS]   (default 50 64 30)
set -euo pipefail
old=${1:-50}
units=${2:-64}
rounds=${3:-30}
work=$(mktemp -d)
trap 'kill $(cat "$work/daemon.pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$work"' EXIT
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
git init -q --bare "$work/remote.git"
git init -q "$work/seed"
cd "$work/seed"
git commit -q --allow-empty -m base
base=$(git rev-parse HEAD)
{
  for r in $(seq 1 "$old"); do
    for u in $(seq 1 "$units"); do
      echo "create refs/heads/supervisor/run-$r/units/u$u $base"
    done
    echo "create refs/heads/supervisor/run-$r/integration $base"
    echo "create refs/supervisor/runs/run-$r $base"
  done
  for u in $(seq 1 "$units"); do
    echo "create refs/heads/supervisor/now/units/u$u $base"
    echo "create refs/supervisor/leases/u$u $base"
  done
  echo "create refs/heads/supervisor/now/integration $base"
} | git update-ref --stdin
state() {
  git commit -q --allow-empty -m "state $1" -m "Supervisor-Run: now"
  git push -q --force "$work/remote.git" HEAD:refs/supervisor/state
}
state 0
git push -q "$work/remote.git" 'refs/heads/supervisor/*:refs/heads/supervisor/*' 'refs/supervisor/*:refs/supervisor/*'
port=$((20000 + RANDOM % 20000))
git daemon --reuseaddr --base-path="$work" --export-all --listen=127.0.0.1 --port="$port" \
  --pid-file="$work/daemon.pid" --detach "$work"
sleep 0.5
url="git://127.0.0.1:$port/remote.git"
wide=("+refs/supervisor/*:refs/remotes/origin/supervisor/*" "+refs/heads/supervisor/*:refs/remotes/origin/supervisor/*")
round=("+refs/supervisor/state*:refs/remotes/origin/supervisor/state*" "+refs/supervisor/leases/*:refs/remotes/origin/supervisor/leases/*" "+refs/heads/supervisor/now/*:refs/remotes/origin/supervisor/now/*")
measure() {
  local name=$1
  shift
  rm -rf "$work/clone"
  git init -q "$work/clone"
  git -C "$work/clone" remote add origin "$url"
  git -C "$work/clone" fetch -q --no-tags --prune origin "$@"
  local times=() bytes=0
  for i in $(seq 1 "$rounds"); do
    state "$name-$i"
    local t0 t1
    t0=$(date +%s%N)
    GIT_TRACE_PACKET="$work/trace" git -C "$work/clone" fetch -q --no-tags --prune --no-write-fetch-head origin "$@"
    t1=$(date +%s%N)
    times+=($(((t1 - t0) / 1000)))
    bytes=$((bytes + $( (grep -a 'fetch< ' "$work/trace" || true) | wc -l) ))
    bytes_sent=$( (grep -a 'fetch< ' "$work/trace" || true) | sed 's/.*fetch< //' | wc -c)
    total_bytes=$(( ${total_bytes:-0} + bytes_sent ))
    rm -f "$work/trace"
  done
  local median
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((rounds + 1) / 2))p")
  printf '%-12s median %6.1f ms   %8d bytes and %5d packet lines from the server per fetch\n' \
    "$name" "$(echo "$median / 1000" | bc -l)" "$((total_bytes / rounds))" "$((bytes / rounds))"
  total_bytes=0
}
echo "remote: $old finished runs and the current one, $units units each; $rounds fetches each"
measure "every run" "${wide[@]}"
measure "the run" "${round[@]}"
