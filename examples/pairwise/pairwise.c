/* pairwise: an lbsim balancer written as a plugin, against lbsim's
 * installed headers only (pkg-config lbsim).
 *
 * Random pairwise averaging: in each round the ranks are paired at random
 * (a matching every rank computes alike from the workload's seed, the
 * adaptation step and the round, so no message is needed to agree on it:
 * a schedule fixed in advance, as a hypercube's dimension exchange is).
 * Partners swap their loads; the heavier sends the lighter the units,
 * heaviest first, that bring their two loads closest to half their sum,
 * in one message (possibly empty: the lighter always waits for it).
 * After each round an allreduce of the largest load says whether the
 * heaviest rank is within `tolerance` of the average; the rounds stop
 * then, or after `max-rounds`. Units move whole, so nothing is lost or
 * duplicated whatever the rounding (lbsim checks it after every step). */
#include <lbsim/plugin.h>
#include <lbsim/rank.h>
#include <string.h>

enum { PHASE_PAIR, PHASE_MOVE };
enum { METRIC_ROUNDS };

#define TAG_LOAD 1
#define TAG_UNITS 2

static const char *const pairwise_phases[] = {"pair", "move", NULL};

static const LbParamSpec pairwise_params[] = {
    {"tolerance", LB_PARAM_DOUBLE, "0.05", 0, 1e9, NULL,
     "stop once the heaviest rank is within this fraction of the average load"},
    {"max-rounds", LB_PARAM_INT, "32", 1, 1e6, NULL, "at most this many rounds of pairing"},
    {NULL},
};

static const LbMetricSpec pairwise_metrics[] = {
    {.name = "rounds",
     .unit = "rounds",
     .aggregate = LB_AGGREGATE_MAX,
     .combine = LB_COMBINE_MAX,
     .help = "rounds of pairing before the heaviest rank was within the tolerance"},
    {NULL},
};

/* partner[r] for every rank r, the same on every rank: a random
 * permutation (Fisher-Yates on a seeded GRand) paired off in twos; with
 * an odd count the last rank sits the round out (partner -1). */
static void
matching(guint64 seed, guint adaptation, guint round, int p, int *partner)
{
  g_autofree int *order = g_new(int, p);
  for (int r = 0; r < p; r++)
    order[r] = r;
  guint64 mixed = lb_hash64(seed ^ lb_hash64(adaptation * 65537ull + round));
  GRand *rand = g_rand_new_with_seed((guint32)mixed);
  for (int i = p - 1; i > 0; i--) {
    int j = g_rand_int_range(rand, 0, i + 1);
    int t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  g_rand_free(rand);
  for (int r = 0; r < p; r++)
    partner[r] = -1;
  for (int i = 0; i + 1 < p; i += 2) {
    partner[order[i]] = order[i + 1];
    partner[order[i + 1]] = order[i];
  }
}

static guint64
load_of(GArray *units)
{
  guint64 sum = 0;
  for (guint i = 0; i < units->len; i++)
    sum += g_array_index(units, LbUnit, i).load;
  return sum;
}

static int
heaviest_first(gconstpointer a, gconstpointer b)
{
  const LbUnit *x = a, *y = b;
  if (x->load != y->load)
    return x->load > y->load ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

static int
by_id(gconstpointer a, gconstpointer b)
{
  guint64 x = ((const LbUnit *)a)->id, y = ((const LbUnit *)b)->id;
  return x < y ? -1 : x > y;
}

/* The heavier of a pair: the units (heaviest first) whose loads bring
 * `mine` closest to half of mine + theirs without going below it by more
 * than half a unit, sent to the partner; the rest kept. */
static void
give(LbRank *self, int partner, guint round, guint64 mine, guint64 theirs)
{
  GArray *units = lb_rank_units(self);
  double excess = ((double)mine - (double)theirs) / 2;
  g_array_sort(units, heaviest_first);
  g_autoptr(GArray) out = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  guint kept = 0;
  double sent = 0;
  for (guint i = 0; i < units->len; i++) {
    LbUnit u = g_array_index(units, LbUnit, i);
    if (u.load > 0 && 2 * (sent + (double)u.load) < 2 * excess + (double)u.load) {
      sent += (double)u.load;
      g_array_append_val(out, u);
    } else {
      g_array_index(units, LbUnit, kept++) = u;
    }
  }
  g_array_set_size(units, kept);
  g_array_sort(out, by_id);
  lb_narrate(self, "round %u: sends rank %d %u units of load %.0f (half the difference: %.1f)",
             round, partner, out->len, sent, excess);
  lb_send_units(self, partner, TAG_UNITS, round, (const LbUnit *)out->data, out->len, NULL);
}

static void
pairwise_balance(LbRank *self, gpointer state)
{
  (void)state;
  const LbParams *params = lb_rank_params(self);
  double tolerance = lb_params_get_double(params, "tolerance");
  guint max_rounds = (guint)lb_params_get_int(params, "max-rounds");
  int me = lb_rank_id(self), p = lb_rank_count(self);
  GArray *units = lb_rank_units(self);
  g_autofree int *partner = g_new(int, p);

  lb_phase_begin(self, PHASE_PAIR);
  guint64 total = load_of(units);
  lb_allreduce_sum_u64(self, &total, 1);
  double average = (double)total / p;
  guint round = 0;
  for (; round < max_rounds; round++) {
    double heaviest = (double)load_of(units);
    lb_allreduce_max_double(self, &heaviest, 1);
    if (heaviest <= (1 + tolerance) * average) {
      lb_narrate(self,
                 "round %u: the heaviest rank holds %.0f, within the tolerance of the "
                 "average %.1f: done",
                 round, heaviest, average);
      break;
    }
    matching(lb_rank_work(self)->seed, lb_rank_adaptation(self), round, p, partner);
    int other = partner[me];
    if (other < 0) {
      lb_narrate(self, "round %u: no partner (an odd count of ranks)", round);
      continue;
    }
    lb_phase_begin(self, PHASE_PAIR);
    guint64 mine = load_of(units), theirs = 0;
    lb_send(self, other, TAG_LOAD, &mine, sizeof mine, sizeof mine);
    g_autoptr(LbMsg) msg = lb_recv(self, other, TAG_LOAD);
    memcpy(&theirs, msg->data, sizeof theirs);
    lb_wait_sends(self);
    lb_narrate(self,
               "round %u: paired with rank %d, load %" G_GUINT64_FORMAT
               " against %" G_GUINT64_FORMAT,
               round, other, mine, theirs);
    lb_phase_begin(self, PHASE_MOVE);
    lb_phase_round(self, MIN(round, 255u));
    /* ties: the lower rank gives, so both ends agree on who sends */
    if (mine > theirs || (mine == theirs && me < other))
      give(self, other, round, mine, theirs);
    else
      lb_recv_units(self, other, TAG_UNITS, units, NULL);
    lb_wait_sends(self);
  }
  g_array_sort(units, by_id);
  lb_metric_record(self, METRIC_ROUNDS, round);
}

static const LbBalancer pairwise_balancer = {
    .name = "pairwise",
    .summary = "random pairwise averaging: ranks paired at random each round, the heavier "
               "of a pair sends the lighter half their difference (an lbsim plugin)",
    .cite = "the lbsim example plugin (examples/pairwise)",
    .params = pairwise_params,
    .phases = pairwise_phases,
    .metrics = pairwise_metrics,
    .needs = LB_CAP_CELLS,
    .keeps_order = FALSE,
    .balance = pairwise_balance,
};

LB_PLUGIN(plugin, error)
{
  return lb_plugin_add_balancer(plugin, &pairwise_balancer, error);
}
