/* The report page of a sweep: time and imbalance against every varied
 * parameter, the replicates' spread, a table per point. */
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

/* ---- a sweep's page ---- */

static gboolean
parse_value(const char *text, double *v)
{
  char *end = NULL;
  *v = g_ascii_strtod(text, &end);
  return end != text && *end == '\0' && isfinite(*v);
}

/* How a varied parameter's values lie along x: as numbers (on a log2
 * axis when they are powers of two, each double the one before, or spread
 * over a factor of 8 or more, as rank counts are), or, when one is not a
 * number, as labels in the sweep's order. */
static LbPlotScale
value_scale(const LbSweepAxis *v, double *xs)
{
  gboolean numeric = TRUE, integral = TRUE, powers = v->values->len > 2,
           doubling = v->values->len > 2;
  double lo = G_MAXDOUBLE, hi = -G_MAXDOUBLE;
  for (guint k = 0; k < v->values->len; k++) {
    numeric = numeric && parse_value(v->values->pdata[k], &xs[k]);
    if (!numeric)
      break;
    integral = integral && xs[k] == floor(xs[k]);
    powers = powers && xs[k] >= 1 && xs[k] == exp2(round(log2(xs[k])));
    doubling = doubling && (k == 0 || xs[k] == 2 * xs[k - 1]);
    lo = MIN(lo, xs[k]);
    hi = MAX(hi, xs[k]);
  }
  if (!numeric) {
    for (guint k = 0; k < v->values->len; k++)
      xs[k] = k;
    return LB_PLOT_CATEGORIES;
  }
  if (lo > 0 && (powers || doubling || hi / lo >= 8))
    return LB_PLOT_LOG2;
  return integral ? LB_PLOT_INTEGER : LB_PLOT_LINEAR;
}

static guint
value_index(const LbSweepAxis *v, const char *value)
{
  guint k = 0;
  g_ptr_array_find_with_equal_func(v->values, value, g_str_equal, &k);
  return k;
}

/* The other parameters' values of a run: "a = 1, b = x" (empty with one
 * parameter), the replicates' aside. */
static char *
others_text(const LbResults *doc, const LbSweepResult *s, guint skip)
{
  GString *t = g_string_new(NULL);
  for (guint v = 0; v < doc->axes->len; v++) {
    if (v == skip || (gint)v == doc->replicates)
      continue;
    g_string_append_printf(t, "%s%s = %s", t->len ? ", " : "",
                           ((const LbSweepAxis *)doc->axes->pdata[v])->name, s->point[v]);
  }
  return g_string_free(t, FALSE);
}

/* Orders runs by their other parameters' value indices, the replicates'
 * aside. */
static int
compare_others(const LbSweepResult *a, const LbSweepResult *b, const LbResults *doc, guint skip)
{
  for (guint v = 0; v < doc->axes->len; v++) {
    if (v == skip || (gint)v == doc->replicates)
      continue;
    guint ia = value_index(doc->axes->pdata[v], a->point[v]);
    guint ib = value_index(doc->axes->pdata[v], b->point[v]);
    if (ia != ib)
      return ia < ib ? -1 : 1;
  }
  return 0;
}

GPtrArray *
lb_page_sweep_balancers(const LbResults *doc)
{
  GPtrArray *names = g_ptr_array_new_null_terminated(0, NULL, TRUE);
  for (guint i = 0; i < doc->results->len; i++) {
    const LbSweepResult *s = doc->results->pdata[i];
    if (!g_ptr_array_find_with_equal_func(names, s->balancer, g_str_equal, NULL))
      g_ptr_array_add(names, (gpointer)s->balancer);
  }
  return names;
}

typedef struct {
  const char *what, *title, *axis;
  const char *field; /* the summary's */
  double floor;
  gboolean seconds;
} SweepMeasure;

static const SweepMeasure sweep_measures[] = {
    {"time", "Total time", "total simulated time", "total_time", 0, TRUE},
    {"imbalance", "Imbalance after balancing", "imbalance after balancing (max/avg, mean)",
     "imbalance_after", 1, FALSE},
};

/* The runs of one line at one x: their values and statistics. */
typedef struct {
  double x;
  GArray *y;
  LbStats stats;
} SweepPoint;

static void
sweep_point_clear(gpointer p)
{
  g_array_unref(((SweepPoint *)p)->y);
}

/* One chart: a measure against parameter v, one series per balancer, a
 * line per combination of the other parameters' values. With replicates,
 * a line goes through the mean of each point's replicates, over two
 * bands: their least to greatest, and the 95 % interval of the mean. */
static gboolean
sweep_chart(Out *o, GString *out, guint v, const SweepMeasure *m, GPtrArray *balancers,
            const gboolean *left_out, GError **error)
{
  const LbResults *doc = o->doc;
  const LbSweepAxis *vary = doc->axes->pdata[v];
  gboolean replicated = doc->replicates >= 0;
  g_autofree double *xs = g_new(double, MAX(vary->values->len, 1));
  LbPlotScale scale = value_scale(vary, xs);
  g_autofree char *safe = g_strdup(vary->name);
  g_strcanon(safe, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-", '_');
  const char *close = left_out != NULL ? "-close" : "";
  g_autofree char *what = g_strdup_printf("vs-%s.%s%s", safe, m->what, close);
  g_autofree char *id = g_strdup_printf("vs-%s-%s%s", safe, m->what, close);
  g_autofree char *title =
      replicated
          ? g_strdup_printf("%s against %s (mean of %u replicates)%s", m->title, vary->name,
                            ((const LbSweepAxis *)doc->axes->pdata[doc->replicates])->values->len,
                            left_out != NULL ? ", close up" : "")
          : g_strdup_printf("%s against %s%s", m->title, vary->name,
                            left_out != NULL ? ", close up" : "");
  g_autoptr(LbPlot) plot = lb_page_new_plot(o, LB_PLOT_LINES, id, title);
  lb_plot_x_axis(plot, vary->name, scale, (const char *const *)vary->values->pdata);
  lb_plot_value_axis(plot, m->axis, m->floor, m->seconds);

  /* the combinations of the other parameters, in the sweep's order */
  g_autoptr(GPtrArray) combos = g_ptr_array_new();
  for (guint i = 0; i < doc->results->len; i++) {
    const LbSweepResult *s = doc->results->pdata[i];
    guint k = 0;
    while (k < combos->len && compare_others(combos->pdata[k], s, doc, v) < 0)
      k++;
    if (k == combos->len || compare_others(combos->pdata[k], s, doc, v) != 0)
      g_ptr_array_insert(combos, (gint)k, (gpointer)s);
  }
  guint others = doc->axes->len - 1 - (replicated ? 1 : 0);
  if (others > 0)
    for (guint c = 0; c < combos->len; c++) {
      g_autofree char *label = others_text(doc, combos->pdata[c], v);
      lb_plot_style(plot, c, label);
    }

  g_autoptr(GString) csv = g_string_new("balancer");
  for (guint k = 0; k < doc->axes->len; k++)
    if (k != v && (gint)k != doc->replicates)
      g_string_append_printf(csv, ",%s", ((const LbSweepAxis *)doc->axes->pdata[k])->name);
  const LbSummaryField *field = lb_summary_lookup(m->field);
  g_string_append_printf(csv, ",%s,%s", vary->name, field->json);
  if (replicated)
    g_string_append(csv, "_mean,runs,min,max,ci95_low,ci95_high");
  g_string_append_c(csv, '\n');
  g_autoptr(GString) left = g_string_new(NULL);
  double fastest_x = INFINITY, fastest_y = INFINITY; /* the first point of the fewest ranks */
  for (guint b = 0; b < balancers->len; b++) {
    if (left_out != NULL && left_out[b]) {
      g_string_append_printf(left, "%s%s", left->len ? ", " : "", (char *)balancers->pdata[b]);
      continue;
    }
    lb_plot_series(plot, balancers->pdata[b]);
    for (guint c = 0; c < combos->len; c++) {
      /* this line's runs, gathered by their x, in the order of x */
      g_autoptr(GArray) points = g_array_new(FALSE, FALSE, sizeof(SweepPoint));
      g_array_set_clear_func(points, sweep_point_clear);
      for (guint i = 0; i < doc->results->len; i++) {
        const LbSweepResult *s = doc->results->pdata[i];
        if (strcmp(s->balancer, balancers->pdata[b]) != 0 ||
            compare_others(s, combos->pdata[c], doc, v) != 0 ||
            !isfinite(lb_page_summary_value(field, s->result)))
          continue;
        double px = xs[value_index(vary, s->point[v])],
               py = lb_page_summary_value(field, s->result);
        guint at = 0;
        while (at < points->len && g_array_index(points, SweepPoint, at).x < px)
          at++;
        if (at == points->len || g_array_index(points, SweepPoint, at).x != px) {
          SweepPoint p = {px, g_array_new(FALSE, FALSE, sizeof(double)), {0}};
          g_array_insert_val(points, at, p);
        }
        g_array_append_val(g_array_index(points, SweepPoint, at).y, py);
      }
      if (points->len == 0)
        continue;
      guint n = points->len;
      g_autofree double *x = g_new(double, n);
      g_autofree double *y = g_new(double, n);
      g_autofree double *lo = g_new(double, 2 * n);
      g_autofree double *hi = g_new(double, 2 * n);
      for (guint k = 0; k < n; k++) {
        SweepPoint *p = &g_array_index(points, SweepPoint, k);
        lb_stats_of((double *)p->y->data, p->y->len, &p->stats);
        x[k] = p->x;
        y[k] = p->stats.mean;
        lo[k] = p->stats.min;
        hi[k] = p->stats.max;
        /* one replicate has no interval: the band narrows to the mean */
        lo[n + k] = isfinite(p->stats.ci_low) ? p->stats.ci_low : p->stats.mean;
        hi[n + k] = isfinite(p->stats.ci_high) ? p->stats.ci_high : p->stats.mean;
      }
      lb_plot_line(plot, c, n, x, y);
      if (n > 0 && (x[0] < fastest_x || (x[0] == fastest_x && y[0] < fastest_y))) {
        fastest_x = x[0];
        fastest_y = y[0];
      }
      if (replicated) {
        lb_plot_band(plot, LB_PLOT_BAND_AREA, n, lo, hi);
        lb_plot_band(plot, LB_PLOT_BAND_BARS, n, lo + n, hi + n);
      }
      for (guint k = 0; k < n; k++) {
        const SweepPoint *p = &g_array_index(points, SweepPoint, k);
        for (guint r = 0; r < (replicated ? 1 : p->y->len); r++) {
          lb_report_csv_text(csv, balancers->pdata[b]);
          const LbSweepResult *s = combos->pdata[c];
          for (guint q = 0; q < doc->axes->len; q++)
            if (q != v && (gint)q != doc->replicates) {
              g_string_append_c(csv, ',');
              lb_report_csv_text(csv, s->point[q]);
            }
          g_string_append_c(csv, ',');
          if (scale == LB_PLOT_CATEGORIES)
            lb_report_csv_text(csv, vary->values->pdata[(guint)p->x]);
          else
            lb_page_number(csv, p->x);
          if (!replicated) {
            lb_page_csv_number(csv, g_array_index(p->y, double, r));
          } else {
            lb_page_csv_number(csv, p->stats.mean);
            g_string_append_printf(csv, ",%u", p->stats.n);
            lb_page_csv_number(csv, p->stats.min);
            lb_page_csv_number(csv, p->stats.max);
            lb_page_csv_number(csv, lo[n + k]);
            lb_page_csv_number(csv, hi[n + k]);
          }
          g_string_append_c(csv, '\n');
        }
      }
    }
  }
  /* time against ranks: what ideal (strong) scaling would give from the
   * fastest run at the fewest ranks */
  gboolean ideal = m->seconds && strcmp(vary->name, "ranks") == 0 && scale != LB_PLOT_CATEGORIES &&
                   isfinite(fastest_y) && fastest_y > 0 && fastest_x > 0;
  if (ideal) {
    g_autofree double *ix = g_new(double, vary->values->len);
    g_autofree double *iy = g_new(double, vary->values->len);
    guint n = 0;
    for (guint k = 0; k < vary->values->len; k++)
      if (xs[k] >= fastest_x) {
        ix[n] = xs[k];
        iy[n++] = fastest_y * fastest_x / xs[k];
      }
    g_autofree char *label = g_strdup_printf("ideal scaling from %g ranks", fastest_x);
    lb_plot_reference(plot, label, n, ix, iy);
  }
  const char *rname =
      replicated ? ((const LbSweepAxis *)doc->axes->pdata[doc->replicates])->name : NULL;
  g_autofree char *of = replicated ? g_strdup_printf("The mean over the replicates (%s)", rname)
                                   : g_strdup("Every run's value");
  g_autofree char *bands =
      replicated ? g_strdup(" The shaded band runs from the least to the greatest replicate, the "
                            "error bars span the 95 % confidence interval of the mean (Student's "
                            "t with n - 1 degrees of freedom).")
                 : g_strdup("");
  g_autofree char *close_text =
      left->len > 0 ? g_strdup_printf(" On an axis made for the balancers that stay near 1: %s, "
                                      "whose excess over 1 is ten times the median balancer's "
                                      "or more, are left out (they are in the chart above).",
                                      left->str)
                    : g_strdup("");
  g_autofree char *ideal_text =
      ideal ? g_strdup_printf(" The grey dotted line is ideal strong scaling, the fastest time on "
                              "%g ranks times %g over the ranks (not in the CSV).",
                              fastest_x, fastest_x)
            : g_strdup("");
  g_autofree char *caption =
      others > 0 ? g_strdup_printf("%s: %s against %s, a colour per balancer, a line style per "
                                   "combination of the other parameters' values.%s%s%s",
                                   m->title, of, vary->name, bands, close_text, ideal_text)
                 : g_strdup_printf("%s: %s against %s, a line per balancer.%s%s%s", m->title, of,
                                   vary->name, bands, close_text, ideal_text);
  return lb_page_put_chart(o, out, plot, what, caption, csv, error);
}

/* The balancers that dwarf the rest on the imbalance charts, as the run
 * page's close-up leaves them out (lb_plot_dwarfs), their largest
 * excess over 1 over every run. */
static gboolean *
sweep_dwarfs(const LbResults *doc, const SweepMeasure *m, GPtrArray *balancers)
{
  guint n = balancers->len;
  const LbSummaryField *field = lb_summary_lookup(m->field);
  g_autofree double *excess = g_new0(double, MAX(n, 1));
  for (guint i = 0; i < doc->results->len; i++) {
    const LbSweepResult *s = doc->results->pdata[i];
    double v = lb_page_summary_value(field, s->result);
    for (guint b = 0; b < n && isfinite(v); b++)
      if (strcmp(s->balancer, balancers->pdata[b]) == 0)
        excess[b] = MAX(excess[b], v - 1);
  }
  return lb_plot_dwarfs(excess, n);
}

static void
sweep_header(GString *out, const LbResults *doc, GPtrArray *balancers)
{
  g_string_append(out, "<header>\n<h1>");
  lb_page_esc(out, doc->name);
  g_string_append(out, ": a sweep</h1>\n<p class=\"lead\">");
  g_autoptr(GString) lead = g_string_new(NULL);
  guint varied = doc->axes->len - (doc->replicates >= 0 ? 1 : 0), k = 0;
  for (guint v = 0; v < doc->axes->len; v++, k++) {
    if ((gint)v == doc->replicates) {
      k--;
      continue;
    }
    g_string_append_printf(lead, "%s%s",
                           k == 0           ? ""
                           : k + 1 < varied ? ", "
                                            : " and ",
                           ((const LbSweepAxis *)doc->axes->pdata[v])->name);
  }
  if (varied > 0)
    g_string_append(lead, " varied, ");
  if (doc->replicates >= 0) {
    const LbSweepAxis *r = doc->axes->pdata[doc->replicates];
    g_string_append_printf(lead, "%u replicates (%s), ", r->values->len, r->name);
  }
  g_string_append_printf(lead, "%u balancer%s", balancers->len, balancers->len == 1 ? "" : "s");
  lb_page_esc(out, lead->str);
  g_string_append(out, "</p>\n</header>\n<h2 id=\"setup-section\">Sweep</h2>\n"
                       "<table class=\"facts\" id=\"setup\">\n");
  lb_page_fact(out, "scenario", doc->sweep_scenario);
  for (guint v = 0; v < doc->axes->len; v++) {
    const LbSweepAxis *vy = doc->axes->pdata[v];
    g_autofree char *values = g_strjoinv(", ", (char **)vy->values->pdata);
    g_autofree char *name =
        g_strdup_printf((gint)v == doc->replicates ? "replicates: %s" : "varied: %s", vy->name);
    g_autofree char *escaped = g_markup_escape_text(name, -1);
    lb_page_fact(out, escaped, values);
  }
  g_autofree char *runs = doc->runs_total > 0
                              ? g_strdup_printf("%u of %u", doc->results->len, doc->runs_total)
                              : g_strdup_printf("%u", doc->results->len);
  lb_page_fact(out, "runs", runs);
  g_autofree char *names = g_strjoinv(", ", (char **)balancers->pdata);
  lb_page_fact(out, "balancers", names);
  const LbRunResult *first = doc->runs->len > 0 ? doc->runs->pdata[0] : NULL;
  if (first != NULL && first->model != NULL && *first->model != '\0')
    lb_page_fact(out, "model", first->model);
  lb_page_fact(out, "lbsim", doc->version);
  g_string_append(out, "</table>\n");
}

/* The end of a sweep page's table: the link to its numbers, as CSV,
 * written beside the page as NAME.WHAT.csv. */
static gboolean
sweep_table_end(Out *o, GString *out, const GString *csv, const char *what, GError **error)
{
  g_string_append(out, "</tbody>\n</table>\n<p class=\"files\">Numbers: ");
  g_autofree char *csv_base = lb_page_file_name(o->doc->name, what, "csv");
  lb_page_put_link(out, csv_base, csv_base);
  g_string_append(out, "</p>\n");
  return lb_page_put_file(o, csv_base, csv->str, csv->len, error);
}

/* A row of a table of runs: the point's values but the one at skip (-1:
 * none), each a cell and a CSV field followed by a comma, then the
 * balancer's header cell, left open for what follows its name. */
static void
point_row_start(GString *out, GString *csv, const LbResults *doc, const LbSweepResult *s, gint skip)
{
  g_string_append(out, "<tr data-balancer=\"");
  lb_page_esc(out, s->balancer);
  g_string_append(out, "\">");
  for (guint v = 0; v < doc->axes->len; v++) {
    if ((gint)v == skip)
      continue;
    g_string_append(out, "<td>");
    lb_page_esc(out, s->point[v]);
    g_string_append(out, "</td>");
    lb_report_csv_text(csv, s->point[v]);
    g_string_append_c(csv, ',');
  }
  g_string_append(out, "<th scope=\"row\">");
  lb_page_esc(out, s->balancer);
}

static gboolean
sweep_table(Out *o, GString *out, GError **error)
{
  const LbResults *doc = o->doc;
  g_autoptr(GString) csv = g_string_new(NULL);
  g_string_append(out, "<h2 id=\"runs-section\">Every run</h2>\n<table class=\"numbers\" "
                       "id=\"summary\">\n<thead><tr>");
  for (guint v = 0; v < doc->axes->len; v++) {
    const char *name = ((const LbSweepAxis *)doc->axes->pdata[v])->name;
    g_string_append(out, "<th scope=\"col\">");
    lb_page_esc(out, name);
    g_string_append(out, "</th>");
    lb_report_csv_text(csv, name);
    g_string_append_c(csv, ',');
  }
  g_string_append(out, "<th scope=\"col\">balancer</th>");
  lb_page_summary_head(out);
  g_string_append(out, "</tr></thead>\n<tbody>\n");
  g_string_append(csv, "balancer");
  lb_page_summary_csv_head(csv);
  g_string_append_c(csv, '\n');
  for (guint i = 0; i < doc->results->len; i++) {
    const LbSweepResult *s = doc->results->pdata[i];
    point_row_start(out, csv, doc, s, -1);
    g_string_append(out, "</th>");
    lb_report_csv_text(csv, s->balancer);
    lb_page_summary_cells(out, s->result);
    lb_page_summary_csv_values(csv, s->result);
    g_string_append(out, "</tr>\n");
    g_string_append_c(csv, '\n');
  }
  return sweep_table_end(o, out, csv, "sweep-runs", error);
}

/* With replicates: the mean and the 95 % interval's half-width of a few
 * measures, one row per point (the replicates' aside) and balancer. */
static const char *const mean_fields[] = {"imbalance_after", "balance_time", "total_time"};

static gboolean
sweep_means(Out *o, GString *out, GError **error)
{
  const LbResults *doc = o->doc;
  g_autoptr(GString) csv = g_string_new(NULL);
  g_string_append(out, "<h2 id=\"means-section\">Means over the replicates</h2>\n<p>The mean of "
                       "each point's replicates and the half-width of its 95 % confidence "
                       "interval (Student's t with n - 1 degrees of freedom).</p>\n<table "
                       "class=\"numbers\" id=\"means\">\n<thead><tr>");
  for (guint v = 0; v < doc->axes->len; v++) {
    if ((gint)v == doc->replicates)
      continue;
    const char *name = ((const LbSweepAxis *)doc->axes->pdata[v])->name;
    g_string_append(out, "<th scope=\"col\">");
    lb_page_esc(out, name);
    g_string_append(out, "</th>");
    lb_report_csv_text(csv, name);
    g_string_append_c(csv, ',');
  }
  g_string_append(out, "<th scope=\"col\">balancer</th><th scope=\"col\">runs</th>");
  g_string_append(csv, "balancer,runs");
  for (guint f = 0; f < G_N_ELEMENTS(mean_fields); f++) {
    const LbSummaryField *field = lb_summary_lookup(mean_fields[f]);
    g_string_append_printf(out, "<th scope=\"col\">%s</th><th scope=\"col\">\xc2\xb1 95 %%</th>",
                           field->column);
    g_string_append_printf(csv, ",%s_mean,%s_ci95_half", field->json, field->json);
  }
  g_string_append(out, "</tr></thead>\n<tbody>\n");
  g_string_append_c(csv, '\n');
  /* the groups, in the order of their first runs */
  g_autoptr(GPtrArray) firsts = g_ptr_array_new();
  for (guint i = 0; i < doc->results->len; i++) {
    const LbSweepResult *s = doc->results->pdata[i];
    gboolean seen = FALSE;
    for (guint g = 0; g < firsts->len && !seen; g++) {
      const LbSweepResult *f = firsts->pdata[g];
      seen = strcmp(f->balancer, s->balancer) == 0 &&
             compare_others(f, s, doc, (guint)doc->replicates) == 0;
    }
    if (!seen)
      g_ptr_array_add(firsts, (gpointer)s);
  }
  for (guint g = 0; g < firsts->len; g++) {
    const LbSweepResult *first = firsts->pdata[g];
    g_autoptr(GArray) members = g_array_new(FALSE, FALSE, sizeof(const LbSweepResult *));
    for (guint i = 0; i < doc->results->len; i++) {
      const LbSweepResult *s = doc->results->pdata[i];
      if (strcmp(first->balancer, s->balancer) == 0 &&
          compare_others(first, s, doc, (guint)doc->replicates) == 0)
        g_array_append_val(members, s);
    }
    point_row_start(out, csv, doc, first, doc->replicates);
    g_string_append_printf(out, "</th><td>%u</td>", members->len);
    lb_report_csv_text(csv, first->balancer);
    g_string_append_printf(csv, ",%u", members->len);
    g_autofree double *x = g_new(double, members->len);
    for (guint f = 0; f < G_N_ELEMENTS(mean_fields); f++) {
      const LbSummaryField *field = lb_summary_lookup(mean_fields[f]);
      for (guint k = 0; k < members->len; k++)
        x[k] =
            lb_page_summary_value(field, g_array_index(members, const LbSweepResult *, k)->result);
      LbStats st;
      lb_stats_of(x, members->len, &st);
      double half = st.ci_high - st.mean;
      g_autofree char *mean_text = field->kind == LB_SUMMARY_SECONDS
                                       ? lb_page_with_unit(lb_report_seconds(st.mean), "s")
                                       : g_strdup_printf("%.4f", st.mean);
      g_autofree char *half_text = field->kind == LB_SUMMARY_SECONDS
                                       ? lb_page_with_unit(lb_report_seconds(half), "s")
                                       : g_strdup_printf("%.4f", half);
      g_autofree char *key = g_strdup_printf("%s_mean", field->json);
      g_autofree char *half_key = g_strdup_printf("%s_ci95_half", field->json);
      lb_page_value_cell(out, key, st.mean, mean_text);
      lb_page_value_cell(out, half_key, half, half_text);
      lb_page_csv_number(csv, st.mean);
      lb_page_csv_number(csv, half);
    }
    g_string_append(out, "</tr>\n");
    g_string_append_c(csv, '\n');
  }
  return sweep_table_end(o, out, csv, "sweep-means", error);
}

gboolean
lb_page_sweep_page(Out *o, GString *out, const char *json_base, GError **error)
{
  const LbResults *doc = o->doc;
  g_autofree char *title = g_strdup_printf("%s: a sweep", doc->name);
  g_autoptr(GPtrArray) balancers = lb_page_sweep_balancers(doc);
  lb_page_page_start(out, doc->version, title);
  sweep_header(out, doc, balancers);
  g_string_append(out, doc->replicates >= 0
                           ? "<h2 id=\"curves-section\">Curves</h2>\n<p>The mean over each "
                             "point's replicates against each varied parameter, with their range "
                             "and the 95 % interval of the mean: the total simulated time and the "
                             "imbalance after balancing (its mean over the adaptation "
                             "steps).</p>\n"
                           : "<h2 id=\"curves-section\">Curves</h2>\n<p>Each run's summary "
                             "against each varied parameter: the total simulated time and the "
                             "imbalance after balancing (its mean over the adaptation "
                             "steps).</p>\n");
  for (guint v = 0; v < doc->axes->len; v++) {
    if ((gint)v == doc->replicates)
      continue; /* never a chart against the seed */
    g_string_append(out, "<h3>");
    lb_page_esc(out, ((const LbSweepAxis *)doc->axes->pdata[v])->name);
    g_string_append(out, "</h3>\n");
    for (guint m = 0; m < G_N_ELEMENTS(sweep_measures); m++) {
      if (!sweep_chart(o, out, v, &sweep_measures[m], balancers, NULL, error))
        return FALSE;
      if (sweep_measures[m].floor != 1)
        continue; /* a close-up of the imbalance only */
      g_autofree gboolean *left_out = sweep_dwarfs(doc, &sweep_measures[m], balancers);
      if (left_out != NULL &&
          !sweep_chart(o, out, v, &sweep_measures[m], balancers, left_out, error))
        return FALSE;
    }
  }
  if ((doc->replicates >= 0 && !sweep_means(o, out, error)) || !sweep_table(o, out, error))
    return FALSE;
  lb_page_page_end(out, doc->version, json_base);
  return TRUE;
}
