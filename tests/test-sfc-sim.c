/* sfc-shift as a simulation. Its runs are checked against what the seed's
 * procedure must do (Baiardi, Chiti, Mori, Ricci, "Integrating load
 * balancing and locality in the parallelization of irregular problems",
 * 2001), worked out here from the model's trees and the plan's arithmetic
 * (sfc-plan.c), without the balancer's messaging: the blocking of the
 * step-0 sequence, the new hnodes on the rank of their parent region, the
 * shifts. Then the range property over changing trees with every option, a
 * data collection small enough to count by hand, determinism, and a
 * balancer whose order disagrees with its distribution. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "balancers/sfc/curve.h"
#include "balancers/sfc/sfc-plan.h"
#include "balancers/sfc/sfc.h"
#include "cli/runner.h"
#include "lbsim-spawn.h"
#include "lbsim/run.h"
#include "lbsim/scenario.h"
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

G_GNUC_UNUSED static double
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

G_GNUC_UNUSED static guint
log2_of(guint p)
{
  guint d = 0;
  while ((1u << d) < p)
    d++;
  g_assert_cmpuint(1u << d, ==, p);
  return d;
}

/* ---- what the balancer must do ---- */

typedef struct {
  guint64 key, id, load;
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
    Hnode h = {lb_sfc_key(curve, work->dim, max_level(work), id), id,
               lb_htree_load(work, tree, at)};
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
    return lb_htree_new_poisson(min, max_level(work),
                                lb_params_get_double(w, "tolerance") *
                                    pow(lb_params_get_double(w, "tolerance-decay"), step));
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
        sp->rounds = sfc_shift(seqs, t, &sp->moved);
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
      c->ranks <= 16 ? "hypercube-16.xml" : "t3e-512.xml",
      c->ranks, c->steps, c->dim, c->workload, c->sfc);
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
     * broadcast: 2(p - 1) messages) when the check runs; two for the
     * replicated tree, of the root counts and of the roots, every step */
    g_assert_cmpfloat(step_metric(res, s, "detect-messages"), ==, sp->detected ? 2.0 * (p - 1) : 0);
    g_assert_cmpfloat(step_metric(res, s, "tree-messages"), ==, 4.0 * (p - 1));
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

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS(plan_cases); i++) {
    g_autofree char *path = g_strdup_printf("/sfc-sim/plan/%s", plan_cases[i].name);
    g_test_add_data_func(path, &plan_cases[i], test_plan);
  }
  return g_test_run();
}
