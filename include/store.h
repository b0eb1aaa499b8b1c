/*
 * store: the durable record of every job run's output, and the one API
 * every reader of it goes through.
 *
 * Under the store's directory (the deck's state directory, by default
 * $XDG_STATE_HOME/jobdeck; 0700 directories, 0600 files, no symlinks
 * followed):
 *
 *   runs/RUN/meta	the run's metadata (struct store_meta) as escaped
 *			"key value" lines, replaced atomically (write to
 *			meta.tmp, fsync-free rename); on a full disk written
 *			over in place, into the spare bytes of its last
 *			line ("room"), so a run's end still reaches it
 *   runs/RUN/out.N	raw output, byte-exact, segment N: the bytes at
 *			offsets [N * seg, (N + 1) * seg) of the run's output
 *   runs/RUN/idx.N	index records (struct store_rec, little-endian on
 *			disk as in memory) of the writes that began in
 *			segment N
 *   decks/DECK.lock	held (flock) by a live deck; a run whose meta says
 *			"running" and whose deck's lock can be taken was
 *			lost with its deck
 *
 * RUN and DECK ids are YYYYMMDDTHHMMSS-XXXXXXXX (UTC time of creation,
 * its millisecond in three hex digits and 20 random bits): unique without
 * a PID, sorted by age.
 *
 * Lines are the program's lines: the bytes up to each '\n'.  Every write
 * (one read of the child, at most STORE_CHUNK_MAX bytes) adds one index
 * record: its offset, the number of the line its first byte belongs to,
 * whether a line starts there, its wall time and its stream.  So the start
 * of any line is found by a binary search of the index and a scan of at
 * most one write, and a line's time and stream are those of the write it
 * started in.  On a job with split pipes, each stream's unfinished last
 * line is held back (up to STORE_CHUNK_MAX, or until store_run_flush())
 * so lines of stdout and stderr do not mix.
 *
 * A run is made with out.0 and idx.0 first and its meta last: a run whose
 * meta can be read has its files, and one that cannot be made leaves
 * nothing.  Run files are opened only as regular files: a FIFO or a
 * device in a file's place is refused ("not a regular file"), never
 * waited on.  A reader checks what it reads: each segment's first and last
 * records and its out file's size when it opens the run, every other
 * record as a read reaches it, and lines read one after another against
 * the records they cross.  Damage cuts the run there: it is read up to
 * its damage, and store_reader_damage() says why and what was cut
 * ("runs/RUN is damaged: out.3 holds 100 bytes, its index 4096; cut after
 * line 1234 (3996 bytes after it cannot be read)").  So a crash's torn
 * end loses only its tail.  store_reader_open() fails ("runs/RUN is
 * damaged: why") only when none of its lines can be read; refresh
 * returns -1 for a damaged run.  A read that meets damage gives the lines
 * before it, and the run's count is lower from then on; no read goes out
 * of bounds and no loop over the data goes round without moving on.
 * Records are checked lazily, each against its neighbours: an index
 * forged consistently from some record on is found when a read crosses
 * that record.  A scan (store_reader_scan(), grep's) takes its lines from
 * the bytes, not the records: it meets damage to the bytes, and index
 * damage only where it starts, so a damaged index in the middle of a
 * segment is found by the readers of lines, not by a scan.
 *
 * Writing: the first write error stops a run's output for good
 * (store_run_error()), but its meta is still updated, so its end is known.
 *
 * Retention: a run keeps at most max_run_bytes of output as segments of
 * about a quarter of that; when a new segment starts the oldest beyond
 * the cap are removed, and readers see the lines that were dropped as
 * store_reader_first() > 0.  store_sweep_step() removes whole runs of
 * ended decks by age, by count and by the total cap, a bounded amount of
 * work per call, marks runs of dead decks lost, and removes what dead
 * decks left half made.
 *
 * Ownership: the caller owns struct store, struct store_run, struct
 * store_reader and everything the *_free() functions free.  A store_run
 * owns its fds; a store_reader opens and closes its own.  Nothing here
 * keeps a pointer to the caller's memory.
 */
#ifndef JOBDECK_STORE_H
#define JOBDECK_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define STORE_ID_LEN		24		/* YYYYMMDDTHHMMSS-XXXXXXXX */
#define STORE_CHUNK_MAX		(64 * 1024)	/* bytes in one index record */
#define STORE_LINE_MAX		(1024 * 1024)	/* bytes of a line read back */

enum store_stream {
	STORE_TTY,		/* a pty: one stream */
	STORE_STDOUT,
	STORE_STDERR
};

/* What a run was and how it went; every string may be NULL. */
struct store_meta {
	char		 run[STORE_ID_LEN + 1];	/* set by store_run_new() */
	char		 deck[STORE_ID_LEN + 1];/* set by store_run_new() */
	int		  job;		/* its id in its deck */
	int		  start;	/* 1 for the first run of the job, ... */
	char		 *name;
	char		 *command;	/* a shell string, or */
	char		**argv;		/* a program and its arguments */
	char		 *shell;
	char		 *cwd;
	char		**envp;		/* its whole environment */
	int		  pty;		/* ran on a pty */
	pid_t		  pid;
	int64_t		  started;	/* wall ms since the epoch */
	int64_t		  ended;	/* wall ms, 0 while it runs */
	char		 *state;	/* job_state_name()'s, or "lost" */
	int		  status;	/* the wait status, once ended */
	int		  has_status;
};

struct store_limits {
	int64_t		  max_run_bytes;	/* output kept per run */
	int64_t		  keep_age_ms;		/* runs of ended decks */
	int		  keep_runs;		/* runs kept, newest first */
	int64_t		  max_total_bytes;	/* the whole directory */
};

/* One line read back. */
struct store_line {
	int64_t		  no;		/* 0 is the run's first line */
	int64_t		  time;		/* wall ms its write arrived */
	enum store_stream stream;
	int		  partial;	/* the last line, no '\n' yet */
	int		  cut;		/* over STORE_LINE_MAX bytes */
	char		 *text;		/* NUL-terminated */
	size_t		  len;
};

/*
 * Where a reader of a run's new lines is (store_reader_since()): the next
 * line, and how many bytes the run held when its partial last line was
 * last given.  A zeroed mark is the run's start.
 */
struct store_mark {
	int64_t		  line;
	uint64_t	  partial;
};

/* How store_reader_get() gives a line. */
#define STORE_RAW	0x0	/* the bytes as written, less the '\n' */
#define STORE_TEXT	0x1	/* what a user sees: escapes gone, \r, \b */
#define STORE_COLOR	0x2	/* with STORE_TEXT: SGR sequences kept */

/*
 * store_reader_scan()'s callback: block holds whole raw lines (each with
 * its '\n', but a partial last line of the run) starting with line
 * first; non-zero stops the scan.
 */
struct store_scan_cbs {
	int	(*block)(int64_t first, const char *block, size_t len,
		    void *arg);
};

struct store;
struct store_run;
struct store_reader;

/* The store and this deck's place in it. */
struct store	*store_open(const char *dir, const struct store_limits *,
		    char **cause);
void		 store_free(struct store *);
const char	*store_dir(const struct store *);
const char	*store_deck(const struct store *);
char		*store_default_dir(void);
int		 store_id_valid(const char *id);
void		 store_default_limits(struct store_limits *);

/* Writing one run. */
struct store_run *store_run_new(struct store *, struct store_meta *,
		    char **cause);
int		 store_run_write(struct store_run *, enum store_stream,
		    const void *buf, size_t len, int64_t wall_ms);
int		 store_run_flush(struct store_run *, int64_t wall_ms);
int		 store_run_held(const struct store_run *);
int		 store_run_update(struct store_run *, const struct store_meta *);
void		 store_run_close(struct store_run *);
const char	*store_run_id(const struct store_run *);
const char	*store_run_error(const struct store_run *);
uint64_t	 store_run_bytes(const struct store_run *);

/* Reading any run, live or not, of this deck or another. */
struct store_reader *store_reader_open(const char *dir, const char *run,
		    char **cause);
void		 store_reader_close(struct store_reader *);
int		 store_reader_refresh(struct store_reader *);
int64_t		 store_reader_first(const struct store_reader *);
int64_t		 store_reader_count(const struct store_reader *);
int		 store_reader_partial(const struct store_reader *);
uint64_t	 store_reader_bytes(const struct store_reader *);
const char	*store_reader_damage(struct store_reader *);
int		 store_reader_get(struct store_reader *, int64_t from,
		    int64_t to, int flags, struct store_line **lines,
		    int *count);
int		 store_reader_since(struct store_reader *, struct store_mark *,
		    int flags, int max, int partial, struct store_line **lines,
		    int *count, int64_t *skipped);
int64_t		 store_reader_find_time(struct store_reader *, int64_t wall_ms);
int		 store_reader_times(const struct store_reader *,
		    int64_t *first, int64_t *last);
int64_t		 store_reader_scan(struct store_reader *, int64_t from,
		    size_t budget, const struct store_scan_cbs *, void *arg);
int		 store_reader_tail(struct store_reader *, int max, int flags,
		    struct store_line **lines, int *count, int *more);
char		**store_lines_take(struct store_line *, int count);
void		 store_lines_free(struct store_line *, int count);

/* Metadata of runs on disk. */
int		 store_meta_read(const char *dir, const char *run,
		    struct store_meta *, char **cause);
void		 store_meta_clear(struct store_meta *);
void		 store_meta_copy(struct store_meta *, const struct store_meta *);
int		 store_list(const char *dir, char ***runs, int *count,
		    char **cause);
void		 store_list_free(char **runs, int count);
int		 store_deck_alive(const char *dir, const char *deck);
char		*store_run_path(const char *dir, const char *run);

/* Retention and lost runs, a step at a time. */
struct store_sweep;
struct store_sweep *store_sweep_new(struct store *, int64_t now_wall_ms);
int		 store_sweep_step(struct store_sweep *, int budget);
int		 store_sweep_lost(struct store_sweep *, char ***runs);
void		 store_sweep_free(struct store_sweep *);

#endif
