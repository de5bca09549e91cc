#!/usr/bin/env bash
# Five packages over three layers with file-exists exit criteria; the agent
# is fake-agent, driven by $FAKE_AGENT_SCRIPT (a directory of scripts).
# Usage: five.sh DEST PLAN_FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
dest=$1 plans=$2
init_repo "$dest"
cp "$plans/five/EXECUTION_PLAN.md" EXECUTION_PLAN.md
units parser profiles algs validation biblioteca
fake_agent_config 200ms
printf 'mirror-ready\n' > .gitignore
commit_all "Five packages"
