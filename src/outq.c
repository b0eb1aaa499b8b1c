/*
 * outq.c: bytes for an fd whose reader may stall, written as it takes
 * them (see outq.h).
 *
 * The bytes wait in buf[off] to buf[len]; the part sent is reclaimed
 * when it is at least as big as what waits (or room is needed), so a
 * reader that takes a little at a time costs no quadratic copying, and a
 * big buffer is given back once it is empty.  The stall clock (moved)
 * starts when bytes begin to wait and again at each sign of the reader:
 * a write that took some, or fewer unread bytes in the fd than at the
 * last look (SIOCOUTQ of a socket, FIONREAD of a pipe, TIOCOUTQ of a
 * terminal), which a reader that takes less than the fd needs to say
 * POLLOUT leaves.
 */
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <linux/sockios.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fatal.h"
#include "loop.h"
#include "outfd.h"
#include "outq.h"
#include "xmalloc.h"

#define OUTQ_KEEP	65536	/* an empty buffer up to this size is kept */

/* What the fd is, for how it is written and how its unread bytes show. */
enum outq_kind {
	OUTQ_OTHER,
	OUTQ_SOCKET,		/* send(MSG_NOSIGNAL), SIOCOUTQ */
	OUTQ_PIPE,		/* FIONREAD */
	OUTQ_TTY		/* TIOCOUTQ */
};

struct outq {
	struct loop		*loop;
	int			 fd;		/* -1 once failed */
	int			 own;		/* fd is ours to close */
	int			 flags;		/* OUTQ_WATCH, OUTQ_HANGUP */
	enum outq_kind		 kind;
	int			 polled;	/* PIPE_BUF bytes a POLLOUT */
	int			 ready;		/* ... the loop said POLLOUT */
	int			 watched;	/* the fd is watched, for: */
	short			 events;
	const struct outq_cbs	*cbs;
	void			*arg;

	char			*buf;		/* buf[off] to buf[len] waits */
	size_t			 off;
	size_t			 len;
	size_t			 size;
	size_t			 limit;		/* 0: none */
	enum outq_limit		 how;
	int			 error;		/* why it failed, or 0 */
	uint64_t		 lost;		/* bytes never written */

	int64_t			 stall_ms;	/* 0: no stall limit */
	int64_t			 moved;		/* the reader's last sign */
	int			 unread;	/* the fd's unread bytes then */
	uint64_t		 stall_timer;
};

static void	outq_io_cb(int, short, void *);
static void	outq_stall_cb(void *);

/* Return how many bytes wait. */
size_t
outq_pending(const struct outq *q)
{
	return q->len - q->off;
}

/* Return why the queue writes nothing any more (an errno), or 0. */
int
outq_error(const struct outq *q)
{
	return q->error;
}

/* Return how many bytes given to the queue were never written. */
uint64_t
outq_lost(const struct outq *q)
{
	return q->lost;
}

/* Return how many bytes the fd holds that its reader has not read, or -1. */
static int
outq_unread(const struct outq *q)
{
	unsigned long	req;
	int		n;

	switch (q->kind) {
	case OUTQ_SOCKET:
		req = SIOCOUTQ;
		break;
	case OUTQ_PIPE:
		req = FIONREAD;
		break;
	case OUTQ_TTY:
		req = TIOCOUTQ;
		break;
	default:
		return -1;
	}
	if (q->fd == -1 || ioctl(q->fd, req, &n) != 0)
		return -1;
	return n;
}

/* Poll the fd for what the queue needs: room while bytes wait, a hangup. */
static void
outq_watch(struct outq *q)
{
	short	events = 0;

	if (q->error == 0 && (q->flags & OUTQ_WATCH)) {
		if (outq_pending(q) > 0)
			events = POLLOUT;
		else if (q->flags & OUTQ_HANGUP)
			events = POLLPRI;	/* and POLLERR, POLLHUP */
	}
	if (q->loop == NULL || q->fd == -1)
		return;
	if (events == 0) {
		if (q->watched)
			loop_unwatch_fd(q->loop, q->fd);
		q->watched = 0;
	} else if (!q->watched) {
		if (loop_watch_fd(q->loop, q->fd, events, outq_io_cb, q) == 0)
			q->watched = 1;
	} else if (events != q->events)
		loop_set_events(q->loop, q->fd, events);
	q->events = events;
}

/* Keep the stall timer armed exactly while bytes wait under a limit. */
static void
outq_timer(struct outq *q)
{
	int64_t	ms;
	int	want;

	want = q->loop != NULL && q->stall_ms > 0 && q->error == 0 &&
	    outq_pending(q) > 0;
	if (want && q->stall_timer == 0) {
		ms = q->moved + q->stall_ms - loop_now_ms();
		q->stall_timer = loop_add_timer(q->loop, ms > 0 ? ms : 0,
		    outq_stall_cb, q);
	} else if (!want && q->stall_timer != 0) {
		loop_cancel_timer(q->loop, q->stall_timer);
		q->stall_timer = 0;
	}
}

/*
 * Fail the queue with err: drop what it holds, stop watching and timing,
 * close the fd if it is ours; nothing is written any more.
 */
static void
outq_fail(struct outq *q, int err)
{
	if (q->error != 0)
		return;
	q->error = err;
	q->lost += outq_pending(q);
	q->off = q->len = 0;
	outq_watch(q);
	outq_timer(q);
	if (q->own && q->fd != -1)
		close(q->fd);
	q->own = 0;
	q->fd = -1;
	free(q->buf);
	q->buf = NULL;
	q->size = 0;
}

/* Make a queue for fd (the caller's, -1 for none: the queue has failed). */
struct outq *
outq_new(struct loop *loop, int fd, int flags, const struct outq_cbs *cbs,
    void *arg)
{
	struct outq	*q;
	struct stat	 st;

	q = xcalloc(1, sizeof *q);
	q->loop = loop;
	q->fd = fd;
	q->flags = flags;
	q->cbs = cbs;
	q->arg = arg;
	if (fd == -1) {
		q->error = EBADF;
		return q;
	}
	if (fstat(fd, &st) != 0)
		st.st_mode = 0;
	if (S_ISSOCK(st.st_mode))
		q->kind = OUTQ_SOCKET;
	else if (S_ISFIFO(st.st_mode))
		q->kind = OUTQ_PIPE;
	else if (isatty(fd))
		q->kind = OUTQ_TTY;
	outq_watch(q);
	return q;
}

/*
 * Make a queue for our own fd (1 or 2) as outfd.h opens it: a private
 * non-blocking opening of a pipe or terminal (the queue's), the fd itself
 * for a file, or one written PIPE_BUF bytes a POLLOUT (OUTQ_WATCH is
 * implied); a closed fd gives a queue that has failed (EBADF).
 */
struct outq *
outq_open(struct loop *loop, int fd, int flags, const struct outq_cbs *cbs,
    void *arg)
{
	struct outq	*q;
	enum outfd_mode	 mode;
	int		 out, own;

	mode = outfd_open(fd, &out, &own);
	if (mode == OUTFD_POLLED)
		flags |= OUTQ_WATCH;
	q = outq_new(loop, mode == OUTFD_NONE ? -1 : out, flags, cbs, arg);
	q->own = own;
	q->polled = mode == OUTFD_POLLED;
	return q;
}

/* Free a queue: what it holds is lost; an fd of its own is closed. */
void
outq_free(struct outq *q)
{
	if (q == NULL)
		return;
	if (q->watched && q->loop != NULL && q->fd != -1)
		loop_unwatch_fd(q->loop, q->fd);
	if (q->stall_timer != 0)
		loop_cancel_timer(q->loop, q->stall_timer);
	if (q->own && q->fd != -1)
		close(q->fd);
	free(q->buf);
	free(q);
}

/* Stop writing: what the queue holds is lost, it fails (ECANCELED). */
void
outq_close(struct outq *q)
{
	outq_fail(q, ECANCELED);
}

/* Limit the bytes that may wait: max (0: none), and what passing it does. */
void
outq_set_limit(struct outq *q, size_t max, enum outq_limit how)
{
	q->limit = max;
	q->how = how;
}

/*
 * Call the stalled callback when bytes wait and the reader has taken none
 * for ms (0: never); the clock starts now.
 */
void
outq_set_stall(struct outq *q, int64_t ms)
{
	q->stall_ms = ms > 0 ? ms : 0;
	q->moved = loop_now_ms();
	q->unread = outq_unread(q);
	if (q->stall_timer != 0) {
		loop_cancel_timer(q->loop, q->stall_timer);
		q->stall_timer = 0;
	}
	outq_timer(q);
}

/*
 * Say whether n more bytes may be queued: 0 if so; -1 if the queue has
 * failed, or the limit refuses them or fails the queue (the bytes are
 * counted lost).
 */
static int
outq_admit(struct outq *q, size_t n, int limited)
{
	size_t	pending = outq_pending(q);

	if (q->error == 0 && limited && q->limit > 0 &&
	    (pending > q->limit || n > q->limit - pending)) {
		if (q->how == OUTQ_LIMIT_FAIL)
			outq_fail(q, ENOBUFS);
		else {
			q->lost += n;
			return -1;
		}
	}
	if (q->error != 0) {
		q->lost += n;
		return -1;
	}
	return 0;
}

/* Make room for n more bytes after what waits. */
static void
outq_room(struct outq *q, size_t n)
{
	size_t	pending = outq_pending(q), size;

	if (n > SIZE_MAX - pending)
		fatal("outq: %zu bytes more than %zu", n, pending);
	if (q->off > 0 && (q->len + n > q->size || q->off >= pending)) {
		memmove(q->buf, q->buf + q->off, pending);
		q->off = 0;
		q->len = pending;
	}
	if (q->len + n <= q->size)
		return;
	size = q->size < 4096 ? 4096 : q->size;
	while (size < q->len + n)
		size = size > SIZE_MAX / 2 ? q->len + n : size * 2;
	q->buf = xreallocarray(q->buf, size, 1);
	q->size = size;
}

/* Bytes were queued (the first to wait if was_empty): arm the loop. */
static void
outq_queued(struct outq *q, int was_empty)
{
	if (was_empty) {
		q->moved = loop_now_ms();
		q->unread = outq_unread(q);
	}
	outq_watch(q);
	outq_timer(q);
}

/* Queue n bytes within the limit, or past it if !limited. */
static int
outq_append(struct outq *q, const void *p, size_t n, int limited)
{
	int	was_empty = outq_pending(q) == 0;

	if (outq_admit(q, n, limited) != 0)
		return -1;
	if (n == 0)
		return 0;
	outq_room(q, n);
	memcpy(q->buf + q->len, p, n);
	q->len += n;
	outq_queued(q, was_empty);
	return 0;
}

/*
 * Queue n bytes, within the limit; return -1 if they are not (the queue
 * failed, now or before; or the limit refused them).  Nothing is written.
 */
int
outq_add(struct outq *q, const void *p, size_t n)
{
	return outq_append(q, p, n, 1);
}

/* Queue n bytes past the limit too (what must not be dropped). */
int
outq_add_always(struct outq *q, const void *p, size_t n)
{
	return outq_append(q, p, n, 0);
}

/*
 * Queue buf's n bytes, within the limit, and free buf; an idle queue
 * takes buf itself instead of a copy.
 */
int
outq_add_owned(struct outq *q, char *buf, size_t n)
{
	int	rc;

	if (outq_pending(q) > 0 || n == 0 || q->error != 0) {
		rc = outq_append(q, buf, n, 1);
		free(buf);
		return rc;
	}
	if (outq_admit(q, n, 1) != 0) {
		free(buf);
		return -1;
	}
	free(q->buf);
	q->buf = buf;
	q->off = 0;
	q->len = q->size = n;
	outq_queued(q, 1);
	return 0;
}

/* Write n bytes from p to the fd without waiting. */
static ssize_t
outq_write(struct outq *q, const char *p, size_t n)
{
	if (q->kind == OUTQ_SOCKET)
		return send(q->fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
	return write(q->fd, p, n);
}

/*
 * Write what the fd takes now (an fd that is only polled: PIPE_BUF bytes,
 * once the loop has said POLLOUT), and have the loop wait for room for
 * the rest.  Return -1 if the queue has failed (now or before).
 */
int
outq_flush(struct outq *q)
{
	size_t	n;
	ssize_t	w;
	int	wrote = 0;

	if (q->error != 0)
		return -1;
	while (q->off < q->len && (!q->polled || q->ready)) {
		n = q->len - q->off;
		if (q->polled && n > PIPE_BUF)
			n = PIPE_BUF;
		w = outq_write(q, q->buf + q->off, n);
		if (w == -1 && errno == EINTR)
			continue;
		q->ready = 0;
		if (w == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (w <= 0) {
			outq_fail(q, w == 0 ? EIO : errno);
			return -1;
		}
		q->off += (size_t)w;
		wrote = 1;
	}
	if (wrote) {
		q->moved = loop_now_ms();
		q->unread = outq_unread(q);
	}
	if (q->off == q->len) {
		q->off = q->len = 0;
		if (q->size > OUTQ_KEEP) {
			free(q->buf);
			q->buf = NULL;
			q->size = 0;
		}
	}
	outq_watch(q);
	outq_timer(q);
	return 0;
}

/* Give up what the queue holds (counted lost); it goes on. */
void
outq_drop(struct outq *q)
{
	q->lost += outq_pending(q);
	q->off = q->len = 0;
	outq_watch(q);
	outq_timer(q);
}

/*
 * The loop's word on the fd: room (write more) or, with nothing waiting,
 * the reader gone (fail); then tell the owner.
 */
static void
outq_io_cb(int fd, short revents, void *arg)
{
	struct outq	*q = arg;

	(void)fd;
	if (outq_pending(q) > 0) {
		q->ready = 1;
		(void)outq_flush(q);
	} else if (revents & POLLNVAL)
		outq_fail(q, EBADF);
	else if (revents & (POLLERR | POLLHUP))
		outq_fail(q, EPIPE);
	else {
		outq_watch(q);
		return;
	}
	if (q->cbs != NULL && q->cbs->written != NULL)
		q->cbs->written(q, q->arg);
}

/*
 * The stall limit may be over: if the reader has given no sign since the
 * last look for stall_ms, tell the owner, and again as long after.
 */
static void
outq_stall_cb(void *arg)
{
	struct outq	*q = arg;
	int64_t		 now = loop_now_ms();
	int		 unread = outq_unread(q);

	q->stall_timer = 0;
	if (unread != -1 && q->unread != -1 && unread < q->unread)
		q->moved = now;
	q->unread = unread;
	if (now - q->moved >= q->stall_ms) {
		q->moved = now;
		if (q->cbs != NULL && q->cbs->stalled != NULL)
			q->cbs->stalled(q, q->arg);
	}
	outq_timer(q);
}
