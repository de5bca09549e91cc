#!/usr/bin/env bash
# A project with only a requirements document and a Makefile whose `test`
# target passes: `breakdown` writes its plan, fake-agent runs it.
# Usage: generated.sh DEST PLAN_FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
dest=$1
init_repo "$dest"
cat > REQUIREMENTS.md <<'DOC'
# Bookshelf

A tiny catalogue of the books on one shelf.

## Requirements

- Record a book with its title and author
- Export the shelf to CSV, JSON and XML
- The system MUST list the books sorted by title

## Later

- Sync the shelf with a phone
DOC
printf 'test:\n\ttrue\n' > Makefile
fake_agent_config 200ms
printf 'mirror-ready\n' > .gitignore
commit_all "Requirements"
