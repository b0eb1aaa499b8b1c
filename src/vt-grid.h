/*
 * vt-grid.h: the emulator's third layer, the grid (vt-grid.c): the cells
 * of the primary and alternate screens, the scrollback ring, the pool of
 * combining marks, what changed since it was last drawn, and text read
 * from them.  It stands on the state (vt-state.c): the state's parsing
 * reaches it only through vt_grid_cells, the struct vt_state_cells it
 * implements, and it calls nothing of the state (of the filter, only its
 * UTF-8 writer).  The caller owns the grid; pointers to its cells stay
 * valid until the next change.  Private to the vt*.c files.
 */
#ifndef JOBDECK_VT_GRID_H
#define JOBDECK_VT_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "vt-cell.h"
#include "vt-state.h"

struct vt_grid;

/* A growable byte string for building text lines. */
struct vt_sbuf {
	char	*p;
	size_t	 len;
	size_t	 cap;
};

/* What the state does to the grid (arg: the struct vt_grid). */
extern const struct vt_state_cells vt_grid_cells;

struct vt_grid	*vt_grid_new(int rows, int cols, int sb_lines);
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

int		 vt_grid_row_dirty(const struct vt_grid *, int row);
int		 vt_grid_any_dirty(const struct vt_grid *);
void		 vt_grid_clear_dirty(struct vt_grid *);
void		 vt_grid_mark_all_dirty(struct vt_grid *);

int		 vt_grid_text_count(const struct vt_grid *);
char		*vt_grid_text_line(const struct vt_grid *, int line);
size_t		 vt_grid_last_line(const struct vt_grid *, int row, char *,
		    size_t);
void		 vt_sbuf_add(struct vt_sbuf *, const char *, size_t);

#endif
