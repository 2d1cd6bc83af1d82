# shellcheck shell=bash
# The compose stack (docker-compose.yml) run for real (source this file after common.sh).
#
#   compose_runner          sets COMPOSE (an array): `docker compose` (Compose v2) when it works,
#                           else docker-compose 1.29; against podman's Docker-compatible API when
#                           no Docker engine answers (podman_service_start)
#   compose_wait_healthy SECONDS SERVICE...
#                           waits until each service's container reports healthy
#   compose_suite           CI: the podman settings, the base images, every image of the compose
#                           file built (every deploy/Dockerfile target), `up -d`, healthy, then
#                           scripts/compose-demo delivers a notification and the step asserts its
#                           code; `down -v` and the images it built removed, also on failure.
#                           MAILWAKE_COMPOSE_KEEP_IMAGES=1 keeps the images (fast re-runs);
#                           MAILWAKE_COMPOSE_NO_CACHE=1 builds without the layer cache (timings).

COMPOSE_LIB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=podman.sh
source "$COMPOSE_LIB_DIR/podman.sh"

compose_runner() {
  # No engine on the default socket and none named: podman's API stands in for Docker's.
  if [ -z "${DOCKER_HOST:-}" ] && ! curl -sf --unix-socket /var/run/docker.sock http://d/_ping >/dev/null 2>&1; then
    podman_service_start
  fi
  if command -v docker >/dev/null 2>&1 && docker compose version >/dev/null 2>&1; then
    COMPOSE=(docker compose)
  elif command -v docker-compose >/dev/null 2>&1; then
    COMPOSE=(docker-compose)
  else
    mw_fail "neither docker compose nor docker-compose is installed"
    return 1
  fi
}

# The state of SERVICE's container: healthy, starting, unhealthy, exited, …
compose_health() {
  local id
  id="$("${COMPOSE[@]}" ps -q "$1" 2>/dev/null | head -n 1)"
  [ -n "$id" ] || { echo missing; return; }
  podman inspect --format '{{if .State.Health.Status}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}' "$id" 2>/dev/null \
    || docker inspect --format '{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}' "$id" 2>/dev/null
}

compose_wait_healthy() {
  local seconds="$1" deadline service state
  shift
  deadline=$(( $(date +%s) + seconds ))
  for service in "$@"; do
    while :; do
      state="$(compose_health "$service")"
      [ "$state" = healthy ] && break
      if [ "$(date +%s)" -ge "$deadline" ]; then
        mw_fail "$service is $state, not healthy, after ${seconds}s; its log:"
        "${COMPOSE[@]}" logs --no-color --tail 30 "$service" >&2 || true
        return 1
      fi
      sleep 1
    done
  done
}

compose_cleanup() {  # PROJECT IMAGES_BEFORE_FILE
  local project="$1" before="$2" id
  echo "compose: down -v (project $project)"
  "${COMPOSE[@]}" --profile demo down -v --remove-orphans >/dev/null 2>&1 || "${COMPOSE[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
  if [ "${MAILWAKE_COMPOSE_KEEP_IMAGES:-0}" != 1 ]; then
    # The images this run built: the project's, and the build stages' layers that were not there before.
    for id in $(podman images --filter "reference=*${project}_*" -q 2>/dev/null | sort -u); do
      podman rmi -f "$id" >/dev/null 2>&1 || true
    done
    for id in $(podman images --filter dangling=true -q --no-trunc 2>/dev/null); do
      grep -qx "$id" "$before" || podman rmi "$id" >/dev/null 2>&1 || true
    done
    echo "compose: removed the images it built"
  fi
  rm -f "$before"
}

compose_suite() {
  local t0 project images_before note code
  t0="$(date +%s)"
  cd "$COMPOSE_LIB_DIR/../.."
  podman_setup
  podman_base_images

  project="mailwake-ci-$$"
  export COMPOSE_PROJECT_NAME="$project"
  # Host ports of the stack: free ones, so the suite runs beside anything on the usual ports.
  mw_free_ports ACCOUNTS_PORT RELAY_PORT RELAY_ADMIN_PORT APNS_PORT IMAPS_PORT OUTPOST_PORT || return 1
  export ACCOUNTS_PORT RELAY_PORT RELAY_ADMIN_PORT APNS_PORT IMAPS_PORT OUTPOST_PORT
  compose_runner
  echo "compose: ${COMPOSE[*]} ($("${COMPOSE[@]}" version --short 2>/dev/null || true)), project $project, DOCKER_HOST=${DOCKER_HOST:-default}"
  images_before="$(mktemp /tmp/mailwake-compose-images.XXXXXX)"
  podman images -q --no-trunc --filter dangling=true > "$images_before" 2>/dev/null || true
  mw_on_exit compose_cleanup "$project" "$images_before"

  mw_step "compose: build every image (deploy/Dockerfile: accounts, relay, outpost, apns-simulator, device; certs; dovecot)"
  local tb
  tb="$(date +%s)"
  "${COMPOSE[@]}" --profile demo build ${MAILWAKE_COMPOSE_NO_CACHE:+--no-cache} > .build/podman/compose-build.log 2>&1 || { tail -n 40 .build/podman/compose-build.log >&2; mw_fail "compose build"; return 1; }
  grep -E "^Build of product|^Successfully tagged [a-z]" .build/podman/compose-build.log | sed 's/^/   /'
  echo "compose: built in $(( $(date +%s) - tb )) s (log .build/podman/compose-build.log)"

  mw_step "compose: up -d, every service healthy"
  podman_health_pump "label=com.docker.compose.project=$project"
  tb="$(date +%s)"
  "${COMPOSE[@]}" up -d 2>&1 | sed 's/^/   /'
  [ "${PIPESTATUS[0]}" -eq 0 ] || { "${COMPOSE[@]}" ps >&2; "${COMPOSE[@]}" logs --no-color --tail 20 >&2; mw_fail "compose up"; return 1; }
  compose_wait_healthy 180 postgres apns dovecot accounts relay outpost
  "${COMPOSE[@]}" ps 2>&1 | sed 's/^/   /'
  "${COMPOSE[@]}" logs --no-color certs 2>&1 | grep 'certs:' | sed 's/^/   /'
  echo "compose: healthy $(( $(date +%s) - tb )) s after up"
  # The published ports answer on the host, with the stack's CA (the relay's status page over HTTPS).
  "${COMPOSE[@]}" exec -T relay cat /certs/ca.pem > .build/podman/compose-ca.pem
  curl -fsS --cacert .build/podman/compose-ca.pem -o /dev/null "https://127.0.0.1:$RELAY_ADMIN_PORT/readyz" \
    || { mw_fail "the relay's admin listener does not answer on the host port $RELAY_ADMIN_PORT"; return 1; }
  echo "compose: https://127.0.0.1:$RELAY_ADMIN_PORT/readyz (the relay's published admin port) answers with the stack's CA"

  mw_step "compose: scripts/compose-demo (a simulated iPhone buys push, pairs; a mail reaches it)"
  code="$(( 100000 + $(od -An -N3 -tu4 /dev/urandom | tr -d ' ') % 900000 ))"
  MAILWAKE_COMPOSE_DEMO_CODE="$code" scripts/compose-demo | tee .build/podman/compose-demo.out
  [ "${PIPESTATUS[0]}" -eq 0 ] || { mw_fail "scripts/compose-demo"; return 1; }
  note="$(grep -m1 'notification: ' .build/podman/compose-demo.out || true)"
  case "$note" in
    *"notification: Northwind Bank <security@northwind.example>: Your sign-in code, code $code") ;;
    *) mw_fail "the decrypted notification lacks the sender, subject or code $code: '$note'"; return 1 ;;
  esac
  echo "compose: the notification has the sender, the subject and the code"
  echo "compose: the step took $(( $(date +%s) - t0 )) s"
}
