/*
 * sshcmd: the one rule for running the user's ssh.  The program is
 * JOBDECK_SSH_COMMAND when set and not empty, else the deck's [settings]
 * ssh_command, else "ssh" (sshcmd_program); as git's GIT_SSH_COMMAND it
 * is shell words (`ssh -F ~/.ssh/other -p 2222`), so it runs as
 *	/bin/sh -c 'exec COMMAND "$@"' ssh [OPTS ...] DEST [REMOTE]
 * and the user's quoting, ~ and variables mean what they mean in a shell,
 * while OPTS, DEST and REMOTE reach ssh as they are, each one word.  A
 * destination that starts with '-' would be an ssh option
 * (-oProxyCommand=...): it is refused, never passed on.
 *
 * REMOTE is the command line the remote login shell runs; ssh joins its
 * words with spaces, so the caller quotes it for that shell
 * (expand_shell_quote, expand_shell_join).  NULL runs no command (a
 * master connection, ssh -N).
 *
 * Ownership: sshcmd_argv() returns a NULL-terminated argv the caller frees
 * with sshcmd_argv_free(); *cause, when set, is the caller's to free.
 * Nothing here prints or exits.
 */
#ifndef JOBDECK_SSHCMD_H
#define JOBDECK_SSHCMD_H

#define SSHCMD_ENV	"JOBDECK_SSH_COMMAND"

const char	 *sshcmd_program(const char *setting);
int		  sshcmd_check_dest(const char *dest, char **cause);
char		**sshcmd_argv(const char *command, const char *const *opts,
		      const char *dest, const char *remote, char **cause);
void		  sshcmd_argv_free(char **);

#endif
