/*
 * check_utf8.c: tests for utf8.c.  A table of sequences at every boundary
 * (U+7F/80, 7FF/800, FFFF/10000, 10FFFF/110000, the surrogates), overlong
 * forms, truncated sequences and continuation bytes without a lead, each
 * with the length (or maximal subpart) and code point it must decode to;
 * every three-byte prefix checked against a reference decoder written from
 * the definition (assemble, then reject overlong, surrogate, too large);
 * every scalar value written and read back; utf8_valid(), utf8_cut(), and
 * the stream fed a byte at a time agreeing with utf8_decode() on the
 * whole buffer.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

/* The input as a string literal and its length (it may hold NUL bytes). */
#define IN(s)		s, sizeof(s) - 1

/* Bytes and what utf8_decode() makes of them. */
static const struct dec_case {
	const char	*name;
	const char	*in;
	size_t		 len;
	int		 want;		/* length, or minus the subpart's */
	uint32_t	 cp;
} dec_cases[] = {
	{ "U+0000", IN("\0"), 1, 0 },
	{ "U+007F", IN("\x7f"), 1, 0x7f },
	{ "U+0080", IN("\xc2\x80"), 2, 0x80 },
	{ "U+07FF", IN("\xdf\xbf"), 2, 0x7ff },
	{ "U+0800", IN("\xe0\xa0\x80"), 3, 0x800 },
	{ "U+D7FF", IN("\xed\x9f\xbf"), 3, 0xd7ff },
	{ "U+E000", IN("\xee\x80\x80"), 3, 0xe000 },
	{ "U+FFFD", IN("\xef\xbf\xbd"), 3, 0xfffd },
	{ "U+FFFF", IN("\xef\xbf\xbf"), 3, 0xffff },
	{ "U+10000", IN("\xf0\x90\x80\x80"), 4, 0x10000 },
	{ "U+10FFFF", IN("\xf4\x8f\xbf\xbf"), 4, 0x10ffff },
	{ "only the first character", IN("\xc3\xa9\xc3\xa9"), 2, 0xe9 },

	{ "U+110000", IN("\xf4\x90\x80\x80"), -1, UTF8_REPLACEMENT },
	{ "F5 lead", IN("\xf5\x80\x80\x80"), -1, UTF8_REPLACEMENT },
	{ "FF", IN("\xff"), -1, UTF8_REPLACEMENT },
	{ "FE", IN("\xfe\xbf"), -1, UTF8_REPLACEMENT },

	{ "overlong C0 80 (NUL)", IN("\xc0\x80"), -1, UTF8_REPLACEMENT },
	{ "overlong C1 BF (U+7F)", IN("\xc1\xbf"), -1, UTF8_REPLACEMENT },
	{ "overlong E0 80 80", IN("\xe0\x80\x80"), -1, UTF8_REPLACEMENT },
	{ "overlong E0 9F BF (U+7FF)", IN("\xe0\x9f\xbf"), -1,
	    UTF8_REPLACEMENT },
	{ "overlong F0 8F BF BF (U+FFFF)", IN("\xf0\x8f\xbf\xbf"), -1,
	    UTF8_REPLACEMENT },
	{ "overlong F0 80 80 80", IN("\xf0\x80\x80\x80"), -1,
	    UTF8_REPLACEMENT },

	{ "surrogate U+D800", IN("\xed\xa0\x80"), -1, UTF8_REPLACEMENT },
	{ "surrogate U+DFFF", IN("\xed\xbf\xbf"), -1, UTF8_REPLACEMENT },
	{ "surrogate pair", IN("\xed\xa0\xbd\xed\xb8\x80"), -1,
	    UTF8_REPLACEMENT },

	{ "two-byte, cut", IN("\xc3"), -1, UTF8_REPLACEMENT },
	{ "three-byte, cut after 1", IN("\xe2"), -1, UTF8_REPLACEMENT },
	{ "three-byte, cut after 2", IN("\xe2\x82"), -2, UTF8_REPLACEMENT },
	{ "four-byte, cut after 3", IN("\xf0\x9f\x98"), -3, UTF8_REPLACEMENT },
	{ "three-byte, then ASCII", IN("\xe2\x82" "A"), -2, UTF8_REPLACEMENT },
	{ "four-byte, then a lead", IN("\xf0\x9f\xc3\xa9"), -2,
	    UTF8_REPLACEMENT },
	{ "lead, then NUL", IN("\xc3\0"), -1, UTF8_REPLACEMENT },

	{ "continuation 80 alone", IN("\x80"), -1, UTF8_REPLACEMENT },
	{ "continuation BF alone", IN("\xbf"), -1, UTF8_REPLACEMENT },
	{ "continuations without a lead", IN("\x80\x80\x80"), -1,
	    UTF8_REPLACEMENT },
};

/* Each row decodes to its length (or subpart) and code point. */
START_TEST(test_decode_cases)
{
	const struct dec_case	*c = &dec_cases[_i];
	uint32_t		 cp = 1234;
	int			 n;

	n = utf8_decode(c->in, c->len, &cp);
	ck_assert_msg(n == c->want, "%s: %d, want %d", c->name, n, c->want);
	ck_assert_msg(cp == c->cp, "%s: U+%04X, want U+%04X", c->name,
	    (unsigned)cp, (unsigned)c->cp);
}
END_TEST

/* An empty buffer is no character. */
START_TEST(test_decode_empty)
{
	uint32_t	cp = 0;

	ck_assert_int_eq(utf8_decode("x", 0, &cp), 0);
	ck_assert_uint_eq(cp, UTF8_REPLACEMENT);
}
END_TEST

/*
 * The reference encoder, written from the definition: continuation bytes
 * of six bits each from the end, then the lead byte's length marker.
 */
static int
ref_encode(uint32_t cp, uint8_t *b)
{
	int	n, i;

	n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
	if (n == 1) {
		b[0] = (uint8_t)cp;
		return 1;
	}
	for (i = n - 1; i > 0; i--) {
		b[i] = (uint8_t)(0x80 | (cp & 0x3f));
		cp >>= 6;
	}
	b[0] = (uint8_t)((0xff00 >> n) & 0xff) | (uint8_t)cp;
	return n;
}

/* Which 1-, 2- and 3-byte strings begin some valid character. */
struct ref_prefixes {
	uint8_t	 one[256];
	uint8_t	 two[256 * 256];
	uint8_t	*three;		/* 256^3 */
};

/* Mark the prefixes of the encoding of every scalar value. */
static void
ref_prefixes_fill(struct ref_prefixes *rp)
{
	uint8_t		b[4];
	uint32_t	cp;
	int		n;

	memset(rp->one, 0, sizeof rp->one);
	memset(rp->two, 0, sizeof rp->two);
	rp->three = calloc(1, 256 * 256 * 256);
	ck_assert_ptr_nonnull(rp->three);
	for (cp = 0; cp <= 0x10ffff; cp++) {
		if (cp >= 0xd800 && cp <= 0xdfff)
			continue;
		n = ref_encode(cp, b);
		rp->one[b[0]] = 1;
		if (n >= 2)
			rp->two[b[0] << 8 | b[1]] = 1;
		if (n >= 3)
			rp->three[b[0] << 16 | b[1] << 8 | b[2]] = 1;
	}
}

/*
 * The reference decoder: the lead byte's high bits say how long the
 * character is; it is valid when that many bytes are there, the rest are
 * continuation bytes, and the value assembled needs that many bytes and
 * is a scalar value.  Else its maximal subpart is the longest start of it
 * that begins some valid character (at least one byte).
 */
static int
ref_decode(const struct ref_prefixes *rp, const uint8_t *s, size_t len,
    uint32_t *cp)
{
	static const uint32_t	min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	uint32_t		v;
	int			n, i, k;

	*cp = UTF8_REPLACEMENT;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0)
		n = 2;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4;
	else
		return -1;
	if ((size_t)n <= len) {
		v = s[0] & (0x7f >> n);
		for (i = 1; i < n && (s[i] & 0xc0) == 0x80; i++)
			v = v << 6 | (s[i] & 0x3f);
		if (i == n && v >= min[n] && v <= 0x10ffff &&
		    (v < 0xd800 || v > 0xdfff)) {
			*cp = v;
			return n;
		}
	}
	k = 1;
	if (len >= 2 && rp->two[s[0] << 8 | s[1]]) {
		k = 2;
		if (len >= 3 && rp->three[s[0] << 16 | s[1] << 8 | s[2]])
			k = 3;
	}
	return -k;
}

/*
 * Every string of three bytes, alone, and followed by a continuation
 * byte or by ASCII, and every string of one and two bytes: utf8_decode()
 * agrees with the reference decoder.
 */
START_TEST(test_decode_reference)
{
	static const uint8_t	 fourth[] = { 0xbf, 0x41 };
	struct ref_prefixes	 rp;
	uint8_t			 b[4];
	uint32_t		 cp, rcp, x;
	size_t			 len, j;
	int			 n, r;

	ref_prefixes_fill(&rp);
	for (x = 0; x < 256 * 256 * 256; x++) {
		b[0] = (uint8_t)(x >> 16);
		b[1] = (uint8_t)(x >> 8);
		b[2] = (uint8_t)x;
		for (j = 0; j < sizeof fourth; j++) {
			b[3] = fourth[j];
			for (len = 1; len <= 4; len++) {
				/* Shorter strings once each, not 2^8 times. */
				if ((len == 1 && (x & 0xffff) != 0) ||
				    (len == 2 && (x & 0xff) != 0) ||
				    (len < 4 && j != 0))
					continue;
				n = utf8_decode(b, len, &cp);
				r = ref_decode(&rp, b, len, &rcp);
				if (n != r || cp != rcp)
					ck_abort_msg("%02x %02x %02x %02x "
					    "(%zu bytes): %d U+%04X, want %d "
					    "U+%04X", b[0], b[1], b[2], b[3],
					    len, n, (unsigned)cp, r,
					    (unsigned)rcp);
			}
		}
	}
	free(rp.three);
}
END_TEST

/*
 * Every scalar value is written as the reference encoder writes it (its
 * shortest form) and read back.
 */
START_TEST(test_put_round_trip)
{
	char		buf[UTF8_MAX];
	uint8_t		ref[4];
	uint32_t	cp, back;
	int		n, want;

	for (cp = 0; cp <= 0x10ffff; cp++) {
		if (cp >= 0xd800 && cp <= 0xdfff)
			continue;
		want = ref_encode(cp, ref);
		n = utf8_put(buf, cp);
		if (n != want || memcmp(buf, ref, (size_t)n) != 0)
			ck_abort_msg("U+%04X: %d bytes, want %d", (unsigned)cp,
			    n, want);
		if (utf8_decode(buf, (size_t)n, &back) != n || back != cp)
			ck_abort_msg("U+%04X read back as U+%04X",
			    (unsigned)cp, (unsigned)back);
	}
}
END_TEST

/* The bytes at each boundary; what is not a scalar value is U+FFFD. */
START_TEST(test_put_boundaries)
{
	static const struct {
		uint32_t	 cp;
		const char	*want;
	} cases[] = {
		{ 0x7f, "\x7f" },
		{ 0x80, "\xc2\x80" },
		{ 0x7ff, "\xdf\xbf" },
		{ 0x800, "\xe0\xa0\x80" },
		{ 0xd7ff, "\xed\x9f\xbf" },
		{ 0xd800, "\xef\xbf\xbd" },
		{ 0xdfff, "\xef\xbf\xbd" },
		{ 0xe000, "\xee\x80\x80" },
		{ 0xffff, "\xef\xbf\xbf" },
		{ 0x10000, "\xf0\x90\x80\x80" },
		{ 0x10ffff, "\xf4\x8f\xbf\xbf" },
		{ 0x110000, "\xef\xbf\xbd" },
		{ 0xffffffff, "\xef\xbf\xbd" },
	};
	char	buf[UTF8_MAX];
	size_t	i;
	int	n;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		n = utf8_put(buf, cases[i].cp);
		ck_assert_msg((size_t)n == strlen(cases[i].want) &&
		    memcmp(buf, cases[i].want, (size_t)n) == 0,
		    "U+%04X: wrong bytes", (unsigned)cases[i].cp);
	}
}
END_TEST

/* utf8_valid() finds where the first invalid character starts. */
START_TEST(test_valid)
{
	static const struct {
		const char	*in;
		size_t		 len;
		size_t		 want;
	} cases[] = {
		{ IN(""), 0 },
		{ IN("plain"), 5 },
		{ IN("caf\xc3\xa9 \xf0\x9f\x98\x80"), 10 },
		{ IN("nul\0inside"), 10 },
		{ IN("ab\xff" "cd"), 2 },
		{ IN("\x80"), 0 },
		{ IN("\xc3\xa9\xed\xa0\x80"), 2 },
		{ IN("x\xe0\x80\x80"), 1 },
		{ IN("x\xf4\x90\x80\x80"), 1 },
		{ IN("ends cut \xe2\x82"), 9 },
		{ IN("\xf4\x8f\xbf\xbf"), 4 },
	};
	size_t	i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		ck_assert_msg(utf8_valid(cases[i].in, cases[i].len) ==
		    cases[i].want, "case %zu: %zu, want %zu", i,
		    utf8_valid(cases[i].in, cases[i].len), cases[i].want);
}
END_TEST

/* utf8_cut() never splits a character, and steps back at most three. */
START_TEST(test_cut)
{
	static const char	s[] = "a\xc3\xa9" "b\xf0\x9f\x98\x80" "c";
	static const char	stray[] = "\x80\x80\x80\x80\x80x";
	static const size_t	want[] = { 0, 1, 1, 3, 4, 4, 4, 4, 8 };
	size_t			n;

	for (n = 0; n < sizeof want / sizeof want[0]; n++)
		ck_assert_msg(utf8_cut(s, n) == want[n], "cut at %zu: %zu, "
		    "want %zu", n, utf8_cut(s, n), want[n]);
	ck_assert_uint_eq(utf8_cut(stray, 5), 5);
	ck_assert_uint_eq(utf8_cut(stray, 4), 1);
	ck_assert_uint_eq(utf8_cut(stray, 3), 0);
}
END_TEST

/* What the stream gives for each byte of in: the code points and U+FFFDs. */
static size_t
stream_all(const uint8_t *in, size_t len, uint32_t *out)
{
	struct utf8_stream	st;
	uint32_t		cp;
	size_t			i, k = 0;
	int			n;

	memset(&st, 0, sizeof st);
	for (i = 0; i < len; i++) {
		if ((n = utf8_stream_byte(&st, in[i], &cp)) == UTF8_CUT) {
			ck_assert_uint_eq(cp, UTF8_REPLACEMENT);
			ck_assert_int_eq(st.len, 0);
			out[k++] = UTF8_REPLACEMENT;
			n = utf8_stream_byte(&st, in[i], &cp);
			ck_assert_int_ne(n, UTF8_CUT);
		}
		if (n == UTF8_BAD)
			out[k++] = UTF8_REPLACEMENT;
		else if (n > 0) {
			ck_assert_msg(utf8_decode(st.b, (size_t)n, &cp) == n,
			    "the stream's bytes are its character");
			out[k++] = cp;
		}
	}
	if (st.len > 0)
		out[k++] = UTF8_REPLACEMENT;	/* cut short by the end */
	return k;
}

/* What utf8_decode() gives for the whole of in, one U+FFFD a subpart. */
static size_t
decode_all(const uint8_t *in, size_t len, uint32_t *out)
{
	size_t		i = 0, k = 0;
	uint32_t	cp;
	int		n;

	while (i < len) {
		n = utf8_decode(in + i, len - i, &cp);
		out[k++] = cp;
		i += (size_t)(n < 0 ? -n : n);
	}
	return k;
}

/* Fed a byte at a time, the stream says what each step means. */
START_TEST(test_stream_steps)
{
	struct utf8_stream	st;
	uint32_t		cp;

	memset(&st, 0, sizeof st);
	ck_assert_int_eq(utf8_stream_byte(&st, 'a', &cp), 1);
	ck_assert_uint_eq(cp, 'a');
	ck_assert_int_eq(utf8_stream_byte(&st, 0xe2, &cp), UTF8_MORE);
	ck_assert_int_eq(utf8_stream_byte(&st, 0x82, &cp), UTF8_MORE);
	ck_assert_int_eq(st.len, 2);
	ck_assert_int_eq(utf8_stream_byte(&st, 0xac, &cp), 3);
	ck_assert_uint_eq(cp, 0x20ac);
	ck_assert(memcmp(st.b, "\xe2\x82\xac", 3) == 0);
	ck_assert_int_eq(st.len, 0);
	ck_assert_int_eq(utf8_stream_byte(&st, 0xff, &cp), UTF8_BAD);
	ck_assert_int_eq(utf8_stream_byte(&st, 0x80, &cp), UTF8_BAD);
	/* A surrogate is cut at its second byte, which starts nothing. */
	ck_assert_int_eq(utf8_stream_byte(&st, 0xed, &cp), UTF8_MORE);
	ck_assert_int_eq(utf8_stream_byte(&st, 0xa0, &cp), UTF8_CUT);
	ck_assert_int_eq(utf8_stream_byte(&st, 0xa0, &cp), UTF8_BAD);
	/* A lead after a lead: the first is one U+FFFD, the second goes on. */
	ck_assert_int_eq(utf8_stream_byte(&st, 0xf0, &cp), UTF8_MORE);
	ck_assert_int_eq(utf8_stream_byte(&st, 0xc3, &cp), UTF8_CUT);
	ck_assert_int_eq(utf8_stream_byte(&st, 0xc3, &cp), UTF8_MORE);
	ck_assert_int_eq(utf8_stream_byte(&st, 0xa9, &cp), 2);
	ck_assert_uint_eq(cp, 0xe9);
	/* Above U+10FFFF is cut at its second byte too. */
	ck_assert_int_eq(utf8_stream_byte(&st, 0xf4, &cp), UTF8_MORE);
	ck_assert_int_eq(utf8_stream_byte(&st, 0x90, &cp), UTF8_CUT);
}
END_TEST

/*
 * On pseudo-random bytes, rich in lead and continuation bytes, the stream
 * and utf8_decode() on the whole buffer give the same characters and the
 * same U+FFFDs.
 */
START_TEST(test_stream_matches_decode)
{
	static const uint8_t	 pick[] = { 'a', 0x00, 0x7f, 0x80, 0x8f,
	    0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0,
	    0xf4, 0xf5, 0xff };
	uint8_t			 in[64];
	uint32_t		 a[64], b[64], x = 2463534242u;
	size_t			 na, nb, i;
	int			 round;

	for (round = 0; round < 200000; round++) {
		for (i = 0; i < sizeof in; i++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			in[i] = pick[x % sizeof pick];
		}
		na = stream_all(in, sizeof in, a);
		nb = decode_all(in, sizeof in, b);
		ck_assert_msg(na == nb, "round %d: %zu from the stream, %zu "
		    "decoded", round, na, nb);
		ck_assert_msg(memcmp(a, b, na * sizeof *a) == 0,
		    "round %d: they differ", round);
	}
}
END_TEST

/* Build the utf8 suite. */
static Suite *
utf8_suite(void)
{
	Suite	*s = suite_create("utf8");
	TCase	*tc = tcase_create("utf8");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_decode_cases, 0,
	    (int)(sizeof dec_cases / sizeof dec_cases[0]));
	tcase_add_test(tc, test_decode_empty);
	tcase_add_test(tc, test_decode_reference);
	tcase_add_test(tc, test_put_round_trip);
	tcase_add_test(tc, test_put_boundaries);
	tcase_add_test(tc, test_valid);
	tcase_add_test(tc, test_cut);
	tcase_add_test(tc, test_stream_steps);
	tcase_add_test(tc, test_stream_matches_decode);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr;
	int	 failed;

	sr = srunner_create(utf8_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
