/*
 * check_expand.c: tests for the templating of job settings: ${VAR} and
 * ${VAR:-default} over a fixed environment, {name} parameters, the
 * escapes, every error, the size and depth limits, and quoting for sh -c,
 * the last checked by running the results through real shells.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "expand.h"

/* The environment every case sees, as NAME=VALUE. */
static const char *const test_env[] = {
	"HOME=/home/u",
	"FOO=foo",
	"EMPTY=",
	"SPACED=a  b",
	"DOLLAR=${FOO}",
	"BRACE={file}",
	"DQ=\"",
	"TD=a$",
	"DEEP=${UNSET:-x}",
	"FO=fo",
	NULL
};

/* The parameters every case sees. */
static const struct expand_param test_params[] = {
	{ "file", "my file.txt" },
	{ "dir", "/srv" },
	{ "q", "it's" },
	{ "x", "${FOO}" },
	{ "y", "{file}" },
	{ "empty", "" },
	{ "null", NULL },
	{ "dup", "one" },
	{ "dup", "two" },
	{ NULL, "ignored" },
};
#define TEST_NPARAMS (sizeof test_params / sizeof test_params[0])

/* Look name up in the NAME=VALUE array at arg. */
static const char *
test_get(const char *name, void *arg)
{
	const char *const	*env = arg;
	size_t			 len = strlen(name);

	for (; *env != NULL; env++) {
		if (strncmp(*env, name, len) == 0 && (*env)[len] == '=')
			return *env + len + 1;
	}
	return NULL;
}

static const struct expand_env test_env_cb = { test_get };

/*
 * The table: text, flags and the result, or "!message" for an error.  The
 * {name} cases without EXPAND_SHELL insert values verbatim (argv mode).
 */
static const struct {
	const char	*text;
	int		 flags;
	const char	*want;
} expand_cases[] = {
	/* Plain text and ${VAR}. */
	{ "", 0, "" },
	{ "plain text, no expansions", 0, "plain text, no expansions" },
	{ "${FOO}", 0, "foo" },
	{ "a${FOO}b${FOO}", 0, "afoobfoo" },
	{ "${SPACED}", 0, "a  b" },
	{ "${UNSET}", 0, "" },
	{ "x${UNSET}y", 0, "xy" },
	{ "${_u1}", 0, "" },

	/* ${VAR:-default}: unset or empty, nesting. */
	{ "${UNSET:-dflt}", 0, "dflt" },
	{ "${EMPTY:-dflt}", 0, "dflt" },
	{ "${EMPTY}", 0, "" },
	{ "${FOO:-dflt}", 0, "foo" },
	{ "${UNSET:-}", 0, "" },
	{ "${UNSET:-a b:-c}", 0, "a b:-c" },
	{ "${UNSET:-${FOO}}", 0, "foo" },
	{ "${UNSET:-${NOPE:-deep}}", 0, "deep" },
	{ "${UNSET:-a ${FOO} b}", 0, "a foo b" },
	{ "${UNSET:-{dir}/out}", 0, "/srv/out" },
	{ "${UNSET:-{a}}", 0, "{a}" },
	{ "${UNSET:-$HOME}", 0, "$HOME" },
	{ "${FOO:-${UNSET:-x}}", 0, "foo" },

	/* Substituted text is never expanded again. */
	{ "${DOLLAR}", 0, "${FOO}" },
	{ "${BRACE}", 0, "{file}" },
	{ "${DEEP}", 0, "${UNSET:-x}" },
	{ "{x}", 0, "${FOO}" },
	{ "{y}", 0, "{file}" },
	{ "${UNSET:-{x}}", 0, "${FOO}" },

	/* Other $ forms, and $$. */
	{ "$HOME $1 $? $", 0, "$HOME $1 $? $" },
	{ "a$", 0, "a$" },
	{ "$$", 0, "$" },
	{ "$$$$", 0, "$$" },
	{ "$$HOME", 0, "$HOME" },
	{ "$${FOO}", 0, "${FOO}" },
	{ "$${file}", 0, "${file}" },
	{ "$${X%.*}", 0, "${X%.*}" },
	{ "$$$${FOO}", 0, "$${FOO}" },
	{ "${UNSET:-$$}", 0, "$" },

	/* {name} parameters. */
	{ "{file}", 0, "my file.txt" },
	{ "{dir}/{file}", 0, "/srv/my file.txt" },
	{ "{empty}x{null}", 0, "x" },
	{ "{dup}", 0, "one" },
	{ "{nope}", 0, "{nope}" },
	{ "{1x} {} {a-b} {file {FILE}", 0, "{1x} {} {a-b} {file {FILE}" },
	{ "awk '{print $1}'", 0, "awk '{print $1}'" },
	{ "{\"a\":{\"b\":1}}", 0, "{\"a\":{\"b\":1}}" },
	{ "{{file}}", 0, "{my file.txt}" },
	{ "{{nope}}", 0, "{{nope}}" },
	{ "{${FOO}}", 0, "{foo}" },
	{ "'{file}'", 0, "'my file.txt'" },
	{ "{q}", 0, "it's" },

	/* Errors. */
	{ "${", 0, "!unterminated ${ at column 1" },
	{ "abc ${FOO", 0, "!unterminated ${ at column 5" },
	{ "${UNSET:-{a}", 0, "!unterminated ${ at column 1" },
	{ "${A:-${B}", 0, "!unterminated ${ at column 1" },
	{ "${1x}", 0, "!invalid variable name '1x' at column 1" },
	{ "${}", 0, "!invalid variable name '' at column 1" },
	{ "x ${a b}", 0, "!invalid variable name 'a b' at column 3" },
	{ "${X-y}", 0, "!invalid variable name 'X-y' at column 1" },
	{ "${:-x}", 0, "!invalid variable name '' at column 1" },
	{ "${9:-x}", 0, "!invalid variable name '9' at column 1" },
	{ "${a\tb}", 0, "!invalid variable name 'a?b' at column 1" },
	{ "${aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-}", 0,
	    "!invalid variable name 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' "
	    "at column 1" },
	{ "${X:+y}", 0, "!unsupported '${X:+y}' at column 1: "
	    "only ${NAME} and ${NAME:-default}" },
	{ "${X:}", 0, "!unsupported '${X:}' at column 1: "
	    "only ${NAME} and ${NAME:-default}" },
	{ "${FOO:-${1x}}", 0, "!invalid variable name '1x' at column 8" },
	{ "{file} ${FOO:=x}", 0, "!unsupported '${FOO:=x}' at column 8: "
	    "only ${NAME} and ${NAME:-default}" },

	/* EXPAND_SHELL: where the shell is decides the quoting. */
	{ "cat {file}", EXPAND_SHELL, "cat 'my file.txt'" },
	{ "echo {q}", EXPAND_SHELL, "echo 'it'\\''s'" },
	{ "echo {empty}", EXPAND_SHELL, "echo ''" },
	{ "echo '{file}'", EXPAND_SHELL, "echo '''my file.txt'''" },
	{ "echo \"{file}\"", EXPAND_SHELL, "echo \"\"'my file.txt'\"\"" },
	{ "echo \"$(echo \"{file}\")\"", EXPAND_SHELL,
	    "echo \"$(echo \"\"'my file.txt'\"\")\"" },
	{ "echo $(echo ({file}))", EXPAND_SHELL,
	    "echo $(echo ('my file.txt'))" },
	{ "echo ${FOO}{file}", EXPAND_SHELL, "echo foo'my file.txt'" },
	{ "echo ${DQ}{file}", EXPAND_SHELL, "echo \"\"'my file.txt'\"" },
	{ "echo \\{file} {nope}", EXPAND_SHELL, "echo \\{file} {nope}" },
	{ "echo \"\\{file}\"", EXPAND_SHELL, "echo \"\\{file}\"" },
	{ "echo $HOME {x} {y}", EXPAND_SHELL, "echo $HOME '${FOO}' '{file}'" },
	{ "echo a#b {file}", EXPAND_SHELL, "echo a#b 'my file.txt'" },
	{ "echo $((1<<2)) {dir}", EXPAND_SHELL, "echo $((1<<2)) '/srv'" },
	{ "echo # it's\necho {dir}", EXPAND_SHELL,
	    "echo # it's\necho '/srv'" },
	{ "echo `{file}`", EXPAND_SHELL,
	    "!cannot quote {file} at column 7 inside backquotes" },
	{ "echo \"`echo \"{file}\"`\"", EXPAND_SHELL,
	    "!cannot quote {file} at column 14 inside backquotes" },
	{ "echo $${X:-{file}}", EXPAND_SHELL,
	    "!cannot quote {file} at column 12 inside a shell ${...}" },
	{ "echo {dir} # {file}", EXPAND_SHELL,
	    "!cannot quote {file} at column 14 in a comment" },
	{ "cat <<EOF\n{file}\nEOF", EXPAND_SHELL,
	    "!cannot quote {file} at column 11 after a here-document" },
	{ "echo ${TD}{file}", EXPAND_SHELL,
	    "!cannot quote {file} at column 11 just after a $" },
	{ "echo $'a' {file}", EXPAND_SHELL,
	    "!cannot quote {file} at column 11 after $'...'" },
	{ "echo \\\n# {file}", EXPAND_SHELL,
	    "!cannot quote {file} at column 10 in a comment" },
	{ "cat <\\\n<EOF\n{file}\nEOF", EXPAND_SHELL,
	    "!cannot quote {file} at column 13 after a here-document" },
	{ "echo $\\\n{file}", EXPAND_SHELL,
	    "!cannot quote {file} at column 9 just after a $" },
	{ "echo \\\n{file} \\\\{file}", EXPAND_SHELL,
	    "echo \\\n'my file.txt' \\\\'my file.txt'" },
	{ "echo ${UNSET:-`{file}`}", EXPAND_SHELL,
	    "!cannot quote {file} at column 16 inside backquotes" },
	{ "echo $(( {dir} + 1 ))", EXPAND_SHELL,
	    "!cannot quote {dir} at column 10 inside arithmetic" },
	{ "echo \"$(({dir}))\"", EXPAND_SHELL,
	    "!cannot quote {dir} at column 10 inside arithmetic" },
	{ "(( x = {dir} ))", EXPAND_SHELL,
	    "!cannot quote {dir} at column 8 inside arithmetic" },
	{ "echo $[1 + {dir}]", EXPAND_SHELL,
	    "!cannot quote {dir} at column 12 inside arithmetic" },
	{ "a[b[1]+{dir}]=1", EXPAND_SHELL,
	    "!cannot quote {dir} at column 8 inside a [...] subscript" },
	{ "echo \"$(case a in a) echo;; esac) {dir}\"", EXPAND_SHELL,
	    "!cannot quote {dir} at column 35 after a case inside $(...)" },
	{ "case {dir} in a) echo {file};; esac; echo $(echo case) {dir}",
	    EXPAND_SHELL, "case '/srv' in a) echo 'my file.txt';; esac; "
	    "echo $(echo case) '/srv'" },
	{ "a[{dir}]=1", EXPAND_SHELL,
	    "!cannot quote {dir} at column 3 inside a [...] subscript" },
	{ "[ -f {file} ] && ( (echo {dir}) )", EXPAND_SHELL,
	    "[ -f 'my file.txt' ] && ( (echo '/srv') )" },
	/* Without EXPAND_SHELL the same texts are plain. */
	{ "echo `{file}`", 0, "echo `my file.txt`" },
	{ "echo \"{file}\"", 0, "echo \"my file.txt\"" },
};
#define NCASES (sizeof expand_cases / sizeof expand_cases[0])

/* One row of the table (a loop test, so each row counts as a check). */
START_TEST(test_expand_table)
{
	const char	*text = expand_cases[_i].text;
	const char	*want = expand_cases[_i].want;
	char		*got, *cause = NULL;

	got = expand_text(text, &test_env_cb, (void *)test_env, test_params,
	    TEST_NPARAMS, expand_cases[_i].flags, &cause);
	if (want[0] == '!') {
		ck_assert_msg(got == NULL, "case %d <%s>: got <%s>, want error",
		    _i, text, got);
		ck_assert_ptr_nonnull(cause);
		ck_assert_msg(strcmp(cause, want + 1) == 0,
		    "case %d <%s>: got error <%s>, want <%s>", _i, text, cause,
		    want + 1);
		free(cause);
		return;
	}
	ck_assert_msg(got != NULL, "case %d <%s>: %s", _i, text, cause);
	ck_assert_msg(strcmp(got, want) == 0, "case %d <%s>: got <%s>, "
	    "want <%s>", _i, text, got, want);
	ck_assert_ptr_null(cause);
	free(got);
}
END_TEST

/* Expand text with the test environment and parameters; fail on error. */
static char *
expand_ok(const char *text, int flags)
{
	char	*got, *cause = NULL;

	got = expand_text(text, &test_env_cb, (void *)test_env, test_params,
	    TEST_NPARAMS, flags, &cause);
	ck_assert_msg(got != NULL, "<%.60s>: %s", text, cause);
	return got;
}

/* Expand text expecting the error want. */
static void
expand_fails(const char *text, int flags, const char *want)
{
	char	*got, *cause = NULL;

	got = expand_text(text, &test_env_cb, (void *)test_env, test_params,
	    TEST_NPARAMS, flags, &cause);
	ck_assert_ptr_null(got);
	ck_assert_ptr_nonnull(cause);
	ck_assert_str_eq(cause, want);
	free(cause);
}

/* Build ${L0:-${L1:-...${Ln-1:-x}...}} with n references. */
static char *
nested(int n)
{
	char	*s;
	size_t	 len = 0;
	int	 i;

	s = malloc((size_t)n * 8 + 2);
	ck_assert_ptr_nonnull(s);
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(s + len, "${L%d:-", i % 10);
	s[len++] = 'x';
	for (i = 0; i < n; i++)
		s[len++] = '}';
	s[len] = '\0';
	return s;
}

START_TEST(test_depth_limit)
{
	char	*text, *got, want[64];

	/* EXPAND_MAX_DEPTH levels of default are fine ... */
	text = nested(EXPAND_MAX_DEPTH);
	got = expand_ok(text, 0);
	ck_assert_str_eq(got, "x");
	free(got);
	free(text);

	/* ... one more is an error at the reference that goes too deep. */
	text = nested(EXPAND_MAX_DEPTH + 1);
	snprintf(want, sizeof want, "${...} nested too deeply at column %d",
	    EXPAND_MAX_DEPTH * 6 + 1);
	expand_fails(text, 0, want);
	/* Even when the default is not used: validity ignores the env. */
	text[2] = 'F';
	text[3] = 'O';
	ck_assert_int_eq(strncmp(text, "${FO:-", 6), 0);
	expand_fails(text, 0, want);
	free(text);

	/* A huge nesting is refused quickly, not by recursion. */
	text = nested(100000);
	expand_fails(text, 0, want);
	free(text);
}
END_TEST

START_TEST(test_shell_nesting_limit)
{
	char	text[256], want[128], *got;
	size_t	len = 0;
	int	i;

	/* Quoting 31 deep is followed; deeper, parameters are refused. */
	for (i = 0; i < 31; i++)
		len += (size_t)sprintf(text + len, "$(");
	sprintf(text + len, "{dir}");
	got = expand_ok(text, EXPAND_SHELL);
	ck_assert_str_eq(got + len, "'/srv'");
	free(got);
	sprintf(text + len, "$({dir}");
	snprintf(want, sizeof want, "cannot quote {dir} at column %zu in "
	    "quoting nested too deeply", len + 3);
	expand_fails(text, EXPAND_SHELL, want);
}
END_TEST

START_TEST(test_size_limit)
{
	const char	*env[3] = { NULL, NULL, NULL };
	char		*half, *exact, *got, *cause = NULL;
	size_t		 n = EXPAND_MAX_OUTPUT / 2;

	/* Two halves make exactly the limit, which is allowed. */
	half = malloc(n + 8);
	ck_assert_ptr_nonnull(half);
	memcpy(half, "BIG=", 4);
	memset(half + 4, 'a', n);
	half[n + 4] = '\0';
	env[0] = half;
	got = expand_text("${BIG}${BIG}", &test_env_cb, env, NULL, 0, 0,
	    &cause);
	ck_assert_ptr_nonnull(got);
	ck_assert_uint_eq(strlen(got), EXPAND_MAX_OUTPUT);
	free(got);

	/* One byte more is an error, from values or from the text. */
	got = expand_text("${BIG}${BIG}.", &test_env_cb, env, NULL, 0, 0,
	    &cause);
	ck_assert_ptr_null(got);
	ck_assert_str_eq(cause, "result longer than 1048576 bytes");
	free(cause);
	exact = malloc(EXPAND_MAX_OUTPUT + 2);
	ck_assert_ptr_nonnull(exact);
	memset(exact, 'b', EXPAND_MAX_OUTPUT + 1);
	exact[EXPAND_MAX_OUTPUT + 1] = '\0';
	got = expand_text(exact, NULL, NULL, NULL, 0, 0, &cause);
	ck_assert_ptr_null(got);
	ck_assert_str_eq(cause, "result longer than 1048576 bytes");
	free(cause);
	exact[EXPAND_MAX_OUTPUT] = '\0';
	got = expand_text(exact, NULL, NULL, NULL, 0, 0, &cause);
	ck_assert_ptr_nonnull(got);
	free(got);

	/* Many parameter copies hit the limit too. */
	env[0] = NULL;
	{
		struct expand_param	p = { "v", half + 4 };

		got = expand_text("{v}{v}{v}", NULL, NULL, &p, 1, EXPAND_SHELL,
		    &cause);
		ck_assert_ptr_null(got);
		ck_assert_str_eq(cause, "result longer than 1048576 bytes");
		free(cause);
	}
	free(exact);
	free(half);
}
END_TEST

START_TEST(test_no_env_no_params)
{
	static const struct expand_env	 none = { NULL };
	char				*got, *cause = NULL;

	got = expand_text("${FOO:-d}${FOO}{file}", NULL, NULL, NULL, 0, 0,
	    &cause);
	ck_assert_str_eq(got, "d{file}");
	free(got);
	got = expand_text("${FOO:-d}", &none, NULL, NULL, 5, 0, &cause);
	ck_assert_str_eq(got, "d");
	free(got);
	got = expand_text(NULL, NULL, NULL, NULL, 0, 0, &cause);
	ck_assert_str_eq(got, "");
	free(got);
	ck_assert_ptr_null(cause);
}
END_TEST

/* Count the lookups an expansion makes; arg is an int counter. */
static const char *
test_count_get(const char *name, void *arg)
{
	(*(int *)arg)++;
	return strcmp(name, "SET") == 0 ? "v" : NULL;
}

START_TEST(test_lookups)
{
	static const struct expand_env	 cb = { test_count_get };
	char				*got, *cause = NULL;
	int				 calls = 0;

	/* Unused defaults are checked but never looked up. */
	got = expand_text("${SET:-${A:-${B}}} ${X:-${SET}}", &cb, &calls,
	    NULL, 0, 0, &cause);
	ck_assert_str_eq(got, "v v");
	ck_assert_int_eq(calls, 3);
	free(got);
}
END_TEST

START_TEST(test_shell_quote)
{
	static const struct {
		const char	*in;
		const char	*want;
	} t[] = {
		{ "", "''" },
		{ "abc", "'abc'" },
		{ "a b", "'a b'" },
		{ "'", "''\\'''" },
		{ "it's", "'it'\\''s'" },
		{ "''", "''\\'''\\'''" },
		{ "$(id) `id` \\ \"", "'$(id) `id` \\ \"'" },
		{ "a\nb", "'a\nb'" },
	};
	char	*q;
	size_t	 i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		q = expand_shell_quote(t[i].in);
		ck_assert_str_eq(q, t[i].want);
		free(q);
	}
}
END_TEST

/* Values a shell must never interpret. */
static const char *const hostile[] = {
	"a'b; rm -rf /",
	"$(id)",
	"`id`",
	"line1\nline2",
	"",
	"'",
	"''",
	"\\",
	"\\'",
	"\"",
	"a\"b'c\\d",
	"$HOME ${HOME} $1 $$",
	"* ? [a]",
	"-n",
	"  lead and trail  ",
	"tab\there",
	"!! ~ #not a comment",
	"%s%d%n",
	"{v} ${v}",
	"); echo pwned; (",
	"\"; echo pwned; \"",
	"'; echo pwned; '",
	"\x01\x7f\xc3\xa9 end",
};

/* Shell commands and what each prints around the value. */
static const struct {
	const char	*cmd;
	const char	*before;
	const char	*after;
	int		 trailing_nl;	/* $(...) strips trailing newlines */
} contexts[] = {
	{ "printf %s {v}", "", "", 1 },
	{ "printf '%s|' {v} {v}", "", "|", 1 },
	{ "printf %s '<{v}>'", "<", ">", 1 },
	{ "printf %s \"<{v}>\"", "<", ">", 1 },
	{ "printf %s \"$(printf %s {v})\"", "", "", 0 },
	{ "printf %s \"$(printf %s \"<{v}>\")\"", "<", ">", 1 },
	{ "printf %s $(printf %s \"'\" )\"<{v}>\"", "'<", ">", 1 },
	{ "x={v}; printf %s \"$x\"", "", "", 1 },
	{ "printf %s \"${UNSET:-<{v}>}\"", "<", ">", 1 },
	{ "printf %s {v} # {nope} it's", "", "", 1 },
	{ "printf %s \\{v} {v}", "{v}", "", 1 },
	{ "printf %s \\\n{v} \\\n# it's", "", "", 1 },
};

/* Run cmd with shell -c and return what it printed (exit status 0). */
static char *
run_shell(const char *shell, const char *cmd)
{
	char	*out = NULL;
	size_t	 len = 0;
	ssize_t	 n;
	char	 buf[4096];
	int	 fds[2], status;
	pid_t	 pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execl(shell, "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		n = read(fds[0], buf, sizeof buf);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		out = realloc(out, len + (size_t)n + 1);
		ck_assert_ptr_nonnull(out);
		memcpy(out + len, buf, (size_t)n);
		len += (size_t)n;
	}
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "%s -c <%s>: status %d", shell, cmd, status);
	if (out == NULL)
		out = calloc(1, 1);
	ck_assert_ptr_nonnull(out);
	out[len] = '\0';
	return out;
}

/* Every hostile value in every context prints exactly itself. */
static void
round_trip(const char *shell)
{
	struct expand_param	 p;
	char			*cmd, *got, *want, *cause = NULL;
	size_t			 i, j;

	if (access(shell, X_OK) != 0)
		return;
	for (i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
		for (j = 0; j < sizeof contexts / sizeof contexts[0]; j++) {
			/* Skip what the context cannot show faithfully. */
			if (!contexts[j].trailing_nl &&
			    strchr(hostile[i], '\n') != NULL)
				continue;
			p.key = "v";
			p.value = hostile[i];
			cmd = expand_text(contexts[j].cmd, NULL, NULL, &p, 1,
			    EXPAND_SHELL, &cause);
			ck_assert_msg(cmd != NULL, "<%s>: %s", contexts[j].cmd,
			    cause);
			got = run_shell(shell, cmd);
			if (strcmp(contexts[j].cmd, "printf '%s|' {v} {v}") ==
			    0) {
				if (asprintf(&want, "%s|%s|", hostile[i],
				    hostile[i]) == -1)
					ck_abort();
			} else if (asprintf(&want, "%s%s%s",
			    contexts[j].before, hostile[i],
			    contexts[j].after) == -1)
				ck_abort();
			ck_assert_msg(strcmp(got, want) == 0,
			    "%s: <%s> with v=<%s> ran <%s>: got <%s>", shell,
			    contexts[j].cmd, hostile[i], cmd, got);
			free(want);
			free(got);
			free(cmd);
		}
	}
}

START_TEST(test_round_trip_sh)
{
	round_trip("/bin/sh");
}
END_TEST

START_TEST(test_round_trip_bash)
{
	round_trip("/bin/bash");
}
END_TEST

START_TEST(test_argv_mode_verbatim)
{
	struct expand_param	 p;
	char			*got, *cause = NULL;
	size_t			 i;

	/* Without EXPAND_SHELL a value is inserted byte for byte. */
	for (i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
		p.key = "v";
		p.value = hostile[i];
		got = expand_text("{v}", NULL, NULL, &p, 1, 0, &cause);
		ck_assert_ptr_nonnull(got);
		ck_assert_str_eq(got, hostile[i]);
		free(got);
	}
}
END_TEST

/* Build the expand suite. */
static Suite *
expand_suite(void)
{
	Suite	*s = suite_create("expand");
	TCase	*tc;

	tc = tcase_create("table");
	tcase_add_loop_test(tc, test_expand_table, 0, (int)NCASES);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_depth_limit);
	tcase_add_test(tc, test_size_limit);
	tcase_add_test(tc, test_shell_nesting_limit);
	tcase_add_test(tc, test_no_env_no_params);
	tcase_add_test(tc, test_lookups);
	suite_add_tcase(s, tc);

	tc = tcase_create("shell");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_shell_quote);
	tcase_add_test(tc, test_round_trip_sh);
	tcase_add_test(tc, test_round_trip_bash);
	tcase_add_test(tc, test_argv_mode_verbatim);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr = srunner_create(expand_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
