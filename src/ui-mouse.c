/*
 * ui-mouse.c: mouse events (STUB until the mouse work lands).
 */
#include "ui-private.h"

/* Handle a mouse event (stub: does nothing). */
void
ui_mouse_event(struct ui *ui, const struct ui_mouse *m)
{
	(void)ui;
	(void)m;
}
