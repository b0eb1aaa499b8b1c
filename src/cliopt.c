/*
 * cliopt.c: a front end's options as one table, for getopt_long(), the
 * usage line and the help (include/cliopt.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliopt.h"
#include "xmalloc.h"

/* The value getopt_long() returns for row i of a table. */
#define CLIOPT_WIDTH	79	/* a usage line wraps before this column */
#define CLIOPT_VAL(p, i) \
	((p)->opts[i].ch != 0 ? (p)->opts[i].ch : 0x100 + (int)(i))

/*
 * Build the getopt strings of a table for prog and start a fresh scan:
 * options stop at the first operand ("+"), a missing value is ':'.
 */
void
cliopt_begin(struct cliopt_parser *p, const char *prog,
    const struct cliopt *opts, size_t n)
{
	char	*sp;
	size_t	 i, k = 0;

	memset(p, 0, sizeof *p);
	p->prog = prog;
	p->opts = opts;
	p->n = n;
	p->shortopts = sp = xmalloc(2 * n + 3);
	p->longopts = xcalloc(n + 1, sizeof *p->longopts);
	*sp++ = '+';
	*sp++ = ':';
	for (i = 0; i < n; i++) {
		if (opts[i].ch != 0) {
			*sp++ = (char)opts[i].ch;
			if (opts[i].arg != NULL)
				*sp++ = ':';
		}
		if (opts[i].name == NULL)
			continue;
		p->longopts[k].name = opts[i].name;
		p->longopts[k].has_arg = opts[i].arg != NULL ?
		    required_argument : no_argument;
		p->longopts[k].val = CLIOPT_VAL(p, i);
		k++;
	}
	*sp = '\0';
	optind = 0;	/* glibc: a fresh scan */
	opterr = 0;
}

/* Say on stderr why getopt_long() returned ch for the parser's program. */
static void
cliopt_refused(const struct cliopt_parser *p, int ch, char *const *argv)
{
	if (ch == ':')
		fprintf(stderr, "%s: option '%s' needs a value\n", p->prog,
		    argv[optind - 1]);
	else if (optopt != 0 && optopt < 0x100)
		fprintf(stderr, "%s: unknown option '-%c'\n", p->prog, optopt);
	else
		fprintf(stderr, "%s: unknown option '%s'\n", p->prog,
		    argv[optind - 1]);
}

/*
 * Return the row of the next option (its value in p->value), -1 at the
 * first operand or the end, or -2 when the option was refused (said on
 * stderr; the caller prints its usage).
 */
int
cliopt_next(struct cliopt_parser *p, int argc, char **argv)
{
	size_t	i;
	int	ch;

	p->value = NULL;
	ch = getopt_long(argc, argv, p->shortopts, p->longopts, NULL);
	p->first = optind;
	if (ch == -1)
		return -1;
	for (i = 0; i < p->n; i++) {
		if (ch == CLIOPT_VAL(p, i)) {
			p->value = optarg;
			return (int)i;
		}
	}
	cliopt_refused(p, ch, argv);
	return -2;
}

/* Free what cliopt_begin() built. */
void
cliopt_end(struct cliopt_parser *p)
{
	free(p->shortopts);
	free(p->longopts);
	p->shortopts = NULL;
	p->longopts = NULL;
}

/* Write one option's short form: "-c FILE", "--json", "-S NAME". */
static int
cliopt_form(char *buf, size_t len, const struct cliopt *o, int both)
{
	const char	*sp = o->arg != NULL ? " " : "";
	const char	*arg = o->arg != NULL ? o->arg : "";

	if (o->ch != 0 && o->name != NULL && both)
		return snprintf(buf, len, "-%c, --%s%s%s", o->ch, o->name, sp,
		    arg);
	if (o->ch != 0)
		return snprintf(buf, len, "-%c%s%s", o->ch, sp, arg);
	return snprintf(buf, len, "--%s%s%s", o->name, sp, arg);
}

/* Print word to f at *col, first starting a new line indented by in. */
static void
cliopt_word(FILE *f, const char *word, int in, int *col)
{
	int	len = (int)strlen(word);

	if (*col > in && *col + 1 + len > CLIOPT_WIDTH) {
		fprintf(f, "\n%*s", in, "");
		*col = in;
	}
	fprintf(f, " %s", word);
	*col += 1 + len;
}

/*
 * Print the usage line of prog after lead ("usage:", or blanks under it)
 * with the options of a table that the modes take and the operands,
 * wrapped under its first option: "usage: jobdeck run [-c FILE] ...".
 */
void
cliopt_usage(FILE *f, const char *lead, const char *prog,
    const struct cliopt *opts, size_t n, unsigned int modes,
    const char *operands)
{
	char	form[64], word[72];
	size_t	i;
	int	col, in;

	col = in = fprintf(f, "%s %s", lead, prog);
	for (i = 0; i < n; i++) {
		if ((opts[i].flags & CLIOPT_HIDDEN) ||
		    !cliopt_shown(&opts[i], modes))
			continue;
		cliopt_form(form, sizeof form, &opts[i], 0);
		snprintf(word, sizeof word, "[%s]%s", form,
		    (opts[i].flags & CLIOPT_REPEAT) ? "..." : "");
		cliopt_word(f, word, in, &col);
	}
	if (operands != NULL)
		cliopt_word(f, operands, in, &col);
	fprintf(f, "\n");
}

/* Return whether a row belongs to the modes: it names none, or one of them. */
int
cliopt_shown(const struct cliopt *o, unsigned int modes)
{
	return (o->flags & CLIOPT_MODES) == 0 ||
	    (o->flags & CLIOPT_MODES & modes) != 0;
}

/* Print a help line for each option of a table the modes take. */
void
cliopt_help(FILE *f, const struct cliopt *opts, size_t n,
    unsigned int modes)
{
	const char	*p, *nl;
	char		 left[64];
	size_t		 i;

	for (i = 0; i < n; i++) {
		if (!cliopt_shown(&opts[i], modes))
			continue;
		cliopt_form(left, sizeof left, &opts[i], 1);
		for (p = opts[i].help; p != NULL; p = nl) {
			nl = strchr(p, '\n');
			fprintf(f, "  %-18s %.*s\n", left, nl != NULL ?
			    (int)(nl - p) : (int)strlen(p), p);
			left[0] = '\0';
			if (nl != NULL)
				nl++;
		}
	}
}
