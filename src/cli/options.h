/* Command-line parsing shared by the commands. */
#pragma once

#include <glib.h>

#include "report/style.h"

/* Parses argv[0..argc) with ctx, whose main entries are entries, after
 * splitting short options with attached values ("-j2" is "-j 2", "-qj2"
 * is "-q -j 2"), which GOption does not read. Returns what is left
 * (argv[0] first; free with g_strfreev), or NULL with an error. */
char **lb_cli_parse(GOptionContext *ctx, const GOptionEntry *entries, int argc, char **argv,
                    GError **error);

/* --figure-size, --figure-font and --no-title, as the commands that draw
 * figures take them (run and check, report, reproduce). */
typedef struct {
  char *size, *font;
  gboolean no_title;
} LbFigureArgs;

void lb_figure_args_clear(LbFigureArgs *a);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(LbFigureArgs, lb_figure_args_clear)
#define LB_FIGURE_ENTRIES 3
/* Their entries, into out[0 .. LB_FIGURE_ENTRIES). */
void lb_figure_entries(LbFigureArgs *a, GOptionEntry *out);
/* The name of the first of them given, or NULL. */
const char *lb_figure_args_given(const LbFigureArgs *a);
/* The look they ask for (zeros when none is given); --figure-font
 * without --figure-size is bad input. */
gboolean lb_figure_args_look(const LbFigureArgs *a, LbFigureLook *look, GError **error);

/* --tap: TAP alone on standard output, the tables on standard error. Saves
 * standard output and points it at standard error: the saved descriptor,
 * or -1 once it has said why. */
int lb_cli_tap_begin(void);
/* Writes the TAP document to the saved descriptor and closes it. */
void lb_cli_tap_end(int fd, const char *tap);
