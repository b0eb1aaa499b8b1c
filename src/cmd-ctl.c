/*
 * cmd-ctl.c: the commands made for scripts (jobdeck ctl), which work at
 * the prompt too: !list (a filtered !ps), !status (one job in detail, with
 * its output, or only what is new), !spawn (a job with its own name, cwd,
 * environment, with or without a shell), !send (text to a job's input) and
 * !events (a stream of every job's events, control socket only) and
 * !screen (a job's screen as it is now).
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "config.h"
#include "expand.h"
#include "job.h"
#include "jobfield.h"
#include "jobtable.h"
#include "json.h"
#include "name.h"
#include "session.h"
#include "stack.h"
#include "vt.h"
#include "xmalloc.h"

static void	cmd_list_exec(struct cmd_ctx *, int, char **);
static void	cmd_status_exec(struct cmd_ctx *, int, char **);
static void	cmd_spawn_exec(struct cmd_ctx *, int, char **);
static void	cmd_send_exec(struct cmd_ctx *, int, char **);
static void	cmd_events_exec(struct cmd_ctx *, int, char **);
static char	*cmd_unescape_word(struct cmd_ctx *, const char *,
		    const char *);
static void	cmd_spawn_escaped_free(struct cmd_ctx *, int, char **,
		    const char *, const char **);
static void	cmd_screen_exec(struct cmd_ctx *, int, char **);
static char	*cmd_unescape(const char *, size_t *, char **);

/* How many lines of output !status shows (logs streams them all). */
#define CMD_STATUS_LINES	1000

/* The options of list, status and spawn: ctx->opts follows these tables. */
enum { LIST_STATUS, LIST_GROUP, LIST_LIMIT, LIST_ALL };
static const struct cmd_option cmd_list_options[] = {
	[LIST_STATUS] = { .name = "--status", .value = "STATE,..." },
	[LIST_GROUP] = { .name = "--group", .value = "GROUP" },
	[LIST_LIMIT] = { .name = "--limit", .value = "N" },
	[LIST_ALL] = { .name = "--all", .alias = "-a" },
	{ .name = NULL }
};

enum { STATUS_INCREMENTAL, STATUS_SINCE, STATUS_MAX_BYTES, STATUS_SPLIT };
static const struct cmd_option cmd_status_options[] = {
	[STATUS_INCREMENTAL] = { .name = "--incremental", .alias = "-i" },
	[STATUS_SINCE] = { .name = "--since", .value = "MARK" },
	[STATUS_MAX_BYTES] = { .name = "--max-bytes", .value = "N" },
	[STATUS_SPLIT] = { .name = "--split" },
	{ .name = NULL }
};

/* The most bytes of output status --since (and --split) gives. */
#define CMD_STATUS_BYTES	(1024 * 1024)

enum {
	SPAWN_NAME, SPAWN_CWD, SPAWN_HOST, SPAWN_ENV, SPAWN_NO_SHELL,
	SPAWN_AGENT, SPAWN_PIPES, SPAWN_INPUT, SPAWN_TIMEOUT, SPAWN_ESCAPED
};
static const struct cmd_option cmd_spawn_options[] = {
	[SPAWN_NAME] = { .name = "--name", .value = "N" },
	[SPAWN_CWD] = { .name = "--cwd", .value = "DIR" },
	[SPAWN_HOST] = { .name = "--host", .value = "H" },
	[SPAWN_ENV] = { .name = "--env", .value = "K=V",
	    .flags = CMD_OPT_REPEAT },
	[SPAWN_NO_SHELL] = { .name = "--no-shell" },
	[SPAWN_AGENT] = { .name = "--agent", .value = "NAME" },
	[SPAWN_PIPES] = { .name = "--pipes" },
	[SPAWN_INPUT] = { .name = "--input", .value = "TEXT" },
	[SPAWN_TIMEOUT] = { .name = "--timeout", .value = "S" },
	[SPAWN_ESCAPED] = { .name = "--escaped" },
	{ .name = NULL }
};

const struct cmd_entry cmd_list_entry = {
	.name = "list",
	.options = cmd_list_options,
	.args = "",
	.help = "list jobs in the given states (queued, waiting, running, "
	    "stopped, completed, failed, canceled, timed-out) and group, the "
	    "N most recent (--all: and the runs of earlier decks); waiting "
	    "is also a running job waiting for input",
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_READ_ONLY,
	.exec = cmd_list_exec,
};

const struct cmd_entry cmd_status_entry = {
	.name = "status",
	.options = cmd_status_options,
	.args = "ID",
	.help = "show a job's state, times, exit and output (--incremental: "
	    "only the output since the last such call; --since MARK: the "
	    "output after a \"next\" mark, oldest first, at most N bytes; "
	    "--split, JSON: each stream's bytes as written)",
	.min_args = 1,
	.max_args = 1,
	.flags = CMD_READ_ONLY,
	.exec = cmd_status_exec,
};

const struct cmd_entry cmd_spawn_entry = {
	.name = "spawn",
	.options = cmd_spawn_options,
	.args = "[--] COMMAND...",
	.help = "start a job: a shell command (the rest of the line as "
	    "typed), or with --no-shell a program and its arguments "
	    "(--agent: marked as started by that agent; --pipes: stdout and "
	    "stderr apart, no terminal; --input: written to its stdin, then "
	    "EOF on pipes; --timeout: stopped after S seconds; --escaped: "
	    "the command, arguments, --cwd and --env carry send's escapes, "
	    "so a script's lines fit one request; --host: run on a [hosts] "
	    "name or an ssh destination, --cwd a directory there)",
	.min_args = 1,
	.max_args = -1,
	.exec = cmd_spawn_exec,
};

const struct cmd_entry cmd_send_entry = {
	.name = "send",
	.args = "ID [--] TEXT...",
	.help = "write the rest of the line, as typed, to a job's input "
	    "(escapes: \\n \\r \\t \\\\ \\xHH)",
	.min_args = 2,
	.max_args = -1,
	.exec = cmd_send_exec,
};

const struct cmd_entry cmd_events_entry = {
	.name = "events",
	.args = "",
	.help = "stream every job's events as JSON lines (control socket only)",
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_READ_ONLY,
	.exec = cmd_events_exec,
};

const struct cmd_entry cmd_screen_entry = {
	.name = "screen",
	.args = "ID",
	.help = "show a job's screen as it is now: its rows as text (JSON: "
	    "and the cursor, the alternate screen, the title)",
	.min_args = 1,
	.max_args = 1,
	.flags = CMD_READ_ONLY,
	.exec = cmd_screen_exec,
};

/* Parse a state list ("running,failed") into a mask of 1 << state. */
static int
cmd_parse_states(struct cmd_ctx *ctx, const char *list, unsigned int *mask)
{
	static const enum job_state states[] = {
		JOB_QUEUED, JOB_WAITING, JOB_RUNNING, JOB_STOPPED,
		JOB_COMPLETED, JOB_FAILED, JOB_CANCELED, JOB_TIMED_OUT,
		JOB_BLOCKED
	};
	const char	*p = list, *end;
	char		*names, *tmp;
	size_t		 len, k;

	*mask = 0;
	do {
		end = strchr(p, ',');
		len = end != NULL ? (size_t)(end - p) : strlen(p);
		for (k = 0; k < sizeof states / sizeof states[0]; k++) {
			if (strlen(job_state_name(states[k])) == len &&
			    strncmp(job_state_name(states[k]), p, len) == 0)
				break;
		}
		if (k == sizeof states / sizeof states[0]) {
			names = xstrdup("");
			for (k = 0; k < sizeof states / sizeof states[0];
			    k++) {
				tmp = xprintf("%s%s%s", names, k > 0 ? ", " :
				    "", job_state_name(states[k]));
				free(names);
				names = tmp;
			}
			cmd_usage_error(ctx, "list: unknown status: %.*s "
			    "(%s)", (int)len, p, names);
			free(names);
			return -1;
		}
		*mask |= 1U << states[k];
		p = end != NULL ? end + 1 : NULL;
	} while (p != NULL);
	return 0;
}

/*
 * Return whether job is in a state of mask; "waiting" is also a running
 * job waiting for input (its terminal read, see job_input_wait()).
 */
static int
cmd_state_matches(struct job *job, unsigned int mask)
{
	if (mask & (1U << job_state(job)))
		return 1;
	return (mask & (1U << JOB_WAITING)) &&
	    job_input_wait(job) != TTYWAIT_NONE;
}

/* Return whether job belongs to group (its spec's, from the config). */
static int
cmd_in_group(struct job *job, const char *group)
{
	const char	*g = job_spec(job)->group;

	return g != NULL && strcmp(g, group) == 0;
}

/*
 * !list [--status STATE,...] [--group GROUP] [--limit N]: the jobs in
 * those states (all by default; waiting: held before a start, or running
 * and waiting for input) and that group, at most the N most recent, in
 * id order.
 */
static void
cmd_list_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct job	**jobs, *job;
	const char	 *value, *group;
	unsigned int	  mask = ~0U;
	char		 *end;
	struct store_meta *runs;
	long		  limit = -1;
	int		  i, n, count, first, nruns;

	(void)argc;
	(void)argv;
	if (ctx->opts[LIST_STATUS].count > 0 &&
	    cmd_parse_states(ctx, ctx->opts[LIST_STATUS].value, &mask) != 0)
		return;
	if ((value = ctx->opts[LIST_LIMIT].value) != NULL) {
		errno = 0;
		limit = strtol(value, &end, 10);
		if (*value == '\0' || *end != '\0' || errno != 0 ||
		    limit < 1 || limit > INT_MAX) {
			cmd_usage_error(ctx, "list: --limit wants a positive "
			    "number: %s", value);
			return;
		}
	}
	group = ctx->opts[LIST_GROUP].value;
	n = jobtable_count(ctx->jt);
	jobs = xcalloc((size_t)n + 1, sizeof *jobs);
	for (i = count = 0; i < n; i++) {
		job = jobtable_get(ctx->jt, i);
		if (cmd_state_matches(job, mask) && (group == NULL ||
		    cmd_in_group(job, group)))
			jobs[count++] = job;
	}
	first = limit > 0 && count > limit ? count - (int)limit : 0;
	if (ctx->opts[LIST_ALL].count > 0) {
		if ((nruns = cmd_history_runs(ctx, 0, (int)limit, &runs)) >= 0) {
			cmd_show_jobs_runs(ctx, jobs + first, count - first,
			    runs, nruns);
			cmd_history_free(runs, nruns);
		}
	} else
		cmd_show_jobs(ctx, jobs + first, count - first);
	free(jobs);
}

/*
 * Take status's --max-bytes into *max (allowed with wants set: --since,
 * --split): 1 to CMD_STATUS_BYTES; 0, or -1 once reported.
 */
static int
cmd_status_max_bytes(struct cmd_ctx *ctx, int wants, size_t *max)
{
	const char	*value = ctx->opts[STATUS_MAX_BYTES].value;
	char		*end;
	long long	 n;

	*max = CMD_STATUS_BYTES;
	if (value == NULL)
		return 0;
	if (!wants) {
		cmd_usage_error(ctx, "status: --max-bytes goes with --since or "
		    "--split");
		return -1;
	}
	errno = 0;
	n = strtoll(value, &end, 10);
	if (*value < '0' || *value > '9' || *end != '\0' || errno != 0 ||
	    n < 1 || n > CMD_STATUS_BYTES) {
		cmd_usage_error(ctx, "status: --max-bytes wants a number of "
		    "bytes from 1 to %d: %s", CMD_STATUS_BYTES, value);
		return -1;
	}
	*max = (size_t)n;
	return 0;
}

/*
 * Parse a mark as a "next" gives it, "LINE:BYTES" (decimal); 0 or -1.
 */
static int
cmd_parse_mark(const char *s, struct store_mark *mark)
{
	unsigned long long	 line, bytes;
	char			*end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	line = strtoull(s, &end, 10);
	if (errno != 0 || *end != ':' || line > INT64_MAX || end[1] < '0' ||
	    end[1] > '9')
		return -1;
	s = end + 1;
	bytes = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	mark->line = (int64_t)line;
	mark->partial = bytes;
	return 0;
}

/* Write a mark as cmd_parse_mark() reads it, "LINE:BYTES", into buf. */
static const char *
cmd_format_mark(const struct store_mark *mark, char *buf, size_t size)
{
	snprintf(buf, size, "%lld:%llu", (long long)mark->line,
	    (unsigned long long)mark->partial);
	return buf;
}

/* Put a mark into jb as its "LINE:BYTES" string. */
static void
cmd_json_mark(struct json_buf *jb, const struct store_mark *mark)
{
	char	buf[64];

	json_put_string(jb, cmd_format_mark(mark, buf, sizeof buf));
}

/*
 * Put lines as one string into jb: each line ending in "\n" but a partial
 * last one.
 */
static void
cmd_json_lines(struct json_buf *jb, char **lines, int count, int partial)
{
	char	*doc;
	size_t	 len, n;
	int	 i;

	for (i = 0, len = 0; i < count; i++)
		len += strlen(lines[i]) + 1;
	doc = xmalloc(len + 1);
	for (i = 0, len = 0; i < count; i++) {
		n = strlen(lines[i]);
		memcpy(doc + len, lines[i], n);
		len += n;
		/* A partial last line (a prompt) has no newline yet. */
		if (i < count - 1 || !partial)
			doc[len++] = '\n';
	}
	json_put_stringn(jb, doc, len);
	free(doc);
}

/*
 * Put status --split's members into jb: "stdout" and "stderr", the first
 * max bytes each stream wrote, "stdout_truncated" and "stderr_truncated"
 * (more was written, or the bounded read of job_output_split() stopped
 * before it knew).
 */
static void
cmd_json_split(struct json_buf *jb, struct job *job, size_t max)
{
	static const char *const	names[] = { "stdout", "stderr" };
	struct job_split		split;
	char				key[32];
	int				k;

	job_output_split(job, max, &split);
	for (k = 0; k < 2; k++) {
		json_key(jb, names[k]);
		json_put_stringn(jb, split.data[k], split.len[k]);
	}
	for (k = 0; k < 2; k++) {
		snprintf(key, sizeof key, "%s_truncated", names[k]);
		json_key(jb, key);
		json_put_bool(jb, split.truncated[k]);
		free(split.data[k]);
	}
}

/* The fields !status shows of a job, a line each (jobfield.h). */
static const struct jobfield_col cmd_status_fields[] = {
	{ JOBFIELD_ID, "id", 0 },
	{ JOBFIELD_NAME, "name", 0 },
	{ JOBFIELD_STATE_INPUT, "state", 0 },
	{ JOBFIELD_COMMAND, "command", 0 },
	{ JOBFIELD_CWD, "cwd", 0 },
	{ JOBFIELD_PID, "pid", 0 },
	{ JOBFIELD_STARTED_AT, "started", 0 },
	{ JOBFIELD_DURATION_MS, "duration", 0 },
	{ JOBFIELD_EXIT, "exit", 0 },
	{ JOBFIELD_READY_LINE, "ready", 0 },
};

#define CMD_STATUS_NFIELDS \
	(sizeof cmd_status_fields / sizeof cmd_status_fields[0])

/*
 * !status: refuse options that do not go together, take --since's mark
 * into mark and the byte bound into max; 0, or -1 once reported.
 */
static int
cmd_status_check(struct cmd_ctx *ctx, int incremental, const char *since,
    int split, struct store_mark *mark, size_t *max)
{
	/* The job's own mark is everyone's: moving it is a change. */
	if (incremental && ctx->read_only) {
		(void)cmd_refuse_write(ctx, "status --incremental");
		return -1;
	}
	if (incremental && since != NULL) {
		cmd_usage_error(ctx, "status: --incremental and --since do not "
		    "go together");
		return -1;
	}
	memset(mark, 0, sizeof *mark);
	if (since != NULL && cmd_parse_mark(since, mark) != 0) {
		cmd_usage_error(ctx, "status: --since wants LINE:BYTES as a "
		    "\"next\" gave: %s", since);
		return -1;
	}
	if (split && !ctx->json) {
		cmd_usage_error(ctx, "status: --split gives JSON only (ctl "
		    "--json)");
		return -1;
	}
	return cmd_status_max_bytes(ctx, since != NULL || split, max);
}

/*
 * !status: read a job's output into page: at most max bytes from mark
 * (since), what is new (incremental) or its last lines; mark becomes
 * where to read on from.
 */
static void
cmd_status_read(struct job *job, int since, int incremental, size_t max,
    struct job_page *page, struct store_mark *mark)
{
	/* A summary: its last lines, in bounded memory; logs has them all. */
	memset(page, 0, sizeof *page);
	if (since)
		job_text_page(job, mark, max, page);
	else if (incremental) {
		page->lines = job_text_incremental_error(job, CMD_STATUS_LINES,
		    &page->count, &page->partial, &page->more, &page->error);
		job_text_mark(job, mark);
	} else {
		page->lines = job_text_tail_error(job, CMD_STATUS_LINES,
		    &page->count, &page->more, &page->error);
		job_text_end(job, mark);
	}
}

/* !status --json: the job object with its output read (page) and next. */
static void
cmd_status_json(struct cmd_ctx *ctx, struct job *job,
    const struct job_page *page, const struct store_mark *mark, int since,
    int split, size_t max)
{
	struct json_buf	 jb;

	json_init(&jb);
	json_object_begin(&jb);
	jobfield_json(&jb, job);
	json_key(&jb, "output");
	cmd_json_lines(&jb, page->lines, page->count, page->partial);
	json_key(&jb, "output_truncated");
	json_put_bool(&jb, page->more);
	json_key(&jb, "output_partial");
	json_put_bool(&jb, page->partial);
	json_key(&jb, "next");
	cmd_json_mark(&jb, mark);
	if (since) {
		json_key(&jb, "output_from");
		json_put_int(&jb, page->from);
		json_key(&jb, "lines_left");
		json_put_int(&jb, page->left);
	}
	if (split)
		cmd_json_split(&jb, job, max);
	/* Damage in the store: the output ends where it is. */
	if (page->error != NULL) {
		json_key(&jb, "output_error");
		json_put_string(&jb, page->error);
	}
	json_object_end(&jb);
	cmd_json_buf(ctx, &jb);
}

/* !status in text: the fields, the output with its heading, and next. */
static void
cmd_status_text(struct cmd_ctx *ctx, struct job *job,
    const struct job_page *page, const struct store_mark *mark, int since,
    int incremental)
{
	char	**out, *doc, buf[64];
	size_t	  k;
	int	  i, n = 0;

	out = xcalloc(CMD_STATUS_NFIELDS + (size_t)page->count + 3,
	    sizeof *out);
	for (k = 0; k < CMD_STATUS_NFIELDS; k++)
		out[n++] = jobfield_line(job, &cmd_status_fields[k]);
	if (since)
		out[n++] = xprintf("output (from line %lld):",
		    (long long)page->from);
	else if (page->more && incremental)
		out[n++] = xprintf("output (new, but earlier new lines left out; "
		    "logs shows them all):");
	else if (page->more)
		out[n++] = xprintf("output (the last %d lines; logs shows them "
		    "all):", CMD_STATUS_LINES);
	else
		out[n++] = xprintf("output%s:", incremental ? " (new)" : "");
	for (i = 0; i < page->count; i++)
		out[n++] = xstrdup(page->lines[i]);
	if (page->error != NULL)
		out[n++] = xprintf("output error: %s", page->error);
	if (since)
		out[n++] = xprintf("next: status --since %s %d%s",
		    cmd_format_mark(mark, buf, sizeof buf), job_id(job),
		    page->more ? "  (more is there)" : "");
	doc = xprintf("Status [%d] %s", job_id(job), job_command(job));
	cmd_show(ctx, doc, out, n, 0);
	free(doc);
	for (i = 0; i < n; i++)
		free(out[i]);
	free(out);
}

/*
 * !status [--incremental | --since MARK [--max-bytes N]] [--split] ID: a job's
 * fields and its output as text lines (JSON: the job object with
 * "output", the lines each ending in "\n", and "next", the mark to read
 * on from); with --incremental only the output since the last
 * incremental call; with --since the output after MARK, oldest first, at
 * most N bytes of it (job_text_page()), and the job's own mark stays;
 * with --split (JSON only) each stream's bytes too (cmd_json_split()).
 * Output that ends at damage in the store says why ("output_error";
 * "output error: ..." in text).
 */
static void
cmd_status_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct job	 *job;
	struct job_page	  page;
	struct store_mark mark;
	const char	 *since;
	size_t		  max = CMD_STATUS_BYTES;
	int		  incremental, split;

	(void)argc;
	incremental = ctx->opts[STATUS_INCREMENTAL].count > 0;
	since = ctx->opts[STATUS_SINCE].value;
	split = ctx->opts[STATUS_SPLIT].count > 0;
	if (cmd_status_check(ctx, incremental, since, split, &mark, &max) != 0)
		return;
	if ((job = cmd_find_job(ctx, argv[ctx->first])) == NULL)
		return;
	cmd_status_read(job, since != NULL, incremental, max, &page, &mark);
	if (ctx->json)
		cmd_status_json(ctx, job, &page, &mark, since != NULL, split,
		    max);
	else
		cmd_status_text(ctx, job, &page, &mark, since != NULL,
		    incremental);
	job_text_free(page.lines, page.count);
	free(page.error);
}

/* Return whether s is NAME=VALUE with an identifier for NAME. */
static int
cmd_is_assignment(const char *s)
{
	const char	*eq = strchr(s, '=');

	return eq != NULL && name_is_ident(s, (size_t)(eq - s));
}

/*
 * Return env (a NULL-terminated array) with each NAME=VALUE of sets over
 * it, as a new array of borrowed pointers for the caller to free.
 */
static char **
cmd_env_over(char **env, const char **sets, int nsets)
{
	char	**out;
	size_t	  n, k, len;
	int	  i;

	for (n = 0; env[n] != NULL; n++)
		;
	out = xcalloc(n + (size_t)nsets + 1, sizeof *out);
	memcpy(out, env, n * sizeof *out);
	for (i = 0; i < nsets; i++) {
		len = strcspn(sets[i], "=") + 1;
		for (k = 0; k < n; k++) {
			if (strncmp(out[k], sets[i], len) == 0)
				break;
		}
		out[k] = (char *)sets[i];
		if (k == n)
			n++;
	}
	out[n] = NULL;
	return out;
}

/*
 * Take spawn's --input (send's escapes decoded; no NUL) and --timeout
 * into spec; 0, or -1 once reported.  *input is the caller's to free.
 */
static int
cmd_spawn_io(struct cmd_ctx *ctx, struct job_spec *spec, char **input)
{
	const char	*value;
	double		 secs;

	*input = NULL;
	if ((value = ctx->opts[SPAWN_TIMEOUT].value) != NULL) {
		if (cmd_parse_seconds(value, CONFIG_MAX_SECONDS, &secs) != 0) {
			cmd_usage_error(ctx, "spawn: --timeout wants seconds "
			    "from 0 to %.0f (0: none), not '%s'",
			    CONFIG_MAX_SECONDS, value);
			return -1;
		}
		spec->timeout_ms = (int64_t)(secs * 1000.0 + 0.5);
	}
	if ((value = ctx->opts[SPAWN_INPUT].value) == NULL)
		return 0;
	if ((*input = cmd_unescape_word(ctx, "--input", value)) == NULL)
		return -1;
	spec->input = *input;
	return 0;
}

/*
 * With spawn --escaped, decode send's escapes in the operands (from
 * first), --cwd and --env into new copies: *words (argc words), *cwd and
 * *sets, the caller's to free with cmd_spawn_escaped_free(); without it,
 * borrow them as they are.  0, or -1 once reported.
 */
static int
cmd_spawn_escaped(struct cmd_ctx *ctx, int argc, char **argv,
    char ***words, const char **cwd, const char ***sets)
{
	const char	**all = ctx->opts[SPAWN_ENV].all;
	char		**w, **e, *c = NULL;
	int		  k, n = ctx->opts[SPAWN_ENV].count;

	*words = argv;
	*cwd = ctx->opts[SPAWN_CWD].value;
	*sets = all;
	if (ctx->opts[SPAWN_ESCAPED].count == 0)
		return 0;
	w = xcalloc((size_t)argc + 1, sizeof *w);
	e = xcalloc((size_t)n + 1, sizeof *e);
	for (k = 0; k < argc; k++) {
		w[k] = k < ctx->first ? xstrdup(argv[k]) :
		    cmd_unescape_word(ctx, "spawn --escaped", argv[k]);
		if (w[k] == NULL)
			goto fail;
	}
	for (k = 0; k < n; k++) {
		if ((e[k] = cmd_unescape_word(ctx, "--env", all[k])) == NULL)
			goto fail;
	}
	if (*cwd != NULL &&
	    (c = cmd_unescape_word(ctx, "--cwd", *cwd)) == NULL)
		goto fail;
	*words = w;
	*cwd = c;
	*sets = (const char **)e;
	return 0;

fail:
	cmd_spawn_escaped_free(ctx, argc, w, c, (const char **)e);
	return -1;
}

/* Free what cmd_spawn_escaped() decoded, if it decoded anything. */
static void
cmd_spawn_escaped_free(struct cmd_ctx *ctx, int argc, char **words,
    const char *cwd, const char **sets)
{
	int	k;

	if (ctx->opts[SPAWN_ESCAPED].count == 0)
		return;
	for (k = 0; k < argc; k++)
		free(words[k]);
	free(words);
	for (k = 0; k < ctx->opts[SPAWN_ENV].count; k++)
		free((char *)sets[k]);
	free(sets);
	free((char *)cwd);
}

/*
 * !spawn [--name N] [--cwd DIR] [--host H] [--env K=V]... [--no-shell]
 * [--agent NAME] [--pipes] [--input TEXT] [--timeout S] [--escaped] [--]
 * COMMAND...: start a
 * job in the session's cwd and environment (or the given ones): the
 * words joined as a shell command, or with --no-shell the program and
 * its arguments as they are; --agent marks it as an agent's
 * (job_check_agent()); --pipes runs it without a terminal, stdout and
 * stderr apart, its stdin closed once --input is written (/dev/null
 * without); --timeout stops it after S seconds (timed-out); --host runs
 * it on a [hosts] name or an ssh destination (config_check_host() against
 * the deck's configuration), --cwd then a directory there as given.
 */
static void
cmd_spawn_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct job_spec	  spec;
	struct stat	  sb;
	struct job	 *job;
	const char	 *name, *cwd, *tail, **sets, *agent, *host;
	char		**env, **envp, *dir = NULL, *command = NULL;
	char		 *cause = NULL, *input = NULL, **words;
	int		  i, k, nsets, no_shell;

	memset(&spec, 0, sizeof spec);
	name = ctx->opts[SPAWN_NAME].value;
	no_shell = ctx->opts[SPAWN_NO_SHELL].count > 0;
	nsets = ctx->opts[SPAWN_ENV].count;
	agent = ctx->opts[SPAWN_AGENT].value;
	if (agent != NULL && job_check_agent(agent, &cause) != 0) {
		cmd_usage_error(ctx, "spawn: --agent: %s", cause);
		free(cause);
		return;
	}
	if (cmd_spawn_escaped(ctx, argc, argv, &words, &cwd, &sets) != 0)
		return;
	argv = words;
	for (k = 0; k < nsets; k++) {
		if (!cmd_is_assignment(sets[k])) {
			cmd_usage_error(ctx, "spawn: --env wants NAME=VALUE: "
			    "%s", sets[k]);
			goto out;
		}
	}
	if (cmd_spawn_io(ctx, &spec, &input) != 0)
		goto out;
	i = ctx->first;
	if (name != NULL && name_check_job(name, &cause) != 0) {
		cmd_usage_error(ctx, "spawn: %s", cause);
		free(cause);
		goto out;
	}
	if ((host = ctx->opts[SPAWN_HOST].value) != NULL &&
	    config_check_host(ctx->stack != NULL ? stack_config(ctx->stack) :
	    NULL, host, &cause) != 0) {
		cmd_usage_error(ctx, "spawn: --host: %s", cause);
		free(cause);
		goto out;
	}
	if (cwd != NULL && host == NULL) {
		dir = *cwd == '/' ? xstrdup(cwd) :
		    xprintf("%s/%s", session_cwd(ctx->session), cwd);
		if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
			cmd_error(ctx, "spawn: %s: %s", cwd,
			    strerror(stat(dir, &sb) != 0 ? errno : ENOTDIR));
			goto out;
		}
	}
	if (!no_shell) {
		/*
		 * As typed at the prompt.  From a script: one word is the
		 * command string itself ('npm run dev'), several are a
		 * program and its arguments, quoted back into one
		 * (sh -c 'echo a; sleep 1').
		 */
		tail = ctx->opts[SPAWN_ESCAPED].count == 0 ?
		    cmd_raw_tail(ctx, argc, i) : NULL;
		if (tail != NULL)
			command = xstrdup(tail);
		else if (i == argc - 1)
			command = xstrdup(argv[i]);
		else
			command = expand_shell_join(argv + i);
	}

	env = session_env(ctx->session);
	envp = cmd_env_over(env, sets, nsets);
	spec.name = name;
	spec.command = command;
	spec.argv = no_shell ? argv + i : NULL;
	spec.shell = session_shell(ctx->session);
	if (host != NULL)
		spec.cwd = cwd;	/* there, as given; NULL: its login dir */
	else
		spec.cwd = dir != NULL ? dir : session_cwd(ctx->session);
	spec.host = host;
	spec.envp = envp;
	spec.agent = agent;
	if (ctx->opts[SPAWN_PIPES].count > 0)
		spec.no_pty = spec.input_eof = 1;
	job = jobtable_spawn(ctx->jt, &spec, &cause);
	free(envp);
	session_env_free(env);
	if (job == NULL) {
		cmd_error(ctx, "spawn: cannot start %s: %s", command != NULL ?
		    command : argv[i], cause);
		free(cause);
		goto out;
	}
	if (ctx->client != NULL && ctx->client->select != NULL)
		ctx->client->select(job, 0, ctx->arg);
	if (ctx->json)
		cmd_json_job_doc(ctx, job);
	else
		cmd_message(ctx, "started [%d] %s", job_id(job),
		    job_command(job));
out:
	cmd_spawn_escaped_free(ctx, argc, words, cwd, sets);
	free(dir);
	free(command);
	free(input);
}

/* Return the value of a hex digit, or -1. */
static int
cmd_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Decode send's escapes (\n \r \t \\ \xHH) in s into a new buffer (NUL
 * after its len bytes); NULL with *cause for an unknown or short escape.
 */
static char *
cmd_unescape(const char *s, size_t *len, char **cause)
{
	char	*out = xmalloc(strlen(s) + 1);
	size_t	 n = 0;
	int	 hi, lo;

	for (; *s != '\0'; s++) {
		if (*s != '\\') {
			out[n++] = *s;
			continue;
		}
		switch (*++s) {
		case 'n':
			out[n++] = '\n';
			break;
		case 'r':
			out[n++] = '\r';
			break;
		case 't':
			out[n++] = '\t';
			break;
		case '\\':
			out[n++] = '\\';
			break;
		case 'x':
			if ((hi = cmd_hex(s[1])) == -1 ||
			    (lo = cmd_hex(s[2])) == -1) {
				*cause = xprintf("\\x wants two hex digits");
				free(out);
				return NULL;
			}
			out[n++] = (char)(hi << 4 | lo);
			s += 2;
			break;
		case '\0':
			*cause = xprintf("a lone \\ at the end");
			free(out);
			return NULL;
		default:
			*cause = xprintf("unknown escape \\%c (\\n \\r \\t "
			    "\\\\ \\xHH)", *s);
			free(out);
			return NULL;
		}
	}
	out[n] = '\0';
	*len = n;
	return out;
}

/*
 * Decode send's escapes in s, a word that must stay one C string (what
 * names it in errors: "--input"); a new string, or NULL once reported
 * (an unknown escape, or a \x00 in it).
 */
static char *
cmd_unescape_word(struct cmd_ctx *ctx, const char *what, const char *s)
{
	char	*out, *cause = NULL;
	size_t	 len;

	if ((out = cmd_unescape(s, &len, &cause)) == NULL) {
		cmd_usage_error(ctx, "spawn: %s: %s", what, cause);
		free(cause);
		return NULL;
	}
	if (memchr(out, '\0', len) != NULL) {
		cmd_usage_error(ctx, "spawn: %s cannot hold a NUL byte (\\x00)",
		    what);
		free(out);
		return NULL;
	}
	return out;
}

/*
 * !send ID [--] TEXT...: write the text to a job's input: at the prompt
 * the rest of the line as typed, from a script its words joined by
 * spaces; then send's escapes are decoded.
 */
static void
cmd_send_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct job	*job;
	const char	*tail;
	char		*text, *tmp, *buf, *cause = NULL;
	size_t		 len;
	int		 i = 2;

	if (strcmp(argv[i], "--") == 0 && ++i >= argc) {
		cmd_usage_fail(ctx);
		return;
	}
	if ((job = cmd_find_job(ctx, argv[1])) == NULL)
		return;
	if ((tail = cmd_raw_tail(ctx, argc, i)) != NULL) {
		text = xstrdup(tail);
		i = argc;
	} else
		text = xstrdup(argv[i]);
	while (++i < argc) {
		tmp = xprintf("%s %s", text, argv[i]);
		free(text);
		text = tmp;
	}
	buf = cmd_unescape(text, &len, &cause);
	free(text);
	if (buf == NULL) {
		cmd_usage_error(ctx, "send: %s", cause);
		free(cause);
		return;
	}
	if (!job_is_running(job) || jobtable_write(ctx->jt, job, buf, len)
	    != 0) {
		if (job_is_running(job) && errno == ENOBUFS)
			cmd_error(ctx, "send: job %d is not reading its input "
			    "(too much waits)", job_id(job));
		else
			cmd_error(ctx, "send: job %d is not running",
			    job_id(job));
		free(buf);
		return;
	}
	free(buf);
	cmd_message(ctx, "sent %zu byte%s to [%d]", len, len == 1 ? "" : "s",
	    job_id(job));
}

/* !events: turn the client into a stream of every job's events. */
static void
cmd_events_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	char	*cause = NULL;

	(void)argc;
	(void)argv;
	if (ctx->client == NULL || ctx->client->events == NULL) {
		cmd_error(ctx, "events works only through the control socket "
		    "(jobdeck ctl events)");
		return;
	}
	if (ctx->client->events(ctx->arg, &cause) != 0) {
		cmd_error(ctx, "events: %s", cause);
		free(cause);
		return;
	}
}

/*
 * !screen ID: the job's screen now, a row a line with trailing blanks
 * trimmed (wide characters once); JSON: {"id", "rows", "cols", "cursor":
 * {"row", "col", "visible"}, "alt_screen", "title" (null: none set),
 * "lines"}.  A job that printed nothing yet has blank rows of its size.
 */
static void
cmd_screen_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct json_buf	  jb;
	struct job	 *job;
	struct vt	 *vt;
	char		**lines, *doc;
	const char	 *title = NULL;
	int		  rows, cols, first, i, cy = 0, cx = 0, visible = 1;
	int		  alt = 0;

	(void)argc;
	if ((job = cmd_find_job(ctx, argv[1])) == NULL)
		return;
	vt = job_vt(job);
	job_size(job, &rows, &cols);
	lines = xcalloc((size_t)rows + 1, sizeof *lines);
	if (vt != NULL) {
		first = vt_text_count(vt) - rows;
		for (i = 0; i < rows; i++) {
			if ((lines[i] = vt_text_line(vt, first + i)) == NULL)
				lines[i] = xstrdup("");
		}
		visible = vt_cursor(vt, &cy, &cx);
		alt = vt_altscreen(vt);
		if (*vt_title(vt) != '\0')
			title = vt_title(vt);
	} else {
		for (i = 0; i < rows; i++)
			lines[i] = xstrdup("");
	}

	if (ctx->json) {
		json_init(&jb);
		json_object_begin(&jb);
		json_key(&jb, "id");
		json_put_int(&jb, job_id(job));
		json_key(&jb, "rows");
		json_put_int(&jb, rows);
		json_key(&jb, "cols");
		json_put_int(&jb, cols);
		json_key(&jb, "cursor");
		json_object_begin(&jb);
		json_key(&jb, "row");
		json_put_int(&jb, cy);
		json_key(&jb, "col");
		json_put_int(&jb, cx);
		json_key(&jb, "visible");
		json_put_bool(&jb, visible);
		json_object_end(&jb);
		json_key(&jb, "alt_screen");
		json_put_bool(&jb, alt);
		json_key(&jb, "title");
		json_put_string(&jb, title);
		json_key(&jb, "lines");
		json_put_strings(&jb, lines, rows);
		json_object_end(&jb);
		cmd_json_buf(ctx, &jb);
		doc = NULL;
	} else {
		doc = xprintf("Screen [%d] %s", job_id(job), job_command(job));
		cmd_show(ctx, doc, lines, rows, 0);
	}
	free(doc);
	job_text_free(lines, rows);
}
