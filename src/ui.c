/*
 * ui.c: the front end's top floor: setup, input, focus, the selection,
 * job events and quitting, for one client: the deck makes one struct ui
 * for each attached terminal (server.c), and what is the deck's (the
 * jobs, the size of their terminals, quitting, detaching) is asked of it
 * through struct ui_owner_cbs.  Keys go to the open mode (through ui-mode.c)
 * when there is one, to the selected job's emulator in focus mode, else
 * to the bindings at the prompt (a key runs its command line as a typed
 * !line; the screen's commands come back through ui_client_screen()) and
 * the line editor.  Job events only mark
 * what needs drawing; ui-frame.c draws it when the owner calls ui_draw()
 * from its before-sleep hook.  Every entry from outside enters the
 * client's screen first (ui_term_enter()).  The
 * files below reach this one through struct ui_calls (ui_calls below).
 */
#include <sys/ioctl.h>

#include <ctype.h>
#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bind.h"
#include "browser.h"
#include "cmd.h"
#include "config.h"
#include "debuglog.h"
#include "job.h"
#include "jobfield.h"
#include "jobtable.h"
#include "keys.h"
#include "lineedit.h"
#include "loop.h"
#include "session.h"
#include "stack.h"
#include "textesc.h"
#include "ui-private.h"
#include "vt.h"
#include "xmalloc.h"

#define UI_HISTORY_MAX	1000
/* Bracketed paste, button-event mouse tracking, SGR mouse encoding. */
#define UI_INPUT_MODES_ON	"\033[?2004h\033[?1002h\033[?1006h"
#define UI_INPUT_MODES_OFF	"\033[?1006l\033[?1002l\033[?2004l"

_Static_assert(INPUT_KEY_BASE > KEY_MAX, "input.h key codes above KEY_MAX");

static void	ui_job_started(struct job *, void *);
static void	ui_job_output(struct job *, const char *, size_t, void *);
static void	ui_job_exited(struct job *, void *);
static void	ui_job_queued(struct job *, void *);
static void	ui_job_removed(struct job *, void *);
static void	ui_job_changed(struct job *, void *);
static void	ui_client_message(const char *, void *);
static void	ui_client_error(const char *, void *);
static void	ui_client_show(const char *, char **, int, int, void *);
static void	ui_client_select(struct job *, int, void *);
static void	ui_client_quit(void *);
static int	ui_client_show_merged(const char *, const int *, int, void *,
		    char **);
static int	ui_client_show_run(const char *, const char *, const char *,
		    int64_t, int, void *, char **);
static int	ui_client_grep(struct grep *, void *, char **);
static int	ui_client_paste(struct job *, void *);
static int	ui_client_messages(const struct cmd_msg **, void *);
static void	ui_client_screen(enum bind_action, void *);
static void	ui_browser_changed(struct browser *, void *);
static void	ui_call_message(const char *, int, void *);
static void	ui_call_dirty(int, int, void *);
static void	ui_call_select(struct job *, void *);
static void	ui_call_select_step(int, void *);
static void	ui_call_scroll(int, void *);

static const struct jobtable_cbs ui_jobtable_cbs = {
	.started = ui_job_started,
	.output = ui_job_output,
	.exited = ui_job_exited,
	.queued = ui_job_queued,
	.changed = ui_job_changed,
	.removed = ui_job_removed,
};

static const struct browser_cbs ui_browser_cbs = {
	.changed = ui_browser_changed,
};

/* What the files below this one ask of it (ui-private.h). */
static const struct ui_calls ui_calls = {
	.message = ui_call_message,
	.dirty = ui_call_dirty,
	.select = ui_call_select,
	.select_step = ui_call_select_step,
	.scroll_pane = ui_call_scroll,
};

static const struct cmd_client ui_cmd_client = {
	.message = ui_client_message,
	.error = ui_client_error,
	.show = ui_client_show,
	.select = ui_client_select,
	.quit = ui_client_quit,
	.show_run = ui_client_show_run,
	.show_merged = ui_client_show_merged,
	.grep = ui_client_grep,
	.paste = ui_client_paste,
	.messages = ui_client_messages,
	.screen = ui_client_screen,
};

/* Mark parts of the screen for drawing; urgent ones are drawn this turn. */
static void
ui_dirty(struct ui *ui, int what, int urgent)
{
	ui->flags |= what;
	if (urgent)
		ui->flags |= UI_URGENT;
}

/*
 * Keep a message for !messages: the last UI_MESSAGES_KEPT, a message the
 * same as the last one kept (a warning said again on each output) once.
 */
static void
ui_message_keep(struct ui *ui, const char *msg, int error)
{
	struct ui_msg	*m;
	int		 last;

	last = (ui->msg_next + UI_MESSAGES_KEPT - 1) % UI_MESSAGES_KEPT;
	if (ui->nmsgs > 0 && ui->msgs[last].error == error &&
	    strcmp(ui->msgs[last].text, msg) == 0) {
		ui->msgs[last].time = (int64_t)time(NULL);
		return;
	}
	m = &ui->msgs[ui->msg_next];
	free(m->text);
	m->text = xstrdup(msg);
	m->error = error;
	m->time = (int64_t)time(NULL);
	ui->msg_next = (ui->msg_next + 1) % UI_MESSAGES_KEPT;
	if (ui->nmsgs < UI_MESSAGES_KEPT)
		ui->nmsgs++;
}

/*
 * Set the message line (empty: clear it); error messages are drawn in
 * red.  Every message is kept for !messages.
 */
void
ui_message(struct ui *ui, const char *msg, int error)
{
	snprintf(ui->message, sizeof ui->message, "%s", msg);
	ui->message_error = error;
	if (*msg != '\0')
		ui_message_keep(ui, msg, error);
	ui_dirty(ui, UI_DRAW_PROMPT, 1);
}

/* !messages: the messages kept, newest first; how many. */
static int
ui_client_messages(const struct cmd_msg **msgs, void *arg)
{
	struct ui	*ui = arg;
	struct ui_msg	*m;
	int		 i;

	for (i = 0; i < ui->nmsgs; i++) {
		m = &ui->msgs[(ui->msg_next + UI_MESSAGES_KEPT - 1 - i) %
		    UI_MESSAGES_KEPT];
		ui->msg_view[i].time = m->time;
		ui->msg_view[i].error = m->error;
		ui->msg_view[i].text = m->text;
	}
	*msgs = ui->msg_view;
	return ui->nmsgs;
}

static void	ui_curses_start(struct ui *);
static void	ui_relayout(struct ui *, int);

/*
 * Read the client's terminal size (a new screen when it changed) and lay
 * everything out.
 */
static void
ui_resize(struct ui *ui)
{
	int	rc;

	if ((rc = ui_term_reopen(ui->term)) < 0) {
		ui->owner->detach(ui, UI_DETACH_GONE, ui->owner_arg);
		return;
	}
	ui_relayout(ui, rc);
}

/*
 * Lay everything out at the screen's size and draw all of it, its modes
 * set first when the screen is new.
 */
static void
ui_relayout(struct ui *ui, int new_screen)
{
	if (new_screen) {
		ui_curses_start(ui);
		ui->cursor_shown = 0;
	}
	/* What curses thinks is on the terminal is stale now. */
	clearok(curscr, TRUE);
	ui->rows = getmaxy(stdscr);
	ui->cols = getmaxx(stdscr);
	ui_layout(ui);
	ui_mode_resize(ui);
	ui_dirty(ui, UI_DRAW_ALL, 1);
}

/* The client's terminal changed size (its SIGWINCH, told by the client). */
void
ui_resized(struct ui *ui)
{
	ui_term_enter(ui->term);
	ui_resize(ui);
}

/*
 * Take the settings a client's view reads (clipboard, panel_width, bell):
 * at the start and after a reload, laid out anew once the screen is up.
 */
void
ui_set_settings(struct ui *ui, const struct config_settings *set)
{
	int	width = ui->panel_width;

	ui->clipboard = set->clipboard;
	ui->panel_width = set->panel_width;
	ui->bell = set->bell;
	if (ui->rows > 0 && width != ui->panel_width) {
		ui_term_enter(ui->term);
		ui_layout(ui);
		ui_mode_resize(ui);
		ui_dirty(ui, UI_DRAW_ALL, 1);
	}
}

/* Leave focus mode. */
static void
ui_unfocus(struct ui *ui)
{
	if (!(ui->flags & UI_FOCUSED))
		return;
	/* Urgent while any client (of several) is focused on it. */
	if (ui->selected != NULL && job_focus_count(ui->selected, -1) == 0 &&
	    job_out_fd(ui->selected) != -1)
		loop_set_urgent(ui->loop, job_out_fd(ui->selected), 0);
	ui->flags &= ~(UI_FOCUSED | UI_ECHO);
	ui_dirty(ui, UI_DRAW_ALL, 1);
}

/* Focus the selected job if it can take keys, else say why. */
static void
ui_focus(struct ui *ui)
{
	struct job	*job = ui->selected;
	char		 msg[UI_MESSAGE_MAX];

	if (ui->ctx.read_only) {
		ui_message(ui, "attached read-only (-r): keys do not go to "
		    "jobs", 1);
		return;
	}
	if (job == NULL) {
		ui_message(ui, "no running job to focus: start one first", 1);
		return;
	}
	if (!job_is_running(job)) {
		snprintf(msg, sizeof msg, "no running job to focus: [%d] has "
		    "ended", job_id(job));
		ui_message(ui, msg, 1);
		return;
	}
	if (!job_is_pty(job)) {
		if (job_pty_errno(job) != 0)
			snprintf(msg, sizeof msg, "[%d] has no terminal (%s), so "
			    "it cannot be focused", job_id(job),
			    strerror(job_pty_errno(job)));
		else
			snprintf(msg, sizeof msg, "[%d] has no terminal (it runs "
			    "on pipes), so it cannot be focused", job_id(job));
		ui_message(ui, msg, 1);
		return;
	}
	/* Its echo goes before other jobs' output in every turn. */
	if (!(ui->flags & UI_FOCUSED))
		job_focus_count(job, 1);
	ui->flags |= UI_FOCUSED;
	if (job_out_fd(job) != -1)
		loop_set_urgent(ui->loop, job_out_fd(job), 1);
	ui->scroll = 0;
	ui->message[0] = '\0';
	ui_dirty(ui, UI_DRAW_ALL, 1);
}

/* Select job (NULL: none), leaving focus mode if the selection changes. */
static void
ui_select(struct ui *ui, struct job *job)
{
	if (job != ui->selected) {
		ui_unfocus(ui);
		ui->selected = job;
		ui->scroll = 0;
		ui_panel_notice(ui, job, 0);
	}
	ui_keep_visible(ui);
	if (job != NULL && job_vt(job) != NULL)
		vt_mark_all_dirty(job_vt(job));
	ui_dirty(ui, UI_DRAW_ALL, 1);
}

/* Select the job delta places after (or before) the selected one. */
static void
ui_select_step(struct ui *ui, int delta)
{
	int	n = jobtable_count(ui->jt), i;

	if (n == 0)
		return;
	i = ui_job_index(ui, ui->selected);
	i = i < 0 ? 0 : (i + delta + n) % n;
	ui_select(ui, jobtable_get(ui->jt, i));
}

/*
 * Open the run a reader of the selected job's output reads in the store
 * in the text view at line; returns whether it did (no fd left, say: it
 * did not).
 */
static int
ui_scroll_log(struct ui *ui, struct job_reader *r, int64_t line)
{
	struct job	*job = ui->selected;
	const char	*dir, *run;
	char		*title, *label, *cause = NULL;
	int		 rc;

	run = job_reader_run(r, &dir);
	label = jobfield_label(job, 0);
	title = xprintf("Logs [%d] %s (scrolled back)", job_id(job), label);
	free(label);
	rc = ui_view_open_run(ui, title, dir, run, line, 0, &cause);
	free(title);
	free(cause);
	return rc == 0;
}

/*
 * Scrolling back past the emulator's ring goes on in the store: the
 * job's log opens in the text view a page above the ring's first line.
 * Returns whether it did.
 */
static int
ui_scroll_store(struct ui *ui, struct vt *vt)
{
	struct job_reader	*r;
	int64_t			 total, ring, line;
	int			 rc = 0;

	r = job_reader_open(ui->selected, JOB_READER_SCREEN, NULL);
	if (job_reader_source(r) == JOB_SOURCE_STORE &&
	    (total = job_reader_count(r)) > 0) {
		ring = vt_scrollback_count(vt) + vt_rows(vt);
		line = total - ring - ui->pane.h;
		/* Not when the ring holds it all. */
		if (line >= 0 || total > ring)
			rc = ui_scroll_log(ui, r, line > 0 ? line : 0);
	}
	job_reader_close(r);
	return rc;
}

/* Scroll the selected job's pane back (positive) or forward. */
static void
ui_scroll(struct ui *ui, int delta)
{
	struct vt	*vt;
	int		 max;

	if (ui->selected == NULL || (vt = job_vt(ui->selected)) == NULL)
		return;
	max = vt_altscreen(vt) ? 0 : vt_scrollback_count(vt);
	if (delta > 0 && max > 0 && ui->scroll == max &&
	    ui_scroll_store(ui, vt))
		return;
	ui->scroll_base = vt_scrollback_count(vt);
	ui->scroll += delta;
	if (ui->scroll > max)
		ui->scroll = max;
	if (ui->scroll < 0)
		ui->scroll = 0;
	vt_mark_all_dirty(vt);
	ui_dirty(ui, UI_DRAW_PANE, 1);
}

/*
 * Keep a scrolled-back view on the same lines while new ones are pushed
 * into the scrollback (until the ring is full and starts dropping them).
 */
static void
ui_follow_scrollback(struct ui *ui, struct vt *vt)
{
	int	count;

	if (vt == NULL)
		return;
	count = vt_scrollback_count(vt);
	if (count == ui->scroll_base)
		return;
	if (count > ui->scroll_base)
		ui->scroll += count - ui->scroll_base;
	ui->scroll_base = count;
	if (ui->scroll > count)
		ui->scroll = count;
	if (vt_altscreen(vt))
		ui->scroll = 0;
	vt_mark_all_dirty(vt);
}

/* Run the typed line. */
static void
ui_submit(struct ui *ui)
{
	const wchar_t	*text;
	char		*line;
	size_t		 len;

	text = lineedit_text(ui->edit, &len);
	if (ui_paste_refuse(ui, text, len))
		return;
	line = lineedit_take(ui->edit);
	ui->message[0] = '\0';
	ui_dirty(ui, UI_DRAW_PROMPT, 1);
	cmd_run_line(&ui->ctx, line);
	free(line);
}

/* Return the lines a page of the pane scrolls. */
static int
ui_scroll_page(const struct ui *ui)
{
	return ui->pane.h > 4 ? ui->pane.h - 3 : 1;
}

/*
 * Scroll the pane to the oldest line of the ring, or, when the store
 * holds more than the ring, open the job's log at its first line.
 */
static void
ui_scroll_top(struct ui *ui)
{
	struct job		*job = ui->selected;
	struct job_reader	*r;
	struct vt		*vt;
	int			 done;

	if (job == NULL || (vt = job_vt(job)) == NULL)
		return;
	r = job_reader_open(job, JOB_READER_SCREEN, NULL);
	done = job_reader_source(r) == JOB_SOURCE_STORE &&
	    job_reader_count(r) > vt_scrollback_count(vt) + vt_rows(vt) &&
	    ui_scroll_log(ui, r, 0);
	job_reader_close(r);
	if (!done)
		ui_scroll(ui, vt_scrollback_count(vt) - ui->scroll);
}

/*
 * Send a key (as wget_wch() read it) to the focused job's emulator and
 * wait a moment for its echo.
 */
static void
ui_send_key(struct ui *ui, int rc, wint_t k)
{
	struct keys_event	 ev;
	struct job		*job = ui->selected;

	if (!keys_translate(ui->keys, rc, k, &ev))
		return;
	if (ui->scroll != 0) {
		ui->scroll = 0;
		vt_mark_all_dirty(job_vt_get(job));
		ui_dirty(ui, UI_DRAW_PANE, 1);
	}
	/* The jobs' terminals follow the client that typed last. */
	ui->owner->sized(ui, 0, ui->owner_arg);
	keys_send(job_vt_get(job), &ev);
	jobtable_update(ui->jt, job);
	/*
	 * Nothing to draw until the child answers: its echo is drawn at once,
	 * and for a moment only the keyboard and this job are polled, so the
	 * answer is not read behind another job's flood.
	 */
	ui->flags |= UI_ECHO;
	loop_await_urgent(ui->loop, UI_ECHO_WAIT_MS);
}

/*
 * The focus key at the prompt: focus the selected job; pressed again
 * within UI_FOCUS_TWICE_MS of leaving focus with it (no key between),
 * refocus the same job and send it the key.
 */
static void
ui_focus_pressed(struct ui *ui, int rc, wint_t k, int64_t left)
{
	if (left != 0 && loop_now_ms() - left <= UI_FOCUS_TWICE_MS &&
	    ui->selected != NULL && job_id(ui->selected) == ui->left_job) {
		ui_focus(ui);
		if ((ui->flags & UI_FOCUSED) && job_is_running(ui->selected))
			ui_send_key(ui, rc, k);
		return;
	}
	ui_focus(ui);
}

/*
 * A key's action at the prompt, asked by its command (cmd-screen.c,
 * !focus without a job): focus (by the focus key: ui_focus_pressed()),
 * select, redraw, scroll, zoom, copy mode.
 */
static void
ui_client_screen(enum bind_action action, void *arg)
{
	struct ui	*ui = arg;

	switch (action) {
	case BIND_FOCUS:
		if (ui->key.on)
			ui_focus_pressed(ui, ui->key.rc, ui->key.k,
			    ui->key.left);
		else
			ui_focus(ui);
		break;
	case BIND_NEXT_JOB:
		ui_select_step(ui, 1);
		break;
	case BIND_PREV_JOB:
		ui_select_step(ui, -1);
		break;
	case BIND_REDRAW:
		clearok(curscr, TRUE);
		ui_dirty(ui, UI_DRAW_ALL, 1);
		break;
	case BIND_SCROLL_UP:
		ui_scroll(ui, ui_scroll_page(ui));
		break;
	case BIND_SCROLL_DOWN:
		ui_scroll(ui, -ui_scroll_page(ui));
		break;
	case BIND_SCROLL_TOP:
		ui_scroll_top(ui);
		break;
	case BIND_SCROLL_BOTTOM:
		ui_scroll(ui, -ui->scroll);
		break;
	case BIND_ZOOM:
		ui_zoom(ui);
		break;
	case BIND_COPY_MODE:
		ui_copy_enter(ui, 0);
		break;
	case BIND_DETACH:
		ui->owner->detach(ui, UI_DETACH_ASKED, ui->owner_arg);
		break;
	case BIND_SEARCH_PANE:
		ui_copy_enter(ui, 1);
		break;
	default:
		break;
	}
}

/*
 * Run the command line a key of the prompt is bound to (bind.h) as a
 * typed !line, the key kept for the focus key's second press.
 */
static void
ui_key_command(struct ui *ui, const char *line, int rc, wint_t k,
    int64_t left)
{
	ui->key.on = 1;
	ui->key.rc = rc;
	ui->key.k = k;
	ui->key.left = left;
	cmd_run_words(&ui->ctx, line);
	ui->key.on = 0;
}

/*
 * Run an action of BIND_EDIT on the typed line; delete (Ctrl+D) on an
 * empty line, which leaves a shell, says how to leave jobdeck instead.
 */
static void
ui_edit_action(struct ui *ui, enum bind_action action)
{
	size_t	len;
	char	*hint;
	int	edit;

	if (action == BIND_SUBMIT) {
		ui_submit(ui);
		return;
	}
	lineedit_text(ui->edit, &len);
	if (action == BIND_EDIT_DELETE && len == 0) {
		hint = cmd_leave_hint();
		ui_message(ui, hint, 0);
		free(hint);
		return;
	}
	if ((edit = ui_edit_translate(action)) >= 0)
		lineedit_do(ui->edit, (enum lineedit_action)edit);
}

/*
 * Handle a key at the prompt: the main mode's bindings, then the line
 * editor's, then typed text.
 */
static void
ui_prompt_key(struct ui *ui, int rc, wint_t k)
{
	enum bind_action	 action;
	const char		*line;
	int			 code;
	int64_t			 left = ui->left_focus;

	ui->left_focus = 0;	/* any key ends the double press */
	ui_dirty(ui, UI_DRAW_PROMPT, 1);
	code = bind_key_code(rc, (unsigned int)k);
	if ((line = bind_command(ui->bind, BIND_MAIN, code)) != NULL) {
		ui_key_command(ui, line, rc, k, left);
		return;
	}
	if ((action = bind_lookup(ui->bind, BIND_EDIT, code)) != BIND_NONE) {
		ui_edit_action(ui, action);
		return;
	}
	if (rc == OK && k >= 0x20 && k != 0x7f)
		lineedit_insert(ui->edit, (wchar_t)k);
}

/*
 * Handle a key in focus mode: everything but the focus key goes to the
 * job; the focus key leaves focus at once, and remembers when, for a
 * second press (ui_focus_pressed()).
 */
static void
ui_focus_key(struct ui *ui, int rc, wint_t k)
{
	struct job	*job = ui->selected;

	if (rc == OK && bind_lookup(ui->bind, BIND_MAIN,
	    bind_key_code(rc, (unsigned int)k)) == BIND_FOCUS) {
		ui_unfocus(ui);
		if (job != NULL) {
			ui->left_focus = loop_now_ms();
			ui->left_job = job_id(job);
		}
		return;
	}
	if (job == NULL || !job_is_running(job)) {
		ui_unfocus(ui);
		return;
	}
	ui_send_key(ui, rc, k);
}

/* Handle a paste or a mouse report, unless quitting. */
static void
ui_input_event(struct ui *ui, const struct input_event *ev)
{
	if (ui->flags & UI_QUITTING)
		return;
	if (ev->kind == INPUT_PASTE)
		ui_paste(ui, ev);
	else if (ev->kind == INPUT_MOUSE)
		ui_mouse_event(ui, &ev->mouse);
}

/* The terminal was quiet with a paste or a report open: close it. */
static void
ui_input_quiet_cb(void *arg)
{
	struct ui		*ui = arg;
	struct input_event	 ev;

	ui->input_timer = 0;
	input_flush(ui->input, &ev);
	ui_input_event(ui, &ev);
}

/* Read every key waiting on stdin. */
static void
ui_stdin_cb(int fd, short revents, void *arg)
{
	struct ui		*ui = arg;
	struct input_event	 ev;
	wint_t			 k;
	int			 rc, n = 0;

	(void)fd;
	ui_term_enter(ui->term);
	while ((rc = wget_wch(stdscr, &k)) != ERR) {
		n++;
		if (rc == KEY_CODE_YES && k == KEY_RESIZE) {
			ui_resize(ui);
			continue;
		}
		/* Pastes and mouse reports come out of the key stream. */
		if (input_feed(ui->input, rc == KEY_CODE_YES, rc == KEY_CODE_YES &&
		    k == KEY_ENTER ? INPUT_ENTER : (uint32_t)k, &ev) != INPUT_KEY) {
			ui_input_event(ui, &ev);
			continue;
		}
		if (ui->flags & UI_QUITTING)
			continue;
		if (ui_mode_key(ui, rc, (unsigned int)k))
			continue;
		if (ui->flags & UI_FOCUSED)
			ui_focus_key(ui, rc, k);
		else
			ui_prompt_key(ui, rc, k);
	}
	if (ui->input_timer != 0)
		loop_cancel_timer(ui->loop, ui->input_timer);
	ui->input_timer = input_busy(ui->input) ? loop_add_timer(ui->loop,
	    INPUT_QUIET_MS, ui_input_quiet_cb, ui) : 0;
	if (n == 0 && (revents & (POLLHUP | POLLERR | POLLNVAL))) {
		/* The terminal is gone: the client is detached. */
		loop_unwatch_fd(ui->loop, ui_term_in_fd(ui->term));
		ui->owner->detach(ui, UI_DETACH_GONE, ui->owner_arg);
	}
}

/* Tick the durations in the panel while any job runs. */
static void
ui_tick_cb(void *arg)
{
	struct ui	*ui = arg;

	ui->tick_timer = 0;
	if (ui->flags & UI_PANEL_LAZY)
		ui_dirty(ui, UI_DRAW_PANEL, 0);
	if (jobtable_running(ui->jt) == 0)
		return;
	ui_dirty(ui, UI_DRAW_PANEL, 0);
	ui->tick_timer = loop_add_timer(ui->loop, UI_TICK_MS, ui_tick_cb, ui);
}

/* A frame timer expired: the next hook will draw. */
static void
ui_frame_cb(void *arg)
{
	struct ui	*ui = arg;

	ui->frame_timer = 0;
}

/*
 * Draw what changed, now or at the next frame, and write it to the
 * client's terminal; the owner's before-sleep hook calls it.  A terminal
 * behind by more than UI_TERM_BACKLOG is drawn nothing until it drains.
 */
void
ui_draw(struct ui *ui)
{
	int64_t		 now, wait;
	int		 urgent, keep = 0, what;

	if (ui->flags & UI_ENDED)
		return;
	if (!(ui->flags & UI_DRAW_MASK) || ui_term_busy(ui->term))
		return;
	now = loop_now_ms();
	wait = ui->last_draw + UI_FRAME_MS - now;
	/*
	 * Only a flood waits for the next frame: output right after a
	 * keystroke's draw (the echo) is drawn at once.
	 */
	if (!(ui->flags & UI_URGENT) && ui->last_draw_paced && wait > 0) {
		if (ui->frame_timer == 0) {
			ui->frame_timer = loop_add_timer(ui->loop, wait,
			    ui_frame_cb, ui);
			debuglog("draw: paced, next frame in %lld ms",
			    (long long)wait);
		}
		return;
	}
	urgent = ui->flags & UI_URGENT;
	if (urgent && (ui->flags & UI_PANEL_STALE) &&
	    !(ui->flags & (UI_DRAW_ALL | UI_DRAW_PANEL))) {
		/* The panel's last lines can wait for the next frame. */
		keep = UI_PANEL_STALE;
		if (ui->frame_timer == 0)
			ui->frame_timer = loop_add_timer(ui->loop, UI_FRAME_MS,
			    ui_frame_cb, ui);
	} else if (ui->flags & UI_PANEL_STALE)
		ui->flags |= UI_DRAW_PANEL;
	ui->last_draw_paced = !urgent;
	what = ui->flags;
	ui_term_enter(ui->term);
	ui_frame_draw(ui);
	if (debuglog_enabled())
		debuglog("draw:%s%s%s%s %s, %lld ms after the last",
		    (what & UI_DRAW_ALL) ? " all" : "",
		    (what & UI_DRAW_PANEL) ? " panel" : "",
		    (what & UI_DRAW_PANE) ? " pane" : "",
		    (what & UI_DRAW_PROMPT) ? " prompt" : "",
		    urgent ? "urgent" : "paced",
		    (long long)(now - ui->last_draw));
	ui->last_draw = now;
	if (what & (UI_DRAW_ALL | UI_DRAW_PANEL))
		ui->flags &= ~UI_PANEL_LAZY;
	ui->flags &= ~(UI_URGENT | UI_DRAW_MASK);
	ui->flags |= keep;
	if (ui_term_flush(ui->term) != 0)
		ui->owner->detach(ui, UI_DETACH_GONE, ui->owner_arg);
}

/* A job started: show it, select it if it was typed, tick durations. */
static void
ui_job_started(struct job *job, void *arg)
{
	struct ui	*ui = arg;
	char		 msg[256];

	/* No pty to be had (all in use, or none): it runs on pipes. */
	if (job_pty_errno(job) != 0) {
		snprintf(msg, sizeof msg, "[%d] has no terminal (%s): it runs "
		    "on pipes", job_id(job), job_pty_errno(job) == ENOSPC ?
		    "all pseudo-terminals in use" : strerror(job_pty_errno(job)));
		ui_message(ui, msg, 1);
	}
	if (ui->tick_timer == 0)
		ui->tick_timer = loop_add_timer(ui->loop, UI_TICK_MS,
		    ui_tick_cb, ui);
	if (ui->selected == NULL)
		ui_select(ui, job);
	ui_dirty(ui, UI_DRAW_PANEL, 1);
}

/*
 * Tell, once, that the job's output is not (or no longer) logged: a full
 * disk or a missing log directory; the job goes on, unlogged.
 */
static void
ui_log_warning(struct ui *ui, struct job *job)
{
	const char	*why, *reason;
	char		 msg[512];

	if ((why = job_log_warning(job)) == NULL)
		return;
	/* The reason first, so a narrow line still shows it. */
	reason = strrchr(why, ':');
	reason = reason != NULL && reason[1] == ' ' ? reason + 2 : why;
	snprintf(msg, sizeof msg, "[%d] is not logged: %s (%.*s)",
	    job_id(job), reason, (int)(reason == why ? 0 :
	    reason - why - 2), why);
	ui_message(ui, msg, 1);
}

/*
 * A job printed: redraw its pane if it is shown; the panel's last line at
 * the next frame, or for the selected job (its pane shows it) at the tick.
 * Not urgent, so a flood draws at the frame rate while a lone change after
 * a quiet spell is drawn at once (the hook only waits within a frame).
 */
static void
ui_job_output(struct job *job, const char *buf, size_t len, void *arg)
{
	struct ui	*ui = arg;

	(void)buf;
	(void)len;
	if (job == ui->selected) {
		/* The focused job's answer to a key is drawn at once. */
		if (ui->flags & UI_ECHO) {
			ui->flags &= ~UI_ECHO;
			ui_dirty(ui, UI_DRAW_PANE, 1);
			loop_yield(ui->loop);
		} else
			ui_dirty(ui, UI_DRAW_PANE, 0);
		if (ui->scroll != 0)
			ui_follow_scrollback(ui, job_vt(job));
		/*
		 * The pane shows this output as it comes; the same job's last
		 * line in the panel waits for the tick, so an echoed key
		 * draws only itself.
		 */
		ui->flags |= UI_PANEL_LAZY;
		if (ui->tick_timer == 0)
			ui->tick_timer = loop_add_timer(ui->loop, UI_TICK_MS,
			    ui_tick_cb, ui);
	} else
		ui_dirty(ui, UI_PANEL_STALE, 0);
	ui_log_warning(ui, job);
}

/*
 * Tell of a job that failed, ran out of time by itself or was blocked (a
 * dependency failed): a line on the
 * message row, a mark on its entry until it is selected (unless it is
 * the one shown), and the bell when the config asks for it.
 */
static void
ui_notice_failure(struct ui *ui, struct job *job)
{
	char	how[256], msg[UI_MESSAGE_MAX], *label, *cut;

	if (job_state(job) != JOB_FAILED && job_state(job) != JOB_TIMED_OUT &&
	    job_state(job) != JOB_BLOCKED)
		return;
	job_describe_end(job, how, sizeof how);
	how[0] = (char)tolower((unsigned char)how[0]);
	label = jobfield_label(job, 1);
	/* The label is cut, never the end: how it ended. */
	cut = textesc_excerpt(label, strlen(label), 300);
	if (job_state(job) == JOB_BLOCKED) {
		/* Its reason may hold a browser's words: escaped. */
		free(label);
		label = textesc_excerpt(how, strlen(how), 200);
		snprintf(msg, sizeof msg, "[%d] %s %s", job_id(job), cut,
		    label);
	} else
		snprintf(msg, sizeof msg, "[%d] %s %s (%s)", job_id(job), cut,
		    job_state(job) == JOB_FAILED ? "failed" : "timed out",
		    how);
	free(cut);
	free(label);
	ui_message(ui, msg, 1);
	if (job != ui->selected)
		ui_panel_notice(ui, job, 1);
	if (ui->bell) {
		ui_term_enter(ui->term);
		beep();
	}
}

/*
 * While jobs are being stopped (quitting, or !kill-all said "stopping N
 * jobs"), say how many still run (ended: one more just did); once none
 * does, how many were killed, or nothing when quitting.
 */
static void
ui_stop_progress(struct ui *ui, int ended)
{
	char	msg[64];
	int	i, n = jobtable_count(ui->jt), left = 0;

	for (i = 0; i < n; i++)
		left += job_is_running(jobtable_get(ui->jt, i));
	if (ui->stopping == 0)
		ui->stopped = 0;	/* a new round */
	ui->stopped += ended;
	ui->stopping = left;
	if (left > 0)
		snprintf(msg, sizeof msg, "stopping %d job%s…", left,
		    left == 1 ? "" : "s");
	else if (!(ui->flags & UI_QUITTING))
		snprintf(msg, sizeof msg, "killed %d job%s", ui->stopped,
		    ui->stopped == 1 ? "" : "s");
	else
		msg[0] = '\0';
	ui_message(ui, msg, 0);
}

/* A job ended: give the prompt back if it was focused; tell of a failure. */
static void
ui_job_exited(struct job *job, void *arg)
{
	struct ui	*ui = arg;

	if (job == ui->selected && (ui->flags & UI_FOCUSED))
		ui_unfocus(ui);
	if (!(ui->flags & UI_QUITTING)) {
		ui_log_warning(ui, job);	/* its end may have failed */
		ui_notice_failure(ui, job);
	}
	if ((ui->flags & UI_QUITTING) ||
	    strncmp(ui->message, "stopping ", 9) == 0)
		ui_stop_progress(ui, 1);
	ui_dirty(ui, UI_DRAW_PANEL | UI_DRAW_PANE, 1);
}

/* A job waits for a free slot: show it as queued. */
static void
ui_job_queued(struct job *job, void *arg)
{
	struct ui	*ui = arg;

	if (ui->selected == NULL)
		ui_select(ui, job);
	ui_dirty(ui, UI_DRAW_PANEL | UI_DRAW_PANE, 1);
}

/* A job stopped or continued: redraw its entry. */
static void
ui_job_changed(struct job *job, void *arg)
{
	struct ui	*ui = arg;

	(void)job;
	ui_dirty(ui, UI_DRAW_PANEL, 1);
}

/* The browser changed: its panel row is drawn again at once. */
static void
ui_browser_changed(struct browser *b, void *arg)
{
	struct ui	*ui = arg;

	(void)b;
	ui_dirty(ui, UI_DRAW_PANEL, 1);
}

/* A finished job leaves the table: select a neighbour if it was shown. */
static void
ui_job_removed(struct job *job, void *arg)
{
	struct ui	*ui = arg;
	int		 i, n = jobtable_count(ui->jt);

	ui_panel_notice(ui, job, 0);
	if (job == ui->selected) {
		i = ui_job_index(ui, job);
		ui->selected = NULL;
		ui_select(ui, i + 1 < n ? jobtable_get(ui->jt, i + 1) :
		    jobtable_get(ui->jt, i - 1));
	}
	ui_dirty(ui, UI_DRAW_ALL, 1);
}

/* Show a command's message. */
static void
ui_client_message(const char *msg, void *arg)
{
	ui_message(arg, msg, 0);
}

/* Show a command's error. */
static void
ui_client_error(const char *msg, void *arg)
{
	ui_message(arg, msg, 1);
}

/* Show a command's text in the text view; !ps's stays live. */
static void
ui_client_show(const char *title, char **lines, int count, int header,
    void *arg)
{
	struct ui	*ui = arg;

	if (ui_view_set_lines(ui, lines, count, header))
		return;
	ui_view_open(ui, title, lines, count, header, ui->ctx.entry != NULL &&
	    strcmp(ui->ctx.entry->name, "ps") == 0 ? "!ps" : NULL);
}

/*
 * Show a run of the output store in the text view, at line (-1: the
 * end); 0, or -1 with *cause when it cannot be read.
 */
static int
ui_client_show_run(const char *title, const char *dir, const char *run,
    int64_t line, int live, void *arg, char **cause)
{
	return ui_view_open_run(arg, title, dir, run, line, live, cause);
}

/* Show the logs of several jobs merged, in the text view. */
static int
ui_client_show_merged(const char *title, const int *ids, int n, void *arg,
    char **cause)
{
	return ui_view_open_merged(arg, title, ids, n, cause);
}

/* Show a search's results as they come, in the text view. */
static int
ui_client_grep(struct grep *grep, void *arg, char **cause)
{
	return ui_view_open_grep(arg, grep, cause);
}

/* !paste: the paste buffer to job (NULL: the selected one). */
static int
ui_client_paste(struct job *job, void *arg)
{
	struct ui	*ui = arg;

	return ui_clip_paste(ui, job != NULL ? job : ui->selected);
}

/* Select (and maybe focus) a job a command named. */
static void
ui_client_select(struct job *job, int focus, void *arg)
{
	struct ui	*ui = arg;

	ui_select(ui, job);
	if (focus)
		ui_focus(ui);
}

/* Select a job and give it the keyboard (`jobdeck ctl focus`). */
void
ui_focus_job(struct ui *ui, struct job *job)
{
	if (ui->flags & UI_QUITTING)
		return;
	ui_term_enter(ui->term);
	ui_mode_close_all(ui);
	ui_client_select(job, 1, ui);
}

/* !quit: the owner stops every job and ends the deck. */
static void
ui_client_quit(void *arg)
{
	struct ui	*ui = arg;

	ui->owner->quit(ui, ui->owner_arg);
}

/*
 * The deck is quitting (its owner stops every job): keys are ignored
 * from now on and the screen says how many jobs are still stopping.
 */
void
ui_quitting(struct ui *ui)
{
	if (ui->flags & UI_QUITTING)
		return;
	ui_term_enter(ui->term);
	ui->flags |= UI_QUITTING;
	ui_unfocus(ui);
	ui_mode_close_all(ui);
	ui_stop_progress(ui, 0);
}

/* A lower file's message: set the message line. */
static void
ui_call_message(const char *msg, int error, void *arg)
{
	ui_message(arg, msg, error);
}

/* A lower file's redraw: mark parts for drawing. */
static void
ui_call_dirty(int what, int urgent, void *arg)
{
	ui_dirty(arg, what, urgent);
}

/* A lower file's selection (a click in the panel). */
static void
ui_call_select(struct job *job, void *arg)
{
	ui_select(arg, job);
}

/* A lower file's step of the selection (the wheel over the panel). */
static void
ui_call_select_step(int delta, void *arg)
{
	ui_select_step(arg, delta);
}

/* A lower file's scroll of the pane (the wheel over it). */
static void
ui_call_scroll(int delta, void *arg)
{
	ui_scroll(arg, delta);
}

/*
 * Set a new screen's modes: keys without delay, and the prefixes of
 * pastes and mouse reports as key codes of input.h (instead of curses'
 * own mouse handling).
 */
static void
ui_curses_start(struct ui *ui)
{
	(void)ui;
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	/* Never hold a frame back to look for typed-ahead keys first. */
	typeahead(-1);
	define_key(NULL, KEY_MOUSE);
	define_key("\033[200~", INPUT_KEY_PASTE_START);
	define_key("\033[201~", INPUT_KEY_PASTE_END);
	define_key("\033[<", INPUT_KEY_MOUSE);
}

/*
 * Ask the outer terminal for bracketed pastes and SGR mouse reports of
 * presses, releases, drags and the wheel (ui_curses_start() teaches
 * curses their prefixes as key codes of input.h).
 */
static void
ui_input_start(struct ui *ui)
{
	ui_term_write(ui->term, UI_INPUT_MODES_ON, strlen(UI_INPUT_MODES_ON));
}

/* What a client's terminal tells: it took bytes, or failed (gone). */
static void
ui_term_written_cb(int error, void *arg)
{
	struct ui	*ui = arg;

	if (error != 0)
		ui->owner->detach(ui, UI_DETACH_GONE, ui->owner_arg);
	else if (!ui_term_busy(ui->term) && (ui->flags & UI_DRAW_MASK))
		loop_yield(ui->loop);	/* held frames may go now */
}

/*
 * A client's screen was made anew (another client left or resized, see
 * ui-term.c): its modes set again, laid out, all of it drawn.
 */
static void
ui_term_rebuilt_cb(void *arg)
{
	ui_relayout(arg, 1);
}

/* A client's terminal took nothing for UI_TERM_STALL_MS: let it go. */
static void
ui_term_stalled_cb(void *arg)
{
	struct ui	*ui = arg;

	ui->owner->detach(ui, UI_DETACH_STALLED, ui->owner_arg);
}

static const struct ui_term_cbs ui_term_cbs = {
	.written = ui_term_written_cb,
	.stalled = ui_term_stalled_cb,
	.rebuilt = ui_term_rebuilt_cb,
};

/*
 * Start the front end of a client on its terminal (the fds are taken,
 * closed on failure too); NULL with *cause on failure.
 */
struct ui *
ui_new(struct loop *loop, struct jobtable *jt, struct session *session,
    const struct ui_opts *opts, const struct ui_client *client, char **cause)
{
	struct ui		*ui;
	struct ui_term_spec	 spec;
	int			 n;

	ui = xcalloc(1, sizeof *ui);
	ui->calls = &ui_calls;
	ui->calls_arg = ui;
	ui->owner = opts->owner;
	ui->owner_arg = opts->owner_arg;
	ui->loop = loop;
	ui->jt = jt;
	ui->session = session;
	ui->ctx.jt = jt;
	ui->ctx.session = session;
	ui->ctx.client = &ui_cmd_client;
	ui->ctx.arg = ui;
	ui->ctx.stack = opts->stack;
	ui->ctx.browser = opts->browser;
	ui->ctx.sessionsh = opts->sessionsh;
	ui->ctx.deck = opts->deck;
	ui->ctx.read_only = client->read_only;
	ui->browser = opts->browser;
	ui->bind = opts->bind;
	ui->clipboard = 1;
	if (opts->config != NULL)
		ui_set_settings(ui, &opts->config->settings);
	ui->ctx.bind = ui->bind;

	memset(&spec, 0, sizeof spec);
	spec.in_fd = client->in_fd;
	spec.out_fd = client->out_fd;
	spec.term = client->term;
	spec.colorterm = client->colorterm;
	spec.ctype = client->ctype;
	if ((ui->term = ui_term_open(loop, &spec, &ui_term_cbs, ui,
	    cause)) == NULL) {
		free(ui);
		return NULL;
	}
	ui->input = input_new();
	ui_curses_start(ui);
	ui_input_start(ui);
	ui->keys = keys_new();
	ui->edit = lineedit_new(UI_HISTORY_MAX);
	ui_resize(ui);
	if ((ui->jt_handle = jobtable_subscribe(jt, &ui_jobtable_cbs,
	    ui)) == -1) {
		*cause = xstrdup("the deck has no room for another client");
		ui->jt_handle = -2;	/* nothing to unsubscribe */
		ui_free(ui);
		return NULL;
	}
	if (ui->browser != NULL)
		browser_subscribe(ui->browser, &ui_browser_cbs, ui);
	loop_watch_fd(loop, ui_term_in_fd(ui->term), POLLIN, ui_stdin_cb, ui);
	loop_set_urgent(loop, ui_term_in_fd(ui->term), 1);
	/* The newest job is shown, as after the stack started. */
	if ((n = jobtable_count(jt)) > 0)
		ui_select(ui, jobtable_get(jt, n - 1));
	if (jobtable_running(jt) > 0)
		ui->tick_timer = loop_add_timer(loop, UI_TICK_MS, ui_tick_cb,
		    ui);
	ui_dirty(ui, UI_DRAW_ALL, 1);
	return ui;
}

/*
 * Give the client's terminal back to its shell (curses ended, the input
 * modes off), as a detach or a suspend does; keys are no longer read.
 */
void
ui_end(struct ui *ui)
{
	if (ui->flags & UI_ENDED)
		return;
	ui->flags |= UI_ENDED;
	loop_unwatch_fd(ui->loop, ui_term_in_fd(ui->term));
	ui_term_end(ui->term, UI_INPUT_MODES_OFF);
}

/* Take the client's terminal again after ui_end() (it resumed). */
void
ui_resume(struct ui *ui)
{
	if (!(ui->flags & UI_ENDED))
		return;
	ui->flags &= ~UI_ENDED;
	ui_term_resume(ui->term);
	ui_input_start(ui);
	loop_watch_fd(ui->loop, ui_term_in_fd(ui->term), POLLIN, ui_stdin_cb,
	    ui);
	loop_set_urgent(ui->loop, ui_term_in_fd(ui->term), 1);
	ui_resize(ui);
}

/* Return the bytes still to be written to the client's terminal. */
size_t
ui_pending(const struct ui *ui)
{
	return ui_term_pending(ui->term);
}

/* Return the size the pane gives a job's terminal. */
void
ui_pane_size(const struct ui *ui, int *rows, int *cols)
{
	*rows = ui->pane.h - 2;
	*cols = ui->pane.w - 2;
}

/* Free a client's front end: its terminal given back, if not yet. */
void
ui_free(struct ui *ui)
{
	int	i;

	if (ui == NULL)
		return;
	if (!(ui->flags & UI_ENDED))
		loop_unwatch_fd(ui->loop, ui_term_in_fd(ui->term));
	if (ui->tick_timer != 0)
		loop_cancel_timer(ui->loop, ui->tick_timer);
	if (ui->frame_timer != 0)
		loop_cancel_timer(ui->loop, ui->frame_timer);
	jobtable_unsubscribe(ui->jt, ui->jt_handle);
	/* Its lines still waiting for the session shell tell it nothing. */
	cmd_later_disown(ui);
	if (ui->browser != NULL)
		browser_unsubscribe(ui->browser, ui);
	ui_term_enter(ui->term);
	ui_mode_close_all(ui);
	if (ui->input_timer != 0)
		loop_cancel_timer(ui->loop, ui->input_timer);
	if (ui->flags & UI_FOCUSED)
		ui_unfocus(ui);
	input_free(ui->input);
	ui_term_free(ui->term);
	keys_free(ui->keys);
	lineedit_free(ui->edit);
	for (i = 0; i < UI_MESSAGES_KEPT; i++)
		free(ui->msgs[i].text);
	free(ui->clip);
	free(ui->notices);
	free(ui);
}
