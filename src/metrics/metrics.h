#pragma once

#include "core/core.h"

/* max / mean; 1 when there is no load at all. */
double lb_imbalance(const guint64 *loads, guint n);

/* Called on rank 0 after every rank has balanced adaptation step `adaptation`. */
void lb_metrics_step(LbCoreRun *run, guint adaptation);

/* The run's results, once the simulation has ended. */
LbRunResult *lb_metrics_collect(LbCoreRun *run);

/* The run's metric values from its per-step values (also after reading a
 * result back). */
void lb_run_result_aggregate(LbRunResult *result);
