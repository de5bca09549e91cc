#!/usr/bin/env bash
# One deferred sprint whose condition no command can check: an agent checks
# and reports. max_continuations is low so a wait that counted as
# continuations would escalate quickly.
# Usage: waiting.sh DEST PLAN_FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
dest=$1 plans=$2
init_repo "$dest"
cp "$plans/waiting/EXECUTION_PLAN.md" EXECUTION_PLAN.md
units mirror docs
fake_agent_config 50ms
printf 'max_continuations = 2\n' >> .workflow/config.toml
printf 'mirror-live\n' > .gitignore
commit_all "Waiting on the world"
