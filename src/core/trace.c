/* The message pattern of a run, for tools/bench to replay on bare SimGrid,
 * and the rank states of the Paje trace (--paje). */
#include <errno.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/instr.h>
#include <stdio.h>

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
  /* Okabe and Ito's colour-blind safe colours, apart from the core's
   * grey, orange and green: shades of one blue could not be told apart */
  static const char *const distinct[] = {"0.00 0.45 0.70", "0.80 0.40 0.00", "0.35 0.70 0.90",
                                         "0.80 0.60 0.70", "0.95 0.90 0.25", "0.00 0.00 0.00"};
  const char *const *phases = run->brun->balancer->phases;
  for (guint i = 0; i < run->nphases; i++)
    TRACE_host_state_declare_value(PAJE_STATE, phases[i], distinct[i % G_N_ELEMENTS(distinct)]);
}

void
lb_trace_paje_state(LbRank *self, const char *value)
{
  if (paje_on(self->run))
    TRACE_host_set_state(sg_host_get_name(self->host), PAJE_STATE, value);
}

/* One end of a message's arrow: the k-th message from src to dst leaves
 * src and is the k-th dst takes from its mailbox from src, which matches
 * sends in the order they were posted. */
typedef struct {
  double time;
  guint32 src, dst, k;
  gboolean arrival;
} LbPajeMessage;

typedef struct {
  guint32 sent, received;
} PairCount;

static void
paje_message(LbCoreRun *run, int src, int dst, gboolean arrival)
{
  if (run->paje_messages == NULL) {
    run->paje_messages = g_array_new(FALSE, FALSE, sizeof(LbPajeMessage));
    run->paje_counts = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
  }
  gint64 pair = (gint64)src * run->ranks + dst;
  PairCount *count = g_hash_table_lookup(run->paje_counts, &pair);
  if (count == NULL) {
    count = g_new0(PairCount, 1);
    g_hash_table_insert(run->paje_counts, g_memdup2(&pair, sizeof pair), count);
  }
  LbPajeMessage m = {simgrid_get_clock(), (guint32)src, (guint32)dst,
                     arrival ? count->received++ : count->sent++, arrival};
  g_array_append_val(run->paje_messages, m);
}

gboolean
lb_trace_paje_write_messages(const LbCoreRun *run, GError **error)
{
  if (!paje_on(run))
    return TRUE;
  g_autofree char *path = g_strconcat(run->options->paje_trace, ".messages", NULL);
  FILE *f = fopen(path, "w");
  if (f == NULL) {
    int errsv = errno;
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errsv), "cannot write %s: %s", path,
                g_strerror(errsv));
    return FALSE;
  }
  fprintf(f, "# lbsim-paje-messages 1 ranks=%u\n", run->ranks);
  for (guint r = 0; r < run->ranks; r++)
    fprintf(f, "H %u %s\n", r, sg_host_get_name(run->rank[r].host));
  for (guint i = 0; run->paje_messages != NULL && i < run->paje_messages->len; i++) {
    const LbPajeMessage *m = &g_array_index(run->paje_messages, LbPajeMessage, i);
    fprintf(f, "%c %.9f %u %u %u\n", m->arrival ? 'E' : 'S', m->time, m->src, m->dst, m->k);
  }
  gboolean ok = !ferror(f);
  if (fclose(f) != 0 || !ok) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_IO, "cannot write %s", path);
    return FALSE;
  }
  return TRUE;
}

void
lb_trace_send(LbRank *self, int dst, double bytes)
{
  if (self->run->trace != NULL)
    fprintf(self->run->trace, "%d S %d %.17g\n", self->id, dst, bytes);
  if (paje_on(self->run))
    paje_message(self->run, self->id, dst, FALSE);
}

void
lb_trace_recv(LbRank *self, int src)
{
  if (self->run->trace != NULL)
    fprintf(self->run->trace, "%d R %d\n", self->id, src);
  if (paje_on(self->run))
    paje_message(self->run, src, self->id, TRUE);
}

/* A get posted ahead on the rank's mailbox: the replay posts it too, so
 * that what it matches travels while the rank does what comes next; the
 * rank's next receive (R) harvests the oldest one. */
void
lb_trace_post(LbRank *self)
{
  if (self->run->trace != NULL)
    fprintf(self->run->trace, "%d G\n", self->id);
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
