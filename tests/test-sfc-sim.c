/* sfc-shift as a simulation. Its runs are checked against what the seed's
 * procedure must do (Baiardi, Chiti, Mori, Ricci, "Integrating load
 * balancing and locality in the parallelization of irregular problems",
 * 2001), worked out here from the model's trees and the plan's arithmetic
 * (sfc-plan.c) without the balancer's messaging: the blocking of the
 * step-0 sequence, the new hnodes on the rank of their parent region, the
 * shifts and their messages. Then every option over changing trees, the
 * range check with balancers of the test's own, a data collection small
 * enough to count by hand, the three strategies against each other,
 * determinism and the curves. (Input errors: tests/test-scenario.c.) */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "geometry/curve.h"
#include "balancers/sfc/sfc-plan.h"
#include "balancers/sfc/sfc-plan.h"
#include "runner/runner.h"
#include "lbsim-spawn.h"
#include "lbsim/run.h"
#include "lbsim/scenario.h"
#include "sfc-bound.h"
#include "workloads/htree.h"

static LbScenario *
load_text(const char *text)
{
  g_autofree char *dir = g_dir_make_tmp("lbsim-sfc-XXXXXX", NULL);
  g_autofree char *path = g_build_filename(dir, "s.ini", NULL);
  g_assert_true(g_file_set_contents(path, text, -1, NULL));
  g_autoptr(GError) error = NULL;
  LbScenario *sc = lb_scenario_load(path, NULL, &error);
  g_unlink(path);
  g_rmdir(dir);
  g_assert_no_error(error);
  return sc;
}

/* Every run of the scenario, two at a time, or NULL and the error. */
static GPtrArray *
run_all(const LbScenario *sc, GError **error)
{
  LbRunnerOptions options = {.jobs = 2, .quiet = TRUE};
  GPtrArray *results = NULL;
  int code = -1;
  if (!lb_runner_run(sc, NULL, &options, &results, &code, error))
    return NULL;
  return results;
}

static double
metric(const LbRunResult *r, const char *name)
{
  double v = -1;
  g_assert_true(lb_run_result_metric(r, name, &v));
  return v;
}

static double
step_metric(const LbRunResult *r, guint step, const char *name)
{
  int i = lb_metric_defs_find(r->metric_defs, name);
  g_assert_cmpint(i, >=, 0);
  return r->adaptation_metrics[(gsize)step * r->metric_defs->len + (guint)i];
}

/* ---- what the balancer must do ---- */

typedef struct {
  guint64 key, load;
} Hnode;

static int
compare_keys(gconstpointer a, gconstpointer b)
{
  guint64 x = ((const Hnode *)a)->key, y = ((const Hnode *)b)->key;
  return x < y ? -1 : x > y;
}

static guint
max_level(const LbWork *work)
{
  return (guint)lb_params_get_int(work->params, "max-level");
}

/* The hnodes of a tree in the curve's order, with their loads. */
static GArray *
curve_sequence(const LbWork *work, const LbHtree *tree, LbCurveKind curve)
{
  GArray *seq = g_array_new(FALSE, FALSE, sizeof(Hnode));
  for (gsize at = 0; at < lb_htree_size(tree); at++) {
    guint64 id = lb_htree_id_at(tree, at);
    Hnode h = {sfc_key(curve, work->dim, max_level(work), id), lb_htree_load(work, tree, at)};
    g_array_append_val(seq, h);
  }
  g_array_sort(seq, compare_keys);
  return seq;
}

/* The tree of an adaptation step, built here from the model's inputs. */
static LbHtree *
tree_at(const LbWork *work, guint step)
{
  const LbParams *w = work->params;
  guint min = (guint)lb_params_get_int(w, "min-level");
  if (strcmp(lb_params_get_string(w, "refine"), "poisson") == 0)
    return lb_htree_new_poisson(strcmp(lb_params_get_string(w, "boundary"), "constant") == 0
                                    ? LB_POISSON_CONSTANT
                                    : LB_POISSON_SINH,
                                min, max_level(work),
                                lb_params_get_double(w, "tolerance") *
                                    pow(lb_params_get_double(w, "tolerance-decay"), step),
                                G_MAXSIZE);
  guint64 n = lb_htree_work_elements(work);
  g_autofree double *points = g_new(double, n * work->dim);
  lb_htree_place(work, step, points);
  return lb_htree_new_points(work->dim, min, max_level(work),
                             (guint64)lb_params_get_int(w, "leaf-elements"), points, n);
}

static GPtrArray *
new_seqs(guint p)
{
  GPtrArray *seqs = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
  for (guint r = 0; r < p; r++)
    g_ptr_array_add(seqs, g_array_new(FALSE, FALSE, sizeof(guint64)));
  return seqs;
}

static GPtrArray *
copy_seqs(GPtrArray *seqs)
{
  GPtrArray *copy = new_seqs(seqs->len);
  for (guint r = 0; r < seqs->len; r++) {
    GArray *s = seqs->pdata[r];
    g_array_append_vals(copy->pdata[r], s->data, s->len);
  }
  return copy;
}

static guint64
seq_load(GArray *s)
{
  guint64 load = 0;
  for (guint i = 0; i < s->len; i++)
    load += g_array_index(s, guint64, i);
  return load;
}

/* The shift once more, round by round from sfc_round on every rank, for
 * what sfc_shift does not report: the messages. A boundary is open while
 * its sending end is; in every round it carries one message (empty when
 * the sender waits for inflow). */
static guint64
shift_messages(GPtrArray *seqs, double threshold, guint *rounds, guint64 *moved)
{
  guint p = seqs->len;
  g_autofree guint64 *loads = g_new(guint64, p);
  for (guint r = 0; r < p; r++)
    loads[r] = seq_load(seqs->pdata[r]);
  g_autofree double *flow = g_new(double, p + 1);
  sfc_flows(loads, p, flow);
  g_autofree SfcEnd *left = g_new0(SfcEnd, p), *right = g_new0(SfcEnd, p);
  for (guint b = 1; b < p; b++)
    if (fabs(flow[b]) > threshold) {
      if (flow[b] > 0)
        right[b - 1] = (SfcEnd){flow[b], TRUE};
      else
        left[b] = (SfcEnd){-flow[b], TRUE};
    }
  guint64 messages = 0;
  *rounds = 0;
  *moved = 0;
  g_autofree gboolean *from_left = g_new(gboolean, p), *from_right = g_new(gboolean, p);
  g_autofree gsize *n_left = g_new(gsize, p), *n_right = g_new(gsize, p);
  for (;;) {
    guint open = 0;
    for (guint b = 1; b < p; b++)
      open += right[b - 1].open || left[b].open;
    if (open == 0)
      break;
    messages += open;
    (*rounds)++;
    /* inflow as it stood when the round began */
    for (guint r = 0; r < p; r++) {
      from_left[r] = r > 0 && right[r - 1].open;
      from_right[r] = r + 1 < p && left[r + 1].open;
    }
    for (guint r = 0; r < p; r++) {
      GArray *s = seqs->pdata[r];
      sfc_round((const guint64 *)s->data, s->len, &left[r], &right[r], from_left[r], from_right[r],
                &n_left[r], &n_right[r]);
      *moved += n_left[r] + n_right[r];
    }
    g_autoptr(GPtrArray) to_left = new_seqs(p), to_right = new_seqs(p);
    for (guint r = 0; r < p; r++) {
      GArray *s = seqs->pdata[r];
      g_array_append_vals(to_left->pdata[r], s->data, (guint)n_left[r]);
      g_array_append_vals(to_right->pdata[r], &g_array_index(s, guint64, s->len - n_right[r]),
                          (guint)n_right[r]);
      g_array_remove_range(s, s->len - (guint)n_right[r], (guint)n_right[r]);
      g_array_remove_range(s, 0, (guint)n_left[r]);
    }
    for (guint r = 0; r < p; r++) {
      GArray *s = seqs->pdata[r];
      if (r > 0) {
        GArray *in = to_right->pdata[r - 1];
        g_array_prepend_vals(s, in->data, in->len);
      }
      if (r + 1 < p) {
        GArray *in = to_left->pdata[r + 1];
        g_array_append_vals(s, in->data, in->len);
      }
    }
  }
  return messages;
}

/* One adaptation step as the seed's procedure has it. */
typedef struct {
  gboolean detected, triggered;
  guint rounds;
  guint64 moved, messages;
  guint64 max_before, max_after;
  double unbalance_before, unbalance_after; /* max_unbalance / average */
} StepPlan;

static guint64
max_of(const guint64 *loads, guint p)
{
  guint64 m = 0;
  for (guint r = 0; r < p; r++)
    m = MAX(m, loads[r]);
  return m;
}

/* Runs the procedure on the scenario's trees: the blocking of the step-0
 * sequence, then at every step the new tree's hnodes on the rank that held
 * the deepest of their ancestors the last tree had (an hnode still there,
 * or the leaf that split: the hnode with the greatest key not after
 * theirs), the detection and the shift. Fills plan[steps] and the loads
 * the ranks end with. */
static void
plan_run(const LbScenario *sc, LbCurveKind curve, double threshold, guint period, StepPlan *plan,
         guint64 *final_loads)
{
  const LbWork *work = sc->work;
  guint p = sc->ranks;
  g_autoptr(GArray) seq = curve_sequence(work, lb_htree_of(work), curve);
  g_autofree guint64 *loads = g_new(guint64, seq->len);
  for (guint i = 0; i < seq->len; i++)
    loads[i] = g_array_index(seq, Hnode, i).load;
  g_autofree gsize *cuts = g_new(gsize, p + 1);
  sfc_block(loads, seq->len, p, cuts);
  guint *owner = g_new(guint, seq->len);
  for (guint r = 0; r < p; r++)
    for (gsize i = cuts[r]; i < cuts[r + 1]; i++)
      owner[i] = r;

  g_autofree guint64 *rank_loads = g_new(guint64, p);
  for (guint s = 0; s < sc->nadaptations; s++) {
    StepPlan *sp = &plan[s];
    memset(sp, 0, sizeof *sp);
    if (s > 0) {
      g_autoptr(LbHtree) tree = tree_at(work, s);
      GArray *next = curve_sequence(work, tree, curve);
      guint *next_owner = g_new(guint, next->len);
      guint j = 0; /* the root's key, 0, is the first of both */
      for (guint i = 0; i < next->len; i++) {
        guint64 key = g_array_index(next, Hnode, i).key;
        while (j + 1 < seq->len && g_array_index(seq, Hnode, j + 1).key <= key)
          j++;
        next_owner[i] = owner[j];
      }
      g_array_unref(seq);
      seq = next;
      g_free(owner);
      owner = next_owner;
    }
    g_autoptr(GPtrArray) seqs = new_seqs(p);
    for (guint i = 0; i < seq->len; i++)
      g_array_append_val(seqs->pdata[owner[i]], g_array_index(seq, Hnode, i).load);
    double total = 0;
    for (guint r = 0; r < p; r++) {
      rank_loads[r] = seq_load(seqs->pdata[r]);
      total += (double)rank_loads[r];
    }
    double avg = total / p;
    sp->max_before = sp->max_after = max_of(rank_loads, p);
    if (s % period == 0) {
      sp->detected = TRUE;
      double t = threshold * avg;
      double unbalance = sfc_max_unbalance(rank_loads, p);
      sp->unbalance_before = sp->unbalance_after = unbalance / avg;
      sp->triggered = unbalance > t;
      if (sp->triggered) {
        g_autoptr(GPtrArray) again = copy_seqs(seqs);
        g_autofree double *slack = g_new(double, p + 1);
        sfc_bound_slack(seqs, t, slack);
        sp->rounds = sfc_shift(seqs, t, &sp->moved);
        sfc_bound_check(seqs, slack);
        guint rounds = 0;
        guint64 moved = 0;
        sp->messages = shift_messages(again, t, &rounds, &moved);
        g_assert_cmpuint(rounds, ==, sp->rounds);
        g_assert_cmpuint(moved, ==, sp->moved);
        guint at = 0;
        for (guint r = 0; r < p; r++) {
          GArray *a = seqs->pdata[r], *b = again->pdata[r];
          g_assert_cmpuint(a->len, ==, b->len);
          g_assert_cmpmem(a->data, a->len * sizeof(guint64), b->data, b->len * sizeof(guint64));
          for (guint k = 0; k < a->len; k++)
            owner[at++] = r;
          rank_loads[r] = seq_load(a);
        }
        g_assert_cmpuint(at, ==, seq->len);
        sp->max_after = max_of(rank_loads, p);
        sp->unbalance_after = sfc_max_unbalance(rank_loads, p) / avg;
      }
    }
  }
  memcpy(final_loads, rank_loads, p * sizeof(guint64));
  g_free(owner);
}

typedef struct {
  const char *name;
  guint dim, ranks, steps;
  const char *workload; /* [workload] keys besides model, dim */
  const char *sfc;      /* [sfc-shift] keys */
  gboolean passes_on;   /* the plan says a shift takes more than one round */
} PlanCase;

static const PlanCase plan_cases[] = {
    /* loads of 1 .. 40 per hnode: the blocking leaves every rank within
     * half an hnode of the average, above T = 0.002 x average */
    {"2d-hilbert-8-per-node", 2, 8, 1,
     "max-level = 8\nelements = 3000\nload = per-node\nnode-load-max = 40\npattern = hotspots\n"
     "hotspots = 2\nwidth = 0.1\n",
     "curve = hilbert\nthreshold = 0.002\n"},
    {"3d-morton-16-measured", 3, 16, 1,
     "max-level = 6\nelements = 6000\nleaf-elements = 12\nload = measured\nelement-load = 5\n"
     "pattern = hotspots\nhotspots = 3\nwidth = 0.08\n",
     "curve = morton\nthreshold = 0.001\n"},
    /* a cluster appears at step 1: its ranks gain the new hnodes, which
     * pass on through their neighbours */
    {"2d-morton-32-clusters", 2, 32, 2,
     "max-level = 12\nelements = 20000\nload = measured\npattern = clusters\nclusters = 2\n"
     "interval = 1\nwidth = 0.05\nbase = 1\namplitude = 2000\n",
     "curve = morton\n", TRUE},
    {"3d-hilbert-64-clusters", 3, 64, 2,
     "max-level = 7\nelements = 30000\nload = measured\npattern = clusters\nclusters = 2\n"
     "interval = 1\nwidth = 0.08\nbase = 1\namplitude = 2000\n",
     "curve = hilbert\nthreshold = 0.02\n", TRUE},
    /* the seed's multigrid: grids are added near the corner (1, 1) */
    {"2d-hilbert-16-poisson", 2, 16, 2,
     "refine = poisson\nmin-level = 5\nmax-level = 10\ntolerance = 3e-8\ntolerance-decay = 0.2\n",
     "curve = hilbert\nthreshold = 0.01\n", TRUE},
    /* measured loads with no node load: the inner hnodes weigh nothing,
     * the leaves 42 per element, and the hot spots drift at step 1, so
     * load passes through ranks whose segments start with a parent of no
     * load */
    {"2d-hilbert-64-measured", 2, 64, 2,
     "max-level = 6\nelements = 3000\nload = measured\nnode-load = 0\nelement-load = 42\n"
     "pattern = hotspots\nhotspots = 8\nwidth = 0.04\namplitude = 400\nbase = 20\n"
     "drift = 0.02\n",
     "curve = hilbert\n", TRUE},
    /* 12 ranks, and a check every other step */
    {"2d-hilbert-12-period", 2, 12, 3,
     "max-level = 10\nelements = 8000\nload = measured\npattern = clusters\nclusters = 3\n"
     "interval = 1\nwidth = 0.05\nbase = 1\namplitude = 2000\n",
     "curve = hilbert\nperiod = 2\nthreshold = 0.01\n", TRUE},
};

static void
test_plan(gconstpointer data)
{
  const PlanCase *c = data;
  g_autofree char *ini = g_strdup_printf(
      "[scenario]\nplatform = %s\nranks = %u\nsteps = %u\nseed = 11\n"
      "[workload]\nmodel = htree\ndim = %u\n%s[balancers]\nrun = sfc-shift\n[sfc-shift]\n%s",
      c->ranks <= 16 ? "hypercube-16.xml" : "t3e-512.xml", c->ranks, c->steps, c->dim, c->workload,
      c->sfc);
  g_autoptr(LbScenario) sc = load_text(ini);
  guint p = sc->ranks;
  const LbParams *params = ((LbBalancerRun *)sc->runs->pdata[0])->params;
  LbCurveKind curve = LB_CURVE_HILBERT;
  g_assert_true(lb_curve_parse(lb_params_get_string(params, "curve"), &curve));
  {
    g_autoptr(LbHtree) again = tree_at(sc->work, 0);
    g_assert_cmpuint(lb_htree_size(again), ==, lb_htree_size(lb_htree_of(sc->work)));
  }
  g_autofree StepPlan *plan = g_new0(StepPlan, c->steps);
  g_autofree guint64 *final_loads = g_new(guint64, p);
  plan_run(sc, curve, lb_params_get_double(params, "threshold"),
           (guint)lb_params_get_int(params, "period"), plan, final_loads);

  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) results = run_all(sc, &error);
  g_assert_no_error(error);
  const LbRunResult *res = results->pdata[0];
  guint passes_on = 0;
  for (guint s = 0; s < c->steps; s++) {
    const StepPlan *sp = &plan[s];
    g_test_message("%s step %u: triggered %d, %u rounds, %" G_GUINT64_FORMAT
                   " hnodes moved, %" G_GUINT64_FORMAT " messages, max load %" G_GUINT64_FORMAT
                   " -> %" G_GUINT64_FORMAT,
                   c->name, s, sp->triggered, sp->rounds, sp->moved, sp->messages, sp->max_before,
                   sp->max_after);
    g_assert_cmpfloat(step_metric(res, s, "triggered"), ==, sp->triggered);
    g_assert_cmpfloat(step_metric(res, s, "shift-rounds"), ==, sp->rounds);
    g_assert_cmpfloat(step_metric(res, s, "shift-steps"), ==, sp->rounds);
    g_assert_cmpfloat(step_metric(res, s, "hnodes-moved"), ==, (double)sp->moved);
    /* the pieces, and nothing else, in the shift */
    g_assert_cmpfloat(step_metric(res, s, "shift-messages"), ==, (double)sp->messages);
    /* section 5.3: an allgather of the loads (a tree gather, then a
     * broadcast: 2(p - 1) messages) when the check runs, else an
     * allreduce of the deepest level and of whether roots changed (as
     * many) */
    gboolean by_level = strcmp(lb_params_get_string(params, "levels"), "each") == 0;
    gboolean on_shift = strcmp(lb_params_get_string(params, "tree-update"), "shift") == 0;
    g_assert_cmpfloat(step_metric(res, s, "detect-messages"), ==,
                      sp->detected || by_level || on_shift ? 2.0 * (p - 1) : 0);
    /* the replicated tree: made at step 0 and after every shift, else
     * only when a rank's private roots changed (a pruned tree) */
    if (s == 0 || sp->triggered)
      g_assert_cmpfloat(step_metric(res, s, "tree-messages"), ==, 2.0 * (p - 1));
    else
      g_assert_true(step_metric(res, s, "tree-messages") == 0 ||
                    step_metric(res, s, "tree-messages") == 2.0 * (p - 1));
    if (sp->detected) {
      g_assert_cmpfloat_with_epsilon(step_metric(res, s, "max-unbalance-before"),
                                     sp->unbalance_before, 1e-12);
      g_assert_cmpfloat_with_epsilon(step_metric(res, s, "max-unbalance-after"),
                                     sp->unbalance_after, 1e-12);
    }
    g_assert_cmpuint(res->adaptations[s].max_load_before, ==, sp->max_before);
    g_assert_cmpuint(res->adaptations[s].max_load_after, ==, sp->max_after);
    passes_on += sp->rounds > 1;
  }
  /* step 0 is the blocking: every cut is the boundary nearest its share,
   * so Unb across it is at most half the hnode before it (after it, when
   * negative), and the piece nearest to that is nothing; T below the
   * granularity triggers an empty shift */
  g_assert_cmpuint(plan[0].moved, ==, 0);
  if (c->steps == 1)
    g_assert_true(plan[0].triggered);
  g_assert_cmpuint(passes_on > 0, ==, c->passes_on);
  for (guint r = 0; r < p; r++)
    g_assert_cmpuint(res->final_loads[r], ==, final_loads[r]);
}

/* ---- every option over changing trees ---- */

/* Messages of the reduce-scatter that tells every rank how many messages
 * of the collection reach it: recursive halving, log2 p per rank, when p
 * is a power of two; else a tree reduction and a broadcast. */
static guint64
reduce_scatter_messages(guint p)
{
  if ((p & (p - 1)) == 0) {
    guint d = 0;
    while ((1u << d) < p)
      d++;
    return (guint64)p * d;
  }
  return 2 * (guint64)(p - 1);
}

/* A changing tree, 2D or 3D: clusters appearing and growing, so that
 * every step adds and prunes hnodes. */
#define CHANGING_2D                                                                                \
  "[scenario]\nplatform = hypercube-16.xml\nranks = 16\nsteps = 4\nseed = 3\n"                     \
  "[workload]\nmodel = htree\ndim = 2\nmax-level = 10\nelements = 12000\nload = measured\n"        \
  "pattern = clusters\nclusters = 3\ninterval = 1\nwidth = 0.05\ngrowth = 0.02\nbase = 1\n"        \
  "amplitude = 2000\n"
#define CHANGING_3D                                                                                \
  "[scenario]\nplatform = hypercube-16.xml\nranks = 12\nsteps = 4\nseed = 4\n"                     \
  "[workload]\nmodel = htree\ndim = 3\nmax-level = 6\nelements = 12000\nload = per-node\n"         \
  "pattern = shock\nwidth = 0.05\namplitude = 50\nbase = 1\ndrift = 0.1\n"
#define CHANGING_POISSON                                                                           \
  "[scenario]\nplatform = hypercube-8.xml\nranks = 8\nsteps = 4\n"                                 \
  "[workload]\nmodel = htree\nrefine = poisson\nmin-level = 4\nmax-level = 9\n"                    \
  "tolerance = 1e-7\ntolerance-decay = 0.3\n"

static const char *const option_sets[] = {
    "curve = hilbert\ncollect = request-answer\n",
    "curve = morton\ncollect = request-answer\nra-batch = 4\n",
    "curve = hilbert\ncollect = fault-prevention\nmerge = 1\n",
    "curve = morton\ncollect = fault-prevention\nthreshold = 0.001\n",
    "curve = hilbert\ncollect = informed\nmerge = 3\nperiod = 3\n",
    "curve = morton\ncollect = informed\nthreshold = 0\n",
    "curve = hilbert\ncollect = informed\nthreshold = 1000\noperators = 2\n",
    "curve = hilbert\ncollect = informed-needs\nmerge = 3\nperiod = 3\n",
    "curve = hilbert\ncollect = none\nthreshold = 0.5\n",
    "curve = morton\ncollect = request-answer\nlevels = together\noperators = 3\n",
    "curve = hilbert\ncollect = fault-prevention\nlevels = together\n",
    "curve = hilbert\ncollect = informed\nlevels = together\nperiod = 2\n",
    "curve = morton\ncollect = informed-needs\nlevels = together\n",
    "curve = hilbert\ncollect = fault-prevention\nsync = counts\n",
    "curve = morton\ncollect = informed\nsync = counts\nlevels = together\n",
    "curve = hilbert\ncollect = informed\ntree-update = every-step\nperiod = 2\n",
};

/* Every option set on every changing tree runs through: the core checks
 * conservation and the range property after every step, and sfc.c that
 * the replicated tree sends every hnode to its owner and that each rank's
 * collection covers every square it needs. The message counts follow the
 * protocol whatever the tree. */
static void
test_options(void)
{
  static const char *const trees[] = {CHANGING_2D, CHANGING_3D, CHANGING_POISSON};
  for (guint t = 0; t < G_N_ELEMENTS(trees); t++)
    for (guint o = 0; o < G_N_ELEMENTS(option_sets); o++) {
      g_autofree char *ini = g_strdup_printf("%s[balancers]\nrun = sfc-shift\n[sfc-shift]\n%s",
                                             trees[t], option_sets[o]);
      g_autoptr(LbScenario) sc = load_text(ini);
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) results = run_all(sc, &error);
      g_assert_no_error(error);
      const LbRunResult *r = results->pdata[0];
      const LbParams *params = ((LbBalancerRun *)sc->runs->pdata[0])->params;
      guint p = sc->ranks, steps = sc->nadaptations;
      guint period = (guint)lb_params_get_int(params, "period");
      const char *collect = lb_params_get_string(params, "collect");
      g_autofree char *options = g_strdelimit(g_strdup(option_sets[o]), "\n", ' ');
      g_test_message("tree %u, %s: imbalance %.3f -> %.3f, %.0f rounds, ghost messages %.0f", t,
                     options, r->imbalance_before, r->imbalance_after, metric(r, "shift-rounds"),
                     metric(r, "ghost-messages"));
      guint64 sum = 0;
      for (guint k = 0; k < p; k++)
        sum += r->final_loads[k];
      g_assert_cmpuint(sum, ==, r->adaptations[steps - 1].total_load);
      guint detections = (steps + period - 1) / period;
      gboolean by_level = strcmp(lb_params_get_string(params, "levels"), "each") == 0;
      gboolean on_shift = strcmp(lb_params_get_string(params, "tree-update"), "shift") == 0;
      /* level by level, or with the tree made only when needed, steps
       * without a detection learn the deepest level and whether a rank's
       * roots changed by an allreduce, as many messages */
      g_assert_cmpfloat(metric(r, "detect-messages"), ==,
                        2.0 * (p - 1) * (by_level || on_shift ? steps : detections));
      /* the replicated tree at step 0 and after each shift at least, or
       * every step */
      if (strcmp(lb_params_get_string(params, "tree-update"), "every-step") == 0)
        g_assert_cmpfloat(metric(r, "tree-messages"), ==, 2.0 * (p - 1) * steps);
      g_assert_cmpfloat(metric(r, "tree-messages"), >=,
                        2.0 * (p - 1) *
                            (1 + metric(r, "triggered") - step_metric(r, 0, "triggered")));
      g_assert_cmpfloat(metric(r, "tree-messages"), <=, 2.0 * (p - 1) * steps);
      g_assert_cmpfloat(metric(r, "triggered"), <=, detections);
      double control = metric(r, "collect-control-messages"),
             data = metric(r, "collect-data-messages"), needed = metric(r, "collect-hnodes-needed"),
             received = metric(r, "collect-hnodes-received"),
             useless = metric(r, "collect-useless");
      if (strcmp(collect, "none") == 0) {
        g_assert_cmpfloat(control + data + needed + received, ==, 0);
        g_assert_cmpfloat(metric(r, "ghost-messages"), ==, 0);
        continue;
      }
      /* the reduce-scatters of message counts: request/answer and fault
       * prevention one per level bucket a step (collect-phases counts an
       * operator's collections on each), fault prevention none when
       * synchronisation messages end its collections, the others one a
       * step; the synchronisation messages: p - 1 a rank a collection */
      double buckets = metric(r, "collect-phases") / (double)lb_params_get_int(params, "operators");
      gboolean fp = strcmp(collect, "fault-prevention") == 0;
      gboolean synced = (fp || strcmp(collect, "informed") == 0) &&
                        strcmp(lb_params_get_string(params, "sync"), "messages") == 0;
      double sync = metric(r, "collect-sync-messages");
      g_assert_cmpfloat(sync, ==, synced ? metric(r, "collect-phases") * p * (p - 1) : 0);
      gboolean per_bucket = strcmp(collect, "request-answer") == 0 || (fp && !synced);
      if (by_level) /* every tree is deeper than its root */
        g_assert_cmpfloat(buckets, >, steps);
      else
        g_assert_cmpfloat(buckets, ==, steps);
      double scatters = fp && synced ? 0 : per_bucket ? buckets : steps;
      g_assert_cmpfloat(metric(r, "ghost-messages"), ==,
                        control + data + sync + scatters * (double)reduce_scatter_messages(p));
      g_assert_cmpfloat(needed, >, 0);
      if (strcmp(collect, "request-answer") == 0) {
        guint batch = (guint)lb_params_get_int(params, "ra-batch");
        /* an answer per request message; one square answered per square
         * asked, by its own hnode or the leaf that holds it */
        g_assert_cmpfloat(data, ==, control);
        g_assert_cmpfloat(received, ==, needed);
        g_assert_cmpfloat(useless, ==, 0);
        g_assert_cmpfloat(control, >=, ceil(needed / batch));
        if (batch == 1)
          g_assert_cmpfloat(control, ==, needed);
        else
          g_assert_cmpfloat(control, <, needed);
      } else if (strcmp(collect, "fault-prevention") == 0) {
        g_assert_cmpfloat(control, ==, 0);
        g_assert_cmpfloat(useless, <, received);
        if (lb_params_get_int(params, "merge") == 1)
          g_assert_cmpfloat(data, ==, received);
      } else {
        /* exactly the hnodes that cover the squares asked for */
        g_assert_cmpfloat(useless, ==, 0);
        g_assert_cmpfloat(received, <=, needed);
        g_assert_cmpfloat(control, <=, (double)steps * p * (p - 1));
        g_assert_cmpfloat(data, >=, control);
      }
    }
}

/* ---- a balancer whose order disagrees with its distribution ---- */

static const LbParamSpec no_params[] = {{NULL}};
static const char *const idle_phases[] = {"idle", NULL};

static void
idle_balance(LbRank *self, gpointer state)
{
}

static guint64
hilbert_key(const LbWork *work, const LbParams *params, guint64 id)
{
  return sfc_key(LB_CURVE_HILBERT, work->dim, max_level(work), id);
}

static guint64
morton_key(const LbWork *work, const LbParams *params, guint64 id)
{
  return sfc_key(LB_CURVE_MORTON, work->dim, max_level(work), id);
}

/* Both keep the model's start, equal counts of the Morton pre-order, and
 * move nothing. */
static const LbBalancer order_hilbert = {
    .name = "order-hilbert",
    .summary = "test: Morton blocks that claim the Hilbert order",
    .params = no_params,
    .phases = idle_phases,
    .needs = LB_CAP_TREE,
    .balance = idle_balance,
    .order_key = hilbert_key,
};

static const LbBalancer order_morton = {
    .name = "order-morton",
    .summary = "test: Morton blocks that claim the Morton order",
    .params = no_params,
    .phases = idle_phases,
    .needs = LB_CAP_TREE,
    .balance = idle_balance,
    .order_key = morton_key,
};

static char *
range_scenario(const char *balancer)
{
  return g_strdup_printf("%s[balancers]\nrun = %s\n", CHANGING_2D, balancer);
}

/* Morton blocks in the Hilbert order: the first rank whose least key is
 * not above the greatest of the rank before breaks the range property at
 * step 0, and the core says which, with both keys. In the Morton order,
 * nothing breaks while the tree changes: new hnodes come right after the
 * leaf they split from, on its rank. */
static void
test_range(void)
{
  g_autofree char *broken = range_scenario("order-hilbert");
  g_autoptr(LbScenario) sc = load_text(broken);
  const LbWork *work = sc->work;
  const LbHtree *tree = lb_htree_of(work);
  gsize n = lb_htree_size(tree);
  guint p = sc->ranks;
  g_autofree char *expected = NULL;
  guint64 last_max = 0;
  for (guint r = 0; r < p && expected == NULL; r++) {
    gsize from = n * r / p, to = n * (r + 1) / p;
    guint64 lo = G_MAXUINT64, hi = 0;
    for (gsize at = from; at < to; at++) {
      guint64 k = hilbert_key(work, NULL, lb_htree_id_at(tree, at));
      lo = MIN(lo, k);
      hi = MAX(hi, k);
    }
    if (r > 0 && lo <= last_max)
      expected = g_strdup_printf("range property violated by 'order-hilbert' at adaptation step 0: "
                                 "rank %u's segment starts at key %" G_GUINT64_FORMAT
                                 ", not after rank %u's, which ends at %" G_GUINT64_FORMAT,
                                 r, lo, r - 1, last_max);
    last_max = hi;
  }
  g_assert_nonnull(expected);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) failed = run_all(sc, &error);
  g_assert_null(failed);
  g_assert_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INVARIANT);
  g_assert_nonnull(strstr(error->message, expected));

  g_autofree char *kept = range_scenario("order-morton");
  g_autoptr(LbScenario) sc2 = load_text(kept);
  g_clear_error(&error);
  g_autoptr(GPtrArray) results = run_all(sc2, &error);
  g_assert_no_error(error);
  const LbRunResult *r = results->pdata[0];
  g_assert_cmpuint(r->nadaptations, ==, 4);
  /* the tree did change: the clusters' ranks gained hnodes */
  g_assert_cmpfloat(r->adaptations[3].imbalance_before, >, r->adaptations[0].imbalance_before);
}

/* ---- the data collection by hand ---- */

/* The uniform quadtree of level 2 (min-level = max-level = 2): the root R,
 * the squares Q0 .. Q3 of level 1 and 16 cells, 21 hnodes of load 1. The
 * Hilbert curve of order 2 visits the cells (x y)
 *   c0 0 0, c1 1 0, c2 1 1, c3 0 1, c4 0 2, c5 0 3, c6 1 3, c7 1 2,
 *   c8 2 2, c9 2 3, c10 3 3, c11 3 2, c12 3 1, c13 2 1, c14 2 0, c15 3 0,
 * and the squares of level 1 in the order (0 0), (0 1), (1 1), (1 0), so
 * the sequence is R Q0 c0-c3 Q1 c4-c7 Q2 c8-c11 Q3 c12-c15 (a square just
 * before its cells). Every hnode needs, across each face, the hnode of the
 * same level there (the tree is uniform, so that hnode exists).
 *
 * 2 ranks: the average is 10.5; the cut nearest it, ties to the earlier, is
 * after 10 hnodes: P0 = R Q0 c0-c3 Q1 c4 c5 c6, P1 = c7 Q2 c8-c11 Q3 c12-c15.
 * Level 1: Q0 needs Q3 (Q1 is its own), Q1 needs Q2; Q2 needs Q1, Q3
 * needs Q0: 2 remote squares each. Level 2, P0's cells across to P1:
 * (1 0) -> (2 0); (1 1) -> (2 1), (1 2); (0 2) -> (1 2); (1 3) -> (2 3),
 * (1 2): 4 distinct. P1's: (1 2) -> (0 2), (1 1), (1 3); (2 3) -> (1 3);
 * (2 1) -> (1 1); (2 0) -> (1 0): 4 distinct. So 6 + 6 = 12 needed.
 * Fault prevention: P0 pushes Q0 (Q1's region holds c7 of P1, Q3's is
 * P1's), Q1 (Q2), c1 c2 c4 c6: all 6 useful; P1 pushes Q2, Q3, c7 c9 c13
 * c14: all useful. Roots: P0 has R; P1 has c7, Q2, Q3 (their parents Q1
 * and R are P0's): 4.
 *
 * 4 ranks: average 5.25; cuts nearest 5.25, 10.5 (the tie to 10) and
 * 15.75 (16): P0 = R Q0 c0 c1 c2, P1 = c3 Q1 c4 c5 c6, P2 = c7 Q2 c8-c11,
 * P3 = Q3 c12-c15, loads 5 5 6 5. The cells' owners (y up):
 *   y 3:  P1 P1 P2 P2
 *   y 2:  P1 P2 P2 P2
 *   y 1:  P1 P0 P3 P3
 *   y 0:  P0 P0 P3 P3
 * Needs (square: owner), per rank:
 *   P0: Q3:P3, Q1:P1; (0 1):P1, (2 0):P3, (2 1):P3, (1 2):P2      6, 3 owners
 *   P1: Q2:P2, Q0:P0; (1 1):P0, (0 0):P0, (1 2):P2, (2 3):P2      6, 2 owners
 *   P2: Q1:P1, Q3:P3; (0 2):P1, (1 1):P0, (1 3):P1, (2 1):P3,
 *       (3 1):P3                                                  7, 3 owners
 *   P3: Q0:P0, Q2:P2; (3 2):P2, (1 1):P0, (2 2):P2, (1 0):P0      6, 2 owners
 * 25 squares, 10 (rank, owner) pairs. Fault prevention sends an hnode to
 * every rank whose segment meets the region across one of its faces; Q0's
 * region (Q0 c0-c3) meets P0 and P1, Q1's (Q1 c4-c7) P1 and P2:
 *   P0 -> P1: Q0 (0 0) (1 1); -> P2: Q0 (1 1); -> P3: Q0 (1 0) (1 1)
 *   P1 -> P0: (0 1) Q1; -> P2: Q1 (0 2) (1 3)
 *   P2 -> P0: (1 2); -> P1: (1 2) Q2 (2 3); -> P3: Q2 (2 2) (3 2)
 *   P3 -> P0: Q3 (2 1) (2 0); -> P1: Q3; -> P2: Q3 (3 1) (2 1)
 * 11 messages, 27 hnodes; useless: Q0 at P2 (it holds c7 of Q1's region,
 * not Q1, and needs Q1, not Q0) and Q3 at P1 (c3 of Q0's region, no Q0):
 * 2. Roots: R; c3, Q1; c7, Q2; Q3: 6.
 *
 * Level by level (levels = each; the tree's levels 0 to 2, so three
 * collections, the root's with nothing to send) every (sender, receiver)
 * pair sends apart what it sends of level 1 and of level 2. 2 ranks: each
 * needs 2 squares of level 1 (its Q's across to the other's) and 4 of
 * level 2 from the other, so a push per pair and level: 4 pushes. 4
 * ranks, the pairs that need squares of level 1: P0 of P3 and P1, P1 of
 * P2 and P0, P2 of P1 and P3, P3 of P0 and P2: 8; of level 2: P0 of P1,
 * P3 and P2, P1 of P0 and P2, P2 of P1, P0 and P3, P3 of P2 and P0: 10;
 * so informed pushes 18 messages (its announcements, of every level at
 * once, the same 10). Fault prevention's pushes above, by level: P0 sends
 * Q0 (level 1) and cells (level 2) to each of P1, P2, P3 (6 messages),
 * P1 to P0 and P2 (4), P2 to P0 only cells, to P1 and P3 both (5), P3 to
 * P0 and P2 both, to P1 Q3 alone (5): 20, the same 27 hnodes and 2
 * useless. (No leaf lies above level 2, so none goes to a deeper level's
 * collection.) Request/answer and fault prevention learn how many
 * messages reach them from a reduce-scatter per level, 3 a step.
 *
 * With section 5.3's synchronisation (sync = messages) fault prevention
 * and informed end each collection with a message from every rank to
 * every other, and no reduce-scatter tells fault prevention its counts:
 * 3 collections x p (p - 1), 6 messages on 2 ranks, 36 on 4. */
typedef struct {
  guint ranks;
  const char *collect;
  gboolean by_level, sync;
  guint64 loads[4];
  double needed, control, data, received, useless, roots;
} HandCase;

static const HandCase hand_cases[] = {
    /* request/answer: a request and an answer per square */
    {2, "request-answer", FALSE, FALSE, {10, 11}, 12, 12, 12, 12, 0, 4},
    {4, "request-answer", FALSE, FALSE, {5, 5, 6, 5}, 25, 25, 25, 25, 0, 6},
    /* fault prevention: one push per (owner, destination) pair */
    {2, "fault-prevention", FALSE, FALSE, {10, 11}, 12, 0, 2, 12, 0, 4},
    {4, "fault-prevention", FALSE, FALSE, {5, 5, 6, 5}, 25, 0, 11, 27, 2, 6},
    /* informed, its first step: an announcement of depths and a push per
     * (rank, owner) pair; informed-needs: a list of squares and a push */
    {2, "informed", FALSE, FALSE, {10, 11}, 12, 2, 2, 12, 0, 4},
    {4, "informed", FALSE, FALSE, {5, 5, 6, 5}, 25, 10, 10, 25, 0, 6},
    {2, "informed-needs", FALSE, FALSE, {10, 11}, 12, 2, 2, 12, 0, 4},
    {4, "informed-needs", FALSE, FALSE, {5, 5, 6, 5}, 25, 10, 10, 25, 0, 6},
    /* level by level: the same requests and answers; a push per pair and
     * level */
    {2, "request-answer", TRUE, FALSE, {10, 11}, 12, 12, 12, 12, 0, 4},
    {4, "request-answer", TRUE, FALSE, {5, 5, 6, 5}, 25, 25, 25, 25, 0, 6},
    {2, "fault-prevention", TRUE, FALSE, {10, 11}, 12, 0, 4, 12, 0, 4},
    {4, "fault-prevention", TRUE, FALSE, {5, 5, 6, 5}, 25, 0, 20, 27, 2, 6},
    {2, "informed", TRUE, FALSE, {10, 11}, 12, 2, 4, 12, 0, 4},
    {4, "informed", TRUE, FALSE, {5, 5, 6, 5}, 25, 10, 18, 25, 0, 6},
    {2, "informed-needs", TRUE, FALSE, {10, 11}, 12, 2, 4, 12, 0, 4},
    {4, "informed-needs", TRUE, FALSE, {5, 5, 6, 5}, 25, 10, 18, 25, 0, 6},
    /* level by level, each collection ended by section 5.3's
     * synchronisation: the same pushes */
    {2, "fault-prevention", TRUE, TRUE, {10, 11}, 12, 0, 4, 12, 0, 4},
    {4, "fault-prevention", TRUE, TRUE, {5, 5, 6, 5}, 25, 0, 20, 27, 2, 6},
    {2, "informed", TRUE, TRUE, {10, 11}, 12, 2, 4, 12, 0, 4},
    {4, "informed", TRUE, TRUE, {5, 5, 6, 5}, 25, 10, 18, 25, 0, 6},
};

static void
test_hand(gconstpointer data)
{
  const HandCase *c = data;
  g_autofree char *ini = g_strdup_printf(
      "[scenario]\nplatform = hypercube-4.xml\nranks = %u\nsteps = 1\n"
      "[workload]\nmodel = htree\ndim = 2\nmin-level = 2\nmax-level = 2\nelements = 1\n"
      "load = constant\n[balancers]\nrun = sfc-shift\n"
      "[sfc-shift]\ncurve = hilbert\nthreshold = 1\ncollect = %s\nmerge = 15\nra-batch = 1\n"
      "levels = %s\nsync = %s\n",
      c->ranks, c->collect, c->by_level ? "each" : "together", c->sync ? "messages" : "counts");
  g_autoptr(LbScenario) sc = load_text(ini);
  g_assert_cmpuint(lb_htree_size(lb_htree_of(sc->work)), ==, 21);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) results = run_all(sc, &error);
  g_assert_no_error(error);
  const LbRunResult *r = results->pdata[0];
  for (guint k = 0; k < c->ranks; k++)
    g_assert_cmpuint(r->final_loads[k], ==, c->loads[k]);
  g_assert_cmpfloat(metric(r, "triggered"), ==, 0);
  g_assert_cmpfloat(metric(r, "roots"), ==, c->roots);
  g_assert_cmpfloat(metric(r, "collect-hnodes-needed"), ==, c->needed);
  g_assert_cmpfloat(metric(r, "collect-control-messages"), ==, c->control);
  g_assert_cmpfloat(metric(r, "collect-data-messages"), ==, c->data);
  g_assert_cmpfloat(metric(r, "collect-hnodes-received"), ==, c->received);
  g_assert_cmpfloat(metric(r, "collect-useless"), ==, c->useless);
  /* the reduce-scatters of message counts: one a step, or one a level;
   * none for fault prevention's pushes when synchronisation messages end
   * its collections */
  gboolean fp = strcmp(c->collect, "fault-prevention") == 0;
  gboolean per_level = c->by_level && (strcmp(c->collect, "request-answer") == 0 || fp);
  double phases = c->by_level ? 3 : 1, sync = c->sync ? phases * c->ranks * (c->ranks - 1) : 0;
  g_assert_cmpfloat(metric(r, "collect-phases"), ==, phases);
  g_assert_cmpfloat(metric(r, "collect-sync-messages"), ==, sync);
  double scatters = c->sync && fp ? 0 : per_level ? 3 : 1;
  g_assert_cmpfloat(metric(r, "ghost-messages"), ==,
                    c->control + c->data + sync +
                        scatters * (double)reduce_scatter_messages(c->ranks));
}

/* Section 5.3's receives are posted ahead (an MPI_Irecv from any source,
 * posted again after each message), so that what others send a rank
 * travels while it waits. The tree above on 2 ranks of the T3E-like torus
 * (neighbours: 10 us and a hop of 50 ns a message, 300 MB/s), fault
 * prevention a point a message: each rank takes 6 pushes of the other's.
 * The collection is the reduce-scatter's round (one message each way),
 * then the first push, then the five others at once, each 104 bytes: 3
 * transfers of 10.05 us and 0.35 us, and the five pushes' bytes on one
 * link, about 32.3 us. Taken one at a time, as blocking receives did, each
 * push's transfer waits for the last: 7 transfers, 72.5 us. */
static void
test_posted_receives(void)
{
  g_autoptr(LbScenario) sc =
      load_text("[scenario]\nplatform = t3e-512.xml\nranks = 2\nsteps = 1\n"
                "[workload]\nmodel = htree\ndim = 2\nmin-level = 2\nmax-level = 2\nelements = 1\n"
                "load = constant\nflops-per-unit = 1\n[balancers]\nrun = sfc-shift\n"
                "[sfc-shift]\ncollect = fault-prevention\nmerge = 1\nlevels = together\n"
                "sync = counts\n");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) results = run_all(sc, &error);
  g_assert_no_error(error);
  const LbRunResult *r = results->pdata[0];
  g_assert_cmpfloat(metric(r, "collect-data-messages"), ==, 12);
  g_assert_cmpfloat(metric(r, "ghost-bytes"), ==, 12 * 104 + 2 * 8);
  double ghost = metric(r, "ghost-time");
  g_assert_cmpfloat(ghost, >, 3 * 10.05e-6);
  g_assert_cmpfloat(ghost, <, 3 * 10.05e-6 + 3e-6);
}

/* Level by level, each collection is followed by that level's
 * computation, so a level's imbalance is waited for even when the ranks'
 * totals are close (the seed's "highly irregular grid hierarchy"). The
 * tree above on 2 ranks, 1e6 flops an hnode at 10 Mflop/s (0.1 s): P0
 * holds R, Q0, Q1 and 7 cells (levels 0, 1, 2: 0.1, 0.2 and 0.7 s of
 * work), P1 Q2, Q3 and 9 cells (0.2 and 0.9 s). Down the V-cycle: level
 * 2, P0 computes 0.7 s, P1 0.9 s; level 1, P0 waits for P1's squares,
 * sent when P1 is done at 0.9 s, then computes 0.2 s; level 0, 0.1 s: P0
 * ends at 1.2 s, having waited 0.2 s; P1 at 1.1 s. Collected together,
 * the step's work after the collection, P0 ends at 1.0 s and P1 at 1.1 s.
 * Either way each rank computes its own work once: 1.1 s at most. The
 * messages take well under 10 ms on the hypercube. */
static void
test_levels_compute(void)
{
  static const char *const levels[] = {"each", "together"};
  static const double app[] = {1.2, 1.1}, waited[] = {0.2, 0.0};
  for (guint k = 0; k < 2; k++) {
    g_autofree char *ini = g_strdup_printf(
        "[scenario]\nplatform = hypercube-4.xml\nranks = 2\nsteps = 1\n"
        "[workload]\nmodel = htree\ndim = 2\nmin-level = 2\nmax-level = 2\nelements = 1\n"
        "load = constant\nflops-per-unit = 1e6\n[balancers]\nrun = sfc-shift\n"
        "[sfc-shift]\nthreshold = 1\nlevels = %s\n",
        levels[k]);
    g_autoptr(LbScenario) sc = load_text(ini);
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) results = run_all(sc, &error);
    g_assert_no_error(error);
    const LbRunResult *r = results->pdata[0];
    g_assert_cmpuint(r->final_loads[0], ==, 10);
    g_assert_cmpuint(r->final_loads[1], ==, 11);
    g_test_message("levels = %s: application %.6f s, compute %.6f s, collection %.6f s", levels[k],
                   r->adaptations[0].app_time, metric(r, "compute-time"), metric(r, "ghost-time"));
    g_assert_cmpfloat(fabs(metric(r, "compute-time") - 1.1), <, 1e-9);
    g_assert_cmpfloat(r->adaptations[0].app_time, >, app[k]);
    g_assert_cmpfloat(r->adaptations[0].app_time, <, app[k] + 0.01);
    g_assert_cmpfloat(metric(r, "ghost-time"), >, waited[k]);
    g_assert_cmpfloat(metric(r, "ghost-time"), <, waited[k] + 0.01);
  }
}

/* Informed fault prevention over two steps, by hand: the Poisson tree of
 * levels 2 to 3 with tolerance 1, then 0.1: step 0 is the uniform tree
 * of level 2 above (no square's error estimate reaches 1), and at step 1
 * the one of (3 3), 0.53 (the next, 0.023), splits into its four cells of
 * level 3. 3 ranks: the blocking cuts the 21 hnodes 7, 7, 7:
 * P0 = R Q0 c0-c3 Q1, P1 = c4-c7 Q2 c8 c9, P2 = c10 c11 Q3 c12-c15, so
 *   y 3:  P1 P1 P1 P2
 *   y 2:  P1 P1 P1 P2
 *   y 1:  P0 P0 P2 P2
 *   y 0:  P0 P0 P2 P2
 * with Q0, Q1 on P0, Q2 on P1, Q3 on P2. Each rank announces to each
 * owner the hnodes that have a square of it across a face:
 *   P0 -> P1: Q1 (Q2), (1 1) ((1 2)), (0 1) ((0 2));
 *   P0 -> P2: Q0 (Q3), (1 0) ((2 0)), (1 1) ((2 1));
 *   P1 -> P0: Q2 (Q1), (0 2) ((0 1)), (1 2) ((1 1));
 *   P1 -> P2: Q2 (Q3), (2 2) ((3 2), (2 1)), (2 3) ((3 3));
 *   P2 -> P0: Q3 (Q0), (2 1) ((1 1)), (2 0) ((1 0));
 *   P2 -> P1: Q3 (Q2), (3 3) ((2 3)), (3 2) ((2 2)), (2 1) ((2 2)):
 * 6 messages, 19 hnodes; the squares needed, 19 (P1 needs 4 from P2, P2
 * 3 from P1), each an hnode: 6 pushes of 19 hnodes. Step 1, threshold 1
 * (T = 8.3 > 11 - 25/3): no rebalancing. The new cells of level 3 go to
 * P2 with (3 3); of them (6 6) and (6 7) have (5 6) and (5 7), inside P1's
 * leaf (2 3), across a face: P2 announces those 2 to P1, and nothing else
 * changed: 1 message. P2 needs 21 squares now, P1 still covers them with
 * (2 3), which it pushes already: 6 pushes of 19 hnodes again. lbsim's
 * informed-needs sends its 6 lists both steps (19, then 21 squares). With
 * threshold 0.01 step 1 rebalances, and informed announces every
 * boundary anew: one message per (rank, owner) pair, as informed-needs. */
typedef struct {
  const char *collect;
  double threshold;
  double control[2], announced[2], data[2], needed[2], received[2];
} IfpCase;

static const IfpCase ifp_cases[] = {
    {"informed", 1, {6, 1}, {19, 2}, {6, 6}, {19, 21}, {19, 19}},
    {"informed-needs", 1, {6, 6}, {19, 21}, {6, 6}, {19, 21}, {19, 19}},
};

static GPtrArray *
run_ifp_tree(const char *collect, double threshold, const char *tree_update)
{
  g_autofree char *ini = g_strdup_printf(
      "[scenario]\nplatform = hypercube-4.xml\nranks = 3\nsteps = 2\n"
      "[workload]\nmodel = htree\ndim = 2\nrefine = poisson\nmin-level = 2\nmax-level = 3\n"
      "tolerance = 1\ntolerance-decay = 0.1\nload = constant\n[balancers]\nrun = sfc-shift\n"
      "[sfc-shift]\ncurve = hilbert\nthreshold = %g\ncollect = %s\nmerge = 15\n"
      "levels = together\nsync = counts\ntree-update = %s\n",
      threshold, collect, tree_update);
  g_autoptr(LbScenario) sc = load_text(ini);
  g_assert_cmpuint(lb_htree_size(lb_htree_of(sc->work)), ==, 21);
  g_autoptr(GError) error = NULL;
  GPtrArray *results = run_all(sc, &error);
  g_assert_no_error(error);
  return results;
}

static GPtrArray *
run_ifp(const char *collect, double threshold)
{
  return run_ifp_tree(collect, threshold, "shift");
}

/* The replicated tree is made anew after a shift (section 5.3: "If the
 * load is to be rebalanced, the elements are shifted ... Then, the
 * processes exchange the roots of their new private H-Trees"): on the
 * tree above, step 1 adds the cells of (3 3) to P2, which holds (3 3), so
 * no segment's private roots change, and with threshold 1 nothing
 * shifts: the tree's allgather (2 (p - 1) = 4 messages) at step 0 only;
 * with threshold 0.01 step 1 shifts, and it comes again; every step with
 * tree-update = every-step. The allgather of the loads carries the flag
 * every step: 4 messages each. */
static void
test_tree_update(void)
{
  static const struct {
    double threshold;
    const char *tree_update;
    double tree[2];
  } cases[] = {
      {1, "shift", {4, 0}},
      {0.01, "shift", {4, 4}},
      {1, "every-step", {4, 4}},
  };
  for (guint k = 0; k < G_N_ELEMENTS(cases); k++) {
    g_autoptr(GPtrArray) results =
        run_ifp_tree("informed", cases[k].threshold, cases[k].tree_update);
    const LbRunResult *r = results->pdata[0];
    for (guint s = 0; s < 2; s++) {
      g_assert_cmpfloat(step_metric(r, s, "triggered"), ==, s == 1 && cases[k].threshold < 1);
      g_assert_cmpfloat(step_metric(r, s, "tree-messages"), ==, cases[k].tree[s]);
      g_assert_cmpfloat(step_metric(r, s, "detect-messages"), ==, 4);
    }
  }
}

static void
test_informed_steps(gconstpointer data)
{
  const IfpCase *c = data;
  g_autoptr(GPtrArray) results = run_ifp(c->collect, c->threshold);
  const LbRunResult *r = results->pdata[0];
  g_assert_cmpuint(r->nadaptations, ==, 2);
  g_assert_cmpuint(r->adaptations[1].total_load, ==, 25);
  for (guint k = 0; k < 3; k++)
    g_assert_cmpuint(r->final_loads[k], ==, k == 2 ? 11 : 7);
  for (guint s = 0; s < 2; s++) {
    g_assert_cmpfloat(step_metric(r, s, "triggered"), ==, 0);
    g_assert_cmpfloat(step_metric(r, s, "collect-control-messages"), ==, c->control[s]);
    g_assert_cmpfloat(step_metric(r, s, "collect-announced"), ==, c->announced[s]);
    g_assert_cmpfloat(step_metric(r, s, "collect-data-messages"), ==, c->data[s]);
    g_assert_cmpfloat(step_metric(r, s, "collect-hnodes-needed"), ==, c->needed[s]);
    g_assert_cmpfloat(step_metric(r, s, "collect-hnodes-received"), ==, c->received[s]);
    g_assert_cmpfloat(step_metric(r, s, "collect-useless"), ==, 0);
    /* the reduce-scatter of message counts: 2(p - 1) at p = 3 */
    g_assert_cmpfloat(step_metric(r, s, "ghost-messages"), ==,
                      c->control[s] + c->data[s] + (double)reduce_scatter_messages(3));
  }
}

/* After a rebalancing informed announces every boundary anew, one message
 * per (rank, owner) pair, as informed-needs sends its lists; the data the
 * same, nothing useless. */
static void
test_informed_rebalanced(void)
{
  g_autoptr(GPtrArray) ifp = run_ifp("informed", 0.01);
  g_autoptr(GPtrArray) needs = run_ifp("informed-needs", 0.01);
  const LbRunResult *a = ifp->pdata[0], *b = needs->pdata[0];
  g_assert_cmpfloat(step_metric(a, 1, "triggered"), ==, 1);
  g_assert_cmpmem(a->final_loads, 3 * sizeof(guint64), b->final_loads, 3 * sizeof(guint64));
  g_assert_cmpuint(a->final_loads[2], <, 11);
  g_assert_cmpfloat(step_metric(a, 1, "collect-control-messages"), ==,
                    step_metric(b, 1, "collect-control-messages"));
  g_assert_cmpfloat(step_metric(a, 1, "collect-announced"), >, 2);
  g_assert_cmpfloat(step_metric(a, 1, "collect-data-messages"), ==,
                    step_metric(b, 1, "collect-data-messages"));
  g_assert_cmpfloat(step_metric(a, 1, "collect-hnodes-received"), ==,
                    step_metric(b, 1, "collect-hnodes-received"));
  g_assert_cmpfloat(metric(a, "collect-useless"), ==, 0);
}

#define ORDERING_2D                                                                                \
  "[scenario]\nplatform = hypercube-32.xml\nranks = 32\nseed = 5\nsteps = 3\n"                     \
  "[workload]\nmodel = htree\ndim = 2\nmax-level = 12\nelements = 60000\nload = measured\n"        \
  "pattern = clusters\nclusters = 4\ninterval = 1\nwidth = 0.03\ngrowth = 0.01\n"                  \
  "amplitude = 1000\nbase = 2\n"
#define ORDERING_3D                                                                                \
  "[scenario]\nplatform = hypercube-16.xml\nranks = 16\nseed = 6\nsteps = 3\n"                     \
  "[workload]\nmodel = htree\ndim = 3\nmax-level = 7\nelements = 20000\nload = measured\n"         \
  "pattern = clusters\nclusters = 3\ninterval = 1\nwidth = 0.05\ngrowth = 0.02\n"                  \
  "amplitude = 1000\nbase = 2\n"

/* The seed's Fig. 1 compares the overall amount of data the three
 * strategies exchange: informed fault prevention least, then fault
 * prevention, then request/answer. On irregular trees, 2D and 3D,
 * collected for all levels at once: bytes in that order, and the
 * collection's messages (answers, pushes) too: informed pushes a subset
 * of fault prevention's hnodes to a subset of its ranks, and none
 * useless. Counted with its announcements of depths, informed's messages
 * are not fewer than fault prevention's on these trees: every step
 * rebalances, after which the seed announces every boundary anew, one
 * message per (rank, owner) pair. Level by level informed still sends the
 * least, but fault prevention's leaves go in every deeper level's
 * collection too, and on these trees (leaves of level 3 beside level 12)
 * its bytes pass request/answer's. Without the synchronisation messages
 * (sync = counts), p (p - 1) a collection, which on 32 ranks and 12
 * levels outnumber request/answer's. */
static void
ordering_in(gconstpointer data, gboolean by_level)
{
  g_autofree char *base = g_strdup_printf(
      "%s[balancers]\nrun = sfc-shift\n[sfc-shift]\nsync = counts\nlevels = %s\ncollect = ",
      (const char *)data, by_level ? "each" : "together");
  static const char *const strategies[] = {"request-answer", "fault-prevention", "informed"};
  const LbRunResult *r[3];
  GPtrArray *keep[3];
  for (guint k = 0; k < 3; k++) {
    g_autofree char *ini = g_strconcat(base, strategies[k], "\n", NULL);
    g_autoptr(LbScenario) sc = load_text(ini);
    g_autoptr(GError) error = NULL;
    keep[k] = run_all(sc, &error);
    g_assert_no_error(error);
    r[k] = keep[k]->pdata[0];
  }
  const LbRunResult *ra = r[0], *fp = r[1], *ifp = r[2];
  g_test_message(
      "messages %.0f %.0f %.0f, bytes %.0f %.0f %.0f, useless %.0f", metric(ra, "ghost-messages"),
      metric(fp, "ghost-messages"), metric(ifp, "ghost-messages"), metric(ra, "ghost-bytes"),
      metric(fp, "ghost-bytes"), metric(ifp, "ghost-bytes"), metric(fp, "collect-useless"));
  g_assert_cmpfloat(metric(ifp, "ghost-bytes"), <, metric(fp, "ghost-bytes"));
  g_assert_cmpfloat(metric(ifp, "ghost-bytes"), <, metric(ra, "ghost-bytes"));
  if (!by_level)
    g_assert_cmpfloat(metric(fp, "ghost-bytes"), <, metric(ra, "ghost-bytes"));
  g_assert_cmpfloat(metric(fp, "ghost-messages"), <, metric(ra, "ghost-messages"));
  g_assert_cmpfloat(metric(ifp, "ghost-messages"), <, metric(ra, "ghost-messages"));
  g_assert_cmpfloat(metric(ifp, "collect-data-messages"), <, metric(fp, "collect-data-messages"));
  g_assert_cmpfloat(metric(fp, "collect-data-messages"), <, metric(ra, "collect-data-messages"));
  g_assert_cmpfloat(metric(fp, "collect-useless"), >, 0);
  g_assert_cmpfloat(metric(ifp, "collect-useless"), ==, 0);
  /* the same partition under all three */
  for (guint k = 1; k < 3; k++)
    g_assert_cmpmem(r[k]->final_loads, ra->ranks * sizeof(guint64), ra->final_loads,
                    ra->ranks * sizeof(guint64));
  for (guint k = 0; k < 3; k++)
    g_ptr_array_unref(keep[k]);
}

static void
test_ordering(gconstpointer data)
{
  for (guint mode = 0; mode < 2; mode++)
    ordering_in(data, mode == 1);
}

/* The seed's multigrid case as shipped, four of its steps, under each
 * strategy (the scenario runs informed): the same partition; request/answer
 * a request and an answer per square; informed nothing useless, fault
 * prevention some; the collection's messages informed < fault prevention <
 * request/answer, and request/answer the most bytes. The scenario counts
 * (sync = counts): the synchronisation messages, counted by hand above,
 * would be 44 collections x 64 x 63 a step here. */
static void
test_poisson_strategies(void)
{
  static const char *const sets[][3] = {
      {"sfc-shift.collect=request-answer", "scenario.steps=4", NULL},
      {"sfc-shift.collect=fault-prevention", "scenario.steps=4", NULL},
      {"sfc-shift.collect=informed", "scenario.steps=4", NULL},
  };
  g_autofree char *path =
      g_build_filename(source_root(), "scenarios", "sfc-poisson-t3e-64.ini", NULL);
  const LbRunResult *r[3];
  GPtrArray *keep[3];
  for (guint k = 0; k < 3; k++) {
    LbScenarioOverrides ov = {.balancer = "sfc-shift", .sets = sets[k]};
    g_autoptr(GError) error = NULL;
    g_autoptr(LbScenario) sc = lb_scenario_load(path, &ov, &error);
    g_assert_no_error(error);
    keep[k] = run_all(sc, &error);
    g_assert_no_error(error);
    r[k] = keep[k]->pdata[0];
    g_assert_cmpuint(r[k]->nadaptations, ==, 4);
  }
  const LbRunResult *ra = r[0], *fp = r[1], *ifp = r[2];
  g_test_message(
      "messages %.0f %.0f %.0f, bytes %.0f %.0f %.0f, useless %.0f", metric(ra, "ghost-messages"),
      metric(fp, "ghost-messages"), metric(ifp, "ghost-messages"), metric(ra, "ghost-bytes"),
      metric(fp, "ghost-bytes"), metric(ifp, "ghost-bytes"), metric(fp, "collect-useless"));
  for (guint k = 1; k < 3; k++)
    g_assert_cmpmem(r[k]->final_loads, ra->ranks * sizeof(guint64), ra->final_loads,
                    ra->ranks * sizeof(guint64));
  double needed = metric(ra, "collect-hnodes-needed");
  g_assert_cmpfloat(metric(fp, "collect-hnodes-needed"), ==, needed);
  g_assert_cmpfloat(metric(ifp, "collect-hnodes-needed"), ==, needed);
  g_assert_cmpfloat(metric(ra, "collect-control-messages"), ==, needed);
  g_assert_cmpfloat(metric(ra, "collect-data-messages"), ==, needed);
  g_assert_cmpfloat(metric(ra, "collect-useless"), ==, 0);
  g_assert_cmpfloat(metric(fp, "collect-useless"), >, 0);
  g_assert_cmpfloat(metric(ifp, "collect-useless"), ==, 0);
  g_assert_cmpfloat(metric(ifp, "collect-data-messages"), <, metric(fp, "collect-data-messages"));
  g_assert_cmpfloat(metric(fp, "collect-data-messages"), <, metric(ra, "collect-data-messages"));
  g_assert_cmpfloat(metric(fp, "ghost-bytes"), <, metric(ra, "ghost-bytes"));
  g_assert_cmpfloat(metric(ifp, "ghost-bytes"), <, metric(ra, "ghost-bytes"));
  for (guint k = 0; k < 3; k++)
    g_ptr_array_unref(keep[k]);
}

/* ---- determinism, and what the curve changes ---- */

static void
test_determinism(void)
{
  g_autofree char *dir = g_dir_make_tmp("lbsim-sfc-XXXXXX", NULL);
  g_autofree char *ini = g_build_filename(dir, "s.ini", NULL);
  g_autofree char *text = g_strdup_printf("%s[balancers]\nrun = none; sfc-shift\n"
                                          "[sfc-shift]\ncollect = fault-prevention\n",
                                          CHANGING_2D);
  g_assert_true(g_file_set_contents(ini, text, -1, NULL));
  char *json[2];
  for (guint k = 0; k < 2; k++) {
    g_autofree char *out = g_strdup_printf("%s/out-%u.json", dir, k);
    g_auto(Result) r = {0};
    lbsim(&r, "run", "-q", "-j", "2", ini, "--detail", "--json", out, NULL);
    g_assert_cmpint(r.status, ==, 0);
    g_autofree char *raw = NULL;
    g_assert_true(g_file_get_contents(out, &raw, NULL, NULL));
    g_assert_nonnull(strstr(raw, "\"measured\": {"));
    json[k] = json_without_measured(raw);
    g_unlink(out);
  }
  g_assert_cmpstr(json[0], ==, json[1]);
  g_assert_nonnull(strstr(json[0], "\"transfers\""));
  g_free(json[0]);
  g_free(json[1]);
  g_unlink(ini);
  g_rmdir(dir);
}

/* The same tree under the two curves: the blockings worked out here
 * differ, and each run ends with its own. */
static void
test_curves(void)
{
  static const char *const names[] = {"hilbert", "morton"};
  guint64 loads[2][16];
  const LbRunResult *runs[2];
  GPtrArray *keep[2];
  for (guint k = 0; k < 2; k++) {
    g_autofree char *ini = g_strdup_printf("%s[balancers]\nrun = sfc-shift\n[sfc-shift]\n"
                                           "curve = %s\nthreshold = 1000\n",
                                           CHANGING_2D, names[k]);
    g_autoptr(LbScenario) sc = load_text(ini);
    LbCurveKind curve = LB_CURVE_HILBERT;
    g_assert_true(lb_curve_parse(names[k], &curve));
    g_autofree StepPlan *plan = g_new0(StepPlan, sc->nadaptations);
    plan_run(sc, curve, 1000, 1, plan, loads[k]);
    g_autoptr(GError) error = NULL;
    keep[k] = run_all(sc, &error);
    g_assert_no_error(error);
    runs[k] = keep[k]->pdata[0];
    g_assert_cmpmem(runs[k]->final_loads, 16 * sizeof(guint64), loads[k], sizeof loads[k]);
  }
  g_assert_true(memcmp(loads[0], loads[1], sizeof loads[0]) != 0);
  g_assert_cmpfloat(metric(runs[0], "collect-hnodes-needed"), !=,
                    metric(runs[1], "collect-hnodes-needed"));
  g_ptr_array_unref(keep[0]);
  g_ptr_array_unref(keep[1]);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS(plan_cases); i++) {
    g_autofree char *path = g_strdup_printf("/sfc-sim/plan/%s", plan_cases[i].name);
    g_test_add_data_func(path, &plan_cases[i], test_plan);
  }
  g_test_add_func("/sfc-sim/options", test_options);
  lb_balancer_register(&order_hilbert);
  lb_balancer_register(&order_morton);
  g_test_add_func("/sfc-sim/range", test_range);
  for (guint i = 0; i < G_N_ELEMENTS(hand_cases); i++) {
    g_autofree char *path =
        g_strdup_printf("/sfc-sim/hand/%s-%u%s%s", hand_cases[i].collect, hand_cases[i].ranks,
                        hand_cases[i].by_level ? "-levels" : "", hand_cases[i].sync ? "-sync" : "");
    g_test_add_data_func(path, &hand_cases[i], test_hand);
  }
  for (guint i = 0; i < G_N_ELEMENTS(ifp_cases); i++) {
    g_autofree char *path = g_strdup_printf("/sfc-sim/informed-steps/%s", ifp_cases[i].collect);
    g_test_add_data_func(path, &ifp_cases[i], test_informed_steps);
  }
  g_test_add_func("/sfc-sim/informed-rebalanced", test_informed_rebalanced);
  g_test_add_func("/sfc-sim/posted-receives", test_posted_receives);
  g_test_add_func("/sfc-sim/levels-compute", test_levels_compute);
  g_test_add_func("/sfc-sim/tree-update", test_tree_update);
  g_test_add_data_func("/sfc-sim/ordering/2d", ORDERING_2D, test_ordering);
  g_test_add_data_func("/sfc-sim/ordering/3d", ORDERING_3D, test_ordering);
  g_test_add_func("/sfc-sim/poisson-strategies", test_poisson_strategies);
  g_test_add_func("/sfc-sim/determinism", test_determinism);
  g_test_add_func("/sfc-sim/curves", test_curves);
  return g_test_run();
}
