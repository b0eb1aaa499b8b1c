/*
 * vt-filter.c: the emulator's lowest layer, the byte filter in front of
 * libvterm 0.1.4's parser, which avoids its bugs (vt-filter.h says what it
 * asks of the layer above):
 *  - an incomplete UTF-8 sequence at the end of a feed is held back, and
 *    malformed UTF-8 and C1 code points become U+FFFD, so the state's
 *    decoder only ever sees whole, valid characters;
 *  - CSI Ps b (REP) is expanded here into Ps copies of the last glyph
 *    (wrapping, as xterm does), bounded by the screen size (both asked of
 *    the layer above);
 *  - other CSI sequences are re-encoded from their parsed form, with
 *    parameters saturated and at most 16 of them (17 overflow the parser),
 *    a final SGR 38/48 gets an empty palette parameter (0.1.4 reads a
 *    stale one from an earlier sequence), and the colour space id of
 *    38:2:CS:R:G:B is dropped (0.1.4 reads it as red);
 *  - OSC and DCS strings reach the state whole in one write, cut to
 *    STR_MAX bytes (0.1.4 drops a string split across writes), and a
 *    DECRQSS of a setting 0.1.4 does not report is answered here;
 *  - APC, PM and SOS strings are swallowed (0.1.4 prints their contents);
 *  - combining marks that start a feed are offered to the layer above,
 *    to join the glyph the last feed put in the last column (0.1.4 prints
 *    them on the next line); which code points are marks comes from
 *    vt_filter_combining(), a copy of the ranges 0.1.4 uses, so no second
 *    VTerm is needed to ask it.
 * A NUL between non-ASCII and ASCII text makes DEC graphics (G0) apply to
 * ASCII whatever the write boundaries (0.1.4 picks a decoder per run).
 * Filtered bytes are queued and handed to the write callback in writes of
 * at most CHUNK_MAX bytes.  What is valid UTF-8 is utf8.c's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"
#include "vt-filter.h"
#include "xmalloc.h"

#define CHUNK_MAX	65536		/* bytes per write */
#define STR_MAX		4096		/* OSC/DCS bytes passed on */
#define CSI_ARGS	16		/* libvterm's CSI_ARGS_MAX */
#define CSI_EXTRA	4		/* leader or intermediate bytes kept */
#define CSI_ARG_SAT	9999999L	/* parameters saturate here */

/* Where the byte filter is inside an escape sequence. */
enum vt_fstate {
	F_GROUND,
	F_ESC,
	F_CSI,
	F_STR,			/* OSC or DCS */
	F_STR_ESC,
	F_IGN,			/* APC, PM or SOS: swallowed */
	F_IGN_ESC
};

/* A CSI sequence being parsed (mirrors libvterm 0.1.4's parser). */
struct vt_csi {
	char		lead[CSI_EXTRA];
	int		nlead;
	long		arg[CSI_ARGS];	/* -1: missing */
	uint8_t		more[CSI_ARGS];	/* ':' followed */
	int		argc;
	int		phase;		/* 0 leader, 1 params, 2 intermed. */
	char		inter[CSI_EXTRA];
	int		ninter;
	int		bad;		/* dropped when complete */
};

/* One filter; its functions call it vt, as the layers above do theirs. */
struct vt_filter {
	const struct vt_filter_cbs *cbs;
	void		 *arg;

	enum vt_fstate	  fs;
	struct utf8_stream u8;		/* a character read in pieces */
	char		  esc[CSI_EXTRA];
	int		  nesc;
	struct vt_csi	  csi;
	char		  str_kind;
	char		 *str;
	size_t		  str_len;
	char		 *obuf;
	size_t		  olen;
	int		  tail_glyph;	/* the last feed ended with a glyph */
};

/* Hand the filtered bytes collected so far to the state. */
void
vt_filter_flush(struct vt_filter *vt)
{
	size_t	n = vt->olen;

	if (n == 0)
		return;
	vt->olen = 0;
	vt->cbs->write(vt->obuf, n, vt->arg);
}

/* Queue filtered bytes; a run never straddles two writes. */
static void
out_add(struct vt_filter *vt, const void *s, size_t n)
{
	if (vt->olen + n > CHUNK_MAX)
		vt_filter_flush(vt);
	memcpy(vt->obuf + vt->olen, s, n);
	vt->olen += n;
}

/* Queue a code point as UTF-8. */
static void
out_cp(struct vt_filter *vt, uint32_t cp)
{
	char	u[UTF8_MAX];

	out_add(vt, u, (size_t)utf8_put(u, cp));
}

/* Expand REP into count copies of the last glyph, at most a screenful. */
static void
rep_expand(struct vt_filter *vt, long count)
{
	uint32_t	last[VT_GLYPH_CHARS];
	char		g[VT_GLYPH_CHARS * 4];
	size_t		gl = 0;
	long		max;
	int		i, n;

	vt_filter_flush(vt);
	if ((n = vt->cbs->glyph(last, &max, vt->arg)) == 0)
		return;
	for (i = 0; i < n; i++)
		gl += (size_t)utf8_put(g + gl, last[i]);
	if (count > max)
		count = max;
	while (count-- > 0)
		out_add(vt, g, gl);
}

/*
 * In ITU T.416's form of an RGB colour, 38:2:CS:R:G:B, the colour space id
 * CS (mostly empty, as xterm-direct's setaf writes it) comes before the
 * components; 0.1.4 takes it for red.  When the colon-joined group after
 * a 38:2 or 48:2 at i has four or more members, drop the first, so the
 * state sees 38:2:R:G:B (anything after blue is skipped with the group).
 */
static void
sgr_drop_colour_space(struct vt_csi *c, int i)
{
	int	j, n = 0;

	if (!c->more[i] || !c->more[i + 1])
		return;
	for (j = i + 2; j < c->argc; j++) {
		n++;
		if (!c->more[j])
			break;
	}
	if (n < 4)
		return;
	for (j = i + 2; j < c->argc - 1; j++) {
		c->arg[j] = c->arg[j + 1];
		c->more[j] = c->more[j + 1];
	}
	c->argc--;
}

/*
 * Walk SGR parameters as 0.1.4's vterm_state_setpen() does; a 38 or 48
 * with nothing after it makes the state read its palette from a stale
 * parameter, so give it an empty one, which the state ignores.
 */
static void
sgr_fix(struct vt_csi *c)
{
	long	pal;
	int	i = 0, rest, used, more;

	while (i < c->argc) {
		if (c->arg[i] == 38 || c->arg[i] == 48) {
			if (i + 1 >= c->argc) {
				if (c->argc < CSI_ARGS)
					c->more[c->argc++ - 1] = 0;
				c->arg[c->argc - 1] = -1;
				return;
			}
			pal = c->arg[i + 1];
			if (pal == 2)
				sgr_drop_colour_space(c, i);
			rest = c->argc - i - 2;
			if (pal == 2)
				used = rest < 3 ? rest : 3;
			else if (pal == 5)
				used = rest > 0 ? 1 : 0;
			else
				used = 0;
			i += 1 + used;
		}
		do {
			more = i < c->argc && c->more[i];
			i++;
		} while (more);
	}
}

/* Queue a parsed CSI sequence, or act on it. */
static void
csi_dispatch(struct vt_filter *vt, char final)
{
	struct vt_csi	*c = &vt->csi;
	char		 buf[16 + CSI_ARGS * 9 + 2 * CSI_EXTRA];
	int		 i, n;

	if (c->bad)
		return;
	if (final == 'b' && c->nlead == 0 && c->ninter == 0) {
		rep_expand(vt, c->arg[0] <= 0 ? 1 : c->arg[0]);
		return;
	}
	if (final == 'm' && c->nlead == 0 && c->ninter == 0)
		sgr_fix(c);
	n = 0;
	buf[n++] = '\033';
	buf[n++] = '[';
	memcpy(buf + n, c->lead, (size_t)c->nlead);
	n += c->nlead;
	for (i = 0; i < c->argc; i++) {
		if (c->arg[i] >= 0)
			n += snprintf(buf + n, sizeof buf - (size_t)n, "%ld",
			    c->arg[i]);
		if (i < c->argc - 1)
			buf[n++] = c->more[i] ? ':' : ';';
	}
	memcpy(buf + n, c->inter, (size_t)c->ninter);
	n += c->ninter;
	buf[n++] = final;
	out_add(vt, buf, (size_t)n);
	/* Restoring the cursor can put it off screen after a shrink. */
	if (final == 'l' && c->nlead == 1 && c->lead[0] == '?' &&
	    (c->arg[0] == 1048 || c->arg[0] == 1049))
		vt_filter_flush(vt);
}

/* Feed one byte of a CSI sequence to the parser's mirror. */
static void
csi_byte(struct vt_filter *vt, uint8_t b)
{
	struct vt_csi	*c = &vt->csi;

	if (c->phase == 0) {
		if (b >= 0x3c && b <= 0x3f) {
			if (c->nlead < CSI_EXTRA)
				c->lead[c->nlead++] = (char)b;
			else
				c->bad = 1;
			return;
		}
		c->phase = 1;
	}
	if (c->phase == 1) {
		if (b >= '0' && b <= '9') {
			if (c->arg[c->argc] < 0)
				c->arg[c->argc] = 0;
			c->arg[c->argc] = c->arg[c->argc] * 10 + (b - '0');
			if (c->arg[c->argc] > CSI_ARG_SAT)
				c->arg[c->argc] = CSI_ARG_SAT;
			return;
		}
		if (b == ':' || b == ';') {
			if (c->argc + 1 >= CSI_ARGS) {
				c->bad = 1;
				return;
			}
			c->more[c->argc] = b == ':';
			c->argc++;
			c->arg[c->argc] = -1;
			c->more[c->argc] = 0;
			return;
		}
		c->argc++;
		c->phase = 2;
	}
	if (b >= 0x20 && b <= 0x2f) {
		if (c->ninter < CSI_EXTRA)
			c->inter[c->ninter++] = (char)b;
		else
			c->bad = 1;
		return;
	}
	if (b >= 0x40 && b <= 0x7e)
		csi_dispatch(vt, (char)b);
	vt->fs = F_GROUND;
}

/*
 * Return non-zero for a DECRQSS (DCS $ q) of a setting 0.1.4 does not
 * report: its answer for those is built with a bad format string
 * (undefined behaviour), so the filter answers "invalid" itself.
 */
static int
str_decrqss_unknown(const struct vt_filter *vt)
{
	static const char *const known[] = { "m", "r", "s", "\"q", " q" };
	size_t			 i, n;

	if (vt->str_kind != 'P' || vt->str_len < 2 ||
	    memcmp(vt->str, "$q", 2) != 0)
		return 0;
	n = vt->str_len - 2;
	for (i = 0; i < sizeof known / sizeof known[0]; i++) {
		if (n == strlen(known[i]) && memcmp(vt->str + 2, known[i], n) == 0)
			return 0;
	}
	return 1;
}

/* Queue a complete OSC or DCS string in one piece. */
static void
str_finish(struct vt_filter *vt)
{
	char	head[2] = { '\033', vt->str_kind };

	if (str_decrqss_unknown(vt)) {
		/* Replies keep their order: what is queued goes first. */
		vt_filter_flush(vt);
		vt->cbs->reply("\033P0$r\033\\", 7, vt->arg);
		vt->fs = F_GROUND;
		return;
	}
	if (vt->olen + vt->str_len + 4 > CHUNK_MAX)
		vt_filter_flush(vt);
	out_add(vt, head, 2);
	if (vt->str_len > 0)
		out_add(vt, vt->str, vt->str_len);
	out_add(vt, "\033\\", 2);
	vt->fs = F_GROUND;
}

/* Handle the byte after ESC. */
static void
esc_byte(struct vt_filter *vt, uint8_t b)
{
	char	buf[CSI_EXTRA + 2];

	if (b == '[') {
		memset(&vt->csi, 0, sizeof vt->csi);
		vt->csi.arg[0] = -1;
		vt->fs = F_CSI;
	} else if (b == ']' || b == 'P') {
		vt->str_kind = (char)b;
		vt->str_len = 0;
		vt->fs = F_STR;
	} else if (b >= 0x20 && b <= 0x2f) {
		if (vt->nesc < CSI_EXTRA)
			vt->esc[vt->nesc++] = (char)b;
	} else if (vt->nesc == 0 && (b == 'X' || b == '^' || b == '_')) {
		vt->fs = F_IGN;
	} else if (b >= 0x30 && b <= 0x7e) {
		buf[0] = '\033';
		memcpy(buf + 1, vt->esc, (size_t)vt->nesc);
		buf[1 + vt->nesc] = (char)b;
		out_add(vt, buf, (size_t)vt->nesc + 2);
		vt->fs = F_GROUND;
		/* DECRC can put the cursor off screen after a shrink. */
		if (vt->nesc == 0 && b == '8')
			vt_filter_flush(vt);
	}
	/* Other bytes are ignored and the escape goes on, as in libvterm. */
}

/* Handle a byte outside any escape sequence. */
static void
ground_byte(struct vt_filter *vt, uint8_t b)
{
	uint32_t	cp;
	int		n;

	if (vt->u8.len > 0 || b >= 0x80) {
		/* A sequence cut short is one U+FFFD, and b starts afresh. */
		if ((n = utf8_stream_byte(&vt->u8, b, &cp)) == UTF8_CUT) {
			out_cp(vt, UTF8_REPLACEMENT);
			n = utf8_stream_byte(&vt->u8, b, &cp);
		}
		if (n == UTF8_MORE)
			return;
		if (n == UTF8_BAD || (cp >= 0x80 && cp <= 0x9f)) {
			out_cp(vt, UTF8_REPLACEMENT);
			return;
		}
		if (cp >= 0x80) {
			out_add(vt, vt->u8.b, (size_t)n);
			return;
		}
	}
	if (b == 0x1b) {
		vt->nesc = 0;
		vt->fs = F_ESC;
		return;
	}
	/*
	 * The state picks a decoder per text run: one that starts with UTF-8
	 * decodes its ASCII as UTF-8 too, ignoring G0 (DEC graphics).  NUL is
	 * skipped by the parser and ends the run, so ASCII is always decoded
	 * through G0 whatever the write boundaries.
	 */
	if (b >= 0x20 && b < 0x7f && vt->olen > 0 &&
	    (uint8_t)vt->obuf[vt->olen - 1] >= 0x80)
		out_add(vt, "", 1);
	out_add(vt, &b, 1);
}

/* Run one byte through the filter. */
static void
filter_byte(struct vt_filter *vt, uint8_t b)
{
	if (vt->fs == F_GROUND) {
		ground_byte(vt, b);
		return;
	}
	/* Bytes every state of libvterm's parser treats alike. */
	if (b == 0x00 || b == 0x7f)
		return;
	if (b == 0x18 || b == 0x1a) {
		vt->fs = F_GROUND;
		return;
	}
	if (b == 0x1b) {
		if (vt->fs == F_STR)
			vt->fs = F_STR_ESC;
		else if (vt->fs == F_IGN)
			vt->fs = F_IGN_ESC;
		else {
			vt->nesc = 0;
			vt->fs = F_ESC;
		}
		return;
	}
	if (b == 0x07 && vt->fs == F_STR) {
		str_finish(vt);
		return;
	}
	if (b == 0x07 && vt->fs == F_IGN) {
		vt->fs = F_GROUND;
		return;
	}
	if (b < 0x20) {
		if (vt->fs != F_IGN && vt->fs != F_IGN_ESC)
			out_add(vt, &b, 1);
		return;
	}
	switch (vt->fs) {
	case F_ESC:
		esc_byte(vt, b);
		break;
	case F_CSI:
		csi_byte(vt, b);
		break;
	case F_STR:
		/* Most jobs never send a string: its buffer comes with one. */
		if (vt->str == NULL)
			vt->str = xmalloc(STR_MAX);
		if (vt->str_len < STR_MAX)
			vt->str[vt->str_len++] = (char)b;
		break;
	case F_STR_ESC:
	case F_IGN_ESC:
		if (b == '\\') {
			if (vt->fs == F_STR_ESC)
				str_finish(vt);
			vt->fs = F_GROUND;
			break;
		}
		vt->nesc = 0;
		vt->fs = F_ESC;
		esc_byte(vt, b);
		break;
	case F_IGN:
	case F_GROUND:
		break;
	}
}


/* ------------------------------------------------------------------ */
/* Marks after a glyph in the last column. */

/*
 * The code points libvterm 0.1.4 joins to the glyph before them, as
 * ranges: the table behind its vterm_unicode_is_combining() (src/unicode.c,
 * the same from 0.1.3 to 0.2), which is Markus Kuhn's wcwidth.c table of
 * 2007-05-26 (Unicode 5.0): general categories Mn, Me and Cf except
 * U+00AD, plus U+1160..U+11FF and U+200B.  The ranges were found by asking
 * a VTermScreen of 0.1.4 about every code point; tests/check_vt.c compares
 * vt_is_combining(), which asks this table, with one for all of them.
 */
static const struct {
	uint32_t	first;
	uint32_t	last;
} vt_combining[] = {
	{ 0x0300, 0x036f }, { 0x0483, 0x0486 }, { 0x0488, 0x0489 },
	{ 0x0591, 0x05bd }, { 0x05bf, 0x05bf }, { 0x05c1, 0x05c2 },
	{ 0x05c4, 0x05c5 }, { 0x05c7, 0x05c7 }, { 0x0600, 0x0603 },
	{ 0x0610, 0x0615 }, { 0x064b, 0x065e }, { 0x0670, 0x0670 },
	{ 0x06d6, 0x06e4 }, { 0x06e7, 0x06e8 }, { 0x06ea, 0x06ed },
	{ 0x070f, 0x070f }, { 0x0711, 0x0711 }, { 0x0730, 0x074a },
	{ 0x07a6, 0x07b0 }, { 0x07eb, 0x07f3 }, { 0x0901, 0x0902 },
	{ 0x093c, 0x093c }, { 0x0941, 0x0948 }, { 0x094d, 0x094d },
	{ 0x0951, 0x0954 }, { 0x0962, 0x0963 }, { 0x0981, 0x0981 },
	{ 0x09bc, 0x09bc }, { 0x09c1, 0x09c4 }, { 0x09cd, 0x09cd },
	{ 0x09e2, 0x09e3 }, { 0x0a01, 0x0a02 }, { 0x0a3c, 0x0a3c },
	{ 0x0a41, 0x0a42 }, { 0x0a47, 0x0a48 }, { 0x0a4b, 0x0a4d },
	{ 0x0a70, 0x0a71 }, { 0x0a81, 0x0a82 }, { 0x0abc, 0x0abc },
	{ 0x0ac1, 0x0ac5 }, { 0x0ac7, 0x0ac8 }, { 0x0acd, 0x0acd },
	{ 0x0ae2, 0x0ae3 }, { 0x0b01, 0x0b01 }, { 0x0b3c, 0x0b3c },
	{ 0x0b3f, 0x0b3f }, { 0x0b41, 0x0b43 }, { 0x0b4d, 0x0b4d },
	{ 0x0b56, 0x0b56 }, { 0x0b82, 0x0b82 }, { 0x0bc0, 0x0bc0 },
	{ 0x0bcd, 0x0bcd }, { 0x0c3e, 0x0c40 }, { 0x0c46, 0x0c48 },
	{ 0x0c4a, 0x0c4d }, { 0x0c55, 0x0c56 }, { 0x0cbc, 0x0cbc },
	{ 0x0cbf, 0x0cbf }, { 0x0cc6, 0x0cc6 }, { 0x0ccc, 0x0ccd },
	{ 0x0ce2, 0x0ce3 }, { 0x0d41, 0x0d43 }, { 0x0d4d, 0x0d4d },
	{ 0x0dca, 0x0dca }, { 0x0dd2, 0x0dd4 }, { 0x0dd6, 0x0dd6 },
	{ 0x0e31, 0x0e31 }, { 0x0e34, 0x0e3a }, { 0x0e47, 0x0e4e },
	{ 0x0eb1, 0x0eb1 }, { 0x0eb4, 0x0eb9 }, { 0x0ebb, 0x0ebc },
	{ 0x0ec8, 0x0ecd }, { 0x0f18, 0x0f19 }, { 0x0f35, 0x0f35 },
	{ 0x0f37, 0x0f37 }, { 0x0f39, 0x0f39 }, { 0x0f71, 0x0f7e },
	{ 0x0f80, 0x0f84 }, { 0x0f86, 0x0f87 }, { 0x0f90, 0x0f97 },
	{ 0x0f99, 0x0fbc }, { 0x0fc6, 0x0fc6 }, { 0x102d, 0x1030 },
	{ 0x1032, 0x1032 }, { 0x1036, 0x1037 }, { 0x1039, 0x1039 },
	{ 0x1058, 0x1059 }, { 0x1160, 0x11ff }, { 0x135f, 0x135f },
	{ 0x1712, 0x1714 }, { 0x1732, 0x1734 }, { 0x1752, 0x1753 },
	{ 0x1772, 0x1773 }, { 0x17b4, 0x17b5 }, { 0x17b7, 0x17bd },
	{ 0x17c6, 0x17c6 }, { 0x17c9, 0x17d3 }, { 0x17dd, 0x17dd },
	{ 0x180b, 0x180d }, { 0x18a9, 0x18a9 }, { 0x1920, 0x1922 },
	{ 0x1927, 0x1928 }, { 0x1932, 0x1932 }, { 0x1939, 0x193b },
	{ 0x1a17, 0x1a18 }, { 0x1b00, 0x1b03 }, { 0x1b34, 0x1b34 },
	{ 0x1b36, 0x1b3a }, { 0x1b3c, 0x1b3c }, { 0x1b42, 0x1b42 },
	{ 0x1b6b, 0x1b73 }, { 0x1dc0, 0x1dca }, { 0x1dfe, 0x1dff },
	{ 0x200b, 0x200f }, { 0x202a, 0x202e }, { 0x2060, 0x2063 },
	{ 0x206a, 0x206f }, { 0x20d0, 0x20ef }, { 0x302a, 0x302f },
	{ 0x3099, 0x309a }, { 0xa806, 0xa806 }, { 0xa80b, 0xa80b },
	{ 0xa825, 0xa826 }, { 0xfb1e, 0xfb1e }, { 0xfe00, 0xfe0f },
	{ 0xfe20, 0xfe23 }, { 0xfeff, 0xfeff }, { 0xfff9, 0xfffb },
	{ 0x10a01, 0x10a03 }, { 0x10a05, 0x10a06 }, { 0x10a0c, 0x10a0f },
	{ 0x10a38, 0x10a3a }, { 0x10a3f, 0x10a3f }, { 0x1d167, 0x1d169 },
	{ 0x1d173, 0x1d182 }, { 0x1d185, 0x1d18b }, { 0x1d1aa, 0x1d1ad },
	{ 0x1d242, 0x1d244 }, { 0xe0001, 0xe0001 }, { 0xe0020, 0xe007f },
	{ 0xe0100, 0xe01ef }
};

/* Return non-zero if libvterm 0.1.4 joins cp to the glyph before it. */
int
vt_filter_combining(uint32_t cp)
{
	size_t	lo = 0, hi, mid;

	hi = sizeof vt_combining / sizeof vt_combining[0];
	if (cp < vt_combining[0].first || cp > vt_combining[hi - 1].last)
		return 0;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (cp < vt_combining[mid].first)
			hi = mid;
		else if (cp > vt_combining[mid].last)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

/*
 * Offer the combining marks at the start of a feed to the glyph the last
 * feed ended with, and return how many bytes they took if the layer above
 * joined them.  0.1.4 joins them when they come in the same write, but
 * once the cursor waits at the margin it prints a mark that starts a later
 * write on the next line; whole or split, the screen must come out the
 * same.
 */
static size_t
mark_join(struct vt_filter *vt, const uint8_t *p, size_t len)
{
	uint32_t	 marks[VT_GLYPH_MARKS], cp;
	size_t		 used = 0;
	int		 n = 0, need;

	if (!vt->tail_glyph || vt->fs != F_GROUND || vt->u8.len != 0)
		return 0;
	while (used < len && p[used] >= 0x80) {
		if ((need = utf8_decode(p + used, len - used, &cp)) < 0 ||
		    !vt_filter_combining(cp))
			break;
		/* A glyph keeps no more marks than these. */
		if (n < VT_GLYPH_MARKS)
			marks[n++] = cp;
		used += (size_t)need;
	}
	if (used == 0 || !vt->cbs->join(marks, n, vt->arg))
		return 0;
	return used;
}

/* Run the child's output through the filter into the state. */
void
vt_filter_feed(struct vt_filter *vt, const uint8_t *p, size_t len)
{
	size_t		 i, j, n;
	int		 ground = 0;

	i = mark_join(vt, p, len);
	if (i == len)
		return;
	while (i < len) {
		if (vt->fs != F_GROUND || vt->u8.len != 0 || p[i] >= 0x80 ||
		    p[i] == 0x1b) {
			ground = vt->fs == F_GROUND;
			filter_byte(vt, p[i++]);
			continue;
		}
		ground = 1;
		/* A run of ASCII and C0 other than ESC passes unchanged. */
		for (j = i + 1; j < len && p[j] < 0x80 && p[j] != 0x1b; j++)
			;
		if (p[i] >= 0x20 && p[i] < 0x7f && vt->olen > 0 &&
		    (uint8_t)vt->obuf[vt->olen - 1] >= 0x80)
			out_add(vt, "", 1);	/* see ground_byte() */
		while (i < j) {
			if (vt->olen == CHUNK_MAX)
				vt_filter_flush(vt);
			n = j - i;
			if (n > CHUNK_MAX - vt->olen)
				n = CHUNK_MAX - vt->olen;
			memcpy(vt->obuf + vt->olen, p + i, n);
			vt->olen += n;
			i += n;
		}
	}
	/* Text last (not an escape sequence's final byte): see mark_join(). */
	vt->tail_glyph = ground && p[len - 1] >= 0x20 && p[len - 1] != 0x7f &&
	    vt->fs == F_GROUND && vt->u8.len == 0;
	vt_filter_flush(vt);
}



/*
 * Return a new filter that hands its bytes to cbs with arg.  The output
 * queue is empty between feeds (vt_filter_feed() ends with a flush, and no
 * feed runs inside another), so every filter shares one: 200 jobs do not
 * hold 200 of them.
 */
struct vt_filter *
vt_filter_new(const struct vt_filter_cbs *cbs, void *arg)
{
	static char		 obuf[CHUNK_MAX];
	struct vt_filter	*vt;

	vt = xcalloc(1, sizeof *vt);
	vt->cbs = cbs;
	vt->arg = arg;
	vt->obuf = obuf;
	vt->str = NULL;		/* on the first OSC or DCS string */
	return vt;
}

/*
 * Forget a sequence or character the last program left half sent, so the
 * next bytes start in the ground state.
 */
void
vt_filter_reset(struct vt_filter *vt)
{
	vt_filter_flush(vt);
	vt->fs = F_GROUND;
	vt->u8.len = 0;
	vt->nesc = 0;
	vt->str_len = 0;
	memset(&vt->csi, 0, sizeof vt->csi);
	vt->tail_glyph = 0;
}

/* Free a filter and its buffers. */
void
vt_filter_free(struct vt_filter *vt)
{
	if (vt == NULL)
		return;
	free(vt->str);
	free(vt);
}
