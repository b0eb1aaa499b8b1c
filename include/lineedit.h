/*
 * lineedit: the prompt's line editor, free of curses so it can be tested
 * alone.  It keeps a line of wide characters with a cursor, applies editing
 * actions (the UI maps keys to them), and keeps a bounded history browsed
 * with LINEEDIT_PREV/NEXT, which remembers the line being typed.
 *
 * Ownership: the caller owns the struct lineedit; lineedit_take() returns a
 * malloc'd UTF-8 string the caller frees.
 */
#ifndef JOBDECK_LINEEDIT_H
#define JOBDECK_LINEEDIT_H

#include <stddef.h>
#include <wchar.h>

struct lineedit;

enum lineedit_action {
	LINEEDIT_LEFT,
	LINEEDIT_RIGHT,
	LINEEDIT_HOME,
	LINEEDIT_END,
	LINEEDIT_BACKSPACE,
	LINEEDIT_DELETE,
	LINEEDIT_KILL_START,	/* Ctrl+U */
	LINEEDIT_KILL_END,	/* Ctrl+K */
	LINEEDIT_KILL_WORD,	/* Ctrl+W */
	LINEEDIT_CLEAR,		/* Ctrl+C */
	LINEEDIT_PREV,		/* Up: older history */
	LINEEDIT_NEXT		/* Down: newer history */
};

struct lineedit	*lineedit_new(int history_max);
void		 lineedit_free(struct lineedit *);
void		 lineedit_insert(struct lineedit *, wchar_t);
void		 lineedit_do(struct lineedit *, enum lineedit_action);
char		*lineedit_take(struct lineedit *);
const wchar_t	*lineedit_text(const struct lineedit *, size_t *len);
size_t		 lineedit_cursor(const struct lineedit *);

#endif
