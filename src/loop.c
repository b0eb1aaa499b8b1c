/*
 * loop.c: the event loop, one poll() per turn.
 *
 * A turn (loop_run_once) runs the before-sleep hook, waits in poll() until
 * an fd is ready, the next timer is due or max_wait_ms passes, then
 * dispatches in this order: fd callbacks, signal callbacks, expired timers.
 * Finding a watch costs O(1) and adding, cancelling or firing a timer
 * O(log n), so a deck of thousands of jobs pays for poll() and no search.
 *
 * Watches live in a growable array in the order they were added, and the
 * pollfd array handed to poll() is kept beside it: slot 0 is the signal
 * self-pipe (fd -1 while there is none) and watch i is slot i + 1.  Each
 * change to a watch rewrites its own slot, so the set is never rebuilt per
 * turn; only entering or leaving loop_await_urgent's window rewrites every
 * slot.  An array indexed by fd (byfd) finds the live watch of an fd.  A
 * removed watch is only marked dead (its slot polls fd -1) and left in
 * place; the dead are squeezed out, keeping the order of the others,
 * between turns once they are half of the array.  poll()'s ready slots are
 * listed once per turn, and dispatch walks that list.
 *
 * A watch added during dispatch is appended past the polled slots, so it
 * is first polled next turn, and a callback is never called for an fd that
 * was unwatched earlier in the same turn, even if the fd was watched again
 * since (the new watch is a new entry).
 *
 * Timers are one-shot with ids that are never reused and that increase, so
 * (deadline, id) orders them: earliest first, ties in the order of adding.
 * They are kept in a binary min-heap on that key, and an open-addressed
 * index from id to heap position lets a cancel find its timer.  A timer
 * added while timers are being dispatched fires at the earliest in the next
 * turn, so a zero-delay timer that re-arms itself cannot starve the loop.
 *
 * Signals go through a self-pipe: the handler only writes the signal
 * number as one byte to the non-blocking write end, saving errno; the read
 * end is polled and the callbacks run in normal context.  The handler
 * cannot be given an argument, so the write end is the one global of this
 * file (loop_sig_wfd), and only one struct loop at a time may watch
 * signals (a second one gets EBUSY).  Several signals of one kind that
 * arrive in one turn give one callback, as the kernel coalesces them too.
 *
 * Not supported: calling loop_run_once() from inside a callback or the
 * hook (it fails with EBUSY), and loop_free() from inside a callback.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fatal.h"
#include "loop.h"
#include "xmalloc.h"

/* One watched fd; dead marks a removed watch not yet squeezed out. */
struct loop_watch {
	int		 fd;
	short		 events;
	int		 dead;
	int		 urgent;	/* dispatched before the others */
	loop_fd_cb	*cb;
	void		*arg;
};

/* One pending one-shot timer: a node of the heap. */
struct loop_timer {
	uint64_t	 id;
	int64_t		 deadline;
	loop_timer_cb	*cb;
	void		*arg;
};

/* A slot of the timer index: a pending timer's id (0: empty), its place. */
struct loop_tslot {
	uint64_t	 id;
	size_t		 pos;		/* in the heap */
};

/* One watched signal and the disposition it replaced. */
struct loop_signal {
	int		 signo;
	loop_signal_cb	*cb;
	void		*arg;
	struct sigaction old;
};

/*
 * The loop.  watches[i] is polled in pfds[i + 1] and pfds[0] is the
 * self-pipe; byfd[fd] is the index + 1 of fd's live watch, or 0; ready
 * lists this turn's ready watches.  heap holds the timers, a min-heap on
 * (deadline, id), and tidx (a power of two in size, at most half full)
 * maps each one's id to its place in heap.
 */
struct loop {
	struct loop_watch	*watches;	/* in the order added */
	size_t			 nwatches;	/* live and dead */
	size_t			 ndead;
	size_t			 watches_size;	/* pfds has one more */
	size_t			*byfd;
	size_t			 byfd_size;

	struct pollfd		*pfds;
	int			 pfds_await;	/* set for urgent ones only */
	size_t			 npolled;	/* watches polled this turn */
	size_t			*ready;
	size_t			 nready;
	size_t			 ready_size;

	struct loop_timer	*heap;
	size_t			 ntimers;
	size_t			 heap_size;
	struct loop_tslot	*tidx;
	size_t			 tidx_size;	/* 0 before the first timer */
	uint64_t		 next_id;

	struct loop_signal	*signals;
	size_t			 nsignals;
	int			 sig_rfd;	/* self-pipe read end, or -1 */

	loop_hook_cb		*hook;
	void			*hook_arg;

	int			 running;	/* inside loop_run_once */
	int			 stop;
	int			 yield;		/* only urgent ones this turn */
	int64_t			 urgent_until;	/* ms: poll only urgent ones */
};

/*
 * The write end of the signal self-pipe, for the handler; -1 when no loop
 * watches signals.  The only global: a handler has no other way to it.
 */
static volatile sig_atomic_t loop_sig_wfd = -1;

static void	loop_sig_handler(int);
static int	loop_sig_open(struct loop *);
static void	loop_sig_dispatch(struct loop *);
static struct loop_watch *loop_find(struct loop *, int);
static void	loop_watches_grow(struct loop *, int);
static void	loop_pfd_set(struct loop *, size_t);
static void	loop_pfds_await(struct loop *, int);
static void	loop_compact(struct loop *);
static size_t	loop_tidx_home(const struct loop *, uint64_t);
static size_t	loop_tidx_slot(const struct loop *, uint64_t);
static void	loop_tidx_grow(struct loop *);
static void	loop_tidx_del(struct loop *, size_t);
static int	loop_timer_before(const struct loop_timer *,
		    const struct loop_timer *);
static void	loop_heap_put(struct loop *, size_t,
		    const struct loop_timer *);
static void	loop_heap_up(struct loop *, size_t, struct loop_timer);
static void	loop_heap_down(struct loop *, size_t, struct loop_timer);
static void	loop_heap_remove(struct loop *, size_t);
static void	loop_timers_dispatch(struct loop *);
static int	loop_timeout(struct loop *, int64_t);
static int	loop_poll(struct loop *, int64_t);
static int	loop_ready_collect(struct loop *, int);
static void	loop_fds_dispatch(struct loop *);
static int	loop_turn_end(struct loop *, int);

/* Write the signal number to the self-pipe, keeping errno unchanged. */
static void
loop_sig_handler(int signo)
{
	int		saved = errno;
	unsigned char	c = (unsigned char)signo;
	int		fd = loop_sig_wfd;

	if (fd >= 0)
		(void)write(fd, &c, 1);
	errno = saved;
}

/* Return the current time of the monotonic clock in milliseconds. */
int64_t
loop_now_ms(void)
{
	struct timespec	ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		fatal("clock_gettime(CLOCK_MONOTONIC) failed");
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Return the wall clock in milliseconds since the epoch (for records). */
int64_t
loop_wall_ms(void)
{
	struct timespec	ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		fatal("clock_gettime(CLOCK_REALTIME) failed");
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Create an empty loop with no watches, timers or signals. */
struct loop *
loop_new(void)
{
	struct loop	*l;

	l = xcalloc(1, sizeof *l);
	l->sig_rfd = -1;
	l->next_id = 1;
	l->pfds = xcalloc(1, sizeof *l->pfds);
	l->pfds[0].fd = -1;
	return l;
}

/* Restore the signal dispositions the loop changed and free everything. */
void
loop_free(struct loop *l)
{
	size_t	i;

	if (l == NULL)
		return;
	for (i = 0; i < l->nsignals; i++)
		sigaction(l->signals[i].signo, &l->signals[i].old, NULL);
	if (l->sig_rfd >= 0) {
		close(loop_sig_wfd);
		loop_sig_wfd = -1;
		close(l->sig_rfd);
	}
	free(l->signals);
	free(l->watches);
	free(l->byfd);
	free(l->pfds);
	free(l->ready);
	free(l->heap);
	free(l->tidx);
	free(l);
}

/* Find the live watch of fd, or NULL. */
static struct loop_watch *
loop_find(struct loop *l, int fd)
{
	if (fd < 0 || (size_t)fd >= l->byfd_size || l->byfd[fd] == 0)
		return NULL;
	return &l->watches[l->byfd[fd] - 1];
}

/* Make room for one more watch, and for fd in the index by fd. */
static void
loop_watches_grow(struct loop *l, int fd)
{
	size_t	n;

	if (l->nwatches == l->watches_size) {
		l->watches_size = l->watches_size * 2 + 8;
		l->watches = xreallocarray(l->watches, l->watches_size,
		    sizeof *l->watches);
		l->pfds = xreallocarray(l->pfds, l->watches_size + 1,
		    sizeof *l->pfds);
	}
	if ((size_t)fd >= l->byfd_size) {
		n = l->byfd_size * 2 + 64;
		if (n <= (size_t)fd)
			n = (size_t)fd + 1;
		l->byfd = xreallocarray(l->byfd, n, sizeof *l->byfd);
		memset(l->byfd + l->byfd_size, 0,
		    (n - l->byfd_size) * sizeof *l->byfd);
		l->byfd_size = n;
	}
}

/*
 * Write watch i's poll slot from the watch.  A dead or paused watch polls
 * fd -1 (so POLLHUP cannot spin), as does one that is not urgent while the
 * slots are set for loop_await_urgent's window.
 */
static void
loop_pfd_set(struct loop *l, size_t i)
{
	struct loop_watch	*w = &l->watches[i];
	struct pollfd		*p = &l->pfds[i + 1];

	p->fd = w->fd;
	if (w->dead || w->events == 0 || (l->pfds_await && !w->urgent))
		p->fd = -1;
	p->events = w->events;
}

/* Set every watch's slot for polling the urgent watches alone, or all. */
static void
loop_pfds_await(struct loop *l, int await)
{
	size_t	i;

	if (l->pfds_await == await)
		return;
	l->pfds_await = await;
	for (i = 0; i < l->nwatches; i++)
		loop_pfd_set(l, i);
}

/* Watch fd for events, or replace the events and callback of its watch. */
int
loop_watch_fd(struct loop *l, int fd, short events, loop_fd_cb *cb, void *arg)
{
	struct loop_watch	*w;
	size_t			 i;

	if (fd < 0 || cb == NULL) {
		errno = EINVAL;
		return -1;
	}
	if ((w = loop_find(l, fd)) == NULL) {
		loop_watches_grow(l, fd);
		i = l->nwatches++;
		w = &l->watches[i];
		w->fd = fd;
		w->dead = 0;
		w->urgent = 0;
		l->pfds[i + 1].revents = 0;
		l->byfd[fd] = i + 1;
	}
	w->events = events;
	w->cb = cb;
	w->arg = arg;
	loop_pfd_set(l, (size_t)(w - l->watches));
	return 0;
}

/* Change the events polled for fd; 0 pauses the watch without removing it. */
void
loop_set_events(struct loop *l, int fd, short events)
{
	struct loop_watch	*w;

	if ((w = loop_find(l, fd)) != NULL) {
		w->events = events;
		loop_pfd_set(l, (size_t)(w - l->watches));
	}
}

/* Mark fd's watch urgent (dispatched before the others in a turn) or not. */
void
loop_set_urgent(struct loop *l, int fd, int urgent)
{
	struct loop_watch	*w;

	if ((w = loop_find(l, fd)) != NULL) {
		w->urgent = urgent;
		loop_pfd_set(l, (size_t)(w - l->watches));
	}
}

/* Stop watching fd: its watch is marked dead and squeezed out later. */
void
loop_unwatch_fd(struct loop *l, int fd)
{
	struct loop_watch	*w;

	if ((w = loop_find(l, fd)) == NULL)
		return;
	w->dead = 1;
	w->cb = NULL;
	l->byfd[fd] = 0;
	l->ndead++;
	loop_pfd_set(l, (size_t)(w - l->watches));
	loop_compact(l);
}

/*
 * Outside dispatch, once the dead watches are half of the array, remove
 * them with their slots, keeping the order of the others.
 */
static void
loop_compact(struct loop *l)
{
	size_t	i, j;

	if (l->running || l->ndead == 0 || l->ndead * 2 < l->nwatches)
		return;
	for (i = j = 0; i < l->nwatches; i++) {
		if (l->watches[i].dead)
			continue;
		if (i != j) {
			l->watches[j] = l->watches[i];
			l->pfds[j + 1] = l->pfds[i + 1];
		}
		l->byfd[l->watches[j].fd] = j + 1;
		j++;
	}
	l->nwatches = j;
	l->ndead = 0;
}

/* Return the slot of the timer index where id's probe starts. */
static size_t
loop_tidx_home(const struct loop *l, uint64_t id)
{
	/* Fibonacci hashing: consecutive ids spread over the table. */
	return (size_t)((id * UINT64_C(0x9e3779b97f4a7c15)) >> 32) &
	    (l->tidx_size - 1);
}

/* Return the slot of the timer index holding id, or the empty one for it. */
static size_t
loop_tidx_slot(const struct loop *l, uint64_t id)
{
	size_t	i, mask = l->tidx_size - 1;

	for (i = loop_tidx_home(l, id); l->tidx[i].id != 0 &&
	    l->tidx[i].id != id; i = (i + 1) & mask)
		/* nothing */;
	return i;
}

/* Double the timer index if one more timer would fill it over half. */
static void
loop_tidx_grow(struct loop *l)
{
	struct loop_tslot	*old = l->tidx;
	size_t			 oldn = l->tidx_size, i;

	if ((l->ntimers + 1) * 2 <= l->tidx_size)
		return;
	l->tidx_size = oldn == 0 ? 16 : oldn * 2;
	l->tidx = xcalloc(l->tidx_size, sizeof *l->tidx);
	for (i = 0; i < oldn; i++) {
		if (old[i].id != 0)
			l->tidx[loop_tidx_slot(l, old[i].id)] = old[i];
	}
	free(old);
}

/*
 * Empty slot i of the timer index, moving back the entries after it that
 * probed past it, so that every probe still finds its id (no tombstones).
 */
static void
loop_tidx_del(struct loop *l, size_t i)
{
	size_t	j, home, mask = l->tidx_size - 1;

	for (j = (i + 1) & mask; l->tidx[j].id != 0; j = (j + 1) & mask) {
		home = loop_tidx_home(l, l->tidx[j].id);
		/* Movable when the hole is on its way from home to j. */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			l->tidx[i] = l->tidx[j];
			i = j;
		}
	}
	l->tidx[i].id = 0;
}

/* Return 1 if timer a fires before timer b: earlier, or added earlier. */
static int
loop_timer_before(const struct loop_timer *a, const struct loop_timer *b)
{
	if (a->deadline != b->deadline)
		return a->deadline < b->deadline;
	return a->id < b->id;
}

/* Store timer t at place pos of the heap and note the place in the index. */
static void
loop_heap_put(struct loop *l, size_t pos, const struct loop_timer *t)
{
	l->heap[pos] = *t;
	l->tidx[loop_tidx_slot(l, t->id)].pos = pos;
}

/* Put t in the heap at the hole at pos or above it, moving parents down. */
static void
loop_heap_up(struct loop *l, size_t pos, struct loop_timer t)
{
	size_t	parent;

	while (pos > 0) {
		parent = (pos - 1) / 2;
		if (!loop_timer_before(&t, &l->heap[parent]))
			break;
		loop_heap_put(l, pos, &l->heap[parent]);
		pos = parent;
	}
	loop_heap_put(l, pos, &t);
}

/* Put t in the heap at the hole at pos or below it, moving children up. */
static void
loop_heap_down(struct loop *l, size_t pos, struct loop_timer t)
{
	size_t	child;

	for (;;) {
		child = 2 * pos + 1;
		if (child >= l->ntimers)
			break;
		if (child + 1 < l->ntimers &&
		    loop_timer_before(&l->heap[child + 1], &l->heap[child]))
			child++;
		if (!loop_timer_before(&l->heap[child], &t))
			break;
		loop_heap_put(l, pos, &l->heap[child]);
		pos = child;
	}
	loop_heap_put(l, pos, &t);
}

/* Take the timer at place pos out of the heap and the index. */
static void
loop_heap_remove(struct loop *l, size_t pos)
{
	struct loop_timer	last;

	loop_tidx_del(l, loop_tidx_slot(l, l->heap[pos].id));
	last = l->heap[--l->ntimers];
	if (pos == l->ntimers)
		return;
	if (pos > 0 && loop_timer_before(&last, &l->heap[(pos - 1) / 2]))
		loop_heap_up(l, pos, last);
	else
		loop_heap_down(l, pos, last);
}

/* Call cb once, ms milliseconds from now; return the timer's id (never 0). */
uint64_t
loop_add_timer(struct loop *l, int64_t ms, loop_timer_cb *cb, void *arg)
{
	struct loop_timer	t;

	if (ms < 0)
		ms = 0;
	if (ms > INT64_MAX / 2)
		ms = INT64_MAX / 2;
	if (l->ntimers == l->heap_size) {
		l->heap_size = l->heap_size * 2 + 8;
		l->heap = xreallocarray(l->heap, l->heap_size,
		    sizeof *l->heap);
	}
	loop_tidx_grow(l);
	t.id = l->next_id++;
	t.deadline = loop_now_ms() + ms;
	t.cb = cb;
	t.arg = arg;
	l->tidx[loop_tidx_slot(l, t.id)].id = t.id;
	l->ntimers++;
	loop_heap_up(l, l->ntimers - 1, t);
	return t.id;
}

/* Cancel a pending timer; unknown or already fired ids are ignored. */
void
loop_cancel_timer(struct loop *l, uint64_t id)
{
	size_t	i;

	if (id == 0 || l->ntimers == 0)
		return;
	i = loop_tidx_slot(l, id);
	if (l->tidx[i].id == id)
		loop_heap_remove(l, l->tidx[i].pos);
}

/*
 * Fire the timers due now, earliest first, ties in the order of adding.
 * A timer added meanwhile has a deadline of now or later and a larger id
 * than every older one, so it comes after every older due timer: meeting
 * one at the top means those are all fired.
 */
static void
loop_timers_dispatch(struct loop *l)
{
	struct loop_timer	 t;
	uint64_t		 last_id = l->next_id - 1;
	int64_t			 now = loop_now_ms();

	while (l->ntimers > 0 && l->heap[0].deadline <= now &&
	    l->heap[0].id <= last_id) {
		t = l->heap[0];
		loop_heap_remove(l, 0);
		t.cb(t.arg);
	}
}

/* Create the self-pipe for signals, unless another loop owns it. */
static int
loop_sig_open(struct loop *l)
{
	int	fds[2];

	if (l->sig_rfd >= 0)
		return 0;
	if (loop_sig_wfd >= 0) {
		errno = EBUSY;
		return -1;
	}
	if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0)
		return -1;
	l->sig_rfd = fds[0];
	loop_sig_wfd = fds[1];
	l->pfds[0].fd = l->sig_rfd;
	l->pfds[0].events = POLLIN;
	return 0;
}
/* Deliver signo to cb through the self-pipe; a second call replaces cb. */
int
loop_watch_signal(struct loop *l, int signo, loop_signal_cb *cb, void *arg)
{
	struct loop_signal	*s;
	struct sigaction	 sa, old;
	size_t			 i;

	if (cb == NULL || signo <= 0 || signo > UCHAR_MAX) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < l->nsignals; i++) {
		if (l->signals[i].signo == signo) {
			l->signals[i].cb = cb;
			l->signals[i].arg = arg;
			return 0;
		}
	}
	if (loop_sig_open(l) != 0)
		return -1;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = loop_sig_handler;
	sigfillset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(signo, &sa, &old) != 0)
		return -1;

	l->signals = xreallocarray(l->signals, l->nsignals + 1,
	    sizeof *l->signals);
	s = &l->signals[l->nsignals++];
	s->signo = signo;
	s->cb = cb;
	s->arg = arg;
	s->old = old;
	return 0;
}

/* Drain the self-pipe and call each signal's callback once. */
static void
loop_sig_dispatch(struct loop *l)
{
	unsigned char	buf[256];
	unsigned char	seen[UCHAR_MAX + 1];
	ssize_t		n, k;
	size_t		i;
	int		any = 0;

	memset(seen, 0, sizeof seen);
	for (;;) {
		n = read(l->sig_rfd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (k = 0; k < n; k++)
			seen[buf[k]] = any = 1;
	}
	if (!any)
		return;
	/* The callbacks may add signals, so index and re-check the count. */
	for (i = 0; i < l->nsignals; i++) {
		if (seen[l->signals[i].signo]) {
			seen[l->signals[i].signo] = 0;
			l->signals[i].cb(l->signals[i].signo,
			    l->signals[i].arg);
		}
	}
}

/* Set the hook called once per turn just before the loop waits. */
void
loop_set_hook(struct loop *l, loop_hook_cb *cb, void *arg)
{
	l->hook = cb;
	l->hook_arg = arg;
}


/* Return poll()'s timeout: the next timer or max_wait_ms, -1 for none. */
static int
loop_timeout(struct loop *l, int64_t max_wait_ms)
{
	int64_t	wait = max_wait_ms < 0 ? -1 : max_wait_ms;
	int64_t	due;

	if (l->ntimers > 0) {
		due = l->heap[0].deadline - loop_now_ms();
		if (due < 0)
			due = 0;
		if (wait < 0 || due < wait)
			wait = due;
	}
	if (wait > INT_MAX)
		wait = INT_MAX;
	return (int)wait;
}

/*
 * Wait in poll() for this turn: on every watch, or on the urgent ones
 * alone while loop_await_urgent's window is open; return poll()'s result
 * with its errno.
 */
static int
loop_poll(struct loop *l, int64_t max_wait_ms)
{
	int	n, saved, timeout, await;
	int64_t	left;

	if (l->urgent_until != 0 && loop_now_ms() >= l->urgent_until)
		l->urgent_until = 0;
	await = l->urgent_until != 0;
	loop_pfds_await(l, await);
	l->npolled = l->nwatches;

	/* A hook that stopped the loop must not wait for the next event. */
	timeout = l->stop ? 0 : loop_timeout(l, max_wait_ms);
	if (await) {
		left = l->urgent_until - loop_now_ms();
		if (timeout < 0 || left < timeout)
			timeout = left < 0 ? 0 : (int)left;
	}
	n = poll(l->pfds, (nfds_t)l->npolled + 1, timeout);
	saved = errno;
	/* An answer came (or the wait is over): back to every watch. */
	if (await && (n != 0 || timeout == 0 ||
	    loop_now_ms() >= l->urgent_until))
		l->urgent_until = 0;
	errno = saved;
	return n;
}

/*
 * List the polled watches that poll() found ready (n of the slots, or
 * none when a signal interrupted it), in watch order; return 1 if the
 * self-pipe has a signal's byte.
 */
static int
loop_ready_collect(struct loop *l, int n)
{
	size_t	i, want;
	int	sig_ready;

	l->nready = 0;
	if (n < 0)	/* EINTR: the signal's byte is in the pipe. */
		return l->sig_rfd >= 0;
	sig_ready = l->pfds[0].revents != 0;
	want = (size_t)n - (size_t)sig_ready;
	if (l->ready_size < l->npolled) {
		l->ready_size = l->watches_size;
		l->ready = xreallocarray(l->ready, l->ready_size,
		    sizeof *l->ready);
	}
	for (i = 0; l->nready < want && i < l->npolled; i++) {
		if (l->pfds[i + 1].revents != 0)
			l->ready[l->nready++] = i;
	}
	return sig_ready;
}

/*
 * Call the callbacks of the ready watches: urgent watches first (the
 * keyboard, the focused job), then the rest, unless an urgent callback
 * asked for the turn to end early so that the hook can draw its result
 * now; the others stay readable and are served next turn.  A watch's state
 * is read when its turn comes: earlier callbacks may have changed it.
 */
static void
loop_fds_dispatch(struct loop *l)
{
	struct loop_watch	*w;
	struct pollfd		*p;
	size_t			 k;
	short			 revents;
	int			 pass;

	l->yield = 0;
	for (pass = 1; pass >= 0 && !(pass == 0 && l->yield); pass--) {
		for (k = 0; k < l->nready; k++) {
			/* Re-read: earlier callbacks may have grown them. */
			w = &l->watches[l->ready[k]];
			p = &l->pfds[l->ready[k] + 1];
			if (p->revents == 0 || w->dead ||
			    (w->urgent != 0) != pass)
				continue;
			revents = p->revents &
			    (w->events | POLLHUP | POLLERR | POLLNVAL);
			p->revents = 0;
			if (revents != 0)
				w->cb(w->fd, revents, w->arg);
		}
	}
}

/* Leave a turn, squeezing out the dead watches; return rc, errno kept. */
static int
loop_turn_end(struct loop *l, int rc)
{
	int	saved = errno;

	l->running = 0;
	loop_compact(l);
	errno = saved;
	return rc;
}

/* Run one turn: hook, poll, fd callbacks, signals, expired timers. */
int
loop_run_once(struct loop *l, int64_t max_wait_ms)
{
	int	n, sig_ready;

	if (l->running) {
		errno = EBUSY;
		return -1;
	}
	l->running = 1;

	if (l->hook != NULL)
		l->hook(l->hook_arg);
	n = loop_poll(l, max_wait_ms);
	if (n < 0 && errno != EINTR)
		return loop_turn_end(l, -1);
	sig_ready = loop_ready_collect(l, n);

	loop_fds_dispatch(l);
	if (sig_ready)
		loop_sig_dispatch(l);
	loop_timers_dispatch(l);
	return loop_turn_end(l, 0);
}

/* Run turns until loop_stop() is called; then clear the stop and return 0. */
int
loop_run(struct loop *l)
{
	while (!l->stop) {
		if (loop_run_once(l, -1) != 0)
			return -1;
	}
	l->stop = 0;
	return 0;
}

/* From an urgent callback: end this turn's dispatch after the urgent ones. */
void
loop_yield(struct loop *l)
{
	l->yield = 1;
}

/*
 * From a callback: end this turn after the urgent watches and, for up to ms
 * milliseconds, wait on the urgent watches alone, so the answer to what was
 * just sent (a key's echo) is not read behind other work.
 */
void
loop_await_urgent(struct loop *l, int ms)
{
	l->yield = 1;
	l->urgent_until = loop_now_ms() + (ms > 0 ? ms : 0);
	if (ms <= 0)
		l->urgent_until = 0;
}

/* Make loop_run() return after the current turn. */
void
loop_stop(struct loop *l)
{
	l->stop = 1;
}
