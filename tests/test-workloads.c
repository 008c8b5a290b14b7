/* The 1D load array: every pattern as a pure function of (element, step),
 * the initial splits, and the integer file reader. Expected values come from
 * the definitions (a ramp of slope one, a step at a known edge, a gaussian of
 * known width), not from earlier output. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "lbsim/workload.h"

static LbArray1d
array_new(LbPattern pattern, guint64 size, guint64 seed)
{
  LbArray1d a = {0};
  a.pattern = pattern;
  a.size = size;
  a.seed = seed;
  return a;
}

static void
assert_pure(const LbArray1d *a, guint step)
{
  for (guint64 id = 0; id < a->size; id++)
    g_assert_cmpuint(lb_array1d_load(a, id, step), ==, lb_array1d_load(a, id, step));
}

/* Loads at two steps are equal everywhere. */
static gboolean
same_loads(const LbArray1d *a, guint step1, const LbArray1d *b, guint step2)
{
  for (guint64 id = 0; id < a->size; id++)
    if (lb_array1d_load(a, id, step1) != lb_array1d_load(b, id, step2))
      return FALSE;
  return TRUE;
}

static void
test_uniform(void)
{
  LbArray1d a = array_new(LB_PATTERN_UNIFORM, 1000, 5);
  a.value = 37;
  for (guint step = 0; step < 3; step++)
    for (guint64 id = 0; id < a.size; id++)
      g_assert_cmpuint(lb_array1d_load(&a, id, step), ==, 37);
  a.value = 0;
  g_assert_cmpuint(lb_array1d_load(&a, 999, 0), ==, 0);
}

static void
test_random(void)
{
  LbArray1d a = array_new(LB_PATTERN_RANDOM, 20000, 42);
  a.min = 3;
  a.max = 7;
  assert_pure(&a, 0);
  guint counts[5] = {0};
  for (guint64 id = 0; id < a.size; id++) {
    guint64 v = lb_array1d_load(&a, id, 0);
    g_assert_cmpuint(v, >=, 3);
    g_assert_cmpuint(v, <=, 7);
    counts[v - 3]++;
  }
  /* inclusive on both ends and about uniform: 4000 each, sd ~57 */
  for (guint k = 0; k < 5; k++) {
    g_assert_cmpuint(counts[k], >, 3600);
    g_assert_cmpuint(counts[k], <, 4400);
  }
  /* random is a static pattern */
  g_assert_true(same_loads(&a, 0, &a, 9));

  LbArray1d b = a;
  b.seed = 43;
  g_assert_false(same_loads(&a, 0, &b, 0));

  LbArray1d one = a;
  one.min = one.max = 12;
  for (guint64 id = 0; id < 100; id++)
    g_assert_cmpuint(lb_array1d_load(&one, id, 0), ==, 12);

  /* a wide range still reaches neither outside */
  LbArray1d wide = a;
  wide.min = 0;
  wide.max = 1000000000000000ull;
  guint64 lo = G_MAXUINT64, hi = 0;
  for (guint64 id = 0; id < wide.size; id++) {
    guint64 v = lb_array1d_load(&wide, id, 0);
    lo = MIN(lo, v);
    hi = MAX(hi, v);
  }
  g_assert_cmpuint(hi, <=, wide.max);
  g_assert_cmpuint(hi, >, wide.max / 10 * 9);
  g_assert_cmpuint(lo, <, wide.max / 10);
}

/* Index of the largest load (the first one on ties). */
static guint64
argmax(const LbArray1d *a, guint step)
{
  guint64 best = 0, best_load = 0;
  for (guint64 id = 0; id < a->size; id++) {
    guint64 v = lb_array1d_load(a, id, step);
    if (v > best_load) {
      best_load = v;
      best = id;
    }
  }
  return best;
}

static guint64
total_load(const LbArray1d *a, guint step)
{
  guint64 sum = 0;
  for (guint64 id = 0; id < a->size; id++)
    sum += lb_array1d_load(a, id, step);
  return sum;
}

static LbArray1d
one_hotspot(guint64 seed, double drift)
{
  LbArray1d a = array_new(LB_PATTERN_HOTSPOTS, 10000, seed);
  a.hotspots = 1;
  a.width = 0.01;    /* 100 elements */
  a.amplitude = 1e6; /* high enough that rounding leaves one peak element */
  a.base = 10;
  a.drift = drift;
  return a;
}

static void
test_hotspots_shape(void)
{
  g_autoptr(GHashTable) centres = g_hash_table_new(g_direct_hash, g_direct_equal);
  guint64 lowest = G_MAXUINT64, highest = 0;
  for (guint64 seed = 1; seed <= 20; seed++) {
    LbArray1d a = one_hotspot(seed, 0.0);
    assert_pure(&a, 0);
    guint64 c = argmax(&a, 0);
    guint64 peak = lb_array1d_load(&a, c, 0);
    /* base + amplitude * strength, strength in [0.5, 1] */
    g_assert_cmpuint(peak, >=, 10 + 500000);
    g_assert_cmpuint(peak, <=, 10 + 1000000);
    lowest = MIN(lowest, peak);
    highest = MAX(highest, peak);
    g_hash_table_add(centres, GSIZE_TO_POINTER(c));
    /* a gaussian whose standard deviation is width * size = 100 elements; the
     * grid puts the peak within half an element of the centre */
    double height = (double)(peak - 10);
    for (int k = 1; k <= 3; k++) {
      double expected = 10 + height * exp(-0.5 * k * k);
      guint64 right = (c + 100 * (guint64)k) % a.size;
      guint64 left = (c + a.size - 100 * (guint64)k) % a.size;
      double slack = 0.004 * height + 1; /* half an element off the centre */
      g_assert_cmpfloat_with_epsilon((double)lb_array1d_load(&a, right, 0), expected, slack);
      g_assert_cmpfloat_with_epsilon((double)lb_array1d_load(&a, left, 0), expected, slack);
    }
    /* half the circle away: background only */
    g_assert_cmpuint(lb_array1d_load(&a, (c + a.size / 2) % a.size, 0), ==, 10);
    for (guint64 id = 0; id < a.size; id++)
      g_assert_cmpuint(lb_array1d_load(&a, id, 0), >=, 10);
  }
  /* strength and place are drawn per seed */
  g_assert_cmpuint(highest - lowest, >, 100000);
  g_assert_cmpuint(g_hash_table_size(centres), ==, 20);
}

static void
test_hotspots_drift(void)
{
  LbArray1d still = one_hotspot(3, 0.0);
  g_assert_true(same_loads(&still, 0, &still, 1));
  g_assert_true(same_loads(&still, 0, &still, 100));

  /* drift 0.01 moves the peak by 100 elements per step, always the same way,
   * across the ends of the array */
  LbArray1d moving = one_hotspot(3, 0.01);
  g_assert_true(same_loads(&still, 0, &moving, 0));
  assert_pure(&moving, 7);
  g_assert_false(same_loads(&moving, 0, &moving, 1));
  gint64 direction = 0;
  guint64 previous = argmax(&moving, 0);
  for (guint step = 1; step <= 120; step++) {
    guint64 c = argmax(&moving, step);
    gint64 delta = ((gint64)c - (gint64)previous + 15000) % 10000 - 5000;
    g_assert_cmpint(ABS(delta), >=, 99);
    g_assert_cmpint(ABS(delta), <=, 101);
    if (direction == 0)
      direction = delta > 0 ? 1 : -1;
    g_assert_cmpint(delta > 0 ? 1 : -1, ==, direction);
    previous = c;
  }

  /* each hot spot picks its direction */
  gboolean left = FALSE, right = FALSE;
  for (guint64 seed = 1; seed <= 20; seed++) {
    LbArray1d a = one_hotspot(seed, 0.01);
    gint64 delta = ((gint64)argmax(&a, 1) - (gint64)argmax(&a, 0) + 15000) % 10000 - 5000;
    left |= delta < 0;
    right |= delta > 0;
  }
  g_assert_true(left && right);

  /* hot spots come back at the other end: the total load stays as it was
   * while they cross it (a cut-off gaussian would lose up to half) */
  LbArray1d many = one_hotspot(8, 0.037);
  many.hotspots = 4;
  double total0 = (double)total_load(&many, 0);
  for (guint step = 1; step <= 60; step++)
    g_assert_cmpfloat_with_epsilon((double)total_load(&many, step), total0, total0 * 0.001);

  LbArray1d other = many;
  other.seed = 9;
  g_assert_false(same_loads(&many, 0, &other, 0));
}

static void
test_ramp(void)
{
  LbArray1d a = array_new(LB_PATTERN_RAMP, 101, 1);
  a.from = 10;
  a.to = 110;
  for (guint64 id = 0; id < a.size; id++) /* slope one */
    g_assert_cmpuint(lb_array1d_load(&a, id, 0), ==, 10 + id);
  g_assert_true(same_loads(&a, 0, &a, 5));

  LbArray1d down = array_new(LB_PATTERN_RAMP, 11, 1);
  down.from = 100;
  down.to = 0;
  for (guint64 id = 0; id < down.size; id++)
    g_assert_cmpuint(lb_array1d_load(&down, id, 0), ==, 100 - 10 * id);

  LbArray1d big = array_new(LB_PATTERN_RAMP, 9999, 1);
  big.from = 5;
  big.to = 12345678901ull;
  g_assert_cmpuint(lb_array1d_load(&big, 0, 0), ==, 5);
  g_assert_cmpuint(lb_array1d_load(&big, big.size - 1, 0), ==, 12345678901ull);
  for (guint64 id = 1; id < big.size; id++)
    g_assert_cmpuint(lb_array1d_load(&big, id - 1, 0), <=, lb_array1d_load(&big, id, 0));

  LbArray1d single = array_new(LB_PATTERN_RAMP, 1, 1);
  single.from = 8;
  single.to = 80;
  g_assert_cmpuint(lb_array1d_load(&single, 0, 0), ==, 8);
}

/* Elements 0 .. edge - 1 are high, the rest low. */
static void
assert_high_left_of(const LbArray1d *a, guint step, guint64 edge)
{
  for (guint64 id = 0; id < a->size; id++)
    g_assert_cmpuint(lb_array1d_load(a, id, step), ==, id < edge ? a->high : a->low);
}

static void
test_step(void)
{
  LbArray1d a = array_new(LB_PATTERN_STEP, 100, 1);
  a.low = 2;
  a.high = 9;
  a.at = 0.5;
  assert_high_left_of(&a, 0, 50);
  assert_pure(&a, 3);
  g_assert_true(same_loads(&a, 0, &a, 4)); /* no drift, no move */

  a.at = 0.25;
  assert_high_left_of(&a, 0, 25);
  a.at = 0.0;
  assert_high_left_of(&a, 0, 0);
  a.at = 1.0; /* the edge at the right end */
  assert_high_left_of(&a, 0, 100);

  /* the edge moves by drift * size elements per step and wraps */
  a.at = 0.5;
  a.drift = 0.1;
  assert_high_left_of(&a, 1, 60);
  assert_high_left_of(&a, 4, 90);
  assert_high_left_of(&a, 6, 10);
  assert_high_left_of(&a, 13, 80);

  a.drift = -0.2;
  assert_high_left_of(&a, 1, 30);
  assert_high_left_of(&a, 3, 90);
}

static void
test_file(void)
{
  guint64 loads[] = {4, 0, 17, 17, 2};
  LbArray1d a = array_new(LB_PATTERN_FILE, G_N_ELEMENTS(loads), 1);
  a.file_loads = g_memdup2(loads, sizeof loads);
  for (guint64 id = 0; id < a.size; id++) {
    g_assert_cmpuint(lb_array1d_load(&a, id, 0), ==, loads[id]);
    g_assert_cmpuint(lb_array1d_load(&a, id, 3), ==, loads[id]);
  }
  lb_array1d_clear(&a);
  g_assert_null(a.file_loads);
  lb_array1d_clear(&a); /* twice is fine */
}

static void
assert_covering(const guint64 *bounds, guint ranks, guint64 n)
{
  g_assert_cmpuint(bounds[0], ==, 0);
  g_assert_cmpuint(bounds[ranks], ==, n);
  for (guint r = 0; r < ranks; r++)
    g_assert_cmpuint(bounds[r], <=, bounds[r + 1]);
}

static void
test_bounds_block(void)
{
  static const guint64 sizes[] = {1, 3, 10, 1000, 65536, 1000003, G_MAXUINT64 / 2};
  static const guint ranks_list[] = {1, 2, 3, 7, 8, 1024, 4099};
  for (guint i = 0; i < G_N_ELEMENTS(sizes); i++) {
    for (guint j = 0; j < G_N_ELEMENTS(ranks_list); j++) {
      guint ranks = ranks_list[j];
      LbArray1d a = array_new(LB_PATTERN_UNIFORM, sizes[i], 1);
      g_autofree guint64 *bounds = g_new(guint64, ranks + 1);
      lb_array1d_initial_bounds(&a, ranks, bounds);
      assert_covering(bounds, ranks, sizes[i]);
      guint64 lo = sizes[i] / ranks;
      for (guint r = 0; r < ranks; r++) { /* floor(N/p) or one more */
        guint64 count = bounds[r + 1] - bounds[r];
        g_assert_cmpuint(count, >=, lo);
        g_assert_cmpuint(count, <=, lo + 1);
      }
    }
  }
  LbArray1d a = array_new(LB_PATTERN_UNIFORM, 10, 1);
  guint64 bounds[4];
  lb_array1d_initial_bounds(&a, 3, bounds);
  g_assert_cmpuint(bounds[1], ==, 3);
  g_assert_cmpuint(bounds[2], ==, 6);
}

static void
test_bounds_random(void)
{
  enum { RANKS = 64 };
  LbArray1d a = array_new(LB_PATTERN_UNIFORM, 100000, 7);
  a.distribution = LB_DISTRIBUTION_RANDOM;
  guint64 first[RANKS + 1], again[RANKS + 1], other[RANKS + 1], block[RANKS + 1];
  lb_array1d_initial_bounds(&a, RANKS, first);
  lb_array1d_initial_bounds(&a, RANKS, again);
  assert_covering(first, RANKS, a.size);
  g_assert_cmpmem(first, sizeof first, again, sizeof again);

  LbArray1d b = a;
  b.seed = 8;
  lb_array1d_initial_bounds(&b, RANKS, other);
  assert_covering(other, RANKS, b.size);
  g_assert_true(memcmp(first, other, sizeof first) != 0);

  LbArray1d c = a;
  c.distribution = LB_DISTRIBUTION_BLOCK;
  lb_array1d_initial_bounds(&c, RANKS, block);
  g_assert_true(memcmp(first, block, sizeof first) != 0);
  /* cut points spread over the whole array, not bunched at one end */
  g_assert_cmpuint(first[RANKS / 2], >, a.size / 4);
  g_assert_cmpuint(first[RANKS / 2], <, a.size / 4 * 3);

  guint64 one[2];
  lb_array1d_initial_bounds(&a, 1, one);
  g_assert_cmpuint(one[0], ==, 0);
  g_assert_cmpuint(one[1], ==, a.size);
}

static void
test_bounds_file(void)
{
  guint64 counts[] = {3, 0, 5, 2};
  LbArray1d a = array_new(LB_PATTERN_UNIFORM, 10, 1);
  a.distribution = LB_DISTRIBUTION_FILE;
  a.counts = g_memdup2(counts, sizeof counts);
  a.counts_len = G_N_ELEMENTS(counts);
  guint64 bounds[5];
  lb_array1d_initial_bounds(&a, 4, bounds);
  guint64 expected[] = {0, 3, 3, 8, 10};
  g_assert_cmpmem(bounds, sizeof bounds, expected, sizeof expected);
  lb_array1d_clear(&a);
  g_assert_null(a.counts);
  g_assert_cmpuint(a.counts_len, ==, 0);
}

typedef struct {
  char *dir;
} TmpDir;

static void
tmp_dir_setup(TmpDir *t, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  t->dir = g_dir_make_tmp("lbsim-workloads-XXXXXX", &error);
  g_assert_no_error(error);
}

static void
tmp_dir_teardown(TmpDir *t, gconstpointer data)
{
  g_autoptr(GDir) dir = g_dir_open(t->dir, 0, NULL);
  const char *name;
  while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
    g_autofree char *path = g_build_filename(t->dir, name, NULL);
    g_unlink(path);
  }
  g_rmdir(t->dir);
  g_free(t->dir);
}

static char *
write_file(TmpDir *t, const char *name, const char *text)
{
  char *path = g_build_filename(t->dir, name, NULL);
  g_autoptr(GError) error = NULL;
  g_file_set_contents(path, text, -1, &error);
  g_assert_no_error(error);
  return path;
}

static void
test_read_integers(TmpDir *t, gconstpointer data)
{
  g_autofree char *path =
      write_file(t, "ok.txt", "1 2\n3\t4\r\n\n   5\n18446744073709551615\n0007");
  g_autoptr(GArray) values = NULL;
  g_autoptr(GError) error = NULL;
  g_assert_true(lb_read_integers(path, &values, &error));
  g_assert_no_error(error);
  guint64 expected[] = {1, 2, 3, 4, 5, G_MAXUINT64, 7};
  g_assert_cmpmem(values->data, values->len * sizeof(guint64), expected, sizeof expected);

  g_autofree char *empty = write_file(t, "empty.txt", " \n\n");
  g_autoptr(GArray) none = NULL;
  g_assert_true(lb_read_integers(empty, &none, &error));
  g_assert_cmpuint(none->len, ==, 0);
}

static void
assert_rejected(TmpDir *t, const char *text, guint line)
{
  g_autofree char *path = write_file(t, "bad.txt", text);
  g_autoptr(GArray) values = NULL;
  g_autoptr(GError) error = NULL;
  g_assert_false(lb_read_integers(path, &values, &error));
  g_assert_null(values);
  g_assert_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL);
  g_autofree char *where = g_strdup_printf("%s:%u:", path, line);
  g_assert_nonnull(strstr(error->message, where));
}

static void
test_read_integers_errors(TmpDir *t, gconstpointer data)
{
  assert_rejected(t, "1 2\n3\n-4\n", 3);
  assert_rejected(t, "-1", 1);
  assert_rejected(t, "10\n\n\nten\n", 4);
  assert_rejected(t, "1\r\n2\r\n3x\r\n", 3);
  assert_rejected(t, "1 2.5\n", 1);
  assert_rejected(t, "\n18446744073709551616\n", 2); /* 2^64 */

  g_autofree char *missing = g_build_filename(t->dir, "missing.txt", NULL);
  g_autoptr(GArray) values = NULL;
  g_autoptr(GError) error = NULL;
  g_assert_false(lb_read_integers(missing, &values, &error));
  g_assert_null(values);
  g_assert_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_assert_nonnull(strstr(error->message, missing));
}

int
main(int argc, char *argv[])
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/workloads/uniform", test_uniform);
  g_test_add_func("/workloads/random", test_random);
  g_test_add_func("/workloads/hotspots/shape", test_hotspots_shape);
  g_test_add_func("/workloads/hotspots/drift", test_hotspots_drift);
  g_test_add_func("/workloads/ramp", test_ramp);
  g_test_add_func("/workloads/step", test_step);
  g_test_add_func("/workloads/file", test_file);
  g_test_add_func("/workloads/bounds/block", test_bounds_block);
  g_test_add_func("/workloads/bounds/random", test_bounds_random);
  g_test_add_func("/workloads/bounds/file", test_bounds_file);
  g_test_add("/workloads/read-integers/values", TmpDir, NULL, tmp_dir_setup, test_read_integers,
             tmp_dir_teardown);
  g_test_add("/workloads/read-integers/errors", TmpDir, NULL, tmp_dir_setup,
             test_read_integers_errors, tmp_dir_teardown);
  return g_test_run();
}
