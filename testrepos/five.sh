#!/usr/bin/env bash
# Five packages over three layers with file-exists exit criteria; the agent
# is fake-agent, driven by $FAKE_AGENT_SCRIPT (a directory of scripts).
# Usage: five.sh DEST PLAN_FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
dest=$1 plans=$2
init_repo "$dest"
cp "$plans/five/EXECUTION_PLAN.md" EXECUTION_PLAN.md
for d in parser profiles algs validation biblioteca; do
  mkdir -p "$d"
  printf '# %s progress\n' "$d" > "$d/PROGRESS.md"
done
mkdir -p .workflow
cat > .workflow/config.toml <<'TOML'
[agent]
command = ["fake-agent"]
prompt = "stdin"

[run]
max_retries = 3
poll_interval = "200ms"
TOML
printf 'mirror-ready\n' > .gitignore
commit_all "Five packages"
