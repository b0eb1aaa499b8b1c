/*
 * vt-state.h: the emulator's second layer, the state (vt-state.c), which
 * drives libvterm 0.1.4's VTermState (parser, modes, pen, charsets,
 * margins, tab stops, replies, key and mouse encoding).  It owns the VTerm
 * and the byte filter below it (vt-filter.c), whose bytes it writes into
 * the parser, and knows nothing above it.  As in libvterm, the layer above
 * (the grid, vt-grid.c) attaches itself as VTermScreen does: it hands the
 * state a struct vt_state_cells, whose VTermStateCallbacks parsing calls
 * and whose hooks answer what the filter asks; the owner hears the bytes
 * for the child through struct vt_state_cbs, as libvterm's output
 * callback.  The caller owns the state; the state owns the filter.
 * Private to the vt*.c files.
 */
#ifndef JOBDECK_VT_STATE_H
#define JOBDECK_VT_STATE_H

#include <stddef.h>
#include <stdint.h>

#include <vterm.h>

#include "vt-keycodes.h"

struct vt_state;

/* What the layer above the state takes and answers; none may be NULL. */
struct vt_state_cells {
	/* What parsing does, as libvterm's VTermScreen takes it. */
	const VTermStateCallbacks *vterm;
	/*
	 * For REP: put the code points of the last glyph put on the screen
	 * into chars (VT_GLYPH_CHARS) and the most copies that make sense
	 * into max; return how many code points, 0 if there is none.
	 */
	int	(*glyph)(uint32_t *chars, long *max, void *arg);
	/*
	 * Marks that start a feed when the last one ended with a glyph:
	 * join them to it if it waits in the last column with the cursor
	 * after it, and return non-zero; 0 to have them fed.
	 */
	int	(*join)(const uint32_t *marks, int n, void *arg);
};

/* What the state's owner hears; none may be NULL. */
struct vt_state_cbs {
	/* Bytes for the child: key encodings and query replies. */
	void	(*output)(const char *buf, size_t len, void *arg);
};

struct vt_state	*vt_state_new(int rows, int cols,
		    const struct vt_state_cbs *, void *);
void		 vt_state_attach(struct vt_state *,
		    const struct vt_state_cells *, void *);
void		 vt_state_free(struct vt_state *);
void		 vt_state_feed(struct vt_state *, const uint8_t *, size_t);
void		 vt_state_write(struct vt_state *, const char *, size_t);
void		 vt_state_resize(struct vt_state *, int rows, int cols);
void		 vt_state_wrap_lost(struct vt_state *);
void		 vt_state_reset_program(struct vt_state *, int altscreen,
		    int *row, int *col);
void		 vt_state_position(const struct vt_state *, int *row,
		    int *col);
void		 vt_state_cursor(const struct vt_state *, int *row, int *col);

void		 vt_state_key(struct vt_state *, enum vt_key, unsigned int);
void		 vt_state_char(struct vt_state *, uint32_t, int alt);
void		 vt_state_paste(struct vt_state *, int start);
void		 vt_state_mouse(struct vt_state *, int row, int col,
		    int button, int press, int motion, unsigned int mods);

#endif
