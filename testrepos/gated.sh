#!/usr/bin/env bash
# Two layers with a phase build: build.sh fails while lib/lib.txt says "bug"
# and logs every build to $BUILD_LOG (or build.log), slowly when BUILD_SLOW
# is set, so tests can watch gates run.
# Usage: gated.sh DEST PLAN_FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
dest=$1 plans=$2
init_repo "$dest"
cp "$plans/gated/EXECUTION_PLAN.md" EXECUTION_PLAN.md
mkdir -p lib app .workflow
printf '# lib\n' > lib/PROGRESS.md
printf '# app\n' > app/PROGRESS.md
cat > build.sh <<'SH'
#!/bin/sh
echo "build $(date +%s%N)" >> "${BUILD_LOG:-build.log}"
[ -n "$BUILD_SLOW" ] && sleep 1
if grep -q bug lib/lib.txt 2>/dev/null; then
  echo "error: lib/lib.txt: the library has a bug"
  exit 1
fi
echo "all tests passed"
SH
cat > .workflow/config.toml <<'TOML'
[agent]
command = ["fake-agent"]

[run]
poll_interval = "200ms"

[build]
command = "sh build.sh"
timeout = "1m"
TOML
printf 'build.log\n' > .gitignore
commit_all "Gated layout"
