/*
 * lineedit.c: a line of wide characters with a cursor, editing actions and
 * a bounded history.
 */
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "lineedit.h"
#include "xmalloc.h"

struct lineedit {
	wchar_t	 *buf;
	size_t	  len;
	size_t	  cap;
	size_t	  cursor;

	char	**history;	/* oldest first */
	int	  nhistory;
	int	  history_max;
	int	  browse;	/* index being shown; nhistory: the new line */
	wchar_t	 *draft;	/* the line being typed, while browsing */
	size_t	  draft_len;
};

/* Create an empty editor keeping at most history_max lines of history. */
struct lineedit *
lineedit_new(int history_max)
{
	struct lineedit	*le;

	le = xcalloc(1, sizeof *le);
	le->history_max = history_max > 0 ? history_max : 1;
	le->cap = 64;
	le->buf = xcalloc(le->cap, sizeof *le->buf);
	return le;
}

/* Free an editor and its history. */
void
lineedit_free(struct lineedit *le)
{
	int	i;

	if (le == NULL)
		return;
	for (i = 0; i < le->nhistory; i++)
		free(le->history[i]);
	free(le->history);
	free(le->draft);
	free(le->buf);
	free(le);
}

/* Make room for n more characters. */
static void
lineedit_reserve(struct lineedit *le, size_t n)
{
	while (le->len + n + 1 > le->cap) {
		le->cap *= 2;
		le->buf = xreallocarray(le->buf, le->cap, sizeof *le->buf);
	}
}

/* Replace the line with the wide string s of length n, cursor at the end. */
static void
lineedit_set(struct lineedit *le, const wchar_t *s, size_t n)
{
	le->len = 0;
	lineedit_reserve(le, n);
	wmemcpy(le->buf, s, n);
	le->len = le->cursor = n;
	le->buf[le->len] = L'\0';
}

/* Replace the line with the UTF-8 string s. */
static void
lineedit_set_utf8(struct lineedit *le, const char *s)
{
	mbstate_t	 mbs;
	wchar_t		*w;
	size_t		 n;
	const char	*p = s;

	memset(&mbs, 0, sizeof mbs);
	n = mbsrtowcs(NULL, &p, 0, &mbs);
	if (n == (size_t)-1) {
		lineedit_set(le, L"", 0);
		return;
	}
	w = xcalloc(n + 1, sizeof *w);
	p = s;
	memset(&mbs, 0, sizeof mbs);
	mbsrtowcs(w, &p, n + 1, &mbs);
	lineedit_set(le, w, n);
	free(w);
}

/* Insert a character at the cursor. */
void
lineedit_insert(struct lineedit *le, wchar_t c)
{
	lineedit_reserve(le, 1);
	wmemmove(le->buf + le->cursor + 1, le->buf + le->cursor,
	    le->len - le->cursor);
	le->buf[le->cursor++] = c;
	le->len++;
	le->buf[le->len] = L'\0';
}

/* Delete n characters starting at position at. */
static void
lineedit_delete(struct lineedit *le, size_t at, size_t n)
{
	wmemmove(le->buf + at, le->buf + at + n, le->len - at - n);
	le->len -= n;
	le->buf[le->len] = L'\0';
	if (le->cursor > at + n)
		le->cursor -= n;
	else if (le->cursor > at)
		le->cursor = at;
}

/* Show history entry index (nhistory: the draft). */
static void
lineedit_browse(struct lineedit *le, int index)
{
	if (index < 0 || index > le->nhistory || index == le->browse)
		return;
	if (le->browse == le->nhistory) {
		free(le->draft);
		le->draft = xcalloc(le->len + 1, sizeof *le->draft);
		wmemcpy(le->draft, le->buf, le->len);
		le->draft_len = le->len;
	}
	le->browse = index;
	if (index == le->nhistory)
		lineedit_set(le, le->draft != NULL ? le->draft : L"",
		    le->draft_len);
	else
		lineedit_set_utf8(le, le->history[index]);
}

/* Apply an editing action. */
void
lineedit_do(struct lineedit *le, enum lineedit_action a)
{
	size_t	start;

	switch (a) {
	case LINEEDIT_LEFT:
		if (le->cursor > 0)
			le->cursor--;
		break;
	case LINEEDIT_RIGHT:
		if (le->cursor < le->len)
			le->cursor++;
		break;
	case LINEEDIT_HOME:
		le->cursor = 0;
		break;
	case LINEEDIT_END:
		le->cursor = le->len;
		break;
	case LINEEDIT_BACKSPACE:
		if (le->cursor > 0)
			lineedit_delete(le, le->cursor - 1, 1);
		break;
	case LINEEDIT_DELETE:
		if (le->cursor < le->len)
			lineedit_delete(le, le->cursor, 1);
		break;
	case LINEEDIT_KILL_START:
		lineedit_delete(le, 0, le->cursor);
		break;
	case LINEEDIT_KILL_END:
		lineedit_delete(le, le->cursor, le->len - le->cursor);
		break;
	case LINEEDIT_KILL_WORD:
		start = le->cursor;
		while (start > 0 && iswspace((wint_t)le->buf[start - 1]))
			start--;
		while (start > 0 && !iswspace((wint_t)le->buf[start - 1]))
			start--;
		lineedit_delete(le, start, le->cursor - start);
		break;
	case LINEEDIT_CLEAR:
		lineedit_set(le, L"", 0);
		le->browse = le->nhistory;
		break;
	case LINEEDIT_PREV:
		lineedit_browse(le, le->browse - 1);
		break;
	case LINEEDIT_NEXT:
		lineedit_browse(le, le->browse + 1);
		break;
	}
}

/*
 * Return the line as UTF-8 (caller frees), add it to the history unless it
 * is blank or repeats the last entry, and start an empty line.
 */
char *
lineedit_take(struct lineedit *le)
{
	mbstate_t	 mbs;
	const wchar_t	*p = le->buf;
	char		*s;
	size_t		 n;

	memset(&mbs, 0, sizeof mbs);
	n = wcsrtombs(NULL, &p, 0, &mbs);
	if (n == (size_t)-1)
		s = xstrdup("");
	else {
		s = xmalloc(n + 1);
		p = le->buf;
		memset(&mbs, 0, sizeof mbs);
		wcsrtombs(s, &p, n + 1, &mbs);
	}
	if (s[strspn(s, " \t")] != '\0' && (le->nhistory == 0 ||
	    strcmp(le->history[le->nhistory - 1], s) != 0)) {
		if (le->nhistory == le->history_max) {
			free(le->history[0]);
			memmove(le->history, le->history + 1,
			    (size_t)(le->nhistory - 1) * sizeof *le->history);
			le->nhistory--;
		}
		le->history = xreallocarray(le->history,
		    (size_t)le->nhistory + 1, sizeof *le->history);
		le->history[le->nhistory++] = xstrdup(s);
	}
	lineedit_set(le, L"", 0);
	le->browse = le->nhistory;
	free(le->draft);
	le->draft = NULL;
	le->draft_len = 0;
	return s;
}

/* Return the line and its length; valid until the next change. */
const wchar_t *
lineedit_text(const struct lineedit *le, size_t *len)
{
	if (len != NULL)
		*len = le->len;
	return le->buf;
}

/* Return the cursor position in characters. */
size_t
lineedit_cursor(const struct lineedit *le)
{
	return le->cursor;
}
