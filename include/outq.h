/*
 * outq: bytes queued for one fd whose reader may stall, written without
 * ever blocking the loop.  The one writer of jobdeck run's stdout and
 * stderr, jobdeck up's stdout, jobdeck mcp's stdout and every control
 * socket's replies and streams.
 *
 * Adding never writes: the owner adds what it has, then outq_flush()
 * writes as much as the fd takes now (until EAGAIN), and what is left
 * goes out as the reader takes it.  The queue arms the loop for that
 * itself when it watches its fd (OUTQ_WATCH); an owner that polls the fd
 * for more than writing (a socket it reads too) keeps the one watch,
 * asks for POLLOUT while outq_pending() is not 0 and calls outq_flush()
 * on it.  An fd of outq_open() that outfd.h can only poll (a socket, a
 * device as our stdout) is written PIPE_BUF bytes a POLLOUT, which it
 * takes without blocking; the queue watches it (OUTQ_WATCH is implied).
 *
 * A reader that stalls costs memory, never time.  What each owner does
 * about it is its own policy, built from these:
 *  - outq_pending(): the owner stops reading its source while bytes wait
 *    (backpressure: jobdeck run, a log stream of the control socket);
 *  - a limit (outq_set_limit()): an add that would pass it is refused
 *    and counted lost (OUTQ_LIMIT_REFUSE: jobdeck up drops a line, and
 *    outq_add_always() takes what must not be dropped), or makes the
 *    queue fail with ENOBUFS (OUTQ_LIMIT_FAIL: jobdeck mcp gives up, an
 *    events client is let go);
 *  - a stall limit (outq_set_stall()): the stalled callback when bytes
 *    wait and the reader took none for so long (nothing written, and for
 *    a socket, pipe or terminal, nothing of what the fd holds read), and
 *    again each time as long after.
 * A write that fails (EPIPE: the reader went away; any other error) fails
 * the queue: what it holds is dropped, it stops watching, closes an fd
 * it opened, writes nothing more, and outq_error() says why; with
 * OUTQ_HANGUP a reader that leaves while nothing waits fails it too
 * (EPIPE), as soon as the loop sees it.  The process must not die of
 * SIGPIPE (jobdeck ignores it; a socket is written with MSG_NOSIGNAL).
 *
 * The callbacks come from the loop only (the queue's watch, its stall
 * timer), never from a call of the owner's; they may add, flush, drop or
 * close the queue, but not free it.
 *
 * Ownership: the queue is its owner's, as is the fd given to outq_new(),
 * which the owner closes after outq_close() or outq_free().  An fd that
 * outq_open() opened again is the queue's, closed when it fails, is
 * closed, or is freed.
 */
#ifndef JOBDECK_OUTQ_H
#define JOBDECK_OUTQ_H

#include <stddef.h>
#include <stdint.h>

struct loop;
struct outq;

/* What the loop tells an owner about its queue. */
struct outq_cbs {
	/* The fd had room (written what it took), or the queue failed. */
	void	(*written)(struct outq *, void *);
	/* Bytes wait and the reader took none for the stall limit. */
	void	(*stalled)(struct outq *, void *);
};

#define OUTQ_WATCH	0x1	/* the queue watches its fd for POLLOUT */
#define OUTQ_HANGUP	0x2	/* ... and, idle, for the reader's leaving */

/* What an add over the limit does. */
enum outq_limit {
	OUTQ_LIMIT_REFUSE,	/* the bytes are refused, counted lost */
	OUTQ_LIMIT_FAIL		/* the queue fails (ENOBUFS) */
};

struct outq	*outq_new(struct loop *, int fd, int flags,
		    const struct outq_cbs *, void *arg);
struct outq	*outq_open(struct loop *, int fd, int flags,
		    const struct outq_cbs *, void *arg);
void		 outq_free(struct outq *);
void		 outq_close(struct outq *);

void		 outq_set_limit(struct outq *, size_t max, enum outq_limit);
void		 outq_set_stall(struct outq *, int64_t ms);

int		 outq_add(struct outq *, const void *, size_t);
int		 outq_add_always(struct outq *, const void *, size_t);
int		 outq_add_owned(struct outq *, char *, size_t);
int		 outq_flush(struct outq *);
void		 outq_drop(struct outq *);

size_t		 outq_pending(const struct outq *);
int		 outq_error(const struct outq *);
uint64_t	 outq_lost(const struct outq *);

#endif
