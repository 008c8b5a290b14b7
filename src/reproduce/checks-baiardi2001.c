/* The checks of F. Baiardi, S. Chiti, P. Mori and L. Ricci, "Integrating
 * load balancing and locality in the parallelization of irregular
 * problems" (Future Generation Computer Systems 17, 2001): the efficiency
 * of Fig. 2 and the work an hnode needs for an efficiency. */
#include <math.h>
#include <string.h>

#include "lbsim/balancer.h"
#include "reproduce/checks-common.h"

/* ---- baiardi2001: efficiency (Fig. 2) ---- */

/* The name of the [run:NAME] a run of the claim belongs to: its point
 * reads "NAME: ranks=16 ...". */
static char *
run_name_of(const LbCheckRun *run)
{
  const char *colon = strchr(run->point, ':');
  return colon != NULL ? g_strndup(run->point, (gsize)(colon - run->point)) : g_strdup(run->point);
}

static gboolean
efficiency_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  guint64 p = 0;
  if (!g_ascii_string_to_unsigned(args[1], 10, 2, 1 << 20, &p, NULL))
    return lb_check_fail(error, "check efficiency: P '%s' is not a processor count of 2 or more",
                         args[1]);
  return TRUE;
}

/* One [run:]'s efficiencies: T(1) / (p T(p)) over the total simulated
 * time (balancing and the application: computation and collection) of
 * LABEL's runs, in %; ps its processor counts, ascending. */
typedef struct {
  char *name;
  GArray *ps;    /* guint */
  GArray *times; /* double, T(p) */
} EfficiencyRun;

static void
efficiency_run_clear(gpointer data)
{
  EfficiencyRun *e = data;
  g_free(e->name);
  g_array_unref(e->ps);
  g_array_unref(e->times);
}

static double
efficiency_at(const EfficiencyRun *e, guint p)
{
  double one = NAN, at = NAN;
  for (guint k = 0; k < e->ps->len; k++) {
    if (g_array_index(e->ps, guint, k) == 1)
      one = g_array_index(e->times, double, k);
    if (g_array_index(e->ps, guint, k) == p)
      at = g_array_index(e->times, double, k);
  }
  return 100.0 * one / (p * at);
}

/* Fig. 2: lbsim's efficiency T(1) / (p T(p)), T the run's total simulated
 * time. With one run: its efficiency on P p-nodes. With two (the claim's
 * `run = A, B`): the least difference E_A(p) - E_B(p) over p = 2 .. P
 * (the paper: B's, the irregular hierarchy's, is lower at every p). */
static gboolean
efficiency(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  const char *label = in->args[0];
  guint P = (guint)g_ascii_strtoull(in->args[1], NULL, 10);
  g_autoptr(GArray) groups = g_array_new(FALSE, TRUE, sizeof(EfficiencyRun));
  g_array_set_clear_func(groups, efficiency_run_clear);
  for (guint i = 0; i < in->nruns; i++) {
    const LbRunResult *res = in->runs[i].result;
    if (strcmp(res->balancer, label) != 0)
      continue;
    g_autofree char *name = run_name_of(&in->runs[i]);
    EfficiencyRun *e = NULL;
    for (guint k = 0; k < groups->len && e == NULL; k++)
      if (strcmp(g_array_index(groups, EfficiencyRun, k).name, name) == 0)
        e = &g_array_index(groups, EfficiencyRun, k);
    if (e == NULL) {
      EfficiencyRun fresh = {g_strdup(name), g_array_new(FALSE, FALSE, sizeof(guint)),
                             g_array_new(FALSE, FALSE, sizeof(double))};
      g_array_append_val(groups, fresh);
      e = &g_array_index(groups, EfficiencyRun, groups->len - 1);
    }
    for (guint k = 0; k < e->ps->len; k++)
      if (g_array_index(e->ps, guint, k) == res->ranks)
        return lb_check_fail(error, "%s: two runs of %s on %u ranks (vary only the ranks)", name,
                             label, res->ranks);
    guint at = 0;
    while (at < e->ps->len && g_array_index(e->ps, guint, at) < res->ranks)
      at++;
    g_array_insert_val(e->ps, at, res->ranks);
    g_array_insert_val(e->times, at, res->total_time);
  }
  if (groups->len == 0 || groups->len > 2)
    return lb_check_fail(error, "efficiency reads one run or two, each with %s's runs; it has %u",
                         label, groups->len);
  for (guint k = 0; k < groups->len; k++) {
    const EfficiencyRun *e = &g_array_index(groups, EfficiencyRun, k);
    if (g_array_index(e->ps, guint, 0) != 1 || !isfinite(efficiency_at(e, P)))
      return lb_check_fail(error, "%s: efficiency needs %s's runs on 1 and on %u ranks", e->name,
                           label, P);
  }
  g_autoptr(GString) t = g_string_new(NULL);
  g_string_append_printf(t, "%8s", "p-nodes");
  for (guint k = 0; k < groups->len; k++)
    g_string_append_printf(t, "  %28s", g_array_index(groups, EfficiencyRun, k).name);
  g_string_append_printf(t, "\n%8s", "");
  for (guint k = 0; k < groups->len; k++)
    g_string_append_printf(t, "  %14s %13s", "time (s)", "efficiency");
  g_string_append_c(t, '\n');
  const EfficiencyRun *first = &g_array_index(groups, EfficiencyRun, 0);
  double least = G_MAXDOUBLE;
  guint least_p = 0;
  for (guint j = 0; j < first->ps->len; j++) {
    guint p = g_array_index(first->ps, guint, j);
    g_string_append_printf(t, "%8u", p);
    double e[2] = {NAN, NAN};
    for (guint k = 0; k < groups->len; k++) {
      const EfficiencyRun *g = &g_array_index(groups, EfficiencyRun, k);
      double time = NAN;
      for (guint i = 0; i < g->ps->len; i++)
        if (g_array_index(g->ps, guint, i) == p)
          time = g_array_index(g->times, double, i);
      e[k] = efficiency_at(g, p);
      g_string_append_printf(t, "  %14.6f %12.1f%%", time, e[k]);
    }
    g_string_append_c(t, '\n');
    if (groups->len == 2 && p >= 2 && p <= P && isfinite(e[1]) && e[0] - e[1] < least) {
      least = e[0] - e[1];
      least_p = p;
    }
    /* the points: each p from 2 to P, its efficiency or the difference */
    if (p >= 2 && p <= P && (groups->len == 1 || isfinite(e[1])))
      lb_check_output_point(out, groups->len == 1 ? e[0] : e[0] - e[1], "p = %u", p);
  }
  if (groups->len == 1) {
    out->value = efficiency_at(first, P);
    out->note = g_strdup_printf("%s on %u p-nodes: T(1) / (%u T(%u)), total simulated time", label,
                                P, P, P);
  } else {
    const EfficiencyRun *second = &g_array_index(groups, EfficiencyRun, 1);
    if (least_p == 0)
      return lb_check_fail(error, "%s and %s share no processor count from 2 to %u", first->name,
                           second->name, P);
    out->value = least;
    out->note = g_strdup_printf("least E(%s) - E(%s) over p = 2 .. %u: %.1f points at p = %u",
                                first->name, second->name, P, least, least_p);
  }
  out->detail = g_string_free(g_steal_pointer(&t), FALSE);
  return TRUE;
}

/* ---- baiardi2001: the work an hnode needs for an efficiency ---- */

static gboolean
work_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  if (!efficiency_validate(args, nargs, dir, error))
    return FALSE;
  char *end = NULL;
  double e = g_ascii_strtod(args[2], &end);
  if (end == args[2] || *end != '\0' || !(e > 0 && e < 100))
    return lb_check_fail(
        error, "check work-for-efficiency: '%s' is not a percentage between 0 and 100", args[2]);
  return TRUE;
}

/* The claim's run's scenario (its file and --set lines) run as LABEL on
 * `ranks` ranks with every hnode's flops set: its total simulated time. */
static gboolean
time_with_work(const LbCheckRun *run, const char *label, guint ranks, double flops,
               const LbCheckSims *sims, double *time, GError **error)
{
  g_autoptr(GPtrArray) sets = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; run->job->sets != NULL && run->job->sets[i] != NULL; i++)
    if (!g_str_has_prefix(run->job->sets[i], "workload.flops-per-unit="))
      g_ptr_array_add(sets, g_strdup(run->job->sets[i]));
  g_ptr_array_add(sets, g_strdup_printf("workload.flops-per-unit=%.17g", flops));
  g_ptr_array_add(sets, NULL);
  LbScenarioOverrides ov = {(gint)ranks, run->job->platform, label,
                            (const char *const *)sets->pdata};
  g_autoptr(LbScenario) sc = lb_scenario_load(run->job->scenario, &ov, error);
  if (sc == NULL)
    return FALSE;
  g_autofree char *key = g_strdup_printf(
      "run %s\nranks %u\nlabel %s\nworkload.flops-per-unit=%.17g", run->id, ranks, label, flops);
  g_autoptr(LbRunResult) res = lb_check_simulate(sc, &ov, LB_CHECK_KEEP_TOTALS, sims, key, error);
  if (res == NULL)
    return FALSE;
  *time = res->total_time;
  return TRUE;
}

/* Fig. 2's efficiency depends on the work of an hnode, which the paper
 * does not give: the least flops per hnode and step at which LABEL's
 * efficiency on P p-nodes reaches PERCENT. A run's time is its fixed cost
 * (balancing, collection) plus its slowest rank's computation, linear in
 * the flops: two runs at each processor count (the scenario's flops, and
 * 100 times them) give both parts, the equation gives the flops, and a
 * third run at those flops says what efficiency they really give. */
static gboolean
work_for_efficiency(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  const char *label = in->args[0];
  guint P = (guint)g_ascii_strtoull(in->args[1], NULL, 10);
  double e = g_ascii_strtod(in->args[2], NULL) / 100;
  const LbCheckRun *run = NULL;
  for (guint i = 0; i < in->nruns && run == NULL; i++)
    if (strcmp(in->runs[i].result->balancer, label) == 0)
      run = &in->runs[i];
  if (run == NULL)
    return lb_check_fail(error, "no run of %s", label);
  LbScenarioOverrides none = {0, run->job->platform, label, (const char *const *)run->job->sets};
  g_autoptr(LbScenario) sc = lb_scenario_load(run->job->scenario, &none, error);
  if (sc == NULL)
    return FALSE;
  double fa = sc->work->flops_per_unit, fb = 100 * fa;
  if (!(fa > 0))
    return lb_check_fail(error, "%s: the scenario's flops-per-unit is 0", run->point);
  double one[2], many[2];
  if (!time_with_work(run, label, 1, fa, in->sims, &one[0], error) ||
      !time_with_work(run, label, 1, fb, in->sims, &one[1], error) ||
      !time_with_work(run, label, P, fa, in->sims, &many[0], error) ||
      !time_with_work(run, label, P, fb, in->sims, &many[1], error))
    return FALSE;
  /* T(f) = fixed + per_flop f, at 1 and at P ranks */
  double c1 = (one[1] - one[0]) / (fb - fa), o1 = one[0] - c1 * fa;
  double cp = (many[1] - many[0]) / (fb - fa), op = many[0] - cp * fa;
  double limit = 100 * c1 / (P * cp); /* the efficiency of computation alone */
  g_autoptr(GString) t = g_string_new(NULL);
  if (fabs(o1) < 1e-12)
    o1 = 0; /* one p-node communicates nothing: rounding of the subtraction */
  g_autofree char *name = run_name_of(run);
  g_string_append_printf(t,
                         "%s, %s: T(f) = fixed + per-flop x f, f the flops of an hnode a step\n"
                         "  on 1 p-node:   %.4g s + %.6g s x f (runs at f = %g and %g)\n"
                         "  on %u p-nodes: %.4g s + %.6g s x f\n"
                         "  efficiency as f grows: at most %.1f%% (computation alone)\n",
                         name, label, o1, c1, fa, fb, P, op, cp, limit);
  if (limit <= 100 * e) {
    out->value = INFINITY;
    out->note = g_strdup_printf("%.0f%% on %u p-nodes is out of reach: computation alone gives "
                                "%.1f%%",
                                100 * e, P, limit);
    out->detail = g_string_free(g_steal_pointer(&t), FALSE);
    return TRUE;
  }
  double f = MAX((e * P * op - o1) / (c1 - e * P * cp), 0);
  double at1 = 0, atp = 0;
  if (!time_with_work(run, label, 1, f, in->sims, &at1, error) ||
      !time_with_work(run, label, P, f, in->sims, &atp, error))
    return FALSE;
  double measured = 100 * at1 / (P * atp);
  g_string_append_printf(t, "  %.0f%% needs f = %.1f flops; a run at them: %.2f%%\n", 100 * e, f,
                         measured);
  out->value = f;
  out->note = g_strdup_printf("%.0f%% on %u p-nodes needs %.1f flops an hnode a step (a run at "
                              "them: %.2f%%; the scenario has %g)",
                              100 * e, P, f, measured, fa);
  out->detail = g_string_free(g_steal_pointer(&t), FALSE);
  return TRUE;
}

const LbReproCheck lb_checks_baiardi2001[] = {
    {"efficiency", "LABEL P", 2, 2, TRUE, efficiency_validate, efficiency, 0, 0, NULL, -1, NULL},
    {"work-for-efficiency", "LABEL P PERCENT", 3, 3, TRUE, work_validate, work_for_efficiency, 0, 0,
     NULL, -1, NULL},
    {NULL},
};
