/* lbsim's own automatic quadrature routine, the loop model's AQR: a
 * globally adaptive Gauss-Kronrod rule on a finite interval that counts
 * its integrand's evaluations, as the routine profiled in R. Chaube, R. L.
 * Cariño and I. Banicescu, "LB_Migrate: a dynamic load balancing library"
 * (2003), section 5, counts its NFE.
 *
 * A rule is the n-point Gauss-Legendre rule and its 2n + 1 point Kronrod
 * extension (A. S. Kronrod, "Nodes and weights of quadrature formulas",
 * 1965), computed here from their definitions. The routine keeps a
 * partition of [a, b] into panels, each with the Kronrod result and the
 * error estimate |K - G|, bisects the panel of the largest estimate while
 * the estimates' sum exceeds max(epsabs, epsrel |result|) (as QUADPACK's
 * QAG does, R. Piessens et al., 1983, with a plainer estimate), and stops
 * early when the next bisection would take more than max_evaluations
 * evaluations or no panel can be halved in double precision. One panel
 * costs 2n + 1 evaluations, a bisection 2 (2n + 1) more: k final panels
 * cost (2k - 1)(2n + 1). */
#pragma once

#include <glib.h>

typedef struct {
  guint n;         /* Gauss points; the Kronrod rule has 2n + 1 */
  double *x;       /* the 2n + 1 Kronrod nodes on [-1, 1], ascending */
  double *wk;      /* their Kronrod weights */
  double *wg;      /* the Gauss weight of a node, 0 on a Kronrod-only node */
  gboolean *gauss; /* whether the node is one of the n Gauss nodes */
} LbGaussKronrod;

/* The rule with n Gauss points (1 <= n <= 12), computed once per process
 * and kept; NULL for another n. */
const LbGaussKronrod *lb_gauss_kronrod(guint n);

typedef double (*LbIntegrandFunc)(double x, gconstpointer data);

typedef struct {
  double value;        /* the sum of the panels' Kronrod results */
  double error;        /* the sum of their estimates |K - G| */
  guint64 evaluations; /* the integrand's evaluations (NFE) */
  guint panels;        /* the final partition's panels */
  gboolean converged;  /* error <= max(epsabs, epsrel |value|) */
} LbQuadrature;

/* Integrates f over [a, b] (a < b) with the rule. */
void lb_quadrature(const LbGaussKronrod *rule, LbIntegrandFunc f, gconstpointer data, double a,
                   double b, double epsabs, double epsrel, guint64 max_evaluations,
                   LbQuadrature *out);
