/*
 * ctlconn: one request to a deck's control socket on a loop, without
 * blocking it (the protocol is in ctl.h).  ctlconn_new() quotes the words
 * as jobdeck ctl does, connects without waiting, writes the request as
 * the socket takes it and reads the reply: the status line, then the body
 * with the protocol's control lines taken out (keepalives, "\036follow",
 * and "\036exit N", whose N it keeps).  The done callback comes once, from
 * the loop, with the status (0, 1, 2; -1 and a reason when there is no
 * answer: no deck of that name, a refused connection, nothing for
 * CTL_ANSWER_TIMEOUT_MS, a lost connection, a reply over max).
 *
 * The reply parser (struct ctlconn_parse) is shared with the blocking
 * client of jobdeck ctl, so both read the protocol by one rule.
 *
 * Ownership: the caller owns the struct ctlconn and frees it, in done or
 * before it comes (then done never comes); ctlconn owns its socket and
 * its loop watch and timer.  The body given to done is valid during the
 * call only.
 */
#ifndef JOBDECK_CTLCONN_H
#define JOBDECK_CTLCONN_H

#include <stddef.h>

struct ctlconn;
struct loop;

struct ctlconn_cbs {
	void	(*done)(int status, int exit, const char *body, size_t len,
		    void *arg);
};

/* Flags of ctlconn_new(). */
#define CTLCONN_JSON		0x1	/* --json */
#define CTLCONN_READ_ONLY	0x2	/* the deck's read-only socket */

struct ctlconn	*ctlconn_new(struct loop *, const char *deck,
		    char *const *words, int flags, size_t max,
		    const struct ctlconn_cbs *, void *arg);
void		 ctlconn_free(struct ctlconn *);

#endif
