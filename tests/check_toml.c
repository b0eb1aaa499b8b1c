/*
 * check_toml.c: tests for the TOML parser: the value of each type as
 * written in each way, the exact message and LINE:COL for each kind of
 * bad input, the depth and size limits, where keys and values were
 * written, the lookup API, and big tables.  The toml-test suite
 * (tests/toml-conformance.c) covers the spec more widely; these cases pin
 * down our messages and our API.
 */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toml.h"

/* The value of key "v" in a one-line document, rendered as text. */
static const struct {
	const char	*toml;
	enum toml_type	 type;
	const char	*want;
} value_cases[] = {
	/* Integers. */
	{ "v = 42", TOML_INTEGER, "42" },
	{ "v = +17", TOML_INTEGER, "17" },
	{ "v = -17", TOML_INTEGER, "-17" },
	{ "v = 0", TOML_INTEGER, "0" },
	{ "v = -0", TOML_INTEGER, "0" },
	{ "v = +0", TOML_INTEGER, "0" },
	{ "v = 1_000", TOML_INTEGER, "1000" },
	{ "v = 5_349_221", TOML_INTEGER, "5349221" },
	{ "v = 0xDEADBEEF", TOML_INTEGER, "3735928559" },
	{ "v = 0xdead_beef", TOML_INTEGER, "3735928559" },
	{ "v = 0x00ff", TOML_INTEGER, "255" },
	{ "v = 0o755", TOML_INTEGER, "493" },
	{ "v = 0o0_7", TOML_INTEGER, "7" },
	{ "v = 0b11010110", TOML_INTEGER, "214" },
	{ "v = 0b1_0", TOML_INTEGER, "2" },
	{ "v = 9223372036854775807", TOML_INTEGER, "9223372036854775807" },
	{ "v = -9223372036854775808", TOML_INTEGER, "-9223372036854775808" },
	{ "v = 0x7FFFFFFFFFFFFFFF", TOML_INTEGER, "9223372036854775807" },
	{ "v = 0o777777777777777777777", TOML_INTEGER,
	    "9223372036854775807" },

	/* Floats. */
	{ "v = +1.0", TOML_FLOAT, "1" },
	{ "v = 3.1415", TOML_FLOAT, "3.1415" },
	{ "v = -0.01", TOML_FLOAT, "-0.01" },
	{ "v = 5e+22", TOML_FLOAT, "5e+22" },
	{ "v = 1e06", TOML_FLOAT, "1e+06" },
	{ "v = -2E-2", TOML_FLOAT, "-0.02" },
	{ "v = 6.626e-34", TOML_FLOAT, "6.626e-34" },
	{ "v = 224_617.445_991_228", TOML_FLOAT, "224617.445991228" },
	{ "v = 1e1_0", TOML_FLOAT, "1e+10" },
	{ "v = 0e0", TOML_FLOAT, "0" },
	{ "v = -0.0", TOML_FLOAT, "-0" },
	{ "v = 1e-400", TOML_FLOAT, "0" },
	{ "v = inf", TOML_FLOAT, "inf" },
	{ "v = +inf", TOML_FLOAT, "inf" },
	{ "v = -inf", TOML_FLOAT, "-inf" },
	{ "v = nan", TOML_FLOAT, "nan" },
	{ "v = -nan", TOML_FLOAT, "nan" },

	/* Bools. */
	{ "v = true", TOML_BOOL, "true" },
	{ "v = false", TOML_BOOL, "false" },

	/* Strings. */
	{ "v = \"plain\"", TOML_STRING, "plain" },
	{ "v = \"\"", TOML_STRING, "" },
	{ "v = \"a\\tb\\nc\\\"d\\\\e\\bf\\fg\\rh\"", TOML_STRING,
	    "a\tb\nc\"d\\e\bf\fg\rh" },
	{ "v = \"\\u00e9\\u20AC\\U0001F600\"", TOML_STRING,
	    "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80" },
	{ "v = \"tab\there\"", TOML_STRING, "tab\there" },
	{ "v = \"\xc3\xa9t\xc3\xa9\"", TOML_STRING, "\xc3\xa9t\xc3\xa9" },
	{ "v = 'C:\\Users\\nodejs'", TOML_STRING, "C:\\Users\\nodejs" },
	{ "v = '<\\i\\c*\\s*>'", TOML_STRING, "<\\i\\c*\\s*>" },
	{ "v = ''", TOML_STRING, "" },
	{ "v = \"\"\"\nRoses\nViolets\"\"\"", TOML_STRING, "Roses\nViolets" },
	{ "v = \"\"\"\r\nRoses\r\nViolets\"\"\"", TOML_STRING,
	    "Roses\nViolets" },
	{ "v = \"\"\"The quick \\\n\n   brown \\   \n  fox\"\"\"", TOML_STRING,
	    "The quick brown fox" },
	{ "v = \"\"\"Here are two quotation marks: \"\". Simple.\"\"\"",
	    TOML_STRING, "Here are two quotation marks: \"\". Simple." },
	{ "v = \"\"\"\"This,\" she said.\"\"\"\"\"", TOML_STRING,
	    "\"This,\" she said.\"\"" },
	{ "v = '''\nThe first newline is\ntrimmed.\n'''", TOML_STRING,
	    "The first newline is\ntrimmed.\n" },
	{ "v = ''''That,' she said.'''''", TOML_STRING,
	    "'That,' she said.''" },
	{ "v = '''no \\escapes \"\"\" here'''", TOML_STRING,
	    "no \\escapes \"\"\" here" },

	/* Date-times. */
	{ "v = 1979-05-27T07:32:00Z", TOML_DATETIME, "1979-05-27T07:32:00Z" },
	{ "v = 1979-05-27 07:32:00z", TOML_DATETIME, "1979-05-27T07:32:00Z" },
	{ "v = 1979-05-27t07:32:00-07:00", TOML_DATETIME,
	    "1979-05-27T07:32:00-07:00" },
	{ "v = 1979-05-27T00:32:00.999999+05:30", TOML_DATETIME,
	    "1979-05-27T00:32:00.999999+05:30" },
	{ "v = 1979-05-27T07:32:00", TOML_DATETIME_LOCAL,
	    "1979-05-27T07:32:00" },
	{ "v = 1979-05-27 00:32:00.5", TOML_DATETIME_LOCAL,
	    "1979-05-27T00:32:00.5" },
	{ "v = 1979-05-27", TOML_DATE_LOCAL, "1979-05-27" },
	{ "v = 2000-02-29", TOML_DATE_LOCAL, "2000-02-29" },
	{ "v = 0001-01-01", TOML_DATE_LOCAL, "0001-01-01" },
	{ "v = 07:32:00", TOML_TIME_LOCAL, "07:32:00" },
	{ "v = 00:32:00.999999", TOML_TIME_LOCAL, "00:32:00.999999" },
	{ "v = 23:59:60", TOML_TIME_LOCAL, "23:59:60" },
};

/* Bad documents and their exact message; len 0 means strlen(toml). */
static const struct {
	const char	*toml;
	size_t		 len;
	const char	*cause;
} error_cases[] = {
	/* Keys and key/values. */
	{ "a = 1\nb", 0, "2:2: expected '=' after key" },
	{ "a = 1\nb\n", 0, "2:2: expected '=' after key" },
	{ "a =", 0, "1:4: expected a value" },
	{ "a = # no value", 0, "1:5: expected a value" },
	{ "= 1", 0, "1:1: expected a key" },
	{ "a. = 1", 0, "1:4: expected a key after '.'" },
	{ "\xc3\xa9 = 1", 0, "1:1: expected a key" },
	{ "\"\"\"k\"\"\" = 1", 0, "1:1: a multi-line string cannot be a key" },
	{ "a = 1 2", 0, "1:7: expected end of line after value" },
	{ "s = \"\xc3\xa9\" x", 0, "1:9: expected end of line after value" },
	{ "\xef\xbb\xbf" "a", 0, "1:2: expected '=' after key" },
	{ "a = tru", 0, "1:5: invalid value 'tru'" },

	/* TOML has no null: said so, for a key's value or an element. */
	{ "a = null", 0, "1:5: TOML has no null value: leave the key out" },
	{ "[t]\na =   null # no", 0,
	  "2:7: TOML has no null value: leave the key out" },
	{ "a = NULL", 0, "1:5: TOML has no null value ('NULL'): leave the "
	  "key out" },
	{ "a = Nil", 0, "1:5: TOML has no null value ('Nil'): leave the key "
	  "out" },
	{ "a = None", 0, "1:5: TOML has no null value ('None'): leave the "
	  "key out" },
	{ "a = undefined", 0, "1:5: TOML has no null value ('undefined'): "
	  "leave the key out" },
	{ "a = [1, null]", 0, "1:9: TOML has no null value: leave the "
	  "element out" },
	{ "a = [[null]]", 0, "1:7: TOML has no null value: leave the "
	  "element out" },
	{ "a = {b = null}", 0, "1:10: TOML has no null value: leave the key "
	  "out" },
	{ "a = [{b = nil}]", 0, "1:11: TOML has no null value ('nil'): leave "
	  "the key out" },
	{ "a.b.c = null", 0, "1:9: TOML has no null value: leave the key out" },
	/* Not a null word: the usual message. */
	{ "a = nullx", 0, "1:5: invalid value 'nullx'" },
	{ "a = nul", 0, "1:5: invalid value 'nul'" },
	{ "a = Undefined", 0, "1:5: invalid value 'Undefined'" },
	{ "a = \"null\" null", 0, "1:12: expected end of line after value" },
	{ "null = nil", 0, "1:8: TOML has no null value ('nil'): leave the "
	  "key out" },
	{ "a = \"x\" = 1", 0, "1:9: expected end of line after value" },

	/* Duplicates and redefinitions. */
	{ "name = 1\nname = 2", 0, "2:1: duplicate key 'name'" },
	{ "a.b.c = 1\na.b.c = 2", 0, "2:5: duplicate key 'a.b.c'" },
	{ "a = {b = 1, b = 2}", 0, "1:13: duplicate key 'b'" },
	{ "\"a\\tb\" = 1\n\"a\\tb\" = 2", 0,
	    "2:1: duplicate key '\"a\\u0009b\"'" },
	{ "[server]\n[server]", 0, "2:1: table [server] defined twice" },
	{ "[a]\nx = 1\n[b]\n[a]", 0, "4:1: table [a] defined twice" },
	{ "[a.b]\n[a]\n[a]", 0, "3:1: table [a] defined twice" },
	{ "a.b = 1\n[a]", 0, "2:1: table [a] already defined by dotted keys" },
	{ "a = {x = 1}\n[a]", 0,
	    "2:1: table [a] already defined as an inline table" },
	{ "a = 1\n\n  [[b]]\n  [b.c]\n  [b]", 0,
	    "5:3: table [b] already defined as an array of tables" },
	{ "a = 1\n[a]", 0, "2:1: key 'a' already defined as an integer" },
	{ "a = 1\n[[a]]", 0, "2:1: key 'a' already defined as an integer" },
	{ "[a]\n[[a]]", 0, "2:1: key 'a' already defined as a table" },
	{ "a = [1]\n[[a]]", 0, "2:1: cannot append [[a]] to a static array" },
	{ "a = [1]\n[a.b]", 0, "2:2: cannot add to static array 'a'" },
	{ "a = {x = 1}\n[a.b]", 0, "2:2: cannot add to inline table 'a'" },
	{ "a = 1\n[a.b]", 0, "2:2: key 'a' is an integer, not a table" },
	{ "a = 1\na.b = 2", 0, "2:1: key 'a' is an integer, not a table" },
	{ "a = {x = 1}\na.y = 2", 0,
	    "2:1: cannot add keys to inline table 'a'" },
	{ "[a.b]\nc = 1\n[a]\nb.d = 2", 0,
	    "4:1: cannot add keys to table [a.b] with dotted keys" },
	{ "[x]\n[x.a.b]\n[x.a]\nb.c = 1", 0,
	    "4:1: cannot add keys to table [x.a.b] with dotted keys" },

	/* Strings. */
	{ "s = \"\\q\"", 0, "1:6: invalid escape '\\q'" },
	{ "s = \"\\x41\"", 0, "1:6: invalid escape '\\x'" },
	{ "s = \"\\ \"", 0, "1:6: invalid escape: '\\' followed by a space" },
	{ "s = \"\"\"\\ x\"\"\"", 0,
	    "1:8: invalid escape: '\\' followed by a space" },
	{ "s = \"\\\xc3\xa9\"", 0, "1:6: invalid escape '\\\xc3\xa9'" },
	{ "s = \"\\u12\"", 0, "1:6: invalid escape '\\u12': expected 4 hex "
	    "digits" },
	{ "s = \"\\uD800\"", 0, "1:6: invalid escape '\\uD800': not a Unicode "
	    "scalar value" },
	{ "s = \"\\U00110000\"", 0, "1:6: invalid escape '\\U00110000': not a "
	    "Unicode scalar value" },
	{ "s = \"a\x01\"", 0, "1:7: control character U+0001 in string" },
	{ "s = 'a\x7f'", 0, "1:7: control character U+007F in string" },
	{ "s = '''a\x1f'''", 0, "1:9: control character U+001F in string" },
	{ "s = \"\"\"a\rb\"\"\"", 0,
	    "1:9: control character U+000D in string" },
	{ "s = \"a\0b\"", 9, "1:7: control character U+0000 in string" },
	{ "s = \"x", 0, "1:5: unterminated string" },
	{ "s = \"x\ny\"", 0, "1:5: unterminated string" },
	{ "s = 'x", 0, "1:5: unterminated string" },
	{ "s = \"\"\"x", 0, "1:5: unterminated multi-line string" },
	{ "s = '''x\n\n", 0, "1:5: unterminated multi-line string" },
	{ "s = \"\"\"a\"\"\"\"\"\"", 0,
	    "1:14: too many quotes at end of multi-line string" },

	/* Encoding and control characters outside strings. */
	{ "s = \"\xff\"", 0, "1:6: invalid UTF-8" },
	{ "a = 1\nb = 2\nc = '\xc3\x28'", 0, "3:6: invalid UTF-8" },
	{ "s = \"\xed\xa0\x80\"", 0, "1:6: invalid UTF-8" },
	{ "s = \"\xc0\xaf\"", 0, "1:6: invalid UTF-8" },
	{ "a\0 = 1", 6, "1:2: control character U+0000" },
	{ "\0", 1, "1:1: control character U+0000" },
	{ "# c\x01", 0, "1:4: control character U+0001 in comment" },
	{ "a = 1 # \x7f\n", 0, "1:9: control character U+007F in comment" },
	{ "a = 1\r", 0, "1:6: carriage return without line feed" },
	{ "a = 1\rb = 2", 0, "1:6: carriage return without line feed" },
	{ "\x0b", 0, "1:1: control character U+000B" },

	/* Numbers. */
	{ "a = 01", 0, "1:5: leading zero in '01'" },
	{ "a = -03.14", 0, "1:5: leading zero in '-03.14'" },
	{ "a = 9223372036854775808", 0,
	    "1:5: integer '9223372036854775808' out of range" },
	{ "a = -9223372036854775809", 0,
	    "1:5: integer '-9223372036854775809' out of range" },
	{ "a = 0x8000000000000000", 0,
	    "1:5: integer '0x8000000000000000' out of range" },
	{ "a = 1e400", 0, "1:5: float '1e400' out of range" },
	{ "a = 1__0", 0, "1:5: misplaced '_' in number '1__0'" },
	{ "a = 1_", 0, "1:5: misplaced '_' in number '1_'" },
	{ "a = 0x_1", 0, "1:5: misplaced '_' in number '0x_1'" },
	{ "a = +0x10", 0, "1:5: sign not allowed in '+0x10'" },
	{ "a = 1.", 0, "1:5: invalid number '1.'" },
	{ "a = .5", 0, "1:5: invalid number '.5'" },
	{ "a = 1e", 0, "1:5: invalid number '1e'" },
	{ "a = 0X1", 0, "1:5: invalid number '0X1'" },
	{ "a = 0b2", 0, "1:5: invalid number '0b2'" },
	{ "a = Inf", 0, "1:5: invalid value 'Inf'" },

	/* Date-times. */
	{ "d = 2021-02-30", 0, "1:5: invalid date '2021-02-30': day out of "
	    "range" },
	{ "d = 2100-02-29T00:00:00Z", 0, "1:5: invalid date-time "
	    "'2100-02-29T00:00:00Z': day out of range" },
	{ "d = 1979-13-01", 0, "1:5: invalid date '1979-13-01': month out of "
	    "range" },
	{ "t = 24:00:00", 0, "1:5: invalid time '24:00:00': hour out of "
	    "range" },
	{ "t = 12:60:00", 0, "1:5: invalid time '12:60:00': minute out of "
	    "range" },
	{ "t = 12:00:61", 0, "1:5: invalid time '12:00:61': second out of "
	    "range" },
	{ "x = 1979-05-27T07:32:00+24:00", 0, "1:5: invalid date-time "
	    "'1979-05-27T07:32:00+24:00': offset out of range" },
	{ "d = 1979-05-27T07:32", 0,
	    "1:5: invalid date-time '1979-05-27T07:32'" },
	{ "d = 1979-05-27T", 0, "1:5: invalid date-time '1979-05-27T'" },
	{ "d = 1979-5-27", 0, "1:5: invalid date-time '1979-5-27'" },
	{ "d = 07:32:00Z", 0, "1:5: invalid date-time '07:32:00Z'" },
	{ "d = 10000-01-01", 0, "1:5: invalid date-time '10000-01-01'" },

	/* Arrays and inline tables. */
	{ "a = [1, 2", 0, "1:5: unterminated array" },
	{ "a = [1 2]", 0, "1:8: expected ',' or ']' after array element" },
	{ "a = [\n1,\n2,,\n]", 0, "3:3: expected a value" },
	{ "a = [,]", 0, "1:6: expected a value" },
	{ "a = {x = 1", 0, "1:5: unterminated inline table" },
	{ "a = {x = 1,}", 0, "1:12: trailing comma in inline table" },
	{ "a = {x = 1\n}", 0, "1:11: newline in inline table" },
	{ "a = {\nx = 1}", 0, "1:6: newline in inline table" },
	{ "a = {x = 1 y = 2}", 0,
	    "1:12: expected ',' or '}' after value in inline table" },
	{ "a = {x = 1, x.y = 2}", 0, "1:13: key 'x' is an integer, not a "
	    "table" },

	/* Headers. */
	{ "[]", 0, "1:2: expected a table name" },
	{ "[a", 0, "1:3: expected ']' after table name" },
	{ "[a b]", 0, "1:4: expected ']' after table name" },
	{ "[[a]", 0, "1:4: expected ']]' after array of tables name" },
	{ "[[a] ]", 0, "1:4: expected ']]' after array of tables name" },
	{ "[a] b = 1", 0, "1:5: expected end of line after table header" },
	{ "[a]]", 0, "1:4: expected end of line after table header" },
};

/* Parse text, which must succeed; return the root. */
static struct toml_value *
parse_ok(const char *text)
{
	struct toml_value	*root;
	char			*cause = NULL;

	root = toml_parse(text, strlen(text), &cause);
	ck_assert_msg(root != NULL, "<%s>: %s", text, cause);
	ck_assert_int_eq(toml_type(root), TOML_TABLE);
	return root;
}

/* Parse len bytes of text, which must fail; return the cause. */
static char *
parse_fail(const char *text, size_t len)
{
	struct toml_value	*root;
	char			*cause = NULL;

	root = toml_parse(text, len, &cause);
	ck_assert_msg(root == NULL, "<%s> parsed", text);
	ck_assert_ptr_nonnull(cause);
	return cause;
}

/* Render a scalar as text: integers in decimal, floats shortest. */
static void
render(const struct toml_value *v, char *buf, size_t size)
{
	const char	*s;
	size_t		 len;
	double		 f;
	int		 prec;

	switch (toml_type(v)) {
	case TOML_INTEGER:
		snprintf(buf, size, "%" PRId64, toml_integer(v));
		break;
	case TOML_FLOAT:
		f = toml_float(v);
		if (isnan(f))
			snprintf(buf, size, "nan");
		else if (isinf(f))
			snprintf(buf, size, "%sinf", f < 0 ? "-" : "");
		else {
			for (prec = 1; prec < 17; prec++) {
				snprintf(buf, size, "%.*g", prec, f);
				if (strtod(buf, NULL) == f)
					break;
			}
			snprintf(buf, size, "%.*g", prec, f);
		}
		break;
	case TOML_BOOL:
		snprintf(buf, size, "%s", toml_bool(v) ? "true" : "false");
		break;
	case TOML_STRING:
		s = toml_string(v, &len);
		ck_assert_uint_eq(len, strlen(s));
		snprintf(buf, size, "%s", s);
		break;
	default:
		snprintf(buf, size, "%s", toml_datetime(v));
		break;
	}
}

START_TEST(test_values)
{
	struct toml_value	*root, *v;
	char			 got[256];

	root = parse_ok(value_cases[_i].toml);
	ck_assert_uint_eq(toml_table_size(root), 1);
	v = toml_table_get(root, "v");
	ck_assert_ptr_nonnull(v);
	ck_assert_msg(toml_type(v) == value_cases[_i].type,
	    "<%s>: type %s, want %s", value_cases[_i].toml,
	    toml_type_name(toml_type(v)),
	    toml_type_name(value_cases[_i].type));
	render(v, got, sizeof got);
	ck_assert_msg(strcmp(got, value_cases[_i].want) == 0,
	    "<%s>: got <%s>, want <%s>", value_cases[_i].toml, got,
	    value_cases[_i].want);
	toml_free(root);
}
END_TEST

START_TEST(test_errors)
{
	const char	*text = error_cases[_i].toml;
	char		*cause;
	size_t		 len;

	len = error_cases[_i].len == 0 ? strlen(text) : error_cases[_i].len;
	cause = parse_fail(text, len);
	ck_assert_msg(strcmp(cause, error_cases[_i].cause) == 0,
	    "case %d <%s>: got <%s>, want <%s>", _i, text, cause,
	    error_cases[_i].cause);
	free(cause);
}
END_TEST

/* Render err's path as "a/[1]/b", keys as they are (NULs as '@'). */
static void
render_path(const struct toml_error *err, char *buf, size_t size)
{
	size_t	i, k, n = 0;

	buf[0] = '\0';
	for (i = 0; i < err->npath; i++) {
		if (i > 0)
			n += (size_t)snprintf(buf + n, size - n, "/");
		if (err->path[i].key == NULL) {
			ck_assert_uint_eq(err->path[i].len, 0);
			n += (size_t)snprintf(buf + n, size - n, "[%zu]",
			    err->path[i].index);
			continue;
		}
		ck_assert_int_eq(err->path[i].key[err->path[i].len], '\0');
		for (k = 0; k < err->path[i].len; k++) {
			n += (size_t)snprintf(buf + n, size - n, "%c",
			    err->path[i].key[k] == '\0' ? '@' :
			    err->path[i].key[k]);
		}
		ck_assert_uint_lt(n, size);
	}
}

/*
 * toml_parse_report(): a null's word, position and path from the root,
 * through headers (arrays of tables too), dotted keys, inline tables and
 * arrays; the message is toml_parse()'s cause without the position.
 */
static const struct {
	const char	*toml;
	const char	*word;
	int		 line, col;
	const char	*path;
} null_cases[] = {
	{ "a = null", "null", 1, 5, "a" },
	{ "x = 1\n[t]\ny.z = None", "None", 3, 7, "t/y/z" },
	{ "[a.b]\n[a]\nc = nil", "nil", 3, 5, "a/c" },
	{ "[[j]]\n[[j]]\n[j.k]\nv = {w = [0, [1, NULL]]}", "NULL", 4, 18,
	  "j/[1]/k/v/w/[1]/[1]" },
	{ "[[a]]\n[a.b]\nc = undefined", "undefined", 3, 5, "a/[0]/b/c" },
	{ "[[a.b]]\n[[a.b]]\n[[a.b]]\nc = null", "null", 4, 5,
	  "a/b/[2]/c" },
	{ "a = [{b = [{c = null}]}]", "null", 1, 17, "a/[0]/b/[0]/c" },
	{ "\"q.k\" = null", "null", 1, 9, "q.k" },
	{ "\"n\\u0000l\" = null", "null", 1, 14, "n@l" },
	{ "t = {}\n[u]\nv = [null]", "null", 3, 6, "u/v/[0]" },
};

START_TEST(test_null_report)
{
	struct toml_error	 err;
	const char		*text = null_cases[_i].toml;
	char			 path[256], *cause = NULL, *want;

	memset(&err, 0xa5, sizeof err);
	ck_assert_ptr_null(toml_parse_report(text, strlen(text), &err));
	ck_assert_int_eq(err.code, TOML_ERROR_NULL);
	ck_assert_str_eq(err.word, null_cases[_i].word);
	ck_assert_int_eq(err.line, null_cases[_i].line);
	ck_assert_int_eq(err.col, null_cases[_i].col);
	render_path(&err, path, sizeof path);
	ck_assert_msg(strcmp(path, null_cases[_i].path) == 0,
	    "case %d <%s>: path <%s>, want <%s>", _i, text, path,
	    null_cases[_i].path);

	/* toml_parse() gives the same message, with the position. */
	ck_assert_ptr_null(toml_parse(text, strlen(text), &cause));
	want = NULL;
	ck_assert_int_ge(asprintf(&want, "%d:%d: %s", err.line, err.col,
	    err.message), 0);
	ck_assert_str_eq(cause, want);
	free(want);
	free(cause);
	toml_error_clear(&err);
	ck_assert_ptr_null(err.message);
	ck_assert_ptr_null(err.path);
	ck_assert_uint_eq(err.npath, 0);
}
END_TEST

/* toml_parse_report() on other errors, on success, and with no err. */
START_TEST(test_report_api)
{
	struct toml_value	*root;
	struct toml_error	 err;
	static const char	 big[] = "a = 1";

	/* Another error: its code, position and message; no path. */
	memset(&err, 0xa5, sizeof err);
	ck_assert_ptr_null(toml_parse_report("a = 1\nb = tru", 13, &err));
	ck_assert_int_eq(err.code, TOML_ERROR_SYNTAX);
	ck_assert_int_eq(err.line, 2);
	ck_assert_int_eq(err.col, 5);
	ck_assert_str_eq(err.message, "invalid value 'tru'");
	ck_assert_ptr_null(err.word);
	ck_assert_ptr_null(err.path);
	ck_assert_uint_eq(err.npath, 0);
	toml_error_clear(&err);

	/* An error after a header, inside an array: still no path. */
	ck_assert_ptr_null(toml_parse_report("[t]\na = [1, {", 13, &err));
	ck_assert_int_eq(err.code, TOML_ERROR_SYNTAX);
	ck_assert_ptr_null(err.path);
	toml_error_clear(&err);

	/* The input limit and bad UTF-8: at their places. */
	ck_assert_ptr_null(toml_parse_report(big, (size_t)TOML_MAX_INPUT + 1,
	    &err));
	ck_assert_int_eq(err.line, 1);
	ck_assert_int_eq(err.col, 1);
	ck_assert_str_eq(err.message, "input larger than 16777216 bytes");
	toml_error_clear(&err);
	ck_assert_ptr_null(toml_parse_report("a = \"\xff\"", 7, &err));
	ck_assert_int_eq(err.col, 6);
	ck_assert_str_eq(err.message, "invalid UTF-8");
	toml_error_clear(&err);

	/* Success zeroes err; NULL err is allowed either way. */
	memset(&err, 0xa5, sizeof err);
	root = toml_parse_report("a = 1", 5, &err);
	ck_assert_ptr_nonnull(root);
	ck_assert_int_eq(err.code, TOML_ERROR_SYNTAX);
	ck_assert_ptr_null(err.message);
	ck_assert_ptr_null(err.path);
	toml_free(root);
	toml_error_clear(&err);
	toml_error_clear(NULL);
	ck_assert_ptr_null(toml_parse_report("a = null", 8, NULL));
	root = toml_parse_report("a = 1", 5, NULL);
	ck_assert_ptr_nonnull(root);
	toml_free(root);
}
END_TEST

START_TEST(test_float_specials)
{
	struct toml_value	*root;

	root = parse_ok("a = -0.0\nb = -nan\nc = -inf\nd = 5e-324");
	ck_assert(signbit(toml_float(toml_table_get(root, "a"))));
	ck_assert(isnan(toml_float(toml_table_get(root, "b"))));
	ck_assert(isinf(toml_float(toml_table_get(root, "c"))));
	ck_assert(toml_float(toml_table_get(root, "c")) < 0);
	ck_assert(toml_float(toml_table_get(root, "d")) > 0);
	toml_free(root);
}
END_TEST

START_TEST(test_strings_with_nul)
{
	struct toml_value	*root, *v;
	const char		*s, *key;
	size_t			 len;

	root = parse_ok("s = \"x\\u0000y\"\n\"k\\u0000\" = 1\n");
	v = toml_table_get(root, "s");
	s = toml_string(v, &len);
	ck_assert_uint_eq(len, 3);
	ck_assert(memcmp(s, "x\0y", 4) == 0);
	key = toml_table_key(root, 1, &len);
	ck_assert_uint_eq(len, 2);
	ck_assert(memcmp(key, "k\0", 3) == 0);
	ck_assert_ptr_null(toml_table_get(root, "k"));
	ck_assert_ptr_nonnull(toml_table_key(root, 1, NULL));
	toml_free(root);
}
END_TEST

START_TEST(test_structure)
{
	struct toml_value	*root, *v, *a;
	const char		*text =
	    "title = \"t\"\n"
	    "[owner]\n"
	    "name.first = \"Tom\"\n"
	    "name.last = \"Preston-Werner\"\n"
	    "[[products]]\n"
	    "name = \"Hammer\"\n"
	    "[[products]]\n"
	    "[[products]]\n"
	    "name = \"Nail\"\n"
	    "[products.size]\n"
	    "mm = 3\n"
	    "[fruit.apple]\n"
	    "color = \"red\"\n"
	    "[fruit]\n"
	    "mixed = [1, \"two\", [3.0], {four = 4}, []]\n"
	    "inline = {a.b = 1, c = {}}\n";

	root = parse_ok(text);
	ck_assert_uint_eq(toml_table_size(root), 4);
	ck_assert_str_eq(toml_table_key(root, 0, NULL), "title");
	ck_assert_str_eq(toml_table_key(root, 1, NULL), "owner");
	ck_assert_str_eq(toml_table_key(root, 2, NULL), "products");
	ck_assert_str_eq(toml_table_key(root, 3, NULL), "fruit");

	v = toml_table_get(toml_table_get(toml_table_get(root, "owner"),
	    "name"), "last");
	ck_assert_str_eq(toml_string(v, NULL), "Preston-Werner");

	a = toml_table_get(root, "products");
	ck_assert_int_eq(toml_type(a), TOML_ARRAY);
	ck_assert_uint_eq(toml_array_size(a), 3);
	ck_assert_uint_eq(toml_table_size(toml_array_get(a, 1)), 0);
	ck_assert_str_eq(toml_string(toml_table_get(toml_array_get(a, 0),
	    "name"), NULL), "Hammer");
	v = toml_table_get(toml_table_get(toml_array_get(a, 2), "size"),
	    "mm");
	ck_assert_int_eq(toml_integer(v), 3);

	v = toml_table_get(root, "fruit");
	ck_assert_uint_eq(toml_table_size(v), 3);
	ck_assert_str_eq(toml_table_key(v, 0, NULL), "apple");
	ck_assert_str_eq(toml_table_key(v, 1, NULL), "mixed");
	a = toml_table_get(v, "mixed");
	ck_assert_uint_eq(toml_array_size(a), 5);
	ck_assert_int_eq(toml_type(toml_array_get(a, 0)), TOML_INTEGER);
	ck_assert_int_eq(toml_type(toml_array_get(a, 1)), TOML_STRING);
	ck_assert_int_eq(toml_type(toml_array_get(a, 2)), TOML_ARRAY);
	ck_assert(toml_float(toml_array_get(toml_array_get(a, 2), 0)) == 3.0);
	ck_assert_int_eq(toml_integer(toml_table_get(toml_array_get(a, 3),
	    "four")), 4);
	ck_assert_uint_eq(toml_array_size(toml_array_get(a, 4)), 0);
	ck_assert_int_eq(toml_type(toml_array_get(a, 4)), TOML_ARRAY);
	v = toml_table_get(v, "inline");
	ck_assert_int_eq(toml_integer(toml_table_get(toml_table_get(v, "a"),
	    "b")), 1);
	ck_assert_int_eq(toml_type(toml_table_get(v, "c")), TOML_TABLE);
	toml_free(root);
}
END_TEST

START_TEST(test_valid_table_rules)
{
	static const char *const ok[] = {
		/* A super-table after its sub-table, once. */
		"[a.b.c]\nx = 1\n[a]\ny = 2",
		/* Headers may go through tables made by dotted keys. */
		"[fruit]\napple.color = 'red'\napple.taste.sweet = true\n"
		"[fruit.apple.texture]\nsmooth = true",
		/* Sub-tables of the last element of an array of tables. */
		"[[a]]\n[a.b]\n[[a]]\n[a.b]\n[[a.c]]\n[[a.c]]",
		/* An array of tables inside an implicit table. */
		"[[a.b]]\n[a]\nx = 1",
		/* Dotted keys extend their own tables in one section. */
		"a.b = 1\na.c = 2\na.d.e = 3\n[x]\ny.z = 1\ny.w = 2",
		/* Quoted and bare keys are the same key space. */
		"\"a\".'b' = 1\na.c = 2",
		/* Keys that look like other things. */
		"true = 1\ninf = 2\n1234 = 3\n3.14 = 4\n-_- = 5\n\"\" = 6",
		/* Comments, blank lines and CRLF everywhere allowed. */
		"# c\r\n\r\n  a = [ # c\r\n 1, # c\r\n ] # c\r\n[b] # c\r\n",
		"",
		"\n\n\t \n",
	};
	struct toml_value	*root;
	size_t			 i;

	for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		root = parse_ok(ok[i]);
		toml_free(root);
	}
	root = parse_ok("3.14 = 4");
	ck_assert_int_eq(toml_integer(toml_table_get(toml_table_get(root,
	    "3"), "14")), 4);
	toml_free(root);
}
END_TEST

START_TEST(test_positions)
{
	struct toml_value	*root, *server, *http, *job, *a, *x;
	const char		*text =
	    "title = \"x\"\n"		/* 1 */
	    "[server]\n"		/* 2 */
	    "  port = 8080\n"		/* 3 */
	    "  http.path = \"/\"\n"	/* 4 */
	    "[[job]]\n"			/* 5 */
	    "  name = \"a\"\n"		/* 6 */
	    " [[job]]\n"		/* 7 */
	    "[a.b]\n"			/* 8 */
	    "[ a ]\n"			/* 9 */
	    "x = [1, {y = 2}]\n"	/* 10 */
	    "\t\"\xc3\xa9\" = 'caf\xc3\xa9'\n";	/* 11 */

	root = parse_ok(text);
	ck_assert_int_eq(toml_line(root), 1);
	ck_assert_int_eq(toml_col(root), 1);
	/* title */
	ck_assert_int_eq(toml_table_key_line(root, 0), 1);
	ck_assert_int_eq(toml_table_key_col(root, 0), 1);
	ck_assert_int_eq(toml_line(toml_table_value(root, 0)), 1);
	ck_assert_int_eq(toml_col(toml_table_value(root, 0)), 9);
	/* [server]: the key at its name, the table at its '['. */
	server = toml_table_get(root, "server");
	ck_assert_int_eq(toml_table_key_line(root, 1), 2);
	ck_assert_int_eq(toml_table_key_col(root, 1), 2);
	ck_assert_int_eq(toml_line(server), 2);
	ck_assert_int_eq(toml_col(server), 1);
	ck_assert_int_eq(toml_table_key_line(server, 0), 3);
	ck_assert_int_eq(toml_table_key_col(server, 0), 3);
	ck_assert_int_eq(toml_col(toml_table_get(server, "port")), 10);
	/* http.path: http made by the dotted key, at its first part. */
	http = toml_table_get(server, "http");
	ck_assert_int_eq(toml_line(http), 4);
	ck_assert_int_eq(toml_col(http), 3);
	ck_assert_int_eq(toml_table_key_line(http, 0), 4);
	ck_assert_int_eq(toml_table_key_col(http, 0), 8);
	ck_assert_int_eq(toml_col(toml_table_get(http, "path")), 15);
	/* [[job]]: the array at its first header, each element at its own. */
	job = toml_table_get(root, "job");
	ck_assert_int_eq(toml_table_key_line(root, 2), 5);
	ck_assert_int_eq(toml_table_key_col(root, 2), 3);
	ck_assert_int_eq(toml_line(job), 5);
	ck_assert_int_eq(toml_line(toml_array_get(job, 0)), 5);
	ck_assert_int_eq(toml_line(toml_array_get(job, 1)), 7);
	ck_assert_int_eq(toml_col(toml_array_get(job, 1)), 2);
	/* [a.b] made a; [ a ] defined it, which moves both positions. */
	a = toml_table_get(root, "a");
	ck_assert_int_eq(toml_table_key_line(root, 3), 9);
	ck_assert_int_eq(toml_table_key_col(root, 3), 3);
	ck_assert_int_eq(toml_line(a), 9);
	ck_assert_int_eq(toml_col(a), 1);
	ck_assert_int_eq(toml_table_key_line(a, 0), 8);
	ck_assert_int_eq(toml_table_key_col(a, 0), 4);
	ck_assert_int_eq(toml_line(toml_table_get(a, "b")), 8);
	ck_assert_int_eq(toml_col(toml_table_get(a, "b")), 1);
	/* Values inside arrays and inline tables. */
	x = toml_table_get(a, "x");
	ck_assert_int_eq(toml_line(x), 10);
	ck_assert_int_eq(toml_col(x), 5);
	ck_assert_int_eq(toml_col(toml_array_get(x, 0)), 6);
	ck_assert_int_eq(toml_col(toml_array_get(x, 1)), 9);
	ck_assert_int_eq(toml_table_key_col(toml_array_get(x, 1), 0), 10);
	ck_assert_int_eq(toml_col(toml_table_get(toml_array_get(x, 1), "y")),
	    14);
	/* A tab and a two-byte character count one column each. */
	ck_assert_int_eq(toml_table_key_line(a, 2), 11);
	ck_assert_int_eq(toml_table_key_col(a, 2), 2);
	ck_assert_int_eq(toml_col(toml_table_get(a, "\xc3\xa9")), 8);
	toml_free(root);
}
END_TEST

START_TEST(test_lookup_api)
{
	struct toml_value	*root, *n, *s;
	size_t			 len;

	root = parse_ok("n = 1\ns = 'x'\nt = {}\na = []\n");
	n = toml_table_get(root, "n");
	s = toml_table_get(root, "s");
	ck_assert_ptr_null(toml_table_get(root, "missing"));
	ck_assert_ptr_null(toml_table_get(root, NULL));
	ck_assert_ptr_null(toml_table_get(NULL, "n"));
	ck_assert_ptr_null(toml_table_get(n, "n"));
	ck_assert_ptr_null(toml_table_get(toml_table_get(root, "x"), "y"));
	ck_assert_uint_eq(toml_table_size(NULL), 0);
	ck_assert_uint_eq(toml_table_size(n), 0);
	ck_assert_ptr_null(toml_table_key(root, 4, &len));
	ck_assert_uint_eq(len, 0);
	ck_assert_ptr_null(toml_table_key(n, 0, NULL));
	ck_assert_ptr_null(toml_table_value(root, 99));
	ck_assert_int_eq(toml_table_key_line(root, 99), 0);
	ck_assert_int_eq(toml_table_key_col(NULL, 0), 0);
	ck_assert_uint_eq(toml_array_size(n), 0);
	ck_assert_uint_eq(toml_array_size(toml_table_get(root, "a")), 0);
	ck_assert_ptr_null(toml_array_get(toml_table_get(root, "a"), 0));
	ck_assert_ptr_null(toml_array_get(NULL, 0));
	ck_assert_ptr_null(toml_string(n, &len));
	ck_assert_uint_eq(len, 0);
	ck_assert_ptr_null(toml_string(NULL, NULL));
	ck_assert_int_eq(toml_integer(s), 0);
	ck_assert(toml_float(n) == 0);
	ck_assert_int_eq(toml_bool(n), 0);
	ck_assert_ptr_null(toml_datetime(s));
	ck_assert_int_eq(toml_line(NULL), 0);
	ck_assert_int_eq(toml_col(NULL), 0);
	ck_assert_str_eq(toml_type_name(TOML_TABLE), "table");
	ck_assert_str_eq(toml_type_name(TOML_ARRAY), "array");
	ck_assert_str_eq(toml_type_name(TOML_STRING), "string");
	ck_assert_str_eq(toml_type_name(TOML_INTEGER), "integer");
	ck_assert_str_eq(toml_type_name(TOML_FLOAT), "float");
	ck_assert_str_eq(toml_type_name(TOML_BOOL), "bool");
	ck_assert_str_eq(toml_type_name(TOML_DATETIME), "datetime");
	ck_assert_str_eq(toml_type_name(TOML_DATETIME_LOCAL),
	    "datetime-local");
	ck_assert_str_eq(toml_type_name(TOML_DATE_LOCAL), "date-local");
	ck_assert_str_eq(toml_type_name(TOML_TIME_LOCAL), "time-local");
	toml_free(root);
	toml_free(NULL);
}
END_TEST

/* Allocate size bytes for a test input, or abort. */
static __attribute__((returns_nonnull)) char *
alloc(size_t size)
{
	char	*p;

	if ((p = malloc(size)) == NULL)
		abort();
	return p;
}

/* Return "a = " followed by n opening and n closing brackets. */
static char *
nested_arrays(int n)
{
	char	*s;
	int	 i;

	s = alloc(4 + 2 * (size_t)n + 1);
	memcpy(s, "a = ", 4);
	for (i = 0; i < n; i++) {
		s[4 + i] = '[';
		s[4 + n + i] = ']';
	}
	s[4 + 2 * n] = '\0';
	return s;
}

/* Append the string t at s + *len. */
static void
put(char *s, size_t *len, const char *t)
{
	size_t	n = strlen(t);

	memcpy(s + *len, t, n + 1);
	*len += n;
}

/* Return "a = " with n inline tables nested by key b. */
static char *
nested_inline(int n)
{
	char	*s;
	size_t	 len = 0;
	int	 i;

	s = alloc(4 + (size_t)n * 7 + 2);
	put(s, &len, "a = ");
	for (i = 0; i < n - 1; i++)
		put(s, &len, "{b = ");
	put(s, &len, "{}");
	for (i = 0; i < n - 1; i++)
		put(s, &len, "}");
	return s;
}

/* Return prefix, n key parts "k.k.k...", then suffix. */
static char *
dotted(const char *prefix, int n, const char *suffix)
{
	char	*s;
	size_t	 len = 0;
	int	 i;

	s = alloc(strlen(prefix) + (size_t)n * 2 + strlen(suffix) + 1);
	put(s, &len, prefix);
	for (i = 0; i < n; i++)
		put(s, &len, i == 0 ? "k" : ".k");
	put(s, &len, suffix);
	return s;
}

START_TEST(test_depth_limit)
{
	struct toml_value	*root, *v;
	char			*text, *cause, want[64];
	int			 depth;

	/* Arrays: the root is level 0, so 128 nested arrays fit. */
	text = nested_arrays(TOML_MAX_DEPTH);
	root = parse_ok(text);
	v = toml_table_get(root, "a");
	for (depth = 1; depth < TOML_MAX_DEPTH; depth++)
		v = toml_array_get(v, 0);
	ck_assert_int_eq(toml_type(v), TOML_ARRAY);
	ck_assert_uint_eq(toml_array_size(v), 0);
	toml_free(root);
	free(text);
	text = nested_arrays(TOML_MAX_DEPTH + 1);
	cause = parse_fail(text, strlen(text));
	snprintf(want, sizeof want, "1:%d: nesting deeper than %d levels",
	    5 + TOML_MAX_DEPTH, TOML_MAX_DEPTH);
	ck_assert_str_eq(cause, want);
	free(cause);
	free(text);

	/* Inline tables. */
	text = nested_inline(TOML_MAX_DEPTH);
	root = parse_ok(text);
	toml_free(root);
	free(text);
	text = nested_inline(TOML_MAX_DEPTH + 1);
	cause = parse_fail(text, strlen(text));
	ck_assert_ptr_nonnull(strstr(cause, ": nesting deeper than 128 "
	    "levels"));
	free(cause);
	free(text);

	/* Dotted keys and headers count as levels too. */
	text = dotted("", TOML_MAX_DEPTH, " = 1");
	root = parse_ok(text);
	toml_free(root);
	free(text);
	text = dotted("", TOML_MAX_DEPTH + 1, " = 1");
	cause = parse_fail(text, strlen(text));
	snprintf(want, sizeof want, "1:%d: nesting deeper than %d levels",
	    1 + 2 * TOML_MAX_DEPTH, TOML_MAX_DEPTH);
	ck_assert_str_eq(cause, want);
	free(cause);
	free(text);
	text = dotted("[", TOML_MAX_DEPTH, "]\nx = 1");
	root = parse_ok(text);
	toml_free(root);
	free(text);
	text = dotted("[", TOML_MAX_DEPTH, "]\nx.y = 1");
	cause = parse_fail(text, strlen(text));
	ck_assert_str_eq(cause, "2:1: nesting deeper than 128 levels");
	free(cause);
	free(text);
	text = dotted("[[", TOML_MAX_DEPTH - 1, "]]\nx = []");
	cause = parse_fail(text, strlen(text));
	ck_assert_str_eq(cause, "2:5: nesting deeper than 128 levels");
	free(cause);
	free(text);

	/* Levels add up across dotted keys, arrays and inline tables. */
	text = dotted("", 100, " = [[[[[[[[[[[[[[[[[[[[[[[[[[[[{a = {}}]]]]]]]"
	    "]]]]]]]]]]]]]]]]]]]]]");
	cause = parse_fail(text, strlen(text));
	ck_assert_ptr_nonnull(strstr(cause, "nesting deeper"));
	free(cause);
	free(text);
}
END_TEST

START_TEST(test_size_limit)
{
	struct toml_value	*root;
	char			*buf, *cause;
	size_t			 len = TOML_MAX_INPUT;

	/* The largest input allowed: one long comment and a key. */
	buf = alloc(len + 1);
	memset(buf, 'x', len);
	memcpy(buf, "a = 1\n#", 7);
	root = toml_parse(buf, len, &cause);
	ck_assert_ptr_nonnull(root);
	ck_assert_int_eq(toml_integer(toml_table_get(root, "a")), 1);
	toml_free(root);

	/* One byte more is refused before anything is read. */
	buf[len] = 'x';
	ck_assert_ptr_null(toml_parse(buf, len + 1, &cause));
	ck_assert_str_eq(cause, "1:1: input larger than 16777216 bytes");
	free(cause);
	free(buf);
}
END_TEST

START_TEST(test_memory_limit)
{
	char	*buf, *cause, *key;
	size_t	 len = 0, size = 4 * 1024 * 1024;
	int	 n = 0;

	/*
	 * Each element of [[x]] gets 127 new tables from one dotted key:
	 * about 25 KiB of tree for 270 bytes of input.
	 */
	buf = alloc(size);
	key = dotted("[[x]]\n", TOML_MAX_DEPTH - 1, " = 1\n");
	while (len + strlen(key) < size) {
		put(buf, &len, key);
		n++;
	}
	free(key);
	ck_assert_ptr_null(toml_parse(buf, len, &cause));
	ck_assert_msg(strstr(cause, ": document needs more than 256 MiB of "
	    "memory") != NULL, "%s", cause);
	ck_assert_int_gt(atoi(cause), 2);
	ck_assert_int_lt(atoi(cause), 2 * n);
	free(cause);
	free(buf);
}
END_TEST

START_TEST(test_big_table)
{
	struct toml_value	*root, *v;
	char			*buf, *cause, key[32];
	size_t			 len = 0, size = 50000 * 32;
	int			 i, n = 50000;

	buf = alloc(size);
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, size - len, "k%d = %d\n",
		    (i * 7919) % n, i);
	root = toml_parse(buf, len, NULL);
	ck_assert_ptr_nonnull(root);
	ck_assert_uint_eq(toml_table_size(root), (size_t)n);
	for (i = 0; i < n; i++) {
		snprintf(key, sizeof key, "k%d", (i * 7919) % n);
		ck_assert_str_eq(toml_table_key(root, (size_t)i, NULL), key);
		v = toml_table_get(root, key);
		ck_assert_ptr_nonnull(v);
		ck_assert_int_eq(toml_integer(v), i);
		ck_assert_int_eq(toml_table_key_line(root, (size_t)i), i + 1);
	}
	ck_assert_ptr_null(toml_table_get(root, "k50000"));
	toml_free(root);

	/* A duplicate is found among them. */
	len += (size_t)snprintf(buf + len, size - len, "k777 = 0\n");
	ck_assert_ptr_null(toml_parse(buf, len, NULL));
	ck_assert_ptr_null(toml_parse(buf, len, &cause));
	ck_assert_str_eq(cause, "50001:1: duplicate key 'k777'");
	free(cause);
	free(buf);
}
END_TEST

START_TEST(test_big_everything)
{
	struct toml_value	*root;
	char			*buf, *cause = NULL;
	size_t			 len = 0, size = 4 * 1024 * 1024;
	int			 i;

	/* Many tables, a long one-line array, a wide inline table. */
	buf = alloc(size);
	for (i = 0; i < 20000; i++)
		len += (size_t)snprintf(buf + len, size - len,
		    "[t%d]\nx.y%d = 1\n", i, i);
	len += (size_t)snprintf(buf + len, size - len, "[big]\na = [");
	for (i = 0; i < 200000; i++)
		len += (size_t)snprintf(buf + len, size - len, "%d,", i);
	len += (size_t)snprintf(buf + len, size - len, "]\nb = {");
	for (i = 0; i < 20000; i++)
		len += (size_t)snprintf(buf + len, size - len, "%sk%d = %d",
		    i == 0 ? "" : ", ", i, i);
	len += (size_t)snprintf(buf + len, size - len, "}\nc = 1 2\n");
	ck_assert_uint_lt(len, size);
	ck_assert_ptr_null(toml_parse(buf, len, &cause));
	ck_assert_str_eq(cause, "40004:7: expected end of line after value");
	free(cause);

	len -= 3;
	root = toml_parse(buf, len, &cause);
	ck_assert_ptr_nonnull(root);
	ck_assert_uint_eq(toml_table_size(root), 20001);
	ck_assert_uint_eq(toml_array_size(toml_table_get(toml_table_get(root,
	    "big"), "a")), 200000);
	ck_assert_int_eq(toml_integer(toml_table_get(toml_table_get(
	    toml_table_get(root, "big"), "b"), "k19999")), 19999);
	ck_assert_int_eq(toml_col(toml_table_get(toml_table_get(
	    toml_table_get(root, "big"), "b"), "k1")), 19);
	toml_free(root);
	free(buf);
}
END_TEST

/* Build the toml suite. */
static Suite *
toml_suite(void)
{
	Suite	*s = suite_create("toml");
	TCase	*tc;

	tc = tcase_create("values");
	tcase_add_loop_test(tc, test_values, 0,
	    sizeof value_cases / sizeof value_cases[0]);
	tcase_add_test(tc, test_float_specials);
	tcase_add_test(tc, test_strings_with_nul);
	tcase_add_test(tc, test_structure);
	tcase_add_test(tc, test_valid_table_rules);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_loop_test(tc, test_errors, 0,
	    sizeof error_cases / sizeof error_cases[0]);
	suite_add_tcase(s, tc);

	tc = tcase_create("api");
	tcase_add_loop_test(tc, test_null_report, 0,
	    sizeof null_cases / sizeof null_cases[0]);
	tcase_add_test(tc, test_report_api);
	tcase_add_test(tc, test_positions);
	tcase_add_test(tc, test_lookup_api);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_depth_limit);
	tcase_add_test(tc, test_size_limit);
	tcase_add_test(tc, test_memory_limit);
	tcase_add_test(tc, test_big_table);
	tcase_add_test(tc, test_big_everything);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr = srunner_create(toml_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
