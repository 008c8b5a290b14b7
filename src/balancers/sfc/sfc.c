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
#include <stdlib.h>
#include <string.h>
#include <xbt/log.h>

#include "balancers/registry.h"
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
    {"ra-batch", LB_PARAM_INT, "1", 1, 1000000, NULL,
     "requests per request message, and hnodes per answer (1: a request and an answer per "
     "remote hnode, as the seed describes request/answer)"},
    {NULL},
};

typedef struct {
  LbCurveKind curve;
  guint dim, order;
  GArray *seq;   /* SfcHnode, ascending keys: my segment */
  GBytes *roots; /* the replicated H-tree: every rank's private roots (ids) */
  gsize *root_offsets;
  guint64 *starts;       /* the first key of every rank's segment (an empty rank: the next's) */
  guint64 next_first_id; /* the first hnode of the next non-empty segment, or 0 */
  SfcInformed *informed; /* what informed fault prevention announced and heard */
  gboolean rebalanced;   /* the shift ran this step */
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

static guint64
sfc_order_key(const LbWork *work, const LbParams *params, guint64 id)
{
  return sfc_key(curve_of(params), work->dim, max_level_of(work), id);
}

static int
compare_hnodes(gconstpointer a, gconstpointer b)
{
  guint64 x = ((const SfcHnode *)a)->key, y = ((const SfcHnode *)b)->key;
  return x < y ? -1 : x > y;
}

static int
compare_units(gconstpointer a, gconstpointer b)
{
  guint64 x = ((const LbUnit *)a)->id, y = ((const LbUnit *)b)->id;
  return x < y ? -1 : x > y;
}

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
  g_array_sort(hnodes, compare_hnodes);
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
  g_array_sort(units, compare_units);
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
  st->starts = g_new(guint64, lb_rank_count(self));
  st->root_offsets = g_new0(gsize, lb_rank_count(self) + 1);
  st->informed = sfc_informed_new();
  return st;
}

static void
sfc_free(gpointer state)
{
  SfcState *st = state;
  g_array_unref(st->seq);
  g_clear_pointer(&st->roots, g_bytes_unref);
  g_free(st->root_offsets);
  g_free(st->starts);
  sfc_informed_free(st->informed);
  g_free(st);
}

/* My units as a segment of the curve's sequence. */
static void
order_segment(LbRank *self, SfcState *st)
{
  GArray *units = lb_rank_units(self);
  g_array_set_size(st->seq, units->len);
  for (guint i = 0; i < units->len; i++) {
    const LbUnit *u = &g_array_index(units, LbUnit, i);
    g_array_index(st->seq, SfcHnode, i) =
        (SfcHnode){sfc_key(st->curve, st->dim, st->order, u->id), u->id, u->load};
  }
  g_array_sort(st->seq, compare_hnodes);
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
append_hnode_range(GString *out, guint dim, const SfcHnode *h, guint n)
{
  append_hnode(out, dim, h[0].id);
  if (n > 1) {
    g_string_append(out, " .. ");
    append_hnode(out, dim, h[n - 1].id);
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
    append_hnode_range(s, st->dim, h, n);
  }
  lb_narrate(self, "step %u, segment %s: %s", lb_rank_adaptation(self), when, s->str);
}

#define KEY_UNKNOWN G_MAXUINT64

#define TAG_SHIFT(round) (0x10000 + (int)(round))

static void
send_piece(LbRank *self, SfcState *st, int dst, guint round, guint from, guint n, gboolean open)
{
  g_autofree LbUnit *units = g_new(LbUnit, MAX(n, 1));
  for (guint i = 0; i < n; i++) {
    const SfcHnode *h = &g_array_index(st->seq, SfcHnode, from + i);
    units[i] = (LbUnit){h->id, h->load};
  }
  lb_send_units_word(self, dst, TAG_SHIFT(round), round, units, n, NULL, open);
}

/* Receives a piece into the front or the end of my segment; returns
 * whether the sender's end is still open. */
static gboolean
recv_piece(LbRank *self, SfcState *st, int src, guint round, gboolean front)
{
  g_autoptr(GArray) got = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  guint32 open = 0;
  lb_recv_units_word(self, src, TAG_SHIFT(round), got, NULL, &open);
  g_autoptr(GArray) piece = g_array_sized_new(FALSE, FALSE, sizeof(SfcHnode), got->len);
  /* keys are worked out once the shift is over: most hnodes that pass
   * through a rank leave it again in a later round */
  for (guint i = 0; i < got->len; i++) {
    const LbUnit *u = &g_array_index(got, LbUnit, i);
    SfcHnode h = {KEY_UNKNOWN, u->id, u->load};
    g_array_append_val(piece, h);
  }
  if (piece->len > 0 && lb_rank_narrating(self)) {
    g_autoptr(GString) names = g_string_new(NULL);
    append_hnode_range(names, st->dim, (const SfcHnode *)piece->data, piece->len);
    lb_narrate(self, "round %u: %u hnode%s from P_%d: %s", round, piece->len,
               piece->len == 1 ? "" : "s", src, names->str);
  }
  if (front)
    g_array_prepend_vals(st->seq, piece->data, piece->len);
  else
    g_array_append_vals(st->seq, piece->data, piece->len);
  return open != 0;
}

/* The shift, as sfc_shift simulates it, with messages: each round every
 * open sender end sends its piece (empty when it waits for inflow) and
 * says whether it stays open; every open receiver end takes one. Returns
 * the rounds this rank took part in. */
static guint
shift(LbRank *self, SfcState *st, const guint64 *loads, double threshold, guint64 *moved)
{
  int me = lb_rank_id(self), p = lb_rank_count(self);
  g_autofree double *flow = g_new(double, p + 1);
  sfc_flows(loads, (guint)p, flow);
  SfcEnd left = {0, FALSE}, right = {0, FALSE};
  gboolean in_left = FALSE, in_right = FALSE; /* a neighbour still sends to me */
  if (me > 0 && fabs(flow[me]) > threshold) {
    if (flow[me] < 0)
      left = (SfcEnd){-flow[me], TRUE};
    else
      in_left = TRUE;
  }
  if (me + 1 < p && fabs(flow[me + 1]) > threshold) {
    if (flow[me + 1] > 0)
      right = (SfcEnd){flow[me + 1], TRUE};
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
    lb_narrate(self, "Unb(Pre) %.3f, Unb(Suc) %.3f (T %.3f): %s", me > 0 ? flow[me] : 0.0,
               me + 1 < p ? -flow[me + 1] : 0.0, threshold,
               what->len ? what->str : "nothing to do");
  }
  guint round = 0;
  *moved = 0;
  g_autoptr(GArray) seq_loads = g_array_new(FALSE, FALSE, sizeof(guint64));
  while (left.open || right.open || in_left || in_right) {
    if (round < 256) /* the core counts rounds up to 256; the metric counts them all */
      lb_phase_round(self, round);
    guint n = st->seq->len;
    g_array_set_size(seq_loads, n);
    for (guint i = 0; i < n; i++)
      g_array_index(seq_loads, guint64, i) = g_array_index(st->seq, SfcHnode, i).load;
    gboolean send_left = left.open, send_right = right.open;
    double owed_left = left.amount, owed_right = right.amount;
    gsize n_left = 0, n_right = 0;
    sfc_round((const guint64 *)seq_loads->data, n, &left, &right, in_left, in_right, &n_left,
              &n_right);
    if (send_left)
      send_piece(self, st, me - 1, round, 0, (guint)n_left, left.open);
    if (send_right)
      send_piece(self, st, me + 1, round, n - (guint)n_right, (guint)n_right, right.open);
    if (n_left + n_right > 0 && lb_rank_narrating(self)) {
      g_autoptr(GString) s = g_string_new(NULL);
      const SfcHnode *h = (const SfcHnode *)st->seq->data;
      const guint64 *l = (const guint64 *)seq_loads->data;
      if (n_left > 0) {
        guint64 load = 0;
        for (gsize i = 0; i < n_left; i++)
          load += l[i];
        g_string_append_printf(
            s, "%zu hnode%s (load %" G_GUINT64_FORMAT " of %.3f to send%s) to P_%d: ", n_left,
            n_left == 1 ? "" : "s", load, owed_left, left.open ? ", all I had: stays open" : "",
            me - 1);
        append_hnode_range(s, st->dim, h, (guint)n_left);
      }
      if (n_right > 0) {
        guint64 load = 0;
        for (gsize i = n - n_right; i < n; i++)
          load += l[i];
        g_string_append_printf(
            s, "%s%zu hnode%s (load %" G_GUINT64_FORMAT " of %.3f to send%s) to P_%d: ",
            n_left > 0 ? "; " : "", n_right, n_right == 1 ? "" : "s", load, owed_right,
            right.open ? ", all I had: stays open" : "", me + 1);
        append_hnode_range(s, st->dim, h + n - n_right, (guint)n_right);
      }
      lb_narrate(self, "round %u: %s", round, s->str);
    }
    *moved += n_left + n_right;
    g_array_remove_range(st->seq, n - (guint)n_right, (guint)n_right);
    g_array_remove_range(st->seq, 0, (guint)n_left);
    if (in_left)
      in_left = recv_piece(self, st, me - 1, round, TRUE);
    if (in_right)
      in_right = recv_piece(self, st, me + 1, round, FALSE);
    round++;
  }
  lb_wait_sends(self);
  if (round > 0 && lb_rank_narrating(self))
    lb_narrate(self,
               "shift over after %u round%s: I sent %" G_GUINT64_FORMAT " hnode%s on (a hop each)",
               round, round == 1 ? "" : "s", *moved, *moved == 1 ? "" : "s");
  for (guint i = 0; i < st->seq->len; i++) {
    SfcHnode *h = &g_array_index(st->seq, SfcHnode, i);
    if (h->key == KEY_UNKNOWN)
      h->key = sfc_key(st->curve, st->dim, st->order, h->id);
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
  g_autoptr(GArray) holders = g_array_new(FALSE, FALSE, sizeof(guint64));
  for (guint i = 0; i < st->seq->len; i++) {
    guint64 id = g_array_index(st->seq, SfcHnode, i).id;
    while (holders->len > 0 &&
           !sfc_region_holds(st->dim, g_array_index(holders, guint64, holders->len - 1), id))
      g_array_set_size(holders, holders->len - 1);
    guint64 parent = lb_htree_parent(id, st->dim);
    if (parent == 0 || holders->len == 0 ||
        g_array_index(holders, guint64, holders->len - 1) != parent)
      g_array_append_val(roots, id);
    g_array_append_val(holders, id);
  }
  return roots;
}

/* Where every segment starts, from the replicated tree's roots. Every rank
 * holds the same roots (one shared block) and derives the same starts: the
 * simulator works them out once per block. The cache keeps a reference to
 * the block it read, so that no later block can take its address. */
static struct {
  GBytes *roots;
  guint p;
  guint64 *starts, *first_ids; /* first_ids: the root at each start, 0 for an empty rank */
} derived;

static void
segment_starts(SfcState *st, guint p, int me)
{
  gsize size = 0;
  const guint64 *all = g_bytes_get_data(st->roots, &size);
  if (derived.roots == NULL || derived.p != p ||
      g_bytes_get_data(derived.roots, NULL) != (gconstpointer)all) {
    g_clear_pointer(&derived.roots, g_bytes_unref);
    g_free(derived.starts);
    g_free(derived.first_ids);
    derived.roots = g_bytes_ref(st->roots);
    derived.p = p;
    derived.starts = g_new(guint64, p);
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
      derived.starts[r] = start != G_MAXUINT64 ? start : next;
      next = derived.starts[r];
    }
  }
  memcpy(st->starts, derived.starts, p * sizeof(guint64));
  st->next_first_id = 0;
  for (guint r = (guint)me + 1; r < p && st->next_first_id == 0; r++)
    st->next_first_id = derived.first_ids[r];
}

/* Section 5.3: an allgather of the roots; every rank rebuilds from them
 * where each segment starts. The seed first allgathers how many roots each
 * rank will send, so that MPI_Allgatherv has its buffer sizes; lbsim's
 * allgatherv carries the lengths at the head of its own data, so that
 * first allgather would be a message nothing reads. Empty ranks take the
 * next rank's start, so that the starts ascend. Returns how many roots are
 * mine. */
static guint
update_tree(LbRank *self, SfcState *st)
{
  guint p = (guint)lb_rank_count(self);
  g_autoptr(GArray) roots = private_roots(st);
  g_clear_pointer(&st->roots, g_bytes_unref);
  st->roots =
      lb_allgatherv_shared(self, roots->data, roots->len * sizeof(guint64), st->root_offsets);
  segment_starts(st, p, lb_rank_id(self));
  if (lb_rank_narrating(self)) {
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
   * of mine to me */
  int me = lb_rank_id(self);
  for (guint i = 0; i < st->seq->len; i++) {
    int owner = sfc_owner(st->starts, p, g_array_index(st->seq, SfcHnode, i).key);
    g_assert_cmpint(owner, ==, me);
  }
  return roots->len;
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

  if (a % (guint)lb_params_get_int(params, "period") == 0) {
    lb_phase_begin(self, PHASE_DETECT);
    guint64 mine = segment_load(st);
    g_autofree guint64 *loads = g_new(guint64, p);
    lb_allgather(self, &mine, sizeof mine, loads);
    double total = 0;
    for (guint r = 0; r < p; r++)
      total += (double)loads[r];
    double avg = total / p;
    double threshold = lb_params_get_double(params, "threshold") * avg;
    double unbalance = sfc_max_unbalance(loads, p);
    lb_metric_record(self, METRIC_UNBALANCE_BEFORE, avg > 0 ? unbalance / avg : 0);
    lb_narrate(self, "load %" G_GUINT64_FORMAT ", average %.3f: max_unbalance %.3f %s T %.3f", mine,
               avg, unbalance, unbalance > threshold ? ">" : "<=", threshold);
    if (unbalance > threshold) {
      lb_metric_record(self, METRIC_TRIGGERED, 1);
      st->rebalanced = TRUE;
      lb_phase_begin(self, PHASE_SHIFT);
      guint64 moved = 0;
      guint rounds = shift(self, st, loads, threshold, &moved);
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
  }

  lb_phase_begin(self, PHASE_TREE);
  lb_metric_record(self, METRIC_ROOTS, update_tree(self, st));

  GArray *units = lb_rank_units(self);
  g_array_set_size(units, st->seq->len);
  for (guint i = 0; i < st->seq->len; i++) {
    const SfcHnode *h = &g_array_index(st->seq, SfcHnode, i);
    g_array_index(units, LbUnit, i) = (LbUnit){h->id, h->load};
  }
  g_array_sort(units, compare_units);
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
      .ids = lb_rank_units(self),
      .starts = st->starts,
      /* my last hnode has sub-spaces iff the next segment starts inside it */
      .last_is_leaf = st->seq->len == 0 || st->next_first_id == 0 ||
                      !sfc_region_holds(st->dim, h[st->seq->len - 1].id, st->next_first_id),
      .merge = (guint)lb_params_get_int(params, "merge"),
      .ra_batch = (guint)lb_params_get_int(params, "ra-batch"),
      .operators = (guint)lb_params_get_int(params, "operators"),
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
    qsort(seq, n, sizeof(SfcHnode), compare_hnodes);
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
    .collect = sfc_collect,
    .explain = sfc_explain,
};
