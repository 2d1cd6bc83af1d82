# shellcheck shell=bash
# Cyrus IMAP 3.6 and Courier IMAP 5.0 for the watcher tests (Tests/Support/CyrusServer.swift,
# CourierServer.swift), beside Dovecot (source this file).
#
# Both Debian packages conflict with dovecot-imapd (all three provide imap-server), so neither is
# installed: their .debs are fetched with `apt-get download` and unpacked with `dpkg-deb -x` into a
# directory of the clone, from which the tests run private instances on loopback. What they need and
# does not conflict is installed system-wide (no service starts: bootstrap's policy-rc.d).
#
#   imap_servers_system_packages   prints the Debian packages to install system-wide (for scripts/bootstrap)
#   imap_servers_unpack DIR        fetches and unpacks the server packages into DIR/root (idempotent: a stamp
#                                  file names the versions); the tests look in .build/imap-servers

# Installed system-wide: Cyrus's master process, ctl_cyrusdb and the cyrus user (cyrus-common;
# it pulls in an MTA, exim4, whose daemon bootstrap keeps from starting), SASL's sasldb tools, and
# the libraries the unpacked binaries link.
IMAP_SERVERS_SYSTEM_PACKAGES=(cyrus-common sasl2-bin libsasl2-modules libidn12 libpcre3 libgdbm6 libltdl7 libgnutls30 perl)
# Unpacked only: the IMAP daemons (cyrus-imapd: imapd, idled), Courier's imapd, couriertcpd, couriertls,
# imaplogin and its authentication daemon with the userdb module, and FAM (gamin) for its immediate IDLE.
IMAP_SERVERS_UNPACKED_PACKAGES=(cyrus-imapd courier-imap courier-base courier-authdaemon courier-authlib courier-authlib-userdb
                                libcourier-unicode4 libgamin0 gamin)

imap_servers_system_packages() { printf '%s\n' "${IMAP_SERVERS_SYSTEM_PACKAGES[@]}"; }

imap_servers_unpack() {
  local dir="$1" versions stamp p deb
  command -v apt-get >/dev/null || { echo "imap-servers: apt-get is missing (Debian only)" >&2; return 1; }
  versions="$(apt-cache policy "${IMAP_SERVERS_UNPACKED_PACKAGES[@]}" | awk '/^[^ ]/ {p=$1} /Candidate:/ {print p, $2}')"
  stamp="$dir/root/.mailwake-unpacked"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$versions" ]; then
    echo "imap-servers: Cyrus and Courier already unpacked in $dir/root"
    return 0
  fi
  if printf '%s\n' "$versions" | grep -q '(none)'; then
    echo "imap-servers: apt has no candidate for: $(printf '%s\n' "$versions" | grep '(none)' | tr '\n' ' ') (run apt-get update)" >&2
    return 1
  fi
  rm -rf "$dir/debs" "$dir/root"
  mkdir -p "$dir/debs" "$dir/root"
  # apt-get download writes into the current directory; _apt must be able to write there.
  chmod 777 "$dir/debs"
  (cd "$dir/debs" && apt-get download -qq "${IMAP_SERVERS_UNPACKED_PACKAGES[@]}") || { echo "imap-servers: apt-get download failed" >&2; return 1; }
  for p in "${IMAP_SERVERS_UNPACKED_PACKAGES[@]}"; do
    deb="$(ls "$dir/debs/${p}_"*.deb 2>/dev/null | head -n 1)"
    [ -n "$deb" ] || { echo "imap-servers: $p was not downloaded" >&2; return 1; }
    dpkg-deb -x "$deb" "$dir/root"
  done
  for f in usr/lib/cyrus/bin/imapd usr/lib/cyrus/bin/idled usr/sbin/couriertcpd usr/bin/couriertls usr/bin/imapd \
           usr/lib/courier/courier/imaplogin usr/lib/courier/courier-authlib/authdaemond usr/sbin/makeuserdb \
           usr/lib/courier-authlib/libauthuserdb.so; do
    [ -e "$dir/root/$f" ] || { echo "imap-servers: $f missing after unpacking" >&2; return 1; }
  done
  rm -rf "$dir/debs"
  printf '%s\n' "$versions" > "$stamp"
  echo "imap-servers: unpacked Cyrus and Courier into $dir/root"
}
