/*
 * check_jobevent.c: a job's events as JSON lines (jobevent.h), read back
 * with the test's JSON reader and compared whole: "output" events of
 * store lines (number, stream, partial) and of text (no number), an
 * event begun and ended by hand, and "exited" of a real job that ended.
 */
#include <sys/prctl.h>

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "jobevent.h"
#include "jobtable.h"
#include "json.h"
#include "jsonread.h"
#include "loop.h"
#include "store.h"
#include "xmalloc.h"

static char *const test_env[] = {
	"PATH=/usr/bin:/bin", "LC_ALL=C", "HOME=/", NULL
};

#define WAIT_MS	10000	/* generous: the machine may be busy */

/* Output events of store lines: numbered from 1, stream, partial. */
START_TEST(test_output_store)
{
	struct store_line	sl[2];
	struct xbuf		b = { NULL, 0, 0 };

	memset(sl, 0, sizeof sl);
	sl[0].no = 0;
	sl[0].stream = STORE_TTY;
	sl[0].text = "hello \"you\"";
	sl[0].len = strlen(sl[0].text);
	sl[1].no = 6;
	sl[1].stream = STORE_STDERR;
	sl[1].text = "half";
	sl[1].len = 4;
	sl[1].partial = 1;
	jobevent_output_store(&b, 7, sl, 2);
	xbuf_add(&b, "", 1);
	ck_assert_str_eq(b.s,
	    "{\"event\":\"output\",\"id\":7,\"text\":\"hello \\\"you\\\"\","
	    "\"line\":1,\"stream\":\"stdout\"}\n"
	    "{\"event\":\"output\",\"id\":7,\"text\":\"half\",\"line\":7,"
	    "\"stream\":\"stderr\",\"partial\":true}\n");
	xbuf_clear(&b);
	jobevent_output_store(&b, 7, sl, 0);
	ck_assert_uint_eq(b.len, 0);
}
END_TEST

/* Output events of text lines: no line numbers, stdout. */
START_TEST(test_output_lines)
{
	char		*lines[] = { "a", "b\tc" };
	struct xbuf	 b = { NULL, 0, 0 };

	jobevent_output_lines(&b, 3, lines, 2);
	xbuf_add(&b, "", 1);
	ck_assert_str_eq(b.s,
	    "{\"event\":\"output\",\"id\":3,\"text\":\"a\","
	    "\"stream\":\"stdout\"}\n"
	    "{\"event\":\"output\",\"id\":3,\"text\":\"b\\tc\","
	    "\"stream\":\"stdout\"}\n");
	xbuf_clear(&b);
}
END_TEST

/* An event begun and ended: one line, its length told. */
START_TEST(test_begin_end)
{
	struct json_buf	 jb;
	char		*line;
	size_t		 len;

	jobevent_begin(&jb, "removed", 12);
	line = jobevent_end(&jb, &len);
	ck_assert_str_eq(line, "{\"event\":\"removed\",\"id\":12}\n");
	ck_assert_uint_eq(len, strlen(line));
	free(line);
}
END_TEST

/* "exited" of a real job: its exit code and state. */
START_TEST(test_exited)
{
	struct jsonread	*doc;
	struct loop	*loop;
	struct jobtable	*jt;
	struct job_spec	 spec;
	struct job	*job;
	char		*cause = NULL, *line;
	size_t		 len;
	int64_t		 end;

	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	loop = loop_new();
	jt = jobtable_new(loop);
	memset(&spec, 0, sizeof spec);
	spec.command = "exit 3";
	spec.shell = "/bin/sh";
	spec.cwd = "/";
	spec.envp = test_env;
	job = jobtable_spawn(jt, &spec, &cause);
	ck_assert_msg(job != NULL, "spawn: %s", cause);
	end = loop_now_ms() + WAIT_MS;
	while (jobtable_is_live(jt, job) || job_end_code(job) < 0) {
		ck_assert_msg(loop_now_ms() < end, "the job did not end");
		loop_run_once(loop, 20);
	}
	line = jobevent_exited(job, &len);
	ck_assert_uint_eq(len, strlen(line));
	ck_assert_int_eq(line[len - 1], '\n');
	doc = jsonread_parse(line, len, &cause);
	ck_assert_msg(doc != NULL, "%s: %s", line, cause);
	ck_assert_str_eq(jsonread_text(doc, "event"), "exited");
	ck_assert_int_eq((int)jsonread_number(jsonread_get(doc, "id")),
	    job_id(job));
	ck_assert_int_eq((int)jsonread_number(jsonread_get(doc,
	    "exit_code")), 3);
	ck_assert_str_eq(jsonread_text(doc, "state"), "failed");
	jsonread_free(doc);
	free(line);
	jobtable_free(jt);
	loop_free(loop);
}
END_TEST

/* The suite. */
static Suite *
jobevent_suite(void)
{
	Suite	*s = suite_create("jobevent");
	TCase	*tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_output_store);
	tcase_add_test(tc, test_output_lines);
	tcase_add_test(tc, test_begin_end);
	tcase_add_test(tc, test_exited);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite. */
int
main(void)
{
	SRunner	*sr = srunner_create(jobevent_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
