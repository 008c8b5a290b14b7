/* The arithmetic of SFC partitions with segment shifting: blocking, the
 * unbalance of the processes before and after each boundary, the pieces a
 * round sends, whole shifts on hand cases (load passed through several
 * ranks, also behind hnodes of no load) and on random ones, whose
 * boundaries must end as near their shares as the pieces allow. */
#include <math.h>
#include <glib.h>

#include "balancers/sfc/sfc-plan.h"
#include "balancers/sort.h"
#include "sfc-bound.h"

/* The smallest bottleneck of a partition into p contiguous parts, by
 * dynamic programming over every cut (small cases only). */
static guint64
optimal_bottleneck(const guint64 *loads, gsize n, guint p)
{
  g_autofree guint64 *prefix = g_new0(guint64, n + 1);
  for (gsize i = 0; i < n; i++)
    prefix[i + 1] = prefix[i] + loads[i];
  /* best[k][j]: the first j elements in k parts */
  g_autofree guint64 *best = g_new(guint64, (gsize)(p + 1) * (n + 1));
  for (gsize j = 0; j <= n; j++)
    best[j] = j == 0 ? 0 : G_MAXUINT64;
  for (guint k = 1; k <= p; k++)
    for (gsize j = 0; j <= n; j++) {
      guint64 b = G_MAXUINT64;
      for (gsize i = 0; i <= j; i++) {
        guint64 before = best[(gsize)(k - 1) * (n + 1) + i];
        if (before == G_MAXUINT64)
          continue;
        b = MIN(b, MAX(before, prefix[j] - prefix[i]));
      }
      best[(gsize)k * (n + 1) + j] = b;
    }
  return best[(gsize)p * (n + 1) + n];
}

static void
test_block_hand(void)
{
  const guint64 ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  gsize cuts[5];
  sfc_block(ones, 8, 4, cuts);
  const gsize even[5] = {0, 2, 4, 6, 8};
  for (guint k = 0; k < 5; k++)
    g_assert_cmpuint(cuts[k], ==, even[k]);
  /* total 10: half is 5, reached exactly after the first element */
  const guint64 heavy[6] = {5, 1, 1, 1, 1, 1};
  sfc_block(heavy, 6, 2, cuts);
  g_assert_cmpuint(cuts[0], ==, 0);
  g_assert_cmpuint(cuts[1], ==, 1);
  g_assert_cmpuint(cuts[2], ==, 6);
  /* one element of load 42 between empty ones, 4 parts: targets 10.5
   * and 21 are nearer 0 (21 ties, to the earliest boundary), 31.5 nearer
   * 42, reached after the element */
  const guint64 lone[3] = {0, 42, 0};
  sfc_block(lone, 3, 4, cuts);
  const gsize expect[5] = {0, 0, 0, 2, 3};
  for (guint k = 0; k < 5; k++)
    g_assert_cmpuint(cuts[k], ==, expect[k]);
}

/* Random sequences: segments cover the sequence in order, every cut is a
 * nearest boundary to its target, and the bottleneck is never below the
 * optimal contiguous partition's. */
static void
test_block_random(void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed(11);
  for (guint trial = 0; trial < 300; trial++) {
    gsize n = (gsize)g_rand_int_range(rand, 1, 40);
    guint parts = (guint)g_rand_int_range(rand, 1, 9);
    g_autofree guint64 *loads = g_new(guint64, n);
    double total = 0;
    for (gsize i = 0; i < n; i++) {
      loads[i] = (guint64)g_rand_int_range(rand, 0, trial % 3 == 0 ? 100 : 6);
      total += (double)loads[i];
    }
    g_autofree gsize *cuts = g_new(gsize, parts + 1);
    sfc_block(loads, n, parts, cuts);
    g_assert_cmpuint(cuts[0], ==, 0);
    g_assert_cmpuint(cuts[parts], ==, n);
    guint64 bottleneck = 0;
    for (guint k = 0; k < parts; k++) {
      g_assert_cmpuint(cuts[k], <=, cuts[k + 1]);
      guint64 seg = 0;
      for (gsize i = cuts[k]; i < cuts[k + 1]; i++)
        seg += loads[i];
      bottleneck = MAX(bottleneck, seg);
    }
    g_assert_cmpuint(bottleneck, >=, optimal_bottleneck(loads, n, parts));
    /* each inner cut is at a boundary nearest its target among those not
     * before the previous cut */
    for (guint k = 1; k < parts; k++) {
      double target = total * k / parts, prefix = 0, at_cut = 0;
      double nearest = G_MAXDOUBLE;
      for (gsize j = 0; j <= n; j++) {
        if (j >= cuts[k - 1])
          nearest = MIN(nearest, fabs(prefix - target));
        if (j == cuts[k])
          at_cut = fabs(prefix - target);
        if (j < n)
          prefix += (double)loads[j];
      }
      g_assert_cmpfloat(at_cut, <=, nearest + 1e-9);
    }
  }
}

static void
test_flows(void)
{
  const guint64 loads[4] = {6, 2, 2, 2}; /* average 3 */
  double flow[5];
  sfc_flows(loads, 4, flow);
  const double expect[5] = {0, 3, 2, 1, 0};
  for (guint b = 0; b < 5; b++)
    g_assert_cmpfloat_with_epsilon(flow[b], expect[b], 1e-12);
  g_assert_cmpfloat_with_epsilon(sfc_max_unbalance(loads, 4), 3, 1e-12);
  /* Unb(Suc_i) = -Unb(Pre_{i+1}): the two ends of a boundary agree */
  const guint64 other[5] = {1, 9, 0, 4, 6};
  double f[6];
  sfc_flows(other, 5, f);
  for (guint i = 0; i < 5; i++) {
    double suc = 0;
    for (guint j = i + 1; j < 5; j++)
      suc += (double)other[j] - 4.0;
    g_assert_cmpfloat_with_epsilon(suc, -f[i + 1], 1e-12);
  }
}

static void
test_nearest(void)
{
  const guint64 l[3] = {4, 4, 4};
  /* 6: 4 and 8 are both 2 away: the fewer */
  g_assert_cmpuint(sfc_prefix_nearest(l, 3, 6), ==, 1);
  g_assert_cmpuint(sfc_suffix_nearest(l, 3, 6), ==, 1);
  g_assert_cmpuint(sfc_prefix_nearest(l, 3, 7), ==, 2);
  g_assert_cmpuint(sfc_prefix_nearest(l, 3, 100), ==, 3);
  g_assert_cmpuint(sfc_prefix_nearest(l, 3, 1.9), ==, 0);
  const guint64 m[4] = {1, 2, 3, 10};
  g_assert_cmpuint(sfc_suffix_nearest(m, 4, 12), ==, 2); /* 13 beats 10 */
  g_assert_cmpuint(sfc_prefix_nearest(m, 4, 5), ==, 3);  /* 3 or 6: 6 is nearer */
  /* zero loads are no reason to stop short */
  const guint64 z[3] = {0, 0, 5};
  g_assert_cmpuint(sfc_prefix_nearest(z, 3, 5), ==, 3);
  g_assert_cmpuint(sfc_prefix_nearest(z, 3, 2), ==, 0);
  g_assert_cmpuint(sfc_suffix_nearest(z, 3, 2), ==, 0);
  g_assert_cmpuint(sfc_suffix_nearest(z, 3, 4), ==, 1);
}

static GPtrArray *
sequences(const guint *counts, const guint64 *load_of, guint p)
{
  GPtrArray *seqs = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
  for (guint i = 0; i < p; i++) {
    GArray *s = g_array_new(FALSE, FALSE, sizeof(guint64));
    for (guint j = 0; j < counts[i]; j++)
      g_array_append_val(s, load_of[i]);
    g_ptr_array_add(seqs, s);
  }
  return seqs;
}

static guint64
seq_load(GPtrArray *seqs, guint i)
{
  GArray *s = seqs->pdata[i];
  guint64 t = 0;
  for (guint j = 0; j < s->len; j++)
    t += g_array_index(s, guint64, j);
  return t;
}

/* Everything on P_0 of four ranks: the flows are 9, 6 and 3 across the
 * three boundaries. Round 1: P_0 sends its last 9; P_1 and P_2 hold
 * nothing to send and wait. Round 2: P_1 passes 6 of the 9 on; P_2 still
 * waits. Round 3: P_2 passes 3 on. */
/* sfc_round as it was written before it bisected prefix sums: the
 * nearest pieces by running sums (sfc_prefix_nearest and
 * sfc_suffix_nearest), for the random comparison below. */
static gsize
reference_end(const guint64 *loads, gsize avail, gboolean from_front, SfcEnd *end, gboolean inflow)
{
  if (!end->open || end->amount <= 0)
    return 0;
  gsize k = from_front ? sfc_prefix_nearest(loads, avail, end->amount)
                       : sfc_suffix_nearest(loads, avail, end->amount);
  double sent = 0;
  for (gsize i = from_front ? 0 : avail - k; i < (from_front ? k : avail); i++)
    sent += (double)loads[i];
  end->amount -= sent;
  gboolean emptied = TRUE;
  for (gsize i = from_front ? k : 0; emptied && i < (from_front ? avail : avail - k); i++)
    emptied = loads[i] == 0;
  end->open = emptied && end->amount > 0 && inflow;
  return k;
}

/* The prefix sums of a sequence cut into pieces, as a rank holds the
 * spans of a shift. */
typedef struct {
  const guint64 *loads;
  gsize n;
} Flat;

static guint64
flat_sum(gconstpointer seq, gsize i)
{
  const Flat *f = seq;
  g_assert_cmpuint(i, <=, f->n);
  guint64 s = 0;
  for (gsize k = 0; k < i; k++)
    s += f->loads[k];
  return s;
}

static void
test_round_prefix_sums(void)
{
  GRand *rand = g_rand_new_with_seed(26);
  for (guint t = 0; t < 20000; t++) {
    gsize n = (gsize)g_rand_int_range(rand, 0, 12);
    guint64 loads[12];
    for (gsize i = 0; i < n; i++)
      loads[i] = g_rand_int_range(rand, 0, 3) == 0 ? 0 : (guint64)g_rand_int_range(rand, 1, 6);
    SfcEnd left = {g_rand_int_range(rand, 0, 4) == 0 ? 0 : g_rand_double_range(rand, 0, 30),
                   g_rand_boolean(rand)};
    SfcEnd right = {g_rand_int_range(rand, 0, 4) == 0 ? 0 : g_rand_double_range(rand, 0, 30),
                    g_rand_boolean(rand)};
    if (g_rand_int_range(rand, 0, 3) == 0) /* whole amounts: ties */
      left.amount = (double)(guint)left.amount, right.amount = (double)(guint)right.amount;
    gboolean in_left = g_rand_boolean(rand), in_right = g_rand_boolean(rand);
    SfcEnd l1 = left, r1 = right, l2 = left, r2 = right, l3 = left, r3 = right;
    gsize a1 = reference_end(loads, n, TRUE, &l1, in_right);
    gsize b1 = reference_end(loads + a1, n - a1, FALSE, &r1, in_left);
    gsize a2 = 0, b2 = 0, a3 = 0, b3 = 0;
    sfc_round(loads, n, &l2, &r2, in_left, in_right, &a2, &b2);
    Flat flat = {loads, n};
    SfcLoads view = {flat_sum, &flat, n};
    sfc_round_loads(&view, &l3, &r3, in_left, in_right, &a3, &b3);
    g_assert_cmpuint(a1, ==, a2);
    g_assert_cmpuint(b1, ==, b2);
    g_assert_cmpuint(a1, ==, a3);
    g_assert_cmpuint(b1, ==, b3);
    g_assert_true(l1.amount == l2.amount && l1.amount == l3.amount);
    g_assert_true(r1.amount == r2.amount && r1.amount == r3.amount);
    g_assert_true(l1.open == l2.open && l1.open == l3.open);
    g_assert_true(r1.open == r2.open && r1.open == r3.open);
  }
  g_rand_free(rand);
}

static void
test_shift_pass_through(void)
{
  const guint counts[4] = {12, 0, 0, 0};
  const guint64 unit[4] = {1, 1, 1, 1};
  g_autoptr(GPtrArray) seqs = sequences(counts, unit, 4);
  guint64 moved = 0;
  guint rounds = sfc_shift(seqs, 0.5, &moved);
  g_assert_cmpuint(rounds, ==, 3);
  g_assert_cmpuint(moved, ==, 9 + 6 + 3);
  for (guint i = 0; i < 4; i++)
    g_assert_cmpuint(seq_load(seqs, i), ==, 3);
  /* a threshold above every flow: nothing moves */
  g_autoptr(GPtrArray) again = sequences(counts, unit, 4);
  g_assert_cmpuint(sfc_shift(again, 9.5, &moved), ==, 0);
  g_assert_cmpuint(moved, ==, 0);
  g_assert_cmpuint(seq_load(again, 0), ==, 12);
}

/* Both directions at once: P_1 holds loads 1 .. 9 (average 15) and sends
 * the prefix nearest 15 left (1 + .. + 5) and, from the rest, the suffix
 * nearest 15 right (8 + 9 = 17 is nearer than 9), in one round. */
static void
test_shift_both_ways(void)
{
  g_autoptr(GPtrArray) seqs = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
  for (guint i = 0; i < 3; i++)
    g_ptr_array_add(seqs, g_array_new(FALSE, FALSE, sizeof(guint64)));
  for (guint64 v = 1; v <= 9; v++)
    g_array_append_val((GArray *)seqs->pdata[1], v);
  guint64 moved = 0;
  g_assert_cmpuint(sfc_shift(seqs, 0.5, &moved), ==, 1);
  g_assert_cmpuint(moved, ==, 7);
  const guint first[4] = {1, 6, 8, 10};
  for (guint i = 0; i < 3; i++) {
    GArray *s = seqs->pdata[i];
    g_assert_cmpuint(s->len, ==, first[i + 1] - first[i]);
    for (guint j = 0; j < s->len; j++)
      g_assert_cmpuint(g_array_index(s, guint64, j), ==, first[i] + j);
  }
}

/* Indivisible elements: the piece nearest the flow, not the flow. */
static void
test_shift_nearest_piece(void)
{
  const guint counts[2] = {3, 0};
  const guint64 four[2] = {4, 4};
  g_autoptr(GPtrArray) seqs = sequences(counts, four, 2);
  /* average 6: the flow is 6, pieces of 4 and 8 are as near: the smaller */
  g_assert_cmpuint(sfc_shift(seqs, 0.5, NULL), ==, 1);
  g_assert_cmpuint(seq_load(seqs, 0), ==, 8);
  g_assert_cmpuint(seq_load(seqs, 1), ==, 4);
}

/* Pass-through behind an hnode of no load (a parent whose sub-spaces
 * follow it, under measured loads): P_1 holds 0, 1, 1, 1 of four ranks
 * with the average 3, and 6 must cross both boundaries 1 and 2. Round 1:
 * P_1 sends its three 1s on, the nearest piece to 6, and keeps the 0; it
 * has sent all its load and falls short, so boundary 2 stays open and
 * round 2 passes on 3 of what P_0 sent, the 0 with them. Every rank ends
 * at the average. Mirrored, the same right to left. */
static void
test_shift_zero_load_pass_through(void)
{
  const guint64 p0[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, p1[4] = {0, 1, 1, 1};
  for (guint mirrored = 0; mirrored < 2; mirrored++) {
    g_autoptr(GPtrArray) seqs = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    for (guint i = 0; i < 4; i++)
      g_ptr_array_add(seqs, g_array_new(FALSE, FALSE, sizeof(guint64)));
    GArray *heavy = seqs->pdata[mirrored ? 3 : 0], *light = seqs->pdata[mirrored ? 2 : 1];
    g_array_append_vals(heavy, p0, 9);
    for (guint j = 0; j < 4; j++) /* mirrored: 1, 1, 1, 0 */
      g_array_append_val(light, p1[mirrored ? 3 - j : j]);
    guint rounds = sfc_shift(seqs, 0.5, NULL);
    g_assert_cmpuint(rounds, >=, 2);
    for (guint i = 0; i < 4; i++)
      g_assert_cmpuint(seq_load(seqs, i), ==, 3);
  }
}

/* A shift checked against tests/sfc-bound.h, with T = t_share x the
 * average. Returns the rounds. */
static guint
shift_within_bound(GPtrArray *seqs, double t_share)
{
  guint p = seqs->len;
  double total = 0;
  for (guint i = 0; i < p; i++)
    total += (double)seq_load(seqs, i);
  double threshold = t_share * total / p;
  g_autofree double *slack = g_new(double, p + 1);
  sfc_bound_slack(seqs, threshold, slack);
  guint rounds = sfc_shift(seqs, threshold, NULL);
  sfc_bound_check(seqs, slack);
  return rounds;
}

/* Random sequences shaped like an H-tree's measured loads (hnodes of no
 * load among multiples of 42, hot spots of many hnodes, empty ranks), so
 * that load passes through several ranks: every boundary ends as near its
 * target as the pieces allow. */
static void
test_shift_bound(void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed(17);
  guint passed_on = 0;
  for (guint trial = 0; trial < 500; trial++) {
    guint p = (guint)g_rand_int_range(rand, 2, 33);
    g_autoptr(GPtrArray) seqs = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    for (guint i = 0; i < p; i++) {
      GArray *s = g_array_new(FALSE, FALSE, sizeof(guint64));
      gboolean hot = g_rand_int_range(rand, 0, 6) == 0;
      guint n = (guint)g_rand_int_range(rand, 0, hot ? 120 : 12);
      for (guint j = 0; j < n; j++) {
        guint64 v =
            g_rand_int_range(rand, 0, 3) == 0 ? 0 : 42 * (guint64)g_rand_int_range(rand, 1, 9);
        g_array_append_val(s, v);
      }
      g_ptr_array_add(seqs, s);
    }
    passed_on += shift_within_bound(seqs, trial % 3 == 0 ? 0.001 : 0.05) > 1;
  }
  g_assert_cmpuint(passed_on, >, 100);
}

/* Random shifts keep the sequence (concatenated in rank order, the same
 * elements in the same order), end within one of the average on unit
 * loads, and take at most p - 1 rounds. */
static void
test_shift_random(void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed(5);
  for (guint trial = 0; trial < 400; trial++) {
    guint p = (guint)g_rand_int_range(rand, 2, 17);
    gboolean unit = trial % 2 == 0;
    g_autoptr(GPtrArray) seqs = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    g_autoptr(GArray) all = g_array_new(FALSE, FALSE, sizeof(guint64));
    guint64 next = 1;
    for (guint i = 0; i < p; i++) {
      GArray *s = g_array_new(FALSE, FALSE, sizeof(guint64));
      guint n = (guint)g_rand_int_range(rand, 0, trial % 5 == 0 ? 60 : 12);
      for (guint j = 0; j < n; j++) {
        /* distinct values, so that the order can be checked; unit loads
         * are told apart by their order alone */
        guint64 v = unit ? 1 : next + (guint64)g_rand_int_range(rand, 0, 4) * 1000;
        next++;
        g_array_append_val(s, v);
        g_array_append_val(all, v);
      }
      g_ptr_array_add(seqs, s);
    }
    g_autofree guint64 *before = g_new(guint64, p);
    for (guint i = 0; i < p; i++)
      before[i] = seq_load(seqs, i);
    guint rounds = sfc_shift(seqs, 0.5, NULL);
    g_assert_cmpuint(rounds, <=, p);
    g_autoptr(GArray) after = g_array_new(FALSE, FALSE, sizeof(guint64));
    g_autofree guint64 *loads = g_new(guint64, p);
    for (guint i = 0; i < p; i++) {
      GArray *s = seqs->pdata[i];
      g_array_append_vals(after, s->data, s->len);
      loads[i] = seq_load(seqs, i);
    }
    g_assert_cmpuint(after->len, ==, all->len);
    for (guint j = 0; j < all->len; j++)
      g_assert_cmpuint(g_array_index(after, guint64, j), ==, g_array_index(all, guint64, j));
    if (unit)
      g_assert_cmpfloat(sfc_max_unbalance(loads, p), <=, 1.0 + 1e-9);
    else
      g_assert_cmpfloat(sfc_max_unbalance(loads, p), <=, sfc_max_unbalance(before, p) + 1e-9);
  }
}

/* The balancers' inline sort: ascending and stable (equal keys keep their
 * order), a permutation, on sizes around its runs of 16 and their merges,
 * with few distinct keys, and sorted or reversed input. */
typedef struct {
  guint32 key, seq;
} Keyed;

static inline gboolean
keyed_before(const Keyed *x, const Keyed *y)
{
  return x->key < y->key;
}

LB_DEFINE_SORT(sort_keyed, Keyed, keyed_before)

static void
test_sort_stable(void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed(17);
  const gsize sizes[] = {0, 1, 2, 15, 16, 17, 33, 255, 256, 257, 511, 512, 513, 1000, 4099};
  for (gsize c = 0; c < G_N_ELEMENTS(sizes); c++)
    for (guint shape = 0; shape < 4; shape++) {
      gsize n = sizes[c];
      g_autofree Keyed *a = g_new(Keyed, MAX(n, 1));
      guint32 range = shape == 0 ? 4 : 1000000;
      for (gsize i = 0; i < n; i++) {
        guint32 k = g_rand_int_range(rand, 0, (gint32)range);
        if (shape == 2)
          k = (guint32)i / 3; /* in order already, with ties */
        if (shape == 3)
          k = (guint32)(n - i) / 3; /* reversed */
        a[i] = (Keyed){k, (guint32)i};
      }
      g_autofree guint *count = g_new0(guint, MAX(n, 1));
      sort_keyed(a, n);
      for (gsize i = 0; i < n; i++) {
        count[a[i].seq]++;
        if (i > 0) {
          g_assert_cmpuint(a[i - 1].key, <=, a[i].key);
          if (a[i - 1].key == a[i].key)
            g_assert_cmpuint(a[i - 1].seq, <, a[i].seq);
        }
      }
      for (gsize i = 0; i < n; i++)
        g_assert_cmpuint(count[i], ==, 1);
    }
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/sfc/sort/stable", test_sort_stable);
  g_test_add_func("/sfc/block/hand", test_block_hand);
  g_test_add_func("/sfc/block/random", test_block_random);
  g_test_add_func("/sfc/flows", test_flows);
  g_test_add_func("/sfc/nearest", test_nearest);
  g_test_add_func("/sfc/round/prefix-sums", test_round_prefix_sums);
  g_test_add_func("/sfc/shift/pass-through", test_shift_pass_through);
  g_test_add_func("/sfc/shift/both-ways", test_shift_both_ways);
  g_test_add_func("/sfc/shift/nearest-piece", test_shift_nearest_piece);
  g_test_add_func("/sfc/shift/random", test_shift_random);
  g_test_add_func("/sfc/shift/zero-load-pass-through", test_shift_zero_load_pass_through);
  g_test_add_func("/sfc/shift/bound", test_shift_bound);
  return g_test_run();
}
