/*
 * jdbench.c: the side-by-side benchmark of issue 3.  Each workload runs in
 * jobdeck and in every peer given on the command line (tmux, screen, dvtm,
 * mprocs) plus a raw pty drain, the physical limit: the jobs on
 * pseudo-terminals of their own, read by jdbench itself.  A manager runs
 * inside an outer pseudo-terminal of 120x40 (TERM=xterm-256color) whose
 * output jdbench reads and discards as a terminal would, answering the
 * primary DA and DSR queries minimally.  The medians over the runs are
 * printed as one table per workload, every raw number goes to a TSV file.
 * A second jobdeck build (peer jobdeck2; any peer may be given a label,
 * jobdeck2:before=PATH) runs beside the first, each workload's runs of
 * the two interleaved, for a before and after in one sitting.
 *
 * Timing never depends on reading the screen.  Jobs signal through fifos
 * in the run's private directory: a job blocked opening "go" means the
 * manager is up; a line on "ready" means a job runs; a line on "done" means
 * the flood is over; "hold", kept open by the cooperative jobs, hangs up
 * once the last of them is gone.  An echo is found in the drained bytes:
 * key i is the letter U+0410+i, two bytes of UTF-8 that no manager draws
 * by itself, so a key counts as echoed where its letter first appears.
 *
 * The attach workload times a first frame without guessing at a delay.
 * The manager starts detached (jobdeck -d, tmux new-session -d, screen
 * -dm) with 200 jobs that each print a line and then write to "ready";
 * the last job, the one an attaching client shows (jobdeck selects the
 * last job started, tmux shows the session's first window, screen the
 * last window made), prints JDBMARK through tr, so the command's own text,
 * which jobdeck's panel and title show, never holds it, then "ok", so the
 * panel's "Last output" line does not hold it either.  Once every job is
 * ready and the manager has used no CPU for 300 ms (it has read what they
 * wrote), jdbench starts the attach client on the outer pty.  The frame is
 * complete when every marker has been drawn: JDBMARK (the shown job's
 * screen) and what the manager draws around it, last in its frame:
 * jobdeck's panel title with the count, "Processes (200 running)", and
 * the selected job's entry, the panel's last, "Last output: ok" (only the
 * bottom borders and the prompt come after it); tmux's status line, the
 * last row, "[jdbstat]" (the session's name); screen's hardstatus line
 * "jdbstat".  The time is the latest of them, from starting the client
 * (its fork and exec included).  No marker has two spaces in a row
 * or a character repeated more than twice, so no terminal optimisation
 * (a cursor move over blanks, ECH, REP) shortens it in the stream; a
 * marker split between two reads is found too.  dvtm and mprocs cannot
 * detach, and print n/a.
 *
 * Manager CPU time and memory are the sum over the processes whose comm
 * starts with the peer program's name (its file's, as the kernel keeps
 * it: 15 bytes) and whose environment carries the run's tag:
 * the tmux and screen servers are included, the jobs are not.  The raw
 * drain's CPU time is jdbench's own.
 *
 * Clean-up does not depend on a run going well.  Every process a run
 * starts has JDBENCH_TAG=<jdbench pid>.<run> in its environment; a run
 * ends by SIGKILLing the manager's process group, then every process with
 * its tag, and removing its directory.  jdbench is a child subreaper, so
 * daemonised servers and orphaned jobs are reaped here.  A guard process
 * in a session of its own holds a pipe from jdbench: when jdbench dies,
 * however it dies, the guard kills every process with one of its tags and
 * removes the temporary directory.
 *
 * The hosts workload (issue 28) runs jobs on an ssh host, the tests' own
 * sshd on 127.0.0.1 (tests/testssh.h, linked; bench/ckshim.c stands for
 * check's assertions the tests' helpers make): a jobdeck deck with 50
 * jobs on a [hosts] entry against 50 plain `ssh host cmd` started at
 * once; the time until every job's `sleep 30.N` runs there (its command
 * line, unique to the run, seen in /proc) and the most TCP connections
 * established to the server meanwhile.  The raw peer is plain ssh there.
 */
#include <sys/ioctl.h>
#include <sys/prctl.h>
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
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "testproc.h"
#include "testssh.h"

/*
 * The system's <pty.h> is shadowed by the project's include/pty.h under
 * -Iinclude, so declare forkpty() (glibc libutil) here, as src/pty.c
 * declares openpty().
 */
int	forkpty(int *, char *, const struct termios *, const struct winsize *);

#define JDB_COLS	120
#define JDB_ROWS	40
#define JDB_TAG		"JDBENCH_TAG="
#define JDB_READ	65536		/* bytes per read, like a terminal */
#define JDB_MANY	200		/* jobs of the many-jobs workloads */
#define JDB_IDLE_JOBS	10
#define JDB_FDS		(JDB_MANY + 4)	/* pty masters of one run */
#define JDB_RUNS_MAX	20
#define JDB_KEYS_MAX	64		/* the letters U+0410..U+044F */
#define JDB_KEY_BASE	0x410
#define JDB_KEY_LOST	1000		/* ms: not echoed by then is lost */
#define JDB_ENV_MAX	16
#define JDB_TAIL	400		/* manager output kept for messages */
#define JDB_SEQ		"seq 1 2000000"
#define JDB_HOST_JOBS	50		/* jobs of the hosts workload */
#define JDB_HOST_QUICK	10		/* the same, quick */
#define JDB_HOST_WAIT	30000		/* ms: all running on the host by then */
#define JDB_HOST_STEP	5		/* ms between looks at the host */

#define MS		1000000LL	/* nanoseconds */

/* The peers, in table order.  The raw drain runs no manager. */
enum {
	PEER_RAW,
	PEER_JOBDECK,
	PEER_JOBDECK2,			/* a second jobdeck build, driven alike */
	PEER_TMUX,
	PEER_SCREEN,
	PEER_DVTM,
	PEER_MPROCS,
	PEER_COUNT
};

/* The peers' names on the command line, in the order above. */
static const char *const peer_names[PEER_COUNT] = {
	"raw", "jobdeck", "jobdeck2", "tmux", "screen", "dvtm", "mprocs"
};

/*
 * A peer: its name (a label given on the command line, or the default),
 * how it is driven (kind: PEER_JOBDECK for both jobdeck builds), the comm
 * prefix of its processes, where it is.
 */
struct peer {
	char		*name;
	int		 kind;
	char		*comm;
	char		*path;		/* NULL when missing */
	char		*missing;	/* why it is missing, or NULL */
};

/* The workloads that can be chosen with -w. */
enum {
	WL_FLOOD,
	WL_ECHO,
	WL_EFLOOD,
	WL_IDLE,
	WL_MANY,			/* 200 sleeping jobs, then kill-all */
	WL_SCREENFUL,
	WL_IDLE_MANY,			/* 200 quiet jobs, idle */
	WL_ATTACH,			/* attach to 200 detached jobs */
	WL_HOSTS,			/* 50 jobs on an ssh host */
	WL_COUNT
};

static const char *const wl_names[WL_COUNT] = {
	"flood", "echo", "eflood", "idle", "many", "screenful", "idle200",
	"attach", "hosts"
};

/* What is measured; each metric belongs to one table. */
enum {
	M_FLOOD_WALL,
	M_FLOOD_CPU,
	M_FLOOD_KB,
	M_ECHO_MED,
	M_ECHO_LOST,
	M_ECHO_BPK,
	M_EFLOOD_MED,
	M_EFLOOD_LOST,
	M_IDLE_TICKS,
	M_IDLE_BYTES,
	M_IDLE_MANY_TICKS,
	M_MANY_START,
	M_MANY_RSS,
	M_SCREEN_RSS,
	M_KILL,
	M_ATTACH_MS,
	M_ATTACH_KB,
	M_HOST_START,
	M_HOST_CONN,
	M_COUNT
};

/* A metric: its table, its TSV name, its heading and how it prints. */
struct metric {
	int		 table;
	const char	*wl;		/* TSV workload name */
	const char	*key;
	const char	*head;
	int		 prec;
#define MF_RATIO	0x1		/* print jobdeck's ratios */
#define MF_RAW		0x2		/* the raw drain has it */
#define MF_ATTACH	0x4		/* only peers that detach have it */
#define MF_HOST		0x8		/* jobdeck and plain ssh (raw) only */
	int		 flags;
};

static const struct metric metrics[M_COUNT] = {
	{ 0, "flood", "wall_s", "wall s", 3, MF_RATIO | MF_RAW },
	{ 0, "flood", "cpu_s", "cpu s", 2, MF_RATIO | MF_RAW },
	{ 0, "flood", "drawn_kb", "KB drawn", 0, 0 },
	{ 1, "echo", "median_ms", "median ms", 3, MF_RATIO | MF_RAW },
	{ 1, "echo", "lost", "lost keys", 0, MF_RAW },
	{ 1, "echo", "bytes_per_key", "bytes/key", 0, 0 },
	{ 2, "eflood", "median_ms", "median ms", 3, MF_RATIO | MF_RAW },
	{ 2, "eflood", "lost", "lost keys", 0, MF_RAW },
	{ 3, "idle", "ticks", "cpu ticks", 0, MF_RATIO },
	{ 3, "idle", "bytes", "bytes out", 0, MF_RATIO },
	{ 3, "idle200", "ticks", "200 jobs ticks", 0, MF_RATIO },
	{ 4, "many", "start_s", "start s", 3, MF_RATIO | MF_RAW },
	{ 4, "many", "rss_mb", "rss MB", 1, MF_RATIO },
	{ 4, "screenful", "rss_mb", "screenful MB", 1, MF_RATIO },
	{ 5, "kill", "kill_s", "kill s", 3, MF_RATIO | MF_RAW },
	{ 6, "attach", "first_ms", "first frame ms", 2,
	    MF_RATIO | MF_ATTACH },
	{ 6, "attach", "drawn_kb", "KB drawn", 1, MF_ATTACH },
	{ 7, "hosts", "start_s", "start s", 3, MF_RATIO | MF_RAW | MF_HOST },
	{ 7, "hosts", "connections", "connections", 0, MF_RAW | MF_HOST },
};

#define TABLE_COUNT	8
static const char *const table_titles[TABLE_COUNT] = {
	"1. flood: one job runs " JDB_SEQ " (17 MB); wall time from "
	    "release to its end, manager CPU",
	"2. echo: a key into a focused cat until its echo is drawn",
	"3. echo under flood: the same while another job runs yes",
	"4. idle: ten sleep jobs; manager CPU ticks (1/100 s) and bytes "
	    "drawn over the window; 200 quiet jobs, ticks",
	"5. many jobs: 200 sleep jobs, time until all run and RSS; "
	    "200 jobs with a coloured screenful each, RSS",
	"6. kill-all: 200 sleep jobs, from the command until none is left",
	"10. attach: 200 jobs of a line each in a detached manager; from "
	    "starting the attach client until its first frame is complete",
	"11. hosts: jobs of sleep 30 on an ssh host (the tests' sshd on "
	    "127.0.0.1; 50 jobs, quick: 10); from the start until all run "
	    "there, and the TCP connections to it at the peak",
};

/* The marker the attach workload's shown job prints (made by tr). */
#define JDB_MARK	"JDBMARK"
#define JDB_STATUS	"jdbstat"	/* tmux's session, screen's status */
#define JDB_MARK_MAX	32		/* longest marker, NUL included */
#define JDB_MARKS	3		/* markers of one frame, at most */

/* A key of the echo workloads: when it was written and first seen. */
struct key {
	int64_t	sent;
	int64_t	seen;
};

struct bench;

/* One manager (or raw drain) from start to clean-up. */
struct run {
	struct bench	*b;
	int		 peer;
	int		 kind;		/* how the peer is driven */
	char		 dir[256];
	char		 tag[64];
	char		 sock[32];	/* tmux socket, screen session */
	char		 conf[300];	/* tmux: the file of later windows */
	char		*env[JDB_ENV_MAX];
	pid_t		 pid;		/* the manager, or -1 */
	int		 nfd;
	int		 fd[JDB_FDS];	/* masters; [0] the outer pty */
	pid_t		 kid[JDB_FDS];	/* raw drain: the jobs */
	int		 ready_fd;	/* fifos, read here */
	int		 done_fd;
	int		 hold_fd;
	int		 gone;		/* the outer pty hung up */
	int		 no_more;	/* screen said "No more windows" */
	uint64_t	 out_bytes;
	int64_t		 last_out;
	int		 esc;		/* query scanner state */
	char		 esc_buf[16];
	size_t		 esc_len;
	struct key	 keys[JDB_KEYS_MAX];
	int		 nkeys;		/* keys being watched for */
	unsigned char	 echo_prev;
	const char	*mark[JDB_MARKS];	/* attach: a whole frame's */
	int64_t		 mark_seen[JDB_MARKS];
	uint64_t	 mark_bytes[JDB_MARKS];	/* out_bytes once seen */
	char		 mark_carry[JDB_MARK_MAX];	/* the last bytes */
	char		 mark_panel[JDB_MARK_MAX];	/* jobdeck's title */
	size_t		 mark_carry_len;
	char		 tail[JDB_TAIL];
	size_t		 tail_len;
	char		 host_arg[32];	/* hosts: the remote sleeps' argument */
	char		 why[512];
};

/* A CPU and memory sample of a run's manager processes. */
struct sample {
	double	cpu;			/* seconds */
	long	ticks;
	long	rss_kb;
	int	nproc;
};

/* Everything the benchmark knows; the one object passed around. */
struct bench {
	int		 runs;
	int		 nkeys;
	int		 key_gap;	/* ms between keys */
	int		 idle_secs;
	int		 host_jobs;	/* jobs of the hosts workload */
	int		 cur_run;	/* 0-based, for the TSV */
	int		 wl_on[WL_COUNT];
	char		 root[200];
	unsigned	 seq;
	pid_t		 guard;
	int		 guard_fd;
	long		 clk_tck;
	long		 page_kb;
	FILE		*tsv;
	const char	*header;
	struct testssh	 ssh;		/* the hosts workload's server */
	int		 ssh_up;	/* 1 running, -1 could not, 0 not yet */
	char		 ssh_why[1024];
	char		*ssh_bin;	/* ssh, for the plain ssh peer */
	struct peer	 peers[PEER_COUNT];
	double		 res[M_COUNT][PEER_COUNT][JDB_RUNS_MAX];
	char		*why[M_COUNT][PEER_COUNT];
	int		 skip[WL_COUNT][PEER_COUNT];	/* failed in run 1 */
	char		 buf[JDB_READ];
};

/* Set by the signal handler; loops give up when it is. */
static volatile sig_atomic_t jdb_stopping;

static void	 usage(void) __attribute__((noreturn));
static void	 die(const char *, ...)
		     __attribute__((noreturn, format(printf, 1, 2)));
static char	*xasprintf(const char *, ...)
		     __attribute__((format(printf, 1, 2)));
static int64_t	 now_ns(void);
static void	 on_signal(int);
static void	 child_reset(void);
static int	 rm_entry(const char *, const struct stat *, int, struct FTW *);
static void	 rm_tree(const char *);
static ssize_t	 read_file(const char *, char *, size_t);
static int	 proc_has_tag(pid_t, const char *, int);
static int	 sweep(const char *, int);
static void	 guard_start(struct bench *);
static void	 reap_all(struct bench *);
static int	 run_fail(struct run *, const char *, ...)
		     __attribute__((format(printf, 2, 3)));
static int	 run_init(struct bench *, struct run *, int);
static void	 run_stop(struct run *);
static int	 run_spawn(struct run *, char *const *, int *, pid_t *);
static pid_t	 run_exec(struct run *, char *const *, const char *);
static int	 run_exec_wait(struct run *, char *const *, int);
static int	 run_write_conf(struct run *, const char *, char **, int);
static int	 run_start(struct run *, char **, int);
static void	 run_tail(struct run *, const char *, size_t);
static void	 run_scan_queries(struct run *, const char *, size_t);
static void	 run_scan_echo(struct run *, const unsigned char *, size_t,
		     int64_t);
static void	 run_scan_marks(struct run *, const char *, size_t, int64_t);
static int	 run_mark_missing(struct run *);
static void	 run_read(struct run *, int);
static int	 pump(struct run **, int, int, int, short);
static int	 pump_quiet(struct run **, int, int, int);
static int	 run_wait_lines(struct run **, int, struct run *, int, int);
static int	 run_wait_reader(struct run *, const char *, int);
static int	 run_send(struct run *, const char *, size_t);
static void	 run_sample(struct run *, struct sample *);
static void	 run_focus(struct run *);
static int	 run_kill_all(struct run *);
static int	 peer_attaches(int);
static int	 run_start_detached(struct run *, char **, int);
static int	 run_settle(struct run *, int);
static int	 run_attach(struct run *);
static int	 wl_flood(struct run *, double *, double *, double *);
static int	 wl_echo(struct run *, int, double *, double *, double *);
static void	 wl_idle(struct bench *, int, int);
static int	 wl_many(struct run *, double *, double *, double *);
static int	 wl_screenful(struct run *, double *);
static int	 wl_attach(struct run *, double *, double *);
static char	*path_find(const char *);
static int	 hosts_server(struct run *);
static void	 hosts_kill(const char *);
static int	 run_write_hosts(struct run *, const char *, const char *);
static int	 wl_hosts(struct run *, double *, double *);
static const char *peer_label(struct bench *, int, int);
static void	 record(struct bench *, int, int, int, double, const char *);
static void	 do_one(struct bench *, int, int, int);
static int	 cmp_double(const void *, const void *);
static double	 median(double *, int);
static int	 peer_median(struct bench *, int, int, double *, int *);
static void	 print_cell(char *, size_t, int, double);
static void	 print_ratio_row(struct bench *, const char *, const int *,
		     int, double (*)[PEER_COUNT], int (*)[PEER_COUNT], int, int);
static void	 print_table(struct bench *, int);
static void	 write_screenful(struct bench *);
static void	 bench_free(struct bench *);

/* Print how to run jdbench and exit. */
static void
usage(void)
{
	fprintf(stderr,
	    "usage: jdbench [-m full|quick] [-n runs] [-w wl,...] [-o tsv] "
	    "[-H header]\n"
	    "               peer[:label][=path | =!reason] ...\n"
	    "peers: raw jobdeck jobdeck2 tmux screen dvtm mprocs "
	    "(jobdeck2: a second\n"
	    "build, driven as jobdeck; a label of up to 12 characters "
	    "names a peer)\n"
	    "workloads: flood echo eflood idle many screenful idle200 "
	    "attach hosts\n");
	exit(2);
}

/* Report a fatal error and exit; the guard cleans up after us. */
static void
die(const char *fmt, ...)
{
	va_list	ap;

	fputs("jdbench: ", stderr);
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

/* The monotonic clock in nanoseconds. */
static int64_t
now_ns(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Note that we were asked to stop; the loops notice. */
static void
on_signal(int sig)
{
	(void)sig;
	jdb_stopping = 1;
}

/* In a child before exec: default signals, an empty mask, no stray fds. */
static void
child_reset(void)
{
	sigset_t	set;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
	close_range(3, ~0U, 0);
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

/* Remove a directory and everything under it. */
static void
rm_tree(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Read up to size-1 bytes of a file and NUL-terminate; -1 on error. */
static ssize_t
read_file(const char *path, char *buf, size_t size)
{
	ssize_t	n, got = 0;
	int	fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	while ((size_t)got < size - 1) {
		n = read(fd, buf + got, size - 1 - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	return got;
}

/* Whether a process's environment has our tag: equal to, or prefixed by. */
static int
proc_has_tag(pid_t pid, const char *tag, int prefix)
{
	char	 path[64], env[32768], *p, *end;
	size_t	 len = strlen(tag), tl = strlen(JDB_TAG);
	ssize_t	 n;

	snprintf(path, sizeof path, "/proc/%ld/environ", (long)pid);
	if ((n = read_file(path, env, sizeof env)) <= 0)
		return 0;
	for (p = env, end = env + n; p < end; p += strlen(p) + 1) {
		if (strncmp(p, JDB_TAG, tl) != 0)
			continue;
		if (strncmp(p + tl, tag, len) == 0 &&
		    (prefix || p[tl + len] == '\0'))
			return 1;
	}
	return 0;
}

/* SIGKILL every process with the tag (or tag prefix); returns how many. */
static int
sweep(const char *tag, int prefix)
{
	DIR		*d;
	struct dirent	*de;
	pid_t		 pid;
	int		 found = 0;

	if ((d = opendir("/proc")) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = (pid_t)atol(de->d_name);
		if (pid == getpid() || !proc_has_tag(pid, tag, prefix))
			continue;
		kill(pid, SIGKILL);
		found++;
	}
	closedir(d);
	return found;
}

/*
 * Fork the guard: in a session of its own, it waits for the pipe from
 * jdbench to close, then kills what carries our tags and removes the root.
 */
static void
guard_start(struct bench *b)
{
	char	prefix[32], c;
	int	p[2], i;

	if (pipe2(p, O_CLOEXEC) == -1)
		die("pipe: %s", strerror(errno));
	switch (b->guard = fork()) {
	case -1:
		die("fork: %s", strerror(errno));
	case 0:
		setsid();
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		close(p[1]);
		snprintf(prefix, sizeof prefix, "%ld.", (long)getppid());
		while (read(p[0], &c, 1) == -1 && errno == EINTR)
			;
		for (i = 0; i < 50 && sweep(prefix, 1) > 0; i++)
			usleep(20000);
		rm_tree(b->root);
		_exit(0);
	}
	close(p[0]);
	b->guard_fd = p[1];
}

/* Reap every child that has exited (we are a subreaper), but the guard. */
static void
reap_all(struct bench *b)
{
	pid_t	pid;
	int	st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (pid == b->guard)
			b->guard = -1;
	}
}

/* Note why a run failed, with the end of the manager's output; -1. */
static int
run_fail(struct run *r, const char *fmt, ...)
{
	va_list	ap;
	size_t	n, i;
	char	text[JDB_TAIL + 1];
	int	sp = 1, esc = 0;

	va_start(ap, fmt);
	vsnprintf(r->why, sizeof r->why, fmt, ap);
	va_end(ap);
	for (i = n = 0; i < r->tail_len; i++) {
		unsigned char c = (unsigned char)r->tail[i];

		if (c == 0x1b) {
			esc = 1;
			continue;
		}
		if (esc) {
			if (c >= 0x40 && c <= 0x7e && c != '[')
				esc = 0;
			continue;
		}
		if (c < 0x20 || c >= 0x7f) {
			if (!sp)
				text[n++] = ' ';
			sp = 1;
			continue;
		}
		if (c == ' ' && sp)
			continue;
		text[n++] = (char)c;
		sp = (c == ' ');
	}
	text[n] = '\0';
	if (n > 0 && r->peer != PEER_RAW) {
		n = strlen(r->why);
		snprintf(r->why + n, sizeof r->why - n, " [screen: %.160s]",
		    n > 0 && strlen(text) > 160 ? text + strlen(text) - 160 :
		    text);
	}
	return -1;
}

/* Make the run's directory, fifos and environment. */
static int
run_init(struct bench *b, struct run *r, int peer)
{
	static const char *const dirs[] = {
		"", "/home", "/state", "/run", "/config", "/screen"
	};
	static const char *const fifos[] = { "go", "done", "ready", "hold" };
	const char	*path;
	char		 p[PATH_MAX];
	size_t		 i;
	int		 n = 0;

	memset(r, 0, sizeof *r);
	r->b = b;
	r->peer = peer;
	r->kind = b->peers[peer].kind;
	r->pid = -1;
	r->ready_fd = r->done_fd = r->hold_fd = -1;
	for (i = 0; i < JDB_FDS; i++) {
		r->fd[i] = -1;
		r->kid[i] = -1;
	}
	b->seq++;
	snprintf(r->dir, sizeof r->dir, "%s/r%u", b->root, b->seq);
	snprintf(r->tag, sizeof r->tag, "%ld.%u", (long)getpid(), b->seq);
	snprintf(r->sock, sizeof r->sock, "jdbench%u", b->seq);
	for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		snprintf(p, sizeof p, "%s%s", r->dir, dirs[i]);
		if (mkdir(p, 0700) == -1)
			return run_fail(r, "mkdir %s: %s", p, strerror(errno));
	}
	for (i = 0; i < sizeof fifos / sizeof fifos[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", r->dir, fifos[i]);
		if (mkfifo(p, 0600) == -1)
			return run_fail(r, "mkfifo %s: %s", p, strerror(errno));
	}
	snprintf(p, sizeof p, "%s/ready", r->dir);
	r->ready_fd = open(p, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	snprintf(p, sizeof p, "%s/done", r->dir);
	r->done_fd = open(p, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	snprintf(p, sizeof p, "%s/hold", r->dir);
	r->hold_fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (r->ready_fd == -1 || r->done_fd == -1 || r->hold_fd == -1)
		return run_fail(r, "open fifo: %s", strerror(errno));

	/* A fresh environment: nothing of the caller's but PATH and user. */
	if ((path = getenv("PATH")) == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	r->env[n++] = xasprintf("PATH=%s", path);
	if (getenv("USER") != NULL)
		r->env[n++] = xasprintf("USER=%s", getenv("USER"));
	if (getenv("LOGNAME") != NULL)
		r->env[n++] = xasprintf("LOGNAME=%s", getenv("LOGNAME"));
	r->env[n++] = xasprintf("HOME=%s/home", r->dir);
	r->env[n++] = xasprintf("TERM=xterm-256color");
	r->env[n++] = xasprintf("LANG=C.UTF-8");
	r->env[n++] = xasprintf("SHELL=/bin/sh");
	r->env[n++] = xasprintf("XDG_STATE_HOME=%s/state", r->dir);
	r->env[n++] = xasprintf("XDG_RUNTIME_DIR=%s/run", r->dir);
	r->env[n++] = xasprintf("XDG_CONFIG_HOME=%s/config", r->dir);
	r->env[n++] = xasprintf("TMUX_TMPDIR=%s", r->dir);
	r->env[n++] = xasprintf("SCREENDIR=%s/screen", r->dir);
	r->env[n++] = xasprintf("%s%s", JDB_TAG, r->tag);
	r->env[n] = NULL;
	return 0;
}

/* Kill everything the run started, reap it and remove its directory. */
static void
run_stop(struct run *r)
{
	int64_t	end;
	int	i;

	if (r->pid > 0)
		kill(-r->pid, SIGKILL);
	for (i = 0; i < r->nfd; i++) {
		if (r->kid[i] > 0)
			kill(-r->kid[i], SIGKILL);
	}
	end = now_ns() + 3000 * MS;
	while (sweep(r->tag, 0) > 0 && now_ns() < end) {
		reap_all(r->b);
		usleep(5000);
	}
	/* The host's processes carry sshd's environment, not the tag. */
	if (r->host_arg[0] != '\0')
		hosts_kill(r->host_arg);
	for (i = 0; i < r->nfd; i++) {
		if (r->fd[i] != -1)
			close(r->fd[i]);
		r->fd[i] = -1;
	}
	if (r->ready_fd != -1)
		close(r->ready_fd);
	if (r->done_fd != -1)
		close(r->done_fd);
	if (r->hold_fd != -1)
		close(r->hold_fd);
	r->ready_fd = r->done_fd = r->hold_fd = -1;
	if (r->pid > 0)
		waitpid(r->pid, NULL, 0);
	r->pid = -1;
	reap_all(r->b);
	for (i = 0; i < JDB_ENV_MAX; i++) {
		free(r->env[i]);
		r->env[i] = NULL;
	}
	rm_tree(r->dir);
}

/* Start argv on a new 120x40 pty with the run's environment. */
static int
run_spawn(struct run *r, char *const *argv, int *fdp, pid_t *pidp)
{
	struct winsize	ws;
	pid_t		pid;
	int		fd;

	memset(&ws, 0, sizeof ws);
	ws.ws_row = JDB_ROWS;
	ws.ws_col = JDB_COLS;
	if ((pid = forkpty(&fd, NULL, NULL, &ws)) == -1)
		return run_fail(r, "forkpty: %s", strerror(errno));
	if (pid == 0) {
		child_reset();
		if (chdir(r->dir) == -1)
			_exit(127);
		execve(argv[0], argv, r->env);
		dprintf(2, "jdbench: %s: %s\r\n", argv[0], strerror(errno));
		_exit(127);
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	*fdp = fd;
	*pidp = pid;
	return 0;
}

/*
 * Run a helper command (tmux kill-server, a detached start) with the
 * run's environment in its directory, its output to the file out (in the
 * run's directory) or /dev/null.
 */
static pid_t
run_exec(struct run *r, char *const *argv, const char *out)
{
	pid_t	pid;
	int	fd;

	if ((pid = fork()) == 0) {
		child_reset();
		if (chdir(r->dir) == -1)
			_exit(127);
		if ((fd = open("/dev/null", O_RDWR)) != -1) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
		if (out != NULL && (fd = open(out, O_WRONLY | O_CREAT |
		    O_TRUNC, 0600)) != -1) {
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
		execve(argv[0], argv, r->env);
		dprintf(2, "%s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

/*
 * Run a helper command to its end (at most ms), its output kept in the
 * run's file "exec.out"; 0 when it exits 0, else -1 with its first line.
 */
static int
run_exec_wait(struct run *r, char *const *argv, int ms)
{
	int64_t	end = now_ns() + ms * MS;
	char	out[PATH_MAX], text[256], *nl;
	pid_t	pid;
	int	st;

	snprintf(out, sizeof out, "%.255s/exec.out", r->dir);
	if ((pid = run_exec(r, argv, out)) == -1)
		return run_fail(r, "fork: %s", strerror(errno));
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (now_ns() >= end) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return run_fail(r, "%s did not return in %d ms",
			    argv[0], ms);
		}
		if (pump(&r, 1, 5, -1, 0) == -1)
			return run_fail(r, "interrupted");
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (read_file(out, text, sizeof text) <= 0)
		text[0] = '\0';
	if ((nl = strchr(text, '\n')) != NULL)
		*nl = '\0';
	return run_fail(r, "%s exited %d: %s", argv[0],
	    WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), text);
}

/*
 * Write the run's configuration file for tmux, screen or mprocs: a window
 * or process per job, arranged so the job to focus (the last) is the one
 * each manager shows or selects.  For tmux the file holds the windows
 * after the first, which the command line makes: the client's command
 * message is limited to 16 KiB, too little for 200 jobs.
 */
static int
run_write_conf(struct run *r, const char *name, char **jobs, int njobs)
{
	char	 path[PATH_MAX];
	FILE	*f;
	int	 i, j;

	snprintf(path, sizeof path, "%.255s/%s", r->dir, name);
	if ((f = fopen(path, "w")) == NULL)
		return run_fail(r, "%s: %s", path, strerror(errno));
	switch (r->kind) {
	case PEER_TMUX:
		for (i = 0; i < njobs - 1; i++)
			fprintf(f, "new-window -d '%s'\n", jobs[i]);
		break;
	case PEER_SCREEN:
		/* The last window made is the one shown. */
		fprintf(f, "startup_message off\ndeflogin off\n");
		for (i = 0; i < njobs; i++)
			fprintf(f, "screen -t j%d /bin/sh -c \"%s\"\n", i,
			    jobs[i]);
		break;
	default:
		/* The first process is the one selected. */
		fprintf(f, "procs:\n");
		for (i = 0; i < njobs; i++) {
			j = (i == 0) ? njobs - 1 : i - 1;
			fprintf(f, "  j%d:\n    shell: \"%s\"\n", i, jobs[j]);
		}
		break;
	}
	if (fclose(f) == EOF)
		return run_fail(r, "%s: %s", path, strerror(errno));
	return 0;
}

/*
 * Start the manager with these jobs (shell strings; the last is the one to
 * focus), or for the raw drain each job on a pty of its own, focus first.
 */
static int
run_start(struct run *r, char **jobs, int njobs)
{
	struct peer	 *p = &r->b->peers[r->peer];
	char		**argv, *sh[4];
	int		  n = 0, i, rc;

	for (i = 0; i < njobs; i++) {
		if (strpbrk(jobs[i], "\"'\\$") != NULL)
			return run_fail(r, "job with quotes: %s", jobs[i]);
	}
	if (r->peer == PEER_RAW) {
		sh[0] = (char *)"/bin/sh";
		sh[1] = (char *)"-c";
		sh[3] = NULL;
		for (i = 0; i < njobs; i++) {
			sh[2] = jobs[i == 0 ? njobs - 1 : i - 1];
			if (run_spawn(r, sh, &r->fd[i], &r->kid[i]) == -1)
				return -1;
			r->nfd = i + 1;
		}
		return 0;
	}

	argv = calloc(4 * njobs + 16, sizeof *argv);
	if (argv == NULL)
		die("out of memory");
	argv[n++] = p->path;
	switch (r->kind) {
	case PEER_JOBDECK:
		argv[n++] = (char *)"-c";
		argv[n++] = (char *)"/dev/null";
		argv[n++] = (char *)"--";
		for (i = 0; i < njobs; i++)
			argv[n++] = jobs[i];
		break;
	case PEER_TMUX:
		argv[n++] = (char *)"-L";
		argv[n++] = r->sock;
		argv[n++] = (char *)"-f";
		argv[n++] = (char *)"/dev/null";
		argv[n++] = (char *)"new-session";
		argv[n++] = jobs[njobs - 1];
		if (njobs > 1) {
			if (run_write_conf(r, "tmux.conf", jobs, njobs) == -1) {
				free(argv);
				return -1;
			}
			argv[n++] = (char *)";";
			argv[n++] = (char *)"source-file";
			snprintf(r->conf, sizeof r->conf, "%.255s/tmux.conf",
			    r->dir);
			argv[n++] = r->conf;
		}
		break;
	case PEER_SCREEN:
		if (run_write_conf(r, "screenrc", jobs, njobs) == -1) {
			free(argv);
			return -1;
		}
		argv[n++] = (char *)"-U";
		argv[n++] = (char *)"-c";
		argv[n++] = (char *)"screenrc";
		argv[n++] = (char *)"-S";
		argv[n++] = r->sock;
		break;
	case PEER_DVTM:
		for (i = 0; i < njobs; i++)
			argv[n++] = jobs[i];
		break;
	case PEER_MPROCS:
		if (run_write_conf(r, "mprocs.yaml", jobs, njobs) == -1) {
			free(argv);
			return -1;
		}
		argv[n++] = (char *)"-c";
		argv[n++] = (char *)"mprocs.yaml";
		break;
	}
	argv[n] = NULL;
	rc = run_spawn(r, argv, &r->fd[0], &r->pid);
	free(argv);
	if (rc == 0)
		r->nfd = 1;
	return rc;
}

/* Keep the last bytes the manager drew, for failure messages. */
static void
run_tail(struct run *r, const char *p, size_t n)
{
	if (n >= JDB_TAIL) {
		memcpy(r->tail, p + n - JDB_TAIL, JDB_TAIL);
		r->tail_len = JDB_TAIL;
		return;
	}
	if (r->tail_len + n > JDB_TAIL) {
		memmove(r->tail, r->tail + (r->tail_len + n - JDB_TAIL),
		    JDB_TAIL - n);
		r->tail_len = JDB_TAIL - n;
	}
	memcpy(r->tail + r->tail_len, p, n);
	r->tail_len += n;
}

/*
 * Answer the queries a manager may wait for, as a minimal terminal would:
 * DSR 6 (cursor position), DSR 5 (status) and primary DA.
 */
static void
run_scan_queries(struct run *r, const char *p, size_t n)
{
	const char	*end = p + n, *e;
	const char	*reply;
	unsigned char	 c;

	while (p < end) {
		if (r->esc == 0) {
			if ((e = memchr(p, 0x1b, end - p)) == NULL)
				return;
			p = e + 1;
			r->esc = 1;
			continue;
		}
		c = (unsigned char)*p++;
		if (r->esc == 1) {
			r->esc = (c == '[') ? 2 : 0;
			r->esc_len = 0;
			continue;
		}
		if (c >= 0x20 && c <= 0x3f) {
			if (r->esc_len < sizeof r->esc_buf - 1)
				r->esc_buf[r->esc_len++] = (char)c;
			continue;
		}
		r->esc = 0;
		r->esc_buf[r->esc_len] = '\0';
		reply = NULL;
		if (c == 'n' && strcmp(r->esc_buf, "6") == 0)
			reply = "\033[1;1R";
		else if (c == 'n' && strcmp(r->esc_buf, "5") == 0)
			reply = "\033[0n";
		else if (c == 'c' && (r->esc_buf[0] == '\0' ||
		    strcmp(r->esc_buf, "0") == 0))
			reply = "\033[?1;2c";
		if (reply != NULL)
			run_send(r, reply, strlen(reply));
		if (c == 0x1b)
			r->esc = 1;
	}
}

/* Find the letters of sent keys in drained bytes: U+0410+i is key i. */
static void
run_scan_echo(struct run *r, const unsigned char *p, size_t n, int64_t now)
{
	unsigned char	prev = r->echo_prev, c;
	size_t		i;
	int		k;

	for (i = 0; i < n; i++) {
		c = p[i];
		if ((prev == 0xd0 || prev == 0xd1) && (c & 0xc0) == 0x80) {
			k = (((prev & 0x1f) << 6) | (c & 0x3f)) - JDB_KEY_BASE;
			if (k >= 0 && k < r->nkeys && r->keys[k].sent != 0 &&
			    r->keys[k].seen == 0)
				r->keys[k].seen = now;
		}
		prev = c;
	}
	r->echo_prev = prev;
}

/*
 * Note when each of the attach workload's markers first shows in the outer
 * stream (with the bytes drawn by then), a marker split between two reads
 * too.
 */
static void
run_scan_marks(struct run *r, const char *p, size_t n, int64_t now)
{
	char	join[2 * JDB_MARK_MAX];
	size_t	len, k, keep;
	int	i, found;

	for (i = 0; i < JDB_MARKS; i++) {
		if (r->mark[i] == NULL || r->mark_seen[i] != 0)
			continue;
		len = strlen(r->mark[i]);
		found = memmem(p, n, r->mark[i], len) != NULL;
		if (!found && r->mark_carry_len > 0) {
			k = n < len - 1 ? n : len - 1;
			memcpy(join, r->mark_carry, r->mark_carry_len);
			memcpy(join + r->mark_carry_len, p, k);
			found = memmem(join, r->mark_carry_len + k,
			    r->mark[i], len) != NULL;
		}
		if (found) {
			r->mark_seen[i] = now;
			r->mark_bytes[i] = r->out_bytes;
		}
	}
	/* Keep the stream's last JDB_MARK_MAX - 1 bytes. */
	if (n >= JDB_MARK_MAX - 1) {
		memcpy(r->mark_carry, p + n - (JDB_MARK_MAX - 1),
		    JDB_MARK_MAX - 1);
		r->mark_carry_len = JDB_MARK_MAX - 1;
		return;
	}
	keep = JDB_MARK_MAX - 1 - n;
	if (keep > r->mark_carry_len)
		keep = r->mark_carry_len;
	memmove(r->mark_carry, r->mark_carry + r->mark_carry_len - keep, keep);
	memcpy(r->mark_carry + keep, p, n);
	r->mark_carry_len = keep + n;
}

/* The first of the attach workload's markers not yet drawn, or -1. */
static int
run_mark_missing(struct run *r)
{
	int	i;

	for (i = 0; i < JDB_MARKS && r->mark[i] != NULL; i++) {
		if (r->mark_seen[i] == 0)
			return i;
	}
	return -1;
}

/* Read what one master has and discard it, scanning the outer stream. */
static void
run_read(struct run *r, int i)
{
	struct bench	*b = r->b;
	ssize_t		 n;
	int64_t		 now;

	n = read(r->fd[i], b->buf, sizeof b->buf);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		close(r->fd[i]);
		r->fd[i] = -1;
		if (i == 0)
			r->gone = 1;
		return;
	}
	now = now_ns();
	r->last_out = now;
	if (i != 0)
		return;
	r->out_bytes += (uint64_t)n;
	if (r->nkeys > 0)
		run_scan_echo(r, (unsigned char *)b->buf, (size_t)n, now);
	if (r->mark[0] != NULL)
		run_scan_marks(r, b->buf, (size_t)n, now);
	if (r->peer != PEER_RAW) {
		run_scan_queries(r, b->buf, (size_t)n);
		if (r->kind == PEER_SCREEN && memmem(b->buf, (size_t)n,
		    "No more windows", 15) != NULL)
			r->no_more = 1;
		run_tail(r, b->buf, (size_t)n);
	}
}

/*
 * Drain the masters of every run for up to ms milliseconds; return early
 * with the revents of xfd (if not -1) once it has events; 0 on time-out,
 * -1 when asked to stop.
 */
static int
pump(struct run **rs, int nr, int ms, int xfd, short xev)
{
	struct pollfd	 pfd[PEER_COUNT * JDB_FDS + 1];
	struct run	*who[PEER_COUNT * JDB_FDS];
	int		 idx[PEER_COUNT * JDB_FDS];
	int64_t		 end = now_ns() + ms * MS, left;
	int		 n, i, j, rc;

	for (;;) {
		if (jdb_stopping)
			return -1;
		n = 0;
		for (i = 0; i < nr; i++) {
			for (j = 0; j < rs[i]->nfd; j++) {
				if (rs[i]->fd[j] == -1)
					continue;
				pfd[n].fd = rs[i]->fd[j];
				pfd[n].events = POLLIN;
				who[n] = rs[i];
				idx[n++] = j;
			}
		}
		pfd[n].fd = xfd;
		pfd[n].events = xev;
		pfd[n].revents = 0;
		left = (end - now_ns() + MS - 1) / MS;
		if (left < 0)
			left = 0;
		rc = poll(pfd, n + 1, (int)left);
		if (rc == -1 && errno != EINTR)
			return -1;
		for (i = 0; rc > 0 && i < n; i++) {
			if (pfd[i].revents != 0)
				run_read(who[i], idx[i]);
		}
		if (xfd != -1 && rc > 0 && pfd[n].revents != 0)
			return pfd[n].revents;
		if (now_ns() >= end)
			return 0;
	}
}

/*
 * Drain until no master has had output for quiet ms, or max ms have gone:
 * 0 when quiet, 1 on time-out, -1 when asked to stop.
 */
static int
pump_quiet(struct run **rs, int nr, int quiet, int max)
{
	int64_t	start = now_ns(), last;
	int	i;

	for (;;) {
		if (pump(rs, nr, 10, -1, 0) == -1)
			return -1;
		last = 0;
		for (i = 0; i < nr; i++) {
			if (rs[i]->last_out > last)
				last = rs[i]->last_out;
		}
		if (now_ns() - last >= quiet * MS)
			return 0;
		if (now_ns() - start >= max * MS)
			return 1;
	}
}

/*
 * Wait until r's jobs have written n lines to its ready fifo, draining
 * every run meanwhile; 0, or -1 on time-out, stop or the manager leaving.
 */
static int
run_wait_lines(struct run **rs, int nr, struct run *r, int n, int ms)
{
	int64_t	end = now_ns() + ms * MS, stall = now_ns() + 10000 * MS;
	char	buf[256];
	ssize_t	got;
	int	seen = 0, ev, left;

	while (seen < n) {
		left = (int)((end - now_ns()) / MS);
		if (left <= 0)
			return run_fail(r, "%d of %d jobs ready after %d ms",
			    seen, n, ms);
		if (r->no_more && now_ns() > stall - 8000 * MS) {
			snprintf(r->why, sizeof r->why, "screen made %d of %d "
			    "windows, then \"No more windows\" (its MAXWIN)",
			    seen, n);
			return -1;
		}
		if (now_ns() > stall)
			return run_fail(r, "stuck at %d of %d jobs ready for "
			    "10 s", seen, n);
		if (left > 100)
			left = 100;
		if ((ev = pump(rs, nr, left, r->ready_fd, POLLIN)) == -1)
			return run_fail(r, "interrupted");
		if (r->gone)
			return run_fail(r, "manager exited");
		if (ev & POLLIN) {
			while ((got = read(r->ready_fd, buf, sizeof buf)) > 0)
				seen += (int)got;
			stall = now_ns() + 10000 * MS;
		}
	}
	return 0;
}

/*
 * Wait for the job to open the go fifo (it then waits for a line on it);
 * returns the writing end, or -1.
 */
static int
run_wait_reader(struct run *r, const char *name, int ms)
{
	int64_t	end = now_ns() + ms * MS;
	char	path[PATH_MAX];
	int	fd;

	snprintf(path, sizeof path, "%.255s/%s", r->dir, name);
	for (;;) {
		fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd != -1)
			return fd;
		if (errno != ENXIO)
			return run_fail(r, "%s: %s", path, strerror(errno));
		if (now_ns() >= end)
			return run_fail(r, "job not started after %d ms", ms);
		if (pump(&r, 1, 2, -1, 0) == -1)
			return run_fail(r, "interrupted");
		if (r->gone)
			return run_fail(r, "manager exited");
	}
}

/* Type bytes into the outer terminal (for the raw drain: the job's pty). */
static int
run_send(struct run *r, const char *s, size_t n)
{
	ssize_t	w;

	while (n > 0 && r->fd[0] != -1) {
		w = write(r->fd[0], s, n);
		if (w == -1 && errno == EAGAIN) {
			pump(&r, 1, 1, -1, 0);
			continue;
		}
		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return n == 0 ? 0 : -1;
}

/* Add up CPU time and resident memory of the run's manager processes. */
static void
run_sample(struct run *r, struct sample *s)
{
	const char	*comm = r->b->peers[r->peer].comm;
	struct rusage	 ru;
	DIR		*d;
	struct dirent	*de;
	char		 path[64], buf[1024], *p;
	unsigned long	 ut, st;
	long		 rss;
	pid_t		 pid;

	memset(s, 0, sizeof *s);
	if (r->peer == PEER_RAW) {
		getrusage(RUSAGE_SELF, &ru);
		s->cpu = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
		s->ticks = (long)(s->cpu * r->b->clk_tck + 0.5);
		return;
	}
	if ((d = opendir("/proc")) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = (pid_t)atol(de->d_name);
		snprintf(path, sizeof path, "/proc/%ld/comm", (long)pid);
		if (read_file(path, buf, sizeof buf) <= 0 ||
		    strncmp(buf, comm, strlen(comm)) != 0 ||
		    !proc_has_tag(pid, r->tag, 0))
			continue;
		snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
		if (read_file(path, buf, sizeof buf) <= 0 ||
		    (p = strrchr(buf, ')')) == NULL ||
		    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
		    "%lu %lu", &ut, &st) != 2)
			continue;
		s->ticks += (long)(ut + st);
		snprintf(path, sizeof path, "/proc/%ld/statm", (long)pid);
		if (read_file(path, buf, sizeof buf) > 0 &&
		    sscanf(buf, "%*d %ld", &rss) == 1)
			s->rss_kb += rss * r->b->page_kb;
		s->nproc++;
	}
	closedir(d);
	s->cpu = (double)s->ticks / r->b->clk_tck;
}

/* Give the keyboard to the job to focus, as each manager wants it. */
static void
run_focus(struct run *r)
{
	if (r->kind == PEER_JOBDECK)
		run_send(r, "\024", 1);		/* Ctrl+T */
	else if (r->kind == PEER_MPROCS)
		run_send(r, "\001", 1);		/* C-a: toggle focus */
}

/* Issue the manager's command that stops every job; -1 if it has none. */
static int
run_kill_all(struct run *r)
{
	char	*argv[8];
	int	 i;

	switch (r->kind) {
	case PEER_RAW:
		for (i = 0; i < r->nfd; i++) {
			if (r->kid[i] > 0)
				kill(-r->kid[i], SIGTERM);
		}
		return 0;
	case PEER_JOBDECK:
		return run_send(r, "!kill-all\r", 10);
	case PEER_TMUX:
		argv[0] = r->b->peers[r->peer].path;
		argv[1] = (char *)"-L";
		argv[2] = r->sock;
		argv[3] = (char *)"kill-server";
		argv[4] = NULL;
		return run_exec(r, argv, NULL) == -1 ? -1 : 0;
	case PEER_SCREEN:
		argv[0] = r->b->peers[r->peer].path;
		argv[1] = (char *)"-S";
		argv[2] = r->sock;
		argv[3] = (char *)"-X";
		argv[4] = (char *)"quit";
		argv[5] = NULL;
		return run_exec(r, argv, NULL) == -1 ? -1 : 0;
	case PEER_DVTM:
		return run_send(r, "\007qq", 3);	/* MOD (C-g) q q */
	case PEER_MPROCS:
		return run_send(r, "q", 1);
	}
	return -1;
}

/* Whether a kind of peer can run detached and be attached to later. */
static int
peer_attaches(int kind)
{
	return kind == PEER_JOBDECK || kind == PEER_TMUX ||
	    kind == PEER_SCREEN;
}

/*
 * Start the manager detached (no terminal) with these jobs, the last the
 * one an attaching client shows: jobdeck -d, tmux new-session -d (the
 * session named JDB_STATUS, so its status line shows it), screen -dm (with
 * a hardstatus line reading JDB_STATUS).  Returns once the starter has.
 */
static int
run_start_detached(struct run *r, char **jobs, int njobs)
{
	struct peer	 *p = &r->b->peers[r->peer];
	char		**argv, path[PATH_MAX];
	FILE		 *f;
	int		  n = 0, i, rc = -1;

	for (i = 0; i < njobs; i++) {
		if (strpbrk(jobs[i], "\"'\\$") != NULL)
			return run_fail(r, "job with quotes: %s", jobs[i]);
	}
	if ((argv = calloc(njobs + 16, sizeof *argv)) == NULL)
		die("out of memory");
	argv[n++] = p->path;
	switch (r->kind) {
	case PEER_JOBDECK:
		argv[n++] = (char *)"-d";
		argv[n++] = (char *)"-c";
		argv[n++] = (char *)"/dev/null";
		argv[n++] = (char *)"--";
		for (i = 0; i < njobs; i++)
			argv[n++] = jobs[i];
		break;
	case PEER_TMUX:
		if (run_write_conf(r, "tmux.conf", jobs, njobs) == -1)
			goto out;
		snprintf(r->conf, sizeof r->conf, "%.255s/tmux.conf", r->dir);
		argv[n++] = (char *)"-L";
		argv[n++] = r->sock;
		argv[n++] = (char *)"-f";
		argv[n++] = (char *)"/dev/null";
		argv[n++] = (char *)"new-session";
		argv[n++] = (char *)"-d";
		argv[n++] = (char *)"-s";
		argv[n++] = (char *)JDB_STATUS;
		argv[n++] = jobs[njobs - 1];
		argv[n++] = (char *)";";
		argv[n++] = (char *)"source-file";
		argv[n++] = r->conf;
		break;
	case PEER_SCREEN:
		if (run_write_conf(r, "screenrc", jobs, njobs) == -1)
			goto out;
		snprintf(path, sizeof path, "%.255s/screenrc", r->dir);
		if ((f = fopen(path, "a")) == NULL ||
		    fprintf(f, "hardstatus alwayslastline " JDB_STATUS "\n")
		    < 0 || fclose(f) == EOF) {
			run_fail(r, "%s: %s", path, strerror(errno));
			goto out;
		}
		argv[n++] = (char *)"-U";
		argv[n++] = (char *)"-c";
		argv[n++] = (char *)"screenrc";
		argv[n++] = (char *)"-dmS";
		argv[n++] = r->sock;
		break;
	default:
		run_fail(r, "cannot start detached");
		goto out;
	}
	argv[n] = NULL;
	rc = run_exec_wait(r, argv, 20000);
out:
	free(argv);
	return rc;
}

/*
 * Wait until the manager's processes use no CPU for 300 ms (three 100 ms
 * samples in a row without a new tick), at most ms: a detached manager has
 * no output to watch, and this is when it has read what its jobs wrote.
 */
static int
run_settle(struct run *r, int ms)
{
	struct sample	s;
	int64_t		end = now_ns() + ms * MS;
	long		last = -1;
	int		same = 0;

	while (same < 3) {
		if (now_ns() >= end)
			return run_fail(r, "manager still busy after %d ms",
			    ms);
		if (pump(&r, 1, 100, -1, 0) == -1)
			return run_fail(r, "interrupted");
		run_sample(r, &s);
		if (s.nproc == 0)
			return run_fail(r, "manager exited");
		same = s.ticks == last ? same + 1 : 0;
		last = s.ticks;
	}
	return 0;
}

/*
 * Start the manager's attach client on the outer pty, watching for the
 * markers of its first whole frame: the shown job's marker line and what
 * the manager draws around it (jobdeck's panel title with the count and
 * the selected job's entry, the panel's last; tmux's and screen's status
 * line).
 */
static int
run_attach(struct run *r)
{
	char	*argv[8];
	int	 n = 0, rc;

	argv[n++] = r->b->peers[r->peer].path;
	r->mark[0] = JDB_MARK;
	switch (r->kind) {
	case PEER_JOBDECK:
		argv[n++] = (char *)"attach";
		snprintf(r->mark_panel, sizeof r->mark_panel,
		    "Processes (%d running)", JDB_MANY);
		r->mark[1] = r->mark_panel;
		/* The selected job's entry: the panel's last, near the end. */
		r->mark[2] = "Last output: ok";
		break;
	case PEER_TMUX:
		argv[n++] = (char *)"-L";
		argv[n++] = r->sock;
		argv[n++] = (char *)"attach";
		r->mark[1] = "[" JDB_STATUS "]";
		break;
	default:
		argv[n++] = (char *)"-U";
		argv[n++] = (char *)"-r";
		argv[n++] = r->sock;
		r->mark[1] = JDB_STATUS;
		break;
	}
	argv[n] = NULL;
	rc = run_spawn(r, argv, &r->fd[0], &r->pid);
	if (rc == 0)
		r->nfd = 1;
	return rc;
}

/*
 * Workload 1: the job waits on the go fifo, so the manager's start-up is
 * not timed; then seq floods it.  Wall time from the release to the line
 * on done; CPU time from the release until the manager's output is quiet.
 */
static int
wl_flood(struct run *r, double *wall, double *cpu, double *kb)
{
	struct sample	 s0, s1;
	char		*job;
	int64_t		 t0, t1;
	uint64_t	 o0;
	int		 go, ev;

	job = xasprintf("read x <%s/go; " JDB_SEQ "; echo >%s/done; "
	    "exec sleep 1000", r->dir, r->dir);
	ev = run_start(r, &job, 1);
	free(job);
	if (ev == -1 || (go = run_wait_reader(r, "go", 20000)) == -1)
		return -1;
	if (pump_quiet(&r, 1, 300, 3000) == -1) {
		close(go);
		return run_fail(r, "interrupted");
	}
	run_sample(r, &s0);
	t0 = now_ns();
	o0 = r->out_bytes;
	ev = (int)write(go, "\n", 1);
	close(go);
	if (ev != 1)
		return run_fail(r, "write go: %s", strerror(errno));
	ev = pump(&r, 1, 120000, r->done_fd, POLLIN);
	t1 = now_ns();
	if (ev == -1)
		return run_fail(r, "interrupted");
	if (!(ev & POLLIN))
		return run_fail(r, "flood not done after 120 s");
	if (pump_quiet(&r, 1, 100, 5000) == -1)
		return run_fail(r, "interrupted");
	run_sample(r, &s1);
	*wall = (double)(t1 - t0) / 1e9;
	*cpu = s1.cpu - s0.cpu;
	*kb = (double)(r->out_bytes - o0) / 1e3;
	return 0;
}

/*
 * Workloads 2 and 3: keys every key_gap ms into a focused cat (with a yes
 * job beside it when flood is set); each key's latency to its echo, the
 * median of those seen within a second and how many were not.  The cat
 * writes to a file, which shows afterwards that the keys reached it.
 */
static int
wl_echo(struct run *r, int flood, double *med, double *lost, double *bpk)
{
	struct bench	*b = r->b;
	uint64_t	 o0;
	char		*jobs[2], path[PATH_MAX], out[4096], kb[2];
	double		 lat[JDB_KEYS_MAX];
	int64_t		 start, now, next;
	int		 njobs = 0, sent = 0, i, nlat = 0, nlost = 0, open_keys;
	int		 wait, cp, delivered;
	ssize_t		 n;

	if (flood)
		jobs[njobs++] = xasprintf("exec yes");
	jobs[njobs++] = xasprintf("echo >%s/ready; exec cat >%s/catout",
	    r->dir, r->dir);
	i = run_start(r, jobs, njobs);
	while (njobs > 0)
		free(jobs[--njobs]);
	if (i == -1 || run_wait_lines(&r, 1, r, 1, 20000) == -1)
		return -1;
	if (pump_quiet(&r, 1, 200, 1000) == -1)
		return run_fail(r, "interrupted");
	run_focus(r);
	if (pump_quiet(&r, 1, 200, 1000) == -1)
		return run_fail(r, "interrupted");

	memset(r->keys, 0, sizeof r->keys);
	r->nkeys = b->nkeys;
	start = now_ns();
	o0 = r->out_bytes;
	for (;;) {
		now = now_ns();
		while (sent < b->nkeys &&
		    now >= start + sent * b->key_gap * MS) {
			cp = JDB_KEY_BASE + sent;
			kb[0] = (char)(0xc0 | (cp >> 6));
			kb[1] = (char)(0x80 | (cp & 0x3f));
			r->keys[sent].sent = now_ns();
			if (run_send(r, kb, 2) == -1)
				return run_fail(r, "cannot type: no terminal");
			sent++;
			now = now_ns();
		}
		open_keys = 0;
		for (i = 0; i < sent; i++) {
			if (r->keys[i].seen == 0 &&
			    now - r->keys[i].sent < JDB_KEY_LOST * MS)
				open_keys++;
		}
		if (sent == b->nkeys && open_keys == 0)
			break;
		next = sent < b->nkeys ? start + sent * b->key_gap * MS :
		    now + 10 * MS;
		wait = (int)((next - now) / MS);
		if (wait < 1)
			wait = 1;
		if (wait > 10)
			wait = 10;
		if (pump(&r, 1, wait, -1, 0) == -1)
			return run_fail(r, "interrupted");
	}
	*bpk = (double)(r->out_bytes - o0) / b->nkeys;
	for (i = 0; i < b->nkeys; i++) {
		if (r->keys[i].seen == 0 ||
		    r->keys[i].seen - r->keys[i].sent > JDB_KEY_LOST * MS) {
			nlost++;
			fprintf(b->tsv, "%d\t%s\t%s\tkey_ms\t%d\tlost\n",
			    b->cur_run + 1, flood ? "eflood" : "echo",
			    b->peers[r->peer].name, i);
			continue;
		}
		lat[nlat] = (double)(r->keys[i].seen - r->keys[i].sent) / 1e6;
		fprintf(b->tsv, "%d\t%s\t%s\tkey_ms\t%d\t%.4f\n",
		    b->cur_run + 1, flood ? "eflood" : "echo",
		    b->peers[r->peer].name, i, lat[nlat]);
		nlat++;
	}
	r->nkeys = 0;

	/* End the line so cat writes it out, then count what arrived. */
	run_send(r, "\r", 1);
	snprintf(path, sizeof path, "%.255s/catout", r->dir);
	delivered = 0;
	for (i = 0; i < 300 && delivered < b->nkeys; i++) {
		pump(&r, 1, 10, -1, 0);
		if ((n = read_file(path, out, sizeof out)) <= 0)
			continue;
		delivered = 0;
		for (cp = 0; cp < b->nkeys; cp++) {
			kb[0] = (char)(0xc0 | ((JDB_KEY_BASE + cp) >> 6));
			kb[1] = (char)(0x80 | ((JDB_KEY_BASE + cp) & 0x3f));
			if (memmem(out, (size_t)n, kb, 2) != NULL)
				delivered++;
		}
	}
	fprintf(b->tsv, "%d\t%s\t%s\tdelivered\t\t%d\n", b->cur_run + 1,
	    flood ? "eflood" : "echo", b->peers[r->peer].name, delivered);
	*lost = nlost;
	*med = nlat > 0 ? median(lat, nlat) : INFINITY;
	/*
	 * No echo at all is a result, not a failure: the plain echo workload
	 * shows that focusing works; under flood a manager may starve its
	 * keyboard (the focus key included).
	 */
	if (nlat == 0)
		snprintf(r->why, sizeof r->why, "no key echoed within %d ms; "
		    "%d of %d reached the job within 3 s", JDB_KEY_LOST,
		    delivered, b->nkeys);
	return 0;
}

/*
 * Workload 4: every manager at once (CPU time is per process, and idle
 * managers do not compete), ten sleep jobs each; ticks and bytes drawn
 * over the window after a second of settling.  With many (idle200), 200
 * quiet jobs each and the ticks only: what watching that many costs
 * (jobdeck's waiting-for-input probe among it).
 */
static void
wl_idle(struct bench *b, int run, int many)
{
	struct run	 runs[PEER_COUNT], *rs[PEER_COUNT];
	struct sample	 s0[PEER_COUNT], s1[PEER_COUNT];
	uint64_t	 o0[PEER_COUNT];
	char		*jobs[JDB_MANY];
	int		 nr = 0, p, i, ok[PEER_COUNT];
	int		 njobs = many ? JDB_MANY : JDB_IDLE_JOBS;
	int		 m_ticks = many ? M_IDLE_MANY_TICKS : M_IDLE_TICKS;

	for (p = PEER_JOBDECK; p < PEER_COUNT; p++) {
		if (b->peers[p].path == NULL)
			continue;
		rs[nr] = &runs[nr];
		ok[nr] = 0;
		if (run_init(b, rs[nr], p) == 0) {
			for (i = 0; i < njobs; i++)
				jobs[i] = xasprintf("echo >%s/ready; "
				    "exec sleep 1000", rs[nr]->dir);
			if (run_start(rs[nr], jobs, njobs) == 0 &&
			    run_wait_lines(rs, nr + 1, rs[nr], njobs,
			    60000) == 0)
				ok[nr] = 1;
			for (i = 0; i < njobs; i++)
				free(jobs[i]);
		}
		nr++;
	}
	pump_quiet(rs, nr, 500, 2000);
	pump(rs, nr, 1000, -1, 0);
	for (i = 0; i < nr; i++) {
		run_sample(rs[i], &s0[i]);
		o0[i] = rs[i]->out_bytes;
	}
	if (pump(rs, nr, b->idle_secs * 1000, -1, 0) == -1) {
		for (i = 0; i < nr; i++)
			run_stop(rs[i]);
		return;
	}
	for (i = 0; i < nr; i++) {
		run_sample(rs[i], &s1[i]);
		p = rs[i]->peer;
		if (ok[i] && (rs[i]->gone || s1[i].nproc == 0)) {
			ok[i] = 0;
			run_fail(rs[i], "manager exited");
		}
		if (ok[i]) {
			record(b, m_ticks, p, run,
			    (double)(s1[i].ticks - s0[i].ticks), NULL);
			if (!many)
				record(b, M_IDLE_BYTES, p, run,
				    (double)(rs[i]->out_bytes - o0[i]), NULL);
		} else {
			record(b, m_ticks, p, run, NAN, rs[i]->why);
			if (!many)
				record(b, M_IDLE_BYTES, p, run, NAN,
				    rs[i]->why);
		}
		run_stop(rs[i]);
	}
}

/*
 * Workloads 5 and 6: 200 cooperative sleep jobs.  Time from the manager's
 * start until all run; resident memory after settling; then the manager's
 * stop-everything command and the time until the hold fifo hangs up.
 */
static int
wl_many(struct run *r, double *start, double *rss, double *killt)
{
	struct sample	 s;
	char		*jobs[JDB_MANY];
	int64_t		 t0, t1;
	int		 i, rc, ev;

	for (i = 0; i < JDB_MANY; i++)
		jobs[i] = xasprintf("exec 3>%s/hold; echo >%s/ready; "
		    "exec sleep 1000", r->dir, r->dir);
	t0 = now_ns();
	rc = run_start(r, jobs, JDB_MANY);
	for (i = 0; i < JDB_MANY; i++)
		free(jobs[i]);
	if (rc == -1 || run_wait_lines(&r, 1, r, JDB_MANY, 60000) == -1)
		return -1;
	t1 = now_ns();
	*start = (double)(t1 - t0) / 1e9;
	pump_quiet(&r, 1, 300, 3000);
	pump(&r, 1, 500, -1, 0);
	if (r->peer != PEER_RAW) {
		run_sample(r, &s);
		*rss = s.rss_kb / 1024.0;
	} else
		*rss = NAN;

	t0 = now_ns();
	if (run_kill_all(r) == -1)
		return run_fail(r, "cannot send the kill command");
	ev = pump(&r, 1, 20000, r->hold_fd, POLLHUP);
	t1 = now_ns();
	if (ev == -1)
		return run_fail(r, "interrupted");
	if (!(ev & POLLHUP)) {
		*killt = NAN;
		return run_fail(r, "jobs still alive 20 s after the kill "
		    "command");
	}
	*killt = (double)(t1 - t0) / 1e9;
	return 0;
}

/*
 * Workload 5b: 200 jobs that each print a screenful of coloured text and
 * sleep; resident memory once the manager's output is quiet.
 */
static int
wl_screenful(struct run *r, double *rss)
{
	struct sample	 s;
	char		*jobs[JDB_MANY];
	int		 i, rc;

	for (i = 0; i < JDB_MANY; i++)
		jobs[i] = xasprintf("cat %s/screenful; echo >%s/ready; "
		    "exec sleep 1000", r->b->root, r->dir);
	rc = run_start(r, jobs, JDB_MANY);
	for (i = 0; i < JDB_MANY; i++)
		free(jobs[i]);
	if (rc == -1 || run_wait_lines(&r, 1, r, JDB_MANY, 60000) == -1)
		return -1;
	pump_quiet(&r, 1, 500, 10000);
	run_sample(r, &s);
	if (s.nproc == 0)
		return run_fail(r, "manager exited");
	*rss = s.rss_kb / 1024.0;
	return 0;
}

/*
 * Workload 10 (attach): 200 jobs in a detached manager, each having
 * printed a line (the last, the one a client shows, the marker); once the
 * manager is idle, the time from starting its attach client until every
 * marker of the first whole frame is drawn, and the bytes drawn by then.
 */
static int
wl_attach(struct run *r, double *ms, double *kb)
{
	char	*jobs[JDB_MANY];
	int64_t	 t0, t1;
	int	 i, rc;

	for (i = 0; i < JDB_MANY - 1; i++)
		jobs[i] = xasprintf("echo job; echo >%s/ready; "
		    "exec sleep 1000", r->dir);
	/* tr makes the marker: the command's own text does not hold it. */
	jobs[i] = xasprintf("echo jdbmark | tr a-z A-Z; echo ok; "
	    "echo >%s/ready; exec sleep 1000", r->dir);
	rc = run_start_detached(r, jobs, JDB_MANY);
	for (i = 0; i < JDB_MANY; i++)
		free(jobs[i]);
	if (rc == -1)
		return -1;
	if (run_wait_lines(&r, 1, r, JDB_MANY, 60000) == -1) {
		/* Detached, screen has no terminal to say "No more windows". */
		if (r->kind == PEER_SCREEN)
			snprintf(r->why + strlen(r->why), sizeof r->why -
			    strlen(r->why), " (screen makes at most MAXWIN "
			    "windows, 100 in Debian's build)");
		return -1;
	}
	if (run_settle(r, 10000) == -1)
		return -1;
	t0 = now_ns();
	if (run_attach(r) == -1)
		return -1;
	while ((i = run_mark_missing(r)) != -1) {
		if (now_ns() - t0 > 10000 * MS)
			return run_fail(r, "no whole frame after 10 s: \"%s\" "
			    "not drawn", r->mark[i]);
		if (pump(&r, 1, 10, -1, 0) == -1)
			return run_fail(r, "interrupted");
		if (r->gone && run_mark_missing(r) != -1)
			return run_fail(r, "attach client exited");
	}
	t1 = 0;
	for (i = 0; i < JDB_MARKS && r->mark[i] != NULL; i++) {
		if (r->mark_seen[i] > t1) {
			t1 = r->mark_seen[i];
			*kb = (double)r->mark_bytes[i] / 1e3;
		}
	}
	*ms = (double)(t1 - t0) / 1e6;
	return 0;
}

/* The path of a program found in PATH (execve does not look), or NULL. */
static char *
path_find(const char *name)
{
	const char	*path = getenv("PATH"), *p, *colon;
	char		 full[PATH_MAX];

	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p != '\0'; p = *colon != '\0' ? colon + 1 : colon) {
		if ((colon = strchr(p, ':')) == NULL)
			colon = p + strlen(p);
		snprintf(full, sizeof full, "%.*s/%s", (int)(colon - p), p,
		    name);
		if (colon > p && access(full, X_OK) == 0)
			return xasprintf("%s", full);
	}
	return NULL;
}

/*
 * Start the hosts workload's server once, the tests' own (tests/testssh.h:
 * sshd on 127.0.0.1, the aliases jd-a and jd-b), and make one connection
 * so ssh has its known host before anything is timed; 0, or -1 with why
 * (then for every run).
 */
static int
hosts_server(struct run *r)
{
	struct bench	*b = r->b;
	const char	*argv[] = { NULL, "-F", NULL, "jd-a", "true", NULL };
	char		 out[512];
	int		 st;

	if (b->ssh_up == 0) {
		b->ssh_up = -1;
		if ((b->ssh_bin = path_find("ssh")) == NULL)
			snprintf(b->ssh_why, sizeof b->ssh_why, "ssh not found "
			    "in PATH (openssh-client, scripts/deps.sh)");
		else if (testssh_start(&b->ssh, b->ssh_why,
		    sizeof b->ssh_why) == 0) {
			argv[0] = b->ssh_bin;
			argv[2] = b->ssh.config;
			st = testssh_run(argv, 30000, out, sizeof out);
			if (st == 0)
				b->ssh_up = 1;
			else {
				out[strcspn(out, "\n")] = '\0';
				snprintf(b->ssh_why, sizeof b->ssh_why, "ssh "
				    "jd-a true: status %d: %s", st, out);
				testssh_stop(&b->ssh);
			}
		}
	}
	if (b->ssh_up == 1)
		return 0;
	return run_fail(r, "no sshd: %s", b->ssh_why);
}

/*
 * SIGKILL every `sleep ARG` on this machine (the host's, of one run),
 * for 5 s at most.
 */
static void
hosts_kill(const char *arg)
{
	int64_t	end = now_ns() + 5000 * MS;
	pid_t	one;

	/* One a look: a killed sleep is a zombie, which is not counted. */
	while (testproc_sleeps(arg, &one) > 0 && now_ns() < end)
		kill(one, SIGKILL);
}

/*
 * Write the hosts workload's configuration for jobdeck: host "a" is the
 * server's jd-a, and the workload's jobs run cmd there.
 */
static int
run_write_hosts(struct run *r, const char *path, const char *cmd)
{
	FILE	*f;
	int	 i;

	if ((f = fopen(path, "w")) == NULL)
		return run_fail(r, "%s: %s", path, strerror(errno));
	fprintf(f, "[hosts.a]\nssh = \"jd-a\"\n");
	for (i = 0; i < r->b->host_jobs; i++)
		fprintf(f, "\n[[job]]\nname = \"h%d\"\ncommand = \"%s\"\n"
		    "host = \"a\"\n", i, cmd);
	if (fclose(f) == EOF)
		return run_fail(r, "%s: %s", path, strerror(errno));
	return 0;
}

/*
 * Workload 11: host_jobs jobs (50; quick: 10) of `sleep ARG` (30 s and
 * a fraction that is this run's alone) on an ssh host.  jobdeck: a deck
 * started detached with a configuration of a host "a" (ssh = "jd-a") and
 * the jobs on it; plain ssh (the raw peer): that many `ssh -F CONFIG jd-a
 * sleep ARG` started at once.  Time from the start until every sleep runs
 * on the host (its command line, seen in /proc), and the peak of TCP
 * connections established to the server meanwhile.
 */
static int
wl_hosts(struct run *r, double *start, double *conns)
{
	struct bench		*b = r->b;
	struct timespec		 step = { 0, JDB_HOST_STEP * MS };
	char			 cmd[64], conf[PATH_MAX], out[PATH_MAX];
	char			 text[256], *argv[8];
	int64_t			 t0, t1;
	pid_t			 pid = -1;
	int			 i, n = 0, c, peak = 0, st, rc = -1;

	if (hosts_server(r) == -1)
		return -1;
	snprintf(r->host_arg, sizeof r->host_arg, "30.%ld%u", (long)getpid(),
	    b->seq);
	snprintf(cmd, sizeof cmd, "sleep %s", r->host_arg);
	if (r->kind == PEER_JOBDECK) {
		snprintf(conf, sizeof conf, "%.255s/hosts.toml", r->dir);
		snprintf(out, sizeof out, "%.255s/deck.out", r->dir);
		if (run_write_hosts(r, conf, cmd) == -1)
			return -1;
		for (i = 0; i < JDB_ENV_MAX - 1 && r->env[i] != NULL; i++)
			;
		if (i == JDB_ENV_MAX - 1)
			return run_fail(r, "environment full");
		r->env[i] = xasprintf("JOBDECK_SSH_COMMAND=%s",
		    b->ssh.command);
		argv[0] = b->peers[r->peer].path;
		argv[1] = (char *)"-d";
		argv[2] = (char *)"-S";
		argv[3] = r->sock;
		argv[4] = (char *)"-c";
		argv[5] = conf;
		argv[6] = NULL;
		t0 = now_ns();
		if ((pid = run_exec(r, argv, out)) == -1)
			return run_fail(r, "fork: %s", strerror(errno));
	} else {
		argv[0] = b->ssh_bin;
		argv[1] = (char *)"-F";
		argv[2] = b->ssh.config;
		argv[3] = (char *)"jd-a";
		argv[4] = cmd;
		argv[5] = NULL;
		t0 = now_ns();
		/* Reaped, and killed if need be, by run_stop(). */
		for (i = 0; i < b->host_jobs; i++) {
			if (run_exec(r, argv, NULL) == -1)
				return run_fail(r, "fork: %s",
				    strerror(errno));
		}
	}
	for (;;) {
		if ((c = testssh_connections(&b->ssh)) > peak)
			peak = c;
		if ((n = testproc_sleeps(r->host_arg, NULL)) >= b->host_jobs)
			break;
		if (jdb_stopping) {
			run_fail(r, "interrupted");
			goto out;
		}
		if (now_ns() - t0 > JDB_HOST_WAIT * MS) {
			run_fail(r, "%d of %d running on the host after %d "
			    "ms", n, b->host_jobs, JDB_HOST_WAIT);
			goto out;
		}
		/* jobdeck -d returns once the deck listens: 0, or why not. */
		if (pid > 0 && waitpid(pid, &st, WNOHANG) == pid) {
			pid = -1;
			if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
				if (read_file(out, text, sizeof text) <= 0)
					text[0] = '\0';
				text[strcspn(text, "\n")] = '\0';
				run_fail(r, "jobdeck -d exited %d: %s",
				    WIFEXITED(st) ? WEXITSTATUS(st) :
				    128 + WTERMSIG(st), text);
				goto out;
			}
		}
		nanosleep(&step, NULL);
	}
	t1 = now_ns();
	*start = (double)(t1 - t0) / 1e9;
	*conns = peak;
	rc = 0;
out:
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	return rc;
}

/*
 * The name a peer goes by for a metric: the raw peer of the hosts
 * workload is plain ssh.
 */
static const char *
peer_label(struct bench *b, int m, int p)
{
	if (p == PEER_RAW && (metrics[m].flags & MF_HOST))
		return "ssh";
	return b->peers[p].name;
}

/* Keep one measurement (NaN with a reason for a failure) and log it. */
static void
record(struct bench *b, int m, int peer, int run, double v, const char *why)
{
	b->res[m][peer][run] = v;
	if (why != NULL && *why != '\0' && b->why[m][peer] == NULL)
		b->why[m][peer] = strdup(why);
	if (isnan(v) && why != NULL) {
		fprintf(b->tsv, "%d\t%s\t%s\t%s\t\tfail: %s\n", run + 1,
		    metrics[m].wl, peer_label(b, m, peer), metrics[m].key,
		    why);
	} else if (!isnan(v))
		fprintf(b->tsv, "%d\t%s\t%s\t%s\t\t%.6g\n", run + 1,
		    metrics[m].wl, peer_label(b, m, peer), metrics[m].key, v);
	fflush(b->tsv);
}

/* Run one workload (but idle) for one peer, and record the results. */
static void
do_one(struct bench *b, int wl, int peer, int run)
{
	struct run	r;
	double		v[3] = { NAN, NAN, NAN };
	int64_t		t0 = now_ns();
	int		rc;

	if (run_init(b, &r, peer) == -1) {
		rc = -1;
		goto out;
	}
	switch (wl) {
	case WL_FLOOD:
		rc = wl_flood(&r, &v[0], &v[1], &v[2]);
		break;
	case WL_ECHO:
	case WL_EFLOOD:
		rc = wl_echo(&r, wl == WL_EFLOOD, &v[0], &v[1], &v[2]);
		break;
	case WL_MANY:
		rc = wl_many(&r, &v[0], &v[1], &v[2]);
		break;
	case WL_ATTACH:
		rc = wl_attach(&r, &v[0], &v[1]);
		break;
	case WL_HOSTS:
		rc = wl_hosts(&r, &v[0], &v[1]);
		break;
	default:
		rc = wl_screenful(&r, &v[0]);
		break;
	}
out:
	switch (wl) {
	case WL_FLOOD:
		record(b, M_FLOOD_WALL, peer, run, v[0], r.why);
		record(b, M_FLOOD_CPU, peer, run, v[1], r.why);
		record(b, M_FLOOD_KB, peer, run, v[2], r.why);
		fprintf(stderr, " %s %.2gs", b->peers[peer].name, v[0]);
		break;
	case WL_ECHO:
	case WL_EFLOOD:
		record(b, wl == WL_ECHO ? M_ECHO_MED : M_EFLOOD_MED, peer, run,
		    v[0], r.why);
		record(b, wl == WL_ECHO ? M_ECHO_LOST : M_EFLOOD_LOST, peer,
		    run, v[1], r.why);
		if (wl == WL_ECHO)
			record(b, M_ECHO_BPK, peer, run, v[2], r.why);
		fprintf(stderr, " %s %.2fms", b->peers[peer].name, v[0]);
		break;
	case WL_MANY:
		record(b, M_MANY_START, peer, run, v[0], rc == -1 &&
		    isnan(v[0]) ? r.why : NULL);
		if (peer != PEER_RAW)
			record(b, M_MANY_RSS, peer, run, v[1], rc == -1 &&
			    isnan(v[1]) ? r.why : NULL);
		record(b, M_KILL, peer, run, v[2], r.why);
		fprintf(stderr, " %s %.2fs/%.2fs", b->peers[peer].name, v[0],
		    v[2]);
		break;
	case WL_ATTACH:
		record(b, M_ATTACH_MS, peer, run, v[0], r.why);
		record(b, M_ATTACH_KB, peer, run, v[1], r.why);
		fprintf(stderr, " %s %.2fms", b->peers[peer].name, v[0]);
		break;
	case WL_HOSTS:
		record(b, M_HOST_START, peer, run, v[0], r.why);
		record(b, M_HOST_CONN, peer, run, v[1], r.why);
		fprintf(stderr, " %s %.2fs/%.0f", peer_label(b, M_HOST_START,
		    peer), v[0], v[1]);
		break;
	default:
		record(b, M_SCREEN_RSS, peer, run, v[0], r.why);
		fprintf(stderr, " %s %.1fMB", b->peers[peer].name, v[0]);
		break;
	}
	if (rc == -1)
		fprintf(stderr, "(fail)");
	run_stop(&r);
	fprintf(stderr, "[%.0fs]", (now_ns() - t0) / 1e9);
	if (rc == -1 && run == 0)
		b->skip[wl][peer] = 1;
}

/* Order doubles for qsort. */
static int
cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of n values (sorted in place). */
static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A peer's median of a metric over its good runs; -1 if none was good. */
static int
peer_median(struct bench *b, int m, int p, double *out, int *good)
{
	double	v[JDB_RUNS_MAX];
	int	i, n = 0;

	for (i = 0; i < b->runs; i++) {
		if (!isnan(b->res[m][p][i]))
			v[n++] = b->res[m][p][i];
	}
	*good = n;
	if (n == 0)
		return -1;
	*out = median(v, n);
	return 0;
}

/* Format a value with the metric's precision. */
static void
print_cell(char *s, size_t size, int m, double v)
{
	if (isinf(v))
		snprintf(s, size, ">%d", JDB_KEY_LOST);
	else
		snprintf(s, size, "%.*f", metrics[m].prec, v);
}

/* Print one workload's table: medians, then jobdeck's ratios. */
static void
print_table(struct bench *b, int t)
{
	double	 med[M_COUNT][PEER_COUNT];
	int	 have[M_COUNT][PEER_COUNT], good[M_COUNT][PEER_COUNT];
	int	 cols[M_COUNT], nc = 0, m, p, c, any, host;
	char	 cell[64], note[256];

	for (m = 0; m < M_COUNT; m++) {
		if (metrics[m].table == t)
			cols[nc++] = m;
	}
	host = metrics[cols[0]].flags & MF_HOST;
	any = 0;
	for (c = 0; c < nc; c++) {
		for (p = 0; p < PEER_COUNT; p++) {
			have[cols[c]][p] = peer_median(b, cols[c], p,
			    &med[cols[c]][p], &good[cols[c]][p]) == 0;
			any |= have[cols[c]][p] || b->why[cols[c]][p];
		}
	}
	if (!any)
		return;
	printf("\n%s (median of %d run%s)\n", table_titles[t], b->runs,
	    b->runs == 1 ? "" : "s");
	printf("  %-14s", "peer");
	for (c = 0; c < nc; c++)
		printf(" %14s", metrics[cols[c]].head);
	printf("\n");
	for (p = 0; p < PEER_COUNT; p++) {
		/* The hosts workload: jobdeck and plain ssh only. */
		if (host && p != PEER_RAW && b->peers[p].kind != PEER_JOBDECK)
			continue;
		if (b->peers[p].path == NULL && p != PEER_RAW) {
			if (b->peers[p].missing != NULL)
				printf("  %-14s missing: %s\n",
				    b->peers[p].name, b->peers[p].missing);
			continue;
		}
		if (p == PEER_RAW && b->peers[p].missing != NULL)
			continue;
		note[0] = '\0';
		printf("  %-14s", peer_label(b, cols[0], p));
		for (c = 0; c < nc; c++) {
			m = cols[c];
			if ((p == PEER_RAW && !(metrics[m].flags & MF_RAW)) ||
			    ((metrics[m].flags & MF_ATTACH) &&
			    !peer_attaches(b->peers[p].kind))) {
				snprintf(cell, sizeof cell, "n/a");
				if (p != PEER_RAW)
					snprintf(note, sizeof note, "  (cannot "
					    "detach and attach)");
			}
			else if (have[m][p]) {
				print_cell(cell, sizeof cell, m, med[m][p]);
				if (good[m][p] < b->runs)
					snprintf(note, sizeof note,
					    "  (%d of %d runs failed: %s)",
					    b->runs - good[m][p], b->runs,
					    b->why[m][p] ? b->why[m][p] : "?");
				else if (b->why[m][p] != NULL)
					snprintf(note, sizeof note, "  (%s)",
					    b->why[m][p]);
			} else if (b->why[m][p] != NULL) {
				snprintf(cell, sizeof cell, "fail");
				snprintf(note, sizeof note, "  fail: %s",
				    b->why[m][p]);
			} else
				snprintf(cell, sizeof cell, "-");
			printf(" %14s", cell);
		}
		printf("%s\n", note);
	}

	/*
	 * Ratios: each jobdeck build over the raw drain and over the best
	 * peer, and the first build over the second.
	 */
	for (p = PEER_JOBDECK; p <= PEER_JOBDECK2; p++) {
		if (b->peers[p].path == NULL)
			continue;
		snprintf(cell, sizeof cell, "%s/%s", b->peers[p].name,
		    peer_label(b, cols[0], PEER_RAW));
		print_ratio_row(b, cell, cols, nc, med, have, p, PEER_RAW);
		if (host)
			continue;
		snprintf(cell, sizeof cell, "%s/best", b->peers[p].name);
		print_ratio_row(b, cell, cols, nc, med, have, p, -1);
	}
	if (b->peers[PEER_JOBDECK].path != NULL &&
	    b->peers[PEER_JOBDECK2].path != NULL) {
		snprintf(cell, sizeof cell, "%s/%s",
		    b->peers[PEER_JOBDECK].name, b->peers[PEER_JOBDECK2].name);
		print_ratio_row(b, cell, cols, nc, med, have, PEER_JOBDECK,
		    PEER_JOBDECK2);
	}
}

/*
 * Print one row of ratios of a table's columns: peer num's median over
 * den's (PEER_RAW, a peer, or -1: the best of tmux and the peers after).
 */
static void
print_ratio_row(struct bench *b, const char *label, const int *cols, int nc,
    double (*med)[PEER_COUNT], int (*have)[PEER_COUNT], int num, int den)
{
	char	cell[64];
	double	best;
	int	c, m, p, bp, need;

	printf("  %-14s", label);
	for (c = 0; c < nc; c++) {
		m = cols[c];
		need = MF_RATIO | (den == PEER_RAW ? MF_RAW : 0);
		bp = den;
		if (den == -1) {
			for (p = PEER_TMUX; p < PEER_COUNT; p++) {
				if (have[m][p] && (bp == -1 ||
				    med[m][p] < med[m][bp]))
					bp = p;
			}
		}
		best = bp != -1 && have[m][bp] ? med[m][bp] : 0;
		if ((metrics[m].flags & need) != need || bp == -1 ||
		    !have[m][bp] || !have[m][num] || best <= 0)
			snprintf(cell, sizeof cell, "-");
		else if (den == -1)
			snprintf(cell, sizeof cell, "%.2fx %s",
			    med[m][num] / best, b->peers[bp].name);
		else
			snprintf(cell, sizeof cell, "%.2fx",
			    med[m][num] / best);
		printf(" %14s", cell);
	}
	printf("\n");
}

/* Write the screenful the 5b jobs print: 40 lines of 256-colour words. */
static void
write_screenful(struct bench *b)
{
	char	 path[PATH_MAX];
	FILE	*f;
	int	 row, w;

	snprintf(path, sizeof path, "%s/screenful", b->root);
	if ((f = fopen(path, "w")) == NULL)
		die("%s: %s", path, strerror(errno));
	for (row = 0; row < JDB_ROWS; row++) {
		for (w = 0; w < 11; w++)
			fprintf(f, "\033[38;5;%d;48;5;%dm%s%03d-%04d ",
			    (row * 11 + w) % 256, (row * 7 + w * 3) % 256,
			    w % 2 ? "\033[1m" : "\033[22m", row, w * 37 + row);
		fprintf(f, "\033[0m\r\n");
	}
	if (fclose(f) == EOF)
		die("%s: %s", path, strerror(errno));
}

/* Free the benchmark's state: the peers' strings, the failures' reasons. */
static void
bench_free(struct bench *b)
{
	int	m, p;

	for (p = 0; p < PEER_COUNT; p++) {
		free(b->peers[p].name);
		free(b->peers[p].comm);
		free(b->peers[p].path);
		free(b->peers[p].missing);
		for (m = 0; m < M_COUNT; m++)
			free(b->why[m][p]);
	}
	free(b);
}

/* Parse options and peers, run every workload, print the tables. */
int
main(int argc, char **argv)
{
	struct bench		*b;
	struct sigaction	 sa;
	const char		*mode = "quick", *tsv = "/dev/null";
	char			*s, *tok, *eq, *colon, real[PATH_MAX];
	int			 ch, runs = 0, run, wl, p, m, i, t, wl_any = 0;
	int64_t			 t0;
	size_t			 len;

	if ((b = calloc(1, sizeof *b)) == NULL)
		die("out of memory");
	while ((ch = getopt(argc, argv, "m:n:w:o:H:")) != -1) {
		switch (ch) {
		case 'm':
			mode = optarg;
			break;
		case 'n':
			runs = atoi(optarg);
			break;
		case 'w':
			s = strdup(optarg);
			for (tok = strtok(s, ","); tok != NULL;
			    tok = strtok(NULL, ",")) {
				for (wl = 0; wl < WL_COUNT; wl++) {
					if (strcmp(tok, wl_names[wl]) == 0)
						break;
				}
				if (wl == WL_COUNT)
					usage();
				b->wl_on[wl] = 1;
				wl_any = 1;
			}
			free(s);
			break;
		case 'o':
			tsv = optarg;
			break;
		case 'H':
			b->header = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (strcmp(mode, "full") == 0) {
		b->runs = 5;
		b->nkeys = 50;
		b->idle_secs = 10;
		b->host_jobs = JDB_HOST_JOBS;
	} else if (strcmp(mode, "quick") == 0) {
		b->runs = 1;
		b->nkeys = 20;
		b->idle_secs = 5;
		b->host_jobs = JDB_HOST_QUICK;
	} else
		usage();
	b->key_gap = 40;
	if (runs > 0)
		b->runs = runs < JDB_RUNS_MAX ? runs : JDB_RUNS_MAX;
	if (!wl_any) {
		for (wl = 0; wl < WL_COUNT; wl++)
			b->wl_on[wl] = 1;
	}

	/* Peers: name, name=path or name=!reason; raw needs no path. */
	{
		static const char *const comms[PEER_COUNT] = {
			"", "jobdeck", "jobdeck", "tmux", "screen", "dvtm",
			"mprocs"
		};

		for (p = 0; p < PEER_COUNT; p++) {
			b->peers[p].name = xasprintf("%s", peer_names[p]);
			b->peers[p].comm = xasprintf("%s", comms[p]);
			b->peers[p].kind = p == PEER_JOBDECK2 ? PEER_JOBDECK :
			    p;
		}
		b->peers[PEER_RAW].missing = xasprintf("not asked for");
	}
	if (argc == 0)
		usage();
	for (i = 0; i < argc; i++) {
		eq = strchr(argv[i], '=');
		len = eq != NULL ? (size_t)(eq - argv[i]) : strlen(argv[i]);
		colon = memchr(argv[i], ':', len);
		for (p = 0; p < PEER_COUNT; p++) {
			if (strlen(peer_names[p]) ==
			    (colon != NULL ? (size_t)(colon - argv[i]) : len) &&
			    strncmp(argv[i], peer_names[p],
			    strlen(peer_names[p])) == 0)
				break;
		}
		if (p == PEER_COUNT)
			usage();
		if (colon != NULL) {
			/* NAME:LABEL=...: the label names it in the tables. */
			if (colon + 1 == argv[i] + len || len - (size_t)(colon -
			    argv[i]) > 13)
				usage();
			free(b->peers[p].name);
			b->peers[p].name = xasprintf("%.*s",
			    (int)(len - (size_t)(colon - argv[i]) - 1),
			    colon + 1);
		}
		if (p == PEER_RAW) {
			free(b->peers[p].missing);
			b->peers[p].missing = NULL;
			continue;
		}
		if (eq == NULL)
			usage();
		if (b->peers[p].path != NULL || b->peers[p].missing != NULL)
			die("%s given twice", peer_names[p]);
		if (eq[1] == '!')
			b->peers[p].missing = xasprintf("%s", eq + 2);
		else if (realpath(eq + 1, real) == NULL ||
		    access(real, X_OK) == -1)
			b->peers[p].missing = xasprintf("%s: %s", eq + 1,
			    strerror(errno));
		else {
			/* The kernel's comm: the program's name, 15 bytes. */
			b->peers[p].path = strdup(real);
			free(b->peers[p].comm);
			b->peers[p].comm = xasprintf("%.15s",
			    strrchr(real, '/') + 1);
		}
	}

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	b->clk_tck = sysconf(_SC_CLK_TCK);
	b->page_kb = sysconf(_SC_PAGESIZE) / 1024;
	for (m = 0; m < M_COUNT; m++) {
		for (p = 0; p < PEER_COUNT; p++) {
			for (i = 0; i < JDB_RUNS_MAX; i++)
				b->res[m][p][i] = NAN;
		}
	}
	if ((b->tsv = fopen(tsv, "w")) == NULL)
		die("%s: %s", tsv, strerror(errno));
	snprintf(b->root, sizeof b->root, "%s/jdbench.XXXXXX",
	    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(b->root) == NULL)
		die("mkdtemp: %s", strerror(errno));
	guard_start(b);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) == -1)
		die("prctl: %s", strerror(errno));
	write_screenful(b);

	if (b->header != NULL) {
		printf("%s\n", b->header);
		fprintf(b->tsv, "# %s\n", b->header);
	}
	fprintf(b->tsv, "# run\tworkload\tpeer\tmetric\tindex\tvalue\n");
	fflush(stdout);
	t0 = now_ns();
	for (run = 0; run < b->runs && !jdb_stopping; run++) {
		b->cur_run = run;
		for (wl = 0; wl < WL_COUNT && !jdb_stopping; wl++) {
			if (!b->wl_on[wl])
				continue;
			fprintf(stderr, "jdbench: run %d/%d %s:", run + 1,
			    b->runs, wl_names[wl]);
			if (wl == WL_IDLE || wl == WL_IDLE_MANY) {
				wl_idle(b, run, wl == WL_IDLE_MANY);
				fprintf(stderr, " done");
			}
			for (p = 0; p < PEER_COUNT && wl != WL_IDLE &&
			    wl != WL_IDLE_MANY; p++) {
				if (jdb_stopping)
					break;
				if (p == PEER_RAW ?
				    b->peers[p].missing != NULL :
				    b->peers[p].path == NULL)
					continue;
				if (p == PEER_RAW && wl == WL_SCREENFUL)
					continue;
				if (wl == WL_ATTACH &&
				    !peer_attaches(b->peers[p].kind))
					continue;
				if (wl == WL_HOSTS && p != PEER_RAW &&
				    b->peers[p].kind != PEER_JOBDECK)
					continue;
				if (!b->skip[wl][p])
					do_one(b, wl, p, run);
			}
			fprintf(stderr, " (%.0f s)\n", (now_ns() - t0) / 1e9);
		}
	}
	if (jdb_stopping)
		fprintf(stderr, "jdbench: interrupted\n");
	for (t = 0; t < TABLE_COUNT; t++)
		print_table(b, t);
	printf("\nraw numbers: %s; %.0f s in all\n", tsv,
	    (now_ns() - t0) / 1e9);
	fclose(b->tsv);
	if (b->ssh_up == 1)
		testssh_stop(&b->ssh);
	free(b->ssh_bin);

	/* Let the guard sweep and remove the root, and wait for it. */
	close(b->guard_fd);
	if (b->guard > 0)
		waitpid(b->guard, NULL, 0);
	bench_free(b);
	return jdb_stopping ? 130 : 0;
}
