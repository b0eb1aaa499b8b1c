/*
 * mcp.c: the Model Context Protocol server (mcp.h): JSON-RPC 2.0 messages
 * in, answers out through a struct mcp_io; the handshake, ping,
 * notifications, tools/list and tools/call over mcp_tools[] (the call API
 * of mcp-private.h).  mcp-main.c is `jobdeck mcp`, the program that wires
 * a server to stdin, stdout and the deck.
 *
 * Errors follow JSON-RPC: -32700 a message that is not JSON (id null,
 * LINE:COL in the message), -32600 not a request (a batch, a bad jsonrpc,
 * method or id; anything but initialize and ping before initialize),
 * -32601 an unknown method, -32602 bad params (an unknown tool, a tool the
 * read-only profile does not list, a bad cursor).  A notification is never
 * answered, not even with an error; a response from the client is
 * ignored.  Arguments that the tool's parameter table refuses are a tool
 * result with isError (the agent can correct itself), as the 2025-11-25
 * revision asks.
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "jsonval.h"
#include "mcp.h"
#include "mcp-private.h"
#include "name.h"
#include "xmalloc.h"

#define MCP_CLIENT_MAX		64	/* bytes of the client's name */

#define MCP_PARSE_ERROR		-32700
#define MCP_INVALID_REQUEST	-32600
#define MCP_METHOD_NOT_FOUND	-32601
#define MCP_INVALID_PARAMS	-32602
#define MCP_INTERNAL_ERROR	-32603
#define MCP_BUSY		-32000	/* a server error: MCP_CALLS_MAX */

/* The protocol revisions we speak, newest first. */
static const char *const mcp_versions[] = {
	"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", NULL
};

static const char mcp_instructions[] =
    "These tools run shell commands as jobs in a jobdeck deck: a terminal "
    "process manager that a person may be watching at the same time, so "
    "the jobs you start appear on their screen, marked as started by an "
    "agent. Start long-running commands with terminal (async) and follow "
    "them with terminal_job_status, which gives only the output you have "
    "not seen yet; run gives a one-shot command's stdout, stderr and exit "
    "code. When a job waits for something you cannot know or must not "
    "type, such as a password or a passphrase, do not guess: ask the "
    "person to focus the job in the deck (Ctrl+T) and type it there, then "
    "go on reading its status. terminal_screen shows a full-screen "
    "program's current screen. stack_reload applies the deck's "
    "configuration file after it was edited (what changed restarts, what "
    "is new starts, what went stops); stack_scale runs N replicas of a "
    "configured job. A server started with --read-only lists "
    "only the tools that look (terminal_job_status, terminal_job_list, "
    "terminal_screen) and refuses the others.";

/* Where the session has read a job to (mcp_session_mark()). */
struct mcp_mark {
	int64_t		 job;
	char		*run;
	char		*mark;
};

struct mcp_session {
	char		*client;
	struct mcp_mark	*marks;
	size_t		 nmarks;
};

/* A deck request of a call, in flight. */
struct mcp_creq {
	struct mcp_call		*call;
	struct mcp_request	*req;
	mcp_call_cb		*done;
	struct mcp_creq		*next;
};

struct mcp_call {
	struct mcp_server	*srv;
	char			*id;		/* the request's id, as JSON */
	const struct mcp_tool	*tool;
	struct jsonval		*empty;		/* {} when no arguments */
	struct mcp_creq		*reqs;
	void			*state;
	void			(*free_state)(void *);
	struct mcp_call		*next;
};

struct mcp_server {
	struct loop		*loop;
	int			 read_only;
	char			*deck;
	const struct mcp_io	*io;
	void			*arg;
	int			 initialized;
	int			 quit_called;
	struct mcp_session	 session;
	struct mcp_call		*calls;
	int			 ncalls;	/* in calls */
};

/* Send one message of jb (which is cleared). */
static void
mcp_send_buf(struct mcp_server *srv, struct json_buf *jb)
{
	srv->io->send(jb->data, jb->len, srv->arg);
	json_clear(jb);
}

/* Begin an answer to id (JSON text, or NULL for null). */
static void
mcp_answer_begin(struct json_buf *jb, const char *id)
{
	json_init(jb);
	json_object_begin(jb);
	json_key(jb, "jsonrpc");
	json_put_string(jb, "2.0");
	json_key(jb, "id");
	if (id == NULL)
		json_put_null(jb);
	else
		json_put_raw(jb, id, strlen(id));
}

/* Send a JSON-RPC error to id (NULL: null). */
static void
mcp_send_error(struct mcp_server *srv, const char *id, int code,
    const char *fmt, ...)
{
	struct json_buf	 jb;
	va_list		 ap;
	char		*msg;

	va_start(ap, fmt);
	msg = xvprintf(fmt, ap);
	va_end(ap);
	mcp_answer_begin(&jb, id);
	json_key(&jb, "error");
	json_object_begin(&jb);
	json_key(&jb, "code");
	json_put_int(&jb, code);
	json_key(&jb, "message");
	json_put_string(&jb, msg);
	json_object_end(&jb);
	json_object_end(&jb);
	free(msg);
	mcp_send_buf(srv, &jb);
}

/* Send a result (JSON text) to id. */
static void
mcp_send_result(struct mcp_server *srv, const char *id, const char *result,
    size_t len)
{
	struct json_buf	jb;

	mcp_answer_begin(&jb, id);
	json_key(&jb, "result");
	json_put_raw(&jb, result, len);
	json_object_end(&jb);
	mcp_send_buf(srv, &jb);
}

/*
 * Put JSON text made elsewhere (a tool's structured result, an output
 * schema) as one value: its line breaks, which valid JSON has only as
 * white space, become spaces, so the message stays one line.
 */
static void
mcp_put_raw(struct json_buf *jb, const char *text)
{
	size_t	 len = strlen(text), i;
	char	*s;

	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r' ||
	    text[len - 1] == ' ' || text[len - 1] == '\t'))
		len--;
	s = xstrndup(text, len);
	for (i = 0; i < len; i++) {
		if (s[i] == '\n' || s[i] == '\r')
			s[i] = ' ';
	}
	json_put_raw(jb, s, len);
	free(s);
}

/* The client's name made safe: printable ASCII, at most 64 bytes. */
static char *
mcp_client_name(const char *name)
{
	char	*s;
	size_t	 i, n;

	if (name == NULL || *name == '\0')
		return xstrdup("agent");
	n = strlen(name);
	if (n > MCP_CLIENT_MAX)
		n = MCP_CLIENT_MAX;
	s = xstrndup(name, n);
	for (i = 0; i < n; i++) {
		if (s[i] < 0x20 || s[i] > 0x7e)
			s[i] = '?';
	}
	return s;
}

/* Free a call: its deck requests cancelled, its state freed. */
static void
mcp_call_free(struct mcp_call *call)
{
	struct mcp_server	*srv = call->srv;
	struct mcp_call		**pp;
	struct mcp_creq		*cr;

	for (pp = &srv->calls; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == call) {
			*pp = call->next;
			srv->ncalls--;
			break;
		}
	}
	while ((cr = call->reqs) != NULL) {
		call->reqs = cr->next;
		srv->io->cancel(cr->req, srv->arg);
		free(cr);
	}
	if (call->free_state != NULL)
		call->free_state(call->state);
	jsonval_free(call->empty);
	free(call->id);
	free(call);
}

/* A deck request of a call is answered: hand it to the tool. */
static void
mcp_call_reply(const struct mcp_reply *reply, void *cb_arg)
{
	struct mcp_creq	*cr = cb_arg, **pp;
	struct mcp_call	*call = cr->call;
	mcp_call_cb	*done = cr->done;

	for (pp = &call->reqs; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == cr) {
			*pp = cr->next;
			break;
		}
	}
	free(cr);
	done(call, reply);
}

/*
 * Ask the deck for words (flags MCP_REQ_*) for call; done gets the reply.
 * Returns 0, or -1 after failing the call (the tool must not touch it).
 */
int
mcp_call_ctl(struct mcp_call *call, char *const *words, int flags,
    mcp_call_cb *done)
{
	struct mcp_server	*srv = call->srv;
	struct mcp_creq		*cr;

	cr = xcalloc(1, sizeof *cr);
	cr->call = call;
	cr->done = done;
	cr->req = srv->io->start(words, flags, mcp_call_reply, cr, srv->arg);
	if (cr->req == NULL) {
		free(cr);
		mcp_call_fail(call, "could not ask deck '%s'", srv->deck);
		return -1;
	}
	cr->next = call->reqs;
	call->reqs = cr;
	return 0;
}

/* Send a tools/call result for call and free it. */
static void
mcp_call_result(struct mcp_call *call, const char *structured,
    const char *text, int is_error)
{
	struct json_buf	jb;

	if (text == NULL)
		text = structured != NULL ? structured : "";
	json_init(&jb);
	json_object_begin(&jb);
	json_key(&jb, "content");
	json_array_begin(&jb);
	json_object_begin(&jb);
	json_key(&jb, "type");
	json_put_string(&jb, "text");
	json_key(&jb, "text");
	json_put_string(&jb, text);
	json_object_end(&jb);
	json_array_end(&jb);
	if (structured != NULL) {
		json_key(&jb, "structuredContent");
		mcp_put_raw(&jb, structured);
	}
	json_key(&jb, "isError");
	json_put_bool(&jb, is_error);
	json_object_end(&jb);
	mcp_send_result(call->srv, call->id, jb.data, jb.len);
	json_clear(&jb);
	mcp_call_free(call);
}

/* End call with a result: structured (JSON object text) and text. */
void
mcp_call_finish(struct mcp_call *call, const char *structured,
    const char *text)
{
	mcp_call_result(call, structured, text, 0);
}

/* End call with a result that is an error, in words for the agent. */
void
mcp_call_fail(struct mcp_call *call, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	va_start(ap, fmt);
	msg = xvprintf(fmt, ap);
	va_end(ap);
	mcp_call_result(call, NULL, msg, 1);
	free(msg);
}

/* End call with a JSON-RPC error -32602 (invalid params). */
void
mcp_call_invalid(struct mcp_call *call, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	va_start(ap, fmt);
	msg = xvprintf(fmt, ap);
	va_end(ap);
	mcp_send_error(call->srv, call->id, MCP_INVALID_PARAMS, "%s", msg);
	free(msg);
	mcp_call_free(call);
}

/* Give call a state, freed with free_state when the call is. */
void
mcp_call_set_state(struct mcp_call *call, void *state,
    void (*free_state)(void *))
{
	call->state = state;
	call->free_state = free_state;
}

/* The call's state. */
void *
mcp_call_state(struct mcp_call *call)
{
	return call->state;
}

/* The call's tool. */
const struct mcp_tool *
mcp_call_tool(const struct mcp_call *call)
{
	return call->tool;
}

/* The session the call belongs to. */
struct mcp_session *
mcp_call_session(struct mcp_call *call)
{
	return &call->srv->session;
}

/* The client's name (clientInfo.name, made safe; "agent" by default). */
const char *
mcp_session_client(const struct mcp_session *s)
{
	return s->client != NULL ? s->client : "agent";
}

/* Where the session has read job's run to, or NULL (start over). */
const char *
mcp_session_mark(const struct mcp_session *s, int64_t job, const char *run)
{
	size_t	i;

	if (run == NULL)
		run = "";
	for (i = 0; i < s->nmarks; i++) {
		if (s->marks[i].job == job)
			return strcmp(s->marks[i].run, run) == 0 ?
			    s->marks[i].mark : NULL;
	}
	return NULL;
}

/* Remember where the session has read job's run to. */
void
mcp_session_set_mark(struct mcp_session *s, int64_t job, const char *run,
    const char *mark)
{
	struct mcp_mark	*m = NULL;
	size_t		 i;

	for (i = 0; i < s->nmarks; i++) {
		if (s->marks[i].job == job) {
			m = &s->marks[i];
			free(m->run);
			free(m->mark);
			break;
		}
	}
	if (m == NULL) {
		s->marks = xreallocarray(s->marks, s->nmarks + 1,
		    sizeof *s->marks);
		m = &s->marks[s->nmarks++];
		m->job = job;
	}
	m->run = xstrdup(run != NULL ? run : "");
	m->mark = xstrdup(mark);
}

/* Return 1 if the read-only profile lists tool. */
static int
mcp_tool_listed(const struct mcp_server *srv, const struct mcp_tool *tool)
{
	return !srv->read_only || tool->read_only;
}

/* Write the JSON Schema of one parameter. */
static void
mcp_schema_param(struct json_buf *jb, const struct mcp_param *p)
{
	const char	*const *c;
	int		 bounded = p->min < p->max;

	json_object_begin(jb);
	json_key(jb, "type");
	switch (p->type) {
	case MCP_STRING:
		json_put_string(jb, "string");
		break;
	case MCP_INTEGER:
		json_put_string(jb, "integer");
		break;
	case MCP_NUMBER:
		json_put_string(jb, "number");
		break;
	case MCP_BOOLEAN:
		json_put_string(jb, "boolean");
		break;
	case MCP_STRING_ARRAY:
		json_put_string(jb, "array");
		json_key(jb, "items");
		json_object_begin(jb);
		json_key(jb, "type");
		json_put_string(jb, "string");
		break;
	case MCP_STRING_MAP:
		json_put_string(jb, "object");
		json_key(jb, "additionalProperties");
		json_object_begin(jb);
		json_key(jb, "type");
		json_put_string(jb, "string");
		json_object_end(jb);
		break;
	case MCP_JOB_NAME:
		json_put_string(jb, "string");
		break;
	case MCP_JOB_ID:
		json_array_begin(jb);
		json_put_string(jb, "integer");
		json_put_string(jb, "string");
		json_array_end(jb);
		break;
	}
	if (p->choices != NULL &&
	    (p->type == MCP_STRING || p->type == MCP_STRING_ARRAY)) {
		json_key(jb, "enum");
		json_array_begin(jb);
		for (c = p->choices; *c != NULL; c++)
			json_put_string(jb, *c);
		json_array_end(jb);
	}
	if (p->type == MCP_STRING_ARRAY)
		json_object_end(jb);	/* items */
	if (p->description != NULL) {
		json_key(jb, "description");
		json_put_string(jb, p->description);
	}
	if (bounded && p->type == MCP_INTEGER) {
		json_key(jb, "minimum");
		json_put_int(jb, (int64_t)p->min);
		json_key(jb, "maximum");
		json_put_int(jb, (int64_t)p->max);
	} else if (bounded && p->type == MCP_NUMBER) {
		json_key(jb, "minimum");
		json_put_double(jb, p->min);
		json_key(jb, "maximum");
		json_put_double(jb, p->max);
	}
	json_object_end(jb);
}

/* Write one tool of tools/list. */
static void
mcp_schema_tool(struct json_buf *jb, const struct mcp_tool *t)
{
	const struct mcp_param	*p;

	json_object_begin(jb);
	json_key(jb, "name");
	json_put_string(jb, t->name);
	if (t->title != NULL) {
		json_key(jb, "title");
		json_put_string(jb, t->title);
	}
	json_key(jb, "description");
	json_put_string(jb, t->description != NULL ? t->description : "");
	json_key(jb, "inputSchema");
	json_object_begin(jb);
	json_key(jb, "type");
	json_put_string(jb, "object");
	json_key(jb, "properties");
	json_object_begin(jb);
	for (p = t->params; p != NULL && p->name != NULL; p++) {
		json_key(jb, p->name);
		mcp_schema_param(jb, p);
	}
	json_object_end(jb);
	json_key(jb, "required");
	json_array_begin(jb);
	for (p = t->params; p != NULL && p->name != NULL; p++) {
		if (p->required)
			json_put_string(jb, p->name);
	}
	json_array_end(jb);
	json_key(jb, "additionalProperties");
	json_put_bool(jb, 0);
	json_object_end(jb);
	if (t->output_schema != NULL) {
		json_key(jb, "outputSchema");
		mcp_put_raw(jb, t->output_schema);
	}
	json_key(jb, "annotations");
	json_object_begin(jb);
	if (t->title != NULL) {
		json_key(jb, "title");
		json_put_string(jb, t->title);
	}
	json_key(jb, "readOnlyHint");
	json_put_bool(jb, t->read_only);
	json_key(jb, "destructiveHint");
	json_put_bool(jb, !t->read_only);
	json_key(jb, "openWorldHint");
	json_put_bool(jb, 0);
	json_object_end(jb);
	json_object_end(jb);
}

/* The names of the tools the read-only profile lists, ", " between. */
static char *
mcp_read_only_names(void)
{
	const struct mcp_tool	*t;
	char			*s = xstrdup(""), *n;

	for (t = mcp_tools; t->name != NULL; t++) {
		if (!t->read_only)
			continue;
		n = xprintf("%s%s%s", s, *s != '\0' ? ", " : "", t->name);
		free(s);
		s = n;
	}
	return s;
}

/* The words for a value's type in a message ("string", "a number"). */
static const char *
mcp_type_words(const struct jsonval *v)
{
	switch (jsonval_type(v)) {
	case JSONVAL_REAL:
		return "a number that is not whole";
	case JSONVAL_INT:
		return "integer";
	default:
		return jsonval_type_name(jsonval_type(v));
	}
}

/* Check a string against a choice list; NULL, or why not. */
static char *
mcp_check_choice(const char *what, const struct jsonval *v,
    const char *const *choices)
{
	const char	*const *c, *s = jsonval_string(v);
	char		*list, *n, *msg;

	if (choices == NULL)
		return NULL;
	for (c = choices; *c != NULL; c++) {
		if (strcmp(*c, s) == 0)
			return NULL;
	}
	list = xstrdup("");
	for (c = choices; *c != NULL; c++) {
		n = xprintf("%s%s%s", list, *list != '\0' ? ", " : "", *c);
		free(list);
		list = n;
	}
	msg = xprintf("%s: '%s' is not one of: %s", what, s, list);
	free(list);
	return msg;
}

/* Check that a string holds no NUL (a deck word cannot); NULL, or why not. */
static char *
mcp_check_nul(const char *what, const struct jsonval *v)
{
	if (strlen(jsonval_string(v)) == jsonval_string_len(v))
		return NULL;
	return xprintf("%s: a NUL character (\\u0000) cannot be passed "
	    "here", what);
}

/*
 * Check a job given as a string: an id in digits (when ids_ok) or a job's
 * name (so never an option of the deck's command); NULL, or why not.
 */
static char *
mcp_check_job_word(const char *what, const struct jsonval *v, int ids_ok)
{
	const char	*s = jsonval_string(v);
	char		*cause, *msg;

	if ((msg = mcp_check_nul(what, v)) != NULL)
		return msg;
	if (ids_ok && *s != '\0' && strspn(s, "0123456789") == strlen(s))
		return NULL;
	if (name_check_job(s, &cause) == 0)
		return NULL;
	msg = xprintf("%s: %s", what, cause);
	free(cause);
	return msg;
}

/* Check one argument against its parameter; NULL, or why not. */
static char *
mcp_check_arg(const struct mcp_param *p, const struct jsonval *v)
{
	struct jsonval_member	 m;
	void			*iter = NULL;
	enum jsonval_type	 t = jsonval_type(v);
	const char		*want = NULL;
	char			*what, *msg = NULL;
	double			 d;
	size_t			 i;

	switch (p->type) {
	case MCP_STRING:
		if (t != JSONVAL_STRING)
			want = "a string";
		else if (!p->nul_ok &&
		    (msg = mcp_check_nul(p->name, v)) != NULL)
			return msg;
		else
			return mcp_check_choice(p->name, v, p->choices);
		break;
	case MCP_INTEGER:
		if (t != JSONVAL_INT)
			want = "an integer";
		break;
	case MCP_NUMBER:
		if (t != JSONVAL_INT && t != JSONVAL_REAL)
			want = "a number";
		break;
	case MCP_BOOLEAN:
		if (t != JSONVAL_BOOL)
			want = "a boolean";
		break;
	case MCP_JOB_ID:
		if (t != JSONVAL_INT && t != JSONVAL_STRING)
			want = "a job id (an integer) or a job's name";
		else if (t == JSONVAL_STRING)
			return mcp_check_job_word(p->name, v, 1);
		break;
	case MCP_JOB_NAME:
		if (t != JSONVAL_STRING)
			want = "a job's name (a string)";
		else
			return mcp_check_job_word(p->name, v, 0);
		break;
	case MCP_STRING_ARRAY:
		if (t != JSONVAL_ARRAY) {
			want = "an array of strings";
			break;
		}
		for (i = 0; i < jsonval_count(v); i++) {
			what = xprintf("%s[%zu]", p->name, i);
			if (jsonval_type(jsonval_at(v, i)) != JSONVAL_STRING)
				msg = xprintf("%s: expected a string, got %s",
				    what, mcp_type_words(jsonval_at(v, i)));
			else if ((msg = mcp_check_nul(what,
			    jsonval_at(v, i))) == NULL)
				msg = mcp_check_choice(what, jsonval_at(v, i),
				    p->choices);
			free(what);
			if (msg != NULL)
				return msg;
		}
		return NULL;
	case MCP_STRING_MAP:
		if (t != JSONVAL_OBJECT) {
			want = "an object of strings";
			break;
		}
		while (jsonval_next(v, &iter, &m)) {
			if (jsonval_type(m.value) != JSONVAL_STRING)
				return xprintf("%s.%s: expected a string, got "
				    "%s", p->name, m.key,
				    mcp_type_words(m.value));
			what = xprintf("%s.%s", p->name, m.key);
			msg = mcp_check_nul(what, m.value);
			free(what);
			if (msg != NULL)
				return msg;
		}
		return NULL;
	}
	if (want != NULL)
		return xprintf("%s: expected %s, got %s", p->name, want,
		    mcp_type_words(v));
	if ((p->type == MCP_INTEGER || p->type == MCP_NUMBER) &&
	    p->min < p->max && jsonval_number(v, &d) == 0 &&
	    (d < p->min || d > p->max))
		return xprintf("%s: %g is out of range (%g to %g)", p->name, d,
		    p->min, p->max);
	return NULL;
}

/* Check a call's arguments against tool's table; NULL, or why not. */
static char *
mcp_check_args(const struct mcp_tool *tool, const struct jsonval *args)
{
	const struct mcp_param	*p;
	struct jsonval_member	 m;
	void			*iter = NULL;
	char			*names, *n;

	if (jsonval_type(args) != JSONVAL_OBJECT)
		return xprintf("arguments: expected an object, got %s",
		    mcp_type_words(args));
	while (jsonval_next(args, &iter, &m)) {
		for (p = tool->params; p != NULL && p->name != NULL; p++) {
			if (strcmp(p->name, m.key) == 0)
				break;
		}
		if (p != NULL && p->name != NULL)
			continue;
		names = xstrdup("");
		for (p = tool->params; p != NULL && p->name != NULL; p++) {
			n = xprintf("%s%s%s", names, *names != '\0' ? ", " :
			    "", p->name);
			free(names);
			names = n;
		}
		n = xprintf("unknown parameter: %s (%s takes: %s)", m.key,
		    tool->name, *names != '\0' ? names : "none");
		free(names);
		return n;
	}
	for (p = tool->params; p != NULL && p->name != NULL; p++) {
		if (jsonval_get(args, p->name) == NULL) {
			if (p->required)
				return xprintf("missing required parameter: %s",
				    p->name);
			continue;
		}
		if ((n = mcp_check_arg(p, jsonval_get(args, p->name))) != NULL)
			return n;
	}
	return NULL;
}

/* tools/call: check the tool and its arguments, then start it. */
static void
mcp_tools_call(struct mcp_server *srv, const char *id,
    const struct jsonval *params)
{
	const struct mcp_tool	*tool;
	const struct jsonval	*args;
	const char		*name = jsonval_get_string(params, "name");
	struct mcp_call		*call;
	char			*msg;

	if (name == NULL) {
		mcp_send_error(srv, id, MCP_INVALID_PARAMS, "tools/call: name "
		    "must be a string");
		return;
	}
	for (tool = mcp_tools; tool->name != NULL; tool++) {
		if (strcmp(tool->name, name) == 0)
			break;
	}
	if (tool->name == NULL) {
		mcp_send_error(srv, id, MCP_INVALID_PARAMS, "unknown tool: %s",
		    name);
		return;
	}
	if (!mcp_tool_listed(srv, tool)) {
		msg = mcp_read_only_names();
		mcp_send_error(srv, id, MCP_INVALID_PARAMS, "not available in "
		    "read-only mode: %s (this server only looks: %s)", name,
		    msg);
		free(msg);
		return;
	}
	/* Memory stays bounded whatever an agent sends at once. */
	if (srv->ncalls >= MCP_CALLS_MAX) {
		mcp_send_error(srv, id, MCP_BUSY, "too many calls in flight "
		    "(%d): wait for some to end, then call %s again",
		    MCP_CALLS_MAX, name);
		return;
	}
	call = xcalloc(1, sizeof *call);
	call->srv = srv;
	call->id = xstrdup(id);
	call->tool = tool;
	call->next = srv->calls;
	srv->calls = call;
	srv->ncalls++;
	if ((args = jsonval_get(params, "arguments")) == NULL ||
	    jsonval_type(args) == JSONVAL_NULL) {
		call->empty = jsonval_parse("{}", 2, &msg);
		args = call->empty;
	}
	if ((msg = mcp_check_args(tool, args)) != NULL) {
		mcp_call_fail(call, "%s", msg);
		free(msg);
		return;
	}
	if (tool->start == NULL) {
		mcp_send_error(srv, id, MCP_INTERNAL_ERROR, "internal error: "
		    "tool %s has nothing to run", tool->name);
		mcp_call_free(call);
		return;
	}
	tool->start(call, args);	/* may end and free the call */
}

/* tools/list: every tool the profile lists; there is one page. */
static void
mcp_tools_list(struct mcp_server *srv, const char *id,
    const struct jsonval *params)
{
	const struct mcp_tool	*t;
	const struct jsonval	*cursor = jsonval_get(params, "cursor");
	struct json_buf		 jb;

	if (cursor != NULL && jsonval_type(cursor) != JSONVAL_NULL) {
		mcp_send_error(srv, id, MCP_INVALID_PARAMS, "invalid cursor "
		    "(the list has one page)");
		return;
	}
	json_init(&jb);
	json_object_begin(&jb);
	json_key(&jb, "tools");
	json_array_begin(&jb);
	for (t = mcp_tools; t->name != NULL; t++) {
		if (mcp_tool_listed(srv, t))
			mcp_schema_tool(&jb, t);
	}
	json_array_end(&jb);
	json_object_end(&jb);
	mcp_send_result(srv, id, jb.data, jb.len);
	json_clear(&jb);
}

/* initialize: agree on a revision, say who we are, learn who they are. */
static void
mcp_initialize(struct mcp_server *srv, const char *id,
    const struct jsonval *params)
{
	const char	*want = jsonval_get_string(params, "protocolVersion");
	const char	*version = mcp_versions[0];
	const char	*name;
	struct json_buf	 jb;
	size_t		 i;

	for (i = 0; want != NULL && mcp_versions[i] != NULL; i++) {
		if (strcmp(mcp_versions[i], want) == 0)
			version = mcp_versions[i];
	}
	name = jsonval_get_string(jsonval_get(params, "clientInfo"), "name");
	free(srv->session.client);
	srv->session.client = mcp_client_name(name);
	srv->initialized = 1;

	json_init(&jb);
	json_object_begin(&jb);
	json_key(&jb, "protocolVersion");
	json_put_string(&jb, version);
	json_key(&jb, "capabilities");
	json_object_begin(&jb);
	json_key(&jb, "tools");
	json_object_begin(&jb);
	json_key(&jb, "listChanged");
	json_put_bool(&jb, 0);
	json_object_end(&jb);
	json_object_end(&jb);
	json_key(&jb, "serverInfo");
	json_object_begin(&jb);
	json_key(&jb, "name");
	json_put_string(&jb, "jobdeck");
	json_key(&jb, "title");
	json_put_string(&jb, srv->read_only ? "jobdeck (read-only)" :
	    "jobdeck");
	json_key(&jb, "version");
	json_put_string(&jb, JOBDECK_VERSION);
	json_object_end(&jb);
	json_key(&jb, "instructions");
	json_put_string(&jb, mcp_instructions);
	json_object_end(&jb);
	mcp_send_result(srv, id, jb.data, jb.len);
	json_clear(&jb);
}

/* The id of a request as JSON text, in *out; -1 if it is not one. */
static int
mcp_request_id(const struct jsonval *v, char **out)
{
	struct json_buf	jb;
	int64_t		n;

	json_init(&jb);
	if (jsonval_type(v) == JSONVAL_STRING)
		json_put_stringn(&jb, jsonval_string(v), jsonval_string_len(v));
	else if (jsonval_int(v, &n) == 0)
		json_put_int(&jb, n);
	else {
		json_clear(&jb);
		return -1;
	}
	*out = json_finish(&jb, NULL);
	json_clear(&jb);
	return 0;
}

/* notifications/cancelled: free the call, which is never answered. */
static void
mcp_cancelled(struct mcp_server *srv, const struct jsonval *params)
{
	const struct jsonval	*rid = jsonval_get(params, "requestId");
	struct mcp_call		*call;
	char			*id;

	if (mcp_request_id(rid, &id) != 0)
		return;
	for (call = srv->calls; call != NULL; call = call->next) {
		if (strcmp(call->id, id) == 0) {
			mcp_call_free(call);
			break;
		}
	}
	free(id);
}

/* Act on one parsed message. */
static void
mcp_message(struct mcp_server *srv, const struct jsonval *msg)
{
	const struct jsonval	*idv, *params;
	const char		*method, *version;
	char			*id = NULL;

	if (jsonval_type(msg) == JSONVAL_ARRAY) {
		mcp_send_error(srv, NULL, MCP_INVALID_REQUEST, "batches are "
		    "not supported");
		return;
	}
	if (jsonval_type(msg) != JSONVAL_OBJECT) {
		mcp_send_error(srv, NULL, MCP_INVALID_REQUEST, "invalid "
		    "request: expected an object, got %s",
		    mcp_type_words(msg));
		return;
	}
	idv = jsonval_get(msg, "id");
	if (jsonval_get(msg, "method") == NULL &&
	    (jsonval_get(msg, "result") != NULL ||
	    jsonval_get(msg, "error") != NULL))
		return;		/* a response of the client's: none asked */
	if (idv != NULL && mcp_request_id(idv, &id) != 0) {
		mcp_send_error(srv, NULL, MCP_INVALID_REQUEST, "invalid "
		    "request: id must be a string or an integer");
		return;
	}
	version = jsonval_get_string(msg, "jsonrpc");
	method = jsonval_get_string(msg, "method");
	if (version == NULL || strcmp(version, "2.0") != 0) {
		if (id != NULL)
			mcp_send_error(srv, id, MCP_INVALID_REQUEST, "invalid "
			    "request: jsonrpc must be \"2.0\"");
		goto out;
	}
	if (method == NULL) {
		if (id != NULL)
			mcp_send_error(srv, id, MCP_INVALID_REQUEST, "invalid "
			    "request: method must be a string");
		goto out;
	}
	params = jsonval_get(msg, "params");
	if (params != NULL && jsonval_type(params) != JSONVAL_OBJECT &&
	    jsonval_type(params) != JSONVAL_NULL) {
		if (id != NULL)
			mcp_send_error(srv, id, MCP_INVALID_PARAMS, "%s: params "
			    "must be an object", method);
		goto out;
	}
	if (id == NULL) {
		/* A notification: acted on, never answered. */
		if (strcmp(method, "notifications/cancelled") == 0)
			mcp_cancelled(srv, params);
		goto out;
	}
	if (strcmp(method, "initialize") == 0)
		mcp_initialize(srv, id, params);
	else if (strcmp(method, "ping") == 0)
		mcp_send_result(srv, id, "{}", 2);
	else if (!srv->initialized)
		mcp_send_error(srv, id, MCP_INVALID_REQUEST, "not initialized "
		    "(send initialize first)");
	else if (strcmp(method, "tools/list") == 0)
		mcp_tools_list(srv, id, params);
	else if (strcmp(method, "tools/call") == 0)
		mcp_tools_call(srv, id, params);
	else
		mcp_send_error(srv, id, MCP_METHOD_NOT_FOUND, "method not "
		    "found: %s", method);
out:
	free(id);
}

/* Take one message (one line of JSON, without its newline). */
void
mcp_server_input(struct mcp_server *srv, const char *msg, size_t len)
{
	struct jsonval	*v;
	char		*cause = NULL;

	if (len > MCP_LINE_MAX) {
		mcp_server_too_long(srv);
		return;
	}
	if ((v = jsonval_parse(msg, len, &cause)) == NULL) {
		mcp_send_error(srv, NULL, MCP_PARSE_ERROR, "parse error: %s",
		    cause != NULL ? cause : "not JSON");
		free(cause);
		return;
	}
	mcp_message(srv, v);
	jsonval_free(v);
}

/* Answer a message over MCP_LINE_MAX, which is not read: a parse error. */
void
mcp_server_too_long(struct mcp_server *srv)
{
	mcp_send_error(srv, NULL, MCP_PARSE_ERROR, "parse error: message over "
	    "%d MiB", MCP_LINE_MAX / (1024 * 1024));
}

/* Return how many tools/call requests are still to be answered. */
int
mcp_server_busy(const struct mcp_server *srv)
{
	const struct mcp_call	*call;
	int			 n = 0;

	for (call = srv->calls; call != NULL; call = call->next)
		n++;
	return n;
}

/* Make a server on loop; io and arg must outlive it. */
struct mcp_server *
mcp_server_new(struct loop *loop, const struct mcp_opts *opts,
    const struct mcp_io *io, void *arg)
{
	struct mcp_server	*srv;

	srv = xcalloc(1, sizeof *srv);
	srv->loop = loop;
	srv->read_only = opts->read_only;
	srv->deck = xstrdup(opts->deck != NULL ? opts->deck : "default");
	srv->io = io;
	srv->arg = arg;
	return srv;
}

/* Free a server: every call in flight freed unanswered, then quit. */
void
mcp_server_free(struct mcp_server *srv)
{
	size_t	i;

	if (srv == NULL)
		return;
	while (srv->calls != NULL)
		mcp_call_free(srv->calls);
	for (i = 0; i < srv->session.nmarks; i++) {
		free(srv->session.marks[i].run);
		free(srv->session.marks[i].mark);
	}
	free(srv->session.marks);
	free(srv->session.client);
	if (srv->io->quit != NULL && !srv->quit_called) {
		srv->quit_called = 1;
		srv->io->quit(srv->arg);
	}
	free(srv->deck);
	free(srv);
}
