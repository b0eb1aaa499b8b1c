/*
 * run.c: one run of `jobdeck run`'s command (run-cmd.c makes it) to its
 * end without a screen: its supervised child, the loop over its pipes,
 * how it ends, and the result.
 *
 * How: an in-process deck of one job.  The command is a job (job.h) in a
 * job table of run's own (jobtable.h) on run's loop, spawned from a
 * job_spec as a deck spawns its jobs: on pipes, stdout and stderr apart
 * (STORE_STDOUT, STORE_STDERR), stdin a pipe for the input (else
 * /dev/null), the environment as given (no_term), no emulator
 * (no_screen), the child the leader of its own session and process group
 * and a supervised process (proc.h) of the table's reaper, contained
 * (cgroup.h): run makes a containment of its own, jobdeck.<pid>.<start>,
 * and the child joins a cgroup in it before it execs, or carries its
 * JOBDECK_JOB marker where no cgroup can be made (JOBDECK_NO_CGROUP=1
 * asks for the marker alone), so what leaves its group (setsid, a double
 * fork) is still reached; a deck's sweep kills what a SIGKILLed run left.
 * The table reads both pipes on the loop and tells run each piece with
 * its stream, and the job's end (the exited callback, its wait status);
 * the job writes its run into the output store (as a deck's job, named
 * "run"), so decks list it in their history.  Run writes the input
 * itself to the stdin pipe the job hands over (job_take_in_fd()): an
 * input of any size, which a job's queue (capped) would not take.  No
 * amount of output on either stream, and no child that never reads its
 * stdin, can wedge the run.  What is run's own around the job: its
 * timeout (it also bounds passing the output on), the signals to
 * jobdeck, and the policy for what the program leaves behind
 * (own_leftovers: no SIGTERM at the leader's exit, but the grace below),
 * which it drives through the job's supervised process (job_proc(),
 * proc_stop(): the signal to the group, SIGCONT, the escapees, SIGKILL
 * after the grace).  The leader is held (proc_hold()): the reaper tells
 * its exit but leaves it a zombie until the very end (proc_finish()), so
 * its pid, the group's id, cannot be reused while the group may still be
 * signalled (the linger grace, a timeout or a signal after its exit, the
 * final SIGKILL).
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
 * it takes.  While a reader of ours is slow, at most one read of that
 * stream waits here and the table reads no more of the child's pipe
 * (jobtable_pause_output()), so the program blocks on it, as it would
 * writing to the reader itself; the loop goes on, and the timeout and
 * signals act as ever.  The timeout then covers passing the output on
 * too: a reader that has not taken it all by then makes the run time
 * out, after the program's exit as well.  Once the run is forced to end
 * (timeout, signal) and the program is gone, our readers get
 * RUN_FLUSH_MS to take what is left; the rest is dropped.  A reader that
 * goes away (EPIPE) ends the passing on of that stream: its pipe is
 * closed (job_close_stream()), so the program learns it the way it would
 * have without us (EPIPE, SIGPIPE), and its status (141 when SIGPIPE
 * ends it) is ours.  The JSON result is written after the run as the
 * reader takes it; a reader that takes nothing of it for RUN_STALL_MS,
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
#include "job.h"
#include "host.h"
#include "jobtable.h"
#include "json.h"
#include "loop.h"
#include "outq.h"
#include "proc.h"
#include "run-private.h"
#include "store.h"
#include "waitstatus.h"
#include "xmalloc.h"

#define RUN_DRAIN_MS		500	/* after SIGKILL: escapees' output */
#define RUN_MAX_KEEP		(64 * 1024 * 1024)	/* per stream, --json */
#define RUN_FLUSH_MS		500	/* forced end: the output's last chance */
#define RUN_STALL_MS		5000	/* the JSON result: a reader's pause */
#define RUN_END_MS		2000	/* the end: what is left, reaped */

struct run;
struct run_stream;

/* One output stream of the child. */
struct run_stream {
	struct run	*r;
	enum store_stream which;	/* STORE_STDOUT or STORE_STDERR */
	int		 open;		/* not at its end yet */
	int		 closed;	/* job_close_stream()'d */
	struct outq	*to;		/* pass through to this; NULL: keep */
	char		*buf;		/* kept bytes (--json) */
	size_t		 len;
	size_t		 size;
	uint64_t	 dropped;	/* read past RUN_MAX_KEEP */
};

/* One run: the child, its streams, its input and how it is ending. */
struct run {
	struct loop		*loop;
	struct jobtable		*jt;		/* run's deck of one job */
	struct hosts		*hosts;		/* --host: where it runs */
	int			 begun;		/* its leader started */
	char			*start_error;	/* why it never started */
	struct job		*job;		/* the child's; NULL: none */
	int			 sub;		/* run's subscription to jt */
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
	uint64_t		 kill_timer;	/* proc_stop()'s SIGKILL is due */
	uint64_t		 drain_timer;
	uint64_t		 flush_timer;	/* forced end: output's last */
	struct cgroup		*cg;		/* run's containment */
	struct store		*store;		/* where the run is kept, or NULL */
	char			 run_id[STORE_ID_LEN + 1];
};

static void	run_out_written(struct outq *, void *);
static void	run_out_stalled(struct outq *, void *);
static int	run_out_finish(struct run *, struct outq *, int64_t);
static void	run_stream_add(struct run_stream *, const char *, size_t);
static void	run_stream_keep(struct run_stream *, const char *, size_t);
static void	run_stream_close(struct run_stream *);
static void	run_stream_abandon(struct run_stream *);
static int	run_stream_held(const struct run_stream *);
static void	run_stream_cb(struct job *, enum store_stream, const char *,
		    size_t, void *);
static void	run_input_close(struct run *);
static void	run_input_cb(int, short, void *);
static void	run_started_cb(struct job *, void *);
static void	run_check_done(struct run *);
static void	run_stop(struct run *, int);
static void	run_killed(struct run *);
static void	run_killed_cb(void *);
static void	run_drain_cb(void *);
static void	run_flush_start(struct run *);
static void	run_flush_cb(void *);
static void	run_timeout_cb(void *);
static void	run_linger_cb(void *);
static void	run_exited_cb(struct job *, void *);
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
	else if (s != NULL && outq_pending(q) == 0 && r->job != NULL)
		jobtable_pause_output(r->jt, r->job, s->which, 0);
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

/*
 * Stop reading a stream: its pipe is closed (job_close_stream()), so the
 * child learns it the way it would have without us (EPIPE, SIGPIPE), and
 * the table reads on to its end, which is at once.
 */
static void
run_stream_close(struct run_stream *s)
{
	struct run	*r = s->r;

	if (!s->open || s->closed || r->job == NULL)
		return;
	s->closed = 1;
	(void)job_close_stream(r->job, s->which);
	jobtable_pause_output(r->jt, r->job, s->which, 0);
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
	return s->open && !s->closed && (s->to == NULL ||
	    outq_pending(s->to) == 0);
}

/*
 * Open the output store of dir with the configuration's limits (as a
 * deck of its own, so decks list the run in their history) for the job
 * table; without a store the run just is not kept.
 */
static void
run_store_open(struct run *r, const char *dir, const struct config *cfg)
{
	struct store_limits	 lim;
	char			*cause = NULL;

	config_store_limits(cfg, &lim);
	if ((r->store = store_open(dir, &lim, &cause)) == NULL) {
		free(cause);
		return;
	}
	jobtable_set_store(r->jt, r->store);
}

/*
 * The table read a piece of a stream (or its end, len 0): pass it
 * through, or keep it.  What is passed through is read on only once our
 * reader has taken it: until then the table reads no more of the pipe
 * (jobtable_pause_output()), and the child waits on it.  If our own
 * output fails (a reader that went away), the pipe is closed too, so the
 * child learns it the way it would have without us (EPIPE, SIGPIPE).
 */
static void
run_stream_cb(struct job *job, enum store_stream which, const char *buf,
    size_t len, void *arg)
{
	struct run		*r = arg;
	struct run_stream	*s = which == STORE_STDERR ? &r->err : &r->out;

	if (job != r->job)
		return;
	if (len == 0) {
		s->open = 0;
		run_check_done(r);
		return;
	}
	if (s->closed)
		return;
	if (s->to == NULL) {
		run_stream_keep(s, buf, len);
		return;
	}
	(void)outq_add(s->to, buf, len);
	if (outq_flush(s->to) != 0)
		run_stream_close(s);
	else if (outq_pending(s->to) > 0)
		jobtable_pause_output(r->jt, job, which, 1);
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
	    (r->exited && !r->out.open && !r->err.open))
		loop_stop(r->loop);
}

/* What run's job table tells the run. */
static const struct jobtable_cbs run_jobtable_cbs = {
	.started = run_started_cb,
	.exited = run_exited_cb,
	.stream = run_stream_cb,
};

/*
 * Tell all of the child (its group and its containment) to stop with
 * sig; SIGKILL follows after the grace (proc_stop()).  Called again while
 * stopping, it sends SIGKILL now.
 */
static void
run_stop(struct run *r, int sig)
{
	struct proc	*p;

	if (r->job != NULL && !r->begun && !r->exited) {
		/* Still waiting for its host: it never runs. */
		jobtable_kill(r->jt, r->job, sig);
		return;
	}
	if (r->job == NULL || (p = job_proc(r->job)) == NULL ||
	    proc_pid(p) <= 0)
		return;
	if (r->stopping) {
		if (!r->killed) {
			proc_kill(p);
			run_killed(r);
		}
		return;
	}
	r->stopping = 1;
	proc_stop(p, sig, r->cmd->grace_ms);
	r->kill_timer = loop_add_timer(r->loop, r->cmd->grace_ms,
	    run_killed_cb, r);
}

/*
 * The grace is over, so proc_stop() sends SIGKILL (its killed callback is
 * the job table's): see run_killed().
 */
static void
run_killed_cb(void *arg)
{
	struct run	*r = arg;

	r->kill_timer = 0;
	if (!r->killed)
		run_killed(r);
}

/* SIGKILL went to all of it: wait a little for EOF. */
static void
run_killed(struct run *r)
{
	r->killed = 1;
	loop_cancel_timer(r->loop, r->kill_timer);
	r->kill_timer = 0;
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
	job_set_timed_out(r->job);	/* its end in the store: timed out */
	run_stop(r, SIGTERM);
	run_flush_start(r);
}

/*
 * The leader has exited (the job table's exited callback, once it read
 * what the pipes held); it is held a zombie (proc_hold()) until the end.
 * A pipe still open is held by something it left behind, which is then
 * stopped, or waits for our reader.  The timeout stays: it bounds passing
 * the output on.
 */
static void
run_exited_cb(struct job *job, void *arg)
{
	struct run	*r = arg;

	if (job != r->job || r->exited)
		return;
	r->exited = 1;
	if (!r->begun && job_start_error(job) != NULL)
		r->start_error = xstrdup(job_start_error(job));
	r->status = job_exit_status(job);
	r->ended = loop_now_ms();
	if (r->out.open || r->err.open) {
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
	else if (r->out.open || r->err.open)
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
 * The job's leader started: held (no reaping before the loop runs: the
 * exit is still to come), its streams open, its stdin taken for the input.
 */
static void
run_begin(struct run *r)
{
	if (r->begun)
		return;
	r->begun = 1;
	proc_hold(job_proc(r->job));
	r->out.open = r->err.open = 1;
	if (r->cmd->input != NULL &&
	    (r->in_fd = job_take_in_fd(r->job)) != -1) {
		if (r->input_len > 0)
			loop_watch_fd(r->loop, r->in_fd, POLLOUT, run_input_cb,
			    r);
		else
			run_input_close(r);
	}
}

/* The job started after waiting (for its host's connection). */
static void
run_started_cb(struct job *job, void *arg)
{
	struct run	*r = arg;

	if (job == r->job)
		run_begin(r);
}

/*
 * Spawn the command as the job of run's table, in its containment, and
 * take its stdin for the input; -1 with *cause if it cannot be.
 */
static int
run_start(struct run *r, const struct run_cmd *cmd, char **cause)
{
	struct job_spec	 spec;
	int64_t		 ms;

	memset(&spec, 0, sizeof spec);
	spec.name = "run";
	spec.argv = cmd->argv;
	spec.envp = cmd->envp;
	spec.cwd = cmd->cwd;
	spec.host = cmd->host;
	spec.no_pty = 1;
	spec.input_eof = cmd->input == NULL;	/* stdin /dev/null */
	spec.no_term = 1;
	spec.no_screen = 1;
	spec.own_leftovers = 1;
	if ((r->job = jobtable_spawn(r->jt, &spec, cause)) == NULL)
		return -1;
	/* On a host, it may wait for the connection: it begins then. */
	if (job_is_running(r->job))
		run_begin(r);
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
	struct proc	*p = job_proc(r->job);

	if (p == NULL) {
		/* It never started (its host could not be reached). */
		proc_kill_strays();
		return;
	}
	proc_kill(p);
	cgroup_kill_all(r->cg);
	if (!r->exited)
		(void)child_wait(proc_pid(p), RUN_END_MS, &r->status);
	(void)proc_finish(p, 0, RUN_END_MS, RUN_END_MS);
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
	char		*why = NULL, *hname;
	int		 spawned, rc;

	memset(&r, 0, sizeof r);
	r.cmd = cmd;
	r.loop = loop_new();
	r.out.r = r.err.r = &r;
	r.out.which = STORE_STDOUT;
	r.err.which = STORE_STDERR;
	r.in_fd = -1;
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
	r.jt = jobtable_new(r.loop);
	r.sub = jobtable_subscribe(r.jt, &run_jobtable_cbs, &r);
	jobtable_set_grace(r.jt, (int)cmd->grace_ms);
	run_watch_signals(&r);
	r.cg = cgroup_new(cgroup_env_flags());
	jobtable_set_cgroup(r.jt, r.cg);
	if (cmd->host != NULL) {
		/* Its own connection: a name no deck and no other run has. */
		hname = xprintf("run.%ld", (long)getpid());
		r.hosts = hosts_new(r.loop, jobtable_reaper(r.jt), hname);
		free(hname);
		if (cfg != NULL)
			hosts_set_config(r.hosts, cfg->hosts, cfg->nhosts,
			    cfg->settings.ssh_command);
		jobtable_set_hosts(r.jt, r.hosts);
	}
	run_store_open(&r, dir, cfg);

	r.started = loop_now_ms();
	spawned = run_start(&r, cmd, &why) == 0;
	if (spawned) {
		if (loop_run(r.loop) != 0) {
			/* poll() failed: nothing more can be read. */
			r.forced = 1;
		}
		loop_cancel_timer(r.loop, r.timeout_timer);
		loop_cancel_timer(r.loop, r.linger_timer);
		loop_cancel_timer(r.loop, r.kill_timer);
		loop_cancel_timer(r.loop, r.drain_timer);
		loop_cancel_timer(r.loop, r.flush_timer);
		run_input_close(&r);
		/* What was not read by now is dropped with the job. */
		jobtable_unsubscribe(r.jt, r.sub);
		if (r.out.to != NULL)
			outq_drop(r.out.to);
		if (r.err.to != NULL)
			outq_drop(r.err.to);
		run_end(&r);
		if (r.start_error != NULL) {
			spawned = 0;
			why = r.start_error;
			r.start_error = NULL;
		}
		if (job_run_id(r.job) != NULL)
			snprintf(r.run_id, sizeof r.run_id, "%s",
			    job_run_id(r.job));
	}
	r.out.to = r.err.to = NULL;	/* only the report is left */
	/*
	 * The job's run in the store ends with it; then the store.  Its
	 * host's connection closes once the job is gone (host.h): the job
	 * frees its run, which points to the hosts.
	 */
	jobtable_set_hosts(r.jt, NULL);
	jobtable_free(r.jt);
	hosts_free(r.hosts);
	store_free(r.store);
	rc = run_finish(&r, json, spawned, r.status, why);
	cgroup_free(r.cg);
	outq_free(r.out_to);
	outq_free(r.err_to);
	loop_free(r.loop);
	free(why);
	free(r.out.buf);
	free(r.err.buf);
	return rc;
}
