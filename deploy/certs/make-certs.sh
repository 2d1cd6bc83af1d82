#!/bin/sh
# Writes /certs/{ca.pem, server.pem, server.key, AuthKey_DEMOKEY001.p8, imap-password} once.
set -eu
cd /certs
if [ -f server.pem ]; then echo "certs: already made"; exit 0; fi
umask 022
openssl ecparam -name prime256v1 -genkey -noout -out ca.key
openssl req -x509 -new -key ca.key -sha256 -days 365 -subj "/CN=Mailwake local stack CA" -out ca.pem \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign"
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out server.key
openssl req -new -key server.key -subj "/CN=mailwake" -out server.csr
printf 'subjectAltName=DNS:localhost,DNS:accounts,DNS:relay,DNS:apns,DNS:outpost,DNS:dovecot,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > server.ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 365 -sha256 -extfile server.ext -out server.pem
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out AuthKey_DEMOKEY001.p8
openssl rand -hex 12 > imap-password
# The services run as uid 10001 and Dovecot as its own users: readable keys in a volume only this stack mounts.
chmod 644 server.key AuthKey_DEMOKEY001.p8 imap-password
rm -f ca.key server.csr server.ext ca.srl
echo "certs: made"
