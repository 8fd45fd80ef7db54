#!/usr/bin/env bash
# The mailbox tests run a private Dovecot IMAP server (Debian's dovecot-imapd) on loopback, with its
# own config in a temp folder; the machine's dovecot service is never started or touched.
set -euo pipefail
[ -x /usr/sbin/dovecot ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "quarry: installing Debian's dovecot-imapd" >&2
  # policy-rc.d keeps the package's post-install from starting the system service.
  policy=/usr/sbin/policy-rc.d
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy"
    trap 'rm -f "$policy"' EXIT
  fi
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dovecot-imapd >/dev/null
else
  echo "quarry: Dovecot is missing at /usr/sbin/dovecot." >&2
  echo "Install it with: sudo apt-get install -y dovecot-imapd" >&2
  exit 1
fi
