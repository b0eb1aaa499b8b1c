/*
 * rawtext: turn raw terminal output (as a job's log file holds it) into
 * plain text lines.  Escape sequences (CSI, OSC, DCS and the other string
 * controls, two- and three-byte ESC sequences) are dropped, a carriage
 * return that does not end a line starts the line again (so progress bars
 * keep their last state), backspace steps back one character, tabs expand
 * to 8 columns, malformed UTF-8 becomes U+FFFD and other control characters
 * vanish.  It is a reader for !logs, not an emulator: cursor addressing
 * is not replayed.
 *
 * Ownership: the caller owns the struct rawtext and the array and strings
 * rawtext_finish() returns (free them with rawtext_free_lines()).
 */
#ifndef JOBDECK_RAWTEXT_H
#define JOBDECK_RAWTEXT_H

#include <stddef.h>

struct rawtext;

struct rawtext	*rawtext_new(void);
void		 rawtext_feed(struct rawtext *, const char *buf, size_t len);
char		**rawtext_finish(struct rawtext *, int *count);
void		 rawtext_free_lines(char **lines, int count);

#endif
