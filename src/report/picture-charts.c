/* The charts of the steps (imbalance and idle time per adaptation step),
 * drawn by the report's plots so that a picture and the page agree. */
#include "report/picture-draw.h"

/* ---- the charts of the steps ---- */

/* What a chart of the steps shows: the imbalance after balancing, or a
 * declared metric by name. */
typedef struct {
  const char *metric; /* NULL: the imbalance after balancing */
  const char *what, *axis;
  double floor; /* the best value: the axis starts there when it can */
} Measure;

static double
step_value(const Measure *m, const LbRunResult *run, guint step)
{
  if (m->metric == NULL)
    return run->adaptations[step].imbalance_after;
  int k = lb_metric_defs_find(run->metric_defs, m->metric);
  return run->adaptation_metrics[(gsize)step * run->metric_defs->len + (guint)k];
}

static double
run_mean(const Measure *m, const LbRunResult *run)
{
  if (m->metric == NULL)
    return run->imbalance_after;
  double v = 0;
  lb_run_result_metric(run, m->metric, &v);
  return v;
}

/* A chart of the runs (those not left out), a line each, in its
 * balancer's style. */
static LbPlot *
steps_chart(const LbPictureOptions *o, const LbStyles *styles, const char *id, const char *title,
            const char *subtitle, const Measure *m, GPtrArray *runs, const gboolean *left_out)
{
  LbPlot *plot = lb_plot_new(LB_PLOT_LINES, id, title);
  lb_plot_look(plot, &o->look, LB_PICTURES_WIDTH, LB_PICTURES_CHART_FONT);
  lb_plot_styles(plot, styles);
  lb_plot_subtitle(plot, subtitle);
  lb_plot_log_span(plot, LB_PICTURES_LOG_SPAN);
  lb_plot_x_axis(plot, "adaptation step", LB_PLOT_INTEGER, NULL);
  lb_plot_value_axis(plot, m->axis, m->floor, FALSE);
  for (guint r = 0; r < runs->len; r++) {
    const LbRunResult *run = runs->pdata[r];
    if (left_out != NULL && left_out[r])
      continue;
    lb_plot_series(plot, run->balancer);
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_autofree char *mean =
        g_strconcat("mean ", g_ascii_formatd(buf, sizeof buf, "%.4f", run_mean(m, run)), NULL);
    lb_plot_series_note(plot, mean);
    g_autoptr(GArray) xs = g_array_new(FALSE, FALSE, sizeof(double));
    g_autoptr(GArray) ys = g_array_new(FALSE, FALSE, sizeof(double));
    for (guint s = 0; s < run->nadaptations; s++) {
      double x = s, y = step_value(m, run, s);
      if (!isfinite(y))
        continue;
      g_array_append_val(xs, x);
      g_array_append_val(ys, y);
    }
    lb_plot_line(plot, 0, xs->len, (double *)xs->data, (double *)ys->data);
  }
  return plot;
}

static LbStyles *
styles_of(GPtrArray *runs)
{
  g_autofree const char **names = g_new0(const char *, MAX(runs->len, 1));
  for (guint r = 0; r < runs->len; r++)
    names[r] = ((const LbRunResult *)runs->pdata[r])->balancer;
  return lb_styles_new(names, runs->len);
}

/* DIR/SCENARIO.WHAT.EXT of the charts, one above the other. */
static gboolean
write_charts(const LbPictureOptions *o, const char *scenario, const char *what,
             const LbPlot *const *plots, guint n, GError **error)
{
  for (guint f = 0; f < LB_FIGURE_FORMATS; f++) {
    if (!(lb_pic_formats_of(o) & 1u << f))
      continue;
    g_autofree char *path = lb_figure_file(o->dir, scenario, what, lb_figure_format_ext(1u << f));
    g_autoptr(GBytes) bytes = lb_plot_figure(plots, n, 1u << f, o->width, path, error);
    if (bytes == NULL || !lb_figure_save(path, bytes, error))
      return FALSE;
  }
  return TRUE;
}

static char *
chart_subtitle(GPtrArray *runs, const char *what)
{
  const LbRunResult *first = runs->pdata[0];
  return g_strdup_printf("%s, %u rank%s, %u adaptation step%s \xc2\xb7 %s", first->model,
                         first->ranks, first->ranks == 1 ? "" : "s", first->nadaptations,
                         first->nadaptations == 1 ? "" : "s", what);
}

gboolean
lb_pictures_imbalance(const LbPictureOptions *o, const char *scenario, GPtrArray *results,
                      GError **error)
{
  g_return_val_if_fail(results->len > 0, FALSE);
  g_autoptr(LbStyles) styles = styles_of(results);
  const Measure m = {NULL, "imbalance after balancing", "imbalance after balancing (max/avg)", 1};
  g_autofree char *subtitle = chart_subtitle(
      results, "max/avg of the ranks' loads after each step's balancing, one line per balancer");
  g_autofree char *title = g_strconcat(scenario, ": imbalance after balancing", NULL);
  g_autoptr(LbPlot) all = steps_chart(o, styles, "imbalance", title, subtitle, &m, results, NULL);
  /* the balancers that stay near 1, on an axis made for them */
  g_autofree double *excess = g_new0(double, results->len);
  for (guint r = 0; r < results->len; r++) {
    const LbRunResult *run = results->pdata[r];
    for (guint s = 0; s < run->nadaptations; s++)
      if (isfinite(run->adaptations[s].imbalance_after))
        excess[r] = MAX(excess[r], run->adaptations[s].imbalance_after - 1);
  }
  g_autofree gboolean *left_out = lb_plot_dwarfs(excess, results->len);
  if (left_out == NULL)
    return write_charts(o, scenario, "imbalance", (const LbPlot *const *)&all, 1, error);
  g_autoptr(GString) left = g_string_new(NULL);
  for (guint r = 0; r < results->len; r++)
    if (left_out[r])
      g_string_append_printf(left, "%s%s", left->len ? ", " : "",
                             ((const LbRunResult *)results->pdata[r])->balancer);
  g_autofree char *close_title = g_strconcat(scenario, ": close up, without ", left->str, NULL);
  g_autofree char *close_subtitle =
      g_strdup_printf("the balancers that stay near 1: %s exceed%s 1 by ten times the median "
                      "balancer's excess or more",
                      left->str, strchr(left->str, ',') != NULL ? "" : "s");
  g_autoptr(LbPlot) close =
      steps_chart(o, styles, "imbalance-close", close_title, close_subtitle, &m, results, left_out);
  lb_plot_log_span(close, LB_PLOT_LOG_SPAN);
  const LbPlot *both[] = {all, close};
  return write_charts(o, scenario, "imbalance", both, 2, error);
}

gboolean
lb_pictures_has_idle(GPtrArray *results)
{
  for (guint i = 0; i < results->len; i++) {
    const LbRunResult *run = results->pdata[i];
    if (lb_metric_defs_find(run->metric_defs, "idle-procs") >= 0)
      return TRUE;
  }
  return FALSE;
}

gboolean
lb_pictures_idle(const LbPictureOptions *o, const char *scenario, GPtrArray *results,
                 GError **error)
{
  g_autoptr(GPtrArray) with = g_ptr_array_new();
  for (guint i = 0; i < results->len; i++) {
    const LbRunResult *run = results->pdata[i];
    if (lb_metric_defs_find(run->metric_defs, "idle-procs") >= 0)
      g_ptr_array_add(with, results->pdata[i]);
  }
  g_return_val_if_fail(with->len > 0, FALSE);
  /* the styles of every run of the scenario, as the imbalance chart has them */
  g_autoptr(LbStyles) styles = styles_of(results);
  const Measure m = {"idle-procs", "idle processors", "idle processors (%)", 0};
  g_autofree char *subtitle = chart_subtitle(
      with, "percentage of ranks with no load after each step's balancing (the paper's eq. 3)");
  g_autofree char *title = g_strconcat(scenario, ": idle processors", NULL);
  g_autoptr(LbPlot) plot = steps_chart(o, styles, "idle", title, subtitle, &m, with, NULL);
  return write_charts(o, scenario, "idle", (const LbPlot *const *)&plot, 1, error);
}
