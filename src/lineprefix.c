/*
 * lineprefix.c: a job's label, colour and prefix on lines of several
 * jobs together (see lineprefix.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lineprefix.h"
#include "textesc.h"
#include "xmalloc.h"

/*
 * foreman's colours, in its order, as palette indices: cyan, yellow,
 * green, magenta, red, blue, then their bright forms.
 */
static const int lineprefix_colours[] = {
	6, 3, 2, 5, 1, 4, 14, 11, 10, 13, 9, 12
};
#define LINEPREFIX_NCOLOURS \
	((int)(sizeof lineprefix_colours / sizeof lineprefix_colours[0]))

/* Return the palette index (0-15) of the nth job's colour, from 0. */
int
lineprefix_colour(int nth)
{
	if (nth < 0)
		nth = -nth;
	return lineprefix_colours[nth % LINEPREFIX_NCOLOURS];
}

/* Return the SGR parameter that sets a palette colour of 0-15 ("36"). */
const char *
lineprefix_sgr(int colour)
{
	static const char *const sgr[] = {
		"30", "31", "32", "33", "34", "35", "36", "37",
		"90", "91", "92", "93", "94", "95", "96", "97"
	};

	return sgr[colour & 15];
}

/* Return a job's label: its name made safe to show, else its id. */
char *
lineprefix_label(const char *name, int id)
{
	if (name == NULL || *name == '\0')
		return xprintf("%d", id);
	if (textesc_needed(name, strlen(name)))
		return textesc_visible(name, strlen(name));
	return xstrdup(name);
}

/*
 * Append a line's prefix to b: "[STAMP]LABEL | ", the label padded to
 * width, the stamp, label and bar in colour (a palette index; NONE: no
 * colour).
 */
void
lineprefix_add(struct xbuf *b, const char *stamp, const char *label,
    size_t width, int colour)
{
	char	*s;

	s = xprintf("%s%s%s%s%-*s |%s ",
	    colour != LINEPREFIX_NONE ? "\033[" : "",
	    colour != LINEPREFIX_NONE ? lineprefix_sgr(colour) : "",
	    colour != LINEPREFIX_NONE ? "m" : "", stamp != NULL ? stamp : "",
	    (int)width, label, colour != LINEPREFIX_NONE ? "\033[0m" : "");
	xbuf_add(b, s, strlen(s));
	free(s);
}
