/* MLB over successive axes (D. J. Quinlan and M. Berndt, "MLB: Multilevel
 * Load Balancing for Structured Grid Applications", 1997, section 5): "the
 * one dimensional algorithm applied to the coordinate axis successively".
 *
 * On a PX x PY (x PZ) processor grid of powers of two, ranks numbered with
 * the last axis fastest, so that a strip (the ranks that share an x
 * coordinate) is a run of PY consecutive ranks: a sub-hypercube. Every
 * adaptation step, for each axis in turn (x, then y inside each strip, then
 * z inside each column of a strip):
 *   sums      each rank adds its cells' loads per slice across the axis
 *             (the column sums for x) and the ranks of each strip reduce
 *             them to the strip's leader, along hypercube edges;
 *   MLB       the leaders (one per strip, themselves a sub-hypercube) run
 *             the four phases of 1D MLB on the slices: accumulate, desired,
 *             amounts, migrate, where phase 4 moves the slices' ids and
 *             loads along the schedule, and each leader ends holding its
 *             strip's new, contiguous run of slices;
 *   cuts      the leaders allgather how many slices each holds (the new
 *             cuts) and each broadcasts them into its strip;
 *   cells     the cells move straight from their old box to their new one
 *             (one message per pair of boxes that meet): a strip keeps the
 *             cuts it had along the next axes, so the moved cells land in
 *             "a distribution in every strip that only shows straight
 *             horizontal cuts", as the paper asks, ready for the next axis.
 * Then the boxes are allgathered and each rank builds its neighbours with
 * BUILD_UNDIRECTED_TDG (in 3D from the boxes that touch its own): the
 * partition is of the same family as Load Balancing by Dimension's. */
#include <string.h>
#include <xbt/log.h>

#include "balancers/cuts/cuts.h"
#include "balancers/mlb/mlb.h"
#include "balancers/registry.h"
#include "lbsim/model.h"

XBT_LOG_EXTERNAL_CATEGORY(lb);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(lb_mlb_nd, lb, "MLB over successive axes");

enum {
  PHASE_SUMS,
  PHASE_ACCUMULATE,
  PHASE_DESIRED,
  PHASE_AMOUNTS,
  PHASE_MIGRATE_X,
  PHASE_MIGRATE_Y,
  PHASE_MIGRATE_Z,
  PHASE_CUTS,
  PHASE_CELLS,
  PHASE_GRAPH,
};

static const char *const mlb_nd_phases[] = {"sums",      "accumulate", "desired",   "amounts",
                                            "migrate-x", "migrate-y",  "migrate-z", "cuts",
                                            "cells",     "graph",      NULL};

enum { METRIC_STEPS_X, METRIC_STEPS_Y, METRIC_STEPS_Z, METRIC_IMBALANCE_X, METRIC_NEIGHBOURS };

static const LbMetricSpec mlb_nd_metrics[] = {
    {"schedule-steps-x", "rounds", LB_AGGREGATE_MAX, LB_COMBINE_MAX, "migrate-x",
     "communication steps of the schedule that moves the column slices between strips (at most "
     "log2 PX)"},
    {"schedule-steps-y", "rounds", LB_AGGREGATE_MAX, LB_COMBINE_MAX, "migrate-y",
     "communication steps of the schedules inside the strips (at most log2 PY)"},
    {"schedule-steps-z", "rounds", LB_AGGREGATE_MAX, LB_COMBINE_MAX, "migrate-z",
     "communication steps of the schedules inside the columns of the strips (3D; at most log2 "
     "PZ)"},
    {"imbalance-x", "ratio", LB_AGGREGATE_MAX, LB_COMBINE_MAX, NULL,
     "max / mean - 1 of the strips' loads after the x axis: what the first MLB left for the "
     "others"},
    {"neighbours", "", LB_AGGREGATE_MAX, LB_COMBINE_MAX, NULL,
     "the most neighbours any rank has in the task dependence graph"},
    {NULL},
};

/* Tags: MLB's own under each axis' base, then the sums, the cuts and the
 * cells of each axis. */
#define TAG_MLB(axis) ((int)((axis) + 1) << 20)
#define TAG_SUMS(axis, edge) ((int)((8 + (axis)) << 20 | (edge)))
#define TAG_CUTS(axis, edge) ((int)((12 + (axis)) << 20 | (edge)))
#define TAG_CELLS(axis) ((int)((16 + (axis)) << 20))

static gboolean
power_of_two(guint64 n)
{
  return n > 0 && (n & (n - 1)) == 0;
}

/* The processor grid along every axis is a power of two. */
static gboolean
mlb_nd_check_work(const LbWork *work, GError **error)
{
  for (guint a = 0; a < work->dim; a++)
    if (!power_of_two(work->procs[a])) {
      g_autoptr(GString) grid = g_string_new(NULL);
      for (guint b = 0; b < work->dim; b++)
        g_string_append_printf(grid, "%s%" G_GUINT64_FORMAT, b ? "x" : "", work->procs[b]);
      g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID,
                  "[workload] procs: mlb-nd runs 1D MLB on hypercubes of strips, so every "
                  "axis of the processor grid must be a power of two; %s has %" G_GUINT64_FORMAT
                  " along %c",
                  grid->str, work->procs[a], "xyz"[a]);
      return FALSE;
    }
  return TRUE;
}

/* Sums the slices' loads into the block's leader along the block's
 * hypercube edges (a binomial tree of nodes: at edge e the nodes whose low
 * e bits are 0 and bit e is 1 send what they have gathered). */
static void
reduce_to_leader(LbRank *self, const MlbBlock *b, guint axis, guint64 *sums, guint n)
{
  guint me = mlb_block_node(b, (guint)lb_rank_id(self));
  g_autofree guint64 *in = g_new(guint64, MAX(n, 1));
  for (guint e = 0; e < b->k; e++) {
    if ((me & ((1u << e) - 1)) != 0)
      return;
    guint peer = mlb_block_rank(b, me ^ (1u << e));
    if (me & (1u << e)) {
      lb_phase_round(self, e);
      lb_narrate_label(self, "%u column sums along %c, gathered over %u rank%s", n, "xyz"[axis],
                       1u << e, e == 0 ? "" : "s");
      lb_send(self, (int)peer, TAG_SUMS(axis, e), sums, n * sizeof(guint64),
              8.0 + n * (double)sizeof(guint64));
      lb_wait_sends(self);
      return;
    }
    lb_phase_round(self, e);
    g_autoptr(LbMsg) msg = lb_recv(self, (int)peer, TAG_SUMS(axis, e));
    g_assert_cmpuint(msg->len, ==, n * sizeof(guint64));
    memcpy(in, msg->data, msg->len);
    for (guint i = 0; i < n; i++)
      sums[i] += in[i];
  }
}

/* The leader's cuts reach every rank of its block, down the same tree. */
static void
broadcast_from_leader(LbRank *self, const MlbBlock *b, guint axis, guint64 *cuts, guint n,
                      guint round0)
{
  guint me = mlb_block_node(b, (guint)lb_rank_id(self));
  /* the reduction's tree backwards: I hear along the edge of my lowest
   * set bit, and pass on along the edges below it */
  guint e = b->k;
  if (me != 0) {
    e = (guint)__builtin_ctz(me);
    lb_phase_round(self, round0 + b->k - 1 - e);
    g_autoptr(LbMsg) msg = lb_recv(self, (int)mlb_block_rank(b, me ^ (1u << e)), TAG_CUTS(axis, e));
    g_assert_cmpuint(msg->len, ==, n * sizeof(guint64));
    memcpy(cuts, msg->data, msg->len);
  }
  for (guint f = e; f-- > 0;) {
    lb_phase_round(self, round0 + b->k - 1 - f);
    lb_narrate_label(self, "the leader's %u cuts along %c", n, "xyz"[axis]);
    lb_send(self, (int)mlb_block_rank(b, me | (1u << f)), TAG_CUTS(axis, f), cuts,
            n * sizeof(guint64), 8.0 + n * (double)sizeof(guint64));
  }
  lb_wait_sends(self);
}

/* Phase 4 of the leaders moves slices: their ids and loads (16 bytes each;
 * with the midpoint rule also their positions). */
static void
send_slices(LbRank *self, int dst, int tag, guint round, const MlbItem *items, guint n,
            gboolean positions, const MlbLoan *loan)
{
  (void)round;
  gsize extra = loan != NULL ? sizeof *loan : 0, len = n * sizeof(MlbItem);
  g_autofree guint8 *data = g_malloc(len + extra + 1);
  if (len > 0)
    memcpy(data, items, len);
  if (extra > 0)
    memcpy(data + len, loan, extra); /* the loan after the slices */
  lb_send(self, dst, tag, data, len + extra, 8.0 + n * (positions ? 24.0 : 16.0) + (double)extra);
}

static void
recv_slices(LbRank *self, int src, int tag, GArray *into, gboolean positions, MlbLoan *loan)
{
  (void)positions;
  g_autoptr(LbMsg) msg = lb_recv(self, src, tag);
  gsize extra = loan != NULL ? sizeof *loan : 0;
  g_assert_cmpuint(msg->len, >=, extra);
  g_assert_cmpuint((msg->len - extra) % sizeof(MlbItem), ==, 0);
  g_array_append_vals(into, msg->data, (guint)((msg->len - extra) / sizeof(MlbItem)));
  if (extra > 0)
    memcpy(loan, msg->data + msg->len - extra, extra);
}

static gpointer
mlb_nd_new(LbRank *self)
{
  return lb_cuts_new(self, TRUE);
}

/* One axis (level l of the cuts) inside my piece of that level. */
static void
balance_axis(LbRank *self, LbCuts *s, guint l, const MlbGroup *options)
{
  GArray *units = lb_rank_units(self);
  guint me = (guint)s->me;
  /* my piece of this level: the ranks that share my coordinates along the
   * axes before it, a run of n consecutive ranks */
  guint n = 1;
  for (guint k = l; k < s->dim; k++)
    n *= (guint)s->parts[k];
  guint first = me - me % n;
  guint parts = (guint)s->parts[l];
  guint t = (guint)lb_cuts_coord(s, me, l);
  MlbBlock block = mlb_block_of(first + t * (n / parts), n / parts);
  gsize index = lb_cuts_piece(s, me, l);
  guint64 *row = lb_cuts_row(s, l, index);
  guint64 lo = row[t], width = row[t + 1] - row[t];

  /* sums: my cells' loads per slice across the axis; the cells are my
   * box's, the first axis fastest */
  static const char *const axis_names[] = {"x axis", "y axis", "z axis"};
  lb_narrate_stage(self, l + 1, axis_names[l]); /* the axes in turn */
  lb_phase_begin(self, PHASE_SUMS);
  lb_execute(self, lb_params_get_double(lb_rank_params(self), "sum-flops") * units->len);
  g_autofree guint64 *sums = g_new0(guint64, MAX(width, 1));
  lb_cuts_add_profile(s, units, l, lo, sums);
  reduce_to_leader(self, &block, l, sums, (guint)width);

  gsize row_bytes = sizeof(guint64) * (parts + 1);
  g_autofree guint64 *before = g_memdup2(row, row_bytes);
  g_autofree guint64 *cuts = g_new(guint64, parts + 1);
  gboolean leader = mlb_block_node(&block, me) == 0;
  if (leader && lb_rank_narrating(self)) {
    /* what this strip brings to 1D MLB: its slices' loads */
    g_autofree char *piece = lb_cuts_describe_piece(s, l);
    g_autoptr(GString) loads = g_string_new(NULL);
    guint64 total = 0;
    for (guint64 i = 0; i < width; i++) {
      g_string_append_printf(loads, " %" G_GUINT64_FORMAT, sums[i]);
      total += sums[i];
    }
    guint last = block.first + (1u << block.k) - 1;
    g_autofree char *who = last > block.first
                               ? g_strdup_printf("ranks %u .. %u, I lead", block.first, last)
                               : g_strdup_printf("rank %u", block.first);
    lb_narrate(self,
               "axis %c, %s: %s %u of %u (%s) holds slices [%" G_GUINT64_FORMAT
               ", %" G_GUINT64_FORMAT "), their loads summed across it%s (total %" G_GUINT64_FORMAT
               ")",
               "xyz"[l], piece, l == 0 ? "strip" : "block", t, parts, who, lo, lo + width,
               loads->str, total);
  }
  if (leader) {
    /* the leaders of my piece, one per strip, in strip order */
    g_autofree int *leaders = g_new(int, parts);
    for (guint i = 0; i < parts; i++) {
      MlbBlock other = mlb_block_of(first + i * (n / parts), n / parts);
      leaders[i] = (int)mlb_block_rank(&other, 0);
    }
    MlbGroup g = *options;
    g.d = mlb_log2(parts);
    g.r = t;
    g.members = leaders;
    g.tag_base = TAG_MLB(l);
    g.phases[3] = PHASE_MIGRATE_X + l;
    lb_phase_begin(self, PHASE_ACCUMULATE);
    GArray *items = g_array_sized_new(FALSE, FALSE, sizeof(MlbItem), (guint)width);
    for (guint64 i = 0; i < width; i++) {
      MlbItem item = {lo + i, sums[i], 0};
      g_array_append_val(items, item);
    }
    items = mlb_group_run(self, &g, items);

    /* cuts: how many slices each strip now holds, and their load */
    lb_phase_begin(self, PHASE_CUTS);
    guint64 held[2] = {items->len, 0};
    for (guint i = 0; i < items->len; i++)
      held[1] += g_array_index(items, MlbItem, i).load;
    g_autofree guint64 *strips = g_new(guint64, 2 * parts);
    guint id = l == 0 ? 0 : 1 + (l == 1 ? 0 : (guint)s->parts[0]) + (guint)index;
    g_autoptr(LbGroup) group = lb_group_new(self, id, leaders, parts);
    lb_narrate_labels(self,
                      "the slices my %s now holds: %" G_GUINT64_FORMAT ", load %" G_GUINT64_FORMAT,
                      l == 0 ? "strip" : "block", held[0], held[1]);
    lb_group_allgather(group, held, sizeof held, strips);
    cuts[0] = row[0];
    guint64 total = 0, most = 0;
    for (guint i = 0; i < parts; i++) {
      cuts[i + 1] = cuts[i] + strips[2 * i];
      total += strips[2 * i + 1];
      most = MAX(most, strips[2 * i + 1]);
    }
    g_assert_cmpuint(cuts[parts], ==, row[parts]);
    if (items->len > 0)
      g_assert_cmpuint(g_array_index(items, MlbItem, 0).id, ==, cuts[t]);
    if (l == 0)
      lb_metric_record(self, METRIC_IMBALANCE_X,
                       total > 0 ? (double)most * parts / (double)total - 1.0 : 0.0);
    lb_narrate(self,
               "axis %c: my %s held slices [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
               "), now [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ")",
               "xyz"[l], l == 0 ? "strip" : "block", lo, lo + width, cuts[t], cuts[t + 1]);
    g_array_unref(items);
  } else {
    lb_phase_begin(self, PHASE_CUTS);
  }
  broadcast_from_leader(self, &block, l, cuts, parts + 1, 0);

  /* cells: from the boxes under the old cuts to those under the new */
  lb_phase_begin(self, PHASE_CELLS);
  LbCuts old = *s;
  old.alt_level = (int)l;
  old.alt_index = index;
  old.alt_row = before;
  memcpy(row, cuts, row_bytes);
  if (memcmp(before, cuts, row_bytes) != 0) {
    lb_phase_round(self, 0);
    lb_cuts_repartition(self, s, &old, l, TAG_CELLS(l), 0, NULL);
  }
}

static void
mlb_nd_balance(LbRank *self, gpointer state)
{
  LbCuts *s = state;
  MlbGroup options = {
      .phases = {PHASE_ACCUMULATE, PHASE_DESIRED, PHASE_AMOUNTS, PHASE_MIGRATE_X},
      .send_items = send_slices,
      .recv_items = recv_slices,
  };
  mlb_group_options(&options, lb_rank_params(self));
  for (guint l = 0; l < s->dim; l++)
    balance_axis(self, s, l, &options);
  lb_phase_begin(self, PHASE_GRAPH);
  lb_cuts_gather(self, s);
  lb_metric_record(self, METRIC_NEIGHBOURS, lb_cuts_build_graph(self, s));
}

static gboolean
mlb_nd_check(guint ranks, const LbWork *work, const LbParams *params, GError **error)
{
  if (strcmp(lb_params_get_string(params, "phase4"), "literal") == 0) {
    g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID,
                "[mlb-nd] phase4: literal can break the slices' order, and mlb-nd's cuts need "
                "each leader's slices contiguous; run it with mlb, or take loan or midpoint");
    return FALSE;
  }
  if (!mlb_nd_check_work(work, error))
    return FALSE;
  if (ranks > LB_CUTS_MAX_RANKS) {
    g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID,
                "[scenario] ranks: mlb-nd runs on at most %u ranks (one group per strip); %u is "
                "more",
                LB_CUTS_MAX_RANKS, ranks);
    return FALSE;
  }
  return TRUE;
}

const LbBalancer lb_mlb_nd_balancer = {
    .name = "mlb-nd",
    .summary = "MLB over successive axes: 1D MLB on the column sums fixes straight cuts "
               "(strips), then 1D MLB inside each strip on its row sums (3D: again on z)",
    .cite = "D. J. Quinlan and M. Berndt, \"MLB: Multilevel Load Balancing for Structured Grid "
            "Applications\", Eighth SIAM Conference on Parallel Processing for Scientific "
            "Computing, 1997, section 5",
    .params = mlb_params,
    .phases = mlb_nd_phases,
    .metrics = mlb_nd_metrics,
    .needs = LB_CAP_CELLS | LB_CAP_BOXES,
    .sets_neighbours = TRUE,
    .start = LB_START_BLOCKS_LAST_FASTEST,
    .check = mlb_nd_check,
    .state_new = mlb_nd_new,
    .state_free = lb_cuts_free,
    .balance = mlb_nd_balance,
};
