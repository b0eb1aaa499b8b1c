/*
 * check_cmdsink.c: commands that go on after they return (CMD_RETURN_WAIT)
 * as tasks on a recording sink (cmdsink.h), with a real loop, a real job
 * table and store and real child processes: !wait answers when its jobs
 * end, at its time limit and when the deck stops it; !grep writes the
 * matches in order, holds off while the sink is stalled and goes on when
 * it drains; logs --follow writes what the job printed, logged or not,
 * then ends with the job's code; logs writes its lines (text, JSON) and
 * ends without a code; a face that refuses the task, or has no sink,
 * gets the command's error; a sink whose peer goes away frees the task
 * (no leak, no write, no timer left: see SANITIZE=1).
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "cmdsink.h"
#include "job.h"
#include "jobtable.h"
#include "loop.h"
#include "session.h"
#include "store.h"
#include "testdeck.h"
#include "waitstatus.h"
#include "xmalloc.h"

static char *const test_env[] = {
	"PATH=/usr/bin:/bin", "LC_ALL=C", "HOME=/", NULL
};

#define MAX_REC		64
#define LIMIT_MS	10000	/* generous: the machine may be busy */

/* What the sink and the client were told, and the objects under test. */
struct rec {
	char		 dir[64];
	struct loop	*loop;
	struct jobtable	*jt;
	struct store	*store;
	struct session	*session;
	struct cmd_tasks *tasks;
	struct cmd_sink	 sink;
	struct cmd_ctx	 ctx;

	char		*out[MAX_REC];	/* "T:" text, "J:" JSON, "C:" control, */
					/*   "R:" raw */
	int		 nout;
	char		*error;		/* the command's last error */
	int		 refuse;	/* open refuses */
	int		 opens;
	int		 stalled;	/* the sink says it is stalled */
	int		 stalls;	/* ... asked while stalled */
	int		 ndone;
	int		 code;
	int		 fired;		/* fired_cb() ran */
	int		 pushed;	/* the task pushes (on) */
	int		 pushes;	/* ... said on */
	int		 readies;	/* the task said it has output */
} rec;

/* Keep a line of output with its kind. */
static void
rec_out(const char *kind, const char *s, size_t len)
{
	ck_assert_int_lt(rec.nout, MAX_REC);
	rec.out[rec.nout++] = xprintf("%s%.*s", kind, (int)len, s);
}

/* The sink's open: accept, or refuse when told to. */
static int
rec_open(void *arg, char **cause)
{
	(void)arg;
	rec.opens++;
	if (rec.refuse) {
		*cause = xstrdup("too many streams");
		return -1;
	}
	return 0;
}

/* Keep what the task wrote, as kind; never after its end. */
static void
rec_write(const char *kind, const char *s, size_t len)
{
	ck_assert_int_eq(rec.ndone, 0);
	rec_out(kind, s, len);
}

/* The sink's text line. */
static void
rec_text(const char *s, size_t len, void *arg)
{
	(void)arg;
	rec_write("T:", s, len);
}

/* The sink's JSON document. */
static void
rec_json(const char *s, size_t len, void *arg)
{
	(void)arg;
	rec_write("J:", s, len);
}

/* The sink's bytes. */
static void
rec_raw(const char *s, size_t len, void *arg)
{
	(void)arg;
	rec_write("R:", s, len);
}

/* The task pushes what jobs print, or no longer. */
static void
rec_pushed(int on, void *arg)
{
	(void)arg;
	rec.pushed = on;
	rec.pushes += on;
}

/* The task has output to pull. */
static void
rec_ready(void *arg)
{
	(void)arg;
	rec.readies++;
}

/* The sink's control line. */
static void
rec_control(const char *word, const char *text, void *arg)
{
	char	*s;

	(void)arg;
	s = xprintf("%s %s", word, text);
	rec_out("C:", s, strlen(s));
	free(s);
}

/* The sink's stall. */
static int
rec_stalled(void *arg)
{
	(void)arg;
	if (rec.stalled)
		rec.stalls++;
	return rec.stalled;
}

/* The sink's end. */
static void
rec_done(int code, void *arg)
{
	(void)arg;
	rec.ndone++;
	rec.code = code;
}

static const struct cmd_sink_ops rec_sink_ops = {
	.open = rec_open,
	.text = rec_text,
	.json = rec_json,
	.raw = rec_raw,
	.control = rec_control,
	.stalled = rec_stalled,
	.pushed = rec_pushed,
	.ready = rec_ready,
	.done = rec_done,
};

/* The client's error: kept. */
static void
rec_error(const char *msg, void *arg)
{
	(void)arg;
	free(rec.error);
	rec.error = xstrdup(msg);
}

static const struct cmd_client rec_client = {
	.error = rec_error,
};

/* A loop, a job table with a store, a session, a tasks hub and a sink. */
static void
setup(void)
{
	memset(&rec, 0, sizeof rec);
	strcpy(rec.dir, "/tmp/check_cmdsink.XXXXXX");
	testdeck_open(rec.dir, &rec.loop, &rec.jt, &rec.store);
	rec.session = session_new(test_env);
	rec.tasks = cmd_tasks_new(rec.jt, rec.loop);
	cmd_sink_init(&rec.sink, rec.tasks, &rec_sink_ops, NULL);
	rec.ctx.jt = rec.jt;
	rec.ctx.session = rec.session;
	rec.ctx.client = &rec_client;
	rec.ctx.sink = &rec.sink;
}

/* Let the sink go, kill what is left and free everything. */
static void
teardown(void)
{
	char	cmd[128];
	int	i;

	cmd_sink_gone(&rec.sink);
	cmd_tasks_free(rec.tasks);
	for (i = 0; i < jobtable_count(rec.jt); i++)
		job_signal(jobtable_get(rec.jt, i), SIGKILL);
	jobtable_free(rec.jt);
	store_free(rec.store);
	loop_free(rec.loop);
	session_free(rec.session);
	for (i = 0; i < rec.nout; i++)
		free(rec.out[i]);
	free(rec.error);
	jobtable_kill_strays();
	snprintf(cmd, sizeof cmd, "rm -rf %s", rec.dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", rec.dir);
}

/* Run a command line's words (split as the socket does); its retval. */
static enum cmd_retval
run(const char *line)
{
	enum cmd_retval	  rv;
	char		**argv, *cause = NULL;
	int		  argc;

	ck_assert_msg(session_split(rec.session, line, &argc, &argv,
	    &cause) == 0, "%s: %s", line, cause);
	rv = cmd_execute(&rec.ctx, argc, argv);
	session_split_free(argc, argv);
	return rv;
}

/* Run a command that must become a task, and start it as a face does. */
static void
run_task(const char *line)
{
	enum cmd_retval	rv;

	rv = run(line);
	ck_assert_msg(rv == CMD_RETURN_WAIT, "%s: retval %d, error %s", line,
	    rv, rec.error != NULL ? rec.error : "none");
	ck_assert(cmd_sink_busy(&rec.sink));
	cmd_sink_start(&rec.sink);
}

/*
 * Turn the loop until the task is done (at most LIMIT_MS), pulling its
 * output as a face does while it has more, a bounded fill a turn.
 */
static void
wait_task_done(void)
{
	int64_t	end = loop_now_ms() + LIMIT_MS;
	size_t	budget;

	while (rec.ndone == 0) {
		ck_assert_msg(loop_now_ms() < end, "the task did not end");
		if (cmd_sink_more(&rec.sink)) {
			budget = 4096;
			cmd_sink_fill(&rec.sink, &budget);
			continue;
		}
		loop_run_once(rec.loop, 20);
	}
	ck_assert_int_eq(rec.ndone, 1);
	ck_assert(!cmd_sink_busy(&rec.sink));
}

/* Turn the loop until job has ended and its output is closed. */
static void
wait_job_done(struct job *job)
{
	int64_t	end = loop_now_ms() + LIMIT_MS;

	while (job_is_running(job) || job_out_fd(job) != -1) {
		ck_assert_msg(loop_now_ms() < end, "job %d did not end",
		    job_id(job));
		loop_run_once(rec.loop, 20);
	}
}

/* Start a job from a command line. */
static struct job *
start(const char *command)
{
	struct job	*job;

	job = cmd_start_job(&rec.ctx, command, NULL);
	ck_assert_msg(job != NULL, "%s: %s", command,
	    rec.error != NULL ? rec.error : "?");
	return job;
}

/* Start a job and a task (line) that waits on it: nothing written yet. */
static struct job *
start_waiting(const char *command, const char *line)
{
	struct job	*job;

	job = start(command);
	run_task(line);
	ck_assert_int_eq(rec.ndone, 0);
	ck_assert_int_eq(rec.nout, 0);
	return job;
}

/* wait answers when its job ends: its line and the policy's code. */
START_TEST(test_wait_job_ends)
{
	struct job	*job;
	char		 line[64];

	job = start_waiting("sleep 0.2; exit 3", "wait 1");
	wait_task_done();
	ck_assert(!job_is_running(job));
	ck_assert_int_eq(rec.code, 3);
	ck_assert_int_eq(rec.nout, 1);
	snprintf(line, sizeof line, "T:[%d] sleep 0.2; exit 3: failed (exit 3)",
	    job_id(job));
	ck_assert_str_eq(rec.out[0], line);
}
END_TEST

/*
 * wait on two jobs: the code is the first failure's in the order they
 * ended, the lines in the order given; --json an array of job objects.
 */
START_TEST(test_wait_two_json)
{
	struct job	*a, *b;

	a = start("sleep 0.3; exit 4");
	b = start("exit 5");
	wait_job_done(b);
	rec.ctx.json = 1;
	run_task("wait 1 2");
	wait_task_done();
	ck_assert(!job_is_running(a));
	ck_assert_int_eq(rec.code, 5);
	ck_assert_int_eq(rec.nout, 1);
	ck_assert_msg(strncmp(rec.out[0], "J:[{", 4) == 0, "%s", rec.out[0]);
	ck_assert_msg(strstr(rec.out[0], "},{") != NULL, "%s", rec.out[0]);
	ck_assert_int_eq(rec.out[0][strlen(rec.out[0]) - 1], ']');
}
END_TEST

/* wait's time limit: the live job as it stands, 124. */
START_TEST(test_wait_timeout)
{
	struct job	*job;
	char		 line[80];

	job = start("sleep 30");
	run_task("wait --timeout 0.05 1");
	wait_task_done();
	ck_assert(job_is_running(job));
	ck_assert_int_eq(rec.code, WAITSTATUS_TIMED_OUT);
	snprintf(line, sizeof line, "T:[%d] sleep 30: running (the wait timed "
	    "out)", job_id(job));
	ck_assert_int_eq(rec.nout, 1);
	ck_assert_str_eq(rec.out[0], line);
}
END_TEST

/* The face stops a wait (the deck quits): it answers at once, 125. */
START_TEST(test_wait_stop)
{
	struct job	*job;
	char		 line[80];

	job = start_waiting("sleep 30", "wait 1");
	cmd_sink_stop(&rec.sink, "the deck quit");
	ck_assert_int_eq(rec.ndone, 1);
	ck_assert_int_eq(rec.code, WAITSTATUS_NOT_RUN);
	snprintf(line, sizeof line, "T:[%d] sleep 30: running (the deck quit)",
	    job_id(job));
	ck_assert_str_eq(rec.out[0], line);
	ck_assert(!cmd_sink_busy(&rec.sink));
}
END_TEST

/*
 * A job of a wait leaves the table before the other ends: how it ended is
 * kept, and the wait answers once the other ends.
 */
START_TEST(test_wait_removed)
{
	struct job	*a, *b;
	char		*cause = NULL, line[64];
	int		 ida;

	a = start("exit 0");
	b = start("sleep 0.3");
	ida = job_id(a);
	run_task("wait 1 2");
	wait_job_done(a);
	ck_assert_msg(jobtable_remove(rec.jt, a, &cause) == 0, "%s", cause);
	wait_task_done();
	ck_assert(!job_is_running(b));
	ck_assert_int_eq(rec.code, 0);
	ck_assert_int_eq(rec.nout, 2);
	snprintf(line, sizeof line, "T:[%d] exit 0: completed", ida);
	ck_assert_str_eq(rec.out[0], line);
}
END_TEST

/* A timer of the test's: it fired. */
static void
fired_cb(void *arg)
{
	(void)arg;
	rec.fired = 1;
}

/* A sink whose peer goes: the task is freed, writes nothing, ever. */
START_TEST(test_wait_gone)
{
	struct job	*job;

	job = start("sleep 0.2");
	run_task("wait --timeout 0.1 1");
	cmd_sink_gone(&rec.sink);
	ck_assert(!cmd_sink_busy(&rec.sink));
	wait_job_done(job);
	/* Past the wait's timeout and its look after the end: no timer. */
	rec.fired = 0;
	loop_add_timer(rec.loop, 150, fired_cb, NULL);
	while (!rec.fired)
		loop_run_once(rec.loop, 1000);
	ck_assert_int_eq(rec.ndone, 0);
	ck_assert_int_eq(rec.nout, 0);
}
END_TEST

/* A face that refuses the task, and a face without a sink. */
START_TEST(test_wait_refused)
{
	start("sleep 30");
	rec.refuse = 1;
	ck_assert_int_eq(run("wait 1"), CMD_RETURN_ERROR);
	ck_assert_int_eq(rec.opens, 1);
	ck_assert_str_eq(rec.error, "wait: too many streams");
	ck_assert(!cmd_sink_busy(&rec.sink));
	rec.ctx.sink = NULL;
	ck_assert_int_eq(run("wait 1"), CMD_RETURN_ERROR);
	ck_assert_str_eq(rec.error, "wait works only through the control "
	    "socket (jobdeck ctl wait)");
	ck_assert_int_eq(run("wait 9"), CMD_RETURN_ERROR);
	ck_assert_int_eq(run("ps"), CMD_RETURN_NORMAL);
}
END_TEST

/* Start a job that prints text, and wait until it is stored. */
static void
start_printer(const char *text)
{
	struct job	*job;
	char		*command;

	command = xprintf("printf '%s'", text);
	job = start(command);
	free(command);
	wait_job_done(job);
}

/* Return whether a line ends with suffix. */
static int
ends_with(const char *s, const char *suffix)
{
	size_t	n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* grep on a sink: the matches in order, then done 0; no match: 1. */
START_TEST(test_grep_matches)
{
	start_printer("alpha\\nbeta one\\ngamma\\nbeta two\\n");
	run_task("grep beta");
	wait_task_done();
	ck_assert_int_eq(rec.code, 0);
	ck_assert_int_eq(rec.nout, 2);
	ck_assert_msg(strncmp(rec.out[0], "T:", 2) == 0 &&
	    ends_with(rec.out[0], " [1]:2: beta one"), "%s", rec.out[0]);
	ck_assert_msg(ends_with(rec.out[1], " [1]:4: beta two"), "%s",
	    rec.out[1]);
	rec.ndone = 0;
	run_task("grep nowhere");
	wait_task_done();
	ck_assert_int_eq(rec.code, 1);
	ck_assert_int_eq(rec.nout, 2);
}
END_TEST

/* Turn the loop n times (a turn waits 10 ms at most). */
static void
turn(int n)
{
	while (n-- > 0)
		loop_run_once(rec.loop, 10);
}

/* Store text, then start a search on a stalled sink and turn the loop. */
static void
start_held(const char *text, const char *line)
{
	start_printer(text);
	rec.stalled = 1;
	run_task(line);
	turn(5);
}

/*
 * A stalled sink holds the search: turns of the loop find nothing
 * written; once it drains (writable) the search goes on to its end.
 */
START_TEST(test_grep_stalled)
{
	start_held("one match\\n", "grep match");
	ck_assert_int_gt(rec.stalls, 0);
	ck_assert_int_eq(rec.nout, 0);
	ck_assert_int_eq(rec.ndone, 0);
	rec.stalled = 0;
	cmd_sink_writable(&rec.sink);
	wait_task_done();
	ck_assert_int_eq(rec.code, 0);
	ck_assert_int_eq(rec.nout, 1);
	ck_assert_msg(ends_with(rec.out[0], ":1: one match"), "%s",
	    rec.out[0]);
}
END_TEST

/* A held search whose peer goes: freed, its search too. */
START_TEST(test_grep_gone)
{
	start_held("x\\n", "grep x");
	cmd_sink_gone(&rec.sink);
	rec.stalled = 0;
	cmd_sink_writable(&rec.sink);
	turn(5);
	ck_assert_int_eq(rec.nout, 0);
	ck_assert_int_eq(rec.ndone, 0);
}
END_TEST

/* Join what the task wrote as it is (its raw bytes), from out[first]. */
static char *
joined(int first)
{
	struct xbuf	b = { NULL, 0, 0 };
	int		i;

	for (i = first; i < rec.nout; i++) {
		ck_assert_msg(strncmp(rec.out[i], "R:", 2) == 0, "%s",
		    rec.out[i]);
		xbuf_add(&b, rec.out[i] + 2, strlen(rec.out[i] + 2));
	}
	xbuf_add(&b, "", 1);
	return b.s;
}

/*
 * logs --follow of a logged job: what it printed before and after the
 * follow began, in order, then its code; quiet, with its code at the end.
 */
START_TEST(test_follow_logged)
{
	struct job	*job;

	job = start("echo one; sleep 0.3; echo two; exit 4");
	run_task("logs --follow 1");
	ck_assert_int_eq(cmd_sink_flags(&rec.sink),
	    CMD_TASK_CODE | CMD_TASK_QUIET);
	wait_task_done();
	ck_assert(!job_is_running(job));
	ck_assert_int_eq(rec.code, 4);
	ck_assert_int_eq(rec.nout, 2);
	ck_assert_str_eq(rec.out[0], "T:one");
	ck_assert_str_eq(rec.out[1], "T:two");
	ck_assert_int_eq(rec.pushes, 0);
}
END_TEST

/*
 * logs --follow --json of a job that is not logged: its emulator's lines
 * pushed as it prints (the face told), "output" events, then "exited".
 */
START_TEST(test_follow_not_logged)
{
	struct job	*job;
	char		*all;

	jobtable_set_store(rec.jt, NULL);
	job = start("echo one; sleep 0.3; echo two; exit 4");
	rec.ctx.json = 1;
	run_task("logs --follow 1");
	wait_task_done();
	ck_assert(!job_is_running(job));
	ck_assert_int_eq(rec.code, 4);
	ck_assert_int_eq(rec.pushes, 1);
	ck_assert_int_eq(rec.pushed, 0);
	all = joined(0);
	ck_assert_msg(strstr(all, "{\"event\":\"output\",\"id\":1,"
	    "\"text\":\"one\",\"stream\":\"stdout\"}\n") == all, "%s", all);
	ck_assert_msg(strstr(all, "\"text\":\"two\"") != NULL, "%s", all);
	ck_assert_msg(strstr(all, "{\"event\":\"exited\",\"id\":1,") !=
	    NULL, "%s", all);
	free(all);
	jobtable_set_store(rec.jt, rec.store);
}
END_TEST

/* logs of an ended job: its lines, no code; --json the whole object. */
START_TEST(test_logs_lines)
{
	char	*all;

	start_printer("alpha\\nbeta\\n");
	run_task("logs 1");
	ck_assert_int_eq(cmd_sink_flags(&rec.sink), 0);
	wait_task_done();
	ck_assert_int_eq(rec.code, -1);
	ck_assert_int_eq(rec.nout, 2);
	ck_assert_str_eq(rec.out[0], "T:alpha");
	ck_assert_str_eq(rec.out[1], "T:beta");
	rec.ndone = 0;
	rec.ctx.json = 1;
	run_task("logs 1");
	wait_task_done();
	ck_assert_int_eq(rec.code, -1);
	all = joined(2);
	ck_assert_str_eq(all, "{\"id\":1,\"dropped\":0,\"lines\":"
	    "[\"alpha\",\"beta\"]}\n");
	free(all);
}
END_TEST

/* A follow whose peer goes: freed, and the job's end tells it nothing. */
START_TEST(test_follow_gone)
{
	struct job	*job;

	job = start("sleep 0.2; echo late");
	run_task("logs --follow 1");
	cmd_sink_gone(&rec.sink);
	wait_job_done(job);
	ck_assert_int_eq(rec.ndone, 0);
	ck_assert_int_eq(rec.nout, 0);
}
END_TEST

/* The suite. */
static Suite *
cmdsink_suite(void)
{
	Suite	*s = suite_create("cmdsink");
	TCase	*tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_wait_job_ends);
	tcase_add_test(tc, test_wait_two_json);
	tcase_add_test(tc, test_wait_timeout);
	tcase_add_test(tc, test_wait_stop);
	tcase_add_test(tc, test_wait_removed);
	tcase_add_test(tc, test_wait_gone);
	tcase_add_test(tc, test_wait_refused);
	tcase_add_test(tc, test_grep_matches);
	tcase_add_test(tc, test_grep_stalled);
	tcase_add_test(tc, test_grep_gone);
	tcase_add_test(tc, test_follow_logged);
	tcase_add_test(tc, test_follow_not_logged);
	tcase_add_test(tc, test_logs_lines);
	tcase_add_test(tc, test_follow_gone);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite. */
int
main(void)
{
	SRunner	*sr = srunner_create(cmdsink_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
