/*
 * check_attach_e2e.c: the deck as a server, end to end (issue 26).  The
 * real binary: `jobdeck` starts a deck in the background and attaches
 * its terminal; more terminals (term_start_in(): the first one's
 * directory and XDG_* environment, so the same deck) attach, detach by
 * C-\ and !detach, lose their pty, look read-only, quit the deck for
 * everyone, and stop reading their terminal.  The deck is found through
 * /proc: the process of the jobdeck binary carrying the first term's tag
 * that is no terminal's (a client leads its pty's session) and no child
 * of ours.  Every wait is for a condition, with generous limits.
 *
 * The binary is $JOBDECK_BIN, else ./jobdeck; decks run `-c /dev/null`
 * (or a config of the test) in the first term's temporary directory,
 * which is also the jobs' cwd (pid files).
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "e2e/e2e.h"
#include "testproc.h"

#define WAIT_MS		10000	/* default wait for text or a process */
#define EXIT_MS		15000	/* a client's exit (a leave may take 2 s) */
#define QUIT_MS		20000	/* a deck's end (jobs' grace included) */
#define CYCLES		200	/* attach/detach cycles of the leak test */
#define FD_SLACK	3	/* the deck's fds may vary by this much */
#define PROC_SLACK	1	/* and its processes */
#define RSS_SLACK_KB	(8 * 1024)	/* and its resident memory */
#define ECHO_MS		3000	/* a typed key's echo, under a stalled peer */
#define STALL_MS	90000	/* a stalled client detached: 5 s once the */
				/*   pty's buffer (small frames fill it in */
				/*   20 s) and 256 KiB are full, 2 to give */
				/*   it back, slow under ASan */

static const struct term_rect	pane_title = { 0, 40, 1, 80 };

static const char	*attach_bin(void);
static int		 attach_is_bin(pid_t);
static int		 attach_sleep_arg(char *, size_t, int);
static pid_t		 attach_deck_pid(struct term *);
static pid_t		 attach_deck_wait(struct term *, int);
static int		 attach_fds(pid_t);
static long		 attach_rss_kb(pid_t);
static size_t		 attach_procs(struct term *);
static struct term	*attach_start(struct term *, const char *const *,
			    int, int);
static void		 attach_expect_exit(struct term *, const char *);
static long		 attach_last_tick(struct term *);

/* The real path of the binary under test (for /proc/PID/exe). */
static const char *
attach_bin(void)
{
	static char	path[PATH_MAX];

	if (path[0] == '\0')
		ck_assert_msg(realpath(e2e_bin(), path) != NULL, "%s: %s",
		    e2e_bin(), strerror(errno));
	return path;
}

/* A sleep argument no other test uses (testproc_sleeps() finds it). */
static int
attach_sleep_arg(char *buf, size_t size, int n)
{
	return snprintf(buf, size, "%ld%d", 300000L + (long)getpid(), n);
}

/* Whether pid runs the binary under test. */
static int
attach_is_bin(pid_t pid)
{
	char	path[64], exe[PATH_MAX];
	ssize_t	len;

	snprintf(path, sizeof path, "/proc/%ld/exe", (long)pid);
	if ((len = readlink(path, exe, sizeof exe - 1)) <= 0)
		return 0;
	exe[len] = '\0';
	return strcmp(exe, attach_bin()) == 0;
}

/*
 * The deck of t's tag: the jobdeck process that leads no session (a
 * client leads its pty's), is no child of ours (jobdeck ctl) and no
 * child of a jobdeck of the tag (the deck's fork before an exec); 0 none.
 */
static pid_t
attach_deck_pid(struct term *t)
{
	struct testproc_stat	st, pst;
	pid_t			pids[256], found = 0;
	size_t			n, i, j;

	n = term_procs(t, pids, 256);
	n = n < 256 ? n : 256;
	for (i = 0; i < n; i++) {
		if (!attach_is_bin(pids[i]) ||
		    testproc_stat(pids[i], &st) != 0 || st.state == 'Z')
			continue;
		if (st.sid == pids[i] || st.ppid == getpid())
			continue;
		for (j = 0; j < n; j++)
			if (pids[j] == st.ppid && attach_is_bin(pids[j]) &&
			    testproc_stat(pids[j], &pst) == 0)
				break;
		if (j < n)
			continue;
		ck_assert_msg(found == 0, "two decks: %ld and %ld",
		    (long)found, (long)pids[i]);
		found = pids[i];
	}
	return found;
}

/* Wait up to ms for t's deck, reading t meanwhile; its pid. */
static pid_t
attach_deck_wait(struct term *t, int ms)
{
	pid_t	pid = 0;

	E2E_WAIT(t, (pid = attach_deck_pid(t)) > 0, ms,
	    "no deck process found");
	return pid;
}

/* How many fds pid has open (/proc/PID/fd), or -1. */
static int
attach_fds(pid_t pid)
{
	struct dirent	*de;
	DIR		*d;
	char		 path[64];
	int		 n = 0;

	snprintf(path, sizeof path, "/proc/%ld/fd", (long)pid);
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/*
 * How many of pid's fds are open on the terminal path (a pty's slave,
 * /dev/pts/N), or -1.
 */
static int
attach_fds_on(pid_t pid, const char *path)
{
	struct dirent	*de;
	DIR		*d;
	char		 dir[64], fd[320], link[PATH_MAX];
	ssize_t		 n;
	int		 count = 0;

	snprintf(dir, sizeof dir, "/proc/%ld/fd", (long)pid);
	if ((d = opendir(dir)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(fd, sizeof fd, "%s/%s", dir, de->d_name);
		if ((n = readlink(fd, link, sizeof link - 1)) <= 0)
			continue;
		link[n] = '\0';
		count += strcmp(link, path) == 0;
	}
	closedir(d);
	return count;
}

/* pid's resident memory in KiB (VmRSS of /proc/PID/status), or -1. */
static long
attach_rss_kb(pid_t pid)
{
	FILE	*f;
	char	 path[64], line[256];
	long	 kb = -1;

	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* How many live processes carry t's tag (the deck, jobs, clients). */
static size_t
attach_procs(struct term *t)
{
	pid_t	pids[256];

	return term_procs(t, pids, 256);
}

/*
 * Run the binary with args (NULL-ended) on a rows x cols terminal in
 * like's environment and wait for its panel.
 */
static struct term *
attach_start(struct term *like, const char *const *args, int rows, int cols)
{
	const char	*argv[16];
	struct term	*t;
	size_t		 n = 0;

	argv[n++] = e2e_bin();
	while (*args != NULL && n < 15)
		argv[n++] = *args++;
	argv[n] = NULL;
	t = term_start_in(like, argv, NULL, rows, cols);
	ck_assert_msg(t != NULL, "cannot start %s: %s", argv[0],
	    strerror(errno));
	EXPECT_IN(t, NULL, "Processes (", E2E_START_MS);
	return t;
}

/* Wait for t's client to exit 0 having printed text. */
static void
attach_expect_exit(struct term *t, const char *text)
{
	int	status;

	ck_assert_msg(term_wait_exit(t, EXIT_MS, &status),
	    "the client did not exit within %d ms (waiting for \"%s\")\n%s",
	    EXIT_MS, text, e2e_dump(t));
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the client's wait status is 0x%x, not exit 0\n%s", status,
	    e2e_dump(t));
	EXPECT_IN(t, NULL, text, WAIT_MS);
}

/* The highest "tick N" on t's screen, or -1. */
static long
attach_last_tick(struct term *t)
{
	const char	*s = term_screen_text(t), *p;
	long		 best = -1, n;

	for (p = s; (p = strstr(p, "tick ")) != NULL; p += 5) {
		n = strtol(p + 5, NULL, 10);
		if (n > best && p[5] >= '0' && p[5] <= '9')
			best = n;
	}
	return best;
}

/*
 * 1. Detach by the key C-\ and by !detach: the client exits 0 saying
 * "[detached from default]"; the deck and its job run on.
 */
START_TEST(test_detach_key_and_command)
{
	const char	*args[] = { "-c", "/dev/null", NULL, NULL };
	const char	*attach[] = { "attach", NULL };
	char		 arg[32], sleep[64];
	struct term	*a, *b, *c;
	pid_t		 deck, job = 0;

	attach_sleep_arg(arg, sizeof arg, 1);
	snprintf(sleep, sizeof sleep, "sleep %s", arg);
	args[2] = sleep;
	a = e2e_start(args, NULL);
	deck = attach_deck_wait(a, WAIT_MS);
	E2E_WAIT(a, testproc_sleeps(arg, &job) == 1, WAIT_MS,
	    "the job's sleep is not running");

	term_type(a, "\034");
	attach_expect_exit(a, "[detached from default]");
	ck_assert_msg(term_pid_alive(deck), "the deck %ld ended with a "
	    "detach by C-\\", (long)deck);
	ck_assert_msg(term_pid_alive(job), "the job ended with a detach");

	b = attach_start(a, attach, TERM_ROWS, TERM_COLS);
	EXPECT_IN(b, NULL, "Processes (1 running)", WAIT_MS);
	e2e_run(b, "!detach");
	attach_expect_exit(b, "[detached from default]");
	ck_assert_msg(term_pid_alive(deck), "the deck %ld ended with "
	    "!detach", (long)deck);
	ck_assert_msg(term_pid_alive(job), "the job ended with !detach");
	ck_assert_int_eq(attach_deck_pid(a), deck);

	/* Still there for a third look. */
	c = attach_start(a, attach, TERM_ROWS, TERM_COLS);
	EXPECT_IN(c, NULL, "Processes (1 running)", WAIT_MS);
	EXPECT_IN(c, &pane_title, sleep, WAIT_MS);
	term_close(c);
	term_close(b);
	term_close(a);
}
END_TEST

/*
 * 2. The client's pty closed under it while a job ticks: the deck and
 * the job live on, and a new `jobdeck attach` shows the ticks written
 * while no terminal was attached.
 */
START_TEST(test_pty_closed)
{
	const char	*args[] = { "-c", "/dev/null", "echo $$ > tick.pid; "
	    "i=0; while :; do echo tick $i; echo $i > ticks.tmp; "
	    "mv ticks.tmp ticks; i=$((i+1)); sleep 0.2; done", NULL };
	const char	*attach[] = { "attach", NULL };
	struct term	*a, *b;
	char		 buf[64];
	long		 seen, since = -1;
	pid_t		 deck, job;

	a = e2e_start(args, NULL);
	deck = attach_deck_wait(a, WAIT_MS);
	job = term_wait_pidfile(a, "tick.pid", WAIT_MS);
	E2E_ASSERT(a, job > 0, "the ticking job wrote no tick.pid");
	E2E_WAIT(a, attach_last_tick(a) >= 2, WAIT_MS, "no ticks on screen");
	seen = attach_last_tick(a);

	term_hangup(a);
	ck_assert_msg(term_wait_exit(a, EXIT_MS, NULL), "the client did "
	    "not end when its pty closed");
	/* Ticks written while none is attached (the job's own count). */
	E2E_WAIT(a, e2e_read_file(a, "ticks", buf, sizeof buf) > 0 &&
	    (since = strtol(buf, NULL, 10)) >= seen + 5, WAIT_MS,
	    "the job stopped ticking after its terminal closed");
	ck_assert_msg(term_pid_alive(deck), "the deck ended with its "
	    "terminal");
	ck_assert_msg(term_pid_alive(job), "the job ended with the deck's "
	    "terminal");

	b = attach_start(a, attach, TERM_ROWS, TERM_COLS);
	E2E_WAIT(b, attach_last_tick(b) >= since, WAIT_MS,
	    e2e_fmt("no tick %ld (written while detached; %ld was the last "
	    "seen before) on the new client's screen", since, seen));
	term_close(b);
	term_close(a);
}
END_TEST

/*
 * 3. Two clients of different sizes at once: both draw the panel and
 * the same job's output, and each selects its own job.
 */
START_TEST(test_two_sizes)
{
	const char	*args[] = { "-c", "/dev/null",
	    "echo out-one; sleep 300", "echo out-two; sleep 300",
	    "echo out-three; sleep 300", NULL };
	const char	*attach[] = { "attach", NULL };
	const struct term_rect	title80 = { 0, 0, 1, 80 };
	const struct term_rect	title120 = { 0, 0, 1, 120 };
	struct term	*a, *b;
	int		 rows, cols;

	a = e2e_start(args, NULL);
	EXPECT_IN(a, NULL, "Processes (3 running)", WAIT_MS);
	b = attach_start(a, attach, 24, 80);
	term_size(b, &rows, &cols);
	ck_assert_int_eq(cols, 80);
	EXPECT_IN(b, NULL, "Processes (3 running)", WAIT_MS);
	EXPECT_IN(b, &title80, "[3] echo out-three", WAIT_MS);
	EXPECT_IN(b, NULL, "out-three", WAIT_MS);
	EXPECT_IN(a, &title120, "[3] echo out-three", WAIT_MS);

	/* B moves up to [2]; A, still on [3], moves up to [2] too. */
	term_key(b, TERM_KEY_CTRL_P);
	EXPECT_IN(b, &title80, "[2] echo out-two", WAIT_MS);
	EXPECT_IN(b, NULL, "out-two", WAIT_MS);
	term_pump(a, 50);
	E2E_ASSERT(a, term_find_in(a, &title120, "[3] echo out-three", NULL,
	    NULL), "C-p in one client moved the other's selection");
	term_key(a, TERM_KEY_CTRL_P);
	EXPECT_IN(a, &title120, "[2] echo out-two", WAIT_MS);
	/* Had B's move been A's, A would now be on [1]. */
	term_pump(b, 50);
	EXPECT_IN(b, &title80, "[2] echo out-two", WAIT_MS);
	E2E_ASSERT(a, !term_find_in(a, &title120, "[1]", NULL, NULL),
	    "the clients share one selection");
	term_close(b);
	term_close(a);
}
END_TEST

/*
 * 3b. One client leaves (the detach key) while another is focused on a
 * job: the other goes on drawing (its keys echoed), and so after the
 * other resizes.  A client leaving took every curses screen's windows
 * with its own (Debian's ncurses keeps one window list), and the clients
 * left drew nothing.
 */
START_TEST(test_leave_keeps_others)
{
	const char	*args[] = { "-c", "/dev/null", "cat", NULL };
	const char	*attach[] = { "attach", NULL };
	const struct term_rect	top = { 0, 0, 2, 80 };
	struct term	*a, *b;

	a = e2e_start(args, NULL);
	b = attach_start(a, attach, 24, 80);
	EXPECT_IN(b, NULL, "Processes (1 running)", WAIT_MS);
	term_key(b, TERM_KEY_CTRL_T);
	EXPECT_IN(b, NULL, "[Focused]", WAIT_MS);
	term_type(b, "before-leave");
	EXPECT_IN(b, &top, "before-leave", WAIT_MS);
	term_type(a, "\x1c");
	attach_expect_exit(a, "[detached from default]");
	term_type(b, "-after-leave");
	EXPECT_IN(b, &top, "before-leave-after-leave", WAIT_MS);
	term_close(b);
	term_close(a);
}
END_TEST

/*
 * 3c. A client that attaches after none was hears what ended meanwhile:
 * a job that exits 3 while the deck has no client is named on the
 * message line ("1 job ended while detached: [2] exited 3").
 */
START_TEST(test_away_message)
{
	const char	*args[] = { "-c", "/dev/null", "sleep 300",
	    "while [ ! -e go ]; do sleep 0.05; done; exit 3", NULL };
	const char	*attach[] = { "attach", NULL };
	const char	*status2[] = { "--json", "status", "2", NULL };
	char		 run[PATH_MAX], path[PATH_MAX], *out;
	struct term	*a, *b;
	int64_t		 end;
	int		 st, fd;

	a = e2e_start(args, NULL);
	EXPECT_IN(a, NULL, "Processes (2 running)", WAIT_MS);
	term_type(a, "\x1c");
	attach_expect_exit(a, "[detached from default]");
	snprintf(path, sizeof path, "%s/go", term_tmpdir(a));
	ck_assert_int_ne(fd = open(path, O_WRONLY | O_CREAT, 0600), -1);
	close(fd);
	/* Job 2 has ended, with nobody attached. */
	snprintf(run, sizeof run, "%s/run", term_tmpdir(a));
	end = term_now_ms() + WAIT_MS;
	for (;;) {
		out = e2e_ctl(NULL, "default", run, status2, 0, WAIT_MS, &st);
		if (strstr(out, "\"exit_code\":3") != NULL)
			break;
		ck_assert_msg(term_now_ms() < end, "job 2 did not end: %s",
		    out);
		free(out);
		term_pump(a, 50);
	}
	free(out);
	b = attach_start(a, attach, TERM_ROWS, TERM_COLS);
	EXPECT_IN(b, NULL, "1 job ended while detached: [2] exited 3",
	    WAIT_MS);
	term_close(b);
	term_close(a);
}
END_TEST

/*
 * 4. A read-only client (-r): !kill is refused (it may only look), so is
 * focusing a job, and the job keeps running.
 */
START_TEST(test_read_only)
{
	const char	*args[] = { "-c", "/dev/null", NULL, NULL };
	const char	*attach[] = { "attach", "-r", NULL };
	char		 arg[32], sleep[64];
	struct term	*a, *b;
	pid_t		 job = 0;

	attach_sleep_arg(arg, sizeof arg, 4);
	snprintf(sleep, sizeof sleep, "sleep %s", arg);
	args[2] = sleep;
	a = e2e_start(args, NULL);
	E2E_WAIT(a, testproc_sleeps(arg, &job) == 1, WAIT_MS,
	    "the job's sleep is not running");
	b = attach_start(a, attach, TERM_ROWS, TERM_COLS);
	EXPECT_IN(b, NULL, "Processes (1 running)", WAIT_MS);

	e2e_run(b, "!kill 1");
	EXPECT_IN(b, NULL, "not allowed", WAIT_MS);
	EXPECT_IN(b, NULL, "may only look", WAIT_MS);
	term_key(b, TERM_KEY_CTRL_T);
	EXPECT_IN(b, NULL, "focus: not allowed", WAIT_MS);
	E2E_ASSERT(b, !term_find_in(b, &pane_title, "[Focused]", NULL, NULL),
	    "a read-only client focused a job");

	/* Checked from the writable client: the job was never touched. */
	EXPECT_IN(a, NULL, "Processes (1 running)", WAIT_MS);
	ck_assert_msg(term_pid_alive(job), "the read-only !kill ended the "
	    "job");
	ck_assert_int_eq(testproc_sleeps(arg, NULL), 1);
	term_close(b);
	term_close(a);
}
END_TEST

/*
 * 5. !quit from one client ends the other: both exit 0 saying
 * "[deck default quit]", the deck and its job are gone.
 */
START_TEST(test_quit_ends_all)
{
	const char	*args[] = { "-c", "/dev/null", "echo $$ > job.pid; "
	    "sleep 300", NULL };
	const char	*attach[] = { "attach", NULL };
	struct term	*a, *b;
	pid_t		 deck, job;

	a = e2e_start(args, NULL);
	deck = attach_deck_wait(a, WAIT_MS);
	job = term_wait_pidfile(a, "job.pid", WAIT_MS);
	E2E_ASSERT(a, job > 0, "the job wrote no job.pid");
	b = attach_start(a, attach, 24, 80);

	e2e_run(a, "!quit");
	attach_expect_exit(a, "[deck default quit]");
	attach_expect_exit(b, "[deck default quit]");
	ck_assert_msg(term_wait_pid_dead(NULL, deck, QUIT_MS),
	    "the deck %ld lives on after !quit", (long)deck);
	ck_assert_msg(term_wait_pid_dead(NULL, job, QUIT_MS),
	    "the job %ld lives on after !quit", (long)job);
	term_close(b);
	term_close(a);
}
END_TEST

/*
 * 6. on_last_detach = "quit": the only client's pty closing ends the
 * deck and its jobs.
 */
START_TEST(test_last_detach_quit)
{
	const char	*cfg;
	const char	*args[] = { "-c", NULL, "echo $$ > job.pid; sleep 300",
	    NULL };
	struct term	*a;
	pid_t		 deck, job;

	cfg = e2e_cfg_write("quit.toml",
	    "[settings]\non_last_detach = \"quit\"\n");
	args[1] = cfg;
	a = e2e_start(args, NULL);
	deck = attach_deck_wait(a, WAIT_MS);
	job = term_wait_pidfile(a, "job.pid", WAIT_MS);
	E2E_ASSERT(a, job > 0, "the job wrote no job.pid");

	term_hangup(a);
	ck_assert_msg(term_wait_exit(a, EXIT_MS, NULL), "the client did "
	    "not end when its pty closed");
	ck_assert_msg(term_wait_pid_dead(NULL, deck, QUIT_MS),
	    "on_last_detach = \"quit\": the deck %ld lives on", (long)deck);
	ck_assert_msg(term_wait_pid_dead(NULL, job, QUIT_MS),
	    "on_last_detach = \"quit\": the job %ld lives on", (long)job);
	term_close(a);
	e2e_cfg_remove();
}
END_TEST

/*
 * 7. `jobdeck -d` starts a deck and returns printing its name; attach
 * shows its job; `jobdeck` alone attaches to the running deck; another
 * -c is refused naming `jobdeck attach` and -S, exit 2.
 */
START_TEST(test_detached_start)
{
	const char	*dargv[] = { NULL, "-c", "/dev/null", "-d", NULL,
	    NULL };
	const char	*attach[] = { "attach", NULL };
	const char	*plain[] = { NULL };
	const char	*cfg;
	char		 arg[32], sleep[64];
	struct term	*d, *a, *b, *c;
	pid_t		 deck;
	int		 status;

	attach_sleep_arg(arg, sizeof arg, 7);
	snprintf(sleep, sizeof sleep, "sleep %s", arg);
	dargv[0] = e2e_bin();
	dargv[4] = sleep;
	d = term_start(dargv, NULL);
	ck_assert_ptr_nonnull(d);
	ck_assert_msg(term_wait_exit(d, E2E_START_MS, &status),
	    "jobdeck -d did not return\n%s", e2e_dump(d));
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "jobdeck -d: wait status 0x%x\n%s", status, e2e_dump(d));
	EXPECT_IN(d, NULL, "default", WAIT_MS);
	deck = attach_deck_wait(d, WAIT_MS);
	E2E_WAIT(d, testproc_sleeps(arg, NULL) == 1, WAIT_MS,
	    "the -d deck's job is not running");

	a = attach_start(d, attach, TERM_ROWS, TERM_COLS);
	EXPECT_IN(a, NULL, "Processes (1 running)", WAIT_MS);
	EXPECT_IN(a, &pane_title, sleep, WAIT_MS);

	/* `jobdeck` alone, the deck running: a second client. */
	b = attach_start(d, plain, 24, 80);
	EXPECT_IN(b, NULL, "Processes (1 running)", WAIT_MS);
	ck_assert_int_eq(attach_deck_pid(d), deck);

	/* Another config: refused, naming the ways that work. */
	cfg = e2e_cfg_write("other.toml", "[settings]\n");
	dargv[1] = "-c";
	dargv[2] = cfg;
	dargv[3] = NULL;
	c = term_start_in(d, dargv, NULL, TERM_ROWS, 250);
	ck_assert_ptr_nonnull(c);
	ck_assert_msg(term_wait_exit(c, EXIT_MS, &status),
	    "jobdeck -c OTHER on a running deck did not return\n%s",
	    e2e_dump(c));
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 2,
	    "jobdeck -c OTHER: wait status 0x%x, not exit 2\n%s", status,
	    e2e_dump(c));
	EXPECT_IN(c, NULL, "`jobdeck attach -S default`", WAIT_MS);
	EXPECT_IN(c, NULL, "with -S NAME", WAIT_MS);
	ck_assert_int_eq(attach_deck_pid(d), deck);
	ck_assert_int_eq(testproc_sleeps(arg, NULL), 1);
	term_close(c);
	term_close(b);
	term_close(a);
	term_close(d);
	e2e_cfg_remove();
}
END_TEST

/* 8. A stale socket after SIGKILL of the deck: `jobdeck` starts anew. */
START_TEST(test_stale_socket)
{
	const char	*args[] = { "-c", "/dev/null", "echo first; sleep 300",
	    NULL };
	const char	*again[] = { "-c", "/dev/null", "echo second-deck; "
	    "sleep 300", NULL };
	char		 sock[PATH_MAX];
	struct stat	 sb;
	struct term	*a, *b;
	pid_t		 deck, deck2;

	a = e2e_start(args, NULL);
	deck = attach_deck_wait(a, WAIT_MS);
	snprintf(sock, sizeof sock, "%s/run/jobdeck/default.sock",
	    term_tmpdir(a));
	ck_assert_msg(stat(sock, &sb) == 0, "no socket at %s", sock);
	ck_assert_int_eq(kill(deck, SIGKILL), 0);
	ck_assert_msg(term_wait_pid_dead(a, deck, WAIT_MS), "the deck did "
	    "not die of SIGKILL");
	ck_assert_msg(term_wait_exit(a, EXIT_MS, NULL), "the client lives "
	    "on without its deck\n%s", e2e_dump(a));
	ck_assert_msg(stat(sock, &sb) == 0, "the stale socket is gone "
	    "already: the test proves nothing");

	b = attach_start(a, again, TERM_ROWS, TERM_COLS);
	EXPECT_IN(b, NULL, "second-deck", WAIT_MS);
	deck2 = attach_deck_wait(b, WAIT_MS);
	ck_assert_int_ne(deck2, deck);
	e2e_run(b, "!detach");
	attach_expect_exit(b, "[detached from default]");
	ck_assert_msg(term_pid_alive(deck2), "the new deck ended");
	term_close(b);
	term_close(a);
}
END_TEST

/*
 * 9. 200 attach/detach cycles: the deck's fds, processes and resident
 * memory do not grow (beyond a little slack).
 */
START_TEST(test_cycles)
{
	const char	*args[] = { "-c", "/dev/null", "sleep 300", NULL };
	const char	*attach[] = { "attach", NULL };
	struct term	*a, *b;
	pid_t		 deck;
	size_t		 procs0, procs;
	long		 rss0, rss;
	int		 fds0, fds, i;

	a = e2e_start(args, NULL);
	deck = attach_deck_wait(a, WAIT_MS);
	e2e_run(a, "!detach");
	attach_expect_exit(a, "[detached from default]");

	/* A first cycle settles what a client's first visit allocates. */
	b = attach_start(a, attach, TERM_ROWS, TERM_COLS);
	e2e_run(b, "!detach");
	attach_expect_exit(b, "[detached from default]");
	term_close(b);
	fds0 = attach_fds(deck);
	procs0 = attach_procs(a);
	rss0 = attach_rss_kb(deck);
	ck_assert_int_gt(fds0, 0);
	ck_assert_int_gt(rss0, 0);

	for (i = 0; i < CYCLES; i++) {
		b = attach_start(a, attach, TERM_ROWS, TERM_COLS);
		e2e_run(b, "!detach");
		attach_expect_exit(b, "[detached from default]");
		term_close(b);
	}
	/* The last client's fds are closed once its leave is done. */
	E2E_WAIT(a, (fds = attach_fds(deck)) <= fds0 + FD_SLACK, WAIT_MS,
	    e2e_fmt("the deck's fds grew from %d to %d over %d cycles",
	    fds0, attach_fds(deck), CYCLES));
	procs = attach_procs(a);
	ck_assert_msg(procs <= procs0 + PROC_SLACK, "the processes under "
	    "the deck grew from %zu to %zu over %d cycles", procs0, procs,
	    CYCLES);
	rss = attach_rss_kb(deck);
#ifdef __SANITIZE_ADDRESS__
	/* ASan's quarantine keeps freed memory resident: LSan judges. */
	rss = rss0;
#endif
	ck_assert_msg(rss <= rss0 + RSS_SLACK_KB, "the deck's RSS grew from "
	    "%ld KiB to %ld KiB over %d cycles", rss0, rss, CYCLES);
	ck_assert_msg(term_pid_alive(deck), "the deck ended");
	(void)fds;
	term_close(a);
}
END_TEST

/*
 * 10. A client that never reads its terminal (its master not pumped, a
 * job flooding) does not hold up another's echo of typed keys, and is
 * detached once it has taken nothing for a while; the deck goes on.
 */
START_TEST(test_stalled_client)
{
	const char	*args[] = { "-c", "/dev/null", "cat",
	    "yes flood-flood-flood-flood-flood-flood-flood-flood", NULL };
	const char	*attach[] = { "attach", NULL };
	const struct term_rect	pane = { 1, 40, 37, 80 };
	struct term	*a, *b;
	pid_t		 deck;
	int		 i;
	char		 key[2], want[32], fd0[64], tty[PATH_MAX];
	ssize_t		 n;
	int		 status;

	a = e2e_start(args, NULL);
	deck = attach_deck_wait(a, WAIT_MS);
	EXPECT_IN(a, &pane_title, "[2] yes", WAIT_MS);
	/* a's terminal, as the deck holds it (the client's stdin). */
	snprintf(fd0, sizeof fd0, "/proc/%ld/fd/0", (long)term_pid(a));
	ck_assert_int_gt(n = readlink(fd0, tty, sizeof tty - 1), 0);
	tty[n] = '\0';
	ck_assert_int_gt(attach_fds_on(deck, tty), 0);
	/* From here on nothing of a's terminal is read. */
	b = attach_start(a, attach, TERM_ROWS, TERM_COLS);
	term_key(b, TERM_KEY_CTRL_P);
	EXPECT_IN(b, &pane_title, "[1] cat", WAIT_MS);
	term_key(b, TERM_KEY_CTRL_T);
	EXPECT_IN(b, &pane_title, "[Focused]", WAIT_MS);

	for (i = 0; i < 10; i++) {
		key[0] = (char)('a' + i);
		key[1] = '\0';
		term_type(b, key);
		snprintf(want, sizeof want, "abcdefghij");
		want[i + 1] = '\0';
		ck_assert_msg(term_wait_text_in(b, &pane, want, ECHO_MS),
		    "key %d ('%s') not echoed within %d ms while another "
		    "client stalls\n%s", i, key, ECHO_MS, e2e_dump(b));
	}

	/*
	 * The stalled client is let go: the deck holds its terminal no more
	 * (once the pty's buffer is full, which takes a while of small
	 * frames, and 5 s more).  Not a's fd count: other fds come and go.
	 */
	E2E_WAIT(b, attach_fds_on(deck, tty) == 0, STALL_MS,
	    "the stalled client was not detached");
	ck_assert_msg(term_wait_exit(a, EXIT_MS, &status), "the stalled "
	    "client did not exit once read again");
	EXPECT_IN(a, NULL, "[detached from default", WAIT_MS);

	/* The deck and the other client go on. */
	term_type(b, "\r");
	term_type(b, "after");
	EXPECT_IN(b, &pane, "after", WAIT_MS);
	ck_assert_msg(term_pid_alive(deck), "the deck ended");
	term_close(b);
	term_close(a);
}
END_TEST

/* Build the suite: one test case per test, each with its own timeout. */
static Suite *
attach_suite(void)
{
	static const struct e2e_case	cases[] = {
		{ "detach_key_and_command", &test_detach_key_and_command,
		  60 },
		{ "pty_closed", &test_pty_closed, 60 },
		{ "two_sizes", &test_two_sizes, 60 },
		{ "leave_keeps_others", &test_leave_keeps_others, 60 },
		{ "away_message", &test_away_message, 60 },
		{ "read_only", &test_read_only, 60 },
		{ "quit_ends_all", &test_quit_ends_all, 90 },
		{ "last_detach_quit", &test_last_detach_quit, 90 },
		{ "detached_start", &test_detached_start, 60 },
		{ "stale_socket", &test_stale_socket, 60 },
		{ "cycles", &test_cycles, 600 },
		{ "stalled_client", &test_stalled_client, 180 },
	};
	Suite				*s = suite_create("attach_e2e");

	e2e_add_cases(s, cases, sizeof cases / sizeof cases[0]);
	return s;
}

/* Run the suite; the exit status says whether every test passed. */
int
main(void)
{
	return e2e_main(attach_suite());
}
