/*
 * config-keys.c: the [keys] tables of a configuration (config-private.h):
 * action = "KEY" or ["KEY", ...], with [keys.view], [keys.copy] and
 * [keys.edit] for the other modes; bind.h names the actions, and in
 * [keys] an action may be any command line ("logs 3" = "F3") that the
 * command layer accepts through bind_action_check().  An unknown action
 * gets the nearest known one (or command) as a suggestion; the bindings
 * are checked for clashes once the file is read, applied to a struct bind
 * by config_apply_keys(), and listed in `jobdeck --help-config`.
 */

#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config-private.h"
#include "fatal.h"
#include "textesc.h"
#include "xmalloc.h"

static const char *config_keys_table(enum bind_mode);

/* Return the name of a mode's [keys] table: "[keys]", "[keys.view]". */
static const char *
config_keys_table(enum bind_mode mode)
{
	switch (mode) {
	case BIND_VIEW:
		return "[keys.view]";
	case BIND_COPY:
		return "[keys.copy]";
	case BIND_EDIT:
		return "[keys.edit]";
	default:
		return "[keys]";
	}
}

/*
 * Return the action of mode closest to key (len bytes) by config_near(),
 * or, in [keys], the command nearest its first word; NULL when none is
 * near.
 */
static const char *
config_suggest_action(enum bind_mode mode, const char *key, size_t len)
{
	const struct bind_entry	*e;
	const char		*best = NULL, *name;
	size_t			 bestd = CONFIG_SUGGEST_MAX + 1, i;

	for (e = bind_defaults; e->action != BIND_NONE; e++) {
		if (e->mode == mode && config_near(key, len, e->name, &bestd))
			best = e->name;
	}
	if (mode != BIND_MAIN)
		return best;
	len = strcspn(key, " ");
	for (i = 0; (name = bind_command_name(i)) != NULL; i++) {
		if (config_near(key, len, name, &bestd))
			best = name;
	}
	return best;
}

/*
 * Check one key name v of a [keys] value (a string of the array, or one
 * word of a string) with bind_key_parse(); 0, or -1 with ctx's cause at
 * v's position.
 */
static int
config_key_name(struct config_ctx *ctx, const struct toml_value *v,
    const char *name)
{
	char	*msg = NULL;
	int	 key;

	if (bind_key_parse(name, &key, &msg) == 0)
		return 0;
	return config_fail(ctx, toml_line(v), toml_col(v), msg);
}

/*
 * Read the value v of action (len bytes) of mode in [keys] into a new
 * entry of cfg: a string of space-separated key names ("none": unbound),
 * or an array of key names ([]: unbound).
 */
static int
config_key_entry(struct config_ctx *ctx, struct config *cfg,
    enum bind_mode mode, const char *action, size_t len,
    const struct toml_value *v, int kline, int kcol)
{
	struct config_key	*k;
	const struct toml_value	*el;
	const char		*s, *near;
	char			*e, *msg, *copy, *word, *save = NULL;
	char			*keys = NULL, *joined, *why = NULL;
	size_t			 slen, i;
	int			 known = BIND_UNKNOWN;

	e = textesc_excerpt(action, len, CONFIG_EXCERPT_MAX);
	if (strlen(action) == len)
		known = bind_action_check(mode, action, &why);
	if (known == BIND_MISUSED) {
		msg = xprintf("%s in %s: %s", e, config_keys_table(mode), why);
		free(why);
		free(e);
		return config_fail(ctx, kline, kcol, msg);
	}
	if (known != BIND_KNOWN) {
		near = strlen(action) == len ?
		    config_suggest_action(mode, action, len) : NULL;
		if (near != NULL)
			msg = xprintf("unknown action '%s' in %s (did you "
			    "mean '%s'?)", e, config_keys_table(mode), near);
		else
			msg = xprintf("unknown action '%s' in %s", e,
			    config_keys_table(mode));
		free(e);
		return config_fail(ctx, kline, kcol, msg);
	}
	if (toml_type(v) == TOML_STRING) {
		s = toml_string(v, &slen);
		if (strlen(s) != slen || slen == 0) {
			msg = xprintf("%s in %s must name keys (\"none\" "
			    "unbinds it)", e, config_keys_table(mode));
			free(e);
			return config_fail(ctx, toml_line(v), toml_col(v), msg);
		}
		if (strcmp(s, "none") != 0) {
			copy = xstrdup(s);
			for (word = strtok_r(copy, " ", &save); word != NULL;
			    word = strtok_r(NULL, " ", &save)) {
				if (config_key_name(ctx, v, word) != 0) {
					free(copy);
					free(e);
					return -1;
				}
			}
			free(copy);
		}
		keys = xstrdup(s);
	} else if (toml_type(v) == TOML_ARRAY) {
		for (i = 0; i < toml_array_size(v); i++) {
			el = toml_array_get(v, i);
			s = toml_string(el, &slen);
			if (toml_type(el) != TOML_STRING ||
			    strlen(s) != slen || strchr(s, ' ') != NULL) {
				free(keys);
				msg = xprintf("%s in %s: each key must be a "
				    "string with one key name", e,
				    config_keys_table(mode));
				free(e);
				return config_fail(ctx, toml_line(el),
				    toml_col(el), msg);
			}
			if (config_key_name(ctx, el, s) != 0) {
				free(keys);
				free(e);
				return -1;
			}
			joined = keys == NULL ? xstrdup(s) :
			    xprintf("%s %s", keys, s);
			free(keys);
			keys = joined;
		}
		if (keys == NULL)
			keys = xstrdup("none");
	} else {
		msg = xprintf("%s in %s must be a key name or an array of "
		    "them", e, config_keys_table(mode));
		free(e);
		return config_fail(ctx, toml_line(v), toml_col(v), msg);
	}
	free(e);
	cfg->keys = xreallocarray(cfg->keys, cfg->nkeys + 1,
	    sizeof *cfg->keys);
	k = &cfg->keys[cfg->nkeys++];
	k->mode = (int)mode;
	k->action = xstrndup(action, len);
	k->keys = keys;
	k->line = toml_line(v);
	k->col = toml_col(v);
	return 0;
}

/*
 * Apply the [keys] table t of mode: actions and their keys, and, in
 * [keys] itself, the tables of the other modes.
 */
int
config_keys(struct config_ctx *ctx, struct config *cfg, enum bind_mode mode,
    const struct toml_value *t)
{
	const struct toml_value	*v;
	const char		*key;
	enum bind_mode		 sub;
	size_t			 i, len;
	int			 kline, kcol;

	if (toml_type(t) != TOML_TABLE)
		return config_fail(ctx, toml_line(t), toml_col(t),
		    xstrdup("keys must be a table ([keys])"));
	for (i = 0; i < toml_table_size(t); i++) {
		key = toml_table_key(t, i, &len);
		v = toml_table_value(t, i);
		kline = toml_table_key_line(t, i);
		kcol = toml_table_key_col(t, i);
		if (mode == BIND_MAIN && toml_type(v) == TOML_TABLE &&
		    strlen(key) == len && bind_mode_parse(key, &sub) == 0) {
			if (config_keys(ctx, cfg, sub, v) != 0)
				return -1;
			continue;
		}
		if (config_key_entry(ctx, cfg, mode, key, len, v, kline,
		    kcol) != 0)
			return -1;
	}
	return 0;
}

/*
 * Check the bindings as they will be applied: focus_key, then [keys] in
 * file order through bind_set(), which refuses typed text at the prompt
 * and a focus key that is not a character; the focus key must be left
 * with a key at the end.
 */
int
config_check_keys(struct config_ctx *ctx, const struct config *cfg)
{
	struct bind		*b;
	const struct config_key	*k, *took = NULL;
	char			*msg = NULL;
	size_t			 i;

	b = bind_new();
	if (cfg->settings.focus_key != NULL && bind_set(b, BIND_MAIN,
	    "focus", cfg->settings.focus_key, &msg) != 0)
		fatal("focus_key %s: %s", cfg->settings.focus_key, msg);
	for (i = 0; i < cfg->nkeys; i++) {
		k = &cfg->keys[i];
		if (bind_set(b, (enum bind_mode)k->mode, k->action, k->keys,
		    &msg) != 0) {
			bind_free(b);
			return config_fail(ctx, k->line, k->col, msg);
		}
		if (bind_first_key(b, BIND_MAIN, BIND_FOCUS) == BIND_NO_KEY) {
			if (took == NULL)
				took = k;
		} else
			took = NULL;
	}
	bind_free(b);
	if (took != NULL) {
		msg = xprintf("%s takes the focus key, which must be left "
		    "with one: bind focus to another key too", took->action);
		return config_fail(ctx, took->line, took->col, msg);
	}
	return 0;
}

/* Apply focus_key, then [keys], to b: both were checked at load time. */
void
config_apply_keys(const struct config *cfg, struct bind *b)
{
	size_t	 i;
	char	*cause = NULL;

	if (cfg == NULL)
		return;
	if (cfg->settings.focus_key != NULL && bind_set(b, BIND_MAIN,
	    "focus", cfg->settings.focus_key, &cause) != 0)
		fatal("focus_key: %s", cause);
	for (i = 0; i < cfg->nkeys; i++) {
		if (bind_set(b, (enum bind_mode)cfg->keys[i].mode,
		    cfg->keys[i].action, cfg->keys[i].keys, &cause) != 0)
			fatal("keys: %s: %s", cfg->keys[i].action, cause);
	}
}

/* Append the [keys] part of `jobdeck --help-config`: every action. */
void
config_help_keys(struct config_buf *b)
{
	static const enum bind_mode	 modes[] = { BIND_MAIN, BIND_EDIT,
					     BIND_VIEW, BIND_COPY };
	const struct bind_entry		*e;
	size_t				 i;

	config_buf_printf(b, "\nKey bindings, a table per mode: ACTION = "
	    "\"KEY\" or [\"KEY\", ...]; \"none\" or []\nunbinds; keys are "
	    "named as C-t, Enter, PageUp, F5, g.  [settings] focus_key is an\n"
	    "alias of focus; [keys] focus wins when both are set.  The "
	    "actions of [keys] are\ncommands (!zoom runs zoom), and any "
	    "command line may be bound there, quoted\nwhen it has blanks: "
	    "\"logs 3\" = \"F3\", \"kill-all\" = \"C-k\".\n");
	for (i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		config_buf_printf(b, "\n%s\n", config_keys_table(modes[i]));
		for (e = bind_defaults; e->action != BIND_NONE; e++) {
			if (e->mode == modes[i])
				config_buf_printf(b, "    %-16s  %-18s  %s\n",
				    e->name, e->keys, e->note);
		}
	}
}
