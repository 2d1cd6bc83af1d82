# shellcheck shell=bash
# Schemathesis against a real mailwake-outpost process (source this file).
#
#   outpost_schemathesis BIN PYTHON SCHEMATHESIS
#
# Initializes an outpost in a scratch directory, serves its HTTPS API on
# loopback (self-signed certificate), invites a simulated device for manage
# and content, redeems the invitation with mailwake-device, and runs
# Schemathesis against Services/Outpost/openapi.yaml through a local proxy
# that signs every request as that device (Tests/Schemathesis). Fails on any
# 5xx answer. Stops everything it started.

# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

outpost_schemathesis() {
  local bin="$1" python="$2" st="$3"
  local dir port proxy_port serve_pid invite_pid proxy_pid link rc=0
  dir="$(mktemp -d /tmp/mailwake-st.XXXXXX)"
  mw_free_ports port proxy_port
  export MAILWAKE_OUTPOST_LISTEN="127.0.0.1:$port" MAILWAKE_OUTPOST_PUBLIC_URL="https://127.0.0.1:$port"
  "$bin/mailwake-outpost" init --data-dir "$dir/outpost" >/dev/null
  # A relay that is never reached: nothing here is delivered.
  "$bin/mailwake-outpost" relay set --data-dir "$dir/outpost" --url https://127.0.0.1:9 --env sandbox >/dev/null
  "$bin/mailwake-outpost" serve --data-dir "$dir/outpost" >"$dir/serve.log" 2>&1 &
  serve_pid=$!
  mw_on_exit "kill $serve_pid 2>/dev/null || true; rm -rf '$dir'"
  for _ in $(seq 1 100); do
    if "$python" -c "import socket,sys; socket.create_connection(('127.0.0.1',$port),0.2)" 2>/dev/null; then break; fi
    sleep 0.1
  done
  "$bin/mailwake-outpost" invite --data-dir "$dir/outpost" --scope manage,content --no-qr >"$dir/invite.out" 2>&1 &
  invite_pid=$!
  mw_on_exit "kill $invite_pid 2>/dev/null || true"
  for _ in $(seq 1 100); do
    link="$(grep -m1 '^mailwake://manage' "$dir/invite.out" || true)"
    [ -n "$link" ] && break
    sleep 0.1
  done
  if [ -z "$link" ]; then
    echo "no invitation link from mailwake-outpost invite:" >&2
    cat "$dir/invite.out" "$dir/serve.log" >&2
    kill "$serve_pid" "$invite_pid" 2>/dev/null || true
    return 1
  fi
  "$bin/mailwake-device" init --dir "$dir/device" >/dev/null
  "$bin/mailwake-device" manage --dir "$dir/device" "$link" >/dev/null
  wait "$invite_pid" || true
  local pin
  pin="$("$python" -c 'import sys,urllib.parse; q=urllib.parse.parse_qs(urllib.parse.urlsplit(sys.argv[1]).query); print(q["pin"][0])' "$link")"
  "$python" Tests/Schemathesis/signing_proxy.py --device "$dir/device/device.json" --target "https://127.0.0.1:$port" \
    --origin "https://127.0.0.1:$port" --pin="$pin" --listen "$proxy_port" &
  proxy_pid=$!
  mw_on_exit "kill $proxy_pid 2>/dev/null || true"
  for _ in $(seq 1 100); do
    if "$python" -c "import socket,sys; socket.create_connection(('127.0.0.1',$proxy_port),0.2)" 2>/dev/null; then break; fi
    sleep 0.1
  done
  "$st" run Services/Outpost/openapi.yaml --url "http://127.0.0.1:$proxy_port" --checks not_a_server_error \
    --max-examples "${MAILWAKE_SCHEMATHESIS_EXAMPLES:-40}" --request-timeout 30 --seed 20261129 || rc=$?
  kill "$proxy_pid" 2>/dev/null || true
  kill -TERM "$serve_pid" 2>/dev/null || true
  wait "$serve_pid" 2>/dev/null || true
  if grep -q '"level":"error"' "$dir/serve.log"; then
    echo "outpost logged errors during the Schemathesis run:" >&2
    grep '"level":"error"' "$dir/serve.log" | head -n 20 >&2
    rc=1
  fi
  rm -rf "$dir"
  unset MAILWAKE_OUTPOST_LISTEN MAILWAKE_OUTPOST_PUBLIC_URL
  return "$rc"
}
