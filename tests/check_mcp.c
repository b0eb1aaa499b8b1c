/*
 * check_mcp.c: the MCP server in process on a fake deck: the io records
 * every message sent and every deck request started and cancelled.
 * These are the protocol's cases (errors, the handshake, notifications,
 * the tools' checks, calls freed by a cancel or by the server's end);
 * the tools themselves are driven end to end by check_mcp_e2e.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "jsonread.h"
#include "loop.h"
#include "mcp.h"
#include "../src/mcp-private.h"
#include "skip.h"
#include "xmalloc.h"

#define FAKE_MAX	64

/* A deck request the fake io took. */
struct mcp_request {
	char	*words;		/* the words, space-separated */
	int	 cancelled;
};

/* The fake world: what was sent, what was asked of the deck. */
struct fake {
	char			*sent[FAKE_MAX];
	size_t			 nsent;
	struct mcp_request	*reqs[FAKE_MAX];
	size_t			 nreqs;
	size_t			 ncancelled;
	int			 quit;
};

/* The io's send: keep a copy; each message must be one line of JSON. */
static void
fake_send(const char *msg, size_t len, void *arg)
{
	struct fake	*f = arg;
	struct jsonread	*j;
	char		*cause = NULL;

	ck_assert_msg(memchr(msg, '\n', len) == NULL, "a newline in: %.*s",
	    (int)len, msg);
	j = jsonread_parse(msg, len, &cause);
	ck_assert_msg(j != NULL, "not JSON (%s): %.*s", cause, (int)len, msg);
	jsonread_free(j);
	ck_assert_uint_lt(f->nsent, FAKE_MAX);
	f->sent[f->nsent++] = xstrndup(msg, len);
}

/* The io's start: record the words; the reply never comes by itself. */
static struct mcp_request *
fake_start(char *const *words, int json, mcp_reply_cb *done, void *cb_arg,
    void *arg)
{
	struct fake		*f = arg;
	struct mcp_request	*r;
	char			*s = xstrdup(json ? "--json" : ""), *n;

	(void)done;
	(void)cb_arg;
	for (; *words != NULL; words++) {
		n = xprintf("%s%s%s", s, *s != '\0' ? " " : "", *words);
		free(s);
		s = n;
	}
	r = xcalloc(1, sizeof *r);
	r->words = s;
	ck_assert_uint_lt(f->nreqs, FAKE_MAX);
	f->reqs[f->nreqs++] = r;
	return r;
}

/* The io's cancel. */
static void
fake_cancel(struct mcp_request *r, void *arg)
{
	struct fake	*f = arg;

	ck_assert_int_eq(r->cancelled, 0);
	r->cancelled = 1;
	f->ncancelled++;
}

/* The io's quit. */
static void
fake_quit(void *arg)
{
	((struct fake *)arg)->quit++;
}

static const struct mcp_io fake_io = {
	fake_send, fake_start, fake_cancel, fake_quit
};

static struct loop	*loop;
static struct fake	 fake;

/* A server on the fake io. */
static struct mcp_server *
server(int read_only)
{
	struct mcp_opts	opts = { read_only, "test" };

	memset(&fake, 0, sizeof fake);
	loop = loop_new();
	return mcp_server_new(loop, &opts, &fake_io, &fake);
}

/* Free the server and what the fake kept. */
static void
server_free(struct mcp_server *srv)
{
	size_t	i;

	mcp_server_free(srv);
	for (i = 0; i < fake.nsent; i++)
		free(fake.sent[i]);
	for (i = 0; i < fake.nreqs; i++) {
		free(fake.reqs[i]->words);
		free(fake.reqs[i]);
	}
	loop_free(loop);
}

/* Give the server one message. */
static void
input(struct mcp_server *srv, const char *msg)
{
	mcp_server_input(srv, msg, strlen(msg));
}

/* Assert that message i was sent and holds text. */
static void
sent_has(size_t i, const char *text)
{
	ck_assert_msg(i < fake.nsent, "message %zu never came (%zu sent)", i,
	    fake.nsent);
	ck_assert_msg(strstr(fake.sent[i], text) != NULL, "message %zu: "
	    "no '%s' in %s", i, text, fake.sent[i]);
}

/* Initialize srv and forget the answer. */
static void
handshake(struct mcp_server *srv)
{
	input(srv, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
	    "\"params\":{\"protocolVersion\":\"2025-06-18\",\"clientInfo\":"
	    "{\"name\":\"c\\u0001t\"}}}");
	ck_assert_uint_eq(fake.nsent, 1);
	sent_has(0, "\"protocolVersion\":\"2025-06-18\"");
	free(fake.sent[0]);
	fake.nsent = 0;
}

/* Find a tool the read-only profile does not list, or NULL. */
static const struct mcp_tool *
writing_tool(void)
{
	const struct mcp_tool	*t;

	for (t = mcp_tools; t->name != NULL; t++) {
		if (!t->read_only)
			return t;
	}
	return NULL;
}

START_TEST(test_parse_error)
{
	struct mcp_server	*srv = server(0);

	input(srv, "{\"jsonrpc\":\"2.0\",");
	input(srv, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]");
	input(srv, "\"ping\"");
	ck_assert_uint_eq(fake.nsent, 3);
	sent_has(0, "\"id\":null,\"error\":{\"code\":-32700,");
	sent_has(0, "parse error: 1:");
	sent_has(1, "{\"code\":-32600,\"message\":\"batches are not "
	    "supported\"}");
	sent_has(2, "-32600");
	server_free(srv);
}
END_TEST

START_TEST(test_invalid_requests)
{
	struct mcp_server	*srv = server(0);

	input(srv, "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}");
	input(srv, "{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}");
	input(srv, "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}");
	input(srv, "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":7}");
	ck_assert_uint_eq(fake.nsent, 4);
	sent_has(0, "\"id\":1,\"error\":{\"code\":-32600,");
	sent_has(1, "\"id\":null,\"error\":{\"code\":-32600,");
	sent_has(2, "\"id\":null,\"error\":{\"code\":-32600,");
	sent_has(3, "\"id\":\"a\",\"error\":{\"code\":-32600,");
	server_free(srv);
}
END_TEST

START_TEST(test_notifications_unanswered)
{
	struct mcp_server	*srv = server(0);

	input(srv, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
	    "initialized\"}");
	input(srv, "{\"jsonrpc\":\"2.0\",\"method\":\"frob\"}");
	input(srv, "{\"jsonrpc\":\"1.0\",\"method\":\"frob\"}");
	input(srv, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
	    "cancelled\",\"params\":{\"requestId\":99}}");
	input(srv, "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}");
	input(srv, "{\"jsonrpc\":\"2.0\",\"id\":6,\"error\":{\"code\":1,"
	    "\"message\":\"x\"}}");
	ck_assert_uint_eq(fake.nsent, 0);
	server_free(srv);
}
END_TEST

START_TEST(test_handshake)
{
	struct mcp_server	*srv = server(0);

	input(srv, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
	input(srv, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
	input(srv, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"initialize\","
	    "\"params\":{\"protocolVersion\":\"1999-01-01\"}}");
	input(srv, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"initialize\","
	    "\"params\":{\"protocolVersion\":\"2025-03-26\"}}");
	input(srv, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"frob\"}");
	input(srv, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/list\","
	    "\"params\":{\"cursor\":\"x\"}}");
	ck_assert_uint_eq(fake.nsent, 6);
	sent_has(0, "{\"code\":-32600,\"message\":\"not initialized");
	sent_has(1, "\"id\":2,\"result\":{}");
	sent_has(2, "\"protocolVersion\":\"2025-11-25\"");
	sent_has(2, "\"capabilities\":{\"tools\":{\"listChanged\":false}}");
	sent_has(2, "\"name\":\"jobdeck\"");
	sent_has(2, "\"instructions\":");
	sent_has(3, "\"protocolVersion\":\"2025-03-26\"");
	sent_has(4, "{\"code\":-32601,\"message\":\"method not found: "
	    "frob\"}");
	sent_has(5, "\"id\":6,\"error\":{\"code\":-32602,");
	server_free(srv);
}
END_TEST

START_TEST(test_tools_list)
{
	struct mcp_server	*srv;
	const struct mcp_tool	*t;
	struct jsonread		*j;
	size_t			 all = 0, ro = 0;
	char			*cause = NULL;

	for (t = mcp_tools; t->name != NULL; t++) {
		all++;
		ro += t->read_only != 0;
	}
	srv = server(0);
	handshake(srv);
	input(srv, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
	ck_assert_uint_eq(fake.nsent, 1);
	j = jsonread_parse(fake.sent[0], strlen(fake.sent[0]), &cause);
	ck_assert_uint_eq(jsonread_count(jsonread_get(jsonread_get(j,
	    "result"), "tools")), all);
	jsonread_free(j);
	server_free(srv);

	srv = server(1);
	handshake(srv);
	input(srv, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
	j = jsonread_parse(fake.sent[0], strlen(fake.sent[0]), &cause);
	ck_assert_uint_eq(jsonread_count(jsonread_get(jsonread_get(j,
	    "result"), "tools")), ro);
	jsonread_free(j);
	server_free(srv);
}
END_TEST

START_TEST(test_unknown_and_refused_tools)
{
	struct mcp_server	*srv = server(1);
	const struct mcp_tool	*t = writing_tool();
	char			*msg;

	handshake(srv);
	input(srv, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"nope\"}}");
	input(srv, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
	    "\"params\":{}}");
	sent_has(0, "{\"code\":-32602,\"message\":\"unknown tool: nope\"}");
	sent_has(1, "-32602");
	if (t != NULL) {
		msg = xprintf("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
		    "\"tools/call\",\"params\":{\"name\":\"%s\",\"arguments\":"
		    "{}}}", t->name);
		input(srv, msg);
		free(msg);
		sent_has(2, "{\"code\":-32602,\"message\":\"not available in "
		    "read-only mode: ");
		ck_assert_uint_eq(fake.nreqs, 0);
	}
	server_free(srv);
}
END_TEST

START_TEST(test_argument_checks)
{
	struct mcp_server	*srv;
	const struct mcp_tool	*t;
	const struct mcp_param	*p = NULL, *q;
	char			*msg, *want;

	/* A tool that needs no argument and takes a number. */
	for (t = mcp_tools; t->name != NULL; t++) {
		p = NULL;
		for (q = t->params; q != NULL && q->name != NULL; q++) {
			if (q->required)
				break;
			if (p == NULL && (q->type == MCP_INTEGER ||
			    q->type == MCP_NUMBER))
				p = q;
		}
		if (p != NULL && (q == NULL || q->name == NULL))
			break;
	}
	if (t->name == NULL)
		TEST_SKIP("no tool without required arguments takes a number");
	srv = server(0);
	handshake(srv);
	msg = xprintf("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"%s\",\"arguments\":{\"%s\":\"x\"}}}",
	    t->name, p->name);
	input(srv, msg);
	free(msg);
	msg = xprintf("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"%s\",\"arguments\":{\"no_such_arg\":1}}}",
	    t->name);
	input(srv, msg);
	free(msg);
	ck_assert_uint_eq(fake.nsent, 2);
	want = xprintf("%s: expected %s, got string", p->name,
	    p->type == MCP_INTEGER ? "an integer" : "a number");
	sent_has(0, want);
	free(want);
	sent_has(0, "\"isError\":true");
	sent_has(1, "unknown parameter: no_such_arg");
	sent_has(1, "\"isError\":true");
	ck_assert_uint_eq(fake.nreqs, 0);	/* the tool never ran */
	server_free(srv);
}
END_TEST

/* Start a call of the first read-only tool without required params. */
static int
start_call(struct mcp_server *srv, int id)
{
	const struct mcp_tool	*t;
	const struct mcp_param	*p;
	char			*msg;

	for (t = mcp_tools; t->name != NULL; t++) {
		for (p = t->params; p != NULL && p->name != NULL; p++) {
			if (p->required)
				break;
		}
		if (t->read_only && (p == NULL || p->name == NULL))
			break;
	}
	if (t->name == NULL)
		return -1;
	msg = xprintf("{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/"
	    "call\",\"params\":{\"name\":\"%s\",\"arguments\":{}}}", id,
	    t->name);
	input(srv, msg);
	free(msg);
	return fake.nreqs > 0 ? 0 : -1;
}

START_TEST(test_cancelled_call)
{
	struct mcp_server	*srv = server(0);

	handshake(srv);
	if (start_call(srv, 7) != 0) {
		server_free(srv);
		TEST_SKIP("no read-only tool without arguments asks the deck");
	}
	ck_assert_uint_eq(fake.ncancelled, 0);
	input(srv, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
	    "cancelled\",\"params\":{\"requestId\":\"7\"}}");
	ck_assert_uint_eq(fake.ncancelled, 0);	/* "7" is not 7 */
	input(srv, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
	    "cancelled\",\"params\":{\"requestId\":7}}");
	ck_assert_uint_eq(fake.ncancelled, fake.nreqs);
	ck_assert_uint_eq(fake.nsent, 0);	/* never answered */
	server_free(srv);
}
END_TEST

START_TEST(test_disconnect_mid_call)
{
	struct mcp_server	*srv = server(0);
	size_t			 n;

	handshake(srv);
	if (start_call(srv, 1) != 0 || start_call(srv, 2) != 0) {
		server_free(srv);
		TEST_SKIP("no read-only tool without arguments asks the deck");
	}
	n = fake.nreqs;
	ck_assert_uint_ge(n, 2);
	mcp_server_free(srv);	/* the client went away */
	ck_assert_uint_eq(fake.ncancelled, n);
	ck_assert_uint_eq(fake.nsent, 0);
	ck_assert_int_eq(fake.quit, 1);
	for (n = 0; n < fake.nreqs; n++) {
		free(fake.reqs[n]->words);
		free(fake.reqs[n]);
	}
	loop_free(loop);
}
END_TEST

START_TEST(test_huge_message)
{
	struct mcp_server	*srv = server(0);
	char			*big;
	size_t			 len = (size_t)MCP_LINE_MAX + 1;

	big = xmalloc(len);
	memset(big, ' ', len);
	mcp_server_input(srv, big, len);
	free(big);
	ck_assert_uint_eq(fake.nsent, 1);
	sent_has(0, "\"id\":null,\"error\":{\"code\":-32700,\"message\":"
	    "\"parse error: message over 4 MiB\"}");
	server_free(srv);
}
END_TEST

/* Make the suite. */
static Suite *
mcp_suite(void)
{
	Suite	*s = suite_create("mcp");
	TCase	*tc = tcase_create("mcp");

	tcase_add_test(tc, test_parse_error);
	tcase_add_test(tc, test_invalid_requests);
	tcase_add_test(tc, test_notifications_unanswered);
	tcase_add_test(tc, test_handshake);
	tcase_add_test(tc, test_tools_list);
	tcase_add_test(tc, test_unknown_and_refused_tools);
	tcase_add_test(tc, test_argument_checks);
	tcase_add_test(tc, test_cancelled_call);
	tcase_add_test(tc, test_disconnect_mid_call);
	tcase_add_test(tc, test_huge_message);
	suite_add_tcase(s, tc);
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
