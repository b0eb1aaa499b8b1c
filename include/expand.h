/*
 * expand: the configuration's templating for a job's command, each of its
 * arguments, its cwd, its environment and its input.  ${VAR} and
 * ${VAR:-default} come from an environment lookup the caller provides;
 * {name} comes from a list of parameters.  Nothing goes through a shell,
 * substituted text is never expanded again, and with EXPAND_SHELL
 * parameter values are quoted so that `sh -c` sees each one as exactly its
 * text.  The rules are at the top of src/expand.c.
 *
 * expand_command() (src/expand-argv.c) expands a job's command, arguments
 * and input together, each for the program that reads it: a POSIX shell's
 * command string (the command itself, the word after sh -c, a shell's
 * input) gets EXPAND_SHELL, code that no quoting protects (another shell's,
 * python -c, awk's program...) gets no {name} value at all, and data gets
 * values verbatim; the rules are at the top of that file.
 *
 * expand has no global state, never prints and never exits; errors come
 * back in *cause.
 *
 * Ownership: the caller owns text, the env callbacks, arg, params and
 * the struct expand_command, none of which expand keeps.
 * expand_text() and expand_shell_quote() return a string, and set *cause
 * to a message, that the caller frees with free(); expand_command() fills
 * a struct expand_result the caller empties with expand_result_clear().
 */
#ifndef JOBDECK_EXPAND_H
#define JOBDECK_EXPAND_H

#include <stddef.h>

/* Limits: the size of a result, and how deep ${...:-${...}} may nest. */
#define EXPAND_MAX_OUTPUT	(1024 * 1024)
#define EXPAND_MAX_DEPTH	8

/*
 * The environment lookup: return name's value, or NULL when it is unset.
 * The pointer need only stay valid until the next call.  The struct or its
 * get member may be NULL, and then every name is unset.
 */
struct expand_env {
	const char	*(*get)(const char *name, void *arg);
};

/* One {key} parameter; the first of several with the same key wins. */
struct expand_param {
	const char	*key;
	const char	*value;		/* NULL counts as "" */
};

#define EXPAND_SHELL	0x1	/* text is for sh -c: quote parameter values */
#define EXPAND_NO_PARAMS 0x2	/* a {name} that has a parameter is an */
				/*   error: "cannot use {x} at column N here" */
#define EXPAND_TERMINAL	0x4	/* with EXPAND_SHELL: the text is typed into */
				/*   a terminal, so a value must be printable */
				/*   ASCII or newlines */
#define EXPAND_STRICT	0x8	/* a {name} with no parameter is an error, */
				/*   "no value for {x} at column N" (not */
				/*   with EXPAND_NO_PARAMS, nor a shell's \{x}) */

/*
 * A job's command for expand_command(): a program and its arguments, or
 * (args NULL) a command string that shell runs with -c; and the input
 * written to it.  Every string is a template.
 */
struct expand_command {
	const char	*command;
	char *const	*args;		/* NULL: command is a command string */
	size_t		 nargs;
	const char	*input;		/* NULL: none */
	const char	*shell;		/* runs a command string; NULL: not */
					/*   known yet (a check at load time) */
	int		 terminal;	/* the input goes through a terminal */
	int		 strict;	/* EXPAND_STRICT where values go */
};

/* Which template an error of expand_command() is in. */
enum expand_field {
	EXPAND_IN_COMMAND,
	EXPAND_IN_ARG,			/* args[index] */
	EXPAND_IN_INPUT
};

/* What expand_command() gives back. */
struct expand_result {
	char		 *command;
	char		**args;		/* nargs + 1, NULL-terminated; NULL */
	size_t		  nargs;	/*   when args was */
	char		 *input;	/* NULL when input was */
	enum expand_field field;	/* on error, where */
	size_t		  index;
};

char	*expand_text(const char *text, const struct expand_env *env,
	     void *arg, const struct expand_param *params, size_t nparams,
	     int flags, char **cause);
char	*expand_shell_quote(const char *value);
char	*expand_shell_join(char *const *words);

int	 expand_command(const struct expand_command *,
	     const struct expand_env *env, void *arg,
	     const struct expand_param *params, size_t nparams,
	     struct expand_result *, char **cause);
void	 expand_result_clear(struct expand_result *);

#endif
