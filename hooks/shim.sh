#!/bin/sh
# START git-supervisor
# Wakes git supervisor after @HOOK@; never fails the git command.
# Remove with `git supervisor hooks uninstall` (restores any previous hook).
status=0
here=${0%/*}
if [ -x "$here/@HOOK@.pre-git-supervisor" ]; then
  "$here/@HOOK@.pre-git-supervisor" "$@"
  status=$?
fi
# Only shell builtins until we know a run exists: this runs on every commit.
d=${GIT_DIR:-.git}
if [ -f "$d/commondir" ]; then read -r c < "$d/commondir"; case $c in /*) d=$c ;; *) d=$d/$c ;; esac; fi
if [ -z "$GIT_SUPERVISOR_INTERNAL" ] && { [ -e "$d/refs/supervisor/state" ] || [ -e "$d/supervisor/active" ]; } \
  && command -v git-supervisor >/dev/null 2>&1; then
  # In the background: the commit does not wait for us at all.
  git-supervisor hook @HOOK@ "$@" </dev/null >/dev/null 2>&1 &
fi
exit $status
# END git-supervisor
