/*
 * vtbench.c: micro-benchmark of the terminal emulator (src/vt.c).
 *
 * Four inputs are generated in memory before anything is timed, each the
 * size of seq's output, 16.9 MB (4 MiB with --quick, seq cut at a line):
 *  seq   the output of `seq 1 2000000` with CRLF line ends, as a pty
 *        delivers it: short lines, every one a full-screen scroll;
 *  log   100-character log lines coloured with SGR 16-colour, 256-colour
 *        and RGB foregrounds and a few backgrounds, CRLF;
 *  top   full-screen redraws as top(1) sends them: frames of CUP + EL +
 *        text (a reverse header, bold running tasks) ending with ED;
 *  less  a pager: alternate screen, DECSTBM 2..rows-1, and one line per
 *        scroll with IND at the bottom margin or RI at the top, in bursts
 *        forward and back, the status line redrawn after each.
 * seq and log are the same bytes at every size; top and less are drawn for
 * the size they run at.  Each input is fed to vt_feed() in 64 KiB pieces at
 * 80x24, 120x40 and 200x50 with a 10,000-line scrollback (jobdeck's
 * default).  Only the feeding is timed, not vt_new() or vt_free(); the
 * median of 3 runs is reported (1 with --quick).
 *
 * The reference is libvterm's own VTermScreen, set up as section 1 of the
 * libvterm/ncurses guide describes (UTF-8, alternate screen, damage merged
 * per scroll and flushed after each piece), with a damage callback that
 * marks rows and an sb_pushline that copies each line into a 10,000-line
 * ring.  It gets the same pieces.  The last column is its time over ours:
 * how many times faster vt.c is.  MB are 10^6 bytes.
 *
 * usage: vtbench [--quick] [--only ours|ref] [--input NAME] [--size CxR]
 * --only skips the other emulator (the reference takes minutes on seq);
 * --input and --size pick one case, e.g. for a profiler.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vterm.h>

#include "vt.h"
#include "xmalloc.h"

#define PIECE		65536		/* bytes per vt_feed() call */
#define SB_LINES	10000		/* jobdeck's default scrollback */
#define SEQ_LAST	2000000		/* seq 1 SEQ_LAST */
#define TARGET_FULL	16888896u	/* bytes of seq 1 2000000 with CRLF */
#define TARGET_QUICK	(4u << 20)	/* every input with --quick */
#define RUNS_FULL	3
#define LOG_WIDTH	100		/* visible characters per log line */
#define NELEM(a)	(sizeof (a) / sizeof (a)[0])

/* A growing byte buffer. */
struct buf {
	char	*p;
	size_t	 len;
	size_t	 cap;
};

/* A deterministic generator: xorshift32, so every run sees the same bytes. */
struct rng {
	uint32_t	s;
};

/* A terminal size. */
struct bsize {
	int	rows;
	int	cols;
};

/* One input: its name, what it is and how to generate it. */
struct input {
	const char	*name;
	const char	*what;
	int		 per_size;	/* depends on rows and cols */
	void		(*gen)(struct buf *, int, int, size_t);
};

/* One line VTermScreen pushed, copied whole. */
struct ref_line {
	int		 n;
	VTermScreenCell	*c;
};

/* The reference: VTermScreen with dirty rows and a scrollback ring. */
struct ref {
	VTerm		*vt;
	VTermScreen	*scr;
	int		 rows;
	uint8_t		*dirty;
	struct ref_line	*sb;
	int		 sb_first;
	int		 sb_count;
	int		 altscreen;
};

/* What to run, from the command line. */
struct opts {
	int		 quick;
	int		 ours;
	int		 ref;
	const char	*input;		/* NULL: all */
	int		 rows;		/* 0: all sizes */
	int		 cols;
};

static void	buf_add(struct buf *, const char *, size_t);
static void	buf_str(struct buf *, const char *);
static void	buf_printf(struct buf *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
static uint32_t	rng_next(struct rng *);
static uint32_t	rng_below(struct rng *, uint32_t);
static size_t	words_fill(struct rng *, char *, size_t);
static void	gen_seq(struct buf *, int, int, size_t);
static void	gen_log(struct buf *, int, int, size_t);
static void	gen_top(struct buf *, int, int, size_t);
static void	gen_less(struct buf *, int, int, size_t);
static int	ref_damage(VTermRect, void *);
static int	ref_settermprop(VTermProp, VTermValue *, void *);
static int	ref_pushline(int, const VTermScreenCell *, void *);
static void	ref_output(const char *, size_t, void *);
static struct ref *ref_new(int, int);
static void	ref_free(struct ref *);
static double	now(void);
static double	run_ours(const struct buf *, int, int);
static double	run_ref(const struct buf *, int, int);
static int	cmp_double(const void *, const void *);
static double	median(double *, int);
static double	measure(double (*)(const struct buf *, int, int),
		    const struct buf *, int, int, int);
static void	usage(FILE *);
static int	parse_args(int, char **, struct opts *);
static void	print_row(const struct input *, int, int, size_t, double,
		    double);

static const struct input inputs[] = {
	{ "seq", "seq 1 2000000, CRLF", 0, gen_seq },
	{ "log", "100-col lines, SGR 16/256/RGB, CRLF", 0, gen_log },
	{ "top", "frames of CUP+EL+text, ED", 1, gen_top },
	{ "less", "altscreen, DECSTBM 2..rows-1, IND/RI", 1, gen_less }
};

static const struct bsize sizes[] = {
	{ 24, 80 },
	{ 40, 120 },
	{ 50, 200 }
};

static const char *const words[] = {
	"request", "served", "in", "ms", "cache", "miss", "for", "key",
	"user", "session", "opened", "closed", "worker", "queue", "depth",
	"retry", "after", "timeout", "upstream", "returned", "status", "ok",
	"bytes", "written", "to", "disk", "flush", "took", "connection",
	"from", "accepted", "the", "a", "of", "job", "finished", "with",
	"exit", "code", "0", "1", "warning:", "deprecated", "option", "GET",
	"POST", "/api/v2/items", "/healthz", "lock", "held", "by", "pid"
};

/* ------------------------------------------------------------------ */
/* Buffers and the generator. */

/* Append n bytes to b. */
static void
buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = b->cap == 0 ? 1u << 20 : b->cap;
		while (b->len + n > b->cap)
			b->cap *= 2;
		b->p = xreallocarray(b->p, b->cap, 1);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

/* Append a NUL-terminated string to b. */
static void
buf_str(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

/* Append formatted text to b. */
static void
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list	ap;
	char	tmp[512];
	int	n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof tmp)
		n = sizeof tmp - 1;
	buf_add(b, tmp, (size_t)n);
}

/* Return the next pseudo-random word. */
static uint32_t
rng_next(struct rng *r)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 17;
	r->s ^= r->s << 5;
	return r->s;
}

/* Return a pseudo-random number in [0, n). */
static uint32_t
rng_below(struct rng *r, uint32_t n)
{
	return rng_next(r) % n;
}

/* Fill s with exactly n characters of words and spaces; return n. */
static size_t
words_fill(struct rng *r, char *s, size_t n)
{
	const char	*w;
	size_t		 at = 0, k;

	while (at < n) {
		w = words[rng_below(r, NELEM(words))];
		for (k = 0; w[k] != '\0' && at < n; k++)
			s[at++] = w[k];
		if (at < n)
			s[at++] = ' ';
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* The inputs. */

/* seq 1 SEQ_LAST with CRLF, stopping early once target bytes are there. */
static void
gen_seq(struct buf *b, int rows, int cols, size_t target)
{
	char		tmp[16];
	uint32_t	i;
	int		n;

	(void)rows;
	(void)cols;
	for (i = 1; i <= SEQ_LAST && b->len < target; i++) {
		n = snprintf(tmp, sizeof tmp, "%u\r\n", i);
		buf_add(b, tmp, (size_t)n);
	}
}

/*
 * Coloured log lines of LOG_WIDTH visible characters: a timestamp in a
 * 16-colour grey, the level in a 256-colour, the component in RGB, then a
 * message in which about a third of the words carry a 16-colour, 256-colour
 * or RGB foreground (now and then a background too), CRLF.
 */
static void
gen_log(struct buf *b, int rows, int cols, size_t target)
{
	static const char *const levels[] = {
		"DEBUG", "INFO ", "INFO ", "INFO ", "WARN ", "ERROR"
	};
	static const int level_col[] = { 244, 39, 39, 39, 214, 196 };
	struct rng	 r = { 0x9e3779b9u };
	char		 msg[LOG_WIDTH];
	size_t		 mlen, at, end;
	uint32_t	 line = 0, lv, k;

	(void)rows;
	(void)cols;
	while (b->len < target) {
		line++;
		/* 23 + 1 characters. */
		buf_printf(b,
		    "\033[90m2024-05-%02u %02u:%02u:%02u.%03u\033[0m ",
		    1 + line / 86400 % 28, line / 3600 % 24, line / 60 % 60,
		    line % 60, rng_below(&r, 1000));
		/* 5 + 1. */
		lv = rng_below(&r, NELEM(levels));
		buf_printf(b, "\033[38;5;%dm%s%s\033[0m ", level_col[lv],
		    lv == 5 ? "\033[1m" : "", levels[lv]);
		/* 11 + 1. */
		buf_printf(b, "\033[38;2;%u;%u;%um[worker-%02u]\033[39m ",
		    80 + rng_below(&r, 176), 80 + rng_below(&r, 176),
		    80 + rng_below(&r, 176), rng_below(&r, 100));
		/* The message fills the rest, coloured word by word. */
		mlen = words_fill(&r, msg, LOG_WIDTH - 24 - 6 - 12);
		for (at = 0; at < mlen; at = end) {
			for (end = at; end < mlen && msg[end] != ' '; end++)
				;
			if (end < mlen)
				end++;		/* with its word */
			k = rng_below(&r, 12);
			if (k == 0)
				buf_printf(b, "\033[%um",
				    31 + rng_below(&r, 7));
			else if (k == 1)
				buf_printf(b, "\033[%um",
				    91 + rng_below(&r, 7));
			else if (k == 2)
				buf_printf(b, "\033[38;5;%um",
				    16 + rng_below(&r, 216));
			else if (k == 3)
				buf_printf(b, "\033[38;2;%u;%u;%um",
				    rng_below(&r, 256), rng_below(&r, 256),
				    rng_below(&r, 256));
			else if (k == 4)
				buf_printf(b, "\033[48;5;%u;97m",
				    232 + rng_below(&r, 24));
			buf_add(b, msg + at, end - at);
			if (k <= 4)
				buf_str(b, "\033[0m");
		}
		buf_str(b, "\r\n");
	}
}

/*
 * top-like frames: CUP + EL + text for the summary lines, a reverse-video
 * column header and as many task lines as fit (a varying few fewer), bold
 * for running tasks, then ED below the last line.  The bottom row is never
 * written, so nothing scrolls.
 */
static void
gen_top(struct buf *b, int rows, int cols, size_t target)
{
	static const char *const users[] = {
		"root", "www-data", "postgres", "alice", "bob", "_apt"
	};
	static const char *const cmds[] = {
		"postgres: writer", "nginx: worker process", "sshd", "bash",
		"kworker/0:1-events", "systemd-journald", "python3 serve.py",
		"make -j8", "cc1 -quiet vt.c", "jobdeck", "top", "cron"
	};
	struct rng	 r = { 0x2545f491u };
	char		 line[1024];
	uint32_t	 frame = 0;
	int		 row, last, n, running;

	buf_str(b, "\033[H\033[2J");
	while (b->len < target) {
		frame++;
		n = snprintf(line, sizeof line, "top - %02u:%02u:%02u up 3 "
		    "days,  4:%02u,  2 users,  load average: %u.%02u, %u.%02u, "
		    "%u.%02u", frame / 3600 % 24, frame / 60 % 60, frame % 60,
		    frame % 60, rng_below(&r, 4), rng_below(&r, 100),
		    rng_below(&r, 4), rng_below(&r, 100), rng_below(&r, 4),
		    rng_below(&r, 100));
		buf_printf(b, "\033[1;1H\033[K%.*s", n < cols ? n : cols, line);
		n = snprintf(line, sizeof line, "Tasks: %u total,   %u "
		    "running, %u sleeping,   0 stopped,   0 zombie",
		    200 + rng_below(&r, 50), 1 + rng_below(&r, 5),
		    190 + rng_below(&r, 50));
		buf_printf(b, "\033[2;1H\033[K%.*s", n < cols ? n : cols, line);
		n = snprintf(line, sizeof line, "%%Cpu(s): %2u.%u us,  %u.%u "
		    "sy,  0.0 ni, %2u.%u id,  0.%u wa,  0.0 hi,  0.1 si",
		    rng_below(&r, 40), rng_below(&r, 10), rng_below(&r, 10),
		    rng_below(&r, 10), 50 + rng_below(&r, 50),
		    rng_below(&r, 10), rng_below(&r, 10));
		buf_printf(b, "\033[3;1H\033[K%.*s", n < cols ? n : cols, line);
		n = snprintf(line, sizeof line, "MiB Mem :  24150.0 total,  "
		    "%5u.%u free,   %4u.%u used,   1575.%u buff/cache",
		    22000 + rng_below(&r, 500), rng_below(&r, 10),
		    300 + rng_below(&r, 100), rng_below(&r, 10),
		    rng_below(&r, 10));
		buf_printf(b, "\033[4;1H\033[K%.*s", n < cols ? n : cols, line);
		buf_str(b, "\033[5;1H\033[K\033[6;1H\033[K");
		snprintf(line, sizeof line, "%-*.*s", cols, cols,
		    "    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  "
		    "%MEM     TIME+ COMMAND");
		buf_printf(b, "\033[7;1H\033[K\033[7m%s\033[m", line);
		last = rows - 1 - (int)rng_below(&r, 4);
		for (row = 8; row <= last; row++) {
			running = rng_below(&r, 6) == 0;
			n = snprintf(line, sizeof line, "%7u %-9s  20   0 "
			    "%7u %6u %6u %c %5.1f %5.1f %6u:%02u.%02u %s",
			    1 + rng_below(&r, 99999), users[rng_below(&r,
			    NELEM(users))], 100000 + rng_below(&r,
			    900000), 1000 + rng_below(&r, 90000), 500 +
			    rng_below(&r, 9000), running ? 'R' : 'S',
			    rng_below(&r, 1000) / 10.0,
			    rng_below(&r, 300) / 10.0, rng_below(&r, 600),
			    rng_below(&r, 60), rng_below(&r, 100),
			    cmds[rng_below(&r, NELEM(cmds))]);
			buf_printf(b, "\033[%d;1H\033[K%s%.*s%s", row,
			    running ? "\033[1m" : "", n < cols ? n : cols, line,
			    running ? "\033[m" : "");
		}
		buf_printf(b, "\033[%d;1H\033[J", last + 1);
	}
}

/*
 * A less-like pager on the alternate screen: a header on row 1, the status
 * line on the bottom row, and DECSTBM 2..rows-1 between them.  Scrolling
 * forward puts the cursor on the bottom margin and sends IND; back, on the
 * top margin and RI.  Each scroll draws the new line and the status line.
 * Bursts of up to 60 lines forward alternate with up to 20 back.
 */
static void
gen_less(struct buf *b, int rows, int cols, size_t target)
{
	struct rng	 r = { 0x6c8e9cf5u };
	char		 text[1024];
	size_t		 n;
	int		 top = 2, bot = rows - 1, row, burst, fwd = 1;
	int		 first = 1, i;

	buf_printf(b, "\033[?1049h\033[H\033[2J\033[%d;%dr", top, bot);
	buf_printf(b, "\033[1;1H\033[7m%-*.*s\033[m", cols, cols,
	    " build.log (press q to quit)");
	for (row = top; row <= bot; row++) {
		n = words_fill(&r, text, rng_below(&r, (uint32_t)cols));
		buf_printf(b, "\033[%d;1H%.*s\033[K", row, (int)n, text);
	}
	while (b->len < target) {
		burst = 1 + (int)rng_below(&r, fwd ? 60 : 20);
		for (i = 0; i < burst; i++) {
			if (fwd) {
				first++;
				buf_printf(b, "\033[%d;1H\033D", bot);
			} else if (first > 1) {
				first--;
				buf_printf(b, "\033[%d;1H\033M", top);
			} else
				break;
			n = words_fill(&r, text, rng_below(&r,
			    (uint32_t)cols));
			buf_printf(b, "%.*s\033[K", (int)n, text);
			buf_printf(b, "\033[%d;1H\033[7m lines %d-%d \033[m"
			    "\033[K", rows, first, first + bot - top);
		}
		fwd = !fwd;
	}
	buf_str(b, "\033[r\033[?1049l");
}

/* ------------------------------------------------------------------ */
/* The reference: VTermScreen. */

/* Mark the damaged rows, as jobdeck's drawing code would. */
static int
ref_damage(VTermRect rect, void *user)
{
	struct ref	*r = user;
	int		 from = rect.start_row, to = rect.end_row;

	if (from < 0)
		from = 0;
	if (to > r->rows)
		to = r->rows;
	if (from < to)
		memset(r->dirty + from, 1, (size_t)(to - from));
	return 1;
}

/* Record the alternate screen; always keep the value (guide section 1). */
static int
ref_settermprop(VTermProp prop, VTermValue *val, void *user)
{
	struct ref	*r = user;

	if (prop == VTERM_PROP_ALTSCREEN)
		r->altscreen = val->boolean;
	return 1;
}

/* Copy a pushed line into the ring, reusing the evicted slot's memory. */
static int
ref_pushline(int cols, const VTermScreenCell *cells, void *user)
{
	struct ref	*r = user;
	struct ref_line	*l;
	int		 slot;

	if (r->sb_count < SB_LINES) {
		slot = (r->sb_first + r->sb_count) % SB_LINES;
		r->sb_count++;
	} else {
		slot = r->sb_first;
		r->sb_first = (r->sb_first + 1) % SB_LINES;
	}
	l = &r->sb[slot];
	if (l->n != cols) {
		l->c = xreallocarray(l->c, (size_t)cols, sizeof *l->c);
		l->n = cols;
	}
	memcpy(l->c, cells, (size_t)cols * sizeof *cells);
	return 1;
}

/* Discard the replies: the inputs ask nothing. */
static void
ref_output(const char *s, size_t len, void *user)
{
	(void)s;
	(void)len;
	(void)user;
}

static const VTermScreenCallbacks ref_cbs = {
	.damage = ref_damage,
	.settermprop = ref_settermprop,
	.sb_pushline = ref_pushline
};

/* Create the reference in the order of the guide's section 1. */
static struct ref *
ref_new(int rows, int cols)
{
	struct ref	*r;

	r = xcalloc(1, sizeof *r);
	r->rows = rows;
	r->dirty = xcalloc((size_t)rows, 1);
	r->sb = xcalloc(SB_LINES, sizeof *r->sb);
	r->vt = vterm_new(rows, cols);
	vterm_set_utf8(r->vt, 1);
	r->scr = vterm_obtain_screen(r->vt);
	vterm_screen_set_callbacks(r->scr, &ref_cbs, r);
	vterm_screen_enable_altscreen(r->scr, 1);
	vterm_screen_set_damage_merge(r->scr, VTERM_DAMAGE_SCROLL);
	vterm_screen_reset(r->scr, 1);
	vterm_output_set_callback(r->vt, ref_output, r);
	return r;
}

/* Free the reference and its ring. */
static void
ref_free(struct ref *r)
{
	int	i;

	vterm_free(r->vt);
	for (i = 0; i < SB_LINES; i++)
		free(r->sb[i].c);
	free(r->sb);
	free(r->dirty);
	free(r);
}

/* ------------------------------------------------------------------ */
/* Timing. */

/* Return a monotonic time in seconds. */
static double
now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Feed in to a new vt of rows x cols; return the seconds vt_feed() took. */
static double
run_ours(const struct buf *in, int rows, int cols)
{
	struct vt	*vt;
	double		 t;
	size_t		 off, n;

	vt = vt_new(rows, cols, SB_LINES, NULL, NULL);
	t = now();
	for (off = 0; off < in->len; off += n) {
		n = in->len - off < PIECE ? in->len - off : PIECE;
		vt_feed(vt, in->p + off, n);
	}
	t = now() - t;
	vt_free(vt);
	return t;
}

/* Feed in to a new reference; return the seconds writing and flushing took. */
static double
run_ref(const struct buf *in, int rows, int cols)
{
	struct ref	*r;
	double		 t;
	size_t		 off, n;

	r = ref_new(rows, cols);
	t = now();
	for (off = 0; off < in->len; off += n) {
		n = in->len - off < PIECE ? in->len - off : PIECE;
		vterm_input_write(r->vt, in->p + off, n);
		vterm_screen_flush_damage(r->scr);
	}
	t = now() - t;
	ref_free(r);
	return t;
}

/* Compare two doubles for qsort(). */
static int
cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sort the n times and return the median. */
static double
median(double *t, int n)
{
	qsort(t, (size_t)n, sizeof *t, cmp_double);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* Run one emulator runs times over in and return the median seconds. */
static double
measure(double (*run)(const struct buf *, int, int), const struct buf *in,
    int rows, int cols, int runs)
{
	double	t[RUNS_FULL];
	int	i;

	for (i = 0; i < runs; i++)
		t[i] = run(in, rows, cols);
	return median(t, runs);
}

/* ------------------------------------------------------------------ */
/* Command line and table. */

/* Print the usage line to f. */
static void
usage(FILE *f)
{
	fprintf(f, "usage: vtbench [--quick] [--only ours|ref] "
	    "[--input seq|log|top|less] [--size COLSxROWS]\n");
}

/* Parse the arguments into o; return -1 on a bad one. */
static int
parse_args(int argc, char **argv, struct opts *o)
{
	size_t	i;
	int	a;
	char	x;

	memset(o, 0, sizeof *o);
	o->ours = o->ref = 1;
	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--quick") == 0)
			o->quick = 1;
		else if (strcmp(argv[a], "--only") == 0 && a + 1 < argc) {
			a++;
			if (strcmp(argv[a], "ours") == 0)
				o->ref = 0;
			else if (strcmp(argv[a], "ref") == 0)
				o->ours = 0;
			else
				return -1;
		} else if (strcmp(argv[a], "--input") == 0 && a + 1 < argc) {
			o->input = argv[++a];
			for (i = 0; i < NELEM(inputs); i++)
				if (strcmp(o->input, inputs[i].name) == 0)
					break;
			if (i == NELEM(inputs))
				return -1;
		} else if (strcmp(argv[a], "--size") == 0 && a + 1 < argc) {
			if (sscanf(argv[++a], "%dx%d%c", &o->cols, &o->rows,
			    &x) != 2 || o->cols < VT_MIN_COLS ||
			    o->rows < VT_MIN_ROWS || o->cols > VT_MAX_DIM ||
			    o->rows > VT_MAX_DIM)
				return -1;
		} else
			return -1;
	}
	return 0;
}

/* Print one row of the table: "-" where an emulator did not run. */
static void
print_row(const struct input *in, int rows, int cols, size_t len,
    double ours, double ref)
{
	char	size[16], ocol[32], rcol[32], ratio[16];
	double	mb = (double)len / 1e6;

	snprintf(size, sizeof size, "%dx%d", cols, rows);
	if (ours > 0)
		snprintf(ocol, sizeof ocol, "%8.3f %8.1f", ours, mb / ours);
	else
		snprintf(ocol, sizeof ocol, "%8s %8s", "-", "-");
	if (ref > 0)
		snprintf(rcol, sizeof rcol, "%8.3f %8.1f", ref, mb / ref);
	else
		snprintf(rcol, sizeof rcol, "%8s %8s", "-", "-");
	if (ours > 0 && ref > 0)
		snprintf(ratio, sizeof ratio, "%7.1fx", ref / ours);
	else
		snprintf(ratio, sizeof ratio, "%8s", "-");
	printf("%-5s %-8s %6.2f  %s  %s  %s\n", in->name, size, mb, ocol,
	    rcol, ratio);
	fflush(stdout);
}

/* Generate each input, run it at each size and print the table. */
int
main(int argc, char **argv)
{
	const struct input	*in;
	const struct bsize	*run = sizes;
	struct bsize		 one;
	struct opts		 o;
	struct buf		 b = { NULL, 0, 0 };
	size_t			 target, i, s, nsizes = NELEM(sizes);
	double			 ours, ref;
	int			 runs;

	if (parse_args(argc, argv, &o) < 0) {
		usage(stderr);
		return 2;
	}
	target = o.quick ? TARGET_QUICK : TARGET_FULL;
	runs = o.quick ? 1 : RUNS_FULL;
	if (o.rows != 0) {
		one.rows = o.rows;
		one.cols = o.cols;
		run = &one;
		nsizes = 1;
	}

	printf("vtbench: vt_feed() in %d KiB pieces, scrollback %d lines, "
	    "%s of %d run%s\n", PIECE / 1024, SB_LINES,
	    runs == 1 ? "time" : "median", runs, runs == 1 ? "" : "s");
	printf("ours = src/vt.c (VTermState + own grid); ref = libvterm "
	    "%d.%d VTermScreen;\nspeedup = ref s / ours s; MB = 10^6 "
	    "bytes\n\n", VTERM_VERSION_MAJOR, VTERM_VERSION_MINOR);
	for (i = 0; i < NELEM(inputs); i++) {
		in = &inputs[i];
		if (o.input != NULL && strcmp(o.input, in->name) != 0)
			continue;
		printf("%-5s %s\n", in->name, in->what);
	}
	if (o.quick)
		printf("--quick: every input cut at %u MiB\n",
		    TARGET_QUICK >> 20);
	printf("\n%-5s %-8s %6s  %8s %8s  %8s %8s  %8s\n", "input", "size",
	    "MB", "ours s", "MB/s", "ref s", "MB/s", "speedup");

	for (i = 0; i < NELEM(inputs); i++) {
		in = &inputs[i];
		if (o.input != NULL && strcmp(o.input, in->name) != 0)
			continue;
		for (s = 0; s < nsizes; s++) {
			if (s == 0 || in->per_size) {
				b.len = 0;
				in->gen(&b, run[s].rows, run[s].cols, target);
			}
			ours = o.ours ? measure(run_ours, &b, run[s].rows,
			    run[s].cols, runs) : 0;
			ref = o.ref ? measure(run_ref, &b, run[s].rows,
			    run[s].cols, runs) : 0;
			print_row(in, run[s].rows, run[s].cols, b.len, ours,
			    ref);
		}
	}
	free(b.p);
	return 0;
}
