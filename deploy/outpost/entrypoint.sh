#!/bin/sh
# The outpost container's start: initialize the data directory on first run,
# point it at the relay and add the mailbox given by the environment (the
# local stack's demo mailbox), then run the command (`serve` by default).
#   MAILWAKE_OUTPOST_RELAY_URL, _RELAY_ENV (sandbox), _RELAY_CA_FILE   the relay
#   MAILWAKE_OUTPOST_MAILBOX_HOST, _PORT, _USER, _PASSWORD_FILE, _CA_FILE   one mailbox
set -eu
dir="${MAILWAKE_OUTPOST_DATA_DIR:-/var/lib/mailwake-outpost}"
if [ ! -f "$dir/secret.key" ]; then
  mailwake-outpost init --data-dir "$dir"
fi
if [ -n "${MAILWAKE_OUTPOST_RELAY_URL:-}" ]; then
  mailwake-outpost relay set --data-dir "$dir" --url "$MAILWAKE_OUTPOST_RELAY_URL" --env "${MAILWAKE_OUTPOST_RELAY_ENV:-sandbox}" \
    ${MAILWAKE_OUTPOST_RELAY_CA_FILE:+--ca-file "$MAILWAKE_OUTPOST_RELAY_CA_FILE"}
fi
if [ -n "${MAILWAKE_OUTPOST_MAILBOX_HOST:-}" ] && ! mailwake-outpost mailbox list --data-dir "$dir" | grep -q '^Demo '; then
  mailwake-outpost mailbox add --data-dir "$dir" --label Demo --host "$MAILWAKE_OUTPOST_MAILBOX_HOST" \
    --port "${MAILWAKE_OUTPOST_MAILBOX_PORT:-993}" --user "$MAILWAKE_OUTPOST_MAILBOX_USER" --password-stdin \
    ${MAILWAKE_OUTPOST_MAILBOX_CA_FILE:+--ca-file "$MAILWAKE_OUTPOST_MAILBOX_CA_FILE"} < "$MAILWAKE_OUTPOST_MAILBOX_PASSWORD_FILE"
fi
# The settings above are the entrypoint's own, not the daemon's.
unset MAILWAKE_OUTPOST_RELAY_URL MAILWAKE_OUTPOST_RELAY_ENV MAILWAKE_OUTPOST_RELAY_CA_FILE MAILWAKE_OUTPOST_MAILBOX_HOST \
  MAILWAKE_OUTPOST_MAILBOX_PORT MAILWAKE_OUTPOST_MAILBOX_USER MAILWAKE_OUTPOST_MAILBOX_PASSWORD_FILE MAILWAKE_OUTPOST_MAILBOX_CA_FILE
exec mailwake-outpost "$@" --data-dir "$dir"
