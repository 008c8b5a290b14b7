/* lbsim reproduce: a source paper's experiment, run through the sweep
 * machinery (resumable, -j at a time), its claims each beside lbsim's
 * number and its scorecard first (docs/reference/reproduce.md). The
 * paper's data and rules are reproduce-claims.c's, the evaluation
 * reproduce-evaluate.c's, the outputs reproduce-output.c's. */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "reproduce/output.h"
#include "runner/runner.h"
#include "runner/signals.h"
#include "io/input.h"
#include "io/output.h"
#include "report/html.h"

typedef struct {
  gboolean quick, deep, check, quiet, force, all, tap;
  char *jobs, *json, *csv, *state, *report, *chart_scale, *junit;
  char **sets, **formats, **only;
  LbFigureArgs figure;
} Args;

static void
args_clear(Args *a)
{
  g_free(a->report);
  g_free(a->jobs);
  g_free(a->json);
  g_free(a->csv);
  g_free(a->state);
  g_free(a->chart_scale);
  g_free(a->junit);
  g_strfreev(a->sets);
  g_strfreev(a->formats);
  g_strfreev(a->only);
  lb_figure_args_clear(&a->figure);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Args, args_clear)

static int
input_error(const GError *error)
{
  g_printerr("lbsim: %s\n", error->message);
  return LB_EXIT_INPUT;
}

/* The form's word in a default state folder's name, KEY-WORD.d. */
static const char *
form_word(const Args *a)
{
  if (a->deep)
    return a->quick ? "deep-quick" : "deep";
  return a->quick ? "quick" : "reproduce";
}

/* Loads and prepares a paper: every scenario read and every claim's
 * names held against its runs, before anything runs. */
static LbPaper *
paper_ready(const char *key, const Args *a, GError **error)
{
  g_autoptr(LbPaper) p = lb_paper_load(key, error);
  if (p == NULL || (a->deep && !lb_paper_deepen(p, error)) ||
      !lb_paper_only(p, (const char *const *)a->only, error) ||
      !lb_paper_prepare(p, a->quick, (const char *const *)a->sets, error)) {
    if (p != NULL)
      g_prefix_error(error, "%s: ", p->key);
    return NULL;
  }
  return g_steal_pointer(&p);
}

/* Runs and evaluates a prepared paper; the worst exit code of its runs
 * and checks (--check's verdict aside). */
static int
paper_run(LbPaper *p, const Args *a, const char *state, guint jobs)
{
  int worst = lb_paper_execute(p, state, jobs, a->quiet);
  int checks = lb_paper_evaluate(p, state, a->quick, jobs, a->quiet);
  return MAX(worst, checks);
}

/* --junit and --tap: a suite a paper, a case a claim (TAP on the saved
 * standard output). FALSE when the JUnit file could not be written. */
static gboolean
write_claim_reports(const Args *a, GPtrArray *suites, int tap_fd)
{
  if (tap_fd >= 0) {
    g_autofree char *tap = lb_tap_document((LbTestSuite *const *)suites->pdata, suites->len);
    lb_cli_tap_end(tap_fd, tap);
  }
  if (a->junit == NULL)
    return TRUE;
  g_autoptr(GError) error = NULL;
  g_autofree char *xml = lb_junit_document((LbTestSuite *const *)suites->pdata, suites->len,
                                           "lbsim reproduce --check");
  if (!lb_output_write(a->junit, xml, -1, &error)) {
    g_printerr("lbsim: %s\n", error->message);
    return FALSE;
  }
  return TRUE;
}

/* lbsim reproduce --all: every paper, one scorecard table. */
static int
reproduce_all(const Args *a, guint jobs, int tap_fd)
{
  if (a->json != NULL || a->csv != NULL || a->report != NULL) {
    g_printerr("lbsim: --all prints one table of scorecards; --json, --csv and --report are a "
               "paper's (lbsim reproduce KEY ...)\n");
    return LB_EXIT_INPUT;
  }
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) keys = lb_paper_keys();
  g_autoptr(GPtrArray) papers = g_ptr_array_new_with_free_func((GDestroyNotify)lb_paper_free);
  g_autoptr(GPtrArray) states = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; i < keys->len; i++) {
    LbPaper *p = paper_ready(keys->pdata[i], a, &error);
    if (p == NULL)
      return input_error(error);
    g_ptr_array_add(papers, p);
  }
  /* every paper read and checked: the folder of their states, then each */
  if (a->state != NULL && !g_file_test(a->state, G_FILE_TEST_IS_DIR) &&
      g_mkdir_with_parents(a->state, 0777) != 0) {
    g_printerr("lbsim: --state %s: %s\n", a->state, g_strerror(errno));
    return LB_EXIT_INPUT;
  }
  for (guint i = 0; i < papers->len; i++) {
    const LbPaper *p = papers->pdata[i];
    char *state = a->state != NULL ? g_build_filename(a->state, p->key, NULL)
                                   : g_strdup_printf("%s-%s.d", p->key, form_word(a));
    g_ptr_array_add(states, state);
    gboolean make = FALSE;
    if (!lb_output_check_folder("--state", state, &make, &error))
      return input_error(error);
  }
  int worst = 0, verdict = 0;
  g_autoptr(GPtrArray) suites = g_ptr_array_new_with_free_func((GDestroyNotify)lb_test_suite_free);
  for (guint i = 0; i < papers->len; i++) {
    gint64 start = g_get_monotonic_time();
    int code = paper_run(papers->pdata[i], a, states->pdata[i], jobs);
    worst = MAX(worst, code);
    if (a->check)
      verdict |= lb_paper_check_say(papers->pdata[i]);
    g_ptr_array_add(suites,
                    lb_paper_test_suite(papers->pdata[i],
                                        (double)(g_get_monotonic_time() - start) / G_USEC_PER_SEC));
  }
  if ((a->junit != NULL || tap_fd >= 0) && !write_claim_reports(a, suites, tap_fd))
    worst = MAX(worst, 1);
  g_autofree char *table =
      lb_papers_scorecards((const LbPaper *const *)papers->pdata, papers->len, a->quick);
  lb_output_stdout(table);
  return MAX(worst, verdict);
}

#define REPRODUCE_OPTIONS 17

int
lb_cmd_reproduce(const LbCommand *self, int argc, char **argv)
{
  g_auto(Args) a = {0};
  /* the command's, then the figures', then the closing NULL entry */
  GOptionEntry entries[REPRODUCE_OPTIONS + LB_FIGURE_ENTRIES + 1] = {
      {"quick", 0, 0, G_OPTION_ARG_NONE, &a.quick,
       "The reduced form: fewer processor counts, shorter runs (said in the output)", NULL},
      {"deep", 0, 0, G_OPTION_ARG_NONE, &a.deep,
       "The deep form of a paper with a [deep] group: the runs its full form reduces to fit "
       "its time, at the paper's scale (said in the output; no shipped paper has one); with "
       "--quick, on its processor counts and adaptations",
       NULL},
      {"all", 0, 0, G_OPTION_ARG_NONE, &a.all,
       "Every paper, one table: headline findings reproduced, claims agreeing, known "
       "disagreements",
       NULL},
      {"jobs", 'j', 0, G_OPTION_ARG_STRING, &a.jobs,
       "Simulations at once (default: the number of processors)", "N"},
      {"json", 'o', 0, G_OPTION_ARG_FILENAME, &a.json,
       "The scorecard, the claims and lbsim's numbers as JSON (-: on standard output, instead of "
       "the table)",
       "FILE"},
      {"csv", 0, 0, G_OPTION_ARG_FILENAME, &a.csv,
       "The same as CSV, the scorecard's rows first, then one row per claim (-: on standard "
       "output, instead of the table)",
       "FILE"},
      {"state", 0, 0, G_OPTION_ARG_FILENAME, &a.state,
       "Keep the runs here, to resume (default: KEY-reproduce.d, KEY-quick.d, KEY-deep.d or "
       "KEY-deep-quick.d; with --all, a folder of each paper's)",
       "DIR"},
      {"report", 0, 0, G_OPTION_ARG_FILENAME, &a.report,
       "An HTML page of the scorecard, the claims and the paper's figures, the paper's numbers "
       "beside lbsim's, in DIR",
       "DIR"},
      {"chart-scale", 0, 0, G_OPTION_ARG_STRING, &a.chart_scale,
       "With --report: the value axis of the figures' charts: auto (log when the values span "
       "a factor of 10 or more), linear or log",
       "SCALE"},
      {"picture-format", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a.formats,
       "With --report: each chart's file in these formats too: png, pdf, svg, or a comma list "
       "(repeatable; SVG always)",
       "FORMAT"},
      {"force", 0, 0, G_OPTION_ARG_NONE, &a.force,
       "Replace a report folder that holds another report", NULL},
      {"check", 0, 0, G_OPTION_ARG_NONE, &a.check,
       "Exit 1 when a headline claim disagrees and claims.ini does not list it as known, a known "
       "one agrees, or a headline claim could not be evaluated (for a CI)",
       NULL},
      {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &a.sets,
       "Override a key in every run, e.g. --set move-split.threshold=100: not the paper's "
       "experiment (said in every output); to see which claims a change moves",
       "GROUP.KEY=VALUE"},
      {"only", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a.only,
       "Only these of the paper's runs ([run:NAME] in its claims.ini; repeatable, or a comma "
       "list): the claims that read another, and the checks that read none, not evaluated "
       "(said in every output)",
       "RUN"},
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &a.quiet, "No progress on stderr", NULL},
      {"junit", 0, 0, G_OPTION_ARG_FILENAME, &a.junit,
       "With --check: a JUnit XML test report, a testsuite a paper, a testcase a claim", "FILE"},
      {"tap", 0, 0, G_OPTION_ARG_NONE, &a.tap,
       "With --check: the claims as TAP version 13 on standard output (the tables go to "
       "standard error)",
       NULL},
  };
  lb_figure_entries(&a.figure, &entries[REPRODUCE_OPTIONS]);
  g_auto(GStrv) args = lb_command_parse(
      self, entries,
      "Without KEY, lists the papers. With KEY, runs that paper's experiment (its scenario\n"
      "files under scenarios/papers/KEY/, varied over processor counts as a sweep, each\n"
      "run kept in the state folder so that the same command resumes) and prints its\n"
      "scorecard (the headline findings, from the paper's abstract, conclusions, tables\n"
      "and figures: reproduced, not reproduced, known disagreements with their reasons),\n"
      "then one row per claim: the paper's number, lbsim's, the rule, whether they agree.\n"
      "See docs/reference/reproduce.md.\n"
      "Exit status: 0 done, 1 a run failed or (--check) the verdict fails, 2 bad input,\n"
      "3 a run broke an invariant.",
      argc, argv);
  if (args == NULL)
    return LB_EXIT_INPUT;
  g_autoptr(GError) error = NULL;
  guint n = g_strv_length(args);
  guint jobs = 0;
  if (a.jobs != NULL && !lb_runner_parse_count("--jobs", a.jobs, &jobs, &error))
    return input_error(error);
  LbPaperCharts charts = {0};
  const char *figure = a.formats != NULL       ? "--picture-format"
                       : a.chart_scale != NULL ? "--chart-scale"
                                               : lb_figure_args_given(&a.figure);
  if (a.report == NULL && figure != NULL) {
    g_printerr("lbsim: %s is for the charts of --report DIR\n", figure);
    return LB_EXIT_INPUT;
  }
  if (!lb_figure_parse_formats((const char *const *)a.formats, &charts.formats, &error) ||
      !lb_figure_args_look(&a.figure, &charts.look, &error))
    return input_error(error);
  if (a.chart_scale != NULL && !lb_plot_value_scale_parse(a.chart_scale, &charts.scale)) {
    g_printerr("lbsim: --chart-scale %s: expected auto, linear or log\n", a.chart_scale);
    return LB_EXIT_INPUT;
  }
  if ((a.junit != NULL || a.tap) && !a.check) {
    g_printerr("lbsim: --junit and --tap report --check's verdict: add --check\n");
    return LB_EXIT_INPUT;
  }
  if (a.tap && (g_strcmp0(a.json, "-") == 0 || g_strcmp0(a.csv, "-") == 0)) {
    g_printerr("lbsim: --tap writes standard output: give --json or --csv a file\n");
    return LB_EXIT_INPUT;
  }
  if (a.junit != NULL && !lb_output_check("--junit", a.junit, &error))
    return input_error(error);
  int tap_fd = a.tap ? lb_cli_tap_begin() : -1;
  if (a.tap && tap_fd < 0)
    return 1;
  if (a.all && (a.deep || a.only != NULL)) {
    g_printerr("lbsim: %s is a paper's (lbsim reproduce KEY %s), not --all's\n",
               a.deep ? "--deep" : "--only", a.deep ? "--deep" : "--only RUN");
    return LB_EXIT_INPUT;
  }
  if (a.all) {
    if (n != 1) {
      g_printerr("lbsim: reproduce --all runs every paper: give no KEY\n");
      return LB_EXIT_INPUT;
    }
    lb_signals_alone();
    return reproduce_all(&a, jobs, tap_fd);
  }
  if (n == 1) {
    g_autofree char *papers = lb_papers_text();
    g_print("%s", papers);
    return 0;
  }
  if (n != 2) {
    g_printerr("lbsim: reproduce takes one paper's key (lbsim reproduce lists them)\n");
    return LB_EXIT_INPUT;
  }
  g_autoptr(LbPaper) p = paper_ready(args[1], &a, &error);
  if (p == NULL)
    return input_error(error);
  g_autofree char *state =
      a.state != NULL ? g_strdup(a.state) : g_strdup_printf("%s-%s.d", p->key, form_word(&a));
  lb_signals_alone();
  /* the outputs: writable, none of them a file read or another output */
  g_autoptr(LbFileSet) files = lb_file_set_new();
  const GArray *read = lb_input_files();
  for (guint i = 0; i < read->len; i++) {
    const LbInputFile *f = &g_array_index(read, LbInputFile, i);
    lb_file_set_input(files, lb_input_kind_name(f->kind), f->path);
  }
  /* "-": standard output, in place of the table */
  gboolean json_out = g_strcmp0(a.json, "-") == 0, csv_out = g_strcmp0(a.csv, "-") == 0;
  if (json_out && csv_out) {
    g_printerr("lbsim: --json - and --csv -: one of them may go to standard output\n");
    return LB_EXIT_INPUT;
  }
  const char *const outputs[][2] = {{"--json", json_out ? NULL : a.json},
                                    {"--csv", csv_out ? NULL : a.csv}};
  for (guint i = 0; i < G_N_ELEMENTS(outputs); i++)
    if (outputs[i][1] != NULL && (!lb_output_check(outputs[i][0], outputs[i][1], &error) ||
                                  !lb_file_set_output(files, outputs[i][0], outputs[i][1], &error)))
      return input_error(error);
  gboolean make_state = FALSE;
  if (!lb_output_check_folder("--state", state, &make_state, &error))
    return input_error(error);
  gboolean make = FALSE;
  if (a.report != NULL &&
      !lb_html_check_folder(a.report, "--report", "reproduction", p->key, a.force, &make, &error))
    return input_error(error);

  gint64 start = g_get_monotonic_time();
  int worst = paper_run(p, &a, state, jobs);
  LbPaperOutput how = {a.quick, (const char *const *)a.sets,
                       isatty(STDOUT_FILENO) && g_getenv("NO_COLOR") == NULL};
  g_autofree char *text = lb_paper_text(p, &how);
  if (!json_out && !csv_out)
    lb_output_stdout(text);
  how.color = FALSE;
  if (a.json != NULL) {
    g_autofree char *doc = lb_paper_json(p, &how);
    if (json_out)
      lb_output_stdout(doc);
    else if (!lb_output_write(a.json, doc, -1, &error)) {
      g_printerr("lbsim: %s\n", error->message);
      return 1;
    }
  }
  if (a.report != NULL && !lb_paper_write_report(p, &how, &charts, a.report, make, &error)) {
    g_printerr("lbsim: %s\n", error->message);
    return 1;
  }
  if (a.csv != NULL) {
    g_autofree char *rows = lb_paper_csv(p, &how);
    if (csv_out)
      lb_output_stdout(rows);
    else if (!lb_output_write(a.csv, rows, -1, &error)) {
      g_printerr("lbsim: %s\n", error->message);
      return 1;
    }
  }
  if (a.check)
    worst = MAX(worst, lb_paper_check_say(p) ? 1 : 0);
  if (a.junit != NULL || tap_fd >= 0) {
    g_autoptr(GPtrArray) suites =
        g_ptr_array_new_with_free_func((GDestroyNotify)lb_test_suite_free);
    g_ptr_array_add(
        suites, lb_paper_test_suite(p, (double)(g_get_monotonic_time() - start) / G_USEC_PER_SEC));
    if (!write_claim_reports(&a, suites, tap_fd))
      worst = MAX(worst, 1);
  }
  return worst;
}
