/*
 * remote.c: a front end's command run by jobdeck on another host through
 * ssh (include/remote.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "expand.h"
#include "remote.h"
#include "sshcmd.h"
#include "xmalloc.h"

/*
 * What the remote login shell's sh runs: $1 is the jobdeck to run, $2 what
 * to say when there is none, the rest its words.
 */
#define REMOTE_SCRIPT							\
	"j=$1 m=$2; shift 2; "						\
	"command -v \"$j\" >/dev/null 2>&1 || "				\
	"{ printf '%s\\n' \"$m\" >&2; exit 127; }; "			\
	"exec \"$j\" \"$@\""

/* Return the remote command line (to free) that runs words with jd. */
static char *
remote_command(const char *dest, const char *jd, const char *const *words)
{
	char	**all, *line;
	size_t	  n = 0, i;

	while (words[n] != NULL)
		n++;
	all = xcalloc(n + 7, sizeof *all);
	all[0] = (char *)"sh";
	all[1] = (char *)"-c";
	all[2] = (char *)REMOTE_SCRIPT;
	all[3] = (char *)"jobdeck";	/* $0: what sh's errors name */
	all[4] = (char *)jd;
	all[5] = xprintf("%s: not found on %s (install jobdeck there, or "
	    "set %s)", jd, dest, REMOTE_JOBDECK_ENV);
	for (i = 0; i < n; i++)
		all[6 + i] = (char *)words[i];
	all[6 + n] = NULL;
	line = expand_shell_join(all);
	free(all[5]);
	free(all);
	return line;
}

/*
 * Replace this process with ssh to dest running jobdeck with words; on
 * failure say why, as prog, and return the exit status.
 */
int
remote_exec(const char *prog, const char *dest, const char *const *words,
    int flags)
{
	static const char *const	 tty[] = { "-t", NULL };
	static const char *const	 notty[] = { "-n", NULL };
	const char			*jd;
	char				*cause = NULL, *line, **argv;

	if ((jd = getenv(REMOTE_JOBDECK_ENV)) == NULL || *jd == '\0')
		jd = "jobdeck";
	line = remote_command(dest, jd, words);
	argv = sshcmd_argv(sshcmd_program(NULL), (flags & REMOTE_TTY) ?
	    tty : notty, dest, line, &cause);
	free(line);
	if (argv == NULL) {
		fprintf(stderr, "%s: -H %s\n", prog, cause);
		free(cause);
		return 2;
	}
	fflush(NULL);
	execv(argv[0], argv);
	fprintf(stderr, "%s: %s: %s\n", prog, argv[0], strerror(errno));
	sshcmd_argv_free(argv);
	return 2;
}
