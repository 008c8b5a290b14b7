/* lbsim curve: a space-filling curve's cells in order. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "geometry/curve.h"
#include "cli/commands.h"
#include "io/out-buffer.h"

/* `lbsim curve` prints at most 2^CURVE_MAX_CELL_BITS cells. */
#define CURVE_MAX_CELL_BITS 24

int
lb_cmd_curve(const LbCommand *self, int argc, char **argv)
{
  g_autofree char *dim_text = NULL, *order_text = NULL, *json = NULL;
  gboolean quiet = FALSE;
  GOptionEntry entries[] = {
      {"dim", 0, 0, G_OPTION_ARG_STRING, &dim_text, "Dimensions of the grid: 2 (default) or 3",
       "D"},
      {"order", 0, 0, G_OPTION_ARG_STRING, &order_text,
       "The grid has 2^K cells per axis: K from 1 to 12 in 2D, to 8 in 3D", "K"},
      {"json", 0, 0, G_OPTION_ARG_FILENAME, &json,
       "Also write the cells to FILE as a JSON array of coordinate arrays (-: standard output, "
       "instead of the lines)",
       "FILE"},
      /* as every command takes it: the output is on standard output */
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "No progress on stderr (prints none)", NULL},
      {NULL},
  };
  g_auto(GStrv) parsed = lb_command_parse(
      self, entries,
      "Prints the cells of the 2^K x 2^K (x 2^K) grid in the order the curve visits them,\n"
      "one cell a line, its coordinates (axis 0 first) separated by spaces.\n"
      "Hilbert enters at the origin and leaves at (2^K - 1, 0[, 0]); Morton interleaves\n"
      "the coordinates' bits, axis 0 the lowest of each group. See docs/families/sfc.md.\n"
      "Exit status: 0 done, 1 stdout could not be written, 2 bad input.",
      argc, argv);
  if (parsed == NULL)
    return LB_EXIT_INPUT;
  argc = (int)g_strv_length(parsed);
  argv = parsed;
  LbCurveKind kind;
  /* --json once was a flag: "--json hilbert" would name a file hilbert */
  if (argc == 1 && json != NULL && lb_curve_parse(json, &kind)) {
    g_printerr("lbsim: --json takes a FILE (- for standard output): lbsim curve %s --order K "
               "--json FILE\n",
               json);
    return LB_EXIT_INPUT;
  }
  if (argc != 2) {
    g_printerr("lbsim: curve needs one curve name, hilbert or morton (see lbsim curve --help)\n");
    return LB_EXIT_INPUT;
  }
  if (!lb_curve_parse(argv[1], &kind)) {
    g_printerr("lbsim: unknown curve '%s' (hilbert or morton)\n", argv[1]);
    return LB_EXIT_INPUT;
  }
  guint64 dim = 2, order = 0;
  if (dim_text != NULL && !g_ascii_string_to_unsigned(dim_text, 10, 2, 3, &dim, NULL)) {
    g_printerr("lbsim: --dim '%s': expected 2 or 3\n", dim_text);
    return LB_EXIT_INPUT;
  }
  guint max_order = CURVE_MAX_CELL_BITS / (guint)dim;
  if (order_text == NULL) {
    g_printerr("lbsim: curve needs --order K, from 1 to %u in %" G_GUINT64_FORMAT "D\n", max_order,
               dim);
    return LB_EXIT_INPUT;
  }
  if (!g_ascii_string_to_unsigned(order_text, 10, 1, max_order, &order, NULL)) {
    g_printerr("lbsim: --order '%s': expected a whole number from 1 to %u in %" G_GUINT64_FORMAT
               "D\n",
               order_text, max_order, dim);
    return LB_EXIT_INPUT;
  }

  /* the lines on standard output (unless the JSON is), the JSON to its
   * FILE or standard output */
  g_autofree LbOutBuffer *lines = g_new0(LbOutBuffer, 1);
  g_autofree LbOutBuffer *array = g_new0(LbOutBuffer, 1);
  int status = 0;
  LbOutput *file = lb_out_open_file(json, array, &status);
  if (status != 0)
    return status;
  gboolean text = g_strcmp0(json, "-") != 0;
  guint64 cells = (guint64)1 << (dim * order);
  if (json != NULL)
    lb_out_text(array, "[\n");
  for (guint64 i = 0; i < cells; i++) {
    guint32 c[3];
    lb_curve_coords(kind, (guint)dim, (guint)order, i, c);
    for (guint a = 0; text && a < dim; a++) {
      if (a > 0)
        lb_out_text(lines, " ");
      lb_out_number(lines, c[a]);
    }
    if (text)
      lb_out_text(lines, "\n");
    if (json == NULL)
      continue;
    lb_out_text(array, "  [");
    for (guint a = 0; a < dim; a++) {
      if (a > 0)
        lb_out_text(array, ", ");
      lb_out_number(array, c[a]);
    }
    lb_out_text(array, i + 1 < cells ? "],\n" : "]\n");
  }
  if (json != NULL)
    lb_out_text(array, "]\n");
  return lb_out_end(lines, array, file, json);
}
