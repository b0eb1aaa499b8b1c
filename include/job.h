/*
 * job: one process jobdeck runs.  A job holds its spec, its state, pid,
 * start and end times and exit status, the pty (or pipe) fds of its child,
 * the terminal emulator its output is fed to (created lazily on the first
 * byte, so a silent job costs no emulator) and the run of it the output
 * store is writing (each start is a new run).  It remembers the ids of
 * its runs (job_run_nth(), the newest JOB_RUNS_MAX), so a view can read
 * the earlier ones, and a run after the first begins on the screen the
 * last one left with a mark (job_format_run_mark()) on a fresh line.
 * job.c knows nothing of the loop but its clocks: jobtable watches the
 * fds and calls job_read(), job_flush_input() and job_set_exited().
 * Each run is a supervised process (proc.h) of the reaper the jobtable
 * gives it (job_set_reaper()), told of through the jobtable's callbacks;
 * job_proc() is the jobtable's way to stop it.
 *
 * Ownership: jobtable owns every struct job.  A job owns its spec copy, its
 * fds (closed by job_close_output() or job_free()), its vt, its
 * store_run and its last run's struct proc (freed, unsignalled, by the
 * next start or job_free()); the store itself is the deck's and outlives
 * every job.
 * Pointers returned by accessors belong to the job; the line arrays of
 * job_text_lines(), job_text_since() and job_text_incremental() belong to
 * the caller (free them with job_text_free()).  Where a job's output is
 * read from is decided in one place, job_reader_open(): a reader of its
 * last run in the store while it is logged and the run can be read, else
 * of the emulator's text lines (a full-screen program's too, when asked);
 * every face that reads a job's output goes through it (the caller owns
 * the reader: job_reader_close()).  job_start_time() and
 * job_end_time() are the wall clock (ms since the epoch) of the last start
 * and end, for display; every other time is on the monotonic clock.
 */
#ifndef JOBDECK_JOB_H
#define JOBDECK_JOB_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "store.h"
#include "ttywait.h"

struct proc;
struct hosts;
struct host_run;
struct proc_cbs;
struct proc_reaper;
struct store;
struct job;
struct job_reader;
struct vt;

/* When a job is started again by itself after it ends. */
enum job_restart {
	JOB_RESTART_NO,
	JOB_RESTART_ON_FAILURE,		/* failed (not canceled, not timed out) */
	JOB_RESTART_ALWAYS		/* any end but the user's kill */
};

enum job_state {
	JOB_QUEUED,
	JOB_WAITING,		/* held before a start: dependencies, start */
				/*   delay (see job_wait_reason()) */
	JOB_RUNNING,
	JOB_STOPPED,		/* running, but its leader is stopped (SIGSTOP) */
	JOB_COMPLETED,		/* exited 0 */
	JOB_FAILED,		/* non-zero exit, or a signal nobody asked for */
	JOB_CANCELED,		/* stopped by the user */
	JOB_TIMED_OUT,
	JOB_BLOCKED		/* never ran: a dependency failed (the */
				/*   reason: job_start_error()); no exit */
};

/* What to run.  job_new() copies every string; envp may be NULL. */
struct job_spec {
	const char	 *name;		/* optional, unique among live jobs */
	const char	 *command;	/* shell string, run as SHELL -c COMMAND */
	char *const	 *argv;		/* or: a program and its argv, no shell */
	const char	 *shell;	/* absolute path of the shell */
	const char	 *cwd;		/* on a host: there (~ its home) */
	char *const	 *envp;		/* full environment */
	const char	 *host;		/* NULL: here; a [hosts] name or an */
					/*   ssh destination (host.h) */
	struct store	 *store;	/* NULL: not stored (jobtable sets) */
	const char	 *store_error;	/* why there is no store, or NULL */
	int		  scrollback;	/* lines, 0: none (jobtable sets) */
	int		  no_pty;	/* run on pipes (or'ed with the deck's) */
	const char	 *input;	/* written to stdin once started, or NULL */
	int		  input_eof;	/* on pipes: stdin closed once input is */
					/*   written (/dev/null without input) */
	int64_t		  timeout_ms;	/* 0: none; then killed, "timed out" */
	enum job_restart  restart;
	int64_t		  restart_delay_ms;
	int		  max_restarts;	/* -1: no limit */
	int64_t		  restart_delay_max_ms;	/* backoff cap: the delay */
					/* doubles each restart in a row up to
					   it; a run longer than it resets the
					   count (<= restart_delay_ms: none) */
	const char	 *group;	/* NULL: none; [groups.NAME] limits */
	int		  priority;	/* queue order: higher first, then FIFO */
	int		  stop_signal;	/* what a stop sends; 0: SIGTERM */
	const char	 *stop_command;	/* run (shell string, in the job's cwd
					   and env) instead of a signal */
	int64_t		  stop_timeout_ms;	/* stop to SIGKILL; 0 or -1: */
						/*   the deck's grace */
	const char	 *agent;	/* the agent (an MCP client's name) */
					/*   that started it, or NULL; */
					/*   see job_check_agent() */
	int		  no_term;	/* envp as it is: no TERM added */
	int		  no_screen;	/* no emulator: its output goes to */
					/*   the store and subscribers only */
	int		  own_leftovers;	/* what its leader leaves is */
					/* the owner's to stop: no SIGTERM
					   to it at the leader's exit */
};

/* Room for job_format_run_mark()'s line. */
#define JOB_MARK_MAX	128

/* The longest agent name, in bytes. */
#define JOB_AGENT_MAX	64

/*
 * A page of a job's output read forward from a mark (job_text_page()):
 * the lines, oldest first, the last one partial (no newline yet) when
 * partial is set; from is the number of the first (where it would be
 * when there is none); left counts the complete lines after the new
 * mark, and more says whether output is already there after it (those
 * lines, or a partial line grown since).  error says why the output
 * cannot be read on from where the page ends (damage in the store), or is
 * NULL.
 */
struct job_page {
	char		**lines;	/* the caller's: job_text_free() */
	int		  count;
	int		  partial;
	int64_t		  from;
	int64_t		  left;
	int		  more;
	char		 *error;	/* the caller's: free() */
};

/*
 * A run's output as its two streams wrote it (job_output_split()): the
 * first max bytes of each (a pty's all in stdout), how many there were in
 * all and whether some were left out (by max, or dropped by the store's
 * cap).  Index 0 is stdout, 1 stderr.
 */
struct job_split {
	char		*data[2];	/* the caller's to free */
	size_t		 len[2];
	int		 truncated[2];	/* more was written, or may have */
					/*   been: not read that far */
};

/*
 * Where a reader of a job's output reads (job_reader_open() decides it,
 * the one place that does): the job's last run in the store, or the
 * emulator's text lines (its scrollback and screen), or nothing yet.
 */
enum job_source {
	JOB_SOURCE_NONE,	/* nothing (JOB_READER_RUN_ONLY): a run that */
				/*   cannot be read, or not started yet */
	JOB_SOURCE_STORE,	/* its last run in the store */
	JOB_SOURCE_VT		/* the emulator's text lines */
};

/* job_reader_open()'s flags. */
#define JOB_READER_SCREEN	0x1	/* on the alternate screen (a full- */
					/*   screen program): the emulator */
#define JOB_READER_RUN_ONLY	0x2	/* the run's lines or nothing: */
					/*   not the emulator's (numbered */
					/*   otherwise) while it is logged */
					/*   or to be */

/*
 * What a readiness probe said of the job's current run (job_ready()),
 * the short text of its last attempt ("GET /health → 503", set by the
 * stack: job_ready_text()) and the wall time it passed (job_ready_time(),
 * 0: not yet); a start clears all three.
 */
enum job_ready {
	JOB_READY_NONE,		/* no probe: ready once started */
	JOB_READY_STARTING,	/* probing, not ready yet */
	JOB_READY_YES
};

struct job	*job_new(int id, const struct job_spec *);
void		 job_set_spec(struct job *, const struct job_spec *);
void		 job_free(struct job *);

int		 job_start(struct job *, int rows, int cols,
		    char *const *deck_env, char **cause);
ssize_t		 job_read(struct job *, char *buf, size_t size);
ssize_t		 job_read_err(struct job *, char *buf, size_t size);
int		 job_err_fd(const struct job *);
void		 job_feed(struct job *, const char *buf, size_t len);
int		 job_store_flush(struct job *);
int		 job_store_held(const struct job *);
void		 job_close_output(struct job *);
int		 job_close_stream(struct job *, enum store_stream);
int		 job_take_in_fd(struct job *);
int		 job_write(struct job *, const char *buf, size_t len);
int		 job_flush_input(struct job *);
int		 job_input_pending(const struct job *);
int		 job_resize(struct job *, int rows, int cols);
int		 job_signal(struct job *, int sig);
void		 job_set_reaper(struct job *, struct proc_reaper *,
		    const struct proc_cbs *, void *arg);
struct proc	*job_proc(const struct job *);
void		 job_set_hosts(struct job *, struct hosts *);
const struct host_run *job_remote(const struct job *);
const char	*job_host_engine(const struct job *);
int		 job_is_remote(const struct job *);
int		 job_signal_escapees(struct job *, int sig);
int		 job_lingers(struct job *);
int		 job_tidy(struct job *);
int64_t		 job_cpu_ms(struct job *);
int64_t		 job_memory_bytes(struct job *);
void		 job_set_exited(struct job *, int status, int64_t now_ms);
void		 job_set_stopped(struct job *, int stopped);
void		 job_set_cancel(struct job *);
void		 job_set_fail(struct job *);
void		 job_set_timed_out(struct job *);
void		 job_set_queued(struct job *);
void		 job_set_start_error(struct job *, const char *why, int64_t now_ms);
void		 job_set_blocked(struct job *, const char *why, int64_t now_ms);
int		 job_is_ended(const struct job *);
const char	*job_start_error(const struct job *);
int		 job_restart_due(const struct job *);
int64_t		 job_restart_delay_ms(const struct job *);
void		 job_set_waiting(struct job *, const char *why);
const char	*job_wait_reason(const struct job *);
void		 job_set_input_wait(struct job *, enum ttywait);
enum ttywait	 job_input_wait(const struct job *);
const char	*job_waiting_for(const struct job *);
void		 job_set_ready(struct job *, enum job_ready);
enum job_ready	 job_ready(const struct job *);
void		 job_set_ready_text(struct job *, const char *);
const char	*job_ready_text(const struct job *);
int64_t		 job_ready_time(const struct job *);
const char	*job_ready_name(enum job_ready);
void		 job_set_note(struct job *, const char *note);
const char	*job_note(const struct job *);
const char	*job_agent(const struct job *);
int		 job_check_agent(const char *, char **cause);

int		 job_id(const struct job *);
const char	*job_name(const struct job *);
void		 job_set_name(struct job *, const char *);
const char	*job_command(const struct job *);
char *const	*job_argv(const struct job *);
const struct job_spec *job_spec(struct job *);
int		 job_starts(const struct job *);
void		 job_clear_starts(struct job *);
const char	*job_cwd(const struct job *);
pid_t		 job_pid(const struct job *);
enum job_state	 job_state(const struct job *);
const char	*job_state_name(enum job_state);
int		 job_is_running(const struct job *);
int		 job_is_pty(const struct job *);
int		 job_pty_errno(const struct job *);
int		 job_out_fd(const struct job *);
int		 job_focus_count(struct job *, int delta);
int		 job_in_fd(const struct job *);
int		 job_exit_status(const struct job *);
int		 job_end_status(const struct job *);
int		 job_end_code(const struct job *);
int64_t		 job_duration_ms(const struct job *, int64_t now_ms);
struct vt	*job_vt(const struct job *);
void		 job_size(const struct job *, int *rows, int *cols);
struct vt	*job_vt_get(struct job *);
const char	*job_run_id(const struct job *);
int		 job_run_count(const struct job *);
const char	*job_run_nth(const struct job *, int, int *no);
const char	*job_store_dir(const struct job *);
const char	*job_log_error(const struct job *);
const char	*job_log_warning(struct job *);
uint64_t	 job_output_bytes(const struct job *);
size_t		 job_last_line(const struct job *, char *buf, size_t size);

const char	*job_describe_end(const struct job *, char *buf, size_t size);
char		**job_text_lines(const struct job *, int *count);
char		**job_text_lines_error(const struct job *, int *count,
		    char **error);
char		**job_text_tail(const struct job *, int max, int *count,
		    int *more);
char		**job_text_tail_error(const struct job *, int max,
		    int *count, int *more, char **error);
char		**job_text_since(struct job *, struct store_mark *, int *count,
		    int *partial);
char		**job_text_incremental(struct job *, int max, int *count,
		    int *partial, int *more);
char		**job_text_incremental_error(struct job *, int max,
		    int *count, int *partial, int *more, char **error);
void		 job_text_page(struct job *, struct store_mark *,
		    size_t max_bytes, struct job_page *);
void		 job_text_end(struct job *, struct store_mark *);
void		 job_text_mark(const struct job *, struct store_mark *);
void		 job_text_free(char **lines, int count);
void		 job_output_split(struct job *, size_t max, struct job_split *);

struct job_reader *job_reader_open(const struct job *, int flags,
		    char **why);
struct job_reader *job_reader_open_run(const char *dir, const char *run,
		    char **cause);
void		 job_reader_close(struct job_reader *);
enum job_source	 job_reader_source(const struct job_reader *);
const char	*job_reader_run(const struct job_reader *, const char **dir);
int		 job_reader_refresh(struct job_reader *);
int64_t		 job_reader_first(const struct job_reader *);
int64_t		 job_reader_count(struct job_reader *);
int64_t		 job_reader_complete(struct job_reader *);
uint64_t	 job_reader_bytes(struct job_reader *);
const char	*job_reader_damage(struct job_reader *);
int		 job_reader_get(struct job_reader *, int64_t from, int64_t to,
		    int flags, struct store_line **, int *count);
int		 job_reader_since(struct job_reader *, struct store_mark *,
		    int max, int partial, struct store_line **, int *count,
		    int64_t *skipped);
char		**job_reader_tail(struct job_reader *, int max, int *count,
		    int *more);
const char	*job_exec_error(const struct job *);
int64_t		 job_start_time(const struct job *);
int64_t		 job_end_time(const struct job *);
const char	*job_format_duration(int64_t ms, char *buf, size_t size);
const char	*job_format_time(int64_t ms, char *buf, size_t size);
const char	*job_format_clock(int64_t ms, int millis, char *buf,
		    size_t size);
const char	*job_format_run_mark(int run, int64_t started, int last,
		    char *buf, size_t size);
const char	*job_format_cpu(int64_t ms, char *buf, size_t size);
const char	*job_format_bytes(int64_t bytes, char *buf, size_t size);

#endif
