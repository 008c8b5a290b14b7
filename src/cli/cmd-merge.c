/* lbsim merge: the results of a sweep's jobs (run elsewhere, each by
 * lbsim run-job) gathered into the documents lbsim sweep writes. */
#include <string.h>

#include "cli/commands.h"
#include "sweep/sweep.h"

/* missing runs listed by name, at most */
#define MAX_LISTED 20

static void
print_error(const GError *error)
{
  g_printerr("lbsim: %s\n", error->message);
}

typedef struct {
  char *json;
  char *csv;
  char *long_csv;
  char *stats_csv;
  gboolean partial;
  gboolean force;
  gboolean quiet;
} MergeArgs;

static void
merge_args_clear(MergeArgs *a)
{
  g_free(a->json);
  g_free(a->csv);
  g_free(a->long_csv);
  g_free(a->stats_csv);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(MergeArgs, merge_args_clear)

int
lb_cmd_merge(const LbCommand *self, int argc, char **argv)
{
  g_auto(MergeArgs) a = {0};
  GOptionEntry entries[] = {
      {"json", 'o', 0, G_OPTION_ARG_FILENAME, &a.json,
       "The results as JSON (default: NAME-sweep.json, NAME the scenario's)", "FILE"},
      {"csv", 0, 0, G_OPTION_ARG_FILENAME, &a.csv, "The results as CSV, one row per run", "FILE"},
      {"long-csv", 0, 0, G_OPTION_ARG_FILENAME, &a.long_csv,
       "The results as CSV, one row per run and metric", "FILE"},
      {"stats-csv", 0, 0, G_OPTION_ARG_FILENAME, &a.stats_csv,
       "For a sweep with replicates: each measure's statistics as CSV", "FILE"},
      {"partial", 0, 0, G_OPTION_ARG_NONE, &a.partial,
       "Write the runs there are when some are missing (still named)", NULL},
      {"force", 0, 0, G_OPTION_ARG_NONE, &a.force, "Replace outputs made by another sweep", NULL},
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &a.quiet, "No summary on stderr", NULL},
      {NULL},
  };
  g_auto(GStrv) args = lb_command_parse(
      self, entries,
      "Gathers the results of a sweep's jobs (lbsim sweep --emit-jobs, each job run with\n"
      "lbsim run-job) into the JSON and CSV that lbsim sweep writes. Give the state folder,\n"
      "or result files with the state folder (its sweep.ini holds the sweep's order).\n"
      "Exit status: 0 done, 1 runs are missing (named; --partial writes the others),\n"
      "2 bad input.",
      argc, argv);
  if (args == NULL)
    return LB_EXIT_INPUT;
  g_autoptr(GError) error = NULL;
  argc = (int)g_strv_length(args);
  argv = args;
  if (argc < 2) {
    g_printerr("lbsim: merge needs the sweep's state folder or result files (see lbsim merge "
               "--help)\n");
    return LB_EXIT_INPUT;
  }
  g_autoptr(LbSweep) sw = lb_sweep_merge_definition(argc, argv, &error);
  if (sw == NULL) {
    print_error(error);
    return LB_EXIT_INPUT;
  }
  guint n = sw->runs->len;
  LbRunResult **results = g_new0(LbRunResult *, n);
  int code = 0;
  guint missing = 0;
  g_autofree char *json = a.json != NULL ? g_strdup(a.json) : lb_sweep_default_json(sw);
  const LbSweepFiles files = {json, a.csv, a.long_csv, a.stats_csv};
  if (!lb_sweep_merge_results(sw, argc, argv, results, &error)) {
    print_error(error);
    code = LB_EXIT_INPUT;
  } else if (!lb_sweep_check_merge_files(sw, argc, argv, &files, &error)) {
    print_error(error);
    code = LB_EXIT_INPUT;
  } else if (a.stats_csv != NULL && sw->replicates < 0) {
    g_printerr("lbsim: --stats-csv: the sweep has no replicates\n");
    code = LB_EXIT_INPUT;
  } else if (!a.force && ((strcmp(json, "-") != 0 && !lb_sweep_check_json(json, sw, &error)) ||
                          !lb_sweep_check_tables(&files, sw, &error))) {
    print_error(error);
    code = LB_EXIT_INPUT;
  } else {
    for (guint i = 0; i < n; i++) {
      if (results[i] != NULL)
        continue;
      if (++missing <= MAX_LISTED) {
        g_autofree char *what = lb_sweep_describe(sw, sw->runs->pdata[i]);
        g_printerr("lbsim: missing: %s (%s.result)\n", what,
                   ((LbSweepRun *)sw->runs->pdata[i])->id);
      }
    }
    if (missing > MAX_LISTED)
      g_printerr("lbsim: ... and %u more\n", missing - MAX_LISTED);
    if (missing > 0 && !a.partial) {
      g_printerr("lbsim: %u of %u runs missing: nothing written (--partial writes the others)\n",
                 missing, n);
      code = 1;
    } else if (!lb_sweep_write_documents(sw, results, &files, &error)) {
      print_error(error);
      code = 1;
    } else if (!a.quiet) {
      g_printerr("lbsim: %u of %u runs in %s\n", n - missing, n, json);
    }
  }
  lb_sweep_results_free(results, n);
  return code;
}
