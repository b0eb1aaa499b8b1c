/*
 * jobfield.c: the table of a job's fields (jobfield_rows[]) and the forms
 * made from it: JSON objects of a live job or a stored run, chosen
 * fields for an event, a !status line, the cells of a table's row.  Each
 * row's getters fill a struct jobfield_value; what is written of it is
 * decided here once, by its kind.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fatal.h"
#include "host.h"
#include "job.h"
#include "jobfield.h"
#include "json.h"
#include "loop.h"
#include "store.h"
#include "textesc.h"
#include "texttable.h"
#include "ttywait.h"
#include "waitstatus.h"
#include "xmalloc.h"

/* What a getter gave: nothing, a number, a flag, a string or words. */
enum jobfield_kind {
	JOBFIELD_NULL,
	JOBFIELD_INT,
	JOBFIELD_BOOL,
	JOBFIELD_STRING,
	JOBFIELD_WORDS,
	JOBFIELD_JSON		/* own is JSON text; s its text form */
};

/* One field's value; s points into buf, own, or the job (or meta). */
struct jobfield_value {
	enum jobfield_kind	 kind;
	int64_t			 n;		/* INT, BOOL */
	const char		*s;		/* STRING */
	char *const		*words;		/* WORDS */
	char			*own;		/* freed once it is written */
	char			 buf[64];
};

/*
 * A row: the field's name (its JSON key; NULL: a text form only), its
 * getters from a live job and from a stored run's meta (NULL: it has
 * none), and how a number is shown as text (NULL: in digits).
 */
struct jobfield {
	const char	*name;
	void		(*live)(struct job *, struct jobfield_value *);
	void		(*stored)(const struct store_meta *,
			    struct jobfield_value *);
	const char	*(*text)(int64_t, char *, size_t);
};

/* Set v to nothing (null, "-"). */
static void
jobfield_null(struct jobfield_value *v)
{
	v->kind = JOBFIELD_NULL;
}

/* Set v to the number n. */
static void
jobfield_int(struct jobfield_value *v, int64_t n)
{
	v->kind = JOBFIELD_INT;
	v->n = n;
}

/* Set v to the string s (borrowed), or to nothing when s is NULL. */
static void
jobfield_string(struct jobfield_value *v, const char *s)
{
	v->kind = s != NULL ? JOBFIELD_STRING : JOBFIELD_NULL;
	v->s = s;
}

/* Set v to the string s, allocated: freed once it is written. */
static void
jobfield_owned(struct jobfield_value *v, char *s)
{
	v->own = s;
	jobfield_string(v, s);
}

/* Set v to a wall time as ISO 8601 (job_format_time()), nothing for 0. */
static void
jobfield_time(struct jobfield_value *v, int64_t ms)
{
	if (ms <= 0)
		jobfield_null(v);
	else
		jobfield_string(v, job_format_time(ms, v->buf,
		    sizeof v->buf));
}

/* Set v to the exit code of a wait status, or nothing. */
static void
jobfield_exit_code(struct jobfield_value *v, int status)
{
	if (waitstatus_exit_code(status) >= 0)
		jobfield_int(v, waitstatus_exit_code(status));
	else
		jobfield_null(v);
}

/* Set v to the name of the signal that ended a wait status, or nothing. */
static void
jobfield_signal(struct jobfield_value *v, int status)
{
	if (waitstatus_signal(status) > 0)
		jobfield_string(v, waitstatus_signal_name(waitstatus_signal(
		    status), v->buf, sizeof v->buf));
	else
		jobfield_null(v);
}

/*
 * Return how a job is called: "NAME: COMMAND", or brief, its name alone;
 * the command alone without a name; escaped as textesc_visible() escapes
 * what a terminal would act on.  Free it.
 */
static char *
jobfield_label_of(const char *name, const char *command, int brief)
{
	char	*label, *safe;

	if (command == NULL)
		command = "";
	if (name != NULL && brief)
		label = xstrdup(name);
	else if (name != NULL)
		label = xprintf("%s: %s", name, command);
	else
		label = xstrdup(command);
	if (!textesc_needed(label, strlen(label)))
		return label;
	safe = textesc_visible(label, strlen(label));
	free(label);
	return safe;
}

/* ---- From a live job ---- */

/* The job's id. */
static void
jobfield_job_id(struct job *job, struct jobfield_value *v)
{
	jobfield_int(v, job_id(job));
}

/* Its name, or nothing. */
static void
jobfield_job_name(struct job *job, struct jobfield_value *v)
{
	jobfield_string(v, job_name(job));
}

/* Its command string. */
static void
jobfield_job_command(struct job *job, struct jobfield_value *v)
{
	jobfield_string(v, job_command(job));
}

/* Its program and arguments, or nothing for a shell command. */
static void
jobfield_job_argv(struct job *job, struct jobfield_value *v)
{
	v->words = job_argv(job);
	v->kind = v->words != NULL ? JOBFIELD_WORDS : JOBFIELD_NULL;
}

/* Its working directory, or nothing (inherited). */
static void
jobfield_job_cwd(struct job *job, struct jobfield_value *v)
{
	jobfield_string(v, job_cwd(job));
}

/* Put key and s, or null when s is NULL or empty (Slurm's unknowns). */
static void
jobfield_put_text(struct json_buf *jb, const char *key, const char *s)
{
	json_key(jb, key);
	if (s != NULL && *s != '\0')
		json_put_string(jb, s);
	else
		json_put_null(jb);
}

/*
 * Where it runs: the host it was given (a [hosts] name or an ssh
 * destination), or nothing (here).  The one writer of the job object's
 * host.
 */
static void
jobfield_job_host(struct job *job, struct jobfield_value *v)
{
	const struct host_run	*run = job_remote(job);
	const char		*host = job_spec(job)->host, *engine;
	const char		*id, *state, *nodes, *reason;
	struct json_buf		 jb;

	if (host == NULL) {
		jobfield_null(v);
		return;
	}
	engine = run != NULL ? host_run_engine(run) : job_host_engine(job);
	json_init(&jb);
	json_object_begin(&jb);
	json_key(&jb, "name");
	json_put_string(&jb, host);
	json_key(&jb, "engine");
	json_put_string(&jb, engine);
	if (strcmp(engine, "slurm") == 0) {
		id = state = nodes = reason = NULL;
		if (run != NULL)
			host_run_slurm(run, &id, &state, &nodes, &reason);
		json_key(&jb, "slurm");
		json_object_begin(&jb);
		jobfield_put_text(&jb, "job_id", id);
		jobfield_put_text(&jb, "state", state);
		jobfield_put_text(&jb, "nodes", nodes);
		jobfield_put_text(&jb, "reason", reason);
		json_object_end(&jb);
	}
	json_object_end(&jb);
	v->kind = JOBFIELD_JSON;
	v->own = json_finish(&jb, NULL);
	v->s = host;
	json_clear(&jb);
}

/* Its state's word. */
static void
jobfield_job_state(struct job *job, struct jobfield_value *v)
{
	jobfield_string(v, job_state_name(job_state(job)));
}

/* Its process's id, or nothing before a start. */
static void
jobfield_job_pid(struct job *job, struct jobfield_value *v)
{
	if (job_pid(job) > 0)
		jobfield_int(v, job_pid(job));
	else
		jobfield_null(v);
}

/* Whether it runs on a pty. */
static void
jobfield_job_pty(struct job *job, struct jobfield_value *v)
{
	v->kind = JOBFIELD_BOOL;
	v->n = job_is_pty(job);
}

/* When it last started. */
static void
jobfield_job_started(struct job *job, struct jobfield_value *v)
{
	jobfield_time(v, job_start_time(job));
}

/* When it last ended. */
static void
jobfield_job_ended(struct job *job, struct jobfield_value *v)
{
	jobfield_time(v, job_end_time(job));
}

/* How long its last run took (so far). */
static void
jobfield_job_duration(struct job *job, struct jobfield_value *v)
{
	jobfield_int(v, job_duration_ms(job, loop_now_ms()));
}

/* Its CPU time, or nothing when unknown. */
static void
jobfield_job_cpu(struct job *job, struct jobfield_value *v)
{
	if (job_cpu_ms(job) >= 0)
		jobfield_int(v, job_cpu_ms(job));
	else
		jobfield_null(v);
}

/* Its memory, or nothing when unknown. */
static void
jobfield_job_memory(struct job *job, struct jobfield_value *v)
{
	if (job_memory_bytes(job) >= 0)
		jobfield_int(v, job_memory_bytes(job));
	else
		jobfield_null(v);
}

/* Its last end's exit code, or nothing. */
static void
jobfield_job_exit_code(struct job *job, struct jobfield_value *v)
{
	jobfield_exit_code(v, job_end_status(job));
}

/* The signal that ended its last run, or nothing. */
static void
jobfield_job_signal(struct job *job, struct jobfield_value *v)
{
	jobfield_signal(v, job_end_status(job));
}

/* Its end as an exit code, or nothing before it ends. */
static void
jobfield_job_code(struct job *job, struct jobfield_value *v)
{
	if (job_end_code(job) >= 0)
		jobfield_int(v, job_end_code(job));
	else
		jobfield_null(v);
}

/* The id of its last run in the store, or nothing. */
static void
jobfield_job_run(struct job *job, struct jobfield_value *v)
{
	jobfield_string(v, job_run_id(job));
}

/* The file of its last run in the store, or nothing. */
static void
jobfield_job_log(struct job *job, struct jobfield_value *v)
{
	if (job_run_id(job) != NULL && job_store_dir(job) != NULL)
		jobfield_owned(v, store_run_path(job_store_dir(job),
		    job_run_id(job)));
	else
		jobfield_null(v);
}

/* What it waits for, or nothing. */
static void
jobfield_job_waiting(struct job *job, struct jobfield_value *v)
{
	/* What a program on another host reads is not seen from here. */
	if (job_is_remote(job) && job_state(job) == JOB_RUNNING)
		jobfield_string(v, "unknown");
	else
		jobfield_string(v, job_waiting_for(job));
}

/* Whether its readiness probe passed, or nothing without one. */
static void
jobfield_job_ready(struct job *job, struct jobfield_value *v)
{
	if (job_ready(job) == JOB_READY_NONE)
		jobfield_null(v);
	else {
		v->kind = JOBFIELD_BOOL;
		v->n = job_ready(job) == JOB_READY_YES;
	}
}

/* Its readiness probe's last attempt ("GET /health → 503"), or nothing. */
static void
jobfield_job_ready_probe(struct job *job, struct jobfield_value *v)
{
	jobfield_string(v, job_ready_text(job));
}

/* When its current run passed its readiness probe, or nothing. */
static void
jobfield_job_ready_at(struct job *job, struct jobfield_value *v)
{
	jobfield_time(v, job_ready_time(job));
}

/* Its group, or nothing. */
static void
jobfield_job_group(struct job *job, struct jobfield_value *v)
{
	jobfield_string(v, job_spec(job)->group);
}

/* Its place in the queue's order. */
static void
jobfield_job_priority(struct job *job, struct jobfield_value *v)
{
	jobfield_int(v, job_spec(job)->priority);
}

/* Why it last restarted, or nothing. */
static void
jobfield_job_note(struct job *job, struct jobfield_value *v)
{
	jobfield_string(v, job_note(job));
}

/* The agent that started it, or nothing. */
static void
jobfield_job_agent(struct job *job, struct jobfield_value *v)
{
	jobfield_string(v, job_agent(job));
}

/* Why its program could not be started at all, or nothing. */
static void
jobfield_job_exec_error(struct job *job, struct jobfield_value *v)
{
	jobfield_string(v, job_exec_error(job));
}

/* Its end for a column: "0", "1", "SIGTERM", "-". */
static void
jobfield_job_exit(struct job *job, struct jobfield_value *v)
{
	jobfield_string(v, waitstatus_short(job_end_status(job), v->buf,
	    sizeof v->buf));
}

/* Its state, and what it waits to read: "running, waiting for input". */
static void
jobfield_job_state_input(struct job *job, struct jobfield_value *v)
{
	const char	*wait = ttywait_name(job_input_wait(job));

	snprintf(v->buf, sizeof v->buf, "%s%s%s",
	    job_state_name(job_state(job)), wait != NULL ?
	    ", waiting for " : "", wait != NULL ? wait : "");
	jobfield_string(v, v->buf);
}

/*
 * Its readiness as one line of text: "no (GET /health → 503)", "yes
 * (GET /health → 200, 2026-01-02T03:04:05.678Z)", nothing without a
 * probe.
 */
static void
jobfield_job_ready_line(struct job *job, struct jobfield_value *v)
{
	const char	*text = job_ready_text(job);
	char		 at[48];

	if (job_ready(job) == JOB_READY_NONE) {
		jobfield_null(v);
		return;
	}
	at[0] = '\0';
	if (job_ready_time(job) > 0)
		job_format_time(job_ready_time(job), at, sizeof at);
	jobfield_owned(v, xprintf("%s%s%s%s%s%s",
	    job_ready(job) == JOB_READY_YES ? "yes" : "no",
	    text != NULL || at[0] != '\0' ? " (" : "", text != NULL ? text : "",
	    text != NULL && at[0] != '\0' ? ", " : "", at,
	    text != NULL || at[0] != '\0' ? ")" : ""));
}

/*
 * Its label (jobfield_label()) and, after it, what a waiting job waits
 * for, its note and the agent that started it.
 */
static void
jobfield_job_label(struct job *job, struct jobfield_value *v)
{
	const char	*wait = job_waiting_for(job), *note = job_note(job);
	const char	*agent = job_agent(job);
	char		*label = jobfield_label(job, 0);

	jobfield_owned(v, xprintf("%s%s%s%s%s%s%s%s%s%s", label,
	    wait != NULL ? "  (waiting for " : "", wait != NULL ? wait : "",
	    wait != NULL ? ")" : "", note != NULL ? "  (" : "",
	    note != NULL ? note : "", note != NULL ? ")" : "",
	    agent != NULL ? "  (agent " : "", agent != NULL ? agent : "",
	    agent != NULL ? ")" : ""));
	free(label);
}

/* ---- From a stored run ---- */

/* Its job's id in its deck. */
static void
jobfield_meta_id(const struct store_meta *m, struct jobfield_value *v)
{
	jobfield_int(v, m->job);
}

/* The deck that ran it. */
static void
jobfield_meta_deck(const struct store_meta *m, struct jobfield_value *v)
{
	jobfield_string(v, m->deck);
}

/* Its job's name, or nothing. */
static void
jobfield_meta_name(const struct store_meta *m, struct jobfield_value *v)
{
	jobfield_string(v, m->name);
}

/* Its command string. */
static void
jobfield_meta_command(const struct store_meta *m, struct jobfield_value *v)
{
	jobfield_string(v, m->command);
}

/* Its program and arguments, or nothing for a shell command. */
static void
jobfield_meta_argv(const struct store_meta *m, struct jobfield_value *v)
{
	v->words = m->argv;
	v->kind = v->words != NULL ? JOBFIELD_WORDS : JOBFIELD_NULL;
}

/* Its working directory. */
static void
jobfield_meta_cwd(const struct store_meta *m, struct jobfield_value *v)
{
	jobfield_string(v, m->cwd);
}

/* Its state as last written ("lost" once its deck died under it). */
static void
jobfield_meta_state(const struct store_meta *m, struct jobfield_value *v)
{
	jobfield_string(v, m->state);
}

/* Its process's id, or nothing. */
static void
jobfield_meta_pid(const struct store_meta *m, struct jobfield_value *v)
{
	if (m->pid > 0)
		jobfield_int(v, m->pid);
	else
		jobfield_null(v);
}

/* Whether it ran on a pty. */
static void
jobfield_meta_pty(const struct store_meta *m, struct jobfield_value *v)
{
	v->kind = JOBFIELD_BOOL;
	v->n = m->pty;
}

/* When it started. */
static void
jobfield_meta_started(const struct store_meta *m, struct jobfield_value *v)
{
	jobfield_time(v, m->started);
}

/* When it ended, or nothing while it runs. */
static void
jobfield_meta_ended(const struct store_meta *m, struct jobfield_value *v)
{
	jobfield_time(v, m->ended);
}

/* Its exit code, or nothing. */
static void
jobfield_meta_exit_code(const struct store_meta *m, struct jobfield_value *v)
{
	jobfield_exit_code(v, m->has_status ? m->status : WAITSTATUS_NONE);
}

/* The signal that ended it, or nothing. */
static void
jobfield_meta_signal(const struct store_meta *m, struct jobfield_value *v)
{
	jobfield_signal(v, m->has_status ? m->status : WAITSTATUS_NONE);
}

/* Its end as an exit code, or nothing. */
static void
jobfield_meta_code(const struct store_meta *m, struct jobfield_value *v)
{
	if (jobfield_stored_code(m) >= 0)
		jobfield_int(v, jobfield_stored_code(m));
	else
		jobfield_null(v);
}

/* Its run id. */
static void
jobfield_meta_run(const struct store_meta *m, struct jobfield_value *v)
{
	jobfield_string(v, m->run);
}

/* Its end for a column: "0", "1", "SIGTERM", "-". */
static void
jobfield_meta_exit(const struct store_meta *m, struct jobfield_value *v)
{
	jobfield_string(v, waitstatus_short(m->has_status ? m->status :
	    WAITSTATUS_NONE, v->buf, sizeof v->buf));
}

/* Its label: "NAME: COMMAND", or the command alone. */
static void
jobfield_meta_label(const struct store_meta *m, struct jobfield_value *v)
{
	jobfield_owned(v, jobfield_label_of(m->name, m->command, 0));
}

/* Where a job on a timer's fields come from (jobfield_set_timer()). */
static const struct jobfield_timer	*jobfield_timer;
static void				*jobfield_timer_arg;

/* Take the fields of jobs on a timer from t with arg (t NULL: none). */
void
jobfield_set_timer(const struct jobfield_timer *t, void *arg)
{
	jobfield_timer = t;
	jobfield_timer_arg = arg;
}

/* Return a job's next start on its timer in wall ms, or -1. */
int64_t
jobfield_next_run(const struct job *job)
{
	if (jobfield_timer == NULL)
		return -1;
	return jobfield_timer->next_run(job, jobfield_timer_arg);
}

/* When it runs next on its timer (ISO 8601 as started_at), or nothing. */
static void
jobfield_job_next_run(struct job *job, struct jobfield_value *v)
{
	jobfield_time(v, jobfield_next_run(job));
}

/* When it runs next on its timer as a local clock (!ps), or nothing. */
static void
jobfield_job_next_clock(struct job *job, struct jobfield_value *v)
{
	if (jobfield_next_run(job) < 0)
		jobfield_null(v);
	else
		jobfield_string(v, job_format_clock(jobfield_next_run(job), 0,
		    v->buf, sizeof v->buf));
}

/* How many of its due runs its overlap skipped, or nothing. */
static void
jobfield_job_skipped(struct job *job, struct jobfield_value *v)
{
	int64_t	n = -1;

	if (jobfield_timer != NULL)
		n = jobfield_timer->skipped(job, jobfield_timer_arg);
	if (n < 0)
		jobfield_null(v);
	else
		jobfield_int(v, n);
}

/* The table, in the order of the job object's members. */
static const struct jobfield jobfield_rows[JOBFIELD_COUNT] = {
	[JOBFIELD_ID] = { "id", jobfield_job_id, jobfield_meta_id, NULL },
	[JOBFIELD_DECK] = { "deck", NULL, jobfield_meta_deck, NULL },
	[JOBFIELD_NAME] = { "name", jobfield_job_name, jobfield_meta_name,
	    NULL },
	[JOBFIELD_COMMAND] = { "command", jobfield_job_command,
	    jobfield_meta_command, NULL },
	[JOBFIELD_ARGV] = { "argv", jobfield_job_argv, jobfield_meta_argv,
	    NULL },
	[JOBFIELD_CWD] = { "cwd", jobfield_job_cwd, jobfield_meta_cwd, NULL },
	[JOBFIELD_HOST] = { "host", jobfield_job_host, NULL, NULL },
	[JOBFIELD_STATE] = { "state", jobfield_job_state,
	    jobfield_meta_state, NULL },
	[JOBFIELD_PID] = { "pid", jobfield_job_pid, jobfield_meta_pid, NULL },
	[JOBFIELD_PTY] = { "pty", jobfield_job_pty, jobfield_meta_pty, NULL },
	[JOBFIELD_STARTED_AT] = { "started_at", jobfield_job_started,
	    jobfield_meta_started, NULL },
	[JOBFIELD_ENDED_AT] = { "ended_at", jobfield_job_ended,
	    jobfield_meta_ended, NULL },
	[JOBFIELD_DURATION_MS] = { "duration_ms", jobfield_job_duration,
	    NULL, job_format_duration },
	[JOBFIELD_CPU_MS] = { "cpu_ms", jobfield_job_cpu, NULL,
	    job_format_cpu },
	[JOBFIELD_MEMORY_BYTES] = { "memory_bytes", jobfield_job_memory,
	    NULL, job_format_bytes },
	[JOBFIELD_EXIT_CODE] = { "exit_code", jobfield_job_exit_code,
	    jobfield_meta_exit_code, NULL },
	[JOBFIELD_SIGNAL] = { "signal", jobfield_job_signal,
	    jobfield_meta_signal, NULL },
	[JOBFIELD_CODE] = { "code", jobfield_job_code, jobfield_meta_code,
	    NULL },
	[JOBFIELD_RUN] = { "run", jobfield_job_run, jobfield_meta_run, NULL },
	[JOBFIELD_LOG] = { "log", jobfield_job_log, NULL, NULL },
	[JOBFIELD_WAITING_FOR] = { "waiting_for", jobfield_job_waiting, NULL,
	    NULL },
	[JOBFIELD_READY] = { "ready", jobfield_job_ready, NULL, NULL },
	[JOBFIELD_READY_PROBE] = { "ready_probe", jobfield_job_ready_probe,
	    NULL, NULL },
	[JOBFIELD_READY_AT] = { "ready_at", jobfield_job_ready_at, NULL,
	    NULL },
	[JOBFIELD_GROUP] = { "group", jobfield_job_group, NULL, NULL },
	[JOBFIELD_PRIORITY] = { "priority", jobfield_job_priority, NULL,
	    NULL },
	[JOBFIELD_NOTE] = { "note", jobfield_job_note, NULL, NULL },
	[JOBFIELD_AGENT] = { "agent", jobfield_job_agent, NULL, NULL },
	[JOBFIELD_EXEC_ERROR] = { "exec_error", jobfield_job_exec_error,
	    NULL, NULL },
	[JOBFIELD_NEXT_RUN] = { "next_run", jobfield_job_next_run, NULL,
	    NULL },
	[JOBFIELD_SKIPPED] = { "skipped", jobfield_job_skipped, NULL, NULL },
	[JOBFIELD_EXIT] = { NULL, jobfield_job_exit, jobfield_meta_exit,
	    NULL },
	[JOBFIELD_STATE_INPUT] = { NULL, jobfield_job_state_input, NULL,
	    NULL },
	[JOBFIELD_LABEL] = { NULL, jobfield_job_label, jobfield_meta_label,
	    NULL },
	[JOBFIELD_NEXT_CLOCK] = { NULL, jobfield_job_next_clock, NULL, NULL },
	[JOBFIELD_READY_LINE] = { NULL, jobfield_job_ready_line, NULL, NULL },
};

/* Return the row of id, which must have the getter asked for. */
static const struct jobfield *
jobfield_row(enum jobfield_id id, int stored)
{
	const struct jobfield	*f;

	if ((int)id < 0 || id >= JOBFIELD_COUNT)
		fatal("jobfield: no field %d", (int)id);
	f = &jobfield_rows[id];
	if (stored ? f->stored == NULL : f->live == NULL)
		fatal("jobfield: field %d has no %s getter", (int)id,
		    stored ? "stored" : "live");
	return f;
}

/* Fill v with a field of a live job (meta NULL) or of a stored run. */
static void
jobfield_get(const struct jobfield *f, struct job *job,
    const struct store_meta *meta, struct jobfield_value *v)
{
	memset(v, 0, sizeof *v);
	if (meta != NULL)
		f->stored(meta, v);
	else
		f->live(job, v);
}

/* Write a value as JSON under key, then free what it owns. */
static void
jobfield_put(struct json_buf *jb, const char *key, struct jobfield_value *v)
{
	size_t	i;

	json_key(jb, key);
	switch (v->kind) {
	case JOBFIELD_NULL:
		json_put_null(jb);
		break;
	case JOBFIELD_INT:
		json_put_int(jb, v->n);
		break;
	case JOBFIELD_BOOL:
		json_put_bool(jb, v->n != 0);
		break;
	case JOBFIELD_STRING:
		json_put_string(jb, v->s);
		break;
	case JOBFIELD_WORDS:
		json_array_begin(jb);
		for (i = 0; v->words[i] != NULL; i++)
			json_put_string(jb, v->words[i]);
		json_array_end(jb);
		break;
	case JOBFIELD_JSON:
		json_put_raw(jb, v->own, strlen(v->own));
		break;
	}
	free(v->own);
}

/* Return a value as text ("-" for nothing), then free what it owns. */
static char *
jobfield_show(const struct jobfield *f, struct jobfield_value *v)
{
	struct xbuf	 b = { NULL, 0, 0 };
	char		 num[64], *s;
	size_t		 i;

	switch (v->kind) {
	case JOBFIELD_NULL:
		s = xstrdup("-");
		break;
	case JOBFIELD_INT:
		if (f->text != NULL)
			s = xstrdup(f->text(v->n, num, sizeof num));
		else
			s = xprintf("%lld", (long long)v->n);
		break;
	case JOBFIELD_BOOL:
		s = xstrdup(v->n ? "yes" : "no");
		break;
	case JOBFIELD_STRING:
	case JOBFIELD_JSON:
		s = xstrdup(v->s);
		break;
	default:
		for (i = 0; v->words[i] != NULL; i++) {
			if (i > 0)
				xbuf_add(&b, " ", 1);
			xbuf_add(&b, v->words[i], strlen(v->words[i]));
		}
		xbuf_add(&b, "", 1);
		s = b.s;
		break;
	}
	free(v->own);
	return s;
}

/* Return the JSON key of a field, or NULL for a text form. */
const char *
jobfield_name(enum jobfield_id id)
{
	if ((int)id < 0 || id >= JOBFIELD_COUNT)
		fatal("jobfield: no field %d", (int)id);
	return jobfield_rows[id].name;
}

/* Write every field of a live job into the open JSON object jb. */
void
jobfield_json(struct json_buf *jb, struct job *job)
{
	struct jobfield_value	 v;
	const struct jobfield	*f;
	int			 i;

	for (i = 0; i < JOBFIELD_COUNT; i++) {
		f = &jobfield_rows[i];
		if (f->name == NULL || f->live == NULL)
			continue;
		jobfield_get(f, job, NULL, &v);
		jobfield_put(jb, f->name, &v);
	}
}

/*
 * Return the object of a live job (m NULL), or of a stored run, as a JSON
 * document; free it.
 */
char *
jobfield_json_doc(struct job *job, const struct store_meta *m)
{
	struct json_buf	 jb;
	char		*doc;

	json_init(&jb);
	json_object_begin(&jb);
	if (m != NULL)
		jobfield_json_stored(&jb, m);
	else
		jobfield_json(&jb, job);
	json_object_end(&jb);
	doc = json_finish(&jb, NULL);
	json_clear(&jb);
	return doc;
}

/* Write every field the store keeps of a run into the open object jb. */
void
jobfield_json_stored(struct json_buf *jb, const struct store_meta *m)
{
	struct jobfield_value	 v;
	const struct jobfield	*f;
	int			 i;

	for (i = 0; i < JOBFIELD_COUNT; i++) {
		f = &jobfield_rows[i];
		if (f->name == NULL || f->stored == NULL)
			continue;
		jobfield_get(f, NULL, m, &v);
		jobfield_put(jb, f->name, &v);
	}
}

/* Write the fields ids[0..n) of a live job into the open object jb. */
void
jobfield_json_some(struct json_buf *jb, struct job *job,
    const enum jobfield_id *ids, size_t n)
{
	struct jobfield_value	 v;
	const struct jobfield	*f;
	size_t			 i;

	for (i = 0; i < n; i++) {
		f = jobfield_row(ids[i], 0);
		if (f->name == NULL)
			fatal("jobfield: field %d is text only", (int)ids[i]);
		jobfield_get(f, job, NULL, &v);
		jobfield_put(jb, f->name, &v);
	}
}

/* Return a field of a live job as text; free it. */
char *
jobfield_text(struct job *job, enum jobfield_id id)
{
	const struct jobfield	*f = jobfield_row(id, 0);
	struct jobfield_value	 v;

	jobfield_get(f, job, NULL, &v);
	return jobfield_show(f, &v);
}

/* Return a field of a stored run as text; free it. */
char *
jobfield_text_stored(const struct store_meta *m, enum jobfield_id id)
{
	const struct jobfield	*f = jobfield_row(id, 1);
	struct jobfield_value	 v;

	jobfield_get(f, NULL, m, &v);
	return jobfield_show(f, &v);
}

/* Return a !status line of a live job: "state:    running"; free it. */
char *
jobfield_line(struct job *job, const struct jobfield_col *col)
{
	char	*text, *label, *line;

	text = jobfield_text(job, col->field);
	label = xprintf("%s:", col->header);
	line = xprintf("%-*s%s", JOBFIELD_LINE_LABEL, label, text);
	free(label);
	free(text);
	return line;
}

/* Return a table (texttable.h) with the columns of a view. */
struct texttable *
jobfield_table_new(const struct jobfield_col *cols, size_t n)
{
	struct texttable_col	*tc;
	struct texttable	*t;
	size_t			 i;

	tc = xreallocarray(NULL, n, sizeof *tc);
	for (i = 0; i < n; i++) {
		tc[i].name = cols[i].header;
		tc[i].flags = cols[i].flags;
	}
	t = texttable_new(tc, (int)n);
	free(tc);
	return t;
}

/* Add a row of fields to a table: of a live job, or (m) a stored run. */
static void
jobfield_table_row(struct texttable *t, const struct jobfield_col *cols,
    size_t n, struct job *job, const struct store_meta *m)
{
	char	**cells;
	size_t	  i;

	cells = xreallocarray(NULL, n, sizeof *cells);
	for (i = 0; i < n; i++) {
		cells[i] = m != NULL ? jobfield_text_stored(m, cols[i].field) :
		    jobfield_text(job, cols[i].field);
	}
	texttable_add(t, (const char *const *)cells);
	for (i = 0; i < n; i++)
		free(cells[i]);
	free(cells);
}

/* Add a live job's row to a table made by jobfield_table_new(cols, n). */
void
jobfield_table_add(struct texttable *t, const struct jobfield_col *cols,
    size_t n, struct job *job)
{
	jobfield_table_row(t, cols, n, job, NULL);
}

/* Add a stored run's row to a table made by jobfield_table_new(). */
void
jobfield_table_add_stored(struct texttable *t,
    const struct jobfield_col *cols, size_t n, const struct store_meta *m)
{
	jobfield_table_row(t, cols, n, NULL, m);
}

/*
 * Return how a job is called wherever it is shown (the panel, the pane's
 * title, !ps, messages): "NAME: COMMAND", or brief, its name alone; the
 * command alone when it has no name.  What a terminal would act on (a
 * newline in a pasted command) is escaped as textesc_visible() escapes
 * it.  Free it.
 */
char *
jobfield_label(const struct job *job, int brief)
{
	return jobfield_label_of(job_name(job), job_command(job), brief);
}

/*
 * Return a stored run's end as an exit code (waitstatus_end_code()), or
 * -1 while it runs, waits, or when its deck died under it (lost).
 */
int
jobfield_stored_code(const struct store_meta *m)
{
	struct waitstatus_end	 e;
	static const enum job_state ended[] = {
		JOB_COMPLETED, JOB_FAILED, JOB_CANCELED, JOB_TIMED_OUT,
		JOB_BLOCKED
	};
	size_t			 i;

	for (i = 0; m->state != NULL && i < sizeof ended / sizeof ended[0];
	    i++) {
		if (strcmp(m->state, job_state_name(ended[i])) == 0)
			break;
	}
	if (m->state == NULL || i == sizeof ended / sizeof ended[0])
		return -1;
	e.status = m->has_status ? m->status : WAITSTATUS_NONE;
	e.timed_out = ended[i] == JOB_TIMED_OUT;
	e.completed = ended[i] == JOB_COMPLETED;
	return waitstatus_end_code(&e);
}
