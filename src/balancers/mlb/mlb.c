/* Multilevel Load Balancing, one dimension (D. J. Quinlan and M. Berndt,
 * "MLB: Multilevel Load Balancing for Structured Grid Applications", 8th
 * SIAM Conference on Parallel Processing for Scientific Computing, 1997,
 * section 3): four phases on a hypercube of p = 2^d ranks numbered by Gray
 * code. Fields run through their row-major order, as the paper used 1D MLB
 * for 2D and 3D problems.
 *
 *   1 accumulate  d exchanges along edges 0 .. d-1: every rank learns the
 *                 load of each of its sub-hypercubes and of their siblings
 *                 (hence the total and its own prefix);
 *   2 desired     local: desired loads by recursive halving (or even);
 *   3 amounts     the per-edge amounts for a unit load function, level by
 *                 level from the root (section 3.3): level l shares level
 *                 l-1's schedule between the halves of its blocks, from
 *                 the splits of the blocks whose keys crossed each edge,
 *                 and learns its new edge from the sibling: l exchanges,
 *                 d(d+1)/2 in all; `phase3 = local` computes the new edge
 *                 (d(d-1)/2), `phase3 = finest` the last level alone (d);
 *   4 migrate     the schedule with the real elements, coarsest edge first,
 *                 one exchange per edge (section 3.4): a rank sends the
 *                 piece closest to the amount plus its loan at the end that
 *                 faces the partner (`phase4 = loan`), or the elements
 *                 whose midpoint lies beyond the cut (`phase4 = midpoint`).
 *
 * Amounts are spans of (load, count) keys. Both phase 4 rules give the same
 * partition (README); the loan rule decides from amounts and loans alone.
 */
#include <string.h>
#include <xbt/log.h>

#include "balancers/mlb/mlb.h"
#include "balancers/registry.h"
#include "geometry/curve.h"

XBT_LOG_EXTERNAL_CATEGORY(lb);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(lb_mlb, lb, "Multilevel Load Balancing");

enum { PHASE_ACCUMULATE, PHASE_DESIRED, PHASE_AMOUNTS, PHASE_MIGRATE };

static const char *const mlb_phases[] = {"accumulate", "desired", "amounts", "migrate", NULL};

/* Shared with mlb-nd; 1D MLB adds the order it linearises a field in. */
#define MLB_PARAMS                                                                                 \
  {"desired",                                                                                      \
   LB_PARAM_CHOICE,                                                                                \
   "halving",                                                                                      \
   0,                                                                                              \
   0,                                                                                              \
   "halving|even",                                                                                 \
   "desired loads: recursive halving of the total, remainder to the first child (the paper), "     \
   "or an even split, the first T mod p ranks taking one more"},                                   \
      {"phase3",                                                                                   \
       LB_PARAM_CHOICE,                                                                            \
       "levels",                                                                                   \
       0,                                                                                          \
       0,                                                                                          \
       "levels|local|finest",                                                                      \
       "phase 3: each tree level from the coarser one, communicating along each of level l's l "   \
       "edges, d(d+1)/2 rounds (section 3.3); local: the new edge of each level computed, not "    \
       "communicated, d(d-1)/2 rounds (section 4); finest: only the finest level, from scratch, "  \
       "d "                                                                                        \
       "rounds"},                                                                                  \
      {"phase4",                                                                                   \
       LB_PARAM_CHOICE,                                                                            \
       "loan",                                                                                     \
       0,                                                                                          \
       0,                                                                                          \
       "loan|midpoint|literal",                                                                    \
       "phase 4: loan (lbsim's repair of section 3.4): the piece closest to the amount plus the "  \
       "loan kept at the end facing the partner, one loan per end, keeps array order; midpoint: "  \
       "the elements whose midpoint lies beyond the cut (the same partition); literal: the "       \
       "paper's single loan variable exactly as printed, which can break array order (mlb "        \
       "counts it in order-breaks)"},                                                              \
      {"sum-flops",                                                                                \
       LB_PARAM_DOUBLE,                                                                            \
       "1",                                                                                        \
       0,                                                                                          \
       1e9,                                                                                        \
       NULL,                                                                                       \
       "flops to add one element's load in phase 1"},

const LbParamSpec mlb_params[] = {MLB_PARAMS{NULL}};

static const LbParamSpec mlb_1d_params[] = {
    MLB_PARAMS{"order", LB_PARAM_CHOICE, "row-major", 0, 0, "row-major|hilbert|morton",
               "a field's cells as a 1D array: row-major, or along a Hilbert or Morton curve over "
               "the smallest square (cube) of 2^K cells per axis that holds the field"},
    {NULL},
};

/* Narration prints the (load, count) keys MLB works with as "7 (2
 * elements)"; a difference of keys may count fewer elements than none
 * (their count wraps), so counts print signed. */
#define KEY_FMT "%" G_GUINT64_FORMAT " (%" G_GINT64_FORMAT " element%s)"
#define KEY_ARGS(k)                                                                                \
  (k).load, (gint64)(k).count, (k).count == 1 || (k).count == (guint64)-1 ? "" : "s"
#define LOAN_FMT "%" G_GINT64_FORMAT " (%" G_GINT64_FORMAT " element%s)"
#define LOAN_ARGS(k) (k).load, (k).count, (k).count == 1 || (k).count == -1 ? "" : "s"

#define TAG(phase, round) (m->g->tag_base + (int)((phase) << 16 | (round)))

typedef struct {
  const MlbGroup *g;
  guint d, r; /* the group's hypercube dimension and my index in it */
  MlbDesired mode;
  MlbKey total, prefix;
  MlbKey block_sum[33]; /* load of my block of 2^k ranks */
  MlbKey left_add[32];  /* sibling block merged at edge e, if it lies left */
  MlbKey send[32], recv[32];
} MlbRank;

/* The rank at index i of the group. */
static int
member(const MlbRank *m, guint i)
{
  return m->g->members != NULL ? m->g->members[i] : (int)i;
}

guint
mlb_log2(guint p)
{
  guint d = 0;
  while ((1u << d) < p)
    d++;
  return d;
}

/* Read literally, section 3.4's single loan can break array order. */
static gboolean
mlb_breaks_order(const LbParams *params)
{
  return strcmp(lb_params_get_string(params, "phase4"), "literal") == 0;
}

static gboolean
mlb_check(guint ranks, const LbWork *work, const LbParams *params, GError **error)
{
  if (work->dim < 2 && lb_params_is_set(params, "order") &&
      strcmp(lb_params_get_string(params, "order"), "row-major") != 0) {
    g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID,
                "[mlb] order: %s orders a field's cells; the 1D array has one order",
                lb_params_get_string(params, "order"));
    return FALSE;
  }
  if (ranks == 0 || (ranks & (ranks - 1)) != 0) {
    g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID,
                "[scenario] ranks: mlb runs on a hypercube of p = 2^d ranks; %u is not a power "
                "of two",
                ranks);
    return FALSE;
  }
  return TRUE;
}

static MlbKey
block_prefix(const MlbRank *m, guint k)
{
  MlbKey prefix = {0, 0};
  for (guint e = k; e < m->d; e++)
    prefix = mlb_key_add(prefix, m->left_add[e]);
  return prefix;
}

static void
accumulate(LbRank *self, MlbRank *m, MlbKey mine)
{
  guint r = m->r;
  MlbKey block = mine;
  m->block_sum[0] = mine;
  for (guint e = 0; e < m->d; e++) {
    guint partner = mlb_partner(r, e);
    lb_phase_round(self, e);
    lb_narrate_label(self, "block of %u: load %" G_GUINT64_FORMAT, 1u << e, block.load);
    lb_send(self, member(m, partner), TAG(PHASE_ACCUMULATE, e), &block, sizeof block, sizeof block);
    g_autoptr(LbMsg) msg = lb_recv(self, member(m, partner), TAG(PHASE_ACCUMULATE, e));
    MlbKey other;
    memcpy(&other, msg->data, sizeof other);
    m->left_add[e] = partner < r ? other : (MlbKey){0, 0};
    if (lb_rank_narrating(self)) {
      MlbKey both = mlb_key_add(block, other);
      lb_narrate(self,
                 "edge %u: my block of %u has load " KEY_FMT ", rank %u's has " KEY_FMT
                 " -> block of %u: " KEY_FMT,
                 e, 1u << e, KEY_ARGS(block), (guint)member(m, partner), KEY_ARGS(other), 2u << e,
                 KEY_ARGS(both));
    }
    block = mlb_key_add(block, other);
    m->block_sum[e + 1] = block;
    lb_wait_sends(self);
  }
  m->total = block;
  m->prefix = block_prefix(m, 0);
  XBT_DEBUG("total load %" G_GUINT64_FORMAT ", my prefix %" G_GUINT64_FORMAT, m->total.load,
            m->prefix.load);
}

/* Where rank r's block of 2^k ranks (k >= 1) divides into its halves. */
static MlbKey
block_split(const MlbRank *m, guint r, guint k)
{
  MlbKey lo = block_prefix(m, k - 1);
  return mlb_in_left_half(r, k - 1) ? mlb_key_add(lo, m->block_sum[k - 1]) : lo;
}

static void
narrate_amount(LbRank *self, const MlbRank *m, guint e)
{
  guint r = m->r;
  if (!mlb_key_is_zero(m->send[e]) || !mlb_key_is_zero(m->recv[e]))
    lb_narrate(self,
               "edge %u: send " KEY_FMT " to / receive " KEY_FMT
               " from rank %u (cut at %" G_GUINT64_FORMAT ")",
               e, KEY_ARGS(m->send[e]), KEY_ARGS(m->recv[e]), (guint)member(m, mlb_partner(r, e)),
               mlb_split_key(m->total, m->d, r, e, m->mode).load);
}

static MlbKey
pieces_measure(const GArray *pieces)
{
  MlbKey sum = {0, 0};
  for (guint i = 0; i < pieces->len; i++)
    sum = mlb_key_add(sum, mlb_spans_measure(&g_array_index(pieces, MlbPiece, i).span, 1));
  return sum;
}

/* One line per block of the level (told by its first rank). */
static void
narrate_level(LbRank *self, const MlbRank *m, const MlbLevel *level, guint splits)
{
  guint r = level->r, size = 1u << level->k;
  if ((r & (size - 1)) != 0)
    return;
  g_autoptr(GString) text = g_string_new(NULL);
  for (guint e = level->d; e-- > level->k;) {
    MlbKey out = pieces_measure(level->sent[e]), in = pieces_measure(level->received[e]);
    if (!mlb_key_is_zero(out) || !mlb_key_is_zero(in))
      g_string_append_printf(text, "; edge %u: send " KEY_FMT " / receive " KEY_FMT, e,
                             KEY_ARGS(out), KEY_ARGS(in));
  }
  /* a group's block need not be consecutive ranks (mlb-nd's pairs) */
  gboolean consecutive = TRUE;
  for (guint i = 1; i < size; i++)
    consecutive &= member(m, r + i) == member(m, r) + (int)i;
  g_autoptr(GString) ranks = g_string_new(NULL);
  if (consecutive)
    g_string_printf(ranks, "ranks %d .. %d", member(m, r), member(m, r + size - 1));
  else
    for (guint i = 0; i < size; i++)
      g_string_append_printf(ranks, "%s%d", i == 0 ? "ranks " : ", ", member(m, r + i));
  lb_narrate(self, "level %u, block of %u (%s)%s%s; %u pieces go with their splits",
             level->d - level->k, size, ranks->str, text->len > 0 ? "" : ": nothing moves",
             text->str, splits);
}

static guint
pieces_sent(const MlbLevel *level)
{
  guint n = 0;
  for (guint e = level->k; e < level->d; e++)
    n += level->sent[e]->len;
  return n;
}

/* Along each edge of `node`'s level, coarsest first, the splits of the
 * pieces the block sent along it: the receiving block needs them to share
 * what it received between its halves. */
static void
exchange_splits(LbRank *self, const MlbRank *m, MlbLevel *node, guint *round)
{
  guint r = node->r;
  for (guint e = node->d; e-- > node->k; (*round)++) {
    guint partner = mlb_partner(r, e);
    GArray *out = node->sent[e], *in = node->received[e];
    if (out->len > 0) {
      g_autofree MlbKey *splits = g_new(MlbKey, out->len);
      MlbKey own = block_split(m, r, node->k);
      for (guint i = 0; i < out->len; i++)
        splits[i] = mlb_level_split_of(node, e, &g_array_index(out, MlbPiece, i), own);
      lb_phase_round(self, *round);
      lb_narrate_label(self, "%u split%s (edge %u)", out->len, out->len == 1 ? "" : "s", e);
      lb_send(self, member(m, partner), TAG(PHASE_AMOUNTS, *round), splits,
              out->len * sizeof(MlbKey), 8.0 + out->len * (double)sizeof(MlbKey));
    }
    if (in->len > 0) {
      lb_phase_round(self, *round);
      g_autoptr(LbMsg) msg = lb_recv(self, member(m, partner), TAG(PHASE_AMOUNTS, *round));
      g_assert_cmpuint(msg->len, ==, in->len * sizeof(MlbKey));
      const MlbKey *splits = (const MlbKey *)msg->data;
      for (guint i = 0; i < in->len; i++)
        g_array_index(in, MlbPiece, i).split = splits[i];
    }
    lb_wait_sends(self);
  }
}

/* The new edge of `half`'s level: what the sibling sends, from the
 * sibling (a piece: its span and origin, 40 bytes). */
static void
exchange_sibling(LbRank *self, const MlbRank *m, MlbLevel *half, guint round)
{
  guint partner = mlb_partner(half->r, half->k);
  GArray *out = half->sent[half->k];
  lb_phase_round(self, round);
  lb_narrate_label(self, "%u piece%s for the sibling (edge %u)", out->len, out->len == 1 ? "" : "s",
                   half->k);
  lb_send(self, member(m, partner), TAG(PHASE_AMOUNTS, round), out->data,
          out->len * sizeof(MlbPiece), 8.0 + out->len * 40.0);
  g_autoptr(LbMsg) msg = lb_recv(self, member(m, partner), TAG(PHASE_AMOUNTS, round));
  mlb_level_take_sibling(half, (const MlbPiece *)msg->data, (guint)(msg->len / sizeof(MlbPiece)),
                         m->total, m->mode);
  lb_wait_sends(self);
}

/* Section 3.3: from the root down, level l's schedule from level l-1's and
 * from what its exchanges brought: along the edges it shares with level
 * l-1, the splits of the blocks whose keys crossed them; along its new
 * edge, what the sibling sends (phase3 = levels), unless the block follows
 * its sibling's keys too (phase3 = local). The finest level is every rank's
 * own schedule. */
static void
amounts_levels(LbRank *self, MlbRank *m, MlbPhase3 mode)
{
  guint r = m->r, round = 0;
  MlbLevel node;
  mlb_level_init(&node, m->d, m->d, r);
  for (guint k = m->d; k >= 1; k--) {
    exchange_splits(self, m, &node, &round);
    MlbKey lo = block_prefix(m, k), split = block_split(m, r, k);
    MlbLevel half;
    if (mode == MLB_PHASE3_LOCAL) {
      MlbKey halves[3] = {lo, split, mlb_key_add(lo, m->block_sum[k])};
      mlb_level_refine(&node, m->total, m->mode, halves, &half);
    } else {
      MlbKey mine = block_prefix(m, k - 1);
      mlb_level_begin(&half, &node, r, mine, mlb_key_add(mine, m->block_sum[k - 1]));
      for (guint e = m->d; e-- > k;)
        mlb_level_cross(&half, &node, e, m->total, m->mode);
      mlb_level_sibling(&half, m->total, m->mode);
      exchange_sibling(self, m, &half, round++);
    }
    mlb_level_clear(&node);
    node = half;
    if (node.k > 0 && lb_rank_narrating(self))
      narrate_level(self, m, &node, pieces_sent(&node));
  }
  g_assert_cmpuint(round, ==, mlb_phase3_rounds(m->d, mode));
  for (guint e = m->d; e-- > 0;) {
    m->send[e] = pieces_measure(node.sent[e]);
    m->recv[e] = pieces_measure(node.received[e]);
    narrate_amount(self, m, e);
  }
  mlb_level_clear(&node);
}

/* `phase3 = finest`: the finest level from scratch, one exchange of spans
 * per edge. */
static void
amounts_finest(LbRank *self, MlbRank *m)
{
  guint r = m->r;
  g_autoptr(GArray) held = g_array_new(FALSE, FALSE, sizeof(MlbSpan));
  g_autoptr(GArray) moved = g_array_new(FALSE, FALSE, sizeof(MlbSpan));
  MlbSpan whole = {m->prefix, mlb_key_add(m->prefix, m->block_sum[0])};
  if (mlb_key_cmp(whole.lo, whole.hi) < 0)
    g_array_append_val(held, whole);
  for (guint e = m->d; e-- > 0;) {
    guint partner = mlb_partner(r, e), round = m->d - 1 - e;
    MlbKey split = mlb_split_key(m->total, m->d, r, e, m->mode);
    g_array_set_size(moved, 0);
    mlb_spans_take(held, split, mlb_in_left_half(r, e), moved);
    lb_phase_round(self, round);
    lb_narrate_label(self, "amount %" G_GUINT64_FORMAT " (edge %u)",
                     mlb_spans_measure((const MlbSpan *)moved->data, moved->len).load, e);
    lb_send(self, member(m, partner), TAG(PHASE_AMOUNTS, round), moved->data,
            moved->len * sizeof(MlbSpan), 8.0 + moved->len * (double)sizeof(MlbSpan));
    g_autoptr(LbMsg) msg = lb_recv(self, member(m, partner), TAG(PHASE_AMOUNTS, round));
    guint n = (guint)(msg->len / sizeof(MlbSpan));
    const MlbSpan *got = (const MlbSpan *)msg->data;
    mlb_spans_add(held, got, n);
    m->send[e] = mlb_spans_measure((const MlbSpan *)moved->data, moved->len);
    m->recv[e] = mlb_spans_measure(got, n);
    narrate_amount(self, m, e);
    lb_wait_sends(self);
  }
  /* After the finest level a rank holds exactly its desired share. */
  MlbKey want_lo = mlb_desired_key(m->total, m->d, r, m->mode);
  MlbKey want_hi = mlb_desired_key(m->total, m->d, r + 1, m->mode);
  g_assert(mlb_key_cmp(want_lo, want_hi) == 0 ? held->len == 0 : held->len == 1);
  if (held->len == 1) {
    g_assert(mlb_key_cmp(g_array_index(held, MlbSpan, 0).lo, want_lo) == 0);
    g_assert(mlb_key_cmp(g_array_index(held, MlbSpan, 0).hi, want_hi) == 0);
  }
}

static GArray *
merge_items(GArray *items, const MlbItem *in, guint n)
{
  GArray *out = g_array_sized_new(FALSE, FALSE, sizeof(MlbItem), items->len + n);
  g_array_set_size(out, items->len + n);
  MlbItem *o = (MlbItem *)out->data;
  const MlbItem *a = (const MlbItem *)items->data;
  guint i = 0, j = 0, k = 0;
  while (i < items->len || j < n) {
    if (j == n || (i < items->len && a[i].id < in[j].id))
      o[k++] = a[i++];
    else
      o[k++] = in[j++];
  }
  g_array_unref(items);
  return out;
}

/* `order = hilbert|morton`: a field's cells numbered along the curve over
 * the smallest 2^K grid that holds the field, skipping cells outside it.
 * MLB runs on those positions; units travel under their cell ids. One
 * table per curve and field shape, shared by every rank. */
typedef struct {
  LbCurveKind kind;
  guint dim;
  guint64 size[3];
  guint64 *pos;  /* by cell id */
  guint64 *cell; /* by position */
} CurveOrder;

static int
by_curve_key(gconstpointer a, gconstpointer b)
{
  const guint64 *x = a, *y = b;
  return (x[0] > y[0]) - (x[0] < y[0]);
}

static const CurveOrder *curve_order_build(const LbWork *work, const LbParams *params);

/* Asked for every unit of every rank at each step (the order key): the
 * last answer is kept for its work and params. */
static const CurveOrder *
curve_order(const LbWork *work, const LbParams *params)
{
  static const LbWork *last_work = NULL;
  static const LbParams *last_params = NULL;
  static const CurveOrder *last = NULL;
  if (work != last_work || params != last_params ||
      (last != NULL && memcmp(last->size, work->size, sizeof last->size) != 0)) {
    last = curve_order_build(work, params);
    last_work = work;
    last_params = params;
  }
  return last;
}

static const CurveOrder *
curve_order_build(const LbWork *work, const LbParams *params)
{
  if (work->dim < 2)
    return NULL;
  LbCurveKind kind;
  if (!lb_curve_parse(lb_params_get_string(params, "order"), &kind))
    return NULL;                   /* row-major */
  static GPtrArray *tables = NULL; /* CurveOrder, for the process's life */
  if (tables == NULL)
    tables = g_ptr_array_new();
  for (guint i = 0; i < tables->len; i++) {
    const CurveOrder *t = tables->pdata[i];
    if (t->kind == kind && t->dim == work->dim && memcmp(t->size, work->size, sizeof t->size) == 0)
      return t;
  }
  CurveOrder *t = g_new0(CurveOrder, 1);
  t->kind = kind;
  t->dim = work->dim;
  memcpy(t->size, work->size, sizeof t->size);
  guint k = 0;
  for (guint a = 0; a < work->dim; a++)
    while ((G_GUINT64_CONSTANT(1) << k) < work->size[a])
      k++;
  guint64 n = work->cells;
  g_autofree guint64 *pairs = g_new(guint64, 2 * n); /* curve key, cell id */
  for (guint64 id = 0; id < n; id++) {
    guint32 c[3] = {(guint32)(id % work->size[0]), (guint32)(id / work->size[0] % work->size[1]),
                    (guint32)(id / (work->size[0] * work->size[1]))};
    pairs[2 * id] = lb_curve_index(kind, work->dim, k, c);
    pairs[2 * id + 1] = id;
  }
  qsort(pairs, n, 2 * sizeof *pairs, by_curve_key);
  t->pos = g_new(guint64, n);
  t->cell = g_new(guint64, n);
  for (guint64 i = 0; i < n; i++) {
    t->cell[i] = pairs[2 * i + 1];
    t->pos[pairs[2 * i + 1]] = i;
  }
  g_ptr_array_add(tables, t);
  return t;
}

static guint64
mlb_order_key(const LbWork *work, const LbParams *params, guint64 id)
{
  const CurveOrder *t = curve_order(work, params);
  return t != NULL ? t->pos[id] : id;
}

/* Equal contiguous pieces of the order, as the model makes them of its
 * own. */
static void
mlb_initial_units(const LbWork *work, const LbParams *params, guint ranks, guint rank,
                  GArray *units)
{
  const CurveOrder *t = curve_order(work, params);
  if (t == NULL) {
    lb_work_initial_units(work, rank, LB_START_ORDER, units);
    return;
  }
  guint64 lo = (guint64)(((unsigned __int128)work->cells * rank) / ranks);
  guint64 hi = (guint64)(((unsigned __int128)work->cells * (rank + 1)) / ranks);
  g_array_set_size(units, 0);
  for (guint64 i = lo; i < hi; i++) {
    LbUnit u = {t->cell[i], 0};
    g_array_append_val(units, u);
  }
}

static char *
mlb_describe_start(const LbWork *work, const LbParams *params)
{
  const CurveOrder *t = curve_order(work, params);
  if (t == NULL)
    return lb_work_describe_start(work, LB_START_ORDER);
  return g_strdup_printf("linear blocks (%s curve)", lb_curve_name(t->kind));
}

/* The curve mlb runs on, NULL for mlb-nd (its items are rows and cells
 * of its own) and row-major. */
static const CurveOrder *
curve_order_of(LbRank *self)
{
  const LbParams *params = lb_rank_params(self);
  if (lb_param_spec_find(lb_params_spec(params), "order") == NULL)
    return NULL;
  return curve_order(lb_rank_work(self), params);
}

/* The group's movers: units move as units; ids and loads (and with the
 * midpoint rule each run's first position) go through the shared units
 * helper. */
static void
send_units(LbRank *self, int dst, int tag, guint round, const MlbItem *items, guint n,
           gboolean positions, const MlbLoan *loan)
{
  g_autofree LbUnit *units = g_new(LbUnit, MAX(n, 1));
  g_autofree guint64 *pos = g_new(guint64, MAX(n, 1));
  const CurveOrder *t = curve_order_of(self);
  for (guint i = 0; i < n; i++) {
    units[i] = (LbUnit){t != NULL ? t->cell[items[i].id] : items[i].id, items[i].load};
    pos[i] = items[i].pos;
  }
  lb_send_units_extra(self, dst, tag, round, units, n, positions ? pos : NULL, loan,
                      loan != NULL ? sizeof *loan : 0);
}

static void
recv_units(LbRank *self, int src, int tag, GArray *into, gboolean positions, MlbLoan *loan)
{
  g_autoptr(GArray) units = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  g_autoptr(GArray) pos = g_array_new(FALSE, FALSE, sizeof(guint64));
  guint n = lb_recv_units_extra(self, src, tag, units, positions ? pos : NULL, loan,
                                loan != NULL ? sizeof *loan : 0);
  const CurveOrder *t = curve_order_of(self);
  for (guint i = 0; i < n; i++) {
    const LbUnit *u = &g_array_index(units, LbUnit, i);
    MlbItem item = {t != NULL ? t->pos[u->id] : u->id, u->load,
                    positions ? g_array_index(pos, guint64, i) : 0};
    g_array_append_val(into, item);
  }
}

static GArray *
receive_piece(LbRank *self, const MlbRank *m, guint partner, guint edge, GArray *items,
              gboolean positions, MlbKey *got, MlbLoan *loan)
{
  g_autoptr(GArray) in = g_array_new(FALSE, FALSE, sizeof(MlbItem));
  m->g->recv_items(self, member(m, partner), TAG(PHASE_MIGRATE, edge), in, positions, loan);
  *got = (MlbKey){0, in->len};
  for (guint i = 0; i < in->len; i++)
    got->load += g_array_index(in, MlbItem, i).load;
  return merge_items(items, (const MlbItem *)in->data, in->len);
}

static const char *
side(gboolean high)
{
  return high ? "right" : "left";
}

/* Section 3.4 with `phase4 = loan`: along each edge, coarsest first, the
 * piece closest to phase 3's amount plus the loan at the end facing the
 * partner. That loan goes with the piece; what the piece weighs beyond the
 * aim stays as the loan at that end, for the finer edges. */
static guint
pick_by_loan(LbRank *self, MlbRank *m, MlbLoans *loans, guint e, const GArray *items,
             MlbLoan *handed)
{
  gboolean high = mlb_in_left_half(m->r, e);
  MlbLoan before = high ? loans->high : loans->low, aim;
  const MlbItem *all = (const MlbItem *)items->data;
  guint n = mlb_loan_send(loans, high, m->send[e], all, items->len, handed, &aim);
  guint64 held = 0, piece = 0;
  for (guint i = 0; i < items->len; i++) {
    held += all[i].load;
    if (high ? i >= items->len - n : i < n)
      piece += all[i].load;
  }
  MlbLoan after = high ? loans->high : loans->low;
  lb_narrate(self,
             "edge %u: phase 3 says send " KEY_FMT " to rank %u, %s loan " LOAN_FMT
             " -> aim at " LOAN_FMT "%s; closest piece: %u element%s of load %" G_GUINT64_FORMAT
             "; loan now " LOAN_FMT " at the %s end, " LOAN_FMT " handed over",
             e, KEY_ARGS(m->send[e]), (guint)member(m, mlb_partner(m->r, e)), side(high),
             LOAN_ARGS(before), LOAN_ARGS(aim),
             aim.load < 0 || (guint64)aim.load > held ? " (beyond what I hold)" : "", n,
             n == 1 ? "" : "s", piece, LOAN_ARGS(after), side(high), LOAN_ARGS(*handed));
  return n;
}

/* Section 3.4 read literally (`phase4 = literal`): one loan variable. Along
 * each edge, coarsest first, the piece closest to phase 3's amount plus
 * the loan, from the end that faces the partner; what the piece weighs
 * beyond that aim becomes the loan, whichever end the next edge takes it
 * from. Nothing travels with the piece: a receiver adds what it got beyond
 * what phase 3 expected. */
static guint
pick_literally(LbRank *self, MlbRank *m, MlbLoan *loan, guint e, const GArray *items)
{
  gboolean high = mlb_in_left_half(m->r, e);
  MlbLoan aim = {(gint64)m->send[e].load + loan->load, (gint64)m->send[e].count + loan->count};
  const MlbItem *all = (const MlbItem *)items->data;
  guint n = mlb_loan_pick(all, items->len, high, aim);
  MlbLoan piece = {0, n};
  guint64 held = 0;
  for (guint i = 0; i < items->len; i++) {
    held += all[i].load;
    if (high ? i >= items->len - n : i < n)
      piece.load += (gint64)all[i].load;
  }
  MlbLoan before = *loan;
  *loan = (MlbLoan){aim.load - piece.load, aim.count - piece.count};
  lb_narrate(
      self,
      "edge %u: phase 3 says send " KEY_FMT " to rank %u, loan " LOAN_FMT " -> aim at " LOAN_FMT
      "%s; closest piece from the %s end: %u element%s of load %" G_GINT64_FORMAT
      "; loan now " LOAN_FMT,
      e, KEY_ARGS(m->send[e]), (guint)member(m, mlb_partner(m->r, e)), LOAN_ARGS(before),
      LOAN_ARGS(aim), aim.load < 0 || (guint64)aim.load > held ? " (beyond what I hold)" : "",
      side(high), n, n == 1 ? "" : "s", piece.load, LOAN_ARGS(*loan));
  return n;
}

/* "elements 0 .. 3, 7" (positions in the array order), or "no elements". */
static char *
describe_runs(const GArray *items)
{
  if (items->len == 0)
    return g_strdup("no elements");
  GString *out = g_string_new("elements ");
  for (guint i = 0; i < items->len;) {
    guint64 first = g_array_index(items, MlbItem, i).id;
    guint j = i + 1;
    while (j < items->len && g_array_index(items, MlbItem, j).id == first + (j - i))
      j++;
    guint64 last = first + (j - 1 - i);
    g_string_append_printf(out, "%s%" G_GUINT64_FORMAT, i > 0 ? ", " : "", first);
    if (last > first)
      g_string_append_printf(out, " .. %" G_GUINT64_FORMAT, last);
    i = j;
  }
  return g_string_free(out, FALSE);
}

/* Phase 4 on the items of my index (sorted by id, starting at my prefix);
 * returns the items it holds at the end. */
static GArray *
migrate(LbRank *self, MlbRank *m, GArray *items)
{
  MlbPhase4 rule = m->g->phase4;
  gboolean midpoint = rule == MLB_PHASE4_MIDPOINT, per_end = rule == MLB_PHASE4_LOAN;
  guint r = m->r;
  guint64 pos = m->prefix.load; /* only the midpoint rule looks at positions */
  for (guint i = 0; i < items->len; i++) {
    MlbItem *it = &g_array_index(items, MlbItem, i);
    it->pos = midpoint ? pos : 0;
    pos += it->load;
  }

  MlbLoans loans = {{0, 0}, {0, 0}}; /* the per-end rule's */
  MlbLoan single = {0, 0};           /* the literal rule's one variable */
  gint64 loan = 0;                   /* the midpoint rule's bookkeeping: one variable */
  for (guint e = m->d; e-- > 0;) {
    guint partner = mlb_partner(r, e);
    guint round = m->d - 1 - e;
    gboolean left = mlb_in_left_half(r, e);
    lb_narrate_step(self, round);
    if (!mlb_key_is_zero(m->send[e])) {
      guint n;
      MlbLoan handed = {0, 0};
      if (per_end) {
        n = pick_by_loan(self, m, &loans, e, items, &handed);
      } else if (!midpoint) {
        n = pick_literally(self, m, &single, e, items);
      } else {
        MlbKey split = mlb_split_key(m->total, m->d, r, e, m->mode);
        guint cut = mlb_items_cut((const MlbItem *)items->data, items->len, split);
        n = left ? items->len - cut : cut;
      }
      guint first = left ? items->len - n : 0;
      const MlbItem *piece = &g_array_index(items, MlbItem, first);
      guint64 piece_load = 0;
      for (guint i = 0; i < n; i++)
        piece_load += piece[i].load;
      if (per_end)
        lb_narrate_label(self,
                         "piece: %u element%s, load %" G_GUINT64_FORMAT "; loan %" G_GINT64_FORMAT,
                         n, n == 1 ? "" : "s", piece_load, handed.load);
      else
        lb_narrate_label(self, "piece: %u element%s, load %" G_GUINT64_FORMAT, n, n == 1 ? "" : "s",
                         piece_load);
      /* the per-end loan rides in the piece's message */
      m->g->send_items(self, member(m, partner), TAG(PHASE_MIGRATE, e), round, piece, n, midpoint,
                       per_end ? &handed : NULL);
      if (n > 0)
        lb_phase_round(self, round);
      if (midpoint) {
        loan += (gint64)m->send[e].load - (gint64)piece_load;
        lb_narrate(self,
                   "edge %u: send %u element%s of load %" G_GUINT64_FORMAT " (phase 3 said " KEY_FMT
                   ") to rank %u; loan %" G_GINT64_FORMAT,
                   e, n, n == 1 ? "" : "s", piece_load, KEY_ARGS(m->send[e]),
                   (guint)member(m, partner), loan);
      }
      g_array_remove_range(items, first, n);
    } else if (midpoint) {
      /* Every element of positive extent overlaps the span phase 3 sent,
       * so nothing can be left behind here. */
      MlbKey split = mlb_split_key(m->total, m->d, r, e, m->mode);
      guint cut = mlb_items_cut((const MlbItem *)items->data, items->len, split);
      g_assert_cmpuint(left ? items->len - cut : cut, ==, 0);
    }
    if (!mlb_key_is_zero(m->recv[e])) {
      MlbKey got;
      MlbLoan handed = {0, 0};
      items = receive_piece(self, m, partner, e, items, midpoint, &got, per_end ? &handed : NULL);
      if (per_end) {
        mlb_loan_receive(&loans, left, m->recv[e], got, handed);
        lb_narrate(self,
                   "edge %u: received load " KEY_FMT " from rank %u, phase 3 said " KEY_FMT
                   ", " LOAN_FMT " of it its loan; loan now " LOAN_FMT " left, " LOAN_FMT " right",
                   e, KEY_ARGS(got), (guint)member(m, partner), KEY_ARGS(m->recv[e]),
                   LOAN_ARGS(handed), LOAN_ARGS(loans.low), LOAN_ARGS(loans.high));
      } else if (!midpoint) {
        single.load += (gint64)got.load - (gint64)m->recv[e].load;
        single.count += (gint64)got.count - (gint64)m->recv[e].count;
        lb_narrate(self,
                   "edge %u: received load " KEY_FMT " from rank %u, phase 3 said " KEY_FMT
                   "; loan now " LOAN_FMT,
                   e, KEY_ARGS(got), (guint)member(m, partner), KEY_ARGS(m->recv[e]),
                   LOAN_ARGS(single));
      } else {
        loan += (gint64)got.load - (gint64)m->recv[e].load;
        lb_narrate(self,
                   "edge %u: received load " KEY_FMT " (phase 3 said " KEY_FMT
                   ") from rank %u; loan %" G_GINT64_FORMAT,
                   e, KEY_ARGS(got), KEY_ARGS(m->recv[e]), (guint)member(m, partner), loan);
      }
    }
    lb_wait_sends(self);
  }

  /* The loans are what this rank holds beyond its desired load (and
   * count). */
  MlbKey held = {0, items->len};
  for (guint i = 0; i < items->len; i++)
    held.load += g_array_index(items, MlbItem, i).load;
  MlbKey desired = mlb_key_sub(mlb_desired_key(m->total, m->d, r + 1, m->mode),
                               mlb_desired_key(m->total, m->d, r, m->mode));
  gint64 excess = (gint64)held.load - (gint64)desired.load;
  gint64 excess_count = (gint64)held.count - (gint64)desired.count;
  if (per_end) {
    g_assert_cmpint(loans.low.load + loans.high.load, ==, excess);
    g_assert_cmpint(loans.low.count + loans.high.count, ==, excess_count);
    lb_narrate(self,
               "holds load " KEY_FMT ", desired " KEY_FMT "; loan " LOAN_FMT " left + " LOAN_FMT
               " right",
               KEY_ARGS(held), KEY_ARGS(desired), LOAN_ARGS(loans.low), LOAN_ARGS(loans.high));
  } else if (!midpoint) {
    g_assert_cmpint(single.load, ==, excess);
    g_assert_cmpint(single.count, ==, excess_count);
    if (lb_rank_narrating(self)) {
      g_autofree char *runs = describe_runs(items);
      lb_narrate(self, "holds load " KEY_FMT " (%s), desired " KEY_FMT "; loan " LOAN_FMT,
                 KEY_ARGS(held), runs, KEY_ARGS(desired), LOAN_ARGS(single));
    }
  } else {
    g_assert_cmpint(loan, ==, excess);
  }
  XBT_DEBUG("holds load %" G_GUINT64_FORMAT " (desired %" G_GUINT64_FORMAT ")", held.load,
            desired.load);
  return items;
}

GArray *
mlb_group_run(LbRank *self, const MlbGroup *g, GArray *items)
{
  MlbRank m = {.g = g, .d = g->d, .r = g->r, .mode = g->mode};
  MlbKey mine = {0, items->len};
  for (guint i = 0; i < items->len; i++)
    mine.load += g_array_index(items, MlbItem, i).load;

  accumulate(self, &m, mine); /* in phases[0], which the caller began */

  lb_phase_begin(self, g->phases[PHASE_DESIRED]);
  if (lb_rank_narrating(self)) {
    MlbKey desired = mlb_key_sub(mlb_desired_key(m.total, m.d, m.r + 1, m.mode),
                                 mlb_desired_key(m.total, m.d, m.r, m.mode));
    lb_narrate(self,
               "total " KEY_FMT ", my load " KEY_FMT " from prefix " KEY_FMT ", desired " KEY_FMT,
               KEY_ARGS(m.total), KEY_ARGS(mine), KEY_ARGS(m.prefix), KEY_ARGS(desired));
  }

  lb_phase_begin(self, g->phases[PHASE_AMOUNTS]);
  if (g->phase3 == MLB_PHASE3_FINEST)
    amounts_finest(self, &m);
  else
    amounts_levels(self, &m, g->phase3);

  lb_phase_begin(self, g->phases[PHASE_MIGRATE]);
  return migrate(self, &m, items);
}

void
mlb_group_options(MlbGroup *g, const LbParams *params)
{
  g->mode = strcmp(lb_params_get_string(params, "desired"), "even") == 0 ? MLB_DESIRED_EVEN
                                                                         : MLB_DESIRED_HALVING;
  const char *phase3 = lb_params_get_string(params, "phase3");
  g->phase3 = strcmp(phase3, "finest") == 0  ? MLB_PHASE3_FINEST
              : strcmp(phase3, "local") == 0 ? MLB_PHASE3_LOCAL
                                             : MLB_PHASE3_LEVELS;
  const char *phase4 = lb_params_get_string(params, "phase4");
  g->phase4 = strcmp(phase4, "midpoint") == 0  ? MLB_PHASE4_MIDPOINT
              : strcmp(phase4, "literal") == 0 ? MLB_PHASE4_LITERAL
                                               : MLB_PHASE4_LOAN;
}

static void
mlb_balance(LbRank *self, gpointer state)
{
  const LbParams *params = lb_rank_params(self);
  MlbGroup g = {
      .d = mlb_log2((guint)lb_rank_count(self)),
      .r = (guint)lb_rank_id(self),
      .phases = {PHASE_ACCUMULATE, PHASE_DESIRED, PHASE_AMOUNTS, PHASE_MIGRATE},
      .send_items = send_units,
      .recv_items = recv_units,
  };
  mlb_group_options(&g, params);
  GArray *units = lb_rank_units(self);
  lb_phase_begin(self, PHASE_ACCUMULATE);
  lb_execute(self, lb_params_get_double(params, "sum-flops") * units->len);
  GArray *items = g_array_sized_new(FALSE, FALSE, sizeof(MlbItem), units->len);
  const CurveOrder *t = curve_order(lb_rank_work(self), params);
  for (guint i = 0; i < units->len; i++) {
    const LbUnit *u = &g_array_index(units, LbUnit, i);
    MlbItem item = {t != NULL ? t->pos[u->id] : u->id, u->load, 0};
    g_array_append_val(items, item);
  }
  items = mlb_group_run(self, &g, items);
  g_array_set_size(units, items->len);
  for (guint i = 0; i < items->len; i++) {
    const MlbItem *it = &g_array_index(items, MlbItem, i);
    g_array_index(units, LbUnit, i) = (LbUnit){t != NULL ? t->cell[it->id] : it->id, it->load};
  }
  g_array_unref(items);
}

/* The tree of sub-hypercubes of sections 3.1 and 3.2: accumulated
 * (desired) load of every block, the root first. */
static void
mlb_explain_blocks(const LbExplainCase *c, GArray *blocks)
{
  guint p = c->ranks, d = mlb_log2(p);
  guint64 total = 0;
  for (guint r = 0; r < p; r++)
    total += c->initial_loads[r];
  MlbDesired mode = g_strcmp0(lb_params_get_string(c->params, "desired"), "even") == 0
                        ? MLB_DESIRED_EVEN
                        : MLB_DESIRED_HALVING;
  for (guint level = 0; level <= d; level++) {
    guint size = p >> level;
    for (guint first = 0; first < p; first += size) {
      LbExplainBlock b = {level, first, size, 0,
                          mlb_desired_prefix(total, d, first + size, mode) -
                              mlb_desired_prefix(total, d, first, mode)};
      for (guint r = first; r < first + size; r++)
        b.load += c->initial_loads[r];
      g_array_append_val(blocks, b);
    }
  }
}

/* That tree as text, and the Gray codes. */
static void
mlb_explain(const LbExplainCase *c, GString *out)
{
  guint p = c->ranks, d = mlb_log2(p);
  g_autoptr(GArray) blocks = g_array_new(FALSE, FALSE, sizeof(LbExplainBlock));
  mlb_explain_blocks(c, blocks);
  g_string_append(out, "\nThe tree of sub-hypercubes: accumulated load (desired load), root "
                       "first:\n");
  for (guint i = 0; i < blocks->len; i++) {
    const LbExplainBlock *b = &g_array_index(blocks, LbExplainBlock, i);
    if (b->first == 0)
      g_string_append_printf(out, "%s  level %u:", i > 0 ? "\n" : "", b->level);
    g_string_append_printf(out, " %" G_GUINT64_FORMAT "(%" G_GUINT64_FORMAT ")", b->load,
                           b->desired);
  }
  g_string_append(out, "\n");
  g_string_append(out, "  (amounts and loans below are keys, load (elements): phase 3 schedules "
                       "a load in which each element also counts as a tie-breaker, so a "
                       "difference of keys may count negative elements)\n");
  g_string_append_printf(out, "  (gray codes of ranks 0 .. %u:", p - 1);
  for (guint r = 0; r < p; r++) {
    g_string_append_c(out, ' ');
    for (guint b = d; b-- > 0;)
      g_string_append_printf(out, "%u", (mlb_gray(r) >> b) & 1u);
  }
  g_string_append(out, ")\n");
}

static const LbMetricSpec mlb_metrics[] = {
    {"schedule-steps", "rounds", LB_AGGREGATE_MAX, LB_COMBINE_MAX, "migrate",
     "communication steps of the schedule that moves the elements (at most log2 p)"},
    {"order-breaks", "elements", LB_AGGREGATE_MAX, LB_COMBINE_SUM, NULL,
     "elements that ended out of array order: the fewest that must move for the ranks to hold "
     "contiguous pieces in rank order (the most of any step; only phase4 = literal breaks it)"},
    {NULL},
};

const LbBalancer lb_mlb_balancer = {
    .name = "mlb",
    .summary = "Multilevel Load Balancing, 1D: a log(p)-step schedule on a hypercube",
    .cite = "D. J. Quinlan and M. Berndt, \"MLB: Multilevel Load Balancing for Structured Grid "
            "Applications\", Eighth SIAM Conference on Parallel Processing for Scientific "
            "Computing, 1997",
    .params = mlb_1d_params,
    .phases = mlb_phases,
    .metrics = mlb_metrics,
    .needs = LB_CAP_CELLS | LB_CAP_ORDER,
    .keeps_order = TRUE,
    .initial_units = mlb_initial_units,
    .describe_start = mlb_describe_start,
    .order_key = mlb_order_key,
    .breaks_order = mlb_breaks_order,
    .check = mlb_check,
    .balance = mlb_balance,
    .explain = mlb_explain,
    .explain_blocks = mlb_explain_blocks,
};
