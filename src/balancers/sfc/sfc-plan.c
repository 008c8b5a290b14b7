#include "balancers/sfc/sfc-plan.h"

#include <math.h>

/* From boundary *at with prefix *prefix (at most target), the boundary
 * nearest to target (ties: the earliest, never before `floor`): loads
 * come in order through get(i). Leaves *at and *prefix at the last
 * boundary whose prefix is at most target, for the next, larger target. */
static gsize
nearest_boundary(const guint64 *loads, gsize n, gboolean backwards, double target, gsize floor,
                 gsize *at, double *prefix)
{
#define LOAD(i) ((double)loads[backwards ? n - 1 - (i) : (i)])
  while (*at < n && *prefix + LOAD(*at) <= target) {
    *prefix += LOAD(*at);
    (*at)++;
  }
  /* the earliest boundary with the same prefix: back over zero loads */
  gsize first = *at;
  while (first > floor && LOAD(first - 1) == 0)
    first--;
  if (*at < n && *prefix + LOAD(*at) - target < target - *prefix)
    return *at + 1;
  return first;
#undef LOAD
}

void
sfc_block(const guint64 *loads, gsize n, guint parts, gsize *cuts)
{
  double total = 0;
  for (gsize i = 0; i < n; i++)
    total += (double)loads[i];
  cuts[0] = 0;
  cuts[parts] = n;
  gsize at = 0;
  double prefix = 0;
  for (guint k = 1; k < parts; k++)
    cuts[k] = MAX(cuts[k - 1],
                  nearest_boundary(loads, n, FALSE, total * k / parts, cuts[k - 1], &at, &prefix));
}

double
sfc_max_unbalance(const guint64 *loads, guint p)
{
  double total = 0, worst = 0;
  for (guint i = 0; i < p; i++)
    total += (double)loads[i];
  double avg = p > 0 ? total / p : 0;
  for (guint i = 0; i < p; i++)
    worst = MAX(worst, fabs((double)loads[i] - avg));
  return worst;
}

void
sfc_flows(const guint64 *loads, guint p, double *flow)
{
  double total = 0;
  for (guint i = 0; i < p; i++)
    total += (double)loads[i];
  double prefix = 0;
  flow[0] = 0;
  for (guint b = 1; b <= p; b++) {
    prefix += (double)loads[b - 1];
    /* b * total / p, not a running sum of averages: the same value on
     * every rank and no drift along the sequence */
    flow[b] = prefix - total * b / p;
  }
}

gsize
sfc_prefix_nearest(const guint64 *loads, gsize n, double target)
{
  gsize at = 0;
  double prefix = 0;
  return target <= 0 ? 0 : nearest_boundary(loads, n, FALSE, target, 0, &at, &prefix);
}

gsize
sfc_suffix_nearest(const guint64 *loads, gsize n, double target)
{
  gsize at = 0;
  double prefix = 0;
  return target <= 0 ? 0 : nearest_boundary(loads, n, TRUE, target, 0, &at, &prefix);
}

/* The load of the first i of elements [base, base + n) of a sequence, or
 * of its last i (backwards). */
static guint64
part(const SfcLoads *l, gsize base, gsize n, gboolean backwards, gsize i)
{
  if (!backwards)
    return l->prefix(l->seq, base + i) - l->prefix(l->seq, base);
  return l->prefix(l->seq, base + n) - l->prefix(l->seq, base + n - i);
}

/* nearest_boundary from the start (floor 0) over elements [base, base +
 * n), by bisection of the prefix sums: the prefixes are exact integers,
 * so that comparing them as doubles with target decides as the running
 * sum does. */
static gsize
nearest_by_prefix(const SfcLoads *l, gsize base, gsize n, gboolean backwards, double target)
{
  if (target <= 0)
    return 0;
  gsize lo = 0, hi = n; /* at: the last boundary whose prefix is at most target */
  while (lo < hi) {
    gsize mid = lo + (hi - lo + 1) / 2;
    if ((double)part(l, base, n, backwards, mid) <= target)
      lo = mid;
    else
      hi = mid - 1;
  }
  gsize at = lo;
  guint64 at_prefix = part(l, base, n, backwards, at);
  lo = 0; /* first: the earliest boundary with the same prefix (back over zero loads) */
  hi = at;
  while (lo < hi) {
    gsize mid = lo + (hi - lo) / 2;
    if (part(l, base, n, backwards, mid) >= at_prefix)
      hi = mid;
    else
      lo = mid + 1;
  }
  if (at < n) {
    double prefix = (double)at_prefix;
    double next = (double)(part(l, base, n, backwards, at + 1) - at_prefix);
    if (prefix + next - target < target - prefix)
      return at + 1;
  }
  return lo;
}

/* Sends the piece nearest to the end's amount out of elements [base, base
 * + avail); the end stays open only if that piece held all the load there
 * was and fell short, and more can come. All the load, not all the
 * elements: the nearest piece leaves zero-load hnodes (parents before
 * their sub-spaces) behind, and closing the end on them would stop the
 * load passing through the rank. */
static gsize
send_end(const SfcLoads *l, gsize base, gsize avail, gboolean from_front, SfcEnd *end,
         gboolean inflow)
{
  if (!end->open || end->amount <= 0)
    return 0;
  gsize k = nearest_by_prefix(l, base, avail, !from_front, end->amount);
  end->amount -= (double)part(l, base, avail, !from_front, k);
  /* what stays holds no load */
  gboolean emptied = part(l, base, avail, from_front, avail - k) == 0;
  end->open = emptied && end->amount > 0 && inflow;
  return k;
}

void
sfc_round_loads(const SfcLoads *loads, SfcEnd *left, SfcEnd *right, gboolean inflow_left,
                gboolean inflow_right, gsize *n_left, gsize *n_right)
{
  /* doubles hold every prefix exactly */
  g_assert(loads->prefix(loads->seq, loads->n) < G_GUINT64_CONSTANT(1) << 53);
  *n_left = send_end(loads, 0, loads->n, TRUE, left, inflow_right);
  *n_right = send_end(loads, *n_left, loads->n - *n_left, FALSE, right, inflow_left);
}

static guint64
flat_prefix(gconstpointer seq, gsize i)
{
  return ((const guint64 *)seq)[i];
}

void
sfc_round(const guint64 *loads, gsize n, SfcEnd *left, SfcEnd *right, gboolean inflow_left,
          gboolean inflow_right, gsize *n_left, gsize *n_right)
{
  g_autofree guint64 *prefix = g_new(guint64, n + 1);
  prefix[0] = 0;
  for (gsize i = 0; i < n; i++)
    prefix[i + 1] = prefix[i] + loads[i];
  SfcLoads l = {flat_prefix, prefix, n};
  sfc_round_loads(&l, left, right, inflow_left, inflow_right, n_left, n_right);
}

guint
sfc_shift(GPtrArray *seqs, double threshold, guint64 *moved)
{
  guint p = seqs->len;
  if (moved != NULL)
    *moved = 0;
  if (p < 2)
    return 0;
  g_autofree guint64 *loads = g_new0(guint64, p);
  for (guint i = 0; i < p; i++) {
    GArray *s = seqs->pdata[i];
    for (guint j = 0; j < s->len; j++)
      loads[i] += g_array_index(s, guint64, j);
  }
  g_autofree double *flow = g_new(double, p + 1);
  sfc_flows(loads, p, flow);
  /* boundary b (between P_{b-1} and P_b) is open while it still moves
   * load; its sender's end holds the amount */
  g_autofree gboolean *open = g_new0(gboolean, p + 1);
  g_autofree SfcEnd *ends = g_new0(SfcEnd, 2 * p); /* P_i's left end 2i, right end 2i + 1 */
  for (guint b = 1; b < p; b++) {
    open[b] = fabs(flow[b]) > threshold;
    if (flow[b] > 0)
      ends[2 * (b - 1) + 1] = (SfcEnd){flow[b], open[b]};
    else
      ends[2 * b] = (SfcEnd){-flow[b], open[b]};
  }
  g_autofree gsize *to_left = g_new(gsize, p), *to_right = g_new(gsize, p);
  guint rounds = 0;
  for (;;) {
    gboolean any = FALSE;
    for (guint b = 1; b < p; b++)
      any |= open[b];
    if (!any)
      break;
    rounds++;
    for (guint i = 0; i < p; i++) {
      GArray *s = seqs->pdata[i];
      /* inflow: a neighbour that still sends to me */
      gboolean in_left = i > 0 && open[i] && flow[i] > 0;
      gboolean in_right = i + 1 < p && open[i + 1] && flow[i + 1] < 0;
      sfc_round((const guint64 *)s->data, s->len, &ends[2 * i], &ends[2 * i + 1], in_left, in_right,
                &to_left[i], &to_right[i]);
    }
    for (guint b = 1; b < p; b++)
      if (open[b])
        open[b] = flow[b] > 0 ? ends[2 * (b - 1) + 1].open : ends[2 * b].open;
    /* every piece leaves before any arrives: what comes in this round can
     * go on in the next */
    g_autoptr(GPtrArray) left_pieces =
        g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    g_autoptr(GPtrArray) right_pieces =
        g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    for (guint i = 0; i < p; i++) {
      GArray *s = seqs->pdata[i];
      GArray *l = g_array_new(FALSE, FALSE, sizeof(guint64));
      GArray *r = g_array_new(FALSE, FALSE, sizeof(guint64));
      g_array_append_vals(l, s->data, (guint)to_left[i]);
      g_array_append_vals(r, &g_array_index(s, guint64, s->len - to_right[i]), (guint)to_right[i]);
      g_array_remove_range(s, s->len - (guint)to_right[i], (guint)to_right[i]);
      g_array_remove_range(s, 0, (guint)to_left[i]);
      g_ptr_array_add(left_pieces, l);
      g_ptr_array_add(right_pieces, r);
      if (moved != NULL)
        *moved += to_left[i] + to_right[i];
    }
    for (guint i = 0; i < p; i++) {
      GArray *s = seqs->pdata[i];
      if (i + 1 < p) { /* from the right neighbour, to my end */
        GArray *l = left_pieces->pdata[i + 1];
        g_array_append_vals(s, l->data, l->len);
      }
      if (i > 0) { /* from the left neighbour, to my front */
        GArray *r = right_pieces->pdata[i - 1];
        g_array_prepend_vals(s, r->data, r->len);
      }
    }
  }
  return rounds;
}

/* The owner of a key from the replicated tree: the last rank whose
 * segment starts at or before it. */
int
sfc_owner(const guint64 *starts, guint p, guint64 key)
{
  int owner = -1;
  guint lo = 0, hi = p; /* starts are ascending where set; empty ranks hold G_MAXUINT64 */
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    if (starts[mid] <= key) {
      owner = (int)mid;
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return owner;
}

/* a holds b iff a is b's ancestor at a's level: b's id shifted up by
 * dim bits a level. Location codes carry their level in their top bit,
 * at bit dim x level: the levels' difference in bits is that of the top
 * bits, with no division by dim. */
gboolean
sfc_region_holds(guint dim, guint64 a, guint64 b)
{
  g_assert(a > 0 && b > 0);
  guint ta = 63 - (guint)__builtin_clzll(a), tb = 63 - (guint)__builtin_clzll(b);
  return ta <= tb && b >> (tb - ta) == a;
}
