/*
 * vt-grid.h: the emulator's third layer, the grid (vt-grid.c): the cells
 * of the primary and alternate screens, the scrollback ring, the pool of
 * combining marks, the terminal's properties, what changed since it was
 * last drawn, and text read from them.  It stands on the state
 * (vt-state.c) and attaches itself to it as libvterm's VTermScreen does,
 * so that parsing reaches it through the VTermStateCallbacks it hands the
 * state; it tells its owner the title and BEL through struct vt_grid_cbs.
 * It calls the state only to ask where the cursor is and to say a resize
 * cost the cursor its pending wrap, and of the filter only its UTF-8
 * writer.  The caller owns the grid; pointers to its cells stay valid
 * until the next change.  Private to the vt*.c files.
 */
#ifndef JOBDECK_VT_GRID_H
#define JOBDECK_VT_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "vt-cell.h"
#include "vt-state.h"

struct vt_grid;

/* What the grid's owner hears; none may be NULL. */
struct vt_grid_cbs {
	/* OSC 0/2 set the title to this, as the child sent it. */
	void	(*title)(const char *title, void *arg);
	/* BEL. */
	void	(*bell)(void *arg);
};

/* A growable byte string for building text lines. */
struct vt_sbuf {
	char	*p;
	size_t	 len;
	size_t	 cap;
};

struct vt_grid	*vt_grid_new(struct vt_state *, int rows, int cols,
		    int sb_lines, const struct vt_grid_cbs *, void *);
void		 vt_grid_free(struct vt_grid *);
int		 vt_grid_rows(const struct vt_grid *);
int		 vt_grid_cols(const struct vt_grid *);
const struct vt_cell *vt_grid_row(const struct vt_grid *, int row);
int		 vt_grid_row_blank(const struct vt_grid *, int row);
int		 vt_grid_sb_count(const struct vt_grid *);
const struct vt_cell *vt_grid_sb_line(const struct vt_grid *, int index,
		    int *ncells);
size_t		 vt_grid_cell_text(const struct vt_grid *,
		    const struct vt_cell *, uint32_t *, size_t);
void		 vt_grid_forget_glyph(struct vt_grid *);

int		 vt_grid_cursor_visible(const struct vt_grid *);
int		 vt_grid_altscreen(const struct vt_grid *);
int		 vt_grid_reverse(const struct vt_grid *);
int		 vt_grid_mouse_mode(const struct vt_grid *);

int		 vt_grid_row_dirty(const struct vt_grid *, int row);
int		 vt_grid_any_dirty(const struct vt_grid *);
void		 vt_grid_clear_dirty(struct vt_grid *);
void		 vt_grid_mark_all_dirty(struct vt_grid *);
uint64_t	 vt_grid_seq(const struct vt_grid *);
int		 vt_grid_row_changed(const struct vt_grid *, int row,
		    uint64_t seq);

int		 vt_grid_text_count(const struct vt_grid *);
char		*vt_grid_text_line(const struct vt_grid *, int line);
size_t		 vt_grid_last_line(const struct vt_grid *, int row, char *,
		    size_t);
void		 vt_sbuf_add(struct vt_sbuf *, const char *, size_t);

#endif
