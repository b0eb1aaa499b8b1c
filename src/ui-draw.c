/*
 * ui-draw.c: drawing the panel of jobs, the pane with the selected job's
 * terminal, and the prompt line into curses, then one doupdate().  Colours
 * are reduced to what the outer terminal has: 256-colour indices and RGB
 * map onto xterm's cube and grey ramp, or onto the 16 or 8 basic colours.
 */
#include <sys/wait.h>

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "job.h"
#include "jobtable.h"
#include "lineedit.h"
#include "loop.h"
#include "store.h"
#include "ui-private.h"
#include "vt.h"

/* Semantic colours of the front end's own parts. */
enum ui_colour {
	UI_C_ACTIVE,
	UI_C_DONE,
	UI_C_FAILED,
	UI_C_CANCELED,
	UI_C_FOCUS,
	UI_C_ERROR,
	UI_C_DIM
};

static int	ui_semantic(enum ui_colour);
static void	ui_pager_draw_bottom(struct ui *);

/* The xterm palette's first 16 colours, as RGB. */
static const uint8_t ui_basic_rgb[16][3] = {
	{ 0, 0, 0 }, { 205, 0, 0 }, { 0, 205, 0 }, { 205, 205, 0 },
	{ 0, 0, 238 }, { 205, 0, 205 }, { 0, 205, 205 }, { 229, 229, 229 },
	{ 127, 127, 127 }, { 255, 0, 0 }, { 0, 255, 0 }, { 255, 255, 0 },
	{ 92, 92, 255 }, { 255, 0, 255 }, { 0, 255, 255 }, { 255, 255, 255 },
};

static const int ui_cube_levels[6] = { 0, 95, 135, 175, 215, 255 };

/* The most characters (base and marks) taken from one cell. */
#define UI_MAX_CHARS	8

/* Start colours with the terminal's defaults; returns whether it has any. */
int
ui_draw_init_colours(void)
{
	int	c;

	if (!has_colors())
		return 0;
	start_color();
	if (use_default_colors() != OK)
		assume_default_colors(COLOR_WHITE, COLOR_BLACK);
	/* The front end's own colours first, so they always have a pair. */
	for (c = 0; c <= UI_C_DIM; c++)
		ui_semantic((enum ui_colour)c);
	return 1;
}

/* Return the RGB value of a 256-colour palette index. */
static void
ui_index_rgb(int idx, int rgb[3])
{
	int	i;

	if (idx < 16) {
		for (i = 0; i < 3; i++)
			rgb[i] = ui_basic_rgb[idx][i];
	} else if (idx < 232) {
		idx -= 16;
		rgb[0] = ui_cube_levels[idx / 36];
		rgb[1] = ui_cube_levels[idx / 6 % 6];
		rgb[2] = ui_cube_levels[idx % 6];
	} else
		rgb[0] = rgb[1] = rgb[2] = 8 + 10 * (idx - 232);
}

/* Return the squared distance between two RGB colours. */
static int
ui_rgb_distance(const int a[3], const int b[3])
{
	int	d = 0, i;

	for (i = 0; i < 3; i++)
		d += (a[i] - b[i]) * (a[i] - b[i]);
	return d;
}

/* Return the nearest of the first n basic colours to an RGB colour. */
static int
ui_nearest_basic(const int rgb[3], int n)
{
	int	best = 0, bestd = -1, d, i, c[3];

	for (i = 0; i < n; i++) {
		ui_index_rgb(i, c);
		d = ui_rgb_distance(rgb, c);
		if (bestd == -1 || d < bestd) {
			best = i;
			bestd = d;
		}
	}
	return best;
}

/* Return the nearest index of xterm's cube or grey ramp to an RGB colour. */
static int
ui_nearest_256(const int rgb[3])
{
	int	cube[3], idx[3], grey, gidx, c[3], i, best;

	for (i = 0; i < 3; i++) {
		idx[i] = rgb[i] < 48 ? 0 : rgb[i] < 115 ? 1 :
		    (rgb[i] - 35) / 40;
		cube[i] = ui_cube_levels[idx[i]];
	}
	best = 16 + 36 * idx[0] + 6 * idx[1] + idx[2];
	grey = (rgb[0] + rgb[1] + rgb[2]) / 3;
	gidx = grey > 238 ? 23 : grey < 8 ? 0 : (grey - 3) / 10;
	c[0] = c[1] = c[2] = 8 + 10 * gidx;
	if (ui_rgb_distance(rgb, c) < ui_rgb_distance(rgb, cube))
		best = 232 + gidx;
	return best;
}

/* Map a vt colour word to a curses colour number (-1: default). */
static int
ui_colour(uint32_t word)
{
	int	rgb[3], idx;

	switch (VT_COLOR_KIND(word)) {
	case VT_COLOR_INDEXED:
		idx = (int)(word & 0xff);
		if (COLORS >= 256 || idx < COLORS)
			return idx;
		if (idx < 16 && COLORS >= 8)
			return idx - 8;
		ui_index_rgb(idx, rgb);
		break;
	case VT_COLOR_RGB:
		rgb[0] = (int)(word >> 16 & 0xff);
		rgb[1] = (int)(word >> 8 & 0xff);
		rgb[2] = (int)(word & 0xff);
		if (COLORS >= 256)
			return ui_nearest_256(rgb);
		break;
	default:
		return -1;
	}
	if (COLORS < 8)
		return -1;
	return ui_nearest_basic(rgb, COLORS >= 16 ? 16 : 8);
}

/*
 * Return a colour pair for fg on bg, remembering the last one asked for.
 * A new pair is made only while the terminal has free ones: when ncurses'
 * alloc_pair() recycles a pair, every cell already drawn with it changes
 * colour, so once the table is full the nearest existing pair (the same
 * foreground on the default background) stands in.  The counter is module
 * state because the pair table it counts is curses' own, one per process.
 */
static int
ui_pair(int fg, int bg)
{
	static int	last_fg = -2, last_bg = -2, last_pair, made;
	int		pair;

	if (COLORS < 8 || (fg == -1 && bg == -1))
		return 0;
	if (fg == last_fg && bg == last_bg)
		return last_pair;
	pair = find_pair(fg, bg);
	if (pair < 0 && made < COLOR_PAIRS - 1) {
		pair = alloc_pair(fg, bg);
		if (pair > 0)
			made++;
	}
	if (pair < 0)
		pair = find_pair(fg, -1);
	if (pair < 0)
		pair = 0;
	last_fg = fg;
	last_bg = bg;
	last_pair = pair;
	return pair;
}

/* Return the pair of one of the front end's own colours. */
static int
ui_semantic(enum ui_colour c)
{
	static const short fg[] = {
		[UI_C_ACTIVE] = COLOR_GREEN,
		[UI_C_DONE] = COLOR_GREEN,
		[UI_C_FAILED] = COLOR_RED,
		[UI_C_CANCELED] = COLOR_YELLOW,
		[UI_C_FOCUS] = COLOR_YELLOW,
		[UI_C_ERROR] = COLOR_RED,
		[UI_C_DIM] = COLOR_BLUE,
	};

	return ui_pair(fg[c], -1);
}

/* Put one wide string of n characters at y, x with attributes and pair. */
static void
ui_put_wc(int y, int x, const wchar_t *wc, attr_t attr, int pair)
{
	cchar_t	cc;

	setcchar(&cc, wc, attr, 0, &pair);
	mvadd_wch(y, x, &cc);
}

/*
 * Write len bytes of UTF-8 text at y, x in at most width columns; returns
 * the columns used.  Characters that cannot be shown become '?'.
 */
static int
ui_put_textn(int y, int x, int width, const char *s, size_t len, attr_t attr,
    int pair)
{
	mbstate_t	 mbs;
	wchar_t		 wc[2] = { 0, 0 };
	size_t		 n;
	int		 used = 0, w;

	memset(&mbs, 0, sizeof mbs);
	while (len > 0 && used < width) {
		n = mbrtowc(&wc[0], s, len, &mbs);
		if (n == (size_t)-1 || n == (size_t)-2) {
			memset(&mbs, 0, sizeof mbs);
			wc[0] = L'?';
			n = 1;
		} else if (n == 0)
			break;
		s += n;
		len -= n;
		w = wcwidth(wc[0]);
		if (w < 0) {
			wc[0] = L'?';
			w = 1;
		}
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
static int
ui_put_text(int y, int x, int width, const char *s, attr_t attr, int pair)
{
	return ui_put_textn(y, x, width, s, strlen(s), attr, pair);
}

/* Return the columns a UTF-8 string takes. */
static int
ui_text_width(const char *s)
{
	mbstate_t	mbs;
	wchar_t		wc;
	size_t		n, len = strlen(s);
	int		used = 0, w;

	memset(&mbs, 0, sizeof mbs);
	while (len > 0) {
		n = mbrtowc(&wc, s, len, &mbs);
		if (n == (size_t)-1 || n == (size_t)-2) {
			memset(&mbs, 0, sizeof mbs);
			n = 1;
			w = 1;
		} else if (n == 0)
			break;
		else
			w = wcwidth(wc) < 0 ? 1 : wcwidth(wc);
		s += n;
		len -= n;
		used += w;
	}
	return used;
}

/*
 * Copy UTF-8 text into out cut to at most cols columns, ending in an
 * ellipsis when something was cut.
 */
static void
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

/* Fill width columns at y, x with blanks. */
static void
ui_blank(int y, int x, int width, attr_t attr)
{
	int	i;

	for (i = 0; i < width; i++)
		ui_put_wc(y, x + i, L" ", attr, 0);
}

/* Draw a box with a title on the left and another on the right. */
static void
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
static void
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

/* Describe a job's state for line two of its panel entry. */
static void
ui_job_status(const struct job *job, int64_t now, char *text, size_t tsize,
    const char **mark, int *pair)
{
	char	 dur[32], how[64];

	job_format_duration(job_duration_ms(job, now), dur, sizeof dur);
	switch (job_state(job)) {
	case JOB_QUEUED:
		snprintf(text, tsize, "Queued");
		*mark = "… Queued";
		*pair = ui_semantic(UI_C_DIM);
		return;
	case JOB_RUNNING:
		snprintf(text, tsize, "Running for %s", dur);
		*mark = "◉ Active";
		*pair = ui_semantic(UI_C_ACTIVE);
		return;
	case JOB_STOPPED:
		snprintf(text, tsize, "Stopped after %s", dur);
		*mark = "‖ Stopped";
		*pair = ui_semantic(UI_C_DIM);
		return;
	case JOB_COMPLETED:
		*mark = "✓ Done";
		*pair = ui_semantic(UI_C_DONE);
		break;
	case JOB_FAILED:
		*mark = "✗ Failed";
		*pair = ui_semantic(UI_C_FAILED);
		break;
	case JOB_CANCELED:
		*mark = "⊘ Canceled";
		*pair = ui_semantic(UI_C_CANCELED);
		break;
	case JOB_TIMED_OUT:
		*mark = "⏱ Timed out";
		*pair = ui_semantic(UI_C_FAILED);
		break;
	}
	snprintf(text, tsize, "%s after %s", job_describe_end(job, how,
	    sizeof how), dur);
}

/* Draw the panel: a three-line entry per job, the selected one highlighted. */
static void
ui_draw_panel(struct ui *ui)
{
	const struct ui_rect	*r = &ui->panel;
	struct job		*job;
	const char		*mark = "";
	char			 title[64], left[1024], right[64], status[128];
	char			 last[512];
	int64_t			 now = loop_now_ms();
	int			 n, i, y, iw = r->w - 2, pair = 0;
	attr_t			 sel;

	snprintf(title, sizeof title, "Processes (%d running)",
	    jobtable_running(ui->jt));
	ui_box(r, title, NULL, A_NORMAL, 0);
	for (y = r->y + 1; y < r->y + r->h - 1; y++)
		ui_blank(y, r->x + 1, iw, A_NORMAL);
	n = jobtable_count(ui->jt);
	if (n == 0) {
		ui_line(r->y + 1, r->x + 1, iw, " No jobs yet: type a command "
		    "below", A_DIM, 0, NULL, 0, 0);
		return;
	}
	y = r->y + 1;
	for (i = ui->panel_top; i < n && y + 2 < r->y + r->h - 1 + 0; i++) {
		job = jobtable_get(ui->jt, i);
		sel = job == ui->selected ? A_REVERSE : A_NORMAL;
		snprintf(left, sizeof left, "[%d] %s%s%s", job_id(job),
		    job_name(job) != NULL ? job_name(job) : "",
		    job_name(job) != NULL ? ": " : "", job_command(job));
		if (job_pid(job) <= 0)
			right[0] = '\0';	/* queued: never ran yet */
		else
			snprintf(right, sizeof right, "%sPID: %ld",
			    job_is_pty(job) ? "" : "no terminal ",
			    (long)job_pid(job));
		ui_line(y, r->x + 1, iw, left, sel | A_BOLD, 0, right, sel, 0);

		ui_job_status(job, now, status, sizeof status, &mark, &pair);
		snprintf(left, sizeof left, "  %s", status);
		ui_line(y + 1, r->x + 1, iw, left, A_NORMAL, 0, mark, A_BOLD,
		    pair);

		job_last_line(job, last, sizeof last);
		snprintf(left, sizeof left, "  Last output: %s", last);
		ui_line(y + 2, r->x + 1, iw, left, A_DIM, 0, NULL, 0, 0);
		y += 3;
	}
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

/* Draw a row of cells (n of them, the rest blank) at y, x across width. */
static void
ui_draw_cells(const struct vt *vt, const struct vt_cell *cells, int n, int y,
    int x, int width, int reverse)
{
	static const struct vt_cell	blank = { 0, 0, 0, 0, 0 };
	const struct vt_cell		*c, *next;
	int				 col;

	for (col = 0; col < width; col++) {
		c = col < n ? &cells[col] : &blank;
		if (c->ch == VT_CELL_WIDE_RIGHT) {
			if (col == 0 || cells[col - 1].ch == VT_CELL_BLANK ||
			    wcwidth((wchar_t)cells[col - 1].ch) != 2)
				ui_draw_cell(vt, &blank, 0, y, x + col,
				    width - col, reverse);
			continue;
		}
		next = col + 1 < n ? &cells[col + 1] : NULL;
		ui_draw_cell(vt, c, next != NULL &&
		    next->ch == VT_CELL_WIDE_RIGHT, y, x + col, width - col,
		    reverse);
	}
}

/* Draw the pane: the selected job's terminal, scrolled back if asked. */
static void
ui_draw_pane(struct ui *ui, int all)
{
	const struct ui_rect	*r = &ui->pane;
	const struct vt_cell	*cells;
	struct job		*job = ui->selected;
	struct vt		*vt = NULL;
	char			 title[1100], right[64], cmd[1024];
	char			 key[sizeof ((struct ui *)0)->pane_key];
	int			 focused = ui->flags & UI_FOCUSED;
	int			 ih = r->h - 2, iw = r->w - 2, row, n, sb, rev;

	title[0] = right[0] = '\0';
	if (job != NULL) {
		/* Cut the command, never the [Focused] mark. */
		ui_fit(job_command(job), r->w - 30 - (focused ? 10 : 0), cmd,
		    sizeof cmd);
		snprintf(title, sizeof title, "[%d] %s%s", job_id(job), cmd,
		    focused ? " [Focused]" : "");
		if (ui->scroll > 0)
			snprintf(right, sizeof right, "↑%d  PID %ld", ui->scroll,
			    (long)job_pid(job));
		else if (job_pid(job) > 0)
			snprintf(right, sizeof right, "PID %ld",
			    (long)job_pid(job));
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
	sb = vt_scrollback_count(vt);
	for (row = 0; row < ih; row++) {
		if (row < ui->scroll) {
			cells = vt_scrollback_line(vt, sb - ui->scroll + row, &n);
		} else if (row - ui->scroll < vt_rows(vt)) {
			if (!all && ui->scroll == 0 && !vt_row_dirty(vt, row))
				continue;
			cells = vt_screen_row(vt, row - ui->scroll);
			n = vt_cols(vt);
		} else {
			cells = NULL;
			n = 0;
		}
		ui_draw_cells(vt, cells, n < iw ? n : iw, r->y + 1 + row,
		    r->x + 1, iw, rev);
	}
	vt_clear_dirty(vt);
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
	mw = ui_text_width(ui->message);
	if (mw > ui->cols / 2)
		mw = ui->cols / 2;
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

/* Draw the bottom line: the prompt and the message, or the focus hint. */
static void
ui_draw_prompt(struct ui *ui)
{
	const wchar_t	*text;
	size_t		 len, start;
	wchar_t		 wc[2] = { 0, 0 };
	int		 y = ui->rows - 1, x, width, mw, avail, pair;
	char		 hint[256];

	ui_blank(y, 0, ui->cols, A_NORMAL);
	pair = ui->message_error ? ui_semantic(UI_C_ERROR) : 0;
	if (ui->flags & UI_QUITTING) {
		ui_put_text(y, 1, ui->cols - 2, ui->message, A_BOLD, 0);
		return;
	}
	if (ui->flags & UI_FOCUSED) {
		snprintf(hint, sizeof hint, "  [Focused] keys go to [%d] %s  ·  "
		    "%s: back", job_id(ui->selected),
		    job_command(ui->selected), ui->focus_name);
		ui_put_text(y, 0, ui->cols, hint, A_BOLD,
		    ui_semantic(UI_C_FOCUS));
		return;
	}
	if (ui->pager != NULL) {
		ui_pager_draw_bottom(ui);
		return;
	}
	mw = ui_text_width(ui->message);
	if (mw > ui->cols / 2)
		mw = ui->cols / 2;
	if (mw > 0)
		ui_put_text(y, ui->cols - mw - 1, mw, ui->message,
		    ui->message_error ? A_BOLD : A_NORMAL, pair);
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
		wc[0] = text[start];
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
	if (all)
		erase();
	if (ui->pager != NULL) {
		ui_pager_draw(ui);
		ui_draw_prompt(ui);
	} else {
		if (all || (ui->flags & UI_DRAW_PANEL))
			ui_draw_panel(ui);
		if (all || (ui->flags & UI_DRAW_PANE))
			ui_draw_pane(ui, all);
		if (all || (ui->flags & UI_DRAW_PROMPT))
			ui_draw_prompt(ui);
	}
	ui_place_cursor(ui);
	wnoutrefresh(stdscr);
	doupdate();
}

#define UI_PAGER_MARKS	32	/* highlighted spans drawn in one line */

/*
 * Find the spans of line l to highlight, sorted: the source's own mark (a
 * grep's match) and every match of the view's search in the bytes that
 * can be on the screen; returns how many, their bounds in so[] and eo[].
 */
static int
ui_pager_marks(const struct ui_pager *p, const struct store_line *l,
    size_t scan, size_t *so, size_t *eo)
{
	size_t	len = l->len < scan ? l->len : scan, off = 0, s, e, ts, te;
	int	n = 0, i;

	if (ui_source_mark(p->src, l->no, &so[0], &eo[0]))
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
 * Draw the text of a line at y, x in width columns with its spans of
 * marks reversed; returns the columns used.
 */
static int
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

/*
 * Draw one body line of the text view at row y: its number and time when
 * asked, a results view's choice, then its text (stderr in red).
 */
static void
ui_pager_draw_line(struct ui *ui, int y, const struct store_line *l,
    int numw)
{
	struct ui_pager	*p = ui->pager;
	size_t		 so[UI_PAGER_MARKS], eo[UI_PAGER_MARKS];
	char		 pre[64], when[32];
	int		 x = 1, width = ui->cols - 2, n, pair = 0;
	attr_t		 attr = A_NORMAL;

	if (ui_source_has_targets(p->src)) {
		if (l->no == p->cursor)
			attr = A_BOLD;
		x += ui_put_text(y, x, width, l->no == p->cursor ? "> " :
		    "  ", attr, 0);
	}
	if (p->flags & UI_PAGER_NUMBERS) {
		snprintf(pre, sizeof pre, "%*lld ", numw,
		    (long long)l->no + 1);
		x += ui_put_text(y, x, width - (x - 1), pre, A_DIM, 0);
	}
	if (p->flags & UI_PAGER_TIMES) {
		if (l->time > 0)
			ui_format_time(l->time, 1, when, sizeof when);
		else
			snprintf(when, sizeof when, "%12s", "");
		snprintf(pre, sizeof pre, "%s ", when);
		x += ui_put_text(y, x, width - (x - 1), pre, A_DIM, 0);
	}
	if (l->stream == STORE_STDERR)
		pair = ui_semantic(UI_C_ERROR);
	n = ui_pager_marks(p, l, (size_t)ui->cols * 8 + 64, so, eo);
	ui_put_marked(y, x, width - (x - 1), l->text, l->len, so, eo, n, attr,
	    pair);
}

/* Draw the text view: a box over the whole screen and the visible lines. */
void
ui_pager_draw(struct ui *ui)
{
	struct ui_pager		*p = ui->pager;
	struct ui_rect		 r = { 0, 0, ui->rows - 1, ui->cols };
	struct store_line	*lines = NULL;
	char			 pos[128], drop[48], title[1024], digits[24];
	int			 row, ih = r.h - 2, body, header, got = 0, i;
	int			 numw;
	int64_t			 first, count;

	header = ui_source_headers(p->src);
	if (header > ih)
		header = ih;
	body = ui_pager_body(ui);
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
		ui_blank(r.y + 1 + row, 1, r.w - 2, A_NORMAL);
		if (row < header) {
			ui_put_text(r.y + 1 + row, 1, r.w - 2,
			    ui_source_header(p->src, row), A_BOLD, 0);
			continue;
		}
		i = row - header;
		if (i < got)
			ui_pager_draw_line(ui, r.y + 1 + row, &lines[i], numw);
	}
	ui_source_put(p->src, lines, got);
}

/* Draw the text view's bottom line: the search typed, a status, or keys. */
static void
ui_pager_draw_bottom(struct ui *ui)
{
	struct ui_pager	*p = ui->pager;
	const wchar_t	*text;
	wchar_t		 wc[2] = { 0, 0 };
	size_t		 len, i;
	int		 y = ui->rows - 1, x = 1, w;

	if (p->prompt != 0) {
		wc[0] = (wchar_t)p->prompt;
		ui_put_wc(y, 0, wc, A_BOLD, 0);
		text = lineedit_text(p->edit, &len);
		for (i = 0; i < len; i++) {
			w = wcwidth(text[i]) < 1 ? 1 : wcwidth(text[i]);
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
	ui_put_text(y, 1, ui->cols - 2, ui_source_has_targets(p->src) ?
	    "q: close  Enter: open  ↑ ↓ PgUp PgDn g G: move  / ? n N: search" :
	    "q: close  ↑ ↓ PgUp PgDn g G: move  / ? n N: search  #: numbers  "
	    "t: times  F: follow", A_DIM, 0);
}
