#!/bin/sh
# An example agent for the `script` preset of .workflow/config.toml. Replace
# the body with your own program; git supervisor runs it from the project root
# as `.workflow/agent.sh UNIT SPRINT` with these variables set:
#   SUPERVISOR_PROMPT_FILE   the prompt for this sprint (read it)
#   SUPERVISOR_UNIT_DIR      the unit's directory, relative to the root
#   SUPERVISOR_RESULT_FILE   where to write your verdict (TOML):
#                            status = "complete" | "partial" | "failed"
#   SUPERVISOR_MODEL, SUPERVISOR_MAX_TURNS, SUPERVISOR_ATTEMPT, ...
# The sprint is COMPLETED only when the plan's exit criteria pass and, for a
# code sprint, a commit in the unit's directory (or one with the trailer
# `Supervisor-Sprint: UNIT/SPRINT`) exists. Exit 0 when you are done.
set -eu
unit=$1 sprint=$2
echo "git supervisor asks for sprint $sprint of $unit; the prompt is in $SUPERVISOR_PROMPT_FILE"
echo "This example does no work: edit .workflow/agent.sh to run your agent."
cat > "$SUPERVISOR_RESULT_FILE" <<RESULT
status = "failed"
summary = "the example .workflow/agent.sh does no work; replace it with your agent"
RESULT
exit 1
