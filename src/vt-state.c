/*
 * vt-state.c: the emulator's second layer, libvterm 0.1.4's VTermState
 * (vt-state.h says where it stands), and the only file that uses libvterm.
 *
 * The state parses the child's output and keeps the modes, the pen,
 * charsets, margins and tab stops; it also answers DA/DSR/DECRQM/DECRQSS
 * and encodes keys.  Bytes reach it through the filter below it
 * (vt-filter.c), which this file creates and answers; what the state's
 * callbacks report goes up to the cells (struct vt_state_cells, the grid)
 * as the guide's section 9 describes (docs/libvterm-ncurses-guide.md),
 * and to the terminal's owner (struct vt_state_cbs).  The last glyph put
 * on the screen is kept here, for the filter's REP and its marks.
 *
 * After every write an off-screen cursor (DECRC after a shrink) is clamped
 * back, and after a shrink a stale scroll region is found with DECRQSS and
 * reset.  Deviation from VTermScreen: cells never have DECSCNM folded in;
 * vt_state_reverse() reports it for the whole display, scrollback included.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vterm.h>

#include "vt-filter.h"
#include "vt-state.h"
#include "xmalloc.h"

_Static_assert(VT_GLYPH_CHARS == VTERM_MAX_CHARS_PER_CELL,
    "VT_GLYPH_CHARS is libvterm's VTERM_MAX_CHARS_PER_CELL");

/* One state; its functions call it vt, as the layers around it do theirs. */
struct vt_state {
	VTerm				*vterm;
	VTermState			*state;
	struct vt_filter		*filter;
	const struct vt_state_cells	*cells;
	void				*cells_arg;
	const struct vt_state_cbs	*cbs;
	void				*arg;

	int		  rows;
	int		  cols;
	struct vt_cell	  pen;		/* SGR, as the cells take it */

	/* Terminal properties. */
	int		  altscreen;
	int		  reverse;
	int		  mouse;
	int		  cursor_visible;

	/* The last glyph put on the screen: REP and marks in the filter. */
	struct vt_glyph	  last;

	/* Fixes after a resize, and replies kept for our queries. */
	int		  fix_phantom;
	int		  capture;
	char		  cap[128];
	size_t		  cap_len;
};

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
static void	state_output(const char *, size_t, void *);
static void	filter_write(const char *, size_t, void *);
static int	filter_glyph(uint32_t *, long *, void *);
static int	filter_join(const uint32_t *, int, void *);
static void	state_printf(struct vt_state *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));

static const VTermStateCallbacks vt_state_lib_cbs = {
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

/* What the filter below asks of the state. */
static const struct vt_filter_cbs vt_state_filter_cbs = {
	.write = filter_write,
	.reply = state_output,
	.glyph = filter_glyph,
	.join = filter_join
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

/* Turn a VTermRect into the cells' rectangle. */
static struct vt_rect
rect_of(VTermRect r)
{
	struct vt_rect	rect;

	rect.start_row = r.start_row;
	rect.end_row = r.end_row;
	rect.start_col = r.start_col;
	rect.end_col = r.end_col;
	return rect;
}

/* ------------------------------------------------------------------ */
/* VTermState callbacks. */

/* Record a glyph as the last one and hand it to the cells. */
static int
cb_putglyph(VTermGlyphInfo *info, VTermPos pos, void *user)
{
	struct vt_state	*vt = user;
	int		 n;

	if (pos.row < 0 || pos.row >= vt->rows || pos.col < 0 ||
	    pos.col >= vt->cols || info->chars[0] == 0)
		return 1;
	vt->last.chars[0] = info->chars[0];
	for (n = 1; n < VT_GLYPH_CHARS && info->chars[n] != 0; n++)
		vt->last.chars[n] = info->chars[n];
	vt->last.n = n;
	vt->last.width = info->width;
	vt->last.protect = info->protected_cell;
	vt->last.row = pos.row;
	vt->last.col = pos.col;
	vt->cells->glyph(&vt->last, vt->cells_arg);
	return 1;
}

/* Note a cursor move and whether the cursor is shown. */
static int
cb_movecursor(VTermPos pos, VTermPos oldpos, int visible, void *user)
{
	struct vt_state	*vt = user;

	vt->cells->cursor(oldpos.row, pos.row, vt->cells_arg);
	vt->cursor_visible = visible;
	return 1;
}

/* Scroll whole rows in the cells; leave the rest to moverect. */
static int
cb_scrollrect(VTermRect rect, int downward, int rightward, void *user)
{
	struct vt_state	*vt = user;

	if (rightward != 0 || rect.start_col != 0 || rect.end_col != vt->cols)
		return 0;
	vt->cells->scroll(rect.start_row, rect.end_row, downward,
	    vt->cells_arg);
	return 1;
}

/* Copy a rectangle of cells. */
static int
cb_moverect(VTermRect dest, VTermRect src, void *user)
{
	struct vt_state	*vt = user;
	struct vt_rect	 d = rect_of(dest), s = rect_of(src);

	vt->cells->move(&d, &s, vt->cells_arg);
	return 1;
}

/* Erase a rectangle of cells with the pen. */
static int
cb_erase(VTermRect rect, int selective, void *user)
{
	struct vt_state	*vt = user;
	struct vt_rect	 r = rect_of(rect);

	vt->cells->erase(&r, selective, vt->cells_arg);
	return 1;
}

/* Reset the pen to defaults. */
static int
cb_initpen(void *user)
{
	struct vt_state	*vt = user;

	vt->pen.attrs = 0;
	vt->pen.fg = VT_COLOR_DEFAULT;
	vt->pen.bg = VT_COLOR_DEFAULT;
	vt->cells->pen(&vt->pen, vt->cells_arg);
	return 1;
}

/* Set or clear one attribute bit of the pen. */
static void
pen_flag(struct vt_state *vt, uint16_t bit, int on)
{
	if (on)
		vt->pen.attrs |= bit;
	else
		vt->pen.attrs &= ~bit;
}

/* Change one pen attribute (SGR). */
static int
cb_setpenattr(VTermAttr attr, VTermValue *val, void *user)
{
	struct vt_state	*vt = user;

	switch (attr) {
	case VTERM_ATTR_BOLD:
		pen_flag(vt, VT_ATTR_BOLD, val->boolean);
		break;
	case VTERM_ATTR_UNDERLINE:
		vt->pen.attrs = (vt->pen.attrs & ~VT_ATTR_UNDERLINE) |
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
		vt->pen.attrs = (vt->pen.attrs & ~VT_ATTR_FONT) |
		    ((val->number << VT_ATTR_FONT_SHIFT) & VT_ATTR_FONT);
		break;
	case VTERM_ATTR_FOREGROUND:
		vt->pen.fg = color_word(&val->color);
		break;
	case VTERM_ATTR_BACKGROUND:
		vt->pen.bg = color_word(&val->color);
		break;
	default:
		return 1;
	}
	vt->cells->pen(&vt->pen, vt->cells_arg);
	return 1;
}

/* Record a terminal property; return 1 so the state keeps it. */
static int
cb_settermprop(VTermProp prop, VTermValue *val, void *user)
{
	struct vt_state	*vt = user;

	switch (prop) {
	case VTERM_PROP_CURSORVISIBLE:
		vt->cursor_visible = val->boolean;
		break;
	case VTERM_PROP_ALTSCREEN:
		vt->altscreen = val->boolean;
		vt->cells->altscreen(vt->altscreen, vt->cells_arg);
		break;
	case VTERM_PROP_TITLE:
		vt->cbs->title(val->string != NULL ? val->string : "",
		    vt->arg);
		break;
	case VTERM_PROP_REVERSE:
		vt->reverse = val->boolean;
		vt->cells->damage(0, vt->rows, vt->cells_arg);
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
	struct vt_state	*vt = user;

	vt->cbs->bell(vt->arg);
	return 1;
}

/*
 * Resize the cells inside vterm_set_size(); delta tells the state how far
 * the cursor moved with the text, never above row 0 (0.1.4 let it go
 * negative).
 */
static int
cb_resize(int rows, int cols, VTermPos *delta, void *user)
{
	struct vt_state	*vt = user;
	VTermPos	 cur;

	vterm_state_get_cursorpos(vt->state, &cur);
	delta->row += vt->cells->resize(rows, cols, cur.row, vt->cells_arg);
	vt->rows = rows;
	vt->cols = cols;
	if (cur.row + delta->row < 0) {
		delta->row = -cur.row;
		vt->fix_phantom = 1;
	}
	return 1;
}

/* Follow DECDWL/DECDHL: a double-width row loses its right half. */
static int
cb_setlineinfo(int row, const VTermLineInfo *newinfo,
    const VTermLineInfo *oldinfo, void *user)
{
	struct vt_state	*vt = user;
	struct vt_rect	 rect;

	if (row < 0 || row >= vt->rows)
		return 0;
	if (newinfo->doublewidth != oldinfo->doublewidth ||
	    newinfo->doubleheight != oldinfo->doubleheight) {
		vt->cells->damage(row, row + 1, vt->cells_arg);
		if (newinfo->doublewidth) {
			rect.start_row = row;
			rect.end_row = row + 1;
			rect.start_col = vt->cols / 2;
			rect.end_col = vt->cols;
			vt->cells->erase(&rect, 0, vt->cells_arg);
		}
	}
	return 1;
}

/* Send the state's output to the child, or keep it for a query of ours. */
static void
state_output(const char *s, size_t len, void *user)
{
	struct vt_state	*vt = user;
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
	vt->cbs->output(s, len, vt->arg);
}

/* ------------------------------------------------------------------ */
/* Feeding the state. */

/* Write bytes straight to the state, then bring the cursor on screen. */
void
vt_state_write(struct vt_state *vt, const char *s, size_t len)
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

/* Take the filter's bytes. */
static void
filter_write(const char *s, size_t len, void *user)
{
	vt_state_write(user, s, len);
}

/* Give the filter the last glyph to repeat, and a screenful as the most. */
static int
filter_glyph(uint32_t *chars, long *max, void *user)
{
	struct vt_state	*vt = user;

	if (vt->last.n == 0 || vt->last.width < 1)
		return 0;
	memcpy(chars, vt->last.chars, (size_t)vt->last.n * sizeof *chars);
	*max = (long)vt->rows * vt->cols;
	return vt->last.n;
}

/*
 * Join the marks that start a feed to the last glyph if it is in the last
 * column and the cursor still waits on it; return non-zero if they were.
 */
static int
filter_join(const uint32_t *marks, int n, void *user)
{
	struct vt_state	*vt = user;
	uint32_t	 all[VT_GLYPH_MARKS];
	VTermPos	 pos;
	int		 k;

	if (vt->last.row < 0 || vt->last.row >= vt->rows ||
	    vt->last.col + vt->last.width != vt->cols)
		return 0;
	vterm_state_get_cursorpos(vt->state, &pos);
	if (pos.row != vt->last.row || pos.col != vt->cols - 1)
		return 0;
	k = vt->cells->marks(vt->last.row, vt->last.col, marks, n, all,
	    vt->cells_arg);
	if (k < 0)
		return 0;
	vt->last.n = 1 + k;
	memcpy(vt->last.chars + 1, all, (size_t)k * sizeof *all);
	return 1;
}

/* Write a formatted control sequence straight to the state. */
static void
state_printf(struct vt_state *vt, const char *fmt, ...)
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

/*
 * Create the state of a rows x cols terminal, reset, reporting to cells
 * with cells_arg and to cbs with arg.
 */
struct vt_state *
vt_state_new(int rows, int cols, const struct vt_state_cells *cells,
    void *cells_arg, const struct vt_state_cbs *cbs, void *arg)
{
	struct vt_state	*vt;

	vt = xcalloc(1, sizeof *vt);
	vt->cells = cells;
	vt->cells_arg = cells_arg;
	vt->cbs = cbs;
	vt->arg = arg;
	vt->rows = rows;
	vt->cols = cols;
	vt->last.row = -1;
	vt->cursor_visible = 1;
	vt->filter = vt_filter_new(&vt_state_filter_cbs, vt);

	vt->vterm = vterm_new_with_allocator(rows, cols, &vt_allocator, NULL);
	vterm_set_utf8(vt->vterm, 1);
	vt->state = vterm_obtain_state(vt->vterm);
	vterm_state_set_callbacks(vt->state, &vt_state_lib_cbs, vt);
	vterm_output_set_callback(vt->vterm, state_output, vt);
	vterm_state_reset(vt->state, 1);
	return vt;
}

/* Free a state, its VTerm and its filter. */
void
vt_state_free(struct vt_state *vt)
{
	if (vt == NULL)
		return;
	vterm_free(vt->vterm);
	vt_filter_free(vt->filter);
	free(vt);
}

/* Feed the child's output through the filter into the state. */
void
vt_state_feed(struct vt_state *vt, const uint8_t *buf, size_t len)
{
	vt_filter_feed(vt->filter, buf, len);
}

/*
 * Make the state ready for a new program: a sequence the last one left
 * half sent is dropped, the alternate screen left, and the pen, modes
 * (keys, mouse, paste, origin, insert, wrap, reverse video, margins) and
 * charsets set back to a new terminal's; the cursor stays where it was,
 * which goes into row and col.  The newline mode (LNM) is the caller's.
 */
void
vt_state_reset_program(struct vt_state *vt, int *row, int *col)
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

	vt_filter_reset(vt->filter);
	if (vt->altscreen)
		vt_state_write(vt, "\033[?1049l", 8);
	vterm_state_get_cursorpos(vt->state, &pos);
	vt_state_write(vt, modes, sizeof modes - 1);
	/* Origin mode and margins moved the cursor: back where it was. */
	state_printf(vt, "\033[%d;%dH", pos.row + 1, pos.col + 1);
	vt->last.n = 0;
	*row = pos.row;
	*col = pos.col;
}

/* Ask the state for a region with DECRQSS; return 0 if it is stale. */
static int
region_ok(struct vt_state *vt, const char *query, char final)
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
region_fix(struct vt_state *vt, const char *query, char final,
    const char *reset)
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

/* Change the size, the cells following as VTermScreen's would. */
void
vt_state_resize(struct vt_state *vt, int rows, int cols)
{
	VTermPos	pos;
	int		shrink;

	vt_filter_flush(vt->filter);
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
}

/* Return the cursor position, on screen, and its visibility. */
int
vt_state_cursor(const struct vt_state *vt, int *row, int *col)
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

/* Return non-zero while the alternate screen is shown. */
int
vt_state_altscreen(const struct vt_state *vt)
{
	return vt->altscreen;
}

/* Return non-zero while DECSCNM reverses the whole display. */
int
vt_state_reverse(const struct vt_state *vt)
{
	return vt->reverse;
}

/* Return the mouse mode the child asked for (0: none). */
int
vt_state_mouse_mode(const struct vt_state *vt)
{
	return vt->mouse;
}

/* ------------------------------------------------------------------ */
/* Encoding for the child. */

/* Send a key in the child's current modes. */
void
vt_state_key(struct vt_state *vt, enum vt_key key, unsigned int mods)
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

/* Send a character, after an ESC if alt is set. */
void
vt_state_char(struct vt_state *vt, uint32_t ch, int alt)
{
	if (alt)
		vterm_keyboard_unichar(vt->vterm, 0x1b, 0);
	vterm_keyboard_unichar(vt->vterm, ch, 0);
}

/* Start (start non-zero) or end a paste, bracketed if the child asked. */
void
vt_state_paste(struct vt_state *vt, int start)
{
	if (start)
		vterm_keyboard_start_paste(vt->vterm);
	else
		vterm_keyboard_end_paste(vt->vterm);
}

/* Send a mouse event in the child's mouse modes (see vt.h). */
void
vt_state_mouse(struct vt_state *vt, int row, int col, int button, int press,
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
