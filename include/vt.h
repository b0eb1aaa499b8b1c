/*
 * vt: one terminal emulator.  Bytes from a child go in through vt_feed();
 * cells, the cursor, the title and a scrollback ring come out; keys go in
 * through vt_send_key()/vt_send_char() and the bytes the child must read
 * (key encodings, replies to DA/DSR queries) leave through the output
 * callback.  It does no I/O, never prints and never exits.
 *
 * The module is four layers, as libvterm lays out its own, each file using
 * only those below it and hearing from them through a callback struct:
 *  - vt-filter.c, the bytes: a filter in front of libvterm 0.1.4's parser;
 *  - vt-state.c, the state: it drives libvterm's VTermState (parser,
 *    modes, charsets, replies, key encoding), fed by the filter;
 *  - vt-grid.c, the grid: attached to the state's callbacks as libvterm's
 *    VTermScreen is, the cells, in rows whose full-width scrolls rotate
 *    pointers, the scrollback ring and text taken from them;
 *  - vt.c, this API, which puts the three together.
 * The cells and keys they share are in vt-cell.h and vt-keycodes.h.
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

#include "vt-cell.h"
#include "vt-keycodes.h"

struct vt;

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
uint64_t	 vt_seq(const struct vt *);
int		 vt_row_changed(const struct vt *, int row, uint64_t seq);

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
