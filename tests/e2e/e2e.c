/*
 * e2e.c: the pieces every end-to-end suite used to write again: the
 * binary under test, starting it on a term and waiting for its panel,
 * configuration files, batch runs, failure messages with the screen, the
 * case table and main().
 */
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e/e2e.h"

#define E2E_MAX_ARGS	16	/* the binary, its arguments and NULL */
#define E2E_DUMP_CUT	6000	/* longer dumps also go to stderr */

static const struct term_rect	e2e_panel = { 0, 0, 39, 40 };
static char			e2e_cfg_dir[64];

/*
 * Append what fd has now to *buf (NUL-terminated, grown as needed; *len
 * its length); 0 at the end of the file, 1 otherwise.
 */
int
e2e_drain(int fd, char **buf, size_t *len)
{
	char	tmp[65536];
	ssize_t	n;

	n = read(fd, tmp, sizeof tmp);
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return 1;
	if (n <= 0)
		return 0;
	*buf = realloc(*buf, *len + (size_t)n + 1);
	ck_assert_ptr_nonnull(*buf);
	memcpy(*buf + *len, tmp, (size_t)n);
	*len += (size_t)n;
	(*buf)[*len] = '\0';
	return 1;
}

/* Return the binary under test: $JOBDECK_BIN, else ./jobdeck. */
const char *
e2e_bin(void)
{
	const char	*bin = getenv("JOBDECK_BIN");

	return bin != NULL && *bin != '\0' ? bin : "./jobdeck";
}

/*
 * Return the pid of the deck t's jobdeck started (or attached to): the
 * deck is a background server, not the process on t's terminal (that is
 * its client).  It is the process under t's tag running the binary under
 * test that is neither t's own nor a client (attach, ctl, kill-deck, run,
 * mcp), or for jobdeck up the process on t itself; waited for up to ms,
 * else 0 (e2e_deck_pid() fails the test instead: kill(0) is our group).
 */
pid_t
e2e_deck_find(struct term *t, int ms)
{
	static const char *const clients[] = { "attach", "ctl", "kill-deck",
	    "run", "mcp" };
	char		 bin[PATH_MAX], exe[PATH_MAX], path[64], cmd[256];
	pid_t		 pids[256];
	int64_t		 end = term_now_ms() + ms;
	size_t		 n, i, k, len;
	ssize_t		 got;
	int		 fd, client;

	ck_assert_msg(realpath(e2e_bin(), bin) != NULL, "%s: %s", e2e_bin(),
	    strerror(errno));
	/* jobdeck up is the deck itself, on the terminal. */
	snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)term_pid(t));
	if ((fd = open(path, O_RDONLY)) != -1) {
		got = read(fd, cmd, sizeof cmd - 1);
		close(fd);
		cmd[got > 0 ? got : 0] = '\0';
		len = strlen(cmd);
		if (got > 0 && (ssize_t)len + 1 < got &&
		    strcmp(cmd + len + 1, "up") == 0)
			return term_pid(t);
	}
	do {
		n = term_procs(t, pids, 256);
		for (i = 0; i < n && i < 256; i++) {
			if (pids[i] == term_pid(t))
				continue;
			snprintf(path, sizeof path, "/proc/%ld/exe",
			    (long)pids[i]);
			if ((got = readlink(path, exe, sizeof exe - 1)) <= 0)
				continue;
			exe[got] = '\0';
			/* (A binary rebuilt under a running deck: "(deleted)".) */
			if (strncmp(exe, bin, strlen(bin)) != 0 ||
			    (exe[strlen(bin)] != '\0' &&
			    strcmp(exe + strlen(bin), " (deleted)") != 0))
				continue;
			snprintf(path, sizeof path, "/proc/%ld/cmdline",
			    (long)pids[i]);
			if ((fd = open(path, O_RDONLY)) == -1)
				continue;
			got = read(fd, cmd, sizeof cmd - 1);
			close(fd);
			if (got <= 0)
				continue;
			cmd[got] = '\0';
			len = strlen(cmd);
			client = 0;
			for (k = 0; (ssize_t)len + 1 < got && k <
			    sizeof clients / sizeof clients[0]; k++)
				client |= strcmp(cmd + len + 1, clients[k]) == 0;
			if (!client)
				return pids[i];
		}
		if (term_now_ms() >= end)
			break;
		term_pump(t, 20);
	} while (term_now_ms() < end);
	return 0;
}

/* The deck's pid (e2e_deck_find()), or the test fails: never 0. */
pid_t
e2e_deck_pid(struct term *t)
{
	pid_t	pid;

	if ((pid = e2e_deck_find(t, E2E_START_MS)) == 0)
		ck_abort_msg("no deck process under the terminal's tag after "
		    "%d ms\n%s", E2E_START_MS, e2e_dump(t));
	return pid;
}

/* Format into a static buffer (one message at a time). */
const char *
e2e_fmt(const char *fmt, ...)
{
	static char	buf[4096];
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return buf;
}

/*
 * Return the screen dump for a failure message; check cuts messages, so a
 * long dump also goes to stderr whole.
 */
const char *
e2e_dump(struct term *t)
{
	const char	*d = term_dump(t);

	if (strlen(d) > E2E_DUMP_CUT)
		fprintf(stderr, "full screen dump:\n%s\n", d);
	return d;
}

/*
 * Start the binary with the NULL-terminated args after it (at most 14) and
 * extra environment env (may be NULL), and wait for its panel.
 */
struct term *
e2e_start(const char *const *args, const char *const *env)
{
	const char	*argv[E2E_MAX_ARGS];
	struct term	*t;
	size_t		 n = 0;

	argv[n++] = e2e_bin();
	while (args != NULL && *args != NULL) {
		ck_assert_msg(n < E2E_MAX_ARGS - 1, "too many arguments");
		argv[n++] = *args++;
	}
	argv[n] = NULL;
	t = term_start(argv, env);
	ck_assert_msg(t != NULL, "cannot start %s: %s (build it with "
	    "`make jobdeck`, or set JOBDECK_BIN)", argv[0], strerror(errno));
	EXPECT_IN(t, &e2e_panel, "Processes (", E2E_START_MS);
	return t;
}

/* Type a command line at the prompt and press Enter. */
void
e2e_run(struct term *t, const char *line)
{
	term_type(t, line);
	term_key(t, TERM_KEY_ENTER);
}

/*
 * Page a text view down (space) until text is on the screen, at most
 * pages times; whether it came.  The text, then each new page, is waited
 * for up to ms (a page is new once the screen changes), never for a fixed
 * time, so a slow deck has no page skipped.
 */
int
e2e_page_to(struct term *t, const char *text, int pages, int ms)
{
	char	*before;
	int64_t	 end;
	int	 i, changed;

	if (term_wait_text(t, text, ms))
		return 1;
	for (i = 0; i < pages; i++) {
		before = strdup(term_screen_text(t));
		ck_assert_ptr_nonnull(before);
		term_type(t, " ");
		end = term_now_ms() + ms;
		while (!(changed = strcmp(term_screen_text(t), before) != 0) &&
		    term_now_ms() < end)
			term_pump(t, 20);
		free(before);
		if (!changed)
			return 0;	/* the last page */
		/* The rest of a page being drawn. */
		if (term_wait_text(t, text, 1000))
			return 1;
	}
	return 0;
}

/* Write text to name in a fresh private directory (0600); its path. */
const char *
e2e_cfg_write(const char *name, const char *text)
{
	static char	path[128];
	int		fd;

	strcpy(e2e_cfg_dir, "/tmp/jd-e2e-cfg.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(e2e_cfg_dir));
	snprintf(path, sizeof path, "%s/%s", e2e_cfg_dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* Remove what e2e_cfg_write() made. */
void
e2e_cfg_remove(void)
{
	char	cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf %s", e2e_cfg_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", e2e_cfg_dir);
}

/* Run the binary with args (no terminal); its output and exit status. */
int
e2e_batch(const char *args, char *out, size_t size)
{
	char	 cmd[512];
	FILE	*f;
	size_t	 n;
	int	 status;

	snprintf(cmd, sizeof cmd, "%s %s 2>&1 </dev/null", e2e_bin(), args);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(out, 1, size - 1, f);
	out[n] = '\0';
	status = pclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * Fork `jobdeck ctl -S deck ARGS...` (NULL-ended), stdin /dev/null,
 * XDG_RUNTIME_DIR=run unless run is NULL; its stdout (and stderr when err
 * is set, else /dev/null) on *out; its pid.
 */
pid_t
e2e_ctl_spawn(const char *deck, const char *run, const char *const *args,
    int err, int *out)
{
	const char	*argv[32];
	size_t		 n = 0, i;
	int		 p[2], null;
	pid_t		 pid;

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	argv[n++] = e2e_bin();
	argv[n++] = "ctl";
	argv[n++] = "-S";
	argv[n++] = deck;
	for (i = 0; args[i] != NULL && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(p[1], 1);
		dup2(err ? p[1] : null, 2);
		if (run != NULL)
			setenv("XDG_RUNTIME_DIR", run, 1);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	*out = p[0];
	return pid;
}

/*
 * Run e2e_ctl_spawn()'s command to its end within ms, pumping t's screen
 * meanwhile (t may be NULL); its output (to free), its exit status in
 * *status (-1: killed by a signal).
 */
char *
e2e_ctl(struct term *t, const char *deck, const char *run,
    const char *const *args, int err, int ms, int *status)
{
	struct pollfd	 pfd;
	char		*out = calloc(1, 1);
	size_t		 len = 0;
	int64_t		 end = term_now_ms() + ms;
	int		 st;
	pid_t		 pid;

	ck_assert_ptr_nonnull(out);
	pid = e2e_ctl_spawn(deck, run, args, err, &pfd.fd);
	pfd.events = POLLIN;
	for (;;) {
		ck_assert_msg(term_now_ms() < end, "ctl %s did not finish",
		    args[0]);
		if (poll(&pfd, 1, 10) > 0 && !e2e_drain(pfd.fd, &out, &len))
			break;
		if (t != NULL)
			term_pump(t, 1);
		else
			(void)poll(NULL, 0, 1);
	}
	close(pfd.fd);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return out;
}

/*
 * Run `jobdeck ctl -S deck WORDS...` (the NULL-ended words of ap, stderr
 * too when err is set) within E2E_CTL_MS, pumping t's screen; its output
 * (to free), which must come with exit status 0.
 */
char *
e2e_ctl_okv(struct term *t, const char *deck, const char *run, int err,
    va_list ap)
{
	const char	*args[32];
	char		*out;
	size_t		 n = 0;
	int		 status;

	while ((args[n] = va_arg(ap, const char *)) != NULL && n < 31)
		n++;
	args[n] = NULL;
	out = e2e_ctl(t, deck, run, args, err, E2E_CTL_MS, &status);
	ck_assert_msg(status == 0, "ctl %s: status %d: %s", args[0], status,
	    out);
	return out;
}

/*
 * Wait until `jobdeck ctl -S deck logs JOB` holds text, at most ms; else
 * fail with what the logs were.
 */
void
e2e_wait_logs(struct term *t, const char *deck, const char *run,
    const char *job, const char *text, int ms)
{
	const char	*args[] = { "logs", job, NULL };
	int64_t		 end = term_now_ms() + ms;
	char		*out;
	int		 status;

	for (;;) {
		out = e2e_ctl(t, deck, run, args, 0, E2E_CTL_MS, &status);
		ck_assert_msg(status == 0, "ctl logs %s: status %d: %s", job,
		    status, out);
		if (strstr(out, text) != NULL) {
			free(out);
			return;
		}
		ck_assert_msg(term_now_ms() < end, "no \"%s\" in the logs of "
		    "%s after %d ms: %s", text, job, ms, out);
		free(out);
		if (t != NULL)
			term_pump(t, 30);
	}
}

/* Write text to name in directory dir with mode, or fail the test. */
void
e2e_put_file(const char *dir, const char *name, const char *text, int mode)
{
	char	path[PATH_MAX];
	int	fd;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	ck_assert_msg(fd != -1, "%s: %s", path, strerror(errno));
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* Read name of directory dir into buf ("" when it is missing); buf. */
const char *
e2e_get_file(const char *dir, const char *name, char *buf, size_t size)
{
	char	 path[PATH_MAX];
	FILE	*f;
	size_t	 n = 0;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if ((f = fopen(path, "r")) != NULL) {
		n = fread(buf, 1, size - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

/* Read a file of the term's directory into buf; its length, or -1. */
ssize_t
e2e_read_file(struct term *t, const char *name, char *buf, size_t size)
{
	char	 path[1024];
	FILE	*f;
	size_t	 n;

	snprintf(path, sizeof path, "%s/%s", term_tmpdir(t), name);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	return (ssize_t)n;
}

/* Add n cases to s, each a test case of its own with its timeout. */
void
e2e_add_cases(Suite *s, const struct e2e_case *cases, size_t n)
{
	TCase	*tc;
	size_t	 i;

	for (i = 0; i < n; i++) {
		tc = tcase_create(cases[i].name);
		tcase_set_timeout(tc, cases[i].timeout);
		tcase_add_test(tc, *cases[i].test);
		suite_add_tcase(s, tc);
	}
}

/* Run a suite (room for screen dumps in messages); the exit status. */
int
e2e_main(Suite *s)
{
	SRunner	*sr;
	int	 failed;

	check_set_max_msg_size(16384);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
