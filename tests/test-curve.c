/* The space-filling curves: bijections onto the grid, Hilbert's unit
 * steps, aligned cubes as runs of positions, the keys of cubes, and
 * exactness at the largest orders. */
#include <glib.h>
#include <string.h>

#include "geometry/curve.h"

static const LbCurveKind kinds[] = {LB_CURVE_HILBERT, LB_CURVE_MORTON};

/* The largest orders walked cell by cell. */
static guint
walk_order(guint dim)
{
  return dim == 2 ? 7 : 5;
}

/* Row-major number of a cell, independent of any curve. */
static guint64
row_major(guint dim, guint order, const guint32 *c)
{
  guint64 n = 0;
  for (guint a = dim; a-- > 0;)
    n = (n << order) | c[a];
  return n;
}

static void
test_names(void)
{
  LbCurveKind k = LB_CURVE_MORTON;
  g_assert_true(lb_curve_parse("hilbert", &k));
  g_assert_cmpint(k, ==, LB_CURVE_HILBERT);
  g_assert_true(lb_curve_parse("morton", &k));
  g_assert_cmpint(k, ==, LB_CURVE_MORTON);
  for (guint i = 0; i < G_N_ELEMENTS(kinds); i++) {
    g_assert_true(lb_curve_parse(lb_curve_name(kinds[i]), &k));
    g_assert_cmpint(k, ==, kinds[i]);
  }
  const char *bad[] = {"Hilbert", "peano", "", "morton ", NULL};
  for (guint i = 0; bad[i] != NULL; i++)
    g_assert_false(lb_curve_parse(bad[i], &k));
  g_assert_false(lb_curve_parse(NULL, &k));
  g_assert_cmpuint(lb_curve_max_order(2), ==, 31);
  g_assert_cmpuint(lb_curve_max_order(3), ==, 21);
}

/* index -> coords lands on every cell once, and coords -> index undoes it. */
static void
test_bijection(void)
{
  for (guint k = 0; k < G_N_ELEMENTS(kinds); k++)
    for (guint dim = 2; dim <= 3; dim++)
      for (guint order = 0; order <= walk_order(dim); order++) {
        guint64 cells = (guint64)1 << (dim * order);
        g_autofree guint8 *seen = g_new0(guint8, cells);
        for (guint64 i = 0; i < cells; i++) {
          guint32 c[3] = {0};
          lb_curve_coords(kinds[k], dim, order, i, c);
          for (guint a = 0; a < dim; a++)
            g_assert_cmpuint(c[a], <, (guint64)1 << order);
          guint64 n = row_major(dim, order, c);
          g_assert_cmpuint(seen[n], ==, 0);
          seen[n] = 1;
          g_assert_cmpuint(lb_curve_index(kinds[k], dim, order, c), ==, i);
        }
      }
}

/* Consecutive cells of the Hilbert curve differ by 1 on exactly one axis. */
static void
test_hilbert_steps(void)
{
  for (guint dim = 2; dim <= 3; dim++)
    for (guint order = 1; order <= walk_order(dim); order++) {
      guint64 cells = (guint64)1 << (dim * order);
      guint32 prev[3] = {0};
      lb_curve_coords(LB_CURVE_HILBERT, dim, order, 0, prev);
      for (guint64 i = 1; i < cells; i++) {
        guint32 c[3] = {0};
        lb_curve_coords(LB_CURVE_HILBERT, dim, order, i, c);
        guint moved = 0;
        for (guint a = 0; a < dim; a++) {
          guint32 d = c[a] > prev[a] ? c[a] - prev[a] : prev[a] - c[a];
          g_assert_cmpuint(d, <=, 1);
          moved += d;
        }
        g_assert_cmpuint(moved, ==, 1);
        memcpy(prev, c, sizeof prev);
      }
    }
}

/* Every run of 2^(dim*l) positions starting at a multiple of it stays in
 * one aligned cube of side 2^l (which it fills: the curve is a bijection
 * and the cube has that many cells). */
static void
test_aligned_blocks(void)
{
  for (guint k = 0; k < G_N_ELEMENTS(kinds); k++)
    for (guint dim = 2; dim <= 3; dim++)
      for (guint order = 1; order <= walk_order(dim); order++)
        for (guint l = 1; l <= order; l++) {
          guint64 cells = (guint64)1 << (dim * order), block = (guint64)1 << (dim * l);
          guint32 first[3] = {0};
          for (guint64 i = 0; i < cells; i++) {
            guint32 c[3] = {0};
            lb_curve_coords(kinds[k], dim, order, i, c);
            if (i % block == 0)
              memcpy(first, c, sizeof first);
            for (guint a = 0; a < dim; a++)
              g_assert_cmpuint(c[a] >> l, ==, first[a] >> l);
          }
        }
}

/* lb_curve_cube_start is the smallest position of the cube's cells, and
 * the cube holds the positions from there on, as many as its cells. */
static void
test_cube_start(void)
{
  for (guint k = 0; k < G_N_ELEMENTS(kinds); k++)
    for (guint dim = 2; dim <= 3; dim++)
      for (guint order = 0; order <= walk_order(dim); order++)
        for (guint level = 0; level <= order; level++) {
          guint side = 1u << (order - level);
          guint64 cubes = (guint64)1 << (dim * level), size = (guint64)1 << (dim * (order - level));
          for (guint64 q = 0; q < cubes; q++) {
            guint32 cube[3] = {0};
            for (guint a = 0; a < dim; a++)
              cube[a] = (guint32)(q >> (a * level)) & ((1u << level) - 1);
            guint64 lo = G_MAXUINT64, hi = 0;
            for (guint64 r = 0; r < size; r++) {
              guint32 c[3] = {0};
              for (guint a = 0; a < dim; a++)
                c[a] = cube[a] * side + ((guint32)(r >> (a * (order - level))) & (side - 1));
              guint64 i = lb_curve_index(kinds[k], dim, order, c);
              lo = MIN(lo, i);
              hi = MAX(hi, i);
            }
            g_assert_cmpuint(lb_curve_cube_start(kinds[k], dim, order, level, cube), ==, lo);
            g_assert_cmpuint(hi - lo + 1, ==, size);
            g_assert_cmpuint(lo % size, ==, 0);
          }
        }
}

/* A coarser curve is the prefix of a finer one (curve.h). */
static void
test_prefix(void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed(8);
  for (guint k = 0; k < G_N_ELEMENTS(kinds); k++)
    for (guint dim = 2; dim <= 3; dim++)
      for (guint order = 1; order <= lb_curve_max_order(dim); order++)
        for (guint trial = 0; trial < 200; trial++) {
          guint level = g_rand_int_range(rand, 0, (gint32)order + 1);
          guint32 c[3], coarse[3];
          for (guint a = 0; a < dim; a++) {
            c[a] = g_rand_int(rand) & (guint32)(((guint64)1 << order) - 1);
            coarse[a] = c[a] >> (order - level);
          }
          guint shift = dim * (order - level);
          guint64 fine = lb_curve_index(kinds[k], dim, order, c);
          g_assert_cmpuint(fine >> shift, ==, lb_curve_index(kinds[k], dim, level, coarse));
          g_assert_cmpuint(fine >> shift << shift, ==,
                           lb_curve_cube_start(kinds[k], dim, order, level, coarse));
        }
}

/* Morton's documented bit order: bit b of axis a is bit dim*b + a. */
static void
test_morton_bits(void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed(3);
  for (guint dim = 2; dim <= 3; dim++) {
    guint order = lb_curve_max_order(dim);
    for (guint trial = 0; trial < 1000; trial++) {
      guint32 c[3];
      guint64 expected = 0;
      for (guint a = 0; a < dim; a++)
        c[a] = g_rand_int(rand) & (guint32)(((guint64)1 << order) - 1);
      for (guint b = 0; b < order; b++)
        for (guint a = 0; a < dim; a++)
          expected |= (guint64)(c[a] >> b & 1) << (dim * b + a);
      g_assert_cmpuint(lb_curve_index(LB_CURVE_MORTON, dim, order, c), ==, expected);
    }
  }
}

/* Hilbert's documented convention: at order 1 the binary reflected Gray
 * code with axis 0 as its highest bit; at every order from the origin to
 * (2^order - 1, 0[, 0]). */
static void
test_hilbert_convention(void)
{
  for (guint dim = 2; dim <= 3; dim++) {
    for (guint i = 0; i < 1u << dim; i++) {
      guint gray = i ^ (i >> 1);
      guint32 c[3] = {0};
      lb_curve_coords(LB_CURVE_HILBERT, dim, 1, i, c);
      for (guint a = 0; a < dim; a++)
        g_assert_cmpuint(c[a], ==, gray >> (dim - 1 - a) & 1);
    }
    for (guint order = 1; order <= lb_curve_max_order(dim); order++) {
      guint32 c[3] = {1, 1, 1};
      lb_curve_coords(LB_CURVE_HILBERT, dim, order, 0, c);
      for (guint a = 0; a < dim; a++)
        g_assert_cmpuint(c[a], ==, 0);
      guint64 last = ((guint64)1 << (dim * order)) - 1;
      lb_curve_coords(LB_CURVE_HILBERT, dim, order, last, c);
      g_assert_cmpuint(c[0], ==, ((guint64)1 << order) - 1);
      for (guint a = 1; a < dim; a++)
        g_assert_cmpuint(c[a], ==, 0);
    }
  }
}

/* At the largest orders (62 and 63 bits) random cells and positions go
 * there and back exactly; Hilbert's steps across the boundaries of large
 * cubes stay unit steps; positions stay inside their cube. */
static void
test_large_orders(void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed(2001);
  for (guint k = 0; k < G_N_ELEMENTS(kinds); k++)
    for (guint dim = 2; dim <= 3; dim++) {
      guint order = lb_curve_max_order(dim);
      guint64 cells_mask = ((guint64)1 << (dim * order)) - 1;
      for (guint trial = 0; trial < 20000; trial++) {
        guint32 c[3], back[3];
        for (guint a = 0; a < dim; a++)
          c[a] = g_rand_int(rand) & (guint32)(((guint64)1 << order) - 1);
        guint64 i = lb_curve_index(kinds[k], dim, order, c);
        g_assert_cmpuint(i, <=, cells_mask);
        lb_curve_coords(kinds[k], dim, order, i, back);
        for (guint a = 0; a < dim; a++)
          g_assert_cmpuint(back[a], ==, c[a]);

        guint64 j = ((guint64)g_rand_int(rand) << 32 | g_rand_int(rand)) & cells_mask;
        lb_curve_coords(kinds[k], dim, order, j, c);
        g_assert_cmpuint(lb_curve_index(kinds[k], dim, order, c), ==, j);

        guint level = g_rand_int_range(rand, 0, (gint32)order + 1);
        guint32 cube[3];
        for (guint a = 0; a < dim; a++)
          cube[a] = c[a] >> (order - level);
        guint64 start = lb_curve_cube_start(kinds[k], dim, order, level, cube);
        g_assert_cmpuint(start, <=, j);
        g_assert_cmpuint(j - start, <, (guint64)1 << (dim * (order - level)));

        if (kinds[k] != LB_CURVE_HILBERT)
          continue;
        /* the last cell of a random cube of a random level, and the next */
        guint s = g_rand_int_range(rand, 1, (gint32)order + 1);
        guint64 end = (j | (((guint64)1 << (dim * s)) - 1));
        if (end == cells_mask)
          continue;
        guint32 p[3], n[3];
        lb_curve_coords(LB_CURVE_HILBERT, dim, order, end, p);
        lb_curve_coords(LB_CURVE_HILBERT, dim, order, end + 1, n);
        guint64 moved = 0;
        for (guint a = 0; a < dim; a++)
          moved += p[a] > n[a] ? p[a] - n[a] : n[a] - p[a];
        g_assert_cmpuint(moved, ==, 1);
      }
    }
}

/* Read from a cell's Morton position, every curve at every order gives
 * the cell's index, which the inverse (an independent transform) takes
 * back to the cell: at every order, not only those the byte-wide tables
 * divide. */
static void
test_index_of_morton(void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed(26);
  for (guint k = 0; k < G_N_ELEMENTS(kinds); k++)
    for (guint dim = 2; dim <= 3; dim++)
      for (guint order = 0; order <= lb_curve_max_order(dim); order++)
        for (guint trial = 0; trial < 2000; trial++) {
          guint32 c[3] = {0}, back[3] = {0};
          for (guint a = 0; a < dim; a++)
            c[a] = g_rand_int(rand) & (guint32)(((guint64)1 << order) - 1);
          guint64 morton = lb_curve_index(LB_CURVE_MORTON, dim, order, c);
          guint64 i = lb_curve_index_of_morton(kinds[k], dim, order, morton);
          g_assert_cmpuint(i, ==, lb_curve_index(kinds[k], dim, order, c));
          lb_curve_coords(kinds[k], dim, order, i, back);
          for (guint a = 0; a < dim; a++)
            g_assert_cmpuint(back[a], ==, c[a]);
        }
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/curve/names", test_names);
  g_test_add_func("/curve/bijection", test_bijection);
  g_test_add_func("/curve/hilbert-steps", test_hilbert_steps);
  g_test_add_func("/curve/aligned-blocks", test_aligned_blocks);
  g_test_add_func("/curve/cube-start", test_cube_start);
  g_test_add_func("/curve/prefix", test_prefix);
  g_test_add_func("/curve/morton-bits", test_morton_bits);
  g_test_add_func("/curve/hilbert-convention", test_hilbert_convention);
  g_test_add_func("/curve/large-orders", test_large_orders);
  g_test_add_func("/curve/index-of-morton", test_index_of_morton);
  return g_test_run();
}
