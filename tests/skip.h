/*
 * skip.h: how a check test that cannot run here says so.  check(3) knows
 * only pass and fail, so a test that needs what this machine or user does
 * not have prints one "SKIP: " line and returns; tests/run.sh counts those
 * lines as skipped instead of passed.  Only a test that checked nothing
 * may skip.
 */
#ifndef JOBDECK_TEST_SKIP_H
#define JOBDECK_TEST_SKIP_H

#include <stdio.h>

#define TEST_SKIP_LINE(...) do {					\
	fprintf(stderr, "SKIP: %s: ", __func__);			\
	fprintf(stderr, __VA_ARGS__);					\
	fputc('\n', stderr);						\
	fflush(stderr);							\
} while (0)

#define TEST_SKIP(...) do {						\
	TEST_SKIP_LINE(__VA_ARGS__);					\
	return;								\
} while (0)

#endif
