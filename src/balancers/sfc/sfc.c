/* Space-filling-curve partitions of an H-tree with segment shifting (F.
 * Baiardi, S. Chiti, P. Mori, L. Ricci, "Integrating load balancing and
 * locality in the parallelization of irregular problems", Future
 * Generation Computer Systems 17, 2001, sections 3 and 5.3).
 *
 * The curve orders the hnodes: an hnode's key is the curve position of its
 * first finest cell, then its level, so a parent comes just before its
 * sub-spaces and every subtree is one run of keys. Rank k is P_k of the
 * sequence SP (the placement orders the hosts). Every adaptation step:
 *   keys     every rank orders its hnodes (its segment) by key;
 *   detect   every `period` steps, an allgather of the ranks' loads and
 *            max_unbalance against T;
 *   shift    if above T: each P_i compares Unb(Pre_i) and Unb(Suc_i) with
 *            T and sends the piece of its segment's ends nearest to the
 *            amount to P_{i-1} or P_{i+1}, in rounds, passing on in later
 *            rounds what it received when its own load falls short;
 *   tree     the replicated H-tree anew: an allgather of the private roots
 *            (whose lengths tell how many each rank has).
 * The initial mapping is the blocking strategy on the step-0 tree: the
 * sequence cut into segments of loads nearest the average (the input's
 * decomposition, before any message). */
#include <math.h>
#include <string.h>
#include <xbt/log.h>

#include "balancers/registry.h"
#include "balancers/sort.h"
#include "geometry/curve.h"
#include "balancers/sfc/sfc-collect.h"
#include "balancers/sfc/sfc-plan.h"
#include "lbsim/model.h"
#include "workloads/htree.h"

XBT_LOG_EXTERNAL_CATEGORY(lb);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(lb_sfc, lb, "SFC partitions with segment shifting");

enum { PHASE_KEYS, PHASE_DETECT, PHASE_SHIFT, PHASE_TREE };

/* The data collection's figures come after the balancing's. */

static const char *const sfc_phases[] = {"keys", "detect", "shift", "tree", NULL};

enum {
  METRIC_TRIGGERED,
  METRIC_ROUNDS,
  METRIC_HNODES_MOVED,
  METRIC_UNBALANCE_BEFORE,
  METRIC_UNBALANCE_AFTER,
  METRIC_ROOTS,
  METRIC_COLLECT_CONTROL,
  METRIC_COLLECT_DATA,
  METRIC_COLLECT_NEEDED,
  METRIC_COLLECT_RECEIVED,
  METRIC_COLLECT_USELESS,
  METRIC_COLLECT_ANNOUNCED,
  METRIC_COLLECT_PHASES,
  METRIC_COLLECT_SYNC,
};

static const LbMetricSpec sfc_metrics[] = {
    {"triggered", "steps", LB_AGGREGATE_SUM, LB_COMBINE_MAX, NULL,
     "adaptation steps whose max_unbalance exceeded T, so that segments shifted"},
    {"shift-rounds", "rounds", LB_AGGREGATE_SUM, LB_COMBINE_MAX, NULL,
     "rounds of the shifts (more than one when a rank passes on load it received)"},
    {"hnodes-moved", "hnodes", LB_AGGREGATE_SUM, LB_COMBINE_SUM, NULL,
     "hnodes sent to a neighbour in the shifts, every hop counted"},
    {"max-unbalance-before", "ratio", LB_AGGREGATE_MAX, LB_COMBINE_MAX, NULL,
     "max_unbalance / average load when the detection ran, before shifting (the largest over "
     "the steps)"},
    {"max-unbalance-after", "ratio", LB_AGGREGATE_MAX, LB_COMBINE_MAX, NULL,
     "max_unbalance / average load after the shift (as before when nothing shifted; the "
     "largest over the steps)"},
    {"roots", "hnodes", LB_AGGREGATE_MEAN, LB_COMBINE_SUM, NULL,
     "private H-tree roots of all ranks: the replicated H-tree's leaves"},
    {"collect-control-messages", "messages", LB_AGGREGATE_SUM, LB_COMBINE_SUM, NULL,
     "the data collection's requests (request/answer), depth announcements (informed) or "
     "lists of needed squares (informed-needs)"},
    {"collect-data-messages", "messages", LB_AGGREGATE_SUM, LB_COMBINE_SUM, NULL,
     "the data collection's answers or pushes of hnodes"},
    {"collect-hnodes-needed", "hnodes", LB_AGGREGATE_SUM, LB_COMBINE_SUM, NULL,
     "remote squares the ranks needed across their hnodes' faces"},
    {"collect-hnodes-received", "hnodes", LB_AGGREGATE_SUM, LB_COMBINE_SUM, NULL,
     "hnodes the ranks received (copies included)"},
    {"collect-useless", "hnodes", LB_AGGREGATE_SUM, LB_COMBINE_SUM, NULL,
     "received hnodes that covered nothing their receiver needed (fault prevention's "
     "over-approximation)"},
    {"collect-announced", "hnodes", LB_AGGREGATE_SUM, LB_COMBINE_SUM, NULL,
     "ids the control messages carried: squares asked (request-answer, informed-needs), "
     "boundary hnodes whose depth was announced or withdrawn (informed)"},
    {"collect-phases", "collections", LB_AGGREGATE_SUM, LB_COMBINE_MAX, NULL,
     "the data collection's exchanges: one per operator and level (levels = each) or per "
     "operator"},
    {"collect-sync-messages", "messages", LB_AGGREGATE_SUM, LB_COMBINE_SUM, NULL,
     "the synchronisation messages that end each collection (sync = messages: np - 1 a rank)"},
    {NULL},
};

static const LbParamSpec sfc_params[] = {
    {"curve", LB_PARAM_CHOICE, "hilbert", 0, 0, "hilbert|morton",
     "the space-filling curve that orders the hnodes"},
    {"threshold", LB_PARAM_DOUBLE, "0.05", 0, 1e6, NULL,
     "T as a fraction of the average load: shift when max_unbalance exceeds it, and only "
     "across boundaries whose Unb exceeds it"},
    {"period", LB_PARAM_INT, "1", 1, 1000000, NULL,
     "adaptation steps between two load checks (the allgather of loads)"},
    {"collect", LB_PARAM_CHOICE, "informed", 0, 0,
     "request-answer|fault-prevention|informed|informed-needs|none",
     "how the application collects remote hnodes' data every step (informed: the seed's, depths "
     "announced when they change; informed-needs: lbsim's, the needed squares sent every step)"},
    {"merge", LB_PARAM_INT, "15", 1, 1000000, NULL,
     "hnodes per pushed message (fault prevention, informed, informed-needs; the seed merged 15 "
     "points)"},
    {"operators", LB_PARAM_INT, "1", 1, 1000, NULL,
     "collections of remote data per adaptation step (the operators of a V-cycle; informed "
     "fault prevention announces depths once for all of them)"},
    {"levels", LB_PARAM_CHOICE, "each", 0, 0, "each|together",
     "the V-cycle's collections: each, one per operator and level, each "
     "followed by that level's computation (the seed's I_h(op, l)); together, one per operator "
     "for all levels, the step's computation after them (lbsim's)"},
    {"tree-update", LB_PARAM_CHOICE, "shift", 0, 0, "shift|every-step",
     "when the replicated tree is made anew (an allgather of the private roots): shift, after a "
     "shift or when a rank's private roots changed otherwise (the seed's: after the shift); "
     "every-step, every step (lbsim's)"},
    {"sync", LB_PARAM_CHOICE, "messages", 0, 0, "messages|counts",
     "how a rank knows a collection of fault-prevention or informed is over: messages, np - 1 "
     "synchronisation messages from every rank (the seed's); counts, a reduce-scatter of message "
     "counts (fault-prevention) or every needed square covered (informed), lbsim's"},
    {"ra-batch", LB_PARAM_INT, "1", 1, 1000000, NULL,
     "requests per request message, and hnodes per answer (1: a request and an answer per "
     "remote hnode, as the seed describes request/answer)"},
    {NULL},
};

typedef struct {
  LbCurveKind curve;
  guint dim, order;
  GArray *seq;               /* SfcHnode, ascending keys: my segment */
  GBytes *roots;             /* the replicated H-tree: every rank's private roots (ids) */
  const gsize *root_offsets; /* where each rank's are in roots (p + 1, shared with it) */
  GBytes *starts_block;      /* starts, one block for all ranks */
  const guint64 *starts;     /* the first key of every rank's segment (an empty rank: the next's) */
  guint64 next_first_id;     /* the first hnode of the next non-empty segment, or 0 */
  SfcInformed *informed;     /* what informed fault prevention announced and heard */
  gboolean rebalanced;       /* the shift ran this step */
  guint deepest;             /* the deepest level of any rank's hnodes this step (levels = each) */
  GArray *given_roots;       /* my private roots when the replicated tree was last made, or NULL */
} SfcState;

static guint
max_level_of(const LbWork *work)
{
  return (guint)lb_params_get_int(work->params, "max-level");
}

static LbCurveKind
curve_of(const LbParams *params)
{
  LbCurveKind curve = LB_CURVE_HILBERT;
  gboolean known = lb_curve_parse(lb_params_get_string(params, "curve"), &curve);
  g_assert(known);
  return curve;
}

/* The engine asks for the keys of a batch of units: the parameters are
 * read by name once a batch, not once a unit. */
static void
sfc_order_keys(const LbWork *work, const LbParams *params, const LbUnit *units, gsize n,
               guint64 *keys)
{
  LbCurveKind curve = curve_of(params);
  guint order = max_level_of(work);
  for (gsize i = 0; i < n; i++)
    keys[i] = sfc_key(curve, work->dim, order, units[i].id);
}

static guint64
sfc_order_key(const LbWork *work, const LbParams *params, guint64 id)
{
  LbUnit u = {id, 0};
  guint64 key = 0;
  sfc_order_keys(work, params, &u, 1, &key);
  return key;
}

static inline gboolean
id_before(const LbUnit *x, const LbUnit *y)
{
  return x->id < y->id;
}

LB_DEFINE_SORT(sort_units, LbUnit, id_before)

/* A rank's hnodes by key, every step. The units come back from the model
 * in the order this balancer left them, the curve's, with only the model's
 * changes (a refined leaf's new hnodes after it, in the model's order), so
 * a segment where no leaf was refined is in order already and the sort
 * leaves it after one pass. */
static inline gboolean
key_before(const SfcHnode *x, const SfcHnode *y)
{
  return x->key < y->key;
}

LB_DEFINE_SORT(sort_hnodes, SfcHnode, key_before)

/* ---- the initial mapping ---- */

/* The blocking of the step-0 tree, worked out once for all ranks. */
static struct {
  const LbWork *work;
  LbCurveKind curve;
  guint ranks;
  GArray *order; /* LbUnit (id, load) in key order */
  gsize *cuts;
} blocking;

static void
block_tree(const LbWork *work, LbCurveKind curve, guint ranks)
{
  if (blocking.work == work && blocking.curve == curve && blocking.ranks == ranks)
    return;
  g_clear_pointer(&blocking.order, g_array_unref);
  g_clear_pointer(&blocking.cuts, g_free);
  const LbHtree *tree = lb_htree_of(work);
  gsize n = lb_htree_size(tree);
  g_autoptr(GArray) hnodes = g_array_sized_new(FALSE, FALSE, sizeof(SfcHnode), (guint)n);
  guint order = max_level_of(work);
  for (gsize at = 0; at < n; at++) {
    guint64 id = lb_htree_id_at(tree, at);
    SfcHnode h = {sfc_key(curve, work->dim, order, id), id, lb_htree_load(work, tree, at)};
    g_array_append_val(hnodes, h);
  }
  sort_hnodes((SfcHnode *)hnodes->data, hnodes->len);
  g_autofree guint64 *loads = g_new(guint64, n + 1);
  blocking.order = g_array_sized_new(FALSE, FALSE, sizeof(LbUnit), (guint)n);
  for (gsize i = 0; i < n; i++) {
    const SfcHnode *h = &g_array_index(hnodes, SfcHnode, i);
    loads[i] = h->load;
    LbUnit u = {h->id, 0};
    g_array_append_val(blocking.order, u);
  }
  blocking.cuts = g_new(gsize, ranks + 1);
  sfc_block(loads, n, ranks, blocking.cuts);
  blocking.work = work;
  blocking.curve = curve;
  blocking.ranks = ranks;
}

static void
sfc_initial_units(const LbWork *work, const LbParams *params, guint ranks, guint rank,
                  GArray *units)
{
  block_tree(work, curve_of(params), ranks);
  gsize from = blocking.cuts[rank], to = blocking.cuts[rank + 1];
  g_array_set_size(units, 0);
  g_array_append_vals(units, &g_array_index(blocking.order, LbUnit, from), (guint)(to - from));
  sort_units((LbUnit *)units->data, units->len);
  if (rank + 1 == ranks) { /* the last rank: nobody needs the blocking any more */
    g_clear_pointer(&blocking.order, g_array_unref);
    g_clear_pointer(&blocking.cuts, g_free);
    blocking.work = NULL;
  }
}

static char *
sfc_describe_start(const LbWork *work, const LbParams *params)
{
  return g_strdup_printf("blocks of the %s curve's hnode sequence, loads nearest the average",
                         lb_params_get_string(params, "curve"));
}

/* ---- the balancer ---- */

static gpointer
sfc_new(LbRank *self)
{
  const LbWork *work = lb_rank_work(self);
  SfcState *st = g_new0(SfcState, 1);
  st->curve = curve_of(lb_rank_params(self));
  st->dim = work->dim;
  st->order = max_level_of(work);
  st->seq = g_array_new(FALSE, FALSE, sizeof(SfcHnode));
  st->informed = sfc_informed_new();
  return st;
}

static void
sfc_free(gpointer state)
{
  SfcState *st = state;
  g_array_unref(st->seq);
  g_clear_pointer(&st->roots, g_bytes_unref);
  g_clear_pointer(&st->starts_block, g_bytes_unref);
  sfc_informed_free(st->informed);
  g_clear_pointer(&st->given_roots, g_array_unref);
  g_free(st);
}

/* My units as a segment of the curve's sequence. A key is a function of
 * the id alone, and the units come back in the order of my last segment
 * with the model's changes among them (sort_hnodes): an hnode found at
 * the same place in the last segment keeps its key, and only new hnodes
 * are keyed. */
static void
order_segment(LbRank *self, SfcState *st)
{
  GArray *units = lb_rank_units(self);
  gsize m = 0;
  g_autofree SfcHnode *last = g_array_steal(st->seq, &m);
  g_array_set_size(st->seq, units->len);
  SfcHnode *seq = (SfcHnode *)st->seq->data;
  guint j = 0;
  for (guint i = 0; i < units->len; i++) {
    const LbUnit *u = &g_array_index(units, LbUnit, i);
    guint64 key;
    if (j < m && last[j].id == u->id)
      key = last[j++].key;
    else {
      key = sfc_key(st->curve, st->dim, st->order, u->id);
      while (j < m && last[j].key <= key) /* what the model took out, or u itself */
        j++;
    }
    seq[i] = (SfcHnode){key, u->id, u->load};
  }
  sort_hnodes(seq, st->seq->len);
}

static guint64
segment_load(const SfcState *st)
{
  guint64 load = 0;
  for (guint i = 0; i < st->seq->len; i++)
    load += g_array_index(st->seq, SfcHnode, i).load;
  return load;
}

/* An hnode as a learner reads it: L, its level, and its coordinates in
 * that level's grid. */
static void
append_hnode(GString *out, guint dim, guint64 id)
{
  guint64 c[3] = {0};
  guint level = lb_htree_decode(id, dim, c);
  g_string_append_printf(out, "L%u(%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT, level, c[0], c[1]);
  if (dim == 3)
    g_string_append_printf(out, ",%" G_GUINT64_FORMAT, c[2]);
  g_string_append_c(out, ')');
}

/* "first .. last" of n hnodes in curve order. */
static void
append_hnode_range(GString *out, guint dim, guint64 first, guint64 last, gsize n)
{
  append_hnode(out, dim, first);
  if (n > 1) {
    g_string_append(out, " .. ");
    append_hnode(out, dim, last);
  }
}

static void
narrate_segment(LbRank *self, const SfcState *st, const char *when)
{
  if (!lb_rank_narrating(self))
    return;
  g_autoptr(GString) s = g_string_new(NULL);
  guint n = st->seq->len;
  const SfcHnode *h = (const SfcHnode *)st->seq->data;
  if (n == 0)
    g_string_append(s, "empty");
  else {
    g_string_append_printf(s,
                           "%u hnode%s, load %" G_GUINT64_FORMAT ", keys %" G_GUINT64_FORMAT
                           " .. %" G_GUINT64_FORMAT ", ",
                           n, n == 1 ? "" : "s", segment_load(st), h[0].key, h[n - 1].key);
    append_hnode_range(s, st->dim, h[0].id, h[n - 1].id, n);
  }
  lb_narrate(self, "step %u, segment %s: %s", lb_rank_adaptation(self), when, s->str);
}

#define TAG_SHIFT(round) (0x10000 + (int)(round))

/* ---- the shift's hnodes, moved by reference ----
 *
 * A hop copies no hnode: a rank's segment as the shift finds it becomes a
 * block that nobody changes, pieces travel as spans of blocks, and each
 * rank's segment during the shift is a row of spans. Only the figures of
 * a message (its hnodes, runs of ids and bytes) are worked out hnode by
 * hnode; the decisions use the blocks' prefix sums of loads. */

typedef struct {
  gatomicrefcount refs;
  guint n;
  SfcHnode *h;
  guint64 *prefix; /* prefix[i]: the load of h[0 .. i) */
  double *bytes;   /* the model's bytes of each hnode, from its first send (NAN before) */
} Block;

/* h[at .. at + n) of a block, holding a reference to it. A piece
 * forwarded hop by hop keeps its spans: their message figures are kept
 * with them (the sum of their hnodes' bytes and the breaks in their runs
 * of ids), worked out hnode by hnode once, when a span is first sent
 * whole, not at every hop. */
typedef struct {
  Block *block;
  guint at, n;
  double bytes;   /* the sum of the hnodes' bytes, NAN until worked out */
  gboolean exact; /* bytes and each of its terms are integers below 2^53 */
  guint breaks;   /* hnodes whose id does not follow the one before's */
} Span;

static Span
span_make(Block *block, guint at, guint n)
{
  return (Span){block, at, n, NAN, FALSE, 0};
}

/* A block of my segment: it takes seq's buffer, since the shift makes the
 * segment anew from its row when it ends. */
static Block *
block_take(GArray *seq)
{
  Block *b = g_new(Block, 1);
  g_atomic_ref_count_init(&b->refs);
  b->n = seq->len;
  gsize n = 0;
  b->h = g_array_steal(seq, &n);
  g_assert(n == b->n);
  b->prefix = g_new(guint64, n + 1);
  b->bytes = g_new(double, MAX(n, 1));
  b->prefix[0] = 0;
  for (guint i = 0; i < b->n; i++) {
    b->prefix[i + 1] = b->prefix[i] + b->h[i].load;
    b->bytes[i] = NAN;
  }
  return b;
}

static void
block_unref(Block *b)
{
  if (!g_atomic_ref_count_dec(&b->refs))
    return;
  g_free(b->h);
  g_free(b->prefix);
  g_free(b->bytes);
  g_free(b);
}

static guint64
span_load(const Span *s)
{
  return s->block->prefix[s->at + s->n] - s->block->prefix[s->at];
}

/* A row of spans (a piece, or a rank's segment), dropping its references
 * when freed. */
static void
clear_span(gpointer data)
{
  block_unref(((Span *)data)->block);
}

static GArray *
spans_new(void)
{
  GArray *spans = g_array_new(FALSE, FALSE, sizeof(Span));
  g_array_set_clear_func(spans, clear_span);
  return spans;
}

static gsize
spans_length(const GArray *spans)
{
  gsize n = 0;
  for (guint i = 0; i < spans->len; i++)
    n += g_array_index(spans, Span, i).n;
  return n;
}

/* Moves the first (or last) k hnodes of a row into a new piece, splitting
 * a span where k ends inside it. */
static GArray *
take_front(GArray *row, gsize k)
{
  GArray *piece = spans_new();
  guint whole = 0;
  while (k > 0) {
    Span *s = &g_array_index(row, Span, whole);
    if (s->n > k) {
      Span part = span_make(s->block, s->at, (guint)k);
      g_atomic_ref_count_inc(&s->block->refs);
      g_array_append_val(piece, part);
      *s = span_make(s->block, s->at + (guint)k, s->n - (guint)k);
      break;
    }
    g_array_append_val(piece, *s);
    k -= s->n;
    whole++;
  }
  /* the whole spans moved with their references */
  g_array_set_clear_func(row, NULL);
  g_array_remove_range(row, 0, whole);
  g_array_set_clear_func(row, clear_span);
  return piece;
}

static GArray *
take_back(GArray *row, gsize k)
{
  GArray *piece = spans_new();
  guint from = row->len;
  while (k > 0) {
    Span *s = &g_array_index(row, Span, from - 1);
    if (s->n > k) {
      Span part = span_make(s->block, s->at + s->n - (guint)k, (guint)k);
      g_atomic_ref_count_inc(&s->block->refs);
      g_array_append_val(piece, part);
      *s = span_make(s->block, s->at, s->n - (guint)k);
      break;
    }
    k -= s->n;
    from--;
  }
  /* the whole spans after the split one (or the first whole one), in order */
  g_autoptr(GArray) tail = g_array_new(FALSE, FALSE, sizeof(Span));
  g_array_append_vals(tail, &g_array_index(row, Span, from), row->len - from);
  g_array_set_clear_func(row, NULL);
  g_array_set_size(row, from);
  g_array_set_clear_func(row, clear_span);
  g_array_append_vals(piece, tail->data, tail->len);
  return piece;
}

/* Moves a piece's spans to the front or the end of a row. */
static void
place_piece(GArray *row, GArray *piece, gboolean front)
{
  if (front)
    g_array_prepend_vals(row, piece->data, piece->len);
  else
    g_array_append_vals(row, piece->data, piece->len);
  g_array_set_clear_func(piece, NULL);
  g_array_unref(piece);
}

static const SfcHnode *
span_hnode(const GArray *spans, guint span, guint at)
{
  const Span *s = &g_array_index(spans, Span, span);
  return &s->block->h[s->at + at];
}

/* A row's loads as sfc_round_loads reads them: where each span starts and
 * the load before it. */
typedef struct {
  const GArray *row;
  gsize *starts; /* row->len + 1 */
  guint64 *before;
} RowLoads;

static guint64
row_prefix(gconstpointer data, gsize i)
{
  const RowLoads *r = data;
  guint lo = 0, hi = r->row->len; /* the span holding element i, or the end */
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    if (r->starts[mid + 1] <= i)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == r->row->len)
    return r->before[lo];
  const Span *s = &g_array_index(r->row, Span, lo);
  return r->before[lo] + s->block->prefix[s->at + (i - r->starts[lo])] - s->block->prefix[s->at];
}

static void
row_loads_init(RowLoads *r, const GArray *row)
{
  r->row = row;
  r->starts = g_renew(gsize, r->starts, row->len + 1);
  r->before = g_renew(guint64, r->before, row->len + 1);
  r->starts[0] = 0;
  r->before[0] = 0;
  for (guint i = 0; i < row->len; i++) {
    const Span *s = &g_array_index(row, Span, i);
    r->starts[i + 1] = r->starts[i] + s->n;
    r->before[i + 1] = r->before[i] + span_load(s);
  }
}

/* The bytes of hnode j of a block, the model's, worked out once, by the
 * rank that first sends it. */
static double
hnode_bytes(const LbWork *work, Block *b, guint j)
{
  if (isnan(b->bytes[j])) {
    LbUnit u = {b->h[j].id, b->h[j].load};
    b->bytes[j] = lb_work_bytes(work, &u, 1);
  }
  return b->bytes[j];
}

#define EXACT_LIMIT 0x1p53

static void
span_figures(const LbWork *work, Span *s)
{
  if (!isnan(s->bytes))
    return;
  const SfcHnode *h = s->block->h;
  double bytes = 0;
  gboolean exact = TRUE;
  guint breaks = 0;
  for (guint j = s->at; j < s->at + s->n; j++) {
    double b = hnode_bytes(work, s->block, j);
    exact &= b >= 0 && b < EXACT_LIMIT && b == floor(b);
    bytes += b;
    breaks += j > s->at && h[j].id != h[j - 1].id + 1;
  }
  s->bytes = bytes;
  s->exact = exact && bytes < EXACT_LIMIT;
  s->breaks = breaks;
}

/* The network's figures of a piece, in the order sent, as
 * lb_send_units_word would work them out hnode by hnode: the runs of
 * consecutive ids, and the bytes (htree's lb_work_bytes is a sum over the
 * units in order). From the spans' figures when every term is an integer
 * below 2^53, where any order of the sum is exact and so the same;
 * otherwise, and for a recorded schedule, hnode by hnode. */
static void
send_piece(LbRank *self, int dst, guint round, GArray *piece, gboolean open)
{
  const LbWork *work = lb_rank_work(self);
  gboolean detail = lb_rank_records_transfers(self);
  g_autoptr(GArray) units = detail ? g_array_new(FALSE, FALSE, sizeof(LbUnit)) : NULL;
  guint n = 0, runs = 0;
  double bytes = 0;
  gboolean exact = !detail;
  guint64 next = G_MAXUINT64; /* the id that would go on with the last run */
  for (guint i = 0; i < piece->len && exact; i++) {
    Span *s = &g_array_index(piece, Span, i);
    span_figures(work, s);
    exact = s->exact;
    if (s->n == 0)
      continue;
    const SfcHnode *h = s->block->h;
    runs += (h[s->at].id != next) + s->breaks;
    next = h[s->at + s->n - 1].id + 1;
    bytes += s->bytes;
    n += s->n;
  }
  exact = exact && bytes < EXACT_LIMIT;
  if (!exact) {
    n = 0;
    runs = 0;
    bytes = 0;
    next = G_MAXUINT64;
    for (guint i = 0; i < piece->len; i++) {
      const Span *s = &g_array_index(piece, Span, i);
      for (guint j = s->at; j < s->at + s->n; j++) {
        const SfcHnode *h = &s->block->h[j];
        bytes += hnode_bytes(work, s->block, j);
        runs += h->id != next;
        next = h->id + 1;
        if (units != NULL) {
          LbUnit u = {h->id, h->load};
          g_array_append_val(units, u);
        }
      }
      n += s->n;
    }
  }
  if (lb_rank_narrating(self)) {
    guint64 load = 0;
    for (guint i = 0; i < piece->len; i++) {
      const Span *s = &g_array_index(piece, Span, i);
      for (guint j = s->at; j < s->at + s->n; j++)
        load += s->block->h[j].load;
    }
    lb_narrate_label(self, "%u hnode%s (load %" G_GUINT64_FORMAT ") off the %s of my segment%s", n,
                     n == 1 ? "" : "s", load, dst < lb_rank_id(self) ? "front" : "end",
                     open ? ", more to come" : "");
  }
  lb_send_units_ref(self, dst, TAG_SHIFT(round), round, piece, (GDestroyNotify)g_array_unref, n,
                    runs, bytes, open, units != NULL ? (const LbUnit *)units->data : NULL);
}

/* Receives a piece into the front or the end of my row; returns whether
 * the sender's end is still open. */
static gboolean
recv_piece(LbRank *self, SfcState *st, GArray *row, int src, guint round, gboolean front)
{
  guint32 open = 0;
  GArray *piece = lb_recv_units_ref(self, src, TAG_SHIFT(round), &open);
  gsize n = spans_length(piece);
  if (n > 0 && lb_rank_narrating(self)) {
    g_autoptr(GString) names = g_string_new(NULL);
    append_hnode_range(
        names, st->dim, span_hnode(piece, 0, 0)->id,
        span_hnode(piece, piece->len - 1, g_array_index(piece, Span, piece->len - 1).n - 1)->id, n);
    lb_narrate(self, "round %u: %zu hnode%s from P_%d: %s", round, n, n == 1 ? "" : "s", src,
               names->str);
  }
  place_piece(row, piece, front);
  return open != 0;
}

/* "k hnodes (load ... of ... to send) to P_d: first .. last" */
static void
narrate_piece(GString *s, guint dim, const GArray *piece, double owed, gboolean open, int dst)
{
  gsize n = spans_length(piece);
  guint64 load = 0;
  for (guint i = 0; i < piece->len; i++)
    load += span_load(&g_array_index(piece, Span, i));
  g_string_append_printf(s,
                         "%s%zu hnode%s (load %" G_GUINT64_FORMAT " of %.3f to send%s) to P_%d: ",
                         s->len > 0 ? "; " : "", n, n == 1 ? "" : "s", load, owed,
                         open ? ", all I had: stays open" : "", dst);
  append_hnode_range(
      s, dim, span_hnode(piece, 0, 0)->id,
      span_hnode(piece, piece->len - 1, g_array_index(piece, Span, piece->len - 1).n - 1)->id, n);
}

/* The shift, as sfc_shift simulates it, with messages: each round every
 * open sender end sends its piece (empty when it waits for inflow) and
 * says whether it stays open; every open receiver end takes one. flow is
 * Unb(Pre_b) of every boundary, from the gathered loads. Returns the
 * rounds this rank took part in. */
static guint
shift(LbRank *self, SfcState *st, const double *flow, double threshold, guint64 *moved)
{
  int me = lb_rank_id(self), p = lb_rank_count(self);
  double pre = flow[me], next_pre = flow[me + 1]; /* Unb(Pre_me), Unb(Pre_me+1) */
  SfcEnd left = {0, FALSE}, right = {0, FALSE};
  gboolean in_left = FALSE, in_right = FALSE; /* a neighbour still sends to me */
  if (me > 0 && fabs(pre) > threshold) {
    if (pre < 0)
      left = (SfcEnd){-pre, TRUE};
    else
      in_left = TRUE;
  }
  if (me + 1 < p && fabs(next_pre) > threshold) {
    if (next_pre > 0)
      right = (SfcEnd){next_pre, TRUE};
    else
      in_right = TRUE;
  }
  if (lb_rank_narrating(self)) {
    g_autoptr(GString) what = g_string_new(NULL);
    if (left.open)
      g_string_append_printf(what, "send %.3f to P_%d", left.amount, me - 1);
    if (in_left)
      g_string_append_printf(what, "receive from P_%d", me - 1);
    if (right.open)
      g_string_append_printf(what, "%ssend %.3f to P_%d", what->len ? ", " : "", right.amount,
                             me + 1);
    if (in_right)
      g_string_append_printf(what, "%sreceive from P_%d", what->len ? ", " : "", me + 1);
    lb_narrate(self, "Unb(Pre) %.3f, Unb(Suc) %.3f (T %.3f): %s", me > 0 ? pre : 0.0,
               me + 1 < p ? -next_pre : 0.0, threshold, what->len ? what->str : "nothing to do");
  }
  guint round = 0;
  *moved = 0;
  g_autoptr(GArray) row = spans_new();
  gboolean takes_part = left.open || right.open || in_left || in_right;
  if (takes_part && st->seq->len > 0) {
    guint n = st->seq->len;
    Span all = span_make(block_take(st->seq), 0, n);
    g_array_append_val(row, all);
  }
  RowLoads view = {0};
  while (left.open || right.open || in_left || in_right) {
    if (round < 256) /* the core counts rounds up to 256; the metric counts them all */
      lb_phase_round(self, round);
    row_loads_init(&view, row);
    gsize n = view.starts[row->len];
    SfcLoads seq_loads = {row_prefix, &view, n};
    gboolean send_left = left.open, send_right = right.open;
    double owed_left = left.amount, owed_right = right.amount;
    gsize n_left = 0, n_right = 0;
    sfc_round_loads(&seq_loads, &left, &right, in_left, in_right, &n_left, &n_right);
    GArray *to_left = take_front(row, n_left);
    GArray *to_right = take_back(row, n_right);
    if (n_left + n_right > 0 && lb_rank_narrating(self)) {
      g_autoptr(GString) s = g_string_new(NULL);
      if (n_left > 0)
        narrate_piece(s, st->dim, to_left, owed_left, left.open, me - 1);
      if (n_right > 0)
        narrate_piece(s, st->dim, to_right, owed_right, right.open, me + 1);
      lb_narrate(self, "round %u: %s", round, s->str);
    }
    if (send_left)
      send_piece(self, me - 1, round, to_left, left.open);
    else
      g_array_unref(to_left);
    if (send_right)
      send_piece(self, me + 1, round, to_right, right.open);
    else
      g_array_unref(to_right);
    *moved += n_left + n_right;
    if (in_left)
      in_left = recv_piece(self, st, row, me - 1, round, TRUE);
    if (in_right)
      in_right = recv_piece(self, st, row, me + 1, round, FALSE);
    round++;
  }
  g_free(view.starts);
  g_free(view.before);
  lb_wait_sends(self);
  if (round > 0 && lb_rank_narrating(self))
    lb_narrate(self,
               "shift over after %u round%s: I sent %" G_GUINT64_FORMAT " hnode%s on (a hop each)",
               round, round == 1 ? "" : "s", *moved, *moved == 1 ? "" : "s");
  if (!takes_part)
    return 0;
  /* my new segment, copied once out of the blocks that brought it */
  g_array_set_size(st->seq, (guint)spans_length(row));
  SfcHnode *seq = (SfcHnode *)st->seq->data;
  for (guint i = 0; i < row->len; i++) {
    const Span *s = &g_array_index(row, Span, i);
    memcpy(seq, s->block->h + s->at, s->n * sizeof(SfcHnode));
    seq += s->n;
  }
  return round;
}

/* The roots of my private H-trees: the hnodes of my segment whose parent
 * is not in it. A subtree is one run of keys, so a parent of mine comes
 * before its sub-spaces with only its other descendants between: it is
 * on top of the stack of my hnodes that hold the one at hand. */
static GArray *
private_roots(const SfcState *st)
{
  GArray *roots = g_array_new(FALSE, FALSE, sizeof(guint64));
  /* each holder's region strictly holds the next's: one a level at most */
  guint64 holders[MAX(LB_HTREE_MAX_LEVEL_2D, LB_HTREE_MAX_LEVEL_3D) + 1];
  guint depth = 0;
  const SfcHnode *seq = (const SfcHnode *)st->seq->data;
  for (guint i = 0; i < st->seq->len; i++) {
    guint64 id = seq[i].id;
    guint top = 63 - (guint)__builtin_clzll(id);
    /* holder h holds id when id's bits begin with h's (sfc_region_holds) */
    while (depth > 0) {
      guint64 h = holders[depth - 1];
      guint th = 63 - (guint)__builtin_clzll(h);
      if (th <= top && id >> (top - th) == h)
        break;
      depth--;
    }
    if (depth == 0 || holders[depth - 1] != id >> st->dim) /* lb_htree_parent */
      g_array_append_val(roots, id);
    g_assert(depth < G_N_ELEMENTS(holders));
    holders[depth++] = id;
  }
  return roots;
}

/* Whether *cached is `block`, a block every rank holds (shared, not
 * copied: the same data); if not, *cached becomes a reference to it. The
 * reference keeps the block's address from any later block, so that the
 * figures worked out from it serve only its holders. */
static gboolean
cached_block(GBytes **cached, GBytes *block)
{
  if (*cached != NULL && g_bytes_get_data(*cached, NULL) == g_bytes_get_data(block, NULL))
    return TRUE;
  g_clear_pointer(cached, g_bytes_unref);
  *cached = g_bytes_ref(block);
  return FALSE;
}

/* Where every segment starts, from the replicated tree's roots. Every rank
 * holds the same roots (one shared block) and derives the same starts: the
 * simulator works them out once per block (cached_block), into one block
 * of starts that every rank holds a reference to. */
static struct {
  GBytes *roots;
  guint p;
  GBytes *starts;
  guint64 *first_ids; /* the root at each start, 0 for an empty rank */
} derived;

static void
segment_starts(SfcState *st, guint p, int me)
{
  const guint64 *all = g_bytes_get_data(st->roots, NULL);
  if (!cached_block(&derived.roots, st->roots) || derived.p != p) {
    g_clear_pointer(&derived.starts, g_bytes_unref);
    g_free(derived.first_ids);
    derived.p = p;
    guint64 *starts = g_new(guint64, p);
    derived.first_ids = g_new0(guint64, p);
    guint64 next = G_MAXUINT64;
    for (guint r = p; r-- > 0;) {
      guint64 start = G_MAXUINT64;
      for (gsize k = st->root_offsets[r] / sizeof(guint64);
           k < st->root_offsets[r + 1] / sizeof(guint64); k++) {
        guint64 key = sfc_key(st->curve, st->dim, st->order, all[k]);
        if (key < start) {
          start = key;
          derived.first_ids[r] = all[k];
        }
      }
      starts[r] = start != G_MAXUINT64 ? start : next;
      next = starts[r];
    }
    derived.starts = g_bytes_new_take(starts, p * sizeof(guint64));
  }
  g_clear_pointer(&st->starts_block, g_bytes_unref);
  st->starts_block = g_bytes_ref(derived.starts);
  st->starts = g_bytes_get_data(st->starts_block, NULL);
  st->next_first_id = 0;
  for (guint r = (guint)me + 1; r < p && st->next_first_id == 0; r++)
    st->next_first_id = derived.first_ids[r];
}

/* Section 5.3: an allgather of the roots; every rank rebuilds from them
 * where each segment starts. The seed first allgathers how many roots each
 * rank will send, so that MPI_Allgatherv has its buffer sizes; lbsim's
 * allgatherv carries the lengths at the head of its own data, so that
 * first allgather would be a message nothing reads. Empty ranks take the
 * next rank's start, so that the starts ascend. With gather FALSE the
 * tree stays as it was (no segment's roots changed since it was made),
 * and only the check below runs. Returns how many roots are mine. */
static guint
update_tree(LbRank *self, SfcState *st, gboolean gather)
{
  guint p = (guint)lb_rank_count(self);
  g_autoptr(GArray) roots = private_roots(st);
  if (!gather) {
    lb_narrate(self, "no segment's private roots changed: the replicated tree stays");
  } else {
    g_clear_pointer(&st->roots, g_bytes_unref);
    lb_narrate_labels(self, "the roots of my private H-tree (%u hnode%s)", roots->len,
                      roots->len == 1 ? "" : "s");
    st->roots = lb_allgatherv_shared_offsets(self, roots->data, roots->len * sizeof(guint64),
                                             &st->root_offsets);
    segment_starts(st, p, lb_rank_id(self));
    g_clear_pointer(&st->given_roots, g_array_unref);
    st->given_roots = g_array_ref(roots);
  }
  if (gather && lb_rank_narrating(self)) {
    g_autoptr(GString) names = g_string_new(NULL);
    for (guint i = 0; i < roots->len; i++) {
      g_string_append_c(names, ' ');
      append_hnode(names, st->dim, g_array_index(roots, guint64, i));
    }
    lb_narrate(self, "private roots (%u):%s", roots->len, names->str);
    if (lb_rank_id(self) == 0) {
      g_autoptr(GString) starts = g_string_new(NULL);
      for (guint r = 0; r < p; r++)
        g_string_append_printf(starts, "%s P_%u %" G_GUINT64_FORMAT, r ? "," : "", r,
                               st->starts[r]);
      lb_narrate(self, "replicated tree: the segments start at keys%s", starts->str);
    }
  }
  /* the replicated tree agrees with the real owners: it sends every hnode
   * of mine to me. sfc_owner, a bisection, never decreases as the key
   * grows, whatever the starts: along ascending keys, the owners of the
   * first and the last are those of all. */
  int me = lb_rank_id(self);
  const SfcHnode *h = (const SfcHnode *)st->seq->data;
  guint n = st->seq->len;
  for (guint i = 1; i < n; i++)
    g_assert_cmpuint(h[i - 1].key, <, h[i].key);
  if (n > 0) {
    g_assert_cmpint(sfc_owner(st->starts, p, h[0].key), ==, me);
    g_assert_cmpint(sfc_owner(st->starts, p, h[n - 1].key), ==, me);
  }
  return roots->len;
}

/* What every rank works out from the gathered loads: the total, the
 * max_unbalance and the flows of all boundaries. Every rank holds the same
 * block and would work out the same figures, p of them each (p^2 a step):
 * the simulator works them out once per block (cached_block), as
 * segment_starts does. */
typedef struct {
  GBytes *loads;
  guint p;
  double total, unbalance;
  double *flow;         /* Unb(Pre_b) for every boundary b = 0 .. p */
  guint deepest;        /* the deepest level any rank gave (words = 2) */
  gboolean any_changed; /* some rank's private roots changed (words = 2) */
} LoadFigures;

static LoadFigures figures_cache;

/* gathered holds `words` guint64 per rank: its load, then (words = 2) the
 * deepest level of its hnodes with, above bit ROOTS_CHANGED, whether its
 * private roots changed since the replicated tree was made. */
#define ROOTS_CHANGED 32

static const LoadFigures *
load_figures(GBytes *gathered, guint p, guint words)
{
  LoadFigures *f = &figures_cache;
  const guint64 *all = g_bytes_get_data(gathered, NULL);
  if (cached_block(&f->loads, gathered) && f->p == p)
    return f;
  g_autofree guint64 *split = NULL;
  const guint64 *loads = all;
  f->deepest = 0;
  f->any_changed = FALSE;
  if (words > 1) {
    loads = split = g_new(guint64, p);
    for (guint r = 0; r < p; r++) {
      guint64 word = all[r * words + 1];
      split[r] = all[r * words];
      f->deepest = MAX(f->deepest, (guint)(word & G_MAXUINT32));
      f->any_changed |= (word >> ROOTS_CHANGED) != 0;
    }
  }
  f->p = p;
  f->total = 0;
  for (guint r = 0; r < p; r++)
    f->total += (double)loads[r];
  f->unbalance = sfc_max_unbalance(loads, p);
  f->flow = g_renew(double, f->flow, p + 1);
  sfc_flows(loads, p, f->flow);
  return f;
}

/* The deepest level of my hnodes. */
static guint
deepest_level(const SfcState *st)
{
  guint deepest = 0;
  for (guint i = 0; i < st->seq->len; i++) {
    guint64 id = g_array_index(st->seq, SfcHnode, i).id;
    deepest = MAX(deepest, (guint)(63 - __builtin_clzll(id)) / st->dim);
  }
  return deepest;
}

static gboolean
by_level(const LbParams *params)
{
  return strcmp(lb_params_get_string(params, "levels"), "each") == 0;
}

/* Whether my private roots differ from those I gave the replicated tree
 * when it was last made. */
static gboolean
roots_changed(const SfcState *st)
{
  if (st->given_roots == NULL)
    return TRUE;
  g_autoptr(GArray) now = private_roots(st);
  return now->len != st->given_roots->len ||
         memcmp(now->data, st->given_roots->data, now->len * sizeof(guint64)) != 0;
}

static void
sfc_balance(LbRank *self, gpointer state)
{
  SfcState *st = state;
  const LbParams *params = lb_rank_params(self);
  guint p = (guint)lb_rank_count(self);
  guint a = lb_rank_adaptation(self);

  lb_phase_begin(self, PHASE_KEYS);
  st->rebalanced = FALSE;
  order_segment(self, st);
  narrate_segment(self, st, "before");

  /* levels = each: the V-cycle's collections run from the deepest level
   * of any rank's hnodes, which rides with the loads (lbsim's: the seed
   * does not say how a p-node learns the hierarchy's depth); tree-update
   * = shift: so does whether a rank's private roots changed without a
   * shift (a model that prunes: the seed's grids are never removed) */
  gboolean tree_on_shift = strcmp(lb_params_get_string(params, "tree-update"), "shift") == 0;
  guint words = by_level(params) || tree_on_shift ? 2 : 1;
  st->deepest = deepest_level(st);
  gboolean changed = tree_on_shift && roots_changed(st), any_changed = TRUE;
  if (a % (guint)lb_params_get_int(params, "period") == 0) {
    lb_phase_begin(self, PHASE_DETECT);
    guint64 mine[2] = {segment_load(st), st->deepest | (guint64)changed << ROOTS_CHANGED};
    /* the gathered loads: one block that every rank holds */
    lb_narrate_labels(self, "segment loads (mine %" G_GUINT64_FORMAT "%s)", mine[0],
                      words > 1 ? ", with the deepest level" : "");
    g_autoptr(GBytes) gathered = lb_allgather_shared(self, mine, words * sizeof(guint64));
    const LoadFigures *figures = load_figures(gathered, p, words);
    st->deepest = figures->deepest;
    any_changed = figures->any_changed;
    double avg = figures->total / p;
    double threshold = lb_params_get_double(params, "threshold") * avg;
    double unbalance = figures->unbalance;
    lb_metric_record(self, METRIC_UNBALANCE_BEFORE, avg > 0 ? unbalance / avg : 0);
    lb_narrate(self, "load %" G_GUINT64_FORMAT ", average %.3f: max_unbalance %.3f %s T %.3f",
               mine[0], avg, unbalance, unbalance > threshold ? ">" : "<=", threshold);
    if (unbalance > threshold) {
      lb_metric_record(self, METRIC_TRIGGERED, 1);
      st->rebalanced = TRUE;
      lb_phase_begin(self, PHASE_SHIFT);
      guint64 moved = 0;
      guint rounds = shift(self, st, figures->flow, threshold, &moved);
      lb_metric_record(self, METRIC_ROUNDS, rounds);
      lb_metric_record(self, METRIC_HNODES_MOVED, (double)moved);
      if (rounds > 0)
        narrate_segment(self, st, "after");
      /* the seed learns nothing after a shift: each rank records its own
       * distance from the average, which the ranks combine by their
       * maximum, without a message */
      unbalance = fabs((double)segment_load(st) - avg);
    }
    lb_metric_record(self, METRIC_UNBALANCE_AFTER, avg > 0 ? unbalance / avg : 0);
  } else if (words > 1) {
    lb_phase_begin(self, PHASE_DETECT);
    double max[2] = {st->deepest, changed};
    lb_narrate_labels(self, "the deepest level and whether my roots changed");
    lb_allreduce_max_double(self, max, 2);
    st->deepest = (guint)max[0];
    any_changed = max[1] > 0;
  }

  /* section 5.3: "If the load is to be rebalanced, the elements are
   * shifted ... Then, the processes exchange the roots of their new
   * private H-Trees to update the replicated H-Tree." */
  lb_phase_begin(self, PHASE_TREE);
  gboolean gather = !tree_on_shift || st->rebalanced || any_changed || st->roots == NULL;
  lb_metric_record(self, METRIC_ROOTS, update_tree(self, st, gather));

  /* my units in the curve's order: the model keeps their order when it
   * updates them, so the next step's sort has little or nothing to do */
  GArray *units = lb_rank_units(self);
  g_array_set_size(units, st->seq->len);
  for (guint i = 0; i < st->seq->len; i++) {
    const SfcHnode *h = &g_array_index(st->seq, SfcHnode, i);
    g_array_index(units, LbUnit, i) = (LbUnit){h->id, h->load};
  }
}

static void
sfc_collect(LbRank *self, gpointer state)
{
  SfcState *st = state;
  const LbParams *params = lb_rank_params(self);
  const char *how = lb_params_get_string(params, "collect");
  SfcStrategy strategy = strcmp(how, "request-answer") == 0     ? SFC_REQUEST_ANSWER
                         : strcmp(how, "fault-prevention") == 0 ? SFC_FAULT_PREVENTION
                         : strcmp(how, "informed") == 0         ? SFC_INFORMED
                         : strcmp(how, "informed-needs") == 0   ? SFC_INFORMED_NEEDS
                                                                : SFC_NO_COLLECTION;
  const SfcHnode *h = (const SfcHnode *)st->seq->data;
  SfcView view = {
      .curve = st->curve,
      .dim = st->dim,
      .order = st->order,
      .p = (guint)lb_rank_count(self),
      .me = lb_rank_id(self),
      .seq = st->seq,
      .starts = st->starts,
      /* my last hnode has sub-spaces iff the next segment starts inside it */
      .last_is_leaf = st->seq->len == 0 || st->next_first_id == 0 ||
                      !sfc_region_holds(st->dim, h[st->seq->len - 1].id, st->next_first_id),
      .merge = (guint)lb_params_get_int(params, "merge"),
      .ra_batch = (guint)lb_params_get_int(params, "ra-batch"),
      .operators = (guint)lb_params_get_int(params, "operators"),
      .by_level = by_level(params),
      .sync_messages = strcmp(lb_params_get_string(params, "sync"), "messages") == 0,
      .deepest = st->deepest,
      .flops_per_load = lb_rank_work(self)->flops_per_unit,
      .bytes_per_hnode = lb_rank_work(self)->bytes_per_unit,
      .informed = st->informed,
      .rebalanced = st->rebalanced,
  };
  SfcCollected got;
  sfc_collect_run(self, &view, strategy, &got);
  lb_metric_record(self, METRIC_COLLECT_CONTROL, (double)got.control_messages);
  lb_metric_record(self, METRIC_COLLECT_DATA, (double)got.data_messages);
  lb_metric_record(self, METRIC_COLLECT_NEEDED, (double)got.needed);
  lb_metric_record(self, METRIC_COLLECT_RECEIVED, (double)got.received);
  lb_metric_record(self, METRIC_COLLECT_USELESS, (double)got.useless);
  lb_metric_record(self, METRIC_COLLECT_ANNOUNCED, (double)got.announced);
  lb_metric_record(self, METRIC_COLLECT_PHASES, (double)got.phases);
  lb_metric_record(self, METRIC_COLLECT_SYNC, (double)got.sync_messages);
}

/* Explain's tables are for small trees. */
#define EXPLAIN_MAX_HNODES 256
#define EXPLAIN_MAX_MAP 32

/* The leaves of a 2D tree over its finest grid, each cell showing the
 * number of its leaf in the curve's order; y upwards. */
static void
explain_map(const SfcHnode *seq, gsize n, const gboolean *leaf, guint order, GString *out)
{
  guint side = 1u << order;
  g_autofree guint *cell = g_new0(guint, (gsize)side * side);
  guint leaves = 0;
  for (gsize i = 0; i < n; i++) {
    if (!leaf[i])
      continue;
    guint64 c[3];
    guint level = lb_htree_decode(seq[i].id, 2, c);
    guint span = side >> level;
    for (guint y = (guint)c[1] * span; y < ((guint)c[1] + 1) * span; y++)
      for (guint x = (guint)c[0] * span; x < ((guint)c[0] + 1) * span; x++)
        cell[(gsize)y * side + x] = leaves;
    leaves++;
  }
  int width = leaves > 100 ? 4 : leaves > 10 ? 3 : 2;
  g_string_append_printf(out,
                         "    its %u leaves, numbered in the curve's order, over the %u x %u "
                         "finest cells (y upwards):\n",
                         leaves, side, side);
  for (guint y = side; y-- > 0;) {
    g_string_append(out, "    ");
    for (guint x = 0; x < side; x++)
      g_string_append_printf(out, "%*u", width, cell[(gsize)y * side + x]);
    g_string_append_c(out, '\n');
  }
}

/* The curve's sequence of every adaptation step's tree as the run met it
 * (keys, hnodes, leaves), the blocking of step 0 and, in 2D, where the
 * leaves lie in the curve's order. */
static void
sfc_explain(const LbExplainCase *c, GString *out)
{
  const LbWork *work = c->work;
  LbCurveKind curve = curve_of(c->params);
  guint dim = work->dim, order = max_level_of(work);
  g_string_append_printf(
      out,
      "\nThe %s curve's sequence of hnodes at every adaptation step, as #position: key hnode.\n"
      "The key is the curve position of the hnode's first cell in the finest grid (%u per axis)\n"
      "times 32, plus the hnode's level, so that a parent comes just before its sub-spaces;\n"
      "Ll(x,y) is the square at (x,y) of level l's grid, * a leaf.\n",
      lb_curve_name(curve), 1u << order);
  for (guint a = 0; a < c->nadaptations; a++) {
    g_autoptr(GArray) none = g_array_new(FALSE, FALSE, sizeof(LbUnit));
    lb_work_update(work, 0, none, a); /* builds the tree of step a */
    const LbHtree *tree = lb_htree_of(work);
    gsize n = lb_htree_size(tree);
    g_autofree SfcHnode *seq = g_new(SfcHnode, MAX(n, 1));
    guint64 total = 0;
    for (gsize at = 0; at < n; at++) {
      guint64 id = lb_htree_id_at(tree, at);
      seq[at] = (SfcHnode){sfc_key(curve, dim, order, id), id, lb_htree_load(work, tree, at)};
      total += seq[at].load;
    }
    sort_hnodes(seq, n);
    g_string_append_printf(out, "  step %u: %zu hnodes, load %" G_GUINT64_FORMAT "\n", a, n, total);
    if (n > EXPLAIN_MAX_HNODES)
      continue;
    g_autofree gboolean *leaf = g_new(gboolean, MAX(n, 1));
    for (gsize i = 0; i < n; i++) {
      gsize at = 0;
      leaf[i] = lb_htree_find(tree, seq[i].id, &at) && lb_htree_is_leaf(tree, at);
      g_autoptr(GString) name = g_string_new(NULL);
      append_hnode(name, dim, seq[i].id);
      if (leaf[i])
        g_string_append_c(name, '*');
      gboolean last = i % 4 == 3 || i + 1 == n;
      g_string_append_printf(out, "%s#%-3zu %5" G_GUINT64_FORMAT " %-*s", i % 4 ? "" : "    ", i,
                             seq[i].key, last ? 0 : 11, name->str);
      if (last)
        g_string_append_c(out, '\n');
    }
    if (a == 0) {
      g_autofree guint64 *loads = g_new(guint64, MAX(n, 1));
      for (gsize i = 0; i < n; i++)
        loads[i] = seq[i].load;
      g_autofree gsize *cuts = g_new(gsize, c->ranks + 1);
      sfc_block(loads, n, c->ranks, cuts);
      g_string_append(out, "    the blocking strategy's segments:");
      for (guint r = 0; r < c->ranks; r++) {
        if (cuts[r] == cuts[r + 1])
          g_string_append_printf(out, "%s P_%u none", r ? "," : "", r);
        else
          g_string_append_printf(out, "%s P_%u #%zu-#%zu", r ? "," : "", r, cuts[r],
                                 cuts[r + 1] - 1);
      }
      g_string_append_c(out, '\n');
    }
    if (dim == 2 && (1u << order) <= EXPLAIN_MAX_MAP)
      explain_map(seq, n, leaf, order, out);
  }
}

static gboolean
sfc_check(guint ranks, const LbWork *work, const LbParams *params, GError **error)
{
  return TRUE;
}

static const char *
sfc_curve(const LbParams *params)
{
  return lb_params_get_string(params, "curve");
}

const LbBalancer lb_sfc_shift_balancer = {
    .name = "sfc-shift",
    .summary = "a space-filling curve's sequence of hnodes cut into segments, shifted between "
               "neighbours in the rank order when max_unbalance exceeds T",
    .cite = "F. Baiardi, S. Chiti, P. Mori, L. Ricci, \"Integrating load balancing and locality "
            "in the parallelization of irregular problems\", Future Generation Computer Systems "
            "17, 2001",
    .params = sfc_params,
    .phases = sfc_phases,
    .metrics = sfc_metrics,
    .needs = LB_CAP_TREE,
    .curve = sfc_curve,
    .check = sfc_check,
    .state_new = sfc_new,
    .state_free = sfc_free,
    .balance = sfc_balance,
    .initial_units = sfc_initial_units,
    .describe_start = sfc_describe_start,
    .order_key = sfc_order_key,
    .order_keys = sfc_order_keys,
    .collect = sfc_collect,
    .variant_key = "collect",
    .explain = sfc_explain,
};
