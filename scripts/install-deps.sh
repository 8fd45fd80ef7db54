#!/usr/bin/env bash
# Installs npm packages when missing or older than package-lock.json.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$QUARRY_ROOT"
stamp=node_modules/.quarry-installed
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ] || [ package.json -nt "$stamp" ]; then
  echo "quarry: installing npm packages" >&2
  # Not `npm ci`: npm 11 writes lockfiles without other platforms' optional bindings (oxc-parser,
  # turbo) and `npm ci` then refuses its own lockfile. `npm install` keeps the locked versions.
  npm install --no-audit --no-fund --loglevel=error
  touch "$stamp"
fi
