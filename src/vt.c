/*
 * vt.c: one terminal emulator on libvterm 0.1.4's VTermState layer (see
 * vt-private.h for who owns what).
 *
 * The state parses the child's output and keeps the modes, the pen,
 * charsets, margins and tab stops; it also answers DA/DSR/DECRQM/DECRQSS
 * and encodes keys.  Bytes reach it through the filter (vt-filter.c); its
 * callbacks here keep the cells in our own grid (vt-grid.c), as the
 * guide's section 9 describes (docs/libvterm-ncurses-guide.md).
 *
 * The cells match VTermScreen's (the test suite compares them), including
 * its quirks: erases fill with the whole pen, continuation cells keep their
 * old pen, shrinking pushes only the rows needed to keep the cursor and the
 * text below it, growing pulls lines back, and pulled lines lose DECSCA.
 *
 * After every write an off-screen cursor (DECRC after a shrink) is clamped
 * back, and after a shrink a stale scroll region is found with DECRQSS and
 * reset.  Deviation from VTermScreen: cells never have DECSCNM folded in;
 * vt_reverse_video() reports it for the whole display, scrollback included.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vterm.h>

#include "utf8.h"
#include "vt.h"
#include "vt-private.h"
#include "xmalloc.h"

static int	cb_putglyph(VTermGlyphInfo *, VTermPos, void *);
static int	cb_movecursor(VTermPos, VTermPos, int, void *);
static int	cb_scrollrect(VTermRect, int, int, void *);
static int	cb_moverect(VTermRect, VTermRect, void *);
static int	cb_erase(VTermRect, int, void *);
static int	cb_initpen(void *);
static int	cb_setpenattr(VTermAttr, VTermValue *, void *);
static int	cb_settermprop(VTermProp, VTermValue *, void *);
static int	cb_bell(void *);
static int	cb_resize(int, int, VTermPos *, void *);
static int	cb_setlineinfo(int, const VTermLineInfo *,
		    const VTermLineInfo *, void *);
static void	state_printf(struct vt *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));

static const VTermStateCallbacks vt_state_cbs = {
	.putglyph = cb_putglyph,
	.movecursor = cb_movecursor,
	.scrollrect = cb_scrollrect,
	.moverect = cb_moverect,
	.erase = cb_erase,
	.initpen = cb_initpen,
	.setpenattr = cb_setpenattr,
	.settermprop = cb_settermprop,
	.bell = cb_bell,
	.resize = cb_resize,
	.setlineinfo = cb_setlineinfo
};

/* enum vt_key to libvterm's keys, for the keys below the function keys. */
static const VTermKey vt_keymap[] = {
	[VT_KEY_NONE] = VTERM_KEY_NONE,
	[VT_KEY_ENTER] = VTERM_KEY_ENTER,
	[VT_KEY_TAB] = VTERM_KEY_TAB,
	[VT_KEY_BACKSPACE] = VTERM_KEY_BACKSPACE,
	[VT_KEY_ESCAPE] = VTERM_KEY_ESCAPE,
	[VT_KEY_UP] = VTERM_KEY_UP,
	[VT_KEY_DOWN] = VTERM_KEY_DOWN,
	[VT_KEY_LEFT] = VTERM_KEY_LEFT,
	[VT_KEY_RIGHT] = VTERM_KEY_RIGHT,
	[VT_KEY_INS] = VTERM_KEY_INS,
	[VT_KEY_DEL] = VTERM_KEY_DEL,
	[VT_KEY_HOME] = VTERM_KEY_HOME,
	[VT_KEY_END] = VTERM_KEY_END,
	[VT_KEY_PAGEUP] = VTERM_KEY_PAGEUP,
	[VT_KEY_PAGEDOWN] = VTERM_KEY_PAGEDOWN
};

/* libvterm allocations go through xcalloc: zeroed, and fatal on OOM. */
static void *
vt_lib_malloc(size_t size, void *data)
{
	(void)data;
	return xcalloc(1, size);
}

/* Free memory that vt_lib_malloc() returned. */
static void
vt_lib_free(void *p, void *data)
{
	(void)data;
	free(p);
}

static VTermAllocatorFunctions vt_allocator = {
	.malloc = vt_lib_malloc,
	.free = vt_lib_free
};

/* Encode a libvterm colour as a VT_COLOR_* word. */
static uint32_t
color_word(const VTermColor *c)
{
	if (c->type & VTERM_COLOR_DEFAULT_MASK)
		return VT_COLOR_DEFAULT;
	if (VTERM_COLOR_IS_INDEXED(c))
		return VT_COLOR_MAKE_INDEXED(c->indexed.idx);
	return VT_COLOR_MAKE_RGB(c->rgb.red, c->rgb.green, c->rgb.blue);
}

/* ------------------------------------------------------------------ */
/* VTermState callbacks. */

/* Store a glyph: the base character, its marks and continuation cells. */
static int
cb_putglyph(VTermGlyphInfo *info, VTermPos pos, void *user)
{
	struct vt	*vt = user;
	struct vt_line	*l;
	struct vt_cell	*c;
	int		 n, k, end;

	if (pos.row < 0 || pos.row >= vt->rows || pos.col < 0 ||
	    pos.col >= vt->cols || info->chars[0] == 0)
		return 1;
	vt->last[0] = info->chars[0];
	for (n = 1; n < GLYPH_CHARS && info->chars[n] != 0; n++)
		vt->last[n] = info->chars[n];
	vt->last_n = n;
	vt->last_width = info->width;
	vt->last_row = pos.row;
	vt->last_col = pos.col;

	l = vt->scr[pos.row];
	c = &l->c[pos.col];
	c->ch = info->chars[0];
	c->attrs = vt->pen_attrs |
	    (info->protected_cell ? VT_ATTR_PROTECTED : 0);
	c->comb = n > 1 ? vt_grid_comb_intern(vt, info->chars + 1, n - 1) : 0;
	c->fg = vt->pen_fg;
	c->bg = vt->pen_bg;
	end = pos.col + 1;
	for (k = 1; k < info->width && end < vt->cols; k++) {
		l->c[end].ch = VT_CELL_WIDE_RIGHT;
		l->c[end].comb = 0;
		end++;
	}
	if (end > l->hw)
		l->hw = end;
	vt->dirty[pos.row] = 1;
	vt->any_dirty = 1;
	return 1;
}

/* Note a cursor move: both rows need drawing again. */
static int
cb_movecursor(VTermPos pos, VTermPos oldpos, int visible, void *user)
{
	struct vt	*vt = user;

	if (oldpos.row >= 0 && oldpos.row < vt->rows)
		vt->dirty[oldpos.row] = 1;
	if (pos.row >= 0 && pos.row < vt->rows)
		vt->dirty[pos.row] = 1;
	vt->any_dirty = 1;
	vt->cursor_visible = visible;
	return 1;
}

/* Scroll whole rows by rotating pointers; leave the rest to moverect. */
static int
cb_scrollrect(VTermRect rect, int downward, int rightward, void *user)
{
	struct vt	*vt = user;
	int		 top, bot, n;

	if (rightward != 0 || rect.start_col != 0 || rect.end_col != vt->cols)
		return 0;
	top = rect.start_row;
	bot = rect.end_row;
	if (top < 0 || bot > vt->rows || top >= bot || downward == 0)
		return 1;
	n = downward > 0 ? downward : -downward;
	if (n >= bot - top) {
		cb_erase(rect, 0, vt);
		return 1;
	}
	vt_grid_scroll(vt, top, bot, downward);
	return 1;
}

/* Clip a coordinate range to [0, max). */
static void
clip(int *from, int *to, int max)
{
	if (*from < 0)
		*from = 0;
	if (*to > max)
		*to = max;
}

/* Copy the cells of src to dest, away from the overlap. */
static int
cb_moverect(VTermRect dest, VTermRect src, void *user)
{
	struct vt	*vt = user;
	struct vt_line	*dl, *sl;
	int		 dr, dc, r0, r1, c0, c1, r, i, shw, moved;

	dr = dest.start_row - src.start_row;
	dc = dest.start_col - src.start_col;
	r0 = dest.start_row;
	r1 = dest.end_row;
	clip(&r0, &r1, vt->rows);
	clip(&r0, &r1, vt->rows + dr);
	if (r0 < dr)
		r0 = dr;
	c0 = dest.start_col;
	c1 = dest.end_col;
	clip(&c0, &c1, vt->cols);
	if (c0 < dc)
		c0 = dc;
	if (c1 > vt->cols + dc)
		c1 = vt->cols + dc;
	if (r0 >= r1 || c0 >= c1)
		return 1;
	for (i = 0; i < r1 - r0; i++) {
		r = dr > 0 ? r1 - 1 - i : r0 + i;
		dl = vt->scr[r];
		sl = vt->scr[r - dr];
		shw = sl->hw;
		memmove(dl->c + c0, sl->c + c0 - dc,
		    (size_t)(c1 - c0) * sizeof dl->c[0]);
		moved = shw - (c0 - dc);
		if (moved > 0) {
			moved = c0 + moved < c1 ? c0 + moved : c1;
			if (moved > dl->hw)
				dl->hw = moved;
		}
	}
	vt_grid_mark_rows(vt, r0, r1);
	return 1;
}

/* Erase a rectangle with the pen; selective erases keep DECSCA cells. */
static int
cb_erase(VTermRect rect, int selective, void *user)
{
	struct vt	*vt = user;
	struct vt_line	*l;
	struct vt_cell	 b;
	int		 r0, r1, c0, c1, r, i;

	r0 = rect.start_row;
	r1 = rect.end_row;
	c0 = rect.start_col;
	c1 = rect.end_col;
	clip(&r0, &r1, vt->rows);
	clip(&c0, &c1, vt->cols);
	if (r0 >= r1 || c0 >= c1)
		return 1;
	b = vt_pen_blank(vt);
	for (r = r0; r < r1; r++) {
		l = vt->scr[r];
		if (!selective) {
			vt_grid_line_fill(vt, l, c0, c1);
			continue;
		}
		for (i = c0; i < c1 && (i < l->hw || !vt_cell_zero(&b)); i++)
			if (!(l->c[i].attrs & VT_ATTR_PROTECTED))
				l->c[i] = b;
		if (!vt_cell_zero(&b) && c1 > l->hw)
			l->hw = c1;
	}
	vt_grid_mark_rows(vt, r0, r1);
	return 1;
}

/* Reset the pen to defaults. */
static int
cb_initpen(void *user)
{
	struct vt	*vt = user;

	vt->pen_attrs = 0;
	vt->pen_fg = VT_COLOR_DEFAULT;
	vt->pen_bg = VT_COLOR_DEFAULT;
	return 1;
}

/* Set or clear one attribute bit of the pen. */
static void
pen_flag(struct vt *vt, uint16_t bit, int on)
{
	if (on)
		vt->pen_attrs |= bit;
	else
		vt->pen_attrs &= ~bit;
}

/* Change one pen attribute (SGR). */
static int
cb_setpenattr(VTermAttr attr, VTermValue *val, void *user)
{
	struct vt	*vt = user;

	switch (attr) {
	case VTERM_ATTR_BOLD:
		pen_flag(vt, VT_ATTR_BOLD, val->boolean);
		break;
	case VTERM_ATTR_UNDERLINE:
		vt->pen_attrs = (vt->pen_attrs & ~VT_ATTR_UNDERLINE) |
		    ((val->number << VT_ATTR_UNDERLINE_SHIFT) &
		    VT_ATTR_UNDERLINE);
		break;
	case VTERM_ATTR_ITALIC:
		pen_flag(vt, VT_ATTR_ITALIC, val->boolean);
		break;
	case VTERM_ATTR_BLINK:
		pen_flag(vt, VT_ATTR_BLINK, val->boolean);
		break;
	case VTERM_ATTR_REVERSE:
		pen_flag(vt, VT_ATTR_REVERSE, val->boolean);
		break;
	case VTERM_ATTR_STRIKE:
		pen_flag(vt, VT_ATTR_STRIKE, val->boolean);
		break;
	case VTERM_ATTR_FONT:
		vt->pen_attrs = (vt->pen_attrs & ~VT_ATTR_FONT) |
		    ((val->number << VT_ATTR_FONT_SHIFT) & VT_ATTR_FONT);
		break;
	case VTERM_ATTR_FOREGROUND:
		vt->pen_fg = color_word(&val->color);
		break;
	case VTERM_ATTR_BACKGROUND:
		vt->pen_bg = color_word(&val->color);
		break;
	default:
		break;
	}
	return 1;
}

/* Copy a title, replacing malformed UTF-8 and dropping controls. */
static char *
title_clean(const char *s)
{
	struct vt_sbuf	 b = { NULL, 0, 0 };
	const uint8_t	*p = (const uint8_t *)s, *end = p + strlen(s);
	char		 u[UTF8_MAX];
	uint32_t	 cp;
	int		 n;

	vt_sbuf_add(&b, "", 0);
	while (*p != '\0') {
		if (*p < 0x80) {
			if (*p >= 0x20 && *p != 0x7f)
				vt_sbuf_add(&b, (const char *)p, 1);
			p++;
			continue;
		}
		/* Not UTF-8 (a maximal subpart) or C1: one U+FFFD. */
		n = utf8_decode(p, (size_t)(end - p), &cp);
		if (n < 0 || cp <= 0x9f)
			vt_sbuf_add(&b, u, (size_t)utf8_put(u,
			    UTF8_REPLACEMENT));
		else
			vt_sbuf_add(&b, (const char *)p, (size_t)n);
		p += n < 0 ? -n : n;
	}
	return b.p;
}

/* Record a terminal property; return 1 so the state keeps it. */
static int
cb_settermprop(VTermProp prop, VTermValue *val, void *user)
{
	struct vt	*vt = user;

	switch (prop) {
	case VTERM_PROP_CURSORVISIBLE:
		vt->cursor_visible = val->boolean;
		break;
	case VTERM_PROP_ALTSCREEN:
		vt->altscreen = val->boolean;
		if (vt->altscreen && vt->alt == NULL)
			vt->alt = vt_grid_screen_new(vt, vt->rows, vt->cols);
		/* The state erases the alternate screen after this. */
		vt->scr = vt->altscreen ? vt->alt : vt->pri;
		vt_mark_all_dirty(vt);
		break;
	case VTERM_PROP_TITLE:
		free(vt->title);
		vt->title = title_clean(val->string != NULL ?
		    val->string : "");
		if (vt->cbs.title != NULL)
			vt->cbs.title(vt->title, vt->arg);
		break;
	case VTERM_PROP_REVERSE:
		vt->reverse = val->boolean;
		vt_mark_all_dirty(vt);
		break;
	case VTERM_PROP_MOUSE:
		vt->mouse = val->number;
		break;
	default:
		break;
	}
	return 1;
}

/* Pass BEL on. */
static int
cb_bell(void *user)
{
	struct vt	*vt = user;

	if (vt->cbs.bell != NULL)
		vt->cbs.bell(vt->arg);
	return 1;
}


/*
 * Resize the grid inside vterm_set_size(), as VTermScreen does: a shrink
 * pushes top rows only as far as needed to keep the cursor and the text
 * below it, a grow pulls lines back; delta tells the state how far the
 * cursor moved, never above row 0 (0.1.4 let it go negative).
 */
static int
cb_resize(int rows, int cols, VTermPos *delta, void *user)
{
	struct vt	*vt = user;
	struct vt_line	*sl;
	VTermPos	 cur;
	VTermRect	 rect;
	int		 orows = vt->rows, ocols = vt->cols, r, n;

	vterm_state_get_cursorpos(vt->state, &cur);
	if (vt->scr == vt->pri && rows < orows) {
		for (r = orows - 1; r >= rows; r--)
			if (!vt_grid_line_blank(vt->pri[r], ocols) ||
			    cur.row == r)
				break;
		n = r + 1 - rows;
		if (n > 0) {
			rect.start_row = 0;
			rect.end_row = orows;
			rect.start_col = 0;
			rect.end_col = ocols;
			cb_scrollrect(rect, n, 0, vt);
			delta->row -= n;
		}
	}
	vt->pri = vt_grid_screen_resize(vt, vt->pri, orows, ocols, rows, cols);
	if (vt->alt != NULL)
		vt->alt = vt_grid_screen_resize(vt, vt->alt, orows, ocols,
		    rows, cols);
	vt->scr = vt->altscreen ? vt->alt : vt->pri;
	free(vt->tmp);
	vt->tmp = xcalloc((size_t)rows, sizeof *vt->tmp);
	free(vt->dirty);
	vt->dirty = xcalloc((size_t)rows, 1);
	vt->rows = rows;
	vt->cols = cols;
	if (vt->scr == vt->pri) {
		for (n = rows - orows; n > 0; n--) {
			if ((sl = vt_grid_sb_pop(vt)) == NULL)
				break;
			vt_grid_pull_line(vt, sl);
			delta->row++;
		}
	}
	if (cur.row + delta->row < 0) {
		delta->row = -cur.row;
		vt->fix_phantom = 1;
	}
	vt_mark_all_dirty(vt);
	return 1;
}

/* Follow DECDWL/DECDHL: a double-width row loses its right half. */
static int
cb_setlineinfo(int row, const VTermLineInfo *newinfo,
    const VTermLineInfo *oldinfo, void *user)
{
	struct vt	*vt = user;
	VTermRect	 rect;

	if (row < 0 || row >= vt->rows)
		return 0;
	if (newinfo->doublewidth != oldinfo->doublewidth ||
	    newinfo->doubleheight != oldinfo->doubleheight) {
		vt_grid_mark_rows(vt, row, row + 1);
		if (newinfo->doublewidth) {
			rect.start_row = row;
			rect.end_row = row + 1;
			rect.start_col = vt->cols / 2;
			rect.end_col = vt->cols;
			cb_erase(rect, 0, vt);
		}
	}
	return 1;
}

/* Send the state's output to the child, or keep it for a query of ours. */
void
vt_state_output(const char *s, size_t len, void *user)
{
	struct vt	*vt = user;
	size_t		 n;

	if (vt->capture) {
		n = sizeof vt->cap - 1 - vt->cap_len;
		if (len < n)
			n = len;
		memcpy(vt->cap + vt->cap_len, s, n);
		vt->cap_len += n;
		vt->cap[vt->cap_len] = '\0';
		return;
	}
	if (vt->cbs.output != NULL)
		vt->cbs.output(s, len, vt->arg);
}

/* ------------------------------------------------------------------ */
/* Feeding the state. */

/* Write bytes straight to the state, then bring the cursor on screen. */
void
vt_state_write(struct vt *vt, const char *s, size_t len)
{
	VTermPos	pos;

	vterm_input_write(vt->vterm, s, len);
	vterm_state_get_cursorpos(vt->state, &pos);
	if (pos.row < 0 || pos.row >= vt->rows || pos.col < 0 ||
	    pos.col >= vt->cols) {
		/* DEC private mode set with no mode: only the clamp runs. */
		vterm_input_write(vt->vterm, "\033[?h", 4);
	}
}

/* Return the state's cursor position as it is, on screen or not. */
void
vt_state_cursor(const struct vt *vt, int *row, int *col)
{
	VTermPos	pos;

	vterm_state_get_cursorpos(vt->state, &pos);
	*row = pos.row;
	*col = pos.col;
}

/* Write a formatted control sequence straight to the state. */
static void
state_printf(struct vt *vt, const char *fmt, ...)
{
	va_list	ap;
	char	buf[64];
	int	n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n < sizeof buf)
		vt_state_write(vt, buf, (size_t)n);
}


/* ------------------------------------------------------------------ */
/* Public interface. */

/* Clamp a dimension into the supported range. */
static int
clamp_dim(int v, int min)
{
	if (v < min)
		return min;
	if (v > VT_MAX_DIM)
		return VT_MAX_DIM;
	return v;
}

/* Create a terminal of rows x cols keeping scrollback_lines of history. */
struct vt *
vt_new(int rows, int cols, int scrollback_lines, const struct vt_cbs *cbs,
    void *arg)
{
	struct vt	*vt;

	vt = xcalloc(1, sizeof *vt);
	if (cbs != NULL)
		vt->cbs = *cbs;
	vt->arg = arg;
	vt->rows = clamp_dim(rows, VT_MIN_ROWS);
	vt->cols = clamp_dim(cols, VT_MIN_COLS);
	vt_grid_init(vt, scrollback_lines);
	vt_filter_init(vt);
	vt->title = xstrdup("");
	vt->last_row = -1;
	vt->cursor_visible = 1;

	vt->vterm = vterm_new_with_allocator(vt->rows, vt->cols,
	    &vt_allocator, NULL);
	vterm_set_utf8(vt->vterm, 1);
	vt->state = vterm_obtain_state(vt->vterm);
	vterm_state_set_callbacks(vt->state, &vt_state_cbs, vt);
	vterm_output_set_callback(vt->vterm, vt_state_output, vt);
	vterm_state_reset(vt->state, 1);
	vt_mark_all_dirty(vt);
	return vt;
}

/* Free a terminal and everything it owns. */
void
vt_free(struct vt *vt)
{
	if (vt == NULL)
		return;
	vterm_free(vt->vterm);
	vt_filter_free(vt);
	vt_grid_free(vt);
	free(vt->title);
	free(vt);
}

/* Feed the child's output through the filter into the state. */
void
vt_feed(struct vt *vt, const char *buf, size_t len)
{
	vt_filter_feed(vt, (const uint8_t *)buf, len);
}

/*
 * Make the screen ready for a new program, keeping what the last one
 * left on it: a sequence it left half sent is dropped, the alternate
 * screen left, and the pen, modes (keys, mouse, paste, origin, insert,
 * wrap, reverse video, margins), charsets and title set back to a new
 * terminal's; the cursor stays on its row, and moves to the start of
 * the next one unless that row is empty.  The newline mode (LNM) is the
 * caller's: it depends on how the program is connected.
 */
void
vt_reset_program(struct vt *vt)
{
	static const char	modes[] =
	    "\033[m"			/* the pen */
	    "\033[0\"q"			/* DECSCA: unprotected */
	    "\033[4l"			/* IRM */
	    "\033[?1l\033>"		/* cursor keys, keypad */
	    "\033[?5l"			/* DECSCNM */
	    "\033[?6l"			/* DECOM */
	    "\033[?7h"			/* DECAWM */
	    "\033[?25h"			/* the cursor shown */
	    "\033[?69l\033[r"		/* margins */
	    "\033[?1000l\033[?1002l\033[?1003l"	/* mouse reports */
	    "\033[?1005l\033[?1006l\033[?1015l"
	    "\033[?1004l\033[?2004l"	/* focus reports, bracketed paste */
	    "\033(B\033)B\017"		/* ASCII in G0 and G1; G0 in GL */
	    "\033[0 q";			/* cursor shape */
	VTermPos	pos;

	vt_filter_reset(vt);
	if (vt->altscreen)
		vt_state_write(vt, "\033[?1049l", 8);
	vterm_state_get_cursorpos(vt->state, &pos);
	vt_state_write(vt, modes, sizeof modes - 1);
	/* Origin mode and margins moved the cursor: back where it was. */
	state_printf(vt, "\033[%d;%dH", pos.row + 1, pos.col + 1);
	if (pos.col > 0 || !vt_grid_line_blank(vt->scr[pos.row], vt->cols))
		vt_state_write(vt, "\r\n", 2);
	vt->last_n = 0;
	if (vt->title[0] != '\0') {
		vt->title[0] = '\0';
		if (vt->cbs.title != NULL)
			vt->cbs.title(vt->title, vt->arg);
	}
	vt_mark_all_dirty(vt);
}


/* Ask the state for a region with DECRQSS; return 0 if it is stale. */
static int
region_ok(struct vt *vt, const char *query, char final)
{
	int	a, b;
	char	f;

	vt->capture = 1;
	vt->cap_len = 0;
	vt->cap[0] = '\0';
	vterm_input_write(vt->vterm, query, strlen(query));
	vt->capture = 0;
	if (sscanf(vt->cap, "\033P1$r%d;%d%c", &a, &b, &f) != 3 || f != final)
		return 1;
	return a <= b;
}

/* Reset a scroll region that a shrink left inverted (0.1.4 bug). */
static void
region_fix(struct vt *vt, const char *query, char final, const char *reset)
{
	VTermPos	before, after;

	if (region_ok(vt, query, final))
		return;
	vterm_state_get_cursorpos(vt->state, &before);
	vt_state_write(vt, reset, strlen(reset));
	vterm_state_get_cursorpos(vt->state, &after);
	if (after.row != before.row || after.col != before.col)
		state_printf(vt, "\033[%d;%dH", before.row + 1,
		    before.col + 1);
}

/* Change the size, keeping as much content as VTermScreen would. */
void
vt_resize(struct vt *vt, int rows, int cols)
{
	VTermPos	pos;
	int		shrink;

	rows = clamp_dim(rows, VT_MIN_ROWS);
	cols = clamp_dim(cols, VT_MIN_COLS);
	if (rows == vt->rows && cols == vt->cols)
		return;
	vt_filter_flush(vt);
	shrink = rows < vt->rows || cols < vt->cols;
	vt->fix_phantom = 0;
	vterm_set_size(vt->vterm, rows, cols);
	if (vt->fix_phantom) {
		/* VTermScreen's cursor moved and lost its pending wrap. */
		vterm_state_get_cursorpos(vt->state, &pos);
		state_printf(vt, "\033[%dG", pos.col + 1);
	}
	if (shrink) {
		region_fix(vt, "\033P$qr\033\\", 'r', "\033[r");
		region_fix(vt, "\033P$qs\033\\", 's', "\033[s");
	}
	vt_state_write(vt, "", 0);
	vt_mark_all_dirty(vt);
}

/* Return the number of rows. */
int
vt_rows(const struct vt *vt)
{
	return vt->rows;
}

/* Return the number of columns. */
int
vt_cols(const struct vt *vt)
{
	return vt->cols;
}


/* Return the cursor position through row and col, and its visibility. */
int
vt_cursor(const struct vt *vt, int *row, int *col)
{
	VTermPos	pos;

	vterm_state_get_cursorpos(vt->state, &pos);
	if (pos.row < 0)
		pos.row = 0;
	if (pos.row >= vt->rows)
		pos.row = vt->rows - 1;
	if (pos.col < 0)
		pos.col = 0;
	if (pos.col >= vt->cols)
		pos.col = vt->cols - 1;
	if (row != NULL)
		*row = pos.row;
	if (col != NULL)
		*col = pos.col;
	return vt->cursor_visible;
}

/* Return the title (OSC 0/2), "" if none was set. */
const char *
vt_title(const struct vt *vt)
{
	return vt->title;
}

/* Return non-zero while the alternate screen is shown. */
int
vt_altscreen(const struct vt *vt)
{
	return vt->altscreen;
}

/* Return non-zero while DECSCNM reverses the whole display. */
int
vt_reverse_video(const struct vt *vt)
{
	return vt->reverse;
}

/* Return the mouse mode the child asked for (0: none). */
int
vt_mouse_mode(const struct vt *vt)
{
	return vt->mouse;
}

/* Return non-zero if a row changed since vt_clear_dirty(). */
int
vt_row_dirty(const struct vt *vt, int row)
{
	if (row < 0 || row >= vt->rows)
		return 0;
	return vt->dirty[row];
}

/* Return non-zero if any row changed since vt_clear_dirty(). */
int
vt_any_dirty(const struct vt *vt)
{
	return vt->any_dirty;
}

/* Forget all changes. */
void
vt_clear_dirty(struct vt *vt)
{
	memset(vt->dirty, 0, (size_t)vt->rows);
	vt->any_dirty = 0;
}

/* Mark every row changed. */
void
vt_mark_all_dirty(struct vt *vt)
{
	memset(vt->dirty, 1, (size_t)vt->rows);
	vt->any_dirty = 1;
}


/* Send a key in the child's current modes. */
void
vt_send_key(struct vt *vt, enum vt_key key, unsigned int mods)
{
	VTermModifier	m = (VTermModifier)(mods & VTERM_ALL_MODS_MASK);
	int		n;

	if (key >= VT_KEY_F0) {
		n = (int)key - VT_KEY_F0;
		if (n >= 1 && n <= 12)
			vterm_keyboard_key(vt->vterm, VTERM_KEY_FUNCTION(n), m);
		return;
	}
	if ((int)key <= VT_KEY_NONE || (size_t)key >=
	    sizeof vt_keymap / sizeof vt_keymap[0])
		return;
	vterm_keyboard_key(vt->vterm, vt_keymap[key], m);
}

/* Return the C0 byte Ctrl turns ch into, or ch if none. */
static uint32_t
ctrl_char(uint32_t ch)
{
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a' + 1;
	if (ch >= '@' && ch <= '_')
		return ch - '@';
	switch (ch) {
	case ' ':
	case '2':
		return 0;
	case '3':
		return 0x1b;
	case '4':
		return 0x1c;
	case '5':
		return 0x1d;
	case '6':
		return 0x1e;
	case '7':
	case '/':
		return 0x1f;
	case '8':
	case '?':
		return 0x7f;
	default:
		return ch;
	}
}

/* Send a character; Alt prefixes ESC and Ctrl makes a C0 byte. */
void
vt_send_char(struct vt *vt, uint32_t ch, unsigned int mods)
{
	if (ch > 0x10ffff || (ch >= 0xd800 && ch <= 0xdfff))
		return;
	if (mods & VT_MOD_CTRL)
		ch = ctrl_char(ch);
	if (mods & VT_MOD_ALT)
		vterm_keyboard_unichar(vt->vterm, 0x1b, 0);
	vterm_keyboard_unichar(vt->vterm, ch, 0);
}

/* Send pasted text, bracketed if the child asked, without controls. */
void
vt_send_paste(struct vt *vt, const char *buf, size_t len)
{
	const uint8_t	*p = (const uint8_t *)buf;
	char		 out[1024];
	size_t		 i = 0, n = 0;
	uint32_t	 cp;
	int		 need;

	vterm_keyboard_start_paste(vt->vterm);
	while (i < len) {
		if (n + 4 > sizeof out) {
			vt_state_output(out, n, vt);
			n = 0;
		}
		if (p[i] < 0x80) {
			if (p[i] >= 0x20 ? p[i] != 0x7f :
			    p[i] == '\t' || p[i] == '\r' || p[i] == '\n')
				out[n++] = (char)p[i];
			i++;
			continue;
		}
		if ((need = utf8_decode(p + i, len - i, &cp)) < 0) {
			n += (size_t)utf8_put(out + n, UTF8_REPLACEMENT);
			i += (size_t)-need;
			continue;
		}
		if (cp > 0x9f) {
			memcpy(out + n, p + i, (size_t)need);
			n += (size_t)need;
		}
		i += (size_t)need;
	}
	if (n > 0)
		vt_state_output(out, n, vt);
	vterm_keyboard_end_paste(vt->vterm);
}


/* Send a mouse event in the child's mouse modes (see vt.h). */
void
vt_send_mouse(struct vt *vt, int row, int col, int button, int press,
    int motion, unsigned int mods)
{
	VTermModifier	m = (VTermModifier)(mods & VTERM_ALL_MODS_MASK);

	if (vt->mouse == 0)
		return;
	if (row < 0)
		row = 0;
	if (row >= vt->rows)
		row = vt->rows - 1;
	if (col < 0)
		col = 0;
	if (col >= vt->cols)
		col = vt->cols - 1;
	vterm_mouse_move(vt->vterm, row, col, m);
	if (motion)
		return;
	if (button == 64 || button == 65) {
		/* Only presses: the wheel has no release to report. */
		if (press)
			vterm_mouse_button(vt->vterm, 4 + button - 64, 1, m);
		return;
	}
	if (button >= 0 && button <= 2)
		vterm_mouse_button(vt->vterm, button + 1, press != 0, m);
}
