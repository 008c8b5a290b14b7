/* lbsim reproduce: a source paper's experiment, run through the sweep
 * machinery (resumable, -j at a time), and each of its claims beside
 * lbsim's number. A paper is a folder of scenarios/papers/: its scenario
 * files and claims.ini, the paper's numbers as data with the citation and
 * the rule that says what agreeing means (docs/reference/reproduce.md). */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "cli/commands.h"
#include "cli/reproduce-checks.h"
#include "cli/runner.h"
#include "cli/signals.h"
#include "cli/sweep.h"
#include "io/datadir.h"
#include "io/input.h"
#include "io/output.h"
#include "report/html.h"
#include "report/json-writer.h"
#include "report/report.h"

typedef enum {
  MEASURE_VALUE,       /* BALANCER METRIC */
  MEASURE_IMPROVEMENT, /* METRIC A B: 100 (A - B) / A */
  MEASURE_RELATIVE,    /* METRIC A B C ...: A over the least of A, B, C, ... */
  MEASURE_SHARE,       /* METRIC A B: 100 A / B, A's as a share of B's */
  MEASURE_CHECK,       /* NAME ARGS ...: a check of reproduce-checks.c */
} Measure;

typedef enum {
  RULE_SAME_SIGN,
  RULE_WITHIN_2X,
  RULE_AT_MOST,
  RULE_AT_LEAST,
  RULE_RANGE,
} Rule;

typedef struct {
  char *name, *scenario; /* the scenario's path */
  char *ranks, *quick_ranks;
  guint quick_steps;       /* 0: the scenario's */
  char *vary, *quick_vary; /* more axes: "NAME=LIST; NAME=LIST", or NULL */
  char *platform;          /* a pattern such as hypercube-{ranks}.xml, or NULL */
  LbSweep *sweep;
  LbRunResult **results;
} Run;

typedef struct {
  char *id, *text, *run, *unit, *rule_text, *figure;
  guint ranks;
  Measure measure;
  char *metric, *a, *b; /* value: a is the balancer */
  char **among;         /* relative: the labels A is compared with */
  const LbReproCheck *check;
  char **args; /* check: the words after its name */
  char **runs; /* check: the runs it reads (run = A, B, ...), or NULL */
  double paper, lo, hi;
  Rule rule;
  gboolean required;
  /* evaluated */
  gboolean done, agrees, failed; /* failed: a check that could not make its number */
  double lbsim;
  char *note, *detail;
} Claim;

typedef struct {
  char *key, *dir, *cite, *summary;
  GPtrArray *runs;   /* Run */
  GPtrArray *claims; /* Claim */
} Paper;

static void
run_free(gpointer data)
{
  Run *r = data;
  g_free(r->name);
  g_free(r->scenario);
  g_free(r->ranks);
  g_free(r->quick_ranks);
  g_free(r->vary);
  g_free(r->quick_vary);
  g_free(r->platform);
  if (r->results != NULL)
    for (guint i = 0; i < r->sweep->runs->len; i++)
      lb_run_result_free(r->results[i]);
  g_free(r->results);
  lb_sweep_free(r->sweep);
  g_free(r);
}

static void
claim_free(gpointer data)
{
  Claim *c = data;
  g_free(c->id);
  g_free(c->text);
  g_free(c->run);
  g_free(c->unit);
  g_free(c->rule_text);
  g_free(c->figure);
  g_free(c->metric);
  g_free(c->a);
  g_free(c->b);
  g_strfreev(c->among);
  g_strfreev(c->args);
  g_strfreev(c->runs);
  g_free(c->note);
  g_free(c->detail);
  g_free(c);
}

static void
paper_free(Paper *p)
{
  if (p == NULL)
    return;
  g_free(p->key);
  g_free(p->dir);
  g_free(p->cite);
  g_free(p->summary);
  g_clear_pointer(&p->runs, g_ptr_array_unref);
  g_clear_pointer(&p->claims, g_ptr_array_unref);
  g_free(p);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Paper, paper_free)

const char *
lb_papers_dir(void)
{
  const char *env = g_getenv("LBSIM_PAPERS_DIR");
  if (env != NULL)
    return env;
  static char *dir;
  if (dir == NULL) {
    dir = lb_data_file("scenarios", "papers", NULL);
    if (dir == NULL)
      dir = g_strdup("scenarios/papers");
  }
  return dir;
}

static gboolean G_GNUC_PRINTF(4, 5)
    bad(GError **error, const char *file, const char *group, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  g_autofree char *what = g_strdup_vprintf(format, args);
  va_end(args);
  g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE, "%s: [%s] %s", file, group,
              what);
  return FALSE;
}

/* Every key of a group is one it knows. */
static gboolean
only_keys(GKeyFile *kf, const char *file, const char *group, const char *const *known,
          GError **error)
{
  g_auto(GStrv) keys = g_key_file_get_keys(kf, group, NULL, NULL);
  for (guint i = 0; keys != NULL && keys[i] != NULL; i++)
    if (!g_strv_contains(known, keys[i]))
      return bad(error, file, group, "%s: unknown key", keys[i]);
  return TRUE;
}

static char *
needed(GKeyFile *kf, const char *file, const char *group, const char *key, GError **error)
{
  char *v = g_key_file_get_string(kf, group, key, NULL);
  if (v == NULL || *g_strstrip(v) == '\0') {
    g_free(v);
    bad(error, file, group, "%s: missing", key);
    return NULL;
  }
  return v;
}

static gboolean
number(const char *file, const char *group, const char *key, const char *text, double *out,
       GError **error)
{
  if (lb_parse_decimal(text, out))
    return TRUE;
  return bad(error, file, group, "%s: '%s' is not a number", key, text);
}

/* A run's more axes: "NAME=LIST; NAME=LIST" (a sweep's --vary each). */
static gboolean
axes(const char *file, const char *group, const char *key, const char *text, GError **error)
{
  g_auto(GStrv) items = g_strsplit(text, ";", -1);
  for (guint i = 0; items[i] != NULL; i++) {
    const char *item = g_strstrip(items[i]);
    if (strchr(item, '=') == NULL)
      return bad(error, file, group, "%s: '%s' is not NAME=LIST", key, item);
    g_autofree char *name = g_strstrip(g_strndup(item, strcspn(item, "=")));
    if (strcmp(name, "ranks") == 0)
      return bad(error, file, group, "%s: the ranks are the run's ranks and quick-ranks", key);
  }
  return TRUE;
}

static gboolean
read_run(GKeyFile *kf, Paper *p, const char *file, const char *group, GError **error)
{
  static const char *const keys[] = {"scenario", "ranks",      "quick-ranks", "quick-steps",
                                     "vary",     "quick-vary", "platform",    NULL};
  if (!only_keys(kf, file, group, keys, error))
    return FALSE;
  Run *r = g_new0(Run, 1);
  g_ptr_array_add(p->runs, r);
  r->name = g_strdup(group + strlen("run:"));
  g_autofree char *scenario = needed(kf, file, group, "scenario", error);
  if (scenario == NULL || (r->ranks = needed(kf, file, group, "ranks", error)) == NULL ||
      (r->quick_ranks = needed(kf, file, group, "quick-ranks", error)) == NULL)
    return FALSE;
  r->scenario = g_build_filename(p->dir, scenario, NULL);
  if (g_key_file_has_key(kf, group, "quick-steps", NULL)) {
    g_autofree char *steps = needed(kf, file, group, "quick-steps", error);
    guint64 n = 0;
    if (steps == NULL)
      return FALSE;
    if (!g_ascii_string_to_unsigned(steps, 10, 1, 100000, &n, NULL))
      return bad(error, file, group, "quick-steps: '%s' is not a whole number from 1", steps);
    r->quick_steps = (guint)n;
  }
  if (g_key_file_has_key(kf, group, "vary", NULL) &&
      ((r->vary = needed(kf, file, group, "vary", error)) == NULL ||
       !axes(file, group, "vary", r->vary, error)))
    return FALSE;
  if (g_key_file_has_key(kf, group, "quick-vary", NULL) &&
      ((r->quick_vary = needed(kf, file, group, "quick-vary", error)) == NULL ||
       !axes(file, group, "quick-vary", r->quick_vary, error)))
    return FALSE;
  if (r->quick_vary != NULL && r->vary == NULL)
    return bad(error, file, group, "quick-vary: no vary for it to reduce");
  if (r->vary != NULL && r->quick_vary == NULL)
    r->quick_vary = g_strdup(r->vary);
  g_autofree char *platform = NULL;
  if (g_key_file_has_key(kf, group, "platform", NULL) &&
      (platform = needed(kf, file, group, "platform", error)) == NULL)
    return FALSE;
  if (platform != NULL && g_path_is_absolute(platform)) {
    r->platform = g_steal_pointer(&platform);
  } else if (platform != NULL) {
    /* in the paper's folder if it holds the file at the first rank count,
     * else in platforms/ */
    g_auto(GStrv) first = g_strsplit(r->ranks, ",", 2);
    g_auto(GStrv) parts = g_strsplit(platform, "{ranks}", -1);
    g_autofree char *example = g_strjoinv(g_strstrip(first[0]), parts);
    g_autofree char *own = g_build_filename(p->dir, example, NULL);
    r->platform = g_build_filename(
        g_file_test(own, G_FILE_TEST_IS_REGULAR) ? p->dir : lb_platform_dir(), platform, NULL);
  }
  return TRUE;
}

static const Run *
run_named(const Paper *p, const char *name)
{
  for (guint i = 0; i < p->runs->len; i++)
    if (strcmp(((Run *)p->runs->pdata[i])->name, name) == 0)
      return p->runs->pdata[i];
  return NULL;
}

static gboolean
read_check(Claim *c, const Paper *p, const char *file, const char *group, GPtrArray *words,
           GError **error)
{
  c->measure = MEASURE_CHECK;
  if (words->len < 2 || (c->check = lb_repro_check_lookup(words->pdata[1])) == NULL) {
    g_autofree char *names = lb_repro_check_names();
    return bad(error, file, group, "measure: '%s' is not a check (%s)",
               words->len < 2 ? "" : (char *)words->pdata[1], names);
  }
  guint nargs = words->len - 2;
  if (nargs < c->check->min_args || nargs > c->check->max_args)
    return bad(error, file, group, "measure: check %s takes %s", c->check->name, c->check->usage);
  g_ptr_array_add(words, NULL);
  c->args = g_strdupv((char **)words->pdata + 2);
  if (c->check->needs_run && c->run == NULL)
    return bad(error, file, group, "run: missing (check %s reads a run's results)", c->check->name);
  if (!c->check->needs_run && c->run != NULL)
    return bad(error, file, group, "run: check %s reads no run", c->check->name);
  g_autoptr(GError) local = NULL;
  if (c->check->validate != NULL &&
      !c->check->validate((const char *const *)c->args, nargs, p->dir, &local))
    return bad(error, file, group, "measure: %s", local->message);
  return TRUE;
}

static gboolean
read_claim(GKeyFile *kf, Paper *p, const char *file, const char *group, GError **error)
{
  static const char *const keys[] = {"claim", "run",      "ranks", "measure", "paper", "unit",
                                     "rule",  "required", "note",  "figure",  NULL};
  if (!only_keys(kf, file, group, keys, error))
    return FALSE;
  Claim *c = g_new0(Claim, 1);
  g_ptr_array_add(p->claims, c);
  c->id = g_strdup(group + strlen("claim:"));
  g_autofree char *ranks = NULL, *measure = NULL, *paper = NULL;
  if ((c->text = needed(kf, file, group, "claim", error)) == NULL ||
      (measure = needed(kf, file, group, "measure", error)) == NULL ||
      (paper = needed(kf, file, group, "paper", error)) == NULL ||
      (c->rule_text = needed(kf, file, group, "rule", error)) == NULL ||
      !number(file, group, "paper", paper, &c->paper, error))
    return FALSE;
  g_auto(GStrv) m = g_strsplit_set(measure, " \t", -1);
  g_autoptr(GPtrArray) words = g_ptr_array_new();
  for (guint i = 0; m[i] != NULL; i++)
    if (*m[i] != '\0')
      g_ptr_array_add(words, m[i]);
  gboolean check = words->len >= 1 && strcmp(words->pdata[0], "check") == 0;
  /* a check may read no run, and a run at every rank count */
  if ((!check || g_key_file_has_key(kf, group, "run", NULL)) &&
      (c->run = needed(kf, file, group, "run", error)) == NULL)
    return FALSE;
  if ((!check || g_key_file_has_key(kf, group, "ranks", NULL)) &&
      (ranks = needed(kf, file, group, "ranks", error)) == NULL)
    return FALSE;
  c->figure = g_key_file_get_string(kf, group, "figure", NULL);
  c->unit = g_key_file_get_string(kf, group, "unit", NULL);
  if (c->unit == NULL)
    c->unit = g_strdup("");
  g_autoptr(GError) local = NULL;
  c->required = g_key_file_has_key(kf, group, "required", NULL) &&
                g_key_file_get_boolean(kf, group, "required", &local);
  if (local != NULL)
    return bad(error, file, group, "required: true or false");
  guint64 r = 0;
  if (ranks != NULL && !g_ascii_string_to_unsigned(ranks, 10, 1, G_MAXUINT32, &r, NULL))
    return bad(error, file, group, "ranks: '%s' is not a rank count", ranks);
  c->ranks = (guint)r;
  /* a check may read several runs */
  if (check && c->run != NULL) {
    c->runs = g_strsplit(c->run, ",", -1);
    for (guint i = 0; c->runs[i] != NULL; i++)
      g_strstrip(c->runs[i]);
    g_free(c->run);
    c->run = g_strdup(c->runs[0]);
  }
  for (guint i = 0; c->runs != NULL && c->runs[i] != NULL; i++)
    if (run_named(p, c->runs[i]) == NULL)
      return bad(error, file, group, "run: no [run:%s] before it", c->runs[i]);
  if (c->run != NULL && run_named(p, c->run) == NULL)
    return bad(error, file, group, "run: no [run:%s] before it", c->run);
  if (ranks == NULL && !check)
    return bad(error, file, group, "ranks: missing");
  if (ranks != NULL && c->run == NULL)
    return bad(error, file, group, "ranks: the claim reads no run");
  if (check) {
    if (!read_check(c, p, file, group, words, error))
      return FALSE;
  } else if (words->len == 3 && strcmp(words->pdata[0], "value") == 0) {
    c->measure = MEASURE_VALUE;
    c->a = g_strdup(words->pdata[1]);
    c->metric = g_strdup(words->pdata[2]);
  } else if (words->len == 4 && strcmp(words->pdata[0], "improvement") == 0) {
    c->measure = MEASURE_IMPROVEMENT;
    c->metric = g_strdup(words->pdata[1]);
    c->a = g_strdup(words->pdata[2]);
    c->b = g_strdup(words->pdata[3]);
  } else if (words->len == 4 && strcmp(words->pdata[0], "share") == 0) {
    c->measure = MEASURE_SHARE;
    c->metric = g_strdup(words->pdata[1]);
    c->a = g_strdup(words->pdata[2]);
    c->b = g_strdup(words->pdata[3]);
  } else if (words->len >= 4 && strcmp(words->pdata[0], "relative") == 0) {
    c->measure = MEASURE_RELATIVE;
    c->metric = g_strdup(words->pdata[1]);
    c->a = g_strdup(words->pdata[2]);
    g_ptr_array_add(words, NULL);
    c->among = g_strdupv((char **)words->pdata + 3);
  } else {
    return bad(error, file, group,
               "measure: '%s' is not 'value BALANCER METRIC', 'improvement METRIC A B', "
               "'share METRIC A B', 'relative METRIC A B C ...' or 'check NAME ARGS ...'",
               measure);
  }
  g_auto(GStrv) rule = g_strsplit(c->rule_text, " ", -1);
  guint nr = g_strv_length(rule);
  if (nr == 1 && strcmp(rule[0], "same-sign") == 0)
    c->rule = RULE_SAME_SIGN;
  else if (nr == 1 && strcmp(rule[0], "within-2x") == 0)
    c->rule = RULE_WITHIN_2X;
  else if (nr == 2 && strcmp(rule[0], "at-most") == 0 && lb_parse_decimal(rule[1], &c->hi))
    c->rule = RULE_AT_MOST;
  else if (nr == 2 && strcmp(rule[0], "at-least") == 0 && lb_parse_decimal(rule[1], &c->lo))
    c->rule = RULE_AT_LEAST;
  else if (nr == 3 && strcmp(rule[0], "range") == 0 && lb_parse_decimal(rule[1], &c->lo) &&
           lb_parse_decimal(rule[2], &c->hi) && c->lo <= c->hi)
    c->rule = RULE_RANGE;
  else
    return bad(error, file, group,
               "rule: '%s' is not same-sign, within-2x, at-most X, at-least X or range LO HI",
               c->rule_text);
  return TRUE;
}

static Paper *
paper_load(const char *key, GError **error)
{
  g_autoptr(Paper) p = g_new0(Paper, 1);
  p->key = g_strdup(key);
  p->dir = g_build_filename(lb_papers_dir(), key, NULL);
  p->runs = g_ptr_array_new_with_free_func(run_free);
  p->claims = g_ptr_array_new_with_free_func(claim_free);
  g_autofree char *file = g_build_filename(p->dir, "claims.ini", NULL);
  if (strchr(key, '/') != NULL || key[0] == '.' || !g_file_test(file, G_FILE_TEST_EXISTS)) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                "no paper '%s' (lbsim reproduce lists them)", key);
    return NULL;
  }
  g_autofree char *text = NULL;
  gsize length = 0;
  if (!lb_input_read(file, LB_INPUT_SCENARIO, &text, &length, error))
    return NULL;
  g_autoptr(GKeyFile) kf = g_key_file_new();
  if (!g_key_file_load_from_data(kf, text, length, G_KEY_FILE_NONE, error)) {
    g_prefix_error(error, "%s: ", file);
    return NULL;
  }
  static const char *const paper_keys[] = {"cite", "summary", NULL};
  if (!g_key_file_has_group(kf, "paper")) {
    bad(error, file, "paper", "missing");
    return NULL;
  }
  if (!only_keys(kf, file, "paper", paper_keys, error) ||
      (p->cite = needed(kf, file, "paper", "cite", error)) == NULL ||
      (p->summary = needed(kf, file, "paper", "summary", error)) == NULL)
    return NULL;
  g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);
  for (guint i = 0; groups[i] != NULL; i++) {
    gboolean ok = strcmp(groups[i], "paper") == 0       ? TRUE
                  : g_str_has_prefix(groups[i], "run:") ? read_run(kf, p, file, groups[i], error)
                  : g_str_has_prefix(groups[i], "claim:")
                      ? read_claim(kf, p, file, groups[i], error)
                      : bad(error, file, groups[i], "unknown group");
    if (!ok)
      return NULL;
  }
  return g_steal_pointer(&p);
}

/* ---- evaluating ---- */

/* The ranks of a run of the sweep (every run's sweep varies them). */
static guint
ranks_of(const LbSweep *sw, const LbSweepRun *run)
{
  guint axis = 0;
  while (axis < sw->axes->len && strcmp(((LbSweepAxis *)sw->axes->pdata[axis])->name, "ranks") != 0)
    axis++;
  return (guint)g_ascii_strtoull(lb_sweep_value(sw, run->point, axis), NULL, 10);
}

static const LbRunResult *
result_of(const Run *r, guint ranks, const char *label)
{
  const LbSweep *sw = r->sweep;
  for (guint i = 0; i < sw->runs->len; i++) {
    const LbSweepRun *run = sw->runs->pdata[i];
    if (r->results[i] != NULL && strcmp(run->balancer, label) == 0 && ranks_of(sw, run) == ranks)
      return r->results[i];
  }
  return NULL;
}

static gboolean
value(const Run *r, guint ranks, const char *label, const char *metric, double *v)
{
  const LbRunResult *res = result_of(r, ranks, label);
  return res != NULL && lb_run_result_lookup(res, metric, v);
}

/* Whether lbsim's number agrees with the paper's, by the claim's rule. */
static void
judge(Claim *c)
{
  double x = c->lbsim, y = c->paper;
  switch (c->rule) {
  case RULE_SAME_SIGN:
    c->agrees = (x > 0 && y > 0) || (x < 0 && y < 0) || (x == 0 && y == 0);
    break;
  case RULE_WITHIN_2X:
    c->agrees = y > 0 && x >= y / 2 && x <= 2 * y;
    break;
  case RULE_AT_MOST:
    c->agrees = x <= c->hi;
    break;
  case RULE_AT_LEAST:
    c->agrees = x >= c->lo;
    break;
  case RULE_RANGE:
    c->agrees = x >= c->lo && x <= c->hi;
    break;
  }
}

static void
evaluate(Claim *c, const Run *r, gboolean ran)
{
  if (!ran) {
    c->note = g_strdup("not run (--quick)");
    return;
  }
  double a = 0, b = 0;
  if (!value(r, c->ranks, c->a, c->metric, &a) ||
      ((c->measure == MEASURE_IMPROVEMENT || c->measure == MEASURE_SHARE) &&
       !value(r, c->ranks, c->b, c->metric, &b))) {
    c->note = g_strdup("its run failed or has no such metric");
    return;
  }
  /* relative: b is the least of a and the others */
  if (c->measure == MEASURE_RELATIVE)
    b = a;
  for (guint k = 0; c->measure == MEASURE_RELATIVE && c->among[k] != NULL; k++) {
    double v = 0;
    if (!value(r, c->ranks, c->among[k], c->metric, &v)) {
      c->note = g_strdup("its run failed or has no such metric");
      return;
    }
    b = MIN(b, v);
  }
  c->done = TRUE;
  c->lbsim = c->measure == MEASURE_IMPROVEMENT ? 100.0 * (a - b) / a
             : c->measure == MEASURE_SHARE     ? 100.0 * a / b
             : c->measure == MEASURE_RELATIVE  ? a / b
                                               : a;
  judge(c);
  double x = c->lbsim, y = c->paper;
  if (c->measure == MEASURE_IMPROVEMENT || c->measure == MEASURE_SHARE)
    c->note = g_strdup_printf("%s %.4g against %.4g", c->metric, a, b);
  else if (c->measure == MEASURE_RELATIVE)
    c->note = g_strdup_printf("%s %.4g against the least, %.4g", c->metric, a, b);
  else if (y != 0 && isfinite(x))
    c->note = g_strdup_printf("%.2f x the paper's", x / y);
}

/* A check's number: from the claim's run at its ranks (if it reads one)
 * and the check's own computation. FALSE when it could not be made (the
 * note says why). */
static gboolean
evaluate_check(Claim *c, const Paper *p, gboolean ran, gboolean quick, guint jobs)
{
  if (!ran) {
    c->note = g_strdup("not run (--quick)");
    return TRUE;
  }
  g_autoptr(GArray) runs = g_array_new(FALSE, FALSE, sizeof(LbCheckRun));
  g_autoptr(GPtrArray) points = g_ptr_array_new_with_free_func(g_free);
  for (guint k = 0; c->runs != NULL && c->runs[k] != NULL; k++) {
    const Run *r = run_named(p, c->runs[k]);
    for (guint i = 0; i < r->sweep->runs->len; i++) {
      const LbSweepRun *run = r->sweep->runs->pdata[i];
      if (c->ranks != 0 && ranks_of(r->sweep, run) != c->ranks)
        continue;
      if (r->results[i] == NULL) {
        c->note = g_strdup_printf("a run of %s failed", r->name);
        return TRUE;
      }
      g_autofree char *where = lb_sweep_describe(r->sweep, run);
      char *point = g_strdup_printf("%s: %s", r->name, where);
      g_ptr_array_add(points, point);
      LbCheckRun one = {run->job, point, r->results[i]};
      g_array_append_val(runs, one);
    }
  }
  LbCheckInput in = {quick,
                     jobs,
                     p->dir,
                     (const char *const *)c->args,
                     g_strv_length(c->args),
                     (const LbCheckRun *)runs->data,
                     runs->len};
  LbCheckOutput out = {0};
  g_autoptr(GError) error = NULL;
  if (!c->check->compute(&in, &out, &error)) {
    c->failed = TRUE;
    c->note = g_strdup_printf("failed: %s", error->message);
    g_free(out.note);
    g_free(out.detail);
    return FALSE;
  }
  c->done = TRUE;
  c->lbsim = out.value;
  c->note = out.note != NULL ? out.note : g_strdup("");
  c->detail = out.detail;
  judge(c);
  return TRUE;
}

/* ---- output ---- */

static char *quick_text(const Paper *p);

/* Counts (a check's mismatches, a step count) print whole, and a ratio
 * near 1 with its four digits. */
static char *
number_text(double v, const char *unit)
{
  const char *space = *unit != '\0' ? " " : "";
  if ((v == floor(v) && fabs(v) < 1e15) || fabs(v) >= 1e4)
    return g_strdup_printf("%.0f%s%s", v, space, unit);
  return g_strdup_printf("%.4g%s%s", v, space, unit);
}

static char *
table(const Paper *p, gboolean quick)
{
  GString *out = g_string_new(NULL);
  g_string_append_printf(out, "%s: %s\n%s\n", p->key, p->cite, p->summary);
  if (quick) {
    g_autofree char *ran = quick_text(p);
    g_string_append_printf(out, "quick form: %s\n", ran);
  }
  g_string_append_printf(out, "\n%-30s %14s %14s  %-18s %-7s %s\n", "claim", "paper", "lbsim",
                         "rule", "agrees", "note");
  guint agree = 0, done = 0, required_bad = 0, failed = 0;
  for (guint i = 0; i < p->claims->len; i++) {
    const Claim *c = p->claims->pdata[i];
    g_autofree char *paper = number_text(c->paper, c->unit);
    g_autofree char *lbsim = c->done ? number_text(c->lbsim, c->unit) : g_strdup("-");
    const char *verdict = !c->done ? "-" : c->agrees ? "yes" : "NO";
    g_string_append_printf(out, "%-30s %14s %14s  %-18s %-7s %s%s\n", c->id, paper, lbsim,
                           c->rule_text, verdict, c->required ? "(required) " : "",
                           c->note != NULL ? c->note : "");
    done += c->done;
    agree += c->done && c->agrees;
    required_bad += c->done && c->required && !c->agrees;
    failed += c->failed;
  }
  g_string_append_printf(out, "\n%u of %u claims checked agree; %u required claim%s disagree%s",
                         agree, done, required_bad, required_bad == 1 ? "" : "s",
                         required_bad == 1 ? "s" : "");
  if (failed > 0)
    g_string_append_printf(out, "; %u check%s could not be made", failed, failed == 1 ? "" : "s");
  g_string_append_c(out, '\n');
  g_string_append(out, "\nThe claims:\n");
  for (guint i = 0; i < p->claims->len; i++) {
    const Claim *c = p->claims->pdata[i];
    g_string_append_printf(out, "  %s: %s\n", c->id, c->text);
  }
  gboolean examples = FALSE;
  for (guint i = 0; i < p->claims->len; i++) {
    const Claim *c = p->claims->pdata[i];
    if (c->detail == NULL)
      continue;
    if (!examples)
      g_string_append(out, "\nAs lbsim computes them:\n");
    examples = TRUE;
    g_string_append_printf(out, "\n  %s:\n", c->id);
    g_auto(GStrv) lines = g_strsplit(c->detail, "\n", -1);
    for (guint k = 0; lines[k] != NULL; k++)
      if (*lines[k] != '\0')
        g_string_append_printf(out, "    %s\n", lines[k]);
  }
  return g_string_free(out, FALSE);
}

static char *
document(const Paper *p, gboolean quick)
{
  GString *out = g_string_new(NULL);
  LbJson j;
  lb_json_init(&j, out);
  lb_json_begin_object(&j, NULL);
  lb_report_write_format(&j);
  lb_json_string(&j, "paper", p->key);
  lb_json_string(&j, "cite", p->cite);
  lb_json_bool(&j, "quick", quick);
  lb_json_begin_array(&j, "claims", FALSE);
  for (guint i = 0; i < p->claims->len; i++) {
    const Claim *c = p->claims->pdata[i];
    lb_json_begin_object(&j, NULL);
    lb_json_string(&j, "id", c->id);
    lb_json_string(&j, "claim", c->text);
    lb_json_double(&j, "paper", c->paper);
    if (c->done)
      lb_json_double(&j, "lbsim", c->lbsim);
    else
      lb_json_raw(&j, "lbsim", "null");
    lb_json_string(&j, "unit", c->unit);
    lb_json_string(&j, "rule", c->rule_text);
    if (c->done)
      lb_json_bool(&j, "agrees", c->agrees);
    else
      lb_json_raw(&j, "agrees", "null");
    lb_json_bool(&j, "required", c->required);
    lb_json_string(&j, "note", c->note != NULL ? c->note : "");
    if (c->detail != NULL)
      lb_json_string(&j, "detail", c->detail);
    lb_json_end_object(&j);
  }
  lb_json_end_array(&j);
  lb_json_end_object(&j);
  g_string_append_c(out, '\n');
  return g_string_free(out, FALSE);
}

static char *
csv(const Paper *p)
{
  GString *out = g_string_new("id,claim,paper,lbsim,unit,rule,agrees,required,note\n");
  for (guint i = 0; i < p->claims->len; i++) {
    const Claim *c = p->claims->pdata[i];
    lb_report_csv_text(out, c->id);
    g_string_append_c(out, ',');
    lb_report_csv_text(out, c->text);
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_string_append_printf(out, ",%s,", g_ascii_formatd(buf, sizeof buf, "%.10g", c->paper));
    if (c->done)
      g_string_append(out, g_ascii_formatd(buf, sizeof buf, "%.10g", c->lbsim));
    g_string_append_c(out, ',');
    lb_report_csv_text(out, c->unit);
    g_string_append_c(out, ',');
    lb_report_csv_text(out, c->rule_text);
    g_string_append_printf(out, ",%s,%s,",
                           !c->done    ? ""
                           : c->agrees ? "true"
                                       : "false",
                           c->required ? "true" : "false");
    lb_report_csv_text(out, c->note != NULL ? c->note : "");
    g_string_append_c(out, '\n');
  }
  return g_string_free(out, FALSE);
}

/* What the quick form ran, for the page. */
static char *
quick_text(const Paper *p)
{
  GString *t = g_string_new(NULL);
  for (guint i = 0; i < p->runs->len; i++) {
    const Run *r = p->runs->pdata[i];
    g_string_append_printf(t, "%s%s on %s ranks", i ? "; " : "", r->name, r->quick_ranks);
    if (r->quick_steps > 0)
      g_string_append_printf(t, ", %u adaptations", r->quick_steps);
    g_auto(GStrv) axes = r->quick_vary != NULL ? g_strsplit(r->quick_vary, ";", -1) : NULL;
    for (guint k = 0; axes != NULL && axes[k] != NULL; k++)
      g_string_append_printf(t, " x %s", g_strstrip(axes[k]));
  }
  gboolean checks = FALSE;
  for (guint i = 0; i < p->claims->len; i++)
    checks |= ((const Claim *)p->claims->pdata[i])->measure == MEASURE_CHECK;
  if (checks)
    g_string_append_printf(t, "%sthe checks on fewer cases", t->len > 0 ? "; " : "");
  return g_string_free(t, FALSE);
}

static gboolean
write_report(const Paper *p, gboolean quick, const char *dir, gboolean make, GError **error)
{
  if (make && !lb_output_make_folder("--report", dir, error))
    return FALSE;
  g_autofree LbClaimRow *rows = g_new0(LbClaimRow, MAX(p->claims->len, 1));
  for (guint i = 0; i < p->claims->len; i++) {
    const Claim *c = p->claims->pdata[i];
    rows[i] = (LbClaimRow){c->id,     c->text,     c->unit,  c->rule_text, c->note ? c->note : "",
                           c->figure, c->ranks,    c->paper, c->lbsim,     c->done,
                           c->agrees, c->required, c->detail};
  }
  g_autofree char *quick_form = quick ? quick_text(p) : NULL;
  LbReproduction rep = {p->key, p->cite, p->summary, quick_form, rows, p->claims->len};
  g_autofree char *doc = document(p, quick);
  LbHtmlOptions options = {.json = doc, .length = strlen(doc), .dir = dir};
  return lb_html_write_reproduction(&rep, &options, error);
}

static int
list_papers(void)
{
  g_autoptr(GDir) dir = g_dir_open(lb_papers_dir(), 0, NULL);
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func(g_free);
  for (const char *name; dir != NULL && (name = g_dir_read_name(dir)) != NULL;)
    g_ptr_array_add(keys, g_strdup(name));
  g_ptr_array_sort(keys, (GCompareFunc)(void (*)(void))g_strcmp0);
  g_print("Papers lbsim reproduces (lbsim reproduce KEY [--quick]):\n");
  for (guint i = 0; i < keys->len; i++) {
    g_autoptr(GError) error = NULL;
    g_autoptr(Paper) p = paper_load(keys->pdata[i], &error);
    if (p == NULL)
      continue;
    g_print("  %-10s %u claims: %s\n             %s\n", p->key, p->claims->len, p->cite,
            p->summary);
  }
  return 0;
}

typedef struct {
  gboolean quick, check, quiet, force;
  char *jobs, *json, *csv, *state, *report;
} Args;

static void
args_clear(Args *a)
{
  g_free(a->report);
  g_free(a->jobs);
  g_free(a->json);
  g_free(a->csv);
  g_free(a->state);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Args, args_clear)

int
lb_cmd_reproduce(const LbCommand *self, int argc, char **argv)
{
  g_auto(Args) a = {0};
  GOptionEntry entries[] = {
      {"quick", 0, 0, G_OPTION_ARG_NONE, &a.quick,
       "The reduced form: fewer processor counts, shorter runs (said in the output)", NULL},
      {"jobs", 'j', 0, G_OPTION_ARG_STRING, &a.jobs,
       "Simulations at once (default: the number of processors)", "N"},
      {"json", 'o', 0, G_OPTION_ARG_FILENAME, &a.json,
       "The claims and lbsim's numbers as JSON (-: on standard output, instead of the table)",
       "FILE"},
      {"csv", 0, 0, G_OPTION_ARG_FILENAME, &a.csv,
       "The same as CSV, one row per claim (-: on standard output, instead of the table)", "FILE"},
      {"state", 0, 0, G_OPTION_ARG_FILENAME, &a.state,
       "Keep the runs here, to resume (default: KEY-reproduce.d, or KEY-quick.d)", "DIR"},
      {"report", 0, 0, G_OPTION_ARG_FILENAME, &a.report,
       "An HTML page of the claims and of the paper's figures, the paper's numbers beside "
       "lbsim's, in DIR",
       "DIR"},
      {"force", 0, 0, G_OPTION_ARG_NONE, &a.force,
       "Replace a report folder that holds another report", NULL},
      {"check", 0, 0, G_OPTION_ARG_NONE, &a.check,
       "Exit 1 when a required claim disagrees (for a CI)", NULL},
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &a.quiet, "No progress on stderr", NULL},
      {NULL},
  };
  g_auto(GStrv) args = lb_command_parse(
      self, entries,
      "Without KEY, lists the papers. With KEY, runs that paper's experiment (its scenario\n"
      "files under scenarios/papers/KEY/, varied over processor counts as a sweep, each\n"
      "run kept in the state folder so that the same command resumes) and prints one row\n"
      "per claim: the paper's number, lbsim's, the rule that compares them, whether they\n"
      "agree. See docs/reference/reproduce.md.\n"
      "Exit status: 0 done, 1 a run failed or (--check) a required claim disagrees,\n"
      "2 bad input, 3 a run broke an invariant.",
      argc, argv);
  if (args == NULL)
    return LB_EXIT_INPUT;
  g_autoptr(GError) error = NULL;
  guint n = g_strv_length(args);
  if (n == 1)
    return list_papers();
  if (n != 2) {
    g_printerr("lbsim: reproduce takes one paper's key (lbsim reproduce lists them)\n");
    return LB_EXIT_INPUT;
  }
  guint jobs = 0;
  if (a.jobs != NULL && !lb_runner_parse_count("--jobs", a.jobs, &jobs, &error)) {
    g_printerr("lbsim: %s\n", error->message);
    return LB_EXIT_INPUT;
  }
  g_autoptr(Paper) p = paper_load(args[1], &error);
  if (p == NULL) {
    g_printerr("lbsim: %s\n", error->message);
    return LB_EXIT_INPUT;
  }
  g_autofree char *state =
      a.state != NULL ? g_strdup(a.state)
                      : g_strdup_printf("%s-%s.d", p->key, a.quick ? "quick" : "reproduce");
  lb_signals_alone();
  /* every sweep is made, so every scenario is checked, before anything runs */
  for (guint i = 0; i < p->runs->len; i++) {
    Run *r = p->runs->pdata[i];
    g_autoptr(GPtrArray) varies = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(varies, g_strdup_printf("ranks=%s", a.quick ? r->quick_ranks : r->ranks));
    const char *more = a.quick ? r->quick_vary : r->vary;
    g_auto(GStrv) axes = more != NULL ? g_strsplit(more, ";", -1) : NULL;
    for (guint k = 0; axes != NULL && axes[k] != NULL; k++)
      g_ptr_array_add(varies, g_strdup(g_strstrip(axes[k])));
    g_ptr_array_add(varies, NULL);
    g_autofree char *steps = g_strdup_printf("scenario.steps=%u", r->quick_steps);
    const char *const sets[] = {steps, NULL};
    r->sweep = lb_sweep_new(r->scenario, (const char *const *)varies->pdata, r->platform,
                            a.quick && r->quick_steps > 0 ? sets : NULL, &error);
    if (r->sweep == NULL) {
      g_printerr("lbsim: %s\n", error->message);
      return LB_EXIT_INPUT;
    }
  }
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
    if (outputs[i][1] != NULL &&
        (!lb_output_check(outputs[i][0], outputs[i][1], &error) ||
         !lb_file_set_output(files, outputs[i][0], outputs[i][1], &error))) {
      g_printerr("lbsim: %s\n", error->message);
      return LB_EXIT_INPUT;
    }
  gboolean make_state = FALSE;
  if (!lb_output_check_folder("--state", state, &make_state, &error)) {
    g_printerr("lbsim: %s\n", error->message);
    return LB_EXIT_INPUT;
  }
  gboolean make = FALSE;
  if (a.report != NULL &&
      !lb_html_check_folder(a.report, "--report", "reproduction", p->key, a.force, &make, &error)) {
    g_printerr("lbsim: %s\n", error->message);
    return LB_EXIT_INPUT;
  }
  int worst = 0;
  for (guint i = 0; i < p->runs->len; i++) {
    Run *r = p->runs->pdata[i];
    g_autofree char *dir = g_build_filename(state, r->name, NULL);
    g_autofree char *json = g_strdup_printf("%s.json", dir);
    if (!a.quiet)
      g_printerr("lbsim: %s: %s\n", p->key, r->name);
    int code = lb_sweep_execute(r->sweep, dir, json, NULL, jobs, a.quiet, &r->results);
    worst = MAX(worst, code);
  }
  for (guint i = 0; i < p->claims->len; i++) {
    Claim *c = p->claims->pdata[i];
    const Run *r = c->run != NULL ? run_named(p, c->run) : NULL;
    g_auto(GStrv) ranks =
        r != NULL ? g_strsplit(a.quick ? r->quick_ranks : r->ranks, ",", -1) : g_new0(char *, 1);
    gboolean ran = c->ranks == 0;
    for (guint k = 0; ranks[k] != NULL; k++)
      ran |= g_ascii_strtoull(g_strstrip(ranks[k]), NULL, 10) == c->ranks;
    if (c->measure != MEASURE_CHECK) {
      evaluate(c, r, ran);
      continue;
    }
    if (!a.quiet)
      g_printerr("lbsim: %s: %s (check %s)\n", p->key, c->id, c->check->name);
    if (!evaluate_check(c, p, ran, a.quick, jobs))
      worst = MAX(worst, 1);
  }
  g_autofree char *text = table(p, a.quick);
  if (!json_out && !csv_out)
    lb_output_stdout(text);
  if (a.json != NULL) {
    g_autofree char *doc = document(p, a.quick);
    if (json_out)
      lb_output_stdout(doc);
    else if (!lb_output_write(a.json, doc, -1, &error)) {
      g_printerr("lbsim: %s\n", error->message);
      return 1;
    }
  }
  if (a.report != NULL && !write_report(p, a.quick, a.report, make, &error)) {
    g_printerr("lbsim: %s\n", error->message);
    return 1;
  }
  if (a.csv != NULL) {
    g_autofree char *rows = csv(p);
    if (csv_out)
      lb_output_stdout(rows);
    else if (!lb_output_write(a.csv, rows, -1, &error)) {
      g_printerr("lbsim: %s\n", error->message);
      return 1;
    }
  }
  if (a.check)
    for (guint i = 0; i < p->claims->len; i++) {
      const Claim *c = p->claims->pdata[i];
      if (c->done && c->required && !c->agrees)
        worst = MAX(worst, 1);
    }
  return worst;
}
