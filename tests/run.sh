#!/bin/sh
# Runs each check binary given as an argument, shows its output, and ends
# with one line that adds them up: "N passed, N failed, N skipped" (a test
# that could not run here prints a "SKIP: " line, see tests/skip.h).  Exits
# non-zero if any test failed or any binary could not run.
passed=0
failed=0
broken=0
skipped=0
for bin in "$@"; do
	out=$(CK_VERBOSITY=${CK_VERBOSITY:-normal} "$bin" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	line=$(printf '%s\n' "$out" | grep -E 'Checks: [0-9]+' | tail -n 1)
	if [ -z "$line" ]; then
		echo "$bin: no result line (exit $rc)"
		broken=$((broken + 1))
		continue
	fi
	n=$(printf '%s' "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
	f=$(printf '%s' "$line" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
	e=$(printf '%s' "$line" | sed -E 's/.*Errors: ([0-9]+).*/\1/')
	# A test that could not run here said "SKIP: " (tests/skip.h).
	s=$(printf '%s\n' "$out" | grep -c '^SKIP: ')
	passed=$((passed + n - f - e - s))
	skipped=$((skipped + s))
	failed=$((failed + f + e))
	[ "$rc" -ne 0 ] && [ $((f + e)) -eq 0 ] && broken=$((broken + 1))
done
echo
echo "$passed passed, $((failed + broken)) failed, $skipped skipped"
[ $((failed + broken)) -eq 0 ]
