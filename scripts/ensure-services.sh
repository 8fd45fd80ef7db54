#!/usr/bin/env bash
# Makes sure PostgreSQL and Redis answer. Uses DATABASE_URL / REDIS_URL when set, else the local
# defaults; when nothing answers on a local address, starts private instances from the system's
# binaries under ./.data, or stops with the exact install command.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$QUARRY_ROOT"
data="$QUARRY_ROOT/.data"
database_url="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/quarry}"
redis_url="${REDIS_URL:-redis://127.0.0.1:6379}"

host_port() { # prints "host port" of a URL with a default port
  node -e 'const u=new URL(process.argv[1]);console.log((u.hostname||"127.0.0.1").replace(/^\[|\]$/g,""),u.port||process.argv[2])' "$1" "$2"
}
answers() { timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null; }
is_local() { case "$1" in 127.*|localhost|::1) return 0;; *) return 1;; esac; }

read -r pg_host pg_port <<<"$(host_port "$database_url" 5432)"
if ! answers "$pg_host" "$pg_port"; then
  is_local "$pg_host" || { echo "quarry: PostgreSQL at $pg_host:$pg_port does not answer" >&2; exit 1; }
  pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)"
  if [ -z "$pg_bin" ]; then
    echo "quarry: PostgreSQL is not installed. Install it with: sudo apt-get install -y postgresql" >&2; exit 1
  fi
  echo "quarry: starting a local PostgreSQL in .data/postgres on port $pg_port" >&2
  mkdir -p "$data"
  as_pg=(); [ "$(id -u)" = 0 ] && { chown postgres "$data"; as_pg=(runuser -u postgres --); }
  if [ ! -f "$data/postgres/PG_VERSION" ]; then
    "${as_pg[@]}" "$pg_bin/initdb" -D "$data/postgres" -U postgres --auth=trust >/dev/null
  fi
  "${as_pg[@]}" "$pg_bin/pg_ctl" -D "$data/postgres" -l "$data/postgres.log" -w \
    -o "-p $pg_port -k $data -c listen_addresses=$pg_host" start >/dev/null
fi

read -r redis_host redis_port <<<"$(host_port "$redis_url" 6379)"
if ! answers "$redis_host" "$redis_port"; then
  is_local "$redis_host" || { echo "quarry: Redis at $redis_host:$redis_port does not answer" >&2; exit 1; }
  if ! command -v redis-server >/dev/null; then
    echo "quarry: Redis is not installed. Install it with: sudo apt-get install -y redis-server" >&2; exit 1
  fi
  echo "quarry: starting a local Redis in .data/redis on port $redis_port" >&2
  mkdir -p "$data/redis"
  # Append-only file: an accepted job must survive a restart of this Redis too.
  redis-server --daemonize yes --bind "$redis_host" --port "$redis_port" --dir "$data/redis" \
    --appendonly yes --save "" --maxmemory-policy noeviction --logfile "$data/redis.log"
  for _ in $(seq 50); do answers "$redis_host" "$redis_port" && break; sleep 0.1; done
fi
