# shellcheck shell=bash
# The systemd units, booted: systemd 252 as PID 1 in a rootful podman container
# (deploy/systemd-test/Containerfile), the three services installed with
# scripts/install from release binaries built as the images are
# (--static-swift-stdlib), a PostgreSQL with TLS (sslmode=verify-full), the APNs
# simulator, a simulated iPhone. Asserts each unit reaches active, answers
# /readyz, survives `systemctl restart`, stops cleanly, and that the relay
# delivers a notification to the simulator. Source scripts/lib/common.sh first.
#
#   systemd_suite     as root; removes its container and image on exit, also on failure
#
# Binaries: $MAILWAKE_SYSTEMD_BINARIES (a directory holding mailwake-accounts, -relay,
# -outpost, -apns-simulator, -device), else copied out of deploy/Dockerfile's build
# stage when the swift:6.3-bookworm image exists (scripts/lib/podman.sh), else
# built here with `swift build -c release --static-swift-stdlib`.
# MAILWAKE_SYSTEMD_KEEP=1 leaves the container running for a look inside;
# MAILWAKE_SYSTEMD_BASE=IMAGE builds on IMAGE instead of debian:bookworm-slim.

SYSTEMD_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SYSTEMD_PRODUCTS=(mailwake-accounts mailwake-relay mailwake-outpost mailwake-apns-simulator mailwake-device)

# The runtime libraries of every service: the lists between the markers in deploy/Dockerfile.
systemd_runtime_packages() {
  sed -n '/# runtime libraries of .* begin/,/# runtime libraries of .* end/p' "$SYSTEMD_ROOT/deploy/Dockerfile" \
    | grep -v '#' | tr -s ' \\\n' '\n' | sed '/^$/d' | sort -u | xargs
}

# Puts the five release binaries into DIR.
systemd_binaries() {
  local dir="$1" p missing=() cid
  if [ -n "${MAILWAKE_SYSTEMD_BINARIES:-}" ]; then
    for p in "${SYSTEMD_PRODUCTS[@]}"; do install -m 755 "$MAILWAKE_SYSTEMD_BINARIES/$p" "$dir/$p" || return 1; done
    echo "   binaries from $MAILWAKE_SYSTEMD_BINARIES"
    return 0
  fi
  if podman image exists swift:6.3-bookworm; then
    echo "   the image build stage (podman build -f deploy/Dockerfile --target build)"
    # Untagged afterwards, not removed: the layers stay the build cache the compose images share.
    mw_on_exit "podman untag localhost/mailwake/systemd-binaries:ci >/dev/null 2>&1"
    podman build -q -f "$SYSTEMD_ROOT/deploy/Dockerfile" --target build -t localhost/mailwake/systemd-binaries:ci "$SYSTEMD_ROOT" \
      > "$dir/build-stage.log" 2>&1 || { tail -n 30 "$dir/build-stage.log" >&2; mw_fail "podman build --target build"; return 1; }
    cid="$(podman create localhost/mailwake/systemd-binaries:ci)" || return 1
    for p in "${SYSTEMD_PRODUCTS[@]}"; do
      podman cp "$cid:/usr/local/bin/$p" "$dir/$p" 2>/dev/null || missing+=("$p")
    done
    podman rm "$cid" >/dev/null
  else
    missing=("${SYSTEMD_PRODUCTS[@]}")
  fi
  for p in "${missing[@]}"; do
    echo "   $p: swift build -c release --static-swift-stdlib on this machine"
    (cd "$SYSTEMD_ROOT" && swift build -c release --static-swift-stdlib --product "$p" > "$dir/build-$p.log" 2>&1) \
      || { tail -n 30 "$dir/build-$p.log" >&2; mw_fail "swift build of $p"; return 1; }
    install -m 755 "$(cd "$SYSTEMD_ROOT" && swift build -c release --static-swift-stdlib --show-bin-path)/$p" "$dir/$p" || return 1
  done
}

# The part that runs inside the container (shipped with `declare -f`); settings come as variables.
systemd_inside() {
  set -euo pipefail
  say() { printf '   %s\n' "$*"; }
  fail() { echo "inside: FAILED: $*" >&2; exit 1; }
  wait_for() {  # SECONDS WHAT COMMAND...
    local seconds="$1" what="$2" deadline=$(( $(date +%s) + $1 )); shift 2
    until "$@" >/dev/null 2>&1; do [ "$(date +%s)" -lt "$deadline" ] || fail "$what (not within ${seconds}s)"; sleep 0.2; done
  }
  hex() { head -c "$1" /dev/urandom | od -An -tx1 | tr -d ' \n'; }
  as_outpost() { runuser -u mailwake-outpost -- "$@"; }
  status_line() { systemctl show -p Id,ActiveState,SubState,MainPID,NRestarts,Result "$1" | tr '\n' ' ' | sed 's/ $//'; }
  B=/opt/mailwake-build
  T=/root/systemd-test
  mkdir -p "$T"

  echo "== scripts/install"
  printf '#!/bin/sh\necho "./mailwake-accounts: error while loading shared libraries: libswiftCore.so: cannot open shared object file: No such file or directory" >&2\nexit 127\n' > "$T/broken-build"
  chmod 755 "$T/broken-build"
  if out="$(cd "$T" && /src/scripts/install accounts --binary ./broken-build 2>&1)"; then fail "scripts/install accepted a binary that does not start"; fi
  printf '%s\n' "$out" | grep -q 'does not start on this machine' || fail "scripts/install did not say why: $out"
  [ ! -e /usr/local/bin/mailwake-accounts ] || fail "scripts/install installed a binary that does not start"
  say "a build that does not start is refused, nothing installed:"
  printf '%s\n' "$out" | sed 's/^/     /'
  for s in accounts relay outpost; do
    (cd "$B" && /src/scripts/install "$s" --binary "./mailwake-$s") | grep '^install: mailwake' | sed 's/^/   /'
  done
  [ "$(stat -c '%a %U:%G' /etc/mailwake)" = "755 root:root" ] || fail "/etc/mailwake is $(stat -c '%a %U:%G' /etc/mailwake)"
  as_outpost test -r /etc/mailwake/outpost.env || fail "mailwake-outpost cannot read /etc/mailwake/outpost.env"
  say "/etc/mailwake $(stat -c '%a %U:%G' /etc/mailwake); outpost.env $(stat -c '%a %U:%G' /etc/mailwake/outpost.env), readable by mailwake-outpost"

  echo "== TLS: a test CA in the system trust store (as a public CA would be), one certificate for 127.0.0.1"
  (
    cd "$T" && umask 077
    openssl ecparam -name prime256v1 -genkey -noout -out ca.key 2>/dev/null
    openssl req -x509 -new -key ca.key -sha256 -days 2 -subj "/CN=Mailwake systemd test CA" -out ca.pem \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" 2>/dev/null
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out server.key 2>/dev/null
    openssl req -new -key server.key -subj "/CN=localhost" -out server.csr 2>/dev/null
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > server.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -sha256 -extfile server.ext -out server.pem 2>/dev/null
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out AuthKey.p8 2>/dev/null
  )
  install -m 644 "$T/ca.pem" /usr/local/share/ca-certificates/mailwake-systemd-test.crt
  update-ca-certificates >/dev/null 2>&1

  echo "== PostgreSQL 15 (Debian's cluster, TLS only over TCP)"
  local conf=/etc/postgresql/15/main
  install -o postgres -g postgres -m 600 "$T/server.key" "$conf/server.key"
  install -o postgres -g postgres -m 644 "$T/server.pem" "$conf/server.pem"
  printf "ssl = on\nssl_cert_file = '%s/server.pem'\nssl_key_file = '%s/server.key'\nlisten_addresses = '127.0.0.1'\n" "$conf" "$conf" > "$conf/conf.d/mailwake.conf"
  sed -i '1i hostnossl all all 0.0.0.0/0 reject' "$conf/pg_hba.conf"
  systemctl restart postgresql@15-main
  wait_for 30 "PostgreSQL" runuser -u postgres -- psql -qAtc 'select 1'
  ACC_DB_PW="$(hex 16)"; RELAY_DB_PW="$(hex 16)"
  runuser -u postgres -- psql -q -v ON_ERROR_STOP=1 >/dev/null <<SQL
CREATE ROLE accounts LOGIN PASSWORD '$ACC_DB_PW'; CREATE DATABASE accounts OWNER accounts;
CREATE ROLE relay LOGIN PASSWORD '$RELAY_DB_PW'; CREATE DATABASE relay OWNER relay;
SQL
  say "$(systemctl is-active postgresql@15-main): postgres://127.0.0.1:5432 (hostnossl rejected), databases accounts, relay"

  echo "== the APNs simulator (a transient unit: mailwake-apns-simulator)"
  install -d -m 700 /var/lib/apns-sim
  systemd-run -q -u mailwake-apns-simulator "$B/mailwake-apns-simulator" serve --listen 127.0.0.1:8543 \
    --tls-cert "$T/server.pem" --tls-key "$T/server.key" --key-file "$T/AuthKey.p8" --key-id SYSTEMD001 \
    --team-id SYSTEMDT01 --topic net.mailwake.app --record /var/lib/apns-sim/deliveries.jsonl
  wait_for 30 "the APNs simulator" curl -fs https://127.0.0.1:8543/_sim/stats
  say "$(status_line mailwake-apns-simulator)"

  echo "== settings and secrets in /etc/mailwake (as docs/operations.md says)"
  SERVICE_TOKEN="$(hex 24)"; OPERATOR_TOKEN="$(hex 24)"
  install -m 600 "$T/server.pem" /etc/mailwake/accounts/tls.pem
  install -m 600 "$T/server.key" /etc/mailwake/accounts/tls.key
  install -m 600 "$T/ca.pem" /etc/mailwake/accounts/db-ca.pem
  install -m 600 "$T/server.pem" /etc/mailwake/relay/tls.pem
  install -m 600 "$T/server.key" /etc/mailwake/relay/tls.key
  install -m 600 "$T/AuthKey.p8" /etc/mailwake/relay/AuthKey.p8
  install -m 600 "$T/ca.pem" /etc/mailwake/relay/db-ca.pem
  # No accounts-ca.pem: the optional credential falls back to a note, and the relay trusts accounts
  # through the system store (as with a public CA).
  install -m 644 "$T/appstore-root.pem" /etc/mailwake/appstore-test-root.pem
  install -o root -g mailwake-outpost -m 640 "$T/server.pem" /etc/mailwake/outpost/tls.pem
  install -o root -g mailwake-outpost -m 640 "$T/server.key" /etc/mailwake/outpost/tls.key
  cat > /etc/mailwake/accounts.env <<ENV
MAILWAKE_ACCOUNTS_LISTEN=127.0.0.1:7443
MAILWAKE_ACCOUNTS_ADMIN_LISTEN=127.0.0.1:9443
MAILWAKE_ACCOUNTS_PUBLIC_ORIGIN=https://127.0.0.1:7443
MAILWAKE_ACCOUNTS_DATABASE_URL=postgres://accounts:$ACC_DB_PW@127.0.0.1:5432/accounts?sslmode=verify-full&sslrootcert=/run/credentials/mailwake-accounts.service/db-ca.pem
MAILWAKE_ACCOUNTS_SERVICE_TOKENS=$SERVICE_TOKEN
MAILWAKE_ACCOUNTS_APPSTORE_BUNDLE_ID=net.mailwake.app
MAILWAKE_ACCOUNTS_APPSTORE_ENVIRONMENT=Sandbox
MAILWAKE_ACCOUNTS_APPSTORE_ROOT_CERTS=/etc/mailwake/appstore-test-root.pem
MAILWAKE_ACCOUNTS_PUSH_PRODUCT_IDS=net.mailwake.push.monthly
ENV
  cat > /etc/mailwake/relay.env <<ENV
MAILWAKE_RELAY_LISTEN=127.0.0.1:8442
MAILWAKE_RELAY_ADMIN_LISTEN=127.0.0.1:9444
MAILWAKE_RELAY_PUBLIC_ORIGIN=https://127.0.0.1:8442
MAILWAKE_RELAY_DATABASE_URL=postgres://relay:$RELAY_DB_PW@127.0.0.1:5432/relay?sslmode=verify-full&sslrootcert=/run/credentials/mailwake-relay.service/db-ca.pem
MAILWAKE_RELAY_ACCOUNTS_URL=https://127.0.0.1:7443
MAILWAKE_RELAY_ACCOUNTS_TOKEN=$SERVICE_TOKEN
MAILWAKE_RELAY_APNS_KEY_ID=SYSTEMD001
MAILWAKE_RELAY_APNS_TEAM_ID=SYSTEMDT01
MAILWAKE_RELAY_APNS_BUNDLE_ID=net.mailwake.app
MAILWAKE_RELAY_APNS_PRODUCTION_URL=https://127.0.0.1:8543
MAILWAKE_RELAY_APNS_SANDBOX_URL=https://127.0.0.1:8543
MAILWAKE_RELAY_OPERATOR_TOKEN=$OPERATOR_TOKEN
ENV
  cat > /etc/mailwake/outpost.env <<ENV
MAILWAKE_OUTPOST_DATA_DIR=/var/lib/mailwake-outpost
MAILWAKE_OUTPOST_LISTEN=127.0.0.1:8443
MAILWAKE_OUTPOST_PUBLIC_URL=https://127.0.0.1:8443
MAILWAKE_OUTPOST_TLS_CERT=/etc/mailwake/outpost/tls.pem
MAILWAKE_OUTPOST_TLS_KEY=/etc/mailwake/outpost/tls.key
ENV
  chmod 640 /etc/mailwake/*.env
  say "accounts.env, relay.env (DATABASE_URL …sslmode=verify-full&sslrootcert=/run/credentials/<unit>/db-ca.pem), outpost.env"

  READY_accounts=http://127.0.0.1:9443/readyz
  READY_relay=http://127.0.0.1:9444/readyz
  ready() {  # SERVICE: its /readyz answer (the outpost: its admin listener, else its API's 401)
    case "$1" in
      accounts) curl -fsS "$READY_accounts" ;;
      relay) curl -fsS "$READY_relay" ;;
      outpost)
        if [ -n "${READY_outpost:-}" ]; then curl -fsS "$READY_outpost"
        else [ "$(curl -s -o /dev/null -w '%{http_code}' https://127.0.0.1:8443/v1/status)" = 401 ] && echo "API answers (401 unsigned)"; fi ;;
    esac
  }
  up() {  # SERVICE: active and ready, or its journal and a failure
    local s="$1" deadline=$(( $(date +%s) + 60 )) answer
    until [ "$(systemctl is-active "mailwake-$s")" = active ] && answer="$(ready "$s" 2>/dev/null)"; do
      if [ "$(date +%s)" -ge "$deadline" ] || [ "$(systemctl is-failed "mailwake-$s")" = failed ] \
         || [ "$(systemctl show -p NRestarts --value "mailwake-$s")" != 0 ]; then
        systemctl status --no-pager -l "mailwake-$s" | tail -n 25 >&2 || true
        fail "mailwake-$s is not active and ready"
      fi
      sleep 0.2
    done
    say "$(status_line "mailwake-$s")"
    say "  readyz: $(printf '%s' "$answer" | tr -d '\n' | cut -c1-160)"
  }

  if [ "${SYSCALL_LOG:-0}" = 1 ]; then
    echo "== system-call discovery: no filter; every call the units' filter would refuse is logged (kernel audit)"
    expand() {  # GROUP...: the system calls of the groups, nested groups expanded
      local g
      for g in "$@"; do
        systemd-analyze syscall-filter --no-pager "$g" | sed -n '2,$p' | sed 's/#.*//; s/^ *//; /^$/d' | while read -r n; do
          case "$n" in @*) expand "$n" ;; *) echo "$n" ;; esac
        done
      done
    }
    expand @system-service | sort -u > "$T/allowed"
    expand @privileged @resources | sort -u > "$T/refused"
    # Quiet: what @system-service without @privileged @resources allows (the units' filter before
    # its exceptions); everything else is logged, the exceptions included.
    comm -23 "$T/allowed" "$T/refused" > "$T/quiet"
    for s in accounts relay outpost; do
      mkdir -p "/etc/systemd/system/mailwake-$s.service.d"
      printf '[Service]\nSystemCallFilter=\nSystemCallErrorNumber=\nSystemCallLog=~%s\n' "$(xargs < "$T/quiet")" \
        > "/etc/systemd/system/mailwake-$s.service.d/syscall-log.conf"
    done
    systemctl daemon-reload
    say "logged: every call but the $(wc -l < "$T/quiet") of @system-service without @privileged @resources"
  fi

  echo "== systemctl enable --now mailwake-accounts mailwake-relay"
  systemctl enable -q --now mailwake-accounts mailwake-relay
  up accounts
  up relay
  say "optional credential without its file: accounts-ca.pem = '$(cat /run/credentials/mailwake-relay.service/accounts-ca.pem)'"
  say "filter: $(systemctl show -p SystemCallErrorNumber mailwake-relay) (EPERM); setpriority allowed: $(systemctl show -p SystemCallFilter --value mailwake-relay | tr ' ' '\n' | grep -cx setpriority)"

  echo "== the simulated iPhone registers at accounts and buys push"
  D=(--dir "$T/iphone")
  "$B/mailwake-device" init "${D[@]}" >/dev/null
  "$B/mailwake-device" register "${D[@]}" --accounts https://127.0.0.1:7443 | sed 's/^/   /'
  "$B/mailwake-device" purchase "${D[@]}" --accounts https://127.0.0.1:7443 --transaction "$(cat "$T/transaction.jws")" | sed 's/^/   /'

  echo "== the outpost (as mailwake-outpost): init, relay set, pair"
  O=(--data-dir /var/lib/mailwake-outpost)
  as_outpost "$B/mailwake-outpost" init "${O[@]}" >/dev/null
  as_outpost "$B/mailwake-outpost" relay set "${O[@]}" --url https://127.0.0.1:8442 --env sandbox | sed 's/^/   /'
  as_outpost "$B/mailwake-outpost" pair --yes "${O[@]}" --no-qr > "$T/pair.out" 2>&1 &
  local pair_pid=$! link=""
  for _ in $(seq 1 100); do link="$(grep -m1 '^mailwake://pair' "$T/pair.out" || true)"; [ -n "$link" ] && break; sleep 0.1; done
  [ -n "$link" ] || { cat "$T/pair.out" >&2; fail "the outpost printed no pairing link"; }
  "$B/mailwake-device" pair "$link" "${D[@]}" | sed 's/^/   iPhone: /'
  wait "$pair_pid" || { cat "$T/pair.out" >&2; fail "pairing"; }
  grep -i 'paired' "$T/pair.out" | sed 's/^/   outpost: /'

  if [[ "$("$B/mailwake-outpost" settings 2>/dev/null)" == *MAILWAKE_OUTPOST_ADMIN_LISTEN* ]]; then
    echo "MAILWAKE_OUTPOST_ADMIN_LISTEN=127.0.0.1:9445" >> /etc/mailwake/outpost.env
    READY_outpost=http://127.0.0.1:9445/readyz
  fi
  echo "== systemctl enable --now mailwake-outpost"
  systemctl enable -q --now mailwake-outpost
  up outpost

  deliver() {  # LABEL: notify --test at the outpost, the iPhone opens it from the simulator
    local before after note
    before="$(curl -fsS https://127.0.0.1:8543/_sim/stats)"
    as_outpost "$B/mailwake-outpost" notify --test "${O[@]}" | sed 's/^/   outpost: /'
    note="$("$B/mailwake-device" inbox "${D[@]}" --apns https://127.0.0.1:8543 --wait 10)" || fail "$1: the iPhone's inbox"
    printf '%s' "$note" | grep -q '"notification"' || fail "$1: no notification reached the iPhone"
    after="$(curl -fsS https://127.0.0.1:8543/_sim/stats)"
    say "iPhone opened: $(printf '%s' "$note" | head -n 1 | cut -c1-200)"
    say "simulator /_sim/stats before: $(printf '%s' "$before" | tr -d '\n' | cut -c1-160)"
    say "simulator /_sim/stats after:  $(printf '%s' "$after" | tr -d '\n' | cut -c1-160)"
  }
  echo "== a test notification: outpost → relay → APNs simulator → iPhone"
  deliver "first delivery"

  echo "== under load: 8 test notifications at once, 400 requests to the admin listeners"
  local i pids=()
  for i in $(seq 1 8); do as_outpost "$B/mailwake-outpost" notify --test "${O[@]}" > "$T/burst-$i.out" 2>&1 & pids+=($!); done
  for i in $(seq 1 4); do
    (for _ in $(seq 1 50); do curl -fsS -o /dev/null "$READY_accounts"; curl -fsS -o /dev/null "${READY_relay%/readyz}/metrics"; done) & pids+=($!)
  done
  for i in "${pids[@]}"; do wait "$i" || fail "a request of the burst failed ($(cat "$T"/burst-*.out 2>/dev/null | tail -n 3))"; done
  local got=0 deadline=$(( $(date +%s) + 30 ))
  while [ "$got" -lt 8 ] && [ "$(date +%s)" -lt "$deadline" ]; do
    got=$(( got + $("$B/mailwake-device" inbox "${D[@]}" --apns https://127.0.0.1:8543 --wait 2 | grep -c '"notification"' || true) ))
  done
  [ "$got" -ge 8 ] || fail "the iPhone opened $got of 8 notifications of the burst"
  say "the iPhone opened $got of 8; $(curl -fsS https://127.0.0.1:8543/_sim/stats | tr -d '\n' | cut -c1-160)"

  echo "== the owner's invitation (invite --config /etc/mailwake/outpost.env) names the served URL and certificate"
  as_outpost "$B/mailwake-outpost" invite --config /etc/mailwake/outpost.env --scope content --no-qr > "$T/invite.out" 2>&1 &
  local invite_pid=$! invite=""
  for _ in $(seq 1 100); do invite="$(grep -m1 '^mailwake://manage' "$T/invite.out" || true)"; [ -n "$invite" ] && break; sleep 0.1; done
  [ -n "$invite" ] || { cat "$T/invite.out" >&2; fail "the outpost printed no invitation"; }
  grep 'outpost address' "$T/invite.out" | sed 's/^ */   /'
  "$B/mailwake-device" manage "$invite" "${D[@]}" | sed 's/^/   iPhone: /'
  wait "$invite_pid" || { cat "$T/invite.out" >&2; fail "the invitation was not redeemed"; }
  grep '^Redeemed' "$T/invite.out" | sed 's/^/   outpost: /'

  echo "== systemctl restart, each unit"
  local s pid_before
  for s in accounts relay outpost; do
    pid_before="$(systemctl show -p MainPID --value "mailwake-$s")"
    systemctl restart "mailwake-$s"
    [ "$(systemctl show -p MainPID --value "mailwake-$s")" != "$pid_before" ] || fail "mailwake-$s kept its process over a restart"
    up "$s"
  done
  echo "== a notification after the restarts"
  deliver "after the restarts"

  echo "== systemctl stop: each unit exits by itself on SIGTERM (no SIGSYS, no SIGKILL)"
  for s in outpost relay accounts; do
    systemctl stop "mailwake-$s"
    local result code status
    result="$(systemctl show -p Result --value "mailwake-$s")"
    code="$(systemctl show -p ExecMainCode --value "mailwake-$s")"; status="$(systemctl show -p ExecMainStatus --value "mailwake-$s")"
    say "mailwake-$s: Result=$result ExecMainCode=$code ExecMainStatus=$status"
    [ "$result" = success ] || fail "mailwake-$s stopped with $result"
  done
  if journalctl -q --no-pager -u 'mailwake-*' | grep -E 'signal=SYS|code=killed|core-dump' ; then fail "a unit was killed (journal above)"; fi
  say "no unit was killed (journal: no signal=SYS, code=killed)"
}

systemd_suite() {
  local image="localhost/mailwake/systemd-test:ci-$$" container="mailwake-systemd-$$" work t0 t
  t0=$(date +%s)
  [ "$(id -u)" -eq 0 ] || { mw_fail "systemd_suite runs rootful podman: run it as root"; return 1; }
  work="$(mktemp -d)"
  mw_on_exit "rm -rf '$work'"

  mw_step "systemd units: release binaries (--static-swift-stdlib)"
  t=$(date +%s)
  mkdir -p "$work/bin"
  systemd_binaries "$work/bin" || return 1
  echo "   $(( $(date +%s) - t )) s"

  mw_step "systemd units: the image (deploy/systemd-test/Containerfile)"
  t=$(date +%s)
  local from=()
  if [ -n "${MAILWAKE_SYSTEMD_BASE:-}" ]; then
    from=(--from "$MAILWAKE_SYSTEMD_BASE")
  elif ! podman image exists debian:bookworm-slim; then
    if [ -f "$SYSTEMD_ROOT/scripts/lib/podman.sh" ]; then
      # shellcheck source=/dev/null
      source "$SYSTEMD_ROOT/scripts/lib/podman.sh" && podman_setup && podman_base_images || return 1
    else
      mw_fail "no debian:bookworm-slim image (scripts/lib/podman.sh makes it)"; return 1
    fi
  fi
  [ "${MAILWAKE_SYSTEMD_KEEP:-0}" = 1 ] || mw_on_exit "podman rmi -f '$image' >/dev/null 2>&1"
  podman build -q "${from[@]}" -f "$SYSTEMD_ROOT/deploy/systemd-test/Containerfile" --build-arg RUNTIME_PACKAGES="$(systemd_runtime_packages)" \
    -t "$image" "$SYSTEMD_ROOT/deploy/systemd-test" > "$work/image.log" 2>&1 \
    || { tail -n 30 "$work/image.log" >&2; mw_fail "podman build of the systemd test image"; return 1; }
  echo "   $image, $(( $(date +%s) - t )) s"

  mw_step "systemd units: booting systemd in a container"
  t=$(date +%s)
  if [ "${MAILWAKE_SYSTEMD_KEEP:-0}" = 1 ]; then
    echo "   MAILWAKE_SYSTEMD_KEEP=1: podman exec -it $container bash; podman rm -f $container"
  else
    mw_on_exit "podman rm -f -t 5 '$container' >/dev/null 2>&1"
  fi
  podman run -d --name "$container" --systemd=always --cap-add SYS_ADMIN --network none \
    -v "$SYSTEMD_ROOT:/src:ro" -v "$work/bin:/opt/mailwake-build:ro" "$image" >/dev/null || { mw_fail "podman run"; return 1; }
  local state=""
  for _ in $(seq 1 150); do
    state="$(podman exec "$container" systemctl is-system-running 2>/dev/null || true)"
    case "$state" in running|degraded) break ;; esac
    sleep 0.2
  done
  [ "$state" = running ] || { podman exec "$container" systemctl --failed --no-pager >&2 || true; mw_fail "systemd in the container is '$state'"; return 1; }
  echo "   $(podman exec "$container" systemctl --version | head -n 1) is PID 1: $state ($(( $(date +%s) - t )) s)"

  # The App Store test chain (Python on this machine), for the purchase.
  local python
  python="$("$SYSTEMD_ROOT/scripts/python-for-tests")" || return 1
  "$python" "$SYSTEMD_ROOT/scripts/lib/storekit_test_chain.py" "$work" net.mailwake.app net.mailwake.push.monthly > "$work/transaction.jws" || return 1
  podman exec "$container" mkdir -p /root/systemd-test
  podman cp "$work/appstore-root.pem" "$container:/root/systemd-test/appstore-root.pem"
  podman cp "$work/transaction.jws" "$container:/root/systemd-test/transaction.jws"

  mw_step "systemd units: install, start, ready, deliver, restart, stop"
  t=$(date +%s)
  local kmsg_before
  kmsg_before="$(dmesg 2>/dev/null | wc -l)"
  if ! { declare -f systemd_inside; echo systemd_inside; } | podman exec -i -e SYSCALL_LOG="${MAILWAKE_SYSTEMD_SYSCALL_LOG:-0}" "$container" bash -s; then
    echo "--- journal of the units (last 60 lines)" >&2
    podman exec "$container" journalctl --no-pager -q -u 'mailwake-*' -n 60 >&2 || true
    mw_fail "the systemd units"; return 1
  fi
  echo "   $(( $(date +%s) - t )) s in the container"
  systemd_syscall_report "$kmsg_before" || return 1
  echo "   the whole suite: $(( $(date +%s) - t0 )) s"
}

# The system calls the kernel logged (seccomp, audit type 1326) for the services since line FROM of
# the kernel log: with MAILWAKE_SYSTEMD_SYSCALL_LOG=1 every call the filter would refuse; otherwise
# kills by the filter (there must be none).
systemd_syscall_report() {
  local from="$1" lines
  lines="$(dmesg 2>/dev/null | tail -n +"$(( from + 1 ))" | grep 'type=1326' | grep 'exe="/usr/local/bin/mailwake-' || true)"
  if dmesg 2>/dev/null | tail -n +"$(( from + 1 ))" | grep -qE 'printk limit exceeded|audit_lost|kauditd.*suppressed'; then
    echo "   (the kernel dropped audit lines: the list below may be incomplete)"
  fi
  if [ -z "$lines" ]; then echo "   kernel log: no seccomp kill and no logged call of the services (an EPERM refusal is not logged)"; return 0; fi
  printf '%s\n' "$lines" | python3 -c '
import re, sys
names = {}
for line in open("/usr/include/x86_64-linux-gnu/asm/unistd_64.h"):
    m = re.match(r"#define __NR_(\w+) (\d+)", line)
    if m: names[int(m.group(2))] = m.group(1)
seen = {}
for line in sys.stdin:
    exe = re.search(r"exe=\"/usr/local/bin/([^\"]+)\"", line).group(1)
    nr = int(re.search(r" syscall=(\d+)", line).group(1))
    code = re.search(r"code=(0x[0-9a-f]+)", line).group(1)
    action = {"0x80000000": "killed", "0x7ffc0000": "logged"}.get(code, "refused " + code)
    seen.setdefault((exe, names.get(nr, str(nr)), action), 0)
    seen[(exe, names.get(nr, str(nr)), action)] += 1
for (exe, name, action), n in sorted(seen.items()):
    print("   kernel log: %-24s %-18s %s (%d)" % (exe, name, action, n))
'
  [ "${MAILWAKE_SYSTEMD_SYSCALL_LOG:-0}" = 1 ] || ! printf '%s\n' "$lines" | grep -q 'code=0x80000000' \
    || { mw_fail "seccomp killed a service"; return 1; }
}
