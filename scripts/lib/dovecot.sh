# shellcheck shell=bash
# A private Dovecot IMAP server under a directory of its own: no system
# service, no root needed when run as an ordinary user (source this file).
#
#   dovecot_start DIR PORT CERT KEY USER PASSWORD   starts it (IMAPS on 127.0.0.1:PORT), pid in DIR/dovecot.pid
#   dovecot_stop DIR                                stops it
#   demo_mail_append DEMO FILE                      appends FILE to INBOX of the demo stack in DEMO
#                                                   (scripts/demo: its CA, imap-port, imap-password)
#
# As root, mail belongs to the `mail` user and Dovecot's own users run the
# login processes, as Debian's package sets them up (dovecot-imapd).

dovecot_start() {
  local dir="$1" port="$2" cert="$3" key="$4" user="$5" password="$6"
  local uid gid internal internal_group login
  [ -x /usr/sbin/dovecot ] || { echo "dovecot: /usr/sbin/dovecot is missing (scripts/bootstrap installs dovecot-imapd)" >&2; return 1; }
  mkdir -p "$dir/run" "$dir/state" "$dir/mail"
  dir="$(cd "$dir" && pwd -P)"   # the physical path: Dovecot's users may not pass a symlink's directory
  chmod 755 "$dir"
  if [ "$(id -u)" = 0 ]; then
    uid="$(id -u mail)"; gid="$(id -g mail)"; internal=dovecot; internal_group=dovecot; login=dovenull
    chown "$uid:$gid" "$dir/mail"
  else
    uid="$(id -u)"; gid="$(id -g)"; internal="$(id -un)"; internal_group="$(id -gn)"; login="$internal"
  fi
  # Dovecot reads the key as root before dropping privileges; copies keep the caller's files private.
  install -m 644 "$cert" "$dir/cert.pem"
  install -m 600 "$key" "$dir/key.pem"
  printf '%s:{PLAIN}%s\n' "$user" "$password" > "$dir/passwd"
  chmod 644 "$dir/passwd"
  cat > "$dir/dovecot.conf" <<CONF
base_dir = $dir/run
state_dir = $dir/state
instance_name = mailwake-$(basename "$dir")-$port
log_path = $dir/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = required
ssl_cert = <$dir/cert.pem
ssl_key = <$dir/key.pem
ssl_min_protocol = TLSv1.2
auth_mechanisms = plain login
first_valid_uid = $uid
last_valid_uid = $uid
first_valid_gid = $gid
mail_location = maildir:$dir/mail/%u
default_internal_user = $internal
default_internal_group = $internal_group
default_login_user = $login
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u $dir/passwd
}
userdb {
  driver = static
  args = uid=$uid gid=$gid home=$dir/mail/%u
}
service imap-login {
  chroot =
  inet_listener imap {
    port = 0
  }
  inet_listener imaps {
    port = $port
    ssl = yes
  }
}
service anvil {
  chroot =
}
CONF
  /usr/sbin/dovecot -F -c "$dir/dovecot.conf" >"$dir/dovecot.out" 2>&1 &
  echo $! > "$dir/dovecot.pid"
  for _ in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "dovecot: did not start; its log:" >&2
  tail -n 20 "$dir/dovecot.log" "$dir/dovecot.out" >&2 2>/dev/null || true
  return 1
}

dovecot_stop() {
  local dir="$1" pid
  [ -f "$dir/dovecot.pid" ] || return 0
  pid="$(cat "$dir/dovecot.pid")"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$dir/dovecot.pid"
}

demo_mail_append() {
  local demo="$1" file="$2"
  curl -sf --cacert "$demo/ca.pem" -u "demo:$(cat "$demo/imap-password")" -T "$file" "imaps://127.0.0.1:$(cat "$demo/imap-port")/INBOX"
}
