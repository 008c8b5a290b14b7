/* How near a shift of sfc-shift can bring every boundary to its target,
 * worked out from the whole sequence without the plan: boundary b belongs
 * at the prefix load b x average. One whose |Unb(Pre_b)| is at most T
 * stays where it is; one above T can end at any hnode boundary between the
 * nearest staying boundaries on either side (a piece crosses only moving
 * boundaries), and the nearest of those to its target is as close as the
 * pieces allow. Shared by test-sfc.c and test-sfc-sim.c. */
#pragma once

#include <glib.h>
#include <math.h>

/* seqs[i]: P_i's loads (guint64) in curve order before the shift; fills
 * slack[0 .. p] (0 at both ends) with the distance from each boundary's
 * target to the nearest place it can reach. */
static inline void
sfc_bound_slack(GPtrArray *seqs, double threshold, double *slack)
{
  guint p = seqs->len;
  g_autoptr(GArray) prefix = g_array_new(FALSE, FALSE, sizeof(double));
  g_autofree gsize *start = g_new0(gsize, p + 1);
  double sum = 0;
  g_array_append_val(prefix, sum);
  for (guint i = 0; i < p; i++) {
    GArray *s = seqs->pdata[i];
    for (guint j = 0; j < s->len; j++) {
      sum += (double)g_array_index(s, guint64, j);
      g_array_append_val(prefix, sum);
    }
    start[i + 1] = prefix->len - 1;
  }
  g_autofree gboolean *stays = g_new(gboolean, p + 1);
  for (guint b = 0; b <= p; b++)
    stays[b] = b == 0 || b == p ||
               fabs(g_array_index(prefix, double, start[b]) - sum * b / p) <= threshold;
  for (guint b = 0; b <= p; b++) {
    double target = sum * b / p;
    guint lo = b, hi = b;
    while (!stays[lo])
      lo--;
    while (!stays[hi])
      hi++;
    slack[b] = G_MAXDOUBLE;
    for (gsize j = start[lo]; j <= start[hi]; j++)
      slack[b] = MIN(slack[b], fabs(g_array_index(prefix, double, j) - target));
  }
}

/* After the shift: every boundary within its slack of its target, so every
 * rank within slack[i] + slack[i + 1] of the average. */
static inline void
sfc_bound_check(GPtrArray *seqs, const double *slack)
{
  guint p = seqs->len;
  g_autofree double *loads = g_new(double, p);
  double total = 0;
  for (guint i = 0; i < p; i++) {
    GArray *s = seqs->pdata[i];
    loads[i] = 0;
    for (guint j = 0; j < s->len; j++)
      loads[i] += (double)g_array_index(s, guint64, j);
    total += loads[i];
  }
  double before = 0;
  for (guint b = 1; b < p; b++) {
    before += loads[b - 1];
    g_assert_cmpfloat(fabs(before - total * b / p), <=, slack[b] + 1e-6);
  }
  for (guint i = 0; i < p; i++)
    g_assert_cmpfloat(fabs(loads[i] - total / p), <=, slack[i] + slack[i + 1] + 1e-6);
}
