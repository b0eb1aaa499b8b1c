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

/* One character of a line: its UTF-8 bytes. */
struct rawtext_char {
	char	bytes[4];
	uint8_t	len;
};

struct rawtext {
	enum rawtext_state	  state;
	struct rawtext_char	 *line;
	size_t			  len;	/* characters in the line */
	size_t			  cap;
	size_t			  col;	/* write position in characters */
	char			  pend[4];	/* a UTF-8 sequence being read */
	uint8_t			  pend_len;
	uint8_t			  pend_need;
	char			**lines;
	int			  count;
	int			  alloc;
};

/* Create an empty converter. */
struct rawtext *
rawtext_new(void)
{
	return xcalloc(1, sizeof(struct rawtext));
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
		rt->line[rt->len].bytes[0] = ' ';
		rt->line[rt->len++].len = 1;
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

/* Finish the current line and start an empty one. */
static void
rawtext_end_line(struct rawtext *rt)
{
	char	*text;
	size_t	 i, n = 0;

	if (rt->count == rt->alloc) {
		rt->alloc = rt->alloc == 0 ? 256 : rt->alloc * 2;
		rt->lines = xreallocarray(rt->lines, rt->alloc, sizeof *rt->lines);
	}
	while (rt->len > 0 && rt->line[rt->len - 1].len == 1 &&
	    rt->line[rt->len - 1].bytes[0] == ' ')
		rt->len--;
	text = xmalloc(rt->len * 4 + 1);
	for (i = 0; i < rt->len; i++) {
		memcpy(text + n, rt->line[i].bytes, rt->line[i].len);
		n += rt->line[i].len;
	}
	text[n] = '\0';
	rt->lines[rt->count++] = text;
	rt->len = rt->col = 0;
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
	if (rt->pend_need > 0) {
		if ((c & 0xc0) == 0x80) {
			rt->pend[rt->pend_len++] = (char)c;
			if (rt->pend_len == rt->pend_need) {
				rawtext_put(rt, rt->pend, rt->pend_len);
				rt->pend_need = rt->pend_len = 0;
			}
			return 1;
		}
		/* Cut short: show it as invalid, then treat c afresh. */
		rt->pend_need = rt->pend_len = 0;
		rawtext_put_invalid(rt);
	}
	if (c < 0x80)
		return 0;
	if (c >= 0xc2 && c <= 0xf4) {
		rt->pend[0] = (char)c;
		rt->pend_len = 1;
		rt->pend_need = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	} else
		rawtext_put_invalid(rt);
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
				rt->len = rt->col = 0;
				rawtext_text(rt, c);
			}
			break;
		case RT_TEXT:
			rawtext_text(rt, c);
			break;
		case RT_ESC:
			if (c == '[')
				rt->state = RT_CSI;
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
			if (c >= 0x40 && c <= 0x7e)
				rt->state = RT_TEXT;
			else if (c == 0x1b)
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

	if (rt->pend_need > 0)
		rawtext_put_invalid(rt);
	if (rt->len > 0)
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
