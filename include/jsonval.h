/*
 * jsonval: a JSON document read into a tree of values, through jansson
 * (src/jsonval.c is the one file that knows it).  Parsing is strict RFC
 * 8259: one value of any type, nothing after it, UTF-8 checked, duplicate
 * keys refused, nesting bounded (JSONVAL_MAX_DEPTH), at most
 * JSONVAL_MAX_INPUT bytes; an error says where, LINE:COL from 1, columns
 * in characters ("1:14: duplicate object key near '"id"'").  Integers
 * that fit int64_t are JSONVAL_INT, other numbers JSONVAL_REAL (one past
 * a double's range is an error).  Strings are UTF-8 and may hold NUL
 * (jsonval_string_len() tells their length); object keys may not.
 * Objects keep their members in document order (jsonval_next()).
 *
 * The writer is json.h; this is the reader, for replies and requests that
 * come from elsewhere (a browser's /json/version, an agent's JSON-RPC).
 *
 * Ownership: jsonval_parse() returns the root, which the caller frees with
 * jsonval_free(); every value reached from it, and every string, belongs
 * to it and lives until then.  Getters take NULL and wrong types and then
 * say no (NULL, 0, -1), so a chain of them needs one check at its end;
 * jsonval_type(NULL) is JSONVAL_NULL.  jsonval_next() starts with *iter
 * NULL and returns 1 a member, then 0 at the end and after it.
 */
#ifndef JOBDECK_JSONVAL_H
#define JOBDECK_JSONVAL_H

#include <stddef.h>
#include <stdint.h>

#define JSONVAL_MAX_INPUT	(16 * 1024 * 1024)
#define JSONVAL_MAX_DEPTH	64

enum jsonval_type {
	JSONVAL_NULL,
	JSONVAL_BOOL,
	JSONVAL_INT,
	JSONVAL_REAL,
	JSONVAL_STRING,
	JSONVAL_ARRAY,
	JSONVAL_OBJECT
};

struct jsonval;

/* One member of an object, for jsonval_next(). */
struct jsonval_member {
	const char		*key;
	const struct jsonval	*value;
};

struct jsonval	*jsonval_parse(const char *buf, size_t len, char **cause);
void		 jsonval_free(struct jsonval *);

enum jsonval_type jsonval_type(const struct jsonval *);
const char	*jsonval_type_name(enum jsonval_type);
const struct jsonval *jsonval_get(const struct jsonval *obj,
		    const char *key);
const struct jsonval *jsonval_at(const struct jsonval *arr, size_t i);
size_t		 jsonval_count(const struct jsonval *);
int		 jsonval_next(const struct jsonval *obj, void **iter,
		    struct jsonval_member *);

const char	*jsonval_string(const struct jsonval *);
size_t		 jsonval_string_len(const struct jsonval *);
int		 jsonval_int(const struct jsonval *, int64_t *);
int		 jsonval_number(const struct jsonval *, double *);
int		 jsonval_bool(const struct jsonval *, int *);
const char	*jsonval_get_string(const struct jsonval *obj,
		    const char *key);

#endif
