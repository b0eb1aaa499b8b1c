/*
 * check_session.c: tests for the command line's shell state on a real
 * directory tree: cd in all its forms and errors, export and unset as
 * seen by session_env, PWD, the shell, and the word splitter.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "name.h"
#include "loop.h"
#include "jobtable.h"
#include "session.h"
#include "sessionsh.h"
#include "need.h"
#include "skip.h"

/*
 * The tree each test gets, under base:
 *	home/			HOME
 *	real/sub/
 *	a/link -> ../real
 *	sub/			only reachable from a/link/.. physically
 *	file			a regular file
 *	"with space"/
 */
static char	base[PATH_MAX];
static char	home[PATH_MAX + 8];
static char	home_env[PATH_MAX + 16];

/* Build base/rel joined into a static buffer (one of four, rotating). */
static const char *
at(const char *rel)
{
	static char	buf[4][PATH_MAX * 2];
	static int	n;
	char		*b = buf[n++ % 4];

	if (*rel == '\0')
		snprintf(b, PATH_MAX * 2, "%s", base);
	else
		snprintf(b, PATH_MAX * 2, "%s/%s", base, rel);
	return b;
}

/* Make the tree and chdir into base; the process cwd must never move. */
static void
setup(void)
{
	char	tmpl[] = "/tmp/check_session.XXXXXX";
	int	fd;

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	ck_assert_ptr_nonnull(realpath(tmpl, base));
	snprintf(home, sizeof home, "%s/home", base);
	snprintf(home_env, sizeof home_env, "HOME=%s", home);
	ck_assert_int_eq(mkdir(home, 0755), 0);
	ck_assert_int_eq(mkdir(at("real"), 0755), 0);
	ck_assert_int_eq(mkdir(at("real/sub"), 0755), 0);
	ck_assert_int_eq(mkdir(at("a"), 0755), 0);
	ck_assert_int_eq(symlink("../real", at("a/link")), 0);
	ck_assert_int_eq(mkdir(at("sub"), 0755), 0);
	ck_assert_int_eq(mkdir(at("with space"), 0755), 0);
	fd = open(at("file"), O_WRONLY | O_CREAT, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(chdir(base), 0);
}

/* Remove the tree. */
static void
teardown(void)
{
	char	cmd[PATH_MAX * 2 + 64];

	if (chdir("/") != 0)
		return;
	snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s'; rm -rf '%s'", base,
	    base);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", base);
}

/* A session over a small fixed environment (plus extra, may be NULL). */
static struct session *
new_session(const char *extra)
{
	char	*env[] = { home_env, "PATH=/usr/bin:/bin", "FOO=foo",
	    "FOO=shadowed", "LANG=C", (char *)extra, NULL };

	return session_new(env);
}

/* Return the value of name in a session_env() array, or NULL. */
static const char *
env_value(char **env, const char *name)
{
	size_t	len = strlen(name);
	int	i;

	for (i = 0; env[i] != NULL; i++) {
		if (strncmp(env[i], name, len) == 0 && env[i][len] == '=')
			return env[i] + len + 1;
	}
	return NULL;
}

/* Return how many entries of env are for name. */
static int
env_count(char **env, const char *name)
{
	size_t	len = strlen(name);
	int	i, n = 0;

	for (i = 0; env[i] != NULL; i++) {
		if (strncmp(env[i], name, len) == 0 && env[i][len] == '=')
			n++;
	}
	return n;
}

/* cd, failing the test with the message on error. */
static void
cd_ok(struct session *s, const char *dir)
{
	char	*cause = NULL;

	if (session_cd(s, dir, &cause) != 0)
		ck_abort_msg("cd %s: %s", dir == NULL ? "(none)" : dir, cause);
}

/* cd that must fail with exactly want, leaving the cwd alone. */
static void
cd_fails(struct session *s, const char *dir, const char *want)
{
	char	*cause = NULL, before[PATH_MAX * 2];

	snprintf(before, sizeof before, "%s", session_cwd(s));
	ck_assert_int_eq(session_cd(s, dir, &cause), -1);
	ck_assert_ptr_nonnull(cause);
	ck_assert_str_eq(cause, want);
	ck_assert_str_eq(session_cwd(s), before);
	free(cause);
}

START_TEST(test_new_copies_env_and_cwd)
{
	struct session	 *s = new_session(NULL);
	char		**env;

	ck_assert_str_eq(session_cwd(s), base);
	ck_assert_str_eq(session_getenv(s, "FOO"), "foo");
	ck_assert_str_eq(session_getenv(s, "HOME"), home);
	ck_assert_ptr_null(session_getenv(s, "NOPE"));
	ck_assert_str_eq(session_getenv(s, "PWD"), base);
	env = session_env(s);
	ck_assert_int_eq(env_count(env, "FOO"), 1);
	ck_assert_str_eq(env_value(env, "FOO"), "foo");
	ck_assert_str_eq(env_value(env, "PWD"), base);
	ck_assert_str_eq(env_value(env, "LANG"), "C");
	session_env_free(env);
	session_free(s);

	/* A NULL environment is an empty one. */
	s = session_new(NULL);
	ck_assert_str_eq(session_cwd(s), base);
	ck_assert_ptr_null(session_getenv(s, "HOME"));
	session_free(s);
}
END_TEST

START_TEST(test_new_keeps_logical_pwd)
{
	struct session	*s;
	char		 pwd[PATH_MAX * 2 + 8];

	/* In real/ through a/link: a $PWD naming the same dir is kept. */
	ck_assert_int_eq(chdir(at("real")), 0);
	snprintf(pwd, sizeof pwd, "PWD=%s", at("a/link"));
	s = new_session(pwd);
	ck_assert_str_eq(session_cwd(s), at("a/link"));
	session_free(s);

	/* A stale or unclean $PWD is not. */
	snprintf(pwd, sizeof pwd, "PWD=%s", at("sub"));
	s = new_session(pwd);
	ck_assert_str_eq(session_cwd(s), at("real"));
	session_free(s);
	snprintf(pwd, sizeof pwd, "PWD=%s/../real", at("a/link"));
	s = new_session(pwd);
	ck_assert_str_eq(session_cwd(s), at("real"));
	session_free(s);
}
END_TEST

START_TEST(test_cd_absolute_relative_dotdot)
{
	struct session	*s = new_session(NULL);
	char		 phys[PATH_MAX];

	cd_ok(s, "/usr");
	ck_assert_str_eq(session_cwd(s), "/usr");
	ck_assert_str_eq(session_getenv(s, "PWD"), "/usr");
	ck_assert_str_eq(session_getenv(s, "OLDPWD"), base);
	cd_ok(s, "bin");
	ck_assert_str_eq(session_cwd(s), "/usr/bin");
	cd_ok(s, "..");
	ck_assert_str_eq(session_cwd(s), "/usr");
	cd_ok(s, "../../../..");
	ck_assert_str_eq(session_cwd(s), "/");
	cd_ok(s, "//usr///bin/./");
	ck_assert_str_eq(session_cwd(s), "/usr/bin");
	cd_ok(s, base);
	cd_ok(s, "./real/sub/../sub/.");
	ck_assert_str_eq(session_cwd(s), at("real/sub"));
	cd_ok(s, "../../with space");
	ck_assert_str_eq(session_cwd(s), at("with space"));

	/* The process itself never moves. */
	ck_assert_ptr_nonnull(getcwd(phys, sizeof phys));
	ck_assert_str_eq(phys, base);
	session_free(s);
}
END_TEST

START_TEST(test_cd_symlink_logical_and_physical)
{
	struct session	*s = new_session(NULL);

	cd_ok(s, "a/link");
	ck_assert_str_eq(session_cwd(s), at("a/link"));
	cd_ok(s, "sub");
	ck_assert_str_eq(session_cwd(s), at("a/link/sub"));
	/* .. goes back the way the user came, as in a shell. */
	cd_ok(s, "../..");
	ck_assert_str_eq(session_cwd(s), at("a"));

	/* a/sub does not exist, but real/../sub does: physical fallback. */
	cd_ok(s, "link/../sub");
	ck_assert_str_eq(session_cwd(s), at("sub"));
	session_free(s);
}
END_TEST

START_TEST(test_cd_dash_and_home)
{
	struct session	*s = new_session(NULL);
	char		*cause = NULL;

	cd_fails(s, "-", "cd: OLDPWD not set");
	cd_ok(s, "/usr");
	cd_ok(s, "-");
	ck_assert_str_eq(session_cwd(s), base);
	ck_assert_str_eq(session_getenv(s, "OLDPWD"), "/usr");
	cd_ok(s, "-");
	ck_assert_str_eq(session_cwd(s), "/usr");

	cd_ok(s, NULL);
	ck_assert_str_eq(session_cwd(s), home);
	cd_ok(s, "/");
	cd_ok(s, "");
	ck_assert_str_eq(session_cwd(s), home);

	ck_assert_int_eq(session_unset(s, "HOME", &cause), 0);
	cd_fails(s, NULL, "cd: HOME not set");
	ck_assert_int_eq(session_export(s, "HOME=/nonexistent-home", &cause),
	    0);
	cd_fails(s, NULL,
	    "cd: /nonexistent-home: No such file or directory");
	/* A stale OLDPWD reports its value. */
	ck_assert_int_eq(session_export(s, "OLDPWD=/gone", &cause), 0);
	cd_fails(s, "-", "cd: /gone: No such file or directory");
	session_free(s);
}
END_TEST

START_TEST(test_cd_errors)
{
	struct session	*s = new_session(NULL);
	char		 want[PATH_MAX * 3];

	cd_fails(s, "/nope", "cd: /nope: No such file or directory");
	cd_fails(s, "nope", "cd: nope: No such file or directory");
	cd_fails(s, "/etc/passwd", "cd: /etc/passwd: Not a directory");
	cd_fails(s, "file", "cd: file: Not a directory");
	cd_fails(s, "file/", "cd: file/: Not a directory");
	cd_fails(s, "file/..", "cd: file/..: Not a directory");
	cd_fails(s, "/nope/..", "cd: /nope/..: No such file or directory");
	snprintf(want, sizeof want, "cd: %s/nope: No such file or directory",
	    base);
	cd_fails(s, at("nope"), want);
	ck_assert_str_eq(session_cwd(s), base);
	ck_assert_ptr_null(session_getenv(s, "OLDPWD"));
	session_free(s);
}
END_TEST

START_TEST(test_cd_permission_denied)
{
	struct session	*s = new_session(NULL);
	char		*cause = NULL;
	pid_t		 pid;
	int		 status, ok;

	ck_assert_int_eq(mkdir(at("locked"), 0700), 0);
	if (geteuid() != 0)
		ck_assert_int_eq(chmod(at("locked"), 0), 0);
	else
		ck_assert_int_eq(chmod(base, 0755), 0);
	/* Root may enter anything, so try as nobody, in a child. */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (geteuid() == 0 && (setresgid(65534, 65534, 65534) != 0 ||
		    setresuid(65534, 65534, 65534) != 0))
			_exit(2);
		ok = session_cd(s, "locked", &cause) == -1 &&
		    strcmp(cause, "cd: locked: Permission denied") == 0 &&
		    strcmp(session_cwd(s), base) == 0;
		_exit(ok ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "child status %d", status);
	session_free(s);
}
END_TEST

START_TEST(test_cd_cdpath)
{
	struct session	*s;
	char		 cdpath[PATH_MAX * 2 + 16];

	snprintf(cdpath, sizeof cdpath, "CDPATH=/nonexistent::%s", at("real"));
	s = new_session(cdpath);
	cd_ok(s, "/");
	cd_ok(s, "sub");
	ck_assert_str_eq(session_cwd(s), at("real/sub"));
	/* The empty entry is the cwd, and it comes first. */
	cd_ok(s, base);
	cd_ok(s, "sub");
	ck_assert_str_eq(session_cwd(s), at("sub"));
	/* ./ is never looked up in CDPATH. */
	cd_ok(s, "/");
	cd_fails(s, "./sub", "cd: ./sub: No such file or directory");
	session_free(s);
}
END_TEST

START_TEST(test_export_and_unset)
{
	struct session	 *s = new_session("GONE=x");
	char		**env, *cause = NULL;

	ck_assert_int_eq(session_export(s, "FOO=new value", &cause), 0);
	ck_assert_int_eq(session_export(s, "NEWV=1", &cause), 0);
	ck_assert_int_eq(session_export(s, "EQ=a=b=c", &cause), 0);
	ck_assert_int_eq(session_export(s, "EMPTY=", &cause), 0);
	ck_assert_int_eq(session_export(s, "BARE", &cause), 0);
	ck_assert_int_eq(session_export(s, "LANG", &cause), 0);
	ck_assert_int_eq(session_export(s, "PATH+=:/opt/bin", &cause), 0);
	ck_assert_int_eq(session_export(s, "APP+=x", &cause), 0);
	ck_assert_int_eq(session_unset(s, "GONE", &cause), 0);
	ck_assert_int_eq(session_unset(s, "NEVER_SET", &cause), 0);

	ck_assert_str_eq(session_getenv(s, "FOO"), "new value");
	env = session_env(s);
	ck_assert_int_eq(env_count(env, "FOO"), 1);
	ck_assert_str_eq(env_value(env, "FOO"), "new value");
	ck_assert_str_eq(env_value(env, "NEWV"), "1");
	ck_assert_str_eq(env_value(env, "EQ"), "a=b=c");
	ck_assert_str_eq(env_value(env, "EMPTY"), "");
	ck_assert_str_eq(env_value(env, "BARE"), "");
	ck_assert_str_eq(env_value(env, "LANG"), "C");
	ck_assert_str_eq(env_value(env, "PATH"), "/usr/bin:/bin:/opt/bin");
	ck_assert_str_eq(env_value(env, "APP"), "x");
	ck_assert_ptr_null(env_value(env, "GONE"));
	ck_assert_ptr_null(session_getenv(s, "GONE"));
	session_env_free(env);

	/* Unset, then export again: back, once. */
	ck_assert_int_eq(session_unset(s, "FOO", &cause), 0);
	ck_assert_ptr_null(session_getenv(s, "FOO"));
	ck_assert_int_eq(session_export(s, "FOO=again", &cause), 0);
	env = session_env(s);
	ck_assert_int_eq(env_count(env, "FOO"), 1);
	ck_assert_str_eq(env_value(env, "FOO"), "again");
	session_env_free(env);
	session_free(s);
}
END_TEST

START_TEST(test_export_invalid)
{
	static const struct {
		const char	*arg;
		const char	*want;
	} t[] = {
		{ "1x", "export: `1x': not a valid identifier" },
		{ "1x=2", "export: `1x=2': not a valid identifier" },
		{ "", "export: `': not a valid identifier" },
		{ "=x", "export: `=x': not a valid identifier" },
		{ "A-B=1", "export: `A-B=1': not a valid identifier" },
		{ "A B=1", "export: `A B=1': not a valid identifier" },
		{ "+=1", "export: `+=1': not a valid identifier" },
		{ "A++=1", "export: `A++=1': not a valid identifier" },
	};
	struct session	*s = new_session(NULL);
	char		*cause = NULL;
	size_t		 i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		ck_assert_int_eq(session_export(s, t[i].arg, &cause), -1);
		ck_assert_str_eq(cause, t[i].want);
		free(cause);
	}
	ck_assert_int_eq(session_unset(s, "9", &cause), -1);
	ck_assert_str_eq(cause, "unset: `9': not a valid identifier");
	free(cause);
	ck_assert_int_eq(session_unset(s, "FOO=1", &cause), -1);
	ck_assert_str_eq(cause, "unset: `FOO=1': not a valid identifier");
	free(cause);
	ck_assert_str_eq(session_getenv(s, "FOO"), "foo");
	/* Underscores and digits after the first character are fine. */
	ck_assert_int_eq(session_export(s, "_a1_B2=ok", &cause), 0);
	ck_assert_str_eq(session_getenv(s, "_a1_B2"), "ok");
	session_free(s);
}
END_TEST

/*
 * export, unset and $NAME take exactly the names name_is_ident() does
 * (the one rule for env names, also config's env and ${NAME}): ASCII
 * letters, digits and '_' only.
 */
START_TEST(test_env_name_rule)
{
	static const char *const names[] = {
		"A", "_", "a1", "_9_", "PATH", "1", "9a", "A-B", "A.B", "A B",
		"\xc3\xa9t\xc3\xa9", "a\xc3\xa9", "A\x1b", "",
	};
	struct session	*s = new_session(NULL);
	char		*cause, assign[64], text[64];
	char		**argv;
	size_t		 i;
	int		 ok, argc;

	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		ok = name_is_ident(names[i], strlen(names[i]));
		snprintf(assign, sizeof assign, "%s=v", names[i]);
		cause = NULL;
		ck_assert_int_eq(session_export(s, assign, &cause), ok ? 0 : -1);
		free(cause);
		cause = NULL;
		ck_assert_int_eq(session_unset(s, names[i], &cause),
		    ok ? 0 : -1);
		free(cause);
		cause = NULL;
		ck_assert_int_eq(name_check_env(names[i], &cause), ok ? 0 : -1);
		free(cause);
	}
	/* $NAME ends where the rule says: "$a\xc3\xa9" is $a and the rest. */
	ck_assert_int_eq(session_export(s, "a=x", &cause), 0);
	snprintf(text, sizeof text, "$a\xc3\xa9 ${a}1");
	ck_assert_int_eq(session_split(s, text, &argc, &argv, &cause), 0);
	ck_assert_int_eq(argc, 2);
	ck_assert_str_eq(argv[0], "x\xc3\xa9");
	ck_assert_str_eq(argv[1], "x1");
	session_split_free(argc, argv);
	session_free(s);
}
END_TEST

START_TEST(test_pwd_follows_cwd)
{
	struct session	 *s = new_session("PWD=/somewhere/else");
	char		**env, *cause = NULL;

	ck_assert_str_eq(session_getenv(s, "PWD"), base);
	cd_ok(s, "real");
	/* PWD cannot be made to lie about the cwd. */
	ck_assert_int_eq(session_export(s, "PWD=/tmp", &cause), 0);
	ck_assert_int_eq(session_unset(s, "PWD", &cause), 0);
	env = session_env(s);
	ck_assert_int_eq(env_count(env, "PWD"), 1);
	ck_assert_str_eq(env_value(env, "PWD"), at("real"));
	ck_assert_str_eq(env_value(env, "OLDPWD"), base);
	session_env_free(env);
	session_free(s);
}
END_TEST

START_TEST(test_shell)
{
	struct session	*s = new_session(NULL);
	char		*cause = NULL;

	ck_assert_str_eq(session_shell(s), "/bin/sh");
	ck_assert_int_eq(session_export(s, "SHELL=/bin/bash", &cause), 0);
	ck_assert_str_eq(session_shell(s), "/bin/bash");
	ck_assert_int_eq(session_export(s, "SHELL=bash", &cause), 0);
	ck_assert_str_eq(session_shell(s), "/bin/sh");
	ck_assert_int_eq(session_export(s, "SHELL=/etc/passwd", &cause), 0);
	ck_assert_str_eq(session_shell(s), "/bin/sh");
	ck_assert_int_eq(session_export(s, "SHELL=/bin", &cause), 0);
	ck_assert_str_eq(session_shell(s), "/bin/sh");
	ck_assert_int_eq(session_export(s, "SHELL=/no/such/shell", &cause),
	    0);
	ck_assert_str_eq(session_shell(s), "/bin/sh");
	ck_assert_int_eq(session_export(s, "SHELL=", &cause), 0);
	ck_assert_str_eq(session_shell(s), "/bin/sh");
	session_free(s);
}
END_TEST

/*
 * Split cases: the line and the words joined by '|' with each word in
 * <>, or "!message" for an error.  @ in a want stands for $HOME.
 */
static const struct {
	const char	*line;
	const char	*want;
} split_cases[] = {
	{ "", "" },
	{ "   \t\n ", "" },
	{ "a", "<a>" },
	{ "a b  c", "<a>|<b>|<c>" },
	{ " \ta\tb\n", "<a>|<b>" },
	{ "'a b' c", "<a b>|<c>" },
	{ "'$FOO \\' x", "<$FOO \\>|<x>" },
	{ "'a''b'c", "<abc>" },
	{ "\"a $FOO b\"", "<a foo b>" },
	{ "\"\\\"\\\\\\$FOO\\`\"", "<\"\\$FOO`>" },
	{ "\"a\\nb\"", "<a\\nb>" },
	{ "\"it's\"", "<it's>" },
	{ "'say \"hi\"'", "<say \"hi\">" },
	{ "a\\ b", "<a b>" },
	{ "\\$FOO \\'x\\'", "<$FOO>|<'x'>" },
	{ "a\\\nb", "<ab>" },
	{ "\"a\\\nb\"", "<ab>" },
	{ "trailing\\", "<trailing\\>" },
	{ "$FOO", "<foo>" },
	{ "${FOO}bar x${FOO}", "<foobar>|<xfoo>" },
	{ "$FOO.$FOO", "<foo.foo>" },
	{ "$FOObar", "" },
	{ "x$FOObar", "<x>" },
	{ "a $UNSET b", "<a>|<b>" },
	{ "\"$UNSET\"", "<>" },
	{ "'' \"\"", "<>|<>" },
	{ "a '' b", "<a>|<>|<b>" },
	{ "$SPACED", "<x  y>" },
	{ "$QUOTED", "<'q' \"r\">" },
	{ "$ a$ $1 $? ${FOO}$", "<$>|<a$>|<$1>|<$?>|<foo$>" },
	{ "${FOO", "!unterminated ${" },
	{ "${1x}", "!${1x}: bad substitution" },
	{ "${}", "!${}: bad substitution" },
	{ "${FOO:-x}", "!${FOO:-x}: bad substitution" },
	{ "'abc", "!unterminated quote" },
	{ "\"abc", "!unterminated quote" },
	{ "ok \"a\\\"", "!unterminated quote" },
	{ "~", "<@>" },
	{ "~/x ~/", "<@/x>|<@/>" },
	{ "a~ b/~", "<a~>|<b/~>" },
	{ "'~' \"~\" \\~", "<~>|<~>|<~>" },
	{ "~\"x\"", "<~x>" },
	{ "~nosuchuser-xyz/a", "<~nosuchuser-xyz/a>" },
	{ "X=~/bin:~/sbin", "<X=@/bin:@/sbin>" },
	{ "PATH+=:~/b", "<PATH+=:@/b>" },
	{ "a:~ 1X=~ X\\=~", "<a:~>|<1X=~>|<X=~>" },
	{ "\"$HOME\"/x", "<@/x>" },
};

/* Replace each @ in want by home into buf. */
static const char *
expand_home(const char *want, char *buf, size_t size)
{
	size_t	len = 0;

	for (; *want != '\0' && len + strlen(home) + 1 < size; want++) {
		if (*want == '@') {
			memcpy(buf + len, home, strlen(home));
			len += strlen(home);
		} else
			buf[len++] = *want;
	}
	buf[len] = '\0';
	return buf;
}

START_TEST(test_split_table)
{
	struct session	 *s = new_session("SPACED=x  y");
	char		**argv, *cause, got[4096], want[4096];
	int		  argc, i, r;
	size_t		  k;

	ck_assert_int_eq(session_export(s, "QUOTED='q' \"r\"", &cause), 0);
	for (k = 0; k < sizeof split_cases / sizeof split_cases[0]; k++) {
		cause = NULL;
		argv = (char **)1;
		r = session_split(s, split_cases[k].line, &argc, &argv, &cause);
		if (split_cases[k].want[0] == '!') {
			ck_assert_msg(r == -1, "case %zu <%s> did not fail", k,
			    split_cases[k].line);
			ck_assert_str_eq(cause, split_cases[k].want + 1);
			ck_assert_int_eq(argc, 0);
			ck_assert_ptr_null(argv);
			free(cause);
			continue;
		}
		ck_assert_msg(r == 0, "case %zu <%s>: %s", k,
		    split_cases[k].line, cause);
		got[0] = '\0';
		for (i = 0; i < argc; i++) {
			if (i > 0)
				strcat(got, "|");
			strcat(got, "<");
			strcat(got, argv[i]);
			strcat(got, ">");
		}
		ck_assert_ptr_null(argv[argc]);
		expand_home(split_cases[k].want, want, sizeof want);
		ck_assert_msg(strcmp(got, want) == 0,
		    "case %zu <%s>: got %s, want %s", k, split_cases[k].line,
		    got, want);
		session_split_free(argc, argv);
	}
	session_free(s);
}
END_TEST

START_TEST(test_split_user_home_and_no_home)
{
	struct session	 *s = new_session(NULL);
	struct passwd	 *pw;
	char		**argv, *cause = NULL, want[PATH_MAX + 8];
	int		  argc;

	pw = getpwuid(0);
	ck_assert_ptr_nonnull(pw);
	snprintf(want, sizeof want, "%s/x", pw->pw_dir);
	ck_assert_int_eq(session_split(s, "~root/x", &argc, &argv, &cause),
	    0);
	ck_assert_int_eq(argc, 1);
	ck_assert_str_eq(argv[0], want);
	session_split_free(argc, argv);

	/* Without HOME, ~ stays as it is; NULL is an empty line. */
	ck_assert_int_eq(session_unset(s, "HOME", &cause), 0);
	ck_assert_int_eq(session_split(s, "~/x", &argc, &argv, &cause), 0);
	ck_assert_int_eq(argc, 1);
	ck_assert_str_eq(argv[0], "~/x");
	session_split_free(argc, argv);
	ck_assert_int_eq(session_split(s, NULL, &argc, &argv, &cause), 0);
	ck_assert_int_eq(argc, 0);
	ck_assert_ptr_nonnull(argv);
	ck_assert_ptr_null(argv[0]);
	session_split_free(argc, argv);
	session_free(s);
}
END_TEST

START_TEST(test_split_then_cd)
{
	struct session	 *s = new_session(NULL);
	char		**argv, *cause = NULL;
	int		  argc;

	/* What the cd builtin will do with a typed line. */
	ck_assert_int_eq(session_split(s, "cd \"with space\"", &argc, &argv,
	    &cause), 0);
	ck_assert_int_eq(argc, 2);
	cd_ok(s, argv[1]);
	ck_assert_str_eq(session_cwd(s), at("with space"));
	session_split_free(argc, argv);
	ck_assert_int_eq(session_split(s, "cd ~", &argc, &argv, &cause), 0);
	cd_ok(s, argv[1]);
	ck_assert_str_eq(session_cwd(s), home);
	session_split_free(argc, argv);
	ck_assert_int_eq(session_split(s, "cd $OLDPWD/..", &argc, &argv,
	    &cause), 0);
	cd_ok(s, argv[1]);
	ck_assert_str_eq(session_cwd(s), base);
	session_split_free(argc, argv);
	session_free(s);
}
END_TEST


/* What a done session-shell line left, for the tests below. */
struct sh_result {
	int	 done;
	int	 status;
	char	*output;
	char	*errors;
};

/* Record a session-shell line's end. */
static void
sh_done(int status, const char *output, const char *errors, void *arg)
{
	struct sh_result	*r = arg;

	r->done = 1;
	r->status = status;
	free(r->output);
	free(r->errors);
	r->output = output != NULL ? strdup(output) : NULL;
	r->errors = errors != NULL ? strdup(errors) : NULL;
}

/* Run line in the session shell on loop and wait (up to 20 s) for it. */
static void
sh_line(struct loop *loop, struct sessionsh *sh, const char *line,
    struct sh_result *r)
{
	char	*cause = NULL;
	int64_t	 until = loop_now_ms() + 20000;

	r->done = 0;
	ck_assert_int_eq(sessionsh_run(sh, line, sh_done, r, &cause), 0);
	while (!r->done && loop_now_ms() < until)
		loop_run_once(loop, 100);
	ck_assert_msg(r->done, "session line did not finish: %s", line);
}

/*
 * Run command as a job would (SHELL -c in the session's cwd and env) and
 * return its stdout (static, rotating).
 */
static const char *
sh_job(struct session *s, const char *command)
{
	static char	 out[2][4096];
	static int	 k;
	char		*b = out[k++ % 2], **env;
	int		 fds[2], status;
	ssize_t		 n;
	size_t		 len = 0;
	pid_t		 pid;

	ck_assert_int_eq(pipe(fds), 0);
	env = session_env(s);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fds[1], 1);
		if (chdir(session_cwd(s)) != 0)
			_exit(126);
		execle(session_shell(s), session_shell(s), "-c", command,
		    (char *)NULL, env);
		_exit(127);
	}
	close(fds[1]);
	while ((n = read(fds[0], b + len, 4095 - len)) > 0)
		len += (size_t)n;
	b[len] = '\0';
	close(fds[0]);
	waitpid(pid, &status, 0);
	session_env_free(env);
	if (len > 0 && b[len - 1] == '\n')
		b[len - 1] = '\0';
	return b;
}

/* A session whose shell is shell, with its session shell on loop. */
static struct sessionsh *
sh_new(struct loop *loop, const char *shell, struct session **s,
    int64_t timeout_ms)
{
	struct sessionsh	*sh;
	char			 env[64], *cause = NULL;

	snprintf(env, sizeof env, "SHELL=%s", shell);
	*s = new_session(env);
	sh = sessionsh_new(loop, NULL, NULL, *s, timeout_ms, &cause);
	ck_assert_msg(sh != NULL, "%s", cause);
	return sh;
}

/* The seed's two lines: cd && export, then a job sees both (bash, sh). */
START_TEST(test_sh_seed)
{
	const char		*shells[] = { "/bin/bash", "/bin/sh" };
	struct loop		*loop = loop_new();
	struct session		*s;
	struct sessionsh	*sh;
	struct sh_result	 r = { 0 };
	char			 line[PATH_MAX + 64], want[PATH_MAX + 64];
	size_t			 i;

	for (i = 0; i < 2; i++) {
		sh = sh_new(loop, shells[i], &s, 0);
		snprintf(line, sizeof line, "cd '%s' && export API_KEY=secret",
		    at("with space"));
		sh_line(loop, sh, line, &r);
		ck_assert_int_eq(r.status, 0);
		ck_assert_str_eq(session_cwd(s), at("with space"));
		ck_assert_str_eq(session_getenv(s, "API_KEY"), "secret");
		snprintf(want, sizeof want, "%s secret", at("with space"));
		ck_assert_str_eq(sh_job(s, "echo \"$(pwd) $API_KEY\""), want);
		/* A job's own cd is its own. */
		sh_job(s, "cd /");
		ck_assert_str_eq(session_cwd(s), at("with space"));
		sessionsh_free(sh);
		session_free(s);
	}
	free(r.output);
	free(r.errors);
	loop_free(loop);
}
END_TEST

/* source a file that exports and defines a function; an alias; a job. */
START_TEST(test_sh_source_function_alias)
{
	struct loop		*loop = loop_new();
	struct session		*s;
	struct sessionsh	*sh;
	struct sh_result	 r = { 0 };
	FILE			*fp;
	char			 line[PATH_MAX + 64];

	fp = fopen(at("activate"), "w");
	ck_assert_ptr_nonnull(fp);
	fprintf(fp, "export VENV=on\ngreet() { echo \"hello $1 $VENV\"; }\n");
	fclose(fp);
	sh = sh_new(loop, "/bin/bash", &s, 0);
	snprintf(line, sizeof line, "source '%s'", at("activate"));
	sh_line(loop, sh, line, &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(session_getenv(s, "VENV"), "on");
	ck_assert_str_eq(sessionsh_functions(sh)[0], "greet");
	ck_assert_str_eq(sh_job(s, "greet world"), "hello world on");
	sh_line(loop, sh, "alias hi='echo aliased'", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(sessionsh_aliases(sh)[0], "hi");
	ck_assert_str_eq(sh_job(s, "hi there"), "aliased there");
	sh_line(loop, sh, "unalias hi; unset -f greet; unset VENV", &r);
	ck_assert_ptr_null(sessionsh_aliases(sh)[0]);
	ck_assert_ptr_null(sessionsh_functions(sh)[0]);
	ck_assert_ptr_null(session_getenv(s, "VENV"));
	sessionsh_free(sh);
	session_free(s);
	free(r.output);
	free(r.errors);
	loop_free(loop);
}
END_TEST

/*
 * The user's own BASH_ENV still reaches bash jobs once the session's file
 * (aliases, functions) takes its place, read first so the session's
 * definitions win; unset, it is no longer read.
 */
START_TEST(test_sh_user_bash_env)
{
	struct loop		*loop = loop_new();
	struct session		*s;
	struct sessionsh	*sh;
	struct sh_result	 r = { 0 };
	FILE			*fp;
	char			 line[PATH_MAX + 64];

	fp = fopen(at("user env"), "w");
	ck_assert_ptr_nonnull(fp);
	fprintf(fp, "mine() { echo user-defined; }\nboth() { echo user; }\n");
	fclose(fp);
	sh = sh_new(loop, "/bin/bash", &s, 0);
	snprintf(line, sizeof line, "export BASH_ENV='%s'", at("user env"));
	sh_line(loop, sh, line, &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(sh_job(s, "mine"), "user-defined");
	sh_line(loop, sh, "alias hi='echo aliased'; both() { echo session; }",
	    &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_ne(session_getenv(s, "BASH_ENV"), at("user env"));
	ck_assert_str_eq(sh_job(s, "mine; hi; both"),
	    "user-defined\naliased\nsession");
	/* A later line keeps it; unset, the user's file is not read. */
	sh_line(loop, sh, "cd /", &r);
	ck_assert_str_eq(sh_job(s, "mine; hi"), "user-defined\naliased");
	sh_line(loop, sh, "unset BASH_ENV", &r);
	ck_assert_str_eq(sh_job(s, "mine 2>/dev/null; hi"), "aliased");
	sessionsh_free(sh);
	session_free(s);
	free(r.output);
	free(r.errors);
	loop_free(loop);
}
END_TEST

/* cd nowhere && export X=1: the error, the state unchanged. */
START_TEST(test_sh_failing_list)
{
	struct loop		*loop = loop_new();
	struct session		*s;
	struct sessionsh	*sh;
	struct sh_result	 r = { 0 };

	sh = sh_new(loop, "/bin/bash", &s, 0);
	sh_line(loop, sh, "cd nowhere && export X=1", &r);
	ck_assert_int_ne(r.status, 0);
	ck_assert_msg(strstr(r.errors, "cd: nowhere: No such file") ==
	    r.errors, "%s", r.errors);
	ck_assert_str_eq(session_cwd(s), base);
	ck_assert_ptr_null(session_getenv(s, "X"));
	/* An unfinished quote is the line's error, not the driver's. */
	sh_line(loop, sh, "export Y='1", &r);
	ck_assert_int_ne(r.status, 0);
	ck_assert_ptr_null(session_getenv(s, "Y"));
	sh_line(loop, sh, "export Y=2", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(session_getenv(s, "Y"), "2");
	sessionsh_free(sh);
	session_free(s);
	free(r.output);
	free(r.errors);
	loop_free(loop);
}
END_TEST

/*
 * `set -e` and `set -x` as session lines: a later failing line is shown
 * and the shell lives on (errexit killed it before its state came: "the
 * session shell ended"), and the shell's own dump is never traced into a
 * line's errors.
 */
START_TEST(test_sh_errexit_xtrace)
{
	struct loop		*loop = loop_new();
	struct session		*s;
	struct sessionsh	*sh;
	struct sh_result	 r = { 0 };

	sh = sh_new(loop, "/bin/bash", &s, 0);
	sh_line(loop, sh, "set -e", &r);
	ck_assert_int_eq(r.status, 0);
	sh_line(loop, sh, "cd nowhere && export X=1", &r);
	ck_assert_int_ne(r.status, 0);
	ck_assert_msg(strstr(r.errors, "cd: nowhere: No such file") ==
	    r.errors, "%s", r.errors);
	ck_assert_ptr_null(session_getenv(s, "X"));
	sh_line(loop, sh, "export X=2", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(session_getenv(s, "X"), "2");
	sh_line(loop, sh, "set -x", &r);
	sh_line(loop, sh, "export Y=3", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(session_getenv(s, "Y"), "3");
	/* The line's own trace is the user's; the driver's is not there. */
	ck_assert_msg(strstr(r.errors, "jd") == NULL && strstr(r.errors,
	    "pwd") == NULL && strstr(r.errors, "env -0") == NULL,
	    "traced: %s", r.errors);
	sessionsh_free(sh);
	session_free(s);
	free(r.output);
	free(r.errors);
	loop_free(loop);
}
END_TEST

/*
 * A line that ends the shell while something it started in the background
 * holds its pipes is reported when the shell ends, not at the time limit
 * (it waited the whole limit), and the next line has a shell again.  The
 * limit is a minute, so that "well before it" holds on a slow machine.
 */
START_TEST(test_sh_exit_with_background)
{
	struct loop		*loop = loop_new();
	struct session		*s;
	struct jobtable		*jt = jobtable_new(loop);
	struct sessionsh	*sh;
	struct sh_result	 r = { 0 };
	char			*cause = NULL;
	int64_t			 t0;

	/* The jobtable reaps the shell, as in a deck. */
	s = new_session("SHELL=/bin/bash");
	sh = sessionsh_new(loop, jt, NULL, s, 60000, &cause);
	ck_assert_msg(sh != NULL, "%s", cause);
	sh_line(loop, sh, "export KEEP=1", &r);
	t0 = loop_now_ms();
	sh_line(loop, sh, "f() { :; }; sleep 100 & exit 3", &r);
	ck_assert_int_ne(r.status, 0);
	ck_assert_msg(strstr(r.errors, "ended") != NULL, "%s", r.errors);
	ck_assert_msg(loop_now_ms() - t0 < 20000, "reported after %lld ms",
	    (long long)(loop_now_ms() - t0));
	sh_line(loop, sh, "export AFTER=1", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(session_getenv(s, "KEEP"), "1");
	sessionsh_free(sh);
	jobtable_free(jt);
	session_free(s);
	free(r.output);
	free(r.errors);
	loop_free(loop);
}
END_TEST

/* A source that hangs times out; the shell comes back in the last state. */
START_TEST(test_sh_timeout_restores)
{
	struct loop		*loop = loop_new();
	struct session		*s;
	struct sessionsh	*sh;
	struct sh_result	 r = { 0 };
	FILE			*fp;
	char			 line[PATH_MAX + 64];

	fp = fopen(at("hang"), "w");
	ck_assert_ptr_nonnull(fp);
	fprintf(fp, "export HALF=1\nsleep 60\n");
	fclose(fp);
	sh = sh_new(loop, "/bin/bash", &s, 1000);
	sh_line(loop, sh, "f() { echo kept; }; alias k='echo alias'; "
	    "cd real", &r);
	ck_assert_int_eq(r.status, 0);
	snprintf(line, sizeof line, ". '%s'", at("hang"));
	sh_line(loop, sh, line, &r);
	ck_assert_int_eq(r.status, -1);
	ck_assert_msg(strstr(r.errors, "timed out") != NULL, "%s", r.errors);
	ck_assert_ptr_null(session_getenv(s, "HALF"));
	sh_line(loop, sh, "f; k", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.output, "kept\nalias\n");
	ck_assert_str_eq(session_cwd(s), at("real"));
	sessionsh_free(sh);
	session_free(s);
	free(r.output);
	free(r.errors);
	loop_free(loop);
}
END_TEST

/*
 * Lines still queued when the session shell is freed (the deck quits)
 * each hear that they were dropped (output NULL), so that their callers
 * can release what they passed; a then() likewise.
 */
START_TEST(test_sh_free_drops_queue)
{
	struct loop		*loop = loop_new();
	struct session		*s;
	struct sessionsh	*sh;
	struct sh_result	 r[3];
	char			*cause = NULL;
	int			 i;

	memset(r, 0, sizeof r);
	sh = sh_new(loop, "/bin/bash", &s, 0);
	ck_assert_int_eq(sessionsh_run(sh, "sleep 30", sh_done, &r[0],
	    &cause), 0);
	ck_assert_int_eq(sessionsh_run(sh, "cd /", sh_done, &r[1], &cause), 0);
	ck_assert_int_eq(sessionsh_then(sh, sh_done, &r[2], &cause), 0);
	loop_run_once(loop, 100);
	sessionsh_free(sh);
	for (i = 0; i < 3; i++) {
		ck_assert_msg(r[i].done, "item %d was dropped unheard", i);
		ck_assert_int_eq(r[i].status, -1);
		ck_assert_ptr_null(r[i].output);
		free(r[i].errors);
	}
	session_free(s);
	loop_free(loop);
}
END_TEST

/*
 * A session line that prints without end (here after a function
 * definition, which makes the whole line a session line) is cut once it
 * printed more than SESSIONSH_OUTPUT_MAX, not buffered until the time
 * limit; the shell comes back with the function.
 */
START_TEST(test_sh_output_bounded)
{
	struct loop		*loop = loop_new();
	struct session		*s;
	struct sessionsh	*sh;
	struct sh_result	 r = { 0 };

	sh = sh_new(loop, "/bin/bash", &s, 15000);
	sh_line(loop, sh, "f() { echo kept; }", &r);
	ck_assert_int_eq(r.status, 0);
	sh_line(loop, sh, "g() { :; }; yes", &r);
	ck_assert_int_eq(r.status, -1);
	ck_assert_msg(strstr(r.errors, "printed more than") != NULL, "%s",
	    r.errors);
	sh_line(loop, sh, "f", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.output, "kept\n");
	sessionsh_free(sh);
	session_free(s);
	free(r.output);
	free(r.errors);
	loop_free(loop);
}
END_TEST

/* The shells the session shell runs: bash, sh and zsh (NEED("zsh")). */
static const char *const sh_shells[] = { "/bin/bash", "/bin/sh",
    "/usr/bin/zsh" };

/* Whether shell can run here (zsh where its package put it). */
static int
sh_have(const char *shell)
{
	return access(shell, X_OK) == 0;
}

/*
 * A variable too large to pass to a program (over MAX_ARG_STRLEN): the
 * line is refused with the variable's name and the limit, the export is
 * undone in the deck and in the shell (its earlier value back, or unset),
 * the rest of the line stands, and later lines take effect again (they
 * froze: env -0 failed with E2BIG and no state came again).
 */
START_TEST(test_sh_big_variable)
{
	struct loop		*loop = loop_new();
	struct session		*s;
	struct sessionsh	*sh;
	struct sh_result	 r = { 0 };
	char			 limit[32];
	size_t			 i;

	snprintf(limit, sizeof limit, "%ld", 32 * sysconf(_SC_PAGESIZE) - 1);
	NEED("zsh");
	for (i = 0; i < sizeof sh_shells / sizeof sh_shells[0]; i++) {
		if (!sh_have(sh_shells[i]))
			continue;
		sh = sh_new(loop, sh_shells[i], &s, 0);
		sh_line(loop, sh, "export BIG=small", &r);
		ck_assert_int_eq(r.status, 0);
		sh_line(loop, sh, "cd real && "
		    "export BIG=$(head -c 200000 /dev/zero | tr '\\0' x)", &r);
		ck_assert_msg(r.status != 0, "%s: status 0", sh_shells[i]);
		ck_assert_msg(strstr(r.errors, "BIG") != NULL &&
		    strstr(r.errors, limit) != NULL, "%s: %s", sh_shells[i],
		    r.errors);
		ck_assert_str_eq(session_getenv(s, "BIG"), "small");
		ck_assert_str_eq(session_cwd(s), at("real"));
		/* The shell's own value is back too. */
		sh_line(loop, sh, "echo \"${#BIG}\"", &r);
		ck_assert_int_eq(r.status, 0);
		ck_assert_str_eq(r.output, "5\n");
		sh_line(loop, sh,
		    "export NEW=$(head -c 200000 /dev/zero | tr '\\0' y)", &r);
		ck_assert_int_ne(r.status, 0);
		ck_assert_msg(strstr(r.errors, "NEW") != NULL, "%s", r.errors);
		ck_assert_ptr_null(session_getenv(s, "NEW"));
		sh_line(loop, sh, "cd .. && export AFTER=1", &r);
		ck_assert_int_eq(r.status, 0);
		ck_assert_str_eq(session_cwd(s), base);
		ck_assert_str_eq(session_getenv(s, "AFTER"), "1");
		ck_assert_str_eq(sh_job(s, "echo \"${NEW-unset} $BIG $AFTER\""),
		    "unset small 1");
		sessionsh_free(sh);
		session_free(s);
	}
	free(r.output);
	free(r.errors);
	loop_free(loop);
}
END_TEST

/*
 * An environment too large in all (no variable alone over the limit): the
 * line is an error saying so, the shell comes back in the last good state
 * and later lines take effect.
 */
START_TEST(test_sh_env_too_large)
{
	struct loop		*loop = loop_new();
	struct session		*s;
	struct sessionsh	*sh;
	struct sh_result	 r = { 0 };
	char			 line[256];
	long			 max = sysconf(_SC_ARG_MAX);
	size_t			 i;

	if (max <= 0 || max > 16 * 1024 * 1024)
		TEST_SKIP("ARG_MAX is %ld here", max);
	snprintf(line, sizeof line, "v=$(head -c 100000 /dev/zero | "
	    "tr '\\0' v); i=0; while [ $i -lt %ld ]; do i=$((i + 1)); "
	    "export V$i=$v; done", max / 100000 + 2);
	NEED("zsh");
	for (i = 0; i < sizeof sh_shells / sizeof sh_shells[0]; i++) {
		if (!sh_have(sh_shells[i]))
			continue;
		sh = sh_new(loop, sh_shells[i], &s, 0);
		sh_line(loop, sh, "export KEEP=1", &r);
		sh_line(loop, sh, line, &r);
		ck_assert_int_ne(r.status, 0);
		ck_assert_msg(strstr(r.errors, "environment is too large") !=
		    NULL, "%s: %s", sh_shells[i], r.errors);
		ck_assert_ptr_null(session_getenv(s, "V1"));
		sh_line(loop, sh, "cd real && export AFTER=1", &r);
		ck_assert_int_eq(r.status, 0);
		ck_assert_str_eq(session_cwd(s), at("real"));
		ck_assert_str_eq(session_getenv(s, "AFTER"), "1");
		ck_assert_str_eq(session_getenv(s, "KEEP"), "1");
		sessionsh_free(sh);
		session_free(s);
	}
	free(r.output);
	free(r.errors);
	loop_free(loop);
}
END_TEST

/*
 * A cwd, a variable and an alias that hold a newline, a \036 and a byte
 * that is not UTF-8 reach the deck byte for byte: cd there makes it the
 * session's cwd exactly (it was cut at the newline) and a job runs there.
 */
START_TEST(test_sh_newline_cwd)
{
	static const char	 odd[] = "nl\n\036jd1 S\n\377";
	struct loop		*loop = loop_new();
	struct session		*s;
	struct sessionsh	*sh;
	struct sh_result	 r = { 0 };
	char			 line[PATH_MAX + 64];
	size_t			 i;

	ck_assert_int_eq(mkdir(at(odd), 0755), 0);
	ck_assert_int_eq(mkdir(at("nl"), 0755), 0);
	NEED("zsh");
	for (i = 0; i < sizeof sh_shells / sizeof sh_shells[0]; i++) {
		if (!sh_have(sh_shells[i]))
			continue;
		sh = sh_new(loop, sh_shells[i], &s, 0);
		snprintf(line, sizeof line, "cd '%s'", odd);
		sh_line(loop, sh, line, &r);
		ck_assert_int_eq(r.status, 0);
		ck_assert_str_eq(session_cwd(s), at(odd));
		ck_assert_str_eq(session_getenv(s, "PWD"), at(odd));
		ck_assert_str_eq(sh_job(s, "pwd"), at(odd));
		sh_line(loop, sh, "export V='a\n\036jd1 E\n\377 z'", &r);
		ck_assert_int_eq(r.status, 0);
		ck_assert_str_eq(session_getenv(s, "V"),
		    "a\n\036jd1 E\n\377 z");
		ck_assert_str_eq(sh_job(s, "printf '%s\\n' \"$V\""),
		    "a\n\036jd1 E\n\377 z");
		sh_line(loop, sh, "alias z='echo \"a\n\nb\"'", &r);
		ck_assert_int_eq(r.status, 0);
		ck_assert_str_eq(sessionsh_aliases(sh)[0], "z");
		ck_assert_msg(sessionsh_aliases(sh)[1] == NULL, "%s: alias %s",
		    sh_shells[i], sessionsh_aliases(sh)[1]);
		sh_line(loop, sh, "z", &r);
		ck_assert_str_eq(r.output, "a\n\nb\n");
		sessionsh_free(sh);
		session_free(s);
	}
	free(r.output);
	free(r.errors);
	loop_free(loop);
}
END_TEST

/*
 * A sourced file that prints whole dumps with forged markers, the
 * previous line's (learnt from a set -v trace) and guessed ones (the
 * old counter's), changes nothing the deck reads: the cwd and the
 * variables are the shell's, what it printed is its output, and the
 * next line is read as before.
 */
START_TEST(test_sh_forged_markers)
{
	struct loop		*loop = loop_new();
	struct session		*s;
	struct sessionsh	*sh;
	struct sh_result	 r = { 0 };
	FILE			*fp;
	char			 line[PATH_MAX + 64], prev[64], tok[64];
	const char		*p;
	size_t			 i, n;
	long			 k;

	NEED("zsh");
	for (i = 0; i < sizeof sh_shells / sizeof sh_shells[0]; i++) {
		if (!sh_have(sh_shells[i]))
			continue;
		sh = sh_new(loop, sh_shells[i], &s, 0);
		/* A trace shows the shell what it reads: the line's marker. */
		sh_line(loop, sh, "set -v", &r);
		sh_line(loop, sh, ":", &r);
		p = strstr(r.errors, "\\036jd");
		ck_assert_msg(p != NULL, "%s: no marker in %s", sh_shells[i],
		    r.errors);
		p += 6;
		n = strcspn(p, " ");
		ck_assert_uint_lt(n, sizeof prev);
		memcpy(prev, p, n);
		prev[n] = '\0';
		sh_line(loop, sh, "set +v", &r);

		fp = fopen(at("forge"), "w");
		ck_assert_ptr_nonnull(fp);
		for (k = -1; k <= 64; k++) {
			if (k == -1)
				snprintf(tok, sizeof tok, "%s", prev);
			else
				snprintf(tok, sizeof tok, "%ld", k);
			fprintf(fp, "printf '\\036jd%s S\\n0\\n/forged\\n"
			    "\\036jd%s E\\nFORGED=1\\0PATH=/bin\\0"
			    "\\036jd%s V\\n0\\n\\036jd%s A\\n\\036jd%s L\\n"
			    "\\036jd%s F\\n\\036jd%s N\\n\\036jd%s O\\n"
			    "\\036jd%s Z\\n'\n", tok, tok, tok, tok, tok, tok,
			    tok, tok, tok);
			fprintf(fp, "printf '\\036jd%s Z\\n' >&2\n", tok);
		}
		fprintf(fp, "export REAL=1\n");
		fclose(fp);
		snprintf(line, sizeof line, ". '%s'", at("forge"));
		sh_line(loop, sh, line, &r);
		ck_assert_int_eq(r.status, 0);
		ck_assert_msg(strstr(r.output, "/forged") != NULL, "%s: %s",
		    sh_shells[i], r.output);
		ck_assert_str_eq(session_cwd(s), base);
		ck_assert_ptr_null(session_getenv(s, "FORGED"));
		ck_assert_str_eq(session_getenv(s, "REAL"), "1");
		sh_line(loop, sh, "cd real && export NEXT=1", &r);
		ck_assert_int_eq(r.status, 0);
		ck_assert_str_eq(session_cwd(s), at("real"));
		ck_assert_str_eq(session_getenv(s, "NEXT"), "1");
		ck_assert_str_eq(session_getenv(s, "REAL"), "1");
		sessionsh_free(sh);
		session_free(s);
	}
	free(r.output);
	free(r.errors);
	loop_free(loop);
}
END_TEST

/*
 * A dump whose environment cannot be read (env cannot run under a tiny
 * address space limit) is never taken for a state: the line fails saying
 * so, the shell is restarted with the last good state (the line's cd is
 * undone), and the next cd takes effect (before, the line said 0 and
 * every later line was lost while the deck kept its old state).
 */
START_TEST(test_sh_unreadable_state)
{
	struct loop		*loop = loop_new();
	struct session		*s;
	struct sessionsh	*sh;
	struct sh_result	 r = { 0 };
	size_t			 i;

	NEED("zsh");
	for (i = 0; i < sizeof sh_shells / sizeof sh_shells[0]; i++) {
		if (!sh_have(sh_shells[i]))
			continue;
		sh = sh_new(loop, sh_shells[i], &s, 0);
		sh_line(loop, sh, "ulimit -v 200; cd real", &r);
		ck_assert_msg(r.status != 0, "%s: status 0", sh_shells[i]);
		/* zsh itself cannot live in 200 KiB: it ends, told as such. */
		ck_assert_msg(strstr(r.errors, "cannot be read") != NULL ||
		    (strstr(sh_shells[i], "zsh") != NULL &&
		    strstr(r.errors, "the session shell ended") != NULL),
		    "%s: %s", sh_shells[i], r.errors);
		ck_assert_str_eq(session_cwd(s), base);
		sh_line(loop, sh, "cd real", &r);
		ck_assert_int_eq(r.status, 0);
		ck_assert_str_eq(session_cwd(s), at("real"));
		sessionsh_free(sh);
		session_free(s);
	}
	free(r.output);
	free(r.errors);
	loop_free(loop);
}
END_TEST

/* Build the session suite. */
static Suite *
session_suite(void)
{
	Suite	*s = suite_create("session");
	TCase	*tc;

	tc = tcase_create("cd");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_new_copies_env_and_cwd);
	tcase_add_test(tc, test_new_keeps_logical_pwd);
	tcase_add_test(tc, test_cd_absolute_relative_dotdot);
	tcase_add_test(tc, test_cd_symlink_logical_and_physical);
	tcase_add_test(tc, test_cd_dash_and_home);
	tcase_add_test(tc, test_cd_errors);
	tcase_add_test(tc, test_cd_cdpath);
	tcase_add_test(tc, test_cd_permission_denied);
	suite_add_tcase(s, tc);

	tc = tcase_create("env");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_export_and_unset);
	tcase_add_test(tc, test_export_invalid);
	tcase_add_test(tc, test_env_name_rule);
	tcase_add_test(tc, test_pwd_follows_cwd);
	tcase_add_test(tc, test_shell);
	suite_add_tcase(s, tc);

	tc = tcase_create("split");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_split_table);
	tcase_add_test(tc, test_split_user_home_and_no_home);
	tcase_add_test(tc, test_split_then_cd);
	suite_add_tcase(s, tc);

	tc = tcase_create("shell");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_sh_seed);
	tcase_add_test(tc, test_sh_source_function_alias);
	tcase_add_test(tc, test_sh_user_bash_env);
	tcase_add_test(tc, test_sh_free_drops_queue);
	tcase_add_test(tc, test_sh_output_bounded);
	tcase_add_test(tc, test_sh_failing_list);
	tcase_add_test(tc, test_sh_errexit_xtrace);
	tcase_add_test(tc, test_sh_exit_with_background);
	tcase_add_test(tc, test_sh_timeout_restores);
	tcase_add_test(tc, test_sh_big_variable);
	tcase_add_test(tc, test_sh_env_too_large);
	tcase_add_test(tc, test_sh_newline_cwd);
	tcase_add_test(tc, test_sh_forged_markers);
	tcase_add_test(tc, test_sh_unreadable_state);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr = srunner_create(session_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
