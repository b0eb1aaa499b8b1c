/*
 * expand: the configuration's templating for a job's command, each of its
 * arguments, its cwd and its input.  ${VAR} and ${VAR:-default} come from
 * an environment lookup the caller provides; {name} comes from a list of
 * parameters.  Nothing goes through a shell, substituted text is never
 * expanded again, and with EXPAND_SHELL parameter values are quoted so that
 * `sh -c` sees each one as exactly its text.  The rules are at the top of
 * src/expand.c.  It has no global state, never prints and never exits;
 * errors come back in *cause.
 *
 * Ownership: the caller owns text, the env callbacks, arg and params, none
 * of which expand keeps.  expand_text() and expand_shell_quote() return a
 * string, and set *cause to a message, that the caller frees with free().
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

char	*expand_text(const char *text, const struct expand_env *env,
	     void *arg, const struct expand_param *params, size_t nparams,
	     int flags, char **cause);
char	*expand_shell_quote(const char *value);
char	*expand_shell_join(char *const *words);

#endif
