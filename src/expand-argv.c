/*
 * expand-argv.c: a job's command, arguments and input expanded for the
 * program that reads them.  expand_text() can quote a {name} value for a
 * POSIX shell's command string; this file decides which words of a
 * command are such command strings, which are code that no quoting keeps
 * a value out of, and which are data.
 *
 * A job runs a command string, with its shell (command, no args), or a
 * program with arguments (command and args).  The command string is
 * expanded with EXPAND_SHELL when the shell is a POSIX one and gets no
 * {name} value otherwise.  The words of a program, and its input, are
 * data (values go in verbatim) unless the program is one of these, known
 * by the last component of its path, with or without a version (python3,
 * python3.11, ksh93):
 *
 *   POSIX shells: sh ash dash hush posh pdksh oksh loksh yash bash ksh mksh
 *	zsh.  A -c, alone or in a cluster (-c, -ec, -lc, -xc, +c), makes the
 *	first word after the options the command string: EXPAND_SHELL, as for
 *	a command.  The words after it ($0, $1, ...) are data.  With no -c
 *	and no script operand, or with -s, the shell reads commands from its
 *	input, and the input is expanded with EXPAND_SHELL too, and with
 *	EXPAND_TERMINAL when it is typed into a terminal.
 *   Other shells: fish csh tcsh rc es nu xonsh elvish pwsh powershell
 *	ion.  Their quoting is not sh's, so no {name} value goes into any of
 *	their words or their input.
 *   Interpreters: python pypy perl ruby node nodejs php lua luajit
 *	Rscript.  The argument of an option for code (python -c and -m,
 *	perl -e -E -M -m, ruby -e -r, node -e -p -r and --eval --print
 *	--require --import --loader, php -r -B -R -E -F -f, lua -e -l,
 *	Rscript -e) gets no value; nor does their input when they read their
 *	program from it (no code option and no script, or the script "-").
 *	A code letter anywhere in a cluster counts (perl -lne).
 *   Programs whose program is their first operand unless an option gives
 *	it: awk gawk mawk nawk (-f -e -E, --source --file --exec; -i -l load
 *	code too) and sed (-e -f, --expression --file; GNU sed takes options
 *	after operands).  That operand, and those options' arguments, get no
 *	value.  awk -v NAME={x} is the way to hand awk a value.
 *   Wrappers, looked through to the program they run: env (NAME=VALUE
 *	words, and -S, whose text env splits into the command: everything
 *	after it gets no value), nice, nohup, setsid, stdbuf, timeout (its
 *	duration), busybox (the applet).
 *
 * The options of all these, and their arguments, get no value either, and
 * a value may not change what a word is: turn an operand into an option
 * (a leading '-' or '+'), change the name an env NAME=VALUE sets or make
 * a program an assignment, or make the program another one than its
 * template names without values (command = "{prog}" cannot become sh).
 * So the layout of a command is decided by its text and the environment
 * alone, and a value only ever fills a word jobdeck has classified.
 *
 * A command string is also read, where it is simple enough, for what its
 * programs do with the job's input and with nested code: it is split into
 * commands at ; & && | || and newlines, and into words at blanks, with
 * '...', "..." (no $ or ` inside) and backslashes; if anything else is in
 * it ($, `, redirections, parentheses, globs, ~, #) it is not read.  Each
 * command (after NAME=VALUE words and "exec") is classified as above: its
 * input role counts for the job's input (the strictest wins), and a word
 * another program reads as code or as its command string gets no value,
 * since the quoting done for the job's shell is undone before that
 * program sees the word (bash -c 'echo {x}' would hand bash the bare value).
 *
 * Not followed: what a program does with data (eval "$1", ssh's remote
 * command, su -c, sudo, xargs, watch, flock -c, find -exec sh -c), options
 * of these programs that jobdeck does not know to take an argument, and
 * command strings that are not simple.  Hand values to those as one would
 * by hand.
 */
#include <sys/types.h>

#include <stdlib.h>
#include <string.h>

#include "expand.h"
#include "name.h"
#include "textesc.h"
#include "xmalloc.h"

/* How a known program reads its words. */
enum expand_kind {
	EXPAND_KIND_SH,		/* a POSIX shell */
	EXPAND_KIND_FOREIGN,	/* a shell of another family */
	EXPAND_KIND_INTERP,	/* code in an option's argument, or a script */
	EXPAND_KIND_PROGRAM,	/* the first operand is code (awk, sed) */
	EXPAND_KIND_WRAPPER	/* runs the program after its options */
};

/* One program jobdeck knows. */
struct expand_prog {
	const char		*name;
	enum expand_kind	 kind;
#define EXPAND_PROG_STDIN	0x1	/* reads its program from its input */
					/*   when given none */
#define EXPAND_PROG_PERMUTE	0x2	/* options may follow operands */
#define EXPAND_PROG_ASSIGN	0x4	/* NAME=VALUE words before the program */
#define EXPAND_PROG_CODE_ENDS	0x8	/* options end after its code */
	int			 flags;
	const char		*arg;	/* short options taking an argument */
	const char		*code;	/* short options whose argument is code */
	const char		*prog;	/* of those, the ones giving the program */
	const char		*longs;	/* " NAME=K": K is a (an argument), c */
					/*   (code) or p (code, the program) */
	u_int			 skip;	/* operands before the program */
};

/* What a word (or the input) is to the program reading it. */
enum expand_role {
	EXPAND_ROLE_DATA,	/* the value as it is */
	EXPAND_ROLE_PROGRAM,	/* data, but a value may not change the */
				/*   program */
	EXPAND_ROLE_OPERAND,	/* data, but a value may not make it an */
				/*   option */
	EXPAND_ROLE_ASSIGN,	/* env's NAME=VALUE: NAME may not change */
	EXPAND_ROLE_OPTION,	/* an option or its argument: no value */
	EXPAND_ROLE_SHELL,	/* a POSIX shell's command string: quoted */
	EXPAND_ROLE_CODE	/* code: no value */
};

/* The roles of a command's words and input, and who reads each. */
struct expand_plan {
	enum expand_role	*role;		/* one per word */
	size_t			*reader;	/* the word naming its program */
	enum expand_role	 input;
	size_t			 input_reader;
	int			 strict;	/* EXPAND_STRICT or 0 */
};

/* How the job's input is read, and by which program (a path). */
struct expand_input {
	enum expand_role	 role;
	char			*reader;
};

/* What the words of a command string look like. */
struct expand_words {
	char		**word;
	size_t		  n;
	size_t		  size;
	size_t		 *start;	/* commands: first word of each */
	size_t		  ncmds;
};

/* Where a scan of an interpreter's or a program's words is. */
struct expand_scan {
	const struct expand_prog *p;
	enum expand_role	 pending;	/* the awaited argument's */
	size_t			 operands;
	int			 options;	/* options are still read */
	int			 have_prog;	/* the program is given */
	int			 opt_prog;	/* ... by an option */
	int			 from_stdin;	/* ... to come on the input */
	int			 script;	/* ... as a script */
	int			 waiting;	/* an argument is next */
	int			 gives;		/* ... and is the program */
};

static const struct expand_prog expand_progs[] = {
	/* POSIX shells: -c makes the first operand the command string. */
	{ "sh", EXPAND_KIND_SH, EXPAND_PROG_STDIN, "o", NULL, NULL, NULL, 0 },
	{ "ash", EXPAND_KIND_SH, EXPAND_PROG_STDIN, "o", NULL, NULL, NULL, 0 },
	{ "dash", EXPAND_KIND_SH, EXPAND_PROG_STDIN, "o", NULL, NULL, NULL, 0 },
	{ "hush", EXPAND_KIND_SH, EXPAND_PROG_STDIN, "o", NULL, NULL, NULL, 0 },
	{ "posh", EXPAND_KIND_SH, EXPAND_PROG_STDIN, "o", NULL, NULL, NULL, 0 },
	{ "pdksh", EXPAND_KIND_SH, EXPAND_PROG_STDIN, "o", NULL, NULL, NULL,
	  0 },
	{ "oksh", EXPAND_KIND_SH, EXPAND_PROG_STDIN, "o", NULL, NULL, NULL, 0 },
	{ "loksh", EXPAND_KIND_SH, EXPAND_PROG_STDIN, "o", NULL, NULL, NULL,
	  0 },
	{ "yash", EXPAND_KIND_SH, EXPAND_PROG_STDIN, "o", NULL, NULL,
	  " rcfile=a profile=a", 0 },
	{ "bash", EXPAND_KIND_SH, EXPAND_PROG_STDIN, "oO", NULL, NULL,
	  " rcfile=a init-file=a", 0 },
	{ "ksh", EXPAND_KIND_SH, EXPAND_PROG_STDIN, "oRT", NULL, NULL, NULL,
	  0 },
	{ "mksh", EXPAND_KIND_SH, EXPAND_PROG_STDIN, "oRT", NULL, NULL, NULL,
	  0 },
	{ "zsh", EXPAND_KIND_SH, EXPAND_PROG_STDIN, "o", NULL, NULL, NULL, 0 },

	/* Shells whose quoting is not sh's. */
	{ "fish", EXPAND_KIND_FOREIGN, 0, NULL, NULL, NULL, NULL, 0 },
	{ "csh", EXPAND_KIND_FOREIGN, 0, NULL, NULL, NULL, NULL, 0 },
	{ "tcsh", EXPAND_KIND_FOREIGN, 0, NULL, NULL, NULL, NULL, 0 },
	{ "rc", EXPAND_KIND_FOREIGN, 0, NULL, NULL, NULL, NULL, 0 },
	{ "es", EXPAND_KIND_FOREIGN, 0, NULL, NULL, NULL, NULL, 0 },
	{ "nu", EXPAND_KIND_FOREIGN, 0, NULL, NULL, NULL, NULL, 0 },
	{ "xonsh", EXPAND_KIND_FOREIGN, 0, NULL, NULL, NULL, NULL, 0 },
	{ "elvish", EXPAND_KIND_FOREIGN, 0, NULL, NULL, NULL, NULL, 0 },
	{ "pwsh", EXPAND_KIND_FOREIGN, 0, NULL, NULL, NULL, NULL, 0 },
	{ "powershell", EXPAND_KIND_FOREIGN, 0, NULL, NULL, NULL, NULL, 0 },
	{ "ion", EXPAND_KIND_FOREIGN, 0, NULL, NULL, NULL, NULL, 0 },

	/* Interpreters: code in an option's argument, else a script. */
	{ "python", EXPAND_KIND_INTERP,
	  EXPAND_PROG_STDIN | EXPAND_PROG_CODE_ENDS, "WXQ", "cm", "cm",
	  " check-hash-based-pycs=a", 0 },
	{ "pypy", EXPAND_KIND_INTERP,
	  EXPAND_PROG_STDIN | EXPAND_PROG_CODE_ENDS, "WXQ", "cm", "cm",
	  " check-hash-based-pycs=a", 0 },
	{ "perl", EXPAND_KIND_INTERP, EXPAND_PROG_STDIN, "I", "eEMm", "eE",
	  NULL, 0 },
	{ "ruby", EXPAND_KIND_INTERP, EXPAND_PROG_STDIN, "CEIx", "er", "e",
	  NULL, 0 },
	{ "node", EXPAND_KIND_INTERP, EXPAND_PROG_STDIN, "C", "epr", "ep",
	  " eval=p print=p require=c import=c loader=c experimental-loader=c"
	  " input-type=a title=a conditions=a", 0 },
	{ "nodejs", EXPAND_KIND_INTERP, EXPAND_PROG_STDIN, "C", "epr", "ep",
	  " eval=p print=p require=c import=c loader=c experimental-loader=c"
	  " input-type=a title=a conditions=a", 0 },
	{ "php", EXPAND_KIND_INTERP, EXPAND_PROG_STDIN, "cdtzS", "rBREFf",
	  "rBREFf", NULL, 0 },
	{ "lua", EXPAND_KIND_INTERP, EXPAND_PROG_STDIN, "", "el", "e", NULL,
	  0 },
	{ "luajit", EXPAND_KIND_INTERP, EXPAND_PROG_STDIN, "", "el", "e", NULL,
	  0 },
	{ "Rscript", EXPAND_KIND_INTERP, 0, "", "e", "e", NULL, 0 },

	/* The program is the first operand unless an option gives it. */
	{ "awk", EXPAND_KIND_PROGRAM, 0, "FvW", "efEil", "efE",
	  " source=p file=p exec=p include=c load=c field-separator=a"
	  " assign=a", 0 },
	{ "gawk", EXPAND_KIND_PROGRAM, 0, "FvW", "efEil", "efE",
	  " source=p file=p exec=p include=c load=c field-separator=a"
	  " assign=a", 0 },
	{ "mawk", EXPAND_KIND_PROGRAM, 0, "FvW", "efEil", "efE",
	  " source=p file=p exec=p include=c load=c field-separator=a"
	  " assign=a", 0 },
	{ "nawk", EXPAND_KIND_PROGRAM, 0, "FvW", "efEil", "efE",
	  " source=p file=p exec=p include=c load=c field-separator=a"
	  " assign=a", 0 },
	{ "sed", EXPAND_KIND_PROGRAM, EXPAND_PROG_PERMUTE, "l", "ef", "ef",
	  " expression=p file=p line-length=a", 0 },

	/* Wrappers: they run the program named after their options. */
	{ "env", EXPAND_KIND_WRAPPER, EXPAND_PROG_ASSIGN, "uC", "S", "S",
	  " unset=a chdir=a split-string=p", 0 },
	{ "nice", EXPAND_KIND_WRAPPER, 0, "n", NULL, NULL, " adjustment=a",
	  0 },
	{ "nohup", EXPAND_KIND_WRAPPER, 0, NULL, NULL, NULL, NULL, 0 },
	{ "setsid", EXPAND_KIND_WRAPPER, 0, NULL, NULL, NULL, NULL, 0 },
	{ "stdbuf", EXPAND_KIND_WRAPPER, 0, "ioe", NULL, NULL,
	  " input=a output=a error=a", 0 },
	{ "timeout", EXPAND_KIND_WRAPPER, 0, "sk", NULL, NULL,
	  " signal=a kill-after=a", 1 },
	{ "busybox", EXPAND_KIND_WRAPPER, 0, NULL, NULL, NULL, NULL, 0 },
};
#define EXPAND_NPROGS	(sizeof expand_progs / sizeof expand_progs[0])

/* The long option's kind after its name in a " NAME=K" list. */
#define EXPAND_LONG_NONE	'\0'

static const char *expand_basename(const char *);
static const struct expand_prog *expand_prog_find(const char *);
static int	 expand_has(const char *, int);
static int	 expand_long(const char *, const char *);
static int	 expand_is_option(const char *, int);
static void	 expand_plan_rest(struct expand_plan *, size_t, size_t,
		     enum expand_role, size_t);
static void	 expand_plan_sh(char *const *, size_t, size_t,
		     struct expand_plan *);
static void	 expand_scan_gives(struct expand_scan *, int);
static void	 expand_scan_code_read(struct expand_scan *);
static int	 expand_scan_argument(struct expand_scan *, const char *,
		     enum expand_role *);
static void	 expand_scan_long(struct expand_scan *, const char *);
static void	 expand_scan_short(struct expand_scan *, const char *);
static enum expand_role expand_scan_operand(struct expand_scan *,
		     const char *);
static enum expand_role expand_scan_word(struct expand_scan *, const char *);
static int	 expand_scan_interp(const struct expand_prog *,
		     char *const *, size_t, size_t, struct expand_plan *,
		     int);
static size_t	 expand_plan_wrapper(const struct expand_prog *,
		     char *const *, size_t, size_t, struct expand_plan *);
static void	 expand_plan(char *const *, size_t, struct expand_plan *);
static void	 expand_plan_free(struct expand_plan *);
static int	 expand_role_flags(enum expand_role);
static char	*expand_why(enum expand_role, const char *, int);
static char	*expand_explain(char *, char *);
static char	*expand_check_class(enum expand_role, const char *,
		     const char *, const char *);
static char	*expand_word(const char *, char *const *,
		     const struct expand_plan *, size_t,
		     const struct expand_env *, void *,
		     const struct expand_param *, size_t, char **);
static void	 expand_words_add(struct expand_words *, const char *,
		     size_t);
static int	 expand_split(const char *, struct expand_words *);
static void	 expand_words_free(struct expand_words *);
static int	 expand_stricter(enum expand_role, enum expand_role);
static void	 expand_input_set(struct expand_input *, enum expand_role,
		     const char *);
static int	 expand_check_string(const char *,
		     const struct expand_param *, size_t,
		     struct expand_input *, char **);
static int	 expand_argv(const struct expand_command *,
		     const struct expand_env *, void *,
		     const struct expand_param *, size_t,
		     struct expand_result *, struct expand_input *, char **);
static int	 expand_string(const struct expand_command *,
		     const struct expand_env *, void *,
		     const struct expand_param *, size_t,
		     struct expand_result *, struct expand_input *, char **);

/* Return the last component of path. */
static const char *
expand_basename(const char *path)
{
	const char	*slash = strrchr(path, '/');

	return slash == NULL ? path : slash + 1;
}

/*
 * Return the program path names (its last component, maybe followed by a
 * version of digits and dots: python3.11), or NULL if it is not known.
 */
static const struct expand_prog *
expand_prog_find(const char *path)
{
	const char	*base = expand_basename(path), *v;
	size_t		 i, len;

	for (i = 0; i < EXPAND_NPROGS; i++) {
		len = strlen(expand_progs[i].name);
		if (strncmp(base, expand_progs[i].name, len) != 0)
			continue;
		for (v = base + len; (*v >= '0' && *v <= '9') || *v == '.'; v++)
			/* nothing */;
		if (*v == '\0')
			return &expand_progs[i];
	}
	return NULL;
}

/* Return 1 if letter c is in the option letters s (NULL: none). */
static int
expand_has(const char *s, int c)
{
	return s != NULL && c != '\0' && strchr(s, c) != NULL;
}

/*
 * Return the kind ('a', 'c' or 'p') of the long option word w ("--NAME"
 * or "--NAME=VALUE") in the " NAME=K" list longs, or EXPAND_LONG_NONE.
 */
static int
expand_long(const char *longs, const char *w)
{
	const char	*name = w + 2, *p;
	size_t		 len = strcspn(name, "=");

	for (p = longs; p != NULL && (p = strchr(p, ' ')) != NULL; p++) {
		if (strncmp(p + 1, name, len) == 0 && p[1 + len] == '=')
			return (unsigned char)p[2 + len];
	}
	return EXPAND_LONG_NONE;
}

/* Return 1 if w is an option word: '-' (or '+' if plus) and more. */
static int
expand_is_option(const char *w, int plus)
{
	return (w[0] == '-' || (plus && w[0] == '+')) && w[1] != '\0';
}

/* Give words from..n-1 the role role, read by the word reader. */
static void
expand_plan_rest(struct expand_plan *plan, size_t from, size_t n,
    enum expand_role role, size_t reader)
{
	size_t	i;

	for (i = from; i < n; i++) {
		plan->role[i] = role;
		plan->reader[i] = reader;
	}
}

/*
 * Plan the words after the POSIX shell at word at: options, then the
 * command string (with -c) or the script, then data.
 */
static void
expand_plan_sh(char *const *w, size_t n, size_t at, struct expand_plan *plan)
{
	const struct expand_prog	*p = expand_prog_find(w[at]);
	const char			*c;
	size_t				 i = at + 1;
	u_int				 pending = 0;
	int				 cflag = 0, sflag = 0;

	for (; i < n; i++) {
		plan->reader[i] = at;
		plan->role[i] = EXPAND_ROLE_OPTION;
		if (pending > 0) {
			/* One that looks like an option is read as both. */
			pending--;
			if (!expand_is_option(w[i], 1))
				continue;
		}
		if (strcmp(w[i], "--") == 0 || strcmp(w[i], "-") == 0) {
			i++;
			break;
		}
		if (strncmp(w[i], "--", 2) == 0) {
			if (strchr(w[i], '=') == NULL &&
			    expand_long(p->longs, w[i]) == 'a')
				pending++;
			continue;
		}
		if (!expand_is_option(w[i], 1))
			break;
		for (c = w[i] + 1; *c != '\0'; c++) {
			if (*c == 'c')
				cflag = 1;
			else if (*c == 's')
				sflag = 1;
			else if (expand_has(p->arg, *c))
				pending++;
		}
	}
	plan->input = EXPAND_ROLE_DATA;
	plan->input_reader = at;
	if (i < n) {
		plan->reader[i] = at;
		plan->role[i] = cflag ? EXPAND_ROLE_SHELL : EXPAND_ROLE_OPERAND;
		expand_plan_rest(plan, i + 1, n, EXPAND_ROLE_DATA, at);
		if (!cflag && sflag)
			plan->input = EXPAND_ROLE_SHELL;
	} else if (!cflag)
		plan->input = EXPAND_ROLE_SHELL;
}

/* Note whether the option just read gives the program (gives). */
static void
expand_scan_gives(struct expand_scan *sc, int gives)
{
	sc->gives = gives;
	sc->have_prog |= gives;
	sc->opt_prog |= gives;
}

/* The code giving the program was read: some programs' options end. */
static void
expand_scan_code_read(struct expand_scan *sc)
{
	if (sc->gives && (sc->p->flags & EXPAND_PROG_CODE_ENDS))
		sc->options = 0;
}

/*
 * Read w as the argument an option awaits, into *role; return 0 if it
 * looks like an option instead (read as one, to be safe).
 */
static int
expand_scan_argument(struct expand_scan *sc, const char *w,
    enum expand_role *role)
{
	sc->waiting = 0;
	if (expand_is_option(w, 0) && sc->options)
		return 0;
	*role = sc->pending;
	if (sc->gives && (strcmp(w, "-") == 0 || strcmp(w, "/dev/stdin") == 0))
		sc->from_stdin = 1;
	expand_scan_code_read(sc);
	return 1;
}

/* Read the long option w ("--NAME" or "--NAME=VALUE"). */
static void
expand_scan_long(struct expand_scan *sc, const char *w)
{
	int	k;

	k = expand_long(sc->p->longs, w);
	expand_scan_gives(sc, k == 'p');
	if (strchr(w, '=') == NULL && k != EXPAND_LONG_NONE) {
		sc->waiting = 1;
		sc->pending = k == 'a' ? EXPAND_ROLE_DATA : EXPAND_ROLE_CODE;
	} else
		expand_scan_code_read(sc);
}

/*
 * Read the cluster of short options w; a code letter anywhere counts
 * (perl -lne), and its argument is the rest of the word or the next one.
 */
static void
expand_scan_short(struct expand_scan *sc, const char *w)
{
	const char	*c, *code = NULL, *arg = NULL;

	for (c = w + 1; *c != '\0' && code == NULL; c++) {
		if (expand_has(sc->p->code, *c))
			code = c;
		else if (arg == NULL && expand_has(sc->p->arg, *c))
			arg = c;
	}
	if (code != NULL) {
		expand_scan_gives(sc, expand_has(sc->p->prog, *code));
		if (code[1] == '\0') {
			sc->waiting = 1;
			sc->pending = EXPAND_ROLE_CODE;
		} else
			expand_scan_code_read(sc);
	} else if (arg != NULL && arg[1] == '\0') {
		sc->waiting = 1;
		sc->gives = 0;
		sc->pending = EXPAND_ROLE_DATA;
	}
}

/*
 * Return the role of the operand w: the first is the program (awk's
 * code, or an interpreter's script) unless an option gave one.
 */
static enum expand_role
expand_scan_operand(struct expand_scan *sc, const char *w)
{
	enum expand_role	role;
	int			permute = sc->p->flags & EXPAND_PROG_PERMUTE;

	role = permute && sc->options ? EXPAND_ROLE_OPERAND : EXPAND_ROLE_DATA;
	if (sc->operands++ == 0 && !sc->have_prog) {
		if (sc->p->kind == EXPAND_KIND_PROGRAM)
			role = EXPAND_ROLE_CODE;
		else {
			role = EXPAND_ROLE_OPERAND;
			sc->script = 1;
			sc->from_stdin = strcmp(w, "-") == 0;
		}
		sc->have_prog = 1;
	}
	if (!permute)
		sc->options = 0;
	return role;
}

/* Read the next word w of the scan; return its role. */
static enum expand_role
expand_scan_word(struct expand_scan *sc, const char *w)
{
	enum expand_role	role = EXPAND_ROLE_OPTION;

	if (sc->waiting && expand_scan_argument(sc, w, &role))
		return role;
	if (sc->options && strcmp(w, "--") == 0)
		sc->options = 0;
	else if (sc->options && strncmp(w, "--", 2) == 0)
		expand_scan_long(sc, w);
	else if (sc->options && expand_is_option(w, 0))
		expand_scan_short(sc, w);
	else
		role = expand_scan_operand(sc, w);
	return role;
}

/*
 * Scan the words after the interpreter or program p at word at, setting
 * their roles if set is 1; return 1 if an option gives p its program.
 */
static int
expand_scan_interp(const struct expand_prog *p, char *const *w, size_t n,
    size_t at, struct expand_plan *plan, int set)
{
	struct expand_scan	 sc;
	enum expand_role	 role;
	size_t			 i;

	memset(&sc, 0, sizeof sc);
	sc.p = p;
	sc.pending = EXPAND_ROLE_DATA;
	sc.options = 1;
	/* GNU getopt takes options after operands: look ahead for them. */
	if (set && (p->flags & EXPAND_PROG_PERMUTE))
		sc.have_prog = expand_scan_interp(p, w, n, at, plan, 0);

	for (i = at + 1; i < n; i++) {
		role = expand_scan_word(&sc, w[i]);
		if (set) {
			plan->role[i] = role;
			plan->reader[i] = at;
		}
	}
	if (set) {
		plan->input_reader = at;
		plan->input = EXPAND_ROLE_DATA;
		if (sc.from_stdin || ((p->flags & EXPAND_PROG_STDIN) &&
		    !sc.have_prog && !sc.script))
			plan->input = EXPAND_ROLE_CODE;
	}
	return sc.opt_prog;
}

/*
 * Plan the words of wrapper p at word at up to the program it runs, and
 * return that program's word (n if there is none, or if nothing after can
 * be followed: env -S).
 */
static size_t
expand_plan_wrapper(const struct expand_prog *p, char *const *w, size_t n,
    size_t at, struct expand_plan *plan)
{
	const char	*c;
	size_t		 i = at + 1;
	u_int		 pending = 0, skip;
	int		 k;

	for (; i < n; i++) {
		plan->reader[i] = at;
		plan->role[i] = EXPAND_ROLE_OPTION;
		if (pending > 0) {
			pending--;
			if (!expand_is_option(w[i], 0))
				continue;
		}
		if (strcmp(w[i], "--") == 0) {
			i++;
			break;
		}
		if ((p->flags & EXPAND_PROG_ASSIGN) && strcmp(w[i], "-") == 0)
			continue;
		if (strncmp(w[i], "--", 2) == 0) {
			k = expand_long(p->longs, w[i]);
			if (k == 'p')
				goto code;
			if (k == 'a' && strchr(w[i], '=') == NULL)
				pending++;
			continue;
		}
		if (!expand_is_option(w[i], 0))
			break;
		for (c = w[i] + 1; *c != '\0'; c++) {
			if (expand_has(p->code, *c))
				goto code;
			if (expand_has(p->arg, *c)) {
				if (c[1] == '\0')
					pending++;
				break;
			}
		}
	}
	if (p->flags & EXPAND_PROG_ASSIGN) {
		for (; i < n && strchr(w[i], '=') != NULL; i++) {
			plan->reader[i] = at;
			plan->role[i] = EXPAND_ROLE_ASSIGN;
		}
	}
	for (skip = 0; skip < p->skip && i < n; skip++, i++) {
		plan->reader[i] = at;
		plan->role[i] = EXPAND_ROLE_OPTION;
	}
	return i;

code:
	/* env -S: its text is split into the command, not followed here. */
	expand_plan_rest(plan, i, n, EXPAND_ROLE_CODE, at);
	plan->input = EXPAND_ROLE_CODE;
	plan->input_reader = at;
	return n;
}

/*
 * Give each of the n words w (w[0] the program; their text without
 * {name} values) and the input a role; see the top of the file.
 */
static void
expand_plan(char *const *w, size_t n, struct expand_plan *plan)
{
	const struct expand_prog	*p;
	size_t				 at = 0;

	plan->role = xcalloc(n + 1, sizeof *plan->role);
	plan->reader = xcalloc(n + 1, sizeof *plan->reader);
	plan->input = EXPAND_ROLE_DATA;
	plan->input_reader = 0;
	plan->strict = 0;
	while (at < n) {
		/* A wrapped program's word is read by its wrapper. */
		plan->role[at] = EXPAND_ROLE_PROGRAM;
		if (at == 0)
			plan->reader[at] = at;
		plan->input_reader = at;
		if ((p = expand_prog_find(w[at])) == NULL) {
			expand_plan_rest(plan, at + 1, n, EXPAND_ROLE_DATA, at);
			return;
		}
		switch (p->kind) {
		case EXPAND_KIND_SH:
			expand_plan_sh(w, n, at, plan);
			return;
		case EXPAND_KIND_FOREIGN:
			expand_plan_rest(plan, at + 1, n, EXPAND_ROLE_CODE, at);
			plan->input = EXPAND_ROLE_CODE;
			return;
		case EXPAND_KIND_INTERP:
		case EXPAND_KIND_PROGRAM:
			expand_scan_interp(p, w, n, at, plan, 1);
			return;
		case EXPAND_KIND_WRAPPER:
			at = expand_plan_wrapper(p, w, n, at, plan);
			break;
		}
	}
}

/* Free what expand_plan() allocated. */
static void
expand_plan_free(struct expand_plan *plan)
{
	free(plan->role);
	free(plan->reader);
}

/* Return the expand_text() flags for a word of role. */
static int
expand_role_flags(enum expand_role role)
{
	switch (role) {
	case EXPAND_ROLE_OPTION:
	case EXPAND_ROLE_CODE:
		return EXPAND_NO_PARAMS;
	case EXPAND_ROLE_SHELL:
		return EXPAND_SHELL;
	default:
		return 0;
	}
}

/*
 * Return why a word of role that program reads (a path) gets no value,
 * for the front of the message; input is set for the job's input.
 */
static char *
expand_why(enum expand_role role, const char *program, int input)
{
	const struct expand_prog	*p = expand_prog_find(program);
	const char			*base = expand_basename(program);

	if (role == EXPAND_ROLE_OPTION)
		return xprintf("%s reads this word as an option", base);
	if (p != NULL && p->kind == EXPAND_KIND_FOREIGN)
		return xprintf("%s reads %s as code and is not a POSIX shell",
		    base, input ? "its input" : "this word");
	if (p != NULL && p->kind == EXPAND_KIND_WRAPPER)
		return xprintf("%s -S splits this word into a command", base);
	if (input)
		return xprintf("%s reads its input as code", base);
	return xprintf("%s reads this word as code (hand it values as "
	    "arguments of their own, or in env)", base);
}

/*
 * Return msg, an error of expand_text(), with front (NULL: none) before it
 * if it is EXPAND_NO_PARAMS refusing a value, and not if it is another
 * error (a bad template); msg and front are freed.
 */
static char *
expand_explain(char *msg, char *front)
{
	char	*r;

	if (front == NULL || strncmp(msg, "cannot use ", 11) != 0) {
		free(front);
		return msg;
	}
	r = xprintf("%s: %s", front, msg);
	free(front);
	free(msg);
	return r;
}

/*
 * Check that value, a word of role whose text without values is fixed,
 * is still what fixed is; NULL, or why not (for the caller to free).
 * program names the program reading the word.
 */
static char *
expand_check_class(enum expand_role role, const char *fixed,
    const char *value, const char *program)
{
	const struct expand_prog	*p, *q;
	const char			*base = expand_basename(program);
	size_t				 flen, vlen;

	switch (role) {
	case EXPAND_ROLE_PROGRAM:
		p = expand_prog_find(fixed);
		q = expand_prog_find(value);
		if (p != q)
			return xprintf("a {name} value would make the program "
			    "%s, which reads its words differently: write the "
			    "program's name out", expand_basename(value));
		/* FALLTHROUGH */
	case EXPAND_ROLE_OPERAND:
		if ((value[0] == '-' || value[0] == '+') &&
		    value[0] != fixed[0])
			return xprintf("a {name} value would make this word "
			    "an option of %s", base);
		if (role == EXPAND_ROLE_PROGRAM &&
		    strchr(value, '=') != NULL && strchr(fixed, '=') == NULL)
			return xprintf("a {name} value would make this word "
			    "an assignment of %s", base);
		return NULL;
	case EXPAND_ROLE_ASSIGN:
		flen = strcspn(fixed, "=");
		vlen = strcspn(value, "=");
		if (flen != vlen || memcmp(fixed, value, flen) != 0)
			return xprintf("a {name} value would change the name "
			    "this word sets for %s", base);
		return NULL;
	default:
		return NULL;
	}
}

/*
 * Expand word i (template t, without values fixed[i]) for its role in
 * plan; return it, or NULL with *why set to a message without the field.
 */
static char *
expand_word(const char *t, char *const *fixed, const struct expand_plan *plan,
    size_t i, const struct expand_env *env, void *arg,
    const struct expand_param *params, size_t nparams, char **why)
{
	enum expand_role	 role = plan->role[i];
	const char		*program = fixed[plan->reader[i]];
	char			*value, *msg = NULL;

	value = expand_text(t, env, arg, params, nparams,
	    expand_role_flags(role) | plan->strict, &msg);
	if (value == NULL) {
		*why = expand_explain(msg, expand_role_flags(role) ==
		    EXPAND_NO_PARAMS ? expand_why(role, program, 0) : NULL);
		return NULL;
	}
	if ((*why = expand_check_class(role, fixed[i], value, program)) !=
	    NULL) {
		free(value);
		return NULL;
	}
	return value;
}

/* Append the word s (len bytes) to w. */
static void
expand_words_add(struct expand_words *w, const char *s, size_t len)
{
	if (w->n + 1 >= w->size) {
		w->size = w->size == 0 ? 8 : w->size * 2;
		w->word = xreallocarray(w->word, w->size, sizeof *w->word);
	}
	w->word[w->n++] = xstrndup(s, len);
	w->word[w->n] = NULL;
}

/*
 * Split the command string s into commands and words, if it is simple
 * (see the top of the file); return 0, or -1 if it is not.  The words
 * have their quotes removed.
 */
static int
expand_split(const char *s, struct expand_words *w)
{
	char	*buf;
	size_t	 len = 0;
	int	 in_word = 0, r = -1;

	memset(w, 0, sizeof *w);
	buf = xmalloc(strlen(s) + 1);
	w->start = xcalloc(strlen(s) + 2, sizeof *w->start);
	w->start[w->ncmds++] = 0;
	for (;; s++) {
		if (*s == '\'') {
			in_word = 1;
			while (*++s != '\'') {
				if (*s == '\0')
					goto out;
				buf[len++] = *s;
			}
			continue;
		}
		if (*s == '"') {
			in_word = 1;
			while (*++s != '"') {
				if (*s == '\0' || *s == '$' || *s == '`')
					goto out;
				if (*s == '\\' && s[1] != '\0' &&
				    strchr("\"\\\n", s[1]) != NULL) {
					if (*++s == '\n')
						goto out;
				}
				buf[len++] = *s;
			}
			continue;
		}
		if (*s == '\\') {
			if (s[1] == '\0' || s[1] == '\n')
				goto out;
			in_word = 1;
			buf[len++] = *++s;
			continue;
		}
		if (*s == '\0' || *s == ' ' || *s == '\t' || *s == '\n' ||
		    *s == ';' || *s == '&' || *s == '|') {
			if (in_word)
				expand_words_add(w, buf, len);
			in_word = 0;
			len = 0;
			if (*s == '\0')
				break;
			if (*s != ' ' && *s != '\t' &&
			    w->start[w->ncmds - 1] != w->n)
				w->start[w->ncmds++] = w->n;
			continue;
		}
		if (strchr("$`<>()*?[]#~!", *s) != NULL)
			goto out;
		in_word = 1;
		buf[len++] = *s;
	}
	w->start[w->ncmds] = w->n;
	r = 0;
out:
	free(buf);
	if (r != 0)
		expand_words_free(w);
	return r;
}

/* Free what expand_split() made. */
static void
expand_words_free(struct expand_words *w)
{
	size_t	i;

	for (i = 0; i < w->n; i++)
		free(w->word[i]);
	free(w->word);
	free(w->start);
	memset(w, 0, sizeof *w);
}

/* Return 1 if the input role a is stricter than b. */
static int
expand_stricter(enum expand_role a, enum expand_role b)
{
	static const int	rank[] = {
		[EXPAND_ROLE_DATA] = 0,
		[EXPAND_ROLE_SHELL] = 1,
		[EXPAND_ROLE_CODE] = 2,
	};

	return rank[a] > rank[b];
}

/*
 * Read the command string fixed (its text without values) for what its
 * programs do with nested code and with the input: check each word's
 * values against its role, and set *input to the strictest input role.
 * Return 0, or -1 with *why set (a message without the field).
 */
static int
expand_check_string(const char *fixed, const struct expand_param *params,
    size_t nparams, struct expand_input *input, char **why)
{
	struct expand_words	 w;
	struct expand_plan	 plan;
	enum expand_role	 role;
	char			*value, *msg, *front, *e;
	const char		*program;
	size_t			 c, first, last, i;
	int			 r = 0;

	if (expand_split(fixed, &w) != 0)
		return 0;
	for (c = 0; r == 0 && c < w.ncmds; c++) {
		first = w.start[c];
		last = w.start[c + 1];
		while (first < last && (strcmp(w.word[first], "exec") == 0 ||
		    (strchr(w.word[first], '=') != NULL &&
		    name_is_ident(w.word[first],
		    strcspn(w.word[first], "=")))))
			first++;
		if (first == last)
			continue;
		expand_plan(w.word + first, last - first, &plan);
		if (expand_stricter(plan.input, input->role))
			expand_input_set(input, plan.input,
			    w.word[first + plan.input_reader]);
		for (i = 0; r == 0 && i < last - first; i++) {
			role = plan.role[i];
			program = w.word[first + plan.reader[i]];
			msg = NULL;
			if (role == EXPAND_ROLE_SHELL)
				role = EXPAND_ROLE_CODE;
			value = expand_text(w.word[first + i], NULL, NULL,
			    params, nparams, expand_role_flags(role), &msg);
			if (value == NULL) {
				e = textesc_excerpt(w.word[first + i],
				    strlen(w.word[first + i]), 32);
				if (role == EXPAND_ROLE_CODE)
					front = xprintf("%s reads the word "
					    "'%s' as code, where the quoting "
					    "of values for the shell is undone "
					    "(put the words in args instead)",
					    expand_basename(program), e);
				else
					front = xprintf("%s reads the word "
					    "'%s' as an option",
					    expand_basename(program), e);
				*why = xprintf("%s: %s", front, msg);
				free(front);
				free(e);
				free(msg);
				r = -1;
				break;
			}
			*why = expand_check_class(role, w.word[first + i],
			    value, program);
			free(value);
			if (*why != NULL)
				r = -1;
		}
		expand_plan_free(&plan);
	}
	expand_words_free(&w);
	return r;
}

/*
 * Expand the program and arguments of c (args set) into res, and set
 * *input to how the input is read; 0, or -1 with *why and res->field.
 */
static int
expand_argv(const struct expand_command *c, const struct expand_env *env,
    void *arg, const struct expand_param *params, size_t nparams,
    struct expand_result *res, struct expand_input *input, char **why)
{
	struct expand_plan	 plan;
	const char		*t;
	size_t			 i, n = c->nargs + 1;
	char			*w, **fixed;
	int			 r = -1;

	fixed = xcalloc(n, sizeof *fixed);
	for (i = 0; i < n; i++) {
		t = i == 0 ? c->command : c->args[i - 1];
		if ((fixed[i] = expand_text(t, env, arg, NULL, 0, 0,
		    why)) == NULL) {
			res->field = i == 0 ? EXPAND_IN_COMMAND : EXPAND_IN_ARG;
			res->index = i == 0 ? 0 : i - 1;
			goto out;
		}
	}
	expand_plan(fixed, n, &plan);
	plan.strict = c->strict ? EXPAND_STRICT : 0;
	expand_input_set(input, plan.input, fixed[plan.input_reader]);
	res->args = xcalloc(n, sizeof *res->args);
	res->nargs = c->nargs;
	for (i = 0; i < n; i++) {
		t = i == 0 ? c->command : c->args[i - 1];
		w = expand_word(t, fixed, &plan, i, env, arg, params, nparams,
		    why);
		if (w == NULL) {
			res->field = i == 0 ? EXPAND_IN_COMMAND : EXPAND_IN_ARG;
			res->index = i == 0 ? 0 : i - 1;
			break;
		}
		if (i == 0)
			res->command = w;
		else
			res->args[i - 1] = w;
	}
	expand_plan_free(&plan);
	if (i == n)
		r = 0;
out:
	for (i = 0; i < n; i++)
		free(fixed[i]);
	free(fixed);
	return r;
}

/* Set how the input is read: role, by the program reader (a path). */
static void
expand_input_set(struct expand_input *input, enum expand_role role,
    const char *reader)
{
	input->role = role;
	free(input->reader);
	input->reader = xstrdup(reader);
}

/*
 * Expand the command string of c into res: quoted for c->shell if it is a
 * POSIX shell (or not known yet), with no value if not; then read it for
 * nested code and the input.  0, or -1 with *why.
 */
static int
expand_string(const struct expand_command *c, const struct expand_env *env,
    void *arg, const struct expand_param *params, size_t nparams,
    struct expand_result *res, struct expand_input *input, char **why)
{
	const struct expand_prog	*sh = NULL;
	char				*msg = NULL, *text;
	int				 flags = EXPAND_SHELL, r;

	if (c->shell != NULL && ((sh = expand_prog_find(c->shell)) == NULL ||
	    sh->kind != EXPAND_KIND_SH))
		flags = EXPAND_NO_PARAMS;
	res->command = expand_text(c->command, env, arg, params, nparams,
	    flags | (c->strict ? EXPAND_STRICT : 0), &msg);
	if (res->command == NULL) {
		*why = expand_explain(msg, flags != EXPAND_NO_PARAMS ? NULL :
		    xprintf("{name} values are quoted for sh and %s is not a "
		    "POSIX shell (set shell = \"/bin/sh\", or use args)",
		    c->shell));
		return -1;
	}
	if ((text = expand_text(c->command, env, arg, NULL, 0, 0,
	    why)) == NULL)
		return -1;
	r = expand_check_string(text, params, nparams, input, why);
	free(text);
	return r;
}

/*
 * Expand a job's command, arguments and input into res, each for the
 * program that reads it (see the top of the file); env, arg, params and
 * nparams are as for expand_text().  Return 0, or -1 with *cause set
 * ("args: ...") and res->field and res->index saying where.
 */
int
expand_command(const struct expand_command *c, const struct expand_env *env,
    void *arg, const struct expand_param *params, size_t nparams,
    struct expand_result *res, char **cause)
{
	struct expand_input	 input = { EXPAND_ROLE_DATA, NULL };
	char			*why = NULL, *msg = NULL;
	int			 flags = 0;

	memset(res, 0, sizeof *res);
	if (c->args != NULL) {
		if (expand_argv(c, env, arg, params, nparams, res, &input,
		    &why) != 0)
			goto fail;
	} else if (expand_string(c, env, arg, params, nparams, res, &input,
	    &why) != 0)
		goto fail;

	if (c->input != NULL) {
		if (input.role == EXPAND_ROLE_SHELL)
			flags = EXPAND_SHELL | (c->terminal ? EXPAND_TERMINAL :
			    0);
		else if (input.role == EXPAND_ROLE_CODE)
			flags = EXPAND_NO_PARAMS;
		res->input = expand_text(c->input, env, arg, params, nparams,
		    flags | (c->strict ? EXPAND_STRICT : 0), &msg);
		if (res->input == NULL) {
			res->field = EXPAND_IN_INPUT;
			why = expand_explain(msg, flags != EXPAND_NO_PARAMS ?
			    NULL : expand_why(input.role, input.reader, 1));
			*cause = xprintf("input: %s", why);
			free(why);
			free(input.reader);
			expand_result_clear(res);
			return -1;
		}
	}
	free(input.reader);
	return 0;

fail:
	*cause = xprintf("%s: %s", res->field == EXPAND_IN_ARG ? "args" :
	    "command", why);
	free(why);
	free(input.reader);
	expand_result_clear(res);
	return -1;
}

/* Free what expand_command() put in res. */
void
expand_result_clear(struct expand_result *res)
{
	size_t	i;

	free(res->command);
	for (i = 0; res->args != NULL && i < res->nargs; i++)
		free(res->args[i]);
	free(res->args);
	free(res->input);
	res->command = NULL;
	res->args = NULL;
	res->input = NULL;
}
