/*
 * cmd-session.c: the commands of the session: cd, export and unset (with
 * or without !), which go to the session shell when there is one and are
 * built in when not, and !session, which shows the state: the cwd, the
 * variables set or removed relative to jobdeck's own environment, and
 * the session shell's aliases and function names.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "expand.h"
#include "json.h"
#include "session.h"
#include "sessionsh.h"
#include "xmalloc.h"

extern char **environ;

static void	cmd_cd_exec(struct cmd_ctx *, int, char **);
static void	cmd_export_exec(struct cmd_ctx *, int, char **);
static void	cmd_unset_exec(struct cmd_ctx *, int, char **);
static void	cmd_session_exec(struct cmd_ctx *, int, char **);

const struct cmd_entry cmd_cd_entry = {
	.name = "cd",
	.args = "[DIR | -]",
	.help = "change the directory later jobs start in ($HOME by default)",
	.min_args = 0,
	.max_args = 1,
	.flags = CMD_BARE,
	.exec = cmd_cd_exec,
};

const struct cmd_entry cmd_export_entry = {
	.name = "export",
	.args = "NAME=VALUE...",
	.help = "set environment variables for later jobs",
	.min_args = 1,
	.max_args = -1,
	.flags = CMD_BARE,
	.exec = cmd_export_exec,
};

const struct cmd_entry cmd_unset_entry = {
	.name = "unset",
	.args = "NAME...",
	.help = "remove environment variables for later jobs",
	.min_args = 1,
	.max_args = -1,
	.flags = CMD_BARE,
	.exec = cmd_unset_exec,
};

const struct cmd_entry cmd_session_entry = {
	.name = "session",
	.help = "show the session: cwd, variables set or removed, aliases, "
	    "functions",
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_READ_ONLY,
	.exec = cmd_session_exec,
};

/*
 * Hand argv (a cd, export or unset) to the session shell as a line, each
 * word quoted; 1 if it went there, 0 when there is no session shell.
 */
static int
cmd_session_argv(struct cmd_ctx *ctx, int argc, char **argv)
{
	char	*line, *q, *tmp;
	int	 i;

	if (ctx->sessionsh == NULL)
		return 0;
	line = xstrdup(argv[0]);
	for (i = 1; i < argc; i++) {
		q = expand_shell_quote(argv[i]);
		tmp = xprintf("%s %s", line, q);
		free(q);
		free(line);
		line = tmp;
	}
	cmd_session_line(ctx, line);
	free(line);
	return 1;
}

/* cd [DIR | -]: change the session's directory. */
static void
cmd_cd_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	char	*cause = NULL;

	if (cmd_session_argv(ctx, argc, argv))
		return;
	if (session_cd(ctx->session, argc > 1 ? argv[1] : NULL, &cause) != 0) {
		cmd_error(ctx, "%s", cause);
		free(cause);
		return;
	}
	cmd_message(ctx, "%s", session_cwd(ctx->session));
}

/*
 * Run an export or unset: in the session shell if there is one, else
 * apply fn to each argument in turn, stopping at the first error.
 */
static void
cmd_session_each(struct cmd_ctx *ctx, int argc, char **argv,
    int (*fn)(struct session *, const char *, char **))
{
	char	*cause = NULL;
	int	 i;

	if (cmd_session_argv(ctx, argc, argv))
		return;
	for (i = 1; i < argc; i++) {
		if (fn(ctx->session, argv[i], &cause) != 0) {
			cmd_error(ctx, "%s", cause);
			free(cause);
			return;
		}
	}
}

/* export NAME=VALUE...: set variables in the session's environment. */
static void
cmd_export_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	cmd_session_each(ctx, argc, argv, session_export);
}

/* unset NAME...: remove variables from the session's environment. */
static void
cmd_unset_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	cmd_session_each(ctx, argc, argv, session_unset);
}

/* Return the value of NAME (the part of entry before '=') in env, or NULL. */
static const char *
cmd_session_lookup(char *const *env, const char *entry)
{
	size_t	len = strcspn(entry, "=");
	int	i;

	for (i = 0; env != NULL && env[i] != NULL; i++) {
		if (strncmp(env[i], entry, len) == 0 && env[i][len] == '=')
			return env[i] + len + 1;
	}
	return NULL;
}

/*
 * Whether a variable is the session's own bookkeeping, not the user's:
 * PWD and OLDPWD follow the cwd, BASH_ENV carries aliases and functions.
 */
static int
cmd_session_hidden(const char *entry)
{
	size_t	len = strcspn(entry, "=");

	return (len == 3 && strncmp(entry, "PWD", 3) == 0) ||
	    (len == 6 && strncmp(entry, "OLDPWD", 6) == 0) ||
	    (len == 8 && strncmp(entry, "BASH_ENV", 8) == 0);
}

/* Add a line to a growing array of lines. */
static void
cmd_session_add(char ***lines, int *n, char *line)
{
	*lines = xreallocarray(*lines, (size_t)*n + 1, sizeof **lines);
	(*lines)[(*n)++] = line;
}

/*
 * Whether the entry of the session's environment is one the session set:
 * not bookkeeping, and not jobdeck's own variable with the same value.
 */
static int
cmd_session_is_set(const char *entry)
{
	const char	*v = cmd_session_lookup(environ, entry);

	return !cmd_session_hidden(entry) &&
	    (v == NULL || strcmp(v, strchr(entry, '=') + 1) != 0);
}

/* Whether the entry of jobdeck's environment is not in the session's env. */
static int
cmd_session_is_removed(char *const *env, const char *entry)
{
	return !cmd_session_hidden(entry) && strchr(entry, '=') != NULL &&
	    cmd_session_lookup(env, entry) == NULL;
}

/* Return the session shell's alias or function names, or NULL if none. */
static char *const *
cmd_session_names(const struct cmd_ctx *ctx, int functions)
{
	if (ctx->sessionsh == NULL)
		return NULL;
	return functions ? sessionsh_functions(ctx->sessionsh) :
	    sessionsh_aliases(ctx->sessionsh);
}

/* Add key and names (NULL-terminated, or NULL) as a JSON array to jb. */
static void
cmd_session_json_names(struct json_buf *jb, const char *key,
    char *const *names)
{
	int	i;

	json_key(jb, key);
	json_array_begin(jb);
	for (i = 0; names != NULL && names[i] != NULL; i++)
		json_put_string(jb, names[i]);
	json_array_end(jb);
}

/*
 * Add the variables set ("set", each name to its value, or to null for a
 * read-only client) and removed ("removed", the names) to jb.
 */
static void
cmd_session_json_vars(struct cmd_ctx *ctx, struct json_buf *jb,
    char **env)
{
	char	*name;
	size_t	 k;
	int	 i;

	json_key(jb, "set");
	json_object_begin(jb);
	for (i = 0; env[i] != NULL; i++) {
		if (!cmd_session_is_set(env[i]))
			continue;
		k = strcspn(env[i], "=");
		name = xstrndup(env[i], k);
		json_key(jb, name);
		free(name);
		if (ctx->read_only)
			json_put_null(jb);
		else
			json_put_string(jb, env[i] + k + 1);
	}
	json_object_end(jb);
	json_key(jb, "removed");
	json_array_begin(jb);
	for (i = 0; environ[i] != NULL; i++) {
		if (cmd_session_is_removed(env, environ[i]))
			json_put_stringn(jb, environ[i],
			    strcspn(environ[i], "="));
	}
	json_array_end(jb);
}

/* Show the session (its environment env) as one JSON object. */
static void
cmd_session_json(struct cmd_ctx *ctx, char **env)
{
	struct json_buf	 jb;

	json_init(&jb);
	json_object_begin(&jb);
	json_key(&jb, "cwd");
	json_put_string(&jb, session_cwd(ctx->session));
	json_key(&jb, "shell");
	if (ctx->sessionsh != NULL)
		json_put_string(&jb, sessionsh_shell(ctx->sessionsh));
	else
		json_put_null(&jb);
	cmd_session_json_vars(ctx, &jb, env);
	cmd_session_json_names(&jb, "aliases", cmd_session_names(ctx, 0));
	cmd_session_json_names(&jb, "functions", cmd_session_names(ctx, 1));
	json_object_end(&jb);
	cmd_json_buf(ctx, &jb);
}

/* Add a line "what: name" for each of names (or NULL) to lines. */
static void
cmd_session_add_names(char ***lines, int *n, const char *what,
    char *const *names)
{
	int	i;

	for (i = 0; names != NULL && names[i] != NULL; i++)
		cmd_session_add(lines, n, xprintf("%s: %s", what, names[i]));
}

/* Show the session (its environment env) as lines of text. */
static void
cmd_session_text(struct cmd_ctx *ctx, char **env)
{
	char	**lines = NULL;
	int	  i, n = 0;

	cmd_session_add(&lines, &n, xprintf("cwd: %s",
	    session_cwd(ctx->session)));
	cmd_session_add(&lines, &n, ctx->sessionsh != NULL ?
	    xprintf("shell: %s", sessionsh_shell(ctx->sessionsh)) :
	    xstrdup("shell: none (cd, export and unset built in)"));
	for (i = 0; env[i] != NULL; i++) {
		if (!cmd_session_is_set(env[i]))
			continue;
		if (ctx->read_only)
			cmd_session_add(&lines, &n, xprintf("set: %.*s",
			    (int)strcspn(env[i], "="), env[i]));
		else
			cmd_session_add(&lines, &n, xprintf("set: %s",
			    env[i]));
	}
	for (i = 0; environ[i] != NULL; i++) {
		if (cmd_session_is_removed(env, environ[i]))
			cmd_session_add(&lines, &n, xprintf("removed: %.*s",
			    (int)strcspn(environ[i], "="), environ[i]));
	}
	cmd_session_add_names(&lines, &n, "alias", cmd_session_names(ctx, 0));
	cmd_session_add_names(&lines, &n, "function",
	    cmd_session_names(ctx, 1));
	cmd_show(ctx, "Session", lines, n, 0);
	for (i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

/*
 * session: show the cwd, the variables set or removed, aliases, functions.
 * A read-only client sees the names of the variables set, not their
 * values (an API key is a secret; "set" maps each name to null).
 */
static void
cmd_session_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	char	**env;

	(void)argc;
	(void)argv;
	env = session_env(ctx->session);
	if (ctx->json)
		cmd_session_json(ctx, env);
	else
		cmd_session_text(ctx, env);
	session_env_free(env);
}
