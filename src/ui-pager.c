/*
 * ui-pager.c: the full-screen text view that !ps, !logs and !help open:
 * it copies the lines it is given, starts at the first one, and moves with
 * Up/Down, PgUp/PgDn, Home/End and g/G until q or Esc closes it.
 * ui-draw.c draws it.
 */
#include <curses.h>
#include <stdlib.h>

#include "ui-private.h"
#include "xmalloc.h"

/*
 * Open the view on a copy of lines, replacing any view already open; the
 * first header lines stay in sight as the rest scrolls.
 */
void
ui_pager_open(struct ui *ui, const char *title, char **lines, int count,
    int header)
{
	struct ui_pager	*p;
	int		 i;

	ui_pager_close(ui);
	p = xcalloc(1, sizeof *p);
	p->title = xstrdup(title);
	p->lines = xcalloc((size_t)count + 1, sizeof *p->lines);
	for (i = 0; i < count; i++)
		p->lines[i] = xstrdup(lines[i] != NULL ? lines[i] : "");
	p->count = count;
	p->header = header > 0 && header <= count ? header : 0;
	ui->pager = p;
	ui->flags |= UI_DRAW_ALL | UI_URGENT;
}

/* Close the view, if one is open. */
void
ui_pager_close(struct ui *ui)
{
	struct ui_pager	*p = ui->pager;
	int		 i;

	if (p == NULL)
		return;
	for (i = 0; i < p->count; i++)
		free(p->lines[i]);
	free(p->lines);
	free(p->title);
	free(p);
	ui->pager = NULL;
	ui->flags |= UI_DRAW_ALL | UI_URGENT;
}

/* Move the view to top, kept within the text. */
static void
ui_pager_move(struct ui *ui, int top)
{
	struct ui_pager	*p = ui->pager;
	int		 page = ui->rows - 3 - p->header, max;

	if (page < 1)
		page = 1;
	max = p->count - p->header - page;
	if (top > max)
		top = max;
	if (top < 0)
		top = 0;
	p->top = top;
	ui->flags |= UI_DRAW_ALL | UI_URGENT;
}

/* Handle a key while the view is open. */
void
ui_pager_key(struct ui *ui, int rc, unsigned int key)
{
	struct ui_pager	*p = ui->pager;
	int		 page = ui->rows - 3 - p->header > 1 ?
			    ui->rows - 3 - p->header : 1;

	if (rc == OK) {
		switch (key) {
		case 'q':
		case 'Q':
		case 0x1b:
		case 0x03:
			ui_pager_close(ui);
			break;
		case 'g':
			ui_pager_move(ui, 0);
			break;
		case 'G':
			ui_pager_move(ui, p->count);
			break;
		case 'j':
		case '\r':
		case '\n':
			ui_pager_move(ui, p->top + 1);
			break;
		case 'k':
			ui_pager_move(ui, p->top - 1);
			break;
		case ' ':
		case 'f':
			ui_pager_move(ui, p->top + page);
			break;
		case 'b':
			ui_pager_move(ui, p->top - page);
			break;
		}
		return;
	}
	switch (key) {
	case KEY_UP:
		ui_pager_move(ui, p->top - 1);
		break;
	case KEY_DOWN:
		ui_pager_move(ui, p->top + 1);
		break;
	case KEY_PPAGE:
		ui_pager_move(ui, p->top - page);
		break;
	case KEY_NPAGE:
		ui_pager_move(ui, p->top + page);
		break;
	case KEY_HOME:
		ui_pager_move(ui, 0);
		break;
	case KEY_END:
		ui_pager_move(ui, p->count);
		break;
	}
}
