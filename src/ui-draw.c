/*
 * ui-draw.c: the drawing primitives (text, boxes, lines), the pane with the
 * selected job's terminal and the prompt line, then one doupdate() a turn.
 * The panel is drawn by ui-panel.c, text views by ui-pager-draw.c and
 * colours come from ui-colour.c.
 */
#include <sys/wait.h>

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "job.h"
#include "jobfield.h"
#include "jobtable.h"
#include "lineedit.h"
#include "loop.h"
#include "store.h"
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
 * the columns [sel_from, sel_to) are a mouse selection, drawn reversed.
 */
static void
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

/*
 * Return the cells shown on row of the pane's inside (n of them; NULL
 * and 0 past the end), scrolled back ui->scroll lines.
 */
const struct vt_cell *
ui_pane_cells(const struct ui *ui, const struct vt *vt, int row, int *n)
{
	int	sb = vt_scrollback_count(vt);

	if (row < ui->scroll)
		return vt_scrollback_line(vt, sb - ui->scroll + row, n);
	if (row - ui->scroll < vt_rows(vt)) {
		*n = vt_cols(vt);
		return vt_screen_row(vt, row - ui->scroll);
	}
	*n = 0;
	return NULL;
}

/* Draw the pane: the selected job's terminal, scrolled back if asked. */
static void
ui_draw_pane(struct ui *ui, int all)
{
	const struct ui_rect	*r = &ui->pane;
	const struct vt_cell	*cells;
	struct job		*job = ui->selected;
	struct vt		*vt = NULL;
	char			 title[1100], right[64], cmd[1024], marks[32];
	char			*label;
	char			 key[sizeof ((struct ui *)0)->pane_key];
	int			 focused = ui->flags & UI_FOCUSED;
	int			 ih = r->h - 2, iw = r->w - 2, row, n, rev;
	int			 room, from, to;

	title[0] = right[0] = '\0';
	if (job != NULL) {
		if (ui->scroll > 0)
			snprintf(right, sizeof right, "↑%d  PID %ld", ui->scroll,
			    (long)job_pid(job));
		else if (job_pid(job) > 0)
			snprintf(right, sizeof right, "PID %ld",
			    (long)job_pid(job));
		/*
		 * Cut the label, never the marks; narrow, the PID goes
		 * and the marks shrink first so the command keeps a dozen.
		 */
		snprintf(marks, sizeof marks, "%s%s", focused ? " [Focused]" :
		    "", (ui->flags & UI_ZOOMED) ? " [Zoom]" : "");
		room = r->w - 12 - ui_text_width(right) - ui_text_width(marks);
		if (room < 12) {
			if (ui->scroll == 0)
				right[0] = '\0';
			snprintf(marks, sizeof marks, "%s%s", focused ? " [F]" :
			    "", (ui->flags & UI_ZOOMED) ? " [Z]" : "");
			room = r->w - 12 - ui_text_width(right) -
			    ui_text_width(marks);
		}
		/* Named as in the panel and !ps: "NAME: COMMAND". */
		label = jobfield_label(job, 0);
		ui_fit(label, room, cmd, sizeof cmd);
		free(label);
		snprintf(title, sizeof title, "[%d] %s%s", job_id(job), cmd,
		    marks);
		vt = job_vt(job);
	}
	/*
	 * The frame only when it changed: redrawn, its sides would touch
	 * every row and curses would compare them all on each echo.
	 */
	snprintf(key, sizeof key, "%d\x01%s\x01%s", focused,
	    job != NULL ? title : "", right);
	if (all || strcmp(key, ui->pane_key) != 0) {
		ui_box(r, job != NULL ? title : "No job selected",
		    right[0] != '\0' ? right : NULL,
		    focused ? A_BOLD : A_NORMAL,
		    focused ? ui_semantic(UI_C_FOCUS) : 0);
		snprintf(ui->pane_key, sizeof ui->pane_key, "%s", key);
	}
	if (vt == NULL) {
		for (row = 0; row < ih; row++)
			ui_blank(r->y + 1 + row, r->x + 1, iw, A_NORMAL);
		return;
	}
	rev = vt_reverse_video(vt);
	for (row = 0; row < ih; row++) {
		if (!all && ui->scroll == 0 && row < vt_rows(vt) &&
		    !vt_row_dirty(vt, row))
			continue;
		cells = ui_pane_cells(ui, vt, row, &n);
		if (!ui_drag_cols(ui, row, &from, &to))
			from = to = -1;
		ui_draw_cells(vt, cells, n < iw ? n : iw, r->y + 1 + row,
		    r->x + 1, iw, rev, from, to);
	}
	vt_clear_dirty(vt);
}

/*
 * Return the columns the message takes beside the typed line: all it
 * needs if the line leaves them (the prompt, the line, its cursor and two
 * blanks between), else what it leaves, but at least half the screen.
 */
static int
ui_message_width(const struct ui *ui)
{
	const wchar_t	*text;
	size_t		 len, i;
	int		 typed = 0, room, mw;

	if ((mw = ui_text_width(ui->message)) == 0)
		return 0;
	text = lineedit_text(ui->edit, &len);
	for (i = 0; i < len; i++)
		typed += wcwidth(text[i]) < 1 ? 1 : wcwidth(text[i]);
	room = ui->cols - 6 - typed;
	if (room < ui->cols / 2)
		room = ui->cols / 2;
	return mw < room ? mw : room;
}

/*
 * Return the first character of the typed line to show so that the cursor
 * fits in the columns left beside the message (stored in *avail).
 */
static size_t
ui_prompt_start(const struct ui *ui, int *avail)
{
	const wchar_t	*text;
	size_t		 len, start;
	int		 mw, used, w;

	text = lineedit_text(ui->edit, &len);
	mw = ui_message_width(ui);
	*avail = ui->cols - 3 - (mw > 0 ? mw + 2 : 0);
	if (*avail < 10)
		*avail = ui->cols - 3;
	/* Walk back from the cursor, keeping one column for it. */
	start = lineedit_cursor(ui->edit);
	used = 1;
	while (start > 0) {
		w = wcwidth(text[start - 1]);
		if (w < 1)
			w = 1;
		if (used + w > *avail)
			break;
		used += w;
		start--;
	}
	return start;
}

/*
 * Draw the bottom line: the prompt and the message (cut in the middle
 * when it does not fit: its end says how things ended), or the focus
 * hint.
 */
static void
ui_draw_prompt(struct ui *ui)
{
	const wchar_t	*text;
	size_t		 len, start;
	wchar_t		 wc[2] = { 0, 0 };
	int		 y = ui->rows - 1, x, width, mw, avail, pair, room;
	char		 hint[UI_MESSAGE_MAX + 64], key[32], fit[UI_MESSAGE_MAX];
	char		 back[64], *label;

	ui_blank(y, 0, ui->cols, A_NORMAL);
	pair = ui->message_error ? ui_semantic(UI_C_ERROR) : 0;
	if (ui->flags & UI_QUITTING) {
		ui_fit_middle(ui->message, ui->cols - 2, fit, sizeof fit);
		ui_put_text(y, 1, ui->cols - 2, fit, A_BOLD, 0);
		return;
	}
	if (ui->flags & UI_FOCUSED) {
		/* The label is cut, never the way back. */
		snprintf(back, sizeof back, "  ·  %s: back", bind_key_name(
		    bind_first_key(ui->bind, BIND_MAIN, BIND_FOCUS), key,
		    sizeof key));
		snprintf(hint, sizeof hint, "  [Focused] keys go to [%d] ",
		    job_id(ui->selected));
		room = ui->cols - ui_text_width(hint) - ui_text_width(back);
		label = jobfield_label(ui->selected, 0);
		ui_fit(label, room > 1 ? room : 1, fit, sizeof fit);
		free(label);
		snprintf(hint + strlen(hint), sizeof hint - strlen(hint),
		    "%s%s", fit, back);
		ui_put_text(y, 0, ui->cols, hint, A_BOLD,
		    ui_semantic(UI_C_FOCUS));
		return;
	}
	if (ui->pager != NULL) {
		ui_pager_draw_bottom(ui);
		return;
	}
	if ((mw = ui_message_width(ui)) > 0) {
		ui_fit_middle(ui->message, mw, fit, sizeof fit);
		ui_put_text(y, ui->cols - mw - 1, mw, fit,
		    ui->message_error ? A_BOLD : A_NORMAL, pair);
	}
	ui_put_text(y, 0, 2, "> ", A_BOLD, 0);
	text = lineedit_text(ui->edit, &len);
	start = ui_prompt_start(ui, &avail);
	x = 2;
	for (; start < len && x - 2 < avail; start++) {
		width = wcwidth(text[start]);
		if (width < 1)
			width = 1;
		if (x - 2 + width > avail)
			break;
		/* A pasted newline shows as ⏎, one column. */
		wc[0] = text[start] == L'\n' ? 0x23ce : text[start];
		ui_put_wc(y, x, wc, A_NORMAL, 0);
		x += width;
	}
}

/* Show or hide the terminal cursor, telling curses only of changes. */
static void
ui_cursor_visible(int visible)
{
	static int	shown = -1;

	if (visible != shown) {
		curs_set(visible);
		shown = visible;
	}
}

/* Put the terminal cursor where the user types. */
static void
ui_place_cursor(struct ui *ui)
{
	const wchar_t	*text;
	struct vt	*vt;
	size_t		 len, cur, i, start;
	int		 row, col, x, avail;

	if (ui->pager != NULL && ui->pager->prompt != 0 &&
	    !(ui->flags & UI_QUITTING) && !ui->too_small) {
		text = lineedit_text(ui->pager->edit, &len);
		cur = lineedit_cursor(ui->pager->edit);
		for (i = 0, x = 1; i < cur && x < ui->cols - 1; i++)
			x += wcwidth(text[i]) < 1 ? 1 : wcwidth(text[i]);
		move(ui->rows - 1, x);
		ui_cursor_visible(1);
		return;
	}
	if (ui->pager != NULL && (ui->pager->flags & UI_PAGER_COPY) &&
	    !(ui->flags & UI_QUITTING) && !ui->too_small) {
		/* Copy mode's cursor, in the pane's body. */
		row = (int)(ui->pager->cursor - ui->pager->top);
		col = ui_copy_cursor_x(ui);
		if (col > ui->pane.w - 3)
			col = ui->pane.w - 3;
		move(ui->pane.y + 1 + row, ui->pane.x + 1 + col);
		ui_cursor_visible(1);
		return;
	}
	if (ui->pager != NULL || (ui->flags & UI_QUITTING) || ui->too_small) {
		ui_cursor_visible(0);
		return;
	}
	if (ui->flags & UI_FOCUSED) {
		vt = ui->selected != NULL ? job_vt(ui->selected) : NULL;
		if (vt == NULL) {
			move(ui->pane.y + 1, ui->pane.x + 1);
			ui_cursor_visible(1);
			return;
		}
		if (!vt_cursor(vt, &row, &col) || ui->scroll != 0 ||
		    row >= ui->pane.h - 2 || col >= ui->pane.w - 2) {
			ui_cursor_visible(0);
			return;
		}
		move(ui->pane.y + 1 + row, ui->pane.x + 1 + col);
		ui_cursor_visible(1);
		return;
	}
	text = lineedit_text(ui->edit, &len);
	cur = lineedit_cursor(ui->edit);
	start = ui_prompt_start(ui, &avail);
	x = 2;
	for (i = start; i < cur; i++)
		x += wcwidth(text[i]) < 1 ? 1 : wcwidth(text[i]);
	move(ui->rows - 1, x < ui->cols ? x : ui->cols - 1);
	ui_cursor_visible(1);
}

/* Draw the parts marked dirty, or all of them. */
static void
ui_draw_parts(struct ui *ui, int all)
{
	if (all)
		erase();
	if (ui->pager != NULL && !(ui->pager->flags & UI_PAGER_COPY)) {
		ui_pager_draw(ui);
		ui_draw_prompt(ui);
	} else {
		if (all || (ui->flags & UI_DRAW_PANEL))
			ui_draw_panel(ui);
		/* Copy mode is a view drawn in the pane. */
		if (ui->pager != NULL)
			ui_pager_draw(ui);
		else if (all || (ui->flags & UI_DRAW_PANE))
			ui_draw_pane(ui, all);
		if (all || (ui->flags & UI_DRAW_PROMPT))
			ui_draw_prompt(ui);
	}
}

/* Draw everything marked dirty, then update the terminal once. */
void
ui_draw(struct ui *ui)
{
	int	all = ui->flags & UI_DRAW_ALL;

	if (ui->too_small) {
		erase();
		ui_put_text(0, 0, ui->cols, "terminal too small", A_BOLD, 0);
		wnoutrefresh(stdscr);
		doupdate();
		return;
	}
	ui_draw_parts(ui, all);
	/* The colour pairs ran out: again, with a fresh table (ui_pair()). */
	if (ui_pair_renew()) {
		ui_draw_parts(ui, 1);
		ui_pair_renew();
	}
	ui_place_cursor(ui);
	wnoutrefresh(stdscr);
	doupdate();
}

