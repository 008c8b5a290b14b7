/* The SP sequence's arithmetic: snakes through tori of many shapes, and the
 * greedy order on cost tables made by hand, checked against the SP
 * definition and against orders derived another way. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "core/sp-order.h"

static guint
product(const guint *sizes, guint ndims)
{
  guint n = 1;
  for (guint k = 0; k < ndims; k++)
    n *= sizes[k];
  return n;
}

/* Hops between two hosts of the torus, the shorter way round in each
 * dimension. */
static guint
torus_distance(const guint *sizes, guint ndims, guint a, guint b)
{
  guint distance = 0;
  for (guint k = 0; k < ndims; k++) {
    guint x = a % sizes[k], y = b % sizes[k];
    guint delta = x > y ? x - y : y - x;
    distance += MIN(delta, sizes[k] - delta);
    a /= sizes[k];
    b /= sizes[k];
  }
  return distance;
}

static void
assert_snake(const guint *sizes, guint ndims)
{
  guint n = product(sizes, ndims);
  g_autofree guint *order = g_new(guint, n);
  g_autofree gboolean *seen = g_new0(gboolean, n);
  lb_sp_snake(sizes, ndims, order);
  g_assert_cmpuint(order[0], ==, 0);
  for (guint i = 0; i < n; i++) {
    g_assert_cmpuint(order[i], <, n);
    g_assert_false(seen[order[i]]);
    seen[order[i]] = TRUE;
    if (i > 0)
      g_assert_cmpuint(torus_distance(sizes, ndims, order[i - 1], order[i]), ==, 1);
  }
}

static void
test_snake_shapes(void)
{
  static const struct {
    guint ndims, sizes[4];
  } shapes[] = {
      {1, {2}},        {1, {7}},        {2, {2, 2}},    {2, {3, 3}},       {2, {3, 5}},
      {2, {4, 6}},     {2, {5, 4}},     {2, {7, 2}},    {2, {16, 16}},     {3, {2, 2, 2}},
      {3, {3, 3, 3}},  {3, {3, 4, 5}},  {3, {5, 3, 2}}, {3, {7, 5, 3}},    {3, {8, 8, 8}},
      {3, {8, 8, 16}}, {3, {16, 8, 8}}, {3, {9, 9, 9}}, {4, {3, 2, 5, 3}},
  };
  for (guint i = 0; i < G_N_ELEMENTS(shapes); i++)
    assert_snake(shapes[i].sizes, shapes[i].ndims);
}

/* The boustrophedon written out: rows of x alternate direction, and the
 * second plane runs the first one's path backwards. */
static void
test_snake_by_hand(void)
{
  const guint row[] = {3, 2}, plane[] = {3, 2, 2};
  const guint want_row[] = {0, 1, 2, 5, 4, 3};
  const guint want_plane[] = {0, 1, 2, 5, 4, 3, 9, 10, 11, 8, 7, 6};
  guint got[12];
  lb_sp_snake(row, 2, got);
  g_assert_cmpmem(got, sizeof want_row, want_row, sizeof want_row);
  lb_sp_snake(plane, 3, got);
  g_assert_cmpmem(got, sizeof want_plane, want_plane, sizeof want_plane);
}

/* On a torus of size-2 dimensions (a hypercube) the snake is the binary
 * reflected Gray code. */
static void
test_snake_hypercube(void)
{
  guint sizes[12];
  for (guint d = 1; d <= 12; d++) {
    sizes[d - 1] = 2;
    g_autofree guint *order = g_new(guint, 1u << d);
    lb_sp_snake(sizes, d, order);
    for (guint r = 0; r < 1u << d; r++)
      g_assert_cmpuint(order[r], ==, r ^ (r >> 1));
  }
}

static void
test_parse_sizes(void)
{
  guint sizes[LB_SP_MAX_DIMS], ndims = 0;
  g_assert_true(lb_sp_parse_sizes("8,8,16", sizes, &ndims));
  g_assert_cmpuint(ndims, ==, 3);
  g_assert_cmpuint(sizes[0], ==, 8);
  g_assert_cmpuint(sizes[2], ==, 16);
  g_assert_true(lb_sp_parse_sizes("5", sizes, &ndims));
  g_assert_cmpuint(ndims, ==, 1);
  g_assert_cmpuint(sizes[0], ==, 5);
  const char *const bad[] = {
      "",     "8,,8", "8,8,", "x",           "0,4",
      "-1,4", "4.5",  "2,+2", "65536,65536", "2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2"};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++)
    g_assert_false(lb_sp_parse_sizes(bad[i], sizes, &ndims));
  g_assert_false(lb_sp_parse_sizes(NULL, sizes, &ndims));
}

typedef struct {
  guint n;
  const double *table; /* n x n, row = from */
  GArray *asked;       /* (from, to) pairs, in the order asked */
} Table;

static double
table_cb(guint a, guint b, gpointer data)
{
  Table *t = data;
  g_assert_cmpuint(a, <, t->n);
  g_assert_cmpuint(b, <, t->n);
  guint pair[2] = {a, b};
  g_array_append_vals(t->asked, pair, 2);
  return t->table[a * t->n + b];
}

/* Also checks that step k asks the cost from the host placed last to every
 * host not yet placed, once each, and nothing else. */
static void
greedy(const double *table, guint n, guint count, guint *order, guint *calls)
{
  Table t = {.n = n, .table = table, .asked = g_array_new(FALSE, FALSE, sizeof(guint))};
  lb_sp_greedy(n, count, table_cb, &t, order);
  g_autofree gboolean *placed = g_new0(gboolean, n);
  const guint *asked = (const guint *)t.asked->data;
  guint i = 0;
  for (guint k = 1; k < count; k++) {
    placed[order[k - 1]] = TRUE;
    g_autofree gboolean *seen = g_new0(gboolean, n);
    for (guint j = 0; j < n - k; j++, i++) {
      g_assert_cmpuint(2 * i + 1, <, t.asked->len);
      g_assert_cmpuint(asked[2 * i], ==, order[k - 1]);
      g_assert_false(placed[asked[2 * i + 1]]);
      g_assert_false(seen[asked[2 * i + 1]]);
      seen[asked[2 * i + 1]] = TRUE;
    }
  }
  g_assert_cmpuint(2 * i, ==, t.asked->len);
  if (calls != NULL)
    *calls = i;
  g_array_unref(t.asked);
}

/* The SP definition (Baiardi et al. 2001): P_k's successor costs no more from P_k than any
 * later p-node; among equals, the lowest number (our tie rule). */
static void
assert_definition(const double *table, guint n, const guint *order, guint count)
{
  g_autofree gboolean *seen = g_new0(gboolean, n);
  g_assert_cmpuint(order[0], ==, 0);
  for (guint k = 0; k < count; k++) {
    g_assert_false(seen[order[k]]);
    seen[order[k]] = TRUE;
  }
  for (guint k = 0; k + 1 < count; k++) {
    double next = table[order[k] * n + order[k + 1]];
    for (guint j = k + 2; j < count; j++) {
      double later = table[order[k] * n + order[j]];
      g_assert_cmpfloat(next, <=, later);
      if (next == later)
        g_assert_cmpuint(order[k + 1], <, order[j]);
    }
  }
}

static void
test_greedy_ties(void)
{
  /* From 0, hosts 2 and 3 tie: 2. From 2, hosts 1 and 3 tie: 1. The table
   * is not symmetric: only rows of the last host placed count. */
  const double table[] = {
      0, 5, 2, 2, /* from 0 */
      9, 0, 9, 0, /* from 1 */
      1, 4, 0, 4, /* from 2 */
      0, 0, 0, 0, /* from 3 */
  };
  const guint want[] = {0, 2, 1, 3};
  guint order[4], calls = 0;
  greedy(table, 4, 4, order, &calls);
  g_assert_cmpmem(order, sizeof order, want, sizeof want);
  g_assert_cmpuint(calls, ==, 3 + 2 + 1);

  /* All costs equal: host order. */
  double flat[36];
  for (guint i = 0; i < 36; i++)
    flat[i] = 7;
  guint line[6];
  greedy(flat, 6, 6, line, NULL);
  for (guint i = 0; i < 6; i++)
    g_assert_cmpuint(line[i], ==, i);
}

/* Hosts scattered along a line, cost the distance: the greedy walks the
 * line from host 0 at its left end, so it sorts the hosts by position. */
static void
test_greedy_line(void)
{
  GRand *rand = g_rand_new_with_seed(8);
  for (guint n = 1; n <= 40; n++) {
    g_autofree guint *position = g_new(guint, n);
    for (guint i = 0; i < n; i++)
      position[i] = i;
    for (guint i = n - 1; i > 1; i--) { /* shuffle all but host 0 */
      guint j = (guint)g_rand_int_range(rand, 1, (gint32)i + 1);
      guint s = position[i];
      position[i] = position[j];
      position[j] = s;
    }
    g_autofree double *table = g_new(double, n *n);
    for (guint a = 0; a < n; a++)
      for (guint b = 0; b < n; b++)
        table[a * n + b] = fabs((double)position[a] - (double)position[b]);
    g_autofree guint *order = g_new(guint, n);
    greedy(table, n, n, order, NULL);
    for (guint k = 0; k < n; k++)
      g_assert_cmpuint(position[order[k]], ==, k);
    assert_definition(table, n, order, n);
  }
  g_rand_free(rand);
}

/* Hosts around a ring, cost the distance round it: from host 0 both ring
 * neighbours cost 1, the lower number wins, and the walk goes on that
 * way round. */
static void
test_greedy_ring(void)
{
  GRand *rand = g_rand_new_with_seed(9);
  for (guint n = 3; n <= 30; n++) {
    g_autofree guint *at = g_new(guint, n); /* host at each ring position */
    for (guint i = 0; i < n; i++)
      at[i] = i;
    for (guint i = n - 1; i > 1; i--) {
      guint j = (guint)g_rand_int_range(rand, 1, (gint32)i + 1);
      guint s = at[i];
      at[i] = at[j];
      at[j] = s;
    }
    g_autofree guint *position = g_new(guint, n);
    for (guint i = 0; i < n; i++)
      position[at[i]] = i;
    g_autofree double *table = g_new(double, n *n);
    for (guint a = 0; a < n; a++)
      for (guint b = 0; b < n; b++) {
        guint d = position[a] > position[b] ? position[a] - position[b] : position[b] - position[a];
        table[a * n + b] = MIN(d, n - d);
      }
    g_autofree guint *order = g_new(guint, n);
    greedy(table, n, n, order, NULL);
    gboolean forward = at[1] < at[n - 1];
    for (guint k = 0; k < n; k++)
      g_assert_cmpuint(order[k], ==, at[forward ? k : (n - k) % n]);
    assert_definition(table, n, order, n);
  }
  g_rand_free(rand);
}

/* Random small integer costs (many ties): the definition holds, a shorter
 * order is the longer one's prefix, and cost is asked (count - 1)(n -
 * count / 2) times. */
static void
test_greedy_random(void)
{
  GRand *rand = g_rand_new_with_seed(10);
  for (guint trial = 0; trial < 200; trial++) {
    guint n = (guint)g_rand_int_range(rand, 1, 50);
    g_autofree double *table = g_new(double, n *n);
    for (guint i = 0; i < n * n; i++)
      table[i] = g_rand_int_range(rand, 0, 4);
    g_autofree guint *full = g_new(guint, n);
    greedy(table, n, n, full, NULL);
    assert_definition(table, n, full, n);
    guint count = (guint)g_rand_int_range(rand, 0, (gint32)n + 1);
    g_autofree guint *part = g_new(guint, MAX(count, 1));
    guint calls = 0;
    greedy(table, n, count, part, &calls);
    if (count > 0)
      g_assert_cmpmem(part, count * sizeof *part, full, count * sizeof *full);
    /* (count - 1)(n - count / 2), as the header says */
    g_assert_cmpuint(2 * calls, ==, count == 0 ? 0 : (count - 1) * (2 * n - count));
  }
  g_rand_free(rand);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/sp-order/snake-shapes", test_snake_shapes);
  g_test_add_func("/sp-order/snake-by-hand", test_snake_by_hand);
  g_test_add_func("/sp-order/snake-hypercube", test_snake_hypercube);
  g_test_add_func("/sp-order/parse-sizes", test_parse_sizes);
  g_test_add_func("/sp-order/greedy-ties", test_greedy_ties);
  g_test_add_func("/sp-order/greedy-line", test_greedy_line);
  g_test_add_func("/sp-order/greedy-ring", test_greedy_ring);
  g_test_add_func("/sp-order/greedy-random", test_greedy_random);
  return g_test_run();
}
