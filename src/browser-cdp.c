/*
 * browser-cdp.c: the DevTools endpoint of the deck's browser asked
 * (browser-private.h): /json/version over http.h, until it answers while
 * starting and every BROWSER_CHECK_MS once ready; its answer checked (a
 * webSocketDebuggerUrl at the host and port asked) and the browser made
 * READY.
 */

#include <stdlib.h>
#include <string.h>

#include "browser-private.h"
#include "browser.h"
#include "debuglog.h"
#include "hostport.h"
#include "http.h"
#include "jsonval.h"
#include "loop.h"
#include "xmalloc.h"

static void	browser_ask_cb(void *);
static void	browser_reply_cb(long, const char *, size_t, const char *,
		    void *);
static int	browser_ws_ok(const struct jsonval *);
static void	browser_ready(struct browser *, const char *, const char *);

/*
 * Return the /json/version URL for a ws:// or wss:// URL, allocated, and
 * set *path (unless NULL) when it had a path beyond "/"; NULL when it is
 * not one by hostport_ws_url()'s rule (a DNS name allowed when names is
 * set).
 */
char *
browser_json_url(const char *ws, int names, int *path)
{
	char	*json, *cause = NULL;

	if (hostport_ws_url("url", ws, names, &json, path, &cause) != 0) {
		free(cause);
		return NULL;
	}
	return json;
}

/* Ask json_url for /json/version now. */
void
browser_ask(struct browser *b)
{
	char	*cause = NULL;

	if (b->http == NULL) {
		if ((b->http = http_new(b->loop, &cause)) == NULL) {
			browser_fail(b, "%s", cause);
			free(cause);
			return;
		}
		b->own_http = 1;
	}
	b->req = http_get(b->http, b->json_url, BROWSER_ASK_MS,
	    browser_reply_cb, b, &cause);
	if (b->req == NULL) {
		browser_fail(b, "%s", cause);
		free(cause);
	}
}

/* The retry or check timer: ask again. */
static void
browser_ask_cb(void *arg)
{
	struct browser	*b = arg;

	b->retry_timer = 0;
	b->check_timer = 0;
	browser_ask(b);
}

/*
 * /json/version answered (or not): READY on a reply with a
 * webSocketDebuggerUrl (for a given URL, one at its host and port: a
 * reply may not send jobs elsewhere); a failure fails a given URL's start
 * and a ready browser, and is asked again for one that is starting.
 */
static void
browser_reply_cb(long status, const char *body, size_t len,
    const char *error, void *arg)
{
	struct browser		*b = arg;
	struct jsonval		*doc = NULL;
	const char		*ws = NULL;
	char			*why = NULL, *cause = NULL;

	b->req = NULL;
	if (error != NULL)
		why = xprintf("%s: %s", b->json_url, error);
	else if (status != 200)
		why = xprintf("%s: HTTP status %ld", b->json_url, status);
	else if ((doc = jsonval_parse(body, len, &cause)) == NULL) {
		why = xprintf("%s: %s", b->json_url, cause);
		free(cause);
	} else if (!browser_ws_ok(jsonval_get(doc, "webSocketDebuggerUrl")))
		why = xprintf("%s: no webSocketDebuggerUrl in the reply",
		    b->json_url);
	else if (b->kind == BROWSER_KIND_REMOTE && !hostport_ws_same(
	    jsonval_get_string(doc, "webSocketDebuggerUrl"), b->cdp_url))
		why = xprintf("%s: refused the webSocketDebuggerUrl %s: not "
		    "%s://%s, the cdp_url's scheme, host and port",
		    b->json_url, jsonval_get_string(doc,
		    "webSocketDebuggerUrl"), strncmp(b->cdp_url, "wss://", 6) ==
		    0 ? "wss" : "ws", b->target);
	else
		ws = jsonval_get_string(doc, "webSocketDebuggerUrl");
	if (why == NULL) {
		if (b->state == BROWSER_STARTING)
			browser_ready(b, ws, jsonval_get_string(doc,
			    "Browser"));
		else if (b->state == BROWSER_READY)
			b->check_timer = loop_add_timer(b->loop,
			    BROWSER_CHECK_MS, browser_ask_cb, b);
	} else if (b->state == BROWSER_STARTING &&
	    b->kind != BROWSER_KIND_REMOTE) {
		debuglog("browser: %s; again", why);
		free(b->ask_error);
		b->ask_error = why;
		why = NULL;
		b->retry_timer = loop_add_timer(b->loop, BROWSER_RETRY_MS,
		    browser_ask_cb, b);
	} else if (b->state == BROWSER_STARTING || b->state == BROWSER_READY)
		browser_fail(b, "%s", why);
	free(why);
	jsonval_free(doc);
}

/* Return whether v is a string that is a ws:// or wss:// URL, no NUL. */
static int
browser_ws_ok(const struct jsonval *v)
{
	const char	*ws = jsonval_string(v);
	char		*json;

	if (ws == NULL || strlen(ws) != jsonval_string_len(v))
		return 0;
	if ((json = browser_json_url(ws, 1, NULL)) == NULL)
		return 0;
	free(json);
	return 1;
}

/* READY: the URL (the given one when it had a path) and the product. */
static void
browser_ready(struct browser *b, const char *ws, const char *product)
{
	int	path = 0;
	char	*json;

	browser_cancel_timer(b, &b->start_timer);
	if (b->kind == BROWSER_KIND_REMOTE) {
		json = browser_json_url(b->cdp_url, 1, &path);
		free(json);
	}
	browser_set_str(&b->url, path ? b->cdp_url : ws);
	browser_set_str(&b->product, product);
	browser_set_str(&b->ask_error, NULL);
	b->state = BROWSER_READY;
	debuglog("browser: ready %s (%s)", b->url,
	    product != NULL ? product : "?");
	b->check_timer = loop_add_timer(b->loop, BROWSER_CHECK_MS,
	    browser_ask_cb, b);
	browser_notify(b);
}
