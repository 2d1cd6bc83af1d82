# shellcheck shell=bash
# Helpers of the process smoke runs (source this file).
#
#   smoke_free_port PYTHON              a free TCP port on 127.0.0.1
#   smoke_database_url PYTHON DB        $MAILWAKE_TEST_POSTGRES_URL with its database replaced by DB

smoke_free_port() {
  "$1" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

smoke_database_url() {
  "$1" - "$MAILWAKE_TEST_POSTGRES_URL" "$2" <<'PY'
import sys, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1])
print(urllib.parse.urlunsplit((u.scheme, u.netloc, "/" + sys.argv[2], u.query, "")))
PY
}
