/* MLB end to end on simulated hypercubes: every run is a real simulation in
 * its own process; its results are checked against exact answers computed
 * here from the same loads. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <json-glib/json-glib.h>

#include "balancers/mlb/mlb-plan.h"
#include "runner/runner.h"
#include "report/report.h"
#include "sim-result.h"
#include "lbsim/scenario.h"

/* bounds[r] .. bounds[r + 1]: the ids rank r starts with (contiguous). */
static void
initial_bounds(const LbScenario *sc, guint64 *bounds)
{
  g_autoptr(GArray) units = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  bounds[0] = 0;
  for (guint r = 0; r < sc->ranks; r++) {
    lb_work_initial_units(sc->work, r, LB_START_ORDER, units);
    if (units->len > 0)
      g_assert_cmpuint(g_array_index(units, LbUnit, 0).id, ==, bounds[r]);
    bounds[r + 1] = bounds[r] + units->len;
  }
}

/* The smallest bottleneck over all partitions into p contiguous parts:
 * bisection on the bottleneck with a greedy feasibility test. */
static guint64
optimal_bottleneck(const guint64 *loads, guint64 n, guint p)
{
  guint64 lo = 0, hi = 0;
  for (guint64 i = 0; i < n; i++) {
    lo = MAX(lo, loads[i]);
    hi += loads[i];
  }
  while (lo < hi) {
    guint64 mid = lo + (hi - lo) / 2, sum = 0;
    guint parts = 1;
    for (guint64 i = 0; i < n; i++) {
      if (sum + loads[i] > mid) {
        parts++;
        sum = 0;
      }
      sum += loads[i];
    }
    if (parts <= p)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

static guint
int_member(JsonObject *o, const char *name)
{
  return (guint)json_object_get_int_member(o, name);
}

static guint
phase_member(JsonObject *run, const char *name, const char *member)
{
  JsonArray *phases = json_object_get_array_member(run, "phases");
  for (guint i = 0; i < json_array_get_length(phases); i++) {
    JsonObject *p = json_array_get_object_element(phases, i);
    if (g_strcmp0(json_object_get_string_member(p, "name"), name) == 0)
      return int_member(p, member);
  }
  g_assert_not_reached();
}

static guint
phase_steps(JsonObject *run, const char *name)
{
  return phase_member(run, name, "steps");
}

/* Replays the reported schedule on the initial distribution: every
 * transfer must move elements its sender holds at that moment, each pair
 * exchanges at most once per step along its own edge, and the result must
 * be the owner map of the midpoint rule. */
static void
check_schedule(const LbScenario *sc, JsonObject *run, const guint64 *loads, guint d,
               MlbDesired mode)
{
  guint p = sc->ranks;
  guint64 n = lb_work_total_units(sc->work);
  g_autofree guint64 *bounds = g_new(guint64, p + 1);
  initial_bounds(sc, bounds);
  g_autofree guint *owner = g_new(guint, n);
  for (guint r = 0; r < p; r++)
    for (guint64 i = bounds[r]; i < bounds[r + 1]; i++)
      owner[i] = r;

  JsonArray *schedule = json_object_get_array_member(run, "schedule");
  guint last_step = 0;
  for (guint s = 0; s < json_array_get_length(schedule); s++) {
    JsonObject *step = json_array_get_object_element(schedule, s);
    guint index = int_member(step, "step");
    g_assert_cmpuint(index, <, d);
    g_assert_true(s == 0 || index > last_step);
    last_step = index;
    guint edge = d - 1 - index;
    JsonArray *transfers = json_object_get_array_member(step, "transfers");
    /* Receivers must not pass on in the same step what they got in it. */
    g_autofree guint *after = g_memdup2(owner, sizeof(guint) * n);
    for (guint t = 0; t < json_array_get_length(transfers); t++) {
      JsonObject *x = json_array_get_object_element(transfers, t);
      guint src = int_member(x, "src"), dst = int_member(x, "dst");
      guint64 first = (guint64)json_object_get_int_member(x, "first");
      guint64 count = (guint64)json_object_get_int_member(x, "count");
      guint64 load = 0;
      g_assert_cmpuint(dst, ==, mlb_partner(src, edge));
      for (guint64 i = first; i < first + count; i++) {
        g_assert_cmpuint(owner[i], ==, src);
        after[i] = dst;
        load += loads[i];
      }
      g_assert_cmpuint(load, ==, (guint64)json_object_get_int_member(x, "load"));
    }
    memcpy(owner, after, sizeof(guint) * n);
  }

  MlbKey total = {0, n};
  for (guint64 i = 0; i < n; i++)
    total.load += loads[i];
  guint64 pos = 0;
  for (guint64 i = 0; i < n; i++) {
    MlbItem it = {i, loads[i], pos};
    g_assert_cmpuint(owner[i], ==, mlb_owner(total, d, mode, &it));
    g_assert_true(i == 0 || owner[i] >= owner[i - 1]); /* contiguous, in rank order */
    pos += loads[i];
  }
}

static void
check_case(guint d, guint64 n, const char *pattern_keys, const char *distribution,
           const char *mlb_keys, guint64 seed)
{
  guint p = 1u << d;
  g_autofree char *ini = g_strdup_printf(
      "[scenario]\nplatform = hypercube-%u.xml\nranks = %u\nseed = %" G_GUINT64_FORMAT "\n"
      "[workload]\nsize = %" G_GUINT64_FORMAT "\n%s\ndistribution = %s\n"
      "[balancers]\nrun = mlb\n[mlb]\n%s\n",
      MAX(p, 2u), p, seed, n, pattern_keys, distribution, mlb_keys);
  g_auto(SimResult) res = {0};
  simulate(ini, &res);
  const LbScenario *sc = res.scenario;
  guint64 n_loads = 0;
  g_autofree guint64 *loads = element_loads(sc, &n_loads);
  MlbDesired mode = g_strrstr(mlb_keys, "even") ? MLB_DESIRED_EVEN : MLB_DESIRED_HALVING;
  MlbPhase3 phase3 = g_strrstr(mlb_keys, "finest")  ? MLB_PHASE3_FINEST
                     : g_strrstr(mlb_keys, "local") ? MLB_PHASE3_LOCAL
                                                    : MLB_PHASE3_LEVELS;
  g_assert_cmpstr(
      json_object_get_string_member(json_object_get_object_member(res.run, "params"), "phase4"), ==,
      g_strrstr(mlb_keys, "midpoint") ? "midpoint" : "loan");

  JsonObject *summary = json_object_get_object_member(res.run, "summary");
  g_assert_cmpuint(int_member(summary, "schedule_steps"), <=, d);
  g_assert_cmpuint(phase_steps(res.run, "accumulate"), ==, d);
  g_assert_cmpuint(phase_steps(res.run, "desired"), ==, 0);
  /* Level by level, a round of splits nobody needs (no block sent along
   * that edge at the coarser level) is skipped. */
  g_assert_cmpuint(phase_steps(res.run, "amounts"), <=, mlb_phase3_rounds(d, phase3));
  if (phase3 == MLB_PHASE3_FINEST)
    g_assert_cmpuint(phase_steps(res.run, "amounts"), ==, d);
  g_assert_cmpuint(phase_steps(res.run, "migrate"), ==, int_member(summary, "schedule_steps"));

  check_schedule(sc, res.run, loads, d, mode);

  JsonArray *final = json_object_get_array_member(res.run, "final_loads");
  guint64 bottleneck = 0, total = 0, heaviest = 0;
  for (guint r = 0; r < p; r++) {
    guint64 l = (guint64)json_array_get_int_element(final, r);
    bottleneck = MAX(bottleneck, l);
    total += l;
  }
  for (guint64 i = 0; i < n; i++)
    heaviest = MAX(heaviest, loads[i]);
  g_assert_cmpuint(bottleneck, >=, optimal_bottleneck(loads, n, p));
  /* Every cut moves by at most half the element lying across it. */
  g_assert_cmpuint(bottleneck, <=, (total + p - 1) / p + heaviest);
  gboolean unit = TRUE;
  for (guint64 i = 0; i < n; i++)
    unit = unit && loads[i] == 1;
  if (unit)
    for (guint r = 0; r < p; r++) {
      guint64 l = (guint64)json_array_get_int_element(final, r);
      g_assert_true(l == total / p || l == (total + p - 1) / p);
    }
}

/* Both phase 3 modes and both phase 4 rules, by turns. */
static const char *const mlb_variants[] = {
    "phase3 = levels\nphase4 = loan", "phase3 = finest\nphase4 = midpoint\ndesired = even",
    "phase3 = local\nphase4 = loan",  "phase3 = levels\nphase4 = midpoint\ndesired = even",
    "phase3 = finest\nphase4 = loan", "phase3 = local\nphase4 = midpoint\ndesired = even",
};

static void
test_random_loads(void)
{
  /* Random loads with zeros, random uneven initial blocks, p = 1 .. 64. */
  for (guint d = 0; d <= 6; d++)
    for (guint64 seed = 1; seed <= 6; seed++) {
      guint64 n = (guint64)(1u << d) * (seed % 3 == 0 ? 1 : 5 * seed);
      check_case(d, n, "pattern = random\nmin = 0\nmax = 50", "random",
                 mlb_variants[(d + seed) % G_N_ELEMENTS(mlb_variants)], seed);
    }
}

static void
test_heavy_elements(void)
{
  /* Few elements with big loads: pass-through and empty ranks. */
  for (guint d = 1; d <= 5; d++)
    for (guint64 seed = 1; seed <= 4; seed++)
      check_case(d, (1u << d) / 2 + seed, "pattern = random\nmin = 0\nmax = 100000", "random",
                 mlb_variants[(d + seed) % G_N_ELEMENTS(mlb_variants)], seed);
  for (guint v = 0; v < G_N_ELEMENTS(mlb_variants); v++)
    check_case(3, 64, "pattern = hotspots\nhotspots = 1\nwidth = 0.01\namplitude = 1e6\nbase = 0",
               "block", mlb_variants[v], 3);
}

/* The transfers of a run, as text, to compare two runs step by step. */
static char *
schedule_text(JsonObject *run)
{
  GString *text = g_string_new(NULL);
  JsonArray *schedule = json_object_get_array_member(run, "schedule");
  for (guint s = 0; s < json_array_get_length(schedule); s++) {
    JsonObject *step = json_array_get_object_element(schedule, s);
    JsonArray *transfers = json_object_get_array_member(step, "transfers");
    for (guint t = 0; t < json_array_get_length(transfers); t++) {
      JsonObject *x = json_array_get_object_element(transfers, t);
      g_string_append_printf(text, "%u: %u -> %u %" G_GINT64_FORMAT "+%" G_GINT64_FORMAT "\n",
                             int_member(step, "step"), int_member(x, "src"), int_member(x, "dst"),
                             json_object_get_int_member(x, "first"),
                             json_object_get_int_member(x, "count"));
    }
  }
  return g_string_free(text, FALSE);
}

/* The loan rule and the midpoint rule move the same elements at every
 * step (README: each cut is decided by the rank that holds the element
 * across it, by comparing its two parts; the loans make every other
 * piece exact). */
static char *
rule_schedule(guint d, guint i, const char *pattern, const char *rule, guint *migrate_messages)
{
  g_autofree char *ini =
      g_strdup_printf("[scenario]\nplatform = hypercube-%u.xml\nranks = %u\nseed = %u\n"
                      "[workload]\nsize = %u\n%s\ndistribution = random\n"
                      "[balancers]\nrun = mlb\n[mlb]\nphase4 = %s\n",
                      1u << d, 1u << d, d + i, (3u << d) + i, pattern, rule);
  g_auto(SimResult) res = {0};
  simulate(ini, &res);
  *migrate_messages = phase_member(res.run, "migrate", "messages");
  return schedule_text(res.run);
}

/* ... and cost the same messages: the loan travels in the header of its
 * piece's message, so phase 4 sends one message per piece under either
 * rule (a loan message of its own made it twice as many). */
static void
test_rules_agree(void)
{
  static const char *const patterns[] = {
      "pattern = random\nmin = 0\nmax = 50",
      "pattern = random\nmin = 0\nmax = 100000",
      "pattern = hotspots\nhotspots = 2\nwidth = 0.01\namplitude = 1e5\nbase = 0",
  };
  for (guint d = 2; d <= 6; d += 2)
    for (guint i = 0; i < G_N_ELEMENTS(patterns); i++) {
      guint loan_messages = 0, midpoint_messages = 0;
      g_autofree char *by_loan = rule_schedule(d, i, patterns[i], "loan", &loan_messages);
      g_autofree char *by_midpoint =
          rule_schedule(d, i, patterns[i], "midpoint", &midpoint_messages);
      g_assert_cmpstr(by_loan, ==, by_midpoint);
      g_assert_cmpuint(loan_messages, ==, midpoint_messages);
      g_assert_cmpuint(loan_messages, >, 0);
    }
}

/* The case found in review: one element of load 42 and 15 of load 0, one
 * per rank on 16 ranks. Its midpoint (21, 0.5) lies before the root cut
 * (21, 8) and after the cuts of ranks 1 .. 7, so it ends on rank 7 (one
 * hop, along edge 2: rank 0's right loan 21, kept at the root cut, makes
 * it aim at 10 + 21 = 31 and send the 42). The bottleneck stays 42, the
 * optimum: a move without gain, which no rule based on desired loads
 * avoids. */
static void
test_heavy_element_42(void)
{
  for (guint rule = 0; rule < 2; rule++) {
    g_autofree char *ini = g_strdup_printf("[scenario]\nplatform = hypercube-16.xml\nranks = 16\n"
                                           "[workload]\npattern = file\nfile = loads.txt\n"
                                           "[balancers]\nrun = mlb\n[mlb]\nphase4 = %s\n",
                                           rule ? "midpoint" : "loan");
    g_auto(SimResult) res = {0};
    simulate_with(ini, "42 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", rule == 0, &res);
    g_autofree char *text = schedule_text(res.run);
    /* the only transfer of element 0 */
    g_assert_nonnull(strstr(text, "1: 0 -> 7 0+1\n"));
    g_assert_true(strstr(text, " 0+") == strstr(text, "1: 0 -> 7 0+1\n") + 9);
    g_assert_null(strstr(strstr(text, " 0+") + 1, " 0+"));
    JsonArray *final = json_object_get_array_member(res.run, "final_loads");
    for (guint r = 0; r < 16; r++)
      g_assert_cmpint(json_array_get_int_element(final, r), ==, r == 7 ? 42 : 0);
    if (rule == 0) {
      JsonArray *story = json_object_get_array_member(res.run, "narration");
      gboolean steered = FALSE;
      for (guint i = 0; i < json_array_get_length(story); i++)
        steered = steered || (strstr(json_array_get_string_element(story, i),
                                     "rank 0: edge 2: phase 3 says send 10 (4 elements) to "
                                     "rank 7, right loan 21 (-7 elements) -> aim at 31 (-3 "
                                     "elements);") != NULL);
      g_assert_true(steered);
    }
  }
}

/* `lbsim explain mlb` shows the loans steering the amounts: some rank aims
 * at phase 3's amount plus a loan that is not zero. */
static void
test_narration(void)
{
  g_auto(SimResult) res = {0};
  simulate_with("[scenario]\nplatform = hypercube-8.xml\nranks = 8\n"
                "[workload]\nsize = 24\npattern = step\nhigh = 9\nlow = 1\nat = 0.3\n"
                "drift = 0\n[balancers]\nrun = mlb\n",
                NULL, TRUE, &res);
  JsonArray *story = json_object_get_array_member(res.run, "narration");
  guint steered = 0, levels = 0;
  /* amounts and loans are (load, count) keys: "10 (4 elements)" */
  g_autoptr(GRegex) says = g_regex_new(
      "phase 3 says send (\\d+) \\((-?\\d+) elements?\\) to rank \\d+, (left|right) loan "
      "(-?\\d+) \\((-?\\d+) elements?\\) -> aim at (-?\\d+) \\((-?\\d+) elements?\\)",
      0, 0, NULL);
  for (guint i = 0; i < json_array_get_length(story); i++) {
    const char *line = json_array_get_string_element(story, i);
    levels += strstr(line, "level 2, block of 2") != NULL;
    g_autoptr(GMatchInfo) match = NULL;
    if (!g_regex_match(says, line, 0, &match)) {
      g_assert_null(strstr(line, "phase 3 says send"));
      continue;
    }
    gint64 v[6];
    static const guint group[6] = {1, 2, 4, 5, 6, 7};
    for (guint k = 0; k < 6; k++) {
      g_autofree char *text = g_match_info_fetch(match, (gint)group[k]);
      v[k] = g_ascii_strtoll(text, NULL, 10);
    }
    g_assert_cmpint(v[4], ==, v[0] + v[2]); /* aim = amount + loan, load */
    g_assert_cmpint(v[5], ==, v[1] + v[3]); /* and count */
    steered += v[2] != 0;
  }
  g_assert_cmpuint(steered, >=, 2);
  /* phase 4 sends one message per piece, the loan in its header: as many
   * messages as pieces told */
  guint pieces = 0;
  for (guint i = 0; i < json_array_get_length(story); i++)
    pieces += strstr(json_array_get_string_element(story, i), "phase 3 says send ") != NULL;
  g_assert_cmpuint(pieces, >, 0);
  g_assert_cmpuint(phase_member(res.run, "migrate", "messages"), ==, pieces);
  g_assert_cmpuint(levels, ==, 4); /* one line per block of two */
}

static void
test_unit_loads(void)
{
  for (guint d = 1; d <= 6; d++) {
    check_case(d, 1000 + d, "pattern = uniform\nvalue = 1", "random", "", d);
    check_case(d, 1000 + d, "pattern = uniform\nvalue = 1", "random",
               "desired = even\nphase4 = midpoint", d);
  }
}

static void
test_step_counts(void)
{
  /* p = 2 .. 4096: schedule within d steps, phase 1 in d, phase 3 in
   * d(d+1)/2 (a ramp moves load along every edge of every level, so no
   * round is skipped), and d(d-1)/2 with phase3 = local. */
  guint max_d = 12;
  for (guint d = 1; d <= max_d; d++) {
    guint p = 1u << d;
    g_autofree char *ini = g_strdup_printf(
        "[scenario]\nplatform = hypercube-%u.xml\nranks = %u\n[workload]\nsize = %u\n"
        "pattern = ramp\nfrom = 1\nto = 1000\n[balancers]\nrun = mlb\n",
        p, p, 4 * p);
    g_auto(SimResult) res = {0};
    simulate(ini, &res);
    JsonObject *summary = json_object_get_object_member(res.run, "summary");
    guint steps = int_member(summary, "schedule_steps");
    g_test_message("p = %u: schedule %u steps, phase 3 %u rounds", p, steps,
                   phase_steps(res.run, "amounts"));
    g_assert_cmpuint(steps, <=, d);
    g_assert_cmpuint(steps, >=, 1); /* a ramp is never balanced to start with */
    g_assert_cmpuint(phase_steps(res.run, "accumulate"), ==, d);
    g_assert_cmpuint(phase_steps(res.run, "amounts"), ==, d * (d + 1) / 2);
    if (d <= 8) {
      g_autofree char *local = g_strdup_printf("%s[mlb]\nphase3 = local\n", ini);
      g_auto(SimResult) res2 = {0};
      simulate(local, &res2);
      g_assert_cmpuint(phase_steps(res2.run, "amounts"), ==, d * (d - 1) / 2);
      g_assert_cmpuint(
          int_member(json_object_get_object_member(res2.run, "summary"), "schedule_steps"), ==,
          steps);
    }
  }
}

/* Section 3.4 read literally: one loan variable for both ends. Nine
 * elements 6 9 2 3 2 3 2 1 2 on 8 ranks (rank 7 holds the last two), total
 * 30, desired 4 4 4 3 4 4 4 3 by halving (15 | 15, 8 7 | 8 7). Along edge
 * 2 the left half holds 20 and sends its last 5 right: rank 2 (Gray 011)
 * sends element 2 (load 2) to rank 5 (111), rank 3 element 3 (load 3) to
 * rank 4. Phase 3 expected (2, -2 elements) at rank 5, so its one loan is
 * (0, +3). Along edge 1 rank 5 sends right to rank 6, aim (2, -1) + (0, 3)
 * = (2, 2): element 5 (load 3), loan (-1, 1). Along edge 0 it owes rank 4
 * (2, -2) from its left end, and the right end's overshoot now counts
 * there: aim (1, -1), to which no element (0) is as close as element 2
 * ((2, 1): the loads tie at 1, the counts decide): element 2 stays on
 * rank 5 while rank 4 sends it element 4. Rank 5 ends with elements 2 and
 * 4, rank 4 with 3 between them: one element out of order. The per-end
 * loan keeps (0, 3) at rank 5's left end and passes element 2 on to rank
 * 4. */
static void
test_literal_breaks_order(void)
{
  static const char *const rules[] = {"literal", "loan"};
  static const gint64 final[2][8] = {{6, 0, 0, 9, 3, 4, 5, 3}, {6, 0, 9, 0, 5, 2, 5, 3}};
  for (guint k = 0; k < 2; k++) {
    g_autofree char *ini = g_strdup_printf("[scenario]\nplatform = hypercube-8.xml\nranks = 8\n"
                                           "[workload]\npattern = file\nfile = loads.txt\n"
                                           "[balancers]\nrun = mlb\n[mlb]\nphase4 = %s\n",
                                           rules[k]);
    g_auto(SimResult) res = {0};
    simulate_with(ini, "6 9 2 3 2 3 2 1 2\n", TRUE, &res);
    JsonObject *metrics = json_object_get_object_member(res.run, "metrics");
    g_assert_cmpint(json_object_get_int_member(metrics, "order_breaks"), ==, k == 0 ? 1 : 0);
    JsonArray *loads = json_object_get_array_member(res.run, "final_loads");
    for (guint r = 0; r < 8; r++)
      g_assert_cmpint(json_array_get_int_element(loads, r), ==, final[k][r]);
    g_autofree char *text = schedule_text(res.run);
    g_assert_nonnull(strstr(text, "0: 2 -> 5 2+1\n"));
    g_assert_nonnull(strstr(text, "0: 3 -> 4 3+1\n"));
    g_assert_nonnull(strstr(text, "2: 4 -> 5 4+1\n"));
    /* element 2 passes on to rank 4 only under the per-end loan */
    g_assert_true((strstr(text, "2: 5 -> 4 2+1\n") != NULL) == (k == 1));
    if (k == 0) {
      JsonArray *story = json_object_get_array_member(res.run, "narration");
      gboolean told = FALSE;
      for (guint i = 0; i < json_array_get_length(story); i++)
        told = told || strstr(json_array_get_string_element(story, i),
                              "rank 5: holds load 4 (2 elements) (elements 2, 4)") != NULL;
      g_assert_true(told);
    }
  }
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/mlb-sim/random-loads", test_random_loads);
  g_test_add_func("/mlb-sim/heavy-elements", test_heavy_elements);
  g_test_add_func("/mlb-sim/unit-loads", test_unit_loads);
  g_test_add_func("/mlb-sim/step-counts", test_step_counts);
  g_test_add_func("/mlb-sim/rules-agree", test_rules_agree);
  g_test_add_func("/mlb-sim/heavy-element-42", test_heavy_element_42);
  g_test_add_func("/mlb-sim/narration", test_narration);
  g_test_add_func("/mlb-sim/literal-breaks-order", test_literal_breaks_order);
  return g_test_run();
}
