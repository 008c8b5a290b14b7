/* The page of a reproduction (lbsim reproduce --report): its scorecard,
 * the claims beside lbsim's numbers, a chart per figure of the paper. */
#include "report/html-page.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "io/output.h"
#include "lbsim/balancer.h"
#include "lbsim/scenario.h"
#include "report/pictures.h"
#include "report/plots.h"
#include "metrics/summary.h"
#include "report/report.h"
#include "report/results.h"

/* ---- a reproduction's page ---- */

static char *
claim_number(double v, const char *unit)
{
  return g_strdup_printf("%.4g%s%s", v, *unit ? " " : "", unit);
}

/* The scorecard first: the headline claims by their verdict, each with
 * the paper's words, the known disagreements apart, in red, with why. */
static void
scorecard(GString *out, const LbReproduction *rep)
{
  const LbScorecardRow *s = rep->scorecard;
  g_string_append(out, "<h2 id=\"scorecard-section\">Scorecard</h2>\n<p class=\"lead\">");
  g_string_append_printf(out,
                         "<strong>%u of %u</strong> headline findings reproduced; %u not "
                         "reproduced (%u known)",
                         s->reproduced, s->headline, s->not_reproduced, s->known);
  if (s->not_evaluated > 0)
    g_string_append_printf(out, "; %u not evaluated%s", s->not_evaluated, rep->not_run_why);
  if (s->failed > 0)
    g_string_append_printf(out, "; %u could not be evaluated", s->failed);
  if (s->calibrated > 0)
    g_string_append_printf(out, "; %u calibrated (not counted)", s->calibrated);
  g_string_append_printf(out, ". %u of %u claims evaluated agree.</p>\n", s->agreeing,
                         s->evaluated);
  static const struct {
    const char *title, *status;
  } groups[] = {
      {"Reproduced", "agrees"},
      {"Not reproduced", "disagrees"},
      {"Known disagreements", "known"},
      {"Listed as known, but agreeing now", "known-agrees"},
      {"Could not be evaluated", "failed"},
      {"Not evaluated (quick form)", "not-run"},
  };
  for (guint g = 0; g < G_N_ELEMENTS(groups); g++) {
    gboolean any = FALSE;
    for (guint i = 0; i < rep->nclaims; i++) {
      const LbClaimRow *c = &rep->claims[i];
      gboolean calibrated = c->calibrated != NULL && c->done;
      if (!c->headline || c->diagnostic || strcmp(c->status, groups[g].status) != 0 ||
          (calibrated && g < 2))
        continue;
      gboolean known = strcmp(c->status, "known") == 0;
      if (!any)
        g_string_append_printf(out, "<h3%s>%s</h3>\n<ul>\n", known ? " class=\"known\"" : "",
                               groups[g].title);
      any = TRUE;
      g_string_append_printf(out, "<li%s><strong>", known ? " class=\"known\"" : "");
      lb_page_esc(out, c->id);
      g_string_append(out, "</strong>: ");
      g_autofree char *paper = claim_number(c->paper, c->unit);
      lb_page_esc(out, paper);
      if (c->done) {
        g_autofree char *lbsim = claim_number(c->lbsim, c->unit);
        g_string_append(out, " in the paper, lbsim ");
        lb_page_esc(out, lbsim);
      }
      g_string_append(out, " (");
      lb_page_esc(out, c->rule);
      g_string_append(out, ")");
      if (known) {
        g_string_append(out, ". <em>Why:</em> ");
        lb_page_esc(out, c->known);
      }
      g_string_append(out, "<blockquote>");
      lb_page_esc(out, c->words);
      g_string_append(out, "</blockquote></li>\n");
    }
    if (any)
      g_string_append(out, "</ul>\n");
  }
  gboolean calibrated = FALSE;
  for (guint i = 0; i < rep->nclaims; i++) {
    const LbClaimRow *c = &rep->claims[i];
    if (c->calibrated == NULL || !c->done || c->diagnostic)
      continue;
    if (!calibrated)
      g_string_append(out, "<h3>Calibrated (shown, not counted)</h3>\n<ul>\n");
    calibrated = TRUE;
    g_string_append(out, "<li>");
    lb_page_esc(out, c->id);
    g_string_append(out, ": fitted with ");
    lb_page_esc(out, c->calibrated);
    g_string_append(out, "</li>\n");
  }
  if (calibrated)
    g_string_append(out, "</ul>\n");
}

static void
claims_table(GString *out, const LbReproduction *rep)
{
  g_string_append(out, "<h2 id=\"claims-section\">Claims</h2>\n<table class=\"numbers\" "
                       "id=\"claims\">\n<thead><tr><th scope=\"col\">claim</th><th "
                       "scope=\"col\">paper</th><th scope=\"col\">lbsim</th><th "
                       "scope=\"col\">rule</th><th scope=\"col\">agrees</th><th "
                       "scope=\"col\">note</th></tr></thead>\n<tbody>\n");
  for (guint i = 0; i < rep->nclaims; i++) {
    const LbClaimRow *c = &rep->claims[i];
    if (c->diagnostic)
      continue;
    g_autofree char *paper = g_strdup_printf("%.2f%s%s", c->paper, *c->unit ? " " : "", c->unit);
    g_autofree char *lbsim =
        c->done ? g_strdup_printf("%.2f%s%s", c->lbsim, *c->unit ? " " : "", c->unit)
                : g_strdup("\xe2\x80\x93");
    gboolean known = strcmp(c->status, "known") == 0;
    g_string_append_printf(out, "<tr%s data-claim=\"", known ? " class=\"known\"" : "");
    lb_page_esc(out, c->id);
    g_string_append(out, "\" data-status=\"");
    lb_page_esc(out, c->status);
    g_string_append(out, "\"><th scope=\"row\" title=\"");
    lb_page_esc(out, c->text);
    g_string_append(out, "\">");
    lb_page_esc(out, c->id);
    g_string_append(out, "</th>");
    lb_page_value_cell(out, "paper", c->paper, paper);
    lb_page_value_cell(out, "lbsim", c->done ? c->lbsim : NAN, lbsim);
    g_string_append(out, "<td>");
    lb_page_esc(out, c->rule);
    g_string_append_printf(out, "</td><td>%s</td><td class=\"text\">",
                           !c->done    ? "\xe2\x80\x93"
                           : c->agrees ? "yes"
                           : known     ? "<strong>no</strong> (known)"
                                       : "<strong>no</strong>");
    if (c->headline)
      g_string_append(out, "(headline) ");
    if (c->calibrated != NULL)
      g_string_append(out, "(calibrated) ");
    lb_page_esc(out, c->note);
    g_string_append(out, "</td></tr>\n");
  }
  g_string_append(out, "</tbody>\n</table>\n<p class=\"files\">Hover a claim for its text; "
                       "every claim is in the JSON linked below.</p>\n");
}

/* lbsim's own numbers beside the claims, and the inputs the paper does
 * not state with where each comes from. */
static void
diagnostics_and_calibration(GString *out, const LbReproduction *rep)
{
  gboolean any = FALSE;
  for (guint i = 0; i < rep->nclaims; i++) {
    const LbClaimRow *c = &rep->claims[i];
    if (!c->diagnostic)
      continue;
    if (!any)
      g_string_append(out, "<h2 id=\"diagnostics-section\">Diagnostics</h2>\n<p "
                           "class=\"note\">lbsim's own numbers, not the paper's: no claim "
                           "is made of them.</p>\n<table class=\"numbers\" "
                           "id=\"diagnostics\">\n<thead><tr><th scope=\"col\">diagnostic</th>"
                           "<th scope=\"col\">lbsim</th><th scope=\"col\">what</th><th "
                           "scope=\"col\">note</th></tr></thead>\n<tbody>\n");
    any = TRUE;
    g_autofree char *lbsim = c->done ? claim_number(c->lbsim, c->unit) : g_strdup("\xe2\x80\x93");
    g_string_append(out, "<tr data-diagnostic=\"");
    lb_page_esc(out, c->id);
    g_string_append(out, "\"><th scope=\"row\">");
    lb_page_esc(out, c->id);
    g_string_append(out, "</th>");
    lb_page_value_cell(out, "lbsim", c->done ? c->lbsim : NAN, lbsim);
    g_string_append(out, "<td class=\"text\">");
    lb_page_esc(out, c->text);
    g_string_append(out, "</td><td class=\"text\">");
    lb_page_esc(out, c->note);
    g_string_append(out, "</td></tr>\n");
  }
  if (any)
    g_string_append(out, "</tbody>\n</table>\n");
  if (rep->ncalibration == 0)
    return;
  g_string_append(out, "<h2 id=\"calibration-section\">Calibration</h2>\n<p class=\"note\">"
                       "The inputs the paper does not state, each with where its value comes "
                       "from.</p>\n<table class=\"facts\" id=\"calibration\">\n<thead><tr><th "
                       "scope=\"col\">input</th><th scope=\"col\">value</th><th "
                       "scope=\"col\">source</th></tr></thead>\n<tbody>\n");
  for (guint i = 0; i < rep->ncalibration; i++) {
    g_string_append(out, "<tr><th scope=\"row\">");
    lb_page_esc(out, rep->calibration[i].key);
    g_string_append(out, "</th><td>");
    lb_page_esc(out, rep->calibration[i].value);
    g_string_append(out, "</td><td>");
    lb_page_esc(out, rep->calibration[i].source);
    g_string_append(out, "</td></tr>\n");
  }
  g_string_append(out, "</tbody>\n</table>\n");
}

/* Text as a file name's part: lower case, a '-' for every run of other
 * characters than letters and digits, at most 80 characters. */
static char *
slug(const char *text, gssize length)
{
  g_autofree char *lower = g_ascii_strdown(text, length);
  GString *out = g_string_new(NULL);
  for (const char *c = lower; *c != '\0'; c++)
    if (g_ascii_isalnum(*c))
      g_string_append_c(out, *c);
    else if (out->len > 0 && out->str[out->len - 1] != '-')
      g_string_append_c(out, '-');
  if (out->len > 80)
    g_string_truncate(out, 80);
  while (out->len > 0 && out->str[out->len - 1] == '-')
    g_string_truncate(out, out->len - 1);
  if (out->len == 0)
    g_string_assign(out, "figure");
  return g_string_free(out, FALSE);
}

/* The figures' file names: each its reference, the words before its ':'
 * ("Fig. 1, problem 1 (h = 10): ..." is fig-1-problem-1-h-10); figures
 * that share a reference each their whole text; a number after a name
 * taken still. */
static GPtrArray *
figure_slugs(GPtrArray *figures)
{
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GPtrArray) short_names = g_ptr_array_new_with_free_func(g_free);
  for (guint k = 0; k < figures->len; k++) {
    const char *f = figures->pdata[k];
    g_ptr_array_add(short_names, slug(f, (gssize)strcspn(f, ":")));
  }
  for (guint k = 0; k < figures->len; k++) {
    guint same = 0;
    for (guint j = 0; j < figures->len; j++)
      same += strcmp(short_names->pdata[j], short_names->pdata[k]) == 0;
    g_autofree char *name =
        same > 1 ? slug(figures->pdata[k], -1) : g_strdup(short_names->pdata[k]);
    char *unique = g_strdup(name);
    for (guint n = 2; g_ptr_array_find_with_equal_func(out, unique, g_str_equal, NULL); n++) {
      g_free(unique);
      unique = g_strdup_printf("%s-%u", name, n);
    }
    g_ptr_array_add(out, unique);
  }
  return out;
}

/* The points of one line: (processors, value) in the order of the
 * processors. */
static void
line_points(GPtrArray *points, gboolean paper, GArray *x, GArray *y)
{
  for (guint i = 0; i < points->len; i++) {
    const LbFigurePoint *pt = points->pdata[i];
    double v = paper ? pt->paper : pt->lbsim, r = pt->ranks;
    if (!isfinite(v))
      continue;
    guint at = 0;
    while (at < x->len && g_array_index(x, double, at) <= r)
      at++;
    g_array_insert_val(x, at, r);
    g_array_insert_val(y, at, v);
  }
}

/* One chart per figure the claims name: a series per quantity its claims
 * measure (a claim of one number at one processor count is a point of
 * its quantity's lines; a claim of several points, lbsim's line and the
 * bounds the paper states), the paper's numbers dashed, lbsim's solid,
 * against the processors; each file named after the figure. */
static gboolean
figure_charts(Out *o, GString *out, const LbReproduction *rep, GError **error)
{
  g_autoptr(GPtrArray) figures = g_ptr_array_new();
  for (guint i = 0; i < rep->nclaims; i++) {
    const char *f = rep->claims[i].figure;
    if (f != NULL && !g_ptr_array_find_with_equal_func(figures, f, g_str_equal, NULL))
      g_ptr_array_add(figures, (gpointer)f);
  }
  g_string_append(out, "<h2 id=\"figures-section\">The paper's figures</h2>\n");
  g_autoptr(GPtrArray) slugs = figure_slugs(figures);
  for (guint k = 0; k < figures->len; k++) {
    const char *figure = figures->pdata[k];
    g_autoptr(GPtrArray) points = g_ptr_array_new();
    const char *unit = "";
    for (guint i = 0; i < rep->nclaims; i++) {
      const LbClaimRow *c = &rep->claims[i];
      if (c->figure == NULL || strcmp(c->figure, figure) != 0)
        continue;
      unit = c->unit;
      for (guint p = 0; p < c->npoints; p++)
        g_ptr_array_add(points, (gpointer)&c->points[p]);
    }
    const char *name = slugs->pdata[k];
    g_autoptr(LbPlot) plot = lb_page_new_plot(o, LB_PLOT_LINES, name, figure);
    lb_plot_x_axis(plot, "processors", LB_PLOT_LOG2, NULL);
    lb_plot_value_axis(plot, *unit != '\0' ? unit : "value", 0, FALSE);
    lb_plot_style(plot, 0, "lbsim");
    lb_plot_style(plot, 1, "the paper");
    g_autoptr(GString) csv = g_string_new("series,processors,paper,lbsim\n");
    g_autoptr(GPtrArray) series = g_ptr_array_new();
    for (guint i = 0; i < points->len; i++) {
      const LbFigurePoint *pt = points->pdata[i];
      if (!g_ptr_array_find_with_equal_func(series, pt->series, g_str_equal, NULL))
        g_ptr_array_add(series, (gpointer)pt->series);
    }
    for (guint l = 0; l < series->len; l++) {
      lb_plot_series(plot, series->pdata[l]);
      for (guint line = 0; line < 3; line++) { /* the paper's two, then lbsim's */
        g_autoptr(GPtrArray) on = g_ptr_array_new();
        for (guint i = 0; i < points->len; i++) {
          const LbFigurePoint *pt = points->pdata[i];
          if (strcmp(pt->series, series->pdata[l]) == 0 &&
              (line == 2 ? isfinite(pt->lbsim) : isfinite(pt->paper) && pt->line == line))
            g_ptr_array_add(on, (gpointer)pt);
        }
        g_autoptr(GArray) x = g_array_new(FALSE, FALSE, sizeof(double));
        g_autoptr(GArray) y = g_array_new(FALSE, FALSE, sizeof(double));
        line_points(on, line < 2, x, y);
        if (x->len > 0)
          lb_plot_line(plot, line < 2 ? 1 : 0, x->len, (double *)x->data, (double *)y->data);
      }
      for (guint i = 0; i < points->len; i++) {
        const LbFigurePoint *pt = points->pdata[i];
        if (strcmp(pt->series, series->pdata[l]) != 0)
          continue;
        lb_report_csv_text(csv, pt->series);
        g_string_append_printf(csv, ",%u", pt->ranks);
        if (isfinite(pt->paper))
          lb_page_csv_number(csv, pt->paper);
        else
          g_string_append_c(csv, ',');
        if (isfinite(pt->lbsim))
          lb_page_csv_number(csv, pt->lbsim);
        else
          g_string_append_c(csv, ',');
        g_string_append_c(csv, '\n');
      }
    }
    g_string_append(out, "<h3>");
    lb_page_esc(out, figure);
    g_string_append(out, "</h3>\n");
    if (!lb_page_put_chart(
            o, out, plot, name,
            "The paper's numbers (dashed) and lbsim's (solid, where it ran) against the "
            "processors, a line per quantity measured; for a claim of several points, "
            "the least and the most the paper states.",
            csv, error))
      return FALSE;
  }
  return TRUE;
}

/* What the checks computed and print (a tree, a schedule, a table of
 * step counts), each under its claim's id. */
static void
worked_examples(GString *out, const LbReproduction *rep)
{
  gboolean any = FALSE;
  for (guint i = 0; i < rep->nclaims; i++) {
    const LbClaimRow *c = &rep->claims[i];
    if (c->detail == NULL)
      continue;
    if (!any)
      g_string_append(out, "<h2 id=\"examples-section\">As lbsim computes them</h2>\n");
    any = TRUE;
    g_string_append(out, "<h3>");
    lb_page_esc(out, c->id);
    g_string_append(out, "</h3>\n<pre>");
    lb_page_esc(out, c->detail);
    g_string_append(out, "</pre>\n");
  }
}

gboolean
lb_html_write_reproduction(const LbReproduction *rep, const LbHtmlOptions *options, GError **error)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
  g_auto(Out) o = {.kind = "reproduction",
                   .name = rep->key,
                   .version = LB_VERSION,
                   .json = options->json,
                   .length = options->length,
                   .dir = options->dir,
                   .files = files,
                   .chart_scale = options->chart_scale,
                   .chart_formats = options->chart_formats,
                   .look = &options->look};
  g_autoptr(GPtrArray) names = g_ptr_array_new();
  for (guint i = 0; i < rep->nclaims; i++)
    for (guint p = 0; p < rep->claims[i].npoints; p++)
      g_ptr_array_add(names, (gpointer)rep->claims[i].points[p].series);
  o.styles = lb_styles_new((const char *const *)names->pdata, names->len);
  g_auto(Manifest) old = {0};
  gboolean had = lb_page_manifest_load(options->dir, &old);
  g_autofree char *json_base = lb_page_file_name(rep->key, "reproduction", "json");
  if (!lb_page_put_file(&o, json_base, options->json, options->length, error))
    return FALSE;
  g_autoptr(GString) page = g_string_new(NULL);
  g_autofree char *title = g_strdup_printf("%s: a reproduction", rep->key);
  lb_page_page_start(page, LB_VERSION, title);
  g_string_append(page, "<header>\n<h1>");
  lb_page_esc(page, title);
  g_string_append(page, "</h1>\n<p class=\"lead\">");
  lb_page_esc(page, rep->cite);
  g_string_append(page, "</p>\n<p>");
  lb_page_esc(page, rep->summary);
  if (rep->deep != NULL) {
    g_string_append(page, "</p>\n<p class=\"note\">The deep form: ");
    lb_page_esc(page, rep->deep);
  }
  if (rep->quick != NULL) {
    g_string_append(page, "</p>\n<p class=\"note\">The quick form: ");
    lb_page_esc(page, rep->quick);
  }
  if (rep->only != NULL) {
    g_string_append(page, "</p>\n<p class=\"note\">Only the runs ");
    lb_page_esc(page, rep->only);
    g_string_append(page, " (--only): the claims on the others not evaluated");
  }
  if (rep->changed != NULL) {
    g_string_append(page, "</p>\n<p class=\"note known\">Not the paper's experiment: every run "
                          "with ");
    lb_page_esc(page, rep->changed);
  }
  g_string_append(page, "</p>\n</header>\n");
  scorecard(page, rep);
  claims_table(page, rep);
  diagnostics_and_calibration(page, rep);
  if (!figure_charts(&o, page, rep, error))
    return FALSE;
  worked_examples(page, rep);
  lb_page_page_end(page, LB_VERSION, json_base);
  if (!lb_page_put_file(&o, PAGE, page->str, page->len, error) ||
      !lb_page_write_manifest(&o, json_base, FALSE, error))
    return FALSE;
  if (had)
    lb_page_remove_stale(&o, &old, NULL);
  return TRUE;
}
