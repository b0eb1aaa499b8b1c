/*
 * ckshim.c: check's two assertion entry points for the tests' helpers
 * that a benchmark links outside a test runner (jdbench's hosts workload
 * starts the tests' sshd, tests/testssh.c).  check's own need the
 * runner's messaging and abort a program that has none, even for an
 * assertion that holds; here one that holds does nothing, and one that
 * fails prints its message and exits 1 (jdbench's guard then cleans up).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <check.h>

/* A passing assertion: nothing to report outside a test. */
void
_mark_point(const char *file, int line)
{
	(void)file;
	(void)line;
}

/* A failing assertion: print where and what (its message), exit 1. */
void
_ck_assert_failed(const char *file, int line, const char *expr,
    const char *msg, ...)
{
	va_list	ap;

	fprintf(stderr, "jdbench: %s:%d: ", file, line);
	if (msg != NULL) {
		va_start(ap, msg);
		vfprintf(stderr, msg, ap);
		va_end(ap);
	} else
		fputs(expr, stderr);
	fputc('\n', stderr);
	exit(1);
}
