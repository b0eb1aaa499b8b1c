/*
 * check_dotenv.c: tests for env files (dotenv.h) and their use by
 * launch_new_at(): every accepted form and every error with its exact
 * place; limits and hostile input (NUL bytes, huge lines and names,
 * unterminated quotes, deep ${} nesting, invalid UTF-8, buffers without
 * a terminator); dotenv_load() on real files (missing, symbolic link,
 * directory, FIFO, too large); launch_new_at() with real files in a
 * temporary directory: the four layers of precedence, PORT with replicas,
 * errors, paths against base_dir and the session's cwd, the stack's spec
 * fields; and a real child spawned through a jobtable that prints what
 * the env file and PORT gave it.
 */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "dotenv.h"
#include "expand.h"
#include "job.h"
#include "jobtable.h"
#include "launch.h"
#include "loop.h"
#include "session.h"

/* What the lookup of the table's cases knows (the caller's environment). */
static const char *
lookup(const char *name, void *arg)
{
	(void)arg;
	if (strcmp(name, "OUTER") == 0)
		return "out";
	if (strcmp(name, "EMPTY") == 0)
		return "";
	return NULL;
}

/* One accepted text and the entries it gives, "|"-joined in order. */
struct ok_case {
	const char	*in;
	size_t		 len;		/* 0: strlen(in) */
	const char	*want;
};

static const struct ok_case ok_cases[] = {
	{ "", 0, "" },
	{ "# only a comment\n\n  \t\n", 0, "" },
	{ "A=1", 0, "A=1" },
	{ "A=1\nB=2\n", 0, "A=1|B=2" },
	{ "   A=1\n\t B=2", 0, "A=1|B=2" },
	{ "A = 1\nB\t=\t2", 0, "A=1|B=2" },
	{ "A=b=c", 0, "A=b=c" },
	{ "export A=1", 0, "A=1" },
	{ "export\tA=1\n  export   B = 2  ", 0, "A=1|B=2" },
	{ "export=1\nexport =2", 0, "export=2" },
	{ "A=", 0, "A=" },
	{ "A=   ", 0, "A=" },
	{ "A=\"\"\nB=''", 0, "A=|B=" },
	/* Unquoted: trailing blanks and " #" comments dropped. */
	{ "A=hello world  \t", 0, "A=hello world" },
	{ "A=x # a comment", 0, "A=x" },
	{ "A=x\t# a comment", 0, "A=x" },
	{ "A=x#y", 0, "A=x#y" },
	{ "A=#x", 0, "A=#x" },
	{ "A= # nothing", 0, "A=" },
	{ "A=a\\nb\\", 0, "A=a\\nb\\" },
	{ "A=it's \"so\"", 0, "A=it's \"so\"" },
	/* Single quotes: verbatim, over lines. */
	{ "A='a $OUTER ${B} \\n \"x\" # not'", 0,
	  "A=a $OUTER ${B} \\n \"x\" # not" },
	{ "A='x\ny'\nB=1", 0, "A=x\ny|B=1" },
	{ "A='x' # c\nB='y'#c", 0, "A=x|B=y" },
	/* Double quotes: escapes, other backslashes kept, over lines. */
	{ "A=\"a\\nb\\tc\\\"d\\\\e\\$f\"", 0, "A=a\nb\tc\"d\\e$f" },
	{ "A=\"\\q C:\\dir\"", 0, "A=\\q C:\\dir" },
	{ "A=\"line1\nline2\"\nB=2", 0, "A=line1\nline2|B=2" },
	{ "A=\"x # y\"  # c", 0, "A=x # y" },
	{ "A=\"${OUTER} $OUTER\"", 0, "A=out out" },
	{ "A=\"\\${B}\"\nB=\"$\\${\"", 0, "A=${B}|B=$${" },
	/* Expansion from the entries above, then the lookup. */
	{ "A=1\nB=${A}2\nC=$A-x\nD=${NOPE:-dflt}\nE=${OUTER}\nF=$OUTER/y",
	  0, "A=1|B=12|C=1-x|D=dflt|E=out|F=out/y" },
	{ "A=${EMPTY:-e}${NOPE}|$NOPE|", 0, "A=e||" },
	{ "A=${NOPE:-${OUTER:-x}/z}", 0, "A=out/z" },
	{ "A=${NOPE:-a b}", 0, "A=a b" },
	{ "A=$AB\nAB=2\nC=$AB$A", 0, "A=|AB=2|C=2" },
	{ "OUTER=in:$OUTER\nX=$OUTER", 0, "OUTER=in:out|X=in:out" },
	/* $$ and stray dollars; expanded text is never expanded again. */
	{ "A=$$OUTER\nB=$1 a$ $-", 0, "A=$OUTER|B=$1 a$ $-" },
	{ "A=$$B\nB=${A}", 0, "A=$B|B=$B" },
	{ "A=\"$\"\nB=$", 0, "A=$|B=$" },
	{ "A={x} { }", 0, "A={x} { }" },
	/* A name again replaces the value in the first place. */
	{ "A=1\nB=2\nA=3", 0, "A=3|B=2" },
	/* CRLF, a byte order mark, invalid UTF-8. */
	{ "A=1\r\nB=\"x\r\ny\"\r\n# c\r\n\r\n  \r\nC='q'\r\nD=\"z\" \r\n",
	  0, "A=1|B=x\ny|C=q|D=z" },
	{ "\xef\xbb\xbf" "A=1", 0, "A=1" },
	{ "A=\xff\xfe\xc3( \x80\nB=\"\xe2\x82\"\nC='\xc0\xaf'", 0,
	  "A=\xff\xfe\xc3( \x80|B=\xe2\x82|C=\xc0\xaf" },
	{ "A=x\rb", 0, "A=x\rb" },
};
#define NOK	(sizeof ok_cases / sizeof ok_cases[0])

/* Join n entries with '|'. */
static char *
join(char **kv, size_t n)
{
	char	*s;
	size_t	 len = 1, i;

	for (i = 0; i < n; i++)
		len += strlen(kv[i]) + 1;
	s = calloc(1, len);
	ck_assert_ptr_nonnull(s);
	for (i = 0; i < n; i++) {
		if (i > 0)
			strcat(s, "|");
		strcat(s, kv[i]);
	}
	return s;
}

/* Parse len bytes of text (copied to an exact-size buffer); assert it. */
static char *
parse_ok(const char *text, size_t len)
{
	char	**kv, *buf, *cause = NULL, *s;
	size_t	  n;

	/* No terminator: a read past len is an ASan error. */
	buf = malloc(len == 0 ? 1 : len);
	ck_assert_ptr_nonnull(buf);
	memcpy(buf, text, len);
	ck_assert_msg(dotenv_parse(".env", buf, len, lookup, NULL, &kv, &n,
	    &cause) == 0, "'%s': %s", text, cause);
	ck_assert_ptr_null(cause);
	ck_assert_ptr_nonnull(kv);
	ck_assert_ptr_null(kv[n]);
	s = join(kv, n);
	dotenv_free(kv, n);
	free(buf);
	return s;
}

/* Parse len bytes of text; assert it fails, return the cause. */
static char *
parse_err(const char *text, size_t len)
{
	char	**kv = (char **)1, *buf, *cause = NULL;
	size_t	  n = 1;

	buf = malloc(len == 0 ? 1 : len);
	ck_assert_ptr_nonnull(buf);
	memcpy(buf, text, len);
	ck_assert_msg(dotenv_parse(".env", buf, len, lookup, NULL, &kv, &n,
	    &cause) == -1, "'%.40s' parsed", text);
	ck_assert_ptr_null(kv);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_nonnull(cause);
	free(buf);
	return cause;
}

START_TEST(test_ok_table)
{
	const struct ok_case	*c = &ok_cases[_i];
	char			*got;

	got = parse_ok(c->in, c->len != 0 ? c->len : strlen(c->in));
	ck_assert_msg(strcmp(got, c->want) == 0, "case %d '%s': got '%s', "
	    "want '%s'", _i, c->in, got, c->want);
	free(got);
}
END_TEST

/* One refused text and its message. */
struct err_case {
	const char	*in;
	size_t		 len;		/* 0: strlen(in) */
	const char	*want;
};

#define BADNAME	" must be a letter or '_' followed by letters, digits and '_'"

static const struct err_case err_cases[] = {
	{ "A", 0, ".env:1:2: expected '=' after the name" },
	{ "A\n", 0, ".env:1:2: expected '=' after the name" },
	{ "FOO BAR=1", 0, ".env:1:5: expected '=' after the name" },
	{ "A=1\nB\r\n", 0, ".env:2:2: expected '=' after the name" },
	{ "export A", 0, ".env:1:9: expected '=' after the name" },
	{ "export", 0, ".env:1:7: expected '=' after the name" },
	{ "\xef\xbb\xbf" "X", 0, ".env:1:2: expected '=' after the name" },
	{ "1A=x", 0, ".env:1:1: env name '1A'" BADNAME },
	{ "A-B=1", 0, ".env:1:1: env name 'A-B'" BADNAME },
	{ "=x", 0, ".env:1:1: env name ''" BADNAME },
	{ "A=1\n  B.C=2", 0, ".env:2:3: env name 'B.C'" BADNAME },
	{ "export 9=1", 0, ".env:1:8: env name '9'" BADNAME },
	{ "\"A\"=1", 0, ".env:1:1: env name '\"A\"'" BADNAME },
	{ "A\x1b[31m=1", 0, ".env:1:1: env name 'A\\e[31m'" BADNAME },
	{ "A=1\0B=2", 7, ".env:1:4: NUL byte" },
	{ "# x\0", 4, ".env:1:4: NUL byte" },
	{ "A=\"abc", 0, ".env:1:3: unterminated \"...\" value" },
	{ "A=\"abc\\\"", 0, ".env:1:3: unterminated \"...\" value" },
	{ "A=1\nB = 'abc\n\nC=1", 0, ".env:2:5: unterminated '...' value" },
	{ "A=\"x\" y", 0, ".env:1:7: unexpected text after the closing quote" },
	{ "A='x'y", 0, ".env:1:6: unexpected text after the closing quote" },
	{ "A=\"x\"\r", 0,
	  ".env:1:6: unexpected text after the closing quote" },
	/* expand_text()'s errors, at the '$' in the file. */
	{ "A=${B", 0, ".env:1:3: unterminated ${" },
	{ "A=x ${B # c", 0, ".env:1:5: unterminated ${" },
	{ "A=$B$C${", 0, ".env:1:7: unterminated ${" },
	{ "A=\"\\n\\t\\$${\"", 0, ".env:1:10: unterminated ${" },
	{ "\nA=\"a\nb ${1x}\"", 0,
	  ".env:3:3: invalid variable name '1x'" },
	{ "A=${a b}", 0, ".env:1:3: invalid variable name 'a b'" },
	{ "A=${}", 0, ".env:1:3: invalid variable name ''" },
	{ "A=${B:+x}", 0, ".env:1:3: unsupported '${B:+x}': only ${NAME} and "
	  "${NAME:-default}" },
	{ "A=${B:-${at column 9}}", 0,
	  ".env:1:8: invalid variable name 'at column 9'" },
};
#define NERR	(sizeof err_cases / sizeof err_cases[0])

START_TEST(test_err_table)
{
	const struct err_case	*c = &err_cases[_i];
	char			*cause;

	cause = parse_err(c->in, c->len != 0 ? c->len : strlen(c->in));
	ck_assert_msg(strcmp(cause, c->want) == 0, "case %d: got '%s', "
	    "want '%s'", _i, cause, c->want);
	free(cause);
}
END_TEST

/* Return a new buffer of head, n copies of rep, then tail; *len set. */
static char *
build(const char *head, const char *rep, size_t n, const char *tail,
    size_t *len)
{
	size_t	 hl = strlen(head), rl = strlen(rep), tl = strlen(tail), i;
	char	*s;

	*len = hl + n * rl + tl;
	s = malloc(*len + 1);
	ck_assert_ptr_nonnull(s);
	memcpy(s, head, hl);
	for (i = 0; i < n; i++)
		memcpy(s + hl + i * rl, rep, rl);
	memcpy(s + hl + n * rl, tail, tl);
	s[*len] = '\0';
	return s;
}

/* ${...} nested deeper than expand's limit, closed or not. */
START_TEST(test_deep_nesting)
{
	char	*a, *b, *got, *cause, want[64];
	size_t	 la, lb;

	/* EXPAND_MAX_DEPTH defaults nest; one more is refused at its '$'. */
	a = build("A=", "${X:-", EXPAND_MAX_DEPTH, "v", &la);
	b = build(a, "}", EXPAND_MAX_DEPTH, "", &lb);
	got = parse_ok(b, lb);
	ck_assert_str_eq(got, "A=v");
	free(got);
	free(a);
	free(b);
	snprintf(want, sizeof want, ".env:1:%d: ${...} nested too deeply",
	    3 + 5 * EXPAND_MAX_DEPTH);
	a = build("A=", "${X:-", EXPAND_MAX_DEPTH + 1, "v", &la);
	b = build(a, "}", EXPAND_MAX_DEPTH + 1, "", &lb);
	cause = parse_err(b, lb);
	ck_assert_str_eq(cause, want);
	free(cause);
	free(a);
	free(b);

	/* 100,000 closed: refused at the first too deep. */
	a = build("A=", "${X:-", 100000, "", &la);
	b = build(a, "}", 100000, "", &lb);
	cause = parse_err(b, lb);
	ck_assert_str_eq(cause, want);
	free(cause);
	free(b);

	/* 100,000 unclosed: one error, at the first. */
	cause = parse_err(a, la);
	ck_assert_str_eq(cause, ".env:1:3: unterminated ${");
	free(cause);
	free(a);
}
END_TEST

/* A file of the largest size parses; one byte more is refused. */
START_TEST(test_size_limit)
{
	char	*in, *got, *cause;
	size_t	 len;

	/* One line of the whole size: a value... */
	in = build("A=", "x", DOTENV_MAX_SIZE - 2, "", &len);
	ck_assert_uint_eq(len, DOTENV_MAX_SIZE);
	got = parse_ok(in, len);
	ck_assert_uint_eq(strlen(got), DOTENV_MAX_SIZE);
	free(got);
	free(in);
	/* ...or a name. */
	in = build("", "N", DOTENV_MAX_SIZE - 2, "=1", &len);
	got = parse_ok(in, len);
	ck_assert_uint_eq(strlen(got), DOTENV_MAX_SIZE);
	free(got);
	free(in);

	in = build("A=", "x", DOTENV_MAX_SIZE - 1, "", &len);
	cause = parse_err(in, len);
	ck_assert_str_eq(cause, ".env: larger than 1048576 bytes");
	free(cause);
	free(in);

	/* An unterminated quote at the start of a full file. */
	in = build("A=\"", "x", DOTENV_MAX_SIZE - 3, "", &len);
	cause = parse_err(in, len);
	ck_assert_str_eq(cause, ".env:1:3: unterminated \"...\" value");
	free(cause);
	free(in);
}
END_TEST

/* DOTENV_MAX_ENTRIES names, and values made in all. */
START_TEST(test_entry_and_output_limits)
{
	char	*in, *cause, *got, line[32], want[64];
	size_t	 len, i, cap = (DOTENV_MAX_ENTRIES + 2) * 16;

	in = calloc(1, cap);
	ck_assert_ptr_nonnull(in);
	for (i = 0; i < DOTENV_MAX_ENTRIES; i++) {
		snprintf(line, sizeof line, "V%zu=%zu\n", i, i);
		strcat(in, line);
	}
	/* A name given again is no new name. */
	strcat(in, "V0=again\n");
	got = parse_ok(in, strlen(in));
	ck_assert_ptr_nonnull(strstr(got, "V0=again|V1=1|"));
	free(got);
	strcat(in, "NEW=1\n");
	cause = parse_err(in, strlen(in));
	snprintf(want, sizeof want, ".env:%d:1: more than %d names",
	    DOTENV_MAX_ENTRIES + 2, DOTENV_MAX_ENTRIES);
	ck_assert_str_eq(cause, want);
	free(cause);
	free(in);

	/* One value over expand's limit, at the value. */
	in = build("A=", "x", 600000, "\nB=${A}${A}", &len);
	cause = parse_err(in, len);
	ck_assert_str_eq(cause, ".env:2:3: result longer than 1048576 bytes");
	free(cause);
	free(in);

	/* Values of 0.5 + 1 + 1 + 1 MB, then 1 more: too many in all. */
	in = build("A=", "x", 500000, "\nB=${A}${A}\nB=${A}${A}\nB=${A}${A}\n"
	    "B=${A}${A}\n", &len);
	cause = parse_err(in, len);
	ck_assert_str_eq(cause, ".env:5:1: values longer than 4194304 bytes "
	    "in all");
	free(cause);
	free(in);
}
END_TEST

/* Random bytes: never a crash, and either entries or "NAME:L:C: msg". */
START_TEST(test_random_bytes)
{
	static const char	 alphabet[] = "AB_=$${}:-'\"\\#\n\r \texport1\xff";
	char			 buf[64], **kv, *cause;
	size_t			 n, len, i;
	unsigned int		 seed = 13;
	int			 round;

	for (round = 0; round < 20000; round++) {
		len = (size_t)(rand_r(&seed) % sizeof buf);
		for (i = 0; i < len; i++)
			buf[i] = alphabet[rand_r(&seed) %
			    (sizeof alphabet - 1)];
		cause = NULL;
		if (dotenv_parse(".env", buf, len, lookup, NULL, &kv, &n,
		    &cause) == 0) {
			ck_assert_ptr_null(kv[n]);
			for (i = 0; i < n; i++)
				ck_assert_ptr_nonnull(strchr(kv[i], '='));
			dotenv_free(kv, n);
		} else {
			ck_assert_msg(strncmp(cause, ".env:", 5) == 0 &&
			    strstr(cause, ": ") != NULL, "'%s'", cause);
			free(cause);
		}
	}
}
END_TEST

/* The temporary directory of the file tests. */
static char	tmp[64];

/* Make the temporary directory. */
static void
tmp_setup(void)
{
	signal(SIGPIPE, SIG_IGN);
	strcpy(tmp, "/tmp/check_dotenv.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
}

/* Remove it. */
static void
tmp_teardown(void)
{
	char	cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", tmp);
}

/* Write text to name in the temporary directory; return its path. */
static const char *
put(const char *name, const char *text)
{
	static char	path[PATH_MAX];
	FILE		*f;

	snprintf(path, sizeof path, "%s/%s", tmp, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, strlen(text), f), strlen(text));
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

/* Load path; assert it fails and its cause is "PATH: want". */
static void
load_err(const char *path, const char *want)
{
	char	**kv, *cause = NULL, full[PATH_MAX + 128];
	size_t	  n;

	ck_assert_int_eq(dotenv_load(path, NULL, NULL, &kv, &n, &cause), -1);
	ck_assert_ptr_null(kv);
	ck_assert_uint_eq(n, 0);
	snprintf(full, sizeof full, "%s: %s", path, want);
	ck_assert_str_eq(cause, full);
	free(cause);
}

START_TEST(test_load)
{
	char	**kv, *cause = NULL, path[PATH_MAX], link[PATH_MAX + 64], *s;
	size_t	  n, len;
	FILE	 *f;

	snprintf(path, sizeof path, "%s", put("ok.env",
	    "# settings\nexport A=1\nB=\"two\nlines\" # c\nC=${A}$OUTER\n"));
	ck_assert_int_eq(dotenv_load(path, lookup, NULL, &kv, &n, &cause), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(kv[0], "A=1");
	ck_assert_str_eq(kv[1], "B=two\nlines");
	ck_assert_str_eq(kv[2], "C=1out");
	ck_assert_ptr_null(kv[3]);
	dotenv_free(kv, n);

	/* Its parse errors are named by the path. */
	snprintf(path, sizeof path, "%s", put("bad.env", "A=1\nB C=2\n"));
	ck_assert_int_eq(dotenv_load(path, NULL, NULL, &kv, &n, &cause), -1);
	snprintf(link, sizeof link, "%s:2:3: expected '=' after the name",
	    path);
	ck_assert_str_eq(cause, link);
	free(cause);

	snprintf(path, sizeof path, "%s/missing.env", tmp);
	load_err(path, "No such file or directory");

	/* A symbolic link is not followed, even to a good file. */
	snprintf(link, sizeof link, "%s/link.env", tmp);
	snprintf(path, sizeof path, "%s/ok.env", tmp);
	ck_assert_int_eq(symlink(path, link), 0);
	load_err(link, "a symbolic link (not followed)");

	load_err(tmp, "not a regular file");
	load_err("/dev/null", "not a regular file");
	/* A FIFO with no writer: refused at once, not waited on. */
	snprintf(path, sizeof path, "%s/fifo", tmp);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	load_err(path, "not a regular file");

	/* At most the limit. */
	snprintf(path, sizeof path, "%s/big.env", tmp);
	s = build("A=", "x", DOTENV_MAX_SIZE - 2, "", &len);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(s, 1, len, f), len);
	ck_assert_int_eq(fflush(f), 0);
	ck_assert_int_eq(dotenv_load(path, NULL, NULL, &kv, &n, &cause), 0);
	ck_assert_uint_eq(strlen(kv[0]), DOTENV_MAX_SIZE);
	dotenv_free(kv, n);
	ck_assert_int_eq(fputc('x', f), 'x');
	ck_assert_int_eq(fclose(f), 0);
	load_err(path, "larger than 1048576 bytes");
	free(s);

	/* Unreadable (not as root, who reads anything). */
	if (geteuid() != 0) {
		snprintf(path, sizeof path, "%s", put("secret.env", "A=1\n"));
		ck_assert_int_eq(chmod(path, 0), 0);
		load_err(path, "Permission denied");
	}
}
END_TEST

/*
 * A stack in a temporary directory, for launch_new_at(): the settings'
 * env file (a.env), a job's (b.env), ports and replicas, the new fields.
 */
static const char launch_toml[] =
    "[settings]\n"
    "shell = \"/bin/sh\"\n"
    "env_file = [\"a.env\"]\n"
    "[[job]]\n"
    "name = \"web\"\n"
    "command = \"sh -c 'echo \\\"$PORT $FROM_FILE\\\"'\"\n"
    "env_file = [\"b.env\"]\n"
    "env = { L4 = \"job\", FROM_JOB = \"${SHARED}+${L2}\", "
    "SLOT = \"${JOBDECK_REPLICA:-none}:${PORT}\" }\n"
    "port = 7000\n"
    "replicas = 3\n"
    "[[job]]\n"
    "name = \"stop\"\n"
    "command = \"true\"\n"
    "inherit_env = false\n"
    "env = { PORT = \"9\" }\n"
    "port = 5100\n"
    "stop_signal = \"SIGINT\"\n"
    "stop_command = \"kill -USR1 $PID\"\n"
    "stop_timeout = 2.5\n"
    "restart_delay_max = 30\n"
    "group = \"backend\"\n"
    "priority = 7\n"
    "[[job]]\n"
    "name = \"missing\"\n"
    "command = \"true\"\n"
    "env_file = [\"b.env\", \"nope.env\"]\n"
    "[[job]]\n"
    "name = \"bad\"\n"
    "command = \"true\"\n"
    "env_file = [\"sub/bad.env\"]\n";

/* The layers: jobdeck's own (L1..L4), the session's exports (L2..L4). */
static char *const own_env[] = {
	"PATH=/usr/bin:/bin", "HOME=/tmp", "SHELL=/bin/sh", "LC_ALL=C",
	"L1=own", "L2=own", "L3=own", "L4=own", NULL
};

/* Return name's value in the spec's environment, or NULL. */
static const char *
spec_env(const struct job_spec *spec, const char *name)
{
	size_t	i, len = strlen(name);

	for (i = 0; spec->envp[i] != NULL; i++) {
		if (strncmp(spec->envp[i], name, len) == 0 &&
		    spec->envp[i][len] == '=')
			return spec->envp[i] + len + 1;
	}
	return NULL;
}

/* Parse the stack and write its env files; make a session over own_env. */
static struct config *
stack_setup(struct session **session)
{
	struct config	*cfg = NULL;
	char		*cause = NULL, dir[PATH_MAX];

	put("a.env", "L3=file\nL4=file\nFROM_FILE=a\nSHARED=from-a\n"
	    "PORT=1\nA_REF=${L2}-$L1\nJOBDECK_REPLICA=stale\n");
	put("b.env", "B_REF=$SHARED\nSHARED=from-b\nB_SELF=$SHARED\n");
	snprintf(dir, sizeof dir, "%s/sub", tmp);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	put("sub/bad.env", "OK=1\n\nexport NO VALUE\n");
	ck_assert_msg(config_parse("stack.toml", launch_toml,
	    strlen(launch_toml), &cfg, &cause) == 0, "%s", cause);
	*session = session_new(own_env);
	ck_assert_int_eq(session_export(*session, "L2=exp", &cause), 0);
	ck_assert_int_eq(session_export(*session, "L3=exp", &cause), 0);
	ck_assert_int_eq(session_export(*session, "L4=exp", &cause), 0);
	return cfg;
}

/* job env > env files > the session's exports > jobdeck's own. */
START_TEST(test_launch_precedence)
{
	struct config		*cfg;
	struct session		*session;
	struct launch		*l;
	const struct job_spec	*spec;
	char			*cause = NULL;

	cfg = stack_setup(&session);
	l = launch_new_at(&cfg->jobs[0], &cfg->settings, session, NULL, 0, 0,
	    tmp, &cause);
	ck_assert_msg(l != NULL, "%s", cause);
	spec = launch_spec(l);
	ck_assert_str_eq(spec_env(spec, "L1"), "own");
	ck_assert_str_eq(spec_env(spec, "L2"), "exp");
	ck_assert_str_eq(spec_env(spec, "L3"), "file");
	ck_assert_str_eq(spec_env(spec, "L4"), "job");
	ck_assert_str_eq(spec_env(spec, "PATH"), "/usr/bin:/bin");
	/* A file's ${VAR}: the session below it; */
	ck_assert_str_eq(spec_env(spec, "A_REF"), "exp-own");
	/* the files before it, then the entries above in it. */
	ck_assert_str_eq(spec_env(spec, "B_REF"), "from-a");
	ck_assert_str_eq(spec_env(spec, "B_SELF"), "from-b");
	ck_assert_str_eq(spec_env(spec, "SHARED"), "from-b");
	/* The job's env sees the files. */
	ck_assert_str_eq(spec_env(spec, "FROM_JOB"), "from-b+exp");
	/* port is over the files' PORT. */
	ck_assert_str_eq(spec_env(spec, "PORT"), "7000");
	ck_assert_str_eq(spec->name, "web");
	launch_free(l);

	/* inherit_env = false: files and PORT still, the job's env over. */
	l = launch_new_at(&cfg->jobs[1], &cfg->settings, session, NULL, 0, 0,
	    tmp, &cause);
	ck_assert_msg(l != NULL, "%s", cause);
	spec = launch_spec(l);
	ck_assert_ptr_null(spec_env(spec, "L1"));
	ck_assert_ptr_null(spec_env(spec, "L2"));
	ck_assert_str_eq(spec_env(spec, "L3"), "file");
	ck_assert_str_eq(spec_env(spec, "A_REF"), "exp-own");
	ck_assert_str_eq(spec_env(spec, "PORT"), "9");
	launch_free(l);

	session_free(session);
	config_free(cfg);
}
END_TEST

/*
 * PORT = port + replica - 1 and JOBDECK_REPLICA = replica, which the
 * job's env reads; replica 0 is the job itself, named NAME, with no
 * JOBDECK_REPLICA (an env file's is dropped); replica r is NAME.r.
 */
START_TEST(test_launch_port_replicas)
{
	struct config		*cfg;
	struct session		*session;
	struct launch		*l;
	char			*cause = NULL, name[16], port[16], slot[32];
	int			 r;

	cfg = stack_setup(&session);
	for (r = 0; r <= 3; r++) {
		l = launch_new_at(&cfg->jobs[0], &cfg->settings, session, NULL,
		    0, r, tmp, &cause);
		ck_assert_msg(l != NULL, "%s", cause);
		snprintf(port, sizeof port, "%d", r == 0 ? 7000 : 7000 + r - 1);
		ck_assert_str_eq(spec_env(launch_spec(l), "PORT"), port);
		if (r == 0) {
			snprintf(name, sizeof name, "web");
			ck_assert_ptr_null(spec_env(launch_spec(l),
			    "JOBDECK_REPLICA"));
			snprintf(slot, sizeof slot, "none:%s", port);
		} else {
			snprintf(name, sizeof name, "web.%d", r);
			snprintf(slot, sizeof slot, "%d", r);
			ck_assert_str_eq(spec_env(launch_spec(l),
			    "JOBDECK_REPLICA"), slot);
			snprintf(slot, sizeof slot, "%d:%s", r, port);
		}
		ck_assert_str_eq(spec_env(launch_spec(l), "SLOT"), slot);
		ck_assert_str_eq(launch_spec(l)->name, name);
		launch_free(l);
	}
	/* No port: the files' PORT stands; JOBDECK_REPLICA all the same. */
	cfg->jobs[0].port = 0;
	l = launch_new_at(&cfg->jobs[0], &cfg->settings, session, NULL, 0, 2,
	    tmp, &cause);
	ck_assert_msg(l != NULL, "%s", cause);
	ck_assert_str_eq(spec_env(launch_spec(l), "PORT"), "1");
	ck_assert_str_eq(spec_env(launch_spec(l), "JOBDECK_REPLICA"), "2");
	launch_free(l);
	session_free(session);
	config_free(cfg);
}
END_TEST

/* A missing or bad file fails the launch, named as configured. */
START_TEST(test_launch_errors)
{
	struct config		*cfg;
	struct session		*session;
	char			*cause = NULL;

	cfg = stack_setup(&session);
	ck_assert_ptr_null(launch_new_at(&cfg->jobs[2], &cfg->settings,
	    session, NULL, 0, 0, tmp, &cause));
	ck_assert_str_eq(cause,
	    "env_file nope.env: No such file or directory");
	free(cause);
	ck_assert_ptr_null(launch_new_at(&cfg->jobs[3], &cfg->settings,
	    session, NULL, 0, 0, tmp, &cause));
	ck_assert_str_eq(cause,
	    "env_file sub/bad.env:3:11: expected '=' after the name");
	free(cause);

	/* The settings' file is read by every job: missing, all fail. */
	free(cfg->settings.env_file[0]);
	cfg->settings.env_file[0] = strdup(".env");
	ck_assert_ptr_null(launch_new_at(&cfg->jobs[1], &cfg->settings,
	    session, NULL, 0, 0, tmp, &cause));
	ck_assert_str_eq(cause, "env_file .env: No such file or directory");
	free(cause);
	ck_assert_ptr_null(launch_new(&cfg->jobs[1], &cfg->settings, session,
	    NULL, 0, &cause));
	ck_assert_str_eq(cause, "env_file .env: No such file or directory");
	free(cause);
	session_free(session);
	config_free(cfg);
}
END_TEST

/* Relative paths: base_dir, else the session's cwd; absolute ones as set. */
START_TEST(test_launch_paths)
{
	struct config		*cfg;
	struct session		*session;
	struct launch		*l;
	char			*cause = NULL, abs[PATH_MAX];

	cfg = stack_setup(&session);
	/* base_dir NULL and the session elsewhere: not found. */
	ck_assert_int_eq(session_cd(session, "/", &cause), 0);
	ck_assert_ptr_null(launch_new_at(&cfg->jobs[0], &cfg->settings,
	    session, NULL, 0, 0, NULL, &cause));
	ck_assert_str_eq(cause, "env_file a.env: No such file or directory");
	free(cause);
	/* base_dir wins over the session's cwd. */
	l = launch_new_at(&cfg->jobs[0], &cfg->settings, session, NULL, 0, 0,
	    tmp, &cause);
	ck_assert_msg(l != NULL, "%s", cause);
	ck_assert_str_eq(spec_env(launch_spec(l), "FROM_FILE"), "a");
	launch_free(l);
	/* base_dir NULL: the session's cwd. */
	ck_assert_int_eq(session_cd(session, tmp, &cause), 0);
	l = launch_new_at(&cfg->jobs[0], &cfg->settings, session, NULL, 0, 0,
	    NULL, &cause);
	ck_assert_msg(l != NULL, "%s", cause);
	ck_assert_str_eq(spec_env(launch_spec(l), "SHARED"), "from-b");
	launch_free(l);
	/* An absolute path, from anywhere. */
	ck_assert_int_eq(session_cd(session, "/", &cause), 0);
	snprintf(abs, sizeof abs, "%s/a.env", tmp);
	free(cfg->settings.env_file[0]);
	cfg->settings.env_file[0] = strdup(abs);
	l = launch_new_at(&cfg->jobs[1], &cfg->settings, session, NULL, 0, 0,
	    "/nonexistent", &cause);
	ck_assert_msg(l != NULL, "%s", cause);
	ck_assert_str_eq(spec_env(launch_spec(l), "FROM_FILE"), "a");
	launch_free(l);
	session_free(session);
	config_free(cfg);
}
END_TEST

/* The new fields of the spec, owned by the launch. */
START_TEST(test_launch_spec_fields)
{
	struct config		*cfg;
	struct session		*session;
	struct launch		*l, *l0, *l2;
	const struct job_spec	*spec;
	char			*cause = NULL;

	cfg = stack_setup(&session);
	l = launch_new_at(&cfg->jobs[1], &cfg->settings, session, NULL, 0, 0,
	    tmp, &cause);
	ck_assert_msg(l != NULL, "%s", cause);
	l0 = launch_new_at(&cfg->jobs[0], &cfg->settings, session, NULL, 0, 0,
	    tmp, &cause);
	ck_assert_msg(l0 != NULL, "%s", cause);

	/* A signal no one checked is an error, not SIGTERM. */
	free(cfg->jobs[0].stop_signal);
	cfg->jobs[0].stop_signal = strdup("SIGNOPE");
	ck_assert_ptr_null(launch_new_at(&cfg->jobs[0], &cfg->settings,
	    session, NULL, 0, 0, tmp, &cause));
	ck_assert_str_eq(cause, "stop_signal: unknown signal 'SIGNOPE'");
	free(cause);
	free(cfg->jobs[0].stop_signal);
	cfg->jobs[0].stop_signal = NULL;

	/* stop_timeout = 0 is SIGKILL at once, not the deck's grace (0). */
	cfg->jobs[0].stop_timeout = 0;
	l2 = launch_new_at(&cfg->jobs[0], &cfg->settings, session, NULL, 0,
	    0, tmp, &cause);
	ck_assert_msg(l2 != NULL, "%s", cause);
	ck_assert_int_eq(launch_spec(l2)->stop_timeout_ms, 1);
	launch_free(l2);

	/* The launch's own copies, not the config's strings. */
	config_free(cfg);
	spec = launch_spec(l);
	ck_assert_int_eq(spec->stop_signal, SIGINT);
	ck_assert_str_eq(spec->stop_command, "kill -USR1 $PID");
	ck_assert_int_eq(spec->stop_timeout_ms, 2500);
	ck_assert_int_eq(spec->restart_delay_max_ms, 30000);
	ck_assert_str_eq(spec->group, "backend");
	ck_assert_int_eq(spec->priority, 7);
	launch_free(l);

	/* The defaults: SIGTERM (0), no command, the deck's grace (-1). */
	spec = launch_spec(l0);
	ck_assert_int_eq(spec->stop_signal, 0);
	ck_assert_ptr_null(spec->stop_command);
	ck_assert_int_eq(spec->stop_timeout_ms, -1);
	ck_assert_int_eq(spec->restart_delay_max_ms, 60000);
	ck_assert_ptr_null(spec->group);
	ck_assert_int_eq(spec->priority, 0);
	launch_free(l0);
	session_free(session);
}
END_TEST

/* What the child's run wrote, for the real child. */
struct child {
	char	out[4096];
	size_t	len;
	int	exited;
};

/* Keep the child's output. */
static void
child_output(struct job *job, const char *buf, size_t len, void *arg)
{
	struct child	*c = arg;

	(void)job;
	if (len > sizeof c->out - 1 - c->len)
		len = sizeof c->out - 1 - c->len;
	memcpy(c->out + c->len, buf, len);
	c->len += len;
	c->out[c->len] = '\0';
}

/* Count the child's end. */
static void
child_exited(struct job *job, void *arg)
{
	struct child	*c = arg;

	(void)job;
	c->exited++;
}

static const struct jobtable_cbs child_cbs = {
	.output = child_output,
	.exited = child_exited,
};

/* A real child through a jobtable sees PORT and the env file's value. */
START_TEST(test_launch_child)
{
	struct config	*cfg;
	struct session	*session;
	struct launch	*l;
	struct loop	*loop;
	struct jobtable	*jt;
	struct job	*job;
	struct child	 c;
	char		*cause = NULL;
	int64_t		 end;

	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	memset(&c, 0, sizeof c);
	cfg = stack_setup(&session);
	loop = loop_new();
	jt = jobtable_new(loop);
	ck_assert_int_ge(jobtable_subscribe(jt, &child_cbs, &c), 0);

	l = launch_new_at(&cfg->jobs[0], &cfg->settings, session, NULL, 0, 2,
	    tmp, &cause);
	ck_assert_msg(l != NULL, "%s", cause);
	launch_spec(l)->no_pty = 1;
	job = jobtable_spawn(jt, launch_spec(l), &cause);
	ck_assert_msg(job != NULL, "spawn: %s", cause);
	launch_free(l);
	ck_assert_str_eq(job_name(job), "web.2");

	end = loop_now_ms() + 10000;
	while ((c.exited == 0 || job_out_fd(job) != -1) &&
	    loop_now_ms() < end)
		ck_assert_int_ne(loop_run_once(loop, 50), -1);
	ck_assert_msg(c.exited == 1, "the child did not end");
	ck_assert_int_eq(job_state(job), JOB_COMPLETED);
	ck_assert_str_eq(c.out, "7001 a\n");

	jobtable_free(jt);
	loop_free(loop);
	session_free(session);
	config_free(cfg);
}
END_TEST

/* Build the dotenv suite. */
static Suite *
dotenv_suite(void)
{
	Suite	*s = suite_create("dotenv");
	TCase	*tc;

	tc = tcase_create("parse");
	tcase_add_loop_test(tc, test_ok_table, 0, (int)NOK);
	tcase_add_loop_test(tc, test_err_table, 0, (int)NERR);
	suite_add_tcase(s, tc);

	tc = tcase_create("hostile");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_deep_nesting);
	tcase_add_test(tc, test_size_limit);
	tcase_add_test(tc, test_entry_and_output_limits);
	tcase_add_test(tc, test_random_bytes);
	suite_add_tcase(s, tc);

	tc = tcase_create("files");
	tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_load);
	tcase_add_test(tc, test_launch_precedence);
	tcase_add_test(tc, test_launch_port_replicas);
	tcase_add_test(tc, test_launch_errors);
	tcase_add_test(tc, test_launch_paths);
	tcase_add_test(tc, test_launch_spec_fields);
	tcase_add_test(tc, test_launch_child);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr = srunner_create(dotenv_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
