/*
 * job-private.h: struct job, shared by job.c (its lifecycle: start, I/O,
 * signals, its end, the store's run) and job-text.c (its output as text).
 * Nothing else includes this header; everyone else goes through job.h.
 */
#ifndef JOBDECK_JOB_PRIVATE_H
#define JOBDECK_JOB_PRIVATE_H

#include <stdint.h>

#include "job.h"
#include "pty.h"
#include "store.h"
#include "ttywait.h"

/* A run of the job in the store: its id and its number among the runs. */
struct job_run {
	char		  id[STORE_ID_LEN + 1];
	int		  no;
};

struct job {
	int		  id;
	char		 *name;
	char		 *command;
	char		 *shell;
	char		 *cwd;
	char		 *host;		/* NULL: here (job_spec.host) */
	char		**envp;
	struct store	 *store;	/* the deck's, borrowed; NULL: none */
	char		 *store_error;	/* why the deck has none, or NULL */
	int		  scrollback;
	int		  no_pty;
	int		  no_term;	/* no TERM added to its env */
	int		  no_screen;	/* no emulator (job_vt_get()) */
	int		  own_leftovers;	/* the owner stops leftovers */
	int		  focused;	/* clients giving it their keys */
	char		**argv;		/* NULL: command runs through the shell */
	char		 *input;
	int		  input_eof;
	int64_t		  timeout_ms;
	enum job_restart  restart;
	int64_t		  restart_delay_ms;
	int		  max_restarts;
	int64_t		  restart_delay_max_ms;
	char		 *group;	/* NULL: none */
	int		  priority;
	int		  stop_signal;	/* 0: SIGTERM */
	char		 *stop_command;	/* NULL: a signal stops it */
	int64_t		  stop_timeout_ms;	/* <= 0: the deck's grace */
	struct job_spec	  view;		/* job_spec()'s answer */
	int		  starts;	/* how many times it was started */
	int		  runs;		/* started in all (never cleared) */
	struct job_run	 *run_list;	/* its runs in the store, oldest */
	int		  nrun_list;	/*   first, JOB_RUNS_MAX at most */

	enum job_state	  state;
	struct pty_child  child;
	int		  rows;
	int		  cols;
	struct vt	 *vt;
	struct store_run *run;		/* the run being written, or NULL */
	char		  run_id[STORE_ID_LEN + 1];	/* the last run's, or "" */
	char		 *log_error;
	int		  log_warned;	/* job_log_warning() told it */

	int64_t		  started;
	int64_t		  started_wall;	/* ms since the epoch, 0: never */
	int64_t		  ended;
	int64_t		  ended_wall;
	int		  status;
	struct store_mark	  text_mark;	/* job_text_incremental()'s */
	struct proc_reaper *reaper;	/* the jobtable's, or NULL */
	const struct proc_cbs *proc_cbs; /* its runs' events, to the jobtable */
	void		 *proc_arg;
	struct proc	 *proc;		/* the last run's, or NULL */

#define JOB_CANCEL	0x1	/* the user asked it to stop */
#define JOB_REAPED	0x2	/* waitpid() returned its status */
#define JOB_TIMEOUT	0x4	/* killed because its time was up */
#define JOB_FAIL	0x8	/* stopped by jobdeck for a failure */
	int		  flags;

	char		 *in;		/* queued input for the child */
	size_t		  in_len;
	size_t		  in_cap;
	uint64_t	  out_bytes;

	char		 *wait_reason;	/* JOB_WAITING: for what, or NULL */
	enum job_ready	  ready;	/* the current run's readiness */
	char		 *ready_text;	/* its probe's last attempt, or NULL */
	int64_t		  ready_wall;	/* when it passed (wall ms), or 0 */
	char		 *note;		/* why it last restarted, or NULL */
	char		 *start_error;	/* why its last start failed, or NULL */
	char		 *agent;	/* the agent that started it, or NULL */
	char		 *exec_error;	/* why the last run's program could */
					/*   not be started (pipes), or NULL */
	enum ttywait	  input_wait;	/* blocked reading its terminal */
};

#endif
