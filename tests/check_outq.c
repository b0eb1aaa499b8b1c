/*
 * check_outq.c: tests for the queue of bytes to a reader that may stall,
 * on real pipes and socket pairs whose reader is this test: what it reads
 * is what was queued, in order; nothing waits on a full fd; limits, a
 * reader that goes away, a stalled reader, our own stdout.
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loop.h"
#include "outq.h"

#define WAIT_MS		20000	/* a condition's generous limit */

/* What the callbacks of a test saw, and the reader's side. */
struct rec {
	struct loop	*loop;
	int		 written;	/* written callbacks */
	int		 stalled;	/* stalled callbacks */
	int		 error;		/* outq_error() at the last callback */
	int		 rfd;		/* the reader's end */
	char		*got;		/* what the reader read */
	size_t		 ngot;
	size_t		 max_read;	/* at most this much a read, 0: any */
};

/* Count a written callback and the queue's state then. */
static void
rec_written(struct outq *q, void *arg)
{
	struct rec	*r = arg;

	r->written++;
	r->error = outq_error(q);
}

/* Count a stalled callback. */
static void
rec_stalled(struct outq *q, void *arg)
{
	struct rec	*r = arg;

	(void)q;
	r->stalled++;
}

static const struct outq_cbs rec_cbs = { rec_written, rec_stalled };

/* Start a test's record, on a loop of its own, reading fds[0]. */
static void
rec_init(struct rec *r, const int fds[2])
{
	memset(r, 0, sizeof *r);
	r->loop = loop_new();
	r->rfd = fds[0];
}

/* End a test: free the queue, the loop and what was read; close fds. */
static void
rec_done(struct rec *r, struct outq *q, int fds[2])
{
	outq_free(q);
	loop_free(r->loop);
	free(r->got);
	if (fds[0] != -1)
		close(fds[0]);
	close(fds[1]);
}

/* Make a pipe: the write end non-blocking, as outq.h wants it. */
static void
make_pipe(int fds[2])
{
	ck_assert_int_eq(pipe2(fds, O_CLOEXEC), 0);
	ck_assert_int_ne(fcntl(fds[1], F_SETFL, O_NONBLOCK), -1);
	ck_assert_int_ne(fcntl(fds[0], F_SETFL, O_NONBLOCK), -1);
}

/* Make a socket pair with small buffers, both ends non-blocking. */
static void
make_socketpair(int fds[2])
{
	int	size = 4096;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC |
	    SOCK_NONBLOCK, 0, fds), 0);
	setsockopt(fds[1], SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
	setsockopt(fds[0], SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
}

/* Fill buf with n bytes numbered from start, so order shows. */
static void
pattern(char *buf, size_t start, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		buf[i] = (char)((start + i) * 7 % 251);
}

/* Read what the reader's end holds now (at most r->max_read a time). */
static void
rec_read(struct rec *r)
{
	char	buf[65536];
	size_t	want = r->max_read > 0 && r->max_read < sizeof buf ?
		    r->max_read : sizeof buf;
	ssize_t	n;

	n = read(r->rfd, buf, want);
	if (n <= 0)
		return;
	r->got = realloc(r->got, r->ngot + (size_t)n);
	ck_assert_ptr_nonnull(r->got);
	memcpy(r->got + r->ngot, buf, (size_t)n);
	r->ngot += (size_t)n;
}

/*
 * Run the loop and read, a little at a time, until the reader has total
 * bytes (or WAIT_MS passed); check they are the pattern, in order.
 */
static void
rec_read_all(struct rec *r, struct outq *q, size_t total)
{
	int64_t	end = loop_now_ms() + WAIT_MS;
	char	*want;

	while (r->ngot < total && loop_now_ms() < end) {
		rec_read(r);
		loop_run_once(r->loop, 50);
	}
	ck_assert_uint_eq(r->ngot, total);
	ck_assert_uint_eq(outq_pending(q), 0);
	want = malloc(total);
	ck_assert_ptr_nonnull(want);
	pattern(want, 0, total);
	ck_assert_msg(memcmp(r->got, want, total) == 0,
	    "the reader got other bytes, or out of order");
	free(want);
}

/*
 * Queue total bytes in uneven adds onto fd, flushing as an owner does:
 * nothing waits on the full fd; then the reader takes them slowly.
 */
static void
stalled_reader(int fds[2], size_t total)
{
	struct rec	 r;
	struct outq	*q;
	char		*buf;
	size_t		 off, n, step = 1;

	rec_init(&r, fds);
	r.max_read = 3000;	/* less than a write: partial writes */
	q = outq_new(r.loop, fds[1], OUTQ_WATCH, &rec_cbs, &r);
	buf = malloc(total);
	ck_assert_ptr_nonnull(buf);
	pattern(buf, 0, total);
	for (off = 0; off < total; off += n) {
		n = total - off < step ? total - off : step;
		step = step * 3 + 1;
		ck_assert_int_eq(outq_add(q, buf + off, n), 0);
		/* The reader reads nothing: this must not wait for it. */
		ck_assert_int_eq(outq_flush(q), 0);
	}
	ck_assert_msg(outq_pending(q) > 0, "the fd took all %zu bytes", total);
	ck_assert_int_eq(r.written, 0);
	rec_read_all(&r, q, total);
	ck_assert_msg(r.written > 1, "written %d times", r.written);
	ck_assert_int_eq(r.error, 0);
	ck_assert_uint_eq(outq_lost(q), 0);
	rec_done(&r, q, fds);
	free(buf);
}

/* A pipe whose reader stalls: nothing blocks, nothing lost or reordered. */
START_TEST(test_pipe_stalled_reader)
{
	int	fds[2];

	make_pipe(fds);
	stalled_reader(fds, 1024 * 1024);
}
END_TEST

/* The same on a socket with small buffers: partial writes resumed. */
START_TEST(test_socket_stalled_reader)
{
	int	fds[2];

	make_socketpair(fds);
	stalled_reader(fds, 512 * 1024);
}
END_TEST

/* The owner's watch (no OUTQ_WATCH): flush on POLLOUT resumes it. */
START_TEST(test_owner_watches)
{
	struct rec	 r;
	struct outq	*q;
	char		 buf[200000];
	int		 fds[2];
	int64_t		 end;

	make_socketpair(fds);
	rec_init(&r, fds);
	q = outq_new(r.loop, fds[1], 0, &rec_cbs, &r);
	pattern(buf, 0, sizeof buf);
	ck_assert_int_eq(outq_add(q, buf, sizeof buf), 0);
	ck_assert_int_eq(outq_flush(q), 0);
	ck_assert_uint_gt(outq_pending(q), 0);
	end = loop_now_ms() + WAIT_MS;
	while (outq_pending(q) > 0 && loop_now_ms() < end) {
		rec_read(&r);
		ck_assert_int_eq(outq_flush(q), 0);
	}
	rec_read_all(&r, q, sizeof buf);
	/* The queue never watched: no callback. */
	ck_assert_int_eq(r.written, 0);
	rec_done(&r, q, fds);
}
END_TEST

/* A queue with no loop on a new pipe, 100 bytes its limit. */
static struct outq *
pipe_queue(int fds[2], enum outq_limit how)
{
	struct outq	*q;

	make_pipe(fds);
	q = outq_new(NULL, fds[1], 0, NULL, NULL);
	outq_set_limit(q, 100, how);
	return q;
}

/* Free a queue with no loop and close its pipe. */
static void
pipe_queue_done(struct outq *q, int fds[2])
{
	outq_free(q);
	close(fds[0]);
	close(fds[1]);
}

/* A refusing limit: an add past it is refused and counted; the rest goes. */
START_TEST(test_limit_refuse)
{
	struct outq	*q;
	char		 buf[100];
	int		 fds[2];

	q = pipe_queue(fds, OUTQ_LIMIT_REFUSE);
	memset(buf, 'a', sizeof buf);
	ck_assert_int_eq(outq_add(q, buf, 60), 0);
	ck_assert_int_eq(outq_add(q, buf, 41), -1);
	ck_assert_int_eq(outq_error(q), 0);
	ck_assert_uint_eq(outq_lost(q), 41);
	ck_assert_int_eq(outq_add(q, buf, 40), 0);
	ck_assert_uint_eq(outq_pending(q), 100);
	/* What must not be dropped goes past it. */
	ck_assert_int_eq(outq_add_always(q, buf, 50), 0);
	ck_assert_uint_eq(outq_pending(q), 150);
	ck_assert_int_eq(outq_add(q, buf, 1), -1);
	ck_assert_uint_eq(outq_lost(q), 42);
	ck_assert_int_eq(outq_flush(q), 0);
	ck_assert_uint_eq(outq_pending(q), 0);
	ck_assert_int_eq(outq_add(q, buf, 100), 0);
	pipe_queue_done(q, fds);
}
END_TEST

/* A failing limit: the add past it fails the queue, which drops all. */
START_TEST(test_limit_fail)
{
	struct outq	*q;
	char		*owned, buf[64];
	int		 fds[2];

	q = pipe_queue(fds, OUTQ_LIMIT_FAIL);
	memset(buf, 'b', sizeof buf);
	ck_assert_int_eq(outq_add(q, buf, 64), 0);
	ck_assert_int_eq(outq_add(q, buf, 37), -1);
	ck_assert_int_eq(outq_error(q), ENOBUFS);
	ck_assert_uint_eq(outq_pending(q), 0);
	ck_assert_uint_eq(outq_lost(q), 101);
	ck_assert_int_eq(outq_add(q, buf, 1), -1);
	ck_assert_int_eq(outq_add_always(q, buf, 1), -1);
	owned = malloc(10);
	ck_assert_int_eq(outq_add_owned(q, owned, 10), -1);
	ck_assert_int_eq(outq_flush(q), -1);
	ck_assert_uint_eq(outq_lost(q), 113);
	/* Nothing reached the reader. */
	ck_assert_int_eq(read(fds[0], buf, sizeof buf), -1);
	ck_assert_int_eq(errno, EAGAIN);
	pipe_queue_done(q, fds);
}
END_TEST

/* An owned buffer is taken by an idle queue, copied by a busy one. */
START_TEST(test_owned)
{
	struct rec	 r;
	struct outq	*q;
	char		*a, *b, *c;
	int		 fds[2];

	make_pipe(fds);
	rec_init(&r, fds);
	q = outq_new(r.loop, fds[1], OUTQ_WATCH, &rec_cbs, &r);
	a = malloc(1000);
	b = malloc(200000);
	c = malloc(5);
	ck_assert(a != NULL && b != NULL && c != NULL);
	pattern(a, 0, 1000);
	pattern(b, 1000, 200000);
	pattern(c, 201000, 5);
	ck_assert_int_eq(outq_add_owned(q, a, 1000), 0);
	ck_assert_int_eq(outq_add_owned(q, b, 200000), 0);
	ck_assert_int_eq(outq_flush(q), 0);
	ck_assert_int_eq(outq_add_owned(q, c, 5), 0);
	outq_set_limit(q, 10, OUTQ_LIMIT_REFUSE);
	a = malloc(11);
	ck_assert_int_eq(outq_add_owned(q, a, 11), -1);
	outq_set_limit(q, 0, OUTQ_LIMIT_REFUSE);
	rec_read_all(&r, q, 201005);
	rec_done(&r, q, fds);
}
END_TEST

/*
 * The reader's end of fds closed: a flush fails the queue (EPIPE), which
 * takes nothing more and leaves the caller's fd open.
 */
static void
epipe_at_flush(int fds[2])
{
	struct outq	*q;

	q = outq_new(NULL, fds[1], 0, NULL, NULL);
	close(fds[0]);
	ck_assert_int_eq(outq_add(q, "hello", 5), 0);
	ck_assert_int_eq(outq_flush(q), -1);
	ck_assert_int_eq(outq_error(q), EPIPE);
	ck_assert_uint_eq(outq_lost(q), 5);
	ck_assert_int_eq(outq_add(q, "x", 1), -1);
	ck_assert_uint_eq(outq_pending(q), 0);
	ck_assert_int_ne(fcntl(fds[1], F_GETFD), -1);
	outq_free(q);
	close(fds[1]);
}

/* A pipe's reader that went away (SIGPIPE ignored, as jobdeck does). */
START_TEST(test_epipe_flush)
{
	int	fds[2];

	signal(SIGPIPE, SIG_IGN);
	make_pipe(fds);
	epipe_at_flush(fds);
}
END_TEST

/* A socket's peer that went away: no SIGPIPE kills us, even by default. */
START_TEST(test_epipe_socket_no_signal)
{
	int	fds[2];

	signal(SIGPIPE, SIG_DFL);
	make_socketpair(fds);
	epipe_at_flush(fds);
}
END_TEST

/* Close the reader's end; the loop tells the queue's owner once: EPIPE. */
static void
reader_leaves(struct rec *r, int fds[2])
{
	int64_t	end;

	close(fds[0]);
	fds[0] = -1;
	end = loop_now_ms() + WAIT_MS;
	while (r->written == 0 && loop_now_ms() < end)
		loop_run_once(r->loop, 100);
	ck_assert_int_eq(r->written, 1);
	ck_assert_int_eq(r->error, EPIPE);
}

/* The reader leaves while bytes wait: the loop's watch fails the queue. */
START_TEST(test_epipe_waiting)
{
	struct rec	 r;
	struct outq	*q;
	char		 buf[100000];
	int		 fds[2];

	signal(SIGPIPE, SIG_IGN);
	make_pipe(fds);
	rec_init(&r, fds);
	q = outq_new(r.loop, fds[1], OUTQ_WATCH, &rec_cbs, &r);
	memset(buf, 'c', sizeof buf);
	ck_assert_int_eq(outq_add(q, buf, sizeof buf), 0);
	ck_assert_int_eq(outq_flush(q), 0);
	ck_assert_uint_gt(outq_pending(q), 0);
	reader_leaves(&r, fds);
	ck_assert_uint_eq(outq_pending(q), 0);
	ck_assert_uint_gt(outq_lost(q), 0);
	rec_done(&r, q, fds);
}
END_TEST

/* OUTQ_HANGUP: a reader that leaves while nothing waits is seen at once. */
START_TEST(test_hangup_idle)
{
	struct rec	 r;
	struct outq	*q;
	int		 fds[2];

	make_pipe(fds);
	rec_init(&r, fds);
	q = outq_new(r.loop, fds[1], OUTQ_WATCH | OUTQ_HANGUP, &rec_cbs, &r);
	loop_run_once(r.loop, 0);
	ck_assert_int_eq(r.written, 0);
	reader_leaves(&r, fds);
	ck_assert_int_eq(outq_add(q, "x", 1), -1);
	rec_done(&r, q, fds);
}
END_TEST

/*
 * A reader that takes nothing: the stalled callback once the limit has
 * passed; none once all is taken, however long the loop runs.
 */
START_TEST(test_stall)
{
	struct rec	 r;
	struct outq	*q;
	char		 buf[300000];
	int		 fds[2], seen;
	int64_t		 end;

	make_pipe(fds);
	rec_init(&r, fds);
	q = outq_new(r.loop, fds[1], OUTQ_WATCH, &rec_cbs, &r);
	outq_set_stall(q, 100);
	pattern(buf, 0, sizeof buf);
	ck_assert_int_eq(outq_add(q, buf, sizeof buf), 0);
	ck_assert_int_eq(outq_flush(q), 0);
	end = loop_now_ms() + WAIT_MS;
	while (r.stalled < 2 && loop_now_ms() < end)
		loop_run_once(r.loop, 100);
	/* Told, and again as long after, while nothing moves. */
	ck_assert_int_eq(r.stalled, 2);
	ck_assert_uint_gt(outq_pending(q), 0);
	ck_assert_int_eq(outq_error(q), 0);
	rec_read_all(&r, q, sizeof buf);
	seen = r.stalled;
	end = loop_now_ms() + 400;
	while (loop_now_ms() < end)
		loop_run_once(r.loop, 50);
	ck_assert_int_eq(r.stalled, seen);
	/* A drop gives up the bytes; the queue goes on. */
	ck_assert_int_eq(outq_add(q, "again", 5), 0);
	outq_drop(q);
	ck_assert_uint_eq(outq_lost(q), 5);
	ck_assert_uint_eq(outq_pending(q), 0);
	ck_assert_int_eq(outq_add(q, "more", 4), 0);
	ck_assert_int_eq(outq_flush(q), 0);
	ck_assert_uint_eq(outq_pending(q), 0);
	rec_done(&r, q, fds);
}
END_TEST

/* outq_close: nothing more is written; the caller's fd stays open. */
START_TEST(test_close)
{
	struct outq	*q;
	int		 fds[2];

	q = pipe_queue(fds, OUTQ_LIMIT_FAIL);
	ck_assert_int_eq(outq_add(q, "abc", 3), 0);
	outq_close(q);
	ck_assert_int_eq(outq_error(q), ECANCELED);
	ck_assert_uint_eq(outq_lost(q), 3);
	ck_assert_int_eq(outq_flush(q), -1);
	ck_assert_int_ne(fcntl(fds[1], F_GETFD), -1);
	pipe_queue_done(q, fds);
}
END_TEST

/*
 * Put fd on our stdout for a test (check runs each test in a child of
 * its own); return the stdout to put back.
 */
static int
stdout_swap(int fd)
{
	int	saved = dup(STDOUT_FILENO);

	ck_assert_int_ne(saved, -1);
	ck_assert_int_eq(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
	return saved;
}

/* Put back the stdout stdout_swap() saved. */
static void
stdout_restore(int saved)
{
	ck_assert_int_eq(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	close(saved);
}

/* Our stdout a pipe: a private opening, ours stays blocking; all arrive. */
START_TEST(test_open_pipe)
{
	struct rec	 r;
	struct outq	*q;
	char		 buf[200000];
	int		 fds[2], saved;

	ck_assert_int_eq(pipe2(fds, O_CLOEXEC), 0);
	ck_assert_int_ne(fcntl(fds[0], F_SETFL, O_NONBLOCK), -1);
	saved = stdout_swap(fds[1]);
	rec_init(&r, fds);
	q = outq_open(r.loop, STDOUT_FILENO, OUTQ_WATCH, &rec_cbs, &r);
	pattern(buf, 0, sizeof buf);
	ck_assert_int_eq(outq_add(q, buf, sizeof buf), 0);
	ck_assert_int_eq(outq_flush(q), 0);
	ck_assert_uint_gt(outq_pending(q), 0);
	/* What we share was not made non-blocking. */
	ck_assert_int_eq(fcntl(STDOUT_FILENO, F_GETFL) & O_NONBLOCK, 0);
	rec_read_all(&r, q, sizeof buf);
	stdout_restore(saved);
	rec_done(&r, q, fds);
}
END_TEST

/*
 * Our stdout a blocking socket: only polled, PIPE_BUF bytes a POLLOUT;
 * nothing is written before the loop says there is room.
 */
START_TEST(test_open_polled)
{
	struct rec	 r;
	struct outq	*q;
	char		 buf[100000];
	int		 fds[2], saved;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    fds), 0);
	ck_assert_int_ne(fcntl(fds[0], F_SETFL, O_NONBLOCK), -1);
	saved = stdout_swap(fds[1]);
	rec_init(&r, fds);
	q = outq_open(r.loop, STDOUT_FILENO, 0, &rec_cbs, &r);
	pattern(buf, 0, sizeof buf);
	ck_assert_int_eq(outq_add(q, buf, sizeof buf), 0);
	ck_assert_int_eq(outq_flush(q), 0);
	ck_assert_uint_eq(outq_pending(q), sizeof buf);
	loop_run_once(r.loop, WAIT_MS);
	ck_assert_int_eq(r.written, 1);
	ck_assert_uint_eq(outq_pending(q), sizeof buf - PIPE_BUF);
	rec_read_all(&r, q, sizeof buf);
	ck_assert_int_ge(r.written, (int)(sizeof buf / PIPE_BUF));
	stdout_restore(saved);
	rec_done(&r, q, fds);
}
END_TEST

/* Our stdout closed: a queue that has failed, whose bytes are lost. */
START_TEST(test_open_closed)
{
	struct loop	*loop = loop_new();
	struct outq	*q;
	int		 saved = dup(STDOUT_FILENO);

	close(STDOUT_FILENO);
	q = outq_open(loop, STDOUT_FILENO, OUTQ_WATCH, NULL, NULL);
	ck_assert_int_eq(outq_error(q), EBADF);
	ck_assert_int_eq(outq_add(q, "lost", 4), -1);
	ck_assert_uint_eq(outq_lost(q), 4);
	ck_assert_int_eq(outq_flush(q), -1);
	outq_free(q);
	stdout_restore(saved);
	loop_free(loop);
}
END_TEST

/* Build the outq suite. */
static Suite *
outq_suite(void)
{
	Suite	*s = suite_create("outq");
	TCase	*tc;

	tc = tcase_create("order");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_pipe_stalled_reader);
	tcase_add_test(tc, test_socket_stalled_reader);
	tcase_add_test(tc, test_owner_watches);
	tcase_add_test(tc, test_owned);
	suite_add_tcase(s, tc);

	tc = tcase_create("limit");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_limit_refuse);
	tcase_add_test(tc, test_limit_fail);
	tcase_add_test(tc, test_stall);
	tcase_add_test(tc, test_close);
	suite_add_tcase(s, tc);

	tc = tcase_create("gone");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_epipe_flush);
	tcase_add_test(tc, test_epipe_socket_no_signal);
	tcase_add_test(tc, test_epipe_waiting);
	tcase_add_test(tc, test_hangup_idle);
	suite_add_tcase(s, tc);

	tc = tcase_create("stdout");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_open_pipe);
	tcase_add_test(tc, test_open_polled);
	tcase_add_test(tc, test_open_closed);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr = srunner_create(outq_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
