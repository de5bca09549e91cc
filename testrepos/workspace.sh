#!/usr/bin/env bash
# Two units at the root, working in worktrees (one per unit), both about to
# edit the same line of greeting.txt; retries come after a second.
# Usage: workspace.sh DEST PLAN_FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
dest=$1 plans=$2
init_repo "$dest"
cp "$plans/shared/EXECUTION_PLAN.md" EXECUTION_PLAN.md
printf 'hello\n' > greeting.txt
printf '# progress\n' > PROGRESS.md
fake_agent_config 100ms worktree
printf 'retry_delay = "1s"\n' >> .workflow/config.toml
commit_all "Two units, one file"
