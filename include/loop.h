/*
 * loop: the event loop.  One poll() over the watched fds, one-shot timers on
 * the monotonic clock, signals delivered through a self-pipe (the handler
 * only writes the signal number to the pipe; the callback runs later in
 * normal context), and a before-sleep hook that runs once per turn just
 * before the loop waits, which is where drawing happens.  loop.c is the
 * only caller of poll() and knows no other module.
 *
 * Ownership: the caller owns the struct loop.  The loop owns its self-pipe;
 * watched fds stay owned by whoever watches them and must be unwatched
 * before they are closed.  Callbacks may add and remove watches and timers,
 * including their own.
 */
#ifndef JOBDECK_LOOP_H
#define JOBDECK_LOOP_H

#include <poll.h>
#include <stdint.h>

struct loop;

typedef void	loop_fd_cb(int fd, short revents, void *arg);
typedef void	loop_timer_cb(void *arg);
typedef void	loop_signal_cb(int signo, void *arg);
typedef void	loop_hook_cb(void *arg);

struct loop	*loop_new(void);
void		 loop_free(struct loop *);

int		 loop_watch_fd(struct loop *, int fd, short events,
		    loop_fd_cb *cb, void *arg);
void		 loop_set_events(struct loop *, int fd, short events);
void		 loop_set_urgent(struct loop *, int fd, int urgent);
void		 loop_unwatch_fd(struct loop *, int fd);

uint64_t	 loop_add_timer(struct loop *, int64_t ms, loop_timer_cb *cb,
		    void *arg);
void		 loop_cancel_timer(struct loop *, uint64_t id);

int		 loop_watch_signal(struct loop *, int signo, loop_signal_cb *cb,
		    void *arg);
void		 loop_set_hook(struct loop *, loop_hook_cb *cb, void *arg);

int		 loop_run_once(struct loop *, int64_t max_wait_ms);
int		 loop_run(struct loop *);
void		 loop_stop(struct loop *);
void		 loop_yield(struct loop *);
void		 loop_await_urgent(struct loop *, int ms);
int64_t		 loop_now_ms(void);
int64_t		 loop_wall_ms(void);

#endif
