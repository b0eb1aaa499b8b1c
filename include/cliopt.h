/*
 * cliopt: the command line's options as data.  A front end (the deck,
 * jobdeck up, ctl, run, mcp) lists its options once in a const table of
 * struct cliopt; the same table drives getopt_long() (cliopt_next), the
 * usage line (cliopt_usage) and the option lines of its help
 * (cliopt_help), so an option is added in one row.  Rows may carry the
 * caller's mode bits (CLIOPT_MODES), for options that only some of the
 * front ends sharing a table take (jobdeck up's).  What getopt_long()
 * refused is said in one wording: "PROG: option '--cwd' needs a value",
 * "PROG: unknown option '-x'".
 *
 * Ownership: a struct cliopt_parser borrows its table and program name and
 * owns the getopt strings it builds; cliopt_end() frees them.  Everything
 * here prints to the FILE given, or to stderr for errors; nothing exits.
 */
#ifndef JOBDECK_CLIOPT_H
#define JOBDECK_CLIOPT_H

#include <stdio.h>

struct option;

struct cliopt {
	const char	*name;		/* the long name, or NULL */
	int		 ch;		/* the letter, or 0: long only */
	const char	*arg;		/* the value's name, or NULL: a flag */
	const char	*help;		/* lines split by \n */

#define CLIOPT_REPEAT	0x1	/* may be given more than once */
#define CLIOPT_HIDDEN	0x2	/* left out of the usage line */
#define CLIOPT_MODES	0xff00	/* the caller's: the front ends */
					/*   that take it; none: all */
	int		 flags;
};

struct cliopt_parser {
	const char		*prog;
	const struct cliopt	*opts;
	size_t			 n;
	char			*shortopts;
	struct option		*longopts;
	char			*value;	/* the last option's value, or NULL */
	int			 first;	/* at the end: argv's first operand */
};

/* The number of rows of a table. */
#define CLIOPT_COUNT(t)	(sizeof (t) / sizeof (t)[0])

void	cliopt_begin(struct cliopt_parser *, const char *prog,
	    const struct cliopt *, size_t);
int	cliopt_next(struct cliopt_parser *, int argc, char **argv);
void	cliopt_end(struct cliopt_parser *);
void	cliopt_usage(FILE *, const char *lead, const char *prog,
	    const struct cliopt *, size_t, unsigned int modes,
	    const char *operands);
void	cliopt_help(FILE *, const struct cliopt *, size_t, unsigned int);
int	cliopt_shown(const struct cliopt *, unsigned int modes);

#endif
