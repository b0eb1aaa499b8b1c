/*
 * testslurm.c: a one-node Slurm cluster (munged, slurmctld, slurmd) in a
 * temporary directory for the Slurm tests (testslurm.h).
 */
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "need.h"
#include "testdir.h"
#include "testnet.h"
#include "testslurm.h"

#define TESTSLURM_UP_MS		90000	/* the node idle in sinfo */
#define TESTSLURM_SOCKET_MS	30000	/* munged's socket there */
#define TESTSLURM_STOP_MS	30000	/* a daemon gone after TERM */
#define TESTSLURM_RUN_MS	120000	/* a command of testslurm_run() */
#define TESTSLURM_POLL_MS	100	/* between two looks */
#define TESTSLURM_SBIN		"/usr/sbin:/sbin"

extern char **environ;

/* The cluster: its directory, files, daemons and environment. */
struct testslurm {
	char	 dir[64];
	char	 conf[128];
	char	 sock[128];
	char	 node[256];
	char	 user[256];
	char	**env;
	pid_t	 munged;
	pid_t	 ctld;
	pid_t	 slurmd;
};

/* Return the monotonic clock in milliseconds. */
static long long
testslurm_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sleep one polling interval. */
static void
testslurm_nap(void)
{
	struct timespec	ts = { 0, TESTSLURM_POLL_MS * 1000000L };

	nanosleep(&ts, NULL);
}

/* Add /usr/sbin and /sbin to this process's PATH when it lacks them. */
static void
testslurm_path_sbin(void)
{
	const char	*path = getenv("PATH");
	char		*with;
	size_t		 len;

	if (path == NULL || *path == '\0')
		path = "/usr/local/bin:/usr/bin:/bin";
	if (strstr(path, "/usr/sbin") != NULL)
		return;
	len = strlen(path) + sizeof ":" TESTSLURM_SBIN;
	with = malloc(len);
	ck_assert_ptr_nonnull(with);
	snprintf(with, len, "%s:%s", path, TESTSLURM_SBIN);
	ck_assert_int_eq(setenv("PATH", with, 1), 0);
	free(with);
}

/* Make the commands' environment: ours without SLURM_*, SLURM_CONF set. */
static void
testslurm_env_make(struct testslurm *ts)
{
	size_t	 n = 0, i = 0;
	char	**e;
	int	 len;

	for (e = environ; *e != NULL; e++)
		n++;
	ts->env = calloc(n + 2, sizeof *ts->env);
	ck_assert_ptr_nonnull(ts->env);
	for (e = environ; *e != NULL; e++) {
		if (strncmp(*e, "SLURM_", 6) == 0)
			continue;
		ts->env[i] = strdup(*e);
		ck_assert_ptr_nonnull(ts->env[i]);
		i++;
	}
	len = asprintf(&ts->env[i], "SLURM_CONF=%s", ts->conf);
	ck_assert_int_gt(len, 0);
}

/* Put the last lines of the daemon's output file name in why. */
static void
testslurm_why_log(const struct testslurm *ts, const char *name, char *why,
    size_t len)
{
	char	 path[160], tail[600];
	ssize_t	 n;
	off_t	 end;
	int	 fd;
	size_t	 used;

	snprintf(path, sizeof path, "%s/%s.out", ts->dir, name);
	tail[0] = '\0';
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) != -1) {
		end = lseek(fd, 0, SEEK_END);
		lseek(fd, end > (off_t)sizeof tail - 1 ?
		    end - (off_t)sizeof tail + 1 : 0, SEEK_SET);
		if ((n = read(fd, tail, sizeof tail - 1)) > 0)
			tail[n] = '\0';
		close(fd);
	}
	while ((used = strlen(tail)) > 0 && tail[used - 1] == '\n')
		tail[used - 1] = '\0';
	used = strlen(why);
	if (used < len)
		snprintf(why + used, len - used, " (%s said: %s) [packages "
		    "munge, slurmctld, slurmd, slurm-client]", name, tail);
}

/* Start argv in the cluster's environment on in and out, in a session. */
pid_t
testslurm_spawn(const struct testslurm *ts, const char *const argv[], int in,
    int out)
{
	sigset_t	all, old;
	pid_t		pid;
	int		sig;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	pid = fork();
	if (pid == 0) {
		for (sig = 1; sig < NSIG; sig++)
			signal(sig, SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		setsid();
		if (dup2(in, 0) == -1 || dup2(out, 1) == -1 ||
		    dup2(out, 2) == -1)
			_exit(127);
		if (isatty(0))
			ioctl(0, TIOCSCTTY, 0);
		closefrom(3);
		execvpe(argv[0], (char *const *)argv, ts->env);
		_exit(127);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	ck_assert_int_ne(pid, -1);
	return pid;
}

/* Reap pid into *status within limit_ms; 0 if it ended, -1 if not. */
int
testslurm_wait(pid_t pid, int *status, int limit_ms)
{
	long long	end = testslurm_now_ms() + limit_ms;
	pid_t		r;

	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 0;
		if (r == -1 && errno != EINTR)
			return -1;
		if (testslurm_now_ms() >= end)
			return -1;
		testslurm_nap();
	}
}

/*
 * Run argv in the cluster's environment, its stdout and stderr in out
 * (cut to len); return its wait status, or -1 when it ran past the limit
 * (then it is killed).
 */
int
testslurm_run(const struct testslurm *ts, const char *const argv[],
    char *out, size_t len)
{
	struct pollfd	pfd;
	long long	end = testslurm_now_ms() + TESTSLURM_RUN_MS;
	size_t		used = 0;
	ssize_t		n;
	char		sink[512];
	pid_t		pid;
	int		p[2], null, status, ms, late = 0;

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	ck_assert_int_ne(null = open("/dev/null", O_RDONLY | O_CLOEXEC), -1);
	pid = testslurm_spawn(ts, argv, null, p[1]);
	close(null);
	close(p[1]);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	for (;;) {
		ms = (int)(end - testslurm_now_ms());
		if (ms <= 0 || (n = poll(&pfd, 1, ms)) == 0) {
			kill(pid, SIGKILL);
			late = 1;
			break;
		}
		if (n == -1)
			continue;
		if (used + 1 < len)
			n = read(p[0], out + used, len - used - 1);
		else
			n = read(p[0], sink, sizeof sink);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (used + 1 < len)
			used += (size_t)n;
	}
	close(p[0]);
	if (len > 0)
		out[used] = '\0';
	while (waitpid(pid, &status, 0) == -1)
		ck_assert_int_eq(errno, EINTR);
	return late ? -1 : status;
}

/* Start a daemon, its output in DIR/name.out; return its pid. */
static pid_t
testslurm_daemon(struct testslurm *ts, const char *name,
    const char *const argv[])
{
	char	path[160];
	pid_t	pid;
	int	null, out;

	snprintf(path, sizeof path, "%s/%s.out", ts->dir, name);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ne(out, -1);
	ck_assert_int_ne(null = open("/dev/null", O_RDONLY | O_CLOEXEC), -1);
	pid = testslurm_spawn(ts, argv, null, out);
	close(null);
	close(out);
	return pid;
}

/* Whether the daemon pid still runs; if not, say so in why. */
static int
testslurm_alive(struct testslurm *ts, pid_t *pid, const char *name,
    char *why, size_t len)
{
	int	status;

	if (*pid <= 0 || waitpid(*pid, &status, WNOHANG) == 0)
		return 1;
	*pid = 0;
	snprintf(why, len, "%s exited (status 0x%x) before the cluster was "
	    "up", name, status);
	testslurm_why_log(ts, name, why, len);
	return 0;
}

/*
 * Read `slurmd -C`'s node line (this machine's name, CPUs, memory) into
 * line; return -1 with why when it says nothing usable.
 */
static int
testslurm_node_line(struct testslurm *ts, char *line, size_t len, char *why,
    size_t wlen)
{
	const char *const	 argv[] = { "slurmd", "-C", NULL };
	char			 out[1024], *nl;
	size_t			 span;
	int			 status;

	status = testslurm_run(ts, argv, out, sizeof out);
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    strncmp(out, "NodeName=", 9) != 0) {
		snprintf(why, wlen, "slurmd -C said: %.400s [package slurmd]",
		    out);
		return -1;
	}
	if ((nl = strchr(out, '\n')) != NULL)
		*nl = '\0';
	span = strcspn(out + 9, " ");
	if (span == 0 || span >= sizeof ts->node || strlen(out) >= len) {
		snprintf(why, wlen, "slurmd -C: no usable node name: %.400s",
		    out);
		return -1;
	}
	memcpy(line, out, strlen(out) + 1);
	memcpy(ts->node, out + 9, span);
	ts->node[span] = '\0';
	return 0;
}

/* Write DIR/slurm.conf for the node line and two free ports. */
static void
testslurm_conf_write(struct testslurm *ts, const char *node)
{
	FILE	*f;
	int	 ctld_port, slurmd_port;

	ctld_port = testnet_closed_port();
	do
		slurmd_port = testnet_closed_port();
	while (slurmd_port == ctld_port);
	ck_assert_ptr_nonnull(f = fopen(ts->conf, "we"));
	fprintf(f,
	    "ClusterName=jobdeck-test\n"
	    "SlurmctldHost=localhost\n"
	    "SlurmctldPort=%d\n"
	    "SlurmdPort=%d\n"
	    "SlurmUser=%s\n"
	    "SlurmdUser=%s\n"
	    "AuthType=auth/munge\n"
	    "CredType=cred/munge\n"
	    "AuthInfo=socket=%s\n"
	    "StateSaveLocation=%s/state\n"
	    "SlurmdSpoolDir=%s/spool\n"
	    "SlurmctldPidFile=%s/slurmctld.pid\n"
	    "SlurmdPidFile=%s/slurmd.pid\n"
	    "SlurmctldLogFile=%s/slurmctld.log\n"
	    "SlurmdLogFile=%s/slurmd.log\n"
	    "PlugStackConfig=%s/plugstack.conf\n"
	    "ProctrackType=proctrack/linuxproc\n"
	    "TaskPlugin=task/none\n"
	    "MpiDefault=none\n"
	    "JobAcctGatherType=jobacct_gather/none\n"
	    "AccountingStorageType=accounting_storage/none\n"
	    "JobCompType=jobcomp/none\n"
	    "SelectType=select/cons_tres\n"
	    "MailProg=/bin/true\n"
	    "ReturnToService=2\n"
	    "KillWait=2\n"
	    "%s NodeAddr=127.0.0.1 State=UNKNOWN\n"
	    "PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE "
	    "State=UP\n",
	    ctld_port, slurmd_port, ts->user, ts->user, ts->sock,
	    ts->dir, ts->dir, ts->dir, ts->dir, ts->dir, ts->dir, ts->dir,
	    node);
	ck_assert_int_eq(fclose(f), 0);
}

/* Make the directory, its files and the munge key; -1 with why if not. */
static int
testslurm_files(struct testslurm *ts, char *why, size_t len)
{
	const char		*argv[] = { "mungekey", "-c", "-k", NULL, NULL };
	char			 path[160], out[1024], node[1024];
	struct passwd		*pw;
	int			 fd, status;

	snprintf(ts->dir, sizeof ts->dir, "/tmp/jobdeck-slurm.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(ts->dir));
	snprintf(ts->conf, sizeof ts->conf, "%s/slurm.conf", ts->dir);
	snprintf(ts->sock, sizeof ts->sock, "%s/munge.sock", ts->dir);
	ck_assert_ptr_nonnull(pw = getpwuid(geteuid()));
	snprintf(ts->user, sizeof ts->user, "%s", pw->pw_name);
	testslurm_env_make(ts);
	snprintf(path, sizeof path, "%s/state", ts->dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/spool", ts->dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/plugstack.conf", ts->dir);
	ck_assert_int_ne(fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC,
	    0600), -1);
	close(fd);
	snprintf(path, sizeof path, "%s/munge.key", ts->dir);
	argv[3] = path;
	status = testslurm_run(ts, argv, out, sizeof out);
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(why, len, "mungekey -c said: %.400s [package munge]",
		    out);
		return -1;
	}
	if (testslurm_node_line(ts, node, sizeof node, why, len) == -1)
		return -1;
	testslurm_conf_write(ts, node);
	return 0;
}

/* Start munged and wait for its socket; -1 with why if it is not there. */
static int
testslurm_munged(struct testslurm *ts, char *why, size_t len)
{
	char		key[160], pid[160], log[160], seed[160];
	char		sock[160];
	const char     *argv[] = { "munged", "-F", "-f", sock, key, pid, log,
	    seed, NULL };
	struct stat	st;
	long long	end = testslurm_now_ms() + TESTSLURM_SOCKET_MS;

	snprintf(sock, sizeof sock, "--socket=%s", ts->sock);
	snprintf(key, sizeof key, "--key-file=%s/munge.key", ts->dir);
	snprintf(pid, sizeof pid, "--pid-file=%s/munged.pid", ts->dir);
	snprintf(log, sizeof log, "--log-file=%s/munged.log", ts->dir);
	snprintf(seed, sizeof seed, "--seed-file=%s/munged.seed", ts->dir);
	ts->munged = testslurm_daemon(ts, "munged", argv);
	while (stat(ts->sock, &st) == -1 || !S_ISSOCK(st.st_mode)) {
		if (!testslurm_alive(ts, &ts->munged, "munged", why, len))
			return -1;
		if (testslurm_now_ms() >= end) {
			snprintf(why, len, "munged made no socket %s",
			    ts->sock);
			testslurm_why_log(ts, "munged", why, len);
			return -1;
		}
		testslurm_nap();
	}
	return 0;
}

/* Wait until sinfo shows the node idle; -1 with why if it does not. */
static int
testslurm_idle(struct testslurm *ts, char *why, size_t len)
{
	const char *const	 argv[] = { "sinfo", "-h", "-n", ts->node,
	    "-o", "%T", NULL };
	long long		 end = testslurm_now_ms() + TESTSLURM_UP_MS;
	char			 out[512];

	for (;;) {
		if (!testslurm_alive(ts, &ts->ctld, "slurmctld", why, len) ||
		    !testslurm_alive(ts, &ts->slurmd, "slurmd", why, len))
			return -1;
		if (testslurm_run(ts, argv, out, sizeof out) != -1 &&
		    strcmp(out, "idle\n") == 0)
			return 0;
		if (testslurm_now_ms() >= end) {
			snprintf(why, len, "node %s not idle in sinfo: "
			    "%.200s", ts->node, out);
			testslurm_why_log(ts, "slurmd", why, len);
			return -1;
		}
		testslurm_nap();
	}
}

/* Start the cluster; NULL with why when it cannot (see testslurm.h). */
struct testslurm *
testslurm_start(char *why, size_t len)
{
	const char *const	 ctld[] = { "slurmctld", "-D", NULL };
	const char		*slurmd[] = { "slurmd", "-D", "-N", NULL,
	    NULL };
	struct testslurm	*ts;
	int			 missing;

	testslurm_path_sbin();
	need_or_fail("munged", why, len, &missing);
	if (!missing)
		need_or_fail("mungekey", why, len, &missing);
	if (!missing)
		need_or_fail("slurmctld", why, len, &missing);
	if (!missing)
		need_or_fail("slurmd", why, len, &missing);
	if (!missing)
		need_or_fail("srun", why, len, &missing);
	if (!missing)
		need_or_fail("sinfo", why, len, &missing);
	if (!missing)
		need_or_fail("squeue", why, len, &missing);
	if (!missing)
		need_or_fail("scancel", why, len, &missing);
	if (!missing)
		need_or_fail("scontrol", why, len, &missing);
	if (missing)
		return NULL;
	ts = calloc(1, sizeof *ts);
	ck_assert_ptr_nonnull(ts);
	if (testslurm_files(ts, why, len) == -1 ||
	    testslurm_munged(ts, why, len) == -1)
		goto fail;
	ts->ctld = testslurm_daemon(ts, "slurmctld", ctld);
	slurmd[3] = ts->node;
	ts->slurmd = testslurm_daemon(ts, "slurmd", slurmd);
	if (testslurm_idle(ts, why, len) == -1)
		goto fail;
	return ts;
fail:
	testslurm_stop(ts);
	return NULL;
}

/* Stop the daemon *pid: TERM, KILL after the limit, reaped. */
static void
testslurm_end(pid_t *pid)
{
	int	status;

	if (*pid <= 0)
		return;
	kill(*pid, SIGTERM);
	if (testslurm_wait(*pid, &status, TESTSLURM_STOP_MS) == -1) {
		kill(*pid, SIGKILL);
		waitpid(*pid, &status, 0);
	}
	*pid = 0;
}

/* Cancel the cluster's jobs, stop its daemons, remove its directory. */
void
testslurm_stop(struct testslurm *ts)
{
	const char *const	 cancel[] = { "scancel", "--user", ts->user,
	    NULL };
	const char *const	 queue[] = { "squeue", "-h", NULL };
	long long		 end;
	char			 out[512];
	char			**e;

	if (ts == NULL)
		return;
	if (ts->ctld > 0 && waitpid(ts->ctld, NULL, WNOHANG) == 0) {
		testslurm_run(ts, cancel, out, sizeof out);
		end = testslurm_now_ms() + TESTSLURM_STOP_MS;
		while (testslurm_run(ts, queue, out, sizeof out) == 0 &&
		    out[0] != '\0' && testslurm_now_ms() < end)
			testslurm_nap();
	}
	testslurm_end(&ts->slurmd);
	testslurm_end(&ts->ctld);
	testslurm_end(&ts->munged);
	if (ts->dir[0] != '\0')
		testdir_remove(ts->dir);
	if (ts->env != NULL) {
		for (e = ts->env; *e != NULL; e++)
			free(*e);
		free(ts->env);
	}
	free(ts);
}

/* Return the cluster's environment (NULL-terminated "NAME=value"). */
char *const *
testslurm_env(const struct testslurm *ts)
{
	return ts->env;
}

/* Return the cluster's temporary directory. */
const char *
testslurm_dir(const struct testslurm *ts)
{
	return ts->dir;
}

/* Return the path of the cluster's slurm.conf (SLURM_CONF). */
const char *
testslurm_conf(const struct testslurm *ts)
{
	return ts->conf;
}

/* Return the path of munged's socket (munge -S, slurm.conf's AuthInfo). */
const char *
testslurm_munge_socket(const struct testslurm *ts)
{
	return ts->sock;
}

/* Return the node's name (slurmd -C's, slurmd -N). */
const char *
testslurm_node(const struct testslurm *ts)
{
	return ts->node;
}
