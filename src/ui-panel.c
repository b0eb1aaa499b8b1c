/*
 * ui-panel.c: the panel of jobs: a three-line entry per job with its
 * state, the selected one highlighted.
 */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "job.h"
#include "jobtable.h"
#include "loop.h"
#include "ui-private.h"

/* Scroll the panel so that the selected job's entry is on it. */
void
ui_keep_visible(struct ui *ui)
{
	int	index, visible;

	index = ui_job_index(ui, ui->selected);
	visible = (ui->panel.h - 2) / 3;
	if (visible < 1)
		visible = 1;
	if (index >= 0 && index < ui->panel_top)
		ui->panel_top = index;
	if (index >= ui->panel_top + visible)
		ui->panel_top = index - visible + 1;
	if (ui->panel_top < 0)
		ui->panel_top = 0;
}

/* Compute the panel and pane rectangles and size every job to the pane. */
void
ui_layout(struct ui *ui)
{
	int	body = ui->rows - 1, pw, ph;

	ui->too_small = ui->rows < 6 || ui->cols < 24 ||
	    (ui->cols < 60 && body < 10);
	if (ui->too_small)
		return;
	if (ui->cols >= 60) {
		pw = ui->cols / 3;
		if (pw < 30)
			pw = 30;
		if (pw > 48)
			pw = 48;
		ui->panel = (struct ui_rect){ 0, 0, body, pw };
		ui->pane = (struct ui_rect){ 0, pw, body, ui->cols - pw };
	} else {
		/* Narrow: the panel above the pane. */
		ph = body / 3;
		if (ph < 5)
			ph = 5;
		ui->panel = (struct ui_rect){ 0, 0, ph, ui->cols };
		ui->pane = (struct ui_rect){ ph, 0, body - ph, ui->cols };
	}
	jobtable_set_size(ui->jt, ui->pane.h - 2, ui->pane.w - 2);
	ui_keep_visible(ui);
}

/* Describe a job's state for line two of its panel entry. */
static void
ui_job_status(const struct job *job, int64_t now, char *text, size_t tsize,
    const char **mark, int *pair)
{
	char	 dur[32], how[64];

	job_format_duration(job_duration_ms(job, now), dur, sizeof dur);
	switch (job_state(job)) {
	case JOB_QUEUED:
		snprintf(text, tsize, "Queued");
		*mark = "… Queued";
		*pair = ui_semantic(UI_C_DIM);
		return;
	case JOB_RUNNING:
		snprintf(text, tsize, "Running for %s", dur);
		*mark = "◉ Active";
		*pair = ui_semantic(UI_C_ACTIVE);
		return;
	case JOB_STOPPED:
		snprintf(text, tsize, "Stopped after %s", dur);
		*mark = "‖ Stopped";
		*pair = ui_semantic(UI_C_DIM);
		return;
	case JOB_COMPLETED:
		*mark = "✓ Done";
		*pair = ui_semantic(UI_C_DONE);
		break;
	case JOB_FAILED:
		*mark = "✗ Failed";
		*pair = ui_semantic(UI_C_FAILED);
		break;
	case JOB_CANCELED:
		*mark = "⊘ Canceled";
		*pair = ui_semantic(UI_C_CANCELED);
		break;
	case JOB_TIMED_OUT:
		*mark = "⏱ Timed out";
		*pair = ui_semantic(UI_C_FAILED);
		break;
	}
	snprintf(text, tsize, "%s after %s", job_describe_end(job, how,
	    sizeof how), dur);
}

/* Draw the panel: a three-line entry per job, the selected one highlighted. */
void
ui_draw_panel(struct ui *ui)
{
	const struct ui_rect	*r = &ui->panel;
	struct job		*job;
	const char		*mark = "";
	char			 title[64], left[1024], right[64], status[128];
	char			 last[512];
	int64_t			 now = loop_now_ms();
	int			 n, i, y, iw = r->w - 2, pair = 0;
	attr_t			 sel;

	snprintf(title, sizeof title, "Processes (%d running)",
	    jobtable_running(ui->jt));
	ui_box(r, title, NULL, A_NORMAL, 0);
	for (y = r->y + 1; y < r->y + r->h - 1; y++)
		ui_blank(y, r->x + 1, iw, A_NORMAL);
	n = jobtable_count(ui->jt);
	if (n == 0) {
		ui_line(r->y + 1, r->x + 1, iw, " No jobs yet: type a command "
		    "below", A_DIM, 0, NULL, 0, 0);
		return;
	}
	y = r->y + 1;
	for (i = ui->panel_top; i < n && y + 2 < r->y + r->h - 1 + 0; i++) {
		job = jobtable_get(ui->jt, i);
		sel = job == ui->selected ? A_REVERSE : A_NORMAL;
		snprintf(left, sizeof left, "[%d] %s%s%s", job_id(job),
		    job_name(job) != NULL ? job_name(job) : "",
		    job_name(job) != NULL ? ": " : "", job_command(job));
		if (job_pid(job) <= 0)
			right[0] = '\0';	/* queued: never ran yet */
		else
			snprintf(right, sizeof right, "%sPID: %ld",
			    job_is_pty(job) ? "" : "no terminal ",
			    (long)job_pid(job));
		ui_line(y, r->x + 1, iw, left, sel | A_BOLD, 0, right, sel, 0);

		ui_job_status(job, now, status, sizeof status, &mark, &pair);
		snprintf(left, sizeof left, "  %s", status);
		ui_line(y + 1, r->x + 1, iw, left, A_NORMAL, 0, mark, A_BOLD,
		    pair);

		job_last_line(job, last, sizeof last);
		snprintf(left, sizeof left, "  Last output: %s", last);
		ui_line(y + 2, r->x + 1, iw, left, A_DIM, 0, NULL, 0, 0);
		y += 3;
	}
}


/* Hide the panel or bring it back (stub until zoom lands). */
void
ui_zoom(struct ui *ui)
{
	ui_message(ui, "zoom is not built yet", 1);
}

/* Return the job whose panel entry holds screen cell y, x, or NULL. */
struct job *
ui_panel_job_at(struct ui *ui, int y, int x)
{
	const struct ui_rect	*r = &ui->panel;
	int			 index;

	if ((ui->flags & UI_ZOOMED) || y <= r->y || y >= r->y + r->h - 1 ||
	    x < r->x || x >= r->x + r->w)
		return NULL;
	index = ui->panel_top + (y - r->y - 1) / 3;
	if (index >= jobtable_count(ui->jt))
		return NULL;
	return jobtable_get(ui->jt, index);
}
