/* Jobs: written down, read back, and run on the child side. */
#include "cli/job.h"

#include <stdio.h>

#include "report/report.h"

#define GROUP "job"

LbJob *
lb_job_new(const char *scenario, const LbScenarioOverrides *ov, const char *balancer)
{
  LbJob *job = g_new0(LbJob, 1);
  job->scenario = g_strdup(scenario);
  job->balancer = g_strdup(balancer);
  if (ov != NULL) {
    job->ranks = ov->ranks;
    job->platform = g_strdup(ov->platform);
    job->sets = g_strdupv((char **)ov->sets);
  }
  return job;
}

void
lb_job_free(LbJob *job)
{
  if (job == NULL)
    return;
  g_free(job->scenario);
  g_free(job->platform);
  g_free(job->balancer);
  g_strfreev(job->sets);
  g_free(job);
}

char *
lb_job_to_data(const LbJob *job)
{
  g_autoptr(GKeyFile) kf = g_key_file_new();
  g_key_file_set_string(kf, GROUP, "scenario", job->scenario);
  g_key_file_set_string(kf, GROUP, "balancer", job->balancer);
  if (job->ranks > 0)
    g_key_file_set_integer(kf, GROUP, "ranks", job->ranks);
  if (job->platform != NULL)
    g_key_file_set_string(kf, GROUP, "platform", job->platform);
  if (job->sets != NULL && job->sets[0] != NULL)
    g_key_file_set_string_list(kf, GROUP, "set", (const char *const *)job->sets,
                               g_strv_length(job->sets));
  return g_key_file_to_data(kf, NULL, NULL);
}

LbJob *
lb_job_from_data(const char *data, GError **error)
{
  g_autoptr(GKeyFile) kf = g_key_file_new();
  if (!g_key_file_load_from_data(kf, data, (gsize)-1, G_KEY_FILE_NONE, error))
    return NULL;
  g_autoptr(LbJob) job = g_new0(LbJob, 1);
  job->scenario = g_key_file_get_string(kf, GROUP, "scenario", error);
  if (job->scenario == NULL)
    return NULL;
  job->balancer = g_key_file_get_string(kf, GROUP, "balancer", error);
  if (job->balancer == NULL)
    return NULL;
  if (g_key_file_has_key(kf, GROUP, "ranks", NULL)) {
    job->ranks = g_key_file_get_integer(kf, GROUP, "ranks", error);
    if (job->ranks <= 0) {
      if (error != NULL && *error == NULL)
        g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                    "[job] ranks: must be positive");
      return NULL;
    }
  }
  job->platform = g_key_file_get_string(kf, GROUP, "platform", NULL);
  job->sets = g_key_file_get_string_list(kf, GROUP, "set", NULL, NULL);
  return g_steal_pointer(&job);
}

LbScenario *
lb_job_load(const LbJob *job, GError **error)
{
  LbScenarioOverrides ov = {job->ranks, job->platform, job->balancer,
                            (const char *const *)job->sets};
  return lb_scenario_load(job->scenario, &ov, error);
}

int
lb_job_execute(const LbJob *job, const LbRunOptions *options, const char *result_path,
               const char *error_path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LbScenario) sc = lb_job_load(job, &error);
  int code = 2;
  g_autoptr(LbRunResult) result = NULL;
  if (sc != NULL) {
    result = lb_run_simulate(sc, 0, options, &error);
    if (result == NULL)
      code = g_error_matches(error, LB_RUN_ERROR, LB_RUN_ERROR_INVARIANT) ? 3 : 2;
  }
  if (result == NULL) {
    if (error_path != NULL)
      g_file_set_contents(error_path, error->message, -1, NULL);
    else
      g_printerr("lbsim: %s\n", error->message);
    return code;
  }
  g_autofree char *text = lb_result_to_transport(result);
  if (!g_file_set_contents(result_path, text, -1, &error)) {
    if (error_path != NULL)
      g_file_set_contents(error_path, error->message, -1, NULL);
    else
      g_printerr("lbsim: %s\n", error->message);
    return 1;
  }
  return 0;
}
