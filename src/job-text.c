/*
 * job-text.c: a job's output as text, for every face that shows or sends
 * it (include/job.h): the tail, a range, what is new since a mark, a
 * page at a time, and stdout and stderr apart.  Where the output is
 * decided here, once: a reader on the job's run in the store when the
 * deck keeps one, else the emulator's own lines (its screen and ring).
 */

#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "job-private.h"
#include "rawtext.h"
#include "store.h"
#include "utf8.h"
#include "vt.h"
#include "xmalloc.h"

/* The most lines job_text_lines() gives a client that cannot stream. */
#define JOB_TEXT_MAX		100000

/*
 * Where a job's output is, for job_text_page() and job_text_end(): a
 * reader on its run in the store, or else the emulator's text lines;
 * the first line still there, how many are complete, how many in all
 * (one more with a partial last line) and how many bytes it printed.
 */
struct job_extent {
	struct store_reader	 *r;
	char			**vl;
	int			  nvl;
	int64_t			  first;
	int64_t			  complete;
	int64_t			  total;
	uint64_t		  bytes;
	char			 *error;	/* why the run cannot be read */
};

/* How many lines job_text_page() reads from the store at once. */
#define JOB_PAGE_BATCH	256
#define JOB_SPLIT_SCAN	16	/* job_output_split() reads 16 x max */
#define JOB_SPLIT_SCAN_MIN (1024 * 1024)

/*
 * Open a reader on the job's last run; NULL when it has none, or none
 * that can be read (then *error, if error is not NULL, says why).
 */
static struct store_reader *
job_reader(const struct job *j, char **error)
{
	struct store_reader	*r;
	char			*cause = NULL;

	if (!job_logged(j))
		return NULL;
	r = store_reader_open(store_dir(j->store), j->run_id, &cause);
	if (r == NULL && error != NULL && *error == NULL)
		*error = cause;
	else
		free(cause);
	return r;
}

/*
 * Set *error, if error is not NULL and it is not set, to why a reader's
 * run cannot be read on from where it ends (store_reader_damage()).
 */
static void
job_reader_error(struct store_reader *r, char **error)
{
	const char	*why;

	if (error != NULL && *error == NULL &&
	    (why = store_reader_damage(r)) != NULL)
		*error = xstrdup(why);
}

/*
 * Return the emulator's scrollback and screen as text lines, without the
 * blank rows at and below the cursor; NULL if it has printed nothing.
 */
static char **
job_vt_lines(const struct job *j, int *count)
{
	char	**lines;
	int	  n, i, cy, cx, last;

	*count = 0;
	if (j->vt == NULL)
		return NULL;
	n = vt_text_count(j->vt);
	lines = xcalloc((size_t)n + 1, sizeof *lines);
	for (i = 0; i < n; i++)
		lines[i] = vt_text_line(j->vt, i);
	vt_cursor(j->vt, &cy, &cx);
	last = n - vt_rows(j->vt) + cy;
	while (n > 0 && n - 1 >= last && lines[n - 1][0] == '\0')
		free(lines[--n]);
	*count = n;
	return lines;
}

/*
 * Return the last max lines of the job's last run as text (from the
 * store, or the emulator when it has none), in memory bounded by max;
 * *more says whether earlier lines were left out.  *error, if error is
 * not NULL, says why the run in the store cannot be read to its end
 * (damaged: the lines end at the damage), or is left NULL.
 */
char **
job_text_tail_error(const struct job *j, int max, int *count, int *more,
    char **error)
{
	struct store_reader	 *r;
	struct store_line	 *sl;
	char			**lines;
	int			  i, drop;

	*count = *more = 0;
	if ((r = job_reader(j, error)) != NULL) {
		if (store_reader_tail(r, max, STORE_TEXT, &sl, count,
		    more) != 0)
			*count = 0;
		job_reader_error(r, error);
		store_reader_close(r);
		return store_lines_take(sl, *count);
	}
	lines = job_vt_lines(j, count);
	if (*count > max) {
		drop = *count - max;
		for (i = 0; i < drop; i++)
			free(lines[i]);
		memmove(lines, lines + drop, (size_t)max * sizeof *lines);
		lines[max] = NULL;
		*count = max;
		*more = 1;
	}
	return lines;
}

/* job_text_tail_error() without the error. */
char **
job_text_tail(const struct job *j, int max, int *count, int *more)
{
	return job_text_tail_error(j, max, count, more, NULL);
}

/*
 * Return the job's output as text lines, for a client that cannot stream
 * it: its last JOB_TEXT_MAX lines; *error as job_text_tail_error()'s.
 */
char **
job_text_lines_error(const struct job *j, int *count, char **error)
{
	int	more;

	return job_text_tail_error(j, JOB_TEXT_MAX, count, &more, error);
}

/* job_text_lines_error() without the error. */
char **
job_text_lines(const struct job *j, int *count)
{
	return job_text_lines_error(j, count, NULL);
}

/* Return how many lines the job's last run has in the store, or -1. */
int64_t
job_store_lines(const struct job *j)
{
	struct store_reader	*r;
	int64_t			 n;

	if ((r = job_reader(j, NULL)) == NULL)
		return -1;
	n = store_reader_count(r);
	store_reader_close(r);
	return n;
}

/* Free what job_text_lines() returned. */
void
job_text_free(char **lines, int count)
{
	rawtext_free_lines(lines, count);
}

/*
 * job_text_since() without a store: the emulator's text lines after
 * mark->line, complete ones only while the job runs (this drifts once the
 * scrollback is full).
 */
static char **
job_vt_since(struct job *j, struct store_mark *mark, int *count)
{
	char	**lines, **out;
	int	  n, i, complete, cy, cx;

	*count = 0;
	if ((lines = job_vt_lines(j, &n)) == NULL)
		return NULL;
	complete = n;
	if (job_is_running(j) && n > 0) {
		/* The cursor's line is still being written. */
		vt_cursor(j->vt, &cy, &cx);
		if (cx > 0 && vt_text_count(j->vt) - vt_rows(j->vt) + cy ==
		    n - 1)
			complete = n - 1;
	}
	if (complete <= mark->line) {
		job_text_free(lines, n);
		return NULL;
	}
	out = xcalloc((size_t)(complete - mark->line) + 1, sizeof *out);
	for (i = (int)mark->line; i < complete; i++)
		out[(*count)++] = xstrdup(lines[i]);
	mark->line = complete;
	job_text_free(lines, n);
	return out;
}

/*
 * job_text_since() with at most max complete lines (-1: no limit): when
 * more are new, the first of them are passed over; *more, if not NULL,
 * says whether lines were passed over, by max or by the store's cap.
 * *error, if error is not NULL, says why the run cannot be read on from
 * where the lines end (damage in the store), or is left NULL.
 */
static char **
job_text_range(struct job *j, struct store_mark *mark, int max, int *count,
    int *partial, int *more, char **error)
{
	struct store_reader	 *r;
	struct store_line	 *sl;
	int64_t			  skipped = 0;
	int			  n;

	*count = 0;
	*partial = 0;
	if (more != NULL)
		*more = 0;
	if ((r = job_reader(j, error)) == NULL)
		return j->store == NULL || j->log_error != NULL ?
		    job_vt_since(j, mark, count) : NULL;
	if (store_reader_since(r, mark, STORE_TEXT, max, 1, &sl, &n,
	    &skipped) != 0)
		n = 0;
	if (mark->line >= store_reader_count(r) - store_reader_partial(r))
		job_reader_error(r, error);
	store_reader_close(r);
	if (more != NULL)
		*more = skipped > 0;
	*partial = n > 0 && sl[n - 1].partial;
	*count = n;
	return store_lines_take(sl, n);
}

/*
 * Return the lines of the job's last run after *mark as text and move
 * *mark past them (store_reader_since()): complete lines, then a partial
 * last line (a prompt, or an end without a newline) once for each time it
 * grew, with *partial set; the line comes again whole when it ends.
 * Lines dropped by the store's cap are skipped.  A zeroed mark is the
 * start.
 */
char **
job_text_since(struct job *j, struct store_mark *mark, int *count,
    int *partial)
{
	return job_text_range(j, mark, -1, count, partial, NULL, NULL);
}

/*
 * Return what the job printed since the last call (the first: all of its
 * run), as job_text_since() does with the job's own mark, but at most the
 * last max complete lines; *more says whether earlier new lines were left
 * out (by max, or dropped by the store's cap); *error, if error is not
 * NULL, why the run cannot be read on from there (damage), or NULL.
 */
char **
job_text_incremental_error(struct job *j, int max, int *count,
    int *partial, int *more, char **error)
{
	return job_text_range(j, &j->text_mark, max, count, partial, more,
	    error);
}

/* job_text_incremental_error() without the error. */
char **
job_text_incremental(struct job *j, int max, int *count, int *partial,
    int *more)
{
	return job_text_incremental_error(j, max, count, partial, more, NULL);
}

/* Take the extent's lines as its reader sees them now (damage cuts). */
static void
job_extent_count(struct job_extent *e)
{
	e->first = store_reader_first(e->r);
	e->total = store_reader_count(e->r);
	e->complete = e->total - store_reader_partial(e->r);
	e->bytes = store_reader_bytes(e->r);
}

/* Find where a job's output is (see struct job_extent). */
static void
job_extent_open(struct job *j, struct job_extent *e)
{
	int	cy, cx;

	memset(e, 0, sizeof *e);
	if ((e->r = job_reader(j, &e->error)) != NULL) {
		job_extent_count(e);
		return;
	}
	if (j->store != NULL && j->log_error == NULL)
		return;		/* not started yet */
	e->vl = job_vt_lines(j, &e->nvl);
	e->total = e->complete = e->nvl;
	e->bytes = j->out_bytes;
	if (job_is_running(j) && e->nvl > 0) {
		/* The cursor's line is still being written. */
		vt_cursor(j->vt, &cy, &cx);
		if (cx > 0 && vt_text_count(j->vt) - vt_rows(j->vt) + cy ==
		    e->nvl - 1)
			e->complete--;
	}
}

/* Let go of what job_extent_open() found. */
static void
job_extent_close(struct job_extent *e)
{
	if (e->r != NULL)
		store_reader_close(e->r);
	job_text_free(e->vl, e->nvl);
	free(e->error);
}

/*
 * Take lines [from, to) of an extent as text into texts and lens (room
 * for to - from); how many were read, or -1.
 */
static int
job_extent_get(struct job_extent *e, int64_t from, int64_t to, char **texts,
    size_t *lens)
{
	struct store_line	*sl;
	int			 n, i;

	if (e->r == NULL) {
		for (i = 0; from + i < to; i++) {
			texts[i] = xstrdup(e->vl[from + i]);
			lens[i] = strlen(texts[i]);
		}
		return i;
	}
	if (store_reader_get(e->r, from, to, STORE_TEXT, &sl, &n) != 0)
		return -1;
	for (i = 0; i < n; i++) {
		texts[i] = sl[i].text;
		lens[i] = sl[i].len;
		sl[i].text = NULL;
	}
	store_lines_free(sl, n);
	return n;
}

/* Cut a line's text to at most max bytes, at a character's start. */
static void
job_text_cut(char *text, size_t *len, size_t max)
{
	size_t	n;

	if (*len <= max)
		return;
	n = utf8_cut(text, max);
	text[n] = '\0';
	*len = n;
}

/*
 * Read the job's output forward from *mark (a zeroed mark is the start of
 * its last run) into page: whole complete lines, oldest first, as long as
 * their text and newlines come to at most max_bytes (the first line alone
 * longer than that cut to max_bytes), then the partial last line (a
 * prompt) if all complete lines were given, it grew since *mark and it
 * fits; *mark moves past what was given, the job's own mark stays.  Lines
 * dropped by the store's cap are passed over (page->from says where it
 * began).  From the store, or the emulator's lines when there is none.
 * A run damaged in the store is read up to its damage, and a page that
 * reaches it (or a run none of which can be read) says why in
 * page->error.
 */
void
job_text_page(struct job *j, struct store_mark *mark, size_t max_bytes,
    struct job_page *page)
{
	struct job_extent	  e;
	char			**texts, **out = NULL;
	size_t			 *lens, used = 0;
	int64_t			  no, want;
	int			  n, i, stop = 0, cap = 0;

	memset(page, 0, sizeof *page);
	job_extent_open(j, &e);
	no = mark->line > e.first ? mark->line : e.first;
	page->from = no;
	texts = xcalloc(JOB_PAGE_BATCH, sizeof *texts);
	lens = xcalloc(JOB_PAGE_BATCH, sizeof *lens);
	while (!stop && no < e.complete) {
		want = e.complete - no < JOB_PAGE_BATCH ? e.complete - no :
		    JOB_PAGE_BATCH;
		if ((n = job_extent_get(&e, no, no + want, texts, lens)) <= 0)
			break;
		if (e.r != NULL) {
			/* Damage found cuts the run: a part line stays out. */
			job_extent_count(&e);
			for (; n > 0 && no + n > e.complete; n--)
				free(texts[n - 1]);
		}
		for (i = 0; i < n; i++) {
			if (stop) {
				free(texts[i]);
				continue;
			}
			if (page->count == 0 && lens[i] + 1 > max_bytes)
				job_text_cut(texts[i], &lens[i], max_bytes);
			else if (used + lens[i] + 1 > max_bytes) {
				stop = 1;
				free(texts[i]);
				continue;
			}
			if (page->count + 1 >= cap) {
				cap = cap == 0 ? 64 : cap * 2;
				out = xreallocarray(out, (size_t)cap, sizeof *out);
			}
			out[page->count++] = texts[i];
			used += lens[i] + 1;
			no++;
			if (used >= max_bytes)
				stop = 1;
		}
	}
	if (e.r != NULL)
		job_extent_count(&e);	/* damage found may have cut it */
	if (no > mark->line || mark->line < e.first)
		mark->line = no;
	if (!stop && no == e.complete && e.complete < e.total &&
	    e.bytes != mark->partial &&
	    job_extent_get(&e, e.complete, e.total, texts, lens) == 1) {
		if (page->count == 0 || used + lens[0] <= max_bytes) {
			job_text_cut(texts[0], &lens[0], max_bytes);
			if (page->count + 1 >= cap) {
				cap = cap == 0 ? 2 : cap * 2;
				out = xreallocarray(out, (size_t)cap, sizeof *out);
			}
			out[page->count++] = texts[0];
			page->partial = 1;
			mark->partial = e.bytes;
		} else
			free(texts[0]);
	}
	if (out == NULL)
		out = xcalloc(1, sizeof *out);
	out[page->count] = NULL;
	page->lines = out;
	page->left = e.complete > mark->line ? e.complete - mark->line : 0;
	/* A partial last line is more only from a mark at or before it. */
	page->more = page->left > 0 || (e.complete < e.total &&
	    mark->line <= e.complete && e.bytes != mark->partial);
	if (e.r != NULL && !page->more)
		job_reader_error(e.r, &e.error);
	if (!page->more) {
		page->error = e.error;
		e.error = NULL;
	}
	free(texts);
	free(lens);
	job_extent_close(&e);
}

/*
 * Give the mark at the end of the job's output as it is now: past its
 * complete lines and, when it has a partial last line, past that as it
 * is (the tail job_text_tail() gives ends there).
 */
void
job_text_end(struct job *j, struct store_mark *mark)
{
	struct job_extent	e;

	job_extent_open(j, &e);
	mark->line = e.complete;
	mark->partial = e.complete < e.total ? e.bytes : 0;
	job_extent_close(&e);
}

/*
 * Append len bytes to a stream of split (its buffer max + 1 bytes), the
 * first max of them kept, cut at a character's start.
 */
static void
job_split_add(struct job_split *split, int k, const char *buf, size_t len,
    size_t max)
{
	size_t	n = len;

	if (split->truncated[k])
		return;		/* nothing after a cut */
	if (split->len[k] + n > max) {
		n = utf8_cut(buf, max - split->len[k]);
		split->truncated[k] = 1;
	}
	memcpy(split->data[k] + split->len[k], buf, n);
	split->len[k] += n;
	split->data[k][split->len[k]] = '\0';
}

/*
 * Give the job's last run's output as each stream wrote it (the store's
 * raw bytes), the first max bytes of each; without a store, the
 * emulator's text lines as stdout.  The run is read until every stream it
 * can hold is full, or for JOB_SPLIT_SCAN times max bytes (at least
 * JOB_SPLIT_SCAN_MIN): what comes later is not looked for, and a stream
 * not full by then is marked truncated too, so the cost follows max and
 * not the size of the log.
 */
void
job_output_split(struct job *j, size_t max, struct job_split *split)
{
	struct job_extent	 e;
	struct store_line	*sl;
	int64_t			 no;
	uint64_t		 scanned = 0, budget;
	int			 n, i, k, streams;

	memset(split, 0, sizeof *split);
	for (k = 0; k < 2; k++)
		split->data[k] = xcalloc(1, max + 1);
	job_extent_open(j, &e);
	if (e.r == NULL) {
		for (i = 0; i < e.nvl; i++) {
			job_split_add(split, 0, e.vl[i], strlen(e.vl[i]), max);
			job_split_add(split, 0, "\n", 1, max);
		}
	} else {
		/* A pty has one stream: stdout. */
		streams = j->child.is_pty ? 1 : 2;
		budget = (uint64_t)max * JOB_SPLIT_SCAN;
		if (budget < JOB_SPLIT_SCAN_MIN)
			budget = JOB_SPLIT_SCAN_MIN;
		for (no = e.first; no < e.total; no += n) {
			if (split->truncated[0] && (streams == 1 ||
			    split->truncated[1]))
				break;
			if (scanned > budget) {
				split->truncated[0] = split->truncated[1] = 1;
				break;
			}
			if (store_reader_get(e.r, no, no + JOB_PAGE_BATCH <
			    e.total ? no + JOB_PAGE_BATCH : e.total, STORE_RAW,
			    &sl, &n) != 0 || n == 0)
				break;
			for (i = 0; i < n; i++) {
				k = sl[i].stream == STORE_STDERR;
				scanned += sl[i].len + 1;
				job_split_add(split, k, sl[i].text, sl[i].len,
				    max);
				if (!sl[i].partial)
					job_split_add(split, k, "\n", 1, max);
			}
			store_lines_free(sl, n);
		}
		/* Lines dropped by the store's cap are not here. */
		if (e.first > 0)
			split->truncated[0] = split->truncated[1] = 1;
	}
	job_extent_close(&e);
}

/* Give the job's own mark (job_text_incremental()'s). */
void
job_text_mark(const struct job *j, struct store_mark *mark)
{
	*mark = j->text_mark;
}
