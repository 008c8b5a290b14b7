/* lbsim: run load balancers on modeled machines and compare them. */
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "balancers/dls/chunks.h"
#include "balancers/sfc/curve.h"
#include "cli/explain.h"
#include "cli/report-page.h"
#include "cli/runner.h"
#include "cli/signals.h"
#include "cli/job.h"
#include "cli/options.h"
#include "cli/sweep.h"
#include "lbsim/balancer.h"
#include "lbsim/scenario.h"
#include "io/input.h"
#include "io/output.h"
#include "report/html.h"
#include "report/pictures.h"
#include "report/report.h"

#define EXIT_INPUT 2

static const char usage_text[] =
    "Usage: lbsim COMMAND [OPTIONS]\n"
    "\n"
    "Simulates parallel load balancers as message-passing code on a SimGrid\n"
    "platform and reports how well and at what cost each one balanced.\n"
    "\n"
    "Commands:\n"
    "  run FILE       run the scenario's balancers, print a table (and JSON/CSV)\n"
    "  check FILE     run, then check the scenario's [expect] lines (exit 1 if one fails)\n"
    "  report JSON DIR  an HTML page of a run's or a sweep's JSON (as run --report DIR)\n"
    "  list [NAME]    balancers, their parameters, defaults and ranges\n"
    "  explain NAME [FILE | --loads L0,L1,...]  narrate every phase and decision of a\n"
    "                 balancer on a small case (--loads: those 1D array elements)\n"
    "  curve NAME --order K [--dim D]  the cells of a grid of 2^K per axis in the order\n"
    "                 a space-filling curve (hilbert or morton) visits them\n"
    "  chunks TECHNIQUE --iterations N --workers P  the chunk sizes a loop scheduling\n"
    "                 technique (stat, ss, fsc, gss, tss, fac, wf, awf, af) hands out\n"
    "  sweep FILE --vary NAME=LIST ...  run the scenario at every point of a cross\n"
    "                 product of key values (resumable; JSON and CSV as runs finish)\n"
    "  sweep FILE ... --emit-jobs JOBS  write one command per run instead, for a cluster\n"
    "  merge DIR      gather a sweep's results (run elsewhere) into its JSON and CSV\n"
    "  run-job JOB RESULT   run one job file (one balancer of a scenario) and write its\n"
    "                 typed result: the child side of run and sweep, for clusters\n"
    "  help [COMMAND] this text, or a command's options\n"
    "\n"
    "Options: --help, --version. See README.md for scenario files and the JSON format.\n";

typedef struct {
  char *ranks;
  char *platform;
  char *balancer;
  char **sets;
  char *json;
  char *csv;
  gboolean detail;
  char *jobs;
  gboolean quiet;
  gboolean no_fork;
  char *message_trace;
  char *paje;
  char *pictures;
  char *report;
  gboolean force;
  char **cfg;
  char **log;
  gboolean verbose;
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
  g_free(a->message_trace);
  g_free(a->paje);
  g_free(a->pictures);
  g_free(a->report);
  g_strfreev(a->cfg);
  g_strfreev(a->log);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(RunArgs, run_args_clear)

/* run's and check's options, with the closing NULL entry */
#define RUN_OPTIONS 19

static GOptionContext *
run_context(const char *command, RunArgs *a, GOptionEntry *out)
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
       "Write SimGrid's Paje trace (several balancers: FILE.BALANCER each)", "FILE"},
      {"pictures", 0, 0, G_OPTION_ARG_FILENAME, &a->pictures,
       "Draw each run's final partition and the scenario's imbalance per step, as PNG and SVG, "
       "in DIR (made if missing)",
       "DIR"},
      {"report", 0, 0, G_OPTION_ARG_FILENAME, &a->report,
       "Write an HTML report in DIR (made if missing): index.html with the summary, the "
       "partitions, imbalance per step and time per phase, each chart's numbers as CSV beside it",
       "DIR"},
      {"force", 0, 0, G_OPTION_ARG_NONE, &a->force,
       "With --report: replace a report of another scenario (or not made by lbsim) in DIR", NULL},
      {"cfg", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->cfg, "Pass a SimGrid --cfg setting",
       "KEY:VALUE"},
      {"log", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->log,
       "Pass a SimGrid --log setting, e.g. lb_mlb.thres:debug", "SETTING"},
      {"verbose", 'v', 0, G_OPTION_ARG_NONE, &a->verbose,
       "Show SimGrid's messages and lbsim's per-step log (simulated time stamps)", NULL},
      {NULL},
  };
  G_STATIC_ASSERT(G_N_ELEMENTS(entries) == RUN_OPTIONS);
  memcpy(out, entries, sizeof entries);
  g_autofree char *param = g_strdup_printf("%s SCENARIO.ini%s", command,
                                           strcmp(command, "check") == 0 ? " [MORE.ini ...]" : "");
  GOptionContext *ctx = g_option_context_new(param);
  g_option_context_add_main_entries(ctx, out, NULL);
  g_option_context_set_summary(
      ctx, strcmp(command, "check") == 0
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
picture_files(const char *dir, const LbScenario *sc, gboolean summary)
{
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; i < sc->runs->len; i++) {
    const LbBalancerRun *run = sc->runs->pdata[i];
    const LbModel *model = run->work->model;
    if (model->total_units != NULL && model->grids == NULL && model->leaves == NULL)
      continue;
    g_autofree char *what = g_strdup_printf("%s.%s", run->label,
                                            model->grids != NULL    ? "grids"
                                            : model->leaves != NULL ? "curve"
                                                                    : "partition");
    g_ptr_array_add(names, lb_pictures_file(dir, sc->name, what, "png"));
    g_ptr_array_add(names, lb_pictures_file(dir, sc->name, what, "svg"));
  }
  if (!summary)
    return names;
  g_ptr_array_add(names, lb_pictures_file(dir, sc->name, "imbalance", "png"));
  g_ptr_array_add(names, lb_pictures_file(dir, sc->name, "imbalance", "svg"));
  gboolean idle = FALSE;
  for (guint i = 0; i < sc->runs->len; i++) {
    const LbBalancer *b = ((const LbBalancerRun *)sc->runs->pdata[i])->balancer;
    for (const LbMetricSpec *m = b->metrics; m != NULL && m->name != NULL; m++)
      idle |= strcmp(m->name, "idle-procs") == 0;
  }
  if (idle) {
    g_ptr_array_add(names, lb_pictures_file(dir, sc->name, "idle", "png"));
    g_ptr_array_add(names, lb_pictures_file(dir, sc->name, "idle", "svg"));
  }
  return names;
}

/* Where a run's files go: decided, and every one checked, before the run
 * starts. Files that runs write (traces, pictures) are made in a private
 * folder and put in place only once every run has succeeded, so an
 * interrupted or failed run leaves the user's files as they were. */
typedef struct {
  gboolean make_pictures, make_report;
  const char *pictures; /* the user's pictures folder: --pictures, or --report's */
  char *staging;        /* the private folder, or NULL */
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
    lb_signals_forget(plan->staging);
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

/* Every file the run will read and write, checked before it starts: a
 * bad path is bad input, not an hour of simulation thrown away, and no
 * output may be an input or another output. */
static gboolean
plan_outputs(const RunArgs *a, const LbScenario *sc, OutputPlan *plan, GError **error)
{
  g_autoptr(LbFileSet) set = lb_file_set_new();
  lb_file_set_input(set, "the scenario", sc->file);
  lb_file_set_input(set, "the platform", sc->platform);
  const GArray *read = lb_input_files();
  for (guint i = 0; i < read->len; i++) {
    const LbInputFile *f = &g_array_index(read, LbInputFile, i);
    lb_file_set_input(set, lb_input_kind_name(f->kind), f->path);
  }
  if ((a->json != NULL && !add_output(set, "--json", a->json, error)) ||
      (a->csv != NULL && !add_output(set, "--csv", a->csv, error)))
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
      g_autofree char *name = lb_runner_trace_name(traces[t][1], run->label, sc->runs->len);
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
  if (a->pictures != NULL &&
      !lb_output_check_folder("--pictures", a->pictures, &plan->make_pictures, error))
    return FALSE;
  if (plan->pictures != NULL) {
    const char *option = a->pictures != NULL ? "--pictures" : "--report";
    gboolean exists = a->pictures != NULL ? !plan->make_pictures : !plan->make_report;
    g_autoptr(GPtrArray) names = picture_files(plan->pictures, sc, a->pictures != NULL);
    for (guint i = 0; i < names->len; i++)
      if ((exists && !lb_output_check(option, names->pdata[i], error)) ||
          !lb_file_set_output(set, option, names->pdata[i], error))
        return FALSE;
  }
  if (a->paje == NULL && a->message_trace == NULL && plan->pictures == NULL)
    return TRUE;
  plan->staging = lb_signals_make_dir("lbsim-out-XXXXXX", error);
  if (plan->staging == NULL)
    return FALSE;
  plan->staged_paje = g_build_filename(plan->staging, "paje", NULL);
  plan->staged_trace = g_build_filename(plan->staging, "trace", NULL);
  plan->staged_pictures = g_build_filename(plan->staging, "pictures", NULL);
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
      g_autofree char *from = lb_runner_trace_name(traces[t][1], run->label, sc->runs->len);
      g_autofree char *to = lb_runner_trace_name(traces[t][0], run->label, sc->runs->len);
      if (!lb_output_move(from, to, error))
        return FALSE;
    }
  }
  if (plan->pictures == NULL)
    return TRUE;
  if ((plan->make_pictures && !lb_output_make_folder("--pictures", plan->pictures, error)) ||
      (plan->make_report && a->pictures == NULL &&
       !lb_output_make_folder("--report", plan->pictures, error)))
    return FALSE;
  g_autoptr(GPtrArray) staged = picture_files(plan->staged_pictures, sc, a->pictures != NULL);
  g_autoptr(GPtrArray) names = picture_files(plan->pictures, sc, a->pictures != NULL);
  for (guint i = 0; i < names->len; i++)
    if (g_file_test(staged->pdata[i], G_FILE_TEST_EXISTS) &&
        !lb_output_move(staged->pdata[i], names->pdata[i], error))
      return FALSE;
  return TRUE;
}

static void
print_error(const GError *error)
{
  g_printerr("lbsim: %s\n", error->message);
}

static int
check_expectations(const LbScenario *sc, GPtrArray *results)
{
  int failed = 0;
  guint skipped = 0;
  for (guint i = 0; i < sc->expects->len; i++) {
    const LbExpect *e = sc->expects->pdata[i];
    const LbRunResult *run = NULL;
    for (guint r = 0; r < results->len; r++) {
      const LbRunResult *x = results->pdata[r];
      if (strcmp(x->balancer, e->balancer) == 0)
        run = x;
    }
    double actual = 0;
    if (run == NULL) {
      g_print("SKIP  %s (balancer %s was not run)\n", e->text, e->balancer);
      skipped++;
      continue;
    }
    /* the scenario checker knows every metric name already */
    gboolean found = lb_run_result_lookup(run, e->metric, &actual);
    g_assert(found);
    gboolean ok = lb_expect_holds(e, actual);
    g_print("%s  %s (actual %.10g)\n", ok ? "PASS" : "FAIL", e->text, actual);
    failed += !ok;
  }
  if (skipped > 0)
    g_print("%u passed, %d failed, %u skipped\n", sc->expects->len - failed - skipped, failed,
            skipped);
  else
    g_print("%u passed, %d failed\n", sc->expects->len - failed, failed);
  return failed > 0 ? 1 : 0;
}

static int run_one(const RunArgs *a, const LbScenario *sc, const LbScenarioOverrides *ov,
                   gboolean check, guint jobs);

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
check_many(RunArgs *a, char **files, guint ranks, guint jobs)
{
  if (a->json != NULL || a->csv != NULL || a->pictures != NULL || a->report != NULL ||
      a->paje != NULL || a->message_trace != NULL) {
    g_printerr("lbsim: check of several scenarios writes no files: give one scenario with "
               "--json, --csv, --pictures, --report, --paje or --message-trace\n");
    return EXIT_INPUT;
  }
  LbScenarioOverrides ov = overrides_of(a, ranks);
  g_autoptr(GPtrArray) scenarios = g_ptr_array_new_with_free_func((GDestroyNotify)lb_scenario_free);
  for (guint i = 0; files[i] != NULL; i++) {
    g_autoptr(GError) error = NULL;
    LbScenario *sc = lb_scenario_load(files[i], &ov, &error);
    if (sc == NULL) {
      print_error(error);
      return EXIT_INPUT;
    }
    g_ptr_array_add(scenarios, sc);
  }
  int worst = 0;
  for (guint i = 0; i < scenarios->len; i++) {
    if (!lb_output_stdout(i > 0 ? "\n== " : "== ") || !lb_output_stdout(files[i]) ||
        !lb_output_stdout("\n"))
      return MAX(worst, 1);
    int code = run_one(a, scenarios->pdata[i], &ov, TRUE, jobs);
    if (code > 128)
      return code; /* interrupted: said once */
    worst = MAX(worst, code);
  }
  return worst;
}

static int
cmd_run(int argc, char **argv, gboolean check)
{
  lb_signals_alone();
  g_auto(RunArgs) a = {0};
  GOptionEntry entries[RUN_OPTIONS];
  g_autoptr(GOptionContext) ctx = run_context(check ? "check" : "run", &a, entries);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) args = lb_cli_parse(ctx, entries, argc, argv, &error);
  if (args == NULL) {
    print_error(error);
    return EXIT_INPUT;
  }
  guint nargs = g_strv_length(args);
  if (nargs < 2 || (!check && nargs != 2)) {
    g_printerr("lbsim: %s needs %s (see lbsim %s --help)\n", check ? "check" : "run",
               check ? "one scenario file or more" : "exactly one scenario file",
               check ? "check" : "run");
    return EXIT_INPUT;
  }
  guint ranks = 0, jobs = 0;
  if ((a.ranks != NULL && !lb_runner_parse_count("--ranks", a.ranks, &ranks, &error)) ||
      (a.jobs != NULL && !lb_runner_parse_count("--jobs", a.jobs, &jobs, &error))) {
    print_error(error);
    return EXIT_INPUT;
  }
  if (check && nargs > 2)
    return check_many(&a, args + 1, ranks, jobs);
  LbScenarioOverrides ov = overrides_of(&a, ranks);
  g_autoptr(LbScenario) sc = lb_scenario_load(args[1], &ov, &error);
  if (sc == NULL) {
    print_error(error);
    return EXIT_INPUT;
  }
  return run_one(&a, sc, &ov, check, jobs);
}

static gboolean
write_results(const RunArgs *a, const LbScenario *sc, GPtrArray *runs, const OutputPlan *plan,
              GError **error)
{
  if (!place_outputs(a, sc, plan, error))
    return FALSE;
  g_autofree char *doc = a->json != NULL || a->report != NULL ? lb_report_document(sc, runs) : NULL;
  if (a->json != NULL && strcmp(a->json, "-") == 0 && !lb_output_stdout(doc))
    return TRUE; /* said at exit */
  if (a->json != NULL && strcmp(a->json, "-") != 0 && !lb_output_write(a->json, doc, -1, error))
    return FALSE;
  if (a->report != NULL) {
    if (plan->make_report && !lb_output_make_folder("--report", a->report, error))
      return FALSE;
    g_autoptr(LbHtmlDoc) page = lb_html_doc_parse(doc, strlen(doc), "the run's JSON", error);
    g_assert(page != NULL); /* lbsim's own JSON */
    LbHtmlOptions options = {.dir = a->report, .pictures_dir = plan->pictures};
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
  return TRUE;
}

static int
run_one(const RunArgs *a, const LbScenario *sc, const LbScenarioOverrides *ov, gboolean check,
        guint jobs)
{
  g_autoptr(GError) error = NULL;
  if (a->no_fork && sc->runs->len != 1) {
    g_printerr("lbsim: --no-fork runs one balancer: add --balancer NAME\n");
    return EXIT_INPUT;
  }
  g_auto(OutputPlan) plan = {0};
  if (!plan_outputs(a, sc, &plan, &error)) {
    print_error(error);
    return EXIT_INPUT;
  }
  LbRunnerOptions ro = {0};
  ro.in_process = a->no_fork;
  ro.jobs = jobs > 0 ? jobs : (guint)g_get_num_processors();
  ro.quiet = a->quiet;
  ro.run.detail = a->detail;
  ro.run.message_trace = a->message_trace != NULL ? plan.staged_trace : NULL;
  ro.run.paje_trace = a->paje != NULL ? plan.staged_paje : NULL;
  ro.run.pictures_dir = plan.pictures != NULL ? plan.staged_pictures : NULL;
  ro.run.cfg = (const char *const *)a->cfg;
  ro.run.log = (const char *const *)a->log;
  ro.run.verbose = a->verbose;
  ro.run.progress = !a->quiet && isatty(STDERR_FILENO);
  g_autoptr(GPtrArray) runs = NULL;
  int code = 0;
  if (!lb_runner_run(sc, ov, &ro, &runs, &code, &error)) {
    print_error(error);
    return code;
  }
  if (a->pictures != NULL &&
      (!lb_pictures_imbalance(plan.staged_pictures, sc->name, runs, &error) ||
       (lb_pictures_has_idle(runs) &&
        !lb_pictures_idle(plan.staged_pictures, sc->name, runs, &error)))) {
    print_error(error);
    return 1;
  }
  if (!write_results(a, sc, runs, &plan, &error)) {
    print_error(error);
    return 1;
  }
  gboolean json_on_stdout = g_strcmp0(a->json, "-") == 0 || g_strcmp0(a->csv, "-") == 0;
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
            sc->name, sc->ranks, sc->platform, sc->work->model->name, lb_work_total_units(sc->work),
            sc->nadaptations, sc->nadaptations == 1 ? "" : "s", starts->str, table, phases);
  }
  if (check) {
    g_print("\n");
    return check_expectations(sc, runs);
  }
  return 0;
}

static void
print_params(const LbParamSpec *spec, const char *indent)
{
  for (const LbParamSpec *s = spec; s->name != NULL; s++) {
    g_autofree char *type = lb_param_spec_describe_type(s);
    g_print("%s%-18s %s (default: %s)\n%s%-18s   %s\n", indent, s->name, type,
            s->default_value != NULL ? s->default_value : "none", indent, "", s->help);
  }
}

static void
print_markdown_table(const char *title, const LbParamSpec *spec)
{
  g_print("%s\n\n| key | values | default | meaning |\n|---|---|---|---|\n", title);
  for (const LbParamSpec *s = spec; s->name != NULL; s++) {
    g_autofree char *described = lb_param_spec_describe_type(s);
    g_auto(GStrv) parts = g_strsplit(described, "|", -1);
    g_autofree char *type = g_strjoinv("\\|", parts);
    g_print("| `%s` | %s | %s | %s |\n", s->name, type,
            s->default_value != NULL ? s->default_value : "-", s->help);
  }
  g_print("\n");
}

/* The README's key tables come from here, so they cannot drift. */
static int
list_markdown(void)
{
  print_markdown_table("`[scenario]`", lb_scenario_params());
  for (const LbModel *const *m = lb_models(); *m != NULL; m++) {
    g_autofree char *title =
        g_strdup_printf("`[workload]` with `model = %s`: %s", (*m)->name, (*m)->summary);
    print_markdown_table(title, lb_model_param_spec(*m));
  }
  for (const LbBalancer *const *b = lb_balancers(); *b != NULL; b++) {
    g_autofree char *models = g_strjoinv(", ", (char **)(*b)->models);
    g_autofree char *title =
        g_strdup_printf("`[%s]`: %s (models: %s)", (*b)->name, (*b)->summary, models);
    if ((*b)->params[0].name != NULL)
      print_markdown_table(title, (*b)->params);
    else
      g_print("%s\n\nNo parameters.\n\n", title);
    g_autoptr(GArray) defs = lb_balancer_metric_defs(*b);
    g_print("Metrics of `%s` (for `[expect]`, CSV and the JSON `metrics` objects):\n\n"
            "| metric | unit | over steps | meaning |\n|---|---|---|---|\n",
            (*b)->name);
    for (guint i = 0; i < defs->len; i++) {
      const LbMetricDef *d = &g_array_index(defs, LbMetricDef, i);
      g_print("| `%s` | %s | %s | %s |\n", d->name, d->unit, lb_aggregate_name(d->aggregate),
              d->help);
    }
    g_print("\n");
  }
  return 0;
}

static int
cmd_list(int argc, char **argv)
{
  if (argc == 2 && strcmp(argv[1], "--markdown") == 0)
    return list_markdown();
  if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    g_print("Usage: lbsim list [BALANCER | --markdown]\n\nLists the balancers with their "
            "parameters (name, type and "
            "range, default, meaning),\nthen the keys of [scenario] and [workload].\n");
    return 0;
  }
  if (argc > 2) {
    g_printerr("lbsim: list takes at most one balancer name\n");
    return EXIT_INPUT;
  }
  if (argc == 2 && lb_balancer_lookup(argv[1]) == NULL) {
    g_printerr("lbsim: unknown balancer '%s' (lbsim list shows them)\n", argv[1]);
    return EXIT_INPUT;
  }
  for (const LbBalancer *const *b = lb_balancers(); *b != NULL; b++) {
    if (argc == 2 && strcmp((*b)->name, argv[1]) != 0)
      continue;
    g_print("%s: %s\n", (*b)->name, (*b)->summary);
    if ((*b)->cite != NULL)
      g_print("  source: %s\n", (*b)->cite);
    g_autofree char *models = g_strjoinv(", ", (char **)(*b)->models);
    g_print("  models: %s\n", models);
    if ((*b)->phases[0] != NULL) {
      g_autofree char *phases = g_strjoinv(", ", (char **)(*b)->phases);
      g_print("  phases: %s\n", phases);
    }
    g_autoptr(GArray) defs = lb_balancer_metric_defs(*b);
    g_autoptr(GString) metrics = g_string_new(NULL);
    for (guint i = 0; i < defs->len; i++)
      g_string_append_printf(metrics, "%s%s", i ? ", " : "",
                             g_array_index(defs, LbMetricDef, i).name);
    g_print("  metrics (besides the summary's): %s\n", metrics->str);
    if ((*b)->params[0].name != NULL) {
      g_print("  parameters ([%s] group):\n", (*b)->name);
      print_params((*b)->params, "    ");
    }
    g_print("\n");
  }
  if (argc == 1) {
    g_print("[scenario] keys:\n");
    print_params(lb_scenario_params(), "    ");
    for (const LbModel *const *m = lb_models(); *m != NULL; m++) {
      g_print("\n[workload] keys with model = %s (%s):\n", (*m)->name, (*m)->summary);
      print_params(lb_model_param_spec(*m), "    ");
    }
  }
  return 0;
}

/* The child side of `run`, for a job written down elsewhere. */
static int
cmd_run_job(int argc, char **argv)
{
  lb_signals_alone();
  if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    g_print("Usage: lbsim run-job JOB.ini RESULT.json\n\n"
            "Runs one job, one balancer of a scenario, and writes its typed result (for\n"
            "lbsim merge). A job file holds one [job] group, for example:\n\n"
            "  [job]\n"
            "  scenario = s.ini\n"
            "  balancer = mlb\n"
            "  ranks = 16\n"
            "  set1 = workload.size=128\n"
            "  set2 = workload.high=20\n\n"
            "scenario (a path from the current folder) and balancer are required; ranks,\n"
            "platform and set1, set2, ... are optional. Each setN holds one GROUP.KEY=VALUE,\n"
            "as --set of lbsim run, numbered from 1 without gaps. Any other group or key, a\n"
            "repeated one or a bad value is an error naming the line.\n"
            "Exit status: 0 done, 1 the result could not be written, 2 bad input, 3 a run\n"
            "broke an invariant.\n");
    return 0;
  }
  if (argc != 3) {
    g_printerr("lbsim: run-job needs a job file and a result file (see lbsim run-job --help)\n");
    return EXIT_INPUT;
  }
  g_autoptr(GError) error = NULL;
  g_autoptr(LbJob) job = lb_job_from_file(argv[1], &error);
  if (job == NULL) {
    print_error(error);
    return EXIT_INPUT;
  }
  g_autoptr(LbScenario) sc = lb_job_load(job, &error);
  if (sc == NULL) {
    print_error(error);
    return EXIT_INPUT;
  }
  g_autoptr(LbFileSet) files = lb_file_set_new();
  lb_file_set_input(files, "the job", argv[1]);
  lb_file_set_input(files, "the scenario", sc->file);
  lb_file_set_input(files, "the platform", sc->platform);
  const GArray *read = lb_input_files();
  for (guint i = 0; i < read->len; i++) {
    const LbInputFile *f = &g_array_index(read, LbInputFile, i);
    lb_file_set_input(files, lb_input_kind_name(f->kind), f->path);
  }
  if (!lb_output_check("the result", argv[2], &error) ||
      !lb_file_set_output(files, "the result", argv[2], &error)) {
    print_error(error);
    return EXIT_INPUT;
  }
  LbRunOptions options = {0};
  return lb_job_execute(job, sc, 0, &options, argv[2], NULL);
}

/* `lbsim curve` prints at most 2^CURVE_MAX_CELL_BITS cells. */
#define CURVE_MAX_CELL_BITS 24

/* Whole output lines go to stdout in large blocks: a curve of order 12
 * has 16 million cells. */
typedef struct {
  char data[1 << 16];
  gsize len;
  int failed; /* the errno of the first failed write, or 0 */
} OutBuffer;

static void
out_flush(OutBuffer *b)
{
  errno = 0;
  if (b->failed == 0 && b->len > 0 && fwrite(b->data, 1, b->len, stdout) != b->len)
    b->failed = errno != 0 ? errno : EIO;
  b->len = 0;
}

static void
out_text(OutBuffer *b, const char *text)
{
  gsize n = strlen(text);
  if (b->len + n > sizeof b->data)
    out_flush(b);
  memcpy(b->data + b->len, text, n);
  b->len += n;
}

static void
out_number(OutBuffer *b, guint64 v)
{
  char digits[20];
  guint n = 0;
  do {
    digits[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v > 0);
  if (b->len + n > sizeof b->data)
    out_flush(b);
  while (n > 0)
    b->data[b->len++] = digits[--n];
}

static int
cmd_curve(int argc, char **argv)
{
  g_autofree char *dim_text = NULL, *order_text = NULL;
  gboolean json = FALSE;
  GOptionEntry entries[] = {
      {"dim", 0, 0, G_OPTION_ARG_STRING, &dim_text, "Dimensions of the grid: 2 (default) or 3",
       "D"},
      {"order", 0, 0, G_OPTION_ARG_STRING, &order_text,
       "The grid has 2^K cells per axis: K from 1 to 12 in 2D, to 8 in 3D", "K"},
      {"json", 0, 0, G_OPTION_ARG_NONE, &json, "A JSON array of coordinate arrays instead", NULL},
      {NULL},
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new("hilbert|morton");
  g_option_context_add_main_entries(ctx, entries, NULL);
  g_option_context_set_summary(
      ctx, "Prints the cells of the 2^K x 2^K (x 2^K) grid in the order the curve visits them,\n"
           "one cell a line, its coordinates (axis 0 first) separated by spaces.\n"
           "Hilbert enters at the origin and leaves at (2^K - 1, 0[, 0]); Morton interleaves\n"
           "the coordinates' bits, axis 0 the lowest of each group. See README.md.\n"
           "Exit status: 0 done, 1 stdout could not be written, 2 bad input.");
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) parsed = lb_cli_parse(ctx, entries, argc, argv, &error);
  if (parsed == NULL) {
    print_error(error);
    return EXIT_INPUT;
  }
  argc = (int)g_strv_length(parsed);
  argv = parsed;
  LbCurveKind kind;
  if (argc != 2) {
    g_printerr("lbsim: curve needs one curve name, hilbert or morton (see lbsim curve --help)\n");
    return EXIT_INPUT;
  }
  if (!lb_curve_parse(argv[1], &kind)) {
    g_printerr("lbsim: unknown curve '%s' (hilbert or morton)\n", argv[1]);
    return EXIT_INPUT;
  }
  guint64 dim = 2, order = 0;
  if (dim_text != NULL && !g_ascii_string_to_unsigned(dim_text, 10, 2, 3, &dim, NULL)) {
    g_printerr("lbsim: --dim '%s': expected 2 or 3\n", dim_text);
    return EXIT_INPUT;
  }
  guint max_order = CURVE_MAX_CELL_BITS / (guint)dim;
  if (order_text == NULL) {
    g_printerr("lbsim: curve needs --order K, from 1 to %u in %" G_GUINT64_FORMAT "D\n", max_order,
               dim);
    return EXIT_INPUT;
  }
  if (!g_ascii_string_to_unsigned(order_text, 10, 1, max_order, &order, NULL)) {
    g_printerr("lbsim: --order '%s': expected a whole number from 1 to %u in %" G_GUINT64_FORMAT
               "D\n",
               order_text, max_order, dim);
    return EXIT_INPUT;
  }

  g_autofree OutBuffer *out = g_new0(OutBuffer, 1);
  guint64 cells = (guint64)1 << (dim * order);
  out_text(out, json ? "[\n" : "");
  for (guint64 i = 0; i < cells; i++) {
    guint32 c[3];
    lb_curve_coords(kind, (guint)dim, (guint)order, i, c);
    out_text(out, json ? "  [" : "");
    for (guint a = 0; a < dim; a++) {
      if (a > 0)
        out_text(out, json ? ", " : " ");
      out_number(out, c[a]);
    }
    out_text(out, !json ? "\n" : i + 1 < cells ? "],\n" : "]\n");
  }
  out_text(out, json ? "]\n" : "");
  out_flush(out);
  if (out->failed == 0 && fflush(stdout) != 0)
    out->failed = errno;
  if (out->failed != 0) {
    g_printerr("lbsim: cannot write stdout: %s\n", g_strerror(out->failed));
    return 1;
  }
  return 0;
}

/* Output of `lbsim chunks` has P lines at least: P up to 2^20. */
#define CHUNKS_MAX_WORKERS (1u << 20)

/* --set dls.KEY=VALUE, for the chunk keys other than the technique. */
static gboolean
chunks_set(LbParams *params, const char *set, GError **error)
{
  const char *eq = strchr(set, '=');
  if (!g_str_has_prefix(set, "dls.") || eq == NULL || eq == set + strlen("dls.")) {
    g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID, "--set %s: expected dls.KEY=VALUE",
                set);
    return FALSE;
  }
  g_autofree char *key = g_strstrip(g_strndup(set + strlen("dls."), eq - set - strlen("dls.")));
  if (strcmp(key, "technique") == 0) {
    g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID,
                "--set %s: the technique is the command's argument", set);
    return FALSE;
  }
  g_autoptr(GError) local = NULL;
  if (lb_params_set(params, key, eq + 1, &local))
    return TRUE;
  if (g_error_matches(local, LB_PARAM_ERROR, LB_PARAM_ERROR_UNKNOWN)) {
    g_autoptr(GString) known = g_string_new(NULL);
    for (const LbParamSpec *s = dls_chunk_params; s->name != NULL; s++)
      if (strcmp(s->name, "technique") != 0)
        g_string_append_printf(known, "%s%s", known->len ? ", " : "", s->name);
    g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_UNKNOWN,
                "--set %s: unknown [dls] key '%s' (known: %s)", set, key, known->str);
  } else {
    g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID, "--set %s: [dls] %s: %s", set, key,
                local->message);
  }
  return FALSE;
}

/* --weights and --min-chunk: the keys by another name, given once. */
static gboolean
chunks_option(LbParams *params, const char *option, const char *key, const char *value,
              GError **error)
{
  g_autoptr(GError) local = NULL;
  if (value == NULL)
    return TRUE;
  if (lb_params_is_set(params, key)) {
    g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID,
                "%s and --set dls.%s both given: give one", option, key);
    return FALSE;
  }
  if (!lb_params_set(params, key, value, &local)) {
    g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID, "%s %s: %s", option, value,
                local->message);
    return FALSE;
  }
  return TRUE;
}

static int
cmd_chunks(int argc, char **argv)
{
  g_autofree char *n_text = NULL, *p_text = NULL, *weights = NULL, *min_chunk = NULL;
  g_auto(GStrv) sets = NULL;
  gboolean json = FALSE;
  GOptionEntry entries[] = {
      {"iterations", 0, 0, G_OPTION_ARG_STRING, &n_text, "The loop's iterations: 1 to 2^53", "N"},
      {"workers", 0, 0, G_OPTION_ARG_STRING, &p_text, "The workers: 1 to 1048576", "P"},
      {"weights", 0, 0, G_OPTION_ARG_STRING, &weights,
       "Relative speeds, one per worker (the [dls] weights key; default: all equal)", "W0,W1,..."},
      {"min-chunk", 0, 0, G_OPTION_ARG_STRING, &min_chunk,
       "The smallest chunk but the last (the [dls] min-chunk key; default 1)", "M"},
      {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
       "Set a [dls] key: min-chunk, fsc-h, fsc-sigma, weights (repeatable)", "dls.KEY=VALUE"},
      {"json", 0, 0, G_OPTION_ARG_NONE, &json,
       "A JSON array of {\"size\", \"worker\"} objects in order instead", NULL},
      {NULL},
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new("stat|ss|fsc|gss|tss|fac|wf|awf|af");
  g_option_context_add_main_entries(ctx, entries, NULL);
  g_option_context_set_summary(
      ctx,
      "Prints the chunks a dynamic loop scheduling technique hands out for a loop of N\n"
      "iterations on P workers when requests come round-robin (worker 0, 1, ..., P-1, 0, ...),\n"
      "one chunk a line: its size and, for wf, awf and af, whose sizes depend on who asks,\n"
      "the requesting worker after a space. Each technique's formula: README.md, \"Dynamic\n"
      "loop scheduling: chunk sizes\"; the simulator's dls balancer uses the same code.\n"
      "awf and af adapt from measured chunk times. Here worker r runs an iteration in\n"
      "1/w_r seconds (w: the weights) and reports each chunk as soon as it gets it: awf\n"
      "then gives wf's chunks, and af, after one fac chunk, gives each requester its\n"
      "share of what is left by speed (no spread is measured).\n"
      "Exit status: 0 done, 1 stdout could not be written, 2 bad input.");
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) parsed = lb_cli_parse(ctx, entries, argc, argv, &error);
  if (parsed == NULL) {
    print_error(error);
    return EXIT_INPUT;
  }
  argc = (int)g_strv_length(parsed);
  argv = parsed;
  DlsTechnique t;
  if (argc != 2) {
    g_printerr("lbsim: chunks needs one technique: stat, ss, fsc, gss, tss, fac, wf, awf or af "
               "(see lbsim chunks --help)\n");
    return EXIT_INPUT;
  }
  if (!dls_technique_parse(argv[1], &t)) {
    g_printerr("lbsim: unknown technique '%s' (stat, ss, fsc, gss, tss, fac, wf, awf or af)\n",
               argv[1]);
    return EXIT_INPUT;
  }
  guint64 n = 0, p = 0;
  if (n_text == NULL || p_text == NULL) {
    g_printerr("lbsim: chunks needs --iterations N and --workers P\n");
    return EXIT_INPUT;
  }
  if (!g_ascii_string_to_unsigned(n_text, 10, 1, (guint64)DLS_MAX_ITERATIONS, &n, NULL)) {
    g_printerr("lbsim: --iterations '%s': expected a whole number from 1 to 2^53\n", n_text);
    return EXIT_INPUT;
  }
  if (!g_ascii_string_to_unsigned(p_text, 10, 1, CHUNKS_MAX_WORKERS, &p, NULL)) {
    g_printerr("lbsim: --workers '%s': expected a whole number from 1 to %u\n", p_text,
               CHUNKS_MAX_WORKERS);
    return EXIT_INPUT;
  }
  g_autoptr(LbParams) params = lb_params_new(dls_chunk_params);
  for (guint i = 0; sets != NULL && sets[i] != NULL; i++)
    if (!chunks_set(params, sets[i], &error)) {
      print_error(error);
      return EXIT_INPUT;
    }
  g_auto(DlsChunkParams) cp = {0};
  if (!chunks_option(params, "--weights", "weights", weights, &error) ||
      !chunks_option(params, "--min-chunk", "min-chunk", min_chunk, &error)) {
    print_error(error);
    return EXIT_INPUT;
  }
  if (!dls_chunk_params_read(&cp, params, (guint)p, NULL, &error)) {
    g_printerr("lbsim: [dls] %s\n", error->message);
    return EXIT_INPUT;
  }

  g_autoptr(DlsChunker) c = dls_chunker_new(t, n, (guint)p, &cp);
  gboolean by_worker = dls_technique_by_worker(t);
  g_autofree OutBuffer *out = g_new0(OutBuffer, 1);
  out_text(out, json ? "[" : "");
  guint64 printed = 0, idle = 0;
  for (guint64 i = 0; dls_chunker_remaining(c) > 0; i++) {
    guint w = (guint)(i % p);
    guint64 size = dls_chunker_next(c, w);
    /* only stat's served workers get nothing while iterations are left */
    idle = size == 0 ? idle + 1 : 0;
    g_assert(idle < p);
    if (size == 0)
      continue;
    dls_chunker_report(c, w, size, (double)size / (cp.weights != NULL ? cp.weights[w] : 1.0));
    if (json) {
      out_text(out, printed++ > 0 ? ",\n  {\"size\": " : "\n  {\"size\": ");
      out_number(out, size);
      out_text(out, ", \"worker\": ");
      out_number(out, w);
      out_text(out, "}");
    } else {
      out_number(out, size);
      if (by_worker) {
        out_text(out, " ");
        out_number(out, w);
      }
      out_text(out, "\n");
    }
  }
  out_text(out, json ? "\n]\n" : "");
  out_flush(out);
  if (out->failed == 0 && fflush(stdout) != 0)
    out->failed = errno;
  if (out->failed != 0) {
    g_printerr("lbsim: cannot write stdout: %s\n", g_strerror(out->failed));
    return 1;
  }
  return 0;
}

/* glibc keeps at most 7 freed blocks of each small size per thread (its
 * tcache). SimGrid frees its objects for a comm by the thousand between two
 * actor switches; beyond those 7 they went through the arena's bins, where
 * lbsim's large heap made every allocation slow (a tenth of a 4096-rank
 * run). The tcache's depth is a tunable read only at start-up, so lbsim
 * restarts itself once with a deep one before a simulating command, unless
 * the tunable is already set, under valgrind (the new process would escape
 * it) or with sanitizers. */
static void
deepen_malloc_cache(char **argv)
{
#if !defined(__SANITIZE_ADDRESS__)
  static const char tcache[] = "glibc.malloc.tcache_count=65535";
  const char *tunables = g_getenv("GLIBC_TUNABLES");
  const char *preload = g_getenv("LD_PRELOAD");
  if ((tunables != NULL && strstr(tunables, "glibc.malloc.tcache_count") != NULL) ||
      (preload != NULL && strstr(preload, "vgpreload") != NULL))
    return;
  g_autofree char *value = tunables != NULL && tunables[0] != '\0'
                               ? g_strconcat(tunables, ":", tcache, NULL)
                               : g_strdup(tcache);
  g_setenv("GLIBC_TUNABLES", value, TRUE);
  execv("/proc/self/exe", argv);
  /* no exec: run as is */
#endif
}

static int
dispatch(int argc, char **argv)
{
  if (argc < 2) {
    g_printerr("%s", usage_text);
    return EXIT_INPUT;
  }
  const char *cmd = argv[1];
  /* only the commands that simulate */
  if (strcmp(cmd, "run") == 0 || strcmp(cmd, "check") == 0 || strcmp(cmd, "run-job") == 0 ||
      strcmp(cmd, "explain") == 0 || strcmp(cmd, "sweep") == 0)
    deepen_malloc_cache(argv);
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
    g_print("lbsim %s\n", LB_VERSION);
    return 0;
  }
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 ||
      (strcmp(cmd, "help") == 0 && argc == 2)) {
    g_print("%s", usage_text);
    return 0;
  }
  if (strcmp(cmd, "help") == 0) {
    char *args[] = {argv[0], argv[2], "--help", NULL};
    return dispatch(3, args);
  }
  if (strcmp(cmd, "run") == 0 || strcmp(cmd, "check") == 0)
    return cmd_run(argc - 1, argv + 1, strcmp(cmd, "check") == 0);
  if (strcmp(cmd, "list") == 0)
    return cmd_list(argc - 1, argv + 1);
  if (strcmp(cmd, "run-job") == 0)
    return cmd_run_job(argc - 1, argv + 1);
  if (strcmp(cmd, "sweep") == 0)
    return lb_cli_sweep(argc - 1, argv + 1);
  if (strcmp(cmd, "merge") == 0)
    return lb_cli_merge(argc - 1, argv + 1);
  if (strcmp(cmd, "explain") == 0)
    return lb_cli_explain(argc - 1, argv + 1);
  if (strcmp(cmd, "report") == 0)
    return lb_cli_report(argc - 1, argv + 1);
  if (strcmp(cmd, "curve") == 0)
    return cmd_curve(argc - 1, argv + 1);
  if (strcmp(cmd, "chunks") == 0)
    return cmd_chunks(argc - 1, argv + 1);
  g_printerr("lbsim: unknown command '%s'\n\n%s", cmd, usage_text);
  return EXIT_INPUT;
}

/* Everything lbsim prints on standard output goes through g_print, so
 * that a failed write (a full disk, a closed pipe) is remembered and the
 * command ends with status 1. */
static void
print_cb(const char *text)
{
  lb_output_stdout(text);
}

/* GOption prints --help and exits by itself: standard output is checked
 * at exit too, unless main has checked it. */
static gboolean stdout_checked;

static void
check_stdout_at_exit(void)
{
  if (!stdout_checked && lb_output_stdout_close() != 0)
    _exit(1);
}

int
main(int argc, char **argv)
{
  /* Messages in the user's language and charset; numbers always with '.':
   * SimGrid reads "1.5Gf" with strtod, and the table, the message trace and
   * SimGrid's Paje trace are printed with printf. */
  setlocale(LC_ALL, "");
  setlocale(LC_NUMERIC, "C");
  g_set_print_handler(print_cb);
  atexit(check_stdout_at_exit);
  int code = dispatch(argc, argv);
  stdout_checked = TRUE;
  /* a command that failed has said why already */
  return code != 0 ? code : lb_output_stdout_close();
}
