/* lbsim reproduce's rules and checks, fed wrong answers: every rule kind
 * refuses a number that breaks it, and every check that reads runs counts
 * a fault when the runs it reads are wrong. (The papers' quick forms and
 * their mutations run in test-cli.) */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "runner/job.h"
#include "runner/transport.h"
#include "reproduce/checks-common.h"
#include "lbsim-spawn.h"
#include "reproduce/claims.h"
#include "lbsim/balancer.h"

/* ---- the rules ---- */

static LbRule
rule(const char *text)
{
  LbRule r;
  g_autoptr(GError) error = NULL;
  g_assert_true(lb_rule_parse(text, &r, &error));
  g_assert_no_error(error);
  return r;
}

static gboolean
judged(const char *text, double paper, const double *values, guint n, double *shown)
{
  LbRule r = rule(text);
  double s = 0;
  guint at = 0;
  gboolean ok = lb_rule_judge(&r, paper, values, n, &s, &at);
  if (shown != NULL)
    *shown = s;
  return ok;
}

static void
test_rules_one_point(void)
{
  LbRule r = rule("within-2x");
  /* two-sided, and of the paper's sign */
  g_assert_true(lb_rule_holds(&r, 12.6, 12.6));
  g_assert_true(lb_rule_holds(&r, 12.6, 6.3));
  g_assert_true(lb_rule_holds(&r, 12.6, 25.2));
  g_assert_false(lb_rule_holds(&r, 12.6, 31.98)); /* 2.5 times: same-sign let it through */
  g_assert_false(lb_rule_holds(&r, 12.6, 6.0));
  g_assert_false(lb_rule_holds(&r, -4.84, 4.84));
  g_assert_true(lb_rule_holds(&r, -4.84, -3.0));
  g_assert_false(lb_rule_holds(&r, -4.84, -10.0));
  g_assert_false(lb_rule_holds(&r, 12.6, NAN));

  r = rule("range 30.5 61");
  g_assert_true(lb_rule_holds(&r, 61, 52.45));
  g_assert_false(lb_rule_holds(&r, 61, 4.0)); /* at-most 61 let it through */
  g_assert_false(lb_rule_holds(&r, 61, 61.5));

  r = rule("exactly 4");
  g_assert_true(lb_rule_holds(&r, 4, 4));
  g_assert_false(lb_rule_holds(&r, 4, 3)); /* fewer steps than stated are not the count */
  g_assert_false(lb_rule_holds(&r, 4, 5));

  r = rule("at-most 3");
  g_assert_true(lb_rule_holds(&r, 3, 2));
  g_assert_false(lb_rule_holds(&r, 3, 4));
  r = rule("at-least 1");
  g_assert_true(lb_rule_holds(&r, 1, 1));
  g_assert_false(lb_rule_holds(&r, 1, 0));

  r = rule("same-sign");
  g_assert_true(lb_rule_holds(&r, 12.6, 300));
  g_assert_false(lb_rule_holds(&r, 12.6, -1));
}

static void
test_rules_families(void)
{
  /* every: all points, the one nearest to breaking the rule shown (here
   * the nearest to an end of the range) */
  const double ratios[] = {1.17, 1.19, 1.70};
  double shown = 0;
  g_assert_true(judged("every range 1 1.8", 1.8, ratios, 3, &shown));
  g_assert_cmpfloat(shown, ==, 1.70);
  const double one_out[] = {1.17, 2.5, 1.20};
  g_assert_false(judged("every range 1 1.8", 1.8, one_out, 3, &shown));
  g_assert_cmpfloat(shown, ==, 2.5);
  const double efficiencies[] = {90, 70, 49};
  g_assert_false(judged("every range 50 100", 50, efficiencies, 3, &shown));
  g_assert_cmpfloat(shown, ==, 49);

  /* spans: the family's least and largest against the paper's ends, not
   * the range at every point */
  const double idle[] = {6.0, 20, 24, 59};
  g_assert_true(judged("spans 5.9 81.2", 81.2, idle, 4, &shown));
  g_assert_cmpfloat(shown, ==, 59);
  const double narrow[] = {20, 24, 30}; /* inside 5.9 .. 81.2 at every point */
  g_assert_false(judged("spans 5.9 81.2", 81.2, narrow, 3, NULL));
  const double none_idle[] = {0, 0, 0};
  g_assert_false(judged("spans 0 25", 25, none_idle, 3, NULL));
  const double zero_to_quarter[] = {0, 0.3, 14, 22};
  g_assert_true(judged("spans 0 25", 25, zero_to_quarter, 4, NULL));
  const double off_zero[] = {3, 14, 22};
  g_assert_false(judged("spans 0 25", 25, off_zero, 3, NULL));
  g_assert_false(judged("spans 0 25", 25, zero_to_quarter, 1, NULL));
}

static void
test_rules_refused(void)
{
  static const char *const bad[] = {"roughly",   "every",      "every spans 1 2",
                                    "range 2 1", "spans -1 3", "at-most",
                                    "exactly x", "within-3x",  "every every exactly 0"};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    LbRule r;
    g_autoptr(GError) error = NULL;
    g_assert_false(lb_rule_parse(bad[i], &r, &error));
    g_assert_nonnull(strstr(error->message, "is not same-sign, within-2x"));
  }
}

/* ---- the checks, fed wrong answers ---- */

static LbRunResult *
fake_run(const char *label, guint ranks)
{
  LbRunResult *r = g_new0(LbRunResult, 1);
  r->balancer = g_strdup(label);
  r->ranks = ranks;
  g_autofree char *name = g_strndup(label, strcspn(label, ":"));
  const LbBalancer *b = lb_balancer_lookup(name);
  g_assert_nonnull(b);
  r->metric_defs = lb_balancer_metric_defs(b);
  r->metrics = g_new0(double, r->metric_defs->len);
  r->nadaptations = 1;
  return r;
}

static void
set_metric(LbRunResult *r, const char *name, double v)
{
  int k = lb_metric_defs_find(r->metric_defs, name);
  g_assert_cmpint(k, >=, 0);
  r->metrics[k] = v;
}

typedef struct {
  GPtrArray *results; /* LbRunResult */
  GArray *runs;       /* LbCheckRun */
  GPtrArray *points;  /* char * */
} Fake;

static void
fake_clear(Fake *f)
{
  g_clear_pointer(&f->results, g_ptr_array_unref);
  g_clear_pointer(&f->runs, g_array_unref);
  g_clear_pointer(&f->points, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Fake, fake_clear)

static void
fake_init(Fake *f)
{
  f->results = g_ptr_array_new_with_free_func((GDestroyNotify)lb_run_result_free);
  f->runs = g_array_new(FALSE, FALSE, sizeof(LbCheckRun));
  f->points = g_ptr_array_new_with_free_func(g_free);
}

/* A run of the claim's sweep: "PLACE: ranks=P" names its [run:PLACE]. */
static LbRunResult *
fake_add(Fake *f, const char *place, const char *label, guint ranks)
{
  LbRunResult *r = fake_run(label, ranks);
  g_ptr_array_add(f->results, r);
  char *point = g_strdup_printf("%s: ranks=%u balancer=%s", place, ranks, label);
  g_ptr_array_add(f->points, point);
  LbCheckRun one = {NULL, NULL, point, r};
  g_array_append_val(f->runs, one);
  return r;
}

/* A check's own simulations, one at a time, none kept. */
static const LbCheckSims one_at_a_time = {1, NULL};

/* Runs the check on the fake runs (the LbCheckRun points at results that
 * the arrays keep). */
static double
check(const char *name, const char *const *args, const Fake *f, LbCheckOutput *out)
{
  const LbReproCheck *c = lb_repro_check_lookup(name);
  g_assert_nonnull(c);
  LbCheckInput in = {TRUE,
                     &one_at_a_time,
                     ".",
                     args,
                     g_strv_length((char **)args),
                     f != NULL ? (const LbCheckRun *)f->runs->data : NULL,
                     f != NULL ? f->runs->len : 0};
  g_autoptr(GError) error = NULL;
  gboolean made = c->compute(&in, out, &error);
  g_assert_no_error(error);
  g_assert_true(made);
  return out->value;
}

static void
output_clear(LbCheckOutput *out)
{
  g_free(out->note);
  g_free(out->detail);
  for (guint i = 0; out->points != NULL && i < out->points->len; i++)
    g_free(g_array_index(out->points, LbCheckPoint, i).label);
  g_clear_pointer(&out->points, g_array_unref);
  *out = (LbCheckOutput){0};
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(LbCheckOutput, output_clear)

static void
test_check_gray_codes(void)
{
  g_auto(LbCheckOutput) right = {0}, wrong = {0};
  const char *const paper[] = {"00", "01", "11", "10", NULL};
  g_assert_cmpfloat(check("gray-codes", paper, NULL, &right), ==, 4);
  const char *const binary[] = {"00", "01", "10", "11", NULL};
  g_assert_cmpfloat(check("gray-codes", binary, NULL, &wrong), ==, 2);
}

/* The paper's children are ranks found by the paper's mapping, apart from
 * lbsim's: two codes that are not siblings in lbsim's tree count less. */
static void
test_check_coarse_children(void)
{
  g_auto(LbCheckOutput) right = {0}, cousins = {0}, node = {0};
  const char *const paper[] = {"10010", "100101", "100100", NULL};
  g_assert_cmpfloat(check("coarse-children", paper, NULL, &right), ==, 2);
  const char *const not_siblings[] = {"10010", "100101", "100111", NULL};
  g_assert_cmpfloat(check("coarse-children", not_siblings, NULL, &cousins), <, 2);
  const char *const other_node[] = {"10011", "100101", "100100", NULL};
  g_assert_cmpfloat(check("coarse-children", other_node, NULL, &node), ==, 0);
}

/* Exact counts held exactly: a run a step short is a fault, and "at most"
 * forgives it but not a step too many. */
static void
test_check_steps(void)
{
  g_auto(Fake) f = {0};
  fake_init(&f);
  for (guint d = 1; d <= 4; d++) {
    LbRunResult *r = fake_add(&f, "hypercubes", "mlb", 1u << d);
    set_metric(r, "accumulate_steps", d == 3 ? d - 1 : d);
  }
  g_auto(LbCheckOutput) exact = {0}, at_most = {0}, more = {0};
  const char *const exactly[] = {"accumulate_steps", "log2p", NULL};
  g_assert_cmpfloat(check("steps", exactly, &f, &exact), ==, 1);
  const char *const bounded[] = {"accumulate_steps", "<=log2p", NULL};
  g_assert_cmpfloat(check("steps", bounded, &f, &at_most), ==, 0);
  set_metric(g_ptr_array_index(f.results, 0), "accumulate_steps", 2);
  g_assert_cmpfloat(check("steps", bounded, &f, &more), ==, 1);
}

static void
test_check_order_breaks(void)
{
  g_auto(Fake) f = {0};
  fake_init(&f);
  for (guint i = 0; i < 4; i++)
    set_metric(fake_add(&f, "order", "mlb", 8), "order-breaks", i == 2 ? 3 : 0);
  g_auto(LbCheckOutput) out = {0};
  const char *const args[] = {"mlb", NULL};
  g_assert_cmpfloat(check("order-breaks", args, &f, &out), ==, 25);
}

static void
test_check_loops(void)
{
  g_auto(Fake) f = {0};
  fake_init(&f);
  LbRunResult *r = fake_add(&f, "field", "lbd", 64);
  set_metric(r, "loops-tolerance", 1);
  set_metric(r, "loops-unchanged", 3);
  g_auto(LbCheckOutput) out = {0};
  const char *const args[] = {"share", "tolerance", "lbd", NULL};
  g_assert_cmpfloat(check("loops", args, &f, &out), ==, 25);
}

/* Efficiency T(1) / (p T(p)) from each run's total time, a point a p. */
static void
test_check_efficiency(void)
{
  g_auto(Fake) f = {0};
  fake_init(&f);
  const guint ps[] = {1, 2, 4, 16};
  const double times[] = {16, 8.5, 4.5, 4};
  for (guint i = 0; i < G_N_ELEMENTS(ps); i++)
    fake_add(&f, "fig2", "sfc-shift:informed", ps[i])->total_time = times[i];
  g_auto(LbCheckOutput) out = {0};
  const char *const args[] = {"sfc-shift:informed", "16", NULL};
  g_assert_cmpfloat_with_epsilon(check("efficiency", args, &f, &out), 25, 1e-9);
  g_assert_cmpuint(out.points->len, ==, 3);
  LbRule every = rule("every range 50 100");
  double values[3], shown = 0;
  guint at = 0;
  for (guint i = 0; i < 3; i++)
    values[i] = g_array_index(out.points, LbCheckPoint, i).value;
  g_assert_false(lb_rule_judge(&every, 50, values, 3, &shown, &at));
  g_assert_cmpstr(g_array_index(out.points, LbCheckPoint, at).label, ==, "p = 16");
}

/* A configuration's costs for every technique, run by run. */
static void
dls_configuration(Fake *f, guint ranks, guint64 n, const double *improvements)
{
  static const char *const names[] = {"stat", "ss",   "fsc", "gss", "tss",
                                      "fac",  "frac", "wf",  "awf", "af"};
  for (guint k = 0; k < G_N_ELEMENTS(names); k++) {
    g_autofree char *label = g_strdup_printf("dls:%s", names[k]);
    LbRunResult *r = fake_add(f, "a", label, ranks);
    set_metric(r, "iterations", (double)n);
    set_metric(r, "cost", 100 * (1 - improvements[k] / 100));
    set_metric(r, "chunks", names[k][0] == 's' && names[k][1] == 't' ? ranks : 2.0 * ranks);
  }
}

/* STAT wins when every other technique loses to it: a configuration the
 * adaptive techniques do not win. */
static void
test_check_dls_best(void)
{
  g_auto(Fake) f = {0};
  fake_init(&f);
  const double all_lose[] = {0, -20, -15, -9, -30, -8, -8, -8, -2, -40};
  dls_configuration(&f, 8, 1080, all_lose);
  g_auto(LbCheckOutput) lost = {0};
  const char *const args[] = {"1080", NULL};
  g_assert_cmpfloat(check("dls-best", args, &f, &lost), ==, 1);
  g_assert_nonnull(strstr(lost.detail, "  stat\n"));

  g_auto(Fake) g = {0};
  fake_init(&g);
  const double awf_wins[] = {0, 1, 10, 12, 3, 25, 25, 25, 27, 9};
  dls_configuration(&g, 8, 1080, awf_wins);
  g_auto(LbCheckOutput) won = {0};
  g_assert_cmpfloat(check("dls-best", args, &g, &won), ==, 0);
}

/* The runs of one family (a point "a: ranks=P workload.aqr-family=F
 * ..."), with STAT's efficiency. */
static void
dls_family_configuration(Fake *f, guint family, guint ranks, const double *improvements)
{
  static const char *const names[] = {"stat", "ss", "fsc", "gss", "tss", "fac", "wf", "awf", "af"};
  for (guint k = 0; k < G_N_ELEMENTS(names); k++) {
    g_autofree char *label = g_strdup_printf("dls:%s", names[k]);
    LbRunResult *r = fake_run(label, ranks);
    g_ptr_array_add(f->results, r);
    char *point = g_strdup_printf("a: ranks=%u workload.iterations=1080 workload.aqr-family=%u "
                                  "balancer=%s",
                                  ranks, family, label);
    g_ptr_array_add(f->points, point);
    LbCheckRun one = {NULL, NULL, point, r};
    g_array_append_val(f->runs, one);
    set_metric(r, "iterations", 1080);
    set_metric(r, "cost", 100 * (1 - improvements[k] / 100));
    set_metric(r, "efficiency", 0.4);
  }
}

/* The families, each its own: AWF cutting 40 % at both P counts where it
 * is cheapest, FAC cheapest where AWF cuts 10 %; one family's check
 * refuses runs that vary the family. */
static void
test_check_dls_families(void)
{
  g_auto(Fake) f = {0};
  fake_init(&f);
  const double awf_wins[] = {0, 1, 10, 12, 3, 25, 25, 40, 9};
  const double fac_wins[] = {0, 1, 10, 12, 3, 30, 30, 10, 9};
  dls_family_configuration(&f, 3, 8, awf_wins);
  dls_family_configuration(&f, 3, 32, awf_wins);
  dls_family_configuration(&f, 5, 8, fac_wins);
  dls_family_configuration(&f, 5, 32, awf_wins);
  g_auto(LbCheckOutput) max = {0}, best = {0};
  const char *const max_args[] = {"1080", "max", NULL}, *const best_args[] = {"1080", "best", NULL};
  g_assert_cmpfloat(check("dls-families", max_args, &f, &max), ==, 2);
  g_assert_cmpfloat(check("dls-families", best_args, &f, &best), ==, 1);
  g_assert_nonnull(strstr(best.note, "5: 1 of 2"));
  g_assert_nonnull(strstr(best.detail, "1 of 2: 8:fac"));
  g_assert_nonnull(strstr(best.detail, "60.0 (8)")); /* STAT idle, 1 - 0.4, the first of a tie */
  const LbReproCheck *c = lb_repro_check_lookup("dls-best");
  const char *const args[] = {"1080", NULL};
  LbCheckInput in = {TRUE,       &one_at_a_time, ".", args, 1, (const LbCheckRun *)f.runs->data,
                     f.runs->len};
  g_auto(LbCheckOutput) refused = {0};
  g_autoptr(GError) error = NULL;
  g_assert_false(c->compute(&in, &refused, &error));
  g_assert_nonnull(strstr(error->message, "the runs vary the family"));
}

/* Chunks against Table 2's order: a count of another order spreads its
 * ratio beyond a factor of two. */
static void
test_check_dls_chunks(void)
{
  g_auto(Fake) f = {0};
  fake_init(&f);
  const guint ps[] = {4, 32};
  const guint64 ns[] = {1040, 10400};
  for (guint i = 0; i < 2; i++)
    for (guint j = 0; j < 2; j++) {
      LbRunResult *ss = fake_add(&f, "a", "dls:ss", ps[i]);
      set_metric(ss, "iterations", (double)ns[j]);
      set_metric(ss, "chunks", (double)ns[j]); /* SS: one a chunk */
      LbRunResult *stat = fake_add(&f, "a", "dls:stat", ps[i]);
      set_metric(stat, "iterations", (double)ns[j]);
      set_metric(stat, "chunks", ps[i]);
    }
  g_auto(LbCheckOutput) right = {0}, wrong = {0};
  const char *const ss[] = {"ss", "N", NULL};
  g_assert_cmpfloat_with_epsilon(check("dls-chunks", ss, &f, &right), 1, 1e-12);
  /* STAT's P chunks held against SS's O(N): ratios 4 / 10400 .. 32 / 1040 */
  const char *const stat_as_ss[] = {"stat", "N", NULL};
  g_assert_cmpfloat(check("dls-chunks", stat_as_ss, &f, &wrong), >, 50);
  LbRule every = rule("every within-2x");
  double values[4], shown = 0;
  guint at = 0;
  for (guint i = 0; i < wrong.points->len; i++)
    values[i] = g_array_index(wrong.points, LbCheckPoint, i).value;
  g_assert_false(lb_rule_judge(&every, 1, values, wrong.points->len, &shown, &at));
}

/* Table 2's order as growth. fac's counts (the mean of two runs), as
 * factoring gives them: N = 1040 on 4 processors, 9 batches of 4, 36
 * chunks; on 32, 5 batches of 32 and one of 16, 176; N = 10400 on 4, 12
 * batches, 48; on 32, 9 batches, 288. Against P log N: N 1040 -> 10400 at
 * P = 4, 48 / 36 = 1.333 over log2(10400) / log2(1040) = 1.331: 1.002; at
 * P = 32, 288 / 176 = 1.636: 1.229; P 4 -> 32 at N = 1040, 176 / 36 =
 * 4.889 over 8: 0.611 (the furthest from 1); at N = 10400, 288 / 48 = 6:
 * 0.75. Every pair within 2x. SS's counts (N) against STAT's order (P): N
 * 10 times, the order 1; P 8 times, the counts 1: 10 and 1/8, outside. */
static void
test_check_dls_growth(void)
{
  g_auto(Fake) f = {0};
  fake_init(&f);
  const guint ps[] = {4, 32};
  const guint64 ns[] = {1040, 10400};
  const double fac[2][2] = {{36, 48}, {176, 288}};
  for (guint i = 0; i < 2; i++)
    for (guint j = 0; j < 2; j++)
      for (guint run = 0; run < 2; run++) {
        /* two placements, the mean the count above */
        LbRunResult *r = fake_add(&f, run == 0 ? "a" : "b", "dls:fac", ps[i]);
        set_metric(r, "iterations", (double)ns[j]);
        set_metric(r, "chunks", fac[i][j] + (run == 0 ? -1 : 1));
        LbRunResult *ss = fake_add(&f, run == 0 ? "a" : "b", "dls:ss", ps[i]);
        set_metric(ss, "iterations", (double)ns[j]);
        set_metric(ss, "chunks", (double)ns[j]);
      }
  g_auto(LbCheckOutput) right = {0}, exact = {0}, wrong = {0};
  const char *const fac_plogn[] = {"fac", "PlogN", NULL};
  double worst = check("dls-growth", fac_plogn, &f, &right);
  g_assert_cmpfloat_with_epsilon(worst, (176.0 / 36) / 8, 1e-9);
  g_assert_cmpuint(right.points->len, ==, 4);
  const double want[] = {(48.0 / 36) / (log2(10400) / log2(1040)),
                         (288.0 / 176) / (log2(10400) / log2(1040)), (176.0 / 36) / 8,
                         (288.0 / 48) / 8};
  const char *const labels[] = {"P = 4, N 1040 -> 10400", "P = 32, N 1040 -> 10400",
                                "N = 1040, P 4 -> 32", "N = 10400, P 4 -> 32"};
  LbRule every = rule("every within-2x");
  double values[4], shown = 0;
  guint at = 0;
  for (guint i = 0; i < 4; i++) {
    const LbCheckPoint *pt = &g_array_index(right.points, LbCheckPoint, i);
    g_assert_cmpfloat_with_epsilon(pt->value, want[i], 1e-9);
    g_assert_cmpstr(pt->label, ==, labels[i]);
    values[i] = pt->value;
  }
  g_assert_true(lb_rule_judge(&every, 1, values, 4, &shown, &at));
  /* SS against its own order: exactly; against STAT's: 10 and 1/8 */
  const char *const ss_n[] = {"ss", "N", NULL};
  g_assert_cmpfloat_with_epsilon(check("dls-growth", ss_n, &f, &exact), 1, 1e-12);
  const char *const ss_as_stat[] = {"ss", "P", NULL};
  check("dls-growth", ss_as_stat, &f, &wrong);
  for (guint i = 0; i < 4; i++)
    values[i] = g_array_index(wrong.points, LbCheckPoint, i).value;
  g_assert_cmpfloat_with_epsilon(values[0], 10, 1e-12);
  g_assert_cmpfloat_with_epsilon(values[2], 1.0 / 8, 1e-12);
  g_assert_false(lb_rule_judge(&every, 1, values, 4, &shown, &at));
}

/* The optimum computed in the check from the run's scenario: a run that
 * ends with everything on one rank is far more than an element above it. */
static void
test_check_bottleneck(void)
{
  g_autofree char *path =
      g_build_filename(g_getenv("LBSIM_SOURCE_ROOT"), "scenarios", "mlb-teach-16.ini", NULL);
  g_autoptr(LbJob) job = lb_job_new(path, NULL, "mlb");
  g_auto(Fake) f = {0};
  fake_init(&f);
  LbRunResult *r = fake_add(&f, "teach", "mlb", 16);
  g_array_index(f.runs, LbCheckRun, 0).job = job;
  r->final_loads = g_new0(guint64, 16);
  r->final_loads[0] = 208; /* the whole load, T = 208 */
  g_auto(LbCheckOutput) piled = {0}, even = {0};
  const char *const excess[] = {"excess", "mlb", NULL};
  g_assert_cmpfloat(check("bottleneck", excess, &f, &piled), ==, 1);
  for (guint k = 0; k < 16; k++)
    r->final_loads[k] = 13;
  g_assert_cmpfloat(check("bottleneck", excess, &f, &even), ==, 0);
  /* the optimum of the teaching case: 64 elements, a quarter of them 10,
   * the rest 1 (T = 208) on 16 ranks: at least 20, two elements of 10 */
  g_assert_nonnull(strstr(even.note, "bottleneck over the optimum from 0.6500"));
}

/* The one .key file in dir (its name without .key), or NULL. */
static char *
kept_id(const char *dir)
{
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  g_assert_nonnull(d);
  char *id = NULL;
  for (const char *name; (name = g_dir_read_name(d)) != NULL;)
    if (g_str_has_suffix(name, ".key")) {
      g_assert_null(id);
      id = g_strndup(name, strlen(name) - strlen(".key"));
    }
  return id;
}

/* A check's own run kept under its key and read back from the folder
 * (a kept result made different on purpose comes back as kept); a key
 * file that holds another text runs it again and keeps the new one. */
static void
test_check_kept(void)
{
  g_autofree char *tmp = g_dir_make_tmp("lbsim-kept-XXXXXX", NULL);
  g_autofree char *keep = g_build_filename(tmp, "checks", NULL);
  const LbCheckSims sims = {1, keep};
  const guint64 elements[8] = {5, 0, 3, 1, 9, 2, 0, 4};
  g_autoptr(GError) error = NULL;
  g_autoptr(LbRunResult) made = lb_check_simulate_mlb(4, elements, 8, &sims, &error);
  g_assert_no_error(error);
  g_assert_nonnull(made);
  g_autofree char *id = kept_id(keep);
  g_assert_nonnull(id);
  g_autofree char *key_name = g_strdup_printf("%s.key", id);
  g_autofree char *result_name = g_strdup_printf("%s.result", id);
  g_autofree char *key = g_build_filename(keep, key_name, NULL);
  g_autofree char *result = g_build_filename(keep, result_name, NULL);
  g_autofree char *key_text = NULL;
  g_assert_true(g_file_get_contents(key, &key_text, NULL, NULL));
  g_assert_true(g_str_has_prefix(key_text, "mlb\n[scenario]\n"));
  g_assert_nonnull(strstr(key_text, "\nloads.txt\n5 0 3 1 9 2 0 4\n"));
  /* the kept result is what is read: one made different on purpose */
  double true_time = made->total_time;
  made->total_time = 12345.5;
  g_autofree char *doctored = lb_result_to_transport(made);
  g_assert_true(g_file_set_contents(result, doctored, -1, NULL));
  g_autoptr(LbRunResult) kept = lb_check_simulate_mlb(4, elements, 8, &sims, &error);
  g_assert_no_error(error);
  g_assert_cmpfloat(kept->total_time, ==, 12345.5);
  g_assert_cmpuint(kept->transfers->len, ==, made->transfers->len);
  g_assert_cmpuint(kept->narration->len, ==, made->narration->len);
  /* other loads: another key, another pair of files */
  const guint64 other[8] = {1, 1, 1, 1, 1, 1, 1, 9};
  g_autoptr(LbRunResult) second = lb_check_simulate_mlb(4, other, 8, &sims, &error);
  g_assert_no_error(error);
  g_autoptr(GDir) d = g_dir_open(keep, 0, NULL);
  guint files = 0;
  while (g_dir_read_name(d) != NULL)
    files++;
  g_assert_cmpuint(files, ==, 4);
  /* a key file of another text: run again, kept again */
  g_assert_true(g_file_set_contents(key, "mlb\nanother run\n", -1, NULL));
  g_autoptr(LbRunResult) again = lb_check_simulate_mlb(4, elements, 8, &sims, &error);
  g_assert_no_error(error);
  g_assert_cmpfloat(again->total_time, ==, true_time);
  g_autofree char *rewritten = NULL;
  g_assert_true(g_file_get_contents(key, &rewritten, NULL, NULL));
  g_assert_cmpstr(rewritten, ==, key_text);
  /* none kept without a folder */
  const LbCheckSims unkept = {1, NULL};
  g_autoptr(LbRunResult) plain = lb_check_simulate_mlb(4, elements, 8, &unkept, &error);
  g_assert_no_error(error);
  g_assert_cmpfloat(plain->total_time, ==, true_time);
  remove_tree(tmp);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/reproduce/rules/one-point", test_rules_one_point);
  g_test_add_func("/reproduce/rules/families", test_rules_families);
  g_test_add_func("/reproduce/rules/refused", test_rules_refused);
  g_test_add_func("/reproduce/checks/gray-codes", test_check_gray_codes);
  g_test_add_func("/reproduce/checks/coarse-children", test_check_coarse_children);
  g_test_add_func("/reproduce/checks/steps", test_check_steps);
  g_test_add_func("/reproduce/checks/order-breaks", test_check_order_breaks);
  g_test_add_func("/reproduce/checks/loops", test_check_loops);
  g_test_add_func("/reproduce/checks/efficiency", test_check_efficiency);
  g_test_add_func("/reproduce/checks/dls-best", test_check_dls_best);
  g_test_add_func("/reproduce/checks/dls-chunks", test_check_dls_chunks);
  g_test_add_func("/reproduce/checks/dls-families", test_check_dls_families);
  g_test_add_func("/reproduce/checks/dls-growth", test_check_dls_growth);
  g_test_add_func("/reproduce/checks/bottleneck", test_check_bottleneck);
  g_test_add_func("/reproduce/checks/kept", test_check_kept);
  return g_test_run();
}
