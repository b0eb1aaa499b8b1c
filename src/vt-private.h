/*
 * vt-private.h: the state shared by the emulator's three files.  Not a
 * public header: nothing outside vt*.c includes it.
 *
 *  - vt-filter.c owns the byte filter in front of libvterm 0.1.4 (the
 *    F_* state, the CSI mirror, the string buffer, the output queue);
 *  - vt-grid.c owns the cells: rows, screens, the scrollback ring, the
 *    pool of combining sequences, and text taken from them;
 *  - vt.c owns the VTerm and its VTermState, whose callbacks drive the
 *    grid, and the public API that is not about the grid's text.
 * struct vt holds all three; each field is written by the file that owns
 * it, except the pen (vt.c's callbacks set it, the grid fills with it)
 * and the last glyph (vt.c's putglyph records it, the filter reads it).
 */
#ifndef JOBDECK_VT_PRIVATE_H
#define JOBDECK_VT_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include <vterm.h>

#include "utf8.h"
#include "vt.h"

#define CHUNK_MAX	65536		/* bytes per vterm_input_write() */
#define STR_MAX		4096		/* OSC/DCS bytes passed on */
#define CSI_ARGS	16		/* libvterm's CSI_ARGS_MAX */
#define CSI_EXTRA	4		/* leader or intermediate bytes kept */
#define CSI_ARG_SAT	9999999L	/* parameters saturate here */
#define COMB_MARKS	(VTERM_MAX_CHARS_PER_CELL - 1)
#define COMB_HANDLES	65535
#define SB_LINES_MAX	1000000
#define GLYPH_CHARS	VTERM_MAX_CHARS_PER_CELL

/* One row of cells; c[hw..cap-1] are all-zero default blanks. */
struct vt_line {
	int		cap;
	int		hw;
	struct vt_cell	c[];
};

/* One pooled combining sequence; n == 0 marks a free entry. */
struct vt_comb {
	uint32_t	m[COMB_MARKS];
	uint8_t		n;
};

/* Where the byte filter is inside an escape sequence. */
enum vt_fstate {
	F_GROUND,
	F_ESC,
	F_CSI,
	F_STR,			/* OSC or DCS */
	F_STR_ESC,
	F_IGN,			/* APC, PM or SOS: swallowed */
	F_IGN_ESC
};

/* A CSI sequence being parsed (mirrors libvterm 0.1.4's parser). */
struct vt_csi {
	char		lead[CSI_EXTRA];
	int		nlead;
	long		arg[CSI_ARGS];	/* -1: missing */
	uint8_t		more[CSI_ARGS];	/* ':' followed */
	int		argc;
	int		phase;		/* 0 leader, 1 params, 2 intermed. */
	char		inter[CSI_EXTRA];
	int		ninter;
	int		bad;		/* dropped when complete */
};

struct vt {
	/* vt.c: the libvterm state and the caller's callbacks. */
	VTerm		 *vterm;
	VTermState	 *state;
	struct vt_cbs	  cbs;
	void		 *arg;

	/* vt-grid.c: the screens and what changed on them. */
	int		  rows;
	int		  cols;
	struct vt_line	**pri;
	struct vt_line	**alt;		/* NULL until first used */
	struct vt_line	**scr;		/* pri or alt */
	struct vt_line	**tmp;		/* rows pointers of scratch */
	uint8_t		 *dirty;
	int		  any_dirty;

	/* vt.c sets the pen (SGR); the grid fills erased cells with it. */
	uint16_t	  pen_attrs;
	uint32_t	  pen_fg;
	uint32_t	  pen_bg;

	/* vt-grid.c: the scrollback ring; sb_max is its size, fixed. */
	struct vt_line	**sb;
	int		  sb_max;
	int		  sb_cap;	/* slots allocated: grows to sb_max */
	int		  sb_first;
	int		  sb_count;

	/* vt-grid.c: the pool of combining sequences. */
	struct vt_comb	 *comb;		/* handle h is comb[h - 1] */
	int		  comb_cap;
	int		  comb_top;	/* handles 1..comb_top handed out */
	uint16_t	 *comb_free;
	int		  comb_nfree;
	uint16_t	 *hash;
	int		  hash_size;
	int		  comb_live;

	/* vt.c: terminal properties. */
	char		 *title;
	int		  altscreen;
	int		  reverse;
	int		  mouse;
	int		  cursor_visible;

	/* vt.c's putglyph records the last glyph; the filter reads it. */
	uint32_t	  last[GLYPH_CHARS];
	int		  last_n;
	int		  last_width;
	int		  last_row;	/* where the last glyph went */
	int		  last_col;
	int		  tail_glyph;	/* the last feed ended with a glyph */

	/* vt-filter.c: the byte filter. */
	enum vt_fstate	  fs;
	struct utf8_stream u8;		/* a character read in pieces */
	char		  esc[CSI_EXTRA];
	int		  nesc;
	struct vt_csi	  csi;
	char		  str_kind;
	char		 *str;
	size_t		  str_len;
	char		 *obuf;
	size_t		  olen;

	/* vt.c: fixes after a resize, and replies kept for our queries. */
	int		  fix_phantom;
	int		  capture;
	char		  cap[128];
	size_t		  cap_len;
};

/* A growable byte string for building text lines. */
struct vt_sbuf {
	char	*p;
	size_t	 len;
	size_t	 cap;
};

/* Return non-zero if a cell is a default blank (all zero bits). */
static inline int
vt_cell_zero(const struct vt_cell *c)
{
	return (c->ch | c->attrs | c->comb | c->fg | c->bg) == 0;
}

/* Return the cell an erase with the current pen leaves. */
static inline struct vt_cell
vt_pen_blank(const struct vt *vt)
{
	struct vt_cell	c;

	c.ch = VT_CELL_BLANK;
	c.attrs = vt->pen_attrs;
	c.comb = 0;
	c.fg = vt->pen_fg;
	c.bg = vt->pen_bg;
	return c;
}

/* vt.c */
void		 vt_state_write(struct vt *, const char *, size_t);
void		 vt_state_output(const char *, size_t, void *);
void		 vt_state_cursor(const struct vt *, int *, int *);

/* vt-filter.c */
void		 vt_filter_init(struct vt *);
void		 vt_filter_free(struct vt *);
void		 vt_filter_feed(struct vt *, const uint8_t *, size_t);
void		 vt_filter_flush(struct vt *);
void		 vt_filter_reset(struct vt *);

/* vt-grid.c */
void		 vt_grid_init(struct vt *, int);
void		 vt_grid_free(struct vt *);
void		 vt_grid_line_fill(struct vt *, struct vt_line *, int, int);
void		 vt_grid_line_clear(struct vt *, struct vt_line *);
int		 vt_grid_line_blank(const struct vt_line *, int);
struct vt_line	**vt_grid_screen_new(struct vt *, int, int);
struct vt_line	**vt_grid_screen_resize(struct vt *, struct vt_line **, int,
		    int, int, int);
void		 vt_grid_mark_rows(struct vt *, int, int);
void		 vt_grid_scroll(struct vt *, int, int, int);
struct vt_line	*vt_grid_sb_pop(struct vt *);
void		 vt_grid_pull_line(struct vt *, struct vt_line *);
uint16_t	 vt_grid_comb_intern(struct vt *, const uint32_t *, int);
void		 vt_sbuf_add(struct vt_sbuf *, const char *, size_t);

#endif
