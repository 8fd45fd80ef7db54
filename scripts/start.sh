#!/usr/bin/env bash
# `npm start`: everything one machine needs, then every role in one process.
set -euo pipefail
here="$(dirname "${BASH_SOURCE[0]}")"
# A taken port (PORT, METRICS_PORT, SMTP_PORT, DEMO_PORT…) is named now, not after the installs.
source "$here/env.sh"
node "$QUARRY_ROOT/apps/quarry/src/port-check.ts" --role "${QUARRY_ROLE:-all}" "$@"
bash "$here/install-deps.sh"
bash "$here/ensure-services.sh"
bash "$here/ensure-chromium.sh" || echo "quarry: continuing without Chromium; browser-driven mining will fail" >&2
source "$here/env.sh"
source "$here/local-secret.sh"
# What this start uses is recorded there, so `npm run quarry -- …` beside it uses the same settings.
export QUARRY_LOCAL_CONFIG="${QUARRY_LOCAL_CONFIG:-$QUARRY_ROOT/.data/quarry.json}" QUARRY_RECORDS_SETTINGS=1
mkdir -p "$(dirname "$QUARRY_LOCAL_CONFIG")"
cd "$QUARRY_ROOT"
# The mail role's young generation is capped as where it runs alone (mailProcessNodeOptions, ADR 0037).
exec node --max-semi-space-size=16 apps/quarry/src/main.ts start --role "${QUARRY_ROLE:-all}" "$@"
