/* Gauss-Kronrod rules computed from their definitions, and the globally
 * adaptive routine on them (quadrature.h). */
#include <math.h>
#include <string.h>

#include "workloads/quadrature.h"

#define MAX_GAUSS 12

/* P_n(x) and P_n'(x) by the three-term recurrence. */
static void
legendre(guint n, double x, double *p, double *dp)
{
  double p0 = 1, p1 = x;
  if (n == 0) {
    *p = 1;
    *dp = 0;
    return;
  }
  for (guint k = 1; k < n; k++) {
    double p2 = ((2.0 * k + 1) * x * p1 - k * p0) / (k + 1);
    p0 = p1;
    p1 = p2;
  }
  *p = p1;
  *dp = n * (x * p1 - p0) / (x * x - 1);
}

/* The m-point Gauss-Legendre rule by Newton's method from the usual
 * cosine guesses; x ascending. */
static void
gauss_legendre(guint m, double *x, double *w)
{
  for (guint i = 0; i < m; i++) {
    double t = -cos(G_PI * (i + 0.75) / (m + 0.5)), p = 0, dp = 0;
    for (guint it = 0; it < 100; it++) {
      legendre(m, t, &p, &dp);
      double step = p / dp;
      t -= step;
      if (fabs(step) < 1e-16)
        break;
    }
    legendre(m, t, &p, &dp);
    x[i] = t;
    w[i] = 2 / ((1 - t * t) * dp * dp);
  }
}

/* Solves the m x m system a y = r in place (partial pivoting). */
static void
solve(guint m, double *a, double *r)
{
  for (guint c = 0; c < m; c++) {
    guint best = c;
    for (guint i = c + 1; i < m; i++)
      if (fabs(a[i * m + c]) > fabs(a[best * m + c]))
        best = i;
    for (guint j = 0; j < m; j++) {
      double t = a[c * m + j];
      a[c * m + j] = a[best * m + j];
      a[best * m + j] = t;
    }
    double t = r[c];
    r[c] = r[best];
    r[best] = t;
    g_assert(a[c * m + c] != 0);
    for (guint i = c + 1; i < m; i++) {
      double f = a[i * m + c] / a[c * m + c];
      for (guint j = c; j < m; j++)
        a[i * m + j] -= f * a[c * m + j];
      r[i] -= f * r[c];
    }
  }
  for (guint c = m; c-- > 0;) {
    for (guint j = c + 1; j < m; j++)
      r[c] -= a[c * m + j] * r[j];
    r[c] /= a[c * m + c];
  }
}

/* The Stieltjes polynomial E(x) = x^(n+1) + sum_j e_j x^(n+1-2j). */
static double
stieltjes(guint n, const double *e, guint terms, double x)
{
  double v = pow(x, n + 1);
  for (guint j = 0; j < terms; j++)
    v += e[j] * pow(x, (double)(n + 1 - 2 * (j + 1)));
  return v;
}

/* The Kronrod extension of the n-point Gauss rule: its n + 1 new nodes
 * are the zeros of the monic E of degree n + 1 with int P_n E x^k = 0 for
 * k = 0 .. n (those k that leave the integrand even give the equations;
 * E has the parity of n + 1), which interlace the Gauss nodes; the
 * weights integrate the Lagrange polynomials of all 2n + 1 nodes. The
 * integrals are those of an exact Gauss-Legendre rule of 2n + 2 points. */
static LbGaussKronrod *
make_rule(guint n)
{
  guint big = 2 * n + 2, terms = (n + 1) / 2, points = 2 * n + 1, cells = terms * terms;
  g_autofree double *bx = g_new(double, big), *bw = g_new(double, big);
  gauss_legendre(big, bx, bw);
  g_autofree double *gx = g_new(double, n), *gw = g_new(double, n);
  gauss_legendre(n, gx, gw);
  g_autofree double *a = g_new0(double, cells), *e = g_new0(double, terms);
  for (guint r = 0; r < terms; r++) {
    guint k = 2 * r + 1;
    for (guint q = 0; q < big; q++) {
      double p = 0, dp = 0;
      legendre(n, bx[q], &p, &dp);
      double base = bw[q] * p * pow(bx[q], k);
      for (guint j = 0; j < terms; j++)
        a[r * terms + j] += base * pow(bx[q], (double)(n + 1 - 2 * (j + 1)));
      e[r] -= base * pow(bx[q], n + 1);
    }
  }
  solve(terms, a, e);
  LbGaussKronrod *rule = g_new0(LbGaussKronrod, 1);
  rule->n = n;
  rule->x = g_new(double, points);
  rule->wk = g_new0(double, points);
  rule->wg = g_new0(double, points);
  rule->gauss = g_new0(gboolean, points);
  /* one zero of E in each gap of -1, the Gauss nodes, 1, by bisection */
  for (guint i = 0; i <= n; i++) {
    double lo = i == 0 ? -1 : gx[i - 1], hi = i == n ? 1 : gx[i];
    double flo = stieltjes(n, e, terms, lo);
    g_assert(flo * stieltjes(n, e, terms, hi) < 0);
    for (guint it = 0; it < 200 && hi - lo > 0; it++) {
      double mid = lo + (hi - lo) / 2, fm = stieltjes(n, e, terms, mid);
      if (mid <= lo || mid >= hi)
        break;
      if ((fm < 0) == (flo < 0)) {
        lo = mid;
        flo = fm;
      } else {
        hi = mid;
      }
    }
    rule->x[2 * i] = lo + (hi - lo) / 2;
    if (i < n) {
      rule->x[2 * i + 1] = gx[i];
      rule->wg[2 * i + 1] = gw[i];
      rule->gauss[2 * i + 1] = TRUE;
    }
  }
  /* the rule is symmetric: make its halves mirror each other exactly */
  for (guint i = 0; i < points / 2; i++) {
    double m = (rule->x[points - 1 - i] - rule->x[i]) / 2,
           w = (rule->wg[i] + rule->wg[points - 1 - i]) / 2;
    rule->x[i] = -m;
    rule->x[points - 1 - i] = m;
    rule->wg[i] = rule->wg[points - 1 - i] = w;
  }
  rule->x[points / 2] = 0;
  for (guint i = 0; i < points; i++)
    for (guint q = 0; q < big; q++) {
      double l = 1;
      for (guint j = 0; j < points; j++)
        if (j != i)
          l *= (bx[q] - rule->x[j]) / (rule->x[i] - rule->x[j]);
      rule->wk[i] += bw[q] * l;
    }
  for (guint i = 0; i < points / 2; i++)
    rule->wk[i] = rule->wk[points - 1 - i] = (rule->wk[i] + rule->wk[points - 1 - i]) / 2;
  return rule;
}

G_LOCK_DEFINE_STATIC(rules);

const LbGaussKronrod *
lb_gauss_kronrod(guint n)
{
  static LbGaussKronrod *made[MAX_GAUSS + 1];
  if (n < 1 || n > MAX_GAUSS)
    return NULL;
  G_LOCK(rules);
  if (made[n] == NULL)
    made[n] = make_rule(n);
  G_UNLOCK(rules);
  return made[n];
}

/* ---- the adaptive routine ---- */

typedef struct {
  double a, b, value, error;
} Panel;

/* Neumaier's compensated sum: panels' errors span many orders of
 * magnitude, and a plain running sum of adds and removals drifts. */
typedef struct {
  double s, c;
} Sum;

static void
sum_add(Sum *sum, double x)
{
  double t = sum->s + x;
  sum->c += fabs(sum->s) >= fabs(x) ? (sum->s - t) + x : (x - t) + sum->s;
  sum->s = t;
}

static double
sum_value(const Sum *sum)
{
  return sum->s + sum->c;
}

static void
panel_eval(const LbGaussKronrod *rule, LbIntegrandFunc f, gconstpointer data, Panel *p)
{
  double c = p->a + (p->b - p->a) / 2, h = (p->b - p->a) / 2, k = 0, g = 0;
  for (guint i = 0; i < 2 * rule->n + 1; i++) {
    double fx = f(c + h * rule->x[i], data);
    k += rule->wk[i] * fx;
    g += rule->wg[i] * fx;
  }
  p->value = h * k;
  p->error = fabs(h * (k - g));
}

/* The heap of panels that can still be halved, the largest error first. */
static void
heap_push(GArray *heap, const Panel *p)
{
  g_array_append_val(heap, *p);
  Panel *h = (Panel *)heap->data;
  for (guint i = heap->len - 1; i > 0;) {
    guint up = (i - 1) / 2;
    if (h[up].error >= h[i].error)
      break;
    Panel t = h[up];
    h[up] = h[i];
    h[i] = t;
    i = up;
  }
}

static Panel
heap_pop(GArray *heap)
{
  Panel *h = (Panel *)heap->data, top = h[0];
  h[0] = h[heap->len - 1];
  g_array_set_size(heap, heap->len - 1);
  for (guint i = 0;;) {
    guint l = 2 * i + 1, r = l + 1, big = i;
    if (l < heap->len && h[l].error > h[big].error)
      big = l;
    if (r < heap->len && h[r].error > h[big].error)
      big = r;
    if (big == i)
      break;
    Panel t = h[big];
    h[big] = h[i];
    h[i] = t;
    i = big;
  }
  return top;
}

static void
exact_sums(const GArray *heap, const GArray *done, Sum *value, Sum *error)
{
  *value = *error = (Sum){0, 0};
  const GArray *both[] = {heap, done};
  for (guint k = 0; k < 2; k++)
    for (guint i = 0; i < both[k]->len; i++) {
      const Panel *p = &g_array_index(both[k], Panel, i);
      sum_add(value, p->value);
      sum_add(error, p->error);
    }
}

void
lb_quadrature(const LbGaussKronrod *rule, LbIntegrandFunc f, gconstpointer data, double a, double b,
              double epsabs, double epsrel, guint64 max_evaluations, LbQuadrature *out)
{
  g_assert(a < b);
  guint64 per_panel = 2 * rule->n + 1;
  g_autoptr(GArray) heap = g_array_new(FALSE, FALSE, sizeof(Panel));
  g_autoptr(GArray) done = g_array_new(FALSE, FALSE, sizeof(Panel));
  Panel whole = {a, b, 0, 0};
  panel_eval(rule, f, data, &whole);
  heap_push(heap, &whole);
  guint64 evaluations = per_panel;
  Sum value = {whole.value, 0}, error = {whole.error, 0};
  gboolean converged = FALSE;
  for (guint splits = 1;; splits++) {
    /* a running sum that says done is confirmed from the panels, and
     * renewed from time to time */
    if (sum_value(&error) <= MAX(epsabs, epsrel * fabs(sum_value(&value))) || splits % 64 == 0)
      exact_sums(heap, done, &value, &error);
    if (sum_value(&error) <= MAX(epsabs, epsrel * fabs(sum_value(&value)))) {
      converged = TRUE;
      break;
    }
    if (heap->len == 0 || evaluations + 2 * per_panel > max_evaluations)
      break;
    Panel worst = heap_pop(heap);
    double mid = worst.a + (worst.b - worst.a) / 2;
    if (!(worst.a < mid && mid < worst.b)) {
      g_array_append_val(done, worst);
      continue;
    }
    Panel left = {worst.a, mid, 0, 0}, right = {mid, worst.b, 0, 0};
    panel_eval(rule, f, data, &left);
    panel_eval(rule, f, data, &right);
    evaluations += 2 * per_panel;
    sum_add(&value, left.value);
    sum_add(&value, right.value);
    sum_add(&value, -worst.value);
    sum_add(&error, left.error);
    sum_add(&error, right.error);
    sum_add(&error, -worst.error);
    heap_push(heap, &left);
    heap_push(heap, &right);
  }
  exact_sums(heap, done, &value, &error);
  out->value = sum_value(&value);
  out->error = sum_value(&error);
  out->evaluations = evaluations;
  out->panels = heap->len + done->len;
  out->converged = converged;
}
