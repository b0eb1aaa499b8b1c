/*
 * input.c: the outer terminal's reports (bracketed paste, SGR mouse)
 * parsed out of the key stream one key at a time.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "input.h"
#include "xmalloc.h"

enum input_state {
	INPUT_S_GROUND,
	INPUT_S_PASTE,		/* collecting a paste */
	INPUT_S_DISCARD,		/* a cut paste: dropping until its end */
	INPUT_S_REPORT		/* a mouse report's "b;x;y" and final */
};

struct input {
	enum input_state	 state;

	char			*paste;		/* INPUT_PASTE_MAX + 1 bytes */
	size_t			 paste_len;

	int			 params[3];	/* a mouse report so far */
	int			 nparams;	/* parameters started */
	int			 chars;		/* characters of its body */
};

/* Create a parser in its ground state. */
struct input *
input_new(void)
{
	return xcalloc(1, sizeof (struct input));
}

/* Free a parser and its paste. */
void
input_free(struct input *in)
{
	if (in == NULL)
		return;
	free(in->paste);
	free(in);
}

/* Return whether the parser is inside a paste or a mouse report. */
int
input_busy(const struct input *in)
{
	return in->state != INPUT_S_GROUND;
}

/* Fill ev with the paste collected so far and forget it. */
static enum input_kind
input_paste_done(struct input *in, struct input_event *ev, int cut)
{
	ev->kind = INPUT_PASTE;
	ev->paste = in->paste != NULL ? in->paste : "";
	ev->paste_len = in->paste_len;
	ev->cut = cut;
	in->paste_len = 0;
	return INPUT_PASTE;
}

/*
 * Add a key to the paste: a character as UTF-8, Enter as "\r", other
 * function keys dropped.  Returns non-zero when the paste reached its cap.
 */
static int
input_paste_add(struct input *in, int code, uint32_t key)
{
	char		 mb[MB_LEN_MAX];
	mbstate_t	 mbs;
	size_t		 n;

	if (code) {
		if (key != INPUT_ENTER)
			return 0;
		mb[0] = '\r';
		n = 1;
	} else {
		memset(&mbs, 0, sizeof mbs);
		n = wcrtomb(mb, (wchar_t)key, &mbs);
		if (n == (size_t)-1 || n == 0)
			return 0;
	}
	if (in->paste == NULL)
		in->paste = xmalloc(INPUT_PASTE_MAX + 1);
	if (in->paste_len + n > INPUT_PASTE_MAX)
		return 1;
	memcpy(in->paste + in->paste_len, mb, n);
	in->paste_len += n;
	in->paste[in->paste_len] = '\0';
	return in->paste_len == INPUT_PASTE_MAX;
}

/* Turn a complete SGR report "b;x;y" with its final into ev. */
static enum input_kind
input_report_done(struct input *in, uint32_t final, struct input_event *ev)
{
	int	b = in->params[0];

	in->state = INPUT_S_GROUND;
	if (in->nparams != 3)
		return INPUT_NONE;	/* malformed: dropped */
	memset(&ev->mouse, 0, sizeof ev->mouse);
	ev->kind = INPUT_MOUSE;
	ev->mouse.x = in->params[1] > 0 ? in->params[1] - 1 : 0;
	ev->mouse.y = in->params[2] > 0 ? in->params[2] - 1 : 0;
	ev->mouse.button = (b & 3) | (b & 64) | (b & 128);
	ev->mouse.press = final == 'M';
	ev->mouse.motion = (b & 32) != 0;
	if (b & 4)
		ev->mouse.mods |= INPUT_MOD_SHIFT;
	if (b & 8)
		ev->mouse.mods |= INPUT_MOD_ALT;
	if (b & 16)
		ev->mouse.mods |= INPUT_MOD_CTRL;
	return INPUT_MOUSE;
}

/*
 * Take one character of a mouse report's body.  Returns 1 when it was
 * taken (ev may hold the finished report), 0 when it cannot be part of a
 * report: the report is dropped and the key is the caller's.
 */
static int
input_report_add(struct input *in, int code, uint32_t key,
    struct input_event *ev)
{
	int	*p;

	if (code || ++in->chars > INPUT_MOUSE_MAX) {
		in->state = INPUT_S_GROUND;
		return 0;
	}
	if (key == 'M' || key == 'm') {
		input_report_done(in, key, ev);
		return 1;
	}
	if (key == ';') {
		if (in->nparams == 0 || in->nparams == 3) {
			in->state = INPUT_S_GROUND;
			return 0;
		}
		in->params[in->nparams++] = 0;
		return 1;
	}
	if (key < '0' || key > '9') {
		in->state = INPUT_S_GROUND;
		return 0;
	}
	if (in->nparams == 0)
		in->params[in->nparams++] = 0;
	p = &in->params[in->nparams - 1];
	*p = *p * 10 + (int)(key - '0');
	if (*p > INPUT_MOUSE_COORD_MAX)
		*p = INPUT_MOUSE_COORD_MAX;
	return 1;
}

/* Feed one key curses read (code: a function key); fill ev; say what it was. */
enum input_kind
input_feed(struct input *in, int code, uint32_t key, struct input_event *ev)
{
	memset(ev, 0, sizeof *ev);
	switch (in->state) {
	case INPUT_S_PASTE:
		if (code && key == INPUT_KEY_PASTE_END) {
			in->state = INPUT_S_GROUND;
			return input_paste_done(in, ev, 0);
		}
		if (code && key == INPUT_KEY_PASTE_START)
			return INPUT_NONE;	/* nested: one paste */
		if (input_paste_add(in, code, key)) {
			in->state = INPUT_S_DISCARD;
			return input_paste_done(in, ev, 1);
		}
		return INPUT_NONE;
	case INPUT_S_DISCARD:
		if (code && key == INPUT_KEY_PASTE_END)
			in->state = INPUT_S_GROUND;
		return INPUT_NONE;
	case INPUT_S_REPORT:
		if (input_report_add(in, code, key, ev))
			return ev->kind;
		break;	/* not part of the report: a key after all */
	case INPUT_S_GROUND:
		break;
	}
	if (code && key == INPUT_KEY_PASTE_START) {
		in->state = INPUT_S_PASTE;
		in->paste_len = 0;
		return INPUT_NONE;
	}
	if (code && key == INPUT_KEY_PASTE_END)
		return INPUT_NONE;	/* an end without a start */
	if (code && key == INPUT_KEY_MOUSE) {
		in->state = INPUT_S_REPORT;
		in->nparams = 0;
		in->chars = 0;
		memset(in->params, 0, sizeof in->params);
		return INPUT_NONE;
	}
	ev->kind = INPUT_KEY;
	ev->code = code;
	ev->key = key;
	return INPUT_KEY;
}

/*
 * The terminal has been quiet: close an open paste (delivering it), drop
 * a cut paste's rest and a partial mouse report.
 */
enum input_kind
input_flush(struct input *in, struct input_event *ev)
{
	enum input_state	state = in->state;

	memset(ev, 0, sizeof *ev);
	in->state = INPUT_S_GROUND;
	if (state == INPUT_S_PASTE)
		return input_paste_done(in, ev, 0);
	return INPUT_NONE;
}

/* Make a paste prompt text in place (see input.h); return its length. */
size_t
input_paste_text(char *buf, size_t len, int *lines)
{
	size_t		i, n = 0;
	unsigned char	c;

	for (i = 0; i < len; i++) {
		c = (unsigned char)buf[i];
		if (c == '\r') {
			if (i + 1 < len && buf[i + 1] == '\n')
				i++;
			c = '\n';
		}
		if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
			continue;
		if (c == '\t')
			c = ' ';
		buf[n++] = (char)c;
	}
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	*lines = n > 0 ? 1 : 0;
	for (i = 0; i < n; i++)
		if (buf[i] == '\n')
			(*lines)++;
	if (n < len)
		buf[n] = '\0';
	return n;
}
