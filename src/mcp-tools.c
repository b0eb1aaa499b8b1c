/*
 * mcp-tools.c: the tools of jobdeck mcp (mcp-private.h), as data: each
 * one's words for the agent, its parameters, its outputSchema and the
 * function that starts a call.  A tool asks the deck over the control
 * socket (mcp_call_ctl(): the words of jobdeck ctl; the commands are in
 * ctl.h and cmd-ctl.c) and reads the JSON replies with jsonval.h; what it
 * gives back is built with json.h, and every structuredContent satisfies
 * the tool's outputSchema (the SDK clients check it).
 *
 * The tools, after seed 004 (an editor agent's background terminal jobs)
 * and seed 002 (a subprocess primitive):
 *
 *   terminal		spawn --agent CLIENT [--cwd] [--env]... -- COMMAND;
 *			with async false, then wait --timeout T and status.
 *   terminal_job_status status --since MARK: the output this session has
 *			not seen (its mark per job and run), or from a line.
 *   terminal_job_list	list: the most recent jobs, counts.
 *   terminal_job_cancel status, then kill when the job is live.
 *   terminal_send_input send ID -- TEXT, TEXT escaped for send.
 *   terminal_screen	screen ID: the rows of a full-screen program.
 *   run		spawn --pipes --timeout --no-shell, wait, status
 *			--split:
 *			stdout, stderr and a return code, the deck's "code"
 *			of the job's end (waitstatus.h: 124 timed out, 126
 *			not executable, 127 not found...).
 *
 * The deck's states become the tools' status words in one table
 * (mcp_tools_states[]); a job object of the deck becomes the tools' in one
 * function (mcp_tools_put_job()).  A deck's job object is read by the
 * names of the deck's own field table (jobfield.h, mcp_tools_field()).  Deck errors (status 1, 2, or none at
 * all) are tool errors carrying the deck's own words; so is output that
 * ends at damage in the store (status's "output_error"), with what was
 * read before it.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expand.h"
#include "jobfield.h"
#include "json.h"
#include "jsonval.h"
#include "mcp-private.h"
#include "textesc.h"
#include "ttywait.h"
#include "xmalloc.h"

/* How many lines of a deck's error reach the agent. */
#define MCP_TOOLS_ERROR_LINES	8

/* How often a status read starts over because the job restarted meanwhile. */
#define MCP_TOOLS_RETRIES	3

/* An agent's name, as spawn --agent takes it. */
#define MCP_TOOLS_AGENT_MAX	64

/* The state of one call, whatever the tool (mcp_call_set_state()). */
struct mcp_tools_call {
	char		*job;		/* the job, as asked */
	int64_t		 id;		/* its id, once known */
	char		*run;		/* the run first read */
	char		*since;		/* where this read starts */
	int		 incremental;	/* the session's mark moves */
	int		 async;		/* terminal: answer at once */
	const char	*previous;	/* cancel: the status before */
	int		 tries;		/* reads started over */
	double		 timeout;	/* seconds */
	int		 exit;		/* run: the wait's exit */
	char		*program;	/* run: for messages */
	unsigned int	 filter;	/* list: bits of status words */
	int64_t		 limit;		/* list: at most */
	size_t		 bytes;		/* send: how many */
};

/* The words of one deck request, NULL-terminated. */
struct mcp_tools_words {
	char		**v;
	size_t		  n;
	size_t		  size;
};

static void	mcp_tools_add_escaped(struct mcp_tools_words *, const char *);
static void	mcp_tools_terminal(struct mcp_call *,
		    const struct jsonval *);
static void	mcp_tools_status(struct mcp_call *, const struct jsonval *);
static void	mcp_tools_list(struct mcp_call *, const struct jsonval *);
static void	mcp_tools_cancel(struct mcp_call *, const struct jsonval *);
static void	mcp_tools_send(struct mcp_call *, const struct jsonval *);
static void	mcp_tools_screen(struct mcp_call *, const struct jsonval *);
static void	mcp_tools_run(struct mcp_call *, const struct jsonval *);

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
	{ NULL, 0, NULL }
};

/* The tools' status words, for status_filter. */
static const char *const mcp_tools_status_words[] = {
	"queued", "running", "waiting_for_input", "completed", "failed",
	"canceled", "timed_out", NULL
};

/* ---- Schemas and parameters ---- */

#define MCP_NULLABLE(t)	"{\"type\":[\"" t "\",\"null\"]}"

/* The tools' job object (mcp_tools_put_job()): its properties. */
#define MCP_SCHEMA_JOB							\
	"\"job_id\":{\"type\":\"integer\"},"				\
	"\"name\":" MCP_NULLABLE("string") ","				\
	"\"status\":{\"type\":\"string\"},"				\
	"\"state\":{\"type\":\"string\"},"				\
	"\"command\":" MCP_NULLABLE("string") ","			\
	"\"cwd\":" MCP_NULLABLE("string") ","				\
	"\"pid\":" MCP_NULLABLE("integer") ","				\
	"\"agent\":" MCP_NULLABLE("string") ","			\
	"\"duration_ms\":" MCP_NULLABLE("integer") ","			\
	"\"exit_code\":" MCP_NULLABLE("integer") ","			\
	"\"signal\":" MCP_NULLABLE("string")

/* Output read from a mark (mcp_tools_put_output()): its properties. */
#define MCP_SCHEMA_OUTPUT						\
	"\"output\":{\"type\":\"string\"},"				\
	"\"output_truncated\":{\"type\":\"boolean\"},"			\
	"\"offset\":" MCP_NULLABLE("integer") ","			\
	"\"next_offset\":" MCP_NULLABLE("integer") ","			\
	"\"lines_left\":" MCP_NULLABLE("integer")

#define MCP_DESC_JOB_ID							\
	"The job: its id (a number, as terminal or terminal_job_list "	\
	"gave it) or its name."

static const struct mcp_param mcp_tools_terminal_params[] = {
	{ "command", MCP_STRING, 1, "The shell command line to run, as sh "
	    "-c runs it (pipes, redirections and && work), e.g. \"make test "
	    "2>&1\".", NULL, 0, 0, 0 },
	{ "cwd", MCP_STRING, 0, "The directory to run it in (default: the "
	    "deck's).", NULL, 0, 0, 0 },
	{ "env", MCP_STRING_MAP, 0, "Environment variables to set for it, "
	    "e.g. {\"DEBUG\": \"1\"}.", NULL, 0, 0, 0 },
	{ "async", MCP_BOOLEAN, 0, "true (the default): start the job and "
	    "return its job_id at once; follow it with terminal_job_status. "
	    "false: wait for it to end (at most timeout seconds) and return "
	    "its output and exit code.", NULL, 0, 0, 0 },
	{ "timeout", MCP_NUMBER, 0, "With async false: how many seconds to "
	    "wait (default 30, at most 3600).  A job still running then "
	    "keeps running (timed_out is true); poll or cancel it.", NULL, 0,
	    3600, 0 },
	{ NULL, 0, 0, NULL, NULL, 0, 0, 0 }
};

static const struct mcp_param mcp_tools_status_params[] = {
	{ "job_id", MCP_JOB_ID, 1, MCP_DESC_JOB_ID, NULL, 0, 0, 0 },
	{ "incremental", MCP_BOOLEAN, 0, "true (the default): only the "
	    "output this session has not been given yet; false: the output "
	    "from the start of the job's run.", NULL, 0, 0, 0 },
	{ "offset", MCP_INTEGER, 0, "Read the output from this line (0 is "
	    "the first line of the run; a previous result's next_offset "
	    "reads on).  Overrides incremental.", NULL, 0, 9007199254740991.0, 0 },
	{ NULL, 0, 0, NULL, NULL, 0, 0, 0 }
};

static const struct mcp_param mcp_tools_list_params[] = {
	{ "status_filter", MCP_STRING_ARRAY, 0, "Only jobs with one of these "
	    "statuses (default: all; running includes waiting_for_input, a "
	    "running job blocked reading its terminal).", mcp_tools_status_words, 0, 0, 0 },
	{ "limit", MCP_INTEGER, 0, "At most this many jobs, the most recent "
	    "(default 50).", NULL, 1, 1000, 0 },
	{ NULL, 0, 0, NULL, NULL, 0, 0, 0 }
};

static const struct mcp_param mcp_tools_job_params[] = {
	{ "job_id", MCP_JOB_ID, 1, MCP_DESC_JOB_ID, NULL, 0, 0, 0 },
	{ NULL, 0, 0, NULL, NULL, 0, 0, 0 }
};

static const struct mcp_param mcp_tools_send_params[] = {
	{ "job_id", MCP_JOB_ID, 1, MCP_DESC_JOB_ID, NULL, 0, 0, 0 },
	{ "text", MCP_STRING, 1, "The bytes to type, exactly: end a line with "
	    "\"\\n\" (or \"\\r\" for programs that want Enter as a carriage "
	    "return); control keys are their characters, e.g. Ctrl+C is "
	    "\"\\u0003\", Ctrl+D \"\\u0004\", Escape \"\\u001b\".", NULL, 0,
	    0, 1 },
	{ NULL, 0, 0, NULL, NULL, 0, 0, 0 }
};

static const struct mcp_param mcp_tools_run_params[] = {
	{ "command", MCP_STRING, 1, "The program to run (looked up in PATH), "
	    "not a shell command line: its arguments go in args.", NULL, 0,
	    0, 0 },
	{ "args", MCP_STRING_ARRAY, 0, "Its arguments, each one word as "
	    "given (no shell quoting or globbing).", NULL, 0, 0, 0 },
	{ "env", MCP_STRING_MAP, 0, "Environment variables to set for it.",
	    NULL, 0, 0, 0 },
	{ "cwd", MCP_STRING, 0, "The directory to run it in (default: the "
	    "deck's).", NULL, 0, 0, 0 },
	{ "timeout", MCP_NUMBER, 0, "Seconds before it is killed (default "
	    "300, at most 86400).", NULL, 0, 86400, 0 },
	{ "input_data", MCP_STRING, 0, "Text written to its standard input, "
	    "which is then closed (default: no input).", NULL, 0, 0, 1 },
	{ "params", MCP_STRING_MAP, 0, "Values for {name} placeholders in "
	    "command and args, e.g. {\"file\": \"a.txt\"} for args "
	    "[\"-l\", \"{file}\"]; each value fills its word as it is.  A "
	    "{name} without a value is an error; with params, ${VAR} is "
	    "the server's environment variable and $$ a literal $.", NULL,
	    0, 0, 0 },
	{ NULL, 0, 0, NULL, NULL, 0, 0, 0 }
};

const struct mcp_tool mcp_tools[] = {
	{
		.name = "terminal",
		.title = "Run a shell command in the deck",
		.description = "Start a shell command as a job of the jobdeck "
		    "deck, where the user sees it too.  By default returns "
		    "its job_id at once (the job runs on in the background): "
		    "use terminal_job_status to read its output and learn "
		    "how it ended, terminal_send_input to answer a prompt, "
		    "terminal_job_cancel to stop it.  With async false, "
		    "waits up to timeout seconds and returns the output and "
		    "exit code.  The job has a terminal, so interactive and "
		    "full-screen programs work (see terminal_screen).",
		.params = mcp_tools_terminal_params,
		.output_schema = "{\"type\":\"object\",\"properties\":{"
		    MCP_SCHEMA_JOB "," MCP_SCHEMA_OUTPUT ","
		    "\"timed_out\":{\"type\":\"boolean\"}},"
		    "\"required\":[\"job_id\",\"status\"]}",
		.read_only = 0,
		.start = mcp_tools_terminal
	},
	{
		.name = "terminal_job_status",
		.title = "A job's status and new output",
		.description = "Return a job's status (queued, running, "
		    "completed, failed, canceled, timed_out), exit code, "
		    "duration and output.  By default (incremental) only the "
		    "output this session has not been given yet, so poll it "
		    "until status is no longer running.  Output is at most "
		    "64 KiB a call: when output_truncated is true, call "
		    "again to read on (or pass offset=next_offset).",
		.params = mcp_tools_status_params,
		.output_schema = "{\"type\":\"object\",\"properties\":{"
		    MCP_SCHEMA_JOB "," MCP_SCHEMA_OUTPUT "},"
		    "\"required\":[\"job_id\",\"status\",\"output\"]}",
		.read_only = 1,
		.start = mcp_tools_status
	},
	{
		.name = "terminal_job_list",
		.title = "The deck's jobs",
		.description = "List the deck's jobs, the most recent last: "
		    "each one's job_id, name, status, command, cwd, pid, "
		    "agent (the client that started it, or null when a "
		    "person did), duration and exit code; with the number "
		    "of jobs matching and of jobs running.",
		.params = mcp_tools_list_params,
		.output_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"jobs\":{\"type\":\"array\",\"items\":{\"type\":"
		    "\"object\",\"properties\":{" MCP_SCHEMA_JOB "},"
		    "\"required\":[\"job_id\",\"status\"]}},"
		    "\"total\":{\"type\":\"integer\"},"
		    "\"running\":{\"type\":\"integer\"},"
		    "\"shown\":{\"type\":\"integer\"}},"
		    "\"required\":[\"jobs\",\"total\",\"running\",\"shown\"]}",
		.read_only = 1,
		.start = mcp_tools_list
	},
	{
		.name = "terminal_job_cancel",
		.title = "Cancel a job",
		.description = "Stop a running or queued job: SIGTERM to its "
		    "process group, then SIGKILL if it has not ended after a "
		    "grace period.  A job that has already ended is refused.",
		.params = mcp_tools_job_params,
		.output_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"success\":{\"type\":\"boolean\"},"
		    "\"job_id\":{\"type\":\"integer\"},"
		    "\"previous_status\":{\"type\":\"string\"},"
		    "\"message\":{\"type\":\"string\"}},"
		    "\"required\":[\"success\",\"job_id\",\"previous_status\","
		    "\"message\"]}",
		.read_only = 0,
		.start = mcp_tools_cancel
	},
	{
		.name = "terminal_send_input",
		.title = "Type into a job",
		.description = "Write text to a running job's input, as if "
		    "typed: to answer a prompt (\"yes\\n\"), drive an "
		    "interactive program or press control keys (Ctrl+C is "
		    "the text \"\\u0003\").  Nothing is added: end a line "
		    "with \"\\n\".  Then read the reply with "
		    "terminal_job_status or terminal_screen.",
		.params = mcp_tools_send_params,
		.output_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"success\":{\"type\":\"boolean\"},"
		    "\"job_id\":{\"type\":[\"integer\",\"string\"]},"
		    "\"bytes\":{\"type\":\"integer\"}},"
		    "\"required\":[\"success\",\"job_id\",\"bytes\"]}",
		.read_only = 0,
		.start = mcp_tools_send
	},
	{
		.name = "terminal_screen",
		.title = "A job's screen",
		.description = "Return a job's terminal screen as it is now: "
		    "its rows of text, the cursor, whether the program uses "
		    "the alternate screen, the title.  For full-screen "
		    "programs (top, less, vim, menus), whose output is not "
		    "lines.",
		.params = mcp_tools_job_params,
		.output_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"job_id\":{\"type\":\"integer\"},"
		    "\"rows\":{\"type\":\"integer\"},"
		    "\"cols\":{\"type\":\"integer\"},"
		    "\"cursor\":{\"type\":\"object\",\"properties\":{"
		    "\"row\":{\"type\":\"integer\"},"
		    "\"col\":{\"type\":\"integer\"},"
		    "\"visible\":{\"type\":\"boolean\"}}},"
		    "\"alt_screen\":{\"type\":\"boolean\"},"
		    "\"title\":" MCP_NULLABLE("string") ","
		    "\"lines\":{\"type\":\"array\",\"items\":{\"type\":"
		    "\"string\"}}},"
		    "\"required\":[\"job_id\",\"rows\",\"cols\",\"lines\"]}",
		.read_only = 1,
		.start = mcp_tools_screen
	},
	{
		.name = "run",
		.title = "Run a program to its end",
		.description = "Run one program with arguments (no shell) to "
		    "its end, without a terminal, and return its stdout and "
		    "stderr apart and its return_code: the exit code, 128+N "
		    "for signal N, 124 when it timed out, 125 when it never "
		    "ran, 126 when it is not executable, 127 when it was not "
		    "found (error says why it did not run to its end).  Each "
		    "stream is at most 64 KiB (stdout_truncated, "
		    "stderr_truncated).  The job shows in the deck too.",
		.params = mcp_tools_run_params,
		.output_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"success\":{\"type\":\"boolean\"},"
		    "\"job_id\":{\"type\":\"integer\"},"
		    "\"stdout\":{\"type\":\"string\"},"
		    "\"stderr\":{\"type\":\"string\"},"
		    "\"return_code\":{\"type\":\"integer\"},"
		    "\"duration_ms\":" MCP_NULLABLE("integer") ","
		    "\"timed_out\":{\"type\":\"boolean\"},"
		    "\"signal\":" MCP_NULLABLE("string") ","
		    "\"error\":" MCP_NULLABLE("string") ","
		    "\"stdout_truncated\":{\"type\":\"boolean\"},"
		    "\"stderr_truncated\":{\"type\":\"boolean\"}},"
		    "\"required\":[\"success\",\"stdout\",\"stderr\","
		    "\"return_code\",\"timed_out\"]}",
		.read_only = 0,
		.start = mcp_tools_run
	},
	{ .name = NULL }
};

/* ---- Shared helpers ---- */

/* Return the member of a deck's job object that holds a field. */
static const struct jsonval *
mcp_tools_field(const struct jsonval *job, enum jobfield_id id)
{
	return jsonval_get(job, jobfield_name(id));
}

/* Return a string field of a deck's job object, or NULL. */
static const char *
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
static struct mcp_tools_call *
mcp_tools_call_new(struct mcp_call *call)
{
	struct mcp_tools_call	*tc = xcalloc(1, sizeof *tc);

	tc->id = -1;
	tc->incremental = 1;
	mcp_call_set_state(call, tc, mcp_tools_call_free);
	return tc;
}

/* Add a word (a copy of it) to a request's words. */
static void
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
static void __attribute__((format(printf, 2, 3)))
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
static void
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
static int
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
static char *
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
static int
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
static struct jsonval *
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
static struct jsonval *
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
static void
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
static void __attribute__((format(printf, 2, 3)))
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
static void
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
static void
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
static void
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
static const char *
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
static int
mcp_tools_is_running(const char *status)
{
	return strcmp(status, "running") == 0 ||
	    strcmp(status, "waiting_for_input") == 0;
}

/* Return whether a status word is a job that has not ended. */
static int
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
static void
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
}

/* Return a one-line summary of a deck's job object; the caller frees it. */
static char *
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
static char *
mcp_tools_job_word(const struct jsonval *args)
{
	const struct jsonval	*v = jsonval_get(args, "job_id");
	int64_t			 n;

	if (jsonval_int(v, &n) == 0)
		return xprintf("%lld", (long long)n);
	return xstrdup(jsonval_string(v) != NULL ? jsonval_string(v) : "");
}

/* Return a boolean argument, or def when it is not given. */
static int
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
static double
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
 * Return text escaped for send and spawn --input (their escapes: \\ and
 * \xHH): every byte below 0x20, 0x7f and backslash, so that a request line
 * holds it and the job gets exactly these bytes.  The caller frees it.
 */
static char *
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

/* Add --cwd and --env words for a call's cwd and env arguments. */
static void
mcp_tools_add_place(struct mcp_tools_words *w, const struct jsonval *args)
{
	struct jsonval_member	 m;
	const char		*cwd = jsonval_get_string(args, "cwd");
	void			*iter = NULL;

	char			*kv;

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
static void
mcp_tools_add_escaped(struct mcp_tools_words *w, const char *word)
{
	char	*esc = mcp_tools_escape(word, strlen(word));

	mcp_tools_add(w, esc);
	free(esc);
}

/* Return the agent's name for spawn --agent: printable, 1 to 64 bytes. */
static char *
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
static void
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
static int
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

/* ---- terminal ---- */

static void	mcp_tools_terminal_spawned(struct mcp_call *,
		    const struct mcp_reply *);
static void	mcp_tools_terminal_waited(struct mcp_call *,
		    const struct mcp_reply *);
static void	mcp_tools_terminal_read(struct mcp_call *,
		    const struct mcp_reply *);

/* terminal: spawn the command as an agent's job. */
static void
mcp_tools_terminal(struct mcp_call *call, const struct jsonval *args)
{
	struct mcp_tools_call	*tc = mcp_tools_call_new(call);
	struct mcp_tools_words	 w = { NULL, 0, 0 };
	char			*agent;
	double			 timeout;

	/* A refusal ends the call and frees tc: nothing may follow it. */
	if ((timeout = mcp_tools_arg_seconds(call, args, "timeout", 30,
	    3600)) < 0)
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
static void
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
static void
mcp_tools_list(struct mcp_call *call, const struct jsonval *args)
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
static void
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
static void
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
static void
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
static void
mcp_tools_run(struct mcp_call *call, const struct jsonval *args)
{
	struct mcp_tools_call	*tc = mcp_tools_call_new(call);
	struct mcp_tools_words	 w = { NULL, 0, 0 };
	const struct jsonval	*input = jsonval_get(args, "input_data");
	char			*agent, *esc;
	double			 timeout;

	if ((timeout = mcp_tools_arg_seconds(call, args, "timeout", 300,
	    86400)) < 0)
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
