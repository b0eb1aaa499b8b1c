/*
 * optmsg.c: what getopt_long() refused, in words (include/optmsg.h).
 */
#include <getopt.h>
#include <stdio.h>

#include "optmsg.h"

/*
 * Say on stderr why getopt_long() returned ch (':' a missing value, else
 * an unknown option) for prog, from optind, optopt and argv.
 */
void
optmsg_getopt(const char *prog, int ch, char *const *argv)
{
	if (ch == ':')
		fprintf(stderr, "%s: option '%s' needs a value\n", prog,
		    argv[optind - 1]);
	else if (optopt != 0)
		fprintf(stderr, "%s: unknown option '-%c'\n", prog, optopt);
	else
		fprintf(stderr, "%s: unknown option '%s'\n", prog,
		    argv[optind - 1]);
}
