/*
 * jobfield: a job's fields, one table, as tmux's formats are.  Each row is
 * one field: its name (the key of a JSON object), how to get it from a
 * live job and, where the store keeps it, from a stored run's meta, its
 * JSON form and its text form.  Every face reads a job through it:
 *
 *	jobfield_json()		the job object (!ps --json, list, status,
 *				spawn, wait --json; what MCP reads): every
 *				row with a name and a live getter, in the
 *				table's order (jobfield_json_doc(): alone)
 *	jobfield_json_stored()	a stored run (history, list --all): every
 *				row with a name and a stored getter
 *	jobfield_json_some()	chosen fields of a job: the events
 *	jobfield_line()		a !status line: "label:    text"
 *	jobfield_table_*()	the columns of !ps and !history (texttable)
 *
 * A new field is one row (and, to be shown as text, one entry in the
 * views that show it).  A field without a value (a job that never
 * started has no pid) is null in JSON and "-" in text.  Where a live job
 * and a stored run once differed, the live form won: times are ISO 8601
 * strings in UTC ("started_at", "ended_at"), as job_format_time() writes
 * them, for both.  Rows without a name are text forms alone: "exit"
 * (0, 1, SIGTERM, or -), the state with what a running job waits to
 * read, and the label (jobfield_label() with what a job waits for, its
 * note and its agent).
 *
 * The views (which fields a command shows, in which order, under which
 * headers) belong to the commands: arrays of struct jobfield_col.
 *
 * Ownership: the strings returned are the caller's to free; jobs and
 * metas are borrowed for the call.
 */
#ifndef JOBDECK_JOBFIELD_H
#define JOBDECK_JOBFIELD_H

#include <stddef.h>
#include <stdint.h>

struct job;
struct json_buf;
struct store_meta;
struct texttable;

enum jobfield_id {
	JOBFIELD_ID,
	JOBFIELD_DECK,		/* the deck that ran it: stored runs */
	JOBFIELD_NAME,
	JOBFIELD_COMMAND,
	JOBFIELD_ARGV,		/* null: a shell command */
	JOBFIELD_CWD,
	JOBFIELD_HOST,		/* where it runs (job_spec.host); null: here */
	JOBFIELD_STATE,		/* job_state_name(), or "lost" */
	JOBFIELD_PID,
	JOBFIELD_PTY,
	JOBFIELD_STARTED_AT,
	JOBFIELD_ENDED_AT,
	JOBFIELD_DURATION_MS,
	JOBFIELD_CPU_MS,	/* its cgroup's; null when unknown */
	JOBFIELD_MEMORY_BYTES,
	JOBFIELD_EXIT_CODE,
	JOBFIELD_SIGNAL,
	JOBFIELD_CODE,		/* its end as an exit code (waitstatus.h) */
	JOBFIELD_RUN,
	JOBFIELD_LOG,		/* its run's file */
	JOBFIELD_WAITING_FOR,
	JOBFIELD_READY,		/* bool; null without a readiness probe */
	JOBFIELD_READY_PROBE,	/* its last attempt: "GET /health → 503" */
	JOBFIELD_READY_AT,	/* when the current run passed it */
	JOBFIELD_GROUP,
	JOBFIELD_PRIORITY,
	JOBFIELD_NOTE,
	JOBFIELD_AGENT,
	JOBFIELD_EXEC_ERROR,
	JOBFIELD_NEXT_RUN,	/* on a timer: its next start; else null */
	JOBFIELD_SKIPPED,	/* on a timer: runs skipped; else null */
	JOBFIELD_EXIT,		/* text: waitstatus_short() */
	JOBFIELD_STATE_INPUT,	/* text: "running, waiting for input" */
	JOBFIELD_LABEL,		/* text: the label and what is said of it */
	JOBFIELD_NEXT_CLOCK,	/* text: next_run as a local HH:MM:SS */
	JOBFIELD_READY_LINE,	/* text: "no (GET /health → 503)" */
	JOBFIELD_COUNT
};

/* The width of a !status line's label, its colon and blanks. */
#define JOBFIELD_LINE_LABEL	10

/*
 * A field in a view of text: which, its header (a column's, or a !status
 * line's label) and the column's flags (TEXTTABLE_OPTIONAL).
 */
struct jobfield_col {
	enum jobfield_id	 field;
	const char		*header;
	int			 flags;
};

/*
 * Where the fields of a job on a timer come from (the deck's stack,
 * which knows the timetable; the job does not): next_run in wall ms and
 * skipped, each -1 for a job not on a timer.  Unset (NULL), no job is.
 */
struct jobfield_timer {
	int64_t	(*next_run)(const struct job *, void *arg);
	int64_t	(*skipped)(const struct job *, void *arg);
};

void			 jobfield_set_timer(const struct jobfield_timer *,
			    void *arg);
int64_t			 jobfield_next_run(const struct job *);
const char		*jobfield_name(enum jobfield_id);
void			 jobfield_json(struct json_buf *, struct job *);
char			*jobfield_json_doc(struct job *,
			    const struct store_meta *);
void			 jobfield_json_stored(struct json_buf *,
			    const struct store_meta *);
void			 jobfield_json_some(struct json_buf *, struct job *,
			    const enum jobfield_id *, size_t);
char			*jobfield_text(struct job *, enum jobfield_id);
char			*jobfield_text_stored(const struct store_meta *,
			    enum jobfield_id);
char			*jobfield_line(struct job *,
			    const struct jobfield_col *);
struct texttable	*jobfield_table_new(const struct jobfield_col *,
			    size_t);
void			 jobfield_table_add(struct texttable *,
			    const struct jobfield_col *, size_t, struct job *);
void			 jobfield_table_add_stored(struct texttable *,
			    const struct jobfield_col *, size_t,
			    const struct store_meta *);
char			*jobfield_label(const struct job *, int brief);
int			 jobfield_stored_code(const struct store_meta *);

#endif
