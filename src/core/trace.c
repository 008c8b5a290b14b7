/* The message pattern of a run, for tools/bench to replay on bare SimGrid,
 * and the rank states of the Paje trace (--paje). */
#include <simgrid/host.h>
#include <simgrid/instr.h>

#include "core/core.h"

#define PAJE_STATE "phase"

static gboolean
paje_on(const LbCoreRun *run)
{
  /* SimGrid aborts on user states with tracing off */
  return run->options->paje_trace != NULL;
}

void
lb_trace_paje_declare(const LbCoreRun *run)
{
  if (!paje_on(run))
    return;
  static const char *const core[][2] = {{LB_PAJE_SYNC, "0.6 0.6 0.6"},
                                        {LB_PAJE_BALANCE, "0.9 0.6 0.2"},
                                        {LB_PAJE_APPLICATION, "0.2 0.6 0.3"}};
  TRACE_host_state_declare(PAJE_STATE);
  for (guint i = 0; i < G_N_ELEMENTS(core); i++)
    TRACE_host_state_declare_value(PAJE_STATE, core[i][0], core[i][1]);
  const char *const *phases = run->brun->balancer->phases;
  for (guint i = 0; i < run->nphases; i++) {
    /* blues, lighter phase by phase */
    g_autofree char *color = g_strdup_printf("0.1 %.2f 0.9", 0.2 + 0.6 * i / MAX(run->nphases, 1));
    TRACE_host_state_declare_value(PAJE_STATE, phases[i], color);
  }
}

void
lb_trace_paje_state(LbRank *self, const char *value)
{
  if (paje_on(self->run))
    TRACE_host_set_state(sg_host_get_name(self->host), PAJE_STATE, value);
}

void
lb_trace_send(LbRank *self, int dst, double bytes)
{
  if (self->run->trace != NULL)
    fprintf(self->run->trace, "%d S %d %.17g\n", self->id, dst, bytes);
}

void
lb_trace_recv(LbRank *self, int src)
{
  if (self->run->trace != NULL)
    fprintf(self->run->trace, "%d R %d\n", self->id, src);
}

void
lb_trace_wait(LbRank *self)
{
  if (self->run->trace != NULL)
    fprintf(self->run->trace, "%d W\n", self->id);
}

void
lb_trace_exec(LbRank *self, double flops)
{
  if (self->run->trace != NULL)
    fprintf(self->run->trace, "%d X %.17g\n", self->id, flops);
}
