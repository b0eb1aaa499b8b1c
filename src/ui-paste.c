/*
 * ui-paste.c: a bracketed paste from the outer terminal.  In focus mode it
 * goes to the focused job as one paste (bracketed if the job asked); at
 * the prompt it is text at the cursor with its newlines kept (drawn as ⏎),
 * never keys: Enter then runs it as one job, and a ! or session command
 * with a newline is refused; in a text view it is the search being typed
 * (its first line), or dropped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "cmd.h"
#include "job.h"
#include "jobtable.h"
#include "lineedit.h"
#include "ui-private.h"
#include "vt.h"
#include "xmalloc.h"

/* Insert the UTF-8 text (len bytes) at the editor's cursor; stop at stop. */
static void
ui_paste_insert(struct lineedit *le, const char *text, size_t len, int stop)
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

/* Handle a paste (see the top of the file). */
void
ui_paste(struct ui *ui, const struct input_event *ev)
{
	struct job	*job = ui->selected;
	char		*text, msg[UI_MESSAGE_MAX];
	size_t		 len;
	int		 lines;

	if (ev->cut)
		ui_message(ui, "the paste was cut at 1 MiB: the rest is dropped",
		    1);
	if (ui->pager != NULL) {
		if (ui->pager->prompt == 0)
			return;
		text = xmalloc(ev->paste_len + 1);
		memcpy(text, ev->paste, ev->paste_len);
		len = input_paste_text(text, ev->paste_len, &lines);
		ui_paste_insert(ui->pager->edit, text, len, '\n');
		free(text);
		ui_dirty(ui, UI_DRAW_ALL, 1);
		return;
	}
	if (ui->flags & UI_FOCUSED) {
		if (job == NULL || !job_is_running(job))
			return;
		if (ui->scroll != 0) {
			ui->scroll = 0;
			vt_mark_all_dirty(job_vt_get(job));
			ui_dirty(ui, UI_DRAW_PANE, 1);
		}
		vt_send_paste(job_vt_get(job), ev->paste, ev->paste_len);
		jobtable_update(ui->jt, job);
		return;
	}
	text = xmalloc(ev->paste_len + 1);
	memcpy(text, ev->paste, ev->paste_len);
	len = input_paste_text(text, ev->paste_len, &lines);
	ui_paste_insert(ui->edit, text, len, 0);
	free(text);
	if (lines > 1 && !ev->cut) {
		snprintf(msg, sizeof msg, "pasted %d lines: Enter runs them as "
		    "one job", lines);
		ui_message(ui, msg, 0);
	}
	ui_dirty(ui, UI_DRAW_PROMPT, 1);
}

/*
 * Refuse a line of several lines (a paste) that is a ! command or a
 * session command (cd, export, unset): those are one line each.  Returns
 * non-zero, with the reason on the message line, when refused.
 */
int
ui_paste_refuse(struct ui *ui, const wchar_t *text, size_t len)
{
	const struct cmd_entry	*e;
	char			 word[32], msg[UI_MESSAGE_MAX];
	size_t			 i, n = 0;
	int			 lines = 1;

	for (i = 0; i < len; i++)
		lines += text[i] == L'\n';
	if (lines == 1)
		return 0;
	while (len > 0 && (*text == L' ' || *text == L'\t')) {
		text++;
		len--;
	}
	if (len > 0 && *text == L'!') {
		snprintf(msg, sizeof msg, "a ! command is one line: the paste "
		    "has %d lines", lines);
		ui_message(ui, msg, 1);
		return 1;
	}
	/* A session command's list is one line (cmd.c decides which). */
	for (i = 0; i < len && n + 1 < sizeof word; i++) {
		if (text[i] >= 0x80)
			break;
		word[n++] = (char)text[i];
	}
	word[n] = '\0';
	if ((e = cmd_find_bare(word, n)) == NULL)
		return 0;
	snprintf(msg, sizeof msg, "a %s command is one line: the paste has %d "
	    "lines", e->name, lines);
	ui_message(ui, msg, 1);
	return 1;
}
