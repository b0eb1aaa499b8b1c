/*
 * logmerge.c: several runs of the store as one log in time order (see
 * logmerge.h): a line found by its number through binary searches of
 * time, then a k-way merge over a window of each run.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "logmerge.h"
#include "store.h"
#include "xmalloc.h"

#define LOGMERGE_WINDOW	256		/* lines of a run read at once */
#define LOGMERGE_TMIN	(INT64_MIN / 4)	/* times searched: far below, */
#define LOGMERGE_TMAX	(INT64_MAX / 4)	/*   and above, any wall time */

/*
 * One run of the merge: its reader, its lines [first, end) (end: its
 * limit), the next line to give and a window of lines read ahead
 * (win[at..nwin), the first of them line next).
 */
struct logmerge_stream {
	char			*run;
	int			 label;
	struct store_reader	*r;
	int64_t			 first;
	int64_t			 end;
	int64_t			 next;
	int64_t			 last;		/* time of the last given */
	struct store_line	*win;
	int			 nwin;
	int			 at;
};

struct logmerge {
	char			*dir;
	struct logmerge_stream	*s;
	int			 n;
	int			 how;		/* LOGMERGE_ALL, _COMPLETE */
	int64_t			 at;		/* the cursors' number, or -1 */
	int			 flags;		/* the windows were read so */
};

/* Make an empty merge of runs of the store in dir. */
struct logmerge *
logmerge_new(const char *dir)
{
	struct logmerge	*m;

	m = xcalloc(1, sizeof *m);
	m->dir = xstrdup(dir);
	m->at = -1;
	return m;
}

/* Drop the lines a stream has read ahead. */
static void
logmerge_drop_window(struct logmerge_stream *st)
{
	int	i;

	for (i = st->at; i < st->nwin; i++)
		free(st->win[i].text);
	free(st->win);
	st->win = NULL;
	st->nwin = st->at = 0;
}

/* Free a merge and its readers. */
void
logmerge_free(struct logmerge *m)
{
	int	i;

	if (m == NULL)
		return;
	for (i = 0; i < m->n; i++) {
		logmerge_drop_window(&m->s[i]);
		store_reader_close(m->s[i].r);
		free(m->s[i].run);
	}
	free(m->s);
	free(m->dir);
	free(m);
}

/* Set a stream's limit from its reader, as the merge's limits say. */
static void
logmerge_stream_limit(struct logmerge *m, struct logmerge_stream *st)
{
	st->first = store_reader_first(st->r);
	st->end = store_reader_count(st->r);
	if (m->how == LOGMERGE_COMPLETE && store_reader_partial(st->r))
		st->end--;
	if (st->end < st->first)
		st->end = st->first;
	if (st->next < st->first)
		st->next = st->first;
}

/*
 * Add run as a stream after those added, with label, its cursor at its
 * first line (a run added to a log being followed is new lines).  0, or
 * -1 with *cause when it cannot be read.
 */
int
logmerge_add(struct logmerge *m, const char *run, int label, char **cause)
{
	struct store_reader	*r;
	struct logmerge_stream	*st;

	if ((r = store_reader_open(m->dir, run, cause)) == NULL)
		return -1;
	m->s = xreallocarray(m->s, (size_t)m->n + 1, sizeof *m->s);
	st = &m->s[m->n++];
	memset(st, 0, sizeof *st);
	st->run = xstrdup(run);
	st->label = label;
	st->r = r;
	st->last = INT64_MIN;
	logmerge_stream_limit(m, st);
	st->next = st->first;
	m->at = -1;		/* the numbers are not the cursors' now */
	return 0;
}

/* Return how many streams the merge has. */
int
logmerge_streams(const struct logmerge *m)
{
	return m->n;
}

/* Return a stream's label. */
int
logmerge_label(const struct logmerge *m, int stream)
{
	return m->s[stream].label;
}

/* Return a stream's run. */
const char *
logmerge_run(const struct logmerge *m, int stream)
{
	return m->s[stream].run;
}

/* Return why a stream's run is damaged in the store, or NULL. */
const char *
logmerge_damage(struct logmerge *m, int stream)
{
	return store_reader_damage(m->s[stream].r);
}

/*
 * Set where the streams stop: LOGMERGE_ALL (their lines now) or
 * LOGMERGE_COMPLETE (without a partial last line).
 */
void
logmerge_limit(struct logmerge *m, int how)
{
	int	i;

	m->how = how;
	for (i = 0; i < m->n; i++)
		logmerge_stream_limit(m, &m->s[i]);
}

/*
 * Read the runs' ends again and set the limits from them; returns
 * whether a stream changed.
 */
int
logmerge_refresh(struct logmerge *m)
{
	struct logmerge_stream	*st;
	int64_t			 first, end;
	int			 i, changed = 0;

	for (i = 0; i < m->n; i++) {
		st = &m->s[i];
		first = st->first;
		end = st->end;
		(void)store_reader_refresh(st->r);
		logmerge_stream_limit(m, st);
		if (st->first != first)
			m->at = -1;	/* numbers moved: seek again */
		changed |= st->first != first || st->end != end;
	}
	return changed;
}

/* Return the number of the merged log's first line. */
int64_t
logmerge_first(const struct logmerge *m)
{
	int64_t	n = 0;
	int	i;

	for (i = 0; i < m->n; i++)
		n += m->s[i].first;
	return n;
}

/* Return the number after the merged log's last line. */
int64_t
logmerge_count(const struct logmerge *m)
{
	int64_t	n = 0;
	int	i;

	for (i = 0; i < m->n; i++)
		n += m->s[i].end;
	return n;
}

/* Return how many of a stream's lines were written before time t. */
static int64_t
logmerge_before(struct logmerge_stream *st, int64_t t)
{
	int64_t	no = store_reader_find_time(st->r, t);

	if (no < 0)
		no = store_reader_count(st->r);	/* damage: cut there */
	if (no < st->first)
		no = st->first;
	return no > st->end ? st->end : no;
}

/* Return how many lines of all streams were written before time t. */
static int64_t
logmerge_all_before(struct logmerge *m, int64_t t)
{
	int64_t	n = 0;
	int	i;

	for (i = 0; i < m->n; i++)
		n += logmerge_before(&m->s[i], t);
	return n;
}

/*
 * Put each stream's cursor at merged line no: the latest time t with at
 * most no lines before it is found by a binary search; the lines at t
 * are then counted off stream by stream, in their order.
 */
void
logmerge_seek(struct logmerge *m, int64_t no)
{
	struct logmerge_stream	*st;
	int64_t			 lo = LOGMERGE_TMIN, hi = LOGMERGE_TMAX, mid;
	int64_t			 rem, a, b, tlo = 0, thi = 0;
	int			 i, k, found = -1;

	for (i = 0; i < m->n; i++) {
		logmerge_drop_window(&m->s[i]);
		m->s[i].last = INT64_MIN;
	}
	if (no <= logmerge_first(m) || no >= logmerge_count(m)) {
		for (i = 0; i < m->n; i++)
			m->s[i].next = no <= logmerge_first(m) ?
			    m->s[i].first : m->s[i].end;
		m->at = no <= logmerge_first(m) ? logmerge_first(m) :
		    logmerge_count(m);
		return;
	}
	/* Between the runs' first and last writes, so far as they say. */
	for (i = 0, k = 0; i < m->n; i++) {
		if (store_reader_times(m->s[i].r, &a, &b) != 0)
			continue;
		if (k++ == 0 || a - 1 < tlo)
			tlo = a - 1;
		if (k == 1 || b + 1 > thi)
			thi = b + 1;
	}
	if (k > 0 && tlo > lo && logmerge_all_before(m, tlo) <= no)
		lo = tlo;
	if (k > 0 && thi < hi && logmerge_all_before(m, thi) > no)
		hi = thi;
	/* all_before(lo) <= no < all_before(hi) */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (logmerge_all_before(m, mid) <= no)
			lo = mid;
		else
			hi = mid;
	}
	rem = no - logmerge_all_before(m, lo);
	for (i = 0; i < m->n; i++) {
		st = &m->s[i];
		a = logmerge_before(st, lo);
		b = logmerge_before(st, lo + 1);
		if (found >= 0)
			st->next = a;
		else if (rem < b - a) {
			st->next = a + rem;
			found = i;
		} else {
			st->next = b;
			rem -= b - a;
		}
	}
	m->at = no;
}

/*
 * Return a stream's next line (read ahead a window of up to want lines
 * when none is left), or NULL at its limit or when it cannot be read
 * (damage: it ends there).
 */
static struct store_line *
logmerge_head(struct logmerge_stream *st, int flags, int want)
{
	int64_t	to;

	if (st->at < st->nwin)
		return &st->win[st->at];
	logmerge_drop_window(st);
	if (st->next >= st->end)
		return NULL;
	if (want > LOGMERGE_WINDOW)
		want = LOGMERGE_WINDOW;
	to = st->end - st->next > want ? st->next + want : st->end;
	if (store_reader_get(st->r, st->next, to, flags, &st->win,
	    &st->nwin) != 0 || st->nwin == 0) {
		st->win = NULL;
		st->nwin = 0;
		st->end = st->next;	/* cut by damage, or dropped */
		return NULL;
	}
	st->next = st->win[0].no;
	return &st->win[0];
}

/* Return a line's time for the merge: never before its stream's last. */
static int64_t
logmerge_time(const struct logmerge_stream *st, const struct store_line *l)
{
	return l->time > st->last ? l->time : st->last;
}

/*
 * Give up to max lines from the cursors on, in merged order, each
 * stream up to its limit: *lines (flags as store_reader_get()'s), the
 * stream of each in *streams (may be NULL), *n of them.  0, or -1 when
 * nothing could be read.
 */
int
logmerge_next(struct logmerge *m, int max, int flags,
    struct store_line **lines, int **streams, int *n)
{
	struct logmerge_stream	*st;
	struct store_line	*out = NULL, *l, *best;
	int			*which = NULL;
	int64_t			 t, bt = 0;
	int			 i, k, got = 0;

	*lines = NULL;
	if (streams != NULL)
		*streams = NULL;
	*n = 0;
	if (max <= 0)
		return 0;
	if (flags != m->flags) {
		for (i = 0; i < m->n; i++)
			logmerge_drop_window(&m->s[i]);
		m->flags = flags;
	}
	out = xcalloc((size_t)max, sizeof *out);
	which = xcalloc((size_t)max, sizeof *which);
	while (got < max) {
		best = NULL;
		k = -1;
		for (i = 0; i < m->n; i++) {
			if ((l = logmerge_head(&m->s[i], flags,
			    max - got)) == NULL)
				continue;
			t = logmerge_time(&m->s[i], l);
			if (best == NULL || t < bt) {
				best = l;
				bt = t;
				k = i;
			}
		}
		if (best == NULL)
			break;
		st = &m->s[k];
		out[got] = *best;
		which[got++] = k;
		st->last = bt;
		st->next = best->no + 1;
		st->at++;
	}
	if (m->at >= 0)
		m->at += got;
	if (got == 0) {
		free(out);
		free(which);
		return 0;
	}
	*lines = out;
	*n = got;
	if (streams != NULL)
		*streams = which;
	else
		free(which);
	return 0;
}

/* Return whether a stream has lines left before its limit. */
int
logmerge_left(const struct logmerge *m)
{
	const struct logmerge_stream	*st;
	int				 i;

	for (i = 0; i < m->n; i++) {
		st = &m->s[i];
		if (st->at < st->nwin || st->next < st->end)
			return 1;
	}
	return 0;
}

/*
 * Give merged lines [from, to) (clipped to the log), numbered so, as
 * logmerge_next() gives them; the cursors stay after them, so a read
 * that goes on where the last ended seeks nothing.  0, or -1.
 */
int
logmerge_get(struct logmerge *m, int64_t from, int64_t to, int flags,
    struct store_line **lines, int **streams, int *n)
{
	int64_t	first = logmerge_first(m), count = logmerge_count(m);
	int	i, rc;

	*lines = NULL;
	if (streams != NULL)
		*streams = NULL;
	*n = 0;
	if (from < first)
		from = first;
	if (to > count)
		to = count;
	if (from >= to)
		return 0;
	if (to - from > INT32_MAX / 64)
		to = from + INT32_MAX / 64;
	if (m->at != from)
		logmerge_seek(m, from);
	rc = logmerge_next(m, (int)(to - from), flags, lines, streams, n);
	for (i = 0; i < *n; i++)
		(*lines)[i].no = from + i;
	return rc;
}
