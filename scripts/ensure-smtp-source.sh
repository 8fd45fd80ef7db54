#!/usr/bin/env bash
# Postfix's smtp-source and smtp-sink (the smtp bench's load generator and destination) and Postfix
# itself (its reference), extracted from Debian's package into .tools/postfix. Nothing is installed
# system-wide; the bench starts Postfix from there, in a temporary folder, and stops it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ -x "$root/.tools/postfix/usr/sbin/smtp-source" ] && exit 0
echo "quarry: fetching Debian's postfix package for smtp-source (extracted into .tools/postfix)" >&2
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download postfix >/dev/null 2>&1) || { apt-get update -qq && (cd "$work" && apt-get download postfix >/dev/null); }
mkdir -p "$root/.tools/postfix"
dpkg -x "$work"/postfix_*.deb "$root/.tools/postfix"
