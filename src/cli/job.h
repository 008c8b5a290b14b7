/* A job: one run of one balancer of a scenario, written down so that it can
 * be started here (a forked child) or elsewhere (one task of a cluster
 * sweep): the scenario file, the command-line overrides and the balancer. */
#pragma once

#include "lbsim/run.h"
#include "lbsim/scenario.h"

typedef struct {
  char *scenario; /* path, as given */
  gint ranks;     /* 0: the file's */
  char *platform; /* NULL: the file's */
  char *balancer;
  char **sets; /* GROUP.KEY=VALUE, NULL-terminated; may be NULL */
} LbJob;

LbJob *lb_job_new(const char *scenario, const LbScenarioOverrides *overrides,
                  const char *balancer);
void lb_job_free(LbJob *job);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LbJob, lb_job_free)

/* A job as a GLib key file ([job] scenario, ranks, platform, balancer, set). */
char *lb_job_to_data(const LbJob *job);
LbJob *lb_job_from_data(const char *data, GError **error);

/* The scenario of a job: its file with its overrides, running only its
 * balancer. */
LbScenario *lb_job_load(const LbJob *job, GError **error);

/* The child side: loads the job, simulates it, and writes the typed result
 * to result_path (or the error text to error_path). Returns the exit code:
 * 0, 2 input, 3 invariant, 1 anything else. */
int lb_job_execute(const LbJob *job, const LbRunOptions *options, const char *result_path,
                   const char *error_path);
