/* lbsim diff A B: two results of one scenario (runs, checks, sweeps) or
 * two reproductions of one paper, value by value (report/diff.h). */
#include <string.h>

#include "cli/commands.h"
#include "io/input.h"
#include "io/output.h"
#include "report/diff.h"

typedef struct {
  char **tolerances;
  char *only;
  char *json;
  gboolean quiet;
} DiffArgs;

static void
diff_args_clear(DiffArgs *a)
{
  g_strfreev(a->tolerances);
  g_free(a->only);
  g_free(a->json);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(DiffArgs, diff_args_clear)

int
lb_cmd_diff(const LbCommand *self, int argc, char **argv)
{
  g_auto(DiffArgs) a = {0};
  GOptionEntry entries[] = {
      {"tolerance", 't', 0, G_OPTION_ARG_STRING_ARRAY, &a.tolerances,
       "How far a value may move: 1% (of A's value), 0.5 (absolute), or METRIC=AMOUNT for one "
       "metric (repeatable; a metric's own wins; default: none)",
       "AMOUNT"},
      {"only", 0, 0, G_OPTION_ARG_STRING, &a.only,
       "Compare these metrics only (a comma list: total_time,messages,phase.amounts.steps)",
       "METRIC,..."},
      {"json", 'o', 0, G_OPTION_ARG_FILENAME, &a.json,
       "Write the differences as JSON (- for stdout)", "FILE"},
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &a.quiet,
       "Print no table: the exit status (and --json) say it", NULL},
      {NULL},
  };
  g_auto(GStrv) args = lb_command_parse(
      self, entries,
      "Compares two results of one scenario (lbsim run, check or sweep --json: every\n"
      "balancer at every point) or two reproductions of one paper (lbsim reproduce\n"
      "--json: every claim), value by value: the summary, each declared metric and\n"
      "each phase's steps, messages, bytes and time (phase.NAME.steps ...); wall-clock\n"
      "figures are not compared. Prints what differs with its change.\n"
      "Exit status: 0 every value within its tolerance, 1 one moved (or is in one\n"
      "result only), 2 bad input (named).",
      argc, argv);
  if (args == NULL)
    return LB_EXIT_INPUT;
  if (g_strv_length(args) != 3) {
    g_printerr("lbsim: diff needs two results, A.json B.json (see lbsim diff --help)\n");
    return LB_EXIT_INPUT;
  }
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) tolerances =
      g_ptr_array_new_with_free_func((GDestroyNotify)lb_tolerance_free);
  for (guint i = 0; a.tolerances != NULL && a.tolerances[i] != NULL; i++) {
    LbTolerance *t = lb_tolerance_parse(a.tolerances[i], &error);
    if (t == NULL) {
      g_printerr("lbsim: %s\n", error->message);
      return LB_EXIT_INPUT;
    }
    g_ptr_array_add(tolerances, t);
  }
  g_auto(GStrv) only = NULL;
  if (a.only != NULL) {
    only = g_strsplit(a.only, ",", -1);
    for (guint i = 0; only[i] != NULL; i++)
      if (*g_strstrip(only[i]) == '\0') {
        g_printerr("lbsim: --only %s: an empty metric name\n", a.only);
        return LB_EXIT_INPUT;
      }
  }
  if (a.json != NULL && strcmp(a.json, "-") != 0 && !lb_output_check("--json", a.json, &error)) {
    lb_command_error(error);
    return LB_EXIT_INPUT;
  }
  g_autofree char *ta = NULL, *tb = NULL;
  gsize la = 0, lb = 0;
  if (!lb_input_read(args[1], LB_INPUT_RESULT, &ta, &la, &error) ||
      !lb_input_read(args[2], LB_INPUT_RESULT, &tb, &lb, &error)) {
    lb_command_error(error);
    return LB_EXIT_INPUT;
  }
  LbDiffOptions options = {tolerances, (const char *const *)only};
  guint compared = 0;
  g_autoptr(GPtrArray) rows =
      lb_diff_documents(ta, la, args[1], tb, lb, args[2], &options, &compared, &error);
  if (rows == NULL) {
    g_printerr("lbsim: diff: %s\n", error->message);
    return LB_EXIT_INPUT;
  }
  gboolean moved = FALSE;
  for (guint i = 0; i < rows->len; i++)
    moved |= ((const LbDiffRow *)rows->pdata[i])->moved;
  if (a.json != NULL) {
    g_autofree char *doc = lb_diff_json(rows, compared, args[1], args[2]);
    if (strcmp(a.json, "-") == 0) {
      lb_output_stdout(doc);
      return moved ? 1 : 0;
    }
    if (!lb_output_write(a.json, doc, -1, &error)) {
      lb_command_error(error);
      return LB_EXIT_INPUT;
    }
  }
  if (!a.quiet) {
    g_autofree char *table = lb_diff_table(rows, compared);
    lb_output_stdout(table);
  }
  return moved ? 1 : 0;
}
