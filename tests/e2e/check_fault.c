/*
 * check_fault.c: the fault suite (issue "Reliability and security").  Each
 * test runs the real jobdeck on a 120x40 pty through the term harness and
 * does something hostile to it: leaves it every way it can be left while
 * its jobs resist, floods it, feeds it garbage, starves it of file
 * descriptors, terminals and disk, and lets its children misbehave.  Each
 * one then checks that jobdeck still works, that no process it started
 * outlives it, and that no output was lost.
 *
 * Survivors are looked for three ways, so that a process that clears its
 * environment (the harness's tag) or leaves its session is still found:
 * the harness's tag in /proc/PID/environ; a session id recorded from the
 * deck's children and pid files while it ran; and ancestry, since the test
 * process makes itself a child subreaper, so whatever outlives jobdeck is
 * reparented to it.  Survivors are killed after they are reported, and a
 * guard process kills every recorded session even if the test dies first
 * (the harness's guard only knows the tag).
 *
 * Logs are compared byte for byte with what the job wrote, passed through
 * the pty's output processing (OPOST|ONLCR: \n becomes \r\n).  Fixtures
 * and configuration files live in a private directory per test, kept if
 * JOBDECK_E2E_KEEP is set.  Figures (bytes, time, memory, fds) go to
 * stderr as lines starting with "fault:".
 *
 * Some cases need root: they mount a tmpfs or a devpts instance inside a
 * mount namespace of the test's own (check forks each test, so the mounts
 * go away with it).  Without root, or with CK_FORK=no, they say so and
 * pass.
 *
 * Under AddressSanitizer (SANITIZE=1) memory is not bounded, since its
 * quarantine and shadow fill the RSS, and the flood is an eighth as big.
 * FAULT_FLOOD_MB overrides the size of the flood (default FLOOD_MB).
 */
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "skip.h"
#include "e2e/e2e.h"

#define WAIT_MS		8000	/* default wait for text */
#define GRACE_S		2	/* kill_timeout in the exit matrix */
/*
 * The flood's size, in MiB.  jobdeck takes in 15 to 24 MB/s here (two
 * shared cores, the emulator fed in full while another job is shown), so
 * 512 MiB take 25 to 35 s; 1 GiB would take about a minute.  A slower
 * machine takes minutes: the test waits as long as the log grows.
 */
#define FLOOD_MB	512
#define FLOOD_STALL_MS	60000	/* the flood's log grows within it */
#define RSS_MAX_KB	(100 * 1024)	/* jobdeck's memory bound */
#define ECHO_WAIT_MS	20000	/* longest wait for an echo in a flood */
#define HUGE_STRING	(100 * 1000 * 1000)	/* unterminated OSC/DCS */
#define MANY_JOBS	500
#define CYCLE_JOBS	1000

static const struct term_rect panel = { 0, 0, 39, 40 };
static const struct term_rect pane = { 1, 40, 37, 80 };
static const struct term_rect pane_title = { 0, 40, 1, 80 };
static const struct term_rect bottom = { 39, 0, 1, 120 };

/* One test's deck, its private directory and what it learnt of its jobs. */
struct fault {
	struct term	*t;
	pid_t		 deck;		/* the server */
	pid_t		 client;	/* on the terminal: the deck's client */
	char		 dir[64];	/* fixtures and configs */
	char		 mnt[PATH_MAX];	/* a mount in dir, or "" */
	char		 self_exe[PATH_MAX];
	pid_t		*sids;		/* sessions of the deck's jobs */
	size_t		 nsids;
	size_t		 sids_size;
	long		 peak_kb;	/* highest VmRSS sampled */
	int		 asan;		/* the deck runs under ASan */
	pid_t		 guard;		/* kills the sessions if we die */
	int		 guard_fd;	/* sids go to the guard through it */
};

/* A process as /proc tells it. */
struct fault_proc {
	pid_t	pid;
	pid_t	ppid;
	pid_t	sid;
	char	state;
};

/* Where expected output comes from: a file, a repeated line, or seq. */
struct fault_src {
	int		 fd;		/* a file, or -1 */
	const char	*line;		/* repeated, NULL if unused */
	size_t		 linelen;
	uint64_t	 left;		/* bytes of the repeated line to give */
	uint64_t	 pos;		/* offset in the repeated stream */
	long		 seq_next;	/* seq: next number, 0 if unused */
	long		 seq_last;
};

static const char	*fault_dump(struct fault *);
static void		 fault_note(const char *, ...)
			    __attribute__((format(printf, 1, 2)));
static void		 fault_guard_main(int, const char *);
static void		 fault_guard_start(struct fault *);
static void		 fault_init(struct fault *);
static const char	*fault_write(struct fault *, const char *,
			    const void *, size_t);
static void		 fault_start(struct fault *, const char *const *,
			    const char *const *);
static int		 fault_is_asan(pid_t);
static void		 fault_end(struct fault *);
static void		 fault_run(struct fault *, const char *);
static size_t		 fault_scan(struct fault_proc **);
static int		 fault_has_tag(pid_t, const char *);
static void		 fault_add_sid(struct fault *, pid_t);
static void		 fault_note_sessions(struct fault *);
static pid_t		 fault_pidfile(struct fault *, const char *, int);
static size_t		 fault_survivors(struct fault *, int, char *, size_t);
static void		 fault_reap_adopted(struct fault *);
static void		 fault_echo_enter(struct fault *, int *, const char *);
static void		 fault_cmdline(pid_t, char *, size_t);
static long		 fault_status_kb(pid_t, const char *);
static long		 fault_sample_rss(struct fault *);
static int		 fault_count_fds(pid_t);
static void		 fault_fd_summary(pid_t, char *, size_t);
static long		 fault_cpu_ticks(pid_t);
static size_t		 fault_zombies_of(pid_t, char *, size_t);
static const char	*fault_log_path(struct fault *, int);
static off_t		 fault_run_bytes(struct fault *, int);
static off_t		 fault_file_size(const char *);
static size_t		 fault_src_read(struct fault_src *, char *, size_t);
static int		 fault_log_compare(const char *, struct fault_src *,
			    const char *, char *, size_t);
static int		 fault_wait_deck(struct fault *,
			    const struct term_rect *, const char *, int);
static void		 fault_expect_alive(struct fault *, const char *);
static void		 fault_expect_works(struct fault *, const char *);
static void		 fault_quit_clean(struct fault *, const char *);
static int		 fault_enter_namespace(const char *);
static void		 fault_expect_reason(struct fault *, const char *,
			    const char *);
static int		 fault_rm_cb(const char *, const struct stat *, int,
			    struct FTW *);

/* Expect text inside a region within ms, or fail with the screen. */
#undef EXPECT_IN		/* e2e.h's takes a term, this one a fault */
#define EXPECT_IN(f, r, text, ms)					\
	ck_assert_msg(term_wait_text_in((f)->t, (r), (text), (ms)),	\
	    "no \"%s\" in %s after %d ms\n%s", (text), #r, (ms),	\
	    fault_dump(f))

/* Assert cond, explaining with what and the screen. */
#define FAULT_ASSERT(f, cond, what)					\
	ck_assert_msg((cond), "%s\n%s", (what), fault_dump(f))

/*
 * Return the screen dump for a failure message; check cuts messages, so
 * the dump also goes to stderr whole, and the fixtures are named.
 */
static const char *
fault_dump(struct fault *f)
{
	const char	*d = term_dump(f->t);

	fprintf(stderr, "check_fault: screen (fixtures in %s, kept with "
	    "JOBDECK_E2E_KEEP=1):\n%s\n", f->dir, d);
	return d;
}

/* Print a figure for the report: one line on stderr. */
static void
fault_note(const char *fmt, ...)
{
	va_list	ap;

	fputs("fault: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * The guard: collect session ids from fd until EOF (the test ended, well
 * or not), then SIGKILL every process in those sessions until none is
 * left, and remove dir unless JOBDECK_E2E_KEEP is set.  The harness's own
 * guard does the same for tagged processes; this one catches those that
 * dropped the tag.
 */
static void
fault_guard_main(int fd, const char *dir)
{
	struct fault_proc	*v;
	pid_t			*sids = NULL, sid, *nsids;
	size_t			 nsid = 0, size = 0, n, i, j, hit;
	ssize_t			 got;
	int			 round;

	for (;;) {
		got = read(fd, &sid, sizeof sid);
		if (got == -1 && errno == EINTR)
			continue;
		if (got != (ssize_t)sizeof sid)
			break;
		if (nsid == size) {
			size = size * 2 + 64;
			nsids = realloc(sids, size * sizeof *sids);
			if (nsids == NULL)
				_exit(1);
			sids = nsids;
		}
		sids[nsid++] = sid;
	}
	for (round = 0; round < 250 && nsid > 0; round++) {
		n = fault_scan(&v);
		for (i = hit = 0; i < n; i++) {
			if (v[i].pid == getpid() || v[i].state == 'Z')
				continue;
			for (j = 0; j < nsid; j++) {
				if (v[i].sid == sids[j]) {
					kill(v[i].pid, SIGKILL);
					hit++;
					break;
				}
			}
		}
		free(v);
		if (hit == 0)
			break;
		usleep(20000);
	}
	if (getenv("JOBDECK_E2E_KEEP") == NULL)
		nftw(dir, fault_rm_cb, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
	_exit(0);
}

/* Fork the guard into a session of its own, holding a pipe's read end. */
static void
fault_guard_start(struct fault *f)
{
	int	p[2], null;

	ck_assert_msg(pipe2(p, O_CLOEXEC) == 0, "pipe: %s", strerror(errno));
	switch (f->guard = fork()) {
	case -1:
		ck_abort_msg("fork: %s", strerror(errno));
		break;
	case 0:
		setsid();
		signal(SIGHUP, SIG_IGN);
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		if ((null = open("/dev/null", O_RDWR)) != -1) {
			dup2(null, 0);
			dup2(null, 1);
		}
		dup2(p[0], 3);
		close_range(4, ~0U, 0);
		fault_guard_main(3, f->dir);
		_exit(0);
	}
	close(p[0]);
	f->guard_fd = p[1];
}

/*
 * Prepare a test: a private directory, this process as a subreaper so
 * that whatever outlives jobdeck is reparented here and can be found, and
 * the guard.
 */
static void
fault_init(struct fault *f)
{
	ssize_t	n;

	memset(f, 0, sizeof *f);
	f->guard_fd = -1;
	strcpy(f->dir, "/tmp/jd-fault.XXXXXX");
	ck_assert_msg(mkdtemp(f->dir) != NULL, "mkdtemp: %s", strerror(errno));
	ck_assert_msg(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0,
	    "cannot become a subreaper: %s", strerror(errno));
	n = readlink("/proc/self/exe", f->self_exe, sizeof f->self_exe - 1);
	f->self_exe[n > 0 ? n : 0] = '\0';
	fault_guard_start(f);
}

/* Write len bytes to name in the private directory (0600); its path. */
static const char *
fault_write(struct fault *f, const char *name, const void *data, size_t len)
{
	static char	 path[PATH_MAX];
	const char	*p = data;
	ssize_t		 n;
	int		 fd;

	snprintf(path, sizeof path, "%s/%s", f->dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_msg(fd != -1, "%s: %s", path, strerror(errno));
	while (len > 0) {
		n = write(fd, p, len);
		ck_assert_msg(n > 0, "%s: %s", path, strerror(errno));
		p += n;
		len -= (size_t)n;
	}
	close(fd);
	return path;
}

/*
 * Start jobdeck with args (NULL: -c /dev/null) and extra environment env
 * (may be NULL), and wait for its panel.
 */
static void
fault_start(struct fault *f, const char *const *args, const char *const *env)
{
	static const char *const none[] = { "-c", "/dev/null", NULL };
	const char	*argv[32];
	size_t		 n = 0, i;

	if (args == NULL)
		args = none;
	argv[n++] = e2e_bin();
	for (i = 0; args[i] != NULL && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	f->t = term_start(argv, env);
	ck_assert_msg(f->t != NULL, "cannot start %s: %s (build it with "
	    "`make jobdeck`, or set JOBDECK_BIN)", argv[0], strerror(errno));
	EXPECT_IN(f, &panel, "Processes (", WAIT_MS);
	/* The deck is the server, not the client on the terminal. */
	f->deck = e2e_deck_pid(f->t);
	f->client = term_pid(f->t);
	f->asan = fault_is_asan(f->deck);
}

/*
 * Tell whether pid runs under AddressSanitizer (SANITIZE=1 builds), whose
 * shadow memory and quarantine make its RSS say nothing about jobdeck.
 */
static int
fault_is_asan(pid_t pid)
{
	char	 path[64], line[512];
	FILE	*fp;
	int	 found = 0;

	if (strstr(e2e_bin(), "asan") != NULL)
		return 1;
	snprintf(path, sizeof path, "/proc/%ld/maps", (long)pid);
	if ((fp = fopen(path, "re")) == NULL)
		return 0;
	while (!found && fgets(line, sizeof line, fp) != NULL)
		found = strstr(line, "libasan") != NULL;
	fclose(fp);
	return found;
}

/*
 * End a test that passed: close the deck, kill whatever it left (it was
 * reported already, or there is none), and let the guard finish.
 */
static void
fault_end(struct fault *f)
{
	char	left[256];

	if (f->t != NULL) {
		term_close(f->t);
		f->t = NULL;
	}
	fault_survivors(f, 0, left, sizeof left);
	fault_reap_adopted(f);
	if (f->mnt[0] != '\0')
		umount2(f->mnt, MNT_DETACH);
	/* The guard removes the directory. */
	if (f->guard > 0) {
		close(f->guard_fd);
		while (waitpid(f->guard, NULL, 0) == -1 && errno == EINTR)
			continue;
		f->guard = -1;
	}
	free(f->sids);
	f->sids = NULL;
}

/* Remove one entry of a directory tree (nftw callback). */
static int
fault_rm_cb(const char *path, const struct stat *st, int type, struct FTW *w)
{
	(void)st;
	(void)type;
	(void)w;
	remove(path);
	return 0;
}

/* Type a command line at the prompt and press Enter. */
static void
fault_run(struct fault *f, const char *line)
{
	term_type(f->t, line);
	term_key(f->t, TERM_KEY_ENTER);
}

/* Read every process's pid, parent, session and state; return the count. */
static size_t
fault_scan(struct fault_proc **out)
{
	struct fault_proc	*v = NULL, *nv;
	struct dirent		*de;
	DIR			*d;
	char			 path[64], buf[1024], *p, *end;
	size_t			 n = 0, size = 0;
	ssize_t			 got;
	pid_t			 pid;
	int			 fd, ppid, pgrp, sid;
	char			 state;

	if ((d = opendir("/proc")) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		pid = (pid_t)strtol(de->d_name, &end, 10);
		if (pid <= 0 || *end != '\0')
			continue;
		snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		got = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (got <= 0)
			continue;
		buf[got] = '\0';
		if ((p = strrchr(buf, ')')) == NULL ||
		    sscanf(p + 1, " %c %d %d %d", &state, &ppid, &pgrp,
		    &sid) != 4)
			continue;
		if (n == size) {
			size = size * 2 + 256;
			if ((nv = realloc(v, size * sizeof *v)) == NULL)
				abort();
			v = nv;
		}
		v[n].pid = pid;
		v[n].ppid = ppid;
		v[n].sid = sid;
		v[n].state = state;
		n++;
	}
	closedir(d);
	*out = v;
	return n;
}

/* Tell whether pid's environment holds the exact entry tag. */
static int
fault_has_tag(pid_t pid, const char *tag)
{
	static char	 env[256 * 1024];
	char		 path[64], *p;
	size_t		 got = 0, taglen = strlen(tag);
	ssize_t		 n;
	int		 fd;

	snprintf(path, sizeof path, "/proc/%ld/environ", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	while (got < sizeof env - 1 &&
	    (n = read(fd, env + got, sizeof env - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	env[got] = '\0';
	for (p = env; p < env + got; p += strlen(p) + 1) {
		if (strlen(p) == taglen && memcmp(p, tag, taglen) == 0)
			return 1;
	}
	return 0;
}

/* Remember a session the deck's jobs live in. */
static void
fault_add_sid(struct fault *f, pid_t sid)
{
	size_t	i;

	/* Not ours, the deck's own, or its client's on the terminal. */
	if (sid <= 1 || sid == getsid(0) || sid == f->deck ||
	    sid == getsid(f->deck) || sid == f->client)
		return;
	for (i = 0; i < f->nsids; i++) {
		if (f->sids[i] == sid)
			return;
	}
	if (f->nsids == f->sids_size) {
		f->sids_size = f->sids_size * 2 + 64;
		f->sids = realloc(f->sids, f->sids_size * sizeof *f->sids);
		if (f->sids == NULL)
			abort();
	}
	f->sids[f->nsids++] = sid;
	if (f->guard_fd != -1 &&
	    write(f->guard_fd, &sid, sizeof sid) != (ssize_t)sizeof sid)
		fprintf(stderr, "check_fault: cannot tell the guard: %s\n",
		    strerror(errno));
}

/* Record the sessions of the deck's children (its jobs and adoptees). */
static void
fault_note_sessions(struct fault *f)
{
	struct fault_proc	*v;
	size_t			 n, i;

	n = fault_scan(&v);
	for (i = 0; i < n; i++) {
		if (v[i].ppid == f->deck)
			fault_add_sid(f, v[i].sid);
	}
	free(v);
}

/* Wait for a pid file in the deck's directory; note its session. */
static pid_t
fault_pidfile(struct fault *f, const char *name, int ms)
{
	pid_t	pid;

	pid = term_wait_pidfile(f->t, name, ms);
	if (pid > 0)
		fault_add_sid(f, getsid(pid));
	return pid;
}

/* Copy pid's command line, spaces for NULs, into out. */
static void
fault_cmdline(pid_t pid, char *out, size_t size)
{
	char	path[64];
	ssize_t	got;
	int	fd;

	out[0] = '\0';
	snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	got = read(fd, out, size - 1);
	close(fd);
	out[got > 0 ? got : 0] = '\0';
	for (got--; got > 0; got--) {
		if (out[got - 1] == '\0')
			out[got - 1] = ' ';
	}
}

/*
 * Wait up to ms for every process that came from the deck to be gone: its
 * tag, a recorded session, or adopted by this process (not the harness's
 * guard, which runs this binary).  Return how many are left, described in
 * out, and SIGKILL them so nothing outlives the test.
 */
static size_t
fault_survivors(struct fault *f, int ms, char *out, size_t size)
{
	struct fault_proc	*v;
	char			 tag[PATH_MAX + 32], exe[PATH_MAX], path[64];
	char			 cmd[160];
	int64_t			 deadline = term_now_ms() + ms;
	size_t			 n, i, j, kept, len = 0;
	pid_t			*left = NULL;
	const char		*why;
	ssize_t			 got;
	int			 from;

	tag[0] = '\0';
	if (f->t != NULL)
		snprintf(tag, sizeof tag, "JOBDECK_E2E_TAG=%s",
		    term_tmpdir(f->t));
	out[0] = '\0';
	for (;;) {
		n = fault_scan(&v);
		free(left);
		if ((left = calloc(n + 1, sizeof *left)) == NULL)
			abort();
		for (i = kept = 0; i < n; i++) {
			if (v[i].state == 'Z' || v[i].state == 'X' ||
			    v[i].pid == f->deck || v[i].pid == getpid() ||
			    v[i].pid == f->client)
				continue;
			from = 0;
			for (j = 0; j < f->nsids && !from; j++)
				from = v[i].sid == f->sids[j];
			if (!from && v[i].ppid == getpid()) {
				snprintf(path, sizeof path, "/proc/%ld/exe",
				    (long)v[i].pid);
				got = readlink(path, exe, sizeof exe - 1);
				exe[got > 0 ? got : 0] = '\0';
				from = strcmp(exe, f->self_exe) != 0;
			}
			if (!from && tag[0] != '\0')
				from = fault_has_tag(v[i].pid, tag);
			if (from)
				left[kept++] = v[i].pid;
		}
		free(v);
		if (kept == 0 || term_now_ms() >= deadline)
			break;
		if (f->t != NULL)
			term_pump(f->t, 50);
		else
			usleep(50000);
	}
	for (i = 0; i < kept; i++) {
		fault_cmdline(left[i], cmd, sizeof cmd);
		why = getsid(left[i]) == left[i] ? " (own session)" : "";
		if (len + 1 < size) {
			snprintf(out + len, size - len, "  pid %ld%s: %s\n",
			    (long)left[i], why, cmd);
			len += strlen(out + len);
		}
		kill(left[i], SIGKILL);
	}
	free(left);
	return kept;
}

/*
 * Reap the zombies this process adopted as a subreaper (never the guard,
 * which is waited for by name), for a second at most.
 */
static void
fault_reap_adopted(struct fault *f)
{
	struct fault_proc	*v;
	size_t			 n, i, mine;
	int			 round;

	for (round = 0; round < 50; round++) {
		n = fault_scan(&v);
		for (i = mine = 0; i < n; i++) {
			if (v[i].ppid != getpid() || v[i].pid == f->guard)
				continue;
			if (v[i].state == 'Z')
				waitpid(v[i].pid, NULL, WNOHANG);
			else
				mine++;
		}
		free(v);
		/* Only the harness's guard may still run. */
		if (mine <= 1)
			break;
		usleep(20000);
	}
}

/* Return a "Name:   N kB" field of /proc/PID/status in kB, or -1. */
static long
fault_status_kb(pid_t pid, const char *field)
{
	char	path[64], line[256];
	size_t	len = strlen(field);
	FILE	*fp;
	long	kb = -1;

	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	if ((fp = fopen(path, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof line, fp) != NULL) {
		if (strncmp(line, field, len) == 0) {
			kb = strtol(line + len, NULL, 10);
			break;
		}
	}
	fclose(fp);
	return kb;
}

/* Sample the deck's VmRSS, keeping the peak; return it in kB. */
static long
fault_sample_rss(struct fault *f)
{
	long	kb = fault_status_kb(f->deck, "VmRSS:");

	if (kb > f->peak_kb)
		f->peak_kb = kb;
	return kb;
}

/* Count pid's open file descriptors, or -1. */
static int
fault_count_fds(pid_t pid)
{
	struct dirent	*de;
	char		 path[64];
	DIR		*d;
	int		 n = 0;

	snprintf(path, sizeof path, "/proc/%ld/fd", (long)pid);
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] != '.')
			n++;
	}
	closedir(d);
	return n;
}

/*
 * Describe pid's open fds by what they point to: each distinct target
 * with a count, log files counted together.
 */
static void
fault_fd_summary(pid_t pid, char *out, size_t size)
{
	struct dirent	*de;
	char		 path[PATH_MAX], target[PATH_MAX], seen[64][96];
	int		 counts[64], nseen = 0, i, logs = 0;
	size_t		 len = 0;
	ssize_t		 n;
	DIR		*d;

	out[0] = '\0';
	snprintf(path, sizeof path, "/proc/%ld/fd", (long)pid);
	if ((d = opendir(path)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/proc/%ld/fd/%s", (long)pid,
		    de->d_name);
		if ((n = readlink(path, target, sizeof target - 1)) <= 0)
			continue;
		target[n] = '\0';
		if (strstr(target, "/jobdeck/logs/") != NULL) {
			logs++;
			continue;
		}
		if (strncmp(target, "/dev/pts/", 9) == 0)
			strcpy(target, "/dev/pts/N");
		for (i = 0; i < nseen; i++) {
			if (strcmp(seen[i], target) == 0)
				break;
		}
		if (i == nseen && nseen < 64) {
			snprintf(seen[nseen], sizeof seen[nseen], "%.95s",
			    target);
			counts[nseen++] = 0;
		}
		if (i < 64)
			counts[i]++;
	}
	closedir(d);
	if (logs > 0) {
		snprintf(out, size, " %d x job log files;", logs);
		len = strlen(out);
	}
	for (i = 0; i < nseen && len + 1 < size; i++) {
		snprintf(out + len, size - len, " %d x %.95s;", counts[i],
		    seen[i]);
		len += strlen(out + len);
	}
}

/* Return pid's user plus system CPU time in clock ticks, or -1. */
static long
fault_cpu_ticks(pid_t pid)
{
	char		 path[64], buf[1024], *p;
	unsigned long	 ut, st;
	ssize_t		 got;
	int		 fd;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	got = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (got <= 0)
		return -1;
	buf[got] = '\0';
	if ((p = strrchr(buf, ')')) == NULL || sscanf(p + 1,
	    " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
	    &ut, &st) != 2)
		return -1;
	return (long)(ut + st);
}

/* Count the zombies whose parent is pid, described in out. */
static size_t
fault_zombies_of(pid_t pid, char *out, size_t size)
{
	struct fault_proc	*v;
	size_t			 n, i, found = 0, len = 0;

	out[0] = '\0';
	n = fault_scan(&v);
	for (i = 0; i < n; i++) {
		if (v[i].ppid != pid || v[i].state != 'Z')
			continue;
		found++;
		if (len + 1 < size) {
			snprintf(out + len, size - len, " %ld", (long)v[i].pid);
			len += strlen(out + len);
		}
	}
	free(v);
	return found;
}

/*
 * Return the directory of job id's last run in the output store under
 * the XDG_STATE_HOME state (state/jobdeck/runs/RUN, the newest whose meta
 * says "job ID"), or "" if it has none.
 */
static const char *
fault_run_dir_in(const char *state, int id)
{
	static char	 dir[PATH_MAX + 128];
	char		 runs[PATH_MAX], meta[PATH_MAX + 128], line[64];
	char		 best[64] = "";
	char		 want[32];
	struct dirent	*de;
	FILE		*fp;
	DIR		*d;

	snprintf(runs, sizeof runs, "%s/jobdeck/runs", state);
	snprintf(want, sizeof want, "job %d\n", id);
	if ((d = opendir(runs)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] == '.' || strlen(de->d_name) >= 64)
				continue;
			if (snprintf(meta, sizeof meta, "%s/%s/meta", runs,
			    de->d_name) >= (int)sizeof meta ||
			    (fp = fopen(meta, "re")) == NULL)
				continue;
			while (fgets(line, sizeof line, fp) != NULL) {
				if (strcmp(line, want) == 0 &&
				    strcmp(de->d_name, best) > 0)
					memcpy(best, de->d_name,
					    strlen(de->d_name) + 1);
			}
			fclose(fp);
		}
		closedir(d);
	}
	if (best[0] == '\0' || snprintf(dir, sizeof dir, "%s/%s", runs,
	    best) >= (int)sizeof dir)
		dir[0] = '\0';
	return dir;
}

/* Return the directory of job id's last run in the deck's own store. */
static const char *
fault_run_dir(struct fault *f, int id)
{
	char	state[PATH_MAX];

	snprintf(state, sizeof state, "%s/state", term_tmpdir(f->t));
	return fault_run_dir_in(state, id);
}

/*
 * Return the path of the first segment of job id's raw output in the
 * store (all of it while it is under a segment, 32 MiB by default).
 */
static const char *
fault_log_path(struct fault *f, int id)
{
	static char	path[PATH_MAX + 8];

	snprintf(path, sizeof path, "%s/out.0", fault_run_dir(f, id));
	return path;
}

/* Return the bytes of job id's raw output in the store, every segment. */
static off_t
fault_run_bytes(struct fault *f, int id)
{
	char		 path[PATH_MAX + 16];
	const char	*dir = fault_run_dir(f, id);
	struct stat	 sb;
	off_t		 total = 0;
	int		 seg;

	for (seg = 0; seg < 4096; seg++) {
		snprintf(path, sizeof path, "%s/out.%d", dir, seg);
		if (stat(path, &sb) == 0)
			total += sb.st_size;
	}
	return total;
}

/* Return a file's size, or -1. */
static off_t
fault_file_size(const char *path)
{
	struct stat	sb;

	return stat(path, &sb) == 0 ? sb.st_size : -1;
}

/* Give up to size bytes of the expected raw output; 0 at its end. */
static size_t
fault_src_read(struct fault_src *s, char *buf, size_t size)
{
	ssize_t	n;
	size_t	done = 0, k, off;
	int	w;

	if (s->fd != -1) {
		while ((n = read(s->fd, buf, size)) == -1 && errno == EINTR)
			continue;
		return n > 0 ? (size_t)n : 0;
	}
	if (s->line != NULL) {
		while (done < size && s->left > 0) {
			off = (size_t)(s->pos % s->linelen);
			k = s->linelen - off;
			if (k > size - done)
				k = size - done;
			if (k > s->left)
				k = (size_t)s->left;
			memcpy(buf + done, s->line + off, k);
			done += k;
			s->pos += k;
			s->left -= k;
		}
		return done;
	}
	while (s->seq_next != 0 && s->seq_next <= s->seq_last &&
	    done + 24 < size) {
		w = snprintf(buf + done, size - done, "%ld\n", s->seq_next++);
		done += (size_t)w;
	}
	return done;
}

/*
 * Compare the log at path with the expected output s passed through the
 * pty's ONLCR, followed by trailer (may be NULL) verbatim.  Return 1 if
 * they are equal, else 0 with the first difference described in why.
 */
static int
fault_log_compare(const char *path, struct fault_src *s, const char *trailer,
    char *why, size_t size)
{
	static char	 raw[1 << 20], want[2 << 20], got[2 << 20];
	size_t		 wlen = 0, wpos = 0, glen = 0, gpos = 0, r, i, k;
	uint64_t	 off = 0;
	ssize_t		 n;
	int		 fd, src_done = 0, trailer_done = trailer == NULL;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(why, size, "%s: %s", path, strerror(errno));
		return 0;
	}
	for (;;) {
		if (wpos == wlen && !src_done) {
			wlen = wpos = 0;
			r = fault_src_read(s, raw, sizeof raw);
			if (r == 0)
				src_done = 1;
			for (i = 0; i < r; i++) {
				if (raw[i] == '\n')
					want[wlen++] = '\r';
				want[wlen++] = raw[i];
			}
		}
		if (wpos == wlen && src_done && !trailer_done) {
			wlen = strlen(trailer);
			memcpy(want, trailer, wlen);
			wpos = 0;
			trailer_done = 1;
		}
		if (gpos == glen) {
			while ((n = read(fd, got, sizeof got)) == -1 &&
			    errno == EINTR)
				continue;
			glen = n > 0 ? (size_t)n : 0;
			gpos = 0;
		}
		if (wpos == wlen && glen == 0)
			break;
		if (wpos == wlen) {
			snprintf(why, size, "the log has more than expected: "
			    "%zu+ extra bytes at offset %llu, starting "
			    "%02x %02x %02x", glen, (unsigned long long)off,
			    (unsigned char)got[0],
			    (unsigned char)(glen > 1 ? got[1] : 0),
			    (unsigned char)(glen > 2 ? got[2] : 0));
			close(fd);
			return 0;
		}
		if (glen == 0) {
			snprintf(why, size, "the log ends at offset %llu, "
			    "short of the expected output",
			    (unsigned long long)off);
			close(fd);
			return 0;
		}
		k = wlen - wpos < glen - gpos ? wlen - wpos : glen - gpos;
		for (i = 0; i < k; i++) {
			if (want[wpos + i] == got[gpos + i])
				continue;
			snprintf(why, size, "the log differs at offset %llu: "
			    "expected byte %02x, found %02x",
			    (unsigned long long)(off + i),
			    (unsigned char)want[wpos + i],
			    (unsigned char)got[gpos + i]);
			close(fd);
			return 0;
		}
		wpos += k;
		gpos += k;
		off += k;
	}
	close(fd);
	return 1;
}

/*
 * Wait up to ms for text inside r (NULL: anywhere) while sampling the
 * deck's memory and checking that it lives; return 1 if the text came.
 */
static int
fault_wait_deck(struct fault *f, const struct term_rect *r, const char *text,
    int ms)
{
	int64_t	deadline = term_now_ms() + ms;

	for (;;) {
		fault_sample_rss(f);
		if (term_find_in(f->t, r, text, NULL, NULL))
			return 1;
		if (!term_pid_alive(f->deck) || term_now_ms() >= deadline)
			return 0;
		term_pump(f->t, 100);
	}
}

/* Fail unless the deck is alive, with what it was doing and its status. */
static void
fault_expect_alive(struct fault *f, const char *doing)
{
	int	status = 0;

	if (term_pid_alive(f->deck))
		return;
	term_wait_exit(f->t, 1000, &status);
	ck_abort_msg("jobdeck died %s: %s %d\n%s", doing,
	    WIFSIGNALED(status) ? "killed by signal" : "exit status",
	    WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
	    fault_dump(f));
}

/*
 * After an ordeal: jobdeck is alive, its memory stayed under the bound,
 * and it still runs a new job and shows its output.
 */
static void
fault_expect_works(struct fault *f, const char *after)
{
	long	hwm;

	fault_expect_alive(f, after);
	hwm = fault_status_kb(f->deck, "VmHWM:");
	if (hwm > f->peak_kb)
		f->peak_kb = hwm;
	ck_assert_msg(f->asan || f->peak_kb < RSS_MAX_KB, "jobdeck's memory "
	    "grew to %ld kB (VmHWM) %s; the bound is %d kB", f->peak_kb,
	    after, RSS_MAX_KB);
	fault_run(f, "echo ok-''after");
	ck_assert_msg(term_wait_text_in(f->t, &pane, "ok-after", WAIT_MS),
	    "after %s, a new job `echo ok-after` did not show its output\n%s",
	    after, fault_dump(f));
	fault_expect_alive(f, after);
}

/* !quit, then no process of the deck may be left. */
static void
fault_quit_clean(struct fault *f, const char *after)
{
	char	left[4096];
	int	status;

	fault_note_sessions(f);
	if (term_find(f->t, "[Focused]", NULL, NULL)) {
		term_key(f->t, TERM_KEY_CTRL_T);
		ck_assert_msg(term_wait_gone(f->t, "[Focused]", WAIT_MS),
		    "Ctrl+T did not leave focus mode\n%s", fault_dump(f));
	}
	fault_run(f, "!quit");
	ck_assert_msg(term_wait_exit(f->t, 20000, &status),
	    "jobdeck did not exit within 20 s of !quit (%s)\n%s", after,
	    fault_dump(f));
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "!quit after %s: wait status 0x%x, not exit 0", after, status);
	ck_assert_msg(fault_survivors(f, 3000, left, sizeof left) == 0,
	    "processes of jobdeck survived !quit after %s:\n%s", after, left);
}

/*
 * Expect the warning on the screen to give its reason in words; the
 * message line is quoted in the report either way.
 */
static void
fault_expect_reason(struct fault *f, const char *reason, const char *what)
{
	char	line[512];

	snprintf(line, sizeof line, "%s", term_text_in(f->t, &bottom));
	fault_note("%s: message line: \"%s\"", what, line);
	ck_assert_msg(term_find(f->t, reason, NULL, NULL), "%s: the warning "
	    "does not show its reason \"%s\"; the message line reads "
	    "\"%s\" (cut at the screen's edge?)\n%s", what, reason, line,
	    fault_dump(f));
}

/*
 * Enter a mount namespace of this test's own, with mounts private to it;
 * return 0, or -1 after saying why the test is skipped.
 */
static int
fault_enter_namespace(const char *test)
{
	const char	*fork_mode = getenv("CK_FORK");

	if (geteuid() != 0) {
		TEST_SKIP_LINE("%s: needs root to mount", test);
		return -1;
	}
	if (fork_mode != NULL && strcmp(fork_mode, "no") == 0) {
		TEST_SKIP_LINE("%s: CK_FORK=no would leak the mounts", test);
		return -1;
	}
	if (unshare(CLONE_NEWNS) == -1 ||
	    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1) {
		TEST_SKIP_LINE("%s: no mount namespace: %s", test,
		    strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The exit matrix: every way of leaving jobdeck, each with the same set of
 * hostile jobs at once.  The jobs are scripts in the private directory,
 * started from a configuration with kill_timeout = GRACE_S; each writes
 * its pid (and its children's) to files in the deck's directory.
 */
static const struct {
	const char	*name;
	int		 signo;		/* 0: !quit, -1: the terminal closes */
} exit_ways[] = {
	{ "!quit", 0 },
	{ "SIGTERM", SIGTERM },
	{ "SIGHUP", SIGHUP },
	{ "SIGINT", SIGINT },
	{ "hangup", -1 },
};

static const struct {
	const char	*file;		/* script name */
	const char	*text;		/* its body */
	int		 pty;		/* 0: pty = false in the config */
	const char	*pids[3];	/* pid files it writes */
} exit_jobs[] = {
	/* Ignores the signals that ask a job to stop. */
	{ "stubborn.sh",
	  "trap '' TERM HUP INT\n"
	  "echo $$ > stubborn\n"
	  "while :; do sleep 1; done\n", 1, { "stubborn" } },
	/* Background children, one of them stubborn too. */
	{ "bgkids.sh",
	  "sleep 1000 & echo $! > bg1\n"
	  "(trap '' TERM HUP INT; exec sleep 1001) & echo $! > bg2\n"
	  "echo $$ > bgkids\n"
	  "wait\n", 1, { "bgkids", "bg1", "bg2" } },
	/* Leaves the job's session and ignores everything. */
	{ "escape.sh",
	  "setsid sh -c 'trap \"\" TERM HUP INT; echo $$ > esc; "
	  "exec sleep 1002' &\n"
	  "while [ ! -s esc ]; do sleep 0.05; done\n"
	  "echo $$ > escjob\n"
	  "wait\n", 1, { "escjob", "esc" } },
	/* A daemon: double fork into a new session; the middle one exits. */
	{ "daemon.sh",
	  "setsid sh -c 'trap \"\" TERM HUP INT; sleep 1003 & "
	  "echo $! > daemon' &\n"
	  "while [ ! -s daemon ]; do sleep 0.05; done\n"
	  "echo $$ > daemonjob\n"
	  "exec sleep 1004\n", 1, { "daemonjob", "daemon" } },
	/* Escapes twice and drops the environment (the harness's tag). */
	{ "nested.sh",
	  "env -i setsid /bin/sh -c 'trap \"\" TERM HUP INT; "
	  "setsid /bin/sh -c \"trap \\\"\\\" TERM HUP INT; "
	  "echo \\$\\$ > nest2; exec sleep 1005\" & "
	  "echo $$ > nest1; while :; do sleep 1; done' &\n"
	  "while [ ! -s nest2 ] || [ ! -s nest1 ]; do sleep 0.05; done\n"
	  "echo $$ > nestjob\n"
	  "wait\n", 1, { "nestjob", "nest1", "nest2" } },
	/* Stops itself: SIGTERM stays pending until it is continued. */
	{ "stopped.sh",
	  "echo $$ > stopped\n"
	  "kill -STOP $$\n"
	  "sleep 1000\n", 1, { "stopped" } },
	/* Keeps forking stubborn children while it is being stopped. */
	{ "spawner.sh",
	  "trap '' TERM HUP INT\n"
	  "echo $$ > spawner\n"
	  "while :; do sleep 1006 & sleep 0.1; done\n", 1, { "spawner" } },
	/* On pipes, with a stubborn background child. */
	{ "piped.sh",
	  "trap '' TERM HUP INT\n"
	  "sleep 1007 & echo $! > pipedbg\n"
	  "echo $$ > piped\n"
	  "wait\n", 0, { "piped", "pipedbg" } },
};

#define EXIT_NJOBS	(sizeof exit_jobs / sizeof exit_jobs[0])

/* Every exit way x every hostile job: nothing survives, ever. */
START_TEST(test_exit_matrix)
{
	const char	*way = exit_ways[_i].name;
	char		 cfg[8192], left[8192], *path;
	const char	*args[3];
	pid_t		 pids[EXIT_NJOBS * 3];
	size_t		 i, k, np = 0, len;
	int64_t		 t0;
	struct fault	 f;
	int		 status;

	fault_init(&f);
	/* The terminal closing (hangup) ends the deck too. */
	len = (size_t)snprintf(cfg, sizeof cfg,
	    "[settings]\nkill_timeout = %d\non_last_detach = \"quit\"\n",
	    GRACE_S);
	for (i = 0; i < EXIT_NJOBS; i++) {
		path = strdup(fault_write(&f, exit_jobs[i].file,
		    exit_jobs[i].text, strlen(exit_jobs[i].text)));
		len += (size_t)snprintf(cfg + len, sizeof cfg - len,
		    "\n[[job]]\nname = \"%.*s\"\ncommand = \"sh %s\"\n%s",
		    (int)(strchr(exit_jobs[i].file, '.') - exit_jobs[i].file),
		    exit_jobs[i].file, path,
		    exit_jobs[i].pty ? "" : "pty = false\n");
		free(path);
	}
	args[0] = "-c";
	args[1] = fault_write(&f, "config.toml", cfg, len);
	args[2] = NULL;
	fault_start(&f, args, NULL);

	for (i = 0; i < EXIT_NJOBS; i++) {
		for (k = 0; k < 3 && exit_jobs[i].pids[k] != NULL; k++) {
			pids[np] = fault_pidfile(&f, exit_jobs[i].pids[k],
			    WAIT_MS);
			FAULT_ASSERT(&f, pids[np] > 0, e2e_fmt("%s: job "
			    "%s did not write %s", way, exit_jobs[i].file,
			    exit_jobs[i].pids[k]));
			np++;
		}
	}
	EXPECT_IN(&f, &panel, e2e_fmt("Processes (%d running)",
	    (int)EXIT_NJOBS), WAIT_MS);
	/* The spawner has made a few children by now. */
	term_pump(f.t, 500);
	fault_note_sessions(&f);

	t0 = term_now_ms();
	if (exit_ways[_i].signo == 0)
		fault_run(&f, "!quit");
	else if (exit_ways[_i].signo > 0)
		kill(f.deck, exit_ways[_i].signo);
	else
		term_hangup(f.t);
	ck_assert_msg(term_wait_exit(f.t, GRACE_S * 1000 + 10000, &status),
	    "%s: jobdeck did not exit within %d ms\n%s", way,
	    GRACE_S * 1000 + 10000, fault_dump(&f));
	fault_note("exit %s: jobdeck exited after %lld ms, status 0x%x", way,
	    (long long)(term_now_ms() - t0), status);
	ck_assert_msg(!WIFSIGNALED(status), "%s: jobdeck was killed by "
	    "signal %d", way, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	if (exit_ways[_i].signo == 0)
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		    "%s: exit status %d, not 0", way, WEXITSTATUS(status));
	else if (exit_ways[_i].signo > 0)
		ck_assert_msg(WIFEXITED(status) &&
		    WEXITSTATUS(status) == 128 + exit_ways[_i].signo,
		    "%s: exit status %d, not %d", way, WEXITSTATUS(status),
		    128 + exit_ways[_i].signo);
	if (exit_ways[_i].signo >= 0)
		FAULT_ASSERT(&f, !term_find(f.t, "Processes (", NULL, NULL),
		    e2e_fmt("%s: the terminal was not restored", way));
	ck_assert_msg(fault_survivors(&f, 3000, left, sizeof left) == 0,
	    "%s: processes of jobdeck survived it (of %zu pid files; "
	    "sessions watched: %zu):\n%s", way, np, f.nsids, left);
	for (i = 0; i < np; i++)
		ck_assert_msg(!term_pid_alive(pids[i]), "%s: pid %ld "
		    "survived", way, (long)pids[i]);
	fault_end(&f);
}
END_TEST

/*
 * A job prints FLOOD_MB MiB as fast as it can while a focused cat answers
 * keys: jobdeck's memory stays bounded, keys are echoed while the flood
 * goes on (not after it: their latency is noted, a speed for make bench),
 * and the log holds every byte (the 64-byte lines of yes, each \n logged
 * as \r\n).
 */
START_TEST(test_flood)
{
	static const char line[] =
	    "flood 0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRS\n";
	struct fault_src src;
	struct fault	 f;
	const char	*env_mb, *log;
	char		 cmd[256], key[16], why[512];
	uint64_t	 bytes, logged;
	int64_t		 t0, now, next_key, t1, lat, lat_max = 0;
	int64_t		 lat_sum = 0, grown_at;
	double		 secs;
	off_t		 size, grown = -1;
	long		 mb = FLOOD_MB;
	int		 nkeys = 0, during = 0, done = 0, notty = -1;
	const char	*args[3];
	static const char cfg[] = "[settings]\nmax_log_size = 4096\n";

	fault_init(&f);
	/* A cap of 4 GiB: segments of 1 GiB, so out.0 holds every byte. */
	args[0] = "-c";
	args[1] = fault_write(&f, "config.toml", cfg, sizeof cfg - 1);
	args[2] = NULL;
	fault_start(&f, args, NULL);
	/* AddressSanitizer makes jobdeck several times slower. */
	if (f.asan)
		mb = FLOOD_MB / 8;
	env_mb = getenv("FAULT_FLOOD_MB");
	if (env_mb != NULL && atol(env_mb) > 0)
		mb = atol(env_mb);
	bytes = (uint64_t)mb << 20;
	bytes -= bytes % (sizeof line - 1);
	logged = bytes / (sizeof line - 1) * sizeof line;
	fault_run(&f, "cat");
	EXPECT_IN(&f, &pane_title, "[1] cat", WAIT_MS);
	snprintf(cmd, sizeof cmd, "yes '%.*s' | head -c %llu",
	    (int)sizeof line - 2, line, (unsigned long long)bytes);
	fault_run(&f, cmd);
	t0 = term_now_ms();
	fault_run(&f, "!focus 1");
	EXPECT_IN(&f, &pane_title, "[Focused]", WAIT_MS);
	EXPECT_IN(&f, &pane_title, "[1] cat", WAIT_MS);
	log = fault_log_path(&f, 2);

	next_key = grown_at = term_now_ms();
	while (!done) {
		now = term_now_ms();
		fault_sample_rss(&f);
		fault_expect_alive(&f, "during the flood");
		size = fault_file_size(log);
		if (size >= 0 && (uint64_t)size >= logged)
			done = 1;
		/* However slow the machine, the log grows. */
		if (size > grown) {
			grown = size;
			grown_at = now;
		}
		ck_assert_msg(now - grown_at < FLOOD_STALL_MS, "the flood's "
		    "log did not grow for %d ms: %lld of %llu bytes logged\n%s",
		    FLOOD_STALL_MS, (long long)size,
		    (unsigned long long)logged, fault_dump(&f));
		if (!done && now >= next_key) {
			snprintf(key, sizeof key, "k%03d", nkeys++);
			t1 = term_now_ms();
			term_type(f.t, key);
			ck_assert_msg(term_wait_text_in(f.t, &pane, key,
			    ECHO_WAIT_MS), "the focused cat did not echo %s "
			    "within %d ms during the flood\n%s", key,
			    ECHO_WAIT_MS, fault_dump(&f));
			lat = term_now_ms() - t1;
			/* Echoed while the flood is still being read? */
			size = fault_file_size(log);
			if (size >= 0 && (uint64_t)size < logged)
				during++;
			fault_echo_enter(&f, &notty, key);
			lat_sum += lat;
			if (lat > lat_max)
				lat_max = lat;
			next_key = term_now_ms() + 500;
		}
		term_pump(f.t, 50);
	}
	secs = (double)(term_now_ms() - t0) / 1000;
	EXPECT_IN(&f, &panel, "✓ Done", WAIT_MS);
	fault_expect_alive(&f, "after the flood");
	fault_sample_rss(&f);
	f.peak_kb = fault_status_kb(f.deck, "VmHWM:") > f.peak_kb ?
	    fault_status_kb(f.deck, "VmHWM:") : f.peak_kb;
	fault_note("flood: %llu bytes (%ld MiB) in %.1f s, %.1f MB/s; peak "
	    "RSS %ld kB%s; echo %d keys (%d during the flood), max %lld ms, "
	    "mean %lld ms", (unsigned long long)bytes, mb, secs,
	    bytes / secs / 1e6, f.peak_kb,
	    f.asan ? " (AddressSanitizer: not bounded)" : "",
	    nkeys, during, (long long)lat_max,
	    (long long)(nkeys > 0 ? lat_sum / nkeys : 0));
	ck_assert_msg(nkeys > 0, "the flood ended before a key was typed");
	ck_assert_msg(during > 0, "none of %d keys was echoed before the "
	    "flood had been read: the keyboard waited for the flood", nkeys);
	ck_assert_msg(f.asan || f.peak_kb < RSS_MAX_KB, "jobdeck's memory "
	    "grew to %ld kB during the flood (bound %d kB)", f.peak_kb,
	    RSS_MAX_KB);

	memset(&src, 0, sizeof src);
	src.fd = -1;
	src.line = line;
	src.linelen = sizeof line - 1;
	src.left = bytes;
	ck_assert_msg(fault_log_compare(log, &src, NULL, why, sizeof why),
	    "the flood's log %s is not the job's output: %s", log, why);
	fault_quit_clean(&f, "the flood");
	fault_end(&f);
}
END_TEST

/*
 * Hostile output: a fixture written by the test, cat'ed by a job, then a
 * reset and an end marker that must show; jobdeck must live, stay bounded
 * and still run jobs.
 */
static void
fault_hostile(const char *what, const void *data, size_t len, int check_log)
{
	struct fault_src src;
	struct fault	 f;
	const char	*path;
	char		 cmd[PATH_MAX + 128], why[512], trailer[64];
	int64_t		 t0;

	fault_init(&f);
	path = fault_write(&f, "fixture", data, len);
	fault_start(&f, NULL, NULL);
	/* -echo: replies jobdeck's emulator sends the job are not echoed. */
	snprintf(cmd, sizeof cmd, "stty -echo; cat %s; "
	    "printf '\\030\\033\\\\\\033c'; echo %s-''end; sleep 1000", path,
	    what);
	t0 = term_now_ms();
	fault_run(&f, cmd);
	snprintf(trailer, sizeof trailer, "%s-end", what);
	ck_assert_msg(fault_wait_deck(&f, &pane, trailer, 60000), "after %s "
	    "(%zu bytes), the job's end marker \"%s\" did not show within "
	    "60 s\n%s", what, len, trailer, fault_dump(&f));
	fault_note("%s: %zu bytes shown in %lld ms, peak RSS %ld kB", what,
	    len, (long long)(term_now_ms() - t0), f.peak_kb);
	fault_expect_works(&f, what);
	if (check_log) {
		memset(&src, 0, sizeof src);
		src.fd = open(path, O_RDONLY | O_CLOEXEC);
		ck_assert_int_ge(src.fd, 0);
		snprintf(trailer, sizeof trailer, "\030\033\\\033c%s-end\r\n",
		    what);
		ck_assert_msg(fault_log_compare(fault_log_path(&f, 1), &src,
		    trailer, why, sizeof why), "%s: the log is not the job's "
		    "output: %s", what, why);
		close(src.fd);
	}
	fault_quit_clean(&f, what);
	fault_end(&f);
}

/* A few MB from /dev/urandom, byte for byte into the log. */
START_TEST(test_hostile_random)
{
	size_t	 len = 4 << 20, got = 0;
	ssize_t	 n;
	char	*buf;
	int	 fd;

	buf = malloc(len);
	ck_assert_ptr_nonnull(buf);
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	while (got < len && (n = read(fd, buf + got, len - got)) > 0)
		got += (size_t)n;
	close(fd);
	ck_assert_uint_eq(got, len);
	fault_hostile("random", buf, len, 1);
	free(buf);
}
END_TEST

/*
 * Invalid UTF-8 of every kind, repeated: overlong forms, surrogates,
 * beyond U+10FFFF, lone continuation bytes, 5- and 6-byte forms, cut
 * sequences, bytes never valid, and C1 controls encoded in UTF-8 (an
 * 8-bit CSI and OSC among them); it ends on a cut sequence.
 */
START_TEST(test_hostile_utf8)
{
	static const char piece[] =
	    "\xc0\x80" "\xc1\xbf" "\xe0\x80\x80" "\xf0\x80\x80\x80"
	    "\xed\xa0\x80" "\xed\xbf\xbf" "\xf4\x90\x80\x80" "\xf5\x80"
	    "\x80\xbf\x80" "\xf8\x88\x80\x80\x80" "\xfc\x84\x80\x80\x80\x80"
	    "\xe2\x82" "A" "\xf0\x9f\x98" "B" "\xfe\xff" "\xef\xbf\xbf"
	    "\xef\xbb\xbf" "\xc2\x9b" "31m" "\xc2\x9d" "0;t\xc2\x9c"
	    "\xcc\x81\xcc\x81\xcc\x81" "\xe2\x80\x8b" "\xf3\xa0\x80\x81"
	    "\xe6\x97\xa5" "\r\n";
	size_t	 n = 20000, len = n * (sizeof piece - 1) + 3, i;
	char	*buf;

	buf = malloc(len);
	ck_assert_ptr_nonnull(buf);
	for (i = 0; i < n; i++)
		memcpy(buf + i * (sizeof piece - 1), piece, sizeof piece - 1);
	memcpy(buf + len - 3, "\xf0\x9f\x98", 3);
	fault_hostile("utf8", buf, len, 1);
	free(buf);
}
END_TEST

/*
 * An unterminated string of HUGE_STRING bytes (OSC or DCS), then the
 * terminator and a marker that must show; memory stays bounded.
 */
static void
fault_huge_string(const char *what, const char *intro, const char *end)
{
	struct fault	f;
	char		cmd[256], marker[64];
	int64_t		t0;
	double		secs;

	fault_init(&f);
	fault_start(&f, NULL, NULL);
	snprintf(cmd, sizeof cmd, "printf '%s'; head -c %d /dev/zero | "
	    "tr '\\0' A; printf '%s'; echo %s-''end; sleep 1000", intro,
	    HUGE_STRING, end, what);
	t0 = term_now_ms();
	fault_run(&f, cmd);
	snprintf(marker, sizeof marker, "%s-end", what);
	ck_assert_msg(fault_wait_deck(&f, &pane, marker, 90000), "after an "
	    "unterminated %s of %d bytes, \"%s\" did not show within 90 s "
	    "(peak RSS %ld kB)\n%s", what, HUGE_STRING, marker, f.peak_kb,
	    fault_dump(&f));
	secs = (double)(term_now_ms() - t0) / 1000;
	fault_expect_works(&f, e2e_fmt("an unterminated %s", what));
	fault_note("%s: %d bytes in %.1f s, peak RSS %ld kB", what,
	    HUGE_STRING, secs, f.peak_kb);
	ck_assert_msg(fault_run_bytes(&f, 1) >= HUGE_STRING,
	    "the log of the %s job holds %lld bytes, not all %d", what,
	    (long long)fault_run_bytes(&f, 1), HUGE_STRING);
	fault_quit_clean(&f, what);
	fault_end(&f);
}

/* An unterminated OSC (window title) of 100 MB. */
START_TEST(test_hostile_osc)
{
	fault_huge_string("osc", "\\033]0;", "\\007");
}
END_TEST

/* An unterminated DCS of 100 MB. */
START_TEST(test_hostile_dcs)
{
	fault_huge_string("dcs", "\\033P1;2q", "\\033\\\\");
}
END_TEST

/*
 * 10,000 SGRs: 10,000 pushes of the pen (XTPUSHSGR) never popped, one CSI
 * with 10,000 parameters, and 10,000 SGRs in a row with a letter each.
 */
START_TEST(test_hostile_sgr)
{
	char	*buf, *p;
	size_t	 size = 1 << 20;
	int	 i;

	buf = malloc(size);
	ck_assert_ptr_nonnull(buf);
	p = buf;
	for (i = 0; i < 10000; i++)
		p += sprintf(p, "\033[#{\033[%d;1;4;7m", 31 + i % 7);
	p += sprintf(p, "pushed\r\n\033[");
	for (i = 0; i < 10000; i++)
		p += sprintf(p, "%d;", i % 108);
	p += sprintf(p, "38;2;1;2;3mparams\r\n");
	for (i = 0; i < 10000; i++)
		p += sprintf(p, "\033[38;5;%d;48;2;%d;%d;%dm%c", i % 256,
		    i % 256, (i * 7) % 256, (i * 13) % 256, 'a' + i % 26);
	p += sprintf(p, "\r\n");
	for (i = 0; i < 10000; i++)
		p += sprintf(p, "\033[#}");
	fault_hostile("sgr", buf, (size_t)(p - buf), 1);
	free(buf);
}
END_TEST

/*
 * Cursor moves and edits far off the screen: huge CUP, CUU/CUD/CUF/CUB,
 * scroll regions out of range or upside down, left/right margins, ICH,
 * DCH, IL, DL, ECH, REP, SU, SD, tabs, counts past 2^32, a window resize
 * request, DECALN and the alternate screen; 100 rounds.
 */
START_TEST(test_hostile_cursor)
{
	static const char round[] =
	    "\033[99999;99999H" "X" "\033[99999A" "\033[99999B"
	    "\033[99999C" "\033[99999D" "\033[99999E" "\033[99999F"
	    "\033[99999G" "\033[99999d" "\033[99999`" "\033[99999a"
	    "\033[99999e" "\033[1;99999r" "\033[99999;99999r"
	    "\033[30;5r" "\033[0;0r" "\033[5;30r" "\033[99999L"
	    "\033[99999M" "\033[?69h" "\033[1;99999s" "\033[99999;2s"
	    "Y\033[99999@" "\033[99999P" "\033[99999X" "Z\033[99999b"
	    "\033[99999S" "\033[99999T" "\033[99999I" "\033[99999Z"
	    "\033[4294967295;4294967296H" "\033[18446744073709551617C"
	    "\033[8;99999;99999t" "\033#8" "\033[?1049h" "\033[99999;1H"
	    "\033[2J" "\033[?1049l" "\033[?6h" "\033[99999;99999H"
	    "\033[?6l" "\033[?69l" "\033[r" "\033[99999;99999f"
	    "\033[99999J" "\033[99999K" "\033[99999;99999;99999H"
	    "\033[H\xe6\x97\xa5\033[99999@" "\033[1;80H\xe6\x97\xa5"
	    "\033[99999P" "\033[99999X" "\033[2J\033[H";
	size_t	 n = 100, len = n * (sizeof round - 1), i;
	char	*buf;

	buf = malloc(len);
	ck_assert_ptr_nonnull(buf);
	for (i = 0; i < n; i++)
		memcpy(buf + i * (sizeof round - 1), round, sizeof round - 1);
	fault_hostile("cursor", buf, len, 1);
	free(buf);
}
END_TEST

/*
 * A resize storm while a job floods: the outer terminal takes 300 sizes,
 * tiny ones included, as fast as the harness can; then jobdeck is back at
 * 120x40 with the whole frame drawn and still runs jobs.
 */
START_TEST(test_hostile_resize_storm)
{
	static const int sizes[][2] = {
		{ 24, 80 }, { 2, 2 }, { 5, 10 }, { 100, 300 }, { 3, 200 },
		{ 200, 3 }, { 40, 120 }, { 2, 120 }, { 40, 2 }, { 17, 41 },
		{ 60, 250 }, { 10, 30 },
	};
	struct fault	f;
	int64_t		t0;
	int		i;

	fault_init(&f);
	fault_start(&f, NULL, NULL);
	fault_run(&f, "yes 'storm of output, line after line'");
	EXPECT_IN(&f, &pane, "storm of output", WAIT_MS);
	fault_run(&f, "while :; do stty size; sleep 0.05; done");
	EXPECT_IN(&f, &panel, "Processes (2 running)", WAIT_MS);
	/* The flood is drawn during the storm. */
	term_key(f.t, TERM_KEY_CTRL_P);
	EXPECT_IN(&f, &pane_title, "[1] yes", WAIT_MS);
	t0 = term_now_ms();
	for (i = 0; i < 300; i++) {
		term_resize(f.t, sizes[i % 12][0], sizes[i % 12][1]);
		if (i % 10 == 0) {
			fault_sample_rss(&f);
			fault_expect_alive(&f, e2e_fmt("during the resize "
			    "storm (resize %d to %dx%d)", i, sizes[i % 12][1],
			    sizes[i % 12][0]));
		}
	}
	term_resize(f.t, TERM_ROWS, TERM_COLS);
	fault_note("resize storm: 300 resizes in %lld ms, peak RSS %ld kB",
	    (long long)(term_now_ms() - t0), f.peak_kb);
	EXPECT_IN(&f, &panel, "Processes (2 running)", WAIT_MS);
	/* The stty job sees the pane's size again. */
	term_key(f.t, TERM_KEY_CTRL_N);
	EXPECT_IN(&f, &pane_title, "[2] while", WAIT_MS);
	EXPECT_IN(&f, &pane, "37 78", WAIT_MS);
	fault_run(&f, "!kill 1");
	EXPECT_IN(&f, &panel, "Processes (1 running)", WAIT_MS);
	fault_expect_works(&f, "the resize storm");
	fault_quit_clean(&f, "the resize storm");
	fault_end(&f);
}
END_TEST

/* MANY_JOBS jobs at once from a generated configuration; all die after. */
START_TEST(test_many_jobs)
{
	struct fault	 f;
	const char	*args[3];
	char		*cfg, want[64];
	size_t		 len = 0, size = MANY_JOBS * 64 + 64;
	int64_t		 t0;
	int		 i, fds;

	fault_init(&f);
	cfg = malloc(size);
	ck_assert_ptr_nonnull(cfg);
	for (i = 1; i <= MANY_JOBS; i++)
		len += (size_t)snprintf(cfg + len, size - len,
		    "[[job]]\nname = \"s%d\"\ncommand = \"sleep 1000\"\n\n",
		    i);
	args[0] = "-c";
	args[1] = fault_write(&f, "config.toml", cfg, len);
	args[2] = NULL;
	free(cfg);
	t0 = term_now_ms();
	fault_start(&f, args, NULL);
	snprintf(want, sizeof want, "Processes (%d running)", MANY_JOBS);
	ck_assert_msg(fault_wait_deck(&f, &panel, want, 60000), "\"%s\" did "
	    "not show within 60 s\n%s", want, fault_dump(&f));
	fds = fault_count_fds(f.deck);
	fault_note("many jobs: %d running after %lld ms; jobdeck holds %d "
	    "fds, RSS %ld kB", MANY_JOBS, (long long)(term_now_ms() - t0),
	    fds, fault_sample_rss(&f));
	fault_run(&f, "!ps");
	EXPECT_IN(&f, NULL, "COMMAND", WAIT_MS);
	term_key(f.t, TERM_KEY_END);
	EXPECT_IN(&f, NULL, "s500", WAIT_MS);
	term_type(f.t, "q");
	EXPECT_IN(&f, &panel, want, WAIT_MS);
	fault_expect_works(&f, e2e_fmt("%d jobs", MANY_JOBS));
	t0 = term_now_ms();
	fault_quit_clean(&f, e2e_fmt("%d jobs", MANY_JOBS));
	fault_note("many jobs: !quit took %lld ms",
	    (long long)(term_now_ms() - t0));
	fault_end(&f);
}
END_TEST

/*
 * Out of file descriptors: the deck's limit is lowered (hard and soft,
 * with prlimit) to a few above what it holds, then jobs are started until
 * none can be; each must fail with a message or fall back, never crash,
 * and the deck must recover once jobs end.
 */
START_TEST(test_fd_exhaustion)
{
	enum { EXTRA = 8, TRIES = 12 };
	struct fault	 f;
	struct rlimit	 rl;
	char		 cmd[64], want[64], first[256] = "";
	const char	*msg;
	int		 base, i, shown = 0, failed = 0;

	fault_init(&f);
	fault_start(&f, NULL, NULL);
	fault_run(&f, "echo warm-up");
	EXPECT_IN(&f, &pane, "warm-up", WAIT_MS);
	EXPECT_IN(&f, &panel, "✓ Done", WAIT_MS);
	base = fault_count_fds(f.deck);
	rl.rlim_cur = rl.rlim_max = (rlim_t)base + EXTRA;
	ck_assert_msg(prlimit(f.deck, RLIMIT_NOFILE, &rl, NULL) == 0,
	    "prlimit: %s", strerror(errno));
	/* Short commands, so the message line has room for the reason. */
	for (i = 1; i <= TRIES; i++) {
		snprintf(cmd, sizeof cmd, "echo s''%d;sleep 999", i);
		fault_run(&f, cmd);
		term_pump(f.t, 150);
		fault_expect_alive(&f, e2e_fmt("starting job %d with %d "
		    "fds allowed", i, base + EXTRA));
		msg = term_text_in(f.t, &bottom);
		if (strstr(msg, "cannot start") != NULL) {
			failed++;
			if (first[0] == '\0')
				snprintf(first, sizeof first, "%s", msg);
		}
	}
	term_pump(f.t, 500);
	for (i = 1; i <= TRIES; i++) {
		snprintf(want, sizeof want, "Last output: s%d ", i);
		if (term_find_in(f.t, &panel, want, NULL, NULL))
			shown++;
	}
	fault_note("fd exhaustion: limit %d (jobdeck held %d); %d of %d jobs "
	    "ran, %d could not start; jobdeck holds %d fds", base + EXTRA,
	    base, shown, TRIES, failed, fault_count_fds(f.deck));
	fault_note("fd exhaustion: first message: \"%s\"", first);
	FAULT_ASSERT(&f, fault_count_fds(f.deck) <= base + EXTRA,
	    "jobdeck holds more fds than its limit");
	FAULT_ASSERT(&f, shown > 0, "no job ran under the lowered limit");
	/* The jobs that could not start said why, in words. */
	FAULT_ASSERT(&f, strstr(first, "Too many open files") != NULL ||
	    term_count_in(f.t, &panel, "no terminal") > 0,
	    e2e_fmt("with no file descriptors left, starting a job neither "
	    "says \"Too many open files\" nor falls back to pipes (\"no "
	    "terminal\"); first message: \"%s\"", first));
	fault_run(&f, "!logs 2");
	term_pump(f.t, 500);
	fault_expect_alive(&f, "!logs with no fds left");
	snprintf(want, sizeof want, "%.31s", term_row_text(f.t, 0));
	fault_note("fd exhaustion: !logs 2 shows \"%s...\"; message line: "
	    "\"%s\"", want, term_text_in(f.t, &bottom));
	term_type(f.t, "q");
	term_pump(f.t, 200);
	fault_run(&f, "!kill-all");
	EXPECT_IN(&f, &panel, "Processes (0 running)", 15000);
	fault_expect_works(&f, "running out of file descriptors");
	fault_note("fd exhaustion: after !kill-all jobdeck holds %d fds",
	    fault_count_fds(f.deck));
	fault_quit_clean(&f, "running out of file descriptors");
	fault_end(&f);
}
END_TEST

/*
 * Out of pseudo-terminals: a devpts instance of this test's own with room
 * for the harness and PTYS_FREE more; later jobs fall back to pipes.
 */
START_TEST(test_pty_exhaustion)
{
	enum { PTYS_FREE = 3, JOBS = 6 };
	struct fault	f;
	char		opts[128], cmd[64], want[32];
	int		i;

	fault_init(&f);
	if (fault_enter_namespace("pty exhaustion") != 0) {
		fault_end(&f);
		return;
	}
	snprintf(opts, sizeof opts, "newinstance,ptmxmode=0666,mode=0620,"
	    "max=%d", 1 + PTYS_FREE);
	ck_assert_msg(mount("devpts", "/dev/pts", "devpts", 0, opts) == 0,
	    "mount devpts: %s", strerror(errno));
	ck_assert_msg(mount("/dev/pts/ptmx", "/dev/ptmx", NULL, MS_BIND,
	    NULL) == 0, "bind /dev/ptmx: %s", strerror(errno));
	fault_start(&f, NULL, NULL);
	for (i = 1; i <= JOBS; i++) {
		snprintf(cmd, sizeof cmd, "echo pty-job-%d; sleep 1000", i);
		fault_run(&f, cmd);
		snprintf(want, sizeof want, "pty-job-%d", i);
		ck_assert_msg(term_wait_text_in(f.t, &pane, want, WAIT_MS),
		    "job %d (%d ptys free) did not show its output\n%s",
		    i, PTYS_FREE, fault_dump(&f));
	}
	EXPECT_IN(&f, &panel, e2e_fmt("Processes (%d running)", JOBS),
	    WAIT_MS);
	fault_note("pty exhaustion: %d of %d jobs say \"no terminal\"; "
	    "message line: \"%s\"", term_count_in(f.t, &panel, "no terminal"),
	    JOBS, term_text_in(f.t, &bottom));
	ck_assert_msg(term_wait_count_in(f.t, &panel, "no terminal",
	    JOBS - PTYS_FREE, WAIT_MS), "with %d ptys free, %d of %d jobs "
	    "should run on pipes (\"no terminal\")\n%s", PTYS_FREE,
	    JOBS - PTYS_FREE, JOBS, fault_dump(&f));
	fault_run(&f, "!kill 1");
	EXPECT_IN(&f, &panel, e2e_fmt("Processes (%d running)", JOBS - 1),
	    WAIT_MS);
	/* The freed pty is used again. */
	fault_run(&f, "tty");
	EXPECT_IN(&f, &pane, "/dev/pts/", WAIT_MS);
	fault_expect_works(&f, "running out of ptys");
	fault_quit_clean(&f, "running out of ptys");
	fault_end(&f);
}
END_TEST

/*
 * The log directory on a full file system (a 64 KiB tmpfs): logging stops
 * with a warning; the job goes on and its output shows; jobdeck runs on.
 */
START_TEST(test_log_fs_full)
{
	struct fault	 f;
	char		 state[PATH_MAX], envv[PATH_MAX + 32];
	const char	*env[2];

	fault_init(&f);
	if (fault_enter_namespace("full file system") != 0) {
		fault_end(&f);
		return;
	}
	snprintf(state, sizeof state, "%s/full", f.dir);
	ck_assert_int_eq(mkdir(state, 0700), 0);
	ck_assert_msg(mount("tmpfs", state, "tmpfs", 0, "size=64k,mode=0700")
	    == 0, "mount tmpfs: %s", strerror(errno));
	snprintf(f.mnt, sizeof f.mnt, "%s", state);
	snprintf(envv, sizeof envv, "XDG_STATE_HOME=%s", state);
	env[0] = envv;
	env[1] = NULL;
	fault_start(&f, NULL, env);
	fault_run(&f, "head -c 1000000 /dev/zero | tr '\\0' x; echo; "
	    "echo still-''running; sleep 1000");
	EXPECT_IN(&f, &pane, "still-running", 15000);
	EXPECT_IN(&f, NULL, "is not logged", WAIT_MS);
	fault_expect_reason(&f, "No space left on device", "full file system");
	EXPECT_IN(&f, &panel, "◉ Active", WAIT_MS);
	fault_expect_works(&f, "the log file system filled up");
	fault_quit_clean(&f, "the log file system filled up");
	fault_end(&f);
}
END_TEST

/*
 * A state directory that cannot hold logs: under a regular file, on a
 * read-only file system, owned by another user; and a missing one, which
 * is made.  The job's output shows, the warning names the problem, and
 * jobdeck runs on.
 */
static const struct {
	const char	*name;
	const char	*error;		/* in the warning; NULL: logs work */
} state_cases[] = {
	{ "under a file", "Not a directory" },
	{ "read-only", "Read-only file system" },
	{ "another owner", "not owned by this user" },
	{ "missing", NULL },
};

/* A log directory that cannot be used (state_cases[_i]) stops nothing. */
START_TEST(test_state_dir)
{
	const char	*name = state_cases[_i].name, *env[2];
	struct fault	 f;
	char		 state[256], envv[300], sub[PATH_MAX];

	fault_init(&f);
	switch (_i) {
	case 0:
		fault_write(&f, "afile", "x", 1);
		snprintf(state, sizeof state, "%s/afile/state", f.dir);
		break;
	case 1:
		if (fault_enter_namespace("read-only state directory") != 0) {
			fault_end(&f);
			return;
		}
		snprintf(state, sizeof state, "%s/ro", f.dir);
		ck_assert_int_eq(mkdir(state, 0700), 0);
		ck_assert_msg(mount("tmpfs", state, "tmpfs", MS_RDONLY,
		    "size=64k") == 0, "mount: %s", strerror(errno));
		snprintf(f.mnt, sizeof f.mnt, "%s", state);
		break;
	case 2:
		if (geteuid() != 0) {
			fault_end(&f);
			TEST_SKIP("state directory of another owner: needs "
			    "root to chown");
		}
		snprintf(state, sizeof state, "%s/other", f.dir);
		snprintf(sub, sizeof sub, "%s/jobdeck", state);
		ck_assert_int_eq(mkdir(state, 0700), 0);
		ck_assert_int_eq(mkdir(sub, 0700), 0);
		ck_assert_int_eq(chown(sub, 65534, 65534), 0);
		break;
	default:
		snprintf(state, sizeof state, "%s/no/such/dir", f.dir);
		break;
	}
	snprintf(envv, sizeof envv, "XDG_STATE_HOME=%s", state);
	env[0] = envv;
	env[1] = NULL;
	fault_start(&f, NULL, env);
	fault_run(&f, "echo visible-''output; sleep 1000");
	EXPECT_IN(&f, &pane, "visible-output", WAIT_MS);
	if (state_cases[_i].error != NULL) {
		EXPECT_IN(&f, NULL, "is not logged", WAIT_MS);
		fault_expect_reason(&f, state_cases[_i].error,
		    e2e_fmt("state directory %s", name));
	} else {
		term_pump(f.t, 300);
		snprintf(sub, sizeof sub, "%s/out.0", fault_run_dir_in(state,
		    1));
		FAULT_ASSERT(&f, fault_file_size(sub) == 16, e2e_fmt("the "
		    "missing state directory was not made: %s holds %lld "
		    "bytes, not 16", sub, (long long)fault_file_size(sub)));
	}
	EXPECT_IN(&f, &panel, "◉ Active", WAIT_MS);
	fault_expect_works(&f, e2e_fmt("a state directory %s", name));
	fault_quit_clean(&f, e2e_fmt("a state directory %s", name));
	fault_end(&f);
}
END_TEST

/* A child exits with its output still buffered: every byte is shown. */
START_TEST(test_buffered_exit)
{
	struct fault_src src;
	struct fault	 f;
	char		 why[512];

	fault_init(&f);
	fault_start(&f, NULL, NULL);
	fault_run(&f, "seq 1 100000; exit");
	EXPECT_IN(&f, &panel, "✓ Done", 30000);
	EXPECT_IN(&f, &pane, "100000", WAIT_MS);
	EXPECT_IN(&f, &panel, "Last output: 100000", WAIT_MS);
	memset(&src, 0, sizeof src);
	src.fd = -1;
	src.seq_next = 1;
	src.seq_last = 100000;
	ck_assert_msg(fault_log_compare(fault_log_path(&f, 1), &src, NULL,
	    why, sizeof why), "the log of seq 1 100000 is wrong: %s", why);
	fault_quit_clean(&f, "seq");
	fault_end(&f);
}
END_TEST

/*
 * A child closes its terminal and runs on: it shows as running (without
 * jobdeck spinning on the closed pty) and then as done.
 */
START_TEST(test_closed_pty)
{
	struct fault	f;
	long		ticks0, ticks;

	fault_init(&f);
	fault_start(&f, NULL, NULL);
	fault_run(&f, "echo closing; exec >&- 2>&- <&-; sleep 3; exit 0");
	EXPECT_IN(&f, &pane, "closing", WAIT_MS);
	term_pump(f.t, 300);
	ticks0 = fault_cpu_ticks(f.deck);
	term_pump(f.t, 1500);
	ticks = fault_cpu_ticks(f.deck) - ticks0;
	EXPECT_IN(&f, &panel, "◉ Active", 100);
	EXPECT_IN(&f, &panel, "Processes (1 running)", 100);
	fault_note("closed pty: jobdeck used %ld ticks of CPU in 1.5 s while "
	    "the job ran with its pty closed", ticks);
	ck_assert_msg(ticks < 30, "jobdeck used %ld clock ticks of CPU in "
	    "1.5 s while a job with a closed pty slept: it spins", ticks);
	EXPECT_IN(&f, &panel, "✓ Done", WAIT_MS);
	EXPECT_IN(&f, &panel, "Exited 0 after", WAIT_MS);
	fault_expect_works(&f, "a job closed its pty");
	fault_quit_clean(&f, "a job closed its pty");
	fault_end(&f);
}
END_TEST

/*
 * On pipes (JOBDECK_NO_PTY=1), a child floods stderr: the prompt stays
 * responsive (it echoes while the flood goes on: the flood, CHUNK bytes
 * at a time, ends only once the test has seen the echo and BYTES were
 * logged), the end shows, and the log holds every byte: the flood in
 * order, and stdout's done-out as a line of its own (stdout and stderr
 * are two pipes now, so where it lands among the last of the flood is
 * the order they were read in).
 */
START_TEST(test_stderr_flood)
{
	enum { BYTES = 20 * 1000 * 1000, CHUNK = 1000 * 1000 };
	const char *const env[] = { "JOBDECK_NO_PTY=1", NULL };
	struct fault	 f;
	char		 cmd[PATH_MAX + 128], stop[PATH_MAX], buf[65536];
	const char	*log;
	uint64_t	 off = 0, flood = 0;
	int64_t		 t0, t1, lat, end;
	size_t		 n, i, done = 0;
	off_t		 size;
	FILE		*fp;
	int		 ok;

	fault_init(&f);
	fault_start(&f, NULL, env);
	snprintf(stop, sizeof stop, "%s/stop", f.dir);
	snprintf(cmd, sizeof cmd, "until [ -e %s ]; do yes e | head -c %d "
	    ">&2; done; echo done-''out", stop, CHUNK);
	t0 = term_now_ms();
	fault_run(&f, cmd);
	EXPECT_IN(&f, &panel, "no terminal", WAIT_MS);
	log = fault_log_path(&f, 1);
	t1 = term_now_ms();
	term_type(f.t, "abc");
	ck_assert_msg(fault_wait_deck(&f, &bottom, "> abc", ECHO_WAIT_MS),
	    "the prompt did not echo within %d ms during a stderr flood\n%s",
	    ECHO_WAIT_MS, fault_dump(&f));
	lat = term_now_ms() - t1;
	term_key(f.t, TERM_KEY_CTRL_C);
	end = term_now_ms() + 60000;
	while ((size = fault_file_size(log)) < BYTES) {
		ck_assert_msg(term_now_ms() < end, "%lld bytes of the stderr "
		    "flood logged after 60 s\n%s", (long long)size,
		    fault_dump(&f));
		fault_expect_alive(&f, "during a stderr flood");
		term_pump(f.t, 50);
	}
	fault_write(&f, "stop", "", 0);
	ck_assert_msg(fault_wait_deck(&f, &panel, "✓ Done", 60000), "the job "
	    "did not end within 60 s of a stderr flood on pipes\n%s",
	    fault_dump(&f));
	size = fault_file_size(log);
	fault_note("stderr flood: %lld bytes on pipes in %lld ms; the prompt "
	    "echoed in %lld ms; peak RSS %ld kB", (long long)size - 9,
	    (long long)(term_now_ms() - t0), (long long)lat, f.peak_kb);

	/* Pipes: no \r is added; done-out is a whole line of its own. */
	ck_assert_msg(size >= BYTES + 9 && (size - 9) % CHUNK == 0, "the log "
	    "holds %lld bytes, not whole chunks of %d and done-out",
	    (long long)size, CHUNK);
	ok = (fp = fopen(log, "re")) != NULL;
	while (ok && (n = fread(buf, 1, sizeof buf, fp)) > 0) {
		for (i = 0; ok && i < n; i++, off++) {
			if (done > 0 && done < 9) {
				ok = buf[i] == "done-out\n"[done++];
				continue;
			}
			if (buf[i] == 'd' && done == 0 && flood % 2 == 0) {
				done = 1;
				continue;
			}
			ok = buf[i] == "e\n"[flood++ % 2];
		}
	}
	if (fp != NULL)
		fclose(fp);
	ck_assert_msg(ok && done == 9 && flood == (uint64_t)size - 9, "the "
	    "stderr flood's log differs from what the job wrote at offset %llu",
	    (unsigned long long)off);
	fault_expect_works(&f, "a stderr flood on pipes");
	fault_quit_clean(&f, "a stderr flood on pipes");
	fault_end(&f);
}
END_TEST

/*
 * Children that leave zombies: processes whose parent never waits, and
 * orphans that jobdeck (a subreaper) inherits; all are reaped.
 */
START_TEST(test_zombies)
{
	struct fault	f;
	char		zombies[1024];
	size_t		n;

	fault_init(&f);
	fault_start(&f, NULL, NULL);
	fault_run(&f, "sh -c 'sleep 0.1 & sleep 0.1 & exec sleep 1.5'");
	fault_run(&f, "i=0; while [ $i -lt 20 ]; do "
	    "sh -c 'sleep 0.1 & exec sleep 0.5' & (sleep 0.2 &); "
	    "i=$((i+1)); done; echo spawn''ed");
	EXPECT_IN(&f, &pane, "spawned", WAIT_MS);
	term_pump(f.t, 400);
	n = fault_zombies_of(f.deck, zombies, sizeof zombies);
	fault_note("zombies: %zu of jobdeck's children are zombies while "
	    "the jobs run", n);
	EXPECT_IN(&f, &panel, "Processes (0 running)", WAIT_MS);
	term_pump(f.t, 1500);
	n = fault_zombies_of(f.deck, zombies, sizeof zombies);
	ck_assert_msg(n == 0, "%zu zombies of jobdeck are left unreaped 1.5 s "
	    "after its jobs ended: pids%s\n%s", n, zombies, fault_dump(&f));
	FAULT_ASSERT(&f, term_count_in(f.t, &panel, "✓ Done") == 2,
	    "the two jobs are not both done");
	fault_expect_works(&f, "zombie-making jobs");
	fault_quit_clean(&f, "zombie-making jobs");
	fault_end(&f);
}
END_TEST

/*
 * No descriptor leaks: CYCLE_JOBS jobs that print a line and end, typed
 * at the prompt; jobdeck then holds as many fds as after the first batch.
 */
START_TEST(test_fd_cycle)
{
	enum { BATCH = 50 };
	struct fault	 f;
	char		*keys, want[64], what[1024];
	size_t		 len;
	int		 i, b, first, fifty = -1, last, id = 0;
	int64_t		 t0 = term_now_ms();

	fault_init(&f);
	fault_start(&f, NULL, NULL);
	fault_run(&f, "echo cycle-''1");
	EXPECT_IN(&f, &panel, "Last output: cycle-1", WAIT_MS);
	EXPECT_IN(&f, &panel, "Processes (0 running)", WAIT_MS);
	term_pump(f.t, 200);
	first = fault_count_fds(f.deck);
	id = 1;
	keys = malloc(BATCH * 32);
	ck_assert_ptr_nonnull(keys);
	for (b = 0; id < CYCLE_JOBS; b++) {
		len = 0;
		for (i = 0; i < BATCH && id < CYCLE_JOBS; i++) {
			id++;
			len += (size_t)sprintf(keys + len,
			    "echo cycle-''%d\r", id);
		}
		term_type(f.t, keys);
		snprintf(want, sizeof want, "[%d] echo cycle-", id);
		ck_assert_msg(fault_wait_deck(&f, NULL, want, 30000), "job %d "
		    "did not start within 30 s\n%s", id, fault_dump(&f));
		EXPECT_IN(&f, &panel, "Processes (0 running)", 30000);
		if (b == 0) {
			term_pump(f.t, 100);
			fifty = fault_count_fds(f.deck);
		}
	}
	free(keys);
	term_pump(f.t, 200);
	last = fault_count_fds(f.deck);
	fault_fd_summary(f.deck, what, sizeof what);
	fault_note("fd cycle: jobdeck holds %d fds after 1 job, %d after %d, "
	    "%d after %d (%lld ms, RSS %ld kB); they are:%s", first, fifty,
	    BATCH + 1, last, CYCLE_JOBS, (long long)(term_now_ms() - t0),
	    fault_sample_rss(&f), what);
	ck_assert_msg(last <= first, "jobdeck holds %d fds after %d jobs "
	    "started and finished, but %d after the first (%d after %d): "
	    "finished jobs keep descriptors. They are:%s", last, CYCLE_JOBS,
	    first, fifty, BATCH + 1, what);
	fault_expect_works(&f, e2e_fmt("%d jobs", CYCLE_JOBS));
	fault_quit_clean(&f, e2e_fmt("%d jobs", CYCLE_JOBS));
	fault_end(&f);
}
END_TEST

/*
 * `jobdeck run` whose stdout nobody reads (issue 10): the timeout still
 * stops a real `yes` writing as fast as it can, jobdeck ends about a
 * second later with 124 rather than waiting for the reader, and no
 * process it started outlives it.
 */
START_TEST(test_run_stalled)
{
	const char	*argv[] = { e2e_bin(), "run", "--timeout", "2", "--",
	    "yes", "x", NULL };
	struct fault	 f;
	char		 left[1024], err[256];
	int		 out[2], errp[2], st = 0, null;
	int64_t		 t0, took;
	ssize_t		 n;
	size_t		 kept;
	pid_t		 pid;

	fault_init(&f);
	ck_assert_msg(pipe2(out, O_CLOEXEC) == 0 && pipe2(errp, O_CLOEXEC) ==
	    0, "pipe: %s", strerror(errno));
	t0 = term_now_ms();
	if ((pid = fork()) == 0) {
		if ((null = open("/dev/null", O_RDONLY)) != -1)
			dup2(null, 0);
		dup2(out[1], 1);
		dup2(errp[1], 2);
		execv(argv[0], (char *const *)argv);
		_exit(99);
	}
	ck_assert_msg(pid != -1, "fork: %s", strerror(errno));
	close(out[1]);
	close(errp[1]);
	f.deck = pid;
	usleep(300000);
	fault_note_sessions(&f);	/* yes leads a session of its own */
	while ((n = waitpid(pid, &st, WNOHANG)) == 0 &&
	    term_now_ms() - t0 < 15000)
		usleep(20000);
	took = term_now_ms() - t0;
	if (n == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	n = read(errp[0], err, sizeof err - 1);
	err[n > 0 ? n : 0] = '\0';
	kept = fault_survivors(&f, 2000, left, sizeof left);
	close(out[0]);
	close(errp[0]);
	fault_note("run stalled: jobdeck run --timeout 2 -- yes x, its stdout "
	    "never read, ended after %lld ms", (long long)took);
	ck_assert_msg(took < 15000, "jobdeck run --timeout 2 still ran after "
	    "15 s with its stdout stalled");
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 124, "exit status "
	    "0x%x, not 124; stderr: %s", st, err);
	ck_assert_msg(strstr(err, "timed out after 2 s") != NULL, "stderr: %s",
	    err);
	ck_assert_msg(took < 6000, "jobdeck run took %lld ms to end after a "
	    "2 s timeout with its stdout stalled", (long long)took);
	ck_assert_msg(kept == 0, "%zu processes outlive jobdeck run:\n%s",
	    kept, left);
	fault_end(&f);
}
END_TEST

/*
 * ctl_hostile: the control socket under hostile clients.  Clients are raw
 * connections to the deck's socket (default.sock in the harness's
 * XDG_RUNTIME_DIR) and the real `jobdeck ctl`.  Keys are put into the
 * deck's terminal input with TIOCSTI (root, dev.tty.legacy_tiocsti), so
 * that the time from a key to its echo on the screen is measured to the
 * millisecond (term_type() reads the screen for 20 ms after it writes);
 * where TIOCSTI is refused, the echo bound is reported as skipped.
 */
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <poll.h>

#define CTL_READERS		10	/* clients reading the big log */
#define CTL_IDLERS		40	/* clients that never read */
#define CTL_HALF_CLOSED		140	/* events clients that leave */
#define CTL_LOG_MB		50	/* the big log */
#define CTL_RSS_MAX_KB		(40 * 1024)
#define CTL_ECHO_DURING		3	/* echoes while others wait */
#define CTL_RUN_MS		20000	/* a `jobdeck ctl` run at most */

/* Write the deck's socket path into path. */
static void
fault_ctl_sock(struct fault *f, char *path, size_t size)
{
	snprintf(path, size, "%s/run/jobdeck/default.sock", term_tmpdir(f->t));
}

/* Connect to the deck's socket (blocking); the fd. */
static int
fault_ctl_connect(struct fault *f)
{
	struct sockaddr_un	sun;
	int			fd;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	fault_ctl_sock(f, sun.sun_path, sizeof sun.sun_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ne(fd, -1);
	ck_assert_msg(connect(fd, (struct sockaddr *)&sun, sizeof sun) == 0,
	    "connect %s: %s", sun.sun_path, strerror(errno));
	return fd;
}

/* Send a request on a connection; 0, or -1 if the deck closed it. */
static int
fault_ctl_send(int fd, const char *req)
{
	return send(fd, req, strlen(req), MSG_NOSIGNAL) == (ssize_t)strlen(req) ?
	    0 : -1;
}

/*
 * Run `jobdeck ctl ARGS...` on the deck, the screen pumped meanwhile:
 * stdout and stderr into out (NULL, or what does not fit: thrown away);
 * its exit status, or -1 if it took more than ms (it is killed then).
 */
static int
fault_ctl_run(struct fault *f, const char *const *args, char *out,
    size_t size, int ms)
{
	const char	*argv[16];
	char		 run[PATH_MAX], junk[4096];
	int64_t		 end = term_now_ms() + ms;
	size_t		 len = 0, room, n = 0;
	ssize_t		 r;
	pid_t		 pid;
	int		 fds[2], status, late = 0;

	snprintf(run, sizeof run, "%s/run", term_tmpdir(f->t));
	argv[n++] = e2e_bin();
	argv[n++] = "ctl";
	while (*args != NULL && n < 15)
		argv[n++] = *args++;
	argv[n] = NULL;
	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		setenv("XDG_RUNTIME_DIR", run, 1);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	for (;;) {
		room = out != NULL ? size - 1 - len : 0;
		if (room > 0)
			r = read(fds[0], out + len, room);
		else
			r = read(fds[0], junk, sizeof junk);
		if (r > 0) {
			if (room > 0)
				len += (size_t)r;
			continue;
		}
		if (r == 0 || (errno != EAGAIN && errno != EINTR))
			break;
		if (term_now_ms() >= end) {
			kill(pid, SIGKILL);
			late = 1;
			break;
		}
		term_pump(f->t, 5);
	}
	if (out != NULL)
		out[len] = '\0';
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (late || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * Open the deck's terminal (its client's: the deck reads the keys of the
 * terminal its client passed it) to put keys in it with TIOCSTI; -1 if
 * refused.
 */
static int
fault_key_open(struct fault *f)
{
	char	path[64];
	int	fd;

	snprintf(path, sizeof path, "/proc/%ld/fd/0", (long)term_pid(f->t));
	fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd != -1 && !isatty(fd)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Put keys into the deck's terminal input; 0, or -1 if refused. */
static int
fault_key_put(int tty, const char *keys)
{
	for (; *keys != '\0'; keys++) {
		if (ioctl(tty, TIOCSTI, keys) != 0)
			return -1;
	}
	return 0;
}

/*
 * Type key (with TIOCSTI on *tty, else term_type(); a refusal closes *tty
 * and sets it to -1) and return the milliseconds until it shows in the
 * pane, or -1 after ms.
 */
static int64_t
fault_echo_ms(struct fault *f, int *tty, const char *key, int ms)
{
	int64_t	start = term_now_ms();

	if (*tty != -1 && fault_key_put(*tty, key) != 0) {
		close(*tty);
		*tty = -1;
	}
	if (*tty == -1)
		term_type(f->t, key);
	while (!term_find_in(f->t, &pane, key, NULL, NULL)) {
		if (term_now_ms() - start >= ms)
			return -1;
		term_pump(f->t, 1);
	}
	return term_now_ms() - start;
}

/*
 * End the line of key with Enter (on *tty, as fault_echo_ms() types) and
 * wait until cat has written it back, so the next key's echo cannot come
 * between the line's echo and cat's copy of it (the key shows twice).
 */
static void
fault_echo_enter(struct fault *f, int *tty, const char *key)
{
	if (*tty == -1 || fault_key_put(*tty, "\r") != 0)
		term_key(f->t, TERM_KEY_ENTER);
	ck_assert_msg(term_wait_count_in(f->t, &pane, key, 2, ECHO_WAIT_MS),
	    "cat did not write %s back within %d ms\n%s", key, ECHO_WAIT_MS,
	    fault_dump(f));
}

/* Compare two latencies, for qsort. */
static int
fault_cmp_ms(const void *a, const void *b)
{
	int64_t	x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The readers: CTL_READERS connections ask for `logs 1` and read slowly
 * (16 KiB each per 2 ms at most) to the end; the bytes each got are
 * written to out.  Runs in a child of the test.
 */
static void
fault_ctl_readers(struct fault *f, int out)
{
	struct pollfd	pfd[CTL_READERS];
	uint64_t	got[CTL_READERS];
	char		buf[16384];
	int64_t		end = term_now_ms() + 150000;
	ssize_t		n;
	int		i, open_fds = CTL_READERS;

	for (i = 0; i < CTL_READERS; i++) {
		pfd[i].fd = fault_ctl_connect(f);
		pfd[i].events = POLLIN;
		got[i] = 0;
		if (fault_ctl_send(pfd[i].fd, "logs 1\n") != 0)
			_exit(3);
	}
	while (open_fds > 0 && term_now_ms() < end) {
		if (poll(pfd, CTL_READERS, 10) < 0)
			_exit(4);
		for (i = 0; i < CTL_READERS; i++) {
			if (pfd[i].fd == -1 || pfd[i].revents == 0)
				continue;
			n = read(pfd[i].fd, buf, sizeof buf);
			if (n > 0) {
				got[i] += (uint64_t)n;
				continue;
			}
			close(pfd[i].fd);
			pfd[i].fd = -1;
			open_fds--;
		}
		usleep(2000);
	}
	if (write(out, got, sizeof got) != (ssize_t)sizeof got)
		_exit(5);
	_exit(open_fds == 0 ? 0 : 6);
}

/*
 * A job writes CTL_LOG_MB MiB; ten clients read its log slowly while keys
 * typed into a focused cat are timed to their echo on the screen; then 40
 * clients ask for the log and never read.  Keys are echoed while the
 * readers read and while the idle ones are still connected (at least
 * CTL_ECHO_DURING of them each time: the keyboard waits for neither; the
 * latencies are noted, a speed for make bench), every reader gets the
 * whole log, the idle ones are dropped, and the deck's memory stays under
 * CTL_RSS_MAX_KB.
 */
START_TEST(test_ctl_big_logs)
{
	static const char line[] =
	    "ctl 0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTU\n";
	struct pollfd	 pfd;
	struct fault	 f;
	uint64_t	 bytes, got[CTL_READERS];
	int64_t		 lat[512], t0, hup_end;
	char		 cmd[256], key[16];
	long		 mb = CTL_LOG_MB, base_kb, readers_kb;
	pid_t		 pid;
	int		 p[2], tty, nlat = 0, idle[CTL_IDLERS], i, status, left;
	int		 done = 0, during = 0;

	fault_init(&f);
	fault_start(&f, NULL, NULL);
	if (f.asan)
		mb = CTL_LOG_MB / 8;
	bytes = (uint64_t)mb << 20;
	snprintf(cmd, sizeof cmd, "yes '%.*s' | head -c %llu",
	    (int)sizeof line - 2, line, (unsigned long long)bytes);
	fault_run(&f, cmd);
	EXPECT_IN(&f, &panel, "✓ Done", 120000);
	fault_run(&f, "cat");
	EXPECT_IN(&f, &pane_title, "[2] cat", WAIT_MS);
	fault_run(&f, "!focus 2");
	EXPECT_IN(&f, &pane_title, "[Focused]", WAIT_MS);
	base_kb = fault_sample_rss(&f);
	tty = fault_key_open(&f);

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		close(p[0]);
		fault_ctl_readers(&f, p[1]);
	}
	close(p[1]);
	t0 = term_now_ms();
	while (!done) {
		fault_sample_rss(&f);
		fault_expect_alive(&f, "while ten clients read its log");
		if (nlat < 400) {
			snprintf(key, sizeof key, "k%03d", nlat);
			lat[nlat] = fault_echo_ms(&f, &tty, key, ECHO_WAIT_MS);
			ck_assert_msg(lat[nlat] >= 0, "the focused cat did not "
			    "echo %s within %d ms while ten clients read the "
			    "log\n%s", key, ECHO_WAIT_MS, fault_dump(&f));
			nlat++;
			/* Echoed while the readers are still at it? */
			pfd.fd = p[0];
			pfd.events = POLLIN;
			if (poll(&pfd, 1, 0) == 0)
				during++;
			fault_echo_enter(&f, &tty, key);
		}
		term_pump(f.t, 50);
		pfd.fd = p[0];
		pfd.events = POLLIN;
		done = poll(&pfd, 1, 0) == 1;
		ck_assert_msg(term_now_ms() - t0 < 160000, "the readers did "
		    "not finish in 160 s");
	}
	ck_assert_int_eq(read(p[0], got, sizeof got), (ssize_t)sizeof got);
	close(p[0]);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		continue;
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the readers failed: status 0x%x", status);
	/* "0\n", then each 64-byte line of the log as text. */
	for (i = 0; i < CTL_READERS; i++)
		ck_assert_msg(got[i] == bytes + 2, "reader %d got %llu bytes, "
		    "not %llu", i, (unsigned long long)got[i],
		    (unsigned long long)bytes + 2);
	readers_kb = fault_status_kb(f.deck, "VmHWM:");
	qsort(lat, (size_t)nlat, sizeof lat[0], fault_cmp_ms);
	fault_note("ctl_big_logs: %d readers of a %ld MiB log in %.1f s; "
	    "echo of %d keys (%d while they read)%s: median %lld ms, max %lld "
	    "ms; RSS %ld kB before, VmHWM %ld kB after%s", CTL_READERS, mb,
	    (double)(term_now_ms() - t0) / 1000, nlat, during, tty != -1 ?
	    "" : " (term_type: 20 ms steps)", (long long)lat[nlat / 2],
	    (long long)lat[nlat - 1], base_kb, readers_kb,
	    f.asan ? " (AddressSanitizer: not bounded)" : "");
	ck_assert_msg(during >= CTL_ECHO_DURING, "%d of %d keys were echoed "
	    "while ten clients read the log, not %d: the keyboard waited for "
	    "them", during, nlat, CTL_ECHO_DURING);
	ck_assert_msg(f.asan || readers_kb < CTL_RSS_MAX_KB, "the deck's "
	    "memory grew to %ld kB (VmHWM) while ten clients read a %ld MiB "
	    "log (bound %d kB)", readers_kb, mb, CTL_RSS_MAX_KB);

	/* 40 clients ask for the log and never read. */
	for (i = 0; i < CTL_IDLERS; i++) {
		idle[i] = fault_ctl_connect(&f);
		ck_assert_int_eq(fault_ctl_send(idle[i], "logs 1\n"), 0);
	}
	t0 = term_now_ms();
	nlat = 0;
	during = 0;
	while ((term_now_ms() - t0 < 2000 || nlat < 10) && nlat < 400) {
		snprintf(key, sizeof key, "i%03d", nlat);
		lat[nlat] = fault_echo_ms(&f, &tty, key, ECHO_WAIT_MS);
		ck_assert_msg(lat[nlat] >= 0, "the focused cat did not echo %s "
		    "within %d ms with 40 clients not reading\n%s", key,
		    ECHO_WAIT_MS, fault_dump(&f));
		nlat++;
		/* Echoed while an idle client is still connected? */
		for (i = left = 0; i < CTL_IDLERS; i++) {
			pfd.fd = idle[i];
			pfd.events = 0;
			left += !(poll(&pfd, 1, 0) == 1 &&
			    (pfd.revents & POLLHUP));
		}
		during += left > 0;
		fault_echo_enter(&f, &tty, key);
		fault_sample_rss(&f);
		term_pump(f.t, 50);
	}
	hup_end = term_now_ms() + 15000;
	for (left = CTL_IDLERS; left > 0 && term_now_ms() < hup_end; ) {
		for (i = left = 0; i < CTL_IDLERS; i++) {
			pfd.fd = idle[i];
			pfd.events = 0;
			left += !(poll(&pfd, 1, 0) == 1 &&
			    (pfd.revents & POLLHUP));
		}
		fault_sample_rss(&f);
		term_pump(f.t, 50);
	}
	qsort(lat, (size_t)nlat, sizeof lat[0], fault_cmp_ms);
	fault_note("ctl_big_logs: %d idle clients: dropped after %.1f s; echo "
	    "of %d keys (%d before they were dropped): median %lld ms, max "
	    "%lld ms; VmHWM %ld kB", CTL_IDLERS,
	    (double)(term_now_ms() - t0) / 1000, nlat, during,
	    (long long)lat[nlat / 2], (long long)lat[nlat - 1],
	    fault_status_kb(f.deck, "VmHWM:"));
	ck_assert_msg(left == 0, "%d of %d clients that never read were kept "
	    "for 15 s", left, CTL_IDLERS);
	for (i = 0; i < CTL_IDLERS; i++)
		close(idle[i]);
	ck_assert_msg(during >= CTL_ECHO_DURING, "%d of %d keys were echoed "
	    "while 40 clients did not read, not %d: the keyboard waited for "
	    "them", during, nlat, CTL_ECHO_DURING);
	f.peak_kb = fault_status_kb(f.deck, "VmHWM:");
	ck_assert_msg(f.asan || f.peak_kb < CTL_RSS_MAX_KB, "the deck's "
	    "memory grew to %ld kB (VmHWM) with 40 clients not reading (bound "
	    "%d kB)", f.peak_kb, CTL_RSS_MAX_KB);
	if (tty != -1)
		close(tty);
	term_key(f.t, TERM_KEY_CTRL_T);
	ck_assert_msg(term_wait_gone(f.t, "[Focused]", WAIT_MS), "Ctrl+T did "
	    "not leave focus mode\n%s", fault_dump(&f));
	fault_expect_works(&f, "hostile ctl clients");
	fault_quit_clean(&f, "hostile ctl clients");
	fault_end(&f);
}
END_TEST

static void		 fault_injection_tcase(Suite *);
/*
 * 140 clients ask for events, read the "0" and close: each is let go at
 * once, so none is refused and `jobdeck ctl ps` is then served.
 */
START_TEST(test_ctl_half_closed)
{
	static const char *const ps[] = { "ps", NULL };
	struct fault	 f;
	char		 head[2];
	int64_t		 t0;
	int		 fd, i, refused = 0, status;

	fault_init(&f);
	fault_start(&f, NULL, NULL);
	for (i = 0; i < CTL_HALF_CLOSED; i++) {
		fd = fault_ctl_connect(&f);
		/* A refused client may find the socket closed already. */
		(void)fault_ctl_send(fd, "events\n");
		ck_assert_int_eq(term_read_fd(f.t, fd, head, 2, WAIT_MS), 2);
		refused += head[0] != '0';
		close(fd);
	}
	t0 = term_now_ms();
	status = fault_ctl_run(&f, ps, NULL, 0, 5000);
	fault_note("ctl_half_closed: %d of %d events clients refused; ctl ps "
	    "then: exit %d in %lld ms", refused, CTL_HALF_CLOSED, status,
	    (long long)(term_now_ms() - t0));
	ck_assert_msg(status == 0, "jobdeck ctl ps after %d events clients "
	    "left: exit %d", CTL_HALF_CLOSED, status);
	ck_assert_msg(refused == 0, "%d of %d events clients were refused",
	    refused, CTL_HALF_CLOSED);
	fault_expect_works(&f, "140 events clients that left");
	fault_quit_clean(&f, "140 events clients that left");
	fault_end(&f);
}
END_TEST

/* The ctl_hostile test case: the control socket under hostile clients. */
static TCase *
fault_ctl_tcase(void)
{
	TCase	*tc = tcase_create("ctl_hostile");

	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, test_ctl_big_logs);
	tcase_add_test(tc, test_ctl_half_closed);
	return tc;
}

/*
 * names_escapes (issue 10): names, commands and output holding terminal
 * escapes never reach the terminal of whoever runs `jobdeck ctl`: text
 * replies show them escaped, JSON as JSON escapes, and a config or
 * Procfile name with one is refused with its place.
 */

/* Fail if text holds a byte a terminal acts on, but for newlines. */
static void
fault_assert_inert(const char *what, const char *text)
{
	const unsigned char	*p;

	for (p = (const unsigned char *)text; *p != '\0'; p++) {
		ck_assert_msg((*p >= 0x20 && *p != 0x7f) || *p == '\n',
		    "%s: byte %#x at %zu in: %s", what, *p,
		    (size_t)(p - (const unsigned char *)text), text);
		ck_assert_msg(!(p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0),
		    "%s: a C1 control in: %s", what, text);
	}
}

static int	fault_shell(const char *, char *, size_t);

START_TEST(test_names_escapes)
{
	static const char osc52[] = "\033]52;c;SGVsbG8=\a";
	struct fault	 f;
	char		 out[65536], word[256], path[PATH_MAX];
	char		 line[2 * PATH_MAX + 64];
	const char	*args[8];
	int		 st, fd;

	fault_init(&f);
	fault_start(&f, NULL, NULL);

	/* A name with escapes: refused, and the refusal is escaped. */
	snprintf(word, sizeof word, "x%s", osc52);
	args[0] = "spawn"; args[1] = "--name"; args[2] = word;
	args[3] = "--"; args[4] = "true"; args[5] = NULL;
	st = fault_ctl_run(&f, args, out, sizeof out, CTL_RUN_MS);
	ck_assert_msg(st == 2, "spawn --name with escapes: exit %d: %s", st,
	    out);
	fault_assert_inert("spawn --name", out);
	ck_assert_ptr_nonnull(strstr(out, "x\\e]52;c;SGVsbG8=\\a"));

	/* A command with escapes, printing escapes: shown escaped. */
	snprintf(word, sizeof word, "printf '\\033]0;owned\\007\\033[2J"
	    "\\302\\233text\\n'; sleep 100 # %s\033[2J", osc52);
	args[0] = "spawn"; args[1] = "--"; args[2] = word; args[3] = NULL;
	st = fault_ctl_run(&f, args, out, sizeof out, CTL_RUN_MS);
	ck_assert_msg(st == 0, "spawn: exit %d: %s", st, out);
	fault_assert_inert("spawn", out);
	EXPECT_IN(&f, &panel, "Processes (1 running)", WAIT_MS);
	term_pump(f.t, 300);

	args[1] = NULL;
	args[0] = "ps";
	ck_assert_int_eq(fault_ctl_run(&f, args, out, sizeof out, CTL_RUN_MS), 0);
	fault_assert_inert("ps", out);
	ck_assert_ptr_nonnull(strstr(out, "\\e]52;c;SGVsbG8=\\a\\e[2J"));
	args[0] = "list";
	ck_assert_int_eq(fault_ctl_run(&f, args, out, sizeof out, CTL_RUN_MS), 0);
	fault_assert_inert("list", out);
	args[0] = "status"; args[1] = "1"; args[2] = NULL;
	ck_assert_int_eq(fault_ctl_run(&f, args, out, sizeof out, CTL_RUN_MS), 0);
	fault_assert_inert("status 1", out);
	ck_assert_ptr_nonnull(strstr(out, "text"));
	args[0] = "logs";
	ck_assert_int_eq(fault_ctl_run(&f, args, out, sizeof out, CTL_RUN_MS), 0);
	fault_assert_inert("logs 1", out);
	args[0] = "status"; args[1] = word;
	ck_assert_int_eq(fault_ctl_run(&f, args, out, sizeof out, CTL_RUN_MS), 1);
	fault_assert_inert("status of no such job", out);
	ck_assert_ptr_nonnull(strstr(out, "no such job: printf"));

	/* JSON keeps them, as JSON escapes. */
	args[0] = "--json"; args[1] = "list"; args[2] = NULL;
	ck_assert_int_eq(fault_ctl_run(&f, args, out, sizeof out, CTL_RUN_MS), 0);
	fault_assert_inert("--json list", out);
	ck_assert_ptr_nonnull(strstr(out, "\\u001b]52;c;SGVsbG8=\\u0007"));

	/* A config or Procfile name with an escape: refused, with its place. */
	snprintf(path, sizeof path, "%s/escape.toml", f.dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ne(fd, -1);
	dprintf(fd, "[[job]]\nname = \"w\\u001b]0;x\\u0007\"\ncommand = "
	    "\"true\"\n");
	close(fd);
	snprintf(line, sizeof line, "%s --check-config -c %s 2>&1",
	    e2e_bin(), path);
	ck_assert_int_eq(fault_shell(line, out, sizeof out), 2);
	fault_assert_inert("--check-config", out);
	ck_assert_msg(strstr(out, "escape.toml:2:8: ") != NULL, "%s", out);
	snprintf(path, sizeof path, "%s/Procfile", f.dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ne(fd, -1);
	dprintf(fd, "web: true\nw\033]0;x\a: true\n");
	close(fd);
	snprintf(line, sizeof line, "%s --check-config -f %s 2>&1",
	    e2e_bin(), path);
	ck_assert_int_eq(fault_shell(line, out, sizeof out), 2);
	fault_assert_inert("Procfile", out);
	ck_assert_msg(strstr(out, "Procfile:2") != NULL, "%s", out);

	fault_expect_works(&f, "names with escapes");
	fault_quit_clean(&f, "names with escapes");
	fault_end(&f);
}
END_TEST

/* Run a shell command line; its output into out and its exit status. */
static int
fault_shell(const char *line, char *out, size_t size)
{
	FILE	*p = popen(line, "r");
	size_t	 n;
	int	 st;

	ck_assert_ptr_nonnull(p);
	n = fread(out, 1, size - 1, p);
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * Escapes (issue 10, defect 7): processes that leave their job's process
 * group -- `setsid`, `set -m; cmd &`, `setsid -f`, a double fork, one
 * that also drops its environment (env -i), and one that ignores SIGTERM
 * -- under !kill, !kill-all, a time limit and the job ending by itself;
 * with a cgroup per job (as root) and with JOBDECK_NO_CGROUP=1 (the
 * environment marker).  Each escapee writes its pid and ignores SIGHUP
 * (so its terminal's hangup does not do jobdeck's work); a polite one
 * writes "term" to NAME.got when SIGTERM comes, so the test knows it was
 * asked before it was killed.  A polite one waits for its sleep in a
 * loop: the stop signals the sleep and the shell at the same moment, in
 * no set order, and a shell whose last `wait` returned because the sleep
 * died first would leave at the end of its script before its own SIGTERM
 * ran the trap (dash does, about one time in three when the sleep is
 * signalled first).
 */
#define ESC_GRACE_S	2	/* kill_timeout */
#define ESC_TIMEOUT_S	3	/* the jobs' time limit in the timeout way */

/* How a job starts its escapee: %s is the escapee's sh -c body. */
static const struct {
	const char	*name;
	const char	*start;
	int		 marked;	/* keeps its environment (the marker) */
	int		 group;		/* stays in the job's process group */
	int		 stubborn;	/* ignores SIGTERM */
} esc_routes[] = {
	{ "setsid", "setsid sh -c '%s' &", 1, 0, 0 },
	{ "setm", "set -m; sh -c '%s' &", 1, 0, 0 },
	{ "setsidf", "setsid -f sh -c '%s'", 1, 0, 0 },
	{ "double", "(sh -c '%s' &) &", 1, 1, 0 },
	{ "stubborn", "setsid sh -c '%s' &", 1, 0, 1 },
	{ "envclear", "env -i /usr/bin/setsid /bin/sh -c '%s' &", 0, 0, 0 },
};

#define ESC_NROUTES	(sizeof esc_routes / sizeof esc_routes[0])

/* The ways a job is stopped, with and without cgroups. */
static const struct {
	const char	*way;		/* !kill, !kill-all, timeout, done */
	int		 fallback;	/* JOBDECK_NO_CGROUP=1 */
} esc_cases[] = {
	{ "!kill", 0 }, { "!kill-all", 0 }, { "timeout", 0 }, { "done", 0 },
	{ "!kill", 1 }, { "!kill-all", 1 }, { "timeout", 1 }, { "done", 1 },
};

static const char *const esc_no_cgroup[] = { "JOBDECK_NO_CGROUP=1", NULL };

/*
 * Write route i's job script and append its [[job]] to cfg: it starts
 * the escapee, waits for its pid file, writes its own, then sleeps
 * (ends at once when done is set).
 */
static size_t
esc_job(struct fault *f, size_t i, int done, int timeout, char *cfg,
    size_t len, size_t size)
{
	char		 body[512], script[1024], file[64], *path;
	const char	*n = esc_routes[i].name;

	if (esc_routes[i].stubborn)
		snprintf(body, sizeof body, "trap \"\" TERM HUP INT; "
		    "echo $$ > %s.pid; exec /bin/sleep 1000", n);
	else
		snprintf(body, sizeof body, "trap \"\" HUP; trap \"echo term "
		    "> %s.got; exit 0\" TERM; echo $$ > %s.pid; "
		    "while :; do /bin/sleep 1000 & wait; done", n, n);
	snprintf(script, sizeof script, esc_routes[i].start, body);
	snprintf(script + strlen(script), sizeof script - strlen(script),
	    "\nwhile [ ! -s %s.pid ]; do sleep 0.05; done\necho $$ > %s.job\n"
	    "%s", n, n, done ? "" : "exec sleep 1000\n");
	snprintf(file, sizeof file, "%s.sh", n);
	path = strdup(fault_write(f, file, script, strlen(script)));
	len += (size_t)snprintf(cfg + len, size - len, "\n[[job]]\nname = "
	    "\"%s\"\ncommand = \"sh %s\"\n", n, path);
	if (timeout)
		len += (size_t)snprintf(cfg + len, size - len,
		    "timeout = %d\n", ESC_TIMEOUT_S);
	free(path);
	return len;
}

/* Start a deck running every route's job; record the pids (2 per route). */
static void
esc_start(struct fault *f, int done, int timeout, const char *const *env,
    pid_t *pids)
{
	char		 cfg[8192], name[64];
	const char	*args[3];
	size_t		 i, len;
	pid_t		 pg;

	len = (size_t)snprintf(cfg, sizeof cfg, "[settings]\nkill_timeout = "
	    "%d\n", ESC_GRACE_S);
	for (i = 0; i < ESC_NROUTES; i++)
		len = esc_job(f, i, done, timeout, cfg, len, sizeof cfg);
	args[0] = "-c";
	args[1] = fault_write(f, "config.toml", cfg, len);
	args[2] = NULL;
	fault_start(f, args, env);
	for (i = 0; i < ESC_NROUTES; i++) {
		snprintf(name, sizeof name, "%s.pid", esc_routes[i].name);
		pids[2 * i] = fault_pidfile(f, name, WAIT_MS);
		FAULT_ASSERT(f, pids[2 * i] > 0, e2e_fmt("the %s escapee did "
		    "not write its pid", esc_routes[i].name));
		snprintf(name, sizeof name, "%s.job", esc_routes[i].name);
		pids[2 * i + 1] = fault_pidfile(f, name, WAIT_MS);
		FAULT_ASSERT(f, pids[2 * i + 1] > 0, e2e_fmt("the %s job did "
		    "not write its pid", esc_routes[i].name));
		/* A job that ends at once may be gone: nothing to compare. */
		pg = getpgid(pids[2 * i + 1]);
		if (!esc_routes[i].group && pg > 0)
			FAULT_ASSERT(f, getpgid(pids[2 * i]) != pg,
			    e2e_fmt("the %s escapee did not leave its job's "
			    "group", esc_routes[i].name));
	}
	fault_note_sessions(f);
}

/* Copy pid's cgroup v2 path ("0::" line of /proc/PID/cgroup) into buf. */
static void
esc_cgroup_of(pid_t pid, char *buf, size_t size)
{
	char	path[64], text[4096], *p, *end;
	ssize_t	n;
	int	fd;

	buf[0] = '\0';
	snprintf(path, sizeof path, "/proc/%ld/cgroup", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
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

/* Return whether the file name in the deck's directory starts with text. */
static int
esc_file_says(struct fault *f, const char *name, const char *text)
{
	char	path[PATH_MAX], buf[64];
	ssize_t	n;
	int	fd;

	snprintf(path, sizeof path, "%s/%s", term_tmpdir(f->t), name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return strncmp(buf, text, strlen(text)) == 0;
}

/* Tell whether pid's environment holds a jobdeck marker. */
static int
esc_has_marker(pid_t pid)
{
	static char	 env[256 * 1024];
	static const char want[] = "JOBDECK_JOB=jobdeck.";
	char		 path[64], *p;
	size_t		 got = 0;
	ssize_t		 n;
	int		 fd;

	snprintf(path, sizeof path, "/proc/%ld/environ", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	while (got < sizeof env - 1 &&
	    (n = read(fd, env + got, sizeof env - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	env[got] = '\0';
	for (p = env; p < env + got; p += strlen(p) + 1) {
		if (strncmp(p, want, sizeof want - 1) == 0)
			return 1;
	}
	return 0;
}

/* Return the cgroup2 mount point from /proc/self/mountinfo, or "". */
static const char *
esc_cgroup2_mount(void)
{
	static char	 mnt[PATH_MAX];
	char		 line[4096], root[PATH_MAX], point[PATH_MAX];
	FILE		*fp;

	mnt[0] = '\0';
	if ((fp = fopen("/proc/self/mountinfo", "re")) == NULL)
		return mnt;
	while (fgets(line, sizeof line, fp) != NULL) {
		if (strstr(line, " - cgroup2 ") != NULL &&
		    sscanf(line, "%*s %*s %*s %4095s %4095s", root,
		    point) == 2 && strcmp(root, "/") == 0) {
			snprintf(mnt, sizeof mnt, "%s", point);
			break;
		}
	}
	fclose(fp);
	return mnt;
}

/*
 * Find the deck's cgroup, jobdeck.<pid>.<start> in the cgroup it was
 * started in (ours); its path in dir, or 0 when it made none.
 */
static int
esc_deck_cgroup(struct fault *f, char *dir, size_t size)
{
	struct dirent	*de;
	DIR		*d;
	char		 base[PATH_MAX], self[4096], prefix[64];
	int		 found = 0;

	esc_cgroup_of(getpid(), self, sizeof self);
	snprintf(base, sizeof base, "%s%s", esc_cgroup2_mount(),
	    strcmp(self, "/") == 0 ? "" : self);
	snprintf(prefix, sizeof prefix, "jobdeck.%ld.", (long)f->deck);
	if (self[0] != '/' || (d = opendir(base)) == NULL)
		return 0;
	while (!found && (de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, prefix, strlen(prefix)) == 0)
			found = snprintf(dir, size, "%s/%s", base,
			    de->d_name) < (int)size;
	}
	closedir(d);
	return found;
}

/*
 * Tell whether this test could make a cgroup where it runs (so the deck,
 * started here, could too): a probe directory, made and removed.
 */
static int
esc_cgroups_possible(void)
{
	char	self[4096], probe[PATH_MAX + 64];

	esc_cgroup_of(getpid(), self, sizeof self);
	if (self[0] != '/' || esc_cgroup2_mount()[0] == '\0')
		return 0;
	snprintf(probe, sizeof probe, "%s%s/jobdeck-test-probe.%ld",
	    esc_cgroup2_mount(), strcmp(self, "/") == 0 ? "" : self,
	    (long)getpid());
	if (mkdir(probe, 0755) != 0)
		return 0;
	rmdir(probe);
	return 1;
}

/*
 * Check the deck's containment: with JOBDECK_NO_CGROUP=1 it made no
 * cgroup and the escapee esc carries the marker (noted, since a deck
 * without the fallback fails later, on what survives); else (the caller
 * saw that a cgroup can be made here) the deck made its cgroup and esc,
 * out of its job's group, is in a run's cgroup inside it, if still there.
 */
static void
esc_contained(struct fault *f, pid_t esc, int fallback)
{
	char		 dir[PATH_MAX], in[4096];
	const char	*token;
	int		 found = esc_deck_cgroup(f, dir, sizeof dir);

	if (fallback) {
		FAULT_ASSERT(f, !found, e2e_fmt("JOBDECK_NO_CGROUP=1, yet "
		    "the deck made %s", dir));
		fault_note("escapes: JOBDECK_NO_CGROUP=1: the escapee %s the "
		    "JOBDECK_JOB marker", esc_has_marker(esc) ? "carries" :
		    "lacks");
		return;
	}
	FAULT_ASSERT(f, found, e2e_fmt("the deck made no cgroup, though "
	    "one can be made here"));
	token = strrchr(dir, '/') + 1;
	/* Where its job ended at once, it may be gone already: "". */
	esc_cgroup_of(esc, in, sizeof in);
	FAULT_ASSERT(f, in[0] == '\0' || (strstr(in, token) != NULL &&
	    strstr(in, "/job-") != NULL), e2e_fmt("the escapee %ld is in "
	    "the cgroup \"%s\", not in one of %s", (long)esc, in, dir));
}

/*
 * Each escape route under one way of stopping its job: with cgroups every
 * escapee gets SIGTERM (the polite ones say so) and none survives, the
 * deck still running; with the marker alone, every escapee that keeps its
 * environment is caught the same way under !kill, !kill-all and a time
 * limit, and at the job's own end only its group's members are, the rest
 * when the deck leaves.
 */
START_TEST(test_escapes)
{
	const char	*way = esc_cases[_i].way;
	int		 fallback = esc_cases[_i].fallback, done, now;
	pid_t		 pids[2 * ESC_NROUTES];
	char		 left[4096], got[64], what[96];
	struct fault	 f;
	size_t		 i;

	snprintf(what, sizeof what, "%s%s", way, fallback ?
	    " (JOBDECK_NO_CGROUP=1)" : "");
	done = strcmp(way, "done") == 0;
	fault_init(&f);
	if (!fallback && !esc_cgroups_possible()) {
		TEST_SKIP_LINE("escapes %s: no cgroup can be made here "
		    "(needs root or a delegated cgroup)", what);
		fault_end(&f);
		return;
	}
	esc_start(&f, done, strcmp(way, "timeout") == 0, fallback ?
	    esc_no_cgroup : NULL, pids);
	esc_contained(&f, pids[0], fallback);
	if (strcmp(way, "!kill") == 0)
		fault_run(&f, "!kill 1 2 3 4 5 6");
	else if (strcmp(way, "!kill-all") == 0)
		fault_run(&f, "!kill-all");
	for (i = 0; i < ESC_NROUTES; i++) {
		if (fallback)
			now = done ? esc_routes[i].group :
			    esc_routes[i].marked;
		else
			now = 1;
		if (!now)
			continue;
		ck_assert_msg(term_wait_pid_dead(f.t, pids[2 * i],
		    (ESC_TIMEOUT_S + ESC_GRACE_S) * 1000 + WAIT_MS),
		    "%s: the %s escapee (pid %ld) survived its job\n%s", what,
		    esc_routes[i].name, (long)pids[2 * i], fault_dump(&f));
		snprintf(got, sizeof got, "%s.got", esc_routes[i].name);
		if (!esc_routes[i].stubborn)
			FAULT_ASSERT(&f, esc_file_says(&f, got, "term"),
			    e2e_fmt("%s: the %s escapee died without its "
			    "SIGTERM", what, esc_routes[i].name));
	}
	if (!fallback) {
		ck_assert_msg(fault_survivors(&f, 3000, left, sizeof left) == 0,
		    "%s: processes of the stopped jobs survived while the "
		    "deck runs:\n%s", what, left);
		fault_expect_works(&f, what);
	} else {
		for (i = 0; i < ESC_NROUTES; i++) {
			if (term_pid_alive(pids[2 * i]))
				fault_note("escapes %s: the %s escapee lives "
				    "until the deck leaves (the fallback's "
				    "limit)", what, esc_routes[i].name);
		}
	}
	fault_quit_clean(&f, what);
	fault_end(&f);
}
END_TEST

/*
 * A deck killed with SIGKILL leaves its jobs and their escapees running
 * (here they come back to the test, a subreaper); the next deck started
 * with the same state directories kills them all at its start -- through
 * their cgroups, or by their marker (which the env -i escapee dropped:
 * the fallback cannot find it) -- and removes the dead deck's cgroup.
 */
START_TEST(test_escapes_deck_killed)
{
	int		 fallback = _i;
	const char	*env[8], *what = fallback ?
			    "SIGKILL, then a new deck (JOBDECK_NO_CGROUP=1)" :
			    "SIGKILL, then a new deck";
	char		 deckdir[PATH_MAX], vars[4][PATH_MAX + 32];
	const char	*args[4], *names[] = { "HOME", "XDG_CONFIG_HOME",
			    "XDG_STATE_HOME", "XDG_RUNTIME_DIR" };
	const char	*subs[] = { "home", "config", "state", "run" };
	pid_t		 pids[2 * ESC_NROUTES];
	struct term	*t2;
	struct fault	 f;
	struct stat	 sb;
	size_t		 i, n = 0;
	int		 status;

	fault_init(&f);
	if (!fallback && !esc_cgroups_possible()) {
		TEST_SKIP_LINE("escapes %s: no cgroup can be made here "
		    "(needs root or a delegated cgroup)", what);
		fault_end(&f);
		return;
	}
	esc_start(&f, 0, 0, fallback ? esc_no_cgroup : NULL, pids);
	esc_contained(&f, pids[0], fallback);
	if (!esc_deck_cgroup(&f, deckdir, sizeof deckdir))
		deckdir[0] = '\0';
	ck_assert_int_eq(kill(f.deck, SIGKILL), 0);
	ck_assert_msg(term_wait_pid_dead(f.t, f.deck, WAIT_MS), "the deck did "
	    "not die of SIGKILL");
	ck_assert_msg(term_wait_exit(f.t, WAIT_MS, &status), "its client did "
	    "not leave");
	term_pump(f.t, 500);
	/*
	 * The jobs may die of their terminal's hangup; escapees ignore it.
	 * (Any deck that starts on this machine meanwhile sweeps them too, as
	 * the dead deck's leftovers: this case needs no other deck starting.)
	 */
	for (i = 0; i < ESC_NROUTES; i++)
		ck_assert_msg(term_pid_alive(pids[2 * i]), "%s: the %s escapee "
		    "died with the deck: nothing left to test (did another "
		    "deck start on this machine meanwhile?)", what,
		    esc_routes[i].name);

	/* The same state directories, and no cgroup if the first had none. */
	for (i = 0; i < 4; i++) {
		snprintf(vars[i], sizeof vars[i], "%s=%s/%s", names[i],
		    term_tmpdir(f.t), subs[i]);
		env[n++] = vars[i];
	}
	if (fallback)
		env[n++] = esc_no_cgroup[0];
	env[n] = NULL;
	args[0] = e2e_bin();
	args[1] = "-c";
	args[2] = "/dev/null";
	args[3] = NULL;
	t2 = term_start(args, env);
	ck_assert_msg(t2 != NULL, "cannot start the second deck");
	ck_assert_msg(term_wait_text_in(t2, &panel, "Processes (", WAIT_MS),
	    "the second deck did not start\n%s", term_dump(t2));
	for (i = 0; i < ESC_NROUTES; i++) {
		if (fallback && !esc_routes[i].marked)
			continue;
		ck_assert_msg(term_wait_pid_dead(t2, pids[2 * i], WAIT_MS),
		    "%s: the %s escapee (pid %ld) of the dead deck lives on "
		    "\n%s", what, esc_routes[i].name, (long)pids[2 * i],
		    term_dump(t2));
		ck_assert_msg(term_wait_pid_dead(t2, pids[2 * i + 1], WAIT_MS),
		    "%s: the %s job (pid %ld) of the dead deck lives on\n%s",
		    what, esc_routes[i].name, (long)pids[2 * i + 1],
		    term_dump(t2));
	}
	if (deckdir[0] != '\0') {
		for (i = 0; i < 100 && stat(deckdir, &sb) == 0; i++)
			term_pump(t2, 50);
		ck_assert_msg(stat(deckdir, &sb) == -1, "%s: the dead deck's "
		    "cgroup %s is still there", what, deckdir);
	}
	if (fallback && term_pid_alive(pids[2 * (ESC_NROUTES - 1)]))
		fault_note("escapes %s: the env -i escapee outlives both decks "
		    "(the fallback's limit)", what);
	term_type(t2, "!quit\r");
	ck_assert_msg(term_wait_exit(t2, WAIT_MS, &status),
	    "the second deck did not quit");
	term_close(t2);
	fault_end(&f);
}
END_TEST

/* Build the suite: one test case per test, each with its own timeout. */
static Suite *
fault_suite(void)
{
	static const struct e2e_case	cases[] = {
		{ "flood", &test_flood, 900 },
		{ "hostile_random", &test_hostile_random, 60 },
		{ "hostile_utf8", &test_hostile_utf8, 60 },
		{ "hostile_osc", &test_hostile_osc, 120 },
		{ "hostile_dcs", &test_hostile_dcs, 120 },
		{ "hostile_sgr", &test_hostile_sgr, 60 },
		{ "hostile_cursor", &test_hostile_cursor, 60 },
		{ "hostile_resize_storm", &test_hostile_resize_storm, 90 },
		{ "many_jobs", &test_many_jobs, 120 },
		{ "fd_exhaustion", &test_fd_exhaustion, 60 },
		{ "pty_exhaustion", &test_pty_exhaustion, 60 },
		{ "log_fs_full", &test_log_fs_full, 60 },
		{ "buffered_exit", &test_buffered_exit, 60 },
		{ "closed_pty", &test_closed_pty, 60 },
		{ "stderr_flood", &test_stderr_flood, 90 },
		{ "zombies", &test_zombies, 60 },
		{ "fd_cycle", &test_fd_cycle, 180 },
	};
	Suite	*s = suite_create("fault");
	TCase	*tc;

	tc = tcase_create("exit_matrix");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_exit_matrix, 0,
	    (int)(sizeof exit_ways / sizeof exit_ways[0]));
	suite_add_tcase(s, tc);
	e2e_add_cases(s, cases, sizeof cases / sizeof cases[0]);
	tc = tcase_create("state_dir");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_state_dir, 0,
	    (int)(sizeof state_cases / sizeof state_cases[0]));
	suite_add_tcase(s, tc);
	tc = tcase_create("run_stalled");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_run_stalled);
	suite_add_tcase(s, tc);
	fault_injection_tcase(s);
	suite_add_tcase(s, fault_ctl_tcase());
	tc = tcase_create("names_escapes");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_names_escapes);
	suite_add_tcase(s, tc);
	tc = tcase_create("escapes");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_escapes, 0,
	    (int)(sizeof esc_cases / sizeof esc_cases[0]));
	tcase_add_loop_test(tc, test_escapes_deck_killed, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; the exit status says whether every test passed. */
int
main(void)
{
	return e2e_main(fault_suite());
}

/*
 * Injection (issue 10, defect 2): a {name} value never reaches a shell as
 * code, whether it lands in a command string, in the word after sh -c (or
 * -ec, through env), or in the input of a shell reading commands; where
 * no quoting can help the configuration is refused with its position.
 * Through the real binary: `jobdeck run -c CONFIG --param x=VALUE JOB`,
 * and !run at a deck's prompt.  Each value would create the file pwned
 * in the test's directory if a shell read it as code.
 */

/* Hostile values; %s is the path a command would create. */
static const char *const injection_values[] = {
	"$(touch %s)",
	"`touch %s`",
	"'; touch %s; '",
	"\"; touch %s; \"",
	"a\ntouch %s\nb",
	"x'\\''$(touch %s)' \"`touch %s`\"",
};

/* Jobs that each print <x>; none starts by itself. */
static const char injection_config[] =
    "[settings]\n"
    "shell = \"/bin/sh\"\n"
    "[[job]]\n"
    "name = \"after_c\"\n"
    "command = \"sh\"\n"
    "args = [\"-c\", \"printf '<%s>\\\\n' {x}\"]\n"
    "autostart = false\n"
    "[[job]]\n"
    "name = \"cluster_env\"\n"
    "command = \"env\"\n"
    "args = [\"A=1\", \"bash\", \"-ec\", \"printf '<%s>\\\\n' \\\"{x}\\\"\"]\n"
    "autostart = false\n"
    "[[job]]\n"
    "name = \"string\"\n"
    "command = \"printf '<%s>\\\\n' {x}\"\n"
    "autostart = false\n"
    "[[job]]\n"
    "name = \"input_sh\"\n"
    "command = \"sh\"\n"
    "input = \"printf '<%s>\\\\n' {x}\\n\"\n"
    "autostart = false\n"
    "[[job]]\n"
    "name = \"input_bash\"\n"
    "command = \"/bin/bash\"\n"
    "args = [\"-s\"]\n"
    "input = \"printf '<%s>\\\\n' \\\"{x}\\\"\\n\"\n"
    "autostart = false\n";

/*
 * Run the binary with args (NULL-terminated) in f's directory; put its
 * stdout and stderr (at most size bytes each) in out and err and return
 * its exit status.
 */
static int
fault_injection_run(struct fault *f, const char *const *args, char *out,
    char *err, size_t size)
{
	const char	*argv[16], *o, *e;
	char		 path[2][PATH_MAX];
	int		 status, fd, i, n = 0;
	ssize_t		 got;
	pid_t		 pid;

	argv[n++] = e2e_bin();
	for (i = 0; args[i] != NULL && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	o = fault_write(f, "run.out", "", 0);
	snprintf(path[0], sizeof path[0], "%s", o);
	e = fault_write(f, "run.err", "", 0);
	snprintf(path[1], sizeof path[1], "%s", e);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (chdir(f->dir) != 0)
			_exit(126);
		fd = open("/dev/null", O_RDONLY);
		dup2(fd, 0);
		fd = open(path[0], O_WRONLY);
		dup2(fd, 1);
		fd = open(path[1], O_WRONLY);
		dup2(fd, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	for (i = 0; i < 2; i++) {
		fd = open(path[i], O_RDONLY);
		ck_assert_int_ge(fd, 0);
		got = read(fd, i == 0 ? out : err, size - 1);
		ck_assert_int_ge(got, 0);
		(i == 0 ? out : err)[got] = '\0';
		close(fd);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Every job of injection_config, every value: printed as is, nothing run. */
START_TEST(test_injection_run)
{
	static const char *const jobs[] = { "after_c", "cluster_env", "string",
	    "input_sh", "input_bash" };
	struct fault	 f;
	const char	*args[8];
	char		 cfg[PATH_MAX], pwned[PATH_MAX], value[PATH_MAX * 2];
	char		 param[PATH_MAX * 3], want[PATH_MAX * 3], out[4096];
	char		 err[4096];
	size_t		 i, k;
	int		 rc;

	fault_init(&f);
	snprintf(cfg, sizeof cfg, "%s", fault_write(&f, "config.toml",
	    injection_config, sizeof injection_config - 1));
	snprintf(pwned, sizeof pwned, "%s/pwned", f.dir);
	for (k = 0; k < sizeof jobs / sizeof jobs[0]; k++) {
		for (i = 0; i < sizeof injection_values /
		    sizeof injection_values[0]; i++) {
			snprintf(value, sizeof value, injection_values[i],
			    pwned, pwned);
			snprintf(param, sizeof param, "x=%s", value);
			args[0] = "run";
			args[1] = "-c";
			args[2] = cfg;
			args[3] = "--param";
			args[4] = param;
			args[5] = jobs[k];
			args[6] = NULL;
			rc = fault_injection_run(&f, args, out, err,
			    sizeof out);
			snprintf(want, sizeof want, "<%s>\n", value);
			ck_assert_msg(rc == 0 && strcmp(out, want) == 0,
			    "%s with x=<%s>: status %d, stdout <%s>, stderr "
			    "<%s>", jobs[k], value, rc, out, err);
			ck_assert_msg(access(pwned, F_OK) != 0, "%s with "
			    "x=<%s> ran a command", jobs[k], value);
		}
	}
	fault_end(&f);
}
END_TEST

/*
 * What cannot be made safe is refused when the file is read, with its
 * position, and runs nothing: {x} for a shell that is not a POSIX one
 * (here a stand-in named fish that would create the file), after its -c,
 * and in python's -c code.
 */
START_TEST(test_injection_refused)
{
	static const struct {
		const char	*config;	/* %s: the stand-in fish */
		const char	*error;		/* after "CONFIG:" */
	} cases[] = {
		{ "[settings]\nshell = \"%s\"\n[[job]]\nname = \"j\"\n"
		  "command = \"echo {x}\"\nparams = { x = \"1\" }\n",
		  "5:11: command: {name} values are quoted for sh and " },
		{ "[[job]]\nname = \"j\"\ncommand = \"%s\"\n"
		  "args = [\"-c\", \"echo {x}\"]\nparams = { x = \"1\" }\n",
		  "4:15: args: fish reads this word as code and is not a POSIX "
		  "shell: cannot use {x} at column 6 here" },
		{ "[[job]]\nname = \"j\"\ncommand = \"python3\"\n"
		  "args = [\"-c\", \"print({x})\"]\nparams = { x = \"1\" }\n"
		  "#%s\n",
		  "4:15: args: python3 reads this word as code" },
	};
	struct fault	 f;
	const char	*args[8];
	char		 fish[PATH_MAX], pwned[PATH_MAX], script[PATH_MAX * 2];
	char		 text[PATH_MAX * 2], cfg[PATH_MAX], want[PATH_MAX * 2];
	char		 param[PATH_MAX * 2], out[4096], err[4096];
	size_t		 i;
	int		 rc;

	fault_init(&f);
	snprintf(pwned, sizeof pwned, "%s/pwned", f.dir);
	snprintf(script, sizeof script, "#!/bin/sh\ntouch %s\n", pwned);
	snprintf(fish, sizeof fish, "%s", fault_write(&f, "fish", script,
	    strlen(script)));
	ck_assert_int_eq(chmod(fish, 0700), 0);
	snprintf(param, sizeof param, "x=$(touch %s)", pwned);
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(text, sizeof text, cases[i].config, fish);
		snprintf(cfg, sizeof cfg, "%s", fault_write(&f, "config.toml",
		    text, strlen(text)));
		args[0] = "run";
		args[1] = "-c";
		args[2] = cfg;
		args[3] = "--param";
		args[4] = param;
		args[5] = "j";
		args[6] = NULL;
		rc = fault_injection_run(&f, args, out, err, sizeof out);
		snprintf(want, sizeof want, "%s:%s", cfg, cases[i].error);
		ck_assert_msg(rc == 2 && strstr(err, want) != NULL, "case %zu: "
		    "status %d, stderr <%s>, want <%s>", i, rc, err, want);
		args[0] = "--check-config";
		args[3] = NULL;
		rc = fault_injection_run(&f, args, out, err, sizeof out);
		ck_assert_msg(rc == 2 && strstr(err, want) != NULL, "case %zu: "
		    "--check-config: status %d, stderr <%s>", i, rc, err);
		ck_assert_msg(access(pwned, F_OK) != 0, "case %zu ran", i);
	}
	fault_end(&f);
}
END_TEST

/*
 * !run at a deck's prompt, with a value for sh -c and one for a shell
 * reading its input on the job's terminal: the pane shows each value as
 * it is, and nothing ran.
 */
START_TEST(test_injection_deck)
{
	struct fault	 f;
	const char	*args[4];
	char		 cfg[PATH_MAX], pwned[PATH_MAX], line[PATH_MAX * 2];
	char		 want[PATH_MAX * 2];

	fault_init(&f);
	snprintf(cfg, sizeof cfg, "%s", fault_write(&f, "config.toml",
	    injection_config, sizeof injection_config - 1));
	snprintf(pwned, sizeof pwned, "%s/pwned", f.dir);
	args[0] = "-c";
	args[1] = cfg;
	args[2] = NULL;
	fault_start(&f, args, NULL);

	snprintf(line, sizeof line, "!run after_c 'x=$(touch %s)'", pwned);
	fault_run(&f, line);
	snprintf(want, sizeof want, "<$(touch %s)>", pwned);
	EXPECT_IN(&f, &pane, want, WAIT_MS);

	snprintf(line, sizeof line, "!run input_sh \"x='; touch %s; '\"",
	    pwned);
	fault_run(&f, line);
	snprintf(want, sizeof want, "<'; touch %s; '>", pwned);
	EXPECT_IN(&f, &pane, want, WAIT_MS);
	term_pump(f.t, 300);
	FAULT_ASSERT(&f, access(pwned, F_OK) != 0, "a !run value ran a "
	    "command");
	fault_quit_clean(&f, "!run with hostile values");
	fault_end(&f);
}
END_TEST

/* Add the injection cases to the suite, in their own test case. */
static void
fault_injection_tcase(Suite *s)
{
	TCase	*tc;

	tc = tcase_create("injection");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_injection_run);
	tcase_add_test(tc, test_injection_refused);
	tcase_add_test(tc, test_injection_deck);
	suite_add_tcase(s, tc);
}
