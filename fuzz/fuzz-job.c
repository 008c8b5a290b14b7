/* libFuzzer target: a job file (lbsim run-job's first argument). A job
 * that is read must come back the same through lb_job_to_data, as a
 * sweep writes its jobs and a cluster's task reads them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runner/job.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
same_or_abort(const char *a, const char *b)
{
  if (g_strcmp0(a, b) != 0)
    abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LbJob) job = lb_job_parse("job.ini", (const char *)data, size, &error);
  if ((job == NULL) == (error == NULL))
    abort();
  if (job == NULL) {
    if (error->message == NULL || !g_str_has_prefix(error->message, "job.ini"))
      abort();
    return 0;
  }
  g_autofree char *text = lb_job_to_data(job);
  g_autoptr(LbJob) back = lb_job_from_data(text, &error);
  if (back == NULL)
    abort();
  same_or_abort(job->scenario, back->scenario);
  same_or_abort(job->balancer, back->balancer);
  same_or_abort(job->platform, back->platform);
  if (job->ranks != back->ranks || g_strv_length(job->sets) != g_strv_length(back->sets))
    abort();
  for (guint i = 0; job->sets != NULL && job->sets[i] != NULL; i++)
    same_or_abort(job->sets[i], back->sets[i]);
  return 0;
}
