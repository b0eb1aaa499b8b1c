/*
 * check_ui.c: tests for the front end's floors below ui.c, on a struct ui
 * of the test's own whose calls up (struct ui_calls) are recorded: the
 * mode interface (ui-mode.c: the stack, input and drawing to the top
 * mode alone, close, the mode under told it is on top again, optional
 * callbacks), view mode through it (keys, drawing, its timer working
 * only while on top), the lower files calling up through ui_calls alone
 * (the paste buffer, the panel's notices, zoom), a typed line under the
 * bindings (ui-edit.c) and the drawing primitives (ui-draw.c) on a real
 * curses screen written to /dev/null.  The suite runs in the C.UTF-8
 * locale, as jobdeck does in a UTF-8 terminal.
 */
#include <check.h>
#include <curses.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "bind.h"
#include "lineedit.h"
#include "loop.h"
#include "skip.h"
#include "ui-private.h"
#include "xmalloc.h"

#define REC_MAX	64

/* What the calls up and the fake modes were asked, in order. */
struct rec {
	char	 log[REC_MAX][64];
	int	 n;
	int	 dirty;		/* the parts marked, or'ed */
	int	 urgent;
	char	 message[256];
	int	 error;
};

static struct rec	rec;

/* Append one line to the record. */
static void
rec_add(const char *what, const char *name)
{
	ck_assert_int_lt(rec.n, REC_MAX);
	snprintf(rec.log[rec.n++], sizeof rec.log[0], "%s %s", what, name);
}

/* Tell whether the record has line want (what, then the mode's name). */
static int
rec_has(const char *want)
{
	int	i;

	for (i = 0; i < rec.n; i++)
		if (strcmp(rec.log[i], want) == 0)
			return 1;
	return 0;
}

/* The calls up: a message. */
static void
fake_message(const char *msg, int error, void *arg)
{
	(void)arg;
	snprintf(rec.message, sizeof rec.message, "%s", msg);
	rec.error = error;
	rec_add("message", msg);
}

/* The calls up: a redraw. */
static void
fake_dirty(int what, int urgent, void *arg)
{
	(void)arg;
	rec.dirty |= what;
	rec.urgent |= urgent;
}

/* The calls up: a selection. */
static void
fake_select(struct job *job, void *arg)
{
	(void)arg;
	rec_add("select", job == NULL ? "none" : "job");
}

/* The calls up: a step of the selection. */
static void
fake_select_step(int delta, void *arg)
{
	(void)arg;
	rec_add("step", delta > 0 ? "down" : "up");
}

/* The calls up: a scroll of the pane. */
static void
fake_scroll(int delta, void *arg)
{
	(void)arg;
	rec_add("scroll", delta > 0 ? "back" : "forward");
}

static const struct ui_calls fake_calls = {
	.message = fake_message,
	.dirty = fake_dirty,
	.select = fake_select,
	.select_step = fake_select_step,
	.scroll_pane = fake_scroll,
};

/* A front end of the test's own: rows x cols, a pane, the default keys. */
static struct ui *
fake_ui(int rows, int cols)
{
	struct ui	*ui;

	memset(&rec, 0, sizeof rec);
	ui = xcalloc(1, sizeof *ui);
	ui->calls = &fake_calls;
	ui->calls_arg = ui;
	ui->rows = rows;
	ui->cols = cols;
	ui->panel = (struct ui_rect){ 0, 0, rows - 1, cols / 3 };
	ui->pane = (struct ui_rect){ 0, cols / 3, rows - 1, cols - cols / 3 };
	ui->loop = loop_new();
	ui->bind = bind_new();
	return ui;
}

/* Free a front end from fake_ui() and its modes. */
static void
fake_ui_free(struct ui *ui)
{
	ui_mode_close_all(ui);
	bind_free((struct bind *)ui->bind);
	loop_free(ui->loop);
	free(ui->clip);
	free(ui->notices);
	free(ui);
}

/* A fake mode's callbacks: each says what it was asked, with its name. */
static void
fake_draw(struct ui_mode_entry *me)
{
	rec_add("draw", me->data);
}

/* A fake mode's bottom line: recorded. */
static void
fake_draw_bottom(struct ui_mode_entry *me)
{
	rec_add("bottom", me->data);
}

/* A fake mode's cursor: recorded, at 3,4. */
static int
fake_cursor(struct ui_mode_entry *me, int *y, int *x)
{
	rec_add("cursor", me->data);
	*y = 3;
	*x = 4;
	return 1;
}

/* A fake mode's key: recorded. */
static void
fake_key(struct ui_mode_entry *me, int rc, unsigned int key)
{
	(void)rc;
	(void)key;
	rec_add("key", me->data);
}

/* A fake mode's mouse event: recorded. */
static void
fake_mouse(struct ui_mode_entry *me, const struct input_mouse *m)
{
	(void)m;
	rec_add("mouse", me->data);
}

/* A fake mode's paste: recorded. */
static void
fake_paste(struct ui_mode_entry *me, const char *text, size_t len)
{
	(void)text;
	(void)len;
	rec_add("paste", me->data);
}

/* A fake mode's resize: recorded. */
static void
fake_resize(struct ui_mode_entry *me)
{
	rec_add("resize", me->data);
}

/* A fake mode's close: recorded. */
static void
fake_close(struct ui_mode_entry *me)
{
	rec_add("close", me->data);
}

/* A mode over the whole screen with every callback. */
static const struct ui_mode fake_full = {
	.name = "full",
	.draw = fake_draw,
	.draw_bottom = fake_draw_bottom,
	.cursor = fake_cursor,
	.key = fake_key,
	.mouse = fake_mouse,
	.paste = fake_paste,
	.resize = fake_resize,
	.close = fake_close,
};

/* A mode in the pane with only the callbacks it must have. */
static const struct ui_mode fake_bare = {
	.name = "bare",
	.flags = UI_MODE_PANE,
	.draw = fake_draw,
	.key = fake_key,
	.close = fake_close,
};

/*
 * Modes stack: input and drawing go to the top one alone; closing it
 * tells the one under that it is on top again; every close is called,
 * the top first, and each change redraws the whole screen at once.
 */
START_TEST(test_mode_stack)
{
	struct ui		*ui = fake_ui(24, 90);
	struct ui_mode_entry	*a, *b;
	struct input_mouse	 m = { 0, 0, INPUT_WHEEL_UP, 1, 0, 0 };
	struct ui_rect		 r;
	int			 y, x;

	ck_assert(!ui_mode_key(ui, OK, 'j'));
	ck_assert(!ui_mode_mouse(ui, &m));
	ck_assert(!ui_mode_paste(ui, "x", 1));
	ck_assert(!ui_mode_cursor(ui, &y, &x));
	ck_assert(!ui_mode_draw_bottom(ui));
	ck_assert_int_eq(rec.n, 0);

	a = ui_mode_push(ui, &fake_full, "A");
	ck_assert_int_eq(rec.dirty, UI_DRAW_ALL);
	ck_assert_int_eq(rec.urgent, 1);
	b = ui_mode_push(ui, &fake_full, "B");
	ck_assert_ptr_eq(ui->mode, b);
	ck_assert_ptr_eq(b->under, a);
	ck_assert(ui_mode_on_top(b));
	ck_assert(!ui_mode_on_top(a));

	ck_assert(ui_mode_key(ui, OK, 'j'));
	ck_assert(ui_mode_mouse(ui, &m));
	ck_assert(ui_mode_paste(ui, "x", 1));
	ui_mode_draw(ui);
	ck_assert(ui_mode_draw_bottom(ui));
	ck_assert(ui_mode_cursor(ui, &y, &x));
	ck_assert_int_eq(y, 3);
	ck_assert_int_eq(x, 4);
	ui_mode_resize(ui);
	ck_assert(rec_has("key B") && rec_has("mouse B") &&
	    rec_has("paste B") && rec_has("draw B") && rec_has("bottom B") &&
	    rec_has("cursor B") && rec_has("resize B"));
	ck_assert(!rec_has("key A") && !rec_has("draw A") &&
	    !rec_has("resize A"));

	/* Over the whole screen but the bottom line. */
	ck_assert(!ui_mode_in_pane(ui));
	ui_mode_rect(b, &r);
	ck_assert_int_eq(r.y, 0);
	ck_assert_int_eq(r.x, 0);
	ck_assert_int_eq(r.h, 23);
	ck_assert_int_eq(r.w, 90);

	rec.n = 0;
	rec.dirty = rec.urgent = 0;
	ui_mode_pop(ui);
	ck_assert_str_eq(rec.log[0], "close B");
	ck_assert_str_eq(rec.log[1], "resize A");
	ck_assert_int_eq(rec.n, 2);
	ck_assert_ptr_eq(ui->mode, a);
	ck_assert(ui_mode_on_top(a));
	ck_assert_int_eq(rec.dirty, UI_DRAW_ALL);
	ck_assert_int_eq(rec.urgent, 1);

	ui_mode_push(ui, &fake_full, "C");
	rec.n = 0;
	ui_mode_close_all(ui);
	ck_assert_ptr_null(ui->mode);
	ck_assert_str_eq(rec.log[0], "close C");
	ck_assert_str_eq(rec.log[1], "resize A");
	ck_assert_str_eq(rec.log[2], "close A");
	ck_assert_int_eq(rec.n, 3);
	ui_mode_pop(ui);	/* none open: nothing */
	ck_assert_int_eq(rec.n, 3);
	fake_ui_free(ui);
}
END_TEST

/*
 * A mode in the pane is drawn there; one without the optional callbacks
 * takes input and drops it, shows no cursor and no bottom line, and the
 * one it covered is told nothing when it closes if it has no resize.
 */
START_TEST(test_mode_bare)
{
	struct ui		*ui = fake_ui(24, 90);
	struct ui_mode_entry	*me;
	struct input_mouse	 m = { 5, 40, INPUT_BUTTON_LEFT, 1, 0, 0 };
	struct ui_rect		 r;
	int			 y = -1, x = -1;

	me = ui_mode_push(ui, &fake_bare, "P");
	ck_assert(ui_mode_in_pane(ui));
	ui_mode_rect(me, &r);
	ck_assert_int_eq(r.y, ui->pane.y);
	ck_assert_int_eq(r.x, ui->pane.x);
	ck_assert_int_eq(r.h, ui->pane.h);
	ck_assert_int_eq(r.w, ui->pane.w);
	ck_assert(ui_mode_mouse(ui, &m));
	ck_assert(ui_mode_paste(ui, "text", 4));
	ck_assert(!ui_mode_cursor(ui, &y, &x));
	ck_assert_int_eq(y, -1);
	ck_assert(!ui_mode_draw_bottom(ui));
	ui_mode_resize(ui);
	ck_assert_int_eq(rec.n, 0);
	ck_assert(ui_mode_key(ui, OK, 'x'));
	ck_assert(rec_has("key P"));
	fake_ui_free(ui);
	ck_assert(rec_has("close P"));
}
END_TEST

/* Lines "line 1" .. "line n" for a view. */
static char **
view_lines(int n)
{
	char	**lines;
	int	  i;

	lines = xcalloc((size_t)n + 1, sizeof *lines);
	for (i = 0; i < n; i++)
		lines[i] = xprintf("line %d", i + 1);
	return lines;
}

/* Free lines from view_lines(). */
static void
view_lines_free(char **lines, int n)
{
	int	i;

	for (i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

/*
 * View mode through the interface: a key of its bindings moves it (G:
 * the last page), the wheel scrolls it, a paste is dropped unless a
 * search is typed, and q closes it, freeing its view.
 */
START_TEST(test_view_keys)
{
	struct ui		*ui = fake_ui(24, 90);
	struct ui_pager		*p;
	struct input_mouse	 m = { 3, 3, INPUT_WHEEL_UP, 1, 0, 0 };
	char			**lines = view_lines(100);
	const wchar_t		*text;
	size_t			 len;
	int			 body, y, x;

	ui_view_open(ui, "Lines", lines, 100, 0, NULL);
	view_lines_free(lines, 100);
	ck_assert_ptr_nonnull(ui->mode);
	p = ui->mode->data;
	body = ui_pager_body(p);
	ck_assert_int_eq(body, 24 - 1 - 2);
	ck_assert_int_eq(p->top, 0);

	ck_assert(ui_mode_key(ui, OK, 'G'));
	ck_assert_int_eq(p->top, 100 - body);
	ck_assert(ui_mode_mouse(ui, &m));
	ck_assert_int_eq(p->top, 100 - body - UI_WHEEL_LINES);
	ck_assert(ui_mode_key(ui, OK, 'g'));
	ck_assert_int_eq(p->top, 0);

	ui_mode_paste(ui, "needle\nrest", 11);
	ck_assert_ptr_null(p->edit);
	ui_mode_key(ui, OK, '/');
	ck_assert_int_eq(p->prompt, '/');
	ui_mode_paste(ui, "needle\nrest", 11);
	text = lineedit_text(p->edit, &len);
	ck_assert_int_eq(len, 6);
	ck_assert(wmemcmp(text, L"needle", 6) == 0);
	ck_assert(ui_mode_cursor(ui, &y, &x));
	ck_assert_int_eq(y, 23);
	ck_assert_int_eq(x, 1 + 6);
	ui_mode_key(ui, OK, 0x1b);	/* Esc leaves the search line */
	ck_assert_int_eq(p->prompt, 0);

	ui_mode_key(ui, OK, 'q');
	ck_assert_ptr_null(ui->mode);
	fake_ui_free(ui);
}
END_TEST

/* Run the loop until the view's timer has fired (or give up). */
static void
view_run_timer(struct ui *ui, const struct ui_pager *p)
{
	int	i;

	for (i = 0; i < 1000 && p->timer != 0; i++)
		loop_run_once(ui->loop, 100);
	ck_assert_msg(p->timer == 0, "the view's timer never fired");
}

/*
 * A view's timer works only while its mode is on top: covered, it fires
 * and does nothing (its grep step waits); on top again, it is armed and
 * the work is done.
 */
START_TEST(test_view_timer_on_top)
{
	struct ui	*ui = fake_ui(24, 90);
	struct ui_pager	*p;
	char		**lines = view_lines(5);

	ui_view_open(ui, "Lines", lines, 5, 0, NULL);
	view_lines_free(lines, 5);
	p = ui->mode->data;
	p->flags |= UI_PAGER_GREPPING;
	ui_pager_arm(p);
	ck_assert(p->timer != 0);

	ui_mode_push(ui, &fake_bare, "over");
	view_run_timer(ui, p);
	ck_assert_msg(p->flags & UI_PAGER_GREPPING,
	    "a covered view did its work");
	ui_pager_arm(p);
	ck_assert_msg(p->timer == 0, "a covered view armed its timer");

	ui_mode_pop(ui);
	ck_assert_msg(p->timer != 0, "the view on top again was not armed");
	view_run_timer(ui, p);
	ck_assert_msg(!(p->flags & UI_PAGER_GREPPING),
	    "the view on top did not do its work");
	fake_ui_free(ui);
}
END_TEST

/* Start curses on /dev/null (a 24x80 xterm-256color); 0 if it cannot. */
static SCREEN *
screen_start(FILE **out, FILE **in)
{
	SCREEN	*s;

	*out = fopen("/dev/null", "w");
	*in = fopen("/dev/null", "r");
	if (*out == NULL || *in == NULL)
		return NULL;
	if ((s = newterm("xterm-256color", *out, *in)) == NULL)
		return NULL;
	resize_term(24, 80);
	return s;
}

/* End curses from screen_start(). */
static void
screen_end(SCREEN *s, FILE *out, FILE *in)
{
	endwin();
	delscreen(s);
	fclose(out);
	fclose(in);
}

/* The character at y, x of the screen, with its attributes in *attr. */
static wchar_t
screen_char(int y, int x, attr_t *attr)
{
	cchar_t	cc;
	wchar_t	wc[CCHARW_MAX + 1];
	short	pair;

	mvin_wch(y, x, &cc);
	getcchar(&cc, wc, attr, &pair, NULL);
	return wc[0];
}

/* The text of columns [x, x + n) of row y, UTF-8. */
static char *
screen_text(int y, int x, int n, char *buf, size_t size)
{
	wchar_t	ws[256];
	attr_t	attr;
	int	i;

	for (i = 0; i < n && i < 255; i++)
		ws[i] = screen_char(y, x + i, &attr);
	ws[i] = L'\0';
	wcstombs(buf, ws, size);
	return buf;
}

/*
 * The primitives draw on a real curses screen: text cut to its width,
 * whole wide characters only, attributes, a box with its title, a line
 * with its right side, marked spans reversed.
 */
START_TEST(test_draw_primitives)
{
	struct ui_rect	 r = { 5, 10, 4, 20 };
	size_t		 so[] = { 2, 6 }, eo[] = { 4, 7 };
	SCREEN		*s;
	FILE		*out, *in;
	attr_t		 attr;
	char		 buf[512];
	int		 i;

	if ((s = screen_start(&out, &in)) == NULL)
		TEST_SKIP("no xterm-256color terminfo to draw on");
	ck_assert_int_eq(ui_put_text(0, 2, 5, "héllo wörld", A_BOLD, 0), 5);
	ck_assert_str_eq(screen_text(0, 2, 6, buf, sizeof buf), "héllo ");
	ck_assert(screen_char(0, 3, &attr) == L'é');
	ck_assert(attr & A_BOLD);
	ck_assert(screen_char(0, 7, &attr) == L' ');

	/* A wide character that does not fit is not drawn in half. */
	ck_assert_int_eq(ui_put_text(1, 0, 3, "日本", A_NORMAL, 0), 2);
	ck_assert(screen_char(1, 0, &attr) == L'日');
	ck_assert(screen_char(1, 2, &attr) == L' ');

	ui_box(&r, "Title", "R", A_NORMAL, 0);
	ck_assert(screen_char(5, 10, &attr) == L'┌');
	ck_assert(screen_char(5, 29, &attr) == L'┐');
	ck_assert(screen_char(8, 10, &attr) == L'└');
	ck_assert(screen_char(8, 29, &attr) == L'┘');
	ck_assert(screen_char(6, 10, &attr) == L'│');
	ck_assert_str_eq(screen_text(5, 12, 5, buf, sizeof buf), "Title");
	ck_assert(screen_char(5, 27, &attr) == L'R');

	ui_line(10, 0, 20, "left", A_NORMAL, 0, "right", A_NORMAL, 0);
	ck_assert_str_eq(screen_text(10, 0, 20, buf, sizeof buf),
	    "left           right");

	ck_assert_int_eq(ui_put_marked(12, 0, 20, "abcdefgh", 8, so, eo, 2,
	    A_NORMAL, 0), 8);
	for (i = 0; i < 8; i++) {
		screen_char(12, i, &attr);
		ck_assert_msg(((attr & A_REVERSE) != 0) ==
		    ((i >= 2 && i < 4) || i == 6),
		    "column %d reversed wrongly", i);
	}
	screen_end(s, out, in);
}
END_TEST

/*
 * View mode drawn through the interface on a real screen: its box over
 * all but the bottom line, its title and first lines, and its bottom
 * line of keys read from the bindings.
 */
START_TEST(test_view_draw)
{
	struct ui	*ui;
	SCREEN		*s;
	FILE		*out, *in;
	char		**lines = view_lines(40), buf[512];
	attr_t		 attr;

	if ((s = screen_start(&out, &in)) == NULL)
		TEST_SKIP("no xterm-256color terminfo to draw on");
	ui = fake_ui(24, 80);
	ui_view_open(ui, "Forty lines", lines, 40, 0, NULL);
	view_lines_free(lines, 40);
	ui_mode_draw(ui);
	ck_assert(ui_mode_draw_bottom(ui));
	ck_assert(screen_char(0, 0, &attr) == L'┌');
	ck_assert(screen_char(22, 79, &attr) == L'┘');
	ck_assert_str_eq(screen_text(0, 2, 11, buf, sizeof buf),
	    "Forty lines");
	ck_assert_str_eq(screen_text(1, 1, 7, buf, sizeof buf), "line 1 ");
	ck_assert_str_eq(screen_text(21, 1, 7, buf, sizeof buf), "line 21");
	screen_text(23, 0, 80, buf, sizeof buf);
	ck_assert_msg(strstr(buf, "q: close") != NULL,
	    "the bottom line has no keys: \"%s\"", buf);
	fake_ui_free(ui);
	screen_end(s, out, in);
}
END_TEST

/*
 * The lower files call up through ui_calls alone: the paste buffer says
 * what it copied and why it cannot paste, the panel's notices and zoom
 * ask for a redraw.
 */
START_TEST(test_calls_up)
{
	struct ui	*ui = fake_ui(24, 90);
	struct job	*job = (struct job *)&rec;	/* only its address */

	ui->clipboard = 0;
	ui_clip_set(ui, "one\ntwo", 7);
	ck_assert_str_eq(rec.message,
	    "copied 2 lines (7 bytes) to the paste buffer");
	ck_assert_int_eq(rec.error, 0);
	ck_assert_int_eq(ui->clip_len, 7);
	ck_assert_str_eq(ui->clip, "one\ntwo");
	free(ui->clip);
	ui->clip = NULL;
	ui->clip_len = 0;
	ck_assert_int_eq(ui_clip_paste(ui, NULL), -1);
	ck_assert_str_eq(rec.message,
	    "the paste buffer is empty: copy something first");
	ck_assert_int_eq(rec.error, 1);

	rec.dirty = rec.urgent = 0;
	ui_panel_notice(ui, job, 1);
	ck_assert(ui_panel_noticed(ui, job));
	ck_assert_int_eq(rec.dirty, UI_DRAW_PANEL);
	ck_assert_int_eq(rec.urgent, 0);
	rec.dirty = 0;
	ui_panel_notice(ui, job, 1);	/* marked already */
	ck_assert_int_eq(rec.dirty, 0);
	ui_panel_notice(ui, job, 0);
	ck_assert(!ui_panel_noticed(ui, job));
	ck_assert_int_eq(rec.dirty, UI_DRAW_PANEL);
	fake_ui_free(ui);
}
END_TEST

/*
 * A typed line under the bindings: the edit actions are the line
 * editor's, pasted text goes in at the cursor, a byte that is not UTF-8
 * skipped, up to the stop character.
 */
START_TEST(test_edit)
{
	struct lineedit	*le = lineedit_new(10);
	const wchar_t	*text;
	size_t		 len;

	ck_assert_int_eq(ui_edit_translate(BIND_EDIT_LEFT), LINEEDIT_LEFT);
	ck_assert_int_eq(ui_edit_translate(BIND_EDIT_KILL_WORD),
	    LINEEDIT_KILL_WORD);
	ck_assert_int_eq(ui_edit_translate(BIND_EDIT_NEXT), LINEEDIT_NEXT);
	ck_assert_int_eq(ui_edit_translate(BIND_SUBMIT), -1);
	ck_assert_int_eq(ui_edit_translate(BIND_ZOOM), -1);

	ui_edit_insert(le, "ab\xff" "cé\nd", 8, '\n');
	text = lineedit_text(le, &len);
	ck_assert_int_eq(len, 4);
	ck_assert(wmemcmp(text, L"abcé", 4) == 0);
	lineedit_do(le, LINEEDIT_CLEAR);
	ui_edit_insert(le, "x\ny", 3, 0);
	text = lineedit_text(le, &len);
	ck_assert_int_eq(len, 3);
	ck_assert(wmemcmp(text, L"x\ny", 3) == 0);
	lineedit_free(le);
}
END_TEST

/*
 * Widths and fits: a character's columns as shown (a mark none, a wide
 * one two, a byte that is not UTF-8 one), a typed character never
 * fewer than one, text cut at its end or in its middle with an ellipsis,
 * brackets kept whole.
 */
START_TEST(test_text_fit)
{
	char	out[64];

	ck_assert_int_eq(ui_text_width("abc"), 3);
	ck_assert_int_eq(ui_text_width("日本"), 4);
	ck_assert_int_eq(ui_text_width("e\xcc\x81"), 1);
	ck_assert_int_eq(ui_text_width("\xff"), 1);
	ck_assert_int_eq(ui_text_widthn("日本", 3), 2);
	ck_assert_int_eq(ui_text_wcwidth(L'a'), 1);
	ck_assert_int_eq(ui_text_wcwidth(L'日'), 2);
	ck_assert_int_eq(ui_text_wcwidth(L'\t'), 1);
	ck_assert_int_eq(ui_text_wcwidth(0x301), 1);

	ui_fit("abcdef", 6, out, sizeof out);
	ck_assert_str_eq(out, "abcdef");
	ui_fit("abcdef", 4, out, sizeof out);
	ck_assert_str_eq(out, "abc…");
	ui_fit("日本語", 4, out, sizeof out);
	ck_assert_str_eq(out, "日…");
	ui_fit_middle("abcdefghij", 5, out, sizeof out);
	ck_assert_str_eq(out, "ab…ij");
	ui_fit_inside("Processes (", "12 running", ")", 18, out, sizeof out);
	ck_assert_str_eq(out, "Processes (12 ru…)");
	ui_fit_inside("Processes (", "12 running", ")", 8, out, sizeof out);
	ck_assert_str_eq(out, "Process…");
}
END_TEST

/* The suite: the mode interface, view mode, calls up, primitives. */
static Suite *
ui_suite(void)
{
	Suite	*s = suite_create("ui");
	TCase	*tc;

	tc = tcase_create("mode");
	tcase_add_test(tc, test_mode_stack);
	tcase_add_test(tc, test_mode_bare);
	tcase_add_test(tc, test_view_keys);
	tcase_add_test(tc, test_view_timer_on_top);
	tcase_add_test(tc, test_view_draw);
	suite_add_tcase(s, tc);

	tc = tcase_create("floors");
	tcase_add_test(tc, test_calls_up);
	tcase_add_test(tc, test_edit);
	tcase_add_test(tc, test_text_fit);
	tcase_add_test(tc, test_draw_primitives);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite in a UTF-8 locale; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr;
	int	 failed;

	if (setlocale(LC_ALL, "C.UTF-8") == NULL) {
		fprintf(stderr, "check_ui: no C.UTF-8 locale\n");
		return EXIT_FAILURE;
	}
	sr = srunner_create(ui_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
