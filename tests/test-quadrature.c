/* lbsim's adaptive Gauss-Kronrod routine (src/workloads/quadrature.c):
 * the rules it computes integrate what their degree says, a polynomial
 * within the Gauss rule's degree takes one panel, a sharper peak takes
 * more evaluations, the values meet the tolerance against closed forms,
 * the limit of evaluations holds, and a jump the first panel does not see
 * fools it, as such routines are fooled. */
#include <glib.h>
#include <math.h>

#include "workloads/quadrature.h"

static double
sum_rule(const LbGaussKronrod *r, const double *w, guint k)
{
  double s = 0;
  for (guint i = 0; i < 2 * r->n + 1; i++)
    s += w[i] * pow(r->x[i], k);
  return s;
}

/* For n = 1 .. 12: 2n + 1 nodes ascending in (-1, 1), symmetric, the Gauss
 * nodes every other one; positive weights; the Kronrod rule exact to
 * degree 3n + 1 and the Gauss rule to 2n - 1 but not 2n (it is the n-point
 * rule). */
static void
test_rules(void)
{
  g_assert_null(lb_gauss_kronrod(0));
  g_assert_null(lb_gauss_kronrod(13));
  for (guint n = 1; n <= 12; n++) {
    const LbGaussKronrod *r = lb_gauss_kronrod(n);
    g_assert_nonnull(r);
    g_assert_true(r == lb_gauss_kronrod(n));
    guint points = 2 * n + 1;
    for (guint i = 0; i < points; i++) {
      g_assert_cmpfloat(r->x[i], >, -1);
      g_assert_cmpfloat(r->x[i], <, 1);
      if (i > 0)
        g_assert_cmpfloat(r->x[i - 1], <, r->x[i]);
      g_assert_cmpfloat(r->x[i], ==, -r->x[points - 1 - i]);
      g_assert_cmpint(r->gauss[i], ==, i % 2 == 1);
      g_assert_cmpfloat(r->wk[i], >, 0);
      g_assert_cmpfloat(r->wg[i], ==, r->gauss[i] ? r->wg[i] : 0);
      if (r->gauss[i])
        g_assert_cmpfloat(r->wg[i], >, 0);
    }
    for (guint k = 0; k <= 3 * n + 1; k++) {
      double exact = k % 2 ? 0 : 2.0 / (k + 1);
      g_assert_cmpfloat_with_epsilon(sum_rule(r, r->wk, k), exact, 1e-14);
      if (k <= 2 * n - 1)
        g_assert_cmpfloat_with_epsilon(sum_rule(r, r->wg, k), exact, 1e-14);
    }
    g_assert_cmpfloat(fabs(sum_rule(r, r->wg, 2 * n) - 2.0 / (2 * n + 1)), >, 1e-10);
  }
}

static double
poly13(double x, gconstpointer data)
{
  return 3 * pow(x, 13) - 2 * x * x + 1;
}

static double
poly14(double x, gconstpointer data)
{
  return pow(x, 14);
}

/* A polynomial of degree 13 on any interval: both rules exact, |K - G| at
 * rounding, done in one panel of exactly 15 evaluations; degree 14 is
 * beyond the 7-point Gauss rule and takes bisections at a tight
 * tolerance, always an odd number of panels costing 15 (2k - 1). */
static void
test_polynomial(void)
{
  const LbGaussKronrod *r = lb_gauss_kronrod(7);
  LbQuadrature q;
  lb_quadrature(r, poly13, NULL, -1.5, 2, 0, 1e-12, 10000, &q);
  double exact = 3 * (pow(2, 14) - pow(1.5, 14)) / 14 - 2 * (8 + 3.375) / 3 + 3.5;
  g_assert_true(q.converged);
  g_assert_cmpuint(q.evaluations, ==, 15);
  g_assert_cmpuint(q.panels, ==, 1);
  g_assert_cmpfloat(fabs(q.value - exact), <=, 1e-12 * fabs(exact));
  lb_quadrature(r, poly14, NULL, 0, 1, 0, 1e-14, 10000, &q);
  g_assert_true(q.converged);
  g_assert_cmpuint(q.evaluations, >, 15);
  g_assert_cmpuint(q.evaluations, ==, 15 * (2 * q.panels - 1));
  g_assert_cmpfloat(fabs(q.value - 1.0 / 15), <=, 1e-14 / 15);
  /* the 10-21 rule: degree 19 in one panel of 21 */
  lb_quadrature(lb_gauss_kronrod(10), poly13, NULL, -1.5, 2, 0, 1e-12, 10000, &q);
  g_assert_cmpuint(q.evaluations, ==, 21);
}

typedef struct {
  double c, w;
} Peak;

static double
peak(double x, gconstpointer data)
{
  const Peak *p = data;
  return 1 / (1 / (p->c * p->c) + (x - p->w) * (x - p->w));
}

/* A peak 1 / (c^-2 + (x - w)^2) of width 1/c: each sharper one (c = 10,
 * 100, ..., 10^5) needs more evaluations to 1e-8, and every value is
 * within the tolerance of c (atan(c (1 - w)) + atan(c w)). */
static void
test_peak(void)
{
  const LbGaussKronrod *r = lb_gauss_kronrod(7);
  guint64 before = 0;
  for (double c = 10; c <= 1e5; c *= 10) {
    Peak p = {c, 0.3};
    LbQuadrature q;
    lb_quadrature(r, peak, &p, 0, 1, 0, 1e-8, 100000, &q);
    double exact = c * (atan(c * 0.7) + atan(c * 0.3));
    g_assert_true(q.converged);
    g_assert_cmpfloat(fabs(q.value - exact), <=, 1e-8 * exact);
    g_assert_cmpfloat(q.error, <=, 1e-8 * fabs(q.value));
    g_assert_cmpuint(q.evaluations, >, before);
    before = q.evaluations;
  }
}

typedef struct {
  double alpha;
} Power;

static double
power(double x, gconstpointer data)
{
  return pow(x, ((const Power *)data)->alpha);
}

/* x^alpha near alpha = -1: each bisection towards 0 gains little, and the
 * routine stops at its limit, the last bisection within it. */
static void
test_limit(void)
{
  const LbGaussKronrod *r = lb_gauss_kronrod(7);
  Power a = {-0.95};
  LbQuadrature q;
  lb_quadrature(r, power, &a, 0, 1, 0, 1e-12, 3000, &q);
  g_assert_false(q.converged);
  g_assert_cmpuint(q.evaluations, <=, 3000);
  g_assert_cmpuint(q.evaluations + 30, >, 3000);
  g_assert_cmpuint(q.evaluations, ==, 15 * (2 * q.panels - 1));
  /* a limit below one panel still evaluates the one */
  lb_quadrature(r, power, &a, 0, 1, 0, 1e-12, 1, &q);
  g_assert_cmpuint(q.evaluations, ==, 15);
  /* a milder singularity converges, to the value 1 / (1 + alpha) */
  a.alpha = -0.5;
  lb_quadrature(r, power, &a, 0, 1, 0, 1e-10, 10000, &q);
  g_assert_true(q.converged);
  g_assert_cmpfloat(fabs(q.value - 2), <=, 1e-10 * 2);
}

static double
jump(double x, gconstpointer data)
{
  return x > *(const double *)data ? 0 : exp(x);
}

/* A jump the first panel's nodes all miss: K = G = 0 and the routine is
 * done after 15 evaluations with 0 for e^w - 1; the same jump further in
 * is seen and homed in on. The cost is what the routine does, right or
 * wrong. */
static void
test_fooled(void)
{
  const LbGaussKronrod *r = lb_gauss_kronrod(7);
  double w = 0.5 * (1 + r->x[0]) / 2; /* half-way to the first node */
  LbQuadrature q;
  lb_quadrature(r, jump, &w, 0, 1, 0, 1e-8, 10000, &q);
  g_assert_true(q.converged);
  g_assert_cmpuint(q.evaluations, ==, 15);
  g_assert_cmpfloat(q.value, ==, 0);
  w = 0.37;
  lb_quadrature(r, jump, &w, 0, 1, 0, 1e-8, 10000, &q);
  g_assert_true(q.converged);
  g_assert_cmpuint(q.evaluations, >, 15 * 20);
  g_assert_cmpfloat(fabs(q.value - expm1(w)), <=, 1e-8 * expm1(w));
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/quadrature/rules", test_rules);
  g_test_add_func("/quadrature/polynomial", test_polynomial);
  g_test_add_func("/quadrature/peak", test_peak);
  g_test_add_func("/quadrature/limit", test_limit);
  g_test_add_func("/quadrature/fooled", test_fooled);
  return g_test_run();
}
