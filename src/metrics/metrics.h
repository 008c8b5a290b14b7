#pragma once

#include "lbsim/balancer.h"
#include "lbsim/run.h"

/* Metric names compare with '-' and '_' alike. */
gboolean lb_metric_name_equal(const char *a, const char *b);

/* The number of a balancer's phases (its NULL-ended phases list). */
guint lb_balancer_phase_count(const LbBalancer *balancer);

/* max / mean; 1 when there is no load at all. */
double lb_imbalance(const guint64 *loads, guint n);

/* The run's metric values from its per-step values (also after reading a
 * result back). */
void lb_run_result_aggregate(LbRunResult *result);
