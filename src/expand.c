/*
 * expand.c: ${VAR}, ${VAR:-default} and {name} templating for job settings.
 *
 * One left-to-right pass over the text; what is substituted is copied to
 * the result and never scanned again, so neither an environment value nor
 * a parameter value can bring in more expansions.  The rules:
 *
 *   - ${NAME} is NAME's value from the caller's lookup, "" when unset.
 *     NAME is [A-Za-z_][A-Za-z0-9_]*.
 *   - ${NAME:-default} is the expanded default when NAME is unset or empty
 *     (as in the shell).  The default is template text: it may hold ${...}
 *     and {name} of its own, nested up to EXPAND_MAX_DEPTH deep.  Unlike
 *     the shell, every '{' in a default counts towards finding its '}', so
 *     braces in a default must balance: ${OUT:-{dir}/out} works.  A default
 *     is checked even when it is not used, so whether a template is valid
 *     never depends on the environment.
 *   - $$ is one literal '$', and $${ is a literal "${" (the '{' starts no
 *     {name}): the way to pass the shell ${X%.*} or any other ${...} form.
 *     So a shell's own $$ (its pid) must be written $$$$.
 *   - Any other '$' stays as it is: $HOME, $1, a '$' at the end.  In a
 *     command run by sh -c the shell expands those itself.
 *   - {name} is the value of the parameter called name; a {name} with no
 *     such parameter, and any other '{' or '}', stays exactly as it is, so
 *     awk programs and JSON pass through.  {{ and }} are not escapes (a
 *     Python-style {{ would break JSON's "}}"): {{x}} is '{', then {x},
 *     then '}'.  With EXPAND_STRICT a {name} with no such parameter is
 *     an error instead ("no value for {x} at column N"), where values go.
 *   - Errors: "unterminated ${ at column N", "invalid variable name 'X' at
 *     column N" (${}, ${1x}, ${a b}), "unsupported '${X:+y}' at column N:
 *     only ${NAME} and ${NAME:-default}", "${...} nested too deeply at
 *     column N" and "result longer than N bytes".  Columns count bytes from
 *     1 and point at the '$'.
 *
 * With EXPAND_SHELL the text is a command for sh -c, and each parameter
 * value must reach the command as exactly its text, whatever it holds.  So
 * expand follows the shell's quoting as it writes the result (including
 * what environment values bring in, which go in verbatim: they are the
 * user's own settings) and quotes each value for where it lands, as one
 * single-quoted word (each ' in it written '\''):
 *
 *	unquoted, or in $(...)	{x}	 ->  'value'
 *	inside '...'		'a {x}'	 ->  'a ''value'''	(close, reopen)
 *	inside "..."		"a {x}"	 ->  "a "'value'""
 *
 * A {name} just after a backslash is left as it is (the shell prints
 * {name}, or \{name} inside "..."): the way to write a literal {name} in a
 * shell command.
 *
 * Where no quoting keeps a value from being read as code, expansion fails
 * with "cannot quote {name} at column N <where>": in backquotes, in a
 * shell ${...}, in arithmetic ($((...)), and bash's ((...)) and $[...],
 * expand $(...) inside quotes), in a bash subscript (a[...]), in a comment
 * (a newline would end it), after a here-document's <<, just after a '$',
 * after bash's $'...' (dash reads it differently), or in quoting nested
 * more than 32 deep.  The tracking knows POSIX sh quoting -- '...', "...",
 * backslashes and \-newline, `...`, $(...) with nested parentheses, ${...}
 * and comments -- plus those bash forms.  Where it is unsure it refuses
 * rather than guess, so false errors are possible (x[{name}] as a glob,
 * any {name} after "case" inside $(...), whose patterns end in ')').
 * What a command does with the word it is given (eval, let, [[ -eq ]]) is
 * the command's business.
 */
#include <sys/types.h>

#include <stdlib.h>
#include <string.h>

#include "expand.h"
#include "name.h"
#include "textesc.h"
#include "xmalloc.h"

/* How deep shell quoting may nest before parameters are refused. */
#define EXPAND_SHELL_NEST	32

/* Where the shell is while it reads the result. */
enum expand_sh {
	EXPAND_SH_NONE,		/* unquoted */
	EXPAND_SH_SQ,		/* '...' */
	EXPAND_SH_DQ,		/* "..." */
	EXPAND_SH_BQ,		/* `...` */
	EXPAND_SH_CMD,		/* $(...) */
	EXPAND_SH_ARITH,	/* $((...)) or bash's ((...)) */
	EXPAND_SH_BRACE,	/* ${...} */
	EXPAND_SH_SUB,		/* name[...]: bash evaluates subscripts */
	EXPAND_SH_OLDARITH	/* bash's $[...] */
};

/* One level of shell quoting, with the open parentheses or brackets. */
struct expand_level {
	enum expand_sh	type;
	size_t		parens;
};

/* What the last character the shell read was, for two-character tokens. */
struct expand_after {
	int	dollar;		/* $ */
	int	opened;		/* the ( of a $( */
	int	paren;		/* an unquoted ( */
	int	less;		/* an unquoted < */
	int	name;		/* an unquoted name character */
	int	blank;		/* the start, a blank or an operator */
};

/* One expansion: inputs, the growing result and the shell tracker. */
struct expand_state {
	const char			*text;
	const struct expand_env		*env;
	void				*arg;
	const struct expand_param	*params;
	size_t				 nparams;
	int				 flags;
	char				**cause;

	char				*out;
	size_t				 len;
	size_t				 size;

	struct expand_level		 stack[EXPAND_SHELL_NEST];
	size_t				 depth;		/* 0 is unquoted */
	struct expand_after		 after;
	struct expand_after		 saved;		/* before a \ */
	const char			*lost;		/* why untracked */
	int				 escaped;	/* after a \ */
	int				 comment;
	int				 heredoc;	/* a << was seen */
	char				 word[4];	/* the word so far */
	size_t				 wlen;		/* > 4: not "case" */
};

static size_t	 expand_column(const struct expand_state *, const char *);
static int	 expand_add(struct expand_state *, const char *, size_t);
static void	 expand_push(struct expand_state *, enum expand_sh);
static int	 expand_is_plain(enum expand_sh);
static void	 expand_close(struct expand_state *);
static int	 expand_track_quoted(struct expand_state *, char);
static int	 expand_track_dollar(struct expand_state *, char);
static void	 expand_track_paren(struct expand_state *, char,
		     const struct expand_after *);
static void	 expand_track_bracket(struct expand_state *, char,
		     const struct expand_after *);
static void	 expand_track_code(struct expand_state *, char,
		     const struct expand_after *);
static void	 expand_track_word(struct expand_state *, char, enum expand_sh,
		     const struct expand_after *);
static int	 expand_track_escape(struct expand_state *, char,
		     const struct expand_after *);
static void	 expand_track(struct expand_state *, char);
static int	 expand_emit(struct expand_state *, const char *, size_t);
static const char *expand_match(const char *, const char *);
static int	 expand_is_typable(const char *);
static const struct expand_param *expand_find(const struct expand_state *,
		     const char *, size_t);
static int	 expand_unknown(struct expand_state *, const char *,
		     const char *, size_t);
static int	 expand_insert(struct expand_state *, const char *,
		     const char *, size_t, const char *);
static int	 expand_var(struct expand_state *, const char **,
		     const char *, u_int, int);
static int	 expand_run(struct expand_state *, const char *,
		     const char *, u_int, int);

/* Return the 1-based byte column of p in the whole text. */
static size_t
expand_column(const struct expand_state *st, const char *p)
{
	return (size_t)(p - st->text) + 1;
}

/* Append s[0..n) to the result, failing if it would grow too long. */
static int
expand_add(struct expand_state *st, const char *s, size_t n)
{
	if (n > EXPAND_MAX_OUTPUT - st->len) {
		*st->cause = xprintf("result longer than %d bytes",
		    EXPAND_MAX_OUTPUT);
		return -1;
	}
	if (st->len + n + 1 > st->size) {
		while (st->len + n + 1 > st->size)
			st->size = st->size == 0 ? 256 : st->size * 2;
		st->out = xreallocarray(st->out, st->size, 1);
	}
	memcpy(st->out + st->len, s, n);
	st->len += n;
	st->out[st->len] = '\0';
	return 0;
}

/* Enter a level of shell quoting, or give up tracking if too deep. */
static void
expand_push(struct expand_state *st, enum expand_sh type)
{
	if (st->depth + 1 >= EXPAND_SHELL_NEST) {
		st->lost = "in quoting nested too deeply";
		return;
	}
	st->depth++;
	st->stack[st->depth].type = type;
	st->stack[st->depth].parens = 0;
}

/* Return 1 if the shell is unquoted at this level (words and operators). */
static int
expand_is_plain(enum expand_sh type)
{
	return type == EXPAND_SH_NONE || type == EXPAND_SH_CMD;
}

/* Close a bracket or parenthesis of the top level, or the level itself. */
static void
expand_close(struct expand_state *st)
{
	struct expand_level	*l = &st->stack[st->depth];

	if (l->parens == 0)
		st->depth--;
	else
		l->parens--;
}

/*
 * Track a character inside quotes that hold no code ('...', `...`,
 * "..."): only the closing quote, and in "..." a ` or a $, count.
 * Return 1 if c was such a character.
 */
static int
expand_track_quoted(struct expand_state *st, char c)
{
	switch (st->stack[st->depth].type) {
	case EXPAND_SH_SQ:
		if (c == '\'')
			st->depth--;
		return 1;
	case EXPAND_SH_BQ:
		if (c == '`')
			st->depth--;
		return 1;
	case EXPAND_SH_DQ:
		if (c == '"')
			st->depth--;
		else if (c == '`')
			expand_push(st, EXPAND_SH_BQ);
		else if (c == '$')
			st->after.dollar = 1;
		return 1;
	default:
		return 0;
	}
}

/*
 * Track the character after a '$' ($(, ${, $[ or $'); return 1 if it
 * made one of those, 0 if it is read as any other character.
 */
static int
expand_track_dollar(struct expand_state *st, char c)
{
	enum expand_sh	type = st->stack[st->depth].type;

	if (type == EXPAND_SH_SQ || type == EXPAND_SH_BQ)
		return 0;
	if (c == '(') {
		expand_push(st, EXPAND_SH_CMD);
		st->after.opened = st->after.blank = 1;
		return 1;
	}
	if (c == '{') {
		expand_push(st, EXPAND_SH_BRACE);
		return 1;
	}
	if (c == '[') {
		expand_push(st, EXPAND_SH_OLDARITH);
		return 1;
	}
	/* bash's $'...' has escapes and dash's has none: give up. */
	if (c == '\'' && type != EXPAND_SH_DQ) {
		st->lost = "after $'...'";
		return 1;
	}
	return 0;
}

/* Track a '(' or ')' in code: subshells, $(...) and arithmetic. */
static void
expand_track_paren(struct expand_state *st, char c,
    const struct expand_after *prev)
{
	struct expand_level	*l = &st->stack[st->depth];
	enum expand_sh		 type = l->type;

	if (c == ')') {
		if (type == EXPAND_SH_CMD || type == EXPAND_SH_ARITH)
			expand_close(st);
	} else if (type == EXPAND_SH_CMD && prev->opened) {
		/* $(( is arithmetic. */
		l->type = EXPAND_SH_ARITH;
		l->parens = 1;
	} else if (expand_is_plain(type) && prev->paren) {
		/* So is bash's ((, whose first ( was counted as a subshell. */
		if (type == EXPAND_SH_CMD)
			l->parens--;
		expand_push(st, EXPAND_SH_ARITH);
		st->stack[st->depth].parens = 1;
	} else if (type == EXPAND_SH_CMD || type == EXPAND_SH_ARITH) {
		l->parens++;
		st->after.paren = 1;
	} else
		st->after.paren = expand_is_plain(type);
}

/* Track a '[' or ']' in code: bash's subscripts and $[...]. */
static void
expand_track_bracket(struct expand_state *st, char c,
    const struct expand_after *prev)
{
	struct expand_level	*l = &st->stack[st->depth];
	enum expand_sh		 type = l->type;

	if (c == '[' && prev->name && expand_is_plain(type))
		expand_push(st, EXPAND_SH_SUB);
	else if (type != EXPAND_SH_SUB && type != EXPAND_SH_OLDARITH)
		return;
	else if (c == '[')
		l->parens++;
	else
		expand_close(st);
}

/*
 * Track a character of code (unquoted, $(...), ${...}, arithmetic or a
 * subscript): quotes, $, comments, brackets and a here-document's <<.
 */
static void
expand_track_code(struct expand_state *st, char c,
    const struct expand_after *prev)
{
	enum expand_sh	type = st->stack[st->depth].type;

	switch (c) {
	case '(':
	case ')':
		expand_track_paren(st, c, prev);
		break;
	case '[':
	case ']':
		expand_track_bracket(st, c, prev);
		break;
	case '\'':
		expand_push(st, EXPAND_SH_SQ);
		break;
	case '"':
		expand_push(st, EXPAND_SH_DQ);
		break;
	case '`':
		expand_push(st, EXPAND_SH_BQ);
		break;
	case '$':
		st->after.dollar = 1;
		break;
	case '#':
		if (prev->blank && expand_is_plain(type))
			st->comment = 1;
		break;
	case '}':
		if (type == EXPAND_SH_BRACE)
			st->depth--;
		break;
	case '<':
		if (expand_is_plain(type)) {
			if (prev->less)
				st->heredoc = 1;
			st->after.less = 1;
		}
		break;
	}
}

/*
 * Note where c leaves the current word when the shell reads words (at
 * type, the level c was read at): a blank or a name character, and
 * whether the word was "case".  A case pattern's ')' would end a $(...)
 * too early, so tracking gives up after a "case" word there (also where
 * it is no keyword, to be safe).
 */
static void
expand_track_word(struct expand_state *st, char c, enum expand_sh type,
    const struct expand_after *prev)
{
	if (!expand_is_plain(st->stack[st->depth].type))
		return;
	st->after.blank = c != '\0' && strchr(" \t\n;&|()", c) != NULL;
	st->after.name = name_is_ident_char((unsigned char)c, 0);
	if (st->after.name) {
		if (prev->blank)
			st->wlen = 0;
		else if (!prev->name)
			st->wlen = sizeof st->word + 1;
		if (st->wlen < sizeof st->word)
			st->word[st->wlen] = c;
		if (st->wlen <= sizeof st->word)
			st->wlen++;
		return;
	}
	if (type == EXPAND_SH_CMD && (c == ' ' || c == '\t' || c == '\n') &&
	    st->wlen == sizeof st->word &&
	    memcmp(st->word, "case", sizeof st->word) == 0)
		st->lost = "after a case inside $(...)";
	st->wlen = sizeof st->word + 1;
}

/*
 * Track a character a comment or a backslash takes: a comment to its
 * newline, the character after a \ (a \ and newline vanish: the shell
 * reads on as before them), or a \ itself.  Return 1 if c was one.
 */
static int
expand_track_escape(struct expand_state *st, char c,
    const struct expand_after *prev)
{
	if (st->comment) {
		if (c == '\n') {
			st->comment = 0;
			st->after.blank = 1;
		}
		return 1;
	}
	if (st->escaped) {
		st->escaped = 0;
		if (c == '\n')
			st->after = st->saved;
		return 1;
	}
	if (c == '\\' && st->stack[st->depth].type != EXPAND_SH_SQ) {
		st->escaped = 1;
		st->saved = *prev;
		return 1;
	}
	return 0;
}

/* Move the shell tracker over one character the shell will read. */
static void
expand_track(struct expand_state *st, char c)
{
	struct expand_after	 prev = st->after;
	enum expand_sh		 type;

	memset(&st->after, 0, sizeof st->after);
	if (st->lost != NULL || expand_track_escape(st, c, &prev))
		return;
	if (prev.dollar && expand_track_dollar(st, c))
		return;
	if (expand_track_quoted(st, c))
		return;
	type = st->stack[st->depth].type;
	expand_track_code(st, c, &prev);
	expand_track_word(st, c, type, &prev);
}

/* Append text the shell will parse, following its quoting if needed. */
static int
expand_emit(struct expand_state *st, const char *s, size_t n)
{
	size_t	i;

	if (expand_add(st, s, n) != 0)
		return -1;
	if (st->flags & EXPAND_SHELL) {
		for (i = 0; i < n; i++)
			expand_track(st, s[i]);
	}
	return 0;
}

/*
 * Return the '}' that closes the ${ whose body starts at p, counting every
 * '{' and '}' in between, or NULL if there is none before end.
 */
static const char *
expand_match(const char *p, const char *end)
{
	size_t	open = 1;

	for (; p < end; p++) {
		if (*p == '$' && p + 1 < end && p[1] == '$')
			p++;
		else if (*p == '{')
			open++;
		else if (*p == '}' && --open == 0)
			return p;
	}
	return NULL;
}

/*
 * Return 1 if value can be typed into a terminal as it is: printable ASCII
 * and newlines.  Anything else a terminal's line discipline or a line
 * editor may act on (^C, ^U, ^W, ESC, DEL, or a byte that readline's
 * convert-meta turns into ESC and a letter).
 */
static int
expand_is_typable(const char *value)
{
	const unsigned char	*p;

	for (p = (const unsigned char *)value; *p != '\0'; p++) {
		if ((*p < 0x20 || *p > 0x7e) && *p != '\n')
			return 0;
	}
	return 1;
}

/* Return the first parameter called name (len bytes), or NULL. */
static const struct expand_param *
expand_find(const struct expand_state *st, const char *name, size_t len)
{
	size_t	i;

	for (i = 0; i < st->nparams; i++) {
		if (st->params[i].key != NULL &&
		    strlen(st->params[i].key) == len &&
		    memcmp(st->params[i].key, name, len) == 0)
			return &st->params[i];
	}
	return NULL;
}

/*
 * A {name} at brace (len bytes of name) that has no parameter, with
 * EXPAND_STRICT: an error, unless a shell's backslash makes it literal.
 */
static int
expand_unknown(struct expand_state *st, const char *brace, const char *name,
    size_t len)
{
	if ((st->flags & EXPAND_SHELL) && st->escaped)
		return expand_emit(st, brace, len + 2);
	*st->cause = xprintf("no value for {%.*s} at column %zu", (int)len,
	    name, expand_column(st, brace));
	return -1;
}

/*
 * Insert a parameter's value for the {name} at brace (len bytes of name):
 * as it is, or quoted for where the shell is; see the top of the file.
 */
static int
expand_insert(struct expand_state *st, const char *brace, const char *name,
    size_t len, const char *value)
{
	const struct expand_level	*l = &st->stack[st->depth];
	const char			*where = NULL;
	char				*q;
	size_t				 i;
	int				 r;

	if (value == NULL)
		value = "";
	if (st->flags & EXPAND_NO_PARAMS) {
		*st->cause = xprintf("cannot use {%.*s} at column %zu here",
		    (int)len, name, expand_column(st, brace));
		return -1;
	}
	if (~st->flags & EXPAND_SHELL)
		return expand_add(st, value, strlen(value));

	if (st->lost != NULL)
		where = st->lost;
	else if (st->comment)
		where = "in a comment";
	else if (st->escaped)
		return expand_emit(st, brace, len + 2);
	else if (st->heredoc)
		where = "after a here-document";
	else if (st->after.dollar)
		where = "just after a $";
	for (i = 1; where == NULL && i <= st->depth; i++) {
		if (st->stack[i].type == EXPAND_SH_BQ)
			where = "inside backquotes";
		else if (st->stack[i].type == EXPAND_SH_BRACE)
			where = "inside a shell ${...}";
		else if (st->stack[i].type == EXPAND_SH_ARITH ||
		    st->stack[i].type == EXPAND_SH_OLDARITH)
			where = "inside arithmetic";
		else if (st->stack[i].type == EXPAND_SH_SUB)
			where = "inside a [...] subscript";
	}
	if (where == NULL && (st->flags & EXPAND_TERMINAL) &&
	    !expand_is_typable(value))
		where = "for a terminal: the value has a control character or "
		    "a byte above 0x7e";
	if (where != NULL) {
		*st->cause = xprintf("cannot quote {%.*s} at column %zu %s",
		    (int)len, name, expand_column(st, brace), where);
		return -1;
	}

	q = expand_shell_quote(value);
	if (l->type == EXPAND_SH_SQ)
		r = expand_add(st, "'", 1) || expand_add(st, q, strlen(q)) ||
		    expand_add(st, "'", 1);
	else if (l->type == EXPAND_SH_DQ)
		r = expand_add(st, "\"", 1) || expand_add(st, q, strlen(q)) ||
		    expand_add(st, "\"", 1);
	else
		r = expand_add(st, q, strlen(q));
	free(q);
	memset(&st->after, 0, sizeof st->after);
	return r ? -1 : 0;
}

/*
 * Expand the ${...} at *pp (before end) at nesting depth, writing only if
 * emit is set, and move *pp past it; return 0 or -1 with the cause set.
 */
static int
expand_var(struct expand_state *st, const char **pp, const char *end,
    u_int depth, int emit)
{
	const char	*dollar = *pp, *body = *pp + 2, *close, *q, *bad;
	const char	*dflt = NULL, *v = NULL;
	char		*name, *e;
	size_t		 len;
	int		 use;

	if ((close = expand_match(body, end)) == NULL) {
		*st->cause = xprintf("unterminated ${ at column %zu",
		    expand_column(st, dollar));
		return -1;
	}
	for (q = body; q < close && name_is_ident_char((unsigned char)*q, 0);
	    q++)
		/* nothing */;
	len = (size_t)(q - body);
	if (!name_is_ident(body, len) || (q != close && *q != ':')) {
		for (bad = q; bad < close && *bad != ':'; bad++)
			/* nothing */;
		e = textesc_excerpt(body, (size_t)(bad - body), 32);
		*st->cause = xprintf("invalid variable name '%s' at column %zu",
		    e, expand_column(st, dollar));
		free(e);
		return -1;
	}
	if (q != close) {
		if (q + 1 == close || q[1] != '-') {
			e = textesc_excerpt(dollar, (size_t)(close + 1 - dollar),
			    32);
			*st->cause = xprintf("unsupported '%s' at column %zu: "
			    "only ${NAME} and ${NAME:-default}", e,
			    expand_column(st, dollar));
			free(e);
			return -1;
		}
		dflt = q + 2;
		if (depth + 1 > EXPAND_MAX_DEPTH) {
			*st->cause = xprintf("${...} nested too deeply at "
			    "column %zu", expand_column(st, dollar));
			return -1;
		}
	}
	*pp = close + 1;

	use = 0;
	if (emit) {
		if (st->env != NULL && st->env->get != NULL) {
			name = xstrndup(body, len);
			v = st->env->get(name, st->arg);
			free(name);
		}
		if (dflt != NULL && (v == NULL || *v == '\0'))
			use = 1;
		else if (v != NULL && expand_emit(st, v, strlen(v)) != 0)
			return -1;
	}
	if (dflt != NULL)
		return expand_run(st, dflt, close, depth + 1, use);
	return 0;
}

/*
 * Expand text from p to end at nesting depth into the result, or only
 * check it when emit is clear; return 0 or -1 with the cause set.
 */
static int
expand_run(struct expand_state *st, const char *p, const char *end,
    u_int depth, int emit)
{
	const struct expand_param	*param;
	const char			*lit = p, *q;

#define EXPAND_FLUSH() do {						\
	if (emit && p > lit && expand_emit(st, lit, (size_t)(p - lit)) != 0) \
		return -1;						\
} while (0)

	while (p < end) {
		if (*p == '$' && p + 1 < end && p[1] == '$') {
			EXPAND_FLUSH();
			q = p + 2;
			if (q < end && *q == '{')
				q++;
			if (emit && (expand_emit(st, "$", 1) != 0 ||
			    (q - p == 3 && expand_emit(st, "{", 1) != 0)))
				return -1;
			p = lit = q;
		} else if (*p == '$' && p + 1 < end && p[1] == '{') {
			EXPAND_FLUSH();
			if (expand_var(st, &p, end, depth, emit) != 0)
				return -1;
			lit = p;
		} else if (*p == '{' && emit) {
			for (q = p + 1; q < end &&
			    name_is_ident_char((unsigned char)*q, 0); q++)
				/* nothing */;
			if (q == end || *q != '}' ||
			    !name_is_ident(p + 1, (size_t)(q - p - 1)) ||
			    ((param = expand_find(st, p + 1,
			    (size_t)(q - p - 1))) == NULL &&
			    (st->flags & (EXPAND_STRICT | EXPAND_NO_PARAMS)) !=
			    EXPAND_STRICT)) {
				p++;
				continue;
			}
			EXPAND_FLUSH();
			if (param == NULL ? expand_unknown(st, p, p + 1,
			    (size_t)(q - p - 1)) != 0 : expand_insert(st, p,
			    p + 1, (size_t)(q - p - 1), param->value) != 0)
				return -1;
			p = lit = q + 1;
		} else
			p++;
	}
	EXPAND_FLUSH();
	return 0;

#undef EXPAND_FLUSH
}

/*
 * Expand text (NULL counts as "") with env (may be NULL) and params; return
 * the result, or NULL with *cause set.  See the top of the file.
 */
char *
expand_text(const char *text, const struct expand_env *env, void *arg,
    const struct expand_param *params, size_t nparams, int flags,
    char **cause)
{
	struct expand_state	 st;

	if (text == NULL)
		text = "";
	memset(&st, 0, sizeof st);
	st.text = text;
	st.env = env;
	st.arg = arg;
	st.params = params;
	st.nparams = params == NULL ? 0 : nparams;
	st.flags = flags;
	st.cause = cause;
	st.stack[0].type = EXPAND_SH_NONE;
	st.after.blank = 1;
	st.wlen = sizeof st.word + 1;

	if (expand_run(&st, text, text + strlen(text), 0, 1) != 0 ||
	    expand_add(&st, "", 0) != 0) {
		free(st.out);
		return NULL;
	}
	return st.out;
}

/* Return value as one single-quoted shell word, each ' written '\''. */
char *
expand_shell_quote(const char *value)
{
	const char	*p;
	char		*q, *r;
	size_t		 n = 3;

	for (p = value; *p != '\0'; p++)
		n += *p == '\'' ? 4 : 1;
	q = r = xmalloc(n);
	*q++ = '\'';
	for (p = value; *p != '\0'; p++) {
		if (*p == '\'') {
			memcpy(q, "'\\''", 4);
			q += 4;
		} else
			*q++ = *p;
	}
	*q++ = '\'';
	*q = '\0';
	return r;
}

/* Return whether word means itself to a shell as it stands, unquoted. */
static int
expand_shell_plain(const char *word)
{
	const char	*p;

	if (*word == '\0' ||
	    strpbrk(word, " \t\n'\"\\$`*?[]{}()<>|&;#~!=") != NULL)
		return 0;
	for (p = word; *p != '\0'; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return 0;
	}
	return 1;
}

/*
 * Join words into one shell command line that a POSIX shell splits back
 * into the same words: a word with nothing special stays as it is, any
 * other is single-quoted.
 */
char *
expand_shell_join(char *const *words)
{
	char	*out, **q;
	size_t	 i, n, len = 0, size = 1;

	for (n = 0; words != NULL && words[n] != NULL; n++)
		;
	q = xcalloc(n + 1, sizeof *q);
	for (i = 0; i < n; i++) {
		q[i] = expand_shell_plain(words[i]) ? xstrdup(words[i]) :
		    expand_shell_quote(words[i]);
		size += strlen(q[i]) + 1;
	}
	/* Measured first: one copy, whatever the number of words. */
	out = xmalloc(size);
	out[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i > 0)
			out[len++] = ' ';
		len = (size_t)(stpcpy(out + len, q[i]) - out);
		free(q[i]);
	}
	free(q);
	return out;
}
