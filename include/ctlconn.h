/*
 * ctlconn: one request to a deck's control socket on a loop, without
 * blocking it (the protocol is in ctl.h).  ctlconn_new() quotes the words
 * as jobdeck ctl does, connects without waiting, writes the request as
 * the socket takes it and reads the reply: the status line, then the body
 * with the protocol's control lines taken out (keepalives, "\036follow",
 * and "\036exit N", whose N it keeps).  The done callback comes once, from
 * the loop, with the status (0, 1, 2; -1 and a reason when there is no
 * answer: no deck of that name, a refused connection, nothing for
 * CTL_ANSWER_TIMEOUT_MS, a lost connection, a reply over max).  In done,
 * ctlconn_no_deck() tells the first two (nobody listens) from the rest.
 *
 * The request line (ctlconn_request()) and the reply parser (struct
 * ctlconn_parse) are shared with the blocking client of jobdeck ctl, so
 * both write and read the protocol by one rule.  The parser takes the
 * reply in pieces as they come: it reads the status line, then hands the
 * body to a callback, on success without the control lines (whose
 * follow and exit N it keeps), on failure as it is (the error lines).
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

#define CTLCONN_CONTROL_MAX	512	/* bytes of a control line kept */

/*
 * A reply as it is read: status, follow, exit, damaged and error are for
 * reading.
 */
struct ctlconn_parse {
	int	 status;	/* of the status line, -1 before it */
	int	 follow;	/* "\036follow" came */
	int	 exit;		/* "\036exit N"'s N (1 if not 0..255), or -1 */
	int	 damaged;	/* "\036damaged N": a grep's damaged runs */
	char	 error[CTLCONN_CONTROL_MAX];	/* the first "\036error" */
	char	 head[2];
	size_t	 nhead;
	int	 bol;		/* the body is at the start of a line */
	int	 in_ctrl;	/* a control line is being read */
	char	 ctrl[CTLCONN_CONTROL_MAX];
	size_t	 nctrl;
};

/*
 * A piece of the body; 0, or -1 to stop the parse.  ctlconn_parse_feed()
 * returns 0, -1 when what came is not a reply (a bad status line), or -2
 * when the callback stopped it.
 */
typedef int	ctlconn_body_cb(const char *buf, size_t len, void *arg);

char		*ctlconn_request(char *const *words, int json, size_t *len,
		    char **cause);
void		 ctlconn_parse_init(struct ctlconn_parse *);
int		 ctlconn_parse_feed(struct ctlconn_parse *, const char *buf,
		    size_t len, ctlconn_body_cb *, void *arg);

struct ctlconn	*ctlconn_new(struct loop *, const char *deck,
		    char *const *words, int flags, size_t max,
		    const struct ctlconn_cbs *, void *arg);
int		 ctlconn_no_deck(const struct ctlconn *);
void		 ctlconn_free(struct ctlconn *);

#endif
