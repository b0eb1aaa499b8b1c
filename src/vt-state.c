/*
 * vt-state.c: the emulator's second layer, libvterm 0.1.4's VTermState
 * (vt-state.h says where it stands).
 *
 * The state parses the child's output and keeps the modes, the pen,
 * charsets, margins and tab stops; it also answers DA/DSR/DECRQM/DECRQSS
 * and encodes keys.  Bytes reach it through the filter below it
 * (vt-filter.c), which this file creates and answers.  What parsing does
 * goes straight to the VTermStateCallbacks of the layer above (the grid,
 * attached as libvterm's VTermScreen attaches itself), so that a glyph
 * reaches the cells in one call, as the guide's section 9 describes
 * (docs/libvterm-ncurses-guide.md).
 *
 * After every write an off-screen cursor (DECRC after a shrink) is clamped
 * back, and after a shrink a stale scroll region is found with DECRQSS and
 * reset.
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

	/* Fixes after a resize, and replies kept for our queries. */
	int		  fix_phantom;
	int		  capture;
	char		  cap[128];
	size_t		  cap_len;
};

static void	state_output(const char *, size_t, void *);
static void	filter_write(const char *, size_t, void *);
static int	filter_glyph(uint32_t *, long *, void *);
static int	filter_join(const uint32_t *, int, void *);
static void	state_printf(struct vt_state *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));

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

/* Ask the layer above for the glyph REP repeats. */
static int
filter_glyph(uint32_t *chars, long *max, void *user)
{
	struct vt_state	*vt = user;

	return vt->cells->glyph(chars, max, vt->cells_arg);
}

/* Ask the layer above to join the marks that start a feed. */
static int
filter_join(const uint32_t *marks, int n, void *user)
{
	struct vt_state	*vt = user;

	return vt->cells->join(marks, n, vt->cells_arg);
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
 * Create the state of a rows x cols terminal whose output goes to cbs with
 * arg.  It parses nothing until the layer above attaches itself.
 */
struct vt_state *
vt_state_new(int rows, int cols, const struct vt_state_cbs *cbs, void *arg)
{
	struct vt_state	*vt;

	vt = xcalloc(1, sizeof *vt);
	vt->cbs = cbs;
	vt->arg = arg;
	vt->rows = rows;
	vt->cols = cols;
	vt->filter = vt_filter_new(&vt_state_filter_cbs, vt);
	vt->vterm = vterm_new_with_allocator(rows, cols, &vt_allocator, NULL);
	vterm_set_utf8(vt->vterm, 1);
	vt->state = vterm_obtain_state(vt->vterm);
	vterm_output_set_callback(vt->vterm, state_output, vt);
	return vt;
}

/*
 * Attach the layer above: parsing calls cells->vterm with arg from now on,
 * and the state is reset, which it hears too.
 */
void
vt_state_attach(struct vt_state *vt, const struct vt_state_cells *cells,
    void *arg)
{
	vt->cells = cells;
	vt->cells_arg = arg;
	vterm_state_set_callbacks(vt->state, cells->vterm, arg);
	vterm_state_reset(vt->state, 1);
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
 * half sent is dropped, the alternate screen left if it is shown, and the
 * pen, modes (keys, mouse, paste, origin, insert, wrap, reverse video,
 * margins) and charsets set back to a new terminal's; the cursor stays
 * where it was, which goes into row and col.  The newline mode (LNM) is
 * the caller's.
 */
void
vt_state_reset_program(struct vt_state *vt, int altscreen, int *row,
    int *col)
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
	if (altscreen)
		vt_state_write(vt, "\033[?1049l", 8);
	vterm_state_get_cursorpos(vt->state, &pos);
	vt_state_write(vt, modes, sizeof modes - 1);
	/* Origin mode and margins moved the cursor: back where it was. */
	state_printf(vt, "\033[%d;%dH", pos.row + 1, pos.col + 1);
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

/*
 * Change the size; the layer above resizes the cells inside, as
 * VTermScreen does, and says if the cursor lost its pending wrap.
 */
void
vt_state_resize(struct vt_state *vt, int rows, int cols)
{
	VTermPos	pos;
	int		shrink;

	vt_filter_flush(vt->filter);
	shrink = rows < vt->rows || cols < vt->cols;
	vt->fix_phantom = 0;
	vterm_set_size(vt->vterm, rows, cols);
	vt->rows = rows;
	vt->cols = cols;
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

/*
 * Note, from inside a resize, that the cells moved the cursor up and so
 * VTermScreen's would have lost its pending wrap: the resize drops it.
 */
void
vt_state_wrap_lost(struct vt_state *vt)
{
	vt->fix_phantom = 1;
}

/* Return the cursor position as it is, on screen or not. */
void
vt_state_position(const struct vt_state *vt, int *row, int *col)
{
	VTermPos	pos;

	vterm_state_get_cursorpos(vt->state, &pos);
	*row = pos.row;
	*col = pos.col;
}

/* Return the cursor position, brought on screen. */
void
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
