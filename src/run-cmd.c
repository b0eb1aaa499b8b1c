/*
 * run-cmd.c: what `jobdeck run` runs: its command line parsed and made a
 * command (struct run_cmd) to run.c's run_execute(), and run_main().
 *
 * What runs: a configured job (JOBNAME, from -c FILE or the default
 * configuration), turned into a command by launch_new() with --param
 * filling its {name}s and --env added to its env (so templating sees it
 * too), or `-- PROGRAM ARG...` exec'd as given, with no shell.  --cwd and
 * --input replace the job's cwd and input as they are, untemplated;
 * --host (config_check_host()'s rule) its host, and a local job's cwd
 * then goes unless --cwd gives one there.
 *
 * The grace from SIGTERM to SIGKILL is the kill_timeout of a
 * configuration file that was read, else RUN_DEFAULT_GRACE_MS.
 */

#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliopt.h"
#include "cmd.h"
#include "config.h"
#include "expand.h"
#include "job.h"
#include "launch.h"
#include "name.h"
#include "run.h"
#include "run-private.h"
#include "session.h"
#include "store.h"
#include "xmalloc.h"

extern char **environ;

static void	run_help(void);
static int	run_parse(int, char **, struct run_opts *);
static void	run_env_set(struct run_cmd *, const char *);
static void	run_cmd_free(struct run_cmd *);
static void	run_cmd_program(const struct run_opts *, const struct config *,
		    struct run_cmd *);
static int	run_cmd_job(const struct run_opts *, const struct config *,
		    struct run_cmd *);

/* The options of jobdeck run, in the order of the usage line. */
enum run_option {
	RUN_OPT_CONFIG,
	RUN_OPT_JSON,
	RUN_OPT_TIMEOUT,
	RUN_OPT_INPUT,
	RUN_OPT_CWD,
	RUN_OPT_HOST,
	RUN_OPT_ENV,
	RUN_OPT_PARAM,
	RUN_OPT_HELP,
};
static const struct cliopt run_options[] = {
	[RUN_OPT_CONFIG] = { NULL, 'c', "FILE",
	    "configuration file (default as for jobdeck)", 0 },
	[RUN_OPT_JSON] = { "json", 0, NULL,
	    "print the result as one JSON object instead", 0 },
	[RUN_OPT_TIMEOUT] = { "timeout", 0, "S",
	    "stop it after S seconds (default: the job's,\nelse 300; 0: none)",
	    0 },
	[RUN_OPT_INPUT] = { "input", 0, "TEXT",
	    "write TEXT to its stdin (default: /dev/null)", 0 },
	[RUN_OPT_CWD] = { "cwd", 0, "DIR", "run it in DIR", 0 },
	[RUN_OPT_HOST] = { "host", 0, "H",
	    "run it on H: a [hosts] name or an ssh destination\n(default: "
	    "the job's; DIR is then there)", 0 },
	[RUN_OPT_ENV] = { "env", 0, "K=V", "set a variable (may be repeated)",
	    CLIOPT_REPEAT },
	[RUN_OPT_PARAM] = { "param", 0, "K=V",
	    "fill the job's {K} (may be repeated)", CLIOPT_REPEAT },
	[RUN_OPT_HELP] = { "help", 'h', NULL, "show this help",
	    CLIOPT_HIDDEN },
};

/* Print the usage line to f after lead ("usage:" or its blanks). */
void
run_usage(FILE *f, const char *lead)
{
	cliopt_usage(f, lead, "jobdeck run", run_options,
	    CLIOPT_COUNT(run_options), 0, "(JOBNAME | -- PROGRAM [ARG...])");
}

/* Print the help text. */
static void
run_help(void)
{
	run_usage(stdout, "usage:");
	printf("\n"
	    "Runs one command to its end without a screen: a configured job,\n"
	    "or PROGRAM and its arguments with no shell.  Its stdout and\n"
	    "stderr go to ours as they come; its exit status becomes ours.\n"
	    "\n");
	cliopt_help(stdout, run_options, CLIOPT_COUNT(run_options), 0);
	printf("\n"
	    "Exit status: its own (128+N for signal N), 124 timed out, 125\n"
	    "not started, 126 not executable, 127 not found, 2 usage; with\n"
	    "--json, 0 (return_code says it).  See jobdeck(1), EXIT STATUS.\n");
}

/*
 * Parse the options into o; return -1 to go on, or the exit status when
 * done (help printed, or a usage error reported).
 */
static int
run_parse(int argc, char **argv, struct run_opts *o)
{
	struct cliopt_parser	 p;
	const char		*last_arg = NULL, *eq;
	int			 i, dashdash;

	memset(o, 0, sizeof *o);
	o->env = xcalloc((size_t)argc + 1, sizeof *o->env);
	o->params = xcalloc((size_t)argc + 1, sizeof *o->params);
	cliopt_begin(&p, "jobdeck run", run_options,
	    CLIOPT_COUNT(run_options));
	while ((i = cliopt_next(&p, argc, argv)) != -1) {
		last_arg = p.value;
		switch (i) {
		case RUN_OPT_CONFIG:
			o->config = p.value;
			break;
		case RUN_OPT_JSON:
			o->json = 1;
			break;
		case RUN_OPT_TIMEOUT:
			if (cmd_parse_seconds(p.value, CONFIG_MAX_SECONDS,
			    &o->timeout) != 0) {
				fprintf(stderr, "jobdeck run: --timeout wants "
				    "seconds from 0 to %.0f, not '%s'\n",
				    CONFIG_MAX_SECONDS, p.value);
				goto usage;
			}
			o->has_timeout = 1;
			break;
		case RUN_OPT_INPUT:
			o->input = p.value;
			break;
		case RUN_OPT_CWD:
			o->cwd = p.value;
			break;
		case RUN_OPT_HOST:
			o->host = p.value;
			break;
		case RUN_OPT_ENV:
			eq = strchr(p.value, '=');
			if (eq == NULL || !name_is_ident(p.value,
			    (size_t)(eq - p.value))) {
				fprintf(stderr, "jobdeck run: --env wants "
				    "NAME=VALUE, not '%s'\n", p.value);
				goto usage;
			}
			o->env[o->nenv++] = p.value;
			break;
		case RUN_OPT_PARAM:
			o->params[o->nparams++] = p.value;
			break;
		case RUN_OPT_HELP:
			cliopt_end(&p);
			run_help();
			return 0;
		default:
			goto usage;
		}
	}
	cliopt_end(&p);

	/* "--" that was not an option's value starts PROGRAM ARG... */
	dashdash = optind > 1 && strcmp(argv[optind - 1], "--") == 0 &&
	    argv[optind - 1] != last_arg;
	if (optind >= argc) {
		fprintf(stderr, "jobdeck run: no command: give JOBNAME or "
		    "-- PROGRAM [ARG...]\n");
		goto usage;
	}
	if (dashdash) {
		o->argv = argv + optind;
		if (o->nparams > 0) {
			fprintf(stderr, "jobdeck run: --param fills a "
			    "configured job's {name}s, not a PROGRAM's\n");
			goto usage;
		}
		return -1;
	}
	o->job = argv[optind];
	if (optind + 1 < argc) {
		fprintf(stderr, "jobdeck run: unexpected '%s' after JOBNAME "
		    "(parameters are --param KEY=VALUE)\n", argv[optind + 1]);
		goto usage;
	}
	return -1;

usage:
	cliopt_end(&p);
	run_usage(stderr, "usage:");
	return RUN_EXIT_USAGE;
}

/* Set "KEY=VALUE" in the command's environment, replacing KEY. */
static void
run_env_set(struct run_cmd *cmd, const char *kv)
{
	size_t	klen = (size_t)(strchr(kv, '=') - kv), i;

	for (i = 0; i < cmd->nenv; i++) {
		if (strncmp(cmd->envp[i], kv, klen) == 0 &&
		    cmd->envp[i][klen] == '=') {
			free(cmd->envp[i]);
			cmd->envp[i] = xstrdup(kv);
			return;
		}
	}
	cmd->envp = xreallocarray(cmd->envp, cmd->nenv + 2,
	    sizeof *cmd->envp);
	cmd->envp[cmd->nenv++] = xstrdup(kv);
	cmd->envp[cmd->nenv] = NULL;
}

/* Free what a run_cmd owns. */
static void
run_cmd_free(struct run_cmd *cmd)
{
	size_t	i;

	for (i = 0; cmd->argv != NULL && cmd->argv[i] != NULL; i++)
		free(cmd->argv[i]);
	free(cmd->argv);
	for (i = 0; i < cmd->nenv; i++)
		free(cmd->envp[i]);
	free(cmd->envp);
	free(cmd->path);
	free(cmd->cwd);
	free(cmd->host);
	free(cmd->input);
}

/* Build the command for -- PROGRAM ARG...: jobdeck's environment and --env. */
static void
run_cmd_program(const struct run_opts *o, const struct config *cfg,
    struct run_cmd *cmd)
{
	size_t	n, i;

	memset(cmd, 0, sizeof *cmd);
	for (n = 0; o->argv[n] != NULL; n++)
		/* nothing */;
	cmd->argv = xcalloc(n + 1, sizeof *cmd->argv);
	for (i = 0; i < n; i++)
		cmd->argv[i] = xstrdup(o->argv[i]);
	cmd->path = xstrdup(o->argv[0]);
	cmd->envp = xcalloc(1, sizeof *cmd->envp);
	for (i = 0; environ != NULL && environ[i] != NULL; i++) {
		if (strchr(environ[i], '=') != NULL)
			run_env_set(cmd, environ[i]);
	}
	for (i = 0; i < o->nenv; i++)
		run_env_set(cmd, o->env[i]);
	cmd->cwd = o->cwd != NULL ? xstrdup(o->cwd) : NULL;
	cmd->host = o->host != NULL ? xstrdup(o->host) : NULL;
	cmd->input = o->input != NULL ? xstrdup(o->input) : NULL;
	cmd->timeout = o->has_timeout ? o->timeout : RUN_DEFAULT_TIMEOUT;
	cmd->grace_ms = cfg != NULL && cfg->path != NULL ?
	    (int64_t)(cfg->settings.kill_timeout * 1000) :
	    RUN_DEFAULT_GRACE_MS;
}

/*
 * Build the command for configured job o->job through launch_new_at()
 * (env files relative to the config's directory), with
 * --env added to its env and --param as parameters.  Return 0, or the
 * exit status after printing why not.
 */
static int
run_cmd_job(const struct run_opts *o, const struct config *cfg,
    struct run_cmd *cmd)
{
	const struct config_job	*cj;
	struct config_job	 job;
	struct expand_param	*params = NULL;
	struct session		*session;
	struct launch		*l;
	struct job_spec		*spec;
	char			*cause = NULL, **env, *dir;
	size_t			 nparams = 0, i;

	memset(cmd, 0, sizeof *cmd);
	if ((cj = config_find_job(cfg, o->job)) == NULL) {
		fprintf(stderr, "jobdeck run: no configured job named %s\n",
		    o->job);
		return RUN_EXIT_USAGE;
	}
	if (launch_parse_params((int)o->nparams, o->params, &params, &nparams,
	    &cause) != 0) {
		fprintf(stderr, "jobdeck run: --param: %s\n", cause);
		free(cause);
		run_usage(stderr, "usage:");
		return RUN_EXIT_USAGE;
	}

	/* --env goes after the job's env, so it wins there and in ${...}. */
	job = *cj;
	env = xcalloc(cj->nenv + o->nenv + 1, sizeof *env);
	for (i = 0; i < cj->nenv; i++)
		env[i] = cj->env[i];
	for (i = 0; i < o->nenv; i++)
		env[cj->nenv + i] = o->env[i];
	job.env = env;
	job.nenv = cj->nenv + o->nenv;

	session = session_new(environ);
	dir = config_dir(cfg);
	l = launch_new_at(&job, &cfg->settings, session, params, nparams, 0,
	    dir, &cause);
	free(dir);
	free(env);
	launch_free_params(params, nparams);
	if (l == NULL) {
		fprintf(stderr, "jobdeck run: %s: %s\n", o->job, cause);
		free(cause);
		session_free(session);
		return RUN_EXIT_USAGE;
	}
	spec = launch_spec(l);

	if (spec->argv != NULL) {
		for (i = 0; spec->argv[i] != NULL; i++)
			/* nothing */;
		cmd->argv = xcalloc(i + 1, sizeof *cmd->argv);
		for (i = 0; spec->argv[i] != NULL; i++)
			cmd->argv[i] = xstrdup(spec->argv[i]);
	} else {
		cmd->argv = xcalloc(4, sizeof *cmd->argv);
		cmd->argv[0] = xstrdup(spec->shell);
		cmd->argv[1] = xstrdup("-c");
		cmd->argv[2] = xstrdup(spec->command);
	}
	cmd->path = xstrdup(cmd->argv[0]);
	cmd->envp = xcalloc(1, sizeof *cmd->envp);
	for (i = 0; spec->envp[i] != NULL; i++)
		run_env_set(cmd, spec->envp[i]);
	if (o->host != NULL)
		cmd->host = xstrdup(o->host);
	else if (spec->host != NULL)
		cmd->host = xstrdup(spec->host);
	if (o->cwd != NULL)
		cmd->cwd = xstrdup(o->cwd);
	else if (spec->cwd != NULL && (o->host == NULL || cj->host != NULL))
		cmd->cwd = xstrdup(spec->cwd);
	if (o->input != NULL)
		cmd->input = xstrdup(o->input);
	else if (spec->input != NULL)
		cmd->input = xstrdup(spec->input);
	if (o->has_timeout)
		cmd->timeout = o->timeout;
	else if (spec->timeout_ms > 0)
		cmd->timeout = (double)spec->timeout_ms / 1000;
	else
		cmd->timeout = RUN_DEFAULT_TIMEOUT;
	cmd->grace_ms = cfg->path != NULL ?
	    (int64_t)(cfg->settings.kill_timeout * 1000) :
	    RUN_DEFAULT_GRACE_MS;

	launch_free(l);
	session_free(session);
	return 0;
}

/* `jobdeck run`: parse, build the command, run it, report. */
int
run_main(int argc, char **argv)
{
	struct run_opts	 o;
	struct run_cmd	 cmd;
	struct config	*cfg = NULL;
	char		*cause = NULL, *dir;
	int		 rc;

	memset(&cmd, 0, sizeof cmd);
	signal(SIGPIPE, SIG_IGN);
	if ((rc = run_parse(argc, argv, &o)) != -1)
		goto out;
	/*
	 * -- PROGRAM reads a configuration only when -c names one, or for
	 * --host's [hosts].
	 */
	if (o.job != NULL || o.config != NULL || o.host != NULL) {
		if (config_load(o.config, 0, &cfg, &cause) != 0) {
			fprintf(stderr, "jobdeck: %s\n", cause);
			free(cause);
			rc = RUN_EXIT_USAGE;
			goto out;
		}
	}
	if (o.host != NULL && config_check_host(cfg, o.host, &cause) != 0) {
		fprintf(stderr, "jobdeck run: --host: %s\n", cause);
		free(cause);
		run_usage(stderr, "usage:");
		rc = RUN_EXIT_USAGE;
		goto out;
	}
	if (o.job != NULL) {
		if ((rc = run_cmd_job(&o, cfg, &cmd)) != 0)
			goto out;
	} else
		run_cmd_program(&o, cfg, &cmd);
	fflush(stdout);
	fflush(stderr);
	dir = cfg != NULL && cfg->settings.log_dir != NULL ?
	    xstrdup(cfg->settings.log_dir) : store_default_dir();
	rc = run_execute(&cmd, o.json, dir, cfg);
	free(dir);

out:
	run_cmd_free(&cmd);
	config_free(cfg);
	free(o.env);
	free(o.params);
	return rc;
}
