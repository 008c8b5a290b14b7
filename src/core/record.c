/* Balance quality and cost, recorded from every rank's slots at each step
 * and gathered into the run's typed result: the core may look at all of
 * memory, balancers may not. */
#include "core/record.h"

#include <string.h>

#include "metrics/metrics.h"
#include "metrics/summary.h"

static guint
count_rounds(const LbPhaseTotals *t)
{
  guint n = 0;
  for (guint i = 0; i < G_N_ELEMENTS(t->rounds); i++)
    n += (guint)__builtin_popcountll(t->rounds[i]);
  return n + (t->rounds_beyond > LB_MAX_ROUNDS ? t->rounds_beyond - LB_MAX_ROUNDS : 0);
}

static guint64
max_of(const guint64 *v, guint n)
{
  guint64 m = 0;
  for (guint i = 0; i < n; i++)
    m = MAX(m, v[i]);
  return m;
}

void
lb_record_step(LbCoreRun *run, guint a)
{
  LbAdaptationResult *s = &run->adaptation_results[a];
  const guint64 *before = lb_loads_before(run, a);
  s->imbalance_before = lb_imbalance(before, run->ranks);
  s->imbalance_after = lb_imbalance(run->load_after, run->ranks);
  s->max_load_before = max_of(before, run->ranks);
  s->max_load_after = max_of(run->load_after, run->ranks);
  for (guint r = 0; r < run->ranks; r++)
    s->total_load += run->load_after[r];
  if (run->data_imbalance_def >= 0)
    *lb_adaptation_metric(run, a, (guint)run->data_imbalance_def) =
        lb_imbalance(run->owned_after, run->ranks);
  for (guint ph = 0; ph < run->nphases; ph++) {
    const LbPhaseTotals *t = &run->phase_totals[a * run->nphases + ph];
    s->messages += t->messages;
    s->bytes += t->bytes;
    guint def = run->first_phase_def + 4 * ph;
    *lb_adaptation_metric(run, a, def) = count_rounds(t);
    *lb_adaptation_metric(run, a, def + 1) = (double)t->messages;
    *lb_adaptation_metric(run, a, def + 2) = t->bytes;
    *lb_adaptation_metric(run, a, def + 3) = t->time;
  }
  for (guint i = 0; i < run->first_phase_def; i++) {
    const LbMetricDef *def = &g_array_index(run->metric_defs, LbMetricDef, i);
    if (def->rounds_of >= 0)
      *lb_adaptation_metric(run, a, i) =
          count_rounds(&run->phase_totals[a * run->nphases + (guint)def->rounds_of]);
    else if (def->derive != NULL)
      *lb_adaptation_metric(run, a, i) = def->derive(lb_adaptation_metric(run, a, 0), run->ranks);
  }
  s->balance_time = run->balance_max[a];
}

static int
transfer_cmp(gconstpointer a, gconstpointer b)
{
  const LbTransfer *x = a, *y = b;
  if (x->adaptation != y->adaptation)
    return x->adaptation < y->adaptation ? -1 : 1;
  if (x->stage != y->stage)
    return x->stage < y->stage ? -1 : 1;
  if (x->phase != y->phase)
    return x->phase < y->phase ? -1 : 1;
  if (x->round != y->round)
    return x->round < y->round ? -1 : 1;
  if (x->first != y->first)
    return x->first < y->first ? -1 : 1;
  return x->src < y->src ? -1 : x->src > y->src;
}

LbRunResult *
lb_record_collect(LbCoreRun *run)
{
  LbRunResult *res = g_new0(LbRunResult, 1);
  const LbBalancer *b = run->brun->balancer;
  res->balancer = g_strdup(run->brun->label);
  res->params = lb_params_copy(run->brun->params);
  res->ranks = run->ranks;
  res->nadaptations = run->nadaptations;
  res->nphases = run->nphases;
  res->phases = g_new0(LbPhaseResult, run->nphases);

  for (guint ph = 0; ph < run->nphases; ph++) {
    LbPhaseResult *out = &res->phases[ph];
    out->name = b->phases[ph];
    for (guint s = 0; s < run->nadaptations; s++) {
      const LbPhaseTotals *t = &run->phase_totals[s * run->nphases + ph];
      out->rounds = MAX(out->rounds, count_rounds(t));
      out->messages += t->messages;
      out->bytes += t->bytes;
      out->time += t->time;
    }
  }

  g_array_sort(run->transfers, transfer_cmp);
  res->adaptations = g_new0(LbAdaptationResult, run->nadaptations);
  for (guint s = 0; s < run->nadaptations; s++) {
    res->adaptations[s] = run->adaptation_results[s];
    res->adaptations[s].app_time = run->app_max[s];
  }
  /* the run's summary from its steps', as the summary table says */
  for (const LbSummaryField *f = lb_summary(); f->name != NULL; f++) {
    if (f->run_offset < 0 || f->step_offset < 0)
      continue;
    double v = 0;
    for (guint s = 0; s < run->nadaptations; s++) {
      double x = 0;
      lb_summary_get(f, res, (int)s, &x);
      v = f->aggregate == LB_AGGREGATE_MEAN  ? v + x / run->nadaptations
          : f->aggregate == LB_AGGREGATE_SUM ? v + x
          : f->aggregate == LB_AGGREGATE_MAX ? (s == 0 ? x : MAX(v, x))
                                             : x;
    }
    lb_summary_set(f, res, -1, v);
  }

  res->metric_defs = g_array_ref(run->metric_defs);
  res->adaptation_metrics =
      g_memdup2(run->adaptation_metrics, sizeof(double) * run->nadaptations * run->ndefs);
  lb_run_result_aggregate(res);

  res->final_loads = g_memdup2(run->load_after, sizeof(guint64) * run->ranks);
  if (run->options->detail) {
    res->transfers = g_array_ref(run->transfers);
    if (run->events->len > 0)
      res->events = g_array_ref(run->events);
  }
  if (run->options->narrate) {
    res->narration = lb_narration_story(run->narration, &res->notes);
    res->sent = g_array_ref(run->sent);
    if (run->chunks != NULL)
      res->chunks = g_array_ref(run->chunks);
    res->loads_at_start =
        g_memdup2(run->loads_at_start, sizeof(guint64) * run->nadaptations * run->ranks);
    if (run->units_at_start != NULL)
      res->units_at_start = g_ptr_array_ref(run->units_at_start);
  }
  if (run->stage_names->len > 0)
    res->stages = g_ptr_array_ref(run->stage_names);
  return res;
}
