/*
 * ctl.c: the control socket's server (the protocol is in ctl.h): its
 * connections, their requests and replies.  The socket paths and locks
 * are ctl-socket.c, the events feeds ctl-events.c and a connection as
 * a command task's sink (wait, grep, logs) ctl-sink.c; ctl-private.h
 * holds what they share.
 *
 * The socket path and its directory are checked here for the client too.
 * ctl_listen() runs before the screen is taken: it finds out whether a
 * deck of that name runs (connect() succeeds), replaces a socket a crashed
 * deck left (connect() is refused), and binds; so for NAME.sock and then
 * the read-only NAME.ro.  ctl_start() then watches both sockets on the
 * loop and subscribes to the job table.  A client of NAME.ro is marked
 * CTL_READ_ONLY when accepted and every request it makes runs with
 * ctx.read_only set; the callbacks that reach the deck (quit, focus)
 * do nothing for it.
 *
 * Each client is read until its request line is complete, then the
 * command runs through cmd_execute() with a cmd_client of this file that
 * collects messages, errors, shown text and JSON into the reply; the reply
 * is written as far as the socket takes it, the rest when it is writable.
 *
 * A client's output is an outq.h queue on its socket: a client with
 * output waiting is dropped when for CTL_WRITE_TIMEOUT_MS its socket took
 * nothing and it read nothing of what the socket holds (the queue's
 * stall limit: SIOCOUTQ did not shrink); a log stream keeps what it owes
 * in the queue, where that limit sees it.  A stream that had nothing to
 * send for CTL_KEEPALIVE_MS is sent a keepalive line, so that its client
 * can tell a quiet deck from a stopped one.  A peer that closes is noticed
 * at once: a client is always polled for input or, once its peer has shut
 * down its side, for the hangup alone.
 *
 * Places (ctl.h): a client holds a short request's place until its reply
 * starts a stream (CTL_STREAMING), which counts against the streams'
 * budget instead (ctl_cmd_stream() refuses one over it).  A listening
 * socket whose short places are taken, with no idle request to give way,
 * is not polled (ctl_accept_update()): its new connections wait in the
 * kernel's backlog until a client is freed or becomes a stream, or the
 * oldest request still being sent has been at it for CTL_IDLE_MS.
 *
 * A client is never freed inside a callback: dropping one closes its
 * socket at once and marks it dead, and a zero-delay timer frees the dead.

 */
#include <sys/socket.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "ctl-private.h"
#include "debuglog.h"
#include "job.h"
#include "jobtable.h"
#include "json.h"
#include "loop.h"
#include "outq.h"
#include "session.h"


static void	ctl_accept_cb(int, short, void *);
static void	ctl_accept_update(struct ctl *);
static void	ctl_client_cb(int, short, void *);
static void	ctl_client_stalled(struct outq *, void *);
static void	ctl_cmd_message(const char *, void *);
static void	ctl_cmd_error(const char *, void *);
static void	ctl_cmd_show(const char *, char **, int, int, void *);
static void	ctl_cmd_quit(void *);
static void	ctl_cmd_select(struct job *, int, void *);
static void	ctl_cmd_json(const char *, void *);
static int	ctl_cmd_later(void *, char **);
static void	ctl_cmd_answered(void *);
static void	ctl_client_reply(struct ctl_client *, int);

static const struct jobtable_cbs ctl_jobtable_cbs = {
	.started = ctl_job_started,
	.output = ctl_job_output,
	.exited = ctl_job_exited,
	.queued = ctl_job_queued,
	.changed = ctl_job_changed,
	.removed = ctl_job_removed,
};

static const struct outq_cbs ctl_outq_cbs = {
	.stalled = ctl_client_stalled,
};

static const struct cmd_client ctl_cmd_client = {
	.message = ctl_cmd_message,
	.error = ctl_cmd_error,
	.show = ctl_cmd_show,
	.select = ctl_cmd_select,
	.quit = ctl_cmd_quit,
	.json = ctl_cmd_json,
	.events = ctl_cmd_events,
	.later = ctl_cmd_later,
	.answered = ctl_cmd_answered,
};

/* Append a string and a newline to a buffer. */
void
ctl_buf_line(struct xbuf *b, const char *s)
{
	xbuf_add(b, s, strlen(s));
	xbuf_add(b, "\n", 1);
}

/*
 * Append text lines (s, one or more lines without the last newline) and a
 * newline to a reply's body: a line cannot start with CTL_CONTROL, which
 * only the protocol's own lines do, so such a byte is dropped.
 */
static void
ctl_buf_text(struct xbuf *b, const char *s)
{
	const char	*nl;

	for (;;) {
		if (*s == CTL_CONTROL)
			s++;
		if ((nl = strchr(s, '\n')) == NULL)
			break;
		xbuf_add(b, s, (size_t)(nl + 1 - s));
		s = nl + 1;
	}
	ctl_buf_line(b, s);
}

/*
 * Make deck name's sockets, NAME.sock and the read-only NAME.ro, and
 * listen on them (nothing is read from them until ctl_start()); NULL with
 * *cause if a deck of that name runs, the directory is unsafe, or a
 * socket cannot be made.
 */
struct ctl *
ctl_listen(const char *name, char **cause)
{
	static const int	 flags[CTL_SOCKS] = {
		[CTL_SOCK_FULL] = CTL_PATH_CREATE,
		[CTL_SOCK_READ_ONLY] = CTL_PATH_READ_ONLY
	};
	struct ctl		*ctl;
	int			 lock = -1, rc, i;

	ctl = xcalloc(1, sizeof *ctl);
	ctl->jt_handle = -1;
	for (i = 0; i < CTL_SOCKS; i++)
		ctl->socks[i].fd = -1;
	for (i = 0; i < CTL_SOCKS; i++) {
		if (ctl_socket_path(name, flags[i], &ctl->socks[i].path,
		    cause) != 0)
			goto fail;
	}
	/* Held from the probes until both sockets listen. */
	if ((lock = ctl_lock(ctl->socks[CTL_SOCK_FULL].path, cause)) == -1)
		goto fail;
	for (i = 0; i < CTL_SOCKS; i++) {
		if ((rc = ctl_probe(ctl->socks[i].path, cause)) != 0) {
			if (rc == 1)
				*cause = xprintf("a deck named %s is running "
				    "(%s)", name, ctl->socks[i].path);
			goto fail;
		}
	}
	for (i = 0; i < CTL_SOCKS; i++) {
		if (ctl_bind(name, &ctl->socks[i], cause) != 0)
			goto fail;
	}
	close(lock);
	return ctl;

fail:
	for (i = 0; i < CTL_SOCKS; i++)
		ctl_unbind(&ctl->socks[i]);
	if (lock != -1)
		close(lock);
	free(ctl);
	return NULL;
}

/*
 * Start serving: watch both sockets on loop and run requests with a copy
 * of ctx (its client and arg are replaced; read_only is set for clients
 * of NAME.ro); cbs (with arg) do what only the deck can: quit, focus a
 * job, never for a read-only client.
 */
void
ctl_start(struct ctl *ctl, struct loop *loop, const struct cmd_ctx *ctx,
    const struct ctl_cbs *cbs, void *arg)
{
	int	i;

	ctl->loop = loop;
	ctl->jt = ctx->jt;
	ctl->ctx = *ctx;
	ctl->ctx.client = &ctl_cmd_client;
	ctl->ctx.arg = NULL;
	ctl->ctx.json = 0;
	ctl->cbs = cbs;
	ctl->cbs_arg = arg;
	ctl->jt_handle = jobtable_subscribe(ctl->jt, &ctl_jobtable_cbs, ctl);
	ctl->tasks = cmd_tasks_new(ctl->jt, loop);
	for (i = 0; i < CTL_SOCKS; i++)
		loop_watch_fd(loop, ctl->socks[i].fd, POLLIN, ctl_accept_cb,
		    ctl);
}

/* Return how many bytes of a client's output wait to be sent. */
size_t
ctl_client_pending(const struct ctl_client *c)
{
	return outq_pending(c->out);
}

/* Queue what b holds for a client (b is left empty). */
void
ctl_client_queue(struct ctl_client *c, struct xbuf *b)
{
	(void)outq_add_owned(c->out, b->s, b->len);
	b->s = NULL;
	b->len = b->size = 0;
}

/* Return whether a client has more to send: output, or its task's. */
static int
ctl_client_has_more(struct ctl_client *c)
{
	return ctl_client_pending(c) > 0 || cmd_sink_more(&c->sink);
}

/* Close a client's socket, log, watch and timers (not its memory). */
static void
ctl_client_close(struct ctl_client *c)
{
	struct ctl	*ctl = c->ctl;

	if (c->fd == -1)
		return;
	if (ctl->loop != NULL) {
		loop_unwatch_fd(ctl->loop, c->fd);
		if (c->req_timer != 0)
			loop_cancel_timer(ctl->loop, c->req_timer);
	}
	c->req_timer = 0;
	outq_close(c->out);
	close(c->fd);
	c->fd = -1;
	if (c->flags & CTL_EVENTS)
		ctl->nevents--;
	if (c->flags & CTL_WAIT)
		ctl->nwait--;
	c->flags &= ~(CTL_EVENTS | CTL_WAIT);
}

/* Free a client (closed first if need be). */
static void
ctl_client_free(struct ctl_client *c)
{
	int	i;

	cmd_sink_gone(&c->sink);
	ctl_client_close(c);
	for (i = 0; i < c->npassed; i++)
		close(c->passed[i]);
	xbuf_clear(&c->in);
	outq_free(c->out);
	xbuf_clear(&c->body);
	xbuf_clear(&c->messages);
	xbuf_clear(&c->errors);
	free(c);
}

/* Free the clients marked dead; a zero-delay timer after they died. */
static void
ctl_reap_cb(void *arg)
{
	struct ctl	*ctl = arg;
	int		 i, j;

	ctl->reap_timer = 0;
	for (i = j = 0; i < ctl->nclients; i++) {
		if ((ctl->clients[i]->flags & (CTL_DEAD | CTL_LATER)) ==
		    CTL_DEAD)
			ctl_client_free(ctl->clients[i]);
		else
			ctl->clients[j++] = ctl->clients[i];
	}
	ctl->nclients = j;
	if (ctl->nevents == 0) {
		for (i = 0; i < ctl->nfeeds; i++)
			ctl_feed_clear(&ctl->feeds[i]);
		ctl->nfeeds = 0;
	}
	/* Places are free: connections waiting in the backlog may come. */
	ctl_accept_update(ctl);
}

/* Drop a client: close its socket now, free it after this turn. */
void
ctl_client_drop(struct ctl_client *c)
{
	struct ctl	*ctl = c->ctl;

	if (c->flags & CTL_DEAD)
		return;
	debuglog("ctl: client %d let go, %zu bytes unsent", c->fd,
	    ctl_client_pending(c));
	ctl_client_close(c);
	c->flags |= CTL_DEAD;
	if (ctl->reap_timer == 0 && ctl->loop != NULL)
		ctl->reap_timer = loop_add_timer(ctl->loop, 0, ctl_reap_cb,
		    ctl);
}

/*
 * Poll a client for what it needs: input (its request, or to see it
 * leave), room for its output or for more of its log.  With neither, it
 * is polled for the hangup alone: a Unix socket never has urgent data
 * (POLLPRI), and POLLHUP is always reported.
 */
void
ctl_client_watch(struct ctl_client *c)
{
	short	events = 0;

	if (c->flags & CTL_DEAD)
		return;
	if (!(c->flags & CTL_NO_INPUT))
		events |= POLLIN;
	if (ctl_client_has_more(c))
		events |= POLLOUT;
	if (events == 0)
		events = POLLPRI;
	loop_set_events(c->ctl->loop, c->fd, events);
}

/*
 * The write limit: drop a client whose socket took nothing, and which
 * read nothing of what the socket holds, for CTL_WRITE_TIMEOUT_MS while
 * output waited (its queue's stall limit).
 */
static void
ctl_client_stalled(struct outq *q, void *arg)
{
	(void)q;
	ctl_client_drop(arg);
}

/*
 * Write what the socket takes of a client's output, topping it up from
 * its task's (a log stream: at most CTL_FILL_MAX bytes of log per call);
 * close it once all is sent if it is closing.  A client whose socket
 * fails, or whose output passed its limit, is dropped.
 */
void
ctl_client_flush(struct ctl_client *c)
{
	size_t	budget = CTL_FILL_MAX;

	for (;;) {
		if (cmd_sink_more(&c->sink))
			cmd_sink_fill(&c->sink, &budget);
		if ((c->flags & CTL_DEAD) || ctl_client_pending(c) == 0)
			break;
		if (outq_flush(c->out) != 0) {
			ctl_client_drop(c);
			return;
		}
		if (ctl_client_pending(c) > 0)
			break;		/* the socket is full */
		if (!cmd_sink_more(&c->sink))
			break;
		if (budget == 0) {
			/* What is owed waits where the stall limit sees it. */
			budget = 1;
			cmd_sink_fill(&c->sink, &budget);
			break;
		}
	}
	if (c->flags & CTL_DEAD)
		return;
	if (outq_error(c->out) != 0) {
		ctl_client_drop(c);
		return;
	}
	ctl_sink_drained(c);
	if (c->flags & CTL_DEAD)
		return;
	if (ctl_client_pending(c) == 0 && (c->flags & CTL_CLOSING) &&
	    !cmd_sink_busy(&c->sink)) {
		ctl_client_drop(c);
		return;
	}
	ctl_client_watch(c);
}

/*
 * Queue output for a client and send what the socket takes; an events
 * client that would let more than CTL_OUTPUT_MAX bytes pile up (its
 * queue's limit) is dropped.
 */
void
ctl_client_send(struct ctl_client *c, const char *s, size_t len)
{
	int	was_empty = ctl_client_pending(c) == 0;

	if (c->flags & CTL_DEAD)
		return;
	if (outq_add(c->out, s, len) != 0) {
		ctl_client_drop(c);
		return;
	}
	c->flags |= CTL_SENT;
	/* Otherwise the socket is full and POLLOUT is being waited for. */
	if (was_empty)
		ctl_client_flush(c);
}

/* Send a keepalive to each stream that has said nothing for a while. */
static void
ctl_keepalive_cb(void *arg)
{
	struct ctl		*ctl = arg;
	struct ctl_client	*c;
	static const char	 line[] = { CTL_CONTROL, '\n' };
	int			 i;

	ctl->keepalive_timer = 0;
	for (i = 0; i < ctl->nclients; i++) {
		c = ctl->clients[i];
		if (!(c->flags & (CTL_EVENTS | CTL_WAIT)) ||
		    (c->flags & CTL_DEAD))
			continue;
		if (!(c->flags & CTL_SENT) && ctl_client_pending(c) == 0)
			ctl_client_send(c, line, sizeof line);
		c->flags &= ~CTL_SENT;
	}
	if (ctl->nevents + ctl->nwait > 0)
		ctl->keepalive_timer = loop_add_timer(ctl->loop,
		    CTL_KEEPALIVE_MS, ctl_keepalive_cb, ctl);
}

/*
 * Turn the client into a stream once the reply starts; 0, or -1 when it
 * streams already or the streams' budget is spent (CTL_STREAMS_MAX, and
 * CTL_RO_STREAMS_MAX of them from NAME.ro).
 */
int
ctl_cmd_stream(struct ctl_client *c, enum ctl_stream stream, char **cause)
{
	struct ctl	*ctl = c->ctl;
	int		 read_only = (c->flags & CTL_READ_ONLY) != 0;

	if (c->stream != CTL_STREAM_NONE) {
		*cause = xstrdup("already streaming");
		return -1;
	}
	if (ctl_count(ctl, CTL_STREAMING, CTL_STREAMING) >= CTL_STREAMS_MAX ||
	    (read_only && ctl_count(ctl, CTL_STREAMING | CTL_READ_ONLY,
	    CTL_STREAMING | CTL_READ_ONLY) >= CTL_RO_STREAMS_MAX)) {
		debuglog("ctl: client %d refused a stream: too many", c->fd);
		*cause = xprintf("too many streams at once (%d%s); try again "
		    "when one has ended", read_only ? CTL_RO_STREAMS_MAX :
		    CTL_STREAMS_MAX, read_only ? " on the read-only socket" :
		    "");
		return -1;
	}
	c->stream = stream;
	return 0;
}

/* Make sure the keepalive timer runs while there are streams. */
void
ctl_keepalive_start(struct ctl *ctl)
{
	if (ctl->keepalive_timer == 0)
		ctl->keepalive_timer = loop_add_timer(ctl->loop,
		    CTL_KEEPALIVE_MS, ctl_keepalive_cb, ctl);
}

/* Answer a client with a status and one error line, then close it. */
static void
ctl_client_fail(struct ctl_client *c, int status, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg, *reply;

	va_start(ap, fmt);
	msg = xvprintf(fmt, ap);
	va_end(ap);
	reply = xprintf("%d\n%s\n", status, msg);
	debuglog("ctl: client %d answered %d: %s", c->fd, status, msg);
	free(msg);
	c->flags |= CTL_ANSWERED | CTL_CLOSING;
	if (c->req_timer != 0) {
		loop_cancel_timer(c->ctl->loop, c->req_timer);
		c->req_timer = 0;
	}
	ctl_client_send(c, reply, strlen(reply));
	free(reply);
}

/* A request took too long to arrive: say so and drop it. */
static void
ctl_client_timeout_cb(void *arg)
{
	struct ctl_client	*c = arg;

	c->req_timer = 0;
	ctl_client_fail(c, 2, "request timed out after %d ms",
	    CTL_REQUEST_TIMEOUT_MS);
}

/* Write a short refusal to a socket we will not serve. */
static void
ctl_refuse(int fd, int status, const char *msg)
{
	char	*reply;

	reply = xprintf("%d\n%s\n", status, msg);
	(void)send(fd, reply, strlen(reply), MSG_NOSIGNAL | MSG_DONTWAIT);
	free(reply);
}

/* Let the listening sockets be polled again after running out of fds. */
static void
ctl_accept_resume_cb(void *arg)
{
	struct ctl	*ctl = arg;

	ctl->accept_timer = 0;
	ctl_accept_update(ctl);
}

/* Count the clients still open whose flags, under mask, are flags. */
int
ctl_count(const struct ctl *ctl, int mask, int flags)
{
	const struct ctl_client	*c;
	int			 i, n = 0;

	for (i = 0; i < ctl->nclients; i++) {
		c = ctl->clients[i];
		n += !(c->flags & CTL_DEAD) && (c->flags & mask) == flags;
	}
	return n;
}

/*
 * Return whether the short requests' places are all taken for a new
 * client of NAME.sock, or of NAME.ro (read_only): CTL_CLIENTS_MAX clients
 * that are not streams, or CTL_RO_CLIENTS_MAX of them from NAME.ro.
 */
static int
ctl_short_full(const struct ctl *ctl, int read_only)
{
	if (ctl_count(ctl, CTL_STREAMING, 0) >= CTL_CLIENTS_MAX)
		return 1;
	return read_only && ctl_count(ctl, CTL_STREAMING | CTL_READ_ONLY,
	    CTL_READ_ONLY) >= CTL_RO_CLIENTS_MAX;
}

/*
 * Return the oldest client whose place a new one may take: one still
 * sending its request CTL_IDLE_MS after it came (from NAME.ro, for a new
 * client of NAME.ro); else NULL, with *next the time the oldest younger
 * one will be idle (-1: none is still sending its request).
 */
static struct ctl_client *
ctl_idle(const struct ctl *ctl, int read_only, int64_t now, int64_t *next)
{
	struct ctl_client	*c;
	int			 i;

	*next = -1;
	for (i = 0; i < ctl->nclients; i++) {
		c = ctl->clients[i];
		if ((c->flags & (CTL_ANSWERED | CTL_DEAD)) ||
		    (read_only && !(c->flags & CTL_READ_ONLY)))
			continue;
		if (now - c->since >= CTL_IDLE_MS)
			return c;
		if (*next == -1)
			*next = c->since + CTL_IDLE_MS;
	}
	return NULL;
}

/*
 * Return whether a new client of a socket can be served now: a place is
 * free, or an idle client can give up its own.  If not, *next is when an
 * idle one may (-1: only when a client ends or becomes a stream).
 */
static int
ctl_room(const struct ctl *ctl, int read_only, int64_t now, int64_t *next)
{
	*next = -1;
	if (!ctl_short_full(ctl, read_only))
		return 1;
	return ctl_idle(ctl, read_only, now, next) != NULL;
}

/* The oldest request may be idle now: look at the sockets again. */
static void
ctl_room_cb(void *arg)
{
	struct ctl	*ctl = arg;

	ctl->room_timer = 0;
	ctl_accept_update(ctl);
}

/*
 * Poll each listening socket that has room for a new client, and leave
 * the others' connections waiting in the kernel's backlog (bounded by
 * listen()); none while out of fds.  When only young requests hold the
 * places, look again once the oldest of them is idle.
 */
static void
ctl_accept_update(struct ctl *ctl)
{
	int64_t	now, next, soonest = -1;
	int	i, room;

	if (ctl->loop == NULL)
		return;
	now = loop_now_ms();
	for (i = 0; i < CTL_SOCKS; i++) {
		room = ctl->accept_timer == 0 && ctl_room(ctl,
		    i == CTL_SOCK_READ_ONLY, now, &next);
		loop_set_events(ctl->loop, ctl->socks[i].fd, room ? POLLIN :
		    0);
		if (!room && next != -1 && (soonest == -1 || next < soonest))
			soonest = next;
	}
	if (ctl->room_timer != 0 && (soonest == -1 ||
	    soonest != ctl->room_at)) {
		loop_cancel_timer(ctl->loop, ctl->room_timer);
		ctl->room_timer = 0;
	}
	if (soonest != -1 && ctl->room_timer == 0 && ctl->accept_timer == 0) {
		ctl->room_at = soonest;
		ctl->room_timer = loop_add_timer(ctl->loop, soonest > now ?
		    soonest - now : 1, ctl_room_cb, ctl);
	}
}

/* Drop an idle client for a new one, telling it why. */
static void
ctl_evict(struct ctl_client *c)
{
	debuglog("ctl: client %d evicted, its request not complete", c->fd);
	ctl_refuse(c->fd, 2, "request not complete: dropped for a new client "
	    "(too many clients at once)");
	ctl_client_drop(c);
}

/*
 * Accept waiting connections on either socket while it has room (else
 * they wait in the backlog, ctl_accept_update()): check the peer's uid,
 * take an idle client's place if need be; a client of NAME.ro is marked
 * read-only for good.
 */
static void
ctl_accept_cb(int fd, short revents, void *arg)
{
	struct ctl		*ctl = arg;
	struct ctl_client	*c, *idle;
	struct ucred		 cred;
	socklen_t		 len;
	char			*msg;
	int64_t			 now, next;
	int			 cfd, i, read_only;

	(void)revents;
	read_only = fd == ctl->socks[CTL_SOCK_READ_ONLY].fd;
	for (i = 0; i < CTL_ACCEPT_BURST; i++) {
		now = loop_now_ms();
		if (!ctl_room(ctl, read_only, now, &next)) {
			debuglog("ctl: %d clients at once: new ones%s wait",
			    ctl_count(ctl, CTL_STREAMING, 0),
			    read_only ? " (read-only)" : "");
			break;
		}
		cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (cfd == -1) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			/* Still readable: wait rather than spin. */
			if ((errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM) &&
			    ctl->accept_timer == 0)
				ctl->accept_timer = loop_add_timer(ctl->loop,
				    CTL_ACCEPT_PAUSE_MS, ctl_accept_resume_cb,
				    ctl);
			break;
		}
		len = sizeof cred;
		if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cred, &len) !=
		    0 || cred.uid != geteuid()) {
			debuglog("ctl: refused a peer of uid %ld",
			    (long)cred.uid);
			msg = xprintf("permission denied: this deck belongs to "
			    "uid %ld", (long)geteuid());
			ctl_refuse(cfd, 2, msg);
			close(cfd);
			free(msg);
			continue;
		}
		/* A reader takes the place of a reader only. */
		if (ctl_short_full(ctl, read_only) && (idle = ctl_idle(ctl,
		    read_only, now, &next)) != NULL)
			ctl_evict(idle);
		c = xcalloc(1, sizeof *c);
		c->ctl = ctl;
		ctl_sink_init(c);
		c->fd = cfd;
		c->since = now;
		c->out = outq_new(ctl->loop, cfd, 0, &ctl_outq_cbs, c);
		outq_set_stall(c->out, CTL_WRITE_TIMEOUT_MS);
		if (read_only)
			c->flags |= CTL_READ_ONLY;
		if (ctl->nclients == ctl->alloc) {
			ctl->alloc = ctl->alloc == 0 ? 16 : ctl->alloc * 2;
			ctl->clients = xreallocarray(ctl->clients, ctl->alloc,
			    sizeof *ctl->clients);
		}
		ctl->clients[ctl->nclients++] = c;
		c->req_timer = loop_add_timer(ctl->loop, CTL_REQUEST_TIMEOUT_MS,
		    ctl_client_timeout_cb, c);
		loop_watch_fd(ctl->loop, cfd, POLLIN, ctl_client_cb, c);
		debuglog("ctl: client %d connected%s, %d at once", cfd,
		    read_only ? " (read-only)" : "", ctl_count(ctl, 0, 0));
	}
	ctl_accept_update(ctl);
}

/* The command's message: kept for the reply. */
static void
ctl_cmd_message(const char *msg, void *arg)
{
	struct ctl_client	*c = arg;

	ctl_buf_text(&c->messages, msg);
}

/* The command's error: kept for the reply. */
static void
ctl_cmd_error(const char *msg, void *arg)
{
	struct ctl_client	*c = arg;

	ctl_buf_line(&c->errors, msg);
}

/* The command's text: its lines (JSON: {"title","lines"}) for the reply. */
static void
ctl_cmd_show(const char *title, char **lines, int count, int header,
    void *arg)
{
	struct ctl_client	*c = arg;
	struct json_buf		 jb;
	char			*doc;
	int			 i;

	(void)header;
	if (!c->json) {
		for (i = 0; i < count; i++)
			ctl_buf_text(&c->body, lines[i]);
		return;
	}
	json_init(&jb);
	json_object_begin(&jb);
	json_key(&jb, "title");
	json_put_string(&jb, title);
	json_key(&jb, "lines");
	json_put_strings(&jb, lines, count);
	json_object_end(&jb);
	doc = json_finish(&jb, NULL);
	json_clear(&jb);
	ctl_buf_line(&c->body, doc);
	free(doc);
}

/* The command's JSON result: the reply's body. */
static void
ctl_cmd_json(const char *doc, void *arg)
{
	struct ctl_client	*c = arg;

	ctl_buf_line(&c->body, doc);
}

/* quit: hand it to the deck (never for a client that may only look). */
static void
ctl_cmd_quit(void *arg)
{
	struct ctl_client	*c = arg;
	struct ctl		*ctl = c->ctl;

	if (c->flags & CTL_READ_ONLY)
		return;
	if (ctl->cbs != NULL && ctl->cbs->quit != NULL)
		ctl->cbs->quit(ctl->cbs_arg);
}

/*
 * focus: hand it to the deck.  Jobs a client starts are not selected for
 * it (select without focus), so a script does not move the user's view;
 * a client that may only look moves nothing.
 */
static void
ctl_cmd_select(struct job *job, int focus, void *arg)
{
	struct ctl_client	*c = arg;
	struct ctl		*ctl = c->ctl;

	if (c->flags & CTL_READ_ONLY)
		return;
	if (focus && ctl->cbs != NULL && ctl->cbs->focus != NULL)
		ctl->cbs->focus(job, ctl->cbs_arg);
}

/*
 * Cut a request line (len bytes without its newline; line[len] may be
 * written) into words as the socket runs them: a NUL byte is refused, a
 * trailing CR dropped, the words split by session_split() on session,
 * leading "--json" words taken (*json set), and the command's '!'
 * dropped.  0 with the words (session_split_free() them) and *first, the
 * index of the command; or -1 with *cause, a bad request (status 2).
 */
int
ctl_request_parse(const struct session *session, char *line, size_t len,
    int *argc, char ***argv, int *first, int *json, char **cause)
{
	*argc = 0;
	*argv = NULL;
	*first = 0;
	if (memchr(line, '\0', len) != NULL) {
		*cause = xstrdup("bad request: it holds a NUL byte");
		return -1;
	}
	line[len] = '\0';
	if (len > 0 && line[len - 1] == '\r')
		line[len - 1] = '\0';
	if (session_split(session, line, argc, argv, cause) != 0)
		return -1;
	while (*first < *argc && strcmp((*argv)[*first], "--json") == 0) {
		*json = 1;
		(*first)++;
	}
	if (*first < *argc && (*argv)[*first][0] == '!')
		memmove((*argv)[*first], (*argv)[*first] + 1,
		    strlen((*argv)[*first]));
	if (*first == *argc || (*argv)[*first][0] == '\0') {
		*cause = xstrdup("empty request (try: help)");
		session_split_free(*argc, *argv);
		*argc = 0;
		*argv = NULL;
		return -1;
	}
	return 0;
}

/*
 * Read a client's bytes (recvmsg): fds that come with them (SCM_RIGHTS,
 * close-on-exec) are kept for an attach, two at most, the rest closed.
 */
static ssize_t
ctl_client_recv(struct ctl_client *c, char *buf, size_t len)
{
	union {
		char		buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr	align;
	}		 cm;
	struct msghdr	 msg;
	struct iovec	 iov;
	struct cmsghdr	*h;
	ssize_t		 n;
	size_t		 i, nfds;
	int		 fd;

	iov.iov_base = buf;
	iov.iov_len = len;
	memset(&msg, 0, sizeof msg);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cm.buf;
	msg.msg_controllen = sizeof cm.buf;
	if ((n = recvmsg(c->fd, &msg, MSG_CMSG_CLOEXEC)) == -1)
		return -1;
	for (h = CMSG_FIRSTHDR(&msg); h != NULL; h = CMSG_NXTHDR(&msg, h)) {
		if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
			continue;
		nfds = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < nfds; i++) {
			memcpy(&fd, CMSG_DATA(h) + i * sizeof(int), sizeof fd);
			if (c->npassed < 2)
				c->passed[c->npassed++] = fd;
			else
				close(fd);
		}
	}
	return n;
}

/*
 * Hand an attach request to the deck: the connection and the fds are its
 * from now on, and the client is ctl's no more; without a deck that takes
 * terminals, or without the two fds, it is refused.
 */
static void
ctl_client_attach(struct ctl_client *c, int argc, char **argv)
{
	struct ctl		*ctl = c->ctl;
	struct ctl_attach	 a;

	if (ctl->cbs == NULL || ctl->cbs->attach == NULL) {
		ctl_client_fail(c, 2, "attach: this deck has no screen to "
		    "attach to (it runs as jobdeck up)");
		return;
	}
	if (c->npassed != 2) {
		ctl_client_fail(c, 2, "attach: the terminal's fds did not "
		    "come with the request (use jobdeck attach)");
		return;
	}
	memset(&a, 0, sizeof a);
	a.sock = c->fd;
	a.fds[0] = c->passed[0];
	a.fds[1] = c->passed[1];
	a.read_only = (c->flags & CTL_READ_ONLY) != 0;
	a.argc = argc;
	a.argv = argv;
	c->npassed = 0;
	/* The socket is the deck's now: ctl forgets it, closing nothing. */
	loop_unwatch_fd(ctl->loop, c->fd);
	outq_close(c->out);
	c->fd = -1;
	ctl_client_drop(c);
	ctl->cbs->attach(&a, ctl->cbs_arg);
}

/* Run a complete request and queue its reply. */
static void
ctl_client_request(struct ctl_client *c, char *line, size_t len)
{
	struct ctl	 *ctl = c->ctl;
	struct cmd_ctx	  ctx;
	char		**argv, *cause = NULL;
	int		  argc, first;

	c->flags |= CTL_ANSWERED;
	if (c->req_timer != 0) {
		loop_cancel_timer(ctl->loop, c->req_timer);
		c->req_timer = 0;
	}
	line[len] = '\0';
	debuglog("ctl: client %d%s asks: %.200s", c->fd,
	    (c->flags & CTL_READ_ONLY) ? " (read-only)" : "", line);
	if (ctl_request_parse(ctl->ctx.session, line, len, &argc, &argv,
	    &first, &c->json, &cause) != 0) {
		ctl_client_fail(c, 2, "%s", cause);
		free(cause);
		return;
	}

	if (strcmp(argv[first], "attach") == 0) {
		ctl_client_attach(c, argc - first - 1, argv + first + 1);
		session_split_free(argc, argv);
		return;
	}
	ctx = ctl->ctx;
	ctx.arg = c;
	ctx.json = c->json;
	ctx.sink = &c->sink;
	if (c->flags & CTL_READ_ONLY)
		ctx.read_only = 1;
	if (cmd_execute(&ctx, argc - first, argv + first) == CMD_RETURN_ERROR)
		cmd_sink_gone(&c->sink);	/* a task begun, then a failure */
	session_split_free(argc, argv);
	if (c->flags & (CTL_DEAD | CTL_LATER))
		return;
	ctl_client_reply(c, ctx.failed);
}

/*
 * A session line: the answer comes when the session shell has run it
 * (ctl_cmd_answered()); the client is kept until then, even if it goes.
 */
static int
ctl_cmd_later(void *arg, char **cause)
{
	struct ctl_client	*c = arg;

	(void)cause;
	c->flags |= CTL_LATER;
	return 0;
}

/* A session line is done: its messages or errors are the answer. */
static void
ctl_cmd_answered(void *arg)
{
	struct ctl_client	*c = arg;
	struct ctl		*ctl = c->ctl;

	c->flags &= ~CTL_LATER;
	if (c->flags & CTL_DEAD) {
		if (ctl->reap_timer == 0 && ctl->loop != NULL)
			ctl->reap_timer = loop_add_timer(ctl->loop, 0,
			    ctl_reap_cb, ctl);
		return;
	}
	ctl_client_reply(c, c->errors.len > 0 ? CMD_FAILED : 0);
}

/* Queue a request's reply: its status (failed), then errors or body. */
static void
ctl_client_reply(struct ctl_client *c, int failed)
{
	struct ctl	*ctl = c->ctl;
	struct json_buf	 jb;
	struct xbuf	 reply = { NULL, 0, 0 };
	char		*doc, status[8];

	if (failed != 0) {
		snprintf(status, sizeof status, "%d\n", failed);
		xbuf_add(&reply, status, strlen(status));
		if (c->errors.len == 0)
			ctl_buf_line(&c->errors, "command failed");
		xbuf_add(&reply, c->errors.s, c->errors.len);
		c->flags |= CTL_CLOSING;
		ctl_client_send(c, reply.s, reply.len);
		xbuf_clear(&reply);
		return;
	}
	if (c->stream != CTL_STREAM_NONE) {
		/* Its short request's place goes to the next one. */
		c->flags |= CTL_STREAMING;
		ctl_accept_update(ctl);
		outq_add(c->out, "0\n", 2);
		if (c->stream == CTL_STREAM_EVENTS) {
			c->flags |= CTL_EVENTS;
			outq_set_limit(c->out, CTL_OUTPUT_MAX,
			    OUTQ_LIMIT_FAIL);
			if (ctl->nevents++ == 0)
				ctl_feeds_start(ctl);
			ctl_keepalive_start(ctl);
			ctl_client_flush(c);
		} else
			ctl_sink_start(c);
		return;
	}
	if (c->json && c->body.len == 0) {
		json_init(&jb);
		json_object_begin(&jb);
		json_key(&jb, "ok");
		json_put_bool(&jb, 1);
		json_key(&jb, "message");
		if (c->messages.len > 0)
			json_put_stringn(&jb, c->messages.s,
			    c->messages.len - 1);
		else
			json_put_null(&jb);
		json_object_end(&jb);
		doc = json_finish(&jb, NULL);
		json_clear(&jb);
		ctl_buf_line(&c->body, doc);
		free(doc);
	} else if (!c->json && c->messages.len > 0)
		xbuf_add(&c->body, c->messages.s, c->messages.len);
	xbuf_add(&reply, "0\n", 2);
	if (c->body.len > 0)
		xbuf_add(&reply, c->body.s, c->body.len);
	xbuf_clear(&c->body);
	c->flags |= CTL_CLOSING;
	ctl_client_send(c, reply.s, reply.len);
	xbuf_clear(&reply);
}

/*
 * Read a client's request.  Once it is read, input is read and thrown
 * away, to see the client leave: a hangup drops it, while a client that
 * only shut down its side (end of file, no hangup) is still written to.
 */
static void
ctl_client_read(struct ctl_client *c, short revents)
{
	char	 junk[CTL_READ_CHUNK], *nl;
	size_t	 room, old;
	ssize_t	 n;

	if (c->flags & CTL_ANSWERED) {
		n = read(c->fd, junk, sizeof junk);
		if (n > 0 || (n == -1 && (errno == EAGAIN || errno == EINTR)))
			return;
		if (n == 0 && !(revents & POLLHUP)) {
			c->flags |= CTL_NO_INPUT;
			ctl_client_watch(c);
		} else
			ctl_client_drop(c);
		return;
	}
	for (;;) {
		if (c->in.size < CTL_REQUEST_MAX + 1 &&
		    c->in.size - c->in.len < CTL_READ_CHUNK + 1) {
			c->in.size = c->in.size == 0 ? CTL_READ_CHUNK * 2 :
			    c->in.size * 2;
			if (c->in.size > CTL_REQUEST_MAX + 1)
				c->in.size = CTL_REQUEST_MAX + 1;
			c->in.s = xreallocarray(c->in.s, c->in.size, 1);
		}
		/* One byte stays free for the NUL. */
		room = c->in.size - 1 - c->in.len;
		if (room == 0) {
			ctl_client_fail(c, 2, "request too long (more than "
			    "%d bytes)", CTL_REQUEST_MAX);
			return;
		}
		n = ctl_client_recv(c, c->in.s + c->in.len, room);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return;
		if (n == -1) {
			ctl_client_drop(c);
			return;
		}
		if (n == 0) {
			/* End of file ends the request, if there is one. */
			c->flags |= CTL_NO_INPUT;
			if (c->in.len == 0)
				ctl_client_drop(c);
			else
				ctl_client_request(c, c->in.s, c->in.len);
			xbuf_clear(&c->in);
			return;
		}
		old = c->in.len;
		c->in.len += (size_t)n;
		nl = memchr(c->in.s + old, '\n', (size_t)n);
		if (nl != NULL) {
			ctl_client_request(c, c->in.s, (size_t)(nl - c->in.s));
			xbuf_clear(&c->in);
			return;
		}
	}
}

/* A client's socket is ready: write its output, read it, see it leave. */
static void
ctl_client_cb(int fd, short revents, void *arg)
{
	struct ctl_client	*c = arg;

	(void)fd;
	if (revents & (POLLNVAL | POLLERR)) {
		ctl_client_drop(c);
		return;
	}
	if (revents & POLLOUT)
		ctl_client_flush(c);
	if ((c->flags & CTL_DEAD) || !(revents & (POLLIN | POLLHUP)))
		return;
	if (!(c->flags & CTL_NO_INPUT))
		ctl_client_read(c, revents);
	else if (revents & POLLHUP)
		ctl_client_drop(c);
}

/*
 * Close every client (sending what each socket takes at once), stop
 * listening and remove both sockets if they are still ours.
 */
void
ctl_free(struct ctl *ctl)
{
	struct ctl_client	*c;
	char			*cause = NULL;
	int			 i, lock;

	if (ctl == NULL)
		return;
	for (i = 0; i < ctl->nclients; i++) {
		c = ctl->clients[i];
		/* A wait cut short by the deck's end hears how things stand. */
		if (!(c->flags & CTL_DEAD))
			cmd_sink_stop(&c->sink, "the deck quit");
		if (!(c->flags & CTL_DEAD) && ctl_client_pending(c) > 0)
			(void)outq_flush(c->out);
		ctl_client_free(c);
	}
	free(ctl->clients);
	cmd_tasks_free(ctl->tasks);
	for (i = 0; i < ctl->nfeeds; i++)
		ctl_feed_clear(&ctl->feeds[i]);
	free(ctl->feeds);
	if (ctl->loop != NULL) {
		for (i = 0; i < CTL_SOCKS; i++)
			loop_unwatch_fd(ctl->loop, ctl->socks[i].fd);
		if (ctl->reap_timer != 0)
			loop_cancel_timer(ctl->loop, ctl->reap_timer);
		if (ctl->accept_timer != 0)
			loop_cancel_timer(ctl->loop, ctl->accept_timer);
		if (ctl->room_timer != 0)
			loop_cancel_timer(ctl->loop, ctl->room_timer);
		if (ctl->keepalive_timer != 0)
			loop_cancel_timer(ctl->loop, ctl->keepalive_timer);
		if (ctl->partial_timer != 0)
			loop_cancel_timer(ctl->loop, ctl->partial_timer);
	}
	if (ctl->jt_handle != -1)
		jobtable_unsubscribe(ctl->jt, ctl->jt_handle);
	/* Under the lock, or a deck starting now could lose its new socket. */
	if ((lock = ctl_lock(ctl->socks[CTL_SOCK_FULL].path, &cause)) == -1)
		free(cause);
	for (i = 0; i < CTL_SOCKS; i++)
		ctl_unbind(&ctl->socks[i]);
	if (lock != -1)
		close(lock);
	free(ctl);
}
