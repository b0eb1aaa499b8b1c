/*
 * cmd-job.c: the commands that look at, stop and tidy jobs: !ps, !kill,
 * !kill-all, !logs, !rm, !clear and !rename, and the jobs table (its view
 * of jobfield.h's fields) and JSON document that !ps, !list and !status
 * share.
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
#include "jobfield.h"
#include "jobtable.h"
#include "json.h"
#include "texttable.h"
#include "waitstatus.h"
#include "xmalloc.h"

static void	cmd_ps_exec(struct cmd_ctx *, int, char **);
static void	cmd_kill_exec(struct cmd_ctx *, int, char **);
static void	cmd_kill_all_exec(struct cmd_ctx *, int, char **);
static void	cmd_logs_exec(struct cmd_ctx *, int, char **);
static void	cmd_stop_exec(struct cmd_ctx *, int, char **);
static void	cmd_rm_exec(struct cmd_ctx *, int, char **);
static void	cmd_clear_exec(struct cmd_ctx *, int, char **);
static void	cmd_rename_exec(struct cmd_ctx *, int, char **);

const struct cmd_entry cmd_ps_entry = {
	.name = "ps",
	.args = "",
	.help = "list every job: id, pid, state, exit, time, command",
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_READ_ONLY,
	.exec = cmd_ps_exec,
};

const struct cmd_entry cmd_kill_entry = {
	.name = "kill",
	.args = "[-SIGNAL] ID...",
	.help = "signal jobs' process groups (SIGTERM, then SIGKILL after "
	    "the grace period)",
	.min_args = 1,
	.max_args = -1,
	.exec = cmd_kill_exec,
};

const struct cmd_entry cmd_kill_all_entry = {
	.name = "kill-all",
	.alias = "killall",
	.args = "",
	.help = "stop every job at once",
	.min_args = 0,
	.max_args = 0,
	.exec = cmd_kill_all_exec,
};

/* !stop and !cont share one function: the signal is the difference. */
const struct cmd_entry cmd_stop_entry = {
	.name = "stop",
	.args = "ID...",
	.help = "pause jobs: SIGSTOP to each job's process group",
	.min_args = 1,
	.max_args = -1,
	.exec = cmd_stop_exec,
};

const struct cmd_entry cmd_cont_entry = {
	.name = "cont",
	.args = "ID...",
	.help = "resume paused jobs: SIGCONT to each job's process group",
	.min_args = 1,
	.max_args = -1,
	.exec = cmd_stop_exec,
};

const struct cmd_entry cmd_rm_entry = {
	.name = "rm",
	.args = "ID...",
	.help = "remove finished jobs from the panel (their logs stay)",
	.min_args = 1,
	.max_args = -1,
	.exec = cmd_rm_exec,
};

const struct cmd_entry cmd_clear_entry = {
	.name = "clear",
	.args = "",
	.help = "remove every finished job from the panel",
	.min_args = 0,
	.max_args = 0,
	.exec = cmd_clear_exec,
};

const struct cmd_entry cmd_rename_entry = {
	.name = "rename",
	.args = "ID NAME",
	.help = "name a job (letters, digits, _ . -; not only digits)",
	.min_args = 2,
	.max_args = 2,
	.exec = cmd_rename_exec,
};

enum { LOGS_FOLLOW, LOGS_ALL };
static const struct cmd_option cmd_logs_options[] = {
	[LOGS_FOLLOW] = { .name = "--follow", .alias = "-f" },
	[LOGS_ALL] = { .name = "--all", .alias = "-a" },
	{ .name = NULL }
};

/* "l" stays logs now that list shares the prefix. */
const struct cmd_entry cmd_logs_entry = {
	.name = "logs",
	.alias = "l",
	.options = cmd_logs_options,
	.args = "ID...",
	.help = "show a job's whole output, from the first line; several "
	    "jobs' (or --all) merged in time order, each line prefixed "
	    "with its job's name (ctl: --follow for what they print until "
	    "they end)",
	.min_args = 0,
	.max_args = -1,
	.flags = CMD_READ_ONLY,
	.exec = cmd_logs_exec,
};

/* Hand a job to the client as a JSON document: its job object. */
void
cmd_json_job_doc(struct cmd_ctx *ctx, struct job *job)
{
	char	*doc = jobfield_json_doc(job, NULL);

	cmd_json(ctx, doc);
	free(doc);
}

/*
 * Show jobs as the !ps table (ID, PID, STATE, EXIT, TIME, CPU, MEM,
 * COMMAND) or, for JSON, as {"jobs": [job, ...]}.
 */
void
cmd_show_jobs(struct cmd_ctx *ctx, struct job **jobs, int n)
{
	cmd_show_jobs_runs(ctx, jobs, n, NULL, -1);
}

/*
 * The jobs table's view (jobfield.h): NEXT (only when a job is on a
 * timer) and HOST (only when a job runs on one), then CPU, MEM and READY (yes, no, - for a job without a
 * readiness probe) go first when narrow;
 * COMMAND is the label with what a job waits for, its note and its agent.
 */
static const struct jobfield_col cmd_job_cols[] = {
	{ JOBFIELD_ID, "ID", 0 },
	{ JOBFIELD_PID, "PID", 0 },
	{ JOBFIELD_STATE, "STATE", 0 },
	{ JOBFIELD_READY, "READY", TEXTTABLE_OPTIONAL },
	{ JOBFIELD_EXIT, "EXIT", 0 },
	{ JOBFIELD_DURATION_MS, "TIME", 0 },
	{ JOBFIELD_CPU_MS, "CPU", TEXTTABLE_OPTIONAL },
	{ JOBFIELD_MEMORY_BYTES, "MEM", TEXTTABLE_OPTIONAL },
	{ JOBFIELD_NEXT_CLOCK, "NEXT", TEXTTABLE_OPTIONAL | TEXTTABLE_SPARSE },
	{ JOBFIELD_HOST, "HOST", TEXTTABLE_SPARSE },
	{ JOBFIELD_LABEL, "COMMAND", 0 },
};

#define CMD_JOB_NCOLS	(sizeof cmd_job_cols / sizeof cmd_job_cols[0])

/*
 * Show a table of jobs (JSON: {"jobs": [...]}) and, when nruns is not -1,
 * the runs of earlier decks after it ("history"); each table's columns
 * sized to its contents and the client's width (texttable.h).
 */
void
cmd_show_jobs_runs(struct cmd_ctx *ctx, struct job **jobs, int n,
    const struct store_meta *runs, int nruns)
{
	struct json_buf	  jb;
	struct texttable *t;
	char		**lines, **jl, **hl = NULL;
	int		  i, k = 0, nj, nh = 0;

	if (ctx->json) {
		json_init(&jb);
		json_object_begin(&jb);
		json_key(&jb, "jobs");
		json_array_begin(&jb);
		for (i = 0; i < n; i++) {
			json_object_begin(&jb);
			jobfield_json(&jb, jobs[i]);
			json_object_end(&jb);
		}
		json_array_end(&jb);
		if (nruns >= 0)
			cmd_history_json_runs(&jb, "history", runs, nruns);
		json_object_end(&jb);
		cmd_json_buf(ctx, &jb);
		return;
	}
	t = jobfield_table_new(cmd_job_cols, CMD_JOB_NCOLS);
	for (i = 0; i < n; i++)
		jobfield_table_add(t, cmd_job_cols, CMD_JOB_NCOLS, jobs[i]);
	jl = texttable_lines(t, ctx->width, &nj);
	texttable_free(t);
	if (nruns >= 0) {
		t = cmd_history_table(runs, nruns);
		hl = texttable_lines(t, ctx->width, &nh);
		texttable_free(t);
	}
	lines = xcalloc((size_t)nj + (size_t)nh + 3, sizeof *lines);
	for (i = 0; i < nj; i++)
		lines[k++] = jl[i];
	if (nruns >= 0) {
		lines[k++] = xstrdup("");
		lines[k++] = xprintf("History (%d run%s of earlier decks, "
		    "newest first):", nruns, nruns == 1 ? "" : "s");
		for (i = 0; i < nh; i++)
			lines[k++] = hl[i];
	}
	free(jl);
	free(hl);
	cmd_show(ctx, "Jobs", lines, k, 1);
	texttable_lines_free(lines, k);
}

/* !ps: show a table of every job. */
static void
cmd_ps_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct job	**jobs;
	int		  n, i;

	(void)argc;
	(void)argv;
	n = jobtable_count(ctx->jt);
	jobs = xcalloc((size_t)n + 1, sizeof *jobs);
	for (i = 0; i < n; i++)
		jobs[i] = jobtable_get(ctx->jt, i);
	cmd_show_jobs(ctx, jobs, n);
	free(jobs);
}

/*
 * Send sig to each job ids[0..n) names, through jobtable_kill(); each that
 * cannot take it is an error of the running command.  Return how many
 * did.
 */
static int
cmd_signal_each(struct cmd_ctx *ctx, int n, char **ids, int sig)
{
	struct job	*job;
	int		 i, done = 0;

	for (i = 0; i < n; i++) {
		if ((job = cmd_find_job(ctx, ids[i])) == NULL)
			continue;
		if (jobtable_kill(ctx->jt, job, sig) != 0) {
			cmd_error(ctx, "%s: job %d is not running",
			    ctx->entry->name, job_id(job));
			continue;
		}
		done++;
	}
	return done;
}

/* !kill [-SIGNAL] ID...: signal each job's process group. */
static void
cmd_kill_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	char		 name[WAITSTATUS_NAME_MAX];
	int		 sig = SIGTERM, i = 1, done;

	if (argv[1][0] == '-' && argv[1][1] != '\0') {
		sig = waitstatus_parse_signal(argv[1] + 1);
		if (sig == -1) {
			cmd_usage_error(ctx, "kill: unknown signal: %s",
			    argv[1] + 1);
			return;
		}
		if (argc < 3) {
			cmd_usage_fail(ctx);
			return;
		}
		i = 2;
	}
	done = cmd_signal_each(ctx, argc - i, argv + i, sig);
	if (done > 0 && !ctx->failed)
		cmd_message(ctx, "sent %s to %d job%s", waitstatus_signal_name(
		    sig, name, sizeof name), done, done == 1 ? "" : "s");
}

/* !stop ID... and !cont ID...: pause or resume each job's whole group. */
static void
cmd_stop_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	int	stop = ctx->entry == &cmd_stop_entry, done;

	done = cmd_signal_each(ctx, argc - 1, argv + 1, stop ? SIGSTOP :
	    SIGCONT);
	if (done > 0 && !ctx->failed)
		cmd_message(ctx, "%s %d job%s", stop ? "paused" : "resumed",
		    done, done == 1 ? "" : "s");
}

/* !rm ID...: remove each finished job; a running one is an error. */
static void
cmd_rm_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct job	*job;
	char		*cause;
	int		 i, done = 0;

	for (i = 1; i < argc; i++) {
		if ((job = cmd_find_job(ctx, argv[i])) == NULL)
			continue;
		if (jobtable_remove(ctx->jt, job, &cause) != 0) {
			cmd_error(ctx, "%s", cause);
			free(cause);
			continue;
		}
		done++;
	}
	if (done > 0 && !ctx->failed)
		cmd_message(ctx, "removed %d job%s", done, done == 1 ? "" : "s");
}

/* !clear: remove every finished job. */
static void
cmd_clear_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	int	n;

	(void)argc;
	(void)argv;
	n = jobtable_clear_finished(ctx->jt);
	if (n == 0)
		cmd_message(ctx, "no finished jobs");
	else
		cmd_message(ctx, "removed %d finished job%s", n,
		    n == 1 ? "" : "s");
}

/* !rename ID NAME: give a job a name. */
static void
cmd_rename_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct job	*job;
	char		*cause;

	(void)argc;
	if ((job = cmd_find_job(ctx, argv[1])) == NULL)
		return;
	if (jobtable_rename(ctx->jt, job, argv[2], &cause) != 0) {
		cmd_error(ctx, "rename: %s", cause);
		free(cause);
		return;
	}
	cmd_message(ctx, "[%d] is named %s", job_id(job), argv[2]);
}

/* !kill-all: stop every job at once. */
static void
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
}

/*
 * !logs [--follow] ID: show a job's whole output as text (JSON: {"id",
 * "lines"}); several IDs or --all merge the jobs' logs instead
 * (cmd-logs-merge.c); on a face's sink (ctl) the output is streamed as a task
 * instead (cmd-logs.c), and --follow, which only streams, goes on with
 * what the job prints until it ends.  Output
 * the store cannot read to its end (damaged) is shown as far as it goes,
 * or the terminal's lines when none of it can be read, and the command
 * fails saying why.
 */
static void
cmd_logs_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct json_buf	   jb;
	struct job	  *job;
	struct job_reader *r;
	const char	  *id, *dir, *run;
	char		 **lines, *title, *cause = NULL;
	int		   count, follow, rc = -1;

	follow = ctx->opts[LOGS_FOLLOW].count > 0;
	if (ctx->opts[LOGS_ALL].count > 0 && argc > ctx->first) {
		cmd_usage_error(ctx, "logs: --all takes no ID");
		return;
	}
	if (ctx->opts[LOGS_ALL].count > 0 || argc - ctx->first > 1) {
		cmd_logs_merged(ctx, ctx->opts[LOGS_ALL].count > 0, follow,
		    argc, argv);
		return;
	}
	if (argc <= ctx->first) {
		cmd_usage_fail(ctx);
		return;
	}
	id = argv[ctx->first];
	if (!follow && cmd_history_logs(ctx, id))
		return;
	job = cmd_find_job(ctx, id);
	if (job == NULL)
		return;
	if (follow && ctx->sink == NULL) {
		cmd_error(ctx, "logs --follow works only through the control "
		    "socket (jobdeck ctl logs --follow %s)", id);
		return;
	}
	if (ctx->sink != NULL) {
		if (cmd_logs_stream(ctx, job, follow, &cause) != 0) {
			cmd_error(ctx, "logs: %s", cause);
			free(cause);
		}
		return;
	}
	if (!ctx->json && ctx->client != NULL && ctx->client->show_run !=
	    NULL) {
		r = job_reader_open(job, 0, &cause);
		if (job_reader_source(r) == JOB_SOURCE_STORE) {
			/* The view reads the store: a screenful at a time. */
			run = job_reader_run(r, &dir);
			title = xprintf("Logs [%d] %s", job_id(job),
			    job_command(job));
			rc = ctx->client->show_run(title, dir, run,
			    job_is_running(job) ? -1 : 0, job_is_running(job),
			    ctx->arg, &cause);
			free(title);
		}
		job_reader_close(r);
		if (rc == 0)
			return;
		/* Unreadable now: the emulator's lines, then, and why. */
	}
	lines = job_text_lines_error(job, &count, &cause);
	if (ctx->json) {
		json_init(&jb);
		json_object_begin(&jb);
		json_key(&jb, "id");
		json_put_int(&jb, job_id(job));
		json_key(&jb, "lines");
		json_put_strings(&jb, lines, count);
		json_object_end(&jb);
		cmd_json_buf(ctx, &jb);
		title = NULL;
	} else {
		title = xprintf("Logs [%d] %s", job_id(job), job_command(job));
		cmd_show(ctx, title, lines, count, 0);
	}
	free(title);
	job_text_free(lines, count);
	if (cause != NULL)
		cmd_error(ctx, "logs: %s", cause);
	free(cause);
}
