/* The baseline balancers: scratch-remap's partition against an exact
 * optimum computed here by dynamic programming, and diffusion's flows. */
#include <math.h>
#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "balancers/remap/remap-plan.h"
#include "runner/runner.h"
#include "report/report.h"
#include "sim-result.h"
#include "lbsim/scenario.h"

/* best[k][i]: the least bottleneck of the first i loads in k pieces. */
static guint64
dp_bottleneck(const guint64 *loads, guint n, guint p)
{
  g_autofree guint64 *best = g_new(guint64, (gsize)(p + 1) * (n + 1));
#define BEST(k, i) best[(gsize)(k) * (n + 1) + (i)]
  for (guint i = 0; i <= n; i++) {
    guint64 s = 0;
    for (guint j = 0; j < i; j++)
      s += loads[j];
    BEST(1, i) = s;
  }
  for (guint k = 2; k <= p; k++)
    for (guint i = 0; i <= n; i++) {
      guint64 b = G_MAXUINT64, tail = 0;
      for (guint j = i + 1; j-- > 0;) {
        b = MIN(b, MAX(BEST(k - 1, j), tail));
        if (j > 0)
          tail += loads[j - 1];
      }
      BEST(k, i) = b;
    }
  return BEST(p, n);
#undef BEST
}

static void
check_plan(const guint64 *loads, guint n, guint p)
{
  g_autofree guint64 *prefix = g_new(guint64, n + 1);
  prefix[0] = 0;
  for (guint i = 0; i < n; i++)
    prefix[i + 1] = prefix[i] + loads[i];
  guint64 b = remap_bottleneck(prefix, n, p, NULL);
  g_assert_cmpuint(b, ==, dp_bottleneck(loads, n, p));
  g_autofree guint64 *cuts = g_new(guint64, p + 1);
  remap_cuts(prefix, n, p, b, cuts);
  g_assert_cmpuint(cuts[0], ==, 0);
  g_assert_cmpuint(cuts[p], ==, n);
  guint64 worst = 0;
  for (guint r = 0; r < p; r++) {
    g_assert_cmpuint(cuts[r], <=, cuts[r + 1]);
    guint64 piece = 0;
    for (guint64 i = cuts[r]; i < cuts[r + 1]; i++)
      piece += loads[i];
    worst = MAX(worst, piece);
  }
  g_assert_cmpuint(worst, ==, b);
}

static void
test_remap_optimal(void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed(10);
  for (guint round = 0; round < 400; round++) {
    guint n = (guint)g_rand_int_range(rand, 0, 30), p = (guint)g_rand_int_range(rand, 1, 12);
    g_autofree guint64 *loads = g_new0(guint64, MAX(n, 1));
    gint32 max = round % 3 == 0 ? 3 : 1000;
    for (guint i = 0; i < n; i++)
      loads[i] =
          round % 4 == 1 && g_rand_boolean(rand) ? 0 : (guint64)g_rand_int_range(rand, 0, max);
    check_plan(loads, n, p);
  }
  /* a single heavy element among zeros and ones, everywhere in the chain */
  for (guint n = 1; n <= 12; n++)
    for (guint at = 0; at < n; at++)
      for (guint p = 1; p <= 6; p++) {
        g_autofree guint64 *loads = g_new0(guint64, n);
        for (guint i = 0; i < n; i++)
          loads[i] = i % 3 == 0;
        loads[at] = 1000;
        check_plan(loads, n, p);
      }
  guint64 zeros[5] = {0};
  check_plan(zeros, 5, 3);
}

static guint64
final_max(JsonObject *run, guint p, guint64 *total)
{
  JsonArray *final = json_object_get_array_member(run, "final_loads");
  g_assert_cmpuint(json_array_get_length(final), ==, p);
  guint64 worst = 0;
  *total = 0;
  for (guint r = 0; r < p; r++) {
    guint64 l = (guint64)json_array_get_int_element(final, r);
    worst = MAX(worst, l);
    *total += l;
  }
  return worst;
}

/* Whole runs (the core checks conservation and the order at every step):
 * the heaviest rank carries the optimum of the chain in the model's order. */
static void
test_remap_sim(void)
{
  const char *cases[] = {
      "platform = hypercube-8.xml\nranks = 8\nseed = 3\n[workload]\nsize = 40\npattern = "
      "random\nmin = 0\nmax = 50\ndistribution = random\n",
      "platform = t3e-512.xml\nranks = 6\nseed = 5\n[workload]\nsize = 9\npattern = step\nhigh = "
      "900\nlow = 1\nat = 0.2\ndrift = 0\n",
      "platform = hypercube-16.xml\nranks = 16\nseed = 2\n[workload]\nmodel = field2d\nsize = "
      "12x10\npattern = hotspots\nhotspots = 2\nwidth = 0.1\namplitude = 40\nbase = 1\n",
  };
  for (guint c = 0; c < G_N_ELEMENTS(cases); c++) {
    g_autofree char *ini =
        g_strdup_printf("[scenario]\n%s[balancers]\nrun = scratch-remap\n", cases[c]);
    g_auto(SimResult) res = {0};
    simulate(ini, &res);
    guint p = res.scenario->ranks;
    guint64 n, total, sum = 0;
    g_autofree guint64 *loads = element_loads(res.scenario, &n);
    for (guint64 i = 0; i < n; i++)
      sum += loads[i];
    guint64 worst = final_max(res.run, p, &total);
    g_assert_cmpuint(total, ==, sum);
    g_assert_cmpuint(worst, ==, dp_bottleneck(loads, (guint)n, p));
  }
}

/* Load moved from src to dst in the run's transfers. */
static guint64
moved_load(JsonObject *run, guint src, guint dst)
{
  guint64 load = 0;
  JsonArray *schedule = json_object_get_array_member(run, "schedule");
  for (guint s = 0; s < json_array_get_length(schedule); s++) {
    JsonArray *transfers =
        json_object_get_array_member(json_array_get_object_element(schedule, s), "transfers");
    for (guint t = 0; t < json_array_get_length(transfers); t++) {
      JsonObject *x = json_array_get_object_element(transfers, t);
      if (json_object_get_int_member(x, "src") == src &&
          json_object_get_int_member(x, "dst") == dst)
        load += (guint64)json_object_get_int_member(x, "load");
    }
  }
  return load;
}

static double
summary_value(JsonObject *run, const char *name)
{
  return json_object_get_double_member(json_object_get_object_member(run, "metrics"), name);
}

/* A 4-cube's ranks placed linearly form the cycle 0-1-3-2: rank 0 holds 12
 * units of load 1, the others units of load 0. One iteration, one round:
 * rank 0 sends each of its two neighbours alpha x 12 with alpha = 1 / (2 +
 * 1), and nothing else moves. */
static void
test_diffusion_first_flows(void)
{
  g_auto(SimResult) res = {0};
  simulate("[scenario]\nplatform = hypercube-4.xml\nranks = 4\nplacement = linear\n"
           "[workload]\nsize = 48\npattern = step\nhigh = 1\nlow = 0\nat = 0.25\ndrift = 0\n"
           "[balancers]\nrun = diffusion\n[diffusion]\nmax-iterations = 1\nmigrate-rounds = 1\n"
           "tolerance = 0\n",
           &res);
  double alpha = 1.0 / 3, flow = alpha * (12 - 0);
  g_assert_cmpuint(moved_load(res.run, 0, 1), ==, (guint64)(flow + 0.5));
  g_assert_cmpuint(moved_load(res.run, 0, 2), ==, (guint64)(flow + 0.5));
  g_assert_cmpuint(moved_load(res.run, 0, 3), ==, 0);
  for (guint a = 1; a < 4; a++)
    for (guint b = 0; b < 4; b++)
      g_assert_cmpuint(moved_load(res.run, a, b), ==, 0);
  g_assert_cmpfloat(summary_value(res.run, "iterations"), ==, 1);
}

/* The run's iterations against Cybenko's iteration done here on the
 * hypercube's graph (linear placement: neighbours differ in one bit of the
 * rank), up to the first iterate whose neighbours all lie within the
 * tolerance; conservation, and a drop in imbalance. */
static void
test_diffusion_converges(void)
{
  const guint d = 4, p = 1u << d;
  const double tolerance = 0.02;
  g_autofree char *ini = g_strdup_printf(
      "[scenario]\nplatform = hypercube-16.xml\nranks = 16\nplacement = linear\nseed = 7\n"
      "[workload]\nsize = 1600\npattern = hotspots\nhotspots = 1\nwidth = 0.05\namplitude = "
      "60\nbase = 1\n[balancers]\nrun = diffusion\n[diffusion]\ntolerance = %g\n",
      tolerance);
  g_auto(SimResult) res = {0};
  simulate(ini, &res);
  guint64 n;
  g_autofree guint64 *loads = element_loads(res.scenario, &n);
  double x[16] = {0}, y[16], total = 0;
  for (guint64 i = 0; i < n; i++) {
    x[i / (n / p)] += (double)loads[i];
    total += (double)loads[i];
  }
  double avg = total / p, before = 0;
  for (guint r = 0; r < p; r++)
    before = MAX(before, x[r]);
  guint it = 0;
  for (;; it++) {
    double spread = 0;
    for (guint r = 0; r < p; r++)
      for (guint b = 0; b < d; b++)
        spread = MAX(spread, fabs(x[r] - x[r ^ (1u << b)]));
    if (spread <= tolerance * avg)
      break;
    g_assert_cmpuint(it, <, 1000);
    for (guint r = 0; r < p; r++) {
      y[r] = x[r];
      for (guint b = 0; b < d; b++)
        y[r] -= (x[r] - x[r ^ (1u << b)]) / (d + 1);
    }
    memcpy(x, y, sizeof x);
  }
  g_assert_cmpuint(it, >, 1);
  g_assert_cmpfloat(summary_value(res.run, "iterations"), ==, it);
  guint64 sum, worst = final_max(res.run, p, &sum);
  g_assert_cmpfloat((double)sum, ==, total);
  g_assert_cmpfloat((double)worst, <, before);
  g_assert_cmpfloat_with_epsilon(summary_value(res.run, "final_max_avg"), worst / avg, 1e-6);
  /* units are indivisible: within the heaviest unit of the even share per neighbour */
  guint64 heaviest = 0;
  for (guint64 i = 0; i < n; i++)
    heaviest = MAX(heaviest, loads[i]);
  g_assert_cmpfloat((double)worst, <=, avg * (1 + tolerance * d) + (d + 1) * (double)heaviest);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/baselines/remap-optimal", test_remap_optimal);
  g_test_add_func("/baselines/remap-sim", test_remap_sim);
  g_test_add_func("/baselines/diffusion-first-flows", test_diffusion_first_flows);
  g_test_add_func("/baselines/diffusion-converges", test_diffusion_converges);
  return g_test_run();
}
