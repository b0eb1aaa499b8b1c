/*
 * sessionsh.c: the session's persistent shell, driven on the loop.
 *
 * Each line is written as
 *	{ __jd_s=0; } 2>/dev/null; eval 'LINE' </dev/null || __jd_s=$?
 * (quoted, so an unfinished quote is the line's syntax error, not ours,
 * with stdin closed so the line cannot eat what follows, and after ||
 * so that `set -e` cannot end the shell), then an epilogue, its own
 * stderr (a trace) thrown away, that prints, each part after a marker
 * "\036jdSEQ X" line:
 * S the status and cwd, E `env -0`, A the aliases, F the function
 * definitions, N the function names, O the options and umask, and Z on
 * both stdout and stderr.  The line is done when both Z markers came.
 * What came before S is the line's output; stderr before Z its errors.
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

#include "cgroup.h"
#include "expand.h"
#include "jobtable.h"
#include "loop.h"
#include "pty.h"
#include "session.h"
#include "sessionsh.h"
#include "xmalloc.h"

enum sessionsh_kind {
	SESSIONSH_SH,
	SESSIONSH_BASH,
	SESSIONSH_ZSH
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
	struct cgroup_job	*cgj;		/* ... this run of it */
	char			*shell;
	enum sessionsh_kind	 kind;
	int64_t			 timeout_ms;

	pid_t			 pid;
	int			 in_fd;
	int			 out_fd;
	int			 err_fd;
	struct xbuf	 wbuf;	/* to write to the shell */
	struct xbuf	 out;
	struct xbuf	 err;
	uint64_t		 timer;
	unsigned		 seq;

	struct sessionsh_item	*head;
	struct sessionsh_item	*tail;
	int			 count;
	int			 running;	/* head's line was written */

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

/* Free a NULL-terminated array of strings. */
static void
sessionsh_free_list(char **l)
{
	size_t	i;

	for (i = 0; l != NULL && l[i] != NULL; i++)
		free(l[i]);
	free(l);
}

/* Split text into its non-empty lines, each through fix (or as is). */
static char **
sessionsh_lines(const char *text, size_t len, char *(*fix)(const char *,
    size_t))
{
	const char	*p = text, *end = text + len, *nl;
	char		**l = NULL;
	size_t		  n = 0;

	while (p < end) {
		if ((nl = memchr(p, '\n', end - p)) == NULL)
			nl = end;
		if (nl > p) {
			l = xreallocarray(l, n + 2, sizeof *l);
			l[n++] = fix != NULL ? fix(p, nl - p) :
			    xstrndup(p, nl - p);
			l[n] = NULL;
		}
		p = nl + 1;
	}
	if (l == NULL)
		l = xcalloc(1, sizeof *l);
	return l;
}

/* The name an alias line defines: "alias ll='ls -l'" or "ll='ls -l'". */
static char *
sessionsh_alias_name(const char *p, size_t len)
{
	const char	*eq;

	if (len > 6 && strncmp(p, "alias ", 6) == 0) {
		p += 6;
		len -= 6;
		if (len > 3 && strncmp(p, "-- ", 3) == 0) {
			p += 3;
			len -= 3;
		}
	}
	if ((eq = memchr(p, '=', len)) != NULL)
		len = eq - p;
	return xstrndup(p, len);
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

	sh = xcalloc(1, sizeof *sh);
	sh->loop = loop;
	sh->jt = jt;
	sh->cg = cg;
	sh->session = session;
	sh->timeout_ms = timeout_ms > 0 ? timeout_ms : SESSIONSH_TIMEOUT_MS;
	sh->shell = xstrdup(session_shell(session));
	sh->pid = -1;
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
	sessionsh_free_list(sh->aliases);
	sessionsh_free_list(sh->functions);
	xbuf_clear(&sh->wbuf);
	free(sh->shell);
	free(sh);
}

/* The shell ended on its own: noted; the next line starts another. */
static void
sessionsh_exited(pid_t pid, int status, void *arg)
{
	struct sessionsh	*sh = arg;

	(void)status;
	if (pid != sh->pid)
		return;
	sh->pid = -1;
	/*
	 * Gone with a line running (`exit`): say so now, from the loop,
	 * rather than wait for its pipes, which something it left in the
	 * background may hold, or for the time limit.
	 */
	if (sh->running) {
		if (sh->timer != 0)
			loop_cancel_timer(sh->loop, sh->timer);
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

/* Kill the shell's session and close its pipes. */
static void
sessionsh_stop(struct sessionsh *sh)
{
	if (sh->timer != 0) {
		loop_cancel_timer(sh->loop, sh->timer);
		sh->timer = 0;
	}
	if (sh->pid > 0) {
		if (sh->jt != NULL)
			jobtable_unwatch_pid(sh->jt, sh->pid);
		kill(-sh->pid, SIGKILL);
		kill(sh->pid, SIGKILL);
		if (sh->cgj != NULL)
			cgroup_job_signal(sh->cgj, SIGKILL);
		if (sh->jt == NULL)
			while (waitpid(sh->pid, NULL, 0) == -1 &&
			    errno == EINTR)
				;
		sh->pid = -1;
	}
	if (sh->cgj != NULL) {
		cgroup_job_release(sh->cgj);
		sh->cgj = NULL;
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

/* Find "\036jdSEQ X\n" in b from *from; its start, or NULL. */
static char *
sessionsh_mark(struct sessionsh *sh, struct xbuf *b, char x,
    size_t from)
{
	char	mark[32];
	int	n;

	n = snprintf(mark, sizeof mark, "\036jd%u %c\n", sh->seq, x);
	if (b->s == NULL || from > b->len)
		return NULL;
	return memmem(b->s + from, b->len - from, mark, n);
}

/* Return the length of a "\036jdSEQ X\n" marker. */
static size_t
sessionsh_mark_len(struct sessionsh *sh)
{
	char	mark[32];

	return snprintf(mark, sizeof mark, "\036jd%u X\n", sh->seq);
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

/*
 * Take a complete dump: the state becomes the session's, the restore
 * text and the BASH_ENV file are remade, and the line's callback runs.
 */
static void
sessionsh_parsed(struct sessionsh *sh)
{
	struct xbuf	 r = { NULL, 0, 0 };
	char			*s, *e, *a, *f, *n, *o, *z, *cwd, *output;
	char			**env = NULL, **errs, *errors, *tmp, *p;
	char			*benv = NULL, *q;
	size_t			 ml = sessionsh_mark_len(sh), nenv = 0, i;
	int			 status;
	FILE			*fp;

	if ((s = sessionsh_mark(sh, &sh->out, 'S', 0)) == NULL ||
	    (e = sessionsh_mark(sh, &sh->out, 'E', s - sh->out.s)) == NULL ||
	    (a = sessionsh_mark(sh, &sh->out, 'A', e - sh->out.s)) == NULL ||
	    (f = sessionsh_mark(sh, &sh->out, 'F', a - sh->out.s)) == NULL ||
	    (n = sessionsh_mark(sh, &sh->out, 'N', f - sh->out.s)) == NULL ||
	    (o = sessionsh_mark(sh, &sh->out, 'O', n - sh->out.s)) == NULL ||
	    (z = sessionsh_mark(sh, &sh->out, 'Z', o - sh->out.s)) == NULL) {
		sessionsh_lost(sh, "the session shell's state cannot be read");
		return;
	}

	output = xstrndup(sh->out.s, s - sh->out.s);
	status = atoi(s + ml);
	cwd = strchr(s + ml, '\n') + 1;
	cwd = xstrndup(cwd, e - cwd);
	cwd[strcspn(cwd, "\n")] = '\0';
	for (p = e + ml; p < a; p += strlen(p) + 1) {
		if (memchr(p, '\0', a - p) == NULL)
			break;
		env = xreallocarray(env, nenv + 2, sizeof *env);
		env[nenv++] = p;
		env[nenv] = NULL;
		if (strncmp(p, "BASH_ENV=", 9) == 0)
			benv = p + 9;
	}
	sessionsh_user_bash_env(sh, benv);
	if (cwd[0] == '/' && env != NULL)
		session_set_state(sh->session, cwd, env);
	free(env);

	sessionsh_free_list(sh->aliases);
	sh->aliases = sessionsh_lines(a + ml, f - a - ml,
	    sessionsh_alias_name);
	sessionsh_free_list(sh->functions);
	sh->functions = sessionsh_lines(n + ml, o - n - ml, NULL);
	for (i = 0; sh->functions[i] != NULL; i++) {
		if (strncmp(sh->functions[i], "declare -f ", 11) == 0)
			memmove(sh->functions[i], sh->functions[i] + 11,
			    strlen(sh->functions[i] + 11) + 1);
	}

	/* The restore text: aliases, functions, options, umask. */
	for (p = a + ml; p < f; p = tmp + 1) {
		if ((tmp = memchr(p, '\n', f - p)) == NULL)
			tmp = f;
		if (tmp == p)
			continue;
		if (sh->kind == SESSIONSH_SH && strncmp(p, "alias ", 6) != 0)
			xbuf_add(&r, "alias ", 6);
		xbuf_add(&r, p, tmp - p);
		xbuf_add(&r, "\n", 1);
	}
	xbuf_add(&r, f + ml, n - f - ml);
	if (sh->kind == SESSIONSH_BASH && (sh->aliases[0] != NULL ||
	    sh->functions[0] != NULL || sh->bash_env != NULL) &&
	    sessionsh_bash_env(sh) == 0) {
		/* Replaced whole: a job starting now reads one or the other. */
		tmp = xprintf("%s.new", sh->bash_env);
		if ((fp = fopen(tmp, "w")) != NULL) {
			fprintf(fp, "shopt -s expand_aliases\n");
			if (sh->user_bash_env != NULL) {
				q = expand_shell_quote(sh->user_bash_env);
				fprintf(fp, "if [ -r %s ]; then . %s; fi\n",
				    q, q);
				free(q);
			}
			fprintf(fp, "%s", r.s != NULL ? r.s : "");
			if (fclose(fp) == 0)
				rename(tmp, sh->bash_env);
			else
				unlink(tmp);
		}
		free(tmp);
		if (sh->aliases[0] != NULL || sh->functions[0] != NULL) {
			tmp = xprintf("BASH_ENV=%s", sh->bash_env);
			session_export(sh->session, tmp, &errors);
			free(tmp);
		}
	}
	xbuf_add(&r, o + ml, z - o - ml);
	free(sh->restore);
	sh->restore = r.s;

	z = sessionsh_mark(sh, &sh->err, 'Z', 0);
	errs = sessionsh_lines(sh->err.s, z - sh->err.s, NULL);
	r.s = NULL;
	r.len = r.size = 0;
	for (i = 0; errs[i] != NULL; i++) {
		if (i > 0)
			xbuf_add(&r, "\n", 1);
		tmp = sessionsh_fix_error(sh, errs[i], strlen(errs[i]));
		xbuf_add(&r, tmp, strlen(tmp));
		free(tmp);
	}
	sessionsh_free_list(errs);
	errors = r.s != NULL ? r.s : xstrdup("");

	xbuf_clear(&sh->out);
	xbuf_clear(&sh->err);
	if (sh->timer != 0) {
		loop_cancel_timer(sh->loop, sh->timer);
		sh->timer = 0;
	}
	sessionsh_finish(sh, status, output, errors);
	free(output);
	free(errors);
	free(cwd);
}

/* The shell is gone or cut: report the line; the next starts another. */
static void
sessionsh_lost(struct sessionsh *sh, const char *why)
{
	char	*msg;
	int	 running = sh->running;

	sessionsh_stop(sh);
	if (sh->head != NULL && running) {
		msg = xprintf("%s; the session shell is restarted with the "
		    "last good state", why);
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
	size_t			 from, ml = sessionsh_mark_len(sh);

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
	/* Contained like a job: its own cgroup (id 0 is the deck's own). */
	if (sh->cg != NULL)
		sh->cgj = cgroup_job_new(sh->cg, 0);
	spec.cgroup_procs = sh->cgj != NULL ? cgroup_job_procs_fd(sh->cgj) :
	    -1;
	rc = pty_spawn(&spec, &child, cause);
	session_env_free(env);
	if (rc != 0) {
		if (sh->cgj != NULL) {
			cgroup_job_release(sh->cgj);
			sh->cgj = NULL;
		}
		return -1;
	}
	if (sh->cgj != NULL)
		cgroup_job_started(sh->cgj, child.pid);
	if (child.exec_errno != 0) {
		*cause = xprintf("%s: %s", sh->shell,
		    strerror(child.exec_errno));
		pty_child_close(&child);
		return -1;
	}
	sh->pid = child.pid;
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
	if (sh->jt != NULL)
		jobtable_watch_pid(sh->jt, sh->pid, sessionsh_exited, sh);
	if (sh->kind == SESSIONSH_BASH)
		sessionsh_send(sh, "shopt -s expand_aliases\n");
	if (sh->restore != NULL)
		sessionsh_send(sh, sh->restore);
	return 0;
}

/* Quote s for the shell in single quotes, appended to b. */
static void
sessionsh_quote(struct xbuf *b, const char *s)
{
	xbuf_add(b, "'", 1);
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			xbuf_add(b, "'\\''", 4);
		else
			xbuf_add(b, s, 1);
	}
	xbuf_add(b, "'", 1);
}

/* Write the head's line and its epilogue to the shell. */
static void
sessionsh_write_line(struct sessionsh *sh)
{
	struct xbuf	 b = { NULL, 0, 0 };
	const char		*al, *fn, *nm, *op;
	char			*ep;
	unsigned		 q;

	switch (sh->kind) {
	case SESSIONSH_BASH:
		al = "alias";
		fn = "declare -f";
		nm = "declare -F";
		op = "set +o; shopt -p; umask -p";
		break;
	case SESSIONSH_ZSH:
		al = "alias -L";
		fn = "functions";
		nm = "print -rl -- ${(k)functions}";
		op = "printf 'umask %s\\n' \"$(umask)\"";
		break;
	default:
		al = "alias";
		fn = ":";
		nm = ":";
		op = "set +o; printf 'umask %s\\n' \"$(umask)\"";
		break;
	}
	q = ++sh->seq;
	/*
	 * After || no `set -e` ends the shell before its state is told;
	 * the dump's own stderr (a `set -x` trace of it) goes nowhere, and
	 * its last marker reaches the real stderr through fd 3.
	 */
	xbuf_add(&b, "{ __jd_s=0; } 2>/dev/null; eval ", 32);
	sessionsh_quote(&b, sh->head->line);
	ep = xprintf(" </dev/null || __jd_s=$?\n"
	    "{ printf '\\036jd%u S\\n%%d\\n' \"$__jd_s\"; pwd; "
	    "printf '\\036jd%u E\\n'; env -0; printf '\\036jd%u A\\n'; %s; "
	    "printf '\\036jd%u F\\n'; %s; printf '\\036jd%u N\\n'; %s; "
	    "printf '\\036jd%u O\\n'; %s; printf '\\036jd%u Z\\n'; "
	    "printf '\\036jd%u Z\\n' >&3; } 3>&2 2>/dev/null\n", q, q, q, al,
	    q, fn, q, nm, q, op, q, q);
	xbuf_add(&b, ep, strlen(ep));
	free(ep);
	sessionsh_send(sh, b.s);
	xbuf_clear(&b);
	sh->running = 1;
	sh->timer = loop_add_timer(sh->loop, sh->timeout_ms,
	    sessionsh_timeout_cb, sh);
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
		sessionsh_write_line(sh);
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
