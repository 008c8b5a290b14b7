/* lbsim run and lbsim check: a scenario's balancers, each in its own
 * process, side by side; check then holds the scenario's [expect] lines. */
#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "runner/runner.h"
#include "runner/signals.h"
#include "io/temporary.h"
#include "io/input.h"
#include "io/output.h"
#include "lbsim/balancer.h"
#include "lbsim/scenario.h"
#include "report/lesson.h"
#include "report/html.h"
#include "report/paje.h"
#include "report/pictures.h"
#include "report/diff.h"
#include "report/junit.h"
#include "report/report.h"

typedef struct {
  char *ranks;
  char *platform;
  char *balancer;
  char **sets;
  char *json;
  char *csv;
  char *long_csv;
  gboolean detail;
  char *jobs;
  gboolean quiet;
  gboolean no_fork;
  char *message_trace;
  char *paje;
  gboolean paje_links;
  char *pictures;
  char **picture_formats;
  char *picture_width;
  LbFigureArgs figure;
  char *report;
  char *explain_html;
  char *chart_scale;
  LbPlotValueScale scale;
  gboolean force;
  char **cfg;
  char **log;
  gboolean verbose;
  char *junit;              /* check */
  gboolean tap;             /* check */
  char *baseline;           /* check */
  gboolean update_baseline; /* check */
  char **tolerances;        /* check --baseline */
} RunArgs;

static void
run_args_clear(RunArgs *a)
{
  g_free(a->ranks);
  g_free(a->platform);
  g_free(a->balancer);
  g_free(a->jobs);
  g_strfreev(a->sets);
  g_free(a->json);
  g_free(a->csv);
  g_free(a->long_csv);
  g_free(a->message_trace);
  g_free(a->paje);
  g_free(a->pictures);
  g_strfreev(a->picture_formats);
  g_free(a->picture_width);
  lb_figure_args_clear(&a->figure);
  g_free(a->report);
  g_free(a->explain_html);
  g_free(a->chart_scale);
  g_strfreev(a->cfg);
  g_strfreev(a->log);
  g_free(a->junit);
  g_free(a->baseline);
  g_strfreev(a->tolerances);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(RunArgs, run_args_clear)

/* run's and check's options, with the closing NULL entry (run stops five
 * before it: --junit, --tap and the baseline's three are check's) */
#define RUN_OPTIONS 33
#define CHECK_ONLY_OPTIONS 5

static GOptionContext *
run_context(const LbCommand *self, RunArgs *a, GOptionEntry *out)
{
  const GOptionEntry entries[] = {
      {"ranks", 'p', 0, G_OPTION_ARG_STRING, &a->ranks, "Override [scenario] ranks", "N"},
      {"platform", 0, 0, G_OPTION_ARG_FILENAME, &a->platform,
       "Override [scenario] platform (relative to the working directory, then platforms/)", "XML"},
      {"balancer", 'b', 0, G_OPTION_ARG_STRING, &a->balancer,
       "Run only this balancer (its parameters from its group)", "NAME"},
      {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &a->sets,
       "Override a key, e.g. --set workload.pattern=hotspots (repeatable)", "GROUP.KEY=VALUE"},
      {"json", 'o', 0, G_OPTION_ARG_FILENAME, &a->json, "Write every result as JSON", "FILE"},
      {"csv", 0, 0, G_OPTION_ARG_FILENAME, &a->csv, "Write the summary table as CSV", "FILE"},
      {"long-csv", 0, 0, G_OPTION_ARG_FILENAME, &a->long_csv,
       "Write the results as CSV, one row per run and metric (the files of several runs "
       "concatenate)",
       "FILE"},
      {"detail", 'd', 0, G_OPTION_ARG_NONE, &a->detail,
       "Keep the schedule (every transfer) in the JSON", NULL},
      {"jobs", 'j', 0, G_OPTION_ARG_STRING, &a->jobs,
       "Simulations at once (default: the number of processors)", "N"},
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &a->quiet, "No progress on stderr", NULL},
      {"no-fork", 0, 0, G_OPTION_ARG_NONE, &a->no_fork,
       "Simulate in this process (one balancer only): for gdb, valgrind, perf", NULL},
      {"message-trace", 0, 0, G_OPTION_ARG_FILENAME, &a->message_trace,
       "Write the message pattern for tools/bench (several balancers: FILE.BALANCER each)", "FILE"},
      {"paje", 0, 0, G_OPTION_ARG_FILENAME, &a->paje,
       "Write a Paje trace: each rank's phases and an arrow per message (several balancers: "
       "FILE.BALANCER.paje each)",
       "FILE"},
      {"paje-links", 0, 0, G_OPTION_ARG_NONE, &a->paje_links,
       "With --paje: trace the links' bandwidth in use too (most of the events)", NULL},
      {"pictures", 0, 0, G_OPTION_ARG_FILENAME, &a->pictures,
       "Draw each run's final partition (dls: its chunks over time) and the scenario's imbalance "
       "per step in DIR (made if missing)",
       "DIR"},
      {"picture-format", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->picture_formats,
       "The pictures' formats: png, svg (text as text), pdf, or a comma list (repeatable; "
       "default png,svg; --report adds svg)",
       "FORMAT"},
      {"picture-width", 0, 0, G_OPTION_ARG_STRING, &a->picture_width,
       "The pictures' width in pixels (PDF: points), 320 to 4096 (default 1280)", "PX"},
  };
  const GOptionEntry tail[] = {
      {"explain-html", 0, 0, G_OPTION_ARG_FILENAME, &a->explain_html,
       "With one balancer (--balancer): narrate its run and write DIR/index.html, the page of "
       "lbsim explain --html that plays it step by step (implies --detail; for small cases)",
       "DIR"},
      {"report", 0, 0, G_OPTION_ARG_FILENAME, &a->report,
       "Write an HTML report in DIR (made if missing): index.html with the summary, the "
       "partitions, imbalance per step and time per phase, each chart's numbers as CSV beside it",
       "DIR"},
      {"chart-scale", 0, 0, G_OPTION_ARG_STRING, &a->chart_scale,
       "With --report: the value axis of the line charts, auto (log when the values span a "
       "factor of 10 or more), linear or log",
       "SCALE"},
      {"force", 0, 0, G_OPTION_ARG_NONE, &a->force,
       "With --report: replace a report of another scenario (or not made by lbsim) in DIR", NULL},
      {"cfg", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->cfg, "Pass a SimGrid --cfg setting",
       "KEY:VALUE"},
      {"log", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->log,
       "Pass a SimGrid --log setting, e.g. lb_mlb.thres:debug", "SETTING"},
      {"verbose", 'v', 0, G_OPTION_ARG_NONE, &a->verbose,
       "Show SimGrid's messages and lbsim's per-step log (simulated time stamps)", NULL},
      {"junit", 0, 0, G_OPTION_ARG_FILENAME, &a->junit,
       "Write a JUnit XML test report: a testsuite a scenario, a testcase an [expect] line",
       "FILE"},
      {"tap", 0, 0, G_OPTION_ARG_NONE, &a->tap,
       "Write the checks as TAP version 13 on standard output (the tables go to standard error)",
       NULL},
      {"baseline", 0, 0, G_OPTION_ARG_FILENAME, &a->baseline,
       "Hold the runs to a stored result (FILE, or DIR/NAME.json for each scenario NAME) as "
       "lbsim diff does: a failing check for each value beyond --tolerance",
       "FILE|DIR"},
      {"update-baseline", 0, 0, G_OPTION_ARG_NONE, &a->update_baseline,
       "Write the runs' result as the --baseline instead of holding them to it", NULL},
      {"tolerance", 't', 0, G_OPTION_ARG_STRING_ARRAY, &a->tolerances,
       "With --baseline: how far a value may move (1%, 0.5, METRIC=AMOUNT; repeatable; default: "
       "none)",
       "AMOUNT"},
      {NULL},
  };
  G_STATIC_ASSERT(G_N_ELEMENTS(entries) + LB_FIGURE_ENTRIES + G_N_ELEMENTS(tail) == RUN_OPTIONS);
  memcpy(out, entries, sizeof entries);
  lb_figure_entries(&a->figure, out + G_N_ELEMENTS(entries));
  memcpy(out + G_N_ELEMENTS(entries) + LB_FIGURE_ENTRIES, tail, sizeof tail);
  if (strcmp(self->name, "check") != 0) /* run ends before --junit */
    memset(&out[RUN_OPTIONS - 1 - CHECK_ONLY_OPTIONS], 0, sizeof out[0]);
  GOptionContext *ctx = lb_command_context(self);
  g_option_context_add_main_entries(ctx, out, NULL);
  g_option_context_set_summary(
      ctx, strcmp(self->name, "check") == 0
               ? "Runs each scenario, then checks every line of its [expect] group: one\n"
                 "PASS, FAIL or SKIP line each. Exit status: 0 all hold, 1 one fails, 2 bad\n"
                 "input, 3 a run broke an invariant (several scenarios: the highest)."
               : "Runs every balancer of the scenario (each in its own process) and prints\n"
                 "one row per balancer. Exit status: 0 done, 2 bad input, 3 a run broke an\n"
                 "invariant (a work unit lost or duplicated).");
  return ctx;
}

/* The picture files a run will write in dir: each run's final partition
 * (of models whose units are cells, grids or a curve), and with summary
 * (--pictures) the imbalance per step and, when a balancer declares
 * idle-procs, the idle processors. */
static GPtrArray *
picture_files(const LbPictureOptions *o, const char *dir, const LbScenario *sc, gboolean summary)
{
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; i < sc->runs->len; i++) {
    const LbBalancerRun *run = sc->runs->pdata[i];
    const char *kind = lb_pictures_kind(run);
    if (kind == NULL)
      continue;
    g_autofree char *what = g_strdup_printf("%s.%s", run->label, kind);
    lb_pictures_add_files(names, o, dir, sc->name, what);
  }
  if (!summary)
    return names;
  lb_pictures_add_files(names, o, dir, sc->name, "imbalance");
  gboolean idle = FALSE;
  for (guint i = 0; i < sc->runs->len; i++) {
    const LbBalancer *b = ((const LbBalancerRun *)sc->runs->pdata[i])->balancer;
    for (const LbMetricSpec *m = b->metrics; m != NULL && m->name != NULL; m++)
      idle |= strcmp(m->name, "idle-procs") == 0;
  }
  if (idle)
    lb_pictures_add_files(names, o, dir, sc->name, "idle");
  return names;
}

/* Where a run's files go: decided, and every one checked, before the run
 * starts. Files that runs write (traces, pictures) are made in a private
 * folder and put in place only once every run has succeeded, so an
 * interrupted or failed run leaves the user's files as they were. */
typedef struct {
  gboolean make_pictures, make_report;
  const char *pictures;             /* the user's pictures folder: --pictures, or --report's */
  LbPictureOptions picture, staged; /* in that folder, and in the private one */
  guint chart_formats;              /* the report's charts' files besides SVG */
  char *staging;                    /* the private folder, or NULL */
  char *staged_paje, *staged_trace, *staged_pictures;
} OutputPlan;

static void
output_plan_clear(OutputPlan *plan)
{
  if (plan->staging != NULL) {
    g_autoptr(GDir) d = g_dir_open(plan->staged_pictures, 0, NULL);
    const char *name;
    while (d != NULL && (name = g_dir_read_name(d)) != NULL) {
      g_autofree char *path = g_build_filename(plan->staged_pictures, name, NULL);
      g_unlink(path);
    }
    g_rmdir(plan->staged_pictures);
    g_autoptr(GDir) top = g_dir_open(plan->staging, 0, NULL);
    while (top != NULL && (name = g_dir_read_name(top)) != NULL) {
      g_autofree char *path = g_build_filename(plan->staging, name, NULL);
      g_unlink(path);
    }
    g_rmdir(plan->staging);
    lb_temporary_forget(plan->staging);
  }
  g_free(plan->staging);
  g_free(plan->staged_paje);
  g_free(plan->staged_trace);
  g_free(plan->staged_pictures);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(OutputPlan, output_plan_clear)

static gboolean
add_output(LbFileSet *set, const char *option, const char *path, GError **error)
{
  return lb_output_check(option, path, error) && lb_file_set_output(set, option, path, error);
}

/* --paje's files (paje) or --message-trace's. */
static char *
trace_file(gboolean paje, const char *base, const char *label, guint runs)
{
  return paje ? lb_runner_paje_name(base, label, runs) : lb_runner_trace_name(base, label, runs);
}

static gboolean
cfg_false(const char *value)
{
  static const char *const no[] = {"no", "off", "false", "0"};
  for (guint i = 0; i < G_N_ELEMENTS(no); i++)
    if (strcmp(value, no[i]) == 0)
      return TRUE;
  return FALSE;
}

/* SimGrid keeps the ranks' states in its hosts' containers, which it
 * makes only when tracing the platform: a --cfg that turns tracing or
 * the platform's tracing off would abort the run at its first state and
 * leave an empty file; the file's name is --paje's. */
static gboolean
check_paje_cfg(const RunArgs *a, GError **error)
{
  if (a->paje == NULL) {
    if (!a->paje_links)
      return TRUE;
    g_set_error_literal(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT, "--paje-links is for --paje");
    return FALSE;
  }
  for (guint i = 0; a->cfg != NULL && a->cfg[i] != NULL; i++) {
    const char *colon = strchr(a->cfg[i], ':');
    g_autofree char *key = g_strndup(a->cfg[i], colon != NULL ? (gsize)(colon - a->cfg[i]) : 0);
    if (colon == NULL)
      continue;
    if (strcmp(key, "tracing/filename") == 0) {
      g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT, "--cfg %s: --paje names the trace file",
                  a->cfg[i]);
      return FALSE;
    }
    if ((strcmp(key, "tracing") == 0 || strcmp(key, "tracing/platform") == 0) &&
        cfg_false(colon + 1)) {
      g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT,
                  "--cfg %s: --paje needs SimGrid's %s on (the ranks' phases are states of the "
                  "hosts, which SimGrid traces only with it): drop the --cfg",
                  a->cfg[i], key);
      return FALSE;
    }
  }
  return TRUE;
}

/* Every file the run will read and write, checked before it starts: a
 * bad path is bad input, not an hour of simulation thrown away, and no
 * output may be an input or another output. */
static gboolean
plan_outputs(const RunArgs *a, const LbScenario *sc, OutputPlan *plan, GError **error)
{
  if (!check_paje_cfg(a, error))
    return FALSE;
  g_autoptr(LbFileSet) set = lb_file_set_new();
  lb_file_set_input(set, "the scenario", sc->file);
  lb_file_set_input(set, "the platform", sc->platform);
  const GArray *read = lb_input_files();
  for (guint i = 0; i < read->len; i++) {
    const LbInputFile *f = &g_array_index(read, LbInputFile, i);
    lb_file_set_input(set, lb_input_kind_name(f->kind), f->path);
  }
  if ((a->json != NULL && !add_output(set, "--json", a->json, error)) ||
      (a->csv != NULL && !add_output(set, "--csv", a->csv, error)) ||
      (a->long_csv != NULL && !add_output(set, "--long-csv", a->long_csv, error)))
    return FALSE;
  const char *const traces[][2] = {{"--paje", a->paje}, {"--message-trace", a->message_trace}};
  for (guint t = 0; t < G_N_ELEMENTS(traces); t++) {
    if (traces[t][1] == NULL)
      continue;
    if (strcmp(traces[t][1], "-") == 0) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                  "%s -: a trace is written to a file, not to standard output", traces[t][0]);
      return FALSE;
    }
    for (guint i = 0; i < sc->runs->len; i++) {
      const LbBalancerRun *run = sc->runs->pdata[i];
      g_autofree char *name = trace_file(t == 0, traces[t][1], run->label, sc->runs->len);
      if (!add_output(set, traces[t][0], name, error))
        return FALSE;
    }
  }
  if (a->report != NULL) {
    if (!lb_html_check_folder(a->report, "--report", "run", sc->name, a->force, &plan->make_report,
                              error))
      return FALSE;
    g_autofree char *page = g_build_filename(a->report, "index.html", NULL);
    if (!lb_file_set_output(set, "--report", page, error))
      return FALSE;
  }
  /* the report shows the pictures; without --pictures they go beside it */
  plan->pictures = a->pictures != NULL ? a->pictures : a->report;
  const char *figure = lb_figure_args_given(&a->figure);
  if (plan->pictures == NULL &&
      (a->picture_formats != NULL || a->picture_width != NULL || figure != NULL)) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "%s draws nothing without "
                "--pictures DIR or --report DIR",
                a->picture_formats != NULL ? "--picture-format"
                : a->picture_width != NULL ? "--picture-width"
                                           : figure);
    return FALSE;
  }
  if (!lb_figure_parse_formats((const char *const *)a->picture_formats, &plan->picture.formats,
                               error) ||
      !lb_figure_args_look(&a->figure, &plan->picture.look, error))
    return FALSE;
  if (a->picture_width != NULL && plan->picture.look.width > 0) {
    g_set_error_literal(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                        "--picture-width and --figure-size: give one (pixels, or a size for "
                        "print)");
    return FALSE;
  }
  /* the report's charts: SVG, and the formats asked for */
  plan->chart_formats = plan->picture.formats;
  if (plan->picture.formats == 0)
    plan->picture.formats = LB_PICTURES_DEFAULT_FORMATS;
  if (a->report != NULL)
    plan->picture.formats |= LB_FIGURE_SVG; /* the page shows the SVG */
  guint width = 0;
  if (a->picture_width != NULL) {
    if (!lb_runner_parse_count("--picture-width", a->picture_width, &width, error))
      return FALSE;
    if (width < 320 || width > 4096) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--picture-width %s: not between 320 and 4096 pixels", a->picture_width);
      return FALSE;
    }
  }
  plan->picture.width = width;
  plan->picture.dir = plan->pictures;
  if (a->pictures != NULL &&
      !lb_output_check_folder("--pictures", a->pictures, &plan->make_pictures, error))
    return FALSE;
  if (plan->pictures != NULL) {
    const char *option = a->pictures != NULL ? "--pictures" : "--report";
    gboolean exists = a->pictures != NULL ? !plan->make_pictures : !plan->make_report;
    g_autoptr(GPtrArray) names =
        picture_files(&plan->picture, plan->pictures, sc, a->pictures != NULL);
    for (guint i = 0; i < names->len; i++)
      if ((exists && !lb_output_check(option, names->pdata[i], error)) ||
          !lb_file_set_output(set, option, names->pdata[i], error))
        return FALSE;
  }
  if (a->paje == NULL && a->message_trace == NULL && plan->pictures == NULL)
    return TRUE;
  plan->staging = lb_temporary_make_dir("lbsim-out-XXXXXX", error);
  if (plan->staging == NULL)
    return FALSE;
  plan->staged_paje = g_build_filename(plan->staging, "paje", NULL);
  plan->staged_trace = g_build_filename(plan->staging, "trace", NULL);
  plan->staged_pictures = g_build_filename(plan->staging, "pictures", NULL);
  plan->staged = plan->picture;
  plan->staged.dir = plan->staged_pictures;
  if (plan->pictures != NULL && g_mkdir(plan->staged_pictures, 0700) != 0) {
    int errsv = errno;
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errsv), "cannot make %s: %s",
                plan->staged_pictures, g_strerror(errsv));
    return FALSE;
  }
  return TRUE;
}

/* Once every run has succeeded: the staged traces and pictures into
 * their places. */
static gboolean
place_outputs(const RunArgs *a, const LbScenario *sc, const OutputPlan *plan, GError **error)
{
  const char *const traces[][2] = {{a->paje, plan->staged_paje},
                                   {a->message_trace, plan->staged_trace}};
  for (guint t = 0; t < G_N_ELEMENTS(traces); t++) {
    if (traces[t][0] == NULL)
      continue;
    for (guint i = 0; i < sc->runs->len; i++) {
      const LbBalancerRun *run = sc->runs->pdata[i];
      g_autofree char *from = trace_file(t == 0, traces[t][1], run->label, sc->runs->len);
      g_autofree char *to = trace_file(t == 0, traces[t][0], run->label, sc->runs->len);
      if (!(t == 0 ? lb_paje_write(from, !a->paje_links, to, error)
                   : lb_output_move(from, to, error)))
        return FALSE;
    }
  }
  if (plan->pictures == NULL)
    return TRUE;
  if ((plan->make_pictures && !lb_output_make_folder("--pictures", plan->pictures, error)) ||
      (plan->make_report && a->pictures == NULL &&
       !lb_output_make_folder("--report", plan->pictures, error)))
    return FALSE;
  g_autoptr(GPtrArray) staged =
      picture_files(&plan->picture, plan->staged_pictures, sc, a->pictures != NULL);
  g_autoptr(GPtrArray) names =
      picture_files(&plan->picture, plan->pictures, sc, a->pictures != NULL);
  for (guint i = 0; i < names->len; i++)
    if (g_file_test(staged->pdata[i], G_FILE_TEST_EXISTS) &&
        !lb_output_move(staged->pdata[i], names->pdata[i], error))
      return FALSE;
  return TRUE;
}

/* A folder option (--baseline, check's --json): one names a folder when it
 * ends in '/' or is one. */
static gboolean
names_folder(const char *option)
{
  return g_str_has_suffix(option, "/") || g_file_test(option, G_FILE_TEST_IS_DIR);
}

/* --baseline's or check --json's file for a scenario: DIR/NAME.json when
 * the option names a folder, else the option itself. */
static char *
scenario_path(const char *option, const LbScenario *sc)
{
  if (names_folder(option)) {
    g_autofree char *file = g_strdup_printf("%s.json", sc->name);
    return g_build_filename(option, file, NULL);
  }
  return g_strdup(option);
}

/* What lbsim check of several scenarios keeps of each for its JSON. */
typedef struct {
  GPtrArray *runs;     /* LbRunResult */
  GArray *outcomes;    /* LbExpectOutcome */
  double seconds;      /* wall time of its runs and checks */
  char *error;         /* why its runs failed, or NULL */
  GPtrArray *baseline; /* LbDiffRow: the values that differ from --baseline */
} Checked;

static void
checked_clear(gpointer data)
{
  Checked *c = data;
  g_clear_pointer(&c->runs, g_ptr_array_unref);
  g_clear_pointer(&c->outcomes, g_array_unref);
  g_clear_pointer(&c->error, g_free);
  g_clear_pointer(&c->baseline, g_ptr_array_unref);
}

/* lbsim check's test reports (--junit FILE, --tap on the saved standard
 * output), from each scenario as check held it. FALSE if the JUnit file
 * could not be written (said). */
static gboolean
write_test_reports(const RunArgs *a, GPtrArray *scenarios, const Checked *kept, int tap_fd)
{
  g_autoptr(GPtrArray) suites = g_ptr_array_new_with_free_func((GDestroyNotify)lb_test_suite_free);
  for (guint i = 0; i < scenarios->len; i++) {
    const Checked *c = &kept[i];
    g_ptr_array_add(
        suites, lb_test_suite_of_check(
                    scenarios->pdata[i],
                    c->outcomes != NULL ? (const LbExpectOutcome *)c->outcomes->data : NULL,
                    c->outcomes != NULL ? c->outcomes->len : 0, c->baseline, c->seconds, c->error));
  }
  if (tap_fd >= 0) {
    g_autofree char *tap = lb_tap_document((LbTestSuite *const *)suites->pdata, suites->len);
    lb_cli_tap_end(tap_fd, tap);
  }
  if (a->junit == NULL)
    return TRUE;
  g_autoptr(GError) error = NULL;
  g_autofree char *xml =
      lb_junit_document((LbTestSuite *const *)suites->pdata, suites->len, "lbsim check");
  if (!lb_output_write(a->junit, xml, -1, &error)) {
    lb_command_error(error);
    return FALSE;
  }
  return TRUE;
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Checked, checked_clear)

static int run_one(const RunArgs *a, const LbScenario *sc, const LbScenarioOverrides *ov,
                   gboolean check, guint jobs, Checked *keep);

static LbScenarioOverrides
overrides_of(const RunArgs *a, guint ranks)
{
  LbScenarioOverrides ov = {(gint)ranks, a->platform, a->balancer, (const char *const *)a->sets};
  return ov;
}

/* `lbsim check A.ini B.ini ...`: every scenario is loaded and checked
 * before any runs; then each in turn, a header before each; the exit
 * status is the highest of theirs (3 a broken invariant, 2 bad input, 1 a
 * failed expectation). */
static int
check_many(RunArgs *a, char **files, guint ranks, guint jobs, int tap_fd)
{
  g_autoptr(GError) error = NULL;
  if (a->csv != NULL || a->long_csv != NULL || a->pictures != NULL || a->report != NULL ||
      a->paje != NULL || a->message_trace != NULL || a->explain_html != NULL) {
    g_printerr("lbsim: check of several scenarios writes one file, --json (every scenario's "
               "runs and checks): give one scenario with --csv, --pictures, --report, --paje or "
               "--message-trace\n");
    return LB_EXIT_INPUT;
  }
  if (g_strcmp0(a->json, "-") == 0) {
    g_printerr("lbsim: check of several scenarios prints each one's table and checks: give "
               "--json a file\n");
    return LB_EXIT_INPUT;
  }
  /* --json DIR/: a file a scenario, DIR/NAME.json, as --baseline DIR/ */
  gboolean json_each = a->json != NULL && names_folder(a->json);
  if (a->json != NULL && !json_each && !lb_output_check("--json", a->json, &error)) {
    lb_command_error(error);
    return LB_EXIT_INPUT;
  }
  LbScenarioOverrides ov = overrides_of(a, ranks);
  g_autoptr(GPtrArray) scenarios = g_ptr_array_new_with_free_func((GDestroyNotify)lb_scenario_free);
  for (guint i = 0; files[i] != NULL; i++) {
    LbScenario *sc = lb_scenario_load(files[i], &ov, &error);
    if (sc == NULL) {
      lb_command_error(error);
      return LB_EXIT_INPUT;
    }
    g_ptr_array_add(scenarios, sc);
  }
  /* a folder keeps one file a name */
  g_autoptr(GHashTable) names = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint i = 0; (json_each || a->baseline != NULL) && i < scenarios->len; i++) {
    const char *name = ((const LbScenario *)scenarios->pdata[i])->name;
    if (!g_hash_table_add(names, (gpointer)name)) {
      g_printerr("lbsim: %s and another scenario are both named '%s': %s DIR/ keeps one "
                 "NAME.json a scenario\n",
                 files[i], name, json_each ? "--json" : "--baseline");
      return LB_EXIT_INPUT;
    }
  }
  g_autoptr(GPtrArray) json_files = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; json_each && i < scenarios->len; i++) {
    char *file = scenario_path(a->json, scenarios->pdata[i]);
    g_ptr_array_add(json_files, file);
    if (!lb_output_check("--json", file, &error)) {
      lb_command_error(error);
      return LB_EXIT_INPUT;
    }
  }
  /* each scenario's runs and checks kept for the one JSON at the end */
  RunArgs one = *a;
  one.json = NULL;
  g_autoptr(GArray) kept = g_array_new(FALSE, TRUE, sizeof(Checked));
  g_array_set_clear_func(kept, checked_clear);
  g_array_set_size(kept, scenarios->len);
  int worst = 0;
  gboolean keep = (a->json != NULL && !json_each) || a->junit != NULL || tap_fd >= 0;
  for (guint i = 0; i < scenarios->len; i++) {
    if (!lb_output_stdout(i > 0 ? "\n== " : "== ") || !lb_output_stdout(files[i]) ||
        !lb_output_stdout("\n"))
      return MAX(worst, 1);
    one.json = json_each ? json_files->pdata[i] : NULL;
    int code = run_one(&one, scenarios->pdata[i], &ov, TRUE, jobs,
                       keep ? &g_array_index(kept, Checked, i) : NULL);
    if (code > 128)
      return code; /* interrupted: said once */
    worst = MAX(worst, code);
  }
  if ((a->junit != NULL || tap_fd >= 0) &&
      !write_test_reports(a, scenarios, (const Checked *)kept->data, tap_fd))
    worst = MAX(worst, 1);
  if (a->json == NULL || json_each)
    return worst;
  /* the scenarios that ran, in order; one whose runs failed has none */
  g_autoptr(GPtrArray) sc = g_ptr_array_new();
  g_autoptr(GPtrArray) runs = g_ptr_array_new();
  g_autoptr(GPtrArray) checks = g_ptr_array_new();
  g_autoptr(GArray) counts = g_array_new(FALSE, FALSE, sizeof(guint));
  for (guint i = 0; i < scenarios->len; i++) {
    const Checked *c = &g_array_index(kept, Checked, i);
    if (c->runs == NULL) {
      g_printerr("lbsim: --json: %s is not in it (its runs failed)\n", files[i]);
      continue;
    }
    g_ptr_array_add(sc, scenarios->pdata[i]);
    g_ptr_array_add(runs, c->runs);
    g_ptr_array_add(checks, c->outcomes->data);
    g_array_append_val(counts, c->outcomes->len);
  }
  g_autofree char *doc = lb_report_check_documents(
      (const LbScenario *const *)sc->pdata, (GPtrArray *const *)runs->pdata,
      (const LbExpectOutcome *const *)checks->pdata, (const guint *)counts->data, sc->len);
  if (!lb_output_write(a->json, doc, -1, &error)) {
    lb_command_error(error);
    return MAX(worst, 1);
  }
  return worst;
}

static int
run_or_check(const LbCommand *self, int argc, char **argv, gboolean check)
{
  lb_signals_alone();
  g_auto(RunArgs) a = {0};
  GOptionEntry entries[RUN_OPTIONS];
  g_autoptr(GOptionContext) ctx = run_context(self, &a, entries);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) args = lb_cli_parse(ctx, entries, argc, argv, &error);
  if (args == NULL) {
    lb_command_error(error);
    return LB_EXIT_INPUT;
  }
  guint nargs = g_strv_length(args);
  if (nargs < 2 || (!check && nargs != 2)) {
    g_printerr("lbsim: %s needs %s (see lbsim %s --help)\n", check ? "check" : "run",
               check ? "one scenario file or more" : "exactly one scenario file",
               check ? "check" : "run");
    return LB_EXIT_INPUT;
  }
  guint ranks = 0, jobs = 0;
  if ((a.ranks != NULL && !lb_runner_parse_count("--ranks", a.ranks, &ranks, &error)) ||
      (a.jobs != NULL && !lb_runner_parse_count("--jobs", a.jobs, &jobs, &error))) {
    lb_command_error(error);
    return LB_EXIT_INPUT;
  }
  if (a.chart_scale != NULL &&
      (a.report == NULL || !lb_plot_value_scale_parse(a.chart_scale, &a.scale))) {
    g_printerr(a.report == NULL
                   ? "lbsim: --chart-scale %s: the charts are --report's: add --report DIR\n"
                   : "lbsim: --chart-scale %s: expected auto, linear or log\n",
               a.chart_scale);
    return LB_EXIT_INPUT;
  }
  if (a.tap && (g_strcmp0(a.json, "-") == 0 || g_strcmp0(a.csv, "-") == 0 ||
                g_strcmp0(a.long_csv, "-") == 0)) {
    g_printerr("lbsim: --tap writes standard output: give --json, --csv or --long-csv a file\n");
    return LB_EXIT_INPUT;
  }
  if (a.junit != NULL && !lb_output_check("--junit", a.junit, &error)) {
    lb_command_error(error);
    return LB_EXIT_INPUT;
  }
  if ((a.update_baseline || a.tolerances != NULL) && a.baseline == NULL) {
    g_printerr("lbsim: --update-baseline and --tolerance go with --baseline FILE|DIR\n");
    return LB_EXIT_INPUT;
  }
  for (guint i = 0; a.tolerances != NULL && a.tolerances[i] != NULL; i++) {
    LbTolerance *t = lb_tolerance_parse(a.tolerances[i], &error);
    if (t == NULL) {
      lb_command_error(error);
      return LB_EXIT_INPUT;
    }
    lb_tolerance_free(t);
  }
  if (a.baseline != NULL && nargs > 2 && !names_folder(a.baseline)) {
    g_printerr("lbsim: --baseline %s: several scenarios need a folder (a NAME.json each)\n",
               a.baseline);
    return LB_EXIT_INPUT;
  }
  /* TAP alone on standard output: the tables and lines go to standard error */
  int tap_fd = a.tap ? lb_cli_tap_begin() : -1;
  if (a.tap && tap_fd < 0)
    return 1;
  if (check && nargs > 2)
    return check_many(&a, args + 1, ranks, jobs, tap_fd);
  LbScenarioOverrides ov = overrides_of(&a, ranks);
  g_autoptr(LbScenario) sc = lb_scenario_load(args[1], &ov, &error);
  if (sc == NULL) {
    lb_command_error(error);
    return LB_EXIT_INPUT;
  }
  if (check && a.json != NULL && names_folder(a.json)) {
    char *file = scenario_path(a.json, sc);
    g_free(a.json);
    a.json = file;
  }
  if (!check || (a.junit == NULL && tap_fd < 0 && a.baseline == NULL))
    return run_one(&a, sc, &ov, check, jobs, NULL);
  g_auto(Checked) kept = {0};
  int code = run_one(&a, sc, &ov, check, jobs, &kept);
  if (code <= 128 && (a.junit != NULL || tap_fd >= 0)) {
    g_autoptr(GPtrArray) scenarios = g_ptr_array_new();
    g_ptr_array_add(scenarios, sc);
    if (!write_test_reports(&a, scenarios, &kept, tap_fd))
      code = MAX(code, 1);
  }
  return code;
}

/* outcomes: lbsim check's, kept in the JSON; NULL for lbsim run */
static gboolean
write_results(const RunArgs *a, const LbScenario *sc, GPtrArray *runs, const GArray *outcomes,
              const OutputPlan *plan, GError **error)
{
  if (!place_outputs(a, sc, plan, error))
    return FALSE;
  g_autofree char *doc = a->json == NULL && a->report == NULL ? NULL
                         : outcomes != NULL
                             ? lb_report_document_checked(
                                   sc, runs, (const LbExpectOutcome *)outcomes->data, outcomes->len)
                             : lb_report_document(sc, runs);
  if (a->json != NULL && strcmp(a->json, "-") == 0 && !lb_output_stdout(doc))
    return TRUE; /* said at exit */
  if (a->json != NULL && strcmp(a->json, "-") != 0 && !lb_output_write(a->json, doc, -1, error))
    return FALSE;
  if (a->report != NULL) {
    if (plan->make_report && !lb_output_make_folder("--report", a->report, error))
      return FALSE;
    g_autoptr(LbResults) page = lb_results_read(doc, strlen(doc), "the run's JSON", error);
    g_assert(page != NULL); /* lbsim's own JSON */
    LbHtmlOptions options = {.json = doc,
                             .length = strlen(doc),
                             .dir = a->report,
                             .pictures_dir = plan->pictures,
                             .chart_scale = a->scale,
                             .chart_formats = plan->chart_formats,
                             .look = plan->picture.look};
    if (!lb_html_write(page, &options, error))
      return FALSE;
  }
  if (a->csv != NULL) {
    g_autofree char *csv = lb_report_csv(runs);
    if (strcmp(a->csv, "-") == 0)
      lb_output_stdout(csv);
    else if (!lb_output_write(a->csv, csv, -1, error))
      return FALSE;
  }
  if (a->long_csv != NULL) {
    g_autofree char *csv = lb_report_long_csv(sc->name, sc->seed, runs);
    if (strcmp(a->long_csv, "-") == 0)
      lb_output_stdout(csv);
    else if (!lb_output_write(a->long_csv, csv, -1, error))
      return FALSE;
  }
  /* every run has succeeded: the pictures of all runs go straight to
   * their folder (made above), drawn last as before */
  return a->pictures == NULL ||
         (lb_pictures_imbalance(&plan->picture, sc->name, runs, error) &&
          (!lb_pictures_has_idle(runs) || lb_pictures_idle(&plan->picture, sc->name, runs, error)));
}

/* check --baseline: writes the runs' result there (--update-baseline), or
 * holds them to it, printing what differs (*rows: the differences). 0
 * all within their tolerance, 1 one moved, LB_EXIT_INPUT said. */
static int
hold_baseline(const RunArgs *a, const LbScenario *sc, GPtrArray *runs, GPtrArray **rows)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = scenario_path(a->baseline, sc);
  g_autofree char *doc = lb_report_document(sc, runs);
  if (a->update_baseline) {
    if (!lb_output_write(path, doc, -1, &error)) {
      lb_command_error(error);
      return LB_EXIT_INPUT;
    }
    g_print("baseline written: %s\n", path);
    return 0;
  }
  g_autofree char *base = NULL;
  gsize length = 0;
  if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
    g_printerr("lbsim: --baseline %s: no such file (write it with --update-baseline)\n", path);
    return LB_EXIT_INPUT;
  }
  if (!lb_input_read(path, LB_INPUT_RESULT, &base, &length, &error)) {
    lb_command_error(error);
    return LB_EXIT_INPUT;
  }
  g_autoptr(GPtrArray) tolerances =
      g_ptr_array_new_with_free_func((GDestroyNotify)lb_tolerance_free);
  for (guint i = 0; a->tolerances != NULL && a->tolerances[i] != NULL; i++) {
    LbTolerance *t = lb_tolerance_parse(a->tolerances[i], &error);
    g_assert(t != NULL); /* checked before the runs */
    g_ptr_array_add(tolerances, t);
  }
  LbDiffOptions options = {tolerances, NULL};
  guint compared = 0;
  *rows = lb_diff_documents(base, length, path, doc, strlen(doc), "this run", &options, &compared,
                            &error);
  if (*rows == NULL) {
    g_printerr("lbsim: --baseline: %s\n", error->message);
    return LB_EXIT_INPUT;
  }
  gboolean moved = FALSE;
  for (guint i = 0; i < (*rows)->len; i++)
    moved |= ((const LbDiffRow *)(*rows)->pdata[i])->moved;
  g_autofree char *table = lb_diff_table(*rows, compared);
  g_print("\nagainst the baseline %s (A) as lbsim diff holds it:\n%s", path, table);
  return moved ? 1 : 0;
}

static int
run_one(const RunArgs *a, const LbScenario *sc, const LbScenarioOverrides *ov, gboolean check,
        guint jobs, Checked *keep)
{
  g_autoptr(GError) error = NULL;
  if (a->no_fork && sc->runs->len != 1) {
    g_printerr("lbsim: --no-fork runs one balancer: add --balancer NAME\n");
    return LB_EXIT_INPUT;
  }
  if (a->explain_html != NULL && sc->runs->len != 1) {
    g_printerr("lbsim: --explain-html plays one balancer: add --balancer NAME\n");
    return LB_EXIT_INPUT;
  }
  gboolean make_lesson = FALSE;
  if (a->explain_html != NULL &&
      !lb_output_check_folder("--explain-html", a->explain_html, &make_lesson, &error)) {
    lb_command_error(error);
    return LB_EXIT_INPUT;
  }
  g_auto(OutputPlan) plan = {0};
  if (!plan_outputs(a, sc, &plan, &error)) {
    lb_command_error(error);
    return LB_EXIT_INPUT;
  }
  LbRunnerOptions ro = {0};
  ro.in_process = a->no_fork;
  ro.jobs = jobs > 0 ? jobs : (guint)g_get_num_processors();
  ro.quiet = a->quiet;
  ro.run.detail = a->detail || a->explain_html != NULL;
  ro.run.narrate = a->explain_html != NULL;
  ro.run.message_trace = a->message_trace != NULL ? plan.staged_trace : NULL;
  ro.run.paje_trace = a->paje != NULL ? plan.staged_paje : NULL;
  ro.run.paje_links = a->paje_links;
  if (plan.pictures != NULL) {
    ro.run.at_end = lb_pictures_of_run;
    ro.run.at_end_data = &plan.staged;
    ro.run.keep_before = TRUE;
    ro.run.keep_chunks = TRUE;
  }
  ro.run.cfg = (const char *const *)a->cfg;
  ro.run.log = (const char *const *)a->log;
  ro.run.verbose = a->verbose;
  ro.run.progress = !a->quiet && isatty(STDERR_FILENO);
  g_autoptr(GPtrArray) runs = NULL;
  int code = 0;
  gint64 start = g_get_monotonic_time();
  if (!lb_runner_run(sc, ov, &ro, &runs, &code, &error)) {
    if (keep != NULL) {
      keep->seconds = (double)(g_get_monotonic_time() - start) / G_USEC_PER_SEC;
      keep->error = g_strdup(error->message);
    }
    lb_command_error(error);
    return code;
  }
  g_autoptr(GArray) outcomes = check ? lb_expect_outcomes(sc, runs) : NULL;
  if (!write_results(a, sc, runs, outcomes, &plan, &error)) {
    lb_command_error(error);
    return 1;
  }
  if (a->explain_html != NULL && !lb_lesson_write(sc, sc->runs->pdata[0], runs->pdata[0],
                                                  sc->platform, NULL, a->explain_html, &error)) {
    lb_command_error(error);
    return 1;
  }
  gboolean json_on_stdout = g_strcmp0(a->json, "-") == 0 || g_strcmp0(a->csv, "-") == 0 ||
                            g_strcmp0(a->long_csv, "-") == 0;
  if (!json_on_stdout) {
    g_autofree char *table = lb_report_table(runs);
    g_autofree char *phases = lb_report_phases(runs);
    g_autoptr(GString) starts = g_string_new(NULL);
    for (guint i = 0; i < runs->len; i++) {
      const LbRunResult *r = runs->pdata[i];
      g_string_append_printf(starts, "%s%s from %s%s%s%s", i ? "; " : "", r->balancer, r->start,
                             r->view != NULL ? " (on the " : "", r->view != NULL ? r->view : "",
                             r->view != NULL ? ")" : "");
    }
    g_print("%s: %u ranks on %s, %s of %" G_GUINT64_FORMAT " units, %u adaptation step%s\n"
            "starting distribution: %s\n\n%s\n%s",
            sc->name, sc->ranks, sc->platform, sc->work->model->name, sc->elements,
            sc->nadaptations, sc->nadaptations == 1 ? "" : "s", starts->str, table, phases);
  }
  if (!check)
    return 0;
  g_print("\n");
  int failed = lb_expect_print(sc, outcomes);
  if (a->baseline != NULL) {
    g_autoptr(GPtrArray) rows = NULL;
    int held = hold_baseline(a, sc, runs, &rows);
    if (held == LB_EXIT_INPUT)
      return LB_EXIT_INPUT;
    failed = MAX(failed, held);
    if (keep != NULL)
      keep->baseline = g_steal_pointer(&rows);
  }
  if (keep != NULL) {
    keep->seconds = (double)(g_get_monotonic_time() - start) / G_USEC_PER_SEC;
    keep->runs = g_steal_pointer(&runs);
    keep->outcomes = g_steal_pointer(&outcomes);
  }
  return failed;
}

int
lb_cmd_run(const LbCommand *self, int argc, char **argv)
{
  return run_or_check(self, argc, argv, FALSE);
}

int
lb_cmd_check(const LbCommand *self, int argc, char **argv)
{
  return run_or_check(self, argc, argv, TRUE);
}
