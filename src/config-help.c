/*
 * config-help.c: the text of `jobdeck --help-config` (config.h): every
 * option of the table by section, in columns, and the key bindings
 * (config-keys.c).  It sits above the table and [keys], so neither calls
 * up to it.
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config-private.h"
#include "xmalloc.h"

/*
 * Return the text of `jobdeck --help-config`: every option, by section, in
 * columns of name, type (with bounds or choices), default and help, what
 * the columns cannot say, and the key bindings.
 */
char *
config_help_text(void)
{
	const struct config_option	*o;
	struct config_buf		 b = { NULL, 0, 0 };
	char				**type, **def;
	size_t				 i, k, wname = 0, wtype = 0, wdef = 0;

	type = xcalloc(config_noptions, sizeof *type);
	def = xcalloc(config_noptions, sizeof *def);
	for (i = 0; i < config_noptions; i++) {
		o = &config_options[i];
		if (o->type == CONFIG_INT || o->type == CONFIG_NUMBER)
			type[i] = xprintf("%s %.15g..%.15g",
			    config_type_name(o->type), o->min, o->max);
		else if (o->type == CONFIG_ENUM)
			type[i] = xstrdup(o->choices);
		else
			type[i] = xstrdup(config_type_name(o->type));
		if (o->flags & CONFIG_REQUIRED)
			def[i] = xstrdup("required");
		else
			def[i] = xstrdup(o->def == NULL ? "-" : o->def);
		if (strlen(o->name) > wname)
			wname = strlen(o->name);
		if (strlen(type[i]) > wtype)
			wtype = strlen(type[i]);
		if (strlen(def[i]) > wdef)
			wdef = strlen(def[i]);
	}
	config_buf_printf(&b, "jobdeck configuration options (TOML):\n");
	for (k = 0; k < config_nsections; k++) {
		config_buf_printf(&b, "\n%s\n", config_section_table(
		    config_sections[k]));
		for (i = 0; i < config_noptions; i++) {
			o = &config_options[i];
			if (strcmp(o->section, config_sections[k]) != 0)
				continue;
			config_buf_printf(&b, "  %-*s  %-*s  %-*s  %s\n",
			    (int)wname, o->name, (int)wtype, type[i], (int)wdef,
			    def[i], o->help);
		}
	}
	config_buf_printf(&b, "\nenv_file may also be written at the top "
	    "level, before any table: the same\noption as [settings] env_file "
	    "(setting both is an error).  A job's group\nneeds no "
	    "[groups.NAME] table: it has no limit then.  depends_on names "
	    "jobs\nof the file (a job with replicas stands for all of "
	    "them), or browser, the\n[browser] (\"started\" or \"ready\": "
	    "CDP Ready), when no job has that name;\n\"ready\" waits for "
	    "the readiness probe, and a job with none is ready once\n"
	    "started.  At most one ready_* and one liveness_* probe a job."
	    "\n[browser] cdp_url = false, or no cdp_url, starts no browser "
	    "(TOML has no\nnull); browser_image, browser_command and "
	    "browser_args are for \"auto\" and\nfor !browser start.  "
	    "A [hosts.NAME] sets exactly one of ssh and slurm; a\njob's "
	    "host is such a NAME, else an ssh destination ([user@]host).\n");
	config_help_keys(&b);
	for (i = 0; i < config_noptions; i++) {
		free(type[i]);
		free(def[i]);
	}
	free(type);
	free(def);
	return b.s;
}
