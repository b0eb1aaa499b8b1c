/*
 * duration.c: durations as people write them (duration.h).  The number
 * of each part is read digit by digit (at most 15 significant ones), so
 * that strtod()'s locale, exponents, hex and infinities never come in.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "textesc.h"
#include "xmalloc.h"

#define DURATION_EXCERPT	32	/* bytes of the value in a message */

/* The units, largest first, and their seconds. */
static const struct {
	const char	*name;
	double		 secs;
} duration_units[] = {
	{ "d", 86400 },
	{ "h", 3600 },
	{ "m", 60 },
	{ "s", 1 },
	{ "ms", 0.001 },
};
#define DURATION_NUNITS	(sizeof duration_units / sizeof duration_units[0])

/* Fail: "WHAT: 'S' is not a duration (...)". */
static int
duration_fail(const char *what, const char *s, char **cause)
{
	char	*e;

	e = textesc_excerpt(s, strlen(s), DURATION_EXCERPT);
	*cause = xprintf("%s: '%s' is not a duration (as 30s, 5m, 1h30m, "
	    "500ms; a number alone is seconds)", what, e);
	free(e);
	return -1;
}

/*
 * Read a number (digits, perhaps a '.' and more digits) at *p into *v,
 * moving *p past it; -1 when there is none.
 */
static int
duration_number(const char **p, double *v)
{
	const char	*s = *p;
	double		 n = 0, scale = 1;
	int		 digits = 0, frac = 0;

	for (; isdigit((unsigned char)*s) || (*s == '.' && !frac); s++) {
		if (*s == '.') {
			frac = 1;
			continue;
		}
		digits++;
		if (frac)
			n += (*s - '0') * (scale /= 10);
		else if (n < 1e15)
			n = n * 10 + (*s - '0');
		else
			n = INFINITY;
	}
	if (digits == 0 || s[-1] == '.')
		return -1;
	*v = n;
	*p = s;
	return 0;
}

/*
 * Parse s, a duration, into *secs (0 to max seconds); -1 with *cause,
 * which names the value what.
 */
int
duration_parse(const char *what, const char *s, double max, double *secs,
    char **cause)
{
	const char	*p = s;
	double		 total = 0, v;
	size_t		 u, next = 0, len;
	char		*e;

	if (duration_number(&p, &v) != 0)
		return duration_fail(what, s, cause);
	if (*p == '\0')
		total = v;
	for (;;) {
		if (*p == '\0')
			break;
		for (u = next; u < DURATION_NUNITS; u++) {
			len = strlen(duration_units[u].name);
			if (strncmp(p, duration_units[u].name, len) == 0 &&
			    !isalpha((unsigned char)p[len]))
				break;
		}
		if (u == DURATION_NUNITS)
			return duration_fail(what, s, cause);
		total += v * duration_units[u].secs;
		p += strlen(duration_units[u].name);
		next = u + 1;
		if (*p == '\0')
			break;
		if (duration_number(&p, &v) != 0)
			return duration_fail(what, s, cause);
		if (*p == '\0')
			return duration_fail(what, s, cause);
	}
	if (!(total <= max)) {
		e = textesc_excerpt(s, strlen(s), DURATION_EXCERPT);
		*cause = xprintf("%s: %s is more than %.0f seconds", what, e,
		    max);
		free(e);
		return -1;
	}
	*secs = total;
	return 0;
}
