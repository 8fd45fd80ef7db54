#!/usr/bin/env bash
# `npm run quarry -- …`: the quarry command with the same environment `npm start` uses.
set -euo pipefail
here="$(dirname "${BASH_SOURCE[0]}")"
bash "$here/install-deps.sh"
source "$here/env.sh"
source "$here/local-secret.sh"
cd "$QUARRY_ROOT"
exec node apps/quarry/src/main.ts "$@"
