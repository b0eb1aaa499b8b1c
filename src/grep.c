/*
 * grep.c: search the output store, a bounded step at a time.
 *
 * The pattern is POSIX basic (as grep), extended with GREP_EXTENDED, or a
 * plain string with GREP_FIXED; GREP_ICASE ignores case.  A pattern that
 * is a plain string (-F, or a regular expression without metacharacters)
 * is searched with memmem(), or with an ASCII case-folding Horspool search
 * for -i, over a block's lines at once; any other pattern runs regexec()
 * over them (REG_NEWLINE, REG_STARTEND: no copy).  A line is matched as a
 * user sees it (STORE_TEXT), but only lines holding a byte that makes the
 * text differ from the bytes (ESC, CR, BS, TAB) are converted, one at a
 * time with rawtext_line(): a block without them is searched as it is.
 * For a plain string, a line to convert must first hold a rare byte of
 * the string, which every text holding it must.
 *
 * Memory: the store reader's block, one converted line, one line read
 * back for a match's time.
 */
#include <sys/types.h>

#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grep.h"
#include "rawtext.h"
#include "rxbound.h"
#include "store.h"
#include "xmalloc.h"

/* The bytes that make a line's text differ from its raw bytes. */
static const unsigned char grep_dirty[] = { '\033', '\r', '\b', '\t' };
#define GREP_NDIRTY	(sizeof grep_dirty)

#define GREP_CHUNK	(64 * 1024)	/* bytes of lines a regexec() sees */

/*
 * Bytes of log text from common to rare, to pick the byte a line must hold
 * before it is converted; bytes not listed are rarer still.
 */
static const char grep_common[] =
    "etaoinsrlhdc.:-/umpf0g1w2y=b3v45k6789_,\"[]x()jqz"
    "ETAOINSRLHDCUMPFGWYBVKXJQZ";

struct grep {
	char			 *dir;
	char			 *pattern;
	int			  flags;

	/* The matcher: a plain string, or a regular expression. */
	int			  literal;
	char			 *lit;		/* lower case when fold */
	size_t			  litlen;
	int			  fold;		/* ASCII case folding */
	size_t			  shift[256];	/* Horspool shifts, fold */
	int			  pre[2];	/* a line must hold one; -1 */
	regex_t			  re;
	int			  has_re;
	char			 *chunk;	/* lines copied for regexec() */
	size_t			  chunksize;

	/* The runs, newest first, and where the search is. */
	char			**runs;
	int			  nruns;
	int			  cur;
	struct store_reader	 *reader;	/* cur's, NULL before it opens */
	struct store_reader	 *times;	/* cur's, for the lines' times */
	struct store_meta	  meta;		/* cur's, once it opens */
	int			  has_meta;
	int64_t			  next;		/* the line to scan from */
	int			  done;

	uint64_t		  bytes;
	int64_t			  matches;
	int			  damaged;	/* runs that could not be read */
	char			 *damage;	/* why the first could not */

	/* During a step. */
	const struct grep_cbs	 *cbs;
	void			 *arg;
	size_t			  stepped;	/* bytes this step */
	int			  stop;		/* the callback said stop */
};

/* A block being searched: where its line numbers have been counted to. */
struct grep_block {
	const char		 *buf;
	size_t			  len;
	size_t			  counted;	/* offset counted up to */
	int64_t			  line;		/* the line at counted */
};

/* Fold an ASCII letter to lower case; other bytes stay. */
static inline unsigned char
grep_lower(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c;
}

/* Fold an ASCII letter to upper case; other bytes stay. */
static inline unsigned char
grep_upper(unsigned char c)
{
	return (c >= 'a' && c <= 'z') ? c - ('a' - 'A') : c;
}

/*
 * Return whether pattern (a basic or, with extended, an extended regular
 * expression) is a plain string: no byte in it means anything else.
 */
static int
grep_plain(const char *pattern, int extended)
{
	return pattern[strcspn(pattern, extended ? "\\.[*^$+?{}()|" :
	    "\\.[*^$")] == '\0';
}

/* Return whether s holds a byte outside ASCII. */
static int
grep_has_high(const char *s)
{
	for (; *s != '\0'; s++) {
		if ((unsigned char)*s >= 0x80)
			return 1;
	}
	return 0;
}

/* Return s as a basic regular expression that matches s itself. */
static char *
grep_quote_basic(const char *s)
{
	char	*out, *o;

	o = out = xmalloc(2 * strlen(s) + 1);
	for (; *s != '\0'; s++) {
		if (strchr("\\.[*^$", *s) != NULL)
			*o++ = '\\';
		*o++ = *s;
	}
	*o = '\0';
	return out;
}

/* Return how common byte c is in log text: 0 most, larger rarer. */
static size_t
grep_rank(unsigned char c)
{
	const char	*p;

	if (c == '\0' || (p = strchr(grep_common, c)) == NULL)
		return sizeof grep_common;
	return (size_t)(p - grep_common);
}

/*
 * Set up the plain-string matcher: the (folded) string, the Horspool
 * shifts when folding, and the rarest byte a text holding it must hold
 * among its raw bytes (any character of a line's text but a space comes
 * from the same byte of the line; a space may come from a tab and a
 * non-ASCII byte from a malformed sequence, so neither is picked).
 */
static void
grep_set_literal(struct grep *g, const char *s, int fold)
{
	size_t		 i, m = strlen(s), r, rarest = 0;
	unsigned char	 c;

	g->literal = 1;
	g->fold = fold;
	g->lit = xstrdup(s);
	g->litlen = m;
	g->pre[0] = g->pre[1] = -1;
	for (i = 0; i < m; i++) {
		c = (unsigned char)s[i];
		if (fold)
			g->lit[i] = (char)(c = grep_lower(c));
		if (c <= ' ' || c >= 0x7f)
			continue;
		r = grep_rank(c);
		if (g->pre[0] == -1 || r > rarest) {
			rarest = r;
			g->pre[0] = c;
			g->pre[1] = fold && grep_upper(c) != c ?
			    grep_upper(c) : -1;
		}
	}
	if (!fold)
		return;
	for (i = 0; i < 256; i++)
		g->shift[i] = m;
	for (i = 0; i + 1 < m; i++) {
		c = (unsigned char)g->lit[i];
		g->shift[c] = g->shift[grep_upper(c)] = m - 1 - i;
	}
}

/* Compile the pattern; 0, or -1 with *cause. */
static int
grep_compile(struct grep *g, char **cause)
{
	char	*quoted = NULL, *why = NULL;
	int	 cflags = REG_NEWLINE, rc;
	int	 icase = (g->flags & GREP_ICASE) != 0;

	if (strchr(g->pattern, '\n') != NULL) {
		*cause = xprintf("bad pattern: a newline in it");
		return -1;
	}
	/* The locale's case folding needs the regex engine. */
	if (g->flags & GREP_FIXED) {
		if (!icase || !grep_has_high(g->pattern)) {
			grep_set_literal(g, g->pattern, icase);
			return 0;
		}
		quoted = grep_quote_basic(g->pattern);
	} else if (grep_plain(g->pattern, g->flags & GREP_EXTENDED) &&
	    (!icase || !grep_has_high(g->pattern))) {
		grep_set_literal(g, g->pattern, icase);
		return 0;
	} else if (g->flags & GREP_EXTENDED)
		cflags |= REG_EXTENDED;
	if (icase)
		cflags |= REG_ICASE;
	rc = rxbound_compile(&g->re, quoted != NULL ? quoted : g->pattern,
	    cflags, &why);
	free(quoted);
	if (rc != 0) {
		*cause = xprintf("bad pattern: %s", why);
		free(why);
		return -1;
	}
	g->has_re = 1;
	return 0;
}

/* Order run ids newest first (they sort by age). */
static int
grep_cmp_runs(const void *a, const void *b)
{
	return strcmp(*(char *const *)b, *(char *const *)a);
}

/*
 * Start a search of the runs of the store in dir (all of them when runs
 * is NULL), newest first; NULL with *cause for a bad pattern or a store
 * that cannot be listed.
 */
struct grep *
grep_new(const char *dir, const char *pattern, int flags,
    char *const *runs, int nruns, char **cause)
{
	struct grep	*g;
	char		**list;
	int		  i, n, count = 0;

	g = xcalloc(1, sizeof *g);
	g->dir = xstrdup(dir);
	g->pattern = xstrdup(pattern);
	g->flags = flags;
	g->pre[0] = g->pre[1] = -1;
	if (grep_compile(g, cause) != 0) {
		grep_free(g);
		return NULL;
	}
	if (runs == NULL) {
		if (store_list(dir, &list, &count, cause) != 0) {
			grep_free(g);
			return NULL;
		}
	} else {
		list = xreallocarray(NULL, nruns > 0 ? (size_t)nruns : 1,
		    sizeof *list);
		for (i = 0; i < nruns; i++)
			list[count++] = xstrdup(runs[i]);
	}
	if (count > 1)
		qsort(list, (size_t)count, sizeof *list, grep_cmp_runs);
	/* The same run twice is searched once. */
	for (i = n = 0; i < count; i++) {
		if (n > 0 && strcmp(list[n - 1], list[i]) == 0)
			free(list[i]);
		else
			list[n++] = list[i];
	}
	g->runs = list;
	g->nruns = n;
	g->done = n == 0;
	return g;
}

/* Leave the current run: close its readers, go on to the next. */
static void
grep_next_run(struct grep *g)
{
	if (g->reader != NULL)
		store_reader_close(g->reader);
	if (g->times != NULL)
		store_reader_close(g->times);
	g->reader = g->times = NULL;
	if (g->has_meta)
		store_meta_clear(&g->meta);
	g->has_meta = 0;
	g->next = 0;
	if (++g->cur >= g->nruns)
		g->done = 1;
}

/* Count the current run as a damaged one, for why (taken). */
static void
grep_damaged_run(struct grep *g, char *why)
{
	g->damaged++;
	if (g->damage == NULL)
		g->damage = why;
	else
		free(why);
}

/*
 * Open the current run: its meta and a reader, from its first kept line;
 * -1 when it is gone (no meta: removed, or still being made) or none of
 * it can be read (damaged: counted), and it is skipped.
 */
static int
grep_open_run(struct grep *g)
{
	const char	*run = g->runs[g->cur];
	char		*cause = NULL;

	memset(&g->meta, 0, sizeof g->meta);
	if (store_meta_read(g->dir, run, &g->meta, &cause) != 0) {
		free(cause);
		return -1;
	}
	g->has_meta = 1;
	g->reader = store_reader_open(g->dir, run, &cause);
	if (g->reader == NULL) {
		grep_damaged_run(g, cause);
		return -1;
	}
	g->next = store_reader_first(g->reader);
	return 0;
}

/*
 * Find the plain string in the len bytes at hay, folding ASCII case: a
 * Horspool search on folded bytes.  Returns its offset, or -1.
 */
static ssize_t
grep_find_fold(const struct grep *g, const char *hay, size_t len)
{
	const unsigned char	*h = (const unsigned char *)hay;
	const unsigned char	*p = (const unsigned char *)g->lit;
	size_t			 m = g->litlen, i = 0, j, last;

	if (m == 0)
		return 0;
	if (len < m)
		return -1;
	last = m - 1;
	while (i <= len - m) {
		if (grep_lower(h[i + last]) == p[last]) {
			for (j = 0; j < last; j++) {
				if (grep_lower(h[i + j]) != p[j])
					break;
			}
			if (j == last)
				return (ssize_t)i;
		}
		i += g->shift[h[i + last]];
	}
	return -1;
}

/*
 * Find the first match in buf's bytes [start, end) (whole lines); 1 with
 * its [*so, *eo) as offsets in buf, or 0.
 */
static int
grep_find(const struct grep *g, const char *buf, size_t start, size_t end,
    size_t *so, size_t *eo)
{
	regmatch_t	 pm[1];
	const char	*p;
	ssize_t		 at;

	if (g->literal && !g->fold) {
		p = memmem(buf + start, end - start, g->lit, g->litlen);
		if (p == NULL)
			return 0;
		*so = (size_t)(p - buf);
		*eo = *so + g->litlen;
		return 1;
	}
	if (g->literal) {
		if ((at = grep_find_fold(g, buf + start, end - start)) < 0)
			return 0;
		*so = start + (size_t)at;
		*eo = *so + g->litlen;
		return 1;
	}
	pm[0].rm_so = (regoff_t)start;
	pm[0].rm_eo = (regoff_t)end;
	if (regexec(&g->re, buf, 1, pm, REG_STARTEND) != 0)
		return 0;
	*so = (size_t)pm[0].rm_so;
	*eo = (size_t)pm[0].rm_eo;
	return 1;
}

/*
 * Match one line's text (len bytes, not NUL-terminated) as the search
 * does; 1 with the first match as [*so, *eo), or 0.  The pager uses it to
 * highlight what a search found.
 */
int
grep_line_match(const struct grep *g, const char *text, size_t len,
    size_t *so, size_t *eo)
{
	char	*copy;
	int	 found;

	if (g->literal)
		return grep_find(g, text, 0, len, so, eo);
	/* regexec() reads its string to a NUL (see grep_span()). */
	copy = xmalloc(len + 1);
	memcpy(copy, text, len);
	copy[len] = '\0';
	found = grep_find(g, copy, 0, len, so, eo);
	free(copy);
	return found;
}

/* Return the number of the line holding offset at (at never goes back). */
static int64_t
grep_block_line(struct grep_block *b, size_t at)
{
	const char	*p = b->buf + b->counted, *end = b->buf + at;
	int64_t		 n = 0;

	/* memchr() steps a line at a time, far faster than a byte loop. */
	while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		n++;
		p++;
	}
	b->counted = at;
	b->line += n;
	return b->line;
}

/* Return the wall time of the current run's line, 0 if it cannot be read. */
static int64_t
grep_line_time(struct grep *g, int64_t line)
{
	struct store_line	*lines = NULL;
	char			*cause = NULL;
	int64_t			 time = 0;
	int			 count = 0, tries;

	if (g->times == NULL) {
		g->times = store_reader_open(g->dir, g->runs[g->cur], &cause);
		if (g->times == NULL) {
			free(cause);
			return 0;
		}
	}
	/* The line may be newer than the reader's view of a live run. */
	for (tries = 0; tries < 2; tries++) {
		if (store_reader_get(g->times, line, line + 1, STORE_RAW,
		    &lines, &count) == 0 && count > 0) {
			time = lines[0].time;
			store_lines_free(lines, count);
			break;
		}
		if (lines != NULL)
			store_lines_free(lines, count);
		lines = NULL;
		if (store_reader_refresh(g->times) != 0)
			break;
	}
	return time;
}

/*
 * Hand the callback a matching line: the one that starts at offset ls of
 * the block, whose text is given; 1 when the callback said stop.
 */
static int
grep_report(struct grep *g, struct grep_block *b, size_t ls,
    const char *text, size_t len, size_t so, size_t eo)
{
	struct grep_match	m;

	m.line = grep_block_line(b, ls);
	m.run = g->runs[g->cur];
	m.meta = &g->meta;
	m.time = grep_line_time(g, m.line);
	m.text = text;
	m.len = len;
	m.so = so;
	m.eo = eo;
	g->matches++;
	if (g->cbs != NULL && g->cbs->match != NULL &&
	    g->cbs->match(&m, g->arg) != 0) {
		g->stop = 1;
		g->next = m.line + 1;
		return 1;
	}
	return 0;
}

/* Return the offset of the start of the line holding at (not before from). */
static size_t
grep_line_start(const char *buf, size_t from, size_t at)
{
	const char	*p = memrchr(buf + from, '\n', at - from);

	return p == NULL ? from : (size_t)(p - buf) + 1;
}

/* Return the offset of the end of the line holding at (at most end). */
static size_t
grep_line_end(const char *buf, size_t at, size_t end)
{
	const char	*p = memchr(buf + at, '\n', end - at);

	return p == NULL ? end : (size_t)(p - buf);
}

/*
 * Search whole lines: [start, end) of buf (the last line ending at end,
 * its '\n' not included), where offset 0 of buf is offset delta of the
 * block.  1 when the callback said stop.
 */
static int
grep_lines(struct grep *g, struct grep_block *b, const char *buf,
    size_t delta, size_t start, size_t end)
{
	size_t	off = start, so, eo, ls, le;

	for (;;) {
		if (!grep_find(g, buf, off, end, &so, &eo))
			return 0;
		ls = grep_line_start(buf, off, so);
		le = grep_line_end(buf, so, end);
		/* A regex may match across lines: try its first one alone. */
		if (eo > le && !grep_find(g, buf, ls, le, &so, &eo))
			goto next;
		if (grep_report(g, b, delta + ls, buf + ls, le - ls, so - ls,
		    eo - ls))
			return 1;
next:
		if (le >= end)
			return 0;
		off = le + 1;
	}
}

/*
 * Search the lines of a block that need no conversion, [start, end) as
 * grep_lines() takes them.  A plain string is searched in the block; a
 * regex in copies of up to GREP_CHUNK bytes of whole lines (or one longer
 * line), each NUL-terminated as regexec() wants its string even with
 * REG_STARTEND (the sanitizers read it to its NUL).  1 when the callback
 * said stop.
 */
static int
grep_span(struct grep *g, struct grep_block *b, size_t start, size_t end)
{
	const char	*nl;
	size_t		 off = start, lim, stop;

	if (g->literal)
		return grep_lines(g, b, b->buf, 0, start, end);
	for (;;) {
		lim = end - off > GREP_CHUNK ? off + GREP_CHUNK : end;
		if (lim == end)
			stop = end;
		else if ((nl = memrchr(b->buf + off, '\n', lim - off)) != NULL)
			stop = (size_t)(nl - b->buf);
		else
			stop = grep_line_end(b->buf, lim, end);
		if (stop - off + 1 > g->chunksize) {
			g->chunksize = stop - off + 1;
			if (g->chunksize < GREP_CHUNK + 1)
				g->chunksize = GREP_CHUNK + 1;
			free(g->chunk);
			g->chunk = xmalloc(g->chunksize);
		}
		memcpy(g->chunk, b->buf + off, stop - off);
		g->chunk[stop - off] = '\0';
		if (grep_lines(g, b, g->chunk, off, 0, stop - off))
			return 1;
		if (stop >= end)
			return 0;
		off = stop + 1;
	}
}

/*
 * Search one line that needs converting, [ls, le) of the block: skipped
 * unless it holds the plain string's rare byte, else converted to its
 * text and matched.  1 when the callback said stop.
 */
static int
grep_dirty_line(struct grep *g, struct grep_block *b, size_t ls, size_t le)
{
	const char	*line = b->buf + ls;
	char		*text;
	size_t		 len = le - ls, tlen, so, eo;
	int		 stop = 0;

	if (g->pre[0] != -1 && memchr(line, g->pre[0], len) == NULL &&
	    (g->pre[1] == -1 || memchr(line, g->pre[1], len) == NULL))
		return 0;
	text = rawtext_line(line, len, 0, &tlen);
	if (grep_find(g, text, 0, tlen, &so, &eo))
		stop = grep_report(g, b, ls, text, tlen, so, eo);
	free(text);
	return stop;
}

/*
 * Return the offset of the first byte at or after pos that makes a line
 * need converting, or len; next[] caches where each such byte is next.
 */
static size_t
grep_next_dirty(const char *buf, size_t len, size_t pos, size_t *next)
{
	const char	*p;
	size_t		 k, min = len;

	for (k = 0; k < GREP_NDIRTY; k++) {
		if (next[k] < pos) {
			p = memchr(buf + pos, grep_dirty[k], len - pos);
			next[k] = p == NULL ? len : (size_t)(p - buf);
		}
		if (next[k] < min)
			min = next[k];
	}
	return min;
}

/*
 * store_reader_scan()'s callback: search a block of whole lines, the
 * clean spans between lines that need converting at once, those lines
 * one by one.  Non-zero when the match callback said stop.
 */
static int
grep_block(int64_t first, const char *buf, size_t len, void *arg)
{
	struct grep		*g = arg;
	struct grep_block	 b = { buf, len, 0, first };
	const char		*p;
	size_t			 next[GREP_NDIRTY], pos = 0, ds, ls, le, k;

	g->bytes += len;
	g->stepped += len;
	for (k = 0; k < GREP_NDIRTY; k++) {
		p = memchr(buf, grep_dirty[k], len);
		next[k] = p == NULL ? len : (size_t)(p - buf);
	}
	while (pos < len) {
		ds = grep_next_dirty(buf, len, pos, next);
		if (ds == len) {
			le = buf[len - 1] == '\n' ? len - 1 : len;
			return grep_span(g, &b, pos, le);
		}
		ls = grep_line_start(buf, pos, ds);
		if (ls > pos && grep_span(g, &b, pos, ls - 1))
			return 1;
		le = grep_line_end(buf, ds, len);
		if (grep_dirty_line(g, &b, ls, le))
			return 1;
		pos = le + 1;
	}
	return 0;
}

/* The current run is searched: counted if damage cut it, the next one. */
static void
grep_end_run(struct grep *g)
{
	const char	*why;

	if ((why = store_reader_damage(g->reader)) != NULL)
		grep_damaged_run(g, xstrdup(why));
	grep_next_run(g);
}

/*
 * Search on for about budget bytes (a block at least), handing each
 * matching line to cbs->match (cbs may be NULL: matches are only
 * counted); the search stops early when match returns non-zero and the
 * next step goes on from the line after.  A run that is gone is skipped;
 * a damaged one is searched up to its damage and counted
 * (grep_damaged()).  Every pass scans on, or leaves a run, or meets
 * damage that cuts its run shorter, so a step ends.  Returns 1 while
 * there is more to search, 0 once the search is done.
 */
int
grep_step(struct grep *g, size_t budget, const struct grep_cbs *cbs,
    void *arg)
{
	static const struct store_scan_cbs scan_cbs = { .block = grep_block };
	uint64_t	bytes;
	int64_t		next;

	if (budget == 0)
		budget = 1;
	g->cbs = cbs;
	g->arg = arg;
	g->stepped = 0;
	g->stop = 0;
	while (!g->done && !g->stop && g->stepped < budget) {
		if (g->reader == NULL && grep_open_run(g) != 0) {
			grep_next_run(g);
			continue;
		}
		bytes = store_reader_bytes(g->reader);
		next = store_reader_scan(g->reader, g->next,
		    budget - g->stepped, &scan_cbs, g);
		if (g->stop)
			break;		/* g->next is the line after the match */
		if (next >= store_reader_count(g->reader))
			grep_end_run(g);	/* done */
		else if (next > g->next || store_reader_bytes(g->reader) <
		    bytes)
			g->next = next;	/* on, or on from a cut */
		else {
			/* Neither: its bytes cannot be read there. */
			grep_damaged_run(g, xprintf("runs/%s is damaged: its "
			    "output cannot be read from line %lld",
			    g->runs[g->cur], (long long)g->next + 1));
			grep_next_run(g);
		}
	}
	g->cbs = NULL;
	g->arg = NULL;
	return !g->done;
}

/* Return whether the search has been through every run. */
int
grep_done(const struct grep *g)
{
	return g->done;
}

/* Return the bytes searched so far. */
uint64_t
grep_bytes(const struct grep *g)
{
	return g->bytes;
}

/* Return the matching lines found so far. */
int64_t
grep_matches(const struct grep *g)
{
	return g->matches;
}

/*
 * Return how many damaged runs the search met (searched up to their
 * damage, or passed over when none of them could be read), and in *why,
 * if not NULL, what the first one's damage is (NULL when none).
 */
int
grep_damaged(const struct grep *g, const char **why)
{
	if (why != NULL)
		*why = g->damage;
	return g->damaged;
}

/* Return the pattern as given. */
const char *
grep_pattern(const struct grep *g)
{
	return g->pattern;
}

/* Free a search and everything it holds. */
void
grep_free(struct grep *g)
{
	int	i;

	if (g == NULL)
		return;
	if (g->reader != NULL)
		store_reader_close(g->reader);
	if (g->times != NULL)
		store_reader_close(g->times);
	if (g->has_meta)
		store_meta_clear(&g->meta);
	if (g->has_re)
		regfree(&g->re);
	for (i = 0; i < g->nruns; i++)
		free(g->runs[i]);
	free(g->runs);
	free(g->chunk);
	free(g->damage);
	free(g->lit);
	free(g->pattern);
	free(g->dir);
	free(g);
}
