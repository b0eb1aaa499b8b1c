/*
 * vt-keycodes.h: the keys and modifiers a terminal emulator encodes for
 * its child (vt_send_key(), vt_send_char(), vt_send_mouse()).  Every
 * layer of the emulator and every user of vt.h shares these definitions;
 * vt.h includes this file.
 */
#ifndef JOBDECK_VT_KEYCODES_H
#define JOBDECK_VT_KEYCODES_H

/* Keys that are not plain characters. */
enum vt_key {
	VT_KEY_NONE = 0,
	VT_KEY_ENTER,
	VT_KEY_TAB,
	VT_KEY_BACKSPACE,
	VT_KEY_ESCAPE,
	VT_KEY_UP,
	VT_KEY_DOWN,
	VT_KEY_LEFT,
	VT_KEY_RIGHT,
	VT_KEY_INS,
	VT_KEY_DEL,
	VT_KEY_HOME,
	VT_KEY_END,
	VT_KEY_PAGEUP,
	VT_KEY_PAGEDOWN,
	VT_KEY_F0 = 256		/* VT_KEY_F0 + n is Fn, n = 1..12 */
};

/* Key modifier bits, as xterm's modifier parameter minus one. */
#define VT_MOD_SHIFT	0x1
#define VT_MOD_ALT	0x2
#define VT_MOD_CTRL	0x4

#endif
