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
# or directory of that demo is left behind.

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
}
