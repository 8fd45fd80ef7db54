#!/usr/bin/env bash
# `npm run bench -- <name>`: benchmarks against the real local Postgres and Redis; prints tables.
set -euo pipefail
here="$(dirname "${BASH_SOURCE[0]}")"
bash "$here/install-deps.sh"
bash "$here/ensure-services.sh"
bash "$here/ensure-chromium.sh"
# The smtp bench needs Postfix's load generator; it, scale-out and the mailboxes bench forward to its smtp-sink.
case " $* " in *" smtp "* | *" mailboxes "* | *" scale-out "*) bash "$here/ensure-smtp-source.sh" ;; esac
# The mailboxes bench watches accounts on a private Dovecot.
case " $* " in *" mailboxes "*) bash "$here/ensure-dovecot.sh" ;; esac
source "$here/env.sh"
cd "$QUARRY_ROOT"
exec node bench/src/main.ts "$@"
