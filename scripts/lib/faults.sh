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
# shellcheck source=postgres.sh
source "$(dirname "${BASH_SOURCE[0]}")/postgres.sh"
# shellcheck source=dovecot.sh
source "$(dirname "${BASH_SOURCE[0]}")/dovecot.sh"

FAULT_DEMO=".demo"
FAULT_MAILS="${MAILWAKE_FAULT_MAILS:-12}"

fault_bin() { swift build --show-bin-path; }

# Sends SIGKILL to a demo service and starts it again with its recorded command.
fault_restart() {  # SERVICE DOWNTIME_SECONDS
  local svc="$1" down="$2" pid
  pid="$(cat "$FAULT_DEMO/run/$svc.pid")"
  kill -KILL "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  sleep "$down"
  bash -c "$(cat "$FAULT_DEMO/run/$svc.cmd") & echo \$! > \"$FAULT_DEMO/run/$svc.pid\""
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

fault_scenario() {  # PYTHON NAME
  local python="$1" name="$2" tag sender result
  tag="fault-$name"
  source "$FAULT_DEMO/endpoints.env"
  fault_send "$tag" "$FAULT_MAILS" 0.4 &
  sender=$!
  sleep 1.5
  case "$name" in
    kill-relay|kill-accounts|kill-outpost|kill-apns) fault_restart "${name#kill-}" 2 ;;
    restart-postgres)
      pg_test_as_owner "$(pg_test_bindir)/pg_ctl" -D "$FAULT_DEMO/pg/data" -m fast -w -t 60 restart >/dev/null ;;
    apns-503-429-goaway)
      curl -sf --cacert "$FAULT_DEMO/ca.pem" -X POST -d '{"rates":{"503":1}}' "$APNS/_sim/config" >/dev/null
      sleep "${MAILWAKE_FAULT_APNS_SECONDS:-60}"
      curl -sf --cacert "$FAULT_DEMO/ca.pem" -X POST -d '{"rates":{"429":1}}' "$APNS/_sim/config" >/dev/null
      sleep 15
      curl -sf --cacert "$FAULT_DEMO/ca.pem" -X POST -d '{"rates":{},"goaway_after":1}' "$APNS/_sim/config" >/dev/null
      curl -sf --cacert "$FAULT_DEMO/ca.pem" -X POST "$APNS/_sim/goaway" >/dev/null
      sleep 15
      curl -sf --cacert "$FAULT_DEMO/ca.pem" -X POST -d '{"rates":{},"goaway_after":0}' "$APNS/_sim/config" >/dev/null ;;
    imap-drop)
      doveadm -c "$FAULT_DEMO/dovecot/dovecot.conf" kick demo >/dev/null 2>&1 || true
      sleep 1
      doveadm -c "$FAULT_DEMO/dovecot/dovecot.conf" kick demo >/dev/null 2>&1 || true ;;
    disk-full) fault_disk_full ;;
  esac
  wait "$sender"
  result="$(fault_count "$python" "$tag" "$FAULT_MAILS" 420)"
  echo "$name $result"
}

# The outpost's data directory on a small tmpfs that is then filled: the
# outpost must refuse new work cleanly and catch up once space is back.
fault_disk_full() {
  local data="$FAULT_DEMO/outpost"
  kill -TERM "$(cat "$FAULT_DEMO/run/outpost.pid")"; while kill -0 "$(cat "$FAULT_DEMO/run/outpost.pid")" 2>/dev/null; do sleep 0.05; done
  mv "$data" "$data.disk"
  mkdir -p "$data"
  mount -t tmpfs -o size=16m,mode=0700 tmpfs "$data"
  cp -a "$data.disk/." "$data/"
  bash -c "$(cat "$FAULT_DEMO/run/outpost.cmd") & echo \$! > \"$FAULT_DEMO/run/outpost.pid\""
  sleep 2
  dd if=/dev/zero of="$data/filler" bs=1M count=64 status=none 2>/dev/null || true   # fills it: ENOSPC from here on
  sleep 10
  rm -f "$data/filler"
  echo "disk-full: the outpost's log while the disk was full:" >&2
  grep -i 'full\|space\|disk' "$FAULT_DEMO/outpost.log" | tail -n 3 >&2 || true
}

faults_suite() {
  local python="$1"; shift
  local scenarios=("$@") line failed=0
  [ ${#scenarios[@]} -gt 0 ] || scenarios=(kill-relay kill-accounts kill-outpost kill-apns restart-postgres imap-drop apns-503-429-goaway disk-full)
  trap 'trap - RETURN; scripts/demo stop >/dev/null 2>&1 || true; umount ".demo/outpost" 2>/dev/null || true; rm -rf .demo' RETURN
  scripts/demo > .build/faults-demo.log 2>&1 || { tail -n 40 .build/faults-demo.log >&2; echo "faults: scripts/demo failed" >&2; return 1; }
  : > "$FAULT_DEMO/opened.jsonl"
  printf '\n| fault | appended | delivered | duplicates |\n| --- | --- | --- | --- |\n' > .build/faults-table.md
  for s in "${scenarios[@]}"; do
    if [ "$s" = disk-full ] && [ "$(id -u)" -ne 0 ]; then echo "faults: disk-full needs root (a tmpfs mount): skipped" >&2; continue; fi
    line="$(fault_scenario "$python" "$s")"
    set -- $line
    printf '| %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4" >> .build/faults-table.md
    if [ "$2" != "$3" ] || [ "$4" != 0 ]; then failed=1; echo "faults: $1: appended $2, delivered $3, duplicates $4" >&2; fi
  done
  cat .build/faults-table.md
  return "$failed"
}
