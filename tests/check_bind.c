/*
 * check_bind: the binding table.  Key names round trip (every named key,
 * C-a to C-z, F1 to F12, UTF-8 characters) and bad names are refused with
 * a specific message; bind_set() takes keys from other actions, refuses
 * typed text at the prompt and will not leave focus without a key;
 * bind_key_code() folds what curses reads; and the man page's and the
 * README's key sections list every entry of bind_defaults[] with its keys
 * and note, mode by mode (run from the top of the tree).
 */
#include <check.h>
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"

/* Read a whole file into a string. */
static char *
slurp(const char *path)
{
	FILE	*f;
	char	*buf;
	long	 len;

	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)len + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/* The config table name of a mode, as the docs title its section. */
static const char *
mode_table(enum bind_mode mode)
{
	static const char *const names[BIND_MODES] = {
		[BIND_MAIN] = "[keys]",
		[BIND_VIEW] = "[keys.view]",
		[BIND_COPY] = "[keys.copy]",
		[BIND_EDIT] = "[keys.edit]",
	};

	return names[mode];
}

/*
 * Return a copy of the section of doc whose heading (a line starting with
 * heading, ending with the mode's table name and ending quote) is the
 * mode's, up to the next line starting with stop.
 */
static char *
doc_section(const char *doc, const char *heading, const char *stop,
    enum bind_mode mode, const char *quote)
{
	const char	*p, *end, *eol;
	char		 want[64];
	size_t		 len;

	snprintf(want, sizeof want, "%s%s\n", mode_table(mode), quote);
	for (p = doc; (p = strstr(p, heading)) != NULL; p++) {
		if (p != doc && p[-1] != '\n')
			continue;
		eol = strchr(p, '\n');
		len = strlen(want);
		if (eol != NULL && (size_t)(eol + 1 - p) >= len &&
		    strncmp(eol + 1 - len, want, len) == 0)
			break;
	}
	ck_assert_msg(p != NULL, "no section %s%s", heading, want);
	end = strstr(p + 1, stop);
	if (end == NULL)
		end = p + strlen(p);
	return strndup(p, (size_t)(end - p));
}

/* Remove every "\&" (mdoc's escape before punctuation) from s. */
static void
strip_escapes(char *s)
{
	char	*r, *w;

	for (r = w = s; *r != '\0'; r++) {
		if (r[0] == '\\' && r[1] == '&') {
			r++;
			continue;
		}
		if (r[0] == '\\' && r[1] == 'e') {	/* a backslash */
			*w++ = *r++;
			continue;
		}
		*w++ = *r;
	}
	*w = '\0';
}

/* Write the words of keys, each as fmt, into buf. */
static void
keys_words(const char *keys, const char *fmt, char *buf, size_t size)
{
	char	*copy, *w, *save = NULL;
	size_t	 len = 0;

	copy = strdup(keys);
	buf[0] = '\0';
	for (w = strtok_r(copy, " ", &save); w != NULL;
	    w = strtok_r(NULL, " ", &save))
		len += (size_t)snprintf(buf + len, size - len, fmt, w);
	free(copy);
}

/* The man page's KEYS section lists every entry, keys and note. */
START_TEST(test_man)
{
	const struct bind_entry	*e;
	char			*man, *sec, keys[256], want[512];

	man = slurp("man/jobdeck.1");
	strip_escapes(man);
	for (e = bind_defaults; e->action != BIND_NONE; e++) {
		sec = doc_section(man, ".Ss ", "\n.Ss ", e->mode, "");
		keys_words(e->keys, " %s", keys, sizeof keys);
		snprintf(want, sizeof want, "\n.It Cm %s Pq Ic%s\n%s\n",
		    e->name, keys, e->note);
		ck_assert_msg(strstr(sec, want) != NULL,
		    "man/jobdeck.1 (%s) lacks:%s", mode_table(e->mode), want);
		free(sec);
	}
	free(man);
}
END_TEST

/* The README's Keys section lists every entry, keys and note. */
START_TEST(test_readme)
{
	const struct bind_entry	*e;
	char			*md, *sec, keys[256], want[512];

	md = slurp("README.md");
	for (e = bind_defaults; e->action != BIND_NONE; e++) {
		sec = doc_section(md, "#### ", "\n#", e->mode, "`");
		keys_words(e->keys, " `%s`", keys, sizeof keys);
		snprintf(want, sizeof want, "\n|%s | %s | %s |\n", keys,
		    e->name, e->note);
		ck_assert_msg(strstr(sec, want) != NULL,
		    "README.md (%s) lacks:%s", mode_table(e->mode), want);
		free(sec);
	}
	free(md);
}
END_TEST

/* The table: every default parses, names are unique within a mode. */
START_TEST(test_table)
{
	const struct bind_entry	*e, *f;
	struct bind		*b;

	b = bind_new();
	for (e = bind_defaults; e->action != BIND_NONE; e++) {
		ck_assert_ptr_eq(bind_entry_find(e->mode, e->name), e);
		ck_assert_ptr_eq(bind_entry_of(e->mode, e->action), e);
		for (f = e + 1; f->action != BIND_NONE; f++)
			ck_assert(f->mode != e->mode ||
			    strcmp(f->name, e->name) != 0);
		ck_assert_int_ne(bind_first_key(b, e->mode, e->action),
		    BIND_NO_KEY);
	}
	ck_assert_int_eq(bind_lookup(b, BIND_MAIN, 0x14), BIND_FOCUS);
	ck_assert_int_eq(bind_lookup(b, BIND_MAIN, 0x0c), BIND_REDRAW);
	ck_assert_int_eq(bind_lookup(b, BIND_EDIT, '\r'), BIND_SUBMIT);
	ck_assert_int_eq(bind_lookup(b, BIND_EDIT, 'a'), BIND_NONE);
	bind_free(b);
}
END_TEST

/* Parse name, check its code, and that the code's name is canon. */
static void
round_trip(const char *name, int code, const char *canon)
{
	char	*cause = NULL, buf[64];
	int	 key = -2;

	ck_assert_msg(bind_key_parse(name, &key, &cause) == 0, "%s: %s", name,
	    cause);
	ck_assert_msg(key == code, "%s: %#x, want %#x", name, key, code);
	ck_assert_str_eq(bind_key_name(key, buf, sizeof buf), canon);
	ck_assert_int_eq(bind_key_parse(buf, &key, &cause), 0);
	ck_assert_int_eq(key, code);
}

/* Every named key, C-a to C-z, F1 to F12, UTF-8 characters. */
START_TEST(test_names)
{
	static const struct {
		const char	*name;
		int		 code;
	} named[] = {
		{ "Enter", '\r' }, { "Tab", '\t' }, { "Esc", 0x1b },
		{ "Backspace", 0x7f }, { "Space", ' ' },
		{ "Up", BIND_CURSES | KEY_UP },
		{ "Down", BIND_CURSES | KEY_DOWN },
		{ "Left", BIND_CURSES | KEY_LEFT },
		{ "Right", BIND_CURSES | KEY_RIGHT },
		{ "Home", BIND_CURSES | KEY_HOME },
		{ "End", BIND_CURSES | KEY_END },
		{ "PageUp", BIND_CURSES | KEY_PPAGE },
		{ "PageDown", BIND_CURSES | KEY_NPAGE },
		{ "Insert", BIND_CURSES | KEY_IC },
		{ "Delete", BIND_CURSES | KEY_DC },
		{ "BTab", BIND_CURSES | KEY_BTAB },
		{ "S-Up", BIND_CURSES | KEY_SR },
		{ "S-Down", BIND_CURSES | KEY_SF },
		{ "S-Left", BIND_CURSES | KEY_SLEFT },
		{ "S-Right", BIND_CURSES | KEY_SRIGHT },
		{ "S-Home", BIND_CURSES | KEY_SHOME },
		{ "S-End", BIND_CURSES | KEY_SEND },
		{ "S-PageUp", BIND_CURSES | KEY_SPREVIOUS },
		{ "S-PageDown", BIND_CURSES | KEY_SNEXT },
		{ "g", 'g' }, { "G", 'G' }, { "/", '/' }, { "$", '$' },
		{ "é", 0xe9 }, { "ß", 0xdf }, { "日", 0x65e5 },
		{ "😀", 0x1f600 },
	};
	char	name[16], canon[16];
	size_t	i;
	int	c, f;

	for (i = 0; i < sizeof named / sizeof named[0]; i++)
		round_trip(named[i].name, named[i].code, named[i].name);
	/* Named keys in any case. */
	round_trip("pageup", BIND_CURSES | KEY_PPAGE, "PageUp");
	round_trip("ENTER", '\r', "Enter");
	for (c = 'a'; c <= 'z'; c++) {
		snprintf(name, sizeof name, "C-%c", c);
		snprintf(canon, sizeof canon, "C-%c", c);
		/* C-i, C-m and C-[ are Tab, Enter and Esc by name. */
		if (c == 'i' || c == 'm')
			snprintf(canon, sizeof canon, "%s", c == 'i' ? "Tab" :
			    "Enter");
		round_trip(name, c - 'a' + 1, canon);
		snprintf(name, sizeof name, "C-%c", c - 'a' + 'A');
		round_trip(name, c - 'a' + 1, canon);
	}
	round_trip("C-[", 0x1b, "Esc");
	round_trip("C-\\", 0x1c, "C-\\");
	round_trip("C-@", 0, "C-@");
	for (f = 1; f <= 12; f++) {
		snprintf(name, sizeof name, "F%d", f);
		round_trip(name, BIND_CURSES | KEY_F(f), name);
	}
	round_trip("f63", BIND_CURSES | KEY_F(63), "F63");
}
END_TEST

/* Names that are no key, each with the same specific message. */
START_TEST(test_rejects)
{
	static const char *const bad[] = {
		"", "C-", "C-tt", "M-t", "F0", "F64", "F5x", "Hyper-x", "ab",
		"\xff", "\xc3", "\xc3\xa9x", "\xe0\x80\xaf", "\xed\xa0\x80",
		"\x01", "\xc2\x85", " ", "none",
	};
	char	*cause, want[512];
	size_t	 i;
	int	 key;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cause = NULL;
		ck_assert_msg(bind_key_parse(bad[i], &key, &cause) == -1,
		    "'%s' parsed", bad[i]);
		snprintf(want, sizeof want, "unknown key '%s': use a "
		    "character, C-a to C-z, Enter, Tab, Esc, Space, Backspace, "
		    "Up, Down, Left, Right, Home, End, PageUp, PageDown, "
		    "Insert, Delete, S-Home, S-End, S-PageUp, S-PageDown or F1 "
		    "to F63", bad[i]);
		ck_assert_str_eq(cause, want);
		free(cause);
	}
}
END_TEST

/* Set a binding that must fail with want. */
static void
set_fails(struct bind *b, enum bind_mode mode, const char *name,
    const char *keys, const char *want)
{
	char	*cause = NULL;

	ck_assert_int_eq(bind_set(b, mode, name, keys, &cause), -1);
	ck_assert_str_eq(cause, want);
	free(cause);
}

/* bind_set(): taking keys, unbinding, and what it refuses. */
START_TEST(test_set)
{
	struct bind	*b = bind_new();
	char		*cause = NULL, text[64];

	/* A key moves from the action that had it. */
	ck_assert_int_eq(bind_set(b, BIND_MAIN, "zoom", "C-n F5", &cause), 0);
	ck_assert_int_eq(bind_lookup(b, BIND_MAIN, 0x0e), BIND_ZOOM);
	ck_assert_int_eq(bind_lookup(b, BIND_MAIN, 0x1a), BIND_NONE);
	ck_assert_int_eq(bind_first_key(b, BIND_MAIN, BIND_NEXT_JOB),
	    BIND_NO_KEY);
	bind_keys_text(b, BIND_MAIN, BIND_ZOOM, text, sizeof text);
	ck_assert_str_eq(text, "C-n, F5");
	bind_keys_text(b, BIND_MAIN, BIND_NEXT_JOB, text, sizeof text);
	ck_assert_str_eq(text, "unbound");
	/* The prompt's two modes share keys: main takes C-a from home. */
	ck_assert_int_eq(bind_set(b, BIND_MAIN, "paste", "C-a", &cause), 0);
	ck_assert_int_eq(bind_lookup(b, BIND_EDIT, 0x01), BIND_NONE);
	ck_assert_int_eq(bind_first_key(b, BIND_EDIT, BIND_EDIT_HOME),
	    BIND_CURSES | KEY_HOME);
	/* Other modes keep theirs. */
	ck_assert_int_eq(bind_set(b, BIND_VIEW, "quit", "x", &cause), 0);
	ck_assert_int_eq(bind_lookup(b, BIND_VIEW, 'q'), BIND_NONE);
	ck_assert_int_eq(bind_lookup(b, BIND_COPY, 'q'), BIND_QUIT);
	/* "none" unbinds. */
	ck_assert_int_eq(bind_set(b, BIND_MAIN, "redraw", "none", &cause), 0);
	ck_assert_int_eq(bind_lookup(b, BIND_MAIN, 0x0c), BIND_NONE);

	set_fails(b, BIND_MAIN, "zoom", "z", "'z' is typed text at the "
	    "prompt: bind a control or named key");
	set_fails(b, BIND_EDIT, "home", "Space", "'Space' is typed text at "
	    "the prompt: bind a control or named key");
	set_fails(b, BIND_MAIN, "focus", "none", "the focus key cannot be "
	    "unbound: it is the only way out of focus mode");
	set_fails(b, BIND_MAIN, "focus", "", "the focus key cannot be "
	    "unbound: it is the only way out of focus mode");
	set_fails(b, BIND_MAIN, "focus", "F2", "the focus key must be a "
	    "character key such as C-t: it is compared before keys are "
	    "decoded for the job");
	set_fails(b, BIND_MAIN, "frobnicate", "C-g", "no action 'frobnicate' "
	    "in main mode");
	set_fails(b, BIND_VIEW, "zoom", "z", "no action 'zoom' in view mode");
	set_fails(b, BIND_MAIN, "zoom", "F1 F2 F3 F4 F5 F6 F7 F8 F9",
	    "more than 8 keys for one action");
	/* A refused change changes nothing. */
	ck_assert_int_eq(bind_first_key(b, BIND_MAIN, BIND_FOCUS), 0x14);
	ck_assert_int_eq(bind_lookup(b, BIND_MAIN, BIND_CURSES | KEY_F(5)),
	    BIND_ZOOM);
	/* Typed text is fine where nothing is typed. */
	ck_assert_int_eq(bind_set(b, BIND_COPY, "copy", "Y", &cause), 0);
	ck_assert_int_eq(bind_lookup(b, BIND_COPY, 'Y'), BIND_YANK);
	bind_free(b);
}
END_TEST

/* bind_key_code() folds curses' aliases into one code. */
START_TEST(test_code)
{
	ck_assert_int_eq(bind_key_code(KEY_CODE_YES, KEY_ENTER), '\r');
	ck_assert_int_eq(bind_key_code(OK, '\n'), '\r');
	ck_assert_int_eq(bind_key_code(OK, '\r'), '\r');
	ck_assert_int_eq(bind_key_code(KEY_CODE_YES, KEY_BACKSPACE), 0x7f);
	ck_assert_int_eq(bind_key_code(OK, 0x7f), 0x7f);
	ck_assert_int_eq(bind_key_code(OK, 0x14), 0x14);
	ck_assert_int_eq(bind_key_code(OK, 0xe9), 0xe9);
	ck_assert_int_eq(bind_key_code(KEY_CODE_YES, KEY_F(5)),
	    BIND_CURSES | KEY_F(5));
	ck_assert_int_eq(bind_key_code(KEY_CODE_YES, KEY_PPAGE),
	    BIND_CURSES | KEY_PPAGE);
}
END_TEST

/* Modes by name. */
START_TEST(test_modes)
{
	enum bind_mode	m;
	int		i;

	for (i = 0; i < BIND_MODES; i++) {
		ck_assert_int_eq(bind_mode_parse(bind_mode_name(i), &m), 0);
		ck_assert_int_eq(m, i);
	}
	ck_assert_int_eq(bind_mode_parse("nope", &m), -1);
}
END_TEST

static Suite *
bind_suite(void)
{
	Suite	*s = suite_create("bind");
	TCase	*tc = tcase_create("bind");

	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_rejects);
	tcase_add_test(tc, test_set);
	tcase_add_test(tc, test_code);
	tcase_add_test(tc, test_modes);
	suite_add_tcase(s, tc);
	tc = tcase_create("docs");
	tcase_add_test(tc, test_man);
	tcase_add_test(tc, test_readme);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr = srunner_create(bind_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
