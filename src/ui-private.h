/*
 * ui-private.h: the state shared by the front end's files (ui.c: setup,
 * input and events; ui-draw.c: drawing; ui-pager.c: the text view).  Not a
 * public header: nothing outside ui*.c includes it.
 */
#ifndef JOBDECK_UI_PRIVATE_H
#define JOBDECK_UI_PRIVATE_H

#include <stdint.h>

#include "cmd.h"
#include "ui.h"

struct job;
struct keys;
struct lineedit;

#define UI_FRAME_MS	16	/* at most one frame this often under flood */
#define UI_ECHO_WAIT_MS	2	/* after a key, wait this long for its echo alone */
#define UI_TICK_MS	1000	/* durations in the panel tick every second */
#define UI_MESSAGE_MAX	512

/* A rectangle on the screen, borders included. */
struct ui_rect {
	int	y;
	int	x;
	int	h;
	int	w;
};

/* The full-screen text view of !ps, !logs and !help. */
struct ui_pager {
	char	 *title;
	char	**lines;
	int	  count;
	int	  header;	/* lines 0..header-1 stay on top, uncounted */
	int	  top;		/* first line shown */
};

struct ui {
	struct loop		*loop;
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
};

void	ui_draw(struct ui *);
int	ui_draw_init_colours(void);

void	ui_pager_open(struct ui *, const char *title, char **lines, int count,
	    int header);
void	ui_pager_close(struct ui *);
void	ui_pager_key(struct ui *, int rc, unsigned int key);
void	ui_pager_draw(struct ui *);

int	ui_job_index(const struct ui *, const struct job *);

#endif
