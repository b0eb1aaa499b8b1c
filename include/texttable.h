/*
 * texttable: the one rule for a table of text that a command shows (!ps,
 * !list, !history): every column as wide as its widest cell or its
 * header, two blanks between columns, and the last one (a command, say)
 * unpadded, so it takes whatever room is left.  Given the width of the
 * client's view, optional columns are dropped, the rightmost first,
 * while the last column would have fewer than TEXTTABLE_LAST_MIN columns
 * of its own; without a width (0) every column stays.  Widths are display
 * columns: a character's wcwidth() in the current locale, a byte that is
 * not one counts one column.  A sparse column (a job's next run) is
 * dropped when no row has a value in it ("-" in every cell).
 *
 * Ownership: the caller owns a struct texttable (texttable_free()); cells
 * are copied as they are added.  texttable_lines() returns an array of
 * lines, the header first, that the caller frees with
 * texttable_lines_free().
 */
#ifndef JOBDECK_TEXTTABLE_H
#define JOBDECK_TEXTTABLE_H

#define TEXTTABLE_LAST_MIN	30	/* the last column's room, narrow */
#define TEXTTABLE_SEP		2	/* blanks between two columns */

/* A column: its header and flags. */
struct texttable_col {
	const char	*name;

#define TEXTTABLE_OPTIONAL	0x1	/* dropped when the view is narrow */
#define TEXTTABLE_SPARSE	0x2	/* dropped when every cell is "-" */
	int		 flags;
};

struct texttable;

struct texttable *texttable_new(const struct texttable_col *, int ncols);
void		 texttable_add(struct texttable *, const char *const *cells);
int		 texttable_rows(const struct texttable *);
char		**texttable_lines(const struct texttable *, int width,
		    int *count);
void		 texttable_lines_free(char **, int count);
void		 texttable_free(struct texttable *);

#endif
