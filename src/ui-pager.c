/*
 * ui-pager.c: the full-screen text view that !ps, !logs, !help and !grep
 * open.  Its lines come from a source (ui-source.c): a copy of the lines it
 * is given, a run of the output store read a screen at a time, or a grep's
 * results.  It moves with Up/Down, PgUp/PgDn, Home/End, g/G, j/k, space/b;
 * searches with / and ? (n, N repeat) a batch of lines a loop turn; shows
 * line numbers (#) and times (t); follows a live run's new lines (F, or G)
 * until scrolled up; q or Esc closes it.  ui-draw.c draws it.
 */
#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "grep.h"
#include "jobtable.h"
#include "lineedit.h"
#include "loop.h"
#include "store.h"
#include "ui-private.h"
#include "xmalloc.h"

#define UI_PAGER_BATCH_MAX	8192	/* lines a search reads at once */
#define UI_PAGER_BATCH_BYTES	(1024 * 1024)	/* or about this much */
#define UI_PAGER_SEARCH_MS	20	/* a search's turn at most */

static void	ui_pager_arm(struct ui *);
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
	free(p);
}

/* Put a new view on top of the open ones (under stops meanwhile). */
static struct ui_pager *
ui_pager_push(struct ui *ui, const char *title, struct ui_source *src)
{
	struct ui_pager	*p;

	p = xcalloc(1, sizeof *p);
	p->title = xstrdup(title);
	p->src = src;
	p->top = ui_source_first(src);
	p->cursor = ui_source_first(src);
	p->match = -1;
	p->under = ui->pager;
	if (p->under != NULL && p->under->timer != 0) {
		loop_cancel_timer(ui->loop, p->under->timer);
		p->under->timer = 0;
	}
	ui->pager = p;
	ui_pager_dirty(ui, 1);
	return p;
}

/* Return the number of body rows a view has on this screen. */
int
ui_pager_body(const struct ui *ui)
{
	int	body = ui->rows - 3;

	if (ui->pager != NULL)
		body -= ui_source_headers(ui->pager->src);
	return body > 1 ? body : 1;
}

/* Return the last top line a view may have: the end's page. */
static int64_t
ui_pager_max_top(const struct ui *ui)
{
	struct ui_pager	*p = ui->pager;
	int64_t		 max;

	max = ui_source_count(p->src) - ui_pager_body(ui);
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
	if (top < ui_source_first(p->src))
		top = ui_source_first(p->src);
	p->top = top;
	if (top < max)
		p->flags &= ~UI_PAGER_FOLLOW;
	ui_pager_dirty(ui, 1);
}

/* Move a results view's chosen line, keeping it on the screen. */
static void
ui_pager_choose(struct ui *ui, int64_t cursor)
{
	struct ui_pager	*p = ui->pager;
	int64_t		 first = ui_source_first(p->src);
	int64_t		 last = ui_source_count(p->src) - 1;
	int		 body = ui_pager_body(ui);

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

	if (ui_source_has_targets(p->src))
		ui_pager_choose(ui, p->cursor + delta);
	else
		ui_pager_move(ui, p->top + delta);
}

/* Go to the end; a live run is followed from there. */
static void
ui_pager_end(struct ui *ui, int follow)
{
	struct ui_pager	*p = ui->pager;

	ui_source_refresh(p->src);
	if (ui_source_has_targets(p->src))
		ui_pager_choose(ui, ui_source_count(p->src));
	else
		ui_pager_move(ui, ui_pager_max_top(ui));
	if (follow && (p->flags & UI_PAGER_LIVE))
		p->flags |= UI_PAGER_FOLLOW;
	ui_pager_arm(ui);
}

/* Set the view's status line (the bottom row). */
static void
ui_pager_status(struct ui *ui, int error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void
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
	if ((p->flags & UI_PAGER_FOLLOW) && ui_source_refresh(p->src)) {
		p->top = ui_pager_max_top(ui);
		ui_pager_dirty(ui, 0);
	}
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
 * Open the view on run of the store in dir at line (-1: the end),
 * replacing any view already open; a live run opened at its end is
 * followed.  0, or -1 with *cause if the run cannot be read.
 */
int
ui_pager_open_run(struct ui *ui, const char *title, const char *dir,
    const char *run, int64_t line, int live, char **cause)
{
	struct ui_source	*src;

	if ((src = ui_source_new_run(dir, run, cause)) == NULL)
		return -1;
	ui_pager_close(ui);
	ui_pager_push(ui, title, src);
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
static void
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

	ui_source_refresh(p->src);
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
 * from the last match if it is on the screen, else from the top line
 * (forward) or the line above it.
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
	if (p->match >= p->top && p->match < p->top + body)
		from = forward ? p->match + 1 : p->match - 1;
	else
		from = forward ? p->top : p->top - 1;
	ui_pager_search_from(ui, from, forward);
}

/* Search for pattern (empty: the last one) forward or backward. */
static void
ui_pager_search(struct ui *ui, const char *pattern, int backward)
{
	struct ui_pager	*p = ui->pager;
	struct grep	*matcher;
	char		*cause = NULL;

	if (*pattern == '\0') {
		p->backward = backward;
		ui_pager_search_again(ui, 0);
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
	p->backward = backward;
	ui_pager_search_again(ui, 0);
}

/* A search found line no: show it. */
static void
ui_pager_found(struct ui *ui, int64_t no)
{
	struct ui_pager	*p = ui->pager;
	int		 body = ui_pager_body(ui);

	p->searching = 0;
	p->match = no;
	if (ui_source_has_targets(p->src))
		ui_pager_choose(ui, no);
	else if (no < p->top || no >= p->top + body)
		ui_pager_move(ui, no);
	if (p->wrapped)
		ui_pager_status(ui, 0, "search wrapped");
	else
		ui_pager_status(ui, 0, "%s", "");
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
	int64_t			 batch = 64;
	size_t			 used = 0, so, eo, bytes;
	int			 got, k;

	deadline = loop_now_ms() + UI_PAGER_SEARCH_MS;
	while (p->search_left > 0 && used < UI_PAGER_SEARCH_BYTES &&
	    loop_now_ms() < deadline) {
		first = ui_source_first(p->src);
		count = ui_source_count(p->src);
		if (count <= first)
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
				n = lines[i].no;
				ui_source_put(p->src, lines, got);
				ui_pager_found(ui, n);
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
	if (p->search_left <= 0 || ui_source_count(p->src) <=
	    ui_source_first(p->src)) {
		p->searching = 0;
		ui_pager_status(ui, 1, "Pattern not found: %s", p->pattern);
		return;
	}
	ui_pager_status(ui, 0, "searching… %d%%  (Esc: stop)",
	    (int)((p->search_total - p->search_left) * 100 /
	    (p->search_total > 0 ? p->search_total : 1)));
}

/* Handle a key while the search line is typed. */
static void
ui_pager_prompt_key(struct ui *ui, int rc, unsigned int key)
{
	static const struct {
		unsigned int		key;
		int			named;
		enum lineedit_action	action;
	} keys[] = {
		{ 0x7f, 0, LINEEDIT_BACKSPACE },
		{ 0x08, 0, LINEEDIT_BACKSPACE },
		{ 0x15, 0, LINEEDIT_KILL_START },
		{ 0x17, 0, LINEEDIT_KILL_WORD },
		{ KEY_BACKSPACE, 1, LINEEDIT_BACKSPACE },
		{ KEY_LEFT, 1, LINEEDIT_LEFT },
		{ KEY_RIGHT, 1, LINEEDIT_RIGHT },
		{ KEY_HOME, 1, LINEEDIT_HOME },
		{ KEY_END, 1, LINEEDIT_END },
		{ KEY_DC, 1, LINEEDIT_DELETE },
		{ KEY_UP, 1, LINEEDIT_PREV },
		{ KEY_DOWN, 1, LINEEDIT_NEXT },
	};
	struct ui_pager	*p = ui->pager;
	char		*text;
	size_t		 i, len;
	int		 named = rc != OK, backward = p->prompt == '?';

	ui_pager_dirty(ui, 1);
	if (!named && (key == 0x1b || key == 0x03)) {
		p->prompt = 0;
		free(lineedit_take(p->edit));
		return;
	}
	if ((!named && (key == '\r' || key == '\n')) ||
	    (named && key == KEY_ENTER)) {
		p->prompt = 0;
		text = lineedit_take(p->edit);
		ui_pager_search(ui, text, backward);
		free(text);
		return;
	}
	lineedit_text(p->edit, &len);
	if (len == 0 && ((!named && (key == 0x7f || key == 0x08)) ||
	    (named && key == KEY_BACKSPACE))) {
		p->prompt = 0;
		return;
	}
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		if (keys[i].key == key && keys[i].named == named) {
			lineedit_do(p->edit, keys[i].action);
			return;
		}
	}
	if (!named && key >= 0x20 && key != 0x7f)
		lineedit_insert(p->edit, (wchar_t)key);
}

/* Start typing a search (c is / or ?). */
static void
ui_pager_prompt(struct ui *ui, int c)
{
	struct ui_pager	*p = ui->pager;

	if (p->edit == NULL)
		p->edit = lineedit_new(50);
	p->prompt = c;
	p->status[0] = '\0';
	ui_pager_dirty(ui, 1);
}

/* Handle a character key while the view is open. */
static void
ui_pager_char(struct ui *ui, unsigned int key)
{
	struct ui_pager	*p = ui->pager;
	int		 page = ui_pager_body(ui);

	switch (key) {
	case 0x1b:
	case 0x03:
		if (p->searching != 0) {
			p->searching = 0;
			ui_pager_status(ui, 0, "search stopped");
			break;
		}
		ui_pager_pop(ui);
		break;
	case 'q':
	case 'Q':
		ui_pager_pop(ui);
		break;
	case 'g':
		if (ui_source_has_targets(p->src))
			ui_pager_choose(ui, ui_source_first(p->src));
		else
			ui_pager_move(ui, ui_source_first(p->src));
		break;
	case 'G':
		ui_pager_end(ui, 1);
		break;
	case 'F':
		ui_pager_end(ui, 1);
		if (!(p->flags & UI_PAGER_LIVE))
			ui_pager_status(ui, 0, "not a live log: nothing to "
			    "follow");
		break;
	case '\r':
	case '\n':
		if (ui_source_has_targets(p->src)) {
			ui_pager_open_target(ui);
			break;
		}
		/* FALLTHROUGH */
	case 'j':
		ui_pager_scroll(ui, 1);
		break;
	case 'k':
		ui_pager_scroll(ui, -1);
		break;
	case ' ':
	case 'f':
		ui_pager_scroll(ui, page);
		break;
	case 'b':
		ui_pager_scroll(ui, -page);
		break;
	case '/':
	case '?':
		ui_pager_prompt(ui, (int)key);
		break;
	case 'n':
		ui_pager_search_again(ui, 0);
		break;
	case 'N':
		ui_pager_search_again(ui, 1);
		break;
	case '#':
		p->flags ^= UI_PAGER_NUMBERS;
		ui_pager_dirty(ui, 1);
		break;
	case 't':
		if (!ui_source_has_times(p->src)) {
			ui_pager_status(ui, 0, "no times in this view");
			break;
		}
		p->flags ^= UI_PAGER_TIMES;
		ui_pager_dirty(ui, 1);
		break;
	}
}

/* Handle a key while the view is open. */
void
ui_pager_key(struct ui *ui, int rc, unsigned int key)
{
	struct ui_pager	*p = ui->pager;
	int		 page = ui_pager_body(ui);

	if (p->prompt != 0) {
		ui_pager_prompt_key(ui, rc, key);
		return;
	}
	if (p->status[0] != '\0' && p->searching == 0)
		p->status[0] = '\0';
	if (rc == OK) {
		ui_pager_char(ui, key);
		ui_pager_arm(ui);
		return;
	}
	switch (key) {
	case KEY_UP:
		ui_pager_scroll(ui, -1);
		break;
	case KEY_DOWN:
		ui_pager_scroll(ui, 1);
		break;
	case KEY_PPAGE:
		ui_pager_scroll(ui, -page);
		break;
	case KEY_NPAGE:
		ui_pager_scroll(ui, page);
		break;
	case KEY_HOME:
		ui_pager_char(ui, 'g');
		break;
	case KEY_END:
		ui_pager_end(ui, 1);
		break;
	case KEY_ENTER:
		ui_pager_char(ui, '\r');
		break;
	}
	ui_pager_arm(ui);
}
