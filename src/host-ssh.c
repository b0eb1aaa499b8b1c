/*
 * host-ssh.c: runs on ssh hosts (host.h): the master connection of each
 * host, the script a run is on the host (its environment and cwd as
 * octal escapes printf decodes, so no shell re-parses a value), and the
 * remote signal through the master.
 */
#include <sys/stat.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "debuglog.h"
#include "host-private.h"
#include "loop.h"
#include "name.h"
#include "pty.h"
#include "sshcmd.h"
#include "supcmd.h"
#include "waitstatus.h"
#include "xmalloc.h"

#define HOST_CTL_PATH_MAX	90	/* ssh adds ".XXXXXXXXXXXXXXXX" */

/* Where the host keeps a run's pid file; the marker in its processes. */
#define HOST_SCRIPT_DIR \
	"D=\"${XDG_RUNTIME_DIR:-$HOME/.cache}/jobdeck\";"

/*
 * Kill every process of the run: those whose environment has its marker
 * (its group and what left it; Linux's /proc).
 */
#define HOST_SCRIPT_KILL \
	"k(){ for f in $(grep -laF \"JOBDECK_REMOTE=$T\" " \
	"/proc/[0-9]*/environ 2>/dev/null);do f=${f#/proc/};" \
	"kill -KILL ${f%/environ} 2>/dev/null;done;};"

static void	host_ssh_master_done(struct supcmd *, int, const char *,
		    size_t, void *);
static void	host_ssh_poll_cb(void *);

static const struct supcmd_cbs host_ssh_master_cbs = {
	.done = host_ssh_master_done,
};

/* Append to a growing string. */
static void
host_cat(char **s, size_t *len, const char *add)
{
	size_t	n = strlen(add);

	*s = xreallocarray(*s, *len + n + 1, 1);
	memcpy(*s + *len, add, n + 1);
	*len += n;
}

/*
 * Return whether c is plain: the same in sh's double quotes and in
 * printf's format (letters, digits, " _./,:@+=").
 */
static int
host_plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || (c != '\0' && strchr(" _./,:@+=", c) !=
	    NULL);
}

/*
 * Append `V="PLAIN";` for a plain value, else
 * `V=$(printf "ESC_");V=${V%_};` for value: every byte but
 * letters, digits and " _./,:@+=" as an octal escape, so the text the
 * host's shell reads holds only characters of our making.
 */
static void
host_cat_value(char **s, size_t *len, const char *var, const char *value)
{
	const unsigned char	*p;
	char			 esc[8];

	host_cat(s, len, var);
	/* Plain text needs no decoding (and no subshell). */
	for (p = (const unsigned char *)value; *p != '\0'; p++) {
		if (!host_plain(*p))
			break;
	}
	if (*p == '\0') {
		host_cat(s, len, "=\"");
		host_cat(s, len, value);
		host_cat(s, len, "\";");
		return;
	}
	host_cat(s, len, "=$(printf \"");
	for (p = (const unsigned char *)value; *p != '\0'; p++) {
		if (host_plain(*p))
			snprintf(esc, sizeof esc, "%c", *p);
		else
			snprintf(esc, sizeof esc, "\\%03o", *p);
		host_cat(s, len, esc);
	}
	host_cat(s, len, "_\");");
	host_cat(s, len, var);
	host_cat(s, len, "=${");
	host_cat(s, len, var);
	host_cat(s, len, "%_};");
}

/* Return whether entry ("NAME=VALUE") is in env. */
static int
host_env_has(char *const *env, const char *entry)
{
	size_t	i;

	for (i = 0; env != NULL && env[i] != NULL; i++) {
		if (strcmp(env[i], entry) == 0)
			return 1;
	}
	return 0;
}

/*
 * Return whether the variable name (len bytes) is this machine's alone:
 * the terminal (ssh sends its own), jobdeck's (and the script's _jd_
 * names), and what a shell keeps.
 */
static int
host_env_local(const char *name, size_t len)
{
	static const char *const local[] = {
		"TERM", "PWD", "OLDPWD", "SHLVL", "_"
	};
	size_t	i;

	if ((len >= 8 && strncmp(name, "JOBDECK_", 8) == 0) ||
	    (len >= 4 && strncmp(name, "_jd_", 4) == 0))
		return 1;
	for (i = 0; i < sizeof local / sizeof local[0]; i++) {
		if (strlen(local[i]) == len && strncmp(name, local[i], len) ==
		    0)
			return 1;
	}
	return 0;
}

/*
 * Return the script a run is on the host, for `sh -c`: pid file and
 * marker, the watcher that ends the run when its connection does, the
 * environment the deck gives beyond its own, the cwd, the command, the
 * end (everything marked killed, the command's status passed on).
 */
char *
host_ssh_script(const struct host_run *run, const struct host_cmd *cmd)
{
	char		*s = NULL, *tmp;
	const char	*eq, *e;
	size_t		 len = 0, i;

	host_cat(&s, &len, HOST_SCRIPT_DIR);
	host_cat(&s, &len, "[ -d \"$D\" ]||mkdir -p -m 700 \"$D\"||exit 125;");
	tmp = xprintf("T=%s;", run->token);
	host_cat(&s, &len, tmp);
	free(tmp);
	host_cat(&s, &len, HOST_SCRIPT_KILL);
	/*
	 * The watcher: GNU tail --pid waits for sshd without a process a
	 * second (it is marked, so the end's k takes it); elsewhere a loop.
	 */
	host_cat(&s, &len, "trap : HUP INT TERM QUIT USR1 USR2;"
	    "echo $$ >\"$D/${T}pid\";P=$PPID;W=$$;"
	    "(trap \"\" HUP INT TERM QUIT USR1 USR2;"
	    "JOBDECK_REMOTE=$T tail --pid=$P -f /dev/null 2>/dev/null||"
	    "[ $? -gt 128 ]||"
	    "while kill -0 $P 2>/dev/null&&kill -0 $W 2>/dev/null;"
	    "do sleep 1;done;k) </dev/null >/dev/null 2>&1 & S=$!;"
	    "export JOBDECK_REMOTE=$T;");
	/*
	 * The job's environment, cwd and command in a subshell of their own,
	 * which execs the command: no value the job sets can change the
	 * script's own variables (T, S...), and its traps are not the job's.
	 */
	host_cat(&s, &len, "(");
	for (i = 0; cmd->envp != NULL && cmd->envp[i] != NULL; i++) {
		e = cmd->envp[i];
		if ((eq = strchr(e, '=')) == NULL || !name_is_ident(e,
		    (size_t)(eq - e)) || host_env_has(cmd->base, e) ||
		    host_env_local(e, (size_t)(eq - e)))
			continue;
		host_cat_value(&s, &len, "_jd_v", eq + 1);
		tmp = xprintf("export %.*s=\"$_jd_v\";", (int)(eq - e), e);
		host_cat(&s, &len, tmp);
		free(tmp);
	}
	if (cmd->cwd != NULL && cmd->cwd[0] != '\0') {
		if (strcmp(cmd->cwd, "~") == 0)
			host_cat(&s, &len, "_jd_v=\"$HOME\";");
		else if (strncmp(cmd->cwd, "~/", 2) == 0) {
			host_cat_value(&s, &len, "_jd_v", cmd->cwd + 2);
			host_cat(&s, &len, "_jd_v=\"$HOME/$_jd_v\";");
		} else
			host_cat_value(&s, &len, "_jd_v", cmd->cwd);
		host_cat(&s, &len, "cd \"$_jd_v\"||exit 1;");
	}
	if (cmd->argv != NULL) {
		host_cat(&s, &len, "set --;");
		for (i = 0; cmd->argv[i] != NULL; i++) {
			host_cat_value(&s, &len, "_jd_v", cmd->argv[i]);
			host_cat(&s, &len, "set -- \"$@\" \"$_jd_v\";");
		}
		host_cat(&s, &len, "exec \"$@\");st=$?;");
	} else {
		host_cat_value(&s, &len, "_jd_v", cmd->command != NULL ?
		    cmd->command : "");
		host_cat(&s, &len, "exec \"${SHELL:-/bin/sh}\" -c "
		    "\"$_jd_v\");st=$?;");
	}
	host_cat(&s, &len, "kill $S 2>/dev/null;k;rm -f \"$D/${T}pid\";"
	    "exit $st");
	return s;
}

/* Return the remote command line that runs script under /bin/sh. */
char *
host_ssh_remote(const char *script)
{
	return xprintf("exec /bin/sh -c '%s'", script);
}

/* Return the ssh argv for h with options opts and remote command. */
static char **
host_ssh_argv(struct host *h, const char *const *opts, const char *remote,
    char **cause)
{
	return sshcmd_argv(sshcmd_program(h->hs->ssh_command), opts, h->dest,
	    remote, cause);
}

/*
 * Start h's master connection (ssh -M -N, no prompt, a connect timeout,
 * its socket in the deck's runtime directory); 0, or -1 with h->error.
 */
int
host_ssh_connect(struct host *h)
{
	const char	*opts[20];
	char		*dir = NULL, *sub, *cause = NULL, **argv;
	size_t		 n = 0;

	free(h->error);
	h->error = NULL;
	if (h->ctl_path == NULL) {
		if (ctl_socket_dir(1, &dir, &cause) != 0) {
			h->error = xprintf("%s: %s", h->name, cause);
			free(cause);
			h->state = HOST_FAILED;
			return -1;
		}
		sub = xprintf("%s/%s.ssh", dir, h->hs->deck);
		free(dir);
		if (mkdir(sub, 0700) != 0 && errno != EEXIST) {
			h->error = xprintf("%s: %s", sub, strerror(errno));
			free(sub);
			h->state = HOST_FAILED;
			return -1;
		}
		h->ctl_path = xprintf("%s/%d", sub, h->index);
		free(h->hs->ctl_dir);
		h->hs->ctl_dir = sub;
	}
	/* Each attempt: ssh would run on without its socket. */
	if (strlen(h->ctl_path) > HOST_CTL_PATH_MAX) {
		h->error = xprintf("%s: control path too long (set "
		    "XDG_RUNTIME_DIR shorter): %s", h->name, h->ctl_path);
		h->state = HOST_FAILED;
		return -1;
	}
	(void)unlink(h->ctl_path);
	opts[n++] = "-M";
	opts[n++] = "-N";
	opts[n++] = "-S";
	opts[n++] = h->ctl_path;
	opts[n++] = "-o";
	opts[n++] = "ControlPersist=no";
	opts[n++] = "-o";
	opts[n++] = "BatchMode=yes";
	opts[n++] = "-o";
	opts[n++] = "ConnectTimeout=10";
	opts[n++] = "-o";
	opts[n++] = "ServerAliveInterval=15";
	opts[n++] = "-o";
	opts[n++] = "ServerAliveCountMax=3";
	opts[n] = NULL;
	if ((argv = host_ssh_argv(h, opts, NULL, &cause)) == NULL) {
		h->error = cause;
		h->state = HOST_FAILED;
		return -1;
	}
	h->master = host_start(h->hs, argv, 0, &host_ssh_master_cbs, h,
	    &cause);
	sshcmd_argv_free(argv);
	if (h->master == NULL) {
		h->error = xprintf("%s: %s", h->name, cause);
		free(cause);
		h->state = HOST_FAILED;
		return -1;
	}
	debuglog("host %s: connecting to %s", h->name, h->dest);
	h->state = HOST_CONNECTING;
	h->connect_end = loop_now_ms() + HOST_CONNECT_MS;
	h->poll_timer = loop_add_timer(h->hs->loop, HOST_MASTER_POLL_MS,
	    host_ssh_poll_cb, h);
	return 0;
}

/* While h connects: up once its master's socket is there. */
static void
host_ssh_poll_cb(void *arg)
{
	struct host	*h = arg;
	struct stat	 sb;

	h->poll_timer = 0;
	if (h->state != HOST_CONNECTING)
		return;
	if (stat(h->ctl_path, &sb) == 0 && S_ISSOCK(sb.st_mode)) {
		debuglog("host %s: up", h->name);
		h->state = HOST_UP;
		h->nwaiting = 0;
		host_recheck(h->hs);
		return;
	}
	if (loop_now_ms() >= h->connect_end) {
		/* A master that never makes its socket (a wrapper's ssh?). */
		supcmd_cancel(h->master);
		h->master = NULL;
		free(h->error);
		h->error = xprintf("ssh to %s: no connection after %d s",
		    h->dest, HOST_CONNECT_MS / 1000);
		debuglog("host %s: %s", h->name, h->error);
		h->state = HOST_FAILED;
		host_recheck(h->hs);
		return;
	}
	h->poll_timer = loop_add_timer(h->hs->loop, HOST_MASTER_POLL_MS,
	    host_ssh_poll_cb, h);
}

/*
 * h's master ended: the host failed with ssh's last line as the reason
 * (the runs that waited fail at their gate; a later start connects
 * again).
 */
static void
host_ssh_master_done(struct supcmd *sc, int status, const char *out,
    size_t len, void *arg)
{
	struct host	*h = arg;
	char		*copy, desc[128];
	const char	*last;

	(void)sc;
	(void)len;
	h->master = NULL;
	if (h->poll_timer != 0) {
		loop_cancel_timer(h->hs->loop, h->poll_timer);
		h->poll_timer = 0;
	}
	copy = xstrdup(out);
	last = supcmd_last_line(copy);
	free(h->error);
	if (*last != '\0')
		h->error = xstrdup(last);
	else {
		waitstatus_long(status, desc, sizeof desc);
		h->error = xprintf("ssh to %s ended (%s)", h->dest, desc);
	}
	free(copy);
	debuglog("host %s: master ended: %s", h->name, h->error);
	h->state = HOST_FAILED;
	(void)unlink(h->ctl_path);
	host_recheck(h->hs);
}

/* After the loop: close h's master and its socket. */
void
host_ssh_close(struct host *h)
{
	if (h->master != NULL) {
		(void)supcmd_finish(h->master, SIGTERM, 2000);
		h->master = NULL;
	}
	if (h->ctl_path != NULL)
		(void)unlink(h->ctl_path);
}

/* Fill the session options of a run through h's master into opts. */
static size_t
host_ssh_session_opts(struct host *h, const char **opts, int tty)
{
	size_t	n = 0;

	opts[n++] = "-S";
	opts[n++] = h->ctl_path;
	opts[n++] = "-o";
	opts[n++] = "ControlMaster=no";
	/* Never a connection of its own when the master is gone. */
	opts[n++] = "-o";
	opts[n++] = "ProxyCommand=false";
	opts[n++] = "-o";
	opts[n++] = "BatchMode=yes";
	opts[n++] = "-o";
	opts[n++] = "LogLevel=ERROR";
	if (tty)
		opts[n++] = "-tt";
	else
		opts[n++] = "-T";
	opts[n] = NULL;
	return n;
}

/*
 * Fill spec with the ssh session that runs cmd on run's host through its
 * master (-tt for a pty); 0, or -1 with *cause.
 */
int
host_ssh_wrap(struct host_run *run, const struct host_cmd *cmd,
    struct pty_spec *spec, char **cause)
{
	struct host	*h = run->host;
	const char	*opts[16];
	char		*script, *remote;

	if (h->state != HOST_UP) {
		*cause = xprintf("%s: not connected", h->name);
		return -1;
	}
	host_ssh_session_opts(h, opts, !cmd->no_pty);
	script = host_ssh_script(run, cmd);
	remote = host_ssh_remote(script);
	free(script);
	run->argv = host_ssh_argv(h, opts, remote, cause);
	free(remote);
	if (run->argv == NULL)
		return -1;
	spec->path = run->argv[0];
	spec->argv = run->argv;
	spec->cwd = NULL;
	return 0;
}

/*
 * Send sig to the run's group on its host, through the master:
 * kill -s SIG -- -PGID, the pgid from the run's pid file there.
 */
int
host_ssh_signal(struct host_run *run, int sig)
{
	struct host	*h = run->host;
	const char	*opts[16];
	char		*script, *remote, **argv, *cause = NULL;
	const char	*name;

	if (h->state != HOST_UP || h->master == NULL) {
		errno = ESRCH;
		return -1;
	}
	/* A name the host's kill knows (numbers differ between systems). */
	if (sig <= 0 || sig >= NSIG || (name = sigabbrev_np(sig)) == NULL) {
		errno = EINVAL;
		return -1;
	}
	host_ssh_session_opts(h, opts, 0);
	/* SIGKILL takes the watcher with the group: what left it goes too. */
	if (sig == SIGKILL)
		script = xprintf(HOST_SCRIPT_DIR "T=%s;%s"
		    "p=$(cat \"$D/${T}pid\" 2>/dev/null)&&kill -s KILL -- -$p;"
		    "k;rm -f \"$D/${T}pid\"", run->token, HOST_SCRIPT_KILL);
	else
		script = xprintf(HOST_SCRIPT_DIR "p=$(cat \"$D/%spid\" "
		    "2>/dev/null)&&kill -s %s -- -$p", run->token, name);
	remote = host_ssh_remote(script);
	free(script);
	argv = host_ssh_argv(h, opts, remote, &cause);
	free(remote);
	if (argv == NULL) {
		debuglog("host %s: %s", h->name, cause);
		free(cause);
		errno = EINVAL;
		return -1;
	}
	host_oneshot(h->hs, argv, "remote signal");
	sshcmd_argv_free(argv);
	return 0;
}
