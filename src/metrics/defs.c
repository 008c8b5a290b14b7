/* The metrics of a run: a balancer's declared table, four per phase and the
 * application step's, in one list that the engine fills and the reports,
 * the CSV, the JSON and [expect] read. */
#include <string.h>

#include "lbsim/balancer.h"
#include "lbsim/model.h"
#include "metrics/metrics.h"

static const LbMetricSpec app_metrics[] = {
    {"compute-time", "s", LB_AGGREGATE_SUM, LB_COMBINE_MAX, NULL,
     "simulated time of the application's compute per adaptation step (the slowest rank)"},
    {"ghost-time", "s", LB_AGGREGATE_SUM, LB_COMBINE_MAX, NULL,
     "simulated time of the application's ghost exchange (the slowest rank)"},
    {"ghost-messages", "messages", LB_AGGREGATE_SUM, LB_COMBINE_SUM, NULL,
     "messages of the ghost exchange"},
    {"ghost-bytes", "bytes", LB_AGGREGATE_SUM, LB_COMBINE_SUM, NULL,
     "bytes of the ghost exchange: shared boundary x ghost-depth x bytes-per-unit"},
    {NULL},
};

void
lb_metric_def_clear(LbMetricDef *def)
{
  g_free(def->name);
  g_free(def->unit);
  g_free(def->help);
  g_free(def->json_name);
}

const char *
lb_aggregate_name(LbAggregate aggregate)
{
  static const char *const names[] = {"sum", "max", "mean", "last"};
  return names[aggregate];
}

guint
lb_balancer_phase_count(const LbBalancer *b)
{
  guint n = 0;
  while (b->phases[n] != NULL)
    n++;
  return n;
}

static int
phase_index(const LbBalancer *b, const char *name)
{
  for (int i = 0; b->phases[i] != NULL; i++)
    if (strcmp(b->phases[i], name) == 0)
      return i;
  return -1;
}

static void
add_def(GArray *defs, const char *name, const char *unit, LbAggregate aggregate, LbCombine combine,
        int rounds_of, const char *help)
{
  LbMetricDef def = {g_strdup(name),
                     g_strdup(unit),
                     aggregate,
                     combine,
                     rounds_of,
                     g_strdup(help),
                     g_strdelimit(g_strdup(name), "-", '_'),
                     NULL};
  g_array_append_val(defs, def);
}

GArray *
lb_balancer_metric_defs(const LbBalancer *b)
{
  GArray *defs = g_array_new(FALSE, FALSE, sizeof(LbMetricDef));
  g_array_set_clear_func(defs, (GDestroyNotify)lb_metric_def_clear);
  for (const LbMetricSpec *m = b->metrics; m != NULL && m->name != NULL; m++) {
    int phase = m->rounds_of != NULL ? phase_index(b, m->rounds_of) : -1;
    g_assert(m->rounds_of == NULL || phase >= 0);
    add_def(defs, m->name, m->unit, m->aggregate, m->combine, phase, m->help);
    g_array_index(defs, LbMetricDef, defs->len - 1).derive = m->derive;
  }
  for (guint i = 0; b->phases[i] != NULL; i++) {
    const char *ph = b->phases[i];
    g_autofree char *steps = g_strdup_printf("%s-steps", ph);
    g_autofree char *messages = g_strdup_printf("%s-messages", ph);
    g_autofree char *bytes = g_strdup_printf("%s-bytes", ph);
    g_autofree char *time = g_strdup_printf("%s-time", ph);
    g_autofree char *h1 = g_strdup_printf("communication rounds of phase %s", ph);
    g_autofree char *h2 = g_strdup_printf("messages of phase %s", ph);
    g_autofree char *h3 = g_strdup_printf("bytes sent in phase %s", ph);
    g_autofree char *h4 = g_strdup_printf("simulated time of phase %s (the slowest rank)", ph);
    add_def(defs, steps, "rounds", LB_AGGREGATE_MAX, LB_COMBINE_MAX, (int)i, h1);
    add_def(defs, messages, "messages", LB_AGGREGATE_SUM, LB_COMBINE_SUM, -1, h2);
    add_def(defs, bytes, "bytes", LB_AGGREGATE_SUM, LB_COMBINE_SUM, -1, h3);
    add_def(defs, time, "s", LB_AGGREGATE_SUM, LB_COMBINE_MAX, -1, h4);
  }
  for (const LbMetricSpec *m = app_metrics; m->name != NULL; m++)
    add_def(defs, m->name, m->unit, m->aggregate, m->combine, -1, m->help);
  return defs;
}

gboolean
lb_metric_name_equal(const char *a, const char *b)
{
  for (; *a != '\0' && *b != '\0'; a++, b++) {
    char x = *a == '_' ? '-' : *a, y = *b == '_' ? '-' : *b;
    if (x != y)
      return FALSE;
  }
  return *a == *b;
}

int
lb_metric_defs_find(GArray *defs, const char *name)
{
  for (guint i = 0; i < defs->len; i++)
    if (lb_metric_name_equal(g_array_index(defs, LbMetricDef, i).name, name))
      return (int)i;
  return -1;
}
