/*
 * bind.c: the binding table, key names and the per-mode key maps a
 * configuration may change, whose prompt keys may run any command line the
 * command layer accepts (bind_set_commands()).  Curses is included only for
 * the KEY_* codes.
 */
#include <curses.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bind.h"
#include "fatal.h"
#include "utf8.h"
#include "xmalloc.h"

#define BIND_NAME_MAX	32	/* the longest key name written */
#define BIND_KEYS_MAX	8	/* keys one action may have */

/* The default bindings, mode by mode; the notes are !help's lines. */
const struct bind_entry bind_defaults[] = {
	{ BIND_MAIN, BIND_FOCUS, "focus", "C-t",
	  "give the selected job the keyboard, or take it back; twice "
	  "quickly sends the key to the job" },
	{ BIND_MAIN, BIND_NEXT_JOB, "next-job", "C-n", "select the next job" },
	{ BIND_MAIN, BIND_PREV_JOB, "prev-job", "C-p",
	  "select the previous job" },
	{ BIND_MAIN, BIND_SCROLL_UP, "scroll-up", "PageUp",
	  "scroll the pane a page back; past the ring, the job's log opens" },
	{ BIND_MAIN, BIND_SCROLL_DOWN, "scroll-down", "PageDown",
	  "scroll the pane a page forward" },
	{ BIND_MAIN, BIND_SCROLL_TOP, "scroll-top", "S-Home",
	  "scroll the pane to the oldest line it keeps" },
	{ BIND_MAIN, BIND_SCROLL_BOTTOM, "scroll-bottom", "S-End",
	  "back to the live screen" },
	{ BIND_MAIN, BIND_ZOOM, "zoom", "C-z",
	  "hide the panel: the pane (and the job) takes the whole width" },
	{ BIND_MAIN, BIND_COPY_MODE, "copy-mode", "C-v",
	  "copy mode on the selected pane: move, search, select, copy" },
	{ BIND_MAIN, BIND_SEARCH_PANE, "search", "C-s",
	  "search the selected pane's output (copy mode, then /)" },
	{ BIND_MAIN, BIND_PASTE, "paste", "C-y",
	  "send the paste buffer to the selected job" },
	{ BIND_MAIN, BIND_MESSAGES, "messages", "C-g",
	  "the recent messages, whole, newest first (!messages)" },
	{ BIND_MAIN, BIND_REDRAW, "redraw", "C-l", "redraw the screen" },
	{ BIND_MAIN, BIND_DETACH, "detach", "C-\\",
	  "detach this terminal: the deck and its jobs run on (jobdeck "
	  "attach comes back)" },
	{ BIND_MAIN, BIND_RELOAD, "reload", "F5",
	  "read the configuration again: restart what changed, start what "
	  "is new, stop what went (!reload)" },

	{ BIND_EDIT, BIND_SUBMIT, "submit", "Enter",
	  "run the line (a search: start it)" },
	{ BIND_EDIT, BIND_EDIT_LEFT, "left", "C-b Left",
	  "cursor one character left" },
	{ BIND_EDIT, BIND_EDIT_RIGHT, "right", "C-f Right",
	  "cursor one character right" },
	{ BIND_EDIT, BIND_EDIT_HOME, "home", "C-a Home",
	  "cursor to the start of the line" },
	{ BIND_EDIT, BIND_EDIT_END, "end", "C-e End",
	  "cursor to the end of the line" },
	{ BIND_EDIT, BIND_EDIT_BACKSPACE, "backspace", "Backspace C-h",
	  "delete the character before the cursor" },
	{ BIND_EDIT, BIND_EDIT_DELETE, "delete", "C-d Delete",
	  "delete the character under the cursor (on an empty prompt: say "
	  "how to leave)" },
	{ BIND_EDIT, BIND_EDIT_KILL_START, "kill-start", "C-u",
	  "delete to the start of the line" },
	{ BIND_EDIT, BIND_EDIT_KILL_END, "kill-end", "C-k",
	  "delete to the end of the line" },
	{ BIND_EDIT, BIND_EDIT_KILL_WORD, "kill-word", "C-w",
	  "delete the word before the cursor" },
	{ BIND_EDIT, BIND_EDIT_CLEAR, "clear", "C-c",
	  "empty the line (a search: cancel it)" },
	{ BIND_EDIT, BIND_EDIT_PREV, "history-prev", "Up",
	  "the previous line of the history" },
	{ BIND_EDIT, BIND_EDIT_NEXT, "history-next", "Down",
	  "the next line of the history" },

	{ BIND_VIEW, BIND_QUIT, "quit", "q Q Esc C-c",
	  "close the view (Esc, C-c: stop a search first)" },
	{ BIND_VIEW, BIND_DOWN, "down", "j Down", "a line down" },
	{ BIND_VIEW, BIND_UP, "up", "k Up", "a line up" },
	{ BIND_VIEW, BIND_PAGE_DOWN, "page-down", "f Space PageDown",
	  "a page down" },
	{ BIND_VIEW, BIND_PAGE_UP, "page-up", "b PageUp", "a page up" },
	{ BIND_VIEW, BIND_HALF_DOWN, "half-down", "C-d", "half a page down" },
	{ BIND_VIEW, BIND_HALF_UP, "half-up", "C-u", "half a page up" },
	{ BIND_VIEW, BIND_TOP, "top", "g Home", "the first line" },
	{ BIND_VIEW, BIND_BOTTOM, "bottom", "G End", "the last line" },
	{ BIND_VIEW, BIND_FOLLOW, "follow", "F",
	  "a live log: stay at the end as lines come" },
	{ BIND_VIEW, BIND_SEARCH_FORWARD, "search-forward", "/",
	  "search forward (a regular expression)" },
	{ BIND_VIEW, BIND_SEARCH_BACKWARD, "search-backward", "?",
	  "search backward" },
	{ BIND_VIEW, BIND_SEARCH_NEXT, "search-next", "n",
	  "the next match" },
	{ BIND_VIEW, BIND_SEARCH_PREV, "search-prev", "N",
	  "the previous match" },
	{ BIND_VIEW, BIND_OPEN, "open", "Enter",
	  "results: open the chosen line in its log" },
	{ BIND_VIEW, BIND_NUMBERS, "numbers", "#", "line numbers on or off" },
	{ BIND_VIEW, BIND_TIMES, "times", "t", "times on or off" },

	{ BIND_COPY, BIND_QUIT, "quit", "q Esc C-c", "leave copy mode" },
	{ BIND_COPY, BIND_LEFT, "left", "h Left", "a character left" },
	{ BIND_COPY, BIND_DOWN, "down", "j Down", "a line down" },
	{ BIND_COPY, BIND_UP, "up", "k Up", "a line up" },
	{ BIND_COPY, BIND_RIGHT, "right", "l Right", "a character right" },
	{ BIND_COPY, BIND_WORD_NEXT, "word-next", "w",
	  "the start of the next word" },
	{ BIND_COPY, BIND_WORD_PREV, "word-prev", "b",
	  "the start of this or the previous word" },
	{ BIND_COPY, BIND_WORD_END, "word-end", "e", "the end of the word" },
	{ BIND_COPY, BIND_LINE_START, "line-start", "0 Home",
	  "the start of the line" },
	{ BIND_COPY, BIND_LINE_END, "line-end", "$ End",
	  "the end of the line" },
	{ BIND_COPY, BIND_PAGE_UP, "page-up", "C-b PageUp", "a page up" },
	{ BIND_COPY, BIND_PAGE_DOWN, "page-down", "C-f PageDown",
	  "a page down" },
	{ BIND_COPY, BIND_HALF_UP, "half-up", "C-u", "half a page up" },
	{ BIND_COPY, BIND_HALF_DOWN, "half-down", "C-d", "half a page down" },
	{ BIND_COPY, BIND_TOP, "top", "g", "the first line kept" },
	{ BIND_COPY, BIND_BOTTOM, "bottom", "G", "the last line" },
	{ BIND_COPY, BIND_SEARCH_FORWARD, "search-forward", "/",
	  "search forward" },
	{ BIND_COPY, BIND_SEARCH_BACKWARD, "search-backward", "?",
	  "search backward" },
	{ BIND_COPY, BIND_SEARCH_NEXT, "search-next", "n", "the next match" },
	{ BIND_COPY, BIND_SEARCH_PREV, "search-prev", "N",
	  "the previous match" },
	{ BIND_COPY, BIND_SELECT, "select", "v Space",
	  "start a selection at the cursor, or drop it" },
	{ BIND_COPY, BIND_SELECT_LINE, "select-line", "V",
	  "select whole lines" },
	{ BIND_COPY, BIND_YANK, "copy", "y Enter",
	  "copy the selection (paste buffer, clipboard) and leave" },
	{ 0, BIND_NONE, NULL, NULL, NULL }
};

/* Key names other than characters and C-x, in the order written. */
static const struct {
	int		 key;
	const char	*name;
} bind_names[] = {
	{ '\r', "Enter" },
	{ '\t', "Tab" },
	{ 0x1b, "Esc" },
	{ 0x7f, "Backspace" },
	{ ' ', "Space" },
	{ BIND_CURSES | KEY_UP, "Up" },
	{ BIND_CURSES | KEY_DOWN, "Down" },
	{ BIND_CURSES | KEY_LEFT, "Left" },
	{ BIND_CURSES | KEY_RIGHT, "Right" },
	{ BIND_CURSES | KEY_HOME, "Home" },
	{ BIND_CURSES | KEY_END, "End" },
	{ BIND_CURSES | KEY_PPAGE, "PageUp" },
	{ BIND_CURSES | KEY_NPAGE, "PageDown" },
	{ BIND_CURSES | KEY_IC, "Insert" },
	{ BIND_CURSES | KEY_DC, "Delete" },
	{ BIND_CURSES | KEY_BTAB, "BTab" },
	{ BIND_CURSES | KEY_SR, "S-Up" },
	{ BIND_CURSES | KEY_SF, "S-Down" },
	{ BIND_CURSES | KEY_SLEFT, "S-Left" },
	{ BIND_CURSES | KEY_SRIGHT, "S-Right" },
	{ BIND_CURSES | KEY_SHOME, "S-Home" },
	{ BIND_CURSES | KEY_SEND, "S-End" },
	{ BIND_CURSES | KEY_SPREVIOUS, "S-PageUp" },
	{ BIND_CURSES | KEY_SNEXT, "S-PageDown" },
};

static const char *const bind_mode_names[BIND_MODES] = {
	[BIND_MAIN] = "main",
	[BIND_VIEW] = "view",
	[BIND_COPY] = "copy",
	[BIND_EDIT] = "edit",
};

/* One key of one mode and the action it runs. */
struct bind_map {
	int			 key;
	enum bind_action	 action;
	char			*line;	/* BIND_COMMAND: the command line */
};

struct bind {
	struct bind_map	*map[BIND_MODES];
	int		 n[BIND_MODES];
	int		 size[BIND_MODES];
};

/* The command layer's names and check (bind_set_commands()), or NULL. */
static const struct bind_commands *bind_cmds;

/* Return the name of a mode ("main", "view", "copy", "edit"). */
const char *
bind_mode_name(enum bind_mode mode)
{
	return mode < BIND_MODES ? bind_mode_names[mode] : "?";
}

/* Find a mode by name; 0, or -1 when there is none. */
int
bind_mode_parse(const char *name, enum bind_mode *mode)
{
	int	m;

	for (m = 0; m < BIND_MODES; m++) {
		if (strcmp(bind_mode_names[m], name) == 0) {
			*mode = (enum bind_mode)m;
			return 0;
		}
	}
	return -1;
}

/* Return the table's entry for a mode's action name, or NULL. */
const struct bind_entry *
bind_entry_find(enum bind_mode mode, const char *name)
{
	const struct bind_entry	*e;

	for (e = bind_defaults; e->action != BIND_NONE; e++)
		if (e->mode == mode && strcmp(e->name, name) == 0)
			return e;
	return NULL;
}

/* Return the table's entry for a mode's action, or NULL. */
const struct bind_entry *
bind_entry_of(enum bind_mode mode, enum bind_action action)
{
	const struct bind_entry	*e;

	for (e = bind_defaults; e->action != BIND_NONE; e++)
		if (e->mode == mode && e->action == action)
			return e;
	return NULL;
}

/*
 * Take the command layer's names and check of a command line: from now on
 * a prompt key may run any command line it accepts.
 */
void
bind_set_commands(const struct bind_commands *cmds)
{
	bind_cmds = cmds;
}

/* Return the command layer's i-th command name, or NULL past the last. */
const char *
bind_command_name(size_t i)
{
	return bind_cmds != NULL ? bind_cmds->name(i) : NULL;
}

/*
 * Check what a binding of mode names: an action of the table, or at the
 * prompt a command line the command layer accepts.  BIND_KNOWN,
 * BIND_UNKNOWN, or BIND_MISUSED with *cause (the command's usage).
 */
int
bind_action_check(enum bind_mode mode, const char *name, char **cause)
{
	char	*why = NULL;

	if (bind_entry_find(mode, name) != NULL)
		return BIND_KNOWN;
	if (mode != BIND_MAIN || bind_cmds == NULL)
		return BIND_UNKNOWN;
	if (bind_cmds->check(name, &why) == 0)
		return BIND_KNOWN;
	if (why == NULL)
		return BIND_UNKNOWN;
	*cause = why;
	return BIND_MISUSED;
}

/* Whether m is a binding of action (BIND_COMMAND: of the command line). */
static int
bind_map_is(const struct bind_map *m, enum bind_action action,
    const char *line)
{
	if (m->action != action)
		return 0;
	return action != BIND_COMMAND || strcmp(m->line, line) == 0;
}

/* Fold what wget_wch() returned (rc, key) into one key code. */
int
bind_key_code(int rc, unsigned int key)
{
	if (rc == KEY_CODE_YES) {
		if (key == KEY_ENTER)
			return '\r';
		if (key == KEY_BACKSPACE)
			return 0x7f;
		return BIND_CURSES | (int)key;
	}
	if (key == '\n')
		return '\r';
	return (int)key;
}

/* Write a key's name into buf ("C-t", "PageUp", "g", "F5"); returns buf. */
const char *
bind_key_name(int key, char *buf, size_t size)
{
	size_t	i;
	int	f;
	char	u[UTF8_MAX];

	for (i = 0; i < sizeof bind_names / sizeof bind_names[0]; i++) {
		if (bind_names[i].key == key) {
			snprintf(buf, size, "%s", bind_names[i].name);
			return buf;
		}
	}
	if (key & BIND_CURSES) {
		f = (key & ~BIND_CURSES) - KEY_F0;
		if (f >= 1 && f <= 63)
			snprintf(buf, size, "F%d", f);
		else
			snprintf(buf, size, "key-%o", key & ~BIND_CURSES);
		return buf;
	}
	if (key >= 0 && key < 0x20)
		snprintf(buf, size, "C-%c", key == 0 ? '@' : key < 0x1b ?
		    'a' + key - 1 : "[\\]^_"[key - 0x1b]);
	else
		snprintf(buf, size, "%.*s", utf8_put(u, (uint32_t)key), u);
	return buf;
}

/* Decode one UTF-8 character that is all of s; its code point, or -1. */
static int
bind_utf8_one(const char *s)
{
	size_t		len = strlen(s);
	uint32_t	cp;

	if (len == 0 || len > UTF8_MAX ||
	    utf8_decode(s, len, &cp) != (int)len)
		return -1;
	return (int)cp;
}

/* Parse a key name; 0, or -1 with *cause saying what is wrong with it. */
int
bind_key_parse(const char *name, int *key, char **cause)
{
	const char	*ctrl = "[\\]^_";
	size_t		 i;
	int		 f, c;
	char		*end;

	for (i = 0; i < sizeof bind_names / sizeof bind_names[0]; i++) {
		if (strcasecmp(bind_names[i].name, name) == 0) {
			*key = bind_names[i].key;
			return 0;
		}
	}
	if ((name[0] == 'C' || name[0] == 'c') && name[1] == '-' &&
	    name[2] != '\0' && name[3] == '\0') {
		c = (unsigned char)name[2];
		if (c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		if (c >= 'a' && c <= 'z') {
			*key = c - 'a' + 1;
			return 0;
		}
		if (c == '@' || c == ' ') {
			*key = 0;
			return 0;
		}
		if (strchr(ctrl, c) != NULL) {
			*key = 0x1b + (int)(strchr(ctrl, c) - ctrl);
			return 0;
		}
	}
	if ((name[0] == 'F' || name[0] == 'f') && name[1] >= '1' &&
	    name[1] <= '9') {
		f = (int)strtol(name + 1, &end, 10);
		if (*end == '\0' && f >= 1 && f <= 63) {
			*key = BIND_CURSES | KEY_F(f);
			return 0;
		}
	}
	c = name[0] == '\0' ? -1 : bind_utf8_one(name);
	if (c > 0x20 && c != 0x7f && (c < 0x80 || c > 0x9f)) {
		*key = c;
		return 0;
	}
	*cause = xprintf("unknown key '%s': use a character, C-a to C-z, "
	    "Enter, Tab, Esc, Space, Backspace, Up, Down, Left, Right, Home, "
	    "End, PageUp, PageDown, Insert, Delete, S-Home, S-End, S-PageUp, "
	    "S-PageDown or F1 to F63", name);
	return -1;
}

/* Remove a key from a mode's map. */
static void
bind_remove_key(struct bind *b, enum bind_mode mode, int key)
{
	int	i;

	for (i = 0; i < b->n[mode]; i++) {
		if (b->map[mode][i].key == key) {
			free(b->map[mode][i].line);
			memmove(&b->map[mode][i], &b->map[mode][i + 1],
			    (size_t)(b->n[mode] - i - 1) *
			    sizeof b->map[mode][0]);
			b->n[mode]--;
			i--;
		}
	}
}

/*
 * Add a key for an action (BIND_COMMAND: for a copy of line) to a mode's
 * map (the last binding wins).
 */
static void
bind_add(struct bind *b, enum bind_mode mode, int key,
    enum bind_action action, const char *line)
{
	bind_remove_key(b, mode, key);
	if (b->n[mode] == b->size[mode]) {
		b->size[mode] = b->size[mode] == 0 ? 32 : b->size[mode] * 2;
		b->map[mode] = xreallocarray(b->map[mode],
		    (size_t)b->size[mode], sizeof b->map[mode][0]);
	}
	b->map[mode][b->n[mode]].key = key;
	b->map[mode][b->n[mode]].action = action;
	b->map[mode][b->n[mode]].line = action == BIND_COMMAND ?
	    xstrdup(line) : NULL;
	b->n[mode]++;
}

/*
 * Split and parse a space-separated key list ("none" or empty: no keys);
 * returns how many, or -1 with *cause.
 */
static int
bind_parse_list(const char *text, int *keys, int max, char **cause)
{
	char	*copy, *word, *save = NULL;
	int	 n = 0;

	if (strcmp(text, "none") == 0)
		return 0;
	copy = xstrdup(text);
	for (word = strtok_r(copy, " ", &save); word != NULL;
	    word = strtok_r(NULL, " ", &save)) {
		if (n == max) {
			*cause = xprintf("more than %d keys for one action",
			    max);
			free(copy);
			return -1;
		}
		if (bind_key_parse(word, &keys[n], cause) != 0) {
			free(copy);
			return -1;
		}
		n++;
	}
	free(copy);
	return n;
}

/* Return the bindings of the table's defaults. */
struct bind *
bind_new(void)
{
	const struct bind_entry	*e;
	struct bind		*b;
	int			 keys[BIND_KEYS_MAX], n, i;
	char			*cause = NULL;

	b = xcalloc(1, sizeof *b);
	for (e = bind_defaults; e->action != BIND_NONE; e++) {
		n = bind_parse_list(e->keys, keys, BIND_KEYS_MAX, &cause);
		if (n < 0)
			fatal("bind_defaults: %s: %s", e->name, cause);
		for (i = 0; i < n; i++)
			bind_add(b, e->mode, keys[i], e->action, NULL);
	}
	return b;
}

/* Free the bindings. */
void
bind_free(struct bind *b)
{
	int	m, i;

	if (b == NULL)
		return;
	for (m = 0; m < BIND_MODES; m++) {
		for (i = 0; i < b->n[m]; i++)
			free(b->map[m][i].line);
		free(b->map[m]);
	}
	free(b);
}

/*
 * Give b the default bindings back, in place (the front ends holding it
 * see the change): a reloaded [keys] is applied over them.
 */
void
bind_reset(struct bind *b)
{
	struct bind	*fresh = bind_new();
	struct bind	 old = *b;

	*b = *fresh;
	*fresh = old;
	bind_free(fresh);
}

/*
 * Bind a mode's action (by name; at the prompt, or a command line) to a
 * space-separated list of keys in place of its own, taking them from
 * other actions of the prompt's two modes; 0, or -1 with *cause.  Typed
 * text cannot be a prompt key, and the focus key cannot be taken away.
 */
int
bind_set(struct bind *b, enum bind_mode mode, const char *name,
    const char *keys, char **cause)
{
	const struct bind_entry	*e;
	enum bind_action	 action;
	int			 k[BIND_KEYS_MAX], n, i;
	char			 kname[BIND_NAME_MAX], *line;

	switch (bind_action_check(mode, name, cause)) {
	case BIND_KNOWN:
		break;
	case BIND_MISUSED:
		return -1;
	default:
		*cause = xprintf("no action '%s' in %s mode", name,
		    bind_mode_name(mode));
		return -1;
	}
	e = bind_entry_find(mode, name);
	action = e != NULL ? e->action : BIND_COMMAND;
	if ((n = bind_parse_list(keys, k, BIND_KEYS_MAX, cause)) < 0)
		return -1;
	if (n == 0 && action == BIND_FOCUS) {
		*cause = xstrdup("the focus key cannot be unbound: it is the "
		    "only way out of focus mode");
		return -1;
	}
	for (i = 0; i < n; i++) {
		if ((mode == BIND_MAIN || mode == BIND_EDIT) &&
		    k[i] >= 0x20 && k[i] != 0x7f && !(k[i] & BIND_CURSES)) {
			*cause = xprintf("'%s' is typed text at the prompt: "
			    "bind a control or named key", bind_key_name(k[i],
			    kname, sizeof kname));
			return -1;
		}
		if (action == BIND_FOCUS && (k[i] & BIND_CURSES)) {
			*cause = xstrdup("the focus key must be a character "
			    "key such as C-t: it is compared before keys "
			    "are decoded for the job");
			return -1;
		}
	}
	line = xstrdup(name);	/* name may be a line of the map */
	for (i = 0; i < b->n[mode]; i++) {
		if (bind_map_is(&b->map[mode][i], action, line)) {
			bind_remove_key(b, mode, b->map[mode][i].key);
			i--;
		}
	}
	for (i = 0; i < n; i++) {
		if (mode == BIND_MAIN)
			bind_remove_key(b, BIND_EDIT, k[i]);
		else if (mode == BIND_EDIT)
			bind_remove_key(b, BIND_MAIN, k[i]);
		bind_add(b, mode, k[i], action, line);
	}
	free(line);
	return 0;
}

/* Return the action a key runs in a mode, or BIND_NONE. */
enum bind_action
bind_lookup(const struct bind *b, enum bind_mode mode, int key)
{
	int	i;

	for (i = 0; i < b->n[mode]; i++)
		if (b->map[mode][i].key == key)
			return b->map[mode][i].action;
	return BIND_NONE;
}

/*
 * Return the line a key runs in a mode: the name of its action, or the
 * command line bound to it (BIND_COMMAND); NULL when it is bound to
 * nothing.
 */
const char *
bind_command(const struct bind *b, enum bind_mode mode, int key)
{
	const struct bind_entry	*e;
	int			 i;

	for (i = 0; i < b->n[mode]; i++) {
		if (b->map[mode][i].key != key)
			continue;
		if (b->map[mode][i].action == BIND_COMMAND)
			return b->map[mode][i].line;
		e = bind_entry_of(mode, b->map[mode][i].action);
		return e != NULL ? e->name : NULL;
	}
	return NULL;
}

/*
 * Return the nth (from 0) of the command lines a mode's keys run beyond
 * the table's actions, in the order first bound, or NULL past the last.
 */
const char *
bind_command_nth(const struct bind *b, enum bind_mode mode, int n)
{
	const struct bind_map	*m;
	int			 i, j;

	for (i = 0; i < b->n[mode]; i++) {
		m = &b->map[mode][i];
		if (m->action != BIND_COMMAND)
			continue;
		for (j = 0; j < i; j++)
			if (bind_map_is(&b->map[mode][j], BIND_COMMAND, m->line))
				break;
		if (j == i && n-- == 0)
			return m->line;
	}
	return NULL;
}

/*
 * Fill keys[] with up to max keys of a mode's action (BIND_COMMAND: of
 * line); returns how many.
 */
static int
bind_keys_of(const struct bind *b, enum bind_mode mode,
    enum bind_action action, const char *line, int *keys, int max)
{
	int	i, n = 0;

	for (i = 0; i < b->n[mode] && n < max; i++)
		if (bind_map_is(&b->map[mode][i], action, line))
			keys[n++] = b->map[mode][i].key;
	return n;
}

/* Fill keys[] with up to max keys of a mode's action; returns how many. */
int
bind_keys(const struct bind *b, enum bind_mode mode, enum bind_action action,
    int *keys, int max)
{
	return bind_keys_of(b, mode, action, NULL, keys, max);
}

/* Return the first key of a mode's action, or BIND_NO_KEY. */
int
bind_first_key(const struct bind *b, enum bind_mode mode,
    enum bind_action action)
{
	int	key;

	return bind_keys(b, mode, action, &key, 1) == 1 ? key : BIND_NO_KEY;
}

/*
 * Write the keys of a mode's action (BIND_COMMAND: of line) as "C-b,
 * Left" (or "unbound") into buf; returns the length written.
 */
static size_t
bind_text(const struct bind *b, enum bind_mode mode, enum bind_action action,
    const char *line, char *buf, size_t size)
{
	int	keys[BIND_KEYS_MAX], n, i;
	char	name[BIND_NAME_MAX];
	size_t	len = 0;

	if (size == 0)
		return 0;
	buf[0] = '\0';
	n = bind_keys_of(b, mode, action, line, keys, BIND_KEYS_MAX);
	if (n == 0) {
		snprintf(buf, size, "unbound");
		return strlen(buf);
	}
	for (i = 0; i < n && len < size; i++) {
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
		    i > 0 ? ", " : "", bind_key_name(keys[i], name,
		    sizeof name));
	}
	return len < size ? len : size - 1;
}

/*
 * Write a mode's action's keys as "C-b, Left" (or "unbound") into buf;
 * returns the length written.
 */
size_t
bind_keys_text(const struct bind *b, enum bind_mode mode,
    enum bind_action action, char *buf, size_t size)
{
	return bind_text(b, mode, action, NULL, buf, size);
}

/* Write the keys of a command line bound in a mode as bind_keys_text(). */
size_t
bind_command_keys_text(const struct bind *b, enum bind_mode mode,
    const char *line, char *buf, size_t size)
{
	return bind_text(b, mode, BIND_COMMAND, line, buf, size);
}
