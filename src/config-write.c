/*
 * config-write.c: a job written back as TOML (config.h says what
 * config_job_toml() promises; config-private.h which part of the
 * configuration owns what).  It walks config_options[] as config.c does,
 * each job option's value at its offset, so an option added to the
 * table is written without a change here.  Values equal to a fresh job's
 * (config_init()) are left out, so the text is short.  Strings are TOML
 * basic strings: json.c's escapes (\" \\ \b \f \n \r \t \u00XX) are
 * TOML's too, and DEL, which JSON may leave as it is but TOML may not, is
 * written \u007F.  Numbers are json.c's: the shortest text that reads
 * back as the same double, whatever the locale.  Keys of env, params and
 * depends_on are bare when TOML allows it ([A-Za-z0-9_-]+), else quoted.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config-private.h"
#include "expand.h"
#include "fatal.h"
#include "json.h"
#include "xmalloc.h"

/* Append the NUL-terminated s to b. */
static void
config_write_add(struct xbuf *b, const char *s)
{
	xbuf_add(b, s, strlen(s));
}

/* Append s (len bytes) to b as a TOML basic string. */
static void
config_write_stringn(struct xbuf *b, const char *s, size_t len)
{
	struct json_buf	 jb;
	char		*p, *del;

	json_init(&jb);
	json_put_stringn(&jb, s, len);
	for (p = jb.data; (del = strchr(p, 0x7f)) != NULL; p = del + 1) {
		xbuf_add(b, p, (size_t)(del - p));
		config_write_add(b, "\\u007F");
	}
	config_write_add(b, p);
	json_clear(&jb);
}

/* Append the NUL-terminated s to b as a TOML basic string. */
static void
config_write_string(struct xbuf *b, const char *s)
{
	config_write_stringn(b, s, strlen(s));
}

/* Append key (len bytes) to b as a TOML key: bare when it can be. */
static void
config_write_key(struct xbuf *b, const char *key, size_t len)
{
	size_t	i;

	for (i = 0; i < len; i++) {
		if (!((key[i] >= 'a' && key[i] <= 'z') ||
		    (key[i] >= 'A' && key[i] <= 'Z') ||
		    (key[i] >= '0' && key[i] <= '9') || key[i] == '_' ||
		    key[i] == '-'))
			break;
	}
	if (len > 0 && i == len)
		xbuf_add(b, key, len);
	else
		config_write_stringn(b, key, len);
}

/* Append choice i of o's "|"-separated choices to b as a string. */
static void
config_write_choice(struct xbuf *b, const struct config_option *o, int i)
{
	const char	*p = o->choices, *bar;

	for (; i > 0 && p != NULL; i--)
		p = (bar = strchr(p, '|')) != NULL ? bar + 1 : NULL;
	if (p == NULL)
		fatal("config: %s has no choice %d", o->name, i);
	bar = strchr(p, '|');
	config_write_stringn(b, p, bar != NULL ? (size_t)(bar - p) :
	    strlen(p));
}

/* Append the double d to b as json.c writes numbers. */
static void
config_write_number(struct xbuf *b, double d)
{
	struct json_buf	 jb;

	json_init(&jb);
	json_put_double(&jb, d);
	config_write_add(b, jb.data);
	json_clear(&jb);
}

/* Append the table option o of j (env, params, depends_on) to b, inline. */
static void
config_write_table(struct xbuf *b, const struct config_option *o,
    const char *field, size_t n)
{
	const struct expand_param	*pp;
	const struct config_dep		*dp;
	char				*const *sp;
	const char			*eq;
	size_t				 i;

	config_write_add(b, "{");
	for (i = 0; i < n; i++) {
		config_write_add(b, i == 0 ? " " : ", ");
		if (o->type == CONFIG_DEPS) {
			memcpy(&dp, field, sizeof dp);
			config_write_key(b, dp[i].name, strlen(dp[i].name));
			config_write_add(b, " = ");
			if (dp[i].restart)
				config_write_add(b, "{ condition = ");
			config_write_choice(b, o, (int)dp[i].cond);
			if (dp[i].restart)
				config_write_add(b, ", restart = true }");
		} else if (o->flags & CONFIG_PAIRS) {
			memcpy(&pp, field, sizeof pp);
			config_write_key(b, pp[i].key, strlen(pp[i].key));
			config_write_add(b, " = ");
			config_write_string(b, pp[i].value);
		} else {
			memcpy(&sp, field, sizeof sp);
			eq = strchr(sp[i], '=');
			config_write_key(b, sp[i], (size_t)(eq - sp[i]));
			config_write_add(b, " = ");
			config_write_string(b, eq + 1);
		}
	}
	config_write_add(b, n == 0 ? "}" : " }");
}

/* Append the value of option o of j to b. */
static void
config_write_value(struct xbuf *b, const struct config_option *o,
    const struct config_job *j)
{
	const char	*field = (const char *)j + o->offset;
	char		*const *sp, *s, num[32];
	size_t		 n = 0, i;
	double		 d;
	int		 v;

	if (o->count != 0)
		memcpy(&n, (const char *)j + o->count, sizeof n);
	switch (o->type) {
	case CONFIG_STRING:
	case CONFIG_STRING_OR_FALSE:
		memcpy(&s, field, sizeof s);
		if (s == NULL)
			config_write_add(b, "false");
		else
			config_write_string(b, s);
		return;
	case CONFIG_INT:
	case CONFIG_BOOL:
	case CONFIG_ENUM:
		memcpy(&v, field, sizeof v);
		if (o->type == CONFIG_ENUM)
			config_write_choice(b, o, v);
		else if (o->type == CONFIG_BOOL)
			config_write_add(b, v ? "true" : "false");
		else {
			snprintf(num, sizeof num, "%d", v);
			config_write_add(b, num);
		}
		return;
	case CONFIG_NUMBER:
		memcpy(&d, field, sizeof d);
		config_write_number(b, d);
		return;
	case CONFIG_STRING_ARRAY:
		memcpy(&sp, field, sizeof sp);
		config_write_add(b, "[");
		for (i = 0; i < n; i++) {
			config_write_add(b, i == 0 ? "" : ", ");
			config_write_string(b, sp[i]);
		}
		config_write_add(b, "]");
		return;
	case CONFIG_STRING_TABLE:
	case CONFIG_DEPS:
		config_write_table(b, o, field, n);
		return;
	}
	fatal("config: %s has an unknown type", o->name);
}

/*
 * Return whether o is autostart = true on a job on a timer, written
 * though it is the table's default: such a job's default is false
 * (config_check_timer()).
 */
static int
config_write_autostart(const struct config_option *o,
    const struct config_job *j)
{
	return o->offset == offsetof(struct config_job, autostart) &&
	    j->autostart && (j->schedule != NULL || j->every != NULL);
}

/* Return job j as one [[job]] table of TOML (config.h); the caller frees it. */
char *
config_job_toml(const struct config_job *j)
{
	const struct config_option	*o;
	struct config_job		*def;
	struct xbuf			 b = { NULL, 0, 0 };
	size_t				 i;

	def = xcalloc(1, sizeof *def);
	config_init("job", def);
	config_write_add(&b, "[[job]]\n");
	for (i = 0; i < config_noptions; i++) {
		o = &config_options[i];
		if (strcmp(o->section, "job") != 0 ||
		    (config_option_same(o, j, def) &&
		    !config_write_autostart(o, j)))
			continue;
		config_write_key(&b, o->name, strlen(o->name));
		config_write_add(&b, " = ");
		config_write_value(&b, o, j);
		config_write_add(&b, "\n");
	}
	config_job_free(def);
	return b.s;
}
