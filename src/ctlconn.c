/*
 * ctlconn.c: one control-socket request on a loop (ctlconn.h), and the
 * request line and reply parser that jobdeck ctl shares.
 *
 * A request goes: socket, non-blocking connect (a full backlog, EAGAIN,
 * is tried again every CTLCONN_RETRY_MS), the request written as the
 * socket takes it, the write side shut down, then the reply read until
 * the deck closes.  One timer bounds every wait for the deck: it is
 * armed for CTL_ANSWER_TIMEOUT_MS and armed again each time bytes come
 * (keepalives included), so a long wait that the deck keeps alive is
 * never cut.  A failure found inside ctlconn_new() is told through a
 * 0 ms timer, so done never comes from inside ctlconn_new().
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "ctlconn.h"
#include "expand.h"
#include "loop.h"
#include "xmalloc.h"

#define CTLCONN_RETRY_MS	50	/* a full backlog: connect again */

struct ctlconn {
	struct loop		*loop;
	char			*deck;
	char			*path;
	int			 fd;
	int			 watched;
	char			*req;
	size_t			 reqlen;
	size_t			 reqoff;
	struct ctlconn_parse	 parse;
	char			*body;
	size_t			 len;
	size_t			 max;
	int			 over;	/* the body passed max */
	uint64_t		 timer;	/* the answer's time limit */
	uint64_t		 retry;	/* connect again, or fail at once */
	char			*fail;	/* why, for the 0 ms timer */
	int			 no_deck;	/* nobody listens there */
	const struct ctlconn_cbs *cbs;
	void			*arg;
};

static void	ctlconn_io_cb(int, short, void *);

/*
 * Make the request line for words (each single-quoted so the deck
 * expands nothing, "--json" first when json), newline included; NULL
 * and *cause if a word holds a newline or the line is over
 * CTL_REQUEST_MAX.
 */
char *
ctlconn_request(char *const *words, int json, size_t *len, char **cause)
{
	char	*req = NULL, *q;
	size_t	 n, off = 0;
	int	 i;

	for (i = json ? -1 : 0; i == -1 || words[i] != NULL; i++) {
		if (i >= 0 && strchr(words[i], '\n') != NULL) {
			free(req);
			*cause = xstrdup("an argument cannot hold a newline "
			    "(send takes \\n)");
			return NULL;
		}
		q = expand_shell_quote(i == -1 ? "--json" : words[i]);
		n = strlen(q);
		req = xreallocarray(req, off + n + 2, 1);
		if (off > 0)
			req[off++] = ' ';
		memcpy(req + off, q, n);
		off += n;
		free(q);
	}
	req = xreallocarray(req, off + 1, 1);
	req[off++] = '\n';
	if (off > CTL_REQUEST_MAX) {
		free(req);
		*cause = xprintf("request too long (more than %d bytes)",
		    CTL_REQUEST_MAX);
		return NULL;
	}
	*len = off;
	return req;
}

/* Start reading a reply. */
void
ctlconn_parse_init(struct ctlconn_parse *p)
{
	memset(p, 0, sizeof *p);
	p->status = p->exit = -1;
	p->bol = 1;
}

/* Act on a control line of the reply (its text after CTL_CONTROL). */
static void
ctlconn_parse_control(struct ctlconn_parse *p, const char *text)
{
	char	*end;
	long	 n;

	if (strcmp(text, "follow") == 0)
		p->follow = 1;
	else if (strncmp(text, "exit ", 5) == 0) {
		n = strtol(text + 5, &end, 10);
		p->exit = (*end == '\0' && n >= 0 && n <= 255) ? (int)n : 1;
	} else if (strncmp(text, "damaged ", 8) == 0) {
		n = strtol(text + 8, &end, 10);
		p->damaged = (*end == '\0' && n > 0 && n < INT_MAX) ? (int)n : 1;
	} else if (strncmp(text, "error ", 6) == 0 && p->error[0] == '\0')
		snprintf(p->error, sizeof p->error, "%s", text + 6);
	/* "" is a keepalive; other lines are for later versions. */
}

/*
 * Give a piece of a successful reply's body to cb without the control
 * lines; 0, or -2 if cb stopped.
 */
static int
ctlconn_parse_body(struct ctlconn_parse *r, const char *p, size_t len,
    ctlconn_body_cb *cb, void *arg)
{
	const char	*end = p + len, *start, *nl;
	size_t		 n;

	while (p < end) {
		if (r->in_ctrl || (r->bol && *p == CTL_CONTROL)) {
			if (!r->in_ctrl) {
				r->in_ctrl = 1;
				r->nctrl = 0;
				p++;
			}
			nl = memchr(p, '\n', (size_t)(end - p));
			n = (size_t)((nl != NULL ? nl : end) - p);
			if (n > sizeof r->ctrl - 1 - r->nctrl)
				n = sizeof r->ctrl - 1 - r->nctrl;
			memcpy(r->ctrl + r->nctrl, p, n);
			r->nctrl += n;
			if (nl == NULL)
				return 0;
			r->ctrl[r->nctrl] = '\0';
			ctlconn_parse_control(r, r->ctrl);
			r->in_ctrl = 0;
			r->bol = 1;
			p = nl + 1;
			continue;
		}
		/* Output up to a control line, or to the end. */
		start = p;
		while (p < end) {
			nl = memchr(p, '\n', (size_t)(end - p));
			if (nl == NULL) {
				p = end;
				r->bol = 0;
				break;
			}
			p = nl + 1;
			r->bol = 1;
			if (p < end && *p == CTL_CONTROL)
				break;
		}
		if (cb(start, (size_t)(p - start), arg) != 0)
			return -2;
	}
	return 0;
}

/*
 * Take a piece of the reply: the status line, then the body to cb
 * (without control lines on success, as it is otherwise); 0, -1 if it is
 * not a reply, -2 if cb stopped.
 */
int
ctlconn_parse_feed(struct ctlconn_parse *r, const char *buf, size_t len,
    ctlconn_body_cb *cb, void *arg)
{
	size_t	off = 0;

	while (r->status == -1 && r->nhead < 2 && off < len)
		r->head[r->nhead++] = buf[off++];
	if (r->status == -1) {
		if (r->nhead < 2)
			return 0;
		if (r->head[0] < '0' || r->head[0] > '2' ||
		    r->head[1] != '\n')
			return -1;
		r->status = r->head[0] - '0';
	}
	if (off == len)
		return 0;
	if (r->status == 0)
		return ctlconn_parse_body(r, buf + off, len - off, cb, arg);
	return cb(buf + off, len - off, arg) != 0 ? -2 : 0;
}

/* Stop watching and close the socket, cancel the timers. */
static void
ctlconn_close(struct ctlconn *c)
{
	if (c->watched)
		loop_unwatch_fd(c->loop, c->fd);
	c->watched = 0;
	if (c->fd != -1)
		close(c->fd);
	c->fd = -1;
	if (c->timer != 0)
		loop_cancel_timer(c->loop, c->timer);
	c->timer = 0;
	if (c->retry != 0)
		loop_cancel_timer(c->loop, c->retry);
	c->retry = 0;
}

/* End the request: close, then tell the caller (who may free c). */
static void
ctlconn_done(struct ctlconn *c, int status, int exit, const char *body,
    size_t len)
{
	ctlconn_close(c);
	c->cbs->done(status, exit, body, len, c->arg);
}

/* End the request with status -1 and a reason. */
static void
ctlconn_fail(struct ctlconn *c, const char *fmt, ...)
{
	va_list	 ap;
	char	*why;

	va_start(ap, fmt);
	why = xvprintf(fmt, ap);
	va_end(ap);
	ctlconn_close(c);
	c->cbs->done(-1, -1, why, strlen(why), c->arg);
	free(why);
}

/* The words for errno e when connecting. */
static void
ctlconn_fail_connect(struct ctlconn *c, int e)
{
	if (e == ENOENT || e == ECONNREFUSED) {
		c->no_deck = 1;
		ctlconn_fail(c, "no deck named '%s' is running: start jobdeck "
		    "-S %s, or jobdeck mcp --start", c->deck, c->deck);
	} else
		ctlconn_fail(c, "%s: %s", c->path, strerror(e));
}

/* Nothing came from the deck in time. */
static void
ctlconn_timeout_cb(void *arg)
{
	struct ctlconn	*c = arg;

	c->timer = 0;
	ctlconn_fail(c, "deck '%s' did not answer within %d s", c->deck,
	    CTL_ANSWER_TIMEOUT_MS / 1000);
}

/* Arm the answer's time limit again. */
static void
ctlconn_arm(struct ctlconn *c)
{
	if (c->timer != 0)
		loop_cancel_timer(c->loop, c->timer);
	c->timer = loop_add_timer(c->loop, CTL_ANSWER_TIMEOUT_MS,
	    ctlconn_timeout_cb, c);
}

/* Keep a piece of the body, up to max. */
static int
ctlconn_body_cb_keep(const char *buf, size_t len, void *arg)
{
	struct ctlconn	*c = arg;

	if (len > c->max - c->len) {
		c->over = 1;
		return -1;
	}
	c->body = xreallocarray(c->body, c->len + len + 1, 1);
	memcpy(c->body + c->len, buf, len);
	c->len += len;
	c->body[c->len] = '\0';
	return 0;
}

/* Read what the deck sent; at its end, done. */
static void
ctlconn_read(struct ctlconn *c)
{
	char	buf[65536];
	ssize_t	n;
	int	rc;

	n = read(c->fd, buf, sizeof buf);
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n == -1 && errno != ECONNRESET) {
		ctlconn_fail(c, "deck '%s': %s", c->deck, strerror(errno));
		return;
	}
	if (n <= 0) {
		if (c->parse.status == -1) {
			ctlconn_fail(c, "deck '%s' closed the connection "
			    "without a reply", c->deck);
			return;
		}
		ctlconn_done(c, c->parse.status, c->parse.exit,
		    c->body != NULL ? c->body : "", c->len);
		return;
	}
	ctlconn_arm(c);
	rc = ctlconn_parse_feed(&c->parse, buf, (size_t)n,
	    ctlconn_body_cb_keep, c);
	if (rc == -1)
		ctlconn_fail(c, "bad reply from deck '%s'", c->deck);
	else if (rc == -2)
		ctlconn_fail(c, "the deck's answer is over %zu bytes", c->max);
}

/* Write what the socket takes of the request; shut down once it is sent. */
static void
ctlconn_write(struct ctlconn *c)
{
	ssize_t	n;

	n = send(c->fd, c->req + c->reqoff, c->reqlen - c->reqoff,
	    MSG_NOSIGNAL);
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n == -1 && errno != EPIPE && errno != ECONNRESET) {
		ctlconn_fail(c, "deck '%s': %s", c->deck, strerror(errno));
		return;
	}
	/* A deck that closed may have answered already: read on. */
	c->reqoff = n == -1 ? c->reqlen : c->reqoff + (size_t)n;
	if (c->reqoff < c->reqlen)
		return;
	shutdown(c->fd, SHUT_WR);
	loop_set_events(c->loop, c->fd, POLLIN);
}

/* The socket is ready: write the request, then read the reply. */
static void
ctlconn_io_cb(int fd, short revents, void *arg)
{
	struct ctlconn	*c = arg;

	(void)fd;
	if (c->reqoff < c->reqlen &&
	    (revents & (POLLOUT | POLLERR | POLLHUP))) {
		ctlconn_write(c);
		return;
	}
	if (revents & (POLLIN | POLLERR | POLLHUP))
		ctlconn_read(c);
}

/* Say why the request failed at once (from the 0 ms timer). */
static void
ctlconn_fail_cb(void *arg)
{
	struct ctlconn	*c = arg;
	char		*why = c->fail;

	c->retry = 0;
	c->fail = NULL;
	ctlconn_fail(c, "%s", why);
	free(why);
}

/* Connect to the deck's socket; a full backlog is tried again later. */
static void
ctlconn_connect_cb(void *arg)
{
	struct ctlconn		*c = arg;
	struct sockaddr_un	 sun;
	int			 rc;

	c->retry = 0;
	if (c->fd == -1) {
		c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC |
		    SOCK_NONBLOCK, 0);
		if (c->fd == -1) {
			ctlconn_fail(c, "socket: %s", strerror(errno));
			return;
		}
	}
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", c->path);
	do
		rc = connect(c->fd, (struct sockaddr *)&sun, sizeof sun);
	while (rc == -1 && errno == EINTR);
	if (rc == -1 && errno == EAGAIN) {
		c->retry = loop_add_timer(c->loop, CTLCONN_RETRY_MS,
		    ctlconn_connect_cb, c);
		return;
	}
	if (rc == -1 && errno != EINPROGRESS) {
		ctlconn_fail_connect(c, errno);
		return;
	}
	if (loop_watch_fd(c->loop, c->fd, POLLOUT, ctlconn_io_cb, c) != 0) {
		ctlconn_fail(c, "cannot watch the deck's socket");
		return;
	}
	c->watched = 1;
}

/*
 * Start a request of deck: words (NULL-ended), flags CTLCONN_*; a body
 * over max bytes fails it.  done comes once, from the loop.
 */
struct ctlconn *
ctlconn_new(struct loop *loop, const char *deck, char *const *words,
    int flags, size_t max, const struct ctlconn_cbs *cbs, void *arg)
{
	struct ctlconn	*c;
	char		*cause = NULL;
	int		 pf = (flags & CTLCONN_READ_ONLY) ? CTL_PATH_READ_ONLY : 0;

	c = xcalloc(1, sizeof *c);
	c->loop = loop;
	c->deck = xstrdup(deck);
	c->fd = -1;
	c->max = max;
	c->cbs = cbs;
	c->arg = arg;
	ctlconn_parse_init(&c->parse);
	c->req = ctlconn_request(words, (flags & CTLCONN_JSON) != 0,
	    &c->reqlen, &cause);
	if (c->req == NULL || ctl_socket_path(deck, pf, &c->path,
	    &cause) != 0) {
		c->fail = cause;
		c->retry = loop_add_timer(loop, 0, ctlconn_fail_cb, c);
		return c;
	}
	ctlconn_arm(c);
	c->retry = loop_add_timer(loop, 0, ctlconn_connect_cb, c);
	return c;
}

/*
 * Return whether the request failed because no deck listens at the
 * socket: there is none, or a dead deck's socket refused the connection.
 */
int
ctlconn_no_deck(const struct ctlconn *c)
{
	return c->no_deck;
}

/* Free a request; its done never comes after this. */
void
ctlconn_free(struct ctlconn *c)
{
	if (c == NULL)
		return;
	ctlconn_close(c);
	free(c->fail);
	free(c->deck);
	free(c->path);
	free(c->req);
	free(c->body);
	free(c);
}
