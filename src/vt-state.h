/*
 * vt-state.h: the emulator's second layer, the state (vt-state.c), the
 * only user of libvterm 0.1.4.  It owns the VTerm and its VTermState
 * (parser, modes, pen, charsets, margins, tab stops, replies, key and
 * mouse encoding) and the byte filter below it (vt-filter.c), whose
 * bytes it writes into the parser.  It tells the layers above what
 * happened through two callback structs: struct vt_state_cells, what
 * parsing does to the cells (the grid, vt-grid.c, implements it), and
 * struct vt_state_cbs, what the terminal's owner must hear (vt.c).  The
 * caller owns the state; the state owns the filter.  Private to the vt*.c
 * files.
 */
#ifndef JOBDECK_VT_STATE_H
#define JOBDECK_VT_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "vt-cell.h"
#include "vt-filter.h"
#include "vt-keycodes.h"

struct vt_state;

/* A glyph put on the screen. */
struct vt_glyph {
	uint32_t	chars[VT_GLYPH_CHARS];	/* the base, then marks */
	int		n;			/* code points in chars */
	int		width;			/* cells */
	int		protect;		/* DECSCA */
	int		row;
	int		col;
};

/* Rows [start_row, end_row) by columns [start_col, end_col), as VTermRect. */
struct vt_rect {
	int	start_row;
	int	end_row;
	int	start_col;
	int	end_col;
};

/*
 * What parsing does to the cells, in the emulator's terms (libvterm's
 * VTermStateCallbacks, less what the state keeps itself); none may be
 * NULL.  Rows and columns are those of the screen's size at the time.
 */
struct vt_state_cells {
	/* The pen changed: glyphs take its attributes, erases leave it. */
	void	(*pen)(const struct vt_cell *pen, void *arg);
	/* A glyph was put on the screen, in the pen. */
	void	(*glyph)(const struct vt_glyph *glyph, void *arg);
	/* The cursor moved from row `from' to row `to' (either may be off). */
	void	(*cursor)(int from, int to, void *arg);
	/*
	 * Scroll full-width rows [top, bot) up n rows (down if n < 0); as
	 * many rows as the region has, or more, erase it.
	 */
	void	(*scroll)(int top, int bot, int n, void *arg);
	/* Copy the cells of src to dest, the same size, as memmove does. */
	void	(*move)(const struct vt_rect *dest, const struct vt_rect *src,
		    void *arg);
	/* Erase a rectangle with the pen; selective: keep DECSCA cells. */
	void	(*erase)(const struct vt_rect *rect, int selective, void *arg);
	/* Rows [from, to) must be drawn again. */
	void	(*damage)(int from, int to, void *arg);
	/* The alternate screen is shown (on) or left. */
	void	(*altscreen)(int on, void *arg);
	/*
	 * The screen becomes rows x cols with the cursor on cursor_row;
	 * return how many rows the text moved down (negative: up).
	 */
	int	(*resize)(int rows, int cols, int cursor_row, void *arg);
	/*
	 * Join n marks to the glyph at row, col; put all its marks into all
	 * (VT_GLYPH_MARKS) and return how many, or -1 if there is no glyph.
	 */
	int	(*marks)(int row, int col, const uint32_t *add, int n,
		    uint32_t *all, void *arg);
};

/* What the terminal's owner hears; none may be NULL. */
struct vt_state_cbs {
	/* Bytes for the child: key encodings and query replies. */
	void	(*output)(const char *buf, size_t len, void *arg);
	/* OSC 0/2 set the title to this, as the child sent it. */
	void	(*title)(const char *title, void *arg);
	/* BEL. */
	void	(*bell)(void *arg);
};

struct vt_state	*vt_state_new(int rows, int cols,
		    const struct vt_state_cells *, void *,
		    const struct vt_state_cbs *, void *);
void		 vt_state_free(struct vt_state *);
void		 vt_state_feed(struct vt_state *, const uint8_t *, size_t);
void		 vt_state_write(struct vt_state *, const char *, size_t);
void		 vt_state_resize(struct vt_state *, int rows, int cols);
void		 vt_state_reset_program(struct vt_state *, int *row,
		    int *col);

int		 vt_state_cursor(const struct vt_state *, int *row, int *col);
int		 vt_state_altscreen(const struct vt_state *);
int		 vt_state_reverse(const struct vt_state *);
int		 vt_state_mouse_mode(const struct vt_state *);

void		 vt_state_key(struct vt_state *, enum vt_key, unsigned int);
void		 vt_state_char(struct vt_state *, uint32_t, int alt);
void		 vt_state_paste(struct vt_state *, int start);
void		 vt_state_mouse(struct vt_state *, int row, int col,
		    int button, int press, int motion, unsigned int mods);

#endif
