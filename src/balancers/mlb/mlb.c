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
 *                 level from the root: tree level l is an l-cube of blocks
 *                 and costs l exchanges (section 3.3), d(d+1)/2 in all;
 *                 `phase3 = finest` computes only the last level (d);
 *   4 migrate     the schedule with the real elements, coarsest edge first,
 *                 one exchange per edge, keeping the loan variable.
 *
 * Amounts are spans of (load, count) keys; section 3.4's "piece as close as
 * possible to the optimal load" is made exact by sending the elements whose
 * midpoint lies beyond the cut, which keeps the array contiguous through
 * pass-through. */
#include <string.h>
#include <xbt/log.h>

#include "balancers/mlb/mlb-plan.h"
#include "balancers/registry.h"

XBT_LOG_EXTERNAL_CATEGORY(lb);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(lb_mlb, lb, "Multilevel Load Balancing");

enum { PHASE_ACCUMULATE, PHASE_DESIRED, PHASE_AMOUNTS, PHASE_MIGRATE };

static const char *const mlb_phases[] = {"accumulate", "desired", "amounts", "migrate", NULL};

static const LbParamSpec mlb_params[] = {
    {"desired", LB_PARAM_CHOICE, "halving", 0, 0, "halving|even",
     "desired loads: recursive halving of the total, remainder to the first child (the paper), "
     "or an even split, the first T mod p ranks taking one more"},
    {"phase3", LB_PARAM_CHOICE, "levels", 0, 0, "levels|finest",
     "phase 3 rounds: every tree level l with l exchanges, d(d+1)/2 in all (the paper), or only "
     "the finest level, d exchanges"},
    {"sum-flops", LB_PARAM_DOUBLE, "1", 0, 1e9, NULL, "flops to add one element's load in phase 1"},
    {NULL},
};

#define TAG(phase, round) ((int)((phase) << 16 | (round)))

typedef struct {
  guint d;
  MlbDesired mode;
  MlbKey total, prefix;
  MlbKey block_sum[33]; /* load of my block of 2^k ranks */
  MlbKey left_add[32];  /* sibling block merged at edge e, if it lies left */
  MlbKey send[32], recv[32];
} MlbRank;

static guint
log2_exact(guint p)
{
  guint d = 0;
  while ((1u << d) < p)
    d++;
  return d;
}

static gboolean
mlb_check(guint ranks, const LbParams *params, GError **error)
{
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
  guint r = (guint)lb_rank_id(self);
  MlbKey block = mine;
  m->block_sum[0] = mine;
  for (guint e = 0; e < m->d; e++) {
    guint partner = mlb_partner(r, e);
    lb_phase_round(self, e);
    lb_send(self, (int)partner, TAG(PHASE_ACCUMULATE, e), &block, sizeof block, sizeof block);
    g_autoptr(LbMsg) msg = lb_recv(self, (int)partner, TAG(PHASE_ACCUMULATE, e));
    MlbKey other;
    memcpy(&other, msg->data, sizeof other);
    m->left_add[e] = partner < r ? other : (MlbKey){0, 0};
    lb_narrate(self,
               "edge %u: my block of %u has load %" G_GUINT64_FORMAT
               ", rank %u's has %" G_GUINT64_FORMAT " -> block of %u: %" G_GUINT64_FORMAT,
               e, 1u << e, block.load, partner, other.load, 2u << e, block.load + other.load);
    block = mlb_key_add(block, other);
    m->block_sum[e + 1] = block;
    lb_wait_sends(self);
  }
  m->total = block;
  m->prefix = block_prefix(m, 0);
  XBT_DEBUG("total load %" G_GUINT64_FORMAT ", my prefix %" G_GUINT64_FORMAT, m->total.load,
            m->prefix.load);
}

static void
amounts(LbRank *self, MlbRank *m, gboolean levels)
{
  guint r = (guint)lb_rank_id(self);
  guint round = 0;
  g_autoptr(GArray) held = g_array_new(FALSE, FALSE, sizeof(MlbSpan));
  g_autoptr(GArray) moved = g_array_new(FALSE, FALSE, sizeof(MlbSpan));
  /* Level 0 (the root alone) exchanges nothing; it still gives p = 1 its
   * only holding. */
  for (guint level = levels && m->d > 0 ? 1 : m->d; level <= m->d; level++) {
    guint k = m->d - level; /* blocks of 2^k ranks are the level's nodes */
    MlbKey lo = block_prefix(m, k);
    MlbSpan whole = {lo, mlb_key_add(lo, m->block_sum[k])};
    g_array_set_size(held, 0);
    if (mlb_key_cmp(whole.lo, whole.hi) < 0)
      g_array_append_val(held, whole);
    for (guint e = m->d; e-- > k;) {
      guint partner = mlb_partner(r, e);
      MlbKey split = mlb_split_key(m->total, m->d, r, e, m->mode);
      g_array_set_size(moved, 0);
      mlb_spans_take(held, split, mlb_in_left_half(r, e), moved);
      lb_phase_round(self, round);
      lb_send(self, (int)partner, TAG(PHASE_AMOUNTS, round), moved->data,
              moved->len * sizeof(MlbSpan), 8.0 + moved->len * (double)sizeof(MlbSpan));
      g_autoptr(LbMsg) msg = lb_recv(self, (int)partner, TAG(PHASE_AMOUNTS, round));
      guint n = (guint)(msg->len / sizeof(MlbSpan));
      const MlbSpan *got = (const MlbSpan *)msg->data;
      mlb_spans_add(held, got, n);
      if (level == m->d) {
        m->send[e] = mlb_spans_measure((const MlbSpan *)moved->data, moved->len);
        m->recv[e] = mlb_spans_measure(got, n);
        if (!mlb_key_is_zero(m->send[e]) || !mlb_key_is_zero(m->recv[e]))
          lb_narrate(self,
                     "edge %u: send %" G_GUINT64_FORMAT " to / receive %" G_GUINT64_FORMAT
                     " from rank %u (cut at %" G_GUINT64_FORMAT ")",
                     e, m->send[e].load, m->recv[e].load, partner, split.load);
      }
      round++;
      lb_wait_sends(self);
    }
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

/* Sends the elements items[first .. first + n) through the shared units
 * helper: their ids and loads, and each run's first position. */
static void
send_piece(LbRank *self, guint partner, guint edge, guint round, const MlbItem *piece, guint n)
{
  g_autofree LbUnit *units = g_new(LbUnit, MAX(n, 1));
  g_autofree guint64 *positions = g_new(guint64, MAX(n, 1));
  for (guint i = 0; i < n; i++) {
    units[i] = (LbUnit){piece[i].id, piece[i].load};
    positions[i] = piece[i].pos;
  }
  lb_send_units(self, (int)partner, TAG(PHASE_MIGRATE, edge), round, units, n, positions);
}

static GArray *
receive_piece(LbRank *self, guint partner, guint edge, GArray *items, guint *got, guint64 *got_load)
{
  g_autoptr(GArray) units = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  g_autoptr(GArray) positions = g_array_new(FALSE, FALSE, sizeof(guint64));
  *got = lb_recv_units(self, (int)partner, TAG(PHASE_MIGRATE, edge), units, positions);
  g_autofree MlbItem *in = g_new(MlbItem, MAX(*got, 1));
  *got_load = 0;
  for (guint i = 0; i < *got; i++) {
    const LbUnit *u = &g_array_index(units, LbUnit, i);
    in[i] = (MlbItem){u->id, u->load, g_array_index(positions, guint64, i)};
    *got_load += u->load;
  }
  return merge_items(items, in, *got);
}

static void
migrate(LbRank *self, MlbRank *m)
{
  guint r = (guint)lb_rank_id(self);
  GArray *units = lb_rank_units(self);
  GArray *items = g_array_sized_new(FALSE, FALSE, sizeof(MlbItem), units->len);
  g_array_set_size(items, units->len);
  guint64 pos = m->prefix.load;
  for (guint i = 0; i < units->len; i++) {
    const LbUnit *u = &g_array_index(units, LbUnit, i);
    g_array_index(items, MlbItem, i) = (MlbItem){u->id, u->load, pos};
    pos += u->load;
  }

  gint64 loan = 0;
  for (guint e = m->d; e-- > 0;) {
    guint partner = mlb_partner(r, e);
    guint round = m->d - 1 - e;
    gboolean left = mlb_in_left_half(r, e);
    MlbKey split = mlb_split_key(m->total, m->d, r, e, m->mode);
    guint cut = mlb_items_cut((const MlbItem *)items->data, items->len, split);
    guint first = left ? cut : 0, n = left ? items->len - cut : cut;
    const MlbItem *piece = &g_array_index(items, MlbItem, first);
    if (mlb_key_is_zero(m->send[e])) {
      /* Every element of positive extent overlaps the span phase 3 sent,
       * so nothing can be left behind here. */
      g_assert_cmpuint(n, ==, 0);
    } else {
      guint64 piece_load = 0;
      for (guint i = 0; i < n; i++)
        piece_load += piece[i].load;
      send_piece(self, partner, e, round, piece, n);
      if (n > 0)
        lb_phase_round(self, round);
      loan += (gint64)m->send[e].load - (gint64)piece_load;
      lb_narrate(self,
                 "edge %u: send %u elements (load %" G_GUINT64_FORMAT
                 ", phase 3 said %" G_GUINT64_FORMAT ") to rank %u; loan %" G_GINT64_FORMAT,
                 e, n, piece_load, m->send[e].load, partner, loan);
      g_array_remove_range(items, first, n);
    }
    if (!mlb_key_is_zero(m->recv[e])) {
      guint got = 0;
      guint64 got_load = 0;
      items = receive_piece(self, partner, e, items, &got, &got_load);
      loan += (gint64)got_load - (gint64)m->recv[e].load;
      lb_narrate(self,
                 "edge %u: received %u elements (load %" G_GUINT64_FORMAT
                 ", phase 3 said %" G_GUINT64_FORMAT ") from rank %u; loan %" G_GINT64_FORMAT,
                 e, got, got_load, m->recv[e].load, partner, loan);
    }
    lb_wait_sends(self);
  }

  /* The loan is what this rank holds beyond its desired load. */
  guint64 held = 0;
  g_array_set_size(units, items->len);
  for (guint i = 0; i < items->len; i++) {
    const MlbItem *it = &g_array_index(items, MlbItem, i);
    g_array_index(units, LbUnit, i) = (LbUnit){it->id, it->load};
    held += it->load;
  }
  guint64 desired = mlb_desired_prefix(m->total.load, m->d, r + 1, m->mode) -
                    mlb_desired_prefix(m->total.load, m->d, r, m->mode);
  g_assert_cmpint(loan, ==, (gint64)held - (gint64)desired);
  XBT_DEBUG("holds load %" G_GUINT64_FORMAT " (desired %" G_GUINT64_FORMAT
            "), loan %" G_GINT64_FORMAT,
            held, desired, loan);
  g_array_unref(items);
}

static void
mlb_balance(LbRank *self, gpointer state)
{
  const LbParams *params = lb_rank_params(self);
  MlbRank m = {0};
  m.d = log2_exact((guint)lb_rank_count(self));
  m.mode = strcmp(lb_params_get_string(params, "desired"), "even") == 0 ? MLB_DESIRED_EVEN
                                                                        : MLB_DESIRED_HALVING;
  GArray *units = lb_rank_units(self);
  MlbKey mine = {0, units->len};
  for (guint i = 0; i < units->len; i++)
    mine.load += g_array_index(units, LbUnit, i).load;

  lb_phase_begin(self, PHASE_ACCUMULATE);
  lb_execute(self, lb_params_get_double(params, "sum-flops") * units->len);
  accumulate(self, &m, mine);

  lb_phase_begin(self, PHASE_DESIRED);
  guint r = (guint)lb_rank_id(self);
  lb_narrate(self,
             "total %" G_GUINT64_FORMAT ", my load %" G_GUINT64_FORMAT
             " from prefix %" G_GUINT64_FORMAT ", desired %" G_GUINT64_FORMAT,
             m.total.load, mine.load, m.prefix.load,
             mlb_desired_prefix(m.total.load, m.d, r + 1, m.mode) -
                 mlb_desired_prefix(m.total.load, m.d, r, m.mode));

  lb_phase_begin(self, PHASE_AMOUNTS);
  amounts(self, &m, strcmp(lb_params_get_string(params, "phase3"), "levels") == 0);

  lb_phase_begin(self, PHASE_MIGRATE);
  migrate(self, &m);
}

/* The tree of sub-hypercubes of sections 3.1 and 3.2: accumulated
 * (desired) load of every block, the root first, and the Gray codes. */
static void
mlb_explain(const LbExplainCase *c, GString *out)
{
  guint p = c->ranks, d = log2_exact(p);
  guint64 total = 0;
  for (guint r = 0; r < p; r++)
    total += c->initial_loads[r];
  MlbDesired mode = g_strcmp0(lb_params_get_string(c->params, "desired"), "even") == 0
                        ? MLB_DESIRED_EVEN
                        : MLB_DESIRED_HALVING;
  g_string_append(out, "\nThe tree of sub-hypercubes: accumulated load (desired load), root "
                       "first:\n");
  for (guint level = 0; level <= d; level++) {
    guint size = p >> level;
    g_string_append_printf(out, "  level %u:", level);
    for (guint first = 0; first < p; first += size) {
      guint64 acc = 0;
      for (guint r = first; r < first + size; r++)
        acc += c->initial_loads[r];
      guint64 want = mlb_desired_prefix(total, d, first + size, mode) -
                     mlb_desired_prefix(total, d, first, mode);
      g_string_append_printf(out, " %" G_GUINT64_FORMAT "(%" G_GUINT64_FORMAT ")", acc, want);
    }
    g_string_append(out, "\n");
  }
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
    {NULL},
};

static const char *const mlb_models[] = {"array1d", "field2d", "field3d", NULL};

const LbBalancer lb_mlb_balancer = {
    .name = "mlb",
    .summary = "Multilevel Load Balancing, 1D: a log(p)-step schedule on a hypercube",
    .cite = "D. J. Quinlan and M. Berndt, \"MLB: Multilevel Load Balancing for Structured Grid "
            "Applications\", Eighth SIAM Conference on Parallel Processing for Scientific "
            "Computing, 1997",
    .params = mlb_params,
    .phases = mlb_phases,
    .metrics = mlb_metrics,
    .models = mlb_models,
    .keeps_order = TRUE,
    .check = mlb_check,
    .balance = mlb_balance,
    .explain = mlb_explain,
};
