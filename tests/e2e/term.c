/*
 * term.c: the end-to-end harness.  A program runs on a forkpty'd
 * pseudo-terminal; everything it writes to the master is fed to a
 * VTermScreen of the same size, whose cells are what the tests read.
 *
 * The master is non-blocking.  Bytes for the program (typed text, named
 * keys encoded by libvterm, and libvterm's replies to DA/DSR queries) go
 * to an output queue that is flushed outside libvterm's callbacks; while a
 * write would block, output is still read so neither side can deadlock.
 *
 * Clean-up does not depend on the test ending well: before the program is
 * started, a guard process is forked into a session of its own.  It holds
 * the read end of a pipe whose write end only the test process has; when
 * that end closes (term_close, or the test process exiting or being
 * killed by check's timeout), the guard SIGKILLs every process whose
 * environment carries this term's tag, removes the temporary directory
 * (unless JOBDECK_E2E_KEEP is set) and exits.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <vterm.h>

#include "e2e/term.h"

/*
 * The system's <pty.h> is shadowed by the project's include/pty.h under
 * -Iinclude, so declare forkpty() (glibc libutil) here.
 */
int	forkpty(int *, char *, const struct termios *, const struct winsize *);

#define TERM_TAG_NAME	"JOBDECK_E2E_TAG"
#define TERM_READ_SIZE	65536		/* libvterm wants <= 64 KiB a call */
#define TERM_DRAIN_MAX	(1024 * 1024)	/* bytes read per pump turn */
#define TERM_FLUSH_MS	2000		/* give up writing after this */
#define TERM_CLOSE_MS	2000		/* wait for an exit after hangup */
#define TERM_HOLD_MAX	256		/* a CSI cut by a read, kept back */

/* A growable byte buffer, kept NUL-terminated. */
struct term_buf {
	char	*s;
	size_t	 len;
	size_t	 size;
};

struct term {
	pid_t		 pid;
	int		 fd;		/* the master, or -1 after hangup */
	int		 eof;		/* the master reported EIO */
	int		 reaped;
	int		 status;	/* wait status once reaped */
	int		 rows;
	int		 cols;

	char		*dir;		/* temporary directory */
	char		*tag;		/* TERM_TAG_NAME=dir */
	pid_t		 guard;
	int		 guard_fd;	/* write end of the guard's pipe */
	int		 borrowed;	/* dir and tag are another term's */

	VTerm		*vt;
	VTermScreen	*vs;

	struct term_buf	 outq;		/* bytes waiting for the master */
	struct term_buf	 line;		/* one row, for searching */
	int		*linecol;	/* screen column of each byte of line */
	size_t		 linecol_size;
	struct term_buf	 text;		/* term_screen_text, term_row_text */
	struct term_buf	 dump;		/* term_dump */
	int		 dump_kept;	/* dump is a failed wait's screen */
	struct term_buf	 raw;		/* bytes read since term_raw_start */
	int		 raw_on;	/* raw is recording */
	struct term_buf	 held;		/* a cut CSI, for term_feed */
	struct term_buf	 fed;		/* term_feed's rewritten bytes */
};

static void	term_buf_add(struct term_buf *, const char *, size_t);
static void	term_buf_fmt(struct term_buf *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
static size_t	term_utf8(char *, uint32_t);
static void	term_output_cb(const char *, size_t, void *);
static void	term_sleep_ms(int);
static size_t	term_scan_tag(const char *, pid_t *, size_t);
static int	term_rm_cb(const char *, const struct stat *, int,
		    struct FTW *);
static void	term_guard_main(int, const char *, const char *);
static pid_t	term_guard_start(const char *, const char *, int *);
static void	term_child_exec(const struct term *, const char *,
		    const char *const *, const char *const *);
static struct term *term_start_at(const struct term *,
		    const char *const *, const char *const *, int, int);
static int	term_read_some(struct term *);
static void	term_flush(struct term *);
static int	term_pump_once(struct term *, int);
static void	term_reap(struct term *);
static void	term_clip(const struct term *, const struct term_rect *,
		    int *, int *, int *, int *);
static void	term_line_build(struct term *, int, int, int, int);
static void	term_keep_dump(struct term *);
static int	term_wait(struct term *, const struct term_rect *,
		    const char *, int, int);

/* Append n bytes to a buffer, keeping it NUL-terminated. */
static void
term_buf_add(struct term_buf *b, const char *s, size_t n)
{
	char	*p;
	size_t	 size;

	if (b->len + n + 1 > b->size) {
		size = b->size * 2 + n + 64;
		if ((p = realloc(b->s, size)) == NULL)
			abort();
		b->s = p;
		b->size = size;
	}
	if (n > 0)
		memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

/* Append printf-formatted text to a buffer. */
static void
term_buf_fmt(struct term_buf *b, const char *fmt, ...)
{
	char	 small[512];
	char	*big;
	va_list	 ap;
	int	 n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof small) {
		term_buf_add(b, small, (size_t)n);
		return;
	}
	if ((big = malloc((size_t)n + 1)) == NULL)
		abort();
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	term_buf_add(b, big, (size_t)n);
	free(big);
}

/* Encode one code point as UTF-8 into out (4 bytes room); return length. */
static size_t
term_utf8(char *out, uint32_t cp)
{
	if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		cp = 0xfffd;
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Queue the bytes libvterm produces (replies, keys) for the master. */
static void
term_output_cb(const char *s, size_t len, void *arg)
{
	struct term	*t = arg;

	term_buf_add(&t->outq, s, len);
}

/* Return the monotonic clock in milliseconds. */
int64_t
term_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sleep for ms milliseconds, resuming after signals. */
static void
term_sleep_ms(int ms)
{
	struct timespec	ts;

	if (ms <= 0)
		return;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		continue;
}

/* Tell whether pid is a live process; zombies and missing ones are dead. */
int
term_pid_alive(pid_t pid)
{
	char	 path[64], buf[512], *p;
	ssize_t	 n;
	int	 fd;

	if (pid <= 0)
		return 0;
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return 1;
	return p[2] != 'Z' && p[2] != 'X' && p[2] != 'x';
}

/*
 * Find the live processes whose environment holds the entry tag; store up
 * to max of their pids and return how many there are.
 */
static size_t
term_scan_tag(const char *tag, pid_t *pids, size_t max)
{
	static char	 env[256 * 1024];
	char		 path[64], *p, *end;
	struct dirent	*de;
	DIR		*d;
	size_t		 found = 0, taglen = strlen(tag), got;
	ssize_t		 n;
	pid_t		 pid;
	int		 fd;

	if ((d = opendir("/proc")) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		pid = (pid_t)strtol(de->d_name, &end, 10);
		if (pid <= 0 || *end != '\0' || pid == getpid())
			continue;
		snprintf(path, sizeof path, "/proc/%ld/environ", (long)pid);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		got = 0;
		while (got < sizeof env - 1 &&
		    (n = read(fd, env + got, sizeof env - 1 - got)) > 0)
			got += (size_t)n;
		close(fd);
		env[got] = '\0';
		for (p = env; p < env + got; p += strlen(p) + 1) {
			if (strlen(p) == taglen && memcmp(p, tag, taglen) == 0)
				break;
		}
		if (p >= env + got || !term_pid_alive(pid))
			continue;
		if (found < max)
			pids[found] = pid;
		found++;
	}
	closedir(d);
	return found;
}

/* Find every live process started under t (by its tag). */
size_t
term_procs(struct term *t, pid_t *pids, size_t max)
{
	return term_scan_tag(t->tag, pids, max);
}

/* Remove one entry of a directory tree (nftw callback). */
static int
term_rm_cb(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)type;
	(void)f;
	remove(path);
	return 0;
}

/*
 * The guard: wait for EOF on fd, then kill every tagged process until none
 * is left (or five seconds pass) and remove dir.
 */
static void
term_guard_main(int fd, const char *tag, const char *dir)
{
	pid_t	pids[256];
	size_t	n, i;
	ssize_t	got;
	char	c;
	int	round;

	for (;;) {
		got = read(fd, &c, 1);
		if (got == 0 || (got == -1 && errno != EINTR))
			break;
	}
	for (round = 0; round < 250; round++) {
		n = term_scan_tag(tag, pids, 256);
		if (n == 0)
			break;
		for (i = 0; i < n && i < 256; i++)
			kill(pids[i], SIGKILL);
		term_sleep_ms(20);
	}
	if (getenv("JOBDECK_E2E_KEEP") == NULL)
		nftw(dir, term_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	_exit(0);
}

/* Fork the guard into its own session; return its pid and the pipe's end. */
static pid_t
term_guard_start(const char *tag, const char *dir, int *wfd)
{
	int	p[2], null;
	pid_t	pid;

	if (pipe2(p, O_CLOEXEC) == -1)
		return -1;
	switch (pid = fork()) {
	case -1:
		close(p[0]);
		close(p[1]);
		return -1;
	case 0:
		setsid();
		signal(SIGHUP, SIG_IGN);
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		if ((null = open("/dev/null", O_RDWR)) != -1) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		dup2(p[0], 3);
		close_range(4, ~0U, 0);
		term_guard_main(3, tag, dir);
		_exit(0);
	}
	close(p[0]);
	*wfd = p[1];
	return pid;
}

/* In the forked child: set up the environment and exec the program. */
static void
term_child_exec(const struct term *t, const char *path,
    const char *const *argv, const char *const *env)
{
	static const char *const drop[] = {
		"LINES", "COLUMNS", "TMUX", "TMUX_PANE", "STY", "NO_COLOR",
		"JOBDECK_NO_PTY", "LC_CTYPE", "LC_MESSAGES", "LANGUAGE", NULL
	};
	char		 buf[PATH_MAX + 64], *name, *eq;
	const char	*sub[][2] = {
		{ "HOME", "home" },
		{ "XDG_CONFIG_HOME", "config" },
		{ "XDG_STATE_HOME", "state" },
		{ "XDG_RUNTIME_DIR", "run" },
	};
	sigset_t	 set;
	size_t		 i;
	int		 sig;

	for (sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
	close_range(3, ~0U, 0);

	for (i = 0; drop[i] != NULL; i++)
		unsetenv(drop[i]);
	for (i = 0; i < sizeof sub / sizeof sub[0]; i++) {
		snprintf(buf, sizeof buf, "%s/%s", t->dir, sub[i][1]);
		setenv(sub[i][0], buf, 1);
	}
	setenv("TERM", "xterm-256color", 1);
	setenv("LANG", "C.UTF-8", 1);
	setenv("LC_ALL", "C.UTF-8", 1);
	setenv("SHELL", "/bin/sh", 1);
	setenv(TERM_TAG_NAME, t->dir, 1);
	for (i = 0; env != NULL && env[i] != NULL; i++) {
		if ((name = strdup(env[i])) == NULL)
			_exit(127);
		if ((eq = strchr(name, '=')) == NULL)
			unsetenv(name);
		else {
			*eq = '\0';
			setenv(name, eq + 1, 1);
		}
		free(name);
	}
	if (chdir(t->dir) == -1)
		_exit(127);
	execv(path, (char *const *)argv);
	snprintf(buf, sizeof buf, "term: exec %s: %s\r\n", path,
	    strerror(errno));
	(void)write(2, buf, strlen(buf));
	_exit(127);
}

/* Start argv on a new pty in a fresh temporary directory. */
struct term *
term_start(const char *const *argv, const char *const *env)
{
	return term_start_at(NULL, argv, env, TERM_ROWS, TERM_COLS);
}

/*
 * Start argv on a new rows x cols pty in like's temporary directory, with
 * its HOME, XDG_* directories and tag (so both programs see one deck, and
 * like's guard cleans up after both); like must be closed last.
 */
struct term *
term_start_in(const struct term *like, const char *const *argv,
    const char *const *env, int rows, int cols)
{
	if (like == NULL || rows < 2 || cols < 2) {
		errno = EINVAL;
		return NULL;
	}
	return term_start_at(like, argv, env, rows, cols);
}

/*
 * Start argv on a new rows x cols pty: in like's directory (not NULL), or
 * in a fresh one watched by a guard of its own.
 */
static struct term *
term_start_at(const struct term *like, const char *const *argv,
    const char *const *env, int rows, int cols)
{
	struct winsize	 ws = { .ws_row = rows, .ws_col = cols };
	struct term	*t;
	char		 path[PATH_MAX], tmpl[PATH_MAX], sub[PATH_MAX + 16];
	const char	*tmp, *subs[] = { "home", "config", "state", "run" };
	size_t		 i;
	int		 fd, saved;

	if (argv == NULL || argv[0] == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (strchr(argv[0], '/') != NULL) {
		if (realpath(argv[0], path) == NULL)
			return NULL;
	} else if (snprintf(path, sizeof path, "%s", argv[0]) >=
	    (int)sizeof path) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	if (access(path, X_OK) == -1)
		return NULL;

	if ((t = calloc(1, sizeof *t)) == NULL)
		return NULL;
	t->fd = -1;
	t->guard = -1;
	t->guard_fd = -1;
	t->rows = rows;
	t->cols = cols;

	if (like != NULL) {
		t->borrowed = 1;
		if ((t->dir = strdup(like->dir)) == NULL ||
		    (t->tag = strdup(like->tag)) == NULL)
			goto fail;
	} else {
		if ((tmp = getenv("TMPDIR")) == NULL || *tmp == '\0')
			tmp = "/tmp";
		snprintf(tmpl, sizeof tmpl, "%s/jobdeck-e2e.XXXXXX", tmp);
		if (mkdtemp(tmpl) == NULL ||
		    (t->dir = realpath(tmpl, NULL)) == NULL)
			goto fail;
		for (i = 0; i < sizeof subs / sizeof subs[0]; i++) {
			snprintf(sub, sizeof sub, "%s/%s", t->dir, subs[i]);
			if (mkdir(sub, 0700) == -1)
				goto fail;
		}
		if (asprintf(&t->tag, "%s=%s", TERM_TAG_NAME, t->dir) == -1) {
			t->tag = NULL;
			goto fail;
		}
		t->guard = term_guard_start(t->tag, t->dir, &t->guard_fd);
		if (t->guard == -1)
			goto fail;
	}

	t->vt = vterm_new(t->rows, t->cols);
	vterm_set_utf8(t->vt, 1);
	t->vs = vterm_obtain_screen(t->vt);
	vterm_screen_enable_altscreen(t->vs, 1);
	vterm_screen_reset(t->vs, 1);
	vterm_output_set_callback(t->vt, term_output_cb, t);

	switch (t->pid = forkpty(&fd, NULL, NULL, &ws)) {
	case -1:
		goto fail;
	case 0:
		term_child_exec(t, path, argv, env);
		_exit(127);
	}
	t->fd = fd;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	return t;

fail:
	saved = errno;
	term_close(t);
	errno = saved;
	return NULL;
}

/* Stop the program and everything it started, and free t. */
void
term_close(struct term *t)
{
	int64_t	deadline;
	int	status;

	if (t == NULL)
		return;
	if (t->fd != -1) {
		close(t->fd);
		t->fd = -1;
	}
	if (t->pid > 0) {
		deadline = term_now_ms() + TERM_CLOSE_MS;
		for (term_reap(t); !t->reaped && term_now_ms() < deadline;
		    term_reap(t))
			term_sleep_ms(10);
		if (!t->reaped) {
			kill(t->pid, SIGKILL);
			if (waitpid(t->pid, &status, 0) == t->pid) {
				t->reaped = 1;
				t->status = status;
			}
		}
	}
	if (t->guard > 0) {
		close(t->guard_fd);
		while (waitpid(t->guard, &status, 0) == -1 && errno == EINTR)
			continue;
	} else if (t->dir != NULL && !t->borrowed &&
	    getenv("JOBDECK_E2E_KEEP") == NULL)
		nftw(t->dir, term_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	if (t->vt != NULL)
		vterm_free(t->vt);
	free(t->outq.s);
	free(t->line.s);
	free(t->linecol);
	free(t->text.s);
	free(t->dump.s);
	free(t->raw.s);
	free(t->held.s);
	free(t->fed.s);
	free(t->tag);
	free(t->dir);
	free(t);
}

/* Return the temporary directory that is the program's cwd. */
const char *
term_tmpdir(const struct term *t)
{
	return t->dir;
}

/* Return the program's pid. */
pid_t
term_pid(const struct term *t)
{
	return t->pid;
}

/* Return the current size of the terminal. */
void
term_size(const struct term *t, int *rows, int *cols)
{
	*rows = t->rows;
	*cols = t->cols;
}

/*
 * Feed bytes to libvterm, rewriting ITU T.416's RGB form "38:2::R:G:B"
 * (and 48) as "38:2:R:G:B": 0.1.4 reads the empty colour space id as red,
 * and xterm-direct's setaf writes that form.  A CSI cut by the end of a
 * read is held back until the next one, so the rewrite sees it whole.
 */
static void
term_feed(struct term *t, const char *buf, size_t len)
{
	const char	*d, *p;
	size_t		 n, i, j, k;

	term_buf_add(&t->held, buf, len);
	d = t->held.s;
	n = t->held.len;
	t->fed.len = 0;
	for (i = 0; i < n; i = j + 1) {
		j = i;
		if (d[i] != '\033' || (i + 1 < n && d[i + 1] != '[')) {
			term_buf_add(&t->fed, d + i, 1);
			continue;
		}
		for (j = i + 2; j < n && d[j] >= 0x20 && d[j] <= 0x3f; j++)
			;
		if (j >= n && n - i <= TERM_HOLD_MAX)
			break;
		if (j >= n || d[j] != 'm') {
			j = j >= n ? n - 1 : j;
			term_buf_add(&t->fed, d + i, j + 1 - i);
			continue;
		}
		for (k = i; k <= j; k++) {
			p = d + k;
			term_buf_add(&t->fed, p, 1);
			if ((*p == '[' || *p == ';') && j - k > 6 &&
			    (memcmp(p + 1, "38:2::", 6) == 0 ||
			    memcmp(p + 1, "48:2::", 6) == 0)) {
				term_buf_add(&t->fed, p + 1, 5);
				k += 6;
			}
		}
	}
	if (t->fed.len > 0)
		vterm_input_write(t->vt, t->fed.s, t->fed.len);
	memmove(t->held.s, d + i, n - i);
	t->held.len = n - i;
}

/* Read once from the master and feed it; return bytes, 0 or -1 at EOF. */
static int
term_read_some(struct term *t)
{
	char	buf[TERM_READ_SIZE - TERM_HOLD_MAX];
	ssize_t	n;

	if (t->fd == -1 || t->eof)
		return -1;
	n = read(t->fd, buf, sizeof buf);
	if (n > 0) {
		if (t->raw_on)
			term_buf_add(&t->raw, buf, (size_t)n);
		term_feed(t, buf, (size_t)n);
		return (int)n;
	}
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return 0;
	t->eof = 1;
	return -1;
}

/* Write the output queue to the master, reading meanwhile if it is full. */
static void
term_flush(struct term *t)
{
	struct pollfd	pfd;
	int64_t		deadline = term_now_ms() + TERM_FLUSH_MS;
	size_t		done = 0;
	ssize_t		n;

	if (t->outq.len == 0)
		return;
	while (t->fd != -1 && done < t->outq.len) {
		n = write(t->fd, t->outq.s + done, t->outq.len - done);
		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n == 0 || errno != EAGAIN || term_now_ms() > deadline)
			break;
		pfd.fd = t->fd;
		pfd.events = POLLIN | POLLOUT;
		if (poll(&pfd, 1, 10) > 0 && (pfd.revents & POLLIN))
			term_read_some(t);
	}
	/* Anything the reads above queued is kept for the next flush. */
	memmove(t->outq.s, t->outq.s + done, t->outq.len - done);
	t->outq.len -= done;
	t->outq.s[t->outq.len] = '\0';
	if (t->fd == -1)
		t->outq.len = 0;
}

/*
 * Wait up to ms for output, then read and feed all that is there (up to a
 * cap); return the number of bytes fed.
 */
static int
term_pump_once(struct term *t, int ms)
{
	struct pollfd	pfd;
	int		total = 0, n;

	if (t->outq.len > 0)
		term_flush(t);
	if (t->fd == -1 || t->eof) {
		term_sleep_ms(ms);
		return 0;
	}
	pfd.fd = t->fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, ms < 0 ? 0 : ms) <= 0)
		return 0;
	while (total < TERM_DRAIN_MAX && (n = term_read_some(t)) > 0)
		total += n;
	if (total > 0)
		t->dump_kept = 0;	/* the kept screen is out of date */
	if (t->outq.len > 0)
		term_flush(t);
	return total;
}

/* Read and feed the program's output for ms milliseconds. */
void
term_pump(struct term *t, int ms)
{
	int64_t	deadline = term_now_ms() + ms, left;

	while ((left = deadline - term_now_ms()) > 0)
		term_pump_once(t, (int)left);
}

/* Clip a rectangle (NULL: the whole screen) to the screen. */
static void
term_clip(const struct term *t, const struct term_rect *r, int *r0, int *c0,
    int *r1, int *c1)
{
	*r0 = r != NULL && r->row > 0 ? r->row : 0;
	*c0 = r != NULL && r->col > 0 ? r->col : 0;
	*r1 = r != NULL && r->rows > 0 ? *r0 + r->rows : t->rows;
	*c1 = r != NULL && r->cols > 0 ? *c0 + r->cols : t->cols;
	if (*r1 > t->rows)
		*r1 = t->rows;
	if (*c1 > t->cols)
		*c1 = t->cols;
}

/*
 * Build columns c0..c1-1 of a row as UTF-8 into t->line, recording the
 * screen column of each byte in t->linecol; trailing blanks are trimmed if
 * trim is set (searches keep them, so "name: " matches at the cursor).
 * Erased cells are spaces and right halves of wide characters are skipped.
 */
static void
term_line_build(struct term *t, int row, int c0, int c1, int trim)
{
	VTermScreenCell	 cell;
	VTermPos	 pos;
	char		 u[4 * VTERM_MAX_CHARS_PER_CELL];
	size_t		 n, i, need;
	int		 col, k, *p;

	t->line.len = 0;
	term_buf_add(&t->line, "", 0);
	for (col = c0; col < c1; col++) {
		pos.row = row;
		pos.col = col;
		memset(&cell, 0, sizeof cell);
		if (!vterm_screen_get_cell(t->vs, pos, &cell))
			break;
		if (cell.chars[0] == (uint32_t)-1)
			continue;
		n = 0;
		if (cell.chars[0] == 0)
			u[n++] = ' ';
		else {
			for (k = 0; k < VTERM_MAX_CHARS_PER_CELL &&
			    cell.chars[k] != 0; k++)
				n += term_utf8(u + n, cell.chars[k]);
		}
		need = t->line.len + n + 1;
		if (need > t->linecol_size) {
			p = realloc(t->linecol, need * 2 * sizeof *p);
			if (p == NULL)
				abort();
			t->linecol = p;
			t->linecol_size = need * 2;
		}
		for (i = 0; i < n; i++)
			t->linecol[t->line.len + i] = col;
		term_buf_add(&t->line, u, n);
	}
	while (trim && t->line.len > 0 && t->line.s[t->line.len - 1] == ' ')
		t->line.len--;
	t->line.s[t->line.len] = '\0';
}

/*
 * Return the text inside r (NULL: the whole screen) as UTF-8 lines joined
 * by \n, trailing blanks of each line trimmed.
 */
const char *
term_text_in(struct term *t, const struct term_rect *r)
{
	int	r0, c0, r1, c1, row;

	term_clip(t, r, &r0, &c0, &r1, &c1);
	t->text.len = 0;
	term_buf_add(&t->text, "", 0);
	for (row = r0; row < r1; row++) {
		term_line_build(t, row, c0, c1, 1);
		term_buf_add(&t->text, t->line.s, t->line.len);
		if (row + 1 < r1)
			term_buf_add(&t->text, "\n", 1);
	}
	return t->text.s;
}

/* Return the whole screen as UTF-8 lines joined by \n, blanks trimmed. */
const char *
term_screen_text(struct term *t)
{
	return term_text_in(t, NULL);
}

/* Return one row of the screen as UTF-8, trailing blanks trimmed. */
const char *
term_row_text(struct term *t, int row)
{
	t->text.len = 0;
	term_buf_add(&t->text, "", 0);
	if (row >= 0 && row < t->rows) {
		term_line_build(t, row, 0, t->cols, 1);
		term_buf_add(&t->text, t->line.s, t->line.len);
	}
	return t->text.s;
}

/* Render the screen with row numbers and the program's state into dump. */
static void
term_keep_dump(struct term *t)
{
	VTermPos	pos;
	int		row;

	t->dump.len = 0;
	term_buf_add(&t->dump, "", 0);
	vterm_state_get_cursorpos(vterm_obtain_state(t->vt), &pos);
	term_buf_fmt(&t->dump, "--- screen %dx%d, cursor %d,%d, pid %ld %s",
	    t->cols, t->rows, pos.row, pos.col, (long)t->pid,
	    t->reaped ? "exited" : "running");
	if (t->reaped && WIFEXITED(t->status))
		term_buf_fmt(&t->dump, " (status %d)", WEXITSTATUS(t->status));
	else if (t->reaped && WIFSIGNALED(t->status))
		term_buf_fmt(&t->dump, " (signal %d)", WTERMSIG(t->status));
	term_buf_fmt(&t->dump, ", dir %s ---\n", t->dir);
	for (row = 0; row < t->rows; row++) {
		term_line_build(t, row, 0, t->cols, 1);
		term_buf_fmt(&t->dump, "%2d|%s\n", row, t->line.s);
	}
	term_buf_add(&t->dump, "---", 3);
	t->dump_kept = 1;
}

/*
 * Return the screen dump kept by the last wait that timed out, or else a
 * dump of the screen as it is now.
 */
const char *
term_dump(struct term *t)
{
	if (!t->dump_kept)
		term_keep_dump(t);
	t->dump_kept = 0;
	return t->dump.s;
}

/* Find text inside r (NULL: anywhere); set its row and column if found. */
int
term_find_in(struct term *t, const struct term_rect *r, const char *text,
    int *row, int *col)
{
	const char	*p;
	int		 r0, c0, r1, c1, y;

	term_clip(t, r, &r0, &c0, &r1, &c1);
	for (y = r0; y < r1; y++) {
		term_line_build(t, y, c0, c1, 0);
		if ((p = strstr(t->line.s, text)) == NULL)
			continue;
		if (row != NULL)
			*row = y;
		if (col != NULL)
			*col = t->linecol[p - t->line.s];
		return 1;
	}
	return 0;
}

/* Find text anywhere on the screen; set its row and column if found. */
int
term_find(struct term *t, const char *text, int *row, int *col)
{
	return term_find_in(t, NULL, text, row, col);
}

/* Count the non-overlapping occurrences of text inside r (NULL: all). */
int
term_count_in(struct term *t, const struct term_rect *r, const char *text)
{
	const char	*p;
	size_t		 len = strlen(text);
	int		 r0, c0, r1, c1, y, n = 0;

	if (len == 0)
		return 0;
	term_clip(t, r, &r0, &c0, &r1, &c1);
	for (y = r0; y < r1; y++) {
		term_line_build(t, y, c0, c1, 0);
		for (p = t->line.s; (p = strstr(p, text)) != NULL; p += len)
			n++;
	}
	return n;
}

/* Fill c with the cell at row, col; return -1 outside the screen. */
int
term_cell(struct term *t, int row, int col, struct term_cell *c)
{
	VTermScreenCell	 cell;
	VTermPos	 pos = { .row = row, .col = col };
	VTermColor	*src[2];
	struct term_color *dst[2];
	size_t		 n = 0;
	int		 i, k;

	memset(c, 0, sizeof *c);
	memset(&cell, 0, sizeof cell);
	if (row < 0 || row >= t->rows || col < 0 || col >= t->cols ||
	    !vterm_screen_get_cell(t->vs, pos, &cell))
		return -1;
	if (cell.chars[0] != (uint32_t)-1) {
		for (k = 0; k < VTERM_MAX_CHARS_PER_CELL &&
		    cell.chars[k] != 0 && n + 4 < sizeof c->text; k++)
			n += term_utf8(c->text + n, cell.chars[k]);
	}
	c->text[n] = '\0';
	c->width = cell.width;
	c->bold = cell.attrs.bold;
	c->underline = cell.attrs.underline;
	c->italic = cell.attrs.italic;
	c->blink = cell.attrs.blink;
	c->reverse = cell.attrs.reverse;
	c->strike = cell.attrs.strike;
	src[0] = &cell.fg;
	src[1] = &cell.bg;
	dst[0] = &c->fg;
	dst[1] = &c->bg;
	for (i = 0; i < 2; i++) {
		dst[i]->is_default = i == 0 ?
		    VTERM_COLOR_IS_DEFAULT_FG(src[i]) :
		    VTERM_COLOR_IS_DEFAULT_BG(src[i]);
		dst[i]->index = VTERM_COLOR_IS_INDEXED(src[i]) ?
		    src[i]->indexed.idx : -1;
		vterm_screen_convert_color_to_rgb(t->vs, src[i]);
		dst[i]->r = src[i]->rgb.red;
		dst[i]->g = src[i]->rgb.green;
		dst[i]->b = src[i]->rgb.blue;
	}
	return 0;
}

/* Reap the program if it has exited. */
static void
term_reap(struct term *t)
{
	int	status;

	if (t->reaped || t->pid <= 0)
		return;
	if (waitpid(t->pid, &status, WNOHANG) == t->pid) {
		t->reaped = 1;
		t->status = status;
	}
}

/*
 * Wait until text inside r occurs at least count times, or (count 0) not
 * at all; on timeout keep a dump and return 0.  Absence must hold twice,
 * around a short read, so a half-drawn frame does not count.
 */
static int
term_wait(struct term *t, const struct term_rect *r, const char *text,
    int count, int ms)
{
	int64_t	deadline = term_now_ms() + ms, left;
	int	n, at_eof;

	t->dump_kept = 0;
	for (;;) {
		at_eof = t->fd == -1 || t->eof;
		n = term_count_in(t, r, text);
		if (count == 0 && n == 0) {
			term_pump_once(t, 30);
			if (term_count_in(t, r, text) == 0)
				return 1;
		} else if (count > 0 && n >= count)
			return 1;
		left = deadline - term_now_ms();
		if (left <= 0 || (at_eof && count > 0)) {
			term_reap(t);
			term_keep_dump(t);
			return 0;
		}
		term_pump_once(t, left < 50 ? (int)left : 50);
	}
}

/* Wait up to ms for text to appear anywhere on the screen. */
int
term_wait_text(struct term *t, const char *text, int ms)
{
	return term_wait(t, NULL, text, 1, ms);
}

/* Wait up to ms for text to be gone from the whole screen. */
int
term_wait_gone(struct term *t, const char *text, int ms)
{
	return term_wait(t, NULL, text, 0, ms);
}

/* Wait up to ms for text to appear inside r. */
int
term_wait_text_in(struct term *t, const struct term_rect *r, const char *text,
    int ms)
{
	return term_wait(t, r, text, 1, ms);
}

/* Wait up to ms for text to be gone from r. */
int
term_wait_gone_in(struct term *t, const struct term_rect *r, const char *text,
    int ms)
{
	return term_wait(t, r, text, 0, ms);
}

/* Wait up to ms for text to occur at least count times inside r. */
int
term_wait_count_in(struct term *t, const struct term_rect *r,
    const char *text, int count, int ms)
{
	return term_wait(t, r, text, count < 1 ? 1 : count, ms);
}

/* Write text to the program as typed, then read its output briefly. */
void
term_type(struct term *t, const char *text)
{
	term_buf_add(&t->outq, text, strlen(text));
	term_flush(t);
	term_pump(t, 20);
}

/* Press a named key, encoded the way the terminal's modes ask for. */
void
term_key(struct term *t, enum term_keyname key)
{
	static const struct {
		enum term_keyname	 name;
		VTermKey		 vkey;
		const char		*bytes;
	} keys[] = {
		{ TERM_KEY_ENTER, VTERM_KEY_ENTER, NULL },
		{ TERM_KEY_TAB, VTERM_KEY_TAB, NULL },
		{ TERM_KEY_BACKSPACE, VTERM_KEY_BACKSPACE, NULL },
		{ TERM_KEY_ESC, VTERM_KEY_ESCAPE, NULL },
		{ TERM_KEY_UP, VTERM_KEY_UP, NULL },
		{ TERM_KEY_DOWN, VTERM_KEY_DOWN, NULL },
		{ TERM_KEY_LEFT, VTERM_KEY_LEFT, NULL },
		{ TERM_KEY_RIGHT, VTERM_KEY_RIGHT, NULL },
		{ TERM_KEY_INSERT, VTERM_KEY_INS, NULL },
		{ TERM_KEY_DELETE, VTERM_KEY_DEL, NULL },
		{ TERM_KEY_HOME, VTERM_KEY_HOME, NULL },
		{ TERM_KEY_END, VTERM_KEY_END, NULL },
		{ TERM_KEY_PAGEUP, VTERM_KEY_PAGEUP, NULL },
		{ TERM_KEY_PAGEDOWN, VTERM_KEY_PAGEDOWN, NULL },
		{ TERM_KEY_F1, VTERM_KEY_FUNCTION(1), NULL },
		{ TERM_KEY_CTRL_C, VTERM_KEY_NONE, "\003" },
		{ TERM_KEY_CTRL_N, VTERM_KEY_NONE, "\016" },
		{ TERM_KEY_CTRL_P, VTERM_KEY_NONE, "\020" },
		{ TERM_KEY_CTRL_T, VTERM_KEY_NONE, "\024" },
	};
	size_t	i;

	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		if (keys[i].name != key)
			continue;
		if (keys[i].bytes != NULL)
			term_buf_add(&t->outq, keys[i].bytes,
			    strlen(keys[i].bytes));
		else
			vterm_keyboard_key(t->vt, keys[i].vkey, VTERM_MOD_NONE);
		term_flush(t);
		/* A lone Esc is only a key after the program's escape delay. */
		term_pump(t, key == TERM_KEY_ESC ? 150 : 20);
		return;
	}
}

/*
 * Paste text as a terminal does: bracketed in ESC [200~ ... ESC [201~ only
 * when the program turned mode 2004 on.
 */
void
term_paste(struct term *t, const char *text)
{
	vterm_keyboard_start_paste(t->vt);
	term_buf_add(&t->outq, text, strlen(text));
	vterm_keyboard_end_paste(t->vt);
	term_flush(t);
	term_pump(t, 20);
}

/*
 * Use the mouse at row, col as a terminal does, reporting only what the
 * program's mouse modes ask for, in their encoding: button 0-2 (left,
 * middle, right) pressed or released, 64/65 the wheel, or -1 a move.
 */
void
term_mouse(struct term *t, int button, int row, int col, int press)
{
	vterm_mouse_move(t->vt, row, col, VTERM_MOD_NONE);
	if (button >= 0 && button <= 2)
		vterm_mouse_button(t->vt, button + 1, press != 0,
		    VTERM_MOD_NONE);
	else if (button == 64 || button == 65)
		vterm_mouse_button(t->vt, button - 60, 1, VTERM_MOD_NONE);
	term_flush(t);
	term_pump(t, 20);
}

/* Resize the terminal; the kernel sends SIGWINCH to the program. */
void
term_resize(struct term *t, int rows, int cols)
{
	struct winsize	ws = { .ws_row = rows, .ws_col = cols };
	VTermPos	pos;
	char		fix[32];
	int		n;

	if (rows < 2 || cols < 2)
		return;
	vterm_set_size(t->vt, rows, cols);
	vterm_state_get_cursorpos(vterm_obtain_state(t->vt), &pos);
	if (pos.row < 0 || pos.row >= rows) {
		/* libvterm 0.1.4 can leave the cursor off screen (§3). */
		n = snprintf(fix, sizeof fix, "\033[%d;%dH",
		    pos.row < 0 ? 1 : rows, pos.col + 1);
		vterm_input_write(t->vt, fix, (size_t)n);
	}
	/*
	 * Keep nothing of the old frame, as terminals that do not reflow
	 * (tmux among them) show it: a program must repaint everything after
	 * SIGWINCH, and a test then sees what it failed to repaint.
	 */
	vterm_input_write(t->vt, "\033[H\033[2J", 7);
	t->rows = rows;
	t->cols = cols;
	if (t->fd != -1)
		ioctl(t->fd, TIOCSWINSZ, &ws);
	term_pump(t, 20);
}

/* Send a signal to the program; return -1 once it has been reaped. */
int
term_signal(struct term *t, int signo)
{
	term_reap(t);
	if (t->reaped) {
		errno = ESRCH;
		return -1;
	}
	return kill(t->pid, signo);
}

/* Close the master, as a terminal that goes away does. */
void
term_hangup(struct term *t)
{
	if (t->fd != -1) {
		close(t->fd);
		t->fd = -1;
	}
	t->outq.len = 0;
}

/*
 * Wait up to ms for the program to exit, reading its output meanwhile;
 * return 1 and store the wait status in *status (may be NULL) if it did.
 */
int
term_wait_exit(struct term *t, int ms, int *status)
{
	int64_t	deadline = term_now_ms() + ms, left;

	for (;;) {
		term_reap(t);
		if (t->reaped) {
			/* Take in what it wrote last (the terminal restore). */
			while (term_pump_once(t, 0) > 0)
				continue;
			if (status != NULL)
				*status = t->status;
			return 1;
		}
		if ((left = deadline - term_now_ms()) <= 0)
			return 0;
		term_pump_once(t, left < 20 ? (int)left : 20);
	}
}

/* Wait up to ms for pid to die (zombies count as dead), reading output. */
int
term_wait_pid_dead(struct term *t, pid_t pid, int ms)
{
	int64_t	deadline = term_now_ms() + ms;

	while (term_pid_alive(pid)) {
		if (term_now_ms() >= deadline)
			return 0;
		if (t != NULL) {
			term_reap(t);
			term_pump_once(t, 20);
		} else
			term_sleep_ms(20);
	}
	return 1;
}

/*
 * Read up to len bytes from fd within ms, the screen pumped meanwhile (so a
 * deck that draws while it answers never blocks on us); how many came.
 */
size_t
term_read_fd(struct term *t, int fd, char *buf, size_t len, int ms)
{
	struct pollfd	pfd;
	int64_t		end = term_now_ms() + ms;
	size_t		got = 0;
	ssize_t		n;

	pfd.fd = fd;
	pfd.events = POLLIN;
	while (got < len && term_now_ms() < end) {
		if (poll(&pfd, 1, 5) > 0) {
			n = read(fd, buf + got, len - got);
			if (n == -1 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n <= 0)
				break;
			got += (size_t)n;
		}
		term_pump(t, 1);
	}
	return got;
}

/*
 * Wait up to ms for the file name in the temporary directory to hold a
 * complete line with a pid; return it, or -1.
 */
pid_t
term_wait_pidfile(struct term *t, const char *name, int ms)
{
	char	 path[PATH_MAX], buf[64], *end;
	int64_t	 deadline = term_now_ms() + ms;
	ssize_t	 n;
	long	 v;
	int	 fd;

	snprintf(path, sizeof path, "%s/%s", t->dir, name);
	for (;;) {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) != -1) {
			n = read(fd, buf, sizeof buf - 1);
			close(fd);
			if (n > 0) {
				buf[n] = '\0';
				v = strtol(buf, &end, 10);
				if (end != buf && *end == '\n' && v > 0)
					return (pid_t)v;
			}
		}
		if (term_now_ms() >= deadline)
			return -1;
		term_pump_once(t, 20);
	}
}

/*
 * Record every byte the program writes from now on (raw, before the
 * screen sees it), dropping what an earlier recording kept.
 */
void
term_raw_start(struct term *t)
{
	t->raw.len = 0;
	term_buf_add(&t->raw, "", 0);
	t->raw_on = 1;
}

/* Stop recording; what was recorded stays until the next start. */
void
term_raw_stop(struct term *t)
{
	t->raw_on = 0;
}

/*
 * Return the bytes recorded since term_raw_start (NUL-terminated, but they
 * may hold NULs: *len is their count); valid until the next read.
 */
const char *
term_raw_bytes(struct term *t, size_t *len)
{
	if (t->raw.s == NULL)
		term_buf_add(&t->raw, "", 0);
	*len = t->raw.len;
	return t->raw.s;
}
