/* The message pattern of a run, for tools/bench to replay on bare SimGrid. */
#include "core/core.h"

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
