#!/bin/sh
# Installs what jobdeck needs to build and test when it is missing: every
# line of scripts/deps.list (PACKAGE KIND WHAT) whose WHAT is not here
# adds its PACKAGE.  On Debian and Ubuntu it uses apt-get (through sudo
# when not root); elsewhere it names the packages and fails.
#   --dry-run		print the packages that would be installed, install
#			nothing
#   --have KIND WHAT	exit 0 if WHAT of KIND is here, 1 if not, 2 for a
#			kind it does not know (tests/need.c asks this: one
#			rule for what "here" means)
# JOBDECK_DEPS_LIST names another list (the tests use it).
set -u
list=${JOBDECK_DEPS_LIST:-$(dirname "$0")/deps.list}
dry=0
[ "${1:-}" = "--dry-run" ] && dry=1

# Whether curses finds a terminfo entry (the directories Debian's ncurses
# searches, and the user's own).
have_terminfo() {
	for d in "${TERMINFO:-/nonexistent}" "$HOME/.terminfo" /etc/terminfo \
	    /lib/terminfo /usr/share/terminfo; do
		first=$(printf '%s' "$1" | cut -c1)
		[ -e "$d/$first/$1" ] && return 0
	done
	return 1
}

# Whether the WHAT of a line of KIND is here.
have() {
	case $1 in
	pc)	command -v pkg-config >/dev/null 2>&1 &&
		    pkg-config --exists "$2" ;;
	program) command -v "$2" >/dev/null 2>&1 ;;
	terminfo) have_terminfo "$2" ;;
	file)	[ -e "$2" ] ;;
	*)	echo "jobdeck: $list: unknown kind '$1'" >&2; return 2 ;;
	esac
}

if [ "${1:-}" = "--have" ]; then
	[ $# -eq 3 ] || { echo "usage: deps.sh --have KIND WHAT" >&2; exit 2; }
	have "$2" "$3"
	rc=$?
	case $rc in
	0|2)	exit $rc ;;
	*)	exit 1 ;;
	esac
fi

if [ ! -r "$list" ]; then
	echo "jobdeck: cannot read $list" >&2
	exit 1
fi
need=""
# shellcheck disable=SC2034 # rest: a line's comment, if any
while read -r pkg kind what rest; do
	case $pkg in ''|'#'*) continue ;; esac
	have "$kind" "$what"
	case $? in
	0)	continue ;;
	2)	exit 1 ;;
	esac
	case " $need " in *" $pkg "*) ;; *) need="$need $pkg" ;; esac
done <"$list"
[ -z "$need" ] && exit 0
if [ "$dry" -eq 1 ]; then
	echo "jobdeck: would install:$need"
	exit 0
fi
if command -v apt-get >/dev/null 2>&1; then
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		if command -v sudo >/dev/null 2>&1; then
			sudo="sudo"
		else
			echo "jobdeck: need root or sudo to install:$need" >&2
			exit 1
		fi
	fi
	echo "jobdeck: installing$need" >&2
	$sudo apt-get update -qq >&2 || exit 1
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $need >&2 \
	    || exit 1
	exit 0
fi
cat >&2 <<MSG
jobdeck: missing:$need
These are Debian's package names ($list says what each brings):
install their equivalents with your package manager.
MSG
exit 1
