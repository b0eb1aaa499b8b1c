/*
 * jsonread: a strict JSON reader for the tests (RFC 8259), so that what
 * jobdeck writes (`jobdeck run --json`, later the control socket) can be
 * checked by value.  It rejects what RFC 8259 does not allow: trailing
 * commas, leading zeros, control characters and invalid UTF-8 in strings,
 * lone surrogates in \u escapes, and anything after the value but
 * whitespace.  Strings come back as UTF-8 with every escape decoded (a
 * surrogate pair gives one 4-byte character) and may hold NULs.  Nesting
 * is limited to JSONREAD_MAX_DEPTH.
 *
 * Accessors take NULL (or a value of another type) and then return NULL,
 * 0 or -1, so lookups can be chained: jsonread_string(jsonread_get(root,
 * "stdout"), &len).
 *
 * Ownership: jsonread_parse() returns the root, which owns the whole tree;
 * free it with jsonread_free().  Pointers into the tree live as long as
 * the root.  On error *cause is "LINE:COL: message" (1-based, columns in
 * bytes), for the caller to free.
 */
#ifndef JOBDECK_JSONREAD_H
#define JOBDECK_JSONREAD_H

#include <stddef.h>

#define JSONREAD_MAX_DEPTH	512

enum jsonread_type {
	JSONREAD_NULL,
	JSONREAD_BOOL,
	JSONREAD_NUMBER,
	JSONREAD_STRING,
	JSONREAD_ARRAY,
	JSONREAD_OBJECT
};

struct jsonread;

struct jsonread	*jsonread_parse(const char *text, size_t len, char **cause);
void		 jsonread_free(struct jsonread *);

enum jsonread_type jsonread_type(const struct jsonread *);
size_t		 jsonread_count(const struct jsonread *);
const struct jsonread *jsonread_get(const struct jsonread *, const char *key);
const struct jsonread *jsonread_index(const struct jsonread *, size_t i);
const char	*jsonread_key(const struct jsonread *, size_t i);
const char	*jsonread_string(const struct jsonread *, size_t *len);
double		 jsonread_number(const struct jsonread *);
int		 jsonread_bool(const struct jsonread *);
const char	*jsonread_text(const struct jsonread *, const char *key);

#endif
