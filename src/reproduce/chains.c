#include "reproduce/chains.h"

/* The parts the greedy probe needs under bound b (each part takes weights
 * while it stays within b), stopping once it passes `parts`; the chain's
 * heaviest weight must be within b. With cuts, where its parts end. */
static guint
probe(const guint64 *weights, gsize n, guint64 b, guint parts, gsize *cuts)
{
  guint used = 1;
  guint64 part = 0;
  for (gsize i = 0; i < n; i++) {
    if (part + weights[i] > b) {
      if (cuts != NULL && used < parts)
        cuts[used] = i;
      if (++used > parts)
        return used;
      part = 0;
    }
    part += weights[i];
  }
  if (cuts != NULL)
    for (guint k = used; k < parts; k++)
      cuts[k] = n; /* parts the chain did not need: empty at its end */
  return used;
}

guint64
lb_chains_best_bottleneck(const guint64 *weights, gsize n, guint parts, gsize *cuts)
{
  g_assert(parts >= 1);
  /* the bottleneck lies in [max weight, total], and the probe's answer
   * only shrinks as B grows: bisect for the least B it fits in `parts` */
  guint64 lo = 0, hi = 0;
  for (gsize i = 0; i < n; i++) {
    lo = MAX(lo, weights[i]);
    hi += weights[i];
  }
  while (lo < hi) {
    guint64 mid = lo + (hi - lo) / 2;
    if (probe(weights, n, mid, parts, NULL) <= parts)
      hi = mid;
    else
      lo = mid + 1;
  }
  if (cuts != NULL) {
    cuts[0] = 0;
    cuts[parts] = n;
    probe(weights, n, lo, parts, cuts);
  }
  return lo;
}

guint64
lb_chains_bottleneck(const guint64 *weights, const gsize *cuts, guint parts)
{
  guint64 most = 0;
  for (guint k = 0; k < parts; k++) {
    guint64 part = 0;
    for (gsize i = cuts[k]; i < cuts[k + 1]; i++)
      part += weights[i];
    most = MAX(most, part);
  }
  return most;
}
