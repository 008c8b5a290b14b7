/* libFuzzer target: lbsim's JSON as lbsim report and lbsim merge read it,
 * a run's or a sweep's (lbsim report RESULT.json DIR) and a run's typed
 * result (a sweep's RUN.result). */
#include <stdint.h>
#include <stdlib.h>

#include "report/results.h"
#include "runner/transport.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
one_of_or_abort(gboolean ok, const GError *error)
{
  if (ok == (error != NULL) || (error != NULL && error->message[0] == '\0'))
    abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LbResults) doc = lb_results_read((const char *)data, size, "r.json", &error);
  one_of_or_abort(doc != NULL, error);
  /* what the page takes for granted */
  if (doc != NULL && (doc->kind == NULL || doc->name == NULL || doc->runs->len == 0))
    abort();
  for (guint i = 0; doc != NULL && i < doc->runs->len; i++) {
    const LbRunResult *r = doc->runs->pdata[i];
    if (r->params == NULL || r->metric_defs == NULL || r->metrics == NULL ||
        (r->nadaptations > 0 && (r->adaptations == NULL || r->adaptation_metrics == NULL)) ||
        (r->nphases > 0 && r->phases == NULL))
      abort();
  }
  g_clear_error(&error);
  g_autofree char *text = g_strndup((const char *)data, size);
  g_autoptr(LbRunResult) result = lb_result_from_transport(text, &error);
  one_of_or_abort(result != NULL, error);
  return 0;
}
