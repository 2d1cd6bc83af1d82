# shellcheck shell=bash
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
# Smoke test of the real `mailwake-accounts` process (source this file):
# configure it through the environment, `serve`, check /healthz and /readyz
# on the admin listener, register a device over the public listener, then
# SIGTERM it and require a clean exit (0) within the grace period.
#
#   accounts_smoke BIN_DIR PYTHON     (needs MAILWAKE_TEST_POSTGRES_URL)

accounts_smoke() {
  local bin="$1/mailwake-accounts" py="$2" port admin db url pid status log token
  mw_free_ports port admin
  db="accounts_smoke_$$"
  url="$(mw_db_url "$MAILWAKE_TEST_POSTGRES_URL" "$db")"
  psql "$MAILWAKE_TEST_POSTGRES_URL" -qc "CREATE DATABASE $db" >/dev/null
  log="$(mktemp /tmp/accounts-smoke.XXXXXX.log)"
  token="smoke-$(mw_random_hex 24)"
  MAILWAKE_ACCOUNTS_LISTEN="127.0.0.1:$port" MAILWAKE_ACCOUNTS_ADMIN_LISTEN="127.0.0.1:$admin" \
  MAILWAKE_ACCOUNTS_PUBLIC_ORIGIN="https://accounts.smoke" MAILWAKE_ACCOUNTS_DATABASE_URL="$url" \
  MAILWAKE_ACCOUNTS_ALLOW_PLAIN_HTTP=true MAILWAKE_ACCOUNTS_SERVICE_TOKENS="$token" \
    "$bin" serve 2> "$log" &
  pid=$!
  mw_on_exit "kill -KILL $pid 2>/dev/null || true; rm -f '$log'"
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$admin/readyz" >/dev/null && break; sleep 0.1; done
  curl -sf "http://127.0.0.1:$admin/healthz" | grep -q '"ok"' || { echo "smoke: /healthz failed"; cat "$log"; return 1; }
  curl -sf "http://127.0.0.1:$admin/readyz" | grep -q '"ready"' || { echo "smoke: /readyz failed"; cat "$log"; return 1; }
  # An unsigned registration is refused with a problem document.
  curl -s -X POST -H 'Content-Type: application/json' -d '{}' "http://127.0.0.1:$port/v1/devices" | grep -q 'urn:mailwake:problem:' \
    || { echo "smoke: no problem document"; cat "$log"; return 1; }
  mw_output_has 'mailwake_accounts_http_requests_total' curl -s "http://127.0.0.1:$admin/metrics" || { echo "smoke: no metrics"; return 1; }
  kill -TERM "$pid"
  status=0
  wait "$pid" || status=$?
  psql "$MAILWAKE_TEST_POSTGRES_URL" -qc "DROP DATABASE $db" >/dev/null
  if [ "$status" -ne 0 ]; then echo "smoke: mailwake-accounts exited $status after SIGTERM"; cat "$log"; return 1; fi
  grep -q '"msg":"listening"' "$log" || { echo "smoke: no listening line"; return 1; }
  if grep -q -F "$token" "$log"; then echo "smoke: a token reached the log"; return 1; fi
  echo "smoke: mailwake-accounts served, answered health/readiness/metrics and stopped cleanly on SIGTERM"
  rm -f "$log"
}
