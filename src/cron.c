/*
 * cron.c: five-field cron expressions (cron.h) and the next time one
 * fires.
 *
 * A parsed expression is one bit set per field (bit N: value N may
 * fire; the day of the week's 7 folded into 0) and whether the day-of-
 * month, hour and day-of-week fields start with `*` (Vixie's rule for
 * the two day fields, and cron.h's for a repeated hour).
 *
 * cron_next() walks local wall-clock time as "civil" seconds (a UTC
 * time_t whose broken-down form is the local time, so that timegm() and
 * gmtime_r() step days and months without any zone's rules): a month
 * that does not match skips to the next month, a day to the next day,
 * an hour to the next hour, a minute to the next matching minute.  Each
 * matching civil minute is turned into the instants it names with
 * mktime() in both DST states, kept where localtime_r() gives the same
 * minute back (none in a gap, two in a repeated hour).  Civil order is
 * instant order except when the clocks go back: when the offset changes
 * within CRON_DST_MAX after the start, the walk starts CRON_DST_MAX
 * earlier and goes on until no earlier instant can come.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cron.h"
#include "textesc.h"
#include "xmalloc.h"

#define CRON_FIELDS	5
#define CRON_DST_MAX	(3 * 3600)	/* seconds an offset may change by */
#define CRON_YEARS	9		/* looked ahead: 29 February, 2100 */
#define CRON_EXCERPT	24		/* bytes of a token in a message */

struct cron {
	uint64_t	bits[CRON_FIELDS];
	int		dom_star;
	int		hour_star;
	int		dow_star;
};

/* A field: its name in messages, its bounds and its names (or NULL). */
struct cron_field {
	const char		*name;
	int			 lo, hi;
	const char *const	*names;		/* [0] is lo's */
	const char		*what;		/* "a month name (JAN..DEC)" */
};

static const char *const cron_months[] = { "JAN", "FEB", "MAR", "APR",
    "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC", NULL };
static const char *const cron_days[] = { "SUN", "MON", "TUE", "WED",
    "THU", "FRI", "SAT", NULL };

static const struct cron_field cron_fields[CRON_FIELDS] = {
	{ "minute", 0, 59, NULL, NULL },
	{ "hour", 0, 23, NULL, NULL },
	{ "day of month", 1, 31, NULL, NULL },
	{ "month", 1, 12, cron_months, "a month name (JAN..DEC)" },
	{ "day of week", 0, 7, cron_days, "a day name (SUN..SAT)" },
};

/* The macros and the fields each stands for. */
static const struct {
	const char	*name;
	const char	*fields;
} cron_macros[] = {
	{ "@yearly", "0 0 1 1 *" },
	{ "@annually", "0 0 1 1 *" },
	{ "@monthly", "0 0 1 * *" },
	{ "@weekly", "0 0 * * 0" },
	{ "@daily", "0 0 * * *" },
	{ "@midnight", "0 0 * * *" },
	{ "@hourly", "0 * * * *" },
};

/* Days in each month of a leap year: whether a day can come at all. */
static const int cron_mdays[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31,
    30, 31 };

/*
 * Fail a field's parse: "schedule: field N (NAME): " and msg; msg and the
 * excerpt it quotes (NULL: none) are freed.
 */
static int
cron_fail(int field, char *excerpt, char *msg, char **cause)
{
	*cause = xprintf("schedule: field %d (%s): %s", field + 1,
	    cron_fields[field].name, msg);
	free(msg);
	free(excerpt);
	return -1;
}

/* Return s[0..len) quoted safely for a message, to free. */
static char *
cron_excerpt(const char *s, size_t len)
{
	return textesc_excerpt(s, len, CRON_EXCERPT);
}

/*
 * Read a value of field f at *p (digits, or a name where the field has
 * names) into *v, moving *p past it; -1 with *cause.
 */
static int
cron_value(int f, const char **p, int *v, char **cause)
{
	const struct cron_field	*cf = &cron_fields[f];
	const char		*s = *p;
	char			*e;
	size_t			 len, i;
	long			 n = 0;

	if (isdigit((unsigned char)*s)) {
		for (len = 0; isdigit((unsigned char)s[len]); len++) {
			if (n < 100000)
				n = n * 10 + (s[len] - '0');
		}
		if (n < cf->lo || n > cf->hi) {
			e = cron_excerpt(s, len);
			return cron_fail(f, e, xprintf("%s is out of range "
			    "%d-%d", e, cf->lo, cf->hi), cause);
		}
		*v = (int)n;
		*p = s + len;
		return 0;
	}
	for (len = 0; isalpha((unsigned char)s[len]); len++)
		;
	for (i = 0; len == 3 && cf->names != NULL && cf->names[i] != NULL;
	    i++) {
		if (strncasecmp(s, cf->names[i], 3) == 0) {
			*v = cf->lo + (int)i;
			*p = s + len;
			return 0;
		}
	}
	if (len == 0)
		len = strcspn(s, ",-/");
	if (len == 0)
		len = 1;
	e = cron_excerpt(s, len);
	if (cf->names != NULL)
		return cron_fail(f, e, xprintf("'%s' is not a number or %s", e,
		    cf->what), cause);
	return cron_fail(f, e, xprintf("'%s' is not a number", e), cause);
}

/*
 * Parse one item of field f at *p (`*`, A, A-B, each with /S) into
 * *bits, moving *p past it; -1 with *cause.
 */
static int
cron_item(int f, const char **p, uint64_t *bits, char **cause)
{
	const struct cron_field	*cf = &cron_fields[f];
	const char		*s = *p, *start = *p;
	char			*e;
	long			 step = 1;
	size_t			 len;
	int			 a, b, v, star = 0, span;

	if (*s == '*') {
		star = 1;
		a = cf->lo;
		b = f == 4 ? 6 : cf->hi;
		s++;
	} else {
		if (cron_value(f, &s, &a, cause) != 0)
			return -1;
		b = a;
		if (*s == '-') {
			s++;
			if (*s == '\0' || *s == ',' || *s == '/') {
				e = cron_excerpt(start, (size_t)(s - start));
				return cron_fail(f, e, xprintf("'%s' needs a "
				    "value after '-'", e), cause);
			}
			if (cron_value(f, &s, &b, cause) != 0)
				return -1;
			if (b < a) {
				e = cron_excerpt(start, (size_t)(s - start));
				return cron_fail(f, e, xprintf("range %s goes "
				    "backwards", e), cause);
			}
		}
	}
	if (*s == '/') {
		s++;
		span = f == 4 ? 7 : cf->hi - cf->lo + 1;
		for (len = 0, step = 0; isdigit((unsigned char)s[len]); len++) {
			if (step < 100000)
				step = step * 10 + (s[len] - '0');
		}
		if (len == 0) {
			e = cron_excerpt(start, (size_t)(s - start) +
			    strcspn(s, ","));
			return cron_fail(f, e, xprintf("'%s' needs a number "
			    "after '/'", e), cause);
		}
		if (step < 1 || step > span) {
			e = cron_excerpt(s, len);
			return cron_fail(f, e, xprintf("step %s is out of "
			    "range 1-%d", e, span), cause);
		}
		s += len;
		/* A/S runs from A to the field's end. */
		if (!star && b == a)
			b = cf->hi;
	}
	if (*s != '\0' && *s != ',') {
		e = cron_excerpt(s, 1);
		return cron_fail(f, e, xprintf("unexpected '%s' after "
		    "'%.*s'", e, (int)(s - start), start), cause);
	}
	for (v = a; v <= b; v += (int)step)
		*bits |= (uint64_t)1 << (v == 7 && f == 4 ? 0 : v);
	*p = s;
	return 0;
}

/* Parse field f, the text s (no blanks), into c; -1 with *cause. */
static int
cron_field(struct cron *c, int f, const char *s, char **cause)
{
	const char	*p = s;

	for (;;) {
		if (*p == ',' || *p == '\0')
			return cron_fail(f, NULL, xstrdup(*p == ',' && p == s ?
			    "a list may not start with ','" : *p == ',' ?
			    "empty item between ','" : p == s ? "empty" :
			    "a list may not end with ','"), cause);
		if (cron_item(f, &p, &c->bits[f], cause) != 0)
			return -1;
		if (*p == '\0')
			return 0;
		p++;	/* the ',' */
	}
}

/*
 * Check that some day of the month comes in some month of c when the
 * two must both match (the day of the week is `*`); -1 with *cause.
 */
static int
cron_check_days(const struct cron *c, char **cause)
{
	int	m, d;

	if (c->dom_star || !c->dow_star)
		return 0;
	for (m = 1; m <= 12; m++) {
		if (!(c->bits[3] >> m & 1))
			continue;
		for (d = 1; d <= cron_mdays[m - 1]; d++) {
			if (c->bits[2] >> d & 1)
				return 0;
		}
	}
	return cron_fail(2, NULL, xstrdup("no day of it comes in the months of "
	    "field 4 (month)"), cause);
}

/* Parse five blank-separated fields in s into c; -1 with *cause. */
static int
cron_fields_parse(struct cron *c, const char *s, char **cause)
{
	char	*copy, *p, *word[CRON_FIELDS + 1];
	int	 n = 0, f, rc = 0;

	copy = xstrdup(s);
	for (p = strtok(copy, " \t"); p != NULL; p = strtok(NULL, " \t")) {
		if (n <= CRON_FIELDS)
			word[n] = p;
		n++;
	}
	if (n != CRON_FIELDS) {
		free(copy);
		*cause = xprintf("schedule: expected 5 fields (minute hour "
		    "day-of-month month day-of-week), found %d", n);
		return -1;
	}
	for (f = 0; f < CRON_FIELDS && rc == 0; f++)
		rc = cron_field(c, f, word[f], cause);
	if (rc == 0) {
		c->dom_star = word[2][0] == '*';
		c->hour_star = word[1][0] == '*';
		c->dow_star = word[4][0] == '*';
		rc = cron_check_days(c, cause);
	}
	free(copy);
	return rc;
}

/* Parse a cron expression or macro; NULL with *cause. */
struct cron *
cron_parse(const char *text, char **cause)
{
	struct cron	*c;
	const char	*s = text;
	char		*e;
	size_t		 i, len;

	while (*s == ' ' || *s == '\t')
		s++;
	for (len = strlen(s); len > 0 && (s[len - 1] == ' ' ||
	    s[len - 1] == '\t'); len--)
		;
	if (len == 0) {
		*cause = xstrdup("schedule: empty (five fields, as "
		    "\"*/5 * * * *\", or a macro, as \"@daily\")");
		return NULL;
	}
	for (i = 0; i < len; i++) {
		if ((unsigned char)s[i] < ' ' && s[i] != '\t') {
			*cause = xstrdup("schedule: a control character in "
			    "the expression");
			return NULL;
		}
	}
	c = xcalloc(1, sizeof *c);
	if (*s == '@') {
		for (i = 0; i < sizeof cron_macros / sizeof cron_macros[0];
		    i++) {
			if (strlen(cron_macros[i].name) == len &&
			    strncasecmp(s, cron_macros[i].name, len) == 0)
				break;
		}
		if (i == sizeof cron_macros / sizeof cron_macros[0]) {
			e = cron_excerpt(s, len);
			*cause = xprintf("schedule: unknown macro '%s' (known: "
			    "@yearly @annually @monthly @weekly @daily "
			    "@midnight @hourly)", e);
			free(e);
			free(c);
			return NULL;
		}
		s = cron_macros[i].fields;
		len = strlen(s);
	}
	e = xstrndup(s, len);
	if (cron_fields_parse(c, e, cause) != 0) {
		free(e);
		free(c);
		return NULL;
	}
	free(e);
	return c;
}

/* Free a parsed expression. */
void
cron_free(struct cron *c)
{
	free(c);
}

/* Return whether the civil day tm may fire (Vixie's rule). */
static int
cron_day(const struct cron *c, const struct tm *tm)
{
	int	dom = (int)(c->bits[2] >> tm->tm_mday & 1);
	int	dow = (int)(c->bits[4] >> tm->tm_wday & 1);

	if (c->dom_star || c->dow_star)
		return dom && dow;
	return dom || dow;
}

/*
 * Fill t with the instants whose local time is the civil minute tm, in
 * order: none in a gap, two in a repeated hour (one unless the hour
 * field is `*`).  Return how many.
 */
static int
cron_instants(const struct cron *c, const struct tm *tm, time_t t[2])
{
	struct tm	x, y;
	time_t		r;
	int		n = 0, dst;

	for (dst = 1; dst >= 0; dst--) {
		x = *tm;
		x.tm_isdst = dst;
		if ((r = mktime(&x)) == (time_t)-1 ||
		    localtime_r(&r, &y) == NULL)
			continue;
		if (y.tm_year != tm->tm_year || y.tm_mon != tm->tm_mon ||
		    y.tm_mday != tm->tm_mday || y.tm_hour != tm->tm_hour ||
		    y.tm_min != tm->tm_min)
			continue;
		if (n == 1 && t[0] == r)
			continue;
		t[n++] = r;
	}
	if (n == 2 && t[1] < t[0]) {
		r = t[0];
		t[0] = t[1];
		t[1] = r;
	}
	if (n == 2 && !c->hour_star)
		n = 1;
	return n;
}

/* Return the local time's offset from UTC at t, in seconds. */
static long
cron_offset(time_t t)
{
	struct tm	tm;

	if (localtime_r(&t, &tm) == NULL)
		return 0;
	return tm.tm_gmtoff;
}

/*
 * Return the first instant strictly after after whose local time is a
 * minute c matches, or -1 if none comes within CRON_YEARS years.
 */
time_t
cron_next(const struct cron *c, time_t after)
{
	struct tm	tm;
	time_t		civ, limit, best = -1, best_civ = 0, t[2];
	int		exhaustive, n, i, m;

	exhaustive = cron_offset(after) != cron_offset(after + CRON_DST_MAX);
	civ = after + cron_offset(after);
	if (exhaustive)
		civ -= CRON_DST_MAX;
	civ -= ((civ % 60) + 60) % 60;
	civ += 60;
	limit = civ + (time_t)CRON_YEARS * 366 * 86400;
	while (civ <= limit) {
		if (gmtime_r(&civ, &tm) == NULL)
			return -1;
		if (!(c->bits[3] >> (tm.tm_mon + 1) & 1)) {
			tm.tm_mon++;
			tm.tm_mday = 1;
			tm.tm_hour = tm.tm_min = 0;
		} else if (!cron_day(c, &tm)) {
			tm.tm_mday++;
			tm.tm_hour = tm.tm_min = 0;
		} else if (!(c->bits[1] >> tm.tm_hour & 1)) {
			tm.tm_hour++;
			tm.tm_min = 0;
		} else if (!(c->bits[0] >> tm.tm_min & 1)) {
			for (m = tm.tm_min + 1; m < 60 && !(c->bits[0] >> m &
			    1); m++)
				;
			if (m == 60) {
				tm.tm_hour++;
				tm.tm_min = 0;
			} else
				tm.tm_min = m;
		} else {
			n = cron_instants(c, &tm, t);
			for (i = 0; i < n; i++) {
				if (t[i] > after && (best == -1 ||
				    t[i] < best)) {
					best = t[i];
					best_civ = best + cron_offset(best);
				}
			}
			if (best != -1 && (!exhaustive ||
			    civ > best_civ + CRON_DST_MAX))
				return best;
			civ += 60;
			continue;
		}
		tm.tm_sec = 0;
		civ = timegm(&tm);
	}
	return best;
}
