/*
 * sessionsh.c: the session's persistent shell, driven on the loop.
 *
 * Each line is written as
 *	{ __jd_s=0; } 2>/dev/null; eval 'LINE' </dev/null || __jd_s=$?
 * (quoted, so an unfinished quote is the line's syntax error, not ours,
 * with stdin closed so the line cannot eat what follows, and after ||
 * so that `set -e` cannot end the shell), then an epilogue, its own
 * stderr (a trace) thrown away, that dumps the state the line left: each
 * section after a marker line "\036jdTOKEN X", TOKEN 128 bits from
 * getrandom(2) drawn anew for every line, so that nothing the line prints
 * (a sourced script, an old dump, the previous line's markers seen in a
 * trace) can pass for one.  A section is every byte up to the next
 * marker, so each field arrives as it is, newlines, \036 and bytes that
 * are not UTF-8 included:
 *	S	the line's status, a newline, then pwd's output (the cwd and a
 *		newline)
 *	E	env -0 (env by its path: a PATH the line set cannot lose it)
 *	V	env's status, a newline; when it failed (E2BIG: a variable over
 *		MAX_ARG_STRLEN, or too many), the exported variables' sizes
 *	A	the alias definitions, as the shell reads them back
 *	L	the alias names, each ending in a NUL (bash, zsh)
 *	F	the function definitions
 *	N	the function names (bash: declare -F, zsh: NUL-terminated)
 *	O	the options and umask, as shell input
 *	Z	the end, on both stdout and stderr.
 * The builtins are called as \builtin (sh: \command), so a function or
 * alias of the same name cannot answer for them.  The line is done when
 * both Z markers came.  What came before S is the line's output; stderr
 * before Z its errors.  A dump that cannot be read is never taken for a
 * state: the line fails and the shell is restarted with the last good
 * one.  A variable too large for programs is refused: the deck undoes
 * its export in the shell (its value before the line, or unset), takes
 * the state that leaves, and the line fails saying which and why.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "entropy.h"
#include "expand.h"
#include "jobtable.h"
#include "loop.h"
#include "name.h"
#include "proc.h"
#include "pty.h"
#include "session.h"
#include "sessionsh.h"
#include "xmalloc.h"

enum sessionsh_kind {
	SESSIONSH_SH,
	SESSIONSH_BASH,
	SESSIONSH_ZSH
};

#define SESSIONSH_TOKEN_BYTES	16	/* random bytes in a line's markers */
#define SESSIONSH_MARK_LEN	(3 + 2 * SESSIONSH_TOKEN_BYTES + 3)

/* What the epilogue runs in each kind of shell (see the top comment). */
struct sessionsh_dialect {
	const char	*bi;	/* a builtin, not a function or alias */
	const char	*sizes;	/* V: the exported variables' sizes */
	const char	*al;	/* A */
	const char	*aln;	/* L */
	const char	*fn;	/* F */
	const char	*nm;	/* N */
	const char	*op;	/* O */
};

static const struct sessionsh_dialect sessionsh_dialects[] = {
	[SESSIONSH_SH] = {
		"\\command ",
		"\\command export -p",
		"\\command alias",
		":",
		":",
		":",
		"\\command set +o; "
		    "\\command printf 'umask %s\\n' \"$(\\command umask)\""
	},
	[SESSIONSH_BASH] = {
		"\\builtin ",
		/* Bytes, not characters: LC_ALL=C in a subshell. */
		"( LC_ALL=C; \\builtin compgen -e | "
		    "while IFS= \\builtin read -r __jd_n; do "
		    "__jd_v=${!__jd_n-}; \\builtin printf '%s=%d\\0' "
		    "\"$__jd_n\" \"${#__jd_v}\"; done )",
		"\\builtin alias",
		"\\builtin printf '%s\\0' \"${!BASH_ALIASES[@]}\"",
		"\\builtin declare -f",
		"\\builtin declare -F",
		"\\builtin set +o; \\builtin shopt -p; \\builtin umask -p"
	},
	[SESSIONSH_ZSH] = {
		"builtin ",
		"( builtin unsetopt multibyte; "
		    "for __jd_n in ${(k)parameters[(R)*export*]}; do "
		    "builtin print -rN -- \"$__jd_n=${#${(P)__jd_n}}\"; done )",
		"builtin alias -L",
		"builtin print -rN -- ${(k)aliases} ${(k)galiases} "
		    "${(k)saliases}",
		"builtin functions",
		"builtin print -rN -- ${(k)functions}",
		"builtin printf 'umask %s\\n' \"$(builtin umask)\""
	}
};

/* A dump's sections, in the order the epilogue prints them. */
enum sessionsh_section {
	SESSIONSH_S,
	SESSIONSH_E,
	SESSIONSH_V,
	SESSIONSH_A,
	SESSIONSH_L,
	SESSIONSH_F,
	SESSIONSH_N,
	SESSIONSH_O,
	SESSIONSH_Z,
	SESSIONSH_SECTIONS
};

static const char sessionsh_letters[] = "SEVALFNOZ";

/* A dump cut into its sections, in the shell's stdout buffer. */
struct sessionsh_dump {
	size_t		 output;	/* the line's output: bytes before S */
	const char	*at[SESSIONSH_SECTIONS];
	size_t		 len[SESSIONSH_SECTIONS];
};

/* An exported variable's name and the size of its NAME=VALUE. */
struct sessionsh_var {
	char	*name;
	size_t	 size;
};

struct sessionsh_item {
	char			*line;	/* NULL: a sessionsh_then() */
	sessionsh_done_cb	*done;
	void			*arg;
	struct sessionsh_item	*next;
};

struct sessionsh {
	struct loop		*loop;
	struct jobtable		*jt;
	struct session		*session;
	struct cgroup		*cg;		/* contains the shell, or NULL */
	struct proc		*proc;		/* the shell, or NULL */
	char			*shell;
	enum sessionsh_kind	 kind;
	int64_t			 timeout_ms;

	int			 in_fd;
	int			 out_fd;
	int			 err_fd;
	struct xbuf	 wbuf;	/* to write to the shell */
	struct xbuf	 out;
	struct xbuf	 err;
	uint64_t		 timer;
	char			*env;		/* env's path, quoted */
	char			 token[2 * SESSIONSH_TOKEN_BYTES + 1];

	struct sessionsh_item	*head;
	struct sessionsh_item	*tail;
	int			 count;
	int			 running;	/* head's line was written */
	char			*refused;	/* what head's fix undoes */
	char			*held_output;	/* head's, while its fix runs */
	char			*held_errors;

	char			*restore;	/* the last good state, as input */
	char			*dir;		/* holds the BASH_ENV file */
	char			*bash_env;
	char			*user_bash_env;	/* the user's own, sourced first */
	char			**aliases;
	char			**functions;
};

static int	sessionsh_start(struct sessionsh *, char **);
static void	sessionsh_stop(struct sessionsh *);
static void	sessionsh_next(struct sessionsh *);
static void	sessionsh_watch_in(struct sessionsh *);
static void	sessionsh_lost(struct sessionsh *, const char *);
static void	sessionsh_ended_cb(void *);
static void	sessionsh_exited(struct proc *, int, void *);
static void	sessionsh_fix_clear(struct sessionsh *);
static void	sessionsh_cancel_timer(struct sessionsh *);
static int	sessionsh_unreadable(struct sessionsh *, const char *);
static int	sessionsh_check_dump(struct sessionsh *,
		    struct sessionsh_dump *, size_t *, int *);
static void	sessionsh_take_state(struct sessionsh *,
		    const struct sessionsh_dump *, size_t);
static void	sessionsh_take_names(struct sessionsh *,
		    const struct sessionsh_dump *, struct xbuf *);
static void	sessionsh_write_bash_env(struct sessionsh *,
		    const struct xbuf *);
static void	sessionsh_end_line(struct sessionsh *,
		    const struct sessionsh_dump *, int);
static int	sessionsh_write_eval(struct sessionsh *, const char *,
		    char **);

/* What the shell, a supervised process, tells. */
static const struct proc_cbs sessionsh_proc_cbs = {
	.exited = sessionsh_exited,
};

/* Free a NULL-terminated array of strings. */
static void
sessionsh_free_list(char **l)
{
	size_t	i;

	for (i = 0; l != NULL && l[i] != NULL; i++)
		free(l[i]);
	free(l);
}

/*
 * Split p (len bytes) at sep into its non-empty items, each without
 * prefix where it starts with it (prefix may be NULL); NULL-terminated.
 */
static char **
sessionsh_split(const char *p, size_t len, int sep, const char *prefix)
{
	const char	*end = p + len, *e;
	char		**l = xcalloc(1, sizeof *l);
	size_t		  n = 0, plen = prefix != NULL ? strlen(prefix) : 0;

	for (; p < end; p = e + 1) {
		if ((e = memchr(p, sep, end - p)) == NULL)
			e = end;
		if (plen > 0 && (size_t)(e - p) > plen &&
		    memcmp(p, prefix, plen) == 0)
			p += plen;
		if (e == p)
			continue;
		l = xreallocarray(l, n + 2, sizeof *l);
		l[n++] = xstrndup(p, e - p);
		l[n] = NULL;
	}
	return l;
}

/*
 * Read one entry of the listings of a POSIX sh (dash's alias: name='v',
 * export -p: export name='v') at p, before end: up to the first newline
 * outside quotes.  Return where it ends (its newline, or end); the entry
 * with its quotes ('...', "...", backslashes) taken out goes to val
 * when val is not NULL.
 */
static const char *
sessionsh_sh_entry(const char *p, const char *end, struct xbuf *val)
{
	char	quote = 0;
	size_t	n;

	for (; p < end; p += n) {
		n = 1;
		if (quote == '\'') {
			if (*p == '\'')
				quote = 0;
			else if (val != NULL)
				xbuf_add(val, p, 1);
			continue;
		}
		if (*p == '\\' && p + 1 < end && (quote == 0 ||
		    strchr("\"\\$`\n", p[1]) != NULL)) {
			if (val != NULL && p[1] != '\n')
				xbuf_add(val, p + 1, 1);
			n = 2;
			continue;
		}
		if (quote == 0 && *p == '\n')
			break;
		if (*p == '"' && (quote == 0 || quote == '"'))
			quote = quote == 0 ? '"' : 0;
		else if (quote == 0 && *p == '\'')
			quote = '\'';
		else if (val != NULL)
			xbuf_add(val, p, 1);
	}
	return p;
}

/*
 * Make a new session shell for session: $SHELL, started on pipes in the
 * session's cwd and environment when the first line comes; NULL with
 * *cause if it cannot be run.
 */
struct sessionsh *
sessionsh_new(struct loop *loop, struct jobtable *jt, struct cgroup *cg,
    struct session *session, int64_t timeout_ms, char **cause)
{
	struct sessionsh	*sh;
	const char		*base;
	char			*env;

	sh = xcalloc(1, sizeof *sh);
	sh->loop = loop;
	sh->jt = jt;
	sh->cg = cg;
	sh->session = session;
	sh->timeout_ms = timeout_ms > 0 ? timeout_ms : SESSIONSH_TIMEOUT_MS;
	sh->shell = xstrdup(session_shell(session));
	sh->in_fd = sh->out_fd = sh->err_fd = -1;
	base = strrchr(sh->shell, '/');
	base = base != NULL ? base + 1 : sh->shell;
	if (strcmp(base, "bash") == 0)
		sh->kind = SESSIONSH_BASH;
	else if (strcmp(base, "zsh") == 0)
		sh->kind = SESSIONSH_ZSH;
	else
		sh->kind = SESSIONSH_SH;
	sh->aliases = xcalloc(1, sizeof *sh->aliases);
	sh->functions = xcalloc(1, sizeof *sh->functions);
	/* env by its path here: a line's PATH cannot hide it. */
	env = pty_find_program("env", NULL);
	sh->env = expand_shell_quote(env != NULL ? env : "env");
	free(env);
	if (access(sh->shell, X_OK) != 0) {
		*cause = xprintf("%s: %s", sh->shell, strerror(errno));
		sessionsh_free(sh);
		return NULL;
	}
	return sh;
}

/*
 * Free the session shell: end it, and drop the queue, each callback told
 * so (status -1, output and errors NULL) so that it can free its arg.
 */
void
sessionsh_free(struct sessionsh *sh)
{
	struct sessionsh_item	*it;

	if (sh == NULL)
		return;
	sessionsh_stop(sh);
	sessionsh_fix_clear(sh);
	while ((it = sh->head) != NULL) {
		sh->head = it->next;
		if (it->done != NULL)
			it->done(-1, NULL, NULL, it->arg);
		free(it->line);
		free(it);
	}
	if (sh->bash_env != NULL)
		unlink(sh->bash_env);
	if (sh->dir != NULL)
		rmdir(sh->dir);
	free(sh->bash_env);
	free(sh->user_bash_env);
	free(sh->dir);
	free(sh->restore);
	free(sh->env);
	sessionsh_free_list(sh->aliases);
	sessionsh_free_list(sh->functions);
	xbuf_clear(&sh->wbuf);
	free(sh->shell);
	free(sh);
}

/* The shell ended on its own: noted; the next line starts another. */
static void
sessionsh_exited(struct proc *p, int status, void *arg)
{
	struct sessionsh	*sh = arg;

	(void)status;
	if (p != sh->proc)
		return;
	/*
	 * Gone with a line running (`exit`): say so now, from the loop,
	 * rather than wait for its pipes, which something it left in the
	 * background may hold, or for the time limit.
	 */
	if (sh->running) {
		sessionsh_cancel_timer(sh);
		sh->timer = loop_add_timer(sh->loop, 0, sessionsh_ended_cb, sh);
	}
}

/* The shell ended while a line ran: report the line, start again. */
static void
sessionsh_ended_cb(void *arg)
{
	struct sessionsh	*sh = arg;

	sh->timer = 0;
	sessionsh_lost(sh, "the session shell ended");
}

/* Cancel the line's time limit, or the report of its shell's end. */
static void
sessionsh_cancel_timer(struct sessionsh *sh)
{
	if (sh->timer != 0) {
		loop_cancel_timer(sh->loop, sh->timer);
		sh->timer = 0;
	}
}

/*
 * Kill the shell's session, what it left and its containment, and close
 * its pipes.  Without a jobtable nobody else reaps it: it is waited for.
 */
static void
sessionsh_stop(struct sessionsh *sh)
{
	sessionsh_cancel_timer(sh);
	if (sh->proc != NULL && !proc_reaped(sh->proc)) {
		proc_kill(sh->proc);
		if (sh->jt == NULL)
			while (waitpid(proc_pid(sh->proc), NULL, 0) == -1 &&
			    errno == EINTR)
				;
	}
	if (sh->proc != NULL) {
		proc_free(sh->proc);
		sh->proc = NULL;
	}
	if (sh->in_fd != -1) {
		loop_unwatch_fd(sh->loop, sh->in_fd);
		close(sh->in_fd);
	}
	if (sh->out_fd != -1) {
		loop_unwatch_fd(sh->loop, sh->out_fd);
		close(sh->out_fd);
	}
	if (sh->err_fd != -1) {
		loop_unwatch_fd(sh->loop, sh->err_fd);
		close(sh->err_fd);
	}
	sh->in_fd = sh->out_fd = sh->err_fd = -1;
	xbuf_clear(&sh->wbuf);
	xbuf_clear(&sh->out);
	xbuf_clear(&sh->err);
	sh->running = 0;
}

/* Forget a refused line's fix: what it undid, the line's own output. */
static void
sessionsh_fix_clear(struct sessionsh *sh)
{
	free(sh->refused);
	free(sh->held_output);
	free(sh->held_errors);
	sh->refused = sh->held_output = sh->held_errors = NULL;
}

/* Write what waits for the shell, as much as it takes now. */
static void
sessionsh_write_cb(int fd, short revents, void *arg)
{
	struct sessionsh	*sh = arg;
	ssize_t			 n;

	(void)revents;
	while (sh->wbuf.len > 0) {
		n = write(fd, sh->wbuf.s, sh->wbuf.len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			break;
		if (n <= 0) {
			/* The shell is gone: its reads will see the end. */
			sh->wbuf.len = 0;
			break;
		}
		memmove(sh->wbuf.s, sh->wbuf.s + n, sh->wbuf.len - n);
		sh->wbuf.len -= n;
	}
	sessionsh_watch_in(sh);
}

/* Watch the shell's stdin for POLLOUT while something waits for it. */
static void
sessionsh_watch_in(struct sessionsh *sh)
{
	if (sh->in_fd != -1)
		loop_set_events(sh->loop, sh->in_fd,
		    sh->wbuf.len > 0 ? POLLOUT : 0);
}

/* Queue text for the shell's stdin. */
static void
sessionsh_send(struct sessionsh *sh, const char *text)
{
	xbuf_add(&sh->wbuf, text, strlen(text));
	sessionsh_watch_in(sh);
}

/*
 * Draw a new token for the next line's markers: 128 bits of getrandom(2),
 * or of /dev/urandom before the kernel's pool is ready; 0, or -1 with
 * *cause when there is neither (never a guessable one).
 */
static int
sessionsh_new_token(struct sessionsh *sh, char **cause)
{
	unsigned char	r[SESSIONSH_TOKEN_BYTES];
	size_t		i;

	if (entropy_fill(r, sizeof r) != 0) {
		*cause = xprintf("no random bytes for the session shell's "
		    "markers: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < sizeof r; i++)
		snprintf(sh->token + 2 * i, 3, "%02x", r[i]);
	return 0;
}

/* Find the line's marker of section x in b from from; its start, or NULL. */
static char *
sessionsh_mark(struct sessionsh *sh, struct xbuf *b, char x, size_t from)
{
	char	mark[SESSIONSH_MARK_LEN + 1];

	snprintf(mark, sizeof mark, "\036jd%s %c\n", sh->token, x);
	if (b->s == NULL || from > b->len)
		return NULL;
	return memmem(b->s + from, b->len - from, mark, SESSIONSH_MARK_LEN);
}

/* Skip "N: " or "line N: " at *p (of len bytes); whether it was there. */
static int
sessionsh_skip_line_no(const char **p, size_t *len)
{
	const char	*q = *p, *end = *p + *len;

	if (end - q > 5 && strncmp(q, "line ", 5) == 0)
		q += 5;
	if (q == end || *q < '0' || *q > '9')
		return 0;
	while (q < end && *q >= '0' && *q <= '9')
		q++;
	if (end - q < 2 || q[0] != ':' || q[1] != ' ')
		return 0;
	*len -= q + 2 - *p;
	*p = q + 2;
	return 1;
}

/*
 * Return an error line of the shell without where it came from: the
 * shell's name, "eval: ", "line N: " (bash, zsh) or "N: " (dash).
 */
static char *
sessionsh_fix_error(const struct sessionsh *sh, const char *p, size_t len)
{
	const char	*base = strrchr(sh->shell, '/');
	size_t		 n;

	base = base != NULL ? base + 1 : sh->shell;
	n = strlen(sh->shell);
	if (len > n + 2 && strncmp(p, sh->shell, n) == 0 && p[n] == ':' &&
	    p[n + 1] == ' ') {
		p += n + 2;
		len -= n + 2;
	} else if (n = strlen(base), len > n + 2 &&
	    strncmp(p, base, n) == 0 && p[n] == ':' && p[n + 1] == ' ') {
		p += n + 2;
		len -= n + 2;
	}
	if (len > 6 && strncmp(p, "eval: ", 6) == 0) {
		p += 6;
		len -= 6;
	}
	sessionsh_skip_line_no(&p, &len);
	return xstrndup(p, len);
}

/* Pop the head item and call its callback. */
static void
sessionsh_finish(struct sessionsh *sh, int status, const char *output,
    const char *errors)
{
	struct sessionsh_item	*it = sh->head;

	sh->running = 0;
	sh->head = it->next;
	if (sh->head == NULL)
		sh->tail = NULL;
	sh->count--;
	if (it->done != NULL)
		it->done(status, output, errors, it->arg);
	free(it->line);
	free(it);
	sessionsh_fix_clear(sh);
}

/*
 * Make the private directory of the BASH_ENV file, the first time there
 * are aliases or functions to carry; 0, or -1 when it cannot be made.
 */
static int
sessionsh_bash_env(struct sessionsh *sh)
{
	char	tmpl[] = "/tmp/jobdeck-session.XXXXXX";

	if (sh->bash_env != NULL)
		return 0;
	if (mkdtemp(tmpl) == NULL)
		return -1;
	sh->dir = xstrdup(tmpl);
	sh->bash_env = xprintf("%s/bash_env", sh->dir);
	return 0;
}

/*
 * Remember the user's own BASH_ENV from the shell's environment (value,
 * or NULL when unset), which our file sources first; our own file's path
 * there (a shell restarted with it) changes nothing.
 */
static void
sessionsh_user_bash_env(struct sessionsh *sh, const char *value)
{
	if (value != NULL && sh->bash_env != NULL &&
	    strcmp(value, sh->bash_env) == 0)
		return;
	free(sh->user_bash_env);
	sh->user_bash_env = value != NULL && *value != '\0' ?
	    xstrdup(value) : NULL;
}

/* Cut the dump in sh->out into its sections; 0, or -1 if one is missing. */
static int
sessionsh_cut(struct sessionsh *sh, struct sessionsh_dump *d)
{
	const char	*m;
	size_t		 from = 0;
	int		 i;

	for (i = 0; i < SESSIONSH_SECTIONS; i++) {
		if ((m = sessionsh_mark(sh, &sh->out, sessionsh_letters[i],
		    from)) == NULL)
			return -1;
		if (i == 0)
			d->output = m - sh->out.s;
		else
			d->len[i - 1] = m - d->at[i - 1];
		d->at[i] = m + SESSIONSH_MARK_LEN;
		from = d->at[i] - sh->out.s;
	}
	d->len[SESSIONSH_Z] = 0;
	return 0;
}

/*
 * Read a status line (digits and a newline) at the start of p (len
 * bytes) into *status; the bytes it took, or 0 if it is not one.
 */
static size_t
sessionsh_status(const char *p, size_t len, int *status)
{
	size_t	i;

	for (i = 0; i < len && i < 4 && p[i] >= '0' && p[i] <= '9'; i++)
		/* nothing */;
	if (i == 0 || i == 4 || i == len || p[i] != '\n')
		return 0;
	*status = atoi(p);
	return i + 1;
}

/* Return the line's errors: stderr before its Z, without "line N:"s. */
static char *
sessionsh_errors(struct sessionsh *sh)
{
	struct xbuf	  r = { NULL, 0, 0 };
	const char	 *z = sessionsh_mark(sh, &sh->err, 'Z', 0);
	char		**errs, *tmp;
	size_t		  i;

	errs = sessionsh_split(sh->err.s, z - sh->err.s, '\n', NULL);
	for (i = 0; errs[i] != NULL; i++) {
		if (i > 0)
			xbuf_add(&r, "\n", 1);
		tmp = sessionsh_fix_error(sh, errs[i], strlen(errs[i]));
		xbuf_add(&r, tmp, strlen(tmp));
		free(tmp);
	}
	sessionsh_free_list(errs);
	return r.s != NULL ? r.s : xstrdup("");
}

/*
 * Read section V past its status (p, len bytes): the exported variables'
 * sizes, "NAME=SIZE" each ending in a NUL (bash, zsh), or export -p's
 * listing (sh).  Their number; *vars is an array the caller frees.
 */
static size_t
sessionsh_sizes(const struct sessionsh *sh, const char *p, size_t len,
    struct sessionsh_var **vars)
{
	struct xbuf	 val = { NULL, 0, 0 };
	const char	*end = p + len, *e, *eq;
	size_t		 n = 0;
	char		*num;

	*vars = NULL;
	for (; p < end; p = e + 1) {
		xbuf_clear(&val);
		if (sh->kind == SESSIONSH_SH) {
			e = sessionsh_sh_entry(p, end, &val);
			if (val.len < 8 || strncmp(val.s, "export ", 7) != 0 ||
			    (eq = strchr(val.s + 7, '=')) == NULL)
				continue;
			*vars = xreallocarray(*vars, n + 1, sizeof **vars);
			(*vars)[n].name = xstrndup(val.s + 7, eq - val.s - 7);
			(*vars)[n++].size = val.len - 7;
			continue;
		}
		if ((e = memchr(p, '\0', end - p)) == NULL)
			e = end;
		if ((eq = memchr(p, '=', e - p)) == NULL || eq == p)
			continue;
		num = xstrndup(eq + 1, e - eq - 1);
		*vars = xreallocarray(*vars, n + 1, sizeof **vars);
		(*vars)[n].name = xstrndup(p, eq - p);
		(*vars)[n++].size = (eq - p) + 1 + strtoull(num, NULL, 10);
		free(num);
	}
	xbuf_clear(&val);
	return n;
}

/*
 * env -0 failed in the dump d (its status, the sizes in section V after
 * vat): find why.  A variable over MAX_ARG_STRLEN, which no program could
 * be given, is refused: the line's output and errors are held, and a fix
 * that undoes its export (its value before the line, or unset) is run
 * with a dump of its own, which the line then ends with.  Anything else
 * (too many bytes in all, or no reason found), or a fix that did not
 * help, restarts the shell with the last good state.
 */
static void
sessionsh_env_failed(struct sessionsh *sh, const struct sessionsh_dump *d,
    int status, const char *vat)
{
	const struct sessionsh_dialect	*dl = &sessionsh_dialects[sh->kind];
	struct sessionsh_var		*v;
	struct xbuf			 msg = { NULL, 0, 0 };
	struct xbuf			 fix = { NULL, 0, 0 };
	size_t				 n, i, total, limit;
	long				 max = sysconf(_SC_ARG_MAX);
	const char			*old;
	char				*tmp, *q, *cause = NULL;

	n = sessionsh_sizes(sh, vat, d->at[SESSIONSH_V] +
	    d->len[SESSIONSH_V] - vat, &v);
	/* The kernel's limit on one string, its NUL included. */
	limit = 32 * (size_t)sysconf(_SC_PAGESIZE);
	total = (n + 2) * sizeof (char *);
	for (i = 0; i < n; i++) {
		total += v[i].size + 1;
		if (v[i].size + 1 <= limit)
			continue;
		old = session_getenv(sh->session, v[i].name);
		tmp = xprintf("%s%s is too large to pass to programs: %s=VALUE "
		    "is %zu bytes, at most %zu (MAX_ARG_STRLEN); its export "
		    "is undone: %s %s", msg.len > 0 ? "; " : "", v[i].name,
		    v[i].name, v[i].size, limit - 1, v[i].name, old != NULL ?
		    "has its value from before the line again" : "is unset");
		xbuf_add(&msg, tmp, strlen(tmp));
		free(tmp);
		/* A name that is no identifier is not written back as code. */
		if (!name_is_ident(v[i].name, strlen(v[i].name)))
			continue;
		if (old != NULL) {
			q = expand_shell_quote(old);
			tmp = xprintf("%sexport %s=%s\n", dl->bi, v[i].name, q);
			free(q);
		} else
			tmp = xprintf("%sunset %s\n", dl->bi, v[i].name);
		xbuf_add(&fix, tmp, strlen(tmp));
		free(tmp);
	}
	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);

	if (msg.len > 0 && fix.len > 0 && sh->refused == NULL) {
		sh->refused = msg.s;
		sh->held_output = xstrndup(sh->out.s, d->output);
		sh->held_errors = sessionsh_errors(sh);
		xbuf_clear(&sh->out);
		xbuf_clear(&sh->err);
		if (sessionsh_write_eval(sh, fix.s, &cause) != 0) {
			sessionsh_lost(sh, cause);
			free(cause);
		}
		xbuf_clear(&fix);
		return;
	}
	xbuf_clear(&fix);
	if (sh->refused != NULL)	/* said by sessionsh_lost() */
		tmp = xstrdup("undoing the export did not help");
	else if (msg.len > 0)
		tmp = xprintf("%s; it cannot be undone", msg.s);
	else if (max > 0 && total > (size_t)max)
		tmp = xprintf("the environment is too large to pass to "
		    "programs: %zu variables, %zu bytes with their pointers, "
		    "more than ARG_MAX (%ld)", n, total, max);
	else
		tmp = xprintf("the session shell's state cannot be read: "
		    "env -0 failed (exit status %d)", status);
	xbuf_clear(&msg);
	sessionsh_lost(sh, tmp);
	free(tmp);
}

/* The dump cannot be read (why): the line fails; return -1. */
static int
sessionsh_unreadable(struct sessionsh *sh, const char *why)
{
	char	*msg;

	msg = xprintf("the session shell's state cannot be read: %s", why);
	sessionsh_lost(sh, msg);
	free(msg);
	return -1;
}

/*
 * Check the dump in sh->out: its sections, the line's status (into
 * *status) and cwd (after *ks bytes of S), and env's status.  Return 0
 * when the state can be taken; -1 when it cannot be read (the line
 * fails, the shell is restarted) or env failed (sessionsh_env_failed()).
 */
static int
sessionsh_check_dump(struct sessionsh *sh, struct sessionsh_dump *d,
    size_t *ks, int *status)
{
	const char	*at, *end;
	size_t		 k;
	int		 env_status;

	if (sessionsh_cut(sh, d) != 0)
		return sessionsh_unreadable(sh, "a marker is missing");
	at = d->at[SESSIONSH_S];
	*ks = sessionsh_status(at, d->len[SESSIONSH_S], status);
	/* pwd's output: the cwd (newlines and all) and one newline. */
	if (*ks == 0 || d->len[SESSIONSH_S] < *ks + 2 || at[*ks] != '/' ||
	    at[d->len[SESSIONSH_S] - 1] != '\n' ||
	    memchr(at + *ks, '\0', d->len[SESSIONSH_S] - *ks) != NULL)
		return sessionsh_unreadable(sh, "no status and absolute cwd");
	at = d->at[SESSIONSH_V];
	if ((k = sessionsh_status(at, d->len[SESSIONSH_V], &env_status)) == 0)
		return sessionsh_unreadable(sh, "no status of env");
	if (env_status != 0) {
		sessionsh_env_failed(sh, d, env_status, at + k);
		return -1;
	}
	at = d->at[SESSIONSH_E];
	end = at + d->len[SESSIONSH_E];
	if (at < end && end[-1] != '\0')
		return sessionsh_unreadable(sh, "env's output is cut");
	return 0;
}

/*
 * Take the cwd (after ks bytes of section S) and the environment of the
 * checked dump d as the session's, and the user's own BASH_ENV in it.
 */
static void
sessionsh_take_state(struct sessionsh *sh, const struct sessionsh_dump *d,
    size_t ks)
{
	const char	*p = d->at[SESSIONSH_E];
	const char	*end = p + d->len[SESSIONSH_E];
	char		**env, *cwd, *benv = NULL;
	size_t		  nenv = 0;

	env = xcalloc(1, sizeof *env);
	for (; p < end; p += strlen(p) + 1) {
		env = xreallocarray(env, nenv + 2, sizeof *env);
		env[nenv++] = (char *)p;
		env[nenv] = NULL;
		if (strncmp(p, "BASH_ENV=", 9) == 0)
			benv = (char *)p + 9;
	}
	cwd = xstrndup(d->at[SESSIONSH_S] + ks, d->len[SESSIONSH_S] - ks - 1);
	sessionsh_user_bash_env(sh, benv);
	session_set_state(sh->session, cwd, env);
	free(env);
	free(cwd);
}

/*
 * Take the alias and function names of the dump d, and add the aliases'
 * and functions' definitions to the restore text r.
 */
static void
sessionsh_take_names(struct sessionsh *sh, const struct sessionsh_dump *d,
    struct xbuf *r)
{
	const char	*p = d->at[SESSIONSH_A];
	const char	*end = p + d->len[SESSIONSH_A], *e;
	size_t		 k;

	sessionsh_free_list(sh->aliases);
	sessionsh_free_list(sh->functions);
	if (sh->kind == SESSIONSH_SH) {
		sh->aliases = xcalloc(1, sizeof *sh->aliases);
		for (k = 0; p < end; p = e + 1) {
			e = sessionsh_sh_entry(p, end, NULL);
			if (e == p)
				continue;
			xbuf_add(r, "alias ", 6);
			xbuf_add(r, p, e - p);
			xbuf_add(r, "\n", 1);
			sh->aliases = xreallocarray(sh->aliases, k + 2,
			    sizeof *sh->aliases);
			sh->aliases[k++] = xstrndup(p, strcspn(p, "="));
			sh->aliases[k] = NULL;
		}
	} else {
		xbuf_add(r, p, end - p);
		sh->aliases = sessionsh_split(d->at[SESSIONSH_L],
		    d->len[SESSIONSH_L], '\0', NULL);
	}
	if (sh->kind == SESSIONSH_BASH)
		sh->functions = sessionsh_split(d->at[SESSIONSH_N],
		    d->len[SESSIONSH_N], '\n', "declare -f ");
	else
		sh->functions = sessionsh_split(d->at[SESSIONSH_N],
		    d->len[SESSIONSH_N], '\0', NULL);
	xbuf_add(r, d->at[SESSIONSH_F], d->len[SESSIONSH_F]);
}

/*
 * Remake bash's BASH_ENV file from the restore text r (the user's own
 * BASH_ENV sourced first) when there are aliases or functions to carry
 * or were before, and export it while there are.
 */
static void
sessionsh_write_bash_env(struct sessionsh *sh, const struct xbuf *r)
{
	FILE	*fp;
	char	*path, *q, *cause;

	if (sh->kind != SESSIONSH_BASH || (sh->aliases[0] == NULL &&
	    sh->functions[0] == NULL && sh->bash_env == NULL) ||
	    sessionsh_bash_env(sh) != 0)
		return;
	/* Replaced whole: a job starting now reads one or the other. */
	path = xprintf("%s.new", sh->bash_env);
	if ((fp = fopen(path, "w")) != NULL) {
		fprintf(fp, "shopt -s expand_aliases\n");
		if (sh->user_bash_env != NULL) {
			q = expand_shell_quote(sh->user_bash_env);
			fprintf(fp, "if [ -r %s ]; then . %s; fi\n", q, q);
			free(q);
		}
		if (r->len > 0)
			fwrite(r->s, 1, r->len, fp);
		if (fclose(fp) == 0)
			rename(path, sh->bash_env);
		else
			unlink(path);
	}
	free(path);
	if (sh->aliases[0] != NULL || sh->functions[0] != NULL) {
		path = xprintf("BASH_ENV=%s", sh->bash_env);
		if (session_export(sh->session, path, &cause) != 0)
			free(cause);
		free(path);
	}
}

/*
 * End the line whose dump was taken with status: its output and errors,
 * or, after a fix (whose own output, a trace, is the deck's), the line's
 * held output and errors and what was refused.
 */
static void
sessionsh_end_line(struct sessionsh *sh, const struct sessionsh_dump *d,
    int status)
{
	char	*output, *errors;

	if (sh->refused != NULL) {
		status = -1;
		output = xstrdup(sh->held_output);
		errors = xprintf("%s%s%s", sh->held_errors,
		    *sh->held_errors != '\0' ? "\n" : "", sh->refused);
	} else {
		output = xstrndup(sh->out.s, d->output);
		errors = sessionsh_errors(sh);
	}
	xbuf_clear(&sh->out);
	xbuf_clear(&sh->err);
	sessionsh_cancel_timer(sh);
	sessionsh_finish(sh, status, output, errors);
	free(output);
	free(errors);
}

/*
 * Take a complete dump: the state becomes the session's, the restore
 * text and the BASH_ENV file are remade, and the line's callback runs
 * (or, when env could not dump the environment, sessionsh_env_failed()).
 * A dump that cannot be read is no state: the line fails and the shell
 * is restarted with the last good one.
 */
static void
sessionsh_parsed(struct sessionsh *sh)
{
	struct sessionsh_dump	 d = { 0 };
	struct xbuf		 r = { NULL, 0, 0 };
	size_t			 ks;
	int			 status;

	if (sessionsh_check_dump(sh, &d, &ks, &status) != 0)
		return;
	sessionsh_take_state(sh, &d, ks);
	/* The names, and the restore text: aliases, functions, options. */
	sessionsh_take_names(sh, &d, &r);
	sessionsh_write_bash_env(sh, &r);
	xbuf_add(&r, d.at[SESSIONSH_O], d.len[SESSIONSH_O]);
	free(sh->restore);
	sh->restore = r.s;
	sessionsh_end_line(sh, &d, status);
}

/* The shell is gone or cut: report the line; the next starts another. */
static void
sessionsh_lost(struct sessionsh *sh, const char *why)
{
	char	*msg;
	int	 running = sh->running;

	sessionsh_stop(sh);
	if (sh->head != NULL && running) {
		msg = xprintf("%s%s%s; the session shell is restarted with "
		    "the last good state", sh->refused != NULL ? sh->refused :
		    "", sh->refused != NULL ? "; " : "", why);
		sessionsh_finish(sh, -1, "", msg);
		free(msg);
	}
	sessionsh_next(sh);
}

/* Read what the shell wrote on stdout or stderr; a dump may be complete. */
static void
sessionsh_read_cb(int fd, short revents, void *arg)
{
	struct sessionsh	*sh = arg;
	struct xbuf	*b, *other;
	char			 buf[8192], *why;
	ssize_t			 n;
	size_t			 from, ml = SESSIONSH_MARK_LEN;

	(void)revents;
	n = read(fd, buf, sizeof buf);
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		sessionsh_lost(sh, "the session shell ended");
		return;
	}
	b = fd == sh->out_fd ? &sh->out : &sh->err;
	other = b == &sh->out ? &sh->err : &sh->out;
	if (sh->out.len + sh->err.len + n > SESSIONSH_OUTPUT_MAX) {
		why = xprintf("printed more than %d bytes: %s",
		    SESSIONSH_OUTPUT_MAX, sh->running ? sh->head->line : "");
		sessionsh_lost(sh, why);
		free(why);
		return;
	}
	/* Only the new bytes (and a marker split before them) are looked at. */
	from = b->len > ml ? b->len - ml : 0;
	xbuf_add(b, buf, n);
	if (sh->running && sessionsh_mark(sh, b, 'Z', from) != NULL &&
	    sessionsh_mark(sh, other, 'Z', 0) != NULL) {
		sessionsh_parsed(sh);
		sessionsh_next(sh);
	}
}

/* The line took too long: cut it. */
static void
sessionsh_timeout_cb(void *arg)
{
	struct sessionsh	*sh = arg;
	char			*why;

	sh->timer = 0;
	why = xprintf("timed out after %lld ms: %s",
	    (long long)sh->timeout_ms, sh->head->line);
	sessionsh_lost(sh, why);
	free(why);
}

/* Start the shell in the session's state and feed it the restore text. */
static int
sessionsh_start(struct sessionsh *sh, char **cause)
{
	struct pty_spec	 spec;
	struct pty_child child;
	struct proc	*p;
	char		*argv[2], **env;
	int		 rc;

	memset(&spec, 0, sizeof spec);
	argv[0] = sh->shell;
	argv[1] = NULL;
	env = session_env(sh->session);
	spec.path = sh->shell;
	spec.argv = argv;
	spec.envp = env;
	spec.cwd = session_cwd(sh->session);
	spec.no_pty = 1;
	spec.split_stderr = 1;
	/*
	 * Supervised and contained like a job: its own cgroup (id 0 is the
	 * deck's own).  No marker in its environment, which becomes the
	 * session's: it joins its cgroup itself.
	 */
	p = proc_new(sh->jt != NULL ? jobtable_reaper(sh->jt) : NULL, sh->cg,
	    0, &sessionsh_proc_cbs, sh);
	spec.cgroup_procs = proc_join_fd(p);
	rc = pty_spawn(&spec, &child, cause);
	session_env_free(env);
	if (rc != 0) {
		proc_free(p);
		return -1;
	}
	proc_started(p, child.pid);
	if (child.exec_errno != 0) {
		*cause = xprintf("%s: %s", sh->shell,
		    strerror(child.exec_errno));
		pty_child_close(&child);
		proc_free(p);
		return -1;
	}
	sh->proc = p;
	sh->in_fd = child.in_fd;
	sh->out_fd = child.out_fd;
	sh->err_fd = child.err_fd;
	fcntl(sh->in_fd, F_SETFL, fcntl(sh->in_fd, F_GETFL) | O_NONBLOCK);
	fcntl(sh->out_fd, F_SETFL, fcntl(sh->out_fd, F_GETFL) | O_NONBLOCK);
	fcntl(sh->err_fd, F_SETFL, fcntl(sh->err_fd, F_GETFL) | O_NONBLOCK);
	fcntl(sh->in_fd, F_SETFD, FD_CLOEXEC);
	fcntl(sh->out_fd, F_SETFD, FD_CLOEXEC);
	fcntl(sh->err_fd, F_SETFD, FD_CLOEXEC);
	loop_watch_fd(sh->loop, sh->in_fd, 0, sessionsh_write_cb, sh);
	loop_watch_fd(sh->loop, sh->out_fd, POLLIN, sessionsh_read_cb, sh);
	loop_watch_fd(sh->loop, sh->err_fd, POLLIN, sessionsh_read_cb, sh);
	if (sh->kind == SESSIONSH_BASH)
		sessionsh_send(sh, "shopt -s expand_aliases\n");
	/*
	 * zsh's two compiled-in aliases (run-help, which-command) are its
	 * own, not the session's: it starts with none, as bash and sh do.
	 */
	if (sh->kind == SESSIONSH_ZSH)
		sessionsh_send(sh, "builtin unalias run-help which-command "
		    "2>/dev/null\n");
	if (sh->restore != NULL)
		sessionsh_send(sh, sh->restore);
	return 0;
}

/* Append the epilogue's printf of the marker of section x to b. */
static void
sessionsh_add_mark(struct sessionsh *sh, struct xbuf *b, char x)
{
	char	*tmp;

	tmp = xprintf("%sprintf '\\036jd%s %c\\n'",
	    sessionsh_dialects[sh->kind].bi, sh->token, x);
	xbuf_add(b, tmp, strlen(tmp));
	free(tmp);
}

/*
 * Write text to be eval'd (a line, or the deck's fix of one) and the
 * epilogue that dumps the state it left, under a new token; 0, or -1
 * with *cause.
 */
static int
sessionsh_write_eval(struct sessionsh *sh, const char *text, char **cause)
{
	const struct sessionsh_dialect	*dl = &sessionsh_dialects[sh->kind];
	struct xbuf			 b = { NULL, 0, 0 };
	char				*body[SESSIONSH_SECTIONS] = { NULL };
	char				*tmp;
	int				 i;

	if (sessionsh_new_token(sh, cause) != 0)
		return -1;
	body[SESSIONSH_S] = xprintf("%sprintf '%%d\\n' \"$__jd_s\"; %spwd",
	    dl->bi, dl->bi);
	body[SESSIONSH_E] = xprintf("__jd_e=0; %s -0 || __jd_e=$?", sh->env);
	body[SESSIONSH_V] = xprintf("%sprintf '%%d\\n' \"$__jd_e\"; "
	    "case $__jd_e in 0) ;; *) %s;; esac", dl->bi, dl->sizes);
	body[SESSIONSH_A] = xstrdup(dl->al);
	body[SESSIONSH_L] = xstrdup(dl->aln);
	body[SESSIONSH_F] = xstrdup(dl->fn);
	body[SESSIONSH_N] = xstrdup(dl->nm);
	body[SESSIONSH_O] = xstrdup(dl->op);
	/*
	 * After || no `set -e` ends the shell before its state is told;
	 * the dump's own stderr (a `set -x` trace of it) goes nowhere, and
	 * its last marker reaches the real stderr through fd 3.
	 */
	xbuf_add(&b, "{ __jd_s=0; } 2>/dev/null; eval ", 32);
	tmp = expand_shell_quote(text);
	xbuf_add(&b, tmp, strlen(tmp));
	free(tmp);
	xbuf_add(&b, " </dev/null || __jd_s=$?\n{ ", 27);
	for (i = 0; i < SESSIONSH_SECTIONS; i++) {
		sessionsh_add_mark(sh, &b, sessionsh_letters[i]);
		xbuf_add(&b, "; ", 2);
		if (body[i] != NULL) {
			xbuf_add(&b, body[i], strlen(body[i]));
			xbuf_add(&b, "; ", 2);
			free(body[i]);
		}
	}
	sessionsh_add_mark(sh, &b, 'Z');
	xbuf_add(&b, " >&3; } 3>&2 2>/dev/null\n", 25);
	sessionsh_send(sh, b.s);
	xbuf_clear(&b);
	return 0;
}

/*
 * Run what is next in the queue: callbacks at once, a line when idle,
 * starting the shell again first if it is gone.
 */
static void
sessionsh_next(struct sessionsh *sh)
{
	char	*cause = NULL, *msg;

	while (sh->head != NULL && !sh->running) {
		if (sh->head->line == NULL) {
			sessionsh_finish(sh, 0, "", "");
			continue;
		}
		if (sh->in_fd == -1 && sessionsh_start(sh, &cause) != 0) {
			msg = xprintf("the session shell cannot start: %s",
			    cause);
			free(cause);
			cause = NULL;
			sessionsh_finish(sh, -1, "", msg);
			free(msg);
			continue;
		}
		if (sessionsh_write_eval(sh, sh->head->line, &cause) != 0) {
			sessionsh_finish(sh, -1, "", cause);
			free(cause);
			cause = NULL;
			continue;
		}
		sh->running = 1;
		sh->timer = loop_add_timer(sh->loop, sh->timeout_ms,
		    sessionsh_timeout_cb, sh);
	}
}

/* Queue an item; 0, or -1 with *cause when the queue is full. */
static int
sessionsh_queue(struct sessionsh *sh, const char *line,
    sessionsh_done_cb *done, void *arg, char **cause)
{
	struct sessionsh_item	*it;

	if (sh->count >= SESSIONSH_QUEUE_MAX) {
		*cause = xprintf("the session shell has %d lines waiting",
		    sh->count);
		return -1;
	}
	it = xcalloc(1, sizeof *it);
	it->line = line != NULL ? xstrdup(line) : NULL;
	it->done = done;
	it->arg = arg;
	if (sh->tail != NULL)
		sh->tail->next = it;
	else
		sh->head = it;
	sh->tail = it;
	sh->count++;
	sessionsh_next(sh);
	return 0;
}

/* Whether nothing is queued or running. */
int
sessionsh_idle(const struct sessionsh *sh)
{
	return sh->head == NULL;
}

/* Queue a line of session commands; done is called when it has run. */
int
sessionsh_run(struct sessionsh *sh, const char *line, sessionsh_done_cb *done,
    void *arg, char **cause)
{
	return sessionsh_queue(sh, line, done, arg, cause);
}

/* Queue done to be called once every line queued before is done. */
int
sessionsh_then(struct sessionsh *sh, sessionsh_done_cb *done, void *arg,
    char **cause)
{
	return sessionsh_queue(sh, NULL, done, arg, cause);
}

/* Return the shell's path. */
const char *
sessionsh_shell(const struct sessionsh *sh)
{
	return sh->shell;
}

/* Return the session's alias names, NULL-terminated. */
char *const *
sessionsh_aliases(const struct sessionsh *sh)
{
	return sh->aliases;
}

/* Return the session's function names, NULL-terminated. */
char *const *
sessionsh_functions(const struct sessionsh *sh)
{
	return sh->functions;
}
