/* The scheduler: one job per balancer of a scenario, each simulated in its
 * own process (a SimGrid engine cannot be restarted), up to `jobs` at a
 * time; results come back typed, in scenario order. */
#pragma once

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
