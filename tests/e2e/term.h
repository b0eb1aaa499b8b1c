/*
 * term: the end-to-end test harness.  It runs a program (jobdeck) on a
 * pseudo-terminal of a fixed size and reads its screen through libvterm's
 * VTermScreen, as a person would see it, so tests can type keys and wait
 * for text.
 *
 * Each struct term owns a private temporary directory (term_tmpdir) that is
 * the program's cwd and holds its HOME and XDG_* directories; the program
 * gets TERM=xterm-256color, a UTF-8 locale, SHELL=/bin/sh and a tag in its
 * environment (JOBDECK_E2E_TAG=<tmpdir>) that its descendants inherit, so
 * the harness can find every process it started (term_procs) and kill them
 * all when the test ends, even if the test process is killed: a guard
 * process in its own session waits for the test to go away and then kills
 * whatever still carries the tag.
 *
 * Every wait has a timeout.  A wait that times out keeps a dump of the
 * screen (term_dump) for the failure message.  Strings returned by
 * term_screen_text, term_row_text and term_dump point into buffers owned by
 * the struct term, valid until the next call of one of them on it.
 *
 * Replies the terminal owes the program (DA, DSR) and the bytes of named
 * keys are produced by libvterm in the terminal's current modes, as a real
 * terminal would, and written back to the master.
 */
#ifndef JOBDECK_E2E_TERM_H
#define JOBDECK_E2E_TERM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define TERM_ROWS	40
#define TERM_COLS	120

struct term;

/* A rectangle of the screen; rows or cols of 0 or less mean "to the end". */
struct term_rect {
	int	row;
	int	col;
	int	rows;
	int	cols;
};

/* A colour as seen in a cell; r, g, b are always filled in. */
struct term_color {
	int	is_default;	/* the terminal's default fg or bg */
	int	index;		/* palette index, or -1 for direct RGB */
	uint8_t	r;
	uint8_t	g;
	uint8_t	b;
};

/* One screen cell. */
struct term_cell {
	char			text[32];	/* UTF-8, "" when erased */
	int			width;		/* 1, or 2 for a wide char */
	int			bold;
	int			underline;
	int			italic;
	int			blink;
	int			reverse;
	int			strike;
	struct term_color	fg;
	struct term_color	bg;
};

/* Named keys, encoded by libvterm in the terminal's current modes. */
enum term_keyname {
	TERM_KEY_ENTER,
	TERM_KEY_TAB,
	TERM_KEY_BACKSPACE,
	TERM_KEY_ESC,
	TERM_KEY_UP,
	TERM_KEY_DOWN,
	TERM_KEY_LEFT,
	TERM_KEY_RIGHT,
	TERM_KEY_INSERT,
	TERM_KEY_DELETE,
	TERM_KEY_HOME,
	TERM_KEY_END,
	TERM_KEY_PAGEUP,
	TERM_KEY_PAGEDOWN,
	TERM_KEY_F1,
	TERM_KEY_CTRL_C,
	TERM_KEY_CTRL_N,
	TERM_KEY_CTRL_P,
	TERM_KEY_CTRL_T
};

/*
 * Start argv on a new 120x40 pty (an argv[0] with a slash is made absolute
 * first, as the program runs in the temporary directory); env is NULL or a
 * NULL-terminated list of NAME=VALUE strings added to (or replacing in) the
 * program's environment, where a bare NAME unsets it.  Returns NULL with
 * errno set on failure.
 */
struct term	*term_start(const char *const *argv, const char *const *env);
/*
 * Start argv as term_start() does, on a rows x cols pty, but in like's
 * temporary directory and environment (HOME, XDG_*, the tag): a second
 * terminal of the same user, seeing the same decks.  like's guard cleans
 * up after both, so like is closed last.
 */
struct term	*term_start_in(const struct term *like,
		    const char *const *argv, const char *const *env,
		    int rows, int cols);
void		 term_close(struct term *);

const char	*term_tmpdir(const struct term *);
pid_t		 term_pid(const struct term *);

/* Reading the program's output. */
void		 term_pump(struct term *, int ms);
size_t		 term_read_fd(struct term *, int fd, char *buf, size_t len,
		    int ms);
int		 term_wait_text(struct term *, const char *text, int ms);
int		 term_wait_gone(struct term *, const char *text, int ms);
int		 term_wait_text_in(struct term *, const struct term_rect *,
		    const char *text, int ms);
int		 term_wait_gone_in(struct term *, const struct term_rect *,
		    const char *text, int ms);
int		 term_wait_count_in(struct term *, const struct term_rect *,
		    const char *text, int count, int ms);

/* Looking at the screen. */
const char	*term_screen_text(struct term *);
const char	*term_text_in(struct term *, const struct term_rect *);
const char	*term_row_text(struct term *, int row);
const char	*term_dump(struct term *);
int		 term_find(struct term *, const char *text, int *row, int *col);
int		 term_find_in(struct term *, const struct term_rect *,
		    const char *text, int *row, int *col);
int		 term_count_in(struct term *, const struct term_rect *,
		    const char *text);
int		 term_cell(struct term *, int row, int col, struct term_cell *);
void		 term_size(const struct term *, int *rows, int *cols);

/*
 * The raw bytes the program writes, recorded from term_raw_start() until
 * term_raw_stop() as the pumps read them; term_raw_bytes() returns them
 * (owned by t, valid until the next read or start).
 */
void		 term_raw_start(struct term *);
void		 term_raw_stop(struct term *);
const char	*term_raw_bytes(struct term *, size_t *len);

/* Typing. */
void		 term_type(struct term *, const char *text);
void		 term_key(struct term *, enum term_keyname);
void		 term_resize(struct term *, int rows, int cols);
void		 term_paste(struct term *, const char *text);
void		 term_mouse(struct term *, int button, int row, int col,
		    int press);

/* The program's life. */
int		 term_signal(struct term *, int signo);
void		 term_hangup(struct term *);
int		 term_wait_exit(struct term *, int ms, int *status);

/* Processes. */
int		 term_pid_alive(pid_t);
int		 term_wait_pid_dead(struct term *, pid_t, int ms);
pid_t		 term_wait_pidfile(struct term *, const char *name, int ms);
size_t		 term_procs(struct term *, pid_t *pids, size_t max);
int64_t		 term_now_ms(void);

#endif
