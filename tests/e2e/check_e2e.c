/*
 * check_e2e.c: end-to-end tests of jobdeck (issue 2).  Each test runs the
 * real binary on a 120x40 pty through the term harness, types at it and
 * waits for what a person would see on the screen.
 *
 * The binary is $JOBDECK_BIN, else ./jobdeck (relative to the directory
 * the suite is run from, the repository root under make); it is started
 * as `jobdeck -c /dev/null [COMMAND...]` in a fresh temporary directory.
 * Jobs that the tests need to watch write their pid ($$, or $! for a
 * background child) to files in that directory.
 *
 * The screen contract (layout at 120x40): the panel is columns 0-39, the
 * pane columns 40-119 with its title on row 0 and its inner area on rows
 * 1-37, and row 39 holds the prompt and the message line.  Every failed
 * expectation carries a dump of the screen.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include "e2e/e2e.h"

#define GRACE_MS	5000	/* jobdeck's kill grace period */
#define WAIT_MS		5000	/* default wait for text */

static const struct term_rect panel = { 0, 0, 39, 40 };
static const struct term_rect pane = { 1, 40, 37, 80 };
static const struct term_rect pane_title = { 0, 40, 1, 80 };
static const struct term_rect bottom = { 39, 0, 1, 120 };

static struct term	*deck_start(const char *const *, const char *const *);
static void		 deck_plain(const char *, char *, size_t);
static int		 deck_find_line(struct term *,
			    const struct term_rect *, const char *);
static int		 deck_wait_line(struct term *,
			    const struct term_rect *, const char *, int);
static int		 deck_wait_line_gone(struct term *,
			    const struct term_rect *, const char *, int);
static int		 deck_wait_last_line(struct term *,
			    const struct term_rect *, const char *, int);
static int		 deck_wait_any(struct term *,
			    const struct term_rect *, const char *,
			    const char *, int);
static int		 deck_in_order(const char *, const char *const *);
static size_t		 deck_survivors(struct term *, int, char *, size_t);
static int		 deck_is_red(const struct term_color *);
static void		 deck_stop_and_check(struct term *, int);

/* Expect a line (box borders and blanks stripped) equal to text. */
#define EXPECT_LINE(t, r, text, ms)					\
	ck_assert_msg(deck_wait_line((t), (r), (text), (ms)),		\
	    "no line \"%s\" in %s after %d ms\n%s", (text), #r, (ms),	\
	    e2e_dump(t))

/*
 * Start jobdeck with extra environment env and launch commands cmds (both
 * may be NULL) and wait for its panel.
 */
static struct term *
deck_start(const char *const *env, const char *const *cmds)
{
	const char	*args[15];
	size_t		 n = 0, i;

	args[n++] = "-c";
	args[n++] = "/dev/null";
	for (i = 0; cmds != NULL && cmds[i] != NULL && n < 14; i++)
		args[n++] = cmds[i];
	args[n] = NULL;
	return e2e_start(args, env);
}

/*
 * Copy a screen line without box-drawing characters (U+2500-U+257F) and
 * without leading and trailing blanks; out may be in.
 */
static void
deck_plain(const char *in, char *out, size_t size)
{
	const unsigned char	*p = (const unsigned char *)in;
	size_t			 n = 0;

	while (*p != '\0' && n + 1 < size) {
		if (p[0] == 0xe2 && (p[1] == 0x94 || p[1] == 0x95) &&
		    p[2] != '\0') {
			out[n++] = ' ';
			p += 3;
			continue;
		}
		out[n++] = (char)*p++;
	}
	while (n > 0 && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
	for (p = (const unsigned char *)out; *p == ' '; p++)
		continue;
	memmove(out, p, strlen((const char *)p) + 1);
}

/* Return the screen row holding exactly text (see deck_plain), or -1. */
static int
deck_find_line(struct term *t, const struct term_rect *r, const char *text)
{
	const char	*s, *nl;
	char		 line[1024], plain[1024];
	size_t		 len;
	int		 row = r != NULL ? r->row : 0;

	for (s = term_text_in(t, r); ; s = nl + 1, row++) {
		nl = strchr(s, '\n');
		len = nl != NULL ? (size_t)(nl - s) : strlen(s);
		if (len >= sizeof line)
			len = sizeof line - 1;
		memcpy(line, s, len);
		line[len] = '\0';
		deck_plain(line, plain, sizeof plain);
		if (strcmp(plain, text) == 0)
			return row;
		if (nl == NULL)
			return -1;
	}
}

/* Wait up to ms for a line equal to text inside r. */
static int
deck_wait_line(struct term *t, const struct term_rect *r, const char *text,
    int ms)
{
	int64_t	deadline = term_now_ms() + ms;

	while (deck_find_line(t, r, text) == -1) {
		if (term_now_ms() >= deadline)
			return 0;
		term_pump(t, 30);
	}
	return 1;
}

/* Wait up to ms for no line equal to text inside r. */
static int
deck_wait_line_gone(struct term *t, const struct term_rect *r,
    const char *text, int ms)
{
	int64_t	deadline = term_now_ms() + ms;

	while (deck_find_line(t, r, text) != -1) {
		if (term_now_ms() >= deadline)
			return 0;
		term_pump(t, 30);
	}
	return 1;
}

/* Wait up to ms for the last non-blank line inside r to equal text. */
static int
deck_wait_last_line(struct term *t, const struct term_rect *r,
    const char *text, int ms)
{
	int64_t		 deadline = term_now_ms() + ms;
	const char	*s, *start;
	char		 line[1024], plain[1024];
	size_t		 len;

	for (;;) {
		s = term_text_in(t, r);
		plain[0] = '\0';
		while (*s != '\0') {
			start = s;
			s += strcspn(s, "\n");
			len = (size_t)(s - start);
			if (len >= sizeof line)
				len = sizeof line - 1;
			memcpy(line, start, len);
			line[len] = '\0';
			deck_plain(line, line, sizeof line);
			if (line[0] != '\0')
				memcpy(plain, line, sizeof plain);
			if (*s == '\n')
				s++;
		}
		if (strcmp(plain, text) == 0)
			return 1;
		if (term_now_ms() >= deadline)
			return 0;
		term_pump(t, 30);
	}
}

/* Wait up to ms for a or b inside r; return 1 or 2 for which, 0 if none. */
static int
deck_wait_any(struct term *t, const struct term_rect *r, const char *a,
    const char *b, int ms)
{
	int64_t	deadline = term_now_ms() + ms;

	for (;;) {
		if (term_find_in(t, r, a, NULL, NULL))
			return 1;
		if (term_find_in(t, r, b, NULL, NULL))
			return 2;
		if (term_now_ms() >= deadline)
			return 0;
		term_pump(t, 30);
	}
}

/* Tell whether the NULL-terminated words occur in line in this order. */
static int
deck_in_order(const char *line, const char *const *words)
{
	const char	*p = line;

	for (; *words != NULL; words++) {
		if ((p = strstr(p, *words)) == NULL)
			return 0;
		p += strlen(*words);
	}
	return 1;
}

/*
 * Wait up to ms for every process started under t, other than jobdeck
 * itself (the client on t and the deck it runs in), to be gone; return
 * how many are left, described in out.
 */
static size_t
deck_survivors(struct term *t, int ms, char *out, size_t size)
{
	pid_t	 pids[64], deck = e2e_deck_find(t, 0);
	int64_t	 deadline = term_now_ms() + ms;
	char	 path[64], cmd[128];
	size_t	 n, i, kept, len = 0;
	ssize_t	 got;
	int	 fd;

	for (;;) {
		n = term_procs(t, pids, 64);
		for (i = kept = 0; i < n && i < 64; i++) {
			if (pids[i] != term_pid(t) && pids[i] != deck)
				pids[kept++] = pids[i];
		}
		if (kept == 0 || term_now_ms() >= deadline)
			break;
		term_pump(t, 50);
	}
	out[0] = '\0';
	for (i = 0; i < kept && len + 1 < size; i++) {
		snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)pids[i]);
		cmd[0] = '\0';
		if ((fd = open(path, O_RDONLY)) != -1) {
			got = read(fd, cmd, sizeof cmd - 1);
			close(fd);
			cmd[got > 0 ? got : 0] = '\0';
			for (got--; got > 0; got--) {
				if (cmd[got - 1] == '\0')
					cmd[got - 1] = ' ';
			}
		}
		snprintf(out + len, size - len, "  pid %ld: %s\n",
		    (long)pids[i], cmd);
		len += strlen(out + len);
	}
	return kept;
}

/* Tell whether a colour is red: palette 1 or 9, or RGB that is mostly red. */
static int
deck_is_red(const struct term_color *c)
{
	if (c->is_default)
		return 0;
	if (c->index == 1 || c->index == 9)
		return 1;
	return c->r >= 128 && c->g <= 100 && c->b <= 100;
}

/*
 * Two jobs record their pids, the deck is stopped by how (SIGTERM,
 * SIGHUP, SIGINT sent to it, or 0 for closing the only terminal with
 * on_last_detach = "quit"), and nothing it started may survive; the
 * client on t exits.
 */
static void
deck_stop_and_check(struct term *t, int how)
{
	char	left[2048];
	pid_t	p1, p2, deck;
	int	status;

	p1 = term_wait_pidfile(t, "p1", WAIT_MS);
	p2 = term_wait_pidfile(t, "p2", WAIT_MS);
	E2E_ASSERT(t, p1 > 0 && p2 > 0, "the jobs did not write p1 and p2");
	EXPECT_IN(t, &panel, "Processes (2 running)", WAIT_MS);
	deck = e2e_deck_pid(t);
	E2E_ASSERT(t, deck > 0, "no deck process");
	if (how != 0)
		ck_assert_int_eq(kill(deck, how), 0);
	else
		term_hangup(t);
	ck_assert_msg(term_wait_exit(t, GRACE_MS + 5000, &status),
	    "jobdeck did not exit within %d ms of %s", GRACE_MS + 5000,
	    how == 0 ? "the terminal closing" : strsignal(how));
	ck_assert_msg(term_wait_pid_dead(t, p1, 2000),
	    "job 1 (pid %ld) survived jobdeck", (long)p1);
	ck_assert_msg(term_wait_pid_dead(t, p2, 2000),
	    "job 2 (pid %ld) survived jobdeck", (long)p2);
	ck_assert_msg(term_wait_pid_dead(t, deck, 2000),
	    "the deck (pid %ld) survived", (long)deck);
	ck_assert_msg(deck_survivors(t, 2000, left, sizeof left) == 0,
	    "processes started by jobdeck survived it:\n%s", left);
}

/* 1. A read -p prompt is answered through focus mode. */
START_TEST(test_read_prompt)
{
	struct term	*t = deck_start(NULL, NULL);

	e2e_run(t, "read -p \"Enter your name: \" name && "
	    "echo \"Hello, $name\"");
	EXPECT_IN(t, &pane, "Enter your name: ", WAIT_MS);
	term_key(t, TERM_KEY_CTRL_T);
	EXPECT_IN(t, &pane_title, "[Focused]", WAIT_MS);
	EXPECT_IN(t, &bottom, "C-t: back", WAIT_MS);
	term_type(t, "Ada");
	EXPECT_IN(t, &pane, "Enter your name: Ada", WAIT_MS);
	E2E_ASSERT(t, !term_find_in(t, &bottom, "Ada", NULL, NULL),
	    "keys typed while focused reached the prompt");
	term_key(t, TERM_KEY_ENTER);
	EXPECT_IN(t, &pane, "Hello, Ada", WAIT_MS);
	EXPECT_IN(t, &panel, "✓ Done", WAIT_MS);
	EXPECT_IN(t, &panel, "Exited 0 after", WAIT_MS);
	/* The job ended, so the prompt has the keyboard again. */
	EXPECT_GONE_IN(t, &bottom, "C-t: back", WAIT_MS);
	EXPECT_GONE_IN(t, NULL, "[Focused]", WAIT_MS);
	term_type(t, "xyz");
	EXPECT_IN(t, &bottom, "> xyz", WAIT_MS);
	term_close(t);
}
END_TEST

/* 2. Ctrl+C in focus mode interrupts the job. */
START_TEST(test_ctrl_c)
{
	const char *const	 cmds[] = { "sleep 1000", NULL };
	struct term		*t = deck_start(NULL, cmds);

	EXPECT_IN(t, &panel, "◉ Active", WAIT_MS);
	EXPECT_IN(t, &panel, "[1] sleep 1000", WAIT_MS);
	EXPECT_IN(t, &panel, "Processes (1 running)", WAIT_MS);
	/* Durations tick every second. */
	EXPECT_IN(t, &panel, "Running for 0m 02s", WAIT_MS);
	term_key(t, TERM_KEY_CTRL_T);
	EXPECT_IN(t, &pane_title, "[Focused]", WAIT_MS);
	term_key(t, TERM_KEY_CTRL_C);
	EXPECT_GONE_IN(t, &panel, "◉ Active", WAIT_MS);
	E2E_ASSERT(t, deck_wait_any(t, &panel, "Exited", "Killed by",
	    WAIT_MS) != 0, "the panel shows neither Exited nor Killed by");
	EXPECT_IN(t, &panel, "Processes (0 running)", WAIT_MS);
	/* The user interrupted it: canceled, not failed. */
	EXPECT_IN(t, &panel, "Killed by SIGINT", WAIT_MS);
	EXPECT_IN(t, &panel, "⊘ Canceled", WAIT_MS);
	EXPECT_GONE_IN(t, NULL, "[Focused]", WAIT_MS);
	term_close(t);
}
END_TEST

/* 3. Ctrl+T toggles focus; focused keys reach the child, not the prompt. */
START_TEST(test_focus_toggle)
{
	static const char *const header[] = {
		"ID", "PID", "STATE", "EXIT", "TIME", "COMMAND", NULL
	};
	struct term	*t = deck_start(NULL, NULL);
	char		 line[1024];
	int		 row;

	e2e_run(t, "cat");
	EXPECT_IN(t, &panel, "[1] cat", WAIT_MS);
	EXPECT_IN(t, &panel, "◉ Active", WAIT_MS);
	term_key(t, TERM_KEY_CTRL_T);
	EXPECT_IN(t, &pane_title, "[Focused]", WAIT_MS);
	term_type(t, "abc");
	EXPECT_IN(t, &pane, "abc", WAIT_MS);
	E2E_ASSERT(t, !term_find_in(t, &bottom, "abc", NULL, NULL),
	    "keys typed while focused reached the prompt");
	/* Enter: the tty echoes the line and cat writes it back. */
	term_key(t, TERM_KEY_ENTER);
	ck_assert_msg(term_wait_count_in(t, &pane, "abc", 2, WAIT_MS),
	    "cat did not echo \"abc\" back\n%s", e2e_dump(t));

	term_key(t, TERM_KEY_CTRL_T);
	EXPECT_GONE_IN(t, NULL, "[Focused]", WAIT_MS);
	EXPECT_GONE_IN(t, &bottom, "C-t: back", WAIT_MS);
	e2e_run(t, "!ps");
	EXPECT_IN(t, NULL, "COMMAND", WAIT_MS);
	E2E_ASSERT(t, term_find(t, "STATE", &row, NULL),
	    "no STATE in the !ps header");
	snprintf(line, sizeof line, "%s", term_row_text(t, row));
	E2E_ASSERT(t, deck_in_order(line, header),
	    e2e_fmt("the !ps header is not ID PID STATE EXIT TIME COMMAND: "
	    "\"%s\"", line));
	E2E_ASSERT(t, term_find(t, "running", &row, NULL),
	    "no job is running in !ps");
	snprintf(line, sizeof line, "%s", term_row_text(t, row));
	E2E_ASSERT(t, strstr(line, "cat") != NULL,
	    e2e_fmt("the running row is not cat: \"%s\"", line));
	term_type(t, "q");
	EXPECT_GONE_IN(t, NULL, "COMMAND", WAIT_MS);
	/* The cat was not disturbed by any of it. */
	EXPECT_IN(t, &panel, "◉ Active", WAIT_MS);
	term_close(t);
}
END_TEST

/*
 * 4a. !kill of a job that ignores SIGTERM ends it with SIGKILL: after the
 * grace period, and long before twice it.
 */
START_TEST(test_kill_ignores_term)
{
	struct term	*t = deck_start(NULL, NULL);
	char		 left[2048];
	int64_t		 t0, took;
	pid_t		 pid;

	e2e_run(t, "trap \"\" TERM; echo $$ > p; while :; do sleep 1; done");
	pid = term_wait_pidfile(t, "p", WAIT_MS);
	E2E_ASSERT(t, pid > 0, "the job did not write its pid");
	EXPECT_IN(t, &panel, "◉ Active", WAIT_MS);
	t0 = term_now_ms();
	e2e_run(t, "!kill 1");
	term_pump(t, 1000);
	E2E_ASSERT(t, term_pid_alive(pid),
	    "the job died at once: SIGKILL came before the grace period");
	ck_assert_msg(term_wait_pid_dead(t, pid, 2 * GRACE_MS),
	    "the job (pid %ld) ignoring SIGTERM is alive %d ms after !kill\n%s",
	    (long)pid, 2 * GRACE_MS, e2e_dump(t));
	took = term_now_ms() - t0;
	ck_assert_msg(took < 2 * GRACE_MS, "the job took %lld ms to die",
	    (long long)took);
	ck_assert_msg(deck_survivors(t, 2000, left, sizeof left) == 0,
	    "processes of the killed job survived:\n%s", left);
	EXPECT_IN(t, &panel, "⊘ Canceled", WAIT_MS);
	EXPECT_IN(t, &panel, "Processes (0 running)", WAIT_MS);
	term_close(t);
}
END_TEST

/* 4b. !kill also ends a job's background children. */
START_TEST(test_kill_background_child)
{
	struct term	*t = deck_start(NULL, NULL);
	char		 left[2048], want[64];
	pid_t		 pid, bg;

	e2e_run(t, "sleep 1000 & echo $! > bg; echo $$ > p; wait");
	pid = term_wait_pidfile(t, "p", WAIT_MS);
	bg = term_wait_pidfile(t, "bg", WAIT_MS);
	E2E_ASSERT(t, pid > 0 && bg > 0, "the job did not write p and bg");
	snprintf(want, sizeof want, "PID: %ld", (long)pid);
	EXPECT_IN(t, &panel, want, WAIT_MS);
	snprintf(want, sizeof want, "PID %ld", (long)pid);
	EXPECT_IN(t, &pane_title, want, WAIT_MS);
	e2e_run(t, "!kill 1");
	ck_assert_msg(term_wait_pid_dead(t, pid, GRACE_MS + 2000),
	    "the job (pid %ld) is alive after !kill\n%s", (long)pid,
	    e2e_dump(t));
	ck_assert_msg(term_wait_pid_dead(t, bg, GRACE_MS + 2000),
	    "the job's background child (pid %ld) is alive after !kill\n%s",
	    (long)bg, e2e_dump(t));
	ck_assert_msg(deck_survivors(t, 2000, left, sizeof left) == 0,
	    "processes of the killed job survived:\n%s", left);
	EXPECT_IN(t, &panel, "⊘ Canceled", WAIT_MS);
	term_close(t);
}
END_TEST

/*
 * 4c. !kill-all stops every job at once, not one after another: three
 * jobs that wait for the grace's SIGKILL are all gone in less than two
 * graces (one after another would take three).
 */
START_TEST(test_kill_all)
{
	const char *const cmds[] = {
		"trap \"\" TERM; echo $$ > p1; while :; do sleep 1; done",
		"trap \"\" TERM; echo $$ > p2; while :; do sleep 1; done",
		"trap \"\" TERM; echo $$ > p3; while :; do sleep 1; done",
		NULL
	};
	struct term	*t = deck_start(NULL, cmds);
	char		 name[16], left[2048];
	int64_t		 t0, took;
	pid_t		 pids[3];
	int		 i;

	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof name, "p%d", i + 1);
		pids[i] = term_wait_pidfile(t, name, WAIT_MS);
		E2E_ASSERT(t, pids[i] > 0,
		    e2e_fmt("job %d did not write its pid", i + 1));
	}
	EXPECT_IN(t, &panel, "Processes (3 running)", WAIT_MS);
	t0 = term_now_ms();
	e2e_run(t, "!kill-all");
	for (i = 0; i < 3; i++) {
		ck_assert_msg(term_wait_pid_dead(t, pids[i],
		    (int)(t0 + 2 * GRACE_MS - term_now_ms())),
		    "job %d (pid %ld) is alive %d ms after !kill-all\n%s",
		    i + 1, (long)pids[i], 2 * GRACE_MS, e2e_dump(t));
	}
	took = term_now_ms() - t0;
	ck_assert_msg(took < 2 * GRACE_MS, "!kill-all of three jobs that "
	    "ignore SIGTERM took %lld ms: not all at once", (long long)took);
	ck_assert_msg(deck_survivors(t, 2000, left, sizeof left) == 0,
	    "processes of the killed jobs survived:\n%s", left);
	EXPECT_IN(t, &panel, "Processes (0 running)", WAIT_MS);
	ck_assert_msg(term_wait_count_in(t, &panel, "⊘ Canceled", 3, WAIT_MS),
	    "not all three jobs show as canceled\n%s", e2e_dump(t));
	term_close(t);
}
END_TEST

/* 4d. !quit stops every job, says so, and exits 0 leaving nothing. */
START_TEST(test_quit)
{
	const char *const cmds[] = {
		"trap \"\" TERM; echo $$ > p1; while :; do sleep 1; done",
		"echo $$ > p2; sleep 1000",
		NULL
	};
	struct term	*t = deck_start(NULL, cmds);
	char		 left[2048];
	pid_t		 p1, p2;
	int		 status;

	p1 = term_wait_pidfile(t, "p1", WAIT_MS);
	p2 = term_wait_pidfile(t, "p2", WAIT_MS);
	E2E_ASSERT(t, p1 > 0 && p2 > 0, "the jobs did not write p1 and p2");
	EXPECT_IN(t, &panel, "Processes (2 running)", WAIT_MS);
	e2e_run(t, "!quit");
	/* Job 2 ends at SIGTERM: the count follows (job 1 waits for KILL). */
	EXPECT_IN(t, NULL, "stopping 1 job…", 3000);
	ck_assert_msg(term_wait_exit(t, GRACE_MS + 5000, &status),
	    "jobdeck did not exit within %d ms of !quit\n%s", GRACE_MS + 5000,
	    e2e_dump(t));
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "!quit: wait status 0x%x, not exit 0", status);
	ck_assert_msg(term_wait_pid_dead(t, p1, 2000),
	    "job 1 (pid %ld, ignores SIGTERM) survived !quit", (long)p1);
	ck_assert_msg(term_wait_pid_dead(t, p2, 2000),
	    "job 2 (pid %ld) survived !quit", (long)p2);
	ck_assert_msg(deck_survivors(t, 2000, left, sizeof left) == 0,
	    "processes started by jobdeck survived !quit:\n%s", left);
	/* The terminal is restored: the alternate screen is gone. */
	E2E_ASSERT(t, !term_find(t, "Processes (", NULL, NULL),
	    "the screen was not restored after !quit");
	term_close(t);
}
END_TEST

/* -v writes the debug log: jobs' lives and the draws, in the state dir. */
START_TEST(test_debug_log)
{
	const char	*argv[] = { e2e_bin(), "-v", "-c", "/dev/null",
			    "echo hi", NULL };
	struct term	*t;
	char		 path[PATH_MAX], buf[65536];
	ssize_t		 n;
	int		 fd, status;

	t = term_start(argv, NULL);
	ck_assert_ptr_nonnull(t);
	EXPECT_IN(t, &panel, "Processes (", WAIT_MS);
	EXPECT_IN(t, &panel, "Exited 0", WAIT_MS);
	/* A client of the control socket. */
	snprintf(path, sizeof path, "XDG_RUNTIME_DIR=%s/run %s ctl ps "
	    ">/dev/null 2>&1", term_tmpdir(t), e2e_bin());
	ck_assert_int_eq(system(path), 0);
	e2e_run(t, "!quit");
	ck_assert(term_wait_exit(t, GRACE_MS + 5000, &status));
	snprintf(path, sizeof path, "%s/state/jobdeck/debug-default.log",
	    term_tmpdir(t));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_msg(fd != -1, "%s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	ck_assert_msg(strstr(buf, "deck default starts") != NULL, "%s", buf);
	ck_assert_msg(strstr(buf, "job 1 started: echo hi") != NULL, "%s", buf);
	ck_assert_msg(strstr(buf, "ended: completed") != NULL, "%s", buf);
	ck_assert_msg(strstr(buf, " draw: all") != NULL, "%s", buf);
	ck_assert_msg(strstr(buf, " ctl: client ") != NULL &&
	    strstr(buf, " asks: 'ps'") != NULL, "%s", buf);
	ck_assert_msg(strstr(buf, "deck default ends") != NULL, "%s", buf);
	term_close(t);
}
END_TEST

/* 4e. SIGTERM, SIGHUP, SIGINT or the terminal closing stop every job. */
static const int stop_signals[] = { SIGTERM, SIGHUP, SIGINT, 0 };

START_TEST(test_stop_by)
{
	const char *const cmds[] = {
		"echo $$ > p1; sleep 1000",
		"sleep 1000 & echo $! > p2; wait",
		NULL
	};
	const char	*args[5];
	struct term	*t;

	args[0] = "-c";
	args[1] = e2e_cfg_write("quit.toml",
	    "[settings]\non_last_detach = \"quit\"\n");
	args[2] = cmds[0];
	args[3] = cmds[1];
	args[4] = NULL;
	t = e2e_start(args, NULL);
	/* 0: close the terminal (a hangup) instead of sending a signal. */
	deck_stop_and_check(t, stop_signals[_i]);
	term_close(t);
	e2e_cfg_remove();
}
END_TEST

/* 4h. A process that escapes with setsid still dies with jobdeck. */
START_TEST(test_setsid_escape)
{
	struct term	*t = deck_start(NULL, NULL);
	char		 left[2048];
	pid_t		 pid, esc;
	int		 status;

	/*
	 * The job waits for esc, then stays: until setsid has run, the
	 * background child is in the job's group, and a job that ends takes
	 * what it left with it (see Containment in the README).
	 */
	e2e_run(t, "setsid sh -c 'echo $$ > esc; sleep 1000' & "
	    "while [ ! -s esc ]; do sleep 0.1; done; echo $$ > p; sleep 1000");
	pid = term_wait_pidfile(t, "p", WAIT_MS);
	esc = term_wait_pidfile(t, "esc", WAIT_MS);
	E2E_ASSERT(t, pid > 0 && esc > 0, "the job did not write p and esc");
	E2E_ASSERT(t, getsid(esc) == esc,
	    "the escaping process did not get a session of its own");
	e2e_run(t, "!quit");
	ck_assert_msg(term_wait_exit(t, GRACE_MS + 5000, &status),
	    "jobdeck did not exit within %d ms of !quit\n%s", GRACE_MS + 5000,
	    e2e_dump(t));
	ck_assert_msg(term_wait_pid_dead(t, esc, 2000),
	    "the setsid process (pid %ld) survived jobdeck", (long)esc);
	ck_assert_msg(deck_survivors(t, 2000, left, sizeof left) == 0,
	    "processes started by jobdeck survived it:\n%s", left);
	term_close(t);
}
END_TEST

/* 5a. A terminal resize reaches the child as its new pane size. */
START_TEST(test_resize)
{
	struct term	*t = deck_start(NULL, NULL);
	int		 row;

	e2e_run(t, "while :; do stty size; sleep 0.2; done");
	EXPECT_IN(t, &pane, "37 78", WAIT_MS);
	term_resize(t, 30, 100);
	/* Panel clamp(100/3, 30, 48) = 33 wide: the pane is 27 x 65 inside. */
	EXPECT_IN(t, NULL, "27 65", WAIT_MS);
	EXPECT_IN(t, NULL, "Processes (1 running)", WAIT_MS);
	term_resize(t, 40, 120);
	ck_assert_msg(deck_wait_last_line(t, &pane, "37 78", WAIT_MS),
	    "the child did not see 37 78 again after growing back\n%s",
	    e2e_dump(t));
	/* The whole frame is redrawn, not just what curses thought changed. */
	E2E_WAIT(t, strncmp(term_row_text(t, 0), "┌ Processes (1 running)",
	    strlen("┌ Processes (1 running)")) == 0, WAIT_MS,
	    "the panel's title is missing after growing back");
	for (row = 1; row < 38; row++)
		E2E_ASSERT(t, strncmp(term_row_text(t, row), "│", 3) == 0 &&
		    strstr(term_row_text(t, row), "││") != NULL,
		    e2e_fmt("row %d lost its borders after growing back", row));
	E2E_ASSERT(t, strncmp(term_row_text(t, 38), "└", 3) == 0,
	    "the bottom border is missing after growing back");
	term_close(t);
}
END_TEST

/* 5b. !logs shows the first and, after End or G, the last line. */
START_TEST(test_logs)
{
	struct term	*t = deck_start(NULL, NULL);
	int		 row;

	e2e_run(t, "seq 1 5000");
	EXPECT_IN(t, &panel, "✓ Done", WAIT_MS);
	EXPECT_LINE(t, &pane, "5000", WAIT_MS);
	e2e_run(t, "!logs 1");
	EXPECT_IN(t, NULL, "Logs [1]", WAIT_MS);
	EXPECT_LINE(t, NULL, "1", WAIT_MS);
	row = deck_find_line(t, NULL, "1");
	E2E_ASSERT(t, deck_find_line(t, NULL, "2") == row + 1 &&
	    deck_find_line(t, NULL, "3") == row + 2,
	    "the logs view does not start with the lines 1, 2, 3");
	E2E_ASSERT(t, deck_find_line(t, NULL, "5000") == -1,
	    "the logs view shows 5000 before End");

	term_key(t, TERM_KEY_END);
	EXPECT_LINE(t, NULL, "5000", WAIT_MS);
	row = deck_find_line(t, NULL, "5000");
	E2E_ASSERT(t, deck_find_line(t, NULL, "4999") == row - 1,
	    "after End, 4999 is not right above 5000");
	ck_assert_msg(deck_wait_line_gone(t, NULL, "1", WAIT_MS),
	    "after End the first line is still shown\n%s", e2e_dump(t));

	term_type(t, "g");
	EXPECT_LINE(t, NULL, "1", WAIT_MS);
	term_type(t, "G");
	EXPECT_LINE(t, NULL, "5000", WAIT_MS);
	EXPECT_IN(t, NULL, "Logs [1]", WAIT_MS);
	term_type(t, "q");
	EXPECT_GONE_IN(t, NULL, "Logs [1]", WAIT_MS);
	EXPECT_IN(t, &panel, "Processes (", WAIT_MS);
	term_close(t);
}
END_TEST

/* 5c. Colours and bold survive the pane. */
START_TEST(test_colors)
{
	struct term	*t = deck_start(NULL, NULL);
	struct term_cell c;
	int		 row, col;

	e2e_run(t, "printf '\\033[31mRED\\033[0m \\033[1mBOLD\\033[0m'");
	EXPECT_IN(t, &pane, "RED BOLD", WAIT_MS);
	term_find_in(t, &pane, "RED BOLD", &row, &col);
	term_cell(t, row, col, &c);
	E2E_ASSERT(t, deck_is_red(&c.fg), e2e_fmt("R of RED is not red: "
	    "index %d rgb %d,%d,%d default %d", c.fg.index, c.fg.r, c.fg.g,
	    c.fg.b, c.fg.is_default));
	E2E_ASSERT(t, !c.bold, "R of RED is bold");
	term_cell(t, row, col + 2, &c);
	E2E_ASSERT(t, deck_is_red(&c.fg), "D of RED is not red");
	term_cell(t, row, col + 4, &c);
	E2E_ASSERT(t, c.bold, "B of BOLD is not bold");
	E2E_ASSERT(t, !deck_is_red(&c.fg), "B of BOLD is red");
	term_cell(t, row, col + 7, &c);
	E2E_ASSERT(t, c.bold, "D of BOLD is not bold");

	/* 256 colours and RGB, on an outer terminal with 256 colours. */
	e2e_run(t, "printf '\\033[38;5;208mORANGE\\033[0m "
	    "\\033[38;2;0;200;0mGREEN\\033[0m'");
	EXPECT_IN(t, &pane, "ORANGE GREEN", WAIT_MS);
	term_find_in(t, &pane, "ORANGE GREEN", &row, &col);
	term_cell(t, row, col, &c);
	E2E_ASSERT(t, !c.fg.is_default && (c.fg.index == 208 ||
	    (c.fg.r >= 200 && c.fg.g >= 80 && c.fg.g <= 180 && c.fg.b <= 80)),
	    e2e_fmt("ORANGE (38;5;208) is index %d rgb %d,%d,%d",
	    c.fg.index, c.fg.r, c.fg.g, c.fg.b));
	term_cell(t, row, col + 7, &c);
	E2E_ASSERT(t, !c.fg.is_default && c.fg.g >= 128 && c.fg.r <= 100 &&
	    c.fg.b <= 100, e2e_fmt("GREEN (38;2;0;200;0) is index %d "
	    "rgb %d,%d,%d", c.fg.index, c.fg.r, c.fg.g, c.fg.b));
	term_close(t);
}
END_TEST

/* 5d. Wide characters take two cells. */
START_TEST(test_wide_chars)
{
	struct term	*t = deck_start(NULL, NULL);
	struct term_cell c;
	int		 row, col;

	e2e_run(t, "echo 日本語");
	EXPECT_IN(t, &pane, "日本語", WAIT_MS);
	term_find_in(t, &pane, "日本語", &row, &col);
	term_cell(t, row, col, &c);
	E2E_ASSERT(t, strcmp(c.text, "日") == 0 && c.width == 2,
	    e2e_fmt("cell of 日 holds \"%s\" width %d", c.text, c.width));
	term_cell(t, row, col + 2, &c);
	E2E_ASSERT(t, strcmp(c.text, "本") == 0,
	    e2e_fmt("two cells after 日 is \"%s\", not 本", c.text));
	term_cell(t, row, col + 4, &c);
	E2E_ASSERT(t, strcmp(c.text, "語") == 0,
	    e2e_fmt("four cells after 日 is \"%s\", not 語", c.text));
	term_close(t);
}
END_TEST

/* 5e. cd, export and unset persist for later jobs; cd errors are shown. */
START_TEST(test_session_state)
{
	struct term	*t = deck_start(NULL, NULL);

	e2e_run(t, "cd /tmp");
	term_pump(t, 300);
	E2E_ASSERT(t, !term_find_in(t, &panel, "[1]", NULL, NULL),
	    "cd started a job");
	EXPECT_IN(t, &panel, "Processes (0 running)", WAIT_MS);
	e2e_run(t, "pwd");
	EXPECT_IN(t, &pane_title, "[1] pwd", WAIT_MS);
	EXPECT_LINE(t, &pane, "/tmp", WAIT_MS);

	e2e_run(t, "export FOO=bar");
	e2e_run(t, "echo \"foo=$FOO\"");
	EXPECT_LINE(t, &pane, "foo=bar", WAIT_MS);
	e2e_run(t, "unset FOO");
	e2e_run(t, "echo \"foo=[$FOO]\"");
	EXPECT_LINE(t, &pane, "foo=[]", WAIT_MS);

	e2e_run(t, "cd /nope");
	/* The session shell's words: bash's, or dash's (sh). */
	E2E_ASSERT(t, deck_wait_any(t, &bottom,
	    "cd: /nope: No such file or directory", "cd: can't cd to /nope",
	    WAIT_MS) != 0, "the cd error is not shown");
	e2e_run(t, "pwd");
	EXPECT_IN(t, &pane_title, "[4] pwd", WAIT_MS);
	EXPECT_LINE(t, &pane, "/tmp", WAIT_MS);
	E2E_ASSERT(t, !term_find_in(t, &panel, "[5]", NULL, NULL),
	    "a session command started a job");
	term_close(t);
}
END_TEST

/*
 * 5f. The session is a real shell (bash here): the seed's two lines, a
 * sourced file's export and function, an alias, a failing list that
 * changes nothing, and a job's own cd that stays its own.
 */
START_TEST(test_session_shell)
{
	const char	*env[] = { "SHELL=/bin/bash", NULL };
	struct term	*t;
	char		 tmpl[] = "/tmp/check_e2e_session.XXXXXX", *dir;
	char		 line[256], path[256];
	FILE		*fp;

	dir = mkdtemp(tmpl);
	ck_assert_ptr_nonnull(dir);
	snprintf(path, sizeof path, "%s/activate", dir);
	fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fprintf(fp, "export VENV=on\ngreet() { echo \"hello $1 $VENV\"; }\n");
	fclose(fp);
	t = deck_start(env, NULL);

	snprintf(line, sizeof line, "cd %s && export API_KEY=secret", dir);
	e2e_run(t, line);
	EXPECT_IN(t, &bottom, dir, WAIT_MS);
	e2e_run(t, "echo \"$(pwd) key=$API_KEY\"");
	EXPECT_IN(t, &pane_title, "[1]", WAIT_MS);
	snprintf(line, sizeof line, "%s key=secret", dir);
	EXPECT_LINE(t, &pane, line, WAIT_MS);

	/* With a slash: bash looks a bare name up in PATH first. */
	e2e_run(t, "source ./activate");
	e2e_run(t, "greet world");
	EXPECT_IN(t, &pane_title, "[2] greet world", WAIT_MS);
	EXPECT_LINE(t, &pane, "hello world on", WAIT_MS);

	e2e_run(t, "alias hi='echo aliased'");
	e2e_run(t, "hi there");
	EXPECT_IN(t, &pane_title, "[3] hi there", WAIT_MS);
	EXPECT_LINE(t, &pane, "aliased there", WAIT_MS);

	e2e_run(t, "cd nowhere && export X=1");
	EXPECT_IN(t, &bottom, "cd: nowhere: No such file or directory",
	    WAIT_MS);
	e2e_run(t, "cd / && echo \"in $(pwd) x=[$X]\"");
	EXPECT_IN(t, &pane_title, "[4]", WAIT_MS);
	EXPECT_LINE(t, &pane, "in / x=[]", WAIT_MS);
	e2e_run(t, "pwd");
	EXPECT_IN(t, &pane_title, "[5] pwd", WAIT_MS);
	EXPECT_LINE(t, &pane, dir, WAIT_MS);
	E2E_ASSERT(t, !term_find_in(t, &panel, "[6]", NULL, NULL),
	    "a session line started a job");
	term_close(t);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* 6. Unknown commands and jobs are reported in the message line. */
START_TEST(test_errors)
{
	struct term	*t = deck_start(NULL, NULL);

	term_key(t, TERM_KEY_CTRL_T);
	E2E_ASSERT(t, deck_wait_any(t, &bottom, "no running job",
	    "no terminal", WAIT_MS) == 1,
	    "Ctrl+T with no job does not say \"no running job\"");
	e2e_run(t, "!frobnicate");
	EXPECT_IN(t, &bottom, "unknown command: !frobnicate", WAIT_MS);
	e2e_run(t, "!kill 999");
	EXPECT_IN(t, &bottom, "no such job: 999", WAIT_MS);
	E2E_ASSERT(t, !term_find(t, "[1]", NULL, NULL),
	    "a ! command started a job");
	term_close(t);
}
END_TEST

/* 7. A job inherits no descriptor but the terminal on 0-2. */
START_TEST(test_fd_leak)
{
	struct term	*t = deck_start(NULL, NULL);

	/* The glob's own directory fd is the lowest free one: 3. */
	e2e_run(t, "printf FDS:; for f in /proc/$$/fd/*; do "
	    "printf ' %s' \"${f##*/}\"; done; echo");
	EXPECT_IN(t, &pane, "FDS:", WAIT_MS);
	EXPECT_IN(t, &panel, "✓ Done", WAIT_MS);
	EXPECT_LINE(t, &pane, "FDS: 0 1 2 3", WAIT_MS);
	term_close(t);
}
END_TEST

/* 8. A missing program says "not found" and exits 127. */
START_TEST(test_not_found)
{
	struct term	*t = deck_start(NULL, NULL);
	char		 line[1024];
	int		 row;

	e2e_run(t, "nosuchprog_xyz");
	EXPECT_IN(t, &pane, "not found", WAIT_MS);
	EXPECT_IN(t, &panel, "Exited 127 after", WAIT_MS);
	EXPECT_IN(t, &panel, "✗ Failed", WAIT_MS);
	e2e_run(t, "!ps");
	EXPECT_IN(t, NULL, "COMMAND", WAIT_MS);
	E2E_ASSERT(t, term_find(t, "nosuchprog_xyz", &row, NULL),
	    "the job is not in !ps");
	snprintf(line, sizeof line, "%s", term_row_text(t, row));
	E2E_ASSERT(t, strstr(line, "failed") != NULL &&
	    strstr(line, "127") != NULL,
	    e2e_fmt("the !ps row is not failed with 127: \"%s\"", line));
	term_key(t, TERM_KEY_ESC);
	EXPECT_GONE_IN(t, NULL, "COMMAND", WAIT_MS);
	term_close(t);
}
END_TEST

/* 9. Jobs on pipes (JOBDECK_NO_PTY=1) show both streams; no focus. */
START_TEST(test_no_pty)
{
	const char *const	 env[] = { "JOBDECK_NO_PTY=1", NULL };
	struct term		*t = deck_start(env, NULL);

	e2e_run(t, "echo out; echo err >&2; sleep 1000");
	EXPECT_LINE(t, &pane, "out", WAIT_MS);
	EXPECT_LINE(t, &pane, "err", WAIT_MS);
	EXPECT_IN(t, &panel, "no terminal", WAIT_MS);
	EXPECT_IN(t, &panel, "◉ Active", WAIT_MS);
	term_key(t, TERM_KEY_CTRL_T);
	EXPECT_IN(t, &bottom, "no terminal", WAIT_MS);
	term_pump(t, 200);
	E2E_ASSERT(t, !term_find(t, "[Focused]", NULL, NULL),
	    "a job on pipes was focused");
	term_close(t);
}
END_TEST

/* 10. Output written just before exit, without a newline, is shown. */
START_TEST(test_last_output)
{
	struct term	*t = deck_start(NULL, NULL);

	e2e_run(t, "printf 'last line without newline'");
	EXPECT_IN(t, &pane, "last line without newline", WAIT_MS);
	EXPECT_IN(t, &panel, "✓ Done", WAIT_MS);
	/* The panel is 40 columns: the line is cut, its start must show. */
	EXPECT_IN(t, &panel, "Last output: last line", WAIT_MS);
	term_close(t);
}
END_TEST

/* 11. Ctrl+N and Ctrl+P select the next and previous job. */
START_TEST(test_select)
{
	struct term	*t = deck_start(NULL, NULL);

	e2e_run(t, "echo AAA; sleep 1000");
	EXPECT_LINE(t, &pane, "AAA", WAIT_MS);
	e2e_run(t, "echo BBB; sleep 1000");
	EXPECT_LINE(t, &pane, "BBB", WAIT_MS);
	EXPECT_IN(t, &pane_title, "[2]", WAIT_MS);
	term_key(t, TERM_KEY_CTRL_P);
	EXPECT_LINE(t, &pane, "AAA", WAIT_MS);
	EXPECT_IN(t, &pane_title, "[1]", WAIT_MS);
	ck_assert_msg(deck_wait_line_gone(t, &pane, "BBB", WAIT_MS),
	    "Ctrl+P: job 2's output is still in the pane\n%s", e2e_dump(t));
	term_key(t, TERM_KEY_CTRL_N);
	EXPECT_LINE(t, &pane, "BBB", WAIT_MS);
	EXPECT_IN(t, &pane_title, "[2]", WAIT_MS);
	/*
	 * A click (SGR mouse report, as xterm sends it: press and release
	 * of button 1 at column 6, row 3 — job 1's entry) selects job 1.
	 */
	term_type(t, "\033[<0;6;3M\033[<0;6;3m");
	EXPECT_LINE(t, &pane, "AAA", WAIT_MS);
	EXPECT_IN(t, &pane_title, "[1]", WAIT_MS);
	term_close(t);
}
END_TEST

/* 12. !help lists the commands. */
START_TEST(test_help)
{
	struct term	*t = deck_start(NULL, NULL);

	e2e_run(t, "!help");
	EXPECT_IN(t, NULL, "!kill-all", WAIT_MS);
	EXPECT_IN(t, NULL, "!logs", WAIT_MS);
	EXPECT_IN(t, NULL, "!ps", WAIT_MS);
	E2E_ASSERT(t, e2e_page_to(t, "!quit", 3, WAIT_MS), "!help lacks !quit");
	/* The keys, from the binding table, on a later page. */
	E2E_ASSERT(t, e2e_page_to(t, "C-t                focus", 3,
	    WAIT_MS), "!help lacks the focus key");
	term_close(t);
}
END_TEST

/* !ps counts jobs, not its header: four jobs are "1-4 of 4". */
START_TEST(test_ps_count)
{
	const char *const cmds[] = { "sleep 100", "sleep 101", "sleep 102",
		"sleep 103", NULL };
	struct term	*t = deck_start(NULL, cmds);

	EXPECT_IN(t, &panel, "Processes (4 running)", WAIT_MS);
	e2e_run(t, "!ps");
	EXPECT_IN(t, NULL, "1-4 of 4", WAIT_MS);
	E2E_ASSERT(t, !term_find(t, "of 5", NULL, NULL),
	    "!ps counts its header as a job");
	term_close(t);
}
END_TEST

/* 4j. !kill -9 sends SIGKILL at once, and the job shows as canceled. */
START_TEST(test_kill_signal)
{
	struct term	*t = deck_start(NULL, NULL);
	pid_t		 pid;

	e2e_run(t, "trap \"\" TERM; echo $$ > p; while :; do sleep 1; done");
	pid = term_wait_pidfile(t, "p", WAIT_MS);
	E2E_ASSERT(t, pid > 0, "the job did not write its pid");
	EXPECT_IN(t, &panel, "◉ Active", WAIT_MS);
	e2e_run(t, "!kill -9 1");
	ck_assert_msg(term_wait_pid_dead(t, pid, 2000),
	    "the job (pid %ld) is alive 2 s after !kill -9\n%s", (long)pid,
	    e2e_dump(t));
	EXPECT_IN(t, &panel, "Killed by SIGKILL", WAIT_MS);
	EXPECT_IN(t, &panel, "⊘ Canceled", WAIT_MS);
	term_close(t);
}
END_TEST

/* 13. !focus ID selects and focuses that job. */
START_TEST(test_focus_command)
{
	struct term	*t = deck_start(NULL, NULL);

	e2e_run(t, "cat");
	EXPECT_IN(t, &pane_title, "[1] cat", WAIT_MS);
	e2e_run(t, "sleep 1000");
	EXPECT_IN(t, &pane_title, "[2] sleep 1000", WAIT_MS);
	e2e_run(t, "!focus 1");
	EXPECT_IN(t, &pane_title, "[1] cat", WAIT_MS);
	EXPECT_IN(t, &pane_title, "[Focused]", WAIT_MS);
	term_type(t, "hello");
	term_key(t, TERM_KEY_ENTER);
	ck_assert_msg(term_wait_count_in(t, &pane, "hello", 2, WAIT_MS),
	    "cat did not echo \"hello\" back\n%s", e2e_dump(t));
	term_key(t, TERM_KEY_CTRL_T);
	EXPECT_GONE_IN(t, NULL, "[Focused]", WAIT_MS);
	term_close(t);
}
END_TEST

/* 14. The prompt edits the line, keeps a history, and Ctrl+C clears it. */
START_TEST(test_line_editing)
{
	struct term	*t = deck_start(NULL, NULL);

	term_type(t, "cho hi");
	term_key(t, TERM_KEY_HOME);
	term_type(t, "e");
	term_key(t, TERM_KEY_END);
	term_type(t, " there");
	EXPECT_IN(t, &bottom, "> echo hi there", WAIT_MS);
	term_type(t, "\027");			/* Ctrl+W: the word */
	term_type(t, "you");
	EXPECT_IN(t, &bottom, "> echo hi you", WAIT_MS);
	term_key(t, TERM_KEY_LEFT);
	term_key(t, TERM_KEY_LEFT);
	term_key(t, TERM_KEY_LEFT);
	term_key(t, TERM_KEY_BACKSPACE);	/* the space before "you" */
	term_type(t, "-");
	EXPECT_IN(t, &bottom, "> echo hi-you", WAIT_MS);
	term_key(t, TERM_KEY_ENTER);
	EXPECT_LINE(t, &pane, "hi-you", WAIT_MS);
	EXPECT_GONE_IN(t, &bottom, "echo", WAIT_MS);

	term_key(t, TERM_KEY_UP);
	EXPECT_IN(t, &bottom, "> echo hi-you", WAIT_MS);
	term_type(t, "\025");			/* Ctrl+U: the whole line */
	EXPECT_GONE_IN(t, &bottom, "echo", WAIT_MS);
	term_type(t, "abc");
	EXPECT_IN(t, &bottom, "> abc", WAIT_MS);
	term_key(t, TERM_KEY_CTRL_C);
	EXPECT_GONE_IN(t, &bottom, "abc", WAIT_MS);
	E2E_ASSERT(t, !term_find_in(t, &panel, "[2]", NULL, NULL),
	    "editing keys started a job");
	term_close(t);
}
END_TEST

/* 15. PgUp and PgDn at the prompt scroll the selected job's scrollback. */
START_TEST(test_scrollback)
{
	struct term	*t = deck_start(NULL, NULL);

	e2e_run(t, "seq 1 200");
	EXPECT_LINE(t, &pane, "200", WAIT_MS);
	EXPECT_IN(t, &panel, "✓ Done", WAIT_MS);
	E2E_ASSERT(t, deck_find_line(t, &pane, "150") == -1,
	    "line 150 should have scrolled out of the pane");
	term_key(t, TERM_KEY_PAGEUP);
	EXPECT_LINE(t, &pane, "150", WAIT_MS);
	term_key(t, TERM_KEY_PAGEDOWN);
	EXPECT_LINE(t, &pane, "200", WAIT_MS);
	ck_assert_msg(deck_wait_line_gone(t, &pane, "150", WAIT_MS),
	    "PgDn did not scroll back to the live screen\n%s", e2e_dump(t));
	term_close(t);
}
END_TEST

/*
 * 15b. The emulator keeps 1,000 lines of scrollback when the store keeps
 * the output: PgUp past them opens the job's log from the store there,
 * where the first line, long gone from the ring, is still read; q goes
 * back to the pane.
 */
START_TEST(test_scrollback_store)
{
	struct term	*t = deck_start(NULL, NULL);
	int		 i;

	e2e_run(t, "seq 1 3000");
	EXPECT_LINE(t, &pane, "3000", WAIT_MS);
	EXPECT_IN(t, &panel, "✓ Done", WAIT_MS);
	for (i = 0; i < 80 && !term_find(t, "(scrolled back)", NULL, NULL);
	    i++) {
		term_key(t, TERM_KEY_PAGEUP);
		term_pump(t, 30);
	}
	EXPECT_IN(t, NULL, "(scrolled back)", WAIT_MS);
	/* More than a ring's worth of pages: the ring ran out first. */
	E2E_ASSERT(t, i > 1000 / 40, e2e_fmt("the view opened after %d "
	    "pages", i));
	term_type(t, "g");
	EXPECT_LINE(t, NULL, "1", WAIT_MS);
	EXPECT_IN(t, NULL, "1-", WAIT_MS);
	term_type(t, "q");
	EXPECT_GONE_IN(t, NULL, "(scrolled back)", WAIT_MS);
	EXPECT_IN(t, &panel, "✓ Done", WAIT_MS);
	term_close(t);
}
END_TEST

/* 16. A scrolled-back view stays on its lines while new output arrives. */
START_TEST(test_scrollback_steady)
{
	static const struct term_rect	 top = { 1, 41, 1, 78 };
	struct term			*t = deck_start(NULL, NULL);
	char				 before[256];

	e2e_run(t, "i=0; while :; do i=$((i+1)); echo L$i; sleep 0.05; done");
	EXPECT_LINE(t, &pane, "L50", WAIT_MS);
	term_key(t, TERM_KEY_PAGEUP);
	E2E_WAIT(t, strncmp(term_text_in(t, &top), "L", 1) == 0, WAIT_MS,
	    e2e_fmt("the pane's top row after PgUp is \"%s\"",
	    term_text_in(t, &top)));
	term_pump(t, 200);
	snprintf(before, sizeof before, "%s", term_text_in(t, &top));
	/* About 20 more lines arrive meanwhile. */
	term_pump(t, 1000);
	E2E_ASSERT(t, strcmp(term_text_in(t, &top), before) == 0,
	    e2e_fmt("the scrolled view moved from \"%s\" to \"%s\"",
	    before, term_text_in(t, &top)));
	term_close(t);
}
END_TEST

/*
 * Configuration (issue 4).  deck_start_file() starts jobdeck with
 * `OPT FILE` instead of `-c /dev/null`, FILE written from text into a
 * private directory (0600, as jobdeck wants it).
 */
/* Start jobdeck with opt (-c or -f) and a file holding text. */
static struct term *
deck_start_file(const char *opt, const char *name, const char *text)
{
	const char	*args[3];

	args[0] = opt;
	args[1] = e2e_cfg_write(name, text);
	args[2] = NULL;
	return e2e_start(args, NULL);
}

/* Autostarted jobs appear with env, params and templating; !run starts more. */
START_TEST(test_config_autostart)
{
	struct term	*t;

	t = deck_start_file("-c", "config.toml",
	    "[[job]]\n"
	    "name = \"hello\"\n"
	    "command = \"echo hello-${GREETING} {who}; sleep 1000\"\n"
	    "env = { GREETING = \"hi\" }\n"
	    "params = { who = \"big world\" }\n"
	    "\n"
	    "[[job]]\n"
	    "name = \"later\"\n"
	    "command = \"printf\"\n"
	    "args = [\"<%s>\\\\n\", \"later-{n}\", \"${NOPE:-dflt}\"]\n"
	    "autostart = false\n");
	EXPECT_IN(t, &panel, "[1] hello: echo hello-", WAIT_MS);
	EXPECT_IN(t, &pane, "hello-hi big world", WAIT_MS);
	E2E_ASSERT(t, !term_find_in(t, &panel, "later", NULL, NULL),
	    "a job with autostart = false started");
	e2e_run(t, "!run later n=$5;rm");
	EXPECT_IN(t, &pane, "<later-$5;rm>", WAIT_MS);
	EXPECT_IN(t, &pane, "<dflt>", WAIT_MS);
	EXPECT_IN(t, &panel, "[2] later:", WAIT_MS);
	e2e_run(t, "!run nosuch");
	EXPECT_IN(t, &bottom, "run: no configured job named nosuch", WAIT_MS);
	e2e_run(t, "!run later oops");
	EXPECT_IN(t, &bottom, "run: expected key=value, not 'oops'", WAIT_MS);
	term_close(t);
	e2e_cfg_remove();
}
END_TEST

/* timeout: the job is stopped and shows "Timed out". */
START_TEST(test_config_timeout)
{
	struct term	*t;

	t = deck_start_file("-c", "config.toml",
	    "[[job]]\nname = \"slow\"\ncommand = \"sleep 1000\"\n"
	    "timeout = 0.5\n");
	EXPECT_IN(t, &panel, "[1] slow: sleep 1000", WAIT_MS);
	EXPECT_IN(t, &panel, "Timed out", WAIT_MS);
	EXPECT_IN(t, &panel, "Processes (0 running)", WAIT_MS);
	term_close(t);
	e2e_cfg_remove();
}
END_TEST

/* on-failure: max_restarts more runs, then it stays failed. */
START_TEST(test_config_restart)
{
	struct term	*t;

	t = deck_start_file("-c", "config.toml",
	    "[[job]]\nname = \"flaky\"\ncommand = \"echo try-run; exit 3\"\n"
	    "restart = \"on-failure\"\nrestart_delay = 0.2\n"
	    "max_restarts = 2\n");
	EXPECT_IN(t, &panel, "✗ Failed", WAIT_MS);
	E2E_ASSERT(t, term_wait_count_in(t, &pane, "try-run", 3, WAIT_MS),
	    "the job did not run three times");
	term_pump(t, 1000);
	E2E_ASSERT(t, term_count_in(t, &pane, "try-run") == 3,
	    "the job ran more than 1 + max_restarts times");
	EXPECT_IN(t, &panel, "Exited 3 after", WAIT_MS);
	E2E_ASSERT(t, !term_find_in(t, &panel, "[2]", NULL, NULL),
	    "a restart made a new job instead of rerunning [1]");

	/* !restart runs it again, with a fresh count. */
	e2e_run(t, "!restart flaky");
	E2E_ASSERT(t, term_wait_count_in(t, &pane, "try-run", 6, WAIT_MS),
	    "!restart did not run the job three more times");
	term_close(t);
	e2e_cfg_remove();
}
END_TEST

/* max_running = 1: the second job waits queued until the first ends. */
START_TEST(test_config_queue)
{
	struct term	*t;

	t = deck_start_file("-c", "config.toml",
	    "[settings]\nmax_running = 1\n\n"
	    "[[job]]\nname = \"first\"\ncommand = \"sleep 1.5; echo A-done\"\n\n"
	    "[[job]]\nname = \"second\"\ncommand = \"echo B-ran\"\n");
	EXPECT_IN(t, &panel, "[2] second: echo B-ran", WAIT_MS);
	EXPECT_IN(t, &panel, "Queued", WAIT_MS);
	EXPECT_IN(t, &panel, "Processes (1 running)", WAIT_MS);
	E2E_ASSERT(t, !term_find(t, "B-ran\n", NULL, NULL) &&
	    term_count_in(t, &panel, "✓ Done") == 0,
	    "the queued job ran before the first ended");
	E2E_ASSERT(t, term_wait_count_in(t, &panel, "✓ Done", 2, WAIT_MS),
	    "the two jobs did not both finish");
	term_close(t);
	e2e_cfg_remove();
}
END_TEST

/* input: the text reaches a read in the job. */
START_TEST(test_config_input)
{
	struct term	*t;

	t = deck_start_file("-c", "config.toml",
	    "[[job]]\nname = \"asker\"\n"
	    "command = \"read -r x; echo \\\"got:[$x]\\\"; sleep 1000\"\n"
	    "input = \"typed in\\n\"\n");
	EXPECT_IN(t, &pane, "got:[typed in]", WAIT_MS);
	term_close(t);
	e2e_cfg_remove();
}
END_TEST

/* A Procfile gives one job per line. */
START_TEST(test_config_procfile)
{
	struct term	*t;

	t = deck_start_file("-f", "Procfile",
	    "# the app\nweb: echo from-web; sleep 1000\n\n"
	    "worker: echo from-worker; sleep 1000\n");
	EXPECT_IN(t, &panel, "[1] web:", WAIT_MS);
	EXPECT_IN(t, &panel, "[2] worker:", WAIT_MS);
	EXPECT_IN(t, &panel, "Processes (2 running)", WAIT_MS);
	term_close(t);
	e2e_cfg_remove();
}
END_TEST

/* focus_key: another key focuses and returns; Ctrl+T then goes to the job. */
START_TEST(test_config_focus_key)
{
	struct term	*t;

	t = deck_start_file("-c", "config.toml",
	    "[settings]\nfocus_key = \"C-g\"\n\n"
	    "[[job]]\nname = \"asker\"\n"
	    "command = \"read -r x; echo \\\"got:[$x]\\\"; sleep 1000\"\n");
	EXPECT_IN(t, &panel, "[1] asker:", WAIT_MS);
	term_key(t, TERM_KEY_CTRL_T);
	term_pump(t, 300);
	E2E_ASSERT(t, !term_find(t, "[Focused]", NULL, NULL),
	    "Ctrl+T still focuses with focus_key = \"C-g\"");
	term_type(t, "\007");
	EXPECT_IN(t, &pane_title, "[Focused]", WAIT_MS);
	EXPECT_IN(t, &bottom, "C-g: back", WAIT_MS);
	term_type(t, "hi");
	term_key(t, TERM_KEY_ENTER);
	EXPECT_IN(t, &pane, "got:[hi]", WAIT_MS);
	term_type(t, "\007");
	EXPECT_GONE_IN(t, NULL, "[Focused]", WAIT_MS);
	/* The help names the key in use. */
	e2e_run(t, "!help");
	E2E_ASSERT(t, e2e_page_to(t, "C-g                focus", 3,
	    WAIT_MS), "!help lacks the focus key C-g");
	E2E_ASSERT(t, !term_find(t, "C-t ", NULL, NULL),
	    "!help names C-t when focus_key is C-g");
	term_close(t);
	e2e_cfg_remove();
}
END_TEST

/* inherit_env = false: the job gets its env alone (and TERM). */
START_TEST(test_config_inherit_env)
{
	struct term	*t;

	t = deck_start_file("-c", "config.toml",
	    "[[job]]\nname = \"bare\"\ninherit_env = false\n"
	    "env = { ONLY = \"yes\" }\n"
	    "command = \"echo \\\"home=[$HOME] only=[$ONLY]\\\"; "
	    "sleep 1000\"\n\n"
	    "[[job]]\nname = \"full\"\nenv = { ONLY = \"too\" }\n"
	    "command = \"echo \\\"home=[$HOME] only=[$ONLY]\\\"; sleep 1000\"\n");
	EXPECT_IN(t, &panel, "[2] full:", WAIT_MS);
	e2e_run(t, "!focus bare");
	EXPECT_IN(t, &pane, "home=[] only=[yes]", WAIT_MS);
	term_key(t, TERM_KEY_CTRL_T);
	e2e_run(t, "!focus full");
	EXPECT_IN(t, &pane, "only=[too]", WAIT_MS);
	E2E_ASSERT(t, !term_find_in(t, &pane, "home=[]", NULL, NULL),
	    "a job that inherits its environment has no HOME");
	term_close(t);
	e2e_cfg_remove();
}
END_TEST

/* Bad configuration: a precise message, exit 2, and no screen. */
START_TEST(test_config_errors)
{
	char		 out[32768], args[256];
	const char	*path;
	int		 rc;

	path = e2e_cfg_write("config.toml", "[settings]\nkill_timeout = 99999\n");
	snprintf(args, sizeof args, "-c %s", path);
	rc = e2e_batch(args, out, sizeof out);
	ck_assert_int_eq(rc, 2);
	ck_assert_msg(strstr(out, e2e_fmt("%s:2:16: kill_timeout must be a "
	    "number between 0 and 3600", path)) != NULL, "got: %s", out);
	ck_assert_msg(strstr(out, "\033[") == NULL, "the screen was touched");
	e2e_cfg_remove();

	path = e2e_cfg_write("config.toml", "[[job]]\nname = \"a\"\ncomand = \"x\"\n");
	snprintf(args, sizeof args, "--check-config -c %s", path);
	ck_assert_int_eq(e2e_batch(args, out, sizeof out), 2);
	ck_assert_msg(strstr(out, "unknown key 'comand' in [[job]] (did you "
	    "mean 'command'?)") != NULL, "got: %s", out);
	e2e_cfg_remove();

	path = e2e_cfg_write("Procfile", "web echo\n");
	snprintf(args, sizeof args, "--check-config -f %s", path);
	ck_assert_int_eq(e2e_batch(args, out, sizeof out), 2);
	ck_assert_msg(strstr(out, e2e_fmt("%s:1:", path)) != NULL,
	    "got: %s", out);
	e2e_cfg_remove();

	ck_assert_int_eq(e2e_batch("--check-config -c config.toml.example",
	    out, sizeof out), 0);
	ck_assert_msg(strstr(out, "config.toml.example: ok") != NULL,
	    "got: %s", out);
	ck_assert_int_eq(e2e_batch("--help-config", out, sizeof out), 0);
	ck_assert_msg(strstr(out, "max_running") != NULL, "got: %s", out);
}
END_TEST

/* ---- The text view (pager): lazy store runs, search, follow, grep ---- */

/* Return the VmRSS of process pid in KiB, or -1. */
static long
pager_rss_kib(pid_t pid)
{
	char	path[64], line[256];
	FILE	*f;
	long	kib = -1;

	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, "VmRSS:", 6) == 0) {
			kib = strtol(line + 6, NULL, 10);
			break;
		}
	}
	fclose(f);
	return kib;
}

/* Tell whether the cell at row, col is drawn reversed (a search's match). */
static int
pager_reversed(struct term *t, int row, int col)
{
	struct term_cell	c;

	return term_cell(t, row, col, &c) == 0 && c.reverse;
}

/* Return the N of the view's "of N" position, or -1. */
static long
pager_total(struct term *t)
{
	const char	*s = term_row_text(t, 0), *of;

	if ((of = strstr(s, " of ")) == NULL)
		return -1;
	return strtol(of + 4, NULL, 10);
}

/* Wait for a line equal to text and return its row, failing without. */
static int
pager_line_row(struct term *t, const char *text, int ms)
{
	EXPECT_LINE(t, NULL, text, ms);
	return deck_find_line(t, NULL, text);
}

/*
 * !logs of 3,000,000 lines: the first screen comes without the log read
 * into memory (the deck grows by less than 20 MB; how long it took is
 * printed, a speed for make bench to judge); G shows the last line, a
 * search finds one near the end, n wraps to it (or says it is alone), #
 * numbers the lines, and a long search shows its progress and stops on
 * Esc.
 */
START_TEST(test_pager_large)
{
	const struct term_rect title = { 0, 0, 1, 0 };
	const char	*env[2] = { NULL, NULL }, *asan = getenv("ASAN_OPTIONS");
	struct term	*t;
	long		 before, after, peak;
	int64_t		 start, took;
	int		 row, got;
	char		 asan_env[512];

	/*
	 * Under ASan, freed blocks wait in a quarantine of 256 MB that RSS
	 * counts: keep it small, so RSS is the deck's own.
	 */
	snprintf(asan_env, sizeof asan_env, "ASAN_OPTIONS=%s%squarantine_size_mb=4",
	    asan != NULL ? asan : "", asan != NULL && *asan != '\0' ? ":" : "");
	env[0] = asan_env;
	t = deck_start(env, NULL);
	e2e_run(t, "seq 3000000");
	EXPECT_IN(t, &panel, "✓ Done", 90000);
	term_pump(t, 500);
	before = pager_rss_kib(e2e_deck_pid(t));
	E2E_ASSERT(t, before > 0, "cannot read the deck's VmRSS");

	start = term_now_ms();
	e2e_run(t, "!logs 1");
	EXPECT_IN(t, &title, "of 3000000", 10000);
	took = term_now_ms() - start;
	EXPECT_IN(t, &title, "1-", WAIT_MS);
	EXPECT_LINE(t, NULL, "1", WAIT_MS);
	after = pager_rss_kib(e2e_deck_pid(t));
	fprintf(stderr, "pager_large: first screen of 3000000 lines in "
	    "%lld ms, RSS %ld -> %ld KiB\n", (long long)took, before, after);
	E2E_ASSERT(t, after - before < 20 * 1024, e2e_fmt("the deck grew "
	    "by %ld KiB showing the log", after - before));

	term_type(t, "G");
	EXPECT_LINE(t, NULL, "3000000", WAIT_MS);
	row = deck_find_line(t, NULL, "3000000");
	E2E_ASSERT(t, deck_find_line(t, NULL, "2999999") == row - 1,
	    "after G, 2999999 is not right above 3000000");
	term_type(t, "g");
	EXPECT_LINE(t, NULL, "1", WAIT_MS);

	term_type(t, "/2999999");
	term_key(t, TERM_KEY_ENTER);
	row = pager_line_row(t, "2999999", 60000);
	E2E_ASSERT(t, pager_reversed(t, row, 1) && pager_reversed(t, row, 7),
	    "the match 2999999 is not highlighted");
	got = deck_wait_any(t, &bottom, "search wrapped", "Pattern not found",
	    1);
	term_type(t, "n");
	got = deck_wait_any(t, &bottom, "search wrapped", "Pattern not found",
	    60000);
	E2E_ASSERT(t, got != 0, "n neither wrapped nor said not found");
	EXPECT_LINE(t, NULL, "2999999", WAIT_MS);

	term_type(t, "#");
	EXPECT_LINE(t, NULL, "2999999 2999999", WAIT_MS);
	term_type(t, "#");
	EXPECT_LINE(t, NULL, "2999999", WAIT_MS);

	/* A search of the whole log takes turns and shows how far it is. */
	term_type(t, "g/nowhere");
	term_key(t, TERM_KEY_ENTER);
	got = deck_wait_any(t, &bottom, "searching", "Pattern not found: "
	    "nowhere", 60000);
	E2E_ASSERT(t, got != 0, "a search of 3000000 lines said nothing");
	if (got == 1) {
		term_key(t, TERM_KEY_ESC);
		got = deck_wait_any(t, &bottom, "search stopped",
		    "Pattern not found: nowhere", WAIT_MS);
		E2E_ASSERT(t, got != 0, "Esc did not stop the search");
	}
	EXPECT_IN(t, NULL, "of 3000000", WAIT_MS);
	peak = pager_rss_kib(e2e_deck_pid(t));
	fprintf(stderr, "pager_large: RSS after G, searches: %ld KiB\n", peak);
	E2E_ASSERT(t, peak - before < 20 * 1024, e2e_fmt("the deck grew "
	    "by %ld KiB moving and searching", peak - before));
	term_type(t, "q");
	EXPECT_GONE_IN(t, NULL, "of 3000000", WAIT_MS);
	term_close(t);
}
END_TEST

/*
 * / ? n N: a pattern without capitals ignores case, one with capitals
 * does not; matches are drawn reversed; "Pattern not found" otherwise;
 * # numbers the lines.
 */
START_TEST(test_pager_search)
{
	struct term	*t = deck_start(NULL, NULL);
	int		 apple, tart, row;

	e2e_run(t, "printf 'Apple pie\\napple tart\\n'; seq 1 5000");
	EXPECT_IN(t, &panel, "✓ Done", WAIT_MS);
	e2e_run(t, "!logs 1");
	EXPECT_IN(t, NULL, "of 5002", WAIT_MS);
	apple = pager_line_row(t, "Apple pie", WAIT_MS);
	tart = deck_find_line(t, NULL, "apple tart");
	E2E_ASSERT(t, tart == apple + 1, "the log does not start with the "
	    "two printf lines");

	term_type(t, "/apple");
	EXPECT_IN(t, &bottom, "/apple", WAIT_MS);
	term_key(t, TERM_KEY_ENTER);
	EXPECT_GONE_IN(t, &bottom, "/apple", WAIT_MS);
	E2E_WAIT(t, pager_reversed(t, apple, 1) &&
	    pager_reversed(t, apple, 5) && !pager_reversed(t, apple, 6) &&
	    pager_reversed(t, tart, 1), WAIT_MS, "apple (no capitals) is not "
	    "highlighted in both Apple and apple");
	term_type(t, "n");
	term_pump(t, 300);
	E2E_ASSERT(t, !term_find_in(t, &bottom, "wrapped", NULL, NULL) &&
	    !term_find_in(t, &bottom, "not found", NULL, NULL),
	    "n after the first apple did not find the second");

	term_type(t, "/Apple");
	term_key(t, TERM_KEY_ENTER);
	E2E_WAIT(t, pager_reversed(t, apple, 1) &&
	    !pager_reversed(t, tart, 1), WAIT_MS,
	    "Apple (a capital) matched apple");
	term_type(t, "n");
	EXPECT_IN(t, &bottom, "search wrapped", WAIT_MS);

	term_type(t, "/4321");
	term_key(t, TERM_KEY_ENTER);
	row = pager_line_row(t, "4321", WAIT_MS);
	E2E_ASSERT(t, pager_reversed(t, row, 1), "4321 is not highlighted");
	term_type(t, "?432");
	term_key(t, TERM_KEY_ENTER);
	EXPECT_LINE(t, NULL, "4320", WAIT_MS);
	term_type(t, "N");
	row = pager_line_row(t, "4321", WAIT_MS);
	term_type(t, "#");
	EXPECT_LINE(t, NULL, "4323 4321", WAIT_MS);

	term_type(t, "/zzz");
	term_key(t, TERM_KEY_ENTER);
	EXPECT_IN(t, &bottom, "Pattern not found: zzz", WAIT_MS);
	term_type(t, "/ab");
	term_key(t, TERM_KEY_ESC);
	EXPECT_GONE_IN(t, &bottom, "/ab", WAIT_MS);
	EXPECT_IN(t, NULL, "of 5002", WAIT_MS);
	term_close(t);
}
END_TEST

/*
 * A live job followed (G) shows its new lines without a key and says
 * "following"; scrolling up stops it; t shows the times of the lines.
 */
START_TEST(test_pager_follow)
{
	struct term	*t = deck_start(NULL, NULL);
	const struct term_rect title = { 0, 0, 1, 0 };
	char		 first[1024], again[1024], line[1024], last[1024];
	const char	*s;
	int		 i, row, changed = 0;

	e2e_run(t, "while :; do date +%s%N; sleep 0.1; done");
	EXPECT_IN(t, &panel, "◉ Active", WAIT_MS);
	term_pump(t, 1000);
	e2e_run(t, "!logs 1");
	EXPECT_IN(t, NULL, "Logs [1]", WAIT_MS);
	term_type(t, "G");
	EXPECT_IN(t, &title, "following", WAIT_MS);
	s = term_text_in(t, &title);
	snprintf(first, sizeof first, "%.*s", (int)strcspn(s, "\n"), s);
	/* The position text moves as lines come, with no key pressed. */
	for (i = 0; i < 50 && !changed; i++) {
		term_pump(t, 100);
		s = term_text_in(t, &title);
		snprintf(again, sizeof again, "%.*s", (int)strcspn(s, "\n"), s);
		changed = strcmp(first, again) != 0;
	}
	E2E_ASSERT(t, changed, "a followed live log did not move by itself");

	/* t: "HH:MM:SS.mmm " before every line. */
	term_type(t, "t");
	for (i = 0; i < 50; i++) {
		term_pump(t, 100);
		last[0] = '\0';
		for (row = 1; row < 38; row++) {
			deck_plain(term_row_text(t, row), line, sizeof line);
			if (line[0] != '\0')
				memcpy(last, line, sizeof last);
		}
		if (strlen(last) > 13 && last[2] == ':' && last[5] == ':' &&
		    last[8] == '.' && last[12] == ' ')
			break;
	}
	E2E_ASSERT(t, i < 50, e2e_fmt("no HH:MM:SS.mmm time on the last "
	    "line: \"%s\"", last));

	/* Up stops following once there is more than a screen to go up to. */
	for (i = 0; i < 150 && pager_total(t) < 45; i++)
		term_pump(t, 100);
	E2E_ASSERT(t, pager_total(t) >= 45, "the followed log stopped "
	    "growing");
	term_key(t, TERM_KEY_UP);
	EXPECT_GONE_IN(t, &title, "following", WAIT_MS);
	term_type(t, "F");
	EXPECT_IN(t, &title, "following", WAIT_MS);
	term_type(t, "q");
	EXPECT_GONE_IN(t, NULL, "Logs [1]", WAIT_MS);
	term_close(t);
}
END_TEST

/*
 * !grep lists the matching lines as "[JOB] NAME  TIME  LINE: text" under
 * a header with the count; Enter opens the log at that line and q comes
 * back to the results.
 */
START_TEST(test_pager_grep)
{
	struct term	*t = deck_start(NULL, NULL);
	int		 row;

	e2e_run(t, "printf 'alpha\\nneedle one\\nbeta\\nneedle two\\n'");
	EXPECT_IN(t, &panel, "✓ Done", WAIT_MS);
	e2e_run(t, "!grep needle");
	EXPECT_IN(t, NULL, "2 matches in 1 run", 10000);
	EXPECT_IN(t, NULL, "2: needle one", WAIT_MS);
	EXPECT_IN(t, NULL, "4: needle two", WAIT_MS);
	E2E_ASSERT(t, term_find(t, "[1] printf", &row, NULL),
	    "a result does not name its job");
	term_key(t, TERM_KEY_DOWN);
	term_key(t, TERM_KEY_ENTER);
	EXPECT_IN(t, NULL, "Logs [1]", WAIT_MS);
	row = pager_line_row(t, "needle two", WAIT_MS);
	E2E_ASSERT(t, deck_find_line(t, NULL, "beta") == row - 1,
	    "the log is not opened at the matching line");
	term_type(t, "q");
	EXPECT_IN(t, NULL, "2 matches in 1 run", WAIT_MS);
	term_type(t, "q");
	EXPECT_GONE_IN(t, NULL, "2 matches in 1 run", WAIT_MS);
	term_close(t);
}
END_TEST

/* Add the text view's cases, each its own test case. */
static void
e2e_pager_cases(Suite *s)
{
	static const struct e2e_case	cases[] = {
		{ "pager_large", &test_pager_large, 240 },
		{ "pager_search", &test_pager_search, 30 },
		{ "pager_follow", &test_pager_follow, 45 },
		{ "pager_grep", &test_pager_grep, 30 },
	};

	e2e_add_cases(s, cases, sizeof cases / sizeof cases[0]);
}

/* ---- end of the text view's cases ---- */

/* ---- issue 24 (ui1): messages, leaving, tables ---- */

/* The bottom row of a rows x cols screen. */
static struct term_rect
deck_bottom(int rows, int cols)
{
	return (struct term_rect){ rows - 1, 0, 1, cols };
}

/*
 * exit, quit and logout alone start nothing and say how to leave, as
 * Ctrl+D on an empty prompt does; exit 3 is a job.
 */
START_TEST(test_leave_words)
{
	static const char *const	 words[] = { "exit", "quit", "logout" };
	struct term			*t = deck_start(NULL, NULL);
	size_t				 i;

	for (i = 0; i < sizeof words / sizeof words[0]; i++) {
		e2e_run(t, words[i]);
		EXPECT_IN(t, &bottom, e2e_fmt("%s starts no job here; to "
		    "leave jobdeck, type !quit (it stops every job)", words[i]),
		    WAIT_MS);
	}
	E2E_ASSERT(t, !term_find_in(t, &panel, "[1]", NULL, NULL),
	    "a leave word started a job");
	EXPECT_IN(t, &panel, "No jobs yet", WAIT_MS);

	/* Ctrl+D on an empty line says the same; on text, it deletes. */
	e2e_run(t, "!kill 999");
	EXPECT_IN(t, &bottom, "no such job: 999", WAIT_MS);
	term_type(t, "\x04");
	EXPECT_IN(t, &bottom, "to leave jobdeck, type !quit", WAIT_MS);
	term_type(t, "xy");
	term_key(t, TERM_KEY_LEFT);
	term_type(t, "\x04");
	EXPECT_IN(t, &bottom, "> x ", WAIT_MS);

	/* With an argument, exit is the shell's: a job that fails with 3. */
	term_type(t, "\x15");			/* Ctrl+U: an empty line */
	e2e_run(t, "exit 3");
	EXPECT_IN(t, &panel, "[1] exit 3", WAIT_MS);
	EXPECT_IN(t, &panel, "Exited 3", WAIT_MS);
	term_close(t);
}
END_TEST

/*
 * At 80 columns the message line shows a job's failure whole, and cuts a
 * message longer than the line in its middle so its end shows; the
 * messages key (C-g) and !messages show every one whole, newest first.
 */
START_TEST(test_message_line)
{
	struct term		*t = deck_start(NULL, NULL);
	struct term_rect	 b = deck_bottom(24, 80);
	int			 usage, failed;

	term_resize(t, 24, 80);
	term_pump(t, 300);
	EXPECT_IN(t, &b, "> ", WAIT_MS);
	e2e_run(t, "nosuchprogram --flag");
	EXPECT_IN(t, &b, "[1] nosuchprogram --flag failed (exited 127)",
	    WAIT_MS);

	/* Longer than the line: both ends, an ellipsis between. */
	e2e_run(t, "!spawn");
	EXPECT_IN(t, &b, "usage: !spawn [--name N]", WAIT_MS);
	EXPECT_IN(t, &b, "[--escaped] [--] COMMAND...", WAIT_MS);
	EXPECT_IN(t, &b, "…", WAIT_MS);

	/* The messages key: the view, every message whole, newest first. */
	term_type(t, "\x07");			/* C-g */
	EXPECT_IN(t, NULL, "Messages", WAIT_MS);
	EXPECT_IN(t, NULL, "error  usage: !spawn [--name N]", WAIT_MS);
	EXPECT_IN(t, NULL, "COMMAND...", WAIT_MS);
	EXPECT_IN(t, NULL, "error  [1] nosuchprogram --flag failed "
	    "(exited 127)", WAIT_MS);
	E2E_ASSERT(t, term_find(t, "usage: !spawn", &usage, NULL) &&
	    term_find(t, "nosuchprogram --flag failed", &failed, NULL) &&
	    usage < failed, "the messages are not newest first");
	term_type(t, "q");
	EXPECT_GONE_IN(t, NULL, "Messages", WAIT_MS);

	/* !messages is the same view. */
	e2e_run(t, "!messages");
	EXPECT_IN(t, NULL, "Messages", WAIT_MS);
	EXPECT_IN(t, NULL, "(exited 127)", WAIT_MS);
	term_type(t, "q");
	term_close(t);
}
END_TEST

/* !kill-all says what it did once the jobs have ended, or that none ran. */
START_TEST(test_kill_all_message)
{
	const char *const	 cmds[] = { "sleep 1000", "sleep 1001", NULL };
	struct term		*t = deck_start(NULL, cmds);

	EXPECT_IN(t, &panel, "Processes (2 running)", WAIT_MS);
	e2e_run(t, "!kill-all");
	EXPECT_IN(t, &bottom, "killed 2 jobs", 2 * GRACE_MS);
	EXPECT_IN(t, &panel, "Processes (0 running)", WAIT_MS);
	e2e_run(t, "!kill-all");
	EXPECT_IN(t, &bottom, "no running jobs", WAIT_MS);
	term_close(t);
}
END_TEST

/*
 * !ps at 80 columns gives COMMAND room (it had 13 columns), under its
 * header; a named job is "NAME: COMMAND" as in the panel.
 */
START_TEST(test_ps_narrow)
{
	struct term		*t = deck_start(NULL, NULL);
	struct term_rect	 b = deck_bottom(24, 80);
	int			 hrow, hcol, row, col;

	term_resize(t, 24, 80);
	term_pump(t, 300);
	e2e_run(t, "sleep 1000 # a comment long enough to be cut");
	e2e_run(t, "!rename 1 tests");
	EXPECT_IN(t, &b, "[1] is named tests", WAIT_MS);
	e2e_run(t, "!ps");
	EXPECT_IN(t, NULL, "COMMAND", WAIT_MS);
	EXPECT_IN(t, NULL, "tests: sleep 1000 # a comment", WAIT_MS);
	E2E_ASSERT(t, term_find(t, "COMMAND", &hrow, &hcol) &&
	    term_find(t, "tests: sleep 1000", &row, &col) && col == hcol,
	    "the command is not under COMMAND");
	term_type(t, "q");
	term_close(t);
}
END_TEST

/* Add the cases of issue 24's front end, each its own test case. */
static void
e2e_issue24_cases(Suite *s)
{
	static const struct e2e_case	cases[] = {
		{ "leave_words", &test_leave_words, 20 },
		{ "message_line", &test_message_line, 20 },
		{ "kill_all_message", &test_kill_all_message, 30 },
		{ "ps_narrow", &test_ps_narrow, 20 },
	};

	e2e_add_cases(s, cases, sizeof cases / sizeof cases[0]);
}

/* Build the suite: one test case per test, each with its own timeout. */
static Suite *
e2e_suite(void)
{
	static const struct e2e_case	cases[] = {
		{ "read_prompt", &test_read_prompt, 20 },
		{ "ctrl_c", &test_ctrl_c, 20 },
		{ "focus_toggle", &test_focus_toggle, 20 },
		{ "kill_ignores_term", &test_kill_ignores_term, 30 },
		{ "kill_background_child", &test_kill_background_child, 25 },
		{ "kill_all", &test_kill_all, 30 },
		{ "quit", &test_quit, 30 },
		{ "debug_log", &test_debug_log, 30 },
		{ "setsid_escape", &test_setsid_escape, 30 },
		{ "kill_signal", &test_kill_signal, 20 },
		{ "resize", &test_resize, 20 },
		{ "logs", &test_logs, 30 },
		{ "colors", &test_colors, 20 },
		{ "wide_chars", &test_wide_chars, 20 },
		{ "session_state", &test_session_state, 30 },
		{ "session_shell", &test_session_shell, 40 },
		{ "errors", &test_errors, 20 },
		{ "fd_leak", &test_fd_leak, 20 },
		{ "not_found", &test_not_found, 20 },
		{ "no_pty", &test_no_pty, 20 },
		{ "last_output", &test_last_output, 20 },
		{ "select", &test_select, 20 },
		{ "help", &test_help, 20 },
		{ "ps_count", &test_ps_count, 20 },
		{ "focus_command", &test_focus_command, 20 },
		{ "line_editing", &test_line_editing, 20 },
		{ "scrollback", &test_scrollback, 20 },
		{ "scrollback_store", &test_scrollback_store, 30 },
		{ "scrollback_steady", &test_scrollback_steady, 20 },
		{ "config_autostart", &test_config_autostart, 20 },
		{ "config_timeout", &test_config_timeout, 20 },
		{ "config_restart", &test_config_restart, 20 },
		{ "config_queue", &test_config_queue, 20 },
		{ "config_input", &test_config_input, 20 },
		{ "config_procfile", &test_config_procfile, 20 },
		{ "config_errors", &test_config_errors, 20 },
		{ "config_focus_key", &test_config_focus_key, 20 },
		{ "config_inherit_env", &test_config_inherit_env, 20 },
	};
	Suite	*s = suite_create("e2e");
	TCase	*tc;

	e2e_add_cases(s, cases, sizeof cases / sizeof cases[0]);
	tc = tcase_create("stop_by");
	tcase_set_timeout(tc, 25);
	tcase_add_loop_test(tc, test_stop_by, 0,
	    (int)(sizeof stop_signals / sizeof stop_signals[0]));
	suite_add_tcase(s, tc);
	e2e_pager_cases(s);
	e2e_issue24_cases(s);
	return s;
}
/* Run the suite; the exit status says whether every test passed. */
int
main(void)
{
	return e2e_main(e2e_suite());
}
