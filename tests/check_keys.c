/*
 * check_keys.c: tests for turning curses keys into emulator key events and
 * then into the bytes a child reads.  One table gives, for each key
 * wget_wch() can return, the event keys_translate() must make and the bytes
 * a real vt sends for it in normal and in application cursor mode
 * (DECCKM, "\e[?1h"), caught through the vt's output callback.  The
 * modified cursor keys ncurses numbers at run time (kUP5 for Ctrl+Up) are
 * learned from the xterm-256color terminfo entry through a real newterm().
 */
#include <curses.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "keys.h"
#include "vt.h"

/* Bytes the vt sent to its child. */
struct sent {
	char	buf[256];
	size_t	len;
};

/* Keep the bytes a vt sends. */
static void
sent_output(const char *buf, size_t len, void *arg)
{
	struct sent	*s = arg;

	ck_assert_uint_le(s->len + len, sizeof s->buf - 1);
	memcpy(s->buf + s->len, buf, len);
	s->len += len;
	s->buf[s->len] = '\0';
}

static const struct vt_cbs sent_cbs = {
	.output = sent_output,
};

/* Return a printable form of bytes (escapes as \e, controls as \xNN). */
static const char *
visible(const char *s, size_t len, char *buf, size_t size)
{
	size_t	i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < len && n + 5 < size; i++) {
		if (s[i] == '\033')
			n += (size_t)snprintf(buf + n, size - n, "\\e");
		else if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			n += (size_t)snprintf(buf + n, size - n, "\\x%02x",
			    (unsigned char)s[i]);
		else
			buf[n++] = s[i];
	}
	buf[n] = '\0';
	return buf;
}

#define OK_CH(c)	OK, (wint_t)(c)
#define CODE(k)		KEY_CODE_YES, (wint_t)(k)

/* A wget_wch() result, its event, and its bytes in both cursor modes. */
static const struct key_case {
	const char	*name;
	int		 rc;
	wint_t		 wch;
	enum keys_kind	 kind;
	uint32_t	 ch;
	int		 key;		/* enum vt_key */
	unsigned int	 mods;
	const char	*normal;
	const char	*app;
} key_cases[] = {
	/* Characters and C0 bytes. */
	{ "a", OK_CH('a'), KEYS_CHAR, 'a', VT_KEY_NONE, 0, "a", "a" },
	{ "Z", OK_CH('Z'), KEYS_CHAR, 'Z', VT_KEY_NONE, 0, "Z", "Z" },
	{ "space", OK_CH(' '), KEYS_CHAR, ' ', VT_KEY_NONE, 0, " ", " " },
	{ "e acute", OK_CH(0xe9), KEYS_CHAR, 0xe9, VT_KEY_NONE, 0,
	    "\xc3\xa9", "\xc3\xa9" },
	{ "CJK", OK_CH(0x65e5), KEYS_CHAR, 0x65e5, VT_KEY_NONE, 0,
	    "\xe6\x97\xa5", "\xe6\x97\xa5" },
	{ "Ctrl+C", OK_CH(0x03), KEYS_CHAR, 0x03, VT_KEY_NONE, 0,
	    "\x03", "\x03" },
	{ "Ctrl+D", OK_CH(0x04), KEYS_CHAR, 0x04, VT_KEY_NONE, 0,
	    "\x04", "\x04" },
	{ "Esc", OK_CH(0x1b), KEYS_CHAR, 0x1b, VT_KEY_NONE, 0,
	    "\033", "\033" },
	{ "Tab", OK_CH('\t'), KEYS_CHAR, '\t', VT_KEY_NONE, 0, "\t", "\t" },
	{ "DEL byte", OK_CH(0x7f), KEYS_CHAR, 0x7f, VT_KEY_NONE, 0,
	    "\x7f", "\x7f" },
	{ "Enter CR", OK_CH('\r'), KEYS_KEY, 0, VT_KEY_ENTER, 0, "\r", "\r" },
	{ "Ctrl+J (LF)", OK_CH('\n'), KEYS_CHAR, '\n', VT_KEY_NONE, 0, "\n",
	    "\n" },

	/* Cursor keys: the only ones DECCKM changes. */
	{ "Up", CODE(KEY_UP), KEYS_KEY, 0, VT_KEY_UP, 0, "\033[A", "\033OA" },
	{ "Down", CODE(KEY_DOWN), KEYS_KEY, 0, VT_KEY_DOWN, 0,
	    "\033[B", "\033OB" },
	{ "Right", CODE(KEY_RIGHT), KEYS_KEY, 0, VT_KEY_RIGHT, 0,
	    "\033[C", "\033OC" },
	{ "Left", CODE(KEY_LEFT), KEYS_KEY, 0, VT_KEY_LEFT, 0,
	    "\033[D", "\033OD" },
	{ "Shift+Up", CODE(KEY_SR), KEYS_KEY, 0, VT_KEY_UP, VT_MOD_SHIFT,
	    "\033[1;2A", "\033[1;2A" },
	{ "Shift+Down", CODE(KEY_SF), KEYS_KEY, 0, VT_KEY_DOWN, VT_MOD_SHIFT,
	    "\033[1;2B", "\033[1;2B" },
	{ "Shift+Left", CODE(KEY_SLEFT), KEYS_KEY, 0, VT_KEY_LEFT,
	    VT_MOD_SHIFT, "\033[1;2D", "\033[1;2D" },
	{ "Shift+Right", CODE(KEY_SRIGHT), KEYS_KEY, 0, VT_KEY_RIGHT,
	    VT_MOD_SHIFT, "\033[1;2C", "\033[1;2C" },
	{ "Home", CODE(KEY_HOME), KEYS_KEY, 0, VT_KEY_HOME, 0,
	    "\033[H", "\033OH" },
	{ "End", CODE(KEY_END), KEYS_KEY, 0, VT_KEY_END, 0,
	    "\033[F", "\033OF" },

	/* Editing and paging keys. */
	{ "Insert", CODE(KEY_IC), KEYS_KEY, 0, VT_KEY_INS, 0,
	    "\033[2~", "\033[2~" },
	{ "Delete", CODE(KEY_DC), KEYS_KEY, 0, VT_KEY_DEL, 0,
	    "\033[3~", "\033[3~" },
	{ "Shift+Delete", CODE(KEY_SDC), KEYS_KEY, 0, VT_KEY_DEL,
	    VT_MOD_SHIFT, "\033[3;2~", "\033[3;2~" },
	{ "PgUp", CODE(KEY_PPAGE), KEYS_KEY, 0, VT_KEY_PAGEUP, 0,
	    "\033[5~", "\033[5~" },
	{ "PgDn", CODE(KEY_NPAGE), KEYS_KEY, 0, VT_KEY_PAGEDOWN, 0,
	    "\033[6~", "\033[6~" },
	{ "Backspace", CODE(KEY_BACKSPACE), KEYS_KEY, 0, VT_KEY_BACKSPACE, 0,
	    "\x7f", "\x7f" },
	{ "Shift+Tab", CODE(KEY_BTAB), KEYS_KEY, 0, VT_KEY_TAB, VT_MOD_SHIFT,
	    "\033[Z", "\033[Z" },
	{ "keypad Enter", CODE(KEY_ENTER), KEYS_KEY, 0, VT_KEY_ENTER, 0,
	    "\r", "\r" },

	/* Function keys; xterm reports Shift+F5 as F17, Ctrl+F5 as F29. */
	{ "F1", CODE(KEY_F(1)), KEYS_KEY, 0, VT_KEY_F0 + 1, 0,
	    "\033OP", "\033OP" },
	{ "F5", CODE(KEY_F(5)), KEYS_KEY, 0, VT_KEY_F0 + 5, 0,
	    "\033[15~", "\033[15~" },
	{ "F12", CODE(KEY_F(12)), KEYS_KEY, 0, VT_KEY_F0 + 12, 0,
	    "\033[24~", "\033[24~" },
	{ "Shift+F1", CODE(KEY_F(13)), KEYS_KEY, 0, VT_KEY_F0 + 1,
	    VT_MOD_SHIFT, "\033[1;2P", "\033[1;2P" },
	{ "Shift+F5", CODE(KEY_F(17)), KEYS_KEY, 0, VT_KEY_F0 + 5,
	    VT_MOD_SHIFT, "\033[15;2~", "\033[15;2~" },
	{ "Ctrl+F5", CODE(KEY_F(29)), KEYS_KEY, 0, VT_KEY_F0 + 5,
	    VT_MOD_CTRL, "\033[15;5~", "\033[15;5~" },
	{ "Ctrl+Shift+F12", CODE(KEY_F(48)), KEYS_KEY, 0, VT_KEY_F0 + 12,
	    VT_MOD_CTRL | VT_MOD_SHIFT, "\033[24;6~", "\033[24;6~" },
	{ "Alt+F5", CODE(KEY_F(53)), KEYS_KEY, 0, VT_KEY_F0 + 5,
	    VT_MOD_ALT, "\033[15;3~", "\033[15;3~" },

	/* Keys with no meaning for a child. */
	{ "resize", CODE(KEY_RESIZE), KEYS_NONE, 0, VT_KEY_NONE, 0, "", "" },
	{ "mouse", CODE(KEY_MOUSE), KEYS_NONE, 0, VT_KEY_NONE, 0, "", "" },
	{ "F0", CODE(KEY_F(0)), KEYS_NONE, 0, VT_KEY_NONE, 0, "", "" },
	{ "ERR", ERR, 0, KEYS_NONE, 0, VT_KEY_NONE, 0, "", "" },
};

/* Each row translates to its event. */
START_TEST(test_translate)
{
	const struct key_case	*c = &key_cases[_i];
	struct keys		*k = keys_new();
	struct keys_event	 ev;
	int			 r;

	memset(&ev, 0xa5, sizeof ev);
	r = keys_translate(k, c->rc, c->wch, &ev);
	ck_assert_msg(r == (c->kind != KEYS_NONE), "%s: returned %d", c->name,
	    r);
	ck_assert_msg(ev.kind == c->kind, "%s: kind %d", c->name, ev.kind);
	ck_assert_msg(ev.ch == c->ch, "%s: ch %#x", c->name, ev.ch);
	ck_assert_msg((int)ev.key == c->key, "%s: key %d, want %d", c->name,
	    (int)ev.key, c->key);
	ck_assert_msg(ev.mods == c->mods, "%s: mods %u, want %u", c->name,
	    ev.mods, c->mods);
	keys_free(k);
}
END_TEST

/* Send the row's key to vt and assert the bytes it sends are want. */
static void
assert_sends(const struct key_case *c, struct keys *k, struct vt *vt,
    struct sent *s, const char *want, const char *mode)
{
	struct keys_event	ev;
	char			got[128], exp[128];

	s->len = 0;
	s->buf[0] = '\0';
	keys_translate(k, c->rc, c->wch, &ev);
	keys_send(vt, &ev);
	ck_assert_msg(s->len == strlen(want) && memcmp(s->buf, want,
	    s->len) == 0, "%s (%s): sent \"%s\", want \"%s\"", c->name, mode,
	    visible(s->buf, s->len, got, sizeof got),
	    visible(want, strlen(want), exp, sizeof exp));
}

/* Each row's key reaches a real vt's child as the right bytes. */
START_TEST(test_send)
{
	const struct key_case	*c = &key_cases[_i];
	struct keys		*k = keys_new();
	struct sent		 s;
	struct vt		*vt;

	memset(&s, 0, sizeof s);
	vt = vt_new(24, 80, 100, &sent_cbs, &s);
	assert_sends(c, k, vt, &s, c->normal, "normal");

	/* Application cursor keys, as less and vim ask for; and back. */
	s.len = 0;
	vt_feed(vt, "\033[?1h", 5);
	ck_assert_uint_eq(s.len, 0);
	assert_sends(c, k, vt, &s, c->app, "application");
	vt_feed(vt, "\033[?1l", 5);
	assert_sends(c, k, vt, &s, c->normal, "normal again");
	vt_free(vt);
	keys_free(k);
}
END_TEST

/*
 * With curses set up on xterm-256color and keypad on, keys_new() learns
 * the codes ncurses gave the modified cursor keys, and Ctrl+Up reaches
 * the child as xterm sends it.
 */
START_TEST(test_learned_keys)
{
	static const struct {
		const char	*cap;
		int		 key;
		unsigned int	 mods;
		const char	*bytes;
	} learned[] = {
		{ "kUP5", VT_KEY_UP, VT_MOD_CTRL, "\033[1;5A" },
		{ "kDN3", VT_KEY_DOWN, VT_MOD_ALT, "\033[1;3B" },
		{ "kLFT6", VT_KEY_LEFT, VT_MOD_CTRL | VT_MOD_SHIFT,
		    "\033[1;6D" },
		{ "kRIT5", VT_KEY_RIGHT, VT_MOD_CTRL, "\033[1;5C" },
		{ "kHOM5", VT_KEY_HOME, VT_MOD_CTRL, "\033[1;5H" },
		{ "kDC5", VT_KEY_DEL, VT_MOD_CTRL, "\033[3;5~" },
		{ "kNXT3", VT_KEY_PAGEDOWN, VT_MOD_ALT, "\033[6;3~" },
	};
	struct keys_event	 ev;
	struct keys		*k, *bare;
	struct sent		 s;
	struct vt		*vt;
	SCREEN			*scr;
	FILE			*out, *in;
	char			*seq, got[64];
	size_t			 i;
	int			 code;

	/* Without curses nothing is learned. */
	bare = keys_new();

	out = fopen("/dev/null", "w");
	in = fopen("/dev/null", "r");
	ck_assert_ptr_nonnull(out);
	ck_assert_ptr_nonnull(in);
	scr = newterm("xterm-256color", out, in);
	ck_assert_msg(scr != NULL, "no xterm-256color terminfo entry");
	set_term(scr);
	keypad(stdscr, TRUE);
	k = keys_new();

	memset(&s, 0, sizeof s);
	vt = vt_new(24, 80, 100, &sent_cbs, &s);
	for (i = 0; i < sizeof learned / sizeof learned[0]; i++) {
		seq = tigetstr(learned[i].cap);
		ck_assert_msg(seq != NULL && seq != (char *)-1,
		    "terminfo has no %s", learned[i].cap);
		code = key_defined(seq);
		ck_assert_msg(code >= KEY_MIN, "%s has no key code (%d)",
		    learned[i].cap, code);

		ck_assert_int_eq(keys_translate(k, KEY_CODE_YES, (wint_t)code,
		    &ev), 1);
		ck_assert_int_eq(ev.kind, KEYS_KEY);
		ck_assert_msg((int)ev.key == learned[i].key &&
		    ev.mods == learned[i].mods, "%s: key %d mods %u",
		    learned[i].cap, (int)ev.key, ev.mods);

		s.len = 0;
		keys_send(vt, &ev);
		ck_assert_msg(s.len == strlen(learned[i].bytes) &&
		    memcmp(s.buf, learned[i].bytes, s.len) == 0,
		    "%s: sent %s", learned[i].cap,
		    visible(s.buf, s.len, got, sizeof got));

		ck_assert_int_eq(keys_translate(bare, KEY_CODE_YES,
		    (wint_t)code, &ev), 0);
		ck_assert_int_eq(ev.kind, KEYS_NONE);
	}
	vt_free(vt);
	keys_free(k);
	keys_free(bare);
	endwin();
	delscreen(scr);
	fclose(out);
	fclose(in);
}
END_TEST

/* Build the keys suite. */
static Suite *
keys_suite(void)
{
	Suite	*s = suite_create("keys");
	TCase	*tc;
	int	 n = (int)(sizeof key_cases / sizeof key_cases[0]);

	tc = tcase_create("table");
	tcase_add_loop_test(tc, test_translate, 0, n);
	tcase_add_loop_test(tc, test_send, 0, n);
	suite_add_tcase(s, tc);

	tc = tcase_create("terminfo");
	tcase_add_test(tc, test_learned_keys);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr = srunner_create(keys_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
