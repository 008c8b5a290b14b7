/* The loop model's AQR profile (cost = aqr): the costs of a parallel loop
 * whose iterations are tasks of integrals, as in the profiling of an
 * automatic quadrature routine of R. Chaube, R. L. Cariño and I.
 * Banicescu, "LB_Migrate: a dynamic load balancing library" (2003),
 * section 5 (docs/families/dls.md, The AQR profile). */
#pragma once

#include "lbsim/params.h"

#define LB_AQR_FAMILIES 8

/* One integrand of a family on [0, 1]: c its sharpness (or, for the
 * singular families, its exponent alpha), w the place of its feature. */
typedef struct {
  guint family;
  double c, w;
} LbAqrIntegrand;

/* The family's name: "oscillatory", ..., "interior singularity". */
const char *lb_aqr_family_name(guint family);

/* The integrand of the family at difficulty level `level` of `levels`
 * (the last the sharpest) whose feature is at w in [0, 1). */
LbAqrIntegrand lb_aqr_integrand_at(guint family, guint level, guint levels, double w);

/* f(x) of an LbAqrIntegrand (an LbIntegrandFunc), and its integral over
 * [0, 1] in closed form. */
double lb_aqr_integrand(double x, gconstpointer integrand);
double lb_aqr_exact(const LbAqrIntegrand *f);

/* Checks the aqr keys of the loop's parameters for n iterations: an input
 * error "FILE: [workload] KEY: ..." when they do not make a profile. */
gboolean lb_aqr_check(const LbParams *w, guint64 n, const char *file, GError **error);

/* Iteration i's cost for i < n, by aqr-model and aqr-order, from the
 * scenario's seed: the same on every machine. */
void lb_aqr_costs(const LbParams *w, guint64 seed, guint64 n, guint64 *costs);
