#!/usr/bin/env bash
# The deployment tests render the Kubernetes manifests with `kubectl kustomize` (no cluster needed):
# Debian's kubernetes-client when the machine has no kubectl.
set -euo pipefail
command -v kubectl >/dev/null && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "quarry: installing Debian's kubernetes-client (kubectl)" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq kubernetes-client >/dev/null
else
  echo "quarry: kubectl is missing; the deployment tests render the manifests with it." >&2
  echo "Install it with: sudo apt-get install -y kubernetes-client" >&2
  exit 1
fi
