/*
 * config-private.h: what the parts of the configuration share.
 * config.c owns the option table and setting a value from it;
 * config-load.c reads a file (TOML or Procfile) into a struct config;
 * config-stack.c checks the jobs as a stack once they are read;
 * config-keys.c reads and checks [keys]; config-help.c writes
 * --help-config from the table and [keys]; config-write.c writes a job
 * back as TOML.  Nothing outside these files includes this header.
 *
 * Ownership: a struct config_ctx borrows the file's name and the caller's
 * cause; the first error fills *cause (config_fail) and stops the parse.
 */
#ifndef JOBDECK_CONFIG_PRIVATE_H
#define JOBDECK_CONFIG_PRIVATE_H

#include <stddef.h>

#include "bind.h"
#include "config.h"
#include "toml.h"

/* The largest distance for a "did you mean" suggestion. */
#define CONFIG_SUGGEST_MAX	2

/* Bytes of a user's name or key quoted in a message. */
#define CONFIG_EXCERPT_MAX	32

/* Where a job's option is stored in its struct config_job. */
#define JOB(f)	offsetof(struct config_job, f)

/* One parse: the name for messages. */
struct config_ctx {
	const char	*name;
	char		**cause;
};

/*
 * The job names seen so far, for duplicates: an open-addressed hash set
 * of job indices plus one (0 is an empty slot), at most half full.
 */
struct config_names {
	size_t	*slot;
	size_t	 size;		/* a power of two */
};

/* A growing string for config_help_text(). */
struct config_buf {
	char	*s;
	size_t	 len;
	size_t	 size;
};

/* The sections of config_options[], in the order help lists them. */
extern const char *const config_sections[];
extern const size_t config_nsections;

/* config.c: the table, its values, and messages. */
int		 config_fail(struct config_ctx *, int, int, char *);
const struct config_option *config_lookup(const char *, const char *,
		    size_t);
int		 config_near(const char *, size_t, const char *, size_t *);
const char	*config_suggest(const char *, const char *, size_t);
void		 config_init(const char *, void *);
int		 config_set(struct config_ctx *, const struct config_option *,
		    const struct toml_value *, void *);
const char	*config_section_table(const char *);
int		 config_section(struct config_ctx *, const char *,
		    const char *, const struct toml_value *, void *);
int		 config_check_group(const char *, char **);
int		 config_check_host_name(const char *, char **);
int		 config_graphic(const char *, size_t);
void		 config_buf_printf(struct config_buf *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
void		 config_procfile_ports(struct config *);

/* config-stack.c: the jobs as a stack. */
int		 config_names_add(struct config_names *,
		    const struct config_job *, size_t);
int		 config_before(const struct toml_value *,
		    const struct toml_value *);
int		 config_check_job(struct config_ctx *, const struct config *,
		    size_t, const struct toml_value *,
		    const struct toml_value *, struct config_names *);
int		 config_check_templates(struct config_ctx *,
		    const struct config *, const struct config_job *,
		    const struct toml_value *);
int		 config_check_timer(struct config_ctx *, struct config_job *,
		    const struct toml_value *);
int		 config_check_stack(struct config_ctx *, const struct config *,
		    const struct toml_value *, const struct config_names *);
int		 config_check_browser_deps(struct config_ctx *,
		    const struct config *);
int		 config_check_job_host(struct config_ctx *,
		    const struct config *, const struct config_job *,
		    const struct toml_value *);

/* config-keys.c: [keys]. */
int		 config_keys(struct config_ctx *, struct config *,
		    enum bind_mode, const struct toml_value *);
int		 config_check_keys(struct config_ctx *, const struct config *);
void		 config_help_keys(struct config_buf *);


#endif
