/*
 * ui-frame.c: the frame composer, the front end's top floor of drawing.
 * Once a turn it draws what is marked dirty, each part by its own file:
 * the panel (ui-panel.c), the pane (ui-pane.c) or the open mode over it
 * or over the whole screen (through ui-mode.c), and the bottom line (the
 * prompt and the message, the focus hint, or the mode's own line); then
 * it places the cursor and updates the terminal with one doupdate().
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "job.h"
#include "jobfield.h"
#include "lineedit.h"
#include "ui-private.h"
#include "vt.h"

/*
 * Return the columns the message takes beside the typed line: all it
 * needs if the line leaves them (the prompt, the line, its cursor and two
 * blanks between), else what it leaves, but at least half the screen.
 */
static int
ui_frame_message_width(const struct ui *ui)
{
	const wchar_t	*text;
	size_t		 len, i;
	int		 typed = 0, room, mw;

	if ((mw = ui_text_width(ui->message)) == 0)
		return 0;
	text = lineedit_text(ui->edit, &len);
	for (i = 0; i < len; i++)
		typed += ui_text_wcwidth(text[i]);
	room = ui->cols - 6 - typed;
	if (room < ui->cols / 2)
		room = ui->cols / 2;
	return mw < room ? mw : room;
}

/*
 * Return the first character of the typed line to show so that the cursor
 * fits in the columns left beside the message (stored in *avail).
 */
static size_t
ui_frame_prompt_start(const struct ui *ui, int *avail)
{
	const wchar_t	*text;
	size_t		 len, start;
	int		 mw, used, w;

	text = lineedit_text(ui->edit, &len);
	mw = ui_frame_message_width(ui);
	*avail = ui->cols - 3 - (mw > 0 ? mw + 2 : 0);
	if (*avail < 10)
		*avail = ui->cols - 3;
	/* Walk back from the cursor, keeping one column for it. */
	start = lineedit_cursor(ui->edit);
	used = 1;
	while (start > 0) {
		w = ui_text_wcwidth(text[start - 1]);
		if (used + w > *avail)
			break;
		used += w;
		start--;
	}
	return start;
}

/*
 * Draw the bottom line: the prompt and the message (cut in the middle
 * when it does not fit: its end says how things ended), the focus hint,
 * or the open mode's own line.
 */
static void
ui_frame_bottom(struct ui *ui)
{
	const wchar_t	*text;
	size_t		 len, start;
	wchar_t		 wc[2] = { 0, 0 };
	int		 y = ui->rows - 1, x, width, mw, avail, pair, room;
	char		 hint[UI_MESSAGE_MAX + 64], key[32], fit[UI_MESSAGE_MAX];
	char		 back[64], *label;

	ui_blank(y, 0, ui->cols, A_NORMAL);
	pair = ui->message_error ? ui_semantic(UI_C_ERROR) : 0;
	if (ui->flags & UI_QUITTING) {
		ui_fit_middle(ui->message, ui->cols - 2, fit, sizeof fit);
		ui_put_text(y, 1, ui->cols - 2, fit, A_BOLD, 0);
		return;
	}
	if (ui->flags & UI_FOCUSED) {
		/* The label is cut, never the way back. */
		snprintf(back, sizeof back, "  ·  %s: back", bind_key_name(
		    bind_first_key(ui->bind, BIND_MAIN, BIND_FOCUS), key,
		    sizeof key));
		snprintf(hint, sizeof hint, "  [Focused] keys go to [%d] ",
		    job_id(ui->selected));
		room = ui->cols - ui_text_width(hint) - ui_text_width(back);
		label = jobfield_label(ui->selected, 0);
		ui_fit(label, room > 1 ? room : 1, fit, sizeof fit);
		free(label);
		snprintf(hint + strlen(hint), sizeof hint - strlen(hint),
		    "%s%s", fit, back);
		ui_put_text(y, 0, ui->cols, hint, A_BOLD,
		    ui_semantic(UI_C_FOCUS));
		return;
	}
	if (ui_mode_draw_bottom(ui))
		return;
	if ((mw = ui_frame_message_width(ui)) > 0) {
		ui_fit_middle(ui->message, mw, fit, sizeof fit);
		ui_put_text(y, ui->cols - mw - 1, mw, fit,
		    ui->message_error ? A_BOLD : A_NORMAL, pair);
	}
	ui_put_text(y, 0, 2, "> ", A_BOLD, 0);
	text = lineedit_text(ui->edit, &len);
	start = ui_frame_prompt_start(ui, &avail);
	x = 2;
	for (; start < len && x - 2 < avail; start++) {
		width = ui_text_wcwidth(text[start]);
		if (x - 2 + width > avail)
			break;
		/* A pasted newline shows as ⏎, one column. */
		wc[0] = text[start] == L'\n' ? 0x23ce : text[start];
		ui_put_wc(y, x, wc, A_NORMAL, 0);
		x += width;
	}
}

/* Show or hide the client's cursor, telling curses only of changes. */
static void
ui_frame_cursor_visible(struct ui *ui, int visible)
{
	if (visible != ui->cursor_shown - 1) {
		curs_set(visible);
		ui->cursor_shown = visible + 1;
	}
}

/*
 * Put the terminal cursor where the user types: where the open mode says
 * (none: hidden), in the focused job's terminal, or on the prompt.
 */
static void
ui_frame_place_cursor(struct ui *ui)
{
	const wchar_t	*text;
	struct vt	*vt;
	size_t		 len, cur, i, start;
	int		 row, col, x, avail;

	if (!(ui->flags & UI_QUITTING) && !ui->too_small &&
	    ui_mode_cursor(ui, &row, &col)) {
		move(row, col);
		ui_frame_cursor_visible(ui, 1);
		return;
	}
	if (ui->mode != NULL || (ui->flags & UI_QUITTING) || ui->too_small) {
		ui_frame_cursor_visible(ui, 0);
		return;
	}
	if (ui->flags & UI_FOCUSED) {
		vt = ui->selected != NULL ? job_vt(ui->selected) : NULL;
		if (vt == NULL) {
			move(ui->pane.y + 1, ui->pane.x + 1);
			ui_frame_cursor_visible(ui, 1);
			return;
		}
		if (!vt_cursor(vt, &row, &col) || ui->scroll != 0 ||
		    row >= ui->pane.h - 2 || col >= ui->pane.w - 2) {
			ui_frame_cursor_visible(ui, 0);
			return;
		}
		move(ui->pane.y + 1 + row, ui->pane.x + 1 + col);
		ui_frame_cursor_visible(ui, 1);
		return;
	}
	text = lineedit_text(ui->edit, &len);
	cur = lineedit_cursor(ui->edit);
	start = ui_frame_prompt_start(ui, &avail);
	x = 2;
	for (i = start; i < cur; i++)
		x += ui_text_wcwidth(text[i]);
	move(ui->rows - 1, x < ui->cols ? x : ui->cols - 1);
	ui_frame_cursor_visible(ui, 1);
}

/*
 * Draw the parts marked dirty, or all of them: a mode over the whole
 * screen takes all of it but the bottom line; one in the pane takes the
 * pane's place beside the panel.
 */
static void
ui_frame_parts(struct ui *ui, int all)
{
	if (all)
		erase();
	if (ui->mode != NULL && !ui_mode_in_pane(ui)) {
		ui_mode_draw(ui);
		ui_frame_bottom(ui);
		return;
	}
	if (all || (ui->flags & UI_DRAW_PANEL))
		ui_panel_draw(ui);
	if (ui->mode != NULL)
		ui_mode_draw(ui);
	else if (all || (ui->flags & UI_DRAW_PANE))
		ui_pane_draw(ui, all);
	if (all || (ui->flags & UI_DRAW_PROMPT))
		ui_frame_bottom(ui);
}

/* Draw everything marked dirty, then update the terminal once. */
void
ui_frame_draw(struct ui *ui)
{
	int	all = ui->flags & UI_DRAW_ALL;

	if (ui->too_small) {
		erase();
		ui_put_text(0, 0, ui->cols, "terminal too small", A_BOLD, 0);
		wnoutrefresh(stdscr);
		doupdate();
		return;
	}
	ui_frame_parts(ui, all);
	/* The colour pairs ran out: again, with a fresh table (ui_pair()). */
	if (ui_pair_renew()) {
		ui_frame_parts(ui, 1);
		ui_pair_renew();
	}
	ui_frame_place_cursor(ui);
	wnoutrefresh(stdscr);
	doupdate();
}
