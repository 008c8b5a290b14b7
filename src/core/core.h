/* Inside the core: the run shared by all rank actors. SimGrid types stay
 * in src/core. */
#pragma once

#include <stdio.h>
#include <simgrid/forward.h>
#include "lbsim/balancer.h"
#include "lbsim/model.h"
#include "lbsim/rank.h"
#include "lbsim/run.h"
#include "core/sends.h"

/* A rank's units after balancing: what they conserve, their load (the
 * units' loads: what a model conserves may differ, as grids that split gain
 * ghost cells), and whether they are one contiguous piece of the model's
 * order. */
typedef struct {
  LbConserved conserved;
  guint64 load;
  guint64 first_id, last_id;
  gboolean contiguous;
  guint64 key_min, key_max; /* the balancer's order keys, when it keeps an order of its own */
} LbDigest;

/* The ghost exchange's tag: the first of group id LB_GROUP_ID_MAX + 1,
 * which no balancer's group can take. */
#define LB_TAG_GHOST ((int)(0x60000000u | (LB_GROUP_ID_MAX + 1u) << 13))

/* Rounds below this are kept one by one (a bit each); from it on, only the
 * largest, and every round between is counted as used (a balancer whose
 * rounds run that far numbers them densely: samr's waves). */
#define LB_MAX_ROUNDS 256
/* The application step's metrics, the last of a run's metric defs. */
enum {
  LB_APP_COMPUTE_TIME,
  LB_APP_GHOST_TIME,
  LB_APP_GHOST_MESSAGES,
  LB_APP_GHOST_BYTES,
  LB_APP_METRICS
};

typedef struct {
  guint64 messages;
  double bytes;
  double time;
  guint64 rounds[LB_MAX_ROUNDS / 64];
  guint rounds_beyond; /* the largest round from LB_MAX_ROUNDS on, plus one; 0: none */
} LbPhaseTotals;

typedef struct _LbCoreRun LbCoreRun;

/* A line of narration and where in the story it belongs. */
typedef struct {
  guint adaptation, stage, rank, step;
  int phase;
  double time;
  char *text;
} LbNarrated;

/* The narration in story order (lb_narrate): its texts, and where each
 * belongs (LbNote, same order) into *notes. */
GPtrArray *lb_narration_story(GPtrArray *narration, GArray **notes);
void lb_sent_clear(gpointer sent);
void lb_narrated_free(gpointer line);

struct _LbRank {
  LbCoreRun *run;
  int id;
  sg_mailbox_t mailbox;
  GArray *units;
  GArray *graph; /* LbNeighbour, ascending; NULL: not set this step */
  GQueue stash;
  GHashTable *stash_index; /* a long stash's messages by source and tag (comm.c) */
  LbSends sends;           /* not yet waited for (core/sends.h) */
  guint adaptation;
  int phase;             /* -1: core synchronisation, not the balancer's */
  guint narrate_stage;   /* lb_narrate_stage's, for this step */
  guint narrate_step;    /* lb_narrate_step's, in the current phase */
  char *narrate_label;   /* lb_narrate_label's, for the next message */
  char *narrate_labels;  /* lb_narrate_labels', for every message until the next phase */
  gint64 narrate_resize; /* lb_narrate_resize's, for the next message */
  guint last_sent;       /* index in run->sent of the last message it sent */
  double phase_start;
  guint64 phase_messages;
  double phase_bytes;
  sg_host_t host;
  LbConserved executed;  /* units computed this step (balancers that own the compute) */
  guint64 sent_messages; /* every message this rank sent, whatever the phase */
  double sent_bytes;
  /* What a balancer's collect computed itself this step (lb_app_compute):
   * the flops, and the simulated time they took. */
  double app_flops, app_compute_time;
  guint64 phase_rounds[LB_MAX_ROUNDS / 64];
  guint phase_rounds_beyond; /* as LbPhaseTotals.rounds_beyond */
  guint phase_round_next;    /* the first round a collective of this phase may number */
  guint coll_seq;
  /* Non-blocking receives: unmatched LbRequests in posting order, and the
   * gets posted ahead on the mailbox so that arrivals travel meanwhile (the
   * last one, the spare, may be unmatched). */
  GQueue requests;
  GQueue inbound;
  gboolean spare_get;
  /* Messages put into this rank's mailbox (counted by their senders) and
   * taken out of it: while the two agree nothing is in flight to the rank,
   * and a poll knows there is nothing to find without asking SimGrid. */
  guint64 inbox_put, inbox_taken;
};

struct _LbCoreRun {
  const LbScenario *scenario;
  const LbBalancerRun *brun;
  const LbRunOptions *options;
  const LbWork *work;
  LbStart start;
  guint ranks, nadaptations, nphases;
  GArray *metric_defs; /* LbMetricDef */
  guint ndefs, first_phase_def, first_app_def;
  int order_breaks_def; /* a rule that may break the order: where it counts, else -1 */
  /* A balancer that owns the compute: the summary's loads after are the
   * work each rank executed; who holds the data goes here (per rank) and,
   * when the balancer declares it, into the metric "data-imbalance". */
  guint64 *owned_after;
  int data_imbalance_def;
  double *adaptation_metrics; /* steps x ndefs, combined over ranks */
  sg_mailbox_t *mailboxes;
  LbRank *rank;
  FILE *trace;
  /* --paje: every message's send and arrival (LbPajeMessage), and how
   * many each (sender, receiver) pair has sent and received so far */
  GArray *paje_messages;
  GHashTable *paje_counts;
  guint64 messages_all;
  /* per adaptation step, filled by ranks as they go */
  LbPhaseTotals *phase_totals; /* steps * nphases */
  LbAdaptationResult *adaptation_results;
  double *balance_max, *app_max; /* per step: the longest any rank spent */
  /* Per rank. What ranks hold before balancing alternates between two
   * halves by step parity: a rank with nothing to compute may write the
   * next step's while rank 0 still checks this one. */
  guint64 *load_before, *load_after;
  LbConserved *conserved_before;
  LbDigest *digests;     /* current step, per rank, after balancing */
  guint32 *owner;        /* owner of every unit id, for the ghost exchange */
  guint64 *ghost_counts; /* scratch: faces shared with each rank */
  GArray *transfers;
  GArray *events;            /* LbEvent, with detail */
  GArray *grids_before;      /* LbGridPart before the last balancing, for pictures */
  GArray **units_before;     /* per rank, its LbUnit before the last balancing: curve pictures */
  GPtrArray *narration;      /* LbNarrated, in the order said */
  GArray *chunks;            /* LbChunk (lb_rank_note_chunk), with keep_chunks; else NULL */
  GArray *sent;              /* LbSent, with narrate; else NULL */
  GPtrArray *units_at_start; /* steps x ranks (GArray of LbUnit), with narrate on trees */
  guint64 *loads_at_start;   /* steps x ranks, with narrate; else NULL */
  GPtrArray *stage_names;    /* lb_narrate_stage's names by stage ("" when unnamed) */
  guint finished;            /* ranks that ran to the end: fewer means a deadlock */
  gboolean huge_pages_held;  /* off while a small run simulates: core/huge-pages.c */
  /* The machine graph (lb_rank_machine_neighbours), made on first use:
   * rank r's neighbours are machine_adj[machine_offsets[r] ..
   * machine_offsets[r + 1] - 1]. */
  guint *machine_offsets, *machine_adj;
  char *failure;
};

static inline guint64 *
lb_loads_before(LbCoreRun *run, guint adaptation)
{
  return run->load_before + (gsize)(adaptation % 2) * run->ranks;
}

static inline LbConserved *
lb_conserved_before(LbCoreRun *run, guint adaptation)
{
  return run->conserved_before + (gsize)(adaptation % 2) * run->ranks;
}

/* The slot of a declared metric at the rank's current adaptation step. */
static inline double *
lb_adaptation_metric(LbCoreRun *run, guint adaptation, guint def)
{
  return &run->adaptation_metrics[(gsize)adaptation * run->ndefs + def];
}

void lb_rank_flush_phase(LbRank *self);
/* A collective's rounds, counted as steps of the current phase (none
 * outside a balancer's phase): the next `rounds` after the last round the
 * phase used. */
void lb_phase_collective_rounds(LbRank *self, guint rounds);
void lb_trace_send(LbRank *self, int dst, double bytes);
void lb_trace_recv(LbRank *self, int src);
void lb_trace_post(LbRank *self);
void lb_trace_wait(LbRank *self);
void lb_trace_exec(LbRank *self, double flops);

/* Paje (--paje): every rank's host is in one state of "phase" at a time:
 * one of these three, or the name of the balancer phase it is in. */
#define LB_PAJE_SYNC "sync"               /* the core's barriers and model updates */
#define LB_PAJE_BALANCE "balance"         /* balancing, outside a named phase */
#define LB_PAJE_APPLICATION "application" /* ghost exchange and compute */
void lb_trace_paje_declare(const LbCoreRun *run);
void lb_trace_paje_state(LbRank *self, const char *value);
/* The messages' arrows, which SimGrid's tracing does not draw for S4U:
 * written beside the trace for report/paje.c to merge in. */
gboolean lb_trace_paje_write_messages(const LbCoreRun *run, GError **error);
/* Where every rank ran and the platform's shape (machine.c), after the
 * ranks are placed. */
void lb_machine_describe(const LbCoreRun *run, LbMachine *machine);

/* lb_send and lb_recv without the user tag range: for the core's tags. */
void lb_core_send(LbRank *self, int dst, int tag, const void *data, gsize len, double sim_bytes);
LbMsg *lb_core_recv(LbRank *self, int src, int tag);
/* A message of len data bytes to fill and hand to lb_core_send_msg, which
 * takes it (no copy); lb_msg_free gives it back. */
LbMsg *lb_msg_alloc(gsize len);
/* Freeing msg (whoever frees it, received or left in a stash) calls
 * drop(data): for a reference the message carries. */
void lb_msg_set_drop(LbMsg *msg, GDestroyNotify drop, gpointer data);
void lb_core_send_msg(LbRank *self, int dst, int tag, LbMsg *msg, double sim_bytes);
void lb_rank_clear_stash(LbRank *self);
