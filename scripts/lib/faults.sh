# shellcheck shell=bash
# The fault suite (source this file; run from the repository root):
#
#   faults_suite PYTHON [SCENARIO ...]
#
# Starts the demo's stack (scripts/demo) and, for each fault, appends a steady
# flow of mails to Dovecot while the fault happens, then counts what the
# simulated iPhone opened: every mail exactly once (none missing, no
# duplicate notification, no duplicate APNs delivery). Prints a table
# (appended / delivered / duplicates per fault) and fails on any mismatch.
# Scenarios: kill-relay kill-accounts kill-outpost kill-apns restart-postgres
# apns-503-429-goaway imap-drop disk-full (all by default).
# Every fault is read back before its scenario counts: a restarted process is a
# new one and ready, the simulator answers the configuration it was given, the
# database has a new postmaster, Dovecot kicked a session, the disk was full.
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
# shellcheck source=postgres.sh
source "$(dirname "${BASH_SOURCE[0]}")/postgres.sh"
# shellcheck source=dovecot.sh
source "$(dirname "${BASH_SOURCE[0]}")/dovecot.sh"

FAULT_DEMO=".demo"
FAULT_MAILS="${MAILWAKE_FAULT_MAILS:-12}"

fault_bin() { swift build --show-bin-path; }

# Whether a demo service answers: its readiness endpoint, or the outpost watching its mailbox again.
fault_service_ready() {  # SERVICE
  source "$FAULT_DEMO/endpoints.env"
  case "$1" in
    relay) curl -sf "$RELAY_ADMIN/readyz" >/dev/null ;;
    accounts) curl -sf "$ACCOUNTS_ADMIN/readyz" >/dev/null ;;
    apns) curl -sf --cacert "$FAULT_DEMO/ca.pem" "$APNS/_sim/stats" >/dev/null ;;
    outpost)   # its API answers (an unsigned request: 401; its certificate is its own, pinned by devices) and it watches the mailbox
      [ "$(curl -sk -o /dev/null -w '%{http_code}' "$OUTPOST_API/v1/status")" = 401 ] \
        && mw_output_has 'Demo/INBOX: idle' "$(fault_bin)/mailwake-outpost" status --data-dir "$FAULT_DEMO/outpost" 2>/dev/null ;;
  esac
}

# Starts a demo service with its recorded command; fails unless it is a new process that becomes ready.
fault_start() {  # SERVICE OLD_PID
  local svc="$1" old="$2" pid
  bash -c "$(cat "$FAULT_DEMO/run/$svc.cmd") & echo \$! > \"$FAULT_DEMO/run/$svc.pid\""
  pid="$(cat "$FAULT_DEMO/run/$svc.pid")"
  [ -n "$pid" ] && [ "$pid" != "$old" ] || { mw_fail "$svc was not started again"; return 1; }
  mw_wait_until 60 "$svc (pid $pid) ready again after its restart" fault_service_ready "$svc" || { fault_explain "$svc"; return 1; }
  kill -0 "$pid" 2>/dev/null || { mw_fail "$svc (pid $pid) exited after its restart"; return 1; }
}

# Shows why a demo service is not ready: the end of its log and, for the outpost, its status.
fault_explain() {  # SERVICE
  echo "faults: the last lines of $FAULT_DEMO/$1.log:" >&2
  tail -n 40 "$FAULT_DEMO/$1.log" >&2 || true
  if [ "$1" = outpost ]; then
    echo "faults: mailwake-outpost status:" >&2
    "$(fault_bin)/mailwake-outpost" status --data-dir "$FAULT_DEMO/outpost" >&2 || true
  fi
}

# Sends SIGKILL to a demo service and starts it again with its recorded command.
fault_restart() {  # SERVICE DOWNTIME_SECONDS
  local svc="$1" down="$2" pid
  pid="$(cat "$FAULT_DEMO/run/$svc.pid")"
  kill -0 "$pid" 2>/dev/null || { mw_fail "$svc (pid $pid) is not running before its fault"; return 1; }
  kill -KILL "$pid"
  while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  fault_service_ready "$svc" && { mw_fail "$svc still answers after SIGKILL"; return 1; }
  sleep "$down"
  fault_start "$svc" "$pid"
}

# Changes the simulator's configuration and checks that it answers what was asked.
fault_apns_config() {  # JSON EXPECTED_PYTHON_CONDITION
  local answer
  answer="$(curl -sf --cacert "$FAULT_DEMO/ca.pem" -X POST -d "$1" "$APNS/_sim/config")" || { mw_fail "POST /_sim/config $1"; return 1; }
  python3 -c 'import json,sys; c=json.loads(sys.argv[1]); sys.exit(0 if eval(sys.argv[2]) else 1)' "$answer" "$2" \
    || { mw_fail "the simulator's configuration after $1 is $answer"; return 1; }
}

# Kicks the demo user's IMAP sessions; fails unless Dovecot kicked at least one.
fault_imap_kick() {
  local out
  out="$(doveadm -c "$FAULT_DEMO/dovecot/dovecot.conf" kick demo 2>&1)" || true
  case "$out" in *demo*) ;; *) mw_fail "doveadm kick found no session of demo: $out"; return 1 ;; esac
}

# Appends N mails with subjects "<tag> #i", one every INTERVAL seconds.
fault_send() {  # TAG N INTERVAL
  local tag="$1" n="$2" interval="$3" i
  for i in $(seq 1 "$n"); do
    printf 'From: Fault Suite <faults@example.org>\r\nSubject: %s #%d\r\nDate: %s\r\n\r\nMessage %d of the %s flow.\r\n' "$tag" "$i" "$(date -R)" "$i" "$tag" > "$FAULT_DEMO/fault-mail.eml"
    until demo_mail_append "$FAULT_DEMO" "$FAULT_DEMO/fault-mail.eml"; do sleep 0.5; done
    sleep "$interval"
  done
}

# Reads the iPhone's inbox (from the APNs simulator's record file, which
# survives the simulator's restarts) until every mail of TAG was opened or TIMEOUT passes;
# prints "appended delivered duplicates".
fault_count() {  # PYTHON TAG N TIMEOUT
  local python="$1" tag="$2" n="$3" timeout="$4" bin deadline
  bin="$(fault_bin)"
  source "$FAULT_DEMO/endpoints.env"
  deadline=$(( $(date +%s) + timeout ))
  while :; do
    "$bin/mailwake-device" inbox --dir "$FAULT_DEMO/iphone" --record "$FAULT_DEMO/apns-deliveries.jsonl" --wait 1 >> "$FAULT_DEMO/opened.jsonl" || true
    if [ "$(grep -c "\"subject\":\"$tag #" "$FAULT_DEMO/opened.jsonl" || true)" -ge "$n" ] || [ "$(date +%s)" -ge "$deadline" ]; then break; fi
  done
  sleep 2   # late duplicates would show now
  "$bin/mailwake-device" inbox --dir "$FAULT_DEMO/iphone" --record "$FAULT_DEMO/apns-deliveries.jsonl" >> "$FAULT_DEMO/opened.jsonl" || true
  "$python" - "$FAULT_DEMO/opened.jsonl" "$FAULT_DEMO/apns-deliveries.jsonl" "$tag" "$n" <<'PY'
import json, sys
opened_path, record_path, tag, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
events = {}          # event id -> subject, for this flow's notifications the iPhone opened
by_subject = {}      # subject -> event ids (two: the outpost notified one mail twice)
for line in open(opened_path):
    line = line.strip()
    if not line.startswith("{"):
        continue
    d = json.loads(line)
    subject = d["notification"]["subject"]
    if subject.startswith(tag + " #"):
        events[d["event_id"]] = subject
        by_subject.setdefault(subject, set()).add(d["event_id"])
delivered_200 = {}   # event id -> how many 200 deliveries APNs recorded
for line in open(record_path):
    r = json.loads(line)
    if r.get("status") != 200 or r.get("push_type") != "alert":
        continue
    try:
        event = json.loads(r["payload"])["mw"]["event_id"]   # the envelope travels in clear under "mw" (its content is sealed)
    except (ValueError, KeyError, TypeError):
        continue
    if event in events:
        delivered_200[event] = delivered_200.get(event, 0) + 1
duplicates = sum(len(ids) - 1 for ids in by_subject.values()) + sum(c - 1 for c in delivered_200.values())
print(n, len(by_subject), duplicates)
PY
}

# Runs one fault while mails flow; writes "name appended delivered duplicates" to OUT.
# Called as a plain command (not inside $(...) or a condition), so any failed step stops the suite.
fault_scenario() {  # PYTHON NAME OUT
  local python="$1" name="$2" out="$3" tag sender result
  tag="fault-$name"
  source "$FAULT_DEMO/endpoints.env"
  [ "$name" != disk-full ] || fault_disk_fill   # the mail arrives while the disk is full
  fault_send "$tag" "$FAULT_MAILS" 0.4 &
  sender=$!
  mw_on_exit "kill $sender 2>/dev/null || true"
  sleep 1.5
  case "$name" in
    kill-relay|kill-accounts|kill-outpost|kill-apns) fault_restart "${name#kill-}" 2 ;;
    restart-postgres)
      local before after
      before="$(head -n 1 "$FAULT_DEMO/pg/data/postmaster.pid")"
      pg_test_as_owner "$(pg_test_bindir)/pg_ctl" -D "$(cd "$FAULT_DEMO/pg/data" && pwd -P)" -m fast -w -t 60 restart >/dev/null
      after="$(head -n 1 "$FAULT_DEMO/pg/data/postmaster.pid")"
      [ "$before" != "$after" ] && kill -0 "$after" || { mw_fail "PostgreSQL was not restarted (postmaster $before, then $after)"; return 1; } ;;
    apns-503-429-goaway)
      fault_apns_config '{"rates":{"503":1}}' 'c["rates"] == {"503": 1}'
      sleep "${MAILWAKE_FAULT_APNS_SECONDS:-60}"
      fault_apns_config '{"rates":{"429":1}}' 'c["rates"] == {"429": 1}'
      sleep 15
      fault_apns_config '{"rates":{},"goaway_after":1}' 'c["rates"] == {} and c["goaway_after"] == 1'
      mw_output_has '"connections"' curl -sf --cacert "$FAULT_DEMO/ca.pem" -X POST "$APNS/_sim/goaway" || { mw_fail "POST /_sim/goaway"; return 1; }
      sleep 15
      fault_apns_config '{"rates":{},"goaway_after":0}' 'c["rates"] == {} and c["goaway_after"] == 0' ;;
    imap-drop)
      fault_imap_kick
      mw_wait_until 60 "the outpost watching its mailbox again after the kick" fault_service_ready outpost
      fault_imap_kick ;;
    disk-full) fault_disk_free ;;
  esac
  wait "$sender"
  result="$(fault_count "$python" "$tag" "$FAULT_MAILS" 420)"
  [ -n "$result" ] || { mw_fail "$name: the iPhone's inbox could not be counted"; return 1; }
  echo "$name $result" > "$out"
}

# The outpost's data directory on a small tmpfs that is then filled: the
# outpost must keep its IMAP connection, retry its writes and lose no mail.
fault_disk_fill() {
  local data="$FAULT_DEMO/outpost" pid
  pid="$(cat "$FAULT_DEMO/run/outpost.pid")"
  kill -TERM "$pid"; while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  mv "$data" "$data.disk"
  mkdir -p "$data"
  mount -t tmpfs -o size=16m,mode=0700 tmpfs "$data"
  mw_on_exit "umount '$PWD/$data' 2>/dev/null || true"
  cp -a "$data.disk/." "$data/"
  fault_start outpost "$pid"
  FAULT_STORE_FAILURES_BEFORE="$(grep -c 'cannot write its local store' "$FAULT_DEMO/outpost.log" || true)"
  # Fills it: ENOSPC from here on. dd must fail, or the disk was never full.
  if dd if=/dev/zero of="$data/filler" bs=1M count=64 status=none 2>/dev/null; then mw_fail "64 MiB fit on the 16 MiB tmpfs"; return 1; fi
  [ "$(df --output=avail "$data" | tail -n 1 | tr -d ' ')" -lt 64 ] || { mw_fail "the outpost's disk is not full"; return 1; }
}

# Once the outpost has failed to write to the full disk (its log says so), frees the space.
fault_disk_free() {
  mw_wait_until 60 "the outpost failing to write its full disk (its log)" fault_store_failed || { fault_explain outpost; return 1; }
  echo "disk-full: the outpost's log while the disk was full:" >&2
  grep 'cannot write its local store' "$FAULT_DEMO/outpost.log" | tail -n 1 | cut -c1-300 >&2 || true
  # The operator's first look: status works, or says the disk is full (never a bare I/O error).
  local status
  if status="$("$(fault_bin)/mailwake-outpost" status --data-dir "$FAULT_DEMO/outpost" 2>&1)"; then
    echo "disk-full: status still answers: $(printf '%s\n' "$status" | grep 'Demo/INBOX' | head -n 1)" >&2
  else
    case "$status" in *"is full"*) echo "disk-full: status says: $status" >&2 ;; *) mw_fail "status on the full disk: $status"; return 1 ;; esac
  fi
  rm -f "$FAULT_DEMO/outpost/filler"
}

# Whether the outpost logged a failed write since the disk was filled.
fault_store_failed() {
  [ "$(grep -c 'cannot write its local store' "$FAULT_DEMO/outpost.log" || true)" -gt "${FAULT_STORE_FAILURES_BEFORE:-0}" ]
}

faults_suite() {
  local python="$1"; shift
  local scenarios=("$@") line failed=0
  [ ${#scenarios[@]} -gt 0 ] || scenarios=(kill-relay kill-accounts kill-outpost kill-apns restart-postgres imap-drop apns-503-429-goaway disk-full)
  mw_on_exit "cd '$PWD' && scripts/demo stop >/dev/null 2>&1"
  mkdir -p .build
  scripts/demo > .build/faults-demo.log 2>&1 || { tail -n 40 .build/faults-demo.log >&2; echo "faults: scripts/demo failed" >&2; return 1; }
  : > "$FAULT_DEMO/opened.jsonl"
  printf '\n| fault | appended | delivered | duplicates |\n| --- | --- | --- | --- |\n' > .build/faults-table.md
  for s in "${scenarios[@]}"; do
    if [ "$s" = disk-full ] && [ "$(id -u)" -ne 0 ]; then echo "faults: disk-full needs root (a tmpfs mount): skipped" >&2; continue; fi
    fault_scenario "$python" "$s" .build/fault-result
    line="$(cat .build/fault-result)"
    set -- $line
    printf '| %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4" >> .build/faults-table.md
    if [ "$2" != "$3" ] || [ "$4" != 0 ]; then failed=1; echo "faults: $1: appended $2, delivered $3, duplicates $4" >&2; fi
  done
  cat .build/faults-table.md
  scripts/demo stop >/dev/null   # unmounts the full disk's tmpfs too
  return "$failed"
}
