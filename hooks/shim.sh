#!/bin/sh
# START git-supervisor
# Wakes git supervisor after @HOOK@; never fails the git command.
# Remove with `git supervisor hooks uninstall` (restores any previous hook).
status=0
here=$(dirname "$0")
if [ -x "$here/@HOOK@.pre-git-supervisor" ]; then
  "$here/@HOOK@.pre-git-supervisor" "$@"
  status=$?
fi
if [ -z "$GIT_SUPERVISOR_INTERNAL" ] && command -v git-supervisor >/dev/null 2>&1; then
  git-supervisor hook @HOOK@ "$@" </dev/null || true
fi
exit $status
# END git-supervisor
