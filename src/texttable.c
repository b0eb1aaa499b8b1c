/*
 * texttable.c: tables of text with columns sized from their contents,
 * optional columns dropped when the view is narrow.
 */
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "fatal.h"
#include "texttable.h"
#include "xmalloc.h"

struct texttable {
	struct texttable_col	 *cols;
	int			  ncols;
	char			**cells;	/* rows * ncols, row by row */
	int			  rows;
	int			  alloc;	/* rows the array holds */
};

/* Return a table with the columns of cols[0..ncols) and no rows. */
struct texttable *
texttable_new(const struct texttable_col *cols, int ncols)
{
	struct texttable	*t;

	if (ncols < 1)
		fatal("texttable_new: %d columns", ncols);
	t = xcalloc(1, sizeof *t);
	t->cols = xreallocarray(NULL, (size_t)ncols, sizeof *t->cols);
	memcpy(t->cols, cols, (size_t)ncols * sizeof *t->cols);
	t->ncols = ncols;
	return t;
}

/* Add a row: one cell a column (NULL is an empty cell), copied. */
void
texttable_add(struct texttable *t, const char *const *cells)
{
	int	i;

	if (t->rows == t->alloc) {
		t->alloc = t->alloc == 0 ? 16 : t->alloc * 2;
		t->cells = xreallocarray(t->cells, (size_t)t->alloc *
		    (size_t)t->ncols, sizeof *t->cells);
	}
	for (i = 0; i < t->ncols; i++)
		t->cells[t->rows * t->ncols + i] = xstrdup(cells[i] != NULL ?
		    cells[i] : "");
	t->rows++;
}

/* Return how many rows the table has (its header not counted). */
int
texttable_rows(const struct texttable *t)
{
	return t->rows;
}

/* Return the display columns s takes (a byte that is no character: one). */
static int
texttable_width(const char *s)
{
	mbstate_t	mbs;
	wchar_t		wc;
	size_t		len = strlen(s), n;
	int		used = 0, w;

	memset(&mbs, 0, sizeof mbs);
	while (len > 0) {
		n = mbrtowc(&wc, s, len, &mbs);
		if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
			memset(&mbs, 0, sizeof mbs);
			n = 1;
			w = 1;
		} else if ((w = wcwidth(wc)) < 0)
			w = 1;
		used += w;
		s += n;
		len -= n;
	}
	return used;
}

/* Append s to b, then blanks up to width display columns. */
static void
texttable_pad(struct xbuf *b, const char *s, int width)
{
	int	w = texttable_width(s);

	xbuf_add(b, s, strlen(s));
	for (; w < width; w++)
		xbuf_add(b, " ", 1);
}

/* Return row r's line (-1: the header) of the columns kept in keep[]. */
static char *
texttable_line(const struct texttable *t, int r, const int *widths,
    const int *keep)
{
	struct xbuf	 b = { NULL, 0, 0 };
	const char	*cell;
	int		 i;

	for (i = 0; i < t->ncols; i++) {
		if (!keep[i])
			continue;
		cell = r < 0 ? t->cols[i].name : t->cells[r * t->ncols + i];
		if (i == t->ncols - 1) {
			xbuf_add(&b, cell, strlen(cell));
			break;
		}
		texttable_pad(&b, cell, widths[i] + TEXTTABLE_SEP);
	}
	/* An empty last cell leaves no blanks behind. */
	while (b.len > 0 && b.s[b.len - 1] == ' ')
		b.s[--b.len] = '\0';
	return b.s != NULL ? b.s : xstrdup("");
}

/* Return whether every cell of column i is "-" (a sparse column's test). */
static int
texttable_sparse(const struct texttable *t, int i)
{
	int	r;

	for (r = 0; r < t->rows; r++) {
		if (strcmp(t->cells[r * t->ncols + i], "-") != 0)
			return 0;
	}
	return 1;
}

/*
 * Return the table's lines, its header first (*count of them, rows + 1):
 * the columns as wide as their contents and, with width > 0, the
 * optional ones dropped from the right while the last column would get
 * fewer than TEXTTABLE_LAST_MIN columns.
 */
char **
texttable_lines(const struct texttable *t, int width, int *count)
{
	char	**lines;
	int	 *widths, *keep, i, r, w, fixed = 0;

	widths = xcalloc((size_t)t->ncols, sizeof *widths);
	keep = xcalloc((size_t)t->ncols, sizeof *keep);
	for (i = 0; i < t->ncols; i++) {
		keep[i] = 1;
		widths[i] = texttable_width(t->cols[i].name);
		for (r = 0; r < t->rows; r++) {
			w = texttable_width(t->cells[r * t->ncols + i]);
			if (w > widths[i])
				widths[i] = w;
		}
		if (t->cols[i].flags & TEXTTABLE_SPARSE && i < t->ncols - 1 &&
		    texttable_sparse(t, i))
			keep[i] = 0;
		else if (i < t->ncols - 1)
			fixed += widths[i] + TEXTTABLE_SEP;
	}
	for (i = t->ncols - 2; width > 0 && i >= 0 &&
	    width - fixed < TEXTTABLE_LAST_MIN; i--) {
		if (keep[i] && t->cols[i].flags & TEXTTABLE_OPTIONAL) {
			keep[i] = 0;
			fixed -= widths[i] + TEXTTABLE_SEP;
		}
	}
	lines = xcalloc((size_t)t->rows + 2, sizeof *lines);
	for (r = -1; r < t->rows; r++)
		lines[r + 1] = texttable_line(t, r, widths, keep);
	free(widths);
	free(keep);
	*count = t->rows + 1;
	return lines;
}

/* Free what texttable_lines() returned. */
void
texttable_lines_free(char **lines, int count)
{
	int	i;

	for (i = 0; i < count; i++)
		free(lines[i]);
	free(lines);
}

/* Free a table and its cells. */
void
texttable_free(struct texttable *t)
{
	int	i;

	if (t == NULL)
		return;
	for (i = 0; i < t->rows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->cols);
	free(t);
}
