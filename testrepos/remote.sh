#!/usr/bin/env bash
# Four independent units of two sprints each at the root, for a run that
# lives on a git remote; a worker's lease lasts three seconds.
# Usage: remote.sh DEST PLAN_FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
dest=$1
init_repo "$dest"
{
  printf -- '---\nfeature_name: Four Hands\n---\n# Four Hands\n\nThe units below are independent and run in parallel.\n'
  for u in alpha beta gamma delta; do
    printf '\n## %s\n' "$u"
    for n in 1 2; do
      printf '\n### Sprint %s: Write %s part %s\n\n- Write `%s-%s.txt`\n\n**Exit Criteria**:\n- [ ] The %s part %s reads well\n' \
        "$n" "$u" "$n" "$u" "$n" "$u" "$n"
    done
  done
} > EXECUTION_PLAN.md
printf 'base\n' > README.md
fake_agent_config 100ms
printf 'retry_delay = "1s"\nlease = "3s"\n' >> .workflow/config.toml
commit_all "Four units"
