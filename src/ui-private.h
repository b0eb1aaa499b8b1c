/*
 * ui-private.h: the state shared by the front end's files, and their
 * floors from the ground up.  A file calls only files on the floors
 * below its own; what a lower file asks of ui.c (a message, a redraw, a
 * selection, a scroll) goes through struct ui_calls, which ui.c fills in.
 *
 *   primitives  ui-colour.c: colours and pairs; ui-draw.c: a shown
 *               character's columns, text, boxes, lines, marked spans,
 *               an emulator's cells (nothing above the colours);
 *               ui-edit.c: a typed line under the bindings; ui-source.c:
 *               where a text view's lines come from
 *   parts       ui-mode.c: the mode interface (struct ui_mode), the
 *               stack of open modes and the one way to reach them;
 *               ui-clip.c: the paste buffer and the outer terminal's
 *               clipboard; ui-panel.c: the panel of jobs, the layout,
 *               zoom; ui-pane.c: the selected job's terminal
 *   modes       ui-pager.c and ui-pager-draw.c: the text view the modes
 *               are built on; ui-view.c: view mode (the whole screen);
 *               ui-copy.c: copy mode (the pane)
 *   input       ui-mouse.c: mouse reports; ui-paste.c: pastes
 *   composer    ui-frame.c: what is drawn where, once a turn
 *   top         ui.c: setup, keys, focus, selection, job events, quitting
 *
 * Not a public header: nothing outside ui*.c includes it.
 */
#ifndef JOBDECK_UI_PRIVATE_H
#define JOBDECK_UI_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include <curses.h>

#include "bind.h"
#include "cmd.h"
#include "input.h"
#include "ui.h"

struct job;
struct keys;
struct loop;
struct vt;
struct lineedit;

#define UI_FRAME_MS	16	/* at most one frame this often under flood */
#define UI_ECHO_WAIT_MS	2	/* after a key, wait this long for its echo alone */
#define UI_FOCUS_TWICE_MS	500	/* the focus key again this soon: to the job */
#define UI_TICK_MS	1000	/* durations in the panel tick every second */
#define UI_MESSAGE_MAX	512
#define UI_MESSAGES_KEPT	100	/* the messages !messages shows */
#define UI_CLIP_OSC52_MAX	(74 * 1024)	/* bytes sent to the clipboard */
#define UI_PANEL_SIDE_COLS	60	/* narrower: the panel above the pane */
#define UI_PANEL_FULL_COLS	30	/* narrower: a line per job */
#define UI_PANEL_MAX_COLS	48	/* the automatic width's largest */
#define UI_PANEL_MIN_COLS	12	/* a configured width's smallest */
#define UI_PANEL_MIN_ENTRIES	4	/* fewer three-line ones: a line each */
#define UI_PANE_MIN_COLS	20	/* the pane keeps this beside the panel */
#define UI_WHEEL_LINES	3	/* lines a notch of the wheel scrolls */

/* A message shown on the message line, kept for !messages. */
struct ui_msg {
	int64_t		 time;		/* wall seconds */
	int		 error;
	char		*text;
};

/* A rectangle on the screen, borders included. */
struct ui_rect {
	int	y;
	int	x;
	int	h;
	int	w;
};

/*
 * Calls up: what the files below ui.c ask of it, with calls_arg (struct
 * ui's); ui.c fills them in, and nothing below it calls ui.c by name.
 */
struct ui_calls {
	/* Set the message line (error: in red); kept for !messages. */
	void	(*message)(const char *msg, int error, void *arg);
	/* Mark parts (UI_DRAW_*) for drawing; urgent: this turn. */
	void	(*dirty)(int what, int urgent, void *arg);
	/* Select a job (NULL: none), or the one delta places away. */
	void	(*select)(struct job *, void *arg);
	void	(*select_step)(int delta, void *arg);
	/* Scroll the pane back (positive) or forward. */
	void	(*scroll_pane)(int delta, void *arg);
};

/*
 * A mode (ui-mode.c), as tmux's window_mode: while it is open, it has
 * the keys, the mouse and pastes, and draws over the pane (UI_MODE_PANE)
 * or over the whole screen but the bottom line.  draw, key and close are
 * needed; the rest may be NULL (no bottom line of its own, no cursor,
 * input dropped).  close frees the mode's data.
 */
struct ui_mode_entry;
struct ui_mode {
	const char	*name;
	int		 flags;
#define UI_MODE_PANE	0x1	/* drawn in the pane: the panel stays */
	void	(*draw)(struct ui_mode_entry *);
	void	(*draw_bottom)(struct ui_mode_entry *);
	/* Where the terminal cursor goes; 0: hidden. */
	int	(*cursor)(struct ui_mode_entry *, int *y, int *x);
	void	(*key)(struct ui_mode_entry *, int rc, unsigned int key);
	void	(*mouse)(struct ui_mode_entry *, const struct input_mouse *);
	/* A paste as prompt text (input_paste_text()). */
	void	(*paste)(struct ui_mode_entry *, const char *text, size_t len);
	/* The screen was laid out again, or the mode is on top again. */
	void	(*resize)(struct ui_mode_entry *);
	void	(*close)(struct ui_mode_entry *);
};

/* An open mode: what it is, its data, its front end, the mode under it. */
struct ui_mode_entry {
	const struct ui_mode	*mode;
	void			*data;
	struct ui		*ui;
	struct ui_mode_entry	*under;
};

/*
 * Where a text view's lines come from (ui-source.c): an array, a store
 * run, or a grep's results.  Body lines are numbered [first, count).
 */
struct grep;
struct store_line;
struct ui_source;

struct ui_source *ui_source_new_array(char **lines, int count, int header);
struct ui_source *ui_source_new_run(const char *dir, const char *run,
	    char **cause);
struct ui_source *ui_source_new_runs(const char *dir, const char *const *ids,
	    const int *nos, int n, int anchor, char **cause);
struct ui_source *ui_source_new_job(const char *dir, const struct job *,
	    const char *run, char **cause);
int	ui_source_sync_job(struct ui_source *, const struct job *);
int64_t	ui_source_extend(struct ui_source *);
int	ui_source_more(const struct ui_source *);
int	ui_source_add_run(struct ui_source *, const char *id, int no);
int	ui_source_where(const struct ui_source *, int64_t no, int *run,
	    int *last, int64_t *line, int64_t *lines);
struct ui_source *ui_source_new_grep(struct grep *, const char *dir,
	    const char *deck);
void	ui_source_free(struct ui_source *);
int	ui_source_refresh(struct ui_source *);
int64_t	ui_source_first(const struct ui_source *);
int64_t	ui_source_count(const struct ui_source *);
int	ui_source_has_times(const struct ui_source *);
int	ui_source_headers(const struct ui_source *);
const char *ui_source_header(struct ui_source *, int);
int	ui_source_get(struct ui_source *, int64_t from, int64_t to,
	    struct store_line **, int *n);
void	ui_source_put(struct ui_source *, struct store_line *, int n);
int	ui_source_mark(const struct ui_source *, int64_t no, size_t *so,
	    size_t *eo);
int	ui_source_has_targets(const struct ui_source *);
int	ui_source_target(const struct ui_source *, int64_t no,
	    const char **dir, const char **run, int64_t *line,
	    const char **title, int *live);
int	ui_source_step(struct ui_source *, size_t budget);
struct ui_source *ui_source_new_merge(const char *dir, struct jobtable *,
	    const int *ids, int n);
int	ui_source_sync(struct ui_source *, struct jobtable *);
int	ui_source_label(const struct ui_source *, int64_t no, size_t *len);

#define UI_PAGER_FOLLOW_MS	100		/* new lines of a followed run */
#define UI_PAGER_SEARCH_BYTES	(4 * 1024 * 1024)	/* a search's turn */
#define UI_PAGER_GREP_BYTES	(8 * 1024 * 1024)	/* a grep's turn */
#define UI_PAGER_STATUS_MAX	256

/*
 * What a mode built on a text view adds to it (ui-pager.c), with
 * cbs_arg: its own actions, run before the view's (1: done, the view may
 * be closed and freed); a search's match (at byte so of text); a span of
 * line no to mark (so, eo; 0: none).
 */
struct ui_pager;
struct ui_pager_cbs {
	int	(*action)(struct ui_pager *, enum bind_action, void *arg);
	void	(*found)(struct ui_pager *, const char *text, size_t len,
		    size_t so, void *arg);
	int	(*mark)(const struct ui_pager *, int64_t no, const char *text,
		    size_t len, size_t *so, size_t *eo, void *arg);
};

/*
 * The text view of view mode (!ps, !logs, !help, !grep) and copy mode,
 * a mode's data (me).  A search runs a batch of lines a turn from the
 * view's timer (searching != 0), as do a grep's results, while the view's
 * mode is on top.
 */
struct ui_pager {
	struct ui		*ui;
	struct ui_mode_entry	*me;		/* its mode, open */
	const struct ui_pager_cbs *cbs;	/* its mode's, or NULL */
	void			*cbs_arg;
	char			*title;
	struct ui_source	*src;
	int64_t			 top;		/* first body line shown */
	int64_t			 cursor;	/* chosen result, results views */

#define UI_PAGER_NUMBERS	0x1	/* line numbers shown */
#define UI_PAGER_TIMES		0x2	/* timestamps shown */
#define UI_PAGER_LIVE		0x4	/* a run still being written */
#define UI_PAGER_FOLLOW		0x8	/* kept at the end as lines come */
#define UI_PAGER_GREPPING	0x10	/* its grep has more to search */
#define UI_PAGER_COPY		0x20	/* copy mode's: a cursor, its keys */
	int			 flags;

	struct lineedit		*edit;		/* the search being typed */
	int			 prompt;	/* '/' or '?' while typed */
	char			*pattern;	/* the last search */
	struct grep		*matcher;	/* its matcher, or NULL */
	int			 backward;	/* it was a ? */
	int			 searching;	/* 1 forward, -1 back, 0 idle */
	int64_t			 search_at;	/* next line to look at */
	int64_t			 search_left;	/* lines left to look at */
	int64_t			 search_total;
	int			 wrapped;
	int64_t			 match;		/* line of the last match, -1 */
	char			 status[UI_PAGER_STATUS_MAX];
	int			 status_error;
	uint64_t		 timer;

	char			*refresh;	/* the command remaking its */
						/*   lines each second (!ps) */
	int			 job;		/* the job whose runs it shows, */
						/*   followed to new ones; 0 */
};

/*
 * A drag selecting text in the pane (ui-mouse.c moves it, ui-pane.c
 * draws it), in cells of the pane's inner rectangle from 0: from the
 * anchor (where the button went down) to the end (where it is now), in
 * reading order either way.
 */
struct ui_drag {
	int		 active;
	int		 row0, col0;	/* the anchor */
	int		 row1, col1;	/* the end */
	int		 passthrough;	/* the press went to the job */
};

struct ui {
	struct loop		*loop;
	struct ui_term		*term;		/* the client's terminal */
	const struct ui_owner_cbs *owner;	/* the deck's, with owner_arg */
	void			*owner_arg;
	const struct ui_calls	*calls;		/* up to ui.c, with calls_arg */
	void			*calls_arg;
	struct browser		*browser;	/* its row; the caller's, or NULL */
	const struct bind	*bind;		/* the caller's (ui_opts) */
	struct jobtable		*jt;
	struct session		*session;
	struct keys		*keys;
	struct lineedit		*edit;
	struct cmd_ctx		 ctx;
	int			 jt_handle;

	int			 rows;
	int			 cols;
	struct ui_rect		 panel;
	struct ui_rect		 pane;
	int			 too_small;

	struct job		*selected;
	int64_t			 left_focus;	/* when the focus key left */
						/*   focus; 0: not just now */
	int			 left_job;	/* the id of the job it left */
	struct {
		int		 on;		/* 0: none (a typed !command) */
		int		 rc;		/* as wget_wch() read it */
		wint_t		 k;
		int64_t		 left;		/* left_focus when it came */
	}			 key;		/* the key whose command runs */
	char			 pane_key[1200];	/* the pane frame last drawn */
	int			 cursor_shown;	/* curs_set() told: 1 + it, */
						/*   0: not yet (new screen) */
	const struct vt		*pane_vt;	/* the screen it drew, and */
	uint64_t		 pane_seq;	/*   its count of changes then */
	int			 panel_top;	/* first job index shown */
	int			 scroll;	/* lines scrolled back in the pane */
	int			 scroll_base;	/* scrollback count scroll counts from */

#define UI_FOCUSED	0x01	/* keys go to the selected job */
#define UI_QUITTING	0x02	/* stopping jobs before leaving */
#define UI_URGENT	0x04	/* draw now, not at the next frame */
#define UI_DRAW_ALL	0x08	/* redraw everything */
#define UI_DRAW_PANEL	0x10
#define UI_DRAW_PANE	0x20
#define UI_DRAW_PROMPT	0x40
#define UI_PANEL_STALE	0x80	/* output changed the panel: next paced frame */
#define UI_ECHO		0x100	/* a key went to the focused job: draw its echo */
#define UI_ZOOMED	0x200	/* no panel: the pane takes the width */
#define UI_PANEL_LAZY	0x400	/* the selected job's output changed its
				   panel row: drawn with the next tick */
#define UI_ENDED	0x800	/* the terminal given back (detach, suspend) */
#define UI_DRAW_MASK	(UI_DRAW_ALL | UI_DRAW_PANEL | UI_DRAW_PANE | \
			    UI_DRAW_PROMPT | UI_PANEL_STALE)
	int			 flags;

	char			 message[UI_MESSAGE_MAX];
	int			 message_error;
	struct ui_msg		 msgs[UI_MESSAGES_KEPT];	/* a ring */
	int			 nmsgs;
	int			 msg_next;	/* where the next one goes */
	struct cmd_msg		 msg_view[UI_MESSAGES_KEPT];	/* newest */
						/*   first, for !messages */
	struct ui_mode_entry	*mode;		/* the top open mode, or NULL */

	int64_t			 last_draw;
	int			 last_draw_paced;	/* it drew output, not a key */
	uint64_t		 frame_timer;
	uint64_t		 tick_timer;
	int			 stopping;	/* jobs being stopped on quit */
	int			 stopped;	/* of them, ended so far */

	char			*clip;		/* the paste buffer, or NULL */
	size_t			 clip_len;
	int			 clipboard;	/* also OSC 52 (config) */
	int			 panel_width;	/* config; 0: automatic */
	int			 bell;		/* config: a failure rings */

	struct job		**notices;	/* failed, marked until selected */
	int			 nnotices;
	struct ui_pager		*refreshing;	/* the view whose command */
						/*   runs again, or NULL */
	struct input		*input;		/* the key stream's reports */
	uint64_t		 input_timer;	/* closes a report left open */
	struct ui_drag		 drag;
};

/*
 * A client's terminal (ui-term.c): the fds it passed (taken), its TERM,
 * COLORTERM and LC_CTYPE; what its queue tells the owner (written: the
 * terminal took bytes, or failed with error; stalled: it took none for
 * UI_TERM_STALL_MS), and that its screen was made anew (rebuilt).
 */
#define UI_TERM_BACKLOG		(256 * 1024)	/* no new frame past this */
#define UI_TERM_STALL_MS	5000		/* nothing taken: detached */
struct ui_term;
struct ui_term_spec {
	int		 in_fd;
	int		 out_fd;
	const char	*term;
	const char	*colorterm;
	const char	*ctype;
};
struct ui_term_cbs {
	void	(*written)(int error, void *arg);
	void	(*stalled)(void *arg);
	/* Its screen was made anew (another left or resized): modes, all. */
	void	(*rebuilt)(void *arg);
};
struct ui_term *ui_term_open(struct loop *, const struct ui_term_spec *,
	    const struct ui_term_cbs *, void *arg, char **cause);
void	ui_term_enter(struct ui_term *);
int	ui_term_flush(struct ui_term *);
void	ui_term_write(struct ui_term *, const char *, size_t);
int	ui_term_busy(const struct ui_term *);
size_t	ui_term_pending(const struct ui_term *);
int	ui_term_in_fd(const struct ui_term *);
int	ui_term_size(const struct ui_term *, int *rows, int *cols);
void	ui_term_end(struct ui_term *, const char *after);
void	ui_term_resume(struct ui_term *);
int	ui_term_reopen(struct ui_term *);
void	ui_term_free(struct ui_term *);

/* Semantic colours of the front end's own parts (ui-colour.c). */
enum ui_colour {
	UI_C_ACTIVE,
	UI_C_DONE,
	UI_C_FAILED,
	UI_C_CANCELED,
	UI_C_FOCUS,
	UI_C_ERROR,
	UI_C_DIM
};

struct ui_colours;
const char *ui_colour_term(const char *term, const char *colorterm);
struct ui_colours *ui_colour_new(void);
void	ui_colour_use(struct ui_colours *);
int	ui_colour(uint32_t word);
int	ui_pair(int fg, int bg);
int	ui_pair_renew(void);
void	ui_colour_free(struct ui_colours *);
int	ui_semantic(enum ui_colour);

/* Drawing primitives (ui-draw.c). */
void	ui_put_wc(int y, int x, const wchar_t *wc, attr_t attr, int pair);
int	ui_put_textn(int y, int x, int width, const char *s, size_t len,
	    attr_t attr, int pair);
int	ui_put_text(int y, int x, int width, const char *s, attr_t attr,
	    int pair);
int	ui_put_marked(int y, int x, int width, const char *text, size_t len,
	    const size_t *so, const size_t *eo, int n, attr_t attr, int pair);
int	ui_text_width(const char *s);
int	ui_text_widthn(const char *s, size_t len);
int	ui_text_wcwidth(wchar_t);
size_t	ui_text_char(const char *s, size_t len, wchar_t *wc, int *width);
void	ui_fit(const char *s, int cols, char *out, size_t size);
void	ui_fit_middle(const char *s, int cols, char *out, size_t size);
void	ui_fit_inside(const char *head, const char *inside, const char *tail,
	    int cols, char *out, size_t size);
void	ui_blank(int y, int x, int width, attr_t attr);
void	ui_box(const struct ui_rect *r, const char *title, const char *right,
	    attr_t attr, int pair);
void	ui_line(int y, int x, int width, const char *left, attr_t lattr,
	    int lpair, const char *right, attr_t rattr, int rpair);
struct vt_cell;
void	ui_draw_cells(const struct vt *, const struct vt_cell *, int n, int y,
	    int x, int width, int reverse, int sel_from, int sel_to);

/* A typed line under the bindings (ui-edit.c). */
int	ui_edit_translate(enum bind_action);
void	ui_edit_insert(struct lineedit *, const char *text, size_t len,
	    int stop);

/* The mode interface and the open modes (ui-mode.c). */
struct ui_mode_entry *ui_mode_push(struct ui *, const struct ui_mode *,
	    void *data);
void	ui_mode_pop(struct ui *);
void	ui_mode_close_all(struct ui *);
int	ui_mode_on_top(const struct ui_mode_entry *);
int	ui_mode_in_pane(const struct ui *);
void	ui_mode_rect(const struct ui_mode_entry *, struct ui_rect *);
void	ui_mode_draw(struct ui *);
int	ui_mode_draw_bottom(struct ui *);
int	ui_mode_cursor(struct ui *, int *y, int *x);
int	ui_mode_key(struct ui *, int rc, unsigned int key);
int	ui_mode_mouse(struct ui *, const struct input_mouse *);
int	ui_mode_paste(struct ui *, const char *text, size_t len);
void	ui_mode_resize(struct ui *);

/* The paste buffer (ui-clip.c). */
void	ui_clip_set(struct ui *, const char *text, size_t len);
int	ui_clip_paste(struct ui *, struct job *);

/* The panel and the layout (ui-panel.c). */
void	ui_panel_draw(struct ui *);
int	ui_job_index(const struct ui *, const struct job *);
void	ui_keep_visible(struct ui *);
void	ui_layout(struct ui *);
void	ui_zoom(struct ui *);
int	ui_panel_noticed(const struct ui *, const struct job *);
void	ui_panel_notice(struct ui *, struct job *, int on);
struct job *ui_panel_job_at(struct ui *, int y, int x);

/* The pane (ui-pane.c). */
void	ui_pane_draw(struct ui *, int all);
const struct vt_cell *ui_pane_cells(const struct ui *, const struct vt *,
	    int row, int *n);
int	ui_pane_drag_cols(const struct ui *, int row, int *from, int *to);

/*
 * The text view (ui-pager.c, ui-pager-draw.c): made and opened as a mode
 * by the mode built on it; the callbacks below serve as that mode's.
 */
struct ui_pager *ui_pager_push(struct ui *, const struct ui_mode *,
	    const char *title, struct ui_source *);
void	ui_pager_free(struct ui_pager *);
int	ui_pager_body(const struct ui_pager *);
enum bind_mode ui_pager_keys(const struct ui_pager *);
void	ui_pager_move(struct ui_pager *, int64_t top);
void	ui_pager_choose(struct ui_pager *, int64_t cursor);
void	ui_pager_end(struct ui_pager *, int follow);
void	ui_pager_arm(struct ui_pager *);
void	ui_pager_live(struct ui_pager *, const char *command);
void	ui_pager_set_lines(struct ui_pager *, char **lines, int count,
	    int header);
void	ui_pager_status(struct ui_pager *, int error, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
void	ui_pager_prompt(struct ui_pager *, int c);
int	ui_pager_line_match(const struct ui_pager *, const char *, size_t,
	    size_t *so, size_t *eo);
void	ui_pager_draw(struct ui_mode_entry *);
void	ui_pager_draw_bottom(struct ui_mode_entry *);
int	ui_pager_cursor(struct ui_mode_entry *, int *y, int *x);
void	ui_pager_key(struct ui_mode_entry *, int rc, unsigned int key);
void	ui_pager_mouse(struct ui_mode_entry *, const struct input_mouse *);
void	ui_pager_paste(struct ui_mode_entry *, const char *text, size_t len);
void	ui_pager_resize(struct ui_mode_entry *);

/* View mode (ui-view.c). */
void	ui_view_open(struct ui *, const char *title, char **lines, int count,
	    int header, const char *refresh);
int	ui_view_set_lines(struct ui *, char **lines, int count, int header);
int	ui_view_open_merged(struct ui *, const char *title, const int *ids,
	    int n, char **cause);
int	ui_view_open_run(struct ui *, const char *title, const char *dir,
	    const char *run, int64_t line, int live, char **cause);
int	ui_view_open_grep(struct ui *, struct grep *, char **cause);

/* Copy mode (ui-copy.c): search != 0 starts typing a search at once. */
void	ui_copy_enter(struct ui *, int search);

/* Mouse reports (ui-mouse.c). */
void	ui_mouse_event(struct ui *, const struct input_mouse *);

/* A paste from the outer terminal (ui-paste.c). */
void	ui_paste(struct ui *, const struct input_event *);
int	ui_paste_refuse(struct ui *, const wchar_t *text, size_t len);

/* The frame (ui-frame.c). */
void	ui_frame_draw(struct ui *);

#endif
