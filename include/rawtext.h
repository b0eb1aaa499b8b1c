/*
 * rawtext: turn raw terminal output (as a job's log file holds it) into
 * plain text lines.  Escape sequences (CSI, OSC, DCS and the other string
 * controls, two- and three-byte ESC sequences) are dropped, a carriage
 * return that does not end a line starts the line again (so progress bars
 * keep their last state), backspace steps back one character, tabs expand
 * to 8 columns, malformed UTF-8 becomes U+FFFD and other control characters
 * vanish.  It is a reader for !logs, not an emulator: cursor addressing
 * is not replayed.  A line longer than RAWTEXT_LINE_MAX characters is cut
 * there and goes on as the next line, so no input makes the converter hold
 * more than one such line.
 *
 * Input may come in pieces of any size (rawtext_feed()).  rawtext_take()
 * hands over the lines completed so far and keeps the partial last line
 * and the parser's state, so a stream of any length is converted in
 * memory bounded by one line; rawtext_finish() ends the input and returns
 * the rest, the partial last line included; rawtext_free() abandons the
 * input and frees the converter with what it holds.
 *
 * rawtext_line() converts one line on its own (the output store's reader);
 * with RAWTEXT_SGR it keeps SGR sequences (CSI parameters m) where they
 * were, before the character they came before or at the end of the line,
 * and drops every other escape.
 *
 * Ownership: the caller owns the struct rawtext and the arrays and strings
 * rawtext_take() and rawtext_finish() return (free them with
 * rawtext_free_lines()), and the string rawtext_line() returns (free()).
 */
#ifndef JOBDECK_RAWTEXT_H
#define JOBDECK_RAWTEXT_H

#include <stddef.h>

#define RAWTEXT_LINE_MAX	(64 * 1024)	/* characters in a line */

#define RAWTEXT_SGR		0x1	/* rawtext_line(): keep SGR sequences */

struct rawtext;

struct rawtext	*rawtext_new(void);
void		 rawtext_feed(struct rawtext *, const char *buf, size_t len);
char		**rawtext_take(struct rawtext *, int *count);
char		**rawtext_finish(struct rawtext *, int *count);
void		 rawtext_free(struct rawtext *);
void		 rawtext_free_lines(char **lines, int count);
char		*rawtext_line(const char *buf, size_t len, int flags,
		    size_t *outlen);

#endif
