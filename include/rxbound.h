/*
 * rxbound: POSIX regular expressions compiled within bounds.
 *
 * glibc's regcomp() copies what a repetition repeats ("a{1000}" is a
 * thousand nodes, "a+" two copies of a, and "w++++" doubles at each '+'),
 * and its memory and time grow with the square of the copies of optional
 * groups: a pattern of 265 bytes can ask for gigabytes.  Back-references
 * make regexec() exponential.  Every pattern jobdeck compiles (grep's
 * search, ready_log, the log probe) comes here first, so a pattern from a
 * user, a config, a script or an agent is refused with a specific reason
 * before it can stall the loop:
 *
 *   - its cost once every repetition is expanded (RXBOUND_COST_MAX; a
 *     group costs its contents and two, '*' and '?' one, '+' a second
 *     copy, {m,n} n copies) is bounded, which bounds regcomp() to a few
 *     tens of megabytes and milliseconds;
 *   - groups nest at most RXBOUND_DEPTH_MAX deep;
 *   - back-references (\1 to \9) are refused.
 *
 * The syntax is read as glibc reads it: basic (with GNU \+ \? \|) or
 * extended.  What the estimate cannot parse is left to regcomp() to
 * refuse in its own words.
 */
#ifndef JOBDECK_RXBOUND_H
#define JOBDECK_RXBOUND_H

#include <sys/types.h>

#include <regex.h>
#include <stddef.h>

#define RXBOUND_COST_MAX	2000	/* expanded elements of a pattern */
#define RXBOUND_DEPTH_MAX	64	/* groups inside groups */

/*
 * Return the expanded cost of pattern (REG_EXTENDED in cflags: extended),
 * at most RXBOUND_COST_MAX + 1; -1 with *cause (caller frees) for a
 * back-reference or groups nested too deep.
 */
long	rxbound_cost(const char *pattern, int cflags, char **cause);

/*
 * Compile pattern into *re with regcomp(pattern, cflags) if it is within
 * the bounds; 0, or -1 with *cause (caller frees; without a prefix, for
 * the caller to say which pattern) and *re not set.  The caller owns *re
 * (regfree()).
 */
int	rxbound_compile(regex_t *re, const char *pattern, int cflags,
	    char **cause);

#endif
