#!/usr/bin/env bash
# Four independent units, one per sprint kind (partial, manual, deferred, hung); the agent
# is fake-agent, driven by $FAKE_AGENT_SCRIPT (a directory of scripts).
# Usage: five.sh DEST PLAN_FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
dest=$1 plans=$2
init_repo "$dest"
cp "$plans/kinds/EXECUTION_PLAN.md" EXECUTION_PLAN.md
units partial manual deferred hung
fake_agent_config 200ms
printf 'mirror-ready\n' > .gitignore
commit_all "Sprint kinds"
