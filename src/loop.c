/*
 * loop.c: the event loop, one poll() per turn.
 *
 * A turn (loop_run_once) runs the before-sleep hook, waits in poll() until
 * an fd is ready, the next timer is due or max_wait_ms passes, then
 * dispatches in this order: fd callbacks, signal callbacks, expired timers.
 *
 * Watches live in a growable array; the pollfd array built for a turn has
 * one slot per watch that existed when poll() was called, at the same
 * index.  While dispatching, a removed watch is only marked dead (and
 * skipped); the array is compacted once dispatch is over.  A watch added
 * during dispatch is appended past the polled slots, so it is first polled
 * next turn, and a callback is never called for an fd that was unwatched
 * earlier in the same turn, even if the fd was watched again since.
 *
 * Timers are one-shot with ids that are never reused; a timer added while
 * timers are being dispatched fires at the earliest in the next turn, so a
 * zero-delay timer that re-arms itself cannot starve the loop.
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

/* One watched fd; dead marks a watch removed during dispatch. */
struct loop_watch {
	int		 fd;
	short		 events;
	int		 dead;
	int		 urgent;	/* dispatched before the others */
	loop_fd_cb	*cb;
	void		*arg;
};

/* One pending one-shot timer. */
struct loop_timer {
	uint64_t	 id;
	int64_t		 deadline;
	loop_timer_cb	*cb;
	void		*arg;
};

/* One watched signal and the disposition it replaced. */
struct loop_signal {
	int		 signo;
	loop_signal_cb	*cb;
	void		*arg;
	struct sigaction old;
};

struct loop {
	struct loop_watch	*watches;
	size_t			 nwatches;
	size_t			 watches_size;
	int			 compact;	/* dead watches to remove */

	struct pollfd		*pfds;
	size_t			 pfds_size;

	struct loop_timer	*timers;
	size_t			 ntimers;
	size_t			 timers_size;
	uint64_t		 next_id;

	struct loop_signal	*signals;
	size_t			 nsignals;
	int			 sig_rfd;	/* self-pipe read end, or -1 */

	loop_hook_cb		*hook;
	void			*hook_arg;

	int			 running;	/* inside loop_run_once */
	int			 stop;
	int			 yield;	/* skip the non-urgent watches this turn */
	int64_t			 urgent_until;	/* ms: poll only urgent watches till then */
};

/*
 * The write end of the signal self-pipe, for the handler; -1 when no loop
 * watches signals.  The only global: a handler has no other way to it.
 */
static volatile sig_atomic_t loop_sig_wfd = -1;

static void	loop_sig_handler(int);
static int	loop_sig_open(struct loop *);
static void	loop_sig_dispatch(struct loop *);
static void	loop_compact(struct loop *);
static struct loop_watch *loop_find(struct loop *, int);
static int	loop_timer_before(const struct loop_timer *,
		    const struct loop_timer *);
static void	loop_timers_dispatch(struct loop *);
static int	loop_timeout(struct loop *, int64_t);

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
	free(l->pfds);
	free(l->timers);
	free(l);
}

/* Find the live watch of fd, or NULL. */
static struct loop_watch *
loop_find(struct loop *l, int fd)
{
	size_t	i;

	for (i = 0; i < l->nwatches; i++) {
		if (!l->watches[i].dead && l->watches[i].fd == fd)
			return &l->watches[i];
	}
	return NULL;
}

/* Watch fd for events, or replace the events and callback of its watch. */
int
loop_watch_fd(struct loop *l, int fd, short events, loop_fd_cb *cb, void *arg)
{
	struct loop_watch	*w;

	if (fd < 0 || cb == NULL) {
		errno = EINVAL;
		return -1;
	}
	if ((w = loop_find(l, fd)) == NULL) {
		if (l->nwatches == l->watches_size) {
			l->watches_size = l->watches_size * 2 + 8;
			l->watches = xreallocarray(l->watches,
			    l->watches_size, sizeof *l->watches);
		}
		w = &l->watches[l->nwatches++];
		w->urgent = 0;
	}
	w->fd = fd;
	w->events = events;
	w->dead = 0;
	w->cb = cb;
	w->arg = arg;
	return 0;
}

/* Change the events polled for fd; 0 pauses the watch without removing it. */
void
loop_set_events(struct loop *l, int fd, short events)
{
	struct loop_watch	*w;

	if ((w = loop_find(l, fd)) != NULL)
		w->events = events;
}

/* Mark fd's watch urgent (dispatched before the others in a turn) or not. */
void
loop_set_urgent(struct loop *l, int fd, int urgent)
{
	struct loop_watch	*w;

	if ((w = loop_find(l, fd)) != NULL)
		w->urgent = urgent;
}

/* Stop watching fd; during dispatch the watch is only marked dead. */
void
loop_unwatch_fd(struct loop *l, int fd)
{
	struct loop_watch	*w;

	if ((w = loop_find(l, fd)) == NULL)
		return;
	if (l->running) {
		w->dead = 1;
		w->cb = NULL;
		l->compact = 1;
		return;
	}
	memmove(w, w + 1, (size_t)(&l->watches[l->nwatches] - (w + 1)) *
	    sizeof *w);
	l->nwatches--;
}

/* Remove the watches marked dead, keeping the order of the others. */
static void
loop_compact(struct loop *l)
{
	size_t	i, j;

	for (i = j = 0; i < l->nwatches; i++) {
		if (!l->watches[i].dead)
			l->watches[j++] = l->watches[i];
	}
	l->nwatches = j;
	l->compact = 0;
}

/* Call cb once, ms milliseconds from now; return the timer's id (never 0). */
uint64_t
loop_add_timer(struct loop *l, int64_t ms, loop_timer_cb *cb, void *arg)
{
	struct loop_timer	*t;

	if (ms < 0)
		ms = 0;
	if (ms > INT64_MAX / 2)
		ms = INT64_MAX / 2;
	if (l->ntimers == l->timers_size) {
		l->timers_size = l->timers_size * 2 + 8;
		l->timers = xreallocarray(l->timers, l->timers_size,
		    sizeof *l->timers);
	}
	t = &l->timers[l->ntimers++];
	t->id = l->next_id++;
	t->deadline = loop_now_ms() + ms;
	t->cb = cb;
	t->arg = arg;
	return t->id;
}

/* Cancel a pending timer; unknown or already fired ids are ignored. */
void
loop_cancel_timer(struct loop *l, uint64_t id)
{
	size_t	i;

	for (i = 0; i < l->ntimers; i++) {
		if (l->timers[i].id == id) {
			memmove(&l->timers[i], &l->timers[i + 1],
			    (l->ntimers - i - 1) * sizeof *l->timers);
			l->ntimers--;
			return;
		}
	}
}

/* Return 1 if timer a fires before timer b: earlier, or added earlier. */
static int
loop_timer_before(const struct loop_timer *a, const struct loop_timer *b)
{
	if (a->deadline != b->deadline)
		return a->deadline < b->deadline;
	return a->id < b->id;
}

/* Fire the timers due now, earliest first, ties in the order of adding. */
static void
loop_timers_dispatch(struct loop *l)
{
	struct loop_timer	 t;
	uint64_t		 last_id = l->next_id - 1;
	int64_t			 now = loop_now_ms();
	size_t			 i, best;

	for (;;) {
		best = SIZE_MAX;
		for (i = 0; i < l->ntimers; i++) {
			if (l->timers[i].id > last_id ||
			    l->timers[i].deadline > now)
				continue;
			if (best == SIZE_MAX || loop_timer_before(&l->timers[i],
			    &l->timers[best]))
				best = i;
		}
		if (best == SIZE_MAX)
			return;
		t = l->timers[best];
		memmove(&l->timers[best], &l->timers[best + 1],
		    (l->ntimers - best - 1) * sizeof *l->timers);
		l->ntimers--;
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
	int64_t	now, due;
	size_t	i;

	if (l->ntimers > 0) {
		now = loop_now_ms();
		for (i = 0; i < l->ntimers; i++) {
			due = l->timers[i].deadline - now;
			if (due < 0)
				due = 0;
			if (wait < 0 || due < wait)
				wait = due;
		}
	}
	if (wait > INT_MAX)
		wait = INT_MAX;
	return (int)wait;
}

/* Run one turn: hook, poll, fd callbacks, signals, expired timers. */
int
loop_run_once(struct loop *l, int64_t max_wait_ms)
{
	struct loop_watch	*w;
	struct pollfd		*p;
	size_t			 npoll, nfds, i;
	short			 revents;
	int			 n, saved, sig_ready = 0, pass;
	int			 timeout, await;
	int64_t			 left;

	if (l->running) {
		errno = EBUSY;
		return -1;
	}
	l->running = 1;

	if (l->hook != NULL)
		l->hook(l->hook_arg);

	npoll = l->nwatches;
	nfds = npoll + (l->sig_rfd >= 0);
	if (nfds > l->pfds_size) {
		l->pfds_size = nfds;
		l->pfds = xreallocarray(l->pfds, nfds, sizeof *l->pfds);
	}
	if (l->urgent_until != 0 && loop_now_ms() >= l->urgent_until)
		l->urgent_until = 0;
	await = l->urgent_until != 0;
	for (i = 0; i < npoll; i++) {
		w = &l->watches[i];
		p = &l->pfds[i];
		/* A paused watch is skipped so POLLHUP cannot spin. */
		p->fd = (w->dead || w->events == 0) ? -1 : w->fd;
		if (await && !w->urgent)
			p->fd = -1;
		p->events = w->events;
		p->revents = 0;
	}
	if (l->sig_rfd >= 0) {
		l->pfds[npoll].fd = l->sig_rfd;
		l->pfds[npoll].events = POLLIN;
		l->pfds[npoll].revents = 0;
	}

	/* A hook that stopped the loop must not wait for the next event. */
	timeout = l->stop ? 0 : loop_timeout(l, max_wait_ms);
	if (await) {
		left = l->urgent_until - loop_now_ms();
		if (timeout < 0 || left < timeout)
			timeout = left < 0 ? 0 : (int)left;
	}
	n = poll(l->pfds, (nfds_t)nfds, timeout);
	/* An answer came (or the wait is over): back to every watch. */
	if (await && (n != 0 || timeout == 0 ||
	    loop_now_ms() >= l->urgent_until))
		l->urgent_until = 0;
	if (n < 0) {
		if (errno != EINTR) {
			saved = errno;
			l->running = 0;
			if (l->compact)
				loop_compact(l);
			errno = saved;
			return -1;
		}
		/* A signal interrupted the wait: its byte is in the pipe. */
		for (i = 0; i < nfds; i++)
			l->pfds[i].revents = 0;
		sig_ready = l->sig_rfd >= 0;
	} else if (l->sig_rfd >= 0 && l->pfds[npoll].revents != 0)
		sig_ready = 1;

	/*
	 * Urgent watches first (the keyboard, the focused job), then the
	 * rest, unless an urgent callback asked for the turn to end early so
	 * that the hook can draw its result now; the others stay readable and
	 * are served next turn.
	 */
	l->yield = 0;
	for (pass = 1; pass >= 0 && !(pass == 0 && l->yield); pass--) {
		for (i = 0; n > 0 && i < npoll; i++) {
			if (l->pfds[i].revents == 0)
				continue;
			/* Re-read: earlier callbacks may have grown it. */
			w = &l->watches[i];
			if (w->dead || (w->urgent != 0) != pass)
				continue;
			revents = l->pfds[i].revents &
			    (w->events | POLLHUP | POLLERR | POLLNVAL);
			l->pfds[i].revents = 0;
			if (revents != 0)
				w->cb(w->fd, revents, w->arg);
		}
	}

	if (sig_ready)
		loop_sig_dispatch(l);
	loop_timers_dispatch(l);

	l->running = 0;
	if (l->compact)
		loop_compact(l);
	return 0;
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
