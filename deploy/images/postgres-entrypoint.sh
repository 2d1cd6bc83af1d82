#!/usr/bin/env bash
# The entrypoint of the locally made postgres:15-bookworm (postgres.Containerfile): the
# official image's documented contract, on Debian's postgresql-15.
#   POSTGRES_PASSWORD (required unless POSTGRES_HOST_AUTH_METHOD=trust), POSTGRES_USER
#   (default postgres), POSTGRES_DB (default POSTGRES_USER), POSTGRES_INITDB_ARGS,
#   POSTGRES_HOST_AUTH_METHOD (default scram-sha-256), PGDATA; on first start (empty
#   PGDATA) /docker-entrypoint-initdb.d/*.sql, *.sql.gz and *.sh run in name order against
#   a server listening only on its Unix socket. Runs as postgres; listens on all addresses.
set -Eeo pipefail

if [ "${1:0:1}" = '-' ]; then set -- postgres "$@"; fi

if [ "$1" = 'postgres' ] && [ "$(id -u)" = '0' ]; then
  mkdir -p "$PGDATA"
  chown postgres:postgres "$PGDATA"
  chmod 700 "$PGDATA"
  install -d -o postgres -g postgres -m 3777 /var/run/postgresql
  exec gosu postgres "$BASH_SOURCE" "$@"
fi

psql_init() { psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --no-password --no-psqlrc --dbname "$POSTGRES_DB" "$@"; }

run_init_files() {
  local f
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh)
        if [ -x "$f" ]; then echo "entrypoint: running $f"; "$f"; else echo "entrypoint: sourcing $f"; . "$f"; fi ;;
      *.sql) echo "entrypoint: running $f"; psql_init -f "$f"; echo ;;
      *.sql.gz) echo "entrypoint: running $f"; gunzip -c "$f" | psql_init; echo ;;
      */\*) ;;
      *) echo "entrypoint: ignoring $f" ;;
    esac
  done
}

if [ "$1" = 'postgres' ]; then
  export POSTGRES_USER="${POSTGRES_USER:-postgres}"
  export POSTGRES_DB="${POSTGRES_DB:-$POSTGRES_USER}"
  auth="${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}"
  if [ ! -s "$PGDATA/PG_VERSION" ]; then
    if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "$auth" != trust ]; then
      echo "entrypoint: the database is uninitialized and POSTGRES_PASSWORD is not set (or set POSTGRES_HOST_AUTH_METHOD=trust)" >&2
      exit 1
    fi
    # shellcheck disable=SC2086  # POSTGRES_INITDB_ARGS is a list of words, as in the official image
    initdb --username="$POSTGRES_USER" --pwfile=<(printf '%s\n' "${POSTGRES_PASSWORD:-}") \
      ${POSTGRES_INITDB_ARGS:-} -D "$PGDATA"
    if [ "$auth" = scram-sha-256 ] || [ "$auth" = md5 ]; then
      echo "password_encryption = $([ "$auth" = md5 ] && echo md5 || echo scram-sha-256)" >> "$PGDATA/postgresql.auto.conf"
    fi
    printf '\nhost all all all %s\n' "$auth" >> "$PGDATA/pg_hba.conf"
    # A temporary server on the Unix socket only: nothing reaches it over TCP during init.
    pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -p 5432" -w start
    if [ "$POSTGRES_DB" != postgres ]; then
      exists="$(psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --no-password --no-psqlrc --dbname postgres -tAc \
        "SELECT 1 FROM pg_database WHERE datname = '$POSTGRES_DB'")"
      if [ -z "$exists" ]; then
        psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --no-password --no-psqlrc --dbname postgres \
          -c "CREATE DATABASE \"$POSTGRES_DB\""
      fi
    fi
    run_init_files
    pg_ctl -D "$PGDATA" -m fast -w stop
    echo "entrypoint: PostgreSQL init process complete; ready for start up."
  else
    echo "entrypoint: PostgreSQL database directory appears to contain a database; skipping initialization"
  fi
fi

exec "$@"
