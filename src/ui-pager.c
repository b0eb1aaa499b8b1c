/*
 * ui-pager.c: the full-screen text view that !ps, !logs, !help and !grep
 * open.  Its lines come from a source (ui-source.c): a copy of the lines it
 * is given, a run of the output store read a screen at a time, or a grep's
 * results.  Its keys are the bindings of the view mode (bind.c): moves by
 * line, half page, page and to either end; searches with / and ? (n, N
 * repeat) a batch of lines a loop turn; shows line numbers and times;
 * follows a live run's new lines until scrolled up.  A view of a job's
 * run reaches its earlier runs as it moves up (and its search goes on
 * into them), and one that follows goes on into the runs the job starts
 * later.  A search forward from the live end (following, or copy mode's
 * cursor on the last line), where nothing is ahead, searches back
 * instead, so the first match is the newest.  Copy mode
 * (ui-copy.c) is the same view drawn in the pane with a cursor, the keys
 * of the copy mode and a selection.  ui-pager-draw.c draws it.
 */
#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "grep.h"
#include "job.h"
#include "jobtable.h"
#include "lineedit.h"
#include "loop.h"
#include "store.h"
#include "ui-private.h"
#include "xmalloc.h"

#define UI_PAGER_BATCH_MAX	8192	/* lines a search reads at once */
#define UI_PAGER_BATCH_BYTES	(1024 * 1024)	/* or about this much */
#define UI_PAGER_SEARCH_MS	20	/* a search's turn at most */
#define UI_PAGER_NO_MATCH	INT64_MIN	/* no line matched yet */

static void	ui_pager_arm(struct ui *);
static void	ui_pager_rerun(struct ui *);
static void	ui_pager_search_step(struct ui *);

/* Mark the whole screen for drawing, now if urgent. */
static void
ui_pager_dirty(struct ui *ui, int urgent)
{
	ui->flags |= UI_DRAW_ALL;
	if (urgent)
		ui->flags |= UI_URGENT;
}

/* Free one view and what it holds; its timer goes too. */
static void
ui_pager_free(struct ui *ui, struct ui_pager *p)
{
	if (p->timer != 0)
		loop_cancel_timer(ui->loop, p->timer);
	ui_source_free(p->src);
	grep_free(p->matcher);
	if (p->edit != NULL)
		lineedit_free(p->edit);
	free(p->pattern);
	free(p->title);
	free(p->refresh);
	free(p);
}

/* Put a new view on top of the open ones (under stops meanwhile). */
struct ui_pager *
ui_pager_push(struct ui *ui, const char *title, struct ui_source *src)
{
	struct ui_pager	*p;

	p = xcalloc(1, sizeof *p);
	p->title = xstrdup(title);
	p->src = src;
	p->top = ui_source_first(src);
	p->cursor = ui_source_first(src);
	p->match = UI_PAGER_NO_MATCH;
	p->under = ui->pager;
	if (p->under != NULL && p->under->timer != 0) {
		loop_cancel_timer(ui->loop, p->under->timer);
		p->under->timer = 0;
	}
	ui->pager = p;
	ui_pager_dirty(ui, 1);
	return p;
}

/*
 * Fill r with where the top view is drawn, borders included: the pane in
 * copy mode, else the whole screen above the bottom line.
 */
void
ui_pager_rect(const struct ui *ui, struct ui_rect *r)
{
	if (ui->pager != NULL && (ui->pager->flags & UI_PAGER_COPY)) {
		*r = ui->pane;
		return;
	}
	r->y = 0;
	r->x = 0;
	r->h = ui->rows - 1;
	r->w = ui->cols;
}

/* Return the number of body rows a view has on this screen. */
int
ui_pager_body(const struct ui *ui)
{
	struct ui_rect	r;
	int		body;

	ui_pager_rect(ui, &r);
	body = r.h - 2;
	if (ui->pager != NULL)
		body -= ui_source_headers(ui->pager->src);
	return body > 1 ? body : 1;
}

/* Tell whether the view moves a cursor line (results, copy mode). */
static int
ui_pager_has_cursor(const struct ui_pager *p)
{
	return ui_source_has_targets(p->src) || (p->flags & UI_PAGER_COPY);
}

/*
 * Place earlier runs before the view's lines until line no is among them
 * or there are none (all of them for INT64_MIN).
 */
static void
ui_pager_reach(struct ui *ui, int64_t no)
{
	struct ui_pager	*p = ui->pager;

	while (no < ui_source_first(p->src) && ui_source_more(p->src))
		ui_source_extend(p->src);
}

/* Return the job whose runs the top view shows, or NULL (gone, none). */
static struct job *
ui_pager_job(struct ui *ui)
{
	struct job	*job;
	int		 i, n = jobtable_count(ui->jt);

	for (i = 0; ui->pager->job != 0 && i < n; i++) {
		job = jobtable_get(ui->jt, i);
		if (job_id(job) == ui->pager->job)
			return job;
	}
	return NULL;
}

/*
 * Look for new lines of the view's last run, and for runs its job started
 * since; returns whether any came.
 */
static int
ui_pager_refresh(struct ui *ui)
{
	struct ui_pager	*p = ui->pager;
	struct job	*job;
	int		 more;

	more = ui_source_refresh(p->src);
	if ((p->flags & UI_PAGER_LIVE) && (job = ui_pager_job(ui)) != NULL)
		more |= ui_source_sync_job(p->src, job);
	return more;
}

/*
 * Return the last top line a view may have: the end's page, filled with
 * earlier runs when the last is shorter.
 */
static int64_t
ui_pager_max_top(struct ui *ui)
{
	struct ui_pager	*p = ui->pager;
	int64_t		 max;

	max = ui_source_count(p->src) - ui_pager_body(ui);
	ui_pager_reach(ui, max);
	return max > ui_source_first(p->src) ? max : ui_source_first(p->src);
}

/* Move the view to top, kept within the text; above the end, stop following. */
static void
ui_pager_move(struct ui *ui, int64_t top)
{
	struct ui_pager	*p = ui->pager;
	int64_t		 max = ui_pager_max_top(ui);

	if (top > max)
		top = max;
	ui_pager_reach(ui, top);
	if (top < ui_source_first(p->src))
		top = ui_source_first(p->src);
	p->top = top;
	if (top < max)
		p->flags &= ~UI_PAGER_FOLLOW;
	ui_pager_dirty(ui, 1);
}

/* Move the cursor line of a view that has one, keeping it on the screen. */
void
ui_pager_choose(struct ui *ui, int64_t cursor)
{
	struct ui_pager	*p = ui->pager;
	int64_t		 first, last = ui_source_count(p->src) - 1;
	int		 body = ui_pager_body(ui);

	ui_pager_reach(ui, cursor);
	first = ui_source_first(p->src);
	if (cursor > last)
		cursor = last;
	if (cursor < first)
		cursor = first;
	p->cursor = cursor;
	if (cursor < p->top)
		ui_pager_move(ui, cursor);
	else if (cursor >= p->top + body)
		ui_pager_move(ui, cursor - body + 1);
	ui_pager_dirty(ui, 1);
}

/* Scroll by delta lines: the chosen line of a results view, else the top. */
void
ui_pager_scroll(struct ui *ui, int64_t delta)
{
	struct ui_pager	*p = ui->pager;

	if (ui_pager_has_cursor(p))
		ui_pager_choose(ui, p->cursor + delta);
	else
		ui_pager_move(ui, p->top + delta);
}

/* Go to the end; a live run is followed from there. */
static void
ui_pager_end(struct ui *ui, int follow)
{
	struct ui_pager	*p = ui->pager;

	ui_pager_refresh(ui);
	if (ui_pager_has_cursor(p))
		ui_pager_choose(ui, ui_source_count(p->src));
	else
		ui_pager_move(ui, ui_pager_max_top(ui));
	if (follow && (p->flags & UI_PAGER_LIVE))
		p->flags |= UI_PAGER_FOLLOW;
	ui_pager_arm(ui);
}

/* Set the view's status line (the bottom row). */
void
ui_pager_status(struct ui *ui, int error, const char *fmt, ...)
{
	struct ui_pager	*p = ui->pager;
	va_list		 ap;

	va_start(ap, fmt);
	vsnprintf(p->status, sizeof p->status, fmt, ap);
	va_end(ap);
	p->status_error = error;
	ui_pager_dirty(ui, 1);
}

/* The view's timer: step a search or a grep, follow new lines. */
static void
ui_pager_timer_cb(void *arg)
{
	struct ui	*ui = arg;
	struct ui_pager	*p = ui->pager;

	if (p == NULL)
		return;
	p->timer = 0;
	if (p->searching != 0)
		ui_pager_search_step(ui);
	if (p->flags & UI_PAGER_GREPPING) {
		if (!ui_source_step(p->src, UI_PAGER_GREP_BYTES))
			p->flags &= ~UI_PAGER_GREPPING;
		ui_pager_dirty(ui, 0);
	}
	if ((p->flags & UI_PAGER_FOLLOW) && ui_pager_refresh(ui)) {
		p->top = ui_pager_max_top(ui);
		ui_pager_dirty(ui, 0);
	}
	ui_pager_rerun(ui);
	ui_pager_arm(ui);
}

/*
 * Arm the top view's timer if it has work: at once for a search or a grep,
 * every UI_PAGER_FOLLOW_MS while it follows a live run.
 */
static void
ui_pager_arm(struct ui *ui)
{
	struct ui_pager	*p = ui->pager;
	int64_t		 ms;

	if (p == NULL || p->timer != 0)
		return;
	if (p->searching != 0 || (p->flags & UI_PAGER_GREPPING))
		ms = 0;
	else if ((p->flags & (UI_PAGER_FOLLOW | UI_PAGER_LIVE)) ==
	    (UI_PAGER_FOLLOW | UI_PAGER_LIVE))
		ms = UI_PAGER_FOLLOW_MS;
	else if (p->refresh != NULL)
		ms = UI_TICK_MS;
	else
		return;
	p->timer = loop_add_timer(ui->loop, ms, ui_pager_timer_cb, ui);
}

/*
 * Open the view on a copy of lines, replacing any view already open; the
 * first header lines stay in sight as the rest scrolls.
 */
void
ui_pager_open(struct ui *ui, const char *title, char **lines, int count,
    int header)
{
	ui_pager_close(ui);
	ui_pager_push(ui, title, ui_source_new_array(lines, count, header));
}

/*
 * A live view (!ps): run its command again, whose show comes back to
 * ui_pager_set_lines() while ui->refreshing is set.
 */
static void
ui_pager_rerun(struct ui *ui)
{
	struct ui_pager	*p = ui->pager;
	char		*line;

	if (p == NULL || p->refresh == NULL || p->searching != 0)
		return;
	line = xstrdup(p->refresh);
	ui->refreshing = 1;
	cmd_run_line(&ui->ctx, line);
	ui->refreshing = 0;
	free(line);
}

/* Make the top view live: its command runs again every second. */
void
ui_pager_live(struct ui *ui, const char *command)
{
	struct ui_pager	*p = ui->pager;

	if (p == NULL)
		return;
	free(p->refresh);
	p->refresh = xstrdup(command);
	ui_pager_arm(ui);
}

/*
 * Give the top view new lines from its command run again, keeping its
 * place and its search; a view that was closed meanwhile takes nothing.
 */
void
ui_pager_set_lines(struct ui *ui, char **lines, int count, int header)
{
	struct ui_pager	*p = ui->pager;

	if (p == NULL || p->refresh == NULL)
		return;
	ui_source_free(p->src);
	p->src = ui_source_new_array(lines, count, header);
	if (p->top > ui_pager_max_top(ui))
		p->top = ui_pager_max_top(ui);
	ui_pager_dirty(ui, 0);
}

/*
 * Open the view on run of the store in dir at line (-1: the end),
 * replacing any view already open; a live run opened at its end is
 * followed.  The last run of a job of this deck comes with the job's
 * earlier runs before it and, live, the later ones after it.  0, or -1
 * with *cause if the run cannot be read.
 */
int
ui_pager_open_run(struct ui *ui, const char *title, const char *dir,
    const char *run, int64_t line, int live, char **cause)
{
	struct ui_source	*src;
	struct job		*job = NULL;
	const char		*id;
	int			 i, n = jobtable_count(ui->jt);

	for (i = 0; i < n && job == NULL; i++) {
		job = jobtable_get(ui->jt, i);
		id = job_run_id(job);
		if (id == NULL || strcmp(id, run) != 0 ||
		    strcmp(job_store_dir(job), dir) != 0)
			job = NULL;
	}
	if (job != NULL)
		src = ui_source_new_job(dir, job, run, cause);
	else
		src = ui_source_new_run(dir, run, cause);
	if (src == NULL)
		return -1;
	ui_pager_close(ui);
	ui_pager_push(ui, title, src);
	if (job != NULL)
		ui->pager->job = job_id(job);
	if (live)
		ui->pager->flags |= UI_PAGER_LIVE;
	if (line < 0)
		ui_pager_end(ui, 1);
	else
		ui_pager_move(ui, line);
	return 0;
}

/*
 * Open a results view on a grep (taken over, failing or not), replacing
 * any view already open; the search goes on from the view's timer while
 * the view is on top.  0, or -1 with *cause.
 */
int
ui_pager_open_grep(struct ui *ui, struct grep *grep, char **cause)
{
	struct store	*store = jobtable_store(ui->jt);
	char		*title;

	if (store == NULL) {
		grep_free(grep);
		*cause = xstrdup("no output store (logging is off)");
		return -1;
	}
	ui_pager_close(ui);
	title = xprintf("grep %s", grep_pattern(grep));
	ui_pager_push(ui, title, ui_source_new_grep(grep, store_dir(store),
	    store_deck(store)));
	free(title);
	ui->pager->flags |= UI_PAGER_GREPPING;
	ui_pager_arm(ui);
	return 0;
}

/* Close the top view; the one it was opened from comes back. */
void
ui_pager_pop(struct ui *ui)
{
	struct ui_pager	*p = ui->pager;

	if (p == NULL)
		return;
	ui->pager = p->under;
	ui_pager_free(ui, p);
	ui_pager_arm(ui);
	ui_pager_dirty(ui, 1);
}

/* Close every view, if one is open. */
void
ui_pager_close(struct ui *ui)
{
	while (ui->pager != NULL)
		ui_pager_pop(ui);
}

/* Open the run a results view's chosen line found, over the results. */
static void
ui_pager_open_target(struct ui *ui)
{
	struct ui_pager		*p = ui->pager;
	struct ui_source	*src;
	const char		*dir, *run, *title;
	char			*cause = NULL;
	int64_t			 line;
	int			 live;

	if (!ui_source_target(p->src, p->cursor, &dir, &run, &line, &title,
	    &live))
		return;
	if ((src = ui_source_new_run(dir, run, &cause)) == NULL) {
		ui_pager_status(ui, 1, "%s", cause);
		free(cause);
		return;
	}
	ui_pager_push(ui, title, src);
	if (live)
		ui->pager->flags |= UI_PAGER_LIVE;
	ui->pager->match = line;
	ui_pager_move(ui, line - ui_pager_body(ui) / 2);
}

/* Tell whether a pattern has a capital letter (then case matters). */
static int
ui_pager_has_capital(const char *s)
{
	mbstate_t	mbs;
	wchar_t		wc;
	size_t		n, len = strlen(s);

	memset(&mbs, 0, sizeof mbs);
	while (len > 0) {
		n = mbrtowc(&wc, s, len, &mbs);
		if (n == (size_t)-1 || n == (size_t)-2 || n == 0)
			return 0;
		if (iswupper((wint_t)wc))
			return 1;
		s += n;
		len -= n;
	}
	return 0;
}

/*
 * Make the matcher of a search: an extended regular expression, ignoring
 * case unless it has a capital.  NULL with *cause if it is no pattern.
 */
static struct grep *
ui_pager_matcher(struct ui *ui, const char *pattern, char **cause)
{
	static char *const	 none[] = { NULL };
	struct store		*store = jobtable_store(ui->jt);
	int			 flags = GREP_EXTENDED;

	if (!ui_pager_has_capital(pattern))
		flags |= GREP_ICASE;
	/* A list of no runs: only its matcher is used. */
	return grep_new(store != NULL ? store_dir(store) : "", pattern, flags,
	    none, 0, cause);
}

/* Tell whether a line matches the view's search. */
int
ui_pager_line_match(const struct ui_pager *p, const char *text, size_t len,
    size_t *so, size_t *eo)
{
	if (p->matcher == NULL)
		return 0;
	return grep_line_match(p->matcher, text, len, so, eo) > 0;
}

/* Start a search for the view's pattern from line from, forward or not. */
static void
ui_pager_search_from(struct ui *ui, int64_t from, int forward)
{
	struct ui_pager	*p = ui->pager;
	int64_t		 first, count;

	ui_pager_refresh(ui);
	first = ui_source_first(p->src);
	count = ui_source_count(p->src);
	p->searching = forward ? 1 : -1;
	p->search_at = from;
	p->search_total = p->search_left = count - first;
	p->wrapped = 0;
	p->status[0] = '\0';
	ui_pager_search_step(ui);
	ui_pager_arm(ui);
}

/*
 * Search again for the last pattern, the same way or (reverse) the other:
 * in copy mode from the cursor's line, else from the last match if it is
 * on the screen, else from the top line (forward) or the line above it.
 */
static void
ui_pager_search_again(struct ui *ui, int reverse)
{
	struct ui_pager	*p = ui->pager;
	int		 forward = p->backward == reverse;
	int		 body = ui_pager_body(ui);
	int64_t		 from;

	if (p->matcher == NULL) {
		ui_pager_status(ui, 1, "No previous search");
		return;
	}
	if (p->flags & UI_PAGER_COPY)
		from = forward ? p->cursor + 1 : p->cursor - 1;
	else if (p->match >= p->top && p->match < p->top + body)
		from = forward ? p->match + 1 : p->match - 1;
	else
		from = forward ? p->top : p->top - 1;
	ui_pager_search_from(ui, from, forward);
}

/*
 * Tell whether the view is at the live end, where nothing is ahead:
 * copy mode's cursor on the last line, or a view following its log.
 */
static int
ui_pager_at_end(struct ui *ui)
{
	struct ui_pager	*p = ui->pager;

	if (p->flags & UI_PAGER_COPY)
		return p->cursor >= ui_source_count(p->src) - 1;
	return (p->flags & UI_PAGER_FOLLOW) != 0;
}

/*
 * Start a search of the view's pattern, backward or not; from the live
 * end it goes back from the last line, that one included, whatever the
 * direction asked (as tmux's copy mode does).
 */
static void
ui_pager_search_start(struct ui *ui, int backward)
{
	struct ui_pager	*p = ui->pager;

	if (p->matcher == NULL || !ui_pager_at_end(ui)) {
		p->backward = backward;
		ui_pager_search_again(ui, 0);
		return;
	}
	p->backward = 1;
	ui_pager_refresh(ui);
	ui_pager_search_from(ui, ui_source_count(p->src) - 1, 0);
}

/* Search for pattern (empty: the last one) forward or backward. */
static void
ui_pager_search(struct ui *ui, const char *pattern, int backward)
{
	struct ui_pager	*p = ui->pager;
	struct grep	*matcher;
	char		*cause = NULL;

	if (*pattern == '\0') {
		ui_pager_search_start(ui, backward);
		return;
	}
	if ((matcher = ui_pager_matcher(ui, pattern, &cause)) == NULL) {
		ui_pager_status(ui, 1, "%s", cause);
		free(cause);
		return;
	}
	grep_free(p->matcher);
	p->matcher = matcher;
	free(p->pattern);
	p->pattern = xstrdup(pattern);
	ui_pager_search_start(ui, backward);
}

/* A search found line l, its match at byte so: show it. */
static void
ui_pager_found(struct ui *ui, const struct store_line *l, size_t so)
{
	struct ui_pager	*p = ui->pager;
	int		 body = ui_pager_body(ui);
	int64_t		 no = l->no;

	p->searching = 0;
	p->match = no;
	if (p->flags & UI_PAGER_COPY)
		ui_copy_found(ui, l->text, l->len, so);
	if (ui_pager_has_cursor(p))
		ui_pager_choose(ui, no);
	else if (no < p->top || no >= p->top + body)
		ui_pager_move(ui, no);
	if (p->wrapped)
		ui_pager_status(ui, 0, "search wrapped");
	else
		ui_pager_status(ui, 0, "%s", "");
}

/* Return the key mode of the top view: copy mode's, or a text view's. */
static enum bind_mode
ui_pager_mode(const struct ui_pager *p)
{
	return (p->flags & UI_PAGER_COPY) ? BIND_COPY : BIND_VIEW;
}

/* Tell whether a quit key stops a running search (a control or Esc). */
static int
ui_pager_stops(int code)
{
	return code < 0x20 || (code & BIND_CURSES);
}

/*
 * Write "  (KEY: stop)" naming the first quit key of the top view's mode
 * that stops a search, or nothing when none is bound.
 */
static void
ui_pager_stop_hint(struct ui *ui, char *buf, size_t size)
{
	int	keys[16], n, i;
	char	name[32];

	buf[0] = '\0';
	n = bind_keys(ui->bind, ui_pager_mode(ui->pager), BIND_QUIT, keys, 16);
	for (i = 0; i < n; i++) {
		if (ui_pager_stops(keys[i])) {
			snprintf(buf, size, "  (%s: stop)", bind_key_name(
			    keys[i], name, sizeof name));
			return;
		}
	}
}

/*
 * Look at the next batches of lines for the search, up to a budget of
 * bytes and time; it ends found, not found, or waits for the next turn.
 */
static void
ui_pager_search_step(struct ui *ui)
{
	struct ui_pager		*p = ui->pager;
	struct store_line	*lines;
	int64_t			 first, count, from, to, deadline, i, n;
	int64_t			 batch = 64, added;
	size_t			 used = 0, so, eo, bytes;
	int			 got, k;
	char			 hint[64];

	deadline = loop_now_ms() + UI_PAGER_SEARCH_MS;
	while ((p->search_left > 0 || ui_source_more(p->src)) &&
	    used < UI_PAGER_SEARCH_BYTES && loop_now_ms() < deadline) {
		first = ui_source_first(p->src);
		count = ui_source_count(p->src);
		if (count <= first)
			break;
		/* At an end, the earlier runs come in before a wrap. */
		if ((p->searching > 0 ? p->search_at >= count :
		    p->search_at < first) && ui_source_more(p->src)) {
			added = ui_source_extend(p->src);
			p->search_left += added;
			p->search_total += added;
			continue;
		}
		if (p->search_left <= 0)
			break;
		if (p->searching > 0) {
			if (p->search_at >= count || p->search_at < first) {
				p->wrapped |= p->search_at >= count;
				p->search_at = first;
			}
			n = count - p->search_at;
		} else {
			if (p->search_at < first || p->search_at >= count) {
				p->wrapped |= p->search_at < first;
				p->search_at = count - 1;
			}
			n = p->search_at - first + 1;
		}
		n = n < batch ? n : batch;
		n = n < p->search_left ? n : p->search_left;
		from = p->searching > 0 ? p->search_at : p->search_at - n + 1;
		to = from + n;
		if (ui_source_get(p->src, from, to, &lines, &got) != 0) {
			p->searching = 0;
			ui_pager_status(ui, 1, "cannot read the log");
			return;
		}
		bytes = 0;
		for (k = 0; k < got; k++) {
			i = p->searching > 0 ? k : got - 1 - k;
			bytes += lines[i].len + 1;
			if (ui_pager_line_match(p, lines[i].text, lines[i].len,
			    &so, &eo)) {
				ui_pager_found(ui, &lines[i], so);
				ui_source_put(p->src, lines, got);
				return;
			}
		}
		ui_source_put(p->src, lines, got);
		used += bytes;
		p->search_at = p->searching > 0 ? to : from - 1;
		p->search_left -= n;
		/* About UI_PAGER_BATCH_BYTES a batch, whatever the lines. */
		batch = (int64_t)(UI_PAGER_BATCH_BYTES / (bytes / n + 1));
		if (batch > UI_PAGER_BATCH_MAX)
			batch = UI_PAGER_BATCH_MAX;
		if (batch < 1)
			batch = 1;
	}
	if ((p->search_left <= 0 && !ui_source_more(p->src)) ||
	    ui_source_count(p->src) <= ui_source_first(p->src)) {
		p->searching = 0;
		ui_pager_status(ui, 1, "Pattern not found: %s", p->pattern);
		return;
	}
	ui_pager_stop_hint(ui, hint, sizeof hint);
	ui_pager_status(ui, 0, "searching… %d%%%s",
	    (int)((p->search_total - p->search_left) * 100 /
	    (p->search_total > 0 ? p->search_total : 1)), hint);
}

/*
 * Handle a key while the search line is typed: the line editor's
 * bindings; the edit mode's clear, or a key the view quits with that is
 * not text (Esc), cancels; Enter searches; backspace on an empty line
 * leaves the line.
 */
static void
ui_pager_prompt_key(struct ui *ui, int rc, unsigned int key)
{
	struct ui_pager		*p = ui->pager;
	enum bind_action	 action;
	char			*text;
	size_t			 len;
	int			 code, edit, backward = p->prompt == '?';

	ui_pager_dirty(ui, 1);
	code = bind_key_code(rc, key);
	action = bind_lookup(ui->bind, BIND_EDIT, code);
	if (action == BIND_EDIT_CLEAR || (action == BIND_NONE &&
	    (code < 0x20 || (code & BIND_CURSES)) &&
	    bind_lookup(ui->bind, ui_pager_mode(p), code) == BIND_QUIT)) {
		p->prompt = 0;
		free(lineedit_take(p->edit));
		return;
	}
	if (action == BIND_SUBMIT) {
		p->prompt = 0;
		text = lineedit_take(p->edit);
		ui_pager_search(ui, text, backward);
		free(text);
		return;
	}
	lineedit_text(p->edit, &len);
	if (len == 0 && action == BIND_EDIT_BACKSPACE) {
		p->prompt = 0;
		return;
	}
	if ((edit = ui_lineedit_action(action)) >= 0) {
		lineedit_do(p->edit, (enum lineedit_action)edit);
		return;
	}
	if (action == BIND_NONE && code >= 0x20 && code != 0x7f &&
	    !(code & BIND_CURSES))
		lineedit_insert(p->edit, (wchar_t)code);
}

/* Start typing a search (c is / or ?). */
void
ui_pager_prompt(struct ui *ui, int c)
{
	struct ui_pager	*p = ui->pager;

	if (p->edit == NULL)
		p->edit = lineedit_new(50);
	p->prompt = c;
	p->status[0] = '\0';
	ui_pager_dirty(ui, 1);
}

/* Go to the first line: a view with a cursor moves it there. */
static void
ui_pager_top(struct ui *ui)
{
	struct ui_pager	*p = ui->pager;

	ui_pager_reach(ui, INT64_MIN);
	if (ui_pager_has_cursor(p))
		ui_pager_choose(ui, ui_source_first(p->src));
	else
		ui_pager_move(ui, ui_source_first(p->src));
}

/*
 * Run a view's action (the moves and searches copy mode shares with it);
 * code is the key, for the one rule that tells keys apart: a control key
 * that quits stops a running search first (Esc, C-c), a letter closes.
 */
static void
ui_pager_action(struct ui *ui, enum bind_action action, int code)
{
	struct ui_pager	*p = ui->pager;
	int		 page = ui_pager_body(ui);

	switch (action) {
	case BIND_QUIT:
		if (p->searching != 0 && ui_pager_stops(code)) {
			p->searching = 0;
			ui_pager_status(ui, 0, "search stopped");
			break;
		}
		ui_pager_pop(ui);
		break;
	case BIND_TOP:
		ui_pager_top(ui);
		break;
	case BIND_BOTTOM:
		ui_pager_end(ui, 1);
		break;
	case BIND_FOLLOW:
		ui_pager_end(ui, 1);
		if (!(p->flags & UI_PAGER_LIVE))
			ui_pager_status(ui, 0, "not a live log: nothing to "
			    "follow");
		break;
	case BIND_OPEN:
		if (ui_source_has_targets(p->src)) {
			ui_pager_open_target(ui);
			break;
		}
		ui_pager_scroll(ui, 1);
		break;
	case BIND_DOWN:
		ui_pager_scroll(ui, 1);
		break;
	case BIND_UP:
		ui_pager_scroll(ui, -1);
		break;
	case BIND_PAGE_DOWN:
		ui_pager_scroll(ui, page);
		break;
	case BIND_PAGE_UP:
		ui_pager_scroll(ui, -page);
		break;
	case BIND_HALF_DOWN:
		ui_pager_scroll(ui, page / 2 > 0 ? page / 2 : 1);
		break;
	case BIND_HALF_UP:
		ui_pager_scroll(ui, -(page / 2 > 0 ? page / 2 : 1));
		break;
	case BIND_SEARCH_FORWARD:
		ui_pager_prompt(ui, '/');
		break;
	case BIND_SEARCH_BACKWARD:
		ui_pager_prompt(ui, '?');
		break;
	case BIND_SEARCH_NEXT:
		ui_pager_search_again(ui, 0);
		break;
	case BIND_SEARCH_PREV:
		ui_pager_search_again(ui, 1);
		break;
	case BIND_NUMBERS:
		p->flags ^= UI_PAGER_NUMBERS;
		ui_pager_dirty(ui, 1);
		break;
	case BIND_TIMES:
		if (!ui_source_has_times(p->src)) {
			ui_pager_status(ui, 0, "no times in this view");
			break;
		}
		p->flags ^= UI_PAGER_TIMES;
		ui_pager_dirty(ui, 1);
		break;
	default:
		break;
	}
}

/*
 * Handle a key while the view is open, through the bindings of its mode
 * (a text view's, or copy mode's: ui-copy.c runs those of its own).
 */
void
ui_pager_key(struct ui *ui, int rc, unsigned int key)
{
	struct ui_pager		*p = ui->pager;
	enum bind_action	 action;
	int			 code;

	if (p->prompt != 0) {
		ui_pager_prompt_key(ui, rc, key);
		return;
	}
	if (p->status[0] != '\0' && p->searching == 0)
		p->status[0] = '\0';
	code = bind_key_code(rc, key);
	action = bind_lookup(ui->bind, ui_pager_mode(p), code);
	if ((p->flags & UI_PAGER_COPY) && ui_copy_action(ui, action))
		return;
	ui_pager_action(ui, action, code);
	ui_pager_arm(ui);
}
