/* Scratch remap: the quality ceiling of order-keeping balancers, at the
 * highest migration cost. Every rank sends its loads to rank 0 (a linear
 * gather: only the root needs the chain, and an allgather would carry it to
 * all p ranks), rank 0 computes the optimal contiguous partition of the
 * model's order (remap-plan.c) and broadcasts the old and new bounds, and
 * each rank sends every other rank the part of its piece that the new
 * partition gives it, in one round. */
#include <string.h>

#include "balancers/registry.h"
#include "balancers/remap/remap-plan.h"

enum { PHASE_GATHER, PHASE_PARTITION, PHASE_MIGRATE };
enum { METRIC_BOTTLENECK, METRIC_PROBES };

#define ROOT 0
#define TAG_GATHER 1
#define TAG_MIGRATE 2

static const char *const remap_phases[] = {"gather", "partition", "migrate", NULL};

static const LbParamSpec remap_params[] = {
    {"plan-flops", LB_PARAM_DOUBLE, "1", 0, 1e9, NULL,
     "flops the root spends per element to sum the chain, and per binary-search step of each "
     "probe's and each cut's p searches"},
    {NULL},
};

static int
remap_unit_cmp(gconstpointer a, gconstpointer b)
{
  guint64 x = ((const LbUnit *)a)->id, y = ((const LbUnit *)b)->id;
  return x < y ? -1 : x > y;
}

static guint
remap_log2_ceil(guint64 n)
{
  guint k = 0;
  while (k < 64 && (G_GUINT64_CONSTANT(1) << k) < n)
    k++;
  return k;
}

/* Rank 0: the chain in rank order, its optimal cuts; bounds gets the old
 * pieces, then the new ones (2 (p + 1) entries), then the bottleneck and
 * the number of probes. */
static void
remap_plan(LbRank *self, const GArray *units, guint64 *bounds)
{
  guint p = (guint)lb_rank_count(self);
  g_autoptr(GArray) prefix = g_array_new(FALSE, FALSE, sizeof(guint64));
  guint64 sum = 0;
  g_array_append_val(prefix, sum);
  bounds[0] = 0;
  for (guint r = 0; r < p; r++) {
    g_autoptr(LbMsg) msg = NULL;
    const guint64 *words;
    guint64 first, count;
    if (r == ROOT) {
      first = units->len > 0 ? g_array_index(units, LbUnit, 0).id : bounds[r];
      count = units->len;
      words = NULL;
    } else {
      msg = lb_recv(self, (int)r, TAG_GATHER);
      words = (const guint64 *)msg->data;
      first = words[0];
      count = words[1];
    }
    if (count > 0 && first != bounds[r])
      lb_rank_fail(self,
                   "scratch-remap: rank %u's piece starts at id %" G_GUINT64_FORMAT
                   ", not %" G_GUINT64_FORMAT ": the units are not contiguous pieces of the order",
                   r, first, bounds[r]);
    for (guint64 i = 0; i < count; i++) {
      sum += words != NULL ? words[2 + i] : g_array_index(units, LbUnit, i).load;
      g_array_append_val(prefix, sum);
    }
    bounds[r + 1] = bounds[r] + count;
  }
  guint64 n = bounds[p];
  guint probes = 0;
  guint64 bottleneck = remap_bottleneck((const guint64 *)prefix->data, n, p, &probes);
  remap_cuts((const guint64 *)prefix->data, n, p, bottleneck, bounds + p + 1);
  bounds[2 * (p + 1)] = bottleneck;
  bounds[2 * (p + 1) + 1] = probes;
  double flops = lb_params_get_double(lb_rank_params(self), "plan-flops");
  lb_execute(self, flops * ((double)n + (double)p * remap_log2_ceil(n + 1) * (probes + 2)));
}

static void
remap_balance(LbRank *self, gpointer state)
{
  guint p = (guint)lb_rank_count(self), me = (guint)lb_rank_id(self);
  GArray *units = lb_rank_units(self);
  g_array_sort(units, remap_unit_cmp);
  const LbUnit *u = (const LbUnit *)units->data;

  lb_phase_begin(self, PHASE_GATHER);
  gsize words = 2 * (gsize)(p + 1) + 2;
  g_autofree guint64 *bounds = g_new0(guint64, words);
  if (me != ROOT) {
    g_autofree guint64 *msg = g_new(guint64, 2 + units->len);
    msg[0] = units->len > 0 ? u[0].id : 0;
    msg[1] = units->len;
    for (guint i = 0; i < units->len; i++)
      msg[2 + i] = u[i].load;
    lb_phase_round(self, 0);
    lb_send(self, ROOT, TAG_GATHER, msg, (2 + units->len) * sizeof(guint64),
            (2.0 + units->len) * sizeof(guint64));
    lb_wait_sends(self);
  }

  lb_phase_begin(self, PHASE_PARTITION);
  if (me == ROOT)
    remap_plan(self, units, bounds);
  lb_bcast(self, ROOT, bounds, words * sizeof(guint64));
  const guint64 *old = bounds, *cut = bounds + p + 1;
  lb_metric_record(self, METRIC_BOTTLENECK, (double)bounds[2 * (p + 1)]);
  lb_metric_record(self, METRIC_PROBES, (double)bounds[2 * (p + 1) + 1]);
  if (lb_rank_narrating(self) && me == ROOT)
    for (guint r = 0; r < p; r++)
      lb_narrate(self,
                 "rank %u: ids %" G_GUINT64_FORMAT " .. %" G_GUINT64_FORMAT " -> %" G_GUINT64_FORMAT
                 " .. %" G_GUINT64_FORMAT,
                 r, old[r], old[r + 1], cut[r], cut[r + 1]);

  lb_phase_begin(self, PHASE_MIGRATE);
  for (guint q = 0; q < p; q++) {
    guint64 lo = MAX(old[me], cut[q]), hi = MIN(old[me + 1], cut[q + 1]);
    if (q == me || lo >= hi)
      continue;
    lb_phase_round(self, 0);
    lb_send_units(self, (int)q, TAG_MIGRATE, 0, u + (lo - old[me]), (guint)(hi - lo), NULL);
  }
  g_autoptr(GArray) kept = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  guint64 lo = MAX(old[me], cut[me]), hi = MIN(old[me + 1], cut[me + 1]);
  if (lo < hi)
    g_array_append_vals(kept, u + (lo - old[me]), (guint)(hi - lo));
  for (guint q = 0; q < p; q++) {
    guint64 from = MAX(old[q], cut[me]), to = MIN(old[q + 1], cut[me + 1]);
    if (q == me || from >= to)
      continue;
    guint got = lb_recv_units(self, (int)q, TAG_MIGRATE, kept, NULL);
    g_assert_cmpuint(got, ==, to - from);
  }
  lb_wait_sends(self);
  g_array_sort(kept, remap_unit_cmp);
  g_array_set_size(units, 0);
  g_array_append_vals(units, kept->data, kept->len);
}

static const LbMetricSpec remap_metrics[] = {
    {"bottleneck", "load", LB_AGGREGATE_MAX, LB_COMBINE_MAX, NULL,
     "the heaviest piece of the optimal partition (the least any contiguous partition has)"},
    {"probes", "probes", LB_AGGREGATE_MAX, LB_COMBINE_MAX, NULL,
     "greedy probes of the bisection over bottleneck values"},
    {NULL},
};

const LbBalancer lb_scratch_remap_balancer = {
    .name = "scratch-remap",
    .summary = "gather every load to one rank, cut the order optimally, move everything there",
    .cite = "A. Pinar and C. Aykanat, \"Fast optimal load balancing algorithms for 1D "
            "partitioning\", JPDC 64(8), 2004 (the chains-on-chains problem; here its exact "
            "bisection with a greedy probe)",
    .params = remap_params,
    .phases = remap_phases,
    .metrics = remap_metrics,
    .needs = LB_CAP_CELLS | LB_CAP_ORDER,
    .keeps_order = TRUE,
    .balance = remap_balance,
};
