/*
 * check_mcp.c: the MCP server (mcp.h) in process on a fake deck, and a
 * few cases through the real binary.
 *
 * The fake io collects every message the server sends, records every
 * deck request it starts (its words joined with '|', and its json flag)
 * and answers it from a script on a 0 ms loop timer, as a real request
 * answers from the loop; a held fake answers nothing, so calls stay in
 * flight for the cancellation cases.  Cancelled requests are recorded and
 * never answered.
 *
 * The real-binary cases ($JOBDECK_BIN, else ./jobdeck) run `jobdeck mcp`
 * on pipes in a private XDG_RUNTIME_DIR: a line over MCP_LINE_MAX, and a
 * client that goes away while a call waits on a deck (`jobdeck up
 * --stay`).
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "job.h"
#include "jobfield.h"
#include "jsonread.h"
#include "loop.h"
#include "mcp.h"
#include "mcp-private.h"
#include "mcp-tools-private.h"
#include "skip.h"
#include "stack.h"
#include "store.h"
#include "ttywait.h"
#include "waitstatus.h"

#define FAKE_MAX	(MCP_CALLS_MAX + 64)	/* messages or requests of a case */
#define SCRIPT_MAX	16
#define WAIT_MS		5000
#define CLIENT		"c-test"

/* A deck request the server started. */
struct fake_req {
	struct fake	*f;
	char		*words;		/* joined with '|' */
	int		 json;		/* MCP_REQ_JSON was given */
	int		 flags;		/* MCP_REQ_* */
	mcp_reply_cb	*done;
	void		*cb_arg;
	uint64_t	 timer;
	int		 cancelled;
	int		 answered;
};

/* A scripted answer of the fake deck to a command. */
struct fake_script {
	const char	*command;
	int		 status;
	int		 exit;
	char		*body;
};

/* The fake world of a server. */
struct fake {
	struct loop		*loop;
	struct mcp_server	*srv;
	char			*sent[FAKE_MAX];
	size_t			 nsent;
	struct fake_req		*reqs[FAKE_MAX];
	size_t			 nreqs;
	struct fake_script	 script[SCRIPT_MAX];
	size_t			 nscript;
	int			 hold;
	int			 quits;
	int			 cancels;
};

/* The io's send: keep the message. */
static void
fake_send(const char *msg, size_t len, void *arg)
{
	struct fake	*f = arg;

	ck_assert_msg(f->nsent < FAKE_MAX, "too many messages");
	ck_assert_msg(memchr(msg, '\n', len) == NULL, "a newline inside a "
	    "message: %.*s", (int)len, msg);
	f->sent[f->nsent] = strndup(msg, len);
	ck_assert_ptr_nonnull(f->sent[f->nsent]);
	f->nsent++;
}

/* Return the script entry for words (the latest for its command). */
static const struct fake_script *
fake_find(struct fake *f, const char *words)
{
	size_t	i, n = strcspn(words, "|");

	for (i = f->nscript; i > 0; i--) {
		if (strlen(f->script[i - 1].command) == n &&
		    strncmp(f->script[i - 1].command, words, n) == 0)
			return &f->script[i - 1];
	}
	return NULL;
}

/* Answer a request from the script. */
static void
fake_answer(void *arg)
{
	struct fake_req			*r = arg;
	const struct fake_script	*s = fake_find(r->f, r->words);
	struct mcp_reply		 reply;
	static const char		 none[] = "fake: no script for it";

	r->timer = 0;
	ck_assert_msg(!r->cancelled, "a cancelled request was answered");
	r->answered = 1;
	reply.status = s != NULL ? s->status : 1;
	reply.exit = s != NULL ? s->exit : -1;
	reply.body = s != NULL ? s->body : none;
	reply.len = strlen(reply.body);
	r->done(&reply, r->cb_arg);
}

/* The io's start: record the request; answer it soon unless held. */
static struct mcp_request *
fake_start(char *const *words, int flags, mcp_reply_cb *done, void *cb_arg,
    void *arg)
{
	struct fake	*f = arg;
	struct fake_req	*r;
	size_t		 len = 1, i;

	ck_assert_msg(f->nreqs < FAKE_MAX, "too many requests");
	ck_assert_ptr_nonnull(words[0]);
	for (i = 0; words[i] != NULL; i++)
		len += strlen(words[i]) + 1;
	r = calloc(1, sizeof *r);
	ck_assert_ptr_nonnull(r);
	r->words = calloc(1, len);
	ck_assert_ptr_nonnull(r->words);
	for (i = 0; words[i] != NULL; i++) {
		if (i > 0)
			strcat(r->words, "|");
		strcat(r->words, words[i]);
	}
	r->f = f;
	r->json = (flags & MCP_REQ_JSON) != 0;
	r->flags = flags;
	r->done = done;
	r->cb_arg = cb_arg;
	f->reqs[f->nreqs++] = r;
	if (!f->hold)
		r->timer = loop_add_timer(f->loop, 0, fake_answer, r);
	return (struct mcp_request *)r;
}

/* The io's cancel: record it; the answer never comes. */
static void
fake_cancel(struct mcp_request *req, void *arg)
{
	struct fake_req	*r = (struct fake_req *)req;
	struct fake	*f = arg;

	ck_assert_msg(!r->cancelled, "a request cancelled twice");
	ck_assert_msg(!r->answered, "an answered request cancelled");
	r->cancelled = 1;
	if (r->timer != 0)
		loop_cancel_timer(f->loop, r->timer);
	r->timer = 0;
	f->cancels++;
}

/* The io's quit. */
static void
fake_quit(void *arg)
{
	struct fake	*f = arg;

	f->quits++;
}

static const struct mcp_io fake_io = {
	fake_send, fake_start, fake_cancel, fake_quit
};

/* Make a server (the Ask profile when read_only) on a fake deck. */
static struct fake *
fake_new(int read_only)
{
	struct mcp_opts	 opts = { read_only, "fake" };
	struct fake	*f = calloc(1, sizeof *f);

	ck_assert_ptr_nonnull(f);
	f->loop = loop_new();
	ck_assert_ptr_nonnull(f->loop);
	f->srv = mcp_server_new(f->loop, &opts, &fake_io, f);
	ck_assert_ptr_nonnull(f->srv);
	return f;
}

/* Forget the messages sent so far. */
static void
fake_clear(struct fake *f)
{
	size_t	i;

	for (i = 0; i < f->nsent; i++)
		free(f->sent[i]);
	f->nsent = 0;
}

/* Free the server, then the fake. */
static void
fake_free(struct fake *f)
{
	size_t	i;

	if (f->srv != NULL)
		mcp_server_free(f->srv);
	fake_clear(f);
	for (i = 0; i < f->nreqs; i++) {
		if (f->reqs[i]->timer != 0)
			loop_cancel_timer(f->loop, f->reqs[i]->timer);
		free(f->reqs[i]->words);
		free(f->reqs[i]);
	}
	for (i = 0; i < f->nscript; i++)
		free(f->script[i].body);
	loop_free(f->loop);
	free(f);
}

/* Script the deck's answer to command. */
static void
fake_script(struct fake *f, const char *command, int status, int exit,
    const char *body)
{
	ck_assert(f->nscript < SCRIPT_MAX);
	f->script[f->nscript].command = command;
	f->script[f->nscript].status = status;
	f->script[f->nscript].exit = exit;
	f->script[f->nscript].body = strdup(body);
	f->nscript++;
}

/* Run the loop a little: until nothing is due (at most ms). */
static void
fake_spin(struct fake *f, int ms)
{
	int64_t	end = loop_now_ms() + ms;

	while (loop_now_ms() < end)
		loop_run_once(f->loop, 5);
}

/* Give the server one message. */
static void
fake_in(struct fake *f, const char *msg)
{
	mcp_server_input(f->srv, msg, strlen(msg));
}

/* Run the loop until n messages were sent (or fail). */
static void
fake_wait(struct fake *f, size_t n)
{
	int64_t	end = loop_now_ms() + WAIT_MS;

	while (f->nsent < n) {
		ck_assert_msg(loop_now_ms() < end, "%zu messages, not %zu, "
		    "after %d ms (last: %s)", f->nsent, n, WAIT_MS,
		    f->nsent > 0 ? f->sent[f->nsent - 1] : "none");
		loop_run_once(f->loop, 5);
	}
}

/* Parse message i (or fail); free with jsonread_free(). */
static struct jsonread *
fake_msg(struct fake *f, size_t i)
{
	struct jsonread	*j;
	char		*cause = NULL;

	ck_assert_msg(i < f->nsent, "no message %zu", i);
	j = jsonread_parse(f->sent[i], strlen(f->sent[i]), &cause);
	ck_assert_msg(j != NULL, "message %zu is not JSON (%s): %s", i, cause,
	    f->sent[i]);
	ck_assert_str_eq(jsonread_text(j, "jsonrpc"), "2.0");
	return j;
}

/* Return a message's id as JSON-ish text: "7", "\"a\"", "null", "-". */
static const char *
id_text(const struct jsonread *msg)
{
	static char		 buf[256];
	const struct jsonread	*id = jsonread_get(msg, "id");

	if (id == NULL)
		return "-";
	switch (jsonread_type(id)) {
	case JSONREAD_NULL:
		return "null";
	case JSONREAD_NUMBER:
		snprintf(buf, sizeof buf, "%.17g", jsonread_number(id));
		return buf;
	case JSONREAD_STRING:
		snprintf(buf, sizeof buf, "\"%s\"", jsonread_string(id, NULL));
		return buf;
	default:
		return "?";
	}
}

/*
 * Send msg and expect exactly one answer: an error of code; its message
 * (static). want_id: the answer's id as JSON text ("null", "7", "\"a\"").
 */
static const char *
expect_error(struct fake *f, const char *msg, int code, const char *want_id)
{
	static char		 text[4096];
	struct jsonread		*j;
	const struct jsonread	*err;
	size_t			 n = f->nsent;

	fake_in(f, msg);
	fake_wait(f, n + 1);
	fake_spin(f, 20);
	ck_assert_msg(f->nsent == n + 1, "%zu answers to %.200s", f->nsent - n,
	    msg);
	j = fake_msg(f, n);
	err = jsonread_get(j, "error");
	ck_assert_msg(err != NULL, "no error for %.200s: %s", msg, f->sent[n]);
	ck_assert_msg((int)jsonread_number(jsonread_get(err, "code")) == code,
	    "code %d, not %d, for %.200s: %s", (int)jsonread_number(
	    jsonread_get(err, "code")), code, msg, f->sent[n]);
	ck_assert_ptr_null(jsonread_get(j, "result"));
	if (want_id != NULL)
		ck_assert_msg(strcmp(id_text(j), want_id) == 0,
		    "id %s, not %s, for %.200s", id_text(j), want_id, msg);
	snprintf(text, sizeof text, "%s", jsonread_text(err, "message"));
	ck_assert_msg(text[0] != '\0', "an error without words: %s",
	    f->sent[n]);
	jsonread_free(j);
	return text;
}

/* Send msg and expect no answer at all. */
static void
expect_silence(struct fake *f, const char *msg)
{
	size_t	n = f->nsent;

	fake_in(f, msg);
	fake_spin(f, 30);
	ck_assert_msg(f->nsent == n, "an answer to %s: %s", msg,
	    f->sent[f->nsent - 1]);
}

/* Initialize the session as client CLIENT; forget the answers. */
static void
fake_init(struct fake *f)
{
	fake_in(f, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
	    "\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":"
	    "{},\"clientInfo\":{\"name\":\"" CLIENT "\",\"version\":\"1\"}}}");
	fake_wait(f, 1);
	ck_assert_msg(strstr(f->sent[0], "\"result\"") != NULL, "%s",
	    f->sent[0]);
	fake_in(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
	    "initialized\"}");
	fake_spin(f, 10);
	ck_assert_uint_eq(f->nsent, 1);
	fake_clear(f);
}

/* A tools/call message of id for tool with arguments (JSON text). */
static const char *
call_msg(int id, const char *tool, const char *args)
{
	static char	*buf;

	free(buf);
	ck_assert_int_ge(asprintf(&buf, "{\"jsonrpc\":\"2.0\",\"id\":%d,"
	    "\"method\":\"tools/call\",\"params\":{\"name\":\"%s\","
	    "\"arguments\":%s}}", id, tool, args), 0);
	return buf;
}

/*
 * Call tool with args and wait for its answer: a result (isError as
 * want_error); the parsed answer (to free), *result its result.
 */
static struct jsonread *
call_tool(struct fake *f, int id, const char *tool, const char *args,
    int want_error, const struct jsonread **result)
{
	struct jsonread	*j;
	size_t		 n = f->nsent;

	fake_in(f, call_msg(id, tool, args));
	fake_wait(f, n + 1);
	j = fake_msg(f, n);
	*result = jsonread_get(j, "result");
	ck_assert_msg(*result != NULL, "%s %s: not a result: %s", tool, args,
	    f->sent[n]);
	ck_assert_int_eq((int)jsonread_number(jsonread_get(j, "id")), id);
	ck_assert_msg(jsonread_bool(jsonread_get(*result, "isError")) ==
	    want_error, "%s %s: isError is not %d: %s", tool, args,
	    want_error, f->sent[n]);
	ck_assert_msg(jsonread_count(jsonread_get(*result, "content")) >= 1,
	    "%s: no content: %s", tool, f->sent[n]);
	return j;
}

/* Return the text of a result's first content item. */
static const char *
result_text(const struct jsonread *result)
{
	return jsonread_text(jsonread_index(jsonread_get(result, "content"),
	    0), "text");
}

/* Return request i's words, or fail. */
static const char *
req_words(struct fake *f, size_t i)
{
	ck_assert_msg(i < f->nreqs, "no request %zu (%zu made)", i, f->nreqs);
	return f->reqs[i]->words;
}

/* Assert that words hold the word sequence seq (also '|'-joined). */
static void
assert_has(const char *words, const char *seq)
{
	size_t	len = strlen(seq);
	const char *p;

	for (p = words; (p = strstr(p, seq)) != NULL; p++) {
		if ((p == words || p[-1] == '|') &&
		    (p[len] == '\0' || p[len] == '|'))
			return;
	}
	ck_abort_msg("no \"%s\" in the words \"%s\"", seq, words);
}

/* Assert that words end with the sequence seq. */
static void
assert_ends(const char *words, const char *seq)
{
	size_t	wl = strlen(words), sl = strlen(seq);

	ck_assert_msg(wl >= sl && strcmp(words + wl - sl, seq) == 0 &&
	    (wl == sl || words[wl - sl - 1] == '|'), "\"%s\" does not end "
	    "with \"%s\"", words, seq);
}

/*
 * The fake deck's jobs are real jobs (job.h) that its own serialiser
 * writes (jobfield_json()), so a reply holds what the deck would send:
 * each its id's, kept for the case (a process of its own) as it moves on
 * from state to state, its runs in a store of the case's.  A job's process
 * is /bin/true, which runs nothing of its command; one with an argv runs
 * that program, on pipes, for real.
 */
#define DECK_JOBS	256

static struct job	*deck_jobs[DECK_JOBS];
static struct store	*deck_store;
static char		 deck_dir[64];
static char *const	 deck_env[] = { "PATH=/usr/bin:/bin", NULL };

/* How a job of the fake deck is to stand (deck_job()). */
struct deck_how {
	const char	*state;		/* its job_state_name() */
	const char	*wait;		/* running: what it waits to read; */
					/*   waiting: what for */
	int		 status;	/* an end's wait status: */
					/*   WAITSTATUS_NONE, it never ran */
	char *const	*argv;		/* a program it really runs */
};

/* Reap a job's process if it is still ours; its status. */
static int
deck_reap(struct job *job)
{
	int	st = 0;

	if (job_pid(job) > 0)
		(void)waitpid(job_pid(job), &st, 0);
	return st;
}

/* At the case's end: the jobs, their processes and the store go. */
static void
deck_free(void)
{
	char	cmd[128];
	size_t	i;

	for (i = 0; i < DECK_JOBS; i++) {
		if (deck_jobs[i] == NULL)
			continue;
		if (job_is_running(deck_jobs[i]))
			(void)deck_reap(deck_jobs[i]);
		job_free(deck_jobs[i]);
	}
	store_free(deck_store);
	snprintf(cmd, sizeof cmd, "rm -rf %s", deck_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", deck_dir);
}

/* Return the job id of the fake deck, new or as it was, for command. */
static struct job *
deck_job_get(int id, const char *command, char *const *argv)
{
	struct store_limits	 lim;
	struct job_spec		 spec;
	char			*cause = NULL;

	ck_assert(id > 0 && id < DECK_JOBS);
	if (deck_store == NULL) {
		snprintf(deck_dir, sizeof deck_dir, "/tmp/check_mcp.XXXXXX");
		ck_assert_ptr_nonnull(mkdtemp(deck_dir));
		store_default_limits(&lim);
		deck_store = store_open(deck_dir, &lim, &cause);
		ck_assert_msg(deck_store != NULL, "store: %s", cause);
		atexit(deck_free);
	}
	if (deck_jobs[id] != NULL &&
	    strcmp(job_command(deck_jobs[id]), command) != 0) {
		if (job_is_running(deck_jobs[id]))
			(void)deck_reap(deck_jobs[id]);
		job_free(deck_jobs[id]);
		deck_jobs[id] = NULL;
	}
	if (deck_jobs[id] == NULL) {
		memset(&spec, 0, sizeof spec);
		spec.command = argv != NULL ? NULL : command;
		spec.argv = argv;
		spec.shell = "/bin/true";
		spec.cwd = "/tmp";
		spec.envp = deck_env;
		spec.no_pty = argv != NULL;
		spec.agent = CLIENT;
		spec.store = deck_store;
		deck_jobs[id] = job_new(id, &spec);
	}
	return deck_jobs[id];
}

/*
 * The deck's own JOB object for job id running command, moved on to
 * stand as how says: running (started, again after an end), waiting, or
 * ended (started first unless it never ran; reaped; ended with how's
 * status, or with an argv its program's own).  An end asked for again
 * is the same end.  Static, until the next call.
 */
static const char *
deck_job(int id, const char *command, const struct deck_how *how)
{
	static char	 buf[8192];
	struct job	*job = deck_job_get(id, command, how->argv);
	char		*doc, *cause = NULL;
	int		 st = 0;

	if (strcmp(how->state, "waiting") == 0)
		job_set_waiting(job, how->wait);
	else if (strcmp(how->state, "running") == 0) {
		if (!job_is_running(job))
			ck_assert_msg(job_start(job, 24, 80, NULL, &cause) ==
			    0, "start: %s", cause);
		job_set_input_wait(job, how->wait == NULL ? TTYWAIT_NONE :
		    strcmp(how->wait, "password") == 0 ? TTYWAIT_PASSWORD :
		    TTYWAIT_INPUT);
	} else if (job_end_code(job) < 0) {
		if (how->status != WAITSTATUS_NONE && !job_is_running(job))
			ck_assert_msg(job_start(job, 24, 80, NULL, &cause) ==
			    0, "start: %s", cause);
		if (job_is_running(job))
			st = deck_reap(job);
		if (strcmp(how->state, "canceled") == 0)
			job_set_cancel(job);
		if (strcmp(how->state, "timed-out") == 0)
			job_set_timed_out(job);
		job_set_exited(job, how->argv != NULL &&
		    how->status != WAITSTATUS_NONE ? st : how->status,
		    loop_now_ms());
	}
	ck_assert_str_eq(job_state_name(job_state(job)), how->state);
	doc = jobfield_json_doc(job, NULL);
	ck_assert_uint_lt(strlen(doc), sizeof buf);
	snprintf(buf, sizeof buf, "%s", doc);
	free(doc);
	return buf;
}

/* A deck's JOB object: id, state, command; exit "0" or "null" (none). */
static const char *
job_json(int id, const char *state, const char *command, const char *exit)
{
	struct deck_how	how = { state, NULL, 0, NULL };

	if (strcmp(exit, "null") != 0)
		how.status = atoi(exit) << 8;
	return deck_job(id, command, &how);
}

/* A deck's JOB object that waits for something: its "waiting_for". */
static const char *
job_json_wait(int id, const char *state, const char *wait)
{
	struct deck_how	how = { state, wait, 0, NULL };

	return deck_job(id, "x", &how);
}

/* A status --since reply: the JOB plus output and marks. */
static const char *
status_json(int id, const char *state, const char *output, const char *next)
{
	static char	buf[16384];
	char		job[8192];

	snprintf(job, sizeof job, "%s", job_json(id, state, "make",
	    strcmp(state, "completed") == 0 ? "0" : "null"));
	job[strlen(job) - 1] = '\0';
	snprintf(buf, sizeof buf, "%s,\"output\":\"%s\",\"output_truncated\":"
	    "false,\"output_partial\":false,\"next\":\"%s\",\"output_from\":1,"
	    "\"lines_left\":0}", job, output, next);
	return buf;
}

/* Not JSON: -32700 with id null. */
START_TEST(test_not_json)
{
	struct fake	*f = fake_new(0);

	expect_error(f, "{", -32700, "null");
	expect_error(f, "hello", -32700, "null");
	expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":1,}", -32700, "null");
	/* A NUL inside is not JSON text either. */
	mcp_server_input(f->srv, "{\"a\":\0}", 7);
	fake_wait(f, 4);
	fake_free(f);
}
END_TEST

/* JSON that is not a request object: -32600. */
START_TEST(test_not_request)
{
	struct fake	*f = fake_new(0);
	const char	*m;

	expect_error(f, "42", -32600, "null");
	expect_error(f, "\"ping\"", -32600, "null");
	expect_error(f, "null", -32600, "null");
	m = expect_error(f, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"ping\"}]", -32600, "null");
	ck_assert_msg(strstr(m, "batch") != NULL, "%s", m);
	expect_error(f, "[]", -32600, "null");
	fake_free(f);
}
END_TEST

/* jsonrpc wrong or missing, method missing or not a string. */
START_TEST(test_bad_envelope)
{
	struct fake	*f = fake_new(0);
	size_t		 i;
	static const char *const bad[] = {
		"{\"jsonrpc\":\"1.0\",\"id\":7,\"method\":\"ping\"}",
		"{\"id\":7,\"method\":\"ping\"}",
		"{\"jsonrpc\":2,\"id\":7,\"method\":\"ping\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":7}",
		"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":5}",
		"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":null}",
		"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":[\"ping\"]}",
	};
	struct jsonread	*j;
	const char	*id;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		expect_error(f, bad[i], -32600, NULL);
		/* The id, when it can be read, or null. */
		j = fake_msg(f, f->nsent - 1);
		id = id_text(j);
		ck_assert_msg(strcmp(id, "7") == 0 || strcmp(id, "null") == 0,
		    "id %s for %s", id, bad[i]);
		jsonread_free(j);
	}
	fake_free(f);
}
END_TEST

/* An id that is neither a string nor an integer: -32600, id null. */
START_TEST(test_bad_id)
{
	struct fake	*f = fake_new(0);
	size_t		 i;
	static const char *const bad[] = {
		"{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":[1],\"method\":\"ping\"}",
	};

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		expect_error(f, bad[i], -32600, "null");
	fake_free(f);
}
END_TEST

/* ping, with integer and string ids, before and after initialize. */
START_TEST(test_ping)
{
	struct fake	*f = fake_new(0);
	struct jsonread	*j;

	fake_in(f, "{\"jsonrpc\":\"2.0\",\"id\":\"p-1\",\"method\":\"ping\"}");
	fake_wait(f, 1);
	j = fake_msg(f, 0);
	ck_assert_str_eq(jsonread_text(j, "id"), "p-1");
	ck_assert_int_eq(jsonread_type(jsonread_get(j, "result")),
	    JSONREAD_OBJECT);
	ck_assert_uint_eq(jsonread_count(jsonread_get(j, "result")), 0);
	jsonread_free(j);
	fake_clear(f);
	fake_init(f);
	fake_in(f, "{\"jsonrpc\":\"2.0\",\"id\":9007199254740991,"
	    "\"method\":\"ping\",\"params\":{}}");
	fake_wait(f, 1);
	ck_assert_msg(strstr(f->sent[0], "\"id\":9007199254740991") != NULL,
	    "%s", f->sent[0]);
	fake_free(f);
}
END_TEST

/* Unknown methods: -32601 naming them; as notifications, nothing. */
START_TEST(test_unknown_method)
{
	struct fake	*f = fake_new(0);
	const char	*m;

	fake_init(f);
	m = expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
	    "\"resources/list\"}", -32601, "3");
	ck_assert_msg(strstr(m, "resources/list") != NULL, "%s", m);
	expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":"
	    "\"\"}", -32601, "\"x\"");
	expect_silence(f, "{\"jsonrpc\":\"2.0\",\"method\":\"foo/bar\"}");
	fake_free(f);
}
END_TEST

/*
 * Notifications are never answered, not even with an error; responses
 * from the client are ignored.
 */
START_TEST(test_notifications)
{
	struct fake	*f = fake_new(0);

	expect_silence(f, "{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}");
	fake_init(f);
	expect_silence(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
	    "initialized\"}");
	expect_silence(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
	    "cancelled\",\"params\":{\"requestId\":99}}");
	expect_silence(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
	    "cancelled\",\"params\":\"junk\"}");
	expect_silence(f, "{\"jsonrpc\":\"2.0\",\"method\":\"tools/list\","
	    "\"params\":5}");
	expect_silence(f, "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"nope\"}}");
	expect_silence(f, "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}");
	expect_silence(f, "{\"jsonrpc\":\"2.0\",\"id\":6,\"error\":{\"code\":"
	    "-1,\"message\":\"x\"}}");
	fake_free(f);
}
END_TEST

/* Before initialize only initialize and ping are served. */
START_TEST(test_not_initialized)
{
	struct fake	*f = fake_new(0);
	const char	*m;

	m = expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"tools/list\"}", -32600, "1");
	ck_assert_msg(strstr(m, "initialize") != NULL, "%s", m);
	expect_error(f, call_msg(2, "terminal_job_list", "{}"), -32600, "2");
	ck_assert_uint_eq(f->nreqs, 0);
	fake_free(f);
}
END_TEST

/* Return the protocolVersion initialize answers to asked (NULL: none). */
static char *
negotiate(const char *asked)
{
	struct fake		*f = fake_new(0);
	struct jsonread		*j;
	const struct jsonread	*r;
	char			 msg[512], *v;

	snprintf(msg, sizeof msg, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"initialize\",\"params\":{%s%s%s\"capabilities\":{},"
	    "\"clientInfo\":{\"name\":\"x\",\"version\":\"1\"}}}",
	    asked != NULL ? "\"protocolVersion\":\"" : "",
	    asked != NULL ? asked : "", asked != NULL ? "\"," : "");
	fake_in(f, msg);
	fake_wait(f, 1);
	j = fake_msg(f, 0);
	r = jsonread_get(j, "result");
	ck_assert_msg(r != NULL, "%s", f->sent[0]);
	ck_assert_str_eq(jsonread_text(jsonread_get(r, "serverInfo"), "name"),
	    "jobdeck");
	ck_assert_ptr_nonnull(jsonread_get(jsonread_get(r, "capabilities"),
	    "tools"));
	ck_assert_int_eq(jsonread_type(jsonread_get(r, "instructions")),
	    JSONREAD_STRING);
	v = strdup(jsonread_text(r, "protocolVersion"));
	jsonread_free(j);
	fake_free(f);
	return v;
}

/* initialize: the client's version when known, else the newest. */
START_TEST(test_negotiate)
{
	static const char *const known[] = { "2025-11-25", "2025-06-18",
	    "2025-03-26", "2024-11-05" };
	size_t	 i;
	char	*v;

	for (i = 0; i < sizeof known / sizeof known[0]; i++) {
		v = negotiate(known[i]);
		ck_assert_str_eq(v, known[i]);
		free(v);
	}
	v = negotiate("2099-01-01");
	ck_assert_str_eq(v, "2025-11-25");
	free(v);
	v = negotiate("1.0");
	ck_assert_str_eq(v, "2025-11-25");
	free(v);
}
END_TEST

/* Return the tools/list answer of a fresh session (to free). */
static struct jsonread *
list_tools(struct fake *f)
{
	fake_init(f);
	fake_in(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
	fake_wait(f, 1);
	return fake_msg(f, 0);
}

/* Return 1 if name is one of the Ask profile's tools. */
static int
ro_tool(const char *name)
{
	return strcmp(name, "terminal_job_status") == 0 ||
	    strcmp(name, "terminal_job_list") == 0 ||
	    strcmp(name, "terminal_screen") == 0;
}

/* tools/list in the full profile: nine tools, their schemas. */
START_TEST(test_list_full)
{
	static const char *const names[] = { "terminal",
	    "terminal_job_status", "terminal_job_list",
	    "terminal_job_cancel", "terminal_send_input", "terminal_screen",
	    "run", "stack_reload", "stack_scale" };
	struct fake		*f = fake_new(0);
	struct jsonread		*j = list_tools(f);
	const struct jsonread	*tools, *t, *in, *props, *jt;
	size_t			 i, k, found;

	tools = jsonread_get(jsonread_get(j, "result"), "tools");
	ck_assert_msg(jsonread_count(tools) == 9, "%s", f->sent[0]);
	for (k = 0; k < 9; k++) {
		found = 0;
		for (i = 0; i < 9; i++) {
			t = jsonread_index(tools, i);
			if (strcmp(jsonread_text(t, "name"), names[k]) == 0)
				found++;
		}
		ck_assert_msg(found == 1, "%s listed %zu times", names[k],
		    found);
	}
	for (i = 0; i < 9; i++) {
		t = jsonread_index(tools, i);
		in = jsonread_get(t, "inputSchema");
		ck_assert_str_eq(jsonread_text(in, "type"), "object");
		ck_assert_int_eq(jsonread_bool(jsonread_get(in,
		    "additionalProperties")), 0);
		props = jsonread_get(in, "properties");
		ck_assert_int_eq(jsonread_type(props), JSONREAD_OBJECT);
		ck_assert_str_eq(jsonread_text(jsonread_get(t,
		    "outputSchema"), "type"), "object");
		ck_assert_int_eq(jsonread_bool(jsonread_get(jsonread_get(t,
		    "annotations"), "readOnlyHint")),
		    ro_tool(jsonread_text(t, "name")));
		/* What changes the deck may stop jobs (reload, scale 0). */
		ck_assert_int_eq(jsonread_bool(jsonread_get(jsonread_get(t,
		    "annotations"), "destructiveHint")),
		    !ro_tool(jsonread_text(t, "name")));
		if ((jt = jsonread_get(jsonread_get(props, "job_id"),
		    "type")) != NULL) {
			ck_assert_uint_eq(jsonread_count(jt), 2);
			ck_assert_str_eq(jsonread_string(jsonread_index(jt, 0),
			    NULL), "integer");
			ck_assert_str_eq(jsonread_string(jsonread_index(jt, 1),
			    NULL), "string");
		}
		if (jsonread_get(props, "env") != NULL)
			ck_assert_str_eq(jsonread_text(jsonread_get(
			    jsonread_get(props, "env"),
			    "additionalProperties"), "type"), "string");
	}
	jsonread_free(j);
	fake_free(f);
}
END_TEST

/* tools/list in the Ask profile: exactly the three that only look. */
START_TEST(test_list_read_only)
{
	struct fake		*f = fake_new(1);
	struct jsonread		*j = list_tools(f);
	const struct jsonread	*tools;
	size_t			 i;

	tools = jsonread_get(jsonread_get(j, "result"), "tools");
	ck_assert_msg(jsonread_count(tools) == 3, "%s", f->sent[0]);
	for (i = 0; i < 3; i++)
		ck_assert_msg(ro_tool(jsonread_text(jsonread_index(tools, i),
		    "name")), "%s", f->sent[0]);
	jsonread_free(j);
	fake_clear(f);
	expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
	    "\"tools/list\",\"params\":{\"cursor\":\"nonsense\"}}", -32602,
	    "2");
	fake_free(f);
}
END_TEST

/* Unknown tools, and params that are not an object. */
START_TEST(test_unknown_tool)
{
	struct fake	*f = fake_new(0);
	const char	*m;

	fake_init(f);
	m = expect_error(f, call_msg(1, "rm_rf", "{}"), -32602, "1");
	ck_assert_msg(strstr(m, "rm_rf") != NULL, "%s", m);
	expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
	    "\"tools/call\",\"params\":{\"arguments\":{}}}", -32602, "2");
	expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
	    "\"tools/call\",\"params\":{\"name\":5}}", -32602, "3");
	expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":"
	    "\"tools/call\",\"params\":\"terminal\"}", -32602, "4");
	expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":"
	    "\"tools/call\",\"params\":[\"terminal\"]}", -32602, "5");
	expect_error(f, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":"
	    "\"initialize\",\"params\":7}", -32602, "6");
	ck_assert_uint_eq(f->nreqs, 0);
	fake_free(f);
}
END_TEST

/* Append a valid JSON value for parameter p to buf. */
static void
put_valid(char *buf, size_t size, const struct mcp_param *p)
{
	char	v[128];
	double	n = p->min < p->max ? p->min : 1;

	switch (p->type) {
	case MCP_STRING:
		snprintf(v, sizeof v, "\"%s\"", p->choices != NULL ?
		    p->choices[0] : "x");
		break;
	case MCP_INTEGER:
	case MCP_JOB_ID:
		snprintf(v, sizeof v, "%lld", (long long)(n < 1 && p->max > 1 ?
		    1 : n));
		break;
	case MCP_JOB_NAME:
		snprintf(v, sizeof v, "\"web\"");
		break;
	case MCP_NUMBER:
		snprintf(v, sizeof v, "%g", n < 1 && p->max > 1 ? 1 : n);
		break;
	case MCP_BOOLEAN:
		snprintf(v, sizeof v, "true");
		break;
	case MCP_STRING_ARRAY:
		snprintf(v, sizeof v, "[\"%s\"]", p->choices != NULL ?
		    p->choices[0] : "x");
		break;
	case MCP_STRING_MAP:
		snprintf(v, sizeof v, "{\"K\":\"v\"}");
		break;
	}
	snprintf(buf + strlen(buf), size - strlen(buf), "%s\"%s\":%s",
	    buf[1] != '\0' ? "," : "", p->name, v);
}

/*
 * Arguments for tool: every required parameter valid, except skip (left
 * out) and the parameter over, given the JSON value with instead.
 */
static const char *
args_with(const struct mcp_tool *tool, const char *skip, const char *over,
    const char *with)
{
	static char		 buf[8192];
	const struct mcp_param	*p;

	snprintf(buf, sizeof buf, "{");
	for (p = tool->params; p->name != NULL; p++) {
		if (skip != NULL && strcmp(p->name, skip) == 0)
			continue;
		if (over != NULL && strcmp(p->name, over) == 0)
			snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
			    "%s\"%s\":%s", buf[1] != '\0' ? "," : "", p->name,
			    with);
		else if (p->required)
			put_valid(buf, sizeof buf, p);
	}
	snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "}");
	return buf;
}

/*
 * Call tool with args: a tool error (isError) whose text names what, and
 * no request of the deck.
 */
static void
expect_arg_error(struct fake *f, const struct mcp_tool *tool,
    const char *args, const char *what)
{
	const struct jsonread	*r;
	struct jsonread		*j;
	size_t			 reqs = f->nreqs;
	const char		*text;

	j = call_tool(f, 1, tool->name, args, 1, &r);
	text = result_text(r);
	ck_assert_msg(text != NULL && strstr(text, what) != NULL,
	    "%s %s: the error does not name %s: %s", tool->name, args, what,
	    f->sent[f->nsent - 1]);
	fake_spin(f, 5);
	ck_assert_msg(f->nreqs == reqs, "%s %s: the deck was asked (%s)",
	    tool->name, args, req_words(f, reqs));
	jsonread_free(j);
	fake_clear(f);
}

/* The JSON values of the wrong type for a parameter type. */
static const char *const *
wrong_values(enum mcp_type type)
{
	static const char *const str[] = { "5", "true", "null", "[\"x\"]",
	    "{}", NULL };
	static const char *const integer[] = { "\"5\"", "1.5", "true",
	    "null", "[1]", NULL };
	static const char *const number[] = { "\"5\"", "false", "null",
	    "{}", NULL };
	static const char *const boolean[] = { "\"true\"", "1", "null",
	    "[]", NULL };
	static const char *const array[] = { "\"x\"", "[1]", "[\"a\",null]",
	    "{}", NULL };
	static const char *const map[] = { "[]", "{\"a\":1}", "\"a=b\"",
	    "{\"a\":null}", NULL };
	static const char *const job[] = { "true", "1.5", "null", "[1]",
	    "{}", NULL };
	static const char *const name[] = { "5", "null", "[\"web\"]",
	    "\"\"", "\"12\"", "\"-web\"", "\"a b\"", "\"w\\u0000x\"",
	    NULL };

	switch (type) {
	case MCP_STRING:
		return str;
	case MCP_INTEGER:
		return integer;
	case MCP_NUMBER:
		return number;
	case MCP_BOOLEAN:
		return boolean;
	case MCP_STRING_ARRAY:
		return array;
	case MCP_STRING_MAP:
		return map;
	case MCP_JOB_ID:
		return job;
	case MCP_JOB_NAME:
		return name;
	}
	return NULL;
}

/*
 * A timeout of 0 passes the table's bounds but not the tool's own check
 * (above 0): one refusal, the deck not asked, and nothing touched after
 * the call is gone (fuzz_mcp found terminal writing its freed state;
 * ASan builds catch it).
 */
START_TEST(test_timeout_zero)
{
	static const char *const calls[] = {
		"{\"command\":\"make\",\"async\":false,\"timeout\":0}",
		"{\"command\":\"make\",\"timeout\":0}",
		"{\"command\":\"make\",\"timeout\":-0.0}",
	};
	struct fake	*f = fake_new(0);
	struct jsonread	*j;
	size_t		 i;
	int		 code;

	fake_init(f);
	for (i = 0; i < 4; i++) {
		fake_in(f, call_msg((int)i, i < 3 ? "terminal" : "run",
		    calls[i < 3 ? i : 1]));
		fake_wait(f, 1);
		fake_spin(f, 10);
		ck_assert_uint_eq(f->nsent, 1);
		j = fake_msg(f, 0);
		code = (int)jsonread_number(jsonread_get(jsonread_get(j,
		    "error"), "code"));
		ck_assert_msg(code == -32602 || jsonread_bool(jsonread_get(
		    jsonread_get(j, "result"), "isError")) == 1, "%s",
		    f->sent[0]);
		ck_assert_msg(strstr(f->sent[0], "timeout") != NULL, "%s",
		    f->sent[0]);
		jsonread_free(j);
		fake_clear(f);
	}
	ck_assert_uint_eq(f->nreqs, 0);
	fake_free(f);
}
END_TEST

/* Wrong types for every parameter of every tool: tool errors. */
START_TEST(test_wrong_types)
{
	struct fake		*f = fake_new(0);
	const struct mcp_tool	*t;
	const struct mcp_param	*p;
	const char *const	*w;
	int			 n = 0;

	fake_init(f);
	for (t = mcp_tools; t->name != NULL; t++) {
		for (p = t->params; p->name != NULL; p++) {
			for (w = wrong_values(p->type); *w != NULL; w++) {
				expect_arg_error(f, t, args_with(t, NULL,
				    p->name, *w), p->name);
				n++;
			}
		}
	}
	ck_assert_int_gt(n, 50);
	fake_free(f);
}
END_TEST

/* Missing required arguments, unknown ones, arguments not an object. */
START_TEST(test_missing_unknown)
{
	struct fake		*f = fake_new(0);
	const struct mcp_tool	*t;
	const struct mcp_param	*p;
	char			 args[8192];
	int			 n = 0;

	fake_init(f);
	for (t = mcp_tools; t->name != NULL; t++) {
		for (p = t->params; p->name != NULL; p++) {
			if (!p->required)
				continue;
			expect_arg_error(f, t, args_with(t, p->name, NULL,
			    NULL), p->name);
			n++;
		}
		snprintf(args, sizeof args, "%s", args_with(t, NULL, NULL,
		    NULL));
		snprintf(args + strlen(args) - 1, sizeof args - strlen(args) +
		    1, "%s\"bogus_arg\":1}", args[1] != '}' ? "," : "");
		expect_arg_error(f, t, args, "bogus_arg");
	}
	ck_assert_int_ge(n, 9);
	fake_free(f);
}
END_TEST

/* Numbers out of bounds, words not among the choices. */
START_TEST(test_out_of_range)
{
	struct fake		*f = fake_new(0);
	const struct mcp_tool	*t;
	const struct mcp_param	*p;
	char			 v[64];
	int			 n = 0;

	fake_init(f);
	for (t = mcp_tools; t->name != NULL; t++) {
		for (p = t->params; p->name != NULL; p++) {
			if ((p->type == MCP_INTEGER || p->type == MCP_NUMBER) &&
			    p->min < p->max) {
				snprintf(v, sizeof v, "%.17g", p->min - 1);
				expect_arg_error(f, t, args_with(t, NULL,
				    p->name, v), p->name);
				snprintf(v, sizeof v, "%.17g", p->max + 1);
				expect_arg_error(f, t, args_with(t, NULL,
				    p->name, v), p->name);
				n++;
			}
			if (p->choices != NULL && p->type == MCP_STRING) {
				expect_arg_error(f, t, args_with(t, NULL,
				    p->name, "\"no-such-word\""), p->name);
				n++;
			}
			if (p->choices != NULL &&
			    p->type == MCP_STRING_ARRAY) {
				expect_arg_error(f, t, args_with(t, NULL,
				    p->name, "[\"no-such-word\"]"), p->name);
				n++;
			}
		}
	}
	/*
	 * terminal's timeout, terminal_job_list's limit, run's timeout,
	 * stack_scale's replicas.
	 */
	ck_assert_int_ge(n, 4);
	fake_free(f);
}
END_TEST

/* The Ask profile refuses the tools it does not list; the deck is not
 * asked. */
START_TEST(test_read_only_refusal)
{
	static const char *const refused[] = { "terminal",
	    "terminal_job_cancel", "terminal_send_input", "run",
	    "stack_reload", "stack_scale" };
	struct fake		*f = fake_new(1);
	const struct mcp_tool	*t;
	const char		*m;
	size_t			 i;

	fake_init(f);
	for (i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		for (t = mcp_tools; t->name != NULL &&
		    strcmp(t->name, refused[i]) != 0; t++)
			;
		ck_assert_msg(t->name != NULL, "no tool %s", refused[i]);
		m = expect_error(f, call_msg(1, t->name, args_with(t, NULL,
		    NULL, NULL)), -32602, "1");
		ck_assert_msg(strstr(m, "read-only") != NULL, "%s", m);
	}
	ck_assert_uint_eq(f->nreqs, 0);
	fake_free(f);
}
END_TEST

/* A deck that is not there (status -1): a tool error with its words. */
START_TEST(test_deck_gone)
{
	struct fake		*f = fake_new(0);
	const struct jsonread	*r;
	struct jsonread		*j;

	fake_init(f);
	fake_script(f, "list", -1, -1, "no deck named 'fake' is running: "
	    "start jobdeck -S fake, or jobdeck mcp --start");
	fake_script(f, "status", -1, -1, "deck 'fake' did not answer within "
	    "10 s");
	j = call_tool(f, 1, "terminal_job_list", "{}", 1, &r);
	ck_assert_msg(strstr(result_text(r), "no deck named 'fake'") != NULL,
	    "%s", f->sent[0]);
	jsonread_free(j);
	fake_clear(f);
	j = call_tool(f, 2, "terminal_job_status", "{\"job_id\":3}", 1, &r);
	ck_assert_msg(strstr(result_text(r), "did not answer") != NULL, "%s",
	    f->sent[0]);
	jsonread_free(j);
	fake_free(f);
}
END_TEST

/* The deck's status 1 (a refusal): a tool error with its message. */
START_TEST(test_deck_refuses)
{
	struct fake		*f = fake_new(0);
	const struct jsonread	*r;
	struct jsonread		*j;

	fake_init(f);
	fake_script(f, "status", 1, -1, "status: no such job: 99\n");
	j = call_tool(f, 1, "terminal_job_status", "{\"job_id\":99}", 1, &r);
	ck_assert_msg(strstr(result_text(r), "no such job: 99") != NULL, "%s",
	    f->sent[0]);
	jsonread_free(j);
	fake_clear(f);
	fake_script(f, "screen", 1, -1, "screen: no such job: 98\n");
	j = call_tool(f, 2, "terminal_screen", "{\"job_id\":98}", 1, &r);
	ck_assert_msg(strstr(result_text(r), "no such job: 98") != NULL, "%s",
	    f->sent[0]);
	jsonread_free(j);
	fake_clear(f);
	/* A reply that is not JSON where JSON was asked for. */
	fake_script(f, "list", 0, -1, "garbage");
	j = call_tool(f, 3, "terminal_job_list", "{}", 1, &r);
	jsonread_free(j);
	fake_free(f);
}
END_TEST

/*
 * notifications/cancelled frees the call: its deck request cancelled, no
 * answer, ever; other calls go on.
 */
START_TEST(test_cancelled)
{
	struct fake		*f = fake_new(0);
	const struct jsonread	*r;
	struct jsonread		*j;

	fake_init(f);
	f->hold = 1;
	fake_in(f, call_msg(41, "terminal_job_list", "{}"));
	fake_in(f, "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":"
	    "\"tools/call\",\"params\":{\"name\":\"terminal_screen\","
	    "\"arguments\":{\"job_id\":1}}}");
	fake_spin(f, 20);
	ck_assert_uint_eq(f->nreqs, 2);
	ck_assert_uint_eq(f->nsent, 0);
	fake_in(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
	    "cancelled\",\"params\":{\"requestId\":41,\"reason\":\"user\"}}");
	fake_spin(f, 20);
	ck_assert_int_eq(f->reqs[0]->cancelled, 1);
	ck_assert_int_eq(f->reqs[1]->cancelled, 0);
	ck_assert_uint_eq(f->nsent, 0);
	/* A string id is cancelled by its string. */
	fake_in(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
	    "cancelled\",\"params\":{\"requestId\":\"s\"}}");
	fake_spin(f, 20);
	ck_assert_int_eq(f->reqs[1]->cancelled, 1);
	ck_assert_uint_eq(f->nsent, 0);
	/* The server still serves. */
	f->hold = 0;
	fake_script(f, "list", 0, -1, "{\"jobs\":[]}");
	j = call_tool(f, 42, "terminal_job_list", "{}", 0, &r);
	jsonread_free(j);
	fake_spin(f, 20);
	ck_assert_uint_eq(f->nsent, 1);
	fake_free(f);
}
END_TEST

/* Freeing the server with calls in flight cancels their requests. */
START_TEST(test_free_in_flight)
{
	struct fake	*f = fake_new(0);
	size_t		 i;

	fake_init(f);
	f->hold = 1;
	fake_in(f, call_msg(1, "terminal_job_list", "{}"));
	fake_in(f, call_msg(2, "terminal", "{\"command\":\"sleep 9\","
	    "\"async\":false}"));
	fake_spin(f, 20);
	ck_assert_uint_eq(f->nreqs, 2);
	mcp_server_free(f->srv);
	f->srv = NULL;
	for (i = 0; i < f->nreqs; i++)
		ck_assert_int_eq(f->reqs[i]->cancelled, 1);
	ck_assert_uint_eq(f->nsent, 0);
	fake_free(f);
}
END_TEST

/*
 * An agent that sends more calls than MCP_CALLS_MAX at once gets a busy
 * error for each past the limit (its memory stays bounded); once a call
 * ends, a new one is taken again.
 */
START_TEST(test_calls_bounded)
{
	struct fake	*f = fake_new(0);
	int		 i;

	fake_init(f);
	f->hold = 1;
	for (i = 0; i < MCP_CALLS_MAX; i++)
		fake_in(f, call_msg(i + 1, "terminal_job_list", "{}"));
	fake_spin(f, 20);
	ck_assert_uint_eq(f->nreqs, MCP_CALLS_MAX);
	ck_assert_uint_eq(f->nsent, 0);
	fake_in(f, call_msg(5000, "terminal_job_list", "{}"));
	fake_wait(f, 1);
	ck_assert_uint_eq(f->nreqs, MCP_CALLS_MAX);
	ck_assert_msg(strstr(f->sent[0], "\"id\":5000") != NULL &&
	    strstr(f->sent[0], "\"code\":-32000") != NULL &&
	    strstr(f->sent[0], "too many calls in flight (1024): wait for "
	    "some to end, then call terminal_job_list again") != NULL, "%s",
	    f->sent[0]);
	/* One ends: a new call is taken. */
	fake_script(f, "list", 0, -1, "{\"jobs\":[]}");
	fake_answer(f->reqs[0]);
	fake_wait(f, 2);
	fake_in(f, call_msg(5001, "terminal_job_list", "{}"));
	fake_spin(f, 20);
	ck_assert_uint_eq(f->nreqs, MCP_CALLS_MAX + 1);
	ck_assert_uint_eq(f->nsent, 2);
	fake_free(f);
}
END_TEST

/* terminal (async): spawn --agent CLIENT --cwd --env -- COMMAND. */
START_TEST(test_words_terminal)
{
	struct fake		*f = fake_new(0);
	const struct jsonread	*r, *sc;
	struct jsonread		*j;
	const char		*w;

	fake_init(f);
	fake_script(f, "spawn", 0, -1, job_json(7, "running", "echo hi",
	    "null"));
	j = call_tool(f, 1, "terminal", "{\"command\":\"echo hi\",\"cwd\":"
	    "\"/tmp\",\"env\":{\"A\":\"1 2\"}}", 0, &r);
	w = req_words(f, 0);
	ck_assert_msg(strncmp(w, "spawn|", 6) == 0, "%s", w);
	ck_assert_int_eq(f->reqs[0]->json, 1);
	assert_has(w, "--agent|" CLIENT);
	assert_has(w, "--escaped");
	assert_has(w, "--cwd|/tmp");
	assert_has(w, "--env|A=1 2");
	assert_ends(w, "--|echo hi");
	jsonread_free(j);
	fake_clear(f);
	/* A script's lines, a backslash: spawn --escaped's escapes. */
	fake_script(f, "spawn", 0, -1, job_json(7, "running", "echo hi",
	    "null"));
	j = call_tool(f, 1, "terminal", "{\"command\":\"echo a\\\\b\\necho c\"}",
	    0, &r);
	w = req_words(f, 1);
	assert_ends(w, "--|echo a\\\\b\\x0aecho c");
	ck_assert_uint_eq(f->nreqs, 2);
	sc = jsonread_get(r, "structuredContent");
	ck_assert_int_eq((int)jsonread_number(jsonread_get(sc, "job_id")), 7);
	ck_assert_str_eq(jsonread_text(sc, "status"), "running");
	jsonread_free(j);
	fake_free(f);
}
END_TEST

/*
 * terminal with async false: spawn, wait --timeout T ID, then the output
 * from the start; the session's mark moves past what was given.
 */
START_TEST(test_words_terminal_wait)
{
	struct fake		*f = fake_new(0);
	const struct jsonread	*r, *sc;
	struct jsonread		*j;
	char			 waited[8192], max[32];
	size_t			 i;

	fake_init(f);
	snprintf(max, sizeof max, "--max-bytes|%d", MCP_OUTPUT_MAX);
	fake_script(f, "spawn", 0, -1, job_json(7, "running", "make",
	    "null"));
	snprintf(waited, sizeof waited, "[%s]", job_json(7, "completed",
	    "make", "0"));
	fake_script(f, "wait", 0, 0, waited);
	fake_script(f, "status", 0, -1, status_json(7, "completed",
	    "built\\n", "1:6"));
	j = call_tool(f, 1, "terminal", "{\"command\":\"make\",\"async\":"
	    "false,\"timeout\":5}", 0, &r);
	ck_assert_msg(strncmp(req_words(f, 0), "spawn|", 6) == 0, "%s",
	    req_words(f, 0));
	for (i = 1; i < f->nreqs; i++) {
		if (strncmp(req_words(f, i), "wait|", 5) == 0)
			break;
	}
	ck_assert_msg(i < f->nreqs, "no wait among %zu requests", f->nreqs);
	assert_has(req_words(f, i), "--timeout|5");
	assert_ends(req_words(f, i), "7");
	ck_assert_int_eq(f->reqs[i]->json, 1);
	/* A wait is marked so: jobdeck mcp gives it a lane of its own. */
	ck_assert_int_ne(f->reqs[i]->flags & MCP_REQ_WAIT, 0);
	ck_assert_int_eq(f->reqs[0]->flags & MCP_REQ_WAIT, 0);
	ck_assert_int_eq(f->reqs[f->nreqs - 1]->flags & MCP_REQ_WAIT, 0);
	assert_has(req_words(f, f->nreqs - 1), "--since|0:0");
	assert_has(req_words(f, f->nreqs - 1), max);
	sc = jsonread_get(r, "structuredContent");
	ck_assert_int_eq((int)jsonread_number(jsonread_get(sc, "job_id")), 7);
	ck_assert_str_eq(jsonread_text(sc, "status"), "completed");
	ck_assert_int_eq((int)jsonread_number(jsonread_get(sc, "exit_code")),
	    0);
	ck_assert_str_eq(jsonread_text(sc, "output"), "built\n");
	ck_assert_int_eq(jsonread_bool(jsonread_get(sc, "timed_out")), 0);
	jsonread_free(j);
	fake_clear(f);
	/* What the call gave is seen: status reads on from its "next". */
	j = call_tool(f, 2, "terminal_job_status", "{\"job_id\":7}", 0, &r);
	assert_has(req_words(f, f->nreqs - 1), "--since|1:6");
	jsonread_free(j);
	fake_free(f);
}
END_TEST

/*
 * terminal with async false: a job still blocked reading its terminal
 * when the wait is over is waiting_for_input, and the text says to
 * answer it with terminal_send_input.
 */
START_TEST(test_words_terminal_input)
{
	struct fake		*f = fake_new(0);
	const struct jsonread	*r, *sc;
	struct jsonread		*j;
	char			 waited[8192], st[8192];

	fake_init(f);
	fake_script(f, "spawn", 0, -1, job_json(7, "running", "make",
	    "null"));
	snprintf(waited, sizeof waited, "[%s]", job_json_wait(7, "running",
	    "password"));
	fake_script(f, "wait", 0, 0, waited);
	snprintf(st, sizeof st, "%s", job_json_wait(7, "running",
	    "password"));
	st[strlen(st) - 1] = '\0';
	snprintf(st + strlen(st), sizeof st - strlen(st), ",\"output\":"
	    "\"pw: \",\"output_truncated\":false,\"output_partial\":true,"
	    "\"next\":\"1:4\",\"output_from\":1,\"lines_left\":0}");
	fake_script(f, "status", 0, -1, st);
	j = call_tool(f, 1, "terminal", "{\"command\":\"make\",\"async\":"
	    "false,\"timeout\":1}", 0, &r);
	sc = jsonread_get(r, "structuredContent");
	ck_assert_str_eq(jsonread_text(sc, "status"), "waiting_for_input");
	ck_assert_int_eq(jsonread_bool(jsonread_get(sc, "timed_out")), 1);
	ck_assert_msg(strstr(result_text(r), "waiting for input after 1 s: "
	    "answer it with terminal_send_input") != NULL, "%s",
	    result_text(r));
	jsonread_free(j);
	fake_free(f);
}
END_TEST

/*
 * terminal_job_status: status --since MARK --max-bytes N ID; the next
 * call reads on from the "next" the deck gave; incremental false starts
 * over and does not move the mark.
 */
START_TEST(test_words_status)
{
	struct fake		*f = fake_new(0);
	const struct jsonread	*r, *sc;
	struct jsonread		*j;
	const char		*w;
	char			 max[32];
	size_t			 first;

	fake_init(f);
	snprintf(max, sizeof max, "--max-bytes|%d", MCP_OUTPUT_MAX);
	fake_script(f, "status", 0, -1, status_json(3, "running",
	    "one\\ntwo\\n", "2:8"));
	j = call_tool(f, 1, "terminal_job_status", "{\"job_id\":3}", 0, &r);
	/* The read is the call's last request (it may ask first). */
	w = req_words(f, f->nreqs - 1);
	ck_assert_msg(strncmp(w, "status|", 7) == 0, "%s", w);
	ck_assert_int_eq(f->reqs[f->nreqs - 1]->json, 1);
	assert_has(w, "--since|0:0");
	assert_has(w, max);
	assert_ends(w, "3");
	sc = jsonread_get(r, "structuredContent");
	ck_assert_str_eq(jsonread_text(sc, "output"), "one\ntwo\n");
	ck_assert_str_eq(jsonread_text(sc, "status"), "running");
	ck_assert_str_eq(jsonread_text(sc, "agent"), CLIENT);
	jsonread_free(j);
	fake_clear(f);
	fake_script(f, "status", 0, -1, status_json(3, "completed", "three\\n",
	    "3:14"));
	j = call_tool(f, 2, "terminal_job_status", "{\"job_id\":3}", 0, &r);
	assert_has(req_words(f, f->nreqs - 1), "--since|2:8");
	ck_assert_str_eq(jsonread_text(jsonread_get(r, "structuredContent"),
	    "status"), "completed");
	jsonread_free(j);
	fake_clear(f);
	j = call_tool(f, 3, "terminal_job_status", "{\"job_id\":3,"
	    "\"incremental\":false}", 0, &r);
	assert_has(req_words(f, f->nreqs - 1), "--since|0:0");
	jsonread_free(j);
	fake_clear(f);
	j = call_tool(f, 4, "terminal_job_status", "{\"job_id\":3}", 0, &r);
	assert_has(req_words(f, f->nreqs - 1), "--since|3:14");
	jsonread_free(j);
	fake_clear(f);
	/* A job's name is a job id too. */
	first = f->nreqs;
	j = call_tool(f, 5, "terminal_job_status", "{\"job_id\":\"web\"}", 0,
	    &r);
	assert_ends(req_words(f, first), "web");
	jsonread_free(j);
	fake_free(f);
}
END_TEST

/*
 * Output that ends at damage in the store (status's "output_error") is
 * an error of terminal_job_status and of terminal, with the deck's words
 * and the output read before it (a damaged run read as no more output,
 * with no word of why).
 */
START_TEST(test_status_damaged)
{
	struct fake		*f = fake_new(0);
	const struct jsonread	*r;
	struct jsonread		*j;
	char			 reply[16384], waited[8192];
	const char		*text;

	fake_init(f);
	snprintf(reply, sizeof reply, "%s", status_json(3, "running",
	    "one\\n", "1:4"));
	reply[strlen(reply) - 1] = '\0';
	strncat(reply, ",\"output_error\":\"runs/R is damaged: out.0 holds "
	    "4 bytes, its index 8; cut after line 1 (4 bytes after it cannot "
	    "be read)\"}", sizeof reply - strlen(reply) - 1);
	fake_script(f, "status", 0, -1, reply);
	j = call_tool(f, 1, "terminal_job_status", "{\"job_id\":3}", 1, &r);
	text = result_text(r);
	ck_assert_msg(strstr(text, "the job's output cannot be read on: "
	    "runs/R is damaged: out.0 holds 4 bytes, its index 8; cut after "
	    "line 1") != NULL && strstr(text, "Its output up to there:\n"
	    "one\n") != NULL, "%s", text);
	jsonread_free(j);
	fake_clear(f);

	fake_script(f, "spawn", 0, -1, job_json(3, "running", "make",
	    "null"));
	snprintf(waited, sizeof waited, "[%s]", job_json(3, "completed",
	    "make", "0"));
	fake_script(f, "wait", 0, 0, waited);
	fake_script(f, "status", 0, -1, reply);
	j = call_tool(f, 2, "terminal", "{\"command\":\"make\",\"async\":"
	    "false,\"timeout\":5}", 1, &r);
	ck_assert_msg(strstr(result_text(r), "runs/R is damaged") != NULL,
	    "%s", result_text(r));
	jsonread_free(j);
	fake_free(f);
}
END_TEST

/* terminal_job_list, terminal_screen: list and screen, as JSON. */
/*
 * terminal_job_list keeps what it sends within MCP_OUTPUT_MAX whatever
 * the jobs' commands hold: the most recent jobs that fit, the rest said
 * (it sent every one of 200 jobs of 1 KiB commands: 200 KiB and more).
 */
START_TEST(test_list_bounded)
{
	struct fake		*f = fake_new(0);
	const struct jsonread	*r, *sc, *jobs;
	struct jsonread		*j;
	char			*body, command[1025];
	size_t			 len = 0, size = 1024 * 1024, shown;
	int			 i;

	memset(command, 'c', sizeof command - 1);
	command[sizeof command - 1] = '\0';
	body = malloc(size);
	ck_assert_ptr_nonnull(body);
	len = (size_t)snprintf(body, size, "{\"jobs\":[");
	for (i = 1; i <= 200; i++)
		len += (size_t)snprintf(body + len, size - len, "%s%s",
		    i > 1 ? "," : "", job_json(i, "completed", command, "0"));
	snprintf(body + len, size - len, "]}");
	fake_init(f);
	fake_script(f, "list", 0, -1, body);
	free(body);
	j = call_tool(f, 1, "terminal_job_list", "{\"limit\":1000}", 0, &r);
	ck_assert_msg(strlen(f->sent[0]) < 3 * MCP_OUTPUT_MAX, "%zu bytes",
	    strlen(f->sent[0]));
	sc = jsonread_get(r, "structuredContent");
	jobs = jsonread_get(sc, "jobs");
	shown = jsonread_count(jobs);
	ck_assert_msg(shown > 10 && shown < 200, "%zu shown", shown);
	ck_assert_int_eq((int)jsonread_number(jsonread_get(sc, "shown")),
	    (int)shown);
	ck_assert_int_eq((int)jsonread_number(jsonread_get(sc, "total")), 200);
	/* The newest are kept. */
	ck_assert_int_eq((int)jsonread_number(jsonread_get(jsonread_index(jobs,
	    shown - 1), "job_id")), 200);
	ck_assert_msg(strstr(result_text(r), "left out") != NULL, "%s",
	    result_text(r));
	jsonread_free(j);
	fake_free(f);
}
END_TEST

START_TEST(test_words_list_screen)
{
	struct fake		*f = fake_new(0);
	const struct jsonread	*r, *sc;
	struct jsonread		*j;
	char			 body[16384];

	fake_init(f);
	snprintf(body, sizeof body, "{\"jobs\":[%s,", job_json(1, "running",
	    "a", "null"));
	snprintf(body + strlen(body), sizeof body - strlen(body), "%s]}",
	    job_json(2, "completed", "b", "0"));
	fake_script(f, "list", 0, -1, body);
	j = call_tool(f, 1, "terminal_job_list", "{}", 0, &r);
	ck_assert_msg(strncmp(req_words(f, 0), "list", 4) == 0, "%s",
	    req_words(f, 0));
	ck_assert_int_eq(f->reqs[0]->json, 1);
	sc = jsonread_get(r, "structuredContent");
	ck_assert_uint_eq(jsonread_count(jsonread_get(sc, "jobs")), 2);
	ck_assert_int_eq((int)jsonread_number(jsonread_get(sc, "total")), 2);
	ck_assert_int_eq((int)jsonread_number(jsonread_get(sc, "running")),
	    1);
	jsonread_free(j);
	fake_clear(f);
	j = call_tool(f, 2, "terminal_job_list", "{\"status_filter\":"
	    "[\"completed\"],\"limit\":1}", 0, &r);
	sc = jsonread_get(r, "structuredContent");
	ck_assert_uint_eq(jsonread_count(jsonread_get(sc, "jobs")), 1);
	ck_assert_str_eq(jsonread_text(jsonread_index(jsonread_get(sc,
	    "jobs"), 0), "status"), "completed");
	jsonread_free(j);
	fake_clear(f);
	fake_script(f, "screen", 0, -1, "{\"id\":1,\"rows\":2,\"cols\":10,"
	    "\"cursor\":{\"row\":1,\"col\":0,\"visible\":true},"
	    "\"alt_screen\":false,\"title\":null,\"lines\":[\"$ top\",\"\"]}");
	j = call_tool(f, 3, "terminal_screen", "{\"job_id\":1}", 0, &r);
	ck_assert_str_eq(req_words(f, 2), "screen|1");
	ck_assert_int_eq(f->reqs[2]->json, 1);
	sc = jsonread_get(r, "structuredContent");
	ck_assert_str_eq(jsonread_string(jsonread_index(jsonread_get(sc,
	    "lines"), 0), NULL), "$ top");
	ck_assert_msg(strstr(result_text(r), "$ top") != NULL, "%s",
	    f->sent[0]);
	jsonread_free(j);
	fake_free(f);
}
END_TEST

/*
 * A running job whose waiting_for is "input" or "password" has the status
 * waiting_for_input (a held job's reason does not make it so); it counts
 * as running, status_filter picks it by its word, and "running" takes it
 * too.
 */
START_TEST(test_words_list_input)
{
	struct fake		*f = fake_new(0);
	const struct jsonread	*r, *sc, *jobs;
	struct jsonread		*j;
	char			 body[32768];
	static const char *const want[] = { "waiting_for_input",
		"waiting_for_input", "running", "queued" };
	size_t			 i;

	fake_init(f);
	snprintf(body, sizeof body, "{\"jobs\":[%s,", job_json_wait(1,
	    "running", "input"));
	snprintf(body + strlen(body), sizeof body - strlen(body), "%s,",
	    job_json_wait(2, "running", "password"));
	snprintf(body + strlen(body), sizeof body - strlen(body), "%s,",
	    job_json(3, "running", "y", "null"));
	snprintf(body + strlen(body), sizeof body - strlen(body), "%s]}",
	    job_json_wait(4, "waiting", "input"));
	fake_script(f, "list", 0, -1, body);
	j = call_tool(f, 1, "terminal_job_list", "{}", 0, &r);
	sc = jsonread_get(r, "structuredContent");
	jobs = jsonread_get(sc, "jobs");
	ck_assert_uint_eq(jsonread_count(jobs), 4);
	for (i = 0; i < 4; i++)
		ck_assert_str_eq(jsonread_text(jsonread_index(jobs, i),
		    "status"), want[i]);
	ck_assert_int_eq((int)jsonread_number(jsonread_get(sc, "running")),
	    3);
	jsonread_free(j);

	fake_clear(f);
	j = call_tool(f, 2, "terminal_job_list", "{\"status_filter\":"
	    "[\"waiting_for_input\"]}", 0, &r);
	sc = jsonread_get(r, "structuredContent");
	ck_assert_uint_eq(jsonread_count(jsonread_get(sc, "jobs")), 2);
	jsonread_free(j);

	fake_clear(f);
	j = call_tool(f, 3, "terminal_job_list", "{\"status_filter\":"
	    "[\"running\"]}", 0, &r);
	sc = jsonread_get(r, "structuredContent");
	ck_assert_uint_eq(jsonread_count(jsonread_get(sc, "jobs")), 3);
	jsonread_free(j);
	fake_free(f);
}
END_TEST

/*
 * terminal_job_cancel: status first; a running job gets kill ID; one
 * that is not running is refused, and not killed.
 */
START_TEST(test_words_cancel)
{
	struct fake		*f = fake_new(0);
	const struct jsonread	*r, *sc;
	struct jsonread		*j;

	fake_init(f);
	fake_script(f, "status", 0, -1, job_json(5, "running", "sleep 9",
	    "null"));
	fake_script(f, "kill", 0, -1, "");
	j = call_tool(f, 1, "terminal_job_cancel", "{\"job_id\":5}", 0, &r);
	ck_assert_uint_eq(f->nreqs, 2);
	ck_assert_msg(strncmp(req_words(f, 0), "status|", 7) == 0, "%s",
	    req_words(f, 0));
	ck_assert_str_eq(req_words(f, 1), "kill|5");
	sc = jsonread_get(r, "structuredContent");
	ck_assert_int_eq(jsonread_bool(jsonread_get(sc, "success")), 1);
	ck_assert_str_eq(jsonread_text(sc, "previous_status"), "running");
	jsonread_free(j);
	fake_clear(f);
	fake_script(f, "status", 0, -1, job_json(5, "completed", "sleep 9",
	    "0"));
	j = call_tool(f, 2, "terminal_job_cancel", "{\"job_id\":5}", 1, &r);
	ck_assert_msg(strstr(result_text(r), "not running") != NULL, "%s",
	    f->sent[0]);
	ck_assert_uint_eq(f->nreqs, 3);
	jsonread_free(j);
	fake_free(f);
}
END_TEST

/* terminal_send_input: send ID -- TEXT with control bytes and \ escaped. */
START_TEST(test_words_send)
{
	struct fake		*f = fake_new(0);
	const struct jsonread	*r;
	struct jsonread		*j;
	const char		*w;

	fake_init(f);
	fake_script(f, "send", 0, -1, "");
	j = call_tool(f, 1, "terminal_send_input", "{\"job_id\":4,\"text\":"
	    "\"pw\\n\\\\\\u0003\\u007f\\t\\u00e9\"}", 0, &r);
	w = req_words(f, 0);
	ck_assert_msg(strcasecmp(w, "send|4|--|pw\\x0a\\\\\\x03\\x7f\\x09"
	    "\xc3\xa9") == 0, "words: %s", w);
	jsonread_free(j);
	fake_free(f);
}
END_TEST

/* run: spawn --agent --pipes --timeout --input --no-shell -- ARGV. */
START_TEST(test_words_run)
{
	struct fake		*f = fake_new(0);
	const struct jsonread	*r, *sc;
	struct jsonread		*j;
	const char		*w;
	char			 split[16384];

	fake_init(f);
	fake_script(f, "spawn", 0, -1, job_json(8, "running", "echo", "null"));
	snprintf(split, sizeof split, "[%s]", job_json(8, "completed", "echo",
	    "0"));
	fake_script(f, "wait", 0, 0, split);
	snprintf(split, sizeof split, "%s", job_json(8, "completed", "echo",
	    "0"));
	snprintf(split + strlen(split) - 1, sizeof split - strlen(split) + 1,
	    ",\"output\":\"\",\"stdout\":\"hi there\\n\",\"stderr\":\"\","
	    "\"stdout_truncated\":false,\"stderr_truncated\":false,"
	    "\"stdout_bytes\":9,\"stderr_bytes\":0}");
	fake_script(f, "status", 0, -1, split);
	j = call_tool(f, 1, "run", "{\"command\":\"echo\",\"args\":"
	    "[\"{who}\",\"a b\"],\"timeout\":5,\"input_data\":\"x\\n\","
	    "\"params\":{\"who\":\"hi\"}}", 0, &r);
	w = req_words(f, 0);
	ck_assert_msg(strncmp(w, "spawn|", 6) == 0, "%s", w);
	assert_has(w, "--agent|" CLIENT);
	assert_has(w, "--pipes");
	assert_has(w, "--timeout|5");
	ck_assert_msg(strstr(w, "--input|x\\x0a|") != NULL ||
	    strstr(w, "--input|x\\x0A|") != NULL, "%s", w);
	assert_has(w, "--no-shell");
	assert_has(w, "--escaped");
	assert_ends(w, "--|echo|hi|a b");
	ck_assert_msg(strncmp(req_words(f, 1), "wait|", 5) == 0, "%s",
	    req_words(f, 1));
	ck_assert_int_ne(f->reqs[1]->flags & MCP_REQ_WAIT, 0);
	ck_assert_msg(strncmp(req_words(f, 2), "status|", 7) == 0, "%s",
	    req_words(f, 2));
	assert_has(req_words(f, 2), "--split");
	sc = jsonread_get(r, "structuredContent");
	ck_assert_str_eq(jsonread_text(sc, "stdout"), "hi there\n");
	ck_assert_int_eq((int)jsonread_number(jsonread_get(sc,
	    "return_code")), 0);
	ck_assert_int_eq(jsonread_bool(jsonread_get(sc, "success")), 1);
	jsonread_free(j);
	fake_clear(f);
	/* An unknown {name}: a tool error, the deck not asked. */
	j = call_tool(f, 2, "run", "{\"command\":\"echo\",\"args\":"
	    "[\"{nobody}\"],\"params\":{\"who\":\"x\"}}", 1, &r);
	ck_assert_uint_eq(f->nreqs, 3);
	jsonread_free(j);
	fake_free(f);
}
END_TEST

/*
 * The tools that start a command take an optional host: spawn --host H
 * (before "--"); a host ssh would read as an option, or that is no ssh
 * destination, is a tool error and the deck is not asked.
 */
START_TEST(test_words_host)
{
	static const char *const bad[] = { "-oProxyCommand=x", "a b",
	    "me@", "a@b@c" };
	struct fake		*f = fake_new(0);
	const struct jsonread	*r;
	struct jsonread		*j;
	const char		*w;
	char			 args[256];
	size_t			 i, n;

	fake_init(f);
	fake_script(f, "spawn", 0, -1, job_json(7, "running", "make", "null"));
	j = call_tool(f, 1, "terminal", "{\"command\":\"make\",\"host\":"
	    "\"build\",\"cwd\":\"~/src\"}", 0, &r);
	w = req_words(f, 0);
	assert_has(w, "--host|build");
	assert_has(w, "--cwd|~/src");
	assert_ends(w, "--|make");
	ck_assert(strstr(w, "--host|") < strstr(w, "|--|"));
	jsonread_free(j);
	fake_clear(f);
	fake_script(f, "spawn", 0, -1, job_json(8, "running", "make", "null"));
	fake_script(f, "wait", 0, 0, "[]");
	fake_script(f, "status", 0, -1, job_json(8, "completed", "make", "0"));
	j = call_tool(f, 2, "run", "{\"command\":\"make\",\"host\":"
	    "\"me@build1\"}", 0, &r);
	w = req_words(f, 1);
	assert_has(w, "--host|me@build1");
	ck_assert(strstr(w, "--host|") < strstr(w, "|--|"));
	jsonread_free(j);
	fake_clear(f);
	n = f->nreqs;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(args, sizeof args, "{\"command\":\"make\","
		    "\"host\":\"%s\"}", bad[i]);
		j = call_tool(f, 3, i % 2 ? "run" : "terminal", args, 1, &r);
		ck_assert_msg(strstr(result_text(r), "not a [hosts] name or "
		    "an ssh destination") != NULL, "%s: %s", bad[i],
		    result_text(r));
		ck_assert_uint_eq(f->nreqs, n);
		jsonread_free(j);
	}
	fake_free(f);
}
END_TEST

/*
 * A reload report as the deck writes it (cmd-reload.c's --json): a
 * restart, an addition, a removal, a setting not applied.
 */
static const char reload_report[] = "{\"summary\":\"reload: 1 restarted, "
    "1 added, 1 removed, 1 unchanged; 1 setting not applied\","
    "\"restarted\":[\"web\"],\"updated\":[],\"added\":[\"worker\"],"
    "\"removed\":[\"old\"],\"scaled\":[],\"unchanged\":[\"db\"],"
    "\"jobs\":[{\"name\":\"web\",\"change\":\"restarted\",\"what\":"
    "\"command, env\",\"replicas_before\":1,\"replicas_after\":1},"
    "{\"name\":\"worker\",\"change\":\"added\",\"what\":null,"
    "\"replicas_before\":0,\"replicas_after\":2},{\"name\":\"old\","
    "\"change\":\"removed\",\"what\":null,\"replicas_before\":1,"
    "\"replicas_after\":0},{\"name\":\"db\",\"change\":\"unchanged\","
    "\"what\":null,\"replicas_before\":1,\"replicas_after\":1}],"
    "\"settings\":[\"log_dir not applied: the deck keeps its store\"]}";

/* Assert that array key of sc holds exactly the one string want. */
static void
assert_names(const struct jsonread *sc, const char *key, const char *want)
{
	const struct jsonread	*a = jsonread_get(sc, key);

	ck_assert_msg(jsonread_type(a) == JSONREAD_ARRAY, "%s is not an "
	    "array", key);
	if (want == NULL) {
		ck_assert_msg(jsonread_count(a) == 0, "%s is not empty", key);
		return;
	}
	ck_assert_msg(jsonread_count(a) == 1, "%s holds %zu names", key,
	    jsonread_count(a));
	ck_assert_str_eq(jsonread_string(jsonread_index(a, 0), NULL), want);
}

/*
 * stack_reload: reload, as JSON; the deck's report as structuredContent,
 * its summary line and the names of each change as the text.
 */
START_TEST(test_words_reload)
{
	struct fake		*f = fake_new(0);
	const struct jsonread	*r, *sc, *jobs;
	struct jsonread		*j;
	const char		*text, *line;

	fake_init(f);
	fake_script(f, "reload", 0, -1, reload_report);
	j = call_tool(f, 1, "stack_reload", "{}", 0, &r);
	ck_assert_uint_eq(f->nreqs, 1);
	ck_assert_str_eq(req_words(f, 0), "reload");
	ck_assert_int_eq(f->reqs[0]->json, 1);
	sc = jsonread_get(r, "structuredContent");
	ck_assert_str_eq(jsonread_text(sc, "summary"), "reload: 1 restarted, "
	    "1 added, 1 removed, 1 unchanged; 1 setting not applied");
	assert_names(sc, "restarted", "web");
	assert_names(sc, "updated", NULL);
	assert_names(sc, "added", "worker");
	assert_names(sc, "removed", "old");
	assert_names(sc, "scaled", NULL);
	assert_names(sc, "unchanged", "db");
	assert_names(sc, "settings", "log_dir not applied: the deck keeps "
	    "its store");
	jobs = jsonread_get(sc, "jobs");
	ck_assert_uint_eq(jsonread_count(jobs), 4);
	ck_assert_str_eq(jsonread_text(jsonread_index(jobs, 0), "what"),
	    "command, env");
	ck_assert_str_eq(jsonread_text(jsonread_index(jobs, 1), "change"),
	    "added");
	ck_assert_int_eq((int)jsonread_number(jsonread_get(jsonread_index(
	    jobs, 1), "replicas_after")), 2);
	ck_assert_int_eq(jsonread_type(jsonread_get(jsonread_index(jobs, 1),
	    "what")), JSONREAD_NULL);
	text = result_text(r);
	line = "reload: 1 restarted, 1 added, 1 removed, 1 unchanged; 1 "
	    "setting not applied\n";
	ck_assert_msg(strncmp(text, line, strlen(line)) == 0, "%s", text);
	ck_assert_msg(strstr(text, "\nrestarted: web\n") != NULL, "%s", text);
	ck_assert_msg(strstr(text, "\nadded: worker\n") != NULL, "%s", text);
	ck_assert_msg(strstr(text, "\nremoved: old\n") != NULL, "%s", text);
	ck_assert_msg(strstr(text, "\nsetting: log_dir not applied") != NULL,
	    "%s", text);
	ck_assert_msg(strstr(text, "unchanged:") == NULL, "%s", text);
	jsonread_free(j);
	fake_free(f);
}
END_TEST

/*
 * stack_reload's errors: a file that does not load is a tool error in
 * the deck's words; a reply that is no report is one too; a report with
 * members of the wrong types is cut to the outputSchema (every array
 * there, strings only, jobs with a name and a change).
 */
START_TEST(test_reload_errors)
{
	struct fake		*f = fake_new(0);
	const struct jsonread	*r, *sc, *jobs;
	struct jsonread		*j;
	size_t			 k;

	fake_init(f);
	fake_script(f, "reload", 1, -1, "reload: config.toml:3:9: expected "
	    "'=' after a key\n");
	j = call_tool(f, 1, "stack_reload", "{}", 1, &r);
	ck_assert_str_eq(result_text(r), "reload: config.toml:3:9: expected "
	    "'=' after a key");
	ck_assert_ptr_null(jsonread_get(r, "structuredContent"));
	jsonread_free(j);
	fake_clear(f);
	fake_script(f, "reload", 0, -1, "{\"restarted\":[]}");
	j = call_tool(f, 2, "stack_reload", "{}", 1, &r);
	ck_assert_msg(strstr(result_text(r), "summary") != NULL, "%s",
	    result_text(r));
	jsonread_free(j);
	fake_clear(f);
	fake_script(f, "reload", 0, -1, "reload: 1 added");
	j = call_tool(f, 3, "stack_reload", "{}", 1, &r);
	ck_assert_msg(strstr(result_text(r), "not JSON") != NULL, "%s",
	    result_text(r));
	jsonread_free(j);
	fake_clear(f);
	fake_script(f, "reload", 0, -1, "{\"summary\":\"reload: 1 added\","
	    "\"added\":[\"b\",7,null],\"removed\":\"x\",\"scaled\":{\"a\":"
	    "\"b\"},\"jobs\":[{\"name\":5,\"change\":\"added\"},{\"name\":"
	    "\"b\",\"change\":\"added\",\"what\":3,\"replicas_before\":\"x\"}"
	    ",7],\"settings\":{}}");
	j = call_tool(f, 4, "stack_reload", "{}", 0, &r);
	sc = jsonread_get(r, "structuredContent");
	assert_names(sc, "added", "b");
	for (k = 0; mcp_tools_change_words[k] != NULL; k++) {
		if (strcmp(mcp_tools_change_words[k], "added") != 0)
			assert_names(sc, mcp_tools_change_words[k], NULL);
	}
	assert_names(sc, "settings", NULL);
	jobs = jsonread_get(sc, "jobs");
	ck_assert_uint_eq(jsonread_count(jobs), 1);
	ck_assert_str_eq(jsonread_text(jsonread_index(jobs, 0), "name"), "b");
	ck_assert_int_eq(jsonread_type(jsonread_get(jsonread_index(jobs, 0),
	    "what")), JSONREAD_NULL);
	ck_assert_int_eq(jsonread_type(jsonread_get(jsonread_index(jobs, 0),
	    "replicas_before")), JSONREAD_NULL);
	jsonread_free(j);
	fake_free(f);
}
END_TEST

/*
 * stack_scale: scale NAME N, as JSON, the same report; a job the deck
 * does not have is a tool error in its words; a name that is not one,
 * or a count out of 0..100, never reaches the deck.
 */
START_TEST(test_words_scale)
{
	static const char report[] = "{\"summary\":\"reload: 0 restarted, "
	    "0 added, 0 removed, 1 scaled, 0 unchanged\",\"restarted\":[],"
	    "\"updated\":[],\"added\":[],\"removed\":[],\"scaled\":[\"web\"],"
	    "\"unchanged\":[],\"jobs\":[{\"name\":\"web\",\"change\":"
	    "\"scaled\",\"what\":null,\"replicas_before\":1,"
	    "\"replicas_after\":3}],\"settings\":[]}";
	static const char *const refused[] = {
		"{\"name\":\"-web\",\"replicas\":2}",
		"{\"name\":\"12\",\"replicas\":2}",
		"{\"name\":\"web\",\"replicas\":101}",
		"{\"name\":\"web\",\"replicas\":-1}",
		"{\"name\":\"web\",\"replicas\":2.5}",
		"{\"name\":\"web\"}",
	};
	struct fake		*f = fake_new(0);
	const struct jsonread	*r, *sc, *job;
	struct jsonread		*j;
	size_t			 i;

	fake_init(f);
	fake_script(f, "scale", 0, -1, report);
	j = call_tool(f, 1, "stack_scale", "{\"name\":\"web\",\"replicas\":3}",
	    0, &r);
	ck_assert_str_eq(req_words(f, 0), "scale|web|3");
	ck_assert_int_eq(f->reqs[0]->json, 1);
	sc = jsonread_get(r, "structuredContent");
	assert_names(sc, "scaled", "web");
	job = jsonread_index(jsonread_get(sc, "jobs"), 0);
	ck_assert_int_eq((int)jsonread_number(jsonread_get(job,
	    "replicas_before")), 1);
	ck_assert_int_eq((int)jsonread_number(jsonread_get(job,
	    "replicas_after")), 3);
	ck_assert_msg(strstr(result_text(r), "\nscaled: web\n") != NULL, "%s",
	    result_text(r));
	jsonread_free(j);
	fake_clear(f);
	j = call_tool(f, 2, "stack_scale", "{\"replicas\":0,\"name\":\"web\"}",
	    0, &r);
	ck_assert_str_eq(req_words(f, 1), "scale|web|0");
	jsonread_free(j);
	fake_clear(f);
	fake_script(f, "scale", 1, -1, "scale: no configured job named zz\n");
	j = call_tool(f, 3, "stack_scale", "{\"name\":\"zz\",\"replicas\":2}",
	    1, &r);
	ck_assert_str_eq(result_text(r), "scale: no configured job named zz");
	ck_assert_str_eq(req_words(f, 2), "scale|zz|2");
	jsonread_free(j);
	fake_clear(f);
	for (i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		j = call_tool(f, 10 + (int)i, "stack_scale", refused[i], 1, &r);
		jsonread_free(j);
		fake_clear(f);
	}
	ck_assert_uint_eq(f->nreqs, 3);
	fake_free(f);
}
END_TEST

/*
 * The tools' change words are the deck's (stack_change_word() of every
 * kind), and each is a required array of the outputSchema of both tools.
 */
START_TEST(test_change_words)
{
	static const enum stack_change_kind kinds[] = { STACK_UNCHANGED,
	    STACK_RESTARTED, STACK_UPDATED, STACK_ADDED, STACK_REMOVED,
	    STACK_SCALED };
	const struct mcp_tool	*t;
	const struct jsonread	*req, *props;
	struct jsonread		*schema;
	char			*cause = NULL;
	size_t			 i, k, n, tools = 0;
	int			 found;

	for (n = 0; mcp_tools_change_words[n] != NULL; n++)
		;
	ck_assert_uint_eq(n, sizeof kinds / sizeof kinds[0]);
	for (i = 0; i < n; i++) {
		found = 0;
		for (k = 0; mcp_tools_change_words[k] != NULL; k++)
			found += strcmp(mcp_tools_change_words[k],
			    stack_change_word(kinds[i])) == 0;
		ck_assert_msg(found == 1, "%s: %d times",
		    stack_change_word(kinds[i]), found);
	}
	for (t = mcp_tools; t->name != NULL; t++) {
		if (strncmp(t->name, "stack_", 6) != 0)
			continue;
		tools++;
		schema = jsonread_parse(t->output_schema,
		    strlen(t->output_schema), &cause);
		ck_assert_msg(schema != NULL, "%s: %s", t->name, cause);
		req = jsonread_get(schema, "required");
		props = jsonread_get(schema, "properties");
		for (k = 0; k < n; k++) {
			found = 0;
			for (i = 0; i < jsonread_count(req); i++)
				found += strcmp(jsonread_string(
				    jsonread_index(req, i), NULL),
				    mcp_tools_change_words[k]) == 0;
			ck_assert_msg(found == 1, "%s: %s not required",
			    t->name, mcp_tools_change_words[k]);
			ck_assert_str_eq(jsonread_text(jsonread_get(props,
			    mcp_tools_change_words[k]), "type"), "array");
		}
		jsonread_free(schema);
	}
	ck_assert_uint_eq(tools, 2);
}
END_TEST

/*
 * run's return_code is the deck's own code of the job's end (its job
 * object's "code", by waitstatus.h's policy), for every row of it; error
 * says why a program did not run to its own end.
 */
START_TEST(test_run_codes)
{
	char		 noexec[] = "/tmp/check_mcp_nx.XXXXXX";
	char		*nf[] = { "/nonexistent/jd-prog", NULL };
	char		*nx[] = { noexec, NULL };
	const struct {
		struct deck_how	 end;
		int		 code;
		int		 timed_out;
		const char	*error;		/* its start, or NULL */
	} rows[] = {
		{ { "completed", NULL, 0, NULL }, 0, 0, NULL },
		{ { "failed", NULL, 3 << 8, NULL }, 3, 0, NULL },
		{ { "failed", NULL, SIGKILL, NULL }, 128 + SIGKILL, 0, NULL },
		{ { "timed-out", NULL, SIGTERM, NULL }, 124, 1,
		  "timed out after 5 s" },
		{ { "canceled", NULL, WAITSTATUS_NONE, NULL }, 125, 0, NULL },
		{ { "failed", NULL, 0, nx }, 126, 0, "cannot run " },
		{ { "failed", NULL, 0, nf }, 127, 0,
		  "cannot run /nonexistent/jd-prog: not found" },
	};
	struct deck_how		 start;
	struct fake		*f;
	const struct jsonread	*r, *sc;
	struct jsonread		*j;
	const char		*program, *error;
	char			 body[16384], args[256];
	size_t			 i;
	int			 fd, id;

	ck_assert_int_ge(fd = mkstemp(noexec), 0);
	ck_assert_int_eq(write(fd, "#!/bin/sh\n", 10), 10);
	close(fd);
	for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		f = fake_new(0);
		fake_init(f);
		id = 20 + (int)i;
		program = rows[i].end.argv != NULL ? rows[i].end.argv[0] :
		    "make";
		/* Started, or (never to run) held. */
		start = rows[i].end;
		start.state = "running";
		if (rows[i].end.status == WAITSTATUS_NONE) {
			start.state = "waiting";
			start.wait = "db (ready)";
		}
		fake_script(f, "spawn", 0, -1, deck_job(id, program, &start));
		snprintf(body, sizeof body, "[%s]", deck_job(id, program,
		    &rows[i].end));
		fake_script(f, "wait", 0, rows[i].code, body);
		snprintf(body, sizeof body, "%s", deck_job(id, program,
		    &rows[i].end));
		snprintf(body + strlen(body) - 1, sizeof body - strlen(body) +
		    1, ",\"output\":\"\",\"stdout\":\"\",\"stderr\":\"\","
		    "\"stdout_truncated\":false,\"stderr_truncated\":false}");
		fake_script(f, "status", 0, -1, body);
		snprintf(args, sizeof args, "{\"command\":\"%s\",\"timeout\":5}",
		    program);
		j = call_tool(f, 1, "run", args, 0, &r);
		sc = jsonread_get(r, "structuredContent");
		ck_assert_msg((int)jsonread_number(jsonread_get(sc,
		    "return_code")) == rows[i].code, "%s %d: %s",
		    rows[i].end.state, rows[i].end.status, result_text(r));
		ck_assert_int_eq(jsonread_bool(jsonread_get(sc, "success")),
		    rows[i].code == 0);
		ck_assert_int_eq(jsonread_bool(jsonread_get(sc, "timed_out")),
		    rows[i].timed_out);
		error = jsonread_text(sc, "error");	/* "": null */
		if (rows[i].error == NULL)
			ck_assert_msg(*error == '\0', "%s", error);
		else
			ck_assert_msg(strncmp(error, rows[i].error,
			    strlen(rows[i].error)) == 0, "%s", error);
		jsonread_free(j);
		fake_free(f);
	}
	unlink(noexec);
}
END_TEST

/* Huge requests: a 3 MiB argument, a 3 MiB id, many keys. */
START_TEST(test_huge)
{
	struct fake	*f = fake_new(0);
	size_t		 big = 3 * 1024 * 1024, n;
	char		*msg, *p;

	fake_init(f);
	fake_script(f, "spawn", 1, -1, "spawn: too long");
	msg = malloc(big + 256);
	ck_assert_ptr_nonnull(msg);
	p = msg + sprintf(msg, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"tools/call\",\"params\":{\"name\":\"terminal\",\"arguments\":"
	    "{\"command\":\"");
	memset(p, 'x', big);
	strcpy(p + big, "\"}}}");
	mcp_server_input(f->srv, msg, strlen(msg));
	fake_wait(f, 1);
	ck_assert_msg(strstr(f->sent[0], "\"id\":1") != NULL, "%.300s",
	    f->sent[0]);
	fake_clear(f);
	/* One object with a great many members. */
	p = msg + sprintf(msg, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
	    "\"ping\",\"params\":{");
	for (n = 0; n < 100000; n++)
		p += sprintf(p, "%s\"k%zu\":%zu", n > 0 ? "," : "", n, n);
	strcpy(p, "}}");
	mcp_server_input(f->srv, msg, strlen(msg));
	fake_wait(f, 1);
	ck_assert_msg(strstr(f->sent[0], "\"id\":2") != NULL, "%.300s",
	    f->sent[0]);
	free(msg);
	fake_free(f);
}
END_TEST

/* Deep nesting: an answer (an error, or ping's), never a crash. */
START_TEST(test_deep)
{
	struct fake	*f = fake_new(0);
	size_t		 depth = 200000, i;
	char		*msg, *p;

	fake_init(f);
	msg = malloc(depth * 8 + 256);
	ck_assert_ptr_nonnull(msg);
	p = msg;
	for (i = 0; i < depth; i++)
		*p++ = '[';
	for (i = 0; i < depth; i++)
		*p++ = ']';
	*p = '\0';
	expect_error(f, msg, -32700, "null");
	fake_clear(f);
	p = msg + sprintf(msg, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
	    "\"ping\",\"params\":{\"a\":");
	for (i = 0; i < depth; i++)
		*p++ = '{', p += sprintf(p, "\"a\":");
	*p++ = '1';
	for (i = 0; i < depth + 2; i++)
		*p++ = '}';
	*p = '\0';
	mcp_server_input(f->srv, msg, strlen(msg));
	fake_wait(f, 1);
	fake_spin(f, 10);
	ck_assert_uint_eq(f->nsent, 1);
	free(msg);
	fake_free(f);
}
END_TEST

/* Return the binary under test. */
static const char *
bin(void)
{
	const char	*b = getenv("JOBDECK_BIN");

	return b != NULL && *b != '\0' ? b : "./jobdeck";
}

/* A process of the real binary on pipes. */
struct proc {
	pid_t	 pid;
	int	 in;		/* its stdin, or -1 */
	int	 out;		/* its stdout */
	char	*buf;
	size_t	 len;
};

/* Start bin ARGS (NULL-ended) with XDG_RUNTIME_DIR=run on pipes. */
static void
proc_start(struct proc *p, const char *run, const char *const *args)
{
	const char	*argv[16];
	int		 in[2], out[2], null;
	size_t		 n = 0;

	memset(p, 0, sizeof *p);
	argv[n++] = bin();
	while (*args != NULL && n < 15)
		argv[n++] = *args++;
	argv[n] = NULL;
	ck_assert_int_eq(pipe2(in, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(out, O_CLOEXEC), 0);
	p->pid = fork();
	ck_assert_int_ne(p->pid, -1);
	if (p->pid == 0) {
		null = open("/dev/null", O_WRONLY);
		dup2(in[0], 0);
		dup2(out[1], 1);
		if (getenv("CHECK_MCP_VERBOSE") == NULL)
			dup2(null, 2);
		setenv("XDG_RUNTIME_DIR", run, 1);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	p->in = in[1];
	p->out = out[0];
	signal(SIGPIPE, SIG_IGN);
}

/* Write all of buf to the process's stdin. */
static void
proc_write(struct proc *p, const char *buf, size_t len)
{
	ssize_t	n;

	while (len > 0) {
		n = write(p->in, buf, len);
		if (n == -1 && errno == EINTR)
			continue;
		ck_assert_msg(n > 0, "write: %s", strerror(errno));
		buf += n;
		len -= (size_t)n;
	}
}

/* Read the process's next line within ms (or fail); its text (static). */
static const char *
proc_line(struct proc *p, int ms)
{
	static char	*line;
	struct timespec	 ts;
	struct pollfd	 pfd = { .fd = p->out, .events = POLLIN };
	char		 tmp[65536], *nl;
	int64_t		 end;
	ssize_t		 n;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + ms;
	for (;;) {
		if (p->buf != NULL && (nl = memchr(p->buf, '\n', p->len))) {
			free(line);
			line = strndup(p->buf, (size_t)(nl - p->buf));
			p->len -= (size_t)(nl - p->buf) + 1;
			memmove(p->buf, nl + 1, p->len);
			return line;
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ck_assert_msg(ts.tv_sec * 1000 + ts.tv_nsec / 1000000 < end,
		    "no line from %s within %d ms", bin(), ms);
		if (poll(&pfd, 1, 50) <= 0)
			continue;
		n = read(p->out, tmp, sizeof tmp);
		ck_assert_msg(n > 0, "%s closed its stdout", bin());
		p->buf = realloc(p->buf, p->len + (size_t)n);
		memcpy(p->buf + p->len, tmp, (size_t)n);
		p->len += (size_t)n;
	}
}

/* Wait up to ms for the process to exit; its wait status, or -1. */
static int
proc_wait(struct proc *p, int ms)
{
	int	st, i;

	for (i = 0; i < ms / 10; i++) {
		if (waitpid(p->pid, &st, WNOHANG) == p->pid)
			return st;
		(void)poll(NULL, 0, 10);
	}
	return -1;
}

/* Close the process's pipes and reap it (killing it if it stays). */
static void
proc_end(struct proc *p)
{
	if (p->in != -1)
		close(p->in);
	if (p->out != -1)
		close(p->out);
	if (waitpid(p->pid, NULL, WNOHANG) == 0) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, NULL, 0);
	}
	free(p->buf);
}

/* Make a private runtime directory in dir (a mkdtemp template). */
static void
make_run(char *dir)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* Remove dir and what it holds. */
static void
rm_rf(const char *dir)
{
	char	cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Run `jobdeck ctl -S deck ARGS` beside the deck in run; its status. */
static int
ctl_status(const char *run, const char *deck, const char *args)
{
	char	cmd[PATH_MAX * 2];
	int	st;

	snprintf(cmd, sizeof cmd, "XDG_RUNTIME_DIR='%s' '%s' ctl -S %s %s "
	    ">/dev/null 2>&1 </dev/null", run, bin(), deck, args);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#define INIT_LINE "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"," \
	"\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}," \
	"\"clientInfo\":{\"name\":\"c-test\",\"version\":\"1\"}}}\n"

/*
 * The real binary: a line over MCP_LINE_MAX gets -32700 and the next line
 * is still served; EOF ends it with status 0.
 */
START_TEST(test_bin_long_line)
{
	const char	*args[] = { "mcp", "-S", "nodeck", NULL };
	char		 run[] = "/tmp/jd-mcp-unit.XXXXXX";
	struct proc	 p;
	const char	*l;
	char		*big;
	size_t		 n = MCP_LINE_MAX + 1024 * 1024;
	int		 st;

	make_run(run);
	proc_start(&p, run, args);
	proc_write(&p, INIT_LINE, strlen(INIT_LINE));
	l = proc_line(&p, WAIT_MS);
	ck_assert_msg(strstr(l, "\"result\"") != NULL, "%s", l);
	big = malloc(n + 1);
	ck_assert_ptr_nonnull(big);
	memset(big, 'a', n);
	memcpy(big, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"x\":\"",
	    45);
	big[n - 1] = '\n';
	proc_write(&p, big, n);
	free(big);
	l = proc_line(&p, WAIT_MS);
	ck_assert_msg(strstr(l, "-32700") != NULL, "%s", l);
	ck_assert_msg(strstr(l, "\"id\":null") != NULL, "%s", l);
	proc_write(&p, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\r\n",
	    42);
	l = proc_line(&p, WAIT_MS);
	ck_assert_msg(strstr(l, "\"id\":3") != NULL &&
	    strstr(l, "\"result\"") != NULL, "%s", l);
	close(p.in);
	p.in = -1;
	st = proc_wait(&p, WAIT_MS);
	ck_assert_msg(st != -1, "mcp still runs after EOF");
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	proc_end(&p);
	rm_rf(run);
}
END_TEST

/*
 * The real binary: a client that goes away (its ends of stdin and stdout
 * closed) while a call waits on the deck (terminal, async false, on a
 * sleep): mcp leaves promptly with status 0 and the deck lives on.  (A
 * client that only closes stdin is answered first: test_bin_eof_answers.)
 */
START_TEST(test_bin_disconnect)
{
	const char	*up[] = { "up", "--stay", "-S", "mcp-unit", NULL };
	const char	*mcp[] = { "mcp", "-S", "mcp-unit", NULL };
	static const char call[] = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
	    "\"tools/call\",\"params\":{\"name\":\"terminal\",\"arguments\":"
	    "{\"command\":\"sleep 300\",\"async\":false,\"timeout\":600}}}\n";
	char		 run[] = "/tmp/jd-mcp-unit.XXXXXX";
	struct proc	 deck, p;
	const char	*l;
	int		 st, i;

	make_run(run);
	proc_start(&deck, run, up);
	for (i = 0; ctl_status(run, "mcp-unit", "ps") != 0; i++) {
		ck_assert_msg(i < 100, "up --stay does not answer");
		(void)poll(NULL, 0, 100);
	}
	proc_start(&p, run, mcp);
	proc_write(&p, INIT_LINE, strlen(INIT_LINE));
	l = proc_line(&p, WAIT_MS);
	ck_assert_msg(strstr(l, "\"result\"") != NULL, "%s", l);
	proc_write(&p, call, strlen(call));
	/* The job runs, so the call waits on it. */
	for (i = 0; ctl_status(run, "mcp-unit", "status 1") != 0; i++) {
		ck_assert_msg(i < 100, "no job 1 in the deck");
		(void)poll(NULL, 0, 100);
	}
	(void)poll(NULL, 0, 300);
	ck_assert_msg(waitpid(p.pid, &st, WNOHANG) == 0, "mcp left early");
	close(p.in);
	p.in = -1;
	(void)poll(NULL, 0, 300);
	ck_assert_msg(waitpid(p.pid, &st, WNOHANG) == 0, "mcp left before "
	    "answering the call in flight");
	close(p.out);
	p.out = -1;
	st = proc_wait(&p, 3000);
	ck_assert_msg(st != -1, "mcp still runs 3 s after its client left");
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	proc_end(&p);
	ck_assert_msg(waitpid(deck.pid, &st, WNOHANG) == 0, "the deck left");
	ck_assert_int_eq(ctl_status(run, "mcp-unit", "ps"), 0);
	ck_assert_int_eq(ctl_status(run, "mcp-unit", "quit"), 0);
	st = proc_wait(&deck, WAIT_MS * 2);
	ck_assert_msg(st != -1, "the deck does not quit");
	proc_end(&deck);
	rm_rf(run);
}
END_TEST

/*
 * The real binary on a real deck: initialize, tools/list, a
 * terminal_job_list, a terminal call and a terminal call that waits
 * (async false) written at once and stdin closed: every one is answered
 * (only ids 1 and 2 were: the calls in flight at the end of stdin were
 * freed unanswered, though their jobs started), then stdout ends and mcp
 * exits 0.
 */
START_TEST(test_bin_eof_answers)
{
	const char	*up[] = { "up", "--stay", "-S", "mcp-eof", NULL };
	const char	*mcp[] = { "mcp", "-S", "mcp-eof", NULL };
	static const char reqs[] = INIT_LINE
	    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n"
	    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"terminal_job_list\",\"arguments\":{}}}\n"
	    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"terminal\",\"arguments\":"
	    "{\"command\":\"echo four\"}}}\n"
	    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"terminal\",\"arguments\":"
	    "{\"command\":\"sleep 1; echo five\",\"async\":false}}}\n";
	char		 run[] = "/tmp/jd-mcp-unit.XXXXXX", tmp[256];
	struct proc	 deck, p;
	struct jsonread	*j;
	const char	*l;
	char		*cause = NULL;
	struct pollfd	 pfd;
	int		 st, i, seen[6] = { 0 }, id;

	make_run(run);
	proc_start(&deck, run, up);
	for (i = 0; ctl_status(run, "mcp-eof", "ps") != 0; i++) {
		ck_assert_msg(i < 100, "up --stay does not answer");
		(void)poll(NULL, 0, 100);
	}
	proc_start(&p, run, mcp);
	proc_write(&p, reqs, strlen(reqs));
	close(p.in);
	p.in = -1;
	pfd.fd = p.out;
	pfd.events = POLLIN;
	for (i = 0; i < 5; i++) {
		l = proc_line(&p, WAIT_MS * 2);
		j = jsonread_parse(l, strlen(l), &cause);
		ck_assert_msg(j != NULL, "%s: %s", cause, l);
		id = (int)jsonread_number(jsonread_get(j, "id"));
		ck_assert_msg(id >= 1 && id <= 5 && !seen[id], "%s", l);
		seen[id] = 1;
		ck_assert_msg(jsonread_get(j, "error") == NULL, "%s", l);
		ck_assert_msg(jsonread_bool(jsonread_get(jsonread_get(j,
		    "result"), "isError")) != 1, "%s", l);
		if (id == 5)
			ck_assert_msg(strstr(l, "five") != NULL, "%s", l);
		jsonread_free(j);
	}
	/* Then the end: stdout closes, status 0. */
	ck_assert_uint_eq(p.len, 0);
	ck_assert_msg(poll(&pfd, 1, WAIT_MS * 2) == 1, "stdout stays open");
	ck_assert_int_eq(read(p.out, tmp, sizeof tmp), 0);
	st = proc_wait(&p, WAIT_MS);
	ck_assert_msg(st != -1, "mcp still runs after its last answer");
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	proc_end(&p);
	ck_assert_int_eq(ctl_status(run, "mcp-eof", "quit"), 0);
	st = proc_wait(&deck, WAIT_MS * 2);
	ck_assert_msg(st != -1, "the deck does not quit");
	proc_end(&deck);
	rm_rf(run);
}
END_TEST

/* Make the suite. */
/* ---- review 2 of issue 15 ---- */

/*
 * A NUL inside a string that becomes a word for the deck (command, cwd,
 * env, args, params, a job's name) is refused before the deck is asked:
 * the word would be cut at the NUL ("echo hi\0; rm x" ran "echo hi").
 * Text that is escaped for the deck (send's text, run's input_data)
 * keeps its NULs.
 */
START_TEST(test_r2_nul_in_words)
{
	static const char *const calls[][2] = {
		{ "terminal", "{\"command\":\"echo hi\\u0000; rm x\"}" },
		{ "terminal", "{\"command\":\"true\",\"cwd\":\"/tmp\\u0000x\"}" },
		{ "terminal", "{\"command\":\"true\",\"env\":{\"A\":"
		    "\"1\\u00002\"}}" },
		{ "run", "{\"command\":\"echo\\u0000x\"}" },
		{ "run", "{\"command\":\"echo\",\"args\":[\"a\\u0000b\"]}" },
		{ "run", "{\"command\":\"echo\",\"args\":[\"{p}\"],"
		    "\"params\":{\"p\":\"a\\u0000b\"}}" },
		{ "terminal_job_status", "{\"job_id\":\"a\\u0000b\"}" },
		{ "terminal_screen", "{\"job_id\":\"a\\u0000b\"}" },
	};
	struct fake		*f = fake_new(0);
	const struct jsonread	*r;
	struct jsonread		*j;
	size_t			 i;

	fake_init(f);
	fake_script(f, "spawn", 0, -1, job_json(7, "running", "echo hi",
	    "null"));
	for (i = 0; i < sizeof calls / sizeof calls[0]; i++) {
		j = call_tool(f, (int)i + 1, calls[i][0], calls[i][1], 1, &r);
		ck_assert_msg(strstr(result_text(r), "NUL") != NULL,
		    "%s %s: %s", calls[i][0], calls[i][1], result_text(r));
		ck_assert_msg(f->nreqs == 0, "%s %s: the deck was asked: %s",
		    calls[i][0], calls[i][1], req_words(f, 0));
		jsonread_free(j);
	}
	fake_script(f, "send", 0, -1, "");
	j = call_tool(f, 20, "terminal_send_input", "{\"job_id\":4,\"text\":"
	    "\"a\\u0000b\"}", 0, &r);
	ck_assert_msg(strcasecmp(req_words(f, 0), "send|4|--|a\\x00b") == 0,
	    "%s", req_words(f, 0));
	jsonread_free(j);
	fake_free(f);
}
END_TEST

/*
 * A job_id string is an id or a job's name, never an option of the
 * deck's command: "--split" reached `status` as its option.
 */
START_TEST(test_job_id_not_option)
{
	static const char *const tools[] = {
		"terminal_job_status", "terminal_screen", "terminal_job_cancel"
	};
	struct fake		*f = fake_new(0);
	const struct jsonread	*r;
	struct jsonread		*j;
	size_t			 i;

	fake_init(f);
	for (i = 0; i < sizeof tools / sizeof tools[0]; i++) {
		j = call_tool(f, (int)i + 1, tools[i],
		    "{\"job_id\":\"--split\"}", 1, &r);
		ck_assert_msg(strstr(result_text(r), "job_id") != NULL &&
		    strstr(result_text(r), "'-'") != NULL, "%s: %s",
		    tools[i], result_text(r));
		ck_assert_msg(f->nreqs == 0, "%s: the deck was asked: %s",
		    tools[i], req_words(f, 0));
		jsonread_free(j);
	}
	fake_free(f);
}
END_TEST

/*
 * run's text names how much of a cut stream it gives without a whole
 * size the deck no longer sends (status --split dropped stdout_bytes):
 * it said "the first 65536 bytes of -1".
 */
START_TEST(test_r2_run_cut_note)
{
	struct fake		*f = fake_new(0);
	const struct jsonread	*r, *sc;
	struct jsonread		*j;
	char			 split[16384];

	fake_init(f);
	fake_script(f, "spawn", 0, -1, job_json(8, "running", "yes", "null"));
	snprintf(split, sizeof split, "[%s]", job_json(8, "completed", "yes",
	    "0"));
	fake_script(f, "wait", 0, 0, split);
	snprintf(split, sizeof split, "%s", job_json(8, "completed", "yes",
	    "0"));
	snprintf(split + strlen(split) - 1, sizeof split - strlen(split) + 1,
	    ",\"output\":\"\",\"stdout\":\"y\\ny\\n\",\"stderr\":\"e\\n\","
	    "\"stdout_truncated\":true,\"stderr_truncated\":false}");
	fake_script(f, "status", 0, -1, split);
	j = call_tool(f, 1, "run", "{\"command\":\"yes\"}", 0, &r);
	sc = jsonread_get(r, "structuredContent");
	ck_assert_int_eq(jsonread_bool(jsonread_get(sc, "stdout_truncated")),
	    1);
	ck_assert_msg(strstr(result_text(r), "-1") == NULL, "%s",
	    result_text(r));
	ck_assert_msg(strstr(result_text(r), "stdout: the first") != NULL,
	    "%s", result_text(r));
	jsonread_free(j);
	fake_free(f);
}
END_TEST

/* Review 2's cases. */
static void
mcp_suite_review2(TCase *tt)
{
	tcase_add_test(tt, test_r2_nul_in_words);
	tcase_add_test(tt, test_r2_run_cut_note);
	tcase_add_test(tt, test_job_id_not_option);
	tcase_add_test(tt, test_list_bounded);
}

static Suite *
mcp_suite(void)
{
	Suite	*s = suite_create("mcp");
	TCase	*tc = tcase_create("protocol");
	TCase	*tt = tcase_create("tools");
	TCase	*tb = tcase_create("binary");

	tcase_add_test(tc, test_not_json);
	tcase_add_test(tc, test_not_request);
	tcase_add_test(tc, test_bad_envelope);
	tcase_add_test(tc, test_bad_id);
	tcase_add_test(tc, test_ping);
	tcase_add_test(tc, test_unknown_method);
	tcase_add_test(tc, test_notifications);
	tcase_add_test(tc, test_not_initialized);
	tcase_add_test(tc, test_negotiate);
	tcase_add_test(tc, test_list_full);
	tcase_add_test(tc, test_list_read_only);
	tcase_add_test(tc, test_huge);
	tcase_add_test(tc, test_deep);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	tcase_add_test(tt, test_unknown_tool);
	tcase_add_test(tt, test_wrong_types);
	tcase_add_test(tt, test_timeout_zero);
	tcase_add_test(tt, test_missing_unknown);
	tcase_add_test(tt, test_out_of_range);
	tcase_add_test(tt, test_read_only_refusal);
	tcase_add_test(tt, test_deck_gone);
	tcase_add_test(tt, test_deck_refuses);
	tcase_add_test(tt, test_cancelled);
	tcase_add_test(tt, test_free_in_flight);
	tcase_add_test(tt, test_calls_bounded);
	tcase_add_test(tt, test_words_terminal);
	tcase_add_test(tt, test_words_terminal_wait);
	tcase_add_test(tt, test_words_status);
	tcase_add_test(tt, test_status_damaged);
	tcase_add_test(tt, test_words_list_screen);
	tcase_add_test(tt, test_words_list_input);
	tcase_add_test(tt, test_words_terminal_input);
	tcase_add_test(tt, test_words_cancel);
	tcase_add_test(tt, test_words_send);
	tcase_add_test(tt, test_words_run);
	tcase_add_test(tt, test_words_host);
	tcase_add_test(tt, test_run_codes);
	tcase_add_test(tt, test_words_reload);
	tcase_add_test(tt, test_reload_errors);
	tcase_add_test(tt, test_words_scale);
	tcase_add_test(tt, test_change_words);
	mcp_suite_review2(tt);
	tcase_set_timeout(tt, 30);
	suite_add_tcase(s, tt);
	tcase_add_test(tb, test_bin_long_line);
	tcase_add_test(tb, test_bin_disconnect);
	tcase_add_test(tb, test_bin_eof_answers);
	tcase_set_timeout(tb, 60);
	suite_add_tcase(s, tb);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr;
	int	 failed;

	sr = srunner_create(mcp_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
