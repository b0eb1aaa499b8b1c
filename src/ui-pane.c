/*
 * ui-pane.c: the pane, the selected job's terminal in its box: its title
 * (the job, [Focused], [Zoom], the PID, how far it is scrolled back), the
 * emulator's rows scrolled back ui->scroll lines, and the text a mouse
 * drag selects in it (ui->drag, which ui-mouse.c moves) drawn reversed.
 * A mode drawn in the pane (copy mode) takes its place.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "jobfield.h"
#include "ui-private.h"
#include "vt.h"

/*
 * Give the columns [*from, *to) of the pane's inside row that the drag
 * selects; returns 0 when it selects none of that row.
 */
int
ui_pane_drag_cols(const struct ui *ui, int row, int *from, int *to)
{
	const struct ui_drag	*d = &ui->drag;
	int			 r0 = d->row0, c0 = d->col0, r1 = d->row1;
	int			 c1 = d->col1;

	if (!d->active || d->passthrough)
		return 0;
	if (r1 < r0 || (r1 == r0 && c1 < c0)) {
		r0 = d->row1;
		c0 = d->col1;
		r1 = d->row0;
		c1 = d->col0;
	}
	if (row < r0 || row > r1)
		return 0;
	*from = row == r0 ? c0 : 0;
	*to = row == r1 ? c1 + 1 : ui->pane.w - 2;
	return 1;
}

/*
 * Return the cells shown on row of the pane's inside (n of them; NULL
 * and 0 past the end), scrolled back ui->scroll lines.
 */
const struct vt_cell *
ui_pane_cells(const struct ui *ui, const struct vt *vt, int row, int *n)
{
	int	sb = vt_scrollback_count(vt);

	if (row < ui->scroll)
		return vt_scrollback_line(vt, sb - ui->scroll + row, n);
	if (row - ui->scroll < vt_rows(vt)) {
		*n = vt_cols(vt);
		return vt_screen_row(vt, row - ui->scroll);
	}
	*n = 0;
	return NULL;
}

/* Draw the pane: the selected job's terminal, scrolled back if asked. */
void
ui_pane_draw(struct ui *ui, int all)
{
	const struct ui_rect	*r = &ui->pane;
	const struct vt_cell	*cells;
	struct job		*job = ui->selected;
	struct vt		*vt = NULL;
	char			 title[1100], right[64], cmd[1024], marks[64];
	char			 crop[32];
	char			*label;
	char			 key[sizeof ((struct ui *)0)->pane_key];
	int			 focused = ui->flags & UI_FOCUSED;
	int			 ih = r->h - 2, iw = r->w - 2, row, n, rev;
	int			 room, from, to;

	title[0] = right[0] = '\0';
	if (job != NULL) {
		if (ui->scroll > 0)
			snprintf(right, sizeof right, "↑%d  PID %ld", ui->scroll,
			    (long)job_pid(job));
		else if (job_pid(job) > 0)
			snprintf(right, sizeof right, "PID %ld",
			    (long)job_pid(job));
		/*
		 * A job's terminal larger than this pane (sized for another
		 * client, pty_size) is cropped: said in the title.
		 */
		vt = job_vt(job);
		crop[0] = '\0';
		if (vt != NULL && (vt_rows(vt) > ih || vt_cols(vt) > iw))
			snprintf(crop, sizeof crop, " [Cropped %dx%d]",
			    vt_cols(vt), vt_rows(vt));
		/*
		 * Cut the label, never the marks; narrow, the PID goes
		 * and the marks shrink first so the command keeps a dozen.
		 */
		snprintf(marks, sizeof marks, "%s%s%s", focused ? " [Focused]" :
		    "", (ui->flags & UI_ZOOMED) ? " [Zoom]" : "", crop);
		room = r->w - 12 - ui_text_width(right) - ui_text_width(marks);
		if (room < 12) {
			if (ui->scroll == 0)
				right[0] = '\0';
			snprintf(marks, sizeof marks, "%s%s%s", focused ?
			    " [F]" : "", (ui->flags & UI_ZOOMED) ? " [Z]" : "",
			    crop[0] != '\0' ? " [C]" : "");
			room = r->w - 12 - ui_text_width(right) -
			    ui_text_width(marks);
		}
		/* Named as in the panel and !ps: "NAME: COMMAND". */
		label = jobfield_label(job, 0);
		ui_fit(label, room, cmd, sizeof cmd);
		free(label);
		snprintf(title, sizeof title, "[%d] %s%s", job_id(job), cmd,
		    marks);
	}
	/*
	 * The frame only when it changed: redrawn, its sides would touch
	 * every row and curses would compare them all on each echo.
	 */
	snprintf(key, sizeof key, "%d\x01%s\x01%s", focused,
	    job != NULL ? title : "", right);
	if (all || strcmp(key, ui->pane_key) != 0) {
		ui_box(r, job != NULL ? title : "No job selected",
		    right[0] != '\0' ? right : NULL,
		    focused ? A_BOLD : A_NORMAL,
		    focused ? ui_semantic(UI_C_FOCUS) : 0);
		snprintf(ui->pane_key, sizeof ui->pane_key, "%s", key);
	}
	if (vt == NULL) {
		for (row = 0; row < ih; row++)
			ui_blank(r->y + 1 + row, r->x + 1, iw, A_NORMAL);
		return;
	}
	rev = vt_reverse_video(vt);
	/* What changed since this client drew this screen (its own count). */
	if (vt != ui->pane_vt)
		all = 1;
	for (row = 0; row < ih; row++) {
		if (!all && ui->scroll == 0 && row < vt_rows(vt) &&
		    !vt_row_changed(vt, row, ui->pane_seq))
			continue;
		cells = ui_pane_cells(ui, vt, row, &n);
		if (!ui_pane_drag_cols(ui, row, &from, &to))
			from = to = -1;
		ui_draw_cells(vt, cells, n < iw ? n : iw, r->y + 1 + row,
		    r->x + 1, iw, rev, from, to);
	}
	ui->pane_vt = vt;
	ui->pane_seq = vt_seq(vt);
}
