/* The core records what metrics/ defines: each step's summary and
 * declared metrics, then the run's typed result. */
#pragma once

#include "core/core.h"

/* Called on rank 0 after every rank has balanced adaptation step `adaptation`. */
void lb_record_step(LbCoreRun *run, guint adaptation);

/* The run's results, once the simulation has ended. */
LbRunResult *lb_record_collect(LbCoreRun *run);
