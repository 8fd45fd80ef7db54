#!/usr/bin/env bash
# Single-machine mode only: when QUARRY_SECRET_KEY is not set, use (and on first run create) a
# random key kept in .data/secret-key, so `npm start` needs nothing typed. Deployments set the
# variable themselves (a Kubernetes Secret, say): every process of one deployment must share it.
if [ -z "${QUARRY_SECRET_KEY:-}" ]; then
  key_file="$QUARRY_ROOT/.data/secret-key"
  if [ ! -s "$key_file" ]; then
    mkdir -p "$QUARRY_ROOT/.data" && (umask 077 && node -e 'process.stdout.write(require("crypto").randomBytes(32).toString("base64"))' >"$key_file")
  fi
  QUARRY_SECRET_KEY="$(cat "$key_file")"
  export QUARRY_SECRET_KEY
fi
# The card vault's key, of its own (never QUARRY_SECRET_KEY), kept the same way in .data/vault-key.
if [ -z "${VAULT_KEY:-}" ]; then
  vault_key_file="$QUARRY_ROOT/.data/vault-key"
  if [ ! -s "$vault_key_file" ]; then
    mkdir -p "$QUARRY_ROOT/.data" && (umask 077 && node -e 'process.stdout.write(require("crypto").randomBytes(32).toString("base64"))' >"$vault_key_file")
  fi
  VAULT_KEY="$(cat "$vault_key_file")"
  export VAULT_KEY
fi
