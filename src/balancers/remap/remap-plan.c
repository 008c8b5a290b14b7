/* Chains-on-chains by bisection over the bottleneck B with a greedy probe.
 * The probe is exact: a chain fits in p pieces of at most B each iff the
 * greedy pieces (each as long as it can be) number at most p, because the
 * greedy end of the first k pieces is the farthest any k pieces of at most
 * B can reach (induction on k). Loads are integers, so bisection over the
 * integers between a lower bound (the heaviest element, the even share) and
 * a feasible upper bound (even share + heaviest: each greedy piece but the
 * last then carries more than the even share) ends on the optimum. */
#include "balancers/remap/remap-plan.h"

/* The largest x in [lo, n] with prefix[x] <= value (prefix[lo] <= value). */
static guint64
last_at_most(const guint64 *prefix, guint64 lo, guint64 n, guint64 value)
{
  guint64 hi = n;
  while (lo < hi) {
    guint64 mid = lo + (hi - lo + 1) / 2;
    if (prefix[mid] <= value)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* The smallest x in [0, hi] with prefix[x] >= value (prefix[hi] >= value). */
static guint64
first_at_least(const guint64 *prefix, guint64 hi, guint64 value)
{
  guint64 lo = 0;
  while (lo < hi) {
    guint64 mid = lo + (hi - lo) / 2;
    if (prefix[mid] >= value)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

static guint64
distance(guint64 a, guint64 b)
{
  return a > b ? a - b : b - a;
}

/* Where a piece starting at `start` ends at the latest under bound. */
static guint64
reach(const guint64 *prefix, guint64 n, guint64 start, guint64 bound)
{
  return last_at_most(prefix, start, n, prefix[start] + bound);
}

static gboolean
probe(const guint64 *prefix, guint64 n, guint p, guint64 bound)
{
  guint64 at = 0;
  for (guint k = 0; k < p && at < n; k++)
    at = reach(prefix, n, at, bound);
  return at == n;
}

guint64
remap_bottleneck(const guint64 *prefix, guint64 n, guint p, guint *probes)
{
  g_assert(p > 0);
  guint64 heaviest = 0, total = prefix[n];
  for (guint64 i = 0; i < n; i++)
    heaviest = MAX(heaviest, prefix[i + 1] - prefix[i]);
  guint64 share = total / p + (total % p != 0);
  guint64 lo = MAX(heaviest, share), hi = share + heaviest;
  guint count = 0;
  while (lo < hi) {
    guint64 mid = lo + (hi - lo) / 2;
    count++;
    if (probe(prefix, n, p, mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  if (probes != NULL)
    *probes = count;
  return lo;
}

/* least[r]: the smallest end of the first r pieces from which p - r pieces
 * still cover the rest (greedy from the right). Left to right, cut r lies
 * between least[r] and the reach of cut r - 1: that interval is never
 * empty, since from cut r - 1 >= least[r - 1] the rest fits in p - r + 1
 * pieces, so the greedy first of them ends at or beyond least[r]. Every
 * piece then weighs at most B, and the last cut is n. */
void
remap_cuts(const guint64 *prefix, guint64 n, guint p, guint64 bottleneck, guint64 *cuts)
{
  g_autofree guint64 *least = g_new(guint64, p + 1);
  least[p] = n;
  for (guint r = p; r-- > 0;) {
    guint64 end = prefix[least[r + 1]];
    least[r] = end <= bottleneck ? 0 : first_at_least(prefix, least[r + 1], end - bottleneck);
  }
  g_assert(least[0] == 0);
  guint64 total = prefix[n];
  cuts[0] = 0;
  for (guint r = 1; r < p; r++) {
    guint64 lo = MAX(least[r], cuts[r - 1]);
    guint64 hi = reach(prefix, n, cuts[r - 1], bottleneck);
    g_assert(lo <= hi);
    guint64 target = (guint64)((unsigned __int128)total * r / p);
    guint64 x = first_at_least(prefix, n, target);
    x = CLAMP(x, lo, hi);
    /* the position just before may lie nearer the share */
    if (x > lo && distance(prefix[x - 1], target) < distance(prefix[x], target))
      x--;
    cuts[r] = x;
  }
  cuts[p] = n;
}
