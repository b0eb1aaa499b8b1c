/*
 * check_jsonval.c: the JSON reader: every type and getter, wrong types
 * and NULL along a chain, members in document order, strict parsing
 * (duplicates, trailing text, invalid UTF-8, lone surrogates, NUL in
 * strings and keys), the depth and size limits, integers past int64_t,
 * and errors with their LINE:COL.
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonval.h"

/* Parse text (a C string); fails the test if it is refused. */
static struct jsonval *
parse(const char *text)
{
	struct jsonval	*v;
	char		*cause = NULL;

	v = jsonval_parse(text, strlen(text), &cause);
	ck_assert_msg(v != NULL, "%s: %s", text, cause);
	return v;
}

/* Parse len bytes that must be refused with the error want. */
static void
refused_len(const char *text, size_t len, const char *want)
{
	char	*cause = NULL;

	ck_assert_msg(jsonval_parse(text, len, &cause) == NULL,
	    "accepted: %s", text);
	ck_assert_msg(strcmp(cause, want) == 0, "%s: got '%s', want '%s'",
	    text, cause, want);
	free(cause);
}

/* Parse a C string that must be refused with the error want. */
static void
refused(const char *text, const char *want)
{
	refused_len(text, strlen(text), want);
}

/* Every scalar type, its getters and its name. */
START_TEST(test_scalars)
{
	struct jsonval	*v;
	int64_t		 n;
	double		 d;
	int		 bo;

	v = parse("null");
	ck_assert_int_eq(jsonval_type(v), JSONVAL_NULL);
	ck_assert_int_eq(jsonval_int(v, &n), -1);
	jsonval_free(v);

	v = parse(" true ");
	ck_assert_int_eq(jsonval_type(v), JSONVAL_BOOL);
	ck_assert_int_eq(jsonval_bool(v, &bo), 0);
	ck_assert_int_eq(bo, 1);
	ck_assert_int_eq(jsonval_number(v, &d), -1);
	jsonval_free(v);
	v = parse("false");
	ck_assert_int_eq(jsonval_bool(v, &bo), 0);
	ck_assert_int_eq(bo, 0);
	jsonval_free(v);

	v = parse("-9223372036854775808");
	ck_assert_int_eq(jsonval_type(v), JSONVAL_INT);
	ck_assert_int_eq(jsonval_int(v, &n), 0);
	ck_assert(n == INT64_MIN);
	ck_assert_int_eq(jsonval_number(v, &d), 0);
	ck_assert(d == -9223372036854775808.0);
	ck_assert_int_eq(jsonval_bool(v, &bo), -1);
	jsonval_free(v);

	v = parse("2.5e3");
	ck_assert_int_eq(jsonval_type(v), JSONVAL_REAL);
	ck_assert_int_eq(jsonval_int(v, &n), -1);
	ck_assert_int_eq(jsonval_number(v, &d), 0);
	ck_assert(d == 2500.0);
	jsonval_free(v);

	v = parse("\"h\\u00e9llo \\ud83d\\ude00\"");
	ck_assert_int_eq(jsonval_type(v), JSONVAL_STRING);
	ck_assert_str_eq(jsonval_string(v), "h\xc3\xa9llo \xf0\x9f\x98\x80");
	ck_assert_uint_eq(jsonval_string_len(v), 11);
	ck_assert_uint_eq(jsonval_count(v), 0);
	jsonval_free(v);

	ck_assert_str_eq(jsonval_type_name(JSONVAL_NULL), "null");
	ck_assert_str_eq(jsonval_type_name(JSONVAL_BOOL), "boolean");
	ck_assert_str_eq(jsonval_type_name(JSONVAL_INT), "integer");
	ck_assert_str_eq(jsonval_type_name(JSONVAL_REAL), "real");
	ck_assert_str_eq(jsonval_type_name(JSONVAL_STRING), "string");
	ck_assert_str_eq(jsonval_type_name(JSONVAL_ARRAY), "array");
	ck_assert_str_eq(jsonval_type_name(JSONVAL_OBJECT), "object");
}
END_TEST

/* Objects and arrays: get, at, count, chains through wrong types. */
START_TEST(test_containers)
{
	struct jsonval		*v;
	const struct jsonval	*a;
	int64_t			 n;

	v = parse("{\"Browser\": \"HeadlessChrome/1.2\", \"list\": [1, "
	    "\"two\", [3], {\"four\": 4}], \"empty\": {}, \"none\": null}");
	ck_assert_int_eq(jsonval_type(v), JSONVAL_OBJECT);
	ck_assert_uint_eq(jsonval_count(v), 4);
	ck_assert_str_eq(jsonval_get_string(v, "Browser"),
	    "HeadlessChrome/1.2");
	a = jsonval_get(v, "list");
	ck_assert_int_eq(jsonval_type(a), JSONVAL_ARRAY);
	ck_assert_uint_eq(jsonval_count(a), 4);
	ck_assert_int_eq(jsonval_int(jsonval_at(a, 0), &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(jsonval_string(jsonval_at(a, 1)), "two");
	ck_assert_int_eq(jsonval_int(jsonval_at(jsonval_at(a, 2), 0), &n), 0);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(jsonval_int(jsonval_get(jsonval_at(a, 3), "four"),
	    &n), 0);
	ck_assert_int_eq(n, 4);
	ck_assert_ptr_null(jsonval_at(a, 4));
	ck_assert_uint_eq(jsonval_count(jsonval_get(v, "empty")), 0);
	ck_assert_int_eq(jsonval_type(jsonval_get(v, "none")), JSONVAL_NULL);
	ck_assert_ptr_nonnull(jsonval_get(v, "none"));

	/* Wrong types and NULL along a chain say no. */
	ck_assert_ptr_null(jsonval_get(v, "missing"));
	ck_assert_ptr_null(jsonval_get(a, "Browser"));
	ck_assert_ptr_null(jsonval_at(v, 0));
	ck_assert_ptr_null(jsonval_get_string(v, "list"));
	ck_assert_ptr_null(jsonval_get_string(jsonval_get(v, "nope"), "x"));
	ck_assert_ptr_null(jsonval_at(jsonval_get(v, "nope"), 0));
	ck_assert_ptr_null(jsonval_string(NULL));
	ck_assert_uint_eq(jsonval_string_len(NULL), 0);
	ck_assert_uint_eq(jsonval_string_len(a), 0);
	ck_assert_uint_eq(jsonval_count(NULL), 0);
	ck_assert_int_eq(jsonval_int(NULL, &n), -1);
	ck_assert_int_eq(jsonval_type(NULL), JSONVAL_NULL);
	ck_assert_ptr_null(jsonval_get(NULL, "x"));
	jsonval_free(v);
	jsonval_free(NULL);
}
END_TEST

/* jsonval_next() gives the members in document order, then stops. */
START_TEST(test_iteration_order)
{
	struct jsonval		*v;
	struct jsonval_member	 m;
	const char		*want[] = {
		"zeta", "alpha", "mid", "b", "a"
	};
	void			*it = NULL;
	int64_t			 n;
	size_t			 i = 0;

	v = parse("{\"zeta\": 0, \"alpha\": 1, \"mid\": 2, \"b\": 3, "
	    "\"a\": 4}");
	while (jsonval_next(v, &it, &m)) {
		ck_assert_uint_lt(i, 5);
		ck_assert_str_eq(m.key, want[i]);
		ck_assert_int_eq(jsonval_int(m.value, &n), 0);
		ck_assert_int_eq(n, (int64_t)i);
		i++;
	}
	ck_assert_uint_eq(i, 5);
	ck_assert_int_eq(jsonval_next(v, &it, &m), 0);
	jsonval_free(v);

	v = parse("{}");
	it = NULL;
	ck_assert_int_eq(jsonval_next(v, &it, &m), 0);
	jsonval_free(v);
	v = parse("[1]");
	it = NULL;
	ck_assert_int_eq(jsonval_next(v, &it, &m), 0);
	ck_assert_int_eq(jsonval_next(NULL, &it, &m), 0);
	jsonval_free(v);
}
END_TEST

/* Strings may hold NUL; keys may not. */
START_TEST(test_nul)
{
	struct jsonval	*v;

	v = parse("[\"a\\u0000b\"]");
	ck_assert_uint_eq(jsonval_string_len(jsonval_at(v, 0)), 3);
	ck_assert_int_eq(memcmp(jsonval_string(jsonval_at(v, 0)), "a\0b", 4),
	    0);
	jsonval_free(v);
	refused("{\"a\\u0000b\": 1}", "1:11: NUL byte in object key not "
	    "supported near '\"a\\u0000b\"'");
	/* A raw NUL byte is not JSON at all. */
	refused_len("[1,\0]", 5, "1:4: invalid token near end of file");
	refused_len("\"a\0\"", 4, "1:2: control character 0x0 near '\"a'");
}
END_TEST

/* What strict RFC 8259 refuses, with where. */
START_TEST(test_strict)
{
	refused("{\"id\": 1, \"id\": 2}", "1:14: duplicate object key near "
	    "'\"id\"'");
	refused("{\n  \"a\": {\"x\": 1, \"x\": 1}}",
	    "2:19: duplicate object key near '\"x\"'");
	refused("[1] 2", "1:5: end of file expected near '2'");
	refused("{} {}", "1:4: end of file expected near '{'");
	refused("", "1:1: unexpected token near end of file");
	refused("  \n ", "2:1: unexpected token near end of file");
	refused("[01]", "1:2: invalid token near '0'");
	refused("[1,]", "1:4: unexpected token near ']'");
	refused("{'a': 1}", "1:2: string or '}' expected near '''");
	refused("[NaN]", "1:4: invalid token near 'NaN'");
	refused("\"\\ud800\"", "1:8: invalid Unicode '\\uD800' near "
	    "'\"\\ud800\"'");
	refused("\"\xc3\"", "1:1: unable to decode byte 0xc3 near '\"'");
	refused("\"\xed\xa0\x80\"", "1:1: unable to decode byte 0xed near "
	    "'\"'");
	refused("[\"\xc0\xaf\"]", "1:2: unable to decode byte 0xc0 near "
	    "'\"'");
	refused("1e400", "1:5: real number overflow near '1e400'");
	refused("[1,\n2,\n\"\t\"]", "3:1: control character 0x9 near "
	    "'\"'");
}
END_TEST

/* Integers past int64_t are reals; those that fit stay integers. */
START_TEST(test_big_integers)
{
	struct jsonval		*v;
	const struct jsonval	*a;
	int64_t			 n;
	double			 d;

	v = parse("[9223372036854775807, 9223372036854775808, -5, "
	    "{\"k\": -9223372036854775809, \"j\": 7, \"r\": 1.5}, 1e2, "
	    "\"12345678901234567890\", 100000000000000000000000]");
	ck_assert_int_eq(jsonval_int(jsonval_at(v, 0), &n), 0);
	ck_assert(n == INT64_MAX);
	a = jsonval_at(v, 1);
	ck_assert_int_eq(jsonval_type(a), JSONVAL_REAL);
	ck_assert_int_eq(jsonval_number(a, &d), 0);
	ck_assert(d == 9223372036854775808.0);
	ck_assert_int_eq(jsonval_int(jsonval_at(v, 2), &n), 0);
	ck_assert_int_eq(n, -5);
	a = jsonval_at(v, 3);
	ck_assert_int_eq(jsonval_type(jsonval_get(a, "k")), JSONVAL_REAL);
	ck_assert_int_eq(jsonval_int(jsonval_get(a, "j"), &n), 0);
	ck_assert_int_eq(n, 7);
	ck_assert_int_eq(jsonval_type(jsonval_get(a, "r")), JSONVAL_REAL);
	ck_assert_int_eq(jsonval_type(jsonval_at(v, 4)), JSONVAL_REAL);
	ck_assert_str_eq(jsonval_string(jsonval_at(v, 5)),
	    "12345678901234567890");
	ck_assert_int_eq(jsonval_number(jsonval_at(v, 6), &d), 0);
	ck_assert(d == 1e23);
	jsonval_free(v);

	v = parse("18446744073709551616");
	ck_assert_int_eq(jsonval_type(v), JSONVAL_REAL);
	jsonval_free(v);
}
END_TEST

/* Nesting: JSONVAL_MAX_DEPTH levels are fine, one more is not. */
START_TEST(test_depth)
{
	struct jsonval	*v;
	char		 buf[8 * JSONVAL_MAX_DEPTH + 64], want[64];
	size_t		 i, n = 0;

	for (i = 0; i < JSONVAL_MAX_DEPTH; i++)
		buf[n++] = '[';
	for (i = 0; i < JSONVAL_MAX_DEPTH; i++)
		buf[n++] = ']';
	buf[n] = '\0';
	v = parse(buf);
	jsonval_free(v);

	n = 0;
	buf[n++] = '\n';
	/* Brackets in keys do not count. */
	for (i = 0; i < JSONVAL_MAX_DEPTH + 1; i++) {
		memcpy(buf + n, "{\"[\":", 5);
		n += 5;
	}
	buf[n++] = '1';
	for (i = 0; i < JSONVAL_MAX_DEPTH + 1; i++)
		buf[n++] = '}';
	buf[n] = '\0';
	snprintf(want, sizeof want, "2:%d: nested deeper than %d",
	    5 * JSONVAL_MAX_DEPTH + 1, JSONVAL_MAX_DEPTH);
	refused(buf, want);
}
END_TEST

/* The size limit: JSONVAL_MAX_INPUT bytes are read, one more is not. */
START_TEST(test_size)
{
	struct jsonval	*v;
	char		*buf, want[96], *cause = NULL;
	size_t		 len = JSONVAL_MAX_INPUT;

	buf = malloc(len + 1);
	ck_assert_ptr_nonnull(buf);
	memset(buf, ' ', len + 1);
	buf[0] = '"';
	memset(buf + 1, 'x', len - 2);
	buf[len - 1] = '"';
	v = jsonval_parse(buf, len, &cause);
	ck_assert_msg(v != NULL, "%s", cause);
	ck_assert_uint_eq(jsonval_string_len(v), len - 2);
	jsonval_free(v);
	snprintf(want, sizeof want, "1:1: %zu bytes is more than the limit "
	    "of %d", len + 1, JSONVAL_MAX_INPUT);
	refused_len(buf, len + 1, want);
	free(buf);
}
END_TEST

/* A real /json/version reply of chromium-headless-shell's. */
START_TEST(test_json_version)
{
	struct jsonval	*v;

	v = parse("{\n   \"Browser\": \"HeadlessChrome/131.0.6778.85\",\n"
	    "   \"Protocol-Version\": \"1.3\",\n"
	    "   \"User-Agent\": \"Mozilla/5.0 (X11; Linux x86_64)\",\n"
	    "   \"V8-Version\": \"13.1.201.13\",\n"
	    "   \"WebKit-Version\": \"537.36 (@2d7b8d6b)\",\n"
	    "   \"webSocketDebuggerUrl\": \"ws://127.0.0.1:40631/devtools/"
	    "browser/7c3d5c2e-2f0a-4a51-9d4c-1f7c6a1b2c3d\"\n}\n");
	ck_assert_str_eq(jsonval_get_string(v, "webSocketDebuggerUrl"),
	    "ws://127.0.0.1:40631/devtools/browser/"
	    "7c3d5c2e-2f0a-4a51-9d4c-1f7c6a1b2c3d");
	ck_assert_str_eq(jsonval_get_string(v, "Browser"),
	    "HeadlessChrome/131.0.6778.85");
	jsonval_free(v);
}
END_TEST

/* Build the jsonval suite. */
static Suite *
jsonval_suite(void)
{
	Suite	*s = suite_create("jsonval");
	TCase	*tc;

	tc = tcase_create("jsonval");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_scalars);
	tcase_add_test(tc, test_containers);
	tcase_add_test(tc, test_iteration_order);
	tcase_add_test(tc, test_nul);
	tcase_add_test(tc, test_strict);
	tcase_add_test(tc, test_big_integers);
	tcase_add_test(tc, test_depth);
	tcase_add_test(tc, test_size);
	tcase_add_test(tc, test_json_version);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr;
	int	 failed;

	sr = srunner_create(jsonval_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
