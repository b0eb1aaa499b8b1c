/*
 * ui-pager-draw.c: drawing a text view (ui-pager.c) where its mode is
 * drawn: its lines (numbers, times, the spans a search, a grep or the
 * mode on top marked), its title and its bottom line.  ui_pager_draw()
 * and ui_pager_draw_bottom() are the draw callbacks of every mode built
 * on a view.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "lineedit.h"
#include "store.h"
#include "ui-private.h"
#include "vt-cell.h"

#define UI_PAGER_MARKS	32	/* highlighted spans drawn in one line */

/*
 * Find the spans of line l to highlight, sorted: the source's own mark (a
 * grep's match) or the mode's (copy mode's selection), and every match of the view's
 * search in the bytes that can be on the screen; returns how many, their
 * bounds in so[] and eo[].  Spans may overlap: they are drawn as one.
 */
static int
ui_pager_marks(const struct ui_pager *p, const struct store_line *l,
    size_t scan, size_t *so, size_t *eo)
{
	size_t	len = l->len < scan ? l->len : scan, off = 0, s, e, ts, te;
	int	n = 0, i;

	if (ui_source_mark(p->src, l->no, &so[0], &eo[0]) ||
	    (p->cbs != NULL && p->cbs->mark != NULL && p->cbs->mark(p, l->no,
	    l->text, l->len, &so[0], &eo[0], p->cbs_arg)))
		n++;
	while (n < UI_PAGER_MARKS && off < len &&
	    ui_pager_line_match(p, l->text + off, len - off, &s, &e)) {
		so[n] = off + s;
		eo[n] = off + (e > s ? e : s + 1);
		off = eo[n];
		n++;
	}
	/* The source's mark may come after a search's matches. */
	for (i = 1; i < n && so[i] < so[0]; i++) {
		ts = so[i - 1];
		te = eo[i - 1];
		so[i - 1] = so[i];
		eo[i - 1] = eo[i];
		so[i] = ts;
		eo[i] = te;
	}
	return n;
}

/*
 * Draw one body line of the text view at row y: its number and time when
 * asked, a results view's choice, then its text (stderr in red).
 */
static void
ui_pager_draw_line(struct ui_pager *p, const struct ui_rect *r, int y,
    const struct store_line *l, int numw)
{
	size_t		 so[UI_PAGER_MARKS], eo[UI_PAGER_MARKS];
	char		 pre[64], when[32];
	int		 x0 = r->x + 1, x = x0, width = r->w - 2, n, pair = 0;
	int		 where, run, last, colour;
	int64_t		 no = l->no, lines;
	size_t		 plen;
	attr_t		 attr = A_NORMAL;

	/* In a view of runs: numbers within each run, marks reversed. */
	where = ui_source_where(p->src, l->no, &run, &last, &no, &lines);
	if (where == 0)
		attr = A_REVERSE;
	if (ui_source_has_targets(p->src)) {
		if (l->no == p->cursor)
			attr = A_BOLD;
		x += ui_put_text(y, x, width, l->no == p->cursor ? "> " :
		    "  ", attr, 0);
	}
	if (p->flags & UI_PAGER_NUMBERS) {
		if (where == 0)
			snprintf(pre, sizeof pre, "%*s ", numw, "");
		else
			snprintf(pre, sizeof pre, "%*lld ", numw,
			    (long long)no + 1);
		x += ui_put_text(y, x, width - (x - x0), pre, A_DIM, 0);
	}
	if (p->flags & UI_PAGER_TIMES) {
		if (l->time > 0)
			job_format_clock(l->time, 1, when, sizeof when);
		else
			snprintf(when, sizeof when, "%12s", "");
		snprintf(pre, sizeof pre, "%s ", when);
		x += ui_put_text(y, x, width - (x - x0), pre, A_DIM, 0);
	}
	if (l->stream == STORE_STDERR)
		pair = ui_semantic(UI_C_ERROR);
	n = ui_pager_marks(p, l, (size_t)r->w * 8 + 64, so, eo);
	ui_put_marked(y, x, width - (x - x0), l->text, l->len, so, eo, n, attr,
	    pair);
	/* A merged log's prefix in its job's colour. */
	if ((colour = ui_source_label(p->src, l->no, &plen)) >= 0 &&
	    x < x0 + width) {
		pair = ui_pair(ui_colour(VT_COLOR_MAKE_INDEXED(colour)), -1);
		mvchgat(y, x, (int)plen < x0 + width - x ? (int)plen :
		    x0 + width - x, attr, 0, &pair);
	}
}

/*
 * Write where a view of runs is into pos: the run of the cursor's line
 * (copy mode) or the top line, the job's runs, the line in the run
 * ("run 2/3 · 120/300", "run 2/3 · 1-37 of 300"); 0 for other views.
 */
static int
ui_pager_draw_where(const struct ui_pager *p, int body, char *pos,
    size_t size)
{
	int64_t	at = (p->flags & UI_PAGER_COPY) ? p->cursor : p->top;
	int64_t	line, lines, end, bline, blines;
	int	run, last, brun, blast, where;

	where = ui_source_where(p->src, at, &run, &last, &line, &lines);
	if (where < 0)
		return 0;
	if (where == 0)
		snprintf(pos, size, "run %d/%d", run, last);
	else if (p->flags & UI_PAGER_COPY)
		snprintf(pos, size, "run %d/%d · %lld/%lld", run, last,
		    (long long)line + 1, (long long)lines);
	else {
		/* The page may end in a later run: the top's run ends it. */
		end = lines;
		if (ui_source_where(p->src, p->top + body - 1, &brun, &blast,
		    &bline, &blines) > 0 && brun == run)
			end = bline + 1;
		snprintf(pos, size, "run %d/%d · %lld-%lld of %lld", run, last,
		    (long long)line + 1, (long long)end, (long long)lines);
	}
	return 1;
}

/*
 * Draw the text view once: a box over the whole screen (copy mode: the
 * pane) and the visible lines.
 */
static void
ui_pager_draw_once(struct ui_pager *p)
{
	struct ui_rect		 r;
	struct store_line	*lines = NULL;
	char			 pos[128], drop[48], title[1024], digits[24];
	int			 row, ih, body, header, got = 0, i;
	int			 numw;
	int64_t			 first, count;

	ui_mode_rect(p->me, &r);
	ih = r.h - 2;
	header = ui_source_headers(p->src);
	if (header > ih)
		header = ih;
	body = ui_pager_body(p);
	first = ui_source_first(p->src);
	count = ui_source_count(p->src);
	/* A narrower screen or fewer lines: keep the view on the text. */
	if (p->top > count - body)
		p->top = count - body;
	if (p->top < first)
		p->top = first;
	drop[0] = '\0';
	if (first > 0)
		snprintf(drop, sizeof drop, "%lld lines dropped  ",
		    (long long)first);
	if (count <= first)
		snprintf(pos, sizeof pos, "%sempty", drop);
	else if (ui_pager_draw_where(p, body, pos, sizeof pos))
		;
	else if (p->flags & UI_PAGER_COPY)
		snprintf(pos, sizeof pos, "%lld/%lld", (long long)p->cursor + 1,
		    (long long)count);
	else
		snprintf(pos, sizeof pos, "%s%lld-%lld of %lld", drop,
		    (long long)p->top + 1, (long long)(p->top + body < count ?
		    p->top + body : count), (long long)count);
	snprintf(title, sizeof title, "%s%s", p->title,
	    (p->flags & UI_PAGER_FOLLOW) ? " · following" : "");
	ui_box(&r, title, pos, A_NORMAL, 0);
	snprintf(digits, sizeof digits, "%lld", (long long)count);
	numw = (int)strlen(digits);
	if (ui_source_get(p->src, p->top, p->top + body, &lines, &got) != 0)
		got = 0;
	for (row = 0; row < ih; row++) {
		ui_blank(r.y + 1 + row, r.x + 1, r.w - 2, A_NORMAL);
		if (row < header) {
			ui_put_text(r.y + 1 + row, r.x + 1, r.w - 2,
			    ui_source_header(p->src, row), A_BOLD, 0);
			continue;
		}
		i = row - header;
		if (i < got)
			ui_pager_draw_line(p, &r, r.y + 1 + row, &lines[i],
			    numw);
	}
	ui_source_put(p->src, lines, got);
}

/*
 * Write the bottom line's reminder of the keys, read from the bindings:
 * the first key of each of a few actions of the view's mode.
 */
static void
ui_pager_hints(const struct ui_pager *p, char *buf, size_t size)
{
	static const struct {
		int			 which;	/* 1 view, 2 results, 4 copy */
		enum bind_action	 action;
		const char		*label;
	} hints[] = {
		{ 7, BIND_QUIT, "close" },
		{ 2, BIND_OPEN, "open" },
		{ 4, BIND_SELECT, "select" },
		{ 4, BIND_SELECT_LINE, "lines" },
		{ 4, BIND_YANK, "copy" },
		{ 7, BIND_UP, "up" },
		{ 7, BIND_DOWN, "down" },
		{ 7, BIND_PAGE_UP, "page up" },
		{ 7, BIND_PAGE_DOWN, "page down" },
		{ 7, BIND_TOP, "top" },
		{ 7, BIND_BOTTOM, "end" },
		{ 7, BIND_SEARCH_FORWARD, "search" },
		{ 7, BIND_SEARCH_NEXT, "next" },
		{ 1, BIND_NUMBERS, "numbers" },
		{ 1, BIND_TIMES, "times" },
		{ 1, BIND_FOLLOW, "follow" },
	};
	const struct bind	*bind = p->ui->bind;
	enum bind_mode		 mode = ui_pager_keys(p);
	char			 name[32];
	size_t			 i, len = 0;
	int			 which = 1, key;

	if (p->flags & UI_PAGER_COPY)
		which = 4;
	else if (ui_source_has_targets(p->src))
		which = 2;
	buf[0] = '\0';
	for (i = 0; i < sizeof hints / sizeof hints[0] && len < size; i++) {
		if (!(hints[i].which & which) ||
		    (key = bind_first_key(bind, mode, hints[i].action)) ==
		    BIND_NO_KEY)
			continue;
		len += (size_t)snprintf(buf + len, size - len, "%s%s: %s",
		    len > 0 ? "  " : "", bind_key_name(key, name, sizeof name),
		    hints[i].label);
	}
}

/*
 * A mode's bottom line: the search typed, the view's status, or its
 * keys.
 */
void
ui_pager_draw_bottom(struct ui_mode_entry *me)
{
	struct ui_pager	*p = me->data;
	struct ui	*ui = p->ui;
	const wchar_t	*text;
	wchar_t		 wc[2] = { 0, 0 };
	size_t		 len, i;
	int		 y = ui->rows - 1, x = 1, w;
	char		 hint[512];

	if (p->prompt != 0) {
		wc[0] = (wchar_t)p->prompt;
		ui_put_wc(y, 0, wc, A_BOLD, 0);
		text = lineedit_text(p->edit, &len);
		for (i = 0; i < len; i++) {
			w = ui_text_wcwidth(text[i]);
			if (x + w > ui->cols - 1)
				break;
			wc[0] = text[i];
			ui_put_wc(y, x, wc, A_NORMAL, 0);
			x += w;
		}
		return;
	}
	if (p->status[0] != '\0') {
		ui_put_text(y, 1, ui->cols - 2, p->status, p->status_error ?
		    A_BOLD : A_NORMAL, p->status_error ?
		    ui_semantic(UI_C_ERROR) : 0);
		return;
	}
	ui_pager_hints(p, hint, sizeof hint);
	ui_put_text(y, 1, ui->cols - 2, hint, A_DIM, 0);
}

/*
 * A mode's draw: the text view; once more when reading its lines
 * shortened it (damage in the store found as they were read), so the
 * view is on its text and the line saying so.
 */
void
ui_pager_draw(struct ui_mode_entry *me)
{
	struct ui_pager	*p = me->data;
	int64_t		 count = ui_source_count(p->src);

	ui_pager_draw_once(p);
	if (ui_source_count(p->src) != count)
		ui_pager_draw_once(p);
}
