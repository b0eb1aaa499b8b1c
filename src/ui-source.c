/*
 * ui-source.c: where a text view's lines come from.  Three kinds behind
 * one set of functions: an array of lines (!ps, !help), runs of the
 * output store read a screen at a time through store_readers (so a view
 * of runs of any size holds only the lines it shows), and the results of
 * a grep, collected as the search is stepped.  Body lines are numbered
 * [first, count); header lines are apart.
 *
 * Merged: the runs of several jobs as one log in time order (logmerge.h),
 * each line prefixed with its job's label (lineprefix.h), numbered as
 * the merge numbers them; the jobs' later runs join as they start.
 *
 * Runs: a view opens on one run of a job (the anchor), whose lines keep
 * the numbers the store gives them; the job's earlier runs are placed
 * before it, one at a time as the view reaches up (ui_source_extend(),
 * so a job of 1,000 runs opens at once), at numbers below the anchor's
 * first, and runs it starts later after it (ui_source_add_run()).  Each
 * run after a job's first begins with its mark line, the words the pane
 * shows (job_format_run_mark()).  A few readers stay open, the last used.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "grep.h"
#include "job.h"
#include "jobtable.h"
#include "lineprefix.h"
#include "logmerge.h"
#include "store.h"
#include "ui-private.h"
#include "waitstatus.h"
#include "xmalloc.h"

#define UI_GREP_KEEP	10000	/* matches a results view keeps */
#define UI_GREP_TEXT	1024	/* bytes of a matching line kept */
#define UI_GREP_BEFORE	256	/* of them before the match, if cut */
#define UI_SOURCE_READERS 3	/* readers of runs kept open */

enum ui_source_kind {
	UI_SOURCE_ARRAY,
	UI_SOURCE_RUN,
	UI_SOURCE_GREP,
	UI_SOURCE_MERGE
};

/* One result of a grep: its line as shown and the run line it opens. */
struct ui_result {
	char	*run;
	int64_t	 line;
	int	 live;
	char	*title;		/* of the view it opens */
	char	*text;		/* "[JOB] NAME  HH:MM:SS  LINE: ..." */
	size_t	 len;
	size_t	 so;		/* the match in text */
	size_t	 eo;
};

/*
 * One run of a view of runs, and where its block of lines is: its mark
 * (a run after the job's first), then its lines, store line s at view
 * line base + mark + s - origin (a run that cannot be read: one line
 * saying why), then for a run damaged in the store a line saying so.
 * Lines the store dropped since the run was placed read as empty lines;
 * so do lines past damage found as the run is read, the first of them
 * saying what the damage is.
 */
struct ui_run {
	char		 id[STORE_ID_LEN + 1];
	int		 no;		/* among the job's runs: 1 its first */
	int		 meta;		/* started and status read */
	int64_t		 started;	/* wall ms */
	int		 status;	/* its end, or WAITSTATUS_NONE */
	int64_t		 base;
	int64_t		 origin;	/* its first line when placed */
	int64_t		 first;		/* lines kept: [first, count) */
	int64_t		 count;
	char		*error;		/* why it cannot be read, or NULL */
	char		*damage;	/* its last line: "(runs/RUN is ...)" */
};

/* A reader of one run, kept open while it was used lately. */
struct ui_reader {
	struct store_reader	*r;
	int			 run;		/* its index, -1: none */
	uint64_t		 used;
};

struct ui_source {
	enum ui_source_kind	 kind;
	int64_t			 first;
	int64_t			 count;

	/* UI_SOURCE_ARRAY: the first header lines are the header. */
	char			**lines;
	int			  header;

	/* UI_SOURCE_RUN: runs [lo, nruns) are placed. */
	char			 *rundir;
	struct ui_run		 *runlist;
	int			  nruns;
	int			  cap;
	int			  lo;
	struct ui_reader	  rd[UI_SOURCE_READERS];
	uint64_t		  tick;

	/* UI_SOURCE_GREP */
	struct grep		 *grep;
	char			 *dir;
	char			 *deck;		/* this deck: live runs */
	struct ui_result	 *results;
	int			  runs;		/* with a match */
	char			  last_run[STORE_ID_LEN + 1];
	int			  full;		/* at UI_GREP_KEEP */
	int			  failed;
	char			  head[512];

	/*
	 * UI_SOURCE_MERGE: jobs' runs merged; each job's label and colour,
	 * and the stream of each line of the last read (for its colour).
	 */
	struct logmerge		 *merge;
	int			 *ids;
	char			**labels;
	int			  nlabels;
	size_t			  width;
	int			 *last;
	int64_t			  last_from;
	int			  last_n;
};

/* Make a source of a copy of lines; the first header of them stay apart. */
struct ui_source *
ui_source_new_array(char **lines, int count, int header)
{
	struct ui_source	*src;
	int			 i;

	src = xcalloc(1, sizeof *src);
	src->kind = UI_SOURCE_ARRAY;
	src->lines = xcalloc((size_t)count + 1, sizeof *src->lines);
	for (i = 0; i < count; i++)
		src->lines[i] = xstrdup(lines[i] != NULL ? lines[i] : "");
	src->header = header > 0 && header <= count ? header : 0;
	src->count = count - src->header;
	return src;
}

/* Return whether run i begins with a mark line (it is not a job's first). */
static int
ui_source_has_mark(const struct ui_source *src, int i)
{
	return src->runlist[i].no > 1;
}

/* Return the number of lines of run i's block, its mark included. */
static int64_t
ui_source_block(const struct ui_source *src, int i)
{
	const struct ui_run	*r = &src->runlist[i];

	return ui_source_has_mark(src, i) + (r->error != NULL ? 1 :
	    r->count - r->origin + (r->damage != NULL));
}

/* Work out the source's first and count from its placed runs. */
static void
ui_source_span(struct ui_source *src)
{
	const struct ui_run	*lo = &src->runlist[src->lo];
	const struct ui_run	*last = &src->runlist[src->nruns - 1];

	src->first = lo->base;
	if (!ui_source_has_mark(src, src->lo) && lo->error == NULL &&
	    lo->first > lo->origin)
		src->first += lo->first - lo->origin;
	src->count = last->base + ui_source_block(src, src->nruns - 1);
}

/* Read run i's start and end from its metadata, once. */
static void
ui_source_run_meta(struct ui_source *src, int i)
{
	struct ui_run		*r = &src->runlist[i];
	struct store_meta	 m;
	char			*cause = NULL;

	if (r->meta)
		return;
	r->meta = 1;
	r->status = WAITSTATUS_NONE;
	if (store_meta_read(src->rundir, r->id, &m, &cause) != 0) {
		free(cause);
		return;
	}
	r->started = m.started;
	if (m.has_status)
		r->status = m.status;
	store_meta_clear(&m);
}

/*
 * Return a reader of run i, kept open among the last used; NULL with
 * *cause if it cannot be opened.
 */
static struct store_reader *
ui_source_reader(struct ui_source *src, int i, char **cause)
{
	struct ui_reader	*slot = &src->rd[0];
	int			 k;

	for (k = 0; k < UI_SOURCE_READERS; k++) {
		if (src->rd[k].r != NULL && src->rd[k].run == i) {
			src->rd[k].used = ++src->tick;
			return src->rd[k].r;
		}
		if (src->rd[k].r == NULL || src->rd[k].used < slot->used)
			slot = &src->rd[k];
	}
	store_reader_close(slot->r);
	slot->run = -1;
	if ((slot->r = store_reader_open(src->rundir, src->runlist[i].id,
	    cause)) == NULL)
		return NULL;
	slot->run = i;
	slot->used = ++src->tick;
	return slot->r;
}

/* Note that run r is damaged in the store, if its reader says so. */
static void
ui_source_damage(struct ui_run *r, struct store_reader *reader)
{
	const char	*why;

	if (r->damage == NULL && (why = store_reader_damage(reader)) != NULL)
		r->damage = xprintf("(%s)", why);
}

/*
 * Place run i with its block starting at base (up: ending there): open
 * it, learn its lines.  A run that cannot be read is placed as one line
 * saying so; returns -1 (with *cause) then.
 */
static int
ui_source_place(struct ui_source *src, int i, int64_t base, int up,
    char **cause)
{
	struct ui_run		*r = &src->runlist[i];
	struct store_reader	*reader;

	if ((reader = ui_source_reader(src, i, cause)) == NULL) {
		r->error = xprintf("(run %s cannot be read: %s)", r->id,
		    *cause);
		r->origin = r->first = r->count = 0;
	} else {
		r->origin = r->first = store_reader_first(reader);
		r->count = store_reader_count(reader);
		ui_source_damage(r, reader);
	}
	r->base = base;
	if (up)
		r->base -= ui_source_block(src, i);
	return r->error != NULL ? -1 : 0;
}

/*
 * Make a source of runs of a job in dir: ids[0..n) oldest first, nos[]
 * their numbers among the job's runs, the view on run anchor (whose lines
 * keep the store's numbers).  NULL with *cause if anchor cannot be read.
 */
struct ui_source *
ui_source_new_runs(const char *dir, const char *const *ids, const int *nos,
    int n, int anchor, char **cause)
{
	struct ui_source	*src;
	int			 i;

	src = xcalloc(1, sizeof *src);
	src->kind = UI_SOURCE_RUN;
	src->rundir = xstrdup(dir);
	src->cap = n;
	src->runlist = xcalloc((size_t)n, sizeof *src->runlist);
	src->nruns = anchor + 1;	/* later ones are added after it */
	for (i = 0; i <= anchor; i++) {
		snprintf(src->runlist[i].id, sizeof src->runlist[i].id, "%s",
		    ids[i]);
		src->runlist[i].no = nos != NULL ? nos[i] : 1;
	}
	for (i = 0; i < UI_SOURCE_READERS; i++)
		src->rd[i].run = -1;
	src->lo = anchor;
	if (ui_source_place(src, anchor, 0, 0, cause) != 0) {
		ui_source_free(src);
		return NULL;
	}
	/* The anchor's lines are numbered as in the store. */
	src->runlist[anchor].base = src->runlist[anchor].first -
	    ui_source_has_mark(src, anchor);
	ui_source_span(src);
	for (i = anchor + 1; i < n; i++)
		ui_source_add_run(src, ids[i], nos != NULL ? nos[i] : 1);
	return src;
}

/* Make a source of a store run; NULL with *cause if it cannot be read. */
struct ui_source *
ui_source_new_run(const char *dir, const char *run, char **cause)
{
	return ui_source_new_runs(dir, &run, NULL, 1, 0, cause);
}

/*
 * Make a source of a job's runs in the store in dir, on its run run (the
 * job's runs before it placed as the view reaches them); a run the job
 * does not remember is shown alone.  NULL with *cause if run cannot be
 * read.
 */
struct ui_source *
ui_source_new_job(const char *dir, const struct job *job, const char *run,
    char **cause)
{
	struct ui_source	 *src;
	const char		**ids;
	int			 *nos, n = job_run_count(job), i;
	int			  anchor = -1;

	for (i = n - 1; i >= 0 && anchor < 0; i--)
		if (strcmp(job_run_nth(job, i, NULL), run) == 0)
			anchor = i;
	if (anchor < 0)
		return ui_source_new_run(dir, run, cause);
	ids = xcalloc((size_t)n, sizeof *ids);
	nos = xcalloc((size_t)n, sizeof *nos);
	for (i = 0; i < n; i++)
		ids[i] = job_run_nth(job, i, &nos[i]);
	src = ui_source_new_runs(dir, ids, nos, n, anchor, cause);
	free(ids);
	free(nos);
	return src;
}

/*
 * Place the runs job started since the source's last one after it;
 * returns whether there was one.
 */
int
ui_source_sync_job(struct ui_source *src, const struct job *job)
{
	const char	*id;
	int		 n = job_run_count(job), i, no, added = 0;

	if (src->kind != UI_SOURCE_RUN)
		return 0;
	for (i = n - 1; i >= 0; i--) {
		id = job_run_nth(job, i, NULL);
		if (strcmp(id, src->runlist[src->nruns - 1].id) == 0)
			break;
	}
	if (i < 0)
		return 0;	/* its last run is not the job's any more */
	for (i++; i < n; i++) {
		id = job_run_nth(job, i, &no);
		added |= ui_source_add_run(src, id, no);
	}
	return added;
}

/*
 * Place the run before the first placed one; returns how many lines came
 * (0: there is none).
 */
int64_t
ui_source_extend(struct ui_source *src)
{
	int64_t	 first = src->first;
	char	*cause = NULL;

	if (src->kind != UI_SOURCE_RUN || src->lo == 0)
		return 0;
	src->lo--;
	ui_source_place(src, src->lo, src->runlist[src->lo + 1].base, 1,
	    &cause);
	free(cause);
	ui_source_span(src);
	return first - src->first;
}

/* Return whether there are runs before the first placed one. */
int
ui_source_more(const struct ui_source *src)
{
	return src->kind == UI_SOURCE_RUN && src->lo > 0;
}

/*
 * A job of a view of its runs started run id (number no among its runs):
 * place it after the last, whose lines are read to their end first.
 * Returns whether it was new.
 */
int
ui_source_add_run(struct ui_source *src, const char *id, int no)
{
	struct ui_run	*r;
	char		*cause = NULL;
	int		 last = src->nruns - 1;

	if (src->kind != UI_SOURCE_RUN ||
	    strcmp(src->runlist[last].id, id) == 0)
		return 0;
	ui_source_refresh(src);
	if (src->nruns == src->cap) {
		src->cap = src->cap * 2 + 1;
		src->runlist = xreallocarray(src->runlist, (size_t)src->cap,
		    sizeof *src->runlist);
	}
	r = &src->runlist[src->nruns++];
	memset(r, 0, sizeof *r);
	snprintf(r->id, sizeof r->id, "%s", id);
	r->no = no;
	ui_source_place(src, src->nruns - 1, src->runlist[last].base +
	    ui_source_block(src, last), 0, &cause);
	free(cause);
	ui_source_span(src);
	return 1;
}

/*
 * Make a source of the results of a grep over the runs in dir (deck is
 * this deck's id, to tell live runs); it takes the grep over.
 */
struct ui_source *
ui_source_new_grep(struct grep *grep, const char *dir, const char *deck)
{
	struct ui_source	*src;

	src = xcalloc(1, sizeof *src);
	src->kind = UI_SOURCE_GREP;
	src->grep = grep;
	src->dir = xstrdup(dir);
	src->deck = xstrdup(deck != NULL ? deck : "");
	return src;
}

/* Free a source and whatever it holds. */
void
ui_source_free(struct ui_source *src)
{
	int64_t	i;

	if (src == NULL)
		return;
	switch (src->kind) {
	case UI_SOURCE_ARRAY:
		for (i = 0; i < src->count + src->header; i++)
			free(src->lines[i]);
		free(src->lines);
		break;
	case UI_SOURCE_RUN:
		for (i = 0; i < UI_SOURCE_READERS; i++)
			store_reader_close(src->rd[i].r);
		for (i = 0; i < src->nruns; i++) {
			free(src->runlist[i].error);
			free(src->runlist[i].damage);
		}
		free(src->runlist);
		free(src->rundir);
		break;
	case UI_SOURCE_MERGE:
		logmerge_free(src->merge);
		for (i = 0; i < src->nlabels; i++)
			free(src->labels[i]);
		free(src->labels);
		free(src->ids);
		free(src->last);
		break;
	case UI_SOURCE_GREP:
		for (i = 0; i < src->count; i++) {
			free(src->results[i].run);
			free(src->results[i].title);
			free(src->results[i].text);
		}
		free(src->results);
		grep_free(src->grep);
		free(src->dir);
		free(src->deck);
		break;
	}
	free(src);
}

/* Look again for new lines of the last run; returns whether any came. */
int
ui_source_refresh(struct ui_source *src)
{
	struct store_reader	*reader;
	struct ui_run		*r;
	int64_t			 first = src->first, count = src->count;
	char			*cause = NULL;

	if (src->kind == UI_SOURCE_MERGE) {
		if (!logmerge_refresh(src->merge))
			return 0;
		src->first = logmerge_first(src->merge);
		src->count = logmerge_count(src->merge);
		return 1;
	}
	if (src->kind != UI_SOURCE_RUN)
		return 0;
	r = &src->runlist[src->nruns - 1];
	if (r->error != NULL)
		return 0;
	if ((reader = ui_source_reader(src, src->nruns - 1, &cause)) == NULL) {
		free(cause);
		return 0;
	}
	if (store_reader_refresh(reader) == 0) {
		/* Lines are added at the end, dropped at the start. */
		if (store_reader_count(reader) > r->count)
			r->count = store_reader_count(reader);
		if (store_reader_first(reader) > r->first)
			r->first = store_reader_first(reader) < r->count ?
			    store_reader_first(reader) : r->count;
	} else if (r->damage == NULL && store_reader_count(reader) >=
	    r->count) {
		/* Damaged after its lines: a line saying so after them. */
		r->count = store_reader_count(reader);
		ui_source_damage(r, reader);
	}
	ui_source_span(src);
	return src->first != first || src->count != count;
}

/* Return the number of the first body line (lines before it were dropped). */
int64_t
ui_source_first(const struct ui_source *src)
{
	return src->first;
}

/* Return the number after the last body line. */
int64_t
ui_source_count(const struct ui_source *src)
{
	return src->count;
}

/*
 * Tell where view line no is in a source of several runs (or of a run
 * after a job's first): its run's number among the job's runs in *run,
 * the last placed run's in *last, its line in the run from 0 in *line and
 * the run's lines in *lines.  Returns 1 for a line, 0 for a run's mark,
 * -1 when the source is not of runs like that.
 */
int
ui_source_where(const struct ui_source *src, int64_t no, int *run,
    int *last, int64_t *line, int64_t *lines)
{
	const struct ui_run	*r;
	int			 lo, hi, mid, mark;

	if (src->kind != UI_SOURCE_RUN || (src->nruns == 1 &&
	    !ui_source_has_mark(src, 0)))
		return -1;
	/* The last placed run whose block starts at or before no. */
	lo = src->lo;
	hi = src->nruns - 1;
	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		if (src->runlist[mid].base <= no)
			lo = mid;
		else
			hi = mid - 1;
	}
	r = &src->runlist[lo];
	mark = ui_source_has_mark(src, lo);
	*run = r->no;
	*last = src->runlist[src->nruns - 1].no;
	*lines = r->error != NULL ? 1 : r->count;
	*line = no - r->base - mark + r->origin;
	if (*line < 0)
		*line = 0;
	return mark && no == r->base ? 0 : 1;
}

/* Return whether the source's lines carry the time they were written. */
int
ui_source_has_times(const struct ui_source *src)
{
	return src->kind == UI_SOURCE_RUN || src->kind == UI_SOURCE_MERGE;
}

/* Return how many header lines the source has. */
int
ui_source_headers(const struct ui_source *src)
{
	if (src->kind == UI_SOURCE_GREP)
		return 1;
	return src->header;
}

/* Return header line i. */
const char *
ui_source_header(struct ui_source *src, int i)
{
	const char	*pattern;
	uint64_t	 mb;
	size_t		 len;
	int		 damaged;

	if (src->kind == UI_SOURCE_ARRAY)
		return i < src->header ? src->lines[i] : "";
	if (src->kind != UI_SOURCE_GREP)
		return "";
	pattern = grep_pattern(src->grep);
	mb = grep_bytes(src->grep) / (1024 * 1024);
	if (src->failed)
		snprintf(src->head, sizeof src->head, "grep %s: the search "
		    "failed after %lld matches in %d runs", pattern,
		    (long long)src->count, src->runs);
	else if (src->full)
		snprintf(src->head, sizeof src->head, "grep %s: stopped at "
		    "10,000 matches (%d runs)", pattern, src->runs);
	else if (!grep_done(src->grep))
		snprintf(src->head, sizeof src->head, "grep %s: searching… "
		    "%d runs, %llu MB", pattern, src->runs,
		    (unsigned long long)mb);
	else
		snprintf(src->head, sizeof src->head, "grep %s: %lld match%s "
		    "in %d run%s", pattern, (long long)src->count,
		    src->count == 1 ? "" : "es", src->runs,
		    src->runs == 1 ? "" : "s");
	if ((damaged = grep_damaged(src->grep, NULL)) > 0) {
		len = strlen(src->head);
		snprintf(src->head + len, sizeof src->head - len, " (%d "
		    "damaged run%s, searched up to the damage)", damaged,
		    damaged == 1 ? "" : "s");
	}
	return src->head;
}

/*
 * Read run i's lines at view lines [from, to) (inside its block) into
 * out, at index view line - off: its lines from the store, then the line
 * saying it is damaged.  Damage found as it is read ends the last run
 * there (the source is shorter from then on); in a run before others, a
 * line past it says what the damage is when it is the first such, and
 * the rest stay empty.  0 or -1.
 */
static int
ui_source_get_run(struct ui_source *src, int i, int64_t from, int64_t to,
    struct store_line *out, int64_t off)
{
	struct ui_run		*r = &src->runlist[i];
	struct store_reader	*reader;
	struct store_line	*got = NULL, *l;
	int64_t			 start, s0, s1, v, cut;
	const char		*why;
	char			*cause = NULL;
	int			 n = 0, k;

	start = r->base + ui_source_has_mark(src, i);
	if (r->error != NULL) {
		if (start < from || start >= to)
			return 0;
		l = &out[start - off];
		l->text = xstrdup(r->error);
		l->len = strlen(l->text);
		return 0;
	}
	if (r->damage != NULL) {
		v = start + r->count - r->origin;
		if (v >= from && v < to) {
			l = &out[v - off];
			l->text = xstrdup(r->damage);
			l->len = strlen(l->text);
		}
	}
	s0 = r->origin + (from - start);
	s1 = r->origin + (to - start);
	if (s1 > r->count)
		s1 = r->count;
	if (s0 < r->first)
		s0 = r->first;
	if (s0 >= s1)
		return 0;
	if ((reader = ui_source_reader(src, i, &cause)) == NULL) {
		free(cause);
		return -1;
	}
	if (store_reader_get(reader, s0, s1, STORE_TEXT, &got, &n) != 0)
		n = 0;
	for (k = 0; k < n; k++) {
		v = start + (got[k].no - r->origin);
		if (v < from || v >= to) {
			free(got[k].text);
			continue;
		}
		l = &out[v - off];
		*l = got[k];
		l->no = v;
	}
	free(got);
	cut = store_reader_count(reader);
	if ((why = store_reader_damage(reader)) == NULL || cut >= r->count)
		return 0;
	if (i == src->nruns - 1 && r->damage == NULL) {
		/* Damage found now in the last run: it ends there, so said. */
		r->count = cut > r->origin ? cut : r->origin;
		if (r->first > r->count)
			r->first = r->count;
		r->damage = xprintf("(%s)", why);
		ui_source_span(src);
		return 0;
	}
	/* In a run before others: its first line unread says what it is. */
	if (cut >= s0 && cut < s1) {
		l = &out[start + (cut - r->origin) - off];
		free(l->text);
		l->text = xprintf("(%s)", why);
		l->len = strlen(l->text);
	}
	return 0;
}

/*
 * Get view lines [from, to) of a source of runs: each run's mark, its
 * lines, and an empty line for any the store no longer has.
 */
static int
ui_source_get_runs(struct ui_source *src, int64_t from, int64_t to,
    struct store_line **lines, int *n)
{
	struct store_line	*out;
	struct ui_run		*r;
	char			 mark[JOB_MARK_MAX];
	int64_t			 end, a, b, v;
	int			 i, last;

	out = xcalloc((size_t)(to - from), sizeof *out);
	for (i = src->lo; i < src->nruns; i++) {
		r = &src->runlist[i];
		end = r->base + ui_source_block(src, i);
		if (end <= from)
			continue;
		if (r->base >= to)
			break;
		if (ui_source_has_mark(src, i) && r->base >= from) {
			ui_source_run_meta(src, i);
			last = WAITSTATUS_NONE;
			if (i > 0 && src->runlist[i - 1].no == r->no - 1) {
				ui_source_run_meta(src, i - 1);
				last = src->runlist[i - 1].status;
			}
			job_format_run_mark(r->no, r->started, last, mark,
			    sizeof mark);
			out[r->base - from].text = xstrdup(mark);
			out[r->base - from].len = strlen(mark);
			out[r->base - from].time = r->started;
		}
		a = from > r->base ? from : r->base;
		b = to < end ? to : end;
		if (ui_source_get_run(src, i, a, b, out, from) != 0) {
			store_lines_free(out, (int)(to - from));
			return -1;
		}
	}
	for (v = from; v < to; v++) {
		out[v - from].no = v;
		if (out[v - from].text == NULL)
			out[v - from].text = xstrdup("");
	}
	*lines = out;
	*n = (int)(to - from);
	return 0;
}

/*
 * Make a source of the logs of jobs ids[0..n) of jt merged in time order
 * (their current runs, and later ones as they start: ui_source_sync()),
 * in the store in dir.
 */
struct ui_source *
ui_source_new_merge(const char *dir, struct jobtable *jt, const int *ids,
    int n)
{
	struct ui_source	*src;
	struct job		*job;
	size_t			 len;
	int			 i, k;

	src = xcalloc(1, sizeof *src);
	src->kind = UI_SOURCE_MERGE;
	src->merge = logmerge_new(dir);
	src->ids = xcalloc((size_t)n, sizeof *src->ids);
	src->labels = xcalloc((size_t)n, sizeof *src->labels);
	src->nlabels = n;
	for (i = 0; i < n; i++) {
		src->ids[i] = ids[i];
		job = NULL;
		for (k = 0; k < jobtable_count(jt) && job == NULL; k++)
			if (job_id(jobtable_get(jt, k)) == ids[i])
				job = jobtable_get(jt, k);
		src->labels[i] = lineprefix_label(job != NULL ?
		    job_name(job) : NULL, ids[i]);
		if ((len = strlen(src->labels[i])) > src->width)
			src->width = len;
	}
	ui_source_sync(src, jt);
	return src;
}

/*
 * Add to a merged source the runs its jobs started since; returns
 * whether one came.
 */
int
ui_source_sync(struct ui_source *src, struct jobtable *jt)
{
	if (src->kind != UI_SOURCE_MERGE ||
	    !cmd_logs_merge_sync(src->merge, jt, src->ids, src->nlabels))
		return 0;
	src->first = logmerge_first(src->merge);
	src->count = logmerge_count(src->merge);
	return 1;
}

/*
 * Get merged lines [from, to): each line's text after its job's prefix;
 * each line's job kept for its colour (ui_source_label()).
 */
static int
ui_source_get_merge(struct ui_source *src, int64_t from, int64_t to,
    struct store_line **lines, int *n)
{
	struct xbuf		 b = { NULL, 0, 0 };
	struct store_line	*l;
	int			*streams, i, k;

	if (logmerge_get(src->merge, from, to, STORE_TEXT, lines, &streams,
	    n) != 0)
		return -1;
	free(src->last);
	src->last = xcalloc((size_t)*n + 1, sizeof *src->last);
	src->last_from = from;
	src->last_n = *n;
	for (i = 0; i < *n; i++) {
		l = &(*lines)[i];
		k = logmerge_label(src->merge, streams[i]);
		src->last[i] = k;
		lineprefix_add(&b, NULL, src->labels[k], src->width,
		    LINEPREFIX_NONE);
		xbuf_add(&b, l->text, l->len);
		free(l->text);
		l->text = b.s;
		l->len = b.len;
		b.s = NULL;
		b.len = b.size = 0;
	}
	free(streams);
	return 0;
}

/*
 * Tell the prefix of line no of a merged source, as last read: its
 * length in bytes in *len; returns its colour (a palette index), or -1
 * when the line has none.
 */
int
ui_source_label(const struct ui_source *src, int64_t no, size_t *len)
{
	if (src->kind != UI_SOURCE_MERGE || no < src->last_from ||
	    no >= src->last_from + src->last_n)
		return -1;
	*len = src->width + 3;
	return lineprefix_colour(src->last[no - src->last_from]);
}

/*
 * Get body lines [from, to) (clipped to the source) into *lines, *n of
 * them; 0, or -1 if the store cannot be read.  Give them back with
 * ui_source_put().  Texts of an array or results source are borrowed.
 */
int
ui_source_get(struct ui_source *src, int64_t from, int64_t to,
    struct store_line **lines, int *n)
{
	struct store_line	*l;
	int64_t			 i;

	*lines = NULL;
	*n = 0;
	if (from < src->first)
		from = src->first;
	if (to > src->count)
		to = src->count;
	if (from >= to)
		return 0;
	if (src->kind == UI_SOURCE_RUN)
		return ui_source_get_runs(src, from, to, lines, n);
	if (src->kind == UI_SOURCE_MERGE)
		return ui_source_get_merge(src, from, to, lines, n);
	l = xcalloc((size_t)(to - from), sizeof *l);
	for (i = from; i < to; i++) {
		l[i - from].no = i;
		if (src->kind == UI_SOURCE_ARRAY)
			l[i - from].text = src->lines[src->header + i];
		else
			l[i - from].text = src->results[i].text;
		l[i - from].len = strlen(l[i - from].text);
	}
	*lines = l;
	*n = (int)(to - from);
	return 0;
}

/* Give back lines from ui_source_get(). */
void
ui_source_put(struct ui_source *src, struct store_line *lines, int n)
{
	if (src->kind == UI_SOURCE_RUN || src->kind == UI_SOURCE_MERGE)
		store_lines_free(lines, n);
	else
		free(lines);
}

/* Return the fixed mark of line no in *so, *eo (a grep's match), or 0. */
int
ui_source_mark(const struct ui_source *src, int64_t no, size_t *so,
    size_t *eo)
{
	if (src->kind != UI_SOURCE_GREP || no < 0 || no >= src->count)
		return 0;
	*so = src->results[no].so;
	*eo = src->results[no].eo;
	return 1;
}

/* Return whether the lines open runs (a results view). */
int
ui_source_has_targets(const struct ui_source *src)
{
	return src->kind == UI_SOURCE_GREP;
}

/*
 * Tell which run line no opens: its directory, run, line, title and
 * whether it is live; 0 if none.  The strings belong to the source.
 */
int
ui_source_target(const struct ui_source *src, int64_t no, const char **dir,
    const char **run, int64_t *line, const char **title, int *live)
{
	const struct ui_result	*r;

	if (src->kind != UI_SOURCE_GREP || no < 0 || no >= src->count)
		return 0;
	r = &src->results[no];
	*dir = src->dir;
	*run = r->run;
	*line = r->line;
	*title = r->title;
	*live = r->live;
	return 1;
}

/* Return the name a run is shown with: its name, command or program. */
static const char *
ui_source_run_name(const struct store_meta *meta)
{
	if (meta->name != NULL && *meta->name != '\0')
		return meta->name;
	if (meta->command != NULL)
		return meta->command;
	if (meta->argv != NULL && meta->argv[0] != NULL)
		return meta->argv[0];
	return "?";
}

/* Keep one match of a grep as a result line; non-zero once full. */
static int
ui_source_grep_match(const struct grep_match *m, void *arg)
{
	struct ui_source	*src = arg;
	struct ui_result	*r;
	const char		*name = ui_source_run_name(m->meta);
	char			 when[16], *head;
	size_t			 start = 0, len = m->len, hlen;

	if (src->count >= UI_GREP_KEEP) {
		src->full = 1;
		return 1;
	}
	/* A long line: a window around the match, on a character start. */
	if (len > UI_GREP_TEXT) {
		if (m->so > UI_GREP_BEFORE)
			start = m->so - UI_GREP_BEFORE;
		while (start > 0 && start < m->len &&
		    (m->text[start] & 0xc0) == 0x80)
			start++;
		len = m->len - start < UI_GREP_TEXT ? m->len - start :
		    UI_GREP_TEXT;
	}
	if (strcmp(m->run, src->last_run) != 0) {
		snprintf(src->last_run, sizeof src->last_run, "%s", m->run);
		src->runs++;
	}
	if ((src->count & (src->count - 1)) == 0)
		src->results = xreallocarray(src->results,
		    src->count == 0 ? 1 : (size_t)src->count * 2,
		    sizeof *src->results);
	r = &src->results[src->count];
	job_format_clock(m->time, 0, when, sizeof when);
	head = xprintf("[%d] %s  %s  %lld: %s", m->meta->job, name, when,
	    (long long)m->line + 1, start > 0 ? "…" : "");
	hlen = strlen(head);
	r->text = xmalloc(hlen + len + 1);
	memcpy(r->text, head, hlen);
	memcpy(r->text + hlen, m->text + start, len);
	r->text[hlen + len] = '\0';
	r->len = hlen + len;
	r->so = hlen + (m->so - start);
	r->eo = hlen + (m->eo - start < len ? m->eo - start : len);
	free(head);
	r->run = xstrdup(m->run);
	r->line = m->line;
	r->title = xprintf("Logs [%d] %s", m->meta->job, name);
	r->live = m->meta->ended == 0 && strcmp(m->meta->deck, src->deck) == 0;
	src->count++;
	return 0;
}

/*
 * Step a results source's search by about budget bytes; returns whether
 * there is more to do.
 */
int
ui_source_step(struct ui_source *src, size_t budget)
{
	static const struct grep_cbs	cbs = {
		.match = ui_source_grep_match
	};

	if (src->kind != UI_SOURCE_GREP || src->full || src->failed ||
	    grep_done(src->grep))
		return 0;
	if (grep_step(src->grep, budget, &cbs, src) < 0)
		src->failed = 1;
	return !src->full && !src->failed && !grep_done(src->grep);
}
