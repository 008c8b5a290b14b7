/* What lbsim reproduce writes: the scorecard first, then every claim
 * beside the paper's number, the diagnostics, the calibration and the
 * worked examples. */
#include "reproduce/output.h"

#include <math.h>
#include <string.h>

#include "io/output.h"
#include "report/html.h"
#include "report/json-writer.h"
#include "report/report.h"

const char *
lb_claim_status_name(const LbClaim *c)
{
  if (c->diagnostic)
    return c->done ? "diagnostic" : c->status == LB_CLAIM_NOT_RUN ? "not-run" : "failed";
  switch (c->status) {
  case LB_CLAIM_NOT_RUN:
    return "not-run";
  case LB_CLAIM_FAILED:
    return "failed";
  case LB_CLAIM_AGREES:
    return "agrees";
  case LB_CLAIM_DISAGREES:
    return "disagrees";
  case LB_CLAIM_KNOWN:
    return "known";
  case LB_CLAIM_KNOWN_AGREES:
    return "known-agrees";
  }
  return "failed";
}

char *
lb_paper_quick_text(const LbPaper *p)
{
  GString *t = g_string_new(NULL);
  for (guint i = 0; i < p->runs->len; i++) {
    const LbPaperRun *r = p->runs->pdata[i];
    if (r->left_out)
      continue;
    g_string_append_printf(t, "%s%s on %s ranks", t->len > 0 ? "; " : "", r->name, r->quick_ranks);
    if (r->quick_steps > 0)
      g_string_append_printf(t, ", %u adaptations", r->quick_steps);
    g_auto(GStrv) axes = r->quick_vary != NULL ? g_strsplit(r->quick_vary, ";", -1) : NULL;
    for (guint k = 0; axes != NULL && axes[k] != NULL; k++)
      g_string_append_printf(t, " x %s", g_strstrip(axes[k]));
  }
  gboolean checks = FALSE;
  for (guint i = 0; i < p->claims->len; i++)
    checks |= ((const LbClaim *)p->claims->pdata[i])->measure == LB_MEASURE_CHECK;
  if (checks)
    g_string_append_printf(t, "%sthe checks on fewer cases", t->len > 0 ? "; " : "");
  return g_string_free(t, FALSE);
}

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
sets_text(const char *const *sets)
{
  if (sets == NULL || sets[0] == NULL)
    return NULL;
  GString *t = g_string_new(NULL);
  for (guint i = 0; sets[i] != NULL; i++)
    g_string_append_printf(t, "%s--set %s", i ? " " : "", sets[i]);
  return g_string_free(t, FALSE);
}

/* Why claims were not evaluated: " (quick form)", " (--only)", both, or
 * nothing. */
static char *
not_run_why(const LbPaper *p, gboolean quick)
{
  if (!quick && p->only == NULL)
    return g_strdup("");
  return g_strdup_printf(" (%s%s%s)", quick ? "quick form" : "",
                         quick && p->only != NULL ? "; " : "", p->only != NULL ? "--only" : "");
}

static void
scorecard_line(GString *out, const LbScorecard *s, const char *why)
{
  g_string_append_printf(out, "Scorecard: %u of %u headline findings reproduced, %u not (%u known)",
                         s->reproduced, s->headline, s->not_reproduced, s->known);
  if (s->not_evaluated > 0)
    g_string_append_printf(out, ", %u not evaluated%s", s->not_evaluated, why);
  if (s->failed > 0)
    g_string_append_printf(out, ", %u could not be evaluated", s->failed);
  if (s->calibrated > 0)
    g_string_append_printf(out, ", %u calibrated (not counted)", s->calibrated);
  g_string_append_printf(out, "; %u of %u claims evaluated agree", s->agreeing, s->evaluated);
  if (s->stale > 0)
    g_string_append_printf(out, "; %u listed as known agree now", s->stale);
  g_string_append(out, "\n");
}

/* A list of the scorecard: the headline claims of one status. */
static void
scorecard_group(GString *out, const LbPaper *p, const char *title, LbClaimStatus status,
                gboolean calibrated, gboolean color)
{
  gboolean any = FALSE, red = color && status == LB_CLAIM_KNOWN;
  for (guint i = 0; i < p->claims->len; i++) {
    const LbClaim *c = p->claims->pdata[i];
    if (c->diagnostic || !c->headline || c->status != status ||
        (c->done && (c->calibrated != NULL) != calibrated))
      continue;
    if (!any)
      g_string_append_printf(out, "%s%s:%s\n", red ? "\033[31m" : "", title, red ? "\033[0m" : "");
    any = TRUE;
    g_autofree char *paper = number_text(c->paper, c->unit);
    g_string_append_printf(out, "%s  %s: paper %s", red ? "\033[31m" : "", c->id, paper);
    if (c->done) {
      g_autofree char *lbsim = number_text(c->lbsim, c->unit);
      g_string_append_printf(out, ", lbsim %s", lbsim);
    }
    g_string_append_printf(out, " (%s)", c->rule_text);
    if (status == LB_CLAIM_KNOWN)
      g_string_append_printf(out, "\n    why: %s", c->known_reason);
    if (calibrated)
      g_string_append_printf(out, "\n    fitted with [calibration] %s", c->calibrated);
    if (status == LB_CLAIM_FAILED)
      g_string_append_printf(out, "\n    %s", c->note);
    g_string_append_printf(out, "\n    \"%s\"%s\n", c->words, red ? "\033[0m" : "");
  }
}

char *
lb_paper_text(const LbPaper *p, const LbPaperOutput *how)
{
  GString *out = g_string_new(NULL);
  g_string_append_printf(out, "%s: %s\n%s\n", p->key, p->cite, p->summary);
  if (p->deep) {
    g_autofree char *deep = lb_paper_deep_text(p);
    g_string_append_printf(out, "deep form: %s\n", deep);
  }
  if (how->quick) {
    g_autofree char *ran = lb_paper_quick_text(p);
    g_string_append_printf(out, "quick form: %s\n", ran);
  }
  g_autofree char *only = lb_paper_only_text(p);
  if (only != NULL)
    g_string_append_printf(
        out, "only the runs %s (--only): the claims on the others not evaluated\n", only);
  g_autofree char *changed = sets_text(how->sets);
  if (changed != NULL)
    g_string_append_printf(out, "NOT the paper's experiment: every run with %s\n", changed);
  LbScorecard s;
  lb_paper_scorecard(p, &s);
  g_string_append_c(out, '\n');
  g_autofree char *why = not_run_why(p, how->quick);
  scorecard_line(out, &s, why);
  scorecard_group(out, p, "Reproduced", LB_CLAIM_AGREES, FALSE, how->color);
  scorecard_group(out, p, "Not reproduced", LB_CLAIM_DISAGREES, FALSE, how->color);
  scorecard_group(out, p, "Known disagreements", LB_CLAIM_KNOWN, FALSE, how->color);
  scorecard_group(out, p, "Listed as known but agreeing now (take them off claims.ini)",
                  LB_CLAIM_KNOWN_AGREES, FALSE, how->color);
  scorecard_group(out, p, "Calibrated (shown, not counted)", LB_CLAIM_AGREES, TRUE, how->color);
  scorecard_group(out, p, "Calibrated and disagreeing", LB_CLAIM_DISAGREES, TRUE, how->color);
  scorecard_group(out, p, "Could not be evaluated", LB_CLAIM_FAILED, FALSE, how->color);
  if (s.not_evaluated > 0) {
    g_string_append_printf(out, "Not evaluated%s:", why);
    for (guint i = 0; i < p->claims->len; i++) {
      const LbClaim *c = p->claims->pdata[i];
      if (!c->diagnostic && c->headline && c->status == LB_CLAIM_NOT_RUN)
        g_string_append_printf(out, " %s", c->id);
    }
    g_string_append_c(out, '\n');
  }

  g_string_append_printf(out, "\n%-30s %14s %14s  %-18s %-7s %s\n", "claim", "paper", "lbsim",
                         "rule", "agrees", "note");
  for (guint i = 0; i < p->claims->len; i++) {
    const LbClaim *c = p->claims->pdata[i];
    if (c->diagnostic)
      continue;
    g_autofree char *paper = number_text(c->paper, c->unit);
    g_autofree char *lbsim = c->done ? number_text(c->lbsim, c->unit) : g_strdup("-");
    const char *verdict = !c->done                      ? "-"
                          : c->agrees                   ? "yes"
                          : c->status == LB_CLAIM_KNOWN ? "known"
                                                        : "NO";
    g_string_append_printf(out, "%-30s %14s %14s  %-18s %-7s %s%s%s\n", c->id, paper, lbsim,
                           c->rule_text, verdict, c->headline ? "(headline) " : "",
                           c->calibrated != NULL ? "(calibrated) " : "",
                           c->note != NULL ? c->note : "");
  }
  gboolean diagnostics = FALSE;
  for (guint i = 0; i < p->claims->len; i++) {
    const LbClaim *c = p->claims->pdata[i];
    if (!c->diagnostic)
      continue;
    if (!diagnostics)
      g_string_append(out, "\nDiagnostics (lbsim's own numbers, not the paper's):\n");
    diagnostics = TRUE;
    g_autofree char *lbsim = c->done ? number_text(c->lbsim, c->unit) : g_strdup("-");
    g_string_append_printf(out, "  %-28s %14s  %s\n    %s\n", c->id, lbsim,
                           c->note != NULL ? c->note : "", c->text);
  }
  if (p->calibration->len > 0)
    g_string_append(out, "\nCalibration (inputs the paper does not state):\n");
  for (guint i = 0; i < p->calibration->len; i++) {
    const LbCalibration *k = p->calibration->pdata[i];
    g_string_append_printf(out, "  %s = %s\n    %s\n", k->key, k->value, k->source);
  }
  g_string_append(out, "\nThe claims:\n");
  for (guint i = 0; i < p->claims->len; i++) {
    const LbClaim *c = p->claims->pdata[i];
    if (!c->diagnostic)
      g_string_append_printf(out, "  %s: %s\n", c->id, c->text);
  }
  gboolean examples = FALSE;
  for (guint i = 0; i < p->claims->len; i++) {
    const LbClaim *c = p->claims->pdata[i];
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

static void
json_string_or_null(LbJson *j, const char *key, const char *v)
{
  if (v != NULL)
    lb_json_string(j, key, v);
  else
    lb_json_raw(j, key, "null");
}

static void
json_points(LbJson *j, const LbClaim *c)
{
  if (c->points->len <= 1)
    return;
  lb_json_begin_array(j, "points", FALSE);
  for (guint k = 0; k < c->points->len; k++) {
    const LbClaimPoint *pt = &g_array_index(c->points, LbClaimPoint, k);
    lb_json_begin_compact_object(j, NULL);
    lb_json_string(j, "at", pt->label);
    lb_json_double(j, "lbsim", pt->value); /* null when not finite */
    lb_json_end_object(j);
  }
  lb_json_end_array(j);
}

char *
lb_paper_json(const LbPaper *p, const LbPaperOutput *how)
{
  GString *out = g_string_new(NULL);
  LbJson j;
  lb_json_init(&j, out);
  lb_json_begin_object(&j, NULL);
  lb_report_write_format(&j);
  lb_json_string(&j, "paper", p->key);
  lb_json_string(&j, "cite", p->cite);
  lb_json_bool(&j, "quick", how->quick);
  if (p->only != NULL) {
    lb_json_begin_array(&j, "only", TRUE);
    for (guint i = 0; p->only[i] != NULL; i++)
      lb_json_string(&j, NULL, p->only[i]);
    lb_json_end_array(&j);
  }
  if (p->deep) {
    g_autofree char *deep = lb_paper_deep_text(p);
    lb_json_string(&j, "deep", deep);
  }
  if (how->sets != NULL && how->sets[0] != NULL) {
    lb_json_begin_array(&j, "sets", TRUE);
    for (guint i = 0; how->sets[i] != NULL; i++)
      lb_json_string(&j, NULL, how->sets[i]);
    lb_json_end_array(&j);
  }
  LbScorecard s;
  lb_paper_scorecard(p, &s);
  lb_json_begin_object(&j, "scorecard");
  lb_json_uint(&j, "headline", s.headline);
  lb_json_uint(&j, "reproduced", s.reproduced);
  lb_json_uint(&j, "not_reproduced", s.not_reproduced);
  lb_json_uint(&j, "known", s.known);
  lb_json_uint(&j, "not_evaluated", s.not_evaluated);
  lb_json_uint(&j, "failed", s.failed);
  lb_json_uint(&j, "calibrated", s.calibrated);
  lb_json_uint(&j, "claims", s.claims);
  lb_json_uint(&j, "evaluated", s.evaluated);
  lb_json_uint(&j, "agreeing", s.agreeing);
  lb_json_uint(&j, "stale", s.stale);
  lb_json_end_object(&j);
  lb_json_begin_array(&j, "claims", FALSE);
  for (guint i = 0; i < p->claims->len; i++) {
    const LbClaim *c = p->claims->pdata[i];
    if (c->diagnostic)
      continue;
    lb_json_begin_object(&j, NULL);
    lb_json_string(&j, "id", c->id);
    lb_json_string(&j, "claim", c->text);
    lb_json_double(&j, "paper", c->paper);
    lb_json_double(&j, "lbsim", c->done ? c->lbsim : NAN); /* null when not run */
    lb_json_string(&j, "unit", c->unit);
    lb_json_string(&j, "rule", c->rule_text);
    if (c->done)
      lb_json_bool(&j, "agrees", c->agrees);
    else
      lb_json_raw(&j, "agrees", "null");
    /* required: what --check holds, the headline claims */
    lb_json_bool(&j, "required", c->headline);
    lb_json_bool(&j, "headline", c->headline);
    lb_json_string(&j, "status", lb_claim_status_name(c));
    json_string_or_null(&j, "words", c->words);
    json_string_or_null(&j, "known", c->known_reason);
    if (c->known != LB_FORM_NONE)
      lb_json_string(&j, "known_in",
                     c->known == LB_FORM_DEEP   ? "deep"
                     : c->known == LB_FORM_BOTH ? "both"
                     : c->known == LB_FORM_FULL ? "full"
                                                : "quick");
    json_string_or_null(&j, "calibrated", c->calibrated);
    lb_json_string(&j, "note", c->note != NULL ? c->note : "");
    json_points(&j, c);
    if (c->detail != NULL)
      lb_json_string(&j, "detail", c->detail);
    lb_json_end_object(&j);
  }
  lb_json_end_array(&j);
  lb_json_begin_array(&j, "diagnostics", FALSE);
  for (guint i = 0; i < p->claims->len; i++) {
    const LbClaim *c = p->claims->pdata[i];
    if (!c->diagnostic)
      continue;
    lb_json_begin_object(&j, NULL);
    lb_json_string(&j, "id", c->id);
    lb_json_string(&j, "what", c->text);
    lb_json_double(&j, "lbsim", c->done ? c->lbsim : NAN); /* null when not run */
    lb_json_string(&j, "unit", c->unit);
    lb_json_string(&j, "note", c->note != NULL ? c->note : "");
    if (c->detail != NULL)
      lb_json_string(&j, "detail", c->detail);
    lb_json_end_object(&j);
  }
  lb_json_end_array(&j);
  lb_json_begin_array(&j, "calibration", FALSE);
  for (guint i = 0; i < p->calibration->len; i++) {
    const LbCalibration *k = p->calibration->pdata[i];
    lb_json_begin_compact_object(&j, NULL);
    lb_json_string(&j, "key", k->key);
    lb_json_string(&j, "value", k->value);
    lb_json_string(&j, "source", k->source);
    lb_json_end_object(&j);
  }
  lb_json_end_array(&j);
  lb_json_end_object(&j);
  g_string_append_c(out, '\n');
  return g_string_free(out, FALSE);
}

static void
csv_number(GString *out, gboolean have, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_c(out, ',');
  if (have && isfinite(v))
    g_string_append(out, g_ascii_formatd(buf, sizeof buf, "%.10g", v));
}

static void
csv_text(GString *out, const char *text)
{
  g_string_append_c(out, ',');
  lb_report_csv_text(out, text != NULL ? text : "");
}

char *
lb_paper_csv(const LbPaper *p, const LbPaperOutput *how)
{
  GString *out = g_string_new("kind,id,claim,paper,lbsim,unit,rule,agrees,headline,status,known,"
                              "note\n");
  LbScorecard s;
  lb_paper_scorecard(p, &s);
  const struct {
    const char *name, *what;
    guint n;
  } card[] = {
      {"headline", "headline claims", s.headline},
      {"reproduced", "headline claims that agree", s.reproduced},
      {"not_reproduced", "headline claims that disagree", s.not_reproduced},
      {"known", "of those, listed as known", s.known},
      {"not_evaluated",
       p->only != NULL ? "headline claims not run (--only, or the quick form's fewer runs)"
       : how->quick    ? "headline claims the quick form does not run"
                       : "headline claims not run",
       s.not_evaluated},
      {"failed", "headline claims that could not be evaluated", s.failed},
      {"calibrated", "headline claims fitted to (not counted)", s.calibrated},
      {"evaluated", "claims evaluated", s.evaluated},
      {"agreeing", "claims that agree", s.agreeing},
  };
  /* the scorecard first, a row each */
  for (guint i = 0; i < G_N_ELEMENTS(card); i++) {
    g_string_append(out, "scorecard");
    csv_text(out, card[i].name);
    csv_text(out, card[i].what);
    csv_number(out, FALSE, 0);
    csv_number(out, TRUE, card[i].n);
    g_string_append(out, ",,,,,,,\n");
  }
  for (guint i = 0; i < p->claims->len; i++) {
    const LbClaim *c = p->claims->pdata[i];
    g_string_append(out, c->diagnostic ? "diagnostic" : "claim");
    csv_text(out, c->id);
    csv_text(out, c->text);
    csv_number(out, !c->diagnostic, c->paper);
    csv_number(out, c->done, c->lbsim);
    csv_text(out, c->unit);
    csv_text(out, c->rule_text);
    g_string_append_printf(out, ",%s,%s",
                           !c->done || c->diagnostic ? ""
                           : c->agrees               ? "true"
                                                     : "false",
                           c->diagnostic ? ""
                           : c->headline ? "true"
                                         : "false");
    csv_text(out, lb_claim_status_name(c));
    csv_text(out, c->known_reason);
    csv_text(out, c->note);
    g_string_append_c(out, '\n');
  }
  return g_string_free(out, FALSE);
}

/* The line of a figure a claim is a point of: what it measures, named by
 * the run it is of (value: the balancer; improvement: the improving one,
 * B; the others: A), or a check by its words. */
static char *
claim_series(const LbClaim *c)
{
  if (c->measure == LB_MEASURE_CHECK || c->labels == NULL || c->labels[0] == NULL)
    return g_strdup(g_str_has_prefix(c->measure_text, "check ") ? c->measure_text + 6
                                                                : c->measure_text);
  if (c->measure == LB_MEASURE_IMPROVEMENT && c->labels[1] != NULL)
    return g_strdup(c->labels[1]);
  return g_strdup(c->labels[0]);
}

/* The figures' lines: a claim's series, unless two measures of one figure
 * would share it; then each its measure as written. */
static GPtrArray *
figure_series(const LbPaper *p)
{
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; i < p->claims->len; i++)
    g_ptr_array_add(names, claim_series(p->claims->pdata[i]));
  for (guint i = 0; i < p->claims->len; i++) {
    const LbClaim *c = p->claims->pdata[i];
    for (guint j = 0; c->figure != NULL && j < p->claims->len; j++) {
      const LbClaim *d = p->claims->pdata[j];
      if (d->figure == NULL || strcmp(c->figure, d->figure) != 0 ||
          strcmp(names->pdata[i], names->pdata[j]) != 0 ||
          strcmp(c->measure_text, d->measure_text) == 0)
        continue;
      g_free(names->pdata[i]);
      names->pdata[i] = g_strdup(c->measure_text);
      break;
    }
  }
  return names;
}

/* The least and the most a claim of several points holds its points to
 * (NAN: no bound that way). */
static void
rule_bounds(const LbClaim *c, double *lo, double *hi)
{
  *lo = *hi = NAN;
  switch (c->rule.kind) {
  case LB_RULE_AT_LEAST:
  case LB_RULE_EXACTLY:
    *lo = c->rule.lo;
    break;
  case LB_RULE_AT_MOST:
    *hi = c->rule.hi;
    break;
  case LB_RULE_RANGE:
  case LB_RULE_SPANS:
    *lo = c->rule.lo;
    *hi = c->rule.hi;
    break;
  case LB_RULE_WITHIN_2X:
    *lo = MIN(c->paper / 2, c->paper * 2);
    *hi = MAX(c->paper / 2, c->paper * 2);
    break;
  case LB_RULE_SAME_SIGN:
    *lo = 0;
    break;
  }
}

/* A claim's points on its figure's chart: one, the paper's number and
 * lbsim's at its processor count; or, for a claim of several points,
 * for each of its runs (a line each, "SERIES (RUN)" when it has several)
 * lbsim's points and the paper's bounds at each processor count. The
 * names go in names, which outlives the points. */
static GArray *
figure_points(const LbClaim *c, const char *series, GPtrArray *names)
{
  GArray *out = g_array_new(FALSE, FALSE, sizeof(LbFigurePoint));
  if (c->figure == NULL)
    return out;
  gboolean family = c->rule.every || c->rule.kind == LB_RULE_SPANS;
  if (!family) {
    LbFigurePoint pt = {series, c->ranks->len > 0 ? g_array_index(c->ranks, guint, 0) : 0, c->paper,
                        c->done ? c->lbsim : NAN, 0};
    g_array_append_val(out, pt);
    return out;
  }
  double lo, hi;
  rule_bounds(c, &lo, &hi);
  guint nruns = c->runs != NULL ? g_strv_length(c->runs) : 0;
  for (guint k = 0; k < nruns; k++) {
    char *name = nruns > 1 ? g_strdup_printf("%s (%s)", series, c->runs[k]) : g_strdup(series);
    g_ptr_array_add(names, name);
    for (guint b = 0; b < 2; b++) {
      double bound = b == 0 ? lo : hi;
      for (guint i = 0; i < c->ranks->len && isfinite(bound); i++) {
        LbFigurePoint pt = {name, g_array_index(c->ranks, guint, i), bound, NAN, b};
        g_array_append_val(out, pt);
      }
    }
    for (guint i = 0; c->done && i < c->points->len; i++) {
      const LbClaimPoint *p = &g_array_index(c->points, LbClaimPoint, i);
      if (p->run != k || p->ranks == 0)
        continue;
      LbFigurePoint pt = {name, p->ranks, NAN, p->value, 0};
      g_array_append_val(out, pt);
    }
  }
  return out;
}

gboolean
lb_paper_write_report(const LbPaper *p, const LbPaperOutput *how, const LbPaperCharts *charts,
                      const char *dir, gboolean make, GError **error)
{
  if (make && !lb_output_make_folder("--report", dir, error))
    return FALSE;
  g_autofree LbClaimRow *rows = g_new0(LbClaimRow, MAX(p->claims->len, 1));
  g_autoptr(GPtrArray) series = figure_series(p);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GPtrArray) points = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
  for (guint i = 0; i < p->claims->len; i++) {
    GArray *on = figure_points(p->claims->pdata[i], series->pdata[i], names);
    g_ptr_array_add(points, on);
  }
  for (guint i = 0; i < p->claims->len; i++) {
    const LbClaim *c = p->claims->pdata[i];
    rows[i] = (LbClaimRow){
        .id = c->id,
        .text = c->text,
        .unit = c->unit,
        .rule = c->rule_text != NULL ? c->rule_text : "",
        .note = c->note != NULL ? c->note : "",
        .figure = c->figure,
        .points = (const LbFigurePoint *)((GArray *)points->pdata[i])->data,
        .npoints = ((GArray *)points->pdata[i])->len,
        .ranks = c->ranks->len == 1 ? g_array_index(c->ranks, guint, 0) : 0,
        .paper = c->paper,
        .lbsim = c->lbsim,
        .done = c->done,
        .agrees = c->agrees,
        .headline = c->headline,
        .diagnostic = c->diagnostic,
        .status = lb_claim_status_name(c),
        .words = c->words,
        .known = c->known_reason,
        .calibrated = c->calibrated,
        .detail = c->detail,
    };
  }
  g_autofree LbCalibrationRow *cal = g_new0(LbCalibrationRow, MAX(p->calibration->len, 1));
  for (guint i = 0; i < p->calibration->len; i++) {
    const LbCalibration *k = p->calibration->pdata[i];
    cal[i] = (LbCalibrationRow){k->key, k->value, k->source};
  }
  LbScorecard s;
  lb_paper_scorecard(p, &s);
  LbScorecardRow card = {s.headline,      s.reproduced, s.not_reproduced, s.known,
                         s.not_evaluated, s.failed,     s.calibrated,     s.claims,
                         s.evaluated,     s.agreeing,   s.stale};
  g_autofree char *quick_form = how->quick ? lb_paper_quick_text(p) : NULL;
  g_autofree char *changed = sets_text(how->sets);
  g_autofree char *deep_form = p->deep ? lb_paper_deep_text(p) : NULL;
  g_autofree char *only = lb_paper_only_text(p);
  g_autofree char *why = not_run_why(p, how->quick);
  LbReproduction rep = {p->key, p->cite,        p->summary, quick_form,          changed,   &card,
                        rows,   p->claims->len, cal,        p->calibration->len, deep_form, only,
                        why};
  g_autofree char *doc = lb_paper_json(p, how);
  LbHtmlOptions options = {.json = doc,
                           .length = strlen(doc),
                           .dir = dir,
                           .chart_formats = charts->formats,
                           .chart_scale = charts->scale,
                           .look = charts->look};
  return lb_html_write_reproduction(&rep, &options, error);
}

char *
lb_papers_text(void)
{
  g_autoptr(GPtrArray) keys = lb_paper_keys();
  int width = 0;
  for (guint i = 0; i < keys->len; i++)
    width = MAX(width, (int)strlen(keys->pdata[i]));
  GString *out =
      g_string_new("Papers lbsim reproduces (lbsim reproduce KEY [--quick] [--deep], or --all):\n");
  for (guint i = 0; i < keys->len; i++) {
    g_autoptr(GError) error = NULL;
    g_autoptr(LbPaper) p = lb_paper_load(keys->pdata[i], &error);
    if (p == NULL) {
      g_string_append_printf(out, "  %-*s (its claims.ini does not load: %s)\n", width,
                             (char *)keys->pdata[i], error->message);
      continue;
    }
    guint claims = 0, headline = 0;
    for (guint k = 0; k < p->claims->len; k++) {
      const LbClaim *c = p->claims->pdata[k];
      claims += !c->diagnostic;
      headline += !c->diagnostic && c->headline;
    }
    g_string_append_printf(out, "  %-*s %u claims (%u headline): %s\n  %-*s %s\n", width, p->key,
                           claims, headline, p->cite, width, "", p->summary);
    if (p->deep_summary != NULL)
      g_string_append_printf(out, "  %-*s --deep: %s\n", width, "", p->deep_summary);
  }
  return g_string_free(out, FALSE);
}

char *
lb_papers_scorecards(const LbPaper *const *papers, guint n, gboolean quick)
{
  GString *out = g_string_new(NULL);
  g_string_append_printf(out, "%-12s %-20s %-18s %-7s %-8s %s\n", "paper", "headline reproduced",
                         "claims agreeing", "known", "quick", "not evaluated");
  guint sum[4] = {0, 0, 0, 0};
  for (guint i = 0; i < n; i++) {
    LbScorecard s;
    lb_paper_scorecard(papers[i], &s);
    g_autofree char *headline = g_strdup_printf("%u/%u", s.reproduced, s.headline);
    g_autofree char *claims = g_strdup_printf("%u/%u", s.agreeing, s.evaluated);
    g_string_append_printf(out, "%-12s %-20s %-18s %-7u %-8s %u\n", papers[i]->key, headline,
                           claims, s.known, quick ? "yes" : "no", s.not_evaluated + s.failed);
    sum[0] += s.reproduced;
    sum[1] += s.headline;
    sum[2] += s.agreeing;
    sum[3] += s.evaluated;
  }
  g_autofree char *headline = g_strdup_printf("%u/%u", sum[0], sum[1]);
  g_autofree char *claims = g_strdup_printf("%u/%u", sum[2], sum[3]);
  g_string_append_printf(out, "%-12s %-20s %-18s\n", "all", headline, claims);
  return g_string_free(out, FALSE);
}
