#include "metrics/summary.h"

#include <stddef.h>
#include <string.h>

#include "lbsim/balancer.h"
#include "metrics/metrics.h"

#define RUN(field) ((gssize)offsetof(LbRunResult, field))
#define STEP(field) ((gssize)offsetof(LbAdaptationResult, field))
#define BOTH (LB_SUMMARY_RUN | LB_SUMMARY_STEP)

static const LbSummaryField fields[] = {
    {"imbalance-before", "imbalance_before", "", LB_SUMMARY_RATIO, LB_AGGREGATE_MEAN, BOTH,
     "imb before", TRUE, FALSE, RUN(imbalance_before), STEP(imbalance_before),
     "max/avg of the ranks' loads before balancing (the run's: the mean over its steps)"},
    {"imbalance-after", "imbalance_after", "", LB_SUMMARY_RATIO, LB_AGGREGATE_MEAN, BOTH,
     "imb after", TRUE, FALSE, RUN(imbalance_after), STEP(imbalance_after),
     "max/avg of the ranks' loads after balancing (the run's: the mean over its steps)"},
    {"max-load-before", "max_load_before", "", LB_SUMMARY_COUNT, LB_AGGREGATE_MAX, LB_SUMMARY_STEP,
     NULL, FALSE, TRUE, -1, STEP(max_load_before), "the largest rank's load before balancing"},
    {"max-load-after", "max_load_after", "", LB_SUMMARY_COUNT, LB_AGGREGATE_MAX, LB_SUMMARY_STEP,
     NULL, FALSE, TRUE, -1, STEP(max_load_after), "the largest rank's load after balancing"},
    {"total-load", "total_load", "", LB_SUMMARY_COUNT, LB_AGGREGATE_LAST, LB_SUMMARY_STEP, NULL,
     FALSE, TRUE, -1, STEP(total_load), "the load of all ranks"},
    {"schedule-steps", "schedule_steps", "rounds", LB_SUMMARY_COUNT, LB_AGGREGATE_MAX, BOTH,
     "steps", TRUE, TRUE, -1, -1,
     "the balancer's schedule steps (its declared metric; none when it declares none)"},
    {"messages", "messages", "messages", LB_SUMMARY_COUNT, LB_AGGREGATE_SUM, BOTH, "messages", TRUE,
     TRUE, RUN(messages), STEP(messages), "messages the balancer sent"},
    {"bytes", "bytes", "bytes", LB_SUMMARY_BYTES, LB_AGGREGATE_SUM, BOTH, NULL, TRUE, FALSE,
     RUN(bytes), STEP(bytes), "bytes of all the balancer's messages"},
    {"bytes-moved", "bytes_moved", "bytes", LB_SUMMARY_BYTES, LB_AGGREGATE_SUM, BOTH, "moved", TRUE,
     FALSE, RUN(bytes_moved), STEP(bytes_moved), "bytes of the work units moved"},
    {"balance-time", "balance_time", "s", LB_SUMMARY_SECONDS, LB_AGGREGATE_SUM, BOTH, "balance",
     TRUE, FALSE, RUN(balance_time), STEP(balance_time),
     "simulated time of balancing (the slowest rank's, summed over steps)"},
    {"app-time", "app_time", "s", LB_SUMMARY_SECONDS, LB_AGGREGATE_SUM, BOTH, "app", TRUE, FALSE,
     RUN(app_time), STEP(app_time),
     "simulated time of the application's steps (the slowest rank's, summed)"},
    {"total-time", "total_time", "s", LB_SUMMARY_SECONDS, LB_AGGREGATE_LAST, LB_SUMMARY_RUN,
     "total", TRUE, FALSE, RUN(total_time), -1, "simulated time of the whole run"},
    {"simulated-messages", "simulated_messages", "messages", LB_SUMMARY_COUNT, LB_AGGREGATE_SUM,
     LB_SUMMARY_RUN, NULL, FALSE, TRUE, RUN(simulated_messages), -1,
     "every message simulated, the core's synchronisation included"},
    {NULL},
};

const LbSummaryField *
lb_summary(void)
{
  return fields;
}

const LbSummaryField *
lb_summary_lookup(const char *name)
{
  for (const LbSummaryField *f = fields; f->name != NULL; f++)
    if (lb_metric_name_equal(f->name, name))
      return f;
  return NULL;
}

static gpointer
place_of(const LbSummaryField *f, const LbRunResult *r, int step)
{
  gssize offset = step < 0 ? f->run_offset : f->step_offset;
  if (offset < 0)
    return NULL;
  const char *base = step < 0 ? (const char *)r : (const char *)&r->adaptations[step];
  return (gpointer)(base + offset);
}

gboolean
lb_summary_get(const LbSummaryField *f, const LbRunResult *r, int step, double *value)
{
  *value = 0;
  gpointer at = place_of(f, r, step);
  if (at != NULL) {
    *value = f->whole ? (double)*(const guint64 *)at : *(const double *)at;
    return TRUE;
  }
  /* derived: the declared metric of the same name */
  int i = lb_metric_defs_find(r->metric_defs, f->name);
  if (i < 0)
    return FALSE;
  *value = step < 0 ? r->metrics[i]
                    : r->adaptation_metrics[(gsize)step * r->metric_defs->len + (guint)i];
  return TRUE;
}

void
lb_summary_set(const LbSummaryField *f, LbRunResult *r, int step, double value)
{
  gpointer at = place_of(f, r, step);
  g_return_if_fail(at != NULL);
  if (f->whole)
    *(guint64 *)at = (guint64)value;
  else
    *(double *)at = value;
}
