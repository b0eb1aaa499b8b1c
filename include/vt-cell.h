/*
 * vt-cell.h: one cell of a terminal emulator's screen (a character, its
 * attributes, its colours).  Every layer of the emulator and every user of
 * vt.h shares these definitions; vt.h includes this file.  Nothing here
 * allocates or calls anything.
 */
#ifndef JOBDECK_VT_CELL_H
#define JOBDECK_VT_CELL_H

#include <stdint.h>

/* Cell attribute bits (struct vt_cell.attrs). */
#define VT_ATTR_BOLD		0x0001
#define VT_ATTR_UNDERLINE	0x0006	/* 2 bits: 0 none, 1 single, 2 double, 3 curly */
#define VT_ATTR_UNDERLINE_SHIFT	1
#define VT_ATTR_ITALIC		0x0008
#define VT_ATTR_BLINK		0x0010
#define VT_ATTR_REVERSE		0x0020
#define VT_ATTR_STRIKE		0x0040
#define VT_ATTR_PROTECTED	0x0080	/* DECSCA */
#define VT_ATTR_FONT		0x0f00	/* 4 bits: SGR 10-19 */
#define VT_ATTR_FONT_SHIFT	8

/*
 * A colour is one 32-bit word: the kind in the top byte, the value below.
 * VT_COLOR_DEFAULT is the terminal's default foreground or background.
 */
#define VT_COLOR_KIND(c)	((c) >> 24)
#define VT_COLOR_DEFAULT	0u
#define VT_COLOR_INDEXED	1u	/* palette index 0-255 in the low byte */
#define VT_COLOR_RGB		2u	/* 0xRRGGBB in the low 24 bits */
#define VT_COLOR_MAKE_INDEXED(i)	((VT_COLOR_INDEXED << 24) | ((i) & 0xffu))
#define VT_COLOR_MAKE_RGB(r, g, b) \
	((VT_COLOR_RGB << 24) | ((uint32_t)(r) << 16) | ((uint32_t)(g) << 8) | \
	    (uint32_t)(b))

/* struct vt_cell.ch for an erased cell and for the right half of a wide one. */
#define VT_CELL_BLANK		0u
#define VT_CELL_WIDE_RIGHT	0xffffffffu

/* One screen cell: 16 bytes. */
struct vt_cell {
	uint32_t	ch;	/* base code point, VT_CELL_BLANK or _WIDE_RIGHT */
	uint16_t	attrs;	/* VT_ATTR_* */
	uint16_t	comb;	/* 0, or a handle for vt_cell_text() marks */
	uint32_t	fg;	/* VT_COLOR_* word */
	uint32_t	bg;
};

#endif
