/*
 * jsonread.c: a recursive-descent JSON parser (RFC 8259) into a tree, for
 * the tests.  It is written apart from src/json.c on purpose, decoding
 * each UTF-8 character to its code point and checking the ranges there,
 * so that the two cannot share a mistake.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonread.h"
#include "xmalloc.h"

struct jsonread {
	enum jsonread_type	 type;
	int			 b;
	double			 num;
	char			*str;		/* string: NUL-terminated too */
	size_t			 len;
	struct jsonread		**items;	/* elements, member values */
	char			**keys;		/* object member names */
	size_t			 n;
};

/* The parser's position and first error. */
struct jsonread_parser {
	const char	*text;
	size_t		 len;
	size_t		 pos;
	char		*cause;
};

/* A growable byte string for decoded strings. */
struct jsonread_str {
	char	*s;
	size_t	 len;
	size_t	 size;
};

static struct jsonread *jsonread_value(struct jsonread_parser *, int);

/* Record an error at the current position, unless one is recorded. */
static void
jsonread_error(struct jsonread_parser *p, const char *fmt, ...)
{
	va_list	 ap;
	size_t	 i, line = 1, col = 1;
	char	*msg;

	if (p->cause != NULL)
		return;
	for (i = 0; i < p->pos && i < p->len; i++) {
		if (p->text[i] == '\n') {
			line++;
			col = 1;
		} else
			col++;
	}
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) == -1)
		msg = NULL;
	va_end(ap);
	p->cause = xprintf("%zu:%zu: %s", line, col,
	    msg != NULL ? msg : "error");
	free(msg);
}

/* Append n bytes to a decoded string. */
static void
jsonread_str_add(struct jsonread_str *s, const char *b, size_t n)
{
	if (s->len + n + 1 > s->size) {
		s->size = (s->len + n + 1) * 2;
		s->s = xreallocarray(s->s, s->size, 1);
	}
	memcpy(s->s + s->len, b, n);
	s->len += n;
	s->s[s->len] = '\0';
}

/* Append code point cp (valid, not a surrogate) as UTF-8. */
static void
jsonread_str_add_cp(struct jsonread_str *s, unsigned long cp)
{
	char	b[4];

	if (cp < 0x80) {
		b[0] = (char)cp;
		jsonread_str_add(s, b, 1);
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3f));
		jsonread_str_add(s, b, 2);
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		jsonread_str_add(s, b, 3);
	} else {
		b[0] = (char)(0xf0 | (cp >> 18));
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		jsonread_str_add(s, b, 4);
	}
}

/* Skip JSON whitespace: space, tab, line feed, carriage return. */
static void
jsonread_skip_ws(struct jsonread_parser *p)
{
	while (p->pos < p->len && (p->text[p->pos] == ' ' ||
	    p->text[p->pos] == '\t' || p->text[p->pos] == '\n' ||
	    p->text[p->pos] == '\r'))
		p->pos++;
}

/* Return a new node of type t. */
static struct jsonread *
jsonread_node(enum jsonread_type t)
{
	struct jsonread	*v = xcalloc(1, sizeof *v);

	v->type = t;
	return v;
}

/* Read 4 hex digits at p->pos; -1 if they are not there. */
static long
jsonread_hex4(struct jsonread_parser *p)
{
	long	v = 0;
	int	i;
	char	c;

	if (p->len - p->pos < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		c = p->text[p->pos + i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	p->pos += 4;
	return v;
}

/*
 * Decode one UTF-8 character at p->pos into *cp and move past it; -1 if
 * the bytes there are not a valid, shortest-form encoding of a scalar
 * value.
 */
static int
jsonread_utf8(struct jsonread_parser *p, unsigned long *cp)
{
	const unsigned char	*s = (const unsigned char *)p->text + p->pos;
	size_t			 left = p->len - p->pos, n, i;
	unsigned long		 v, min;

	if (s[0] < 0x80) {
		n = 1;
		v = s[0];
		min = 0;
	} else if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		v = s[0] & 0x1f;
		min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		v = s[0] & 0x0f;
		min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		v = s[0] & 0x07;
		min = 0x10000;
	} else
		return -1;
	if (n > left)
		return -1;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		v = (v << 6) | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return -1;
	p->pos += n;
	*cp = v;
	return 0;
}

/* Parse the escape after a backslash into s; -1 on error. */
static int
jsonread_escape(struct jsonread_parser *p, struct jsonread_str *s)
{
	long	hi, lo;
	char	c, out;

	if (p->pos >= p->len) {
		jsonread_error(p, "unterminated string");
		return -1;
	}
	c = p->text[p->pos++];
	switch (c) {
	case '"':
	case '\\':
	case '/':
		out = c;
		break;
	case 'b':
		out = '\b';
		break;
	case 'f':
		out = '\f';
		break;
	case 'n':
		out = '\n';
		break;
	case 'r':
		out = '\r';
		break;
	case 't':
		out = '\t';
		break;
	case 'u':
		if ((hi = jsonread_hex4(p)) < 0) {
			jsonread_error(p, "expected 4 hex digits after \\u");
			return -1;
		}
		if (hi >= 0xdc00 && hi <= 0xdfff) {
			jsonread_error(p, "lone low surrogate \\u%04lx", hi);
			return -1;
		}
		if (hi >= 0xd800 && hi <= 0xdbff) {
			if (p->len - p->pos < 2 || p->text[p->pos] != '\\' ||
			    p->text[p->pos + 1] != 'u') {
				jsonread_error(p, "lone high surrogate "
				    "\\u%04lx", hi);
				return -1;
			}
			p->pos += 2;
			lo = jsonread_hex4(p);
			if (lo < 0xdc00 || lo > 0xdfff) {
				jsonread_error(p, "high surrogate \\u%04lx "
				    "not followed by a low one", hi);
				return -1;
			}
			jsonread_str_add_cp(s, 0x10000 +
			    ((unsigned long)(hi - 0xd800) << 10) +
			    (unsigned long)(lo - 0xdc00));
			return 0;
		}
		jsonread_str_add_cp(s, (unsigned long)hi);
		return 0;
	default:
		p->pos--;
		jsonread_error(p, "invalid escape \\%c", c);
		return -1;
	}
	jsonread_str_add(s, &out, 1);
	return 0;
}

/* Parse a string at p->pos (on its opening quote); -1 on error. */
static int
jsonread_string_raw(struct jsonread_parser *p, struct jsonread_str *s)
{
	unsigned long	 cp;
	size_t		 start;
	unsigned char	 c;

	memset(s, 0, sizeof *s);
	jsonread_str_add(s, "", 0);
	p->pos++;
	for (;;) {
		if (p->pos >= p->len) {
			jsonread_error(p, "unterminated string");
			break;
		}
		c = (unsigned char)p->text[p->pos];
		if (c == '"') {
			p->pos++;
			return 0;
		}
		if (c == '\\') {
			p->pos++;
			if (jsonread_escape(p, s) != 0)
				break;
			continue;
		}
		if (c < 0x20) {
			jsonread_error(p, "control character 0x%02x in a "
			    "string", c);
			break;
		}
		start = p->pos;
		if (jsonread_utf8(p, &cp) != 0) {
			jsonread_error(p, "invalid UTF-8 in a string");
			break;
		}
		jsonread_str_add(s, p->text + start, p->pos - start);
	}
	free(s->s);
	s->s = NULL;
	return -1;
}

/* Parse a number at p->pos; NULL on error. */
static struct jsonread *
jsonread_number_raw(struct jsonread_parser *p)
{
	struct jsonread	*v;
	const char	*t = p->text;
	size_t		 start = p->pos, digits;
	char		*copy;

	if (p->pos < p->len && t[p->pos] == '-')
		p->pos++;
	if (p->pos < p->len && t[p->pos] == '0') {
		p->pos++;
		if (p->pos < p->len && t[p->pos] >= '0' && t[p->pos] <= '9') {
			jsonread_error(p, "leading zero in a number");
			return NULL;
		}
	} else if (p->pos < p->len && t[p->pos] >= '1' && t[p->pos] <= '9') {
		while (p->pos < p->len && t[p->pos] >= '0' && t[p->pos] <= '9')
			p->pos++;
	} else {
		jsonread_error(p, "expected a digit");
		return NULL;
	}
	if (p->pos < p->len && t[p->pos] == '.') {
		p->pos++;
		for (digits = 0; p->pos < p->len && t[p->pos] >= '0' &&
		    t[p->pos] <= '9'; digits++)
			p->pos++;
		if (digits == 0) {
			jsonread_error(p, "expected a digit after '.'");
			return NULL;
		}
	}
	if (p->pos < p->len && (t[p->pos] == 'e' || t[p->pos] == 'E')) {
		p->pos++;
		if (p->pos < p->len && (t[p->pos] == '+' || t[p->pos] == '-'))
			p->pos++;
		for (digits = 0; p->pos < p->len && t[p->pos] >= '0' &&
		    t[p->pos] <= '9'; digits++)
			p->pos++;
		if (digits == 0) {
			jsonread_error(p, "expected a digit in the exponent");
			return NULL;
		}
	}
	copy = xstrndup(t + start, p->pos - start);
	v = jsonread_node(JSONREAD_NUMBER);
	v->num = strtod(copy, NULL);
	free(copy);
	return v;
}

/* Parse an array or object (on its bracket); NULL on error. */
static struct jsonread *
jsonread_container(struct jsonread_parser *p, int depth)
{
	struct jsonread		*v, *item;
	struct jsonread_str	 key;
	int			 object = p->text[p->pos] == '{';
	char			 close = object ? '}' : ']';

	if (depth >= JSONREAD_MAX_DEPTH) {
		jsonread_error(p, "nested deeper than %d", JSONREAD_MAX_DEPTH);
		return NULL;
	}
	v = jsonread_node(object ? JSONREAD_OBJECT : JSONREAD_ARRAY);
	p->pos++;
	jsonread_skip_ws(p);
	if (p->pos < p->len && p->text[p->pos] == close) {
		p->pos++;
		return v;
	}
	for (;;) {
		key.s = NULL;
		if (object) {
			jsonread_skip_ws(p);
			if (p->pos >= p->len || p->text[p->pos] != '"') {
				jsonread_error(p, "expected a member name");
				break;
			}
			if (jsonread_string_raw(p, &key) != 0)
				break;
			jsonread_skip_ws(p);
			if (p->pos >= p->len || p->text[p->pos] != ':') {
				jsonread_error(p, "expected ':' after a "
				    "member name");
				free(key.s);
				break;
			}
			p->pos++;
		}
		if ((item = jsonread_value(p, depth + 1)) == NULL) {
			free(key.s);
			break;
		}
		v->items = xreallocarray(v->items, v->n + 1, sizeof *v->items);
		if (object) {
			v->keys = xreallocarray(v->keys, v->n + 1,
			    sizeof *v->keys);
			v->keys[v->n] = key.s;
		}
		v->items[v->n++] = item;
		jsonread_skip_ws(p);
		if (p->pos < p->len && p->text[p->pos] == ',') {
			p->pos++;
			continue;
		}
		if (p->pos < p->len && p->text[p->pos] == close) {
			p->pos++;
			return v;
		}
		jsonread_error(p, "expected ',' or '%c'", close);
		break;
	}
	jsonread_free(v);
	return NULL;
}

/* Parse one value after optional whitespace; NULL on error. */
static struct jsonread *
jsonread_value(struct jsonread_parser *p, int depth)
{
	static const struct {
		const char		*word;
		enum jsonread_type	 type;
		int			 b;
	} words[] = {
		{ "true", JSONREAD_BOOL, 1 },
		{ "false", JSONREAD_BOOL, 0 },
		{ "null", JSONREAD_NULL, 0 },
	};
	struct jsonread		*v;
	struct jsonread_str	 s;
	size_t			 i, n;
	char			 c;

	jsonread_skip_ws(p);
	if (p->pos >= p->len) {
		jsonread_error(p, "expected a value");
		return NULL;
	}
	c = p->text[p->pos];
	if (c == '{' || c == '[')
		return jsonread_container(p, depth);
	if (c == '"') {
		if (jsonread_string_raw(p, &s) != 0)
			return NULL;
		v = jsonread_node(JSONREAD_STRING);
		v->str = s.s;
		v->len = s.len;
		return v;
	}
	if (c == '-' || (c >= '0' && c <= '9'))
		return jsonread_number_raw(p);
	for (i = 0; i < sizeof words / sizeof words[0]; i++) {
		n = strlen(words[i].word);
		if (p->len - p->pos >= n &&
		    memcmp(p->text + p->pos, words[i].word, n) == 0) {
			p->pos += n;
			v = jsonread_node(words[i].type);
			v->b = words[i].b;
			return v;
		}
	}
	jsonread_error(p, "expected a value");
	return NULL;
}

/* Parse text (len bytes) as one JSON value; NULL with *cause on error. */
struct jsonread *
jsonread_parse(const char *text, size_t len, char **cause)
{
	struct jsonread_parser	 p;
	struct jsonread		*v;

	memset(&p, 0, sizeof p);
	p.text = text;
	p.len = len;
	v = jsonread_value(&p, 0);
	if (v != NULL) {
		jsonread_skip_ws(&p);
		if (p.pos < p.len) {
			jsonread_error(&p, "text after the value");
			jsonread_free(v);
			v = NULL;
		}
	}
	if (v == NULL)
		*cause = p.cause;
	return v;
}

/* Free a tree from its root. */
void
jsonread_free(struct jsonread *v)
{
	size_t	i;

	if (v == NULL)
		return;
	for (i = 0; i < v->n; i++) {
		jsonread_free(v->items[i]);
		if (v->keys != NULL)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	free(v);
}

/* Return v's type; NULL counts as JSONREAD_NULL. */
enum jsonread_type
jsonread_type(const struct jsonread *v)
{
	return v != NULL ? v->type : JSONREAD_NULL;
}

/* Return the number of elements or members; 0 for other values. */
size_t
jsonread_count(const struct jsonread *v)
{
	return v != NULL ? v->n : 0;
}

/* Return the value of the first member called key, or NULL. */
const struct jsonread *
jsonread_get(const struct jsonread *v, const char *key)
{
	size_t	i;

	if (v == NULL || v->type != JSONREAD_OBJECT)
		return NULL;
	for (i = 0; i < v->n; i++) {
		if (strcmp(v->keys[i], key) == 0)
			return v->items[i];
	}
	return NULL;
}

/* Return element i of an array (or member i's value), or NULL. */
const struct jsonread *
jsonread_index(const struct jsonread *v, size_t i)
{
	if (v == NULL || (v->type != JSONREAD_ARRAY &&
	    v->type != JSONREAD_OBJECT) || i >= v->n)
		return NULL;
	return v->items[i];
}

/* Return the name of member i of an object, or NULL. */
const char *
jsonread_key(const struct jsonread *v, size_t i)
{
	if (v == NULL || v->type != JSONREAD_OBJECT || i >= v->n)
		return NULL;
	return v->keys[i];
}

/* Return a string's bytes (NUL-terminated; its length in *len), or NULL. */
const char *
jsonread_string(const struct jsonread *v, size_t *len)
{
	if (v == NULL || v->type != JSONREAD_STRING)
		return NULL;
	if (len != NULL)
		*len = v->len;
	return v->str;
}

/* Return a number's value, or 0 for any other value. */
double
jsonread_number(const struct jsonread *v)
{
	return v != NULL && v->type == JSONREAD_NUMBER ? v->num : 0;
}

/* Return 1 for true, 0 for false, -1 for anything else. */
int
jsonread_bool(const struct jsonread *v)
{
	if (v == NULL || v->type != JSONREAD_BOOL)
		return -1;
	return v->b;
}

/*
 * Return obj's member key as text for a test's assertion: its string, ""
 * for null, "true" or "false" for a bool, "?" when it is missing or
 * none of these.
 */
const char *
jsonread_text(const struct jsonread *obj, const char *key)
{
	const struct jsonread	*v = jsonread_get(obj, key);

	if (v == NULL)
		return "?";
	if (jsonread_type(v) == JSONREAD_NULL)
		return "";
	if (jsonread_type(v) == JSONREAD_BOOL)
		return jsonread_bool(v) ? "true" : "false";
	return jsonread_string(v, NULL) != NULL ? jsonread_string(v, NULL) :
	    "?";
}
