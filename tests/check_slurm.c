/*
 * check_slurm.c: the tests' one-node Slurm cluster (testslurm.h) does
 * what issue 28's Slurm tests will ask of it: it starts, srun runs a
 * command and a command on a pty, a named job shows in squeue --name,
 * scancel --signal reaches it and scancel ends it.  The cluster is
 * started once for the suite; every test skips, saying why, when it
 * could not be started here.
 */
#include <sys/ioctl.h>
#include <sys/wait.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "skip.h"
#include "testslurm.h"

/* openpty() is libutil's; our include/pty.h shadows the system's. */
int	openpty(int *, int *, char *, const struct termios *,
	    const struct winsize *);

#define LIMIT_MS	60000	/* any condition a test waits for */

static struct testslurm	*ts;
static char		 ts_why[2048];

/* Skip the test when the suite's cluster did not start. */
#define CLUSTER() do {							\
	if (ts == NULL)							\
		TEST_SKIP("no Slurm cluster: %s", ts_why);		\
} while (0)

/* Start the suite's cluster (once, before the tests). */
static void
cluster_setup(void)
{
	ts = testslurm_start(ts_why, sizeof ts_why);
}

/* Stop the suite's cluster (once, after the tests). */
static void
cluster_teardown(void)
{
	testslurm_stop(ts);
	ts = NULL;
}

/* Return the monotonic clock in milliseconds. */
static long long
now_ms(void)
{
	struct timespec	t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Sleep a tenth of a second between two looks at a condition. */
static void
nap(void)
{
	struct timespec	t = { 0, 100000000L };

	nanosleep(&t, NULL);
}

/* Run argv on the cluster; return its exit code, failing if it did not exit. */
static int
run(const char *const argv[], char *out, size_t len)
{
	int	status;

	status = testslurm_run(ts, argv, out, len);
	ck_assert_msg(status != -1 && WIFEXITED(status), "%s ran too long "
	    "or was killed (status 0x%x): %s", argv[0], status, out);
	return WEXITSTATUS(status);
}

/*
 * Start srun -J name sh -c script in the background, its output in the
 * cluster's directory (path, made); return srun's pid.
 */
static pid_t
srun_bg(const char *name, const char *script, char *path, size_t len)
{
	const char *const	argv[] = { "srun", "-N1", "-J", name, "sh",
	    "-c", script, NULL };
	pid_t			pid;
	int			null, out;

	snprintf(path, len, "%s/%s.out", testslurm_dir(ts), name);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ne(out, -1);
	ck_assert_int_ne(null = open("/dev/null", O_RDONLY | O_CLOEXEC), -1);
	pid = testslurm_spawn(ts, argv, null, out);
	close(null);
	close(out);
	return pid;
}

/* Read the file path into buf (cut to len). */
static void
slurp(const char *path, char *buf, size_t len)
{
	ssize_t	n;
	int	fd;

	buf[0] = '\0';
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	if ((n = read(fd, buf, len - 1)) > 0)
		buf[n] = '\0';
	close(fd);
}

/* Wait until the file path holds needle; fail the test if it never does. */
static void
wait_file_has(const char *path, const char *needle)
{
	long long	end = now_ms() + LIMIT_MS;
	char		buf[4096];

	for (;;) {
		slurp(path, buf, sizeof buf);
		if (strstr(buf, needle) != NULL)
			return;
		ck_assert_msg(now_ms() < end, "no \"%s\" in %s: %s", needle,
		    path, buf);
		nap();
	}
}

/* Return squeue's line (format fmt) for the job named name, "" if none. */
static void
squeue_name(const char *name, const char *fmt, char *out, size_t len)
{
	char		 opt[128];
	const char *const argv[] = { "squeue", "-h", opt, "-o", fmt, NULL };

	snprintf(opt, sizeof opt, "--name=%s", name);
	ck_assert_int_eq(run(argv, out, len), 0);
}

/* Wait until squeue shows the job named name RUNNING; put its id in id. */
static void
wait_running(const char *name, char *id, size_t len)
{
	long long	end = now_ms() + LIMIT_MS;
	char		out[512], want[128];
	char		*sp;

	snprintf(want, sizeof want, " %s RUNNING\n", name);
	for (;;) {
		squeue_name(name, "%i %j %T", out, sizeof out);
		if ((sp = strchr(out, ' ')) != NULL && strcmp(sp, want) == 0)
			break;
		ck_assert_msg(now_ms() < end, "squeue --name=%s: \"%s\"",
		    name, out);
		nap();
	}
	*sp = '\0';
	ck_assert_uint_lt(strlen(out), len);
	memcpy(id, out, strlen(out) + 1);
}

/* Wait until squeue shows no job named name. */
static void
wait_gone(const char *name)
{
	long long	end = now_ms() + LIMIT_MS;
	char		out[512];

	for (;;) {
		squeue_name(name, "%i %j %T", out, sizeof out);
		if (out[0] == '\0')
			return;
		ck_assert_msg(now_ms() < end, "still in squeue: %s", out);
		nap();
	}
}

/* scancel the job id with extra option opt (or none); check it worked. */
static void
scancel(const char *opt, const char *id)
{
	const char *const	argv[] = { "scancel", opt != NULL ? opt : id,
	    opt != NULL ? id : NULL, NULL };
	char			out[512];

	ck_assert_msg(run(argv, out, sizeof out) == 0, "scancel: %s", out);
}

/* End what a test left running: scancel its job, reap srun. */
static void
cleanup(const char *name, const char *id, pid_t srun)
{
	int	status;

	if (id[0] != '\0')
		scancel(NULL, id);
	ck_assert_int_eq(testslurm_wait(srun, &status, LIMIT_MS), 0);
	wait_gone(name);
}

/*
 * The cluster is up: its one node idle in its one partition, and the
 * commands read the test's slurm.conf, not the machine's.
 */
START_TEST(test_cluster_up)
{
	const char *const	sinfo[] = { "sinfo", "-h", "-o", "%R %D %T",
	    NULL };
	const char *const	config[] = { "scontrol", "show", "config",
	    NULL };
	char			out[65536];

	CLUSTER();
	ck_assert_int_eq(run(sinfo, out, sizeof out), 0);
	ck_assert_str_eq(out, "test 1 idle\n");
	ck_assert_int_eq(run(config, out, sizeof out), 0);
	ck_assert_msg(strstr(out, "ClusterName             = jobdeck-test\n")
	    != NULL, "%s", out);
	ck_assert_msg(strstr(out, testslurm_conf(ts)) != NULL, "%s", out);
}
END_TEST

/* srun -N1 true exits 0; a task's exit code is srun's. */
START_TEST(test_srun_exit)
{
	const char *const	yes[] = { "srun", "-N1", "true", NULL };
	const char *const	no[] = { "srun", "-N1", "sh", "-c", "exit 3",
	    NULL };
	const char *const	echo[] = { "srun", "-N1", "echo", "from-slurm",
	    NULL };
	char			out[4096];

	CLUSTER();
	ck_assert_msg(run(yes, out, sizeof out) == 0, "%s", out);
	ck_assert_msg(run(no, out, sizeof out) == 3, "%s", out);
	ck_assert_msg(run(echo, out, sizeof out) == 0, "%s", out);
	ck_assert_str_eq(out, "from-slurm\n");
}
END_TEST

/* Read fd into buf (from *used) until it holds needle; fail if it never does. */
static void
read_until(int fd, char *buf, size_t len, size_t *used, const char *needle)
{
	struct pollfd	pfd = { fd, POLLIN, 0 };
	long long	end = now_ms() + LIMIT_MS;
	ssize_t		n;
	int		ms;

	while (strstr(buf, needle) == NULL) {
		ms = (int)(end - now_ms());
		ck_assert_msg(ms > 0 && *used + 1 < len, "no \"%s\" on the "
		    "pty: \"%s\"", needle, buf);
		if (poll(&pfd, 1, ms) <= 0)
			continue;
		n = read(fd, buf + *used, len - *used - 1);
		ck_assert_msg(n > 0 || (n == -1 && errno == EINTR), "the pty "
		    "ended before \"%s\": \"%s\"", needle, buf);
		if (n > 0) {
			*used += (size_t)n;
			buf[*used] = '\0';
		}
	}
}

/*
 * srun --pty on a pty gives the task a terminal of its own (not so
 * without --pty) and carries what is typed to it.
 */
START_TEST(test_srun_pty)
{
	const char		*script = "if test -t 0 && test -t 1; "
	    "then echo on-a-pty; else echo no-pty; fi; read x; "
	    "echo \"got-$x\"";
	const char *const	pty[] = { "srun", "-N1", "--pty", "sh", "-c",
	    script, NULL };
	const char *const	plain[] = { "srun", "-N1", "sh", "-c", script,
	    NULL };
	char			buf[4096] = "";
	size_t			used = 0;
	pid_t			pid;
	int			master, slave, status;

	CLUSTER();
	ck_assert_int_eq(run(plain, buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "no-pty\ngot-\n");
	buf[0] = '\0';
	ck_assert_int_eq(openpty(&master, &slave, NULL, NULL, NULL), 0);
	pid = testslurm_spawn(ts, pty, slave, slave);
	close(slave);
	read_until(master, buf, sizeof buf, &used, "on-a-pty");
	ck_assert_int_eq(write(master, "hello\r", 6), 6);
	read_until(master, buf, sizeof buf, &used, "got-hello");
	ck_assert_int_eq(testslurm_wait(pid, &status, LIMIT_MS), 0);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "srun --pty: status 0x%x: %s", status, buf);
	close(master);
}
END_TEST

/* A job named jobdeck-x-1 shows in squeue --name, and no other name does. */
START_TEST(test_squeue_name)
{
	char	path[256], id[64] = "", out[512];
	pid_t	srun;

	CLUSTER();
	srun = srun_bg("jobdeck-x-1", "echo started; exec sleep 600", path,
	    sizeof path);
	wait_running("jobdeck-x-1", id, sizeof id);
	wait_file_has(path, "started");
	squeue_name("jobdeck-x-10", "%i", out, sizeof out);
	ck_assert_str_eq(out, "");
	squeue_name("jobdeck-x-1", "%j %u", out, sizeof out);
	ck_assert_ptr_nonnull(strstr(out, "jobdeck-x-1 "));
	cleanup("jobdeck-x-1", id, srun);
}
END_TEST

/*
 * scancel --signal=TERM reaches the job's processes and only signals: a
 * job that traps TERM goes on running until scancel ends it.
 */
START_TEST(test_scancel_signal)
{
	char	path[256], id[64] = "", out[512];
	pid_t	srun;
	int	status;

	CLUSTER();
	srun = srun_bg("jobdeck-x-2", "trap 'echo got-TERM' TERM; "
	    "echo started; while :; do sleep 1; done", path, sizeof path);
	wait_running("jobdeck-x-2", id, sizeof id);
	wait_file_has(path, "started");
	scancel("--signal=TERM", id);
	wait_file_has(path, "got-TERM");
	squeue_name("jobdeck-x-2", "%T", out, sizeof out);
	ck_assert_str_eq(out, "RUNNING\n");
	ck_assert_int_eq(waitpid(srun, &status, WNOHANG), 0);
	cleanup("jobdeck-x-2", id, srun);
}
END_TEST

/* scancel ends a running job: srun returns and squeue forgets it. */
START_TEST(test_scancel_ends)
{
	char	path[256], id[64] = "", buf[4096];
	pid_t	srun;
	int	status;

	CLUSTER();
	srun = srun_bg("jobdeck-x-3", "echo started; while :; do sleep 1; "
	    "done", path, sizeof path);
	wait_running("jobdeck-x-3", id, sizeof id);
	wait_file_has(path, "started");
	scancel(NULL, id);
	ck_assert_int_eq(testslurm_wait(srun, &status, LIMIT_MS), 0);
	slurp(path, buf, sizeof buf);
	ck_assert_msg(!WIFEXITED(status) || WEXITSTATUS(status) != 0,
	    "srun exited 0 after scancel: %s", buf);
	ck_assert_msg(strstr(buf, "CANCELLED") != NULL, "%s", buf);
	wait_gone("jobdeck-x-3");
}
END_TEST

/* The suite. */
static Suite *
slurm_suite(void)
{
	Suite	*s = suite_create("slurm");
	TCase	*tc = tcase_create("cluster");

	tcase_add_unchecked_fixture(tc, cluster_setup, cluster_teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_cluster_up);
	tcase_add_test(tc, test_srun_exit);
	tcase_add_test(tc, test_srun_pty);
	tcase_add_test(tc, test_squeue_name);
	tcase_add_test(tc, test_scancel_signal);
	tcase_add_test(tc, test_scancel_ends);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr = srunner_create(slurm_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
