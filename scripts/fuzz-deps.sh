#!/bin/sh
# Installs what `make fuzz` needs when it is missing: clang ($FUZZ_CC,
# default clang) and its libFuzzer runtime (libclang_rt.fuzzer), checked by
# linking a one-line fuzz target with -fsanitize=fuzzer,address,undefined.
# On Debian and Ubuntu it uses apt-get (through sudo when not root): the
# runtime is in libclang-rt-N-dev (bookworm and later) or in
# libclang-common-N-dev (bullseye and earlier), N being clang's major
# version.  Elsewhere, or if that does not help, it says what is missing
# and fails.
set -u
cc=${FUZZ_CC:-clang}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# Link a trivial fuzz target; 0 if the toolchain works.
try_link() {
	printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
	    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)' \
	    '{ (void)d; (void)n; return 0; }' >"$tmp/t.c"
	"$cc" -fsanitize=fuzzer,address,undefined -o "$tmp/t" "$tmp/t.c" \
	    >"$tmp/log" 2>&1
}

# Install the Debian packages named in $@ with apt-get.
apt_install() {
	command -v apt-get >/dev/null 2>&1 || return 1
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		if ! command -v sudo >/dev/null 2>&1; then
			echo "jobdeck: need root or sudo to install: $*" >&2
			return 1
		fi
		sudo="sudo"
	fi
	echo "jobdeck: installing $*" >&2
	$sudo apt-get update -qq >&2 || return 1
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >&2
}

# The Debian package with clang's libFuzzer runtime, for its version.
runtime_package() {
	major=$("$cc" -dumpversion 2>/dev/null | cut -d. -f1)
	[ -n "$major" ] || major=$(clang --version 2>/dev/null |
	    sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n 1)
	for p in "libclang-rt-$major-dev" "libclang-common-$major-dev"; do
		if apt-cache show "$p" >/dev/null 2>&1; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

try_link && exit 0

if ! command -v "$cc" >/dev/null 2>&1; then
	if [ "$cc" = clang ] && apt_install clang; then
		try_link && exit 0
	else
		cat >&2 <<MSG
jobdeck: missing: $cc (the C compiler with libFuzzer, for make fuzz)
Install clang and its compiler runtime (libclang_rt.fuzzer). On Debian or
Ubuntu: apt-get install clang libclang-rt-dev (bullseye and earlier:
clang alone), or name another compiler with FUZZ_CC=clang-NN.
MSG
		exit 1
	fi
fi

if command -v apt-get >/dev/null 2>&1 && pkg=$(runtime_package) &&
    apt_install "$pkg"; then
	try_link && exit 0
fi
echo "jobdeck: $cc cannot link -fsanitize=fuzzer,address,undefined:" >&2
sed 's/^/  /' "$tmp/log" | head -n 5 >&2
cat >&2 <<MSG
jobdeck: missing: the libFuzzer runtime of $cc (libclang_rt.fuzzer-*.a).
On Debian or Ubuntu it is in libclang-rt-N-dev (bookworm and later) or
libclang-common-N-dev (bullseye and earlier), N the major version of
$cc ($("$cc" -dumpversion 2>/dev/null)); elsewhere in compiler-rt.
MSG
exit 1
