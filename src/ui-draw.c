/*
 * ui-draw.c: the drawing primitives, the front end's ground floor: a
 * shown character and its columns, text fitted to a width, blanks, boxes,
 * lines of text, marked spans and an emulator's cells with their
 * attributes.  It knows no part of the screen and calls nothing of the
 * front end but its colours (ui-colour.c); the pane, the panel, the modes
 * and the frame (ui-frame.c) draw with it.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "ui-private.h"
#include "vt.h"
#include "xmalloc.h"

/* The most characters (base and marks) taken from one cell. */
#define UI_MAX_CHARS	8

/* Put one wide string of n characters at y, x with attributes and pair. */
void
ui_put_wc(int y, int x, const wchar_t *wc, attr_t attr, int pair)
{
	cchar_t	cc;

	setcchar(&cc, wc, attr, 0, &pair);
	mvadd_wch(y, x, &cc);
}

/*
 * Decode the character at s (len bytes at most) as the screen shows it:
 * its wide character in *wc (an invalid byte or a control is '?') and its
 * columns in *width (a mark takes none); returns its bytes, 0 at the end.
 */
size_t
ui_text_char(const char *s, size_t len, wchar_t *wc, int *width)
{
	mbstate_t	mbs;
	size_t		n;

	memset(&mbs, 0, sizeof mbs);
	if (len == 0)
		return 0;
	n = mbrtowc(wc, s, len, &mbs);
	if (n == 0)
		return 0;
	if (n == (size_t)-1 || n == (size_t)-2) {
		*wc = L'?';
		*width = 1;
		return 1;
	}
	*width = wcwidth(*wc);
	if (*width < 0) {
		*wc = L'?';
		*width = 1;
	}
	return n;
}

/*
 * Write len bytes of UTF-8 text at y, x in at most width columns; returns
 * the columns used.  Characters that cannot be shown become '?'.
 */
int
ui_put_textn(int y, int x, int width, const char *s, size_t len, attr_t attr,
    int pair)
{
	wchar_t		 wc[2] = { 0, 0 };
	size_t		 n;
	int		 used = 0, w;

	while ((n = ui_text_char(s, len, &wc[0], &w)) > 0 && used < width) {
		s += n;
		len -= n;
		if (w == 0)
			continue;
		if (used + w > width)
			break;
		ui_put_wc(y, x + used, wc, attr, pair);
		used += w;
	}
	return used;
}

/*
 * Write UTF-8 text at y, x in at most width columns; returns the columns
 * used.
 */
int
ui_put_text(int y, int x, int width, const char *s, attr_t attr, int pair)
{
	return ui_put_textn(y, x, width, s, strlen(s), attr, pair);
}

/* Return the columns len bytes of UTF-8 text take. */
int
ui_text_widthn(const char *s, size_t len)
{
	wchar_t	wc;
	size_t	n;
	int	used = 0, w;

	while ((n = ui_text_char(s, len, &wc, &w)) > 0) {
		s += n;
		len -= n;
		used += w;
	}
	return used;
}

/* Return the columns a UTF-8 string takes. */
int
ui_text_width(const char *s)
{
	return ui_text_widthn(s, strlen(s));
}

/*
 * Copy UTF-8 text into out cut to at most cols columns, ending in an
 * ellipsis when something was cut.
 */
void
ui_fit(const char *s, int cols, char *out, size_t size)
{
	mbstate_t	 mbs;
	wchar_t		 wc;
	size_t		 n, len = strlen(s), o = 0;
	int		 used = 0, w;

	if (size == 0)
		return;
	if (ui_text_width(s) <= cols) {
		snprintf(out, size, "%s", s);
		return;
	}
	memset(&mbs, 0, sizeof mbs);
	while (len > 0 && cols > 1) {
		n = mbrtowc(&wc, s, len, &mbs);
		if (n == (size_t)-1 || n == (size_t)-2 || n == 0)
			break;
		w = wcwidth(wc) < 0 ? 1 : wcwidth(wc);
		if (used + w > cols - 1 || o + n + 4 > size)
			break;
		memcpy(out + o, s, n);
		o += n;
		used += w;
		s += n;
		len -= n;
	}
	if (cols >= 1 && o + 4 <= size) {
		memcpy(out + o, "…", 3);
		o += 3;
	}
	out[o] = '\0';
}

/*
 * Copy UTF-8 text into out cut to at most cols columns from the middle,
 * an ellipsis in its place, so that both ends show (the end of a message
 * says how it ended); the end gets the larger half.
 */
void
ui_fit_middle(const char *s, int cols, char *out, size_t size)
{
	wchar_t	 wc;
	size_t	 len = strlen(s), head = 0, tail, n;
	int	 total = ui_text_width(s), hw, tw, used = 0, rest, w;

	if (total <= cols || cols < 3) {
		ui_fit(s, cols, out, size);
		return;
	}
	hw = (cols - 1) / 2;
	tw = cols - 1 - hw;
	while ((n = ui_text_char(s + head, len - head, &wc, &w)) > 0 &&
	    used + w <= hw) {
		head += n;
		used += w;
	}
	rest = total - used;
	for (tail = head; rest > tw &&
	    (n = ui_text_char(s + tail, len - tail, &wc, &w)) > 0; tail += n)
		rest -= w;
	if (head + 3 + (len - tail) + 1 > size) {
		ui_fit(s, cols, out, size);
		return;
	}
	snprintf(out, size, "%.*s…%s", (int)head, s, s + tail);
}

/*
 * Copy head, inside and tail into out in at most cols columns, cutting
 * inside (to an ellipsis at least) so that head and tail, a pair of
 * brackets, stay whole; with no room for that, head alone, cut, without
 * its opening bracket and the blanks before it.
 */
void
ui_fit_inside(const char *head, const char *inside, const char *tail,
    int cols, char *out, size_t size)
{
	char	 fit[256], *bare;
	size_t	 len;
	int	 room;

	room = cols - ui_text_width(head) - ui_text_width(tail);
	if (room >= ui_text_width(inside)) {
		snprintf(out, size, "%s%s%s", head, inside, tail);
		return;
	}
	if (room >= 1) {
		ui_fit(inside, room, fit, sizeof fit);
		snprintf(out, size, "%s%s%s", head, fit, tail);
		return;
	}
	bare = xstrdup(head);
	len = strlen(bare);
	if (len > 0 && strchr("([{<", bare[len - 1]) != NULL)
		bare[--len] = '\0';
	while (len > 0 && bare[len - 1] == ' ')
		bare[--len] = '\0';
	ui_fit(bare, cols, out, size);
	free(bare);
}

/* Fill width columns at y, x with blanks. */
void
ui_blank(int y, int x, int width, attr_t attr)
{
	int	i;

	for (i = 0; i < width; i++)
		ui_put_wc(y, x + i, L" ", attr, 0);
}

/* Draw a box with a title on the left and another on the right. */
void
ui_box(const struct ui_rect *r, const char *title, const char *right,
    attr_t attr, int pair)
{
	cchar_t	hl, vl, ul, ur, ll, lr;
	int	used, rw;

	setcchar(&hl, L"─", attr, 0, &pair);
	setcchar(&vl, L"│", attr, 0, &pair);
	setcchar(&ul, L"┌", attr, 0, &pair);
	setcchar(&ur, L"┐", attr, 0, &pair);
	setcchar(&ll, L"└", attr, 0, &pair);
	setcchar(&lr, L"┘", attr, 0, &pair);
	mvadd_wch(r->y, r->x, &ul);
	mvhline_set(r->y, r->x + 1, &hl, r->w - 2);
	mvadd_wch(r->y, r->x + r->w - 1, &ur);
	mvvline_set(r->y + 1, r->x, &vl, r->h - 2);
	mvvline_set(r->y + 1, r->x + r->w - 1, &vl, r->h - 2);
	mvadd_wch(r->y + r->h - 1, r->x, &ll);
	mvhline_set(r->y + r->h - 1, r->x + 1, &hl, r->w - 2);
	mvadd_wch(r->y + r->h - 1, r->x + r->w - 1, &lr);

	rw = 0;
	if (right != NULL && r->w > 12) {
		rw = ui_text_width(right) + 2;
		if (rw > r->w / 2)
			rw = 0;
		else {
			ui_put_wc(r->y, r->x + r->w - 1 - rw, L" ", attr, pair);
			ui_put_text(r->y, r->x + r->w - rw, rw - 2, right,
			    attr | A_BOLD, pair);
			ui_put_wc(r->y, r->x + r->w - 2, L" ", attr, pair);
		}
	}
	if (title != NULL && r->w > 6) {
		ui_put_wc(r->y, r->x + 1, L" ", attr, pair);
		used = ui_put_text(r->y, r->x + 2, r->w - 5 - rw, title,
		    attr | A_BOLD, pair);
		ui_put_wc(r->y, r->x + 2 + used, L" ", attr, pair);
	}
}

/* Write left-aligned and right-aligned text on one line of width columns. */
void
ui_line(int y, int x, int width, const char *left, attr_t lattr, int lpair,
    const char *right, attr_t rattr, int rpair)
{
	char	fitted[1024];
	int	rw = 0;

	ui_blank(y, x, width, lattr);
	if (right != NULL) {
		rw = ui_text_width(right);
		if (rw >= width)
			rw = 0;
		else
			ui_put_text(y, x + width - rw, rw, right, rattr, rpair);
	}
	ui_fit(left, width - rw - (rw > 0), fitted, sizeof fitted);
	ui_put_text(y, x, width - rw - (rw > 0), fitted, lattr, lpair);
}

/*
 * Return the columns a typed character takes on a line being edited:
 * its width, and one for a character that has none (a control, a mark),
 * so that the cursor always moves past it.
 */
int
ui_text_wcwidth(wchar_t wc)
{
	int	w = wcwidth(wc);

	return w < 1 ? 1 : w;
}

/*
 * Draw the text of a line at y, x in width columns with its spans of
 * marks (so[i], eo[i]: n of them, sorted) reversed; returns the columns
 * used.
 */
int
ui_put_marked(int y, int x, int width, const char *text, size_t len,
    const size_t *so, const size_t *eo, int n, attr_t attr, int pair)
{
	size_t	pos = 0, s, e;
	int	used = 0, i;

	for (i = 0; i < n && used < width; i++) {
		s = so[i] > pos ? so[i] : pos;
		e = eo[i] < len ? eo[i] : len;
		if (s >= e)
			continue;
		used += ui_put_textn(y, x + used, width - used, text + pos,
		    s - pos, attr, pair);
		used += ui_put_textn(y, x + used, width - used, text + s,
		    e - s, attr | A_REVERSE, pair);
		pos = e;
	}
	if (pos < len && used < width)
		used += ui_put_textn(y, x + used, width - used, text + pos,
		    len - pos, attr, pair);
	return used;
}

/* Draw one emulator cell at y, x; room is the columns left in the row. */
static void
ui_draw_cell(const struct vt *vt, const struct vt_cell *c, int wide_next,
    int y, int x, int room, int reverse)
{
	uint32_t	chars[UI_MAX_CHARS];
	wchar_t		wc[CCHARW_MAX + 1];
	attr_t		attr = A_NORMAL;
	size_t		n, i;
	int		w, fg, bg;

	if (c->attrs & VT_ATTR_BOLD)
		attr |= A_BOLD;
	if (c->attrs & VT_ATTR_UNDERLINE)
		attr |= A_UNDERLINE;
	if (c->attrs & VT_ATTR_ITALIC)
		attr |= A_ITALIC;
	if (c->attrs & VT_ATTR_BLINK)
		attr |= A_BLINK;
	if (((c->attrs & VT_ATTR_REVERSE) != 0) != (reverse != 0))
		attr |= A_REVERSE;
	fg = ui_colour(c->fg);
	bg = ui_colour(c->bg);

	wc[0] = L' ';
	wc[1] = L'\0';
	if (c->ch != VT_CELL_BLANK && c->ch != VT_CELL_WIDE_RIGHT) {
		w = wcwidth((wchar_t)c->ch);
		/* Only what fits where the emulator put it. */
		if (w >= 1 && (w == 1 || (wide_next && room >= 2))) {
			n = vt_cell_text(vt, c, chars, UI_MAX_CHARS);
			for (i = 0; i < n && i < CCHARW_MAX; i++)
				wc[i] = (wchar_t)chars[i];
			wc[i] = L'\0';
		}
	}
	ui_put_wc(y, x, wc, attr, ui_pair(fg, bg));
	if (wc[0] != L' ' && wcwidth(wc[0]) == 1 && wide_next && room >= 2) {
		/* The emulator thinks it is wide; curses does not. */
		wc[0] = L' ';
		wc[1] = L'\0';
		ui_put_wc(y, x + 1, wc, attr, ui_pair(fg, bg));
	}
}

/*
 * Draw a row of cells (n of them, the rest blank) at y, x across width;
 * the columns [sel_from, sel_to) are selected, drawn reversed.
 */
void
ui_draw_cells(const struct vt *vt, const struct vt_cell *cells, int n, int y,
    int x, int width, int reverse, int sel_from, int sel_to)
{
	static const struct vt_cell	blank = { 0, 0, 0, 0, 0 };
	const struct vt_cell		*c, *next;
	int				 col, rev;

	for (col = 0; col < width; col++) {
		c = col < n ? &cells[col] : &blank;
		rev = reverse ^ (col >= sel_from && col < sel_to);
		if (c->ch == VT_CELL_WIDE_RIGHT) {
			if (col == 0 || cells[col - 1].ch == VT_CELL_BLANK ||
			    wcwidth((wchar_t)cells[col - 1].ch) != 2)
				ui_draw_cell(vt, &blank, 0, y, x + col,
				    width - col, rev);
			continue;
		}
		next = col + 1 < n ? &cells[col + 1] : NULL;
		ui_draw_cell(vt, c, next != NULL &&
		    next->ch == VT_CELL_WIDE_RIGHT, y, x + col, width - col,
		    rev);
	}
}
