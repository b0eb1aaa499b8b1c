/*
 * jsonval.c: the one file that knows jansson (see jsonval.h).  A struct
 * jsonval is jansson's json_t behind an opaque pointer.
 *
 * The parse is RFC 8259 with jansson's checks (UTF-8, escapes, surrogate
 * pairs, no trailing text) plus ours: any value at the top
 * (JSON_DECODE_ANY), duplicate keys refused (JSON_REJECT_DUPLICATES), NUL
 * allowed in strings (JSON_ALLOW_NUL) but refused in keys (jansson's own
 * rule), the input's size and its nesting bounded before jansson sees it.
 *
 * Deviation from jansson, for jsonval.h's rule: jansson refuses an
 * integer that does not fit its json_int_t ("too big integer").  Such a
 * document is parsed again with every integer read as a real, and a walk
 * of the tree beside the input's number tokens (both in document order:
 * jansson keeps an object's members in the order they came) turns each
 * integer that fits back into one.  Numbers past a double's range stay
 * an error ("real number overflow").
 *
 * Errors are "LINE:COL: text", lines and columns from 1, columns counted
 * in characters as jansson counts them.
 */
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jsonval.h"
#include "xmalloc.h"

#define JSONVAL_FLAGS	(JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | \
			 JSON_ALLOW_NUL)

/* Where the scanner is: a byte offset, a line and a column. */
struct jsonval_pos {
	size_t		off;
	int		line;
	int		col;
};

/* A number token of the input: where it starts and its length. */
struct jsonval_num {
	size_t		off;
	size_t		len;
};

/* What one pass of the scanner found. */
struct jsonval_scan {
	struct jsonval_pos	 deep;	/* where it nests too deep */
	int			 too_deep;
	struct jsonval_num	*nums;	/* number tokens, when asked */
	size_t			 nnums;
	size_t			 anums;
};

static json_t	*jsonval_json(const struct jsonval *);
static void	 jsonval_scan(const char *, size_t, struct jsonval_scan *,
		     int);
static int	 jsonval_token_int(const char *, const struct jsonval_num *,
		     json_int_t *);
static json_t	*jsonval_fixed(json_t *, const char *,
		     const struct jsonval_scan *, size_t *, int *);
static json_t	*jsonval_load(const char *, size_t, char **);

/* Return the json_t behind a value (a cast: they are the same object). */
static json_t *
jsonval_json(const struct jsonval *v)
{
	return (json_t *)(uintptr_t)v;
}

/*
 * Walk the input outside strings: note where the nesting first goes past
 * JSONVAL_MAX_DEPTH and, with want_nums, every number token's place.
 * The input need not be valid; jansson judges that.
 */
static void
jsonval_scan(const char *buf, size_t len, struct jsonval_scan *sc,
    int want_nums)
{
	struct jsonval_pos	 pos = { 0, 1, 1 };
	int			 depth = 0, in_str = 0, esc = 0;
	unsigned char		 c;
	size_t			 start;

	memset(sc, 0, sizeof *sc);
	while (pos.off < len) {
		c = (unsigned char)buf[pos.off];
		if (in_str) {
			if (esc)
				esc = 0;
			else if (c == '\\')
				esc = 1;
			else if (c == '"')
				in_str = 0;
		} else if (c == '"')
			in_str = 1;
		else if (c == '[' || c == '{') {
			if (++depth > JSONVAL_MAX_DEPTH) {
				sc->deep = pos;
				sc->too_deep = 1;
				return;
			}
		} else if (c == ']' || c == '}')
			depth--;
		else if (want_nums && (c == '-' || (c >= '0' && c <= '9'))) {
			start = pos.off;
			while (pos.off < len && strchr("0123456789+-.eE",
			    buf[pos.off]) != NULL && buf[pos.off] != '\0') {
				pos.off++;
				pos.col++;
			}
			if (sc->nnums == sc->anums) {
				sc->anums = sc->anums * 2 + 16;
				sc->nums = xreallocarray(sc->nums, sc->anums,
				    sizeof *sc->nums);
			}
			sc->nums[sc->nnums].off = start;
			sc->nums[sc->nnums].len = pos.off - start;
			sc->nnums++;
			continue;
		}
		if (c == '\n') {
			pos.line++;
			pos.col = 1;
		} else if ((c & 0xc0) != 0x80)
			pos.col++;
		pos.off++;
	}
}

/* Return 1 with *n when a number token is an integer that fits, else 0. */
static int
jsonval_token_int(const char *buf, const struct jsonval_num *num,
    json_int_t *n)
{
	char		 tok[32], *end;
	long long	 v;

	if (num->len >= sizeof tok)
		return 0;
	memcpy(tok, buf + num->off, num->len);
	tok[num->len] = '\0';
	if (strpbrk(tok, ".eE") != NULL)
		return 0;
	errno = 0;
	v = strtoll(tok, &end, 10);
	if (errno != 0 || *end != '\0' || end == tok)
		return 0;
	*n = (json_int_t)v;
	return 1;
}

/*
 * Walk v in document order beside the number tokens from *next on; a real
 * whose token is an integer that fits int64_t is replaced: inside a
 * container here, and v itself by returning its replacement (else NULL).
 * *bad is set when the walk and the tokens disagree (never, for a
 * document jansson read).
 */
static json_t *
jsonval_fixed(json_t *v, const char *buf, const struct jsonval_scan *sc,
    size_t *next, int *bad)
{
	json_t		*m, *r;
	void		*it;
	json_int_t	 n;
	size_t		 i;

	switch (json_typeof(v)) {
	case JSON_REAL:
	case JSON_INTEGER:
		if (*next >= sc->nnums) {
			*bad = 1;
			return NULL;
		}
		if (jsonval_token_int(buf, &sc->nums[(*next)++], &n) &&
		    json_is_real(v))
			return json_integer(n);
		return NULL;
	case JSON_ARRAY:
		for (i = 0; i < json_array_size(v) && !*bad; i++) {
			m = json_array_get(v, i);
			if ((r = jsonval_fixed(m, buf, sc, next, bad)) != NULL)
				json_array_set_new(v, i, r);
		}
		return NULL;
	case JSON_OBJECT:
		for (it = json_object_iter(v); it != NULL && !*bad;
		    it = json_object_iter_next(v, it)) {
			m = json_object_iter_value(it);
			if ((r = jsonval_fixed(m, buf, sc, next, bad)) != NULL)
				json_object_iter_set_new(v, it, r);
		}
		return NULL;
	default:
		return NULL;
	}
}

/*
 * Parse len bytes at buf with jansson, integers past int64_t as reals
 * (see the top of the file); NULL with *cause ("LINE:COL: text").
 */
static json_t *
jsonval_load(const char *buf, size_t len, char **cause)
{
	struct jsonval_scan	 sc;
	json_error_t		 err;
	json_t			*v, *r;
	size_t			 next = 0;
	int			 bad = 0;

	v = json_loadb(buf, len, JSONVAL_FLAGS, &err);
	if (v == NULL && json_error_code(&err) == json_error_numeric_overflow &&
	    strstr(err.text, "integer") != NULL) {
		v = json_loadb(buf, len, JSONVAL_FLAGS |
		    JSON_DECODE_INT_AS_REAL, &err);
		if (v != NULL) {
			jsonval_scan(buf, len, &sc, 1);
			if ((r = jsonval_fixed(v, buf, &sc, &next, &bad)) !=
			    NULL) {
				json_decref(v);
				v = r;
			}
			free(sc.nums);
			if (bad || next != sc.nnums) {
				json_decref(v);
				*cause = xstrdup("1:1: numbers could not be "
				    "read back");
				return NULL;
			}
		}
	}
	if (v == NULL)
		*cause = xprintf("%d:%d: %s", err.line > 0 ? err.line : 1,
		    err.column > 0 ? err.column : 1, err.text);
	return v;
}

/*
 * Parse len bytes at buf as one JSON document; NULL with *cause when it is
 * not one, is larger than JSONVAL_MAX_INPUT or nests deeper than
 * JSONVAL_MAX_DEPTH.
 */
struct jsonval *
jsonval_parse(const char *buf, size_t len, char **cause)
{
	struct jsonval_scan	 sc;
	json_t			*v;

	if (len > JSONVAL_MAX_INPUT) {
		*cause = xprintf("1:1: %zu bytes is more than the limit of "
		    "%d", len, JSONVAL_MAX_INPUT);
		return NULL;
	}
	jsonval_scan(buf, len, &sc, 0);
	if (sc.too_deep) {
		*cause = xprintf("%d:%d: nested deeper than %d", sc.deep.line,
		    sc.deep.col, JSONVAL_MAX_DEPTH);
		return NULL;
	}
	if ((v = jsonval_load(buf, len, cause)) == NULL)
		return NULL;
	return (struct jsonval *)v;
}

/* Free a document (NULL is fine). */
void
jsonval_free(struct jsonval *v)
{
	if (v != NULL)
		json_decref(jsonval_json(v));
}

/* Return a value's type; NULL (a missing value) is JSONVAL_NULL. */
enum jsonval_type
jsonval_type(const struct jsonval *v)
{
	if (v == NULL)
		return JSONVAL_NULL;
	switch (json_typeof(jsonval_json(v))) {
	case JSON_OBJECT:
		return JSONVAL_OBJECT;
	case JSON_ARRAY:
		return JSONVAL_ARRAY;
	case JSON_STRING:
		return JSONVAL_STRING;
	case JSON_INTEGER:
		return JSONVAL_INT;
	case JSON_REAL:
		return JSONVAL_REAL;
	case JSON_TRUE:
	case JSON_FALSE:
		return JSONVAL_BOOL;
	case JSON_NULL:
	default:
		return JSONVAL_NULL;
	}
}

/* Return a type's word for messages ("string", "object"...). */
const char *
jsonval_type_name(enum jsonval_type t)
{
	switch (t) {
	case JSONVAL_NULL:
		return "null";
	case JSONVAL_BOOL:
		return "boolean";
	case JSONVAL_INT:
		return "integer";
	case JSONVAL_REAL:
		return "real";
	case JSONVAL_STRING:
		return "string";
	case JSONVAL_ARRAY:
		return "array";
	case JSONVAL_OBJECT:
		return "object";
	}
	return "unknown";
}

/* Return an object's member key, or NULL (none, or not an object). */
const struct jsonval *
jsonval_get(const struct jsonval *obj, const char *key)
{
	if (obj == NULL || key == NULL || !json_is_object(jsonval_json(obj)))
		return NULL;
	return (const struct jsonval *)json_object_get(jsonval_json(obj), key);
}

/* Return an array's element i, or NULL (out of range, not an array). */
const struct jsonval *
jsonval_at(const struct jsonval *arr, size_t i)
{
	if (arr == NULL || !json_is_array(jsonval_json(arr)))
		return NULL;
	return (const struct jsonval *)json_array_get(jsonval_json(arr), i);
}

/* Return how many elements or members a value has (0 for the others). */
size_t
jsonval_count(const struct jsonval *v)
{
	json_t	*j;

	if (v == NULL)
		return 0;
	j = jsonval_json(v);
	if (json_is_array(j))
		return json_array_size(j);
	if (json_is_object(j))
		return json_object_size(j);
	return 0;
}

/*
 * Step through an object's members in document order: *iter NULL starts,
 * each call fills *m and returns 1, then 0 at the end (and on every call
 * after it, or for what is not an object).
 */
int
jsonval_next(const struct jsonval *obj, void **iter, struct jsonval_member *m)
{
	json_t	*j;
	void	*it;

	if (obj == NULL || !json_is_object(jsonval_json(obj)))
		return 0;
	j = jsonval_json(obj);
	it = *iter == NULL ? json_object_iter(j) :
	    json_object_iter_next(j, *iter);
	if (it == NULL)
		return 0;
	*iter = it;
	m->key = json_object_iter_key(it);
	m->value = (const struct jsonval *)json_object_iter_value(it);
	return 1;
}

/* Return a string's bytes (NUL terminated, may hold NUL), or NULL. */
const char *
jsonval_string(const struct jsonval *v)
{
	if (v == NULL || !json_is_string(jsonval_json(v)))
		return NULL;
	return json_string_value(jsonval_json(v));
}

/* Return a string's length in bytes, or 0 for what is not a string. */
size_t
jsonval_string_len(const struct jsonval *v)
{
	if (v == NULL || !json_is_string(jsonval_json(v)))
		return 0;
	return json_string_length(jsonval_json(v));
}

/* Set *n to an integer's value: 0, or -1 for what is not an integer. */
int
jsonval_int(const struct jsonval *v, int64_t *n)
{
	if (v == NULL || !json_is_integer(jsonval_json(v)))
		return -1;
	*n = (int64_t)json_integer_value(jsonval_json(v));
	return 0;
}

/* Set *d to a number's value (integer or real): 0, or -1. */
int
jsonval_number(const struct jsonval *v, double *d)
{
	if (v == NULL || !json_is_number(jsonval_json(v)))
		return -1;
	*d = json_number_value(jsonval_json(v));
	return 0;
}

/* Set *b to a boolean's value (0 or 1): 0, or -1 for the others. */
int
jsonval_bool(const struct jsonval *v, int *b)
{
	if (v == NULL || !json_is_boolean(jsonval_json(v)))
		return -1;
	*b = json_is_true(jsonval_json(v));
	return 0;
}

/* Return the string member key of an object, or NULL. */
const char *
jsonval_get_string(const struct jsonval *obj, const char *key)
{
	return jsonval_string(jsonval_get(obj, key));
}
