#!/usr/bin/env bash
# Eight independent units of two sprints each at the root, working in
# worktrees; retries come after a second.
# Usage: workspace_many.sh DEST PLAN_FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
dest=$1
init_repo "$dest"
{
  printf '# Many Hands\n\nThe units below are independent and run in parallel.\n'
  for u in alpha beta gamma delta epsilon zeta eta theta; do
    printf '\n## %s\n' "$u"
    for n in 1 2; do
      printf '\n### Sprint %s: Write %s part %s\n\n- Write `%s-%s.txt`\n\n**Exit Criteria**:\n- [ ] The %s part %s reads well\n' \
        "$n" "$u" "$n" "$u" "$n" "$u" "$n"
    done
  done
} > EXECUTION_PLAN.md
printf 'base\n' > README.md
fake_agent_config 100ms worktree
printf 'retry_delay = "1s"\n' >> .workflow/config.toml
commit_all "Eight units"
