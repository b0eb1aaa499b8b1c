/*
 * sshcmd.c: the user's ssh command as an argv (include/sshcmd.h).
 *
 * Why sh -c and not a splitter of our own: JOBDECK_SSH_COMMAND is what
 * the user would type (git's GIT_SSH_COMMAND is read the same way), so a
 * shell reads it: quotes, backslashes, ~ and $HOME behave as the user
 * expects, and no second, slightly different splitting rule exists.  The
 * words jobdeck adds come after it as "$@", so no shell reads those.
 */
#include <stdlib.h>
#include <string.h>

#include "sshcmd.h"
#include "xmalloc.h"

/*
 * Return the ssh command: JOBDECK_SSH_COMMAND when set and not empty, else
 * setting (the deck's ssh_command) when not NULL or empty, else "ssh".
 */
const char *
sshcmd_program(const char *setting)
{
	const char	*env = getenv(SSHCMD_ENV);

	if (env != NULL && *env != '\0')
		return env;
	if (setting != NULL && *setting != '\0')
		return setting;
	return "ssh";
}

/* Check that dest can be an ssh destination; 0, or -1 and *cause. */
int
sshcmd_check_dest(const char *dest, char **cause)
{
	if (dest == NULL || *dest == '\0') {
		*cause = xstrdup("an empty ssh destination");
		return -1;
	}
	if (*dest == '-') {
		*cause = xprintf("%s: not an ssh destination", dest);
		return -1;
	}
	return 0;
}

/*
 * Return the argv that runs command (shell words) with the ssh options
 * opts (NULL-terminated, or NULL), dest and the remote command line remote
 * (or NULL); NULL and *cause when dest is not a destination.
 */
char **
sshcmd_argv(const char *command, const char *const *opts, const char *dest,
    const char *remote, char **cause)
{
	char	**argv;
	size_t	  nopts = 0, n = 0, i;

	if (sshcmd_check_dest(dest, cause) != 0)
		return NULL;
	while (opts != NULL && opts[nopts] != NULL)
		nopts++;
	argv = xcalloc(nopts + 7, sizeof *argv);
	argv[n++] = xstrdup("/bin/sh");
	argv[n++] = xstrdup("-c");
	argv[n++] = xprintf("exec %s \"$@\"", command);
	argv[n++] = xstrdup("ssh");		/* $0: what sh's errors name */
	for (i = 0; i < nopts; i++)
		argv[n++] = xstrdup(opts[i]);
	argv[n++] = xstrdup(dest);
	if (remote != NULL)
		argv[n++] = xstrdup(remote);
	argv[n] = NULL;
	return argv;
}

/* Free an argv of sshcmd_argv(). */
void
sshcmd_argv_free(char **argv)
{
	size_t	i;

	for (i = 0; argv != NULL && argv[i] != NULL; i++)
		free(argv[i]);
	free(argv);
}
