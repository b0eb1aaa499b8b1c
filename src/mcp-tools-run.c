/*
 * mcp-tools-run.c: the MCP tools that start a command (mcp-tools-private.h):
 * terminal (an agent's job on the deck, answered at once or at its end)
 * and run (a subprocess: stdout, stderr and a return code).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expand.h"
#include "json.h"
#include "jsonval.h"
#include "mcp-tools-private.h"
#include "textesc.h"
#include "xmalloc.h"

/* ---- terminal ---- */

static void	mcp_tools_terminal_spawned(struct mcp_call *,
		    const struct mcp_reply *);
static void	mcp_tools_terminal_waited(struct mcp_call *,
		    const struct mcp_reply *);
static void	mcp_tools_terminal_read(struct mcp_call *,
		    const struct mcp_reply *);

/* terminal: spawn the command as an agent's job. */
void
mcp_tools_terminal(struct mcp_call *call, const struct jsonval *args)
{
	struct mcp_tools_call	*tc = mcp_tools_call_new(call);
	struct mcp_tools_words	 w = { NULL, 0, 0 };
	char			*agent;
	double			 timeout;

	/* A refusal ends the call and frees tc: nothing may follow it. */
	if ((timeout = mcp_tools_arg_seconds(call, args, "timeout", 30,
	    3600)) < 0 || mcp_tools_arg_host(call, args) != 0)
		return;
	tc->timeout = timeout;
	tc->async = mcp_tools_arg_bool(args, "async", 1);
	agent = mcp_tools_agent(call);
	mcp_tools_add(&w, "spawn");
	mcp_tools_add(&w, "--agent");
	mcp_tools_add(&w, agent);
	free(agent);
	mcp_tools_add(&w, "--escaped");
	mcp_tools_add_place(&w, args);
	mcp_tools_add(&w, "--");
	mcp_tools_add_escaped(&w, jsonval_get_string(args, "command"));
	(void)mcp_tools_ask(call, &w, MCP_REQ_JSON,
	    mcp_tools_terminal_spawned);
}

/* terminal: the job started; answer, or (not async) wait for its end. */
static void
mcp_tools_terminal_spawned(struct mcp_call *call, const struct mcp_reply *r)
{
	struct mcp_tools_call	*tc = mcp_call_state(call);
	struct mcp_tools_words	 w = { NULL, 0, 0 };
	struct json_buf		 jb;
	struct jsonval		*doc;
	char			*text;

	if ((doc = mcp_tools_parse_job(call, r, &tc->id)) == NULL)
		return;
	if (tc->async) {
		json_init(&jb);
		json_object_begin(&jb);
		mcp_tools_put_int(&jb, "job_id", mcp_tools_field(doc,
		    JOBFIELD_ID));
		json_key(&jb, "status");
		json_put_string(&jb, mcp_tools_job_status(doc));
		mcp_tools_put_string(&jb, "command", mcp_tools_field(doc,
		    JOBFIELD_COMMAND));
		mcp_tools_put_string(&jb, "cwd", mcp_tools_field(doc,
		    JOBFIELD_CWD));
		mcp_tools_put_int(&jb, "pid", mcp_tools_field(doc,
		    JOBFIELD_PID));
		json_object_end(&jb);
		text = xprintf("Started job %lld (%s).  Poll it with "
		    "terminal_job_status job_id=%lld.", (long long)tc->id,
		    mcp_tools_job_status(doc), (long long)tc->id);
		jsonval_free(doc);
		mcp_tools_finish(call, &jb, text);
		return;
	}
	jsonval_free(doc);
	mcp_tools_add(&w, "wait");
	mcp_tools_add(&w, "--timeout");
	mcp_tools_addf(&w, "%g", tc->timeout);
	mcp_tools_addf(&w, "%lld", (long long)tc->id);
	(void)mcp_tools_ask(call, &w, MCP_REQ_JSON | MCP_REQ_WAIT,
	    mcp_tools_terminal_waited);
}

/* terminal: the job ended or the wait ran out; read its output. */
static void
mcp_tools_terminal_waited(struct mcp_call *call, const struct mcp_reply *r)
{
	struct mcp_tools_call	*tc = mcp_call_state(call);
	struct mcp_tools_words	 w = { NULL, 0, 0 };

	if (mcp_tools_ok(call, r) != 0)
		return;
	mcp_tools_add(&w, "status");
	mcp_tools_add(&w, "--since");
	mcp_tools_add(&w, "0:0");
	mcp_tools_add(&w, "--max-bytes");
	mcp_tools_addf(&w, "%d", MCP_OUTPUT_MAX);
	mcp_tools_addf(&w, "%lld", (long long)tc->id);
	(void)mcp_tools_ask(call, &w, MCP_REQ_JSON, mcp_tools_terminal_read);
}

/* terminal: answer with the job's output and how it ended. */
static void
mcp_tools_terminal_read(struct mcp_call *call, const struct mcp_reply *r)
{
	struct mcp_tools_call	*tc = mcp_call_state(call);
	struct json_buf		 jb;
	struct jsonval		*doc;
	const char		*status, *run, *next;
	char			*text;

	if ((doc = mcp_tools_parse_job(call, r, &tc->id)) == NULL)
		return;
	status = mcp_tools_job_status(doc);
	run = mcp_tools_string(doc, JOBFIELD_RUN);
	next = jsonval_get_string(doc, "next");
	if (run != NULL && next != NULL)
		mcp_session_set_mark(mcp_call_session(call), tc->id, run, next);
	if (mcp_tools_output_failed(call, doc)) {
		jsonval_free(doc);
		return;
	}
	json_init(&jb);
	json_object_begin(&jb);
	mcp_tools_put_job(&jb, doc);
	text = mcp_tools_job_line(doc);
	if (strcmp(status, "waiting_for_input") == 0)
		mcp_tools_cat(&text, " (waiting for input after %g s: answer "
		    "it with terminal_send_input)", tc->timeout);
	else if (mcp_tools_is_live(status))
		mcp_tools_cat(&text, " (still running after %g s: follow it "
		    "with terminal_job_status)", tc->timeout);
	mcp_tools_put_output(&jb, doc, 0, &text);
	json_key(&jb, "timed_out");
	json_put_bool(&jb, mcp_tools_is_live(status));
	json_object_end(&jb);
	jsonval_free(doc);
	mcp_tools_finish(call, &jb, text);
}

/* ---- run ---- */

static void	mcp_tools_run_spawned(struct mcp_call *,
		    const struct mcp_reply *);
static void	mcp_tools_run_waited(struct mcp_call *,
		    const struct mcp_reply *);
static void	mcp_tools_run_read(struct mcp_call *,
		    const struct mcp_reply *);

/* ${VAR} in run's templates: jobdeck mcp's environment (the agent's). */
static const char *
mcp_tools_getenv(const char *name, void *arg)
{
	(void)arg;
	return getenv(name);
}

static const struct expand_env mcp_tools_env = { mcp_tools_getenv };

/*
 * Expand {name} in run's command and args with its params (expand.h's
 * rules for a program's words) and add them to w; return 0, or -1 with
 * the call failed (a {name} without a value, say).
 */
static int
mcp_tools_run_words(struct mcp_call *call, const struct jsonval *args,
    struct mcp_tools_words *w)
{
	const struct jsonval	*argv = jsonval_get(args, "args");
	const struct jsonval	*params = jsonval_get(args, "params");
	struct expand_command	 c;
	struct expand_result	 res;
	struct expand_param	*p;
	struct jsonval_member	 m;
	void			*iter = NULL;
	char			**v, *cause = NULL;
	size_t			 i, n = jsonval_count(argv), np = 0;
	int			 rc;

	v = xcalloc(n + 1, sizeof *v);
	for (i = 0; i < n; i++)
		v[i] = (char *)jsonval_string(jsonval_at(argv, i));
	p = xcalloc(jsonval_count(params) + 1, sizeof *p);
	while (jsonval_next(params, &iter, &m)) {
		p[np].key = m.key;
		p[np++].value = jsonval_string(m.value);
	}
	memset(&c, 0, sizeof c);
	c.command = jsonval_get_string(args, "command");
	c.args = v;
	c.nargs = n;
	c.strict = 1;
	if (params == NULL) {
		/* No templating: the words go as given. */
		mcp_tools_add_escaped(w, c.command);
		for (i = 0; i < n; i++)
			mcp_tools_add_escaped(w, v[i]);
		rc = 0;
	} else if ((rc = expand_command(&c, &mcp_tools_env, NULL, p, np,
	    &res, &cause)) == 0) {
		mcp_tools_add_escaped(w, res.command);
		for (i = 0; i < res.nargs; i++)
			mcp_tools_add_escaped(w, res.args[i]);
		expand_result_clear(&res);
	} else {
		mcp_call_fail(call, "params: %s", cause);
		free(cause);
	}
	free(p);
	free(v);
	return rc;
}

/* run: spawn the program on pipes as an agent's job. */
void
mcp_tools_run(struct mcp_call *call, const struct jsonval *args)
{
	struct mcp_tools_call	*tc = mcp_tools_call_new(call);
	struct mcp_tools_words	 w = { NULL, 0, 0 };
	const struct jsonval	*input = jsonval_get(args, "input_data");
	char			*agent, *esc;
	double			 timeout;

	if ((timeout = mcp_tools_arg_seconds(call, args, "timeout", 300,
	    86400)) < 0 || mcp_tools_arg_host(call, args) != 0)
		return;
	tc->timeout = timeout;
	tc->program = xstrdup(jsonval_get_string(args, "command"));
	agent = mcp_tools_agent(call);
	mcp_tools_add(&w, "spawn");
	mcp_tools_add(&w, "--agent");
	mcp_tools_add(&w, agent);
	free(agent);
	mcp_tools_add(&w, "--pipes");
	mcp_tools_add(&w, "--timeout");
	mcp_tools_addf(&w, "%g", tc->timeout);
	if (input != NULL) {
		esc = mcp_tools_escape(jsonval_string(input),
		    jsonval_string_len(input));
		mcp_tools_add(&w, "--input");
		mcp_tools_add(&w, esc);
		free(esc);
	}
	mcp_tools_add(&w, "--escaped");
	mcp_tools_add_place(&w, args);
	mcp_tools_add(&w, "--no-shell");
	mcp_tools_add(&w, "--");
	if (mcp_tools_run_words(call, args, &w) != 0) {
		mcp_tools_words_clear(&w);
		return;
	}
	(void)mcp_tools_ask(call, &w, MCP_REQ_JSON, mcp_tools_run_spawned);
}

/* run: the job started; wait for its end (its timeout bounds it). */
static void
mcp_tools_run_spawned(struct mcp_call *call, const struct mcp_reply *r)
{
	struct mcp_tools_call	*tc = mcp_call_state(call);
	struct mcp_tools_words	 w = { NULL, 0, 0 };
	struct jsonval		*doc;

	if ((doc = mcp_tools_parse_job(call, r, &tc->id)) == NULL)
		return;
	jsonval_free(doc);
	mcp_tools_add(&w, "wait");
	mcp_tools_addf(&w, "%lld", (long long)tc->id);
	(void)mcp_tools_ask(call, &w, MCP_REQ_JSON | MCP_REQ_WAIT,
	    mcp_tools_run_waited);
}

/* run: the job ended; read its streams. */
static void
mcp_tools_run_waited(struct mcp_call *call, const struct mcp_reply *r)
{
	struct mcp_tools_call	*tc = mcp_call_state(call);
	struct mcp_tools_words	 w = { NULL, 0, 0 };

	if (mcp_tools_ok(call, r) != 0)
		return;
	tc->exit = r->exit;
	mcp_tools_add(&w, "status");
	mcp_tools_add(&w, "--split");
	mcp_tools_add(&w, "--max-bytes");
	mcp_tools_addf(&w, "%d", MCP_OUTPUT_MAX);
	mcp_tools_addf(&w, "%lld", (long long)tc->id);
	(void)mcp_tools_ask(call, &w, MCP_REQ_JSON, mcp_tools_run_read);
}

/*
 * Return run's return code for a deck's job object: the deck's own code
 * of the job's end ("code", waitstatus.h's policy), else the wait's exit
 * status (the same policy); set *error (to free) when the program could
 * not start (the deck's "exec_error") or timed out.
 */
static int64_t
mcp_tools_run_code(struct mcp_tools_call *tc, const struct jsonval *doc,
    char **error)
{
	const char	*why = mcp_tools_string(doc, JOBFIELD_EXEC_ERROR);
	int64_t		 code;

	*error = NULL;
	if (jsonval_int(mcp_tools_field(doc, JOBFIELD_CODE), &code) != 0)
		code = tc->exit;
	if (why != NULL)
		*error = xprintf("cannot run %s: %s", tc->program, why);
	else if (strcmp(mcp_tools_job_status(doc), "timed_out") == 0)
		*error = xprintf("timed out after %g s", tc->timeout);
	return code;
}

/* Put one of run's streams from a status --split reply. */
static void
mcp_tools_run_stream(struct json_buf *jb, const struct jsonval *doc,
    const char *name, char **text)
{
	const struct jsonval	*v = jsonval_get(doc, name);
	const char		*p, *nl, *end;
	char			 key[32], *shown;
	int64_t			 total = -1;
	int			 cut = 0;

	json_key(jb, name);
	json_put_stringn(jb, jsonval_string(v) != NULL ? jsonval_string(v) :
	    "", jsonval_string_len(v));
	snprintf(key, sizeof key, "%s_truncated", name);
	(void)jsonval_bool(jsonval_get(doc, key), &cut);
	json_key(jb, key);
	json_put_bool(jb, cut);
	if (jsonval_string_len(v) == 0)
		return;
	snprintf(key, sizeof key, "%s_bytes", name);
	(void)jsonval_int(jsonval_get(doc, key), &total);
	if (cut && total >= 0) {
		mcp_tools_cat(text, "\n--- %s: the first %zu bytes of %lld ---\n",
		    name, jsonval_string_len(v), (long long)total);
	} else if (cut) {
		mcp_tools_cat(text, "\n--- %s: the first %zu bytes; there was "
		    "more ---\n", name, jsonval_string_len(v));
	} else
		mcp_tools_cat(text, "\n--- %s ---\n", name);
	/* Line by line, control bytes (NUL too) shown as escapes. */
	for (p = jsonval_string(v), end = p + jsonval_string_len(v); p < end;
	    p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		shown = textesc_visible(p, (size_t)(nl - p));
		mcp_tools_cat(text, "%s%s", shown, nl < end ? "\n" : "");
		free(shown);
	}
}

/* run: answer as seed 002's primitive does. */
static void
mcp_tools_run_read(struct mcp_call *call, const struct mcp_reply *r)
{
	struct mcp_tools_call	*tc = mcp_call_state(call);
	struct json_buf		 jb;
	struct jsonval		*doc;
	int64_t			 code;
	char			*error, *text;
	int			 timed_out;

	if ((doc = mcp_tools_parse_job(call, r, &tc->id)) == NULL)
		return;
	timed_out = strcmp(mcp_tools_job_status(doc), "timed_out") == 0;
	code = mcp_tools_run_code(tc, doc, &error);
	json_init(&jb);
	json_object_begin(&jb);
	json_key(&jb, "success");
	json_put_bool(&jb, code == 0 && error == NULL);
	json_key(&jb, "job_id");
	json_put_int(&jb, tc->id);
	json_key(&jb, "return_code");
	json_put_int(&jb, code);
	mcp_tools_put_int(&jb, "duration_ms", mcp_tools_field(doc,
	    JOBFIELD_DURATION_MS));
	json_key(&jb, "timed_out");
	json_put_bool(&jb, timed_out);
	mcp_tools_put_string(&jb, "signal", mcp_tools_field(doc,
	    JOBFIELD_SIGNAL));
	json_key(&jb, "error");
	if (error != NULL)
		json_put_string(&jb, error);
	else
		json_put_null(&jb);
	text = xprintf("%s: return code %lld%s%s", tc->program,
	    (long long)code, error != NULL ? ", " : "",
	    error != NULL ? error : "");
	mcp_tools_run_stream(&jb, doc, "stdout", &text);
	mcp_tools_run_stream(&jb, doc, "stderr", &text);
	json_object_end(&jb);
	free(error);
	jsonval_free(doc);
	mcp_tools_finish(call, &jb, text);
}
