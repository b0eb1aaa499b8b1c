/*
 * fuzz_mcp.c: fuzz target for the MCP server (mcp.h) and its tools
 * (mcp-private.h) on a fake deck.  The input is two parts split at the
 * first "\n\036\n": the client's messages, one a line, then the deck's
 * replies, each ended by "\036": a first byte for the status ('0', '1',
 * '2', anything else -1) and the body after it.  Each deck request the
 * tools make takes the next reply, from the loop; when the replies run
 * out the deck is gone (status -1), so every call ends.
 *
 * Invariants: every message the server sends is one JSON object of
 * JSON-RPC 2.0 with an id and exactly one of result and error; an id is
 * never answered more often than messages carried it; every request by
 * the book ("jsonrpc": "2.0", a method, a string or integer id), unless
 * notifications/cancelled named its id, is answered once the replies
 * came; a request the server cancelled
 * never gets its reply; nothing leaks (ASan).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "jsonval.h"
#include "loop.h"
#include "mcp.h"
#include "mcp-private.h"

#define FUZZ_MCP_MAX_IDS	256	/* ids kept track of */
#define FUZZ_MCP_MAX_REQS	256	/* deck requests of one input */
#define FUZZ_MCP_TURNS		20000	/* loop turns before giving up */

/* A deck request in flight. */
struct fuzz_mcp_req {
	struct fuzz_mcp	*f;
	mcp_reply_cb	*done;
	void		*cb_arg;
	uint64_t	 timer;
	int		 cancelled;
	int		 answered;
};

/* An id as JSON text, asked and answered how many times. */
struct fuzz_mcp_id {
	char	*text;
	int	 asked;	/* requests by the book: each must be answered */
	int	 may;	/* messages with this id: at most this many answers */
	int	 answered;
	int	 cancelled;
};

/* The state of one input. */
struct fuzz_mcp {
	struct loop		*loop;
	const char		*replies;
	size_t			 rlen;
	struct fuzz_mcp_req	*reqs[FUZZ_MCP_MAX_REQS];
	size_t			 nreqs;
	struct fuzz_mcp_id	 ids[FUZZ_MCP_MAX_IDS];
	size_t			 nids;
	int			 overflow;	/* too many ids to check */
};

/* Return the id entry for text, made when missing (NULL: no room). */
static struct fuzz_mcp_id *
fuzz_mcp_id(struct fuzz_mcp *f, const char *text)
{
	size_t	i;

	for (i = 0; i < f->nids; i++) {
		if (strcmp(f->ids[i].text, text) == 0)
			return &f->ids[i];
	}
	if (f->nids == FUZZ_MCP_MAX_IDS) {
		f->overflow = 1;
		return NULL;
	}
	f->ids[f->nids].text = strdup(text);
	if (f->ids[f->nids].text == NULL)
		abort();
	return &f->ids[f->nids++];
}

/*
 * Write id (a string or an integer) as the JSON text the server echoes
 * into buf; 0, or -1 when it is neither.
 */
static int
fuzz_mcp_id_text(const struct jsonval *id, char *buf, size_t size)
{
	const char	*s;
	size_t		 i, n;
	int64_t		 v;

	if (jsonval_type(id) == JSONVAL_STRING) {
		s = jsonval_string(id);
		n = jsonval_string_len(id);
		if (n + 3 > size)
			return -1;
		buf[0] = 's';
		for (i = 0; i < n; i++)
			buf[i + 1] = s[i] == '\0' ? '\001' : s[i];
		buf[n + 1] = '\0';
		return 0;
	}
	if (jsonval_type(id) == JSONVAL_INT && jsonval_int(id, &v) == 0) {
		snprintf(buf, size, "i%lld", (long long)v);
		return 0;
	}
	return -1;
}

/* The io's send: check the message and count its id's answer. */
static void
fuzz_mcp_send(const char *msg, size_t len, void *arg)
{
	struct fuzz_mcp		*f = arg;
	struct fuzz_mcp_id	*e;
	struct jsonval		*v;
	const struct jsonval	*id;
	const char		*rpc;
	char			*cause = NULL, text[4096];

	if (memchr(msg, '\n', len) != NULL)
		abort();
	if ((v = jsonval_parse(msg, len, &cause)) == NULL)
		abort();
	if (jsonval_type(v) != JSONVAL_OBJECT)
		abort();
	rpc = jsonval_get_string(v, "jsonrpc");
	if (rpc == NULL || strcmp(rpc, "2.0") != 0)
		abort();
	if ((jsonval_get(v, "result") == NULL) ==
	    (jsonval_get(v, "error") == NULL))
		abort();
	if ((id = jsonval_get(v, "id")) == NULL)
		abort();
	if (jsonval_type(id) != JSONVAL_NULL) {
		if (fuzz_mcp_id_text(id, text, sizeof text) != 0)
			abort();
		if ((e = fuzz_mcp_id(f, text)) != NULL) {
			if (!f->overflow && ++e->answered > e->may)
				abort();
		}
	}
	jsonval_free(v);
}

/* Take the next reply of the input: its status and body. */
static void
fuzz_mcp_next(struct fuzz_mcp *f, struct mcp_reply *r)
{
	const char	*end;
	size_t		 n, used;

	r->exit = -1;
	r->status = -1;
	if (f->rlen == 0) {
		r->body = "fuzz: the deck is gone";
		r->len = strlen(r->body);
		return;
	}
	end = memchr(f->replies, '\036', f->rlen);
	n = end != NULL ? (size_t)(end - f->replies) : f->rlen;
	if (n > 0 && f->replies[0] >= '0' && f->replies[0] <= '2') {
		r->status = f->replies[0] - '0';
		r->exit = r->status == 0 ? 0 : -1;
	}
	r->body = f->replies + (n > 0 ? 1 : 0);
	r->len = n > 0 ? n - 1 : 0;
	used = n + (end != NULL ? 1 : 0);
	f->replies += used;
	f->rlen -= used;
}

/* Answer a request from the next reply. */
static void
fuzz_mcp_answer(void *arg)
{
	struct fuzz_mcp_req	*q = arg;
	struct mcp_reply	 r;
	char			*copy;

	q->timer = 0;
	if (q->cancelled || q->answered)
		abort();
	q->answered = 1;
	fuzz_mcp_next(q->f, &r);
	/* A body of its own, so reads past it are caught. */
	if ((copy = malloc(r.len + 1)) == NULL)
		abort();
	memcpy(copy, r.body, r.len);
	copy[r.len] = '\0';
	r.body = copy;
	q->done(&r, q->cb_arg);
	free(copy);
}

/* The io's start: answer from the loop. */
static struct mcp_request *
fuzz_mcp_start(char *const *words, int flags, mcp_reply_cb *done,
    void *cb_arg, void *arg)
{
	struct fuzz_mcp		*f = arg;
	struct fuzz_mcp_req	*q;

	(void)flags;
	if (words == NULL || words[0] == NULL)
		abort();
	if (f->nreqs == FUZZ_MCP_MAX_REQS)
		return NULL;
	if ((q = calloc(1, sizeof *q)) == NULL)
		abort();
	q->f = f;
	q->done = done;
	q->cb_arg = cb_arg;
	q->timer = loop_add_timer(f->loop, 0, fuzz_mcp_answer, q);
	f->reqs[f->nreqs++] = q;
	return (struct mcp_request *)q;
}

/* The io's cancel. */
static void
fuzz_mcp_cancel(struct mcp_request *req, void *arg)
{
	struct fuzz_mcp_req	*q = (struct fuzz_mcp_req *)req;
	struct fuzz_mcp		*f = arg;

	if (q->cancelled || q->answered)
		abort();
	q->cancelled = 1;
	loop_cancel_timer(f->loop, q->timer);
	q->timer = 0;
}

static const struct mcp_io fuzz_mcp_io = {
	fuzz_mcp_send, fuzz_mcp_start, fuzz_mcp_cancel, NULL
};

/* Note what a client's message asks: a request's id, a cancellation. */
static void
fuzz_mcp_note(struct fuzz_mcp *f, const char *msg, size_t len)
{
	struct jsonval		*v;
	const struct jsonval	*id, *params;
	struct fuzz_mcp_id	*e;
	const char		*method, *rpc;
	char			*cause = NULL, text[4096];

	if ((v = jsonval_parse(msg, len, &cause)) == NULL) {
		free(cause);
		return;
	}
	if (jsonval_type(v) != JSONVAL_OBJECT)
		goto out;
	method = jsonval_get_string(v, "method");
	id = jsonval_get(v, "id");
	if (method != NULL && strcmp(method, "notifications/cancelled") == 0 &&
	    id == NULL) {
		params = jsonval_get(v, "params");
		if (fuzz_mcp_id_text(jsonval_get(params, "requestId"), text,
		    sizeof text) == 0 && (e = fuzz_mcp_id(f, text)) != NULL)
			e->cancelled = 1;
	}
	if (id == NULL || fuzz_mcp_id_text(id, text, sizeof text) != 0 ||
	    (e = fuzz_mcp_id(f, text)) == NULL)
		goto out;
	/* Any message with an id may be answered with it (an error)... */
	e->may++;
	/* ...and a request by the book must be. */
	rpc = jsonval_get_string(v, "jsonrpc");
	if (method != NULL && rpc != NULL && strcmp(rpc, "2.0") == 0 &&
	    jsonval_get(v, "result") == NULL &&
	    jsonval_get(v, "error") == NULL)
		e->asked++;
out:
	jsonval_free(v);
}

/* Take one input. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcp_opts		 opts = { 0, "fuzz" };
	struct fuzz_mcp		 f;
	struct mcp_server	*srv;
	const char		*p = (const char *)data, *end, *nl, *split;
	size_t			 i, turns;

	memset(&f, 0, sizeof f);
	split = memmem(p, size, "\n\036\n", 3);
	end = split != NULL ? split : p + size;
	if (split != NULL) {
		f.replies = split + 3;
		f.rlen = size - (size_t)(split + 3 - p);
	}
	/* A first byte 'R' asks for the read-only profile. */
	if (p < end && *p == 'R') {
		opts.read_only = 1;
		p++;
	}
	if ((f.loop = loop_new()) == NULL)
		abort();
	srv = mcp_server_new(f.loop, &opts, &fuzz_mcp_io, &f);
	if (srv == NULL)
		abort();
	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		fuzz_mcp_note(&f, p, (size_t)(nl - p));
		mcp_server_input(srv, p, (size_t)(nl - p));
		loop_run_once(f.loop, 0);
	}
	for (turns = 0; turns < FUZZ_MCP_TURNS; turns++) {
		for (i = 0; i < f.nreqs; i++) {
			if (!f.reqs[i]->answered && !f.reqs[i]->cancelled)
				break;
		}
		if (i == f.nreqs)
			break;
		loop_run_once(f.loop, 1);
	}
	if (turns == FUZZ_MCP_TURNS)
		abort();
	/* Everything asked and not cancelled was answered. */
	for (i = 0; i < f.nids && !f.overflow; i++) {
		if (!f.ids[i].cancelled && f.ids[i].answered <
		    f.ids[i].asked && f.nreqs < FUZZ_MCP_MAX_REQS)
			abort();
	}
	mcp_server_free(srv);
	for (i = 0; i < f.nreqs; i++) {
		if (f.reqs[i]->timer != 0)
			abort();
		free(f.reqs[i]);
	}
	for (i = 0; i < f.nids; i++)
		free(f.ids[i].text);
	loop_free(f.loop);
	return 0;
}
