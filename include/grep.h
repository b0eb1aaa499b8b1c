/*
 * grep: search the output store, a bounded step at a time.  A search
 * covers a list of runs (by default every run in the store, newest
 * first) and matches each line as a user sees it (STORE_TEXT: a word
 * split by colour escapes still matches).  grep_step() reads about budget
 * bytes and reports the matches it found through the callback, so a
 * search of any size never blocks the caller's loop and holds memory
 * bounded by one read block and one line.  A damaged run (an index
 * record that is not the writer's, an out file shorter than its index) is
 * searched up to its damage, and one none of which can be read (no index)
 * passed over; each is counted, with why (grep_damaged()), and a search
 * always ends.
 *
 * Ownership: the caller owns struct grep (grep_free()).  A struct
 * grep_match and everything it points to is valid only during the
 * callback.
 */
#ifndef JOBDECK_GREP_H
#define JOBDECK_GREP_H

#include <stddef.h>
#include <stdint.h>

struct store_meta;

#define GREP_ICASE	0x1	/* -i: ignore case (ASCII and the locale's) */
#define GREP_EXTENDED	0x2	/* -E: POSIX extended regular expression */
#define GREP_FIXED	0x4	/* -F: the pattern is a plain string */

/* One matching line. */
struct grep_match {
	const char		*run;
	const struct store_meta	*meta;	/* the run's */
	int64_t			 line;	/* 0 is the run's first line */
	int64_t			 time;	/* wall ms */
	const char		*text;	/* the line as a user sees it */
	size_t			 len;
	size_t			 so;	/* the first match: [so, eo) of text */
	size_t			 eo;
};

/* Where matches go; non-zero from match stops the step (grep resumes). */
struct grep_cbs {
	int	(*match)(const struct grep_match *, void *arg);
};

struct grep;

struct grep	*grep_new(const char *dir, const char *pattern, int flags,
		    char *const *runs, int nruns, char **cause);
int		 grep_step(struct grep *, size_t budget,
		    const struct grep_cbs *, void *arg);
int		 grep_done(const struct grep *);
uint64_t	 grep_bytes(const struct grep *);
int64_t		 grep_matches(const struct grep *);
int		 grep_damaged(const struct grep *, const char **why);
const char	*grep_pattern(const struct grep *);
int		 grep_line_match(const struct grep *, const char *text,
		    size_t len, size_t *so, size_t *eo);
void		 grep_free(struct grep *);

#endif
