/*
 * rawtext.c: raw terminal output to plain text lines, for reading logs.
 * The input may arrive in pieces; the parser state carries over between
 * rawtext_feed() calls, and rawtext_take() empties the finished lines
 * without ending the input.  Text is kept as bytes, so UTF-8 passes
 * through.  The line being built is an array of characters (so backspace
 * steps back one character); once a line longer than RAWTEXT_KEEP ends,
 * the array is given back, so one long line does not pin its memory.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rawtext.h"
#include "utf8.h"
#include "xmalloc.h"

#define RAWTEXT_KEEP	4096	/* characters of line buffer kept between lines */

enum rawtext_state {
	RT_TEXT,
	RT_ESC,		/* after ESC */
	RT_ESC_INTER,	/* ESC followed by intermediates (0x20-0x2f) */
	RT_CSI,		/* inside CSI parameters */
	RT_STRING,	/* OSC, DCS, SOS, PM, APC body */
	RT_STRING_ESC,	/* ESC inside a string: maybe ST */
	RT_CR		/* after CR: a line feed ends the line, text restarts it */
};

#define RAWTEXT_SEQ_MAX	64	/* bytes of an SGR sequence kept (RAWTEXT_SGR) */

/*
 * One character of a line: its UTF-8 bytes, and with RAWTEXT_SGR the SGR
 * sequences that came just before it (or NULL).
 */
struct rawtext_char {
	char	*sgr;
	char	 bytes[4];
	uint8_t	 len;
};

struct rawtext {
	enum rawtext_state	  state;
	struct rawtext_char	 *line;
	size_t			  len;	/* characters in the line */
	size_t			  cap;
	size_t			  col;	/* write position in characters */
	struct utf8_stream	  pend;	/* a UTF-8 sequence being read */
	char			**lines;
	int			  count;
	int			  alloc;
	int			  flags;
	char			  seq[RAWTEXT_SEQ_MAX];	/* the CSI being read */
	size_t			  seqlen;	/* > RAWTEXT_SEQ_MAX: not kept */
	char			 *sgr;		/* SGR for the next character */
};

/* Create an empty converter. */
struct rawtext *
rawtext_new(void)
{
	return xcalloc(1, sizeof(struct rawtext));
}

/* Append the SGR sequence just read to those waiting for a character. */
static void
rawtext_keep_sgr(struct rawtext *rt)
{
	size_t	old = rt->sgr == NULL ? 0 : strlen(rt->sgr);

	rt->sgr = xreallocarray(rt->sgr, old + rt->seqlen + 1, 1);
	memcpy(rt->sgr + old, rt->seq, rt->seqlen);
	rt->sgr[old + rt->seqlen] = '\0';
}

/* Empty the line being built, freeing its characters' SGR sequences. */
static void
rawtext_clear_line(struct rawtext *rt)
{
	size_t	i;

	for (i = 0; i < rt->len; i++) {
		free(rt->line[i].sgr);
		rt->line[i].sgr = NULL;
	}
	rt->len = rt->col = 0;
}

static void	rawtext_end_line(struct rawtext *);

/*
 * Put one character (len UTF-8 bytes) at the write position; a line that
 * is full (RAWTEXT_LINE_MAX) ends first.
 */
static void
rawtext_put(struct rawtext *rt, const char *bytes, size_t len)
{
	if (rt->col >= RAWTEXT_LINE_MAX)
		rawtext_end_line(rt);
	while (rt->col >= rt->cap) {
		rt->cap = rt->cap == 0 ? 128 : rt->cap * 2;
		rt->line = xreallocarray(rt->line, rt->cap, sizeof *rt->line);
	}
	while (rt->len < rt->col) {
		rt->line[rt->len].sgr = NULL;
		rt->line[rt->len].bytes[0] = ' ';
		rt->line[rt->len++].len = 1;
	}
	if (rt->col == rt->len)
		rt->line[rt->col].sgr = NULL;
	if (rt->sgr != NULL) {
		free(rt->line[rt->col].sgr);
		rt->line[rt->col].sgr = rt->sgr;
		rt->sgr = NULL;
	}
	memcpy(rt->line[rt->col].bytes, bytes, len);
	rt->line[rt->col++].len = (uint8_t)len;
	if (rt->col > rt->len)
		rt->len = rt->col;
}

/* Put a byte that is not valid UTF-8 as U+FFFD. */
static void
rawtext_put_invalid(struct rawtext *rt)
{
	rawtext_put(rt, "\xef\xbf\xbd", 3);
}

/*
 * Finish the current line and start an empty one.  SGR sequences waiting
 * for a character end the line, so a colour reset there is kept.
 */
static void
rawtext_end_line(struct rawtext *rt)
{
	char	*text;
	size_t	 i, n = 0, size, keep = rt->len;

	if (rt->count == rt->alloc) {
		rt->alloc = rt->alloc == 0 ? 256 : rt->alloc * 2;
		rt->lines = xreallocarray(rt->lines, rt->alloc, sizeof *rt->lines);
	}
	while (keep > 0 && rt->line[keep - 1].len == 1 &&
	    rt->line[keep - 1].bytes[0] == ' ' && rt->line[keep - 1].sgr == NULL)
		keep--;
	size = keep * 4 + 1 + (rt->sgr == NULL ? 0 : strlen(rt->sgr));
	for (i = 0; i < keep; i++) {
		if (rt->line[i].sgr != NULL)
			size += strlen(rt->line[i].sgr);
	}
	text = xmalloc(size);
	for (i = 0; i < keep; i++) {
		if (rt->line[i].sgr != NULL) {
			memcpy(text + n, rt->line[i].sgr,
			    strlen(rt->line[i].sgr));
			n += strlen(rt->line[i].sgr);
		}
		memcpy(text + n, rt->line[i].bytes, rt->line[i].len);
		n += rt->line[i].len;
	}
	if (rt->sgr != NULL) {
		memcpy(text + n, rt->sgr, strlen(rt->sgr));
		n += strlen(rt->sgr);
		free(rt->sgr);
		rt->sgr = NULL;
	}
	text[n] = '\0';
	rt->lines[rt->count++] = text;
	rawtext_clear_line(rt);
	if (rt->cap > RAWTEXT_KEEP) {
		free(rt->line);
		rt->line = NULL;
		rt->cap = 0;
	}
}

/* Take one byte of a UTF-8 sequence; returns 0 if it belongs to none. */
static int
rawtext_utf8(struct rawtext *rt, unsigned char c)
{
	uint32_t	cp;
	int		n;

	if (rt->pend.len == 0 && c < 0x80)
		return 0;
	/* Cut short: show it as invalid, then treat c afresh. */
	if ((n = utf8_stream_byte(&rt->pend, c, &cp)) == UTF8_CUT) {
		rawtext_put_invalid(rt);
		n = utf8_stream_byte(&rt->pend, c, &cp);
	}
	if (n == UTF8_BAD)
		rawtext_put_invalid(rt);
	else if (n > 0 && cp < 0x80)
		return 0;
	else if (n > 0)
		rawtext_put(rt, (const char *)rt->pend.b, (size_t)n);
	return 1;
}

/* Handle one byte of text state. */
static void
rawtext_text(struct rawtext *rt, unsigned char c)
{
	size_t	next;
	char	ch = (char)c;

	if (rawtext_utf8(rt, c))
		return;
	switch (c) {
	case '\n':
		rawtext_end_line(rt);
		break;
	case '\r':
		rt->state = RT_CR;
		break;
	case '\b':
		if (rt->col > 0)
			rt->col--;
		break;
	case '\t':
		next = (rt->col / 8 + 1) * 8;
		while (rt->col < next)
			rawtext_put(rt, " ", 1);
		break;
	case 0x1b:
		rt->state = RT_ESC;
		break;
	default:
		if (c >= 0x20 && c != 0x7f)
			rawtext_put(rt, &ch, 1);
		break;
	}
}

/* Feed a piece of raw output. */
void
rawtext_feed(struct rawtext *rt, const char *buf, size_t len)
{
	size_t		i;
	unsigned char	c;

	for (i = 0; i < len; i++) {
		c = (unsigned char)buf[i];
		switch (rt->state) {
		case RT_CR:
			rt->state = RT_TEXT;
			if (c == '\r')
				rt->state = RT_CR;
			else if (c == '\n')
				rawtext_end_line(rt);
			else {
				/* The line is being redrawn: start it again. */
				rawtext_clear_line(rt);
				rawtext_text(rt, c);
			}
			break;
		case RT_TEXT:
			rawtext_text(rt, c);
			break;
		case RT_ESC:
			if (c == '[') {
				rt->state = RT_CSI;
				memcpy(rt->seq, "\033[", 2);
				rt->seqlen = 2;
			}
			else if (c == ']' || c == 'P' || c == 'X' || c == '^' ||
			    c == '_')
				rt->state = RT_STRING;
			else if (c >= 0x20 && c <= 0x2f)
				rt->state = RT_ESC_INTER;
			else
				rt->state = RT_TEXT;
			break;
		case RT_ESC_INTER:
			if (c < 0x20 || c > 0x2f)
				rt->state = RT_TEXT;
			break;
		case RT_CSI:
			if (rt->seqlen < RAWTEXT_SEQ_MAX)
				rt->seq[rt->seqlen] = (char)c;
			rt->seqlen++;
			if (c >= 0x40 && c <= 0x7e) {
				rt->state = RT_TEXT;
				if ((rt->flags & RAWTEXT_SGR) && c == 'm' &&
				    rt->seqlen <= RAWTEXT_SEQ_MAX &&
				    strspn(rt->seq + 2, "0123456789;:") ==
				    rt->seqlen - 3)
					rawtext_keep_sgr(rt);
			} else if (c == 0x1b)
				rt->state = RT_ESC;
			break;
		case RT_STRING:
			if (c == 0x07)
				rt->state = RT_TEXT;
			else if (c == 0x1b)
				rt->state = RT_STRING_ESC;
			break;
		case RT_STRING_ESC:
			rt->state = c == '\\' ? RT_TEXT : RT_STRING;
			break;
		}
	}
}

/*
 * Return the lines completed so far (NULL and 0 if none) and forget them;
 * the partial last line and the parser's state stay for the next feed.
 */
char **
rawtext_take(struct rawtext *rt, int *count)
{
	char	**lines = rt->lines;

	*count = rt->count;
	rt->lines = NULL;
	rt->count = rt->alloc = 0;
	return lines;
}

/* End the input and return its lines; the converter is freed. */
char **
rawtext_finish(struct rawtext *rt, int *count)
{
	char	**lines;

	if (rt->pend.len > 0)
		rawtext_put_invalid(rt);
	if (rt->len > 0 || rt->sgr != NULL)
		rawtext_end_line(rt);
	lines = rt->lines;
	*count = rt->count;
	free(rt->line);
	free(rt);
	return lines;
}

/* Free a converter with the lines it holds, the input abandoned. */
void
rawtext_free(struct rawtext *rt)
{
	if (rt == NULL)
		return;
	rawtext_free_lines(rt->lines, rt->count);
	rawtext_clear_line(rt);
	free(rt->sgr);
	free(rt->line);
	free(rt);
}

/* Free what rawtext_finish() returned. */
void
rawtext_free_lines(char **lines, int count)
{
	int	i;

	for (i = 0; i < count; i++)
		free(lines[i]);
	free(lines);
}

/*
 * Convert one line (buf holds no '\n') as a stream of its own would be:
 * a new string of *outlen bytes.  RAWTEXT_SGR keeps SGR sequences.  Plain
 * printable ASCII, the common case, is copied without the converter.
 */
char *
rawtext_line(const char *buf, size_t len, int flags, size_t *outlen)
{
	struct rawtext	 *rt;
	char		**lines, *text;
	size_t		  i, n, size;
	int		  count, k;

	/*
	 * A carriage return at the end only goes back to the line's start
	 * (a pty ends every line with one): the text is the same without.
	 */
	while (len > 0 && buf[len - 1] == '\r')
		len--;
	for (i = 0; i < len; i++) {
		if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] >= 0x7f)
			break;
	}
	if (i == len) {
		while (len > 0 && buf[len - 1] == ' ')
			len--;
		text = xmalloc(len + 1);
		memcpy(text, buf, len);
		text[len] = '\0';
		*outlen = len;
		return text;
	}

	rt = rawtext_new();
	rt->flags = flags;
	rawtext_feed(rt, buf, len);
	lines = rawtext_finish(rt, &count);
	size = 1;
	for (k = 0; k < count; k++)
		size += strlen(lines[k]);
	text = xmalloc(size);
	n = 0;
	for (k = 0; k < count; k++) {
		memcpy(text + n, lines[k], strlen(lines[k]));
		n += strlen(lines[k]);
	}
	text[n] = '\0';
	rawtext_free_lines(lines, count);
	*outlen = n;
	return text;
}
