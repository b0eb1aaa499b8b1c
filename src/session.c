/*
 * session.c: the command line's shell state -- working directory,
 * environment, and a shell-like word splitter for builtin arguments.
 *
 * The environment is one array of "NAME=VALUE" strings: a copy of jobdeck's
 * own (first occurrence of a name wins) with export and unset applied in
 * place, new names at the end.  PWD is always present and always names the
 * session cwd: `export PWD=x` and `unset PWD` are accepted and change
 * nothing, because jobs must start where session_cwd() says.
 *
 * cd follows a shell's default (-L, logical) mode, as bash does:
 *   - no operand or "" goes to $HOME ("cd: HOME not set"), "-" to $OLDPWD
 *     ("cd: OLDPWD not set");
 *   - a relative operand is taken from the session cwd (jobdeck never
 *     calls chdir()); one not starting with "." or ".." is first looked up
 *     in $CDPATH when that is set;
 *   - the path is normalised lexically: "//" and "." go, ".." removes the
 *     previous component, so `cd ..` out of a symlinked directory goes back
 *     where the user came from.  Each component before a ".." must be a
 *     directory; if the lexical path does not exist, the physical one
 *     (realpath) is tried, as bash does;
 *   - the result must be a directory the user may search (stat + access);
 *   - errors are "cd: OPERAND: strerror", OPERAND as given (or the value of
 *     HOME/OLDPWD);
 *   - on success OLDPWD is the previous cwd and PWD the new one.
 * The cwd is stored absolute, without ".", ".." or repeated slashes, and
 * without a trailing slash except for "/".
 *
 * export takes NAME=VALUE, NAME+=VALUE (append) or NAME (keeps the value,
 * or sets it empty); names must be identifiers, and an error quotes the
 * whole argument like bash: "export: `1x=2': not a valid identifier".
 *
 * session_split() follows the POSIX shell for: blanks (space, tab,
 * newline) between words; '...' literal; "..." where \" \\ \$ \` and
 * backslash-newline are escapes and other backslashes stay; a backslash
 * outside quotes quotes the next character (a trailing one is kept);
 * $NAME and ${NAME} from the session environment, unset being empty;
 * tilde prefixes ~ ~/... ~user at the start of a word, and after the '='
 * and each ':' of an assignment word (export PATH=~/bin:~/sbin), unquoted
 * and with HOME from the session environment.  Deviations: no field
 * splitting or globbing of expansions (as zsh), a word made only of
 * unquoted expansions that are empty is dropped (as every shell), a '$'
 * not followed by a name or '{' is literal ($1, $?, $$ are not special),
 * ${...} takes only a name (anything else is "bad substitution"), and
 * there is no command substitution, no arithmetic and no comments.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "name.h"
#include "session.h"
#include "xmalloc.h"

struct session {
	char	**env;		/* "NAME=VALUE", NULL-terminated */
	size_t	  nenv;
	size_t	  envsize;	/* allocated slots, with the NULL */
	char	 *cwd;
};

/* Where session_split() is in its line: the words so far, and this one. */
struct split_state {
	const struct session	 *s;
	const char		 *p;
	char			**cause;
	char			**v;		/* the words so far */
	size_t			  n;
	struct xbuf		  b;		/* the word being read */
	int			  in_word;
	int			  quoted;	/* it has a quoted part */
	int			  plain;	/* only unquoted text so far */
	int			  assign;	/* NAME=... or NAME+=... */
	int			  tilde_ok;	/* a ~ here is a tilde prefix */
};

static ssize_t	 session_find(const struct session *, const char *, size_t);
static const char *session_get(const struct session *, const char *, size_t);
static void	 session_set(struct session *, const char *, size_t,
		     const char *);
static void	 session_del(struct session *, const char *, size_t);
static int	 session_normalise(const char *, char **);
static int	 session_check_dir(const char *);
static int	 session_enter(const char *, const char *, char **);
static char	*session_initial_cwd(const struct session *);
static void	 buf_addc(struct xbuf *, char);
static int	 split_is_blank(char);
static int	 split_dollar(const struct session *, const char **,
		     struct xbuf *, char **);
static void	 split_tilde(const struct session *, const char **,
		     struct xbuf *, int);
static int	 split_is_assign(const struct xbuf *);
static void	 split_end_word(struct split_state *);
static int	 split_unterminated(char **);
static int	 split_squote(struct split_state *);
static int	 split_dquote(struct split_state *);
static void	 split_backslash(struct split_state *);
static void	 split_plain(struct split_state *);
static int	 split_piece(struct split_state *);

/* Return the index of name (len bytes) in the environment, or -1. */
static ssize_t
session_find(const struct session *s, const char *name, size_t len)
{
	size_t	i;

	for (i = 0; i < s->nenv; i++) {
		if (strncmp(s->env[i], name, len) == 0 && s->env[i][len] == '=')
			return (ssize_t)i;
	}
	return -1;
}

/* Return the value of name (len bytes), or NULL when unset. */
static const char *
session_get(const struct session *s, const char *name, size_t len)
{
	ssize_t	i;

	if ((i = session_find(s, name, len)) == -1)
		return NULL;
	return s->env[i] + len + 1;
}

/* Set name (len bytes) to value, in place if it exists, else at the end. */
static void
session_set(struct session *s, const char *name, size_t len,
    const char *value)
{
	ssize_t	 i;
	char	*entry;

	entry = xprintf("%.*s=%s", (int)len, name, value);
	if ((i = session_find(s, name, len)) != -1) {
		free(s->env[i]);
		s->env[i] = entry;
		return;
	}
	if (s->nenv + 1 >= s->envsize) {
		s->envsize = s->envsize * 2 + 16;
		s->env = xreallocarray(s->env, s->envsize, sizeof *s->env);
	}
	s->env[s->nenv++] = entry;
	s->env[s->nenv] = NULL;
}

/* Remove name (len bytes) from the environment, keeping the order. */
static void
session_del(struct session *s, const char *name, size_t len)
{
	ssize_t	i;

	if ((i = session_find(s, name, len)) == -1)
		return;
	free(s->env[i]);
	memmove(&s->env[i], &s->env[i + 1], (s->nenv - (size_t)i) *
	    sizeof *s->env);
	s->nenv--;
}

/*
 * Normalise the absolute path abs lexically into *out, checking that what
 * precedes each ".." is a directory, and return 0 or an errno value.
 */
static int
session_normalise(const char *abs, char **out)
{
	struct stat	 sb;
	const char	*p = abs, *end;
	char		*res, *slash;
	size_t		 len = 0, n;
	int		 error;

	res = xmalloc(strlen(abs) + 2);
	res[0] = '\0';
	while (*p != '\0') {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		end = strchrnul(p, '/');
		n = (size_t)(end - p);
		if (n == 1 && p[0] == '.') {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (stat(len == 0 ? "/" : res, &sb) != 0) {
				error = errno;
				free(res);
				return error;
			}
			if (!S_ISDIR(sb.st_mode)) {
				free(res);
				return ENOTDIR;
			}
			if ((slash = strrchr(res, '/')) != NULL) {
				*slash = '\0';
				len = (size_t)(slash - res);
			}
		} else {
			res[len++] = '/';
			memcpy(res + len, p, n);
			len += n;
			res[len] = '\0';
		}
		p = end;
	}
	if (len == 0)
		strcpy(res, "/");
	*out = res;
	return 0;
}

/* Return 0 if path is a directory we may enter, else an errno value. */
static int
session_check_dir(const char *path)
{
	struct stat	sb;

	if (stat(path, &sb) != 0)
		return errno;
	if (!S_ISDIR(sb.st_mode))
		return ENOTDIR;
	if (access(path, X_OK) != 0)
		return errno;
	return 0;
}

/*
 * Resolve operand (relative to base) to a directory we may enter, trying
 * the lexical path and then the physical one; return 0 or an errno value.
 */
static int
session_enter(const char *base, const char *operand, char **out)
{
	char	*abs, *norm, *real;
	int	 error;

	if (operand[0] == '/')
		abs = xstrdup(operand);
	else
		abs = xprintf("%s/%s", base, operand);

	if ((error = session_normalise(abs, &norm)) == 0) {
		if ((error = session_check_dir(norm)) == 0) {
			free(abs);
			*out = norm;
			return 0;
		}
		free(norm);
	}
	if (error == ENOENT || error == ENOTDIR) {
		if ((real = realpath(abs, NULL)) != NULL) {
			if (session_check_dir(real) == 0) {
				free(abs);
				*out = real;
				return 0;
			}
			free(real);
		}
	}
	free(abs);
	return error;
}

/* Return the starting cwd: $PWD if it is clean and names ".", else getcwd. */
static char *
session_initial_cwd(const struct session *s)
{
	struct stat	 a, b;
	const char	*pwd;
	char		*phys, *norm;

	phys = getcwd(NULL, 0);
	pwd = session_get(s, "PWD", 3);
	if (pwd != NULL && pwd[0] == '/' &&
	    session_normalise(pwd, &norm) == 0) {
		if (strcmp(norm, pwd) == 0 && stat(pwd, &a) == 0 &&
		    stat(".", &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino) {
			free(phys);
			return norm;
		}
		if (phys == NULL)
			return norm;
		free(norm);
	}
	if (phys == NULL)
		return xstrdup("/");
	return phys;
}

/* Make a session from an environment (may be NULL): copy it, find the cwd. */
struct session *
session_new(char *const *environ)
{
	struct session	*s;
	const char	*eq;
	size_t		 i;

	s = xcalloc(1, sizeof *s);
	s->envsize = 16;
	s->env = xcalloc(s->envsize, sizeof *s->env);
	for (i = 0; environ != NULL && environ[i] != NULL; i++) {
		if ((eq = strchr(environ[i], '=')) == NULL ||
		    eq == environ[i] ||
		    session_find(s, environ[i], eq - environ[i]) != -1)
			continue;
		session_set(s, environ[i], eq - environ[i], eq + 1);
	}
	s->cwd = session_initial_cwd(s);
	session_set(s, "PWD", 3, s->cwd);
	return s;
}

/* Free the session. */
void
session_free(struct session *s)
{
	size_t	i;

	if (s == NULL)
		return;
	for (i = 0; i < s->nenv; i++)
		free(s->env[i]);
	free(s->env);
	free(s->cwd);
	free(s);
}

/* Return the session's working directory, absolute and normalised. */
const char *
session_cwd(const struct session *s)
{
	return s->cwd;
}

/* Return name's value in the session environment, or NULL when unset. */
const char *
session_getenv(const struct session *s, const char *name)
{
	return session_get(s, name, strlen(name));
}

/* Change the session cwd like a shell's cd; see the top of the file. */
int
session_cd(struct session *s, const char *dir, char **cause)
{
	const char	*operand = dir, *cdpath, *p, *end;
	char		*target = NULL, *base;
	size_t		 n;
	int		 error;

	if (operand == NULL || *operand == '\0') {
		operand = session_get(s, "HOME", 4);
		if (operand == NULL || *operand == '\0') {
			*cause = xstrdup("cd: HOME not set");
			return -1;
		}
	} else if (strcmp(operand, "-") == 0) {
		operand = session_get(s, "OLDPWD", 6);
		if (operand == NULL || *operand == '\0') {
			*cause = xstrdup("cd: OLDPWD not set");
			return -1;
		}
	}

	cdpath = session_get(s, "CDPATH", 6);
	if (operand[0] != '/' && cdpath != NULL && *cdpath != '\0' &&
	    strcmp(operand, ".") != 0 && strcmp(operand, "..") != 0 &&
	    strncmp(operand, "./", 2) != 0 && strncmp(operand, "../", 3) != 0) {
		for (p = cdpath; target == NULL; p = end + 1) {
			end = strchrnul(p, ':');
			n = (size_t)(end - p);
			if (n == 0)
				base = xstrdup(s->cwd);
			else if (p[0] == '/')
				base = xstrndup(p, n);
			else
				base = xprintf("%s/%.*s", s->cwd, (int)n, p);
			if (session_enter(base, operand, &target) != 0)
				target = NULL;
			free(base);
			if (*end == '\0')
				break;
		}
	}
	if (target == NULL &&
	    (error = session_enter(s->cwd, operand, &target)) != 0) {
		*cause = xprintf("cd: %s: %s", operand, strerror(error));
		return -1;
	}

	session_set(s, "OLDPWD", 6, s->cwd);
	free(s->cwd);
	s->cwd = target;
	session_set(s, "PWD", 3, s->cwd);
	return 0;
}

/* Export NAME=VALUE, NAME+=VALUE or NAME into the session environment. */
int
session_export(struct session *s, const char *assignment,
    char **cause)
{
	const char	*eq, *old;
	char		*value;
	size_t		 len;
	int		 append = 0;

	if (assignment == NULL) {
		*cause = xstrdup("export: usage: export NAME[=VALUE]");
		return -1;
	}
	if ((eq = strchr(assignment, '=')) != NULL) {
		len = (size_t)(eq - assignment);
		if (len > 0 && assignment[len - 1] == '+') {
			append = 1;
			len--;
		}
	} else
		len = strlen(assignment);
	if (!name_is_ident(assignment, len)) {
		*cause = xprintf("export: `%s': not a valid identifier",
		    assignment);
		return -1;
	}
	if (len == 3 && strncmp(assignment, "PWD", 3) == 0)
		return 0;

	old = session_get(s, assignment, len);
	if (eq == NULL) {
		if (old == NULL)
			session_set(s, assignment, len, "");
		return 0;
	}
	if (append && old != NULL) {
		value = xprintf("%s%s", old, eq + 1);
		session_set(s, assignment, len, value);
		free(value);
	} else
		session_set(s, assignment, len, eq + 1);
	return 0;
}

/* Remove name from the session environment; an unset name is no error. */
int
session_unset(struct session *s, const char *name, char **cause)
{
	size_t	len;

	if (name == NULL) {
		*cause = xstrdup("unset: usage: unset NAME");
		return -1;
	}
	len = strlen(name);
	if (!name_is_ident(name, len)) {
		*cause = xprintf("unset: `%s': not a valid identifier", name);
		return -1;
	}
	if (len == 3 && strcmp(name, "PWD") == 0)
		return 0;
	session_del(s, name, len);
	return 0;
}

/*
 * Take a shell's state as the session's: cwd (absolute) and env, its
 * environment ("NAME=VALUE", NULL-terminated); "_" and SHLVL, which a
 * shell sets for itself, keep the session's values, and PWD names cwd.
 */
void
session_set_state(struct session *s, const char *cwd, char *const *env)
{
	struct session	*n, old;
	const char	*keep[] = { "_", "SHLVL" }, *v;
	size_t		 i;

	n = session_new(NULL);
	for (i = 0; env[i] != NULL; i++) {
		v = strchr(env[i], '=');
		if (v == NULL || v == env[i] ||
		    (v - env[i] == 1 && env[i][0] == '_') ||
		    (v - env[i] == 5 && strncmp(env[i], "SHLVL", 5) == 0))
			continue;
		session_set(n, env[i], v - env[i], v + 1);
	}
	for (i = 0; i < sizeof keep / sizeof keep[0]; i++) {
		session_del(n, keep[i], strlen(keep[i]));
		if ((v = session_get(s, keep[i], strlen(keep[i]))) != NULL)
			session_set(n, keep[i], strlen(keep[i]), v);
	}
	session_del(n, "PWD", 3);
	session_set(n, "PWD", 3, cwd);
	free(n->cwd);
	n->cwd = xstrdup(cwd);
	/* n takes the old state, freed as a session is. */
	old = *s;
	*s = *n;
	*n = old;
	session_free(n);
}

/* Return a copy of the merged environment for a job; PWD is the cwd. */
char **
session_env(const struct session *s)
{
	char	**env;
	size_t	  i;

	env = xcalloc(s->nenv + 1, sizeof *env);
	for (i = 0; i < s->nenv; i++)
		env[i] = xstrdup(s->env[i]);
	env[s->nenv] = NULL;
	return env;
}

/* Free an array from session_env(); NULL is ignored. */
void
session_env_free(char **env)
{
	size_t	i;

	if (env == NULL)
		return;
	for (i = 0; env[i] != NULL; i++)
		free(env[i]);
	free(env);
}

/* Return $SHELL if it is an absolute path to an executable, else /bin/sh. */
const char *
session_shell(const struct session *s)
{
	struct stat	 sb;
	const char	*sh;

	sh = session_get(s, "SHELL", 5);
	if (sh != NULL && sh[0] == '/' && stat(sh, &sb) == 0 &&
	    S_ISREG(sb.st_mode) && access(sh, X_OK) == 0)
		return sh;
	return "/bin/sh";
}

/* Append one character to b. */
static void
buf_addc(struct xbuf *b, char c)
{
	xbuf_add(b, &c, 1);
}

/* Return 1 for the blanks that separate words. */
static int
split_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/*
 * Expand the $ at *pp into b and move *pp past it, keeping a '$' that no
 * name or '{' follows; return 0, or -1 with *cause set.
 */
static int
split_dollar(const struct session *s, const char **pp,
    struct xbuf *b, char **cause)
{
	const char	*p = *pp + 1, *name, *end, *v;
	size_t		 len;

	if (*p == '{') {
		name = p + 1;
		if ((end = strchr(name, '}')) == NULL) {
			*cause = xstrdup("unterminated ${");
			return -1;
		}
		len = (size_t)(end - name);
		if (!name_is_ident(name, len)) {
			*cause = xprintf("${%.*s}: bad substitution", (int)len,
			    name);
			return -1;
		}
		*pp = end + 1;
	} else if (name_is_ident(p, 1)) {
		name = p;
		for (len = 1; name_is_ident_char((unsigned char)name[len], 0);
		    len++)
			/* nothing */;
		*pp = name + len;
	} else {
		buf_addc(b, '$');
		*pp = p;
		return 0;
	}
	if ((v = session_get(s, name, len)) != NULL)
		xbuf_add(b, v, strlen(v));
	return 0;
}

/*
 * Expand the tilde prefix at *pp into b if it is one (ending at '/', a
 * blank, the end, or in an assignment a ':'); move *pp past what was used.
 */
static void
split_tilde(const struct session *s, const char **pp,
    struct xbuf *b, int assign)
{
	const char	*p = *pp + 1, *end, *home = NULL;
	struct passwd	*pw;
	char		*user;
	size_t		 len;

	for (end = p; *end != '\0' && *end != '/' && !split_is_blank(*end) &&
	    !(assign && *end == ':'); end++) {
		/* A quoted or expanded character makes it no tilde prefix. */
		if (strchr("'\"\\$", *end) != NULL) {
			buf_addc(b, '~');
			*pp = p;
			return;
		}
	}
	len = (size_t)(end - p);
	if (len == 0)
		home = session_get(s, "HOME", 4);
	else {
		user = xstrndup(p, len);
		if ((pw = getpwnam(user)) != NULL)
			home = pw->pw_dir;
		free(user);
	}
	if (home == NULL) {
		buf_addc(b, '~');
		*pp = p;
		return;
	}
	xbuf_add(b, home, strlen(home));
	*pp = end;
}

/* Return 1 if b so far is NAME= or NAME+= from unquoted text. */
static int
split_is_assign(const struct xbuf *b)
{
	size_t	len = b->len;

	if (len < 2 || b->s[len - 1] != '=')
		return 0;
	len--;
	if (b->s[len - 1] == '+')
		len--;
	return name_is_ident(b->s, len);
}

/*
 * End the word being read at a blank or the end of the line: keep it
 * unless it is empty and unquoted (made only of empty expansions).
 */
static void
split_end_word(struct split_state *st)
{
	if (st->in_word && (st->b.len > 0 || st->quoted)) {
		st->v = xreallocarray(st->v, st->n + 2, sizeof *st->v);
		st->v[st->n++] = xstrndup(st->b.s == NULL ? "" : st->b.s,
		    st->b.len);
		st->v[st->n] = NULL;
	}
	st->in_word = st->quoted = st->assign = 0;
	st->b.len = 0;
}

/* Say that a quote is not closed; return -1. */
static int
split_unterminated(char **cause)
{
	*cause = xstrdup("unterminated quote");
	return -1;
}

/* Read the '...' at st->p: literal; 0, or -1 when it is not closed. */
static int
split_squote(struct split_state *st)
{
	const char	*p = st->p + 1;

	while (*p != '\'' && *p != '\0')
		buf_addc(&st->b, *p++);
	if (*p == '\0')
		return split_unterminated(st->cause);
	st->p = p + 1;
	return 0;
}

/*
 * Read the "..." at st->p: \" \\ \$ \` and backslash-newline are escapes,
 * other backslashes stay, $ expands; 0, or -1 with the cause set.
 */
static int
split_dquote(struct split_state *st)
{
	const char	*p = st->p + 1;

	while (*p != '"') {
		if (*p == '\0')
			return split_unterminated(st->cause);
		if (*p == '\\' && p[1] != '\0' &&
		    strchr("\"\\$`\n", p[1]) != NULL) {
			if (p[1] != '\n')
				buf_addc(&st->b, p[1]);
			p += 2;
		} else if (*p == '$') {
			if (split_dollar(st->s, &p, &st->b, st->cause) != 0)
				return -1;
		} else
			buf_addc(&st->b, *p++);
	}
	st->p = p + 1;
	return 0;
}

/*
 * Read the unquoted backslash at st->p: it quotes the next character,
 * vanishes with a newline, and is kept at the end of the line.
 */
static void
split_backslash(struct split_state *st)
{
	const char	*p = st->p;

	if (p[1] == '\0')
		buf_addc(&st->b, *p++);
	else if (p[1] == '\n')
		p += 2;
	else {
		st->quoted = 1;
		buf_addc(&st->b, p[1]);
		p += 2;
	}
	st->p = p;
}

/*
 * Read an unquoted character that stands for itself, noting a word that
 * is an assignment (NAME= or NAME+=): after its '=' and each ':' a ~ is
 * a tilde prefix.
 */
static void
split_plain(struct split_state *st)
{
	char	c = *st->p++;

	buf_addc(&st->b, c);
	if (st->plain && !st->assign && c == '=' && split_is_assign(&st->b))
		st->assign = st->tilde_ok = 1;
	else if (st->assign && c == ':')
		st->tilde_ok = 1;
}

/* Read the next piece of a word at st->p; 0, or -1 with the cause set. */
static int
split_piece(struct split_state *st)
{
	if (!st->in_word)
		st->in_word = st->tilde_ok = st->plain = 1;
	if (*st->p == '~' && st->tilde_ok) {
		split_tilde(st->s, &st->p, &st->b, st->assign);
		st->tilde_ok = st->plain = 0;
		return 0;
	}
	st->tilde_ok = 0;
	switch (*st->p) {
	case '\'':
	case '"':
		st->quoted = 1;
		st->plain = 0;
		return *st->p == '\'' ? split_squote(st) : split_dquote(st);
	case '\\':
		st->plain = 0;
		split_backslash(st);
		return 0;
	case '$':
		st->plain = 0;
		return split_dollar(st->s, &st->p, &st->b, st->cause);
	default:
		split_plain(st);
		return 0;
	}
}

/* Split line into words like a shell for simple cases; see the file's top. */
int
session_split(const struct session *s, const char *line, int *argc,
    char ***argv, char **cause)
{
	struct split_state	st;

	memset(&st, 0, sizeof st);
	st.s = s;
	st.p = line == NULL ? "" : line;
	st.cause = cause;
	*argc = 0;
	*argv = NULL;
	for (;;) {
		if (*st.p == '\0' || split_is_blank(*st.p)) {
			split_end_word(&st);
			if (*st.p == '\0')
				break;
			st.p++;
		} else if (split_piece(&st) != 0) {
			free(st.b.s);
			session_split_free((int)st.n, st.v);
			return -1;
		}
	}
	free(st.b.s);
	if (st.v == NULL) {
		st.v = xcalloc(1, sizeof *st.v);
		st.v[0] = NULL;
	}
	*argc = (int)st.n;
	*argv = st.v;
	return 0;
}

/* Free the words from session_split(). */
void
session_split_free(int argc, char **argv)
{
	int	i;

	if (argv == NULL)
		return;
	for (i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
}

/* Return the list operator at p (&&, ||, ;, newline) and its length. */
static enum session_op
split_list_op(const char *p, size_t *len)
{
	*len = 2;
	if (p[0] == '&' && p[1] == '&')
		return SESSION_OP_AND;
	if (p[0] == '|' && p[1] == '|')
		return SESSION_OP_OR;
	*len = 1;
	if (*p == ';' || *p == '\n')
		return SESSION_OP_SEQ;
	return SESSION_OP_NONE;
}

/* Close the part that started at start and ends before end. */
static void
split_list_add(struct session_list *l, const char *start, const char *end,
    enum session_op op, const char *other)
{
	struct session_part	*p;

	while (start < end && split_is_blank(*start))
		start++;
	while (end > start && split_is_blank(end[-1]))
		end--;
	l->parts = xreallocarray(l->parts, (size_t)l->count + 1,
	    sizeof *l->parts);
	p = &l->parts[l->count++];
	p->text = start;
	p->len = (size_t)(end - start);
	p->op = op;
	p->other = other;
}

/*
 * Skip the quoted span that starts at p (a ' or a "): return the byte past
 * its closing quote, or NULL when it is not closed.  In double quotes a
 * backslash escapes the next byte, and the first command substitution
 * (` or $() is noted in *sub unless it already holds one.
 */
static const char *
split_skip_quoted(const char *p, const char **sub)
{
	char	q = *p++;

	for (; *p != q; p++) {
		if (*p == '\0')
			return NULL;
		if (q != '"')
			continue;
		if (*p == '\\' && p[1] != '\0')
			p++;
		else if (*sub == NULL && (*p == '`' || (*p == '$' &&
		    p[1] == '(')))
			*sub = *p == '`' ? "`" : "$(";
	}
	return p + 1;
}

/*
 * Split line at its list operators (&&, ||, ; and newlines outside quotes),
 * as a shell reads an and-or list, noting in each part the first other
 * operator it holds (a pipe, a redirection, &, a subshell, a command
 * substitution).  A comment (# at a word's start) ends the line.  -1 with
 * *cause for an unterminated quote or an empty part before an operator.
 */
int
session_split_list(const char *line, struct session_list *l, char **cause)
{
	const char	*p = line, *start = line, *other = NULL;
	enum session_op	 op = SESSION_OP_NONE, next;
	size_t		 len;
	int		 word_start = 1;

	memset(l, 0, sizeof *l);
	while (*p != '\0') {
		if (*p == '\'' || *p == '"') {
			if ((p = split_skip_quoted(p, &other)) == NULL)
				goto unterminated;
			word_start = 0;
			continue;
		}
		if (*p == '\\') {
			p += p[1] != '\0' ? 2 : 1;
			word_start = 0;
			continue;
		}
		if (*p == '#' && word_start)
			break;
		if ((next = split_list_op(p, &len)) != SESSION_OP_NONE) {
			split_list_add(l, start, p, op, other);
			if (l->parts[l->count - 1].len == 0) {
				*cause = xprintf("syntax error near `%.*s'",
				    *p == '\n' ? 7 : (int)len,
				    *p == '\n' ? "newline" : p);
				goto fail;
			}
			op = next;
			other = NULL;
			p += len;
			start = p;
			word_start = 1;
			continue;
		}
		if (other == NULL) {
			if (strchr("|&<>()`", *p) != NULL)
				other = *p == '|' ? "|" : *p == '&' ? "&" :
				    *p == '<' ? "<" : *p == '>' ? ">" :
				    *p == '(' ? "(" : *p == ')' ? ")" : "`";
			else if (*p == '$' && p[1] == '(')
				other = "$(";
		}
		word_start = split_is_blank(*p);
		p++;
	}
	split_list_add(l, start, p, op, other);
	if (l->parts[l->count - 1].len == 0) {
		/* A trailing ; ends the list; a trailing && or || does not. */
		if (op == SESSION_OP_AND || op == SESSION_OP_OR) {
			*cause = xprintf("syntax error: the line ends after "
			    "`%s'", op == SESSION_OP_AND ? "&&" : "||");
			goto fail;
		}
		l->count--;
	}
	return 0;

unterminated:
	split_unterminated(cause);
fail:
	session_list_clear(l);
	return -1;
}

/* Free the parts of a split list. */
void
session_list_clear(struct session_list *l)
{
	free(l->parts);
	l->parts = NULL;
	l->count = 0;
}

/*
 * Return the text of line as typed after its first n words, blanks
 * before it skipped (NULL if it has fewer), and in *total how many words
 * the line has; words are cut as session_split() cuts them, before any
 * expansion.  NULL too for an unterminated quote.
 */
const char *
session_raw_tail(const char *line, int n, int *total)
{
	const char	*p = line, *tail = NULL, *sub = NULL;
	int		 words = 0;

	for (;;) {
		while (split_is_blank(*p))
			p++;
		if (words == n)
			tail = p;
		if (*p == '\0')
			break;
		words++;
		while (*p != '\0' && !split_is_blank(*p)) {
			if (*p == '\'' || *p == '"') {
				if ((p = split_skip_quoted(p, &sub)) == NULL)
					return NULL;
			} else if (*p == '\\' && p[1] != '\0')
				p += 2;
			else
				p++;
		}
	}
	*total = words;
	return tail;
}
