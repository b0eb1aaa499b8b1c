/*
 * json: a small JSON writer (RFC 8259) into a growable buffer, for
 * `jobdeck run --json` and the control socket.  The writer puts the commas
 * and colons itself: begin an object or array, then give keys and values
 * in order, then end it.  Output is always valid JSON text in UTF-8:
 * strings escape '"', '\' and the control characters (\n, \t and the
 * other short forms, else \u00XX), and every invalid UTF-8 sequence in a
 * string (stray continuation bytes, overlong forms, surrogates, code
 * points above U+10FFFF, truncated sequences) becomes one U+FFFD per
 * maximal invalid subpart, as Unicode recommends.  Non-finite doubles
 * are written as null.  Numbers never depend on the locale.
 *
 * Misuse (a value where a key is due, an end that does not match its
 * begin, a key outside an object) is a broken invariant and fatal.  json
 * never prints and never exits otherwise.
 *
 * Ownership: the caller owns the struct json_buf (json_init() and
 * json_clear(), or json_finish() which hands over the text).  The fields
 * are for reading only.
 */
#ifndef JOBDECK_JSON_H
#define JOBDECK_JSON_H

#include <stddef.h>
#include <stdint.h>

struct json_buf {
	char		*data;		/* the text so far, NUL-terminated */
	size_t		 len;
	size_t		 size;		/* allocated */
	unsigned char	*stack;		/* per open container: JSON_IN_* */
	size_t		 depth;
	size_t		 stack_size;
};

void	 json_init(struct json_buf *);
void	 json_clear(struct json_buf *);
char	*json_finish(struct json_buf *, size_t *len);

void	 json_object_begin(struct json_buf *);
void	 json_object_end(struct json_buf *);
void	 json_array_begin(struct json_buf *);
void	 json_array_end(struct json_buf *);
void	 json_key(struct json_buf *, const char *key);

void	 json_put_string(struct json_buf *, const char *s);
void	 json_put_stringn(struct json_buf *, const char *s, size_t len);
void	 json_put_strings(struct json_buf *, char *const *s, int n);
void	 json_put_int(struct json_buf *, int64_t);
void	 json_put_double(struct json_buf *, double);
void	 json_put_bool(struct json_buf *, int);
void	 json_put_null(struct json_buf *);
void	 json_put_raw(struct json_buf *, const char *text, size_t len);

#endif
