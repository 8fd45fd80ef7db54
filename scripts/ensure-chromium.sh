#!/usr/bin/env bash
# Playwright drives Debian's Chromium (never a browser download of its own): the browser miner runs
# Debian's headless shell (chromium-headless-shell, ADR 0021); the dashboard and booking-page tests
# and the rates role run the full browser (chromium).
set -euo pipefail
chromium_path="${CHROMIUM_PATH:-/usr/bin/chromium-headless-shell}"
full_chromium_path="${RATES_CHROMIUM_PATH:-/usr/bin/chromium}"
[ -x "$chromium_path" ] && [ -x "$full_chromium_path" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "quarry: installing Debian's chromium and chromium-headless-shell" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-headless-shell >/dev/null
else
  echo "quarry: Chromium is missing at $chromium_path or $full_chromium_path." >&2
  echo "Install it with: sudo apt-get install -y chromium chromium-headless-shell" >&2
  exit 1
fi
