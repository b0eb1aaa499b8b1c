#!/bin/sh
# Runs each fuzz target (build/fuzz/fuzz_NAME) for SECONDS seconds, one
# after the other: usage: run.sh SECONDS NAME...
#
# Each starts from its seed corpus, tests/fuzz/corpus/NAME (read only), and
# the inputs earlier runs found, tests/fuzz/out/corpus/NAME (where new ones
# go), with tests/fuzz/NAME.dict when there is one.  A crash, leak or
# timeout leaves its input in tests/fuzz/out/NAME/; copy it to
# tests/fuzz/regress/NAME/crash-DESCRIPTION once understood, so that
# `make test` replays it for ever.  Prints the executions of each target
# and the total, writes them to tests/fuzz/out/stats.txt, and exits
# non-zero if any target failed.
set -u
secs=${1:?usage: run.sh SECONDS NAME...}
shift
dir=tests/fuzz
out=$dir/out
mkdir -p "$out"
stats=$out/stats.txt
: >"$stats.new"
total=0
failed=""
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
for t in "$@"; do
	mkdir -p "$out/corpus/$t" "$out/$t"
	log=$out/$t.log
	set -- -max_total_time="$secs" -print_final_stats=1 -timeout=20 \
	    -rss_limit_mb=2048 -artifact_prefix="$out/$t/"
	[ -f "$dir/$t.dict" ] && set -- "$@" -dict="$dir/$t.dict"
	echo "fuzz_$t: ${secs} s ..."
	build/fuzz/fuzz_"$t" "$@" "$out/corpus/$t" "$dir/corpus/$t" \
	    >"$log" 2>&1
	rc=$?
	# libFuzzer's last statistics, else its "Done N runs" line.
	n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	[ -n "$n" ] || n=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" |
	    tail -n 1)
	[ -n "$n" ] || n=0
	total=$((total + n))
	if [ "$rc" -ne 0 ]; then
		failed="$failed $t"
		art=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" |
		    tail -n 1)
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" |
		    head -n 3
		echo "fuzz_$t: FAILED after $n executions (exit $rc):" \
		    "input ${art:-none}, log $log"
		printf '%s %s FAILED %s\n' "$t" "$n" "${art:-}" >>"$stats.new"
	else
		echo "fuzz_$t: $n executions, no crash"
		printf '%s %s\n' "$t" "$n" >>"$stats.new"
	fi
done
printf 'total %s\n' "$total" >>"$stats.new"
printf '# %s, %s s per target\n' "$(date -u +%Y-%m-%dT%H:%MZ)" "$secs" \
    >"$stats"
cat "$stats.new" >>"$stats"
rm -f "$stats.new"
echo "fuzz: $total executions in total ($stats)"
if [ -n "$failed" ]; then
	echo "fuzz: FAILED:$failed"
	exit 1
fi
