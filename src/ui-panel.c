/*
 * ui-panel.c: the panel of jobs (a three-line entry per job with its
 * state, what it waits for or whether it is ready yet, whether it waits
 * for input (a password), its note and last output, or one line when the screen is narrow or short), the browser's
 * row above them (two lines beside three-line entries, else one), the
 * layout of panel and pane, zoom, and the marks of failures not yet
 * looked at.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "browser.h"
#include "host.h"
#include "job.h"
#include "jobfield.h"
#include "jobtable.h"
#include "loop.h"
#include "textesc.h"
#include "ui-private.h"
#include "xmalloc.h"

/* Narrower entries (inside the border): a mark's short form. */
#define UI_PANEL_NARROW		34

/* Return whether the panel has a browser row: a browser, not idle. */
static int
ui_panel_has_browser(const struct ui *ui)
{
	return ui->browser != NULL && browser_state(ui->browser) !=
	    BROWSER_IDLE;
}

/*
 * Return how many screen lines a job's entry takes: three (name, state,
 * last output), or one when the panel is narrow or short (the browser's
 * two lines taken), so that it still shows a useful number of jobs.
 */
static int
ui_panel_entry_lines(const struct ui *ui)
{
	int	h = ui->panel.h - 2 - (ui_panel_has_browser(ui) ? 2 : 0);

	if (ui->panel.w == 0 || ui->cols < UI_PANEL_SIDE_COLS ||
	    ui->panel.w < UI_PANEL_FULL_COLS ||
	    h / 3 < UI_PANEL_MIN_ENTRIES)
		return 1;
	return 3;
}

/*
 * Return how many lines the browser's row takes at the panel's top: two
 * beside three-line entries (the second its URL or why it failed), one
 * beside one-line entries, none without a browser row or when a job's
 * line would not fit under it.
 */
static int
ui_panel_browser_lines(const struct ui *ui)
{
	if (!ui_panel_has_browser(ui) || ui->panel.h - 2 < 2)
		return 0;
	return ui_panel_entry_lines(ui) == 3 ? 2 : 1;
}

/* Return how many job entries fit in the panel at once (at least one). */
static int
ui_panel_visible(const struct ui *ui)
{
	int	visible;

	visible = (ui->panel.h - 2 - ui_panel_browser_lines(ui)) /
	    ui_panel_entry_lines(ui);
	return visible < 1 ? 1 : visible;
}

/* Return the index of job in the table (the panel's order), or -1. */
int
ui_job_index(const struct ui *ui, const struct job *job)
{
	int	i, n = jobtable_count(ui->jt);

	for (i = 0; i < n; i++) {
		if (jobtable_get(ui->jt, i) == job)
			return i;
	}
	return -1;
}

/*
 * Scroll the panel so that the selected job's entry is on it, and so that
 * it is full whenever jobs are hidden above (no blank rows at its end).
 */
void
ui_keep_visible(struct ui *ui)
{
	int	index, visible, n;

	if (ui->too_small || ui->panel.h == 0)
		return;
	n = jobtable_count(ui->jt);
	index = ui_job_index(ui, ui->selected);
	visible = ui_panel_visible(ui);
	if (ui->panel_top > n - visible)
		ui->panel_top = n - visible;
	if (index >= 0 && index < ui->panel_top)
		ui->panel_top = index;
	if (index >= ui->panel_top + visible)
		ui->panel_top = index - visible + 1;
	if (ui->panel_top < 0)
		ui->panel_top = 0;
}

/*
 * Return the panel's width beside the pane: the configured one, clamped
 * so the pane keeps UI_PANE_MIN_COLS, or a third of the screen (the pane
 * keeps at least two thirds), between UI_PANEL_FULL_COLS (when the
 * screen is wide enough for it) and UI_PANEL_MAX_COLS.
 */
static int
ui_panel_width(const struct ui *ui)
{
	int	pw;

	if (ui->panel_width > 0) {
		pw = ui->panel_width;
		if (pw > ui->cols - UI_PANE_MIN_COLS)
			pw = ui->cols - UI_PANE_MIN_COLS;
		if (pw < UI_PANEL_MIN_COLS)
			pw = UI_PANEL_MIN_COLS;
		return pw;
	}
	pw = ui->cols / 3;
	if (pw < UI_PANEL_FULL_COLS &&
	    ui->cols - UI_PANEL_FULL_COLS >= ui->cols * 2 / 3)
		pw = UI_PANEL_FULL_COLS;
	if (pw > UI_PANEL_MAX_COLS)
		pw = UI_PANEL_MAX_COLS;
	return pw;
}

/*
 * Compute the panel and pane rectangles and size every job to the pane,
 * and tell commands the width of the text view (their tables fit it).
 * Zoomed, there is no panel: the pane takes all but the prompt line.
 */
void
ui_layout(struct ui *ui)
{
	int	body = ui->rows - 1, pw, ph;

	/* A command's text is shown in a view inside a border. */
	ui->ctx.width = ui->cols - 2;
	ui->too_small = ui->rows < 6 || ui->cols < 24 ||
	    (ui->cols < UI_PANEL_SIDE_COLS && body < 10 &&
	    !(ui->flags & UI_ZOOMED));
	if (ui->too_small)
		return;
	if (ui->flags & UI_ZOOMED) {
		ui->panel = (struct ui_rect){ 0, 0, 0, 0 };
		ui->pane = (struct ui_rect){ 0, 0, body, ui->cols };
	} else if (ui->cols >= UI_PANEL_SIDE_COLS) {
		pw = ui_panel_width(ui);
		ui->panel = (struct ui_rect){ 0, 0, body, pw };
		ui->pane = (struct ui_rect){ 0, pw, body, ui->cols - pw };
	} else {
		/* Narrow: the panel above the pane, a line per job. */
		ph = body / 3;
		if (ph < 5)
			ph = 5;
		ui->panel = (struct ui_rect){ 0, 0, ph, ui->cols };
		ui->pane = (struct ui_rect){ ph, 0, body - ph, ui->cols };
	}
	/* The owner sizes the jobs' terminals (its policy, over clients). */
	ui->owner->sized(ui, 1, ui->owner_arg);
	ui_keep_visible(ui);
}

static char	*ui_panel_safe(const char *);

/*
 * Describe a running job on a Slurm host from what squeue said: "Queued
 * by Slurm (Resources)" while pending, then its node and job id; 0 when
 * there is nothing to say beyond a local job's words.
 */
static int
ui_job_remote_status(const struct job *job, const char *dur, char *text,
    size_t tsize, const char **mark, int *pair)
{
	const struct host_run	*run = job_remote(job);
	const char		*id, *state, *nodes, *reason, *words;
	char			*safe;

	if (run == NULL || (words = host_run_text(run)) == NULL)
		return 0;
	host_run_slurm(run, &id, &state, &nodes, &reason);
	safe = ui_panel_safe(words);
	if (state != NULL && strcmp(state, "PENDING") == 0) {
		snprintf(text, tsize, "%s", safe);
		*mark = "◌ Queued";
		*pair = ui_semantic(UI_C_DIM);
	} else {
		snprintf(text, tsize, "Running for %s on %s", dur, safe);
		*mark = "◉ Active";
		*pair = ui_semantic(UI_C_ACTIVE);
	}
	free(safe);
	return 1;
}

/*
 * Describe a job's state for line two of its panel entry; narrow: the
 * short form of a mark that has one.
 */
static void
ui_job_status(const struct job *job, int64_t now, int narrow, char *text,
    size_t tsize, const char **mark, int *pair)
{
	char	 dur[64], how[64], when[16], *safe;
	size_t	 len;

	job_format_duration(job_duration_ms(job, now), dur, sizeof dur);
	if (job_starts(job) > 1) {
		/* A restarted job says how often: "(restart 2)". */
		len = strlen(dur);
		snprintf(dur + len, sizeof dur - len, " (restart %d)",
		    job_starts(job) - 1);
	}
	switch (job_state(job)) {
	case JOB_QUEUED:
		snprintf(text, tsize, "Queued");
		*mark = "… Queued";
		*pair = ui_semantic(UI_C_DIM);
		return;
	case JOB_WAITING:
		snprintf(text, tsize, "Waiting for %s", job_wait_reason(job) !=
		    NULL ? job_wait_reason(job) : "its turn");
		*mark = "… Waiting";
		*pair = ui_semantic(UI_C_DIM);
		return;
	case JOB_RUNNING:
		if (job_ready(job) == JOB_READY_STARTING) {
			/*
			 * What its probe said last, beside the mark: "ready:
			 * GET /health → 503   ◌ Starting".
			 */
			if (job_ready_text(job) != NULL)
				snprintf(text, tsize, "ready: %s",
				    job_ready_text(job));
			else
				snprintf(text, tsize, "Starting for %s", dur);
			*mark = "◌ Starting";
			*pair = ui_semantic(UI_C_ACTIVE);
			return;
		}
		if (ui_job_remote_status(job, dur, text, tsize, mark, pair))
			return;
		snprintf(text, tsize, "Running for %s", dur);
		*mark = "◉ Active";
		switch (job_input_wait(job)) {
		case TTYWAIT_INPUT:
			*mark = narrow ? "⌨ Input" : "⌨ Waiting for input";
			break;
		case TTYWAIT_PASSWORD:
			*mark = narrow ? "⌨ Password" :
			    "⌨ Waiting for password";
			break;
		default:
			break;
		}
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
	case JOB_BLOCKED:
		/* It never ran: what blocked it (escaped), not how long. */
		job_describe_end(job, text, tsize);
		if (textesc_needed(text, strlen(text))) {
			safe = textesc_visible(text, strlen(text));
			snprintf(text, tsize, "%s", safe);
			free(safe);
		}
		*mark = "⊗ Blocked";
		*pair = ui_semantic(UI_C_FAILED);
		return;
	}
	/* A job on a timer says when it runs next rather than how long. */
	if (jobfield_next_run(job) >= 0)
		snprintf(text, tsize, "%s · next %s", job_describe_end(job,
		    how, sizeof how), job_format_clock(jobfield_next_run(job),
		    0, when, sizeof when));
	else
		snprintf(text, tsize, "%s after %s", job_describe_end(job,
		    how, sizeof how), dur);
}

/* Return whether job failed while not looked at (its entry is marked). */
int
ui_panel_noticed(const struct ui *ui, const struct job *job)
{
	int	i;

	for (i = 0; i < ui->nnotices; i++) {
		if (ui->notices[i] == job)
			return 1;
	}
	return 0;
}

/* Mark job's entry (on) until it is selected, or take the mark off. */
void
ui_panel_notice(struct ui *ui, struct job *job, int on)
{
	int	i;

	for (i = 0; i < ui->nnotices; i++) {
		if (ui->notices[i] != job)
			continue;
		if (!on) {
			ui->notices[i] = ui->notices[--ui->nnotices];
			ui->calls->dirty(UI_DRAW_PANEL, 0, ui->calls_arg);
		}
		return;
	}
	if (!on)
		return;
	ui->notices = xreallocarray(ui->notices, ui->nnotices + 1,
	    sizeof *ui->notices);
	ui->notices[ui->nnotices++] = job;
	ui->calls->dirty(UI_DRAW_PANEL, 0, ui->calls_arg);
}


/*
 * Return the mark of a job an agent started, "agent NAME" (escaped), or
 * NULL; free it.
 */
static char *
ui_panel_agent(struct job *job)
{
	char	*safe, *mark;

	if (job_agent(job) == NULL)
		return NULL;
	safe = ui_panel_safe(job_agent(job));
	mark = xprintf("agent %s", safe);
	free(safe);
	return mark;
}

/*
 * Return the entry's label: "NAME: COMMAND" (jobfield_label()), with the
 * host of a job on one after its name ("test @build: make") or, without
 * a name, before its command.  Free it.
 */
static char *
ui_panel_label(struct job *job)
{
	const char	*host = job_spec(job)->host, *name = job_name(job);
	char		*label = jobfield_label(job, 0), *safe, *out;
	size_t		 n;

	if (host == NULL)
		return label;
	safe = ui_panel_safe(host);
	/* A name is [A-Za-z0-9_.-]: the label starts with it verbatim. */
	n = name != NULL && strncmp(label, name, strlen(name)) == 0 ?
	    strlen(name) : 0;
	if (n > 0)
		out = xprintf("%.*s @%s%s", (int)n, label, safe, label + n);
	else
		out = xprintf("@%s: %s", safe, label);
	free(safe);
	free(label);
	return out;
}

/*
 * Draw the first line of job's entry at y: id, name, command, PID; one
 * line: id, state, name, command, and on the right the agent's mark.
 */
static void
ui_panel_draw_head(struct ui *ui, struct job *job, int y, attr_t sel,
    const char *mark)
{
	const struct ui_rect	*r = &ui->panel;
	char			 left[1024], right[64], fit[320], *agent;
	char			*label;
	const char		*notice;
	int			 compact = ui_panel_entry_lines(ui) == 1;

	notice = ui_panel_noticed(ui, job) ? "! " : "";
	/* "NAME: COMMAND", escaped: the pane's title and !ps say the same. */
	label = ui_panel_label(job);
	if (compact) {
		/* One line: the mark's symbol stands for the state. */
		snprintf(left, sizeof left, "%s[%d] %.*s %s", notice,
		    job_id(job), (int)strcspn(mark, " "), mark, label);
		free(label);
		/* The agent's mark keeps at most half the line. */
		if ((agent = ui_panel_agent(job)) != NULL)
			ui_fit(agent, (r->w - 2) / 2, fit, sizeof fit);
		ui_line(y, r->x + 1, r->w - 2, left, sel | A_BOLD,
		    notice[0] != '\0' ? ui_semantic(UI_C_FAILED) : 0,
		    agent != NULL ? fit : NULL, sel | A_DIM, 0);
		free(agent);
		return;
	}
	snprintf(left, sizeof left, "%s[%d] %s", notice, job_id(job), label);
	free(label);
	if (job_pid(job) <= 0)
		right[0] = '\0';	/* queued: never ran yet */
	else
		snprintf(right, sizeof right, "%sPID: %ld",
		    job_is_pty(job) ? "" : "no terminal ", (long)job_pid(job));
	ui_line(y, r->x + 1, r->w - 2, left, sel | A_BOLD,
	    notice[0] != '\0' ? ui_semantic(UI_C_FAILED) : 0, right, sel, 0);
}

/*
 * Return text from outside (the browser's label, URL, reason) as the panel
 * may show it: what a terminal would act on escaped.  Free it.
 */
static char *
ui_panel_safe(const char *s)
{
	if (textesc_needed(s, strlen(s)))
		return textesc_visible(s, strlen(s));
	return xstrdup(s);
}

/*
 * Draw the browser's row at y: "[browser] LABEL" with its state on the
 * right, coloured as a job's state is (ready green, failed red); on a
 * second line (lines 2) its URL while ready or why it failed.
 */
static void
ui_panel_draw_browser(struct ui *ui, int y, int lines)
{
	const struct ui_rect	*r = &ui->panel;
	struct browser		*b = ui->browser;
	enum browser_state	 state = browser_state(b);
	char			*label, *detail, *safe, *text;
	int			 pair;

	switch (state) {
	case BROWSER_STARTING:
	case BROWSER_READY:
		pair = ui_semantic(UI_C_ACTIVE);
		break;
	case BROWSER_FAILED:
		pair = ui_semantic(UI_C_FAILED);
		break;
	default:
		pair = ui_semantic(UI_C_DIM);
		break;
	}
	label = ui_panel_safe(browser_label(b));
	text = xprintf("[browser] %s", label);
	ui_line(y, r->x + 1, r->w - 2, text, A_BOLD, 0,
	    cmd_browser_state_text(b), A_BOLD, pair);
	free(text);
	free(label);
	if (lines < 2 || (detail = cmd_browser_detail(b)) == NULL)
		return;
	safe = ui_panel_safe(detail);
	text = xprintf("  %s", safe);
	if (state == BROWSER_FAILED)
		ui_line(y + 1, r->x + 1, r->w - 2, text, A_NORMAL, pair, NULL,
		    0, 0);
	else
		ui_line(y + 1, r->x + 1, r->w - 2, text, A_DIM, 0, NULL, 0, 0);
	free(text);
	free(safe);
	free(detail);
}

/*
 * Write into text the mark of the jobs above the panel (" ↑ N more "), or
 * nothing when there are none or it does not fit; returns the columns it
 * takes.
 */
static int
ui_panel_more_above(const struct ui *ui, int above, char *text, size_t size)
{
	int	w;

	text[0] = '\0';
	if (above <= 0)
		return 0;
	snprintf(text, size, " ↑ %d more ", above);
	w = ui_text_width(text);
	if (w >= ui->panel.w - 2) {
		text[0] = '\0';
		return 0;
	}
	return w;
}

/* Say in the panel's borders how many jobs are off it above and below. */
static void
ui_panel_draw_more(struct ui *ui, int above, int below)
{
	const struct ui_rect	*r = &ui->panel;
	char			 text[32];
	int			 w;

	if ((w = ui_panel_more_above(ui, above, text, sizeof text)) > 0)
		ui_put_text(r->y, r->x + r->w - 1 - w, w, text, A_BOLD, 0);
	if (below > 0) {
		snprintf(text, sizeof text, " ↓ %d more ", below);
		w = ui_text_width(text);
		if (w < r->w - 2)
			ui_put_text(r->y + r->h - 1, r->x + r->w - 1 - w, w,
			    text, A_BOLD, 0);
	}
}

/*
 * Draw the panel: the browser's row, an entry per job (three lines, or
 * one when collapsed), the selected one highlighted, failures not yet
 * looked at marked, and how many jobs are off it in its borders.
 */
void
ui_panel_draw(struct ui *ui)
{
	const struct ui_rect	*r = &ui->panel;
	struct job		*job;
	const char		*mark = "";
	char			 title[64], left[1024], status[128];
	char			 last[512], *agent, count[32], more[32];
	int64_t			 now = loop_now_ms();
	int			 n, i, y, iw = r->w - 2, pair = 0, lines, end;
	int			 blines, room, mw;
	attr_t			 sel;

	if (r->w == 0 || r->h == 0)
		return;		/* zoomed */
	ui_keep_visible(ui);
	/*
	 * The title has what ui_box() gives it, less the mark of jobs above,
	 * drawn over the border's right end from its own blank on; cut
	 * inside its brackets.
	 */
	room = r->w - 5;
	if ((mw = ui_panel_more_above(ui, ui->panel_top, more,
	    sizeof more)) > 0 && room > r->w - 3 - mw)
		room = r->w - 3 - mw;
	snprintf(count, sizeof count, "%d running", jobtable_running(ui->jt));
	ui_fit_inside("Processes (", count, ")", room, title, sizeof title);
	ui_box(r, title, NULL, A_NORMAL, 0);
	for (y = r->y + 1; y < r->y + r->h - 1; y++)
		ui_blank(y, r->x + 1, iw, A_NORMAL);
	if ((blines = ui_panel_browser_lines(ui)) > 0)
		ui_panel_draw_browser(ui, r->y + 1, blines);
	y = r->y + 1 + blines;
	n = jobtable_count(ui->jt);
	if (n == 0) {
		ui_line(y, r->x + 1, iw, " No jobs yet: type a command below",
		    A_DIM, 0, NULL, 0, 0);
		return;
	}
	lines = ui_panel_entry_lines(ui);
	end = ui->panel_top + ui_panel_visible(ui);
	if (end > n)
		end = n;
	for (i = ui->panel_top; i < end; i++) {
		job = jobtable_get(ui->jt, i);
		sel = job == ui->selected ? A_REVERSE : A_NORMAL;
		ui_job_status(job, now, iw < UI_PANEL_NARROW, status,
		    sizeof status, &mark, &pair);
		ui_panel_draw_head(ui, job, y, sel, mark);
		if (lines == 1) {
			y++;
			continue;
		}
		snprintf(left, sizeof left, "  %s", status);
		ui_line(y + 1, r->x + 1, iw, left, A_NORMAL, 0, mark, A_BOLD,
		    pair);

		/*
		 * The agent that started it and a note (why it restarted)
		 * come before the output.
		 */
		job_last_line(job, last, sizeof last);
		agent = ui_panel_agent(job);
		snprintf(left, sizeof left, "  %s%s%s%sLast output: %s",
		    agent != NULL ? agent : "", agent != NULL ? " · " : "",
		    job_note(job) != NULL ? job_note(job) : "",
		    job_note(job) != NULL ? " · " : "", last);
		free(agent);
		ui_line(y + 2, r->x + 1, iw, left, A_DIM, 0, NULL, 0, 0);
		y += 3;
	}
	ui_panel_draw_more(ui, ui->panel_top, n - end);
}

/*
 * Zoom: hide the panel and give the pane (and every job's terminal) the
 * whole screen but the prompt line, or bring the panel back.
 */
void
ui_zoom(struct ui *ui)
{
	ui->flags ^= UI_ZOOMED;
	ui_layout(ui);
	ui->calls->dirty(UI_DRAW_ALL, 1, ui->calls_arg);
}

/* Return the job whose panel entry is at screen cell y, x, or NULL. */
struct job *
ui_panel_job_at(struct ui *ui, int y, int x)
{
	const struct ui_rect	*r = &ui->panel;
	int			 index, top;

	top = r->y + 1 + ui_panel_browser_lines(ui);
	if (ui->too_small || (ui->flags & UI_ZOOMED) || r->w == 0 || y < top ||
	    y >= r->y + r->h - 1 || x <= r->x || x >= r->x + r->w - 1)
		return NULL;
	ui_keep_visible(ui);
	index = ui->panel_top + (y - top) / ui_panel_entry_lines(ui);
	if (index >= ui->panel_top + ui_panel_visible(ui) ||
	    index >= jobtable_count(ui->jt))
		return NULL;
	return jobtable_get(ui->jt, index);
}
