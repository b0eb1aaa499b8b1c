/*
 * check_host_ssh_e2e.c: jobs on ssh hosts end to end (issue 28's cases).
 * Each test starts the tests' sshd (tests/testssh.h: jd-a and jd-b are
 * this machine as two "hosts", jd-refused, jd-badkey and jd-silent fail
 * as ssh fails), then a real deck on a pty in the term harness (-S NAME
 * -c FILE, JOBDECK_SSH_COMMAND the server's ssh command), drives it with
 * `jobdeck ctl` and the keys of its front end, and looks at the host
 * through ssh of its own: the processes the deck's runs marked
 * (JOBDECK_REMOTE=TOKEN in their environment, TOKEN beginning with the
 * deck's name, unique per test), the pids a job printed.
 *
 * The binary is $JOBDECK_BIN, else ./jobdeck.  Every wait is for a
 * condition, with a generous limit.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "e2e/e2e.h"
#include "testssh.h"

#define WAIT_MS		60000	/* the most anything is waited for */
#define SSH_MS		30000	/* one ssh of the test's own */

/* One test's server, deck and names. */
struct sx {
	struct testssh	 ts;
	struct term	*t;			/* the deck's front end */
	char		 deck[32];		/* its name: the marker's start */
	char		 run[PATH_MAX];		/* its XDG_RUNTIME_DIR */
	char		 cfgdir[PATH_MAX];	/* the config's directory */
};

/* The panel's rows and the focused job's pane. */
static const struct term_rect	pane_title = { 0, 40, 1, 200 };

/*
 * Start a deck on config text (NULL: none) with ssh_command as
 * JOBDECK_SSH_COMMAND (NULL: the server's); the server is started.
 */
static void
sx_open(struct sx *x, const char *text, const char *ssh_command)
{
	const char	*args[] = { "-c", "/dev/null", "-S", x->deck, NULL };
	const char	*env[] = { NULL, NULL };
	char		 ssh[512];
	const char	*cfg;
	char		*slash;

	snprintf(x->deck, sizeof x->deck, "sx%ld", (long)getpid());
	x->cfgdir[0] = '\0';
	if (text != NULL) {
		cfg = e2e_cfg_write("jobdeck.toml", text);
		args[1] = cfg;
		snprintf(x->cfgdir, sizeof x->cfgdir, "%s", cfg);
		if ((slash = strrchr(x->cfgdir, '/')) != NULL)
			*slash = '\0';
	}
	snprintf(ssh, sizeof ssh, "JOBDECK_SSH_COMMAND=%s",
	    ssh_command != NULL ? ssh_command : x->ts.command);
	env[0] = ssh;
	x->t = e2e_start(args, env);
	snprintf(x->run, sizeof x->run, "%s/run", term_tmpdir(x->t));
}

/* End the deck, its config and the server. */
static void
sx_close(struct sx *x)
{
	term_close(x->t);
	if (x->cfgdir[0] != '\0')
		e2e_cfg_remove();
	testssh_stop(&x->ts);
}

/* Run `jobdeck ctl -S DECK WORDS...`, which must succeed; its output. */
static char *
sx_ctl(struct sx *x, ...)
{
	char	*out;
	va_list	 ap;

	va_start(ap, x);
	out = e2e_ctl_okv(x->t, x->deck, x->run, 1, ap);
	va_end(ap);
	return out;
}

/* Run a ctl command whose output does not matter. */
#define SX_CTL(x, ...)	free(sx_ctl((x), __VA_ARGS__, NULL))

/*
 * Wait until job's state is state (its `status --json` holds
 * "state":"STATE"), at most ms; its status JSON (to free).
 */
static char *
sx_wait_state(struct sx *x, const char *job, const char *state, int ms)
{
	char	 want[64], *out;
	int64_t	 end = term_now_ms() + ms;

	snprintf(want, sizeof want, "\"state\":\"%s\"", state);
	for (;;) {
		out = sx_ctl(x, "status", job, "--json", NULL);
		if (strstr(out, want) != NULL)
			return out;
		ck_assert_msg(term_now_ms() < end, "job %s not %s after %d "
		    "ms: %s", job, state, ms, out);
		free(out);
		term_pump(x->t, 50);
	}
}

/* Wait until the logs of job hold text. */
static void
sx_wait_logs(struct sx *x, const char *job, const char *text)
{
	e2e_wait_logs(x->t, x->deck, x->run, job, text, WAIT_MS);
}

/*
 * Run script on host dest through ssh of the test's own (not the deck's
 * connection); its wait status, its output in out.
 */
static int
sx_ssh(struct sx *x, const char *dest, const char *script, char *out,
    size_t len)
{
	const char	*argv[] = { "ssh", "-F", x->ts.config, dest, script,
			    NULL };
	int		 st;

	st = testssh_run(argv, SSH_MS, out, len);
	ck_assert_msg(st != -1, "ssh %s %s did not end: %s", dest, script,
	    out);
	return st;
}

/*
 * The pids and command lines of the processes on the host the deck's runs
 * marked, one a line, in out; how many.
 */
static int
sx_marked(struct sx *x, char *out, size_t len)
{
	char		 script[1024];
	const char	*p;
	int		 n = 0, st;

	snprintf(script, sizeof script, "for f in /proc/[0-9]*/environ; do "
	    "if { tr '\\000' '\\n' <$f; } 2>/dev/null | grep -q "
	    "'^JOBDECK_REMOTE=%s[.]'; then d=${f%%/environ}; "
	    "echo \"${d#/proc/} $({ tr '\\000' ' ' <$d/cmdline; } "
	    "2>/dev/null)\"; fi; done", x->deck);
	st = sx_ssh(x, "jd-a", script, out, len);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "marked: %s",
	    out);
	for (p = out; (p = strchr(p, '\n')) != NULL; p++)
		n++;
	return n;
}

/* Wait until nothing on the host is marked by the deck's runs. */
static void
sx_wait_unmarked(struct sx *x, const char *what)
{
	char	 out[8192];
	int64_t	 end = term_now_ms() + WAIT_MS;

	while (sx_marked(x, out, sizeof out) != 0) {
		ck_assert_msg(term_now_ms() < end, "%s: still marked on the "
		    "host after %d ms:\n%s", what, WAIT_MS, out);
		term_pump(x->t, 200);
	}
}

/* Whether pid lives on the host (kill -0 through ssh). */
static int
sx_remote_alive(struct sx *x, long pid)
{
	char	script[64], out[512];
	int	st;

	snprintf(script, sizeof script, "kill -0 %ld", pid);
	st = sx_ssh(x, "jd-a", script, out, sizeof out);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* The number after the last "key" in job's logs, waited for; 0: none. */
static long
sx_logs_number(struct sx *x, const char *job, const char *key)
{
	char	*out, *p, *last = NULL;
	long	 v = 0;

	sx_wait_logs(x, job, key);
	out = sx_ctl(x, "logs", job, NULL);
	for (p = out; (p = strstr(p, key)) != NULL; p++)
		last = p;
	if (last != NULL)
		v = strtol(last + strlen(key), NULL, 10);
	free(out);
	return v;
}

/* Append value to buf as lowercase hex bytes. */
static void
sx_hex(char *buf, size_t size, const char *value)
{
	const unsigned char	*p;
	size_t			 len = strlen(buf);

	for (p = (const unsigned char *)value; *p != '\0' && len + 3 < size;
	    p++)
		len += (size_t)snprintf(buf + len, size - len, "%02x", *p);
}

/* Write value as a TOML basic string (quotes included) to buf. */
static void
sx_toml(char *buf, size_t size, const char *value)
{
	const unsigned char	*p;
	size_t			 len = 0;

	buf[len++] = '"';
	for (p = (const unsigned char *)value; *p != '\0' && len + 8 < size;
	    p++) {
		if (*p == '\n')
			len += (size_t)snprintf(buf + len, size - len, "\\n");
		else if (*p == '"' || *p == '\\')
			len += (size_t)snprintf(buf + len, size - len, "\\%c",
			    *p);
		else
			buf[len++] = (char)*p;
	}
	buf[len++] = '"';
	buf[len] = '\0';
}

/*
 * A value no shell may re-read: quotes, $(), backticks, newlines, UTF-8
 * (no ${NAME}: the config expands that itself, locally).
 */
static const char	hostile[] = "a'b\"c $(echo X) `echo Y` $HOME $V "
			    "%s %% \\n \\ é✓\n\tnext line\n";
/* The same without a single quote, for a '...' line of an env file. */
static const char	hostile_file[] = "d\"e $(echo X) `echo Y` ${HOME} "
			    "%d \\t\\ ü\nsecond\n";

/*
 * Config env and env_file and a session export reach a remote job byte
 * for byte; so does its output; cwd "/tmp" and "~/DIR" (the remote $HOME).
 */
START_TEST(env_exact)
{
	struct sx	 x;
	char		 cfg[4096], v[512], file[512], home[PATH_MAX];
	char		 want[2 * PATH_MAX], out[512], dir[PATH_MAX], envdir[64];
	char		*s;
	const char	*cmd = "printf '%s|' \\\"$V\\\" \\\"$F\\\" | "
			    "od -An -v -tx1 | tr -d ' \\\\n' | "
			    "sed 's/^/HEX=/;s/$/=END/'; echo; "
			    "echo \\\"PWD=$(pwd)=\\\"";
	/* A ctl word holds no newline. */
	const char	*session = "q'\"`$(x)\t%\\ \u2713 $HOME ";
	int		 st;

	TESTSSH_START(&x.ts);
	/* Its jobs are pty jobs: a remote pty, which only root's sshd gives. */
	TESTSSH_NEED_PTY(&x.ts);
	st = sx_ssh(&x, "jd-a", "echo \"$HOME\"", home, sizeof home);
	ck_assert_msg(st == 0, "remote HOME: %s", home);
	home[strcspn(home, "\n")] = '\0';
	snprintf(x.deck, sizeof x.deck, "sx%ld", (long)getpid());
	snprintf(dir, sizeof dir, "mkdir -p \"$HOME/jd-%s\"", x.deck);
	ck_assert_int_eq(sx_ssh(&x, "jd-a", dir, out, sizeof out), 0);
	strcpy(envdir, "/tmp/jd-sx-env.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(envdir));
	snprintf(file, sizeof file, "F='%s'\n", hostile_file);
	e2e_put_file(envdir, "env", file, 0600);

	sx_toml(v, sizeof v, hostile);
	snprintf(cfg, sizeof cfg,
	    "[hosts.a]\nssh = \"jd-a\"\n"
	    "[[job]]\nname = \"r\"\nhost = \"a\"\ncwd = \"/tmp\"\n"
	    "env = { V = %s }\nenv_file = [\"%s/env\"]\ncommand = \"%s\"\n"
	    "[[job]]\nname = \"h\"\nhost = \"a\"\ncwd = \"~/jd-%s\"\n"
	    "command = \"%s\"\n", v, envdir, cmd, x.deck, cmd);
	sx_open(&x, cfg, NULL);

	snprintf(want, sizeof want, "HEX=");
	sx_hex(want, sizeof want, hostile);
	sx_hex(want, sizeof want, "|");
	sx_hex(want, sizeof want, hostile_file);
	sx_hex(want, sizeof want, "|");
	strcat(want, "=END");
	free(sx_wait_state(&x, "r", "completed", WAIT_MS));
	s = sx_ctl(&x, "logs", "r", NULL);
	ck_assert_msg(strstr(s, want) != NULL, "want %s in %s", want, s);
	ck_assert_msg(strstr(s, "PWD=/tmp=") != NULL, "cwd: %s", s);
	free(s);
	snprintf(want, sizeof want, "PWD=%s/jd-%s=", home, x.deck);
	sx_wait_logs(&x, "h", want);

	/* A session export, for a job spawned after it. */
	SX_CTL(&x, "export", e2e_fmt("V=%s", session));
	SX_CTL(&x, "spawn", "--name", "e", "--host", "a", "--",
	    "printf '%s|' \"$V\" | od -An -v -tx1 | tr -d ' \\n' | "
	    "sed 's/^/HEX=/;s/$/=END/'");
	snprintf(want, sizeof want, "HEX=");
	sx_hex(want, sizeof want, session);
	sx_hex(want, sizeof want, "|");
	strcat(want, "=END");
	free(sx_wait_state(&x, "e", "completed", WAIT_MS));
	s = sx_ctl(&x, "logs", "e", NULL);
	ck_assert_msg(strstr(s, want) != NULL, "want %s in %s", want, s);
	free(s);

	snprintf(dir, sizeof dir, "rmdir \"$HOME/jd-%s\"", x.deck);
	(void)sx_ssh(&x, "jd-a", dir, out, sizeof out);
	snprintf(dir, sizeof dir, "rm -rf %s", envdir);
	ck_assert_int_eq(system(dir), 0);
	sx_close(&x);
}
END_TEST

/* A remote pty job's prompt answered by keys to the focused job and send. */
START_TEST(prompt_answer)
{
	struct sx	x;

	TESTSSH_START(&x.ts);
	TESTSSH_NEED_PTY(&x.ts);
	sx_open(&x, NULL, NULL);
	SX_CTL(&x, "spawn", "--name", "p", "--host", "jd-a", "--",
	    "printf 'name? '; read n; echo \"hi $n.\"");
	sx_wait_logs(&x, "p", "name?");
	term_key(x.t, TERM_KEY_CTRL_T);
	EXPECT_IN(x.t, &pane_title, "[Focused]", WAIT_MS);
	term_type(x.t, "Xavier\r");
	sx_wait_logs(&x, "p", "hi Xavier.");
	free(sx_wait_state(&x, "p", "completed", WAIT_MS));
	term_key(x.t, TERM_KEY_CTRL_T);

	SX_CTL(&x, "spawn", "--name", "q", "--host", "jd-a", "--",
	    "printf 'name? '; read n; echo \"hi $n.\"");
	sx_wait_logs(&x, "q", "name?");
	SX_CTL(&x, "send", "q", "Yolanda\\r");
	sx_wait_logs(&x, "q", "hi Yolanda.");
	free(sx_wait_state(&x, "q", "completed", WAIT_MS));
	sx_close(&x);
}
END_TEST

/*
 * Wait until job's last "S=ROWS COLS." differs from not (NULL: any); it
 * in buf.
 */
static void
sx_wait_size(struct sx *x, const char *job, const char *not, char *buf,
    size_t size)
{
	char	*out, *p, *last, *dot;
	int64_t	 end = term_now_ms() + WAIT_MS;

	for (;;) {
		out = sx_ctl(x, "logs", job, NULL);
		last = NULL;
		for (p = out; (p = strstr(p, "S=")) != NULL; p++)
			if (strchr(p, '.') != NULL)
				last = p;
		buf[0] = '\0';
		if (last != NULL && (dot = strchr(last, '.')) != NULL)
			snprintf(buf, size, "%.*s", (int)(dot - last - 2),
			    last + 2);
		if (buf[0] != '\0' && (not == NULL || strcmp(buf, not) != 0)) {
			free(out);
			return;
		}
		ck_assert_msg(term_now_ms() < end, "%s: no size but \"%s\": "
		    "%s", job, not != NULL ? not : "", out);
		free(out);
		term_pump(x->t, 100);
	}
}

/* A remote pty job sees the deck's job size change as a local one does. */
START_TEST(resize)
{
	struct sx	x;
	char		before[32], local[32], remote[32];
	const char	*loop = "while :; do echo \"S=$(stty size).\"; "
			    "sleep 0.3; done";

	TESTSSH_START(&x.ts);
	TESTSSH_NEED_PTY(&x.ts);
	sx_open(&x, NULL, NULL);
	SX_CTL(&x, "spawn", "--name", "l", "--", loop);
	SX_CTL(&x, "spawn", "--name", "r", "--host", "jd-a", "--", loop);
	sx_wait_size(&x, "l", NULL, before, sizeof before);
	sx_wait_size(&x, "r", NULL, remote, sizeof remote);
	ck_assert_str_eq(remote, before);
	term_resize(x.t, 50, 170);
	sx_wait_size(&x, "l", before, local, sizeof local);
	sx_wait_size(&x, "r", before, remote, sizeof remote);
	ck_assert_msg(strcmp(local, remote) == 0, "local %s, remote %s "
	    "(before %s)", local, remote, before);
	SX_CTL(&x, "kill", "l", "r");
	sx_close(&x);
}
END_TEST

/* The config of one host and a short grace. */
#define ONE_HOST	"[settings]\nkill_timeout = 2\n" \
			"[hosts.a]\nssh = \"jd-a\"\n"

/*
 * !kill: a job that traps TERM is killed after the grace, one that forked
 * a setsid leftover leaves nothing marked; -INT is that signal; !stop and
 * !cont stop and resume the remote processes.
 */
START_TEST(signals)
{
	struct sx	 x;
	char		 script[256], out[4096], *s;
	long		 pg, n;
	int		 st;

	TESTSSH_START(&x.ts);
	/* Its jobs are pty jobs: a remote pty, which only root's sshd gives. */
	TESTSSH_NEED_PTY(&x.ts);
	sx_open(&x, ONE_HOST, NULL);

	SX_CTL(&x, "spawn", "--name", "t", "--host", "a", "--",
	    "trap 'echo TERM-GOT' TERM; echo ready; "
	    "while :; do sleep 0.2; done");
	sx_wait_logs(&x, "t", "ready");
	SX_CTL(&x, "kill", "t");
	sx_wait_logs(&x, "t", "TERM-GOT");
	s = sx_wait_state(&x, "t", "canceled", WAIT_MS);
	free(s);
	sx_wait_unmarked(&x, "a TERM trap");

	SX_CTL(&x, "spawn", "--name", "f", "--host", "a", "--",
	    "setsid sleep 1000 & echo ready; wait");
	sx_wait_logs(&x, "f", "ready");
	ck_assert_int_gt(sx_marked(&x, out, sizeof out), 0);
	ck_assert_msg(strstr(out, "sleep 1000") != NULL, "%s", out);
	SX_CTL(&x, "kill", "f");
	free(sx_wait_state(&x, "f", "canceled", WAIT_MS));
	sx_wait_unmarked(&x, "a setsid leftover");

	SX_CTL(&x, "spawn", "--name", "i", "--host", "a", "--",
	    "trap 'echo INT-GOT; exit 7' INT; trap 'echo TERM-GOT' TERM; "
	    "echo ready; while :; do sleep 0.2; done");
	sx_wait_logs(&x, "i", "ready");
	SX_CTL(&x, "kill", "-INT", "i");
	sx_wait_logs(&x, "i", "INT-GOT");
	/* A stop of the user's: canceled, with the trap's status. */
	s = sx_wait_state(&x, "i", "canceled", WAIT_MS);
	ck_assert_msg(strstr(s, "\"exit_code\":7") != NULL, "%s", s);
	/* INT alone: no TERM came after it. */
	ck_assert_msg(strstr(s, "\"output\":\"ready\\nINT-GOT\\n\"") !=
	    NULL, "%s", s);
	free(s);

	SX_CTL(&x, "spawn", "--name", "c", "--host", "a", "--",
	    "echo \"PG=$(ps -o pgid= -p $$ | tr -d ' ').\"; i=0; "
	    "while :; do i=$((i+1)); echo \"N=$i.\"; sleep 0.2; done");
	pg = sx_logs_number(&x, "c", "PG=");
	ck_assert_int_gt(pg, 1);
	SX_CTL(&x, "stop", "c");
	free(sx_wait_state(&x, "c", "stopped", WAIT_MS));
	/* Every process of the group stopped on the host. */
	snprintf(script, sizeof script, "ps -eo pgid=,stat=,args= | awk "
	    "'$1 == %ld && $2 !~ /^T/ { print; n++ } END { exit n > 0 }'",
	    pg);
	st = sx_ssh(&x, "jd-a", script, out, sizeof out);
	ck_assert_msg(st == 0, "not stopped on the host: %s", out);
	n = sx_logs_number(&x, "c", "N=");
	SX_CTL(&x, "cont", "c");
	free(sx_wait_state(&x, "c", "running", WAIT_MS));
	{
		int64_t	end = term_now_ms() + WAIT_MS;

		while (sx_logs_number(&x, "c", "N=") <= n + 1)
			ck_assert_msg(term_now_ms() < end, "no output after "
			    "!cont (N=%ld)", n);
	}
	SX_CTL(&x, "kill", "c");
	free(sx_wait_state(&x, "c", "canceled", WAIT_MS));
	sx_wait_unmarked(&x, "after the signals");
	sx_close(&x);
}
END_TEST

/* The pid of the deck's master to dest's socket N, or 0. */
static pid_t
sx_master(struct sx *x)
{
	char		 path[300], cmd[4096], *p, *end;
	DIR		*d;
	struct dirent	*e;
	ssize_t		 n;
	int		 fd, m, sock, ssh;
	pid_t		 pid = 0;

	ck_assert_ptr_nonnull(d = opendir("/proc"));
	while (pid == 0 && (e = readdir(d)) != NULL) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
		if ((fd = open(path, O_RDONLY)) == -1)
			continue;
		n = read(fd, cmd, sizeof cmd - 1);
		close(fd);
		if (n <= 0)
			continue;
		cmd[n] = '\0';
		end = cmd + n;
		m = sock = 0;
		ssh = strcmp(cmd, "ssh") == 0 || (strlen(cmd) >= 4 &&
		    strcmp(cmd + strlen(cmd) - 4, "/ssh") == 0);
		for (p = cmd; p < end; p += strlen(p) + 1) {
			if (strcmp(p, "-M") == 0)
				m = 1;
			if (strncmp(p, x->run, strlen(x->run)) == 0)
				sock = 1;
		}
		if (ssh && m && sock)
			pid = (pid_t)strtol(e->d_name, NULL, 10);
	}
	closedir(d);
	return pid;
}

/*
 * The connection killed mid-job: the remote job ends, the job fails with
 * ssh's 255, a restart connects again and runs.
 */
START_TEST(master_killed)
{
	struct sx	 x;
	char		 out[4096], *s;
	long		 rpid;
	pid_t		 master;
	int64_t		 end;

	TESTSSH_START(&x.ts);
	/* Its jobs are pty jobs: a remote pty, which only root's sshd gives. */
	TESTSSH_NEED_PTY(&x.ts);
	sx_open(&x, ONE_HOST, NULL);
	SX_CTL(&x, "spawn", "--name", "m", "--host", "a", "--",
	    "echo \"RP=$$.\"; sleep 1000");
	rpid = sx_logs_number(&x, "m", "RP=");
	ck_assert_int_gt(rpid, 1);
	ck_assert(sx_remote_alive(&x, rpid));
	master = sx_master(&x);
	ck_assert_msg(master > 0, "no master under %s", x.run);
	ck_assert_int_eq(kill(master, SIGKILL), 0);
	s = sx_wait_state(&x, "m", "failed", WAIT_MS);
	ck_assert_msg(strstr(s, "\"exit_code\":255") != NULL, "%s", s);
	free(s);
	end = term_now_ms() + WAIT_MS;
	while (sx_remote_alive(&x, rpid)) {
		ck_assert_msg(term_now_ms() < end, "remote %ld still there",
		    rpid);
		term_pump(x.t, 200);
	}
	sx_wait_unmarked(&x, "the connection killed");

	SX_CTL(&x, "restart", "m");
	free(sx_wait_state(&x, "m", "running", WAIT_MS));
	end = term_now_ms() + WAIT_MS;
	while (sx_marked(&x, out, sizeof out) == 0) {
		ck_assert_msg(term_now_ms() < end, "the restart runs nothing "
		    "on the host");
		term_pump(x.t, 200);
	}
	ck_assert_msg(sx_master(&x) > 0 && sx_master(&x) != master,
	    "no new master");
	SX_CTL(&x, "kill", "m");
	sx_wait_unmarked(&x, "the restarted job killed");
	sx_close(&x);
}
END_TEST

#define MANY	50	/* jobs on one host */

/* 50 jobs on one host share one connection. */
START_TEST(one_connection)
{
	struct sx	 x;
	char		*cfg, *s, *p, name[16];
	size_t		 len = 0, size = 64 * MANY + 256;
	int		 i, n;
	int64_t		 end;

	TESTSSH_START(&x.ts);
	/* Its jobs are pty jobs: a remote pty, which only root's sshd gives. */
	TESTSSH_NEED_PTY(&x.ts);
	cfg = malloc(size);
	ck_assert_ptr_nonnull(cfg);
	len = (size_t)snprintf(cfg, size, "%s", ONE_HOST);
	for (i = 1; i <= MANY; i++)
		len += (size_t)snprintf(cfg + len, size - len, "[[job]]\n"
		    "name = \"j%d\"\nhost = \"a\"\ncommand = \"echo up-%d.; "
		    "sleep 1000\"\n", i, i);
	sx_open(&x, cfg, NULL);
	free(cfg);
	end = term_now_ms() + 2 * WAIT_MS;
	for (;;) {
		s = sx_ctl(&x, "logs", "--all", NULL);
		for (n = 0, p = s; (p = strstr(p, "up-")) != NULL; p++)
			n++;
		free(s);
		if (n >= MANY)
			break;
		ck_assert_msg(term_now_ms() < end, "%d of %d jobs up", n,
		    MANY);
		term_pump(x.t, 200);
	}
	for (i = 1; i <= MANY; i++) {
		snprintf(name, sizeof name, "j%d", i);
		free(sx_wait_state(&x, name, "running", WAIT_MS));
	}
	ck_assert_int_eq(testssh_connections(&x.ts), 1);
	sx_close(&x);
}
END_TEST

/*
 * Wait until job is blocked, then find text in its output (its lines
 * joined: the reason is written on the job's terminal, which wraps it).
 */
static void
sx_wait_blocked(struct sx *x, const char *job, const char *text)
{
	char	*s, *p, *q;

	free(sx_wait_state(x, job, "blocked", WAIT_MS));
	s = sx_ctl(x, "logs", job, NULL);
	for (p = q = s; *p != '\0'; p++)
		if (*p != '\r' && *p != '\n')
			*q++ = *p;
	*q = '\0';
	ck_assert_msg(strstr(s, text) != NULL, "%s: no \"%s\" in %s", job,
	    text, s);
	free(s);
}

/*
 * A refused connection and a refused key block their jobs with ssh's
 * words; a silent server the user's ConnectTimeout ends, the deck
 * answering meanwhile.
 */
START_TEST(unreachable)
{
	struct sx	 x;
	char		 cmd[256], *s;

	TESTSSH_START(&x.ts);
	sx_open(&x, "[hosts.r]\nssh = \"jd-refused\"\n"
	    "[hosts.k]\nssh = \"jd-badkey\"\n"
	    "[[job]]\nname = \"r\"\nhost = \"r\"\ncommand = \"echo ran\"\n"
	    "[[job]]\nname = \"k\"\nhost = \"k\"\ncommand = \"echo ran\"\n",
	    NULL);
	sx_wait_blocked(&x, "r", "Connection refused");
	sx_wait_blocked(&x, "k", "Permission denied");
	s = sx_ctl(&x, "logs", "k", NULL);
	ck_assert_msg(strstr(s, "ran") == NULL, "%s", s);
	free(s);
	sx_close(&x);

	TESTSSH_START(&x.ts);
	snprintf(cmd, sizeof cmd, "%s -o ConnectTimeout=2", x.ts.command);
	sx_open(&x, NULL, cmd);
	SX_CTL(&x, "spawn", "--name", "s", "--host", "jd-silent", "--",
	    "echo ran");
	/* The deck answers while ssh waits for a banner. */
	s = sx_ctl(&x, "status", "s", "--json", NULL);
	ck_assert_msg(strstr(s, "\"state\":\"waiting\"") != NULL, "%s", s);
	free(s);
	sx_wait_blocked(&x, "s", "timed out");
	sx_close(&x);
}
END_TEST

/*
 * Run the binary with the NULL-ended words, stdin /dev/null, its stdout
 * and stderr apart in out and err (to free); its exit status.
 */
static int
sx_batch(struct sx *x, char **out, char **err, ...)
{
	const char	*argv[32];
	struct pollfd	 pfd[2];
	va_list		 ap;
	size_t		 n = 0, olen = 0, elen = 0;
	int64_t		 end = term_now_ms() + WAIT_MS;
	int		 po[2], pe[2], null, st, open_ = 2;
	pid_t		 pid;

	argv[n++] = e2e_bin();
	va_start(ap, err);
	while ((argv[n] = va_arg(ap, const char *)) != NULL && n < 31)
		n++;
	va_end(ap);
	ck_assert_int_eq(pipe2(po, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(pe, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		setenv("JOBDECK_SSH_COMMAND", x->ts.command, 1);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	*out = calloc(1, 1);
	*err = calloc(1, 1);
	ck_assert(*out != NULL && *err != NULL);
	pfd[0].fd = po[0];
	pfd[1].fd = pe[0];
	pfd[0].events = pfd[1].events = POLLIN;
	while (open_ > 0) {
		ck_assert_msg(term_now_ms() < end, "jobdeck %s did not end: "
		    "%s %s", argv[1], *out, *err);
		if (poll(pfd, 2, 100) <= 0)
			continue;
		if (pfd[0].revents != 0 && !e2e_drain(pfd[0].fd, out, &olen)) {
			pfd[0].fd = -1;
			open_--;
		}
		if (pfd[1].revents != 0 && !e2e_drain(pfd[1].fd, err, &elen)) {
			pfd[1].fd = -1;
			open_--;
		}
	}
	close(po[0]);
	close(pe[0]);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* jobdeck run --host: stdout and stderr apart, the exit, --json, 125. */
START_TEST(run_host)
{
	struct sx	 x;
	char		 dir[] = "/tmp/jd-sx-run.XXXXXX", *out, *err;
	int		 rc;

	TESTSSH_START(&x.ts);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	setenv("XDG_RUNTIME_DIR", dir, 1);
	rc = sx_batch(&x, &out, &err, "run", "--host", "jd-a", "--", "sh",
	    "-c", "echo out; echo err >&2; exit 3", NULL);
	ck_assert_msg(rc == 3, "run: %d: %s / %s", rc, out, err);
	ck_assert_str_eq(out, "out\n");
	ck_assert_str_eq(err, "err\n");
	free(out);
	free(err);

	rc = sx_batch(&x, &out, &err, "run", "--json", "--host", "jd-a",
	    "--", "sh", "-c", "echo out; echo err >&2; exit 3", NULL);
	ck_assert_msg(rc == 0 && strstr(out, "\"stdout\":\"out\\n\"") !=
	    NULL && strstr(out, "\"stderr\":\"err\\n\"") != NULL &&
	    strstr(out, "\"return_code\":3") != NULL, "run --json: %d: %s "
	    "/ %s", rc, out, err);
	free(out);
	free(err);

	rc = sx_batch(&x, &out, &err, "run", "--host", "jd-refused", "--",
	    "echo", "ran", NULL);
	ck_assert_msg(rc == 125 && strstr(err, "Connection refused") != NULL
	    && strstr(out, "ran") == NULL, "run unreachable: %d: %s / %s", rc,
	    out, err);
	free(out);
	free(err);
	rmdir(dir);
	testssh_stop(&x.ts);
}
END_TEST

/* Start two long remote jobs on a and wait until they are marked. */
static void
sx_two_jobs(struct sx *x)
{
	char	out[4096];

	SX_CTL(x, "spawn", "--name", "u", "--host", "a", "--",
	    "echo up; sleep 1000");
	SX_CTL(x, "spawn", "--name", "v", "--host", "a", "--",
	    "setsid sleep 1000 & echo up; sleep 1000");
	sx_wait_logs(x, "u", "up");
	sx_wait_logs(x, "v", "up");
	ck_assert_int_gt(sx_marked(x, out, sizeof out), 0);
}

/*
 * !quit with remote jobs leaves nothing marked on the host; neither does
 * a deck killed with SIGKILL once a new deck has started (it sweeps what
 * the dead one left here, its master among it, and the host's watchers
 * end the jobs whose connection went).
 */
START_TEST(deck_ends)
{
	struct sx	 x;
	char		*out;
	pid_t		 deck;

	TESTSSH_START(&x.ts);
	/* Its jobs are pty jobs: a remote pty, which only root's sshd gives. */
	TESTSSH_NEED_PTY(&x.ts);
	sx_open(&x, ONE_HOST, NULL);
	sx_two_jobs(&x);
	out = sx_ctl(&x, "quit", (char *)NULL);
	free(out);
	sx_wait_unmarked(&x, "!quit");
	term_close(x.t);
	e2e_cfg_remove();

	sx_open(&x, ONE_HOST, NULL);
	sx_two_jobs(&x);
	deck = e2e_deck_pid(x.t);
	ck_assert_int_eq(kill(deck, SIGKILL), 0);
	term_close(x.t);
	e2e_cfg_remove();
	sx_open(&x, ONE_HOST, NULL);
	sx_wait_unmarked(&x, "the deck killed, a new deck started");
	sx_close(&x);
}
END_TEST

/* Two hosts: a connection each, jobs on each. */
START_TEST(two_hosts)
{
	struct sx	 x;

	TESTSSH_START(&x.ts);
	/* Its jobs are pty jobs: a remote pty, which only root's sshd gives. */
	TESTSSH_NEED_PTY(&x.ts);
	sx_open(&x, "[hosts.a]\nssh = \"jd-a\"\n[hosts.b]\nssh = \"jd-b\"\n"
	    "[[job]]\nname = \"a1\"\nhost = \"a\"\ncommand = \"echo A1; "
	    "sleep 1000\"\n"
	    "[[job]]\nname = \"a2\"\nhost = \"a\"\ncommand = \"echo A2; "
	    "sleep 1000\"\n"
	    "[[job]]\nname = \"b1\"\nhost = \"b\"\ncommand = \"echo B1; "
	    "sleep 1000\"\n", NULL);
	sx_wait_logs(&x, "a1", "A1");
	sx_wait_logs(&x, "a2", "A2");
	sx_wait_logs(&x, "b1", "B1");
	ck_assert_int_eq(testssh_connections(&x.ts), 2);
	sx_close(&x);
}
END_TEST

/* The suite: each case with its timeout. */
int
main(void)
{
	static const struct e2e_case	cases[] = {
		{ "env_exact", &env_exact, 180 },
		{ "prompt_answer", &prompt_answer, 180 },
		{ "resize", &resize, 180 },
		{ "signals", &signals, 300 },
		{ "master_killed", &master_killed, 180 },
		{ "one_connection", &one_connection, 300 },
		{ "unreachable", &unreachable, 180 },
		{ "run_host", &run_host, 180 },
		{ "deck_ends", &deck_ends, 240 },
		{ "two_hosts", &two_hosts, 180 },
	};
	Suite	*s = suite_create("host_ssh_e2e");

	e2e_add_cases(s, cases, sizeof cases / sizeof cases[0]);
	return e2e_main(s);
}
