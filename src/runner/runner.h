/* The scheduler: one job per balancer of a scenario, each simulated in its
 * own process (a SimGrid engine cannot be restarted), up to `jobs` at a
 * time; results come back typed, in scenario order. */
#pragma once

#include <sys/types.h>

#include "runner/job.h"
#include "lbsim/run.h"
#include "lbsim/scenario.h"

typedef struct {
  guint jobs;
  gboolean quiet;
  gboolean in_process; /* one run, no fork: for debuggers and profilers */
  LbRunOptions run;
} LbRunnerOptions;

/* On success results holds one LbRunResult per scenario run, in order.
 * On failure *exit_code says why: 2 input, 3 invariant, 1 anything else. */
gboolean lb_runner_run(const LbScenario *scenario, const LbScenarioOverrides *overrides,
                       const LbRunnerOptions *options, GPtrArray **results, int *exit_code,
                       GError **error);

/* The file a trace option names for one balancer: base itself when the
 * scenario runs one balancer, else base.BALANCER (a label's ':' written
 * '+', lb_output_file_part). */
char *lb_runner_trace_name(const char *base, const char *balancer, guint runs);
/* The same for --paje, whose files keep the extension Paje tools look
 * for: base itself for one balancer, else base.BALANCER.paje (base
 * without its .paje, if it has one). */
char *lb_runner_paje_name(const char *base, const char *balancer, guint runs);

/* A --ranks or --jobs value: a whole number from 1 to G_MAXINT (0 is not
 * "the default"). */
gboolean lb_runner_parse_count(const char *option, const char *text, guint *value, GError **error);

/* The metrics that compare a run with the others of its scenario (dls's
 * improvement over STAT), filled in for each of the n results. */
void lb_runner_relate(LbRunResult *const *results, guint n);
