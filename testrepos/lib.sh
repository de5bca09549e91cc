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
