#!/usr/bin/env bash
# `npm run bench -- <name>`: benchmarks against the real local Postgres and Redis; prints tables.
set -euo pipefail
here="$(dirname "${BASH_SOURCE[0]}")"
bash "$here/install-deps.sh"
bash "$here/ensure-services.sh"
bash "$here/ensure-chromium.sh"
# Only the smtp bench needs Postfix's load generator.
case " $* " in *" smtp "*) bash "$here/ensure-smtp-source.sh" ;; esac
# The mailboxes bench watches accounts on a private Dovecot.
case " $* " in *" mailboxes "*) bash "$here/ensure-dovecot.sh" ;; esac
source "$here/env.sh"
cd "$QUARRY_ROOT"
exec node bench/src/main.ts "$@"
