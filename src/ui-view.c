/*
 * ui-view.c: view mode, a text view (ui-pager.c) over the whole screen:
 * a command's lines (!ps's kept live, !help, !messages), a run of the
 * output store (!logs, the pane scrolled back past its ring) and a grep's
 * results, whose chosen line opens the run it found in another view over
 * them (BIND_OPEN); closing that one shows the results again.  Opening a
 * view from a command closes the modes open before it.
 */
#include <stdlib.h>
#include <string.h>

#include "grep.h"
#include "job.h"
#include "jobtable.h"
#include "store.h"
#include "ui-private.h"
#include "xmalloc.h"

static int	ui_view_action(struct ui_pager *, enum bind_action, void *);

/* What view mode adds to a view: a results view opens its lines' runs. */
static const struct ui_pager_cbs ui_view_cbs = {
	.action = ui_view_action,
};

/* The mode's close: the view is freed. */
static void
ui_view_close(struct ui_mode_entry *me)
{
	ui_pager_free(me->data);
}

/* View mode: a text view over the whole screen but the bottom line. */
static const struct ui_mode ui_view_mode = {
	.name = "view",
	.flags = 0,
	.draw = ui_pager_draw,
	.draw_bottom = ui_pager_draw_bottom,
	.cursor = ui_pager_cursor,
	.key = ui_pager_key,
	.mouse = ui_pager_mouse,
	.paste = ui_pager_paste,
	.resize = ui_pager_resize,
	.close = ui_view_close,
};

/* Open a view of src (taken over) over the modes open. */
static struct ui_pager *
ui_view_push(struct ui *ui, const char *title, struct ui_source *src)
{
	struct ui_pager	*p;

	p = ui_pager_push(ui, &ui_view_mode, title, src);
	p->cbs = &ui_view_cbs;
	return p;
}

/* Open the run a results view's chosen line found, over the results. */
static void
ui_view_open_target(struct ui_pager *results)
{
	struct ui_pager		*p;
	struct ui_source	*src;
	const char		*dir, *run, *title;
	char			*cause = NULL;
	int64_t			 line;
	int			 live;

	if (!ui_source_target(results->src, results->cursor, &dir, &run,
	    &line, &title, &live))
		return;
	if ((src = ui_source_new_run(dir, run, &cause)) == NULL) {
		ui_pager_status(results, 1, "%s", cause);
		free(cause);
		return;
	}
	p = ui_view_push(results->ui, title, src);
	if (live)
		p->flags |= UI_PAGER_LIVE;
	p->match = line;
	ui_pager_move(p, line - ui_pager_body(p) / 2);
	ui_pager_arm(p);
}

/*
 * The view's action callback: BIND_OPEN on a results view opens the
 * chosen line's run; 0 for every other action (the view's own).
 */
static int
ui_view_action(struct ui_pager *p, enum bind_action action, void *arg)
{
	(void)arg;
	if (action != BIND_OPEN || !ui_source_has_targets(p->src))
		return 0;
	ui_view_open_target(p);
	return 1;
}

/*
 * Open a view on a copy of lines, closing the modes open; the first
 * header lines stay in sight as the rest scrolls.  With a command
 * (refresh: !ps), the view is live: the command runs again every second
 * and its lines come back through ui_view_set_lines().
 */
void
ui_view_open(struct ui *ui, const char *title, char **lines, int count,
    int header, const char *refresh)
{
	struct ui_pager	*p;

	ui_mode_close_all(ui);
	p = ui_view_push(ui, title, ui_source_new_array(lines, count, header));
	if (refresh != NULL)
		ui_pager_live(p, refresh);
}

/*
 * Give the live view whose command runs again (ui->refreshing) its new
 * lines; 0 when no view's command runs (the lines are not a view's).
 */
int
ui_view_set_lines(struct ui *ui, char **lines, int count, int header)
{
	if (ui->refreshing == NULL)
		return 0;
	ui_pager_set_lines(ui->refreshing, lines, count, header);
	return 1;
}

/*
 * Open a view on run of the store in dir at line (-1: the end), closing
 * the modes open; a live run opened at its end is followed.  The last run
 * of a job of this deck comes with the job's earlier runs before it and,
 * live, the later ones after it.  0, or -1 with *cause if the run cannot
 * be read.
 */
int
ui_view_open_run(struct ui *ui, const char *title, const char *dir,
    const char *run, int64_t line, int live, char **cause)
{
	struct ui_source	*src;
	struct ui_pager		*p;
	struct job		*job = NULL;
	const char		*id;
	int			 i, n = jobtable_count(ui->jt);

	for (i = 0; i < n && job == NULL; i++) {
		job = jobtable_get(ui->jt, i);
		id = job_run_id(job);
		if (id == NULL || strcmp(id, run) != 0 ||
		    strcmp(job_store_dir(job), dir) != 0)
			job = NULL;
	}
	if (job != NULL)
		src = ui_source_new_job(dir, job, run, cause);
	else
		src = ui_source_new_run(dir, run, cause);
	if (src == NULL)
		return -1;
	ui_mode_close_all(ui);
	p = ui_view_push(ui, title, src);
	if (job != NULL)
		p->job = job_id(job);
	if (live)
		p->flags |= UI_PAGER_LIVE;
	if (line < 0)
		ui_pager_end(p, 1);
	else
		ui_pager_move(p, line);
	return 0;
}

/*
 * Open a view of the logs of jobs ids[0..n) merged in time order, closing
 * the modes open, at its end and followed.  0, or -1 with *cause.
 */
int
ui_view_open_merged(struct ui *ui, const char *title, const int *ids, int n,
    char **cause)
{
	struct store	*store = jobtable_store(ui->jt);
	struct ui_pager	*p;

	if (store == NULL) {
		*cause = xstrdup("no output store (logging is off)");
		return -1;
	}
	ui_mode_close_all(ui);
	p = ui_view_push(ui, title, ui_source_new_merge(store_dir(store),
	    ui->jt, ids, n));
	p->flags |= UI_PAGER_LIVE;
	ui_pager_end(p, 1);
	return 0;
}

/*
 * Open a results view on a grep (taken over, failing or not), closing the
 * modes open; the search goes on from the view's timer while the view is
 * on top.  0, or -1 with *cause.
 */
int
ui_view_open_grep(struct ui *ui, struct grep *grep, char **cause)
{
	struct store	*store = jobtable_store(ui->jt);
	struct ui_pager	*p;
	char		*title;

	if (store == NULL) {
		grep_free(grep);
		*cause = xstrdup("no output store (logging is off)");
		return -1;
	}
	ui_mode_close_all(ui);
	title = xprintf("grep %s", grep_pattern(grep));
	p = ui_view_push(ui, title, ui_source_new_grep(grep, store_dir(store),
	    store_deck(store)));
	free(title);
	p->flags |= UI_PAGER_GREPPING;
	ui_pager_arm(p);
	return 0;
}
