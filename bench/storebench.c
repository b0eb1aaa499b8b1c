/*
 * storebench.c: the output store in `make bench` (issue 11), each workload
 * side by side with its peer in the same run.
 *
 *  logs        !logs RUN of a large log and of a 3,000,000-line log: time
 *              from Enter to the first screen (its position "1-... of N"
 *              and line 1 drawn) and the deck's added RSS, against `less
 *              FILE` on the same bytes (the run's segment file) on a pty of
 *              the same size: time from exec to its first screen, its RSS.
 *  grep        a rare literal over 20 runs (1 GB in all): `jobdeck ctl grep`
 *              against a deck on that store (time to the client's exit, the
 *              deck's peak RSS over its RSS before) and grep_new/grep_step
 *              in a forked child (ru_maxrss), against GNU `grep -c` on the
 *              same 20 files (ru_maxrss).  Every file is read once first so
 *              all of them search the page cache.
 *  scrollback  one job `seq 1 1000000` with scrollback = 1000000 until it
 *              has ended: the deck's RSS, against a tmux server with
 *              history-limit 1000000 running the same command.
 *
 * The runs are written straight into state directories with the store API
 * (an earlier deck's runs), which is far faster than making a job print
 * them.  jobdeck, less and tmux run on a 120x40 pty read through libvterm
 * by the end-to-end harness (tests/e2e/term.c), which also kills whatever
 * they leave behind.  Memory is VmRSS (VmHWM for a peak, after resetting
 * it through /proc/PID/clear_refs) from /proc/PID/status.  The medians over
 * the runs are printed as one table per workload with jobdeck's ratios to
 * its peer; every number goes to a TSV file.
 *
 * usage: storebench [-m full|quick] [-n runs] [-w logs,grep,scrollback]
 *                   [-o tsv] -j JOBDECK
 */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "e2e/term.h"
#include "grep.h"
#include "store.h"

#define SB_RUNS_MAX	10
#define SB_GREP_RUNS	20
#define SB_GREP_WORD	"quokka"	/* one line in SB_RARE has it */
#define SB_RARE		10000
#define SB_GREP_BUDGET	(4 * 1024 * 1024) /* ctl.c's CTL_GREP_BUDGET */
#define SB_CHUNK	(1024 * 1024)	/* bytes per store_run_write() */
#define SB_SEQ		1000000		/* lines of the scrollback job */
#define SB_WAIT_MS	120000		/* any single wait */

/* The rows of the tables: jobdeck's faces and the peers. */
enum {
	R_JOBDECK,
	R_ENGINE,		/* grep_step in a forked child */
	R_LESS,
	R_GREP,
	R_TMUX,
	R_COUNT
};

static const char *const row_names[R_COUNT] = {
	"jobdeck", "grep_step", "less", "GNU grep", "tmux"
};

/* What is measured; each metric belongs to one table. */
enum {
	M_BIG_FIRST,
	M_BIG_RSS,
	M_LINES_FIRST,
	M_LINES_RSS,
	M_GREP_TIME,
	M_GREP_RATE,
	M_GREP_PEAK,
	M_GREP_MATCHES,
	M_SB_RSS,
	M_SB_WAIT,
	M_COUNT
};

/* A metric: its table, TSV names, heading, precision, ratio or not. */
struct metric {
	int		 table;
	const char	*wl;
	const char	*key;
	const char	*head;
	int		 prec;
	int		 ratio;
};

static const struct metric metrics[M_COUNT] = {
	{ 0, "logs", "big_first_ms", "big first ms", 1, 1 },
	{ 0, "logs", "big_rss_mb", "big +RSS MB", 1, 1 },
	{ 0, "logs", "lines_first_ms", "lines first ms", 1, 1 },
	{ 0, "logs", "lines_rss_mb", "lines +RSS MB", 1, 1 },
	{ 1, "grep", "time_s", "time s", 3, 1 },
	{ 1, "grep", "mb_per_s", "MB/s", 0, 1 },
	{ 1, "grep", "peak_mb", "peak MB", 1, 1 },
	{ 1, "grep", "matches", "matches", 0, 0 },
	{ 2, "scrollback", "rss_mb", "rss MB", 1, 1 },
	{ 2, "scrollback", "wait_s", "seq wall s", 2, 1 },
};

/* The tables: which rows they have; the last row is the peer. */
#define TABLE_COUNT	3
static const int table_rows[TABLE_COUNT][4] = {
	{ R_JOBDECK, R_LESS, -1 },
	{ R_JOBDECK, R_ENGINE, R_GREP, -1 },
	{ R_JOBDECK, R_TMUX, -1 },
};

enum { WL_LOGS, WL_GREP, WL_SCROLLBACK, WL_COUNT };
static const char *const wl_names[WL_COUNT] = { "logs", "grep", "scrollback" };

/* Everything the benchmark knows. */
struct sb {
	int		 runs;
	int		 quick;
	int		 wl_on[WL_COUNT];
	const char	*jobdeck;	/* absolute paths */
	char		*less;
	char		*grep;
	char		*tmux;
	char		 root[200];
	FILE		*tsv;
	int64_t		 big_bytes;	/* sizes of this mode */
	int64_t		 lines;
	int64_t		 grep_bytes;
	/* The data, made once. */
	char		 log_state[PATH_MAX];	/* XDG_STATE_HOME of logs */
	char		 grep_state[PATH_MAX];	/* XDG_STATE_HOME of grep */
	char		 big_run[STORE_ID_LEN + 1];
	char		 lines_run[STORE_ID_LEN + 1];
	int64_t		 big_count;	/* lines of the big run */
	int64_t		 grep_expect;	/* lines with SB_GREP_WORD */
	char		*grep_files[SB_GREP_RUNS];
	double		 res[M_COUNT][R_COUNT][SB_RUNS_MAX];
	char		*why[M_COUNT][R_COUNT];
	char		 title[TABLE_COUNT][256];
};

static void	 usage(void) __attribute__((noreturn));
static void	 die(const char *, ...)
		     __attribute__((noreturn, format(printf, 1, 2)));
static char	*xasprintf(const char *, ...)
		     __attribute__((format(printf, 1, 2)));
static int64_t	 wall_ms(void);
static double	 now_s(void);
static char	*find_program(const char *);
static int	 rm_entry(const char *, const struct stat *, int,
		     struct FTW *);
static void	 guard_start(const char *);
static size_t	 gen_line(char *, int64_t, int);
static int64_t	 make_run(struct sb *, const char *, const char *, int64_t,
		     int64_t, int, char *);
static char	*segment_path(const char *, const char *);
static void	 warm(const char *);
static long	 proc_kb(pid_t, const char *);
static int	 clear_peak(pid_t);
static int	 master_fd(void);
static long	 tmux_server_kb(struct term *);
static void	 record(struct sb *, int, int, int, double, const char *);
static int	 wait_file(struct term *, const char *, int);
static int	 wait_socket(struct term *);
static void	 wl_logs_deck(struct sb *, int);
static void	 wl_logs_less(struct sb *, int, const char *, int64_t, int,
		     int);
static pid_t	 spawn(char *const *, char *const *, int);
static void	 wl_grep_deck(struct sb *, int);
static void	 wl_grep_engine(struct sb *, int);
static void	 wl_grep_gnu(struct sb *, int);
static void	 wl_scrollback(struct sb *, int, int);
static int	 cmp_double(const void *, const void *);
static int	 row_median(struct sb *, int, int, double *, int *);
static void	 print_table(struct sb *, int);

/* Print how to run storebench and exit. */
static void
usage(void)
{
	fprintf(stderr, "usage: storebench [-m full|quick] [-n runs] "
	    "[-w logs,grep,scrollback] [-o tsv] -j jobdeck\n");
	exit(2);
}

/* Report a fatal error and exit (term's guards clean up after us). */
static void
die(const char *fmt, ...)
{
	va_list	ap;

	fputs("storebench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* Format into a new string or die. */
static char *
xasprintf(const char *fmt, ...)
{
	va_list	 ap;
	char	*s;
	int	 n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("out of memory");
	return s;
}

/* The wall clock in milliseconds since the epoch. */
static int64_t
wall_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The monotonic clock in seconds. */
static double
now_s(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A program's absolute path from PATH, or NULL. */
static char *
find_program(const char *name)
{
	const char	*path = getenv("PATH");
	char		*copy, *dir, *save = NULL, *p;

	if (path == NULL)
		path = "/usr/bin:/bin";
	copy = xasprintf("%s", path);
	for (dir = strtok_r(copy, ":", &save); dir != NULL;
	    dir = strtok_r(NULL, ":", &save)) {
		p = xasprintf("%s/%s", dir, name);
		if (access(p, X_OK) == 0) {
			free(copy);
			return p;
		}
		free(p);
	}
	free(copy);
	return NULL;
}

/* Remove one entry of a tree being deleted (nftw callback). */
static int
rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

/*
 * Fork the guard: in a session of its own, it waits until the pipe from
 * storebench closes (however storebench ends, SIGKILL too) and removes
 * the root with its gigabytes of runs.  The terms have guards of their
 * own for the processes.
 */
static void
guard_start(const char *root)
{
	char	c;
	int	p[2];

	if (pipe2(p, O_CLOEXEC) == -1)
		die("pipe: %s", strerror(errno));
	switch (fork()) {
	case -1:
		die("fork: %s", strerror(errno));
	case 0:
		setsid();
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		close(p[1]);
		while (read(p[0], &c, 1) == -1 && errno == EINTR)
			;
		nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		_exit(0);
	}
	close(p[0]);	/* p[1] stays open until we exit */
}

/*
 * Line i (0-based) of a log: its 1-based number first, so a screen shows
 * where it is; every SB_RARE-th line has SB_GREP_WORD.  Wide lines are
 * about 97 bytes, narrow ones 35 (3 M lines are 105 MB).  Every line
 * fits in 120 columns.
 */
static size_t
gen_line(char *buf, int64_t i, int wide)
{
	static const char *const lvl[] = { "INFO ", "DEBUG", "INFO ", "WARN " };
	int64_t	n = i + 1;
	int	len;

	if (!wide)
		len = sprintf(buf, "%010lld %s svc-%02d took %03dms%s\n",
		    (long long)n, lvl[n % 4], (int)(n % 37),
		    (int)(n * 7 % 1000),
		    i % SB_RARE == SB_RARE / 2 ? " " SB_GREP_WORD : "");
	else
		len = sprintf(buf, "%010lld 2024-05-%02d %02d:%02d:%02d.%03d %s "
		    "svc-%02d req=%08llx GET /api/v1/items/%lld took %03dms%s\n",
		    (long long)n, (int)(1 + n / 86400000 % 28),
		    (int)(n / 3600000 % 24), (int)(n / 60000 % 60),
		    (int)(n / 1000 % 60), (int)(n % 1000), lvl[n % 4],
		    (int)(n % 37), (unsigned long long)(n * 2654435761ULL &
		    0xffffffffULL), (long long)(n * 13 % 1000003),
		    (int)(n * 7 % 1000),
		    i % SB_RARE == SB_RARE / 2 ? " " SB_GREP_WORD : "");
	return (size_t)len;
}

/*
 * Write one ended run of bytes (at least, in whole lines) or lines into
 * the store at dir, as an earlier deck would have; its id goes to run.
 * Returns the number of lines written; dies on failure.
 */
static int64_t
make_run(struct sb *b, const char *dir, const char *name, int64_t bytes,
    int64_t lines, int wide, char *run)
{
	struct store_limits	 lim;
	struct store_meta	 m;
	struct store		*st;
	struct store_run	*sr;
	char			*buf, *cause = NULL;
	size_t			 len;
	int64_t			 i = 0, total = 0;

	(void)b;
	store_default_limits(&lim);
	lim.max_run_bytes = (int64_t)8 << 30;	/* one segment */
	lim.max_total_bytes = (int64_t)64 << 30;
	if ((st = store_open(dir, &lim, &cause)) == NULL)
		die("store_open %s: %s", dir, cause);
	memset(&m, 0, sizeof m);
	m.job = 1;
	m.start = 1;
	m.name = (char *)name;
	m.command = (char *)name;
	m.pty = 1;
	m.pid = 1;
	m.started = wall_ms();
	m.state = (char *)"running";
	if ((sr = store_run_new(st, &m, &cause)) == NULL)
		die("store_run_new: %s", cause);
	buf = malloc(SB_CHUNK + 256);
	if (buf == NULL)
		die("out of memory");
	while ((bytes > 0 && total < bytes) || (lines > 0 && i < lines)) {
		len = 0;
		while (len < SB_CHUNK && ((bytes > 0 && total + (int64_t)len <
		    bytes) || (lines > 0 && i < lines)))
			len += gen_line(buf + len, i++, wide);
		if (store_run_write(sr, STORE_TTY, buf, len, wall_ms()) != 0)
			die("store_run_write: %s", store_run_error(sr));
		total += (int64_t)len;
	}
	free(buf);
	m.ended = wall_ms();
	m.state = (char *)"completed";
	m.has_status = 1;
	m.status = 0;
	if (store_run_flush(sr, m.ended) != 0 || store_run_update(sr, &m) != 0)
		die("store_run_update: %s", store_run_error(sr));
	snprintf(run, STORE_ID_LEN + 1, "%s", store_run_id(sr));
	store_run_close(sr);
	store_free(st);
	return i;
}

/* The one segment file of a run (the run's bytes exactly); dies if more. */
static char *
segment_path(const char *dir, const char *run)
{
	struct stat	 sb;
	char		*p;

	p = xasprintf("%s/runs/%s/out.1", dir, run);
	if (stat(p, &sb) == 0)
		die("run %s has more than one segment", run);
	free(p);
	p = xasprintf("%s/runs/%s/out.0", dir, run);
	if (stat(p, &sb) == -1)
		die("%s: %s", p, strerror(errno));
	return p;
}

/* Read a file through once so it is in the page cache. */
static void
warm(const char *path)
{
	static char	buf[1 << 16];
	int		fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		die("%s: %s", path, strerror(errno));
	while (read(fd, buf, sizeof buf) > 0)
		;
	close(fd);
}

/* A "Vm...:" field of /proc/PID/status in kB, or -1. */
static long
proc_kb(pid_t pid, const char *field)
{
	char	 path[64], line[256];
	size_t	 len = strlen(field);
	FILE	*f;
	long	 kb = -1;

	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, field, len) == 0 && line[len] == ':') {
			kb = atol(line + len + 1);
			break;
		}
	}
	fclose(f);
	return kb;
}

/* Reset a process's peak RSS (VmHWM) to its RSS now; 0 or -1. */
static int
clear_peak(pid_t pid)
{
	char	path[64];
	int	fd, ok;

	snprintf(path, sizeof path, "/proc/%ld/clear_refs", (long)pid);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	ok = write(fd, "5", 1) == 1;
	close(fd);
	return ok ? 0 : -1;
}

/*
 * The master of the one pty open here (the term's), found as our fd on
 * /dev/ptmx, or -1.  A timed key is written to it directly: term_type()
 * reads for 20 ms after typing, which would be the floor of every time.
 */
static int
master_fd(void)
{
	DIR		*d;
	struct dirent	*de;
	char		 path[300], target[64];
	ssize_t		 n;
	int		 fd = -1;

	if ((d = opendir("/proc/self/fd")) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL && fd == -1) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof path, "/proc/self/fd/%s", de->d_name);
		n = readlink(path, target, sizeof target - 1);
		if (n > 0) {
			target[n] = '\0';
			if (strcmp(target, "/dev/ptmx") == 0)
				fd = atoi(de->d_name);
		}
	}
	closedir(d);
	return fd;
}

/* VmRSS of the tmux server among a term's processes, or -1. */
static long
tmux_server_kb(struct term *t)
{
	pid_t	pids[64];
	size_t	n, i;
	char	path[64], comm[64];
	FILE	*f;
	long	kb = -1;

	n = term_procs(t, pids, 64);
	for (i = 0; i < n && kb == -1; i++) {
		if (pids[i] == term_pid(t))
			continue;
		snprintf(path, sizeof path, "/proc/%ld/comm", (long)pids[i]);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		if (fgets(comm, sizeof comm, f) != NULL &&
		    strncmp(comm, "tmux", 4) == 0)
			kb = proc_kb(pids[i], "VmRSS");
		fclose(f);
	}
	return kb;
}

/* Keep one measurement (NaN with a reason for a failure) and log it. */
static void
record(struct sb *b, int m, int row, int run, double v, const char *why)
{
	b->res[m][row][run] = v;
	if (isnan(v) && why != NULL && b->why[m][row] == NULL)
		b->why[m][row] = xasprintf("%s", why);
	if (isnan(v))
		fprintf(b->tsv, "%d\t%s\t%s\t%s\t\tfail: %s\n", run + 1,
		    metrics[m].wl, row_names[row], metrics[m].key,
		    why != NULL ? why : "?");
	else
		fprintf(b->tsv, "%d\t%s\t%s\t%s\t\t%.6g\n", run + 1,
		    metrics[m].wl, row_names[row], metrics[m].key, v);
	fflush(b->tsv);
}

/* Read the program's output until a file exists; 0, or -1 after ms. */
static int
wait_file(struct term *t, const char *path, int ms)
{
	int64_t	end = term_now_ms() + ms;

	while (access(path, F_OK) == -1) {
		if (term_now_ms() >= end)
			return -1;
		term_pump(t, 20);
	}
	return 0;
}

/* Wait for a deck's control socket, then for its screen to settle. */
static int
wait_socket(struct term *t)
{
	char	path[PATH_MAX];

	snprintf(path, sizeof path, "%s/run/jobdeck/default.sock",
	    term_tmpdir(t));
	if (wait_file(t, path, 20000) == -1)
		return -1;
	term_pump(t, 500);
	return 0;
}

/*
 * Workload logs, jobdeck: a deck on the logs store; !logs RUN for each
 * run, timed from Enter until its first screen is drawn, and its RSS
 * before and after.  A deck per run of the bench, so one log's view does
 * not warm the other's.
 */
static void
wl_logs_deck(struct sb *b, int run)
{
	const char	*argv[] = { b->jobdeck, "-c", "/dev/null", NULL };
	char		 env0[PATH_MAX + 32], cmd[64], pos[64], why[128];
	const char	*env[] = { env0, NULL };
	const char	*runs[2] = { b->big_run, b->lines_run };
	int64_t		 counts[2] = { b->big_count, b->lines };
	int		 first_m[2] = { M_BIG_FIRST, M_LINES_FIRST };
	struct term	*t;
	double		 t0, t1;
	long		 rss0, rss1;
	int		 k, fd;

	snprintf(env0, sizeof env0, "XDG_STATE_HOME=%s", b->log_state);
	for (k = 0; k < 2; k++) {
		if ((t = term_start(argv, env)) == NULL || wait_socket(t) == -1) {
			snprintf(why, sizeof why, "the deck did not start");
			record(b, first_m[k], R_JOBDECK, run, NAN, why);
			record(b, first_m[k] + 1, R_JOBDECK, run, NAN, why);
			term_close(t);
			continue;
		}
		snprintf(cmd, sizeof cmd, "!logs %s", runs[k]);
		snprintf(pos, sizeof pos, " of %lld", (long long)counts[k]);
		term_type(t, cmd);
		term_pump(t, 200);
		rss0 = proc_kb(term_pid(t), "VmRSS");
		if ((fd = master_fd()) == -1) {
			snprintf(why, sizeof why, "no pty master found");
			record(b, first_m[k], R_JOBDECK, run, NAN, why);
			record(b, first_m[k] + 1, R_JOBDECK, run, NAN, why);
			term_close(t);
			continue;
		}
		t0 = now_s();
		if (write(fd, "\r", 1) != 1 ||
		    term_wait_text(t, pos, SB_WAIT_MS) == 0 ||
		    term_wait_text(t, "1-", 1000) == 0 ||
		    term_wait_text(t, "0000000001 ", 1000) == 0) {
			snprintf(why, sizeof why, "no \"1-... of %lld\" and "
			    "line 1 after %d s", (long long)counts[k],
			    SB_WAIT_MS / 1000);
			record(b, first_m[k], R_JOBDECK, run, NAN, why);
			record(b, first_m[k] + 1, R_JOBDECK, run, NAN, why);
			term_close(t);
			continue;
		}
		t1 = now_s();
		term_pump(t, 300);
		rss1 = proc_kb(term_pid(t), "VmRSS");
		record(b, first_m[k], R_JOBDECK, run, (t1 - t0) * 1e3, NULL);
		record(b, first_m[k] + 1, R_JOBDECK, run, rss0 < 0 || rss1 < 0 ?
		    NAN : (rss1 - rss0) / 1024.0, "no /proc/PID/status");
		fprintf(b->tsv, "%d\tlogs\tjobdeck\t%s_rss_before_mb\t\t%.1f\n",
		    run + 1, k == 0 ? "big" : "lines", rss0 / 1024.0);
		term_close(t);
	}
}

/*
 * Workload logs, less: `less FILE` on the run's segment (the same bytes);
 * time from exec until the last line of its first screen is drawn, and
 * its RSS then (all of it: less starts for this).
 */
static void
wl_logs_less(struct sb *b, int run, const char *file, int64_t lines,
    int m_first, int m_rss)
{
	const char	*argv[] = { b->less, file, NULL };
	const char	*env[] = { "LESS", "LESSOPEN", "LESSCLOSE",
			    "LESSHISTFILE=-", NULL };
	char		 want[32], why[128];
	struct term	*t;
	double		 t0, t1;
	long		 rss;

	/* The last row is the prompt; the rows above it show lines 1... */
	snprintf(want, sizeof want, "%010lld ", (long long)(lines <
	    TERM_ROWS - 1 ? lines : TERM_ROWS - 1));
	t0 = now_s();
	if ((t = term_start(argv, env)) == NULL ||
	    term_wait_text(t, want, SB_WAIT_MS) == 0 ||
	    term_wait_text(t, "0000000001 ", 1000) == 0) {
		snprintf(why, sizeof why, "no first screen after %d s",
		    SB_WAIT_MS / 1000);
		record(b, m_first, R_LESS, run, NAN, why);
		record(b, m_rss, R_LESS, run, NAN, why);
		term_close(t);
		return;
	}
	t1 = now_s();
	term_pump(t, 300);
	rss = proc_kb(term_pid(t), "VmRSS");
	record(b, m_first, R_LESS, run, (t1 - t0) * 1e3, NULL);
	record(b, m_rss, R_LESS, run, rss < 0 ? NAN : rss / 1024.0,
	    "no /proc/PID/status");
	term_close(t);
}

/* Fork and exec argv with env (NULL: ours), stdout to fd; the pid. */
static pid_t
spawn(char *const *argv, char *const *env, int fd)
{
	pid_t	pid;
	int	null;

	if ((pid = fork()) == -1)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		if ((null = open("/dev/null", O_RDWR)) != -1) {
			dup2(null, 0);
			dup2(fd != -1 ? fd : null, 1);
		}
		if (env != NULL)
			execve(argv[0], argv, env);
		else
			execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/*
 * Workload grep, through the deck: a deck on the grep store, then
 * `jobdeck ctl grep WORD`; time to the client's exit, the deck's peak RSS
 * over its RSS before, and the matches printed.
 */
static void
wl_grep_deck(struct sb *b, int run)
{
	const char	*argv[] = { b->jobdeck, "-c", "/dev/null", NULL };
	char		 env0[PATH_MAX + 32], env1[PATH_MAX + 32];
	const char	*env[] = { env0, NULL };
	char		*cargv[] = { (char *)b->jobdeck, (char *)"ctl",
			    (char *)"grep", (char *)SB_GREP_WORD, NULL };
	char		*cenv[] = { env0, env1, (char *)"LANG=C.UTF-8", NULL };
	char		 why[160], buf[65536];
	struct pollfd	 pfd;
	struct term	*t;
	double		 t0, t1;
	long		 rss0, peak;
	int64_t		 lines = 0;
	ssize_t		 n, i;
	pid_t		 pid;
	int		 p[2], st;

	snprintf(env0, sizeof env0, "XDG_STATE_HOME=%s", b->grep_state);
	if ((t = term_start(argv, env)) == NULL || wait_socket(t) == -1) {
		snprintf(why, sizeof why, "the deck did not start");
		goto fail;
	}
	snprintf(env1, sizeof env1, "XDG_RUNTIME_DIR=%s/run", term_tmpdir(t));
	if (clear_peak(term_pid(t)) == -1) {
		snprintf(why, sizeof why, "cannot reset VmHWM: %s",
		    strerror(errno));
		goto fail;
	}
	rss0 = proc_kb(term_pid(t), "VmRSS");
	if (pipe(p) == -1)
		die("pipe: %s", strerror(errno));
	t0 = now_s();
	pid = spawn(cargv, cenv, p[1]);
	close(p[1]);
	/* Read the client, and the deck's screen so its drawing never waits. */
	pfd.fd = p[0];
	pfd.events = POLLIN;
	for (;;) {
		if (poll(&pfd, 1, 10) == 0) {
			term_pump(t, 1);
			continue;
		}
		n = read(p[0], buf, sizeof buf);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (i = 0; i < n; i++)
			lines += buf[i] == '\n';
	}
	close(p[0]);
	waitpid(pid, &st, 0);
	t1 = now_s();
	peak = proc_kb(term_pid(t), "VmHWM");
	term_pump(t, 50);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		snprintf(why, sizeof why, "jobdeck ctl grep exited %d",
		    WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		goto fail;
	}
	record(b, M_GREP_TIME, R_JOBDECK, run, t1 - t0, NULL);
	record(b, M_GREP_RATE, R_JOBDECK, run, b->grep_bytes / 1e6 /
	    (t1 - t0), NULL);
	record(b, M_GREP_PEAK, R_JOBDECK, run, rss0 < 0 || peak < 0 ? NAN :
	    (peak - rss0) / 1024.0, "no /proc/PID/status");
	record(b, M_GREP_MATCHES, R_JOBDECK, run, (double)lines, NULL);
	fprintf(b->tsv, "%d\tgrep\tjobdeck\trss_before_mb\t\t%.1f\n",
	    run + 1, rss0 / 1024.0);
	term_close(t);
	return;
fail:
	record(b, M_GREP_TIME, R_JOBDECK, run, NAN, why);
	record(b, M_GREP_RATE, R_JOBDECK, run, NAN, why);
	record(b, M_GREP_PEAK, R_JOBDECK, run, NAN, why);
	record(b, M_GREP_MATCHES, R_JOBDECK, run, NAN, why);
	term_close(t);
}

/*
 * Workload grep, the engine alone: grep_new over every run of the store
 * and grep_step with the deck's budget until done, in a forked child;
 * its time and ru_maxrss, and its matches through a pipe.
 */
static void
wl_grep_engine(struct sb *b, int run)
{
	struct rusage	 ru;
	struct grep	*g;
	char		*cause = NULL, dir[PATH_MAX + 16], why[160];
	int64_t		 matches = -1;
	double		 t0, t1;
	pid_t		 pid;
	int		 p[2], st;

	snprintf(dir, sizeof dir, "%s/jobdeck", b->grep_state);
	if (pipe(p) == -1)
		die("pipe: %s", strerror(errno));
	t0 = now_s();
	if ((pid = fork()) == -1)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		close(p[0]);
		if ((g = grep_new(dir, SB_GREP_WORD, 0, NULL, 0,
		    &cause)) == NULL)
			_exit(1);
		while (grep_step(g, SB_GREP_BUDGET, NULL, NULL) != 0)
			;
		matches = grep_matches(g);
		if (write(p[1], &matches, sizeof matches) != sizeof matches)
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &matches, sizeof matches) != sizeof matches)
		matches = -1;
	close(p[0]);
	wait4(pid, &st, 0, &ru);
	t1 = now_s();
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || matches < 0) {
		snprintf(why, sizeof why, "the child failed (status %d)", st);
		record(b, M_GREP_TIME, R_ENGINE, run, NAN, why);
		record(b, M_GREP_RATE, R_ENGINE, run, NAN, why);
		record(b, M_GREP_PEAK, R_ENGINE, run, NAN, why);
		record(b, M_GREP_MATCHES, R_ENGINE, run, NAN, why);
		return;
	}
	record(b, M_GREP_TIME, R_ENGINE, run, t1 - t0, NULL);
	record(b, M_GREP_RATE, R_ENGINE, run, b->grep_bytes / 1e6 / (t1 - t0),
	    NULL);
	record(b, M_GREP_PEAK, R_ENGINE, run, ru.ru_maxrss / 1024.0, NULL);
	record(b, M_GREP_MATCHES, R_ENGINE, run, (double)matches, NULL);
}

/*
 * Workload grep, the peer: `grep -c WORD` over the 20 segment files;
 * its time and ru_maxrss, and the sum of its counts.
 */
static void
wl_grep_gnu(struct sb *b, int run)
{
	struct rusage	 ru, floor;
	char		*argv[SB_GREP_RUNS + 4], buf[65536], why[160], *s;
	double		 t0, t1;
	int64_t		 sum = 0;
	size_t		 got = 0;
	ssize_t		 n;
	pid_t		 pid;
	int		 p[2], st, i;

	argv[0] = b->grep;
	argv[1] = (char *)"-c";
	argv[2] = (char *)SB_GREP_WORD;
	for (i = 0; i < SB_GREP_RUNS; i++)
		argv[3 + i] = b->grep_files[i];
	argv[3 + SB_GREP_RUNS] = NULL;
	if (pipe(p) == -1)
		die("pipe: %s", strerror(errno));
	t0 = now_s();
	pid = spawn(argv, NULL, p[1]);
	close(p[1]);
	while (got < sizeof buf - 1 &&
	    (n = read(p[0], buf + got, sizeof buf - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
	close(p[0]);
	wait4(pid, &st, 0, &ru);
	t1 = now_s();
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		snprintf(why, sizeof why, "grep exited %d", WIFEXITED(st) ?
		    WEXITSTATUS(st) : 128 + WTERMSIG(st));
		record(b, M_GREP_TIME, R_GREP, run, NAN, why);
		record(b, M_GREP_RATE, R_GREP, run, NAN, why);
		record(b, M_GREP_PEAK, R_GREP, run, NAN, why);
		record(b, M_GREP_MATCHES, R_GREP, run, NAN, why);
		return;
	}
	/*
	 * ru_maxrss counts the forked copy of storebench before the exec:
	 * the same for a child that execs true is the floor, in the TSV.
	 */
	argv[0] = (char *)"/bin/true";
	argv[1] = NULL;
	wait4(spawn(argv, NULL, -1), NULL, 0, &floor);
	fprintf(b->tsv, "%d\tgrep\tGNU grep\tfloor_mb\t\t%.1f\n", run + 1,
	    floor.ru_maxrss / 1024.0);
	for (s = buf; (s = strchr(s, ':')) != NULL; s++)
		sum += atoll(s + 1);
	record(b, M_GREP_TIME, R_GREP, run, t1 - t0, NULL);
	record(b, M_GREP_RATE, R_GREP, run, b->grep_bytes / 1e6 / (t1 - t0),
	    NULL);
	record(b, M_GREP_PEAK, R_GREP, run, ru.ru_maxrss / 1024.0, NULL);
	record(b, M_GREP_MATCHES, R_GREP, run, (double)sum, NULL);
}

/*
 * Workload scrollback: one job `seq 1 SB_SEQ` (then it touches a file)
 * with a scrollback of a million lines, in jobdeck or tmux; once the file
 * is there and the last number drawn, the manager's RSS (tmux: its
 * server's) and the time from the manager's start to seq's end.
 */
static void
wl_scrollback(struct sb *b, int run, int row)
{
	char		 conf[PATH_MAX], done[PATH_MAX], sock[PATH_MAX];
	char		*job, why[160], last[32];
	const char	*argv[12];
	struct term	*t = NULL;
	FILE		*f;
	double		 t0, t1;
	long		 kb;

	snprintf(conf, sizeof conf, "%s/sb%d.conf", b->root, run);
	snprintf(done, sizeof done, "%s/sb%d-%s.done", b->root, run,
	    row_names[row]);
	snprintf(sock, sizeof sock, "%s/tmux%d.sock", b->root, run);
	snprintf(last, sizeof last, "%d", SB_SEQ);
	if ((f = fopen(conf, "w")) == NULL)
		die("%s: %s", conf, strerror(errno));
	if (row == R_JOBDECK)
		fprintf(f, "[settings]\nscrollback = %d\n", SB_SEQ);
	else
		fprintf(f, "set -g history-limit %d\nset -g status off\n",
		    SB_SEQ);
	if (fclose(f) == EOF)
		die("%s: %s", conf, strerror(errno));
	/*
	 * tmux 3.3a drops what it has not read of a pane whose process has
	 * ended (with remain-on-exit the last line shown was 998288), so
	 * there the job sleeps once seq is done instead of ending.
	 */
	job = xasprintf("seq 1 %d; : >%s%s", SB_SEQ, done, row == R_TMUX ?
	    "; exec sleep 1000" : "");
	if (row == R_JOBDECK) {
		argv[0] = b->jobdeck;
		argv[1] = "-c";
		argv[2] = conf;
		argv[3] = "--";
		argv[4] = job;
		argv[5] = NULL;
	} else {
		argv[0] = b->tmux;
		argv[1] = "-S";
		argv[2] = sock;
		argv[3] = "-f";
		argv[4] = conf;
		argv[5] = "new-session";
		argv[6] = job;
		argv[7] = NULL;
	}
	t0 = now_s();
	if ((t = term_start(argv, NULL)) == NULL) {
		snprintf(why, sizeof why, "cannot start: %s", strerror(errno));
		goto fail;
	}
	if (wait_file(t, done, SB_WAIT_MS) == -1) {
		snprintf(why, sizeof why, "seq not done after %d s",
		    SB_WAIT_MS / 1000);
		goto fail;
	}
	t1 = now_s();
	if (term_wait_text(t, last, 20000) == 0) {
		snprintf(why, sizeof why, "%s not drawn", last);

		goto fail;
	}
	term_pump(t, 500);
	kb = row == R_JOBDECK ? proc_kb(term_pid(t), "VmRSS") :
	    tmux_server_kb(t);
	if (kb < 0) {
		snprintf(why, sizeof why, "no process to measure");
		goto fail;
	}
	record(b, M_SB_RSS, row, run, kb / 1024.0, NULL);
	record(b, M_SB_WAIT, row, run, t1 - t0, NULL);
	free(job);
	term_close(t);
	return;
fail:
	record(b, M_SB_RSS, row, run, NAN, why);
	record(b, M_SB_WAIT, row, run, NAN, why);
	free(job);
	term_close(t);
}

/* Order doubles for qsort. */
static int
cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A row's median of a metric over its good runs; -1 if none was good. */
static int
row_median(struct sb *b, int m, int row, double *out, int *good)
{
	double	v[SB_RUNS_MAX];
	int	i, n = 0;

	for (i = 0; i < b->runs; i++) {
		if (!isnan(b->res[m][row][i]))
			v[n++] = b->res[m][row][i];
	}
	*good = n;
	if (n == 0)
		return -1;
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	*out = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	return 0;
}

/*
 * Print one table as jdbench does: a row per face of jobdeck and for the
 * peer (the last row) with the medians, then each jobdeck row's ratio to
 * the peer.
 */
static void
print_table(struct sb *b, int t)
{
	double		 med[M_COUNT][R_COUNT];
	int		 have[M_COUNT][R_COUNT], good[M_COUNT][R_COUNT];
	int		 cols[M_COUNT], nc = 0, nr, m, c, i, r, peer, any = 0;
	const int	*rows = table_rows[t];
	char		 cell[64], note[300], name[32];

	for (m = 0; m < M_COUNT; m++) {
		if (metrics[m].table == t)
			cols[nc++] = m;
	}
	for (nr = 0; rows[nr] != -1; nr++) {
		for (c = 0; c < nc; c++) {
			m = cols[c];
			have[m][rows[nr]] = row_median(b, m, rows[nr],
			    &med[m][rows[nr]], &good[m][rows[nr]]) == 0;
			any |= have[m][rows[nr]] || b->why[m][rows[nr]] != NULL;
		}
	}
	if (!any)
		return;
	peer = rows[nr - 1];
	printf("\n%s (median of %d run%s)\n", b->title[t], b->runs,
	    b->runs == 1 ? "" : "s");
	printf("  %-16s", "");
	for (c = 0; c < nc; c++)
		printf(" %14s", metrics[cols[c]].head);
	printf("\n");
	for (i = 0; i < nr; i++) {
		r = rows[i];
		note[0] = '\0';
		printf("  %-16s", row_names[r]);
		for (c = 0; c < nc; c++) {
			m = cols[c];
			if (have[m][r]) {
				snprintf(cell, sizeof cell, "%.*f",
				    metrics[m].prec, med[m][r]);
				if (good[m][r] < b->runs)
					snprintf(note, sizeof note,
					    "  (%d of %d runs failed: %s)",
					    b->runs - good[m][r], b->runs,
					    b->why[m][r] ? b->why[m][r] : "?");
			} else if (b->why[m][r] != NULL) {
				snprintf(cell, sizeof cell, "fail");
				snprintf(note, sizeof note, "  fail: %s",
				    b->why[m][r]);
			} else
				snprintf(cell, sizeof cell, "-");
			printf(" %14s", cell);
		}
		printf("%s\n", note);
	}
	for (i = 0; i < nr - 1; i++) {
		r = rows[i];
		snprintf(name, sizeof name, "%s/%s", row_names[r],
		    peer == R_GREP ? "grep" : row_names[peer]);
		printf("  %-16s", name);
		for (c = 0; c < nc; c++) {
			m = cols[c];
			if (!metrics[m].ratio || !have[m][r] ||
			    !have[m][peer] || med[m][peer] <= 0)
				snprintf(cell, sizeof cell, "-");
			else
				snprintf(cell, sizeof cell, "%.2fx",
				    med[m][r] / med[m][peer]);
			printf(" %14s", cell);
		}
		printf("\n");
	}
}

/* Parse options, make the data, run the workloads, print the tables. */
int
main(int argc, char **argv)
{
	struct sb	*b;
	const char	*mode = "quick", *tsv = "/dev/null";
	char		 dir[PATH_MAX + 16], name[32], run[STORE_ID_LEN + 1];
	char		 real[PATH_MAX], *s, *tok, *big_file = NULL;
	char		*lines_file = NULL;
	int		 ch, runs = 0, r, i, wl, wl_any = 0, m, row;
	int64_t		 per;
	double		 t0 = now_s(), t1;

	if ((b = calloc(1, sizeof *b)) == NULL)
		die("out of memory");
	while ((ch = getopt(argc, argv, "m:n:w:o:j:")) != -1) {
		switch (ch) {
		case 'm':
			mode = optarg;
			break;
		case 'n':
			runs = atoi(optarg);
			break;
		case 'w':
			s = xasprintf("%s", optarg);
			for (tok = strtok(s, ","); tok != NULL;
			    tok = strtok(NULL, ",")) {
				for (wl = 0; wl < WL_COUNT; wl++) {
					if (strcmp(tok, wl_names[wl]) == 0)
						break;
				}
				if (wl == WL_COUNT)
					usage();
				b->wl_on[wl] = wl_any = 1;
			}
			free(s);
			break;
		case 'o':
			tsv = optarg;
			break;
		case 'j':
			if (realpath(optarg, real) == NULL)
				die("%s: %s", optarg, strerror(errno));
			b->jobdeck = xasprintf("%s", real);
			break;
		default:
			usage();
		}
	}
	if (b->jobdeck == NULL || optind != argc)
		usage();
	if (strcmp(mode, "full") == 0) {
		b->runs = 5;
		b->big_bytes = 1000000000;
		b->lines = 3000000;
		b->grep_bytes = 1000000000;
	} else if (strcmp(mode, "quick") == 0) {
		b->quick = 1;
		b->runs = 1;
		b->big_bytes = 200000000;
		b->lines = 1000000;
		b->grep_bytes = 200000000;
	} else
		usage();
	if (runs > 0)
		b->runs = runs < SB_RUNS_MAX ? runs : SB_RUNS_MAX;
	for (wl = 0; wl < WL_COUNT; wl++)
		b->wl_on[wl] |= !wl_any;
	b->less = find_program("less");
	b->grep = find_program("grep");
	b->tmux = find_program("tmux");
	for (m = 0; m < M_COUNT; m++) {
		for (row = 0; row < R_COUNT; row++) {
			for (r = 0; r < SB_RUNS_MAX; r++)
				b->res[m][row][r] = NAN;
		}
	}
	snprintf(b->title[0], sizeof b->title[0], "7. !logs RUN: time to the "
	    "first screen and added RSS; big: %.0f MB, lines: %lld lines%s",
	    b->big_bytes / 1e6, (long long)b->lines, b->quick ?
	    " (quick sizes)" : "");
	snprintf(b->title[1], sizeof b->title[1], "8. grep \"%s\" over %.0f MB "
	    "in %d runs: jobdeck ctl grep, grep_step in a child, GNU grep -c%s",
	    SB_GREP_WORD, b->grep_bytes / 1e6, SB_GREP_RUNS, b->quick ?
	    " (quick sizes)" : "");
	snprintf(b->title[2], sizeof b->title[2], "9. scrollback = %d: RSS "
	    "once seq 1 %d is done (tmux: history-limit %d, its server)",
	    SB_SEQ, SB_SEQ, SB_SEQ);
	if ((b->tsv = fopen(tsv, "w")) == NULL)
		die("%s: %s", tsv, strerror(errno));
	fprintf(b->tsv, "# storebench %s\n# run\tworkload\tpeer\tmetric\t"
	    "index\tvalue\n", mode);
	snprintf(b->root, sizeof b->root, "%s/storebench.XXXXXX",
	    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(b->root) == NULL)
		die("mkdtemp: %s", strerror(errno));
	guard_start(b->root);
	signal(SIGPIPE, SIG_IGN);

	/* The data: earlier decks' runs, written with the store API. */
	snprintf(b->log_state, sizeof b->log_state, "%s/logs", b->root);
	snprintf(b->grep_state, sizeof b->grep_state, "%s/grep", b->root);
	if (mkdir(b->log_state, 0700) == -1 || mkdir(b->grep_state, 0700) == -1)
		die("mkdir: %s", strerror(errno));
	if (b->wl_on[WL_LOGS]) {
		fprintf(stderr, "storebench: writing the logs store...");
		snprintf(dir, sizeof dir, "%s/jobdeck", b->log_state);
		b->big_count = make_run(b, dir, "big", b->big_bytes, 0, 1,
		    b->big_run);
		make_run(b, dir, "lines", 0, b->lines, 0, b->lines_run);
		big_file = segment_path(dir, b->big_run);
		lines_file = segment_path(dir, b->lines_run);
		warm(big_file);
		warm(lines_file);
		fprintf(stderr, " %.0f s\n", now_s() - t0);
	}
	if (b->wl_on[WL_GREP]) {
		t1 = now_s();
		fprintf(stderr, "storebench: writing the grep store...");
		snprintf(dir, sizeof dir, "%s/jobdeck", b->grep_state);
		per = b->grep_bytes / SB_GREP_RUNS;
		for (i = 0; i < SB_GREP_RUNS; i++) {
			snprintf(name, sizeof name, "g%02d", i);
			b->grep_expect += (make_run(b, dir, name, per, 0, 1,
			    run) + SB_RARE / 2 - 1) / SB_RARE;
			b->grep_files[i] = segment_path(dir, run);
			warm(b->grep_files[i]);
		}
		fprintf(stderr, " %.0f s\n", now_s() - t1);
	}

	for (r = 0; r < b->runs; r++) {
		if (b->wl_on[WL_LOGS]) {
			t1 = now_s();
			wl_logs_deck(b, r);
			if (b->less != NULL) {
				wl_logs_less(b, r, big_file, b->big_count,
				    M_BIG_FIRST, M_BIG_RSS);
				wl_logs_less(b, r, lines_file, b->lines,
				    M_LINES_FIRST, M_LINES_RSS);
			} else {
				for (m = M_BIG_FIRST; m <= M_LINES_RSS; m++)
					record(b, m, R_LESS, r, NAN,
					    "less not installed");
			}
			fprintf(stderr, "storebench: run %d/%d logs (%.0f s)\n",
			    r + 1, b->runs, now_s() - t1);
		}
		if (b->wl_on[WL_GREP]) {
			t1 = now_s();
			wl_grep_deck(b, r);
			wl_grep_engine(b, r);
			wl_grep_gnu(b, r);
			fprintf(stderr, "storebench: run %d/%d grep (%.0f s)\n",
			    r + 1, b->runs, now_s() - t1);
		}
		if (b->wl_on[WL_SCROLLBACK]) {
			t1 = now_s();
			wl_scrollback(b, r, R_JOBDECK);
			if (b->tmux != NULL)
				wl_scrollback(b, r, R_TMUX);
			else
				record(b, M_SB_RSS, R_TMUX, r, NAN,
				    "tmux not installed");
			fprintf(stderr, "storebench: run %d/%d scrollback "
			    "(%.0f s)\n", r + 1, b->runs, now_s() - t1);
		}
	}
	for (i = 0; i < TABLE_COUNT; i++) {
		print_table(b, i);
		if (i == 1 && b->wl_on[WL_GREP])
			printf("  (lines with \"%s\": %lld expected)\n",
			    SB_GREP_WORD, (long long)b->grep_expect);
	}
	printf("\nraw numbers: %s; %.0f s in all\n", tsv, now_s() - t0);
	fclose(b->tsv);
	for (m = 0; m < M_COUNT; m++) {
		for (row = 0; row < R_COUNT; row++)
			free(b->why[m][row]);
	}
	for (i = 0; i < SB_GREP_RUNS; i++)
		free(b->grep_files[i]);
	free(big_file);
	free(lines_file);
	free((char *)b->jobdeck);
	free(b->less);
	free(b->grep);
	free(b->tmux);
	free(b);
	return 0;		/* the guard removes the root */
}
