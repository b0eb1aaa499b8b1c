/*
 * vt: one terminal emulator.  Bytes from a child go in through vt_feed();
 * cells, the cursor, the title and a scrollback ring come out; keys go in
 * through vt_send_key()/vt_send_char() and the bytes the child must read
 * (key encodings, replies to DA/DSR queries) leave through the output
 * callback.  vt.c is the only user of libvterm: it drives libvterm's
 * VTermState layer (parser, modes, pen, charsets, replies, key encoding) and
 * keeps the cells in a grid of its own whose full-width scrolls rotate row
 * pointers.  It does no I/O, never prints and never exits.  The module is
 * three files: vt.c (the state and this API), vt-filter.c (the bytes in
 * front of libvterm) and vt-grid.c (cells, scrollback, text); who owns
 * what is in src/vt-private.h.
 *
 * Ownership: the caller owns the struct vt (vt_new/vt_free).  Pointers
 * returned by vt_screen_row(), vt_scrollback_line() and vt_title() belong
 * to the vt and stay valid until the next vt_feed(), vt_reset_program(),
 * vt_resize() or vt_free().
 */
#ifndef JOBDECK_VT_H
#define JOBDECK_VT_H

#include <stddef.h>
#include <stdint.h>

struct vt;

/* Cell attribute bits (struct vt_cell.attrs). */
#define VT_ATTR_BOLD		0x0001
#define VT_ATTR_UNDERLINE	0x0006	/* 2 bits: 0 none, 1 single, 2 double, 3 curly */
#define VT_ATTR_UNDERLINE_SHIFT	1
#define VT_ATTR_ITALIC		0x0008
#define VT_ATTR_BLINK		0x0010
#define VT_ATTR_REVERSE		0x0020
#define VT_ATTR_STRIKE		0x0040
#define VT_ATTR_PROTECTED	0x0080	/* DECSCA */
#define VT_ATTR_FONT		0x0f00	/* 4 bits: SGR 10-19 */
#define VT_ATTR_FONT_SHIFT	8

/*
 * A colour is one 32-bit word: the kind in the top byte, the value below.
 * VT_COLOR_DEFAULT is the terminal's default foreground or background.
 */
#define VT_COLOR_KIND(c)	((c) >> 24)
#define VT_COLOR_DEFAULT	0u
#define VT_COLOR_INDEXED	1u	/* palette index 0-255 in the low byte */
#define VT_COLOR_RGB		2u	/* 0xRRGGBB in the low 24 bits */
#define VT_COLOR_MAKE_INDEXED(i)	((VT_COLOR_INDEXED << 24) | ((i) & 0xffu))
#define VT_COLOR_MAKE_RGB(r, g, b) \
	((VT_COLOR_RGB << 24) | ((uint32_t)(r) << 16) | ((uint32_t)(g) << 8) | \
	    (uint32_t)(b))

/* struct vt_cell.ch for an erased cell and for the right half of a wide one. */
#define VT_CELL_BLANK		0u
#define VT_CELL_WIDE_RIGHT	0xffffffffu

/* One screen cell: 16 bytes. */
struct vt_cell {
	uint32_t	ch;	/* base code point, VT_CELL_BLANK or _WIDE_RIGHT */
	uint16_t	attrs;	/* VT_ATTR_* */
	uint16_t	comb;	/* 0, or a handle for vt_cell_text() marks */
	uint32_t	fg;	/* VT_COLOR_* word */
	uint32_t	bg;
};

/*
 * Callbacks, any of which may be NULL.  They run synchronously inside
 * vt_feed() or the vt_send_*() functions; they must not call back into the
 * same vt except for the read-only accessors.
 */
struct vt_cbs {
	/* Bytes for the child: key encodings and query replies. */
	void	(*output)(const char *buf, size_t len, void *arg);
	/* The window title changed (OSC 0/2); title is NUL-terminated. */
	void	(*title)(const char *title, void *arg);
	/* BEL. */
	void	(*bell)(void *arg);
};

/* Keys that are not plain characters. */
enum vt_key {
	VT_KEY_NONE = 0,
	VT_KEY_ENTER,
	VT_KEY_TAB,
	VT_KEY_BACKSPACE,
	VT_KEY_ESCAPE,
	VT_KEY_UP,
	VT_KEY_DOWN,
	VT_KEY_LEFT,
	VT_KEY_RIGHT,
	VT_KEY_INS,
	VT_KEY_DEL,
	VT_KEY_HOME,
	VT_KEY_END,
	VT_KEY_PAGEUP,
	VT_KEY_PAGEDOWN,
	VT_KEY_F0 = 256		/* VT_KEY_F0 + n is Fn, n = 1..12 */
};

/* Key modifier bits, as xterm's modifier parameter minus one. */
#define VT_MOD_SHIFT	0x1
#define VT_MOD_ALT	0x2
#define VT_MOD_CTRL	0x4

/* Limits enforced by vt_new() and vt_resize(). */
#define VT_MIN_ROWS	1
#define VT_MIN_COLS	2
#define VT_MAX_DIM	1000

struct vt	*vt_new(int rows, int cols, int scrollback_lines,
		    const struct vt_cbs *cbs, void *arg);
void		 vt_free(struct vt *);

void		 vt_feed(struct vt *, const char *buf, size_t len);
/*
 * A new program takes over the screen (a job's next run): what the last
 * one left half sent, on the alternate screen or in the modes goes, its
 * text stays, and the cursor starts an empty line.
 */
void		 vt_reset_program(struct vt *);
void		 vt_resize(struct vt *, int rows, int cols);

int		 vt_rows(const struct vt *);
int		 vt_cols(const struct vt *);
const struct vt_cell *vt_screen_row(const struct vt *, int row);
int		 vt_scrollback_count(const struct vt *);
const struct vt_cell *vt_scrollback_line(const struct vt *, int index,
		    int *ncells);
size_t		 vt_cell_text(const struct vt *, const struct vt_cell *,
		    uint32_t *out, size_t max);
/* Non-zero if cp is a mark the emulator joins to the glyph before it. */
int		 vt_is_combining(uint32_t cp);

int		 vt_cursor(const struct vt *, int *row, int *col);
const char	*vt_title(const struct vt *);
int		 vt_altscreen(const struct vt *);
int		 vt_reverse_video(const struct vt *);
int		 vt_mouse_mode(const struct vt *);

int		 vt_row_dirty(const struct vt *, int row);
int		 vt_any_dirty(const struct vt *);
void		 vt_clear_dirty(struct vt *);
void		 vt_mark_all_dirty(struct vt *);

int		 vt_text_count(const struct vt *);
char		*vt_text_line(const struct vt *, int line);
size_t		 vt_last_line(const struct vt *, char *buf, size_t size);

void		 vt_send_key(struct vt *, enum vt_key, unsigned int mods);
void		 vt_send_char(struct vt *, uint32_t ch, unsigned int mods);
void		 vt_send_paste(struct vt *, const char *buf, size_t len);
/*
 * A mouse event at a cell of the child's screen, encoded in the modes it
 * asked for (nothing when it asked for none): button 0-2 left, middle,
 * right, 3 a move with none held, 64/65 the wheel up/down; press 1 or 0;
 * motion non-zero for a move; mods VT_MOD_*.
 */
void		 vt_send_mouse(struct vt *, int row, int col, int button,
		    int press, int motion, unsigned int mods);

#endif
