/*
 * input: the outer terminal's reports parsed out of the key stream, free
 * of curses so it can be tested alone.  The front end turns on bracketed
 * paste (mode 2004), button-event mouse tracking (1002) and SGR mouse
 * encoding (1006), and teaches curses three prefixes as key codes of its
 * own: INPUT_KEY_PASTE_START ("ESC [ 200 ~"), INPUT_KEY_PASTE_END ("ESC [
 * 201 ~") and INPUT_KEY_MOUSE ("ESC [ <", whose parameters "b;x;y" and
 * final 'M' or 'm' follow as plain characters).  Every key curses reads is
 * fed here one at a time; input_feed() says what it was:
 *
 *   - INPUT_KEY: a key to dispatch as before (ev->code, ev->key);
 *   - INPUT_NONE: consumed (part of a paste or of a mouse report);
 *   - INPUT_PASTE: a complete paste, ev->paste (ev->paste_len bytes, UTF-8,
 *     owned by the parser until the next call).  Its rule: the characters
 *     as the terminal sent them, encoded as UTF-8; KEY_ENTER (the caller
 *     passes INPUT_ENTER for it) becomes "\r"; any other function key curses
 *     decoded inside the paste is dropped, as its bytes are gone.  A paste
 *     is at most INPUT_PASTE_MAX bytes: at the cap it is delivered with
 *     ev->cut set and the rest, up to the end marker, is dropped;
 *   - INPUT_MOUSE: a mouse report, ev->mouse.
 *
 * Nothing hangs the parser or swallows the keys after it: a mouse report
 * ends at its final character, at the first character that cannot be part
 * of it (which is then handled as a key), or after INPUT_MOUSE_MAX
 * characters; malformed reports are dropped.  A paste that never ends is
 * closed at the cap, or by input_flush() (the caller calls it when the
 * terminal has been quiet for INPUT_QUIET_MS while input_busy()).
 *
 * Ownership: the caller owns the struct input; the paste buffer belongs to
 * it and is valid until the next input_feed() or input_flush().
 */
#ifndef JOBDECK_INPUT_H
#define JOBDECK_INPUT_H

#include <stddef.h>
#include <stdint.h>

/* Key codes of our own, above curses' KEY_MAX (ui.c checks it). */
#define INPUT_KEY_BASE		0x2000
#define INPUT_KEY_PASTE_START	(INPUT_KEY_BASE + 0)
#define INPUT_KEY_PASTE_END	(INPUT_KEY_BASE + 1)
#define INPUT_KEY_MOUSE		(INPUT_KEY_BASE + 2)
/* What the caller passes for curses' KEY_ENTER (a code). */
#define INPUT_ENTER		(INPUT_KEY_BASE + 3)

#define INPUT_PASTE_MAX		(1024 * 1024)	/* bytes of one paste */
#define INPUT_MOUSE_MAX		32	/* characters of a report's body */
#define INPUT_MOUSE_COORD_MAX	9999	/* larger coordinates are clamped */
#define INPUT_QUIET_MS		1000	/* a paste left open this long ends */

/* Mouse buttons in a report. */
#define INPUT_BUTTON_LEFT	0
#define INPUT_BUTTON_MIDDLE	1
#define INPUT_BUTTON_RIGHT	2
#define INPUT_BUTTON_NONE	3	/* a move with no button held */
#define INPUT_WHEEL_UP		64
#define INPUT_WHEEL_DOWN	65

/* Modifiers, the same bits as VT_MOD_* (vt.h). */
#define INPUT_MOD_SHIFT		0x1
#define INPUT_MOD_ALT		0x2
#define INPUT_MOD_CTRL		0x4

/* A mouse report of the outer terminal, in screen cells from 0. */
struct input_mouse {
	int		 y;
	int		 x;
	int		 button;	/* INPUT_BUTTON_*, INPUT_WHEEL_* */
	int		 press;		/* 1 pressed (or moved), 0 released */
	int		 motion;	/* moved (with the button held) */
	unsigned int	 mods;		/* INPUT_MOD_* */
};

enum input_kind {
	INPUT_NONE,
	INPUT_KEY,
	INPUT_PASTE,
	INPUT_MOUSE
};

struct input_event {
	enum input_kind		 kind;
	int			 code;	/* INPUT_KEY: a function key */
	uint32_t		 key;	/* INPUT_KEY: the key or code */
	const char		*paste;	/* INPUT_PASTE */
	size_t			 paste_len;
	int			 cut;	/* the paste hit INPUT_PASTE_MAX */
	struct input_mouse	 mouse;	/* INPUT_MOUSE */
};

struct input;

struct input	*input_new(void);
void		 input_free(struct input *);
enum input_kind	 input_feed(struct input *, int code, uint32_t key,
		    struct input_event *);
int		 input_busy(const struct input *);
enum input_kind	 input_flush(struct input *, struct input_event *);

/*
 * A paste as prompt text, in place: "\r\n" and "\r" become "\n", a tab
 * a space, trailing newlines are dropped, other C0 controls and DEL are
 * dropped.
 * Returns the new length and sets *lines to the number of lines.
 */
size_t		 input_paste_text(char *buf, size_t len, int *lines);

#endif
