#!/bin/sh
# Installs what jobdeck needs to build and test, when it is missing:
# ncursesw, libvterm, libcurl (readiness probes and the browser's
# /json/version over HTTP), jansson (the browser's JSON replies), check and
# pkg-config (and groff to lint the man page, python3 for the demo stack
# of `make run` and the stack's end-to-end tests, ping for its examples,
# chromium-headless-shell, the browser [browser] cdp_url = "auto"
# starts, which the browser's tests drive, and nodejs and npm, which run
# the official MCP SDK client of jobdeck mcp's interop tests).
# On Debian and Ubuntu it uses apt-get (through sudo when not root);
# elsewhere it names the packages and fails.
set -u
need=""
have_pc() { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$1"; }
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
have_pc ncursesw || need="$need libncurses-dev"
have_pc vterm || need="$need libvterm-dev"
have_pc check || need="$need check"
have_pc libcurl || need="$need libcurl4-openssl-dev"
have_pc jansson || need="$need libjansson-dev"
command -v groff >/dev/null 2>&1 || need="$need groff-base"
command -v cc >/dev/null 2>&1 || need="$need gcc"
command -v make >/dev/null 2>&1 || need="$need make"
command -v ping >/dev/null 2>&1 || need="$need iputils-ping"
command -v python3 >/dev/null 2>&1 || need="$need python3"
command -v chromium-headless-shell >/dev/null 2>&1 ||
	need="$need chromium-headless-shell"
command -v node >/dev/null 2>&1 || need="$need nodejs"
command -v npm >/dev/null 2>&1 || need="$need npm"
[ -z "$need" ] && exit 0
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
Install them with your package manager: ncursesw (wide-character ncurses)
development files, libvterm 0.1.x, libcurl and jansson development files,
the check unit-test library, pkg-config, groff, ping, python3, a headless
Chromium, and Node.js with npm. On Debian or Ubuntu:
  apt-get install libncurses-dev libvterm-dev libcurl4-openssl-dev \
    libjansson-dev check pkg-config groff-base \
    iputils-ping python3 chromium-headless-shell nodejs npm
MSG
exit 1
