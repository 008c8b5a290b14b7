/* Load Balancing by Dimension's arithmetic: the neighbour graph
 * (BUILD_UNDIRECTED_TDG) on the document's own example and against brute
 * force on thousands of random column partitions. */
#include <glib.h>

#include "balancers/lbd/tdg.h"

static GArray *
neighbours(const LbColumns *p, guint subset, gboolean brute)
{
  GArray *out = g_array_new(FALSE, FALSE, sizeof(guint));
  if (brute)
    lb_tdg_brute_force(p, subset, out);
  else
    lb_tdg_neighbours(p, subset, out);
  return out;
}

static void
assert_ids(GArray *got, const guint *want, guint n)
{
  g_assert_cmpuint(got->len, ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpuint(g_array_index(got, guint, i), ==, want[i]);
}

/* The document's Figure 3: three columns of three subsets, numbered down
 * each column. Column 0 cuts at y = 5 and 7, column 1 at 3 and 9, column 2
 * at 2 and 10 (domain 12 high). Subset 0's neighbours across are 3 and 4;
 * subset 4's are 0, 1, 2 and 7 (with 3 and 5 above and below it). */
static void
test_figure3(void)
{
  static const guint64 xcuts[] = {0, 4, 8, 12};
  static const guint64 ycuts[] = {0, 5, 7, 12, 0, 3, 9, 12, 0, 2, 10, 12};
  LbColumns p = {3, 3, xcuts, ycuts};
  g_autoptr(GArray) n0 = neighbours(&p, 0, FALSE);
  static const guint want0[] = {1, 3, 4}; /* 1 is above it in its column */
  assert_ids(n0, want0, G_N_ELEMENTS(want0));
  g_autoptr(GArray) n4 = neighbours(&p, 4, FALSE);
  static const guint want4[] = {0, 1, 2, 3, 5, 7};
  assert_ids(n4, want4, G_N_ELEMENTS(want4));
  for (guint s = 0; s < 9; s++) {
    g_autoptr(GArray) a = neighbours(&p, s, FALSE);
    g_autoptr(GArray) b = neighbours(&p, s, TRUE);
    assert_ids(a, (const guint *)b->data, b->len);
  }
}

/* Cases the pseudocode leaves open: every cut of the next column below the
 * subset (its top subset still touches), equal cuts (an empty subset
 * touches no one), an empty column (the columns on its sides touch). */
static void
test_open_cases(void)
{
  /* column 1's only cut (2) lies below subset 1's [6, 10): subset 3 (its
   * top) is a neighbour, though no cut of column 1 registers it */
  static const guint64 xcuts[] = {0, 5, 10};
  static const guint64 ycuts[] = {0, 6, 10, 0, 2, 10};
  LbColumns p = {2, 2, xcuts, ycuts};
  g_autoptr(GArray) n1 = neighbours(&p, 1, FALSE);
  static const guint want1[] = {0, 3};
  assert_ids(n1, want1, G_N_ELEMENTS(want1));

  /* equal cuts: subset 1 of column 0 is empty (4 .. 4) */
  static const guint64 ycuts2[] = {0, 4, 4, 10, 0, 5, 6, 10};
  LbColumns q = {2, 3, xcuts, ycuts2};
  g_autoptr(GArray) e = neighbours(&q, 1, FALSE);
  g_assert_cmpuint(e->len, ==, 0);
  g_autoptr(GArray) n0 = neighbours(&q, 0, FALSE);
  static const guint want0[] = {2, 3}; /* 2 through the empty 1; 3 across */
  assert_ids(n0, want0, G_N_ELEMENTS(want0));

  /* an empty middle column: columns 0 and 2 touch */
  static const guint64 xcuts3[] = {0, 5, 5, 10};
  static const guint64 ycuts3[] = {0, 10, 0, 10, 0, 10};
  LbColumns r = {3, 1, xcuts3, ycuts3};
  g_autoptr(GArray) m = neighbours(&r, 0, FALSE);
  static const guint want_m[] = {2};
  assert_ids(m, want_m, G_N_ELEMENTS(want_m));
}

static void
random_cuts(GRand *rand, guint64 *cuts, guint n, guint64 extent)
{
  cuts[0] = 0;
  cuts[n] = extent;
  for (guint i = 1; i < n; i++)
    cuts[i] = (guint64)g_rand_int_range(rand, 0, (gint32)extent + 1);
  for (guint i = 1; i < n; i++) /* insertion sort: n is small */
    for (guint j = i; j > 1 && cuts[j - 1] > cuts[j]; j--) {
      guint64 t = cuts[j];
      cuts[j] = cuts[j - 1];
      cuts[j - 1] = t;
    }
}

/* Small extents make equal cuts, empty subsets and empty columns common. */
static void
test_random_partitions(void)
{
  GRand *rand = g_rand_new_with_seed(42);
  guint partitions = 0, equal_cuts = 0;
  for (guint trial = 0; trial < 5000; trial++) {
    guint ncols = (guint)g_rand_int_range(rand, 1, 7);
    guint nrows = (guint)g_rand_int_range(rand, 1, 7);
    guint64 nx = (guint64)g_rand_int_range(rand, 1, 13);
    guint64 ny = (guint64)g_rand_int_range(rand, 1, 13);
    g_autofree guint64 *xcuts = g_new(guint64, ncols + 1);
    g_autofree guint64 *ycuts = g_new(guint64, (gsize)ncols * (nrows + 1));
    random_cuts(rand, xcuts, ncols, nx);
    for (guint c = 0; c < ncols; c++)
      random_cuts(rand, ycuts + (gsize)c * (nrows + 1), nrows, ny);
    for (guint c = 0; c < ncols; c++)
      equal_cuts += xcuts[c] == xcuts[c + 1];
    LbColumns p = {ncols, nrows, xcuts, ycuts};
    for (guint s = 0; s < ncols * nrows; s++) {
      g_autoptr(GArray) a = neighbours(&p, s, FALSE);
      g_autoptr(GArray) b = neighbours(&p, s, TRUE);
      assert_ids(a, (const guint *)b->data, b->len);
    }
    partitions++;
  }
  g_rand_free(rand);
  g_assert_cmpuint(partitions, ==, 5000);
  g_assert_cmpuint(equal_cuts, >, 500); /* the hard cases were there */
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/lbd/tdg/figure3", test_figure3);
  g_test_add_func("/lbd/tdg/open-cases", test_open_cases);
  g_test_add_func("/lbd/tdg/random", test_random_partitions);
  return g_test_run();
}
