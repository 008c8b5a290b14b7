/* A partition of a field by a hierarchy of straight cuts (the partition
 * family of Load Balancing by Dimension and of MLB over successive axes):
 * along the first level's axis across the whole domain (slabs), then along
 * the next axis inside each slab (its own cuts), and in 3D along the last
 * inside each of those. Every rank keeps the whole hierarchy: its own
 * piece's cuts as they move, the others' as of the last gather. Rank r
 * sits at grid coordinate (r / stride[a]) % procs[a] along axis a. */
#pragma once

#include "balancers/cuts/lbd-plan.h"
#include "lbsim/rank.h"

G_BEGIN_DECLS

/* The rows of a whole hierarchy (level l: a row of parts[l] + 1 cuts per
 * piece above it), immutable once made: ranks that know the same
 * hierarchy (the even cuts of an order, or what an allgather brought them
 * all) share one, and keep their own pieces' rows apart. */
typedef struct _LbCutTable LbCutTable;

typedef struct {
  guint dim;
  guint order[3];    /* the axis of each level */
  guint64 parts[3];  /* slabs per level: the processor grid along its axis */
  guint64 extent[3]; /* cells along each axis */
  LbCutTable *table; /* every piece's rows as this rank last learnt them */
  guint64 *own[3];   /* the rows of my pieces (one per level), as they move */
  gsize own_index[3];
  guint ranks;
  guint64 procs[3], stride[3]; /* processor grid, rank = sum of coord x stride */
  int me;
  /* a view of the hierarchy before one row moved: that row's old cuts */
  int alt_level;
  gsize alt_index;
  const guint64 *alt_row;
  LbUnitShare *sent;     /* the units the last move sent from (its messages read them) */
  GArray *spans;         /* repartition's scratch: the spans of a box sent (LbUnitSpan) */
  GArray *peers;         /* and the ranks it sends to, then receives from (guint) */
  gboolean order_chosen; /* lbd: the order of the levels was chosen at a step */
} LbCuts;

/* Balancers of this family run a group per slab and strip, and group ids
 * are 16-bit: at most this many ranks. */
#define LB_CUTS_MAX_RANKS 60000

/* The processor grid's even blocks, the levels along axes 0, 1, 2. With
 * last_fastest, ranks are numbered with the last axis fastest (a slab is
 * a run of consecutive ranks), else with the first axis fastest (the
 * model's own numbering). Checks that the rank's units are its block. */
LbCuts *lb_cuts_new(LbRank *self, gboolean last_fastest);
void lb_cuts_free(gpointer cuts);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LbCuts, lb_cuts_free)
/* A copy (to remember the boxes cells move from). */
LbCuts *lb_cuts_copy(const LbCuts *s);

/* Grid coordinate of rank r along axis a. */
guint64 lb_cuts_coord(const LbCuts *s, guint r, guint a);
/* The index of the piece of level l that rank r is in (levels above l). */
gsize lb_cuts_piece(const LbCuts *s, guint r, guint l);
/* Level l's row of parts[l] + 1 cuts in piece `index`: write only to the
 * rows of the rank's own pieces. */
guint64 *lb_cuts_row(const LbCuts *s, guint l, gsize index);
/* New axes for the levels, with even cuts. */
void lb_cuts_set_order(LbCuts *s, const guint *order);
LbdBox lb_cuts_box(const LbCuts *s, guint r);
/* The members of my piece of level l (ranks that share the coordinates of
 * the levels above), ascending. */
int *lb_cuts_piece_members(const LbCuts *s, guint l, guint *n);

/* Adds my cells' loads, by their coordinate c along `axis`, into
 * profile[c - base]: the cells are my box's, the first axis fastest (the
 * order every move of this family leaves them in). */
void lb_cuts_add_profile(const LbCuts *s, const GArray *units, guint axis, guint64 base,
                         guint64 *profile);

/* For narration: the piece of level l this rank is in, "the whole domain"
 * at level 0, else its range along the axes of the levels above ("inside
 * x in [4, 9)"). */
char *lb_cuts_describe_piece(const LbCuts *s, guint l);

/* Moves cells from the boxes of `old` to those of s, inside the piece of
 * level `from` that holds this rank: straight from each old box to each new
 * box it meets, one message per pair, in round `round`. When the rank's
 * box changed and `load` is not NULL, *load is set to the sum of the loads
 * of the cells it holds now, added up as they were put in place; a box
 * that stayed moves nothing and leaves *load as it was. */
void lb_cuts_repartition(LbRank *self, LbCuts *s, const LbCuts *old, guint from, int tag,
                         guint round, guint64 *load);
/* Every rank learns every piece's cuts: an allgather of each rank's lower
 * cut at every level below the first (whose cuts all ranks must already
 * share). */
void lb_cuts_gather(LbRank *self, LbCuts *s);
/* Sets the application's neighbour graph from the gathered cuts (in 2D
 * BUILD_UNDIRECTED_TDG); returns the number of neighbours. */
guint lb_cuts_build_graph(LbRank *self, const LbCuts *s);

G_END_DECLS
