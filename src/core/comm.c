/* Matched point-to-point messages over one SimGrid mailbox per rank:
 * arrivals that do not match the receive in progress wait in a stash. */
#include <string.h>
#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/mailbox.h>

#include "core/core.h"

void
lb_msg_free(LbMsg *msg)
{
  g_free(msg);
}

int
lb_rank_id(const LbRank *self)
{
  return self->id;
}

int
lb_rank_count(const LbRank *self)
{
  return (int)self->run->ranks;
}

const LbParams *
lb_rank_params(const LbRank *self)
{
  return self->run->brun->params;
}

guint
lb_rank_adaptation(const LbRank *self)
{
  return self->adaptation;
}

GArray *
lb_rank_units(LbRank *self)
{
  return self->units;
}

double
lb_now(void)
{
  return simgrid_get_clock();
}

void
lb_send(LbRank *self, int dst, int tag, const void *data, gsize len, double sim_bytes)
{
  g_assert(dst >= 0 && (guint)dst < self->run->ranks && dst != self->id);
  LbMsg *msg = g_malloc(sizeof(LbMsg) + len);
  msg->src = self->id;
  msg->tag = tag;
  msg->len = len;
  msg->sim_bytes = sim_bytes;
  if (len > 0)
    memcpy(msg->data, data, len);
  g_ptr_array_add(self->pending,
                  sg_mailbox_put_async(self->run->mailboxes[dst], msg, (long)sim_bytes));
  self->run->messages_all++;
  if (self->phase >= 0) {
    self->phase_messages++;
    self->phase_bytes += sim_bytes;
  }
  lb_trace_send(self, dst, sim_bytes);
}

static gboolean
matches(const LbMsg *msg, int src, int tag)
{
  return msg->tag == tag && (src == LB_ANY_SOURCE || msg->src == src);
}

LbMsg *
lb_recv(LbRank *self, int src, int tag)
{
  for (GList *l = self->stash.head; l != NULL; l = l->next) {
    LbMsg *msg = l->data;
    if (matches(msg, src, tag)) {
      g_queue_delete_link(&self->stash, l);
      return msg;
    }
  }
  for (;;) {
    /* Traced when taken from the mailbox: that is what bare SimGrid replays. */
    LbMsg *msg = sg_mailbox_get(self->mailbox);
    lb_trace_recv(self, msg->src);
    if (matches(msg, src, tag))
      return msg;
    g_queue_push_tail(&self->stash, msg);
  }
}

void
lb_wait_sends(LbRank *self)
{
  for (guint i = 0; i < self->pending->len; i++)
    sg_comm_wait(self->pending->pdata[i]);
  g_ptr_array_set_size(self->pending, 0);
  lb_trace_wait(self);
}

void
lb_execute(LbRank *self, double flops)
{
  if (flops <= 0)
    return;
  lb_trace_exec(self, flops);
  sg_actor_execute(flops);
}

void
lb_rank_flush_phase(LbRank *self)
{
  if (self->phase < 0)
    return;
  LbCoreRun *run = self->run;
  LbPhaseTotals *t = &run->phase_totals[self->adaptation * run->nphases + (guint)self->phase];
  t->messages += self->phase_messages;
  t->bytes += self->phase_bytes;
  t->time = MAX(t->time, lb_now() - self->phase_start);
  for (guint i = 0; i < G_N_ELEMENTS(t->rounds); i++)
    t->rounds[i] |= self->phase_rounds[i];
  self->phase = -1;
  self->phase_messages = 0;
  self->phase_bytes = 0;
  memset(self->phase_rounds, 0, sizeof self->phase_rounds);
}

void
lb_phase_begin(LbRank *self, guint phase)
{
  g_assert(phase < self->run->nphases);
  lb_rank_flush_phase(self);
  self->phase = (int)phase;
  self->phase_start = lb_now();
}

void
lb_phase_round(LbRank *self, guint round)
{
  g_assert(self->phase >= 0 && round < LB_MAX_ROUNDS);
  self->phase_rounds[round / 64] |= G_GUINT64_CONSTANT(1) << (round % 64);
}

void
lb_metric_record(LbRank *self, guint metric, double value)
{
  LbCoreRun *run = self->run;
  g_assert(metric < run->first_phase_def);
  const LbMetricDef *def = &g_array_index(run->metric_defs, LbMetricDef, metric);
  g_assert(def->rounds_of < 0);
  double *slot = lb_adaptation_metric(run, self->adaptation, metric);
  *slot = def->combine == LB_COMBINE_MAX ? MAX(*slot, value) : *slot + value;
}

void
lb_narrate(LbRank *self, const char *format, ...)
{
  if (!self->run->options->narrate)
    return;
  va_list args;
  va_start(args, format);
  g_autofree char *text = g_strdup_vprintf(format, args);
  va_end(args);
  const char *phase = self->phase >= 0 ? self->run->brun->balancer->phases[self->phase] : "-";
  g_ptr_array_add(self->run->narration, g_strdup_printf("%-10s t=%.6f s  rank %d: %s", phase,
                                                        lb_now(), self->id, text));
}
