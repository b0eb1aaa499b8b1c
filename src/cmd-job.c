/*
 * cmd-job.c: the commands that look at and stop jobs: !ps, !kill,
 * !kill-all and !logs.
 */
#include <sys/wait.h>

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd.h"
#include "job.h"
#include "jobtable.h"
#include "loop.h"
#include "xmalloc.h"

static int	cmd_ps_exec(struct cmd_ctx *, int, char **);
static int	cmd_kill_exec(struct cmd_ctx *, int, char **);
static int	cmd_kill_all_exec(struct cmd_ctx *, int, char **);
static int	cmd_logs_exec(struct cmd_ctx *, int, char **);

const struct cmd_entry cmd_ps_entry = {
	.name = "ps",
	.usage = "",
	.help = "list every job: id, pid, state, exit, time, command",
	.min_args = 0,
	.max_args = 0,
	.exec = cmd_ps_exec,
};

const struct cmd_entry cmd_kill_entry = {
	.name = "kill",
	.usage = "[-SIGNAL] ID...",
	.help = "signal jobs' process groups (SIGTERM, then SIGKILL after "
	    "the grace period)",
	.min_args = 1,
	.max_args = -1,
	.exec = cmd_kill_exec,
};

const struct cmd_entry cmd_kill_all_entry = {
	.name = "kill-all",
	.alias = "killall",
	.usage = "",
	.help = "stop every job at once",
	.min_args = 0,
	.max_args = 0,
	.exec = cmd_kill_all_exec,
};

const struct cmd_entry cmd_logs_entry = {
	.name = "logs",
	.usage = "ID",
	.help = "show a job's whole output, from the first line",
	.min_args = 1,
	.max_args = 1,
	.exec = cmd_logs_exec,
};

/* Describe a job's exit for the EXIT column: "0", "1", "SIGTERM", "-". */
static void
cmd_ps_exit(const struct job *job, char *buf, size_t size)
{
	const char	*name;
	int		 st = job_exit_status(job);

	if (job_is_running(job) || job_state(job) == JOB_QUEUED)
		snprintf(buf, size, "-");
	else if (WIFSIGNALED(st) && (name = sigabbrev_np(WTERMSIG(st))) != NULL)
		snprintf(buf, size, "SIG%s", name);
	else if (WIFSIGNALED(st))
		snprintf(buf, size, "sig%d", WTERMSIG(st));
	else
		snprintf(buf, size, "%d", WEXITSTATUS(st));
}

/* !ps: show a table of every job. */
static int
cmd_ps_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct job	*job;
	char		**lines, exitbuf[32], timebuf[32];
	int64_t		 now = loop_now_ms();
	int		 n, i;

	(void)argc;
	(void)argv;
	n = jobtable_count(ctx->jt);
	lines = xcalloc((size_t)n + 1, sizeof *lines);
	lines[0] = xprintf("%-4s  %-7s  %-9s  %-7s  %-10s  %s", "ID", "PID",
	    "STATE", "EXIT", "TIME", "COMMAND");
	for (i = 0; i < n; i++) {
		job = jobtable_get(ctx->jt, i);
		cmd_ps_exit(job, exitbuf, sizeof exitbuf);
		job_format_duration(job_duration_ms(job, now), timebuf,
		    sizeof timebuf);
		lines[i + 1] = xprintf("%-4d  %-7ld  %-9s  %-7s  %-10s  %s%s%s",
		    job_id(job), (long)job_pid(job),
		    job_state_name(job_state(job)), exitbuf, timebuf,
		    job_name(job) != NULL ? job_name(job) : "",
		    job_name(job) != NULL ? ": " : "", job_command(job));
	}
	cmd_show(ctx, "Jobs", lines, n + 1);
	for (i = 0; i <= n; i++)
		free(lines[i]);
	free(lines);
	return 0;
}

/* Parse "9", "KILL" or "SIGKILL" as a signal number; -1 if unknown. */
static int
cmd_parse_signal(const char *s)
{
	const char	*abbrev;
	char		*end;
	long		 n;
	int		 sig;

	if (isdigit((unsigned char)*s)) {
		n = strtol(s, &end, 10);
		if (*end != '\0' || n < 0 || n >= NSIG)
			return -1;
		return (int)n;
	}
	if (strncasecmp(s, "SIG", 3) == 0)
		s += 3;
	for (sig = 1; sig < NSIG; sig++) {
		abbrev = sigabbrev_np(sig);
		if (abbrev != NULL && strcasecmp(abbrev, s) == 0)
			return sig;
	}
	return -1;
}

/* !kill [-SIGNAL] ID...: signal each job's process group. */
static int
cmd_kill_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct job	*job;
	int		 sig = SIGTERM, i = 1, done = 0;

	if (argv[1][0] == '-' && argv[1][1] != '\0') {
		sig = cmd_parse_signal(argv[1] + 1);
		if (sig == -1) {
			cmd_error(ctx, "kill: unknown signal: %s", argv[1] + 1);
			return -1;
		}
		if (argc < 3) {
			cmd_error(ctx, "usage: !kill [-SIGNAL] ID...");
			return -1;
		}
		i = 2;
	}
	for (; i < argc; i++) {
		job = cmd_find_job(ctx, argv[i]);
		if (job == NULL)
			continue;
		if (jobtable_kill(ctx->jt, job, sig) == -1) {
			cmd_error(ctx, "kill: job %d is not running",
			    job_id(job));
			continue;
		}
		done++;
	}
	if (done > 0 && !ctx->failed)
		cmd_message(ctx, "sent SIG%s to %d job%s", sigabbrev_np(sig) ?
		    sigabbrev_np(sig) : "?", done, done == 1 ? "" : "s");
	return ctx->failed ? -1 : 0;
}

/* !kill-all: stop every job at once. */
static int
cmd_kill_all_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	int	n;

	(void)argc;
	(void)argv;
	n = jobtable_kill_all(ctx->jt);
	if (n == 0)
		cmd_message(ctx, "no running jobs");
	else
		cmd_message(ctx, "stopping %d job%s", n, n == 1 ? "" : "s");
	return 0;
}

/* !logs ID: show a job's whole output as text. */
static int
cmd_logs_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct job	*job;
	char		**lines, *title;
	int		 count;

	(void)argc;
	job = cmd_find_job(ctx, argv[1]);
	if (job == NULL)
		return -1;
	lines = job_text_lines(job, &count);
	title = xprintf("Logs [%d] %s", job_id(job), job_command(job));
	cmd_show(ctx, title, lines, count);
	free(title);
	job_text_free(lines, count);
	return 0;
}
