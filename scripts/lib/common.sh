# shellcheck shell=bash
# Helpers every Mailwake script shares (source this file once, near the top).
#
#   mw_on_exit COMMAND...      registers a cleanup; all run (last registered first) by one EXIT
#                              trap, on success, on failure and on SIGINT/SIGTERM. A failing
#                              cleanup does not stop the others.
#   mw_free_ports NAME...      sets each NAME to a distinct TCP port that binds on 127.0.0.1 now, from
#                              below the kernel's ephemeral range (scripts/lib/free_ports.py says why)
#   mw_db_url URL DB           URL (postgres://…) with its database replaced by DB
#   mw_cleanup_mark            prints how many cleanups are registered (a mark for mw_cleanup_since)
#   mw_cleanup_since MARK      runs now, last first, the cleanups registered after MARK, and forgets them
#                              (a step that is done frees what it started; on failure the EXIT trap does)
#   mw_step TITLE              prints a step heading with the time
#   mw_fail MESSAGE            prints "<script>: FAILED: MESSAGE" on stderr and returns 1
#   mw_wait_until SECONDS DESCRIPTION COMMAND...
#                              runs COMMAND until it succeeds; fails naming DESCRIPTION after
#                              SECONDS (a deadline, not a sleep: it returns as soon as COMMAND does)
#   mw_random_hex BYTES        BYTES random bytes as lowercase hex
#   mw_output_has PATTERN COMMAND...
#                              COMMAND succeeds and its output has a line matching PATTERN (grep -E);
#                              the output is read to its end first, so under pipefail a command still
#                              writing after the match is not killed by SIGPIPE (as in `cmd | grep -q`)
#
# Sourcing installs the EXIT trap; a script must not set its own EXIT trap
# afterwards (use mw_on_exit).

[ -n "${MW_COMMON_LOADED:-}" ] && return 0
MW_COMMON_LOADED=1
MW_CLEANUPS=()
MW_SCRIPT_NAME="$(basename "${0:-mailwake}")"
MW_LIB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

mw_on_exit() {
  local IFS=' '
  MW_CLEANUPS+=("$*")
}

mw_run_cleanups() {
  local status=$? i
  trap - EXIT INT TERM
  MW_EXIT_STATUS=$status
  set +e
  for (( i=${#MW_CLEANUPS[@]}-1; i>=0; i-- )); do
    eval "${MW_CLEANUPS[$i]}" || echo "$MW_SCRIPT_NAME: cleanup failed: ${MW_CLEANUPS[$i]}" >&2
  done
  MW_CLEANUPS=()
  exit "$status"
}
trap mw_run_cleanups EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mw_cleanup_mark() { echo "${#MW_CLEANUPS[@]}"; }

mw_cleanup_since() {
  local mark="$1" i
  for (( i=${#MW_CLEANUPS[@]}-1; i>=mark; i-- )); do
    eval "${MW_CLEANUPS[$i]}" || echo "$MW_SCRIPT_NAME: cleanup failed: ${MW_CLEANUPS[$i]}" >&2
    unset 'MW_CLEANUPS[i]'
  done
  MW_CLEANUPS=("${MW_CLEANUPS[@]}")
}

mw_free_ports() {
  local ports name i=0
  ports="$(python3 "$MW_LIB_DIR/free_ports.py" "$#")" || return 1
  read -r -a ports <<< "$ports"
  for name in "$@"; do
    printf -v "$name" '%s' "${ports[$i]}"
    i=$((i + 1))
  done
}

mw_db_url() {
  python3 - "$1" "$2" <<'PY'
import sys, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1])
print(urllib.parse.urlunsplit((u.scheme, u.netloc, "/" + sys.argv[2], u.query, "")))
PY
}

mw_step() { printf '\n=== %s (%s)\n' "$1" "$(date -u +%H:%M:%S)"; }

mw_fail() { echo "$MW_SCRIPT_NAME: FAILED: $*" >&2; return 1; }

mw_wait_until() {
  local seconds="$1" what="$2" deadline
  shift 2
  deadline=$(( $(date +%s) + seconds ))
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || { mw_fail "$what (not within ${seconds}s)"; return 1; }
    sleep 0.2
  done
}

mw_output_has() {
  local pattern="$1" out
  shift
  out="$("$@")" || return 1
  printf '%s\n' "$out" | grep -qE -- "$pattern"
}

mw_random_hex() { head -c "$1" /dev/urandom | od -An -tx1 | tr -d ' \n'; }
