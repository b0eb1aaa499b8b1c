/*
 * mcp-tools-shared.c: what every MCP tool uses (mcp-tools-private.h): a
 * call's state, the words of a deck request and the asking, the deck's
 * replies read (its errors in its own words), the tools' arguments, and
 * the results: the tools' status words for the deck's states (one table,
 * mcp_tools_states[]), the tools' job object for a deck's (one function,
 * mcp_tools_put_job()) and the output read from a mark.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "jobfield.h"
#include "json.h"
#include "jsonval.h"
#include "mcp-tools-private.h"
#include "ttywait.h"
#include "xmalloc.h"

/*
 * The deck's states (job_state_name()) and the tools' status words for
 * them.  running and stopped are both "running", but a running job
 * blocked reading its terminal (its "waiting_for" is "input" or
 * "password", see ttywait.h) is "waiting_for_input"; the field "state"
 * keeps the deck's own word.
 */
static const struct {
	const char	*state;
	int		 input;		/* the job waits for input */
	const char	*status;
} mcp_tools_states[] = {
	{ "queued", 0, "queued" },
	{ "waiting", 0, "queued" },
	{ "running", 0, "running" },
	{ "running", 1, "waiting_for_input" },
	{ "stopped", 0, "running" },
	{ "completed", 0, "completed" },
	{ "failed", 0, "failed" },
	{ "canceled", 0, "canceled" },
	{ "timed-out", 0, "timed_out" },
	{ "blocked", 0, "failed" },	/* a dependency failed */
	{ NULL, 0, NULL }
};

/* ---- Shared helpers ---- */

/* Return the member of a deck's job object that holds a field. */
const struct jsonval *
mcp_tools_field(const struct jsonval *job, enum jobfield_id id)
{
	return jsonval_get(job, jobfield_name(id));
}

/* Return a string field of a deck's job object, or NULL. */
const char *
mcp_tools_string(const struct jsonval *job, enum jobfield_id id)
{
	return jsonval_string(mcp_tools_field(job, id));
}

/* Free a call's state. */
static void
mcp_tools_call_free(void *arg)
{
	struct mcp_tools_call	*tc = arg;

	if (tc == NULL)
		return;
	free(tc->job);
	free(tc->run);
	free(tc->since);
	free(tc->program);
	free(tc);
}

/* Give a call a fresh state and return it. */
struct mcp_tools_call *
mcp_tools_call_new(struct mcp_call *call)
{
	struct mcp_tools_call	*tc = xcalloc(1, sizeof *tc);

	tc->id = -1;
	tc->incremental = 1;
	mcp_call_set_state(call, tc, mcp_tools_call_free);
	return tc;
}

/* Add a word (a copy of it) to a request's words. */
void
mcp_tools_add(struct mcp_tools_words *w, const char *word)
{
	if (w->n + 2 > w->size) {
		w->size = w->size == 0 ? 16 : w->size * 2;
		w->v = xreallocarray(w->v, w->size, sizeof *w->v);
	}
	w->v[w->n++] = xstrdup(word);
	w->v[w->n] = NULL;
}

/* Add a formatted word to a request's words. */
void __attribute__((format(printf, 2, 3)))
mcp_tools_addf(struct mcp_tools_words *w, const char *fmt, ...)
{
	va_list	 ap;
	char	*word;

	va_start(ap, fmt);
	word = xvprintf(fmt, ap);
	va_end(ap);
	mcp_tools_add(w, word);
	free(word);
}

/* Free a request's words. */
void
mcp_tools_words_clear(struct mcp_tools_words *w)
{
	size_t	i;

	for (i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	memset(w, 0, sizeof *w);
}

/*
 * Ask the deck (words, then cleared) and have done called with the reply;
 * return 0, or -1 when the request could not begin (mcp_call_ctl() then
 * failed the call).
 */
int
mcp_tools_ask(struct mcp_call *call, struct mcp_tools_words *w, int flags,
    mcp_call_cb *done)
{
	int	r;

	r = mcp_call_ctl(call, w->v, flags, done);
	mcp_tools_words_clear(w);
	return r;
}

/*
 * Return the first lines of a deck's error body, trimmed, for the agent;
 * the caller frees it.
 */
char *
mcp_tools_error_text(const struct mcp_reply *r)
{
	const char	*p = r->body, *end;
	int		 lines = 0;

	if (r->body == NULL)
		return xstrdup("the deck gave no answer");
	end = r->body + r->len;
	while (p < end && lines < MCP_TOOLS_ERROR_LINES) {
		p = memchr(p, '\n', (size_t)(end - p));
		if (p == NULL) {
			p = end;
			break;
		}
		p++;
		lines++;
	}
	while (p > r->body && (p[-1] == '\n' || p[-1] == ' '))
		p--;
	if (p == r->body)
		return xstrdup(r->status == -1 ? "the deck gave no answer" :
		    "the deck refused without saying why");
	return xstrndup(r->body, (size_t)(p - r->body));
}

/*
 * Return 0 if the deck did what was asked, else -1 with the call failed
 * with the deck's words.
 */
int
mcp_tools_ok(struct mcp_call *call, const struct mcp_reply *r)
{
	char	*msg;

	if (r->status == 0)
		return 0;
	msg = mcp_tools_error_text(r);
	mcp_call_fail(call, "%s", msg);
	free(msg);
	return -1;
}

/*
 * Return a deck's reply as JSON, or NULL when it is an error or not JSON
 * (the call then failed with the deck's words).  The caller frees it.
 */
struct jsonval *
mcp_tools_parse(struct mcp_call *call, const struct mcp_reply *r)
{
	struct jsonval	*doc;
	char		*cause = NULL;

	if (mcp_tools_ok(call, r) != 0)
		return NULL;
	if ((doc = jsonval_parse(r->body, r->len, &cause)) == NULL) {
		mcp_call_fail(call, "the deck's reply is not JSON: %s", cause);
		free(cause);
		return NULL;
	}
	return doc;
}

/*
 * Return a deck's reply that is a job object (with its id in *id), or
 * NULL with the call failed.
 */
struct jsonval *
mcp_tools_parse_job(struct mcp_call *call, const struct mcp_reply *r,
    int64_t *id)
{
	struct jsonval	*doc;

	if ((doc = mcp_tools_parse(call, r)) == NULL)
		return NULL;
	if (jsonval_type(doc) != JSONVAL_OBJECT ||
	    jsonval_int(mcp_tools_field(doc, JOBFIELD_ID), id) != 0) {
		jsonval_free(doc);
		mcp_call_fail(call, "the deck's reply is not a job");
		return NULL;
	}
	return doc;
}

/* Finish a call with structured content from jb and text (freed). */
void
mcp_tools_finish(struct mcp_call *call, struct json_buf *jb, char *text)
{
	char	*doc;

	doc = json_finish(jb, NULL);
	json_clear(jb);
	mcp_call_finish(call, doc, text);
	free(doc);
	free(text);
}

/* Append a formatted string to *s (NULL: empty). */
void __attribute__((format(printf, 2, 3)))
mcp_tools_cat(char **s, const char *fmt, ...)
{
	va_list	 ap;
	char	*more, *both;

	va_start(ap, fmt);
	more = xvprintf(fmt, ap);
	va_end(ap);
	if (*s == NULL) {
		*s = more;
		return;
	}
	both = xprintf("%s%s", *s, more);
	free(*s);
	free(more);
	*s = both;
}

/* Put key and v as a string, or null when v is not one. */
void
mcp_tools_put_string(struct json_buf *jb, const char *key,
    const struct jsonval *v)
{
	json_key(jb, key);
	if (jsonval_type(v) == JSONVAL_STRING)
		json_put_stringn(jb, jsonval_string(v), jsonval_string_len(v));
	else
		json_put_null(jb);
}

/* Put key and v as an integer, or null when v is not one. */
void
mcp_tools_put_int(struct json_buf *jb, const char *key,
    const struct jsonval *v)
{
	int64_t	n;

	json_key(jb, key);
	if (jsonval_int(v, &n) == 0)
		json_put_int(jb, n);
	else
		json_put_null(jb);
}

/* Put key and v as a boolean, false when v is not one. */
void
mcp_tools_put_bool(struct json_buf *jb, const char *key,
    const struct jsonval *v)
{
	int	b = 0;

	json_key(jb, key);
	(void)jsonval_bool(v, &b);
	json_put_bool(jb, b);
}

/*
 * Return the tools' status word for a deck's job object: its state's,
 * "waiting_for_input" for a running one whose "waiting_for" says it
 * waits for input.
 */
const char *
mcp_tools_job_status(const struct jsonval *job)
{
	const char	*state = mcp_tools_string(job, JOBFIELD_STATE);
	const char	*wait = mcp_tools_string(job, JOBFIELD_WAITING_FOR);
	int		 i, input;

	input = wait != NULL &&
	    (strcmp(wait, ttywait_name(TTYWAIT_INPUT)) == 0 ||
	    strcmp(wait, ttywait_name(TTYWAIT_PASSWORD)) == 0);
	for (i = 0; state != NULL && mcp_tools_states[i].state != NULL; i++) {
		if (strcmp(mcp_tools_states[i].state, state) == 0 &&
		    mcp_tools_states[i].input == input)
			return mcp_tools_states[i].status;
	}
	/* A state where no input is told (a held job's own reason). */
	for (i = 0; state != NULL && mcp_tools_states[i].state != NULL; i++) {
		if (strcmp(mcp_tools_states[i].state, state) == 0)
			return mcp_tools_states[i].status;
	}
	return state != NULL ? state : "unknown";
}

/* Return whether a status word is a running job (waiting for input too). */
int
mcp_tools_is_running(const char *status)
{
	return strcmp(status, "running") == 0 ||
	    strcmp(status, "waiting_for_input") == 0;
}

/* Return whether a status word is a job that has not ended. */
int
mcp_tools_is_live(const char *status)
{
	return strcmp(status, "queued") == 0 || mcp_tools_is_running(status);
}

/*
 * The tools' job object (MCP_SCHEMA_JOB) after its status and state:
 * each member, the deck's field it copies, and whether it is a number
 * (else a string).
 */
static const struct {
	const char		*key;
	enum jobfield_id	 field;
	int			 number;
} mcp_tools_job_members[] = {
	{ "command", JOBFIELD_COMMAND, 0 },
	{ "cwd", JOBFIELD_CWD, 0 },
	{ "pid", JOBFIELD_PID, 1 },
	{ "agent", JOBFIELD_AGENT, 0 },
	{ "duration_ms", JOBFIELD_DURATION_MS, 1 },
	{ "exit_code", JOBFIELD_EXIT_CODE, 1 },
	{ "signal", JOBFIELD_SIGNAL, 0 },
};

/* Put the tools' job object's members for a deck's job object. */
void
mcp_tools_put_job(struct json_buf *jb, const struct jsonval *job)
{
	const char	*state = mcp_tools_string(job, JOBFIELD_STATE);
	size_t		 i;

	mcp_tools_put_int(jb, "job_id", mcp_tools_field(job, JOBFIELD_ID));
	mcp_tools_put_string(jb, "name", mcp_tools_field(job, JOBFIELD_NAME));
	json_key(jb, "status");
	json_put_string(jb, mcp_tools_job_status(job));
	json_key(jb, "state");
	json_put_string(jb, state != NULL ? state : "unknown");
	for (i = 0; i < sizeof mcp_tools_job_members /
	    sizeof mcp_tools_job_members[0]; i++) {
		if (mcp_tools_job_members[i].number)
			mcp_tools_put_int(jb, mcp_tools_job_members[i].key,
			    mcp_tools_field(job,
			    mcp_tools_job_members[i].field));
		else
			mcp_tools_put_string(jb, mcp_tools_job_members[i].key,
			    mcp_tools_field(job,
			    mcp_tools_job_members[i].field));
	}
	/* Where it runs: the deck's host object's name (null: here). */
	mcp_tools_put_string(jb, "host", jsonval_get(mcp_tools_field(job,
	    JOBFIELD_HOST), "name"));
}

/* Return a one-line summary of a deck's job object; the caller frees it. */
char *
mcp_tools_job_line(const struct jsonval *job)
{
	const char	*status = mcp_tools_job_status(job);
	const char	*name = mcp_tools_string(job, JOBFIELD_NAME);
	const char	*sig = mcp_tools_string(job, JOBFIELD_SIGNAL);
	const char	*cmd = mcp_tools_string(job, JOBFIELD_COMMAND);
	int64_t		 id = -1, code, ms = 0;
	char		*end = NULL, *line;

	(void)jsonval_int(mcp_tools_field(job, JOBFIELD_ID), &id);
	(void)jsonval_int(mcp_tools_field(job, JOBFIELD_DURATION_MS), &ms);
	if (jsonval_int(mcp_tools_field(job, JOBFIELD_EXIT_CODE), &code) == 0)
		end = xprintf(", exit code %lld", (long long)code);
	else if (sig != NULL)
		end = xprintf(", killed by %s", sig);
	line = xprintf("job %lld%s%s%s: %s%s, %.1f s: %s", (long long)id,
	    name != NULL ? " (" : "", name != NULL ? name : "",
	    name != NULL ? ")" : "", status, end != NULL ? end : "",
	    (double)ms / 1000, cmd != NULL ? cmd : "");
	free(end);
	return line;
}

/* Return the job argument of a call as a word for the deck. */
char *
mcp_tools_job_word(const struct jsonval *args)
{
	const struct jsonval	*v = jsonval_get(args, "job_id");
	int64_t			 n;

	if (jsonval_int(v, &n) == 0)
		return xprintf("%lld", (long long)n);
	return xstrdup(jsonval_string(v) != NULL ? jsonval_string(v) : "");
}

/* Return a boolean argument, or def when it is not given. */
int
mcp_tools_arg_bool(const struct jsonval *args, const char *key, int def)
{
	int	b;

	if (jsonval_bool(jsonval_get(args, key), &b) != 0)
		return def;
	return b;
}

/*
 * Return a number of seconds argument, def when it is not given, or -1
 * when it is not above 0: the call has then failed (and its state is
 * gone).
 */
double
mcp_tools_arg_seconds(struct mcp_call *call, const struct jsonval *args,
    const char *key, double def, double max)
{
	double	d;

	if (jsonval_get(args, key) == NULL)
		return def;
	if (jsonval_number(jsonval_get(args, key), &d) != 0 || !isfinite(d) ||
	    d <= 0 || d > max) {
		mcp_call_fail(call, "%s must be a number of seconds above "
		    "0, at most %.0f", key, max);
		return -1;
	}
	return d;
}

/*
 * Check a call's host argument, when given: config_check_host()'s rule
 * with no [hosts] known here (every [hosts] name is an ssh destination's
 * shape; the deck checks it against its own).  0, or -1 when the call
 * has failed (and its state is gone).
 */
int
mcp_tools_arg_host(struct mcp_call *call, const struct jsonval *args)
{
	const char	*host = jsonval_get_string(args, "host");
	char		*cause = NULL;

	if (host == NULL || config_check_host(NULL, host, &cause) == 0)
		return 0;
	mcp_call_fail(call, "%s", cause);
	free(cause);
	return -1;
}

/*
 * Return text escaped for send and spawn --input (their escapes: \\ and
 * \xHH): every byte below 0x20, 0x7f and backslash, so that a request line
 * holds it and the job gets exactly these bytes.  The caller frees it.
 */
char *
mcp_tools_escape(const char *s, size_t len)
{
	char		*out = xmalloc(len * 4 + 1), *p = out;
	unsigned char	 c;
	size_t		 i;

	for (i = 0; i < len; i++) {
		c = (unsigned char)s[i];
		if (c == '\\') {
			*p++ = '\\';
			*p++ = '\\';
		} else if (c < 0x20 || c == 0x7f)
			p += snprintf(p, 5, "\\x%02x", c);
		else
			*p++ = (char)c;
	}
	*p = '\0';
	return out;
}

/*
 * Add --host, --cwd and --env words for a call's host, cwd and env
 * arguments (host checked by mcp_tools_arg_host()).
 */
void
mcp_tools_add_place(struct mcp_tools_words *w, const struct jsonval *args)
{
	struct jsonval_member	 m;
	const char		*cwd = jsonval_get_string(args, "cwd");
	const char		*host = jsonval_get_string(args, "host");
	void			*iter = NULL;

	char			*kv;

	if (host != NULL) {
		mcp_tools_add(w, "--host");
		mcp_tools_add(w, host);
	}
	if (cwd != NULL) {
		mcp_tools_add(w, "--cwd");
		mcp_tools_add_escaped(w, cwd);
	}
	while (jsonval_next(jsonval_get(args, "env"), &iter, &m)) {
		mcp_tools_add(w, "--env");
		kv = xprintf("%s=%s", m.key, jsonval_string(m.value) !=
		    NULL ? jsonval_string(m.value) : "");
		mcp_tools_add_escaped(w, kv);
		free(kv);
	}
}

/*
 * Add a word of spawn --escaped (a command, an argument, a cwd, an env
 * value) with its control bytes and backslashes escaped, so that a
 * script's newlines reach the job and the request stays one line.
 */
void
mcp_tools_add_escaped(struct mcp_tools_words *w, const char *word)
{
	char	*esc = mcp_tools_escape(word, strlen(word));

	mcp_tools_add(w, esc);
	free(esc);
}

/* Return the agent's name for spawn --agent: printable, 1 to 64 bytes. */
char *
mcp_tools_agent(struct mcp_call *call)
{
	const char	*client = mcp_session_client(mcp_call_session(call));
	char		*name;
	size_t		 i;

	if (client == NULL || *client == '\0')
		client = "agent";
	name = xstrndup(client, MCP_TOOLS_AGENT_MAX);
	for (i = 0; name[i] != '\0'; i++) {
		if ((unsigned char)name[i] < 0x20 ||
		    (unsigned char)name[i] >= 0x7f)
			name[i] = '?';
	}
	return name;
}

/* Return the line part of a mark "L:B", or -1. */
static int64_t
mcp_tools_mark_line(const char *mark)
{
	char		*end;
	long long	 n;

	if (mark == NULL)
		return -1;
	n = strtoll(mark, &end, 10);
	if (end == mark || *end != ':' || n < 0)
		return -1;
	return n;
}

/*
 * Put output read with status --since (a reply doc) as the tools' output
 * members, and append it to *text with a note when there is more; fresh
 * says the read was from where this session had read to.
 */
void
mcp_tools_put_output(struct json_buf *jb, const struct jsonval *doc,
    int fresh, char **text)
{
	const struct jsonval	*out = jsonval_get(doc, "output");
	int64_t			 next, left = 0;
	int			 more = 0;

	next = mcp_tools_mark_line(jsonval_get_string(doc, "next"));
	(void)jsonval_int(jsonval_get(doc, "lines_left"), &left);
	(void)jsonval_bool(jsonval_get(doc, "output_truncated"), &more);

	json_key(jb, "output");
	if (jsonval_type(out) == JSONVAL_STRING)
		json_put_stringn(jb, jsonval_string(out),
		    jsonval_string_len(out));
	else
		json_put_string(jb, "");
	json_key(jb, "output_truncated");
	json_put_bool(jb, more);
	mcp_tools_put_int(jb, "offset", jsonval_get(doc, "output_from"));
	json_key(jb, "next_offset");
	if (next >= 0)
		json_put_int(jb, next);
	else
		json_put_null(jb);
	mcp_tools_put_int(jb, "lines_left", jsonval_get(doc, "lines_left"));

	if (jsonval_string(out) != NULL && *jsonval_string(out) != '\0') {
		mcp_tools_cat(text, "\n%s", jsonval_string(out));
		if ((*text)[strlen(*text) - 1] != '\n')
			mcp_tools_cat(text, "\n");
	} else
		mcp_tools_cat(text, "\n(no %soutput)\n", fresh ? "new " : "");
	if (more) {
		mcp_tools_cat(text, "[... %lld more line%s: call "
		    "terminal_job_status again (incremental) or with "
		    "offset=%lld]\n", (long long)left, left == 1 ? "" : "s",
		    (long long)next);
	}
}

/*
 * Fail call when a status reply says the job's output cannot be read on
 * from where it ends ("output_error": damage in the store), with the
 * output read before that; returns whether it did.
 */
int
mcp_tools_output_failed(struct mcp_call *call, const struct jsonval *doc)
{
	const char	*why = jsonval_get_string(doc, "output_error");
	const char	*out = jsonval_get_string(doc, "output");

	if (why == NULL)
		return 0;
	if (out != NULL && *out != '\0')
		mcp_call_fail(call, "the job's output cannot be read on: %s\n"
		    "Its output up to there:\n%s", why, out);
	else
		mcp_call_fail(call, "the job's output cannot be read on: %s",
		    why);
	return 1;
}

