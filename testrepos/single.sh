#!/usr/bin/env bash
# One unit with three sequential sprints and some history.
# Usage: single.sh DEST PLAN_FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
dest=$1 plans=$2
init_repo "$dest"
cp "$plans/single/EXECUTION_PLAN.md" EXECUTION_PLAN.md
mkdir -p src
echo 'fn main() {}' > src/main.rs
commit_all "Initial commit"
echo '// args' > src/args.rs
commit_all "Start on args"
