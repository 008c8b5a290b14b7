#include "balancers/cuts/lbd-plan.h"

#include <math.h>

gboolean
lbd_boxes_meet(const LbdBox *a, const LbdBox *b, guint dim)
{
  for (guint i = 0; i < dim; i++)
    if (MAX(a->lo[i], b->lo[i]) >= MIN(a->hi[i], b->hi[i]))
      return FALSE;
  return TRUE;
}

double
lbd_metric(const guint64 *slab_loads, guint n)
{
  guint64 max = 0;
  double total = 0;
  for (guint i = 0; i < n; i++) {
    max = MAX(max, slab_loads[i]);
    total += (double)slab_loads[i];
  }
  if (total == 0)
    return 0;
  return (double)max * n / total - 1.0;
}

void
lbd_equalize_cuts(const LbdBox *boxes, const guint64 *loads, guint n, guint axis, guint64 lo,
                  guint64 hi, guint parts, guint64 *cuts)
{
  gsize width = hi - lo;
  /* density per cell along the axis, by a difference array */
  g_autofree double *delta = g_new0(double, width + 1);
  for (guint b = 0; b < n; b++) {
    guint64 b0 = MAX(boxes[b].lo[axis], lo), b1 = MIN(boxes[b].hi[axis], hi);
    guint64 w = boxes[b].hi[axis] - boxes[b].lo[axis];
    if (b1 <= b0 || w == 0 || loads[b] == 0)
      continue;
    double d = (double)loads[b] / (double)w;
    delta[b0 - lo] += d;
    delta[b1 - lo] -= d;
  }
  /* prefix(x), the estimated load of [lo, lo + x), summed as the search
   * advances (the same additions in the same order as a full prefix array) */
  double total = 0, density = 0;
  for (gsize x = 0; x < width; x++) {
    density += delta[x];
    total += MAX(density, 0.0);
  }
  cuts[0] = lo;
  cuts[parts] = hi;
  if (total <= 0) { /* nothing to weigh: equal widths */
    for (guint k = 1; k < parts; k++)
      cuts[k] = lo + (guint64)(((unsigned __int128)width * k) / parts);
    return;
  }
  gsize at = 0;
  density = delta[0];
  double here = 0, next = MAX(density, 0.0); /* prefix(at), prefix(at + 1) */
  for (guint k = 1; k < parts; k++) {
    double target = total * k / parts;
    while (at < width && next < target) {
      at++;
      here = next;
      if (at < width) {
        density += delta[at];
        next = here + MAX(density, 0.0);
      }
    }
    /* at is the last boundary below the target; at + 1 the first at or
     * above it: take the nearer */
    gsize best = at;
    if (at < width && fabs(next - target) < fabs(target - here))
      best = at + 1;
    cuts[k] = MAX(lo + best, cuts[k - 1]);
  }
}

void
lbd_profile_cuts(const guint64 *profile, guint64 width, guint parts, guint64 *cuts, guint64 *loads)
{
  unsigned __int128 total = 0;
  for (guint64 x = 0; x < width; x++)
    total += profile[x];
  cuts[0] = 0;
  cuts[parts] = width;
  /* prefix(at) = load of [0, at); compared with k total / parts, scaled by
   * parts to stay whole */
  guint64 at = 0;
  unsigned __int128 prefix = 0;
  for (guint k = 1; k < parts; k++) {
    unsigned __int128 target = total * k;
    while (at < width && (prefix + profile[at]) * parts <= target) {
      prefix += profile[at];
      at++;
    }
    /* prefix(at) * parts <= target < prefix(at + 1) * parts, unless at is
     * the end: take the nearer boundary */
    guint64 best = at;
    if (at < width) {
      unsigned __int128 below = target - prefix * parts,
                        above = (prefix + profile[at]) * parts - target;
      if (above < below)
        best = at + 1;
    }
    cuts[k] = MAX(best, cuts[k - 1]);
  }
  for (guint k = 0; k < parts; k++) {
    loads[k] = 0;
    for (guint64 x = cuts[k]; x < cuts[k + 1]; x++)
      loads[k] += profile[x];
  }
}

/* The last boundary p in [from, width] with prefix[p] <= bound (prefix is
 * non-decreasing). */
static guint64
last_within(const guint64 *prefix, guint64 from, guint64 width, guint64 bound)
{
  guint64 lo = from, hi = width;
  while (lo < hi) {
    guint64 mid = hi - (hi - lo) / 2;
    if (prefix[mid] <= bound)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* The first boundary p in [0, to] with prefix[p] >= bound. */
static guint64
first_within(const guint64 *prefix, guint64 to, guint64 bound)
{
  guint64 lo = 0, hi = to;
  while (lo < hi) {
    guint64 mid = lo + (hi - lo) / 2;
    if (prefix[mid] >= bound)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/* Whether `parts` slabs of at most b each cover the profile: each slab
 * from where the last ended as far as b allows (b is at least the
 * heaviest cell). */
static gboolean
fits(const guint64 *prefix, guint64 width, guint parts, guint64 b)
{
  guint64 at = 0;
  for (guint k = 0; k < parts && at < width; k++)
    at = last_within(prefix, at, width, prefix[at] + b);
  return at == width;
}

guint64
lbd_best_cuts(const guint64 *profile, guint64 width, guint parts, guint64 *cuts, guint64 *loads)
{
  g_autofree guint64 *prefix = g_new(guint64, width + 1);
  guint64 heaviest = 0;
  prefix[0] = 0;
  for (guint64 x = 0; x < width; x++) {
    prefix[x + 1] = prefix[x] + profile[x];
    heaviest = MAX(heaviest, profile[x]);
  }
  guint64 total = prefix[width];
  /* B lies between the heaviest cell (or the mean slab) and the total */
  guint64 lo = MAX(heaviest, total / parts + (total % parts != 0)), hi = MAX(lo, total);
  while (lo < hi) {
    guint64 mid = lo + (hi - lo) / 2;
    if (fits(prefix, width, parts, mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  guint64 b = lo;
  /* least[k]: the first place cut k may sit with the slabs after it still
   * within b (each from the end as far back as b allows) */
  g_autofree guint64 *least = g_new(guint64, parts + 1);
  least[parts] = width;
  for (guint k = parts; k > 0; k--)
    least[k - 1] = first_within(prefix, least[k], prefix[least[k]] > b ? prefix[least[k]] - b : 0);
  /* each cut at its nearest share, kept within [least, as far as b
   * reaches from the cut before]: the rest stays within b, and the window
   * is never empty (least[k] <= the end of a slab of b from cut k - 1) */
  lbd_profile_cuts(profile, width, parts, cuts, loads);
  for (guint k = 1; k < parts; k++) {
    guint64 from = MAX(least[k], cuts[k - 1]);
    guint64 reach = last_within(prefix, cuts[k - 1], width, prefix[cuts[k - 1]] + b);
    g_assert(from <= reach);
    cuts[k] = CLAMP(cuts[k], from, reach);
  }
  for (guint k = 0; k < parts; k++) {
    loads[k] = prefix[cuts[k + 1]] - prefix[cuts[k]];
    g_assert(loads[k] <= b);
  }
  return b;
}
