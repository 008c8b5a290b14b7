/* First-order diffusion (G. Cybenko, "Dynamic load balancing for
 * distributed memory multiprocessors", JPDC 7, 1989) on the machine's
 * graph (lb_rank_machine_neighbours). Every iteration each rank sends its
 * real-valued load x to its neighbours and, unless every edge is already
 * within the tolerance, moves alpha (x_i - x_j) along each edge. alpha =
 * 1 / (max degree + 1), the same on every rank, keeps the diffusion matrix
 * nonnegative with a positive diagonal: iterations converge to the even
 * load on any connected graph (Cybenko, section 3; larger steps oscillate
 * on bipartite graphs such as the hypercube). The flows accumulate per
 * edge: flow_ij = -flow_ji exactly, since both ends add negated products
 * of the same values.
 *
 * Units then move along the flows in rounds. On an edge whose remaining
 * flow (flow minus the load already moved) is at least 1/2, the sender
 * goes through what it holds, heaviest first, and sends a unit of load l
 * when the load sent so far plus l stays within the remaining flow plus
 * l / 2: it rounds each edge's flow to whole units, to within half a unit
 * of the last one taken. Units of load 0 stay. A rank passes on in the next
 * round what it received; the rounds end when one moves nothing (an
 * allreduce tells) or after `migrate-rounds`. Units move whole, so load,
 * count and ids are conserved whatever the rounding. */
#include <math.h>
#include <string.h>

#include "balancers/registry.h"

enum { PHASE_DIFFUSE, PHASE_MIGRATE };
enum { METRIC_ITERATIONS, METRIC_FINAL };

#define TAG_VALUE 1 /* and 2: iterations alternate, a neighbour is never two ahead */
#define TAG_UNITS 3

static const char *const diffusion_phases[] = {"diffuse", "migrate", NULL};

static const LbParamSpec diffusion_params[] = {
    {"tolerance", LB_PARAM_DOUBLE, "0.05", 0, 1e9, NULL,
     "stop when no two neighbours' loads differ by more than this fraction of the average load"},
    {"max-iterations", LB_PARAM_INT, "1000", 0, 1e7, NULL,
     "stop after this many diffusion iterations in any case"},
    {"migrate-rounds", LB_PARAM_INT, "16", 1, 1e6, NULL,
     "at most this many rounds of unit moves along the flows (units pass through ranks)"},
    {NULL},
};

static int
diffusion_heaviest_first(gconstpointer a, gconstpointer b)
{
  const LbUnit *x = a, *y = b;
  if (x->load != y->load)
    return x->load > y->load ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

static int
diffusion_by_id(gconstpointer a, gconstpointer b)
{
  guint64 x = ((const LbUnit *)a)->id, y = ((const LbUnit *)b)->id;
  return x < y ? -1 : x > y;
}

static double
diffusion_alpha(LbRank *self)
{
  guint maxdeg = 0;
  const guint *nb;
  for (int r = 0; r < lb_rank_count(self); r++)
    maxdeg = MAX(maxdeg, lb_rank_machine_neighbours(self, r, &nb));
  return 1.0 / (maxdeg + 1);
}

/* The diffusion iterations: flow[k] is the real-valued load to send to
 * neighbour k (negative: to receive). Returns the iterations done. */
static guint
diffuse(LbRank *self, const guint *nb, guint deg, double x, double avg, double *flow)
{
  const LbParams *params = lb_rank_params(self);
  double tol = lb_params_get_double(params, "tolerance") * avg;
  guint max_it = (guint)lb_params_get_int(params, "max-iterations");
  double alpha = diffusion_alpha(self);
  g_autofree double *y = g_new(double, MAX(deg, 1));
  for (guint it = 0;; it++) {
    int tag = TAG_VALUE + (int)(it % 2);
    for (guint k = 0; k < deg; k++)
      lb_send(self, (int)nb[k], tag, &x, sizeof x, sizeof x);
    double spread = 0;
    for (guint k = 0; k < deg; k++) {
      g_autoptr(LbMsg) msg = lb_recv(self, (int)nb[k], tag);
      memcpy(&y[k], msg->data, sizeof y[k]);
      spread = MAX(spread, fabs(x - y[k]));
    }
    lb_wait_sends(self);
    lb_allreduce_max_double(self, &spread, 1);
    if (spread <= tol || it == max_it)
      return it;
    double out = 0;
    for (guint k = 0; k < deg; k++) {
      double f = alpha * (x - y[k]);
      flow[k] += f;
      out += f;
    }
    x -= out;
  }
}

static void
migrate(LbRank *self, const guint *nb, guint deg, double *remaining)
{
  GArray *units = lb_rank_units(self);
  guint max_rounds = (guint)lb_params_get_int(lb_rank_params(self), "migrate-rounds");
  g_autoptr(GArray) out = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  g_autofree gboolean *expect = g_new(gboolean, MAX(deg, 1));
  for (guint round = 0; round < max_rounds; round++) {
    guint64 moved = 0;
    g_array_sort(units, diffusion_heaviest_first);
    g_autofree gboolean *taken = g_new0(gboolean, MAX(units->len, 1));
    for (guint k = 0; k < deg; k++) {
      expect[k] = remaining[k] <= -0.5;
      if (remaining[k] < 0.5)
        continue;
      g_array_set_size(out, 0);
      double sent = 0;
      for (guint i = 0; i < units->len; i++) {
        const LbUnit *u = &g_array_index(units, LbUnit, i);
        if (taken[i] || u->load == 0 || 2 * (sent + (double)u->load) > 2 * remaining[k] + u->load)
          continue;
        taken[i] = TRUE;
        sent += (double)u->load;
        g_array_append_val(out, *u);
      }
      g_array_sort(out, diffusion_by_id);
      lb_phase_round(self, MIN(round, 255u));
      lb_send_units(self, (int)nb[k], TAG_UNITS, round, (const LbUnit *)out->data, out->len, NULL);
      remaining[k] -= sent;
      moved += out->len;
    }
    guint kept = 0;
    for (guint i = 0; i < units->len; i++)
      if (!taken[i])
        g_array_index(units, LbUnit, kept++) = g_array_index(units, LbUnit, i);
    g_array_set_size(units, kept);
    for (guint k = 0; k < deg; k++) {
      if (!expect[k])
        continue;
      guint before = units->len;
      lb_recv_units(self, (int)nb[k], TAG_UNITS, units, NULL);
      for (guint i = before; i < units->len; i++)
        remaining[k] += (double)g_array_index(units, LbUnit, i).load;
    }
    lb_wait_sends(self);
    lb_allreduce_sum_u64(self, &moved, 1);
    if (moved == 0)
      break;
  }
  g_array_sort(units, diffusion_by_id);
}

static void
diffusion_balance(LbRank *self, gpointer state)
{
  GArray *units = lb_rank_units(self);
  const guint *nb;
  guint deg = lb_rank_machine_neighbours(self, lb_rank_id(self), &nb);
  guint64 mine = 0;
  for (guint i = 0; i < units->len; i++)
    mine += g_array_index(units, LbUnit, i).load;

  lb_phase_begin(self, PHASE_DIFFUSE);
  guint64 total = mine;
  lb_allreduce_sum_u64(self, &total, 1);
  double avg = (double)total / lb_rank_count(self);
  g_autofree double *flow = g_new0(double, MAX(deg, 1));
  guint iterations = diffuse(self, nb, deg, (double)mine, avg, flow);
  lb_metric_record(self, METRIC_ITERATIONS, iterations);

  lb_phase_begin(self, PHASE_MIGRATE);
  migrate(self, nb, deg, flow);
  double after = 0;
  for (guint i = 0; i < units->len; i++)
    after += (double)g_array_index(units, LbUnit, i).load;
  lb_allreduce_max_double(self, &after, 1);
  lb_metric_record(self, METRIC_FINAL, avg > 0 ? after / avg : 1);
}

static const LbMetricSpec diffusion_metrics[] = {
    {"iterations", "iterations", LB_AGGREGATE_MAX, LB_COMBINE_MAX, NULL,
     "diffusion iterations (one exchange of load values with every neighbour, one allreduce)"},
    {"final-max-avg", "ratio", LB_AGGREGATE_LAST, LB_COMBINE_MAX, NULL,
     "heaviest rank over the average once the units have moved"},
    {NULL},
};

const LbBalancer lb_diffusion_balancer = {
    .name = "diffusion",
    .summary = "first-order diffusion over the machine's one-hop neighbours, then units follow "
               "the flows",
    .cite = "G. Cybenko, \"Dynamic load balancing for distributed memory multiprocessors\", "
            "Journal of Parallel and Distributed Computing 7(2), 1989",
    .params = diffusion_params,
    .phases = diffusion_phases,
    .metrics = diffusion_metrics,
    .needs = LB_CAP_CELLS,
    .keeps_order = FALSE,
    .balance = diffusion_balance,
};
