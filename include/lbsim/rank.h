/* What a balancer sees of its virtual processor: identity, work units,
 * matched point-to-point messages, collectives, phases and counters. */
#pragma once

#include <glib.h>
#include "lbsim/params.h"
#include "lbsim/workload.h"

G_BEGIN_DECLS

typedef struct _LbRank LbRank;

#define LB_ANY_SOURCE (-1)

/* A received message; the receiver owns it. */
typedef struct {
  int src;
  int tag;
  gsize len;
  double sim_bytes;
  guint8 data[];
} LbMsg;

void lb_msg_free(LbMsg *msg);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LbMsg, lb_msg_free)

int lb_rank_id(const LbRank *self);
int lb_rank_count(const LbRank *self);
const LbParams *lb_rank_params(const LbRank *self);
/* The adaptation step being balanced, from 0. */
guint lb_rank_adaptation(const LbRank *self);

/* The rank's work units, sorted by id when a balancer returns. */
GArray *lb_rank_units(LbRank *self);

/* Asynchronous send: data is copied; sim_bytes is what the network carries. */
void lb_send(LbRank *self, int dst, int tag, const void *data, gsize len, double sim_bytes);
/* Blocks until a message from src (or LB_ANY_SOURCE) with this tag arrives. */
LbMsg *lb_recv(LbRank *self, int src, int tag);
/* Waits until every send this rank started has been delivered. */
void lb_wait_sends(LbRank *self);
/* Runs flops on the rank's host. */
void lb_execute(LbRank *self, double flops);
double lb_now(void);

/* Collectives over all ranks, built from the messages above. */
void lb_barrier(LbRank *self);
void lb_allreduce_sum_u64(LbRank *self, guint64 *values, guint n);
void lb_allreduce_max_double(LbRank *self, double *values, guint n);
void lb_bcast(LbRank *self, int root, void *data, gsize len);
/* all receives ranks * len bytes, rank r's contribution at offset r * len. */
void lb_allgather(LbRank *self, const void *mine, gsize len, void *all);

/* Phases are indices into the balancer's phase table; counters and
 * simulated time accrue to the current phase. */
void lb_phase_begin(LbRank *self, guint phase);
/* Marks communication round `round` of the current phase as used. */
void lb_phase_round(LbRank *self, guint round);
/* Moves units to dst in communication round `round`: sends their bytes as
 * the model defines them (plus a header and 16 bytes per run of consecutive
 * ids, which carry the run's first id and first position), and records the
 * transfer for the report. positions, if not NULL, are load positions that
 * grow by each unit's load within a run of consecutive ids: only a run's
 * first one is sent, the receiver rebuilds the others. */
void lb_send_units(LbRank *self, int dst, int tag, guint round, const LbUnit *units, guint n,
                   const guint64 *positions);
/* Receives units sent with lb_send_units and appends them to `into` (and
 * their positions to `positions` when not NULL); returns how many came. */
guint lb_recv_units(LbRank *self, int src, int tag, GArray *into, GArray *positions);

/* Adds a value to one of the balancer's declared metrics (an index into its
 * metric table) for the current adaptation step; ranks' values combine as
 * the table says. */
void lb_metric_record(LbRank *self, guint metric, double value);

/* A note for `lbsim explain` (kept only when narration is on). */
void lb_narrate(LbRank *self, const char *format, ...) G_GNUC_PRINTF(2, 3);

/* Bytes a unit message carries besides the units: tags, counts, offsets. */
#define LB_HEADER_BYTES 32.0

G_END_DECLS
