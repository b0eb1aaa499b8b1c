/*
 * check_host.c: what runs a job on another host, without a host: the
 * script a run is on an ssh host (host-ssh.c) run here by /bin/sh as
 * sshd would run it (the login shell's -c over the remote command line):
 * every byte of an environment value and a cwd arrives as it was, only
 * what the deck adds to its own environment is sent, ~ is the host's
 * home, a program's words pass without a shell, what the command left
 * (a setsid child) is killed when it ends, and the watcher kills the job
 * when its parent (the connection's sshd) goes.  Then proc's relay
 * (signals to the group elsewhere, SIGKILL to both, 0 here) and supcmd
 * (a short command's status and output, its bound, its output cut).
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host-private.h"
#include "loop.h"
#include "proc.h"
#include "pty.h"
#include "supcmd.h"
#include "testdir.h"
#include "testproc.h"
#include "waitstatus.h"
#include "xmalloc.h"

#define WAIT_MS		20000	/* a generous bound on what is awaited */

extern char	**environ;

static char	 dir[] = "/tmp/jobdeck-host.XXXXXX";

/* Make the scratch directory, HOME under it (the script's pid files). */
static void
setup(void)
{
	strcpy(dir, "/tmp/jobdeck-host.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	setenv("HOME", dir, 1);
	unsetenv("XDG_RUNTIME_DIR");
}

/* Remove the scratch directory. */
static void
teardown(void)
{
	testdir_remove(dir);
}

/* Return a file's contents (NUL-terminated; its length in *len). */
static char *
slurp(const char *path, size_t *len)
{
	char	*buf = xmalloc(65536);
	ssize_t	 n;
	size_t	 off = 0;
	int	 fd;

	ck_assert_msg((fd = open(path, O_RDONLY)) != -1, "%s: %s", path,
	    strerror(errno));
	while ((n = read(fd, buf + off, 65535 - off)) > 0)
		off += (size_t)n;
	close(fd);
	buf[off] = '\0';
	if (len != NULL)
		*len = off;
	return buf;
}

/*
 * Run cmd's script as sshd runs a session's command: the login shell
 * (/bin/sh) -c the remote command line; return its wait status.
 */
static int
run_script(const char *token, const struct host_cmd *cmd)
{
	struct host_run	 run;
	char		*script, *remote;
	pid_t		 pid;
	int		 status;

	memset(&run, 0, sizeof run);
	run.token = (char *)token;
	script = host_ssh_script(&run, cmd);
	remote = host_ssh_remote(script);
	free(script);
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", remote, (char *)NULL);
		_exit(127);
	}
	free(remote);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

/*
 * Every byte but NUL, and the values a shell would act on, reach the
 * command as they were: printed with printf '%s' to files and compared.
 */
START_TEST(test_script_env_bytes)
{
	static const char *const values[] = {
		"it's \"q\" $(touch HACKED) `touch HACKED` $HOME ${x} \\ %s %%",
		"line1\nline2\n", "\n", "", "-n", "ünïcödé ✓", "a\tb\rc",
	};
	char	 all[256], *envp[12], *got, path[256], cmd[1024];
	char	 base0[] = "KEPT=same";
	char	*base[] = { base0, NULL };
	size_t	 i, len, n = sizeof values / sizeof values[0];
	struct host_cmd	hc;

	for (i = 1; i < 256; i++)
		all[i - 1] = (char)i;
	all[255] = '\0';
	envp[0] = xprintf("ALL=%s", all);
	for (i = 0; i < n; i++)
		envp[i + 1] = xprintf("V%zu=%s", i, values[i]);
	envp[n + 1] = base0;		/* the deck's own: not sent */
	envp[n + 2] = NULL;
	snprintf(cmd, sizeof cmd, "cd %s && printf %%s \"$ALL\" >all && "
	    "for i in 0 1 2 3 4 5 6; do eval \"printf %%s \\\"\\$V$i\\\"\" "
	    ">v$i; done; printf %%s \"${KEPT-unset}\" >kept", dir);
	memset(&hc, 0, sizeof hc);
	hc.id = 1;
	hc.command = cmd;
	hc.envp = envp;
	hc.base = base;
	hc.no_pty = 1;
	ck_assert_int_eq(run_script("t1.", &hc), 0);
	snprintf(path, sizeof path, "%s/all", dir);
	got = slurp(path, &len);
	ck_assert_uint_eq(len, 255);
	ck_assert_mem_eq(got, all, 255);
	free(got);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/v%zu", dir, i);
		got = slurp(path, &len);
		ck_assert_uint_eq(len, strlen(values[i]));
		ck_assert_mem_eq(got, values[i], len);
		free(got);
	}
	snprintf(path, sizeof path, "%s/kept", dir);
	got = slurp(path, NULL);
	ck_assert_str_eq(got, "unset");
	free(got);
	snprintf(path, sizeof path, "%s/HACKED", dir);
	ck_assert_int_ne(access(path, F_OK), 0);
	for (i = 0; i <= n; i++)
		free(envp[i]);
}
END_TEST

/*
 * The job's variables cannot change the script's own (its token, the
 * watcher's pid, its directory): T, S, D, v, k, st arrive as they are,
 * the run still ends clean, and the script's _jd_ names are not sent.
 */
START_TEST(test_script_env_names)
{
	char		*envp[] = { "T=", "S=1", "D=/nonexistent", "v=hello",
	    "k=x", "st=9", "P=1", "W=1", "_jd_v=x", NULL };
	char		 cmd[512], path[512], *got;
	struct host_cmd	 hc;

	snprintf(cmd, sizeof cmd, "cd %s && printf '%%s|' \"$T\" \"$S\" "
	    "\"$D\" \"$v\" \"$k\" \"$st\" \"$P\" \"$W\" "
	    "\"${_jd_v-unset}\" >names", dir);
	memset(&hc, 0, sizeof hc);
	hc.id = 8;
	hc.command = cmd;
	hc.envp = envp;
	hc.no_pty = 1;
	ck_assert_int_eq(run_script("t8.", &hc), 0);
	snprintf(path, sizeof path, "%s/names", dir);
	got = slurp(path, NULL);
	ck_assert_str_eq(got, "|1|/nonexistent|hello|x|9|1|1|unset|");
	free(got);
	/* The pid file went with the run: the script's D and T held. */
	snprintf(path, sizeof path, "%s/.cache/jobdeck/t8.pid", dir);
	ck_assert_int_ne(access(path, F_OK), 0);
}
END_TEST

/*
 * A cwd of ~/x is the host's $HOME/x, a hostile one is entered as it is,
 * and one that cannot be entered ends the run (1) without the command.
 */
START_TEST(test_script_cwd)
{
	char		 sub[512], odd[512], path[600], *got;
	char		*envp[] = { NULL };
	struct host_cmd	 hc;

	snprintf(sub, sizeof sub, "%s/sub dir", dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	snprintf(odd, sizeof odd, "%s/$(x) 'q'", dir);
	ck_assert_int_eq(mkdir(odd, 0700), 0);
	memset(&hc, 0, sizeof hc);
	hc.id = 2;
	hc.envp = envp;
	hc.no_pty = 1;
	hc.command = "pwd >where";
	hc.cwd = "~/sub dir";
	ck_assert_int_eq(run_script("t2.", &hc), 0);
	snprintf(path, sizeof path, "%s/where", sub);
	got = slurp(path, NULL);
	ck_assert_str_eq(got, (snprintf(path, sizeof path, "%s\n", sub),
	    path));
	free(got);
	hc.cwd = odd;
	ck_assert_int_eq(run_script("t3.", &hc), 0);
	snprintf(path, sizeof path, "%s/where", odd);
	ck_assert_int_eq(access(path, F_OK), 0);
	hc.cwd = "/nonexistent/jobdeck";
	hc.command = "touch ran";
	ck_assert_int_eq(WEXITSTATUS(run_script("t4.", &hc)), 1);
}
END_TEST

/* A program's words reach it as they are, with no shell between. */
START_TEST(test_script_argv)
{
	char		 out[512], *got;
	char		*envp[] = { NULL };
	char		*argv[] = { "sh", "-c", "printf '%s|' \"$@\" >\"$0\"",
	    out, "a b", "$(x)", "'", "", NULL };
	struct host_cmd	 hc;

	snprintf(out, sizeof out, "%s/args", dir);
	memset(&hc, 0, sizeof hc);
	hc.id = 5;
	hc.argv = argv;
	hc.envp = envp;
	hc.no_pty = 1;
	ck_assert_int_eq(run_script("t5.", &hc), 0);
	got = slurp(out, NULL);
	ck_assert_str_eq(got, "a b|$(x)|'||");
	free(got);
}
END_TEST

/* Return the pid written in dir's file name, or -1. */
static pid_t
read_pid(const char *name)
{
	char	path[512], *got;
	pid_t	pid;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	got = slurp(path, NULL);
	pid = (pid_t)atol(got);
	free(got);
	return pid;
}

/* Wait until pid is gone (or a zombie); 1 when it went. */
static int
wait_gone(pid_t pid)
{
	struct timespec	ts = { 0, 20 * 1000 * 1000 };
	int		i;

	for (i = 0; i < WAIT_MS / 20; i++) {
		if (testproc_dead(pid))
			return 1;
		nanosleep(&ts, NULL);
	}
	return 0;
}

/*
 * What the command left, even in a session of its own, is killed when
 * the command ends (its mark); the exit status is the command's.
 */
START_TEST(test_script_leftovers)
{
	char		 cmd[512];
	char		*envp[] = { NULL };
	struct host_cmd	 hc;
	pid_t		 left;

	snprintf(cmd, sizeof cmd, "cd %s; setsid sleep 3001 </dev/null "
	    ">/dev/null 2>&1 & echo $! >left; sleep 0.2; exit 7", dir);
	memset(&hc, 0, sizeof hc);
	hc.id = 6;
	hc.command = cmd;
	hc.envp = envp;
	hc.no_pty = 1;
	ck_assert_int_eq(WEXITSTATUS(run_script("t6.", &hc)), 7);
	left = read_pid("left");
	ck_assert_msg(wait_gone(left), "the setsid child %ld is alive",
	    (long)left);
}
END_TEST

/*
 * The connection goes (the script's parent, sshd, is killed): the
 * watcher kills the job, whatever it ignores.
 */
START_TEST(test_script_watcher)
{
	struct host_run	 run;
	struct host_cmd	 hc;
	char		 cmd[512], *script, *remote, path[512];
	char		*envp[] = { NULL };
	pid_t		 parent, job;
	int		 status, i;
	struct timespec	 ts = { 0, 20 * 1000 * 1000 };

	snprintf(cmd, sizeof cmd, "trap '' HUP INT TERM; cd %s; "
	    "sleep 3002 </dev/null >/dev/null 2>&1 & echo $! >job; wait", dir);
	memset(&hc, 0, sizeof hc);
	hc.id = 7;
	hc.command = cmd;
	hc.envp = envp;
	hc.no_pty = 1;
	memset(&run, 0, sizeof run);
	run.token = (char *)"t7.";
	script = host_ssh_script(&run, &hc);
	remote = host_ssh_remote(script);
	free(script);
	parent = fork();
	ck_assert_int_ne(parent, -1);
	if (parent == 0) {
		/* sshd's stand-in: the script's parent, then killed. */
		setpgid(0, 0);
		if (fork() == 0) {
			execl("/bin/sh", "sh", "-c", remote, (char *)NULL);
			_exit(127);
		}
		pause();
		_exit(0);
	}
	free(remote);
	snprintf(path, sizeof path, "%s/job", dir);
	for (i = 0; i < WAIT_MS / 20 && access(path, F_OK) != 0; i++)
		nanosleep(&ts, NULL);
	nanosleep(&ts, NULL);
	job = read_pid("job");
	ck_assert(!testproc_dead(job));
	kill(parent, SIGKILL);
	ck_assert_int_eq(waitpid(parent, &status, 0), parent);
	ck_assert_msg(wait_gone(job), "the job %ld outlived its connection",
	    (long)job);
}
END_TEST

/* What the relay of test_relay was asked. */
static int	relay_sigs[8];
static int	relay_n;

/* The relay: record the signal. */
static int
relay_signal(struct proc *p, int sig, void *arg)
{
	(void)p;
	(void)arg;
	if (relay_n < 8)
		relay_sigs[relay_n++] = sig;
	return 0;
}

/*
 * A relay takes a leader's signals for its group (the local group does
 * not get them), SIGKILL goes to both, and 0 (is it there?) stays here.
 */
START_TEST(test_relay)
{
	static const struct proc_relay relay = { relay_signal };
	struct loop		*loop = loop_new();
	struct proc_reaper	*r = proc_reaper_new(loop);
	struct proc		*p = proc_new(r, NULL, 0, NULL, NULL);
	struct pty_spec		 ps;
	struct pty_child	 child;
	char			*argv[] = { "sleep", "3003", NULL }, *cause;
	int			 status;

	memset(&ps, 0, sizeof ps);
	ps.path = "sleep";
	ps.argv = argv;
	ps.envp = environ;
	ps.no_pty = 1;
	ps.null_stdin = 1;
	ps.null_output = 1;
	memset(&child, 0, sizeof child);
	ck_assert_int_eq(proc_spawn(p, &ps, &child, &cause), 0);
	proc_set_relay(p, &relay, NULL);
	relay_n = 0;
	ck_assert_int_eq(proc_signal(p, SIGTERM), 0);
	ck_assert_int_eq(proc_signal(p, SIGINT), 0);
	ck_assert_int_eq(proc_signal(p, 0), 0);
	ck_assert_int_eq(relay_n, 2);
	ck_assert_int_eq(relay_sigs[0], SIGTERM);
	ck_assert_int_eq(relay_sigs[1], SIGINT);
	ck_assert_int_eq(waitpid(proc_pid(p), &status, WNOHANG), 0);
	proc_kill(p);
	ck_assert_int_eq(relay_sigs[2], SIGKILL);
	ck_assert_int_eq(waitpid(proc_pid(p), &status, 0), proc_pid(p));
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	proc_set_relay(p, NULL, NULL);
	pty_child_close(&child);
	proc_free(p);
	proc_reaper_free(r);
	loop_free(loop);
}
END_TEST

/* What a supcmd told. */
struct told {
	int	done;
	int	status;
	size_t	len;
	char	out[256];
	char	last[256];
};

/* A supcmd ended: remember how. */
static void
told_done(struct supcmd *sc, int status, const char *out, size_t len,
    void *arg)
{
	struct told	*t = arg;
	char		*copy = xstrdup(out);

	(void)sc;
	t->done++;
	t->status = status;
	t->len = len;
	snprintf(t->out, sizeof t->out, "%s", out);
	snprintf(t->last, sizeof t->last, "%s", supcmd_last_line(copy));
	free(copy);
}

static const struct supcmd_cbs told_cbs = { told_done };

/* Run argv as a supcmd with a bound until it is told done. */
static void
supcmd_run(char **argv, int64_t bound, struct told *t)
{
	struct loop		*loop = loop_new();
	struct proc_reaper	*r = proc_reaper_new(loop);
	char			*cause = NULL;
	int64_t			 end = loop_now_ms() + WAIT_MS;

	memset(t, 0, sizeof *t);
	ck_assert_ptr_nonnull(supcmd_start(loop, r, NULL, argv, NULL, bound,
	    &told_cbs, t, &cause));
	while (t->done == 0 && loop_now_ms() < end)
		loop_run_once(loop, 100);
	ck_assert_int_eq(t->done, 1);
	proc_reaper_free(r);
	loop_free(loop);
}

/*
 * A short command: its status and output (stdout and stderr together),
 * its last line; one past its bound is killed and told so; output past
 * SUPCMD_OUT_MAX is read and dropped; one that cannot start says why.
 */
START_TEST(test_supcmd)
{
	char		*ok[] = { "sh", "-c", "echo out; echo last err >&2; "
	    "exit 3", NULL };
	char		*slow[] = { "sh", "-c", "echo $$ >\"$0\"; exec sleep 3004",
	    NULL, NULL };
	char		*big[] = { "sh", "-c", "head -c 200000 /dev/zero; echo "
	    "x", NULL };
	char		*none[] = { "/nonexistent/jobdeck-cmd", NULL };
	char		 path[512];
	struct told	 t;
	struct loop	*loop;
	struct proc_reaper *r;
	char		*cause = NULL;

	supcmd_run(ok, 0, &t);
	ck_assert_int_eq(waitstatus_exit_code(t.status), 3);
	ck_assert_str_eq(t.out, "out\nlast err\n");
	ck_assert_str_eq(t.last, "last err");
	snprintf(path, sizeof path, "%s/slow", dir);
	slow[3] = path;
	supcmd_run(slow, 300, &t);
	ck_assert_int_eq(t.status, WAITSTATUS_NONE);
	ck_assert(wait_gone(read_pid("slow")));
	supcmd_run(big, 0, &t);
	ck_assert_int_eq(waitstatus_exit_code(t.status), 0);
	ck_assert_uint_eq(t.len, SUPCMD_OUT_MAX);
	loop = loop_new();
	r = proc_reaper_new(loop);
	/* Not found: exec fails in the child, told as its 127. */
	if (supcmd_start(loop, r, NULL, none, NULL, 0, &told_cbs, &t, &cause) ==
	    NULL) {
		ck_assert_ptr_nonnull(cause);
		free(cause);
	} else {
		memset(&t, 0, sizeof t);
		while (t.done == 0)
			loop_run_once(loop, 100);
		ck_assert_int_eq(waitstatus_exit_code(t.status), 127);
	}
	proc_reaper_free(r);
	loop_free(loop);
}
END_TEST

/* The suite. */
static Suite *
host_suite(void)
{
	Suite	*s = suite_create("host");
	TCase	*tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_script_env_bytes);
	tcase_add_test(tc, test_script_env_names);
	tcase_add_test(tc, test_script_cwd);
	tcase_add_test(tc, test_script_argv);
	tcase_add_test(tc, test_script_leftovers);
	tcase_add_test(tc, test_script_watcher);
	tcase_add_test(tc, test_relay);
	tcase_add_test(tc, test_supcmd);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite. */
int
main(void)
{
	SRunner	*sr = srunner_create(host_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
