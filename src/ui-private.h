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
#include "ui.h"

struct job;
struct keys;
struct lineedit;

#define UI_FRAME_MS	16	/* at most one frame this often under flood */
#define UI_ECHO_WAIT_MS	2	/* after a key, wait this long for its echo alone */
#define UI_TICK_MS	1000	/* durations in the panel tick every second */
#define UI_MESSAGE_MAX	512
#define UI_CLIP_OSC52_MAX	(74 * 1024)	/* bytes sent to the clipboard */

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
void	ui_format_time(int64_t ms, int millis, char *buf, size_t size);

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
};

/* A mouse report of the outer terminal, in screen cells from 0. */
struct ui_mouse {
	int		 y;
	int		 x;
	int		 button;	/* 0-2 left, middle, right; 3 none */
					/*   (a move); 64, 65 wheel up, down */
	int		 press;		/* 1 pressed, 0 released */
	int		 motion;	/* moved with the button held */
	unsigned int	 mods;		/* VT_MOD_* */
};

struct ui {
	struct loop		*loop;
	SCREEN			*screen;	/* curses' terminal (newterm) */
	struct bind		*bind;
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
	int			 focus_key;	/* a control character */
	char			 focus_name[16];	/* "Ctrl+T" */
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
#define UI_DRAW_MASK	(UI_DRAW_ALL | UI_DRAW_PANEL | UI_DRAW_PANE | \
			    UI_DRAW_PROMPT | UI_PANEL_STALE)
	int			 flags;

	char			 message[UI_MESSAGE_MAX];
	int			 message_error;
	struct ui_pager		*pager;

	int64_t			 last_draw;
	int			 last_draw_paced;	/* it drew output, not a key */
	uint64_t		 frame_timer;
	uint64_t		 tick_timer;
	uint64_t		 quit_timer;
	int			 stopping;	/* jobs being stopped on quit */

	char			*clip;		/* the paste buffer, or NULL */
	size_t			 clip_len;
	int			 clipboard;	/* also OSC 52 (config) */
	int			 panel_width;	/* config; 0: automatic */
	int			 bell;		/* config: a failure rings */
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
void	ui_fit(const char *s, int cols, char *out, size_t size);
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

void	ui_pager_open(struct ui *, const char *title, char **lines, int count,
	    int header);
int	ui_pager_open_run(struct ui *, const char *title, const char *dir,
	    const char *run, int64_t line, int live, char **cause);
int	ui_pager_open_grep(struct ui *, struct grep *, char **cause);
void	ui_pager_close(struct ui *);
void	ui_pager_key(struct ui *, int rc, unsigned int key);
int	ui_pager_body(const struct ui *);
int	ui_pager_line_match(const struct ui_pager *, const char *, size_t,
	    size_t *so, size_t *eo);
void	ui_pager_draw(struct ui *);
void	ui_pager_draw_bottom(struct ui *);

int	ui_job_index(const struct ui *, const struct job *);

/* The paste buffer (ui-clip.c). */
void	ui_clip_set(struct ui *, const char *text, size_t len);
int	ui_clip_paste(struct ui *, struct job *);

/* Copy mode (ui-copy.c): search != 0 starts typing a search at once. */
void	ui_copy_enter(struct ui *, int search);

/* Mouse events (ui-mouse.c). */
void	ui_mouse_event(struct ui *, const struct ui_mouse *);

#endif
