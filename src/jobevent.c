/*
 * jobevent.c: a job's events as JSON lines (jobevent.h): "output" from
 * the store or from text, "exited"; the one writer of each.
 */
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "jobevent.h"
#include "jobfield.h"
#include "json.h"
#include "store.h"
#include "xmalloc.h"

/* The fields of an "exited" event (jobfield.h), after "event" and "id". */
static const enum jobfield_id jobevent_exited_fields[] = {
	JOBFIELD_EXIT_CODE, JOBFIELD_SIGNAL, JOBFIELD_CODE,
	JOBFIELD_DURATION_MS, JOBFIELD_STATE
};

/* Build one JSON event line: begin it with its kind and the job's id. */
void
jobevent_begin(struct json_buf *jb, const char *kind, int id)
{
	json_init(jb);
	json_object_begin(jb);
	json_key(jb, "event");
	json_put_string(jb, kind);
	json_key(jb, "id");
	json_put_int(jb, id);
}

/* Finish a JSON event and return it as a line ending in "\n". */
char *
jobevent_end(struct json_buf *jb, size_t *len)
{
	char	*doc, *line;

	json_object_end(jb);
	doc = json_finish(jb, len);
	json_clear(jb);
	line = xprintf("%s\n", doc);
	free(doc);
	(*len)++;
	return line;
}

/*
 * Append "output" events for lines of a job's text that has no store
 * (its emulator's, or its bytes converted here): as jobevent_output_store()
 * writes them, without line numbers.
 */
void
jobevent_output_lines(struct xbuf *b, int id, char **lines, int count)
{
	struct store_line	*sl;
	int			 i;

	if (count == 0)
		return;
	sl = xcalloc((size_t)count, sizeof *sl);
	for (i = 0; i < count; i++) {
		sl[i].no = -1;
		sl[i].stream = STORE_TTY;
		sl[i].text = lines[i];
		sl[i].len = strlen(lines[i]);
	}
	jobevent_output_store(b, id, sl, count);
	free(sl);
}

/*
 * Append "output" events for lines read from the store: each with its
 * text, its line number (when it has one), its stream and whether it is a
 * partial line.  The one writer of output events.
 */
void
jobevent_output_store(struct xbuf *b, int id, const struct store_line *sl,
    int n)
{
	jobevent_output_named(b, id, NULL, sl, n);
}

/*
 * Append "output" events as jobevent_output_store() does, each with the
 * job's name after its id when name is not NULL (a merged log's lines).
 */
void
jobevent_output_named(struct xbuf *b, int id, const char *name,
    const struct store_line *sl, int n)
{
	struct json_buf	 ev;
	char		*line;
	size_t		 len;
	int		 i;

	for (i = 0; i < n; i++) {
		jobevent_begin(&ev, "output", id);
		if (name != NULL) {
			json_key(&ev, "name");
			json_put_string(&ev, name);
		}
		json_key(&ev, "text");
		json_put_stringn(&ev, sl[i].text, sl[i].len);
		if (sl[i].no >= 0) {
			json_key(&ev, "line");
			json_put_int(&ev, sl[i].no + 1);
		}
		json_key(&ev, "stream");
		json_put_string(&ev, sl[i].stream == STORE_STDERR ? "stderr" :
		    "stdout");
		if (sl[i].partial) {
			json_key(&ev, "partial");
			json_put_bool(&ev, 1);
		}
		line = jobevent_end(&ev, &len);
		xbuf_add(b, line, len);
		free(line);
	}
}

/* Return an "exited" event line: exit code or signal, duration, state. */
char *
jobevent_exited(struct job *job, size_t *len)
{
	struct json_buf	 jb;

	jobevent_begin(&jb, "exited", job_id(job));
	jobfield_json_some(&jb, job, jobevent_exited_fields,
	    sizeof jobevent_exited_fields /
	    sizeof jobevent_exited_fields[0]);
	return jobevent_end(&jb, len);
}
