/*
 * fuzz_expand.c: fuzz target for the templating (include/expand.h).  The
 * input is lines: the first is the template, then "$NAME=value" lines make
 * the environment and "key=value" lines the parameters ("key" alone: a
 * NULL value).  The template is expanded with and without EXPAND_SHELL and
 * with and without the environment, and each value (and the template) goes
 * through expand_shell_quote().  What is checked, from expand.h and the
 * rules at the top of src/expand.c:
 *
 *   - a result or a cause, never both, and no result over the limit;
 *   - without EXPAND_SHELL, whether a template is valid does not depend on
 *     the environment (only the result's length may);
 *   - a template without '$' or '{' comes back unchanged;
 *   - expand_shell_quote(v) reads back as the one word v (session_split());
 *   - with EXPAND_SHELL, a template made only of characters that
 *     session_split() reads as sh does (words, blanks, quotes, backslashes)
 *     and of {key} parameters splits into the words the template would
 *     give if each {key} were replaced by its value as literal text: a
 *     value never changes how the command is parsed;
 *   - expand_command(): the template as the word after sh -c gives what
 *     expand_text() with EXPAND_SHELL gives, as a command string for sh
 *     the same or a refusal, and as a command string for fish or as
 *     python's -c code either no value at all or a refusal; a result or a
 *     cause, never both, and the error's field is where the template is.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "expand.h"
#include "fuzz.h"
#include "session.h"
#include "xmalloc.h"

/* How many environment entries and parameters one input may give. */
#define FUZZ_EXPAND_MAX		64

/* Template characters session_split() and sh read alike (no $ ` # etc.). */
#define FUZZ_EXPAND_SAFE \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789" \
	" \t_./=-+,:@%^!'\"\\"

/* Stands for a parameter in the template before it is split. */
#define FUZZ_EXPAND_MARK	'\001'

/* The environment of one input: NAME=value strings inside the input copy. */
struct fuzz_expand_env {
	const char	*name[FUZZ_EXPAND_MAX];
	const char	*value[FUZZ_EXPAND_MAX];
	size_t		 n;
};

static struct session	*fuzz_expand_session;

/* Look name up in the input's environment (struct expand_env.get). */
static const char *
fuzz_expand_get(const char *name, void *arg)
{
	struct fuzz_expand_env	*e = arg;
	size_t			 i;

	for (i = 0; i < e->n; i++) {
		if (strcmp(e->name[i], name) == 0)
			return e->value[i];
	}
	return NULL;
}

/* Abort unless expand_shell_quote(value) splits back into value alone. */
static void
fuzz_expand_quote(const char *value)
{
	char	*q, *cause = NULL, **argv;
	int	 argc;

	q = expand_shell_quote(value);
	if (session_split(fuzz_expand_session, q, &argc, &argv, &cause) != 0)
		abort();
	if (argc != 1 || strcmp(argv[0], value) != 0)
		abort();
	session_split_free(argc, argv);
	free(q);
}

/*
 * Check the round trip of result, the EXPAND_SHELL expansion of tmpl, when
 * tmpl is simple enough: split it with a mark for each {key}, put the
 * values in the marks' place, and compare with the split result.
 */
static void
fuzz_expand_words(const char *tmpl, const struct expand_param *params,
    size_t nparams, const char *result)
{
	const char	 *values[256], *p, *q, *v;
	char		 *marked, *m, **want, **got, *cause = NULL, *w;
	size_t		  nvalues = 0, len, i, k, used = 0;
	int		  nwant, ngot, j;

	m = marked = xmalloc(strlen(tmpl) + 1);
	for (p = tmpl; *p != '\0'; p++) {
		if (*p == '{') {
			if (p > tmpl && p[-1] == '\\')
				goto out;
			for (q = p + 1; *q == '_' || (*q >= 'A' && *q <= 'Z') ||
			    (*q >= 'a' && *q <= 'z') || (*q >= '0' &&
			    *q <= '9'); q++)
				/* nothing */;
			len = (size_t)(q - p - 1);
			if (*q != '}' || len == 0 || (p[1] >= '0' &&
			    p[1] <= '9') || nvalues == 256)
				goto out;
			for (i = 0; i < nparams; i++) {
				if (strlen(params[i].key) == len &&
				    memcmp(params[i].key, p + 1, len) == 0)
					break;
			}
			if (i == nparams)
				goto out;
			v = params[i].value == NULL ? "" : params[i].value;
			if (strchr(v, FUZZ_EXPAND_MARK) != NULL)
				goto out;
			values[nvalues++] = v;
			*m++ = FUZZ_EXPAND_MARK;
			p = q;
		} else if (strchr(FUZZ_EXPAND_SAFE, *p) == NULL)
			goto out;
		else
			*m++ = *p;
	}
	*m = '\0';
	if (session_split(fuzz_expand_session, marked, &nwant, &want,
	    &cause) != 0) {
		free(cause);
		goto out;
	}
	if (session_split(fuzz_expand_session, result, &ngot, &got,
	    &cause) != 0 || ngot != nwant)
		abort();
	for (j = 0; j < nwant; j++) {
		w = got[j];
		for (p = want[j]; *p != '\0'; p++) {
			if (*p != FUZZ_EXPAND_MARK) {
				if (*w++ != *p)
					abort();
				continue;
			}
			if (used == nvalues)
				abort();
			k = strlen(values[used]);
			if (strncmp(w, values[used], k) != 0)
				abort();
			w += k;
			used++;
		}
		if (*w != '\0')
			abort();
	}
	session_split_free(nwant, want);
	session_split_free(ngot, got);
out:
	free(marked);
}

/*
 * Expand tmpl with flags, with env and without; check what can be checked
 * and return the result with env, or NULL.
 */
static char *
fuzz_expand_one(const char *tmpl, struct fuzz_expand_env *e,
    const struct expand_param *params, size_t nparams, int flags)
{
	const struct expand_env	 env = { fuzz_expand_get };
	const struct expand_env	 noget = { NULL };
	char			*r, *r0, *r1, *cause = NULL, *cause0 = NULL;
	char			*cause1 = NULL;

	r = expand_text(tmpl, &env, e, params, nparams, flags, &cause);
	r0 = expand_text(tmpl, NULL, NULL, params, nparams, flags, &cause0);
	r1 = expand_text(tmpl, &noget, NULL, params, nparams, flags, &cause1);
	if ((r == NULL) == (cause == NULL) || (r0 == NULL) == (cause0 == NULL))
		abort();
	if (r != NULL && strlen(r) > EXPAND_MAX_OUTPUT)
		abort();
	/* No lookup at all and a lookup without get are the same. */
	if ((r0 == NULL) != (r1 == NULL) || (r0 != NULL && strcmp(r0, r1) != 0))
		abort();
	/* Without EXPAND_SHELL only the length can depend on the env. */
	if (!(flags & EXPAND_SHELL) && (r == NULL) != (r0 == NULL) &&
	    strstr(r == NULL ? cause : cause0, "longer than") == NULL)
		abort();
	/* Nothing to expand: the text itself. */
	if (strpbrk(tmpl, "${") == NULL && strlen(tmpl) < EXPAND_MAX_OUTPUT &&
	    (r == NULL || strcmp(r, tmpl) != 0 || r0 == NULL ||
	    strcmp(r0, tmpl) != 0))
		abort();
	free(r0);
	free(r1);
	free(cause);
	free(cause0);
	free(cause1);
	return r;
}

/*
 * Expand the template tmpl through expand_command() where sh -c, sh, fish
 * and python -c read it, and check it against expand_text().
 */
static void
fuzz_expand_command(const char *tmpl, struct fuzz_expand_env *e,
    const struct expand_param *params, size_t nparams)
{
	const struct expand_env	 env = { fuzz_expand_get };
	struct expand_command	 c;
	struct expand_result	 res;
	char			*args[4], *want, *cause = NULL, *none;
	int			 r;

	want = expand_text(tmpl, &env, e, params, nparams, EXPAND_SHELL,
	    &cause);
	free(cause);
	cause = NULL;

	/* After sh -c --: exactly expand_text() with EXPAND_SHELL. */
	memset(&c, 0, sizeof c);
	c.command = "sh";
	args[0] = "-c";
	args[1] = "--";
	args[2] = (char *)tmpl;
	args[3] = NULL;
	c.args = args;
	c.nargs = 3;
	r = expand_command(&c, &env, e, params, nparams, &res, &cause);
	if ((r == 0) != (cause == NULL) || (r == 0) != (want != NULL))
		abort();
	if (r == 0 && strcmp(res.args[2], want) != 0)
		abort();
	if (r != 0 && (res.field != EXPAND_IN_ARG || res.index != 2))
		abort();
	expand_result_clear(&res);
	free(cause);
	cause = NULL;

	/* A command string for sh: the same, or refused for its words. */
	c.args = NULL;
	c.nargs = 0;
	c.command = tmpl;
	c.shell = "/bin/sh";
	r = expand_command(&c, &env, e, params, nparams, &res, &cause);
	if ((r == 0) != (cause == NULL) || (r == 0 && want == NULL))
		abort();
	if (r == 0 && strcmp(res.command, want) != 0)
		abort();
	expand_result_clear(&res);
	free(cause);
	cause = NULL;

	/* For fish, and as python -c code: no value gets in. */
	none = expand_text(tmpl, &env, e, NULL, 0, 0, &cause);
	free(cause);
	cause = NULL;
	c.shell = "/usr/bin/fish";
	r = expand_command(&c, &env, e, params, nparams, &res, &cause);
	if (r == 0 && (none == NULL || strcmp(res.command, none) != 0))
		abort();
	expand_result_clear(&res);
	free(cause);
	cause = NULL;
	c.command = "python3";
	c.shell = NULL;
	args[1] = (char *)tmpl;
	args[2] = NULL;
	c.args = args;
	c.nargs = 2;
	r = expand_command(&c, &env, e, params, nparams, &res, &cause);
	if (r == 0 && (none == NULL || strcmp(res.args[1], none) != 0))
		abort();
	expand_result_clear(&res);
	free(cause);
	free(none);
	free(want);
}

/* Split the input into template, environment and params; expand. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char		*environ_fixed[] = { "HOME=/home/fuzz",
				    "PATH=/bin:/usr/bin", NULL };
	struct fuzz_expand_env	 e;
	struct expand_param	 params[FUZZ_EXPAND_MAX];
	size_t			 nparams = 0, i;
	char			*buf, *line, *next, *eq, *r;

	if (fuzz_expand_session == NULL)
		fuzz_expand_session = session_new(environ_fixed);

	buf = xmalloc(size + 1);
	memcpy(buf, data, size);
	buf[size] = '\0';
	e.n = 0;
	next = strchr(buf, '\n');
	if (next != NULL)
		*next++ = '\0';
	while ((line = next) != NULL) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		eq = strchr(line, '=');
		if (eq != NULL)
			*eq++ = '\0';
		if (line[0] == '$' && e.n < FUZZ_EXPAND_MAX) {
			e.name[e.n] = line + 1;
			e.value[e.n++] = eq == NULL ? "" : eq;
		} else if (line[0] != '$' && nparams < FUZZ_EXPAND_MAX) {
			params[nparams].key = line;
			params[nparams++].value = eq;
		}
	}

	r = fuzz_expand_one(buf, &e, params, nparams, 0);
	free(r);
	r = fuzz_expand_one(buf, &e, params, nparams, EXPAND_SHELL);
	if (r != NULL)
		fuzz_expand_words(buf, params, nparams, r);
	free(r);
	fuzz_expand_command(buf, &e, params, nparams);

	fuzz_expand_quote(buf);
	for (i = 0; i < nparams; i++) {
		if (params[i].value != NULL)
			fuzz_expand_quote(params[i].value);
	}
	free(buf);
	return 0;
}
