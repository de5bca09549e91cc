#!/usr/bin/env bash
# Five packages over three layers (parser, validation-profiles, wcag-algs →
# validation → biblioteca), one small sprint each, agent = fake-agent.
# Usage: layered.sh DEST PLAN_FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
dest=$1 plans=$2
init_repo "$dest"
cp "$plans/layered/EXECUTION_PLAN.md" EXECUTION_PLAN.md
units parser validation-profiles wcag-algs validation biblioteca
fake_agent_config 100ms
commit_all "Initial layout"
