/*
 * ui-source.c: where a text view's lines come from.  Three kinds behind
 * one set of functions: an array of lines (!ps, !help), a run of the
 * output store read a screen at a time through a store_reader (so a view
 * of a run of any size holds only the lines it shows), and the results of
 * a grep, collected as the search is stepped.  Body lines are numbered
 * [first, count) as the store numbers them; header lines are apart.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grep.h"
#include "store.h"
#include "ui-private.h"
#include "xmalloc.h"

#define UI_GREP_KEEP	10000	/* matches a results view keeps */
#define UI_GREP_TEXT	1024	/* bytes of a matching line kept */
#define UI_GREP_BEFORE	256	/* of them before the match, if cut */

enum ui_source_kind {
	UI_SOURCE_ARRAY,
	UI_SOURCE_RUN,
	UI_SOURCE_GREP
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

struct ui_source {
	enum ui_source_kind	 kind;
	int64_t			 first;
	int64_t			 count;

	/* UI_SOURCE_ARRAY: the first header lines are the header. */
	char			**lines;
	int			  header;

	/* UI_SOURCE_RUN */
	struct store_reader	 *reader;

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
};

/* Format wall ms as local HH:MM:SS, with .mmm if millis is set. */
void
ui_format_time(int64_t ms, int millis, char *buf, size_t size)
{
	struct tm	tm;
	time_t		t = (time_t)(ms / 1000);

	if (localtime_r(&t, &tm) == NULL) {
		snprintf(buf, size, "%s", millis ? "--:--:--.---" : "--:--:--");
		return;
	}
	if (millis)
		snprintf(buf, size, "%02d:%02d:%02d.%03d", tm.tm_hour,
		    tm.tm_min, tm.tm_sec, (int)(ms % 1000));
	else
		snprintf(buf, size, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min,
		    tm.tm_sec);
}

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

/* Make a source of a store run; NULL with *cause if it cannot be read. */
struct ui_source *
ui_source_new_run(const char *dir, const char *run, char **cause)
{
	struct ui_source	*src;
	struct store_reader	*reader;

	if ((reader = store_reader_open(dir, run, cause)) == NULL)
		return NULL;
	src = xcalloc(1, sizeof *src);
	src->kind = UI_SOURCE_RUN;
	src->reader = reader;
	src->first = store_reader_first(reader);
	src->count = store_reader_count(reader);
	return src;
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
		store_reader_close(src->reader);
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

/* Look again for new lines of a live run; returns whether any came. */
int
ui_source_refresh(struct ui_source *src)
{
	int64_t	first = src->first, count = src->count;

	if (src->kind != UI_SOURCE_RUN)
		return 0;
	if (store_reader_refresh(src->reader) == 0) {
		src->first = store_reader_first(src->reader);
		src->count = store_reader_count(src->reader);
	}
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

/* Return whether the source's lines carry the time they were written. */
int
ui_source_has_times(const struct ui_source *src)
{
	return src->kind == UI_SOURCE_RUN;
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
	return src->head;
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
		return store_reader_get(src->reader, from, to, STORE_TEXT,
		    lines, n);
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
	if (src->kind == UI_SOURCE_RUN)
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
	ui_format_time(m->time, 0, when, sizeof when);
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
