/* lbsim check's verdicts: every [expect] line of a scenario held against
 * its runs' results. */
#include "report/expect.h"

#include <math.h>
#include <string.h>

#include "metrics/expr.h"

static const LbRunResult *
run_of(GPtrArray *results, const char *label)
{
  const LbRunResult *run = NULL;
  for (guint r = 0; r < results->len; r++)
    if (strcmp(((const LbRunResult *)results->pdata[r])->balancer, label) == 0)
      run = results->pdata[r];
  return run;
}

/* What a formula reads, from the runs and the scenario. */
typedef struct {
  const LbScenario *sc;
  GPtrArray *results;
  guint depth; /* of [let] names within [let] names */
} Figures;

static gboolean
phase_figure(const LbRunResult *run, const char *name, double *value)
{
  const char *phase = name + strlen("phase.");
  const char *dot = strrchr(phase, '.');
  for (guint k = 0; dot != NULL && k < run->nphases; k++) {
    const LbPhaseResult *p = &run->phases[k];
    if (strlen(p->name) != (gsize)(dot - phase) ||
        strncmp(p->name, phase, (gsize)(dot - phase)) != 0)
      continue;
    const char *figure = dot + 1;
    *value = strcmp(figure, "steps") == 0      ? p->rounds
             : strcmp(figure, "messages") == 0 ? (double)p->messages
             : strcmp(figure, "bytes") == 0    ? p->bytes
                                               : p->time;
    return TRUE;
  }
  return FALSE;
}

static gboolean
figure(const char *balancer, const char *name, double *value, gpointer data)
{
  Figures *f = data;
  if (balancer != NULL) {
    const LbRunResult *run = run_of(f->results, balancer);
    if (run == NULL)
      return FALSE;
    if (g_str_has_prefix(name, "phase."))
      return phase_figure(run, name, value);
    return lb_run_result_lookup(run, name, value);
  }
  if (strcmp(name, "ranks") == 0) {
    *value = f->sc->ranks;
    return TRUE;
  }
  if (strcmp(name, "steps") == 0) {
    *value = f->sc->nadaptations;
    return TRUE;
  }
  for (guint i = 0; i < f->sc->lets->len && f->depth < 64; i++) {
    const LbLet *let = f->sc->lets->pdata[i];
    if (strcmp(let->name, name) != 0)
      continue;
    const char *missing = NULL;
    f->depth++;
    gboolean ok = lb_expr_eval(let->expr, figure, f, value, &missing);
    f->depth--;
    return ok;
  }
  return FALSE;
}

GArray *
lb_expect_outcomes(const LbScenario *sc, GPtrArray *results)
{
  GArray *out = g_array_new(FALSE, FALSE, sizeof(LbExpectOutcome));
  for (guint i = 0; i < sc->expects->len; i++) {
    const LbExpect *e = sc->expects->pdata[i];
    const LbRunResult *run = run_of(results, e->balancer);
    const LbRunResult *other =
        e->other_balancer != NULL ? run_of(results, e->other_balancer) : NULL;
    LbExpectOutcome o = {e->text, "skip", NAN, NAN, NULL};
    if (run == NULL || (e->other_balancer != NULL && other == NULL)) {
      o.skipped = run == NULL ? e->balancer : e->other_balancer;
      g_array_append_val(out, o);
      continue;
    }
    double actual = 0, bound = e->value;
    /* the scenario checker knows every metric name already */
    gboolean found = lb_run_result_lookup(run, e->metric, &actual);
    g_assert(found);
    if (e->formula != NULL) {
      Figures f = {sc, results, 0};
      const char *missing = NULL;
      if (!lb_expr_eval(e->formula, figure, &f, &bound, &missing)) {
        o.skipped = missing; /* a balancer the formula reads did not run */
        g_array_append_val(out, o);
        continue;
      }
    }
    if (other != NULL) {
      double theirs = 0;
      found = lb_run_result_lookup(other, e->other_metric, &theirs);
      g_assert(found);
      bound = e->value * theirs;
    }
    o.outcome = lb_expect_holds(e, actual, bound) ? "pass" : "fail";
    o.actual = actual;
    o.bound = bound;
    g_array_append_val(out, o);
  }
  return out;
}

int
lb_expect_print(const LbScenario *sc, const GArray *outcomes)
{
  int failed = 0;
  guint skipped = 0;
  for (guint i = 0; i < outcomes->len; i++) {
    const LbExpectOutcome *o = &g_array_index(outcomes, LbExpectOutcome, i);
    const LbExpect *e = sc->expects->pdata[i];
    if (o->skipped != NULL) {
      g_print("SKIP  %s (balancer %s was not run)\n", o->text, o->skipped);
      skipped++;
      continue;
    }
    gboolean ok = strcmp(o->outcome, "pass") == 0;
    if (e->other_balancer != NULL || e->formula != NULL)
      g_print("%s  %s (actual %.10g, bound %.10g)\n", ok ? "PASS" : "FAIL", o->text, o->actual,
              o->bound);
    else
      g_print("%s  %s (actual %.10g)\n", ok ? "PASS" : "FAIL", o->text, o->actual);
    failed += !ok;
  }
  if (skipped > 0)
    g_print("%u passed, %d failed, %u skipped\n", outcomes->len - failed - skipped, failed,
            skipped);
  else
    g_print("%u passed, %d failed\n", outcomes->len - failed, failed);
  return failed > 0 ? 1 : 0;
}
