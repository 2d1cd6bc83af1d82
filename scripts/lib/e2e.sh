# shellcheck shell=bash
# The end-to-end suite (source this file; run from the repository root):
#
#   e2e_suite PYTHON
#
# Runs scripts/demo (the whole stack: PostgreSQL, accounts, relay, the APNs
# simulator, Dovecot, the outpost daemon, a simulated iPhone) and asserts
# what it shows, then:
#   - no mail subject, sender or code in any log or database of the relay and
#     accounts (their logs, a pg_dump of each database, the APNs record);
#   - no mailbox password in clear in the outpost's data directory;
#   - revoking the content permission stops body reads at once;
#   - the iPhone unpairing (at the relay) stops pushes: the next mail is not
#     delivered, and the outpost marks the pairing unpaired.
# Runs in the current directory's checkout (its scripts/demo and build); stops
# the stack afterwards, also on failure (a cleanup of scripts/lib/common.sh).

# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
# shellcheck source=dovecot.sh
source "$(dirname "${BASH_SOURCE[0]}")/dovecot.sh"

e2e_fail() { echo "e2e: FAILED: $*" >&2; return 1; }

e2e_suite() {
  local python="$1" demo=".demo" bin code subject sender device ref pgurl db dump pairing before after
  bin="$(swift build --show-bin-path)"
  code="$("$python" -c 'import secrets; print(10000000 + secrets.randbelow(89999999))')"   # 8 digits: never by chance in a dump
  subject="Your sign-in code"
  sender="security@northwind.example"
  mw_on_exit "cd '$PWD' && scripts/demo stop >/dev/null 2>&1"
  mkdir -p .build
  MAILWAKE_DEMO_CODE="$code" scripts/demo > ".build/e2e-demo.log" 2>&1 || { tail -n 40 .build/e2e-demo.log >&2; e2e_fail "scripts/demo"; return 1; }

  # What the iPhone saw.
  "$python" - "$demo/notification.json" "$demo/body.json" "$code" "$subject" "$sender" <<'PY' || { e2e_fail "the notification or body is not what was sent"; return 1; }
import json, sys
n = json.load(open(sys.argv[1]))["notification"]
b = json.load(open(sys.argv[2]))
code, subject, sender = sys.argv[3], sys.argv[4], sys.argv[5]
assert n["code"] == code and n["subject"] == subject and n["from"]["address"] == sender, n
assert code in b["text"] and "<script" not in b["html"] and b["remote_images"] == ["https://t.northwind.example/open.gif"], b
assert b["headers"]["subject"] == subject
print(f"e2e: the iPhone opened the notification (code {code}) and read the sanitized body")
PY

  pairing="$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["pairing_id"])' "$demo/notification.json")"

  # Nothing of the mail at the relay, accounts or APNs.
  pgurl="$(cat "$demo/pg/url")"
  for db in relay accounts; do
    dump="$demo/$db.sql"
    pg_dump "$(mw_db_url "$pgurl" "$db")" > "$dump"
    [ -s "$dump" ] || { e2e_fail "pg_dump of $db is empty"; return 1; }
  done
  for f in "$demo/relay.log" "$demo/accounts.log" "$demo/relay.sql" "$demo/accounts.sql" "$demo/apns.log" "$demo/apns-deliveries.jsonl"; do
    [ -s "$f" ] || { e2e_fail "$f is missing or empty (nothing to check)"; return 1; }
    if grep -F -q -e "$code" -e "$subject" -e "$sender" -e "Northwind Bank" "$f"; then
      e2e_fail "$(basename "$f") holds the mail's code, subject or sender"; return 1
    fi
  done
  # The checks can fail: the same search finds the pairing in the relay's dump and the subject in the outpost's own history.
  grep -F -q "$pairing" "$demo/relay.sql" \
    || { e2e_fail "the relay's dump does not even hold the pairing: the search proves nothing"; return 1; }
  grep -r -F -q "$subject" "$demo/outpost" || { e2e_fail "the outpost's history does not hold the subject: the search proves nothing"; return 1; }
  # The iPhone's receipts (PROTOCOL.md §13) are in that dump too: its deliveries are displayed, with times only.
  grep -q -P "^$pairing\t[^\t]+\t.*\tdisplayed\t" "$demo/relay.sql" \
    || { e2e_fail "the relay's dump holds no displayed delivery of the pairing: the receipt path was not covered"; return 1; }
  echo "e2e: no subject, sender or code in the relay's and accounts' logs and databases, nor in what APNs received"

  # No mailbox password in clear on the outpost.
  if grep -r -F -q "$(cat "$demo/imap-password")" "$demo/outpost"; then e2e_fail "the outpost's data directory holds the IMAP password in clear"; return 1; fi
  echo "e2e: the outpost's data directory holds no mailbox password in clear"

  # Revoking content stops body reads.
  device="$(sed -n 's/^Redeemed by device //p' "$demo/invite.out")"
  ref="$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["notification"]["ref"])' "$demo/notification.json")"
  "$bin/mailwake-outpost" devices revoke "$device" content --data-dir "$demo/outpost" >/dev/null
  if "$bin/mailwake-device" read "$ref" --dir "$demo/iphone" > "$demo/after-revoke.out" 2>&1; then e2e_fail "a body was read after revocation"; return 1; fi
  grep -q 'permission-missing' "$demo/after-revoke.out" || { cat "$demo/after-revoke.out" >&2; e2e_fail "the refusal after revocation is not permission-missing"; return 1; }
  echo "e2e: after 'devices revoke $device content' the body read is refused (permission-missing)"

  # The iPhone unpairs at the relay: the next mail is not pushed.
  "$bin/mailwake-device" unpair "$pairing" --dir "$demo/iphone" --ca-file "$demo/ca.pem" >/dev/null
  before="$(wc -l < "$demo/apns-deliveries.jsonl")"
  printf 'From: Someone <someone@example.org>\r\nSubject: After unpairing\r\n\r\nThis must not be pushed.\r\n' > "$demo/mail2.eml"
  demo_mail_append "$demo" "$demo/mail2.eml"
  for _ in $(seq 1 100); do
    mw_output_has "pairing $pairing .*unpaired" "$bin/mailwake-outpost" devices list --data-dir "$demo/outpost" && break
    sleep 0.2
  done
  mw_output_has "pairing $pairing .*unpaired" "$bin/mailwake-outpost" devices list --data-dir "$demo/outpost" || { e2e_fail "the outpost did not learn of the unpairing"; return 1; }
  sleep 1
  after="$(wc -l < "$demo/apns-deliveries.jsonl")"
  [ "$before" = "$after" ] || { e2e_fail "APNs received $((after - before)) pushes after the iPhone unpaired"; return 1; }
  echo "e2e: after the iPhone unpaired, the next mail was not pushed and the outpost marked the pairing unpaired"
}
