/* The report page of a run: its summary, the imbalance and idle time per
 * step, the time per phase, its pictures. */
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

/* ---- a run's page ---- */

static void
run_header(GString *out, const LbResults *doc)
{
  const LbRunResult *first = doc->runs->pdata[0];
  g_string_append(out, "<header>\n<h1>");
  lb_page_esc(out, doc->name);
  g_string_append(out, "</h1>\n<p class=\"lead\">");
  g_autoptr(GString) lead = g_string_new(NULL);
  g_string_append_printf(lead, "%u balancer%s on %u rank%s", doc->runs->len,
                         doc->runs->len == 1 ? "" : "s", doc->ranks, doc->ranks == 1 ? "" : "s");
  if (first->model != NULL && *first->model != '\0')
    g_string_append_printf(lead, ", model %s", first->model);
  lb_page_esc(out, lead->str);
  g_string_append(out, "</p>\n</header>\n<nav><a href=\"#summary-section\">Summary</a>"
                       "<a href=\"#imbalance-section\">Imbalance per step</a>"
                       "<a href=\"#phases-section\">Time per phase</a>"
                       "<a href=\"#pictures-section\">Partitions</a>"
                       "<a href=\"#metrics-section\">Declared metrics</a>"
                       "<a href=\"#balancers-section\">Balancers</a></nav>\n"
                       "<h2 id=\"setup-section\">Scenario</h2>\n<table class=\"facts\" "
                       "id=\"setup\">\n");
  lb_page_fact(out, "scenario", doc->name);
  lb_page_fact_if(out, "scenario file", doc->scenario_file);
  lb_page_fact_if(out, "platform", doc->platform);
  lb_page_fact_if(out, "hosts", doc->hosts);
  lb_page_fact_if(out, "background load", doc->background);
  lb_page_fact_if(out, "background traffic (flows a switch)", doc->background_traffic);
  g_autofree char *ranks = g_strdup_printf("%u", doc->ranks);
  lb_page_fact(out, "ranks", ranks);
  lb_page_fact_if(out, "model", doc->model);
  lb_page_fact_if(out, "work units", doc->elements);
  lb_page_fact_if(out, "adaptation steps", doc->steps);
  lb_page_fact_if(out, "seed", doc->seed);
  lb_page_fact(out, "lbsim", doc->version);
  g_string_append(out, "</table>\n");
}

static void
summary_csv(GString *csv, GPtrArray *runs, GPtrArray *metric_names)
{
  g_string_append(csv, "balancer");
  lb_page_summary_csv_head(csv);
  for (guint m = 0; m < metric_names->len; m++)
    g_string_append_printf(csv, ",%s", (char *)metric_names->pdata[m]);
  g_string_append_c(csv, '\n');
  for (guint i = 0; i < runs->len; i++) {
    const LbRunResult *r = runs->pdata[i];
    lb_report_csv_text(csv, r->balancer);
    lb_page_summary_csv_values(csv, r);
    for (guint m = 0; m < metric_names->len; m++) {
      double v;
      if (lb_page_declared(r, metric_names->pdata[m], &v) != NULL)
        lb_page_csv_number(csv, v);
      else
        g_string_append_c(csv, ',');
    }
    g_string_append_c(csv, '\n');
  }
}

/* Every declared metric of any run but schedule_steps (a column of the
 * summary), in first-seen order. */
static GPtrArray *
metric_names(GPtrArray *runs)
{
  GPtrArray *names = g_ptr_array_new();
  for (guint i = 0; i < runs->len; i++) {
    const LbRunResult *r = runs->pdata[i];
    for (guint k = 0; k < r->metric_defs->len; k++) {
      const char *name = g_array_index(r->metric_defs, LbMetricDef, k).json_name;
      if (strcmp(name, "schedule_steps") != 0 &&
          !g_ptr_array_find_with_equal_func(names, name, g_str_equal, NULL))
        g_ptr_array_add(names, (gpointer)name);
    }
  }
  return names;
}

static gboolean
run_summary(Out *o, GString *out, GError **error)
{
  const LbResults *doc = o->doc;
  g_string_append(out,
                  "<h2 id=\"summary-section\">Summary</h2>\n<p>One row per balancer, as "
                  "<code>lbsim run</code> prints it: imbalances are means over the "
                  "adaptation steps, the rest sums.</p>\n<div class=\"wide\"><table "
                  "class=\"numbers\" id=\"summary\">\n<thead><tr><th scope=\"col\">balancer</th>");
  lb_page_summary_head(out);
  g_string_append(out, "</tr></thead>\n<tbody>\n");
  for (guint i = 0; i < doc->runs->len; i++) {
    const LbRunResult *r = doc->runs->pdata[i];
    g_string_append(out, "<tr data-balancer=\"");
    lb_page_esc(out, r->balancer);
    /* its style on the charts */
    g_autofree char *swatch = lb_plot_swatch(lb_styles_index(o->styles, r->balancer));
    g_string_append_printf(out, "\"><th scope=\"row\">%s ", swatch);
    lb_page_esc(out, r->balancer);
    g_string_append(out, "</th>");
    lb_page_summary_cells(out, r);
    g_string_append(out, "</tr>\n");
  }
  g_string_append(out, "</tbody>\n</table></div>\n<p class=\"files\">Numbers, with every "
                       "declared metric: ");
  g_autoptr(GPtrArray) names = metric_names(doc->runs);
  g_autoptr(GString) csv = g_string_new(NULL);
  summary_csv(csv, doc->runs, names);
  g_autofree char *csv_base = lb_page_file_name(doc->name, "summary", "csv");
  lb_page_put_link(out, csv_base, csv_base);
  g_string_append(out, "</p>\n");
  return lb_page_put_file(o, csv_base, csv->str, csv->len, error);
}

static void
run_metrics(GString *out, const LbResults *doc)
{
  g_autoptr(GPtrArray) names = metric_names(doc->runs);
  g_autofree char *csv_base = lb_page_file_name(doc->name, "summary", "csv");
  g_string_append(out,
                  "<h2 id=\"metrics-section\">Declared metrics</h2>\n<p>What each balancer "
                  "(and the application step) declares besides the summary; a dash where a "
                  "balancer has no such metric.</p>\n<div class=\"wide\"><table "
                  "class=\"numbers\" id=\"metrics\">\n<thead><tr><th scope=\"col\">metric</th>");
  for (guint i = 0; i < doc->runs->len; i++) {
    g_string_append(out, "<th scope=\"col\">");
    lb_page_esc(out, ((const LbRunResult *)doc->runs->pdata[i])->balancer);
    g_string_append(out, "</th>");
  }
  g_string_append(out, "</tr></thead>\n<tbody>\n");
  for (guint m = 0; m < names->len; m++) {
    const char *name = names->pdata[m];
    g_autoptr(GString) cells = g_string_new(NULL);
    g_autofree char *help = NULL;
    for (guint i = 0; i < doc->runs->len; i++) {
      const LbRunResult *r = doc->runs->pdata[i];
      double v;
      const LbMetricDef *d = lb_page_declared(r, name, &v);
      if (d == NULL) {
        g_string_append(cells, "<td>-</td>");
        continue;
      }
      if (help == NULL)
        help = g_strdup(d->help);
      g_autofree char *text = lb_page_with_unit(lb_report_metric_value(d, v), d->unit);
      lb_page_value_cell(cells, name, v, text);
    }
    g_string_append(out, "<tr data-metric=\"");
    lb_page_esc(out, name);
    g_string_append(out, "\"><th scope=\"row\"");
    if (help != NULL) {
      g_string_append(out, " title=\"");
      lb_page_esc(out, help);
      g_string_append(out, "\"");
    }
    g_string_append(out, ">");
    lb_page_esc(out, name);
    g_string_append_printf(out, "</th>%s</tr>\n", cells->str);
  }
  g_string_append(out, "</tbody>\n</table></div>\n<p class=\"files\">Numbers: ");
  lb_page_put_link(out, csv_base, csv_base);
  g_string_append(out, "</p>\n");
}

/* The points of a line of the steps' imbalances (before or after
 * balancing) that have a value (lbsim writes null for none). */
static void
finite_points(const LbRunResult *r, gboolean after, GArray *xs, GArray *ys)
{
  for (guint s = 0; s < r->nadaptations; s++) {
    const LbAdaptationResult *a = &r->adaptations[s];
    double v = after ? a->imbalance_after : a->imbalance_before, x = s;
    if (!isfinite(v))
      continue;
    g_array_append_val(xs, x);
    g_array_append_val(ys, v);
  }
}

/* A close-up of the imbalance after balancing, without the balancers
 * that dwarf the rest (lb_plot_dwarfs). Its lines keep their styles; there
 * is none when no balancer or all but one would go. */
static gboolean
run_imbalance_close(Out *o, GString *out, GError **error)
{
  const LbResults *doc = o->doc;
  guint n = doc->runs->len;
  g_autofree double *excess = g_new0(double, MAX(n, 1));
  for (guint i = 0; i < n; i++) {
    const LbRunResult *r = doc->runs->pdata[i];
    for (guint s = 0; s < r->nadaptations; s++)
      if (isfinite(r->adaptations[s].imbalance_after))
        excess[i] = MAX(excess[i], r->adaptations[s].imbalance_after - 1);
  }
  g_autofree gboolean *left_out = lb_plot_dwarfs(excess, n);
  if (left_out == NULL)
    return TRUE;
  g_autoptr(GString) left = g_string_new(NULL);
  for (guint i = 0; i < n; i++)
    if (left_out[i])
      g_string_append_printf(left, "%s%s", left->len ? ", " : "",
                             ((const LbRunResult *)doc->runs->pdata[i])->balancer);
  g_autoptr(LbPlot) plot =
      lb_page_new_plot(o, LB_PLOT_LINES, "imbalance-close", "Imbalance after balancing, close up");
  lb_plot_x_axis(plot, "adaptation step", LB_PLOT_INTEGER, NULL);
  lb_plot_value_axis(plot, "imbalance after balancing (max/avg load)", 1, FALSE);
  g_autoptr(GString) csv = g_string_new("balancer,step,imbalance_after\n");
  for (guint i = 0; i < n; i++) {
    const LbRunResult *r = doc->runs->pdata[i];
    if (left_out[i])
      continue;
    lb_plot_series(plot, r->balancer);
    g_autoptr(GArray) xs = g_array_new(FALSE, FALSE, sizeof(double));
    g_autoptr(GArray) ys = g_array_new(FALSE, FALSE, sizeof(double));
    finite_points(r, TRUE, xs, ys);
    lb_plot_line(plot, 0, xs->len, (double *)xs->data, (double *)ys->data);
    for (guint s = 0; s < r->nadaptations; s++) {
      lb_report_csv_text(csv, r->balancer);
      g_string_append_printf(csv, ",%u", s);
      lb_page_csv_number(csv, r->adaptations[s].imbalance_after);
      g_string_append_c(csv, '\n');
    }
  }
  g_autofree char *caption = g_strdup_printf(
      "The imbalance after balancing of the balancers that stay near 1, on an axis made for "
      "them: %s, whose imbalance exceeds 1 by ten times the median balancer's or more, are "
      "left out (they are in the chart above).",
      left->str);
  return lb_page_put_chart(o, out, plot, "imbalance-close", caption, csv, error);
}

static gboolean
run_imbalance(Out *o, GString *out, GError **error)
{
  const LbResults *doc = o->doc;
  g_autoptr(LbPlot) plot =
      lb_page_new_plot(o, LB_PLOT_LINES, "imbalance-steps", "Imbalance per adaptation step");
  lb_plot_x_axis(plot, "adaptation step", LB_PLOT_INTEGER, NULL);
  lb_plot_value_axis(plot, "imbalance (max/avg load)", 1, FALSE);
  lb_plot_style(plot, 0, "after balancing");
  lb_plot_style(plot, 1, "before balancing");
  g_autoptr(GString) csv = g_string_new("balancer,step,imbalance_before,imbalance_after\n");
  for (guint i = 0; i < doc->runs->len; i++) {
    const LbRunResult *r = doc->runs->pdata[i];
    lb_plot_series(plot, r->balancer);
    for (guint l = 0; l < 2; l++) { /* before first: the line after balancing over it */
      g_autoptr(GArray) xs = g_array_new(FALSE, FALSE, sizeof(double));
      g_autoptr(GArray) ys = g_array_new(FALSE, FALSE, sizeof(double));
      finite_points(r, l == 1, xs, ys);
      lb_plot_line(plot, l == 0 ? 1 : 0, xs->len, (double *)xs->data, (double *)ys->data);
    }
    for (guint s = 0; s < r->nadaptations; s++) {
      lb_report_csv_text(csv, r->balancer);
      g_string_append_printf(csv, ",%u", s);
      lb_page_csv_number(csv, r->adaptations[s].imbalance_before);
      lb_page_csv_number(csv, r->adaptations[s].imbalance_after);
      g_string_append_c(csv, '\n');
    }
  }
  g_string_append(out, "<h2 id=\"imbalance-section\">Imbalance per adaptation step</h2>\n");
  return lb_page_put_chart(
             o, out, plot, "imbalance-steps",
             "The largest rank's load over the mean load at every adaptation step: dashed "
             "as the step found it (after the model's update), solid after the balancer's "
             "work; 1 is perfect balance.",
             csv, error) &&
         run_imbalance_close(o, out, error);
}

static gboolean
run_phases(Out *o, GString *out, GError **error)
{
  const LbResults *doc = o->doc;
  g_autoptr(LbPlot) plot =
      lb_page_new_plot(o, LB_PLOT_BARS, "phase-times", "Time per phase, summed over the steps");
  lb_plot_value_axis(plot, "simulated time", 0, TRUE);
  /* a phase's fill is its name's place among every balancer's phases */
  g_autoptr(GPtrArray) keys = g_ptr_array_new_null_terminated(0, NULL, TRUE);
  for (const LbBalancer *const *b = lb_balancers(); *b != NULL; b++)
    for (const char *const *name = (*b)->phases; name != NULL && *name != NULL; name++)
      if (!g_ptr_array_find_with_equal_func(keys, *name, g_str_equal, NULL))
        g_ptr_array_add(keys, (gpointer)*name);
  lb_plot_segment_keys(plot, (const char *const *)keys->pdata);
  g_autoptr(GString) csv = g_string_new("balancer,phase,steps,messages,bytes,time\n");
  const LbSummaryField *balance = lb_summary_lookup("balance_time");
  for (guint i = 0; i < doc->runs->len; i++) {
    const LbRunResult *r = doc->runs->pdata[i];
    lb_plot_series(plot, r->balancer);
    double balanced = lb_page_summary_value(balance, r);
    if (r->nphases > 0 && isfinite(balanced))
      lb_plot_mark(plot, balanced, "balance time (the summary's)");
    for (guint k = 0; k < r->nphases; k++) {
      const LbPhaseResult *p = &r->phases[k];
      lb_plot_segment(plot, p->name, isfinite(p->time) ? p->time : 0);
      lb_report_csv_text(csv, r->balancer);
      g_string_append_c(csv, ',');
      lb_report_csv_text(csv, p->name);
      lb_page_csv_number(csv, p->rounds);
      lb_page_csv_number(csv, (double)p->messages);
      lb_page_csv_number(csv, p->bytes);
      lb_page_csv_number(csv, p->time);
      g_string_append_c(csv, '\n');
    }
  }
  g_string_append(out, "<h2 id=\"phases-section\">Time per phase</h2>\n");
  return lb_page_put_chart(
      o, out, plot, "phase-times",
      "The simulated time of each of a balancer's phases, summed over the "
      "adaptation steps, one bar per balancer (balancers without phases have "
      "none). A phase's time is its slowest rank's, and the slowest rank is not "
      "the same in every phase: a rank that finishes one phase early starts the "
      "next early. So a bar, the sum of these maxima, can be longer than the "
      "summary's balance column (the black mark), the slowest rank's whole "
      "balancing; it is shorter where a balancer spends time outside its "
      "phases.",
      csv, error);
}

/* A cairo SVG inside the page: its ids (glyphs, clips, images) prefixed,
 * since every picture numbers its own from 1 and ids are the page's. */
static void
inline_picture(GString *out, const char *svg, const char *prefix)
{
  const char *at = strstr(svg, "<svg");
  if (at == NULL)
    return;
  g_string_append(out, "<svg class=\"picture\"");
  at += strlen("<svg");
  static const char *const refs[] = {"id=\"", "href=\"#", "url(#"};
  while (*at != '\0') {
    const char *next = NULL;
    guint which = 0;
    for (guint k = 0; k < G_N_ELEMENTS(refs); k++) {
      const char *m = strstr(at, refs[k]);
      if (m != NULL && (next == NULL || m < next)) {
        next = m;
        which = k;
      }
    }
    if (next == NULL) {
      g_string_append(out, at);
      break;
    }
    next += strlen(refs[which]);
    g_string_append_len(out, at, next - at);
    g_string_append(out, prefix);
    at = next;
  }
}

static const char *const picture_kinds[] = {"partition", "grids", "curve", "chunks"};

/* A picture whose SVG is larger is shown from its file (an <img> of its
 * PNG, or of the SVG without one) instead of inside the page: a curve
 * through a million leaves is megabytes of path, and ten pictures of 1024
 * ranks would make a page no browser opens quickly. */
#define PICTURE_INLINE_MAX (96 * 1024)

/* The picture file shown for a large picture, copied into the report's
 * folder when it is elsewhere: its base name, or NULL. */
static char *
picture_file(Out *o, const char *pictures_dir, gboolean local, const char *what)
{
  static const char *const exts[] = {"png", "svg"};
  for (guint e = 0; e < G_N_ELEMENTS(exts); e++) {
    g_autofree char *path = lb_figure_file(pictures_dir, o->name, what, exts[e]);
    g_autofree char *base = lb_page_file_name(o->name, what, exts[e]);
    if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
      continue;
    if (local)
      return g_steal_pointer(&base);
    g_autofree char *bytes = NULL;
    gsize length = 0;
    if (g_file_get_contents(path, &bytes, &length, NULL) &&
        lb_page_put_file(o, base, bytes, length, NULL))
      return g_steal_pointer(&base);
  }
  return NULL;
}

/* The pictures in pictures_dir: drawn there by the run of this JSON
 * (drawn), or found there; links to them when they are the folder's. */
static void
run_pictures(Out *o, GString *out, const char *pictures_dir, gboolean drawn, gboolean local)
{
  const LbResults *doc = o->doc;
  g_string_append(out, "<h2 id=\"pictures-section\">Final partitions</h2>\n<p>Each run's "
                       "units on its ranks after the last balancing; for a balancer that owns "
                       "the compute (dls), the chunks each rank computed over simulated "
                       "time.</p>\n");
  if (pictures_dir == NULL) {
    g_string_append(out, "<p class=\"note\">No pictures: <code>lbsim run --report</code> draws "
                         "them; <code>lbsim report</code> adds those of <code>lbsim run "
                         "--pictures DIR</code> with <code>--pictures DIR</code>.</p>\n");
    return;
  }
  g_autoptr(GString) figures = g_string_new(NULL);
  guint n = 0;
  for (guint i = 0; i < doc->runs->len; i++) {
    const LbRunResult *r = doc->runs->pdata[i];
    for (guint k = 0; k < G_N_ELEMENTS(picture_kinds); k++) {
      g_autofree char *what = g_strdup_printf("%s.%s", r->balancer, picture_kinds[k]);
      g_autofree char *path = lb_figure_file(pictures_dir, doc->name, what, "svg");
      g_autofree char *svg = NULL;
      gsize size = 0;
      /* no SVG (pictures drawn as PNG alone): the PNG */
      gboolean has_svg = g_file_get_contents(path, &svg, &size, NULL);
      g_autofree char *shown =
          !has_svg || size > PICTURE_INLINE_MAX ? picture_file(o, pictures_dir, local, what) : NULL;
      if (!has_svg && shown == NULL)
        continue;
      g_string_append(figures, "<figure class=\"picture\" data-balancer=\"");
      lb_page_esc(figures, r->balancer);
      g_string_append(figures, "\">\n");
      g_autofree char *prefix = g_strdup_printf("pic%u-", n++);
      if (shown != NULL) {
        g_autofree char *h = lb_page_href(shown);
        g_string_append_printf(figures, "<img class=\"picture\" src=\"%s\" alt=\"", h);
        lb_page_esc(figures, r->balancer);
        g_string_append(figures, strcmp(picture_kinds[k], "chunks") == 0
                                     ? ": the chunks over time\" loading=\"lazy\">\n"
                                     : ": the final partition\" loading=\"lazy\">\n");
      } else {
        inline_picture(figures, svg, prefix);
      }
      g_string_append(figures, "<figcaption>");
      lb_page_esc(figures, r->balancer);
      if (local) {
        g_autofree char *svg_base = lb_page_file_name(doc->name, what, "svg");
        g_string_append(figures, ":");
        if (has_svg) {
          g_string_append(figures, " ");
          lb_page_put_link(figures, svg_base, "SVG");
          g_ptr_array_add(o->files, g_strdup(svg_base));
        }
        gboolean linked = has_svg;
        static const char *const others[][2] = {{"png", "PNG"}, {"pdf", "PDF"}};
        for (guint f = 0; f < G_N_ELEMENTS(others); f++) {
          g_autofree char *base = lb_page_file_name(doc->name, what, others[f][0]);
          g_autofree char *other = g_build_filename(o->dir, base, NULL);
          if (!g_file_test(other, G_FILE_TEST_EXISTS))
            continue;
          g_string_append(figures, linked ? " \xc2\xb7 " : " ");
          lb_page_put_link(figures, base, others[f][1]);
          g_ptr_array_add(o->files, g_strdup(base));
          linked = TRUE;
        }
      }
      g_string_append(figures, "</figcaption>\n</figure>\n");
    }
  }
  if (n == 0 && drawn) {
    const LbRunResult *first = doc->runs->pdata[0];
    g_string_append(out, "<p class=\"note\">lbsim draws no pictures of this model (");
    lb_page_esc(out, first->model);
    g_string_append(out, ").</p>\n");
    return;
  }
  if (n == 0) {
    g_string_append(out, "<p class=\"note\">No pictures of these runs in ");
    lb_page_esc(out, pictures_dir);
    g_string_append(out, ".</p>\n");
    return;
  }
  g_string_append(out, "<p>Each balancer's partition after the last adaptation step, drawn by "
                       "lbsim's pictures (as <code>--pictures</code> draws them).</p>\n"
                       "<div class=\"pictures\">\n");
  g_string_append(out, figures->str);
  g_string_append(out, "</div>\n");
}

/* "name = value, ...", in the balancer's order, or "none". */
static void
params_text(GString *out, const LbParams *params)
{
  const LbParamSpec *spec = lb_params_spec(params);
  if (spec->name == NULL) {
    g_string_append(out, "none");
    return;
  }
  for (const LbParamSpec *p = spec; p->name != NULL; p++) {
    g_autofree char *value = NULL;
    switch (p->type) {
    case LB_PARAM_INT:
      value = g_strdup_printf("%" G_GINT64_FORMAT, (gint64)lb_params_get_int(params, p->name));
      break;
    case LB_PARAM_DOUBLE: {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      value = g_strdup(
          g_ascii_formatd(buf, sizeof buf, "%.15g", lb_params_get_double(params, p->name)));
      break;
    }
    case LB_PARAM_BOOL:
      value = g_strdup(lb_params_get_bool(params, p->name) ? "true" : "false");
      break;
    case LB_PARAM_CHOICE:
    case LB_PARAM_STRING:
      value = g_strdup(lb_params_get_string(params, p->name));
      break;
    }
    g_autofree char *pair = g_strdup_printf("%s = %s", p->name, value != NULL ? value : "?");
    if (p != spec)
      g_string_append(out, ", ");
    lb_page_esc(out, pair);
  }
}

static void
run_balancers(GString *out, const LbResults *doc)
{
  g_string_append(out, "<h2 id=\"balancers-section\">Balancers</h2>\n<table id=\"balancers\">\n"
                       "<thead><tr><th scope=\"col\">balancer</th><th scope=\"col\">starting "
                       "distribution</th><th scope=\"col\">placement</th><th "
                       "scope=\"col\">parameters</th></tr></thead>\n<tbody>\n");
  for (guint i = 0; i < doc->runs->len; i++) {
    const LbRunResult *r = doc->runs->pdata[i];
    g_string_append(out, "<tr><th scope=\"row\">");
    lb_page_esc(out, r->balancer);
    g_string_append(out, "</th><td>");
    lb_page_esc(out, r->start);
    if (r->view != NULL) {
      g_string_append(out, " (on the ");
      lb_page_esc(out, r->view);
      g_string_append(out, ")");
    }
    g_string_append(out, "</td><td>");
    lb_page_esc(out, r->placement);
    g_string_append(out, "</td><td>");
    params_text(out, r->params);
    g_string_append(out, "</td></tr>\n");
  }
  g_string_append(out, "</tbody>\n</table>\n");
}

gboolean
lb_page_run_page(Out *o, GString *out, const char *pictures_dir, gboolean drawn, gboolean local,
                 const char *json_base, GError **error)
{
  lb_page_page_start(out, o->version, o->doc->name);
  run_header(out, o->doc);
  if (!run_summary(o, out, error) || !run_imbalance(o, out, error) || !run_phases(o, out, error))
    return FALSE;
  run_pictures(o, out, pictures_dir, drawn, local);
  run_metrics(out, o->doc);
  run_balancers(out, o->doc);
  lb_page_page_end(out, o->version, json_base);
  return TRUE;
}
