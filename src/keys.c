/*
 * keys.c: curses key codes to emulator key events, for focus mode.  The
 * fixed table covers the keys curses names; keys_new() learns the codes
 * ncurses gives modified cursor keys (kUP5 and friends) from terminfo.
 */
#include <curses.h>

#include <stdio.h>
#include <stdlib.h>

#include "keys.h"
#include "xmalloc.h"

/* One curses key code and the emulator key it stands for. */
struct keys_map {
	int		code;
	enum vt_key	key;
	unsigned int	mods;
};

static const struct keys_map keys_fixed[] = {
	{ KEY_UP, VT_KEY_UP, 0 },
	{ KEY_DOWN, VT_KEY_DOWN, 0 },
	{ KEY_LEFT, VT_KEY_LEFT, 0 },
	{ KEY_RIGHT, VT_KEY_RIGHT, 0 },
	{ KEY_SR, VT_KEY_UP, VT_MOD_SHIFT },
	{ KEY_SF, VT_KEY_DOWN, VT_MOD_SHIFT },
	{ KEY_SLEFT, VT_KEY_LEFT, VT_MOD_SHIFT },
	{ KEY_SRIGHT, VT_KEY_RIGHT, VT_MOD_SHIFT },
	{ KEY_HOME, VT_KEY_HOME, 0 },
	{ KEY_END, VT_KEY_END, 0 },
	{ KEY_SHOME, VT_KEY_HOME, VT_MOD_SHIFT },
	{ KEY_SEND, VT_KEY_END, VT_MOD_SHIFT },
	{ KEY_IC, VT_KEY_INS, 0 },
	{ KEY_DC, VT_KEY_DEL, 0 },
	{ KEY_SDC, VT_KEY_DEL, VT_MOD_SHIFT },
	{ KEY_PPAGE, VT_KEY_PAGEUP, 0 },
	{ KEY_NPAGE, VT_KEY_PAGEDOWN, 0 },
	{ KEY_BTAB, VT_KEY_TAB, VT_MOD_SHIFT },
	{ KEY_BACKSPACE, VT_KEY_BACKSPACE, 0 },
	{ KEY_ENTER, VT_KEY_ENTER, 0 },
};

/* The terminfo names of keys that xterm reports with modifiers. */
static const struct {
	const char	*name;
	enum vt_key	 key;
} keys_modifiable[] = {
	{ "kUP", VT_KEY_UP },
	{ "kDN", VT_KEY_DOWN },
	{ "kLFT", VT_KEY_LEFT },
	{ "kRIT", VT_KEY_RIGHT },
	{ "kHOM", VT_KEY_HOME },
	{ "kEND", VT_KEY_END },
	{ "kIC", VT_KEY_INS },
	{ "kDC", VT_KEY_DEL },
	{ "kPRV", VT_KEY_PAGEUP },
	{ "kNXT", VT_KEY_PAGEDOWN },
};

#define KEYS_MAX_LEARNED	(sizeof keys_modifiable / sizeof keys_modifiable[0] * 6)

struct keys {
	struct keys_map	learned[KEYS_MAX_LEARNED];
	int		nlearned;
};

/*
 * Create a translator, learning modified-key codes from terminfo; call it
 * after keypad() is on, or nothing is found.
 */
struct keys *
keys_new(void)
{
	struct keys	*k;
	char		 cap[16], *seq;
	size_t		 i;
	int		 m, code;

	k = xcalloc(1, sizeof *k);
	for (i = 0; i < sizeof keys_modifiable / sizeof keys_modifiable[0];
	    i++) {
		for (m = 3; m <= 8; m++) {
			snprintf(cap, sizeof cap, "%s%d", keys_modifiable[i].name,
			    m);
			seq = tigetstr(cap);
			if (seq == NULL || seq == (char *)-1)
				continue;
			code = key_defined(seq);
			if (code <= 0)
				continue;
			k->learned[k->nlearned].code = code;
			k->learned[k->nlearned].key = keys_modifiable[i].key;
			k->learned[k->nlearned].mods = (unsigned int)(m - 1);
			k->nlearned++;
		}
	}
	return k;
}

/* Free a translator. */
void
keys_free(struct keys *k)
{
	free(k);
}

/*
 * Translate wget_wch()'s result into an event; returns 0 when the key has
 * no meaning for a child (the event's kind is then KEYS_NONE).
 */
int
keys_translate(const struct keys *k, int rc, wint_t key,
    struct keys_event *ev)
{
	static const unsigned int fmods[] = { 0, VT_MOD_SHIFT, VT_MOD_CTRL,
	    VT_MOD_CTRL | VT_MOD_SHIFT, VT_MOD_ALT };
	size_t	i;
	int	n;

	ev->kind = KEYS_NONE;
	ev->ch = 0;
	ev->key = VT_KEY_NONE;
	ev->mods = 0;
	if (rc == OK) {
		/* nonl(): Enter arrives as CR; LF can only be Ctrl+J. */
		if (key == L'\r') {
			ev->kind = KEYS_KEY;
			ev->key = VT_KEY_ENTER;
		} else {
			ev->kind = KEYS_CHAR;
			ev->ch = (uint32_t)key;
		}
		return 1;
	}
	if (rc != KEY_CODE_YES)
		return 0;
	if (key >= (wint_t)KEY_F(1) && key <= (wint_t)KEY_F(60)) {
		/* xterm: F13-F24 are Shift+F1-F12, F25-F36 Ctrl+F1-F12... */
		n = (int)key - KEY_F(1);
		ev->kind = KEYS_KEY;
		ev->key = (enum vt_key)(VT_KEY_F0 + n % 12 + 1);
		ev->mods = fmods[n / 12];
		return 1;
	}
	for (i = 0; i < sizeof keys_fixed / sizeof keys_fixed[0]; i++) {
		if (keys_fixed[i].code == (int)key) {
			ev->kind = KEYS_KEY;
			ev->key = keys_fixed[i].key;
			ev->mods = keys_fixed[i].mods;
			return 1;
		}
	}
	for (n = 0; n < k->nlearned; n++) {
		if (k->learned[n].code == (int)key) {
			ev->kind = KEYS_KEY;
			ev->key = k->learned[n].key;
			ev->mods = k->learned[n].mods;
			return 1;
		}
	}
	return 0;
}

/* Send an event to an emulator, which writes the encoding to its child. */
void
keys_send(struct vt *vt, const struct keys_event *ev)
{
	switch (ev->kind) {
	case KEYS_CHAR:
		vt_send_char(vt, ev->ch, ev->mods);
		break;
	case KEYS_KEY:
		vt_send_key(vt, ev->key, ev->mods);
		break;
	case KEYS_NONE:
		break;
	}
}
