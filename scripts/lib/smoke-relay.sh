# shellcheck shell=bash
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
# Smoke test of the real `mailwake-relay` process (source this file):
# configure it through a --config file, `serve`, check /healthz, /readyz
# (ready: it checks only PostgreSQL; accounts is absent on purpose and shows as
# unreachable in /metrics and the log), a refused envelope, then SIGTERM it and require a clean exit (0).
#
#   relay_smoke BIN_DIR PYTHON     (needs MAILWAKE_TEST_POSTGRES_URL)

relay_smoke() {
  local bin="$1/mailwake-relay" py="$2" port admin db url pid status dir service_token operator_token
  mw_free_ports port admin
  db="relay_smoke_$$"
  url="$(mw_db_url "$MAILWAKE_TEST_POSTGRES_URL" "$db")"
  psql "$MAILWAKE_TEST_POSTGRES_URL" -qc "CREATE DATABASE $db" >/dev/null
  dir="$(mktemp -d /tmp/relay-smoke.XXXXXX)"
  service_token="smoke-service-$(mw_random_hex 24)"
  operator_token="smoke-operator-$(mw_random_hex 24)"
  (umask 077 && openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$dir/AuthKey.p8" 2>/dev/null)
  (umask 077 && cat > "$dir/relay.env" <<ENV
MAILWAKE_RELAY_LISTEN=127.0.0.1:$port
MAILWAKE_RELAY_ADMIN_LISTEN=127.0.0.1:$admin
MAILWAKE_RELAY_PUBLIC_ORIGIN=https://relay.smoke
MAILWAKE_RELAY_DATABASE_URL=$url
MAILWAKE_RELAY_ALLOW_PLAIN_HTTP=true
MAILWAKE_RELAY_ACCOUNTS_URL=http://127.0.0.1:9
MAILWAKE_RELAY_ACCOUNTS_TOKEN=$service_token
MAILWAKE_RELAY_APNS_KEY_FILE=$dir/AuthKey.p8
MAILWAKE_RELAY_APNS_KEY_ID=SMOKEKEY01
MAILWAKE_RELAY_APNS_TEAM_ID=SMOKETEAM1
MAILWAKE_RELAY_APNS_BUNDLE_ID=net.mailwake.app
MAILWAKE_RELAY_OPERATOR_TOKEN=$operator_token
ENV
  )
  "$bin" serve --config "$dir/relay.env" 2> "$dir/relay.log" &
  pid=$!
  mw_on_exit "kill -KILL $pid 2>/dev/null || true; rm -rf '$dir'"
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$admin/healthz" >/dev/null && break; sleep 0.1; done
  curl -sf "http://127.0.0.1:$admin/healthz" | grep -q '"ok"' || { echo "smoke: /healthz failed"; cat "$dir/relay.log"; return 1; }
  mw_wait_until 30 "the relay ready (PostgreSQL only)" sh -c "curl -sf 'http://127.0.0.1:$admin/readyz' | grep -q '\"postgres\":\"ok\"'"
  mw_wait_until 30 "the relay reporting accounts unreachable" sh -c "curl -s 'http://127.0.0.1:$admin/metrics' | grep -q '^mailwake_relay_accounts_reachable 0'"
  grep -q '"msg":"accounts unreachable"' "$dir/relay.log" || { echo "smoke: no log line says accounts is unreachable"; cat "$dir/relay.log"; return 1; }
  curl -s -X POST -H 'Content-Type: application/json' -d '{"v":1}' "http://127.0.0.1:$port/v1/envelopes" | grep -q 'urn:mailwake:problem:malformed' \
    || { echo "smoke: no problem document for a malformed envelope"; cat "$dir/relay.log"; return 1; }
  mw_wait_until 10 "the relay counting the refusal" sh -c "curl -s 'http://127.0.0.1:$admin/metrics' | grep -q -F 'mailwake_relay_envelopes_refused_total{reason=\"malformed\"} 1'"
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$admin/admin")" = 401 ] || { echo "smoke: /admin is open without the token"; return 1; }
  kill -TERM "$pid"
  status=0
  wait "$pid" || status=$?
  psql "$MAILWAKE_TEST_POSTGRES_URL" -qc "DROP DATABASE $db WITH (FORCE)" >/dev/null
  if [ "$status" -ne 0 ]; then echo "smoke: mailwake-relay exited $status after SIGTERM"; cat "$dir/relay.log"; return 1; fi
  if grep -q -F -e "$service_token" -e "$operator_token" "$dir/relay.log"; then echo "smoke: a token reached the log"; return 1; fi
  echo "smoke: mailwake-relay served, answered health/readiness/metrics, refused a bad envelope and stopped cleanly on SIGTERM"
  rm -rf "$dir"
}
