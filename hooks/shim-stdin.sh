#!/bin/sh
# START git-supervisor
# Brings git supervisor's state up to date before @HOOK@. Fails the push only
# when a guarded branch is configured ([hooks] guard) and the latest phase
# checkpoint blocks. Remove with `git supervisor hooks uninstall`.
here=${0%/*}
input=$(cat)
if [ -x "$here/@HOOK@.pre-git-supervisor" ]; then
  printf '%s\n' "$input" | "$here/@HOOK@.pre-git-supervisor" "$@" || exit $?
fi
if [ -z "$GIT_SUPERVISOR_INTERNAL" ] && command -v git-supervisor >/dev/null 2>&1; then
  printf '%s\n' "$input" | git-supervisor hook @HOOK@ "$@"
  status=$?
  # Only a deliberate refusal (exit 1) stops the push; a broken binary does not.
  [ "$status" -eq 1 ] && exit 1
fi
exit 0
# END git-supervisor
