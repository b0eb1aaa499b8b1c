/*
 * check_cgroup.c: tests for the containment of jobs.  Finding our cgroup
 * from mountinfo and /proc/self/cgroup texts (unified, hybrid as on this
 * machine, a cgroup namespace, escaped mount points, the errors); the
 * marker alone with real processes (queued signals sent by one scan, the
 * group spared, SIGKILL rescans, a dead deck's marked processes swept, a
 * live deck's spared); a child's environment with its run's marker; dead
 * decks' tokens; JOBDECK_NO_CGROUP; a file system that is not cgroup2;
 * and on the real hierarchy, as root: a run's cgroup joined by a child before it forks an
 * escapee, CPU and memory figures, SIGTERM past the group, SIGKILL of all,
 * removal, a dead deck's cgroup swept, the deck's exit.  Without root, or
 * where no cgroup can be made, those print a "SKIP: " line (tests/skip.h)
 * and tests/run.sh counts them as skipped.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <check.h>
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "skip.h"
#include "testproc.h"

/* A child of the test: its pid, and whether it was waited for. */
struct kid {
	pid_t	pid;
	int	status;
	int	reaped;
};

/* Return monotonic milliseconds. */
static long long
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Start `sleep 100` with marker (or none) in its environment; it joins
 * the cgroup of procs_fd first when that is not -1, and leads a session
 * of its own when asked.  A pipe tells when it has exec'd.
 */
static void
kid_start(struct kid *k, const char *marker, int procs_fd, int session)
{
	char	*env[3] = { "PATH=/usr/bin:/bin", (char *)marker, NULL };
	char	*argv[] = { "sleep", "100", NULL };
	char	 c;
	int	 p[2];

	memset(k, 0, sizeof *k);
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	k->pid = fork();
	ck_assert_int_ge(k->pid, 0);
	if (k->pid == 0) {
		if (procs_fd != -1 && write(procs_fd, "0", 1) != 1)
			_exit(126);
		if (session)
			setsid();
		execve("/bin/sleep", argv, env);
		_exit(127);
	}
	close(p[1]);
	/* EOF once exec closed the write end. */
	while (read(p[0], &c, 1) == -1 && errno == EINTR)
		;
	close(p[0]);
}

/* Return whether the kid has ended (reaping it), waiting up to ms. */
static int
kid_gone(struct kid *k, int ms)
{
	long long	end = now_ms() + ms;
	pid_t		r;

	if (k->reaped)
		return 1;
	for (;;) {
		r = waitpid(k->pid, &k->status, WNOHANG);
		if (r == k->pid) {
			k->reaped = 1;
			return 1;
		}
		if (now_ms() >= end)
			return 0;
		usleep(5000);
	}
}

/* Kill and reap a kid that may still run. */
static void
kid_end(struct kid *k)
{
	if (k->pid > 0 && !k->reaped) {
		kill(k->pid, SIGKILL);
		waitpid(k->pid, &k->status, 0);
		k->reaped = 1;
	}
}

/* Return the signal that ended the kid (reaped), or 0. */
static int
kid_signal(const struct kid *k)
{
	return k->reaped && WIFSIGNALED(k->status) ? WTERMSIG(k->status) : 0;
}

/* Read pid's start time (field 22 of /proc/PID/stat; 0: self), or 0. */
static unsigned long long
start_time(pid_t pid)
{
	struct testproc_stat	st;

	return testproc_stat(pid, &st) == 0 ? st.start : 0;
}

/* Return the id of this process's PID namespace (its inode). */
static unsigned long long
pidns_self(void)
{
	struct stat	sb;

	ck_assert_int_eq(stat("/proc/self/ns/pid", &sb), 0);
	return (unsigned long long)sb.st_ino;
}

/* A token for a deck that is dead: a child's pid and start, reaped. */
static void
dead_token(char *buf, size_t size)
{
	unsigned long long	start;
	pid_t			pid;
	int			p[2];
	char			c;

	ck_assert_int_eq(pipe(p), 0);
	if ((pid = fork()) == 0) {
		close(p[1]);
		while (read(p[0], &c, 1) == -1 && errno == EINTR)
			;
		_exit(0);
	}
	ck_assert_int_gt(pid, 0);
	close(p[0]);
	start = start_time(pid);
	ck_assert(start > 0);
	close(p[1]);
	waitpid(pid, NULL, 0);
	snprintf(buf, size, "jobdeck.%ld.%llu", (long)pid, start);
}

/* Tell whether the test may use the real hierarchy; say why not. */
static int
need_root(const char *test)
{
	if (geteuid() != 0) {
		TEST_SKIP_LINE("%s: needs root", test);
		return 0;
	}
	return 1;
}

/* A cgroup_locate() case: the two texts, then the directory or the error. */
static const struct {
	const char	*name;
	const char	*mountinfo;
	const char	*self;
	const char	*dir;		/* NULL: an error */
	const char	*cause;		/* part of the error */
} locate_cases[] = {
	{ "unified",
	  "22 1 0:21 / / rw - ext4 /dev/sda1 rw\n"
	  "30 22 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n",
	  "0::/user.slice/user-1000.slice/user@1000.service/app.slice/"
	  "x.scope\n",
	  "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/"
	  "app.slice/x.scope", NULL },
	{ "hybrid, as on this machine",
	  "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	  "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup "
	  "rw,memory\n"
	  "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 "
	  "rw\n",
	  "9:name=systemd:/\n4:memory:/process_api/e68b\n0::/\n",
	  "/sys/fs/cgroup/unified", NULL },
	{ "hybrid, in a child cgroup",
	  "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime shared:9 - cgroup2 "
	  "cgroup2 rw\n",
	  "1:name=systemd:/a\n0::/a/b\n",
	  "/sys/fs/cgroup/unified/a/b", NULL },
	{ "a cgroup namespace: the mount's root is ours",
	  "50 40 0:30 /payload.slice/c.scope /sys/fs/cgroup ro - cgroup2 "
	  "cgroup2 rw\n",
	  "0::/payload.slice/c.scope/sub\n",
	  "/sys/fs/cgroup/sub", NULL },
	{ "the mount's root is our cgroup itself",
	  "50 40 0:30 /p /mnt/cg rw - cgroup2 cgroup2 rw\n",
	  "0::/p\n",
	  "/mnt/cg", NULL },
	{ "an escaped mount point",
	  "60 1 0:40 / /mnt/my\\040cgroups rw - cgroup2 none rw\n",
	  "0::/x\n",
	  "/mnt/my cgroups/x", NULL },
	{ "a bind mount elsewhere first, then the one that holds us",
	  "60 1 0:40 /other /srv/cg rw - cgroup2 none rw\n"
	  "61 1 0:40 / /sys/fs/cgroup rw - cgroup2 none rw\n",
	  "0::/mine\n",
	  "/sys/fs/cgroup/mine", NULL },
	{ "a root that is only a prefix of our path's name",
	  "60 1 0:40 /ab /srv/cg rw - cgroup2 none rw\n",
	  "0::/abc\n",
	  NULL, "outside the cgroup2 mount" },
	{ "no cgroup2 mount",
	  "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n"
	  "32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n",
	  "0::/\n",
	  NULL, "no cgroup2 file system mounted" },
	{ "cgroup v1 alone: no 0:: line",
	  "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n",
	  "4:memory:/x\n1:name=systemd:/x\n",
	  NULL, "no cgroup v2 line" },
	{ "our cgroup was removed",
	  "41 31 0:38 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
	  "0::/gone (deleted)\n",
	  NULL, "was removed" },
	{ "optional fields before the separator",
	  "41 31 0:38 / /sys/fs/cgroup rw shared:4 master:1 - cgroup2 cgroup2 "
	  "rw,nsdelegate\n",
	  "0::/s\n",
	  "/sys/fs/cgroup/s", NULL },
};

/* cgroup_locate() finds the directory, or says why there is none. */
START_TEST(test_locate)
{
	char	*dir, *cause = NULL;

	dir = cgroup_locate(locate_cases[_i].mountinfo, locate_cases[_i].self,
	    &cause);
	if (locate_cases[_i].dir != NULL) {
		ck_assert_msg(dir != NULL, "%s: %s", locate_cases[_i].name,
		    cause);
		ck_assert_msg(strcmp(dir, locate_cases[_i].dir) == 0,
		    "%s: %s, not %s", locate_cases[_i].name, dir,
		    locate_cases[_i].dir);
	} else {
		ck_assert_msg(dir == NULL, "%s: found %s",
		    locate_cases[_i].name, dir);
		ck_assert_msg(cause != NULL &&
		    strstr(cause, locate_cases[_i].cause) != NULL,
		    "%s: cause \"%s\"", locate_cases[_i].name, cause);
	}
	free(dir);
	free(cause);
}
END_TEST

/* The marker alone: a run's marker names the deck and the run. */
START_TEST(test_marker_names)
{
	struct cgroup		*cg = cgroup_new(CGROUP_NO_CGROUP);
	struct cgroup_job	*a, *b;
	char			 want[128];

	ck_assert_ptr_null(cgroup_dir(cg));
	/* Asked for: nothing to warn about. */
	ck_assert_ptr_null(cgroup_warning(cg));
	snprintf(want, sizeof want, "jobdeck.%ld.%llu.%llu", (long)getpid(),
	    start_time(getpid()), pidns_self());
	ck_assert_str_eq(cgroup_token(cg), want);
	a = cgroup_job_new(cg, 7);
	b = cgroup_job_new(cg, 7);
	snprintf(want, sizeof want, "JOBDECK_JOB=%s/job-7-1",
	    cgroup_token(cg));
	ck_assert_str_eq(cgroup_job_marker(a), want);
	snprintf(want, sizeof want, "JOBDECK_JOB=%s/job-7-2",
	    cgroup_token(cg));
	ck_assert_str_eq(cgroup_job_marker(b), want);
	ck_assert_int_eq(cgroup_job_procs_fd(a), -1);
	ck_assert_ptr_null(cgroup_job_dir(a));
	ck_assert_int_eq(cgroup_job_populated(a), 0);
	cgroup_job_release(a);
	cgroup_job_release(b);
	ck_assert_int_eq(cgroup_tidy(cg), 0);
	cgroup_free(cg);
}
END_TEST

/*
 * The marker alone: signals are queued, then one flush sends them to the
 * marked processes outside the run's group (SIGTERM), or to all (SIGKILL);
 * another run's process is left alone.
 */
START_TEST(test_marker_signals)
{
	struct cgroup		*cg = cgroup_new(CGROUP_NO_CGROUP);
	struct cgroup_job	*run, *other;
	struct kid		 esc, grp, oth;
	int64_t			 cpu, mem;
	int			 n;

	run = cgroup_job_new(cg, 1);
	other = cgroup_job_new(cg, 2);
	kid_start(&esc, cgroup_job_marker(run), -1, 1);
	kid_start(&grp, cgroup_job_marker(run), -1, 0);
	kid_start(&oth, cgroup_job_marker(other), -1, 1);
	/* The test's own group stands for the run's: grp is in it. */
	cgroup_job_started(run, getpgrp());
	cgroup_job_usage(run, &cpu, &mem);
	ck_assert(cpu == -1 && mem == -1);

	ck_assert_int_eq(cgroup_job_signal(run, SIGTERM), 0);
	ck_assert_msg(!kid_gone(&esc, 100), "a queued signal went at once");
	ck_assert_int_eq(cgroup_flush(cg), 0);
	ck_assert_msg(kid_gone(&esc, 3000), "the escapee missed its SIGTERM");
	ck_assert_int_eq(kid_signal(&esc), SIGTERM);
	ck_assert_msg(!kid_gone(&grp, 200), "the group's member was signalled "
	    "past its group");
	ck_assert(!kid_gone(&oth, 0));

	ck_assert_int_eq(cgroup_job_signal(run, SIGKILL), 0);
	/* SIGKILL scans again while one finds something. */
	for (n = 0; n < 20 && cgroup_flush(cg); n++)
		;
	ck_assert_int_lt(n, 20);
	ck_assert_msg(kid_gone(&grp, 3000), "SIGKILL missed a marked process");
	ck_assert_int_eq(kid_signal(&grp), SIGKILL);
	ck_assert_msg(!kid_gone(&oth, 200), "another run's process was killed");
	kid_end(&oth);
	cgroup_free(cg);
}
END_TEST

/*
 * A sweep kills the processes marked by a dead deck (a pid gone, or a pid
 * with another start time), and spares a live deck's.
 */
START_TEST(test_marker_sweep)
{
	struct cgroup	*cg = cgroup_new(CGROUP_NO_CGROUP);
	struct kid	 dead, reused, live, deck;
	char		 tok[96], marker[160];

	dead_token(tok, sizeof tok);
	snprintf(marker, sizeof marker, "JOBDECK_JOB=%s/job-1-1", tok);
	kid_start(&dead, marker, -1, 1);
	kid_start(&deck, NULL, -1, 1);
	snprintf(marker, sizeof marker, "JOBDECK_JOB=jobdeck.%ld.%llu/job-2-3",
	    (long)deck.pid, start_time(deck.pid) + 1);
	kid_start(&reused, marker, -1, 1);
	snprintf(marker, sizeof marker, "JOBDECK_JOB=jobdeck.%ld.%llu/job-3-4",
	    (long)deck.pid, start_time(deck.pid));
	kid_start(&live, marker, -1, 1);

	ck_assert_int_ge(cgroup_sweep(cg), 2);
	ck_assert_msg(kid_gone(&dead, 3000), "a dead deck's process lives");
	ck_assert_int_eq(kid_signal(&dead), SIGKILL);
	ck_assert_msg(kid_gone(&reused, 3000), "a deck whose pid was reused "
	    "was taken for alive");
	ck_assert_msg(!kid_gone(&live, 200), "a live deck's process was "
	    "killed");
	kid_end(&live);
	kid_end(&deck);
	cgroup_free(cg);
}
END_TEST

/*
 * A child's environment: the entries given but any JOBDECK_JOB (a deck
 * this one runs in), then the run's marker; an empty or NULL one.
 */
START_TEST(test_marker_env)
{
	struct cgroup		*cg = cgroup_new(CGROUP_NO_CGROUP);
	struct cgroup_job	*cgj = cgroup_job_new(cg, 4);
	char *const		 envp[] = { "A=1", "JOBDECK_JOB=jobdeck.1.2/"
	    "job-1-1", "JOBDECK_JOBS=kept", "B=2", NULL };
	char *const		 none[] = { NULL };
	char			**env;

	env = cgroup_job_env(cgj, envp);
	ck_assert_str_eq(env[0], "A=1");
	ck_assert_str_eq(env[1], "JOBDECK_JOBS=kept");
	ck_assert_str_eq(env[2], "B=2");
	ck_assert_ptr_eq(env[3], cgroup_job_marker(cgj));
	ck_assert_ptr_null(env[4]);
	free(env);
	env = cgroup_job_env(cgj, none);
	ck_assert_ptr_eq(env[0], cgroup_job_marker(cgj));
	ck_assert_ptr_null(env[1]);
	free(env);
	env = cgroup_job_env(cgj, NULL);
	ck_assert_ptr_eq(env[0], cgroup_job_marker(cgj));
	ck_assert_ptr_null(env[1]);
	free(env);
	cgroup_job_release(cgj);
	cgroup_free(cg);
}
END_TEST

/*
 * cgroup_token_dead(): a dead deck's token (its pid gone, or reused with
 * another start time) is dead; a live one's, ours, and anything that is
 * not a whole token are not.
 */
START_TEST(test_token_dead)
{
	struct cgroup	*cg = cgroup_new(CGROUP_NO_CGROUP);
	struct kid	 deck;
	char		 tok[96];

	dead_token(tok, sizeof tok);
	ck_assert_int_eq(cgroup_token_dead(tok, strlen(tok)), 1);
	/* Only the len bytes count. */
	strcat(tok, "-abcdef");
	ck_assert_int_eq(cgroup_token_dead(tok, strcspn(tok, "-")), 1);
	ck_assert_int_eq(cgroup_token_dead(tok, strlen(tok)), 0);
	ck_assert_int_eq(cgroup_token_dead(cgroup_token(cg),
	    strlen(cgroup_token(cg))), 0);
	kid_start(&deck, NULL, -1, 1);
	snprintf(tok, sizeof tok, "jobdeck.%ld.%llu", (long)deck.pid,
	    start_time(deck.pid));
	ck_assert_int_eq(cgroup_token_dead(tok, strlen(tok)), 0);
	snprintf(tok, sizeof tok, "jobdeck.%ld.%llu", (long)deck.pid,
	    start_time(deck.pid) + 1);
	ck_assert_int_eq(cgroup_token_dead(tok, strlen(tok)), 1);
	kid_end(&deck);
	ck_assert_int_eq(cgroup_token_dead("jobdeck.", 8), 0);
	ck_assert_int_eq(cgroup_token_dead("jobdeck.x.1", 11), 0);
	ck_assert_int_eq(cgroup_token_dead("jobdeck.0.1", 11), 0);
	ck_assert_int_eq(cgroup_token_dead("other.99999999.1", 16), 0);
	ck_assert_int_eq(cgroup_token_dead("", 0), 0);
	cgroup_free(cg);
}
END_TEST

/* JOBDECK_NO_CGROUP: set and not "0..." or empty asks for the marker. */
START_TEST(test_env_flags)
{
	static const struct {
		const char	*value;
		int		 flags;
	} cases[] = {
		{ NULL, 0 }, { "", 0 }, { "0", 0 }, { "1", CGROUP_NO_CGROUP },
		{ "yes", CGROUP_NO_CGROUP },
	};
	size_t	i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if (cases[i].value == NULL)
			unsetenv(CGROUP_ENV_NO_CGROUP);
		else
			setenv(CGROUP_ENV_NO_CGROUP, cases[i].value, 1);
		ck_assert_msg(cgroup_env_flags() == cases[i].flags, "%s=%s",
		    CGROUP_ENV_NO_CGROUP, cases[i].value != NULL ?
		    cases[i].value : "(unset)");
	}
	unsetenv(CGROUP_ENV_NO_CGROUP);
}
END_TEST

/* A base that is no cgroup2 file system: the marker, and one warning. */
START_TEST(test_not_cgroup2)
{
	struct cgroup		*cg = cgroup_new_in("/tmp", 0);
	struct cgroup_job	*cgj;
	const char		*w;

	ck_assert_ptr_null(cgroup_dir(cg));
	w = cgroup_warning(cg);
	ck_assert_msg(w != NULL && strstr(w, "not a cgroup2 file system") !=
	    NULL && strstr(w, "/tmp") != NULL, "warning: %s", w);
	ck_assert_ptr_null(cgroup_warning(cg));
	cgj = cgroup_job_new(cg, 1);
	ck_assert_int_eq(cgroup_job_procs_fd(cgj), -1);
	ck_assert_ptr_null(cgroup_warning(cg));
	cgroup_job_release(cgj);
	cgroup_free(cg);
}
END_TEST

/* Read /proc/PID/cgroup's 0:: line into buf. */
static void
proc_cgroup(pid_t pid, char *buf, size_t size)
{
	char	path[64], text[4096], *p, *end;
	int	fd;
	ssize_t	n;

	buf[0] = '\0';
	snprintf(path, sizeof path, "/proc/%ld/cgroup", (long)pid);
	if ((fd = open(path, O_RDONLY)) == -1)
		return;
	n = read(fd, text, sizeof text - 1);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	if ((p = strstr(text, "0::")) == NULL)
		return;
	p += 3;
	if ((end = strchr(p, '\n')) != NULL)
		*end = '\0';
	snprintf(buf, size, "%s", p);
}

/*
 * On the real hierarchy: a run's child joins its cgroup first; an escapee
 * in a session of its own is in it too; CPU and memory are read; SIGTERM
 * reaches the escapee and spares the group; SIGKILL empties the cgroup;
 * it is removed, its CPU figure kept; the deck's directory goes at the end.
 */
START_TEST(test_real_cgroup)
{
	struct cgroup		*cg;
	struct cgroup_job	*cgj;
	struct kid		 leader, esc;
	struct stat		 sb;
	char			 dir[4096], where[4096];
	int64_t			 cpu, mem;

	if (!need_root("real_cgroup"))
		return;
	cg = cgroup_new(0);
	if (cgroup_dir(cg) == NULL) {
		TEST_SKIP_LINE("real_cgroup: %s", cgroup_warning(cg));
		cgroup_free(cg);
		return;
	}
	ck_assert_ptr_null(cgroup_warning(cg));
	ck_assert(strstr(cgroup_dir(cg), cgroup_token(cg)) != NULL);
	ck_assert_int_eq(stat(cgroup_dir(cg), &sb), 0);
	cgj = cgroup_job_new(cg, 3);
	ck_assert_int_gt(cgroup_job_procs_fd(cgj), 2);
	snprintf(dir, sizeof dir, "%s", cgroup_job_dir(cgj));
	ck_assert_int_eq(stat(dir, &sb), 0);
	ck_assert_int_eq(cgroup_job_populated(cgj), 0);

	kid_start(&leader, cgroup_job_marker(cgj), cgroup_job_procs_fd(cgj), 1);
	kid_start(&esc, cgroup_job_marker(cgj), cgroup_job_procs_fd(cgj), 1);
	cgroup_job_started(cgj, leader.pid);
	ck_assert_int_eq(cgroup_job_procs_fd(cgj), -1);
	proc_cgroup(esc.pid, where, sizeof where);
	ck_assert_msg(strstr(dir, where) != NULL && strstr(where, "/job-3-") !=
	    NULL, "the escapee is in %s, not %s", where, dir);
	ck_assert_int_eq(cgroup_job_populated(cgj), 1);
	cgroup_job_usage(cgj, &cpu, &mem);
	ck_assert_msg(cpu >= 0, "no CPU figure");
	ck_assert_msg(mem > 0, "no memory figure: %lld", (long long)mem);
	fprintf(stderr, "check_cgroup: two sleeps: cpu %lld us, memory %lld "
	    "bytes\n", (long long)cpu, (long long)mem);

	ck_assert_int_eq(cgroup_job_signal(cgj, SIGTERM), 1);
	ck_assert_msg(kid_gone(&esc, 3000), "SIGTERM missed the escapee");
	ck_assert_int_eq(kid_signal(&esc), SIGTERM);
	ck_assert_msg(!kid_gone(&leader, 200), "the group got the SIGTERM");
	ck_assert_int_eq(cgroup_job_remove(cgj), -1);
	cgroup_job_signal(cgj, SIGKILL);
	ck_assert_msg(kid_gone(&leader, 3000), "SIGKILL missed the leader");
	ck_assert_int_eq(kid_signal(&leader), SIGKILL);
	ck_assert_int_eq(cgroup_job_remove(cgj), 0);
	ck_assert_msg(stat(dir, &sb) == -1 && errno == ENOENT,
	    "%s is still there", dir);
	cgroup_job_usage(cgj, &cpu, &mem);
	ck_assert(cpu >= 0 && mem == -1);
	cgroup_job_release(cgj);
	snprintf(dir, sizeof dir, "%s", cgroup_dir(cg));
	cgroup_free(cg);
	ck_assert_msg(stat(dir, &sb) == -1 && errno == ENOENT,
	    "the deck's %s is still there", dir);
}
END_TEST

/*
 * A released run whose cgroup still holds a process waits in the deck
 * (cgroup_tidy() says so) until it is empty; cgroup_kill_all() empties
 * it, and marked processes outside any cgroup die too.
 */
START_TEST(test_real_tidy_kill_all)
{
	struct cgroup		*cg;
	struct cgroup_job	*cgj;
	struct kid		 in, marked;
	struct stat		 sb;
	char			 dir[4096];

	if (!need_root("real_tidy_kill_all"))
		return;
	cg = cgroup_new(0);
	if (cgroup_dir(cg) == NULL) {
		TEST_SKIP_LINE("real_tidy_kill_all: %s", cgroup_warning(cg));
		cgroup_free(cg);
		return;
	}
	cgj = cgroup_job_new(cg, 1);
	snprintf(dir, sizeof dir, "%s", cgroup_job_dir(cgj));
	kid_start(&in, NULL, cgroup_job_procs_fd(cgj), 1);
	kid_start(&marked, cgroup_job_marker(cgj), -1, 1);
	cgroup_job_started(cgj, in.pid);
	cgroup_job_release(cgj);
	ck_assert_int_eq(cgroup_tidy(cg), 1);
	ck_assert_int_eq(stat(dir, &sb), 0);
	cgroup_kill_all(cg);
	ck_assert_msg(kid_gone(&in, 3000), "kill_all missed the cgroup");
	ck_assert_msg(kid_gone(&marked, 3000), "kill_all missed the marker");
	ck_assert_int_eq(cgroup_tidy(cg), 0);
	ck_assert_msg(stat(dir, &sb) == -1, "%s is still there", dir);
	cgroup_free(cg);
}
END_TEST

/*
 * A dead deck's cgroup beside ours, with a process in a run's cgroup:
 * the sweep kills it and removes the directories; a live deck's stays.
 */
START_TEST(test_real_sweep)
{
	struct cgroup	*cg;
	struct kid	 left, deck, alive;
	struct stat	 sb;
	char		 tok[96], ddir[4096], jdir[4200], ldir[4096];
	char		 ljdir[4200], procs[4300];
	int		 fd;

	if (!need_root("real_sweep"))
		return;
	cg = cgroup_new(0);
	if (cgroup_dir(cg) == NULL) {
		TEST_SKIP_LINE("real_sweep: %s", cgroup_warning(cg));
		cgroup_free(cg);
		return;
	}
	/* The base is the deck's parent. */
	snprintf(ddir, sizeof ddir, "%s", cgroup_dir(cg));
	*strrchr(ddir, '/') = '\0';
	snprintf(ldir, sizeof ldir, "%s", ddir);
	dead_token(tok, sizeof tok);
	snprintf(ddir + strlen(ddir), sizeof ddir - strlen(ddir), "/%s", tok);
	snprintf(jdir, sizeof jdir, "%s/job-1-1", ddir);
	ck_assert_int_eq(mkdir(ddir, 0755), 0);
	ck_assert_int_eq(mkdir(jdir, 0755), 0);
	snprintf(procs, sizeof procs, "%s/cgroup.procs", jdir);
	ck_assert_int_ge(fd = open(procs, O_WRONLY | O_CLOEXEC), 0);
	kid_start(&left, NULL, fd, 1);
	close(fd);

	kid_start(&deck, NULL, -1, 1);
	snprintf(ldir + strlen(ldir), sizeof ldir - strlen(ldir),
	    "/jobdeck.%ld.%llu", (long)deck.pid, start_time(deck.pid));
	snprintf(ljdir, sizeof ljdir, "%s/job-1-1", ldir);
	ck_assert_int_eq(mkdir(ldir, 0755), 0);
	ck_assert_int_eq(mkdir(ljdir, 0755), 0);
	snprintf(procs, sizeof procs, "%s/cgroup.procs", ljdir);
	ck_assert_int_ge(fd = open(procs, O_WRONLY | O_CLOEXEC), 0);
	kid_start(&alive, NULL, fd, 1);
	close(fd);

	ck_assert_int_ge(cgroup_sweep(cg), 1);
	ck_assert_msg(kid_gone(&left, 3000), "the dead deck's process lives");
	ck_assert_int_eq(kid_signal(&left), SIGKILL);
	cgroup_tidy(cg);
	ck_assert_msg(stat(ddir, &sb) == -1, "%s is still there", ddir);
	ck_assert_msg(!kid_gone(&alive, 200), "a live deck's process died");
	ck_assert_int_eq(stat(ljdir, &sb), 0);
	kid_end(&alive);
	kid_end(&deck);
	rmdir(ljdir);
	rmdir(ldir);
	cgroup_free(cg);
}
END_TEST

/*
 * Start a sleep as pid 1 of a new PID namespace, marked as a job of the
 * deck deck, or (NULL) of "jobdeck.1.START.NS": itself, as its own
 * namespace names it; that token goes to token.  Return its pid as we
 * see it.
 */
static pid_t
ns_kid_start(const char *deck, char *token, size_t size)
{
	char			 marker[160], *argv[] = { "sleep", "100", NULL };
	char			*env[] = { "PATH=/usr/bin:/bin", marker, NULL };
	char			 tok[128], c;
	pid_t			 mid, kid;
	int			 p[2], q[2];

	/* Close-on-exec: p's end of file says the sleep was exec'd. */
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(q, O_CLOEXEC), 0);
	if ((mid = fork()) == 0) {
		close(p[0]);
		close(q[0]);
		if (unshare(CLONE_NEWPID) != 0)
			_exit(125);
		if ((kid = fork()) == 0) {
			/* Our /proc: its "self" is this process. */
			if (deck != NULL)
				snprintf(tok, sizeof tok, "%s", deck);
			else
				snprintf(tok, sizeof tok, "jobdeck.1.%llu.%llu",
				    start_time(0), pidns_self());
			snprintf(marker, sizeof marker, "JOBDECK_JOB=%s/"
			    "job-1-1", tok);
			if (write(p[1], tok, sizeof tok) != sizeof tok)
				_exit(126);
			execve("/bin/sleep", argv, env);
			_exit(127);
		}
		_exit(kid > 0 && write(q[1], &kid, sizeof kid) == sizeof kid ?
		    0 : 1);
	}
	ck_assert_int_gt(mid, 0);
	close(p[1]);
	close(q[1]);
	ck_assert_int_eq(read(q[0], &kid, sizeof kid), (ssize_t)sizeof kid);
	close(q[0]);
	ck_assert_int_eq(read(p[0], tok, sizeof tok), (ssize_t)sizeof tok);
	while (read(p[0], &c, 1) == -1 && errno == EINTR)
		;
	close(p[0]);
	waitpid(mid, NULL, 0);
	snprintf(token, size, "%s", tok);
	return kid;
}

/* Return whether pid still runs (not a zombie), looking for ms. */
static int
pid_lives(pid_t pid, int ms)
{
	long long	end = now_ms() + ms;

	do {
		if (testproc_dead(pid))
			return 0;
		usleep(20000);
	} while (now_ms() < end);
	return 1;
}

/* Make base/token/job-1-1 and move pid into it; its job's directory. */
static void
ns_cgroup(const char *base, const char *token, pid_t pid, char *jdir,
    size_t size)
{
	char	ddir[4200], procs[4400];
	int	fd;

	snprintf(ddir, sizeof ddir, "%s/%s", base, token);
	snprintf(jdir, size, "%s/job-1-1", ddir);
	ck_assert_int_eq(mkdir(ddir, 0755), 0);
	ck_assert_int_eq(mkdir(jdir, 0755), 0);
	snprintf(procs, sizeof procs, "%s/cgroup.procs", jdir);
	ck_assert_int_ge(fd = open(procs, O_WRONLY | O_CLOEXEC), 0);
	ck_assert_int_gt(dprintf(fd, "%ld", (long)pid), 0);
	close(fd);
}

/* Remove what ns_cgroup() made once its process is gone. */
static void
ns_cgroup_remove(const char *jdir)
{
	char	ddir[4200];

	snprintf(ddir, sizeof ddir, "%s", jdir);
	*strrchr(ddir, '/') = '\0';
	while (rmdir(jdir) != 0 && errno == EBUSY)
		usleep(10000);
	rmdir(ddir);
}

/*
 * Decks are judged in their own PID namespace only.  A dead deck of ours
 * whose job runs in a PID namespace of its own (unshare, bwrap, a
 * browser's sandbox) is swept, by marker and by cgroup; a deck of
 * another namespace (a container's, an unshare'd one), which names
 * itself by a pid that means another process here, is left alone.
 */
START_TEST(test_real_pidns)
{
	struct cgroup	*cg;
	char		 dead[96], ours[128], tok[128], base[4096];
	char		 jdir[4300];
	pid_t		 kid;

	if (!need_root("real_pidns"))
		return;
	cg = cgroup_new(0);
	dead_token(dead, sizeof dead);
	snprintf(ours, sizeof ours, "%s.%llu", dead, pidns_self());
	/* Marked by a dead deck of ours (both forms of its token). */
	kid = ns_kid_start(dead, tok, sizeof tok);
	ck_assert_int_ge(cgroup_sweep(cg), 1);
	ck_assert_msg(!pid_lives(kid, 0), "a job of the dead deck %s in a "
	    "PID namespace of its own outlived the sweep", tok);
	kid = ns_kid_start(ours, tok, sizeof tok);
	ck_assert_int_ge(cgroup_sweep(cg), 1);
	ck_assert_msg(!pid_lives(kid, 0), "a job of the dead deck %s in a "
	    "PID namespace of its own outlived the sweep", tok);
	/* Marked by a deck of another namespace. */
	kid = ns_kid_start(NULL, tok, sizeof tok);
	cgroup_sweep(cg);
	ck_assert_msg(pid_lives(kid, 300), "the sweep killed a process of "
	    "the deck %s of another PID namespace", tok);
	kill(kid, SIGKILL);
	if (cgroup_dir(cg) == NULL) {
		TEST_SKIP_LINE("real_pidns: %s", cgroup_warning(cg));
		cgroup_free(cg);
		return;
	}
	snprintf(base, sizeof base, "%s", cgroup_dir(cg));
	*strrchr(base, '/') = '\0';
	/* In a dead deck's cgroup of ours: killed, the cgroup removed. */
	kid = ns_kid_start(dead, tok, sizeof tok);
	ns_cgroup(base, ours, kid, jdir, sizeof jdir);
	ck_assert_int_ge(cgroup_sweep(cg), 1);
	ck_assert_msg(!pid_lives(kid, 0), "the dead deck's cgroup %s kept "
	    "a process of a PID namespace of its own", jdir);
	cgroup_tidy(cg);
	ns_cgroup_remove(jdir);
	/* In the cgroup of a deck of another namespace: left alone. */
	kid = ns_kid_start(NULL, tok, sizeof tok);
	ns_cgroup(base, tok, kid, jdir, sizeof jdir);
	cgroup_sweep(cg);
	ck_assert_msg(pid_lives(kid, 300), "the sweep killed the cgroup %s of "
	    "a deck of another PID namespace", jdir);
	kill(kid, SIGKILL);
	ns_cgroup_remove(jdir);
	cgroup_free(cg);
}
END_TEST

static Suite *
cgroup_suite(void)
{
	Suite	*s = suite_create("cgroup");
	TCase	*tc;

	tc = tcase_create("locate");
	tcase_add_loop_test(tc, test_locate, 0,
	    (int)(sizeof locate_cases / sizeof locate_cases[0]));
	suite_add_tcase(s, tc);

	tc = tcase_create("marker");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_marker_names);
	tcase_add_test(tc, test_marker_signals);
	tcase_add_test(tc, test_marker_sweep);
	tcase_add_test(tc, test_marker_env);
	tcase_add_test(tc, test_token_dead);
	tcase_add_test(tc, test_env_flags);
	tcase_add_test(tc, test_not_cgroup2);
	suite_add_tcase(s, tc);

	tc = tcase_create("real");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_real_cgroup);
	tcase_add_test(tc, test_real_tidy_kill_all);
	tcase_add_test(tc, test_real_sweep);
	tcase_add_test(tc, test_real_pidns);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr = srunner_create(cgroup_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
