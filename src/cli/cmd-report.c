#include "cli/commands.h"

#include <errno.h>
#include <glib/gstdio.h>

#include "cli/options.h"
#include "io/input.h"
#include "report/html.h"

int
lb_cmd_report(const LbCommand *self, int argc, char **argv)
{
  gboolean force = FALSE, quiet = FALSE;
  g_autofree char *pictures = NULL, *chart_scale = NULL, *former = NULL;
  g_auto(GStrv) formats = NULL;
  g_auto(LbFigureArgs) figure = {0};
  GOptionEntry entries[6 + LB_FIGURE_ENTRIES + 1] = {
      {"chart-scale", 0, 0, G_OPTION_ARG_STRING, &chart_scale,
       "The value axis of the line charts: auto (log when the values span a factor of 10 or "
       "more), linear or log",
       "SCALE"},
      {"force", 0, 0, G_OPTION_ARG_NONE, &force,
       "Replace a report of another scenario (or not made by lbsim) in DIR", NULL},
      {"partition-pictures", 0, 0, G_OPTION_ARG_FILENAME, &pictures,
       "Show the partition pictures that lbsim run --pictures DIR drew for this JSON, from DIR",
       "DIR"},
      /* --pictures names a folder lbsim writes on every other command:
       * here it named one to read, and is refused with its new name */
      {"pictures", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &former, NULL, "DIR"},
      {"picture-format", 0, 0, G_OPTION_ARG_STRING_ARRAY, &formats,
       "Each chart's file in these formats too: png, pdf, svg, or a comma list (repeatable; SVG "
       "always)",
       "FORMAT"},
      /* as every command takes it: report prints nothing on stderr but errors */
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "No progress on stderr (report prints none)",
       NULL},
  };
  lb_figure_entries(&figure, &entries[6]);
  g_auto(GStrv) parsed = lb_command_parse(
      self, entries,
      "Writes DIR/index.html, one self-contained page (no script, no network), from\n"
      "the JSON of lbsim run -o (the page of lbsim run --report: summary, imbalance\n"
      "per step, time per phase) or of lbsim sweep (time and imbalance against every\n"
      "varied parameter), with each chart as SVG and its numbers as CSV beside it.\n"
      "DIR is made if missing; a DIR that holds the report of another scenario is\n"
      "refused unless --force. The partition pictures are shown when DIR holds them\n"
      "for the same JSON (lbsim run --report DIR) or --partition-pictures names them.\n"
      "--picture-format pdf writes each chart as PDF too, --figure-size for print.\n"
      "Exit status: 0 done, 1 a file could not be written, 2 bad input.",
      argc, argv);
  if (parsed == NULL)
    return LB_EXIT_INPUT;
  g_autoptr(GError) error = NULL;
  argc = (int)g_strv_length(parsed);
  argv = parsed;
  if (argc != 3) {
    g_printerr("lbsim: report needs a JSON file and a folder (see lbsim report --help)\n");
    return LB_EXIT_INPUT;
  }
  if (former != NULL) {
    g_printerr("lbsim: report --pictures is --partition-pictures now (--pictures DIR is where a "
               "command writes pictures): --partition-pictures %s\n",
               former);
    return LB_EXIT_INPUT;
  }
  const char *source = argv[1], *dir = argv[2];
  LbPlotValueScale scale = LB_PLOT_VALUES_AUTO;
  if (chart_scale != NULL && !lb_plot_value_scale_parse(chart_scale, &scale)) {
    g_printerr("lbsim: --chart-scale %s: expected auto, linear or log\n", chart_scale);
    return LB_EXIT_INPUT;
  }
  guint chart_formats = 0;
  LbFigureLook look;
  if (!lb_figure_parse_formats((const char *const *)formats, &chart_formats, &error) ||
      !lb_figure_args_look(&figure, &look, &error)) {
    g_printerr("lbsim: %s\n", error->message);
    return LB_EXIT_INPUT;
  }
  if (pictures != NULL && !g_file_test(pictures, G_FILE_TEST_IS_DIR)) {
    g_printerr("lbsim: --partition-pictures %s: not a folder\n", pictures);
    return LB_EXIT_INPUT;
  }
  g_autofree char *json = NULL;
  gsize length = 0;
  if (!lb_input_read(source, LB_INPUT_RESULT, &json, &length, &error)) {
    g_printerr("lbsim: %s\n", error->message);
    return LB_EXIT_INPUT;
  }
  g_autoptr(LbResults) doc = lb_results_read(json, length, source, &error);
  gboolean make = FALSE;
  if (doc == NULL ||
      !lb_html_check_folder(dir, "report folder", doc->kind, doc->name, force, &make, &error)) {
    g_printerr("lbsim: %s\n", error->message);
    return LB_EXIT_INPUT;
  }
  if (make && g_mkdir(dir, 0777) != 0 && errno != EEXIST) {
    int errsv = errno;
    g_printerr("lbsim: report folder %s: cannot make it: %s\n", dir, g_strerror(errsv));
    return LB_EXIT_INPUT;
  }
  LbHtmlOptions options = {.json = json,
                           .length = length,
                           .dir = dir,
                           .pictures_dir = pictures,
                           .source = source,
                           .chart_scale = scale,
                           .chart_formats = chart_formats,
                           .look = look};
  if (!lb_html_write(doc, &options, &error)) {
    g_printerr("lbsim: %s\n", error->message);
    return 1;
  }
  return 0;
}
