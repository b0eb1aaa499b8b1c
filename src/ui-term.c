/*
 * ui-term.c: one client's terminal (ui-private.h, the primitives' floor).
 *
 * The deck draws every attached client itself, each through a curses
 * screen of its own (newterm() on the client's passed fds).  curses
 * reads keys from the client's terminal as it is; but its output goes
 * into a memory file, never to the terminal: curses would spin on a
 * terminal that is full (a suspended ssh), so after curses has written,
 * ui_term_flush() moves what it wrote into an outq on a private
 * non-blocking opening of the terminal, which writes what the terminal
 * takes now and the rest as it drains.  A client whose queue holds more
 * than UI_TERM_BACKLOG is drawn no more frames until it takes them
 * (ui_term_busy()); one that takes nothing for UI_TERM_STALL_MS is
 * told through the stalled callback, and is detached.
 *
 * curses keeps one current screen (set_term()); ui_term_enter() makes
 * this client's current with its colours and its locale (LC_CTYPE, as
 * the client's own), and every entry into the front end calls it first.
 *
 * The terminal's mode is the deck's while the client is attached, as
 * tmux's server owns its clients' terminals: what it was is kept when the
 * client attaches and given back when it leaves (or is suspended), and
 * in between the terminal is in the mode curses draws in.  curses cannot
 * set it itself: its output is not the terminal.
 *
 * Sizes.  Debian's ncurses keeps one list of windows for all screens, so
 * resize_term() on one screen resizes every screen's windows (and the
 * others then draw past their lines).  So no screen is ever resized: a
 * screen is made at its terminal's size (newterm() reads LINES and
 * COLUMNS from the environment when its output is not a terminal, and
 * ui_term_env() keeps those two entries in buffers of ours, set in place,
 * so the environment's array never moves under another thread), and a
 * terminal that changes size gets a new screen (ui_term_reopen()).
 *
 * Screens go together.  With that one list, delscreen() of any screen
 * frees every screen's windows (the others are left with none, and draw
 * nothing).  So a screen is never deleted alone: every screen is deleted,
 * then every one still needed is made anew, its owner told (rebuilt) to
 * set its modes and draw all of it again (ui_term_rebuild()).  A client
 * leaving or resizing costs the others one whole frame each.
 */
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <termios.h>

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debuglog.h"
#include "fatal.h"
#include "loop.h"
#include "outq.h"
#include "ui-private.h"
#include "xmalloc.h"

struct ui_term {
	struct loop		*loop;
	SCREEN			*screen;
	char			*name;		/* the terminfo entry used */
	int			 rows, cols;	/* the screen's size */
	struct ui_colours	*colours;
	locale_t		 locale;	/* the client's LC_CTYPE */
	FILE			*in;		/* the terminal, for keys */
	FILE			*mem;		/* curses' output */
	int			 out_fd;	/* the terminal, given */
	struct outq		*q;		/* ... written through this */
	const struct ui_term_cbs *cbs;
	void			*arg;
	int			 ended;		/* endwin() done */
	struct termios		 saved;		/* the mode it came in */
	int			 moded;		/* ... and ours is set */
	struct ui_term		*next;		/* every open terminal */
};

/* Every open terminal, for ui_term_rebuild(). */
static struct ui_term	*ui_terms;

static void	ui_term_written(struct outq *, void *);
static void	ui_term_stalled(struct outq *, void *);

static const struct outq_cbs ui_term_outq_cbs = {
	.written = ui_term_written,
	.stalled = ui_term_stalled,
};

/* The terminal took bytes (or failed): tell the owner. */
static void
ui_term_written(struct outq *q, void *arg)
{
	struct ui_term	*t = arg;

	if (t->cbs->written != NULL)
		t->cbs->written(outq_error(q), t->arg);
}

/* The terminal took nothing for the stall limit: tell the owner. */
static void
ui_term_stalled(struct outq *q, void *arg)
{
	struct ui_term	*t = arg;

	(void)q;
	if (t->cbs->stalled != NULL)
		t->cbs->stalled(t->arg);
}

/*
 * Put the terminal in the mode curses draws in, as its raw(), noecho()
 * and nonl() on its start-up mode would: no echo, no line editing, no
 * signals from keys, no CR and NL translation either way.
 */
static void
ui_term_mode(struct ui_term *t)
{
	struct termios	m = t->saved;

	m.c_lflag &= (tcflag_t)~(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
	m.c_iflag &= (tcflag_t)~(ICRNL | INLCR | IGNCR | IXON | BRKINT |
	    PARMRK);
	m.c_oflag &= (tcflag_t)~ONLCR;
	m.c_cc[VMIN] = 1;
	m.c_cc[VTIME] = 0;
	t->moded = tcsetattr(fileno(t->in), TCSANOW, &m) == 0;
}

/* Give the terminal the mode it came in (never waiting for it to drain). */
static void
ui_term_unmode(struct ui_term *t)
{
	if (t->moded)
		tcsetattr(fileno(t->in), TCSANOW, &t->saved);
	t->moded = 0;
}

/* Make this client's screen, colours and locale the current ones. */
void
ui_term_enter(struct ui_term *t)
{
	if (t->screen == NULL)
		return;		/* lost in a rebuild: being let go */
	set_term(t->screen);
	ui_colour_use(t->colours);
	if (t->locale != (locale_t)0)
		uselocale(t->locale);
}

/*
 * Move what curses wrote into the terminal's queue and write what the
 * terminal takes now; -1 once the terminal is gone (EIO, EPIPE).
 */
int
ui_term_flush(struct ui_term *t)
{
	char	buf[16384];
	off_t	end, at = 0;
	ssize_t	n;

	if (t->mem == NULL)
		return -1;
	fflush(t->mem);
	end = lseek(fileno(t->mem), 0, SEEK_CUR);
	while (at < end) {
		n = pread(fileno(t->mem), buf, sizeof buf, at);
		if (n <= 0)
			break;
		outq_add(t->q, buf, (size_t)n);
		at += n;
	}
	if (end > 0) {
		if (ftruncate(fileno(t->mem), 0) == -1)
			debuglog("client: truncate: %s", strerror(errno));
		lseek(fileno(t->mem), 0, SEEK_SET);
	}
	if (outq_pending(t->q) > 0)
		outq_flush(t->q);
	return outq_error(t->q) != 0 ? -1 : 0;
}

/* Queue bytes for the terminal after what curses wrote, and write them. */
void
ui_term_write(struct ui_term *t, const char *s, size_t len)
{
	ui_term_flush(t);
	outq_add(t->q, s, len);
	outq_flush(t->q);
}

/* Return whether the terminal is behind: no new frame until it drains. */
int
ui_term_busy(const struct ui_term *t)
{
	if (t->screen == NULL)
		return 1;	/* nothing to draw on: being let go */
	return outq_pending(t->q) > UI_TERM_BACKLOG;
}

/* Return the bytes that wait for the terminal. */
size_t
ui_term_pending(const struct ui_term *t)
{
	return outq_pending(t->q);
}

/* Return the fd keys are read from. */
int
ui_term_in_fd(const struct ui_term *t)
{
	return fileno(t->in);
}

/* Read the terminal's size; 0, or -1 when it has none (gone). */
int
ui_term_size(const struct ui_term *t, int *rows, int *cols)
{
	struct winsize	ws;

	if (ioctl(fileno(t->in), TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0 ||
	    ws.ws_col == 0)
		return -1;
	*rows = ws.ws_row;
	*cols = ws.ws_col;
	return 0;
}

/* LINES and COLUMNS for newterm(): our buffers, put once, set in place. */
static char	ui_term_lines[32] = "LINES=24";
static char	ui_term_columns[32] = "COLUMNS=80";

/* Set the size the next newterm() makes its screen (see the top). */
static void
ui_term_env(int rows, int cols)
{
	static int	put;

	if (!put) {
		putenv(ui_term_lines);
		putenv(ui_term_columns);
		put = 1;
	}
	snprintf(ui_term_lines, sizeof ui_term_lines, "LINES=%d", rows);
	snprintf(ui_term_columns, sizeof ui_term_columns, "COLUMNS=%d", cols);
}

/*
 * Make the screen at the terminal's size (80x24 when it has none): the
 * direct-colour entry when asked and known, else the terminal's own;
 * -1 when terminfo knows neither.
 */
static int
ui_term_screen(struct ui_term *t)
{
	int	rows = 24, cols = 80;

	ui_term_size(t, &rows, &cols);
	ui_term_env(rows, cols);
	if ((t->screen = newterm(t->name, t->mem, t->in)) == NULL)
		return -1;
	t->rows = rows;
	t->cols = cols;
	t->colours = ui_colour_new();
	return 0;
}

/* Delete a terminal's screen and colours (see the top: never alone). */
static void
ui_term_screen_free(struct ui_term *t)
{
	if (t->screen == NULL)
		return;
	ui_term_enter(t);
	delscreen(t->screen);
	t->screen = NULL;
	ui_colour_free(t->colours);
	t->colours = NULL;
}

/*
 * Delete every screen, then make anew the screen of every terminal but
 * gone (being freed, or NULL), each at its terminal's size; the owners of
 * all but self (its caller) are told.
 */
static void
ui_term_rebuild(struct ui_term *gone, struct ui_term *self)
{
	struct ui_term	*t;

	for (t = ui_terms; t != NULL; t = t->next)
		ui_term_screen_free(t);
	for (t = ui_terms; t != NULL; t = t->next) {
		if (t == gone)
			continue;
		if (ui_term_screen(t) != 0) {
			/* (No fd for it, say): that client is let go. */
			debuglog("client: newterm %s failed", t->name);
			continue;
		}
		if (t->ended)
			endwin();	/* given back: stays so until resumed */
	}
	/* Each owner works on its own screen, made current for it. */
	for (t = ui_terms; t != NULL; t = t->next) {
		if (t == gone || t == self)
			continue;
		if (t->screen == NULL)
			t->cbs->written(EIO, t->arg);
		else if (t->cbs->rebuilt != NULL) {
			ui_term_enter(t);
			t->cbs->rebuilt(t->arg);
		}
	}
	if (self != NULL && self->screen != NULL)
		ui_term_enter(self);
}

/*
 * Make a new screen if the terminal's size changed (see the top): 1 when
 * it did (the caller sets its modes again and draws all), 0 when it did
 * not change, -1 when no screen could be made (the client is let go).
 */
int
ui_term_reopen(struct ui_term *t)
{
	int	rows, cols;

	if (ui_term_size(t, &rows, &cols) != 0 ||
	    (rows == t->rows && cols == t->cols))
		return 0;
	ui_term_rebuild(NULL, t);
	return t->screen != NULL ? 1 : -1;
}

/*
 * Make the locale of a client's LC_CTYPE, or of C.UTF-8 when it names
 * none this machine has; (locale_t)0 when neither is here.
 */
static locale_t
ui_term_locale(const char *ctype)
{
	locale_t	loc = (locale_t)0;

	if (ctype != NULL && *ctype != '\0')
		loc = newlocale(LC_CTYPE_MASK, ctype, (locale_t)0);
	if (loc == (locale_t)0)
		loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	return loc;
}

/*
 * Open a client's terminal: curses' screen on in_fd (keys) with its
 * output to a memory file, and out_fd written through a queue; takes
 * both fds (closed on failure too).  NULL with *cause on failure.
 */
struct ui_term *
ui_term_open(struct loop *loop, const struct ui_term_spec *spec,
    const struct ui_term_cbs *cbs, void *arg, char **cause)
{
	struct ui_term	*t;
	const char	*name;
	int		 mfd;

	t = xcalloc(1, sizeof *t);
	t->loop = loop;
	t->cbs = cbs;
	t->arg = arg;
	t->out_fd = spec->out_fd;
	if (!isatty(spec->in_fd) || !isatty(spec->out_fd)) {
		*cause = xstrdup("the client's input and output must be a "
		    "terminal");
		goto fail;
	}
	if ((mfd = memfd_create("jobdeck-screen", MFD_CLOEXEC)) == -1) {
		*cause = xprintf("memfd_create: %s", strerror(errno));
		goto fail;
	}
	t->mem = fdopen(mfd, "w");
	t->in = fdopen(spec->in_fd, "r");
	if (t->mem == NULL || t->in == NULL)
		fatal("fdopen: %s", strerror(errno));
	if (tcgetattr(spec->in_fd, &t->saved) != 0) {
		*cause = xprintf("the client's terminal: %s", strerror(errno));
		goto fail;
	}
	t->locale = ui_term_locale(spec->ctype);
	if (t->locale != (locale_t)0)
		uselocale(t->locale);
	t->q = outq_open(loop, spec->out_fd, OUTQ_WATCH, &ui_term_outq_cbs,
	    t);
	outq_set_stall(t->q, UI_TERM_STALL_MS);
	/* A direct-colour variant of TERM if truecolor is on (ui-colour.c). */
	name = ui_colour_term(spec->term, spec->colorterm);
	t->name = xstrdup(name != NULL ? name : spec->term != NULL ?
	    spec->term : "dumb");
	if (ui_term_screen(t) != 0 && (name == NULL || spec->term == NULL ||
	    (free(t->name), t->name = xstrdup(spec->term),
	    ui_term_screen(t) != 0))) {
		*cause = xprintf("cannot start the terminal %s (no terminfo "
		    "entry for it here?)", spec->term != NULL ? spec->term :
		    "(no TERM)");
		goto fail;
	}
	ui_term_mode(t);
	t->next = ui_terms;
	ui_terms = t;
	return t;

fail:
	if (t->in == NULL)
		close(spec->in_fd);
	ui_term_free(t);
	return NULL;
}

/*
 * End curses on the terminal (the shell's screen back) and queue what it
 * writes then, and after (bytes, the modes to turn off).
 */
void
ui_term_end(struct ui_term *t, const char *after)
{
	if (t->ended || t->screen == NULL)
		return;
	ui_term_enter(t);
	endwin();
	t->ended = 1;
	ui_term_unmode(t);
	ui_term_write(t, after, strlen(after));
}

/* Take the terminal again after ui_term_end(): all of it drawn anew. */
void
ui_term_resume(struct ui_term *t)
{
	if (!t->ended)
		return;
	t->ended = 0;
	if (tcgetattr(fileno(t->in), &t->saved) == 0)
		ui_term_mode(t);
	if (t->screen == NULL)
		return;
	ui_term_enter(t);
	clearok(curscr, TRUE);
}

/* Free a client's terminal: screen, colours, locale, queue and fds. */
void
ui_term_free(struct ui_term *t)
{
	struct ui_term	**p;

	if (t == NULL)
		return;
	if (t->screen != NULL) {
		ui_term_enter(t);
		if (!t->ended)
			endwin();
		/* Its screen goes with every other, which come back. */
		ui_term_rebuild(t, NULL);
	}
	for (p = &ui_terms; *p != NULL; p = &(*p)->next) {
		if (*p == t) {
			*p = t->next;
			break;
		}
	}
	ui_term_unmode(t);
	ui_colour_free(t->colours);
	outq_free(t->q);
	if (t->out_fd != -1)
		close(t->out_fd);
	if (t->in != NULL)
		fclose(t->in);
	if (t->mem != NULL)
		fclose(t->mem);
	if (t->locale != (locale_t)0) {
		uselocale(LC_GLOBAL_LOCALE);
		freelocale(t->locale);
	}
	free(t->name);
	free(t);
}
