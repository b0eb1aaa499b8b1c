/*
 * check_jobfield.c: a job's fields (jobfield.h) read from real jobs --
 * real children on ptys and pipes, a real jobtable on a real loop, a real
 * output store -- and read back as JSON: the table's rows and names, the
 * job object of a live job, chosen fields (the events), a stored run's
 * object, the text forms (!status lines, table cells, the label), and a
 * job's end as one exit code (waitstatus_end_code()) for every row of the
 * policy, the same through the job object, its text and its stored run.
 *
 * The test process is a child subreaper, as jobdeck is.
 */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job.h"
#include "jobfield.h"
#include "jobtable.h"
#include "json.h"
#include "jsonread.h"
#include "loop.h"
#include "store.h"
#include "texttable.h"
#include "ttywait.h"
#include "waitstatus.h"

#define WAIT_MS		20000	/* for a job's end, however busy the box */

static char *const test_env[] = {
	"PATH=/usr/bin:/bin", "LC_ALL=C", "HOME=/tmp", NULL
};

/* Every field with a JSON name, in the table's order (README, man page). */
static const char *const named[] = {
	"id", "deck", "name", "command", "argv", "cwd", "host", "state", "pid",
	"pty",
	"started_at", "ended_at", "duration_ms", "cpu_ms", "memory_bytes",
	"exit_code", "signal", "code", "run", "log", "waiting_for", "ready",
	"ready_probe", "ready_at", "group", "priority", "note", "agent",
	"exec_error", "next_run", "skipped", NULL
};

/* What one test drives. */
struct fx {
	struct loop	*loop;
	struct jobtable	*jt;
	struct store	*store;
	char		 dir[64];
};

static struct fx	fx;

/*
 * The test policy, a stack's stand-in: "dep" cannot start (what it
 * depends on failed), "held" waits; the others go.
 */
static enum jobtable_gate
pol_may_start(struct job *job, char **why, void *arg)
{
	const char	*name = job_name(job);

	(void)arg;
	if (name != NULL && strcmp(name, "dep") == 0) {
		*why = strdup("db failed");
		return JOBTABLE_FAIL;
	}
	if (name != NULL && strcmp(name, "held") == 0) {
		*why = strdup("db (ready)");
		return JOBTABLE_WAIT;
	}
	return JOBTABLE_GO;
}

static const struct jobtable_policy test_policy = {
	.may_start = pol_may_start,
};

/* Make a loop, a table with the test policy, a store in a fresh dir. */
static void
setup(void)
{
	struct store_limits	 lim;
	char			*cause = NULL;

	memset(&fx, 0, sizeof fx);
	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	strcpy(fx.dir, "/tmp/check_jobfield.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(fx.dir));
	fx.loop = loop_new();
	fx.jt = jobtable_new(fx.loop);
	jobtable_set_policy(fx.jt, &test_policy, &fx);
	store_default_limits(&lim);
	fx.store = store_open(fx.dir, &lim, &cause);
	ck_assert_msg(fx.store != NULL, "store: %s", cause);
	jobtable_set_store(fx.jt, fx.store);
}

/* Kill what is left, free everything, remove the directory. */
static void
teardown(void)
{
	char	cmd[128];
	int	i;

	for (i = 0; i < jobtable_count(fx.jt); i++)
		job_signal(jobtable_get(fx.jt, i), SIGKILL);
	jobtable_free(fx.jt);
	store_free(fx.store);
	loop_free(fx.loop);
	jobtable_kill_strays();
	snprintf(cmd, sizeof cmd, "rm -rf %s", fx.dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", fx.dir);
}

/*
 * Start a job: command (a shell string) or argv (no shell), on pipes when
 * no_pty, named name (may be NULL), killed after timeout_ms (0: none).
 */
static struct job *
spawn(const char *name, const char *command, char *const *argv, int no_pty,
    int64_t timeout_ms)
{
	struct job_spec	 spec;
	struct job	*job;
	char		*cause = NULL;

	memset(&spec, 0, sizeof spec);
	spec.name = name;
	spec.command = command;
	spec.argv = argv;
	spec.shell = "/bin/sh";
	spec.cwd = "/tmp";
	spec.envp = test_env;
	spec.no_pty = no_pty;
	spec.timeout_ms = timeout_ms;
	job = jobtable_spawn(fx.jt, &spec, &cause);
	ck_assert_msg(job != NULL, "spawn: %s", cause);
	return job;
}

/* Turn the loop until the job has ended for good (within WAIT_MS). */
static void
wait_end(struct job *job)
{
	int64_t	end = loop_now_ms() + WAIT_MS;

	while (jobtable_is_live(fx.jt, job) || job_end_code(job) < 0) {
		ck_assert_msg(loop_now_ms() < end, "job %d did not end (%s)",
		    job_id(job), job_state_name(job_state(job)));
		loop_run_once(fx.loop, 20);
	}
}

/* Turn the loop until the job has printed something (within WAIT_MS). */
static void
wait_output(struct job *job)
{
	int64_t	end = loop_now_ms() + WAIT_MS;

	while (job_output_bytes(job) == 0) {
		ck_assert_msg(loop_now_ms() < end, "job %d printed nothing",
		    job_id(job));
		loop_run_once(fx.loop, 20);
	}
}

/* Return the object of a live job, or (m) of a stored run, parsed. */
static struct jsonread *
doc_of(struct job *job, const struct store_meta *m)
{
	struct jsonread	*doc;
	char		*text, *cause = NULL;

	text = jobfield_json_doc(job, m);
	doc = jsonread_parse(text, strlen(text), &cause);
	ck_assert_msg(doc != NULL, "%s: %s", cause, text);
	free(text);
	return doc;
}

/* Read the meta of the job's last run from the store. */
static void
read_meta(struct job *job, struct store_meta *m)
{
	char	*cause = NULL;

	ck_assert_ptr_nonnull(job_run_id(job));
	ck_assert_msg(store_meta_read(fx.dir, job_run_id(job), m, &cause) ==
	    0, "meta: %s", cause);
}

/* Assert that s is a time as job_format_time() writes it. */
static void
assert_iso(const char *s)
{
	ck_assert_ptr_nonnull(s);
	ck_assert_msg(strlen(s) == 24 && s[4] == '-' && s[10] == 'T' &&
	    s[19] == '.' && s[23] == 'Z', "not ISO 8601: %s", s);
}

/* Return whether a member of doc is null (present, and null). */
static int
is_null(const struct jsonread *doc, const char *key)
{
	return jsonread_get(doc, key) != NULL &&
	    jsonread_type(jsonread_get(doc, key)) == JSONREAD_NULL;
}

/*
 * Assert what a job's object (live or stored) says of it: its id, name
 * "web", command, cwd /tmp, state, pid, pty and start.
 */
static void
assert_job(const struct jsonread *doc, struct job *job, const char *command,
    const char *state)
{
	ck_assert_int_eq((int)jsonread_number(jsonread_get(doc, "id")),
	    job_id(job));
	ck_assert_str_eq(jsonread_text(doc, "name"), "web");
	ck_assert_str_eq(jsonread_text(doc, "command"), command);
	ck_assert(is_null(doc, "argv"));
	ck_assert_str_eq(jsonread_text(doc, "cwd"), "/tmp");
	ck_assert_str_eq(jsonread_text(doc, "state"), state);
	ck_assert_int_eq((int)jsonread_number(jsonread_get(doc, "pid")),
	    job_pid(job));
	ck_assert_int_eq(jsonread_bool(jsonread_get(doc, "pty")), 1);
	assert_iso(jsonread_text(doc, "started_at"));
}

/* Return a field of a live job as text (static, until the next call). */
static const char *
text_of(struct job *job, enum jobfield_id id)
{
	static char	 buf[256];
	char		*s = jobfield_text(job, id);

	snprintf(buf, sizeof buf, "%s", s);
	free(s);
	return buf;
}

/*
 * The table: every named field once, in the documented order; the text
 * forms have no name.
 */
START_TEST(test_table)
{
	int	i, k = 0;

	for (i = 0; i < JOBFIELD_COUNT; i++) {
		if (jobfield_name(i) == NULL)
			continue;
		ck_assert_ptr_nonnull(named[k]);
		ck_assert_str_eq(jobfield_name(i), named[k]);
		k++;
	}
	ck_assert_ptr_null(named[k]);
	ck_assert_ptr_null(jobfield_name(JOBFIELD_EXIT));
	ck_assert_ptr_null(jobfield_name(JOBFIELD_STATE_INPUT));
	ck_assert_ptr_null(jobfield_name(JOBFIELD_LABEL));
	ck_assert_str_eq(jobfield_name(JOBFIELD_CODE), "code");
}
END_TEST

/* A timer's next run for the job arg, or -1 for any other. */
static int64_t
fake_next_run(const struct job *job, void *arg)
{
	return job == arg ? (int64_t)1767225600000 : -1;	/* 2026 */
}

/* A timer's skips for the job arg, or -1 for any other. */
static int64_t
fake_skipped(const struct job *job, void *arg)
{
	return job == arg ? 3 : -1;
}

/*
 * A job on a timer (as the deck's stack says through jobfield_set_timer())
 * has next_run (ISO 8601 as started_at), skipped and the NEXT text; a job
 * that is not keeps them null.
 */
START_TEST(test_timer_fields)
{
	static const struct jobfield_timer fake = {
		.next_run = fake_next_run,
		.skipped = fake_skipped,
	};
	struct jsonread	*doc;
	struct job	*job, *other;
	char		*text, want[16];

	job = spawn("cron", "true", NULL, 0, 0);
	other = spawn("plain", "true", NULL, 0, 0);
	jobfield_set_timer(&fake, job);
	doc = doc_of(job, NULL);
	ck_assert_str_eq(jsonread_text(doc, "next_run"),
	    "2026-01-01T00:00:00.000Z");
	ck_assert_int_eq((int)jsonread_number(jsonread_get(doc, "skipped")),
	    3);
	jsonread_free(doc);
	text = jobfield_text(job, JOBFIELD_NEXT_CLOCK);
	ck_assert_str_eq(text, job_format_clock(1767225600000, 0, want,
	    sizeof want));
	free(text);
	doc = doc_of(other, NULL);
	ck_assert(is_null(doc, "next_run"));
	ck_assert(is_null(doc, "skipped"));
	jsonread_free(doc);
	text = jobfield_text(other, JOBFIELD_NEXT_CLOCK);
	ck_assert_str_eq(text, "-");
	free(text);
	jobfield_set_timer(NULL, NULL);
	doc = doc_of(job, NULL);
	ck_assert(is_null(doc, "next_run"));
	jsonread_free(doc);
}
END_TEST

/*
 * A live job's object: every named field with a live getter, in the
 * table's order, with the job's values; after a kill, its end.
 */
START_TEST(test_json_live)
{
	struct jsonread	*doc;
	struct job	*job;
	struct json_buf	 jb;
	char		*some;
	size_t		 i, k = 0;

	job = spawn("web", "echo hi; sleep 30", NULL, 0, 0);
	wait_output(job);
	doc = doc_of(job, NULL);
	for (i = 0; named[i] != NULL; i++) {
		if (strcmp(named[i], "deck") == 0)
			continue;	/* a stored run's alone */
		ck_assert_msg(jsonread_key(doc, k) != NULL &&
		    strcmp(jsonread_key(doc, k), named[i]) == 0,
		    "member %zu is %s, not %s", k, jsonread_key(doc, k),
		    named[i]);
		k++;
	}
	ck_assert_uint_eq(jsonread_count(doc), k);
	assert_job(doc, job, "echo hi; sleep 30", "running");
	ck_assert(is_null(doc, "ended_at"));
	ck_assert(is_null(doc, "exit_code"));
	ck_assert(is_null(doc, "signal"));
	ck_assert(is_null(doc, "code"));
	ck_assert_str_eq(jsonread_text(doc, "run"), job_run_id(job));
	ck_assert_ptr_nonnull(strstr(jsonread_text(doc, "log"),
	    job_run_id(job)));
	ck_assert(is_null(doc, "ready"));
	ck_assert_int_eq((int)jsonread_number(jsonread_get(doc, "priority")),
	    0);
	ck_assert(is_null(doc, "agent"));
	ck_assert(is_null(doc, "exec_error"));
	ck_assert(is_null(doc, "next_run"));
	ck_assert(is_null(doc, "skipped"));
	ck_assert(is_null(doc, "host"));
	jsonread_free(doc);

	ck_assert_int_eq(jobtable_kill(fx.jt, job, SIGTERM), 0);
	wait_end(job);
	doc = doc_of(job, NULL);
	ck_assert_str_eq(jsonread_text(doc, "state"), "canceled");
	ck_assert_str_eq(jsonread_text(doc, "signal"), "SIGTERM");
	ck_assert(is_null(doc, "exit_code"));
	ck_assert_int_eq((int)jsonread_number(jsonread_get(doc, "code")),
	    128 + SIGTERM);
	assert_iso(jsonread_text(doc, "ended_at"));
	jsonread_free(doc);

	/* Chosen fields, in the order asked: an event's. */
	json_init(&jb);
	json_object_begin(&jb);
	jobfield_json_some(&jb, job, (const enum jobfield_id[]){
	    JOBFIELD_CODE, JOBFIELD_STATE, JOBFIELD_NAME }, 3);
	json_object_end(&jb);
	some = json_finish(&jb, NULL);
	json_clear(&jb);
	ck_assert_str_eq(some, "{\"code\":143,\"state\":\"canceled\","
	    "\"name\":\"web\"}");
	free(some);
}
END_TEST

/*
 * A job's host (job_spec.host, copied by job_new() and freed with the
 * job) is its object's "host" ({"name", "engine"}); a job set a new spec
 * keeps the new one.
 */
START_TEST(test_json_host)
{
	struct job_spec	 spec;
	struct jsonread	*doc;
	struct job	*job;
	char		 host[] = "me@build1";

	memset(&spec, 0, sizeof spec);
	spec.name = "far";
	spec.command = "make";
	spec.shell = "/bin/sh";
	spec.envp = test_env;
	spec.host = host;
	job = job_new(7, &spec);
	host[0] = 'X';		/* copied, not borrowed */
	ck_assert_str_eq(job_spec(job)->host, "me@build1");
	doc = doc_of(job, NULL);
	/* Not in a [hosts] table: an ssh destination. */
	ck_assert_str_eq(jsonread_text(jsonread_get(doc, "host"), "name"),
	    "me@build1");
	ck_assert_str_eq(jsonread_text(jsonread_get(doc, "host"), "engine"),
	    "ssh");
	ck_assert(jsonread_get(jsonread_get(doc, "host"), "slurm") == NULL);
	ck_assert_str_eq(jsonread_text(doc, "name"), "far");
	jsonread_free(doc);
	spec.host = "gpu";
	job_set_spec(job, &spec);
	doc = doc_of(job, NULL);
	ck_assert_str_eq(jsonread_text(jsonread_get(doc, "host"), "name"),
	    "gpu");
	jsonread_free(doc);
	spec.host = NULL;
	job_set_spec(job, &spec);
	doc = doc_of(job, NULL);
	ck_assert(is_null(doc, "host"));
	jsonread_free(doc);
	job_free(job);
}
END_TEST

/* One end and the code the policy gives it. */
struct end_case {
	const char	*name;
	const char	*command;	/* or argv's first word: */
	int		 no_shell;	/*   the program alone */
	int64_t		 timeout_ms;
	int		 kill;		/* canceled once it printed */
	const char	*state;
	int		 code;
	const char	*exit;		/* its text form */
	const char	*exec_error;
};

/*
 * Every row of the exit code policy through real jobs: the job's
 * job_end_code(), its object's "code", its run's stored code, and the
 * text form of its end.
 */
START_TEST(test_codes)
{
	char		 noexec[128];
	struct end_case	 cases[] = {
		{ "ok", "true", 0, 0, 0, "completed", 0, "0", NULL },
		{ "three", "exit 3", 0, 0, 0, "failed", 3, "3", NULL },
		{ "killed", "kill -KILL $$", 0, 0, 0, "failed", 128 + SIGKILL,
		  "SIGKILL", NULL },
		{ "slow", "sleep 30", 0, 200, 0, "timed-out", 124, "SIGTERM",
		  NULL },
		{ "nf", "/nonexistent/jd-prog", 1, 0, 0, "failed", 127, "127",
		  "not found" },
		{ "nx", noexec, 1, 0, 0, "failed", 126, "126",
		  "Permission denied" },
		{ "term", "echo up; sleep 30", 0, 0, 1, "canceled",
		  128 + SIGTERM, "SIGTERM", NULL },
		{ "trapped", "trap 'exit 0' TERM; echo up; "
		  "while :; do sleep 0.05; done", 0, 0, 1, "canceled", 1, "0",
		  NULL },
	};
	struct store_meta	 m;
	struct jsonread		*doc;
	struct job		*job;
	char			*argv[2];
	size_t			 i;
	int			 fd;

	snprintf(noexec, sizeof noexec, "%s/noexec", fx.dir);
	fd = open(noexec, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "#!/bin/sh\n", 10), 10);
	close(fd);
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		argv[0] = (char *)cases[i].command;
		argv[1] = NULL;
		job = spawn(cases[i].name, cases[i].no_shell ? NULL :
		    cases[i].command, cases[i].no_shell ? argv : NULL,
		    cases[i].no_shell, cases[i].timeout_ms);
		if (cases[i].kill) {
			wait_output(job);
			ck_assert_int_eq(jobtable_kill(fx.jt, job, SIGTERM),
			    0);
		}
		wait_end(job);
		ck_assert_msg(strcmp(job_state_name(job_state(job)),
		    cases[i].state) == 0 && job_end_code(job) == cases[i].code,
		    "%s: %s, code %d; not %s, %d", cases[i].name,
		    job_state_name(job_state(job)), job_end_code(job),
		    cases[i].state, cases[i].code);
		doc = doc_of(job, NULL);
		ck_assert_int_eq((int)jsonread_number(jsonread_get(doc,
		    "code")), cases[i].code);
		if (cases[i].exec_error != NULL)
			ck_assert_str_eq(jsonread_text(doc, "exec_error"),
			    cases[i].exec_error);
		jsonread_free(doc);
		ck_assert_str_eq(text_of(job, JOBFIELD_EXIT), cases[i].exit);

		read_meta(job, &m);
		ck_assert_str_eq(m.state, cases[i].state);
		ck_assert_int_eq(jobfield_stored_code(&m), cases[i].code);
		doc = doc_of(NULL, &m);
		ck_assert_int_eq((int)jsonread_number(jsonread_get(doc,
		    "code")), cases[i].code);
		jsonread_free(doc);
		store_meta_clear(&m);
	}
}
END_TEST

/*
 * Ends without a run: a job whose dependency failed, and one canceled
 * while it waited, never ran (125); their ends say so in text too.
 */
START_TEST(test_codes_never_ran)
{
	struct jsonread	*doc;
	struct job	*dep, *held;

	dep = spawn("dep", "echo never", NULL, 0, 0);
	held = spawn("held", "echo never", NULL, 0, 0);
	ck_assert_int_eq(job_end_code(held), -1);
	ck_assert_str_eq(text_of(held, JOBFIELD_PID), "-");
	ck_assert_str_eq(text_of(held, JOBFIELD_EXIT), "-");
	doc = doc_of(held, NULL);
	ck_assert_str_eq(jsonread_text(doc, "state"), "waiting");
	ck_assert_str_eq(jsonread_text(doc, "waiting_for"), "db (ready)");
	ck_assert(is_null(doc, "code"));
	ck_assert(is_null(doc, "pid"));
	ck_assert(is_null(doc, "started_at"));
	jsonread_free(doc);
	ck_assert_int_eq(jobtable_kill(fx.jt, held, SIGTERM), 0);
	wait_end(dep);
	wait_end(held);
	ck_assert_int_eq(job_end_code(dep), 125);
	ck_assert_ptr_nonnull(job_start_error(dep));
	ck_assert_str_eq(job_state_name(job_state(held)), "canceled");
	ck_assert_int_eq(job_end_code(held), 125);
	doc = doc_of(held, NULL);
	ck_assert_int_eq((int)jsonread_number(jsonread_get(doc, "code")),
	    125);
	ck_assert(is_null(doc, "exit_code"));
	ck_assert(is_null(doc, "signal"));
	jsonread_free(doc);
	ck_assert_str_eq(text_of(held, JOBFIELD_EXIT), "-");
}
END_TEST

/*
 * A stored run's object: what the store keeps, in the live job's names
 * and forms (ISO times), its deck too; a lost run has no code.
 */
START_TEST(test_json_stored)
{
	struct store_meta	 m;
	struct jsonread		*doc;
	struct job		*job;
	char			*s;

	job = spawn("web", "echo hi", NULL, 0, 0);
	wait_end(job);
	read_meta(job, &m);
	doc = doc_of(NULL, &m);
	ck_assert_str_eq(jsonread_text(doc, "run"), job_run_id(job));
	ck_assert_str_eq(jsonread_text(doc, "deck"), store_deck(fx.store));
	assert_job(doc, job, "echo hi", "completed");
	assert_iso(jsonread_text(doc, "ended_at"));
	ck_assert_int_eq((int)jsonread_number(jsonread_get(doc,
	    "exit_code")), 0);
	ck_assert(is_null(doc, "signal"));
	ck_assert_int_eq((int)jsonread_number(jsonread_get(doc, "code")), 0);
	/* What the store does not keep is not made up. */
	ck_assert_ptr_null(jsonread_get(doc, "duration_ms"));
	ck_assert_ptr_null(jsonread_get(doc, "started_ms"));
	jsonread_free(doc);
	s = jobfield_text_stored(&m, JOBFIELD_LABEL);
	ck_assert_str_eq(s, "web: echo hi");
	free(s);
	s = jobfield_text_stored(&m, JOBFIELD_EXIT);
	ck_assert_str_eq(s, "0");
	free(s);

	free(m.state);
	m.state = strdup("lost");
	ck_assert_int_eq(jobfield_stored_code(&m), -1);
	doc = doc_of(NULL, &m);
	ck_assert(is_null(doc, "code"));
	jsonread_free(doc);
	store_meta_clear(&m);
}
END_TEST

/*
 * Text forms: !status lines (a label padded to JOBFIELD_LINE_LABEL), "-"
 * for nothing, the state with what it waits to read, the label escaped,
 * and a table of a view.
 */
START_TEST(test_text)
{
	static const struct jobfield_col view[] = {
		{ JOBFIELD_ID, "ID", 0 },
		{ JOBFIELD_STATE, "STATE", 0 },
		{ JOBFIELD_EXIT, "EXIT", 0 },
		{ JOBFIELD_LABEL, "COMMAND", 0 },
	};
	static const struct jobfield_col id_line = { JOBFIELD_ID, "id", 0 };
	static const struct jobfield_col name_line = { JOBFIELD_NAME, "name",
	    0 };
	static const struct jobfield_col state_line = { JOBFIELD_STATE_INPUT,
	    "state", 0 };
	struct texttable	 *t;
	struct job		 *job, *odd;
	char			**lines, *s, want[64];
	int			  n, i;

	job = spawn(NULL, "echo up; sleep 30", NULL, 0, 0);
	wait_output(job);
	s = jobfield_line(job, &id_line);
	snprintf(want, sizeof want, "id:       %d", job_id(job));
	ck_assert_str_eq(s, want);
	free(s);
	s = jobfield_line(job, &name_line);
	ck_assert_str_eq(s, "name:     -");
	free(s);
	job_set_input_wait(job, TTYWAIT_PASSWORD);
	s = jobfield_line(job, &state_line);
	ck_assert_str_eq(s, "state:    running, waiting for password");
	free(s);
	job_set_input_wait(job, TTYWAIT_NONE);
	snprintf(want, sizeof want, "%ld", (long)job_pid(job));
	ck_assert_str_eq(text_of(job, JOBFIELD_PID), want);
	ck_assert_str_eq(text_of(job, JOBFIELD_CODE), "-");
	ck_assert_str_eq(text_of(job, JOBFIELD_PTY), "yes");
	ck_assert_str_eq(text_of(job, JOBFIELD_DURATION_MS), "0m 00s");

	/* The label: what a terminal would obey is escaped. */
	odd = spawn("odd", "printf 'x\ty'", NULL, 0, 0);
	s = jobfield_label(odd, 0);
	ck_assert_str_eq(s, "odd: printf 'x\\ty'");
	free(s);
	s = jobfield_label(odd, 1);
	ck_assert_str_eq(s, "odd");
	free(s);
	wait_end(odd);

	t = jobfield_table_new(view, sizeof view / sizeof view[0]);
	jobfield_table_add(t, view, sizeof view / sizeof view[0], job);
	jobfield_table_add(t, view, sizeof view / sizeof view[0], odd);
	lines = texttable_lines(t, 0, &n);
	ck_assert_int_eq(n, 3);
	ck_assert_str_eq(lines[0], "ID  STATE      EXIT  COMMAND");
	snprintf(want, sizeof want, "%-2d  running    -     echo up; sleep 30",
	    job_id(job));
	ck_assert_str_eq(lines[1], want);
	snprintf(want, sizeof want, "%-2d  completed  0     odd: printf",
	    job_id(odd));
	ck_assert_msg(strncmp(lines[2], want, strlen(want)) == 0, "%s",
	    lines[2]);
	for (i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	texttable_free(t);
}
END_TEST

/* The suite. */
static Suite *
jobfield_suite(void)
{
	Suite	*s = suite_create("jobfield");
	TCase	*tc = tcase_create("fields");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_json_live);
	tcase_add_test(tc, test_json_host);
	tcase_add_test(tc, test_timer_fields);
	tcase_add_test(tc, test_codes);
	tcase_add_test(tc, test_codes_never_ran);
	tcase_add_test(tc, test_json_stored);
	tcase_add_test(tc, test_text);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the jobfield suite; exit 0 when every test passed. */
int
main(void)
{
	SRunner	*sr;
	int	 failed;

	sr = srunner_create(jobfield_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
