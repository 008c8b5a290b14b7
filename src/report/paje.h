/* The Paje trace SimGrid wrote for --paje, made lean for viewers. */
#pragma once

#include <glib.h>

/* Copies SimGrid's trace from to path (by the rules of io/output.h) without
 * the containers of the platform's links, which the lean trace (no
 * --paje-links) gives no event: a viewer then shows the zones and the
 * ranks' hosts alone. from is removed. */
gboolean lb_paje_write_lean(const char *from, const char *path, GError **error);
