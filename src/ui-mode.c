/*
 * ui-mode.c: the mode interface.  A mode (struct ui_mode, as tmux's
 * window_mode) has the keys, the mouse and pastes while it is open, and
 * draws over the pane or over the whole screen: view mode (ui-view.c) and
 * copy mode (ui-copy.c).  Open modes stack, the newest on top: it alone
 * is drawn and told of input; when it closes, the one under it is told
 * it is on top again (its resize, as tmux does).
 *
 * The front end reaches a mode only through these functions, and a mode
 * calls up only through struct ui_calls.  This file owns the entries;
 * each mode owns its data and frees it in its close.
 */
#include <stdlib.h>

#include "ui-private.h"
#include "xmalloc.h"

/* Mark the whole screen for drawing at once: a mode came or went. */
static void
ui_mode_dirty(struct ui *ui)
{
	ui->calls->dirty(UI_DRAW_ALL, 1, ui->calls_arg);
}

/* Open a mode over the ones open (data is its own); returns its entry. */
struct ui_mode_entry *
ui_mode_push(struct ui *ui, const struct ui_mode *mode, void *data)
{
	struct ui_mode_entry	*me;

	me = xcalloc(1, sizeof *me);
	me->mode = mode;
	me->data = data;
	me->ui = ui;
	me->under = ui->mode;
	ui->mode = me;
	ui_mode_dirty(ui);
	return me;
}

/* Close the top mode; the one under it, if any, is on top again. */
void
ui_mode_pop(struct ui *ui)
{
	struct ui_mode_entry	*me = ui->mode;

	if (me == NULL)
		return;
	ui->mode = me->under;
	me->mode->close(me);
	free(me);
	ui_mode_resize(ui);
	ui_mode_dirty(ui);
}

/* Close every mode, the top one first. */
void
ui_mode_close_all(struct ui *ui)
{
	while (ui->mode != NULL)
		ui_mode_pop(ui);
}

/* Tell whether an open mode is the top one (the one shown). */
int
ui_mode_on_top(const struct ui_mode_entry *me)
{
	return me->ui->mode == me;
}

/* Tell whether the top mode is drawn in the pane (the panel stays). */
int
ui_mode_in_pane(const struct ui *ui)
{
	return ui->mode != NULL && (ui->mode->mode->flags & UI_MODE_PANE);
}

/*
 * Fill r with where an open mode is drawn, borders included: the pane
 * for a mode drawn there, else the whole screen above the bottom line.
 */
void
ui_mode_rect(const struct ui_mode_entry *me, struct ui_rect *r)
{
	const struct ui	*ui = me->ui;

	if (me->mode->flags & UI_MODE_PANE) {
		*r = ui->pane;
		return;
	}
	r->y = 0;
	r->x = 0;
	r->h = ui->rows - 1;
	r->w = ui->cols;
}

/* Draw the top mode, if one is open. */
void
ui_mode_draw(struct ui *ui)
{
	if (ui->mode != NULL)
		ui->mode->mode->draw(ui->mode);
}

/* Draw the top mode's bottom line; 0 if none is open or it has none. */
int
ui_mode_draw_bottom(struct ui *ui)
{
	if (ui->mode == NULL || ui->mode->mode->draw_bottom == NULL)
		return 0;
	ui->mode->mode->draw_bottom(ui->mode);
	return 1;
}

/*
 * Ask the top mode where the terminal cursor goes (*y, *x); 0 if none is
 * open or it shows none.
 */
int
ui_mode_cursor(struct ui *ui, int *y, int *x)
{
	if (ui->mode == NULL || ui->mode->mode->cursor == NULL)
		return 0;
	return ui->mode->mode->cursor(ui->mode, y, x);
}

/* Give a key to the top mode; 0 if none is open. */
int
ui_mode_key(struct ui *ui, int rc, unsigned int key)
{
	if (ui->mode == NULL)
		return 0;
	ui->mode->mode->key(ui->mode, rc, key);
	return 1;
}

/* Give a mouse report to the top mode; 0 if none is open. */
int
ui_mode_mouse(struct ui *ui, const struct input_mouse *m)
{
	if (ui->mode == NULL)
		return 0;
	if (ui->mode->mode->mouse != NULL)
		ui->mode->mode->mouse(ui->mode, m);
	return 1;
}

/*
 * Give a paste (len bytes of prompt text, input_paste_text()) to the top
 * mode; 0 if none is open.
 */
int
ui_mode_paste(struct ui *ui, const char *text, size_t len)
{
	if (ui->mode == NULL)
		return 0;
	if (ui->mode->mode->paste != NULL)
		ui->mode->mode->paste(ui->mode, text, len);
	return 1;
}

/* Tell the top mode the screen was laid out again, or it is on top again. */
void
ui_mode_resize(struct ui *ui)
{
	if (ui->mode != NULL && ui->mode->mode->resize != NULL)
		ui->mode->mode->resize(ui->mode);
}
