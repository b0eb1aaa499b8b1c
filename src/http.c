/*
 * http.c: HTTP GETs on the loop through libcurl's multi socket interface
 * (see http.h).  The only file that includes <curl/curl.h>.
 *
 * libcurl tells us which sockets to watch (CURLMOPT_SOCKETFUNCTION: loop
 * fd watches, added, changed and removed as it asks) and when it next
 * needs to be called (CURLMOPT_TIMERFUNCTION: one loop timer); both call
 * curl_multi_socket_action() and then read the finished transfers with
 * curl_multi_info_read().  Nothing here waits: no curl_easy_perform(), no
 * curl_multi_perform() loop.
 *
 * Names: libcurl resolves host names on a thread of its own (the
 * threaded resolver Debian's libcurl is built with) and wakes the multi
 * through a socket it asks us to watch, so DNS never blocks the loop.
 * http_new() checks curl_version_info() for CURL_VERSION_ASYNCHDNS and
 * refuses a libcurl without it, which would resolve on the loop.
 * CURLOPT_QUICK_EXIT lets a request canceled or timed out during a slow
 * lookup leave its resolver thread behind instead of waiting for it.
 *
 * Each request: CURLOPT_TIMEOUT_MS (0: no limit), NOSIGNAL (libcurl
 * installs no signal handler), no redirect followed (a 3xx is the answer),
 * http and https only, no proxy (a probe asks the job itself, whatever
 * http_proxy says), a fresh connection each time (FORBID_REUSE: a probe
 * proves the server still accepts, and no idle socket is kept between
 * attempts), the body kept up to HTTP_BODY_MAX bytes (the rest is read
 * and dropped), and the error text from CURLOPT_ERRORBUFFER (but a time
 * limit says "timed out after N ms" and a failed connect "connect: " and
 * the system's reason, as the TCP probe does).
 *
 * curl_global_init() is called by http_new() and balanced by http_free()
 * (libcurl counts the calls), so there is no global here.  A done
 * callback may start and cancel requests, but not free the http.
 */
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "http.h"
#include "loop.h"
#include "xmalloc.h"

/* One GET in flight; listed in its http until done or canceled. */
struct http_req {
	struct http	*http;
	CURL		*easy;
	struct http_req	*prev;
	struct http_req	*next;
	http_done_cb	*done;
	void		*arg;
	int64_t		 timeout_ms;
	int		 in_done;	/* its done callback is running */
	char		*body;
	size_t		 len;
	size_t		 size;
	char		 errbuf[CURL_ERROR_SIZE];
};

struct http {
	struct loop	*loop;
	CURLM		*multi;
	uint64_t	 timer;		/* libcurl's next call, 0: none */
	struct http_req	*reqs;
};

static int	http_socket_cb(CURL *, curl_socket_t, int, void *, void *);
static int	http_timer_cb(CURLM *, long, void *);
static void	http_fd_cb(int, short, void *);
static void	http_timeout_cb(void *);
static void	http_check_done(struct http *);
static void	http_finish(struct http_req *, CURLcode);
static size_t	http_write_cb(char *, size_t, size_t, void *);
static void	http_unlink(struct http_req *);
static void	http_req_free(struct http_req *);
static int	http_setup(struct http_req *, const char *, char **);

/* Make the deck's HTTP client on loop; NULL with *cause if libcurl can't. */
struct http *
http_new(struct loop *loop, char **cause)
{
	const curl_version_info_data	*info;
	struct http			*h;
	CURLcode			 rc;

	info = curl_version_info(CURLVERSION_NOW);
	if (info == NULL || (info->features & CURL_VERSION_ASYNCHDNS) == 0) {
		*cause = xstrdup("libcurl has no asynchronous resolver "
		    "(CURL_VERSION_ASYNCHDNS), so HTTP would block");
		return NULL;
	}
	if ((rc = curl_global_init(CURL_GLOBAL_DEFAULT)) != CURLE_OK) {
		*cause = xprintf("curl_global_init: %s",
		    curl_easy_strerror(rc));
		return NULL;
	}
	h = xcalloc(1, sizeof *h);
	h->loop = loop;
	if ((h->multi = curl_multi_init()) == NULL) {
		*cause = xstrdup("curl_multi_init failed");
		free(h);
		curl_global_cleanup();
		return NULL;
	}
	curl_multi_setopt(h->multi, CURLMOPT_SOCKETFUNCTION, http_socket_cb);
	curl_multi_setopt(h->multi, CURLMOPT_SOCKETDATA, h);
	curl_multi_setopt(h->multi, CURLMOPT_TIMERFUNCTION, http_timer_cb);
	curl_multi_setopt(h->multi, CURLMOPT_TIMERDATA, h);
	return h;
}

/* Free the client; requests still in flight are canceled first. */
void
http_free(struct http *h)
{
	if (h == NULL)
		return;
	while (h->reqs != NULL)
		http_cancel(h->reqs);
	curl_multi_cleanup(h->multi);
	if (h->timer != 0)
		loop_cancel_timer(h->loop, h->timer);
	free(h);
	curl_global_cleanup();
}

/* libcurl says what to watch on socket s: the loop's watch follows it. */
static int
http_socket_cb(CURL *easy, curl_socket_t s, int what, void *userp,
    void *socketp)
{
	struct http	*h = userp;
	short		 events = 0;

	(void)easy;
	(void)socketp;
	if (what == CURL_POLL_REMOVE) {
		loop_unwatch_fd(h->loop, s);
		return 0;
	}
	if (what & CURL_POLL_IN)
		events |= POLLIN;
	if (what & CURL_POLL_OUT)
		events |= POLLOUT;
	return loop_watch_fd(h->loop, s, events, http_fd_cb, h) == 0 ? 0 : -1;
}

/* libcurl says when to call it next: -1 never, 0 at once (next turn). */
static int
http_timer_cb(CURLM *multi, long timeout_ms, void *userp)
{
	struct http	*h = userp;

	(void)multi;
	if (h->timer != 0) {
		loop_cancel_timer(h->loop, h->timer);
		h->timer = 0;
	}
	if (timeout_ms >= 0) {
		h->timer = loop_add_timer(h->loop, timeout_ms,
		    http_timeout_cb, h);
	}
	return 0;
}

/* A watched socket is ready: let libcurl act on it. */
static void
http_fd_cb(int fd, short revents, void *arg)
{
	struct http	*h = arg;
	int		 flags = 0, running;

	if (revents & (POLLIN | POLLHUP))
		flags |= CURL_CSELECT_IN;
	if (revents & POLLOUT)
		flags |= CURL_CSELECT_OUT;
	if (revents & (POLLERR | POLLNVAL))
		flags |= CURL_CSELECT_ERR;
	curl_multi_socket_action(h->multi, fd, flags, &running);
	http_check_done(h);
}

/* libcurl's timer is due: let it do what it waited for. */
static void
http_timeout_cb(void *arg)
{
	struct http	*h = arg;
	int		 running;

	h->timer = 0;
	curl_multi_socket_action(h->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	http_check_done(h);
}

/* Hand every finished transfer to its done callback. */
static void
http_check_done(struct http *h)
{
	struct http_req	*r;
	CURLMsg		*msg;
	int		 left;

	while ((msg = curl_multi_info_read(h->multi, &left)) != NULL) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		r = NULL;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &r);
		if (r != NULL)
			http_finish(r, msg->data.result);
	}
}

/* A transfer ended with rc: tell its caller, then free it. */
static void
http_finish(struct http_req *r, CURLcode rc)
{
	long	 status = 0, os_errno = 0;
	char	*error = NULL;

	curl_multi_remove_handle(r->http->multi, r->easy);
	if (rc == CURLE_OK)
		curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
	else if (rc == CURLE_OPERATION_TIMEDOUT)
		error = xprintf("timed out after %lld ms",
		    (long long)r->timeout_ms);
	else if (rc == CURLE_COULDNT_CONNECT && curl_easy_getinfo(r->easy,
	    CURLINFO_OS_ERRNO, &os_errno) == CURLE_OK && os_errno != 0)
		error = xprintf("connect: %s", strerror((int)os_errno));
	else if (r->errbuf[0] != '\0')
		error = xstrdup(r->errbuf);
	else
		error = xstrdup(curl_easy_strerror(rc));
	if (r->body == NULL)
		r->body = xstrdup("");
	r->body[r->len] = '\0';

	http_unlink(r);
	r->in_done = 1;
	r->done(error == NULL ? status : 0, r->body, r->len, error, r->arg);
	free(error);
	http_req_free(r);
}

/* Keep what the server sent, up to HTTP_BODY_MAX bytes; drop the rest. */
static size_t
http_write_cb(char *buf, size_t size, size_t nmemb, void *arg)
{
	struct http_req	*r = arg;
	size_t		 n = size * nmemb, keep, want;

	keep = HTTP_BODY_MAX - r->len;
	if (keep > n)
		keep = n;
	if (keep == 0)
		return n;
	if (r->len + keep + 1 > r->size) {
		want = r->size == 0 ? 4096 : r->size;
		while (want < r->len + keep + 1)
			want *= 2;
		if (want > HTTP_BODY_MAX + 1)
			want = HTTP_BODY_MAX + 1;
		r->body = xreallocarray(r->body, want, 1);
		r->size = want;
	}
	memcpy(r->body + r->len, buf, keep);
	r->len += keep;
	return n;
}

/* Take r off its http's list. */
static void
http_unlink(struct http_req *r)
{
	if (r->prev != NULL)
		r->prev->next = r->next;
	else if (r->http->reqs == r)
		r->http->reqs = r->next;
	if (r->next != NULL)
		r->next->prev = r->prev;
	r->prev = r->next = NULL;
}

/* Free a request that is off the multi and off the list. */
static void
http_req_free(struct http_req *r)
{
	curl_easy_cleanup(r->easy);
	free(r->body);
	free(r);
}

/* Set r's easy handle up for a GET of url; -1 with *cause on failure. */
static int
http_setup(struct http_req *r, const char *url, char **cause)
{
	CURL		*e = r->easy;
	CURLcode	 rc = CURLE_OK;

#define HTTP_SET(opt, val) do {						\
	if (rc == CURLE_OK)						\
		rc = curl_easy_setopt(e, opt, val);			\
} while (0)
	HTTP_SET(CURLOPT_URL, url);
	HTTP_SET(CURLOPT_PRIVATE, r);
	HTTP_SET(CURLOPT_ERRORBUFFER, r->errbuf);
	HTTP_SET(CURLOPT_NOSIGNAL, 1L);
	HTTP_SET(CURLOPT_FOLLOWLOCATION, 0L);
	HTTP_SET(CURLOPT_PROTOCOLS_STR, "http,https");
	HTTP_SET(CURLOPT_TIMEOUT_MS, (long)r->timeout_ms);
	HTTP_SET(CURLOPT_PROXY, "");
	HTTP_SET(CURLOPT_FORBID_REUSE, 1L);
	HTTP_SET(CURLOPT_USERAGENT, "jobdeck/" JOBDECK_VERSION);
	HTTP_SET(CURLOPT_WRITEFUNCTION, http_write_cb);
	HTTP_SET(CURLOPT_WRITEDATA, r);
#if LIBCURL_VERSION_NUM >= 0x075700	/* 7.87.0 */
	HTTP_SET(CURLOPT_QUICK_EXIT, 1L);
#endif
#undef HTTP_SET
	if (rc != CURLE_OK) {
		*cause = xprintf("%s: %s", url, curl_easy_strerror(rc));
		return -1;
	}
	return 0;
}

/*
 * Start a GET of url bounded by timeout_ms (0 or less: none); done is
 * called from a later loop turn, never from here.
 */
struct http_req *
http_get(struct http *h, const char *url, int64_t timeout_ms,
    http_done_cb *done, void *arg, char **cause)
{
	struct http_req	*r;
	CURLMcode	 mrc;

	r = xcalloc(1, sizeof *r);
	r->http = h;
	r->done = done;
	r->arg = arg;
	r->timeout_ms = timeout_ms > 0 ? timeout_ms : 0;
	if (r->timeout_ms > LONG_MAX)
		r->timeout_ms = LONG_MAX;
	if ((r->easy = curl_easy_init()) == NULL) {
		*cause = xstrdup("curl_easy_init failed");
		free(r);
		return NULL;
	}
	if (http_setup(r, url, cause) != 0) {
		http_req_free(r);
		return NULL;
	}
	if ((mrc = curl_multi_add_handle(h->multi, r->easy)) != CURLM_OK) {
		*cause = xprintf("%s: %s", url, curl_multi_strerror(mrc));
		http_req_free(r);
		return NULL;
	}
	r->next = h->reqs;
	if (h->reqs != NULL)
		h->reqs->prev = r;
	h->reqs = r;
	return r;
}

/* Cancel a request: its sockets and timer go, done is never called. */
void
http_cancel(struct http_req *r)
{
	if (r == NULL || r->in_done)
		return;
	http_unlink(r);
	curl_multi_remove_handle(r->http->multi, r->easy);
	http_req_free(r);
}
