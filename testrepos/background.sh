#!/usr/bin/env bash
# server ← client: the server's sprint starts a long process and leaves it
# running; the client's agent works while it runs. Agents are never silent
# long enough to be ended for it.
# Usage: background.sh DEST PLAN_FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
dest=$1 plans=$2
init_repo "$dest"
cp "$plans/background/EXECUTION_PLAN.md" EXECUTION_PLAN.md
units server client
fake_agent_config 50ms
sed -i 's/silence_notice = "1s"/silence_notice = "5m"/; s/silence_kill = "2s"/silence_kill = "10m"/' .workflow/config.toml
printf 'server.pid\nclient-go\n' > .gitignore
commit_all "A server in the background"
