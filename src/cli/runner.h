/* The scheduler: one job per balancer of a scenario, each simulated in its
 * own process (a SimGrid engine cannot be restarted), up to `jobs` at a
 * time; results come back typed, in scenario order. */
#pragma once

#include <sys/types.h>

#include "cli/job.h"
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
 * scenario runs one balancer, else base.BALANCER. */
char *lb_runner_trace_name(const char *base, const char *balancer, guint runs);

/* A --ranks or --jobs value: a whole number from 1 to G_MAXINT (0 is not
 * "the default"). */
gboolean lb_runner_parse_count(const char *option, const char *text, guint *value, GError **error);

/* Forks a child that simulates job and writes its typed result to result.
 * sc is the job's scenario when the caller has loaded it (index: the job's
 * run in it), else NULL: the child loads the job. The child leaves its
 * error text and the stage it reached in dir/TAG.err and dir/TAG.stage.
 * Call it between lb_signals_watch and lb_signals_unwatch, slot one of
 * the watched ones: it gets the child's pid. FALSE (errno) if fork
 * failed. */
gboolean lb_runner_spawn(const LbJob *job, const LbScenario *sc, guint index,
                         const LbRunOptions *options, const char *dir, const char *tag,
                         const char *result, pid_t *slot);

/* Why the child of tag (the name balancer's run of scenario file on
 * platform) ended with status, which is not success: the message, and
 * *code: 2 input, 3 invariant, 1 anything else. */
char *lb_runner_failure(const char *file, const char *platform, const LbRunOptions *options,
                        const char *dir, const char *tag, const char *name, int status, int *code);

/* Waits for one child of pids[0..n) (0: an empty slot) to end: returns
 * its index, its slot cleared and its wait status in *status, or -1 when
 * no child is left. */
gint lb_runner_reap(pid_t *pids, guint n, int *status);

/* The metrics that compare a run with the others of its scenario (dls's
 * improvement over STAT), filled in for each of the n results. */
void lb_runner_relate(LbRunResult *const *results, guint n);
