/*
 * tomljson.c: toml-test's JSON encoding of a TOML tree, a small JSON
 * reader (RFC 8259, UTF-8 only, nesting bounded), and the comparison of
 * two documents as values.
 *
 * The comparison follows toml-test's own: a {"type", "value"} object is a
 * value, anything else a table or array; values of type float compare as
 * numbers ("1e2" equals "100.0", nan only equals nan, and unlike toml-test
 * the sign of zero must match), integers as 64-bit numbers, and the four
 * date-time types by what they denote after a ' ', 't' or 'z' becomes 'T'
 * or 'Z': an offset date-time by its instant, the local ones by their
 * fields, fractional seconds to the nanosecond.  Other values compare as
 * strings.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toml.h"
#include "tomljson.h"
#include "xmalloc.h"

/* Deepest JSON document tomljson_parse() reads. */
#define TOMLJSON_MAX_DEPTH	512

enum tomljson_type {
	TOMLJSON_OBJECT,
	TOMLJSON_ARRAY,
	TOMLJSON_STRING,
	TOMLJSON_LITERAL	/* a number, true, false or null, as text */
};

/* A member of an object (with its key) or an element of an array. */
struct tomljson_member {
	char		*key;
	size_t		 keylen;
	struct tomljson	*value;
};

struct tomljson {
	enum tomljson_type	 type;
	char			*s;	/* string or literal text */
	size_t			 len;
	struct tomljson_member	*v;	/* object members, array elements */
	size_t			 n;
	size_t			 size;
};

/* A growing output buffer. */
struct tomljson_buf {
	char	*s;
	size_t	 len;
	size_t	 size;
};

/* The reader's state. */
struct tomljson_reader {
	const char	*buf;
	size_t		 len;
	size_t		 pos;
	char		*cause;
};

/* A date-time reduced to what it denotes. */
struct tomljson_when {
	int64_t	 secs;		/* since 1970-01-01 (or midnight) */
	long	 nanos;
};

static void	 buf_add(struct tomljson_buf *, const char *, size_t);
static void	 buf_addc(struct tomljson_buf *, int);
static void	 buf_addf(struct tomljson_buf *, const char *, ...)
		     __attribute__((format(printf, 2, 3)));
static void	 encode_string(struct tomljson_buf *, const char *, size_t);
static void	 encode_float(struct tomljson_buf *, double);
static void	 encode_indent(struct tomljson_buf *, int);
static void	 encode_value(struct tomljson_buf *, const struct toml_value *,
		     int);
static int	 reader_error(struct tomljson_reader *, const char *);
static void	 reader_ws(struct tomljson_reader *);
static int	 reader_hex4(struct tomljson_reader *, uint32_t *);
static int	 reader_string(struct tomljson_reader *, struct tomljson_buf *);
static int	 reader_value(struct tomljson_reader *, int,
		     struct tomljson **);
static void	 member_add(struct tomljson *, char *, size_t,
		     struct tomljson *);
static const struct tomljson *member_get(const struct tomljson *,
		     const char *);
static int	 is_value(const struct tomljson *);
static int	 when_parse(const char *, const char *, size_t,
		     struct tomljson_when *);
static int	 equal_scalar(const char *, const struct tomljson *,
		     const struct tomljson *);
static int	 equal(const struct tomljson *, const struct tomljson *,
		     const char *, char **);

/* Append n bytes to b, keeping it NUL-terminated. */
static void
buf_add(struct tomljson_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->size) {
		b->size = (b->len + n + 1) * 2;
		b->s = xreallocarray(b->s, b->size, 1);
	}
	if (n != 0)
		memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

/* Append one byte to b. */
static void
buf_addc(struct tomljson_buf *b, int c)
{
	char	ch = (char)c;

	buf_add(b, &ch, 1);
}

/* Append formatted text (short: a number or a type name) to b. */
static void
buf_addf(struct tomljson_buf *b, const char *fmt, ...)
{
	va_list	 ap;
	char	 s[128];
	int	 n;

	va_start(ap, fmt);
	n = vsnprintf(s, sizeof s, fmt, ap);
	va_end(ap);
	if (n > 0)
		buf_add(b, s, (size_t)n < sizeof s ? (size_t)n : sizeof s - 1);
}

/* Append s (len bytes, UTF-8) as a JSON string. */
static void
encode_string(struct tomljson_buf *b, const char *s, size_t len)
{
	size_t		i;
	unsigned char	c;

	buf_addc(b, '"');
	for (i = 0; i < len; i++) {
		c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			buf_addc(b, '\\');
			buf_addc(b, c);
		} else if (c == '\n')
			buf_add(b, "\\n", 2);
		else if (c == '\t')
			buf_add(b, "\\t", 2);
		else if (c < 0x20 || c == 0x7f)
			buf_addf(b, "\\u%04x", c);
		else
			buf_addc(b, c);
	}
	buf_addc(b, '"');
}

/* Append f as the shortest decimal text that reads back as f. */
static void
encode_float(struct tomljson_buf *b, double f)
{
	char	text[64];
	int	prec;

	if (isnan(f)) {
		buf_add(b, "nan", 3);
		return;
	}
	if (isinf(f)) {
		buf_addf(b, "%sinf", f < 0 ? "-" : "");
		return;
	}
	for (prec = 1; prec < 17; prec++) {
		snprintf(text, sizeof text, "%.*g", prec, f);
		if (strtod(text, NULL) == f)
			break;
	}
	snprintf(text, sizeof text, "%.*g", prec, f);
	buf_add(b, text, strlen(text));
}

/* Start a new line indented by level. */
static void
encode_indent(struct tomljson_buf *b, int level)
{
	buf_addc(b, '\n');
	while (level-- > 0)
		buf_add(b, "  ", 2);
}

/* Append the encoding of v, whose lines are indented by level. */
static void
encode_value(struct tomljson_buf *b, const struct toml_value *v, int level)
{
	const char	*key, *s;
	size_t		 i, n, len;

	switch (toml_type(v)) {
	case TOML_TABLE:
		n = toml_table_size(v);
		buf_addc(b, '{');
		for (i = 0; i < n; i++) {
			if (i > 0)
				buf_addc(b, ',');
			encode_indent(b, level + 1);
			key = toml_table_key(v, i, &len);
			encode_string(b, key, len);
			buf_add(b, ": ", 2);
			encode_value(b, toml_table_value(v, i), level + 1);
		}
		if (n > 0)
			encode_indent(b, level);
		buf_addc(b, '}');
		return;
	case TOML_ARRAY:
		n = toml_array_size(v);
		buf_addc(b, '[');
		for (i = 0; i < n; i++) {
			if (i > 0)
				buf_addc(b, ',');
			encode_indent(b, level + 1);
			encode_value(b, toml_array_get(v, i), level + 1);
		}
		if (n > 0)
			encode_indent(b, level);
		buf_addc(b, ']');
		return;
	default:
		break;
	}

	buf_addf(b, "{\"type\": \"%s\", \"value\": ",
	    toml_type_name(toml_type(v)));
	switch (toml_type(v)) {
	case TOML_STRING:
		s = toml_string(v, &len);
		encode_string(b, s, len);
		break;
	case TOML_INTEGER:
		buf_addf(b, "\"%" PRId64 "\"", toml_integer(v));
		break;
	case TOML_FLOAT:
		buf_addc(b, '"');
		encode_float(b, toml_float(v));
		buf_addc(b, '"');
		break;
	case TOML_BOOL:
		buf_addf(b, "\"%s\"", toml_bool(v) ? "true" : "false");
		break;
	default:
		s = toml_datetime(v);
		encode_string(b, s, strlen(s));
		break;
	}
	buf_addc(b, '}');
}

/* Return the toml-test JSON for the tree v, and its length in *len. */
char *
tomljson_encode(const struct toml_value *v, size_t *len)
{
	struct tomljson_buf	b;

	memset(&b, 0, sizeof b);
	encode_value(&b, v, 0);
	buf_addc(&b, '\n');
	if (len != NULL)
		*len = b.len;
	return b.s;
}

/* Record the reader's first error with its byte offset; return -1. */
static int
reader_error(struct tomljson_reader *r, const char *msg)
{
	if (r->cause == NULL)
		r->cause = xprintf("offset %zu: %s", r->pos, msg);
	return -1;
}

/* Skip JSON whitespace. */
static void
reader_ws(struct tomljson_reader *r)
{
	while (r->pos < r->len && (r->buf[r->pos] == ' ' ||
	    r->buf[r->pos] == '\t' || r->buf[r->pos] == '\n' ||
	    r->buf[r->pos] == '\r'))
		r->pos++;
}

/* Read four hex digits into *cp. */
static int
reader_hex4(struct tomljson_reader *r, uint32_t *cp)
{
	int	i, c;

	*cp = 0;
	for (i = 0; i < 4; i++, r->pos++) {
		if (r->pos == r->len)
			return reader_error(r, "short \\u escape");
		c = (unsigned char)r->buf[r->pos];
		if (c >= '0' && c <= '9')
			c -= '0';
		else if (c >= 'a' && c <= 'f')
			c -= 'a' - 10;
		else if (c >= 'A' && c <= 'F')
			c -= 'A' - 10;
		else
			return reader_error(r, "bad \\u escape");
		*cp = *cp * 16 + (uint32_t)c;
	}
	return 0;
}

/* Read the string at r->pos (at its quote) into out, decoded. */
static int
reader_string(struct tomljson_reader *r, struct tomljson_buf *out)
{
	uint32_t	 cp, lo;
	char		 u[4];
	int		 c;

	out->len = 0;
	buf_add(out, "", 0);
	r->pos++;
	for (;;) {
		if (r->pos == r->len)
			return reader_error(r, "unterminated string");
		c = (unsigned char)r->buf[r->pos++];
		if (c == '"')
			return 0;
		if (c < 0x20)
			return reader_error(r, "control character in string");
		if (c != '\\') {
			buf_addc(out, c);
			continue;
		}
		if (r->pos == r->len)
			return reader_error(r, "unterminated string");
		c = (unsigned char)r->buf[r->pos++];
		switch (c) {
		case '"':
		case '\\':
		case '/':
			buf_addc(out, c);
			continue;
		case 'b':
			buf_addc(out, '\b');
			continue;
		case 'f':
			buf_addc(out, '\f');
			continue;
		case 'n':
			buf_addc(out, '\n');
			continue;
		case 'r':
			buf_addc(out, '\r');
			continue;
		case 't':
			buf_addc(out, '\t');
			continue;
		case 'u':
			break;
		default:
			return reader_error(r, "bad escape");
		}
		if (reader_hex4(r, &cp) != 0)
			return -1;
		if (cp >= 0xd800 && cp <= 0xdbff) {
			if (r->pos + 1 >= r->len || r->buf[r->pos] != '\\' ||
			    r->buf[r->pos + 1] != 'u')
				return reader_error(r, "lone surrogate");
			r->pos += 2;
			if (reader_hex4(r, &lo) != 0)
				return -1;
			if (lo < 0xdc00 || lo > 0xdfff)
				return reader_error(r, "bad surrogate pair");
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		} else if (cp >= 0xdc00 && cp <= 0xdfff)
			return reader_error(r, "lone surrogate");
		if (cp < 0x80) {
			buf_addc(out, (int)cp);
		} else if (cp < 0x800) {
			u[0] = (char)(0xc0 | (cp >> 6));
			u[1] = (char)(0x80 | (cp & 0x3f));
			buf_add(out, u, 2);
		} else if (cp < 0x10000) {
			u[0] = (char)(0xe0 | (cp >> 12));
			u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
			u[2] = (char)(0x80 | (cp & 0x3f));
			buf_add(out, u, 3);
		} else {
			u[0] = (char)(0xf0 | (cp >> 18));
			u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
			u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
			u[3] = (char)(0x80 | (cp & 0x3f));
			buf_add(out, u, 4);
		}
	}
}

/* Add a member (key may be NULL for an array element) to j. */
static void
member_add(struct tomljson *j, char *key, size_t keylen, struct tomljson *v)
{
	if (j->n == j->size) {
		j->size = j->size * 2 + 4;
		j->v = xreallocarray(j->v, j->size, sizeof *j->v);
	}
	j->v[j->n].key = key;
	j->v[j->n].keylen = keylen;
	j->v[j->n].value = v;
	j->n++;
}

/* Read the value at r->pos into *out; depth bounds the nesting. */
static int
reader_value(struct tomljson_reader *r, int depth, struct tomljson **out)
{
	struct tomljson		*j, *v;
	struct tomljson_buf	 key;
	size_t			 start;
	int			 c, close;

	*out = NULL;
	reader_ws(r);
	if (r->pos == r->len)
		return reader_error(r, "expected a value");
	if (depth > TOMLJSON_MAX_DEPTH)
		return reader_error(r, "nesting too deep");
	j = xcalloc(1, sizeof *j);
	*out = j;
	c = (unsigned char)r->buf[r->pos];
	if (c == '"') {
		memset(&key, 0, sizeof key);
		j->type = TOMLJSON_STRING;
		if (reader_string(r, &key) != 0) {
			free(key.s);
			return -1;
		}
		j->s = key.s;
		j->len = key.len;
		return 0;
	}
	if (c != '{' && c != '[') {
		start = r->pos;
		while (r->pos < r->len && strchr("+-.0123456789"
		    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
		    r->buf[r->pos]) != NULL && r->buf[r->pos] != '\0')
			r->pos++;
		if (r->pos == start)
			return reader_error(r, "expected a value");
		j->type = TOMLJSON_LITERAL;
		j->s = xstrndup(r->buf + start, r->pos - start);
		j->len = r->pos - start;
		return 0;
	}

	j->type = c == '{' ? TOMLJSON_OBJECT : TOMLJSON_ARRAY;
	close = c == '{' ? '}' : ']';
	r->pos++;
	reader_ws(r);
	if (r->pos < r->len && r->buf[r->pos] == close) {
		r->pos++;
		return 0;
	}
	for (;;) {
		memset(&key, 0, sizeof key);
		if (j->type == TOMLJSON_OBJECT) {
			reader_ws(r);
			if (r->pos == r->len || r->buf[r->pos] != '"')
				return reader_error(r, "expected a key");
			if (reader_string(r, &key) != 0) {
				free(key.s);
				return -1;
			}
			reader_ws(r);
			if (r->pos == r->len || r->buf[r->pos] != ':') {
				free(key.s);
				return reader_error(r, "expected ':'");
			}
			r->pos++;
		}
		if (reader_value(r, depth + 1, &v) != 0) {
			free(key.s);
			tomljson_free(v);
			return -1;
		}
		member_add(j, key.s, key.len, v);
		reader_ws(r);
		if (r->pos == r->len)
			return reader_error(r, "unterminated object or array");
		if (r->buf[r->pos] == close) {
			r->pos++;
			return 0;
		}
		if (r->buf[r->pos] != ',')
			return reader_error(r, "expected ',' or end");
		r->pos++;
	}
}

/* Read a JSON document of len bytes; NULL with *cause if it is not one. */
struct tomljson *
tomljson_parse(const char *buf, size_t len, char **cause)
{
	struct tomljson_reader	 r;
	struct tomljson		*j;

	memset(&r, 0, sizeof r);
	r.buf = buf;
	r.len = len;
	if (reader_value(&r, 0, &j) == 0) {
		reader_ws(&r);
		if (r.pos == r.len)
			return j;
		reader_error(&r, "trailing data");
	}
	tomljson_free(j);
	*cause = r.cause;
	return NULL;
}

/* Free a document from tomljson_parse(). */
void
tomljson_free(struct tomljson *j)
{
	size_t	i;

	if (j == NULL)
		return;
	for (i = 0; i < j->n; i++) {
		free(j->v[i].key);
		tomljson_free(j->v[i].value);
	}
	free(j->v);
	free(j->s);
	free(j);
}

/* Return the member key of object j (a string without NULs), or NULL. */
static const struct tomljson *
member_get(const struct tomljson *j, const char *key)
{
	size_t	i, len = strlen(key);

	for (i = 0; i < j->n; i++) {
		if (j->v[i].keylen == len && memcmp(j->v[i].key, key, len) == 0)
			return j->v[i].value;
	}
	return NULL;
}

/* Return 1 if j is a toml-test value: {"type": "...", "value": ...}. */
static int
is_value(const struct tomljson *j)
{
	const struct tomljson	*type;

	if (j->type != TOMLJSON_OBJECT || j->n != 2)
		return 0;
	type = member_get(j, "type");
	return type != NULL && type->type == TOMLJSON_STRING &&
	    member_get(j, "value") != NULL;
}

/* Read n digits at *s into *out; return -1 if they are not all digits. */
static int
when_digits(const char **s, const char *end, int n, int *out)
{
	*out = 0;
	while (n-- > 0) {
		if (*s == end || **s < '0' || **s > '9')
			return -1;
		*out = *out * 10 + (**s - '0');
		(*s)++;
	}
	return 0;
}

/* Return the days from 1970-01-01 to the proleptic Gregorian y-m-d. */
static int64_t
when_days(int64_t y, int m, int d)
{
	int64_t	era, yoe, doy, doe;

	if (m <= 2)
		y--;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/*
 * Reduce the date-time text s (len bytes) of the toml-test type kind to
 * seconds and nanoseconds; return -1 if it is not of that form.
 */
static int
when_parse(const char *kind, const char *s, size_t len,
    struct tomljson_when *w)
{
	const char	*end = s + len;
	int		 has_date, has_time, has_zone, y = 0, mo = 0, d = 0;
	int		 h = 0, mi = 0, sec = 0, oh, om, digit, scale;

	has_date = strcmp(kind, "time-local") != 0;
	has_time = strcmp(kind, "date-local") != 0;
	has_zone = strcmp(kind, "datetime") == 0;
	w->secs = 0;
	w->nanos = 0;
	if (has_date) {
		if (when_digits(&s, end, 4, &y) != 0 || s == end ||
		    *s++ != '-' || when_digits(&s, end, 2, &mo) != 0 ||
		    s == end || *s++ != '-' ||
		    when_digits(&s, end, 2, &d) != 0)
			return -1;
		w->secs = when_days(y, mo, d) * 86400;
		if (has_time && (s == end || (*s != 'T' && *s != 't' &&
		    *s != ' ')))
			return -1;
		if (has_time)
			s++;
	}
	if (has_time) {
		if (when_digits(&s, end, 2, &h) != 0 || s == end ||
		    *s++ != ':' || when_digits(&s, end, 2, &mi) != 0 ||
		    s == end || *s++ != ':' ||
		    when_digits(&s, end, 2, &sec) != 0)
			return -1;
		w->secs += h * 3600 + mi * 60 + sec;
		if (s != end && *s == '.') {
			s++;
			if (s == end || *s < '0' || *s > '9')
				return -1;
			for (scale = 100000000; s != end && *s >= '0' &&
			    *s <= '9'; s++) {
				digit = *s - '0';
				w->nanos += digit * scale;
				scale /= 10;
			}
		}
	}
	if (has_zone) {
		if (s != end && (*s == 'Z' || *s == 'z'))
			s++;
		else if (s != end && (*s == '+' || *s == '-')) {
			digit = *s++ == '-' ? -1 : 1;
			if (when_digits(&s, end, 2, &oh) != 0 || s == end ||
			    *s++ != ':' || when_digits(&s, end, 2, &om) != 0)
				return -1;
			w->secs -= digit * (oh * 3600 + om * 60);
		} else
			return -1;
	}
	return s == end ? 0 : -1;
}

/* Compare two toml-test values of type (both string-valued); 1 if equal. */
static int
equal_scalar(const char *type, const struct tomljson *w,
    const struct tomljson *h)
{
	struct tomljson_when	 ww, hw;
	char			*wend, *hend;
	double			 wf, hf;
	long long		 wi, hi;
	int			 wnan, hnan;

	if (strcmp(type, "float") == 0) {
		wnan = strstr(w->s, "nan") != NULL;
		hnan = strstr(h->s, "nan") != NULL;
		if (wnan || hnan)
			return wnan && hnan;
		wf = strtod(w->s, &wend);
		hf = strtod(h->s, &hend);
		if (*wend != '\0' || *hend != '\0' || w->len == 0 ||
		    h->len == 0)
			return 0;
		return wf == hf && signbit(wf) == signbit(hf);
	}
	if (strcmp(type, "integer") == 0) {
		errno = 0;
		wi = strtoll(w->s, &wend, 10);
		hi = strtoll(h->s, &hend, 10);
		if (errno == 0 && *wend == '\0' && *hend == '\0' &&
		    w->len != 0 && h->len != 0)
			return wi == hi;
	} else if (strcmp(type, "datetime") == 0 ||
	    strcmp(type, "datetime-local") == 0 ||
	    strcmp(type, "date-local") == 0 ||
	    strcmp(type, "time-local") == 0) {
		if (when_parse(type, w->s, w->len, &ww) != 0 ||
		    when_parse(type, h->s, h->len, &hw) != 0)
			return 0;
		return ww.secs == hw.secs && ww.nanos == hw.nanos;
	}
	return w->len == h->len && memcmp(w->s, h->s, w->len) == 0;
}

/*
 * Compare want and have found at path; return 1 if they are equal, else 0
 * with *why saying where and how they differ.
 */
static int
equal(const struct tomljson *want, const struct tomljson *have,
    const char *path, char **why)
{
	const struct tomljson	*wt, *ht, *wv, *hv, *hm;
	const char		*kind;
	char			*sub;
	size_t			 i, k;
	int			 ok;

	if (is_value(want) != is_value(have)) {
		*why = xprintf("%s: expected %s, got %s", path,
		    is_value(want) ? "a value" : "a table or array",
		    is_value(have) ? "a value" : "a table or array");
		return 0;
	}
	if (is_value(want)) {
		wt = member_get(want, "type");
		ht = member_get(have, "type");
		wv = member_get(want, "value");
		hv = member_get(have, "value");
		if (strcmp(wt->s, ht->s) != 0) {
			*why = xprintf("%s: expected type %s, got %s", path,
			    wt->s, ht->s);
			return 0;
		}
		if (wv->type != TOMLJSON_STRING || hv->type != TOMLJSON_STRING)
			return equal(wv, hv, path, why);
		if (!equal_scalar(wt->s, wv, hv)) {
			*why = xprintf("%s: expected %s \"%s\", got \"%s\"",
			    path, wt->s, wv->s, hv->s);
			return 0;
		}
		return 1;
	}
	if (want->type != have->type) {
		kind = want->type == TOMLJSON_OBJECT ? "a table" :
		    want->type == TOMLJSON_ARRAY ? "an array" : "a scalar";
		*why = xprintf("%s: expected %s", path, kind);
		return 0;
	}
	switch (want->type) {
	case TOMLJSON_OBJECT:
		if (want->n != have->n) {
			*why = xprintf("%s: expected %zu keys, got %zu", path,
			    want->n, have->n);
			return 0;
		}
		for (i = 0; i < want->n; i++) {
			hm = NULL;
			for (k = 0; k < have->n && hm == NULL; k++) {
				if (have->v[k].keylen == want->v[i].keylen &&
				    memcmp(have->v[k].key, want->v[i].key,
				    want->v[i].keylen) == 0)
					hm = have->v[k].value;
			}
			sub = xprintf("%s.%s", path, want->v[i].key);
			if (hm == NULL) {
				*why = xprintf("%s: missing", sub);
				ok = 0;
			} else
				ok = equal(want->v[i].value, hm, sub, why);
			free(sub);
			if (!ok)
				return 0;
		}
		return 1;
	case TOMLJSON_ARRAY:
		if (want->n != have->n) {
			*why = xprintf("%s: expected %zu elements, got %zu",
			    path, want->n, have->n);
			return 0;
		}
		for (i = 0; i < want->n; i++) {
			sub = xprintf("%s[%zu]", path, i);
			ok = equal(want->v[i].value, have->v[i].value, sub,
			    why);
			free(sub);
			if (!ok)
				return 0;
		}
		return 1;
	default:
		if (want->len == have->len &&
		    memcmp(want->s, have->s, want->len) == 0)
			return 1;
		*why = xprintf("%s: expected %s, got %s", path, want->s,
		    have->s);
		return 0;
	}
}

/* Compare two documents as toml-test values; 1 if equal, else 0 and *why. */
int
tomljson_equal(const struct tomljson *want, const struct tomljson *have,
    char **why)
{
	*why = NULL;
	return equal(want, have, "(root)", why);
}

/*
 * Read fp to its end, or to max + 1 bytes if it is longer (so a caller
 * can tell it was too long); NULL on a read error.
 */
char *
tomljson_read(FILE *fp, size_t max, size_t *len)
{
	char	*buf = NULL;
	size_t	 size = 0, n;

	*len = 0;
	for (;;) {
		if (*len == size) {
			size = size * 2 + 65536;
			buf = xreallocarray(buf, size, 1);
		}
		n = fread(buf + *len, 1, size - *len, fp);
		*len += n;
		if (*len > max) {
			*len = max + 1;
			return buf;
		}
		if (n == 0)
			break;
	}
	if (ferror(fp)) {
		free(buf);
		return NULL;
	}
	return buf;
}
