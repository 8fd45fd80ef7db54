#!/usr/bin/env bash
# `npm run quarry -- …`: the quarry command with the settings the last `npm start` recorded in
# .data/quarry.json (variables set in the environment win); without a recorded start, the same
# defaults and local secret key `npm start` would use.
set -euo pipefail
here="$(dirname "${BASH_SOURCE[0]}")"
bash "$here/install-deps.sh"
source "$here/env.sh"
export QUARRY_LOCAL_CONFIG="${QUARRY_LOCAL_CONFIG:-$QUARRY_ROOT/.data/quarry.json}"
# The recorded settings carry the key the server uses; the local key file only stands in without them.
[ -s "$QUARRY_LOCAL_CONFIG" ] || source "$here/local-secret.sh"
cd "$QUARRY_ROOT"
exec node apps/quarry/src/main.ts "$@"
