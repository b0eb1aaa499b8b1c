/*
 * probe: one readiness or liveness check of a job's run, run on the loop
 * without ever blocking it.  Kinds: a regex over the run's output lines
 * (fed with probe_feed()), a shell command that must exit 0 (a process
 * supervised by the jobtable's reaper, proc.h), a TCP connect
 * (non-blocking), or an HTTP GET answering 2xx or 3xx (http.h).
 * Attempts start after the initial delay and repeat every interval, each
 * bounded by the timeout.
 *
 * PROBE_READY reports once: ok at the first passing attempt, or not ok
 * after `retries` failed attempts (0: it never gives up).  PROBE_LIVE
 * reports once: not ok after `retries` failed attempts in a row.  After
 * its report a probe does nothing more; the caller frees it (the result
 * callback may, too: nothing of the probe runs when it is called).
 *
 * Ownership: the caller owns the struct probe; it owns its timers, its
 * socket, its request and its command's process (killed by
 * probe_free()).  The spec's strings are copied.
 */
#ifndef JOBDECK_PROBE_H
#define JOBDECK_PROBE_H

#include <stddef.h>
#include <stdint.h>

struct http;
struct jobtable;
struct loop;
struct probe;

enum probe_kind {
	PROBE_LOG,		/* target: a POSIX extended regex */
	PROBE_CMD,		/* target: a shell string, run by shell */
	PROBE_TCP,		/* target: "host:port", "[v6]:port"; host */
				/*   numeric or localhost: no DNS */
	PROBE_HTTP		/* target: an http:// or https:// URL */
};

enum probe_mode {
	PROBE_READY,
	PROBE_LIVE
};

struct probe_spec {
	enum probe_kind	 kind;
	enum probe_mode	 mode;
	const char	*target;
	const char	*shell;		/* PROBE_CMD: absolute path */
	const char	*cwd;		/* PROBE_CMD: NULL: jobdeck's */
	char *const	*envp;		/* PROBE_CMD: NULL: jobdeck's */
	int64_t		 interval_ms;
	int64_t		 timeout_ms;
	int64_t		 initial_delay_ms;
	int		 retries;
};

/*
 * The probe's one report; why says what failed ("connect: refused").
 * attempt (optional) is told after every attempt, before any report,
 * with probe_last()'s text; it must not free the probe.
 */
struct probe_cbs {
	void	(*result)(struct probe *, int ok, const char *why, void *arg);
	void	(*attempt)(struct probe *, int ok, const char *text,
		    void *arg);
};

struct probe	*probe_new(struct loop *, struct jobtable *, struct http *,
		    const struct probe_spec *, const struct probe_cbs *,
		    void *arg, char **cause);
void		 probe_feed(struct probe *, const char *buf, size_t len);
const char	*probe_describe(const struct probe *);
const char	*probe_last(const struct probe *);
void		 probe_free(struct probe *);

#endif
