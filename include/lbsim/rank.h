/* What a balancer sees of its virtual processor: identity, work units,
 * matched point-to-point messages, collectives, phases and counters. */
#pragma once

#include <glib.h>
#include "lbsim/params.h"
#include "lbsim/model.h"
#include "lbsim/workload.h"

G_BEGIN_DECLS

typedef struct _LbRank LbRank;

/* Tags: balancers use 0 .. LB_TAG_USER_MAX. Tags with bit 30 set belong to
 * the core: the all-ranks collectives (bit 29 clear) and groups (bit 29 set,
 * then the group id and the group's sequence number). LB_ANY_TAG matches
 * user tags only, so a wildcard receive never takes collective traffic. */
#define LB_ANY_SOURCE (-1)
#define LB_ANY_TAG (-1)
#define LB_TAG_USER_MAX 0x3fffffff

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
/* The work model (its sizes and processor grid are known to every rank,
 * as a real code knows its own mesh). */
const LbWork *lb_rank_work(const LbRank *self);

/* The rank's work units, sorted by id when a balancer returns. */
GArray *lb_rank_units(LbRank *self);
/* The sum of the loads of the units this rank held when the current
 * step's balancing began: the core adds them up as it checks what the
 * step conserves, so a balancer that counts its load first (and charges
 * the time of counting) needs no pass of its own. */
guint64 lb_rank_step_load(const LbRank *self);
/* Makes *units (of LbUnit) the rank's units and hands back the old array
 * in its place: a balancer that builds the new set apart needs no copy. */
void lb_rank_swap_units(LbRank *self, GArray **units);

/* Asynchronous send: data is copied; sim_bytes is what the network carries;
 * tag in 0 .. LB_TAG_USER_MAX. */
void lb_send(LbRank *self, int dst, int tag, const void *data, gsize len, double sim_bytes);
/* Blocks until a message from src (or LB_ANY_SOURCE) with this tag (or
 * LB_ANY_TAG) arrives. Messages are matched in arrival order. */
LbMsg *lb_recv(LbRank *self, int src, int tag);
/* As lb_recv, or NULL when nothing matched within timeout simulated
 * seconds; a message that comes later is kept for a later receive. */
LbMsg *lb_recv_timeout(LbRank *self, int src, int tag, double timeout);

/* What a probe saw: the message stays where it is. */
typedef struct {
  int src;
  int tag;
  gsize len;
} LbStatus;

/* Blocks until a matching message is there; status may be NULL. */
void lb_probe(LbRank *self, int src, int tag, LbStatus *status);
/* Whether a matching message has arrived, without blocking or advancing
 * simulated time: poll it between pieces of work, not in an empty loop. */
gboolean lb_iprobe(LbRank *self, int src, int tag, LbStatus *status);

/* Non-blocking receives. Arrivals go to the rank's outstanding requests in
 * posting order before any blocking receive or the stash sees them. */
typedef struct _LbRequest LbRequest;

LbRequest *lb_irecv(LbRank *self, int src, int tag);
/* lb_test and lb_wait hand the message over (the caller owns it) once;
 * the request is freed apart. lb_test: TRUE and *out set if it is there. */
gboolean lb_test(LbRank *self, LbRequest *req, LbMsg **out);
LbMsg *lb_wait(LbRank *self, LbRequest *req);
/* Waits until one of the active requests (not NULL, not waited for yet)
 * has its message and returns its index (the lowest if several have). */
int lb_wait_any(LbRank *self, LbRequest **reqs, guint n, LbMsg **out);
/* Cancels a pending request; a message it got and nobody took is freed. */
void lb_request_free(LbRequest *req);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LbRequest, lb_request_free)

/* Waits until every send this rank started has been delivered. */
void lb_wait_sends(LbRank *self);
/* A balancer that owns the compute (loop scheduling) says which units it
 * has computed, wherever they came from; each adaptation step's check wants
 * every unit computed exactly once. */
void lb_executed(LbRank *self, const LbUnit *units, gsize n);
/* Ends the run with an error (the first one reported wins) once every rank
 * has finished the step: an invariant of the balancer's own that broke. */
void lb_rank_fail(LbRank *self, const char *format, ...) G_GNUC_PRINTF(2, 3);
/* Bytes this rank has sent so far (every message, as the network carries
 * them): what one call cost is the difference around it. */
double lb_rank_sent_bytes(const LbRank *self);
/* The peak speed (flops/s) of a rank's host, as the platform says: what a
 * user knows of the nodes (relative speeds for weighted techniques). */
double lb_rank_host_speed(const LbRank *self, int rank);
/* The ranks next to `rank` on the machine, ascending; returns how many.
 * Two ranks are neighbours when the route between their hosts has at most
 * h links, h the least hop count that leaves the graph connected: one
 * link on a hypercube or a torus; on clusters and fat trees, whose ranks
 * talk through switches, every rank. Made once per run from SimGrid's
 * routes (the route from the lower rank's host to the higher's), p (p - 1)
 * / 2 of them: meant for hundreds or a few thousand ranks. */
guint lb_rank_machine_neighbours(LbRank *self, int rank, const guint **neighbours);
/* Runs flops on the rank's host. */
void lb_execute(LbRank *self, double flops);
/* Inside a balancer's collect: runs flops of this step's application work
 * now, between its exchanges (a V-cycle's operator on one level after the
 * collection it needs). They count as computation, not as the collection's
 * time, and after the collect the core computes only what is left of the
 * rank's work. */
void lb_app_compute(LbRank *self, double flops);
/* Runs flops in slices of slice_flops, calling between_cb (may be NULL)
 * after each slice, the last one included; stops early when it returns
 * FALSE. Returns the flops executed. */
double lb_execute_sliced(LbRank *self, double flops, double slice_flops,
                         gboolean (*between_cb)(LbRank *self, gpointer data), gpointer data);
double lb_now(void);

/* Collectives over all ranks, built from the messages above. */
void lb_barrier(LbRank *self);
void lb_allreduce_sum_u64(LbRank *self, guint64 *values, guint n);
void lb_allreduce_max_double(LbRank *self, double *values, guint n);
void lb_bcast(LbRank *self, int root, void *data, gsize len);
/* all receives ranks * len bytes, rank r's contribution at offset r * len. */
void lb_allgather(LbRank *self, const void *mine, gsize len, void *all);
/* Root's len bytes reach every rank: each gets a new buffer (g_free, never
 * NULL) and *out_len; data and len matter at the root only. */
void *lb_bcastv(LbRank *self, int root, const void *data, gsize len, gsize *out_len);
/* Rank r contributes len_r bytes; returns the concatenation (g_free, never
 * NULL), rank r's bytes at offsets[r] .. offsets[r + 1] - 1 (offsets: ranks
 * + 1 entries). */
void *lb_allgatherv(LbRank *self, const void *mine, gsize len, gsize *offsets);

/* As lb_allgatherv, but the gathered bytes are held once for all ranks:
 * each gets a reference to the same immutable block (g_bytes_unref), after
 * the same simulated messages, each charged the whole block (for large
 * replicated tables, such as a replicated tree's roots). */
GBytes *lb_allgatherv_shared(LbRank *self, const void *mine, gsize len, gsize *offsets);

/* As lb_allgatherv_shared, but the offsets too are held once for all
 * ranks: *offsets points to the ranks + 1 of them, valid while the
 * returned bytes are (no rank copies or reads p lengths of its own, which
 * at thousands of ranks is what a large run spends its time on). */
GBytes *lb_allgatherv_shared_offsets(LbRank *self, const void *mine, gsize len,
                                     const gsize **offsets);

/* As lb_allgather, but the p * len gathered bytes are held once for all
 * ranks (rank r's at offset r * len): each gets a reference to the same
 * immutable block (g_bytes_unref), after the same simulated messages and
 * bytes as lb_allgather's. */
GBytes *lb_allgather_shared(LbRank *self, const void *mine, gsize len);

/* Each rank gives p values, one per rank; rank r gets the sum of every
 * rank's value r (so that each learns, say, how many messages will reach
 * it): recursive halving in log2 p steps when p is a power of two, else
 * an allreduce of the whole vector. */
guint64 lb_reduce_scatter_sum_u64(LbRank *self, const guint64 *values);
/* The same for values given as the n (rank, value) pairs that are not
 * zero (a rank may repeat): the same messages and bytes, without a vector
 * of p values on every rank. */
guint64 lb_reduce_scatter_sum_u64_sparse(LbRank *self, const guint *ranks, const guint64 *values,
                                         guint n);

typedef struct {
  double value;
  int rank;
} LbValueRank;

/* Element-wise minimum (maximum) and the rank that holds it (each rank
 * usually gives its own id); ties go to the lowest rank. */
void lb_allreduce_minloc(LbRank *self, LbValueRank *values, guint n);
void lb_allreduce_maxloc(LbRank *self, LbValueRank *values, guint n);

/* A subset of the ranks running collectives of its own (a strip or a column
 * of a grid, a sub-hypercube). Every member calls lb_group_new with the same
 * sorted members and the same id, and then the group's collectives in the
 * same order; groups that may be active at once need distinct ids. Roots
 * and results are indexed by group rank (the position in members). */
typedef struct _LbGroup LbGroup;

/* Group id 0xffff is the core's (the application's ghost exchange). */
#define LB_GROUP_ID_MAX 0xfffe

LbGroup *lb_group_new(LbRank *self, guint id, const int *members, guint n);
/* As lb_group_new, with the members (ascending ints) in a block the group
 * holds a reference to instead of a copy: one block for all its ranks. */
LbGroup *lb_group_new_shared(LbRank *self, guint id, GBytes *members);
void lb_group_free(LbGroup *group);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LbGroup, lb_group_free)
int lb_group_rank(const LbGroup *group);
int lb_group_size(const LbGroup *group);
void lb_group_barrier(LbGroup *group);
void lb_group_allreduce_sum_u64(LbGroup *group, guint64 *values, guint n);
void lb_group_allreduce_max_double(LbGroup *group, double *values, guint n);
/* Element-wise sums reach root only (group rank; size - 1 messages up a
 * binomial tree); other members' values are left partly summed. */
void lb_group_reduce_sum_u64(LbGroup *group, int root, guint64 *values, guint n);
void lb_group_bcast(LbGroup *group, int root, void *data, gsize len);
void lb_group_allgather(LbGroup *group, const void *mine, gsize len, void *all);
void *lb_group_allgatherv(LbGroup *group, const void *mine, gsize len, gsize *offsets);

/* Phases are indices into the balancer's phase table; counters and
 * simulated time accrue to the current phase. */
void lb_phase_begin(LbRank *self, guint phase);
/* Marks communication round `round` of the current phase as used. The
 * phase's steps count the rounds used; from round 256 on, every round up
 * to the largest used counts (number such rounds densely). */
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

/* A run of units: units[at .. at + n), the first with id `id`. */
typedef struct {
  gsize at, n;
  guint64 id;
} LbUnitSpan;

/* A rank's old set of units, which messages can carry by reference
 * (lb_send_unit_spans) instead of a copy: nobody changes it while one
 * does, and the last holder frees it. */
typedef struct _LbUnitShare LbUnitShare;
/* Takes the rank's units out as a share that the caller holds, and gives
 * the rank `fresh` (emptied; not the rank's own array) to fill in their
 * place. */
LbUnitShare *lb_rank_share_units(LbRank *self, GArray *fresh);
/* The share's units (and their number, if n is not NULL): read only. */
const LbUnit *lb_unit_share_units(const LbUnitShare *share, guint *n);
/* Drops the caller's hold on share. Returns its array for the caller to
 * reuse when nobody else held it; otherwise NULL (a message's holder frees
 * it when done). */
GArray *lb_unit_share_release(LbUnitShare *share);
/* As lb_send_units (no positions; the same network bytes, runs and record)
 * for the spans of a share's units, one after another: the message carries
 * a reference to the share, not a copy, and the receiver reads the units
 * from it. Each span must be a run of consecutive ids from its `id`: the
 * runs are counted from the spans alone, without reading the units (a
 * receiver checks what it places). */
void lb_send_unit_spans(LbRank *self, int dst, int tag, guint round, LbUnitShare *share,
                        const LbUnitSpan *spans, guint n_spans);
/* Receives what lb_send_unit_spans sent: *units is the sender's array and
 * *spans the runs of it sent, to read until the returned message is freed
 * (which drops its reference). */
LbMsg *lb_recv_unit_spans(LbRank *self, int src, int tag, const LbUnit **units,
                          const LbUnitSpan **spans, guint *n_spans);

/* Whether the run records every transfer's units (--detail). */
gboolean lb_rank_records_transfers(const LbRank *self);
/* As lb_send_units_word for n units that the message carries by reference
 * in `ref`, a structure of the sender's that nobody changes any more,
 * instead of a copy: drop(ref) runs if the message is freed before its
 * receiver took ref. The network's bytes, the record and the counters are
 * lb_send_units_word's, from the caller's figures for the units in the
 * order sent: runs of consecutive ids, and bytes as lb_work_bytes gives
 * them. units (the n units in that order) is read only when
 * lb_rank_records_transfers, and may be NULL otherwise. */
void lb_send_units_ref(LbRank *self, int dst, int tag, guint round, gpointer ref,
                       GDestroyNotify drop, guint n, guint runs, double bytes, guint32 word,
                       const LbUnit *units);
/* Receives what lb_send_units_ref sent: returns its ref, which the caller
 * now holds, and the sender's word. */
gpointer lb_recv_units_ref(LbRank *self, int src, int tag, guint32 *word);

/* As lb_send_units and lb_recv_units, with a word of the sender's for the
 * receiver (a flag, a count) in the header that every unit message
 * carries anyway. */
void lb_send_units_word(LbRank *self, int dst, int tag, guint round, const LbUnit *units, guint n,
                        const guint64 *positions, guint32 word);
guint lb_recv_units_word(LbRank *self, int src, int tag, GArray *into, GArray *positions,
                         guint32 *word);
/* As lb_send_units and lb_recv_units, with extra_len bytes of the sender's
 * after the units (a header of the balancer's own, billed as the bytes it
 * adds); the receiver names the length it expects. */
void lb_send_units_extra(LbRank *self, int dst, int tag, guint round, const LbUnit *units, guint n,
                         const guint64 *positions, const void *extra, gsize extra_len);
guint lb_recv_units_extra(LbRank *self, int src, int tag, GArray *into, GArray *positions,
                          void *extra, gsize extra_len);

/* Adds a value to one of the balancer's declared metrics (an index into its
 * metric table) for the current adaptation step; ranks' values combine as
 * the table says. */
void lb_metric_record(LbRank *self, guint metric, double value);

/* The application's neighbour graph, when a balancer builds one (the task
 * dependence graph of a partition into boxes): after this rank's balancing,
 * its ghost exchange goes to these ranks, each getting faces (cell faces the
 * two share) x ghost-depth x bytes-per-unit. A balancer that sets none
 * leaves the application to find the ranks whose cells touch its own. Runs
 * with --detail check the graph against the cells' adjacency. */
typedef struct {
  guint rank;
  guint64 faces;
} LbNeighbour;

void lb_rank_set_neighbours(LbRank *self, const LbNeighbour *neighbours, guint n);

/* Records a move or split of the current adaptation step for --detail
 * (one rank records each: the decisions are everyone's). */
void lb_record_event(LbRank *self, LbEventKind kind, guint64 unit, guint64 piece, guint from,
                     guint to, guint64 load);

/* A note for `lbsim explain` (kept only when narration is on). The story
 * of a step is told stage by stage, each stage's phases in the order they
 * first spoke, each phase's lines rank by rank (a rank's own in the order
 * it said them). */
void lb_narrate(LbRank *self, const char *format, ...) G_GNUC_PRINTF(2, 3);
/* Lines narrated and units sent from now on, until the step ends, belong
 * to this stage ("y axis": a part of the step that phases come back in):
 * explain tells the stages in turn and numbers a schedule's steps within
 * each stage's phases. Every step starts at stage 0; every rank gives a
 * stage the same name. */
void lb_narrate_stage(LbRank *self, guint stage, const char *name);
/* A chunk of iterations [first, first + count) of owner's data, units[0
 * .. count), that this rank computed from `began` until now (kept, with
 * the units' summed load, only when the caller asks: the pictures of who
 * computed what, when). */
void lb_rank_note_chunk(LbRank *self, guint owner, guint64 first, const LbUnit *units,
                        guint64 count, double began);
/* The step of the current phase that this rank's lines and messages
 * belong to from now on, for the frames of `lbsim explain --html`
 * (lb_phase_round sets it too; a phase starts at step 0). */
void lb_narrate_step(LbRank *self, guint step);
/* What the next message this rank sends carries, in words ("load 27", "a
 * piece and its loan"), for the arrows of `lbsim explain --html`; kept
 * only when narration is on. */
void lb_narrate_label(LbRank *self, const char *format, ...) G_GNUC_PRINTF(2, 3);
/* The same for every message it sends until its next lb_phase_begin (a
 * collective's), where lb_narrate_label says nothing for one. */
void lb_narrate_labels(LbRank *self, const char *format, ...) G_GNUC_PRINTF(2, 3);
/* The load the units this rank keeps gain (or lose) with the next message
 * it sends: a grid split to send a piece keeps its ghost zones, so the two
 * halves weigh more than the whole. Kept only when narration is on. */
void lb_narrate_resize(LbRank *self, gint64 delta);
/* Whether narration is kept: skip preparing what only lb_narrate uses. */
gboolean lb_rank_narrating(const LbRank *self);

/* Bytes a unit message carries besides the units: tags, counts, offsets. */
#define LB_HEADER_BYTES 32.0

G_END_DECLS
