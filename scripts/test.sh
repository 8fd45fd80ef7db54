#!/usr/bin/env bash
# `npm test`: installs what it needs, runs the guardrails, then every test against the real
# Postgres, Redis and Chromium of this machine.
set -euo pipefail
here="$(dirname "${BASH_SOURCE[0]}")"
bash "$here/install-deps.sh"
bash "$here/ensure-services.sh"
bash "$here/ensure-chromium.sh"
bash "$here/ensure-dovecot.sh"
bash "$here/ensure-kubectl.sh"
source "$here/env.sh"
cd "$QUARRY_ROOT"
npm run -s guardrails
vitest run "$@"
