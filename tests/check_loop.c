/*
 * check_loop.c: tests for the event loop on real pipes, timers, signals
 * and child processes.
 */
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loop.h"
#include "skip.h"

/* What the callbacks of a test saw. */
struct rec {
	struct loop	*loop;
	int		 calls;
	short		 revents;
	int		 fd;
	int		 other;		/* fd a callback acts on */
	char		 log[64];	/* one letter per event, in order */
	size_t		 nlog;
	uint64_t	 id;		/* timer a callback acts on */
};

/* Append a letter to the record's log. */
static void
rec_log(struct rec *r, char c)
{
	if (r->nlog + 1 < sizeof r->log) {
		r->log[r->nlog++] = c;
		r->log[r->nlog] = '\0';
	}
}

/* Make a pipe, both ends close-on-exec. */
static void
make_pipe(int fds[2])
{
	ck_assert_int_eq(pipe2(fds, O_CLOEXEC), 0);
}

/* Count a call, remember revents, read one byte if readable. */
static void
read_cb(int fd, short revents, void *arg)
{
	struct rec	*r = arg;
	char		 c;

	r->calls++;
	r->revents = revents;
	r->fd = fd;
	if (revents & POLLIN) {
		if (read(fd, &c, 1) == 1)
			rec_log(r, c);
	}
}

/* Count a call for the POLLOUT test. */
static void
write_cb(int fd, short revents, void *arg)
{
	struct rec	*r = arg;

	r->calls++;
	r->revents = revents;
	r->fd = fd;
}

/* Unwatch the other fd and log 'A'. */
static void
unwatch_other_cb(int fd, short revents, void *arg)
{
	struct rec	*r = arg;

	(void)fd;
	(void)revents;
	rec_log(r, 'A');
	loop_unwatch_fd(r->loop, r->other);
}

/* Log 'B': must not run when A unwatched it this turn. */
static void
log_b_cb(int fd, short revents, void *arg)
{
	char	c;

	(void)revents;
	if (read(fd, &c, 1) == 1)
		rec_log(arg, 'B');
}

/* Log 'C': the replacement watch for the same fd. */
static void
log_c_cb(int fd, short revents, void *arg)
{
	char	c;

	(void)revents;
	if (read(fd, &c, 1) == 1)
		rec_log(arg, 'C');
}

/* Unwatch the other fd and watch it again with log_c_cb. */
static void
rewatch_other_cb(int fd, short revents, void *arg)
{
	struct rec	*r = arg;
	char		 c;

	(void)revents;
	if (read(fd, &c, 1) == 1)
		rec_log(r, 'A');
	loop_unwatch_fd(r->loop, r->other);
	ck_assert_int_eq(loop_watch_fd(r->loop, r->other, POLLIN, log_c_cb, r),
	    0);
}

/* Unwatch and close our own fd. */
static void
unwatch_self_cb(int fd, short revents, void *arg)
{
	struct rec	*r = arg;

	(void)revents;
	r->calls++;
	loop_unwatch_fd(r->loop, fd);
	close(fd);
}

/* Add a watch of the other fd from inside a callback. */
static void
add_other_cb(int fd, short revents, void *arg)
{
	struct rec	*r = arg;
	char		 c;

	(void)revents;
	if (read(fd, &c, 1) == 1)
		rec_log(r, 'A');
	loop_watch_fd(r->loop, r->other, POLLIN, log_b_cb, r);
}

/* Read one byte and, when r->other is set, ask the loop to yield. */
static void
yield_cb(int fd, short revents, void *arg)
{
	struct rec	*r = arg;

	read_cb(fd, revents, arg);
	if (r->other)
		loop_yield(r->loop);
}

/*
 * Urgent watches are dispatched before the others whatever their order;
 * one that yields leaves the others for the next turn, losing nothing.
 */
START_TEST(test_urgent_first_and_yield)
{
	struct loop	*l = loop_new();
	struct rec	 r = { 0 };
	int		 a[2], b[2];

	make_pipe(a);
	make_pipe(b);
	r.loop = l;
	/* a is watched first, b (urgent) second: b must come first. */
	ck_assert_int_eq(loop_watch_fd(l, a[0], POLLIN, read_cb, &r), 0);
	ck_assert_int_eq(loop_watch_fd(l, b[0], POLLIN, yield_cb, &r), 0);
	loop_set_urgent(l, b[0], 1);
	ck_assert_int_eq(write(a[1], "a", 1), 1);
	ck_assert_int_eq(write(b[1], "b", 1), 1);
	ck_assert_int_eq(loop_run_once(l, 2000), 0);
	ck_assert_str_eq(r.log, "ba");

	/* Now b yields: a waits one turn, then is served. */
	r.other = 1;
	ck_assert_int_eq(write(a[1], "A", 1), 1);
	ck_assert_int_eq(write(b[1], "B", 1), 1);
	ck_assert_int_eq(loop_run_once(l, 2000), 0);
	ck_assert_str_eq(r.log, "baB");
	ck_assert_int_eq(loop_run_once(l, 2000), 0);
	ck_assert_str_eq(r.log, "baBA");

	/* Not urgent any more: watch order again, and no yield applies. */
	loop_set_urgent(l, b[0], 0);
	r.other = 0;
	ck_assert_int_eq(write(a[1], "c", 1), 1);
	ck_assert_int_eq(write(b[1], "d", 1), 1);
	ck_assert_int_eq(loop_run_once(l, 2000), 0);
	ck_assert_str_eq(r.log, "baBAcd");
	loop_free(l);
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
}
END_TEST

/* Read one byte and, when r->other is set, wait for urgent watches alone. */
static void
await_cb(int fd, short revents, void *arg)
{
	struct rec	*r = arg;

	read_cb(fd, revents, arg);
	if (r->other)
		loop_await_urgent(r->loop, 300);
}

/* Write one byte to the fd in r->fd (a timer standing in for a child). */
static void
answer_cb(void *arg)
{
	struct rec	*r = arg;

	ck_assert_int_eq(write(r->fd, "c", 1), 1);
}

/*
 * After loop_await_urgent, a ready non-urgent watch waits while the urgent
 * ones are polled alone: until one answers, or the window closes.
 */
START_TEST(test_await_urgent)
{
	struct loop	*l = loop_new();
	struct rec	 r = { 0 }, t = { 0 };
	int		 a[2], b[2];
	int64_t		 t0;

	make_pipe(a);
	make_pipe(b);
	r.loop = l;
	ck_assert_int_eq(loop_watch_fd(l, a[0], POLLIN, read_cb, &r), 0);
	ck_assert_int_eq(loop_watch_fd(l, b[0], POLLIN, await_cb, &r), 0);
	loop_set_urgent(l, b[0], 1);

	/* b asks for the window; a, readable all along, is not served. */
	r.other = 1;
	ck_assert_int_eq(write(a[1], "a", 1), 1);
	ck_assert_int_eq(write(b[1], "b", 1), 1);
	ck_assert_int_eq(loop_run_once(l, 2000), 0);
	ck_assert_str_eq(r.log, "b");
	r.other = 0;
	t.fd = b[1];
	loop_add_timer(l, 50, answer_cb, &t);
	t0 = loop_now_ms();
	ck_assert_int_eq(loop_run_once(l, 2000), 0);	/* the timer */
	ck_assert_str_eq(r.log, "b");
	ck_assert_int_eq(loop_run_once(l, 2000), 0);	/* the answer */
	ck_assert_str_eq(r.log, "bc");
	ck_assert_int_ge(loop_now_ms() - t0, 45);
	ck_assert_int_eq(loop_run_once(l, 2000), 0);	/* the window is over */
	ck_assert_str_eq(r.log, "bca");

	/* No answer: a waits for the window to close, then is served. */
	r.other = 1;
	ck_assert_int_eq(write(a[1], "A", 1), 1);
	ck_assert_int_eq(write(b[1], "d", 1), 1);
	ck_assert_int_eq(loop_run_once(l, 2000), 0);
	ck_assert_str_eq(r.log, "bcad");
	r.other = 0;
	t0 = loop_now_ms();
	ck_assert_int_eq(loop_run_once(l, 2000), 0);
	ck_assert_str_eq(r.log, "bcad");
	ck_assert_int_ge(loop_now_ms() - t0, 250);
	ck_assert_int_eq(loop_run_once(l, 2000), 0);
	ck_assert_str_eq(r.log, "bcadA");
	loop_free(l);
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
}
END_TEST

START_TEST(test_fd_readable)
{
	struct loop	*l = loop_new();
	struct rec	 r = { 0 };
	int		 p[2];

	make_pipe(p);
	ck_assert_int_eq(loop_watch_fd(l, p[0], POLLIN, read_cb, &r), 0);
	ck_assert_int_eq(loop_run_once(l, 0), 0);
	ck_assert_int_eq(r.calls, 0);

	ck_assert_int_eq(write(p[1], "x", 1), 1);
	ck_assert_int_eq(loop_run_once(l, 2000), 0);
	ck_assert_int_eq(r.calls, 1);
	ck_assert_int_eq(r.fd, p[0]);
	ck_assert(r.revents & POLLIN);
	ck_assert_str_eq(r.log, "x");

	/* Unwatched: data waits, the callback is not called. */
	loop_unwatch_fd(l, p[0]);
	ck_assert_int_eq(write(p[1], "y", 1), 1);
	ck_assert_int_eq(loop_run_once(l, 0), 0);
	ck_assert_int_eq(r.calls, 1);
	loop_free(l);
	close(p[0]);
	close(p[1]);
}
END_TEST

START_TEST(test_fd_writable_and_hup)
{
	struct loop	*l = loop_new();
	struct rec	 w = { 0 }, r = { 0 };
	int		 p[2];

	make_pipe(p);
	ck_assert_int_eq(loop_watch_fd(l, p[1], POLLOUT, write_cb, &w), 0);
	ck_assert_int_eq(loop_run_once(l, 2000), 0);
	ck_assert_int_eq(w.calls, 1);
	ck_assert_int_eq(w.revents, POLLOUT);
	loop_unwatch_fd(l, p[1]);
	close(p[1]);

	ck_assert_int_eq(loop_watch_fd(l, p[0], POLLIN, read_cb, &r), 0);
	ck_assert_int_eq(loop_run_once(l, 2000), 0);
	ck_assert_int_eq(r.calls, 1);
	ck_assert(r.revents & POLLHUP);
	loop_free(l);
	close(p[0]);
}
END_TEST

START_TEST(test_set_events_pauses)
{
	struct loop	*l = loop_new();
	struct rec	 r = { 0 };
	int		 p[2];

	make_pipe(p);
	ck_assert_int_eq(loop_watch_fd(l, p[0], POLLIN, read_cb, &r), 0);
	ck_assert_int_eq(write(p[1], "ab", 2), 2);
	loop_set_events(l, p[0], 0);
	ck_assert_int_eq(loop_run_once(l, 50), 0);
	ck_assert_int_eq(r.calls, 0);
	/* Paused even when the writer has gone (no POLLHUP spin). */
	close(p[1]);
	ck_assert_int_eq(loop_run_once(l, 50), 0);
	ck_assert_int_eq(r.calls, 0);
	loop_set_events(l, p[0], POLLIN);
	ck_assert_int_eq(loop_run_once(l, 2000), 0);
	ck_assert_int_eq(r.calls, 1);
	ck_assert_str_eq(r.log, "a");
	loop_free(l);
	close(p[0]);
}
END_TEST

START_TEST(test_unwatch_other_in_callback)
{
	struct loop	*l = loop_new();
	struct rec	 r = { 0 };
	int		 a[2], b[2];

	make_pipe(a);
	make_pipe(b);
	r.loop = l;
	r.other = b[0];
	ck_assert_int_eq(loop_watch_fd(l, a[0], POLLIN, unwatch_other_cb, &r),
	    0);
	ck_assert_int_eq(loop_watch_fd(l, b[0], POLLIN, log_b_cb, &r), 0);
	ck_assert_int_eq(write(b[1], "b", 1), 1);
	ck_assert_int_eq(write(a[1], "a", 1), 1);
	/* Both are ready in the same poll; A runs first and removes B. */
	ck_assert_int_eq(loop_run_once(l, 2000), 0);
	ck_assert_str_eq(r.log, "A");
	loop_unwatch_fd(l, a[0]);
	ck_assert_int_eq(loop_run_once(l, 50), 0);
	ck_assert_str_eq(r.log, "A");
	loop_free(l);
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
}
END_TEST

START_TEST(test_rewatch_other_in_callback)
{
	struct loop	*l = loop_new();
	struct rec	 r = { 0 };
	int		 a[2], b[2];

	make_pipe(a);
	make_pipe(b);
	r.loop = l;
	r.other = b[0];
	ck_assert_int_eq(loop_watch_fd(l, a[0], POLLIN, rewatch_other_cb, &r),
	    0);
	ck_assert_int_eq(loop_watch_fd(l, b[0], POLLIN, log_b_cb, &r), 0);
	ck_assert_int_eq(write(a[1], "a", 1), 1);
	ck_assert_int_eq(write(b[1], "b", 1), 1);
	/* Neither the old nor the new callback of b runs this turn. */
	ck_assert_int_eq(loop_run_once(l, 2000), 0);
	ck_assert_str_eq(r.log, "A");
	/* Next turn the new one does. */
	ck_assert_int_eq(loop_run_once(l, 2000), 0);
	ck_assert_str_eq(r.log, "AC");
	loop_free(l);
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
}
END_TEST

START_TEST(test_unwatch_self_and_add_in_callback)
{
	struct loop	*l = loop_new();
	struct rec	 r = { 0 }, s = { 0 };
	int		 a[2], b[2], c[2];

	make_pipe(a);
	make_pipe(b);
	make_pipe(c);
	r.loop = l;
	ck_assert_int_eq(loop_watch_fd(l, a[0], POLLIN, unwatch_self_cb, &r),
	    0);
	ck_assert_int_eq(write(a[1], "a", 1), 1);
	ck_assert_int_eq(loop_run_once(l, 2000), 0);
	ck_assert_int_eq(r.calls, 1);
	ck_assert_int_eq(loop_run_once(l, 20), 0);
	ck_assert_int_eq(r.calls, 1);

	/* A watch added during dispatch is first polled next turn. */
	s.loop = l;
	s.other = c[0];
	ck_assert_int_eq(loop_watch_fd(l, b[0], POLLIN, add_other_cb, &s), 0);
	ck_assert_int_eq(write(c[1], "c", 1), 1);
	ck_assert_int_eq(write(b[1], "b", 1), 1);
	ck_assert_int_eq(loop_run_once(l, 2000), 0);
	ck_assert_str_eq(s.log, "A");
	ck_assert_int_eq(loop_run_once(l, 2000), 0);
	ck_assert_str_eq(s.log, "AB");
	loop_free(l);
	close(a[1]);
	close(b[0]);
	close(b[1]);
	close(c[0]);
	close(c[1]);
}
END_TEST

/* Timer callbacks log their letter, passed through a small struct. */
struct targ {
	struct rec	*r;
	char		 c;
	uint64_t	 cancel;	/* timer to cancel when fired, or 0 */
	int		 readd;		/* add a 0 ms timer when fired */
	int		 stop;		/* loop_stop when fired */
};

/* Log the letter; maybe cancel, re-add or stop. */
static void
timer_cb(void *arg)
{
	struct targ		*t = arg;
	static struct targ	 z;

	rec_log(t->r, t->c);
	if (t->cancel != 0)
		loop_cancel_timer(t->r->loop, t->cancel);
	if (t->readd) {
		z.r = t->r;
		z.c = 'z';
		loop_add_timer(t->r->loop, 0, timer_cb, &z);
	}
	if (t->stop)
		loop_stop(t->r->loop);
}

START_TEST(test_timers_order_and_cancel)
{
	struct loop	*l = loop_new();
	struct rec	 r = { 0 };
	struct targ	 a = { &r, 'a', 0, 0, 0 }, b = { &r, 'b', 0, 0, 0 };
	struct targ	 c = { &r, 'c', 0, 0, 0 }, d = { &r, 'd', 0, 0, 0 };
	struct targ	 e = { &r, 'e', 0, 0, 0 };
	uint64_t	 ia, ib, ic, id, ie;
	int64_t		 end;

	r.loop = l;
	ic = loop_add_timer(l, 60, timer_cb, &c);
	ia = loop_add_timer(l, 20, timer_cb, &a);
	id = loop_add_timer(l, 40, timer_cb, &d);
	ib = loop_add_timer(l, 20, timer_cb, &b);
	ie = loop_add_timer(l, 30, timer_cb, &e);
	ck_assert(ia != 0 && ib != 0 && ic != 0 && id != 0 && ie != 0);
	ck_assert(ia != ib && ib != ic && ic != id && id != ie);
	loop_cancel_timer(l, ie);

	end = loop_now_ms() + 3000;
	while (r.nlog < 4 && loop_now_ms() < end)
		ck_assert_int_eq(loop_run_once(l, -1), 0);
	ck_assert_str_eq(r.log, "abdc");

	/* Cancelling fired or cancelled ids does nothing; ids are new. */
	loop_cancel_timer(l, ia);
	loop_cancel_timer(l, ie);
	ck_assert(loop_add_timer(l, 0, timer_cb, &a) > ie);
	ck_assert_int_eq(loop_run_once(l, -1), 0);
	ck_assert_str_eq(r.log, "abdca");
	loop_free(l);
}
END_TEST

START_TEST(test_timer_waits)
{
	struct loop	*l = loop_new();
	struct rec	 r = { 0 };
	struct targ	 a = { &r, 'a', 0, 0, 0 };
	int64_t		 start, took;

	r.loop = l;
	start = loop_now_ms();
	loop_add_timer(l, 80, timer_cb, &a);
	/* max_wait_ms shorter than the timer: returns with nothing fired. */
	ck_assert_int_eq(loop_run_once(l, 10), 0);
	ck_assert_str_eq(r.log, "");
	while (r.nlog == 0)
		ck_assert_int_eq(loop_run_once(l, -1), 0);
	took = loop_now_ms() - start;
	ck_assert_int_ge(took, 80);
	ck_assert_int_lt(took, 2000);
	loop_free(l);
}
END_TEST

START_TEST(test_timer_changes_in_callback)
{
	struct loop	*l = loop_new();
	struct rec	 r = { 0 };
	struct targ	 a = { &r, 'a', 0, 1, 0 }, b = { &r, 'b', 0, 0, 0 };

	r.loop = l;
	/* a and b are both due; a cancels b; a also adds a 0 ms timer z. */
	a.cancel = 0;
	loop_add_timer(l, 0, timer_cb, &a);
	a.cancel = loop_add_timer(l, 0, timer_cb, &b);
	usleep(2000);
	ck_assert_int_eq(loop_run_once(l, 0), 0);
	ck_assert_str_eq(r.log, "a");
	ck_assert_int_eq(loop_run_once(l, 0), 0);
	ck_assert_str_eq(r.log, "az");
	ck_assert_int_eq(loop_run_once(l, 0), 0);
	ck_assert_str_eq(r.log, "az");
	loop_free(l);
}
END_TEST

/* Log the signal: 'u' for SIGUSR1, 'v' for SIGUSR2, 'c' for SIGCHLD. */
static void
signal_cb(int signo, void *arg)
{
	struct rec	*r = arg;

	r->calls++;
	rec_log(r, signo == SIGUSR1 ? 'u' : signo == SIGUSR2 ? 'v' :
	    signo == SIGCHLD ? 'c' : '?');
}

START_TEST(test_signal_raise)
{
	struct loop	*l = loop_new();
	struct rec	 r = { 0 };
	int64_t		 end;

	ck_assert_int_eq(loop_watch_signal(l, SIGUSR1, signal_cb, &r), 0);
	ck_assert_int_eq(loop_watch_signal(l, SIGUSR2, signal_cb, &r), 0);
	ck_assert_int_eq(raise(SIGUSR1), 0);
	ck_assert_int_eq(r.calls, 0);	/* never in the handler */
	end = loop_now_ms() + 3000;
	while (r.calls == 0 && loop_now_ms() < end)
		ck_assert_int_eq(loop_run_once(l, 1000), 0);
	ck_assert_str_eq(r.log, "u");

	ck_assert_int_eq(raise(SIGUSR2), 0);
	ck_assert_int_eq(raise(SIGUSR1), 0);
	while (r.calls < 3 && loop_now_ms() < end)
		ck_assert_int_eq(loop_run_once(l, 1000), 0);
	ck_assert_str_eq(r.log, "uuv");
	loop_free(l);
}
END_TEST

START_TEST(test_signal_sigchld_wakes_poll)
{
	struct loop	*l = loop_new();
	struct rec	 r = { 0 };
	pid_t		 pid;
	int		 status;
	int64_t		 start;

	ck_assert_int_eq(loop_watch_signal(l, SIGCHLD, signal_cb, &r), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		usleep(100000);
		_exit(3);
	}
	/* Nothing else to wait for: only the signal can end this wait. */
	start = loop_now_ms();
	while (r.calls == 0)
		ck_assert_int_eq(loop_run_once(l, -1), 0);
	ck_assert_int_ge(loop_now_ms() - start, 50);
	ck_assert_str_eq(r.log, "c");
	ck_assert_int_eq(waitpid(pid, &status, WNOHANG), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	loop_free(l);
}
END_TEST

static volatile sig_atomic_t old_handler_hits;

/* A handler the loop must put back when freed. */
static void
old_handler(int signo)
{
	(void)signo;
	old_handler_hits++;
}

/* List the open fds of this process into fds; return how many. */
static int
open_fds(int *fds, int max)
{
	DIR		*d;
	struct dirent	*de;
	int		 n = 0, fd;

	d = opendir("/proc/self/fd");
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)) != NULL && n < max) {
		if (de->d_name[0] == '.')
			continue;
		fd = atoi(de->d_name);
		if (fd != dirfd(d))
			fds[n++] = fd;
	}
	closedir(d);
	return n;
}

START_TEST(test_signal_pipe_and_restore)
{
	struct loop		*l, *l2;
	struct rec		 r = { 0 };
	struct sigaction	 sa, cur;
	int			 before[256], after[256], nb, na, i, j;
	int			 fl, nnew = 0;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = old_handler;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	signal(SIGUSR2, SIG_IGN);

	nb = open_fds(before, 256);
	l = loop_new();
	ck_assert_int_eq(loop_watch_signal(l, SIGUSR1, signal_cb, &r), 0);
	ck_assert_int_eq(loop_watch_signal(l, SIGUSR2, signal_cb, &r), 0);
	na = open_fds(after, 256);
	/* The self-pipe: two new fds, non-blocking and close-on-exec. */
	for (i = 0; i < na; i++) {
		for (j = 0; j < nb && before[j] != after[i]; j++)
			/* nothing */;
		if (j < nb)
			continue;
		nnew++;
		fl = fcntl(after[i], F_GETFL);
		ck_assert(fl != -1 && (fl & O_NONBLOCK));
		fl = fcntl(after[i], F_GETFD);
		ck_assert(fl != -1 && (fl & FD_CLOEXEC));
	}
	ck_assert_int_eq(nnew, 2);

	/* A second loop cannot take the signals while the first has them. */
	l2 = loop_new();
	ck_assert_int_eq(loop_watch_signal(l2, SIGUSR1, signal_cb, &r), -1);
	ck_assert_int_eq(errno, EBUSY);
	loop_free(l2);

	/* The loop's handler is in place, and errno survives it. */
	errno = 1234;
	ck_assert_int_eq(raise(SIGUSR1), 0);
	ck_assert_int_eq(errno, 1234);
	ck_assert_int_eq(old_handler_hits, 0);

	loop_free(l);
	ck_assert_int_eq(sigaction(SIGUSR1, NULL, &cur), 0);
	ck_assert(cur.sa_handler == old_handler);
	ck_assert_int_eq(sigaction(SIGUSR2, NULL, &cur), 0);
	ck_assert(cur.sa_handler == SIG_IGN);
	ck_assert_int_eq(open_fds(after, 256), nb);
	raise(SIGUSR1);
	ck_assert_int_eq(old_handler_hits, 1);

	/* Now another loop may watch signals. */
	l2 = loop_new();
	ck_assert_int_eq(loop_watch_signal(l2, SIGUSR1, signal_cb, &r), 0);
	raise(SIGUSR1);
	ck_assert_int_eq(loop_run_once(l2, 1000), 0);
	ck_assert_int_eq(r.calls, 1);
	loop_free(l2);
}
END_TEST

/* Count hook calls; write a byte to a pipe on the first. */
static void
hook_cb(void *arg)
{
	struct rec	*r = arg;

	r->calls++;
	if (r->calls == 1)
		(void)write(r->other, "h", 1);
}

/* Fails the test: loop_run_once must refuse to nest. */
static void
nest_cb(int fd, short revents, void *arg)
{
	struct rec	*r = arg;
	char		 c;

	(void)revents;
	(void)read(fd, &c, 1);
	ck_assert_int_eq(loop_run_once(r->loop, 0), -1);
	ck_assert_int_eq(errno, EBUSY);
	r->calls++;
}

START_TEST(test_hook_once_per_turn)
{
	struct loop	*l = loop_new();
	struct rec	 h = { 0 }, r = { 0 };
	int		 p[2];

	make_pipe(p);
	h.other = p[1];
	loop_set_hook(l, hook_cb, &h);
	ck_assert_int_eq(loop_watch_fd(l, p[0], POLLIN, read_cb, &r), 0);
	/* The hook writes before poll, so this turn already sees the byte. */
	ck_assert_int_eq(loop_run_once(l, 5000), 0);
	ck_assert_int_eq(h.calls, 1);
	ck_assert_str_eq(r.log, "h");
	ck_assert_int_eq(loop_run_once(l, 0), 0);
	ck_assert_int_eq(loop_run_once(l, 0), 0);
	ck_assert_int_eq(h.calls, 3);
	loop_set_hook(l, NULL, NULL);
	ck_assert_int_eq(loop_run_once(l, 0), 0);
	ck_assert_int_eq(h.calls, 3);

	/* A nested turn from a callback is refused. */
	loop_unwatch_fd(l, p[0]);
	r.loop = l;
	r.calls = 0;
	ck_assert_int_eq(loop_watch_fd(l, p[0], POLLIN, nest_cb, &r), 0);
	ck_assert_int_eq(write(p[1], "n", 1), 1);
	ck_assert_int_eq(loop_run_once(l, 2000), 0);
	ck_assert_int_eq(r.calls, 1);
	loop_free(l);
	close(p[0]);
	close(p[1]);
}
END_TEST

START_TEST(test_run_until_stop)
{
	struct loop	*l = loop_new();
	struct rec	 r = { 0 };
	struct targ	 a = { &r, 'a', 0, 0, 0 }, b = { &r, 'b', 0, 0, 1 };
	struct targ	 c = { &r, 'c', 0, 0, 0 };

	r.loop = l;
	loop_add_timer(l, 10, timer_cb, &a);
	loop_add_timer(l, 30, timer_cb, &b);
	loop_add_timer(l, 5000, timer_cb, &c);
	ck_assert_int_eq(loop_run(l), 0);
	ck_assert_str_eq(r.log, "ab");
	/* The stop is used up: run again until the next stop. */
	b.stop = 1;
	loop_add_timer(l, 10, timer_cb, &b);
	ck_assert_int_eq(loop_run(l), 0);
	ck_assert_str_eq(r.log, "abb");
	loop_free(l);
}
END_TEST

/* How many timers test_many_timers_order_and_cancel adds. */
#define MANY_TIMERS	5000

struct many_timers;

/* One of the many timers: how far off, its id and what it did. */
struct mtimer {
	struct many_timers	*m;
	int64_t			 ms;
	uint64_t		 id;
	int			 cancelled;	/* before it could fire */
	int			 fired_at;	/* place in firing order, or -1 */
	int			 victim;	/* timer it cancels, or -1 */
};

/* The many timers and the order they fired in. */
struct many_timers {
	struct loop	*loop;
	struct mtimer	 t[MANY_TIMERS];
	int		 order[MANY_TIMERS];
	int		 nfired;
	int		 nsettled;	/* fired or cancelled */
};

/* Cancel timer i of m unless it fired already; count it settled once. */
static void
many_cancel(struct many_timers *m, int i)
{
	if (m->t[i].fired_at < 0 && !m->t[i].cancelled) {
		m->t[i].cancelled = 1;
		m->nsettled++;
	}
	loop_cancel_timer(m->loop, m->t[i].id);
}

/* Note the firing once; cancel itself (harmless) and maybe a victim. */
static void
many_timer_cb(void *arg)
{
	struct mtimer		*t = arg;
	struct many_timers	*m = t->m;

	ck_assert_msg(!t->cancelled, "timer %d fired after its cancel",
	    (int)(t - m->t));
	ck_assert_msg(t->fired_at < 0, "timer %d fired twice",
	    (int)(t - m->t));
	t->fired_at = m->nfired;
	m->order[m->nfired++] = (int)(t - m->t);
	m->nsettled++;
	loop_cancel_timer(m->loop, t->id);
	if (t->victim >= 0)
		many_cancel(m, t->victim);
}

/*
 * 5,000 timers over 250 ms, about 20 to a millisecond, a quarter cancelled
 * while they are added and one in ten cancelling another as it fires: each
 * fires once unless cancelled first, never after, and in deadline order.
 * Deadlines are taken when a timer is added, so of two timers the one added
 * first with the shorter or equal delay is due first (or together, and then
 * first by id): only those pairs are checked, whatever the clock did.
 */
START_TEST(test_many_timers_order_and_cancel)
{
	struct many_timers	*m = calloc(1, sizeof *m);
	struct mtimer		*t;
	uint64_t		 last = 0;
	int64_t			 end;
	int			 i, p, q, a, b;

	ck_assert_ptr_nonnull(m);
	m->loop = loop_new();
	srandom(25);
	for (i = 0; i < MANY_TIMERS; i++) {
		t = &m->t[i];
		t->m = m;
		t->ms = random() % 250;
		t->fired_at = -1;
		t->victim = random() % 10 == 0 ? (int)(random() % MANY_TIMERS) :
		    -1;
		t->id = loop_add_timer(m->loop, t->ms, many_timer_cb, t);
		ck_assert(t->id > last);
		last = t->id;
		if (random() % 4 == 0)
			many_cancel(m, (int)(random() % (i + 1)));
	}

	end = loop_now_ms() + 30000;
	while (m->nsettled < MANY_TIMERS && loop_now_ms() < end)
		ck_assert_int_eq(loop_run_once(m->loop, 1000), 0);
	ck_assert_int_eq(m->nsettled, MANY_TIMERS);
	ck_assert_int_eq(loop_run_once(m->loop, 0), 0);
	ck_assert_int_eq(m->nsettled, MANY_TIMERS);
	ck_assert_int_gt(m->nfired, MANY_TIMERS / 2);

	/* One assertion at the end: check(3) marks each one it passes. */
	for (p = 0, a = b = -1; p < m->nfired && a < 0; p++) {
		for (q = p + 1; q < m->nfired && a < 0; q++) {
			if (m->order[q] < m->order[p] &&
			    m->t[m->order[q]].ms <= m->t[m->order[p]].ms) {
				a = m->order[q];
				b = m->order[p];
			}
		}
	}
	ck_assert_msg(a < 0, "timer %d (+%jd ms) fired before timer %d "
	    "(+%jd ms, added earlier)", b, (intmax_t)m->t[b < 0 ? 0 : b].ms,
	    a, (intmax_t)m->t[a < 0 ? 0 : a].ms);
	loop_free(m->loop);
	free(m);
}
END_TEST

/* How many pipes test_many_fds_each_once watches. */
#define MANY_FDS	2000

/* One pipe of the many: its ends and how many bytes its watch read. */
struct mpipe {
	int	 rfd;
	int	 wfd;
	int	 calls;
};

/* Read the one byte written to this pipe; it must be its own fd. */
static void
many_read_cb(int fd, short revents, void *arg)
{
	struct mpipe	*mp = arg;
	char		 c;

	ck_assert_int_eq(fd, mp->rfd);
	ck_assert(revents & POLLIN);
	ck_assert_int_eq(read(fd, &c, 1), 1);
	ck_assert_int_eq(c, 'x');
	mp->calls++;
}

/* Raise the soft limit of open fds to the hard one; 0, or -1 if too low. */
static int
raise_nofile(rlim_t need, struct rlimit *old)
{
	struct rlimit	rl;

	if (getrlimit(RLIMIT_NOFILE, old) != 0)
		return -1;
	rl = *old;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
		return -1;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ? need : rl.rlim_max;
	return setrlimit(RLIMIT_NOFILE, &rl);
}

/* Turn the loop until every pipe's count is want[i], or 30 s have gone. */
static void
many_run_until(struct loop *l, struct mpipe *mp, const int *want)
{
	int64_t	end = loop_now_ms() + 30000;
	int	i, done = 0;

	while (!done && loop_now_ms() < end) {
		ck_assert_int_eq(loop_run_once(l, 1000), 0);
		for (i = 0, done = 1; i < MANY_FDS && done; i++)
			done = mp[i].calls >= want[i];
	}
	/* Nothing more comes: each byte was delivered exactly once. */
	ck_assert_int_eq(loop_run_once(l, 0), 0);
	for (i = 0; i < MANY_FDS; i++)
		ck_assert_msg(mp[i].calls == want[i],
		    "pipe %d: %d calls, want %d", i, mp[i].calls, want[i]);
}

/*
 * 2,000 pipes watched in a shuffled order, a byte in each: every watch
 * gets its own byte once.  Then half paused and a byte in each again: only
 * the others get theirs, until the paused ones are resumed.
 */
START_TEST(test_many_fds_each_once)
{
	struct mpipe	*mp = calloc(MANY_FDS, sizeof *mp);
	int		*want = calloc(MANY_FDS, sizeof *want);
	int		*perm = calloc(MANY_FDS, sizeof *perm);
	struct loop	*l;
	struct rlimit	 old;
	int		 fds[2], i, j, k;

	ck_assert(mp != NULL && want != NULL && perm != NULL);
	if (raise_nofile(2 * MANY_FDS + 64, &old) != 0) {
		free(mp);
		free(want);
		free(perm);
		TEST_SKIP("%d pipes need more open files than RLIMIT_NOFILE's "
		    "hard limit allows", MANY_FDS);
	}
	l = loop_new();
	srandom(2000);
	for (i = 0; i < MANY_FDS; i++) {
		ck_assert_int_eq(pipe2(fds, O_CLOEXEC | O_NONBLOCK), 0);
		mp[i].rfd = fds[0];
		mp[i].wfd = fds[1];
		perm[i] = i;
	}
	for (i = MANY_FDS - 1; i > 0; i--) {
		j = (int)(random() % (i + 1));
		k = perm[i];
		perm[i] = perm[j];
		perm[j] = k;
	}
	for (i = 0; i < MANY_FDS; i++)
		ck_assert_int_eq(loop_watch_fd(l, mp[perm[i]].rfd, POLLIN,
		    many_read_cb, &mp[perm[i]]), 0);

	for (i = 0; i < MANY_FDS; i++) {
		ck_assert_int_eq(write(mp[perm[MANY_FDS - 1 - i]].wfd, "x", 1),
		    1);
		want[i] = 1;
	}
	many_run_until(l, mp, want);

	for (i = 0; i < MANY_FDS; i++) {
		if (perm[i] % 2 == 0)
			loop_set_events(l, mp[perm[i]].rfd, 0);
		else
			want[perm[i]]++;
		ck_assert_int_eq(write(mp[i].wfd, "x", 1), 1);
	}
	many_run_until(l, mp, want);
	for (i = 0; i < MANY_FDS; i += 2) {
		loop_set_events(l, mp[i].rfd, POLLIN);
		want[i]++;
	}
	many_run_until(l, mp, want);

	loop_free(l);
	for (i = 0; i < MANY_FDS; i++) {
		close(mp[i].rfd);
		close(mp[i].wfd);
	}
	setrlimit(RLIMIT_NOFILE, &old);
	free(mp);
	free(want);
	free(perm);
}
END_TEST

/* How many pipes test_unwatch_many_in_dispatch watches. */
#define SOME_FDS	200

struct some_pipes;

/* One pipe: its ends, its calls, the watch its callback removes. */
struct spipe {
	struct some_pipes	*s;
	int			 rfd;
	int			 wfd;
	int			 calls;
	int			 victim;	/* index, or -1 */
};

/* The pipes, and the order their callbacks ran in. */
struct some_pipes {
	struct loop	*loop;
	struct spipe	 p[SOME_FDS];
	int		 log[4 * SOME_FDS];
	int		 nlog;
};

/* Read a byte, log the call; unwatch the victim once (10 watches it again). */
static void
some_cb(int fd, short revents, void *arg)
{
	struct spipe		*sp = arg;
	struct some_pipes	*s = sp->s;
	struct spipe		*v;
	char			 c;

	(void)revents;
	ck_assert_int_eq(read(fd, &c, 1), 1);
	sp->calls++;
	s->log[s->nlog++] = (int)(sp - s->p);
	if (sp->victim < 0)
		return;
	v = &s->p[sp->victim];
	sp->victim = -1;
	loop_unwatch_fd(s->loop, v->rfd);
	if (sp - s->p == 10) {
		v->victim = -1;
		ck_assert_int_eq(loop_watch_fd(s->loop, v->rfd, POLLIN, some_cb,
		    v), 0);
	}
}

/* Turn the loop until n callbacks more have run, or 30 s have gone. */
static void
some_run_until(struct some_pipes *s, int n)
{
	int64_t	end = loop_now_ms() + 30000;

	n += s->nlog;
	while (s->nlog < n && loop_now_ms() < end)
		ck_assert_int_eq(loop_run_once(s->loop, 1000), 0);
	ck_assert_int_eq(s->nlog, n);
}

/*
 * 200 ready pipes; each callback removes the next watch, so one in two is
 * called, and the one that 10 removed and watched again is called the turn
 * after.  Removed from outside next, enough to squeeze the dead out: the
 * watches left are called once each, in the order they were added.
 */
START_TEST(test_unwatch_many_in_dispatch)
{
	struct some_pipes	*s = calloc(1, sizeof *s);
	int			 fds[2], i, n;

	ck_assert_ptr_nonnull(s);
	s->loop = loop_new();
	for (i = 0; i < SOME_FDS; i++) {
		ck_assert_int_eq(pipe2(fds, O_CLOEXEC | O_NONBLOCK), 0);
		s->p[i].s = s;
		s->p[i].rfd = fds[0];
		s->p[i].wfd = fds[1];
		s->p[i].victim = i + 1 < SOME_FDS ? i + 1 : -1;
		ck_assert_int_eq(loop_watch_fd(s->loop, fds[0], POLLIN, some_cb,
		    &s->p[i]), 0);
		ck_assert_int_eq(write(fds[1], "x", 1), 1);
	}
	/* All are ready in one poll (the bytes came first). */
	ck_assert_int_eq(loop_run_once(s->loop, 2000), 0);
	ck_assert_int_eq(s->nlog, SOME_FDS / 2);
	for (i = 0; i < SOME_FDS; i++)
		ck_assert_int_eq(s->p[i].calls, i % 2 == 0);
	some_run_until(s, 1);
	ck_assert_int_eq(s->log[SOME_FDS / 2], 11);
	ck_assert_int_eq(s->p[11].calls, 1);

	/* Removed between turns, then a byte in every pipe. */
	for (i = 0; i < SOME_FDS; i += 4)
		loop_unwatch_fd(s->loop, s->p[i].rfd);
	for (i = 0; i < SOME_FDS; i++)
		ck_assert_int_eq(write(s->p[i].wfd, "x", 1), 1);
	n = s->nlog;
	ck_assert_int_eq(loop_run_once(s->loop, 2000), 0);
	for (i = 2; i < SOME_FDS; i += 4)
		ck_assert_int_eq(s->log[n++], i);
	ck_assert_int_eq(s->log[n++], 11);
	ck_assert_int_eq(s->nlog, n);
	ck_assert_int_eq(loop_run_once(s->loop, 0), 0);
	ck_assert_int_eq(s->nlog, n);

	loop_free(s->loop);
	for (i = 0; i < SOME_FDS; i++) {
		close(s->p[i].rfd);
		close(s->p[i].wfd);
	}
	free(s);
}
END_TEST

/* Build the loop suite. */
static Suite *
loop_suite(void)
{
	Suite	*s = suite_create("loop");
	TCase	*tc;

	tc = tcase_create("fd");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_fd_readable);
	tcase_add_test(tc, test_urgent_first_and_yield);
	tcase_add_test(tc, test_await_urgent);
	tcase_add_test(tc, test_fd_writable_and_hup);
	tcase_add_test(tc, test_set_events_pauses);
	tcase_add_test(tc, test_unwatch_other_in_callback);
	tcase_add_test(tc, test_rewatch_other_in_callback);
	tcase_add_test(tc, test_unwatch_self_and_add_in_callback);
	tcase_add_test(tc, test_unwatch_many_in_dispatch);
	tcase_add_test(tc, test_many_fds_each_once);
	suite_add_tcase(s, tc);

	tc = tcase_create("timer");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_timers_order_and_cancel);
	tcase_add_test(tc, test_timer_waits);
	tcase_add_test(tc, test_timer_changes_in_callback);
	tcase_add_test(tc, test_many_timers_order_and_cancel);
	suite_add_tcase(s, tc);

	tc = tcase_create("signal");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_signal_raise);
	tcase_add_test(tc, test_signal_sigchld_wakes_poll);
	tcase_add_test(tc, test_signal_pipe_and_restore);
	suite_add_tcase(s, tc);

	tc = tcase_create("run");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_hook_once_per_turn);
	tcase_add_test(tc, test_run_until_stop);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr = srunner_create(loop_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
