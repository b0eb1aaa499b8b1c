/*
 * toml: a TOML 1.0.0 parser (https://toml.io/en/v1.0.0).  toml_parse()
 * turns a buffer into a tree of values whose root is a table; everything
 * else reads that tree.  It knows nothing about jobdeck: config.c gives the
 * tree its meaning.  It never prints and never exits; an error comes back
 * in *cause as "LINE:COL: message" (1-based, columns in characters), for
 * the caller to prefix with the file name.
 *
 * Limits, so hostile input cannot exhaust the stack or memory: the input
 * is at most TOML_MAX_INPUT bytes; tables and arrays nest at most
 * TOML_MAX_DEPTH deep (the root table is level 0, so "a.b.c = 1" reaches
 * level 2 and "a = [[1]]" level 2 as well), and nothing recurses deeper;
 * the tree may take at most about TOML_MAX_MEMORY bytes (counting each
 * allocation's overhead), which only documents packed with tiny values
 * ("a = [1,1,1,...]" longer than about 8 MiB) reach.  Each is an error.
 *
 * Ownership: toml_parse() returns a tree the caller frees with
 * toml_free(), which frees every value in it.  Every pointer the
 * accessors return (values, keys, strings) belongs to the tree and stays
 * valid until then.  The tree is never changed after parsing.
 *
 * Accessors other than toml_type() may be given NULL or a value of
 * another type: they then return 0 or NULL, so lookups can be chained
 * (toml_table_get(toml_table_get(root, "server"), "port")).  Check
 * toml_type() first where a wrong type is an error worth reporting.
 */
#ifndef JOBDECK_TOML_H
#define JOBDECK_TOML_H

#include <stddef.h>
#include <stdint.h>

#define TOML_MAX_INPUT	(16 * 1024 * 1024)
#define TOML_MAX_DEPTH	128
#define TOML_MAX_MEMORY	(256 * 1024 * 1024)

enum toml_type {
	TOML_TABLE,
	TOML_ARRAY,
	TOML_STRING,
	TOML_INTEGER,
	TOML_FLOAT,
	TOML_BOOL,
	TOML_DATETIME,		/* offset date-time */
	TOML_DATETIME_LOCAL,
	TOML_DATE_LOCAL,
	TOML_TIME_LOCAL
};

struct toml_value;

/*
 * Parse len bytes (which may contain NULs; a UTF-8 BOM at the start is
 * skipped).  Return the root table, or NULL with an allocated *cause
 * (cause may be NULL when the message is not wanted).
 */
struct toml_value	*toml_parse(const char *buf, size_t len, char **cause);
void			 toml_free(struct toml_value *);

/*
 * An error in full, for a caller that words some errors itself (config.c
 * names the option a null was written for).  code says what kind it was;
 * message is toml_parse()'s cause without "LINE:COL: ".
 *
 * TOML_ERROR_NULL: a bare null, nil, none (any case) or undefined where a
 * value goes; TOML has no null.  word is the word as written, and path
 * the steps from the root to it: a header's keys, then the key/value's
 * (inline tables' too), with a step for each array element on the way
 * (the element of an array of tables a header went into, or of a [...]
 * array).  The last step is the null's own key, or its index in the
 * array it is an element of.
 *
 * toml_parse_report() fills *err (when not NULL) on failure; the caller
 * frees what it holds with toml_error_clear().  On success *err is
 * zeroed.
 */
enum toml_error_code {
	TOML_ERROR_SYNTAX,	/* any other error */
	TOML_ERROR_NULL		/* a null where a value goes */
};

struct toml_step {
	char		*key;	/* NULL: an array's element */
	size_t		 len;	/* of key, which may hold NULs */
	size_t		 index;	/* the element's, when key is NULL */
};

struct toml_error {
	enum toml_error_code	 code;
	int			 line;	/* where, 1-based, as in the cause */
	int			 col;
	char			*message;
	char			*word;	/* TOML_ERROR_NULL, else NULL */
	struct toml_step	*path;	/* TOML_ERROR_NULL, else NULL */
	size_t			 npath;
};

struct toml_value	*toml_parse_report(const char *buf, size_t len,
			     struct toml_error *err);
void			 toml_error_clear(struct toml_error *);

/* The type, and its name as toml-test spells it: "string", "bool", ... */
enum toml_type		 toml_type(const struct toml_value *);
const char		*toml_type_name(enum toml_type);

/*
 * Where the value starts, 1-based: its first character for a literal, the
 * '[' of the header for a table or array of tables made by one, the key
 * for a table made implicitly by a dotted key or a header.
 */
int			 toml_line(const struct toml_value *);
int			 toml_col(const struct toml_value *);

/*
 * Tables, with keys in the order they were first written.  A key may
 * contain NULs (a quoted "\u0000"): *len, when len is not NULL, gets its
 * length.  toml_table_key_line/col tell where key i was written (in
 * "a.b = 1" the key b of table a is at the b, and [x.y] puts y there).
 * toml_table_get() finds a key (without NULs) by name.
 */
size_t			 toml_table_size(const struct toml_value *);
const char		*toml_table_key(const struct toml_value *, size_t i,
			     size_t *len);
int			 toml_table_key_line(const struct toml_value *,
			     size_t i);
int			 toml_table_key_col(const struct toml_value *,
			     size_t i);
struct toml_value	*toml_table_value(const struct toml_value *, size_t i);
struct toml_value	*toml_table_get(const struct toml_value *,
			     const char *key);

/* Arrays (arrays of tables included), in order. */
size_t			 toml_array_size(const struct toml_value *);
struct toml_value	*toml_array_get(const struct toml_value *, size_t i);

/*
 * Scalars.  A string is NUL-terminated but may contain NULs; *len, when
 * len is not NULL, gets its length.  toml_datetime() returns any of the
 * four date-time types as canonical RFC 3339 text: 'T' between date and
 * time, fractional seconds as written, "Z" or "+HH:MM" for an offset
 * ("1979-05-27T00:32:00.5-07:00", "1979-05-27", "07:32:00").
 */
const char		*toml_string(const struct toml_value *, size_t *len);
int64_t			 toml_integer(const struct toml_value *);
double			 toml_float(const struct toml_value *);
int			 toml_bool(const struct toml_value *);
const char		*toml_datetime(const struct toml_value *);

#endif
