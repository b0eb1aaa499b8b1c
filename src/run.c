/*
 * run.c: one run of `jobdeck run`'s command (run-cmd.c makes it) to its
 * end without a screen: its supervised child, the loop over its pipes,
 * how it ends, and the result.
 *
 * How: pty_spawn() in split mode: stdout and stderr on two pipes, stdin
 * a pipe for the input (else /dev/null), the child the leader of its own
 * session and process group, and a report of whether the exec happened.
 * The child is a supervised process (proc.h), as a deck's job is, under
 * a reaper of run's own on run's loop: proc_spawn() starts it contained
 * (cgroup.h): run makes a containment of its own, jobdeck.<pid>.<start>,
 * and the child joins a cgroup in it before it execs, or carries its
 * JOBDECK_JOB marker where no cgroup can be made (JOBDECK_NO_CGROUP=1
 * asks for the marker alone), so what leaves its group (setsid, a double
 * fork) is still reached; a deck's sweep kills what a SIGKILLed run left.
 * Stopping it is proc_stop()'s (the signal to the group, SIGCONT, the
 * escapees, SIGKILL after the grace), its exit the reaper's exited
 * callback.  One loop (loop.h) reads both pipes and writes the input
 * without blocking, so no amount of output on either stream, and no child
 * that never reads its stdin, can wedge the run.  The leader is held
 * (proc_hold()): the reaper tells its exit but leaves it a zombie until
 * the very end (proc_finish()), so its pid, the group's id, cannot be
 * reused while the group may still be signalled (the linger grace, a
 * timeout or a signal after its exit, the final SIGKILL).
 *
 * When it ends: once the program has exited and both pipes are at their
 * end.  If something it left behind still holds a pipe open when it
 * exits, that gets the grace to let go; then the rest of it is stopped
 * (SIGTERM to the group and its containment, then SIGKILL after the grace
 * again), since the run could not end otherwise.  On a timeout
 * (--timeout, else the job's timeout, else RUN_DEFAULT_TIMEOUT; 0 is
 * none), or SIGINT, SIGTERM or SIGHUP to jobdeck (passed on to the group
 * and its containment as they are; a second one sends SIGKILL), all of it
 * gets SIGTERM and, after the grace (2 s, or the kill_timeout of a
 * configuration file that was read), SIGKILL.  However it ends, nothing
 * it started outlives the run: what is left of the group, of the
 * containment (background processes that let go of the output included)
 * and any process reparented to jobdeck, the subreaper, is killed before
 * jobdeck run exits.
 *
 * The result: success (return_code 0), return_code (the code of the end
 * by the one policy, waitstatus_end_code(): the exit status, 128+N for
 * signal N, 124 timed out, 125 not started (no pipe or fork), 126 not
 * executable, 127 not found or a cwd that cannot be entered), signal
 * ("SIGKILL" or null), timed_out, duration_ms
 * (from the start to the program's exit), stdout and stderr (bytes, the
 * first RUN_MAX_KEEP of each, with a note on stderr about the rest; JSON
 * makes invalid UTF-8 U+FFFD).  A timeout appends "jobdeck: timed out
 * after S s" to stderr.  Without --json the output is copied to ours as it
 * comes and nothing is kept.
 *
 * Our own output never blocks the loop (outq.h): a pipe or terminal of
 * ours is opened again, privately, non-blocking, and written as far as
 * it takes.  While a reader of ours is slow, at most one read
 * (RUN_READ_SIZE) of that stream waits here and the child's pipe is not
 * read, so the program blocks on it, as it would writing to the reader
 * itself; the loop goes on, and the timeout and signals act as ever.  The
 * timeout then covers passing the output on too: a reader that has not
 * taken it all by then makes the run time out, after the program's exit
 * as well.  Once the run is forced to end (timeout, signal) and the
 * program is gone, our readers get RUN_FLUSH_MS to take what is left; the
 * rest is dropped.  A reader that goes away (EPIPE) ends the passing on of
 * that stream: its pipe is closed, so the program learns it the way it
 * would have without us (EPIPE, SIGPIPE), and its status (141 when
 * SIGPIPE ends it) is ours.  The JSON result is written after the run as
 * the reader takes it; a reader that takes nothing of it for RUN_STALL_MS,
 * or a signal to jobdeck meanwhile, loses it (exit status 125).
 *
 * Exit statuses of jobdeck run:
 *	with --json	0 once the result is printed, whatever it says
 *			(125 if it cannot be written, or its reader
 *			stalls or goes away)
 *	without		return_code: the program's status, N, or 128+N
 *			for signal N; 126 found but not executable, 127
 *			not found or cwd not entered (the child's own),
 *			124 timed out (as timeout(1)), the output not
 *			passed on by then included, 125 jobdeck could not
 *			start it (pipe, fork)
 *	both		2 for a usage error, an unknown JOBNAME or a
 *			configuration error; 0 for -h
 */
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "child.h"
#include "config.h"
#include "expand.h"
#include "json.h"
#include "loop.h"
#include "outq.h"
#include "proc.h"
#include "pty.h"
#include "run-private.h"
#include "store.h"
#include "waitstatus.h"
#include "xmalloc.h"

#define RUN_DRAIN_MS		500	/* after SIGKILL: escapees' output */
#define RUN_READ_SIZE		65536
#define RUN_MAX_KEEP		(64 * 1024 * 1024)	/* per stream, --json */
#define RUN_READS_PER_TURN	16
#define RUN_FLUSH_MS		500	/* forced end: the output's last chance */
#define RUN_STALL_MS		5000	/* the JSON result: a reader's pause */
#define RUN_END_MS		2000	/* the end: what is left, reaped */

struct run;
struct run_stream;

/* One output stream of the child. */
struct run_stream {
	struct run	*r;
	int		 fd;		/* our read end, -1 once at its end */
	struct outq	*to;		/* pass through to this; NULL: keep */
	char		*buf;		/* kept bytes (--json) */
	size_t		 len;
	size_t		 size;
	uint64_t	 dropped;	/* read past RUN_MAX_KEEP */
};

/* One run: the child, its streams, its input and how it is ending. */
struct run {
	struct loop		*loop;
	struct proc_reaper	*reaper;	/* run's own, on loop */
	struct proc		*proc;		/* the child, supervised */
	int			 exec_errno;	/* could not start: why */
	struct run_stream	 out;
	struct run_stream	 err;
	struct outq		*out_to;	/* our stdout */
	struct outq		*err_to;	/* our stderr (pass-through) */
	struct outq		*final;		/* the report, being written */
	int			 in_fd;		/* -1: all written or dropped */
	const char		*input;
	size_t			 input_len;
	size_t			 input_off;
	const struct run_cmd	*cmd;

	int64_t			 started;
	int64_t			 ended;		/* when the leader exited */
	int			 exited;	/* the leader is a zombie */
	int			 status;	/* ... its wait status */
	int			 timed_out;
	int			 stopping;	/* the group was told to stop */
	int			 forced;	/* ... for a timeout, signal */
	int			 killed;	/* SIGKILL was sent */
	int			 drained;	/* ... RUN_DRAIN_MS ago */
	uint64_t		 timeout_timer;
	uint64_t		 linger_timer;	/* leader gone, pipes held */
	uint64_t		 drain_timer;
	uint64_t		 flush_timer;	/* forced end: output's last */
	struct cgroup		*cg;		/* run's containment */
	struct store		*store;		/* where the run is kept, or NULL */
	struct store_run	*srun;
	char			 run_id[STORE_ID_LEN + 1];
	int64_t			 started_wall;	/* ms since the epoch */
};

static void	run_out_written(struct outq *, void *);
static void	run_out_stalled(struct outq *, void *);
static int	run_out_finish(struct run *, struct outq *, int64_t);
static void	run_stream_add(struct run_stream *, const char *, size_t);
static void	run_stream_keep(struct run_stream *, const char *, size_t);
static void	run_stream_close(struct run_stream *);
static void	run_stream_abandon(struct run_stream *);
static int	run_stream_held(const struct run_stream *);
static void	run_stream_read(struct run_stream *, int);
static void	run_store_write(struct run_stream *, const char *, size_t);
static void	run_stream_cb(int, short, void *);
static void	run_input_close(struct run *);
static void	run_input_cb(int, short, void *);
static void	run_check_done(struct run *);
static void	run_stop(struct run *, int);
static void	run_killed(struct run *);
static void	run_killed_cb(struct proc *, void *);
static void	run_drain_cb(void *);
static void	run_flush_start(struct run *);
static void	run_flush_cb(void *);
static void	run_timeout_cb(void *);
static void	run_linger_cb(void *);
static void	run_exited_cb(struct proc *, int, void *);
static void	run_signal_cb(int, void *);
static void	run_watch_signals(struct run *);
static int	run_start(struct run *, const struct run_cmd *, char **);
static void	run_end(struct run *);
static int	run_finish(struct run *, int, int, int, const char *);

/* What our own outputs tell the run (outq.h). */
static const struct outq_cbs run_out_cbs = {
	.written = run_out_written,
	.stalled = run_out_stalled,
};

/*
 * Our stdout or stderr had room (or can take nothing any more): if it
 * took all, read on from the stream it passes on; if it failed, close
 * that stream, so the child learns it.
 */
static void
run_out_written(struct outq *q, void *arg)
{
	struct run		*r = arg;
	struct run_stream	*s = NULL;

	if (r->out.to == q)
		s = &r->out;
	else if (r->err.to == q)
		s = &r->err;
	if (s != NULL && outq_error(q) != 0)
		run_stream_close(s);
	else if (s != NULL && outq_pending(q) == 0)
		run_stream_read(s, RUN_READS_PER_TURN);
	run_check_done(r);
}

/* The report's reader took nothing for the allowed time: give it up. */
static void
run_out_stalled(struct outq *q, void *arg)
{
	struct run	*r = arg;

	if (r->final != q)
		return;
	outq_drop(q);
	loop_stop(r->loop);
}

/*
 * After the run: write what q holds (the report) as its reader takes it,
 * running the loop, and give it up when the reader takes nothing for
 * stall_ms (at once if 0) or a signal comes.  Return 0 if all was written.
 */
static int
run_out_finish(struct run *r, struct outq *q, int64_t stall_ms)
{
	if (outq_flush(q) == 0 && outq_pending(q) > 0) {
		if (stall_ms <= 0)
			outq_drop(q);
		else {
			r->final = q;
			outq_set_stall(q, stall_ms);
			if (loop_run(r->loop) != 0)
				outq_drop(q);
			outq_set_stall(q, 0);
			r->final = NULL;
		}
	}
	return outq_error(q) == 0 && outq_lost(q) == 0 ? 0 : -1;
}

/* Keep n more bytes of a stream, up to RUN_MAX_KEEP; count the rest. */
static void
run_stream_keep(struct run_stream *s, const char *buf, size_t n)
{
	size_t	room = s->len < RUN_MAX_KEEP ? RUN_MAX_KEEP - s->len : 0;

	if (n > room) {
		s->dropped += n - room;
		n = room;
	}
	run_stream_add(s, buf, n);
}

/* Append n bytes to a stream's kept bytes. */
static void
run_stream_add(struct run_stream *s, const char *buf, size_t n)
{
	if (n == 0)
		return;
	if (s->len + n > s->size) {
		s->size = s->size * 2 > s->len + n ? s->size * 2 : s->len + n;
		s->buf = xreallocarray(s->buf, s->size, 1);
	}
	memcpy(s->buf + s->len, buf, n);
	s->len += n;
}

/* Stop reading a stream: unwatch and close its pipe. */
static void
run_stream_close(struct run_stream *s)
{
	if (s->fd == -1)
		return;
	loop_unwatch_fd(s->r->loop, s->fd);
	close(s->fd);
	s->fd = -1;
}

/*
 * Stop reading a stream for good: close its pipe, and give up on what its
 * reader has not taken of it yet.
 */
static void
run_stream_abandon(struct run_stream *s)
{
	run_stream_close(s);
	if (s->to != NULL)
		outq_drop(s->to);
}

/*
 * Tell whether a stream's pipe is open while we read it (not paused for
 * our reader): then what keeps it open is something the program left
 * behind.
 */
static int
run_stream_held(const struct run_stream *s)
{
	return s->fd != -1 && (s->to == NULL || outq_pending(s->to) == 0);
}

/*
 * Read what the pipe holds, at most max reads (a writer that never stops
 * must not hold up the loop), passing it through or keeping it; close the
 * stream at its end.  What is passed through is read only once our reader
 * has taken the last read: until then the pipe is not watched, and the
 * child waits on it.  If our own output fails (a reader that went away),
 * the pipe is closed too, so the child learns it the way it would have
 * without us (EPIPE, SIGPIPE).
 */
static void
run_stream_read(struct run_stream *s, int max)
{
	char	buf[RUN_READ_SIZE];
	ssize_t	n;
	int	i;

	for (i = 0; s->fd != -1 && i < max; i++) {
		if (s->to != NULL && outq_pending(s->to) > 0)
			break;
		n = read(s->fd, buf, sizeof buf);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			break;
		if (n <= 0) {
			run_stream_close(s);
			return;
		}
		run_store_write(s, buf, (size_t)n);
		if (s->to == NULL) {
			run_stream_keep(s, buf, (size_t)n);
			continue;
		}
		(void)outq_add(s->to, buf, (size_t)n);
		if (outq_flush(s->to) != 0) {
			run_stream_close(s);
			return;
		}
	}
	if (s->fd != -1)
		loop_set_events(s->r->loop, s->fd, s->to != NULL &&
		    outq_pending(s->to) > 0 ? 0 : POLLIN);
}

/* Keep what a stream read in the output store; a failure ends keeping. */
static void
run_store_write(struct run_stream *s, const char *buf, size_t len)
{
	struct run	*r = s->r;

	if (r->srun != NULL && store_run_write(r->srun, s == &r->out ?
	    STORE_STDOUT : STORE_STDERR, buf, len, loop_wall_ms()) != 0) {
		store_run_close(r->srun);
		r->srun = NULL;
	}
}

/* Fill m with what the store keeps of the run (m->command is the caller's). */
static void
run_store_meta(const struct run *r, const struct run_cmd *cmd,
    struct store_meta *m)
{
	memset(m, 0, sizeof *m);
	memcpy(m->run, r->run_id, sizeof m->run);
	m->start = 1;
	m->name = (char *)"run";
	m->command = expand_shell_join(cmd->argv);
	m->argv = cmd->argv;
	m->cwd = cmd->cwd;
	m->envp = cmd->envp;
	m->pid = proc_pid(r->proc);
	m->started = r->started_wall;
	m->state = (char *)"running";
}

/*
 * Begin the run in the output store of dir, with the configuration's
 * limits (as a deck of its own, so decks list it in their history);
 * without a store it just is not kept.
 */
static void
run_store_begin(struct run *r, const struct run_cmd *cmd, const char *dir,
    const struct config *cfg)
{
	struct store_limits	 lim;
	struct store_meta	 m;
	char			*cause = NULL;

	config_store_limits(cfg, &lim);
	if ((r->store = store_open(dir, &lim, &cause)) == NULL) {
		free(cause);
		return;
	}
	r->started_wall = loop_wall_ms();
	run_store_meta(r, cmd, &m);
	if ((r->srun = store_run_new(r->store, &m, &cause)) == NULL)
		free(cause);
	else
		memcpy(r->run_id, m.run, sizeof r->run_id);
	free(m.command);
}

/* Record how the run ended in the store, and close it. */
static void
run_store_end(struct run *r, const struct run_cmd *cmd, int spawned,
    int status)
{
	struct store_meta	m;

	if (r->srun != NULL) {
		run_store_meta(r, cmd, &m);
		m.ended = loop_wall_ms();
		m.state = (char *)(r->timed_out ? "timed-out" : !spawned ||
		    r->exec_errno != 0 || status != 0 ? "failed" : "completed");
		m.status = status;
		m.has_status = spawned;
		store_run_flush(r->srun, m.ended);
		store_run_update(r->srun, &m);
		free(m.command);
		store_run_close(r->srun);
		r->srun = NULL;
	}
	store_free(r->store);
	r->store = NULL;
}

/* The loop says a stream's pipe is readable (or hung up). */
static void
run_stream_cb(int fd, short revents, void *arg)
{
	struct run_stream	*s = arg;

	(void)fd;
	(void)revents;
	run_stream_read(s, RUN_READS_PER_TURN);
	run_check_done(s->r);
}

/* Stop writing the input: unwatch and close the child's stdin. */
static void
run_input_close(struct run *r)
{
	if (r->in_fd == -1)
		return;
	loop_unwatch_fd(r->loop, r->in_fd);
	close(r->in_fd);
	r->in_fd = -1;
}

/*
 * The child's stdin has room: write more of the input, and close it once
 * all is written, or when the child will not take it (EPIPE).
 */
static void
run_input_cb(int fd, short revents, void *arg)
{
	struct run	*r = arg;
	ssize_t		 n;

	(void)revents;
	while (r->input_off < r->input_len) {
		n = write(fd, r->input + r->input_off,
		    r->input_len - r->input_off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return;
		if (n <= 0)
			break;
		r->input_off += (size_t)n;
	}
	run_input_close(r);
}

/*
 * End the loop once the leader has exited, both streams are at an end and
 * our readers have taken what they carried; after the run, once the
 * report is written.
 */
static void
run_check_done(struct run *r)
{
	if (outq_pending(r->out_to) > 0 || outq_pending(r->err_to) > 0)
		return;
	if (r->final != NULL ||
	    (r->exited && r->out.fd == -1 && r->err.fd == -1))
		loop_stop(r->loop);
}

/* What the child's supervision tells the run (proc.h). */
static const struct proc_cbs run_proc_cbs = {
	.exited = run_exited_cb,
	.killed = run_killed_cb,
};

/*
 * Tell all of the child (its group and its containment) to stop with
 * sig; SIGKILL follows after the grace (proc_stop()).  Called again while
 * stopping, it sends SIGKILL now.
 */
static void
run_stop(struct run *r, int sig)
{
	if (r->proc == NULL || proc_pid(r->proc) <= 0)
		return;
	if (r->stopping) {
		if (!r->killed) {
			proc_kill(r->proc);
			run_killed(r);
		}
		return;
	}
	r->stopping = 1;
	proc_stop(r->proc, sig, r->cmd->grace_ms);
}

/* The grace is over and SIGKILL sent (proc_stop()'s): see run_killed(). */
static void
run_killed_cb(struct proc *p, void *arg)
{
	(void)p;
	run_killed(arg);
}

/* SIGKILL went to all of it: wait a little for EOF. */
static void
run_killed(struct run *r)
{
	r->killed = 1;
	r->drain_timer = loop_add_timer(r->loop, RUN_DRAIN_MS, run_drain_cb,
	    r);
}

/*
 * The group is dead, yet a pipe may still be open (held by a process that
 * left the group): once the leader has exited, read what is there and
 * give up on the rest.
 */
static void
run_drain_cb(void *arg)
{
	struct run	*r = arg;

	r->drain_timer = 0;
	r->drained = 1;
	if (!r->exited)
		return;		/* its SIGCHLD is on the way */
	run_stream_read(&r->out, RUN_READS_PER_TURN);
	run_stream_read(&r->err, RUN_READS_PER_TURN);
	run_stream_abandon(&r->out);
	run_stream_abandon(&r->err);
	run_check_done(r);
}

/*
 * Once the run is forced to end and the leader is gone, give our readers
 * RUN_FLUSH_MS to take what is left, no more: a stalled reader must not
 * hold up the end.
 */
static void
run_flush_start(struct run *r)
{
	if (r->forced && r->exited && r->flush_timer == 0)
		r->flush_timer = loop_add_timer(r->loop, RUN_FLUSH_MS,
		    run_flush_cb, r);
}

/*
 * The forced end's last chance is over: drop what our readers have not
 * taken, and the streams it came from.
 */
static void
run_flush_cb(void *arg)
{
	struct run	*r = arg;

	if (outq_pending(r->out_to) > 0)
		run_stream_abandon(&r->out);
	if (outq_pending(r->err_to) > 0)
		run_stream_abandon(&r->err);
	run_check_done(r);
}

/*
 * The timeout is over: stop the group.  It also bounds passing the output
 * on: after the leader's exit it counts only if our reader has not taken
 * it all yet (else pipes held by what the leader left are run_linger_cb's
 * business).
 */
static void
run_timeout_cb(void *arg)
{
	struct run	*r = arg;

	r->timeout_timer = 0;
	if (r->exited && outq_pending(r->out_to) == 0 &&
	    outq_pending(r->err_to) == 0)
		return;
	r->timed_out = 1;
	r->forced = 1;
	run_stop(r, SIGTERM);
	run_flush_start(r);
}

/*
 * The leader has exited (the reaper's exited callback); it is held a
 * zombie (proc_hold()) until the end.  What it wrote is read at once; a
 * pipe still open after that is held by something it left behind, which
 * is then stopped, or waits for our reader.  The timeout stays: it
 * bounds passing the output on.
 */
static void
run_exited_cb(struct proc *p, int status, void *arg)
{
	struct run	*r = arg;

	(void)p;
	if (r->exited)
		return;
	r->exited = 1;
	r->status = status;
	r->ended = loop_now_ms();
	run_stream_read(&r->out, RUN_READS_PER_TURN);
	run_stream_read(&r->err, RUN_READS_PER_TURN);
	if (r->out.fd != -1 || r->err.fd != -1) {
		if (r->drained) {
			run_stream_abandon(&r->out);
			run_stream_abandon(&r->err);
		} else if (!r->stopping)
			r->linger_timer = loop_add_timer(r->loop,
			    r->cmd->grace_ms, run_linger_cb, r);
	}
	run_flush_start(r);
	run_check_done(r);
}

/*
 * The leader exited a grace ago and a pipe is still held open by what it
 * left behind: stop the rest of the group.  A pipe that is only waiting
 * for our slow reader is not held: look again a grace later.
 */
static void
run_linger_cb(void *arg)
{
	struct run	*r = arg;

	r->linger_timer = 0;
	if (run_stream_held(&r->out) || run_stream_held(&r->err))
		run_stop(r, SIGTERM);
	else if (r->out.fd != -1 || r->err.fd != -1)
		r->linger_timer = loop_add_timer(r->loop, r->cmd->grace_ms,
		    run_linger_cb, r);
}

/*
 * SIGINT, SIGTERM, SIGHUP to jobdeck: pass it on to the group and stop;
 * once the run is over, give up writing the report.
 */
static void
run_signal_cb(int signo, void *arg)
{
	struct run	*r = arg;

	if (r->final != NULL) {
		outq_drop(r->final);
		loop_stop(r->loop);
		return;
	}
	r->forced = 1;
	run_stop(r, signo);
	run_flush_start(r);
}

/*
 * Watch SIGINT, SIGTERM and SIGHUP unless they were ignored when we
 * started (nohup, a shell's background job): those stay ignored.  They
 * and SIGCHLD (the reaper's) are unblocked, whatever mask we inherited.
 */
static void
run_watch_signals(struct run *r)
{
	static const int	 stops[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction	 old;
	sigset_t		 set;
	size_t			 i;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	for (i = 0; i < sizeof stops / sizeof stops[0]; i++) {
		sigaddset(&set, stops[i]);
		if (sigaction(stops[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		loop_watch_signal(r->loop, stops[i], run_signal_cb, r);
	}
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/*
 * Spawn the command in its containment and watch its pipes; -1 with
 * *cause if it cannot be.
 */
static int
run_start(struct run *r, const struct run_cmd *cmd, char **cause)
{
	struct pty_spec		 spec;
	struct pty_child	 child;
	int64_t			 ms;

	memset(&spec, 0, sizeof spec);
	spec.path = cmd->path;
	spec.argv = cmd->argv;
	spec.envp = cmd->envp;
	spec.cwd = cmd->cwd;
	spec.no_pty = 1;
	spec.split_stderr = 1;
	spec.null_stdin = cmd->input == NULL;
	r->proc = proc_new(r->reaper, r->cg, 0, &run_proc_cbs, r);
	proc_hold(r->proc);
	if (proc_spawn(r->proc, &spec, &child, cause) != 0)
		return -1;

	/* The fds are ours from here; the struct is not kept. */
	r->exec_errno = child.exec_errno;
	r->out.fd = child.out_fd;
	r->err.fd = child.err_fd;
	r->in_fd = child.in_fd;
	loop_watch_fd(r->loop, r->out.fd, POLLIN, run_stream_cb, &r->out);
	loop_watch_fd(r->loop, r->err.fd, POLLIN, run_stream_cb, &r->err);
	if (r->in_fd != -1) {
		if (r->input_len > 0)
			loop_watch_fd(r->loop, r->in_fd, POLLOUT, run_input_cb,
			    r);
		else
			run_input_close(r);
	}
	if (cmd->timeout > 0) {
		ms = (int64_t)(cmd->timeout * 1000);
		if ((double)ms < cmd->timeout * 1000)
			ms++;		/* round up: never early */
		r->timeout_timer = loop_add_timer(r->loop, ms, run_timeout_cb,
		    r);
	}
	return 0;
}

/*
 * After the loop: nothing the child started outlives the run.  Its group
 * and its containment get SIGKILL while the held leader still keeps the
 * group's id (cgroup_kill_all() waits for this run's cgroups and scans
 * for its marker), then proc_finish() reaps the leader and what of its
 * group is ours, and whatever was reparented to us, the subreaper, is
 * killed and reaped (proc_kill_strays()).  A leader whose exit was not
 * seen (the loop failed) is waited for, for its status.
 */
static void
run_end(struct run *r)
{
	proc_kill(r->proc);
	cgroup_kill_all(r->cg);
	if (!r->exited)
		(void)child_wait(proc_pid(r->proc), RUN_END_MS, &r->status);
	(void)proc_finish(r->proc, 0, RUN_END_MS, RUN_END_MS);
	proc_kill_strays();
}

/*
 * Report the run: the JSON result, or the messages and the exit status of
 * pass-through mode.  spawned is 0 when pty_spawn() failed (why says
 * why); status is the leader's wait status.  The report is written as its
 * reader takes it (run_out_finish): the JSON result waits up to
 * RUN_STALL_MS for a reader that takes nothing, a message RUN_FLUSH_MS,
 * or nothing if that reader has stalled already.
 */
static int
run_finish(struct run *r, int json, int spawned, int status, const char *why)
{
	struct waitstatus_end	 end;
	struct json_buf		 jb;
	struct run_stream	*s;
	char			*msg = NULL, *text, name[WAITSTATUS_NAME_MAX];
	size_t			 len;
	int			 code, sig, i;

	/* The one rule for an end; exec's 126 and 127 are the child's own. */
	end.status = spawned ? status : WAITSTATUS_NONE;
	end.timed_out = r->timed_out;
	end.completed = spawned && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0;
	code = waitstatus_end_code(&end);
	sig = waitstatus_signal(end.status);
	if (!spawned)
		msg = xprintf("jobdeck: %s\n", why);
	else if (r->timed_out)
		msg = xprintf("jobdeck: timed out after %g s\n",
		    r->cmd->timeout);
	if (r->ended == 0)
		r->ended = loop_now_ms();

	if (!json) {
		if (msg != NULL) {
			(void)outq_add(r->err_to, msg, strlen(msg));
			(void)run_out_finish(r, r->err_to,
			    outq_lost(r->err_to) > 0 ? 0 : RUN_FLUSH_MS);
		}
		free(msg);
		return code;
	}

	if (msg != NULL)
		run_stream_add(&r->err, msg, strlen(msg));
	free(msg);
	for (i = 0; i < 2; i++) {
		s = i == 0 ? &r->out : &r->err;
		if (s->dropped == 0)
			continue;
		msg = xprintf("jobdeck: %s: kept the first %d MiB, dropped "
		    "%llu more bytes\n", i == 0 ? "stdout" : "stderr",
		    RUN_MAX_KEEP / (1024 * 1024),
		    (unsigned long long)s->dropped);
		run_stream_add(&r->err, msg, strlen(msg));
		free(msg);
	}
	json_init(&jb);
	json_object_begin(&jb);
	json_key(&jb, "success");
	json_put_bool(&jb, code == 0);
	json_key(&jb, "return_code");
	json_put_int(&jb, code);
	json_key(&jb, "signal");
	if (sig != 0)
		json_put_string(&jb, waitstatus_signal_name(sig, name,
		    sizeof name));
	else
		json_put_null(&jb);
	json_key(&jb, "timed_out");
	json_put_bool(&jb, r->timed_out);
	json_key(&jb, "duration_ms");
	json_put_int(&jb, r->ended - r->started);
	json_key(&jb, "stdout");
	json_put_stringn(&jb, r->out.buf != NULL ? r->out.buf : "", r->out.len);
	json_key(&jb, "stderr");
	json_put_stringn(&jb, r->err.buf != NULL ? r->err.buf : "", r->err.len);
	json_key(&jb, "run");
	if (r->run_id[0] != '\0')
		json_put_string(&jb, r->run_id);
	else
		json_put_null(&jb);
	json_object_end(&jb);
	text = json_finish(&jb, &len);
	json_clear(&jb);
	text[len] = '\n';	/* over the NUL: the text is not a C string */
	(void)outq_add_owned(r->out_to, text, len + 1);
	return run_out_finish(r, r->out_to, RUN_STALL_MS) == 0 ? 0 :
	    RUN_EXIT_FAILURE;
}

/*
 * Run cmd to its end, kept in the store in dir with cfg's limits (cfg may
 * be NULL), and report it; return jobdeck's exit status.
 */
int
run_execute(const struct run_cmd *cmd, int json, const char *dir,
    const struct config *cfg)
{
	struct run	 r;
	char		*why = NULL;
	int		 spawned, rc;

	memset(&r, 0, sizeof r);
	r.cmd = cmd;
	r.loop = loop_new();
	r.out.r = r.err.r = &r;
	r.out.fd = r.err.fd = r.in_fd = -1;
	r.out_to = outq_open(r.loop, STDOUT_FILENO, OUTQ_WATCH, &run_out_cbs,
	    &r);
	r.err_to = outq_open(r.loop, STDERR_FILENO, OUTQ_WATCH, &run_out_cbs,
	    &r);
	if (!json) {
		r.out.to = r.out_to;
		r.err.to = r.err_to;
	}
	r.input = cmd->input;
	r.input_len = cmd->input != NULL ? strlen(cmd->input) : 0;

	/* Before the child exists, so no SIGCHLD or orphan is missed. */
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	r.reaper = proc_reaper_new(r.loop);
	run_watch_signals(&r);
	r.cg = cgroup_new(cgroup_env_flags());
	proc_reaper_set_cgroup(r.reaper, r.cg);

	r.started = loop_now_ms();
	spawned = run_start(&r, cmd, &why) == 0;
	if (spawned)
		run_store_begin(&r, cmd, dir, cfg);
	if (spawned) {
		if (loop_run(r.loop) != 0) {
			/* poll() failed: nothing more can be read. */
			r.forced = 1;
		}
		loop_cancel_timer(r.loop, r.timeout_timer);
		loop_cancel_timer(r.loop, r.linger_timer);
		loop_cancel_timer(r.loop, r.drain_timer);
		loop_cancel_timer(r.loop, r.flush_timer);
		run_input_close(&r);
		run_stream_abandon(&r.out);
		run_stream_abandon(&r.err);
		run_end(&r);
	}
	r.out.to = r.err.to = NULL;	/* only the report is left */
	run_store_end(&r, cmd, spawned, r.status);
	rc = run_finish(&r, json, spawned, r.status, why);
	/* The reaper watches the loop's SIGCHLD, and its timer r.cg. */
	proc_free(r.proc);
	proc_reaper_free(r.reaper);
	cgroup_free(r.cg);
	outq_free(r.out_to);
	outq_free(r.err_to);
	loop_free(r.loop);
	free(why);
	free(r.out.buf);
	free(r.err.buf);
	return rc;
}
