/*
 * vt.c: the emulator's API (vt.h), its top layer: it puts the three layers
 * below together (vt.h lists them) and answers for them.  A vt owns one
 * state (vt-state.c), which owns the byte filter (vt-filter.c), and one
 * grid (vt-grid.c), which attaches itself to the state; the state's output
 * and the grid's title and BEL come here.  This file keeps the title,
 * cleaned of controls and malformed UTF-8, and makes the choices that are
 * the API's: the limits on the size, Ctrl and Alt on characters, what a
 * paste may carry, and where the cursor starts after a program is reset.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"
#include "vt.h"
#include "vt-filter.h"
#include "vt-grid.h"
#include "vt-state.h"
#include "xmalloc.h"

struct vt {
	struct vt_state	*state;
	struct vt_grid	*grid;
	struct vt_cbs	 cbs;
	void		*arg;
	char		*title;
};

static void	owner_output(const char *, size_t, void *);
static void	owner_title(const char *, void *);
static void	owner_bell(void *);

/* What the state and the grid tell the vt's owner, through this file. */
static const struct vt_state_cbs vt_state_owner = {
	.output = owner_output
};
static const struct vt_grid_cbs vt_grid_owner = {
	.title = owner_title,
	.bell = owner_bell
};

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

/* Pass bytes for the child on to the owner. */
static void
owner_output(const char *s, size_t len, void *arg)
{
	struct vt	*vt = arg;

	if (vt->cbs.output != NULL)
		vt->cbs.output(s, len, vt->arg);
}

/* Keep the title the child set, cleaned, and tell the owner. */
static void
owner_title(const char *title, void *arg)
{
	struct vt	*vt = arg;

	free(vt->title);
	vt->title = title_clean(title);
	if (vt->cbs.title != NULL)
		vt->cbs.title(vt->title, vt->arg);
}

/* Pass BEL on. */
static void
owner_bell(void *arg)
{
	struct vt	*vt = arg;

	if (vt->cbs.bell != NULL)
		vt->cbs.bell(vt->arg);
}

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
	rows = clamp_dim(rows, VT_MIN_ROWS);
	cols = clamp_dim(cols, VT_MIN_COLS);
	vt->title = xstrdup("");
	vt->state = vt_state_new(rows, cols, &vt_state_owner, vt);
	vt->grid = vt_grid_new(vt->state, rows, cols, scrollback_lines,
	    &vt_grid_owner, vt);
	vt_grid_mark_all_dirty(vt->grid);
	return vt;
}

/* Free a terminal and everything it owns. */
void
vt_free(struct vt *vt)
{
	if (vt == NULL)
		return;
	vt_state_free(vt->state);
	vt_grid_free(vt->grid);
	free(vt->title);
	free(vt);
}

/* Feed the child's output through the filter into the state. */
void
vt_feed(struct vt *vt, const char *buf, size_t len)
{
	vt_state_feed(vt->state, (const uint8_t *)buf, len);
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
	int	row, col;

	vt_state_reset_program(vt->state, vt_grid_altscreen(vt->grid), &row,
	    &col);
	if (col > 0 || !vt_grid_row_blank(vt->grid, row))
		vt_state_write(vt->state, "\r\n", 2);
	vt_grid_forget_glyph(vt->grid);
	if (vt->title[0] != '\0') {
		vt->title[0] = '\0';
		if (vt->cbs.title != NULL)
			vt->cbs.title(vt->title, vt->arg);
	}
	vt_grid_mark_all_dirty(vt->grid);
}

/* Change the size, keeping as much content as VTermScreen would. */
void
vt_resize(struct vt *vt, int rows, int cols)
{
	rows = clamp_dim(rows, VT_MIN_ROWS);
	cols = clamp_dim(cols, VT_MIN_COLS);
	if (rows == vt_grid_rows(vt->grid) && cols == vt_grid_cols(vt->grid))
		return;
	vt_state_resize(vt->state, rows, cols);
	vt_grid_mark_all_dirty(vt->grid);
}

/* Return the number of rows. */
int
vt_rows(const struct vt *vt)
{
	return vt_grid_rows(vt->grid);
}

/* Return the number of columns. */
int
vt_cols(const struct vt *vt)
{
	return vt_grid_cols(vt->grid);
}

/* Return the cells of a screen row, or NULL if out of range. */
const struct vt_cell *
vt_screen_row(const struct vt *vt, int row)
{
	return vt_grid_row(vt->grid, row);
}

/* Return the number of scrollback lines. */
int
vt_scrollback_count(const struct vt *vt)
{
	return vt_grid_sb_count(vt->grid);
}

/* Return scrollback line index (0 is the oldest) and its cell count. */
const struct vt_cell *
vt_scrollback_line(const struct vt *vt, int index, int *ncells)
{
	return vt_grid_sb_line(vt->grid, index, ncells);
}

/* Store a cell's base character then its marks; return how many. */
size_t
vt_cell_text(const struct vt *vt, const struct vt_cell *cell, uint32_t *out,
    size_t max)
{
	return vt_grid_cell_text(vt->grid, cell, out, max);
}

/* Return non-zero if libvterm 0.1.4 joins cp to the glyph before it. */
int
vt_is_combining(uint32_t cp)
{
	return vt_filter_combining(cp);
}

/* Return the cursor position through row and col, and its visibility. */
int
vt_cursor(const struct vt *vt, int *row, int *col)
{
	vt_state_cursor(vt->state, row, col);
	return vt_grid_cursor_visible(vt->grid);
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
	return vt_grid_altscreen(vt->grid);
}

/* Return non-zero while DECSCNM reverses the whole display. */
int
vt_reverse_video(const struct vt *vt)
{
	return vt_grid_reverse(vt->grid);
}

/* Return the mouse mode the child asked for (0: none). */
int
vt_mouse_mode(const struct vt *vt)
{
	return vt_grid_mouse_mode(vt->grid);
}

/* Return non-zero if a row changed since vt_clear_dirty(). */
int
vt_row_dirty(const struct vt *vt, int row)
{
	return vt_grid_row_dirty(vt->grid, row);
}

/*
 * Return the count of the screen's changes so far.  Each viewer (an
 * attached client) keeps the count it last drew at and redraws the rows
 * vt_row_changed() since it: several viewers of one emulator, none
 * clearing what another has yet to draw.
 */
uint64_t
vt_seq(const struct vt *vt)
{
	return vt_grid_seq(vt->grid);
}

/* Return non-zero if a row changed after the count was seq. */
int
vt_row_changed(const struct vt *vt, int row, uint64_t seq)
{
	return vt_grid_row_changed(vt->grid, row, seq);
}

/* Return non-zero if any row changed since vt_clear_dirty(). */
int
vt_any_dirty(const struct vt *vt)
{
	return vt_grid_any_dirty(vt->grid);
}

/* Forget all changes. */
void
vt_clear_dirty(struct vt *vt)
{
	vt_grid_clear_dirty(vt->grid);
}

/* Mark every row changed. */
void
vt_mark_all_dirty(struct vt *vt)
{
	vt_grid_mark_all_dirty(vt->grid);
}

/* Return the number of text lines: scrollback, then the screen. */
int
vt_text_count(const struct vt *vt)
{
	return vt_grid_text_count(vt->grid);
}

/* Return text line `line' as a new UTF-8 string, or NULL. */
char *
vt_text_line(const struct vt *vt, int line)
{
	return vt_grid_text_line(vt->grid, line);
}

/* Copy the last non-blank line at or above the cursor into buf. */
size_t
vt_last_line(const struct vt *vt, char *buf, size_t size)
{
	int	row;

	vt_cursor(vt, &row, NULL);
	return vt_grid_last_line(vt->grid, row, buf, size);
}

/* Send a key in the child's current modes. */
void
vt_send_key(struct vt *vt, enum vt_key key, unsigned int mods)
{
	vt_state_key(vt->state, key, mods);
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
	vt_state_char(vt->state, ch, (mods & VT_MOD_ALT) != 0);
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

	vt_state_paste(vt->state, 1);
	while (i < len) {
		if (n + 4 > sizeof out) {
			owner_output(out, n, vt);
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
		owner_output(out, n, vt);
	vt_state_paste(vt->state, 0);
}


/* Send a mouse event in the child's mouse modes (see vt.h). */
void
vt_send_mouse(struct vt *vt, int row, int col, int button, int press,
    int motion, unsigned int mods)
{
	if (vt_grid_mouse_mode(vt->grid) == 0)
		return;
	vt_state_mouse(vt->state, row, col, button, press, motion, mods);
}
