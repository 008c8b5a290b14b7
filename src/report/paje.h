/* The Paje trace SimGrid wrote for --paje, as the user gets it. */
#pragma once

#include <glib.h>

/* Copies SimGrid's trace from to path (by the rules of io/output.h) with
 * an arrow per message from FROM.messages (written by the core; none if
 * missing) and, when lean, without the containers of the platform's links
 * (the lean trace gives them no event): a viewer then shows the zones and
 * the ranks' hosts alone. from and FROM.messages are removed. */
gboolean lb_paje_write(const char *from, gboolean lean, const char *path, GError **error);
