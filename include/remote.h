/*
 * remote: `jobdeck ctl -H DEST ...`, `jobdeck ls -H DEST` and `jobdeck
 * attach -H DEST` (and kill-deck): the same jobdeck command on another
 * host, with ssh's stdio (for attach, a terminal: ssh -t) as the
 * transport.  The front end parses its options, then hands remote_exec()
 * the words the remote jobdeck gets (its subcommand, its options without
 * -H, its operands); remote_exec() replaces the process with the user's
 * ssh (sshcmd.h), so ssh's exit status is the front end's: the remote
 * jobdeck's, or 255 with ssh's own message when ssh failed.
 *
 * The remote login shell runs
 *	sh -c SCRIPT jobdeck JOBDECK MESSAGE WORDS ...
 * every word quoted for a POSIX shell (expand_shell_join), so each of
 * WORDS arrives byte-exact and nothing in them is code there.  SCRIPT
 * execs JOBDECK (JOBDECK_REMOTE_JOBDECK, a path or a name looked up in the
 * remote PATH; default "jobdeck") with WORDS when the remote shell finds
 * it, else prints MESSAGE ("jobdeck: not found on DEST (install jobdeck
 * there, or set JOBDECK_REMOTE_JOBDECK)") and exits 127: the test is made
 * on the host, so a job's own exit code 127 passed on by `ctl wait` is
 * never mistaken for a missing jobdeck.  To give the remote jobdeck an
 * environment (XDG_RUNTIME_DIR), point JOBDECK_REMOTE_JOBDECK at a script
 * that sets it and execs jobdeck.
 *
 * ctl and ls run ssh -n (they read no input, so a script's stdin is not
 * eaten); attach runs ssh -t.
 *
 * remote_exec() returns only on failure, with the exit status (2: the
 * destination is refused, or ssh could not be run), having said why on
 * stderr as "PROG: ...".
 */
#ifndef JOBDECK_REMOTE_H
#define JOBDECK_REMOTE_H

#define REMOTE_JOBDECK_ENV	"JOBDECK_REMOTE_JOBDECK"

#define REMOTE_TTY	0x1	/* attach: the remote side gets a terminal */

int	remote_exec(const char *prog, const char *dest,
	    const char *const *words, int flags);

#endif
