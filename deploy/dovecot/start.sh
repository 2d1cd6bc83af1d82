#!/bin/sh
set -eu
printf 'demo:{PLAIN}%s\n' "$(cat /certs/imap-password)" > /etc/dovecot/passwd
chmod 640 /etc/dovecot/passwd
chgrp dovecot /etc/dovecot/passwd
install -d -o mail -g mail /var/mail
exec /usr/sbin/dovecot -F
