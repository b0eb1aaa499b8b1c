/*
 * vt-filter.h: the emulator's lowest layer, the bytes (vt-filter.c).  A
 * filter takes a child's output and hands libvterm 0.1.4's parser only what
 * it reads right; what it needs from the layer above it (the state,
 * vt-state.c) and what it hands it go through struct vt_filter_cbs, so it
 * knows nothing of libvterm, the state or the cells.  The filter owns its
 * parser state and its buffers; the caller owns the filter.  The UTF-8
 * helpers of the whole emulator live here too.  Private to the vt*.c files.
 */
#ifndef JOBDECK_VT_FILTER_H
#define JOBDECK_VT_FILTER_H

#include <stddef.h>
#include <stdint.h>

/* Code points in one cell, a base and marks: 0.1.4's VTERM_MAX_CHARS_PER_CELL. */
#define VT_GLYPH_CHARS	6
#define VT_GLYPH_MARKS	(VT_GLYPH_CHARS - 1)

struct vt_filter;

/* What the filter asks of the layer above it; none may be NULL. */
struct vt_filter_cbs {
	/* Filtered bytes for the parser, in order; a sequence is never split. */
	void	(*write)(const char *buf, size_t len, void *arg);
	/* An answer for the child that the filter gives itself. */
	void	(*reply)(const char *buf, size_t len, void *arg);
	/*
	 * For REP: put the code points of the last glyph put on the screen
	 * into chars (VT_GLYPH_CHARS) and the most copies that make sense
	 * (a screenful) into max; return how many code points, 0 if there is
	 * no glyph to repeat.
	 */
	int	(*glyph)(uint32_t *chars, long *max, void *arg);
	/*
	 * Marks that start a feed when the last feed ended with a glyph (at
	 * most VT_GLYPH_MARKS): join them to that glyph if it waits in the
	 * last column and return non-zero, or return 0 to have them fed.
	 */
	int	(*join)(const uint32_t *marks, int n, void *arg);
};

struct vt_filter *vt_filter_new(const struct vt_filter_cbs *, void *);
void		 vt_filter_free(struct vt_filter *);
void		 vt_filter_feed(struct vt_filter *, const uint8_t *, size_t);
void		 vt_filter_flush(struct vt_filter *);
void		 vt_filter_reset(struct vt_filter *);
int		 vt_filter_combining(uint32_t);

#endif
