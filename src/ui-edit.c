/*
 * ui-edit.c: a line being typed (the prompt's, a view's search) under the
 * bindings: which line editor action a BIND_EDIT action is, and pasted
 * text put in at the cursor.  What each line does with the rest of its
 * keys (run the line, search, leave) is its owner's: ui.c for the prompt,
 * ui-pager.c for a search.
 */
#include <string.h>
#include <wchar.h>

#include "lineedit.h"
#include "ui-private.h"

/* The line editor's actions for the BIND_EDIT actions. */
static const struct {
	enum bind_action	bind;
	enum lineedit_action	edit;
} ui_edit_actions[] = {
	{ BIND_EDIT_LEFT, LINEEDIT_LEFT },
	{ BIND_EDIT_RIGHT, LINEEDIT_RIGHT },
	{ BIND_EDIT_HOME, LINEEDIT_HOME },
	{ BIND_EDIT_END, LINEEDIT_END },
	{ BIND_EDIT_BACKSPACE, LINEEDIT_BACKSPACE },
	{ BIND_EDIT_DELETE, LINEEDIT_DELETE },
	{ BIND_EDIT_KILL_START, LINEEDIT_KILL_START },
	{ BIND_EDIT_KILL_END, LINEEDIT_KILL_END },
	{ BIND_EDIT_KILL_WORD, LINEEDIT_KILL_WORD },
	{ BIND_EDIT_CLEAR, LINEEDIT_CLEAR },
	{ BIND_EDIT_PREV, LINEEDIT_PREV },
	{ BIND_EDIT_NEXT, LINEEDIT_NEXT },
};

/* Return the line editor's action for a BIND_EDIT action, or -1. */
int
ui_edit_translate(enum bind_action action)
{
	size_t	i;

	for (i = 0; i < sizeof ui_edit_actions / sizeof ui_edit_actions[0];
	    i++)
		if (ui_edit_actions[i].bind == action)
			return (int)ui_edit_actions[i].edit;
	return -1;
}

/*
 * Insert len bytes of UTF-8 text at the editor's cursor, a byte that is
 * not UTF-8 skipped; stop at the character stop (0: none).
 */
void
ui_edit_insert(struct lineedit *le, const char *text, size_t len, int stop)
{
	mbstate_t	mbs;
	wchar_t		wc;
	size_t		n;

	memset(&mbs, 0, sizeof mbs);
	while (len > 0) {
		n = mbrtowc(&wc, text, len, &mbs);
		if (n == (size_t)-1 || n == (size_t)-2) {
			/* Not UTF-8: skip the byte. */
			memset(&mbs, 0, sizeof mbs);
			text++;
			len--;
			continue;
		}
		if (n == 0)
			n = 1;
		if (stop != 0 && wc == (wchar_t)stop)
			return;
		lineedit_insert(le, wc);
		text += n;
		len -= n;
	}
}
