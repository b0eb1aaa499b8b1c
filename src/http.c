/* http.c: HTTP on the loop through libcurl (see http.h).  Groundwork stub. */
#include <stdlib.h>

#include "http.h"
#include "xmalloc.h"

/* Make the deck's HTTP client (not built yet). */
struct http *
http_new(struct loop *loop, char **cause)
{
	(void)loop;
	*cause = xstrdup("HTTP is not built yet");
	return NULL;
}

/* Free it. */
void
http_free(struct http *h)
{
	(void)h;
}

/* Start a GET (not built yet). */
struct http_req *
http_get(struct http *h, const char *url, int64_t timeout_ms,
    http_done_cb *done, void *arg, char **cause)
{
	(void)h;
	(void)url;
	(void)timeout_ms;
	(void)done;
	(void)arg;
	*cause = xstrdup("HTTP is not built yet");
	return NULL;
}

/* Cancel a request. */
void
http_cancel(struct http_req *r)
{
	(void)r;
}
