/*
 * mcp-tools-job.c: the MCP tools on a job that exists (mcp-tools-private.h):
 * terminal_job_status (the output this session has not seen, from its mark
 * per job and run, or from a line), terminal_job_list, terminal_job_cancel,
 * terminal_send_input and terminal_screen.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "jsonval.h"
#include "mcp-tools-private.h"
#include "xmalloc.h"

/* ---- terminal_job_status ---- */

static void	mcp_tools_status_found(struct mcp_call *,
		    const struct mcp_reply *);
static void	mcp_tools_status_read(struct mcp_call *,
		    const struct mcp_reply *);

/* Ask the deck for a job's output from tc->since; done gets the reply. */
static void
mcp_tools_status_ask(struct mcp_call *call, const char *max,
    mcp_call_cb *done)
{
	struct mcp_tools_call	*tc = mcp_call_state(call);
	struct mcp_tools_words	 w = { NULL, 0, 0 };

	mcp_tools_add(&w, "status");
	mcp_tools_add(&w, "--since");
	mcp_tools_add(&w, tc->since);
	mcp_tools_add(&w, "--max-bytes");
	mcp_tools_add(&w, max);
	mcp_tools_add(&w, tc->job);
	(void)mcp_tools_ask(call, &w, MCP_REQ_JSON, done);
}

/*
 * terminal_job_status: read from a line when given one or from the start
 * when not incremental; else first learn the job's id and run, whose
 * mark this session keeps.
 */
void
mcp_tools_status(struct mcp_call *call, const struct jsonval *args)
{
	struct mcp_tools_call	*tc = mcp_tools_call_new(call);
	char			 max[32];
	int64_t			 offset;

	tc->job = mcp_tools_job_word(args);
	tc->incremental = mcp_tools_arg_bool(args, "incremental", 1);
	snprintf(max, sizeof max, "%d", MCP_OUTPUT_MAX);
	if (jsonval_int(jsonval_get(args, "offset"), &offset) == 0) {
		tc->incremental = 0;
		tc->since = xprintf("%lld:0", (long long)offset);
		mcp_tools_status_ask(call, max, mcp_tools_status_read);
		return;
	}
	tc->since = xstrdup("0:0");
	if (!tc->incremental)
		mcp_tools_status_ask(call, max, mcp_tools_status_read);
	else
		mcp_tools_status_ask(call, "1", mcp_tools_status_found);
}

/* terminal_job_status: the job's id and run are known; read from its mark. */
static void
mcp_tools_status_found(struct mcp_call *call, const struct mcp_reply *r)
{
	struct mcp_tools_call	*tc = mcp_call_state(call);
	struct jsonval		*doc;
	const char		*run, *mark;
	char			 max[32];

	if ((doc = mcp_tools_parse_job(call, r, &tc->id)) == NULL)
		return;
	if ((run = mcp_tools_string(doc, JOBFIELD_RUN)) == NULL)
		run = "";
	free(tc->run);
	tc->run = xstrdup(run);
	mark = mcp_session_mark(mcp_call_session(call), tc->id, run);
	free(tc->since);
	tc->since = xstrdup(mark != NULL ? mark : "0:0");
	free(tc->job);
	tc->job = xprintf("%lld", (long long)tc->id);
	jsonval_free(doc);
	snprintf(max, sizeof max, "%d", MCP_OUTPUT_MAX);
	mcp_tools_status_ask(call, max, mcp_tools_status_read);
}

/* terminal_job_status: answer with the job and the output read. */
static void
mcp_tools_status_read(struct mcp_call *call, const struct mcp_reply *r)
{
	struct mcp_tools_call	*tc = mcp_call_state(call);
	struct json_buf		 jb;
	struct jsonval		*doc;
	const char		*run, *next;
	char			*text, max[32];

	if ((doc = mcp_tools_parse_job(call, r, &tc->id)) == NULL)
		return;
	run = mcp_tools_string(doc, JOBFIELD_RUN);
	if (tc->incremental && tc->run != NULL && run != NULL &&
	    strcmp(run, tc->run) != 0 && tc->tries++ < MCP_TOOLS_RETRIES) {
		/* A new run since the mark was taken: start it over. */
		free(tc->run);
		tc->run = xstrdup(run);
		free(tc->since);
		tc->since = xstrdup("0:0");
		jsonval_free(doc);
		snprintf(max, sizeof max, "%d", MCP_OUTPUT_MAX);
		mcp_tools_status_ask(call, max, mcp_tools_status_read);
		return;
	}
	next = jsonval_get_string(doc, "next");
	if (tc->incremental && run != NULL && next != NULL)
		mcp_session_set_mark(mcp_call_session(call), tc->id, run, next);
	if (mcp_tools_output_failed(call, doc)) {
		jsonval_free(doc);
		return;
	}
	json_init(&jb);
	json_object_begin(&jb);
	mcp_tools_put_job(&jb, doc);
	text = mcp_tools_job_line(doc);
	mcp_tools_put_output(&jb, doc, tc->incremental, &text);
	json_object_end(&jb);
	jsonval_free(doc);
	mcp_tools_finish(call, &jb, text);
}

/* ---- terminal_job_list ---- */

static void	mcp_tools_list_done(struct mcp_call *,
		    const struct mcp_reply *);

/* Return the bit of a status word in a filter, 0 for an unknown word. */
static unsigned int
mcp_tools_status_bit(const char *status)
{
	int	i;

	for (i = 0; status != NULL && mcp_tools_status_words[i] != NULL; i++) {
		if (strcmp(mcp_tools_status_words[i], status) == 0)
			return 1U << i;
	}
	return 0;
}

/* terminal_job_list: ask for every job; filter and count here. */
void
mcp_tools_job_list(struct mcp_call *call, const struct jsonval *args)
{
	struct mcp_tools_call	*tc = mcp_tools_call_new(call);
	struct mcp_tools_words	 w = { NULL, 0, 0 };
	const struct jsonval	*filter;
	size_t			 i;

	filter = jsonval_get(args, "status_filter");
	tc->filter = filter == NULL ? ~0U : 0;
	for (i = 0; i < jsonval_count(filter); i++)
		tc->filter |= mcp_tools_status_bit(jsonval_string(
		    jsonval_at(filter, i)));
	/* A job waiting for input is running too. */
	if (tc->filter & mcp_tools_status_bit("running"))
		tc->filter |= mcp_tools_status_bit("waiting_for_input");
	tc->limit = 50;
	(void)jsonval_int(jsonval_get(args, "limit"), &tc->limit);
	mcp_tools_add(&w, "list");
	(void)mcp_tools_ask(call, &w, MCP_REQ_JSON, mcp_tools_list_done);
}

/*
 * Return how many of the total matching jobs to pass over so that at
 * most limit are shown, the most recent, and what they weigh (their
 * strings, and room for the rest of each) stays within MCP_OUTPUT_MAX:
 * the newest one is always shown.
 */
static size_t
mcp_tools_list_first(const struct jsonval *jobs, unsigned int filter,
    size_t total, size_t limit)
{
	static const char *const keys[] = { "command", "cwd", "name",
		"agent" };
	const struct jsonval	*job;
	size_t			 i, k, shown = 0, weight = 0, one;

	for (i = jsonval_count(jobs); i > 0 && shown < limit; i--) {
		job = jsonval_at(jobs, i - 1);
		if (!(filter & mcp_tools_status_bit(mcp_tools_job_status(job))))
			continue;
		one = 256;
		for (k = 0; k < sizeof keys / sizeof keys[0]; k++)
			one += jsonval_string_len(jsonval_get(job, keys[k]));
		if (shown > 0 && weight + one > MCP_OUTPUT_MAX)
			break;
		weight += one;
		shown++;
	}
	return total - shown;
}

/* terminal_job_list: answer with the most recent jobs that match. */
static void
mcp_tools_list_done(struct mcp_call *call, const struct mcp_reply *r)
{
	struct mcp_tools_call	*tc = mcp_call_state(call);
	const struct jsonval	*jobs, *job;
	struct json_buf		 jb;
	struct jsonval		*doc;
	size_t			 i, n, first, seen;
	size_t			 total = 0, running = 0;
	char			*text = NULL, *line;

	if ((doc = mcp_tools_parse(call, r)) == NULL)
		return;
	jobs = jsonval_get(doc, "jobs");
	n = jsonval_count(jobs);
	for (i = 0; i < n; i++) {
		job = jsonval_at(jobs, i);
		if (mcp_tools_is_running(mcp_tools_job_status(job)))
			running++;
		if (tc->filter &
		    mcp_tools_status_bit(mcp_tools_job_status(job)))
			total++;
	}
	first = mcp_tools_list_first(jobs, tc->filter, total,
	    (size_t)tc->limit);

	json_init(&jb);
	json_object_begin(&jb);
	json_key(&jb, "jobs");
	json_array_begin(&jb);
	for (i = seen = 0; i < n; i++) {
		job = jsonval_at(jobs, i);
		if (!(tc->filter &
		    mcp_tools_status_bit(mcp_tools_job_status(job))) ||
		    seen++ < first)
			continue;
		json_object_begin(&jb);
		mcp_tools_put_job(&jb, job);
		json_object_end(&jb);
		line = mcp_tools_job_line(job);
		mcp_tools_cat(&text, "%s\n", line);
		free(line);
	}
	json_array_end(&jb);
	json_key(&jb, "total");
	json_put_int(&jb, (int64_t)total);
	json_key(&jb, "running");
	json_put_int(&jb, (int64_t)running);
	json_key(&jb, "shown");
	json_put_int(&jb, (int64_t)(total - first));
	json_object_end(&jb);
	mcp_tools_cat(&text, "%zu job%s shown of %zu matching; %zu running "
	    "in the deck.", total - first, total - first == 1 ? "" : "s",
	    total, running);
	if (total - first < total && total - first < (size_t)tc->limit)
		mcp_tools_cat(&text, " The older ones are left out to keep "
		    "this within %d KiB: filter by status to see them.",
		    MCP_OUTPUT_MAX / 1024);
	jsonval_free(doc);
	mcp_tools_finish(call, &jb, text);
}

/* ---- terminal_job_cancel ---- */

static void	mcp_tools_cancel_found(struct mcp_call *,
		    const struct mcp_reply *);
static void	mcp_tools_cancel_done(struct mcp_call *,
		    const struct mcp_reply *);

/* terminal_job_cancel: first see whether the job is live. */
void
mcp_tools_cancel(struct mcp_call *call, const struct jsonval *args)
{
	struct mcp_tools_call	*tc = mcp_tools_call_new(call);

	tc->job = mcp_tools_job_word(args);
	tc->since = xstrdup("0:0");
	mcp_tools_status_ask(call, "1", mcp_tools_cancel_found);
}

/* terminal_job_cancel: refuse a job that has ended, else kill it. */
static void
mcp_tools_cancel_found(struct mcp_call *call, const struct mcp_reply *r)
{
	struct mcp_tools_call	*tc = mcp_call_state(call);
	struct mcp_tools_words	 w = { NULL, 0, 0 };
	struct jsonval		*doc;
	const char		*status;

	if ((doc = mcp_tools_parse_job(call, r, &tc->id)) == NULL)
		return;
	status = mcp_tools_job_status(doc);
	if (!mcp_tools_is_live(status)) {
		mcp_call_fail(call, "job %lld is not running (%s)",
		    (long long)tc->id, status);
		jsonval_free(doc);
		return;
	}
	tc->previous = status;		/* a word of mcp_tools_states[] */
	jsonval_free(doc);
	mcp_tools_add(&w, "kill");
	mcp_tools_addf(&w, "%lld", (long long)tc->id);
	(void)mcp_tools_ask(call, &w, 0, mcp_tools_cancel_done);
}

/* terminal_job_cancel: the deck has signalled the job. */
static void
mcp_tools_cancel_done(struct mcp_call *call, const struct mcp_reply *r)
{
	struct mcp_tools_call	*tc = mcp_call_state(call);
	struct json_buf		 jb;
	char			*msg, *text;

	if (mcp_tools_ok(call, r) != 0)
		return;
	msg = mcp_tools_error_text(r);
	text = xprintf("job %lld was %s: %s; it ends as canceled (SIGKILL "
	    "follows if it outlives the grace period)", (long long)tc->id,
	    tc->previous, msg);
	json_init(&jb);
	json_object_begin(&jb);
	json_key(&jb, "success");
	json_put_bool(&jb, 1);
	json_key(&jb, "job_id");
	json_put_int(&jb, tc->id);
	json_key(&jb, "previous_status");
	json_put_string(&jb, tc->previous);
	json_key(&jb, "message");
	json_put_string(&jb, text);
	json_object_end(&jb);
	free(msg);
	mcp_tools_finish(call, &jb, text);
}

/* ---- terminal_send_input ---- */

static void	mcp_tools_send_done(struct mcp_call *,
		    const struct mcp_reply *);

/* terminal_send_input: send the text, escaped for send. */
void
mcp_tools_send(struct mcp_call *call, const struct jsonval *args)
{
	struct mcp_tools_call	*tc = mcp_tools_call_new(call);
	struct mcp_tools_words	 w = { NULL, 0, 0 };
	const struct jsonval	*text = jsonval_get(args, "text");
	char			*esc;

	if ((tc->bytes = jsonval_string_len(text)) == 0) {
		mcp_call_fail(call, "text is empty: nothing to send");
		return;
	}
	tc->job = mcp_tools_job_word(args);
	(void)jsonval_int(jsonval_get(args, "job_id"), &tc->id);
	esc = mcp_tools_escape(jsonval_string(text), tc->bytes);
	mcp_tools_add(&w, "send");
	mcp_tools_add(&w, tc->job);
	mcp_tools_add(&w, "--");
	mcp_tools_add(&w, esc);
	free(esc);
	(void)mcp_tools_ask(call, &w, 0, mcp_tools_send_done);
}

/* terminal_send_input: the deck wrote the bytes to the job. */
static void
mcp_tools_send_done(struct mcp_call *call, const struct mcp_reply *r)
{
	struct mcp_tools_call	*tc = mcp_call_state(call);
	struct json_buf		 jb;
	char			*msg;

	if (mcp_tools_ok(call, r) != 0)
		return;
	msg = mcp_tools_error_text(r);
	json_init(&jb);
	json_object_begin(&jb);
	json_key(&jb, "success");
	json_put_bool(&jb, 1);
	json_key(&jb, "job_id");
	if (tc->id >= 0)
		json_put_int(&jb, tc->id);
	else
		json_put_string(&jb, tc->job);
	json_key(&jb, "bytes");
	json_put_int(&jb, (int64_t)tc->bytes);
	json_object_end(&jb);
	mcp_tools_finish(call, &jb, msg);
}

/* ---- terminal_screen ---- */

static void	mcp_tools_screen_done(struct mcp_call *,
		    const struct mcp_reply *);

/* terminal_screen: ask for the job's screen. */
void
mcp_tools_screen(struct mcp_call *call, const struct jsonval *args)
{
	struct mcp_tools_words	 w = { NULL, 0, 0 };
	char			*job;

	job = mcp_tools_job_word(args);
	mcp_tools_add(&w, "screen");
	mcp_tools_add(&w, job);
	free(job);
	(void)mcp_tools_ask(call, &w, MCP_REQ_JSON, mcp_tools_screen_done);
}

/* terminal_screen: answer with the screen; its text is the rows. */
static void
mcp_tools_screen_done(struct mcp_call *call, const struct mcp_reply *r)
{
	const struct jsonval	*lines, *cursor, *l;
	struct json_buf		 jb;
	struct jsonval		*doc;
	const char		*row;
	int64_t			 id;
	size_t			 i, used = 0;
	char			*text = NULL;

	if ((doc = mcp_tools_parse_job(call, r, &id)) == NULL)
		return;
	lines = jsonval_get(doc, "lines");
	cursor = jsonval_get(doc, "cursor");
	json_init(&jb);
	json_object_begin(&jb);
	json_key(&jb, "job_id");
	json_put_int(&jb, id);
	mcp_tools_put_int(&jb, "rows", jsonval_get(doc, "rows"));
	mcp_tools_put_int(&jb, "cols", jsonval_get(doc, "cols"));
	json_key(&jb, "cursor");
	json_object_begin(&jb);
	mcp_tools_put_int(&jb, "row", jsonval_get(cursor, "row"));
	mcp_tools_put_int(&jb, "col", jsonval_get(cursor, "col"));
	mcp_tools_put_bool(&jb, "visible", jsonval_get(cursor, "visible"));
	json_object_end(&jb);
	mcp_tools_put_bool(&jb, "alt_screen", jsonval_get(doc, "alt_screen"));
	mcp_tools_put_string(&jb, "title", jsonval_get(doc, "title"));
	json_key(&jb, "lines");
	json_array_begin(&jb);
	for (i = 0; i < jsonval_count(lines); i++) {
		l = jsonval_at(lines, i);
		row = jsonval_string(l) != NULL ? jsonval_string(l) : "";
		json_put_stringn(&jb, row, jsonval_string_len(l));
		if (*row != '\0')
			used = i + 1;
	}
	json_array_end(&jb);
	json_object_end(&jb);
	/* The text: the rows down to the last that is not blank. */
	for (i = 0; i < used; i++) {
		row = jsonval_string(jsonval_at(lines, i));
		mcp_tools_cat(&text, "%s\n", row != NULL ? row : "");
	}
	jsonval_free(doc);
	mcp_tools_finish(call, &jb, text != NULL ? text :
	    xstrdup("(the screen is blank)"));
}

