/* Command-line parsing shared by the commands. */
#pragma once

#include <glib.h>

/* Parses argv[0..argc) with ctx, whose main entries are entries, after
 * splitting short options with attached values ("-j2" is "-j 2", "-qj2"
 * is "-q -j 2"), which GOption does not read. Returns what is left
 * (argv[0] first; free with g_strfreev), or NULL with an error. */
char **lb_cli_parse(GOptionContext *ctx, const GOptionEntry *entries, int argc, char **argv,
                    GError **error);
