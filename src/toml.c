/*
 * toml.c: a TOML 1.0.0 parser (https://toml.io/en/v1.0.0), held to the
 * toml-test suite (tests/toml-conformance.c).
 *
 * One pass over the input, by recursive descent for values only: the
 * document is a loop over lines, and only arrays and inline tables recurse,
 * each level checked against TOML_MAX_DEPTH before it is entered.  The
 * whole input is checked to be UTF-8 first, so the parser proper only
 * looks at ASCII and copies everything else through.
 *
 * What may be added to a table is decided by how the table came to be,
 * kept in its flags:
 *   - TOML_DEFINED: by a [header], an element of [[header]], or the root.
 *     Another [header] for it is "defined twice"; dotted keys from a parent
 *     section may not reach into it.
 *   - TOML_IMPLICIT: as an intermediate of a header ([a.b] makes a).  A
 *     later [a] defines it, once; dotted keys may not reach into it.
 *   - TOML_DOTTED: by a dotted key (a.b = 1 makes a).  More dotted keys in
 *     the same section may add to it, and headers may go through it to
 *     define sub-tables ([a.c]), but [a] itself is an error.
 *   - TOML_INLINE: an inline table, closed once written.  Nothing may be
 *     added to it, or to any table inside it.
 * An array made by [[header]] carries TOML_AOT; a header going through it
 * goes into its last element, and arrays written with [...] are closed.
 *
 * Every allocation that goes into the tree is counted in p->mem, with
 * TOML_ALLOC_COST for malloc's own overhead, and checked against
 * TOML_MAX_MEMORY before each value and each header, so the tree ends at
 * most one value (a string, or the tables of one dotted key) past it.
 *
 * Deviations and choices (the spec leaves these open):
 *   - Newlines in multi-line strings are stored as "\n", even when written
 *     as CRLF.
 *   - Integers are int64 and floats binary64.  An integer out of range is
 *     an error, and so is a float too large for a double (1e400); one too
 *     small becomes 0 or a subnormal.
 *   - Fractional seconds are kept as written, to any precision, in the
 *     canonical text of a date-time.  A second of 60 is allowed (a leap
 *     second, as RFC 3339 does).
 *   - Columns in messages count characters (code points), not bytes; a
 *     tab counts as one.
 */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toml.h"
#include "utf8.h"
#include "xmalloc.h"

/* One key of a table, with where it was written. */
struct toml_entry {
	char			*key;
	size_t			 keylen;
	struct toml_value	*value;
	int			 line;
	int			 col;
};

/* The keys of a table, in order, with a hash index once there are many. */
struct toml_table {
	struct toml_entry	*v;
	size_t			 n;
	size_t			 size;
	uint32_t		*slots;		/* entry + 1, or 0 */
	size_t			 nslots;	/* a power of two */
};

/* A value; kept small, as a hostile document may hold millions. */
struct toml_value {
	unsigned char	 type;		/* enum toml_type */
	unsigned char	 depth;		/* containers above; root: 0 */
#define TOML_DEFINED	0x1
#define TOML_IMPLICIT	0x2
#define TOML_DOTTED	0x4
#define TOML_INLINE	0x8
#define TOML_AOT	0x10
	unsigned char	 flags;
	int		 line;
	int		 col;
	union {
		struct toml_table	*table;	/* NULL while empty */
		struct {
			struct toml_value	**v;
			size_t			  n;
			size_t			  size;
		} array;
		struct {
			char	*s;
			size_t	 len;
		} str;		/* strings and the text of date-times */
		int64_t	 i;
		double	 f;
		int	 b;
	} u;
};

/* What one allocation costs beyond its size, for TOML_MAX_MEMORY. */
#define TOML_ALLOC_COST	16

/* Tables up to this size are searched in order; larger ones hashed. */
#define TOML_LINEAR_MAX	8

/* Every empty string value shares this one. */
static char	toml_empty[1];

/* Longest key part or value shown in a message, in bytes. */
#define TOML_SHOW_MAX	64

/* One part of a dotted key. */
struct toml_key_part {
	char	*s;
	size_t	 len;
	size_t	 off;
	int	 line;
	int	 col;
};

/* A dotted key: one or more parts. */
struct toml_key {
	struct toml_key_part	*v;
	size_t			 n;
	size_t			 size;
};

/* The state of one toml_parse() call. */
struct toml_parser {
	const char		*buf;
	size_t			 len;
	size_t			 pos;
	size_t			 start;		/* after a BOM */
	struct toml_value	*root;
	struct toml_value	*current;	/* where key/values go */
	char			*name;		/* its header text */
	struct toml_key		 header;	/* and its keys; none: root */

	/* The first error: its message, where, what kind. */
	char			*cause;
	int			 cause_line;
	int			 cause_col;
	enum toml_error_code	 code;
	char			*word;		/* TOML_ERROR_NULL's word */
	struct toml_step	*path;		/* and its path, built as the */
	size_t			 npath;		/*   parse unwinds: innermost */
	size_t			 pathsize;	/*   first */
	int			 element;	/* the next value is an */
						/*   array's element */
	locale_t		 c_locale;
	size_t			 mem;		/* bytes the tree holds, about */

	/* Cache for toml_where(): an offset and its line and column. */
	size_t			 where_off;
	int			 where_line;
	int			 where_col;

	/* Scratch buffer for strings and numbers. */
	char			*scratch;
	size_t			 scratch_len;
	size_t			 scratch_size;
};

static int	 toml_error(struct toml_parser *, size_t, const char *, ...)
		     __attribute__((format(printf, 3, 4)));
static void	 toml_where(struct toml_parser *, size_t, int *, int *);
static int	 toml_expected(struct toml_parser *, size_t, const char *);
static int	 toml_is_control(int);
static int	 toml_is_bare(int);
static int	 toml_is_digit(int);
static void	 scratch_add(struct toml_parser *, const char *, size_t);
static void	 scratch_addc(struct toml_parser *, int);
static void	 scratch_add_utf8(struct toml_parser *, uint32_t);
static void	 toml_charge(struct toml_parser *, size_t);
static int	 toml_check_memory(struct toml_parser *, size_t);
static struct toml_value *toml_new(struct toml_parser *, enum toml_type, int,
		     int, int);
static uint64_t toml_hash(const char *, size_t);
static struct toml_entry *table_find(const struct toml_value *,
		     const char *, size_t);
static void	 table_index(struct toml_table *, size_t);
static void	 table_add(struct toml_parser *, struct toml_value *,
		     const struct toml_key_part *, struct toml_value *);
static void	 array_add(struct toml_parser *, struct toml_value *,
		     struct toml_value *);
static const char *toml_article(enum toml_type);
static char	*toml_key_text(const struct toml_key *, size_t);
static void	 toml_key_clear(struct toml_key *);
static int	 toml_depth(struct toml_parser *, int, size_t);
static void	 toml_skip_ws(struct toml_parser *);
static int	 toml_newline(struct toml_parser *);
static int	 toml_skip_comment(struct toml_parser *);
static int	 toml_end_line(struct toml_parser *, const char *);
static int	 toml_skip_blank(struct toml_parser *);
static int	 toml_scan_escape(struct toml_parser *, int);
static int	 toml_scan_quoted(struct toml_parser *, char, int, size_t);
static int	 toml_scan_string(struct toml_parser *, int *);
static int	 toml_parse_simple_key(struct toml_parser *,
		     struct toml_key *, const char *);
static int	 toml_parse_key(struct toml_parser *, struct toml_key *,
		     const char *);
static int	 toml_key_target(struct toml_parser *, struct toml_value *,
		     struct toml_key *, const char *, struct toml_value **);
static int	 toml_parse_keyval(struct toml_parser *, struct toml_value *,
		     const char *);
static int	 toml_header_define(struct toml_parser *, struct toml_key *,
		     int, size_t, int, int);
static int	 toml_parse_header(struct toml_parser *);
static size_t	 toml_token_end(const struct toml_parser *, size_t);
static size_t	 toml_scan_digits(const char *, size_t, int, int *);
static int	 toml_parse_integer(struct toml_parser *, const char *,
		     size_t, size_t, struct toml_value *);
static int	 toml_parse_number(struct toml_parser *, const char *, size_t,
		     size_t, struct toml_value *);
static int	 toml_is_datetime(const char *, size_t);
static int	 toml_two_digits(const char *);
static int	 toml_month_days(int, int);
static int	 toml_parse_datetime(struct toml_parser *, const char *,
		     size_t, size_t, struct toml_value *);
static int	 toml_parse_array(struct toml_parser *, struct toml_value *);
static int	 toml_parse_inline(struct toml_parser *, struct toml_value *);
static int	 toml_parse_value(struct toml_parser *, int,
		     struct toml_value **);
static int	 toml_parse_document(struct toml_parser *);
static int	 toml_is_null(const char *, size_t);
static int	 toml_null(struct toml_parser *, size_t, const char *, size_t);
static void	 toml_path_add(struct toml_parser *, const char *, size_t,
		     size_t);
static void	 toml_path_key(struct toml_parser *, const struct toml_key *);
static void	 toml_path_header(struct toml_parser *);
static const struct toml_entry *toml_table_entry(const struct toml_value *,
		     size_t);

/* Record the first error, a message at offset off; return -1. */
static int
toml_error(struct toml_parser *p, size_t off, const char *fmt, ...)
{
	va_list	 ap;
	char	 small[256];
	int	 n;

	if (p->cause != NULL)
		return -1;
	va_start(ap, fmt);
	n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		p->cause = xstrdup("");
	else if ((size_t)n >= sizeof small) {
		p->cause = xmalloc((size_t)n + 1);
		va_start(ap, fmt);
		vsnprintf(p->cause, (size_t)n + 1, fmt, ap);
		va_end(ap);
	} else
		p->cause = xstrdup(small);
	toml_where(p, off, &p->cause_line, &p->cause_col);
	return -1;
}

/*
 * Find the line and column of offset off.  Offsets asked for while parsing
 * only grow, so counting on from the last answer keeps the whole parse
 * linear; an earlier offset (only ever for an error) counts from the start.
 */
static void
toml_where(struct toml_parser *p, size_t off, int *line, int *col)
{
	const unsigned char	*b = (const unsigned char *)p->buf;
	size_t			 i;

	if (off > p->len)
		off = p->len;
	if (off < p->where_off) {
		p->where_off = p->start;
		p->where_line = 1;
		p->where_col = 1;
	}
	for (i = p->where_off; i < off; i++) {
		if (b[i] == '\n') {
			p->where_line++;
			p->where_col = 1;
		} else if ((b[i] & 0xc0) != 0x80)
			p->where_col++;
	}
	p->where_off = off;
	*line = p->where_line;
	*col = p->where_col;
}

/* Report what was expected at off, or the control character found there. */
static int
toml_expected(struct toml_parser *p, size_t off, const char *what)
{
	int	c;

	if (off < p->len) {
		c = (unsigned char)p->buf[off];
		if (c == '\r' && (off + 1 == p->len || p->buf[off + 1] != '\n'))
			return toml_error(p, off, "carriage return without "
			    "line feed");
		if (toml_is_control(c) && c != '\n' && c != '\r')
			return toml_error(p, off, "control character U+%04X",
			    c);
	}
	return toml_error(p, off, "expected %s", what);
}

/* Return 1 for a control character TOML allows nowhere unescaped but tab. */
static int
toml_is_control(int c)
{
	return (c < 0x20 && c != '\t') || c == 0x7f;
}

/* Return 1 for a character of a bare key: A-Za-z0-9_-. */
static int
toml_is_bare(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* Return 1 for an ASCII digit. */
static int
toml_is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* Append n bytes to the scratch buffer, which is always NUL-terminated. */
static void
scratch_add(struct toml_parser *p, const char *s, size_t n)
{
	size_t	size;

	if (p->scratch_len + n + 1 > p->scratch_size) {
		size = p->scratch_size * 2;
		if (size < p->scratch_len + n + 1)
			size = p->scratch_len + n + 1 + 64;
		p->scratch = xreallocarray(p->scratch, size, 1);
		p->scratch_size = size;
	}
	memcpy(p->scratch + p->scratch_len, s, n);
	p->scratch_len += n;
	p->scratch[p->scratch_len] = '\0';
}

/* Append one byte to the scratch buffer. */
static void
scratch_addc(struct toml_parser *p, int c)
{
	char	ch = (char)c;

	scratch_add(p, &ch, 1);
}

/* Append code point cp (a Unicode scalar value) as UTF-8. */
static void
scratch_add_utf8(struct toml_parser *p, uint32_t cp)
{
	char	b[UTF8_MAX];

	scratch_add(p, b, (size_t)utf8_put(b, cp));
}

/* Count n more bytes (one allocation) against the tree's TOML_MAX_MEMORY. */
static void
toml_charge(struct toml_parser *p, size_t n)
{
	p->mem += n + TOML_ALLOC_COST;
}

/* Fail, reporting at off, once the tree holds more than TOML_MAX_MEMORY. */
static int
toml_check_memory(struct toml_parser *p, size_t off)
{
	if (p->mem > TOML_MAX_MEMORY)
		return toml_error(p, off, "document needs more than %d MiB of "
		    "memory", TOML_MAX_MEMORY / (1024 * 1024));
	return 0;
}

/* Make an empty value of the given type, starting at line:col. */
static struct toml_value *
toml_new(struct toml_parser *p, enum toml_type type, int line, int col,
    int depth)
{
	struct toml_value	*v;

	v = xcalloc(1, sizeof *v);
	toml_charge(p, sizeof *v);
	v->type = (unsigned char)type;
	v->line = line;
	v->col = col;
	v->depth = (unsigned char)depth;	/* at most TOML_MAX_DEPTH + 1 */
	return v;
}

/* Return a hash of key (FNV-1a). */
static uint64_t
toml_hash(const char *key, size_t len)
{
	uint64_t	h = 14695981039346656037ULL;
	size_t		i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)key[i];
		h *= 1099511628211ULL;
	}
	return h;
}

/* Find key (len bytes) in table t, or return NULL. */
static struct toml_entry *
table_find(const struct toml_value *t, const char *key, size_t len)
{
	struct toml_table	*tb = t->u.table;
	struct toml_entry	*e;
	size_t			 i, mask;
	uint32_t		 slot;

	if (tb == NULL)
		return NULL;
	if (tb->slots == NULL) {
		for (i = 0; i < tb->n; i++) {
			e = &tb->v[i];
			if (e->keylen == len && memcmp(e->key, key, len) == 0)
				return e;
		}
		return NULL;
	}
	mask = tb->nslots - 1;
	i = (size_t)toml_hash(key, len) & mask;
	while ((slot = tb->slots[i]) != 0) {
		e = &tb->v[slot - 1];
		if (e->keylen == len && memcmp(e->key, key, len) == 0)
			return e;
		i = (i + 1) & mask;
	}
	return NULL;
}

/* Put entry i of table body tb into its hash index. */
static void
table_index(struct toml_table *tb, size_t i)
{
	struct toml_entry	*e = &tb->v[i];
	size_t			 mask = tb->nslots - 1, j;

	j = (size_t)toml_hash(e->key, e->keylen) & mask;
	while (tb->slots[j] != 0)
		j = (j + 1) & mask;
	tb->slots[j] = (uint32_t)(i + 1);
}

/*
 * Add value v to table t under the key part k, which must not be there
 * yet; the table gets a copy of the key.  An empty table has no body
 * until its first key, and the body grows from one entry, as hostile
 * documents may hold millions of small tables.
 */
static void
table_add(struct toml_parser *p, struct toml_value *t,
    const struct toml_key_part *k, struct toml_value *v)
{
	struct toml_table	*tb;
	struct toml_entry	*e;
	size_t			 i;

	if ((tb = t->u.table) == NULL) {
		tb = t->u.table = xcalloc(1, sizeof *tb);
		toml_charge(p, sizeof *tb);
	}
	if (tb->n == tb->size) {
		i = tb->size == 0 ? 1 : tb->size * 2;
		tb->v = xreallocarray(tb->v, i, sizeof *tb->v);
		toml_charge(p, (i - tb->size) * sizeof *tb->v);
		tb->size = i;
	}
	e = &tb->v[tb->n++];
	e->key = xmalloc(k->len + 1);
	toml_charge(p, k->len + 1);
	memcpy(e->key, k->s, k->len + 1);
	e->keylen = k->len;
	e->line = k->line;
	e->col = k->col;
	e->value = v;

	if (tb->n <= TOML_LINEAR_MAX)
		return;
	if (tb->n * 2 <= tb->nslots) {
		table_index(tb, tb->n - 1);
		return;
	}
	free(tb->slots);
	tb->nslots = tb->nslots == 0 ? 32 : tb->nslots * 2;
	tb->slots = xcalloc(tb->nslots, sizeof *tb->slots);
	toml_charge(p, tb->nslots / 2 * sizeof *tb->slots);
	for (i = 0; i < tb->n; i++)
		table_index(tb, i);
}

/* Append value v to array a. */
static void
array_add(struct toml_parser *p, struct toml_value *a, struct toml_value *v)
{
	size_t	size;

	if (a->u.array.n == a->u.array.size) {
		size = a->u.array.size == 0 ? 2 : a->u.array.size * 2;
		a->u.array.v = xreallocarray(a->u.array.v, size,
		    sizeof *a->u.array.v);
		toml_charge(p, (size - a->u.array.size) * sizeof *a->u.array.v);
		a->u.array.size = size;
	}
	a->u.array.v[a->u.array.n++] = v;
}

/* Return the type's name with an article, for messages: "an integer". */
static const char *
toml_article(enum toml_type type)
{
	switch (type) {
	case TOML_TABLE:
		return "a table";
	case TOML_ARRAY:
		return "an array";
	case TOML_STRING:
		return "a string";
	case TOML_INTEGER:
		return "an integer";
	case TOML_FLOAT:
		return "a float";
	case TOML_BOOL:
		return "a bool";
	case TOML_DATETIME:
	case TOML_DATETIME_LOCAL:
		return "a date-time";
	case TOML_DATE_LOCAL:
		return "a date";
	case TOML_TIME_LOCAL:
		return "a time";
	}
	return "a value";
}

/*
 * Return the first n parts of key k as text for a message: parts joined
 * with '.', bare where they can be and quoted otherwise, each cut short
 * after TOML_SHOW_MAX bytes.  A blank parser's scratch buffer builds it.
 */
static char *
toml_key_text(const struct toml_key *k, size_t n)
{
	struct toml_parser	 b;
	const char		*s;
	size_t			 i, j, len, show;
	int			 bare;
	unsigned char		 c;
	char			 hex[8];

	memset(&b, 0, sizeof b);
	scratch_add(&b, "", 0);
	for (i = 0; i < n; i++) {
		s = k->v[i].s;
		len = k->v[i].len;
		if (i > 0)
			scratch_addc(&b, '.');
		bare = len > 0;
		for (j = 0; j < len && bare; j++)
			bare = toml_is_bare((unsigned char)s[j]);
		show = len;
		if (show > TOML_SHOW_MAX)
			show = utf8_cut(s, TOML_SHOW_MAX);
		if (!bare)
			scratch_addc(&b, '"');
		for (j = 0; j < show; j++) {
			c = (unsigned char)s[j];
			if (c == '"' || c == '\\') {
				scratch_addc(&b, '\\');
				scratch_addc(&b, c);
			} else if (toml_is_control(c) || c == '\t') {
				snprintf(hex, sizeof hex, "\\u%04X", c);
				scratch_add(&b, hex, strlen(hex));
			} else
				scratch_addc(&b, c);
		}
		if (show < len)
			scratch_add(&b, "...", 3);
		if (!bare)
			scratch_addc(&b, '"');
	}
	return b.scratch;
}

/* Free the parts of key k and empty it. */
static void
toml_key_clear(struct toml_key *k)
{
	size_t	i;

	for (i = 0; i < k->n; i++)
		free(k->v[i].s);
	free(k->v);
	memset(k, 0, sizeof *k);
}

/* Check that a container at depth may exist; report at off if not. */
static int
toml_depth(struct toml_parser *p, int depth, size_t off)
{
	if (depth > TOML_MAX_DEPTH)
		return toml_error(p, off, "nesting deeper than %d levels",
		    TOML_MAX_DEPTH);
	return 0;
}

/* Skip spaces and tabs. */
static void
toml_skip_ws(struct toml_parser *p)
{
	while (p->pos < p->len &&
	    (p->buf[p->pos] == ' ' || p->buf[p->pos] == '\t'))
		p->pos++;
}

/* Skip a newline (LF or CRLF) and return 1, or return 0 if none is here. */
static int
toml_newline(struct toml_parser *p)
{
	if (p->pos < p->len && p->buf[p->pos] == '\n') {
		p->pos++;
		return 1;
	}
	if (p->pos + 1 < p->len && p->buf[p->pos] == '\r' &&
	    p->buf[p->pos + 1] == '\n') {
		p->pos += 2;
		return 1;
	}
	return 0;
}

/* Skip a comment from its '#' up to (not over) the end of the line. */
static int
toml_skip_comment(struct toml_parser *p)
{
	int	c;

	for (p->pos++; p->pos < p->len; p->pos++) {
		c = (unsigned char)p->buf[p->pos];
		if (c == '\n')
			break;
		if (c == '\r' && p->pos + 1 < p->len &&
		    p->buf[p->pos + 1] == '\n')
			break;
		if (toml_is_control(c))
			return toml_error(p, p->pos, "control character U+%04X "
			    "in comment", c);
	}
	return 0;
}

/*
 * Finish a line: spaces, maybe a comment, then a newline or the end of the
 * input.  what names what came before, for the message.
 */
static int
toml_end_line(struct toml_parser *p, const char *what)
{
	char	expect[64];

	toml_skip_ws(p);
	if (p->pos < p->len && p->buf[p->pos] == '#' &&
	    toml_skip_comment(p) != 0)
		return -1;
	if (p->pos == p->len || toml_newline(p))
		return 0;
	snprintf(expect, sizeof expect, "end of line after %s", what);
	return toml_expected(p, p->pos, expect);
}

/* Skip whitespace, newlines and comments, as allowed inside arrays. */
static int
toml_skip_blank(struct toml_parser *p)
{
	for (;;) {
		toml_skip_ws(p);
		if (p->pos == p->len)
			return 0;
		if (p->buf[p->pos] == '#') {
			if (toml_skip_comment(p) != 0)
				return -1;
			continue;
		}
		if (!toml_newline(p))
			return 0;
	}
}

/*
 * Decode the escape at p->pos (a backslash) into the scratch buffer and
 * move past it.  In a multi-line string, a backslash ending a line eats
 * every space and newline after it.
 */
static int
toml_scan_escape(struct toml_parser *p, int multi)
{
	const char	*b = p->buf;
	size_t		 at = p->pos, i, ndigits;
	uint32_t	 cp;
	int		 c, d;

	if (at + 1 == p->len) {
		p->pos++;	/* the caller finds the string unterminated */
		return 0;
	}
	c = (unsigned char)b[at + 1];
	switch (c) {
	case 'b':
		scratch_addc(p, '\b');
		break;
	case 't':
		scratch_addc(p, '\t');
		break;
	case 'n':
		scratch_addc(p, '\n');
		break;
	case 'f':
		scratch_addc(p, '\f');
		break;
	case 'r':
		scratch_addc(p, '\r');
		break;
	case '"':
		scratch_addc(p, '"');
		break;
	case '\\':
		scratch_addc(p, '\\');
		break;
	case 'u':
	case 'U':
		ndigits = c == 'u' ? 4 : 8;
		cp = 0;
		for (i = 0; i < ndigits; i++) {
			if (at + 2 + i == p->len)
				break;
			d = (unsigned char)b[at + 2 + i];
			if (d >= '0' && d <= '9')
				d -= '0';
			else if (d >= 'a' && d <= 'f')
				d -= 'a' - 10;
			else if (d >= 'A' && d <= 'F')
				d -= 'A' - 10;
			else
				break;
			cp = cp * 16 + (uint32_t)d;
		}
		if (i < ndigits)
			return toml_error(p, at, "invalid escape '\\%c%.*s': "
			    "expected %zu hex digits", c, (int)i, b + at + 2,
			    ndigits);
		if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return toml_error(p, at, "invalid escape '\\%c%.*s': "
			    "not a Unicode scalar value", c, (int)ndigits,
			    b + at + 2);
		scratch_add_utf8(p, cp);
		p->pos = at + 2 + ndigits;
		return 0;
	default:
		if (multi) {
			i = at + 1;
			while (i < p->len && (b[i] == ' ' || b[i] == '\t'))
				i++;
			p->pos = i;
			if (toml_newline(p)) {
				for (;;) {
					toml_skip_ws(p);
					if (!toml_newline(p))
						break;
				}
				return 0;
			}
		}
		if (c > ' ' && c < 0x7f)
			return toml_error(p, at, "invalid escape '\\%c'", c);
		if (c >= 0x80) {
			/* The input is UTF-8 (toml_parse() checked it). */
			d = utf8_decode(b + at + 1, p->len - at - 1, &cp);
			return toml_error(p, at, "invalid escape '\\%.*s'",
			    d < 0 ? -d : d, b + at + 1);
		}
		if (c == ' ')
			return toml_error(p, at, "invalid escape: "
			    "'\\' followed by a space");
		if (c == '\n' || c == '\r')
			return toml_error(p, at, "invalid escape: '\\' at end "
			    "of line");
		return toml_error(p, at, "invalid escape: '\\' followed by "
		    "U+%04X", c);
	}
	p->pos = at + 2;
	return 0;
}

/*
 * Scan the rest of a string quoted with q (p->pos is after its opening
 * quotes, which start at open) into the scratch buffer, and move past its
 * end: a basic string (q is '"') takes escapes, a literal one ('\'') none.
 */
static int
toml_scan_quoted(struct toml_parser *p, char q, int multi, size_t open)
{
	const char	*b = p->buf;
	size_t		 start, n;
	int		 c, esc = q == '"';

	p->scratch_len = 0;
	scratch_add(p, "", 0);
	for (;;) {
		start = p->pos;
		while (p->pos < p->len) {
			c = (unsigned char)b[p->pos];
			if (c == q || (esc && c == '\\') || toml_is_control(c))
				break;
			p->pos++;
		}
		scratch_add(p, b + start, p->pos - start);
		if (p->pos == p->len) {
			return toml_error(p, open, "unterminated %sstring",
			    multi ? "multi-line " : "");
		}
		c = (unsigned char)b[p->pos];
		if (c == q) {
			if (!multi) {
				p->pos++;
				return 0;
			}
			for (n = 0; p->pos + n < p->len && b[p->pos + n] == q;
			    n++)
				/* nothing */;
			if (n > 5)
				return toml_error(p, p->pos + 5, "too many "
				    "quotes at end of multi-line string");
			if (n >= 3) {
				scratch_add(p, b + p->pos, n - 3);
				p->pos += n;
				return 0;
			}
			scratch_add(p, b + p->pos, n);
			p->pos += n;
		} else if (esc && c == '\\') {
			if (toml_scan_escape(p, multi) != 0)
				return -1;
		} else if (multi && toml_newline(p))
			scratch_addc(p, '\n');
		else if (!multi && toml_newline(p))
			return toml_error(p, open, "unterminated string");
		else
			return toml_error(p, p->pos, "control character U+%04X "
			    "in string", c);
	}
}

/*
 * Scan any string at p->pos into the scratch buffer; *multi is set if it
 * was a multi-line one.  A newline just after the opening quotes of a
 * multi-line string is not part of it.
 */
static int
toml_scan_string(struct toml_parser *p, int *multi)
{
	size_t	open = p->pos;
	char	q = p->buf[open];

	*multi = open + 2 < p->len && p->buf[open + 1] == q &&
	    p->buf[open + 2] == q;
	if (*multi) {
		p->pos += 3;
		toml_newline(p);
	} else
		p->pos++;
	return toml_scan_quoted(p, q, *multi, open);
}

/* Parse one part of a key (bare or quoted) and add it to k. */
static int
toml_parse_simple_key(struct toml_parser *p, struct toml_key *k,
    const char *what)
{
	struct toml_key_part	*part;
	size_t			 start = p->pos;
	int			 c, multi, line, col;

	if (k->n == TOML_MAX_DEPTH)
		return toml_error(p, start, "nesting deeper than %d levels",
		    TOML_MAX_DEPTH);
	toml_where(p, start, &line, &col);
	c = start < p->len ? (unsigned char)p->buf[start] : -1;
	if (c == '"' || c == '\'') {
		if (toml_scan_string(p, &multi) != 0)
			return -1;
		if (multi)
			return toml_error(p, start, "a multi-line string "
			    "cannot be a key");
	} else if (c != -1 && toml_is_bare(c)) {
		while (p->pos < p->len &&
		    toml_is_bare((unsigned char)p->buf[p->pos]))
			p->pos++;
		p->scratch_len = 0;
		scratch_add(p, p->buf + start, p->pos - start);
	} else
		return toml_expected(p, start, what);

	if (k->n == k->size) {
		k->size = k->size * 2 + 4;
		k->v = xreallocarray(k->v, k->size, sizeof *k->v);
	}
	part = &k->v[k->n++];
	part->len = p->scratch_len;
	part->s = xmalloc(part->len + 1);
	if (part->len != 0)
		memcpy(part->s, p->scratch, part->len);
	part->s[part->len] = '\0';
	part->off = start;
	part->line = line;
	part->col = col;
	return 0;
}

/* Parse a key of one or more parts joined by dots, and the spaces after. */
static int
toml_parse_key(struct toml_parser *p, struct toml_key *k, const char *what)
{
	for (;;) {
		if (toml_parse_simple_key(p, k, what) != 0)
			return -1;
		toml_skip_ws(p);
		if (p->pos == p->len || p->buf[p->pos] != '.')
			return 0;
		p->pos++;
		toml_skip_ws(p);
		what = "a key after '.'";
	}
}

/*
 * Find the table a key/value with key k goes into, starting from table t
 * (whose header is name, or NULL in an inline table), making the tables
 * of a dotted key that do not exist yet; the last part must be new.
 */
static int
toml_key_target(struct toml_parser *p, struct toml_value *t,
    struct toml_key *k, const char *name, struct toml_value **out)
{
	struct toml_key_part	*part;
	struct toml_entry	*e;
	struct toml_value	*v;
	char			*text;
	size_t			 i;
	int			 r;

	for (i = 0; i + 1 < k->n; i++) {
		part = &k->v[i];
		if ((e = table_find(t, part->s, part->len)) == NULL) {
			if (toml_depth(p, t->depth + 1, part->off) != 0)
				return -1;
			v = toml_new(p, TOML_TABLE, part->line, part->col,
			    t->depth + 1);
			v->flags = TOML_DOTTED;
			table_add(p, t, part, v);
			t = v;
			continue;
		}
		v = e->value;
		if (v->type == TOML_TABLE && (v->flags & TOML_DOTTED)) {
			t = v;
			continue;
		}
		text = toml_key_text(k, i + 1);
		if (v->type != TOML_TABLE)
			r = toml_error(p, part->off, "key '%s' is %s, not a "
			    "table", text, toml_article(v->type));
		else if (v->flags & TOML_INLINE)
			r = toml_error(p, part->off, "cannot add keys to "
			    "inline table '%s'", text);
		else
			r = toml_error(p, part->off, "cannot add keys to table "
			    "[%s%s%s] with dotted keys",
			    name == NULL ? "" : name,
			    name == NULL || *name == '\0' ? "" : ".", text);
		free(text);
		return r;
	}
	part = &k->v[k->n - 1];
	if (table_find(t, part->s, part->len) != NULL) {
		text = toml_key_text(k, k->n);
		r = toml_error(p, part->off, "duplicate key '%s'", text);
		free(text);
		return r;
	}
	*out = t;
	return 0;
}

/*
 * Parse "key = value" at p->pos into table t, whose header is name (NULL
 * inside an inline table).
 */
static int
toml_parse_keyval(struct toml_parser *p, struct toml_value *t,
    const char *name)
{
	struct toml_key		 k;
	struct toml_value	*target = NULL, *v;
	int			 r = -1;

	memset(&k, 0, sizeof k);
	if (toml_parse_key(p, &k, "a key") != 0)
		goto out;
	if (p->pos == p->len || p->buf[p->pos] != '=') {
		toml_expected(p, p->pos, "'=' after key");
		goto out;
	}
	p->pos++;
	toml_skip_ws(p);
	if (toml_key_target(p, t, &k, name, &target) != 0)
		goto out;
	p->element = 0;
	if (toml_parse_value(p, target->depth + 1, &v) != 0) {
		toml_path_key(p, &k);
		goto out;
	}
	table_add(p, target, &k.v[k.n - 1], v);
	r = 0;
out:
	toml_key_clear(&k);
	return r;
}

/*
 * Define the table or array-of-tables element named by the header key k,
 * whose '[' is at open (line:col), and make it the current table.
 */
static int
toml_header_define(struct toml_parser *p, struct toml_key *k, int aot,
    size_t open, int line, int col)
{
	struct toml_key_part	*part;
	struct toml_entry	*e;
	struct toml_value	*t = p->root, *v, *a;
	char			*text;
	size_t			 i;
	int			 r = -1;

	for (i = 0; i + 1 < k->n; i++) {
		part = &k->v[i];
		if ((e = table_find(t, part->s, part->len)) == NULL) {
			if (toml_depth(p, t->depth + 1, part->off) != 0)
				return -1;
			v = toml_new(p, TOML_TABLE, part->line, part->col,
			    t->depth + 1);
			v->flags = TOML_IMPLICIT;
			table_add(p, t, part, v);
			t = v;
			continue;
		}
		v = e->value;
		if (v->type == TOML_ARRAY && (v->flags & TOML_AOT)) {
			t = v->u.array.v[v->u.array.n - 1];
			continue;
		}
		if (v->type == TOML_TABLE && !(v->flags & TOML_INLINE)) {
			t = v;
			continue;
		}
		text = toml_key_text(k, i + 1);
		if (v->type == TOML_TABLE)
			toml_error(p, part->off, "cannot add to inline table "
			    "'%s'", text);
		else if (v->type == TOML_ARRAY)
			toml_error(p, part->off, "cannot add to static array "
			    "'%s'", text);
		else
			toml_error(p, part->off, "key '%s' is %s, not a table",
			    text, toml_article(v->type));
		free(text);
		return -1;
	}

	part = &k->v[k->n - 1];
	e = table_find(t, part->s, part->len);
	text = toml_key_text(k, k->n);
	v = e == NULL ? NULL : e->value;
	if (!aot) {
		if (v == NULL) {
			if (toml_depth(p, t->depth + 1, part->off) != 0)
				goto out;
			v = toml_new(p, TOML_TABLE, line, col, t->depth + 1);
			v->flags = TOML_DEFINED;
			table_add(p, t, part, v);
		} else if (v->type == TOML_TABLE &&
		    (v->flags & TOML_IMPLICIT)) {
			v->flags = TOML_DEFINED;
			v->line = line;
			v->col = col;
			e->line = part->line;
			e->col = part->col;
		} else if (v->type == TOML_TABLE && (v->flags & TOML_DEFINED)) {
			toml_error(p, open, "table [%s] defined twice", text);
			goto out;
		} else if (v->type == TOML_TABLE && (v->flags & TOML_DOTTED)) {
			toml_error(p, open, "table [%s] already defined by "
			    "dotted keys", text);
			goto out;
		} else if (v->type == TOML_TABLE) {
			toml_error(p, open, "table [%s] already defined as an "
			    "inline table", text);
			goto out;
		} else if (v->type == TOML_ARRAY && (v->flags & TOML_AOT)) {
			toml_error(p, open, "table [%s] already defined as an "
			    "array of tables", text);
			goto out;
		} else {
			toml_error(p, open, "key '%s' already defined as %s",
			    text, toml_article(v->type));
			goto out;
		}
	} else {
		if (v == NULL) {
			if (toml_depth(p, t->depth + 2, part->off) != 0)
				goto out;
			a = toml_new(p, TOML_ARRAY, line, col, t->depth + 1);
			a->flags = TOML_AOT;
			table_add(p, t, part, a);
		} else if (v->type == TOML_ARRAY && (v->flags & TOML_AOT))
			a = v;
		else if (v->type == TOML_ARRAY) {
			toml_error(p, open, "cannot append [[%s]] to a static "
			    "array", text);
			goto out;
		} else {
			toml_error(p, open, "key '%s' already defined as %s",
			    text, toml_article(v->type));
			goto out;
		}
		v = toml_new(p, TOML_TABLE, line, col, a->depth + 1);
		v->flags = TOML_DEFINED;
		array_add(p, a, v);
	}
	p->current = v;
	free(p->name);
	p->name = text;
	text = NULL;
	r = 0;
out:
	free(text);
	return r;
}

/* Parse a [table] or [[array of tables]] header line. */
static int
toml_parse_header(struct toml_parser *p)
{
	struct toml_key	 k;
	size_t		 open = p->pos;
	int		 aot = 0, line, col, r = -1;

	memset(&k, 0, sizeof k);
	if (toml_check_memory(p, open) != 0)
		return -1;
	toml_where(p, open, &line, &col);
	p->pos++;
	if (p->pos < p->len && p->buf[p->pos] == '[') {
		aot = 1;
		p->pos++;
	}
	toml_skip_ws(p);
	if (toml_parse_key(p, &k, "a table name") != 0)
		goto out;
	if (aot) {
		if (p->pos + 1 >= p->len || p->buf[p->pos] != ']' ||
		    p->buf[p->pos + 1] != ']') {
			toml_expected(p, p->pos, "']]' after array of tables "
			    "name");
			goto out;
		}
		p->pos += 2;
	} else {
		if (p->pos == p->len || p->buf[p->pos] != ']') {
			toml_expected(p, p->pos, "']' after table name");
			goto out;
		}
		p->pos++;
	}
	if ((r = toml_header_define(p, &k, aot, open, line, col)) == 0) {
		toml_key_clear(&p->header);
		p->header = k;
		memset(&k, 0, sizeof k);
	}
out:
	toml_key_clear(&k);
	return r;
}

/*
 * Return the end of the bare token (number, date-time, bool, inf, nan)
 * starting at start.  A date followed by one space and a time is one token.
 */
static size_t
toml_token_end(const struct toml_parser *p, size_t start)
{
	const char	*b = p->buf;
	size_t		 i = start;
	int		 c;

	for (;;) {
		while (i < p->len) {
			c = (unsigned char)b[i];
			if (!toml_is_bare(c) && c != '+' && c != '.' &&
			    c != ':')
				break;
			i++;
		}
		if (i - start != 10 || i + 3 >= p->len || b[i] != ' ' ||
		    !toml_is_digit((unsigned char)b[i + 1]) ||
		    !toml_is_digit((unsigned char)b[i + 2]) ||
		    b[i + 3] != ':' || b[start + 4] != '-')
			return i;
		i++;
	}
}

/*
 * Return how many characters of s (n bytes) are digits of the base with
 * single underscores between them; *underscore is set if it stopped at
 * an underscore that was not between two digits.
 */
static size_t
toml_scan_digits(const char *s, size_t n, int base, int *underscore)
{
	size_t	i = 0;
	int	c, d;

	for (;;) {
		if (i == n)
			return i;
		c = (unsigned char)s[i];
		if (c == '_') {
			if (i == 0 || i + 1 == n) {
				*underscore = 1;
				return i;
			}
			c = (unsigned char)s[i + 1];
		}
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			d = base;
		if (d >= base) {
			if (s[i] == '_')
				*underscore = 1;
			return i;
		}
		i += s[i] == '_' ? 2 : 1;
	}
}

/*
 * Convert the digits of an integer (s, n bytes, already checked) in base
 * to v, negative if neg; report out of range against the token at off.
 */
static int
toml_parse_integer(struct toml_parser *p, const char *s, size_t n,
    size_t off, struct toml_value *v)
{
	uint64_t	 acc = 0, limit, d;
	size_t		 i, tokn;
	int		 base = 10, neg = 0, c;
	const char	*tok = s;

	tokn = n;
	if (n > 0 && (s[0] == '+' || s[0] == '-')) {
		neg = s[0] == '-';
		s++;
		n--;
	}
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o' ||
	    s[1] == 'b')) {
		base = s[1] == 'x' ? 16 : s[1] == 'o' ? 8 : 2;
		s += 2;
		n -= 2;
	}
	limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (i = 0; i < n; i++) {
		c = (unsigned char)s[i];
		if (c == '_')
			continue;
		if (c <= '9')
			d = (uint64_t)(c - '0');
		else if (c >= 'a')
			d = (uint64_t)(c - 'a' + 10);
		else
			d = (uint64_t)(c - 'A' + 10);
		if (acc > (limit - d) / (uint64_t)base)
			return toml_error(p, off, "integer '%.*s' out of range",
			    (int)(tokn > TOML_SHOW_MAX ? TOML_SHOW_MAX : tokn),
			    tok);
		acc = acc * (uint64_t)base + d;
	}
	v->type = TOML_INTEGER;
	if (neg)
		v->u.i = acc == (uint64_t)INT64_MAX + 1 ? INT64_MIN :
		    -(int64_t)acc;
	else
		v->u.i = (int64_t)acc;
	return 0;
}

/* Parse the number s (n bytes) at off into v: an integer or a float. */
static int
toml_parse_number(struct toml_parser *p, const char *s, size_t n,
    size_t off, struct toml_value *v)
{
	const char	*r = s;
	size_t		 rn = n, i, j, k, show;
	int		 sign = 0, base, underscore = 0, isfloat = 0;
	double		 f;
	char		*end;

	show = n > TOML_SHOW_MAX ? TOML_SHOW_MAX : n;
	if (rn > 0 && (r[0] == '+' || r[0] == '-')) {
		sign = 1;
		r++;
		rn--;
	}
	if (rn == 3 && (memcmp(r, "inf", 3) == 0 || memcmp(r, "nan", 3) == 0)) {
		v->type = TOML_FLOAT;
		v->u.f = r[0] == 'i' ? INFINITY : NAN;
		if (s[0] == '-')
			v->u.f = -v->u.f;
		return 0;
	}
	if (rn > 1 && r[0] == '0' && (r[1] == 'x' || r[1] == 'o' ||
	    r[1] == 'b')) {
		if (sign)
			return toml_error(p, off, "sign not allowed in '%.*s'",
			    (int)show, s);
		base = r[1] == 'x' ? 16 : r[1] == 'o' ? 8 : 2;
		j = toml_scan_digits(r + 2, rn - 2, base, &underscore);
		if (j == 0 || j != rn - 2)
			goto bad;
		return toml_parse_integer(p, s, n, off, v);
	}

	j = toml_scan_digits(r, rn, 10, &underscore);
	if (j == 0)
		goto bad;
	if (r[0] == '0' && j > 1)
		return toml_error(p, off, "leading zero in '%.*s'", (int)show,
		    s);
	k = j;
	if (k < rn && r[k] == '.') {
		isfloat = 1;
		j = toml_scan_digits(r + k + 1, rn - k - 1, 10, &underscore);
		if (j == 0)
			goto bad;
		k += 1 + j;
	}
	if (k < rn && (r[k] == 'e' || r[k] == 'E')) {
		isfloat = 1;
		k++;
		if (k < rn && (r[k] == '+' || r[k] == '-'))
			k++;
		j = toml_scan_digits(r + k, rn - k, 10, &underscore);
		if (j == 0)
			goto bad;
		k += j;
	}
	if (k != rn)
		goto bad;
	if (!isfloat)
		return toml_parse_integer(p, s, n, off, v);

	p->scratch_len = 0;
	for (i = 0; i < n; i++) {
		if (s[i] != '_')
			scratch_addc(p, s[i]);
	}
	errno = 0;
	if (p->c_locale != (locale_t)0)
		f = strtod_l(p->scratch, &end, p->c_locale);
	else
		f = strtod(p->scratch, &end);
	if (*end != '\0')
		goto bad;
	if (isinf(f))
		return toml_error(p, off, "float '%.*s' out of range",
		    (int)show, s);
	v->type = TOML_FLOAT;
	v->u.f = f;
	return 0;

bad:
	if (underscore)
		return toml_error(p, off, "misplaced '_' in number '%.*s'",
		    (int)show, s);
	return toml_error(p, off, "invalid number '%.*s'", (int)show, s);
}

/*
 * Return 1 if the token s (n bytes) is meant as a date-time rather than a
 * number: it starts with a digit and has a ':', or a '-' after a digit.
 */
static int
toml_is_datetime(const char *s, size_t n)
{
	size_t	i;

	if (n == 0 || !toml_is_digit((unsigned char)s[0]))
		return 0;
	for (i = 1; i < n; i++) {
		if (s[i] == ':' || (s[i] == '-' &&
		    toml_is_digit((unsigned char)s[i - 1])))
			return 1;
	}
	return 0;
}

/* Return the value of the two digits at s, or -1. */
static int
toml_two_digits(const char *s)
{
	if (!toml_is_digit((unsigned char)s[0]) ||
	    !toml_is_digit((unsigned char)s[1]))
		return -1;
	return (s[0] - '0') * 10 + (s[1] - '0');
}

/* Return the number of days in month mon (1-12) of year. */
static int
toml_month_days(int year, int mon)
{
	static const int	days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30,
				    31, 30, 31 };

	if (mon == 2 && year % 4 == 0 && (year % 100 != 0 || year % 400 == 0))
		return 29;
	return days[mon - 1];
}

/*
 * Parse the date-time token s (n bytes) at off into v: an offset
 * date-time, local date-time, local date or local time, kept as canonical
 * text.
 */
static int
toml_parse_datetime(struct toml_parser *p, const char *s, size_t n,
    size_t off, struct toml_value *v)
{
	const char	*kind, *why = NULL;
	size_t		 i = 0, frac = 0, fraclen = 0, show;
	int		 year = 0, mon = 0, day = 0, hour = 0, min = 0;
	int		 sec = 0, oh = 0, om = 0, has_date = 0, has_time = 0;
	char		 zone = 0, text[64];

	show = n > TOML_SHOW_MAX ? TOML_SHOW_MAX : n;
	if (n >= 10 && toml_two_digits(s) >= 0 && toml_two_digits(s + 2) >= 0 &&
	    s[4] == '-' && (mon = toml_two_digits(s + 5)) >= 0 &&
	    s[7] == '-' && (day = toml_two_digits(s + 8)) >= 0) {
		year = toml_two_digits(s) * 100 + toml_two_digits(s + 2);
		has_date = 1;
		i = 10;
		if (i < n) {
			if (s[i] != 'T' && s[i] != 't' && s[i] != ' ')
				goto bad;
			i++;
		}
	}
	if (!has_date || i > 10) {
		if (n - i < 8 || (hour = toml_two_digits(s + i)) < 0 ||
		    s[i + 2] != ':' || (min = toml_two_digits(s + i + 3)) < 0 ||
		    s[i + 5] != ':' || (sec = toml_two_digits(s + i + 6)) < 0)
			goto bad;
		has_time = 1;
		i += 8;
		if (i < n && s[i] == '.') {
			frac = ++i;
			while (i < n && toml_is_digit((unsigned char)s[i]))
				i++;
			fraclen = i - frac;
			if (fraclen == 0)
				goto bad;
		}
		if (has_date && i < n) {
			if (s[i] == 'Z' || s[i] == 'z') {
				zone = 'Z';
				i++;
			} else if ((s[i] == '+' || s[i] == '-') && n - i >= 6 &&
			    (oh = toml_two_digits(s + i + 1)) >= 0 &&
			    s[i + 3] == ':' &&
			    (om = toml_two_digits(s + i + 4)) >= 0) {
				zone = s[i];
				i += 6;
			} else
				goto bad;
		}
	}
	if (i != n)
		goto bad;

	if (has_date && (mon < 1 || mon > 12))
		why = "month out of range";
	else if (has_date && (day < 1 || day > toml_month_days(year, mon)))
		why = "day out of range";
	else if (has_time && hour > 23)
		why = "hour out of range";
	else if (has_time && min > 59)
		why = "minute out of range";
	else if (has_time && sec > 60)
		why = "second out of range";
	else if (zone != 0 && zone != 'Z' && (oh > 23 || om > 59))
		why = "offset out of range";
	if (why != NULL) {
		kind = has_date && has_time ? "date-time" :
		    has_date ? "date" : "time";
		return toml_error(p, off, "invalid %s '%.*s': %s", kind,
		    (int)show, s, why);
	}

	if (has_date && has_time && zone != 0)
		v->type = TOML_DATETIME;
	else if (has_date && has_time)
		v->type = TOML_DATETIME_LOCAL;
	else if (has_date)
		v->type = TOML_DATE_LOCAL;
	else
		v->type = TOML_TIME_LOCAL;
	p->scratch_len = 0;
	if (has_date) {
		snprintf(text, sizeof text, "%04d-%02d-%02d", year, mon, day);
		scratch_add(p, text, strlen(text));
	}
	if (has_date && has_time)
		scratch_addc(p, 'T');
	if (has_time) {
		snprintf(text, sizeof text, "%02d:%02d:%02d", hour, min, sec);
		scratch_add(p, text, strlen(text));
	}
	if (fraclen != 0)
		scratch_add(p, s + frac - 1, fraclen + 1);
	if (zone == 'Z')
		scratch_addc(p, 'Z');
	else if (zone != 0) {
		snprintf(text, sizeof text, "%c%02d:%02d", zone, oh, om);
		scratch_add(p, text, strlen(text));
	}
	v->u.str.len = p->scratch_len;
	v->u.str.s = xstrndup(p->scratch, p->scratch_len);
	toml_charge(p, p->scratch_len + 1);
	return 0;

bad:
	return toml_error(p, off, "invalid date-time '%.*s'", (int)show, s);
}

/*
 * Return 1 if the token s (n bytes) is a word other languages write for
 * null: null, nil or none in any case, or undefined.
 */
static int
toml_is_null(const char *s, size_t n)
{
	static const char *const	 words[] = { "null", "nil", "none" };
	size_t				 i, k;
	int				 c;

	if (n == 9 && memcmp(s, "undefined", 9) == 0)
		return 1;
	for (i = 0; i < sizeof words / sizeof words[0]; i++) {
		if (strlen(words[i]) != n)
			continue;
		for (k = 0; k < n; k++) {
			c = (unsigned char)s[k];
			if (c >= 'A' && c <= 'Z')
				c += 'a' - 'A';
			if (c != words[i][k])
				break;
		}
		if (k == n)
			return 1;
	}
	return 0;
}

/*
 * Report the null word s (n bytes) at off, where a value goes: an
 * element of an array, or a key's value.  The path is added to as the
 * parse unwinds.
 */
static int
toml_null(struct toml_parser *p, size_t off, const char *s, size_t n)
{
	const char	*what = p->element ? "element" : "key";

	if (p->cause != NULL)
		return -1;
	p->code = TOML_ERROR_NULL;
	p->word = xstrndup(s, n);
	if (n == 4 && memcmp(s, "null", 4) == 0)
		return toml_error(p, off, "TOML has no null value: leave the "
		    "%s out", what);
	return toml_error(p, off, "TOML has no null value ('%.*s'): leave "
	    "the %s out", (int)n, s, what);
}

/*
 * Add a step to the path of a null error: a key (len bytes), or when key
 * is NULL the element index.  Nothing for any other error.
 */
static void
toml_path_add(struct toml_parser *p, const char *key, size_t len,
    size_t index)
{
	struct toml_step	*step;

	if (p->code != TOML_ERROR_NULL)
		return;
	if (p->npath == p->pathsize) {
		p->pathsize = p->pathsize * 2 + 8;
		p->path = xreallocarray(p->path, p->pathsize,
		    sizeof *p->path);
	}
	step = &p->path[p->npath++];
	memset(step, 0, sizeof *step);
	if (key != NULL) {
		step->key = xmalloc(len + 1);
		memcpy(step->key, key, len);
		step->key[len] = '\0';
		step->len = len;
	} else
		step->index = index;
}

/* Add the parts of key k to a null error's path, innermost first. */
static void
toml_path_key(struct toml_parser *p, const struct toml_key *k)
{
	size_t	i;

	for (i = k->n; i > 0; i--)
		toml_path_add(p, k->v[i - 1].s, k->v[i - 1].len, 0);
}

/*
 * Add the current header's steps to a null error's path, innermost
 * first: its keys, and the element of each array of tables it went into
 * (the last one, as when it was defined).
 */
static void
toml_path_header(struct toml_parser *p)
{
	const struct toml_key_part	*part;
	const struct toml_entry		*e;
	const struct toml_value		*t = p->root, *v;
	size_t				*index, i;

	if (p->code != TOML_ERROR_NULL || p->header.n == 0)
		return;
	index = xcalloc(p->header.n, sizeof *index);
	for (i = 0; i < p->header.n; i++) {
		part = &p->header.v[i];
		if ((e = table_find(t, part->s, part->len)) == NULL)
			break;
		v = e->value;
		index[i] = SIZE_MAX;
		if (v->type == TOML_ARRAY && (v->flags & TOML_AOT) &&
		    v->u.array.n > 0) {
			index[i] = v->u.array.n - 1;
			v = v->u.array.v[index[i]];
		}
		t = v;
	}
	while (i > 0) {
		i--;
		if (index[i] != SIZE_MAX)
			toml_path_add(p, NULL, 0, index[i]);
		toml_path_add(p, p->header.v[i].s, p->header.v[i].len, 0);
	}
	free(index);
}

/* Parse the elements of the array a, p->pos being at its '['. */
static int
toml_parse_array(struct toml_parser *p, struct toml_value *a)
{
	struct toml_value	*v;
	size_t			 open = p->pos;

	p->pos++;
	for (;;) {
		if (toml_skip_blank(p) != 0)
			return -1;
		if (p->pos == p->len)
			return toml_error(p, open, "unterminated array");
		if (p->buf[p->pos] == ']') {
			p->pos++;
			return 0;
		}
		p->element = 1;
		if (toml_parse_value(p, a->depth + 1, &v) != 0) {
			toml_path_add(p, NULL, 0, a->u.array.n);
			return -1;
		}
		array_add(p, a, v);
		if (toml_skip_blank(p) != 0)
			return -1;
		if (p->pos == p->len)
			return toml_error(p, open, "unterminated array");
		if (p->buf[p->pos] == ']') {
			p->pos++;
			return 0;
		}
		if (p->buf[p->pos] != ',')
			return toml_expected(p, p->pos, "',' or ']' "
			    "after array element");
		p->pos++;
	}
}

/* Parse the keys of the inline table t, p->pos being at its '{'. */
static int
toml_parse_inline(struct toml_parser *p, struct toml_value *t)
{
	size_t	open = p->pos;
	int	first = 1;

	p->pos++;
	for (;;) {
		toml_skip_ws(p);
		if (p->pos == p->len)
			return toml_error(p, open, "unterminated inline table");
		if (p->buf[p->pos] == '\n' || p->buf[p->pos] == '\r')
			return toml_error(p, p->pos, "newline in inline table");
		if (p->buf[p->pos] == '}') {
			if (!first)
				return toml_error(p, p->pos, "trailing comma "
				    "in inline table");
			p->pos++;
			return 0;
		}
		first = 0;
		if (toml_parse_keyval(p, t, NULL) != 0)
			return -1;
		toml_skip_ws(p);
		if (p->pos == p->len)
			return toml_error(p, open, "unterminated inline table");
		if (p->buf[p->pos] == '\n' || p->buf[p->pos] == '\r')
			return toml_error(p, p->pos, "newline in inline table");
		if (p->buf[p->pos] == '}') {
			p->pos++;
			return 0;
		}
		if (p->buf[p->pos] != ',')
			return toml_expected(p, p->pos, "',' or '}' "
			    "after value in inline table");
		p->pos++;
	}
}

/*
 * Parse the value at p->pos into *out.  depth is the level it would have,
 * checked if it is an array or inline table.
 */
static int
toml_parse_value(struct toml_parser *p, int depth, struct toml_value **out)
{
	struct toml_value	*v;
	const char		*s;
	size_t			 start = p->pos, end, n, show;
	int			 line, col, c, multi, r;

	*out = NULL;
	if (toml_check_memory(p, start) != 0)
		return -1;
	toml_where(p, start, &line, &col);
	c = start < p->len ? (unsigned char)p->buf[start] : -1;
	v = toml_new(p, TOML_STRING, line, col, depth);
	if (c == '"' || c == '\'') {
		if (toml_scan_string(p, &multi) != 0)
			goto fail;
		v->u.str.len = p->scratch_len;
		if (p->scratch_len == 0)
			v->u.str.s = toml_empty;
		else {
			v->u.str.s = xmalloc(p->scratch_len + 1);
			toml_charge(p, p->scratch_len + 1);
			memcpy(v->u.str.s, p->scratch, p->scratch_len + 1);
		}
		*out = v;
		return 0;
	}
	if (c == '[' || c == '{') {
		if (toml_depth(p, depth, start) != 0)
			goto fail;
		if (c == '[') {
			v->type = TOML_ARRAY;
			r = toml_parse_array(p, v);
		} else {
			v->type = TOML_TABLE;
			v->flags = TOML_INLINE;
			r = toml_parse_inline(p, v);
		}
		if (r != 0)
			goto fail;
		*out = v;
		return 0;
	}

	end = toml_token_end(p, start);
	s = p->buf + start;
	n = end - start;
	show = n > TOML_SHOW_MAX ? TOML_SHOW_MAX : n;
	if (n == 0) {
		toml_expected(p, start, "a value");
		goto fail;
	}
	if (n == 4 && memcmp(s, "true", 4) == 0) {
		v->type = TOML_BOOL;
		v->u.b = 1;
	} else if (n == 5 && memcmp(s, "false", 5) == 0) {
		v->type = TOML_BOOL;
		v->u.b = 0;
	} else if (toml_is_datetime(s, n)) {
		if (toml_parse_datetime(p, s, n, start, v) != 0)
			goto fail;
	} else if (toml_is_digit(c) || c == '+' || c == '-' || c == '.' ||
	    (n == 3 && (memcmp(s, "inf", 3) == 0 ||
	    memcmp(s, "nan", 3) == 0))) {
		if (toml_parse_number(p, s, n, start, v) != 0)
			goto fail;
	} else if (toml_is_null(s, n)) {
		toml_null(p, start, s, n);
		goto fail;
	} else {
		toml_error(p, start, "invalid value '%.*s'", (int)show, s);
		goto fail;
	}
	p->pos = end;
	*out = v;
	return 0;

fail:
	toml_free(v);
	return -1;
}

/* Parse the document: lines of headers, key/values, comments. */
static int
toml_parse_document(struct toml_parser *p)
{
	int	c;

	for (;;) {
		toml_skip_ws(p);
		if (p->pos == p->len)
			return 0;
		c = (unsigned char)p->buf[p->pos];
		if (c == '[') {
			if (toml_parse_header(p) != 0 ||
			    toml_end_line(p, "table header") != 0)
				return -1;
		} else if (c == '#' || c == '\n' || c == '\r') {
			if (toml_end_line(p, "comment") != 0)
				return -1;
		} else {
			if (toml_parse_keyval(p, p->current, p->name) != 0) {
				toml_path_header(p);
				return -1;
			}
			if (toml_end_line(p, "value") != 0)
				return -1;
		}
	}
}

/*
 * Parse len bytes of TOML into a tree; on failure fill *err (when not
 * NULL) with the error in full.  See toml.h.
 */
struct toml_value *
toml_parse_report(const char *buf, size_t len, struct toml_error *err)
{
	struct toml_parser	 p;
	struct toml_value	*root = NULL;
	struct toml_step	 step;
	size_t			 bad, i;

	memset(&p, 0, sizeof p);
	p.buf = buf;
	p.len = len;
	p.where_line = p.where_col = 1;
	if (err != NULL)
		memset(err, 0, sizeof *err);
	if (len > TOML_MAX_INPUT) {
		toml_error(&p, 0, "input larger than %d bytes",
		    TOML_MAX_INPUT);
		goto out;
	}
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		p.start = p.pos = p.where_off = 3;
	if ((bad = utf8_valid(buf, len)) != len) {
		toml_error(&p, bad, "invalid UTF-8");
		goto out;
	}

	p.c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	p.root = toml_new(&p, TOML_TABLE, 1, 1, 0);
	p.root->flags = TOML_DEFINED;
	p.current = p.root;
	p.name = xstrdup("");
	if (toml_parse_document(&p) == 0)
		root = p.root;
	else
		toml_free(p.root);
	if (p.c_locale != (locale_t)0)
		freelocale(p.c_locale);
	free(p.name);
	free(p.scratch);
	toml_key_clear(&p.header);

out:
	if (root == NULL) {
		if (p.cause == NULL)
			toml_error(&p, p.pos, "parse error");
		/* The path was built innermost first. */
		for (i = 0; i < p.npath / 2; i++) {
			step = p.path[i];
			p.path[i] = p.path[p.npath - 1 - i];
			p.path[p.npath - 1 - i] = step;
		}
		if (err != NULL) {
			err->code = p.code;
			err->line = p.cause_line;
			err->col = p.cause_col;
			err->message = p.cause;
			err->word = p.word;
			err->path = p.path;
			err->npath = p.npath;
			return NULL;
		}
	}
	free(p.cause);
	free(p.word);
	for (i = 0; i < p.npath; i++)
		free(p.path[i].key);
	free(p.path);
	return root;
}

/* Free what err holds and zero it; NULL is allowed. */
void
toml_error_clear(struct toml_error *err)
{
	size_t	i;

	if (err == NULL)
		return;
	free(err->message);
	free(err->word);
	for (i = 0; i < err->npath; i++)
		free(err->path[i].key);
	free(err->path);
	memset(err, 0, sizeof *err);
}

/* Parse len bytes of TOML into a tree; see toml.h. */
struct toml_value *
toml_parse(const char *buf, size_t len, char **cause)
{
	struct toml_value	*root;
	struct toml_error	 err;

	root = toml_parse_report(buf, len, &err);
	if (root == NULL && cause != NULL)
		*cause = xprintf("%d:%d: %s", err.line, err.col, err.message);
	toml_error_clear(&err);
	return root;
}

/* Free a tree, or any value of one with everything below it. */
void
toml_free(struct toml_value *v)
{
	struct toml_table	*tb;
	size_t			 i;

	if (v == NULL)
		return;
	switch (v->type) {
	case TOML_TABLE:
		if ((tb = v->u.table) == NULL)
			break;
		for (i = 0; i < tb->n; i++) {
			free(tb->v[i].key);
			toml_free(tb->v[i].value);
		}
		free(tb->v);
		free(tb->slots);
		free(tb);
		break;
	case TOML_ARRAY:
		for (i = 0; i < v->u.array.n; i++)
			toml_free(v->u.array.v[i]);
		free(v->u.array.v);
		break;
	case TOML_STRING:
	case TOML_DATETIME:
	case TOML_DATETIME_LOCAL:
	case TOML_DATE_LOCAL:
	case TOML_TIME_LOCAL:
		if (v->u.str.s != toml_empty)
			free(v->u.str.s);
		break;
	case TOML_INTEGER:
	case TOML_FLOAT:
	case TOML_BOOL:
		break;
	}
	free(v);
}

/* Return the type of v, which must not be NULL. */
enum toml_type
toml_type(const struct toml_value *v)
{
	return (enum toml_type)v->type;
}

/* Return the name toml-test gives type. */
const char *
toml_type_name(enum toml_type type)
{
	switch (type) {
	case TOML_TABLE:
		return "table";
	case TOML_ARRAY:
		return "array";
	case TOML_STRING:
		return "string";
	case TOML_INTEGER:
		return "integer";
	case TOML_FLOAT:
		return "float";
	case TOML_BOOL:
		return "bool";
	case TOML_DATETIME:
		return "datetime";
	case TOML_DATETIME_LOCAL:
		return "datetime-local";
	case TOML_DATE_LOCAL:
		return "date-local";
	case TOML_TIME_LOCAL:
		return "time-local";
	}
	return "unknown";
}

/* Return the line where v starts, or 0 for NULL. */
int
toml_line(const struct toml_value *v)
{
	return v == NULL ? 0 : v->line;
}

/* Return the column where v starts, or 0 for NULL. */
int
toml_col(const struct toml_value *v)
{
	return v == NULL ? 0 : v->col;
}

/* Return the number of keys in table t, 0 if it is not a table. */
size_t
toml_table_size(const struct toml_value *t)
{
	if (t == NULL || t->type != TOML_TABLE)
		return 0;
	return t->u.table == NULL ? 0 : t->u.table->n;
}

/* Return entry i of table t, or NULL. */
static const struct toml_entry *
toml_table_entry(const struct toml_value *t, size_t i)
{
	if (i >= toml_table_size(t))
		return NULL;
	return &t->u.table->v[i];
}

/* Return key i of table t and its length, or NULL. */
const char *
toml_table_key(const struct toml_value *t, size_t i, size_t *len)
{
	const struct toml_entry	*e;

	if ((e = toml_table_entry(t, i)) == NULL) {
		if (len != NULL)
			*len = 0;
		return NULL;
	}
	if (len != NULL)
		*len = e->keylen;
	return e->key;
}

/* Return the line where key i of table t was written, or 0. */
int
toml_table_key_line(const struct toml_value *t, size_t i)
{
	const struct toml_entry	*e;

	if ((e = toml_table_entry(t, i)) == NULL)
		return 0;
	return e->line;
}

/* Return the column where key i of table t was written, or 0. */
int
toml_table_key_col(const struct toml_value *t, size_t i)
{
	const struct toml_entry	*e;

	if ((e = toml_table_entry(t, i)) == NULL)
		return 0;
	return e->col;
}

/* Return the value of key i of table t, or NULL. */
struct toml_value *
toml_table_value(const struct toml_value *t, size_t i)
{
	const struct toml_entry	*e;

	if ((e = toml_table_entry(t, i)) == NULL)
		return NULL;
	return e->value;
}

/* Return the value of key in table t, or NULL if there is none. */
struct toml_value *
toml_table_get(const struct toml_value *t, const char *key)
{
	struct toml_entry	*e;

	if (t == NULL || t->type != TOML_TABLE || key == NULL)
		return NULL;
	if ((e = table_find(t, key, strlen(key))) == NULL)
		return NULL;
	return e->value;
}

/* Return the number of elements of array a, 0 if it is not an array. */
size_t
toml_array_size(const struct toml_value *a)
{
	if (a == NULL || a->type != TOML_ARRAY)
		return 0;
	return a->u.array.n;
}

/* Return element i of array a, or NULL. */
struct toml_value *
toml_array_get(const struct toml_value *a, size_t i)
{
	if (a == NULL || a->type != TOML_ARRAY || i >= a->u.array.n)
		return NULL;
	return a->u.array.v[i];
}

/* Return the string v and its length, or NULL if it is not a string. */
const char *
toml_string(const struct toml_value *v, size_t *len)
{
	if (v == NULL || v->type != TOML_STRING) {
		if (len != NULL)
			*len = 0;
		return NULL;
	}
	if (len != NULL)
		*len = v->u.str.len;
	return v->u.str.s;
}

/* Return the integer v, or 0 if it is not an integer. */
int64_t
toml_integer(const struct toml_value *v)
{
	if (v == NULL || v->type != TOML_INTEGER)
		return 0;
	return v->u.i;
}

/* Return the float v, or 0 if it is not a float. */
double
toml_float(const struct toml_value *v)
{
	if (v == NULL || v->type != TOML_FLOAT)
		return 0;
	return v->u.f;
}

/* Return 1 if v is true, 0 if it is false or not a bool. */
int
toml_bool(const struct toml_value *v)
{
	if (v == NULL || v->type != TOML_BOOL)
		return 0;
	return v->u.b;
}

/* Return the canonical text of the date-time v, or NULL. */
const char *
toml_datetime(const struct toml_value *v)
{
	if (v == NULL || (v->type != TOML_DATETIME &&
	    v->type != TOML_DATETIME_LOCAL && v->type != TOML_DATE_LOCAL &&
	    v->type != TOML_TIME_LOCAL))
		return NULL;
	return v->u.str.s;
}
