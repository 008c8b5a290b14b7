/* The arithmetic of space-filling-curve partitions with segment shifting
 * (F. Baiardi, S. Chiti, P. Mori, L. Ricci, "Integrating load balancing and
 * locality in the parallelization of irregular problems", Future
 * Generation Computer Systems 17, 2001, section 3), free of messaging. The
 * curve's sequence of hnodes is cut into segments, P_k holds the k-th;
 * loads are integers. */
#pragma once

#include <glib.h>

#include "geometry/curve.h"

G_BEGIN_DECLS

/* The blocking strategy: cuts the sequence loads[0..n) into `parts`
 * segments of consecutive elements, cut k at the element boundary whose
 * prefix load is nearest to k / parts of the total (ties to the earlier
 * boundary, never before cut k - 1). cuts has parts + 1 entries: cuts[0] =
 * 0, cuts[parts] = n; segment k is [cuts[k], cuts[k + 1]). */
void sfc_block(const guint64 *loads, gsize n, guint parts, gsize *cuts);

/* max_unbalance: the largest |L_i - average| over the p loads. */
double sfc_max_unbalance(const guint64 *loads, guint p);

/* Unb(Pre_b) for every boundary b = 0 .. p: the global unbalance of
 * P_0 .. P_{b-1}, sum of L_j - average over them (flow[0] = 0, flow[p] is 0
 * up to rounding). Positive: the processes before b are overloaded and
 * load should cross boundary b to the right; Unb(Suc_{b-1}) = -flow[b]. */
void sfc_flows(const guint64 *loads, guint p, double *flow);

/* The number of leading elements of loads[0..n) whose total is nearest to
 * target (ties: fewer). */
gsize sfc_prefix_nearest(const guint64 *loads, gsize n, double target);
/* The number of trailing elements whose total is nearest to target. */
gsize sfc_suffix_nearest(const guint64 *loads, gsize n, double target);

/* What one end of a boundary still has to do in a shift. */
typedef struct {
  double amount; /* load still to send (> 0) across it, or 0 */
  gboolean open; /* the boundary still exchanges a message every round */
} SfcEnd;

/* One rank's part of one round of a shift: with its sequence loads[0..n)
 * and the amounts still to send to the left and to the right, the segment
 * [0, *n_left) goes to P_{i-1} and [n - *n_right, n) to P_{i+1}, each the
 * piece nearest to its amount (the left piece first, the right one from
 * what is left). Amounts go down by what is sent. An end stays open while
 * what it sent was all the load the rank had (hnodes of no load may stay)
 * and fell short of the amount, and more can still come in over the other
 * boundary (inflow_left: the left boundary still brings load;
 * inflow_right likewise). Each boundary thus ends at the hnode boundary
 * of the whole sequence nearest to its amount, among those it can
 * reach. */
void sfc_round(const guint64 *loads, gsize n, SfcEnd *left, SfcEnd *right, gboolean inflow_left,
               gboolean inflow_right, gsize *n_left, gsize *n_right);

/* A sequence of n loads seen through its prefix sums: prefix(seq, i) is
 * the load of elements [0, i), for i <= n. */
typedef struct {
  guint64 (*prefix)(gconstpointer seq, gsize i);
  gconstpointer seq;
  gsize n;
} SfcLoads;

/* sfc_round on a sequence held in pieces (a rank's own hnodes and those
 * passing through it, by reference): the same decisions, in time
 * logarithmic in n. The total load must be below 2^53. */
void sfc_round_loads(const SfcLoads *loads, SfcEnd *left, SfcEnd *right, gboolean inflow_left,
                     gboolean inflow_right, gsize *n_left, gsize *n_right);

/* A whole shift, simulated without messages (for tests and teaching):
 * seqs[i] holds P_i's loads (guint64) in curve order; threshold T. Every
 * boundary whose |Unb(Pre_b)| exceeds T moves load, in rounds: in each
 * round every rank sends what sfc_round says and receives what its
 * neighbours send, which it can pass on from the next round on. Returns
 * the rounds taken (0 when nothing moved); the sequences end as the
 * ranks' new segments. moved (may be NULL) counts the elements sent,
 * every hop counted. */
guint sfc_shift(GPtrArray *seqs, double threshold, guint64 *moved);

/* The key of an hnode (its htree location code) in the curve's sequence:
 * the curve position of its first cell in the order-`order` curve, then
 * its level. A parent's key is just before its sub-spaces', and a subtree
 * is one run of keys. */
static inline guint64
sfc_key(LbCurveKind curve, guint dim, guint order, guint64 id)
{
  /* A location code is a 1 bit above the level's Morton position of the
   * hnode (lb_htree_id): read as it is, without decoding its coordinates.
   * The cube's first cell is its position in the level's own curve
   * followed by zeros, coarser curves being prefixes of finer ones. Inline,
   * with the 2D Hilbert curve's table read here: a run computes some 10^8
   * keys. */
  g_assert(id > 0);
  guint top = 63 - (guint)__builtin_clzll(id), level = top / dim;
  g_assert(level <= order);
  guint64 morton = id ^ (guint64)1 << top;
  guint64 position = curve == LB_CURVE_HILBERT && dim == 2
                         ? lb_curve_hilbert2_of_morton(level, morton)
                         : lb_curve_index_of_morton(curve, dim, level, morton);
  /* levels <= 24 take 5 bits; the curve positions of a 2^order grid take
   * dim x order <= 48 */
  return position << (dim * (order - level)) << 5 | level;
}

/* The rank whose segment holds key, from where every rank's segment
 * starts (ascending; an empty rank has the next rank's start), or -1
 * before the first. */
int sfc_owner(const guint64 *starts, guint p, guint64 key);

/* Whether the region of hnode a holds that of hnode b (a is b or one of
 * its ancestors). */
gboolean sfc_region_holds(guint dim, guint64 a, guint64 b);

G_END_DECLS
