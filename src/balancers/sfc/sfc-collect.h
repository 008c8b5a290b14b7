/* The application's collection of remote data on an SFC partition of an
 * H-tree: request/answer, fault prevention and informed fault prevention
 * (collect.c). */
#pragma once

#include <glib.h>

#include "geometry/curve.h"
#include "lbsim/rank.h"

G_BEGIN_DECLS

/* An hnode of a rank's segment. */
typedef struct {
  guint64 key, id, load;
} SfcHnode;

typedef enum {
  SFC_REQUEST_ANSWER,
  SFC_FAULT_PREVENTION,
  SFC_INFORMED,       /* the seed's: depths announced when they change, owners push */
  SFC_INFORMED_NEEDS, /* lbsim's: every step each rank sends the squares it needs */
  SFC_NO_COLLECTION,
} SfcStrategy;

/* What informed fault prevention remembers from one step to the next: the
 * boundary hnodes this rank announced to each owner, and those each rank
 * announced to it. */
typedef struct _SfcInformed SfcInformed;

SfcInformed *sfc_informed_new(void);
void sfc_informed_free(SfcInformed *informed);

/* What a rank knows when it collects: its segment and the replicated
 * tree's segment starts. */
typedef struct {
  LbCurveKind curve;
  guint dim, order, p;
  int me;
  const GArray *seq;     /* SfcHnode, ascending keys */
  const guint64 *starts; /* per rank, ascending (an empty rank: the next one's) */
  gboolean last_is_leaf; /* my last hnode has no sub-spaces (the replicated tree says) */
  guint merge, ra_batch; /* hnodes per pushed message, requests per request message */
  guint operators;       /* collections per step (the operators of a V-cycle) */
  /* fault prevention and informed: every collection ends with np - 1
   * synchronisation messages from every rank (section 5.3); FALSE: a
   * reduce-scatter of message counts (fault prevention) or every square
   * covered (informed), lbsim's */
  gboolean sync_messages;
  /* a collection per operator and level, each followed by that level's
   * computation (section 5.2's I_h(op, l)), the levels 0 .. deepest;
   * FALSE: one per operator for every level, the core computes after */
  gboolean by_level;
  guint deepest;         /* the deepest level of any hnode this step (by_level) */
  double flops_per_load; /* the application's flops per unit of an hnode's load */
  double bytes_per_hnode;
  SfcInformed *informed; /* SFC_INFORMED: what earlier steps announced */
  gboolean rebalanced;   /* the balancing procedure ran this step (every rank knows it) */
} SfcView;

/* One rank's figures of one collection. */
typedef struct {
  guint64 control_messages; /* requests, depth lists or announcements of depths */
  guint64 announced;        /* hnodes whose depth an announcement carried (SFC_INFORMED) */
  guint64 data_messages;    /* answers and pushes */
  guint64 hnodes_sent;
  guint64 needed;        /* remote squares this rank needed */
  guint64 received;      /* hnodes it received */
  guint64 useless;       /* distinct received hnodes that covered none of its squares */
  guint64 phases;        /* collections: an operator's, or an operator's on one level */
  guint64 sync_messages; /* the synchronisation messages that ended them */
} SfcCollected;

void sfc_collect_run(LbRank *self, const SfcView *view, SfcStrategy strategy, SfcCollected *out);

G_END_DECLS
