/*
 * fuzz_jsonval.c: fuzz target for the JSON reader (include/jsonval.h).
 * The input is a JSON document.  A refusal must say "LINE:COL: text"
 * with both from 1; a document read must keep the header's promises:
 * nesting at most JSONVAL_MAX_DEPTH, strings NUL terminated at their
 * length, keys without NUL and found again by jsonval_get() as the
 * member jsonval_next() gave, as many members or elements as
 * jsonval_count() says, integers also numbers, and every getter of
 * another type saying no.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "jsonval.h"

static void	fuzz_jsonval_walk(const struct jsonval *, int);

/* Abort unless cause is "LINE:COL: text" with LINE and COL from 1. */
static void
fuzz_jsonval_cause(const char *cause)
{
	const char	*s = cause;
	int		 i;

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
	if (s[0] != ' ' || s[1] == '\0')
		abort();
}

/* Abort unless the getters of the other types say no to v. */
static void
fuzz_jsonval_others(const struct jsonval *v, enum jsonval_type t)
{
	int64_t	n;
	double	d;
	int	b;

	if (t != JSONVAL_STRING && (jsonval_string(v) != NULL ||
	    jsonval_string_len(v) != 0))
		abort();
	if (t != JSONVAL_INT && jsonval_int(v, &n) != -1)
		abort();
	if (t != JSONVAL_INT && t != JSONVAL_REAL &&
	    jsonval_number(v, &d) != -1)
		abort();
	if (t != JSONVAL_BOOL && jsonval_bool(v, &b) != -1)
		abort();
	if (t != JSONVAL_OBJECT && (jsonval_get(v, "") != NULL ||
	    jsonval_get_string(v, "a") != NULL))
		abort();
	if (t != JSONVAL_ARRAY && jsonval_at(v, 0) != NULL)
		abort();
	if (t != JSONVAL_ARRAY && t != JSONVAL_OBJECT &&
	    jsonval_count(v) != 0)
		abort();
}

/* Abort unless an object's members keep their promises; walk them. */
static void
fuzz_jsonval_object(const struct jsonval *v, int depth)
{
	struct jsonval_member	 m;
	void			*it = NULL;
	size_t			 n = 0;

	while (jsonval_next(v, &it, &m)) {
		if (m.key == NULL || m.value == NULL ||
		    jsonval_get(v, m.key) != m.value)
			abort();
		fuzz_jsonval_walk(m.value, depth + 1);
		n++;
	}
	if (n != jsonval_count(v) || jsonval_next(v, &it, &m) != 0)
		abort();
}

/* Abort unless v and everything in it keep their promises. */
static void
fuzz_jsonval_walk(const struct jsonval *v, int depth)
{
	enum jsonval_type	 t = jsonval_type(v);
	const char		*s;
	int64_t			 n;
	double			 d;
	size_t			 i, len;
	int			 b;

	if (v == NULL || depth > JSONVAL_MAX_DEPTH + 1)
		abort();
	if ((t == JSONVAL_ARRAY || t == JSONVAL_OBJECT) &&
	    depth > JSONVAL_MAX_DEPTH)
		abort();
	if (jsonval_type_name(t) == NULL)
		abort();
	fuzz_jsonval_others(v, t);
	switch (t) {
	case JSONVAL_NULL:
		break;
	case JSONVAL_BOOL:
		if (jsonval_bool(v, &b) != 0 || (b != 0 && b != 1))
			abort();
		break;
	case JSONVAL_INT:
		if (jsonval_int(v, &n) != 0 || jsonval_number(v, &d) != 0)
			abort();
		break;
	case JSONVAL_REAL:
		if (jsonval_number(v, &d) != 0)
			abort();
		break;
	case JSONVAL_STRING:
		s = jsonval_string(v);
		len = jsonval_string_len(v);
		if (s == NULL || s[len] != '\0' || strlen(s) > len)
			abort();
		break;
	case JSONVAL_ARRAY:
		len = jsonval_count(v);
		for (i = 0; i < len; i++)
			fuzz_jsonval_walk(jsonval_at(v, i), depth + 1);
		if (jsonval_at(v, len) != NULL)
			abort();
		break;
	case JSONVAL_OBJECT:
		fuzz_jsonval_object(v, depth);
		break;
	}
}

/* Parse the input, check the refusal or every value, free it. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jsonval	*v;
	char		*cause = NULL;

	if ((v = jsonval_parse((const char *)data, size, &cause)) == NULL) {
		fuzz_jsonval_cause(cause);
		free(cause);
		return 0;
	}
	if (cause != NULL)
		abort();
	fuzz_jsonval_walk(v, 1);
	jsonval_free(v);
	return 0;
}
