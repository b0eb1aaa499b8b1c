/*
 * ui-colour.c: colours.  A vt colour word becomes a curses colour the
 * outer terminal has: 256-colour indices and RGB map onto xterm's cube and
 * grey ramp, or onto the 16 or 8 basic colours; pairs of them are made and
 * looked up here, as are the front end's own semantic colours.
 */
#include <curses.h>
#include <stdint.h>
#include <stdio.h>

#include "ui-private.h"
#include "vt.h"

/* The xterm palette's first 16 colours, as RGB. */
static const uint8_t ui_basic_rgb[16][3] = {
	{ 0, 0, 0 }, { 205, 0, 0 }, { 0, 205, 0 }, { 205, 205, 0 },
	{ 0, 0, 238 }, { 205, 0, 205 }, { 0, 205, 205 }, { 229, 229, 229 },
	{ 127, 127, 127 }, { 255, 0, 0 }, { 0, 255, 0 }, { 255, 255, 0 },
	{ 92, 92, 255 }, { 255, 0, 255 }, { 0, 255, 255 }, { 255, 255, 255 },
};

static const int ui_cube_levels[6] = { 0, 95, 135, 175, 215, 255 };


/* Start colours with the terminal's defaults; returns whether it has any. */
int
ui_draw_init_colours(void)
{
	int	c;

	if (!has_colors())
		return 0;
	start_color();
	if (use_default_colors() != OK)
		assume_default_colors(COLOR_WHITE, COLOR_BLACK);
	/* The front end's own colours first, so they always have a pair. */
	for (c = 0; c <= UI_C_DIM; c++)
		ui_semantic((enum ui_colour)c);
	return 1;
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

/* Map a vt colour word to a curses colour number (-1: default). */
int
ui_colour(uint32_t word)
{
	int	rgb[3], idx;

	switch (VT_COLOR_KIND(word)) {
	case VT_COLOR_INDEXED:
		idx = (int)(word & 0xff);
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

/*
 * Return a colour pair for fg on bg, remembering the last one asked for.
 * A new pair is made only while the terminal has free ones: when ncurses'
 * alloc_pair() recycles a pair, every cell already drawn with it changes
 * colour, so once the table is full the nearest existing pair (the same
 * foreground on the default background) stands in.  The counter is module
 * state because the pair table it counts is curses' own, one per process.
 */
int
ui_pair(int fg, int bg)
{
	static int	last_fg = -2, last_bg = -2, last_pair, made;
	int		pair;

	if (COLORS < 8 || (fg == -1 && bg == -1))
		return 0;
	if (fg == last_fg && bg == last_bg)
		return last_pair;
	pair = find_pair(fg, bg);
	if (pair < 0 && made < COLOR_PAIRS - 1) {
		pair = alloc_pair(fg, bg);
		if (pair > 0)
			made++;
	}
	if (pair < 0)
		pair = find_pair(fg, -1);
	if (pair < 0)
		pair = 0;
	last_fg = fg;
	last_bg = bg;
	last_pair = pair;
	return pair;
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

