/*
 * ui-copy.c: copy mode, tmux's habit.  It is a mode built on a text view
 * (ui-pager.c), drawn inside the selected job's pane with a cursor and a
 * selection (struct ui_copy, this file's own, hooked to the view): its
 * lines are the job's run read lazily from the output store (a job on the
 * alternate screen or not logged: a snapshot of the emulator's scrollback
 * and screen taken on entry), its searches are the view's.  This file has
 * what copy mode adds: moves by character (display columns of UTF-8, a
 * wide character whole), word and line end, the selection, and the copy to
 * the paste buffer.  A word is a run of non-blanks (vi's WORD: space and
 * tab separate words, nothing else).  The store's lines reach back into
 * the job's earlier runs, each after its mark, as the cursor moves up.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "job.h"
#include "store.h"
#include "ui-private.h"
#include "vt.h"
#include "xmalloc.h"

#define UI_COPY_BATCH	1024	/* lines read at once for a copy */

#define UI_COPY_NONE	0	/* no selection */
#define UI_COPY_CHARS	1	/* from a character to another (v) */
#define UI_COPY_LINES	2	/* whole lines (V) */

/*
 * Copy mode's own state beside its view: the cursor is (view->cursor,
 * col), a selection starts at (sel_line, sel_col); col is a display
 * column.
 */
struct ui_copy {
	struct ui_pager	*view;
	int		 col;
	int		 select;	/* UI_COPY_NONE, _CHARS, _LINES */
	int64_t		 sel_line;
	int		 sel_col;
};

/* One character of a line as shown: its columns and bytes. */
struct ui_copy_char {
	int	col;
	int	blank;
	size_t	so;
	size_t	eo;	/* marks after it included */
};

/* A line cut into the characters the screen shows. */
struct ui_copy_line {
	char			*text;
	size_t			 len;
	struct ui_copy_char	*c;
	int			 n;
	int			 width;	/* the column after the last one */
};

/* Cut text into its shown characters (zero-width marks join the one before). */
static void
ui_copy_cut(struct ui_copy_line *l)
{
	wchar_t	wc;
	size_t	off = 0, n;
	int	w;

	l->c = xcalloc(l->len + 1, sizeof *l->c);
	l->n = 0;
	l->width = 0;
	while ((n = ui_text_char(l->text + off, l->len - off, &wc, &w)) > 0) {
		if (w == 0 && l->n > 0) {
			l->c[l->n - 1].eo = off + n;
			off += n;
			continue;
		}
		l->c[l->n].col = l->width;
		l->c[l->n].blank = wc == L' ' || wc == L'\t';
		l->c[l->n].so = off;
		l->c[l->n].eo = off + n;
		l->n++;
		l->width += w;
		off += n;
	}
}

/* Read line no of the view (an empty line if it cannot be read). */
static void
ui_copy_get(struct ui_pager *p, int64_t no, struct ui_copy_line *l)
{
	struct store_line	*lines;
	int			 got;

	memset(l, 0, sizeof *l);
	if (ui_source_get(p->src, no, no + 1, &lines, &got) == 0 && got == 1) {
		l->text = xmalloc(lines[0].len + 1);
		memcpy(l->text, lines[0].text, lines[0].len);
		l->text[lines[0].len] = '\0';
		l->len = lines[0].len;
		ui_source_put(p->src, lines, got);
	} else
		l->text = xstrdup("");
	ui_copy_cut(l);
}

/* Free a line from ui_copy_get(). */
static void
ui_copy_put(struct ui_copy_line *l)
{
	free(l->text);
	free(l->c);
}

/*
 * Return the index of the character at column col of a line, or n (the
 * line's end) past its last one.
 */
static int
ui_copy_index(const struct ui_copy_line *l, int col)
{
	int	i;

	for (i = 0; i < l->n; i++)
		if (i + 1 == l->n || l->c[i + 1].col > col)
			return col < l->width ? i : l->n;
	return 0;
}

/* Return the column of character i of a line (n: the line's end). */
static int
ui_copy_col(const struct ui_copy_line *l, int i)
{
	return i < l->n ? l->c[i].col : l->width;
}

/* Return the cursor's column as drawn: on a character's start, or the end. */
static int
ui_copy_cursor_x(struct ui_copy *c)
{
	struct ui_pager		*p = c->view;
	struct ui_copy_line	 l;
	int			 x;

	ui_copy_get(p, p->cursor, &l);
	x = ui_copy_col(&l, ui_copy_index(&l, c->col));
	ui_copy_put(&l);
	return x;
}

/* Tell whether character i of a line starts a word. */
static int
ui_copy_word_start(const struct ui_copy_line *l, int i)
{
	return i < l->n && !l->c[i].blank && (i == 0 || l->c[i - 1].blank);
}

/* Tell whether character i of a line ends a word. */
static int
ui_copy_word_end(const struct ui_copy_line *l, int i)
{
	return i >= 0 && i < l->n && !l->c[i].blank &&
	    (i + 1 == l->n || l->c[i + 1].blank);
}

/*
 * Move the cursor to the next (dir 1) or previous (dir -1) character at
 * which test holds, on this line or the lines after or before it (up to
 * a page of them, so a word move never reads a whole log).
 */
static void
ui_copy_seek(struct ui_copy *c, int dir,
    int (*test)(const struct ui_copy_line *, int))
{
	struct ui_pager		*p = c->view;
	struct ui_copy_line	 l;
	int64_t			 no = p->cursor;
	int			 i, tries = ui_pager_body(p);

	ui_copy_get(p, no, &l);
	i = ui_copy_index(&l, c->col) + dir;
	for (;;) {
		for (; i >= 0 && i < l.n; i += dir) {
			if (test(&l, i)) {
				c->col = l.c[i].col;
				ui_copy_put(&l);
				ui_pager_choose(p, no);
				return;
			}
		}
		no += dir;
		if (tries-- == 0 || no < ui_source_first(p->src) ||
		    no >= ui_source_count(p->src))
			break;
		ui_copy_put(&l);
		ui_copy_get(p, no, &l);
		i = dir > 0 ? 0 : l.n - 1;
		if (l.n == 0) {
			/* An empty line stops a word move, as in vi. */
			c->col = 0;
			ui_copy_put(&l);
			ui_pager_choose(p, no);
			return;
		}
	}
	ui_copy_put(&l);
}

/* Move the cursor by delta characters on its line (to its end at most). */
static void
ui_copy_step(struct ui_copy *c, int delta)
{
	struct ui_pager		*p = c->view;
	struct ui_copy_line	 l;
	int			 i;

	ui_copy_get(p, p->cursor, &l);
	i = ui_copy_index(&l, c->col) + delta;
	if (i < 0)
		i = 0;
	if (i > l.n)
		i = l.n;
	c->col = ui_copy_col(&l, i);
	ui_copy_put(&l);
}

/* Order the selection's start and the cursor: (l0, c0) before (l1, c1). */
static void
ui_copy_bounds(const struct ui_copy *c, int64_t *l0, int *c0, int64_t *l1,
    int *c1)
{
	int64_t	cursor = c->view->cursor;

	if (c->sel_line < cursor || (c->sel_line == cursor &&
	    c->sel_col <= c->col)) {
		*l0 = c->sel_line;
		*c0 = c->sel_col;
		*l1 = cursor;
		*c1 = c->col;
	} else {
		*l0 = cursor;
		*c0 = c->col;
		*l1 = c->sel_line;
		*c1 = c->sel_col;
	}
}

/*
 * Find the bytes of line no (text, len) that the selection covers: the
 * end's character is in it; 0 if none of the line is.
 */
static int
ui_copy_span(const struct ui_copy *c, int64_t no, const char *text,
    size_t len, size_t *so, size_t *eo)
{
	struct ui_copy_line	 l;
	int64_t			 l0, l1;
	int			 c0, c1, i;

	if (c->select == UI_COPY_NONE)
		return 0;
	ui_copy_bounds(c, &l0, &c0, &l1, &c1);
	if (no < l0 || no > l1)
		return 0;
	*so = 0;
	*eo = len;
	if (c->select == UI_COPY_LINES || (no != l0 && no != l1))
		return 1;
	memset(&l, 0, sizeof l);
	l.text = (char *)text;
	l.len = len;
	ui_copy_cut(&l);
	if (no == l0) {
		i = ui_copy_index(&l, c0);
		*so = i < l.n ? l.c[i].so : len;
	}
	if (no == l1) {
		i = ui_copy_index(&l, c1);
		*eo = i < l.n ? l.c[i].eo : len;
	}
	free(l.c);
	return *so < *eo;
}

/*
 * Return the selection's text (the cursor's line without its newline if
 * there is none) in a new buffer of *len bytes; a selection that ends
 * past its last line's end takes the newline too.  NULL if the log
 * cannot be read.
 */
static char *
ui_copy_text(struct ui_copy *c, size_t *len)
{
	struct ui_pager		*p = c->view;
	struct store_line	*lines;
	struct ui_copy_line	 last;
	char			*buf = NULL;
	size_t			 size = 0, so, eo;
	int64_t			 l0, l1, no, to;
	int			 c0, c1, got, i, nl;

	if (c->select == UI_COPY_NONE) {
		l0 = l1 = p->cursor;
		c0 = 0;
		c1 = 0;
	} else
		ui_copy_bounds(c, &l0, &c0, &l1, &c1);
	ui_copy_get(p, l1, &last);
	nl = c->select == UI_COPY_LINES || (c->select == UI_COPY_CHARS &&
	    ui_copy_index(&last, c1) == last.n);
	ui_copy_put(&last);
	*len = 0;
	for (no = l0; no <= l1; no = to) {
		to = no + UI_COPY_BATCH <= l1 + 1 ? no + UI_COPY_BATCH : l1 + 1;
		if (ui_source_get(p->src, no, to, &lines, &got) != 0) {
			free(buf);
			return NULL;
		}
		for (i = 0; i < got; i++) {
			so = 0;
			eo = lines[i].len;
			if (c->select == UI_COPY_CHARS)
				ui_copy_span(c, lines[i].no, lines[i].text,
				    lines[i].len, &so, &eo);
			if (*len + (eo - so) + 2 > size) {
				size = (*len + (eo - so) + 2) * 2;
				buf = xreallocarray(buf, size, 1);
			}
			memcpy(buf + *len, lines[i].text + so, eo - so);
			*len += eo - so;
			if (lines[i].no < l1 || nl)
				buf[(*len)++] = '\n';
		}
		ui_source_put(p->src, lines, got);
		if (got == 0)
			break;
	}
	if (buf == NULL)
		buf = xstrdup("");
	return buf;
}

/*
 * Copy the selection to the paste buffer (and clipboard), then leave
 * (the mode closes: c and its view are freed).
 */
static void
ui_copy_yank(struct ui_copy *c)
{
	struct ui	*ui = c->view->ui;
	char		*text;
	size_t		 len;

	if ((text = ui_copy_text(c, &len)) == NULL) {
		ui_pager_status(c->view, 1, "cannot read the log");
		return;
	}
	ui_mode_pop(ui);
	ui_clip_set(ui, text, len);
	free(text);
}

/* Start a selection of a kind at the cursor, or drop the one there is. */
static void
ui_copy_select(struct ui_copy *c, int kind)
{
	if (c->select == kind) {
		c->select = UI_COPY_NONE;
		return;
	}
	if (c->select == UI_COPY_NONE) {
		c->sel_line = c->view->cursor;
		c->sel_col = ui_copy_cursor_x(c);
	}
	c->select = kind;
}

/*
 * The view's action callback: run one of copy mode's own actions;
 * returns 0 for those it shares with every view (moves by line and
 * page, searches, quit).
 */
static int
ui_copy_action(struct ui_pager *p, enum bind_action action, void *arg)
{
	struct ui_copy	*c = arg;

	switch (action) {
	case BIND_LEFT:
		ui_copy_step(c, -1);
		break;
	case BIND_RIGHT:
		ui_copy_step(c, 1);
		break;
	case BIND_WORD_NEXT:
		ui_copy_seek(c, 1, ui_copy_word_start);
		break;
	case BIND_WORD_PREV:
		ui_copy_seek(c, -1, ui_copy_word_start);
		break;
	case BIND_WORD_END:
		ui_copy_seek(c, 1, ui_copy_word_end);
		break;
	case BIND_LINE_START:
		c->col = 0;
		break;
	case BIND_LINE_END:
		c->col = INT_MAX;
		c->col = ui_copy_cursor_x(c);
		break;
	case BIND_SELECT:
		ui_copy_select(c, UI_COPY_CHARS);
		break;
	case BIND_SELECT_LINE:
		ui_copy_select(c, UI_COPY_LINES);
		break;
	case BIND_YANK:
		ui_copy_yank(c);
		return 1;
	default:
		return 0;
	}
	p->ui->calls->dirty(UI_DRAW_ALL, 1, p->ui->calls_arg);
	return 1;
}

/*
 * The view's found callback: a search found a match at byte so of text;
 * the cursor goes to it.
 */
static void
ui_copy_found(struct ui_pager *p, const char *text, size_t len, size_t so,
    void *arg)
{
	struct ui_copy	*c = arg;

	(void)p;
	(void)len;
	c->col = ui_text_widthn(text, so);
}

/* The view's mark callback: the bytes of line no the selection covers. */
static int
ui_copy_mark(const struct ui_pager *p, int64_t no, const char *text,
    size_t len, size_t *so, size_t *eo, void *arg)
{
	(void)p;
	return ui_copy_span(arg, no, text, len, so, eo);
}

/* What copy mode adds to its view. */
static const struct ui_pager_cbs ui_copy_view_cbs = {
	.action = ui_copy_action,
	.found = ui_copy_found,
	.mark = ui_copy_mark,
};

/*
 * The mode's cursor: on the search line while one is typed, else on the
 * copy cursor in the pane's body.
 */
static int
ui_copy_cursor(struct ui_mode_entry *me, int *y, int *x)
{
	struct ui_pager	*p = me->data;
	const struct ui	*ui = p->ui;
	int		 row, col;

	if (ui_pager_cursor(me, y, x))
		return 1;
	row = (int)(p->cursor - p->top);
	col = ui_copy_cursor_x(p->cbs_arg);
	if (col > ui->pane.w - 3)
		col = ui->pane.w - 3;
	*y = ui->pane.y + 1 + row;
	*x = ui->pane.x + 1 + col;
	return 1;
}

/* The mode's close: its state and its view are freed. */
static void
ui_copy_close(struct ui_mode_entry *me)
{
	struct ui_pager	*p = me->data;

	free(p->cbs_arg);
	ui_pager_free(p);
}

/* Copy mode: a text view in the pane with a cursor and a selection. */
static const struct ui_mode ui_copy_mode = {
	.name = "copy",
	.flags = UI_MODE_PANE,
	.draw = ui_pager_draw,
	.draw_bottom = ui_pager_draw_bottom,
	.cursor = ui_copy_cursor,
	.key = ui_pager_key,
	.mouse = ui_pager_mouse,
	.paste = ui_pager_paste,
	.resize = ui_pager_resize,
	.close = ui_copy_close,
};

/*
 * Make the snapshot of a job's emulator: its scrollback and screen down
 * to the cursor's line or the last line with text; the cursor's line is
 * set in *cursor.
 */
static struct ui_source *
ui_copy_snapshot(struct vt *vt, int64_t *cursor)
{
	struct ui_source	*src;
	char			**lines;
	int			  count = vt_text_count(vt), i, n, row, col;

	lines = xcalloc((size_t)count + 1, sizeof *lines);
	n = 0;
	for (i = 0; i < count; i++) {
		lines[i] = vt_text_line(vt, i);
		if (lines[i] != NULL && lines[i][0] != '\0')
			n = i + 1;
	}
	vt_cursor(vt, &row, &col);
	*cursor = vt_scrollback_count(vt) + row;
	if (n < *cursor + 1)
		n = (int)*cursor + 1;
	if (n > count)
		n = count;
	src = ui_source_new_array(lines, n, 0);
	for (i = 0; i < count; i++)
		free(lines[i]);
	free(lines);
	return src;
}

/*
 * Enter copy mode on the selected job's pane: its run from the store when
 * the job's reader reads it there (logged, readable, and not on the
 * alternate screen), else a snapshot of its emulator.  The cursor starts on the live cursor's line (the store: the
 * last line); search != 0 starts typing a search (/) at once.
 */
void
ui_copy_enter(struct ui *ui, int search)
{
	struct job		*job = ui->selected;
	struct job_reader	*r;
	struct vt		*vt;
	struct ui_source	*src = NULL;
	struct ui_pager		*p;
	struct ui_copy		*c;
	const char		*dir, *run;
	char			*title, *cause = NULL, msg[UI_MESSAGE_MAX];
	int64_t			 cursor = 0, top;

	if (job == NULL) {
		ui->calls->message("no job selected: nothing to copy from", 1,
		    ui->calls_arg);
		return;
	}
	vt = job_vt(job);
	r = job_reader_open(job, JOB_READER_SCREEN, NULL);
	if (job_reader_source(r) == JOB_SOURCE_STORE) {
		run = job_reader_run(r, &dir);
		src = ui_source_new_job(dir, job, run, &cause);
		free(cause);
		if (src != NULL)
			cursor = ui_source_count(src) - 1;
	}
	job_reader_close(r);
	if (src == NULL && vt != NULL)
		src = ui_copy_snapshot(vt, &cursor);
	if (src == NULL) {
		snprintf(msg, sizeof msg, "[%d] has no output to copy from",
		    job_id(job));
		ui->calls->message(msg, 1, ui->calls_arg);
		return;
	}
	ui_mode_close_all(ui);
	title = xprintf("[%d] %s [Copy]", job_id(job), job_command(job));
	p = ui_pager_push(ui, &ui_copy_mode, title, src);
	free(title);
	c = xcalloc(1, sizeof *c);
	c->view = p;
	p->cbs = &ui_copy_view_cbs;
	p->cbs_arg = c;
	p->flags |= UI_PAGER_COPY;
	if (cursor < ui_source_first(src))
		cursor = ui_source_first(src);
	/* The view starts where the pane was: at the end, a page of it. */
	top = ui_source_count(src) - ui_pager_body(p);
	while (top < ui_source_first(src) && ui_source_more(src))
		ui_source_extend(src);
	p->top = top > ui_source_first(src) ? top : ui_source_first(src);
	p->cursor = cursor;
	ui_pager_choose(p, cursor);
	if (search)
		ui_pager_prompt(p, '/');
}
