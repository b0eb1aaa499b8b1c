/*
 * ui-private.h: the state shared by the front end's files.  ui.c: setup,
 * input dispatch through the bindings, events; ui-draw.c: drawing
 * primitives, the pane and the prompt; ui-colour.c: colours and pairs;
 * ui-panel.c: the panel of jobs, the layout and zoom; ui-pager.c,
 * ui-pager-draw.c and ui-source.c: the text view; ui-copy.c: copy mode;
 * ui-mouse.c: mouse events; ui-clip.c: the paste buffer and the outer
 * terminal's clipboard.  Not a public header: nothing outside ui*.c
 * includes it.
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

#define UI_PAGER_FOLLOW_MS	100		/* new lines of a followed run */
#define UI_PAGER_SEARCH_BYTES	(4 * 1024 * 1024)	/* a search's turn */
#define UI_PAGER_GREP_BYTES	(8 * 1024 * 1024)	/* a grep's turn */
#define UI_PAGER_STATUS_MAX	256

/*
 * The full-screen text view of !ps, !logs, !help and !grep.  The view a
 * result of a grep opens sits on the results view (under), which comes
 * back when it closes.  A search runs a batch of lines a turn from the
 * view's timer (searching != 0), as do a grep's results.
 */
struct ui_pager {
	char			*title;
	struct ui_source	*src;
	struct ui_pager		*under;
	int64_t			 top;		/* first body line shown */
	int64_t			 cursor;	/* chosen result, results views */

#define UI_PAGER_NUMBERS	0x1	/* line numbers shown */
#define UI_PAGER_TIMES		0x2	/* timestamps shown */
#define UI_PAGER_LIVE		0x4	/* a run still being written */
#define UI_PAGER_FOLLOW		0x8	/* kept at the end as lines come */
#define UI_PAGER_GREPPING	0x10	/* its grep has more to search */
#define UI_PAGER_COPY		0x20	/* copy mode: in the pane, a cursor */
	int			 flags;

	/* Copy mode: the cursor is (cursor, col), a selection starts at */
	/* (sel_line, sel_col); col is a display column. */
	int			 col;
	int			 select;	/* UI_COPY_NONE, _CHARS, _LINES */
	int64_t			 sel_line;
	int			 sel_col;

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
 * A drag selecting text in the pane (ui-mouse.c), in cells of the pane's
 * inner rectangle from 0: from the anchor (where the button went down) to
 * the end (where it is now), in reading order either way.
 */
struct ui_drag {
	int		 active;
	int		 row0, col0;	/* the anchor */
	int		 row1, col1;	/* the end */
	int		 passthrough;	/* the press went to the job */
};

struct ui {
	struct loop		*loop;
	SCREEN			*screen;	/* curses' terminal (newterm) */
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
	char			 pane_key[1200];	/* the pane frame last drawn */
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
	struct ui_pager		*pager;

	int64_t			 last_draw;
	int			 last_draw_paced;	/* it drew output, not a key */
	uint64_t		 frame_timer;
	uint64_t		 tick_timer;
	uint64_t		 quit_timer;
	int			 quit_running;	/* jobs running at its arming */
	int			 stopping;	/* jobs being stopped on quit */
	int			 stopped;	/* of them, ended so far */

	char			*clip;		/* the paste buffer, or NULL */
	size_t			 clip_len;
	int			 clipboard;	/* also OSC 52 (config) */
	int			 panel_width;	/* config; 0: automatic */
	int			 bell;		/* config: a failure rings */

	struct job		**notices;	/* failed, marked until selected */
	int			 nnotices;
	int			 refreshing;	/* a view's command runs again */
	struct input		*input;		/* the key stream's reports */
	uint64_t		 input_timer;	/* closes a report left open */
	struct ui_drag		 drag;
};

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

const char *ui_colour_term(void);
int	ui_draw_init_colours(void);
int	ui_colour(uint32_t word);
int	ui_pair(int fg, int bg);
int	ui_pair_renew(void);
void	ui_colour_free(void);
int	ui_semantic(enum ui_colour);

/* Drawing primitives (ui-draw.c). */
void	ui_draw(struct ui *);
void	ui_put_wc(int y, int x, const wchar_t *wc, attr_t attr, int pair);
int	ui_put_textn(int y, int x, int width, const char *s, size_t len,
	    attr_t attr, int pair);
int	ui_put_text(int y, int x, int width, const char *s, attr_t attr,
	    int pair);
int	ui_text_width(const char *s);
int	ui_text_widthn(const char *s, size_t len);
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

/* The panel and the layout (ui-panel.c). */
void	ui_draw_panel(struct ui *);
void	ui_keep_visible(struct ui *);
void	ui_layout(struct ui *);
void	ui_zoom(struct ui *);
int	ui_panel_noticed(const struct ui *, const struct job *);
void	ui_panel_notice(struct ui *, struct job *, int on);
struct job *ui_panel_job_at(struct ui *, int y, int x);

void	ui_pager_open(struct ui *, const char *title, char **lines, int count,
	    int header);
void	ui_pager_set_lines(struct ui *, char **lines, int count, int header);
void	ui_pager_live(struct ui *, const char *command);
int	ui_pager_open_run(struct ui *, const char *title, const char *dir,
	    const char *run, int64_t line, int live, char **cause);
int	ui_pager_open_grep(struct ui *, struct grep *, char **cause);
void	ui_pager_close(struct ui *);
void	ui_pager_key(struct ui *, int rc, unsigned int key);
int	ui_pager_body(const struct ui *);
void	ui_pager_rect(const struct ui *, struct ui_rect *);
struct ui_pager *ui_pager_push(struct ui *, const char *title,
	    struct ui_source *);
void	ui_pager_pop(struct ui *);
void	ui_pager_choose(struct ui *, int64_t cursor);
void	ui_pager_status(struct ui *, int error, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
void	ui_pager_prompt(struct ui *, int c);
int	ui_pager_line_match(const struct ui_pager *, const char *, size_t,
	    size_t *so, size_t *eo);
void	ui_pager_draw(struct ui *);
void	ui_pager_draw_bottom(struct ui *);

int	ui_job_index(const struct ui *, const struct job *);
int	ui_lineedit_action(enum bind_action);

/* The paste buffer (ui-clip.c). */
void	ui_clip_set(struct ui *, const char *text, size_t len);
int	ui_clip_paste(struct ui *, struct job *);

/* Copy mode (ui-copy.c): search != 0 starts typing a search at once. */
#define UI_COPY_NONE	0
#define UI_COPY_CHARS	1
#define UI_COPY_LINES	2
void	ui_copy_enter(struct ui *, int search);
int	ui_copy_action(struct ui *, enum bind_action);
int	ui_copy_span(const struct ui_pager *, int64_t no, const char *text,
	    size_t len, size_t *so, size_t *eo);
void	ui_copy_found(struct ui *, const char *text, size_t len, size_t so);
int	ui_copy_cursor_x(struct ui *);

/* Mouse events (ui-mouse.c). */
void	ui_mouse_event(struct ui *, const struct input_mouse *);
int	ui_drag_cols(const struct ui *, int row, int *from, int *to);

/* A paste from the outer terminal (ui-paste.c). */
void	ui_paste(struct ui *, const struct input_event *);
int	ui_paste_refuse(struct ui *, const wchar_t *text, size_t len);

/* For the mouse and the paste (ui.c, ui-pager.c, ui-panel.c, ui-draw.c). */
void	ui_dirty(struct ui *, int what, int urgent);
void	ui_select(struct ui *, struct job *);
void	ui_select_step(struct ui *, int delta);
void	ui_scroll(struct ui *, int delta);
void	ui_pager_scroll(struct ui *, int64_t delta);
struct job *ui_panel_job_at(struct ui *, int y, int x);
struct vt_cell;
const struct vt_cell *ui_pane_cells(const struct ui *, const struct vt *,
	    int row, int *n);

#endif
