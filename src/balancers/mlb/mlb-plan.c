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
mlb_phase3_rounds(guint d, MlbPhase3 mode)
{
  switch (mode) {
  case MLB_PHASE3_LEVELS:
    return d * (d + 1) / 2;
  case MLB_PHASE3_LOCAL:
    return d > 0 ? d * (d - 1) / 2 : 0;
  case MLB_PHASE3_FINEST:
    return d;
  }
  g_assert_not_reached();
}

void
mlb_level_init(MlbLevel *level, guint d, guint k, guint r)
{
  g_assert(k <= d && d < MLB_MAX_D);
  *level = (MlbLevel){.d = d, .k = k, .r = r};
  for (guint e = k; e < d; e++) {
    level->sent[e] = g_array_new(FALSE, FALSE, sizeof(MlbPiece));
    level->received[e] = g_array_new(FALSE, FALSE, sizeof(MlbPiece));
  }
  level->held = g_array_new(FALSE, FALSE, sizeof(MlbPiece));
}

void
mlb_level_clear(MlbLevel *level)
{
  for (guint e = 0; e < MLB_MAX_D; e++) {
    g_clear_pointer(&level->sent[e], g_array_unref);
    g_clear_pointer(&level->received[e], g_array_unref);
  }
  g_clear_pointer(&level->held, g_array_unref);
}

static gboolean
span_is_empty(MlbSpan s)
{
  return mlb_key_cmp(s.lo, s.hi) >= 0;
}

/* As mlb_spans_take, for pieces. */
static void
pieces_take(GArray *held, MlbKey cut, gboolean keep_low, GArray *moved)
{
  g_autoptr(GArray) kept = g_array_sized_new(FALSE, FALSE, sizeof(MlbPiece), held->len + 1);
  for (guint i = 0; i < held->len; i++) {
    MlbPiece low = g_array_index(held, MlbPiece, i), high = low;
    low.span.hi = key_min(low.span.hi, cut);
    high.span.lo = key_max(high.span.lo, cut);
    if (!span_is_empty(low.span))
      g_array_append_val(keep_low ? kept : moved, low);
    if (!span_is_empty(high.span))
      g_array_append_val(keep_low ? moved : kept, high);
  }
  g_array_set_size(held, 0);
  g_array_append_vals(held, kept->data, kept->len);
}

static int
piece_cmp(gconstpointer a, gconstpointer b)
{
  return mlb_key_cmp(((const MlbPiece *)a)->span.lo, ((const MlbPiece *)b)->span.lo);
}

/* Adds pieces to `held` and keeps it sorted, one piece per run of keys from
 * one origin, so that sender and receiver cut the same keys the same way. */
static void
pieces_add(GArray *held, const MlbPiece *pieces, guint n)
{
  g_array_append_vals(held, pieces, n);
  g_array_sort(held, piece_cmp);
  guint out = 0;
  for (guint i = 0; i < held->len; i++) {
    MlbPiece p = g_array_index(held, MlbPiece, i);
    if (out > 0) {
      MlbPiece *last = &g_array_index(held, MlbPiece, out - 1);
      g_assert(mlb_key_cmp(last->span.hi, p.span.lo) <= 0); /* holdings never overlap */
      if (mlb_key_cmp(last->span.hi, p.span.lo) == 0 && last->origin == p.origin) {
        last->span.hi = p.span.hi;
        continue;
      }
    }
    g_array_index(held, MlbPiece, out++) = p;
  }
  g_array_set_size(held, out);
}

/* Whether two sorted piece lists cover the same keys, whatever their
 * origins. */
static gboolean
pieces_same_keys(const GArray *a, const GArray *b)
{
  g_autoptr(GArray) sa = g_array_new(FALSE, FALSE, sizeof(MlbSpan));
  g_autoptr(GArray) sb = g_array_new(FALSE, FALSE, sizeof(MlbSpan));
  for (guint i = 0; i < a->len; i++)
    mlb_spans_add(sa, &g_array_index(a, MlbPiece, i).span, 1);
  for (guint i = 0; i < b->len; i++)
    mlb_spans_add(sb, &g_array_index(b, MlbPiece, i).span, 1);
  if (sa->len != sb->len)
    return FALSE;
  for (guint i = 0; i < sa->len; i++) {
    MlbSpan x = g_array_index(sa, MlbSpan, i), y = g_array_index(sb, MlbSpan, i);
    if (mlb_key_cmp(x.lo, y.lo) != 0 || mlb_key_cmp(x.hi, y.hi) != 0)
      return FALSE;
  }
  return TRUE;
}

void
mlb_level_begin(MlbLevel *half, const MlbLevel *node, guint r, MlbKey lo, MlbKey hi)
{
  g_assert(node->k >= 1);
  guint hk = node->k - 1;
  mlb_level_init(half, node->d, hk, r);
  MlbPiece start = {{lo, hi}, (r >> hk) << hk, {0, 0}};
  if (!span_is_empty(start.span))
    g_array_append_val(half->held, start);
}

void
mlb_level_cross(MlbLevel *half, const MlbLevel *node, guint e, MlbKey total, MlbDesired mode)
{
  guint d = half->d, hk = half->k, r = half->r;
  g_assert(e > hk && e < d && node->k == hk + 1);
  pieces_take(half->held, mlb_split_key(total, d, r, e, mode), mlb_in_left_half(r, e),
              half->sent[e]);
  GArray *got = half->received[e];
  for (guint i = 0; i < node->received[e]->len; i++) {
    const MlbPiece *p = &g_array_index(node->received[e], MlbPiece, i);
    MlbPiece parts[2] = {
        {{p->span.lo, key_min(p->span.hi, p->split)}, p->origin, {0, 0}},
        {{key_max(p->span.lo, p->split), p->span.hi}, p->origin + (1u << hk), {0, 0}}};
    for (guint j = 0; j < 2; j++) {
      guint o = parts[j].origin;
      if (!span_is_empty(parts[j].span) &&
          (((o >> hk) ^ (o >> e) ^ (r >> e) ^ (r >> hk)) & 1u) == 0)
        g_array_append_val(got, parts[j]);
    }
  }
  pieces_add(half->held, (const MlbPiece *)got->data, got->len);
}

void
mlb_level_sibling(MlbLevel *half, MlbKey total, MlbDesired mode)
{
  guint hk = half->k;
  pieces_take(half->held, mlb_split_key(total, half->d, half->r, hk, mode),
              mlb_in_left_half(half->r, hk), half->sent[hk]);
}

void
mlb_level_take_sibling(MlbLevel *half, const MlbPiece *pieces, guint n, MlbKey total,
                       MlbDesired mode)
{
  guint d = half->d, hk = half->k, r = half->r;
  g_array_append_vals(half->received[hk], pieces, n);
  pieces_add(half->held, pieces, n);
  /* After its last edge a block holds exactly its desired keys. */
  guint first = (r >> hk) << hk;
  MlbKey want_lo = mlb_desired_key(total, d, first, mode);
  MlbKey want_hi = mlb_desired_key(total, d, first + (1u << hk), mode);
  g_autoptr(GArray) spans = g_array_new(FALSE, FALSE, sizeof(MlbSpan));
  for (guint i = 0; i < half->held->len; i++)
    mlb_spans_add(spans, &g_array_index(half->held, MlbPiece, i).span, 1);
  if (mlb_key_cmp(want_lo, want_hi) == 0) {
    g_assert_cmpuint(spans->len, ==, 0);
  } else {
    g_assert_cmpuint(spans->len, ==, 1);
    g_assert(mlb_key_cmp(g_array_index(spans, MlbSpan, 0).lo, want_lo) == 0);
    g_assert(mlb_key_cmp(g_array_index(spans, MlbSpan, 0).hi, want_hi) == 0);
  }
}

void
mlb_level_refine(const MlbLevel *node, MlbKey total, MlbDesired mode, const MlbKey halves[3],
                 MlbLevel *half)
{
  guint hk = node->k - 1, r = node->r, mine = (r >> hk) & 1u;
  MlbLevel other;
  mlb_level_begin(half, node, r, halves[mine], halves[mine + 1]);
  mlb_level_begin(&other, node, r ^ (1u << hk), halves[!mine], halves[!mine + 1]);
  g_autoptr(GArray) both = g_array_new(FALSE, FALSE, sizeof(MlbPiece));
  for (guint e = node->d; e-- > node->k;) {
    mlb_level_cross(half, node, e, total, mode);
    mlb_level_cross(&other, node, e, total, mode);
    /* The coarser level's schedule is the sum of its halves'. */
    g_array_set_size(both, 0);
    g_array_append_vals(both, half->sent[e]->data, half->sent[e]->len);
    g_array_append_vals(both, other.sent[e]->data, other.sent[e]->len);
    g_array_sort(both, piece_cmp);
    g_assert(pieces_same_keys(both, node->sent[e]));
  }
  mlb_level_sibling(half, total, mode);
  mlb_level_sibling(&other, total, mode);
  mlb_level_take_sibling(half, (const MlbPiece *)other.sent[hk]->data, other.sent[hk]->len, total,
                         mode);
  mlb_level_clear(&other);
}

MlbKey
mlb_level_split_of(const MlbLevel *level, guint e, const MlbPiece *piece, MlbKey own_split)
{
  if (piece->origin == (level->r >> level->k) << level->k)
    return own_split;
  for (guint c = e + 1; c < level->d; c++)
    for (guint i = 0; i < level->received[c]->len; i++) {
      const MlbPiece *p = &g_array_index(level->received[c], MlbPiece, i);
      if (p->origin == piece->origin)
        return p->split;
    }
  g_assert_not_reached();
}

static MlbLoan
loan_add(MlbLoan a, MlbLoan b)
{
  return (MlbLoan){a.load + b.load, a.count + b.count};
}

static MlbLoan
loan_sub(MlbLoan a, MlbLoan b)
{
  return (MlbLoan){a.load - b.load, a.count - b.count};
}

/* A key measure as a signed difference: its count may have wrapped. */
static MlbLoan
loan_of(MlbKey k)
{
  return (MlbLoan){(gint64)k.load, (gint64)k.count};
}

static MlbLoan
loan_abs(MlbLoan a)
{
  gboolean negative = a.load < 0 || (a.load == 0 && a.count < 0);
  return negative ? (MlbLoan){-a.load, -a.count} : a;
}

int
mlb_loan_cmp_abs(MlbLoan a, MlbLoan b)
{
  a = loan_abs(a);
  b = loan_abs(b);
  if (a.load != b.load)
    return a.load < b.load ? -1 : 1;
  if (a.count != b.count)
    return a.count < b.count ? -1 : 1;
  return 0;
}

static int
loan_cmp(MlbLoan a, MlbLoan b)
{
  if (a.load != b.load)
    return a.load < b.load ? -1 : 1;
  if (a.count != b.count)
    return a.count < b.count ? -1 : 1;
  return 0;
}

guint
mlb_loan_pick(const MlbItem *items, guint n, gboolean toward_high, MlbLoan target)
{
  /* Every element weighs (load, 1) > 0, so the pieces grow strictly with
   * their length and the closest is one of the two around the target. */
  MlbLoan piece = {0, 0};
  for (guint taken = 0; taken < n; taken++) {
    if (loan_cmp(piece, target) >= 0)
      return taken;
    const MlbItem *next = &items[toward_high ? n - 1 - taken : taken];
    MlbLoan longer = {piece.load + (gint64)next->load, piece.count + 1};
    if (loan_cmp(longer, target) >= 0)
      return mlb_loan_cmp_abs(loan_sub(longer, target), loan_sub(target, piece)) < 0 ? taken + 1
                                                                                     : taken;
    piece = longer;
  }
  return n;
}

guint
mlb_loan_send(MlbLoans *loans, gboolean toward_high, MlbKey amount, const MlbItem *items, guint n,
              MlbLoan *handed, MlbLoan *aim)
{
  MlbLoan *loan = toward_high ? &loans->high : &loans->low;
  MlbLoan target = loan_add(loan_of(amount), *loan);
  guint taken = mlb_loan_pick(items, n, toward_high, target);
  MlbLoan piece = {0, taken};
  for (guint i = 0; i < taken; i++)
    piece.load += (gint64)items[toward_high ? n - 1 - i : i].load;
  *handed = *loan;
  *loan = loan_sub(target, piece);
  if (aim != NULL)
    *aim = target;
  return taken;
}

void
mlb_loan_receive(MlbLoans *loans, gboolean from_high, MlbKey expected, MlbKey got, MlbLoan handed)
{
  MlbLoan at_cut = loan_sub(loan_sub(loan_of(got), loan_of(expected)), handed);
  MlbLoan *near = from_high ? &loans->high : &loans->low;
  MlbLoan *far = from_high ? &loans->low : &loans->high;
  *near = loan_add(*near, at_cut);
  *far = loan_add(*far, handed);
}

MlbBlock
mlb_block_of(guint first, guint size)
{
  MlbBlock b = {first, 0, 0};
  while ((1u << b.k) < size)
    b.k++;
  g_return_val_if_fail((1u << b.k) == size && (first & (size - 1)) == 0, b);
  if (b.k > 0)
    b.flip = ((first >> b.k) & 1u) << (b.k - 1);
  return b;
}

guint
mlb_block_node(const MlbBlock *b, guint rank)
{
  guint i = rank - b->first;
  return (i ^ (i >> 1)) ^ b->flip;
}

guint
mlb_block_rank(const MlbBlock *b, guint node)
{
  guint g = node ^ b->flip, i = 0;
  for (; g != 0; g >>= 1)
    i ^= g;
  return b->first + i;
}
