/*
 * job-text.c: a job's output as text, for every face that shows or sends
 * it (include/job.h): the tail, a range, what is new since a mark, a
 * page at a time, and stdout and stderr apart.  Where the output is read
 * is decided here, once, by job_reader_open(): the job's run in the store
 * when it is logged and can be read, else the emulator's own lines (its
 * screen and ring); every face reads through a struct job_reader, which
 * the caller owns.  Only this file asks whether a job is logged.
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
 * A reader of a job's output (job_reader_open()), or of a run of the
 * store without its job (job_reader_open_run()): where it reads; for the
 * store, its reader on the run and the run's place; for the emulator, its
 * text lines, taken when first wanted (job_reader_take()), how many of
 * them are complete and how many bytes the job had printed then.
 */
struct job_reader {
	const struct job	 *job;		/* NULL: a run of the store */
	enum job_source		  source;
	struct store_reader	 *r;		/* JOB_SOURCE_STORE: */
	char			 *dir;		/*   the store's directory */
	char			 *run;		/*   and the run's id */
	int			  taken;	/* JOB_SOURCE_VT: vl is taken */
	char			**vl;
	int			  nvl;
	int			  complete;
	uint64_t		  bytes;
};

/* How many lines job_text_page() reads from the store at once. */
#define JOB_PAGE_BATCH	256
#define JOB_SPLIT_SCAN	16	/* job_output_split() reads 16 x max */
#define JOB_SPLIT_SCAN_MIN (1024 * 1024)

/* Return whether the job's last run is in the store, logged whole. */
static int
job_logged(const struct job *j)
{
	return j->store != NULL && j->run_id[0] != '\0' && j->log_error == NULL;
}

/*
 * Open a reader of the job's output, deciding where it is read (the one
 * place that does): with JOB_READER_SCREEN, a job on the alternate
 * screen (a full-screen program) is read from its emulator; a logged job
 * from its last run in the store; any other from the emulator's text
 * lines (a job that never started may hold why there).  A logged run that
 * cannot be read is read from the emulator, and *why, if why is not NULL
 * and not set, says why (the caller frees it).  With JOB_READER_RUN_ONLY
 * (a reader in the run's numbers) such a run, and a job to be logged that
 * has not started yet, are nothing instead.  Never NULL.
 */
struct job_reader *
job_reader_open(const struct job *j, int flags, char **why)
{
	struct job_reader	*o;
	char			*cause = NULL;

	o = xcalloc(1, sizeof *o);
	o->job = j;
	o->source = JOB_SOURCE_VT;
	if ((flags & JOB_READER_SCREEN) && j->vt != NULL &&
	    vt_altscreen(j->vt))
		return o;
	if (job_logged(j)) {
		o->r = store_reader_open(store_dir(j->store), j->run_id,
		    &cause);
		if (o->r != NULL) {
			o->source = JOB_SOURCE_STORE;
			o->dir = xstrdup(store_dir(j->store));
			o->run = xstrdup(j->run_id);
			return o;
		}
		if (why != NULL && *why == NULL)
			*why = cause;
		else
			free(cause);
		if (flags & JOB_READER_RUN_ONLY)
			o->source = JOB_SOURCE_NONE;
	} else if ((flags & JOB_READER_RUN_ONLY) && j->store != NULL &&
	    j->log_error == NULL)
		o->source = JOB_SOURCE_NONE;	/* not started yet */
	return o;
}

/*
 * Open a reader of a run of the store in dir that is not a job's (logs
 * RUN); NULL with *cause if it cannot be read.
 */
struct job_reader *
job_reader_open_run(const char *dir, const char *run, char **cause)
{
	struct job_reader	*o;
	struct store_reader	*r;

	if ((r = store_reader_open(dir, run, cause)) == NULL)
		return NULL;
	o = xcalloc(1, sizeof *o);
	o->source = JOB_SOURCE_STORE;
	o->r = r;
	o->dir = xstrdup(dir);
	o->run = xstrdup(run);
	return o;
}

/* Close a reader (NULL is none). */
void
job_reader_close(struct job_reader *o)
{
	if (o == NULL)
		return;
	store_reader_close(o->r);
	free(o->dir);
	free(o->run);
	job_text_free(o->vl, o->nvl);
	free(o);
}

/* Return where the reader reads. */
enum job_source
job_reader_source(const struct job_reader *o)
{
	return o->source;
}

/*
 * Return the id of the run the reader reads in the store and set *dir,
 * if dir is not NULL, to the store's directory; NULL when it does not
 * read the store.
 */
const char *
job_reader_run(const struct job_reader *o, const char **dir)
{
	if (dir != NULL)
		*dir = o->dir;
	return o->run;
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
 * Take the emulator's lines for a reader of them, once: all of them are
 * complete but, while the job runs, the cursor's line when it is the last
 * and holds text (it is still being written).
 */
static void
job_reader_take(struct job_reader *o)
{
	const struct job	*j = o->job;
	int			 cy, cx;

	if (o->source != JOB_SOURCE_VT || o->taken)
		return;
	o->taken = 1;
	o->vl = job_vt_lines(j, &o->nvl);
	o->complete = o->nvl;
	o->bytes = j->out_bytes;
	if (job_is_running(j) && o->nvl > 0) {
		vt_cursor(j->vt, &cy, &cx);
		if (cx > 0 && vt_text_count(j->vt) - vt_rows(j->vt) + cy ==
		    o->nvl - 1)
			o->complete--;
	}
}

/*
 * See what was written since the reader opened or was last refreshed (the
 * store's: store_reader_refresh(); the emulator's lines are taken again
 * when next wanted); -1 for a damaged run.
 */
int
job_reader_refresh(struct job_reader *o)
{
	if (o->r != NULL)
		return store_reader_refresh(o->r);
	job_text_free(o->vl, o->nvl);
	o->vl = NULL;
	o->nvl = o->taken = 0;
	return 0;
}

/* Return the first line still there (the store's cap drops lines). */
int64_t
job_reader_first(const struct job_reader *o)
{
	return o->r != NULL ? store_reader_first(o->r) : 0;
}

/* Return how many lines there are, a partial last one too. */
int64_t
job_reader_count(struct job_reader *o)
{
	if (o->r != NULL)
		return store_reader_count(o->r);
	job_reader_take(o);
	return o->nvl;
}

/* Return how many lines are complete: all but a partial last one. */
int64_t
job_reader_complete(struct job_reader *o)
{
	if (o->r != NULL)
		return store_reader_count(o->r) - store_reader_partial(o->r);
	job_reader_take(o);
	return o->complete;
}

/* Return how many bytes of output there are (a partial line grows them). */
uint64_t
job_reader_bytes(struct job_reader *o)
{
	if (o->r != NULL)
		return store_reader_bytes(o->r);
	job_reader_take(o);
	return o->bytes;
}

/*
 * Return why the run cannot be read on from where it is cut (damage in
 * the store found so far: store_reader_damage()), or NULL.
 */
const char *
job_reader_damage(struct job_reader *o)
{
	return o->r != NULL ? store_reader_damage(o->r) : NULL;
}

/*
 * Give the emulator's lines [from, to) of a reader (its lines taken) as
 * store lines: numbered from 0, of one stream, partial past the complete
 * ones.
 */
static void
job_reader_vt_get(struct job_reader *o, int64_t from, int64_t to,
    struct store_line **lines, int *count)
{
	struct store_line	*sl;
	int64_t			 no;
	int			 n = 0;

	if (from < 0)
		from = 0;
	if (to > o->nvl)
		to = o->nvl;
	sl = xcalloc(to > from ? (size_t)(to - from) : 1, sizeof *sl);
	for (no = from; no < to; no++, n++) {
		sl[n].no = no;
		sl[n].stream = STORE_TTY;
		sl[n].partial = no >= o->complete;
		sl[n].text = xstrdup(o->vl[no]);
		sl[n].len = strlen(sl[n].text);
	}
	*lines = sl;
	*count = n;
}

/*
 * Give lines [from, to) (as store_reader_get() does, with its flags: the
 * emulator's are text whatever they ask); 0, or -1 when the store cannot
 * read them.
 */
int
job_reader_get(struct job_reader *o, int64_t from, int64_t to, int flags,
    struct store_line **lines, int *count)
{
	*lines = NULL;
	*count = 0;
	if (o->r != NULL)
		return store_reader_get(o->r, from, to, flags, lines, count);
	job_reader_take(o);
	job_reader_vt_get(o, from, to, lines, count);
	return 0;
}

/*
 * Give the text lines after *mark and move it past them, as
 * store_reader_since() does (max, partial, *skipped); the emulator's are
 * its complete lines, all of them (this drifts once its scrollback is
 * full).  0, or -1 when the store cannot read them.
 */
int
job_reader_since(struct job_reader *o, struct store_mark *mark, int max,
    int partial, struct store_line **lines, int *count, int64_t *skipped)
{
	*lines = NULL;
	*count = 0;
	if (skipped != NULL)
		*skipped = 0;
	if (o->r != NULL)
		return store_reader_since(o->r, mark, STORE_TEXT, max, partial,
		    lines, count, skipped);
	job_reader_take(o);
	if (o->complete <= mark->line)
		return 0;
	job_reader_vt_get(o, mark->line, o->complete, lines, count);
	mark->line = o->complete;
	return 0;
}

/*
 * Return the last max lines as text, in memory bounded by max (the
 * emulator's are at hand); *more says whether earlier lines were left
 * out.
 */
char **
job_reader_tail(struct job_reader *o, int max, int *count, int *more)
{
	struct store_line	 *sl;
	char			**lines;
	int			  i, from;

	*count = *more = 0;
	if (o->r != NULL) {
		if (store_reader_tail(o->r, max, STORE_TEXT, &sl, count,
		    more) != 0)
			*count = 0;
		return store_lines_take(sl, *count);
	}
	job_reader_take(o);
	from = o->nvl > max ? o->nvl - max : 0;
	*more = from > 0;
	lines = xcalloc((size_t)(o->nvl - from) + 1, sizeof *lines);
	for (i = from; i < o->nvl; i++)
		lines[(*count)++] = xstrdup(o->vl[i]);
	return lines;
}

/*
 * Set *error, if error is not NULL and it is not set, to why a reader's
 * run cannot be read on from where it ends (job_reader_damage()).
 */
static void
job_reader_error(struct job_reader *o, char **error)
{
	const char	*why;

	if (error != NULL && *error == NULL &&
	    (why = job_reader_damage(o)) != NULL)
		*error = xstrdup(why);
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
	struct job_reader	 *o;
	char			**lines;

	o = job_reader_open(j, 0, error);
	lines = job_reader_tail(o, max, count, more);
	job_reader_error(o, error);
	job_reader_close(o);
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

/* Free what job_text_lines() returned. */
void
job_text_free(char **lines, int count)
{
	rawtext_free_lines(lines, count);
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
	struct job_reader	 *o;
	struct store_line	 *sl;
	int64_t			  skipped = 0;
	int			  n;

	*partial = 0;
	if (more != NULL)
		*more = 0;
	o = job_reader_open(j, JOB_READER_RUN_ONLY, error);
	if (job_reader_since(o, mark, max, 1, &sl, &n, &skipped) != 0)
		n = 0;
	if (mark->line >= job_reader_complete(o))
		job_reader_error(o, error);
	job_reader_close(o);
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

/* Append a line to a page's lines, out, of room for *cap of them. */
static void
job_page_add(struct job_page *page, char ***out, int *cap, char *text)
{
	if (page->count + 1 >= *cap) {
		*cap = *cap == 0 ? 64 : *cap * 2;
		*out = xreallocarray(*out, (size_t)*cap, sizeof **out);
	}
	(*out)[page->count++] = text;
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
	struct job_reader	 *o;
	struct store_line	 *sl = NULL;
	char			**out = NULL, *error = NULL;
	size_t			  used = 0;
	uint64_t		  bytes;
	int64_t			  no, want, complete, total;
	int			  n = 0, i, stop = 0, cap = 0;

	memset(page, 0, sizeof *page);
	o = job_reader_open(j, JOB_READER_RUN_ONLY, &error);
	no = mark->line > job_reader_first(o) ? mark->line :
	    job_reader_first(o);
	page->from = no;
	while (!stop && no < job_reader_complete(o)) {
		want = job_reader_complete(o) - no < JOB_PAGE_BATCH ?
		    job_reader_complete(o) - no : JOB_PAGE_BATCH;
		if (job_reader_get(o, no, no + want, STORE_TEXT, &sl,
		    &n) != 0 || n == 0) {
			store_lines_free(sl, n);
			break;
		}
		/* Damage found cuts the run: a part line stays out. */
		for (; n > 0 && no + n > job_reader_complete(o); n--) {
			free(sl[n - 1].text);
			sl[n - 1].text = NULL;
		}
		for (i = 0; i < n && !stop; i++) {
			if (page->count == 0 && sl[i].len + 1 > max_bytes)
				job_text_cut(sl[i].text, &sl[i].len, max_bytes);
			else if (used + sl[i].len + 1 > max_bytes) {
				stop = 1;
				continue;
			}
			job_page_add(page, &out, &cap, sl[i].text);
			sl[i].text = NULL;
			used += sl[i].len + 1;
			no++;
			if (used >= max_bytes)
				stop = 1;
		}
		store_lines_free(sl, n);
	}
	if (no > mark->line || mark->line < job_reader_first(o))
		mark->line = no;
	complete = job_reader_complete(o);
	total = job_reader_count(o);
	bytes = job_reader_bytes(o);
	if (!stop && no == complete && complete < total &&
	    bytes != mark->partial && job_reader_get(o, complete, total,
	    STORE_TEXT, &sl, &n) == 0 && n == 1) {
		if (page->count == 0 || used + sl[0].len <= max_bytes) {
			job_text_cut(sl[0].text, &sl[0].len, max_bytes);
			job_page_add(page, &out, &cap, sl[0].text);
			sl[0].text = NULL;
			page->partial = 1;
			mark->partial = bytes;
		}
		store_lines_free(sl, n);
	}
	if (out == NULL)
		out = xcalloc(1, sizeof *out);
	out[page->count] = NULL;
	page->lines = out;
	page->left = complete > mark->line ? complete - mark->line : 0;
	/* A partial last line is more only from a mark at or before it. */
	page->more = page->left > 0 || (complete < total &&
	    mark->line <= complete && bytes != mark->partial);
	if (!page->more) {
		job_reader_error(o, &error);
		page->error = error;
		error = NULL;
	}
	free(error);
	job_reader_close(o);
}

/*
 * Give the mark at the end of the job's output as it is now: past its
 * complete lines and, when it has a partial last line, past that as it
 * is (the tail job_text_tail() gives ends there).
 */
void
job_text_end(struct job *j, struct store_mark *mark)
{
	struct job_reader	*o;

	o = job_reader_open(j, JOB_READER_RUN_ONLY, NULL);
	mark->line = job_reader_complete(o);
	mark->partial = mark->line < job_reader_count(o) ?
	    job_reader_bytes(o) : 0;
	job_reader_close(o);
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
	struct job_reader	*o;
	struct store_line	*sl;
	int64_t			 no, first, total;
	uint64_t		 scanned = 0, budget;
	int			 n, i, k, streams;

	memset(split, 0, sizeof *split);
	for (k = 0; k < 2; k++)
		split->data[k] = xcalloc(1, max + 1);
	o = job_reader_open(j, JOB_READER_RUN_ONLY, NULL);
	if (job_reader_source(o) != JOB_SOURCE_STORE) {
		job_reader_take(o);
		for (i = 0; i < o->nvl; i++) {
			job_split_add(split, 0, o->vl[i], strlen(o->vl[i]), max);
			job_split_add(split, 0, "\n", 1, max);
		}
		job_reader_close(o);
		return;
	}
	/* A pty has one stream: stdout. */
	streams = j->child.is_pty ? 1 : 2;
	budget = (uint64_t)max * JOB_SPLIT_SCAN;
	if (budget < JOB_SPLIT_SCAN_MIN)
		budget = JOB_SPLIT_SCAN_MIN;
	first = job_reader_first(o);
	total = job_reader_count(o);
	for (no = first; no < total; no += n) {
		if (split->truncated[0] && (streams == 1 ||
		    split->truncated[1]))
			break;
		if (scanned > budget) {
			split->truncated[0] = split->truncated[1] = 1;
			break;
		}
		if (job_reader_get(o, no, no + JOB_PAGE_BATCH < total ?
		    no + JOB_PAGE_BATCH : total, STORE_RAW, &sl, &n) != 0 ||
		    n == 0)
			break;
		for (i = 0; i < n; i++) {
			k = sl[i].stream == STORE_STDERR;
			scanned += sl[i].len + 1;
			job_split_add(split, k, sl[i].text, sl[i].len, max);
			if (!sl[i].partial)
				job_split_add(split, k, "\n", 1, max);
		}
		store_lines_free(sl, n);
	}
	/* Lines dropped by the store's cap are not here. */
	if (first > 0)
		split->truncated[0] = split->truncated[1] = 1;
	job_reader_close(o);
}

/* Give the job's own mark (job_text_incremental()'s). */
void
job_text_mark(const struct job *j, struct store_mark *mark)
{
	*mark = j->text_mark;
}
