#!/bin/sh
# Makes what the local stack needs in /certs, on every start, only what is missing or due:
#   ca.pem, server.pem, server.key    a demo CA and one certificate for every service name;
#                                     made again when a file is missing, they do not match,
#                                     or fewer than RENEW_DAYS (30) days remain
#   AuthKey_DEMOKEY001.p8             the APNs simulator's provider key (the relay signs with it)
#   imap-password                     the demo mailbox's password (Dovecot and the outpost)
#   appstore-root.pem, storekit-transaction.jws
#                                     a local App Store test chain's root (accounts trusts it)
#                                     and a StoreKit transaction for push it signed (valid 30
#                                     days; made again after 20)
# Every file is written under a temporary name and renamed into place, so an
# interrupted run leaves no half-written file and the next run completes it.
# Keys and secrets are 0600, owned by the uid that reads them (10001, the
# services' user; Dovecot reads as root); certificates are 0644.
# Services read these files at start: after a renewal, restart them
# (`docker compose up -d` after `docker compose restart`).
set -eu
RENEW_DAYS="${RENEW_DAYS:-30}"
VALID_DAYS="${VALID_DAYS:-365}"
OWNER=10001:10001
cd /certs
umask 077
rm -rf /certs/.make-certs.*  # what an interrupted run left
work="$(mktemp -d /certs/.make-certs.XXXXXX)"
trap 'rm -rf "$work"' EXIT

# Renames FILE from the work directory into /certs with MODE and, for secrets, OWNER.
place() {  # FILE MODE [OWNER]
  chmod "$2" "$work/$1"
  if [ -n "${3:-}" ]; then chown "$3" "$work/$1"; fi
  mv -f "$work/$1" "/certs/$1"
}

tls_ok() {
  [ -s ca.pem ] && [ -s server.pem ] && [ -s server.key ] || return 1
  openssl x509 -in ca.pem -noout -checkend $((RENEW_DAYS * 86400)) >/dev/null 2>&1 || return 1
  openssl x509 -in server.pem -noout -checkend $((RENEW_DAYS * 86400)) >/dev/null 2>&1 || return 1
  openssl verify -CAfile ca.pem server.pem >/dev/null 2>&1 || return 1
  [ "$(openssl x509 -in server.pem -noout -pubkey)" = "$(openssl pkey -in server.key -pubout)" ]
}

made=""
if ! tls_ok; then
  (
    cd "$work"
    openssl ecparam -name prime256v1 -genkey -noout -out ca.key
    openssl req -x509 -new -key ca.key -sha256 -days "$VALID_DAYS" -subj "/CN=Mailwake local stack CA" -out ca.pem \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign"
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out server.key
    openssl req -new -key server.key -subj "/CN=mailwake" -out server.csr
    printf 'subjectAltName=DNS:localhost,DNS:accounts,DNS:relay,DNS:apns,DNS:outpost,DNS:dovecot,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > server.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days "$VALID_DAYS" -sha256 -extfile server.ext -out server.pem 2>/dev/null
  )
  # The key first, the CA last: a run stopped in between is caught by tls_ok next time.
  place server.key 600 "$OWNER"
  place server.pem 644
  place ca.pem 644
  made="$made ca.pem server.pem server.key"
fi

if ! openssl pkey -in AuthKey_DEMOKEY001.p8 -noout >/dev/null 2>&1; then
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/AuthKey_DEMOKEY001.p8"
  place AuthKey_DEMOKEY001.p8 600 "$OWNER"
  made="$made AuthKey_DEMOKEY001.p8"
fi

if [ ! -s imap-password ]; then
  openssl rand -hex 12 > "$work/imap-password"
  place imap-password 600 "$OWNER"
  made="$made imap-password"
fi

# The transaction is signed by the chain of appstore-root.pem and younger than 20 days.
storekit_ok() {
  [ -s appstore-root.pem ] && [ -s storekit-transaction.jws ] && [ -z "$(find storekit-transaction.jws -mmin +$((20 * 1440)))" ] &&
  python3 - <<'PY'
import base64, json, sys
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding
header = open("storekit-transaction.jws").read().split(".")[0]
x5c = json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))["x5c"]
root = x509.load_pem_x509_certificate(open("appstore-root.pem", "rb").read()).public_bytes(Encoding.DER)
sys.exit(0 if base64.b64decode(x5c[-1]) == root else 1)
PY
}

if ! storekit_ok; then
  python3 /usr/local/lib/mailwake/storekit_test_chain.py "$work" net.mailwake.app net.mailwake.push.monthly > "$work/storekit-transaction.jws"
  place storekit-transaction.jws 600 "$OWNER"
  place appstore-root.pem 644
  made="$made appstore-root.pem storekit-transaction.jws"
fi

# Owners and modes of files an older make-certs left readable by all.
for f in server.key AuthKey_DEMOKEY001.p8 imap-password storekit-transaction.jws; do
  chown "$OWNER" "$f"
  chmod 600 "$f"
done
rm -f ca.key ca.srl server.csr server.ext
if [ -n "$made" ]; then made="made$made"; else made="complete, nothing due"; fi
echo "certs: $made; server certificate valid until $(openssl x509 -in server.pem -noout -enddate | cut -d= -f2)"
