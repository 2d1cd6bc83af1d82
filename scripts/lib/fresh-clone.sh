# shellcheck shell=bash
# The README's first command as a newcomer runs it (source this file; run from
# the repository root, after sourcing e2e.sh):
#
#   fresh_clone_demo PYTHON
#
# Clones HEAD into a fresh 0700 directory (like /root or a mktemp -d; the
# database and mail servers' users cannot enter it) with an empty build
# directory, runs scripts/demo there through the end-to-end suite (the
# decrypted notification with its code, the sanitized body, the secrecy and
# revocation checks), then `scripts/demo stop`, and fails if any process, port
# or directory of that demo is left behind. As root, it then hands the clone
# (and its build) to an ordinary user, mailwake-ci, and runs the demo again as
# that user: PostgreSQL and Dovecot run as the user, under the 0700 directory.

# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

fresh_clone_demo() {
  local python="$1" fresh clone services ports port leftovers started
  fresh="$(mktemp -d /tmp/mailwake-fresh.XXXXXX)"
  [ "$(stat -c %a "$fresh")" = 700 ] || { mw_fail "$fresh is not 0700"; return 1; }
  clone="$fresh/mailwake"
  git clone -q --no-hardlinks "$PWD" "$clone"
  [ ! -e "$clone/.build" ] || { mw_fail "the fresh clone has a build directory"; return 1; }
  mw_on_exit "(cd '$clone' && scripts/demo stop) >/dev/null 2>&1; rm -rf '$fresh'"
  echo "fresh clone: $(git -C "$clone" log -1 --format='%h %s') in $fresh (mode 700, $(id -un))"

  started="$(date +%s)"
  pushd "$clone" >/dev/null
  e2e_suite "$python"
  echo "fresh clone: scripts/demo and the end-to-end checks took $(( $(date +%s) - started )) s, build included"
  sed -n '/^== the iPhone: the decrypted notification/,/^demo: the stack is running/p' .build/e2e-demo.log | sed 's/^/  | /'

  # What the demo runs, before it is stopped: its servers' ports and directories.
  services="$(cat .demo/services-dir 2>/dev/null || true)"
  ports="$(sed -n 's/.*:\([0-9][0-9]*\).*/\1/p' .demo/endpoints.env) $(cat .demo/imap-port) $(sed -n 's/.*@127\.0\.0\.1:\([0-9]*\)\/.*/\1/p' .demo/pg/url)"
  scripts/demo stop
  popd >/dev/null

  leftovers="$(ps -eo pid=,args= | grep -F -e "$clone" ${services:+-e "$services"} | grep -v -F -e 'grep -F' || true)"
  [ -z "$leftovers" ] || { mw_fail "processes left behind by scripts/demo stop: $leftovers"; return 1; }
  for port in $ports; do
    if ss -Hltn "sport = :$port" | grep -q .; then mw_fail "port $port still listens after scripts/demo stop"; return 1; fi
  done
  [ ! -e "$clone/.demo" ] || { mw_fail "$clone/.demo is left behind"; return 1; }
  [ -z "$services" ] || [ ! -e "$services" ] || { mw_fail "$services is left behind"; return 1; }
  echo "fresh clone: scripts/demo stop left no process, port ($(echo $ports)) or directory behind"

  [ "$(id -u)" -eq 0 ] || return 0
  local user=mailwake-ci code swift_bin out
  id "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$user"
  chown -R "$user:" "$fresh"
  # SwiftPM's locks of the build directory sit in /tmp, made by root's build.
  chown "$user:" "/tmp/$(printf '%s' "$clone/.build" | tr / _)"*.lock 2>/dev/null || true
  code="$("$python" -c 'import secrets; print(100000 + secrets.randbelow(899999))')"
  swift_bin="$(dirname "$(command -v swift)")"
  out="$fresh/demo-as-user.log"
  su "$user" -s /bin/bash -c "cd '$clone' && PATH='$swift_bin':\$PATH MAILWAKE_DEMO_CODE=$code scripts/demo" > "$out" 2>&1 \
    || { tail -n 30 "$out" >&2; mw_fail "scripts/demo as $user"; return 1; }
  grep -q "notification: Northwind Bank <security@northwind.example>: Your sign-in code, code $code" "$out" \
    || { tail -n 30 "$out" >&2; mw_fail "scripts/demo as $user showed no notification with code $code"; return 1; }
  grep -q "body text: .*your sign-in code is $code" "$out" || { mw_fail "scripts/demo as $user read no body"; return 1; }
  su "$user" -s /bin/bash -c "cd '$clone' && scripts/demo stop" >/dev/null
  leftovers="$(ps -u "$user" -o pid=,args= || true)"
  [ -z "$leftovers" ] || { mw_fail "processes of $user left behind by scripts/demo stop: $leftovers"; return 1; }
  echo "fresh clone: as $user, in the same 0700 checkout: $(grep -m1 'notification: Northwind' "$out" | sed 's/^ *//'); stopped, nothing left behind"
}
