#!/usr/bin/env bash
# Playwright drives Debian's Chromium (never a browser download of its own).
set -euo pipefail
chromium_path="${CHROMIUM_PATH:-/usr/bin/chromium}"
[ -x "$chromium_path" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "quarry: installing Debian's chromium" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
else
  echo "quarry: Chromium is missing at $chromium_path. Install it with: sudo apt-get install -y chromium" >&2
  exit 1
fi
