/*
 * toml-decode.c: the toml-test decoder interface to src/toml.c.  Reads
 * TOML from the file named as the argument, or from standard input, and
 * writes toml-test's JSON for it on standard output (exit 0), or the
 * error as "NAME:LINE:COL: message" on standard error (exit 1).  Exit 2
 * for usage and read errors.
 *
 *	toml-decode [file] < file.toml
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toml.h"
#include "tomljson.h"

/* Decode one TOML document to JSON. */
int
main(int argc, char **argv)
{
	struct toml_value	*root;
	const char		*name = "<stdin>";
	FILE			*fp = stdin;
	char			*buf, *cause, *json;
	size_t			 len, jsonlen;

	if (argc > 2 ||
	    (argc == 2 && argv[1][0] == '-' && argv[1][1] != '\0')) {
		fprintf(stderr, "usage: toml-decode [file]\n");
		return 2;
	}
	if (argc == 2 && strcmp(argv[1], "-") != 0) {
		name = argv[1];
		if ((fp = fopen(name, "rb")) == NULL) {
			fprintf(stderr, "toml-decode: %s: %s\n", name,
			    strerror(errno));
			return 2;
		}
	}
	buf = tomljson_read(fp, TOML_MAX_INPUT, &len);
	if (buf == NULL) {
		fprintf(stderr, "toml-decode: %s: %s\n", name, strerror(errno));
		return 2;
	}
	if (fp != stdin)
		fclose(fp);

	if ((root = toml_parse(buf, len, &cause)) == NULL) {
		fprintf(stderr, "%s:%s\n", name, cause);
		free(cause);
		free(buf);
		return 1;
	}
	json = tomljson_encode(root, &jsonlen);
	fwrite(json, 1, jsonlen, stdout);
	free(json);
	toml_free(root);
	free(buf);
	return fflush(stdout) == 0 ? 0 : 2;
}
