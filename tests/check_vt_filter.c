/*
 * check_vt_filter.c: the emulator's lowest layer, the byte filter
 * (src/vt-filter.h), alone: no libvterm, no state, no cells.  A fake layer
 * above it keeps what the filter writes for the parser (each write
 * apart), what it answers the child itself, and answers its questions
 * (the last glyph for REP, whether marks that start a feed were joined).
 * Everything the filter does to bytes is seen here as bytes; check_vt.c
 * tests the whole emulator against libvterm's own screen.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textesc.h"
#include "vt-filter.h"
#include "xmalloc.h"

#define WRITES_MAX	64

/* The fake layer above the filter. */
struct above {
	struct xbuf	 out;			/* all bytes written */
	char		*write[WRITES_MAX];	/* each write, NUL-ended */
	size_t		 wlen[WRITES_MAX];
	int		 writes;
	struct xbuf	 reply;			/* answers for the child */

	uint32_t	 glyph[VT_GLYPH_CHARS];	/* REP's answer */
	int		 nglyph;
	long		 max;
	int		 glyph_asked;

	int		 join_ok;		/* join's answer */
	uint32_t	 joined[VT_GLYPH_MARKS];
	int		 njoined;
	int		 join_asked;
};

/* Keep one write of filtered bytes. */
static void
above_write(const char *buf, size_t len, void *arg)
{
	struct above	*a = arg;

	xbuf_add(&a->out, buf, len);
	if (a->writes < WRITES_MAX) {
		a->write[a->writes] = xmalloc(len + 1);
		memcpy(a->write[a->writes], buf, len);
		a->write[a->writes][len] = '\0';
		a->wlen[a->writes] = len;
	}
	a->writes++;
}

/* Keep an answer the filter gave the child. */
static void
above_reply(const char *buf, size_t len, void *arg)
{
	struct above	*a = arg;

	xbuf_add(&a->reply, buf, len);
}

/* Give the filter the glyph REP repeats. */
static int
above_glyph(uint32_t *chars, long *max, void *arg)
{
	struct above	*a = arg;

	a->glyph_asked++;
	memcpy(chars, a->glyph, (size_t)a->nglyph * sizeof *chars);
	*max = a->max;
	return a->nglyph;
}

/* Keep the marks the filter offers; join them if join_ok. */
static int
above_join(const uint32_t *marks, int n, void *arg)
{
	struct above	*a = arg;

	a->join_asked++;
	ck_assert_int_le(n, VT_GLYPH_MARKS);
	memcpy(a->joined, marks, (size_t)n * sizeof *marks);
	a->njoined = n;
	return a->join_ok;
}

static const struct vt_filter_cbs above_cbs = {
	.write = above_write,
	.reply = above_reply,
	.glyph = above_glyph,
	.join = above_join
};

/* Forget everything the layer above has seen so far. */
static void
above_forget(struct above *a)
{
	int	i;

	for (i = 0; i < a->writes && i < WRITES_MAX; i++)
		free(a->write[i]);
	a->writes = 0;
	xbuf_clear(&a->out);
	xbuf_clear(&a->reply);
	a->glyph_asked = 0;
	a->join_asked = 0;
	a->njoined = 0;
}

static struct above	 up;	/* what each test's filter told */
static struct vt_filter	*flt;	/* each test's filter */

/* Give each test a new filter under a fake layer that has seen nothing. */
static void
setup(void)
{
	memset(&up, 0, sizeof up);
	flt = vt_filter_new(&above_cbs, &up);
}

/* Free the test's filter and what the layer above kept. */
static void
teardown(void)
{
	vt_filter_free(flt);
	above_forget(&up);
}

/* Feed a NUL-terminated string. */
static void
feed(struct vt_filter *f, const char *s)
{
	vt_filter_feed(f, (const uint8_t *)s, strlen(s));
}

/* Fail unless buf holds exactly the len bytes of want. */
static void
assert_bytes(const struct xbuf *buf, const char *want, size_t len)
{
	const char	*s = buf->s != NULL ? buf->s : "";
	char		*got, *exp;

	got = textesc_visible(s, buf->len);
	exp = textesc_visible(want, len);
	ck_assert_msg(buf->len == len && memcmp(s, want, len) == 0,
	    "got \"%s\", want \"%s\"", got, exp);
	free(got);
	free(exp);
}

/* Fail unless buf holds exactly the string want. */
static void
assert_str(const struct xbuf *buf, const char *want)
{
	assert_bytes(buf, want, strlen(want));
}

/* ASCII and C0 pass unchanged, in one write at the end of the feed. */
START_TEST(test_ascii)
{
	feed(flt, "hello\r\n\tworld");
	assert_str(&up.out, "hello\r\n\tworld");
	ck_assert_int_eq(up.writes, 1);
	ck_assert_int_eq(up.join_asked, 0);
}
END_TEST

/* A UTF-8 character split across feeds is held back and written whole. */
START_TEST(test_utf8_split)
{
	feed(flt, "a\xc3");
	assert_str(&up.out, "a");
	/* ASCII after non-ASCII in a write: a NUL, so G0 applies to it. */
	feed(flt, "\xa9" "b");
	assert_bytes(&up.out, "a\xc3\xa9\0b", 5);
	feed(flt, "\xc3\xa9");
	feed(flt, "c");
	assert_bytes(&up.out, "a\xc3\xa9\0b\xc3\xa9" "c", 8);
}
END_TEST

/* Malformed UTF-8 and C1 code points become U+FFFD. */
START_TEST(test_utf8_bad)
{
	feed(flt, "\xff");
	assert_str(&up.out, "\xef\xbf\xbd");
	above_forget(&up);
	feed(flt, "\xc2\x85");		/* U+0085, NEL */
	assert_str(&up.out, "\xef\xbf\xbd");
	above_forget(&up);
	feed(flt, "\xe0\x80\x80");	/* overlong */
	ck_assert_ptr_nonnull(strstr(up.out.s, "\xef\xbf\xbd"));
	ck_assert_ptr_null(strstr(up.out.s, "\xe0"));
}
END_TEST

/* REP asks for the last glyph and writes copies, at most max of them. */
START_TEST(test_rep)
{
	up.glyph[0] = 'e';
	up.glyph[1] = 0x301;
	up.nglyph = 2;
	up.max = 3;
	feed(flt, "ab\033[2b");
	ck_assert_int_eq(up.glyph_asked, 1);
	assert_str(&up.out, "abe\xcc\x81" "e\xcc\x81");
	above_forget(&up);
	feed(flt, "\033[9b");
	assert_str(&up.out, "e\xcc\x81" "e\xcc\x81" "e\xcc\x81");
	above_forget(&up);
	up.nglyph = 0;			/* nothing to repeat */
	feed(flt, "\033[4bz");
	ck_assert_int_eq(up.glyph_asked, 1);
	assert_str(&up.out, "z");
}
END_TEST

/* Marks that start a feed after a glyph are offered to the layer above. */
START_TEST(test_marks_join)
{
	feed(flt, "a");
	above_forget(&up);
	up.join_ok = 1;
	feed(flt, "\xcc\x81\xcc\x82z");
	ck_assert_int_eq(up.join_asked, 1);
	ck_assert_int_eq(up.njoined, 2);
	ck_assert_uint_eq(up.joined[0], 0x301);
	ck_assert_uint_eq(up.joined[1], 0x302);
	assert_str(&up.out, "z");	/* joined: the marks are not written */

	/* Not joined: the marks are fed as they are. */
	above_forget(&up);
	up.join_ok = 0;
	feed(flt, "\xcc\x81z");
	ck_assert_int_eq(up.join_asked, 1);
	assert_bytes(&up.out, "\xcc\x81\0z", 4);

	/* The last feed ended with an escape sequence: nothing is asked. */
	feed(flt, "a\033[m");
	above_forget(&up);
	feed(flt, "\xcc\x81");
	ck_assert_int_eq(up.join_asked, 0);
	assert_str(&up.out, "\xcc\x81");
}
END_TEST

/* More marks than a cell keeps: all are taken, the first ones offered. */
START_TEST(test_marks_many)
{
	char			 buf[64] = "";
	int			 i;

	for (i = 0; i < VT_GLYPH_MARKS + 3; i++)
		strcat(buf, "\xcc\x81");
	feed(flt, "a");
	above_forget(&up);
	up.join_ok = 1;
	feed(flt, buf);
	ck_assert_int_eq(up.njoined, VT_GLYPH_MARKS);
	ck_assert_uint_eq(up.out.len, 0);
}
END_TEST

/* A DECRQSS that 0.1.4 cannot answer is answered here, and not passed. */
START_TEST(test_decrqss)
{
	feed(flt, "x\033P$qz\033\\");
	assert_str(&up.reply, "\033P0$r\033\\");
	assert_str(&up.out, "x");
	/* What came before the question was written before the answer. */
	ck_assert_int_eq(up.writes, 1);
	above_forget(&up);
	feed(flt, "\033P$qm\033\\");
	assert_str(&up.reply, "");
	assert_str(&up.out, "\033P$qm\033\\");
}
END_TEST

/* An OSC string split across feeds reaches the parser whole. */
START_TEST(test_string_split)
{
	feed(flt, "\033]0;ti");
	ck_assert_int_eq(up.writes, 0);
	feed(flt, "tle\007");
	ck_assert_int_eq(up.writes, 1);
	assert_str(&up.out, "\033]0;title\033\\");
	above_forget(&up);
	feed(flt, "a\033_secret\033\\b");	/* APC: swallowed */
	assert_str(&up.out, "ab");
}
END_TEST

/* CSI sequences are written again from their parsed form. */
START_TEST(test_csi)
{
	feed(flt, "\033[38:2::1:2:3m");	/* the colour space id goes */
	assert_str(&up.out, "\033[38:2:1:2:3m");
	above_forget(&up);
	feed(flt, "\033[38m");		/* an empty palette parameter */
	assert_str(&up.out, "\033[38;m");
	above_forget(&up);
	feed(flt, "\033[99999999999H");	/* parameters saturate */
	assert_str(&up.out, "\033[9999999H");
}
END_TEST

/* A long feed goes in several writes, none of which splits a sequence. */
START_TEST(test_chunks)
{
	size_t			 n = 200000, i;
	char			*s;
	int			 k;

	s = xmalloc(n + 8);
	memset(s, 'a', n);
	memcpy(s + 65534, "\033[31m", 5);
	vt_filter_feed(flt, (const uint8_t *)s, n);
	ck_assert_int_gt(up.writes, 1);
	ck_assert_int_le(up.writes, WRITES_MAX);
	ck_assert_uint_eq(up.out.len, n);
	ck_assert(memcmp(up.out.s, s, n) == 0);
	for (k = 0; k < up.writes; k++) {
		for (i = 0; i < up.wlen[k]; i++)
			if (up.write[k][i] == '\033')
				break;
		if (i < up.wlen[k])
			ck_assert_msg(up.wlen[k] - i >= 5 &&
			    memcmp(up.write[k] + i, "\033[31m", 5) == 0,
			    "write %d splits the sequence", k);
	}
	free(s);
}
END_TEST

/* A reset drops what the last program left half sent. */
START_TEST(test_reset)
{
	feed(flt, "\033[1");
	vt_filter_reset(flt);
	feed(flt, "m");
	assert_str(&up.out, "m");
	above_forget(&up);
	feed(flt, "\xc3");
	vt_filter_reset(flt);
	feed(flt, "b");
	assert_str(&up.out, "b");
	above_forget(&up);
	feed(flt, "\033]0;half");
	vt_filter_reset(flt);
	feed(flt, "c\007");
	assert_str(&up.out, "c\007");
}
END_TEST

/* The marks libvterm 0.1.4 joins, at a few edges of its table. */
START_TEST(test_combining)
{
	ck_assert(vt_filter_combining(0x300));
	ck_assert(vt_filter_combining(0x36f));
	ck_assert(!vt_filter_combining(0x370));
	ck_assert(vt_filter_combining(0x200b));
	ck_assert(!vt_filter_combining(0xad));
	ck_assert(!vt_filter_combining('a'));
	ck_assert(vt_filter_combining(0xe01ef));
	ck_assert(!vt_filter_combining(0xe01f0));
	ck_assert(!vt_filter_combining(0x110000));
}
END_TEST

/* Build the suite. */
static Suite *
vt_filter_suite(void)
{
	Suite	*s = suite_create("vt_filter");
	TCase	*tc = tcase_create("filter");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_ascii);
	tcase_add_test(tc, test_utf8_split);
	tcase_add_test(tc, test_utf8_bad);
	tcase_add_test(tc, test_rep);
	tcase_add_test(tc, test_marks_join);
	tcase_add_test(tc, test_marks_many);
	tcase_add_test(tc, test_decrqss);
	tcase_add_test(tc, test_string_split);
	tcase_add_test(tc, test_csi);
	tcase_add_test(tc, test_chunks);
	tcase_add_test(tc, test_reset);
	tcase_add_test(tc, test_combining);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr = srunner_create(vt_filter_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
