#!/usr/bin/env bash
# Installs npm packages when missing or older than package-lock.json.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$QUARRY_ROOT"
stamp=node_modules/.quarry-installed
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ] || [ package.json -nt "$stamp" ]; then
  echo "quarry: installing npm packages" >&2
  if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; else npm install --no-audit --no-fund --loglevel=error; fi
  touch "$stamp"
fi
