/*
 * bind: the key bindings, as data.  One table (bind_defaults[]) names every
 * action of every key mode with its default keys and a note; it drives the
 * front end's dispatch, !help, the man page's key section and the [keys]
 * table of the configuration, which rebinds any action.
 *
 * At the prompt (BIND_MAIN) an action is a command line, as in tmux's key
 * tables: each of the mode's actions is the command of cmd_table[] of its
 * name (zoom, next-job, paste...), which the front end runs through
 * cmd_execute() as if typed, and any other command line may be bound as
 * well ("logs 3"); such a binding's action is BIND_COMMAND and
 * bind_command() gives its line.  bind knows no command itself: the
 * command layer hands bind_set_commands() its names and its check of a
 * line once, before any configuration is read (without it only the
 * table's actions are known).  The other modes' actions act on the mode
 * under the key (a view's lines, copy mode's cursor, the line typed), as
 * tmux's copy-mode commands do, and are named only by the table.
 *
 * A key is an int: a character (a Unicode code point, C0 controls
 * included) or BIND_CURSES | a curses KEY_* code.  bind_key_code() turns
 * what wget_wch() read into one, folding the aliases a terminal may send
 * (KEY_ENTER and newline are Enter, KEY_BACKSPACE is DEL).  Key names are
 * tmux's: "C-t", "Enter", "PageUp", "S-Home", "F5", "g", "Space".
 *
 * Ownership: the caller owns a struct bind (bind_new/bind_free); the table
 * is static; bind_key_name() writes into the caller's buffer; the lines
 * bind_command() and bind_command_nth() return are the bind's, valid until
 * its keys change.
 */
#ifndef JOBDECK_BIND_H
#define JOBDECK_BIND_H

#include <stddef.h>

#define BIND_CURSES	0x40000000	/* a curses KEY_* code follows */
#define BIND_NO_KEY	(-1)

/* The key modes: each has its own actions and keys. */
enum bind_mode {
	BIND_MAIN,	/* the prompt; its focus key also works in focus mode */
	BIND_VIEW,	/* a text view: !logs, !ps, !help, !grep */
	BIND_COPY,	/* copy mode over a pane's screen and scrollback */
	BIND_EDIT,	/* a line being typed: the prompt and searches */
	BIND_MODES
};

enum bind_action {
	BIND_NONE = 0,

	/* BIND_MAIN */
	BIND_FOCUS,		/* focus the selected job, or leave focus */
	BIND_NEXT_JOB,
	BIND_PREV_JOB,
	BIND_REDRAW,
	BIND_SCROLL_UP,		/* the pane a page back */
	BIND_SCROLL_DOWN,
	BIND_SCROLL_TOP,	/* the oldest line kept */
	BIND_SCROLL_BOTTOM,	/* back to the live screen */
	BIND_ZOOM,		/* hide the panel, the pane takes the width */
	BIND_COPY_MODE,		/* copy mode on the selected pane */
	BIND_SEARCH_PANE,	/* copy mode, typing a search */
	BIND_PASTE,		/* the paste buffer to the selected job */
	BIND_MESSAGES,		/* the recent messages in a text view */
	BIND_DETACH,		/* this client leaves; the deck runs on */
	BIND_RELOAD,		/* !reload: the configuration read again */

	/* BIND_EDIT */
	BIND_EDIT_LEFT,
	BIND_EDIT_RIGHT,
	BIND_EDIT_HOME,
	BIND_EDIT_END,
	BIND_EDIT_BACKSPACE,
	BIND_EDIT_DELETE,
	BIND_EDIT_KILL_START,
	BIND_EDIT_KILL_END,
	BIND_EDIT_KILL_WORD,
	BIND_SUBMIT,		/* run the typed line, or search */
	BIND_EDIT_CLEAR,	/* empty the line; a search's: cancel it */
	BIND_EDIT_PREV,		/* history */
	BIND_EDIT_NEXT,

	/* BIND_VIEW and BIND_COPY (moves shared) */
	BIND_QUIT,		/* close the view, leave copy mode */
	BIND_UP,
	BIND_DOWN,
	BIND_LEFT,
	BIND_RIGHT,
	BIND_WORD_NEXT,
	BIND_WORD_PREV,
	BIND_WORD_END,
	BIND_LINE_START,
	BIND_LINE_END,
	BIND_PAGE_UP,
	BIND_PAGE_DOWN,
	BIND_HALF_UP,
	BIND_HALF_DOWN,
	BIND_TOP,
	BIND_BOTTOM,
	BIND_SEARCH_FORWARD,
	BIND_SEARCH_BACKWARD,
	BIND_SEARCH_NEXT,
	BIND_SEARCH_PREV,
	BIND_OPEN,		/* a view: open the chosen result */
	BIND_FOLLOW,		/* a view: keep at the end as lines come */
	BIND_NUMBERS,		/* a view: line numbers on or off */
	BIND_TIMES,		/* a view: times on or off */
	BIND_SELECT,		/* copy mode: start or drop a selection */
	BIND_SELECT_LINE,	/* copy mode: select whole lines */
	BIND_YANK,		/* copy mode: copy the selection and leave */

	BIND_COMMAND,		/* BIND_MAIN: a command line beyond the */
				/*   table's actions (bind_command()) */
	BIND_ACTIONS
};

/* One action of the table: its mode, name, default keys and note. */
struct bind_entry {
	enum bind_mode		 mode;
	enum bind_action	 action;
	const char		*name;	/* "zoom", unique within its mode */
	const char		*keys;	/* default keys, space-separated */
	const char		*note;	/* one line for !help and the man page */
};

extern const struct bind_entry bind_defaults[];	/* ends with action 0 */

/*
 * What the command layer tells the bindings (bind_set_commands()): name(i)
 * is its i-th command's name (NULL past the last), for suggestions; check
 * says whether a line is a command it runs, named in full with its
 * options and operands: 0, or -1 (*cause NULL: no such command; else a
 * misuse, the command's usage in *cause).
 */
struct bind_commands {
	const char	*(*name)(size_t);
	int		 (*check)(const char *line, char **cause);
};

/* Values of bind_action_check(). */
#define BIND_KNOWN	0	/* an action of the table, or a command */
#define BIND_UNKNOWN	(-1)	/* no such action or command */
#define BIND_MISUSED	(-2)	/* a command, with bad options or operands */

struct bind;

struct bind	*bind_new(void);
void		 bind_free(struct bind *);
void		 bind_reset(struct bind *);
int		 bind_set(struct bind *, enum bind_mode, const char *name,
		    const char *keys, char **cause);
enum bind_action bind_lookup(const struct bind *, enum bind_mode, int key);
int		 bind_keys(const struct bind *, enum bind_mode,
		    enum bind_action, int *keys, int max);
size_t		 bind_keys_text(const struct bind *, enum bind_mode,
		    enum bind_action, char *buf, size_t size);
int		 bind_first_key(const struct bind *, enum bind_mode,
		    enum bind_action);

int		 bind_key_code(int rc, unsigned int key);
int		 bind_key_parse(const char *name, int *key, char **cause);
const char	*bind_key_name(int key, char *buf, size_t size);
const char	*bind_mode_name(enum bind_mode);
int		 bind_mode_parse(const char *name, enum bind_mode *);
const struct bind_entry *bind_entry_find(enum bind_mode, const char *name);
const struct bind_entry *bind_entry_of(enum bind_mode, enum bind_action);

void		 bind_set_commands(const struct bind_commands *);
const char	*bind_command_name(size_t);
int		 bind_action_check(enum bind_mode, const char *name,
		    char **cause);
const char	*bind_command(const struct bind *, enum bind_mode, int key);
const char	*bind_command_nth(const struct bind *, enum bind_mode, int n);
size_t		 bind_command_keys_text(const struct bind *, enum bind_mode,
		    const char *line, char *buf, size_t size);

#endif
