/* The AQR profile of the loop model (aqr.h): the integrand families, the
 * profile's tasks costed by lbsim's quadrature routine (aqr-model =
 * quadrature) or by lbsim's earlier formula (aqr-model = formula), and
 * the loop's order of them. */
#include <math.h>
#include <string.h>

#include "workloads/aqr.h"
#include "workloads/models.h"
#include "workloads/quadrature.h"

/* ---- the integrand families ----
 * The first six are A. Genz's test families ("Testing multidimensional
 * integration routines", 1984; "A package for testing multiple integration
 * subroutines", 1987) on [0, 1], in his order; in one dimension his
 * normalisation makes the sharpness c his difficulty h itself (110, 600,
 * 600, 100, 150, 100). The last two are the singular integrands of one-
 * dimensional profiles (J. N. Lyness and J. J. Kaganove, "A technique for
 * comparing automatic quadrature routines", 1977: |x - w|^alpha), lbsim's
 * choice for the seed's eighth family and its seventh. */
static const struct {
  const char *name;
  double h; /* the sharpness at the last level; singular: its exponent */
} families[LB_AQR_FAMILIES] = {
    {"oscillatory", 110},
    {"product peak", 600},
    {"corner peak", 600},
    {"gaussian", 100},
    {"continuous", 150},
    {"discontinuous", 100},
    {"endpoint singularity", -0.9},
    {"interior singularity", -0.9},
};

const char *
lb_aqr_family_name(guint family)
{
  g_assert(family < LB_AQR_FAMILIES);
  return families[family].name;
}

/* Level d of D halves the sharpness D - 1 - d times; a singular family's
 * exponent goes from -0.9 / D to -0.9 in equal steps. */
LbAqrIntegrand
lb_aqr_integrand_at(guint family, guint level, guint levels, double w)
{
  g_assert(family < LB_AQR_FAMILIES && level < levels);
  double h = families[family].h;
  double c = family >= 6 ? h * (level + 1) / levels : ldexp(h, (int)level + 1 - (int)levels);
  return (LbAqrIntegrand){family, c, w};
}

double
lb_aqr_integrand(double x, gconstpointer integrand)
{
  const LbAqrIntegrand *f = integrand;
  double c = f->c, w = f->w, d = x - w;
  switch (f->family) {
  case 0:
    return cos(2 * G_PI * w + c * x);
  case 1:
    return 1 / (1 / (c * c) + d * d);
  case 2:
    return 1 / ((1 + c * x) * (1 + c * x));
  case 3:
    return exp(-c * c * d * d);
  case 4:
    return exp(-c * fabs(d));
  case 5:
    return x > w ? 0 : exp(c * x);
  case 6: /* the singular point itself counts 0, as a bisection can land on it */
    return x == 0 ? 0 : pow(x, c);
  default:
    return d == 0 ? 0 : pow(fabs(d), c);
  }
}

double
lb_aqr_exact(const LbAqrIntegrand *f)
{
  double c = f->c, w = f->w;
  switch (f->family) {
  case 0: /* sin(2 pi w + c) - sin(2 pi w), without its cancellation */
    return 2 * cos(2 * G_PI * w + c / 2) * sin(c / 2) / c;
  case 1:
    return c * (atan(c * (1 - w)) + atan(c * w));
  case 2:
    return 1 / (1 + c);
  case 3:
    return sqrt(G_PI) / (2 * c) * (erf(c * (1 - w)) + erf(c * w));
  case 4:
    return -(expm1(-c * w) + expm1(-c * (1 - w))) / c;
  case 5:
    return expm1(c * w) / c;
  case 6:
    return 1 / (1 + c);
  default:
    return (pow(w, 1 + c) + pow(1 - w, 1 + c)) / (1 + c);
  }
}

/* ---- the keys ---- */

typedef struct {
  gboolean quadrature;
  guint first, families, levels, tolerances, rules, samples;
  guint64 max_evaluations;
} Profile;

/* The formula's tolerances default to its own 8 (lbsim's profile before
 * the quadrature), the quadrature's to the key's 13. */
static Profile
profile_of(const LbParams *w)
{
  Profile p = {0};
  p.quadrature = strcmp(lb_params_get_string(w, "aqr-model"), "quadrature") == 0;
  const char *only = lb_params_get_string(w, "aqr-family");
  gboolean one = strcmp(only, "all") != 0;
  p.first = one ? (guint)(only[0] - '0') : 0;
  p.families = one ? 1 : (guint)lb_params_get_int(w, "aqr-families");
  p.levels = (guint)lb_params_get_int(w, "aqr-levels");
  p.tolerances = !p.quadrature && !lb_params_is_set(w, "aqr-tolerances")
                     ? 8
                     : (guint)lb_params_get_int(w, "aqr-tolerances");
  p.rules = (guint)lb_params_get_int(w, "aqr-rules");
  p.samples = (guint)lb_params_get_int(w, "aqr-samples");
  p.max_evaluations = (guint64)lb_params_get_int(w, "aqr-max-evaluations");
  return p;
}

static guint64
integrals_of(const Profile *p)
{
  return (guint64)p->families * p->levels * p->tolerances * p->rules * p->samples;
}

gboolean
lb_aqr_check(const LbParams *w, guint64 n, const char *file, GError **error)
{
  if (lb_params_is_set(w, "aqr-families") && lb_params_is_set(w, "aqr-family") &&
      strcmp(lb_params_get_string(w, "aqr-family"), "all") != 0)
    return lb_workload_fail(error, file, "aqr-families",
                            "counts the families of aqr-family = all, but aqr-family is %s",
                            lb_params_get_string(w, "aqr-family"));
  Profile p = profile_of(w);
  static const char *const quadrature_keys[] = {"aqr-rules", "aqr-samples", "aqr-max-evaluations"};
  for (guint i = 0; i < G_N_ELEMENTS(quadrature_keys); i++)
    if (!p.quadrature && lb_params_is_set(w, quadrature_keys[i]))
      return lb_workload_fail(error, file, quadrature_keys[i],
                              "applies to aqr-model quadrature, but aqr-model is formula");
  if (!p.quadrature)
    return TRUE;
  const LbGaussKronrod *rule = lb_gauss_kronrod(7);
  if (p.max_evaluations < 2 * rule->n + 1)
    return lb_workload_fail(error, file, "aqr-max-evaluations",
                            "%" G_GUINT64_FORMAT " is less than one panel of the rule (%u)",
                            p.max_evaluations, 2 * rule->n + 1);
  guint64 m = integrals_of(&p);
  if (n > m)
    return lb_workload_fail(
        error, file, "iterations",
        "%" G_GUINT64_FORMAT " iterations, but the profile has %" G_GUINT64_FORMAT
        " integrals (%u families x %u levels x %u tolerances x %u rules x %u samples) and a task "
        "holds one or more: raise aqr-samples or lower iterations",
        n, m, p.families, p.levels, p.tolerances, p.rules, p.samples);
  return TRUE;
}

/* ---- aqr-model = formula: lbsim's profile before the quadrature ----
 * Each iteration integrates one integrand of a family at a difficulty level
 * and a relative tolerance, with a globally adaptive 15-point Gauss-Kronrod
 * rule that bisects the worst subinterval until the error estimate meets the
 * tolerance. Its cost is the function evaluations: 15 (2k - 1) for k final
 * subintervals, at most MAX_NFE. k follows the integrand's feature at
 * sharpness a = 2^level and tolerance eps = 10^-(2 + e): smooth but peaked or
 * oscillating integrands need subintervals in proportion to a power of a
 * times eps^(-1/8) (the rule's effective order), integrands with a kink, a
 * jump or a singularity need bisections that home in on the feature: a
 * multiple of log2(a / eps). The feature's place and the integrand's
 * coefficients are drawn per sample, which scales k by a seeded factor in
 * [0.5, 1.5). A model of the routine, not the routine: its costs are made
 * up, kept so that earlier results can be made again. */
#define RULE_POINTS 15
#define MAX_NFE (RULE_POINTS * (2 * 1000 - 1))

typedef struct {
  gboolean smooth;
  double scale, power; /* smooth: k = scale a^power eps^(-1/8) */
  double per_bit;      /* not smooth: k = 1 + per_bit log2(a / eps) */
} FormulaFamily;

static const FormulaFamily formula_families[LB_AQR_FAMILIES] = {
    {TRUE, 0.25, 0.75, 0}, {TRUE, 0.4, 0.5, 0}, {FALSE, 0, 0, 1.5}, {TRUE, 0.4, 0.5, 0},
    {FALSE, 0, 0, 0.5},    {FALSE, 0, 0, 1.0},  {FALSE, 0, 0, 2.0}, {FALSE, 0, 0, 1.2},
};

static guint64
formula_nfe(const FormulaFamily *f, guint level, guint tolerance, double noise)
{
  double a = ldexp(1.0, (int)level), eps = pow(10.0, -(2.0 + tolerance));
  double k =
      f->smooth ? f->scale * pow(a, f->power) * pow(eps, -0.125) : 1.0 + f->per_bit * log2(a / eps);
  k = MAX(1.0, ceil(k * noise));
  double nfe = RULE_POINTS * (2.0 * k - 1.0);
  return (guint64)MIN(nfe, (double)MAX_NFE);
}

/* Iterations go family by family (the slowest index), then by difficulty,
 * then by tolerance, then by sample: combination c of C = F D E takes the
 * iterations i with floor(i C / N) = c. */
static void
formula_costs(const Profile *p, GRand *rand, guint64 n, guint64 *costs)
{
  guint64 combinations = (guint64)p->families * p->levels * p->tolerances;
  for (guint64 i = 0; i < n; i++) {
    guint64 c = (guint64)(((unsigned __int128)i * combinations) / n);
    guint tolerance = (guint)(c % p->tolerances);
    guint level = (guint)((c / p->tolerances) % p->levels);
    guint family = p->first + (guint)(c / ((guint64)p->tolerances * p->levels));
    double noise = 0.5 + g_rand_double(rand);
    costs[i] = formula_nfe(&formula_families[family], level, tolerance, noise);
  }
}

/* ---- aqr-model = quadrature ----
 * The profile's integrals go family by family (the slowest index), then
 * by difficulty level, tolerance (eps = 10^-(2 + e)), rule (Gauss-Kronrod
 * 7-15, then 10-21) and sample (the fastest); each sample draws its
 * feature's place w uniform in [0, 1). Each costs the evaluations lbsim's
 * routine spends on it (relative tolerance eps, no absolute one, at most
 * aqr-max-evaluations). Task i of N holds the integrals j of M with
 * floor(i M / N) <= j < floor((i + 1) M / N), GRPSIZE = M / N of them when
 * N divides M, and costs their sum. */
static const guint rule_points[] = {7, 10};

static guint64 *
integral_costs(const Profile *p, GRand *rand)
{
  guint64 m = integrals_of(p);
  guint64 *nfe = g_new(guint64, m);
  guint64 j = 0;
  for (guint f = p->first; f < p->first + p->families; f++)
    for (guint d = 0; d < p->levels; d++)
      for (guint e = 0; e < p->tolerances; e++)
        for (guint r = 0; r < p->rules; r++) {
          const LbGaussKronrod *rule = lb_gauss_kronrod(rule_points[r]);
          double eps = pow(10.0, -(2.0 + e));
          for (guint s = 0; s < p->samples; s++, j++) {
            LbAqrIntegrand integrand = lb_aqr_integrand_at(f, d, p->levels, g_rand_double(rand));
            LbQuadrature q;
            lb_quadrature(rule, lb_aqr_integrand, &integrand, 0, 1, 0, eps, p->max_evaluations, &q);
            nfe[j] = q.evaluations;
          }
        }
  return nfe;
}

/* The integrals' costs depend on the profile and the seed only: a sweep
 * reads a scenario once for each point and again in each run (a child of
 * the process that read it first), so the process keeps what it computed. */
G_LOCK_DEFINE_STATIC(cache);
static GHashTable *cache;

static const guint64 *
cached_integral_costs(const Profile *p, guint64 seed, GRand *rand)
{
  g_autofree char *key = g_strdup_printf(
      "%" G_GUINT64_FORMAT " %u %u %u %u %u %u %" G_GUINT64_FORMAT, seed, p->first, p->families,
      p->levels, p->tolerances, p->rules, p->samples, p->max_evaluations);
  G_LOCK(cache);
  if (cache == NULL)
    cache = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  guint64 *nfe = g_hash_table_lookup(cache, key);
  G_UNLOCK(cache);
  if (nfe != NULL) {
    /* the draws the costs took, for those that follow (aqr-order random) */
    for (guint64 j = integrals_of(p); j > 0; j--)
      g_rand_double(rand);
    return nfe;
  }
  nfe = integral_costs(p, rand);
  G_LOCK(cache);
  g_hash_table_replace(cache, g_steal_pointer(&key), nfe);
  G_UNLOCK(cache);
  return nfe;
}

static void
quadrature_costs(const Profile *p, guint64 seed, GRand *rand, guint64 n, guint64 *costs)
{
  const guint64 *nfe = cached_integral_costs(p, seed, rand);
  guint64 m = integrals_of(p);
  for (guint64 i = 0; i < n; i++) {
    guint64 from = (guint64)(((unsigned __int128)i * m) / n);
    guint64 to = (guint64)(((unsigned __int128)(i + 1) * m) / n);
    costs[i] = 0;
    for (guint64 j = from; j < to; j++)
      costs[i] += nfe[j];
  }
}

/* ---- aqr-order ---- */

typedef struct {
  guint64 cost, index;
} Ranked;

static int
cheapest_first(const void *a, const void *b)
{
  const Ranked *x = a, *y = b;
  if (x->cost != y->cost)
    return x->cost < y->cost ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

static int
costliest_first(const void *a, const void *b)
{
  const Ranked *x = a, *y = b;
  if (x->cost != y->cost)
    return x->cost > y->cost ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* The loop's distribution of costs over its index. back and front sort
 * the profile's costs (equal costs keep the profile's order, so the
 * result is one on every machine); random shuffles them by Fisher-Yates
 * with the draws that follow the costs'. */
static void
order_costs(const LbParams *w, GRand *rand, guint64 n, guint64 *costs)
{
  const char *order = lb_params_get_string(w, "aqr-order");
  if (strcmp(order, "random") == 0) {
    for (guint64 i = n; i > 1; i--) {
      guint64 j = (guint64)floor(g_rand_double(rand) * (double)i);
      guint64 t = costs[i - 1];
      costs[i - 1] = costs[j];
      costs[j] = t;
    }
    return;
  }
  if (strcmp(order, "profile") == 0)
    return;
  g_autofree Ranked *r = g_new(Ranked, n);
  for (guint64 i = 0; i < n; i++)
    r[i] = (Ranked){costs[i], i};
  qsort(r, n, sizeof *r, strcmp(order, "back") == 0 ? cheapest_first : costliest_first);
  for (guint64 i = 0; i < n; i++)
    costs[i] = r[i].cost;
}

void
lb_aqr_costs(const LbParams *w, guint64 seed, guint64 n, guint64 *costs)
{
  Profile p = profile_of(w);
  guint32 words[2] = {(guint32)seed, (guint32)(seed >> 32)};
  g_autoptr(GRand) rand = g_rand_new_with_seed_array(words, 2);
  if (p.quadrature)
    quadrature_costs(&p, seed, rand, n, costs);
  else
    formula_costs(&p, rand, n, costs);
  order_costs(w, rand, n, costs);
}
