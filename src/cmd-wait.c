/*
 * cmd-wait.c: !wait [--timeout S] ID..., for scripts (jobdeck ctl wait):
 * the jobs are found here and handed to the client, which answers when
 * the last of them has ended for good, with no polling (the control
 * socket does it from the jobtable's events, ctl.c).  The prompt has no
 * such client: there the command fails.
 */
#include <stdint.h>
#include <stdlib.h>

#include "cmd.h"
#include "config.h"
#include "jobtable.h"
#include "xmalloc.h"

static void	cmd_wait_exec(struct cmd_ctx *, int, char **);

enum { WAIT_TIMEOUT };
static const struct cmd_option cmd_wait_options[] = {
	[WAIT_TIMEOUT] = { .name = "--timeout", .alias = "-t",
	    .value = "S" },
	{ .name = NULL }
};

const struct cmd_entry cmd_wait_entry = {
	.name = "wait",
	.options = cmd_wait_options,
	.args = "ID...",
	.help = "wait until the jobs end (no restart pending), then say how "
	    "each ended; the status is the first failure's (control socket "
	    "only; --timeout: give up after S seconds)",
	.min_args = 1,
	.max_args = -1,
	.flags = CMD_READ_ONLY,
	.exec = cmd_wait_exec,
};

/*
 * !wait [--timeout S] ID...: every ID must name a job (else a usage error,
 * so `jobdeck ctl wait` exits 2 at once), then the client waits.
 */
static void
cmd_wait_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct cmd_optval	 *t = &ctx->opts[WAIT_TIMEOUT];
	struct job		**jobs;
	char			 *cause = NULL;
	double			  secs = 0;
	int64_t			  ms;
	int			  i, n = 0;

	if (ctx->client == NULL || ctx->client->wait == NULL) {
		cmd_error(ctx, "wait works only through the control socket "
		    "(jobdeck ctl wait)");
		return;
	}
	if (t->count > 0 && cmd_parse_seconds(t->value, CONFIG_MAX_SECONDS,
	    &secs) != 0) {
		cmd_usage_error(ctx, "wait: --timeout wants seconds from 0 to "
		    "%.0f, not '%s'", CONFIG_MAX_SECONDS, t->value);
		return;
	}
	jobs = xcalloc((size_t)(argc - ctx->first), sizeof *jobs);
	for (i = ctx->first; i < argc; i++) {
		if ((jobs[n++] = jobtable_find(ctx->jt, argv[i],
		    &cause)) == NULL) {
			cmd_usage_error(ctx, "%s", cause);
			free(cause);
			free(jobs);
			return;
		}
	}
	ms = (int64_t)(secs * 1000);
	if (ms == 0 && secs > 0)
		ms = 1;
	if (ctx->client->wait(jobs, n, ms, ctx->arg, &cause) != 0) {
		cmd_error(ctx, "wait: %s", cause);
		free(cause);
	}
	free(jobs);
}
