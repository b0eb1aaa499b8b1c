/*
 * check_job.c: tests for job and jobtable with real children on real ptys
 * (and pipes), driven by a real struct loop: output and exit callbacks,
 * states and exit statuses, a missing program, kill with and without the
 * grace period's SIGKILL, background children, kill-all at once, lookup by
 * id and name, output left in the pty at exit, the pipe fallback, input,
 * !logs text from the log file, the log's bytes, inherited fds and the pty
 * size; where a job's output is read (job_reader_open()): its run in the
 * store, the emulator without one, a damaged run, a full-screen program,
 * a job not started yet; containment: escapees (setsid) reached by kills, kill-all, the
 * end of the job and a restart, through a cgroup (as root: "SKIP: " on
 * stderr otherwise) and through the marker, the cgroup removed after, CPU
 * and memory figures; a stack's needs (a test policy standing in for the
 * stack): jobs held waiting and let go by a recheck, failed by the policy
 * (dependants in turn), kill_all's stop order, stop_signal, stop_command
 * and stop_timeout, group limits, the priority queue, restart backoff and
 * jobtable_fail().
 *
 * The test process is made a child subreaper, as jobdeck is, so orphaned
 * background children come back to it and jobtable_reap() reaps them.
 */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "need.h"
#include "skip.h"
#include "job.h"
#include "jobtable.h"
#include "loop.h"
#include "proc.h"
#include "store.h"
#include "testproc.h"
#include "ttywait.h"
#include "vt.h"
#include "waitstatus.h"

static char *const test_env[] = {
	"PATH=/usr/bin:/bin", "LC_ALL=C", "HOME=/tmp", NULL
};

#define MAX_JOBS	16
#define MAX_GATES	8

/* What the test policy says of the job with a name. */
struct gate {
	const char		*name;
	enum jobtable_gate	 gate;
	const char		*why;
};

/* Everything one test drives, and what the jobtable told it. */
struct fx {
	struct loop	*loop;
	struct jobtable	*jt;
	struct cgroup	*cg;		/* containment, or NULL */
	struct store	*store;		/* the output store, or NULL */
	char		 dir[64];	/* a temporary directory */

	int		 started;
	struct job	*started_jobs[MAX_JOBS];
	int64_t		 started_at[MAX_JOBS];	/* loop_now_ms() */
	int		 started_group;	/* most of group "g" running at once */
	int		 exited;
	struct job	*exited_jobs[MAX_JOBS];
	int64_t		 exited_at[MAX_JOBS];
	uint64_t	 bytes_at_exit[MAX_JOBS];
	int		 queued;
	int		 changed;

	struct gate	 gates[MAX_GATES];	/* the test policy's answers */
	int		 ngates;
	int		 asked;		/* may_start calls */
	struct job	*hold;		/* stop_later: held while until runs */
	struct job	*until;
	int		 hold_all;	/* stop_later: every job, always */
	int		 chain;		/* on_exited: the chain's next fails */

	char		*out;		/* every output byte, all jobs */
	size_t		 out_len;
	size_t		 out_cap;
};

static struct fx	fx;

/* Record a start, its time, and how many of group "g" run now. */
static void
on_started(struct job *job, void *arg)
{
	struct fx	*f = arg;
	const char	*group;
	int		 i, n = 0;

	ck_assert_int_lt(f->started, MAX_JOBS);
	f->started_jobs[f->started] = job;
	f->started_at[f->started] = loop_now_ms();
	f->started++;
	for (i = 0; i < jobtable_count(f->jt); i++) {
		job = jobtable_get(f->jt, i);
		group = job_spec(job)->group;
		if (job_is_running(job) && group != NULL &&
		    strcmp(group, "g") == 0)
			n++;
	}
	if (n > f->started_group)
		f->started_group = n;
}

/* Keep a piece of output. */
static void
on_output(struct job *job, const char *buf, size_t len, void *arg)
{
	struct fx	*f = arg;

	(void)job;
	if (f->out_len + len + 1 > f->out_cap) {
		while (f->out_len + len + 1 > f->out_cap)
			f->out_cap = f->out_cap == 0 ? 65536 : f->out_cap * 2;
		f->out = realloc(f->out, f->out_cap);
		ck_assert_ptr_nonnull(f->out);
	}
	memcpy(f->out + f->out_len, buf, len);
	f->out_len += len;
	f->out[f->out_len] = '\0';
}

/* Set what the test policy says of the job named name. */
static void
set_gate(const char *name, enum jobtable_gate gate, const char *why)
{
	int	i;

	for (i = 0; i < fx.ngates; i++) {
		if (strcmp(fx.gates[i].name, name) == 0)
			break;
	}
	ck_assert_int_lt(i, MAX_GATES);
	if (i == fx.ngates)
		fx.ngates++;
	fx.gates[i].name = name;
	fx.gates[i].gate = gate;
	fx.gates[i].why = why;
}

/* The test policy's gate: the answer set for the job's name, else go. */
static enum jobtable_gate
pol_may_start(struct job *job, char **why, void *arg)
{
	struct fx	*f = arg;
	int		 i;

	f->asked++;
	for (i = 0; job_name(job) != NULL && i < f->ngates; i++) {
		if (strcmp(f->gates[i].name, job_name(job)) != 0)
			continue;
		if (f->gates[i].why != NULL)
			*why = strdup(f->gates[i].why);
		return f->gates[i].gate;
	}
	return JOBTABLE_GO;
}

/* The test policy's stop order: hold while until runs, or everything. */
static int
pol_stop_later(struct job *job, void *arg)
{
	struct fx	*f = arg;

	if (f->hold_all)
		return 1;
	return job == f->hold && f->until != NULL &&
	    job_is_running(f->until);
}

static const struct jobtable_policy test_policy = {
	.may_start = pol_may_start,
	.stop_later = pol_stop_later,
};

/*
 * A chain db <- api <- web: when one ends, the next one's dependency can
 * never be met; the stack would say so on the exit and recheck at once.
 */
static void
chain_next(struct fx *f, struct job *job)
{
	if (job_name(job) == NULL)
		return;
	if (strcmp(job_name(job), "db") == 0)
		set_gate("api", JOBTABLE_FAIL,
		    "db exited before it was ready (exit 1)");
	else if (strcmp(job_name(job), "api") == 0)
		set_gate("web", JOBTABLE_FAIL, "api never started (blocked)");
	else
		return;
	jobtable_recheck(f->jt);
}

/* Record an exit and how much output had been read by then. */
static void
on_exited(struct job *job, void *arg)
{
	struct fx	*f = arg;

	ck_assert_int_lt(f->exited, MAX_JOBS);
	ck_assert_int_ne(job_state(job), JOB_RUNNING);
	f->exited_jobs[f->exited] = job;
	f->exited_at[f->exited] = loop_now_ms();
	f->bytes_at_exit[f->exited] = job_output_bytes(job);
	f->exited++;
	if (f->chain)
		chain_next(f, job);
}

/* Count a job told of as queued (or new and waiting). */
static void
on_queued(struct job *job, void *arg)
{
	struct fx	*f = arg;

	(void)job;
	f->queued++;
}

/* Count a change. */
static void
on_changed(struct job *job, void *arg)
{
	struct fx	*f = arg;

	(void)job;
	f->changed++;
}

static const struct jobtable_cbs fx_cbs = {
	.started = on_started,
	.output = on_output,
	.exited = on_exited,
	.queued = on_queued,
	.changed = on_changed,
};

/* Return the path of the first segment of the job's run's raw output. */
static const char *
run_out(const struct job *job)
{
	static char	path[512];

	ck_assert_ptr_nonnull(job_run_id(job));
	snprintf(path, sizeof path, "%s/runs/%s/out.0", job_store_dir(job),
	    job_run_id(job));
	return path;
}

/* Make a loop, a table subscribed to by fx and a temporary directory. */
static void
setup(void)
{
	memset(&fx, 0, sizeof fx);
	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	strcpy(fx.dir, "/tmp/check_job.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(fx.dir));
	fx.loop = loop_new();
	fx.jt = jobtable_new(fx.loop);
	ck_assert_int_ge(jobtable_subscribe(fx.jt, &fx_cbs, &fx), 0);
}

/* Kill what is left, free everything and remove the directory. */
static void
teardown(void)
{
	char	cmd[128];
	int	i;

	for (i = 0; i < jobtable_count(fx.jt); i++)
		job_signal(jobtable_get(fx.jt, i), SIGKILL);
	if (fx.cg != NULL)
		cgroup_kill_all(fx.cg);
	jobtable_free(fx.jt);
	store_free(fx.store);
	loop_free(fx.loop);
	jobtable_kill_strays();
	cgroup_free(fx.cg);
	free(fx.out);
	snprintf(cmd, sizeof cmd, "rm -rf %s", fx.dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", fx.dir);
}

/* Start command as a job with the usual spec; assert it started. */
static struct job *
spawn_spec(const char *command, const char *name, int no_pty,
    const char *log_dir, int scrollback)
{
	struct store_limits lim;
	struct job_spec	 spec;
	struct job	*job;
	char		*cause = NULL;

	memset(&spec, 0, sizeof spec);
	spec.name = name;
	spec.command = command;
	spec.shell = "/bin/sh";
	spec.envp = test_env;
	spec.no_pty = no_pty;
	if (log_dir != NULL && fx.store == NULL) {
		store_default_limits(&lim);
		fx.store = store_open(log_dir, &lim, &cause);
		ck_assert_msg(fx.store != NULL, "store: %s", cause);
	}
	jobtable_set_store(fx.jt, log_dir != NULL ? fx.store : NULL);
	if (scrollback > 0)
		jobtable_set_scrollback(fx.jt, scrollback);
	job = jobtable_spawn(fx.jt, &spec, &cause);
	ck_assert_msg(job != NULL, "spawn %s: %s", command, cause);
	ck_assert_int_eq(job_state(job), JOB_RUNNING);
	ck_assert_int_gt(job_pid(job), 0);
	return job;
}

/* Start command on a pty with no name and no log. */
static struct job *
spawn(const char *command)
{
	return spawn_spec(command, NULL, 0, NULL, 0);
}

/* Turn the loop until cond(arg) holds or ms pass; return whether it held. */
static int
run_until(int (*cond)(void *), void *arg, int ms)
{
	int64_t	end = loop_now_ms() + ms;

	while (!cond(arg)) {
		if (loop_now_ms() >= end)
			return 0;
		ck_assert_int_ne(loop_run_once(fx.loop, 20), -1);
	}
	return 1;
}

/* Turn the loop for ms milliseconds. */
static void
run_for(int ms)
{
	int64_t	end = loop_now_ms() + ms;

	while (loop_now_ms() < end)
		loop_run_once(fx.loop, end - loop_now_ms());
}

/* Whether the job has been reaped and its output closed. */
static int
is_done(void *arg)
{
	struct job	*job = arg;

	return !job_is_running(job) && job_out_fd(job) == -1;
}

/* Whether every job in the table has been reaped. */
static int
all_reaped(void *arg)
{
	(void)arg;
	return jobtable_running(fx.jt) == 0;
}

/* Whether the table holds no job. */
static int
table_empty(void *arg)
{
	(void)arg;
	return jobtable_count(fx.jt) == 0;
}

/* Whether nothing is left of the job pointed to: no group, no leftover. */
static int
job_gone(void *arg)
{
	struct job	*job = arg;

	return !job_is_running(job) && job_signal(job, 0) != 0 &&
	    !job_lingers(job);
}

/* Whether nothing is left of any job in the table. */
static int
all_gone(void *arg)
{
	int	i;

	(void)arg;
	for (i = 0; i < jobtable_count(fx.jt); i++) {
		if (!job_gone(jobtable_get(fx.jt, i)))
			return 0;
	}
	return 1;
}

/* Whether the output so far contains the string arg. */
static int
output_has(void *arg)
{
	return fx.out != NULL && strstr(fx.out, arg) != NULL;
}

/* Wait (up to 5 s) until job is reaped and its output closed. */
static void
wait_done(struct job *job)
{
	ck_assert_msg(run_until(is_done, job, 5000),
	    "job %d (%s) did not end", job_id(job), job_command(job));
}

/* Return the job's text lines joined with newlines (caller frees). */
static char *
job_text(const struct job *job)
{
	char	**lines, *s;
	size_t	  len = 0;
	int	  count, i;

	lines = job_text_lines(job, &count);
	for (i = 0; i < count; i++)
		len += strlen(lines[i]) + 1;
	s = calloc(1, len + 1);
	ck_assert_ptr_nonnull(s);
	for (i = 0; i < count; i++) {
		strcat(s, lines[i]);
		strcat(s, "\n");
	}
	job_text_free(lines, count);
	return s;
}

/* Assert that the job's text has a line equal to want. */
static void
assert_text_line(const struct job *job, const char *want)
{
	char	**lines;
	int	  count, i, found = 0;
	char	 *all;

	lines = job_text_lines(job, &count);
	for (i = 0; i < count && !found; i++)
		found = strcmp(lines[i], want) == 0;
	job_text_free(lines, count);
	if (!found) {
		all = job_text(job);
		ck_abort_msg("no line \"%s\" in:\n%s", want, all);
	}
}

/* Whether the pid pointed to is gone. */
static int
pid_gone_cond(void *arg)
{
	return testproc_dead(*(pid_t *)arg);
}

/* Read a whole file into a new string; *len gets its length. */
static char *
slurp(const char *path, size_t *len)
{
	FILE	*f;
	char	*buf;
	long	 size;

	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	buf = malloc((size_t)size + 1);
	ck_assert_ptr_nonnull(buf);
	*len = fread(buf, 1, (size_t)size, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

/* `echo hello`: output, exit callback, state, status and text. */
START_TEST(test_echo_hello)
{
	struct job	*job;
	char		 last[64], buf[64], *s;

	job = spawn("echo hello");
	ck_assert_int_eq(fx.started, 1);
	ck_assert_int_eq(job_id(job), 1);
	ck_assert_int_eq(job_is_pty(job), 1);
	ck_assert_str_eq(job_command(job), "echo hello");
	ck_assert_str_eq(job_describe_end(job, buf, sizeof buf), "Running");
	ck_assert_int_eq(job_end_status(job), WAITSTATUS_NONE);
	wait_done(job);

	ck_assert_int_eq(fx.exited, 1);
	ck_assert_ptr_eq(fx.exited_jobs[0], job);
	ck_assert_str_eq(fx.out, "hello\r\n");
	ck_assert_uint_eq(job_output_bytes(job), 7);
	ck_assert_int_eq(job_state(job), JOB_COMPLETED);
	ck_assert_str_eq(job_state_name(job_state(job)), "completed");
	ck_assert(WIFEXITED(job_exit_status(job)));
	ck_assert_int_eq(WEXITSTATUS(job_exit_status(job)), 0);
	ck_assert_int_eq(jobtable_running(fx.jt), 0);
	ck_assert_int_eq(jobtable_busy(fx.jt), 0);
	ck_assert_str_eq(job_describe_end(job, buf, sizeof buf), "Exited 0");
	ck_assert_int_eq(job_end_status(job), job_exit_status(job));

	ck_assert_ptr_nonnull(job_vt(job));
	s = job_text(job);
	ck_assert_str_eq(s, "hello\n");
	free(s);
	ck_assert_uint_eq(job_last_line(job, last, sizeof last), 5);
	ck_assert_str_eq(last, "hello");
}
END_TEST

/*
 * A job that closes every standard stream (so reading its pty gives EIO)
 * keeps running: jobdeck must not close the master and hang it up.  It
 * runs until the test lets it go.
 */
START_TEST(test_closed_streams_not_hung_up)
{
	struct job	*job;
	char		 cmd[PATH_MAX + 128], go[PATH_MAX];
	int		 fd;

	snprintf(go, sizeof go, "%s/go", fx.dir);
	snprintf(cmd, sizeof cmd, "echo before; exec sh -c 'until [ -e %s ]; "
	    "do sleep 0.05; done' </dev/null >/dev/null 2>&1", go);
	job = spawn(cmd);
	ck_assert(run_until(output_has, "before", 5000));
	run_for(500);
	ck_assert_msg(job_is_running(job), "the job was hung up: %s",
	    job_state_name(job_state(job)));
	fd = open(go, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	wait_done(job);
	ck_assert_int_eq(job_state(job), JOB_COMPLETED);
	ck_assert(WIFEXITED(job_exit_status(job)));
	ck_assert_int_eq(WEXITSTATUS(job_exit_status(job)), 0);
	assert_text_line(job, "before");
	ck_assert_int_eq(job_out_fd(job), -1);
}
END_TEST

/* A job killed by SIGINT (Ctrl+C from its terminal) shows as canceled. */
START_TEST(test_sigint_is_canceled)
{
	struct job	*job;

	job = spawn("echo ready; exec sleep 100");
	ck_assert(run_until(output_has, "ready", 5000));
	ck_assert_int_eq(job_signal(job, SIGINT), 0);
	wait_done(job);
	ck_assert_int_eq(job_state(job), JOB_CANCELED);
}
END_TEST

/* A command, how it must end, and a line its text must hold. */
static const struct end_case {
	const char	*command;
	enum job_state	 state;
	int		 exit;		/* exit status, or -signal */
	const char	*describe;
	const char	*text;		/* in the text; NULL: no output */
} end_cases[] = {
	{ "true", JOB_COMPLETED, 0, "Exited 0", NULL },
	{ "exit 3", JOB_FAILED, 3, "Exited 3", NULL },
	{ "echo out; exit 255", JOB_FAILED, 255, "Exited 255", "out" },
	{ "kill -KILL $$", JOB_FAILED, -SIGKILL, "Killed by SIGKILL", NULL },
	{ "kill -TERM $$", JOB_FAILED, -SIGTERM, "Killed by SIGTERM", NULL },
	{ "no-such-program-jobdeck", JOB_FAILED, 127, "Exited 127",
	    "no-such-program-jobdeck: not found" },
};

/* Each row's command ends in its state with its status and output. */
START_TEST(test_exit_table)
{
	const struct end_case	*c = &end_cases[_i];
	struct job		*job;
	char			 buf[64];
	char			*s;
	int			 st;

	job = spawn(c->command);
	wait_done(job);
	ck_assert_int_eq(fx.exited, 1);
	ck_assert_msg(job_state(job) == c->state, "%s: state %s", c->command,
	    job_state_name(job_state(job)));
	st = job_exit_status(job);
	if (c->exit >= 0) {
		ck_assert_msg(WIFEXITED(st), "%s: status %#x", c->command, st);
		ck_assert_int_eq(WEXITSTATUS(st), c->exit);
	} else {
		ck_assert_msg(WIFSIGNALED(st), "%s: status %#x", c->command,
		    st);
		ck_assert_int_eq(WTERMSIG(st), -c->exit);
	}
	ck_assert_str_eq(job_describe_end(job, buf, sizeof buf), c->describe);
	if (c->text != NULL) {
		s = job_text(job);
		ck_assert_msg(strstr(s, c->text) != NULL, "%s: text is %s",
		    c->command, s);
		free(s);
	} else
		ck_assert_uint_eq(fx.out_len, 0);
}
END_TEST

/* A missing program: exit 127 and the shell's "not found" in the text. */
START_TEST(test_missing_program)
{
	struct job	*job;
	char		*s;

	job = spawn("frobnicate-jobdeck --now");
	wait_done(job);
	ck_assert_int_eq(job_state(job), JOB_FAILED);
	ck_assert_int_eq(WEXITSTATUS(job_exit_status(job)), 127);
	s = job_text(job);
	ck_assert_msg(strstr(s, "frobnicate-jobdeck") != NULL &&
	    strstr(s, "not found") != NULL, "text: %s", s);
	free(s);
}
END_TEST

/*
 * Killing `sleep 100` cancels it at once with SIGTERM: it dies of that
 * signal, not of the SIGKILL a minute's grace would send.
 */
START_TEST(test_kill_term)
{
	struct job	*job;

	jobtable_set_grace(fx.jt, 60000);
	job = spawn("sleep 100");
	run_for(100);
	ck_assert(job_is_running(job));
	ck_assert_int_eq(jobtable_kill(fx.jt, job, SIGTERM), 0);
	wait_done(job);
	ck_assert_int_eq(job_state(job), JOB_CANCELED);
	ck_assert_str_eq(job_state_name(JOB_CANCELED), "canceled");
	ck_assert(WIFSIGNALED(job_exit_status(job)));
	ck_assert_int_eq(WTERMSIG(job_exit_status(job)), SIGTERM);

	/* A job that is gone (its sleep reaped too) cannot be killed again. */
	ck_assert(run_until(job_gone, job, 5000));
	ck_assert_int_eq(jobtable_kill(fx.jt, job, SIGTERM), -1);
}
END_TEST

/*
 * Jobs killed the moment they are spawned (before the child has had time
 * to call setsid()) still die: kill-all on quit must not miss a new job.
 */
START_TEST(test_kill_just_spawned)
{
	struct job	*jobs[4];
	int		 i;

	jobtable_set_grace(fx.jt, 300);
	for (i = 0; i < 4; i++)
		jobs[i] = spawn_spec("sleep 100", NULL, i % 2, NULL, 0);
	ck_assert_int_eq(jobtable_kill(fx.jt, jobs[0], SIGTERM), 0);
	ck_assert_int_eq(jobtable_kill(fx.jt, jobs[1], SIGTERM), 0);
	ck_assert_int_eq(jobtable_kill_all(fx.jt), 4);
	ck_assert(run_until(all_reaped, NULL, 3000));
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(job_state(jobs[i]), JOB_CANCELED);
}
END_TEST

/*
 * A job that ignores SIGTERM gets SIGKILL once the grace period is over:
 * not before it, and long before twice it.
 */
START_TEST(test_kill_grace)
{
	struct job	*job;
	int64_t		 t0, took;

	jobtable_set_grace(fx.jt, 2000);
	job = spawn("trap '' TERM; echo ready; sleep 100");
	ck_assert(run_until(output_has, "ready", 5000));
	t0 = loop_now_ms();
	ck_assert_int_eq(jobtable_kill(fx.jt, job, SIGTERM), 0);
	ck_assert_int_eq(jobtable_busy(fx.jt), 1);
	run_for(150);
	ck_assert_msg(job_is_running(job), "SIGTERM was not ignored");
	ck_assert(run_until(is_done, job, 10000));
	took = loop_now_ms() - t0;
	ck_assert_msg(took >= 1990 && took < 4000, "took %lld ms, not about "
	    "the grace of 2000 ms", (long long)took);
	ck_assert_int_eq(job_state(job), JOB_CANCELED);
	ck_assert(WIFSIGNALED(job_exit_status(job)));
	ck_assert_int_eq(WTERMSIG(job_exit_status(job)), SIGKILL);
	ck_assert_int_eq(jobtable_busy(fx.jt), 0);
}
END_TEST

/* Kill reaches a background child of the job's shell. */
START_TEST(test_kill_background_child)
{
	struct job	*job;
	char		 cmd[400], path[96], *s;
	size_t		 len;
	pid_t		 bg;

	snprintf(path, sizeof path, "%s/bg.pid", fx.dir);
	snprintf(cmd, sizeof cmd, "sleep 100 & echo $! > %s.tmp; "
	    "mv %s.tmp %s; wait", path, path, path);
	jobtable_set_grace(fx.jt, 3000);
	job = spawn(cmd);
	while (access(path, F_OK) != 0) {
		ck_assert_msg(job_is_running(job), "job ended early");
		loop_run_once(fx.loop, 10);
	}
	s = slurp(path, &len);
	bg = (pid_t)atol(s);
	free(s);
	ck_assert_int_gt(bg, 1);
	ck_assert_int_ne(bg, job_pid(job));
	ck_assert(!testproc_dead(bg));

	ck_assert_int_eq(jobtable_kill(fx.jt, job, SIGTERM), 0);
	wait_done(job);
	ck_assert_int_eq(job_state(job), JOB_CANCELED);
	ck_assert_msg(run_until(pid_gone_cond, &bg, 2000),
	    "background child %ld survived", (long)bg);
}
END_TEST

/*
 * A killed job that leaves the panel (keep_finished) at once still gets
 * its SIGKILL after the grace: a member of its group that ignores SIGTERM
 * and let go of the terminal must not survive.
 */
START_TEST(test_kill_grace_after_removal)
{
	struct job	*job;
	char		 cmd[400], path[96], *s;
	size_t		 len;
	pid_t		 bg;

	snprintf(path, sizeof path, "%s/bg.pid", fx.dir);
	snprintf(cmd, sizeof cmd, "(trap '' TERM HUP; exec sleep 100 "
	    ">/dev/null 2>&1 </dev/null) & echo $! > %s.tmp; mv %s.tmp %s; "
	    "sleep 100", path, path, path);
	jobtable_set_grace(fx.jt, 300);
	jobtable_set_keep_finished(fx.jt, 0);
	job = spawn(cmd);
	while (access(path, F_OK) != 0) {
		ck_assert_msg(job_is_running(job), "job ended early");
		loop_run_once(fx.loop, 10);
	}
	s = slurp(path, &len);
	bg = (pid_t)atol(s);
	free(s);
	ck_assert_int_gt(bg, 1);
	ck_assert(!testproc_dead(bg));

	ck_assert_int_eq(jobtable_kill(fx.jt, job, SIGTERM), 0);
	ck_assert_msg(run_until(pid_gone_cond, &bg, 3000),
	    "the group's member %ld survived its SIGKILL", (long)bg);
	ck_assert_msg(run_until(table_empty, NULL, 5000), "the killed job "
	    "was kept: %d job(s)", jobtable_count(fx.jt));
}
END_TEST

/*
 * Input for a job that never reads it (jobdeck ctl send in a loop) queues
 * up to a limit, then is refused with ENOBUFS: memory stays bounded.
 */
START_TEST(test_input_bounded)
{
	static char	 chunk[65536];
	struct job	*job;
	size_t		 total = 0;
	int		 rc = 0;

	memset(chunk, 'x', sizeof chunk);
	/* On pipes: a pty's line discipline drops what does not fit. */
	job = spawn_spec("sleep 30", NULL, 1, NULL, 0);
	while (total < 64 * 1024 * 1024 &&
	    (rc = jobtable_write(fx.jt, job, chunk, sizeof chunk)) == 0)
		total += sizeof chunk;
	ck_assert_msg(rc == -1, "%zu bytes queued, none refused", total);
	ck_assert_int_eq(errno, ENOBUFS);
	/* The limit, and what the pipe itself holds. */
	ck_assert_uint_le(total, 17 * 1024 * 1024);
	ck_assert(job_is_running(job));
	ck_assert(job_input_pending(job));
}
END_TEST

/*
 * kill-all signals every job at once: three grace periods overlap, so all
 * is over in less than two of them (one after another takes three).
 */
START_TEST(test_kill_all_at_once)
{
	struct job	*jobs[3];
	int64_t		 t0, took;
	char		 cmd[64];
	int		 i;

	jobtable_set_grace(fx.jt, 2000);
	for (i = 0; i < 3; i++) {
		snprintf(cmd, sizeof cmd, "trap '' TERM; echo ready%d; "
		    "sleep 100", i);
		jobs[i] = spawn(cmd);
	}
	ck_assert(run_until(output_has, "ready0", 5000));
	ck_assert(run_until(output_has, "ready1", 5000));
	ck_assert(run_until(output_has, "ready2", 5000));
	ck_assert_int_eq(jobtable_running(fx.jt), 3);

	t0 = loop_now_ms();
	ck_assert_int_eq(jobtable_kill_all(fx.jt), 3);
	ck_assert(run_until(all_reaped, NULL, 10000));
	took = loop_now_ms() - t0;
	ck_assert_msg(took >= 1990 && took < 4000, "took %lld ms: the graces "
	    "of 2000 ms did not overlap", (long long)took);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(job_state(jobs[i]), JOB_CANCELED);
		ck_assert_int_eq(WTERMSIG(job_exit_status(jobs[i])), SIGKILL);
	}
	ck_assert_int_eq(fx.exited, 3);

	/* Once the shells' children are reaped too, nothing is left. */
	ck_assert(run_until(all_gone, NULL, 5000));
	ck_assert_int_eq(jobtable_kill_all(fx.jt), 0);
}
END_TEST

/* Jobs are found by id and by name; unknown ones give a message. */
START_TEST(test_find)
{
	struct job_spec	 spec;
	struct job	*a, *b, *c;
	char		*cause = NULL;

	a = spawn_spec("sleep 100", NULL, 0, NULL, 0);
	b = spawn_spec("sleep 100", "web", 0, NULL, 0);
	c = spawn_spec("true", "db", 1, NULL, 0);
	ck_assert_int_eq(job_id(a), 1);
	ck_assert_int_eq(job_id(b), 2);
	ck_assert_int_eq(job_id(c), 3);
	ck_assert_int_eq(jobtable_count(fx.jt), 3);
	ck_assert_ptr_eq(jobtable_get(fx.jt, 0), a);
	ck_assert_ptr_eq(jobtable_get(fx.jt, 2), c);
	ck_assert_ptr_null(jobtable_get(fx.jt, 3));
	ck_assert_ptr_null(jobtable_get(fx.jt, -1));

	ck_assert_ptr_eq(jobtable_find(fx.jt, "1", &cause), a);
	ck_assert_ptr_eq(jobtable_find(fx.jt, "2", &cause), b);
	ck_assert_ptr_eq(jobtable_find(fx.jt, "web", &cause), b);
	ck_assert_ptr_eq(jobtable_find(fx.jt, "db", &cause), c);
	ck_assert_ptr_null(cause);
	ck_assert_str_eq(job_name(b), "web");
	ck_assert_ptr_null(job_name(a));

	ck_assert_ptr_null(jobtable_find(fx.jt, "999", &cause));
	ck_assert_str_eq(cause, "no such job: 999");
	free(cause);
	ck_assert_ptr_null(jobtable_find(fx.jt, "1x", &cause));
	ck_assert_str_eq(cause, "no such job: 1x");
	free(cause);
	ck_assert_ptr_null(jobtable_find(fx.jt, "we", &cause));
	ck_assert_str_eq(cause, "no such job: we");
	free(cause);
	ck_assert_ptr_null(jobtable_find(fx.jt, "", &cause));
	free(cause);

	/* Names are unique; the failed spawn uses up no id. */
	memset(&spec, 0, sizeof spec);
	spec.name = "web";
	spec.command = "true";
	spec.shell = "/bin/sh";
	spec.envp = test_env;
	ck_assert_ptr_null(jobtable_spawn(fx.jt, &spec, &cause));
	ck_assert_str_eq(cause, "a job named web is running already (job 2)");
	free(cause);
	ck_assert_int_eq(jobtable_count(fx.jt), 3);
	spec.name = "web2";
	c = jobtable_spawn(fx.jt, &spec, &cause);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(job_id(c), 4);
	ck_assert_int_eq(fx.started, 4);
}
END_TEST

/* Output still in the pty when the child exits is read before the exit. */
START_TEST(test_output_left_in_pty)
{
	struct job	*job;
	char		**lines;
	int		  count;

	/* "1\r\n" ... "20000\r\n": 88894 digits and 20000 CR LF. */
	job = spawn("seq 1 20000");
	wait_done(job);
	ck_assert_int_eq(fx.exited, 1);
	ck_assert_uint_eq(fx.bytes_at_exit[0], 88894 + 40000);
	ck_assert_uint_eq(job_output_bytes(job), 88894 + 40000);
	ck_assert_uint_eq(fx.out_len, 88894 + 40000);
	ck_assert_int_eq(job_state(job), JOB_COMPLETED);
	lines = job_text_lines(job, &count);
	ck_assert_int_gt(count, 1);
	ck_assert_str_eq(lines[count - 1], "20000");
	ck_assert_str_eq(lines[count - 2], "19999");
	job_text_free(lines, count);
}
END_TEST

/*
 * The same without the loop's help: the child exits with its output still
 * in the pty (waitid with WNOWAIT leaves it to be reaped) and
 * jobtable_reap() reads all of it before it reports the exit.
 */
START_TEST(test_reap_reads_rest)
{
	struct job	*job;
	siginfo_t	 si;
	char		**lines;
	int		  count, tries;

	/*
	 * "1\r\n" ... "1500\r\n": 4893 digits and 1500 CR LF, more than the
	 * line discipline's 4 KB and little enough for the pty to hold.
	 */
	job = spawn("seq 1 1500");
	memset(&si, 0, sizeof si);
	for (tries = 0; tries < 500 && si.si_pid == 0; tries++) {
		ck_assert_int_eq(waitid(P_PID, (id_t)job_pid(job), &si,
		    WEXITED | WNOWAIT | WNOHANG), 0);
		if (si.si_pid == 0)
			usleep(10000);
	}
	ck_assert_msg(si.si_pid == job_pid(job), "seq did not exit");
	ck_assert_uint_eq(fx.out_len, 0);
	jobtable_reap(fx.jt);
	ck_assert_int_eq(fx.exited, 1);
	ck_assert_uint_eq(fx.bytes_at_exit[0], 4893 + 3000);
	ck_assert_int_eq(job_state(job), JOB_COMPLETED);
	lines = job_text_lines(job, &count);
	ck_assert_int_gt(count, 1);
	ck_assert_str_eq(lines[count - 1], "1500");
	job_text_free(lines, count);
}
END_TEST

/* On pipes, stdout and stderr both arrive and the job has no pty. */
START_TEST(test_pipe_fallback)
{
	struct job	*job;
	char		*s;

	job = spawn_spec("echo to-stdout; echo to-stderr >&2; "
	    "test -t 0 || echo no-tty; exit 4", NULL, 1, NULL, 0);
	ck_assert_int_eq(job_is_pty(job), 0);
	ck_assert_int_eq(job_pty_errno(job), 0);
	ck_assert_int_ne(job_in_fd(job), job_out_fd(job));
	wait_done(job);
	ck_assert_int_eq(job_state(job), JOB_FAILED);
	ck_assert_int_eq(WEXITSTATUS(job_exit_status(job)), 4);
	/* Two pipes: which of them is read first is the kernel's choice. */
	ck_assert_uint_eq(strlen(fx.out), strlen("to-stdout\nto-stderr\n"
	    "no-tty\n"));
	ck_assert_ptr_nonnull(strstr(fx.out, "to-stderr\n"));
	ck_assert_ptr_nonnull(strstr(fx.out, "to-stdout\n"));
	ck_assert_ptr_nonnull(strstr(fx.out, "no-tty\n"));
	ck_assert(strstr(fx.out, "to-stdout\n") < strstr(fx.out, "no-tty\n"));
	s = job_text(job);
	ck_assert_uint_eq(strlen(s), strlen(fx.out));
	ck_assert_ptr_nonnull(strstr(s, "to-stderr\n"));
	free(s);
}
END_TEST

/* Input queued with jobtable_write reaches the child's read (pty, pipes). */
START_TEST(test_input)
{
	struct job	*job;
	int		 no_pty = _i;

	job = spawn_spec("read x; echo got $x; read y; echo and $y", NULL,
	    no_pty, NULL, 0);
	ck_assert_int_eq(job_is_pty(job), !no_pty);
	ck_assert_int_eq(jobtable_write(fx.jt, job, "abc\n", 4), 0);
	ck_assert(run_until(output_has, "got abc", 5000));
	ck_assert(job_is_running(job));
	ck_assert_int_eq(jobtable_write(fx.jt, job, "d", 1), 0);
	ck_assert_int_eq(jobtable_write(fx.jt, job, "ef\n", 3), 0);
	wait_done(job);
	ck_assert_int_eq(job_state(job), JOB_COMPLETED);
	assert_text_line(job, "got abc");
	assert_text_line(job, "and def");
	if (!no_pty)
		assert_text_line(job, "abc");	/* the tty's echo */

	/* A job whose output is closed takes no input. */
	ck_assert_int_eq(jobtable_write(fx.jt, job, "x", 1), -1);
}
END_TEST

/* A job blocked reading its terminal, and what the probe should say. */
static const struct wait_case {
	const char	*program;	/* in test_env's PATH */
	const char	*command;
	enum ttywait	 want;
	const char	*answer;	/* its output once it read a line */
} wait_cases[] = {
	{ "bash", "bash -c 'read -p \"x: \" v; echo got $v'", TTYWAIT_INPUT,
	    "got abc" },
	{ "python3", "python3 -c 'print(\"got\", input())'", TTYWAIT_INPUT,
	    "got abc" },
	{ "bash", "bash -c 'read -s -p \"pw: \" v; echo got $v'",
	    TTYWAIT_PASSWORD, "got abc" },
	{ "cat", "cat", TTYWAIT_INPUT, "abc" },
};

/* Whether the job pointed to says it waits for input. */
static int
is_waiting(void *arg)
{
	return job_input_wait(arg) != TTYWAIT_NONE;
}

/*
 * A job blocked reading its terminal is found waiting for input (for a
 * password with echo off) once quiet, subscribers told; input clears it
 * at once, and the job goes on.
 */
START_TEST(test_waits_input)
{
	const struct wait_case	*c = &wait_cases[_i];
	struct job		*job;
	int			 changed;

	NEED(c->program);
	job = spawn(c->command);
	ck_assert_msg(run_until(is_waiting, job, 5000),
	    "%s: not found waiting", c->command);
	ck_assert_int_eq(job_input_wait(job), c->want);
	ck_assert_str_eq(ttywait_name(job_input_wait(job)),
	    c->want == TTYWAIT_PASSWORD ? "password" : "input");
	ck_assert_int_ge(fx.changed, 1);
	changed = fx.changed;

	ck_assert_int_eq(jobtable_write(fx.jt, job, "abc\n", 4), 0);
	ck_assert_int_eq(job_input_wait(job), TTYWAIT_NONE);
	ck_assert_int_eq(fx.changed, changed + 1);
	ck_assert_msg(run_until(output_has, (void *)c->answer, 5000),
	    "%s: no \"%s\" in \"%s\"", c->command, c->answer,
	    fx.out != NULL ? fx.out : "");
	if (strcmp(c->command, "cat") == 0) {
		/* It reads again: waiting again once quiet. */
		ck_assert(run_until(is_waiting, job, 5000));
		job_signal(job, SIGKILL);
	}
	wait_done(job);
	ck_assert_int_eq(job_input_wait(job), TTYWAIT_NONE);
}
END_TEST

/* Jobs that are not reading their terminal. */
static const char *const busy_cases[] = {
	"sleep 100",
	"while :; do :; done",
	"sleep 100 | cat",
};

/*
 * A sleeping job, a busy loop and cat reading a pipe are not waiting for
 * input, however long they are quiet (the probe runs several times).
 */
START_TEST(test_not_waiting)
{
	struct job	*job;

	job = spawn(busy_cases[_i]);
	run_for(2000);
	ck_assert(job_is_running(job));
	ck_assert_int_eq(job_input_wait(job), TTYWAIT_NONE);
	ck_assert_int_eq(fx.changed, 0);
	/* The probe itself says no, not only the table's timing. */
	ck_assert_int_eq(ttywait_probe(job_out_fd(job), job_pid(job)),
	    TTYWAIT_NONE);
}
END_TEST

/* A job on pipes is never probed: its input is no terminal. */
START_TEST(test_pipe_not_probed)
{
	struct job	*job;

	job = spawn_spec("cat", NULL, 1, NULL, 0);
	run_for(1000);
	ck_assert_int_eq(job_input_wait(job), TTYWAIT_NONE);
	ck_assert_int_eq(fx.changed, 0);
}
END_TEST

/*
 * Assert that the job's last max lines are count lines from first to
 * last, and whether earlier ones were left out.
 */
static void
assert_tail(struct job *job, int max, int count, int more,
    const char *first, const char *last)
{
	char	**lines;
	int	  n, m;

	lines = job_text_tail(job, max, &n, &m);
	ck_assert_int_eq(n, count);
	ck_assert_int_eq(m, more);
	ck_assert_str_eq(lines[0], first);
	ck_assert_str_eq(lines[n - 1], last);
	job_text_free(lines, n);
}

/*
 * The tail of a long output comes from the log, its last lines only; with
 * no log, from the emulator, cut to the last lines the same way.
 */
START_TEST(test_text_tail)
{
	struct job	*job;

	job = spawn_spec("seq 1 200000", NULL, 0, fx.dir, 100);
	wait_done(job);
	assert_tail(job, 1000, 1000, 1, "199001", "200000");

	/* Short enough: all of it, and nothing more. */
	job = spawn_spec("seq 1 5; printf six", NULL, 0, fx.dir, 100);
	wait_done(job);
	assert_tail(job, 1000, 6, 0, "1", "six");

	job = spawn("seq 1 50");
	wait_done(job);
	assert_tail(job, 10, 10, 1, "41", "50");
	assert_tail(job, 1000, 50, 0, "1", "50");
}
END_TEST

/* scrollback = 0 keeps no lines above the screen, not the default. */
START_TEST(test_no_scrollback)
{
	struct job	*job;
	char		**lines;
	int		  count;

	jobtable_set_scrollback(fx.jt, 0);
	job = spawn("seq 1 200");
	wait_done(job);
	ck_assert_int_eq(vt_scrollback_count(job_vt(job)), 0);
	lines = job_text_lines(job, &count);
	ck_assert_int_ge(count, 1);
	ck_assert_str_eq(lines[count - 1], "200");
	job_text_free(lines, count);
}
END_TEST

/* Past the scrollback, !logs text comes from the log, from line 1. */
START_TEST(test_text_from_log)
{
	struct job	*job;
	char		**lines, *log, want[32], *expect;
	size_t		  len, elen = 0;
	int		  count, i, bad;

	job = spawn_spec("seq 1 15000", NULL, 0, fx.dir, 1000);
	/* The run is in the store from its start, under its own id. */
	ck_assert_ptr_nonnull(job_run_id(job));
	ck_assert_str_eq(job_store_dir(job), fx.dir);
	wait_done(job);
	ck_assert_ptr_null(job_log_error(job));
	ck_assert_int_ge(vt_scrollback_count(job_vt(job)), 1000);

	lines = job_text_lines(job, &count);
	ck_assert_int_eq(count, 15000);
	ck_assert_str_eq(lines[0], "1");
	ck_assert_str_eq(lines[14999], "15000");
	for (i = 0, bad = -1; i < count && bad == -1; i++) {
		snprintf(want, sizeof want, "%d", i + 1);
		if (strcmp(lines[i], want) != 0)
			bad = i;
	}
	ck_assert_msg(bad == -1, "line %d is \"%s\"", bad + 1, lines[bad]);
	job_text_free(lines, count);

	/* The log holds every byte, exactly as the child wrote it. */
	expect = malloc(15000 * 8);
	ck_assert_ptr_nonnull(expect);
	for (i = 1; i <= 15000; i++)
		elen += (size_t)sprintf(expect + elen, "%d\r\n", i);
	log = slurp(run_out(job), &len);
	ck_assert_uint_eq(len, elen);
	ck_assert_uint_eq(job_output_bytes(job), elen);
	ck_assert_int_eq(memcmp(log, expect, elen), 0);
	ck_assert_uint_eq(fx.out_len, elen);
	ck_assert_int_eq(memcmp(fx.out, expect, elen), 0);
	free(log);
	free(expect);
}
END_TEST

/* Raw bytes (escapes, CR redraws, binary) reach the log unchanged. */
START_TEST(test_log_raw_bytes)
{
	struct job	*job;
	char		*log;
	size_t		 len;
	static const char want[] = "\033[1mbold\033[0m\r\n10%\r50%\r\n"
	    "\001\002\377\r\n";

	job = spawn_spec("printf '\\033[1mbold\\033[0m\\n10%%\\r50%%\\n"
	    "\\001\\002\\377\\n'", NULL, 0, fx.dir, 100);
	wait_done(job);
	log = slurp(run_out(job), &len);
	ck_assert_uint_eq(len, sizeof want - 1);
	ck_assert_int_eq(memcmp(log, want, len), 0);
	free(log);
	assert_text_line(job, "bold");
	assert_text_line(job, "50%");
}
END_TEST

/* Take the text since *mark and compare it with want (count lines). */
static void
assert_since(struct job *job, struct store_mark *mark, const char *const *want,
    int nwant, int want_partial)
{
	char	**lines;
	int	  count, i, partial;

	lines = job_text_since(job, mark, &count, &partial);
	ck_assert_int_eq(partial, want_partial);
	ck_assert_msg(count == nwant, "%d lines, not %d (first \"%s\")",
	    count, nwant, count > 0 ? lines[0] : "");
	for (i = 0; i < count; i++)
		ck_assert_str_eq(lines[i], want[i]);
	job_text_free(lines, count);
}

/*
 * job_text_since() and job_text_incremental(): complete lines while the
 * job runs and its partial last line (a prompt) once each time it grows,
 * the rest once it ends, a complete line never twice; from the store (_i
 * 0) or, without one, from the emulator (_i 1, no partial lines).  And
 * the wall-clock start.
 */
START_TEST(test_text_since)
{
	static const char *const first[] = { "a", "b" };
	static const char *const rest[] = { "b", "c" };
	static const char *const all[] = { "a", "b", "c" };
	struct job	 *job;
	struct store_mark	  mark = { 0, 0 };
	char		  buf[64], **lines;
	int		  count, partial, more;

	job = spawn_spec("echo a; printf b; read x; echo c", NULL, 0,
	    _i == 0 ? fx.dir : NULL, 100);
	ck_assert_int_gt(job_start_time(job), 1700000000000LL);
	job_format_time(job_start_time(job), buf, sizeof buf);
	ck_assert_msg(strlen(buf) == 24 && buf[10] == 'T' && buf[23] == 'Z',
	    "start time %s", buf);
	ck_assert_str_eq(job_format_time(0, buf, sizeof buf), "-");
	ck_assert_str_eq(job_format_time(1000042, buf, sizeof buf),
	    "1970-01-01T00:16:40.042Z");

	ck_assert(run_until(output_has, "b", 5000));
	ck_assert_int_eq(_i == 0, job_run_id(job) != NULL);
	if (_i == 0) {
		/* The prompt "b" comes as a partial line, once. */
		assert_since(job, &mark, first, 2, 1);
		assert_since(job, &mark, NULL, 0, 0);
	} else {
		assert_since(job, &mark, first, 1, 0);
		assert_since(job, &mark, NULL, 0, 0);
	}
	ck_assert_int_eq(jobtable_write(fx.jt, job, "\n", 1), 0);
	wait_done(job);
	assert_since(job, &mark, rest, 2, 0);
	assert_since(job, &mark, NULL, 0, 0);

	lines = job_text_incremental(job, 1000, &count, &partial, &more);
	ck_assert_int_eq(count, 3);
	ck_assert_int_eq(partial, 0);
	ck_assert_int_eq(more, 0);
	ck_assert_str_eq(lines[0], all[0]);
	ck_assert_str_eq(lines[2], all[2]);
	job_text_free(lines, count);
	lines = job_text_incremental(job, 1000, &count, &partial, &more);
	ck_assert_int_eq(count, 0);
	job_text_free(lines, count);
}
END_TEST

/*
 * The program's lines, not the pane's rows: a 200,000-character line
 * comes back whole, combining marks stay, a CR redraw keeps its last
 * state; on pipes, stderr lines are told from stdout ones and not mixed.
 */
START_TEST(test_text_program_lines)
{
	struct store_reader	*r;
	struct store_line	*sl;
	struct job		*job;
	char			**lines, *cause = NULL;
	int			  count, n, i, out = 0, err = 0;

	job = spawn_spec("head -c 200000 /dev/zero | tr '\\0' x; echo; "
	    "printf 'e\\314\\201t\\303\\251\\n10%%\\r99%%\\n'", NULL, 0,
	    fx.dir, 10);
	wait_done(job);
	lines = job_text_lines(job, &count);
	ck_assert_int_eq(count, 3);
	ck_assert_uint_eq(strlen(lines[0]), 200000);
	ck_assert_str_eq(lines[1], "e\xcc\x81t\xc3\xa9");
	ck_assert_str_eq(lines[2], "99%");
	job_text_free(lines, count);

	job = spawn_spec("for i in 1 2 3 4 5; do echo out$i; echo err$i >&2; "
	    "done; printf 'o-'; printf 'e-' >&2; sleep 0.3; echo o; echo e >&2",
	    NULL, 1, fx.dir, 10);
	wait_done(job);
	r = store_reader_open(fx.dir, job_run_id(job), &cause);
	ck_assert_msg(r != NULL, "reader: %s", cause);
	ck_assert_int_eq(store_reader_get(r, 0, store_reader_count(r),
	    STORE_TEXT, &sl, &n), 0);
	ck_assert_int_eq(n, 12);
	for (i = 0; i < n; i++) {
		if (sl[i].stream == STORE_STDERR) {
			ck_assert_msg(sl[i].text[0] == 'e', "stderr line %d: %s",
			    i, sl[i].text);
			err++;
		} else {
			ck_assert_int_eq(sl[i].stream, STORE_STDOUT);
			ck_assert_msg(sl[i].text[0] == 'o', "stdout line %d: %s",
			    i, sl[i].text);
			out++;
		}
	}
	ck_assert_int_eq(out, 6);
	ck_assert_int_eq(err, 6);
	store_lines_free(sl, n);
	store_reader_close(r);
}
END_TEST

/*
 * Read lines [from, from + nwant) through a reader and assert they are
 * want's, numbered from from, and which one is partial (-1: none).
 */
static void
assert_reader_lines(struct job_reader *r, int64_t from,
    const char *const *want, int nwant, int partial)
{
	struct store_line	*sl;
	int			 n, i;

	ck_assert_int_eq(job_reader_get(r, from, from + nwant, STORE_TEXT,
	    &sl, &n), 0);
	ck_assert_int_eq(n, nwant);
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(sl[i].no, from + i);
		ck_assert_str_eq(sl[i].text, want[i]);
		ck_assert_uint_eq(sl[i].len, strlen(want[i]));
		ck_assert_int_eq(sl[i].partial, i == partial);
	}
	store_lines_free(sl, n);
}

/*
 * Assert what a reader of job says: where it reads, from line 0, how many
 * lines and how many complete, all the bytes the job printed, no damage.
 */
static void
assert_reader(struct job_reader *r, const struct job *job,
    enum job_source source, int64_t count, int64_t complete)
{
	ck_assert_int_eq(job_reader_source(r), source);
	ck_assert_int_eq(job_reader_first(r), 0);
	ck_assert_int_eq(job_reader_count(r), count);
	ck_assert_int_eq(job_reader_complete(r), complete);
	ck_assert_uint_eq(job_reader_bytes(r), job_output_bytes(job));
	ck_assert_ptr_null(job_reader_damage(r));
}

/*
 * Assert that a reader's last max lines are max lines from first to last,
 * earlier ones left out.
 */
static void
assert_reader_tail(struct job_reader *r, int max, const char *first,
    const char *last)
{
	char	**lines;
	int	  n, more;

	lines = job_reader_tail(r, max, &n, &more);
	ck_assert_int_eq(n, max);
	ck_assert_int_eq(more, 1);
	ck_assert_str_eq(lines[0], first);
	ck_assert_str_eq(lines[n - 1], last);
	job_text_free(lines, n);
}

/*
 * A logged job's reader reads its run in the store: the run the job
 * names, each line with its number, a partial last line told apart, the
 * tail; the same run opens without its job (logs RUN), and a run that is
 * not there does not open, saying why.
 */
START_TEST(test_reader_store)
{
	static const char *const want[] = { "1", "2", "3", "4", "5", "six" };
	struct job_reader	*r, *rr;
	struct job		*job;
	const char		*dir = NULL;
	char			*why = NULL;

	job = spawn_spec("seq 1 5; printf six", NULL, 0, fx.dir, 100);
	wait_done(job);
	r = job_reader_open(job, JOB_READER_SCREEN, &why);
	ck_assert_ptr_null(why);
	assert_reader(r, job, JOB_SOURCE_STORE, 6, 5);
	ck_assert_str_eq(job_reader_run(r, &dir), job_run_id(job));
	ck_assert_str_eq(dir, fx.dir);
	assert_reader_lines(r, 0, want, 6, 5);
	assert_reader_lines(r, 2, want + 2, 2, -1);
	assert_reader_tail(r, 2, "5", "six");

	rr = job_reader_open_run(fx.dir, job_run_id(job), &why);
	ck_assert_msg(rr != NULL, "open_run: %s", why);
	ck_assert_int_eq(job_reader_source(rr), JOB_SOURCE_STORE);
	ck_assert_str_eq(job_reader_run(rr, NULL), job_run_id(job));
	ck_assert_int_eq(job_reader_count(rr), 6);
	assert_reader_lines(rr, 0, want, 6, 5);
	job_reader_close(rr);
	job_reader_close(r);
	ck_assert_ptr_null(job_reader_open_run(fx.dir,
	    "20200101T000000-00000000", &why));
	ck_assert_ptr_nonnull(why);
	free(why);
}
END_TEST

/*
 * Without a store a job's reader reads the emulator's lines: numbered
 * from 0, the cursor's line partial while the job runs (a prompt), the
 * tail cut to the last lines as the store's is, no run and no damage.
 */
START_TEST(test_reader_vt)
{
	static const char *const want[] = { "1", "2", "3", "prompt" };
	struct job_reader	*r;
	struct job		*job;
	const char		*dir = "unset";

	job = spawn("seq 1 3; printf prompt; read x");
	ck_assert(run_until(output_has, "prompt", 5000));
	r = job_reader_open(job, 0, NULL);
	assert_reader(r, job, JOB_SOURCE_VT, 4, 3);
	ck_assert_ptr_null(job_reader_run(r, &dir));
	ck_assert_ptr_null(dir);
	assert_reader_lines(r, 0, want, 4, 3);
	assert_reader_tail(r, 3, "2", "prompt");
	job_reader_close(r);
	ck_assert_int_eq(jobtable_write(fx.jt, job, "\n", 1), 0);
	wait_done(job);
	r = job_reader_open(job, 0, NULL);
	ck_assert_int_eq(job_reader_complete(r), 4);
	assert_reader_lines(r, 0, want, 4, -1);
	job_reader_close(r);
}
END_TEST

/* Whether the job's reader reads from the emulator (with flags arg). */
static int
reads_vt(struct job *job, int flags)
{
	struct job_reader	*r;
	int			 vt;

	r = job_reader_open(job, flags, NULL);
	vt = job_reader_source(r) == JOB_SOURCE_VT;
	job_reader_close(r);
	return vt;
}

/*
 * A reader reads on from where it was once refreshed, from the store (_i
 * 0) and the emulator (_i 1): what is new after a mark, complete lines
 * while the job runs, the rest after it ends; nothing new before the
 * refresh.
 */
START_TEST(test_reader_refresh)
{
	struct job_reader	*r;
	struct store_mark	 mark = { 0, 0 };
	struct store_line	*sl;
	struct job		*job;
	int			 n, i;

	job = spawn_spec("echo a; printf p; read x; echo b", NULL, 0,
	    _i == 0 ? fx.dir : NULL, 100);
	ck_assert(run_until(output_has, "p", 5000));
	ck_assert_int_eq(reads_vt(job, 0), _i == 1);
	r = job_reader_open(job, 0, NULL);
	ck_assert_int_eq(job_reader_since(r, &mark, -1, 0, &sl, &n, NULL), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(sl[0].text, "a");
	store_lines_free(sl, n);
	ck_assert_int_eq(mark.line, 1);
	ck_assert_int_eq(jobtable_write(fx.jt, job, "\n", 1), 0);
	wait_done(job);
	ck_assert_int_eq(job_reader_since(r, &mark, -1, 0, &sl, &n, NULL), 0);
	ck_assert_int_eq(n, 0);
	store_lines_free(sl, n);
	ck_assert_int_eq(job_reader_refresh(r), 0);
	ck_assert_int_eq(job_reader_since(r, &mark, -1, 0, &sl, &n, NULL), 0);
	ck_assert_int_ge(n, 2);
	ck_assert_str_eq(sl[0].text, "p");
	ck_assert_str_eq(sl[n - 1].text, "b");
	for (i = 0; i < n; i++)
		ck_assert_int_eq(sl[i].no, 1 + i);
	store_lines_free(sl, n);
	ck_assert_int_eq(mark.line, job_reader_count(r));
	job_reader_close(r);
}
END_TEST

/*
 * A logged run none of which can be read (its index removed, as a user
 * freeing disk might) is read from the emulator, and the reader says why
 * (the text readers too); one that reads in the run's numbers
 * (JOB_READER_RUN_ONLY: pages and marks) reads nothing.  A why already
 * set stays.
 */
START_TEST(test_reader_damaged)
{
	static const char *const want[] = { "1", "2", "3" };
	struct job_reader	 *r;
	struct job		 *job;
	char			  path[512], **lines, *why = NULL;
	int			  n;

	job = spawn_spec("seq 1 3", NULL, 0, fx.dir, 100);
	wait_done(job);
	ck_assert(!reads_vt(job, 0));
	snprintf(path, sizeof path, "%s/runs/%s/idx.0", fx.dir,
	    job_run_id(job));
	ck_assert_msg(unlink(path) == 0, "%s: %s", path, strerror(errno));

	r = job_reader_open(job, 0, &why);
	ck_assert_int_eq(job_reader_source(r), JOB_SOURCE_VT);
	ck_assert_msg(why != NULL && strstr(why, "is damaged: it has no "
	    "index (idx.N)") != NULL, "why: %s", why);
	ck_assert_ptr_null(job_reader_run(r, NULL));
	ck_assert_int_eq(job_reader_count(r), 3);
	assert_reader_lines(r, 0, want, 3, -1);
	job_reader_close(r);

	r = job_reader_open(job, JOB_READER_RUN_ONLY, &why);
	ck_assert_int_eq(job_reader_source(r), JOB_SOURCE_NONE);
	ck_assert_int_eq(job_reader_count(r), 0);
	job_reader_close(r);
	ck_assert_msg(strstr(why, "it has no index") != NULL, "%s", why);
	free(why);

	why = NULL;
	lines = job_text_lines_error(job, &n, &why);
	ck_assert_int_eq(n, 3);
	ck_assert_str_eq(lines[2], "3");
	job_text_free(lines, n);
	ck_assert_msg(why != NULL && strstr(why, "it has no index") != NULL,
	    "why: %s", why);
	free(why);
}
END_TEST

/*
 * A full-screen program (on the alternate screen) is read from its
 * emulator when the reader is asked to (JOB_READER_SCREEN: copy mode,
 * scrolling back), from the store otherwise; back on the main screen,
 * from the store either way.
 */
START_TEST(test_reader_altscreen)
{
	struct job_reader	 *r;
	struct store_line	 *sl;
	struct job		 *job;
	int			  n, i, found = 0;

	job = spawn_spec("echo before; printf '\\033[?1049hfull screen'; "
	    "read x; printf '\\033[?1049l'; echo after; read y", NULL, 0,
	    fx.dir, 100);
	ck_assert(run_until(output_has, "full screen", 5000));
	ck_assert(vt_altscreen(job_vt(job)));
	ck_assert(!reads_vt(job, 0));
	r = job_reader_open(job, JOB_READER_SCREEN, NULL);
	ck_assert_int_eq(job_reader_source(r), JOB_SOURCE_VT);
	ck_assert_int_eq(job_reader_get(r, 0, job_reader_count(r), STORE_TEXT,
	    &sl, &n), 0);
	for (i = 0; i < n; i++)
		found |= strcmp(sl[i].text, "full screen") == 0;
	ck_assert_msg(found, "no \"full screen\" in %d emulator lines", n);
	store_lines_free(sl, n);
	job_reader_close(r);

	ck_assert_int_eq(jobtable_write(fx.jt, job, "\n", 1), 0);
	ck_assert(run_until(output_has, "after", 5000));
	ck_assert(!vt_altscreen(job_vt(job)));
	ck_assert(!reads_vt(job, JOB_READER_SCREEN));
	ck_assert(!reads_vt(job, 0));
	ck_assert_int_eq(jobtable_write(fx.jt, job, "\n", 1), 0);
	wait_done(job);
}
END_TEST

static struct job *spawn_full(struct job_spec *, const char *);

/*
 * A job to be logged that has not started yet (queued) is read from its
 * emulator (which may say why it never started), but has nothing in the
 * run's numbers (JOB_READER_RUN_ONLY); once it ran, its run.
 */
START_TEST(test_reader_not_started)
{
	struct job_spec		  spec;
	struct job_reader	 *r;
	struct job		 *a, *b;
	char			**lines;
	int			  n, more;

	a = spawn_spec("read x", NULL, 0, fx.dir, 100);
	jobtable_set_max_running(fx.jt, 1);
	memset(&spec, 0, sizeof spec);
	b = spawn_full(&spec, "echo queued");
	ck_assert_int_eq(job_state(b), JOB_QUEUED);
	ck_assert(reads_vt(b, 0));
	r = job_reader_open(b, JOB_READER_RUN_ONLY, NULL);
	ck_assert_int_eq(job_reader_source(r), JOB_SOURCE_NONE);
	ck_assert_int_eq(job_reader_count(r), 0);
	lines = job_reader_tail(r, 10, &n, &more);
	ck_assert_int_eq(n, 0);
	job_text_free(lines, n);
	job_reader_close(r);
	ck_assert_int_eq(jobtable_write(fx.jt, a, "\n", 1), 0);
	wait_done(a);
	wait_done(b);
	r = job_reader_open(b, 0, NULL);
	ck_assert_int_eq(job_reader_source(r), JOB_SOURCE_STORE);
	ck_assert_int_eq(job_reader_count(r), 1);
	job_reader_close(r);
}
END_TEST

/*
 * A child inherits no fd of the parent's but its terminal on 0-2.  The
 * shell lists its own fds with ls (not the last command, so it is not
 * exec'd in the shell's place).
 */
START_TEST(test_no_inherited_fds)
{
	struct job	*job;
	char		 path[96], **lines;
	int		 fds[2], sv[2], fd, count, i, n = 0;

	snprintf(path, sizeof path, "%s/leak-marker", fx.dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(dup2(fd, 37), 37);
	ck_assert_int_eq(dup2(fd, 200), 200);
	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);

	job = spawn("ls -l /proc/$$/fd; exit 0");
	wait_done(job);
	ck_assert_int_eq(job_state(job), JOB_COMPLETED);
	lines = job_text_lines(job, &count);
	for (i = 0; i < count; i++) {
		if (strstr(lines[i], " -> ") == NULL)
			continue;
		n++;
		ck_assert_msg(strstr(lines[i], " -> /dev/pts/") != NULL,
		    "inherited: %s", lines[i]);
	}
	job_text_free(lines, count);
	ck_assert_int_eq(n, 3);
	close(fd);
	close(37);
	close(200);
	close(fds[0]);
	close(fds[1]);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* The pty has the table's size, and resizing the table resizes it. */
START_TEST(test_pty_size)
{
	struct job	*job;

	jobtable_set_size(fx.jt, 30, 100);
	job = spawn("stty size; read x; stty size");
	ck_assert(run_until(output_has, "30 100\r\n", 5000));
	ck_assert_int_eq(vt_rows(job_vt(job)), 30);
	ck_assert_int_eq(vt_cols(job_vt(job)), 100);

	jobtable_set_size(fx.jt, 40, 120);
	ck_assert_int_eq(vt_rows(job_vt(job)), 40);
	ck_assert_int_eq(vt_cols(job_vt(job)), 120);
	ck_assert_int_eq(jobtable_write(fx.jt, job, "\n", 1), 0);
	wait_done(job);
	assert_text_line(job, "30 100");
	assert_text_line(job, "40 120");
}
END_TEST

/* A resized job gets SIGWINCH while it runs. */
START_TEST(test_pty_winch)
{
	struct job	*job;

	jobtable_set_size(fx.jt, 24, 80);
	job = spawn("trap 'stty size; exit 0' WINCH; echo ready; "
	    "while :; do sleep 0.05; done");
	ck_assert(run_until(output_has, "ready", 5000));
	jobtable_set_size(fx.jt, 50, 132);
	wait_done(job);
	ck_assert_int_eq(job_state(job), JOB_COMPLETED);
	assert_text_line(job, "50 132");
}
END_TEST

/*
 * Contain the table's jobs: with a cgroup each (flags 0; 0 returned, and
 * "SKIP: " said, where none can be made) or the marker alone.
 */
static int
contain(int flags, const char *test)
{
	fx.cg = cgroup_new(flags);
	if (!(flags & CGROUP_NO_CGROUP) && cgroup_dir(fx.cg) == NULL) {
		TEST_SKIP_LINE("%s: %s", test, cgroup_warning(fx.cg));
		return 0;
	}
	jobtable_set_cgroup(fx.jt, fx.cg);
	return 1;
}

/* Whether the deck's cgroup holds no job's cgroup any more. */
static int
no_job_cgroups(void *arg)
{
	struct dirent	*de;
	DIR		*d;
	int		 n = 0;

	(void)arg;
	if ((d = opendir(cgroup_dir(fx.cg))) == NULL)
		return 1;
	while ((de = readdir(d)) != NULL)
		n += strncmp(de->d_name, "job-", 4) == 0;
	closedir(d);
	return n == 0;
}

/*
 * Start a job whose escapee (setsid, so out of the job's group; trap is
 * its trap for TERM) writes its pid to name in the test's directory; then
 * the job runs tail.  Returns the job and the escapee's pid.
 */
static struct job *
spawn_escapee(const char *name, const char *trap, const char *tail,
    pid_t *esc)
{
	struct job	*job;
	char		 cmd[1024], path[96], *s;
	size_t		 len;

	snprintf(path, sizeof path, "%s/%s", fx.dir, name);
	snprintf(cmd, sizeof cmd, "setsid sh -c 'trap \"%s\" TERM; "
	    "echo $$ > %s.tmp; mv %s.tmp %s; exec sleep 100' & "
	    "while [ ! -s %s ]; do sleep 0.02; done; %s", trap, path, path,
	    path, path, tail);
	job = spawn(cmd);
	while (access(path, F_OK) != 0)
		ck_assert_int_ne(loop_run_once(fx.loop, 10), -1);
	s = slurp(path, &len);
	*esc = (pid_t)atol(s);
	free(s);
	ck_assert_int_gt(*esc, 1);
	ck_assert_int_ne(getsid(*esc), getsid(job_pid(job)));
	return job;
}

/*
 * !kill reaches an escapee with SIGTERM, well before the grace period's
 * SIGKILL: through its cgroup (_i 0) or its marker (_i 1).  With a
 * cgroup, the run's CPU time stays known and its cgroup goes.
 */
START_TEST(test_contain_kill)
{
	struct job	*job;
	pid_t		 esc;

	if (!contain(_i ? CGROUP_NO_CGROUP : 0, "contain_kill"))
		return;
	jobtable_set_grace(fx.jt, 4000);
	job = spawn_escapee("esc", "exit 0", "wait", &esc);
	ck_assert_int_eq(jobtable_kill(fx.jt, job, SIGTERM), 0);
	ck_assert_msg(run_until(pid_gone_cond, &esc, 2000),
	    "the escapee %ld did not go on SIGTERM", (long)esc);
	wait_done(job);
	ck_assert_int_eq(job_state(job), JOB_CANCELED);
	if (_i == 0) {
		ck_assert_msg(run_until(no_job_cgroups, NULL, 3000),
		    "the job's cgroup was not removed");
		ck_assert_int_ge(job_cpu_ms(job), 0);
	} else
		ck_assert_int_eq(job_cpu_ms(job), -1);
	ck_assert_int_eq(job_memory_bytes(job), -1);
}
END_TEST

/*
 * !kill-all reaches the escapees of every job, one that ignores SIGTERM
 * with the SIGKILL after the grace period: cgroup (_i 0) or marker (_i 1).
 */
START_TEST(test_contain_kill_all)
{
	struct job	*jobs[3];
	pid_t		 esc[3];
	char		 name[16];
	int		 i;

	if (!contain(_i ? CGROUP_NO_CGROUP : 0, "contain_kill_all"))
		return;
	jobtable_set_grace(fx.jt, 300);
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof name, "esc%d", i);
		jobs[i] = spawn_escapee(name, i == 0 ? "" : "exit 0", "wait",
		    &esc[i]);
	}
	ck_assert_int_eq(jobtable_kill_all(fx.jt), 3);
	for (i = 0; i < 3; i++) {
		ck_assert_msg(run_until(pid_gone_cond, &esc[i], 3000),
		    "escapee %d (%ld) survived kill-all", i, (long)esc[i]);
		wait_done(jobs[i]);
	}
	ck_assert(run_until(all_reaped, NULL, 3000));
}
END_TEST

/*
 * A job that ends by itself leaves an escapee that ignores SIGTERM: its
 * cgroup is emptied after the grace period, and then removed.
 */
START_TEST(test_contain_done)
{
	struct job	*job;
	pid_t		 esc;

	if (!contain(0, "contain_done"))
		return;
	jobtable_set_grace(fx.jt, 300);
	job = spawn_escapee("esc", "", "exit 0", &esc);
	wait_done(job);
	ck_assert_int_eq(job_state(job), JOB_COMPLETED);
	ck_assert_msg(run_until(pid_gone_cond, &esc, 3000),
	    "the escapee %ld of an ended job lives on", (long)esc);
	ck_assert_msg(run_until(no_job_cgroups, NULL, 3000),
	    "the ended job's cgroup was not removed");
	ck_assert_int_eq(jobtable_busy(fx.jt), 0);
}
END_TEST

/* !restart kills what the last run left in its cgroup. */
START_TEST(test_contain_restart)
{
	struct job	*job;
	char		*cause = NULL, path[128];
	pid_t		 esc;

	if (!contain(0, "contain_restart"))
		return;
	jobtable_set_grace(fx.jt, 4000);
	job = spawn_escapee("esc", "", "exec sleep 100", &esc);
	snprintf(path, sizeof path, "%s/esc", fx.dir);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(jobtable_restart(fx.jt, job, &cause), 0);
	ck_assert_msg(run_until(pid_gone_cond, &esc, 2000),
	    "the last run's escapee %ld survived the restart", (long)esc);
	/* The new run started and made its own escapee. */
	while (access(path, F_OK) != 0)
		ck_assert_int_ne(loop_run_once(fx.loop, 10), -1);
	ck_assert(job_is_running(job));
	ck_assert_int_eq(job_starts(job), 1);
}
END_TEST

/* A running job's CPU time and memory are known through its cgroup. */
START_TEST(test_contain_usage)
{
	struct job	*job;

	if (!contain(0, "contain_usage"))
		return;
	job = spawn("i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; "
	    "echo busy''done; exec sleep 100");
	ck_assert(run_until(output_has, "busydone", 8000));
	ck_assert_msg(job_cpu_ms(job) > 0, "cpu %lld ms",
	    (long long)job_cpu_ms(job));
	ck_assert_msg(job_memory_bytes(job) > 0, "memory %lld",
	    (long long)job_memory_bytes(job));
	fprintf(stderr, "check_job: a shell counting to 300000: cpu %lld ms, "
	    "memory %lld bytes\n", (long long)job_cpu_ms(job),
	    (long long)job_memory_bytes(job));
}
END_TEST

/* A job and a state it is waited for to be in. */
struct job_in_state {
	struct job	*job;
	enum job_state	 state;
};

/* Whether the job is in the state (arg: a struct job_in_state). */
static int
state_is(void *arg)
{
	struct job_in_state	*w = arg;

	return job_state(w->job) == w->state;
}

/*
 * A stopped job is still running: its cgroup does not wait to be removed
 * (nothing retries it while the job is stopped) and stays; continued, the
 * job runs on in it.
 */
START_TEST(test_contain_stopped)
{
	struct job_in_state	 want;
	struct job		*job;
	struct stat		 sb;
	char			 path[PATH_MAX];

	if (!contain(0, "contain_stopped"))
		return;
	job = spawn("exec sleep 100");
	want.job = job;
	ck_assert_int_eq(kill(job_pid(job), SIGSTOP), 0);
	want.state = JOB_STOPPED;
	ck_assert_msg(run_until(state_is, &want, 3000), "not stopped");
	ck_assert(job_is_running(job));
	ck_assert_int_eq(job_tidy(job), 0);
	snprintf(path, sizeof path, "%s/job-%d-1", cgroup_dir(fx.cg),
	    job_id(job));
	ck_assert_msg(stat(path, &sb) == 0, "%s: %s", path, strerror(errno));
	ck_assert_int_eq(kill(job_pid(job), SIGCONT), 0);
	want.state = JOB_RUNNING;
	ck_assert_msg(run_until(state_is, &want, 3000), "not continued");
	ck_assert_int_eq(job_tidy(job), 0);
	ck_assert_int_eq(stat(path, &sb), 0);
}
END_TEST

/*
 * Kill the jobs a failed test left behind: check ends a failed test with
 * _exit(), so its teardown does not run, and its jobs are reparented to
 * this process, a subreaper.
 */
static void
kill_leftovers(void)
{
	jobtable_kill_strays();
}

/* Build the job suite. */
/* Spawn a spec as it is; the job may be running or queued. */
static struct job *
spawn_full(struct job_spec *spec, const char *command)
{
	struct job	*job;
	char		*cause = NULL;

	spec->command = command;
	spec->shell = "/bin/sh";
	spec->envp = test_env;
	job = jobtable_spawn(fx.jt, spec, &cause);
	ck_assert_msg(job != NULL, "spawn %s: %s", command, cause);
	return job;
}

/* Count how often needle occurs in the output so far. */
static int
output_count(const char *needle)
{
	const char	*p = fx.out;
	int		 n = 0;

	while (p != NULL && (p = strstr(p, needle)) != NULL) {
		n++;
		p += strlen(needle);
	}
	return n;
}

/* Whether fx has seen at least *arg exits. */
static int
exits_reached(void *arg)
{
	return fx.exited >= *(int *)arg;
}

/* A program and its argv run without a shell: words stay whole. */
START_TEST(test_argv_no_shell)
{
	struct job_spec	 spec;
	struct job	*job;
	char		*argv[] = { "printf", "<%s>", "a b", "$HOME", "it's",
	    "*", NULL };

	memset(&spec, 0, sizeof spec);
	spec.argv = argv;
	job = spawn_full(&spec, NULL);
	ck_assert_str_eq(job_command(job),
	    "printf '<%s>' 'a b' '$HOME' 'it'\\''s' '*'");
	wait_done(job);
	ck_assert_int_eq(job_state(job), JOB_COMPLETED);
	ck_assert_msg(output_has("<a b><$HOME><it's><*>"), "output: %s",
	    fx.out);
}
END_TEST

/* A time limit kills the job, even one that ignores SIGTERM. */
START_TEST(test_timeout)
{
	struct job_spec	 spec;
	struct job	*a, *b;

	jobtable_set_grace(fx.jt, 300);
	memset(&spec, 0, sizeof spec);
	/* Time enough for the second one's trap, however busy the machine. */
	spec.timeout_ms = 1000;
	a = spawn_full(&spec, "sleep 30");
	b = spawn_full(&spec, "trap '' TERM; echo armed; "
	    "while :; do sleep 0.05; done");
	wait_done(a);
	wait_done(b);
	ck_assert_int_eq(job_state(a), JOB_TIMED_OUT);
	ck_assert_int_eq(job_state(b), JOB_TIMED_OUT);
	/* The limit's SIGTERM ended one; the grace's SIGKILL the other. */
	ck_assert(WIFSIGNALED(job_exit_status(a)));
	ck_assert_int_eq(WTERMSIG(job_exit_status(a)), SIGTERM);
	ck_assert(WIFSIGNALED(job_exit_status(b)));
	ck_assert_int_eq(WTERMSIG(job_exit_status(b)), SIGKILL);
	ck_assert_int_ge(job_duration_ms(a, loop_now_ms()), 950);
}
END_TEST

/* on-failure: a failing job runs max_restarts more times, then stops. */
START_TEST(test_restart_on_failure)
{
	struct job_spec	 spec;
	struct job	*job;
	int		 three = 3;

	memset(&spec, 0, sizeof spec);
	spec.restart = JOB_RESTART_ON_FAILURE;
	spec.restart_delay_ms = 50;
	spec.max_restarts = 2;
	job = spawn_full(&spec, "echo run.; exit 3");
	ck_assert(run_until(exits_reached, &three, 5000));
	run_for(400);
	ck_assert_int_eq(fx.exited, 3);
	ck_assert_int_eq(fx.started, 3);
	ck_assert_int_eq(job_starts(job), 3);
	ck_assert_int_eq(output_count("run."), 3);
	ck_assert_int_eq(job_state(job), JOB_FAILED);
	ck_assert_int_eq(jobtable_count(fx.jt), 1);
	ck_assert_int_eq(job_id(job), 1);

	/* Success is not a failure: no restart. */
	job = spawn_full(&spec, "true");
	wait_done(job);
	run_for(200);
	ck_assert_int_eq(job_starts(job), 1);
	ck_assert_int_eq(job_state(job), JOB_COMPLETED);
}
END_TEST

/* always: restarts after success too, until the user kills it. */
START_TEST(test_restart_always_until_killed)
{
	struct job_spec	 spec;
	struct job	*job;
	int		 three = 3, exits;

	memset(&spec, 0, sizeof spec);
	spec.restart = JOB_RESTART_ALWAYS;
	spec.restart_delay_ms = 30;
	spec.max_restarts = -1;
	job = spawn_full(&spec, "echo tick.");
	ck_assert(run_until(exits_reached, &three, 5000));
	if (job_is_running(job))
		wait_done(job);
	ck_assert_int_eq(jobtable_kill(fx.jt, job, SIGTERM), 0);
	exits = fx.exited;
	run_for(300);
	ck_assert_int_eq(fx.exited, exits);
	ck_assert_int_eq(fx.started, exits);
	ck_assert(!job_is_running(job));

	/* The user's kill of a running job is never restarted. */
	job = spawn_full(&spec, "sleep 30");
	ck_assert_int_eq(jobtable_kill(fx.jt, job, SIGTERM), 0);
	wait_done(job);
	run_for(200);
	ck_assert_int_eq(job_state(job), JOB_CANCELED);
	ck_assert_int_eq(job_starts(job), 1);
}
END_TEST

/* max_running: the second job waits queued until the first ends. */
START_TEST(test_max_running_queue)
{
	struct job_spec	 spec;
	struct job	*a, *b, *c;
	char		*first, *second;

	jobtable_set_max_running(fx.jt, 1);
	memset(&spec, 0, sizeof spec);
	a = spawn_full(&spec, "sleep 0.3; echo first.");
	b = spawn_full(&spec, "echo second.");
	ck_assert_int_eq(job_state(a), JOB_RUNNING);
	ck_assert_int_eq(job_state(b), JOB_QUEUED);
	ck_assert_int_le(job_pid(b), 0);
	ck_assert_int_eq(fx.started, 1);
	wait_done(a);
	wait_done(b);
	ck_assert_int_eq(job_state(b), JOB_COMPLETED);
	first = strstr(fx.out, "first.");
	second = strstr(fx.out, "second.");
	ck_assert(first != NULL && second != NULL && first < second);

	/* A queued job can be killed: canceled without ever running. */
	a = spawn_full(&spec, "sleep 30");
	b = spawn_full(&spec, "echo never.");
	c = spawn_full(&spec, "echo nor.");
	ck_assert_int_eq(jobtable_kill(fx.jt, b, SIGTERM), 0);
	ck_assert_int_eq(job_state(b), JOB_CANCELED);
	ck_assert_int_eq(jobtable_kill_all(fx.jt), 2);
	wait_done(a);
	run_for(200);
	ck_assert_int_eq(job_state(c), JOB_CANCELED);
	ck_assert(!output_has("never.") && !output_has("nor."));
}
END_TEST

/* A spec's input reaches a read in the job. */
START_TEST(test_spec_input)
{
	struct job_spec	 spec;
	struct job	*job;

	memset(&spec, 0, sizeof spec);
	spec.input = "hello there\n";
	job = spawn_full(&spec, "read x; echo \"got:$x.\"");
	wait_done(job);
	ck_assert_msg(output_has("got:hello there."), "output: %s", fx.out);
	ck_assert_int_eq(job_state(job), JOB_COMPLETED);
}
END_TEST

/* Count removals. */
static void
on_removed(struct job *job, void *arg)
{
	int	*n = arg;

	(void)job;
	(*n)++;
}

static const struct jobtable_cbs removed_cbs = {
	.removed = on_removed,
};

/* keep_finished drops the oldest finished jobs, never a running one. */
START_TEST(test_keep_finished)
{
	struct job_spec	 spec;
	struct job	*job, *live;
	int		 i, removed = 0;

	ck_assert_int_ge(jobtable_subscribe(fx.jt, &removed_cbs, &removed), 0);
	jobtable_set_keep_finished(fx.jt, 2);
	memset(&spec, 0, sizeof spec);
	live = spawn_full(&spec, "sleep 30");
	for (i = 0; i < 4; i++) {
		job = spawn_full(&spec, "true");
		wait_done(job);
	}
	ck_assert_int_eq(removed, 2);
	ck_assert_int_eq(jobtable_count(fx.jt), 3);
	ck_assert_ptr_eq(jobtable_get(fx.jt, 0), live);
	ck_assert_int_eq(job_id(jobtable_get(fx.jt, 1)), 4);
	ck_assert_int_eq(job_id(jobtable_get(fx.jt, 2)), 5);
	ck_assert_ptr_null(jobtable_find(fx.jt, "2", NULL));
}
END_TEST

/* Whether "up." was printed at least *arg times. */
static int
ups_reached(void *arg)
{
	return output_count("up.") >= *(int *)arg;
}

/* jobtable_restart: a running job is stopped and run again, same id. */
START_TEST(test_user_restart)
{
	struct job_spec	 spec;
	struct job	*job;
	char		*cause = NULL;
	pid_t		 first;
	int		 one = 1, two = 2, three = 3;

	memset(&spec, 0, sizeof spec);
	spec.name = "svc";
	job = spawn_full(&spec, "echo up.; sleep 30");
	first = job_pid(job);
	ck_assert(run_until(ups_reached, &one, 5000));
	ck_assert_int_eq(jobtable_restart(fx.jt, job, &cause), 0);
	ck_assert(run_until(exits_reached, &one, 5000));
	ck_assert_int_eq(job_state(job), JOB_RUNNING);
	ck_assert_int_ne(job_pid(job), first);
	ck_assert_int_eq(fx.started, 2);
	ck_assert_ptr_eq(jobtable_find(fx.jt, "svc", NULL), job);
	ck_assert(run_until(ups_reached, &two, 5000));

	/* An ended job starts again at once. */
	ck_assert_int_eq(jobtable_kill(fx.jt, job, SIGKILL), 0);
	wait_done(job);
	ck_assert_int_eq(job_state(job), JOB_CANCELED);
	ck_assert(WIFSIGNALED(job_end_status(job)));
	ck_assert_int_eq(jobtable_restart(fx.jt, job, &cause), 0);
	ck_assert_int_eq(job_state(job), JOB_RUNNING);
	/* The new run has no end yet: the last run's is not shown. */
	ck_assert_int_eq(job_end_status(job), WAITSTATUS_NONE);
	ck_assert_int_eq(fx.started, 3);
	ck_assert(run_until(ups_reached, &three, 5000));
	ck_assert_int_eq(output_count("up."), 3);

	/* A name is free again once its job has ended. */
	ck_assert_ptr_null(jobtable_spawn(fx.jt, &spec, &cause));
	ck_assert_str_eq(cause, "a job named svc is running already (job 1)");
	free(cause);
}
END_TEST

/*
 * A restart that is still waiting for its job to stop is called off when
 * the user kills the job or quits: the job stays stopped.
 */
START_TEST(test_kill_cancels_restart)
{
	struct job_spec	 spec;
	struct job	*job;
	char		*cause = NULL;
	int		 one = 1, two = 2;

	memset(&spec, 0, sizeof spec);
	job = spawn_full(&spec, "trap 'sleep 0.2; exit 0' TERM; echo up.; "
	    "while :; do sleep 0.05; done");
	ck_assert(run_until(ups_reached, &one, 5000));
	ck_assert_int_eq(jobtable_restart(fx.jt, job, &cause), 0);
	/* !quit while it takes its time to stop. */
	ck_assert_int_eq(jobtable_kill_all(fx.jt), 1);
	ck_assert(run_until(exits_reached, &one, 5000));
	run_for(300);
	ck_assert_int_eq(fx.started, 1);
	ck_assert(!job_is_running(job));
	ck_assert_int_eq(job_state(job), JOB_CANCELED);

	/* Likewise !kill after !restart. */
	ck_assert_int_eq(jobtable_restart(fx.jt, job, &cause), 0);
	ck_assert(run_until(ups_reached, &two, 5000));
	ck_assert_int_eq(jobtable_restart(fx.jt, job, &cause), 0);
	ck_assert_int_eq(jobtable_kill(fx.jt, job, SIGTERM), 0);
	ck_assert(run_until(exits_reached, &two, 5000));
	run_for(300);
	ck_assert_int_eq(fx.started, 2);
	ck_assert(!job_is_running(job));
}
END_TEST

/* A name stays unique among live jobs: no restart of an old namesake. */
START_TEST(test_restart_name_in_use)
{
	struct job_spec	 spec;
	struct job	*old, *cur;
	char		*cause = NULL;

	memset(&spec, 0, sizeof spec);
	spec.name = "svc";
	old = spawn_full(&spec, "true");
	wait_done(old);
	cur = spawn_full(&spec, "sleep 30");
	ck_assert_int_eq(job_state(cur), JOB_RUNNING);
	ck_assert_int_eq(jobtable_restart(fx.jt, old, &cause), -1);
	ck_assert_str_eq(cause, "a job named svc is running already (job 2)");
	free(cause);
	ck_assert(!job_is_running(old));
	ck_assert_ptr_eq(jobtable_find(fx.jt, "svc", NULL), cur);
}
END_TEST

/* Whether the int pointed to is at least 1. */
static int
int_set(void *arg)
{
	return *(int *)arg > 0;
}

/*
 * keep_finished also drops a job whose output ends after its exit (a
 * background child held its terminal), not only at the next exit.
 */
START_TEST(test_keep_finished_late_output)
{
	struct job_spec	 spec;
	int		 removed = 0;

	ck_assert_int_ge(jobtable_subscribe(fx.jt, &removed_cbs, &removed), 0);
	jobtable_set_keep_finished(fx.jt, 0);
	memset(&spec, 0, sizeof spec);
	(void)spawn_full(&spec, "(trap '' HUP; sleep 0.3) & echo bye.");
	ck_assert_msg(run_until(int_set, &removed, 5000),
	    "the finished job was kept: %d job(s)", jobtable_count(fx.jt));
	ck_assert_int_eq(jobtable_count(fx.jt), 0);
}
END_TEST

/*
 * keep_finished drops a finished job as soon as what its leader left
 * behind is gone, not when the kill's grace period is over: here the
 * leftover (output closed, SIGTERM ignored) is reaped after the job's
 * output ended, and nothing looked at the table again until the grace
 * (10 minutes) ran out.  Under load the same order made
 * keep_finished_late_output fail.
 */
START_TEST(test_keep_finished_leftover_gone)
{
	struct job_spec	 spec;
	struct job	*job;
	char		 cmd[PATH_MAX + 160], go[PATH_MAX];
	int		 removed = 0, fd;

	ck_assert_int_ge(jobtable_subscribe(fx.jt, &removed_cbs, &removed), 0);
	jobtable_set_keep_finished(fx.jt, 0);
	jobtable_set_grace(fx.jt, 600000);
	snprintf(go, sizeof go, "%s/go", fx.dir);
	snprintf(cmd, sizeof cmd, "trap '' TERM HUP; (exec </dev/null "
	    ">/dev/null 2>&1; until [ -e %s ]; do sleep 0.05; done) & "
	    "echo bye.", go);
	memset(&spec, 0, sizeof spec);
	job = spawn_full(&spec, cmd);
	wait_done(job);
	ck_assert_msg(removed == 0, "a job was dropped while its leftover "
	    "lives");
	ck_assert_int_eq(jobtable_busy(fx.jt), 1);
	fd = open(go, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_msg(run_until(int_set, &removed, 8000), "the finished job "
	    "was kept after its leftover ended: %d job(s)",
	    jobtable_count(fx.jt));
	ck_assert_int_eq(jobtable_count(fx.jt), 0);
	ck_assert_int_eq(jobtable_busy(fx.jt), 0);
}
END_TEST

/* Whether the job pointed to runs. */
static int
is_running(void *arg)
{
	return job_is_running(arg);
}

/* Whether fx has seen at least *arg starts. */
static int
starts_reached(void *arg)
{
	return fx.started >= *(int *)arg;
}

/* Whether no job runs, no kill is in its grace and no stop command runs. */
static int
not_busy(void *arg)
{
	(void)arg;
	return !jobtable_busy(fx.jt);
}

/*
 * The policy's WAIT holds a job (new: told of as queued; live: its name
 * taken, not removable) until jobtable_recheck() finds it may go; a new
 * reason is a change, the same one is not; rechecks go in id order, and a
 * restart (the user's and the policy's) asks again.
 */
START_TEST(test_gate_wait_recheck)
{
	struct job_spec	 spec;
	struct job	*api, *web, *job;
	char		*cause = NULL, buf[32];
	int		 three = 3, asked;

	jobtable_set_policy(fx.jt, &test_policy, &fx);
	set_gate("api", JOBTABLE_WAIT, "db (ready)");
	set_gate("web", JOBTABLE_WAIT, "api (started)");
	memset(&spec, 0, sizeof spec);
	spec.name = "web";
	web = spawn_full(&spec, "echo web-up.");
	spec.name = "api";
	api = spawn_full(&spec, "echo api-up.");
	ck_assert_int_eq(job_state(api), JOB_WAITING);
	ck_assert_int_eq(job_state(web), JOB_WAITING);
	ck_assert_str_eq(job_state_name(JOB_WAITING), "waiting");
	ck_assert_str_eq(job_wait_reason(api), "db (ready)");
	ck_assert_str_eq(job_describe_end(api, buf, sizeof buf), "Waiting");
	ck_assert_int_eq(job_end_status(api), WAITSTATUS_NONE);
	ck_assert_int_le(job_pid(api), 0);
	ck_assert_int_eq(fx.queued, 2);
	ck_assert_int_eq(fx.started, 0);
	ck_assert_int_eq(jobtable_running(fx.jt), 0);

	/* Live: its name is taken and it cannot be removed. */
	ck_assert_ptr_null(jobtable_spawn(fx.jt, &spec, &cause));
	ck_assert_str_eq(cause, "a job named api is running already (job 2)");
	free(cause);
	ck_assert_int_eq(jobtable_remove(fx.jt, api, &cause), -1);
	ck_assert_str_eq(cause, "[2] is waiting: !kill it first");
	free(cause);

	/* Asked again: the same answer tells nobody, a new one does. */
	asked = fx.asked;
	jobtable_recheck(fx.jt);
	ck_assert_int_eq(fx.asked, asked + 2);
	ck_assert_int_eq(fx.changed, 0);
	set_gate("web", JOBTABLE_WAIT, "api (ready)");
	jobtable_recheck(fx.jt);
	ck_assert_int_eq(fx.changed, 1);
	ck_assert_str_eq(job_wait_reason(web), "api (ready)");

	/* Let go: both start, in id order. */
	set_gate("api", JOBTABLE_GO, NULL);
	set_gate("web", JOBTABLE_GO, NULL);
	jobtable_recheck(fx.jt);
	ck_assert_int_eq(fx.started, 2);
	ck_assert_ptr_eq(fx.started_jobs[0], web);
	ck_assert_ptr_eq(fx.started_jobs[1], api);
	ck_assert_ptr_null(job_wait_reason(api));
	wait_done(api);
	wait_done(web);
	ck_assert_int_eq(job_state(api), JOB_COMPLETED);
	ck_assert(output_has("api-up.") && output_has("web-up."));

	/* !restart asks too. */
	set_gate("api", JOBTABLE_WAIT, "db (ready)");
	ck_assert_int_eq(jobtable_restart(fx.jt, api, &cause), 0);
	ck_assert_int_eq(job_state(api), JOB_WAITING);
	ck_assert_int_eq(job_end_status(api), WAITSTATUS_NONE);
	ck_assert_int_eq(fx.changed, 2);
	ck_assert_int_eq(fx.started, 2);
	set_gate("api", JOBTABLE_GO, NULL);
	jobtable_recheck(fx.jt);
	ck_assert(run_until(starts_reached, &three, 5000));
	wait_done(api);

	/* So does the restart policy's timer. */
	memset(&spec, 0, sizeof spec);
	spec.name = "flaky";
	spec.restart = JOB_RESTART_ON_FAILURE;
	spec.restart_delay_ms = 20;
	spec.max_restarts = -1;
	job = spawn_full(&spec, "exit 1");
	wait_done(job);
	set_gate("flaky", JOBTABLE_WAIT, "db (ready)");
	ck_assert(run_until(is_running, job, 300) == 0);
	ck_assert_int_eq(job_state(job), JOB_WAITING);
	ck_assert_int_eq(job_starts(job), 1);
}
END_TEST

/*
 * The policy's FAIL ends a job failed with the reason as its start error,
 * and its exit is told, so the dependants fail in turn: a recheck from
 * the exit callback (re-entering a recheck) reaches each of them.
 */
START_TEST(test_gate_fail_chain)
{
	struct job_spec	 spec;
	struct job	*db, *api, *web, *job;
	int		 three = 3;

	jobtable_set_policy(fx.jt, &test_policy, &fx);
	fx.chain = 1;
	set_gate("api", JOBTABLE_WAIT, "db (ready)");
	set_gate("web", JOBTABLE_WAIT, "api (ready)");
	memset(&spec, 0, sizeof spec);
	spec.name = "db";
	db = spawn_full(&spec, "sleep 0.2; exit 1");
	spec.name = "api";
	api = spawn_full(&spec, "echo never-api.");
	spec.name = "web";
	web = spawn_full(&spec, "echo never-web.");
	ck_assert(run_until(exits_reached, &three, 5000));
	ck_assert_ptr_eq(fx.exited_jobs[0], db);
	ck_assert_ptr_eq(fx.exited_jobs[1], api);
	ck_assert_ptr_eq(fx.exited_jobs[2], web);
	ck_assert_int_eq(job_state(api), JOB_BLOCKED);
	ck_assert_int_eq(job_state(web), JOB_BLOCKED);
	/* Blocked: it never ran, so it has no exit status; code 125. */
	ck_assert_int_eq(job_end_status(api), WAITSTATUS_NONE);
	ck_assert_int_eq(job_end_code(api), WAITSTATUS_NOT_RUN);
	ck_assert_str_eq(job_start_error(web), "api never started (blocked)");
	assert_text_line(api, "jobdeck: blocked: db exited before it was "
	    "ready (exit 1)");
	assert_text_line(web, "jobdeck: blocked: api never started "
	    "(blocked)");
	ck_assert_int_eq(fx.started, 1);
	ck_assert(!output_has("never-"));

	/* A new job the policy fails: told of as new, then as ended. */
	set_gate("x", JOBTABLE_FAIL, "db failed (exit 1)");
	spec.name = "x";
	job = spawn_full(&spec, "echo never-x.");
	ck_assert_int_eq(job_state(job), JOB_BLOCKED);
	ck_assert_int_eq(fx.queued, 2 + 1);
	ck_assert_int_eq(fx.exited, 4);
	assert_text_line(job, "jobdeck: blocked: db failed (exit 1)");
}
END_TEST

/* A waiting job can be killed: canceled, never started, then removable. */
START_TEST(test_kill_waiting)
{
	struct job_spec	 spec;
	struct job	*job;
	char		*cause = NULL;

	jobtable_set_policy(fx.jt, &test_policy, &fx);
	set_gate("api", JOBTABLE_WAIT, "db (ready)");
	memset(&spec, 0, sizeof spec);
	spec.name = "api";
	job = spawn_full(&spec, "echo never.");
	ck_assert_int_eq(job_state(job), JOB_WAITING);
	ck_assert_int_eq(jobtable_kill(fx.jt, job, SIGTERM), 0);
	ck_assert_int_eq(job_state(job), JOB_CANCELED);
	ck_assert_int_eq(fx.exited, 1);
	ck_assert_int_eq(jobtable_kill(fx.jt, job, SIGUSR1), -1);
	set_gate("api", JOBTABLE_GO, NULL);
	jobtable_recheck(fx.jt);
	run_for(200);
	ck_assert_int_eq(fx.started, 0);
	ck_assert(!output_has("never."));
	ck_assert_int_eq(jobtable_remove(fx.jt, job, &cause), 0);
	ck_assert_int_eq(jobtable_count(fx.jt), 0);
}
END_TEST

/*
 * kill_all with a stop order: db is held (still running) while api,
 * which takes its time to stop, runs; db stops once api has ended; a
 * waiting job is canceled at once.  The exits come in that order.
 */
START_TEST(test_kill_all_order)
{
	struct job_spec	 spec;
	struct job	*db, *api, *late;
	int		 three = 3;

	jobtable_set_policy(fx.jt, &test_policy, &fx);
	memset(&spec, 0, sizeof spec);
	spec.name = "db";
	db = spawn_full(&spec, "echo db-up.; while :; do sleep 0.05; done");
	spec.name = "api";
	api = spawn_full(&spec, "trap 'sleep 0.3; echo api-bye.; exit 0' "
	    "TERM; echo api-up.; while :; do sleep 0.05; done");
	set_gate("late", JOBTABLE_WAIT, "api (ready)");
	spec.name = "late";
	late = spawn_full(&spec, "echo never.");
	fx.hold = db;
	fx.until = api;
	ck_assert(run_until(output_has, "db-up.", 5000));
	ck_assert(run_until(output_has, "api-up.", 5000));

	ck_assert_int_eq(jobtable_kill_all(fx.jt), 3);
	ck_assert_int_eq(job_state(late), JOB_CANCELED);
	ck_assert_int_eq(fx.exited, 1);
	ck_assert(job_is_running(db));
	ck_assert(jobtable_busy(fx.jt));
	ck_assert(run_until(exits_reached, &three, 5000));
	ck_assert_ptr_eq(fx.exited_jobs[0], late);
	ck_assert_ptr_eq(fx.exited_jobs[1], api);
	ck_assert_ptr_eq(fx.exited_jobs[2], db);
	ck_assert_int_eq(job_state(api), JOB_CANCELED);
	ck_assert_int_eq(job_state(db), JOB_CANCELED);
	ck_assert(output_has("api-bye."));
	ck_assert(run_until(not_busy, NULL, 5000));
}
END_TEST

/* A policy that never lets go: once only held jobs run, they all stop. */
START_TEST(test_kill_all_held_forever)
{
	struct job_spec	 spec;
	struct job	*a, *b;

	jobtable_set_policy(fx.jt, &test_policy, &fx);
	fx.hold_all = 1;
	memset(&spec, 0, sizeof spec);
	a = spawn_full(&spec, "sleep 30");
	b = spawn_full(&spec, "sleep 30");
	ck_assert_int_eq(jobtable_kill_all(fx.jt), 2);
	wait_done(a);
	wait_done(b);
	ck_assert_int_eq(job_state(a), JOB_CANCELED);
	ck_assert_int_eq(job_state(b), JOB_CANCELED);
}
END_TEST

/*
 * stop_signal: a stop (SIGTERM asked for) sends SIGINT, which the job's
 * trap sees; an explicit other signal is sent as asked.
 */
START_TEST(test_stop_signal)
{
	struct job_spec	 spec;
	struct job	*job;
	const char	*cmd = "trap 'echo got INT; exit 0' INT; "
	    "trap 'echo got TERM; exit 0' TERM; "
	    "trap 'echo got HUP; exit 0' HUP; "
	    "echo up.; while :; do sleep 0.05; done";
	int		 one = 1, two = 2;

	jobtable_set_grace(fx.jt, 10000);
	memset(&spec, 0, sizeof spec);
	spec.stop_signal = SIGINT;
	job = spawn_full(&spec, cmd);
	ck_assert_int_eq(job_spec(job)->stop_signal, SIGINT);
	ck_assert(run_until(ups_reached, &one, 5000));
	ck_assert_int_eq(jobtable_kill(fx.jt, job, SIGTERM), 0);
	wait_done(job);
	ck_assert_msg(output_has("got INT"), "output: %s", fx.out);
	ck_assert(!output_has("got TERM"));
	ck_assert_int_eq(job_state(job), JOB_CANCELED);

	job = spawn_full(&spec, cmd);
	ck_assert(run_until(ups_reached, &two, 5000));
	ck_assert_int_eq(jobtable_kill(fx.jt, job, SIGHUP), 0);
	wait_done(job);
	ck_assert_msg(output_has("got HUP"), "output: %s", fx.out);
	ck_assert_int_eq(output_count("got INT"), 1);
}
END_TEST

/*
 * stop_command runs instead of a signal, in the job's cwd and with its
 * environment, its output shown as the job's; the job ends by itself
 * (long before the grace).  One that fails is followed by the signal.
 */
START_TEST(test_stop_command)
{
	struct job_spec	 spec;
	struct job	*job;
	char		*cause = NULL, path[128];
	char		*env[] = { "PATH=/usr/bin:/bin", "LC_ALL=C",
	    "STOPWORD=halt", NULL };
	struct stat	 sb;
	int		 one = 1, two = 2;

	jobtable_set_grace(fx.jt, 20000);
	memset(&spec, 0, sizeof spec);
	spec.command = "echo up.; while [ ! -e stop.flag ]; do sleep 0.05; "
	    "done; echo saw-flag.";
	spec.shell = "/bin/sh";
	spec.envp = env;
	spec.cwd = fx.dir;
	spec.stop_command = "echo \"stop-cmd $STOPWORD.\"; touch stop.flag";
	job = jobtable_spawn(fx.jt, &spec, &cause);
	ck_assert_msg(job != NULL, "spawn: %s", cause);
	ck_assert_ptr_ne(job_spec(job)->stop_command, spec.stop_command);
	ck_assert_str_eq(job_spec(job)->stop_command, spec.stop_command);
	ck_assert(run_until(ups_reached, &one, 5000));
	ck_assert_int_eq(jobtable_kill(fx.jt, job, SIGTERM), 0);
	wait_done(job);
	ck_assert_int_eq(job_state(job), JOB_CANCELED);
	ck_assert(WIFEXITED(job_end_status(job)));
	ck_assert_int_eq(WEXITSTATUS(job_end_status(job)), 0);
	ck_assert_msg(output_has("saw-flag."), "output: %s", fx.out);
	snprintf(path, sizeof path, "%s/stop.flag", fx.dir);
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert(run_until(not_busy, NULL, 5000));
	assert_text_line(job, "stop-cmd halt.");

	/* It fails: the stop signal goes at once. */
	spec.command = "echo up.; while :; do sleep 0.05; done";
	spec.stop_command = "exit 3";
	job = jobtable_spawn(fx.jt, &spec, &cause);
	ck_assert_msg(job != NULL, "spawn: %s", cause);
	ck_assert(run_until(ups_reached, &two, 5000));
	ck_assert_int_eq(jobtable_kill(fx.jt, job, SIGTERM), 0);
	wait_done(job);
	ck_assert_int_eq(job_state(job), JOB_CANCELED);
	ck_assert(WIFSIGNALED(job_end_status(job)));
	ck_assert_int_eq(WTERMSIG(job_end_status(job)), SIGTERM);
}
END_TEST

/* stop_timeout replaces the deck's grace: SIGKILL comes after it. */
START_TEST(test_stop_timeout)
{
	struct job_spec	 spec;
	struct job	*job;
	int64_t		 t0;
	int		 one = 1;

	jobtable_set_grace(fx.jt, 20000);
	memset(&spec, 0, sizeof spec);
	spec.stop_timeout_ms = 300;
	job = spawn_full(&spec, "trap '' TERM; echo up.; "
	    "while :; do sleep 0.05; done");
	ck_assert_int_eq(job_spec(job)->stop_timeout_ms, 300);
	ck_assert(run_until(ups_reached, &one, 5000));
	t0 = loop_now_ms();
	ck_assert_int_eq(jobtable_kill(fx.jt, job, SIGTERM), 0);
	wait_done(job);
	ck_assert_int_ge(loop_now_ms() - t0, 300);
	ck_assert(WIFSIGNALED(job_end_status(job)));
	ck_assert_int_eq(WTERMSIG(job_end_status(job)), SIGKILL);

	/* Unset (0 or -1): the deck's grace. */
	spec.stop_timeout_ms = 0;
	job = spawn_full(&spec, "true");
	ck_assert_int_eq(job_spec(job)->stop_timeout_ms, -1);
}
END_TEST

/*
 * A group limit of 2: of 4 jobs of group g, 2 run and 2 wait queued, and
 * never more than 2 run at once; a job of no group is not held by it.  A
 * queued job whose group is full does not block the one behind it.
 */
START_TEST(test_group_limit)
{
	struct job_spec	 spec;
	struct job	*g[4], *free_job, *g1, *g2, *x1, *x2;
	int		 i;

	jobtable_set_group_limit(fx.jt, "g", 2);
	memset(&spec, 0, sizeof spec);
	spec.group = "g";
	for (i = 0; i < 4; i++)
		g[i] = spawn_full(&spec, "sleep 0.3");
	ck_assert_ptr_ne(job_spec(g[0])->group, spec.group);
	ck_assert_str_eq(job_spec(g[0])->group, "g");
	ck_assert_int_eq(job_state(g[0]), JOB_RUNNING);
	ck_assert_int_eq(job_state(g[1]), JOB_RUNNING);
	ck_assert_int_eq(job_state(g[2]), JOB_QUEUED);
	ck_assert_int_eq(job_state(g[3]), JOB_QUEUED);
	spec.group = NULL;
	free_job = spawn_full(&spec, "true");
	ck_assert_int_eq(job_state(free_job), JOB_RUNNING);
	for (i = 0; i < 4; i++)
		wait_done(g[i]);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(job_state(g[i]), JOB_COMPLETED);
	ck_assert_int_eq(fx.started_group, 2);

	/* max_running 2, g's limit 1: g2 waits for g1, x2 goes past it. */
	jobtable_set_group_limit(fx.jt, "g", 1);
	jobtable_set_max_running(fx.jt, 2);
	spec.group = "g";
	g1 = spawn_full(&spec, "sleep 30");
	spec.group = NULL;
	x1 = spawn_full(&spec, "sleep 0.2");
	spec.group = "g";
	g2 = spawn_full(&spec, "sleep 30");
	spec.group = NULL;
	x2 = spawn_full(&spec, "sleep 30");
	ck_assert_int_eq(job_state(g2), JOB_QUEUED);
	ck_assert_int_eq(job_state(x2), JOB_QUEUED);
	wait_done(x1);
	ck_assert_int_eq(job_state(x2), JOB_RUNNING);
	ck_assert_int_eq(job_state(g2), JOB_QUEUED);
	/* No limit any more: g2 is still held by max_running. */
	jobtable_set_group_limit(fx.jt, "g", 0);
	ck_assert_int_eq(job_state(g2), JOB_QUEUED);
	jobtable_set_max_running(fx.jt, 0);
	ck_assert_int_eq(job_state(g2), JOB_RUNNING);
	ck_assert_int_eq(job_state(g1), JOB_RUNNING);
}
END_TEST

/* The queue starts the highest priority first, then first come. */
START_TEST(test_priority_queue)
{
	struct job_spec	 spec;
	struct job	*a, *b, *c, *d, *e;
	int		 five = 5;

	jobtable_set_max_running(fx.jt, 1);
	memset(&spec, 0, sizeof spec);
	a = spawn_full(&spec, "sleep 0.2");
	b = spawn_full(&spec, "true");
	spec.priority = 5;
	c = spawn_full(&spec, "true");
	spec.priority = 0;
	d = spawn_full(&spec, "true");
	spec.priority = 5;
	e = spawn_full(&spec, "true");
	ck_assert_int_eq(job_state(e), JOB_QUEUED);
	ck_assert_int_eq(job_spec(e)->priority, 5);
	ck_assert(run_until(starts_reached, &five, 5000));
	wait_done(b);
	ck_assert_ptr_eq(fx.started_jobs[0], a);
	ck_assert_ptr_eq(fx.started_jobs[1], c);
	ck_assert_ptr_eq(fx.started_jobs[2], e);
	ck_assert_ptr_eq(fx.started_jobs[3], b);
	ck_assert_ptr_eq(fx.started_jobs[4], d);
}
END_TEST

/*
 * Backoff: the restart delay doubles for each restart in a row up to its
 * cap; a run longer than the cap starts the count again (the next run is
 * the first of a new series).  Runs 1 and 2 fail at once, run 3 lasts
 * longer than the cap, runs 4 and 5 fail at once and run 6 succeeds: the
 * waits are at least 50, 100, (stable) 50, 50, 100 ms.
 */
START_TEST(test_backoff)
{
	struct job_spec	 spec;
	struct job	*job;
	char		*cmd;
	int		 six = 6, ten = 10;
	int64_t		 want[] = { 50, 100, 50, 50, 100 };
	int		 i;

	memset(&spec, 0, sizeof spec);
	spec.restart = JOB_RESTART_ON_FAILURE;
	spec.restart_delay_ms = 50;
	/*
	 * A run longer than the cap is stable: the cap is far above what a
	 * quick run takes on a busy machine, the third run far above it.
	 */
	spec.restart_delay_max_ms = 1000;
	spec.max_restarts = -1;
	spec.cwd = fx.dir;
	cmd = "n=$(cat count 2>/dev/null || echo 0); n=$((n + 1)); "
	    "echo $n > count; echo run-$n.; "
	    "if [ $n -eq 3 ]; then sleep 1.5; fi; [ $n -eq 6 ]";
	job = spawn_full(&spec, cmd);
	ck_assert_int_eq(job_spec(job)->restart_delay_max_ms, 1000);
	ck_assert(run_until(exits_reached, &six, 15000));
	run_for(300);
	ck_assert_msg(fx.started == 6, "%d starts: output %s", fx.started,
	    fx.out);
	for (i = 0; i < 5; i++)
		ck_assert_msg(fx.started_at[i + 1] - fx.exited_at[i] >=
		    want[i], "restart %d after %lld ms, want %lld", i + 1,
		    (long long)(fx.started_at[i + 1] - fx.exited_at[i]),
		    (long long)want[i]);
	/* The stable third run started the count again: 3 starts since. */
	ck_assert_int_eq(job_starts(job), 3);
	ck_assert_int_eq(job_restart_delay_ms(job), 200);
	ck_assert_int_eq(job_state(job), JOB_COMPLETED);

	/* The doubling stops at the cap: 300, 600, then 700. */
	spec.restart_delay_ms = 300;
	spec.restart_delay_max_ms = 700;
	spec.max_restarts = 3;
	job = spawn_full(&spec, "exit 1");
	ck_assert(run_until(exits_reached, &ten, 15000));
	run_for(300);
	ck_assert_int_eq(job_starts(job), 4);
	ck_assert_int_eq(job_restart_delay_ms(job), 700);
	ck_assert_int_ge(fx.started_at[7] - fx.exited_at[6], 300);
	ck_assert_int_ge(fx.started_at[8] - fx.exited_at[7], 600);
	ck_assert_int_ge(fx.started_at[9] - fx.exited_at[8], 700);

	/* No cap above the delay: no growth. */
	spec.restart_delay_ms = 50;
	spec.restart_delay_max_ms = 0;
	spec.restart = JOB_RESTART_NO;
	job = spawn_full(&spec, "true");
	wait_done(job);
	ck_assert_int_eq(job_restart_delay_ms(job), 50);
}
END_TEST

/*
 * jobtable_fail: the job is stopped (its trap exits 0) yet ends failed,
 * with the reason as its note, and its on-failure policy runs it again,
 * with no readiness yet; the user's kill still cancels.  A waiting job
 * fails at once; an ended one cannot.
 */
START_TEST(test_fail_restarts)
{
	struct job_spec	 spec;
	struct job	*job;
	int		 one = 1, two = 2, changed;

	jobtable_set_grace(fx.jt, 10000);
	memset(&spec, 0, sizeof spec);
	spec.restart = JOB_RESTART_ON_FAILURE;
	spec.restart_delay_ms = 50;
	spec.max_restarts = -1;
	job = spawn_full(&spec, "trap 'echo bye.; exit 0' TERM; echo up.; "
	    "while :; do sleep 0.05; done");
	ck_assert(run_until(ups_reached, &one, 5000));
	job_set_ready(job, JOB_READY_YES);
	changed = fx.changed;
	ck_assert_int_eq(jobtable_fail(fx.jt, job, "liveness: refused"), 0);
	ck_assert_str_eq(job_note(job), "liveness: refused");
	ck_assert_int_eq(fx.changed, changed + 1);
	ck_assert(run_until(exits_reached, &one, 5000));
	ck_assert(output_has("bye."));
	ck_assert_int_eq(job_state(fx.exited_jobs[0]), JOB_FAILED);
	ck_assert(WIFEXITED(job_end_status(job)));
	ck_assert_int_eq(WEXITSTATUS(job_end_status(job)), 0);
	ck_assert(run_until(starts_reached, &two, 5000));
	ck_assert_int_eq(job_state(job), JOB_RUNNING);
	ck_assert_int_eq(job_ready(job), JOB_READY_NONE);
	ck_assert(run_until(ups_reached, &two, 5000));

	/* The user's kill: canceled, not run again. */
	ck_assert_int_eq(jobtable_kill(fx.jt, job, SIGTERM), 0);
	wait_done(job);
	run_for(200);
	ck_assert_int_eq(job_state(job), JOB_CANCELED);
	ck_assert_int_eq(fx.started, 2);
	ck_assert_int_eq(jobtable_fail(fx.jt, job, "late"), -1);

	/* A waiting job fails at once, the reason its start error. */
	jobtable_set_policy(fx.jt, &test_policy, &fx);
	set_gate("w", JOBTABLE_WAIT, "db (ready)");
	spec.name = "w";
	spec.restart = JOB_RESTART_NO;
	job = spawn_full(&spec, "echo never.");
	ck_assert_int_eq(jobtable_fail(fx.jt, job, "db never ready"), 0);
	ck_assert_int_eq(job_state(job), JOB_FAILED);
	assert_text_line(job, "jobdeck: db never ready");
}
END_TEST

/*
 * A restarted job goes on on the same screen under a mark line of its
 * run, on a line of its own after the last run's partial line, while the
 * store keeps each run's bytes exactly; the job remembers its runs, and
 * on pipes (_i 1) the new run's lines start at column 0 too.
 */
START_TEST(test_run_marks)
{
	struct job	*job;
	struct vt	*vt;
	char		*cause = NULL, *t, *log, mark[JOB_MARK_MAX];
	char		 id1[STORE_ID_LEN + 1];
	const char	*id2;
	size_t		 len;
	int		 no, i, n, found = -1;

	job = spawn_spec("printf 'one\\ntwo'; exit 1", NULL, _i, fx.dir, 100);
	wait_done(job);
	ck_assert_ptr_nonnull(job_run_id(job));
	snprintf(id1, sizeof id1, "%s", job_run_id(job));
	ck_assert_int_eq(jobtable_restart(fx.jt, job, &cause), 0);
	wait_done(job);
	id2 = job_run_id(job);
	ck_assert_str_ne(id1, id2);

	ck_assert_int_eq(job_run_count(job), 2);
	ck_assert_str_eq(job_run_nth(job, 0, &no), id1);
	ck_assert_int_eq(no, 1);
	ck_assert_str_eq(job_run_nth(job, 1, &no), id2);
	ck_assert_int_eq(no, 2);
	ck_assert_ptr_null(job_run_nth(job, 2, &no));

	/* one, two, the mark, one, two: nothing joined, nothing lost. */
	vt = job_vt(job);
	ck_assert_ptr_nonnull(vt);
	n = vt_text_count(vt);
	for (i = 0; i < n && found < 0; i++) {
		t = vt_text_line(vt, i);
		if (t != NULL && strncmp(t, "── run 2 · ", 13) == 0)
			found = i;
		free(t);
	}
	ck_assert_msg(found >= 2, "no mark of run 2");
	job_format_run_mark(2, job_start_time(job), 1 << 8, mark,
	    sizeof mark);
	t = vt_text_line(vt, found);
	ck_assert_str_eq(t, mark);
	ck_assert_ptr_nonnull(strstr(t, " · restarted (exited 1) ──"));
	free(t);
	t = vt_text_line(vt, found - 1);
	ck_assert_str_eq(t, "two");
	free(t);
	t = vt_text_line(vt, found + 1);
	ck_assert_str_eq(t, "one");
	free(t);
	t = vt_text_line(vt, found + 2);
	ck_assert_str_eq(t, "two");
	free(t);

	/* The store has the program's bytes, no mark. */
	log = slurp(run_out(job), &len);
	if (_i == 0) {
		ck_assert_uint_eq(len, 8);
		ck_assert_int_eq(memcmp(log, "one\r\ntwo", 8), 0);
	} else {
		ck_assert_uint_eq(len, 7);
		ck_assert_int_eq(memcmp(log, "one\ntwo", 7), 0);
	}
	free(log);
}
END_TEST

/* What a stream subscriber was told: bytes and ends, per stream. */
struct streams {
	char		 buf[3][256];	/* the first bytes: tty, stdout, stderr */
	size_t		 len[3];
	size_t		 total[3];
	int		 ends[3];	/* len 0: told at its end */
	struct job	*job;
};

/* The stream callback: keep the first bytes, count all and the ends. */
static void
on_stream(struct job *job, enum store_stream which, const char *buf,
    size_t len, void *arg)
{
	struct streams	*st = arg;
	size_t		 room, i = which == STORE_STDERR ? 2 :
			    which == STORE_STDOUT ? 1 : 0;

	if (job != st->job)
		return;
	if (len == 0) {
		st->ends[i]++;
		return;
	}
	room = sizeof st->buf[i] - 1 - st->len[i];
	memcpy(st->buf[i] + st->len[i], buf, len < room ? len : room);
	st->len[i] += len < room ? len : room;
	st->buf[i][st->len[i]] = '\0';
	st->total[i] += len;
}

static const struct jobtable_cbs stream_cbs = {
	.stream = on_stream,
};

/*
 * Spawn command on pipes, stderr apart, with opts's options (a spec's,
 * copied), told to a fresh st.
 */
static struct job *
spawn_split(struct streams *st, const char *command,
    const struct job_spec *opts)
{
	struct job_spec	 spec = *opts;

	memset(st, 0, sizeof *st);
	ck_assert_int_ge(jobtable_subscribe(fx.jt, &stream_cbs, st), 0);
	spec.no_pty = 1;
	st->job = spawn_full(&spec, command);
	ck_assert_int_eq(job_state(st->job), JOB_RUNNING);
	return st->job;
}

/*
 * On pipes each piece comes with its stream, and each stream's end once;
 * no_term leaves TERM out of the environment, no_screen makes no
 * emulator, while a job without them gets both.
 */
START_TEST(test_stream_split)
{
	struct streams	 st, plain;
	struct job_spec	 bare = { .input_eof = 1, .no_term = 1,
			    .no_screen = 1 }, deck = { .input_eof = 1 };
	struct job	*job;

	job = spawn_split(&st, "echo \"term=$TERM\"; echo err >&2", &bare);
	wait_done(job);
	ck_assert_str_eq(st.buf[1], "term=\n");
	ck_assert_str_eq(st.buf[2], "err\n");
	ck_assert_uint_eq(st.total[0], 0);
	ck_assert_int_eq(st.ends[1], 1);
	ck_assert_int_eq(st.ends[2], 1);
	ck_assert_int_eq(st.ends[0], 0);
	ck_assert_ptr_null(job_vt(job));
	ck_assert_int_eq(job_end_code(job), 0);

	job = spawn_split(&plain, "echo \"term=$TERM\"", &deck);
	wait_done(job);
	ck_assert_str_eq(plain.buf[1], "term=xterm-256color\n");
	ck_assert_ptr_nonnull(job_vt(job));
}
END_TEST

/*
 * An ended job's stdout at its end while something it left still holds
 * its stderr: the table goes on with the loop (it spun reading the empty
 * pipe before, never getting to stop the leftover), stops the leftover
 * at the leader's exit, takes what it writes as it goes, and the output
 * is over once stderr ends too.
 */
START_TEST(test_stderr_outlives_stdout)
{
	struct streams	 st;
	struct job_spec	 spec = { .input_eof = 1 };
	struct job	*job;
	char		 cmd[PATH_MAX + 160];

	/* The leader exits once the leftover's trap is set. */
	snprintf(cmd, sizeof cmd, "exec >&-; (trap 'echo late >&2; exit 0' "
	    "TERM; : >%s/trap; while :; do sleep 0.1; done) & "
	    "until [ -e %s/trap ]; do sleep 0.01; done", fx.dir, fx.dir);
	job = spawn_split(&st, cmd, &spec);
	wait_done(job);
	ck_assert_msg(strstr(st.buf[2], "late\n") != NULL, "%s", st.buf[2]);
	ck_assert_int_eq(st.ends[1], 1);
	ck_assert_int_eq(st.ends[2], 1);
	ck_assert_int_eq(job_state(job), JOB_COMPLETED);
}
END_TEST

/* Whether the stream subscriber has seen stdout's end. */
static int
stdout_ended(void *arg)
{
	struct streams	*st = arg;

	return st->ends[1] > 0;
}

/*
 * A paused stream is not read, so a child writing more than a pipe holds
 * waits on it (and cannot end); resumed, all of it comes, and the end.
 */
START_TEST(test_pause_output)
{
	struct streams	 st;
	struct job_spec	 spec = { .input_eof = 1, .no_screen = 1 };
	struct job	*job;

	job = spawn_split(&st, "head -c 300000 /dev/zero; echo done >&2",
	    &spec);
	jobtable_pause_output(fx.jt, job, STORE_STDOUT, 1);
	run_for(500);
	ck_assert_uint_eq(st.total[1], 0);
	ck_assert_uint_eq(st.total[2], 0);
	ck_assert(job_is_running(job));
	jobtable_pause_output(fx.jt, job, STORE_STDOUT, 0);
	wait_done(job);
	ck_assert_uint_eq(st.total[1], 300000);
	ck_assert_str_eq(st.buf[2], "done\n");
	ck_assert_int_eq(st.ends[1], 1);
	ck_assert_int_eq(job_end_code(job), 0);
}
END_TEST

/*
 * job_close_stream() closes stdout as a reader going away would: the
 * writer dies of SIGPIPE, the stream is told at its end, stderr goes on.
 */
START_TEST(test_close_stream)
{
	struct streams	 st;
	struct job_spec	 spec = { .input_eof = 1, .no_screen = 1 };
	struct job	*job;

	job = spawn_split(&st, "echo first >&2; exec yes", &spec);
	ck_assert_int_eq(job_close_stream(job, STORE_STDOUT), 0);
	ck_assert(run_until(stdout_ended, &st, 5000));
	wait_done(job);
	ck_assert(WIFSIGNALED(job_exit_status(job)));
	ck_assert_int_eq(WTERMSIG(job_exit_status(job)), SIGPIPE);
	ck_assert_str_eq(st.buf[2], "first\n");
	ck_assert_int_eq(st.ends[2], 1);
	errno = 0;
	ck_assert_int_eq(job_close_stream(job, STORE_STDOUT), -1);
	ck_assert_int_eq(errno, EBADF);
}
END_TEST

/*
 * job_take_in_fd() hands the stdin pipe over (of a job with no input of
 * its own to write): the caller writes it and closes it, and the job
 * forgets it.
 */
START_TEST(test_take_in_fd)
{
	struct streams	 st;
	struct job_spec	 spec = { .no_screen = 1 };
	struct job	*job;
	int		 fd;

	job = spawn_split(&st, "cat", &spec);
	fd = job_take_in_fd(job);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(job_in_fd(job), -1);
	ck_assert_int_eq(job_take_in_fd(job), -1);
	ck_assert_int_eq(write(fd, "given\n", 6), 6);
	close(fd);
	wait_done(job);
	ck_assert_str_eq(st.buf[1], "given\n");
	ck_assert_int_eq(job_end_code(job), 0);
}
END_TEST

/*
 * own_leftovers: what the leader leaves is not stopped at its exit (the
 * owner's to stop); without it, it gets SIGTERM at once.
 */
START_TEST(test_own_leftovers)
{
	struct streams	 st;
	struct job_spec	 spec = { .input_eof = 1, .own_leftovers = 1 };
	struct job	*job, *other;

	job = spawn_split(&st, "sleep 30 >/dev/null 2>&1 & exit 0", &spec);
	ck_assert(run_until(all_reaped, NULL, 5000));
	run_for(500);
	ck_assert(job_lingers(job));
	ck_assert(!proc_stopping(job_proc(job)));
	proc_stop(job_proc(job), SIGTERM, 1000);
	ck_assert(run_until(job_gone, job, 5000));

	spec.own_leftovers = 0;
	spec.no_pty = 1;
	other = spawn_full(&spec, "sleep 30 >/dev/null 2>&1 & exit 0");
	ck_assert(run_until(all_reaped, NULL, 5000));
	ck_assert(proc_stopping(job_proc(other)) || !job_lingers(other));
	ck_assert(run_until(job_gone, other, 5000));
}
END_TEST

static Suite *
job_suite(void)
{
	Suite	*s = suite_create("job");
	TCase	*tc;

	tc = tcase_create("run");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_unchecked_fixture(tc, NULL, kill_leftovers);
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_echo_hello);
	tcase_add_loop_test(tc, test_exit_table, 0,
	    (int)(sizeof end_cases / sizeof end_cases[0]));
	tcase_add_test(tc, test_missing_program);
	tcase_add_test(tc, test_find);
	tcase_add_test(tc, test_output_left_in_pty);
	tcase_add_test(tc, test_reap_reads_rest);
	tcase_add_test(tc, test_pipe_fallback);
	tcase_add_loop_test(tc, test_input, 0, 2);
	tcase_add_loop_test(tc, test_waits_input, 0,
	    (int)(sizeof wait_cases / sizeof wait_cases[0]));
	tcase_add_loop_test(tc, test_not_waiting, 0,
	    (int)(sizeof busy_cases / sizeof busy_cases[0]));
	tcase_add_test(tc, test_pipe_not_probed);
	tcase_add_test(tc, test_no_inherited_fds);
	tcase_add_test(tc, test_pty_size);
	tcase_add_test(tc, test_pty_winch);
	tcase_add_test(tc, test_closed_streams_not_hung_up);
	tcase_add_test(tc, test_sigint_is_canceled);
	tcase_add_test(tc, test_stream_split);
	tcase_add_test(tc, test_stderr_outlives_stdout);
	tcase_add_test(tc, test_pause_output);
	tcase_add_test(tc, test_close_stream);
	tcase_add_test(tc, test_take_in_fd);
	tcase_add_test(tc, test_own_leftovers);
	suite_add_tcase(s, tc);

	tc = tcase_create("kill");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_unchecked_fixture(tc, NULL, kill_leftovers);
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_kill_term);
	tcase_add_test(tc, test_kill_just_spawned);
	tcase_add_test(tc, test_kill_grace);
	tcase_add_test(tc, test_kill_background_child);
	tcase_add_test(tc, test_kill_grace_after_removal);
	tcase_add_test(tc, test_input_bounded);
	tcase_add_test(tc, test_kill_all_at_once);
	suite_add_tcase(s, tc);

	tc = tcase_create("contain");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_unchecked_fixture(tc, NULL, kill_leftovers);
	tcase_set_timeout(tc, 15);
	tcase_add_loop_test(tc, test_contain_kill, 0, 2);
	tcase_add_loop_test(tc, test_contain_kill_all, 0, 2);
	tcase_add_test(tc, test_contain_done);
	tcase_add_test(tc, test_contain_restart);
	tcase_add_test(tc, test_contain_usage);
	tcase_add_test(tc, test_contain_stopped);
	suite_add_tcase(s, tc);

	tc = tcase_create("policy");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_unchecked_fixture(tc, NULL, kill_leftovers);
	tcase_set_timeout(tc, 15);
	tcase_add_test(tc, test_argv_no_shell);
	tcase_add_test(tc, test_timeout);
	tcase_add_test(tc, test_restart_on_failure);
	tcase_add_test(tc, test_restart_always_until_killed);
	tcase_add_test(tc, test_max_running_queue);
	tcase_add_test(tc, test_spec_input);
	tcase_add_test(tc, test_keep_finished);
	tcase_add_test(tc, test_user_restart);
	tcase_add_test(tc, test_kill_cancels_restart);
	tcase_add_test(tc, test_restart_name_in_use);
	tcase_add_test(tc, test_keep_finished_late_output);
	tcase_add_test(tc, test_keep_finished_leftover_gone);
	suite_add_tcase(s, tc);

	tc = tcase_create("stack");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_unchecked_fixture(tc, NULL, kill_leftovers);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_gate_wait_recheck);
	tcase_add_test(tc, test_gate_fail_chain);
	tcase_add_test(tc, test_kill_waiting);
	tcase_add_test(tc, test_kill_all_order);
	tcase_add_test(tc, test_kill_all_held_forever);
	tcase_add_test(tc, test_stop_signal);
	tcase_add_test(tc, test_stop_command);
	tcase_add_test(tc, test_stop_timeout);
	tcase_add_test(tc, test_group_limit);
	tcase_add_test(tc, test_priority_queue);
	tcase_add_test(tc, test_backoff);
	tcase_add_test(tc, test_fail_restarts);
	suite_add_tcase(s, tc);

	tc = tcase_create("log");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_unchecked_fixture(tc, NULL, kill_leftovers);
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_text_from_log);
	tcase_add_test(tc, test_no_scrollback);
	tcase_add_test(tc, test_text_tail);
	tcase_add_test(tc, test_log_raw_bytes);
	tcase_add_loop_test(tc, test_text_since, 0, 2);
	tcase_add_test(tc, test_text_program_lines);
	tcase_add_loop_test(tc, test_run_marks, 0, 2);
	tcase_add_test(tc, test_reader_store);
	tcase_add_test(tc, test_reader_vt);
	tcase_add_loop_test(tc, test_reader_refresh, 0, 2);
	tcase_add_test(tc, test_reader_damaged);
	tcase_add_test(tc, test_reader_altscreen);
	tcase_add_test(tc, test_reader_not_started);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite as a subreaper; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr;
	int	 failed;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
		perror("check_job: PR_SET_CHILD_SUBREAPER");
	sr = srunner_create(job_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
