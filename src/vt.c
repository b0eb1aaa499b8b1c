/*
 * vt.c: one terminal emulator on libvterm 0.1.4's VTermState layer.
 *
 * The state parses the child's output and keeps the modes, the pen,
 * charsets, margins and tab stops; it also answers DA/DSR/DECRQM/DECRQSS
 * and encodes keys.  This file keeps the cells, as the guide's section 9
 * describes (docs/libvterm-ncurses-guide.md).  A row is one allocation and
 * a screen is an array of row pointers, so a full-width scroll rotates
 * pointers; rows leaving the top of the primary screen go to a scrollback
 * ring by pointer, or as a trimmed copy when that saves a quarter or more.
 * Cells past a row's high-water mark are known default blanks (all zero
 * bits), so clearing a mostly empty row is cheap.  The alternate screen is
 * allocated on first use.  Combining marks live in a deduplicated pool
 * addressed by 16-bit handles and collected when the pool fills.
 *
 * The cells match VTermScreen's (the test suite compares them), including
 * its quirks: erases fill with the whole pen, continuation cells keep their
 * old pen, shrinking pushes only the rows needed to keep the cursor and the
 * text below it, growing pulls lines back, and pulled lines lose DECSCA.
 *
 * A byte filter in front of vterm_input_write() avoids the 0.1.4 bugs:
 *  - an incomplete UTF-8 sequence at the end of a feed is held back, and
 *    malformed UTF-8 and C1 code points become U+FFFD, so the state's
 *    decoder only ever sees whole, valid characters;
 *  - CSI Ps b (REP) is expanded here into Ps copies of the last glyph
 *    (wrapping, as xterm does), bounded by the screen size;
 *  - other CSI sequences are re-encoded from their parsed form, with
 *    parameters saturated and at most 16 of them (17 overflow the parser),
 *    and a final SGR 38/48 gets an empty palette parameter (0.1.4 reads a
 *    stale one from an earlier sequence);
 *  - OSC and DCS strings reach the state whole in one write, cut to
 *    STR_MAX bytes (0.1.4 drops a string split across writes);
 *  - APC, PM and SOS strings are swallowed (0.1.4 prints their contents).
 * A NUL between non-ASCII and ASCII text makes DEC graphics (G0) apply to
 * ASCII whatever the write boundaries (0.1.4 picks a decoder per run).
 * After every write an off-screen cursor (DECRC after a shrink) is clamped
 * back, and after a shrink a stale scroll region is found with DECRQSS and
 * reset.  Deviation from VTermScreen: cells never have DECSCNM folded in;
 * vt_reverse_video() reports it for the whole display, scrollback included.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vterm.h>

#include "vt.h"
#include "xmalloc.h"

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
	VTerm		 *vterm;
	VTermState	 *state;
	struct vt_cbs	  cbs;
	void		 *arg;

	int		  rows;
	int		  cols;
	struct vt_line	**pri;
	struct vt_line	**alt;		/* NULL until first used */
	struct vt_line	**scr;		/* pri or alt */
	struct vt_line	**tmp;		/* rows pointers of scratch */
	uint8_t		 *dirty;
	int		  any_dirty;

	uint16_t	  pen_attrs;
	uint32_t	  pen_fg;
	uint32_t	  pen_bg;

	struct vt_line	**sb;
	int		  sb_max;
	int		  sb_first;
	int		  sb_count;

	struct vt_comb	 *comb;		/* handle h is comb[h - 1] */
	int		  comb_cap;
	int		  comb_top;	/* handles 1..comb_top handed out */
	uint16_t	 *comb_free;
	int		  comb_nfree;
	uint16_t	 *hash;
	int		  hash_size;
	int		  comb_live;

	char		 *title;
	int		  altscreen;
	int		  reverse;
	int		  mouse;
	int		  cursor_visible;

	uint32_t	  last[GLYPH_CHARS];
	int		  last_n;
	int		  last_width;
	int		  last_row;	/* where the last glyph went */
	int		  last_col;
	int		  tail_glyph;	/* the last feed ended with a glyph */
	VTerm		 *probe;	/* mark_is_combining()'s scratch */
	VTermScreen	 *probe_screen;

	enum vt_fstate	  fs;
	uint8_t		  u8[4];
	int		  u8len;
	int		  u8need;
	char		  esc[CSI_EXTRA];
	int		  nesc;
	struct vt_csi	  csi;
	char		  str_kind;
	char		 *str;
	size_t		  str_len;
	char		 *obuf;
	size_t		  olen;

	int		  fix_phantom;
	int		  capture;
	char		  cap[128];
	size_t		  cap_len;
};

static const struct vt_cell blank_cell;

static int	cb_putglyph(VTermGlyphInfo *, VTermPos, void *);
static int	cb_movecursor(VTermPos, VTermPos, int, void *);
static int	cb_scrollrect(VTermRect, int, int, void *);
static int	cb_moverect(VTermRect, VTermRect, void *);
static int	cb_erase(VTermRect, int, void *);
static int	cb_initpen(void *);
static int	cb_setpenattr(VTermAttr, VTermValue *, void *);
static int	cb_settermprop(VTermProp, VTermValue *, void *);
static int	cb_bell(void *);
static int	cb_resize(int, int, VTermPos *, void *);
static int	cb_setlineinfo(int, const VTermLineInfo *,
		    const VTermLineInfo *, void *);
static void	state_printf(struct vt *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));

static const VTermStateCallbacks vt_state_cbs = {
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

/* enum vt_key to libvterm's keys, for the keys below the function keys. */
static const VTermKey vt_keymap[] = {
	[VT_KEY_NONE] = VTERM_KEY_NONE,
	[VT_KEY_ENTER] = VTERM_KEY_ENTER,
	[VT_KEY_TAB] = VTERM_KEY_TAB,
	[VT_KEY_BACKSPACE] = VTERM_KEY_BACKSPACE,
	[VT_KEY_ESCAPE] = VTERM_KEY_ESCAPE,
	[VT_KEY_UP] = VTERM_KEY_UP,
	[VT_KEY_DOWN] = VTERM_KEY_DOWN,
	[VT_KEY_LEFT] = VTERM_KEY_LEFT,
	[VT_KEY_RIGHT] = VTERM_KEY_RIGHT,
	[VT_KEY_INS] = VTERM_KEY_INS,
	[VT_KEY_DEL] = VTERM_KEY_DEL,
	[VT_KEY_HOME] = VTERM_KEY_HOME,
	[VT_KEY_END] = VTERM_KEY_END,
	[VT_KEY_PAGEUP] = VTERM_KEY_PAGEUP,
	[VT_KEY_PAGEDOWN] = VTERM_KEY_PAGEDOWN
};

/* libvterm allocations go through xcalloc: zeroed, and fatal on OOM. */
static void *
vt_lib_malloc(size_t size, void *data)
{
	(void)data;
	return xcalloc(1, size);
}

/* Free memory that vt_lib_malloc() returned. */
static void
vt_lib_free(void *p, void *data)
{
	(void)data;
	free(p);
}

static VTermAllocatorFunctions vt_allocator = {
	.malloc = vt_lib_malloc,
	.free = vt_lib_free
};

/* Return non-zero if a cell is a default blank (all zero bits). */
static inline int
cell_zero(const struct vt_cell *c)
{
	return (c->ch | c->attrs | c->comb | c->fg | c->bg) == 0;
}

/* Return the cell an erase with the current pen leaves. */
static inline struct vt_cell
pen_blank(const struct vt *vt)
{
	struct vt_cell	c;

	c.ch = VT_CELL_BLANK;
	c.attrs = vt->pen_attrs;
	c.comb = 0;
	c.fg = vt->pen_fg;
	c.bg = vt->pen_bg;
	return c;
}

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

/* Write cp as UTF-8 into p (room for 4 bytes); return the length. */
static int
utf8_put(char *p, uint32_t cp)
{
	if (cp < 0x80) {
		p[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		p[0] = (char)(0xc0 | (cp >> 6));
		p[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		p[0] = (char)(0xe0 | (cp >> 12));
		p[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		p[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	if (cp > 0x10ffff)
		return utf8_put(p, 0xfffd);
	p[0] = (char)(0xf0 | (cp >> 18));
	p[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	p[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	p[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Return the length of a UTF-8 sequence from its lead byte, 0 if invalid. */
static int
utf8_need(uint8_t b)
{
	if (b >= 0xc2 && b <= 0xdf)
		return 2;
	if (b >= 0xe0 && b <= 0xef)
		return 3;
	if (b >= 0xf0 && b <= 0xf4)
		return 4;
	return 0;
}

/* Return non-zero if b may follow lead as the second byte of a sequence. */
static int
utf8_second_ok(uint8_t lead, uint8_t b)
{
	switch (lead) {
	case 0xe0:
		return b >= 0xa0 && b <= 0xbf;
	case 0xed:
		return b >= 0x80 && b <= 0x9f;
	case 0xf0:
		return b >= 0x90 && b <= 0xbf;
	case 0xf4:
		return b >= 0x80 && b <= 0x8f;
	default:
		return b >= 0x80 && b <= 0xbf;
	}
}

/* Decode a complete, validated UTF-8 sequence. */
static uint32_t
utf8_decode(const uint8_t *s, int n)
{
	uint32_t	cp;
	int		i;

	cp = s[0] & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
	for (i = 1; i < n; i++)
		cp = (cp << 6) | (s[i] & 0x3f);
	return cp;
}

/* A growable byte string for building text lines. */
struct vt_sbuf {
	char	*p;
	size_t	 len;
	size_t	 cap;
};

/* Append n bytes to a string buffer. */
static void
sbuf_add(struct vt_sbuf *b, const char *s, size_t n)
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
line_fill(struct vt *vt, struct vt_line *l, int from, int to)
{
	struct vt_cell	b;
	int		i;

	if (from >= to)
		return;
	b = pen_blank(vt);
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
line_clear(struct vt *vt, struct vt_line *l)
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
screen_new(struct vt *vt, int rows, int cols)
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
screen_resize(struct vt *vt, struct vt_line **s, int orows, int ocols,
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

/* Mark rows [from, to) dirty. */
static void
mark_rows(struct vt *vt, int from, int to)
{
	if (from < 0)
		from = 0;
	if (to > vt->rows)
		to = vt->rows;
	if (from >= to)
		return;
	memset(vt->dirty + from, 1, (size_t)(to - from));
	vt->any_dirty = 1;
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
sb_push(struct vt *vt, struct vt_line *l, int width)
{
	struct vt_line	*ev = NULL, *out;
	int		 n, slot;

	if (vt->sb_max == 0)
		return l;
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

/* Remove and return the newest scrollback line, or NULL. */
static struct vt_line *
sb_pop(struct vt *vt)
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
sb_line(const struct vt *vt, int index)
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
comb_hash_add(struct vt *vt, uint16_t h)
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
comb_rehash(struct vt *vt, int size)
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
comb_collect(struct vt *vt)
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
comb_alloc(struct vt *vt)
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
static __attribute__((noinline)) uint16_t
comb_intern(struct vt *vt, const uint32_t *m, int n)
{
	struct vt_comb	*e;
	uint32_t	 i, mask;
	uint16_t	 h;

	if (n > COMB_MARKS)
		n = COMB_MARKS;
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

/* ------------------------------------------------------------------ */
/* VTermState callbacks. */

/* Store a glyph: the base character, its marks and continuation cells. */
static int
cb_putglyph(VTermGlyphInfo *info, VTermPos pos, void *user)
{
	struct vt	*vt = user;
	struct vt_line	*l;
	struct vt_cell	*c;
	int		 n, k, end;

	if (pos.row < 0 || pos.row >= vt->rows || pos.col < 0 ||
	    pos.col >= vt->cols || info->chars[0] == 0)
		return 1;
	vt->last[0] = info->chars[0];
	for (n = 1; n < GLYPH_CHARS && info->chars[n] != 0; n++)
		vt->last[n] = info->chars[n];
	vt->last_n = n;
	vt->last_width = info->width;
	vt->last_row = pos.row;
	vt->last_col = pos.col;

	l = vt->scr[pos.row];
	c = &l->c[pos.col];
	c->ch = info->chars[0];
	c->attrs = vt->pen_attrs |
	    (info->protected_cell ? VT_ATTR_PROTECTED : 0);
	c->comb = n > 1 ? comb_intern(vt, info->chars + 1, n - 1) : 0;
	c->fg = vt->pen_fg;
	c->bg = vt->pen_bg;
	end = pos.col + 1;
	for (k = 1; k < info->width && end < vt->cols; k++) {
		l->c[end].ch = VT_CELL_WIDE_RIGHT;
		l->c[end].comb = 0;
		end++;
	}
	if (end > l->hw)
		l->hw = end;
	vt->dirty[pos.row] = 1;
	vt->any_dirty = 1;
	return 1;
}

/* Note a cursor move: both rows need drawing again. */
static int
cb_movecursor(VTermPos pos, VTermPos oldpos, int visible, void *user)
{
	struct vt	*vt = user;

	if (oldpos.row >= 0 && oldpos.row < vt->rows)
		vt->dirty[oldpos.row] = 1;
	if (pos.row >= 0 && pos.row < vt->rows)
		vt->dirty[pos.row] = 1;
	vt->any_dirty = 1;
	vt->cursor_visible = visible;
	return 1;
}

/* Scroll whole rows by rotating pointers; leave the rest to moverect. */
static int
cb_scrollrect(VTermRect rect, int downward, int rightward, void *user)
{
	struct vt	 *vt = user;
	struct vt_line	**s = vt->scr;
	int		  top, bot, h, n, i, push;

	if (rightward != 0 || rect.start_col != 0 || rect.end_col != vt->cols)
		return 0;
	top = rect.start_row;
	bot = rect.end_row;
	if (top < 0 || bot > vt->rows || top >= bot || downward == 0)
		return 1;
	h = bot - top;
	n = downward > 0 ? downward : -downward;
	if (n >= h) {
		cb_erase(rect, 0, vt);
		return 1;
	}
	if (downward > 0) {
		push = vt->scr == vt->pri && top == 0;
		memcpy(vt->tmp, s + top, (size_t)n * sizeof *s);
		memmove(s + top, s + top + n, (size_t)(h - n) * sizeof *s);
		for (i = 0; i < n; i++) {
			if (push)
				vt->tmp[i] = sb_push(vt, vt->tmp[i], vt->cols);
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
	return 1;
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

/* Copy the cells of src to dest, away from the overlap. */
static int
cb_moverect(VTermRect dest, VTermRect src, void *user)
{
	struct vt	*vt = user;
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
	struct vt	*vt = user;
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
	b = pen_blank(vt);
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
	struct vt	*vt = user;

	vt->pen_attrs = 0;
	vt->pen_fg = VT_COLOR_DEFAULT;
	vt->pen_bg = VT_COLOR_DEFAULT;
	return 1;
}

/* Set or clear one attribute bit of the pen. */
static void
pen_flag(struct vt *vt, uint16_t bit, int on)
{
	if (on)
		vt->pen_attrs |= bit;
	else
		vt->pen_attrs &= ~bit;
}

/* Change one pen attribute (SGR). */
static int
cb_setpenattr(VTermAttr attr, VTermValue *val, void *user)
{
	struct vt	*vt = user;

	switch (attr) {
	case VTERM_ATTR_BOLD:
		pen_flag(vt, VT_ATTR_BOLD, val->boolean);
		break;
	case VTERM_ATTR_UNDERLINE:
		vt->pen_attrs = (vt->pen_attrs & ~VT_ATTR_UNDERLINE) |
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
		vt->pen_attrs = (vt->pen_attrs & ~VT_ATTR_FONT) |
		    ((val->number << VT_ATTR_FONT_SHIFT) & VT_ATTR_FONT);
		break;
	case VTERM_ATTR_FOREGROUND:
		vt->pen_fg = color_word(&val->color);
		break;
	case VTERM_ATTR_BACKGROUND:
		vt->pen_bg = color_word(&val->color);
		break;
	default:
		break;
	}
	return 1;
}

/* Copy a title, replacing malformed UTF-8 and dropping controls. */
static char *
title_clean(const char *s)
{
	struct vt_sbuf	 b = { NULL, 0, 0 };
	const uint8_t	*p = (const uint8_t *)s;
	char		 u[4];
	uint32_t	 cp;
	int		 n, i;

	sbuf_add(&b, "", 0);
	while (*p != '\0') {
		if (*p < 0x80) {
			if (*p >= 0x20 && *p != 0x7f)
				sbuf_add(&b, (const char *)p, 1);
			p++;
			continue;
		}
		n = utf8_need(*p);
		for (i = 1; i < n; i++)
			if (i == 1 ? !utf8_second_ok(p[0], p[1]) :
			    (p[i] & 0xc0) != 0x80)
				break;
		if (n == 0 || i < n) {
			sbuf_add(&b, u, (size_t)utf8_put(u, 0xfffd));
			p += n == 0 ? 1 : i;
			continue;
		}
		cp = utf8_decode(p, n);
		if (cp >= 0x80 && cp <= 0x9f)
			sbuf_add(&b, u, (size_t)utf8_put(u, 0xfffd));
		else
			sbuf_add(&b, (const char *)p, (size_t)n);
		p += n;
	}
	return b.p;
}

/* Record a terminal property; return 1 so the state keeps it. */
static int
cb_settermprop(VTermProp prop, VTermValue *val, void *user)
{
	struct vt	*vt = user;

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
		vt_mark_all_dirty(vt);
		break;
	case VTERM_PROP_TITLE:
		free(vt->title);
		vt->title = title_clean(val->string != NULL ?
		    val->string : "");
		if (vt->cbs.title != NULL)
			vt->cbs.title(vt->title, vt->arg);
		break;
	case VTERM_PROP_REVERSE:
		vt->reverse = val->boolean;
		vt_mark_all_dirty(vt);
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
	struct vt	*vt = user;

	if (vt->cbs.bell != NULL)
		vt->cbs.bell(vt->arg);
	return 1;
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
pull_line(struct vt *vt, struct vt_line *sl)
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

/*
 * Resize the grid inside vterm_set_size(), as VTermScreen does: a shrink
 * pushes top rows only as far as needed to keep the cursor and the text
 * below it, a grow pulls lines back; delta tells the state how far the
 * cursor moved, never above row 0 (0.1.4 let it go negative).
 */
static int
cb_resize(int rows, int cols, VTermPos *delta, void *user)
{
	struct vt	*vt = user;
	struct vt_line	*sl;
	VTermPos	 cur;
	VTermRect	 rect;
	int		 orows = vt->rows, ocols = vt->cols, r, n;

	vterm_state_get_cursorpos(vt->state, &cur);
	if (vt->scr == vt->pri && rows < orows) {
		for (r = orows - 1; r >= rows; r--)
			if (!line_blank(vt->pri[r], ocols) || cur.row == r)
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
	vt->dirty = xcalloc((size_t)rows, 1);
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
	if (cur.row + delta->row < 0) {
		delta->row = -cur.row;
		vt->fix_phantom = 1;
	}
	vt_mark_all_dirty(vt);
	return 1;
}

/* Follow DECDWL/DECDHL: a double-width row loses its right half. */
static int
cb_setlineinfo(int row, const VTermLineInfo *newinfo,
    const VTermLineInfo *oldinfo, void *user)
{
	struct vt	*vt = user;
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

/* Send the state's output to the child, or keep it for a query of ours. */
static void
cb_output(const char *s, size_t len, void *user)
{
	struct vt	*vt = user;
	size_t		 n;

	if (vt->capture) {
		n = sizeof vt->cap - 1 - vt->cap_len;
		if (len < n)
			n = len;
		memcpy(vt->cap + vt->cap_len, s, n);
		vt->cap_len += n;
		vt->cap[vt->cap_len] = '\0';
		return;
	}
	if (vt->cbs.output != NULL)
		vt->cbs.output(s, len, vt->arg);
}

/* ------------------------------------------------------------------ */
/* Feeding the state. */

/* Write bytes straight to the state, then bring the cursor on screen. */
static void
state_write(struct vt *vt, const char *s, size_t len)
{
	VTermPos	pos;

	vterm_input_write(vt->vterm, s, len);
	vterm_state_get_cursorpos(vt->state, &pos);
	if (pos.row < 0 || pos.row >= vt->rows || pos.col < 0 ||
	    pos.col >= vt->cols) {
		/* DEC private mode set with no mode: only the clamp runs. */
		vterm_input_write(vt->vterm, "\033[?h", 4);
	}
}

/* Write a formatted control sequence straight to the state. */
static void
state_printf(struct vt *vt, const char *fmt, ...)
{
	va_list	ap;
	char	buf[64];
	int	n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n < sizeof buf)
		state_write(vt, buf, (size_t)n);
}

/* Hand the filtered bytes collected so far to the state. */
static void
out_flush(struct vt *vt)
{
	size_t	n = vt->olen;

	if (n == 0)
		return;
	vt->olen = 0;
	state_write(vt, vt->obuf, n);
}

/* Queue filtered bytes; a run never straddles two writes. */
static void
out_add(struct vt *vt, const void *s, size_t n)
{
	if (vt->olen + n > CHUNK_MAX)
		out_flush(vt);
	memcpy(vt->obuf + vt->olen, s, n);
	vt->olen += n;
}

/* Queue a code point as UTF-8. */
static void
out_cp(struct vt *vt, uint32_t cp)
{
	char	u[4];

	out_add(vt, u, (size_t)utf8_put(u, cp));
}

/* Expand REP into count copies of the last glyph, at most a screenful. */
static void
rep_expand(struct vt *vt, long count)
{
	char	g[GLYPH_CHARS * 4];
	size_t	gl = 0;
	long	max;
	int	i;

	out_flush(vt);
	if (vt->last_n == 0 || vt->last_width < 1)
		return;
	for (i = 0; i < vt->last_n; i++)
		gl += (size_t)utf8_put(g + gl, vt->last[i]);
	max = (long)vt->rows * vt->cols;
	if (count > max)
		count = max;
	while (count-- > 0)
		out_add(vt, g, gl);
}

/*
 * Walk SGR parameters as 0.1.4's vterm_state_setpen() does; a 38 or 48
 * with nothing after it makes the state read its palette from a stale
 * parameter, so give it an empty one, which the state ignores.
 */
static void
sgr_fix(struct vt_csi *c)
{
	long	pal;
	int	i = 0, rest, used, more;

	while (i < c->argc) {
		if (c->arg[i] == 38 || c->arg[i] == 48) {
			if (i + 1 >= c->argc) {
				if (c->argc < CSI_ARGS)
					c->more[c->argc++ - 1] = 0;
				c->arg[c->argc - 1] = -1;
				return;
			}
			pal = c->arg[i + 1];
			rest = c->argc - i - 2;
			if (pal == 2)
				used = rest < 3 ? rest : 3;
			else if (pal == 5)
				used = rest > 0 ? 1 : 0;
			else
				used = 0;
			i += 1 + used;
		}
		do {
			more = i < c->argc && c->more[i];
			i++;
		} while (more);
	}
}

/* Queue a parsed CSI sequence, or act on it. */
static void
csi_dispatch(struct vt *vt, char final)
{
	struct vt_csi	*c = &vt->csi;
	char		 buf[16 + CSI_ARGS * 9 + 2 * CSI_EXTRA];
	int		 i, n;

	if (c->bad)
		return;
	if (final == 'b' && c->nlead == 0 && c->ninter == 0) {
		rep_expand(vt, c->arg[0] <= 0 ? 1 : c->arg[0]);
		return;
	}
	if (final == 'm' && c->nlead == 0 && c->ninter == 0)
		sgr_fix(c);
	n = 0;
	buf[n++] = '\033';
	buf[n++] = '[';
	memcpy(buf + n, c->lead, (size_t)c->nlead);
	n += c->nlead;
	for (i = 0; i < c->argc; i++) {
		if (c->arg[i] >= 0)
			n += snprintf(buf + n, sizeof buf - (size_t)n, "%ld",
			    c->arg[i]);
		if (i < c->argc - 1)
			buf[n++] = c->more[i] ? ':' : ';';
	}
	memcpy(buf + n, c->inter, (size_t)c->ninter);
	n += c->ninter;
	buf[n++] = final;
	out_add(vt, buf, (size_t)n);
	/* Restoring the cursor can put it off screen after a shrink. */
	if (final == 'l' && c->nlead == 1 && c->lead[0] == '?' &&
	    (c->arg[0] == 1048 || c->arg[0] == 1049))
		out_flush(vt);
}

/* Feed one byte of a CSI sequence to the parser's mirror. */
static void
csi_byte(struct vt *vt, uint8_t b)
{
	struct vt_csi	*c = &vt->csi;

	if (c->phase == 0) {
		if (b >= 0x3c && b <= 0x3f) {
			if (c->nlead < CSI_EXTRA)
				c->lead[c->nlead++] = (char)b;
			else
				c->bad = 1;
			return;
		}
		c->phase = 1;
	}
	if (c->phase == 1) {
		if (b >= '0' && b <= '9') {
			if (c->arg[c->argc] < 0)
				c->arg[c->argc] = 0;
			c->arg[c->argc] = c->arg[c->argc] * 10 + (b - '0');
			if (c->arg[c->argc] > CSI_ARG_SAT)
				c->arg[c->argc] = CSI_ARG_SAT;
			return;
		}
		if (b == ':' || b == ';') {
			if (c->argc + 1 >= CSI_ARGS) {
				c->bad = 1;
				return;
			}
			c->more[c->argc] = b == ':';
			c->argc++;
			c->arg[c->argc] = -1;
			c->more[c->argc] = 0;
			return;
		}
		c->argc++;
		c->phase = 2;
	}
	if (b >= 0x20 && b <= 0x2f) {
		if (c->ninter < CSI_EXTRA)
			c->inter[c->ninter++] = (char)b;
		else
			c->bad = 1;
		return;
	}
	if (b >= 0x40 && b <= 0x7e)
		csi_dispatch(vt, (char)b);
	vt->fs = F_GROUND;
}

/*
 * Return non-zero for a DECRQSS (DCS $ q) of a setting 0.1.4 does not
 * report: its answer for those is built with a bad format string
 * (undefined behaviour), so the filter answers "invalid" itself.
 */
static int
str_decrqss_unknown(const struct vt *vt)
{
	static const char *const known[] = { "m", "r", "s", "\"q", " q" };
	size_t			 i, n;

	if (vt->str_kind != 'P' || vt->str_len < 2 ||
	    memcmp(vt->str, "$q", 2) != 0)
		return 0;
	n = vt->str_len - 2;
	for (i = 0; i < sizeof known / sizeof known[0]; i++) {
		if (n == strlen(known[i]) && memcmp(vt->str + 2, known[i], n) == 0)
			return 0;
	}
	return 1;
}

/* Queue a complete OSC or DCS string in one piece. */
static void
str_finish(struct vt *vt)
{
	char	head[2] = { '\033', vt->str_kind };

	if (str_decrqss_unknown(vt)) {
		/* Replies keep their order: what is queued goes first. */
		out_flush(vt);
		cb_output("\033P0$r\033\\", 7, vt);
		vt->fs = F_GROUND;
		return;
	}
	if (vt->olen + vt->str_len + 4 > CHUNK_MAX)
		out_flush(vt);
	out_add(vt, head, 2);
	out_add(vt, vt->str, vt->str_len);
	out_add(vt, "\033\\", 2);
	vt->fs = F_GROUND;
}

/* Handle the byte after ESC. */
static void
esc_byte(struct vt *vt, uint8_t b)
{
	char	buf[CSI_EXTRA + 2];

	if (b == '[') {
		memset(&vt->csi, 0, sizeof vt->csi);
		vt->csi.arg[0] = -1;
		vt->fs = F_CSI;
	} else if (b == ']' || b == 'P') {
		vt->str_kind = (char)b;
		vt->str_len = 0;
		vt->fs = F_STR;
	} else if (b >= 0x20 && b <= 0x2f) {
		if (vt->nesc < CSI_EXTRA)
			vt->esc[vt->nesc++] = (char)b;
	} else if (vt->nesc == 0 && (b == 'X' || b == '^' || b == '_')) {
		vt->fs = F_IGN;
	} else if (b >= 0x30 && b <= 0x7e) {
		buf[0] = '\033';
		memcpy(buf + 1, vt->esc, (size_t)vt->nesc);
		buf[1 + vt->nesc] = (char)b;
		out_add(vt, buf, (size_t)vt->nesc + 2);
		vt->fs = F_GROUND;
		/* DECRC can put the cursor off screen after a shrink. */
		if (vt->nesc == 0 && b == '8')
			out_flush(vt);
	}
	/* Other bytes are ignored and the escape goes on, as in libvterm. */
}

/* Give up on an incomplete UTF-8 sequence. */
static void
utf8_abort(struct vt *vt)
{
	if (vt->u8len > 0)
		out_cp(vt, 0xfffd);
	vt->u8len = 0;
	vt->u8need = 0;
}

/* Handle a byte outside any escape sequence. */
static void
ground_byte(struct vt *vt, uint8_t b)
{
	uint32_t	cp;

	if (vt->u8len > 0) {
		if (vt->u8len == 1 ? utf8_second_ok(vt->u8[0], b) :
		    (b & 0xc0) == 0x80) {
			vt->u8[vt->u8len++] = b;
			if (vt->u8len < vt->u8need)
				return;
			cp = utf8_decode(vt->u8, vt->u8len);
			if (cp >= 0x80 && cp <= 0x9f)
				out_cp(vt, 0xfffd);
			else
				out_add(vt, vt->u8, (size_t)vt->u8len);
			vt->u8len = 0;
			vt->u8need = 0;
			return;
		}
		utf8_abort(vt);
	}
	if (b >= 0x80) {
		if ((vt->u8need = utf8_need(b)) == 0) {
			out_cp(vt, 0xfffd);
			return;
		}
		vt->u8[0] = b;
		vt->u8len = 1;
		return;
	}
	if (b == 0x1b) {
		vt->nesc = 0;
		vt->fs = F_ESC;
		return;
	}
	/*
	 * The state picks a decoder per text run: one that starts with UTF-8
	 * decodes its ASCII as UTF-8 too, ignoring G0 (DEC graphics).  NUL is
	 * skipped by the parser and ends the run, so ASCII is always decoded
	 * through G0 whatever the write boundaries.
	 */
	if (b >= 0x20 && b < 0x7f && vt->olen > 0 &&
	    (uint8_t)vt->obuf[vt->olen - 1] >= 0x80)
		out_add(vt, "", 1);
	out_add(vt, &b, 1);
}

/* Run one byte through the filter. */
static void
filter_byte(struct vt *vt, uint8_t b)
{
	if (vt->fs == F_GROUND) {
		ground_byte(vt, b);
		return;
	}
	/* Bytes every state of libvterm's parser treats alike. */
	if (b == 0x00 || b == 0x7f)
		return;
	if (b == 0x18 || b == 0x1a) {
		vt->fs = F_GROUND;
		return;
	}
	if (b == 0x1b) {
		if (vt->fs == F_STR)
			vt->fs = F_STR_ESC;
		else if (vt->fs == F_IGN)
			vt->fs = F_IGN_ESC;
		else {
			vt->nesc = 0;
			vt->fs = F_ESC;
		}
		return;
	}
	if (b == 0x07 && vt->fs == F_STR) {
		str_finish(vt);
		return;
	}
	if (b == 0x07 && vt->fs == F_IGN) {
		vt->fs = F_GROUND;
		return;
	}
	if (b < 0x20) {
		if (vt->fs != F_IGN && vt->fs != F_IGN_ESC)
			out_add(vt, &b, 1);
		return;
	}
	switch (vt->fs) {
	case F_ESC:
		esc_byte(vt, b);
		break;
	case F_CSI:
		csi_byte(vt, b);
		break;
	case F_STR:
		if (vt->str_len < STR_MAX)
			vt->str[vt->str_len++] = (char)b;
		break;
	case F_STR_ESC:
	case F_IGN_ESC:
		if (b == '\\') {
			if (vt->fs == F_STR_ESC)
				str_finish(vt);
			vt->fs = F_GROUND;
			break;
		}
		vt->nesc = 0;
		vt->fs = F_ESC;
		esc_byte(vt, b);
		break;
	case F_IGN:
	case F_GROUND:
		break;
	}
}

/* ------------------------------------------------------------------ */
/* Public interface. */

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
	vt->rows = clamp_dim(rows, VT_MIN_ROWS);
	vt->cols = clamp_dim(cols, VT_MIN_COLS);
	if (scrollback_lines < 0)
		scrollback_lines = 0;
	if (scrollback_lines > SB_LINES_MAX)
		scrollback_lines = SB_LINES_MAX;
	vt->sb_max = scrollback_lines;
	if (vt->sb_max > 0)
		vt->sb = xcalloc((size_t)vt->sb_max, sizeof *vt->sb);
	vt->pri = screen_new(vt, vt->rows, vt->cols);
	vt->scr = vt->pri;
	vt->tmp = xcalloc((size_t)vt->rows, sizeof *vt->tmp);
	vt->dirty = xcalloc((size_t)vt->rows, 1);
	vt->obuf = xmalloc(CHUNK_MAX);
	vt->str = xmalloc(STR_MAX);
	vt->title = xstrdup("");
	vt->last_row = -1;
	vt->cursor_visible = 1;

	vt->vterm = vterm_new_with_allocator(vt->rows, vt->cols,
	    &vt_allocator, NULL);
	vterm_set_utf8(vt->vterm, 1);
	vt->state = vterm_obtain_state(vt->vterm);
	vterm_state_set_callbacks(vt->state, &vt_state_cbs, vt);
	vterm_output_set_callback(vt->vterm, cb_output, vt);
	vterm_state_reset(vt->state, 1);
	vt_mark_all_dirty(vt);
	return vt;
}

/* Free a terminal and everything it owns. */
void
vt_free(struct vt *vt)
{
	int	i;

	if (vt == NULL)
		return;
	vterm_free(vt->vterm);
	if (vt->probe != NULL)
		vterm_free(vt->probe);
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
	free(vt->title);
	free(vt->obuf);
	free(vt->str);
	free(vt);
}

/* ------------------------------------------------------------------ */
/* Marks after a glyph in the last column. */

/*
 * Return non-zero if libvterm 0.1.4 treats cp as a combining mark.  Its
 * table is private, so a one-row scratch terminal is asked: cp joins the
 * "A" written before it or takes a cell of its own.
 */
static int
mark_is_combining(struct vt *vt, uint32_t cp)
{
	VTermScreenCell	 cell;
	VTermPos	 pos = { 0, 0 };
	char		 buf[8];
	int		 n;

	if (vt->probe == NULL) {
		vt->probe = vterm_new(1, 4);
		vterm_set_utf8(vt->probe, 1);
		vt->probe_screen = vterm_obtain_screen(vt->probe);
	}
	vterm_screen_reset(vt->probe_screen, 1);
	buf[0] = 'A';
	n = utf8_put(buf + 1, cp);
	vterm_input_write(vt->probe, buf, (size_t)n + 1);
	if (!vterm_screen_get_cell(vt->probe_screen, pos, &cell))
		return 0;
	return cell.chars[0] == 'A' && cell.chars[1] == cp;
}

/*
 * Join the combining marks at the start of a feed to the glyph the last
 * feed put in the last column, and return how many bytes they took.
 * 0.1.4 joins them when they come in the same write, but once the cursor
 * waits at the margin it prints a mark that starts a later write on the
 * next line; whole or split, the screen must come out the same.
 */
static size_t
mark_join(struct vt *vt, const uint8_t *p, size_t len)
{
	VTermPos	 cur;
	struct vt_cell	*c;
	uint32_t	 marks[COMB_MARKS], cp;
	size_t		 used = 0;
	int		 n = 0, need, k, added = 0;

	if (!vt->tail_glyph || vt->fs != F_GROUND || vt->u8len != 0 ||
	    vt->last_row < 0 || vt->last_row >= vt->rows ||
	    vt->last_col + vt->last_width != vt->cols)
		return 0;
	vterm_state_get_cursorpos(vt->state, &cur);
	if (cur.row != vt->last_row || cur.col != vt->cols - 1)
		return 0;
	c = &vt->scr[vt->last_row]->c[vt->last_col];
	if (c->ch == VT_CELL_BLANK || c->ch == VT_CELL_WIDE_RIGHT)
		return 0;
	if (c->comb != 0) {
		n = vt->comb[c->comb - 1].n;
		memcpy(marks, vt->comb[c->comb - 1].m, (size_t)n * sizeof *marks);
	}
	while (used < len && p[used] >= 0x80) {
		need = utf8_need(p[used]);
		if (need == 0 || used + (size_t)need > len ||
		    !utf8_second_ok(p[used], p[used + 1]))
			break;
		for (k = 2; k < need && (p[used + k] & 0xc0) == 0x80; k++)
			;
		if (k < need)
			break;
		cp = utf8_decode(p + used, need);
		if (!mark_is_combining(vt, cp))
			break;
		if (n < COMB_MARKS)
			marks[n++] = cp;
		used += (size_t)need;
		added++;
	}
	if (added == 0)
		return 0;
	c->comb = comb_intern(vt, marks, n);
	vt->last_n = 1 + n;
	memcpy(vt->last + 1, marks, (size_t)n * sizeof *marks);
	vt->dirty[vt->last_row] = 1;
	vt->any_dirty = 1;
	return used;
}

/* Feed the child's output through the filter into the state. */
void
vt_feed(struct vt *vt, const char *buf, size_t len)
{
	const uint8_t	*p = (const uint8_t *)buf;
	size_t		 i, j, n;
	int		 ground = 0;

	i = mark_join(vt, p, len);
	if (i == len)
		return;
	while (i < len) {
		if (vt->fs != F_GROUND || vt->u8len != 0 || p[i] >= 0x80 ||
		    p[i] == 0x1b) {
			ground = vt->fs == F_GROUND;
			filter_byte(vt, p[i++]);
			continue;
		}
		ground = 1;
		/* A run of ASCII and C0 other than ESC passes unchanged. */
		for (j = i + 1; j < len && p[j] < 0x80 && p[j] != 0x1b; j++)
			;
		if (p[i] >= 0x20 && p[i] < 0x7f && vt->olen > 0 &&
		    (uint8_t)vt->obuf[vt->olen - 1] >= 0x80)
			out_add(vt, "", 1);	/* see ground_byte() */
		while (i < j) {
			if (vt->olen == CHUNK_MAX)
				out_flush(vt);
			n = j - i;
			if (n > CHUNK_MAX - vt->olen)
				n = CHUNK_MAX - vt->olen;
			memcpy(vt->obuf + vt->olen, p + i, n);
			vt->olen += n;
			i += n;
		}
	}
	/* Text last (not an escape sequence's final byte): see mark_join(). */
	vt->tail_glyph = ground && p[len - 1] >= 0x20 && p[len - 1] != 0x7f &&
	    vt->fs == F_GROUND && vt->u8len == 0;
	out_flush(vt);
}

/* Ask the state for a region with DECRQSS; return 0 if it is stale. */
static int
region_ok(struct vt *vt, const char *query, char final)
{
	int	a, b;
	char	f;

	vt->capture = 1;
	vt->cap_len = 0;
	vt->cap[0] = '\0';
	vterm_input_write(vt->vterm, query, strlen(query));
	vt->capture = 0;
	if (sscanf(vt->cap, "\033P1$r%d;%d%c", &a, &b, &f) != 3 || f != final)
		return 1;
	return a <= b;
}

/* Reset a scroll region that a shrink left inverted (0.1.4 bug). */
static void
region_fix(struct vt *vt, const char *query, char final, const char *reset)
{
	VTermPos	before, after;

	if (region_ok(vt, query, final))
		return;
	vterm_state_get_cursorpos(vt->state, &before);
	state_write(vt, reset, strlen(reset));
	vterm_state_get_cursorpos(vt->state, &after);
	if (after.row != before.row || after.col != before.col)
		state_printf(vt, "\033[%d;%dH", before.row + 1,
		    before.col + 1);
}

/* Change the size, keeping as much content as VTermScreen would. */
void
vt_resize(struct vt *vt, int rows, int cols)
{
	VTermPos	pos;
	int		shrink;

	rows = clamp_dim(rows, VT_MIN_ROWS);
	cols = clamp_dim(cols, VT_MIN_COLS);
	if (rows == vt->rows && cols == vt->cols)
		return;
	out_flush(vt);
	shrink = rows < vt->rows || cols < vt->cols;
	vt->fix_phantom = 0;
	vterm_set_size(vt->vterm, rows, cols);
	if (vt->fix_phantom) {
		/* VTermScreen's cursor moved and lost its pending wrap. */
		vterm_state_get_cursorpos(vt->state, &pos);
		state_printf(vt, "\033[%dG", pos.col + 1);
	}
	if (shrink) {
		region_fix(vt, "\033P$qr\033\\", 'r', "\033[r");
		region_fix(vt, "\033P$qs\033\\", 's', "\033[s");
	}
	state_write(vt, "", 0);
	vt_mark_all_dirty(vt);
}

/* Return the number of rows. */
int
vt_rows(const struct vt *vt)
{
	return vt->rows;
}

/* Return the number of columns. */
int
vt_cols(const struct vt *vt)
{
	return vt->cols;
}

/* Return the cells of a screen row, or NULL if out of range. */
const struct vt_cell *
vt_screen_row(const struct vt *vt, int row)
{
	if (row < 0 || row >= vt->rows)
		return NULL;
	return vt->scr[row]->c;
}

/* Return the number of scrollback lines. */
int
vt_scrollback_count(const struct vt *vt)
{
	return vt->sb_count;
}

/* Return scrollback line index (0 is the oldest) and its cell count. */
const struct vt_cell *
vt_scrollback_line(const struct vt *vt, int index, int *ncells)
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
vt_cell_text(const struct vt *vt, const struct vt_cell *cell, uint32_t *out,
    size_t max)
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

/* Return the cursor position through row and col, and its visibility. */
int
vt_cursor(const struct vt *vt, int *row, int *col)
{
	VTermPos	pos;

	vterm_state_get_cursorpos(vt->state, &pos);
	if (pos.row < 0)
		pos.row = 0;
	if (pos.row >= vt->rows)
		pos.row = vt->rows - 1;
	if (pos.col < 0)
		pos.col = 0;
	if (pos.col >= vt->cols)
		pos.col = vt->cols - 1;
	if (row != NULL)
		*row = pos.row;
	if (col != NULL)
		*col = pos.col;
	return vt->cursor_visible;
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
	return vt->altscreen;
}

/* Return non-zero while DECSCNM reverses the whole display. */
int
vt_reverse_video(const struct vt *vt)
{
	return vt->reverse;
}

/* Return the mouse mode the child asked for (0: none). */
int
vt_mouse_mode(const struct vt *vt)
{
	return vt->mouse;
}

/* Return non-zero if a row changed since vt_clear_dirty(). */
int
vt_row_dirty(const struct vt *vt, int row)
{
	if (row < 0 || row >= vt->rows)
		return 0;
	return vt->dirty[row];
}

/* Return non-zero if any row changed since vt_clear_dirty(). */
int
vt_any_dirty(const struct vt *vt)
{
	return vt->any_dirty;
}

/* Forget all changes. */
void
vt_clear_dirty(struct vt *vt)
{
	memset(vt->dirty, 0, (size_t)vt->rows);
	vt->any_dirty = 0;
}

/* Mark every row changed. */
void
vt_mark_all_dirty(struct vt *vt)
{
	memset(vt->dirty, 1, (size_t)vt->rows);
	vt->any_dirty = 1;
}

/* Append the UTF-8 text of n cells to b, trailing spaces trimmed. */
static void
cells_text(const struct vt *vt, const struct vt_cell *c, int n,
    struct vt_sbuf *b)
{
	uint32_t	cp[GLYPH_CHARS];
	char		u[4];
	size_t		k, j, keep;
	int		i;

	sbuf_add(b, "", 0);
	keep = b->len;
	for (i = 0; i < n; i++) {
		if (c[i].ch == VT_CELL_WIDE_RIGHT)
			continue;
		if (c[i].ch == VT_CELL_BLANK) {
			sbuf_add(b, " ", 1);
			continue;
		}
		k = vt_cell_text(vt, &c[i], cp, GLYPH_CHARS);
		for (j = 0; j < k; j++)
			sbuf_add(b, u, (size_t)utf8_put(u, cp[j]));
		if (c[i].ch != ' ')
			keep = b->len;
	}
	b->len = keep;
	b->p[b->len] = '\0';
}

/* Return the number of text lines: scrollback, then the screen. */
int
vt_text_count(const struct vt *vt)
{
	return vt->sb_count + vt->rows;
}

/* Return text line `line' as a new UTF-8 string, or NULL. */
char *
vt_text_line(const struct vt *vt, int line)
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
last_try(const struct vt *vt, const struct vt_cell *c, int n, char *buf,
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
	if (k > size - 1) {
		k = size - 1;
		while (k > 0 && ((uint8_t)s[k] & 0xc0) == 0x80)
			k--;
	}
	memcpy(buf, s, k);
	buf[k] = '\0';
	*len = k;
	free(b.p);
	return 1;
}

/* Copy the last non-blank line at or above the cursor into buf. */
size_t
vt_last_line(const struct vt *vt, char *buf, size_t size)
{
	const struct vt_line	*l;
	size_t			 len = 0;
	int			 row, i;

	if (size == 0)
		return 0;
	buf[0] = '\0';
	vt_cursor(vt, &row, NULL);
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

/* Send a key in the child's current modes. */
void
vt_send_key(struct vt *vt, enum vt_key key, unsigned int mods)
{
	VTermModifier	m = (VTermModifier)(mods & VTERM_ALL_MODS_MASK);
	int		n;

	if (key >= VT_KEY_F0) {
		n = (int)key - VT_KEY_F0;
		if (n >= 1 && n <= 12)
			vterm_keyboard_key(vt->vterm, VTERM_KEY_FUNCTION(n), m);
		return;
	}
	if ((int)key <= VT_KEY_NONE || (size_t)key >=
	    sizeof vt_keymap / sizeof vt_keymap[0])
		return;
	vterm_keyboard_key(vt->vterm, vt_keymap[key], m);
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
	if (mods & VT_MOD_ALT)
		vterm_keyboard_unichar(vt->vterm, 0x1b, 0);
	vterm_keyboard_unichar(vt->vterm, ch, 0);
}

/* Send pasted text, bracketed if the child asked, without controls. */
void
vt_send_paste(struct vt *vt, const char *buf, size_t len)
{
	const uint8_t	*p = (const uint8_t *)buf;
	char		 out[1024];
	size_t		 i = 0, n = 0;
	uint32_t	 cp;
	int		 need, k;

	vterm_keyboard_start_paste(vt->vterm);
	while (i < len) {
		if (n + 4 > sizeof out) {
			cb_output(out, n, vt);
			n = 0;
		}
		if (p[i] < 0x80) {
			if (p[i] >= 0x20 ? p[i] != 0x7f :
			    p[i] == '\t' || p[i] == '\r' || p[i] == '\n')
				out[n++] = (char)p[i];
			i++;
			continue;
		}
		need = utf8_need(p[i]);
		for (k = 1; k < need && i + (size_t)k < len; k++)
			if (k == 1 ? !utf8_second_ok(p[i], p[i + 1]) :
			    (p[i + k] & 0xc0) != 0x80)
				break;
		if (need == 0 || k < need) {
			n += (size_t)utf8_put(out + n, 0xfffd);
			i += need == 0 ? 1 : (size_t)k;
			continue;
		}
		cp = utf8_decode(p + i, need);
		if (cp > 0x9f) {
			memcpy(out + n, p + i, (size_t)need);
			n += (size_t)need;
		}
		i += (size_t)need;
	}
	if (n > 0)
		cb_output(out, n, vt);
	vterm_keyboard_end_paste(vt->vterm);
}
