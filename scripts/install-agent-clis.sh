#!/usr/bin/env bash
# Install the agent CLIs the end-to-end tests drive: Claude Code and Codex
# from npm, aider from PyPI. Each is skipped when a working one is already on
# PATH. Versions are pinned to those the presets were written against;
# override with CLAUDE_CODE_VERSION, CODEX_VERSION, AIDER_VERSION.
set -euo pipefail

claude_version=${CLAUDE_CODE_VERSION:-2.1.197}
codex_version=${CODEX_VERSION:-0.169.0}
aider_version=${AIDER_VERSION:-0.86.2}

have() { command -v "$1" >/dev/null 2>&1 && "$@" >/dev/null 2>&1; }

npm_packages=""
have claude --version || npm_packages="$npm_packages @anthropic-ai/claude-code@$claude_version"
have codex --version || npm_packages="$npm_packages @openai/codex@$codex_version"
if [ -n "$npm_packages" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
  fi
  # shellcheck disable=SC2086
  npm install -g --no-audit --no-fund --loglevel=error $npm_packages
fi

if ! have aider --version; then
  py=$(command -v python3 || true)
  if [ -z "$py" ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-pip python3-venv >/dev/null
    py=python3
  fi
  # aider goes into its own virtualenv so its pinned dependencies do not
  # replace the system's; the binary is linked onto PATH.
  venv=${AIDER_VENV:-/opt/aider-venv}
  if ! "$py" -m venv "$venv"; then
    # Debian's python3 keeps venv in its own package.
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
    "$py" -m venv "$venv"
  fi
  "$venv/bin/pip" install --quiet --disable-pip-version-check "aider-chat==$aider_version"
  ln -sf "$venv/bin/aider" /usr/local/bin/aider
fi

echo "agent CLIs: claude $(claude --version 2>/dev/null | head -1), codex $(codex --version 2>/dev/null | head -1), $(aider --version 2>/dev/null | tail -1)"
