#!/bin/sh
# run.sh: the side-by-side benchmark of issue 3 (make bench, make
# bench-quick).  Installs the peers jobdeck is compared with when they are
# missing -- tmux, screen and dvtm from Debian (apt-get, through sudo when
# not root), mprocs 0.9.6 from the npm registry into bench/.peers -- then
# runs build/bench/jdbench, which prints one table per workload and writes
# every raw number to bench/out/.  A peer that cannot be installed or run
# is passed on as "missing: reason" and printed so.  Then
# build/bench/storebench measures the output store (issue 11) against
# less, GNU grep and tmux, with its tables and its own TSV file.  jdbench's
# hosts workload (issue 28) starts the tests' sshd itself (openssh-server,
# which make bench's scripts/deps.sh installs); the raw peer is plain ssh
# there.
#
# Usage: sh bench/run.sh [full|quick]   (from the top of the tree)
# JOBDECK2=PATH (and JOBDECK2_LABEL=NAME, 12 characters at most) runs a
# second jobdeck build beside ./jobdeck in the same run (jdbench's
# jobdeck2), with its own rows and the ratio of the two.
set -u
mode=${1:-quick}
case $mode in
full|quick) ;;
*) echo "usage: sh bench/run.sh [full|quick]" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.." || exit 1
JDBENCH=${JDBENCH:-build/bench/jdbench}
STOREBENCH=${STOREBENCH:-build/bench/storebench}
JOBDECK=${JOBDECK:-./jobdeck}
MPROCS_VERSION=0.9.6
PEERS_DIR=bench/.peers
OUT_DIR=bench/out
for f in "$JDBENCH" "$STOREBENCH" "$JOBDECK"; do
	if [ ! -x "$f" ]; then
		echo "run.sh: $f not built (run make bench)" >&2
		exit 1
	fi
done
mkdir -p "$OUT_DIR" || exit 1
log=$OUT_DIR/install.log
: >"$log"

# sudo when not root, or nothing if there is no way to install.
sudo=""
can_apt=1
command -v apt-get >/dev/null 2>&1 || can_apt=0
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		sudo=sudo
	else
		can_apt=0
	fi
fi

# The Debian peers: install those missing in one go.
need=""
for p in tmux screen dvtm; do
	command -v "$p" >/dev/null 2>&1 || need="$need $p"
done
apt_why=""
if [ -n "$need" ]; then
	if [ "$can_apt" -eq 1 ]; then
		echo "run.sh: installing$need" >&2
		# shellcheck disable=SC2086 # $need is a list of packages
		if ! { $sudo apt-get update -qq &&
		    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
		    $need; } >>"$log" 2>&1; then
			apt_why="apt-get install failed (see $log)"
		fi
	elif ! command -v apt-get >/dev/null 2>&1; then
		apt_why="not installed, and no apt-get here"
	else
		apt_why="not installed, and neither root nor sudo"
	fi
fi
set -- raw "jobdeck=$JOBDECK"
if [ -n "${JOBDECK2:-}" ]; then
	set -- "$@" "jobdeck2${JOBDECK2_LABEL:+:$JOBDECK2_LABEL}=$JOBDECK2"
fi
for p in tmux screen dvtm; do
	if path=$(command -v "$p" 2>/dev/null); then
		set -- "$@" "$p=$path"
	else
		set -- "$@" "$p=!${apt_why:-not installed}"
	fi
done

# mprocs from the npm registry: the package carries prebuilt binaries.
case $(uname -sm) in
"Linux x86_64") mp_arch=linux-x86_64-musl ;;
"Linux aarch64") mp_arch=linux-aarch64-musl ;;
*) mp_arch="" ;;
esac
mp_pkg=$PEERS_DIR/node_modules/mprocs
mp_bin=$mp_pkg/mprocs-$MPROCS_VERSION-$mp_arch/mprocs
mp_why=""
if [ -z "$mp_arch" ]; then
	mp_why="no prebuilt binary in the npm package for $(uname -sm)"
elif [ ! -x "$mp_bin" ]; then
	if ! command -v npm >/dev/null 2>&1; then
		mp_why="npm not found"
	else
		echo "run.sh: installing mprocs@$MPROCS_VERSION from npm" >&2
		if ! npm install --prefix "$PEERS_DIR" --no-audit --no-fund \
		    "mprocs@$MPROCS_VERSION" >>"$log" 2>&1; then
			mp_why="npm install mprocs@$MPROCS_VERSION failed: $(tail -n 1 "$log")"
		elif [ ! -x "$mp_bin" ]; then
			mp_why="npm package has no $mp_arch binary"
		fi
	fi
fi
if [ -z "$mp_why" ] && ! "$mp_bin" --version 2>/dev/null |
    grep -q "$MPROCS_VERSION"; then
	mp_why="$mp_bin does not run"
fi
if [ -z "$mp_why" ]; then
	set -- "$@" "mprocs=$mp_bin"
else
	set -- "$@" "mprocs=!$mp_why"
fi

cpu=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo \
    2>/dev/null | head -n 1)
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo "?")
stamp=$(date '+%Y-%m-%d %H:%M:%S %Z')
load=$(cut -d " " -f 1-3 /proc/loadavg 2>/dev/null)
header="jdbench $mode, $stamp; $(uname -sr); ${cpu:-unknown CPU}, $cores cores; load ${load:-?}"
for p in tmux screen dvtm; do
	v=$(dpkg-query -W -f '${Version}' "$p" 2>/dev/null) &&
	    header="$header; $p $v"
done
[ -z "$mp_why" ] && header="$header; mprocs $MPROCS_VERSION"
date=$(date '+%Y%m%d-%H%M%S')
tsv=$OUT_DIR/jdbench-$mode-$date.tsv

"$JDBENCH" -m "$mode" -o "$tsv" -H "$header" "$@"
rc=$?
# 130: jdbench was interrupted; stop there too.
[ "$rc" -eq 130 ] && exit "$rc"
"$STOREBENCH" -m "$mode" -o "$OUT_DIR/storebench-$mode-$date.tsv" \
    -j "$JOBDECK"
src=$?
[ "$rc" -ne 0 ] && exit "$rc"
exit "$src"
