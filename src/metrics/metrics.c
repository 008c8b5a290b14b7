/* What the metrics of a run are: the imbalance, the aggregation of a
 * run's per-step values, and the lookup of a value by name. The core
 * records them (core/record.c). */
#include "metrics/metrics.h"

#include <string.h>

#include "metrics/summary.h"

double
lb_imbalance(const guint64 *loads, guint n)
{
  guint64 max = 0, total = 0;
  for (guint i = 0; i < n; i++) {
    max = MAX(max, loads[i]);
    total += loads[i];
  }
  if (total == 0)
    return 1.0;
  return (double)max * n / (double)total;
}

void
lb_run_result_free(LbRunResult *result)
{
  if (result == NULL)
    return;
  g_free(result->balancer);
  lb_params_free(result->params);
  g_free(result->placement);
  g_free(result->model);
  g_free(result->view);
  g_free(result->start);
  g_clear_pointer(&result->metric_defs, g_array_unref);
  g_free(result->metrics);
  g_free(result->adaptation_metrics);
  g_free(result->phases);
  g_free(result->final_loads);
  g_clear_pointer(&result->transfers, g_array_unref);
  g_clear_pointer(&result->grids, g_array_unref);
  g_clear_pointer(&result->events, g_array_unref);
  for (guint r = 0; result->partition != NULL && r < result->ranks; r++)
    g_free(result->partition[r].neighbours);
  g_free(result->partition);
  g_free(result->adaptations);
  g_clear_pointer(&result->narration, g_ptr_array_unref);
  g_clear_pointer(&result->notes, g_array_unref);
  g_clear_pointer(&result->sent, g_array_unref);
  g_clear_pointer(&result->chunks, g_array_unref);
  g_free(result->loads_at_start);
  g_clear_pointer(&result->units_at_start, g_ptr_array_unref);
  g_free(result->machine.topology);
  g_free(result->machine.ranks);
  g_clear_pointer(&result->stages, g_ptr_array_unref);
  g_free(result);
}

void
lb_run_result_aggregate(LbRunResult *res)
{
  guint n = res->metric_defs->len;
  g_free(res->metrics);
  res->metrics = g_new0(double, n);
  for (guint i = 0; i < n; i++) {
    const LbMetricDef *def = &g_array_index(res->metric_defs, LbMetricDef, i);
    double v = 0;
    for (guint s = 0; s < res->nadaptations; s++) {
      double x = res->adaptation_metrics[(gsize)s * n + i];
      switch (def->aggregate) {
      case LB_AGGREGATE_SUM:
        v += x;
        break;
      case LB_AGGREGATE_MAX:
        v = s == 0 ? x : MAX(v, x);
        break;
      case LB_AGGREGATE_MEAN:
        v += x / res->nadaptations;
        break;
      case LB_AGGREGATE_LAST:
        v = x;
        break;
      }
    }
    res->metrics[i] = v;
  }
}

gboolean
lb_run_result_metric(const LbRunResult *result, const char *name, double *value)
{
  int i = lb_metric_defs_find(result->metric_defs, name);
  if (i < 0)
    return FALSE;
  *value = result->metrics[i];
  return TRUE;
}

const char *const *
lb_summary_fields(void)
{
  static const char *names[32];
  if (names[0] == NULL) {
    guint n = 0;
    for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++)
      if (f->where & LB_SUMMARY_RUN)
        names[n++] = f->name;
    g_assert(n < G_N_ELEMENTS(names));
  }
  return names;
}

gboolean
lb_run_result_lookup(const LbRunResult *r, const char *name, double *value)
{
  const LbSummaryField *f = lb_summary_lookup(name);
  if (f != NULL && (f->where & LB_SUMMARY_RUN))
    return lb_summary_get(f, r, -1, value);
  return lb_run_result_metric(r, name, value);
}
