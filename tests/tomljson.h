/*
 * tomljson: the JSON encoding toml-test uses for decoded TOML
 * (https://github.com/toml-lang/toml-test, "JSON encoding"), for the
 * toml-decode tool and the conformance runner.  Tables become objects,
 * arrays arrays, and every other value {"type": "...", "value": "..."}.
 * JSON documents are read back and compared as values, the way toml-test
 * compares them: object key order does not matter, floats compare as
 * numbers (nan equals nan), integers as numbers, and date-times by the
 * instant or local time they name.  Test code only; it links with toml.o.
 *
 * Ownership: tomljson_encode() and tomljson_read() return allocated
 * buffers; a document from tomljson_parse() is freed with tomljson_free();
 * every *cause and *why is allocated.
 */
#ifndef JOBDECK_TOMLJSON_H
#define JOBDECK_TOMLJSON_H

#include <stddef.h>
#include <stdio.h>

struct toml_value;
struct tomljson;

char		*tomljson_encode(const struct toml_value *, size_t *len);

struct tomljson	*tomljson_parse(const char *buf, size_t len, char **cause);
void		 tomljson_free(struct tomljson *);
int		 tomljson_equal(const struct tomljson *want,
		     const struct tomljson *have, char **why);

char		*tomljson_read(FILE *, size_t max, size_t *len);

#endif
