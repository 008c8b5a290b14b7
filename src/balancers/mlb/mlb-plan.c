#include "balancers/mlb/mlb-plan.h"

guint64
mlb_desired_prefix(guint64 total, guint d, guint j, MlbDesired mode)
{
  guint p = 1u << d;
  g_assert(j <= p);
  if (mode == MLB_DESIRED_EVEN) {
    guint64 q = total / p, rem = total % p;
    return q * j + MIN((guint64)j, rem);
  }
  if (j == p)
    return total;
  guint64 start = 0, block = total;
  for (guint level = d; level-- > 0;) {
    guint64 left = block - block / 2;
    if ((j >> level) & 1u) {
      start += left;
      block = block / 2;
    } else {
      block = left;
    }
  }
  return start;
}

MlbKey
mlb_desired_key(MlbKey total, guint d, guint j, MlbDesired mode)
{
  return (MlbKey){mlb_desired_prefix(total.load, d, j, mode),
                  mlb_desired_prefix(total.count, d, j, mode)};
}

MlbKey
mlb_split_key(MlbKey total, guint d, guint r, guint edge, MlbDesired mode)
{
  guint first_right = ((r >> (edge + 1)) << (edge + 1)) + (1u << edge);
  return mlb_desired_key(total, d, first_right, mode);
}

static MlbKey
key_max(MlbKey a, MlbKey b)
{
  return mlb_key_cmp(a, b) >= 0 ? a : b;
}

static MlbKey
key_min(MlbKey a, MlbKey b)
{
  return mlb_key_cmp(a, b) <= 0 ? a : b;
}

void
mlb_spans_take(GArray *held, MlbKey split, gboolean keep_left, GArray *moved)
{
  g_autoptr(GArray) kept = g_array_sized_new(FALSE, FALSE, sizeof(MlbSpan), held->len + 1);
  for (guint i = 0; i < held->len; i++) {
    MlbSpan s = g_array_index(held, MlbSpan, i);
    MlbSpan before = {s.lo, key_min(s.hi, split)};
    MlbSpan after = {key_max(s.lo, split), s.hi};
    gboolean has_before = mlb_key_cmp(before.lo, before.hi) < 0;
    gboolean has_after = mlb_key_cmp(after.lo, after.hi) < 0;
    if (has_before)
      g_array_append_val(keep_left ? kept : moved, before);
    if (has_after)
      g_array_append_val(keep_left ? moved : kept, after);
  }
  g_array_set_size(held, 0);
  g_array_append_vals(held, kept->data, kept->len);
}

static int
span_cmp(gconstpointer a, gconstpointer b)
{
  return mlb_key_cmp(((const MlbSpan *)a)->lo, ((const MlbSpan *)b)->lo);
}

void
mlb_spans_add(GArray *held, const MlbSpan *spans, guint n)
{
  if (n == 0)
    return;
  g_array_append_vals(held, spans, n);
  g_array_sort(held, span_cmp);
  guint out = 0;
  for (guint i = 0; i < held->len; i++) {
    MlbSpan s = g_array_index(held, MlbSpan, i);
    if (out > 0) {
      MlbSpan *last = &g_array_index(held, MlbSpan, out - 1);
      g_assert(mlb_key_cmp(last->hi, s.lo) <= 0); /* holdings never overlap */
      if (mlb_key_cmp(last->hi, s.lo) == 0) {
        last->hi = s.hi;
        continue;
      }
    }
    g_array_index(held, MlbSpan, out++) = s;
  }
  g_array_set_size(held, out);
}

MlbKey
mlb_spans_measure(const MlbSpan *spans, guint n)
{
  MlbKey sum = {0, 0};
  for (guint i = 0; i < n; i++)
    sum = mlb_key_add(sum, mlb_key_sub(spans[i].hi, spans[i].lo));
  return sum;
}

guint
mlb_items_cut(const MlbItem *items, guint n, MlbKey split)
{
  guint lo = 0, hi = n;
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    if (mlb_item_before(&items[mid], split))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

guint
mlb_owner(MlbKey total, guint d, MlbDesired mode, const MlbItem *item)
{
  guint lo = 0, hi = 1u << d; /* owner in [lo, hi) */
  while (hi - lo > 1) {
    guint mid = lo + (hi - lo) / 2;
    if (mlb_item_before(item, mlb_desired_key(total, d, mid, mode)))
      hi = mid;
    else
      lo = mid;
  }
  return lo;
}

guint
mlb_phase3_rounds(guint d, gboolean levels)
{
  return levels ? d * (d + 1) / 2 : d;
}
