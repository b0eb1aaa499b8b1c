/*
 * launch.c: from a configured job to a job_spec.  The environment is built
 * first, because templating reads it, from the bottom up, each layer over
 * the ones before it:
 *
 *	the session's environment (its exports over jobdeck's own), unless
 *	    inherit_env is off;
 *	the env files, [settings]' then the job's, each in order (dotenv.h):
 *	    ${VAR} in them reads the file's entries above, then the layers
 *	    and files before, then the session's environment;
 *	PORT, when the job has a port: port + replica - 1 (replica 0: port);
 *	JOBDECK_REPLICA, the replica (1..N), for a replica only (one
 *	    inherited or from a file is dropped for any other job);
 *	the job's env, in file order, each value a template reading all of
 *	    the above (then the session's environment).
 *
 * Then command, args and input are expanded together by expand_command(),
 * each for the program that reads it, and cwd verbatim.  An env file that
 * is missing or bad is an error ("env_file .env: No such file or
 * directory", "env_file .env:3:7: expected '=' after the name"), named as
 * configured; a relative path is taken from base_dir, else the session's
 * cwd.
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "dotenv.h"
#include "expand.h"
#include "job.h"
#include "launch.h"
#include "session.h"
#include "waitstatus.h"
#include "xmalloc.h"

struct launch {
	struct job_spec	  spec;
	char		 *name;
	char		 *command;
	char		**argv;		/* NULL when command runs in a shell */
	char		 *shell;
	char		 *cwd;
	char		 *host;
	char		 *input;
	char		**envp;
	size_t		  nenv;
	char		 *group;
	char		 *stop_command;
	const struct session *session;	/* while launch_new() runs */
};

/* Return name's value in the job's environment as built so far, or NULL. */
static const char *
launch_find(const struct launch *l, const char *name)
{
	size_t	i, len = strlen(name);

	for (i = 0; i < l->nenv; i++) {
		if (strncmp(l->envp[i], name, len) == 0 &&
		    l->envp[i][len] == '=')
			return l->envp[i] + len + 1;
	}
	return NULL;
}

/* Look a variable up for command, args, cwd and input: the job's env. */
static const char *
launch_getenv(const char *name, void *arg)
{
	return launch_find(arg, name);
}

/*
 * Look a variable up for an env value: the entries before it, then the
 * session's environment, inherited or not.
 */
static const char *
launch_getenv_below(const char *name, void *arg)
{
	struct launch	*l = arg;
	const char	*v;

	if ((v = launch_find(l, name)) != NULL)
		return v;
	return session_getenv(l->session, name);
}

static const struct expand_env launch_env = {
	.get = launch_getenv,
};
static const struct expand_env launch_env_below = {
	.get = launch_getenv_below,
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

/* Remove KEY from the environment built so far, if it is there. */
static void
launch_unsetenv(struct launch *l, const char *key)
{
	size_t	i, klen = strlen(key);

	for (i = 0; i < l->nenv; i++) {
		if (strncmp(l->envp[i], key, klen) == 0 &&
		    l->envp[i][klen] == '=') {
			free(l->envp[i]);
			memmove(&l->envp[i], &l->envp[i + 1],
			    (l->nenv - i) * sizeof *l->envp);
			l->nenv--;
			return;
		}
	}
}

/*
 * Return path resolved against directory base, a leading ~ against HOME in
 * the environment built so far (the caller frees it).
 */
static char *
launch_resolve(struct launch *l, const char *path, const char *base)
{
	const char	*home;

	if (path[0] == '~' && (path[1] == '/' || path[1] == '\0') &&
	    (home = launch_find(l, "HOME")) != NULL)
		return xprintf("%s%s", home, path + 1);
	if (path[0] == '/')
		return xstrdup(path);
	return xprintf("%s/%s", base, path);
}

/*
 * Read the env file configured as file (relative to base_dir, NULL: the
 * session's cwd) into the environment; 0, or -1 with *cause.
 */
static int
launch_env_file(struct launch *l, const char *file, const char *base_dir,
    char **cause)
{
	char	**kv, *path, *why = NULL;
	size_t	  n, i, plen;
	int	  r;

	path = launch_resolve(l, file, base_dir != NULL ? base_dir :
	    session_cwd(l->session));
	r = dotenv_load(path, launch_getenv_below, l, &kv, &n, &why);
	if (r != 0) {
		/* Its messages start with the path: name the file as set. */
		plen = strlen(path);
		if (strncmp(why, path, plen) == 0)
			*cause = xprintf("env_file %s%s", file, why + plen);
		else
			*cause = xprintf("env_file %s: %s", file, why);
		free(why);
	} else {
		for (i = 0; i < n; i++)
			launch_setenv(l, kv[i]);
		dotenv_free(kv, n);
	}
	free(path);
	return r;
}

/*
 * Build the job's environment, the layers of the top of the file: the
 * session's (or none), the env files, PORT and JOBDECK_REPLICA for
 * replica (0: none), then the job's env
 * in file order, each value expanded (verbatim {name} values) against what
 * is below it and the session's environment; 0, or -1 with *cause.
 */
static int
launch_build_env(struct launch *l, const struct config_job *cj,
    const struct config_settings *set, int replica, const char *base_dir,
    const struct expand_param *params, size_t nparams, char **cause)
{
	char		**base, *value, *kv, *why = NULL;
	const char	 *eq;
	size_t		  i;

	l->envp = xcalloc(1, sizeof *l->envp);
	if (cj->inherit_env) {
		base = session_env(l->session);
		for (i = 0; base[i] != NULL; i++)
			launch_setenv(l, base[i]);
		session_env_free(base);
	}
	for (i = 0; set != NULL && i < set->nenv_file; i++) {
		if (launch_env_file(l, set->env_file[i], base_dir, cause) != 0)
			return -1;
	}
	for (i = 0; i < cj->nenv_file; i++) {
		if (launch_env_file(l, cj->env_file[i], base_dir, cause) != 0)
			return -1;
	}
	if (cj->port > 0) {
		kv = xprintf("PORT=%d", cj->port + (replica > 0 ?
		    replica - 1 : 0));
		launch_setenv(l, kv);
		free(kv);
	}
	if (replica > 0) {
		kv = xprintf("JOBDECK_REPLICA=%d", replica);
		launch_setenv(l, kv);
		free(kv);
	} else
		launch_unsetenv(l, "JOBDECK_REPLICA");
	for (i = 0; i < cj->nenv; i++) {
		eq = strchr(cj->env[i], '=');
		value = expand_text(eq + 1, &launch_env_below, l, params,
		    nparams, 0, &why);
		if (value == NULL) {
			*cause = xprintf("env %.*s: %s",
			    (int)(eq - cj->env[i]), cj->env[i], why);
			free(why);
			return -1;
		}
		kv = xprintf("%.*s=%s", (int)(eq - cj->env[i]), cj->env[i],
		    value);
		launch_setenv(l, kv);
		free(kv);
		free(value);
	}
	return 0;
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

/* Resolve cwd (freed) against the session's directory and a leading ~. */
static char *
launch_resolve_cwd(struct launch *l, char *cwd)
{
	char	*abs;

	abs = launch_resolve(l, cwd, session_cwd(l->session));
	free(cwd);
	return abs;
}

/*
 * Expand command, args, input and cwd of cj with params into l; 0, or -1
 * with *cause.
 */
static int
launch_expand(struct launch *l, const struct config_job *cj,
    const char *shell, const struct expand_param *params, size_t nparams,
    char **cause)
{
	struct expand_command	 c;
	struct expand_result	 res;
	char			*why = NULL;

	config_job_command(cj, shell, &c);
	if (expand_command(&c, &launch_env, l, params, nparams, &res,
	    cause) != 0)
		return -1;
	if (cj->args != NULL) {
		l->argv = xcalloc(res.nargs + 2, sizeof *l->argv);
		l->argv[0] = res.command;
		memcpy(l->argv + 1, res.args, res.nargs * sizeof *l->argv);
		free(res.args);
	} else
		l->command = res.command;
	l->input = res.input;

	if (cj->cwd != NULL) {
		l->cwd = expand_text(cj->cwd, &launch_env, l, params, nparams,
		    0, &why);
		if (l->cwd == NULL) {
			*cause = xprintf("cwd: %s", why);
			free(why);
			return -1;
		}
		/* On a host, a directory there (~ its home): as written. */
		if (cj->host == NULL)
			l->cwd = launch_resolve_cwd(l, l->cwd);
	}
	return 0;
}

/* Build the spec of configured job cj; NULL with *cause on a bad template. */
struct launch *
launch_new(const struct config_job *cj, const struct config_settings *set,
    const struct session *session, const struct expand_param *over,
    size_t nover, char **cause)
{
	return launch_new_at(cj, set, session, over, nover, 0, NULL, cause);
}

/*
 * Build the spec of replica (0: the job itself) of configured job cj,
 * env files relative to base_dir; NULL with *cause on a bad template.
 */
struct launch *
launch_new_at(const struct config_job *cj, const struct config_settings *set,
    const struct session *session, const struct expand_param *over,
    size_t nover, int replica, const char *base_dir, char **cause)
{
	struct launch		*l;
	struct expand_param	*params;
	const char		*shell;
	size_t			 nparams;
	int			 ok;

	shell = set != NULL && set->shell != NULL ? set->shell :
	    session_shell(session);
	l = xcalloc(1, sizeof *l);
	l->session = session;
	params = launch_merge_params(cj, over, nover, &nparams);
	ok = launch_build_env(l, cj, set, replica, base_dir, params, nparams,
	    cause) == 0 &&
	    launch_expand(l, cj, shell, params, nparams, cause) == 0;
	free(params);
	l->session = NULL;
	if (ok && cj->stop_signal != NULL &&
	    (l->spec.stop_signal = waitstatus_parse_signal(cj->stop_signal)) ==
	    -1) {
		*cause = xprintf("stop_signal: unknown signal '%s'",
		    cj->stop_signal);
		ok = 0;
	}
	if (!ok) {
		launch_free(l);
		return NULL;
	}

	if (cj->name != NULL && replica > 0)
		l->name = config_replica_name(cj->name, replica);
	else
		l->name = cj->name != NULL ? xstrdup(cj->name) : NULL;
	l->shell = xstrdup(shell);
	l->spec.name = l->name;
	l->spec.command = l->command;
	l->spec.argv = l->argv;
	l->spec.shell = l->shell;
	/* On a host: NULL, its login directory. */
	l->spec.cwd = l->cwd != NULL || cj->host != NULL ? l->cwd :
	    session_cwd(session);
	l->host = cj->host != NULL ? xstrdup(cj->host) : NULL;
	l->spec.host = l->host;
	l->spec.envp = l->envp;
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
	l->spec.restart_delay_max_ms = (int64_t)(cj->restart_delay_max * 1000);
	l->group = cj->group != NULL ? xstrdup(cj->group) : NULL;
	l->spec.group = l->group;
	l->spec.priority = cj->priority;
	l->stop_command = cj->stop_command != NULL ?
	    xstrdup(cj->stop_command) : NULL;
	l->spec.stop_command = l->stop_command;
	/* 0 in a spec is the deck's grace: stop_timeout = 0 is "at once". */
	l->spec.stop_timeout_ms = cj->stop_timeout < 0 ? -1 :
	    cj->stop_timeout == 0 ? 1 : (int64_t)(cj->stop_timeout * 1000);
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
	free(l->host);
	free(l->input);
	free(l->group);
	free(l->stop_command);
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
