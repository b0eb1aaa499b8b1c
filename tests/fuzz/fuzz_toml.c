/*
 * fuzz_toml.c: fuzz target for the TOML parser (include/toml.h).  The
 * input is a document.  A tree that parses is walked through every
 * accessor, including those of the other types, and checked against the
 * header's promises: accessors of another type give 0 or NULL, strings and
 * keys are NUL-terminated at their length, toml_table_get() finds each key
 * (without NULs) at its own value, positions are 1-based, the nesting stays
 * within TOML_MAX_DEPTH and date-times are RFC 3339 text.  A document that
 * does not parse must say where: "LINE:COL: message".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "toml.h"

static void	fuzz_toml_walk(const struct toml_value *, int);

/* Abort unless s is "LINE:COL: message" with both numbers from 1. */
static void
fuzz_toml_cause(const char *s)
{
	int	i;

	if (s == NULL)
		abort();
	for (i = 0; i < 2; i++) {
		if (*s < '1' || *s > '9')
			abort();
		while (*s >= '0' && *s <= '9')
			s++;
		if (*s++ != ':')
			abort();
	}
	if (*s != ' ' || s[1] == '\0')
		abort();
}

/* Abort unless s, of len bytes, is NUL-terminated there. */
static void
fuzz_toml_string(const char *s, size_t len)
{
	if (s == NULL || s[len] != '\0' || strlen(s) > len)
		abort();
}

/* Abort unless s looks like canonical RFC 3339 text. */
static void
fuzz_toml_datetime(const char *s)
{
	size_t	len;

	if (s == NULL || (len = strlen(s)) < 8)
		abort();
	if (strspn(s, "0123456789-:T.Z+") != len)
		abort();
}

/* Abort unless the accessors of every other type give 0 or NULL. */
static void
fuzz_toml_other(const struct toml_value *v, enum toml_type type)
{
	size_t	len = 1;

	if (type != TOML_TABLE && (toml_table_size(v) != 0 ||
	    toml_table_key(v, 0, &len) != NULL || len != 0 ||
	    toml_table_value(v, 0) != NULL || toml_table_get(v, "a") != NULL ||
	    toml_table_key_line(v, 0) != 0 || toml_table_key_col(v, 0) != 0))
		abort();
	if (type != TOML_ARRAY && (toml_array_size(v) != 0 ||
	    toml_array_get(v, 0) != NULL))
		abort();
	len = 1;
	if (type != TOML_STRING && (toml_string(v, &len) != NULL || len != 0))
		abort();
	if (type != TOML_INTEGER && toml_integer(v) != 0)
		abort();
	if (type != TOML_FLOAT && toml_float(v) != 0)
		abort();
	if (type != TOML_BOOL && toml_bool(v) != 0)
		abort();
	if (type != TOML_DATETIME && type != TOML_DATETIME_LOCAL &&
	    type != TOML_DATE_LOCAL && type != TOML_TIME_LOCAL &&
	    toml_datetime(v) != NULL)
		abort();
}

/* Walk table t: each key, where it was written, its value, its lookup. */
static void
fuzz_toml_table(const struct toml_value *t, int depth)
{
	const struct toml_value	*v;
	const char		*key;
	size_t			 i, n, len;

	n = toml_table_size(t);
	for (i = 0; i < n; i++) {
		key = toml_table_key(t, i, &len);
		fuzz_toml_string(key, len);
		if (toml_table_key_line(t, i) < 1 ||
		    toml_table_key_col(t, i) < 1)
			abort();
		if ((v = toml_table_value(t, i)) == NULL)
			abort();
		if (strlen(key) == len && toml_table_get(t, key) != v)
			abort();
		fuzz_toml_walk(v, depth + 1);
	}
	if (toml_table_key(t, n, NULL) != NULL ||
	    toml_table_value(t, n) != NULL)
		abort();
}

/* Walk value v, found depth levels below the root, and all it holds. */
static void
fuzz_toml_walk(const struct toml_value *v, int depth)
{
	enum toml_type	 type = toml_type(v);
	const char	*s;
	size_t		 i, n, len;

	if (depth > TOML_MAX_DEPTH + 1 || toml_type_name(type) == NULL)
		abort();
	if (depth > 0 && (toml_line(v) < 1 || toml_col(v) < 1))
		abort();
	fuzz_toml_other(v, type);
	switch (type) {
	case TOML_TABLE:
		fuzz_toml_table(v, depth);
		break;
	case TOML_ARRAY:
		n = toml_array_size(v);
		for (i = 0; i < n; i++) {
			if (toml_array_get(v, i) == NULL)
				abort();
			fuzz_toml_walk(toml_array_get(v, i), depth + 1);
		}
		if (toml_array_get(v, n) != NULL)
			abort();
		break;
	case TOML_STRING:
		s = toml_string(v, &len);
		fuzz_toml_string(s, len);
		if (toml_string(v, NULL) != s)
			abort();
		break;
	case TOML_INTEGER:
		(void)toml_integer(v);
		break;
	case TOML_FLOAT:
		(void)toml_float(v);
		break;
	case TOML_BOOL:
		(void)toml_bool(v);
		break;
	case TOML_DATETIME:
	case TOML_DATETIME_LOCAL:
	case TOML_DATE_LOCAL:
	case TOML_TIME_LOCAL:
		fuzz_toml_datetime(toml_datetime(v));
		break;
	default:
		abort();
	}
}

/* Parse the input as a document, walk the tree, free it. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct toml_value	*root;
	char			*cause = NULL;

	root = toml_parse((const char *)data, size, &cause);
	if (root == NULL) {
		fuzz_toml_cause(cause);
		free(cause);
		return 0;
	}
	if (cause != NULL || toml_type(root) != TOML_TABLE)
		abort();
	fuzz_toml_walk(root, 0);
	toml_free(root);
	return 0;
}
