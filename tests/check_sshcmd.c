/*
 * check_sshcmd.c: tests for sshcmd: which ssh command wins (the
 * environment, the setting, "ssh"), the argv built around it, a
 * destination that would be an option refused, and the argv run for
 * real through /bin/sh: the user's quoting of the command is a shell's,
 * while the words jobdeck adds arrive each as one word, untouched.
 * A stand-in "ssh" (printf) shows the words it was given.
 */
#include <sys/wait.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sshcmd.h"

/* Run argv with stdout and stderr in out (cut to len); its exit status. */
static int
t_run(char **argv, char *out, size_t len)
{
	size_t	n = 0;
	ssize_t	r;
	int	p[2], st;
	pid_t	pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while (n + 1 < len && ((r = read(p[0], out + n, len - 1 - n)) > 0 ||
	    (r == -1 && errno == EINTR)))
		if (r > 0)
			n += (size_t)r;
	out[n] = '\0';
	close(p[0]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* JOBDECK_SSH_COMMAND, else the setting, else ssh; empty counts as unset. */
START_TEST(program_order)
{
	unsetenv(SSHCMD_ENV);
	ck_assert_str_eq(sshcmd_program(NULL), "ssh");
	ck_assert_str_eq(sshcmd_program(""), "ssh");
	ck_assert_str_eq(sshcmd_program("ssh -p 2"), "ssh -p 2");
	setenv(SSHCMD_ENV, "", 1);
	ck_assert_str_eq(sshcmd_program("ssh -p 2"), "ssh -p 2");
	setenv(SSHCMD_ENV, "ssh -F x", 1);
	ck_assert_str_eq(sshcmd_program("ssh -p 2"), "ssh -F x");
	ck_assert_str_eq(sshcmd_program(NULL), "ssh -F x");
}
END_TEST

/* The argv's shape: sh -c, the command and "$@", $0, opts, dest, remote. */
START_TEST(argv_shape)
{
	const char *const	  opts[] = { "-t", "-o", "A=b", NULL };
	char			**argv, *cause = NULL;

	argv = sshcmd_argv("ssh -F 'my config'", opts, "me@h", "ls -l",
	    &cause);
	ck_assert_ptr_nonnull(argv);
	ck_assert_str_eq(argv[0], "/bin/sh");
	ck_assert_str_eq(argv[1], "-c");
	ck_assert_str_eq(argv[2], "exec ssh -F 'my config' \"$@\"");
	ck_assert_str_eq(argv[3], "ssh");
	ck_assert_str_eq(argv[4], "-t");
	ck_assert_str_eq(argv[5], "-o");
	ck_assert_str_eq(argv[6], "A=b");
	ck_assert_str_eq(argv[7], "me@h");
	ck_assert_str_eq(argv[8], "ls -l");
	ck_assert_ptr_null(argv[9]);
	sshcmd_argv_free(argv);

	/* No options, no remote command (a master connection). */
	argv = sshcmd_argv("ssh", NULL, "h", NULL, &cause);
	ck_assert_ptr_nonnull(argv);
	ck_assert_str_eq(argv[4], "h");
	ck_assert_ptr_null(argv[5]);
	sshcmd_argv_free(argv);
	sshcmd_argv_free(NULL);
}
END_TEST

/* A destination that ssh would read as an option, or none, is refused. */
START_TEST(dest_refused)
{
	char	**argv, *cause = NULL;

	argv = sshcmd_argv("ssh", NULL, "-oProxyCommand=x", "true", &cause);
	ck_assert_ptr_null(argv);
	ck_assert_str_eq(cause, "-oProxyCommand=x: not an ssh destination");
	free(cause);
	cause = NULL;
	ck_assert_int_eq(sshcmd_check_dest("", &cause), -1);
	ck_assert_str_eq(cause, "an empty ssh destination");
	free(cause);
	cause = NULL;
	ck_assert_int_eq(sshcmd_check_dest("me@h-1", &cause), 0);
	ck_assert_ptr_null(cause);
}
END_TEST

/*
 * Run for real: the command's own quoting is a shell's (one word with a
 * space, $HOME expanded), the words added after it arrive untouched.
 */
START_TEST(argv_runs)
{
	const char *const	  opts[] = { "-o", "x $(id) 'q'", NULL };
	char			**argv, *cause = NULL, out[1024], want[1024];

	setenv("HOME", "/home/t", 1);
	argv = sshcmd_argv("printf '[%s]\\n' 'a b' \"$HOME\"", opts,
	    "me@h", "jobdeck 'x y' \"$(z)\"", &cause);
	ck_assert_ptr_nonnull(argv);
	ck_assert_int_eq(t_run(argv, out, sizeof out), 0);
	snprintf(want, sizeof want, "[a b]\n[/home/t]\n[-o]\n"
	    "[x $(id) 'q']\n[me@h]\n[jobdeck 'x y' \"$(z)\"]\n");
	ck_assert_str_eq(out, want);
	sshcmd_argv_free(argv);

	/* A command that is not found: sh says so, 127. */
	argv = sshcmd_argv("/nonexistent/ssh", NULL, "h", "true", &cause);
	ck_assert_int_eq(t_run(argv, out, sizeof out), 127);
	ck_assert_ptr_nonnull(strstr(out, "/nonexistent/ssh"));
	sshcmd_argv_free(argv);
}
END_TEST

/* The suite. */
int
main(void)
{
	Suite	*s = suite_create("sshcmd");
	TCase	*tc = tcase_create("sshcmd");
	SRunner	*sr;
	int	 failed;

	tcase_add_test(tc, program_order);
	tcase_add_test(tc, argv_shape);
	tcase_add_test(tc, dest_refused);
	tcase_add_test(tc, argv_runs);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
