/* MLB's message protocol inside a group of ranks, for the balancers that
 * run it: `mlb` on every rank over the units, `mlb-nd` inside strips over
 * the sums of slices. */
#pragma once

#include "balancers/mlb/mlb-plan.h"
#include "lbsim/rank.h"

G_BEGIN_DECLS

/* Phase 4 moves a group's elements with these: the items go to (come from)
 * a rank with a tag; positions are sent too when asked (the midpoint rule). */
/* Phase 4's piece, and with the loan rule its loan in the same message
 * (loan NULL: none). */
typedef void (*MlbSendItems)(LbRank *self, int dst, int tag, guint round, const MlbItem *items,
                             guint n, gboolean positions, const MlbLoan *loan);
typedef void (*MlbRecvItems)(LbRank *self, int src, int tag, GArray *into, gboolean positions,
                             MlbLoan *loan);

/* Phase 4's rule: lbsim's per-end loan, the midpoint of each element, or
 * the paper's single loan variable read literally (which may break array
 * order). */
typedef enum { MLB_PHASE4_LOAN, MLB_PHASE4_MIDPOINT, MLB_PHASE4_LITERAL } MlbPhase4;

typedef struct {
  guint d, r;         /* the group is a hypercube of 2^d; my index in it */
  const int *members; /* index -> rank, NULL when the group is every rank */
  int tag_base;       /* added to MLB's tags (below 1 << 20 of them) */
  guint phases[4];    /* the caller's phase of accumulate, desired, amounts, migrate */
  MlbDesired mode;    /* `desired` */
  MlbPhase3 phase3;   /* `phase3` */
  MlbPhase4 phase4;   /* `phase4` */
  MlbSendItems send_items;
  MlbRecvItems recv_items;
} MlbGroup;

/* MLB's parameters, shared by every balancer that runs the protocol. */
extern const LbParamSpec mlb_params[];
/* Reads desired, phase3 and phase4 into g. */
void mlb_group_options(MlbGroup *g, const LbParams *params);

/* The four phases in the group on my index's elements: items (MlbItem,
 * sorted by id) are the group's order's contiguous piece at my index,
 * every index in turn. The caller has begun its phase of accumulate (to
 * count the work that made the loads). Returns the items I hold at the end (items is
 * consumed): my index's piece of the balanced order. */
GArray *mlb_group_run(LbRank *self, const MlbGroup *g, GArray *items);

guint mlb_log2(guint p);

G_END_DECLS
