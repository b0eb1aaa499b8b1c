/*
 * check_expand.c: tests for the templating of job settings: ${VAR} and
 * ${VAR:-default} over a fixed environment, {name} parameters, the
 * escapes, every error, the size and depth limits, and quoting for sh -c,
 * the last checked by running the results through real shells; and
 * expand_command(): which words of a command (and its input) each known
 * program reads as code, table-driven, then hostile values run through
 * real sh, bash and dash as argv, command strings and input.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <check.h>
#include <errno.h>
#include <signal.h>
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
	{ "ctl", "a\x15" "b" },
	{ "hi", "caf\xc3\xa9" },
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
	{ "${a\tb}", 0, "!invalid variable name 'a\\tb' at column 1" },
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

	/* EXPAND_NO_PARAMS: a {name} that has a value is refused. */
	{ "a ${FOO} {nope} {1x}", EXPAND_NO_PARAMS, "a foo {nope} {1x}" },
	{ "print({file})", EXPAND_NO_PARAMS,
	    "!cannot use {file} at column 7 here" },
	{ "${UNSET:-{dir}}", EXPAND_NO_PARAMS,
	    "!cannot use {dir} at column 10 here" },
	/* EXPAND_TERMINAL: what a line editor would act on is refused. */
	{ "echo {dir} {q}\n", EXPAND_SHELL | EXPAND_TERMINAL,
	    "echo '/srv' 'it'\\''s'\n" },
	{ "echo {ctl}", EXPAND_SHELL | EXPAND_TERMINAL,
	    "!cannot quote {ctl} at column 6 for a terminal: the value has a "
	    "control character or a byte above 0x7e" },
	{ "echo {hi}", EXPAND_SHELL | EXPAND_TERMINAL,
	    "!cannot quote {hi} at column 6 for a terminal: the value has a "
	    "control character or a byte above 0x7e" },
	{ "echo \\{ctl}", EXPAND_SHELL | EXPAND_TERMINAL, "echo \\{ctl}" },
	{ "echo {ctl}", EXPAND_SHELL, "echo 'a\x15" "b'" },
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
	"$(touch pwned)",
	"`touch pwned`",
	"'; touch pwned; '",
	"\"; touch pwned; \"",
	"\ntouch pwned\n",
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

/*
 * Run argv (argv[0] searched in PATH), with input on a pipe if not NULL,
 * in dir; return its output (exit status 0).
 */
static char *
run_argv(char *const *argv, const char *input, const char *dir)
{
	char	*out = NULL;
	size_t	 len = 0;
	ssize_t	 n;
	char	 buf[4096];
	int	 in[2], fds[2], status;
	pid_t	 pid;

	ck_assert_int_eq(pipe(in), 0);
	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(fds[1], 1);
		close(in[0]);
		close(in[1]);
		close(fds[0]);
		close(fds[1]);
		if (chdir(dir) != 0)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	close(fds[1]);
	if (input != NULL && write(in[1], input, strlen(input)) < 0)
		ck_assert_int_eq(errno, EPIPE);
	close(in[1]);
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
	    "%s: status %d", argv[0], status);
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
	char			*argv[4] = { NULL, "-c", NULL, NULL };
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
			argv[0] = (char *)shell;
			argv[2] = cmd;
			got = run_argv(argv, NULL, ".");
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

/* The parameters of the command table. */
static const struct expand_param command_params[] = {
	{ "x", "a b" },
	{ "o", "-c" },
	{ "p", "sh" },
	{ "e", "B=1" },
	{ "c", "a\x03" },
};
#define NCOMMAND_PARAMS (sizeof command_params / sizeof command_params[0])

/* Stands for "no arguments: command is a command string". */
#define STR	{ "\001" }

/*
 * expand_command() cases: the command, its args (STR: a command string),
 * the input, the shell, whether the input goes to a terminal, and what
 * comes out: "command|arg|arg#input", or "!message".
 */
static const struct {
	const char	*command;
	const char	*args[16];
	const char	*input;
	const char	*shell;
	int		 terminal;
	const char	*want;
} command_cases[] = {
	/* POSIX shells: the command string after -c is quoted... */
	{ "sh", { "-c", "printf %s {x}" }, NULL, NULL, 0,
	  "sh|-c|printf %s 'a b'" },
	{ "/bin/bash", { "-ec", "echo \"{x}\"" }, NULL, NULL, 0,
	  "/bin/bash|-ec|echo \"\"'a b'\"\"" },
	{ "dash", { "-x", "-o", "errexit", "+u", "-lc", "echo {x}", "{x}" },
	  NULL, NULL, 0, "dash|-x|-o|errexit|+u|-lc|echo 'a b'|a b" },
	{ "bash", { "--rcfile", "f", "--norc", "-c", "echo {x}" }, NULL,
	  NULL, 0, "bash|--rcfile|f|--norc|-c|echo 'a b'" },
	{ "sh", { "-c", "--", "echo {x}" }, NULL, NULL, 0,
	  "sh|-c|--|echo 'a b'" },
	{ "zsh5.9", { "-c", "echo {x}" }, NULL, NULL, 0,
	  "zsh5.9|-c|echo 'a b'" },
	/* ...and refused where quoting cannot help... */
	{ "sh", { "-c", "echo `{x}`" }, NULL, NULL, 0,
	  "!args: cannot quote {x} at column 7 inside backquotes" },
	/* ...the words after it are $0, $1...: data. */
	{ "sh", { "-c", "echo \"$1\"", "sh", "{x}" }, NULL, NULL, 0,
	  "sh|-c|echo \"$1\"|sh|a b" },
	/* A script, and its arguments, are data. */
	{ "sh", { "script.sh", "{x}", "-c" }, NULL, NULL, 0,
	  "sh|script.sh|a b|-c" },
	/* Wrappers are looked through. */
	{ "/usr/bin/env", { "-i", "-u", "X", "A={x}", "sh", "-c", "echo {x}" },
	  NULL, NULL, 0, "/usr/bin/env|-i|-u|X|A=a b|sh|-c|echo 'a b'" },
	{ "timeout", { "-k", "1", "5", "nice", "-n", "3", "nohup", "setsid",
	  "-f", "bash", "-c", "echo {x}" }, NULL, NULL, 0,
	  "timeout|-k|1|5|nice|-n|3|nohup|setsid|-f|bash|-c|echo 'a b'" },
	{ "timeout", { "{x}", "sh", "-c", "true" }, NULL, NULL, 0,
	  "!args: timeout reads this word as an option: cannot use {x} at "
	  "column 1 here" },
	{ "stdbuf", { "-oL", "busybox", "sh", "-c", "echo {x}" }, NULL, NULL,
	  0, "stdbuf|-oL|busybox|sh|-c|echo 'a b'" },
	{ "env", { "-S", "sh -c", "{x}" }, NULL, NULL, 0,
	  "!args: env -S splits this word into a command: cannot use {x} at "
	  "column 1 here" },
	/* Options take no values, and a value cannot change a word. */
	{ "sh", { "-o", "{x}", "-c", "true" }, NULL, NULL, 0,
	  "!args: sh reads this word as an option: cannot use {x} at column 1 "
	  "here" },
	{ "sh", { "{o}", "echo hi" }, NULL, NULL, 0,
	  "!args: a {name} value would make this word an option of sh" },
	{ "{p}", { "-c", "echo {x}" }, NULL, NULL, 0,
	  "!command: a {name} value would make the program sh, which reads "
	  "its words differently: write the program's name out" },
	{ "env", { "{e}", "sh", "-c", "true" }, NULL, NULL, 0,
	  "!args: a {name} value would make this word an assignment of env" },
	{ "env", { "{p}", "-c", "true" }, NULL, NULL, 0,
	  "!args: a {name} value would make the program sh, which reads its "
	  "words differently: write the program's name out" },
	{ "env", { "A{e}", "true" }, NULL, NULL, 0,
	  "!args: a {name} value would make this word an assignment of env" },
	{ "env", { "A{e}=x", "true" }, NULL, NULL, 0,
	  "!args: a {name} value would change the name this word sets for "
	  "env" },
	{ "env", { "A=a{e}", "B={x}", "true" }, NULL, NULL, 0,
	  "env|A=aB=1|B=a b|true" },
	/* Other shells: no value anywhere. */
	{ "/usr/bin/fish", { "-c", "echo {x}" }, NULL, NULL, 0,
	  "!args: fish reads this word as code and is not a POSIX shell: "
	  "cannot use {x} at column 6 here" },
	{ "tcsh", { "script", "{x}" }, NULL, NULL, 0,
	  "!args: tcsh reads this word as code and is not a POSIX shell: "
	  "cannot use {x} at column 1 here" },
	{ "fish", { "-c", "echo {nope}" }, NULL, NULL, 0,
	  "fish|-c|echo {nope}" },
	/* Interpreters: code options get no value, their data does. */
	{ "python3.11", { "-u", "-c", "print({x})" }, NULL, NULL, 0,
	  "!args: python3.11 reads this word as code (hand it values as "
	  "arguments of their own, or in env): cannot use {x} at column 7 "
	  "here" },
	{ "python3", { "-c", "import sys; print(sys.argv[1])", "{x}", "-c",
	  "{x}" }, NULL, NULL, 0,
	  "python3|-c|import sys; print(sys.argv[1])|a b|-c|a b" },
	{ "python3", { "-W", "ignore", "script.py", "-c", "{x}" }, NULL, NULL,
	  0, "python3|-W|ignore|script.py|-c|a b" },
	{ "python3", { "-m", "{x}" }, NULL, NULL, 0,
	  "!args: python3 reads this word as code (hand it values as "
	  "arguments of their own, or in env): cannot use {x} at column 1 "
	  "here" },
	{ "perl", { "-lne", "print {x}" }, NULL, NULL, 0,
	  "!args: perl reads this word as code (hand it values as arguments "
	  "of their own, or in env): cannot use {x} at column 7 here" },
	{ "node", { "server.js", "-p", "{x}" }, NULL, NULL, 0,
	  "node|server.js|-p|a b" },
	{ "node", { "--eval={x}" }, NULL, NULL, 0,
	  "!args: node reads this word as an option: cannot use {x} at "
	  "column 8 here" },
	{ "awk", { "-v", "v={x}", "-F:", "{print v, \"{x}\"}", "{x}" }, NULL,
	  NULL, 0, "!args: awk reads this word as code (hand it values as "
	  "arguments of their own, or in env): cannot use {x} at column 12 "
	  "here" },
	{ "mawk", { "-v", "v={x}", "-f", "prog.awk", "{x}" }, NULL, NULL, 0,
	  "mawk|-v|v=a b|-f|prog.awk|a b" },
	{ "sed", { "-i", "s/a/{x}/", "f" }, NULL, NULL, 0,
	  "!args: sed reads this word as code (hand it values as arguments "
	  "of their own, or in env): cannot use {x} at column 5 here" },
	{ "sed", { "{x}", "-e", "s/a/b/" }, NULL, NULL, 0,
	  "sed|a b|-e|s/a/b/" },
	{ "sed", { "-e", "p", "{o}" }, NULL, NULL, 0,
	  "!args: a {name} value would make this word an option of sed" },
	/* Data programs: values verbatim, even in backquotes. */
	{ "printf", { "`{x}` $(x)", "{o}" }, NULL, NULL, 0,
	  "printf|`a b` $(x)|-c" },

	/* The input: shell code, other code, or data. */
	{ "sh", { NULL }, "echo {x}\n", NULL, 0, "sh#echo 'a b'\n" },
	{ "bash", { "-s", "--", "{x}" }, "echo {x}\n", NULL, 0,
	  "bash|-s|--|a b#echo 'a b'\n" },
	{ "bash", { "-c", "read -r l; echo $l" }, "{x}\n", NULL, 0,
	  "bash|-c|read -r l; echo $l#a b\n" },
	{ "sh", { "script" }, "{x}\n", NULL, 0, "sh|script#a b\n" },
	{ "sh", { NULL }, "echo {c}\n", NULL, 1,
	  "!input: cannot quote {c} at column 6 for a terminal: the value has "
	  "a control character or a byte above 0x7e" },
	{ "sh", { NULL }, "echo {x}\n", NULL, 1, "sh#echo 'a b'\n" },
	{ "sh", { NULL }, "echo {c}\n", NULL, 0, "sh#echo 'a\x03'\n" },
	{ "python3", { NULL }, "print({x})", NULL, 0,
	  "!input: python3 reads its input as code: cannot use {x} at column "
	  "7 here" },
	{ "python3", { "-" }, "print({x})", NULL, 0,
	  "!input: python3 reads its input as code: cannot use {x} at column "
	  "7 here" },
	{ "python3", { "s.py" }, "{x}", NULL, 0, "python3|s.py#a b" },
	{ "fish", { NULL }, "echo {x}", NULL, 0,
	  "!input: fish reads its input as code and is not a POSIX shell: "
	  "cannot use {x} at column 6 here" },
	{ "cat", { NULL }, "`{x}`", NULL, 0, "cat#`a b`" },

	/* Command strings: quoted for a POSIX shell... */
	{ "echo {x}", STR, NULL, NULL, 0, "echo 'a b'" },
	{ "echo {x}", STR, NULL, "/bin/bash", 0, "echo 'a b'" },
	{ "echo {x}", STR, NULL, "/usr/bin/fish", 0,
	  "!command: {name} values are quoted for sh and /usr/bin/fish is "
	  "not a POSIX shell (set shell = \"/bin/sh\", or use args): cannot "
	  "use {x} at column 6 here" },
	{ "echo {nope}", STR, NULL, "/usr/bin/fish", 0, "echo {nope}" },
	/* ...read for what their programs do with input and nested code. */
	{ "sh", STR, "echo {x}", NULL, 0, "sh#echo 'a b'" },
	{ "A=1 exec bash -s", STR, "echo {x}", NULL, 0,
	  "A=1 exec bash -s#echo 'a b'" },
	{ "cd /tmp && cat | sh", STR, "echo {x}", NULL, 0,
	  "cd /tmp && cat | sh#echo 'a b'" },
	{ "read -r x && echo \"$x\"", STR, "{x}", NULL, 0,
	  "read -r x && echo \"$x\"#a b" },
	{ "python3", STR, "print({x})", NULL, 0,
	  "!input: python3 reads its input as code: cannot use {x} at column "
	  "7 here" },
	{ "bash -c 'echo {x}'", STR, NULL, NULL, 0,
	  "!command: bash reads the word 'echo {x}' as code, where the "
	  "quoting of values for the shell is undone (put the words in args "
	  "instead): cannot use {x} at column 6 here" },
	{ "sh -c \"echo \\\"{x}\\\"\"", STR, NULL, NULL, 0,
	  "!command: sh reads the word 'echo \"{x}\"' as code, where the "
	  "quoting of values for the shell is undone (put the words in args "
	  "instead): cannot use {x} at column 7 here" },
	{ "sh -c 'echo \"$1\"' sh {x}", STR, NULL, NULL, 0,
	  "sh -c 'echo \"$1\"' sh 'a b'" },
	{ "{p} -c 'echo hi'", STR, NULL, NULL, 0,
	  "!command: a {name} value would make the program sh, which reads "
	  "its words differently: write the program's name out" },
	{ "sh {o} 'echo hi'", STR, NULL, NULL, 0,
	  "!command: a {name} value would make this word an option of sh" },
	/* Not simple: not read ($, redirections), the input is data. */
	{ "sh < \"$F\"", STR, "echo {x}", NULL, 0, "sh < \"$F\"#echo a b" },
};
#define NCOMMAND (sizeof command_cases / sizeof command_cases[0])

/* One row of the expand_command() table. */
START_TEST(test_command_table)
{
	struct expand_command	 c;
	struct expand_result	 res;
	char			*args[17], got[1024], *cause = NULL;
	size_t			 n = 0, i;
	int			 r;

	memset(&c, 0, sizeof c);
	c.command = command_cases[_i].command;
	if (command_cases[_i].args[0] == NULL ||
	    strcmp(command_cases[_i].args[0], "\001") != 0) {
		while (n < 16 && command_cases[_i].args[n] != NULL) {
			args[n] = (char *)command_cases[_i].args[n];
			n++;
		}
		args[n] = NULL;
		c.args = args;
		c.nargs = n;
	}
	c.input = command_cases[_i].input;
	c.shell = command_cases[_i].shell;
	c.terminal = command_cases[_i].terminal;
	r = expand_command(&c, NULL, NULL, command_params, NCOMMAND_PARAMS,
	    &res, &cause);
	if (r != 0) {
		ck_assert_ptr_null(res.command);
		ck_assert_ptr_null(res.args);
		ck_assert_ptr_null(res.input);
		snprintf(got, sizeof got, "!%s", cause);
		free(cause);
	} else {
		ck_assert_ptr_null(cause);
		snprintf(got, sizeof got, "%s", res.command);
		ck_assert((res.args == NULL) == (c.args == NULL));
		for (i = 0; res.args != NULL && i < res.nargs; i++)
			snprintf(got + strlen(got), sizeof got - strlen(got),
			    "|%s", res.args[i]);
		if (res.args != NULL)
			ck_assert_ptr_null(res.args[res.nargs]);
		if (res.input != NULL)
			snprintf(got + strlen(got), sizeof got - strlen(got),
			    "#%s", res.input);
		expand_result_clear(&res);
	}
	ck_assert_msg(strcmp(got, command_cases[_i].want) == 0,
	    "case %d: got <%s>, want <%s>", _i, got, command_cases[_i].want);
}
END_TEST

/* Where an error of expand_command() is, for config's positions. */
START_TEST(test_command_field)
{
	static char		*args[] = { "-c", "echo {x}", "sh", "-{x}", NULL };
	struct expand_command	 c;
	struct expand_result	 res;
	char			*cause = NULL;

	memset(&c, 0, sizeof c);
	c.command = "/usr/bin/python3";
	c.args = args;
	c.nargs = 4;
	ck_assert_int_eq(expand_command(&c, NULL, NULL, command_params,
	    NCOMMAND_PARAMS, &res, &cause), -1);
	ck_assert_int_eq(res.field, EXPAND_IN_ARG);
	ck_assert_uint_eq(res.index, 1);
	free(cause);

	c.command = "${";
	ck_assert_int_eq(expand_command(&c, NULL, NULL, NULL, 0, &res,
	    &cause), -1);
	ck_assert_int_eq(res.field, EXPAND_IN_COMMAND);
	ck_assert_str_eq(cause, "command: unterminated ${ at column 1");
	free(cause);

	c.command = "cat";
	c.input = "${X:+y}";
	ck_assert_int_eq(expand_command(&c, NULL, NULL, NULL, 0, &res,
	    &cause), -1);
	ck_assert_int_eq(res.field, EXPAND_IN_INPUT);
	ck_assert_str_eq(cause, "input: unsupported '${X:+y}' at column 1: "
	    "only ${NAME} and ${NAME:-default}");
	free(cause);

	/* The environment decides the layout: ${SH} is a shell. */
	c.command = "${FOO:-x}";
	c.args = args;
	c.input = NULL;
	ck_assert_int_eq(expand_command(&c, &test_env_cb, (void *)test_env,
	    command_params, NCOMMAND_PARAMS, &res, &cause), 0);
	ck_assert_str_eq(res.command, "foo");
	ck_assert_str_eq(res.args[1], "echo a b");
	expand_result_clear(&res);
}
END_TEST

/*
 * With strict set, a {name} without a value is an error where a value
 * would go (a program's words, a command string, the input) and stays as
 * it is where none may go (python -c's code) or after a shell's \.
 */
START_TEST(test_command_strict)
{
	static char		*data[] = { "-l", "{x}", "{nope}", NULL };
	static char		*sh[] = { "-c", "echo {x} \\{nope}", NULL };
	static char		*code[] = { "-c", "print(f'{nope}')", NULL };
	struct expand_command	 c;
	struct expand_result	 res;
	char			*cause = NULL;

	memset(&c, 0, sizeof c);
	c.strict = 1;
	c.command = "ls";
	c.args = data;
	c.nargs = 3;
	ck_assert_int_eq(expand_command(&c, NULL, NULL, command_params,
	    NCOMMAND_PARAMS, &res, &cause), -1);
	ck_assert_str_eq(cause, "args: no value for {nope} at column 1");
	ck_assert_int_eq(res.field, EXPAND_IN_ARG);
	ck_assert_uint_eq(res.index, 2);
	free(cause);
	cause = NULL;

	c.strict = 0;
	ck_assert_int_eq(expand_command(&c, NULL, NULL, command_params,
	    NCOMMAND_PARAMS, &res, &cause), 0);
	ck_assert_str_eq(res.args[1], "a b");
	ck_assert_str_eq(res.args[2], "{nope}");
	expand_result_clear(&res);

	c.strict = 1;
	c.command = "{nope}";
	c.args = NULL;
	c.nargs = 0;
	ck_assert_int_eq(expand_command(&c, NULL, NULL, command_params,
	    NCOMMAND_PARAMS, &res, &cause), -1);
	ck_assert_str_eq(cause, "command: no value for {nope} at column 1");
	free(cause);
	cause = NULL;

	c.command = "sh";
	c.args = sh;
	c.nargs = 2;
	ck_assert_int_eq(expand_command(&c, NULL, NULL, command_params,
	    NCOMMAND_PARAMS, &res, &cause), 0);
	ck_assert_str_eq(res.args[1], "echo 'a b' \\{nope}");
	expand_result_clear(&res);

	c.command = "python3";
	c.args = code;
	ck_assert_int_eq(expand_command(&c, NULL, NULL, command_params,
	    NCOMMAND_PARAMS, &res, &cause), 0);
	ck_assert_str_eq(res.args[1], "print(f'{nope}')");
	expand_result_clear(&res);

	c.command = "cat";
	c.args = NULL;
	c.args = data;
	c.nargs = 0;
	c.input = "{nope}";
	ck_assert_int_eq(expand_command(&c, NULL, NULL, command_params,
	    NCOMMAND_PARAMS, &res, &cause), -1);
	ck_assert_str_eq(cause, "input: no value for {nope} at column 1");
	free(cause);
}
END_TEST

/*
 * Commands that print <v>: after sh -c (alone or in a cluster), through
 * env, as a command string, and as a shell's input.  Every hostile value
 * comes out as its text and creates no file.
 */
START_TEST(test_command_hostile)
{
	static const struct {
		const char	*command;
		const char	*args[6];
		const char	*input;
	} jobs[] = {
		{ "sh", { "-c", "printf '<%s>' {v}" }, NULL },
		{ "bash", { "-ec", "printf '<%s>' \"{v}\"" }, NULL },
		{ "env", { "A=1", "dash", "-uc", "printf '<%s>' '{v}'" }, NULL },
		{ "bash", { "--norc", "-c", "printf \"<%s>\" \"$(printf %s "
		  "\"{v}\")\"" }, NULL },
		{ "sh", STR, "printf '<%s>' {v}\n" },
		{ "bash", { "-s" }, "x=\"{v}\"; printf '<%s>' \"$x\"\n" },
		{ "sh -c 'printf \"<%s>\" \"$1\"' sh {v}", STR, NULL },
	};
	struct expand_command	 c;
	struct expand_result	 res;
	struct expand_param	 p;
	char			*argv[10], *cause = NULL, *out, want[256];
	char			 dir[] = "/tmp/check_expand.XXXXXX", pwned[64];
	size_t			 i, k, n;

	signal(SIGPIPE, SIG_IGN);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(pwned, sizeof pwned, "%s/pwned", dir);
	for (k = 0; k < sizeof jobs / sizeof jobs[0]; k++) {
		for (i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
			/* $(...) drops trailing newlines. */
			if (strchr(hostile[i], '\n') != NULL && k == 3)
				continue;
			memset(&c, 0, sizeof c);
			c.command = jobs[k].command;
			c.input = jobs[k].input;
			for (n = 0; jobs[k].args[n] != NULL; n++)
				/* nothing */;
			if (n == 0 || strcmp(jobs[k].args[0], "\001") != 0) {
				c.args = (char *const *)jobs[k].args;
				c.nargs = n;
			}
			p.key = "v";
			p.value = hostile[i];
			/* A stray NUL stays out: C strings cannot hold it. */
			ck_assert_msg(expand_command(&c, NULL, NULL, &p, 1,
			    &res, &cause) == 0, "job %zu: %s", k, cause);
			if (res.args == NULL) {
				argv[0] = "/bin/sh";
				argv[1] = "-c";
				argv[2] = res.command;
				argv[3] = NULL;
			} else {
				argv[0] = res.command;
				for (n = 0; n < res.nargs; n++)
					argv[n + 1] = res.args[n];
				argv[n + 1] = NULL;
			}
			out = run_argv(argv, res.input, dir);
			snprintf(want, sizeof want, "<%s>", hostile[i]);
			ck_assert_msg(strcmp(out, want) == 0, "job %zu, value "
			    "%zu: got <%s>, want <%s>", k, i, out, want);
			ck_assert_msg(access(pwned, F_OK) != 0, "job %zu, value "
			    "%zu ran a command", k, i);
			free(out);
			expand_result_clear(&res);
		}
	}
	rmdir(dir);
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

	tc = tcase_create("command");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_command_table, 0, (int)NCOMMAND);
	tcase_add_test(tc, test_command_field);
	tcase_add_test(tc, test_command_strict);
	tcase_add_test(tc, test_command_hostile);
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
