/*
 * keys: turn a key read by curses (wget_wch's return code and value) into a
 * key event for the focused job's emulator, which encodes it in the child's
 * current modes.  keys.c includes curses only for the KEY_* codes and the
 * terminfo look-ups that learn modified cursor keys (Ctrl+Up and friends,
 * whose codes ncurses assigns at run time); it draws nothing.
 *
 * Ownership: the caller owns the struct keys.
 */
#ifndef JOBDECK_KEYS_H
#define JOBDECK_KEYS_H

#include <stdint.h>
#include <wchar.h>

#include "vt.h"

struct keys;

enum keys_kind {
	KEYS_NONE,	/* nothing to send */
	KEYS_CHAR,	/* a character or C0 byte: ch */
	KEYS_KEY	/* a special key: key with mods */
};

struct keys_event {
	enum keys_kind	 kind;
	uint32_t	 ch;
	enum vt_key	 key;
	unsigned int	 mods;
};

struct keys	*keys_new(void);
void		 keys_free(struct keys *);
int		 keys_translate(const struct keys *, int rc, wint_t key,
		    struct keys_event *);
void		 keys_send(struct vt *, const struct keys_event *);

#endif
