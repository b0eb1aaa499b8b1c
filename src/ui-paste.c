/*
 * ui-paste.c: a bracketed paste from the outer terminal.  In focus mode it
 * goes to the focused job as one paste (bracketed if the job asked); at
 * the prompt it is text at the cursor with its newlines kept (drawn as ⏎),
 * never keys: Enter then runs it as one job, and a ! or session command
 * with a newline is refused; with a mode open it is the mode's (through
 * ui-mode.c: a text view's search being typed takes its first line).
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

/*
 * Return a copy of a paste as prompt text (input_paste_text()): its
 * bytes in *len, its lines in *lines.  Free it.
 */
static char *
ui_paste_text(const struct input_event *ev, size_t *len, int *lines)
{
	char	*text;

	text = xmalloc(ev->paste_len + 1);
	memcpy(text, ev->paste, ev->paste_len);
	*len = input_paste_text(text, ev->paste_len, lines);
	return text;
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
		ui->calls->message("the paste was cut at 1 MiB: the rest is "
		    "dropped", 1, ui->calls_arg);
	if (ui->mode != NULL) {
		text = ui_paste_text(ev, &len, &lines);
		ui_mode_paste(ui, text, len);
		free(text);
		return;
	}
	if (ui->flags & UI_FOCUSED) {
		if (job == NULL || !job_is_running(job))
			return;
		if (ui->scroll != 0) {
			ui->scroll = 0;
			vt_mark_all_dirty(job_vt_get(job));
			ui->calls->dirty(UI_DRAW_PANE, 1, ui->calls_arg);
		}
		vt_send_paste(job_vt_get(job), ev->paste, ev->paste_len);
		jobtable_update(ui->jt, job);
		return;
	}
	text = ui_paste_text(ev, &len, &lines);
	ui_edit_insert(ui->edit, text, len, 0);
	free(text);
	if (lines > 1 && !ev->cut) {
		snprintf(msg, sizeof msg, "pasted %d lines: Enter runs them as "
		    "one job", lines);
		ui->calls->message(msg, 0, ui->calls_arg);
	}
	ui->calls->dirty(UI_DRAW_PROMPT, 1, ui->calls_arg);
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
		ui->calls->message(msg, 1, ui->calls_arg);
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
	ui->calls->message(msg, 1, ui->calls_arg);
	return 1;
}
