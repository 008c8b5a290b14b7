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

/* Key files hold UTF-8; a path is bytes. Text that is not UTF-8 goes under
 * KEY-bytes, with C escapes (\377) for the bytes. */
static void
set_text(GKeyFile *kf, const char *key, const char *value)
{
  if (g_utf8_validate(value, -1, NULL)) {
    g_key_file_set_string(kf, GROUP, key, value);
    return;
  }
  g_autofree char *escaped = g_strescape(value, NULL);
  g_autofree char *name = g_strdup_printf("%s-bytes", key);
  g_key_file_set_string(kf, GROUP, name, escaped);
}

static char *
get_text(GKeyFile *kf, const char *key, GError **error)
{
  g_autofree char *name = g_strdup_printf("%s-bytes", key);
  if (g_key_file_has_key(kf, GROUP, name, NULL)) {
    g_autofree char *escaped = g_key_file_get_string(kf, GROUP, name, error);
    return escaped != NULL ? g_strcompress(escaped) : NULL;
  }
  return g_key_file_get_string(kf, GROUP, key, error);
}

char *
lb_job_to_data(const LbJob *job)
{
  g_autoptr(GKeyFile) kf = g_key_file_new();
  set_text(kf, "scenario", job->scenario);
  set_text(kf, "balancer", job->balancer);
  if (job->ranks > 0)
    g_key_file_set_integer(kf, GROUP, "ranks", job->ranks);
  if (job->platform != NULL)
    set_text(kf, "platform", job->platform);
  for (guint i = 0; job->sets != NULL && job->sets[i] != NULL; i++) {
    g_autofree char *key = g_strdup_printf("set%u", i + 1);
    set_text(kf, key, job->sets[i]);
  }
  return g_key_file_to_data(kf, NULL, NULL);
}

LbJob *
lb_job_from_data(const char *data, GError **error)
{
  g_autoptr(GKeyFile) kf = g_key_file_new();
  if (!g_key_file_load_from_data(kf, data, (gsize)-1, G_KEY_FILE_NONE, error))
    return NULL;
  g_autoptr(LbJob) job = g_new0(LbJob, 1);
  job->scenario = get_text(kf, "scenario", error);
  if (job->scenario == NULL)
    return NULL;
  job->balancer = get_text(kf, "balancer", error);
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
  if (g_key_file_has_key(kf, GROUP, "platform", NULL) ||
      g_key_file_has_key(kf, GROUP, "platform-bytes", NULL)) {
    job->platform = get_text(kf, "platform", error);
    if (job->platform == NULL)
      return NULL;
  }
  g_autoptr(GPtrArray) sets = g_ptr_array_new();
  for (guint i = 1;; i++) {
    g_autofree char *key = g_strdup_printf("set%u", i);
    g_autofree char *bytes = g_strdup_printf("set%u-bytes", i);
    if (!g_key_file_has_key(kf, GROUP, key, NULL) && !g_key_file_has_key(kf, GROUP, bytes, NULL))
      break;
    char *value = get_text(kf, key, error);
    if (value == NULL)
      return NULL;
    g_ptr_array_add(sets, value);
  }
  if (sets->len > 0) {
    g_ptr_array_add(sets, NULL);
    job->sets = (char **)g_ptr_array_free(g_steal_pointer(&sets), FALSE);
  }
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
lb_job_execute(const LbJob *job, const LbScenario *loaded, guint index, const LbRunOptions *options,
               const char *result_path, const char *error_path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LbScenario) own = loaded == NULL ? lb_job_load(job, &error) : NULL;
  const LbScenario *sc = loaded != NULL ? loaded : own;
  if (loaded == NULL)
    index = 0;
  int code = 2;
  g_autoptr(LbRunResult) result = NULL;
  if (sc != NULL) {
    g_assert(g_strcmp0(((LbBalancerRun *)sc->runs->pdata[index])->label, job->balancer) == 0);
    result = lb_run_simulate(sc, index, options, &error);
    if (result == NULL)
      code = g_error_matches(error, LB_RUN_ERROR, LB_RUN_ERROR_INVARIANT) ? 3
             : g_error_matches(error, LB_RUN_ERROR, LB_RUN_ERROR_OUTPUT)  ? 1
                                                                          : 2;
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
