/*
 * rxbound.c: the cost of a POSIX regular expression once its repetitions
 * are expanded, as glibc's regcomp() expands them, and its compilation
 * when that cost, its depth and its back-references are within bounds
 * (rxbound.h says why).
 *
 * The pattern is read once, left to right, with a stack of open groups;
 * each group keeps the cost of what it holds so far and of its last
 * element, which a repetition that follows multiplies.  Costs saturate at
 * RXBOUND_COST_MAX + 1.
 */
#include <string.h>

#include "rxbound.h"
#include "xmalloc.h"

#define RXBOUND_OVER	((size_t)RXBOUND_COST_MAX + 1)
#define RXBOUND_COUNT	100000	/* a repetition count read saturates here */

/* One open group: what it holds so far, and its last element's cost. */
struct rxbound_frame {
	size_t	total;
	size_t	last;	/* 0: no element a repetition could follow */
};

/* Return v, or RXBOUND_OVER when it is over the bound. */
static size_t
rxbound_sat(size_t v)
{
	return v > RXBOUND_OVER ? RXBOUND_OVER : v;
}

/* Add an element of cost k to a group. */
static void
rxbound_atom(struct rxbound_frame *f, size_t k)
{
	f->total = rxbound_sat(f->total + k);
	f->last = k;
}

/* Repeat a group's last element as copies copies of it (and one node). */
static void
rxbound_repeat(struct rxbound_frame *f, size_t copies)
{
	size_t	grown;

	if (f->last == 0) {		/* nothing to repeat: a plain byte */
		rxbound_atom(f, 1);
		return;
	}
	grown = rxbound_sat(f->last * copies + 1);
	f->total = rxbound_sat(f->total - f->last + grown);
	f->last = grown;
}

/*
 * Read a bracket expression from p (just after its '['); return what
 * follows its ']', or NULL when it does not end.
 */
static const char *
rxbound_bracket(const char *p)
{
	const char	*q;
	char		 c;

	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	while (*p != '\0' && *p != ']') {
		if (p[0] == '[' && (p[1] == ':' || p[1] == '.' ||
		    p[1] == '=')) {
			c = p[1];
			for (q = p + 2; *q != '\0'; q++)
				if (q[0] == c && q[1] == ']')
					break;
			if (*q == '\0')
				return NULL;
			p = q + 2;
			continue;
		}
		p++;
	}
	return *p == ']' ? p + 1 : NULL;
}

/* Read a count of an interval at *pp; 1 and *n when there is one. */
static int
rxbound_number(const char **pp, size_t *n)
{
	const char	*p = *pp;

	if (*p < '0' || *p > '9')
		return 0;
	*n = 0;
	for (; *p >= '0' && *p <= '9'; p++)
		if ((*n = *n * 10 + (size_t)(*p - '0')) > RXBOUND_COUNT)
			*n = RXBOUND_COUNT;
	*pp = p;
	return 1;
}

/*
 * Read an interval from p (just after its '{' or "\{"): {m}, {m,},
 * {m,n} or {,n}; return what follows its end with *copies, the copies of
 * the element it makes, or NULL when it is not one (regcomp() decides).
 */
static const char *
rxbound_interval(const char *p, int ext, size_t *copies)
{
	size_t	m = 0, n = 0;
	int	has_m, has_n = 0, comma = 0;

	has_m = rxbound_number(&p, &m);
	if (*p == ',') {
		comma = 1;
		p++;
		has_n = rxbound_number(&p, &n);
	}
	if (!has_m && !has_n)
		return NULL;
	if (ext ? *p != '}' : (p[0] != '\\' || p[1] != '}'))
		return NULL;
	if (!comma)
		*copies = m;
	else if (!has_n)
		*copies = m + 1;	/* m copies and a starred one */
	else
		*copies = n > m ? n : m;
	return p + (ext ? 1 : 2);
}

/* Return the bytes of the character at p (a UTF-8 sequence counts whole). */
static size_t
rxbound_char_len(const char *p)
{
	size_t	n = 1;

	if ((unsigned char)p[0] >= 0xc0)
		while (n < 4 && ((unsigned char)p[n] & 0xc0) == 0x80)
			n++;
	return n;
}

/* Return a pattern's expanded cost, or -1 with *cause (rxbound.h). */
long
rxbound_cost(const char *pattern, int cflags, char **cause)
{
	struct rxbound_frame	 f[RXBOUND_DEPTH_MAX + 1];
	const char		*p = pattern, *q;
	size_t			 copies, sum, k;
	int			 ext = (cflags & REG_EXTENDED) != 0, d = 0, i;
	char			 c;

	memset(&f[0], 0, sizeof f[0]);
	while (*p != '\0' && f[d].total < RXBOUND_OVER) {
		c = *p;
		if (c == '\\' && p[1] != '\0') {
			c = p[1];
			p += 2;
			if (c >= '1' && c <= '9') {
				*cause = xprintf("back-references such as "
				    "\\%c are not supported (they can make a "
				    "search take exponential time)", c);
				return -1;
			}
			if (ext || strchr("()|{+?", c) == NULL) {
				rxbound_atom(&f[d], 1);
				continue;
			}
			/* Basic syntax: the escaped operators. */
		} else if (c == '[') {
			q = rxbound_bracket(p + 1);
			p = q != NULL ? q : p + 1;
			rxbound_atom(&f[d], 1);
			continue;
		} else if (!ext && c != '*') {
			k = rxbound_char_len(p);
			p += k;
			rxbound_atom(&f[d], k);
			continue;
		} else if (ext && strchr("()|{+?*", c) == NULL) {
			k = rxbound_char_len(p);
			p += k;
			rxbound_atom(&f[d], k);
			continue;
		} else
			p++;

		/* An operator, c, and p just after it. */
		switch (c) {
		case '(':
			if (d == RXBOUND_DEPTH_MAX) {
				*cause = xprintf("groups nested more than %d "
				    "deep", RXBOUND_DEPTH_MAX);
				return -1;
			}
			d++;
			memset(&f[d], 0, sizeof f[d]);
			break;
		case ')':
			if (d == 0) {		/* unmatched: a plain byte */
				rxbound_atom(&f[d], 1);
				break;
			}
			k = rxbound_sat(f[d].total + 2);
			d--;
			rxbound_atom(&f[d], k);
			break;
		case '|':
			f[d].total = rxbound_sat(f[d].total + 1);
			f[d].last = 0;
			break;
		case '{':
			if ((q = rxbound_interval(p, ext, &copies)) == NULL) {
				rxbound_atom(&f[d], 1);
				break;
			}
			p = q;
			rxbound_repeat(&f[d], copies);
			break;
		case '+':
			rxbound_repeat(&f[d], 2);
			break;
		default:			/* '*' and '?' */
			rxbound_repeat(&f[d], 1);
			break;
		}
	}
	for (sum = 0, i = 0; i <= d; i++)
		sum = rxbound_sat(sum + f[i].total);
	return (long)sum;
}

/* Compile a pattern that is within the bounds (rxbound.h). */
int
rxbound_compile(regex_t *re, const char *pattern, int cflags, char **cause)
{
	char	msg[256];
	long	cost;
	int	error;

	if ((cost = rxbound_cost(pattern, cflags, cause)) < 0)
		return -1;
	if (cost > RXBOUND_COST_MAX) {
		*cause = xprintf("too large once its repetitions are expanded "
		    "(over %d elements: {n} makes n copies of what it "
		    "repeats, + two)", RXBOUND_COST_MAX);
		return -1;
	}
	if ((error = regcomp(re, pattern, cflags)) != 0) {
		regerror(error, re, msg, sizeof msg);
		*cause = xstrdup(msg);
		return -1;
	}
	return 0;
}
