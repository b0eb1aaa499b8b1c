/*
 * ui-pager.c: the text view the modes are built on (as tmux's modes are on
 * mode-tree.c): view mode (ui-view.c) shows one over the whole screen for
 * !ps, !logs, !help and !grep, copy mode (ui-copy.c) one in the pane.
 * Its lines come from a source (ui-source.c): a copy of the lines it is
 * given, a run of the output store read a screen at a time, or a grep's
 * results.  Its keys are the bindings of its mode (bind.c): moves by
 * line, half page, page and to either end; searches with / and ? (n, N
 * repeat) a batch of lines a loop turn; shows line numbers and times;
 * follows a live run's new lines until scrolled up.  A view of a job's
 * run reaches its earlier runs as it moves up (and its search goes on
 * into them), and one that follows goes on into the runs the job starts
 * later.  A search forward from the live end (following, or copy mode's
 * cursor on the last line), where nothing is ahead, searches back
 * instead, so the first match is the newest.  ui-pager-draw.c draws it.
 *
 * A view is a mode's data: the mode on top of it adds its own through
 * struct ui_pager_cbs (its keys first, what a search found, marks drawn),
 * and its timer runs only while its mode is the top one.  The mode
 * callbacks here (ui_pager_key() and the rest) serve every mode built on
 * a view.
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

static void	ui_pager_rerun(struct ui_pager *);
static void	ui_pager_search_step(struct ui_pager *);

/* Mark the whole screen for drawing, now if urgent. */
static void
ui_pager_dirty(struct ui_pager *p, int urgent)
{
	p->ui->calls->dirty(UI_DRAW_ALL, urgent, p->ui->calls_arg);
}

/* Free a view and what it holds; its timer goes too. */
void
ui_pager_free(struct ui_pager *p)
{
	if (p->timer != 0)
		loop_cancel_timer(p->ui->loop, p->timer);
	ui_source_free(p->src);
	grep_free(p->matcher);
	if (p->edit != NULL)
		lineedit_free(p->edit);
	free(p->pattern);
	free(p->title);
	free(p->refresh);
	free(p);
}

/*
 * Make a view of src (taken over) and open it as a mode over the ones
 * open; the mode's close frees the view (ui_pager_free()).
 */
struct ui_pager *
ui_pager_push(struct ui *ui, const struct ui_mode *mode, const char *title,
    struct ui_source *src)
{
	struct ui_pager	*p;

	p = xcalloc(1, sizeof *p);
	p->ui = ui;
	p->title = xstrdup(title);
	p->src = src;
	p->top = ui_source_first(src);
	p->cursor = ui_source_first(src);
	p->match = UI_PAGER_NO_MATCH;
	p->me = ui_mode_push(ui, mode, p);
	return p;
}

/* Return the number of body rows the view has on this screen. */
int
ui_pager_body(const struct ui_pager *p)
{
	struct ui_rect	r;
	int		body;

	ui_mode_rect(p->me, &r);
	body = r.h - 2 - ui_source_headers(p->src);
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
ui_pager_reach(struct ui_pager *p, int64_t no)
{
	while (no < ui_source_first(p->src) && ui_source_more(p->src))
		ui_source_extend(p->src);
}

/* Return the job whose runs the view shows, or NULL (gone, none). */
static struct job *
ui_pager_job(struct ui_pager *p)
{
	struct job	*job;
	int		 i, n = jobtable_count(p->ui->jt);

	for (i = 0; p->job != 0 && i < n; i++) {
		job = jobtable_get(p->ui->jt, i);
		if (job_id(job) == p->job)
			return job;
	}
	return NULL;
}

/*
 * Look for new lines of the view's last run, and for runs its job started
 * since; returns whether any came.
 */
static int
ui_pager_refresh(struct ui_pager *p)
{
	struct job	*job;
	int		 more;

	more = ui_source_refresh(p->src);
	if ((p->flags & UI_PAGER_LIVE) && (job = ui_pager_job(p)) != NULL)
		more |= ui_source_sync_job(p->src, job);
	if (p->flags & UI_PAGER_LIVE)
		more |= ui_source_sync(p->src, p->ui->jt);
	return more;
}

/*
 * Return the last top line a view may have: the end's page, filled with
 * earlier runs when the last is shorter.
 */
static int64_t
ui_pager_max_top(struct ui_pager *p)
{
	int64_t	max;

	max = ui_source_count(p->src) - ui_pager_body(p);
	ui_pager_reach(p, max);
	return max > ui_source_first(p->src) ? max : ui_source_first(p->src);
}

/* Move the view to top, kept within the text; above the end, stop following. */
void
ui_pager_move(struct ui_pager *p, int64_t top)
{
	int64_t	max = ui_pager_max_top(p);

	if (top > max)
		top = max;
	ui_pager_reach(p, top);
	if (top < ui_source_first(p->src))
		top = ui_source_first(p->src);
	p->top = top;
	if (top < max)
		p->flags &= ~UI_PAGER_FOLLOW;
	ui_pager_dirty(p, 1);
}

/* Move the cursor line of a view that has one, keeping it on the screen. */
void
ui_pager_choose(struct ui_pager *p, int64_t cursor)
{
	int64_t	first, last = ui_source_count(p->src) - 1;
	int	body = ui_pager_body(p);

	ui_pager_reach(p, cursor);
	first = ui_source_first(p->src);
	if (cursor > last)
		cursor = last;
	if (cursor < first)
		cursor = first;
	p->cursor = cursor;
	if (cursor < p->top)
		ui_pager_move(p, cursor);
	else if (cursor >= p->top + body)
		ui_pager_move(p, cursor - body + 1);
	ui_pager_dirty(p, 1);
}

/* Scroll by delta lines: the chosen line of a results view, else the top. */
static void
ui_pager_scroll(struct ui_pager *p, int64_t delta)
{
	if (ui_pager_has_cursor(p))
		ui_pager_choose(p, p->cursor + delta);
	else
		ui_pager_move(p, p->top + delta);
}

/* Go to the end; a live run is followed from there. */
void
ui_pager_end(struct ui_pager *p, int follow)
{
	ui_pager_refresh(p);
	if (ui_pager_has_cursor(p))
		ui_pager_choose(p, ui_source_count(p->src));
	else
		ui_pager_move(p, ui_pager_max_top(p));
	if (follow && (p->flags & UI_PAGER_LIVE))
		p->flags |= UI_PAGER_FOLLOW;
	ui_pager_arm(p);
}

/* Set the view's status line (the bottom row). */
void
ui_pager_status(struct ui_pager *p, int error, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(p->status, sizeof p->status, fmt, ap);
	va_end(ap);
	p->status_error = error;
	ui_pager_dirty(p, 1);
}

/*
 * The view's timer: step a search or a grep, follow new lines; a view
 * that is not on top any more does nothing until it is again.
 */
static void
ui_pager_timer_cb(void *arg)
{
	struct ui_pager	*p = arg;

	p->timer = 0;
	if (!ui_mode_on_top(p->me))
		return;
	if (p->searching != 0)
		ui_pager_search_step(p);
	if (p->flags & UI_PAGER_GREPPING) {
		if (!ui_source_step(p->src, UI_PAGER_GREP_BYTES))
			p->flags &= ~UI_PAGER_GREPPING;
		ui_pager_dirty(p, 0);
	}
	if ((p->flags & UI_PAGER_FOLLOW) && ui_pager_refresh(p)) {
		p->top = ui_pager_max_top(p);
		ui_pager_dirty(p, 0);
	}
	ui_pager_rerun(p);
	ui_pager_arm(p);
}

/*
 * Arm the view's timer if it has work and is on top: at once for a search
 * or a grep, every UI_PAGER_FOLLOW_MS while it follows a live run.
 */
void
ui_pager_arm(struct ui_pager *p)
{
	int64_t	ms;

	if (p->timer != 0 || !ui_mode_on_top(p->me))
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
	p->timer = loop_add_timer(p->ui->loop, ms, ui_pager_timer_cb, p);
}

/*
 * A live view (!ps): run its command again, whose show comes back to
 * ui_pager_set_lines() while ui->refreshing is this view.
 */
static void
ui_pager_rerun(struct ui_pager *p)
{
	struct ui	*ui = p->ui;
	char		*line;

	if (p->refresh == NULL || p->searching != 0)
		return;
	line = xstrdup(p->refresh);
	ui->refreshing = p;
	cmd_run_line(&ui->ctx, line);
	ui->refreshing = NULL;
	free(line);
}

/* Make the view live: its command runs again every second. */
void
ui_pager_live(struct ui_pager *p, const char *command)
{
	free(p->refresh);
	p->refresh = xstrdup(command);
	ui_pager_arm(p);
}

/*
 * Give a live view new lines from its command run again, keeping its
 * place and its search.
 */
void
ui_pager_set_lines(struct ui_pager *p, char **lines, int count, int header)
{
	if (p->refresh == NULL)
		return;
	ui_source_free(p->src);
	p->src = ui_source_new_array(lines, count, header);
	if (p->top > ui_pager_max_top(p))
		p->top = ui_pager_max_top(p);
	ui_pager_dirty(p, 0);
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
ui_pager_matcher(struct ui_pager *p, const char *pattern, char **cause)
{
	static char *const	 none[] = { NULL };
	struct store		*store = jobtable_store(p->ui->jt);
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
ui_pager_search_from(struct ui_pager *p, int64_t from, int forward)
{
	int64_t	first, count;

	ui_pager_refresh(p);
	first = ui_source_first(p->src);
	count = ui_source_count(p->src);
	p->searching = forward ? 1 : -1;
	p->search_at = from;
	p->search_total = p->search_left = count - first;
	p->wrapped = 0;
	p->status[0] = '\0';
	ui_pager_search_step(p);
	ui_pager_arm(p);
}

/*
 * Search again for the last pattern, the same way or (reverse) the other:
 * in copy mode from the cursor's line, else from the last match if it is
 * on the screen, else from the top line (forward) or the line above it.
 */
static void
ui_pager_search_again(struct ui_pager *p, int reverse)
{
	int	forward = p->backward == reverse;
	int	body = ui_pager_body(p);
	int64_t	from;

	if (p->matcher == NULL) {
		ui_pager_status(p, 1, "No previous search");
		return;
	}
	if (p->flags & UI_PAGER_COPY)
		from = forward ? p->cursor + 1 : p->cursor - 1;
	else if (p->match >= p->top && p->match < p->top + body)
		from = forward ? p->match + 1 : p->match - 1;
	else
		from = forward ? p->top : p->top - 1;
	ui_pager_search_from(p, from, forward);
}

/*
 * Tell whether the view is at the live end, where nothing is ahead:
 * copy mode's cursor on the last line, or a view following its log.
 */
static int
ui_pager_at_end(struct ui_pager *p)
{
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
ui_pager_search_start(struct ui_pager *p, int backward)
{
	if (p->matcher == NULL || !ui_pager_at_end(p)) {
		p->backward = backward;
		ui_pager_search_again(p, 0);
		return;
	}
	p->backward = 1;
	ui_pager_refresh(p);
	ui_pager_search_from(p, ui_source_count(p->src) - 1, 0);
}

/* Search for pattern (empty: the last one) forward or backward. */
static void
ui_pager_search(struct ui_pager *p, const char *pattern, int backward)
{
	struct grep	*matcher;
	char		*cause = NULL;

	if (*pattern == '\0') {
		ui_pager_search_start(p, backward);
		return;
	}
	if ((matcher = ui_pager_matcher(p, pattern, &cause)) == NULL) {
		ui_pager_status(p, 1, "%s", cause);
		free(cause);
		return;
	}
	grep_free(p->matcher);
	p->matcher = matcher;
	free(p->pattern);
	p->pattern = xstrdup(pattern);
	ui_pager_search_start(p, backward);
}

/*
 * A search found line l, its match at byte so: show it (the mode on top
 * is told first: copy mode moves its cursor there).
 */
static void
ui_pager_found(struct ui_pager *p, const struct store_line *l, size_t so)
{
	int	body = ui_pager_body(p);
	int64_t	no = l->no;

	p->searching = 0;
	p->match = no;
	if (p->cbs != NULL && p->cbs->found != NULL)
		p->cbs->found(p, l->text, l->len, so, p->cbs_arg);
	if (ui_pager_has_cursor(p))
		ui_pager_choose(p, no);
	else if (no < p->top || no >= p->top + body)
		ui_pager_move(p, no);
	if (p->wrapped)
		ui_pager_status(p, 0, "search wrapped");
	else
		ui_pager_status(p, 0, "%s", "");
}

/* Return the key mode of the view: copy mode's, or a text view's. */
enum bind_mode
ui_pager_keys(const struct ui_pager *p)
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
 * Write "  (KEY: stop)" naming the first quit key of the view's mode
 * that stops a search, or nothing when none is bound.
 */
static void
ui_pager_stop_hint(struct ui_pager *p, char *buf, size_t size)
{
	int	keys[16], n, i;
	char	name[32];

	buf[0] = '\0';
	n = bind_keys(p->ui->bind, ui_pager_keys(p), BIND_QUIT, keys, 16);
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
ui_pager_search_step(struct ui_pager *p)
{
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
			ui_pager_status(p, 1, "cannot read the log");
			return;
		}
		bytes = 0;
		for (k = 0; k < got; k++) {
			i = p->searching > 0 ? k : got - 1 - k;
			bytes += lines[i].len + 1;
			if (ui_pager_line_match(p, lines[i].text, lines[i].len,
			    &so, &eo)) {
				ui_pager_found(p, &lines[i], so);
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
		ui_pager_status(p, 1, "Pattern not found: %s", p->pattern);
		return;
	}
	ui_pager_stop_hint(p, hint, sizeof hint);
	ui_pager_status(p, 0, "searching… %d%%%s",
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
ui_pager_prompt_key(struct ui_pager *p, int rc, unsigned int key)
{
	enum bind_action	 action;
	char			*text;
	size_t			 len;
	int			 code, edit, backward = p->prompt == '?';

	ui_pager_dirty(p, 1);
	code = bind_key_code(rc, key);
	action = bind_lookup(p->ui->bind, BIND_EDIT, code);
	if (action == BIND_EDIT_CLEAR || (action == BIND_NONE &&
	    (code < 0x20 || (code & BIND_CURSES)) &&
	    bind_lookup(p->ui->bind, ui_pager_keys(p), code) == BIND_QUIT)) {
		p->prompt = 0;
		free(lineedit_take(p->edit));
		return;
	}
	if (action == BIND_SUBMIT) {
		p->prompt = 0;
		text = lineedit_take(p->edit);
		ui_pager_search(p, text, backward);
		free(text);
		return;
	}
	lineedit_text(p->edit, &len);
	if (len == 0 && action == BIND_EDIT_BACKSPACE) {
		p->prompt = 0;
		return;
	}
	if ((edit = ui_edit_translate(action)) >= 0) {
		lineedit_do(p->edit, (enum lineedit_action)edit);
		return;
	}
	if (action == BIND_NONE && code >= 0x20 && code != 0x7f &&
	    !(code & BIND_CURSES))
		lineedit_insert(p->edit, (wchar_t)code);
}

/* Start typing a search (c is / or ?). */
void
ui_pager_prompt(struct ui_pager *p, int c)
{
	if (p->edit == NULL)
		p->edit = lineedit_new(50);
	p->prompt = c;
	p->status[0] = '\0';
	ui_pager_dirty(p, 1);
}

/* Go to the first line: a view with a cursor moves it there. */
static void
ui_pager_top(struct ui_pager *p)
{
	ui_pager_reach(p, INT64_MIN);
	if (ui_pager_has_cursor(p))
		ui_pager_choose(p, ui_source_first(p->src));
	else
		ui_pager_move(p, ui_source_first(p->src));
}

/*
 * Run a view's action (the moves and searches every mode on a view
 * shares); code is the key, for the one rule that tells keys apart: a
 * control key that quits stops a running search first (Esc, C-c), a
 * letter closes.  Returns 1 when the view closed (it is freed).
 */
static int
ui_pager_action(struct ui_pager *p, enum bind_action action, int code)
{
	int	page = ui_pager_body(p);

	switch (action) {
	case BIND_QUIT:
		if (p->searching != 0 && ui_pager_stops(code)) {
			p->searching = 0;
			ui_pager_status(p, 0, "search stopped");
			break;
		}
		ui_mode_pop(p->ui);
		return 1;
	case BIND_TOP:
		ui_pager_top(p);
		break;
	case BIND_BOTTOM:
		ui_pager_end(p, 1);
		break;
	case BIND_FOLLOW:
		ui_pager_end(p, 1);
		if (!(p->flags & UI_PAGER_LIVE))
			ui_pager_status(p, 0, "not a live log: nothing to "
			    "follow");
		break;
	case BIND_OPEN:
	case BIND_DOWN:
		ui_pager_scroll(p, 1);
		break;
	case BIND_UP:
		ui_pager_scroll(p, -1);
		break;
	case BIND_PAGE_DOWN:
		ui_pager_scroll(p, page);
		break;
	case BIND_PAGE_UP:
		ui_pager_scroll(p, -page);
		break;
	case BIND_HALF_DOWN:
		ui_pager_scroll(p, page / 2 > 0 ? page / 2 : 1);
		break;
	case BIND_HALF_UP:
		ui_pager_scroll(p, -(page / 2 > 0 ? page / 2 : 1));
		break;
	case BIND_SEARCH_FORWARD:
		ui_pager_prompt(p, '/');
		break;
	case BIND_SEARCH_BACKWARD:
		ui_pager_prompt(p, '?');
		break;
	case BIND_SEARCH_NEXT:
		ui_pager_search_again(p, 0);
		break;
	case BIND_SEARCH_PREV:
		ui_pager_search_again(p, 1);
		break;
	case BIND_NUMBERS:
		p->flags ^= UI_PAGER_NUMBERS;
		ui_pager_dirty(p, 1);
		break;
	case BIND_TIMES:
		if (!ui_source_has_times(p->src)) {
			ui_pager_status(p, 0, "no times in this view");
			break;
		}
		p->flags ^= UI_PAGER_TIMES;
		ui_pager_dirty(p, 1);
		break;
	default:
		break;
	}
	return 0;
}

/*
 * A mode's key: the search line while one is typed, else through the
 * bindings of the view's mode, the mode's own actions (its action
 * callback) before the ones every view shares.
 */
void
ui_pager_key(struct ui_mode_entry *me, int rc, unsigned int key)
{
	struct ui_pager		*p = me->data;
	enum bind_action	 action;
	int			 code;

	if (p->prompt != 0) {
		ui_pager_prompt_key(p, rc, key);
		return;
	}
	if (p->status[0] != '\0' && p->searching == 0)
		p->status[0] = '\0';
	code = bind_key_code(rc, key);
	action = bind_lookup(p->ui->bind, ui_pager_keys(p), code);
	if (p->cbs != NULL && p->cbs->action != NULL &&
	    p->cbs->action(p, action, p->cbs_arg))
		return;
	if (!ui_pager_action(p, action, code))
		ui_pager_arm(p);
}

/* A mode's mouse report: the wheel scrolls the view. */
void
ui_pager_mouse(struct ui_mode_entry *me, const struct input_mouse *m)
{
	struct ui_pager	*p = me->data;

	if (!m->press)
		return;
	if (m->button == INPUT_WHEEL_UP)
		ui_pager_scroll(p, -UI_WHEEL_LINES);
	else if (m->button == INPUT_WHEEL_DOWN)
		ui_pager_scroll(p, UI_WHEEL_LINES);
}

/* A mode's paste: the search being typed takes its first line. */
void
ui_pager_paste(struct ui_mode_entry *me, const char *text, size_t len)
{
	struct ui_pager	*p = me->data;

	if (p->prompt == 0)
		return;
	ui_edit_insert(p->edit, text, len, '\n');
	ui_pager_dirty(p, 1);
}

/* A mode's resize, or its view on top again: its work goes on. */
void
ui_pager_resize(struct ui_mode_entry *me)
{
	ui_pager_arm(me->data);
}

/*
 * A mode's cursor: on the search line while one is typed (0 when none
 * is: the view shows no cursor of its own).
 */
int
ui_pager_cursor(struct ui_mode_entry *me, int *y, int *x)
{
	struct ui_pager	*p = me->data;
	const wchar_t	*text;
	size_t		 len, cur, i;

	if (p->prompt == 0)
		return 0;
	text = lineedit_text(p->edit, &len);
	cur = lineedit_cursor(p->edit);
	for (i = 0, *x = 1; i < cur && *x < p->ui->cols - 1; i++)
		*x += ui_text_wcwidth(text[i]);
	*y = p->ui->rows - 1;
	return 1;
}
