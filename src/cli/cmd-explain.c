/* `lbsim explain`: run one balancer on a small case with narration on and
 * tell the story: who holds what, what every phase did, every transfer. */
#include "cli/commands.h"

#include <glib/gstdio.h>
#include <string.h>

#include "io/output.h"
#include "runner/runner.h"
#include "lbsim/balancer.h"
#include "lbsim/scenario.h"
#include "report/lesson.h"
#include "report/story.h"
#include "workloads/models.h"

/* The built-in example: 3 elements per rank (24 on the default 8 ranks),
 * on the shipped hypercube that fits the ranks. */
static const char small_case[] = "[scenario]\n"
                                 "name = explain\n"
                                 "platform = %s\n"
                                 "ranks = %u\n"
                                 "[workload]\n"
                                 "size = %u\n"
                                 "pattern = step\n"
                                 "high = 9\n"
                                 "low = 1\n"
                                 "at = 0.3\n"
                                 "drift = 0\n"
                                 "[balancers]\n"
                                 "run = none\n";

#define BUILTIN "the built-in example"
#define LARGEST_HYPERCUBE 16384

/* For balancers that do not run on the 1D array: a small 2D field with two
 * hot spots, 4 x 4 cells per rank of the processor grid. */
static const char small_field[] = "[scenario]\n"
                                  "name = explain\n"
                                  "platform = %s\n"
                                  "ranks = %u\n"
                                  "[workload]\n"
                                  "model = field2d\n"
                                  "size = %" G_GUINT64_FORMAT "x%" G_GUINT64_FORMAT "\n"
                                  "pattern = hotspots\n"
                                  "hotspots = 2\n"
                                  "width = 0.12\n"
                                  "amplitude = 60\n"
                                  "base = 1\n"
                                  "drift = 0\n"
                                  "[balancers]\n"
                                  "run = none\n";

/* For the balancers of grid hierarchies: a 2D root of 8 x 8 cells per rank
 * with two hot spots refined twice, the whole hierarchy built at once and
 * balanced as one table (the schemes' figures, on one case). */
static const char small_samr[] = "[scenario]\n"
                                 "name = explain\n"
                                 "platform = %s\n"
                                 "ranks = %u\n"
                                 "[workload]\n"
                                 "model = samr\n"
                                 "size = %" G_GUINT64_FORMAT "x%" G_GUINT64_FORMAT "\n"
                                 "levels = 2\n"
                                 "ghost = 1\n"
                                 "pattern = hotspots\n"
                                 "hotspots = 2\n"
                                 "width = 0.08\n"
                                 "amplitude = 90\n"
                                 "base = 0\n"
                                 "drift = 0\n"
                                 "adapt = root\n"
                                 "[balancers]\n"
                                 "run = none\n"
                                 "[enzo-original]\n"
                                 "levels = all\n"
                                 "[move-split]\n"
                                 "levels = all\n";

/* For the balancers of H-trees: a 2D tree over 6 elements per rank round
 * one hot spot that moves by a quarter of the domain between the two
 * adaptation steps; every hnode weighs 1 (the seed's multigrid case), and
 * T is 20% of the average, above what the blocking leaves at step 0, so
 * that only the move makes the segments shift. */
static const char small_htree[] = "[scenario]\n"
                                  "name = explain\n"
                                  "platform = %s\n"
                                  "ranks = %u\n"
                                  "seed = 1\n"
                                  "steps = 2\n"
                                  "[workload]\n"
                                  "model = htree\n"
                                  "dim = 2\n"
                                  "min-level = 1\n"
                                  "max-level = 4\n"
                                  "elements = %u\n"
                                  "leaf-elements = 4\n"
                                  "load = constant\n"
                                  "pattern = hotspots\n"
                                  "hotspots = 1\n"
                                  "width = 0.08\n"
                                  "amplitude = 100\n"
                                  "base = 5\n"
                                  "drift = 0.25\n"
                                  "[balancers]\n"
                                  "run = none\n"
                                  "[sfc-shift]\n"
                                  "threshold = 0.2\n";

/* For loop scheduling: 6 iterations per rank whose costs grow along the
 * loop (the last rank's block costs most), on hosts of equal speed, the
 * techniques' chunks one per line. */
static const char small_loop[] = "[scenario]\n"
                                 "name = explain\n"
                                 "platform = %s\n"
                                 "ranks = %u\n"
                                 "[workload]\n"
                                 "model = loop\n"
                                 "iterations = %u\n"
                                 "cost = increasing\n"
                                 "cost-min = 10\n"
                                 "cost-max = 200\n"
                                 "flops-per-unit = 1e5\n"
                                 "[balancers]\n"
                                 "run = none\n";

/* With --loads: one element per load given, in blocks over the ranks. */
static const char given_loads[] = "[scenario]\n"
                                  "name = explain\n"
                                  "platform = %s\n"
                                  "ranks = %u\n"
                                  "[workload]\n"
                                  "pattern = file\n"
                                  "file = loads.txt\n"
                                  "[balancers]\n"
                                  "run = none\n";

/* explain is for small cases: a story of more loads than this is no lesson */
#define MAX_LOADS 1024
#define MAX_LOAD G_MAXUINT32

static gboolean bad_loads(GError **error, const char *format, ...) G_GNUC_PRINTF(2, 3);

static gboolean
bad_loads(GError **error, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  g_autofree char *text = g_strdup_vprintf(format, args);
  va_end(args);
  g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT, "--loads: %s", text);
  return FALSE;
}

/* "5,1,7" -> "5 1 7\n" (the file pattern's form), and how many. */
static gboolean
parse_loads(const char *text, char **file, guint *count, GError **error)
{
  g_auto(GStrv) items = g_strsplit(text, ",", -1);
  guint n = g_strv_length(items);
  if (n == 0 || (n == 1 && *g_strstrip(items[0]) == '\0'))
    return bad_loads(error, "no loads; give whole numbers separated by commas, as in "
                            "--loads 5,1,7,3,0,8,2,6");
  if (n > MAX_LOADS)
    return bad_loads(error,
                     "%u loads, more than the %u explain takes (it is meant for small "
                     "cases; run a scenario with pattern = file for more)",
                     n, MAX_LOADS);
  g_autoptr(GString) out = g_string_new(NULL);
  for (guint i = 0; i < n; i++) {
    const char *item = g_strstrip(items[i]);
    guint64 v = 0;
    if (*item == '\0')
      return bad_loads(error, "load %u is empty ('%s')", i, text);
    if (*item == '-' && g_ascii_isdigit(item[1]))
      return bad_loads(error, "load %u is '%s': loads are not negative", i, item);
    if (!g_ascii_isdigit(*item) || !g_ascii_string_to_unsigned(item, 10, 0, MAX_LOAD, &v, NULL))
      return bad_loads(error, "load %u is '%s', not a whole number from 0 to %u", i, item,
                       MAX_LOAD);
    g_string_append_printf(out, "%s%" G_GUINT64_FORMAT, i ? " " : "", v);
  }
  g_string_append_c(out, '\n');
  *file = g_string_free(g_steal_pointer(&out), FALSE);
  *count = n;
  return TRUE;
}

/* --ranks or --set scenario.ranks may change the ranks, and with them the
 * platform and the size: the second load has them right. loads: the file
 * of --loads, or NULL for the built-in example of the balancer's model. */
static LbScenario *
load_builtin(const LbScenarioOverrides *ov, const char *loads, GError **error)
{
  g_autofree char *platforms = g_canonicalize_filename(lb_platform_dir(), NULL);
  guint ranks = ov->ranks > 0 ? (guint)ov->ranks : 8;
  for (guint pass = 0; pass < 2; pass++) {
    guint hosts = 2;
    while (hosts < ranks && hosts < LARGEST_HYPERCUBE)
      hosts *= 2;
    g_autofree char *name = g_strdup_printf("hypercube-%u.xml", hosts);
    g_autofree char *platform = g_build_filename(platforms, name, NULL);
    const LbBalancer *b = ov->balancer != NULL ? lb_balancer_lookup(ov->balancer) : NULL;
    guint64 grid[2] = {1, 1};
    lb_grid_square_factors(ranks, 2, grid);
    g_autofree char *text =
        loads != NULL ? g_strdup_printf(given_loads, platform, ranks)
        : b == NULL || lb_balancer_supports(b, lb_model_lookup("array1d"))
            ? g_strdup_printf(small_case, platform, ranks, 3 * ranks)
        : lb_balancer_supports(b, lb_model_lookup("samr"))
            ? g_strdup_printf(small_samr, platform, ranks, 8 * grid[0], 8 * grid[1])
        : lb_balancer_supports(b, lb_model_lookup("htree"))
            ? g_strdup_printf(small_htree, platform, ranks, 6 * ranks)
        : lb_balancer_supports(b, lb_model_lookup("loop"))
            ? g_strdup_printf(small_loop, platform, ranks, 6 * ranks)
            : g_strdup_printf(small_field, platform, ranks, 4 * grid[0], 4 * grid[1]);
    g_autoptr(LbScenario) sc = lb_scenario_load_text(text, loads, BUILTIN, ov, error);
    if (sc == NULL)
      return NULL;
    if (sc->ranks == ranks) {
      g_free(sc->file);
      sc->file = g_strdup(BUILTIN);
      return g_steal_pointer(&sc);
    }
    ranks = sc->ranks;
  }
  g_assert_not_reached();
}

/* --loads: the file the case reads, and the ranks unless --ranks gives
 * them (one per load, which MLB's hypercube needs to be a power of two). */
static gboolean
prepare_loads(const char *text, const char *name, gboolean scenario, guint *ranks, char **file,
              GError **error)
{
  if (scenario)
    return bad_loads(error, "it makes the case itself; give either --loads or a scenario "
                            "(whose [workload] may read loads with pattern = file)");
  g_auto(GStrv) label = g_strsplit(name, ":", 2);
  const LbBalancer *b = lb_balancer_lookup(label[0]);
  if (b != NULL && !lb_balancer_supports(b, lb_model_lookup("array1d"))) {
    g_autofree char *models = lb_balancer_models_text(b);
    return bad_loads(error, "the loads are those of the 1D array's elements, and %s runs on %s",
                     b->name, models);
  }
  guint n = 0;
  if (!parse_loads(text, file, &n, error))
    return FALSE;
  if (*ranks == 0 && (n & (n - 1)) != 0) {
    g_clear_pointer(file, g_free);
    /* the counts a hypercube takes, at most one rank per load */
    g_autoptr(GString) counts = g_string_new(NULL);
    for (guint r = 1; r <= n; r *= 2)
      g_string_append_printf(counts, "%s%u", r > 1 ? ", " : "", r);
    return bad_loads(error,
                     "%u loads: one rank per load is the default only for a power of two "
                     "(the hypercubes MLB needs); give --ranks R, R one of %s",
                     n, counts->str);
  }
  if (*ranks == 0)
    *ranks = n;
  if (*ranks > n) {
    g_clear_pointer(file, g_free);
    return bad_loads(error, "%u loads for %u ranks: give at least one load per rank", n, *ranks);
  }
  return TRUE;
}

/* The built-in cases read the shipped platforms: their name is enough,
 * and keeps the story the same wherever lbsim is. */
static const char *
platform_name(const LbScenario *sc, gboolean builtin)
{
  const char *slash = strrchr(sc->platform, G_DIR_SEPARATOR);
  return builtin && slash != NULL ? slash + 1 : sc->platform;
}

int
lb_cmd_explain(const LbCommand *self, int argc, char **argv)
{
  g_autofree char *ranks_text = NULL, *loads_text = NULL;
  g_auto(GStrv) sets = NULL;
  g_autofree char *json = NULL, *html = NULL;
  gboolean quiet = FALSE;
  GOptionEntry entries[] = {
      {"ranks", 'p', 0, G_OPTION_ARG_STRING, &ranks_text, "Override [scenario] ranks", "N"},
      {"loads", 'l', 0, G_OPTION_ARG_STRING, &loads_text,
       "The case: one 1D array element per load, in blocks over the ranks (default: one rank "
       "per load, a power of two)",
       "L0,L1,..."},
      {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Override a key (repeatable)",
       "GROUP.KEY=VALUE"},
      {"json", 'o', 0, G_OPTION_ARG_FILENAME, &json,
       "Write the story's frames as JSON (format lbsim-explain; - for standard output, which "
       "then holds only the JSON)",
       "FILE"},
      {"html", 0, 0, G_OPTION_ARG_FILENAME, &html,
       "Write DIR/index.html, a self-contained page that plays the story step by step on the "
       "machine",
       "DIR"},
      /* as every command takes it: the narration goes to standard output */
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
       "No progress on stderr (explain prints none: its narration is on standard output)", NULL},
      {NULL},
  };
  g_auto(GStrv) parsed = lb_command_parse(
      self, entries,
      "Runs one balancer on a small case (unless a scenario is given: 8 ranks or --ranks,\n"
      "3 elements per rank, on the hypercube that fits; with --loads, those elements)\n"
      "and narrates every phase: the loads, the decisions, the messages, the schedule.",
      argc, argv);
  if (parsed == NULL)
    return LB_EXIT_INPUT;
  g_autoptr(GError) error = NULL;
  argc = (int)g_strv_length(parsed);
  argv = parsed;
  if (argc < 2 || argc > 3) {
    g_printerr("lbsim: explain needs a balancer name and at most one scenario\n");
    return 2;
  }
  gboolean make_dir = FALSE;
  if ((json != NULL && strcmp(json, "-") != 0 && !lb_output_check("--json", json, &error)) ||
      (html != NULL && !lb_output_check_folder("--html", html, &make_dir, &error))) {
    g_printerr("lbsim: %s\n", error->message);
    return 2;
  }
  guint ranks = 0;
  if (ranks_text != NULL && !lb_runner_parse_count("--ranks", ranks_text, &ranks, &error)) {
    g_printerr("lbsim: %s\n", error->message);
    return 2;
  }
  g_autofree char *loads_file = NULL;
  if (loads_text != NULL &&
      !prepare_loads(loads_text, argv[1], argc == 3, &ranks, &loads_file, &error)) {
    g_printerr("lbsim: %s\n", error->message);
    return 2;
  }
  LbScenarioOverrides ov = {(gint)ranks, NULL, argv[1], (const char *const *)sets};
  g_autoptr(LbScenario) sc =
      argc == 3 ? lb_scenario_load(argv[2], &ov, &error) : load_builtin(&ov, loads_file, &error);
  if (sc == NULL) {
    g_printerr("lbsim: %s\n", error->message);
    return 2;
  }
  const LbBalancerRun *brun = sc->runs->pdata[0];
  if (sc->ranks > 64 || lb_work_total_units(brun->work) > 4096)
    g_printerr("lbsim: explain is meant for small cases; %u ranks and %" G_GUINT64_FORMAT
               " units make a long story\n",
               sc->ranks, lb_work_total_units(brun->work));

  LbRunnerOptions ro = {.jobs = 1, .quiet = TRUE, .run = {.detail = TRUE, .narrate = TRUE}};
  g_autoptr(GPtrArray) results = NULL;
  int code = 0;
  if (!lb_runner_run(sc, &ov, &ro, &results, &code, &error)) {
    g_printerr("lbsim: %s\n", error->message);
    return code;
  }
  const LbRunResult *run = results->pdata[0];
  const char *platform = platform_name(sc, argc == 2);
  g_autofree char *intro = lb_lesson_intro(sc, brun, platform, NULL);
  g_autofree char *story =
      lb_report_story(run, brun->balancer, brun->params, brun->work->model->leaves != NULL);
  if (json == NULL || strcmp(json, "-") != 0)
    g_print("%s%s", intro, story);
  if ((json != NULL || html != NULL) &&
      !lb_lesson_write(sc, brun, run, platform, json, html, &error)) {
    g_printerr("lbsim: %s\n", error->message);
    return 1;
  }
  return 0;
}
