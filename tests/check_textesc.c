/*
 * check_textesc.c: tests for textesc_visible(), table-driven: what passes
 * unchanged, what is escaped and how, and that no output holds a byte a
 * terminal acts on.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "textesc.h"

static const struct esc_case {
	const char	*in;
	size_t		 len;
	const char	*want;
} esc_cases[] = {
	{ "plain text", 10, "plain text" },
	{ "back\\slash", 10, "back\\slash" },
	{ "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80", 14,
	    "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80" },
	{ "\033]52;c;SGVsbG8=\007", 16, "\\e]52;c;SGVsbG8=\\a" },
	{ "a\tb\nc\rd\be\vf\fg", 13, "a\\tb\\nc\\rd\\be\\vf\\fg" },
	{ "\001\037\177", 3, "\\x01\\x1f\\x7f" },
	{ "nul\0here", 8, "nul\\x00here" },
	{ "c1 \xc2\x9b" "2J", 7, "c1 \\u009b2J" },
	{ "nbsp \xc2\xa0 ok", 10, "nbsp \xc2\xa0 ok" },
	{ "bad \xff\xfe", 6, "bad \\xff\\xfe" },
	{ "overlong \xc0\xaf", 11, "overlong \\xc0\\xaf" },
	{ "surrogate \xed\xa0\x80", 13, "surrogate \\xed\\xa0\\x80" },
	{ "cut \xe2\x9c", 6, "cut \\xe2\\x9c" },
	{ "", 0, "" },
};

/* Each row's input comes out as its row says. */
START_TEST(test_cases)
{
	const struct esc_case	*c = &esc_cases[_i];
	char			*out;

	out = textesc_visible(c->in, c->len);
	ck_assert_str_eq(out, c->want);
	free(out);
}
END_TEST

/* Every byte value alone and after a lead byte: nothing a terminal acts on. */
START_TEST(test_every_byte)
{
	unsigned char	 in[2];
	char		*out;
	const char	*p;
	int		 b, lead;

	for (lead = 0; lead < 2; lead++) {
		for (b = 0; b < 256; b++) {
			in[0] = lead ? 0xc2 : (unsigned char)b;
			in[1] = (unsigned char)b;
			out = textesc_visible((const char *)in, lead ? 2 : 1);
			for (p = out; *p != '\0'; p++) {
				ck_assert_msg((unsigned char)*p >= 0x20 &&
				    *p != 0x7f, "byte %#x: %s", b, out);
				ck_assert_msg(!((unsigned char)p[0] == 0xc2 &&
				    (unsigned char)p[1] < 0xa0 &&
				    (unsigned char)p[1] >= 0x80),
				    "C1 left in for %#x", b);
			}
			free(out);
		}
	}
}
END_TEST

/* Build the textesc suite. */
static Suite *
textesc_suite(void)
{
	Suite	*s = suite_create("textesc");
	TCase	*tc = tcase_create("escape");

	tcase_add_loop_test(tc, test_cases, 0,
	    (int)(sizeof esc_cases / sizeof esc_cases[0]));
	tcase_add_test(tc, test_every_byte);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr;
	int	 failed;

	sr = srunner_create(textesc_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
