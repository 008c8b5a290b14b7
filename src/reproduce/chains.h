/* Chains-on-chains partitioning, solved exactly for the checks: a chain of
 * n weights cut into k contiguous parts (some may be empty) so that the
 * heaviest part is as light as it can be. The balancers' own cut rules
 * (lbd's cuts, scratch-remap's and MLB's final loads) are held against it;
 * none of their code is used here. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The least bottleneck B over every way to cut weights[0 .. n) into
 * `parts` contiguous parts (parts >= 1): the least integer B for which
 * parts of at most B each cover the chain, by bisection on B with a
 * greedy probe (a part takes weights while it stays within B). With cuts
 * (parts + 1 values) not NULL, cuts that reach B: the greedy probe's at
 * B, each part as long as B allows (cuts[0] = 0, cuts[parts] = n). */
guint64 lb_chains_best_bottleneck(const guint64 *weights, gsize n, guint parts, gsize *cuts);

/* The heaviest part of weights[0 .. n) cut at cuts[0 .. parts]. */
guint64 lb_chains_bottleneck(const guint64 *weights, const gsize *cuts, guint parts);

G_END_DECLS
