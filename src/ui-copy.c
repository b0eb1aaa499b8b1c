/*
 * ui-copy.c: copy mode (STUB until the copy-mode work lands).
 */
#include "ui-private.h"

/* Enter copy mode on the selected pane (stub: says it is missing). */
void
ui_copy_enter(struct ui *ui, int search)
{
	(void)search;
	ui_message(ui, "copy mode is not built yet", 1);
}
