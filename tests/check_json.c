/*
 * check_json.c: tests for the JSON writer (src/json.c) and the tests' own
 * reader (tests/jsonread.c): string escapes, invalid UTF-8 replaced per
 * maximal subpart, nesting and commas, numbers, misuse, and random strings
 * written by one and read back by the other.
 */
#include <check.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "jsonread.h"

/* One string case: bytes in, the JSON text expected out. */
struct string_case {
	const char	*in;
	size_t		 len;		/* 0: strlen(in) */
	const char	*want;
};

#define FFFD	"\xef\xbf\xbd"

static const struct string_case string_cases[] = {
	{ "", 0, "\"\"" },
	{ "hi", 0, "\"hi\"" },
	{ "a\"b\\c/d", 0, "\"a\\\"b\\\\c/d\"" },
	{ "\n\t\r\b\f", 0, "\"\\n\\t\\r\\b\\f\"" },
	{ "\x01\x1f\x1b[0m", 0, "\"\\u0001\\u001f\\u001b[0m\"" },
	{ "a\0b", 3, "\"a\\u0000b\"" },
	{ "\x7f", 0, "\"\x7f\"" },
	{ "caf\xc3\xa9", 0, "\"caf\xc3\xa9\"" },
	{ "\xe2\x82\xac \xf0\x9f\x98\x80", 0,
	  "\"\xe2\x82\xac \xf0\x9f\x98\x80\"" },
	{ "\xef\xbf\xbf\xf4\x8f\xbf\xbf", 0,
	  "\"\xef\xbf\xbf\xf4\x8f\xbf\xbf\"" },
	{ "\xe2\x80\xa8", 0, "\"\xe2\x80\xa8\"" },	/* U+2028 is valid */
	/* Invalid UTF-8: one U+FFFD per maximal invalid subpart. */
	{ "\xff", 0, "\"" FFFD "\"" },
	{ "\x80", 0, "\"" FFFD "\"" },
	{ "\xf5\xf8\xfe", 0, "\"" FFFD FFFD FFFD "\"" },
	{ "\xc0\xaf", 0, "\"" FFFD FFFD "\"" },			/* overlong */
	{ "\xe0\x80\xaf", 0, "\"" FFFD FFFD FFFD "\"" },	/* overlong */
	{ "\xf0\x80\x80\xaf", 0, "\"" FFFD FFFD FFFD FFFD "\"" },
	{ "\xed\xa0\x80", 0, "\"" FFFD FFFD FFFD "\"" },	/* surrogate */
	{ "\xf4\x90\x80\x80", 0, "\"" FFFD FFFD FFFD FFFD "\"" },
	{ "\xe2\x82", 0, "\"" FFFD "\"" },			/* truncated */
	{ "\xe2\x82" "a", 0, "\"" FFFD "a\"" },
	{ "\xf0\x9f\x98", 0, "\"" FFFD "\"" },
	{ "a\xc3", 0, "\"a" FFFD "\"" },
	{ "\xc3\xa9\xff\xc3\xa9", 0, "\"\xc3\xa9" FFFD "\xc3\xa9\"" },
	{ "\xc3\n", 0, "\"" FFFD "\\n\"" },
	/* Unicode 15, table 3-8. */
	{ "\x61\xf1\x80\x80\xe1\x80\xc2\x62\x80\x63\x80\xbf\x64", 0,
	  "\"a" FFFD FFFD FFFD "b" FFFD "c" FFFD FFFD "d\"" },
};

START_TEST(test_string_cases)
{
	const struct string_case	*c = &string_cases[_i];
	struct json_buf			 jb;
	struct jsonread			*v;
	size_t				 len = c->len != 0 ? c->len :
					     strlen(c->in);
	char				*cause = NULL;

	json_init(&jb);
	json_put_stringn(&jb, c->in, len);
	ck_assert_msg(strcmp(jb.data, c->want) == 0, "case %d: got %s",
	    _i, jb.data);
	ck_assert_uint_eq(jb.len, strlen(c->want));
	v = jsonread_parse(jb.data, jb.len, &cause);
	ck_assert_msg(v != NULL, "case %d: %s", _i, cause);
	ck_assert_int_eq(jsonread_type(v), JSONREAD_STRING);
	jsonread_free(v);
	json_clear(&jb);
}
END_TEST

START_TEST(test_string_null_and_key_escapes)
{
	struct json_buf	 jb;
	char		*text;
	size_t		 len;

	json_init(&jb);
	json_object_begin(&jb);
	json_key(&jb, "a\"\n\xff");
	json_put_string(&jb, NULL);
	json_key(&jb, "s");
	json_put_string(&jb, "x");
	json_object_end(&jb);
	text = json_finish(&jb, &len);
	ck_assert_str_eq(text, "{\"a\\\"\\n" FFFD "\":null,\"s\":\"x\"}");
	ck_assert_uint_eq(len, strlen(text));
	free(text);

	/* An array of strings, a NULL one as null; none: []. */
	{
		char	*words[] = { "a", NULL, "b\"" };

		json_object_begin(&jb);
		json_key(&jb, "l");
		json_put_strings(&jb, words, 3);
		json_key(&jb, "e");
		json_put_strings(&jb, words, 0);
		json_object_end(&jb);
		text = json_finish(&jb, NULL);
		ck_assert_str_eq(text,
		    "{\"l\":[\"a\",null,\"b\\\"\"],\"e\":[]}");
		free(text);
	}

	/* The buffer starts again, empty, after json_finish(). */
	ck_assert_uint_eq(jb.len, 0);
	json_put_bool(&jb, 1);
	ck_assert_str_eq(jb.data, "true");
	json_clear(&jb);
}
END_TEST

START_TEST(test_nesting)
{
	struct json_buf	 jb;

	json_init(&jb);
	json_object_begin(&jb);
	json_key(&jb, "a");
	json_array_begin(&jb);
	json_put_int(&jb, 1);
	json_put_int(&jb, 2);
	json_object_begin(&jb);
	json_key(&jb, "b");
	json_put_null(&jb);
	json_object_end(&jb);
	json_array_begin(&jb);
	json_array_end(&jb);
	json_array_end(&jb);
	json_key(&jb, "c");
	json_object_begin(&jb);
	json_object_end(&jb);
	json_key(&jb, "d");
	json_array_begin(&jb);
	json_array_begin(&jb);
	json_put_bool(&jb, 0);
	json_array_end(&jb);
	json_put_string(&jb, "");
	json_array_end(&jb);
	json_key(&jb, "e");
	json_put_bool(&jb, 1);
	json_object_end(&jb);
	ck_assert_str_eq(jb.data, "{\"a\":[1,2,{\"b\":null},[]],\"c\":{},"
	    "\"d\":[[false],\"\"],\"e\":true}");
	json_clear(&jb);
}
END_TEST

START_TEST(test_deep_nesting)
{
	struct json_buf	 jb;
	struct jsonread	*v;
	const struct jsonread *p;
	char		*cause = NULL;
	int		 i;

	json_init(&jb);
	for (i = 0; i < 300; i++)
		json_array_begin(&jb);
	json_put_int(&jb, 7);
	for (i = 0; i < 300; i++)
		json_array_end(&jb);
	v = jsonread_parse(jb.data, jb.len, &cause);
	ck_assert_msg(v != NULL, "%s", cause);
	for (p = v, i = 0; i < 300; i++)
		p = jsonread_index(p, 0);
	ck_assert_int_eq(jsonread_type(p), JSONREAD_NUMBER);
	ck_assert(jsonread_number(p) == 7);
	jsonread_free(v);
	json_clear(&jb);
}
END_TEST

/* One integer case. */
static const struct {
	int64_t		 v;
	const char	*want;
} int_cases[] = {
	{ 0, "0" },
	{ -1, "-1" },
	{ 300000, "300000" },
	{ INT64_MAX, "9223372036854775807" },
	{ INT64_MIN, "-9223372036854775808" },
};

START_TEST(test_int_cases)
{
	struct json_buf	jb;

	json_init(&jb);
	json_put_int(&jb, int_cases[_i].v);
	ck_assert_str_eq(jb.data, int_cases[_i].want);
	json_clear(&jb);
}
END_TEST

/* One double case: want NULL means "reads back as exactly v". */
static const struct {
	double		 v;
	const char	*want;
} double_cases[] = {
	{ 0.5, "0.5" },
	{ 0.1, "0.1" },
	{ 1.5, "1.5" },
	{ -2, "-2" },
	{ 1e300, "1e+300" },
	{ 1e-7, "1e-07" },
	{ 1.0 / 3, "0.3333333333333333" },
	{ 123456789012345678.0, "1.2345678901234568e+17" },
	{ 5e-324, NULL },
	{ 1.7976931348623157e308, NULL },
	{ 0.30000000000000004, NULL },
};

START_TEST(test_double_cases)
{
	struct json_buf	 jb;
	struct jsonread	*v;
	char		*cause = NULL;
	double		 d = double_cases[_i].v;

	json_init(&jb);
	json_put_double(&jb, d);
	if (double_cases[_i].want != NULL)
		ck_assert_str_eq(jb.data, double_cases[_i].want);
	ck_assert_msg(strtod(jb.data, NULL) == d, "%s", jb.data);
	v = jsonread_parse(jb.data, jb.len, &cause);
	ck_assert_msg(v != NULL, "%s: %s", jb.data, cause);
	ck_assert(jsonread_number(v) == d);
	jsonread_free(v);
	json_clear(&jb);
}
END_TEST

START_TEST(test_double_special)
{
	struct json_buf	jb;

	json_init(&jb);
	json_array_begin(&jb);
	json_put_double(&jb, NAN);
	json_put_double(&jb, INFINITY);
	json_put_double(&jb, -INFINITY);
	json_put_double(&jb, -0.0);
	json_put_double(&jb, 3);
	json_array_end(&jb);
	ck_assert_str_eq(jb.data, "[null,null,null,-0,3]");
	json_clear(&jb);

	/* A locale with a decimal comma changes nothing (when installed). */
	if (setlocale(LC_NUMERIC, "de_DE.UTF-8") != NULL ||
	    setlocale(LC_NUMERIC, "fr_FR.UTF-8") != NULL) {
		json_init(&jb);
		json_put_double(&jb, 0.25);
		setlocale(LC_NUMERIC, "C");
		ck_assert_str_eq(jb.data, "0.25");
		json_clear(&jb);
	}
}
END_TEST

/* Send this test's stderr (fatal()'s message) to /dev/null. */
static void
quiet(void)
{
	ck_assert_ptr_nonnull(freopen("/dev/null", "w", stderr));
}

/* A misuse of the writer: each is a broken invariant and aborts. */
START_TEST(test_misuse_value_without_key)
{
	struct json_buf	jb;

	quiet();
	json_init(&jb);
	json_object_begin(&jb);
	json_put_int(&jb, 1);
}
END_TEST

START_TEST(test_misuse_mismatched_end)
{
	struct json_buf	jb;

	quiet();
	json_init(&jb);
	json_array_begin(&jb);
	json_object_end(&jb);
}
END_TEST

START_TEST(test_misuse_two_top_values)
{
	struct json_buf	jb;

	quiet();
	json_init(&jb);
	json_put_null(&jb);
	json_put_null(&jb);
}
END_TEST

START_TEST(test_misuse_unfinished)
{
	struct json_buf	jb;

	quiet();
	json_init(&jb);
	json_object_begin(&jb);
	json_key(&jb, "k");
	free(json_finish(&jb, NULL));
}
END_TEST

/* A small deterministic generator, so failures repeat. */
static uint32_t
rnd(uint32_t *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 8;
}

/* Append code point cp as UTF-8 to buf at *n. */
static void
put_utf8(char *buf, size_t *n, uint32_t cp)
{
	if (cp < 0x80)
		buf[(*n)++] = (char)cp;
	else if (cp < 0x800) {
		buf[(*n)++] = (char)(0xc0 | (cp >> 6));
		buf[(*n)++] = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		buf[(*n)++] = (char)(0xe0 | (cp >> 12));
		buf[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		buf[(*n)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		buf[(*n)++] = (char)(0xf0 | (cp >> 18));
		buf[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
		buf[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		buf[(*n)++] = (char)(0x80 | (cp & 0x3f));
	}
}

START_TEST(test_random_valid_round_trip)
{
	struct json_buf		 jb;
	struct jsonread		*v;
	const char		*s;
	char			 buf[512], *cause = NULL;
	size_t			 n, k, len;
	uint32_t		 st = 42, cp;
	int			 i;

	for (i = 0; i < 3000; i++) {
		n = 0;
		for (k = rnd(&st) % 40; k > 0; k--) {
			switch (rnd(&st) % 4) {
			case 0:
				cp = rnd(&st) % 0x80;
				break;
			case 1:
				cp = 0x80 + rnd(&st) % 0x780;
				break;
			case 2:
				cp = 0x800 + rnd(&st) % 0xf800;
				break;
			default:
				cp = 0x10000 + rnd(&st) % 0x100000;
				break;
			}
			if (cp >= 0xd800 && cp <= 0xdfff)
				cp = 0xfffd;
			put_utf8(buf, &n, cp);
		}
		json_init(&jb);
		json_array_begin(&jb);
		json_put_stringn(&jb, buf, n);
		json_array_end(&jb);
		v = jsonread_parse(jb.data, jb.len, &cause);
		ck_assert_msg(v != NULL, "case %d: %s", i, cause);
		s = jsonread_string(jsonread_index(v, 0), &len);
		ck_assert_ptr_nonnull(s);
		ck_assert_uint_eq(len, n);
		ck_assert(memcmp(s, buf, n) == 0);
		jsonread_free(v);
		json_clear(&jb);
	}
}
END_TEST

START_TEST(test_random_bytes_valid_json)
{
	struct json_buf		 jb;
	struct jsonread		*v;
	const char		*s;
	char			 buf[64], *cause = NULL;
	size_t			 n, k, len;
	uint32_t		 st = 7;
	int			 i, ascii;

	for (i = 0; i < 5000; i++) {
		n = rnd(&st) % sizeof buf;
		ascii = 1;
		for (k = 0; k < n; k++) {
			/* Mostly high bytes: lead and continuation bytes. */
			buf[k] = (char)(rnd(&st) % 4 == 0 ? rnd(&st) % 0x80 :
			    0x80 + rnd(&st) % 0x80);
			if ((unsigned char)buf[k] >= 0x80)
				ascii = 0;
		}
		json_init(&jb);
		json_put_stringn(&jb, buf, n);
		v = jsonread_parse(jb.data, jb.len, &cause);
		ck_assert_msg(v != NULL, "case %d: %s", i, cause);
		s = jsonread_string(v, &len);
		ck_assert_ptr_nonnull(s);
		if (ascii)
			ck_assert(len == n && memcmp(s, buf, n) == 0);
		jsonread_free(v);
		json_clear(&jb);
	}
}
END_TEST

/* One reader error case: text and the expected "LINE:COL: message". */
static const struct {
	const char	*text;
	const char	*want;
} read_errors[] = {
	{ "", "1:1: expected a value" },
	{ "[1,]", "1:4: expected a value" },
	{ "{\"a\":1,}", "1:8: expected a member name" },
	{ "{\"a\" 1}", "1:6: expected ':' after a member name" },
	{ "[1 2]", "1:4: expected ',' or ']'" },
	{ "[01]", "1:3: leading zero in a number" },
	{ "1.", "1:3: expected a digit after '.'" },
	{ "-", "1:2: expected a digit" },
	{ "1e+", "1:4: expected a digit in the exponent" },
	{ "[1]\n x", "2:2: text after the value" },
	{ "\"a\nb\"", "1:3: control character 0x0a in a string" },
	{ "\"\\x\"", "1:3: invalid escape \\x" },
	{ "\"\\u12\"", "1:4: expected 4 hex digits after \\u" },
	{ "\"\\ud800\"", "1:8: lone high surrogate \\ud800" },
	{ "\"\\udc00\"", "1:8: lone low surrogate \\udc00" },
	{ "\"\\ud800\\u0041\"", "1:14: high surrogate \\ud800 not followed "
	    "by a low one" },
	{ "\"\xff\"", "1:2: invalid UTF-8 in a string" },
	{ "\"\xc0\xaf\"", "1:2: invalid UTF-8 in a string" },
	{ "\"\xed\xa0\x80\"", "1:2: invalid UTF-8 in a string" },
	{ "\"abc", "1:5: unterminated string" },
	{ "tru", "1:1: expected a value" },
	{ "[1] [2]", "1:5: text after the value" },
};

START_TEST(test_read_errors)
{
	struct jsonread	*v;
	char		*cause = NULL;

	v = jsonread_parse(read_errors[_i].text, strlen(read_errors[_i].text),
	    &cause);
	ck_assert_ptr_null(v);
	ck_assert_ptr_nonnull(cause);
	ck_assert_str_eq(cause, read_errors[_i].want);
	free(cause);
}
END_TEST

START_TEST(test_read_values)
{
	static const char	 text[] = " {\"s\": \"a\\u00e9\\ud83d\\ude00"
	    "\\n\\/\\u0000z\", \"n\": -12.5e1, \"t\": true, \"f\": false,"
	    " \"z\": null, \"a\": [1, [], {}], \"s\": \"second\"}\r\n";
	struct jsonread		*v;
	const struct jsonread	*a;
	const char		*s;
	char			*cause = NULL;
	size_t			 len;

	v = jsonread_parse(text, sizeof text - 1, &cause);
	ck_assert_msg(v != NULL, "%s", cause);
	ck_assert_int_eq(jsonread_type(v), JSONREAD_OBJECT);
	ck_assert_uint_eq(jsonread_count(v), 7);
	ck_assert_str_eq(jsonread_key(v, 1), "n");
	ck_assert_ptr_null(jsonread_key(v, 7));
	s = jsonread_string(jsonread_get(v, "s"), &len);
	ck_assert_uint_eq(len, 11);
	ck_assert(memcmp(s, "a\xc3\xa9\xf0\x9f\x98\x80\n/\0z", 11) == 0);
	ck_assert(jsonread_number(jsonread_get(v, "n")) == -125);
	ck_assert_int_eq(jsonread_bool(jsonread_get(v, "t")), 1);
	ck_assert_int_eq(jsonread_bool(jsonread_get(v, "f")), 0);
	ck_assert_int_eq(jsonread_bool(jsonread_get(v, "n")), -1);
	ck_assert_int_eq(jsonread_type(jsonread_get(v, "z")), JSONREAD_NULL);
	ck_assert_ptr_nonnull(jsonread_get(v, "z"));
	ck_assert_ptr_null(jsonread_get(v, "missing"));
	a = jsonread_get(v, "a");
	ck_assert_int_eq(jsonread_type(a), JSONREAD_ARRAY);
	ck_assert_uint_eq(jsonread_count(a), 3);
	ck_assert_int_eq(jsonread_type(jsonread_index(a, 1)), JSONREAD_ARRAY);
	ck_assert_int_eq(jsonread_type(jsonread_index(a, 2)), JSONREAD_OBJECT);
	ck_assert_ptr_null(jsonread_index(a, 3));
	ck_assert_ptr_null(jsonread_string(a, NULL));
	ck_assert_ptr_null(jsonread_get(a, "x"));
	jsonread_free(v);
}
END_TEST

START_TEST(test_read_depth_limit)
{
	struct jsonread	*v;
	char		 text[JSONREAD_MAX_DEPTH + 2], *cause = NULL;

	memset(text, '[', sizeof text);
	v = jsonread_parse(text, sizeof text, &cause);
	ck_assert_ptr_null(v);
	ck_assert_ptr_nonnull(strstr(cause, "nested deeper than"));
	free(cause);
}
END_TEST

/* Build the json suite. */
static Suite *
json_suite(void)
{
	Suite	*s = suite_create("json");
	TCase	*tc;

	tc = tcase_create("write");
	tcase_add_loop_test(tc, test_string_cases, 0,
	    sizeof string_cases / sizeof string_cases[0]);
	tcase_add_test(tc, test_string_null_and_key_escapes);
	tcase_add_test(tc, test_nesting);
	tcase_add_test(tc, test_deep_nesting);
	tcase_add_loop_test(tc, test_int_cases, 0,
	    sizeof int_cases / sizeof int_cases[0]);
	tcase_add_loop_test(tc, test_double_cases, 0,
	    sizeof double_cases / sizeof double_cases[0]);
	tcase_add_test(tc, test_double_special);
	suite_add_tcase(s, tc);

	tc = tcase_create("misuse");
	tcase_add_test_raise_signal(tc, test_misuse_value_without_key,
	    SIGABRT);
	tcase_add_test_raise_signal(tc, test_misuse_mismatched_end, SIGABRT);
	tcase_add_test_raise_signal(tc, test_misuse_two_top_values, SIGABRT);
	tcase_add_test_raise_signal(tc, test_misuse_unfinished, SIGABRT);
	suite_add_tcase(s, tc);

	tc = tcase_create("random");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_random_valid_round_trip);
	tcase_add_test(tc, test_random_bytes_valid_json);
	suite_add_tcase(s, tc);

	tc = tcase_create("read");
	tcase_add_loop_test(tc, test_read_errors, 0,
	    sizeof read_errors / sizeof read_errors[0]);
	tcase_add_test(tc, test_read_values);
	tcase_add_test(tc, test_read_depth_limit);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr = srunner_create(json_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
