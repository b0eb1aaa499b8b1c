/*
 * job: one process jobdeck runs.  A job holds its spec, its state, pid,
 * start and end times and exit status, the pty (or pipe) fds of its child,
 * the terminal emulator its output is fed to (created lazily on the first
 * byte, so a silent job costs no emulator) and its log file.  job.c knows
 * nothing of the loop: jobtable watches the fds and calls job_read(),
 * job_flush_input() and job_set_exited().
 *
 * Ownership: jobtable owns every struct job.  A job owns its spec copy, its
 * fds (closed by job_close_output() or job_free()), its vt and its joblog.
 * Pointers returned by accessors belong to the job.
 */
#ifndef JOBDECK_JOB_H
#define JOBDECK_JOB_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct job;
struct vt;

enum job_state {
	JOB_QUEUED,
	JOB_RUNNING,
	JOB_COMPLETED,		/* exited 0 */
	JOB_FAILED,		/* non-zero exit, or a signal nobody asked for */
	JOB_CANCELED,		/* stopped by the user */
	JOB_TIMED_OUT
};

/* What to run.  job_new() copies every string; envp may be NULL. */
struct job_spec {
	const char	 *name;		/* optional, unique */
	const char	 *command;	/* shell string, run as SHELL -c COMMAND */
	const char	 *shell;	/* absolute path of the shell */
	const char	 *cwd;
	char *const	 *envp;		/* full environment */
	const char	 *log_dir;	/* NULL: no log file */
	int		  scrollback;	/* lines */
	int		  no_pty;	/* run on pipes */
};

struct job	*job_new(int id, const struct job_spec *);
void		 job_free(struct job *);

int		 job_start(struct job *, int rows, int cols, char **cause);
ssize_t		 job_read(struct job *, char *buf, size_t size);
void		 job_close_output(struct job *);
int		 job_write(struct job *, const char *buf, size_t len);
int		 job_flush_input(struct job *);
int		 job_input_pending(const struct job *);
int		 job_resize(struct job *, int rows, int cols);
int		 job_signal(struct job *, int sig);
void		 job_set_exited(struct job *, int status, int64_t now_ms);
void		 job_set_cancel(struct job *);

int		 job_id(const struct job *);
const char	*job_name(const struct job *);
const char	*job_command(const struct job *);
const char	*job_cwd(const struct job *);
pid_t		 job_pid(const struct job *);
enum job_state	 job_state(const struct job *);
const char	*job_state_name(enum job_state);
int		 job_is_running(const struct job *);
int		 job_is_pty(const struct job *);
int		 job_pty_errno(const struct job *);
int		 job_out_fd(const struct job *);
int		 job_in_fd(const struct job *);
int		 job_exit_status(const struct job *);
int64_t		 job_duration_ms(const struct job *, int64_t now_ms);
struct vt	*job_vt(const struct job *);
struct vt	*job_vt_get(struct job *);
const char	*job_log_path(const struct job *);
const char	*job_log_error(const struct job *);
uint64_t	 job_output_bytes(const struct job *);
size_t		 job_last_line(const struct job *, char *buf, size_t size);

char		*job_describe_exit(const struct job *);
char		**job_text_lines(const struct job *, int *count);
void		 job_text_free(char **lines, int count);
const char	*job_format_duration(int64_t ms, char *buf, size_t size);

#endif
