/* The arithmetic of MLB: Gray codes and edges, desired loads, spans, the
 * midpoint rule, phase 3 level by level and phase 4's loans, checked by hand
 * and against direct constructions. */
#include <glib.h>
#include <string.h>

#include "balancers/mlb/mlb-plan.h"

static void
test_gray_edges(void)
{
  g_assert_cmpuint(mlb_gray(0), ==, 0);
  g_assert_cmpuint(mlb_gray(1), ==, 1);
  g_assert_cmpuint(mlb_gray(2), ==, 3);
  g_assert_cmpuint(mlb_gray(3), ==, 2);
  for (guint d = 1; d <= 12; d++) {
    guint p = 1u << d;
    g_autofree gboolean *seen = g_new0(gboolean, p);
    for (guint r = 0; r < p; r++) {
      g_assert_false(seen[mlb_gray(r)]); /* a bijection onto the cube */
      seen[mlb_gray(r)] = TRUE;
      if (r + 1 < p) /* successive ranks are hypercube neighbours */
        g_assert_cmpuint(__builtin_popcount(mlb_gray(r) ^ mlb_gray(r + 1)), ==, 1);
      for (guint e = 0; e < d; e++) {
        guint q = mlb_partner(r, e);
        g_assert_cmpuint(q, <, p);
        g_assert_cmpuint(mlb_partner(q, e), ==, r);
        g_assert_cmpuint(mlb_gray(r) ^ mlb_gray(q), ==, 1u << e); /* the e-edge */
        g_assert_cmpuint(r >> (e + 1), ==, q >> (e + 1));         /* same 2^(e+1) block */
        g_assert_true(mlb_in_left_half(r, e) != mlb_in_left_half(q, e));
        guint offset = r & ((2u << e) - 1);
        g_assert_cmpuint(q & ((2u << e) - 1), ==, (2u << e) - 1 - offset); /* mirror */
      }
    }
  }
}

/* Desired loads built the way the paper describes: a tree, halving down. */
static void
desired_tree(guint64 total, guint d, guint64 *leaves, guint first)
{
  if (d == 0) {
    leaves[first] = total;
    return;
  }
  desired_tree(total - total / 2, d - 1, leaves, first);
  desired_tree(total / 2, d - 1, leaves, first + (1u << (d - 1)));
}

static void
test_desired(void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed(11);
  for (guint trial = 0; trial < 300; trial++) {
    guint d = (guint)g_rand_int_range(rand, 0, 11);
    guint p = 1u << d;
    guint64 total = trial < 20 ? trial : (guint64)g_rand_int(rand) * (trial % 3 + 1);
    g_autofree guint64 *leaves = g_new0(guint64, p);
    desired_tree(total, d, leaves, 0);
    guint64 prefix = 0;
    for (guint j = 0; j < p; j++) {
      g_assert_cmpuint(mlb_desired_prefix(total, d, j, MLB_DESIRED_HALVING), ==, prefix);
      g_assert_true(leaves[j] == total / p || leaves[j] == (total + p - 1) / p);
      guint64 even = mlb_desired_prefix(total, d, j + 1, MLB_DESIRED_EVEN) -
                     mlb_desired_prefix(total, d, j, MLB_DESIRED_EVEN);
      g_assert_cmpuint(even, ==, total / p + (j < total % p));
      prefix += leaves[j];
    }
    g_assert_cmpuint(prefix, ==, total);
    g_assert_cmpuint(mlb_desired_prefix(total, d, p, MLB_DESIRED_HALVING), ==, total);
    g_assert_cmpuint(mlb_desired_prefix(total, d, p, MLB_DESIRED_EVEN), ==, total);
  }
}

static MlbSpan
span(guint64 a, guint64 b)
{
  return (MlbSpan){{a, a}, {b, b}};
}

static void
test_spans(void)
{
  g_autoptr(GArray) held = g_array_new(FALSE, FALSE, sizeof(MlbSpan));
  g_autoptr(GArray) moved = g_array_new(FALSE, FALSE, sizeof(MlbSpan));
  MlbSpan in[] = {span(0, 10), span(20, 30)};
  mlb_spans_add(held, in, 2);
  mlb_spans_take(held, (MlbKey){25, 25}, TRUE, moved);
  g_assert_cmpuint(held->len, ==, 2);
  g_assert_cmpuint(moved->len, ==, 1);
  g_assert_cmpuint(g_array_index(moved, MlbSpan, 0).lo.load, ==, 25);
  g_assert_cmpuint(mlb_spans_measure((MlbSpan *)moved->data, moved->len).load, ==, 5);
  /* Adding back what was taken merges into the original span. */
  mlb_spans_add(held, (MlbSpan *)moved->data, moved->len);
  g_assert_cmpuint(held->len, ==, 2);
  g_assert_cmpuint(g_array_index(held, MlbSpan, 1).hi.load, ==, 30);
  MlbSpan gap = span(10, 20);
  mlb_spans_add(held, &gap, 1);
  g_assert_cmpuint(held->len, ==, 1);
  g_assert_cmpuint(mlb_spans_measure((MlbSpan *)held->data, 1).count, ==, 30);
  /* Keep the right side: the part before the cut moves. */
  g_array_set_size(moved, 0);
  mlb_spans_take(held, (MlbKey){7, 7}, FALSE, moved);
  g_assert_cmpuint(g_array_index(moved, MlbSpan, 0).hi.load, ==, 7);
  g_assert_cmpuint(g_array_index(held, MlbSpan, 0).lo.load, ==, 7);
  /* Keys compare the load first, the count second. */
  g_assert_cmpint(mlb_key_cmp((MlbKey){5, 9}, (MlbKey){6, 0}), <, 0);
  g_assert_cmpint(mlb_key_cmp((MlbKey){5, 9}, (MlbKey){5, 10}), <, 0);
}

static void
test_midpoint_rule(void)
{
  /* loads 4 0 0 6: positions 0 4 4 4, total (10, 4) */
  MlbItem items[] = {{0, 4, 0}, {1, 0, 4}, {2, 0, 4}, {3, 6, 4}};
  /* cut at (5, 2): element 0 (mid 2) before; zero-load elements 1 and 2
   * sit at load 4 < 5 and go before; element 3 (mid 7) after. */
  g_assert_cmpuint(mlb_items_cut(items, 4, (MlbKey){5, 2}), ==, 3);
  /* cut at (4, 2): the tie on load goes to the count: element 1 (count
   * mid 1.5) before, element 2 (2.5) after. */
  g_assert_cmpuint(mlb_items_cut(items, 4, (MlbKey){4, 2}), ==, 2);
  /* element 3 spans 4 .. 10 with midpoint 7. */
  g_assert_true(mlb_item_before(&items[3], (MlbKey){8, 0}));
  g_assert_false(mlb_item_before(&items[3], (MlbKey){7, 3}));
  g_assert_true(mlb_item_before(&items[3], (MlbKey){7, 4}));
  /* Unit loads: the owner of element i is the rank whose desired range
   * holds i, exactly. */
  for (guint d = 0; d <= 5; d++) {
    guint n = 100;
    MlbKey total = {n, n};
    for (guint i = 0; i < n; i++) {
      MlbItem it = {i, 1, i};
      guint owner = mlb_owner(total, d, MLB_DESIRED_HALVING, &it);
      g_assert_cmpuint(mlb_desired_prefix(n, d, owner, MLB_DESIRED_HALVING), <=, i);
      g_assert_cmpuint(mlb_desired_prefix(n, d, owner + 1, MLB_DESIRED_HALVING), >, i);
    }
  }
  g_assert_cmpuint(mlb_phase3_rounds(10, MLB_PHASE3_LEVELS), ==, 55);
  g_assert_cmpuint(mlb_phase3_rounds(10, MLB_PHASE3_LOCAL), ==, 45);
  g_assert_cmpuint(mlb_phase3_rounds(10, MLB_PHASE3_FINEST), ==, 10);
  g_assert_cmpuint(mlb_phase3_rounds(1, MLB_PHASE3_LEVELS), ==, 1);
  g_assert_cmpuint(mlb_phase3_rounds(1, MLB_PHASE3_LOCAL), ==, 0);
  g_assert_cmpuint(mlb_phase3_rounds(0, MLB_PHASE3_LOCAL), ==, 0);
}

/* A case: p = 2^d ranks, rank r starting with elements starts[r] ..
 * starts[r + 1] - 1 of loads[]. */
typedef struct {
  guint d, p;
  guint64 n;
  guint64 *loads;
  guint64 *first; /* p + 1 element indices */
  MlbKey *starts; /* p + 1 keys */
  MlbKey total;
} Case;

static void
case_free(Case *c)
{
  g_free(c->loads);
  g_free(c->first);
  g_free(c->starts);
  g_free(c);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Case, case_free)

static Case *
case_new(guint d, const guint64 *loads, guint64 n, const guint64 *counts)
{
  Case *c = g_new0(Case, 1);
  c->d = d;
  c->p = 1u << d;
  c->n = n;
  c->loads = g_memdup2(loads, sizeof(guint64) * MAX(n, 1));
  c->first = g_new0(guint64, c->p + 1);
  c->starts = g_new0(MlbKey, c->p + 1);
  guint64 load = 0, i = 0;
  for (guint r = 0; r < c->p; r++) {
    c->first[r] = i;
    c->starts[r] = (MlbKey){load, i};
    for (guint64 j = 0; j < counts[r]; j++)
      load += loads[i++];
  }
  g_assert_cmpuint(i, ==, n);
  c->first[c->p] = n;
  c->starts[c->p] = c->total = (MlbKey){load, n};
  return c;
}

static Case *
case_random(GRand *rand, guint d)
{
  guint p = 1u << d;
  guint64 n = (guint64)g_rand_int_range(rand, 1, 4 * (gint32)p + 2);
  g_autofree guint64 *loads = g_new(guint64, n);
  gint32 kind = g_rand_int_range(rand, 0, 3);
  for (guint64 i = 0; i < n; i++)
    loads[i] = kind == 0                           ? (guint64)g_rand_int_range(rand, 0, 3)
               : kind == 1                         ? (guint64)g_rand_int_range(rand, 1, 100)
               : g_rand_int_range(rand, 0, 4) == 0 ? (guint64)g_rand_int_range(rand, 0, 100000)
                                                   : (guint64)g_rand_int_range(rand, 0, 5);
  /* random cut points: some ranks start empty, some with everything */
  g_autofree guint64 *cuts = g_new(guint64, p + 1);
  cuts[0] = 0;
  cuts[p] = n;
  for (guint r = 1; r < p; r++)
    cuts[r] = (guint64)g_rand_int_range(rand, 0, (gint32)n + 1);
  for (guint r = 1; r < p; r++) /* insertion sort of the inner cuts */
    for (guint j = r; j > 1 && cuts[j - 1] > cuts[j]; j--) {
      guint64 t = cuts[j];
      cuts[j] = cuts[j - 1];
      cuts[j - 1] = t;
    }
  g_autofree guint64 *counts = g_new(guint64, p);
  for (guint r = 0; r < p; r++)
    counts[r] = cuts[r + 1] - cuts[r];
  return case_new(d, loads, n, counts);
}

/* The finest level from scratch, as `phase3 = finest` computes it: spans
 * sent and received by every rank along every edge (index r * d + e). */
static GPtrArray *
reference_schedule(const Case *c, MlbDesired mode, gboolean received)
{
  GPtrArray *out = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
  g_autoptr(GPtrArray) held = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
  g_autoptr(GPtrArray) sent = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
  for (guint r = 0; r < c->p; r++) {
    GArray *h = g_array_new(FALSE, FALSE, sizeof(MlbSpan));
    MlbSpan whole = {c->starts[r], c->starts[r + 1]};
    if (mlb_key_cmp(whole.lo, whole.hi) < 0)
      g_array_append_val(h, whole);
    g_ptr_array_add(held, h);
    for (guint e = 0; e < c->d; e++) {
      g_ptr_array_add(sent, g_array_new(FALSE, FALSE, sizeof(MlbSpan)));
      g_ptr_array_add(out, g_array_new(FALSE, FALSE, sizeof(MlbSpan)));
    }
  }
  for (guint e = c->d; e-- > 0;) {
    for (guint r = 0; r < c->p; r++)
      mlb_spans_take(held->pdata[r], mlb_split_key(c->total, c->d, r, e, mode),
                     mlb_in_left_half(r, e), sent->pdata[r * c->d + e]);
    for (guint r = 0; r < c->p; r++) {
      GArray *got = sent->pdata[mlb_partner(r, e) * c->d + e];
      mlb_spans_add(held->pdata[r], (const MlbSpan *)got->data, got->len);
      GArray *mine = received ? got : sent->pdata[r * c->d + e];
      g_array_append_vals(out->pdata[r * c->d + e], mine->data, mine->len);
    }
  }
  return out;
}

static GArray *
merged_spans(const GArray *pieces)
{
  GArray *spans = g_array_new(FALSE, FALSE, sizeof(MlbSpan));
  for (guint i = 0; i < pieces->len; i++)
    mlb_spans_add(spans, &g_array_index(pieces, MlbPiece, i).span, 1);
  return spans;
}

static void
assert_same_spans(const GArray *a, const GArray *b)
{
  g_assert_cmpuint(a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++) {
    g_assert_cmpint(mlb_key_cmp(g_array_index(a, MlbSpan, i).lo, g_array_index(b, MlbSpan, i).lo),
                    ==, 0);
    g_assert_cmpint(mlb_key_cmp(g_array_index(a, MlbSpan, i).hi, g_array_index(b, MlbSpan, i).hi),
                    ==, 0);
  }
}

/* Where the block of 2^k ranks starting at rank `first` divides. */
static MlbKey
block_split(const Case *c, guint first, guint k)
{
  return c->starts[first + (1u << (k - 1))];
}

/* Phase 3 level by level for every rank at once, the exchanges played as
 * the ranks play them: at each level, along each edge of the coarser
 * level, every block sends the splits of what it sent (mlb_level_split_of),
 * piece for piece what its partner computed it received; then each half
 * follows its own keys and gets its sibling's transfer from the sibling
 * (MLB_PHASE3_LEVELS), or follows both halves (MLB_PHASE3_LOCAL). Returns
 * the finest level (p entries). */
static MlbLevel *
levels_schedule(const Case *c, MlbDesired mode, MlbPhase3 phase3)
{
  MlbLevel *node = g_new(MlbLevel, c->p);
  for (guint r = 0; r < c->p; r++)
    mlb_level_init(&node[r], c->d, c->d, r);
  for (guint k = c->d; k >= 1; k--) {
    for (guint e = c->d; e-- > k;) /* coarsest first: pass-through needs the coarser splits */
      for (guint r = 0; r < c->p; r++) {
        GArray *out = node[r].sent[e], *in = node[mlb_partner(r, e)].received[e];
        g_assert_cmpuint(out->len, ==, in->len);
        MlbKey own = block_split(c, (r >> k) << k, k);
        for (guint i = 0; i < out->len; i++) {
          MlbPiece *a = &g_array_index(out, MlbPiece, i), *b = &g_array_index(in, MlbPiece, i);
          g_assert_cmpuint(a->origin, ==, b->origin);
          g_assert_cmpint(mlb_key_cmp(a->span.lo, b->span.lo), ==, 0);
          g_assert_cmpint(mlb_key_cmp(a->span.hi, b->span.hi), ==, 0);
          b->split = mlb_level_split_of(&node[r], e, a, own);
          g_assert_cmpint(mlb_key_cmp(b->split, block_split(c, b->origin, k)), ==, 0);
        }
      }
    MlbLevel *half = g_new(MlbLevel, c->p);
    for (guint r = 0; r < c->p; r++) {
      guint first = (r >> k) << k, mine = (r >> (k - 1)) << (k - 1);
      if (phase3 == MLB_PHASE3_LOCAL) {
        MlbKey halves[3] = {c->starts[first], block_split(c, first, k),
                            c->starts[first + (1u << k)]};
        mlb_level_refine(&node[r], c->total, mode, halves, &half[r]);
      } else {
        mlb_level_begin(&half[r], &node[r], r, c->starts[mine], c->starts[mine + (1u << (k - 1))]);
        for (guint e = c->d; e-- > k;)
          mlb_level_cross(&half[r], &node[r], e, c->total, mode);
        mlb_level_sibling(&half[r], c->total, mode);
      }
    }
    if (phase3 != MLB_PHASE3_LOCAL)
      for (guint r = 0; r < c->p; r++) {
        GArray *from = half[mlb_partner(r, k - 1)].sent[k - 1];
        mlb_level_take_sibling(&half[r], (const MlbPiece *)from->data, from->len, c->total, mode);
      }
    for (guint r = 0; r < c->p; r++)
      mlb_level_clear(&node[r]);
    g_free(node);
    node = half;
  }
  return node;
}

/* By hand, unit loads so that keys are plain positions: 4 ranks start with
 * 5, 1, 0 and 2 elements; desired 2 each, cuts at 2, 4 and 6. */
static void
test_levels_by_hand(void)
{
  guint64 loads[8] = {1, 1, 1, 1, 1, 1, 1, 1}, counts[4] = {5, 1, 0, 2};
  g_autoptr(Case) c = case_new(2, loads, 8, counts);
  /* Level 1: ranks 0 .. 1 hold [0, 6), ranks 2 .. 3 hold [6, 8): the first
   * half sends [4, 6) along edge 1 (one piece, from block 0 .. 1). */
  MlbLevel root, half[4];
  mlb_level_init(&root, 2, 2, 0);
  MlbKey halves[3] = {{0, 0}, {6, 6}, {8, 8}};
  for (guint r = 0; r < 4; r++) {
    root.r = r;
    mlb_level_refine(&root, c->total, MLB_DESIRED_HALVING, halves, &half[r]);
    g_assert_cmpuint(half[r].k, ==, 1);
    GArray *moved = r < 2 ? half[r].sent[1] : half[r].received[1];
    g_assert_cmpuint(moved->len, ==, 1);
    g_assert_cmpuint(g_array_index(moved, MlbPiece, 0).span.lo.load, ==, 4);
    g_assert_cmpuint(g_array_index(moved, MlbPiece, 0).span.hi.load, ==, 6);
    g_assert_cmpuint(g_array_index(moved, MlbPiece, 0).origin, ==, 0);
    g_assert_cmpuint((r < 2 ? half[r].received[1] : half[r].sent[1])->len, ==, 0);
  }
  mlb_level_clear(&root);
  /* Level 1's exchange tells ranks 2 and 3 where block 0 .. 1 divides: 5. */
  for (guint r = 2; r < 4; r++)
    g_array_index(half[r].received[1], MlbPiece, 0).split = (MlbKey){5, 5};
  /* Level 2. Rank 0 sends [4, 5) to rank 3 along edge 1, rank 1 sends
   * [5, 6) to rank 2; then rank 0 sends [2, 4) to rank 1 along edge 0, and
   * rank 3 hands rank 0's [4, 5) on to rank 2 (bit 0 of the receiver of a
   * piece from rank o along edge 1: o_0 ^ o_1 ^ 1). */
  static const struct {
    guint r, e;
    gboolean sent;
    guint64 lo, hi;
    guint origin;
  } expect[] = {
      {0, 1, TRUE, 4, 5, 0},  {0, 0, TRUE, 2, 4, 0},  {1, 1, TRUE, 5, 6, 1},
      {1, 0, FALSE, 2, 4, 0}, {2, 1, FALSE, 5, 6, 1}, {2, 0, FALSE, 4, 5, 0},
      {3, 1, FALSE, 4, 5, 0}, {3, 0, TRUE, 4, 5, 0},
  };
  guint pieces = 0;
  for (guint r = 0; r < 4; r++) {
    guint first = r & ~1u;
    MlbKey quarters[3] = {c->starts[first], c->starts[first + 1], c->starts[first + 2]};
    MlbLevel rank;
    mlb_level_refine(&half[r], c->total, MLB_DESIRED_HALVING, quarters, &rank);
    for (guint e = 0; e < 2; e++)
      pieces += rank.sent[e]->len + rank.received[e]->len;
    for (guint i = 0; i < G_N_ELEMENTS(expect); i++) {
      if (expect[i].r != r)
        continue;
      GArray *list = expect[i].sent ? rank.sent[expect[i].e] : rank.received[expect[i].e];
      g_assert_cmpuint(list->len, ==, 1);
      MlbPiece got = g_array_index(list, MlbPiece, 0);
      g_assert_cmpuint(got.span.lo.load, ==, expect[i].lo);
      g_assert_cmpuint(got.span.hi.load, ==, expect[i].hi);
      g_assert_cmpuint(got.origin, ==, expect[i].origin);
    }
    mlb_level_clear(&rank);
    mlb_level_clear(&half[r]);
  }
  g_assert_cmpuint(pieces, ==, G_N_ELEMENTS(expect));
}

/* Level by level gives every rank the schedule the finest level computed
 * from scratch gives it. */
static void
test_levels_random(void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed(5);
  for (guint trial = 0; trial < 400; trial++) {
    guint d = (guint)g_rand_int_range(rand, 1, 8);
    MlbDesired mode = trial % 2 ? MLB_DESIRED_EVEN : MLB_DESIRED_HALVING;
    g_autoptr(Case) c = case_random(rand, d);
    g_autoptr(GPtrArray) sent = reference_schedule(c, mode, FALSE);
    g_autoptr(GPtrArray) received = reference_schedule(c, mode, TRUE);
    MlbLevel *finest =
        levels_schedule(c, mode, trial % 4 < 2 ? MLB_PHASE3_LEVELS : MLB_PHASE3_LOCAL);
    for (guint r = 0; r < c->p; r++) {
      for (guint e = 0; e < d; e++) {
        g_autoptr(GArray) s = merged_spans(finest[r].sent[e]);
        g_autoptr(GArray) g = merged_spans(finest[r].received[e]);
        g_autoptr(GArray) ref_s = g_array_new(FALSE, FALSE, sizeof(MlbSpan));
        g_autoptr(GArray) ref_g = g_array_new(FALSE, FALSE, sizeof(MlbSpan));
        GArray *rs = sent->pdata[r * d + e], *rg = received->pdata[r * d + e];
        mlb_spans_add(ref_s, (const MlbSpan *)rs->data, rs->len);
        mlb_spans_add(ref_g, (const MlbSpan *)rg->data, rg->len);
        assert_same_spans(s, ref_s);
        assert_same_spans(g, ref_g);
      }
      mlb_level_clear(&finest[r]);
    }
    g_free(finest);
  }
}

static MlbItem *
case_items(const Case *c)
{
  MlbItem *items = g_new(MlbItem, MAX(c->n, 1));
  guint64 pos = 0;
  for (guint64 i = 0; i < c->n; i++) {
    items[i] = (MlbItem){i, c->loads[i], pos};
    pos += c->loads[i];
  }
  return items;
}

static int
item_cmp(gconstpointer a, gconstpointer b)
{
  guint64 x = ((const MlbItem *)a)->id, y = ((const MlbItem *)b)->id;
  return x < y ? -1 : x > y;
}

static void
test_loan_pick(void)
{
  /* loads 4 9 2; from the high end the pieces weigh (2, 1), (11, 2),
   * (15, 3); from the low end (4, 1), (13, 2), (15, 3). */
  MlbItem items[] = {{0, 4, 0}, {1, 9, 4}, {2, 2, 13}};
  g_assert_cmpuint(mlb_loan_pick(items, 3, TRUE, (MlbLoan){5, 1}), ==, 1); /* 3 below, 6 above */
  g_assert_cmpuint(mlb_loan_pick(items, 3, TRUE, (MlbLoan){7, 1}), ==, 2); /* 5 below, 4 above */
  g_assert_cmpuint(mlb_loan_pick(items, 3, TRUE, (MlbLoan){2, 1}), ==, 1); /* exact */
  g_assert_cmpuint(mlb_loan_pick(items, 3, FALSE, (MlbLoan){8, 1}), ==, 1);
  g_assert_cmpuint(mlb_loan_pick(items, 3, FALSE, (MlbLoan){9, 1}), ==, 2);
  /* A tie on the load goes to the count: (13, 0) lies (2, -2) above
   * (11, 2) and (2, 3) below (15, 3). */
  g_assert_cmpuint(mlb_loan_pick(items, 3, TRUE, (MlbLoan){13, 0}), ==, 2);
  g_assert_cmpuint(mlb_loan_pick(items, 3, TRUE, (MlbLoan){13, 5}), ==, 3);
  /* Whatever the loan asks, a rank sends only what it holds. */
  g_assert_cmpuint(mlb_loan_pick(items, 3, TRUE, (MlbLoan){1000, 0}), ==, 3);
  g_assert_cmpuint(mlb_loan_pick(items, 3, FALSE, (MlbLoan){-5, 0}), ==, 0);
  g_assert_cmpuint(mlb_loan_pick(items, 3, FALSE, (MlbLoan){0, 0}), ==, 0);
  g_assert_cmpuint(mlb_loan_pick(items, 0, FALSE, (MlbLoan){7, 1}), ==, 0);
  g_assert_cmpint(mlb_loan_cmp_abs((MlbLoan){-3, 0}, (MlbLoan){2, 9}), >, 0);
  g_assert_cmpint(mlb_loan_cmp_abs((MlbLoan){0, -1}, (MlbLoan){0, 1}), ==, 0);
}

/* Phase 4 for every rank at once, coarsest edge first, with the amounts of
 * the reference schedule; single: the paper's one loan variable read
 * literally. Returns the final owner of every element. */
static guint *
run_phase4(const Case *c, MlbDesired mode, gboolean single, MlbLoans *final_loans)
{
  guint d = c->d, p = c->p;
  g_autoptr(GPtrArray) sent = reference_schedule(c, mode, FALSE);
  g_autoptr(GPtrArray) received = reference_schedule(c, mode, TRUE);
  g_autofree MlbItem *all = case_items(c);
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
  g_autofree MlbLoans *loans = g_new0(MlbLoans, p);
  g_autofree MlbLoan *handed = g_new0(MlbLoan, p);
  for (guint r = 0; r < p; r++) {
    GArray *mine = g_array_new(FALSE, FALSE, sizeof(MlbItem));
    g_array_append_vals(mine, all + c->first[r], (guint)(c->first[r + 1] - c->first[r]));
    g_ptr_array_add(items, mine);
    g_ptr_array_add(out, g_array_new(FALSE, FALSE, sizeof(MlbItem)));
  }
  for (guint e = d; e-- > 0;) {
    for (guint r = 0; r < p; r++) {
      GArray *mine = items->pdata[r], *piece = out->pdata[r];
      g_array_set_size(piece, 0);
      GArray *spans = sent->pdata[r * d + e];
      MlbKey amount = mlb_spans_measure((const MlbSpan *)spans->data, spans->len);
      if (mlb_key_is_zero(amount))
        continue;
      gboolean high = mlb_in_left_half(r, e);
      guint n;
      if (single) {
        /* one variable, added to whatever the rank sends next */
        MlbLoan target = {(gint64)amount.load + loans[r].low.load,
                          (gint64)amount.count + loans[r].low.count};
        n = mlb_loan_pick((const MlbItem *)mine->data, mine->len, high, target);
        MlbLoan weight = {0, n};
        for (guint i = 0; i < n; i++)
          weight.load += (gint64)g_array_index(mine, MlbItem, high ? mine->len - 1 - i : i).load;
        loans[r].low = (MlbLoan){target.load - weight.load, target.count - weight.count};
      } else {
        n = mlb_loan_send(&loans[r], high, amount, (const MlbItem *)mine->data, mine->len,
                          &handed[r], NULL);
      }
      guint first = high ? mine->len - n : 0;
      g_array_append_vals(piece, &g_array_index(mine, MlbItem, first), n);
      g_array_remove_range(mine, first, n);
    }
    for (guint r = 0; r < p; r++) {
      guint q = mlb_partner(r, e);
      GArray *mine = items->pdata[r], *piece = out->pdata[q];
      GArray *spans = received->pdata[r * d + e];
      MlbKey expected = mlb_spans_measure((const MlbSpan *)spans->data, spans->len);
      if (mlb_key_is_zero(expected)) {
        g_assert_cmpuint(piece->len, ==, 0);
        continue;
      }
      MlbKey got = {0, piece->len};
      for (guint i = 0; i < piece->len; i++)
        got.load += g_array_index(piece, MlbItem, i).load;
      if (single) {
        loans[r].low.load += (gint64)got.load - (gint64)expected.load;
        loans[r].low.count += (gint64)got.count - (gint64)expected.count;
      } else {
        mlb_loan_receive(&loans[r], mlb_in_left_half(r, e), expected, got, handed[q]);
      }
      g_array_append_vals(mine, piece->data, piece->len);
      g_array_sort(mine, item_cmp);
    }
  }
  guint *owner = g_new(guint, MAX(c->n, 1));
  for (guint r = 0; r < p; r++) {
    GArray *mine = items->pdata[r];
    for (guint i = 0; i < mine->len; i++)
      owner[g_array_index(mine, MlbItem, i).id] = r;
    if (final_loans != NULL)
      final_loans[r] = loans[r];
  }
  return owner;
}

static gboolean
owners_contiguous(const guint *owner, guint64 n)
{
  for (guint64 i = 1; i < n; i++)
    if (owner[i] < owner[i - 1])
      return FALSE;
  return TRUE;
}

/* By hand: loads 20 9 1 5 9 on 4 ranks (one each, the last two on rank 3).
 * Keys (load, count): T = (44, 5), desired cuts (11, 2), (22, 3), (33, 4). */
static void
test_loans_by_hand(void)
{
  guint64 loads[] = {20, 9, 1, 5, 9}, counts[] = {1, 1, 1, 2};
  g_autoptr(Case) c = case_new(2, loads, 5, counts);
  g_autofree MlbItem *items = case_items(c);
  MlbLoans l0 = {{0, 0}, {0, 0}}, l1 = l0, l2 = l0, l3 = l0;
  MlbLoan handed, aim;
  /* Edge 1: rank 1 holds [(20, 1), (29, 2)) and must send what lies beyond
   * (22, 3): (7, -1). Its element 9 is the closest piece ((2, 2) over,
   * against (7, -1) short): right loan (7, -1) - (9, 1) = (-2, -2). */
  g_assert_cmpuint(mlb_loan_send(&l1, TRUE, (MlbKey){7, (guint64)-1}, &items[1], 1, &handed, &aim),
                   ==, 1);
  g_assert_cmpint(aim.load, ==, 7);
  g_assert_cmpint(l1.high.load, ==, -2);
  g_assert_cmpint(l1.high.count, ==, -2);
  g_assert_cmpint(handed.load, ==, 0);
  /* Rank 2 got (9, 1) for (7, -1): (2, 2) more, at its left end. */
  mlb_loan_receive(&l2, FALSE, (MlbKey){7, (guint64)-1}, (MlbKey){9, 1}, handed);
  g_assert_cmpint(l2.low.load, ==, 2);
  g_assert_cmpint(l2.low.count, ==, 2);
  g_assert_cmpint(l2.high.load, ==, 0);
  /* Edge 0: rank 0 must send (9, -1) of its element 20: keeping it is
   * closer ((9, -1) short against (11, 2) over). */
  g_assert_cmpuint(mlb_loan_send(&l0, TRUE, (MlbKey){9, (guint64)-1}, &items[0], 1, &handed, NULL),
                   ==, 0);
  g_assert_cmpint(l0.high.load, ==, 9);
  mlb_loan_receive(&l1, FALSE, (MlbKey){9, (guint64)-1}, (MlbKey){0, 0}, handed);
  g_assert_cmpint(l1.low.load, ==, -9);
  /* Rank 1 ends empty, desired (11, 1): its two loans add up to it. */
  g_assert_cmpint(l1.low.load + l1.high.load, ==, -11);
  g_assert_cmpint(l1.low.count + l1.high.count, ==, -1);
  /* Rank 3 sends (3, 1) from its left end: element 5 ((2, 0) over) rather
   * than nothing ((3, 1) short). Rank 2 has nothing to send along edge 0:
   * its left loan stays at its left end, it is not sent to the right. */
  g_assert_cmpuint(mlb_loan_send(&l3, FALSE, (MlbKey){3, 1}, &items[3], 2, &handed, NULL), ==, 1);
  g_assert_cmpint(l3.low.load, ==, -2);
  mlb_loan_receive(&l2, TRUE, (MlbKey){3, 1}, (MlbKey){5, 1}, handed);
  g_assert_cmpint(l2.high.load, ==, 2);
  g_assert_cmpint(l2.low.load, ==, 2);
  /* Rank 2 ends with 9 1 5 = 15 for a desired 11. The whole run agrees,
   * and so does the midpoint rule. */
  g_autofree guint *owner = run_phase4(c, MLB_DESIRED_HALVING, FALSE, NULL);
  guint want[] = {0, 2, 2, 2, 3};
  for (guint i = 0; i < 5; i++) {
    g_assert_cmpuint(owner[i], ==, want[i]);
    g_assert_cmpuint(owner[i], ==, mlb_owner(c->total, 2, MLB_DESIRED_HALVING, &items[i]));
  }
}

/* The paper's single loan variable, read literally, breaks contiguity: 8
 * ranks, loads 1 1 3 starting on ranks 2, 4 and 5. Rank 2 gets nothing of
 * the load 1 promised by rank 5 along edge 2 (rank 5 keeps its element 3):
 * the shortfall is at its right end, but one variable makes it aim at 0 on
 * its next send, to rank 1 from its left end, so it keeps element 0 while
 * element 1 goes on to rank 1. Kept per end, the loans agree with the
 * midpoint rule. */
static void
test_single_loan_breaks(void)
{
  guint64 loads[] = {1, 1, 3}, counts[] = {0, 0, 1, 0, 1, 1, 0, 0};
  g_autoptr(Case) c = case_new(3, loads, 3, counts);
  g_autofree guint *single = run_phase4(c, MLB_DESIRED_HALVING, TRUE, NULL);
  g_assert_cmpuint(single[0], ==, 2);
  g_assert_cmpuint(single[1], ==, 1);
  g_assert_false(owners_contiguous(single, 3));
  g_autofree guint *two = run_phase4(c, MLB_DESIRED_HALVING, FALSE, NULL);
  g_autofree MlbItem *items = case_items(c);
  for (guint i = 0; i < 3; i++)
    g_assert_cmpuint(two[i], ==, mlb_owner(c->total, 3, MLB_DESIRED_HALVING, &items[i]));
  g_assert_cmpuint(two[0], ==, 0);
  g_assert_cmpuint(two[1], ==, 1);
  g_assert_cmpuint(two[2], ==, 4);
}

/* The load of the element whose key span holds cut strictly inside. */
static guint64
straddler(const Case *c, const MlbItem *items, MlbKey cut)
{
  for (guint64 i = 0; i < c->n; i++) {
    MlbKey lo = {items[i].pos, i}, hi = {items[i].pos + items[i].load, i + 1};
    if (mlb_key_cmp(lo, cut) < 0 && mlb_key_cmp(cut, hi) < 0)
      return items[i].load;
  }
  return 0;
}

/* Random cases: the loans give every element to the rank the midpoint rule
 * names, every rank's loans add up to what it holds beyond its desired
 * load, and no rank is further from its desired load than half of each
 * element lying across its two cuts. */
static void
test_loans_random(void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed(17);
  guint broken_single = 0;
  for (guint trial = 0; trial < 1500; trial++) {
    guint d = (guint)g_rand_int_range(rand, 1, 7);
    MlbDesired mode = trial % 3 ? MLB_DESIRED_HALVING : MLB_DESIRED_EVEN;
    g_autoptr(Case) c = case_random(rand, d);
    g_autofree MlbItem *items = case_items(c);
    g_autofree MlbLoans *loans = g_new0(MlbLoans, c->p);
    g_autofree guint *owner = run_phase4(c, mode, FALSE, loans);
    g_autofree guint *single = run_phase4(c, mode, TRUE, NULL);
    broken_single += !owners_contiguous(single, c->n);
    g_autofree MlbKey *held = g_new0(MlbKey, c->p);
    for (guint64 i = 0; i < c->n; i++) {
      g_assert_cmpuint(owner[i], ==, mlb_owner(c->total, d, mode, &items[i]));
      held[owner[i]] = mlb_key_add(held[owner[i]], (MlbKey){items[i].load, 1});
    }
    for (guint r = 0; r < c->p; r++) {
      MlbKey lo = mlb_desired_key(c->total, d, r, mode),
             hi = mlb_desired_key(c->total, d, r + 1, mode);
      MlbKey want = mlb_key_sub(hi, lo);
      g_assert_cmpint(loans[r].low.load + loans[r].high.load, ==,
                      (gint64)held[r].load - (gint64)want.load);
      g_assert_cmpint(loans[r].low.count + loans[r].high.count, ==,
                      (gint64)held[r].count - (gint64)want.count);
      guint64 slack = straddler(c, items, lo) / 2 + straddler(c, items, hi) / 2;
      g_assert_cmpuint(held[r].load, <=, want.load + slack);
      g_assert_cmpuint(held[r].load + slack, >=, want.load);
    }
  }
  g_test_message("the single loan variable broke contiguity in %u of 1500 cases", broken_single);
  g_assert_cmpuint(broken_single, >, 0);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/mlb-plan/gray-edges", test_gray_edges);
  g_test_add_func("/mlb-plan/desired", test_desired);
  g_test_add_func("/mlb-plan/spans", test_spans);
  g_test_add_func("/mlb-plan/midpoint-rule", test_midpoint_rule);
  g_test_add_func("/mlb-plan/levels-by-hand", test_levels_by_hand);
  g_test_add_func("/mlb-plan/levels-random", test_levels_random);
  g_test_add_func("/mlb-plan/loan-pick", test_loan_pick);
  g_test_add_func("/mlb-plan/loans-by-hand", test_loans_by_hand);
  g_test_add_func("/mlb-plan/single-loan-breaks", test_single_loan_breaks);
  g_test_add_func("/mlb-plan/loans-random", test_loans_random);
  return g_test_run();
}
