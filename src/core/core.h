/* Inside the core: the run shared by all rank actors. SimGrid types stay
 * in src/core. */
#pragma once

#include <stdio.h>
#include <simgrid/forward.h>
#include "lbsim/balancer.h"
#include "lbsim/rank.h"
#include "lbsim/run.h"

typedef struct {
  guint64 count, load, checksum;
  guint64 first_id, last_id;
  gboolean contiguous;
} LbDigest;

#define LB_MAX_ROUNDS 256

typedef struct {
  guint64 messages;
  double bytes;
  double time;
  guint64 rounds[LB_MAX_ROUNDS / 64];
} LbPhaseTotals;

typedef struct _LbCoreRun LbCoreRun;

struct _LbRank {
  LbCoreRun *run;
  int id;
  sg_mailbox_t mailbox;
  GArray *units;
  GQueue stash;
  GPtrArray *pending;
  guint step;
  int phase; /* -1: core synchronisation, not the balancer's */
  double phase_start;
  guint64 phase_messages;
  double phase_bytes;
  guint64 phase_rounds[LB_MAX_ROUNDS / 64];
  guint coll_seq;
  /* Non-blocking receives: unmatched LbRequests in posting order, and the
   * gets posted ahead on the mailbox so that arrivals travel meanwhile (the
   * last one, the spare, may be unmatched). */
  GQueue requests;
  GQueue inbound;
  gboolean spare_get;
};

struct _LbCoreRun {
  const LbScenario *scenario;
  const LbBalancerRun *brun;
  const LbRunOptions *options;
  guint ranks, steps, nphases;
  sg_mailbox_t *mailboxes;
  LbRank *rank;
  FILE *trace;
  guint64 messages_all;
  /* per adaptation step, filled by ranks as they go */
  LbPhaseTotals *phase_totals; /* steps * nphases */
  LbStepResult *step_results;
  double *balance_max, *compute_max; /* per step: the longest any rank spent */
  /* Per rank. Loads before balancing alternate between two halves by step
   * parity: a rank with nothing to compute may write the next step's while
   * rank 0 still checks this one. */
  guint64 *load_before, *load_after;
  LbDigest *digests;                 /* current step, per rank, after balancing */
  LbDigest expected;                 /* what every step must conserve */
  GArray *transfers;
  GPtrArray *narration;
  char *failure;
};

static inline guint64 *
lb_loads_before(LbCoreRun *run, guint step)
{
  return run->load_before + (gsize)(step % 2) * run->ranks;
}

void lb_rank_flush_phase(LbRank *self);
void lb_trace_send(LbRank *self, int dst, double bytes);
void lb_trace_recv(LbRank *self, int src);
void lb_trace_wait(LbRank *self);
void lb_trace_exec(LbRank *self, double flops);

/* lb_send and lb_recv without the user tag range: for the core's tags. */
void lb_core_send(LbRank *self, int dst, int tag, const void *data, gsize len, double sim_bytes);
LbMsg *lb_core_recv(LbRank *self, int src, int tag);
