/*
 * check_mcp.c: the MCP server in process on a fake deck.
 * Groundwork: filled in by issue 15's tests part.
 */
#include <check.h>
#include <stdlib.h>

#include "skip.h"

START_TEST(test_placeholder)
{
	TEST_SKIP("groundwork: the suite is not written yet");
}
END_TEST

/* Make the suite. */
static Suite *
mcp_suite(void)
{
	Suite	*s = suite_create("mcp");
	TCase	*tc = tcase_create("mcp");

	tcase_add_test(tc, test_placeholder);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr;
	int	 failed;

	sr = srunner_create(mcp_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
