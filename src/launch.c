/*
 * launch.c: from a configured job to a job_spec.  The environment is built
 * first (inherited or not, then the job's env on top), because templating
 * reads it; then command, args, cwd and input are expanded.
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "expand.h"
#include "job.h"
#include "launch.h"
#include "session.h"
#include "xmalloc.h"

struct launch {
	struct job_spec	  spec;
	char		 *name;
	char		 *command;
	char		**argv;		/* NULL when command runs in a shell */
	char		 *shell;
	char		 *cwd;
	char		 *input;
	char		**envp;
	size_t		  nenv;
};

/* What the environment lookup of the templating needs. */
struct launch_lookup {
	const struct config_job	*cj;
	const struct session	*session;
	int			 inherit;
};

/* Look a variable up: the job's env, then (if inherited) the session's. */
static const char *
launch_getenv(const char *name, void *arg)
{
	struct launch_lookup	*lk = arg;
	size_t			 i, len = strlen(name);

	for (i = lk->cj->nenv; i > 0; i--) {
		if (strncmp(lk->cj->env[i - 1], name, len) == 0 &&
		    lk->cj->env[i - 1][len] == '=')
			return lk->cj->env[i - 1] + len + 1;
	}
	if (!lk->inherit)
		return NULL;
	return session_getenv(lk->session, name);
}

static const struct expand_env launch_env = {
	.get = launch_getenv,
};

/* Set "KEY=VALUE" in a NULL-terminated array, replacing KEY if present. */
static void
launch_setenv(struct launch *l, const char *kv)
{
	const char	*eq = strchr(kv, '=');
	size_t		 klen = eq != NULL ? (size_t)(eq - kv) : strlen(kv);
	size_t		 i;

	for (i = 0; i < l->nenv; i++) {
		if (strncmp(l->envp[i], kv, klen) == 0 &&
		    l->envp[i][klen] == '=') {
			free(l->envp[i]);
			l->envp[i] = xstrdup(kv);
			return;
		}
	}
	l->envp = xreallocarray(l->envp, l->nenv + 2, sizeof *l->envp);
	l->envp[l->nenv++] = xstrdup(kv);
	l->envp[l->nenv] = NULL;
}

/* Build the job's environment: inherited (or empty), then its env. */
static void
launch_build_env(struct launch *l, const struct config_job *cj,
    const struct session *session)
{
	char	**base;
	size_t	  i;

	l->envp = xcalloc(1, sizeof *l->envp);
	if (cj->inherit_env) {
		base = session_env(session);
		for (i = 0; base[i] != NULL; i++)
			launch_setenv(l, base[i]);
		session_env_free(base);
	}
	for (i = 0; i < cj->nenv; i++)
		launch_setenv(l, cj->env[i]);
}

/*
 * Merge the caller's parameters over the job's defaults into one array
 * (pointers into both; the first of a key wins in expand_text).
 */
static struct expand_param *
launch_merge_params(const struct config_job *cj,
    const struct expand_param *over, size_t nover, size_t *n)
{
	struct expand_param	*all;

	*n = nover + cj->nparams;
	all = xcalloc(*n + 1, sizeof *all);
	if (nover > 0)
		memcpy(all, over, nover * sizeof *all);
	if (cj->nparams > 0)
		memcpy(all + nover, cj->params, cj->nparams * sizeof *all);
	return all;
}

/* Expand one field, prefixing an error with the field's name. */
static char *
launch_expand(const char *field, const char *text, struct launch_lookup *lk,
    const struct expand_param *params, size_t nparams, int flags,
    char **cause)
{
	char	*out, *why = NULL;

	out = expand_text(text, &launch_env, lk, params, nparams, flags, &why);
	if (out == NULL) {
		*cause = xprintf("%s: %s", field, why);
		free(why);
	}
	return out;
}

/* Resolve cwd against the session's directory and a leading ~. */
static char *
launch_resolve_cwd(char *cwd, const struct session *session,
    struct launch_lookup *lk)
{
	const char	*home;
	char		*abs;

	if (cwd[0] == '~' && (cwd[1] == '/' || cwd[1] == '\0') &&
	    (home = launch_getenv("HOME", lk)) != NULL) {
		abs = xprintf("%s%s", home, cwd + 1);
		free(cwd);
		return abs;
	}
	if (cwd[0] == '/')
		return cwd;
	abs = xprintf("%s/%s", session_cwd(session), cwd);
	free(cwd);
	return abs;
}

/*
 * Return whether shell (a path) quotes as sh does, so that the quoting of
 * {name} values (EXPAND_SHELL) holds in it: not fish, csh and the like,
 * where a value ending in a backslash could close its quotes.
 */
static int
launch_posix_shell(const char *shell)
{
	static const char *const names[] = {
		"sh", "bash", "dash", "ash", "ksh", "ksh93", "mksh", "pdksh",
		"oksh", "loksh", "zsh", "yash", "posh", "busybox", NULL
	};
	const char	*base = strrchr(shell, '/');
	size_t		 i;

	base = base != NULL ? base + 1 : shell;
	for (i = 0; names[i] != NULL; i++) {
		if (strcmp(base, names[i]) == 0)
			return 1;
	}
	return 0;
}

/*
 * Refuse a command string that got {name} values for a shell that is not
 * a POSIX one; 0, or -1 with *cause.
 */
static int
launch_check_shell(const char *command, const char *expanded,
    const char *shell, struct launch_lookup *lk, char **cause)
{
	char	*plain, *why = NULL;
	int	 same;

	if (launch_posix_shell(shell))
		return 0;
	plain = expand_text(command, &launch_env, lk, NULL, 0, EXPAND_SHELL,
	    &why);
	same = plain != NULL && strcmp(plain, expanded) == 0;
	free(plain);
	free(why);
	if (same)
		return 0;
	*cause = xprintf("command: {name} values are quoted for sh and %s is "
	    "not a POSIX shell (set shell = \"/bin/sh\", or use args)",
	    shell);
	return -1;
}

/* Build the spec of configured job cj; NULL with *cause on a bad template. */
struct launch *
launch_new(const struct config_job *cj, const struct config_settings *set,
    const struct session *session, const struct expand_param *over,
    size_t nover, char **cause)
{
	struct launch		*l;
	struct launch_lookup	 lk;
	struct expand_param	*params;
	const char		*shell;
	size_t			 nparams, i;
	int			 ok = 1;

	shell = set != NULL && set->shell != NULL ? set->shell :
	    session_shell(session);
	l = xcalloc(1, sizeof *l);
	lk.cj = cj;
	lk.session = session;
	lk.inherit = cj->inherit_env;
	launch_build_env(l, cj, session);
	params = launch_merge_params(cj, over, nover, &nparams);

	if (cj->args != NULL) {
		l->argv = xcalloc(cj->nargs + 2, sizeof *l->argv);
		l->argv[0] = launch_expand("command", cj->command, &lk, params,
		    nparams, 0, cause);
		ok = l->argv[0] != NULL;
		for (i = 0; ok && i < cj->nargs; i++) {
			l->argv[i + 1] = launch_expand("args", cj->args[i], &lk,
			    params, nparams, 0, cause);
			ok = l->argv[i + 1] != NULL;
		}
	} else {
		l->command = launch_expand("command", cj->command, &lk, params,
		    nparams, EXPAND_SHELL, cause);
		ok = l->command != NULL && launch_check_shell(cj->command,
		    l->command, shell, &lk, cause) == 0;
	}
	if (ok && cj->cwd != NULL) {
		l->cwd = launch_expand("cwd", cj->cwd, &lk, params, nparams, 0,
		    cause);
		if ((ok = l->cwd != NULL))
			l->cwd = launch_resolve_cwd(l->cwd, session, &lk);
	}
	if (ok && cj->input != NULL) {
		l->input = launch_expand("input", cj->input, &lk, params,
		    nparams, 0, cause);
		ok = l->input != NULL;
	}
	free(params);
	if (!ok) {
		launch_free(l);
		return NULL;
	}

	l->name = cj->name != NULL ? xstrdup(cj->name) : NULL;
	l->shell = xstrdup(shell);
	l->spec.name = l->name;
	l->spec.command = l->command;
	l->spec.argv = l->argv;
	l->spec.shell = l->shell;
	l->spec.cwd = l->cwd != NULL ? l->cwd : session_cwd(session);
	l->spec.envp = l->envp;
	l->spec.scrollback = set != NULL ? set->scrollback : 0;
	l->spec.no_pty = !cj->pty;
	l->spec.input = l->input;
	l->spec.timeout_ms = (int64_t)(cj->timeout * 1000);
	switch (cj->restart) {
	case CONFIG_RESTART_ON_FAILURE:
		l->spec.restart = JOB_RESTART_ON_FAILURE;
		break;
	case CONFIG_RESTART_ALWAYS:
		l->spec.restart = JOB_RESTART_ALWAYS;
		break;
	default:
		l->spec.restart = JOB_RESTART_NO;
		break;
	}
	l->spec.restart_delay_ms = (int64_t)(cj->restart_delay * 1000);
	l->spec.max_restarts = cj->max_restarts > 0 ? cj->max_restarts : -1;
	return l;
}

/* Return the spec (owned by the launch; the caller may adjust it). */
struct job_spec *
launch_spec(struct launch *l)
{
	return &l->spec;
}

/* Free a launch and everything its spec points to. */
void
launch_free(struct launch *l)
{
	size_t	i;

	if (l == NULL)
		return;
	for (i = 0; l->argv != NULL && l->argv[i] != NULL; i++)
		free(l->argv[i]);
	free(l->argv);
	for (i = 0; i < l->nenv; i++)
		free(l->envp[i]);
	free(l->envp);
	free(l->name);
	free(l->command);
	free(l->shell);
	free(l->cwd);
	free(l->input);
	free(l);
}

/*
 * Parse "key=value" words (from !run NAME key=value ...) into parameters;
 * -1 with *cause for a word without '=' or with an empty key.
 */
int
launch_parse_params(int argc, char **argv, struct expand_param **out,
    size_t *n, char **cause)
{
	struct expand_param	*params;
	const char		*eq;
	int			 i;

	params = xcalloc((size_t)argc + 1, sizeof *params);
	for (i = 0; i < argc; i++) {
		eq = strchr(argv[i], '=');
		if (eq == NULL || eq == argv[i]) {
			*cause = xprintf("expected key=value, not '%s'",
			    argv[i]);
			launch_free_params(params, (size_t)i);
			return -1;
		}
		params[i].key = xstrndup(argv[i], (size_t)(eq - argv[i]));
		params[i].value = xstrdup(eq + 1);
	}
	*out = params;
	*n = (size_t)argc;
	return 0;
}

/* Free what launch_parse_params() made. */
void
launch_free_params(struct expand_param *params, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free((char *)params[i].key);
		free((char *)params[i].value);
	}
	free(params);
}
