/* The loop work model: each distribution's sample moments against its
 * parameters, determinism, the cost file's errors, costs from a field
 * against the field model's own loads, STAT's blocks, the AQR profile
 * (its integrands, tasks and shape), and a run of none with its conservation. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "runner/runner.h"
#include "workloads/aqr.h"
#include "workloads/quadrature.h"
#include "lbsim-spawn.h"
#include "lbsim/model.h"
#include "lbsim/scenario.h"

#define DRAWS 100000

static LbWork *
make_work(const char *model, guint ranks, guint64 seed, const char *dir, const char *const *keys,
          GError **error)
{
  const LbModel *m = lb_model_lookup(model);
  LbParams *params = lb_params_new(lb_model_param_spec(m));
  for (guint i = 0; keys[i] != NULL; i += 2)
    g_assert_true(lb_params_set(params, keys[i], keys[i + 1], NULL));
  return lb_work_new(m, params, seed, ranks, 1, "test.ini", dir != NULL ? dir : ".", error);
}

static LbWork *
loop_work(guint64 seed, const char *const *keys)
{
  g_autoptr(GError) error = NULL;
  LbWork *w = make_work("loop", 1, seed, NULL, keys, &error);
  g_assert_no_error(error);
  return w;
}

/* Every unit's load at step `adaptation`, indexed by id, gathered from all
 * ranks' starting units (each id asserted once). */
static guint64 *
loads_by_id(const LbWork *w, guint adaptation)
{
  guint64 n = lb_work_total_units(w);
  guint64 *loads = g_new(guint64, n);
  guint8 *seen = g_new0(guint8, n);
  g_autoptr(GArray) units = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  for (guint r = 0; r < w->ranks; r++) {
    lb_work_initial_units(w, r, LB_START_NATIVE, units);
    lb_work_update(w, r, units, adaptation);
    for (guint i = 0; i < units->len; i++) {
      LbUnit u = g_array_index(units, LbUnit, i);
      g_assert_cmpuint(u.id, <, n);
      g_assert_cmpuint(seen[u.id], ==, 0);
      seen[u.id] = 1;
      loads[u.id] = u.load;
    }
  }
  for (guint64 id = 0; id < n; id++)
    g_assert_cmpuint(seen[id], ==, 1);
  g_free(seen);
  return loads;
}

typedef struct {
  double mean, var;
  guint64 min, max;
} Moments;

static Moments
moments(const guint64 *x, guint64 n)
{
  Moments m = {0, 0, G_MAXUINT64, 0};
  for (guint64 i = 0; i < n; i++) {
    m.mean += (double)x[i];
    m.min = MIN(m.min, x[i]);
    m.max = MAX(m.max, x[i]);
  }
  m.mean /= (double)n;
  for (guint64 i = 0; i < n; i++)
    m.var += ((double)x[i] - m.mean) * ((double)x[i] - m.mean);
  m.var /= (double)(n - 1);
  return m;
}

/* A distribution's expected mean and variance, and its kurtosis: the
 * sample mean's standard error is sqrt(var / n), the sample variance's
 * relative one sqrt((kurtosis - 1) / n). Both are allowed 5 standard
 * errors (a chance below 10^-6 of a false failure for a fixed seed that
 * could have been any). Rounding to integers adds 1/12 to a variance of
 * 10^4 or more and moves no mean by more than 0.5. */
typedef struct {
  const char *name;
  const char *keys[11];
  double mean, var, kurtosis;
} DistributionCase;

static const DistributionCase distribution_cases[] = {
    {"uniform",
     {"cost", "uniform", "cost-min", "100", "cost-max", "1100", NULL},
     600,
     (1001.0 * 1001.0 - 1) / 12,
     1.8},
    {"normal", {"cost", "normal", "mean", "1000", "sd", "100", NULL}, 1000, 1e4, 3},
    {"exponential", {"cost", "exponential", "mean", "1000", NULL}, 1000, 1e6, 9},
    {"gamma", {"cost", "gamma", "mean", "1000", "shape", "2", NULL}, 1000, 1e6 / 2, 3 + 6.0 / 2},
    {"gamma-below-1",
     {"cost", "gamma", "mean", "1000", "shape", "0.5", NULL},
     1000,
     1e6 / 0.5,
     3 + 6.0 / 0.5},
    /* a mixture: var = sd^2 + s (1 - s) (m2 - m1)^2; kurtosis that of two
     * points with shares p, q: (1 - 3pq) / pq = 3.25 (the modes' width
     * changes it by less than 0.01) */
    {"bimodal",
     {"cost", "bimodal", "mean", "1000", "mean2", "5000", "sd", "100", "share", "0.2", NULL},
     1800,
     1e4 + 0.2 * 0.8 * 4000.0 * 4000.0,
     3.25},
};

static void
distribution_case(gconstpointer data)
{
  const DistributionCase *c = data;
  const char *keys[14] = {"iterations", G_STRINGIFY(DRAWS)};
  for (guint i = 0; c->keys[i] != NULL; i++)
    keys[2 + i] = c->keys[i];
  g_autoptr(LbWork) w = loop_work(11, keys);
  g_assert_cmpuint(lb_work_total_units(w), ==, DRAWS);
  g_autofree guint64 *x = loads_by_id(w, 0);
  Moments m = moments(x, DRAWS);
  double se_mean = sqrt(c->var / DRAWS), se_var = sqrt((c->kurtosis - 1) / DRAWS);
  g_assert_cmpfloat(fabs(m.mean - c->mean), <=, 5 * se_mean + 0.5);
  g_assert_cmpfloat(fabs(m.var / c->var - 1), <=, 5 * se_var);
  if (strcmp(c->name, "uniform") == 0) {
    g_assert_cmpuint(m.min, ==, 100); /* 10^5 draws of 1001 values reach both ends */
    g_assert_cmpuint(m.max, ==, 1100);
  }
  if (strcmp(c->name, "bimodal") == 0) {
    guint64 second = 0;
    for (guint i = 0; i < DRAWS; i++)
      second += x[i] > 3000;
    g_assert_cmpfloat(fabs(second / (double)DRAWS - 0.2), <=, 5 * sqrt(0.16 / DRAWS));
  }
}

static void
test_constant(void)
{
  g_autoptr(LbWork) w =
      loop_work(1, (const char *const[]){"iterations", "50", "mean", "1234.4", NULL});
  g_autofree guint64 *x = loads_by_id(w, 0);
  for (guint i = 0; i < 50; i++)
    g_assert_cmpuint(x[i], ==, 1234);
}

/* Linear profiles: the ends, monotone, and the mean of an arithmetic
 * sequence (the ends' average, within rounding). */
static void
test_linear(void)
{
  for (guint up = 0; up < 2; up++) {
    g_autoptr(LbWork) w = loop_work(
        1, (const char *const[]){"iterations", "1001", "cost", up ? "increasing" : "decreasing",
                                 "cost-min", "10", "cost-max", "2010", NULL});
    g_autofree guint64 *x = loads_by_id(w, 0);
    g_assert_cmpuint(x[0], ==, up ? 10 : 2010);
    g_assert_cmpuint(x[1000], ==, up ? 2010 : 10);
    g_assert_cmpuint(x[500], ==, 1010);
    for (guint i = 1; i < 1001; i++) {
      if (up)
        g_assert_cmpuint(x[i], ==, x[i - 1] + 2);
      else
        g_assert_cmpuint(x[i] + 2, ==, x[i - 1]);
    }
  }
}

/* Negative draws are clipped to 0, not folded or redrawn: a normal of
 * mean 0 gives 0 about half the time. */
static void
test_clipping(void)
{
  g_autoptr(LbWork) w = loop_work(3, (const char *const[]){"iterations", "10000", "cost", "normal",
                                                           "mean", "0", "sd", "100", NULL});
  g_autofree guint64 *x = loads_by_id(w, 0);
  guint zeros = 0;
  for (guint i = 0; i < 10000; i++)
    zeros += x[i] == 0;
  /* P(Z < 0.005) = 0.502; 5 standard errors of a share of 10^4 */
  g_assert_cmpfloat(fabs(zeros / 10000.0 - 0.502), <=, 5 * 0.005);
}

static void
test_determinism(void)
{
  static const char *const costs[] = {"uniform", "normal",  "exponential",
                                      "gamma",   "bimodal", "aqr"};
  for (guint c = 0; c < G_N_ELEMENTS(costs); c++) {
    const char *keys[] = {"iterations", "5000", "cost", costs[c], NULL};
    g_autoptr(LbWork) a = loop_work(42, keys), b = loop_work(42, keys), d = loop_work(43, keys);
    g_autofree guint64 *xa = loads_by_id(a, 0);
    g_autofree guint64 *xb = loads_by_id(b, 0);
    g_autofree guint64 *xd = loads_by_id(d, 0);
    g_autofree guint64 *later = loads_by_id(a, 5);
    g_assert_cmpmem(xa, 5000 * sizeof(guint64), xb, 5000 * sizeof(guint64));
    g_assert_cmpmem(xa, 5000 * sizeof(guint64), later, 5000 * sizeof(guint64));
    g_assert_true(memcmp(xa, xd, 5000 * sizeof(guint64)) != 0);
  }
}

/* STAT's blocks: consecutive iterations in rank order, the first N mod P
 * ranks one more; the same for the order start. */
static void
test_blocks(void)
{
  for (guint s = 0; s < 2; s++) {
    g_autoptr(GError) error = NULL;
    g_autoptr(LbWork) w =
        make_work("loop", 16, 1, NULL, (const char *const[]){"iterations", "10403", NULL}, &error);
    g_assert_no_error(error);
    g_autoptr(GArray) units = g_array_new(FALSE, FALSE, sizeof(LbUnit));
    guint64 next = 0;
    for (guint r = 0; r < 16; r++) {
      lb_work_initial_units(w, r, s ? LB_START_ORDER : LB_START_NATIVE, units);
      g_assert_cmpuint(units->len, ==, r < 10403 % 16 ? 651 : 650);
      for (guint i = 0; i < units->len; i++)
        g_assert_cmpuint(g_array_index(units, LbUnit, i).id, ==, next++);
    }
    g_assert_cmpuint(next, ==, 10403);
  }
}

static char *
write_in(const char *dir, const char *name, const char *text)
{
  char *path = g_build_filename(dir, name, NULL);
  g_assert_true(g_file_set_contents(path, text, -1, NULL));
  return path;
}

static void
test_file(void)
{
  g_autofree char *dir = g_dir_make_tmp("lbsim-loop-XXXXXX", NULL);
  g_autofree char *good = write_in(dir, "good.txt", "5\n\n  17 \n0\n123456789\n");
  g_autoptr(GError) error = NULL;
  g_autoptr(LbWork) w =
      make_work("loop", 2, 1, dir,
                (const char *const[]){"cost", "file", "cost-file", "good.txt", NULL}, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(lb_work_total_units(w), ==, 4);
  g_autofree guint64 *x = loads_by_id(w, 0);
  g_assert_cmpuint(x[0], ==, 5);
  g_assert_cmpuint(x[1], ==, 17);
  g_assert_cmpuint(x[2], ==, 0);
  g_assert_cmpuint(x[3], ==, 123456789);

  static const struct {
    const char *text;
    const char *extra[3];
    const char *key, *detail;
  } bad[] = {
      {"1\n2\nabc\n", {NULL}, "cost-file", "bad.txt:3: 'abc'"},
      {"1\n-5\n", {NULL}, "cost-file", "bad.txt:2: '-5'"},
      {"1 2\n", {NULL}, "cost-file", "bad.txt:1: '1 2'"},
      {"1\n2.5\n", {NULL}, "cost-file", "bad.txt:2:"},
      {"\n\n", {NULL}, "cost-file", "holds no costs"},
      {"1\n2\n3\n", {"iterations", "4", NULL}, "iterations", "holds 3 costs"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autofree char *path = write_in(dir, "bad.txt", bad[i].text);
    const char *keys[8] = {"cost",          "file",          "cost-file", "bad.txt",
                           bad[i].extra[0], bad[i].extra[1], NULL};
    g_autoptr(GError) e = NULL;
    g_autoptr(LbWork) none = make_work("loop", 1, 1, dir, keys, &e);
    g_assert_null(none);
    g_assert_error(e, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID);
    g_autofree char *key = g_strdup_printf("test.ini: [workload] %s:", bad[i].key);
    g_assert_nonnull(strstr(e->message, key));
    g_assert_nonnull(strstr(e->message, bad[i].detail));
    g_unlink(path);
  }
  g_autoptr(GError) missing = NULL;
  g_assert_null(make_work("loop", 1, 1, dir,
                          (const char *const[]){"cost", "file", "cost-file", "none.txt", NULL},
                          &missing));
  g_assert_nonnull(strstr(missing->message, "none.txt"));
  g_unlink(good);
  g_rmdir(dir);
}

/* cost = field: the field model's loads at step 0, cell by cell, with the
 * same pattern keys and seed. */
static void
test_field(void)
{
  static const struct {
    const char *model, *size;
    const char *pattern[9];
  } cases[] = {
      {"field2d", "24x16", {"pattern", "hotspots", "hotspots", "2", "width", "0.1", NULL}},
      {"field3d", "8x6x5", {"pattern", "shock", "angle", "10", "elevation", "20", NULL}},
      {"field2d", "9x7", {"pattern", "random", "min", "3", "max", "90", NULL}},
  };
  for (guint c = 0; c < G_N_ELEMENTS(cases); c++) {
    const char *field_keys[12] = {"size", cases[c].size};
    const char *loop_keys[14] = {"cost", "field", "field-size", cases[c].size};
    for (guint i = 0; cases[c].pattern[i] != NULL; i++)
      field_keys[2 + i] = loop_keys[4 + i] = cases[c].pattern[i];
    g_autoptr(GError) error = NULL;
    g_autoptr(LbWork) field = make_work(cases[c].model, 4, 9, NULL, field_keys, &error);
    g_assert_no_error(error);
    g_autoptr(LbWork) loop = make_work("loop", 3, 9, NULL, loop_keys, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(lb_work_total_units(loop), ==, field->cells);
    g_autofree guint64 *a = loads_by_id(field, 0);
    g_autofree guint64 *b = loads_by_id(loop, 0);
    guint64 total = 0;
    for (guint64 id = 0; id < field->cells; id++) {
      g_assert_cmpuint(a[id], ==, b[id]);
      total += a[id];
    }
    g_assert_cmpuint(total, >, field->cells); /* not a trivially equal field of zeros or ones */
  }
}

/* The estimate: a unit and a cost per iteration; over a field, step 0's
 * costs in lbsim's process and two steps' in a run's; and a field's costs
 * stay right step after step while the old steps are dropped. */
static void
test_memory(void)
{
  g_autoptr(LbWork) drawn = loop_work(1, (const char *const[]){"iterations", "1000", NULL});
  g_assert_cmpfloat(drawn->memory, ==, 1000 * (40.0 + 8));
  const char *const field_keys[] = {"size", "24x16", "pattern", "hotspots", "drift", "0.1", NULL};
  const char *const loop_keys[] = {"cost",     "field", "field-size", "24x16", "pattern",
                                   "hotspots", "drift", "0.1",        NULL};
  g_autoptr(GError) error = NULL;
  g_autoptr(LbWork) field = make_work("field2d", 4, 9, NULL, field_keys, &error);
  g_assert_no_error(error);
  g_autoptr(LbWork) loop = make_work("loop", 3, 9, NULL, loop_keys, &error);
  g_assert_no_error(error);
  g_assert_cmpfloat(loop->memory, ==, 24 * 16 * (40.0 + 3 * 8));
  g_autofree guint64 *first = loads_by_id(field, 0);
  g_autofree guint64 *last = NULL;
  gboolean moved = FALSE;
  for (guint step = 0; step < 6; step++) {
    g_autofree guint64 *a = loads_by_id(field, step);
    g_autofree guint64 *b = loads_by_id(loop, step);
    for (guint64 id = 0; id < field->cells; id++) {
      g_assert_cmpuint(a[id], ==, b[id]);
      moved |= a[id] != first[id];
    }
    /* a rank still at the last step reads its costs */
    for (guint64 id = 0; last != NULL && id < field->cells; id++)
      g_assert_cmpuint(lb_loop_costs(loop, step - 1)[id], ==, last[id]);
    g_free(last);
    last = g_steal_pointer(&a);
  }
  g_assert_true(moved);
}

/* cost = aqr, aqr-model = formula (lbsim's profile before the
 * quadrature): every cost is a 15-point rule's evaluations on 2k - 1
 * subintervals, capped; costs within a family grow with the difficulty
 * (sharper features, tighter tolerances) towards the family's back; the
 * whole is very irregular. Its tolerances default to 8. */
static void
test_aqr_formula(void)
{
  g_autoptr(LbWork) w = loop_work(
      5, (const char *const[]){"cost", "aqr", "aqr-model", "formula", "iterations", "10400", NULL});
  g_autofree guint64 *x = loads_by_id(w, 0);
  for (guint i = 0; i < 10400; i++) {
    g_assert_cmpuint(x[i] % 15, ==, 0);
    g_assert_cmpuint((x[i] / 15) % 2, ==, 1);
    g_assert_cmpuint(x[i], <=, 15 * 1999);
  }
  Moments all = moments(x, 10400);
  g_assert_cmpfloat(sqrt(all.var) / all.mean, >, 0.5);
  g_assert_cmpuint(all.min, <, 100);
  /* 8 families of 1300: each one's last tenth (the sharpest level) costs
   * more than its first (the smoothest); the kink family gains least,
   * about 1.4 times */
  for (guint f = 0; f < 8; f++) {
    Moments front = moments(x + f * 1300, 130), back = moments(x + f * 1300 + 1170, 130);
    g_assert_cmpfloat(back.mean, >, 1.2 * front.mean);
  }
  /* family 6 alone: 15 (2k - 1) with k from ceil(0.5 (1 + 2 log2 100))
   * = 8 to ceil(1.5 (1 + 2 log2(2^9 10^9))) = 119 */
  g_autoptr(LbWork) six =
      loop_work(5, (const char *const[]){"cost", "aqr", "aqr-model", "formula", "iterations",
                                         "1080", "aqr-family", "6", NULL});
  g_autofree guint64 *y = loads_by_id(six, 0);
  for (guint i = 0; i < 1080; i++) {
    g_assert_cmpuint(y[i], >=, 15 * 15);
    g_assert_cmpuint(y[i], <=, 15 * 237);
  }
}

static int
compare_costs(const void *a, const void *b)
{
  guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;
  return x < y ? -1 : x > y;
}

/* The integrands' closed forms against lbsim's routine where its estimate
 * |K - G| is reliable (the smooth families and the jump, its place seen
 * by the first panel): converged, and within the tolerance of the closed
 * form, at three levels, two places and two tolerances. Where a kink or a
 * singularity sits inside a panel, K and G err alike and the estimate is
 * optimistic (the routine the profile measures is fooled there: the cost
 * is still what it spent); the closed forms hold there to 3 %. */
static void
test_aqr_integrands(void)
{
  static const double places[] = {0.31, 0.77};
  const LbGaussKronrod *rule = lb_gauss_kronrod(7);
  for (guint f = 0; f < LB_AQR_FAMILIES; f++)
    for (guint level = 0; level < 10; level += 4)
      for (guint p = 0; p < 2; p++)
        for (double eps = 1e-4; eps >= 1e-9; eps *= 1e-5) {
          LbAqrIntegrand in = lb_aqr_integrand_at(f, level, 10, places[p]);
          LbQuadrature q;
          lb_quadrature(rule, lb_aqr_integrand, &in, 0, 1, 0, eps, 1000000, &q);
          double exact = lb_aqr_exact(&in), off = fabs(q.value - exact) / fabs(exact);
          g_assert_true(q.converged);
          if (f == 4 || f >= 6)
            g_assert_cmpfloat(off, <=, 0.03);
          else
            g_assert_cmpfloat(off, <=, eps);
        }
  g_assert_cmpstr(lb_aqr_family_name(5), ==, "discontinuous");
}

/* The default profile (aqr-model = quadrature): 8 families x 10 levels x
 * 13 tolerances x 1 rule x 10 samples = 10400 integrals, one a task at N
 * = 10400, each 15 (2k - 1) evaluations within the limit (15 x 665 <=
 * 10000). A sharper level costs more in every family but the jump's,
 * whose bisections home in on the jump whatever its height: there the
 * levels stay within a factor of 1.6. */
static void
test_aqr(void)
{
  g_autoptr(LbWork) w =
      loop_work(5, (const char *const[]){"cost", "aqr", "iterations", "10400", NULL});
  g_autofree guint64 *x = loads_by_id(w, 0);
  for (guint i = 0; i < 10400; i++) {
    g_assert_cmpuint(x[i] % 15, ==, 0);
    g_assert_cmpuint((x[i] / 15) % 2, ==, 1);
    g_assert_cmpuint(x[i], <=, 15 * 665);
  }
  Moments all = moments(x, 10400);
  g_assert_cmpfloat(sqrt(all.var) / all.mean, >, 0.5);
  g_assert_cmpuint(all.min, ==, 15);
  for (guint f = 0; f < 8; f++) {
    Moments front = moments(x + f * 1300, 130), back = moments(x + f * 1300 + 1170, 130);
    if (f == 5) {
      g_assert_cmpfloat(back.mean, <, 1.6 * front.mean);
      g_assert_cmpfloat(front.mean, <, 1.6 * back.mean);
    } else {
      g_assert_cmpfloat(back.mean, >, 2 * front.mean);
    }
  }
}

/* Each task's cost is the evaluations the routine spends on its integrals,
 * computed here again from the same draws: the profile's order (level,
 * tolerance, sample for one family), one draw of the feature's place per
 * integral, task i holding the integrals floor(i M / N) .. floor((i + 1)
 * M / N) - 1. A second load (the process's cache) gives the same costs,
 * and so does the random order's shuffle after it. */
static void
test_aqr_tasks(void)
{
  const char *keys[] = {
      "cost", "aqr",         "aqr-family", "5",          "aqr-levels", "3", "aqr-tolerances",
      "4",    "aqr-samples", "6",          "iterations", "20",         NULL};
  g_autoptr(LbWork) w = loop_work(77, keys);
  g_autofree guint64 *x = loads_by_id(w, 0);
  GRand *rand = g_rand_new_with_seed_array((const guint32[]){77, 0}, 2);
  guint64 nfe[72], j = 0;
  for (guint level = 0; level < 3; level++)
    for (guint e = 0; e < 4; e++)
      for (guint s = 0; s < 6; s++, j++) {
        LbAqrIntegrand in = lb_aqr_integrand_at(5, level, 3, g_rand_double(rand));
        LbQuadrature q;
        lb_quadrature(lb_gauss_kronrod(7), lb_aqr_integrand, &in, 0, 1, 0, pow(10, -(2.0 + e)),
                      10000, &q);
        nfe[j] = q.evaluations;
      }
  g_rand_free(rand);
  for (guint i = 0; i < 20; i++) {
    guint64 sum = 0;
    for (guint64 k = i * 72 / 20; k < (i + 1) * 72 / 20; k++)
      sum += nfe[k];
    g_assert_cmpuint(x[i], ==, sum);
  }
  g_autoptr(LbWork) again = loop_work(77, keys);
  g_autofree guint64 *y = loads_by_id(again, 0);
  g_assert_cmpmem(x, 20 * sizeof *x, y, 20 * sizeof *y);
  const char *random[] = {"cost",           "aqr",    "aqr-family",  "5", "aqr-levels", "3",
                          "aqr-tolerances", "4",      "aqr-samples", "6", "iterations", "20",
                          "aqr-order",      "random", NULL};
  g_autoptr(LbWork) r1 = loop_work(78, random), r2 = loop_work(78, random);
  g_autofree guint64 *a = loads_by_id(r1, 0), *b = loads_by_id(r2, 0);
  g_assert_cmpmem(a, 20 * sizeof *a, b, 20 * sizeof *b);
}

/* The seed's Fig. 3 loop as the reproduction reads it (aqr-family = 5,
 * discontinuous, 80 samples: 10400 integrals, about 9.6 a task at N =
 * 1080) and its orders: back, front and random hold the profile's costs,
 * sorted up, sorted down and shuffled. */
static void
test_aqr_family_order(void)
{
  static const char *const orders[] = {"profile", "back", "front", "random"};
  guint64 *x[4];
  for (guint o = 0; o < 4; o++) {
    g_autoptr(LbWork) w =
        loop_work(5, (const char *const[]){"cost", "aqr", "iterations", "1080", "aqr-family", "5",
                                           "aqr-samples", "80", "aqr-order", orders[o], NULL});
    x[o] = loads_by_id(w, 0);
  }
  gboolean profile_sorted = TRUE, random_sorted = TRUE, random_same = TRUE;
  for (guint i = 1; i < 1080; i++) {
    g_assert_cmpuint(x[1][i - 1], <=, x[1][i]);
    g_assert_cmpuint(x[2][i - 1], >=, x[2][i]);
    profile_sorted &= x[0][i - 1] <= x[0][i];
    random_sorted &= x[3][i - 1] <= x[3][i];
    random_same &= x[3][i] == x[0][i];
  }
  /* the profile is a sawtooth (tolerances inside levels), not sorted */
  g_assert_false(profile_sorted);
  g_assert_false(random_sorted);
  g_assert_false(random_same);
  qsort(x[0], 1080, sizeof(guint64), compare_costs);
  qsort(x[3], 1080, sizeof(guint64), compare_costs);
  for (guint i = 0; i < 1080; i++) {
    g_assert_cmpuint(x[0][i], ==, x[1][i]);
    g_assert_cmpuint(x[3][i], ==, x[1][i]);
    g_assert_cmpuint(x[2][1079 - i], ==, x[1][i]);
  }
  for (guint o = 0; o < 4; o++)
    g_free(x[o]);
}

/* STAT's idle share on P equal hosts: 1 - mean block / heaviest block. */
static double
stat_idle(const guint64 *x, guint n, guint p)
{
  double total = 0, heaviest = 0;
  for (guint b = 0; b < p; b++) {
    double block = 0;
    for (guint i = b * (n / p) + MIN(b, n % p); i < (b + 1) * (n / p) + MIN(b + 1, n % p); i++)
      block += (double)x[i];
    total += block;
    heaviest = MAX(heaviest, block);
  }
  return 1 - total / (p * heaviest);
}

static int
compare_doubles_down(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x > y ? -1 : x < y;
}

/* The shape of the reproduction's family (discontinuous), derived: a jump
 * inside a panel leaves |K - G| of the order of the jump times the panel's
 * width, so each tenfold tighter tolerance takes log2 10 more bisections
 * towards it, 30 log2 10 = 99.7 evaluations a decade. At N = 1040 (tasks
 * of 10 of a combination's 80 samples, 8 tasks to each of the 13 x 10
 * tolerances and levels) a task then costs about a + b e + g L at
 * tolerance e and level L, b and g fitted to the tolerances' and the
 * levels' means (the levels matter little: the jump's height does not
 * change where it is). Sorted to the back, STAT's heaviest block of P
 * holds the 1040 / P costliest tasks, and its idle share is 1 - mean /
 * (P x heaviest block): on that plane, predicted from its costliest 1040 /
 * P points. The samples spread the costs around the plane, which can only
 * raise the heaviest block: the loop's own idle share is at least the
 * prediction less a point and at most 5 points above it (a heaviest block
 * 10 % above the plane's, as the costliest of a cell's tasks are). */
static void
test_aqr_shape(void)
{
  const char *keys[] = {"cost",       "aqr",  "aqr-family", "5",       "aqr-samples", "80",
                        "iterations", "1040", "aqr-order",  "profile", NULL};
  g_autoptr(LbWork) w = loop_work(1, keys);
  g_autofree guint64 *x = loads_by_id(w, 0);
  /* task i is tolerance (i / 8) % 13 of level i / 104 */
  double tolerance[13] = {0}, level[10] = {0}, mean = 0;
  for (guint i = 0; i < 1040; i++) {
    tolerance[(i / 8) % 13] += (double)x[i] / 80;
    level[i / 104] += (double)x[i] / 104;
    mean += (double)x[i] / 1040;
  }
  double b = (tolerance[11] - tolerance[1]) / 10, g = (level[9] - level[0]) / 9;
  double a = mean - 6 * b - 4.5 * g;
  g_assert_cmpfloat(b, >, 0.7 * 10 * 30 * log2(10));
  g_assert_cmpfloat(b, <, 1.3 * 10 * 30 * log2(10));
  g_assert_cmpfloat(fabs(g), <, b);
  double plane[1040];
  for (guint i = 0; i < 1040; i++)
    plane[i] = a + b * ((i / 8) % 13) + g * (i / 104);
  qsort(plane, 1040, sizeof *plane, compare_doubles_down);
  qsort(x, 1040, sizeof *x, compare_costs);
  for (guint p = 4; p <= 32; p *= 2) {
    double heaviest = 0;
    for (guint i = 0; i < 1040 / p; i++)
      heaviest += plane[i];
    double predicted = 1 - mean * 1040 / (p * heaviest), idle = stat_idle(x, 1040, p);
    if (g_test_verbose())
      g_test_message("P = %u: STAT idle %.3f, predicted %.3f (a %.0f, b %.0f, g %.0f)", p, idle,
                     predicted, a, b, g);
    g_assert_cmpfloat(idle, >, predicted - 0.01);
    g_assert_cmpfloat(idle, <, predicted + 0.05);
  }
}

/* Bad profiles: more iterations than integrals (a task holds one or
 * more), the quadrature's keys with the formula, a limit below one panel,
 * aqr-families with one family. */
static void
test_aqr_errors(void)
{
  static const char *const cases[][12] = {
      {"cost", "aqr", "aqr-family", "5", "iterations", "1301", NULL},
      {"cost", "aqr", "aqr-model", "formula", "aqr-samples", "3", NULL},
      {"cost", "aqr", "aqr-max-evaluations", "14", NULL},
      {"cost", "aqr", "aqr-family", "6", "aqr-families", "2", NULL},
  };
  static const char *const words[] = {"1301 iterations, but the profile has 1300 integrals",
                                      "applies to aqr-model quadrature", "one panel",
                                      "aqr-families"};
  for (guint c = 0; c < G_N_ELEMENTS(cases); c++) {
    g_autoptr(GError) error = NULL;
    LbWork *bad = make_work("loop", 1, 1, NULL, cases[c], &error);
    g_assert_null(bad);
    g_assert_nonnull(error);
    g_assert_nonnull(strstr(error->message, words[c]));
  }
}

/* none runs the loop end to end; the core checks the count, load and id
 * checksum at every step. Every step executes the same loop. */
static void
test_none_run(void)
{
  g_autofree char *dir = g_dir_make_tmp("lbsim-loop-XXXXXX", NULL);
  g_autofree char *path = write_in(dir, "s.ini",
                                   "[scenario]\nplatform = hetero-cluster-16.xml\nranks = 16\n"
                                   "steps = 3\nseed = 2\n[workload]\nmodel = loop\ncost = "
                                   "exponential\niterations = 2000\n[balancers]\nrun = none\n");
  g_autoptr(GError) error = NULL;
  LbScenario *sc = lb_scenario_load(path, NULL, &error);
  g_assert_no_error(error);
  LbRunnerOptions options = {.jobs = 1, .quiet = TRUE};
  g_autoptr(GPtrArray) results = NULL;
  int code = -1;
  g_assert_true(lb_runner_run(sc, NULL, &options, &results, &code, &error));
  g_assert_no_error(error);
  const LbRunResult *r = results->pdata[0];
  g_autofree guint64 *x = loads_by_id(sc->work, 0);
  guint64 total = 0, heaviest_block = 0;
  for (guint b = 0; b < 16; b++) {
    guint64 block = 0;
    for (guint i = b * 125; i < (b + 1) * 125; i++)
      block += x[i];
    total += block;
    heaviest_block = MAX(heaviest_block, block);
  }
  for (guint s = 0; s < 3; s++) {
    g_assert_cmpuint(r->adaptations[s].total_load, ==, total);
    g_assert_cmpuint(r->adaptations[s].max_load_after, ==, heaviest_block);
  }
  g_assert_cmpfloat(r->app_time, >, 0);
  lb_scenario_free(sc);
  g_unlink(path);
  g_rmdir(dir);
}

/* The shipped scenario's [expect] lines hold. */
static void
test_scenario_check(void)
{
  g_auto(Result) r = {0};
  lbsim(&r, "check", "-q", "scenarios/loop-aqr-hetero-16.ini", NULL);
  if (r.status != 0)
    g_printerr("%s%s", r.out, r.err);
  g_assert_cmpint(r.status, ==, 0);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS(distribution_cases); i++) {
    g_autofree char *name = g_strdup_printf("/loop/distribution/%s", distribution_cases[i].name);
    g_test_add_data_func(name, &distribution_cases[i], distribution_case);
  }
  g_test_add_func("/loop/constant", test_constant);
  g_test_add_func("/loop/linear", test_linear);
  g_test_add_func("/loop/clipping", test_clipping);
  g_test_add_func("/loop/determinism", test_determinism);
  g_test_add_func("/loop/blocks", test_blocks);
  g_test_add_func("/loop/file", test_file);
  g_test_add_func("/loop/field", test_field);
  g_test_add_func("/loop/aqr-formula", test_aqr_formula);
  g_test_add_func("/loop/aqr-integrands", test_aqr_integrands);
  g_test_add_func("/loop/aqr", test_aqr);
  g_test_add_func("/loop/aqr-tasks", test_aqr_tasks);
  g_test_add_func("/loop/aqr-family-order", test_aqr_family_order);
  g_test_add_func("/loop/aqr-shape", test_aqr_shape);
  g_test_add_func("/loop/aqr-errors", test_aqr_errors);
  g_test_add_func("/loop/memory", test_memory);
  g_test_add_func("/loop/none-run", test_none_run);
  g_test_add_func("/loop/scenario-check", test_scenario_check);
  return g_test_run();
}
