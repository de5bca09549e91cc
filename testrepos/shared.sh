#!/usr/bin/env bash
# Two units without a Directory (both work at the root) whose exit criteria
# cannot be run, so commits and the agents' reports decide.
# Usage: shared.sh DEST PLAN_FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
dest=$1 plans=$2
init_repo "$dest"
cp "$plans/shared/EXECUTION_PLAN.md" EXECUTION_PLAN.md
printf '# progress\n' > PROGRESS.md
fake_agent_config 100ms
commit_all "Shared directory"
