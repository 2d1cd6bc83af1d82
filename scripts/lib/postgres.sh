# shellcheck shell=bash
# A throwaway PostgreSQL cluster for tests and the demo (source this file).
#
#   pg_test_start DIR   initdb into DIR/data, start postgres on 127.0.0.1 at a
#                       free port and a Unix socket in DIR/sock, with password
#                       (SCRAM) auth for the superuser "mailwake"; writes the URL
#                       to DIR/url and exports MAILWAKE_TEST_POSTGRES_URL.
#   pg_test_stop DIR    fast shutdown, then removes DIR.
#
# Tests run the cluster with fsync and full-page writes off (a crashed test
# machine loses nothing of value). PG_TEST_DURABLE=1 keeps PostgreSQL's
# durable defaults: benchmarks use it, so their figures include every fsync.
#
# As root (CI), the server runs as the unprivileged "postgres" system user
# (from Debian's postgresql package) and DIR is handed to it.

pg_test_bindir() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n -r); do
    if [ -x "$d/initdb" ]; then echo "$d"; return 0; fi
  done
  echo "pg_test: PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin (install postgresql)" >&2
  return 1
}

# Runs a command as the postgres system user when we are root.
pg_test_as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    setpriv --reuid="$(id -u postgres)" --regid="$(id -g postgres)" --clear-groups -- "$@"
  else
    "$@"
  fi
}

PG_TEST_LIB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

pg_test_free_port() {
  python3 "$PG_TEST_LIB_DIR/free_ports.py" 1
}

pg_test_start() {
  local dir="$1" bin port password
  [ -n "$dir" ] || { echo "usage: pg_test_start DIR" >&2; return 2; }
  bin="$(pg_test_bindir)" || return 1
  mkdir -p "$dir/sock"
  dir="$(cd "$dir" && pwd -P)"   # the physical path: the server's user may not pass a symlink's directory
  password="$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
  (umask 077 && printf '%s\n' "$password" > "$dir/pwfile")
  if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || { echo "pg_test: no postgres system user (install postgresql)" >&2; return 1; }
    chown -R postgres:postgres "$dir"
  fi
  (cd "$dir" && pg_test_as_owner "$bin/initdb" -D "$dir/data" -U mailwake --pwfile="$dir/pwfile" -A scram-sha-256 \
      -E UTF8 --locale=C --no-sync --no-instructions >"$dir/initdb.log" 2>&1) \
    || { cat "$dir/initdb.log" >&2; return 1; }
  rm -f "$dir/pwfile"
  port="$(pg_test_free_port)" || return 1
  local durability="-c fsync=off -c full_page_writes=off"
  [ "${PG_TEST_DURABLE:-0}" = 1 ] && durability="-c fsync=on -c full_page_writes=on -c synchronous_commit=on"
  (cd "$dir" && pg_test_as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 start \
      -o "-p $port -k $dir/sock -c listen_addresses=127.0.0.1 $durability -c max_connections=1000 -c dynamic_shared_memory_type=mmap" \
      >/dev/null) || { tail -n 40 "$dir/postgres.log" >&2; return 1; }
  # connect_timeout=60: libpq's timer covers the login too, and a loaded CI machine has stalled one past 5 s.
  MAILWAKE_TEST_POSTGRES_URL="postgres://mailwake:${password}@127.0.0.1:${port}/postgres?sslmode=disable&connect_timeout=60"
  (umask 077 && printf '%s\n' "$MAILWAKE_TEST_POSTGRES_URL" > "$dir/url")
  export MAILWAKE_TEST_POSTGRES_URL
}

pg_test_stop() {
  local dir="$1" bin
  [ -n "$dir" ] && [ -d "$dir" ] || return 0
  dir="$(cd "$dir" && pwd -P)"
  bin="$(pg_test_bindir)" || return 1
  if [ -f "$dir/data/postmaster.pid" ]; then
    (cd "$dir" && pg_test_as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null 2>&1) || true
  fi
  rm -rf "$dir"
}
