/* A paper's experiment run through the sweep machinery and every claim
 * judged by its rule; the scorecard of the headline claims. */
#include "reproduce/evaluate.h"

#include <math.h>
#include <string.h>

#include "lbsim/balancer.h"
#include "metrics/summary.h"

/* ---- before anything runs ---- */

/* The ranks of a run of the sweep (every run's sweep varies them). */
static guint
ranks_of(const LbSweep *sw, const LbSweepRun *run)
{
  guint axis = 0;
  while (axis < sw->axes->len && strcmp(((LbSweepAxis *)sw->axes->pdata[axis])->name, "ranks") != 0)
    axis++;
  return (guint)g_ascii_strtoull(lb_sweep_value(sw, run->point, axis), NULL, 10);
}

static gboolean
has_label(const LbPaperRun *r, const char *label)
{
  for (guint i = 0; i < r->sweep->runs->len; i++)
    if (strcmp(((LbSweepRun *)r->sweep->runs->pdata[i])->balancer, label) == 0)
      return TRUE;
  return FALSE;
}

static char *
labels_text(const LbPaperRun *r)
{
  g_autoptr(GPtrArray) seen = g_ptr_array_new();
  for (guint i = 0; i < r->sweep->runs->len; i++) {
    char *label = ((LbSweepRun *)r->sweep->runs->pdata[i])->balancer;
    if (!g_ptr_array_find_with_equal_func(seen, label, g_str_equal, NULL))
      g_ptr_array_add(seen, label);
  }
  g_ptr_array_add(seen, NULL);
  return g_strjoinv(", ", (char **)seen->pdata);
}

/* Whether a run of the label has the metric: a summary field of every run,
 * or one its balancer declares. A balancer lbsim does not know here (a
 * plugin's) is taken at its word. */
static gboolean
has_metric(const char *label, const char *metric)
{
  const LbSummaryField *f = lb_summary_lookup(metric);
  if (f != NULL && (f->where & LB_SUMMARY_RUN) && f->run_offset >= 0)
    return TRUE;
  g_autofree char *name = g_strndup(label, strcspn(label, ":"));
  const LbBalancer *b = lb_balancer_lookup(name);
  if (b == NULL)
    return TRUE;
  g_autoptr(GArray) defs = lb_balancer_metric_defs(b);
  return lb_metric_defs_find(defs, metric) >= 0;
}

static gboolean G_GNUC_PRINTF(3, 4)
    refuse(GError **error, const LbClaim *c, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  g_autofree char *what = g_strdup_vprintf(format, args);
  va_end(args);
  g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE, "claims.ini: [%s:%s] %s",
              c->diagnostic ? "diagnostic" : "claim", c->id, what);
  return FALSE;
}

/* The labels and metric a claim names, in every run it reads. */
static gboolean
names_hold(const LbPaper *p, const LbClaim *c, GError **error)
{
  g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func(g_free);
  const char *metric = c->metric;
  if (c->measure != LB_MEASURE_CHECK) {
    for (guint i = 0; c->labels[i] != NULL; i++)
      g_ptr_array_add(labels, g_strdup(c->labels[i]));
  } else {
    const LbReproCheck *k = c->check;
    guint n = g_strv_length(c->args);
    for (int i = k->label_first; i >= 0 && (guint)i < n && i <= k->label_last; i++)
      g_ptr_array_add(
          labels, g_strconcat(k->label_prefix != NULL ? k->label_prefix : "", c->args[i], NULL));
    if (k->needs_label != NULL)
      g_ptr_array_add(labels, g_strdup(k->needs_label));
    metric = k->metric_arg >= 0 ? c->args[k->metric_arg] : NULL;
  }
  for (guint k = 0; c->runs != NULL && c->runs[k] != NULL; k++) {
    const LbPaperRun *r = lb_paper_run(p, c->runs[k]);
    for (guint i = 0; i < labels->len; i++)
      if (!has_label(r, labels->pdata[i])) {
        g_autofree char *known = labels_text(r);
        return refuse(error, c, "measure: [run:%s] runs no balancer '%s' (its labels: %s)", r->name,
                      (char *)labels->pdata[i], known);
      }
    /* a metric the check reads of every label when it names none */
    if (metric != NULL && labels->len == 0)
      for (guint i = 0; i < r->sweep->runs->len; i++)
        g_ptr_array_add(labels, g_strdup(((LbSweepRun *)r->sweep->runs->pdata[i])->balancer));
    for (guint i = 0; metric != NULL && i < labels->len; i++)
      if (!has_metric(labels->pdata[i], metric))
        return refuse(error, c, "measure: a run of '%s' has no metric '%s'",
                      (char *)labels->pdata[i], metric);
  }
  return TRUE;
}

gboolean
lb_paper_prepare(LbPaper *p, gboolean quick, const char *const *sets, GError **error)
{
  for (guint i = 0; i < p->runs->len; i++) {
    LbPaperRun *r = p->runs->pdata[i];
    g_autoptr(GPtrArray) varies = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(varies, g_strdup_printf("ranks=%s", quick ? r->quick_ranks : r->ranks));
    const char *more = quick ? r->quick_vary : r->vary;
    g_auto(GStrv) axes = more != NULL ? g_strsplit(more, ";", -1) : NULL;
    for (guint k = 0; axes != NULL && axes[k] != NULL; k++)
      g_ptr_array_add(varies, g_strdup(g_strstrip(axes[k])));
    g_ptr_array_add(varies, NULL);
    g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func(g_free);
    if (quick && r->quick_steps > 0)
      g_ptr_array_add(all, g_strdup_printf("scenario.steps=%u", r->quick_steps));
    for (guint k = 0; r->deep && p->deep_sets[k] != NULL; k++)
      g_ptr_array_add(all, g_strdup(p->deep_sets[k]));
    for (guint k = 0; sets != NULL && sets[k] != NULL; k++)
      g_ptr_array_add(all, g_strdup(sets[k]));
    g_ptr_array_add(all, NULL);
    r->sweep = lb_sweep_new(r->scenario, (const char *const *)varies->pdata, r->platform,
                            all->len > 1 ? (const char *const *)all->pdata : NULL, error);
    if (r->sweep == NULL)
      return FALSE;
  }
  for (guint i = 0; i < p->claims->len; i++)
    if (!names_hold(p, p->claims->pdata[i], error))
      return FALSE;
  return TRUE;
}

int
lb_paper_execute(LbPaper *p, const char *state, guint jobs, gboolean quiet)
{
  int worst = 0;
  for (guint i = 0; i < p->runs->len; i++) {
    LbPaperRun *r = p->runs->pdata[i];
    if (r->left_out)
      continue;
    g_autofree char *dir = g_build_filename(state, r->name, NULL);
    g_autofree char *json = g_strdup_printf("%s.json", dir);
    if (!quiet)
      g_printerr("lbsim: %s: %s\n", p->key, r->name);
    int code = lb_sweep_execute(r->sweep, dir, json, NULL, jobs, quiet, &r->results);
    worst = MAX(worst, code);
  }
  return worst;
}

/* ---- evaluating ---- */

static const LbRunResult *
result_of(const LbPaperRun *r, guint ranks, const char *label)
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
ran_at(const LbPaperRun *r, guint ranks)
{
  for (guint i = 0; i < r->sweep->runs->len; i++)
    if (ranks_of(r->sweep, r->sweep->runs->pdata[i]) == ranks)
      return TRUE;
  return FALSE;
}

static void
add_point(GArray *points, double value, const char *label, guint run, guint ranks)
{
  LbClaimPoint pt = {g_strdup(label), value, run, ranks};
  g_array_append_val(points, pt);
}

/* One point of a measure on the runs of a run at ranks: FALSE when a run
 * it reads failed. *note says how it was computed. */
static gboolean
measure_point(const LbClaim *c, const LbPaperRun *r, guint ranks, double *out, char **note)
{
  guint n = g_strv_length(c->labels);
  g_autofree double *v = g_new(double, n);
  for (guint i = 0; i < n; i++) {
    const LbRunResult *res = result_of(r, ranks, c->labels[i]);
    if (res == NULL || !lb_run_result_lookup(res, c->metric, &v[i]))
      return FALSE;
  }
  double a = v[0], b = n > 1 ? v[1] : 0, least = a;
  guint disorder = 0;
  for (guint i = 1; i < n; i++) {
    least = MIN(least, v[i]);
    disorder += v[i - 1] > v[i];
  }
  switch (c->measure) {
  case LB_MEASURE_VALUE:
    *out = a;
    break;
  case LB_MEASURE_IMPROVEMENT:
    *out = 100.0 * (a - b) / a;
    break;
  case LB_MEASURE_EXCESS:
    *out = 100.0 * (a - b) / b;
    break;
  case LB_MEASURE_RATIO:
    *out = a / b;
    break;
  case LB_MEASURE_SHARE:
    *out = 100.0 * a / b;
    break;
  case LB_MEASURE_GAP:
    *out = 100.0 * (a - b) / v[2];
    break;
  case LB_MEASURE_RELATIVE:
    *out = a / least;
    break;
  case LB_MEASURE_ABOVE:
    *out = 100.0 * (a / least - 1);
    break;
  case LB_MEASURE_ORDER:
    *out = disorder;
    break;
  case LB_MEASURE_CHECK:
    g_assert_not_reached();
  }
  g_autoptr(GString) t = g_string_new(NULL);
  if (c->measure == LB_MEASURE_RELATIVE || c->measure == LB_MEASURE_ABOVE) {
    g_string_printf(t, "%s %.4g against the least, %.4g", c->metric, a, least);
  } else if (c->measure == LB_MEASURE_ORDER || c->measure == LB_MEASURE_GAP) {
    g_string_printf(t, "%s", c->metric);
    for (guint i = 0; i < n; i++)
      g_string_append_printf(t, "%s %.4g", i ? "," : "", v[i]);
  } else if (c->measure != LB_MEASURE_VALUE) {
    g_string_printf(t, "%s %.4g against %.4g", c->metric, a, b);
  }
  *note = g_string_free(g_steal_pointer(&t), FALSE);
  return TRUE;
}

/* The rule on the claim's number, or on its points for a rule of a
 * family (every, spans): the number shown is then the worst point (spans:
 * the largest). */
static void
judge(LbClaim *c)
{
  if (c->diagnostic)
    return;
  gboolean family = c->rule.every || c->rule.kind == LB_RULE_SPANS;
  guint n = family ? c->points->len : 1;
  g_autofree double *values = g_new(double, MAX(n, 1));
  for (guint i = 0; i < n; i++)
    values[i] = family ? g_array_index(c->points, LbClaimPoint, i).value : c->lbsim;
  double shown = c->lbsim;
  guint at = 0;
  c->agrees = lb_rule_judge(&c->rule, c->paper, values, n, &shown, &at);
  if (!family || n < 2)
    return;
  c->lbsim = shown;
  guint holding = 0;
  double least = values[0];
  for (guint i = 0; i < n; i++) {
    holding += lb_rule_holds(&c->rule, c->paper, values[i]);
    least = MIN(least, values[i]);
  }
  const char *where = g_array_index(c->points, LbClaimPoint, at).label;
  g_free(c->note);
  if (c->rule.kind == LB_RULE_SPANS)
    c->note = g_strdup_printf("%u points, from %.4g to %.4g (at %s)", n, least, shown, where);
  else
    c->note = g_strdup_printf("%u of %u points hold it; the worst, %.4g, at %s", holding, n, shown,
                              where);
}

static void
evaluate_measure(LbClaim *c, const LbPaper *p)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func(g_free);
  gboolean any = FALSE;
  for (guint k = 0; c->runs[k] != NULL; k++) {
    const LbPaperRun *r = lb_paper_run(p, c->runs[k]);
    for (guint i = 0; i < c->ranks->len; i++) {
      guint ranks = g_array_index(c->ranks, guint, i);
      if (!ran_at(r, ranks))
        continue;
      any = TRUE;
      double v = 0;
      char *note = NULL;
      if (!measure_point(c, r, ranks, &v, &note)) {
        c->status = LB_CLAIM_FAILED;
        c->note = g_strdup_printf("a run of %s on %u processors failed", r->name, ranks);
        return;
      }
      g_autofree char *label = c->runs[1] != NULL ? g_strdup_printf("%s on %u", r->name, ranks)
                                                  : g_strdup_printf("%u processors", ranks);
      add_point(c->points, v, label, k, ranks);
      g_ptr_array_add(notes, note);
    }
  }
  if (!any) {
    c->status = LB_CLAIM_NOT_RUN;
    c->note = g_strdup("not run (--quick)");
    return;
  }
  c->done = TRUE;
  c->lbsim = g_array_index(c->points, LbClaimPoint, 0).value;
  const char *note = notes->pdata[0];
  if (c->points->len > 1 || *note != '\0' || c->diagnostic || c->paper == 0 || !isfinite(c->lbsim))
    c->note = g_strdup(c->points->len > 1 ? "" : note);
  else
    c->note = g_strdup_printf("%.2f x the paper's", c->lbsim / c->paper);
  judge(c);
}

/* A check's number: from the claim's runs at its ranks (if it reads
 * any) and the check's own computation. FALSE when it could not be made
 * (the note says why). */
static gboolean
evaluate_check(LbClaim *c, const LbPaper *p, gboolean quick, const LbCheckSims *sims)
{
  gboolean ran = c->ranks->len == 0;
  for (guint k = 0; !ran && c->runs[k] != NULL; k++)
    for (guint i = 0; i < c->ranks->len; i++)
      ran |= ran_at(lb_paper_run(p, c->runs[k]), g_array_index(c->ranks, guint, i));
  if (!ran) {
    c->status = LB_CLAIM_NOT_RUN;
    c->note = g_strdup("not run (--quick)");
    return TRUE;
  }
  g_autoptr(GArray) runs = g_array_new(FALSE, FALSE, sizeof(LbCheckRun));
  g_autoptr(GPtrArray) points = g_ptr_array_new_with_free_func(g_free);
  for (guint k = 0; c->runs != NULL && c->runs[k] != NULL; k++) {
    const LbPaperRun *r = lb_paper_run(p, c->runs[k]);
    for (guint i = 0; i < r->sweep->runs->len; i++) {
      const LbSweepRun *run = r->sweep->runs->pdata[i];
      gboolean wanted = c->ranks->len == 0;
      for (guint j = 0; j < c->ranks->len; j++)
        wanted |= ranks_of(r->sweep, run) == g_array_index(c->ranks, guint, j);
      if (!wanted)
        continue;
      if (r->results[i] == NULL) {
        c->status = LB_CLAIM_FAILED;
        c->note = g_strdup_printf("a run of %s failed", r->name);
        return TRUE;
      }
      g_autofree char *where = lb_sweep_describe(r->sweep, run);
      char *point = g_strdup_printf("%s: %s", r->name, where);
      g_ptr_array_add(points, point);
      LbCheckRun one = {run->id, run->job, point, r->results[i]};
      g_array_append_val(runs, one);
    }
  }
  LbCheckInput in = {quick,
                     sims,
                     p->dir,
                     (const char *const *)c->args,
                     g_strv_length(c->args),
                     (const LbCheckRun *)runs->data,
                     runs->len};
  LbCheckOutput out = {0};
  g_autoptr(GError) error = NULL;
  gboolean made = c->check->compute(&in, &out, &error);
  if (out.points != NULL) {
    /* the labels move with them: c->points frees them */
    g_array_append_vals(c->points, out.points->data, out.points->len);
    g_array_unref(out.points);
  }
  if (!made) {
    c->status = LB_CLAIM_FAILED;
    c->note = g_strdup_printf("failed: %s", error->message);
    g_free(out.note);
    g_free(out.detail);
    return FALSE;
  }
  c->done = TRUE;
  c->lbsim = out.value;
  c->note = out.note != NULL ? out.note : g_strdup("");
  c->detail = out.detail;
  /* a family's rule on a check that gives one number judges that number */
  if (!c->diagnostic && c->points->len == 0 && (c->rule.every || c->rule.kind == LB_RULE_SPANS)) {
    c->done = FALSE;
    c->status = LB_CLAIM_FAILED;
    g_free(c->note);
    c->note = g_strdup_printf("failed: check %s gives one number, not the points '%s' judges",
                              c->check->name, c->rule_text);
    return FALSE;
  }
  judge(c);
  return TRUE;
}

int
lb_paper_evaluate(LbPaper *p, const char *state, gboolean quick, guint jobs, gboolean quiet)
{
  int worst = 0;
  g_autofree char *keep_dir = state != NULL ? g_build_filename(state, "checks", NULL) : NULL;
  const LbCheckSims sims = {jobs, keep_dir};
  /* a claim on a deepened run has only its deep reason (lb_paper_deepen) */
  LbForm form = (quick ? LB_FORM_QUICK : LB_FORM_FULL) | (p->deep ? LB_FORM_DEEP : 0);
  for (guint i = 0; i < p->claims->len; i++) {
    LbClaim *c = p->claims->pdata[i];
    if (lb_claim_left_out(p, c)) {
      c->status = LB_CLAIM_NOT_RUN;
      c->note = g_strdup("not run (--only)");
    } else if (c->measure != LB_MEASURE_CHECK) {
      evaluate_measure(c, p);
    } else {
      if (!quiet)
        g_printerr("lbsim: %s: %s (check %s)\n", p->key, c->id, c->check->name);
      if (!evaluate_check(c, p, quick, &sims))
        worst = MAX(worst, 1);
    }
    if (c->done) {
      gboolean known = (c->known & form) != 0;
      c->status = c->diagnostic ? LB_CLAIM_AGREES
                  : c->agrees   ? (known ? LB_CLAIM_KNOWN_AGREES : LB_CLAIM_AGREES)
                                : (known ? LB_CLAIM_KNOWN : LB_CLAIM_DISAGREES);
    }
  }
  return worst;
}

void
lb_paper_scorecard(const LbPaper *p, LbScorecard *card)
{
  *card = (LbScorecard){0};
  for (guint i = 0; i < p->claims->len; i++) {
    const LbClaim *c = p->claims->pdata[i];
    if (c->diagnostic) {
      card->diagnostics++;
      continue;
    }
    card->claims++;
    card->evaluated += c->done;
    card->agreeing += c->done && c->agrees;
    card->stale += c->status == LB_CLAIM_KNOWN_AGREES;
    if (!c->headline)
      continue;
    card->headline++;
    if (c->status == LB_CLAIM_NOT_RUN)
      card->not_evaluated++;
    else if (c->status == LB_CLAIM_FAILED)
      card->failed++;
    else if (c->calibrated != NULL)
      card->calibrated++;
    else if (c->agrees)
      card->reproduced++;
    else {
      card->not_reproduced++;
      card->known += c->status == LB_CLAIM_KNOWN;
    }
  }
}

gboolean
lb_paper_check_fails(const LbPaper *p, char **why)
{
  g_autoptr(GString) t = g_string_new(NULL);
  for (guint i = 0; i < p->claims->len; i++) {
    const LbClaim *c = p->claims->pdata[i];
    if (c->diagnostic)
      continue;
    if (c->status == LB_CLAIM_KNOWN_AGREES)
      g_string_append_printf(t, "%s agrees but claims.ini lists it as known: take it off\n", c->id);
    else if (c->headline && c->status == LB_CLAIM_DISAGREES && c->calibrated == NULL)
      g_string_append_printf(t, "%s (headline) disagrees and is not listed as known\n", c->id);
    else if (c->headline && c->status == LB_CLAIM_FAILED)
      g_string_append_printf(t, "%s (headline) could not be evaluated: %s\n", c->id, c->note);
  }
  gboolean fails = t->len > 0;
  if (why != NULL)
    *why = g_string_free(g_steal_pointer(&t), FALSE);
  return fails;
}

LbTestSuite *
lb_paper_test_suite(const LbPaper *p, double seconds)
{
  LbTestSuite *s = lb_test_suite_new(p->key, seconds);
  for (guint i = 0; i < p->claims->len; i++) {
    const LbClaim *c = p->claims->pdata[i];
    if (c->diagnostic)
      continue;
    g_autofree char *numbers =
        g_strdup_printf("paper %.10g, lbsim %.10g (%s)", c->paper, c->lbsim, c->rule_text);
    switch (c->status) {
    case LB_CLAIM_AGREES:
      lb_test_suite_add(s, c->id, LB_TEST_PASS, NULL, NULL);
      break;
    case LB_CLAIM_KNOWN_AGREES: {
      g_autofree char *m =
          g_strdup_printf("%s: it agrees but claims.ini lists it as known: take it off", numbers);
      lb_test_suite_add(s, c->id, LB_TEST_FAIL, m, "claim");
      break;
    }
    case LB_CLAIM_DISAGREES:
      if (c->headline && c->calibrated == NULL) {
        lb_test_suite_add(s, c->id, LB_TEST_FAIL, numbers, "claim");
      } else {
        g_autofree char *m =
            g_strdup_printf("%s: disagrees, %s", numbers,
                            c->calibrated != NULL ? "calibrated to it"
                                                  : "not a headline claim (the verdict leaves it)");
        lb_test_suite_add(s, c->id, LB_TEST_SKIP, m, NULL);
      }
      break;
    case LB_CLAIM_KNOWN: {
      g_autofree char *m = g_strdup_printf("known disagreement, %s: %s", numbers,
                                           c->known_reason != NULL ? c->known_reason : "");
      lb_test_suite_add(s, c->id, LB_TEST_SKIP, m, NULL);
      break;
    }
    case LB_CLAIM_FAILED:
      lb_test_suite_add(s, c->id, c->headline ? LB_TEST_ERROR : LB_TEST_SKIP,
                        c->note != NULL ? c->note : "could not be evaluated", "run");
      break;
    case LB_CLAIM_NOT_RUN:
    default:
      lb_test_suite_add(s, c->id, LB_TEST_SKIP, c->note != NULL ? c->note : "not run", NULL);
      break;
    }
  }
  return s;
}

int
lb_paper_check_say(const LbPaper *p)
{
  g_autofree char *why = NULL;
  if (!lb_paper_check_fails(p, &why))
    return 0;
  g_auto(GStrv) lines = g_strsplit(why, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (*lines[i] != '\0')
      g_printerr("lbsim: %s: --check: %s\n", p->key, lines[i]);
  return 1;
}
