#!/bin/sh
# Starts Chromium as the unprivileged user QUARRY_CHROMIUM_UID:QUARRY_CHROMIUM_GID when Quarry runs
# as root: Chromium refuses its sandbox to root, and a browser process running as root could write
# any root-owned file if it were taken over. Playwright runs this as its "executable"; the profile
# directory it created (as root, mode 0700) is handed to that user, which gets no groups, no
# capabilities and cannot gain any. Chromium's own sandbox (user and PID namespaces, seccomp-bpf)
# then confines every renderer as usual.
set -eu
profile=
for arg in "$@"; do
  case "$arg" in --user-data-dir=*) profile=${arg#--user-data-dir=} ;; esac
done
if [ -n "$profile" ]; then
  chown -R "$QUARRY_CHROMIUM_UID:$QUARRY_CHROMIUM_GID" "$profile"
  export HOME="$profile"
fi
exec setpriv --reuid="$QUARRY_CHROMIUM_UID" --regid="$QUARRY_CHROMIUM_GID" --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs -- "$QUARRY_CHROMIUM_PATH" "$@"
