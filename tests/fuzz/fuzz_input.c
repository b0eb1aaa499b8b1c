/*
 * fuzz_input.c: fuzz target for the key stream parser (include/input.h).
 * The input is a key stream: each byte is a character, except that 0xf0
 * to 0xf4 stand for the codes paste start, paste end, mouse prefix, Enter
 * and another function key.  What is checked:
 *
 *   - a paste is at most INPUT_PASTE_MAX bytes and only cut at the cap;
 *   - a mouse report has coordinates from 0 to INPUT_MOUSE_COORD_MAX - 1,
 *     a known button and only INPUT_MOD_* bits;
 *   - after a flush the parser is not busy and a key passes as a key;
 *   - input_paste_text() keeps no control but "\n", no trailing newline,
 *     and counts its lines.
 */
#include <locale.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "input.h"

/* Abort unless a paste event and its prompt text keep their promises. */
static void
fuzz_input_paste(const struct input_event *ev)
{
	char	*buf;
	size_t	 n, i;
	int	 lines, count = 0;

	if (ev->paste_len > INPUT_PASTE_MAX ||
	    (ev->cut && ev->paste_len + 4 < INPUT_PASTE_MAX))
		abort();
	buf = malloc(ev->paste_len + 1);
	if (buf == NULL)
		abort();
	memcpy(buf, ev->paste, ev->paste_len);
	n = input_paste_text(buf, ev->paste_len, &lines);
	if (n > ev->paste_len || (n > 0 && buf[n - 1] == '\n'))
		abort();
	for (i = 0; i < n; i++) {
		if (((unsigned char)buf[i] < 0x20 && buf[i] != '\n') ||
		    buf[i] == 0x7f)
			abort();
		count += buf[i] == '\n';
	}
	if (lines != (n > 0 ? count + 1 : 0))
		abort();
	free(buf);
}

/* Abort unless a mouse report is in range. */
static void
fuzz_input_mouse(const struct input_mouse *m)
{
	int	b = m->button & ~(64 | 128);

	if (m->x < 0 || m->y < 0 || m->x >= INPUT_MOUSE_COORD_MAX ||
	    m->y >= INPUT_MOUSE_COORD_MAX || b < 0 || b > 3 ||
	    (m->mods & ~(unsigned int)(INPUT_MOD_SHIFT | INPUT_MOD_ALT |
	    INPUT_MOD_CTRL)) != 0)
		abort();
}

/* Feed the stream, check every event, flush, check a key passes. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t	 codes[] = { INPUT_KEY_PASTE_START,
	    INPUT_KEY_PASTE_END, INPUT_KEY_MOUSE, INPUT_ENTER, 0403 };
	static int		 init;
	struct input		*in;
	struct input_event	 ev;
	size_t			 i;
	int			 code;
	uint32_t		 key;

	if (!init) {
		setlocale(LC_ALL, "C.UTF-8");
		init = 1;
	}
	in = input_new();
	for (i = 0; i < size; i++) {
		code = data[i] >= 0xf0 && data[i] <= 0xf4;
		key = code ? codes[data[i] - 0xf0] : data[i];
		switch (input_feed(in, code, key, &ev)) {
		case INPUT_PASTE:
			fuzz_input_paste(&ev);
			break;
		case INPUT_MOUSE:
			fuzz_input_mouse(&ev.mouse);
			break;
		case INPUT_KEY:
			if (ev.code != code || ev.key != key)
				abort();
			break;
		case INPUT_NONE:
			break;
		}
	}
	if (input_flush(in, &ev) == INPUT_PASTE)
		fuzz_input_paste(&ev);
	if (input_busy(in) || input_feed(in, 0, 'k', &ev) != INPUT_KEY)
		abort();
	input_free(in);
	return 0;
}
