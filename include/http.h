/*
 * http: HTTP requests on the loop, through libcurl's multi interface (the
 * one file that knows libcurl): its sockets are watched with loop fd
 * watches and its timeouts are loop timers, so a request never blocks the
 * loop.  Used by the readiness and liveness probes (ready_http) and by
 * whatever else must ask a server (the browser's /json/version).  Host
 * names are resolved by libcurl's threaded resolver, off the loop;
 * http_new() refuses a libcurl built without one (no
 * CURL_VERSION_ASYNCHDNS).  Redirects are not followed: a 3xx is an answer.
 *
 * Ownership: the caller owns the struct http (one per deck) and frees it
 * after every request is done or canceled.  A struct http_req belongs to
 * the http: it is freed after its done callback returns, or by
 * http_cancel() (then done is never called).  The body passed to done is
 * only valid during the call.
 */
#ifndef JOBDECK_HTTP_H
#define JOBDECK_HTTP_H

#include <stddef.h>
#include <stdint.h>

struct loop;
struct http;
struct http_req;

#define HTTP_BODY_MAX	(1024 * 1024)	/* bytes of a reply kept */

/*
 * A request ended: status is the HTTP status (0 when there was none) and
 * error NULL, or error says why it failed ("timed out after 1000 ms",
 * "Connection refused"); the body (at most HTTP_BODY_MAX bytes) is NUL
 * terminated.
 */
typedef void	http_done_cb(long status, const char *body, size_t len,
		    const char *error, void *arg);

struct http	*http_new(struct loop *, char **cause);
void		 http_free(struct http *);
struct http_req	*http_get(struct http *, const char *url, int64_t timeout_ms,
		    http_done_cb *, void *arg, char **cause);
void		 http_cancel(struct http_req *);

#endif
