#!/bin/sh
# The demo mailbox's start: the `demo` user's password (from the certs volume) into a
# passwd-file only root and Dovecot's group can read, then Dovecot in the foreground.
set -eu
umask 077
printf 'demo:{PLAIN}%s\n' "$(cat /certs/imap-password)" > /etc/dovecot/passwd.tmp
chgrp dovecot /etc/dovecot/passwd.tmp
chmod 640 /etc/dovecot/passwd.tmp
mv -f /etc/dovecot/passwd.tmp /etc/dovecot/passwd
install -d -o mail -g mail -m 700 /var/mail
exec /usr/sbin/dovecot -F
