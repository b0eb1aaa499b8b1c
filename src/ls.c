/*
 * ls.c: `jobdeck ls [--json]`, the running decks of this user (ls.h).
 * The sockets' names come from ctl_socket_names(); each deck is asked
 * `--json deck` on its read-only socket through a ctlconn, LS_AT_ONCE of
 * them at a time on one loop, so a deck that does not answer costs its
 * time limit once, not once per deck.  Answers are parsed (jsonval.h)
 * before anything is printed: a table (texttable.h), or an array of the
 * objects as the decks wrote them.  With -H DEST, jobdeck ls runs on
 * ssh destination DEST instead (remote.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliopt.h"
#include "ctl.h"
#include "ctlconn.h"
#include "json.h"
#include "jsonval.h"
#include "loop.h"
#include "ls.h"
#include "remote.h"
#include "textesc.h"
#include "texttable.h"
#include "xmalloc.h"

#define LS_AT_ONCE	32		/* requests under way at once */
#define LS_REPLY_MAX	(64 * 1024)	/* a deck's answer */

/* The options of jobdeck ls. */
enum ls_option {
	LS_OPT_HOST,
	LS_OPT_JSON,
	LS_OPT_HELP,
};
static const struct cliopt ls_options[] = {
	[LS_OPT_HOST] = { "host", 'H', "DEST",
	    "the decks on ssh destination DEST: jobdeck ls\nrun there, "
	    "through ssh", 0 },
	[LS_OPT_JSON] = { "json", 0, NULL,
	    "an array of the decks' objects instead of a table", 0 },
	[LS_OPT_HELP] = { "help", 'h', NULL, "show this help",
	    CLIOPT_HIDDEN },
};

/* The table's columns. */
static const struct texttable_col ls_cols[] = {
	{ "NAME", 0 },
	{ "PID", 0 },
	{ "STARTED", 0 },
	{ "JOBS", 0 },
	{ "CLIENTS", 0 },
	{ "CONFIG", 0 },
};
#define LS_NCOLS	(sizeof ls_cols / sizeof ls_cols[0])

struct ls;

/* One deck's socket, its request under way, and its answer. */
struct ls_deck {
	struct ls	*ls;
	char		*name;		/* of its socket, NAME.sock */
	struct ctlconn	*cc;		/* under way, or NULL */
	struct jsonval	*doc;		/* its object, or NULL */
	char		*text;		/* ... as it came, for --json */
	size_t		 len;
};

/* Every deck asked, and how the asking goes. */
struct ls {
	struct loop	*loop;
	struct ls_deck	*decks;
	size_t		 n;
	size_t		 next;		/* the next to ask */
	size_t		 pending;	/* under way */
	int		 failed;	/* a deck could not be described */
};

static void	ls_ask_more(struct ls *);

/* Print the usage line to f after lead ("usage:" or its blanks). */
void
ls_usage(FILE *f, const char *lead)
{
	cliopt_usage(f, lead, "jobdeck ls", ls_options,
	    CLIOPT_COUNT(ls_options), 0, NULL);
}

/* Print the help text. */
static void
ls_help(void)
{
	ls_usage(stdout, "usage:");
	printf("\n"
	    "Lists the running decks of this user: each deck whose socket "
	    "is in the\n"
	    "sockets' directory is asked `deck` (jobdeck ctl -S NAME deck); "
	    "a socket\n"
	    "nobody listens on (a deck killed with SIGKILL) is passed "
	    "over.\n\n");
	cliopt_help(stdout, ls_options, CLIOPT_COUNT(ls_options), 0);
	printf("\n"
	    "Columns: NAME, PID, STARTED (UTC), JOBS (running/total), "
	    "CLIENTS (attached\n"
	    "terminals), CONFIG (its configuration file).\n"
	    "Exit status: 0; 1 when a deck did not answer within %d s or "
	    "answered\n"
	    "something else (said on stderr, the others listed); 2 usage or "
	    "an unusable\n"
	    "sockets' directory.  See jobdeck(1).\n",
	    CTL_ANSWER_TIMEOUT_MS / 1000);
}

/* Say on stderr, made safe, each line of what went wrong with deck d. */
static void
ls_say(struct ls_deck *d, const char *text, size_t len)
{
	const char	*p = text, *end = text + len, *nl;
	char		*safe;

	d->ls->failed = 1;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		if (nl > p) {
			safe = textesc_visible(p, (size_t)(nl - p));
			fprintf(stderr, "jobdeck ls: %s: %s\n", d->name, safe);
			free(safe);
		}
		p = nl + 1;
	}
}

/* Keep a deck's answer if it is a JSON object; else say why not. */
static void
ls_keep(struct ls_deck *d, const char *body, size_t len)
{
	struct jsonval	*doc;
	char		*cause = NULL, *why;

	while (len > 0 && body[len - 1] == '\n')
		len--;
	if ((doc = jsonval_parse(body, len, &cause)) == NULL) {
		why = xprintf("bad answer: %s", cause);
		ls_say(d, why, strlen(why));
		free(why);
		free(cause);
		return;
	}
	if (jsonval_type(doc) != JSONVAL_OBJECT) {
		why = xprintf("bad answer: %s, not an object",
		    jsonval_type_name(jsonval_type(doc)));
		ls_say(d, why, strlen(why));
		free(why);
		jsonval_free(doc);
		return;
	}
	d->doc = doc;
	d->text = xmalloc(len + 1);
	memcpy(d->text, body, len);
	d->text[len] = '\0';
	d->len = len;
}

/*
 * A deck's request is over: keep its object, pass over a socket nobody
 * listens on, say anything else; ask the next, or stop when none is left.
 */
static void
ls_done_cb(int status, int exit, const char *body, size_t len, void *arg)
{
	struct ls_deck	*d = arg;
	struct ls	*ls = d->ls;

	(void)exit;
	if (status == 0)
		ls_keep(d, body, len);
	else if (status != -1 || !ctlconn_no_deck(d->cc))
		ls_say(d, body, len);
	ctlconn_free(d->cc);
	d->cc = NULL;
	ls->pending--;
	ls_ask_more(ls);
	if (ls->pending == 0)
		loop_stop(ls->loop);
}

/* Ask the decks not yet asked, up to LS_AT_ONCE under way. */
static void
ls_ask_more(struct ls *ls)
{
	static const struct ctlconn_cbs	 cbs = { .done = ls_done_cb };
	static char			*words[] = { "deck", NULL };
	struct ls_deck			*d;

	while (ls->pending < LS_AT_ONCE && ls->next < ls->n) {
		d = &ls->decks[ls->next++];
		d->cc = ctlconn_new(ls->loop, d->name, words,
		    CTLCONN_JSON | CTLCONN_READ_ONLY, LS_REPLY_MAX, &cbs, d);
		ls->pending++;
	}
}

/* Return a member of a deck's object as a cell (to free): made safe. */
static char *
ls_cell(const struct jsonval *doc, const char *key)
{
	const struct jsonval	*v = jsonval_get(doc, key);
	const char		*s;
	int64_t			 i;

	if (jsonval_int(v, &i) == 0)
		return xprintf("%lld", (long long)i);
	if ((s = jsonval_string(v)) != NULL)
		return textesc_visible(s, jsonval_string_len(v));
	return xstrdup("-");
}

/* Print the decks that answered as a table; nothing when none did. */
static void
ls_print_table(const struct ls *ls)
{
	struct texttable	*tt;
	const struct jsonval	*doc;
	char			*cells[LS_NCOLS], *running, *jobs, **lines;
	size_t			 i, k;
	int			 count, j;

	tt = texttable_new(ls_cols, (int)LS_NCOLS);
	for (i = 0; i < ls->n; i++) {
		if ((doc = ls->decks[i].doc) == NULL)
			continue;
		running = ls_cell(doc, "running");
		jobs = ls_cell(doc, "jobs");
		cells[0] = xstrdup(ls->decks[i].name);
		cells[1] = ls_cell(doc, "pid");
		cells[2] = ls_cell(doc, "started_at");
		cells[3] = xprintf("%s/%s", running, jobs);
		cells[4] = ls_cell(doc, "clients");
		cells[5] = ls_cell(doc, "config");
		texttable_add(tt, (const char *const *)cells);
		for (k = 0; k < LS_NCOLS; k++)
			free(cells[k]);
		free(running);
		free(jobs);
	}
	if (texttable_rows(tt) > 0) {
		lines = texttable_lines(tt, 0, &count);
		for (j = 0; j < count; j++)
			printf("%s\n", lines[j]);
		texttable_lines_free(lines, count);
	}
	texttable_free(tt);
}

/* Print the decks that answered as one JSON array of their objects. */
static void
ls_print_json(const struct ls *ls)
{
	struct json_buf	 jb;
	size_t		 i;

	json_init(&jb);
	json_array_begin(&jb);
	for (i = 0; i < ls->n; i++) {
		if (ls->decks[i].doc != NULL)
			json_put_raw(&jb, ls->decks[i].text,
			    ls->decks[i].len);
	}
	json_array_end(&jb);
	printf("%s\n", jb.data);
	json_clear(&jb);
}

/*
 * Parse the options; 0 to go on, else the exit status plus one (help
 * printed, or a usage error said).
 */
static int
ls_parse(int argc, char **argv, int *json, const char **host)
{
	struct cliopt_parser	p;
	int			i, rc = 0;

	cliopt_begin(&p, "jobdeck ls", ls_options, CLIOPT_COUNT(ls_options));
	while (rc == 0 && (i = cliopt_next(&p, argc, argv)) != -1) {
		switch (i) {
		case LS_OPT_HOST:
			*host = p.value;
			break;
		case LS_OPT_JSON:
			*json = 1;
			break;
		case LS_OPT_HELP:
			ls_help();
			rc = 1;
			break;
		default:
			ls_usage(stderr, "usage:");
			rc = 3;
			break;
		}
	}
	if (rc == 0 && p.first < argc) {
		fprintf(stderr, "jobdeck ls: unexpected argument '%s'\n",
		    argv[p.first]);
		ls_usage(stderr, "usage:");
		rc = 3;
	}
	cliopt_end(&p);
	return rc;
}

/* Run `jobdeck ls`; argv[0] is "ls".  Returns the exit status. */
int
ls_main(int argc, char **argv)
{
	static const char *const	  remote[] = { "ls", NULL };
	static const char *const	  remote_json[] = { "ls", "--json",
					      NULL };
	struct ls			  ls;
	const char			 *host = NULL;
	char				**names, *cause = NULL;
	size_t				  n, i;
	int				  json = 0, rc;

	if ((rc = ls_parse(argc, argv, &json, &host)) != 0)
		return rc - 1;
	if (host != NULL)
		return remote_exec("jobdeck ls", host, json ? remote_json :
		    remote, 0);
	if (ctl_socket_names(&names, &n, &cause) != 0) {
		fprintf(stderr, "jobdeck ls: %s\n", cause);
		free(cause);
		return 2;
	}
	memset(&ls, 0, sizeof ls);
	ls.n = n;
	ls.decks = xcalloc(n > 0 ? n : 1, sizeof *ls.decks);
	for (i = 0; i < n; i++) {
		ls.decks[i].ls = &ls;
		ls.decks[i].name = names[i];
	}
	free(names);
	if (n > 0) {
		ls.loop = loop_new();
		ls_ask_more(&ls);
		loop_run(ls.loop);
		loop_free(ls.loop);
	}
	if (json)
		ls_print_json(&ls);
	else
		ls_print_table(&ls);
	for (i = 0; i < n; i++) {
		jsonval_free(ls.decks[i].doc);
		free(ls.decks[i].text);
		free(ls.decks[i].name);
	}
	free(ls.decks);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "jobdeck ls: cannot write the list\n");
		return 1;
	}
	return ls.failed ? 1 : 0;
}
