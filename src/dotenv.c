/*
 * dotenv.c: environment files (see dotenv.h) in the format foreman and
 * docker compose read.  The format has no specification; compose's
 * env_file documentation and foreman's Foreman::Env are the reference.
 *
 *   - A file is at most DOTENV_MAX_SIZE bytes and holds no NUL byte (no
 *     environment value can).  A UTF-8 byte order mark at its start is
 *     skipped, and a CR just before a LF is dropped wherever it is, so
 *     CRLF files read as LF files.  Every other byte, invalid UTF-8
 *     included, passes through verbatim.
 *   - A line that is blank (spaces and tabs) or whose first non-blank is
 *     '#' is skipped.  Any other line is [export] NAME=VALUE: blanks may
 *     come before NAME and around '=', an "export" followed by blanks is
 *     dropped, and NAME follows the one rule for environment names
 *     (name_check_env()).
 *   - An unquoted VALUE runs to the end of its line; a '#' after a blank
 *     starts a comment, and blanks at the end are dropped.  A backslash is
 *     a plain character there.
 *   - '...' is verbatim: no escape, no expansion.
 *   - "..." knows the escapes \n (newline), \t (tab), \", \\ and \$ (a
 *     '$' that expands nothing); any other backslash stays, with the
 *     character after it.
 *   - Both quoted forms may span lines.  After the closing quote only
 *     blanks and a '#' comment may follow on the line.
 *   - In unquoted and "..." values, ${NAME}, ${NAME:-default} and $NAME
 *     expand, and $$ is one '$', by the rules of expand_text()
 *     (src/expand.c): the value becomes that template ($NAME written
 *     ${NAME}, every '$' that is no expansion written $$, the escapes
 *     resolved) and is expanded there, NAME read from the entries above,
 *     then from the caller's lookup, "" when neither has it.  What a
 *     variable brings in is never expanded again.  A '$' before anything
 *     else ($1, a '$' at the end) stays as it is.
 *   - A NAME given again replaces the earlier value, in the earlier place.
 *   - At most DOTENV_MAX_ENTRIES names, and values of at most
 *     DOTENV_MAX_OUTPUT bytes in all once expanded (replaced ones count),
 *     so no file makes much more work than its size.
 *
 * Deviations: foreman expands nothing, takes the rest of the line as the
 * value (no comment), drops the backslash of every escape in "..." and
 * skips lines it cannot read; compose also knows ${NAME:?err}, ${NAME-x}
 * and ${NAME:+x}.  Here a line that is no entry is an error, so a typo
 * never drops a variable, and other ${...} forms are errors too.
 *
 * Errors are "NAME:LINE:COL: message", LINE and COL (in bytes) from 1:
 *	NUL byte
 *	env name '1A' must be a letter or '_' followed by ...
 *	expected '=' after the name
 *	unterminated "..." value		(at the opening quote)
 *	unterminated '...' value
 *	unexpected text after the closing quote
 *	unterminated ${				(expand_text()'s errors, at
 *	invalid variable name 'a b'		 the '$' of the expansion)
 *	unsupported '${A:+b}': only ${NAME} and ${NAME:-default}
 *	${...} nested too deeply
 *	result longer than 1048576 bytes	(at the value)
 *	more than 1024 names			(at the name)
 *	values longer than 4194304 bytes in all
 * and "NAME: larger than 1048576 bytes" for a file over the size.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dotenv.h"
#include "expand.h"
#include "name.h"
#include "xmalloc.h"

/* One parse: the text, the entries so far and the template being made. */
struct dotenv_state {
	const char		 *name;		/* for messages */
	const char		 *text;		/* after a byte order mark */
	const char		 *end;
	dotenv_lookup_fn	 *lookup;
	void			 *arg;
	char			**cause;

	char			**kv;		/* "NAME=VALUE", NULL-terminated */
	size_t			  n;
	size_t			  total;	/* bytes of values made */

	char			 *tpl;		/* a value as expand_text()'s */
	size_t			 *pos;		/*   template, each byte's */
	size_t			  tlen;		/*   offset in text */
	size_t			  tsize;
};

static int	 dotenv_is_blank(char);
static const char *dotenv_token(const char *, const char *);
static int	 dotenv_fail(struct dotenv_state *, const char *, const char *);
static const char *dotenv_find(const struct dotenv_state *, const char *,
		     size_t);
static const char *dotenv_get(const char *, void *);
static int	 dotenv_set(struct dotenv_state *, const char *, size_t,
		     const char *);
static void	 dotenv_put(struct dotenv_state *, char, const char *);
static void	 dotenv_template(struct dotenv_state *, const char *,
		     const char *, int);
static char	*dotenv_expand(struct dotenv_state *, const char *);
static char	*dotenv_single(const char *, const char *);
static const char *dotenv_entry(struct dotenv_state *, const char *);

/* Return 1 if c is a blank between the parts of a line. */
static int
dotenv_is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Return the end of the name that starts at p: a blank, '=' or the line's. */
static const char *
dotenv_token(const char *p, const char *end)
{
	while (p < end && !dotenv_is_blank(*p) && *p != '=' && *p != '\r' &&
	    *p != '\n')
		p++;
	return p;
}

/* Set the cause to msg at place at of the text ("NAME:LINE:COL: msg"). */
static int
dotenv_fail(struct dotenv_state *st, const char *at, const char *msg)
{
	const char	*p, *start = st->text;
	size_t		 line = 1;

	for (p = st->text; p < at; p++) {
		if (*p == '\n') {
			line++;
			start = p + 1;
		}
	}
	*st->cause = xprintf("%s:%zu:%zu: %s", st->name, line,
	    (size_t)(at - start) + 1, msg);
	return -1;
}

/* Return the value of the entry called name (len bytes), or NULL. */
static const char *
dotenv_find(const struct dotenv_state *st, const char *name, size_t len)
{
	size_t	i;

	for (i = 0; i < st->n; i++) {
		if (strncmp(st->kv[i], name, len) == 0 &&
		    st->kv[i][len] == '=')
			return st->kv[i] + len + 1;
	}
	return NULL;
}

/* Look a name up for expand_text(): the entries above, then the caller. */
static const char *
dotenv_get(const char *name, void *arg)
{
	struct dotenv_state	*st = arg;
	const char		*v;

	if ((v = dotenv_find(st, name, strlen(name))) != NULL)
		return v;
	return st->lookup != NULL ? st->lookup(name, st->arg) : NULL;
}

static const struct expand_env dotenv_env = {
	.get = dotenv_get,
};

/*
 * Set name (len bytes, at its place in the text) to value, replacing an
 * earlier entry of that name; 0, or -1 with the cause set.
 */
static int
dotenv_set(struct dotenv_state *st, const char *name, size_t len,
    const char *value)
{
	char	*kv, *msg;
	size_t	 vlen = strlen(value), i;

	if (vlen > DOTENV_MAX_OUTPUT - st->total) {
		msg = xprintf("values longer than %d bytes in all",
		    DOTENV_MAX_OUTPUT);
		dotenv_fail(st, name, msg);
		free(msg);
		return -1;
	}
	st->total += vlen;
	kv = xprintf("%.*s=%s", (int)len, name, value);
	for (i = 0; i < st->n; i++) {
		if (strncmp(st->kv[i], name, len) == 0 &&
		    st->kv[i][len] == '=') {
			free(st->kv[i]);
			st->kv[i] = kv;
			return 0;
		}
	}
	if (st->n == DOTENV_MAX_ENTRIES) {
		free(kv);
		msg = xprintf("more than %d names", DOTENV_MAX_ENTRIES);
		dotenv_fail(st, name, msg);
		free(msg);
		return -1;
	}
	st->kv = xreallocarray(st->kv, st->n + 2, sizeof *st->kv);
	st->kv[st->n++] = kv;
	st->kv[st->n] = NULL;
	return 0;
}

/* Append c, which stands for the text at from, to the template. */
static void
dotenv_put(struct dotenv_state *st, char c, const char *from)
{
	if (st->tlen + 2 > st->tsize) {
		st->tsize = st->tsize == 0 ? 256 : st->tsize * 2;
		st->tpl = xreallocarray(st->tpl, st->tsize, 1);
		st->pos = xreallocarray(st->pos, st->tsize, sizeof *st->pos);
	}
	st->tpl[st->tlen] = c;
	st->pos[st->tlen] = (size_t)(from - st->text);
	st->tlen++;
	st->tpl[st->tlen] = '\0';
}

/*
 * Make the value from p to end (the inside of "..." if dq) the template
 * expand_text() reads: escapes resolved, $NAME as ${NAME}, and every '$'
 * that expands nothing as $$.  See the top of the file.
 */
static void
dotenv_template(struct dotenv_state *st, const char *p, const char *end,
    int dq)
{
	const char	*q;

	st->tlen = 0;
	while (p < end) {
		if (*p == '\r' && p + 1 < end && p[1] == '\n') {
			p++;
			continue;
		}
		if (dq && *p == '\\' && p + 1 < end && p[1] != '\0' &&
		    strchr("nt\"\\$", p[1]) != NULL) {
			if (p[1] == '$')
				dotenv_put(st, '$', p);
			dotenv_put(st, p[1] == 'n' ? '\n' : p[1] == 't' ?
			    '\t' : p[1], p);
			p += 2;
			continue;
		}
		if (*p != '$') {
			dotenv_put(st, *p, p);
			p++;
			continue;
		}
		if (p + 1 < end && (p[1] == '$' || p[1] == '{')) {
			dotenv_put(st, '$', p);
			dotenv_put(st, p[1], p + 1);
			p += 2;
			continue;
		}
		for (q = p + 1; q < end && name_is_ident_char((unsigned char)*q,
		    q == p + 1); q++)
			/* nothing */;
		dotenv_put(st, '$', p);
		if (q == p + 1) {
			dotenv_put(st, '$', p);
			p++;
			continue;
		}
		dotenv_put(st, '{', p);
		for (p++; p < q; p++)
			dotenv_put(st, *p, p);
		dotenv_put(st, '}', q - 1);
	}
}

/*
 * Expand the template made of the value at value; return the result, or
 * NULL with the cause set at the place expand_text()'s message names (its
 * "at column N" counts bytes of the template), else at the value.
 */
static char *
dotenv_expand(struct dotenv_state *st, const char *value)
{
	static const char	 marker[] = " at column ";
	const char		*at = value, *s, *found = NULL, *digits;
	char			*out, *why = NULL, *msg, *end;
	unsigned long		 col;

	out = expand_text(st->tlen == 0 ? "" : st->tpl, &dotenv_env, st, NULL,
	    0, 0, &why);
	if (out != NULL)
		return out;
	for (s = why; (s = strstr(s, marker)) != NULL; s++)
		found = s;
	if (found != NULL) {
		digits = found + strlen(marker);
		col = strtoul(digits, &end, 10);
		if (*digits >= '0' && *digits <= '9' && col >= 1 &&
		    col <= st->tlen) {
			at = st->text + st->pos[col - 1];
			msg = xprintf("%.*s%s", (int)(found - why), why, end);
			free(why);
			why = msg;
		}
	}
	dotenv_fail(st, at, why);
	free(why);
	return NULL;
}

/* Return the inside of '...' from p to end, a CR before a LF dropped. */
static char *
dotenv_single(const char *p, const char *end)
{
	char	*out, *o;

	out = o = xmalloc((size_t)(end - p) + 1);
	for (; p < end; p++) {
		if (*p != '\r' || p + 1 == end || p[1] != '\n')
			*o++ = *p;
	}
	*o = '\0';
	return out;
}

/*
 * Read the entry whose line starts at p (blanks skipped, neither blank
 * nor comment); return where the next line starts, or NULL with the cause
 * set.
 */
static const char *
dotenv_entry(struct dotenv_state *st, const char *p)
{
	const char	*end = st->end, *name, *open, *v, *q, *eol;
	char		*tok, *why = NULL, *value;
	size_t		 len;
	int		 r;

	name = p;
	p = dotenv_token(p, end);
	len = (size_t)(p - name);
	if (len == 6 && memcmp(name, "export", 6) == 0 && p < end &&
	    dotenv_is_blank(*p)) {
		for (q = p; q < end && dotenv_is_blank(*q); q++)
			/* nothing */;
		/* "export =" and "export" alone set a variable "export". */
		if (q < end && *q != '=' && *q != '\r' && *q != '\n') {
			name = q;
			p = dotenv_token(q, end);
			len = (size_t)(p - name);
		}
	}
	tok = xstrndup(name, len);
	r = name_check_env(tok, &why);
	free(tok);
	if (r != 0) {
		dotenv_fail(st, name, why);
		free(why);
		return NULL;
	}
	while (p < end && dotenv_is_blank(*p))
		p++;
	if (p == end || *p != '=') {
		dotenv_fail(st, p, "expected '=' after the name");
		return NULL;
	}
	for (p++; p < end && dotenv_is_blank(*p); p++)
		/* nothing */;
	v = p;

	if (p < end && (*p == '"' || *p == '\'')) {
		open = p;
		for (p++; p < end && *p != *open; p++) {
			if (*open == '"' && *p == '\\' && p + 1 < end)
				p++;
		}
		if (p == end) {
			dotenv_fail(st, open, *open == '"' ?
			    "unterminated \"...\" value" :
			    "unterminated '...' value");
			return NULL;
		}
		if (*open == '"') {
			dotenv_template(st, open + 1, p, 1);
			value = dotenv_expand(st, v);
		} else
			value = dotenv_single(open + 1, p);
		if (value == NULL)
			return NULL;
		for (p++; p < end && (dotenv_is_blank(*p) ||
		    (*p == '\r' && p + 1 < end && p[1] == '\n')); p++)
			/* nothing */;
		if (p < end && *p != '#' && *p != '\n') {
			free(value);
			dotenv_fail(st, p, "unexpected text after the closing "
			    "quote");
			return NULL;
		}
		eol = memchr(p, '\n', (size_t)(end - p));
	} else {
		eol = memchr(p, '\n', (size_t)(end - p));
		q = eol == NULL ? end : eol;
		for (; p < q; p++) {
			if (*p == '#' && dotenv_is_blank(p[-1]))
				break;
		}
		while (p > v && (dotenv_is_blank(p[-1]) || p[-1] == '\r'))
			p--;
		dotenv_template(st, v, p, 0);
		if ((value = dotenv_expand(st, v)) == NULL)
			return NULL;
	}
	r = dotenv_set(st, name, len, value);
	free(value);
	if (r != 0)
		return NULL;
	return eol == NULL ? end : eol + 1;
}

/*
 * Parse the len bytes at buf (no terminator needed), named name in
 * messages, looking names the file has not set up with lookup (may be
 * NULL); return 0 with *out (NULL-terminated, n entries), or -1 with *out
 * NULL, *n 0 and *cause set.  See the top of the file.
 */
int
dotenv_parse(const char *name, const char *buf, size_t len,
    dotenv_lookup_fn *lookup, void *arg, char ***out, size_t *n,
    char **cause)
{
	struct dotenv_state	 st;
	const char		*p, *nul;

	*out = NULL;
	*n = 0;
	if (len > DOTENV_MAX_SIZE) {
		*cause = xprintf("%s: larger than %d bytes", name,
		    DOTENV_MAX_SIZE);
		return -1;
	}
	memset(&st, 0, sizeof st);
	st.name = name;
	st.text = len == 0 ? "" : buf;
	st.end = st.text + len;
	st.lookup = lookup;
	st.arg = arg;
	st.cause = cause;
	st.kv = xcalloc(1, sizeof *st.kv);
	if (len >= 3 && memcmp(st.text, "\xef\xbb\xbf", 3) == 0)
		st.text += 3;

	if ((nul = memchr(st.text, '\0', (size_t)(st.end - st.text))) !=
	    NULL) {
		dotenv_fail(&st, nul, "NUL byte");
		goto fail;
	}
	for (p = st.text; p != NULL && p < st.end; /* nothing */) {
		while (p < st.end && dotenv_is_blank(*p))
			p++;
		if (p < st.end && *p == '\r' && p + 1 < st.end && p[1] == '\n')
			p++;
		if (p == st.end)
			break;
		if (*p == '\n') {
			p++;
			continue;
		}
		if (*p == '#') {
			p = memchr(p, '\n', (size_t)(st.end - p));
			if (p != NULL)
				p++;
			continue;
		}
		if ((p = dotenv_entry(&st, p)) == NULL)
			goto fail;
	}
	free(st.tpl);
	free(st.pos);
	*out = st.kv;
	*n = st.n;
	return 0;

fail:
	free(st.tpl);
	free(st.pos);
	dotenv_free(st.kv, st.n);
	return -1;
}

/*
 * Read the dotenv file at path, which must be a regular file and not a
 * symbolic link, and parse it as dotenv_parse() does (path names it in
 * messages); 0, or -1 with *cause set ("PATH: message" when it cannot be
 * read).
 */
int
dotenv_load(const char *path, dotenv_lookup_fn *lookup, void *arg,
    char ***out, size_t *n, char **cause)
{
	struct stat	 sb;
	char		*buf = NULL;
	size_t		 len = 0, size;
	ssize_t		 r;
	int		 fd, error, ok;

	*out = NULL;
	*n = 0;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY |
	    O_NONBLOCK);
	if (fd == -1) {
		error = errno;
		if (error == ELOOP && lstat(path, &sb) == 0 &&
		    S_ISLNK(sb.st_mode))
			*cause = xprintf("%s: a symbolic link (not followed)",
			    path);
		else
			*cause = xprintf("%s: %s", path, strerror(error));
		return -1;
	}
	if (fstat(fd, &sb) != 0) {
		*cause = xprintf("%s: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(sb.st_mode)) {
		*cause = xprintf("%s: not a regular file", path);
		goto fail;
	}
	if (sb.st_size > DOTENV_MAX_SIZE) {
		*cause = xprintf("%s: larger than %d bytes", path,
		    DOTENV_MAX_SIZE);
		goto fail;
	}

	/* One byte more than the limit, to see a file that grew past it. */
	size = (size_t)sb.st_size + 1;
	buf = xmalloc(size);
	for (;;) {
		if (len == size) {
			if (size > DOTENV_MAX_SIZE)
				break;
			size = size * 2 > DOTENV_MAX_SIZE + 1 ?
			    DOTENV_MAX_SIZE + 1 : size * 2;
			buf = xreallocarray(buf, size, 1);
		}
		r = read(fd, buf + len, size - len);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			*cause = xprintf("%s: %s", path, strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	ok = dotenv_parse(path, buf, len, lookup, arg, out, n, cause);
	free(buf);
	return ok;

fail:
	free(buf);
	close(fd);
	return -1;
}

/* Free what dotenv_parse() returned (NULL is ignored). */
void
dotenv_free(char **v, size_t n)
{
	size_t	i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
