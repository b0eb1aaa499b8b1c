/*
 * ui-mouse.c: the outer terminal's mouse reports.  With a mode open they
 * are the mode's (through ui-mode.c: a text view scrolls by the wheel).
 * Else the wheel scrolls what is under the pointer (the pane's
 * scrollback, the panel's selection); a click in the panel selects a
 * job; a drag in the pane selects text inside it, drawn reversed by
 * ui-pane.c, and copies it on release.  In focus mode, when the job asked
 * for mouse reports, events inside its pane go to it instead, in its own
 * coordinates and encoding.  The selection and the scroll are asked of
 * ui.c through struct ui_calls.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "job.h"
#include "jobtable.h"
#include "ui-private.h"
#include "vt.h"
#include "xmalloc.h"

/* Return whether screen cell y, x is inside rectangle r (borders too). */
static int
ui_mouse_in(const struct ui_rect *r, int y, int x)
{
	return y >= r->y && y < r->y + r->h && x >= r->x && x < r->x + r->w;
}

/* Return whether y, x is inside the pane's borders. */
static int
ui_mouse_in_pane(const struct ui *ui, int y, int x)
{
	const struct ui_rect	*r = &ui->pane;

	return y > r->y && y < r->y + r->h - 1 && x > r->x &&
	    x < r->x + r->w - 1;
}

/* Append the text of cells [from, to) of one row, trailing blanks trimmed. */
static void
ui_drag_row(const struct vt *vt, const struct vt_cell *cells, int n,
    int from, int to, char **buf, size_t *len, size_t *cap)
{
	uint32_t	chars[8];
	char		mb[MB_LEN_MAX];
	mbstate_t	mbs;
	size_t		k, i, m, keep;
	int		col;

	/* A wide character is taken whole from its left half. */
	if (from > 0 && from < n && cells[from].ch == VT_CELL_WIDE_RIGHT)
		from--;
	keep = *len;
	for (col = from; col < to && col < n; col++) {
		if (cells[col].ch == VT_CELL_WIDE_RIGHT)
			continue;
		if (cells[col].ch == VT_CELL_BLANK)
			k = 0;
		else
			k = vt_cell_text(vt, &cells[col], chars, 8);
		if (k == 0) {
			chars[0] = ' ';
			k = 1;
		}
		for (i = 0; i < k; i++) {
			memset(&mbs, 0, sizeof mbs);
			m = wcrtomb(mb, (wchar_t)chars[i], &mbs);
			if (m == (size_t)-1)
				continue;
			if (*len + m + 2 > *cap) {
				*cap = (*cap + m + 2) * 2;
				*buf = xreallocarray(*buf, *cap, 1);
			}
			memcpy(*buf + *len, mb, m);
			*len += m;
		}
		if (chars[0] != ' ')
			keep = *len;
	}
	*len = keep;
}

/* Copy the dragged text: rows joined by "\n", each row's blanks trimmed. */
static void
ui_drag_copy(struct ui *ui, struct vt *vt)
{
	const struct vt_cell	*cells;
	char			*buf;
	size_t			 len = 0, cap = 256;
	int			 row, n, from, to, first = 1;

	buf = xmalloc(cap);
	for (row = 0; row < ui->pane.h - 2; row++) {
		if (!ui_pane_drag_cols(ui, row, &from, &to))
			continue;
		if (!first) {
			if (len + 2 > cap) {
				cap *= 2;
				buf = xreallocarray(buf, cap, 1);
			}
			buf[len++] = '\n';
		}
		first = 0;
		cells = ui_pane_cells(ui, vt, row, &n);
		if (cells != NULL)
			ui_drag_row(vt, cells, n, from, to, &buf, &len, &cap);
	}
	buf[len] = '\0';
	if (len > 0)
		ui_clip_set(ui, buf, len);
	free(buf);
}

/* Move the drag's end to y, x, kept inside the pane. */
static void
ui_drag_to(struct ui *ui, struct vt *vt, int y, int x)
{
	int	row = y - ui->pane.y - 1, col = x - ui->pane.x - 1;

	if (row < 0)
		row = 0;
	if (row > ui->pane.h - 3)
		row = ui->pane.h - 3;
	if (col < 0)
		col = 0;
	if (col > ui->pane.w - 3)
		col = ui->pane.w - 3;
	ui->drag.row1 = row;
	ui->drag.col1 = col;
	vt_mark_all_dirty(vt);
	ui->calls->dirty(UI_DRAW_PANE, 1, ui->calls_arg);
}

/* Send an event inside the pane to the focused job; 1 if it took it. */
static int
ui_mouse_pass(struct ui *ui, const struct input_mouse *m)
{
	struct job	*job = ui->selected;
	struct vt	*vt;

	if (!(ui->flags & UI_FOCUSED) || job == NULL || !job_is_running(job) ||
	    (vt = job_vt(job)) == NULL || vt_mouse_mode(vt) == 0)
		return 0;
	/* A drag that began in the pane stays the job's until released. */
	if (!ui_mouse_in_pane(ui, m->y, m->x) &&
	    !(ui->drag.active && ui->drag.passthrough))
		return 0;
	ui->drag.active = m->button == INPUT_BUTTON_LEFT && m->press;
	ui->drag.passthrough = 1;
	vt_send_mouse(job_vt_get(job), m->y - ui->pane.y - 1,
	    m->x - ui->pane.x - 1, m->button, m->press, m->motion, m->mods);
	jobtable_update(ui->jt, job);
	return 1;
}

/* Handle a mouse report (see the top of the file). */
void
ui_mouse_event(struct ui *ui, const struct input_mouse *m)
{
	struct job	*job;
	struct vt	*vt;
	int		 wheel;

	if (ui->too_small)
		return;
	wheel = m->button == INPUT_WHEEL_UP ? -1 :
	    m->button == INPUT_WHEEL_DOWN ? 1 : 0;
	if (ui_mode_mouse(ui, m) || ui_mouse_pass(ui, m))
		return;
	vt = ui->selected != NULL ? job_vt(ui->selected) : NULL;
	if (wheel != 0) {
		if (!m->press)
			return;
		if (!(ui->flags & UI_ZOOMED) &&
		    ui_mouse_in(&ui->panel, m->y, m->x))
			ui->calls->select_step(wheel, ui->calls_arg);
		else if (ui_mouse_in(&ui->pane, m->y, m->x))
			ui->calls->scroll_pane(-wheel * UI_WHEEL_LINES,
			    ui->calls_arg);
		return;
	}
	if (m->button == INPUT_BUTTON_LEFT && m->press && !m->motion) {
		ui->drag.active = 0;
		if (!(ui->flags & UI_ZOOMED) &&
		    (job = ui_panel_job_at(ui, m->y, m->x)) != NULL) {
			ui->calls->select(job, ui->calls_arg);
			return;
		}
		if (vt == NULL || !ui_mouse_in_pane(ui, m->y, m->x))
			return;
		ui->drag.active = 1;
		ui->drag.passthrough = 0;
		ui->drag.row0 = m->y - ui->pane.y - 1;
		ui->drag.col0 = m->x - ui->pane.x - 1;
		ui_drag_to(ui, vt, m->y, m->x);
		return;
	}
	if (!ui->drag.active || vt == NULL) {
		ui->drag.active = 0;
		return;
	}
	if (m->motion) {
		ui_drag_to(ui, vt, m->y, m->x);
		return;
	}
	if (!m->press) {
		ui_drag_to(ui, vt, m->y, m->x);
		/* A click that did not move copies nothing. */
		if (ui->drag.row1 != ui->drag.row0 ||
		    ui->drag.col1 != ui->drag.col0)
			ui_drag_copy(ui, vt);
		ui->drag.active = 0;
	}
}
