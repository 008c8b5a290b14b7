/* Load patterns as pure functions of (cell, step), the 1D array's initial
 * splits and the integer file reader. Expected values come from the
 * definitions (a ramp of slope one, a step at a known edge, a gaussian of
 * known width), not from earlier output. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "lbsim/model.h"
#include "lbsim/workload.h"
#include "workloads/models.h"

/* A 1D pattern and its length, as the array1d model evaluates it. */
typedef struct {
  LbPatternKind pattern;
  guint64 size, seed;
  guint64 value, min, max;
  guint hotspots;
  double width, amplitude, drift;
  guint64 base, from, to, low, high;
  double at;
  guint64 *file_loads;
} Array1d;

static LbPattern
pattern_of(const Array1d *a)
{
  LbPattern p = {.kind = a->pattern,
                 .seed = a->seed,
                 .value = a->value,
                 .min = a->min,
                 .max = a->max,
                 .hotspots = a->hotspots,
                 .width = a->width,
                 .amplitude = a->amplitude,
                 .drift = a->drift,
                 .base = a->base,
                 .from = a->from,
                 .to = a->to,
                 .low = a->low,
                 .high = a->high,
                 .at = a->at,
                 .file_loads = a->file_loads,
                 .file_len = a->size};
  return p;
}

/* One pattern step at a time is kept: the tests ask for many cells of one
 * step in a row. */
static guint64
array_load(const Array1d *a, guint64 id, guint step)
{
  static LbPatternAt *cached;
  static LbPattern cached_pattern;
  static guint cached_step;
  LbPattern p = pattern_of(a);
  if (cached == NULL || cached_step != step || memcmp(&p, &cached_pattern, sizeof p) != 0) {
    lb_pattern_at_free(cached);
    cached = lb_pattern_at_new(&p, 1, step);
    cached_pattern = p;
    cached_step = step;
  }
  g_assert_cmpuint(id, <, a->size);
  return lb_pattern_load(&p, cached, 1, &id, &a->size, id);
}

static Array1d
array_new(LbPatternKind pattern, guint64 size, guint64 seed)
{
  Array1d a = {0};
  a.pattern = pattern;
  a.size = size;
  a.seed = seed;
  return a;
}

static void
assert_pure(const Array1d *a, guint step)
{
  for (guint64 id = 0; id < a->size; id++)
    g_assert_cmpuint(array_load(a, id, step), ==, array_load(a, id, step));
}

/* Loads at two steps are equal everywhere. */
static gboolean
same_loads(const Array1d *a, guint step1, const Array1d *b, guint step2)
{
  for (guint64 id = 0; id < a->size; id++)
    if (array_load(a, id, step1) != array_load(b, id, step2))
      return FALSE;
  return TRUE;
}

static void
test_uniform(void)
{
  Array1d a = array_new(LB_PATTERN_UNIFORM, 1000, 5);
  a.value = 37;
  for (guint step = 0; step < 3; step++)
    for (guint64 id = 0; id < a.size; id++)
      g_assert_cmpuint(array_load(&a, id, step), ==, 37);
  a.value = 0;
  g_assert_cmpuint(array_load(&a, 999, 0), ==, 0);
}

static void
test_random(void)
{
  Array1d a = array_new(LB_PATTERN_RANDOM, 20000, 42);
  a.min = 3;
  a.max = 7;
  assert_pure(&a, 0);
  guint counts[5] = {0};
  for (guint64 id = 0; id < a.size; id++) {
    guint64 v = array_load(&a, id, 0);
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

  Array1d b = a;
  b.seed = 43;
  g_assert_false(same_loads(&a, 0, &b, 0));

  Array1d one = a;
  one.min = one.max = 12;
  for (guint64 id = 0; id < 100; id++)
    g_assert_cmpuint(array_load(&one, id, 0), ==, 12);

  /* a wide range still reaches neither outside */
  Array1d wide = a;
  wide.min = 0;
  wide.max = 1000000000000000ull;
  guint64 lo = G_MAXUINT64, hi = 0;
  for (guint64 id = 0; id < wide.size; id++) {
    guint64 v = array_load(&wide, id, 0);
    lo = MIN(lo, v);
    hi = MAX(hi, v);
  }
  g_assert_cmpuint(hi, <=, wide.max);
  g_assert_cmpuint(hi, >, wide.max / 10 * 9);
  g_assert_cmpuint(lo, <, wide.max / 10);
}

/* Index of the largest load (the first one on ties). */
static guint64
argmax(const Array1d *a, guint step)
{
  guint64 best = 0, best_load = 0;
  for (guint64 id = 0; id < a->size; id++) {
    guint64 v = array_load(a, id, step);
    if (v > best_load) {
      best_load = v;
      best = id;
    }
  }
  return best;
}

static guint64
total_load(const Array1d *a, guint step)
{
  guint64 sum = 0;
  for (guint64 id = 0; id < a->size; id++)
    sum += array_load(a, id, step);
  return sum;
}

static Array1d
one_hotspot(guint64 seed, double drift)
{
  Array1d a = array_new(LB_PATTERN_HOTSPOTS, 10000, seed);
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
    Array1d a = one_hotspot(seed, 0.0);
    assert_pure(&a, 0);
    guint64 c = argmax(&a, 0);
    guint64 peak = array_load(&a, c, 0);
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
      g_assert_cmpfloat_with_epsilon((double)array_load(&a, right, 0), expected, slack);
      g_assert_cmpfloat_with_epsilon((double)array_load(&a, left, 0), expected, slack);
    }
    /* half the circle away: background only */
    g_assert_cmpuint(array_load(&a, (c + a.size / 2) % a.size, 0), ==, 10);
    for (guint64 id = 0; id < a.size; id++)
      g_assert_cmpuint(array_load(&a, id, 0), >=, 10);
  }
  /* strength and place are drawn per seed */
  g_assert_cmpuint(highest - lowest, >, 100000);
  g_assert_cmpuint(g_hash_table_size(centres), ==, 20);
}

static void
test_hotspots_drift(void)
{
  Array1d still = one_hotspot(3, 0.0);
  g_assert_true(same_loads(&still, 0, &still, 1));
  g_assert_true(same_loads(&still, 0, &still, 100));

  /* drift 0.01 moves the peak by 100 elements per step, always the same way,
   * across the ends of the array */
  Array1d moving = one_hotspot(3, 0.01);
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
    Array1d a = one_hotspot(seed, 0.01);
    gint64 delta = ((gint64)argmax(&a, 1) - (gint64)argmax(&a, 0) + 15000) % 10000 - 5000;
    left |= delta < 0;
    right |= delta > 0;
  }
  g_assert_true(left && right);

  /* hot spots come back at the other end: the total load stays as it was
   * while they cross it (a cut-off gaussian would lose up to half) */
  Array1d many = one_hotspot(8, 0.037);
  many.hotspots = 4;
  double total0 = (double)total_load(&many, 0);
  for (guint step = 1; step <= 60; step++)
    g_assert_cmpfloat_with_epsilon((double)total_load(&many, step), total0, total0 * 0.001);

  Array1d other = many;
  other.seed = 9;
  g_assert_false(same_loads(&many, 0, &other, 0));
}

static void
test_ramp(void)
{
  Array1d a = array_new(LB_PATTERN_RAMP, 101, 1);
  a.from = 10;
  a.to = 110;
  for (guint64 id = 0; id < a.size; id++) /* slope one */
    g_assert_cmpuint(array_load(&a, id, 0), ==, 10 + id);
  g_assert_true(same_loads(&a, 0, &a, 5));

  Array1d down = array_new(LB_PATTERN_RAMP, 11, 1);
  down.from = 100;
  down.to = 0;
  for (guint64 id = 0; id < down.size; id++)
    g_assert_cmpuint(array_load(&down, id, 0), ==, 100 - 10 * id);

  Array1d big = array_new(LB_PATTERN_RAMP, 9999, 1);
  big.from = 5;
  big.to = 12345678901ull;
  g_assert_cmpuint(array_load(&big, 0, 0), ==, 5);
  g_assert_cmpuint(array_load(&big, big.size - 1, 0), ==, 12345678901ull);
  for (guint64 id = 1; id < big.size; id++)
    g_assert_cmpuint(array_load(&big, id - 1, 0), <=, array_load(&big, id, 0));

  Array1d single = array_new(LB_PATTERN_RAMP, 1, 1);
  single.from = 8;
  single.to = 80;
  g_assert_cmpuint(array_load(&single, 0, 0), ==, 8);
}

/* Elements 0 .. edge - 1 are high, the rest low. */
static void
assert_high_left_of(const Array1d *a, guint step, guint64 edge)
{
  for (guint64 id = 0; id < a->size; id++)
    g_assert_cmpuint(array_load(a, id, step), ==, id < edge ? a->high : a->low);
}

static void
test_step(void)
{
  Array1d a = array_new(LB_PATTERN_STEP, 100, 1);
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
  Array1d a = array_new(LB_PATTERN_FILE, G_N_ELEMENTS(loads), 1);
  a.file_loads = g_memdup2(loads, sizeof loads);
  for (guint64 id = 0; id < a.size; id++) {
    g_assert_cmpuint(array_load(&a, id, 0), ==, loads[id]);
    g_assert_cmpuint(array_load(&a, id, 3), ==, loads[id]);
  }
  g_free(a.file_loads);
  LbPattern owned = {
      .kind = LB_PATTERN_FILE, .file_loads = g_memdup2(loads, sizeof loads), .file_len = 5};
  lb_pattern_clear(&owned);
  g_assert_null(owned.file_loads);
  lb_pattern_clear(&owned); /* twice is fine */
}

/* An array1d work from [workload] keys, for ranks ranks. */
static LbWork *
array1d_work(guint ranks, guint64 seed, const char *const *keys, const char *dir, GError **error)
{
  const LbModel *model = lb_model_lookup("array1d");
  LbParams *params = lb_params_new(lb_model_param_spec(model));
  for (guint i = 0; keys[i] != NULL; i += 2)
    g_assert_true(lb_params_set(params, keys[i], keys[i + 1], NULL));
  return lb_work_new(model, params, seed, ranks, 1, "test.ini", dir != NULL ? dir : ".", error);
}

/* bounds[r] .. bounds[r + 1] is what rank r starts with. */
static void
start_bounds(const LbWork *work, guint ranks, guint64 *bounds)
{
  g_autoptr(GArray) units = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  bounds[0] = 0;
  for (guint r = 0; r < ranks; r++) {
    lb_work_initial_units(work, r, LB_START_NATIVE, units);
    for (guint i = 0; i < units->len; i++) /* contiguous, from where rank r - 1 ended */
      g_assert_cmpuint(g_array_index(units, LbUnit, i).id, ==, bounds[r] + i);
    bounds[r + 1] = bounds[r] + units->len;
  }
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
  static const char *const sizes[] = {"1", "3", "10", "1000", "65536", "1000003"};
  static const guint ranks_list[] = {1, 2, 3, 7, 8, 1024, 4099};
  for (guint i = 0; i < G_N_ELEMENTS(sizes); i++) {
    for (guint j = 0; j < G_N_ELEMENTS(ranks_list); j++) {
      guint ranks = ranks_list[j];
      const char *keys[] = {"size", sizes[i], NULL};
      g_autoptr(LbWork) w = array1d_work(ranks, 1, keys, NULL, NULL);
      g_autofree guint64 *bounds = g_new(guint64, ranks + 1);
      start_bounds(w, ranks, bounds);
      guint64 n = g_ascii_strtoull(sizes[i], NULL, 10);
      assert_covering(bounds, ranks, n);
      guint64 lo = n / ranks;
      for (guint r = 0; r < ranks; r++) { /* floor(N/p) or one more */
        guint64 count = bounds[r + 1] - bounds[r];
        g_assert_cmpuint(count, >=, lo);
        g_assert_cmpuint(count, <=, lo + 1);
      }
    }
  }
  const char *keys[] = {"size", "10", NULL};
  g_autoptr(LbWork) w = array1d_work(3, 1, keys, NULL, NULL);
  guint64 bounds[4];
  start_bounds(w, 3, bounds);
  g_assert_cmpuint(bounds[1], ==, 3);
  g_assert_cmpuint(bounds[2], ==, 6);
  g_autofree char *how = lb_work_describe_start(w, LB_START_NATIVE);
  g_assert_cmpstr(how, ==, "block");
}

static void
test_bounds_random(void)
{
  enum { RANKS = 64 };
  const char *keys[] = {"size", "100000", "distribution", "random", NULL};
  guint64 first[RANKS + 1], again[RANKS + 1], other[RANKS + 1], block[RANKS + 1];
  g_autoptr(LbWork) a = array1d_work(RANKS, 7, keys, NULL, NULL);
  g_autoptr(LbWork) a2 = array1d_work(RANKS, 7, keys, NULL, NULL);
  start_bounds(a, RANKS, first);
  start_bounds(a2, RANKS, again);
  assert_covering(first, RANKS, 100000);
  g_assert_cmpmem(first, sizeof first, again, sizeof again);

  g_autoptr(LbWork) b = array1d_work(RANKS, 8, keys, NULL, NULL);
  start_bounds(b, RANKS, other);
  assert_covering(other, RANKS, 100000);
  g_assert_true(memcmp(first, other, sizeof first) != 0);

  const char *block_keys[] = {"size", "100000", NULL};
  g_autoptr(LbWork) c = array1d_work(RANKS, 7, block_keys, NULL, NULL);
  start_bounds(c, RANKS, block);
  g_assert_true(memcmp(first, block, sizeof first) != 0);
  /* cut points spread over the whole array, not bunched at one end */
  g_assert_cmpuint(first[RANKS / 2], >, 100000 / 4);
  g_assert_cmpuint(first[RANKS / 2], <, 100000 / 4 * 3);

  guint64 one[2];
  g_autoptr(LbWork) single = array1d_work(1, 7, keys, NULL, NULL);
  start_bounds(single, 1, one);
  g_assert_cmpuint(one[0], ==, 0);
  g_assert_cmpuint(one[1], ==, 100000);
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
test_bounds_file(TmpDir *t, gconstpointer data)
{
  g_autofree char *path = write_file(t, "counts.txt", "3 0\n5 2\n");
  const char *keys[] = {"size", "10", "distribution", "file", "distribution-file", path, NULL};
  g_autoptr(GError) error = NULL;
  g_autoptr(LbWork) w = array1d_work(4, 1, keys, t->dir, &error);
  g_assert_no_error(error);
  guint64 bounds[5];
  start_bounds(w, 4, bounds);
  guint64 expected[] = {0, 3, 3, 8, 10};
  g_assert_cmpmem(bounds, sizeof bounds, expected, sizeof expected);

  /* counts whose sum wraps around 2^64 to the size must not pass */
  g_autofree char *wrap = write_file(t, "wrap.txt", "18446744073709551615 11 0 0\n");
  const char *wrap_keys[] = {"size", "10", "distribution", "file", "distribution-file", wrap, NULL};
  g_autoptr(LbWork) bad = array1d_work(4, 1, wrap_keys, t->dir, &error);
  g_assert_null(bad);
  g_assert_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID);
  g_assert_nonnull(strstr(error->message, "[workload] distribution-file"));
  g_assert_nonnull(strstr(error->message, "more than 2^64"));
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

  /* a NUL byte does not end the file silently */
  g_autofree char *nul = g_build_filename(t->dir, "nul.txt", NULL);
  g_assert_true(g_file_set_contents(nul, "1 2\n3\0 4 5\n", 11, NULL));
  g_autoptr(GArray) cut = NULL;
  g_autoptr(GError) nul_error = NULL;
  g_assert_false(lb_read_integers(nul, &cut, &nul_error));
  g_assert_error(nul_error, G_FILE_ERROR, G_FILE_ERROR_INVAL);
  g_autofree char *where = g_strdup_printf("%s:2: a NUL byte", nul);
  g_assert_nonnull(strstr(nul_error->message, where));

  g_autofree char *missing = g_build_filename(t->dir, "missing.txt", NULL);
  g_autoptr(GArray) values = NULL;
  g_autoptr(GError) error = NULL;
  g_assert_false(lb_read_integers(missing, &values, &error));
  g_assert_null(values);
  g_assert_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_assert_nonnull(strstr(error->message, missing));
}

/* The sum every hot spot adds, without skipping any: the definition the
 * bucketed, skipping code (with or without its tables along each axis)
 * must reproduce bit for bit. A spot adds height x the product over the
 * axes of exp(-z_a^2 / 2), in axis order. */
static guint64
naive_hotspots(const LbPattern *p, guint dim, const guint64 *index, const guint64 *size, guint step)
{
  double load = (double)p->base;
  for (guint k = 0; k < p->hotspots; k++) {
    /* the centre and height of spot k, from the definition's streams */
    double factor[3];
    double height = 0;
    for (guint a = 0; a < dim; a++) {
      guint64 seed = p->seed;
      double start =
          (double)(lb_hash64(seed ^ lb_hash64((a == 0 ? 1 : 16 + a) * 0x100000001b3ull + k)) >>
                   11) *
          0x1.0p-53;
      double dir =
          (double)(lb_hash64(seed ^ lb_hash64((a == 0 ? 3 : 32 + a) * 0x100000001b3ull + k)) >>
                   11) *
                      0x1.0p-53 <
                  0.5
              ? -1.0
              : 1.0;
      double c = start + dir * p->drift * step;
      c = c - floor(c);
      double x = ((double)index[a] + 0.5) / (double)size[a];
      double d = fabs(x - c);
      d = d > 0.5 ? 1.0 - d : d;
      double z = d / p->width;
      factor[a] = exp(-0.5 * (z * z));
    }
    height = p->amplitude *
             (0.5 + 0.5 * (double)(lb_hash64(p->seed ^ lb_hash64(2 * 0x100000001b3ull + k)) >> 11) *
                        0x1.0p-53);
    double c = height;
    for (guint a = 0; a < dim; a++)
      c *= factor[a];
    load += c;
  }
  return (guint64)llround(load);
}

/* lb_round_load is llround for every double a load can be: halves (up,
 * away from zero), the doubles next to them, the edge at 2^52 where the
 * short path ends, and random magnitudes; outside its range it falls back. */
static void
test_round_load(void)
{
  double edges[] = {0.0,
                    0.5,
                    1.5,
                    2.5,
                    0.49999999999999994,
                    nextafter(0.5, 1.0),
                    nextafter(1.5, 0.0),
                    nextafter(2.5, 3.0),
                    4503599627370495.5,
                    nextafter(0x1p52, 0.0),
                    0x1p52,
                    0x1p52 + 1.0,
                    0x1p62,
                    -0.5,
                    -2.5,
                    -1e-300};
  for (guint i = 0; i < G_N_ELEMENTS(edges); i++)
    g_assert_cmpuint(lb_round_load(edges[i]), ==, (guint64)llround(edges[i]));
  g_autoptr(GRand) rand = g_rand_new_with_seed(11);
  for (guint i = 0; i < 200000; i++) {
    double v = ldexp(g_rand_double(rand), g_rand_int_range(rand, -4, 60));
    double half = floor(v) + 0.5; /* and the half next to it, exactly */
    g_assert_cmpuint(lb_round_load(v), ==, (guint64)llround(v));
    g_assert_cmpuint(lb_round_load(half), ==, (guint64)llround(half));
  }
}

static void
test_hotspots_skip_exact(void)
{
  static const struct {
    guint dim, spots;
    double width, amplitude;
    guint64 base;
  } cases[] = {
      {1, 40, 0.001, 1000, 10}, {1, 40, 0.02, 1e6, 10},  {1, 7, 0.3, 500, 1},
      {1, 30, 0.01, 1000, 0},   {2, 25, 0.01, 2000, 10}, {2, 10, 0.2, 1e9, 3},
      {3, 12, 0.05, 800, 10},   {2, 16, 0.003, 1e4, 0},
  };
  for (guint c = 0; c < G_N_ELEMENTS(cases); c++) {
    LbPattern p = {.kind = LB_PATTERN_HOTSPOTS,
                   .seed = 5 + c,
                   .hotspots = cases[c].spots,
                   .width = cases[c].width,
                   .amplitude = cases[c].amplitude,
                   .base = cases[c].base,
                   .drift = 0.013};
    guint dim = cases[c].dim;
    guint64 size[3] = {dim == 1 ? 5000 : dim == 2 ? 90 : 24, dim >= 2 ? 70 : 1, dim == 3 ? 20 : 1};
    for (guint step = 0; step < 3; step++) {
      g_autoptr(LbPatternAt) ps = lb_pattern_at_new(&p, dim, step);
      g_autoptr(LbPatternAt) tabled = lb_pattern_at_new(&p, dim, step);
      lb_pattern_at_prepare(tabled, &p, size);
      guint64 index[3] = {0};
      for (index[2] = 0; index[2] < size[2]; index[2]++)
        for (index[1] = 0; index[1] < size[1]; index[1]++)
          for (index[0] = 0; index[0] < size[0]; index[0]++) {
            guint64 id = index[0] + size[0] * (index[1] + size[1] * index[2]);
            guint64 want = naive_hotspots(&p, dim, index, size, step);
            g_assert_cmpuint(lb_pattern_load(&p, ps, dim, index, size, id), ==, want);
            g_assert_cmpuint(lb_pattern_load(&p, tabled, dim, index, size, id), ==, want);
          }
      /* in batches: the whole grid in order, a box row by row (runs that
       * end inside a row, and a run that ends where the next row starts),
       * and the box's units shuffled */
      guint64 lo[3] = {size[0] / 3, dim >= 2 ? 1 : 0, 0};
      guint64 hi[3] = {dim == 1 ? size[0] : size[0] - 2, size[1], dim == 3 ? size[2] / 2 : 1};
      g_autoptr(GArray) all = g_array_new(FALSE, FALSE, sizeof(LbUnit));
      g_autoptr(GArray) box = g_array_new(FALSE, FALSE, sizeof(LbUnit));
      g_autoptr(GArray) want = g_array_new(FALSE, FALSE, sizeof(guint64));
      g_autoptr(GArray) box_want = g_array_new(FALSE, FALSE, sizeof(guint64));
      for (index[2] = 0; index[2] < size[2]; index[2]++)
        for (index[1] = 0; index[1] < size[1]; index[1]++)
          for (index[0] = 0; index[0] < size[0]; index[0]++) {
            LbUnit u = {index[0] + size[0] * (index[1] + size[1] * index[2]), 0};
            guint64 w = naive_hotspots(&p, dim, index, size, step);
            g_array_append_val(all, u);
            g_array_append_val(want, w);
            gboolean inside = TRUE;
            for (guint a = 0; a < 3; a++)
              inside = inside && index[a] >= lo[a] && index[a] < hi[a];
            if (inside) {
              g_array_append_val(box, u);
              g_array_append_val(box_want, w);
            }
          }
      for (guint pass = 0; pass < 3; pass++) {
        GArray *units = pass == 0 ? all : box, *wanted = pass == 0 ? want : box_want;
        if (pass == 2) /* the box's units reversed pairwise: no run left */
          for (guint i = 0; i + 1 < units->len - 1 - i; i += 2) {
            guint j = units->len - 1 - i;
            LbUnit t = g_array_index(units, LbUnit, i);
            g_array_index(units, LbUnit, i) = g_array_index(units, LbUnit, j);
            g_array_index(units, LbUnit, j) = t;
            guint64 tw = g_array_index(wanted, guint64, i);
            g_array_index(wanted, guint64, i) = g_array_index(wanted, guint64, j);
            g_array_index(wanted, guint64, j) = tw;
          }
        for (guint t = 0; t < 2; t++) {
          for (guint i = 0; i < units->len; i++)
            g_array_index(units, LbUnit, i).load = G_MAXUINT64;
          lb_pattern_load_units(&p, t ? tabled : ps, dim, size, (LbUnit *)units->data, units->len);
          for (guint i = 0; i < units->len; i++)
            g_assert_cmpuint(g_array_index(units, LbUnit, i).load, ==,
                             g_array_index(wanted, guint64, i));
        }
      }
      /* tables made for another grid are not used for this one */
      guint64 other[3] = {size[0] + 1, size[1], size[2]};
      g_autoptr(LbPatternAt) elsewhere = lb_pattern_at_new(&p, dim, step);
      lb_pattern_at_prepare(elsewhere, &p, other);
      for (guint64 i = 0; i < size[0]; i++) {
        guint64 at[3] = {i, size[1] / 2, size[2] / 2};
        guint64 id = at[0] + size[0] * (at[1] + size[1] * at[2]);
        g_assert_cmpuint(lb_pattern_load(&p, elsewhere, dim, at, size, id), ==,
                         naive_hotspots(&p, dim, at, size, step));
      }
    }
  }
}

/* At the size the cap allows, 1000 narrow spots over 10^6 elements, the
 * skipping still gives the full sum exactly (checked on every 97th element),
 * and it is cheap: the time of the whole step is reported. */
static void
test_hotspots_many(void)
{
  LbPattern p = {.kind = LB_PATTERN_HOTSPOTS,
                 .seed = 1,
                 .hotspots = 1000,
                 .width = 0.001,
                 .amplitude = 1000,
                 .base = 10};
  g_autoptr(LbPatternAt) ps = lb_pattern_at_new(&p, 1, 0);
  guint64 size = 1000000, raised = 0;
  gint64 start = g_get_monotonic_time();
  for (guint64 id = 0; id < size; id++) {
    guint64 v = lb_pattern_load(&p, ps, 1, &id, &size, id);
    g_assert_cmpuint(v, >=, 10);
    raised += v > 10;
  }
  double seconds = (double)(g_get_monotonic_time() - start) / 1e6;
  g_test_message("1000 hot spots on 10^6 elements: %.2f s", seconds);
  for (guint64 id = 0; id < size; id += 97)
    g_assert_cmpuint(lb_pattern_load(&p, ps, 1, &id, &size, id), ==,
                     naive_hotspots(&p, 1, &id, &size, 0));
  /* 1000 spots of sigma 1000 elements raise much of the array */
  g_assert_cmpuint(raised, >, size / 4);
}

static void
test_shock(void)
{
  /* a front at 45 degrees through the middle of a 2D field */
  LbPattern p = {.kind = LB_PATTERN_SHOCK,
                 .seed = 1,
                 .width = 0.02,
                 .amplitude = 1000,
                 .base = 5,
                 .at = 0.5,
                 .angle = 45,
                 .drift = 0.1};
  guint64 size[2] = {100, 100};
  g_autoptr(LbPatternAt) ps = lb_pattern_at_new(&p, 2, 0);
  /* the normal is (1, 1)/sqrt(2): the front passes through cells with
   * x + y near the middle of the projected range, on the anti-diagonal */
  guint64 on[2] = {49, 50}, off[2] = {10, 10}, far[2] = {90, 95};
  g_assert_cmpuint(lb_pattern_load(&p, ps, 2, on, size, 0), >, 900);
  g_assert_cmpuint(lb_pattern_load(&p, ps, 2, off, size, 0), ==, 5);
  g_assert_cmpuint(lb_pattern_load(&p, ps, 2, far, size, 0), ==, 5);
  /* symmetric about the front */
  guint64 a[2] = {40, 50}, b[2] = {58, 50};
  g_assert_cmpuint(lb_pattern_load(&p, ps, 2, a, size, 0), ==,
                   lb_pattern_load(&p, ps, 2, b, size, 0));
  /* the front moves by drift of the projected range per step: after one
   * step it lies at 0.6 of it, x + y = 1.2 */
  g_autoptr(LbPatternAt) next = lb_pattern_at_new(&p, 2, 1);
  guint64 moved[2] = {59, 60};
  g_assert_cmpuint(lb_pattern_load(&p, next, 2, moved, size, 0), >, 900);
  g_assert_cmpuint(lb_pattern_load(&p, next, 2, on, size, 0), <, 10);
}

static void
test_clusters(void)
{
  LbPattern p = {.kind = LB_PATTERN_CLUSTERS,
                 .seed = 4,
                 .clusters = 3,
                 .width = 0.05,
                 .growth = 0.02,
                 .interval = 2,
                 .amplitude = 100,
                 .base = 1};
  guint64 size[2] = {64, 64};
  guint64 previous = 0;
  for (guint step = 0; step < 8; step++) {
    g_autoptr(LbPatternAt) ps = lb_pattern_at_new(&p, 2, step);
    guint64 total = 0, hot = 0, index[2];
    for (index[1] = 0; index[1] < 64; index[1]++)
      for (index[0] = 0; index[0] < 64; index[0]++) {
        guint64 v = lb_pattern_load(&p, ps, 2, index, size, 0);
        g_assert_cmpuint((v - 1) % 100, ==, 0); /* base plus whole clusters */
        total += v;
        hot += v > 1;
      }
    /* cluster 0 is there from step 0; clusters only appear and grow */
    g_assert_cmpuint(hot, >, 0);
    g_assert_cmpuint(total, >=, previous);
    if (step == 2 || step == 4) /* a new cluster appears */
      g_assert_cmpuint(total, >, previous);
    previous = total;
  }
}

static LbWork *
field_work(const char *model, guint ranks, const char *const *keys)
{
  const LbModel *m = lb_model_lookup(model);
  LbParams *params = lb_params_new(lb_model_param_spec(m));
  for (guint i = 0; keys[i] != NULL; i += 2)
    g_assert_true(lb_params_set(params, keys[i], keys[i + 1], NULL));
  g_autoptr(GError) error = NULL;
  LbWork *w = lb_work_new(m, params, 1, ranks, 1, "test.ini", ".", &error);
  g_assert_no_error(error);
  return w;
}

static void
test_square_factors(void)
{
  static const struct {
    guint p, dim;
    guint64 f[3];
  } cases[] = {{64, 2, {8, 8}},       {32, 2, {8, 4}},     {1024, 2, {32, 32}},
               {12, 2, {4, 3}},       {7, 2, {7, 1}},      {1, 2, {1, 1}},
               {1024, 3, {16, 8, 8}}, {512, 3, {8, 8, 8}}, {24, 3, {4, 3, 2}},
               {16384, 2, {128, 128}}};
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    guint64 f[3] = {0};
    lb_grid_square_factors(cases[i].p, cases[i].dim, f);
    for (guint a = 0; a < cases[i].dim; a++)
      g_assert_cmpuint(f[a], ==, cases[i].f[a]);
  }
}

/* Blocks of the processor grid cover every cell once, have the block
 * shape, and come sorted; the order start gives contiguous pieces. */
static void
test_field_blocks(void)
{
  const char *keys2[] = {"size", "10x7", "procs", "3x2", NULL};
  const char *keys3[] = {"model", "field3d", "size", "5x4x6", NULL};
  struct {
    const char *model;
    guint ranks;
    const char *const *keys;
  } cases[] = {{"field2d", 6, keys2}, {"field3d", 8, keys3}};
  for (guint c = 0; c < G_N_ELEMENTS(cases); c++) {
    g_autoptr(LbWork) w = field_work(cases[c].model, cases[c].ranks, cases[c].keys);
    g_autofree guint *seen = g_new0(guint, w->cells);
    g_autoptr(GArray) units = g_array_new(FALSE, FALSE, sizeof(LbUnit));
    for (guint r = 0; r < cases[c].ranks; r++) {
      lb_work_initial_units(w, r, LB_START_NATIVE, units);
      guint64 expect = 1;
      guint64 rest = r;
      for (guint a = 0; a < w->dim; a++) { /* floor(N/P) or one more along each axis */
        guint64 co = rest % w->procs[a];
        rest /= w->procs[a];
        expect *= (w->size[a] * (co + 1)) / w->procs[a] - (w->size[a] * co) / w->procs[a];
      }
      g_assert_cmpuint(units->len, ==, expect);
      for (guint i = 0; i < units->len; i++) {
        guint64 id = g_array_index(units, LbUnit, i).id;
        g_assert_true(i == 0 || id > g_array_index(units, LbUnit, i - 1).id);
        seen[id]++;
      }
    }
    for (guint64 id = 0; id < w->cells; id++)
      g_assert_cmpuint(seen[id], ==, 1);
    guint64 next = 0;
    for (guint r = 0; r < cases[c].ranks; r++) {
      lb_work_initial_units(w, r, LB_START_ORDER, units);
      for (guint i = 0; i < units->len; i++)
        g_assert_cmpuint(g_array_index(units, LbUnit, i).id, ==, next++);
    }
    g_assert_cmpuint(next, ==, w->cells);
  }
  g_autoptr(LbWork) w = field_work("field2d", 6, keys2);
  g_autofree char *native = lb_work_describe_start(w, LB_START_NATIVE);
  g_autofree char *order = lb_work_describe_start(w, LB_START_ORDER);
  g_assert_cmpstr(native, ==, "blocks 3x2");
  g_assert_cmpstr(order, ==, "linear blocks (row-major)");
}

/* The shared faces the model reports equal a brute-force count over every
 * pair of face-adjacent cells, for a random owner map. */
static void
test_field_boundary(void)
{
  const char *keys[] = {"model", "field3d", "size", "6x5x4", NULL};
  g_autoptr(LbWork) w = field_work("field3d", 8, keys);
  enum { P = 8 };
  g_autofree guint32 *owner = g_new(guint32, w->cells);
  GRand *rand = g_rand_new_with_seed(3);
  for (guint64 id = 0; id < w->cells; id++)
    owner[id] = (guint32)g_rand_int_range(rand, 0, P);
  g_rand_free(rand);
  for (guint me = 0; me < P; me++) {
    g_autoptr(GArray) units = g_array_new(FALSE, FALSE, sizeof(LbUnit));
    for (guint64 id = 0; id < w->cells; id++)
      if (owner[id] == me) {
        LbUnit u = {id, 1};
        g_array_append_val(units, u);
      }
    guint64 counts[P] = {0}, brute[P] = {0};
    g_autoptr(GArray) touched = g_array_new(FALSE, FALSE, sizeof(guint));
    w->model->boundary(w, owner, me, (const LbUnit *)units->data, units->len, counts, touched);
    for (guint q = 0; q < P; q++) { /* touched lists exactly the ranks with faces, once */
      guint seen = 0;
      for (guint i = 0; i < touched->len; i++)
        seen += g_array_index(touched, guint, i) == q;
      g_assert_cmpuint(seen, ==, counts[q] > 0);
    }
    for (guint64 z = 0; z < 4; z++)
      for (guint64 y = 0; y < 5; y++)
        for (guint64 x = 0; x < 6; x++) {
          guint64 id = x + 6 * (y + 5 * z);
          if (owner[id] != me)
            continue;
          gint64 d[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
          for (guint k = 0; k < 6; k++) {
            gint64 nx = (gint64)x + d[k][0], ny = (gint64)y + d[k][1], nz = (gint64)z + d[k][2];
            if (nx < 0 || ny < 0 || nz < 0 || nx >= 6 || ny >= 5 || nz >= 4)
              continue;
            guint32 q = owner[nx + 6 * (ny + 5 * nz)];
            if (q != me)
              brute[q]++;
          }
        }
    g_assert_cmpmem(counts, sizeof counts, brute, sizeof brute);
  }
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
  g_test_add("/workloads/bounds/file", TmpDir, NULL, tmp_dir_setup, test_bounds_file,
             tmp_dir_teardown);
  g_test_add("/workloads/read-integers/values", TmpDir, NULL, tmp_dir_setup, test_read_integers,
             tmp_dir_teardown);
  g_test_add("/workloads/read-integers/errors", TmpDir, NULL, tmp_dir_setup,
             test_read_integers_errors, tmp_dir_teardown);
  g_test_add_func("/workloads/round-load", test_round_load);
  g_test_add_func("/workloads/hotspots/skip-exact", test_hotspots_skip_exact);
  g_test_add_func("/workloads/hotspots/many", test_hotspots_many);
  g_test_add_func("/workloads/shock", test_shock);
  g_test_add_func("/workloads/clusters", test_clusters);
  g_test_add_func("/workloads/field/square-factors", test_square_factors);
  g_test_add_func("/workloads/field/blocks", test_field_blocks);
  g_test_add_func("/workloads/field/boundary", test_field_boundary);
  return g_test_run();
}
