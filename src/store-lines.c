/*
 * store-lines.c: lines out of a run through its reader (store.h): a line
 * by number found from the nearest record, lines read one after another,
 * the lines since a mark, the tail, the line at a time, and a scan of the
 * bytes in blocks for grep, each bounded by what it is asked for.
 */

#include <stdlib.h>
#include <string.h>

#include "rawtext.h"
#include "store-private.h"
#include "xmalloc.h"

/* Return whether record rec is at or before the start of line no. */
static int
store_rec_before(const struct store_rec *rec, int64_t no)
{
	return (int64_t)rec->line < no || ((int64_t)rec->line == no &&
	    rec->starts);
}

/*
 * Check record i of segment s, found by a search of line numbers, against
 * the record before it: its line must be that one's and the lines that
 * one's bytes end, and it starts a line if that one ended one.  A record
 * that does not (a line number forged or flipped) cuts the run there.
 * 0, or -1 (cut, or the bytes cannot be read).
 */
static int
store_reader_anchor(struct store_reader *r, int s, int64_t i,
    const struct store_rec *rec)
{
	struct store_rec	 p;
	int64_t			 no = r->segs[s].no;
	size_t			 nl;

	if (i == 0 && s == 0)
		return 0;	/* checked as the run's first (or a cap's) */
	if (i > 0) {
		if (store_reader_rec(r, s, i - 1, &p) != 0)
			return -1;
	} else
		p = r->segs[s - 1].last;
	if (r->win == NULL)
		r->win = xmalloc(STORE_CHUNK_MAX);
	r->win_len = 0;
	if (store_reader_read(r, p.off, r->win, p.len) != 0)
		return -1;
	r->win_off = p.off;
	r->win_len = p.len;
	nl = store_count_nl(r->win, p.len);
	if (rec->line - p.line == nl && rec->starts == (r->win[p.len - 1] ==
	    '\n'))
		return 0;
	if (s < r->nsegs && i < r->segs[s].nrec) {
		store_reader_trim(r, s, i, xprintf("idx.%lld record %lld says "
		    "line %llu, the output before it ends line %llu",
		    (long long)no, (long long)i,
		    (unsigned long long)rec->line + 1,
		    (unsigned long long)(p.line + nl)));
		store_reader_ends(r);
	}
	return -1;
}

/* Cut the run at the record after record i of segment s, for why (taken). */
static void
store_reader_trim_after(struct store_reader *r, int s, int64_t i, char *why)
{
	if (i + 1 < r->segs[s].nrec || s + 1 >= r->nsegs)
		store_reader_trim(r, s, i + 1, why);
	else
		store_reader_trim(r, s + 1, 0, why);
	store_reader_ends(r);
}

/* Whether rec is at or before line *key (an int64_t): its start in it. */
static int
store_rec_line_at_most(const struct store_rec *rec, const void *key)
{
	return store_rec_before(rec, *(const int64_t *)key);
}

/* Whether rec starts at or before byte *key (a uint64_t). */
static int
store_rec_off_at_most(const struct store_rec *rec, const void *key)
{
	return rec->off <= *(const uint64_t *)key;
}

/*
 * Find in segment s the last record for which at_most() holds, by a
 * binary search (the first record is taken to hold it): its index in
 * *lo; -1 when a record cannot be read.
 */
static int
store_reader_search(struct store_reader *r, int s,
    int (*at_most)(const struct store_rec *, const void *), const void *key,
    int64_t *lo)
{
	struct store_rec	mid;
	int64_t			hi, m;

	*lo = 0;
	hi = r->segs[s].nrec;
	while (hi - *lo > 1) {
		m = *lo + (hi - *lo) / 2;
		if (store_reader_rec(r, s, m, &mid) != 0)
			return -1;
		if (at_most(&mid, key))
			*lo = m;
		else
			hi = m;
	}
	return 0;
}

/*
 * Find where line no starts: *off, and the record it starts in (*s, *i),
 * by a binary search of the records' line numbers, the record found
 * checked against the one before it (store_reader_anchor()).  -1 when it
 * is not kept, or damage was found on the way (the run is cut there).
 */
static int
store_reader_line(struct store_reader *r, int64_t no, uint64_t *off,
    int *s, int64_t *i)
{
	struct store_rec	 rec;
	int64_t			 lo, want;
	char			*p, *end;

	if (no < r->first || no >= r->count)
		return -1;
	for (*s = r->nsegs - 1; *s >= 0; (*s)--) {
		if (r->segs[*s].nrec > 0 &&
		    store_rec_before(&r->segs[*s].first, no))
			break;
	}
	if (*s < 0)
		return -1;
	if (store_reader_search(r, *s, store_rec_line_at_most, &no,
	    &lo) != 0)
		return -1;
	if (store_reader_rec(r, *s, lo, &rec) != 0 ||
	    store_reader_anchor(r, *s, lo, &rec) != 0)
		return -1;
	*i = lo;
	if ((int64_t)rec.line == no && rec.starts) {
		*off = rec.off;
		return 0;
	}
	if (r->win == NULL)
		r->win = xmalloc(STORE_CHUNK_MAX);
	r->win_len = 0;
	if (store_reader_read(r, rec.off, r->win, rec.len) != 0)
		return -1;
	r->win_off = rec.off;
	r->win_len = rec.len;
	p = r->win;
	end = r->win + rec.len;
	for (want = no - (int64_t)rec.line; want > 0; want--) {
		if ((p = memchr(p, '\n', (size_t)(end - p))) == NULL) {
			/* The next record says a line it does not hold. */
			store_reader_trim_after(r, *s, lo, xprintf("the line "
			    "numbers of idx.%lld are wrong after record %lld",
			    (long long)r->segs[*s].no, (long long)lo));
			return -1;
		}
		p++;
	}
	*off = rec.off + (uint64_t)(p - r->win);
	return 0;
}

/* Step (*s, *i) to the next record; -1 at the last. */
static int
store_reader_next(struct store_reader *r, int *s, int64_t *i)
{
	if (*i + 1 < r->segs[*s].nrec) {
		(*i)++;
		return 0;
	}
	while (*s + 1 < r->nsegs) {
		(*s)++;
		*i = 0;
		if (r->segs[*s].nrec > 0)
			return 0;
	}
	return -1;
}

/*
 * Find the record holding byte off (*s, *i, *rec), by a binary search of
 * the records' offsets; -1 when it is not kept or damage was found.
 */
static int
store_reader_at_rec(struct store_reader *r, uint64_t off, int *s,
    int64_t *i, struct store_rec *rec)
{
	uint64_t		no = off / (uint64_t)r->seg;
	int64_t			lo;

	if (off >= r->bytes || r->nsegs == 0 ||
	    no < (uint64_t)r->segs[0].no ||
	    no - (uint64_t)r->segs[0].no >= (uint64_t)r->nsegs)
		return -1;
	*s = (int)(no - (uint64_t)r->segs[0].no);
	if (store_reader_search(r, *s, store_rec_off_at_most, &off, &lo) != 0)
		return -1;
	if (store_reader_rec(r, *s, lo, rec) != 0 || off < rec->off ||
	    off >= rec->off + rec->len)
		return -1;
	*i = lo;
	return 0;
}

/*
 * Find where line no starts, and a record to read on from (the one it
 * starts in, or one before it whose successors a read checks as it
 * crosses them): where the last read stopped if it stopped there, else by
 * store_reader_line().  Damage found on the way may cut the run after
 * line no: then it is looked for again.  0, or -1 when it is not kept.
 */
static int
store_reader_start(struct store_reader *r, int64_t no, uint64_t *off,
    int *s, int64_t *i, struct store_rec *rec)
{
	uint64_t	bytes;

	for (;;) {
		bytes = r->bytes;
		if (no < r->first || no >= r->count)
			return -1;
		if (r->at_line == no && r->at_off < r->bytes && r->at_no >= 0 &&
		    r->nsegs > 0 && r->at_no >= r->segs[0].no &&
		    r->at_no - r->segs[0].no < r->nsegs) {
			/* The record the last read checked last. */
			*s = (int)(r->at_no - r->segs[0].no);
			*i = r->at_i;
			if (store_reader_rec(r, *s, *i, rec) == 0 &&
			    rec->off <= r->at_off) {
				*off = r->at_off;
				return 0;
			}
			r->at_no = -1;
			continue;
		}
		if (r->at_line == no && r->at_off < r->bytes) {
			if (store_reader_at_rec(r, r->at_off, s, i, rec) == 0) {
				*off = r->at_off;
				if (rec->off != *off || ((int64_t)rec->line ==
				    no && rec->starts))
					return 0;
				store_reader_trim(r, *s, *i, xprintf("idx.%lld "
				    "record %lld says line %llu, its output "
				    "line %lld", (long long)r->segs[*s].no,
				    (long long)*i,
				    (unsigned long long)rec->line + 1,
				    (long long)no + 1));
				store_reader_ends(r);
			} else if (r->bytes >= bytes) {
				/* Its segment is gone: search for it. */
				r->at_line = -1;
				continue;
			}
		} else if (store_reader_line(r, no, off, s, i) == 0 &&
		    store_reader_rec(r, *s, *i, rec) == 0)
			return 0;
		if (r->bytes >= bytes)
			return -1;	/* not for damage: no use again */
	}
}

/*
 * Check a record a line crossed into as lines are read one after another:
 * line no starts at off, after line no - 1, so a record starting at off
 * says line no and that a line starts there, and one starting before it
 * (inside line no - 1) says line no - 1 and that none does.  One that
 * does not cuts the run there: 0 then, else 1.
 */
static int
store_reader_crossed(struct store_reader *r, int s, int64_t i,
    const struct store_rec *rec, int64_t no, uint64_t off)
{
	int64_t	want = rec->off == off ? no : no - 1;

	if ((int64_t)rec->line == want && rec->starts == (rec->off == off))
		return 1;
	store_reader_trim(r, s, i, xprintf("idx.%lld record %lld says line "
	    "%llu, its output line %lld", (long long)r->segs[s].no,
	    (long long)i, (unsigned long long)rec->line + 1,
	    (long long)want + 1));
	store_reader_ends(r);
	return 0;
}

/*
 * Return the output at off: a pointer into the reader's window and the
 * bytes there (0 at the end, -1 on error).
 */
static ssize_t
store_reader_at(struct store_reader *r, uint64_t off, const char **p)
{
	size_t	want;

	if (off >= r->bytes)
		return 0;
	if (off < r->win_off || off >= r->win_off + r->win_len) {
		if (r->win == NULL)
			r->win = xmalloc(STORE_CHUNK_MAX);
		want = STORE_CHUNK_MAX;
		if (want > r->bytes - off)
			want = (size_t)(r->bytes - off);
		r->win_len = 0;
		if (store_reader_read(r, off, r->win, want) != 0)
			return -1;
		r->win_off = off;
		r->win_len = want;
	}
	*p = r->win + (off - r->win_off);
	want = r->win_len - (size_t)(off - r->win_off);
	if (want > r->bytes - off)
		want = (size_t)(r->bytes - off);
	return (ssize_t)want;
}

/*
 * Read one line's bytes from *off (moved past its '\n') into a new buffer
 * of at most STORE_LINE_MAX bytes; -1 on error.
 */
static int
store_reader_take(struct store_reader *r, uint64_t *off,
    struct store_line *line, char **bytes, size_t *len)
{
	const char	*p, *nl;
	char		*buf = NULL;
	size_t		 take, room, alloc = 0;
	ssize_t		 n;
	uint64_t	 at = *off;

	*len = 0;
	line->partial = 1;
	line->cut = 0;
	if (at >= r->bytes)
		return -1;
	while (at < r->bytes) {
		if ((n = store_reader_at(r, at, &p)) <= 0) {
			free(buf);
			return -1;
		}
		nl = memchr(p, '\n', (size_t)n);
		take = nl == NULL ? (size_t)n : (size_t)(nl - p);
		room = STORE_LINE_MAX - *len;
		if (take > room)
			line->cut = 1;
		if (take > 0 && room > 0) {
			if (take < room)
				room = take;
			if (*len + room > alloc) {
				alloc = (*len + room) * 2;
				if (alloc > STORE_LINE_MAX)
					alloc = STORE_LINE_MAX;
				buf = xreallocarray(buf, alloc + 1, 1);
			}
			memcpy(buf + *len, p, room);
			*len += room;
		}
		at += take;
		if (nl != NULL) {
			at++;
			line->partial = 0;
			break;
		}
	}
	if (buf == NULL)
		buf = xmalloc(1);
	buf[*len] = '\0';
	*bytes = buf;
	*off = at;
	return 0;
}

/*
 * Step (*s, *i, *rec) on over the records that start at or before off,
 * where line no starts after line no - 1: each must say so
 * (store_reader_crossed()), and lines the run counts must be in its
 * records.  0, or -1 when damage cut the run on the way.
 */
static int
store_reader_cross(struct store_reader *r, int *s, int64_t *i,
    struct store_rec *rec, int64_t no, uint64_t off)
{
	int	l;

	while (off >= rec->off + rec->len) {
		if (store_reader_next(r, s, i) != 0) {
			if (no >= r->count)
				return 0;	/* the run's end */
			/* Lines its last record does not hold. */
			for (l = r->nsegs - 1; l > 0 && r->segs[l].nrec == 0;
			    l--)
				;
			store_reader_trim(r, l, r->segs[l].nrec - 1,
			    xprintf("idx.%lld says %lld lines, its output "
			    "%lld", (long long)r->segs[l].no,
			    (long long)r->count, (long long)no));
			store_reader_ends(r);
			return -1;
		}
		if (store_reader_rec(r, *s, *i, rec) != 0 ||
		    !store_reader_crossed(r, *s, *i, rec, no, off))
			return -1;
	}
	return 0;
}

/*
 * Read lines [from, to) (clamped to the lines kept) as flags say: a new
 * array in *lines of *count lines.  Memory and reading are proportional
 * to the lines asked for.  A line is given once the records it crossed
 * into say so (store_reader_cross()), and damage found on the way cuts
 * the run: the lines before it are given (the last as far as it goes),
 * store_reader_damage() says why.  0, or -1 with no lines when the run
 * is damaged and none of them can be read.
 */
int
store_reader_get(struct store_reader *r, int64_t from, int64_t to,
    int flags, struct store_line **lines, int *count)
{
	struct store_line	*out, *line;
	struct store_rec	 rec, lrec;
	uint64_t		 off, end, bytes;
	int64_t			 i, li, no, asked = to;
	char			*bytes_of;
	size_t			 len;
	int			 s, ls, n = 0;

	*lines = NULL;
	*count = 0;
	if (from < r->first)
		from = r->first;
	if (to > r->count)
		to = r->count;
	if (from >= to)
		return r->why != NULL && asked > from ? -1 : 0;
	if (to - from > INT32_MAX / (int64_t)sizeof *out)
		to = from + INT32_MAX / (int64_t)sizeof *out;
	out = xcalloc((size_t)(to - from), sizeof *out);
	no = from;
	for (;;) {
		bytes = r->bytes;
		if (store_reader_start(r, no, &off, &s, &i, &rec) != 0)
			goto done;
		if (store_reader_cross(r, &s, &i, &rec, no, off) == 0)
			break;
		if (r->bytes >= bytes || no >= r->count)
			goto done;	/* damage after it: again */
	}
	while (no < to && no < r->count) {
		/* rec holds where line no starts (off). */
		lrec = rec;
		ls = s;
		li = i;
		line = &out[n];
		line->no = no;
		line->time = lrec.time;
		line->stream = (enum store_stream)lrec.stream;
		bytes = r->bytes;
		end = off;
		if (store_reader_take(r, &end, line, &bytes_of, &len) != 0) {
			/* Cut inside this line: read what is left of it. */
			if (r->bytes < bytes && no < r->count)
				continue;
			goto done;
		}
		if (store_reader_cross(r, &s, &i, &rec, no + 1, end) != 0 ||
		    r->bytes < bytes) {
			/* Damage in or after it: what is left of it, again. */
			free(bytes_of);
			rec = lrec;
			s = ls;
			i = li;
			if (r->bytes < bytes && no < r->count)
				continue;
			goto done;
		}
		off = end;
		n++;
		no++;
		if (flags & STORE_TEXT) {
			line->text = rawtext_line(bytes_of, len,
			    (flags & STORE_COLOR) ? RAWTEXT_SGR : 0,
			    &line->len);
			free(bytes_of);
		} else {
			line->text = bytes_of;
			line->len = len;
		}
	}
	if (no == r->count && off < r->bytes && s < r->nsegs) {
		/* Its records say fewer lines than its bytes hold. */
		store_reader_trim_after(r, s, i, xprintf("idx.%lld says the "
		    "run has %lld lines, its output more",
		    (long long)r->segs[s].no, (long long)no));
	}
	/* Where it stopped, for the next read to go on from. */
	r->at_line = off < r->bytes ? no : -1;
	r->at_off = off;
	r->at_no = s < r->nsegs ? r->segs[s].no : -1;
	r->at_i = i;

done:
	if (n == 0) {
		free(out);
		return r->why != NULL ? -1 : 0;
	}
	*lines = out;
	*count = n;
	return 0;
}

/*
 * Give the lines of r after *mark (flags as store_reader_get()'s) and move
 * *mark past them: the complete ones, at most the newest max of them (-1:
 * all), then, with partial set, the partial last line if the run grew
 * since it was last given (it comes again whole once it ends).  *skipped,
 * if not NULL, counts the lines left out: dropped by the cap or by max.
 * A damaged run's lines are given up to its damage
 * (store_reader_damage()).  0, or -1 when the lines cannot be read.
 */
int
store_reader_since(struct store_reader *r, struct store_mark *mark,
    int flags, int max, int partial, struct store_line **lines, int *count,
    int64_t *skipped)
{
	struct store_line	*sl = NULL, *pl;
	int64_t			 complete, from;
	uint64_t		 bytes;
	int			 n = 0, np;

	*lines = NULL;
	*count = 0;
	complete = r->count - r->partial;
	from = mark->line > r->first ? mark->line : r->first;
	if (max >= 0 && complete - from > max)
		from = complete - max;
	if (skipped != NULL)
		*skipped = from > mark->line ? from - mark->line : 0;
	if (from < complete && store_reader_get(r, from, complete, flags, &sl,
	    &n) != 0)
		n = 0;
	/* Damage found on the way may leave the last one given partial. */
	if (n > 0 && sl[n - 1].partial) {
		free(sl[n - 1].text);
		n--;
	}
	if (from + n > mark->line)
		mark->line = from + n;
	bytes = r->bytes;
	if (partial && r->partial && mark->line == r->count - 1 &&
	    bytes != mark->partial && store_reader_get(r, mark->line,
	    r->count, flags, &pl, &np) == 0) {
		if (np == 1 && pl[0].partial) {
			sl = xreallocarray(sl, (size_t)n + 1, sizeof *sl);
			sl[n++] = pl[0];
			free(pl);
			mark->partial = bytes;
		} else
			store_lines_free(pl, np);
	}
	if (n == 0) {
		free(sl);
		sl = NULL;
	}
	*lines = sl;
	*count = n;
	return 0;
}

/*
 * Give the last max lines of r (flags as store_reader_get()'s); *more says
 * whether earlier lines were left out, by max or dropped by the cap.  0,
 * or -1 when they cannot be read.
 */
int
store_reader_tail(struct store_reader *r, int max, int flags,
    struct store_line **lines, int *count, int *more)
{
	int64_t	total = store_reader_count(r), from;

	from = total - max > store_reader_first(r) ? total - max :
	    store_reader_first(r);
	*more = from > 0;
	*lines = NULL;
	*count = 0;
	if (from >= total)
		return 0;
	return store_reader_get(r, from, total, flags, lines, count);
}

/*
 * Take the texts of lines as a NULL-terminated array (the caller frees
 * each string and the array) and free the rest of lines.
 */
char **
store_lines_take(struct store_line *lines, int count)
{
	char	**texts;
	int	  i;

	texts = xcalloc((size_t)count + 1, sizeof *texts);
	for (i = 0; i < count; i++) {
		texts[i] = lines[i].text;
		lines[i].text = NULL;
	}
	store_lines_free(lines, count);
	return texts;
}

/* Free what store_reader_get() returned. */
void
store_lines_free(struct store_line *lines, int count)
{
	int	i;

	if (lines == NULL)
		return;
	for (i = 0; i < count; i++)
		free(lines[i].text);
	free(lines);
}

/*
 * Return the first line whose time is at or after wall_ms (the line
 * count if none): a binary search of the records' times.  -1 when
 * damage was found on the way.
 */
int64_t
store_reader_find_time(struct store_reader *r, int64_t wall_ms)
{
	struct store_rec	rec;
	int64_t			lo, hi, m, no;
	int			s, k;

	for (s = -1, k = 0; k < r->nsegs; k++) {
		if (r->segs[k].nrec > 0 && r->segs[k].first.time < wall_ms)
			s = k;
	}
	if (s == -1)
		return r->first;
	lo = 0;
	hi = r->segs[s].nrec;
	while (hi - lo > 1) {
		m = lo + (hi - lo) / 2;
		if (store_reader_rec(r, s, m, &rec) != 0)
			return -1;
		if (rec.time < wall_ms)
			lo = m;
		else
			hi = m;
	}
	if (s >= r->nsegs || lo >= r->segs[s].nrec)
		return -1;
	if (store_reader_next(r, &s, &lo) != 0 ||
	    store_reader_rec(r, s, lo, &rec) != 0)
		return r->count;
	no = (int64_t)rec.line + (rec.starts ? 0 : 1);
	if (no < r->first)
		no = r->first;
	return no > r->count ? r->count : no;
}

/*
 * Skip the rest of a line longer than a block, from off; returns the
 * offset after its '\n' (or the end) and adds what it read to *done.
 * Each pass reads a byte at least, so it ends.
 */
static int64_t
store_reader_skip(struct store_reader *r, uint64_t off, size_t *done)
{
	const char	*nl;
	size_t		 want;

	while (off < r->bytes) {
		want = STORE_SCAN_BLOCK;
		if (want > r->bytes - off)
			want = (size_t)(r->bytes - off);
		if (store_reader_read(r, off, r->block, want) != 0)
			return -1;
		*done += want;
		if ((nl = memchr(r->block, '\n', want)) != NULL)
			return (int64_t)(off + (uint64_t)(nl - r->block) + 1);
		off += (uint64_t)want;
	}
	return (int64_t)off;
}

/*
 * Read the lines from line from on in blocks of whole lines (up to 1 MiB;
 * a longer line comes as a block of its own, cut at STORE_LINE_MAX with a
 * '\n' added) and give each to cb->block, stopping after about budget
 * bytes or when it returns non-zero.  Every pass gives a block of a byte
 * at least and moves past it, or meets damage, which cuts the run there
 * (store_reader_damage()).  Returns the line to go on from: the line
 * count when done, and no further than the lines given when damage was
 * met (the count may then be lower: see store_reader_count()).
 */
int64_t
store_reader_scan(struct store_reader *r, int64_t from, size_t budget,
    const struct store_scan_cbs *cb, void *arg)
{
	struct store_rec	 rec;
	uint64_t		 off;
	int64_t			 i, next;
	size_t			 done = 0, want, blen, more;
	const char		*nl;
	int			 s, stop;

	if (from < r->first)
		from = r->first;
	if (from >= r->count)
		return r->count;
	if (r->at_line == from && r->at_off < r->bytes)
		off = r->at_off;
	else if (store_reader_start(r, from, &off, &s, &i, &rec) != 0)
		return from < r->count ? from : r->count;
	if (r->block == NULL)
		r->block = xmalloc(STORE_SCAN_BLOCK + 1);
	while (off < r->bytes && done < budget) {
		want = budget - done;
		if (want < STORE_SCAN_MIN)
			want = STORE_SCAN_MIN;
		if (want > STORE_SCAN_BLOCK)
			want = STORE_SCAN_BLOCK;
		if (want > r->bytes - off)
			want = (size_t)(r->bytes - off);
		if (store_reader_read(r, off, r->block, want) != 0)
			break;
		blen = want;
		if (off + blen < r->bytes && blen < STORE_SCAN_BLOCK &&
		    memrchr(r->block, '\n', blen) == NULL) {
			/* One line longer than the budget: a block of it. */
			more = STORE_SCAN_BLOCK;
			if (more > r->bytes - off)
				more = (size_t)(r->bytes - off);
			if (store_reader_read(r, off + blen, r->block + blen,
			    more - blen) != 0)
				break;
			blen = more;
		}
		if (off + blen < r->bytes) {
			nl = memrchr(r->block, '\n', blen);
			if (nl == NULL) {
				/* Longer than a block (blen is one): cut. */
				r->block[blen] = '\n';
				done += blen;
				stop = cb->block(from, r->block, blen + 1, arg);
				from++;
				next = store_reader_skip(r, off + blen, &done);
				if (next == -1) {
					/* Cut inside it: no more. */
					r->at_line = r->at_no = -1;
					return from;
				}
				off = (uint64_t)next;
				if (stop)
					break;
				continue;
			}
			blen = (size_t)(nl - r->block) + 1;
		}
		done += blen;
		stop = cb->block(from, r->block, blen, arg);
		from += (int64_t)store_count_nl(r->block, blen) +
		    (r->block[blen - 1] != '\n');
		off += blen;
		if (stop)
			break;
	}
	/* Where it stopped (a line's start), for the next scan. */
	r->at_line = off < r->bytes ? from : -1;
	r->at_off = off;
	r->at_no = -1;
	return from;
}
