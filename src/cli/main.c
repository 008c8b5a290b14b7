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
#include "cli/job.h"
#include "cli/sweep.h"
#include "lbsim/balancer.h"
#include "lbsim/scenario.h"
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

static GOptionContext *
run_context(const char *command, RunArgs *a)
{
  GOptionEntry entries[] = {
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
  g_autofree char *param = g_strdup_printf("%s SCENARIO.ini%s", command,
                                           strcmp(command, "check") == 0 ? " [MORE.ini ...]" : "");
  GOptionContext *ctx = g_option_context_new(param);
  g_option_context_add_main_entries(ctx, entries, NULL);
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

static gboolean
io_error(GError **error, const char *path, int errsv)
{
  g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errsv), "cannot write %s: %s", path,
              g_strerror(errsv));
  return FALSE;
}

static gboolean
write_all(int fd, const char *text)
{
  gsize left = strlen(text);
  while (left > 0) {
    ssize_t n = write(fd, text, left);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return FALSE;
    text += n;
    left -= (gsize)n;
  }
  return TRUE;
}

static gboolean
write_in_place(const char *path, const char *text, GError **error)
{
  int fd = g_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0)
    return io_error(error, path, errno);
  gboolean ok = write_all(fd, text);
  int errsv = errno;
  if (close(fd) != 0 && ok) {
    ok = FALSE;
    errsv = errno;
  }
  return ok || io_error(error, path, errsv);
}

/* A temporary file next to target, renamed over it: readers see the old
 * file or the new one, never half of one. */
static gboolean
replace_file(const char *path, const char *target, const char *text, GError **error)
{
  g_autofree char *tmp = g_strdup_printf("%s.XXXXXX", target);
  int fd = g_mkstemp_full(tmp, O_WRONLY | O_CLOEXEC, 0666);
  if (fd < 0)
    return io_error(error, path, errno);
  gboolean ok = write_all(fd, text) && fsync(fd) == 0;
  int errsv = errno;
  if (close(fd) != 0 && ok) {
    ok = FALSE;
    errsv = errno;
  }
  if (ok && g_rename(tmp, target) != 0) {
    ok = FALSE;
    errsv = errno;
  }
  if (!ok)
    g_unlink(tmp);
  return ok || io_error(error, path, errsv);
}

/* "-" is stdout. A regular file, or the one a symlink points to, is
 * replaced atomically; anything else (a FIFO, /dev/null, a dangling
 * symlink) is written in place, never replaced. */
static gboolean
write_output(const char *path, const char *text, GError **error)
{
  if (strcmp(path, "-") == 0) {
    if (fputs(text, stdout) < 0 || fflush(stdout) != 0)
      return io_error(error, "stdout", errno);
    return TRUE;
  }
  GStatBuf st;
  if (g_stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
    g_autofree char *target = realpath(path, NULL);
    return replace_file(path, target != NULL ? target : path, text, error);
  }
  if (g_lstat(path, &st) != 0 && errno == ENOENT)
    return replace_file(path, path, text, error);
  return write_in_place(path, text, error);
}

/* Before anything runs: can path be written? With replace (--json, --csv)
 * a regular file is replaced through its folder, otherwise it is opened. */
static gboolean
check_output(const char *option, const char *path, gboolean replace, GError **error)
{
  if (replace && strcmp(path, "-") == 0)
    return TRUE;
  GStatBuf st;
  int errsv = 0;
  if (*path == '\0') {
    errsv = ENOENT;
  } else if (g_stat(path, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      errsv = EISDIR;
    } else if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode)) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                  "%s %s: not a regular file, a FIFO or a character device", option, path);
      return FALSE;
    } else if (S_ISREG(st.st_mode) && replace) {
      g_autofree char *target = realpath(path, NULL);
      g_autofree char *dir = g_path_get_dirname(target != NULL ? target : path);
      if (g_access(dir, W_OK | X_OK) != 0)
        errsv = errno;
    } else if (g_access(path, W_OK) != 0) {
      errsv = errno;
    }
  } else if (errno == ENOENT) {
    g_autofree char *dir = g_path_get_dirname(path);
    if (g_access(dir, W_OK | X_OK) != 0)
      errsv = errno;
  } else {
    errsv = errno;
  }
  if (errsv == 0)
    return TRUE;
  g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errsv), "%s %s: cannot write: %s",
              option, path, g_strerror(errsv));
  return FALSE;
}

/* --pictures DIR: a folder to write into, or a new one whose parent folder
 * can be written (it is made once every check has passed: a typo in a
 * deeper path stays an error). The files it will hold are checked like
 * the other outputs. */
static gboolean
check_pictures(const char *dir, const LbScenario *sc, gboolean *make, GError **error)
{
  GStatBuf st;
  int errsv = 0;
  *make = FALSE;
  if (*dir == '\0') {
    errsv = ENOENT;
  } else if (g_stat(dir, &st) == 0) {
    if (!S_ISDIR(st.st_mode))
      errsv = ENOTDIR;
    else if (g_access(dir, W_OK | X_OK) != 0)
      errsv = errno;
  } else if (errno == ENOENT) {
    g_autofree char *trimmed = g_strdup(dir);
    for (gsize n = strlen(trimmed); n > 1 && trimmed[n - 1] == '/'; n--)
      trimmed[n - 1] = '\0';
    g_autofree char *parent = g_path_get_dirname(trimmed);
    if (g_access(parent, W_OK | X_OK) != 0)
      errsv = errno;
    *make = errsv == 0;
  } else {
    errsv = errno;
  }
  if (errsv != 0) {
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errsv),
                "--pictures %s: cannot write: %s", dir, g_strerror(errsv));
    return FALSE;
  }
  if (*make)
    return TRUE;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
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
  g_ptr_array_add(names, lb_pictures_file(dir, sc->name, "imbalance", "png"));
  g_ptr_array_add(names, lb_pictures_file(dir, sc->name, "imbalance", "svg"));
  gboolean idle = FALSE; /* a balancer that declares idle-procs */
  for (guint i = 0; i < sc->runs->len; i++) {
    const LbBalancer *b = ((const LbBalancerRun *)sc->runs->pdata[i])->balancer;
    for (const LbMetricSpec *m = b->metrics; m != NULL && m->name != NULL; m++)
      idle |= strcmp(m->name, "idle-procs") == 0;
  }
  if (idle) {
    g_ptr_array_add(names, lb_pictures_file(dir, sc->name, "idle", "png"));
    g_ptr_array_add(names, lb_pictures_file(dir, sc->name, "idle", "svg"));
  }
  for (guint i = 0; i < names->len; i++)
    if (!check_output("--pictures", names->pdata[i], TRUE, error))
      return FALSE;
  return TRUE;
}

/* Every file the run will write, checked before it starts: a bad path is
 * bad input, not an hour of simulation thrown away. */
static gboolean
check_outputs(const RunArgs *a, const LbScenario *sc, gboolean *make_pictures,
              gboolean *make_report, GError **error)
{
  if (a->json != NULL && a->csv != NULL && strcmp(a->json, a->csv) == 0) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                "--json and --csv both write to %s: give them different files",
                strcmp(a->json, "-") == 0 ? "stdout" : a->json);
    return FALSE;
  }
  if ((a->json != NULL && !check_output("--json", a->json, TRUE, error)) ||
      (a->csv != NULL && !check_output("--csv", a->csv, TRUE, error)) ||
      (a->pictures != NULL && !check_pictures(a->pictures, sc, make_pictures, error)) ||
      (a->report != NULL &&
       !lb_html_check_folder(a->report, "--report", "run", sc->name, a->force, make_report, error)))
    return FALSE;
  const char *const traces[][2] = {{"--paje", a->paje}, {"--message-trace", a->message_trace}};
  for (guint t = 0; t < G_N_ELEMENTS(traces); t++) {
    if (traces[t][1] == NULL)
      continue;
    for (guint i = 0; i < sc->runs->len; i++) {
      const LbBalancerRun *run = sc->runs->pdata[i];
      g_autofree char *name = lb_runner_trace_name(traces[t][1], run->label, sc->runs->len);
      if (!check_output(traces[t][0], name, FALSE, error))
        return FALSE;
    }
  }
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

static int run_one(RunArgs *args, const char *path, gboolean check, guint ranks, guint jobs);

/* `lbsim check A.ini B.ini ...`: each in turn, a header before each; the
 * exit status is the highest of theirs (3 a broken invariant, 2 bad
 * input, 1 a failed expectation). */
static int
check_many(RunArgs *a, int argc, char **argv, guint ranks, guint jobs)
{
  if (a->json != NULL || a->csv != NULL || a->pictures != NULL || a->report != NULL ||
      a->paje != NULL || a->message_trace != NULL) {
    g_printerr("lbsim: check of several scenarios writes no files: give one scenario with "
               "--json, --csv, --pictures, --report, --paje or --message-trace\n");
    return EXIT_INPUT;
  }
  int worst = 0;
  for (int i = 1; i < argc; i++) {
    g_print("%s== %s\n", i > 1 ? "\n" : "", argv[i]);
    int code = run_one(a, argv[i], TRUE, ranks, jobs);
    worst = MAX(worst, code);
  }
  return worst;
}

static int
cmd_run(int argc, char **argv, gboolean check)
{
  g_auto(RunArgs) a = {0};
  g_autoptr(GOptionContext) ctx = run_context(check ? "check" : "run", &a);
  g_autoptr(GError) error = NULL;
  if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
    g_printerr("lbsim: %s\n", error->message);
    return EXIT_INPUT;
  }
  if (argc < 2 || (!check && argc != 2)) {
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
  if (check && argc > 2)
    return check_many(&a, argc, argv, ranks, jobs);
  return run_one(&a, argv[1], check, ranks, jobs);
}

static int
run_one(RunArgs *args, const char *path, gboolean check, guint ranks, guint jobs)
{
  RunArgs a = *args;
  g_autoptr(GError) error = NULL;
  LbScenarioOverrides ov = {(gint)ranks, a.platform, a.balancer, (const char *const *)a.sets};
  g_autoptr(LbScenario) sc = lb_scenario_load(path, &ov, &error);
  if (sc == NULL) {
    print_error(error);
    return EXIT_INPUT;
  }

  if (a.no_fork && sc->runs->len != 1) {
    g_printerr("lbsim: --no-fork runs one balancer: add --balancer NAME\n");
    return EXIT_INPUT;
  }
  gboolean make_pictures = FALSE, make_report = FALSE;
  if (!check_outputs(&a, sc, &make_pictures, &make_report, &error)) {
    print_error(error);
    return EXIT_INPUT;
  }
  const char *const made[][2] = {{"--pictures", make_pictures ? a.pictures : NULL},
                                 {"--report", make_report ? a.report : NULL}};
  for (guint i = 0; i < G_N_ELEMENTS(made); i++)
    if (made[i][1] != NULL && g_mkdir(made[i][1], 0777) != 0 && errno != EEXIST) {
      int errsv = errno;
      g_printerr("lbsim: %s %s: cannot make the folder: %s\n", made[i][0], made[i][1],
                 g_strerror(errsv));
      return EXIT_INPUT;
    }
  LbRunnerOptions ro = {0};
  ro.in_process = a.no_fork;
  ro.jobs = jobs > 0 ? jobs : (guint)g_get_num_processors();
  ro.quiet = a.quiet;
  ro.run.detail = a.detail;
  ro.run.message_trace = a.message_trace;
  ro.run.paje_trace = a.paje;
  /* the report shows the pictures; without --pictures they go beside it */
  ro.run.pictures_dir = a.pictures != NULL ? a.pictures : a.report;
  ro.run.cfg = (const char *const *)a.cfg;
  ro.run.log = (const char *const *)a.log;
  ro.run.verbose = a.verbose;
  ro.run.progress = !a.quiet && isatty(STDERR_FILENO);
  g_autoptr(GPtrArray) runs = NULL;
  int code = 0;
  if (!lb_runner_run(sc, &ov, &ro, &runs, &code, &error)) {
    print_error(error);
    return code;
  }

  g_autofree char *doc = a.json != NULL || a.report != NULL ? lb_report_document(sc, runs) : NULL;
  if (a.json != NULL && !write_output(a.json, doc, &error)) {
    print_error(error);
    return 1;
  }
  if (a.report != NULL) {
    g_autoptr(LbHtmlDoc) page = lb_html_doc_parse(doc, strlen(doc), "the run's JSON", &error);
    g_assert_no_error(error); /* lbsim's own JSON */
    LbHtmlOptions options = {.dir = a.report, .pictures_dir = ro.run.pictures_dir};
    if (!lb_html_write(page, &options, &error)) {
      print_error(error);
      return 1;
    }
  }
  if (a.csv != NULL) {
    g_autofree char *csv = lb_report_csv(runs);
    if (!write_output(a.csv, csv, &error)) {
      print_error(error);
      return 1;
    }
  }
  if (a.pictures != NULL &&
      (!lb_pictures_imbalance(a.pictures, sc->name, runs, &error) ||
       (lb_pictures_has_idle(runs) && !lb_pictures_idle(a.pictures, sc->name, runs, &error)))) {
    print_error(error);
    return 1;
  }
  gboolean json_on_stdout = g_strcmp0(a.json, "-") == 0 || g_strcmp0(a.csv, "-") == 0;
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
  LbRunOptions options = {0};
  return lb_job_execute(job, NULL, 0, &options, argv[2], NULL);
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
  if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
    print_error(error);
    return EXIT_INPUT;
  }
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
  if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
    print_error(error);
    return EXIT_INPUT;
  }
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

int
main(int argc, char **argv)
{
  /* Messages in the user's language and charset; numbers always with '.':
   * SimGrid reads "1.5Gf" with strtod, and the table, the message trace and
   * SimGrid's Paje trace are printed with printf. */
  setlocale(LC_ALL, "");
  setlocale(LC_NUMERIC, "C");
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
    return main(3, args);
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
