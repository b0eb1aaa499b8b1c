/*
 * toml-conformance.c: runs the toml-test suite for TOML 1.0.0 against
 * src/toml.c, in process.  DIR is a toml-test checkout; every path listed
 * in DIR/tests/files-toml-1.0.0 is a case:
 *   - valid/NAME.toml must parse, and its toml-test JSON (what toml-decode
 *     prints) must equal valid/NAME.json as a value (see tomljson.h);
 *   - invalid/NAME.toml must be rejected.
 * Prints each failing case, then "toml-test 1.0.0: valid N/N, invalid
 * N/N"; exits 0 only if every case passed, 2 if the suite is missing.
 *
 *	toml-conformance [-v] DIR [substring ...]
 *
 * -v also prints the message each invalid case was rejected with.  With
 * substrings, only the cases whose path contains one of them run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "toml.h"
#include "tomljson.h"
#include "xmalloc.h"

#define CONFORMANCE_VERSION	"1.0.0"

/* The totals of a run. */
struct conformance {
	const char	*dir;
	int		 verbose;
	int		 valid;
	int		 valid_ok;
	int		 invalid;
	int		 invalid_ok;
};

/* Read the file dir/tests/rel into an allocated buffer, or return NULL. */
static char *
conformance_read(const char *dir, const char *rel, size_t *len)
{
	FILE	*fp;
	char	*path, *buf;

	path = xprintf("%s/tests/%s", dir, rel);
	fp = fopen(path, "rb");
	free(path);
	if (fp == NULL)
		return NULL;
	buf = tomljson_read(fp, TOML_MAX_INPUT, len);
	fclose(fp);
	return buf;
}

/* Run the valid case rel; return NULL if it passed, else why not. */
static char *
conformance_valid(const struct conformance *c, const char *rel)
{
	struct toml_value	*root;
	struct tomljson		*want = NULL, *have = NULL;
	char			*toml, *expect = NULL, *json = NULL, *jsonrel;
	char			*cause = NULL, *why = NULL;
	size_t			 len, expectlen, jsonlen;

	if ((toml = conformance_read(c->dir, rel, &len)) == NULL)
		return xprintf("cannot read: %s", strerror(errno));
	jsonrel = xprintf("%.*s.json", (int)(strlen(rel) - 5), rel);
	expect = conformance_read(c->dir, jsonrel, &expectlen);
	free(jsonrel);
	if (expect == NULL) {
		why = xprintf("cannot read the expected JSON: %s",
		    strerror(errno));
		goto out;
	}
	if ((want = tomljson_parse(expect, expectlen, &cause)) == NULL) {
		why = xprintf("expected JSON unreadable: %s", cause);
		goto out;
	}
	if ((root = toml_parse(toml, len, &cause)) == NULL) {
		why = xprintf("rejected: %s", cause);
		goto out;
	}
	json = tomljson_encode(root, &jsonlen);
	toml_free(root);
	if ((have = tomljson_parse(json, jsonlen, &cause)) == NULL) {
		why = xprintf("decoder output is not JSON: %s", cause);
		goto out;
	}
	tomljson_equal(want, have, &why);
out:
	tomljson_free(want);
	tomljson_free(have);
	free(cause);
	free(json);
	free(expect);
	free(toml);
	return why;
}

/* Run the invalid case rel; return NULL if it passed, else why not. */
static char *
conformance_invalid(const struct conformance *c, const char *rel)
{
	struct toml_value	*root;
	char			*toml, *cause = NULL;
	size_t			 len;

	if ((toml = conformance_read(c->dir, rel, &len)) == NULL)
		return xprintf("cannot read: %s", strerror(errno));
	root = toml_parse(toml, len, &cause);
	free(toml);
	if (root != NULL) {
		toml_free(root);
		return xstrdup("accepted");
	}
	if (c->verbose)
		printf("ok   %s: %s\n", rel, cause);
	free(cause);
	return NULL;
}

/* Return 1 if rel ends with suffix. */
static int
conformance_ends(const char *rel, const char *suffix)
{
	size_t	n = strlen(rel), k = strlen(suffix);

	return n >= k && strcmp(rel + n - k, suffix) == 0;
}

/* Return 1 if rel should run: no filters, or it contains one of them. */
static int
conformance_selected(const char *rel, int nfilter, char **filter)
{
	int	i;

	if (nfilter == 0)
		return 1;
	for (i = 0; i < nfilter; i++) {
		if (strstr(rel, filter[i]) != NULL)
			return 1;
	}
	return 0;
}

/* Run the suite; see the top of the file. */
int
main(int argc, char **argv)
{
	struct conformance	 c;
	FILE			*list;
	char			*path, line[4096], *why;
	size_t			 n;
	int			 ch, valid;

	memset(&c, 0, sizeof c);
	while ((ch = getopt(argc, argv, "v")) != -1) {
		switch (ch) {
		case 'v':
			c.verbose = 1;
			break;
		default:
			fprintf(stderr, "usage: toml-conformance [-v] DIR "
			    "[substring ...]\n");
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		fprintf(stderr, "usage: toml-conformance [-v] DIR "
		    "[substring ...]\n");
		return 2;
	}
	c.dir = argv[0];

	path = xprintf("%s/tests/files-toml-%s", c.dir, CONFORMANCE_VERSION);
	if ((list = fopen(path, "r")) == NULL) {
		fprintf(stderr, "toml-conformance: toml-test suite not found: "
		    "%s: %s (set TOML_TEST to a toml-test checkout)\n", path,
		    strerror(errno));
		free(path);
		return 2;
	}
	free(path);

	while (fgets(line, sizeof line, list) != NULL) {
		n = strcspn(line, "\r\n");
		line[n] = '\0';
		if (!conformance_ends(line, ".toml"))
			continue;
		if (strncmp(line, "valid/", 6) == 0)
			valid = 1;
		else if (strncmp(line, "invalid/", 8) == 0)
			valid = 0;
		else
			continue;
		if (!conformance_selected(line, argc - 1, argv + 1))
			continue;
		if (valid) {
			c.valid++;
			why = conformance_valid(&c, line);
			if (why == NULL)
				c.valid_ok++;
		} else {
			c.invalid++;
			why = conformance_invalid(&c, line);
			if (why == NULL)
				c.invalid_ok++;
		}
		if (why != NULL) {
			printf("FAIL %s: %s\n", line, why);
			free(why);
		}
	}
	fclose(list);

	printf("toml-test %s: valid %d/%d, invalid %d/%d\n",
	    CONFORMANCE_VERSION, c.valid_ok, c.valid, c.invalid_ok, c.invalid);
	if (c.valid + c.invalid == 0) {
		printf("toml-conformance: no cases ran\n");
		return 1;
	}
	return c.valid_ok == c.valid && c.invalid_ok == c.invalid ? 0 : 1;
}
