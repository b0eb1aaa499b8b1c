/*
 * ui-clip.c: the paste buffer.  A copy (copy mode, a mouse drag) is kept
 * here for the paste key and !paste, and, when the configuration allows,
 * also sent to the outer terminal's clipboard as OSC 52 (base64, so no
 * byte of it can be read by the terminal as a control).
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "jobtable.h"
#include "ui-private.h"
#include "vt.h"
#include "xmalloc.h"

/* Encode len bytes as base64 into a new string. */
static char *
ui_clip_base64(const char *text, size_t len)
{
	static const char	 alphabet[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char	*p = (const unsigned char *)text;
	char			*out, *o;
	size_t			 i;
	unsigned int		 v;

	out = o = xmalloc((len + 2) / 3 * 4 + 1);
	for (i = 0; i + 2 < len; i += 3) {
		v = (unsigned int)p[i] << 16 | (unsigned int)p[i + 1] << 8 |
		    p[i + 2];
		*o++ = alphabet[v >> 18];
		*o++ = alphabet[v >> 12 & 0x3f];
		*o++ = alphabet[v >> 6 & 0x3f];
		*o++ = alphabet[v & 0x3f];
	}
	if (i < len) {
		v = (unsigned int)p[i] << 16;
		if (i + 1 < len)
			v |= (unsigned int)p[i + 1] << 8;
		*o++ = alphabet[v >> 18];
		*o++ = alphabet[v >> 12 & 0x3f];
		*o++ = i + 1 < len ? alphabet[v >> 6 & 0x3f] : '=';
		*o++ = '=';
	}
	*o = '\0';
	return out;
}

/*
 * Keep text as the paste buffer and, if allowed and not too long, put it
 * on the outer terminal's clipboard; says what it did on the message line.
 */
void
ui_clip_set(struct ui *ui, const char *text, size_t len)
{
	char	*b64, *seq, msg[UI_MESSAGE_MAX];
	int	 lines = 0;
	size_t	 i;

	free(ui->clip);
	ui->clip = xmalloc(len + 1);
	memcpy(ui->clip, text, len);
	ui->clip[len] = '\0';
	ui->clip_len = len;
	for (i = 0; i < len; i++)
		lines += text[i] == '\n';
	lines += len > 0 && text[len - 1] != '\n';
	if (!ui->clipboard)
		snprintf(msg, sizeof msg, "copied %d line%s (%zu bytes) to the "
		    "paste buffer", lines, lines == 1 ? "" : "s", len);
	else if (len > UI_CLIP_OSC52_MAX)
		snprintf(msg, sizeof msg, "copied %d lines (%zu bytes) to the "
		    "paste buffer; too long for the terminal's clipboard",
		    lines, len);
	else {
		b64 = ui_clip_base64(text, len);
		seq = xprintf("\033]52;c;%s\a", b64);
		/* To the client's terminal, after what curses wrote. */
		ui_term_write(ui->term, seq, strlen(seq));
		free(seq);
		free(b64);
		snprintf(msg, sizeof msg, "copied %d line%s (%zu bytes)", lines,
		    lines == 1 ? "" : "s", len);
	}
	ui->calls->message(msg, 0, ui->calls_arg);
}

/*
 * Send the paste buffer to job as a paste (bracketed if it asked); 0, or
 * -1 after saying why not.
 */
int
ui_clip_paste(struct ui *ui, struct job *job)
{
	char	msg[UI_MESSAGE_MAX];

	if (ui->clip == NULL || ui->clip_len == 0) {
		ui->calls->message("the paste buffer is empty: copy something "
		    "first", 1, ui->calls_arg);
		return -1;
	}
	/* A job that has printed nothing yet has no emulator: make it. */
	if (job == NULL || !job_is_running(job)) {
		if (job == NULL)
			snprintf(msg, sizeof msg, "no job to paste into");
		else
			snprintf(msg, sizeof msg, "[%d] is not running: "
			    "nothing to paste into", job_id(job));
		ui->calls->message(msg, 1, ui->calls_arg);
		return -1;
	}
	vt_send_paste(job_vt_get(job), ui->clip, ui->clip_len);
	jobtable_update(ui->jt, job);
	return 0;
}
