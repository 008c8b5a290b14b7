/* The arithmetic of MLB: Gray codes and edges, desired loads, spans and the
 * midpoint rule, checked against direct constructions. */
#include <glib.h>

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
  g_assert_cmpuint(mlb_phase3_rounds(10, TRUE), ==, 55);
  g_assert_cmpuint(mlb_phase3_rounds(10, FALSE), ==, 10);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/mlb-plan/gray-edges", test_gray_edges);
  g_test_add_func("/mlb-plan/desired", test_desired);
  g_test_add_func("/mlb-plan/spans", test_spans);
  g_test_add_func("/mlb-plan/midpoint-rule", test_midpoint_rule);
  return g_test_run();
}
