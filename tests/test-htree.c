/* The htree work model: location codes against hand-made interleavings,
 * trees against a brute-force count of points per square, the Poisson
 * estimate against the exact solution worked out here, the update's
 * bookkeeping over changing trees (every hnode on exactly one rank, new
 * hnodes with their parent), conservation, the three load cases,
 * determinism, every input error, and a real run. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/runner.h"
#include "lbsim/scenario.h"
#include "workloads/htree.h"

/* ---- helpers ---- */

/* A small deterministic generator (not the model's hashes). */
static double
lcg(guint64 *state)
{
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(*state >> 11) * 0x1.0p-53;
}

typedef struct {
  char *dir;
  char *path;
} TempFile;

static void
temp_clear(TempFile *t)
{
  if (t->path != NULL)
    g_unlink(t->path);
  if (t->dir != NULL)
    g_rmdir(t->dir);
  g_free(t->path);
  g_free(t->dir);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(TempFile, temp_clear)

static LbScenario *
load_text(TempFile *t, guint ranks, guint seed, const char *workload, GError **error)
{
  t->dir = g_dir_make_tmp("lbsim-htree-XXXXXX", NULL);
  t->path = g_build_filename(t->dir, "bad.ini", NULL);
  g_autofree char *text = g_strdup_printf("[scenario]\nplatform = hypercube-16.xml\nranks = %u\n"
                                          "seed = %u\nsteps = 4\n[balancers]\nrun = none\n"
                                          "[workload]\nmodel = htree\n%s",
                                          ranks, seed, workload);
  g_assert_true(g_file_set_contents(t->path, text, -1, NULL));
  return lb_scenario_load(t->path, NULL, error);
}

static LbScenario *
load_ok(guint ranks, guint seed, const char *workload)
{
  g_auto(TempFile) t = {0};
  g_autoptr(GError) error = NULL;
  LbScenario *sc = load_text(&t, ranks, seed, workload, &error);
  g_assert_no_error(error);
  return sc;
}

/* ---- location codes ---- */

static void
test_codes(void)
{
  guint64 c[3];
  /* 2D level 2, x = 1 (bits 01), y = 2 (bits 10): x0 y0 x1 y1 = 1 0 0 1 */
  g_assert_cmpuint(lb_htree_id(2, 2, (guint64[]){1, 2}), ==, 16 + 9);
  /* 3D level 1, (1, 0, 1): x0 y0 z0 = 1 0 1 */
  g_assert_cmpuint(lb_htree_id(3, 1, (guint64[]){1, 0, 1}), ==, 8 + 5);
  g_assert_cmpuint(lb_htree_id(2, 0, (guint64[]){0, 0}), ==, 1);
  g_assert_cmpuint(lb_htree_decode(1, 3, c), ==, 0);

  guint64 state = 7;
  for (guint dim = 2; dim <= 3; dim++) {
    guint top = dim == 2 ? LB_HTREE_MAX_LEVEL_2D : LB_HTREE_MAX_LEVEL_3D;
    for (guint level = 0; level <= top; level++)
      for (guint k = 0; k < 50; k++) {
        guint64 coords[3], back[3];
        for (guint a = 0; a < dim; a++)
          coords[a] = (guint64)(lcg(&state) * (double)(1ull << level));
        guint64 id = lb_htree_id(dim, level, coords);
        /* the level's ids are [2^(dim level), 2^(dim (level + 1))) */
        g_assert_cmpuint(id >> (dim * level), ==, 1);
        g_assert_cmpuint(lb_htree_decode(id, dim, back), ==, level);
        for (guint a = 0; a < dim; a++)
          g_assert_cmpuint(back[a], ==, coords[a]);
        if (level == top)
          continue;
        for (guint child = 0; child < 1u << dim; child++) {
          guint64 cid = lb_htree_child(id, dim, child);
          g_assert_cmpuint(lb_htree_parent(cid, dim), ==, id);
          g_assert_cmpuint(lb_htree_decode(cid, dim, back), ==, level + 1);
          for (guint a = 0; a < dim; a++)
            g_assert_cmpuint(back[a], ==, 2 * coords[a] + ((child >> a) & 1));
        }
      }
  }
  g_assert_cmpuint(lb_htree_parent(1, 2), ==, 0);
}

/* ---- trees over points, against brute force ---- */

typedef struct {
  guint dim, min_level, max_level;
  guint64 leaf;
  const double *points;
  gsize n;
  GArray *ids; /* expected hnodes */
  GHashTable *count, *leaf_of;
} Brute;

static guint64
count_in(const Brute *b, guint level, const guint64 *coords)
{
  guint64 c = 0;
  double cells = ldexp(1.0, (int)level);
  for (gsize i = 0; i < b->n; i++) {
    gboolean in = TRUE;
    for (guint a = 0; a < b->dim; a++)
      in &= (guint64)floor(b->points[i * b->dim + a] * cells) == coords[a];
    c += in;
  }
  return c;
}

static void
brute_node(Brute *b, guint level, const guint64 *coords)
{
  guint64 id = lb_htree_id(b->dim, level, coords);
  guint64 c = count_in(b, level, coords);
  gboolean split = level < b->max_level && (level < b->min_level || c > b->leaf);
  g_array_append_val(b->ids, id);
  guint64 *key = g_new(guint64, 1);
  *key = id;
  g_hash_table_insert(b->count, key, GSIZE_TO_POINTER(c + 1));
  key = g_new(guint64, 1);
  *key = id;
  g_hash_table_insert(b->leaf_of, key, GINT_TO_POINTER(split ? 1 : 2));
  if (!split)
    return;
  for (guint k = 0; k < 1u << b->dim; k++) {
    guint64 child[3];
    for (guint a = 0; a < b->dim; a++)
      child[a] = 2 * coords[a] + ((k >> a) & 1);
    brute_node(b, level + 1, child);
  }
}

static void
assert_tree_is_brute(const LbHtree *t, guint dim, guint min_level, guint max_level, guint64 leaf,
                     const double *points, gsize n)
{
  Brute b = {dim,
             min_level,
             max_level,
             leaf,
             points,
             n,
             g_array_new(FALSE, FALSE, sizeof(guint64)),
             g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL),
             g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL)};
  guint64 root[3] = {0, 0, 0};
  brute_node(&b, 0, root);
  g_assert_cmpuint(lb_htree_size(t), ==, b.ids->len);
  for (gsize i = 0; i < lb_htree_size(t); i++) {
    guint64 id = lb_htree_id_at(t, i);
    gsize at = 0;
    g_assert_true(lb_htree_find(t, id, &at));
    g_assert_cmpuint(at, ==, i);
    gpointer c = g_hash_table_lookup(b.count, &id);
    g_assert_nonnull(c);
    g_assert_cmpuint(lb_htree_elements(t, i), ==, GPOINTER_TO_SIZE(c) - 1);
    gboolean leaf_expected = GPOINTER_TO_INT(g_hash_table_lookup(b.leaf_of, &id)) == 2;
    g_assert_cmpint(lb_htree_is_leaf(t, i), ==, leaf_expected);
    g_assert_cmpuint(lb_htree_own_elements(t, i), ==, leaf_expected ? lb_htree_elements(t, i) : 0);
    /* pre-order: the parent comes earlier and its subtree covers i */
    if (i > 0) {
      gsize p = 0;
      g_assert_true(lb_htree_find(t, lb_htree_parent(id, dim), &p));
      g_assert_cmpuint(p, <, i);
      g_assert_cmpuint(p + lb_htree_subtree(t, p), >, i);
    }
  }
  g_assert_cmpuint(lb_htree_elements(t, 0), ==, n);
  g_assert_cmpuint(lb_htree_subtree(t, 0), ==, lb_htree_size(t));
  g_assert_false(lb_htree_find(t, 0, NULL));
  g_array_unref(b.ids);
  g_hash_table_unref(b.count);
  g_hash_table_unref(b.leaf_of);
}

/* Points: a tight cluster, duplicates, points on cell edges, the rest
 * uniform. */
static double *
make_points(guint dim, gsize n, guint64 seed, double cx)
{
  double *p = g_new(double, n *dim);
  guint64 state = seed;
  for (gsize i = 0; i < n; i++)
    for (guint a = 0; a < dim; a++) {
      double u = lcg(&state);
      if (i % 3 == 0)
        u = cx + u / 64; /* a cluster */
      else if (i % 17 == 0)
        u = 0.25; /* duplicates, on an edge */
      p[i * dim + a] = u;
    }
  return p;
}

static void
test_points_brute(void)
{
  for (guint dim = 2; dim <= 3; dim++) {
    gsize n = 400;
    guint max_level = dim == 2 ? 6 : 4;
    g_autofree double *p = make_points(dim, n, 3 + dim, 0.1);
    for (guint64 leaf = 0; leaf <= 9; leaf += 3) {
      g_autoptr(LbHtree) t = lb_htree_new_points(dim, 1, max_level, leaf, p, n);
      assert_tree_is_brute(t, dim, 1, max_level, leaf, p, n);
    }
    /* min-level alone: the full tree */
    g_autoptr(LbHtree) full = lb_htree_new_points(dim, 2, 2, 1000, p, n);
    g_assert_cmpuint(lb_htree_size(full), ==, 1 + (1u << dim) + (1u << (2 * dim)));
  }
}

/* The cluster leaves the corner: its deep hnodes go, new ones appear where
 * it is now. */
static void
test_points_prune(void)
{
  gsize n = 300;
  g_autofree double *before = make_points(2, n, 5, 0.0);
  g_autofree double *after = make_points(2, n, 5, 0.5);
  g_autoptr(LbHtree) a = lb_htree_new_points(2, 0, 8, 4, before, n);
  g_autoptr(LbHtree) b = lb_htree_new_points(2, 0, 8, 4, after, n);
  assert_tree_is_brute(b, 2, 0, 8, 4, after, n);
  /* the level-5 square at the origin (side 1/32) and the one at (0.5, 0.5) */
  guint64 origin = lb_htree_id(2, 5, (guint64[]){0, 0});
  guint64 middle = lb_htree_id(2, 5, (guint64[]){16, 16});
  g_assert_true(lb_htree_find(a, origin, NULL));
  g_assert_false(lb_htree_find(b, origin, NULL));
  g_assert_false(lb_htree_find(a, middle, NULL));
  g_assert_true(lb_htree_find(b, middle, NULL));
}

/* ---- what a tree may cost ---- */

/* The bound by hand: 3D, min-level 1, max-level 5, 1000 elements of at
 * most 9 a leaf: levels 0 .. 4 hold at most 1, 8, 64, 100 and 100
 * internal hnodes (1000 / 10 from level 3 on), each with 8 children. */
static void
test_max_hnodes(void)
{
  g_assert_cmpfloat(lb_htree_max_hnodes(3, 1, 5, 1000, 9), ==, 1 + 8 * (1 + 8 + 64 + 100 + 100));
  g_assert_cmpfloat(lb_htree_full_hnodes(2, 3), ==, 1 + 4 + 16 + 64);
  g_assert_cmpfloat(lb_htree_full_hnodes(3, 2), ==, 1 + 8 + 64);
  /* one point in each of the 64 finest cells, one a leaf: the full tree,
   * which the bound reaches */
  double p[64 * 2];
  for (guint i = 0; i < 64; i++) {
    p[2 * i] = ((i % 8) + 0.5) / 8;
    p[2 * i + 1] = ((i / 8) + 0.5) / 8;
  }
  g_autoptr(LbHtree) full = lb_htree_new_points(2, 0, 3, 0, p, 64);
  g_assert_cmpuint(lb_htree_size(full), ==, 85);
  g_assert_cmpfloat(lb_htree_max_hnodes(2, 0, 3, 64, 0), ==, 85);
  /* no tree of clustered and duplicate points passes it */
  for (guint dim = 2; dim <= 3; dim++) {
    gsize n = 2000;
    g_autofree double *pts = make_points(dim, n, 11 + dim, 0.3);
    for (guint64 leaf = 0; leaf <= 16; leaf += 4)
      for (guint min = 0; min <= 2; min++) {
        guint max = dim == 2 ? 12 : 8;
        g_autoptr(LbHtree) t = lb_htree_new_points(dim, min, max, leaf, pts, n);
        g_assert_cmpfloat((double)lb_htree_size(t), <=,
                          lb_htree_max_hnodes(dim, min, max, n, leaf));
      }
  }
}

/* The work's estimate: the elements' codes and the sort's buffer (16
 * bytes an element, only while a tree is built), and the bound's hnodes,
 * in lbsim's process and a run's (a run's three trees of 16 bytes an
 * hnode with room to grow: the step's, the last, the next built on the
 * side); with refine = poisson, the tree of the last step (the largest),
 * which the load builds. */
static void
test_memory_estimate(void)
{
  g_autoptr(LbScenario) sc = load_ok(4, 1,
                                     "dim = 3\nmin-level = 1\nmax-level = 5\nelements = 1000\n"
                                     "leaf-elements = 9\n");
  g_assert_cmpfloat(sc->work->memory, ==, 1000 * 16.0 + (1 + 8 * 273) * (3 * 32.0 + 40 + 32));
  /* four steps: the last has tolerance 1e-3 x 0.3^3 */
  g_autoptr(LbScenario) poisson = load_ok(4, 1,
                                          "refine = poisson\nmin-level = 1\nmax-level = 10\n"
                                          "tolerance = 1e-3\ntolerance-decay = 0.3\n");
  g_autoptr(LbHtree) first = lb_htree_new_poisson(LB_POISSON_SINH, 1, 10, 1e-3, G_MAXSIZE);
  g_autoptr(LbHtree) last =
      lb_htree_new_poisson(LB_POISSON_SINH, 1, 10, 1e-3 * pow(0.3, 3), G_MAXSIZE);
  g_assert_cmpuint(lb_htree_size(last), >, lb_htree_size(first));
  g_assert_cmpuint(lb_htree_size(lb_htree_of(poisson->work)), ==, lb_htree_size(first));
  g_assert_cmpfloat(poisson->work->memory, ==, lb_htree_size(last) * (3 * 32.0 + 40 + 32));
}

/* ---- the multigrid case ---- */

/* h of boundary condition (2), written with exponentials. */
static double
exact(double x, double y)
{
  double a = 2 * G_PI * (x + y + 2), b = 8 * G_PI;
  return 10 * cos(2 * G_PI * (x - y)) * (exp(a) - exp(-a)) / (exp(b) - exp(-b));
}

static double
surplus_here(guint level, double x, double y)
{
  double h = 1.0 / (double)(1u << level);
  double x0 = x * h, y0 = y * h;
  return fabs(exact(x0 + h / 2, y0 + h / 2) -
              (exact(x0, y0) + exact(x0 + h, y0) + exact(x0, y0 + h) + exact(x0 + h, y0 + h)) / 4);
}

static void
test_poisson_corner(void)
{
  /* u(1, 1) = 10, u(0, 0) = 10 sinh(4 pi) / sinh(8 pi) */
  g_assert_cmpfloat(fabs(lb_htree_poisson_solution(LB_POISSON_SINH, 1, 1) - 10), <, 1e-12);
  g_assert_cmpfloat(fabs(lb_htree_poisson_solution(LB_POISSON_SINH, 0, 0) - 10 * exp(-4 * G_PI)), <,
                    1e-9);
  for (guint level = 1; level <= 8; level++) {
    guint64 last = (1u << level) - 1;
    double top = lb_htree_poisson_surplus(LB_POISSON_SINH, level, last, last);
    g_assert_cmpfloat(top, >, lb_htree_poisson_surplus(LB_POISSON_SINH, level, 0, 0));
    g_assert_cmpfloat(top, >, lb_htree_poisson_surplus(LB_POISSON_SINH, level, last, 0));
    g_assert_cmpfloat(top, >, lb_htree_poisson_surplus(LB_POISSON_SINH, level, 0, last));
    /* and it grows along the diagonal towards (1, 1) */
    for (guint64 k = 0; k < last; k++)
      g_assert_cmpfloat(lb_htree_poisson_surplus(LB_POISSON_SINH, level, k, k), <,
                        lb_htree_poisson_surplus(LB_POISSON_SINH, level, k + 1, k + 1));
    for (guint64 k = 0; k <= last; k += 3)
      g_assert_cmpfloat(fabs(lb_htree_poisson_surplus(LB_POISSON_SINH, level, k, last - k) -
                             surplus_here(level, k, last - k)),
                        <, 1e-9);
  }
}

/* By hand: u(1/2, 1/2) = u(1, 0) = u(0, 1) = c = 10 sinh(6 pi) / sinh(8 pi),
 * u(1, 1) = 10, so the root's surplus is (10 + u(0, 0) - 2c) / 4 = 2.49067. */
static void
test_poisson_hand(void)
{
  double c = 10 * sinh(6 * G_PI) / sinh(8 * G_PI);
  double root = (10 + exact(0, 0) - 2 * c) / 4;
  g_assert_cmpfloat(fabs(root - 2.49067), <, 1e-5);
  g_assert_cmpfloat(fabs(lb_htree_poisson_surplus(LB_POISSON_SINH, 0, 0, 0) - root), <, 1e-12);
  g_autoptr(LbHtree) whole = lb_htree_new_poisson(LB_POISSON_SINH, 0, 1, 2.5, G_MAXSIZE);
  g_assert_cmpuint(lb_htree_size(whole), ==, 1);
  g_autoptr(LbHtree) split = lb_htree_new_poisson(LB_POISSON_SINH, 0, 1, 2.4, G_MAXSIZE);
  g_assert_cmpuint(lb_htree_size(split), ==, 5);
  /* tolerance 1, two levels: of the four level-1 squares only the one at
   * (1, 1) exceeds it */
  g_assert_cmpfloat(surplus_here(1, 1, 1), >, 1);
  g_assert_cmpfloat(surplus_here(1, 0, 0), <, 1);
  g_assert_cmpfloat(surplus_here(1, 1, 0), <, 1);
  g_assert_cmpfloat(surplus_here(1, 0, 1), <, 1);
  g_autoptr(LbHtree) t = lb_htree_new_poisson(LB_POISSON_SINH, 0, 2, 1.0, G_MAXSIZE);
  g_assert_cmpuint(lb_htree_size(t), ==, 9);
  gsize at = 0;
  g_assert_true(lb_htree_find(t, lb_htree_id(2, 1, (guint64[]){1, 1}), &at));
  g_assert_false(lb_htree_is_leaf(t, at));
  g_assert_cmpuint(lb_htree_subtree(t, at), ==, 5);
  g_assert_true(lb_htree_find(t, lb_htree_id(2, 2, (guint64[]){3, 2}), &at));
  g_assert_true(lb_htree_is_leaf(t, at));
  g_assert_true(lb_htree_find(t, lb_htree_id(2, 1, (guint64[]){0, 1}), &at));
  g_assert_true(lb_htree_is_leaf(t, at));
  /* every hnode computes one point */
  for (gsize i = 0; i < lb_htree_size(t); i++)
    g_assert_cmpuint(lb_htree_own_elements(t, i), ==, 1);
  g_assert_cmpuint(lb_htree_elements(t, 0), ==, 9);
}

/* Tolerance 0 refines every square: 1 + 4 + 16 + 64 = 85 hnodes down to
 * level 3. A budget of 85 stops the build (NULL), 86 lets it through. */
static void
test_poisson_budget(void)
{
  g_assert_null(lb_htree_new_poisson(LB_POISSON_SINH, 0, 3, 0, 85));
  g_assert_null(lb_htree_new_poisson(LB_POISSON_SINH, 0, 3, 0, 1));
  g_autoptr(LbHtree) full = lb_htree_new_poisson(LB_POISSON_SINH, 0, 3, 0, 86);
  g_assert_nonnull(full);
  g_assert_cmpuint(lb_htree_size(full), ==, 85);
  /* a larger tolerance makes a smaller tree, under the same budget */
  g_autoptr(LbHtree) some = lb_htree_new_poisson(LB_POISSON_SINH, 0, 3, 1.0, 86);
  g_assert_nonnull(some);
  g_assert_cmpuint(lb_htree_size(some), <, 85);
}

/* Boundary condition (1), h = 10: u is 10 everywhere, every surplus is 0
 * (exactly: the mean of four tens), so however small the tolerance the
 * tree is the uniform grid of min-level, 1 + 4 + ... + 4^5 = 1365 hnodes,
 * every leaf of level 5; under (2) the same tolerance refines further. */
static void
test_poisson_constant(void)
{
  for (guint level = 0; level <= 8; level++)
    g_assert_cmpfloat(lb_htree_poisson_surplus(LB_POISSON_CONSTANT, level, level, 0), ==, 0);
  g_autoptr(LbHtree) flat = lb_htree_new_poisson(LB_POISSON_CONSTANT, 5, 12, 1e-12, G_MAXSIZE);
  g_assert_cmpuint(lb_htree_size(flat), ==, 1365);
  guint leaves = 0;
  for (gsize at = 0; at < lb_htree_size(flat); at++)
    leaves += lb_htree_is_leaf(flat, at);
  g_assert_cmpuint(leaves, ==, 1024);
  g_autoptr(LbHtree) wave = lb_htree_new_poisson(LB_POISSON_SINH, 5, 12, 1e-7, G_MAXSIZE);
  g_assert_cmpuint(lb_htree_size(wave), >, 1365);
  /* the scenario key reaches the model */
  g_autoptr(LbScenario) sc = load_ok(4, 3,
                                     "refine = poisson\nboundary = constant\nmin-level = 5\n"
                                     "max-level = 12\ntolerance = 1e-9\n");
  g_assert_cmpuint(lb_htree_size(lb_htree_of(sc->work)), ==, 1365);
}

/* The tolerance decays: grids are added, never removed, and each step's
 * hierarchy is the one of its tolerance. */
static void
test_poisson_grows(void)
{
  g_autoptr(LbScenario) sc = load_ok(4, 1,
                                     "refine = poisson\nmin-level = 1\nmax-level = 10\n"
                                     "tolerance = 1e-3\ntolerance-decay = 0.3\n");
  GArray *held[4];
  for (guint r = 0; r < 4; r++) {
    held[r] = g_array_new(FALSE, FALSE, sizeof(LbUnit));
    lb_work_initial_units(sc->work, r, LB_START_NATIVE, held[r]);
  }
  gsize first = lb_htree_size(lb_htree_of(sc->work));
  g_autoptr(LbHtree) previous = NULL;
  for (guint s = 0; s < 10; s++) {
    guint before[4];
    for (guint r = 0; r < 4; r++) {
      before[r] = held[r]->len;
      g_autoptr(GArray) old = g_array_copy(held[r]);
      lb_work_update(sc->work, r, held[r], s);
      /* a rank loses nothing: its units come first among its new ones */
      g_assert_cmpuint(held[r]->len, >=, before[r]);
      for (guint i = 0, j = 0; i < old->len; i++) {
        while (g_array_index(held[r], LbUnit, j).id != g_array_index(old, LbUnit, i).id)
          j++;
        g_assert_cmpuint(j, <, held[r]->len);
      }
    }
    const LbHtree *t = lb_htree_of(sc->work);
    g_autoptr(LbHtree) direct =
        lb_htree_new_poisson(LB_POISSON_SINH, 1, 10, 1e-3 * pow(0.3, s), G_MAXSIZE);
    g_assert_cmpuint(lb_htree_size(direct), ==, lb_htree_size(t));
    for (gsize i = 0; i < lb_htree_size(t); i++)
      g_assert_cmpuint(lb_htree_id_at(direct, i), ==, lb_htree_id_at(t, i));
    for (gsize i = 0; previous != NULL && i < lb_htree_size(previous); i++)
      g_assert_true(lb_htree_find(t, lb_htree_id_at(previous, i), NULL));
    lb_htree_free(previous);
    previous = g_steal_pointer(&direct);
  }
  g_assert_cmpuint(lb_htree_size(previous), >, 4 * first);
  for (guint r = 0; r < 4; r++)
    g_array_unref(held[r]);
}

/* ---- the model's update ---- */

static guint64
total_units(GArray **held, guint p)
{
  guint64 n = 0;
  for (guint r = 0; r < p; r++)
    n += held[r]->len;
  return n;
}

/* Every hnode of the tree is held by exactly one rank; a new hnode by the
 * rank of its parent; a kept one by the rank that held it; loads as the
 * model gives them. owner maps id -> rank + 1 from the last step. */
static void
check_holding(const LbWork *work, GArray **held, guint p, GHashTable *owner)
{
  const LbHtree *t = lb_htree_of(work);
  g_assert_cmpuint(total_units(held, p), ==, lb_htree_size(t));
  g_autoptr(GHashTable) now = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  for (guint r = 0; r < p; r++)
    for (guint i = 0; i < held[r]->len; i++) {
      const LbUnit *u = &g_array_index(held[r], LbUnit, i);
      gsize at = 0;
      g_assert_true(lb_htree_find(t, u->id, &at));
      g_assert_cmpuint(u->load, ==, lb_htree_load(work, t, at));
      guint64 *key = g_new(guint64, 1);
      *key = u->id;
      g_assert_true(g_hash_table_insert(now, key, GUINT_TO_POINTER(r + 1)));
    }
  for (gsize i = 0; i < lb_htree_size(t); i++) {
    guint64 id = lb_htree_id_at(t, i);
    guint r = GPOINTER_TO_UINT(g_hash_table_lookup(now, &id));
    g_assert_cmpuint(r, >, 0);
    guint was = GPOINTER_TO_UINT(g_hash_table_lookup(owner, &id));
    if (was != 0) {
      g_assert_cmpuint(r, ==, was);
    } else if (id != 1 && g_hash_table_size(owner) > 0) {
      guint64 parent = lb_htree_parent(id, work->dim);
      g_assert_cmpuint(r, ==, GPOINTER_TO_UINT(g_hash_table_lookup(now, &parent)));
    }
  }
  g_hash_table_remove_all(owner);
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init(&it, now);
  while (g_hash_table_iter_next(&it, &k, &v)) {
    guint64 *key = g_new(guint64, 1);
    *key = *(guint64 *)k;
    g_hash_table_insert(owner, key, v);
  }
}

/* A balancer's move: the last third of rank r's units go to rank r + 3. */
static void
migrate(GArray **held, guint p, GHashTable *owner)
{
  for (guint r = 0; r < p; r++) {
    GArray *from = held[r], *to = held[(r + 3) % p];
    guint keep = from->len - from->len / 3;
    for (guint i = keep; i < from->len; i++) {
      const LbUnit *u = &g_array_index(from, LbUnit, i);
      g_array_append_val(to, *u);
      guint64 *key = g_new(guint64, 1);
      *key = u->id;
      g_hash_table_insert(owner, key, GUINT_TO_POINTER((r + 3) % p + 1));
    }
    g_array_set_size(from, keep);
  }
}

static const char *const changing[] = {
    "pattern = hotspots\nhotspots = 3\nwidth = 0.05\ndrift = 0.07\nbase = 5\n"
    "elements = 3000\nleaf-elements = 6\nmax-level = 9\n",
    "dim = 3\npattern = clusters\nclusters = 3\ninterval = 1\nwidth = 0.05\ngrowth = 0.05\n"
    "base = 1\nelements = 4000\nleaf-elements = 5\nmax-level = 7\nmin-level = 1\n",
    "pattern = shock\nwidth = 0.02\ndrift = 0.1\nbase = 1\nelements = 3000\n"
    "leaf-elements = 4\nmax-level = 10\n",
    "refine = poisson\nmin-level = 2\nmax-level = 9\ntolerance = 1e-3\n",
};

static void
test_update_case(gconstpointer data)
{
  const char *workload = data;
  guint p = 8;
  for (guint moving = 0; moving < 2; moving++) {
    g_autoptr(LbScenario) sc = load_ok(p, 2, workload);
    GArray *held[8];
    for (guint r = 0; r < p; r++) {
      held[r] = g_array_new(FALSE, FALSE, sizeof(LbUnit));
      lb_work_initial_units(sc->work, r, LB_START_NATIVE, held[r]);
    }
    g_autoptr(GHashTable) owner = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    g_autoptr(GHashTable) seen = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    guint vanished = 0, appeared = 0;
    for (guint s = 0; s < 8; s++) {
      for (guint r = 0; r < p; r++)
        lb_work_update(sc->work, r, held[r], s);
      const LbHtree *t = lb_htree_of(sc->work);
      /* what changed since the last step */
      for (gsize i = 0; s > 0 && i < lb_htree_size(t); i++) {
        guint64 id = lb_htree_id_at(t, i);
        appeared += !g_hash_table_contains(owner, &id);
      }
      GHashTableIter it;
      gpointer k;
      g_hash_table_iter_init(&it, owner);
      while (g_hash_table_iter_next(&it, &k, NULL))
        vanished += !lb_htree_find(t, *(guint64 *)k, NULL);
      check_holding(sc->work, held, p, owner);
      if (!moving) {
        /* without moves, ranks 0 .. p-1 hold the pre-order in runs */
        gsize at = 0;
        for (guint r = 0; r < p; r++)
          for (guint i = 0; i < held[r]->len; i++, at++)
            g_assert_cmpuint(g_array_index(held[r], LbUnit, i).id, ==, lb_htree_id_at(t, at));
      } else {
        migrate(held, p, owner);
      }
    }
    g_assert_cmpuint(appeared, >, 0);
    if (strstr(workload, "poisson") == NULL)
      g_assert_cmpuint(vanished, >, 0);
    else
      g_assert_cmpuint(vanished, ==, 0);
    for (guint r = 0; r < p; r++)
      g_array_unref(held[r]);
  }
}

/* ---- conservation ---- */

static void
test_conserve(void)
{
  g_autoptr(LbScenario) sc = load_ok(4, 3,
                                     "pattern = hotspots\nhotspots = 2\nwidth = 0.05\n"
                                     "elements = 5000\nload = measured\nnode-load = 2\n"
                                     "element-load = 3\n");
  const LbWork *w = sc->work;
  GArray *held[4];
  g_autoptr(GArray) all = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  LbConserved sum = {0};
  for (guint r = 0; r < 4; r++) {
    held[r] = g_array_new(FALSE, FALSE, sizeof(LbUnit));
    lb_work_initial_units(w, r, LB_START_NATIVE, held[r]);
    lb_work_update(w, r, held[r], 0);
    lb_work_conserve(w, (LbUnit *)held[r]->data, held[r]->len, &sum);
    g_array_append_vals(all, held[r]->data, held[r]->len);
  }
  const LbHtree *t = lb_htree_of(w);
  LbConserved whole = {0};
  lb_work_conserve(w, (LbUnit *)all->data, all->len, &whole);
  g_assert_cmpuint(whole.count, ==, lb_htree_size(t));
  g_assert_cmpuint(whole.count, ==, sum.count);
  g_assert_cmpuint(whole.load, ==, sum.load);
  g_assert_cmpuint(whole.checksum, ==, sum.checksum);
  /* in any order */
  LbConserved reversed = {0};
  for (guint i = all->len; i-- > 0;)
    lb_work_conserve(w, &g_array_index(all, LbUnit, i), 1, &reversed);
  g_assert_cmpuint(reversed.checksum, ==, whole.checksum);
  /* elements: the leaves hold them all; a region is its children's */
  guint64 leaves = 0, load = 0;
  for (gsize i = 0; i < lb_htree_size(t); i++) {
    leaves += lb_htree_own_elements(t, i);
    load += lb_htree_load(w, t, i);
    if (lb_htree_is_leaf(t, i))
      continue;
    guint64 id = lb_htree_id_at(t, i), children = 0;
    for (guint k = 0; k < 4; k++) {
      gsize c = 0;
      g_assert_true(lb_htree_find(t, lb_htree_child(id, 2, k), &c));
      children += lb_htree_elements(t, c);
    }
    g_assert_cmpuint(children, ==, lb_htree_elements(t, i));
  }
  g_assert_cmpuint(leaves, ==, 5000);
  g_assert_cmpuint(whole.load, ==, load);
  /* measured: 2 per hnode and 3 per element */
  g_assert_cmpuint(whole.load, ==, 2 * lb_htree_size(t) + 3 * 5000);
  /* a unit swapped for its sibling with the same load: the same count and
   * load, another checksum */
  LbUnit *u = &g_array_index(all, LbUnit, all->len - 1);
  u->id ^= 1;
  LbConserved swapped = {0};
  lb_work_conserve(w, (LbUnit *)all->data, all->len, &swapped);
  g_assert_cmpuint(swapped.count, ==, whole.count);
  g_assert_cmpuint(swapped.checksum, !=, whole.checksum);
  /* bytes: 64 per hnode, 32 per element of a leaf */
  g_assert_cmpfloat(lb_work_bytes(w, (LbUnit *)held[0]->data, 0), ==, 0);
  double bytes = 0;
  for (guint r = 0; r < 4; r++)
    bytes += lb_work_bytes(w, (LbUnit *)held[r]->data, held[r]->len);
  g_assert_cmpfloat(bytes, ==, 64.0 * (double)lb_htree_size(t) + 32.0 * 5000);
  for (guint r = 0; r < 4; r++)
    g_array_unref(held[r]);
}

/* ---- the seed's three load cases ---- */

typedef struct {
  GArray *held[4];
  LbScenario *sc;
} Run;

static void
run_start(Run *run, const char *workload)
{
  run->sc = load_ok(4, 8, workload);
  for (guint r = 0; r < 4; r++) {
    run->held[r] = g_array_new(FALSE, FALSE, sizeof(LbUnit));
    lb_work_initial_units(run->sc->work, r, LB_START_NATIVE, run->held[r]);
  }
}

static void
run_step(Run *run, guint s, GHashTable *loads)
{
  g_hash_table_remove_all(loads);
  for (guint r = 0; r < 4; r++) {
    lb_work_update(run->sc->work, r, run->held[r], s);
    for (guint i = 0; i < run->held[r]->len; i++) {
      const LbUnit *u = &g_array_index(run->held[r], LbUnit, i);
      guint64 *key = g_new(guint64, 1);
      *key = u->id;
      g_hash_table_insert(loads, key, GSIZE_TO_POINTER(u->load + 1));
    }
  }
}

static void
run_clear(Run *run)
{
  for (guint r = 0; r < 4; r++)
    g_array_unref(run->held[r]);
  lb_scenario_free(run->sc);
}

#define MOVING "pattern = hotspots\nhotspots = 2\nwidth = 0.05\ndrift = 0.05\nelements = 4000\n"

static void
test_load_constant(void)
{
  Run run;
  run_start(&run, MOVING "node-load = 7\n");
  g_autoptr(GHashTable) loads = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  for (guint s = 0; s < 3; s++) {
    run_step(&run, s, loads);
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, loads);
    while (g_hash_table_iter_next(&it, NULL, &v))
      g_assert_cmpuint(GPOINTER_TO_SIZE(v) - 1, ==, 7);
  }
  run_clear(&run);
}

static void
test_load_per_node(void)
{
  Run run;
  run_start(&run, MOVING "load = per-node\nnode-load = 3\nnode-load-max = 9\n");
  g_autoptr(GHashTable) loads = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GHashTable) first = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  guint seen[10] = {0}, compared = 0;
  for (guint s = 0; s < 4; s++) {
    run_step(&run, s, loads);
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, loads);
    while (g_hash_table_iter_next(&it, &k, &v)) {
      guint64 load = GPOINTER_TO_SIZE(v) - 1;
      g_assert_cmpuint(load, >=, 3);
      g_assert_cmpuint(load, <=, 9);
      seen[load]++;
      gpointer was = g_hash_table_lookup(first, k);
      if (was != NULL) {
        g_assert_cmpuint(GPOINTER_TO_SIZE(was), ==, GPOINTER_TO_SIZE(v));
        compared++;
      } else {
        guint64 *key = g_new(guint64, 1);
        *key = *(guint64 *)k;
        g_hash_table_insert(first, key, v);
      }
    }
  }
  g_assert_cmpuint(compared, >, 100);
  for (guint l = 3; l <= 9; l++) /* every value drawn */
    g_assert_cmpuint(seen[l], >, 0);
  run_clear(&run);
}

static void
test_load_measured(void)
{
  Run run;
  run_start(&run, MOVING "load = measured\nnode-load = 4\nelement-load = 10\n");
  g_autoptr(GHashTable) loads = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GHashTable) last = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  guint changed = 0;
  for (guint s = 0; s < 4; s++) {
    run_step(&run, s, loads);
    const LbHtree *t = lb_htree_of(run.sc->work);
    for (gsize i = 0; i < lb_htree_size(t); i++) {
      guint64 id = lb_htree_id_at(t, i);
      guint64 load = GPOINTER_TO_SIZE(g_hash_table_lookup(loads, &id)) - 1;
      guint64 want = 4 + (lb_htree_is_leaf(t, i) ? 10 * lb_htree_elements(t, i) : 0);
      g_assert_cmpuint(load, ==, want);
      gpointer was = g_hash_table_lookup(last, &id);
      changed += was != NULL && GPOINTER_TO_SIZE(was) - 1 != load;
    }
    g_hash_table_remove_all(last); /* its keys freed: the table owns them */
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, loads);
    while (g_hash_table_iter_next(&it, &k, &v)) {
      guint64 *key = g_new(guint64, 1);
      *key = *(guint64 *)k;
      g_hash_table_insert(last, key, v);
    }
  }
  g_assert_cmpuint(changed, >, 0);
  run_clear(&run);
}

/* ---- where the elements are ---- */

static double
circular(double d)
{
  d = fabs(d - floor(d));
  return MIN(d, 1 - d);
}

/* Hot spots drift along each axis by `drift` a step: an element either
 * stays (background) or moves by drift along every axis. */
static void
test_place_hotspots(void)
{
  g_autoptr(LbScenario) sc = load_ok(
      2, 4, "pattern = hotspots\nhotspots = 3\nwidth = 0.03\ndrift = 0.05\nelements = 2000\n");
  guint64 n = lb_htree_work_elements(sc->work);
  g_autofree double *a = g_new(double, n * 2);
  g_autofree double *b = g_new(double, n * 2);
  lb_htree_place(sc->work, 3, a);
  lb_htree_place(sc->work, 4, b);
  guint stayed = 0, moved = 0;
  for (guint64 i = 0; i < n; i++) {
    double dx = circular(b[2 * i] - a[2 * i]), dy = circular(b[2 * i + 1] - a[2 * i + 1]);
    g_assert_cmpfloat(a[2 * i], >=, 0);
    g_assert_cmpfloat(a[2 * i], <, 1);
    if (dx < 1e-12 && dy < 1e-12) {
      stayed++;
    } else {
      g_assert_cmpfloat(fabs(dx - 0.05), <, 1e-9);
      g_assert_cmpfloat(fabs(dy - 0.05), <, 1e-9);
      moved++;
    }
  }
  /* base 10 against three spots of 500 .. 1000 x 2 pi 0.03^2: about a
   * quarter of the elements are background */
  g_assert_cmpuint(moved, >, stayed);
  g_assert_cmpuint(stayed, >, n / 10);
}

/* Clusters: before cluster 1 appears its elements are nowhere; inside a
 * cluster's ball or uniform. */
static void
test_place_clusters(void)
{
  g_autoptr(LbScenario) sc =
      load_ok(2, 4,
              "pattern = clusters\nclusters = 2\ninterval = 3\nwidth = 0.1\ngrowth = 0.02\n"
              "base = 0\nelements = 1000\n");
  LbPattern *p = &sc->work->pattern;
  g_autofree double *x = g_new(double, 2000);
  for (guint s = 0; s < 5; s++) {
    lb_htree_place(sc->work, s, x);
    g_autoptr(LbPatternAt) at = lb_pattern_at_new(p, 2, s);
    guint inside[2] = {0, 0};
    for (guint i = 0; i < 1000; i++) {
      gboolean any = FALSE;
      for (guint k = 0; k < 2; k++) {
        LbPatternSpot c = lb_pattern_at_spot(at, k);
        double r = s >= 3 * k ? 0.1 + 0.02 * (s - 3 * k) : -1;
        g_assert_cmpfloat(fabs(c.radius - r), <, 1e-12);
        double dx = circular(x[2 * i] - c.centre[0]), dy = circular(x[2 * i + 1] - c.centre[1]);
        if (r >= 0 && dx * dx + dy * dy <= r * r * (1 + 1e-9)) {
          inside[k]++;
          any = TRUE;
        }
      }
      g_assert_true(any); /* base 0: no background */
    }
    if (s < 3)
      g_assert_cmpuint(inside[1], ==, 0);
    else
      g_assert_cmpuint(inside[1], >, 100);
  }
}

/* Shock: far more elements near the front than a uniform spread puts
 * there. */
static void
test_place_shock(void)
{
  g_autoptr(LbScenario) sc = load_ok(
      2, 4, "pattern = shock\nwidth = 0.01\nangle = 30\nat = 0.4\nbase = 1\nelements = 4000\n");
  g_autofree double *x = g_new(double, 8000);
  lb_htree_place(sc->work, 0, x);
  g_autoptr(LbPatternAt) at = lb_pattern_at_new(&sc->work->pattern, 2, 0);
  double normal[3];
  double front = lb_pattern_at_front(at, normal);
  g_assert_cmpfloat(fabs(normal[0] - cos(G_PI / 6)), <, 1e-12);
  guint near = 0;
  for (guint i = 0; i < 4000; i++)
    near += fabs(normal[0] * x[2 * i] + normal[1] * x[2 * i + 1] - front) < 0.03;
  /* a band of half-width 0.03 holds at most 0.06 x its length (< 1.5) of
   * a uniform spread: under 10%; the front's share is about 96% */
  g_assert_cmpuint(near, >, 3000);
}

/* ---- determinism ---- */

static void
test_determinism(void)
{
  const char *text = "pattern = clusters\nclusters = 3\ninterval = 1\nelements = 3000\n"
                     "load = per-node\n";
  g_autoptr(LbScenario) a = load_ok(4, 6, text);
  g_autoptr(LbScenario) b = load_ok(4, 6, text);
  g_autoptr(LbScenario) c = load_ok(4, 7, text);
  g_autofree double *pa = g_new(double, 6000);
  g_autofree double *pb = g_new(double, 6000);
  g_autofree double *pc = g_new(double, 6000);
  for (guint s = 0; s < 3; s++) {
    lb_htree_place(a->work, s, pa);
    lb_htree_place(b->work, s, pb);
    lb_htree_place(c->work, s, pc);
    g_assert_cmpmem(pa, sizeof(double) * 6000, pb, sizeof(double) * 6000);
    g_assert_true(memcmp(pa, pc, sizeof(double) * 6000) != 0);
    g_autoptr(GArray) ua = g_array_new(FALSE, FALSE, sizeof(LbUnit));
    g_autoptr(GArray) ub = g_array_new(FALSE, FALSE, sizeof(LbUnit));
    lb_work_initial_units(a->work, 1, LB_START_NATIVE, ua);
    lb_work_initial_units(b->work, 1, LB_START_NATIVE, ub);
    g_assert_cmpmem(ua->data, ua->len * sizeof(LbUnit), ub->data, ub->len * sizeof(LbUnit));
  }
  const LbHtree *ta = lb_htree_of(a->work), *tb = lb_htree_of(b->work);
  g_assert_cmpuint(lb_htree_size(ta), ==, lb_htree_size(tb));
  for (gsize i = 0; i < lb_htree_size(ta); i++)
    g_assert_cmpuint(lb_htree_id_at(ta, i), ==, lb_htree_id_at(tb, i));
}

/* ---- the next step's tree, built ahead ---- */

static void
assert_same_tree(const LbHtree *a, const LbHtree *b)
{
  g_assert_cmpuint(lb_htree_size(a), ==, lb_htree_size(b));
  for (gsize i = 0; i < lb_htree_size(a); i++) {
    g_assert_cmpuint(lb_htree_id_at(a, i), ==, lb_htree_id_at(b, i));
    g_assert_cmpuint(lb_htree_elements(a, i), ==, lb_htree_elements(b, i));
  }
}

#define AHEAD "pattern = hotspots\nhotspots = 3\nwidth = 0.04\ndrift = 0.09\nelements = 6000\n"

/* Step s's tree from a model that has built no other since step 0: no
 * thread built it. */
static LbScenario *
tree_of_step(guint s, const char *workload)
{
  LbScenario *sc = load_ok(4, 5, workload);
  g_autoptr(GArray) units = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  lb_work_initial_units(sc->work, 0, LB_START_NATIVE, units);
  lb_work_update(sc->work, 0, units, s);
  return sc;
}

/* Stepping through the scenario's 4 steps, steps 2 and 3 are built on the
 * side while the step before runs: the trees are those built directly. A
 * step skipped leaves the thread's tree unused; the Poisson problem's
 * trees (which grow step by step) come the same way. */
static void
test_ahead(void)
{
  const char *workloads[] = {AHEAD, "refine = poisson\nmin-level = 2\nmax-level = 9\n"
                                    "tolerance = 1e-3\n"};
  for (guint k = 0; k < G_N_ELEMENTS(workloads); k++) {
    g_autoptr(LbScenario) a = load_ok(4, 5, workloads[k]);
    g_autoptr(GArray) units = g_array_new(FALSE, FALSE, sizeof(LbUnit));
    lb_work_initial_units(a->work, 0, LB_START_NATIVE, units);
    gsize sizes[4] = {0};
    for (guint s = 0; s < 4; s++) {
      lb_work_update(a->work, 0, units, s);
      g_autoptr(LbScenario) b = tree_of_step(s, workloads[k]);
      assert_same_tree(lb_htree_of(a->work), lb_htree_of(b->work));
      sizes[s] = lb_htree_size(lb_htree_of(a->work));
    }
    /* the steps differ, so a tree of the wrong step would show */
    g_assert_cmpuint(sizes[1], !=, sizes[2]);
    g_assert_cmpuint(sizes[2], !=, sizes[3]);
  }
  g_autoptr(LbScenario) c = load_ok(4, 5, AHEAD);
  g_autoptr(LbScenario) three = tree_of_step(3, AHEAD);
  g_autoptr(GArray) units = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  lb_work_initial_units(c->work, 0, LB_START_NATIVE, units);
  lb_work_update(c->work, 0, units, 1); /* step 2 starts on the side */
  lb_work_update(c->work, 0, units, 3);
  assert_same_tree(lb_htree_of(c->work), lb_htree_of(three->work));
}

/* A process forked while step 2 is being built on the side has no such
 * thread: it builds step 2 itself, and both processes get step 2's tree.
 * Enough elements that the thread is still at work when the fork comes.
 * (glibc lets the child join the missing thread at once, with no result,
 * so this does not show the pid check itself, which keeps the child off
 * what POSIX leaves undefined.) */
static void
test_ahead_fork(void)
{
  const char *big = "pattern = hotspots\nhotspots = 3\nwidth = 0.04\ndrift = 0.09\n"
                    "elements = 400000\n";
  g_autoptr(LbScenario) two = tree_of_step(2, big);
  g_autoptr(LbScenario) a = load_ok(4, 5, big);
  g_autoptr(GArray) units = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  lb_work_initial_units(a->work, 0, LB_START_NATIVE, units);
  lb_work_update(a->work, 0, units, 1);
  pid_t pid = fork();
  g_assert_cmpint(pid, >=, 0);
  if (pid == 0) {
    alarm(60); /* a wait for the missing thread ends the child */
    lb_work_update(a->work, 0, units, 2);
    assert_same_tree(lb_htree_of(a->work), lb_htree_of(two->work)); /* or the child aborts */
    _exit(0);
  }
  lb_work_update(a->work, 0, units, 2);
  assert_same_tree(lb_htree_of(a->work), lb_htree_of(two->work));
  int status = 0;
  g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
  g_assert_true(WIFEXITED(status));
  g_assert_cmpint(WEXITSTATUS(status), ==, 0);
}

/* ---- input errors ---- */

typedef struct {
  const char *name, *workload, *key, *detail;
} ErrorCase;

static const ErrorCase errors[] = {
    {"dim", "dim = 4\n", "dim", "out of range"},
    {"max-level", "max-level = 25\n", "max-level", "out of range"},
    {"max-level-3d", "dim = 3\nmax-level = 17\n", "max-level", "above 16, the limit in 3D"},
    {"min-level", "min-level = 5\nmax-level = 4\n", "min-level", "above max-level (4)"},
    {"min-level-memory", "dim = 3\nmin-level = 16\nmax-level = 16\n", "min-level", "hnodes"},
    {"refine", "refine = multigrid\n", "refine", "'multigrid' is not one of"},
    {"poisson-dim", "refine = poisson\ndim = 3\n", "dim", "2D problem, but dim is 3"},
    {"poisson-elements", "refine = poisson\nelements = 10\n", "elements",
     "applies to refine elements"},
    {"poisson-leaf-elements", "refine = poisson\nleaf-elements = 4\n", "leaf-elements",
     "applies to refine elements"},
    {"poisson-pattern", "refine = poisson\npattern = hotspots\n", "pattern",
     "applies to refine elements"},
    {"poisson-pattern-key", "refine = poisson\nmin = 3\n", "min",
     "applies to refine elements, but refine is poisson"},
    {"tolerance", "tolerance = 0.1\n", "tolerance", "applies to refine poisson"},
    {"tolerance-range", "refine = poisson\ntolerance = -1\n", "tolerance", "out of range"},
    {"tolerance-decay", "tolerance-decay = 0.5\n", "tolerance-decay", "applies to refine poisson"},
    {"boundary", "boundary = constant\n", "boundary", "applies to refine poisson"},
    {"boundary-value", "refine = poisson\nboundary = cosine\n", "boundary",
     "'cosine' is not one of"},
    {"tolerance-decay-range", "refine = poisson\ntolerance-decay = 1.5\n", "tolerance-decay",
     "out of range"},
    {"elements", "elements = 0\n", "elements", "out of range"},
    {"leaf-elements", "leaf-elements = -1\n", "leaf-elements", "out of range"},
    {"load", "load = variable\n", "load", "'variable' is not one of"},
    {"node-load", "node-load = -2\n", "node-load", "out of range"},
    {"node-load-max", "node-load-max = 5\n", "node-load-max", "applies to load per-node"},
    {"node-load-max-below", "load = per-node\nnode-load = 10\nnode-load-max = 5\n", "node-load-max",
     "5 is below node-load (10)"},
    {"element-load", "load = per-node\nelement-load = 3\n", "element-load",
     "applies to load measured"},
    {"element-load-range", "load = measured\nelement-load = 2000000\n", "element-load",
     "out of range"},
    {"bytes-per-unit", "bytes-per-unit = -1\n", "bytes-per-unit", "out of range"},
    {"bytes-per-element", "bytes-per-element = -1\n", "bytes-per-element", "out of range"},
    {"flops-per-unit", "flops-per-unit = -1\n", "flops-per-unit", "out of range"},
    {"pattern-file", "pattern = file\nfile = loads.txt\n", "pattern", "htree places elements"},
    {"unknown", "size = 64x64\n", "size", "unknown key"},
};

static void
test_error(gconstpointer data)
{
  const ErrorCase *c = data;
  g_auto(TempFile) t = {0};
  g_autoptr(GError) error = NULL;
  g_autoptr(LbScenario) sc = load_text(&t, 4, 1, c->workload, &error);
  g_assert_null(sc);
  g_assert_nonnull(error);
  g_test_message("%s", error->message);
  g_autofree char *where = g_strdup_printf(": [workload] %s: ", c->key);
  g_assert_true(g_str_has_prefix(error->message, t.path));
  g_assert_nonnull(strstr(error->message, where));
  g_assert_nonnull(strstr(error->message, c->detail));
}

/* ---- a real run ---- */

static void
test_run(void)
{
  g_auto(TempFile) t = {0};
  t.dir = g_dir_make_tmp("lbsim-htree-XXXXXX", NULL);
  t.path = g_build_filename(t.dir, "run.ini", NULL);
  g_assert_true(g_file_set_contents(t.path,
                                    "[scenario]\nplatform = hypercube-16.xml\nranks = 16\n"
                                    "seed = 3\nsteps = 4\n[balancers]\nrun = none\n"
                                    "[workload]\nmodel = htree\npattern = hotspots\n"
                                    "drift = 0.05\nwidth = 0.05\nelements = 20000\n"
                                    "load = measured\n",
                                    -1, NULL));
  g_autoptr(GError) error = NULL;
  g_autoptr(LbScenario) sc = lb_scenario_load(t.path, NULL, &error);
  g_assert_no_error(error);
  LbRunnerOptions options = {.jobs = 1, .quiet = TRUE, .run = {.detail = TRUE}};
  g_autoptr(GPtrArray) results = NULL;
  int code = -1;
  gboolean ok = lb_runner_run(sc, NULL, &options, &results, &code, &error);
  g_assert_no_error(error);
  g_assert_true(ok);
  const LbRunResult *none = results->pdata[0];
  g_assert_cmpstr(none->model, ==, "htree");
  g_assert_cmpstr(none->start, ==, "Morton pre-order of the hnodes, equal counts");
  g_assert_cmpuint(none->messages, ==, 0);
  /* the loads of step 0 as the model gives them, summed */
  g_autoptr(LbScenario) again = lb_scenario_load(t.path, NULL, &error);
  const LbHtree *tree = lb_htree_of(again->work);
  guint64 total = 0;
  for (gsize i = 0; i < lb_htree_size(tree); i++)
    total += lb_htree_load(again->work, tree, i);
  g_assert_cmpuint(none->adaptations[0].total_load, ==, total);
  g_assert_cmpuint(total, ==, lb_htree_size(tree) + 20000);
  g_assert_cmpfloat(none->imbalance_after, >, 1.0);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/htree/codes", test_codes);
  g_test_add_func("/htree/memory/max-hnodes", test_max_hnodes);
  g_test_add_func("/htree/memory/estimate", test_memory_estimate);
  g_test_add_func("/htree/points/brute-force", test_points_brute);
  g_test_add_func("/htree/points/prune", test_points_prune);
  g_test_add_func("/htree/poisson/corner", test_poisson_corner);
  g_test_add_func("/htree/poisson/hand", test_poisson_hand);
  g_test_add_func("/htree/poisson/budget", test_poisson_budget);
  g_test_add_func("/htree/poisson/grows", test_poisson_grows);
  g_test_add_func("/htree/poisson/constant", test_poisson_constant);
  static const char *const names[] = {"hotspots-2d", "clusters-3d", "shock-2d", "poisson"};
  for (guint i = 0; i < G_N_ELEMENTS(changing); i++) {
    g_autofree char *name = g_strdup_printf("/htree/update/%s", names[i]);
    g_test_add_data_func(name, changing[i], test_update_case);
  }
  g_test_add_func("/htree/conserve", test_conserve);
  g_test_add_func("/htree/load/constant", test_load_constant);
  g_test_add_func("/htree/load/per-node", test_load_per_node);
  g_test_add_func("/htree/load/measured", test_load_measured);
  g_test_add_func("/htree/place/hotspots", test_place_hotspots);
  g_test_add_func("/htree/place/clusters", test_place_clusters);
  g_test_add_func("/htree/place/shock", test_place_shock);
  g_test_add_func("/htree/determinism", test_determinism);
  g_test_add_func("/htree/ahead", test_ahead);
  g_test_add_func("/htree/ahead/fork", test_ahead_fork);
  for (guint i = 0; i < G_N_ELEMENTS(errors); i++) {
    g_autofree char *name = g_strdup_printf("/htree/error/%s", errors[i].name);
    g_test_add_data_func(name, &errors[i], test_error);
  }
  g_test_add_func("/htree/run", test_run);
  return g_test_run();
}
