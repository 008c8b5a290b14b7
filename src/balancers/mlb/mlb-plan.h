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

/* Phase 3 communication rounds: the paper's per-level structure performs
 * l exchanges at tree level l (one per edge of the level's subcube):
 * d(d+1)/2 in all; "finest" computes only the last level: d. */
guint mlb_phase3_rounds(guint d, gboolean levels);

G_END_DECLS
