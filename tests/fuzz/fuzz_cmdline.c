/*
 * fuzz_cmdline.c: fuzz target for the command line: session_split()
 * (include/session.h) and cmd_find() (include/cmd.h).  The input is what
 * a user types at the prompt, one line per "\n" (the prompt never gives a
 * line with a newline in it), run on one fresh session per input.  Each
 * line is split into words; the first word, without its '!', is looked up
 * with cmd_find(); an `export` or `unset` line changes the session, so
 * later lines see the change through $NAME.  What is checked:
 *
 *   - a split gives words or a cause, and argv[argc] is NULL;
 *   - cmd_find() gives an entry whose name or alias starts with the word,
 *     or NULL with "unknown command: !..." or "ambiguous command: !...";
 *   - after `export NAME=VALUE` the session has NAME=VALUE, after `unset
 *     NAME` it has no NAME, and session_env() is NAME=VALUE strings.
 *
 * The control socket's requests go through the same session_split() and
 * cmd_find(); see the CTL marker below for its own request parser.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "fuzz.h"
#include "session.h"
#include "xmalloc.h"

/* Abort unless cmd_find() kept its promises for word. */
static void
fuzz_cmdline_find(const char *word)
{
	const struct cmd_entry	*e;
	char			*cause = NULL;
	size_t			 len = strlen(word);

	e = cmd_find(word, &cause);
	if (e == NULL) {
		if (cause == NULL ||
		    (strncmp(cause, "unknown command: !", 18) != 0 &&
		    strncmp(cause, "ambiguous command: !", 20) != 0))
			abort();
		free(cause);
		return;
	}
	if (cause != NULL || e->name == NULL || e->exec == NULL)
		abort();
	if (strncmp(e->name, word, len) != 0 &&
	    (e->alias == NULL || strcmp(e->alias, word) != 0))
		abort();
	if (e->max_args != -1 && e->max_args < e->min_args)
		abort();
}

/* Apply export or unset with args to s and check the session after it. */
static void
fuzz_cmdline_builtin(struct session *s, int unset, int argc, char **argv)
{
	const char	*eq, *v;
	char		*cause, *name;
	size_t		 len, vlen, wlen;
	int		 i, rc, append;

	for (i = 1; i < argc; i++) {
		cause = NULL;
		if (unset)
			rc = session_unset(s, argv[i], &cause);
		else
			rc = session_export(s, argv[i], &cause);
		if (rc != 0) {
			if (cause == NULL)
				abort();
			free(cause);
			continue;
		}
		eq = unset ? NULL : strchr(argv[i], '=');
		len = eq == NULL ? strlen(argv[i]) : (size_t)(eq - argv[i]);
		append = eq != NULL && len > 0 && argv[i][len - 1] == '+';
		if (append)
			len--;
		name = xstrndup(argv[i], len);
		v = session_getenv(s, name);
		/* The session keeps its own PWD whatever is asked. */
		if (strcmp(name, "PWD") == 0) {
			free(name);
			continue;
		}
		if (unset) {
			if (v != NULL)
				abort();
		} else if (v == NULL)
			abort();
		else if (append) {
			vlen = strlen(v);
			wlen = strlen(eq + 1);
			if (vlen < wlen || strcmp(v + vlen - wlen, eq + 1) != 0)
				abort();
		} else if (eq != NULL && strcmp(v, eq + 1) != 0)
			abort();
		free(name);
	}
}

/*
 * Cut line into an and-or list and find its raw tails: every part must lie
 * inside the line, in order, with no blank at either end; a tail must be
 * inside the line too, and exist exactly for the words the line has.
 */
static void
fuzz_cmdline_list(const char *line)
{
	struct session_list	 l;
	const char		*end = line + strlen(line), *prev = line;
	const char		*tail;
	char			*cause = NULL;
	int			 i, total = -1;

	if (session_split_list(line, &l, &cause) != 0) {
		if (cause == NULL || l.parts != NULL || l.count != 0)
			abort();
		free(cause);
	} else {
		for (i = 0; i < l.count; i++) {
			const struct session_part *p = &l.parts[i];

			if (p->text < prev || p->text + p->len > end ||
			    p->len == 0 || p->text[0] == ' ' ||
			    p->text[p->len - 1] == ' ' ||
			    (i == 0) != (p->op == SESSION_OP_NONE))
				abort();
			prev = p->text + p->len;
		}
		session_list_clear(&l);
	}
	if ((tail = session_raw_tail(line, 0, &total)) == NULL)
		return;
	if (tail < line || tail > end || total < 0 ||
	    session_raw_tail(line, total, &i) == NULL ||
	    session_raw_tail(line, total + 1, &i) != NULL)
		abort();
}

/* Split one line, look its command up, run export and unset. */
static void
fuzz_cmdline_line(struct session *s, const char *line)
{
	char		**argv = NULL, *cause = NULL;
	const char	 *word;
	int		  argc = -1;

	fuzz_cmdline_list(line);
	if (session_split(s, line, &argc, &argv, &cause) != 0) {
		if (cause == NULL || argv != NULL || argc != 0)
			abort();
		free(cause);
		return;
	}
	if (cause != NULL || argc < 0 || argv == NULL || argv[argc] != NULL)
		abort();
	if (argc > 0) {
		word = argv[0][0] == '!' ? argv[0] + 1 : argv[0];
		fuzz_cmdline_find(word);
		if (strcmp(word, "export") == 0)
			fuzz_cmdline_builtin(s, 0, argc, argv);
		else if (strcmp(word, "unset") == 0)
			fuzz_cmdline_builtin(s, 1, argc, argv);
	}
	session_split_free(argc, argv);

	/*
	 * CTL: the control socket (include/ctl.h) has no request parser of
	 * its own that can be called on a buffer yet: a request is a line
	 * split by session_split() and looked up by cmd_find(), both done
	 * above.  When ctl.c exports one (bytes in, words or an error out),
	 * call it here on the line as well.
	 */
}

/* Run every line of the input on a fresh session. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char	*environ_fixed[] = { "HOME=/home/fuzz", "USER=fuzz",
			    "PATH=/bin:/usr/bin", "CDPATH=/tmp", NULL };
	struct session	*s;
	char		*buf, *line, *next, **env;
	size_t		 i;

	buf = xmalloc(size + 1);
	memcpy(buf, data, size);
	buf[size] = '\0';
	s = session_new(environ_fixed);
	for (line = buf; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		fuzz_cmdline_line(s, line);
	}
	env = session_env(s);
	for (i = 0; env[i] != NULL; i++) {
		if (strchr(env[i], '=') == NULL || env[i][0] == '=')
			abort();
	}
	session_env_free(env);
	session_free(s);
	free(buf);
	return 0;
}
