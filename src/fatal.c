/*
 * fatal.c: abort the program on a broken invariant or out-of-memory.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "fatal.h"

/* Print "jobdeck: MESSAGE" to stderr and abort. */
void
fatal(const char *fmt, ...)
{
	va_list	ap;

	fputs("jobdeck: fatal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
