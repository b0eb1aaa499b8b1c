/*
 * ui-colour.c: colours.  A vt colour word becomes a curses colour the
 * outer terminal has.  On a direct-colour terminal (COLORS is 2^24:
 * terminfo with RGB, such as xterm-direct, or the direct variant of a
 * 256-colour TERM that ui_colour_term() picks when COLORTERM says
 * truecolor) indices below the terminal's palette size stay indices and
 * everything else is sent as 0xRRGGBB.  Otherwise 256-colour indices and
 * RGB map onto xterm's cube and grey ramp, or onto the 16 or 8 basic
 * colours.  Pairs of them are made and renewed here (see ui_pair()), as
 * are the front end's own semantic colours.
 */
#include <curses.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debuglog.h"
#include "ui-private.h"
#include "vt.h"
#include "xmalloc.h"

/* Last: <term.h> defines macros named after capabilities (bell, lines). */
#include <term.h>

#define UI_DIRECT_COLORS	0x1000000	/* COLORS of a direct terminal */
#define UI_PAIRS_MAX		(1 << 20)	/* pairs used at most */

/* The xterm palette's first 16 colours, as RGB. */
static const uint8_t ui_basic_rgb[16][3] = {
	{ 0, 0, 0 }, { 205, 0, 0 }, { 0, 205, 0 }, { 205, 205, 0 },
	{ 0, 0, 238 }, { 205, 0, 205 }, { 0, 205, 205 }, { 229, 229, 229 },
	{ 127, 127, 127 }, { 255, 0, 0 }, { 0, 255, 0 }, { 255, 255, 0 },
	{ 92, 92, 255 }, { 255, 0, 255 }, { 0, 255, 255 }, { 255, 255, 255 },
};

static const int ui_cube_levels[6] = { 0, 95, 135, 175, 215, 255 };

/*
 * Direct variants of 256-colour terminals, best first: the same entry's
 * keys (infocmp shows xterm-direct256 and tmux-direct differ from
 * xterm-256color and tmux-256color only in colours), with RGB colour.
 * A TERM is matched by its name up to "-256color".
 */
static const struct {
	const char	*base;
	const char	*direct;
} ui_direct_terms[] = {
	{ "xterm", "xterm-direct256" },
	{ "xterm", "xterm-direct" },
	{ "tmux", "tmux-direct" },
};

/* A pair made: its colours and number (0: an empty slot). */
struct ui_pair_slot {
	int	fg;
	int	bg;
	int	pair;
};

/*
 * The colour state of one curses screen (curses' colours and pairs are
 * per screen, so this is too; ui_colour_use() makes one current, as
 * set_term() does the screen): how many palette indices a direct
 * terminal keeps (0: not direct), and the pairs made, in an open hash
 * table of twice as many slots as the terminal has pairs.  The pairs are
 * numbered here and made with init_extended_pair(): ncurses 6.4's
 * reset_color_pairs() leaves alloc_pair()'s count of used pairs full, so
 * alloc_pair() would recycle pairs still on screen after a renewal.
 */
struct ui_colours {
	int			 direct_palette;
	struct ui_pair_slot	*slots;
	int			 size;		/* a power of two */
	int			 limit;		/* pairs 1 .. limit - 1 */
	int			 made;		/* pairs made since renewed */
	int			 overflow;	/* one was wanted, none left */
	int			 fresh;		/* renewed, frame not redrawn */
	int			 last_fg;	/* the last pair asked for */
	int			 last_bg;
	int			 last_pair;
};

/* The current screen's; an empty one before any screen has colours. */
static struct ui_colours	 ui_no_colours = { 0, NULL, 0, 0, 0, 0, 0, -2,
				    -2, 0 };
static struct ui_colours	*ui_cur = &ui_no_colours;
#define ui_pairs		(*ui_cur)
#define ui_direct_palette	(ui_cur->direct_palette)

/*
 * Return the terminal name to start curses with, or NULL for term (a
 * client's TERM): the direct-colour variant of a 256-colour term when
 * ct (its COLORTERM) is truecolor
 * or 24bit and terminfo has the variant.  JOBDECK_TRUECOLOR=0 turns this
 * off, =1 asks for the variant without COLORTERM.
 */
const char *
ui_colour_term(const char *term, const char *ct)
{
	const char	*force = getenv("JOBDECK_TRUECOLOR"), *dash;
	size_t		 i, len;
	int		 err;

	if (force != NULL && strcmp(force, "0") == 0)
		return NULL;
	if ((force == NULL || strcmp(force, "1") != 0) && (ct == NULL ||
	    (strcmp(ct, "truecolor") != 0 && strcmp(ct, "24bit") != 0)))
		return NULL;
	if (term == NULL || (dash = strstr(term, "-256color")) == NULL ||
	    dash[9] != '\0')
		return NULL;
	len = (size_t)(dash - term);
	for (i = 0; i < sizeof ui_direct_terms / sizeof ui_direct_terms[0];
	    i++) {
		if (strlen(ui_direct_terms[i].base) != len ||
		    strncmp(term, ui_direct_terms[i].base, len) != 0)
			continue;
		/* Only a variant terminfo has; setupterm only looks. */
		if (setupterm(ui_direct_terms[i].direct, -1, &err) == OK) {
			del_curterm(cur_term);
			return ui_direct_terms[i].direct;
		}
	}
	return NULL;
}

/*
 * Return how many palette colours a direct terminal's setaf keeps as
 * indices: 256 (xterm-direct256), 16 or 8 (xterm-direct, tmux-direct).
 * Values from there up are RGB, which setaf writes as "38:2:..." or
 * "38;2;...", and the last index of a palette is written without it.
 */
static int
ui_direct_indices(void)
{
	static const int	 sizes[] = { 256, 16 };
	char			*setaf = tigetstr("setaf"), *s;
	size_t			 i;

	if (setaf == NULL || setaf == (char *)-1)
		return 8;
	for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		s = tiparm(setaf, sizes[i] - 1);
		if (s != NULL && strstr(s, ":2:") == NULL &&
		    strstr(s, ";2;") == NULL)
			return sizes[i];
	}
	return 8;
}

/*
 * Start colours on the current screen with the terminal's defaults and
 * make its colour state current; the state, to give to ui_colour_use()
 * with the screen and to ui_colour_free() after it.
 */
struct ui_colours *
ui_colour_new(void)
{
	struct ui_colours	*uc;
	int			 c;

	uc = xcalloc(1, sizeof *uc);
	uc->last_fg = uc->last_bg = -2;
	ui_cur = uc;
	if (!has_colors())
		return uc;
	start_color();
	if (use_default_colors() != OK)
		assume_default_colors(COLOR_WHITE, COLOR_BLACK);
	ui_direct_palette = COLORS >= UI_DIRECT_COLORS ? ui_direct_indices() :
	    0;
	ui_pairs.limit = COLOR_PAIRS > UI_PAIRS_MAX ? UI_PAIRS_MAX :
	    COLOR_PAIRS;
	for (ui_pairs.size = 16; ui_pairs.size < 2 * ui_pairs.limit;
	    ui_pairs.size *= 2)
		;
	ui_pairs.slots = xcalloc((size_t)ui_pairs.size,
	    sizeof *ui_pairs.slots);
	debuglog("colour: %s, %d colours, %d pairs, %d direct palette",
	    termname(), COLORS, COLOR_PAIRS, ui_direct_palette);
	/* The front end's own colours first, so they always have a pair. */
	for (c = 0; c <= UI_C_DIM; c++)
		ui_semantic((enum ui_colour)c);
	return uc;
}

/* Make a screen's colour state current (NULL: none), with set_term(). */
void
ui_colour_use(struct ui_colours *uc)
{
	ui_cur = uc != NULL ? uc : &ui_no_colours;
}

/* Return the RGB value of a 256-colour palette index. */
static void
ui_index_rgb(int idx, int rgb[3])
{
	int	i;

	if (idx < 16) {
		for (i = 0; i < 3; i++)
			rgb[i] = ui_basic_rgb[idx][i];
	} else if (idx < 232) {
		idx -= 16;
		rgb[0] = ui_cube_levels[idx / 36];
		rgb[1] = ui_cube_levels[idx / 6 % 6];
		rgb[2] = ui_cube_levels[idx % 6];
	} else
		rgb[0] = rgb[1] = rgb[2] = 8 + 10 * (idx - 232);
}

/* Return the squared distance between two RGB colours. */
static int
ui_rgb_distance(const int a[3], const int b[3])
{
	int	d = 0, i;

	for (i = 0; i < 3; i++)
		d += (a[i] - b[i]) * (a[i] - b[i]);
	return d;
}

/* Return the nearest of the first n basic colours to an RGB colour. */
static int
ui_nearest_basic(const int rgb[3], int n)
{
	int	best = 0, bestd = -1, d, i, c[3];

	for (i = 0; i < n; i++) {
		ui_index_rgb(i, c);
		d = ui_rgb_distance(rgb, c);
		if (bestd == -1 || d < bestd) {
			best = i;
			bestd = d;
		}
	}
	return best;
}

/* Return the nearest index of xterm's cube or grey ramp to an RGB colour. */
static int
ui_nearest_256(const int rgb[3])
{
	int	cube[3], idx[3], grey, gidx, c[3], i, best;

	for (i = 0; i < 3; i++) {
		idx[i] = rgb[i] < 48 ? 0 : rgb[i] < 115 ? 1 :
		    (rgb[i] - 35) / 40;
		cube[i] = ui_cube_levels[idx[i]];
	}
	best = 16 + 36 * idx[0] + 6 * idx[1] + idx[2];
	grey = (rgb[0] + rgb[1] + rgb[2]) / 3;
	gidx = grey > 238 ? 23 : grey < 8 ? 0 : (grey - 3) / 10;
	c[0] = c[1] = c[2] = 8 + 10 * gidx;
	if (ui_rgb_distance(rgb, c) < ui_rgb_distance(rgb, cube))
		best = 232 + gidx;
	return best;
}

/*
 * Return the direct colour of an RGB colour: 0xRRGGBB, with green nudged
 * by one when the value would be read as a palette index instead.
 */
static int
ui_direct(const int rgb[3])
{
	int	v = rgb[0] << 16 | rgb[1] << 8 | rgb[2];

	if (v < ui_direct_palette)
		v |= 0x100;
	return v;
}

/* Map a vt colour word to a curses colour number (-1: default). */
int
ui_colour(uint32_t word)
{
	int	rgb[3], idx;

	switch (VT_COLOR_KIND(word)) {
	case VT_COLOR_INDEXED:
		idx = (int)(word & 0xff);
		if (ui_direct_palette > 0) {
			if (idx < ui_direct_palette)
				return idx;
			ui_index_rgb(idx, rgb);
			return ui_direct(rgb);
		}
		if (COLORS >= 256 || idx < COLORS)
			return idx;
		if (idx < 16 && COLORS >= 8)
			return idx - 8;
		ui_index_rgb(idx, rgb);
		break;
	case VT_COLOR_RGB:
		rgb[0] = (int)(word >> 16 & 0xff);
		rgb[1] = (int)(word >> 8 & 0xff);
		rgb[2] = (int)(word & 0xff);
		if (ui_direct_palette > 0)
			return ui_direct(rgb);
		if (COLORS >= 256)
			return ui_nearest_256(rgb);
		break;
	default:
		return -1;
	}
	if (COLORS < 8)
		return -1;
	return ui_nearest_basic(rgb, COLORS >= 16 ? 16 : 8);
}

/* Return the slot of fg on bg in the pair table: its own, or an empty one. */
static struct ui_pair_slot *
ui_pair_slot(int fg, int bg)
{
	struct ui_pair_slot	*sl;
	uint32_t		 h;

	h = ((uint32_t)fg * 2654435761u) ^ ((uint32_t)bg * 2246822519u);
	h ^= h >> 15;
	for (;;) {
		sl = &ui_pairs.slots[h & (uint32_t)(ui_pairs.size - 1)];
		if (sl->pair == 0 || (sl->fg == fg && sl->bg == bg))
			return sl;
		h++;
	}
}

/*
 * Return a colour pair for fg on bg, remembering the last one asked for.
 *
 * The policy: a pair is never recycled alone, because curses recolours
 * every cell already drawn with a pair that is initialised again, and
 * such cells may still be on screen.  With direct colour there are 2^48
 * combinations and the table (COLOR_PAIRS, 65,536 for xterm) fills in
 * time.  When a new pair finds the table full, a stand-in (the same
 * foreground on the default background, or pair 0) is used for now and
 * the overflow is noted; at the end of the frame ui_pair_renew() empties
 * the whole table and the frame is drawn again from scratch, so every
 * cell on screen gets a pair of the fresh table before anything reaches
 * the terminal.  Only a frame that by itself needs more pairs than the
 * terminal has keeps stand-ins.  The table holds at most half its slots,
 * so a lookup always ends at an empty one.
 */
int
ui_pair(int fg, int bg)
{
	struct ui_pair_slot	*sl;
	int			 pair;

	if (COLORS < 8 || ui_pairs.slots == NULL || (fg == -1 && bg == -1))
		return 0;
	if (fg == ui_pairs.last_fg && bg == ui_pairs.last_bg)
		return ui_pairs.last_pair;
	sl = ui_pair_slot(fg, bg);
	if (sl->pair != 0)
		pair = sl->pair;
	else if (ui_pairs.made + 1 < ui_pairs.limit &&
	    init_extended_pair(ui_pairs.made + 1, fg, bg) == OK) {
		pair = ++ui_pairs.made;
		sl->fg = fg;
		sl->bg = bg;
		sl->pair = pair;
	} else {
		ui_pairs.overflow = 1;
		sl = ui_pair_slot(fg, -1);
		pair = sl->pair;
	}
	ui_pairs.last_fg = fg;
	ui_pairs.last_bg = bg;
	ui_pairs.last_pair = pair;
	return pair;
}

/*
 * Call after drawing a frame.  If the frame found the pair table full,
 * empty the table (curses forgets every pair and repaints the whole
 * screen) and return 1: the caller draws the frame again from scratch and
 * calls this once more, which then only clears the mark, since a frame
 * that overflows a fresh table cannot be helped (it keeps stand-ins).
 */
int
ui_pair_renew(void)
{
	int	c, fresh = ui_pairs.fresh;

	ui_pairs.fresh = 0;
	if (!ui_pairs.overflow)
		return 0;
	ui_pairs.overflow = 0;
	if (fresh)
		return 0;
	debuglog("colour: the %d pairs are all taken, renewed", ui_pairs.made);
	reset_color_pairs();
	memset(ui_pairs.slots, 0, (size_t)ui_pairs.size *
	    sizeof *ui_pairs.slots);
	ui_pairs.made = 0;
	ui_pairs.last_fg = ui_pairs.last_bg = -2;
	for (c = 0; c <= UI_C_DIM; c++)
		ui_semantic((enum ui_colour)c);
	ui_pairs.fresh = 1;
	return 1;
}

/* Free a screen's colour state, after the screen has ended. */
void
ui_colour_free(struct ui_colours *uc)
{
	if (uc == NULL)
		return;
	if (ui_cur == uc)
		ui_cur = &ui_no_colours;
	free(uc->slots);
	free(uc);
}

/* Return the pair of one of the front end's own colours. */
int
ui_semantic(enum ui_colour c)
{
	static const short fg[] = {
		[UI_C_ACTIVE] = COLOR_GREEN,
		[UI_C_DONE] = COLOR_GREEN,
		[UI_C_FAILED] = COLOR_RED,
		[UI_C_CANCELED] = COLOR_YELLOW,
		[UI_C_FOCUS] = COLOR_YELLOW,
		[UI_C_ERROR] = COLOR_RED,
		[UI_C_DIM] = COLOR_BLUE,
	};

	return ui_pair(fg[c], -1);
}

