/* The optimal contiguous partition (chains-on-chains): the split of a chain
 * of n loads into p contiguous pieces whose heaviest piece is the lightest
 * possible. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* prefix: n + 1 running sums, prefix[0] = 0. Returns the least bottleneck
 * over every partition into p pieces; *probes (may be NULL) gets how many
 * greedy probes the bisection ran. */
guint64 remap_bottleneck(const guint64 *prefix, guint64 n, guint p, guint *probes);
/* cuts: p + 1 entries, piece r is [cuts[r], cuts[r + 1]); every piece's load
 * is at most bottleneck (which must be feasible), each cut the nearest to
 * the even share r T / p that keeps the rest of the chain feasible. */
void remap_cuts(const guint64 *prefix, guint64 n, guint p, guint64 bottleneck, guint64 *cuts);

G_END_DECLS
