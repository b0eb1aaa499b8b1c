/*
 * vt-grid.c: the emulator's third layer, the cells (vt-grid.h says where it
 * stands).  It is to the state what libvterm's VTermScreen is to its
 * VTermState: the state's callbacks (vt_grid_vterm_cbs) keep the cells,
 * the pen, the terminal's properties and the last glyph; vt.c's API reads
 * them.
 *
 * A row is one allocation and a screen is an array of row pointers, so a
 * full-width scroll rotates pointers (the guide's section 9,
 * docs/libvterm-ncurses-guide.md).  Rows leaving the top of the primary
 * screen go to a scrollback ring by pointer, or as a trimmed copy when
 * that saves a quarter or more; the ring's size, vt->sb_max, is set once
 * by vt_grid_new() from vt_new()'s scrollback_lines.  Cells past a row's
 * high-water mark are known default blanks (all zero bits), so clearing a
 * mostly empty row is cheap.  The alternate screen is allocated on first
 * use.  Combining marks live in a deduplicated pool addressed by 16-bit
 * handles and collected when the pool fills.  Text lines (scrollback, then
 * the screen) are read from here too.
 *
 * The cells match VTermScreen's (the test suite compares them), including
 * its quirks: erases fill with the whole pen, continuation cells keep their
 * old pen, shrinking pushes only the rows needed to keep the cursor and the
 * text below it, growing pulls lines back, and pulled lines lose DECSCA.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"
#include "vt-cell.h"
#include "vt-filter.h"
#include "vt-grid.h"
#include "vt-state.h"
#include "xmalloc.h"

#define COMB_HANDLES	65535
#define SB_LINES_MAX	1000000

/* One row of cells; c[hw..cap-1] are all-zero default blanks. */
struct vt_line {
	int		cap;
	int		hw;
	struct vt_cell	c[];
};

/* One pooled combining sequence; n == 0 marks a free entry. */
struct vt_comb {
	uint32_t	m[VT_GLYPH_MARKS];
	uint8_t		n;
};

/* One grid; its functions call it vt, as the layers around it do theirs. */
struct vt_grid {
	/* The screens and what changed on them. */
	int		  rows;
	int		  cols;
	struct vt_line	**pri;
	struct vt_line	**alt;		/* NULL until first used */
	struct vt_line	**scr;		/* pri or alt */
	struct vt_line	**tmp;		/* rows pointers of scratch */
	uint64_t	 *dirty;	/* each row's last change: a seq */
	uint64_t	  seq;		/* changes so far */
	uint64_t	  clean;	/* seq at vt_grid_clear_dirty() */

	/* The state below, and the owner's callbacks. */
	struct vt_state	 *state;
	const struct vt_grid_cbs *cbs;
	void		 *arg;

	/* The pen (SGR): glyphs take its attributes, erases leave it. */
	struct vt_cell	  pen;

	/* Terminal properties. */
	int		  altscreen;
	int		  reverse;
	int		  mouse;
	int		  cursor_visible;

	/* The last glyph put: what REP repeats, where marks may join. */
	uint32_t	  last[VT_GLYPH_CHARS];
	int		  last_n;
	int		  last_width;
	int		  last_row;
	int		  last_col;

	/* The scrollback ring; sb_max is its size, fixed. */
	struct vt_line	**sb;
	int		  sb_max;
	int		  sb_cap;	/* slots allocated: grows to sb_max */
	int		  sb_first;
	int		  sb_count;

	/* The pool of combining sequences. */
	struct vt_comb	 *comb;		/* handle h is comb[h - 1] */
	int		  comb_cap;
	int		  comb_top;	/* handles 1..comb_top handed out */
	uint16_t	 *comb_free;
	int		  comb_nfree;
	uint16_t	 *hash;
	int		  hash_size;
	int		  comb_live;
};

static const struct vt_cell blank_cell;

/* Return non-zero if a cell is a default blank (all zero bits). */
static int
cell_zero(const struct vt_cell *c)
{
	return (c->ch | c->attrs | c->comb | c->fg | c->bg) == 0;
}

/* Append n bytes to a string buffer. */
void
vt_sbuf_add(struct vt_sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = xreallocarray(b->p, b->cap, 1);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

/* ------------------------------------------------------------------ */
/* Rows and screens. */

/* Allocate a row of cap default blank cells. */
static struct vt_line *
line_new(int cap)
{
	struct vt_line	*l;

	l = xcalloc(1, sizeof *l + (size_t)cap * sizeof l->c[0]);
	l->cap = cap;
	l->hw = 0;
	return l;
}

/* Make room for cols cells in a row, which may move. */
static struct vt_line *
line_fit(struct vt_line *l, int cols)
{
	if (l->cap >= cols)
		return l;
	l = xreallocarray(l, 1, sizeof *l + (size_t)cols * sizeof l->c[0]);
	memset(l->c + l->cap, 0, (size_t)(cols - l->cap) * sizeof l->c[0]);
	l->cap = cols;
	return l;
}

/* Fill cells [from, to) of a row with the pen's blank. */
static void
line_fill(struct vt_grid *vt, struct vt_line *l, int from, int to)
{
	struct vt_cell	b;
	int		i;

	if (from >= to)
		return;
	b = vt->pen;
	if (cell_zero(&b)) {
		if (from < l->hw) {
			memset(l->c + from, 0, (size_t)((to < l->hw ? to :
			    l->hw) - from) * sizeof l->c[0]);
			if (to >= l->hw)
				l->hw = from;
		}
		return;
	}
	for (i = from; i < to; i++)
		l->c[i] = b;
	if (to > l->hw)
		l->hw = to;
}

/* Clear a whole row to the pen's blank for the current width. */
static void
line_clear(struct vt_grid *vt, struct vt_line *l)
{
	memset(l->c, 0, (size_t)l->hw * sizeof l->c[0]);
	l->hw = 0;
	line_fill(vt, l, 0, vt->cols);
}

/* Return the length of a row without its trailing default blanks. */
static int
line_used(const struct vt_line *l, int width)
{
	int	n;

	n = l->hw < width ? l->hw : width;
	while (n > 0 && cell_zero(&l->c[n - 1]))
		n--;
	return n;
}

/* Allocate a screen of rows blank rows. */
static struct vt_line **
screen_new(struct vt_grid *vt, int rows, int cols)
{
	struct vt_line	**s;
	int		  r;

	s = xcalloc((size_t)rows, sizeof *s);
	for (r = 0; r < rows; r++) {
		s[r] = line_new(cols);
		line_fill(vt, s[r], 0, cols);
	}
	return s;
}

/* Free a screen of rows rows. */
static void
screen_free(struct vt_line **s, int rows)
{
	int	r;

	if (s == NULL)
		return;
	for (r = 0; r < rows; r++)
		free(s[r]);
	free(s);
}

/* Crop or extend a screen as VTermScreen's realloc_buffer does. */
static struct vt_line **
screen_resize(struct vt_grid *vt, struct vt_line **s, int orows, int ocols,
    int rows, int cols)
{
	struct vt_line	*l;
	int		 r;

	for (r = rows; r < orows; r++)
		free(s[r]);
	s = xreallocarray(s, (size_t)rows, sizeof *s);
	for (r = 0; r < rows; r++) {
		if (r >= orows) {
			s[r] = line_new(cols);
			line_fill(vt, s[r], 0, cols);
			continue;
		}
		l = s[r];
		if (cols < ocols && l->hw > cols) {
			memset(l->c + cols, 0,
			    (size_t)(l->hw - cols) * sizeof l->c[0]);
			l->hw = cols;
		} else if (cols > ocols) {
			l = line_fit(l, cols);
			line_fill(vt, l, ocols, cols);
			s[r] = l;
		}
	}
	return s;
}

/*
 * Count a change: one clock for every grid, so a count a viewer kept for
 * a grid since freed is never mistaken for one of a new grid.
 */
static uint64_t
grid_tick(struct vt_grid *vt)
{
	static uint64_t	changes;

	return vt->seq = ++changes;
}

/* Mark rows [from, to) dirty. */
static void
mark_rows(struct vt_grid *vt, int from, int to)
{
	if (from < 0)
		from = 0;
	if (to > vt->rows)
		to = vt->rows;
	if (from >= to)
		return;
	grid_tick(vt);
	while (from < to)
		vt->dirty[from++] = vt->seq;
}

/* ------------------------------------------------------------------ */
/* Scrollback. */

/* Copy the first n cells of a row into a scrollback line, maybe reusing old. */
static struct vt_line *
sb_copy(struct vt_line *old, const struct vt_line *l, int n)
{
	struct vt_line	*c = old;

	if (c == NULL || c->cap < n || c->cap > 2 * n + 16) {
		c = xreallocarray(old, 1, sizeof *c +
		    (size_t)n * sizeof c->c[0]);
		c->cap = n;
	} else if (c->hw > n)
		memset(c->c + n, 0, (size_t)(c->hw - n) * sizeof c->c[0]);
	memcpy(c->c, l->c, (size_t)n * sizeof c->c[0]);
	c->hw = n;
	return c;
}

/*
 * Store a row leaving the top of the screen and return a row to reuse as
 * the new blank row.  A row whose used part saves a quarter or more is
 * copied (into the evicted line's memory when it fits); otherwise the row
 * itself moves into the ring and the evicted line, if wide enough, comes
 * back, so steady scrolling allocates nothing.
 */
static struct vt_line *
sb_push(struct vt_grid *vt, struct vt_line *l, int width)
{
	struct vt_line	*ev = NULL, *out;
	int		 n, slot;

	if (vt->sb_max == 0)
		return l;
	/*
	 * Slots are allocated as lines come, so a quiet job's vt does not
	 * hold a whole ring; until it is full the ring starts at slot 0, so
	 * growing it moves nothing.
	 */
	if (vt->sb_count == vt->sb_cap && vt->sb_cap < vt->sb_max) {
		vt->sb_cap = vt->sb_cap < 32 ? 32 : vt->sb_cap * 2;
		if (vt->sb_cap > vt->sb_max)
			vt->sb_cap = vt->sb_max;
		vt->sb = xreallocarray(vt->sb, (size_t)vt->sb_cap,
		    sizeof *vt->sb);
	}
	if (vt->sb_count < vt->sb_max) {
		slot = (vt->sb_first + vt->sb_count) % vt->sb_max;
		vt->sb_count++;
	} else {
		slot = vt->sb_first;
		vt->sb_first = (vt->sb_first + 1) % vt->sb_max;
		ev = vt->sb[slot];
	}
	n = line_used(l, width);
	if (n * 4 <= width * 3) {
		vt->sb[slot] = sb_copy(ev, l, n);
		return l;
	}
	l->hw = n;
	vt->sb[slot] = l;
	if (ev != NULL && ev->cap >= vt->cols)
		return ev;
	free(ev);
	out = line_new(vt->cols);
	return out;
}

/*
 * Scroll rows [top, bot) of the shown screen up (downward > 0) or down by
 * rotating row pointers; 0 < |downward| < bot - top.  Rows leaving the top
 * of the primary screen go to the ring; the rows brought in are blank.
 */
static void
scroll_rows(struct vt_grid *vt, int top, int bot, int downward)
{
	struct vt_line	**s = vt->scr;
	int		  h, n, i, push;

	h = bot - top;
	n = downward > 0 ? downward : -downward;
	if (downward > 0) {
		push = vt->scr == vt->pri && top == 0;
		memcpy(vt->tmp, s + top, (size_t)n * sizeof *s);
		memmove(s + top, s + top + n, (size_t)(h - n) * sizeof *s);
		for (i = 0; i < n; i++) {
			if (push)
				vt->tmp[i] = sb_push(vt, vt->tmp[i],
				    vt->cols);
			line_clear(vt, vt->tmp[i]);
			s[bot - n + i] = vt->tmp[i];
		}
	} else {
		memcpy(vt->tmp, s + bot - n, (size_t)n * sizeof *s);
		memmove(s + top + n, s + top, (size_t)(h - n) * sizeof *s);
		for (i = 0; i < n; i++) {
			line_clear(vt, vt->tmp[i]);
			s[top + i] = vt->tmp[i];
		}
	}
	mark_rows(vt, top, bot);
}

/* Remove and return the newest scrollback line, or NULL. */
static struct vt_line *
sb_pop(struct vt_grid *vt)
{
	int	slot;

	if (vt->sb_count == 0)
		return NULL;
	vt->sb_count--;
	slot = (vt->sb_first + vt->sb_count) % vt->sb_max;
	return vt->sb[slot];
}

/* Return scrollback line index (0 is the oldest). */
static struct vt_line *
sb_line(const struct vt_grid *vt, int index)
{
	return vt->sb[(vt->sb_first + index) % vt->sb_max];
}

/* ------------------------------------------------------------------ */
/* Combining marks. */

/* Hash a mark sequence. */
static uint32_t
comb_hash(const uint32_t *m, int n)
{
	uint32_t	h;
	int		i;

	h = 2166136261u;
	for (i = 0; i < n; i++)
		h = (h ^ m[i]) * 16777619u;
	return h ^ (uint32_t)n;
}

/* Put handle h into the hash table. */
static void
comb_hash_add(struct vt_grid *vt, uint16_t h)
{
	const struct vt_comb	*e = &vt->comb[h - 1];
	uint32_t		 i, mask;

	mask = (uint32_t)vt->hash_size - 1;
	i = comb_hash(e->m, e->n) & mask;
	while (vt->hash[i] != 0)
		i = (i + 1) & mask;
	vt->hash[i] = h;
}

/* Rebuild the hash table with size slots from the live entries. */
static void
comb_rehash(struct vt_grid *vt, int size)
{
	int	h;

	free(vt->hash);
	vt->hash_size = size;
	vt->hash = xcalloc((size_t)size, sizeof *vt->hash);
	for (h = 1; h <= vt->comb_top; h++)
		if (vt->comb[h - 1].n != 0)
			comb_hash_add(vt, (uint16_t)h);
}

/* Set the bit of every handle that a row uses. */
static void
comb_mark_line(const struct vt_line *l, uint8_t *bits)
{
	int	i;

	for (i = 0; i < l->hw; i++)
		if (l->c[i].comb != 0)
			bits[l->c[i].comb >> 3] |= 1 << (l->c[i].comb & 7);
}

/* Free every pooled sequence that no cell refers to. */
static void
comb_collect(struct vt_grid *vt)
{
	uint8_t	*bits;
	int	 r, i, h;

	bits = xcalloc(COMB_HANDLES / 8 + 1, 1);
	for (r = 0; r < vt->rows; r++) {
		comb_mark_line(vt->pri[r], bits);
		if (vt->alt != NULL)
			comb_mark_line(vt->alt[r], bits);
	}
	for (i = 0; i < vt->sb_count; i++)
		comb_mark_line(sb_line(vt, i), bits);
	vt->comb_nfree = 0;
	vt->comb_live = 0;
	for (h = 1; h <= vt->comb_top; h++) {
		if (bits[h >> 3] & (1 << (h & 7))) {
			vt->comb_live++;
			continue;
		}
		vt->comb[h - 1].n = 0;
		vt->comb_free[vt->comb_nfree++] = (uint16_t)h;
	}
	free(bits);
	comb_rehash(vt, vt->hash_size);
}

/* Return a free handle, growing or collecting the pool; 0 if none. */
static uint16_t
comb_alloc(struct vt_grid *vt)
{
	if (vt->comb_nfree == 0 && vt->comb_top == vt->comb_cap) {
		if (vt->comb_cap < COMB_HANDLES) {
			vt->comb_cap = vt->comb_cap == 0 ? 64 :
			    vt->comb_cap * 2;
			if (vt->comb_cap > COMB_HANDLES)
				vt->comb_cap = COMB_HANDLES;
			vt->comb = xreallocarray(vt->comb,
			    (size_t)vt->comb_cap, sizeof *vt->comb);
		} else {
			if (vt->comb_free == NULL)
				vt->comb_free = xcalloc(COMB_HANDLES,
				    sizeof *vt->comb_free);
			comb_collect(vt);
		}
	}
	if (vt->comb_nfree > 0)
		return vt->comb_free[--vt->comb_nfree];
	if (vt->comb_top < vt->comb_cap)
		return (uint16_t)++vt->comb_top;
	return 0;
}

/* Return the handle of a mark sequence, adding it if new; 0 if full. */
static uint16_t
comb_intern(struct vt_grid *vt, const uint32_t *m, int n)
{
	struct vt_comb	*e;
	uint32_t	 i, mask;
	uint16_t	 h;

	if (n > VT_GLYPH_MARKS)
		n = VT_GLYPH_MARKS;
	if (n <= 0)
		return 0;
	if (vt->hash != NULL) {
		mask = (uint32_t)vt->hash_size - 1;
		i = comb_hash(m, n) & mask;
		while ((h = vt->hash[i]) != 0) {
			e = &vt->comb[h - 1];
			if (e->n == n && memcmp(e->m, m,
			    (size_t)n * sizeof *m) == 0)
				return h;
			i = (i + 1) & mask;
		}
	}
	if ((h = comb_alloc(vt)) == 0)
		return 0;
	e = &vt->comb[h - 1];
	memcpy(e->m, m, (size_t)n * sizeof *m);
	e->n = (uint8_t)n;
	vt->comb_live++;
	if (vt->hash == NULL || vt->comb_live * 2 > vt->hash_size)
		comb_rehash(vt, vt->hash == NULL ? 256 : vt->hash_size * 2);
	else
		comb_hash_add(vt, h);
	return h;
}

/* Return non-zero if a row holds no characters in its first width cells. */
static int
line_blank(const struct vt_line *l, int width)
{
	int	i, n;

	n = l->hw < width ? l->hw : width;
	for (i = 0; i < n; i++)
		if (l->c[i].ch != VT_CELL_BLANK)
			return 0;
	return 1;
}

/* Pull the newest scrollback line back in as the top row. */
static void
pull_line(struct vt_grid *vt, struct vt_line *sl)
{
	struct vt_line	**s = vt->pri;
	struct vt_line	 *l;
	struct vt_cell	  c;
	int		  col, w;

	l = s[vt->rows - 1];
	memmove(s + 1, s, (size_t)(vt->rows - 1) * sizeof *s);
	s[0] = l;
	line_clear(vt, l);
	for (col = 0; col < vt->cols; col += w) {
		c = col < sl->hw ? sl->c[col] : blank_cell;
		w = col + 1 < sl->hw &&
		    sl->c[col + 1].ch == VT_CELL_WIDE_RIGHT ? 2 : 1;
		if (w == 2 && col + 1 >= vt->cols) {
			c = blank_cell;
			w = 1;
		}
		c.attrs &= ~VT_ATTR_PROTECTED;
		l->c[col] = c;
		if (w == 2) {
			l->c[col + 1].ch = VT_CELL_WIDE_RIGHT;
			l->c[col + 1].comb = 0;
		}
	}
	l->hw = vt->cols;
	l->hw = line_used(l, vt->cols);
	free(sl);
}


/* ------------------------------------------------------------------ */
/* What parsing does: the VTermStateCallbacks the grid hands the state. */

/* Encode a libvterm colour as a VT_COLOR_* word. */
static uint32_t
color_word(const VTermColor *c)
{
	if (c->type & VTERM_COLOR_DEFAULT_MASK)
		return VT_COLOR_DEFAULT;
	if (VTERM_COLOR_IS_INDEXED(c))
		return VT_COLOR_MAKE_INDEXED(c->indexed.idx);
	return VT_COLOR_MAKE_RGB(c->rgb.red, c->rgb.green, c->rgb.blue);
}

/* Clip a coordinate range to [0, max). */
static void
clip(int *from, int *to, int max)
{
	if (*from < 0)
		*from = 0;
	if (*to > max)
		*to = max;
}

/* Store a glyph: the base character, its marks and continuation cells. */
static int
cb_putglyph(VTermGlyphInfo *info, VTermPos pos, void *user)
{
	struct vt_grid	*vt = user;
	struct vt_line	*l;
	struct vt_cell	*c;
	int		 n, k, end;

	if (pos.row < 0 || pos.row >= vt->rows || pos.col < 0 ||
	    pos.col >= vt->cols || info->chars[0] == 0)
		return 1;
	vt->last[0] = info->chars[0];
	for (n = 1; n < VT_GLYPH_CHARS && info->chars[n] != 0; n++)
		vt->last[n] = info->chars[n];
	vt->last_n = n;
	vt->last_width = info->width;
	vt->last_row = pos.row;
	vt->last_col = pos.col;

	l = vt->scr[pos.row];
	c = &l->c[pos.col];
	c->ch = info->chars[0];
	c->attrs = vt->pen.attrs |
	    (info->protected_cell ? VT_ATTR_PROTECTED : 0);
	c->comb = n > 1 ? comb_intern(vt, info->chars + 1, n - 1) : 0;
	c->fg = vt->pen.fg;
	c->bg = vt->pen.bg;
	end = pos.col + 1;
	for (k = 1; k < info->width && end < vt->cols; k++) {
		l->c[end].ch = VT_CELL_WIDE_RIGHT;
		l->c[end].comb = 0;
		end++;
	}
	if (end > l->hw)
		l->hw = end;
	vt->dirty[pos.row] = grid_tick(vt);
	return 1;
}

/* Note a cursor move: both rows need drawing again. */
static int
cb_movecursor(VTermPos pos, VTermPos oldpos, int visible, void *user)
{
	struct vt_grid	*vt = user;

	grid_tick(vt);
	if (oldpos.row >= 0 && oldpos.row < vt->rows)
		vt->dirty[oldpos.row] = vt->seq;
	if (pos.row >= 0 && pos.row < vt->rows)
		vt->dirty[pos.row] = vt->seq;
	vt->cursor_visible = visible;
	return 1;
}

static int	cb_erase(VTermRect, int, void *);

/* Scroll whole rows by rotating pointers; leave the rest to moverect. */
static int
cb_scrollrect(VTermRect rect, int downward, int rightward, void *user)
{
	struct vt_grid	*vt = user;
	int		 top, bot, n;

	if (rightward != 0 || rect.start_col != 0 || rect.end_col != vt->cols)
		return 0;
	top = rect.start_row;
	bot = rect.end_row;
	if (top < 0 || bot > vt->rows || top >= bot || downward == 0)
		return 1;
	n = downward > 0 ? downward : -downward;
	if (n >= bot - top) {
		cb_erase(rect, 0, vt);
		return 1;
	}
	scroll_rows(vt, top, bot, downward);
	return 1;
}

/* Copy the cells of src to dest, away from the overlap. */
static int
cb_moverect(VTermRect dest, VTermRect src, void *user)
{
	struct vt_grid	*vt = user;
	struct vt_line	*dl, *sl;
	int		 dr, dc, r0, r1, c0, c1, r, i, shw, moved;

	dr = dest.start_row - src.start_row;
	dc = dest.start_col - src.start_col;
	r0 = dest.start_row;
	r1 = dest.end_row;
	clip(&r0, &r1, vt->rows);
	clip(&r0, &r1, vt->rows + dr);
	if (r0 < dr)
		r0 = dr;
	c0 = dest.start_col;
	c1 = dest.end_col;
	clip(&c0, &c1, vt->cols);
	if (c0 < dc)
		c0 = dc;
	if (c1 > vt->cols + dc)
		c1 = vt->cols + dc;
	if (r0 >= r1 || c0 >= c1)
		return 1;
	for (i = 0; i < r1 - r0; i++) {
		r = dr > 0 ? r1 - 1 - i : r0 + i;
		dl = vt->scr[r];
		sl = vt->scr[r - dr];
		shw = sl->hw;
		memmove(dl->c + c0, sl->c + c0 - dc,
		    (size_t)(c1 - c0) * sizeof dl->c[0]);
		moved = shw - (c0 - dc);
		if (moved > 0) {
			moved = c0 + moved < c1 ? c0 + moved : c1;
			if (moved > dl->hw)
				dl->hw = moved;
		}
	}
	mark_rows(vt, r0, r1);
	return 1;
}

/* Erase a rectangle with the pen; selective erases keep DECSCA cells. */
static int
cb_erase(VTermRect rect, int selective, void *user)
{
	struct vt_grid	*vt = user;
	struct vt_line	*l;
	struct vt_cell	 b;
	int		 r0, r1, c0, c1, r, i;

	r0 = rect.start_row;
	r1 = rect.end_row;
	c0 = rect.start_col;
	c1 = rect.end_col;
	clip(&r0, &r1, vt->rows);
	clip(&c0, &c1, vt->cols);
	if (r0 >= r1 || c0 >= c1)
		return 1;
	b = vt->pen;
	for (r = r0; r < r1; r++) {
		l = vt->scr[r];
		if (!selective) {
			line_fill(vt, l, c0, c1);
			continue;
		}
		for (i = c0; i < c1 && (i < l->hw || !cell_zero(&b)); i++)
			if (!(l->c[i].attrs & VT_ATTR_PROTECTED))
				l->c[i] = b;
		if (!cell_zero(&b) && c1 > l->hw)
			l->hw = c1;
	}
	mark_rows(vt, r0, r1);
	return 1;
}

/* Reset the pen to defaults. */
static int
cb_initpen(void *user)
{
	struct vt_grid	*vt = user;

	vt->pen.attrs = 0;
	vt->pen.fg = VT_COLOR_DEFAULT;
	vt->pen.bg = VT_COLOR_DEFAULT;
	return 1;
}

/* Set or clear one attribute bit of the pen. */
static void
pen_flag(struct vt_grid *vt, uint16_t bit, int on)
{
	if (on)
		vt->pen.attrs |= bit;
	else
		vt->pen.attrs &= ~bit;
}

/* Change one pen attribute (SGR). */
static int
cb_setpenattr(VTermAttr attr, VTermValue *val, void *user)
{
	struct vt_grid	*vt = user;

	switch (attr) {
	case VTERM_ATTR_BOLD:
		pen_flag(vt, VT_ATTR_BOLD, val->boolean);
		break;
	case VTERM_ATTR_UNDERLINE:
		vt->pen.attrs = (vt->pen.attrs & ~VT_ATTR_UNDERLINE) |
		    ((val->number << VT_ATTR_UNDERLINE_SHIFT) &
		    VT_ATTR_UNDERLINE);
		break;
	case VTERM_ATTR_ITALIC:
		pen_flag(vt, VT_ATTR_ITALIC, val->boolean);
		break;
	case VTERM_ATTR_BLINK:
		pen_flag(vt, VT_ATTR_BLINK, val->boolean);
		break;
	case VTERM_ATTR_REVERSE:
		pen_flag(vt, VT_ATTR_REVERSE, val->boolean);
		break;
	case VTERM_ATTR_STRIKE:
		pen_flag(vt, VT_ATTR_STRIKE, val->boolean);
		break;
	case VTERM_ATTR_FONT:
		vt->pen.attrs = (vt->pen.attrs & ~VT_ATTR_FONT) |
		    ((val->number << VT_ATTR_FONT_SHIFT) & VT_ATTR_FONT);
		break;
	case VTERM_ATTR_FOREGROUND:
		vt->pen.fg = color_word(&val->color);
		break;
	case VTERM_ATTR_BACKGROUND:
		vt->pen.bg = color_word(&val->color);
		break;
	default:
		break;
	}
	return 1;
}

/* Record a terminal property; return 1 so the state keeps it. */
static int
cb_settermprop(VTermProp prop, VTermValue *val, void *user)
{
	struct vt_grid	*vt = user;

	switch (prop) {
	case VTERM_PROP_CURSORVISIBLE:
		vt->cursor_visible = val->boolean;
		break;
	case VTERM_PROP_ALTSCREEN:
		vt->altscreen = val->boolean;
		if (vt->altscreen && vt->alt == NULL)
			vt->alt = screen_new(vt, vt->rows, vt->cols);
		/* The state erases the alternate screen after this. */
		vt->scr = vt->altscreen ? vt->alt : vt->pri;
		vt_grid_mark_all_dirty(vt);
		break;
	case VTERM_PROP_TITLE:
		vt->cbs->title(val->string != NULL ? val->string : "",
		    vt->arg);
		break;
	case VTERM_PROP_REVERSE:
		vt->reverse = val->boolean;
		vt_grid_mark_all_dirty(vt);
		break;
	case VTERM_PROP_MOUSE:
		vt->mouse = val->number;
		break;
	default:
		break;
	}
	return 1;
}

/* Pass BEL on. */
static int
cb_bell(void *user)
{
	struct vt_grid	*vt = user;

	vt->cbs->bell(vt->arg);
	return 1;
}

/*
 * Resize the grid inside vterm_set_size(), as VTermScreen does: a shrink
 * pushes top rows only as far as needed to keep the cursor and the text
 * below it, a grow pulls lines back; delta tells the state how far the
 * cursor moved, never above row 0 (0.1.4 let it go negative).
 */
static int
cb_resize(int rows, int cols, VTermPos *delta, void *user)
{
	struct vt_grid	*vt = user;
	struct vt_line	*sl;
	VTermRect	 rect;
	int		 orows = vt->rows, ocols = vt->cols, r, n, crow, ccol;

	vt_state_position(vt->state, &crow, &ccol);
	if (vt->scr == vt->pri && rows < orows) {
		for (r = orows - 1; r >= rows; r--)
			if (!line_blank(vt->pri[r], ocols) || crow == r)
				break;
		n = r + 1 - rows;
		if (n > 0) {
			rect.start_row = 0;
			rect.end_row = orows;
			rect.start_col = 0;
			rect.end_col = ocols;
			cb_scrollrect(rect, n, 0, vt);
			delta->row -= n;
		}
	}
	vt->pri = screen_resize(vt, vt->pri, orows, ocols, rows, cols);
	if (vt->alt != NULL)
		vt->alt = screen_resize(vt, vt->alt, orows, ocols, rows, cols);
	vt->scr = vt->altscreen ? vt->alt : vt->pri;
	free(vt->tmp);
	vt->tmp = xcalloc((size_t)rows, sizeof *vt->tmp);
	free(vt->dirty);
	vt->dirty = xcalloc((size_t)rows, sizeof *vt->dirty);
	vt->rows = rows;
	vt->cols = cols;
	if (vt->scr == vt->pri) {
		for (n = rows - orows; n > 0; n--) {
			if ((sl = sb_pop(vt)) == NULL)
				break;
			pull_line(vt, sl);
			delta->row++;
		}
	}
	if (crow + delta->row < 0) {
		delta->row = -crow;
		vt_state_wrap_lost(vt->state);
	}
	vt_grid_mark_all_dirty(vt);
	return 1;
}

/* Follow DECDWL/DECDHL: a double-width row loses its right half. */
static int
cb_setlineinfo(int row, const VTermLineInfo *newinfo,
    const VTermLineInfo *oldinfo, void *user)
{
	struct vt_grid	*vt = user;
	VTermRect	 rect;

	if (row < 0 || row >= vt->rows)
		return 0;
	if (newinfo->doublewidth != oldinfo->doublewidth ||
	    newinfo->doubleheight != oldinfo->doubleheight) {
		mark_rows(vt, row, row + 1);
		if (newinfo->doublewidth) {
			rect.start_row = row;
			rect.end_row = row + 1;
			rect.start_col = vt->cols / 2;
			rect.end_col = vt->cols;
			cb_erase(rect, 0, vt);
		}
	}
	return 1;
}

static const VTermStateCallbacks vt_grid_vterm_cbs = {
	.putglyph = cb_putglyph,
	.movecursor = cb_movecursor,
	.scrollrect = cb_scrollrect,
	.moverect = cb_moverect,
	.erase = cb_erase,
	.initpen = cb_initpen,
	.setpenattr = cb_setpenattr,
	.settermprop = cb_settermprop,
	.bell = cb_bell,
	.resize = cb_resize,
	.setlineinfo = cb_setlineinfo
};

/* Give the filter, through the state, the last glyph and a screenful. */
static int
grid_glyph(uint32_t *chars, long *max, void *user)
{
	struct vt_grid	*vt = user;

	if (vt->last_n == 0 || vt->last_width < 1)
		return 0;
	memcpy(chars, vt->last, (size_t)vt->last_n * sizeof *chars);
	*max = (long)vt->rows * vt->cols;
	return vt->last_n;
}

/*
 * Join the marks that start a feed to the glyph the last feed put in the
 * last column, if the cursor still waits after it; return non-zero if so.
 */
static int
grid_join(const uint32_t *add, int nadd, void *user)
{
	struct vt_grid	*vt = user;
	struct vt_cell	*c;
	uint32_t	 marks[VT_GLYPH_MARKS];
	int		 n = 0, i, row, col;

	if (vt->last_row < 0 || vt->last_row >= vt->rows ||
	    vt->last_col + vt->last_width != vt->cols)
		return 0;
	vt_state_position(vt->state, &row, &col);
	if (row != vt->last_row || col != vt->cols - 1)
		return 0;
	c = &vt->scr[vt->last_row]->c[vt->last_col];
	if (c->ch == VT_CELL_BLANK || c->ch == VT_CELL_WIDE_RIGHT)
		return 0;
	if (c->comb != 0) {
		n = vt->comb[c->comb - 1].n;
		memcpy(marks, vt->comb[c->comb - 1].m, (size_t)n * sizeof *marks);
	}
	for (i = 0; i < nadd && n < VT_GLYPH_MARKS; i++)
		marks[n++] = add[i];
	c->comb = comb_intern(vt, marks, n);
	vt->last_n = 1 + n;
	memcpy(vt->last + 1, marks, (size_t)n * sizeof *marks);
	vt->dirty[vt->last_row] = grid_tick(vt);
	return 1;
}

/* What the grid hands the state when it attaches itself. */
static const struct vt_state_cells vt_grid_cells = {
	.vterm = &vt_grid_vterm_cbs,
	.glyph = grid_glyph,
	.join = grid_join
};

/* ------------------------------------------------------------------ */
/* Reading the grid. */

/* Return the number of rows. */
int
vt_grid_rows(const struct vt_grid *vt)
{
	return vt->rows;
}

/* Return the number of columns. */
int
vt_grid_cols(const struct vt_grid *vt)
{
	return vt->cols;
}

/* Return the cells of a screen row, or NULL if out of range. */
const struct vt_cell *
vt_grid_row(const struct vt_grid *vt, int row)
{
	if (row < 0 || row >= vt->rows)
		return NULL;
	return vt->scr[row]->c;
}

/* Return non-zero if a screen row holds no characters (or is off screen). */
int
vt_grid_row_blank(const struct vt_grid *vt, int row)
{
	if (row < 0 || row >= vt->rows)
		return 1;
	return line_blank(vt->scr[row], vt->cols);
}

/* Return the number of scrollback lines. */
int
vt_grid_sb_count(const struct vt_grid *vt)
{
	return vt->sb_count;
}

/* Return scrollback line index (0 is the oldest) and its cell count. */
const struct vt_cell *
vt_grid_sb_line(const struct vt_grid *vt, int index, int *ncells)
{
	const struct vt_line	*l;

	if (index < 0 || index >= vt->sb_count) {
		if (ncells != NULL)
			*ncells = 0;
		return NULL;
	}
	l = sb_line(vt, index);
	if (ncells != NULL)
		*ncells = l->hw;
	return l->c;
}

/* Store a cell's base character then its marks; return how many. */
size_t
vt_grid_cell_text(const struct vt_grid *vt, const struct vt_cell *cell,
    uint32_t *out, size_t max)
{
	const struct vt_comb	*e;
	size_t			 n = 0;
	int			 i;

	if (cell->ch == VT_CELL_BLANK || cell->ch == VT_CELL_WIDE_RIGHT)
		return 0;
	if (n < max)
		out[n++] = cell->ch;
	if (cell->comb == 0 || cell->comb > vt->comb_top)
		return n;
	e = &vt->comb[cell->comb - 1];
	for (i = 0; i < e->n && n < max; i++)
		out[n++] = e->m[i];
	return n;
}

/* Forget the last glyph: a new program's REP repeats nothing. */
void
vt_grid_forget_glyph(struct vt_grid *vt)
{
	vt->last_n = 0;
}

/* Return non-zero while the cursor is shown. */
int
vt_grid_cursor_visible(const struct vt_grid *vt)
{
	return vt->cursor_visible;
}

/* Return non-zero while the alternate screen is shown. */
int
vt_grid_altscreen(const struct vt_grid *vt)
{
	return vt->altscreen;
}

/* Return non-zero while DECSCNM reverses the whole display. */
int
vt_grid_reverse(const struct vt_grid *vt)
{
	return vt->reverse;
}

/* Return the mouse mode the child asked for (0: none). */
int
vt_grid_mouse_mode(const struct vt_grid *vt)
{
	return vt->mouse;
}

/* Return non-zero if a row changed since vt_grid_clear_dirty(). */
int
vt_grid_row_dirty(const struct vt_grid *vt, int row)
{
	return vt_grid_row_changed(vt, row, vt->clean);
}

/* Return non-zero if any row changed since vt_grid_clear_dirty(). */
int
vt_grid_any_dirty(const struct vt_grid *vt)
{
	return vt->seq > vt->clean;
}

/* Forget all changes (for one viewer; others keep their own seq). */
void
vt_grid_clear_dirty(struct vt_grid *vt)
{
	vt->clean = vt->seq;
}

/* Mark every row changed. */
void
vt_grid_mark_all_dirty(struct vt_grid *vt)
{
	int	row;

	grid_tick(vt);
	for (row = 0; row < vt->rows; row++)
		vt->dirty[row] = vt->seq;
}

/*
 * Return the count of changes so far: a viewer that drew the grid when
 * it was seq redraws the rows vt_grid_row_changed() since seq.
 */
uint64_t
vt_grid_seq(const struct vt_grid *vt)
{
	return vt->seq;
}

/* Return non-zero if a row changed after the grid's count was seq. */
int
vt_grid_row_changed(const struct vt_grid *vt, int row, uint64_t seq)
{
	if (row < 0 || row >= vt->rows)
		return 0;
	return vt->dirty[row] > seq;
}

/* Append the UTF-8 text of n cells to b, trailing spaces trimmed. */
static void
cells_text(const struct vt_grid *vt, const struct vt_cell *c, int n,
    struct vt_sbuf *b)
{
	uint32_t	cp[VT_GLYPH_CHARS];
	char		u[UTF8_MAX];
	size_t		k, j, keep;
	int		i;

	vt_sbuf_add(b, "", 0);
	keep = b->len;
	for (i = 0; i < n; i++) {
		if (c[i].ch == VT_CELL_WIDE_RIGHT)
			continue;
		if (c[i].ch == VT_CELL_BLANK) {
			vt_sbuf_add(b, " ", 1);
			continue;
		}
		k = vt_grid_cell_text(vt, &c[i], cp, VT_GLYPH_CHARS);
		for (j = 0; j < k; j++)
			vt_sbuf_add(b, u, (size_t)utf8_put(u, cp[j]));
		if (c[i].ch != ' ')
			keep = b->len;
	}
	b->len = keep;
	b->p[b->len] = '\0';
}

/* Return the number of text lines: scrollback, then the screen. */
int
vt_grid_text_count(const struct vt_grid *vt)
{
	return vt->sb_count + vt->rows;
}

/* Return text line `line' as a new UTF-8 string, or NULL. */
char *
vt_grid_text_line(const struct vt_grid *vt, int line)
{
	const struct vt_line	*l;
	struct vt_sbuf		 b = { NULL, 0, 0 };
	int			 n;

	if (line < 0 || line >= vt->sb_count + vt->rows)
		return NULL;
	if (line < vt->sb_count) {
		l = sb_line(vt, line);
		n = l->hw;
	} else {
		l = vt->scr[line - vt->sb_count];
		n = l->hw < vt->cols ? l->hw : vt->cols;
	}
	cells_text(vt, l->c, n, &b);
	return b.p;
}

/* Copy the text of a line into buf if it is not blank; return its length. */
static int
last_try(const struct vt_grid *vt, const struct vt_cell *c, int n, char *buf,
    size_t size, size_t *len)
{
	struct vt_sbuf	 b = { NULL, 0, 0 };
	const char	*s;
	size_t		 k;

	cells_text(vt, c, n, &b);
	s = b.p;
	while (*s == ' ')
		s++;
	k = strlen(s);
	if (k == 0) {
		free(b.p);
		return 0;
	}
	if (k > size - 1)
		k = utf8_cut(s, size - 1);
	memcpy(buf, s, k);
	buf[k] = '\0';
	*len = k;
	free(b.p);
	return 1;
}

/* Copy the last non-blank line at or above screen row `row' into buf. */
size_t
vt_grid_last_line(const struct vt_grid *vt, int row, char *buf, size_t size)
{
	const struct vt_line	*l;
	size_t			 len = 0;
	int			 i;

	if (size == 0)
		return 0;
	buf[0] = '\0';
	if (row >= vt->rows)
		row = vt->rows - 1;
	for (; row >= 0; row--) {
		l = vt->scr[row];
		if (last_try(vt, l->c, l->hw < vt->cols ? l->hw : vt->cols,
		    buf, size, &len))
			return len;
	}
	for (i = vt->sb_count - 1; i >= 0; i--) {
		l = sb_line(vt, i);
		if (last_try(vt, l->c, l->hw, buf, size, &len))
			return len;
	}
	return 0;
}



/*
 * Return a grid of rows x cols blank cells keeping sb_lines of scrollback
 * (clamped to 0..SB_LINES_MAX; its ring is allocated as lines come),
 * attached to the state st, telling cbs with arg what its owner hears.
 */
struct vt_grid *
vt_grid_new(struct vt_state *st, int rows, int cols, int sb_lines,
    const struct vt_grid_cbs *cbs, void *arg)
{
	struct vt_grid	*vt;

	vt = xcalloc(1, sizeof *vt);
	vt->state = st;
	vt->cbs = cbs;
	vt->arg = arg;
	vt->cursor_visible = 1;
	vt->last_row = -1;
	if (sb_lines < 0)
		sb_lines = 0;
	if (sb_lines > SB_LINES_MAX)
		sb_lines = SB_LINES_MAX;
	vt->rows = rows;
	vt->cols = cols;
	vt->sb_max = sb_lines;
	vt->sb_cap = 0;
	vt->sb = NULL;		/* sb_push() allocates slots as lines come */
	vt->pri = screen_new(vt, vt->rows, vt->cols);
	vt->scr = vt->pri;
	vt->tmp = xcalloc((size_t)vt->rows, sizeof *vt->tmp);
	vt->dirty = xcalloc((size_t)vt->rows, sizeof *vt->dirty);
	vt_state_attach(st, &vt_grid_cells, vt);
	return vt;
}

/* Free a grid: the screens, the ring and the pool of marks. */
void
vt_grid_free(struct vt_grid *vt)
{
	int	i;

	if (vt == NULL)
		return;
	screen_free(vt->pri, vt->rows);
	screen_free(vt->alt, vt->rows);
	for (i = 0; i < vt->sb_count; i++)
		free(sb_line(vt, i));
	free(vt->sb);
	free(vt->tmp);
	free(vt->dirty);
	free(vt->comb);
	free(vt->comb_free);
	free(vt->hash);
	free(vt);
}
