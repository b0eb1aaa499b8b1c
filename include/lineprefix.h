/*
 * lineprefix: the one rule for lines of several jobs shown together
 * (`jobdeck up`, a merged !logs): each line starts with its job's label
 * (its name, else its id, escaped for a terminal), padded to the longest
 * label shown, then " | "; each job has its own colour, foreman's cycle
 * taken in the order the jobs come.
 *
 * Ownership: lineprefix_label() returns a string the caller frees.
 */
#ifndef JOBDECK_LINEPREFIX_H
#define JOBDECK_LINEPREFIX_H

#include <stddef.h>

struct xbuf;

#define LINEPREFIX_NONE	(-1)	/* no colour */

int	 lineprefix_colour(int nth);
const char *lineprefix_sgr(int colour);
char	*lineprefix_label(const char *name, int id);
void	 lineprefix_add(struct xbuf *, const char *stamp, const char *label,
	    size_t width, int colour);

#endif
