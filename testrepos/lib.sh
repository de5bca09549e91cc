# Sourced by every fixture script: a pinned environment so that the same
# script always builds byte-identical repositories.
set -euo pipefail
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null TZ=UTC LC_ALL=C
export GIT_AUTHOR_NAME="Fixture Author" GIT_AUTHOR_EMAIL="author@example.com"
export GIT_COMMITTER_NAME="Fixture Committer" GIT_COMMITTER_EMAIL="committer@example.com"
_tick=1700000000
tick() {
  _tick=$((_tick + 60))
  export GIT_AUTHOR_DATE="@$_tick +0000" GIT_COMMITTER_DATE="@$_tick +0000"
}
init_repo() {
  git init -q -b main "$1"
  cd "$1"
  git config commit.gpgsign false
  git config user.name "Fixture User"
  git config user.email "user@example.com"
}
commit_all() {
  tick
  git add -A
  git commit -q -m "$1"
}
# units DIR...: one directory per work unit, each with a PROGRESS.md.
units() {
  for d in "$@"; do
    mkdir -p "$d"
    printf '# %s progress\n' "$d" > "$d/PROGRESS.md"
  done
}
# fake_agent_config POLL [WORKSPACE]: .workflow/config.toml running fake-agent,
# agents in the main worktree unless WORKSPACE says otherwise.
fake_agent_config() {
  mkdir -p .workflow
  # A silent agent is noticed after 1s and ended after 2s, so hung test
  # agents cost seconds, not the default half hour.
  printf '[agent]\ncommand = ["fake-agent"]\nprompt = "stdin"\nsilence_notice = "1s"\nsilence_kill = "2s"\nkill_grace = "2s"\n\n[run]\nmax_retries = 3\npoll_interval = "%s"\nworkspace = "%s"\n' "$1" "${2:-shared}" > .workflow/config.toml
}
