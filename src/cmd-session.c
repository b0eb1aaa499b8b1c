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

/* export NAME=VALUE...: set variables in the session's environment. */
static void
cmd_export_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	char	*cause = NULL;
	int	 i;

	if (cmd_session_argv(ctx, argc, argv))
		return;
	for (i = 1; i < argc; i++) {
		if (session_export(ctx->session, argv[i], &cause) != 0) {
			cmd_error(ctx, "%s", cause);
			free(cause);
			return;
		}
	}
}

/* unset NAME...: remove variables from the session's environment. */
static void
cmd_unset_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	char	*cause = NULL;
	int	 i;

	if (cmd_session_argv(ctx, argc, argv))
		return;
	for (i = 1; i < argc; i++) {
		if (session_unset(ctx->session, argv[i], &cause) != 0) {
			cmd_error(ctx, "%s", cause);
			free(cause);
			return;
		}
	}
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
 * session: show the cwd, the variables set or removed, aliases, functions.
 * A read-only client sees the names of the variables set, not their
 * values (an API key is a secret; "set" maps each name to null).
 */
static void
cmd_session_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct json_buf	  jb;
	char		**env, **lines = NULL, *doc;
	char *const	 *names;
	const char	 *v;
	int		  i, n = 0, k;

	(void)argc;
	(void)argv;
	env = session_env(ctx->session);
	if (ctx->json) {
		json_init(&jb);
		json_object_begin(&jb);
		json_key(&jb, "cwd");
		json_put_string(&jb, session_cwd(ctx->session));
		json_key(&jb, "shell");
		if (ctx->sessionsh != NULL)
			json_put_string(&jb, sessionsh_shell(ctx->sessionsh));
		else
			json_put_null(&jb);
		json_key(&jb, "set");
		json_object_begin(&jb);
		for (i = 0; env[i] != NULL; i++) {
			v = cmd_session_lookup(environ, env[i]);
			if (cmd_session_hidden(env[i]) || (v != NULL &&
			    strcmp(v, strchr(env[i], '=') + 1) == 0))
				continue;
			k = (int)strcspn(env[i], "=");
			doc = xstrndup(env[i], (size_t)k);
			json_key(&jb, doc);
			free(doc);
			if (ctx->read_only)
				json_put_null(&jb);
			else
				json_put_string(&jb, env[i] + k + 1);
		}
		json_object_end(&jb);
		json_key(&jb, "removed");
		json_array_begin(&jb);
		for (i = 0; environ[i] != NULL; i++) {
			if (cmd_session_hidden(environ[i]) ||
			    strchr(environ[i], '=') == NULL ||
			    cmd_session_lookup(env, environ[i]) != NULL)
				continue;
			json_put_stringn(&jb, environ[i],
			    strcspn(environ[i], "="));
		}
		json_array_end(&jb);
		json_key(&jb, "aliases");
		json_array_begin(&jb);
		names = ctx->sessionsh != NULL ?
		    sessionsh_aliases(ctx->sessionsh) : NULL;
		for (i = 0; names != NULL && names[i] != NULL; i++)
			json_put_string(&jb, names[i]);
		json_array_end(&jb);
		json_key(&jb, "functions");
		json_array_begin(&jb);
		names = ctx->sessionsh != NULL ?
		    sessionsh_functions(ctx->sessionsh) : NULL;
		for (i = 0; names != NULL && names[i] != NULL; i++)
			json_put_string(&jb, names[i]);
		json_array_end(&jb);
		json_object_end(&jb);
		doc = json_finish(&jb, NULL);
		json_clear(&jb);
		cmd_json(ctx, doc);
		free(doc);
		session_env_free(env);
		return;
	}

	cmd_session_add(&lines, &n, xprintf("cwd: %s",
	    session_cwd(ctx->session)));
	cmd_session_add(&lines, &n, ctx->sessionsh != NULL ?
	    xprintf("shell: %s", sessionsh_shell(ctx->sessionsh)) :
	    xstrdup("shell: none (cd, export and unset built in)"));
	for (i = 0; env[i] != NULL; i++) {
		v = cmd_session_lookup(environ, env[i]);
		if (cmd_session_hidden(env[i]) || (v != NULL &&
		    strcmp(v, strchr(env[i], '=') + 1) == 0))
			continue;
		if (ctx->read_only)
			cmd_session_add(&lines, &n, xprintf("set: %.*s",
			    (int)strcspn(env[i], "="), env[i]));
		else
			cmd_session_add(&lines, &n, xprintf("set: %s",
			    env[i]));
	}
	for (i = 0; environ[i] != NULL; i++) {
		if (cmd_session_hidden(environ[i]) ||
		    strchr(environ[i], '=') == NULL ||
		    cmd_session_lookup(env, environ[i]) != NULL)
			continue;
		cmd_session_add(&lines, &n, xprintf("removed: %.*s",
		    (int)strcspn(environ[i], "="), environ[i]));
	}
	names = ctx->sessionsh != NULL ? sessionsh_aliases(ctx->sessionsh) :
	    NULL;
	for (i = 0; names != NULL && names[i] != NULL; i++)
		cmd_session_add(&lines, &n, xprintf("alias: %s", names[i]));
	names = ctx->sessionsh != NULL ? sessionsh_functions(ctx->sessionsh) :
	    NULL;
	for (i = 0; names != NULL && names[i] != NULL; i++)
		cmd_session_add(&lines, &n, xprintf("function: %s", names[i]));
	cmd_show(ctx, "Session", lines, n, 0);
	for (i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	session_env_free(env);
}
