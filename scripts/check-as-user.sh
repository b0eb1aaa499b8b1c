#!/bin/sh
# Runs the whole suite (make test) as an ordinary user, in a clone of this
# checkout that the user owns, so the tests that need root are seen to
# skip rather than pass.  Run as root after `make check` has installed the
# dependencies; it makes the user (jobdeck-check) when missing.  As any
# other user it just runs make test here.
set -eu
if [ "$(id -u)" -ne 0 ]; then
	exec make --no-print-directory test
fi
user=jobdeck-check
id "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/sh "$user"
dir=$(mktemp -d /tmp/jobdeck-check-user.XXXXXX)
trap 'rm -rf "$dir"' EXIT
git clone --quiet . "$dir/tree"
chown -R "$user" "$dir"
cd "$dir/tree"
# A user's own environment, not root's: root's PATH may hold directories
# the user cannot search (a shell then says "Permission denied", not "not
# found"), and its XDG directories are root's.
runuser -u "$user" -- env -i HOME="$(getent passwd "$user" | cut -d: -f6)" \
    USER="$user" LOGNAME="$user" SHELL=/bin/sh LANG="${LANG:-C.UTF-8}" \
    TERM="${TERM:-xterm}" PATH=/usr/local/bin:/usr/bin:/bin \
    make --no-print-directory test
