#!/usr/bin/env bash
# `npm run faults [-- <scenario>… | --quick | --list]`: the fault suite. Starts its own PostgreSQL
# and Redis on free ports (never the machine's shared ones) and every role as its own process;
# prints one row per scenario and exits non-zero naming each target missed.
set -euo pipefail
here="$(dirname "${BASH_SOURCE[0]}")"
bash "$here/install-deps.sh"
bash "$here/ensure-chromium.sh"
# Debian's server binaries for the private instances (the shared services are not used).
if ! ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 || ! command -v redis-server >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "quarry: installing Debian's postgresql and redis-server" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql redis-server >/dev/null
  else
    echo "quarry: the fault suite needs PostgreSQL and Redis binaries. Install them with: sudo apt-get install -y postgresql redis-server" >&2
    exit 1
  fi
fi
# nftables cuts a worker's network namespace off (the partition scenarios); `ip` makes the namespaces.
if ! command -v nft >/dev/null || ! command -v ip >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "quarry: installing Debian's nftables and iproute2" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nftables iproute2 >/dev/null
  else
    echo "quarry: the fault suite needs nftables and iproute2. Install them with: sudo apt-get install -y nftables iproute2" >&2
    exit 1
  fi
fi
if [ "$(id -u)" != 0 ]; then
  echo "quarry: the fault suite makes network namespaces and pauses processes: run it as root" >&2
  exit 1
fi
source "$here/env.sh"
cd "$QUARRY_ROOT"
exec node bench/faults/main.ts "$@"
