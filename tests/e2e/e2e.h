/*
 * e2e: what every end-to-end suite shares on top of the term harness (it
 * needs check, which term.c does not): the binary under test, starting it
 * and waiting for its panel, typing a command line, `jobdeck ctl` run
 * beside it, configuration files
 * in a private directory, running it without a terminal, failure messages
 * that carry the screen, and the suite's main().
 *
 * Strings returned by e2e_bin, e2e_fmt, e2e_dump and e2e_cfg_write are
 * static (e2e_dump's are the term's), valid until the next call.  The
 * directory of e2e_cfg_write is owned by this module until
 * e2e_cfg_remove() removes it; one at a time.
 */
#ifndef JOBDECK_E2E_E2E_H
#define JOBDECK_E2E_E2E_H

#include <stdarg.h>
#include <stddef.h>
#include <sys/types.h>

#include <check.h>

#include "e2e/term.h"

#define E2E_START_MS	10000	/* wait for the panel of a new deck */
#define E2E_CTL_MS	15000	/* one jobdeck ctl to its end */

/* Expect text inside a region within ms, or fail with the screen. */
#define EXPECT_IN(t, r, text, ms)					\
	ck_assert_msg(term_wait_text_in((t), (r), (text), (ms)),	\
	    "no \"%s\" in %s after %d ms\n%s", (text), #r, (ms),	\
	    e2e_dump(t))

/* Expect text to be gone from a region within ms. */
#define EXPECT_GONE_IN(t, r, text, ms)					\
	ck_assert_msg(term_wait_gone_in((t), (r), (text), (ms)),	\
	    "\"%s\" still in %s after %d ms\n%s", (text), #r, (ms),	\
	    e2e_dump(t))

/* Assert cond, explaining with what and the screen. */
#define E2E_ASSERT(t, cond, what)					\
	ck_assert_msg((cond), "%s\n%s", (what), e2e_dump(t))

/*
 * Wait until cond holds, reading t's screen meanwhile, at most ms; else
 * fail with what and the screen.
 */
#define E2E_WAIT(t, cond, ms, what) do {				\
	int64_t	e2e_end_ = term_now_ms() + (ms);			\
									\
	while (!(cond)) {						\
		ck_assert_msg(term_now_ms() < e2e_end_, "%s (after %d "	\
		    "ms)\n%s", (what), (ms), e2e_dump(t));		\
		term_pump((t), 20);					\
	}								\
} while (0)

/* One test case of a suite: its name, its test and its timeout (s). */
struct e2e_case {
	const char	*name;
	const TTest	*const *test;
	int		 timeout;
};

const char	*e2e_bin(void);
const char	*e2e_fmt(const char *, ...)
		    __attribute__((__format__(__printf__, 1, 2)));
const char	*e2e_dump(struct term *);
struct term	*e2e_start(const char *const *, const char *const *);
pid_t		 e2e_deck_find(struct term *, int ms);
pid_t		 e2e_deck_pid(struct term *);
void		 e2e_run(struct term *, const char *);
int		 e2e_page_to(struct term *, const char *, int, int);
const char	*e2e_cfg_write(const char *, const char *);
void		 e2e_cfg_remove(void);
int		 e2e_batch(const char *, char *, size_t);
ssize_t		 e2e_read_file(struct term *, const char *, char *, size_t);
void		 e2e_put_file(const char *, const char *, const char *, int);
const char	*e2e_get_file(const char *, const char *, char *, size_t);
int		 e2e_drain(int, char **, size_t *);
pid_t		 e2e_ctl_spawn(const char *, const char *,
		    const char *const *, int, int *);
char		*e2e_ctl(struct term *, const char *, const char *,
		    const char *const *, int, int, int *);
char		*e2e_ctl_okv(struct term *, const char *, const char *, int,
		    va_list);
void		 e2e_wait_logs(struct term *, const char *, const char *,
		    const char *, const char *, int);
void		 e2e_add_cases(Suite *, const struct e2e_case *, size_t);
int		 e2e_main(Suite *);

#endif
