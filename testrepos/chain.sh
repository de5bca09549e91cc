#!/usr/bin/env bash
# lib ← app in one phase with a phase build that fails while lib/lib.txt
# says "bug" and logs each run to build.log.
# Usage: chain.sh DEST PLAN_FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
dest=$1 plans=$2
init_repo "$dest"
cp "$plans/chain/EXECUTION_PLAN.md" EXECUTION_PLAN.md
units lib app
fake_agent_config 100ms
cat >> .workflow/config.toml <<'TOML'

[build]
command = "sh build.sh"
timeout = "1m"
TOML
cat > build.sh <<'SH'
#!/bin/sh
echo "build" >> build.log
if grep -q bug lib/lib.txt 2>/dev/null; then
  echo "error: lib/lib.txt: the library has a bug"
  exit 1
fi
echo "all tests passed"
SH
printf 'build.log\n' > .gitignore
commit_all "Chain in one phase"
