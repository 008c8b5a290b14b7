/* The arithmetic of Multilevel Load Balancing, free of messaging so that it
 * can be tested alone and shared by the rank code and `lbsim explain`.
 *
 * Positions are keys (load, count) compared lexicographically: the load
 * prefix first, the element count as a tie-break. Every element then has a
 * positive extent, so a zero-load element is never invisible to the
 * schedule, and unit loads give load and count cuts that coincide. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint64 load;
  guint64 count;
} MlbKey;

typedef struct {
  MlbKey lo, hi; /* half-open, lo < hi */
} MlbSpan;

/* An element as phase 4 moves it: its id is its count position. */
typedef struct {
  guint64 id;
  guint64 load;
  guint64 pos; /* load prefix of the whole array before this element */
} MlbItem;

typedef enum {
  MLB_DESIRED_HALVING,
  MLB_DESIRED_EVEN,
} MlbDesired;

static inline int
mlb_key_cmp(MlbKey a, MlbKey b)
{
  if (a.load != b.load)
    return a.load < b.load ? -1 : 1;
  if (a.count != b.count)
    return a.count < b.count ? -1 : 1;
  return 0;
}

static inline MlbKey
mlb_key_add(MlbKey a, MlbKey b)
{
  return (MlbKey){a.load + b.load, a.count + b.count};
}

static inline MlbKey
mlb_key_sub(MlbKey a, MlbKey b)
{
  return (MlbKey){a.load - b.load, a.count - b.count};
}

static inline gboolean
mlb_key_is_zero(MlbKey a)
{
  return a.load == 0 && a.count == 0;
}

/* Rank r's Gray code: the hypercube node it sits on. */
static inline guint
mlb_gray(guint r)
{
  return r ^ (r >> 1);
}

/* The neighbour along the k-edge: Gray codes differ in bit k, ranks are
 * mirror images inside their block of 2^(k+1). */
static inline guint
mlb_partner(guint r, guint edge)
{
  return r ^ ((2u << edge) - 1u);
}

/* Whether r is in the first half of its block of 2^(edge+1) ranks. */
static inline gboolean
mlb_in_left_half(guint r, guint edge)
{
  return ((r >> edge) & 1u) == 0;
}

/* Sum of the desired loads of ranks 0 .. j-1 (j = 0 .. 2^d). Halving gives
 * the first child the remainder at every level of the tree. */
guint64 mlb_desired_prefix(guint64 total, guint d, guint j, MlbDesired mode);
MlbKey mlb_desired_key(MlbKey total, guint d, guint j, MlbDesired mode);

/* The cut between the halves of r's block of 2^(edge+1) ranks. */
MlbKey mlb_split_key(MlbKey total, guint d, guint r, guint edge, MlbDesired mode);

/* Moves the parts of `held` (sorted spans) that lie on the far side of
 * `split` into `moved`; keep_left keeps what lies before it. */
void mlb_spans_take(GArray *held, MlbKey split, gboolean keep_left, GArray *moved);
/* Adds sorted, disjoint spans to `held`, merging neighbours. */
void mlb_spans_add(GArray *held, const MlbSpan *spans, guint n);
MlbKey mlb_spans_measure(const MlbSpan *spans, guint n);

/* Whether an element belongs before the cut: its midpoint, in key space,
 * lies before it. Doubling keeps the arithmetic in integers. */
static inline gboolean
mlb_item_before(const MlbItem *item, MlbKey split)
{
  MlbKey mid2 = {2 * item->pos + item->load, 2 * item->id + 1};
  MlbKey cut2 = {2 * split.load, 2 * split.count};
  return mlb_key_cmp(mid2, cut2) < 0;
}

/* Index in items (sorted by id) of the first element after the cut. */
guint mlb_items_cut(const MlbItem *items, guint n, MlbKey split);

/* Rank that finally owns an element under the midpoint rule: the answer the
 * distributed schedule must reproduce. */
guint mlb_owner(MlbKey total, guint d, MlbDesired mode, const MlbItem *item);

/* Phase 3 level by level (section 3.3). A piece is a span of keys that
 * started on one block of the level (its origin) with the key where that
 * block's two halves meet: what the next finer level needs to know to tell
 * which half the keys started on. */
typedef struct {
  MlbSpan span;
  guint origin; /* first rank of the block the keys started on */
  MlbKey split; /* where the origin's halves meet, once known */
} MlbPiece;

#define MLB_MAX_D 32

/* One node of a tree level: the block of 2^k ranks that holds rank r, the
 * pieces it sends and receives along edges k .. d-1, in key order, one
 * piece per origin, and the pieces it holds at the current point of the
 * level. k = d is the root, which exchanges nothing. */
typedef struct {
  guint d, k, r;
  GArray *sent[MLB_MAX_D], *received[MLB_MAX_D]; /* MlbPiece */
  GArray *held;                                  /* MlbPiece */
} MlbLevel;

void mlb_level_init(MlbLevel *level, guint d, guint k, guint r);
void mlb_level_clear(MlbLevel *level);

/* The schedule of r's half of `node` (a block of 2^(k-1) ranks), edge by
 * edge, from the node's schedule: mlb_level_begin with the keys the half
 * started with, mlb_level_cross along each of the node's edges, coarsest
 * first (the node's pieces received along it must carry their splits),
 * then mlb_level_sibling, which puts in half->sent[k-1] what the half sends
 * its sibling along the new edge, and mlb_level_take_sibling with what the
 * sibling sends it. Along the node's edges the half sends what it holds
 * beyond the cut, and of what the node receives along edge e it gets the
 * keys whose origin o (first rank of their block of 2^(k-1)) has
 * o_(k-1) ^ o_e ^ r_e = r_(k-1): after edge e a key's holder has the bits
 * >= e of the rank it ends on and the lower bits of the rank it started on,
 * all flipped when bit e of the two differ (crossing edge j flips bits
 * 0 .. j). */
void mlb_level_begin(MlbLevel *half, const MlbLevel *node, guint r, MlbKey lo, MlbKey hi);
void mlb_level_cross(MlbLevel *half, const MlbLevel *node, guint e, MlbKey total, MlbDesired mode);
void mlb_level_sibling(MlbLevel *half, MlbKey total, MlbDesired mode);
void mlb_level_take_sibling(MlbLevel *half, const MlbPiece *pieces, guint n, MlbKey total,
                            MlbDesired mode);

/* Both halves at once, so that the new edge needs no message: the keys the
 * node's halves started with are [halves[0], halves[1]) and [halves[1],
 * halves[2]). Checks that the halves together send what the node sent. */
void mlb_level_refine(const MlbLevel *node, MlbKey total, MlbDesired mode, const MlbKey halves[3],
                      MlbLevel *half);

/* The split of the block a piece that `level` sends along edge e started
 * on: own_split if it is the level's own block, else the split that came
 * with the piece along a coarser edge. */
MlbKey mlb_level_split_of(const MlbLevel *level, guint e, const MlbPiece *piece, MlbKey own_split);

/* Phase 3 communication rounds. "levels": level l communicates along each
 * of its l edges, 1 + 2 + ... + d = d(d+1)/2 (section 3.3): along the edges
 * it shares with level l-1, the splits of the blocks whose keys crossed
 * them at level l-1; along the new edge, what the sibling sends. "local":
 * the same without the new edge, which a block computes by following its
 * sibling's keys too, d(d-1)/2 (section 4). "finest": the finest level
 * from scratch, d. A round that no rank needs is skipped. */
typedef enum {
  MLB_PHASE3_LEVELS,
  MLB_PHASE3_LOCAL,
  MLB_PHASE3_FINEST,
} MlbPhase3;

guint mlb_phase3_rounds(guint d, MlbPhase3 mode);

/* Phase 4's loan (section 3.4): a signed difference of keys. A rank keeps
 * one for each end of what it holds: the keys it holds beyond (or short of)
 * the divisible schedule next to the cut at its left end and at its right
 * end. A loan taken at one end is repaid by sends from that end only; one
 * variable for both ends breaks contiguity (README). */
typedef struct {
  gint64 load, count;
} MlbLoan;

typedef struct {
  MlbLoan low, high;
} MlbLoans;

/* Signed comparison of |a| and |b| as keys (load first). */
int mlb_loan_cmp_abs(MlbLoan a, MlbLoan b);

/* How many elements from the end of items (sorted by id) that faces the
 * partner (the last ones when toward_high) weigh, as a key, as close as
 * possible to target: at least 0 and at most n, whatever the target. */
guint mlb_loan_pick(const MlbItem *items, guint n, gboolean toward_high, MlbLoan target);

/* Sends along one edge: the piece closest to amount plus the loan at the
 * end facing the partner. That loan goes with the piece (*handed, for the
 * receiver) and the difference between aim and piece becomes the new loan
 * at that end. *aim (may be NULL) is what the rank aimed at. */
guint mlb_loan_send(MlbLoans *loans, gboolean toward_high, MlbKey amount, const MlbItem *items,
                    guint n, MlbLoan *handed, MlbLoan *aim);

/* Receives along one edge: what came short or over the expected amount,
 * less the loan the sender handed over, is at the end facing the cut (the
 * high end when the sender is on the high side); the handed loan is at the
 * far end. */
void mlb_loan_receive(MlbLoans *loans, gboolean from_high, MlbKey expected, MlbKey got,
                      MlbLoan handed);

/* A block of 2^k consecutive ranks from `first` (a multiple of 2^k) is a
 * sub-hypercube under gray placement: its ranks' nodes share their high
 * bits, and the low k bits of rank first + i's node are gray(i), with the
 * top one flipped when bit k of first is set. Its leader is the rank on
 * the node whose low bits are 0 (node 0 of the block), so that the leaders
 * of blocks that are MLB partners are hypercube neighbours too. */
typedef struct {
  guint first, k, flip;
} MlbBlock;

MlbBlock mlb_block_of(guint first, guint size);
/* The node (low k bits) of a rank of the block, and the rank on a node. */
guint mlb_block_node(const MlbBlock *b, guint rank);
guint mlb_block_rank(const MlbBlock *b, guint node);

G_END_DECLS
