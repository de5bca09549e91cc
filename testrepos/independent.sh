#!/usr/bin/env bash
# Five units over three layers where validation depends on profiles only,
# with a phase build that always passes and logs each run to build.log.
# Usage: independent.sh DEST PLAN_FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
dest=$1 plans=$2
init_repo "$dest"
cp "$plans/independent/EXECUTION_PLAN.md" EXECUTION_PLAN.md
units parser profiles wcag validation biblioteca
fake_agent_config 100ms
cat >> .workflow/config.toml <<'TOML'

[build]
command = "sh build.sh"
timeout = "1m"
TOML
cat > build.sh <<'SH'
#!/bin/sh
echo "build" >> build.log
echo "all tests passed"
SH
printf 'build.log\n' > .gitignore
commit_all "Independent units"
