/*
 * json.c: a JSON writer (RFC 8259) into a growable buffer.
 *
 * Each open container has one byte on a stack: what it is and what came
 * last in it, so the writer knows where a comma goes and can tell a value
 * that is due from one that is not.  The bottom of the stack is the top
 * level, which takes exactly one value.
 *
 * Strings are checked as UTF-8 (utf8.h: no overlong forms, no surrogates,
 * nothing above U+10FFFF) while they are copied; runs of bytes that need
 * no escape are copied in one go.  An invalid sequence is replaced by
 * U+FFFD per maximal subpart (Unicode 15, section 3.9, "U+FFFD
 * Substitution of Maximal Subparts"): a lead byte followed by fewer
 * continuation bytes than it needs gives one U+FFFD for all of them, and
 * a byte that cannot start a sequence gives one of its own.
 */
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fatal.h"
#include "json.h"
#include "utf8.h"
#include "xmalloc.h"

/* What a stack entry is, and its state. */
#define JSON_IN_TOP	0x1	/* the top level: one value */
#define JSON_IN_ARRAY	0x2
#define JSON_IN_OBJECT	0x4
#define JSON_HAS_ITEM	0x10	/* a value (or member) was written */
#define JSON_WANT_VALUE	0x20	/* object: a key was written, not its value */

static void	json_append(struct json_buf *, const char *, size_t);
static void	json_push(struct json_buf *, unsigned char);
static void	json_pop(struct json_buf *, unsigned char);
static void	json_before_value(struct json_buf *);
static void	json_quote(struct json_buf *, const char *, size_t);

/* Append n bytes to the buffer, keeping it NUL-terminated. */
static void
json_append(struct json_buf *jb, const char *s, size_t n)
{
	size_t	size;

	if (jb->len + n + 1 > jb->size) {
		size = jb->size * 2;
		if (size < jb->len + n + 1)
			size = jb->len + n + 1;
		if (size < 64)
			size = 64;
		jb->data = xreallocarray(jb->data, size, 1);
		jb->size = size;
	}
	memcpy(jb->data + jb->len, s, n);
	jb->len += n;
	jb->data[jb->len] = '\0';
}

/* Start an empty buffer at the top level. */
void
json_init(struct json_buf *jb)
{
	memset(jb, 0, sizeof *jb);
	json_append(jb, "", 0);
	json_push(jb, JSON_IN_TOP);
}

/* Free the buffer's memory; it must be initialised again before use. */
void
json_clear(struct json_buf *jb)
{
	free(jb->data);
	free(jb->stack);
	memset(jb, 0, sizeof *jb);
}

/*
 * Hand over the finished text (NUL-terminated, its length in *len if len
 * is not NULL) for the caller to free, and start the buffer again empty.
 * Every container must be closed.
 */
char *
json_finish(struct json_buf *jb, size_t *len)
{
	char	*text;

	if (jb->depth != 1)
		fatal("json_finish: %zu containers still open", jb->depth - 1);
	text = jb->data;
	if (len != NULL)
		*len = jb->len;
	jb->data = NULL;
	jb->len = jb->size = 0;
	json_append(jb, "", 0);
	jb->stack[0] = JSON_IN_TOP;
	return text;
}

/* Open a container of the given kind on the stack. */
static void
json_push(struct json_buf *jb, unsigned char kind)
{
	if (jb->depth == jb->stack_size) {
		jb->stack_size = jb->stack_size * 2 + 8;
		jb->stack = xreallocarray(jb->stack, jb->stack_size, 1);
	}
	jb->stack[jb->depth++] = kind;
}

/* Close the innermost container, which must be of the given kind. */
static void
json_pop(struct json_buf *jb, unsigned char kind)
{
	unsigned char	top;

	if (jb->depth < 2)
		fatal("json: end without a begin");
	top = jb->stack[jb->depth - 1];
	if ((top & kind) == 0)
		fatal("json: end of the wrong kind of container");
	if (top & JSON_WANT_VALUE)
		fatal("json: object ended after a key without its value");
	jb->depth--;
}

/* Write the comma a value needs, if any, and check that one is due. */
static void
json_before_value(struct json_buf *jb)
{
	unsigned char	*top = &jb->stack[jb->depth - 1];

	if (*top & JSON_IN_TOP) {
		if (*top & JSON_HAS_ITEM)
			fatal("json: a second value at the top level");
		*top |= JSON_HAS_ITEM;
	} else if (*top & JSON_IN_ARRAY) {
		if (*top & JSON_HAS_ITEM)
			json_append(jb, ",", 1);
		*top |= JSON_HAS_ITEM;
	} else {
		if ((*top & JSON_WANT_VALUE) == 0)
			fatal("json: a value in an object without a key");
		*top &= ~JSON_WANT_VALUE;
	}
}

/* Begin an object: keys and values follow, then json_object_end(). */
void
json_object_begin(struct json_buf *jb)
{
	json_before_value(jb);
	json_append(jb, "{", 1);
	json_push(jb, JSON_IN_OBJECT);
}

/* End the innermost object. */
void
json_object_end(struct json_buf *jb)
{
	json_pop(jb, JSON_IN_OBJECT);
	json_append(jb, "}", 1);
}

/* Begin an array: values follow, then json_array_end(). */
void
json_array_begin(struct json_buf *jb)
{
	json_before_value(jb);
	json_append(jb, "[", 1);
	json_push(jb, JSON_IN_ARRAY);
}

/* End the innermost array. */
void
json_array_end(struct json_buf *jb)
{
	json_pop(jb, JSON_IN_ARRAY);
	json_append(jb, "]", 1);
}

/* Write a member's key (a string, escaped like any other) and its colon. */
void
json_key(struct json_buf *jb, const char *key)
{
	unsigned char	*top = &jb->stack[jb->depth - 1];

	if ((*top & JSON_IN_OBJECT) == 0)
		fatal("json: a key outside an object");
	if (*top & JSON_WANT_VALUE)
		fatal("json: a key where a value is due");
	if (*top & JSON_HAS_ITEM)
		json_append(jb, ",", 1);
	*top |= JSON_HAS_ITEM | JSON_WANT_VALUE;
	json_quote(jb, key, strlen(key));
	json_append(jb, ":", 1);
}

/* Write s (len bytes) as a quoted, escaped, valid UTF-8 JSON string. */
static void
json_quote(struct json_buf *jb, const char *s, size_t len)
{
	static const char	 hex[] = "0123456789abcdef";
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 i = 0, start = 0;
	char			 esc[6];
	unsigned char		 c;
	uint32_t		 cp;
	int			 k;

	json_append(jb, "\"", 1);
	while (i < len) {
		c = p[i];
		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			i++;
			continue;
		}
		if (c >= 0x80) {
			if ((k = utf8_decode(p + i, len - i, &cp)) > 0) {
				i += (size_t)k;
				continue;
			}
			json_append(jb, s + start, i - start);
			json_append(jb, "\xef\xbf\xbd", 3);	/* U+FFFD */
			i += (size_t)-k;
			start = i;
			continue;
		}
		json_append(jb, s + start, i - start);
		esc[0] = '\\';
		switch (c) {
		case '"':
		case '\\':
			esc[1] = (char)c;
			break;
		case '\b':
			esc[1] = 'b';
			break;
		case '\f':
			esc[1] = 'f';
			break;
		case '\n':
			esc[1] = 'n';
			break;
		case '\r':
			esc[1] = 'r';
			break;
		case '\t':
			esc[1] = 't';
			break;
		default:
			esc[1] = 'u';
			esc[2] = '0';
			esc[3] = '0';
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 0xf];
			break;
		}
		json_append(jb, esc, esc[1] == 'u' ? 6 : 2);
		i++;
		start = i;
	}
	json_append(jb, s + start, i - start);
	json_append(jb, "\"", 1);
}

/* Write a NUL-terminated string value (NULL is written as null). */
void
json_put_string(struct json_buf *jb, const char *s)
{
	if (s == NULL) {
		json_put_null(jb);
		return;
	}
	json_put_stringn(jb, s, strlen(s));
}

/* Write len bytes as a string value; NULs become \u0000. */
void
json_put_stringn(struct json_buf *jb, const char *s, size_t len)
{
	json_before_value(jb);
	json_quote(jb, s, len);
}

/* Write an array of n strings (a NULL one as null). */
void
json_put_strings(struct json_buf *jb, char *const *s, int n)
{
	int	i;

	json_array_begin(jb);
	for (i = 0; i < n; i++)
		json_put_string(jb, s[i]);
	json_array_end(jb);
}

/* Write an integer value. */
void
json_put_int(struct json_buf *jb, int64_t v)
{
	char	buf[32];
	int	n;

	json_before_value(jb);
	n = snprintf(buf, sizeof buf, "%lld", (long long)v);
	json_append(jb, buf, (size_t)n);
}

/*
 * Write a number: the shortest of 15 to 17 significant digits that reads
 * back as v, with '.' whatever the locale says; NaN and infinities, which
 * JSON cannot hold, as null.
 */
void
json_put_double(struct json_buf *jb, double v)
{
	const char	*radix;
	char		 buf[64], out[64], *p;
	size_t		 rlen, n = 0;
	int		 prec;

	if (!isfinite(v)) {
		json_put_null(jb);
		return;
	}
	json_before_value(jb);
	for (prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, v);
		if (prec == 17 || strtod(buf, NULL) == v)
			break;
	}

	radix = localeconv()->decimal_point;
	rlen = radix != NULL ? strlen(radix) : 0;
	if (rlen == 0 || strcmp(radix, ".") == 0 ||
	    (p = strstr(buf, radix)) == NULL) {
		json_append(jb, buf, strlen(buf));
		return;
	}
	memcpy(out, buf, (size_t)(p - buf));
	n = (size_t)(p - buf);
	out[n++] = '.';
	snprintf(out + n, sizeof out - n, "%s", p + rlen);
	json_append(jb, out, strlen(out));
}

/* Write true or false. */
void
json_put_bool(struct json_buf *jb, int v)
{
	json_before_value(jb);
	if (v)
		json_append(jb, "true", 4);
	else
		json_append(jb, "false", 5);
}

/* Write null. */
void
json_put_null(struct json_buf *jb)
{
	json_before_value(jb);
	json_append(jb, "null", 4);
}

/*
 * Append a value the caller already wrote as JSON text (a schema, a
 * document a deck sent), as it is: the caller vouches that it is one
 * valid JSON value.
 */
void
json_put_raw(struct json_buf *jb, const char *text, size_t len)
{
	json_before_value(jb);
	json_append(jb, text, len);
}
