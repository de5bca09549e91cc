#!/usr/bin/env bash
# Five packages over three layers (parser, validation-profiles, wcag-algs →
# validation → biblioteca), one small sprint each, agent = fake-agent.
# Usage: layered.sh DEST PLAN_FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
dest=$1 plans=$2
init_repo "$dest"
cp "$plans/layered/EXECUTION_PLAN.md" EXECUTION_PLAN.md
for d in parser validation-profiles wcag-algs validation biblioteca; do
  mkdir -p "$d"
  printf '# %s progress\n' "$d" > "$d/PROGRESS.md"
done
mkdir -p .workflow
cat > .workflow/config.toml <<'TOML'
[agent]
command = ["fake-agent"]
prompt = "stdin"

[run]
poll_interval = "100ms"
TOML
commit_all "Initial layout"
