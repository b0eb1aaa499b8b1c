/*
 * cmd-run.c: the commands that start jobs from a spec rather than a typed
 * line: !run NAME [key=value ...] for a configured job, and !restart ID
 * for any job, with the spec it was started with.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "config.h"
#include "expand.h"
#include "job.h"
#include "jobtable.h"
#include "launch.h"
#include "stack.h"
#include "xmalloc.h"

static void	cmd_run_exec(struct cmd_ctx *, int, char **);
static void	cmd_restart_exec(struct cmd_ctx *, int, char **);

const struct cmd_entry cmd_run_entry = {
	.name = "run",
	.args = "NAME [key=value ...]",
	.help = "start a configured job, filling its {key} parameters",
	.min_args = 1,
	.max_args = -1,
	.exec = cmd_run_exec,
};

const struct cmd_entry cmd_restart_entry = {
	.name = "restart",
	.args = "ID",
	.help = "stop a job if it runs and start it again with its spec",
	.min_args = 1,
	.max_args = 1,
	.exec = cmd_restart_exec,
};

/*
 * Start configured job cj with params over its own: templating, then the
 * spawn; the new job is selected.  NULL after reporting why.
 */
struct job *
cmd_start_config_job(struct cmd_ctx *ctx, const struct config_job *cj,
    const struct expand_param *params, size_t nparams)
{
	struct job	*job;
	char		*cause = NULL;

	if (ctx->stack == NULL) {
		cmd_error(ctx, "cannot start %s (no configured stack here)",
		    cj->name);
		return NULL;
	}
	if (stack_start(ctx->stack, cj, params, nparams, &job, &cause) != 0) {
		cmd_error(ctx, "%s", cause);
		free(cause);
		return NULL;
	}
	if (ctx->client != NULL && ctx->client->select != NULL)
		ctx->client->select(job, 0, ctx->arg);
	return job;
}

/* !run NAME [key=value ...] */
static void
cmd_run_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct config_job	*cj = NULL;
	struct expand_param	*params;
	struct job		*job;
	size_t			 nparams;
	char			*cause = NULL;

	if (ctx->stack != NULL && stack_config(ctx->stack) != NULL)
		cj = config_find_job(stack_config(ctx->stack), argv[1]);
	if (cj == NULL) {
		cmd_error(ctx, "run: no configured job named %s", argv[1]);
		return;
	}
	if (launch_parse_params(argc - 2, argv + 2, &params, &nparams,
	    &cause) != 0) {
		cmd_error(ctx, "run: %s", cause);
		free(cause);
		return;
	}
	job = cmd_start_config_job(ctx, cj, params, nparams);
	launch_free_params(params, nparams);
	if (job == NULL)
		return;
	if (ctx->json)
		cmd_json_job_doc(ctx, job);
	else
		cmd_message(ctx, "started [%d] %s", job_id(job),
		    job_command(job));
}

/* !restart ID */
static void
cmd_restart_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct job	*job;
	char		*cause = NULL;
	int		 running;

	(void)argc;
	if ((job = cmd_find_job(ctx, argv[1])) == NULL)
		return;
	running = job_is_running(job);
	if (jobtable_restart(ctx->jt, job, &cause) != 0) {
		cmd_error(ctx, "restart: %s", cause);
		free(cause);
		return;
	}
	if (ctx->json)
		cmd_json_job_doc(ctx, job);
	else
		cmd_message(ctx, running ? "restarting [%d] once it has "
		    "stopped" : "restarted [%d]", job_id(job));
}
