/*
 * check_proc.c: the supervisor with real children on a real loop: the
 * reaper tells a leader's exit (its status), stop and continue, and
 * reaps strays and freed processes unheard; a stop sends its signal (and
 * SIGCONT to a stopped group), SIGKILL after the grace (killed told);
 * proc_end() tells gone once the group's leftovers are killed and reaped,
 * on the reaper's own turn (the bound is far beyond the test's limit);
 * escapees are reached by the marker and by a cgroup (as root, where one
 * can be made: a "SKIP: " line otherwise); proc_release() kills what is
 * left in the containment; proc_finish() stops and waits without the
 * loop.  A held leader (proc_hold()) is told exited but stays a zombie
 * of ours until proc_finish() while the reaper reaps the others by pid,
 * and, where /proc lists no child (hidden in a mount namespace of the
 * test's, as root), by waitpid(-1) all the same.  The test process is a
 * child subreaper, as a deck is.
 */
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <check.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "loop.h"
#include "proc.h"
#include "pty.h"
#include "skip.h"
#include "testdir.h"
#include "testproc.h"

#define WAIT_MS		20000	/* a generous bound on what is awaited */
#define NEVER_MS	600000	/* a bound no test waits for */
#define ESC_EXEC_ROUNDS	40	/* test_escapee_in_exec's escapees */

/* What a supervised process told. */
struct seen {
	int	exited;
	int	status;
	int	stops;		/* stopped(1) told */
	int	conts;		/* stopped(0) told */
	int	killed;
	int	gone;
	int64_t	end_bound;	/* > 0: proc_end() it once it exits */
};

static struct loop		*loop;
static struct proc_reaper	*reaper;
static struct cgroup		*cg;

/* Record the leader's exit; proc_end() it when asked. */
static void
exited_cb(struct proc *p, int status, void *arg)
{
	struct seen	*s = arg;

	s->exited++;
	s->status = status;
	if (s->end_bound > 0)
		proc_end(p, s->end_bound);
}

/* Record a stop or a continue. */
static void
stopped_cb(struct proc *p, int stopped, void *arg)
{
	struct seen	*s = arg;

	(void)p;
	if (stopped)
		s->stops++;
	else
		s->conts++;
}

/* Record the end of a grace. */
static void
killed_cb(struct proc *p, void *arg)
{
	struct seen	*s = arg;

	(void)p;
	s->killed++;
}

/* Record that nothing of it is left. */
static void
gone_cb(struct proc *p, void *arg)
{
	struct seen	*s = arg;

	(void)p;
	s->gone++;
}

static const struct proc_cbs cbs = {
	exited_cb, stopped_cb, killed_cb, gone_cb
};

/* A loop and its reaper; the test process a subreaper. */
static void
setup(void)
{
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	signal(SIGPIPE, SIG_IGN);
	loop = loop_new();
	reaper = proc_reaper_new(loop);
	cg = NULL;
}

/* Free the reaper, the containment and the loop; kill what is left. */
static void
teardown(void)
{
	proc_reaper_free(reaper);
	if (cg != NULL) {
		cgroup_kill_all(cg);
		cgroup_free(cg);
	}
	proc_kill_strays();
	loop_free(loop);
}

/* Start sh -c script as p, on pipes; its output fd (-1: /dev/null). */
static int
start(struct proc *p, const char *script, int output)
{
	struct pty_spec		 spec;
	struct pty_child	 child;
	char			*argv[4], *cause = NULL;

	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = (char *)script;
	argv[3] = NULL;
	memset(&spec, 0, sizeof spec);
	spec.path = "/bin/sh";
	spec.argv = argv;
	spec.envp = environ;
	spec.no_pty = 1;
	spec.null_stdin = 1;
	spec.null_output = !output;
	if (proc_spawn(p, &spec, &child, &cause) != 0)
		ck_abort_msg("proc_spawn: %s", cause);
	ck_assert_int_gt(proc_pid(p), 0);
	ck_assert_int_eq(proc_pid(p), child.pid);
	return child.out_fd;
}

/*
 * Read fd until a line has come (within WAIT_MS); it, in buf.  A poll
 * that a signal cuts short (the reaper's SIGCHLD) is asked again.
 */
static void
read_line(int fd, char *buf, size_t size)
{
	struct pollfd	pfd = { fd, POLLIN, 0 };
	int64_t		end = loop_now_ms() + WAIT_MS;
	size_t		len = 0;
	ssize_t		n;
	int		rc;

	while (len == 0 || buf[len - 1] != '\n') {
		do {
			rc = poll(&pfd, 1, WAIT_MS);
			ck_assert_msg(rc == 1 || (rc == -1 && errno == EINTR &&
			    loop_now_ms() < end), "no line came (poll %d: %s)",
			    rc, rc == -1 ? strerror(errno) : "timed out");
		} while (rc != 1);
		n = read(fd, buf + len, size - 1 - len);
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			continue;
		ck_assert_int_gt(n, 0);
		len += (size_t)n;
		ck_assert_uint_lt(len, size - 1);
	}
	buf[len] = '\0';
}

/*
 * Start p as a group that ignores SIGTERM (its sleeps too: `sleep arg`
 * over and over), once it is ready; its output fd.
 */
static int
start_stubborn(struct proc *p, const char *arg)
{
	char	script[128], line[64];
	int	fd;

	snprintf(script, sizeof script, "trap '' TERM; echo ready; "
	    "while :; do sleep %s; done", arg);
	fd = start(p, script, 1);
	read_line(fd, line, sizeof line);
	ck_assert_str_eq(line, "ready\n");
	return fd;
}

/* Run loop turns until *flag is set, within WAIT_MS. */
static void
run_until(const int *flag)
{
	int64_t	end = loop_now_ms() + WAIT_MS;

	while (!*flag) {
		ck_assert_msg(loop_now_ms() < end, "not told within %d ms",
		    WAIT_MS);
		ck_assert_int_ge(loop_run_once(loop, 20), 0);
	}
}

/* Run loop turns until no live `sleep arg` is left, within WAIT_MS. */
static void
run_until_no_sleep(const char *arg)
{
	int64_t	end = loop_now_ms() + WAIT_MS;

	while (testproc_sleeps(arg, NULL) > 0) {
		ck_assert_msg(loop_now_ms() < end, "sleep %s lives on", arg);
		ck_assert_int_ge(loop_run_once(loop, 20), 0);
	}
}

/* Wait (without the loop) until `sleep arg` runs, within WAIT_MS. */
static void
wait_sleep(const char *arg)
{
	int64_t	end = loop_now_ms() + WAIT_MS;

	while (testproc_sleeps(arg, NULL) != 1) {
		ck_assert_msg(loop_now_ms() < end, "sleep %s never ran", arg);
		usleep(10000);
	}
}

/*
 * Return whether pid is a child of ours that has exited and is not
 * reaped yet (waitid() with WNOWAIT leaves it so).
 */
static int
is_zombie_child(pid_t pid)
{
	siginfo_t	si;

	memset(&si, 0, sizeof si);
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) ==
	    0 && si.si_pid == pid;
}

/* Return whether pid is no child of ours any more: it was reaped. */
static int
is_reaped(pid_t pid)
{
	siginfo_t	si;

	memset(&si, 0, sizeof si);
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) ==
	    -1 && errno == ECHILD;
}

/* Run loop turns until the reaper has reaped pid, within WAIT_MS. */
static void
run_until_reaped(pid_t pid)
{
	int64_t	end = loop_now_ms() + WAIT_MS;

	while (!is_reaped(pid)) {
		ck_assert_msg(loop_now_ms() < end, "%ld was not reaped",
		    (long)pid);
		ck_assert_int_ge(loop_run_once(loop, 20), 0);
	}
}

/* Start argv (argv[0] looked for in PATH) as a child nobody supervises. */
static pid_t
start_stray(char *argv[])
{
	struct pty_spec		 spec;
	struct pty_child	 child;
	char			*cause = NULL;

	memset(&spec, 0, sizeof spec);
	spec.path = argv[0];
	spec.argv = argv;
	spec.envp = environ;
	spec.no_pty = 1;
	spec.null_stdin = 1;
	spec.null_output = 1;
	if (pty_spawn(&spec, &child, &cause) != 0)
		ck_abort_msg("pty_spawn: %s", cause);
	return child.pid;
}

/* Make a process told to s, held if hold, and start sh -c script as it. */
static struct proc *
start_told(struct seen *s, int hold, const char *script)
{
	struct proc	*p;

	p = proc_new(reaper, NULL, 0, &cbs, s);
	if (hold)
		proc_hold(p);
	start(p, script, 0);
	return p;
}

/*
 * A leader's exit is told with its status; a child nobody supervises is
 * reaped by the same reaper, unheard.
 */
START_TEST(test_exited_status)
{
	struct seen	 s = { 0 };
	struct proc	*p;
	char		*argv[] = { "true", NULL };
	pid_t		 stray;

	p = start_told(&s, 0, "exit 7");
	stray = start_stray(argv);
	run_until(&s.exited);
	ck_assert_int_eq(s.exited, 1);
	ck_assert(WIFEXITED(s.status));
	ck_assert_int_eq(WEXITSTATUS(s.status), 7);
	ck_assert_int_eq(proc_reaped(p), 1);
	/* The stray is reaped too, now or on a turn to come. */
	run_until_reaped(stray);
	proc_free(p);
}
END_TEST

/* A leader stopped and continued is told so, and still runs. */
START_TEST(test_stopped_continued)
{
	struct seen	 s = { 0 };
	struct proc	*p;

	p = proc_new(reaper, NULL, 0, &cbs, &s);
	start(p, "exec sleep 7101", 0);
	ck_assert_int_eq(kill(proc_pid(p), SIGSTOP), 0);
	run_until(&s.stops);
	ck_assert_int_eq(kill(proc_pid(p), SIGCONT), 0);
	run_until(&s.conts);
	ck_assert_int_eq(s.exited, 0);
	ck_assert_int_eq(proc_reaped(p), 0);
	proc_kill(p);
	run_until(&s.exited);
	ck_assert(WIFSIGNALED(s.status));
	ck_assert_int_eq(WTERMSIG(s.status), SIGKILL);
	proc_free(p);
}
END_TEST

/*
 * A leader that ignores SIGTERM gets SIGKILL once the grace is over,
 * killed told first, and its group (the sleeps it starts) with it.
 */
START_TEST(test_stop_grace)
{
	struct seen	 s = { 0 };
	struct proc	*p;
	int		 fd;

	p = proc_new(reaper, NULL, 0, &cbs, &s);
	fd = start_stubborn(p, "7102");
	ck_assert_int_eq(proc_stopping(p), 0);
	proc_stop(p, SIGTERM, 300);
	ck_assert_int_eq(proc_stopping(p), 1);
	run_until(&s.exited);
	ck_assert_int_eq(s.killed, 1);
	ck_assert_int_eq(proc_stopping(p), 0);
	ck_assert(WIFSIGNALED(s.status));
	ck_assert_int_eq(WTERMSIG(s.status), SIGKILL);
	run_until_no_sleep("7102");
	close(fd);
	proc_free(p);
}
END_TEST

/*
 * A stopped group sees the stop's SIGTERM (SIGCONT follows it), long
 * before the grace would end.
 */
START_TEST(test_stop_stopped_group)
{
	struct seen	 s = { 0 };
	struct proc	*p;

	p = proc_new(reaper, NULL, 0, &cbs, &s);
	start(p, "exec sleep 7103", 0);
	ck_assert_int_eq(kill(proc_pid(p), SIGSTOP), 0);
	run_until(&s.stops);
	proc_stop(p, SIGTERM, NEVER_MS);
	run_until(&s.exited);
	ck_assert(WIFSIGNALED(s.status));
	ck_assert_int_eq(WTERMSIG(s.status), SIGTERM);
	ck_assert_int_eq(s.killed, 0);
	proc_free(p);
}
END_TEST

/*
 * After the leader's exit, proc_end() kills what is left of its group
 * and tells gone once that is reaped: on the reaper's turn, for the
 * bound is far beyond the test's time limit.
 */
START_TEST(test_end_gone)
{
	struct seen	 s = { 0 };
	struct proc	*p;
	char		 line[64];
	int		 fd;

	s.end_bound = NEVER_MS;
	p = proc_new(reaper, NULL, 0, &cbs, &s);
	/* It exits once its sleep runs (has exec'd). */
	fd = start(p, "sleep 7104 & while ! grep -q 7104 /proc/$!/cmdline; "
	    "do :; done; echo started; exit 0", 1);
	read_line(fd, line, sizeof line);
	ck_assert_str_eq(line, "started\n");
	run_until(&s.gone);
	ck_assert_int_eq(s.exited, 1);
	ck_assert_int_eq(s.gone, 1);
	ck_assert_int_eq(testproc_sleeps("7104", NULL), 0);
	ck_assert_int_eq(proc_lingers(p), 0);
	close(fd);
	proc_free(p);
}
END_TEST

/* Nothing left at proc_end(): gone is told before it returns. */
START_TEST(test_end_empty)
{
	struct seen	 s = { 0 };
	struct proc	*p;

	p = proc_new(reaper, NULL, 0, &cbs, &s);
	start(p, "exit 0", 0);
	run_until(&s.exited);
	proc_end(p, NEVER_MS);
	ck_assert_int_eq(s.gone, 1);
	proc_free(p);
}
END_TEST

/*
 * Escapees (setsid -f) are reached: a stop's SIGTERM gets to one by the
 * marker (_i 0) or the cgroup (_i 1, as root), and proc_release() kills
 * what the containment still holds once the leader has exited.
 */
START_TEST(test_escapees)
{
	struct seen	 s = { 0 };
	struct proc	*p;
	char		 line[64];
	int		 fd;

	cg = cgroup_new(_i == 0 ? CGROUP_NO_CGROUP : 0);
	if (_i == 1 && cgroup_dir(cg) == NULL)
		TEST_SKIP("no cgroup: %s", cgroup_warning(cg));
	proc_reaper_set_cgroup(reaper, cg);
	ck_assert_ptr_eq(proc_reaper_cgroup(reaper), cg);

	p = proc_new(reaper, cg, 1, &cbs, &s);
	fd = start(p, "setsid -f sleep 7105; echo ok; exec sleep 7106", 1);
	read_line(fd, line, sizeof line);
	wait_sleep("7105");
	proc_stop(p, SIGTERM, NEVER_MS);
	run_until(&s.exited);
	ck_assert_int_eq(WTERMSIG(s.status), SIGTERM);
	run_until_no_sleep("7105");
	close(fd);
	proc_free(p);

	memset(&s, 0, sizeof s);
	p = proc_new(reaper, cg, 2, &cbs, &s);
	fd = start(p, "setsid -f sleep 7107; echo ok; exit 0", 1);
	read_line(fd, line, sizeof line);
	wait_sleep("7107");
	run_until(&s.exited);
	proc_release(p);
	run_until_no_sleep("7107");
	close(fd);
}
END_TEST

/*
 * An escapee caught in the middle of an exec is not missed: while a
 * process execs, /proc shows it with no environment (no marker) for a
 * moment, so a SIGKILL by marker scans again after a scan that found
 * nothing.  The escapee here execs itself over and over; each of the
 * rounds starts one, lets its leader end and kills what it left.
 */
START_TEST(test_escapee_in_exec)
{
	struct seen	 s;
	struct proc	*p;
	char		 dir[] = "/tmp/jd-proc.XXXXXX", path[64], script[512];
	char		 line[64];
	FILE		*f;
	pid_t		 esc;
	int64_t		 end;
	int		 round, fd;

	cg = cgroup_new(CGROUP_NO_CGROUP);
	proc_reaper_set_cgroup(reaper, cg);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/again.sh", dir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fprintf(f, "exec /bin/sh %s\n", path);
	ck_assert_int_eq(fclose(f), 0);
	for (round = 0; round < ESC_EXEC_ROUNDS; round++) {
		memset(&s, 0, sizeof s);
		p = proc_new(reaper, cg, round + 1, &cbs, &s);
		snprintf(script, sizeof script, "rm -f %s/esc.pid; setsid -f "
		    "/bin/sh -c 'echo $$ > %s/esc.pid; exec /bin/sh %s'; "
		    "while [ ! -s %s/esc.pid ]; do sleep 0.01; done; "
		    "cat %s/esc.pid", dir, dir, path, dir, dir);
		fd = start(p, script, 1);
		read_line(fd, line, sizeof line);
		esc = (pid_t)atol(line);
		ck_assert_int_gt(esc, 1);
		run_until(&s.exited);
		proc_release(p);
		end = loop_now_ms() + WAIT_MS;
		while (!testproc_dead(esc)) {
			ck_assert_msg(loop_now_ms() < end, "round %d: the "
			    "escapee %ld, which execs over and over, outlived "
			    "its containment's SIGKILL", round, (long)esc);
			ck_assert_int_ge(loop_run_once(loop, 20), 0);
		}
		close(fd);
	}
	testdir_remove(dir);
}
END_TEST

/*
 * A process let go of is not told of any more: its leader, killed since,
 * is reaped as a stray.
 */
START_TEST(test_free_unheard)
{
	struct seen	 s = { 0 };
	struct proc	*p;
	pid_t		 pid;

	p = proc_new(reaper, NULL, 0, &cbs, &s);
	start(p, "exec sleep 7108", 0);
	pid = proc_pid(p);
	proc_free(p);
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	while (waitpid(pid, NULL, WNOHANG) == 0)
		ck_assert_int_ge(loop_run_once(loop, 20), 0);
	ck_assert_int_eq(s.exited, 0);
}
END_TEST

/*
 * proc_finish() without the loop: a leader that ignores the signal takes
 * SIGKILL after the grace (0), one that obeys does not (1); either is
 * reaped, and nothing of its group is left.
 */
START_TEST(test_finish)
{
	struct seen	 s = { 0 };
	struct proc	*p;
	pid_t		 pid;
	int		 fd;

	p = proc_new(reaper, NULL, 0, &cbs, &s);
	fd = start_stubborn(p, "7109");
	pid = proc_pid(p);
	ck_assert_int_eq(proc_finish(p, SIGTERM, 300, WAIT_MS), 0);
	ck_assert_int_eq(waitpid(pid, NULL, WNOHANG), -1);
	ck_assert_int_eq(testproc_sleeps("7109", NULL), 0);
	close(fd);
	proc_free(p);

	p = proc_new(reaper, NULL, 0, &cbs, &s);
	start(p, "exec sleep 7110", 0);
	pid = proc_pid(p);
	ck_assert_int_eq(proc_finish(p, SIGTERM, WAIT_MS, WAIT_MS), 1);
	ck_assert_int_eq(waitpid(pid, NULL, WNOHANG), -1);
	ck_assert_int_eq(s.exited, 0);
	proc_free(p);
}
END_TEST

/*
 * A held leader is told exited and stays a zombie of ours (state Z, its
 * parent this process) while the other children of the reaper, a
 * supervised one and a stray, are reaped as they end; proc_finish() then
 * reaps it.
 */
START_TEST(test_hold_zombie)
{
	struct seen	 s = { 0 }, t = { 0 };
	struct proc	*p, *q;
	pid_t		 pid, qpid, stray;
	long		 ppid = 0;
	int		 state;
	char		*argv[] = { "sleep", "7112", NULL };

	p = start_told(&s, 1, "exit 3");
	pid = proc_pid(p);
	q = start_told(&t, 0, "exec sleep 7111");
	qpid = proc_pid(q);
	stray = start_stray(argv);
	run_until(&s.exited);
	ck_assert(WIFEXITED(s.status));
	ck_assert_int_eq(WEXITSTATUS(s.status), 3);
	ck_assert_int_eq(proc_reaped(p), 1);
	state = testproc_state(pid, &ppid);
	ck_assert_msg(state == 'Z', "the held leader %ld: state %c, not Z",
	    (long)pid, state == 0 ? '-' : state);
	ck_assert_int_eq(ppid, (long)getpid());
	ck_assert(is_zombie_child(pid));

	ck_assert_int_eq(kill(qpid, SIGKILL), 0);
	run_until(&t.exited);
	ck_assert(WIFSIGNALED(t.status));
	ck_assert_int_eq(WTERMSIG(t.status), SIGKILL);
	ck_assert(is_reaped(qpid));
	ck_assert_int_eq(kill(stray, SIGKILL), 0);
	run_until_reaped(stray);
	proc_free(q);

	/* Still held, its exit told once. */
	ck_assert_int_eq(testproc_state(pid, NULL), 'Z');
	ck_assert(is_zombie_child(pid));
	ck_assert_int_eq(s.exited, 1);
	ck_assert_int_eq(proc_finish(p, SIGTERM, WAIT_MS, WAIT_MS), 1);
	ck_assert(is_reaped(pid));
	ck_assert_int_eq(s.exited, 1);
	proc_free(p);
}
END_TEST

/*
 * Where /proc lists no child (no children file: /proc hidden under a
 * tmpfs in a mount namespace of the test's own), a leader held does not
 * keep the reaper from reaping: a child that ends is reaped by
 * waitpid(-1) (the held one's exit too, told once); once /proc lists
 * children again, a leader held is kept a zombie again.
 */
START_TEST(test_hold_unlisted)
{
	struct seen	 s = { 0 }, t = { 0 };
	struct proc	*p, *q;
	pid_t		 pid, qpid, stray;
	char		*argv[] = { "sleep", "7115", NULL };

	if (unshare(CLONE_NEWNS) == -1)
		TEST_SKIP("no mount namespace: %s", strerror(errno));
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1)
		TEST_SKIP("mounts not private: %s", strerror(errno));
	p = start_told(&s, 1, "exec sleep 7113");
	pid = proc_pid(p);
	q = start_told(&t, 0, "exec sleep 7114");
	qpid = proc_pid(q);
	stray = start_stray(argv);
	ck_assert_int_eq(mount("none", "/proc", "tmpfs", 0, NULL), 0);
	ck_assert_int_eq(access("/proc/self/task", F_OK), -1);

	ck_assert_int_eq(kill(qpid, SIGKILL), 0);
	run_until(&t.exited);
	ck_assert(is_reaped(qpid));
	ck_assert_int_eq(kill(stray, SIGKILL), 0);
	run_until_reaped(stray);
	ck_assert_int_eq(s.exited, 0);
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	run_until(&s.exited);
	ck_assert(WIFSIGNALED(s.status));
	ck_assert_int_eq(WTERMSIG(s.status), SIGKILL);
	run_until_reaped(pid);
	ck_assert_int_eq(s.exited, 1);

	ck_assert_int_eq(umount2("/proc", MNT_DETACH), 0);
	proc_free(q);
	ck_assert_int_eq(proc_finish(p, 0, WAIT_MS, WAIT_MS), 1);
	ck_assert_int_eq(s.exited, 1);
	proc_free(p);

	/* Listed again, a leader held is kept again. */
	memset(&s, 0, sizeof s);
	p = start_told(&s, 1, "exit 0");
	pid = proc_pid(p);
	run_until(&s.exited);
	ck_assert_msg(is_zombie_child(pid), "the held leader %ld was reaped",
	    (long)pid);
	ck_assert_int_eq(proc_finish(p, 0, WAIT_MS, WAIT_MS), 1);
	ck_assert(is_reaped(pid));
	proc_free(p);
}
END_TEST

/* Build the suite. */
static Suite *
proc_suite(void)
{
	Suite	*s = suite_create("proc");
	TCase	*tc;

	tc = tcase_create("supervise");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_exited_status);
	tcase_add_test(tc, test_stopped_continued);
	tcase_add_test(tc, test_stop_grace);
	tcase_add_test(tc, test_stop_stopped_group);
	tcase_add_test(tc, test_end_gone);
	tcase_add_test(tc, test_end_empty);
	tcase_add_loop_test(tc, test_escapees, 0, 2);
	tcase_add_test(tc, test_escapee_in_exec);
	tcase_add_test(tc, test_free_unheard);
	tcase_add_test(tc, test_finish);
	tcase_add_test(tc, test_hold_zombie);
	tcase_add_test(tc, test_hold_unlisted);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr = srunner_create(proc_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
