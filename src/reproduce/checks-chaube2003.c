/* The checks of R. Chaube, R. L. Carino and I. Banicescu, "LB_Migrate: a
 * dynamic load balancing library" (2003): loop scheduling's cost against
 * STAT (improvements, the best technique, the headroom, the timeline) and
 * Table 2's chunk counts against their order. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbsim/balancer.h"
#include "reproduce/checks-common.h"

/* ---- chaube2003: loop scheduling's cost against STAT ---- */

static const char *const dls_names[] = {"stat", "ss", "fsc", "gss", "tss", "fac",
                                        "frac", "wf", "awf", "af",  NULL};
#define DLS_NAMES (G_N_ELEMENTS(dls_names) - 1)
#define MAX_PLACES 8

static gboolean
dls_adaptive(guint t)
{
  return strcmp(dls_names[t], "awf") == 0 || strcmp(dls_names[t], "af") == 0;
}

static int
dls_index(const char *technique)
{
  for (guint t = 0; t < DLS_NAMES; t++)
    if (strcmp(dls_names[t], technique) == 0)
      return (int)t;
  return -1;
}

/* One configuration (P, N, and the family when the runs vary it): every
 * technique's cost P T_p in each run of the claim (the paper's runs, one
 * per background placement), and STAT's idle share of its cost. */
typedef struct {
  guint ranks;
  guint64 n;
  int family; /* the point's workload.aqr-family, -1 when not varied */
  double cost[MAX_PLACES][DLS_NAMES];
  gboolean have[MAX_PLACES][DLS_NAMES];
  double idle[MAX_PLACES]; /* STAT's 100 (1 - T_1 / (P T_p)) */
} DlsPoint;

typedef struct {
  GArray *points; /* DlsPoint, in the runs' order */
  char *places[MAX_PLACES];
  guint nplaces;
} DlsTable;

#define FAMILY_AXIS "workload.aqr-family="

/* The family a run's point names ("... workload.aqr-family=5 ..."), or -1. */
static int
point_family(const char *point)
{
  const char *at = strstr(point, FAMILY_AXIS);
  return at == NULL ? -1 : atoi(at + strlen(FAMILY_AXIS));
}

static void
dls_table_clear(DlsTable *t)
{
  g_clear_pointer(&t->points, g_array_unref);
  for (guint i = 0; i < t->nplaces; i++)
    g_free(t->places[i]);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(DlsTable, dls_table_clear)

/* The runs of the claim as (P, N) points, or (P, N, family) points when
 * families is TRUE (a check of one family refuses runs of several); a
 * run's placement is its [run:] (the point's name before ':'). */
static gboolean
dls_table(const LbCheckInput *in, DlsTable *t, gboolean families, GError **error)
{
  t->points = g_array_new(FALSE, TRUE, sizeof(DlsPoint));
  for (guint i = 0; i < in->nruns; i++) {
    const LbRunResult *res = in->runs[i].result;
    if (!g_str_has_prefix(res->balancer, "dls:"))
      continue;
    int k = dls_index(res->balancer + strlen("dls:"));
    int family = point_family(in->runs[i].point);
    double n = 0, cost = 0, efficiency = 0;
    if (k < 0 || !lb_run_result_lookup(res, "iterations", &n) ||
        !lb_run_result_lookup(res, "cost", &cost) ||
        !lb_run_result_lookup(res, "efficiency", &efficiency))
      return lb_check_fail(error, "%s: not a run of a dls technique with its cost",
                           in->runs[i].point);
    if (family >= 0 && !families)
      return lb_check_fail(error, "%s: the runs vary the family; this check reads one",
                           in->runs[i].point);
    const char *point = in->runs[i].point;
    g_autofree char *place = g_strndup(point, strcspn(point, ":"));
    guint pl = 0;
    while (pl < t->nplaces && strcmp(t->places[pl], place) != 0)
      pl++;
    if (pl == t->nplaces) {
      if (t->nplaces == MAX_PLACES)
        return lb_check_fail(error, "more than %u runs (placements) to average", MAX_PLACES);
      t->places[t->nplaces++] = g_strdup(place);
    }
    guint j = 0;
    DlsPoint *pt = NULL;
    for (; j < t->points->len; j++) {
      pt = &g_array_index(t->points, DlsPoint, j);
      if (pt->ranks == res->ranks && pt->n == (guint64)n && pt->family == family)
        break;
    }
    if (j == t->points->len) {
      g_array_set_size(t->points, j + 1);
      pt = &g_array_index(t->points, DlsPoint, j);
      pt->ranks = res->ranks;
      pt->n = (guint64)n;
      pt->family = family;
    }
    pt->cost[pl][k] = cost;
    pt->have[pl][k] = TRUE;
    if (k == 0)
      pt->idle[pl] = 100 * (1 - efficiency);
  }
  if (t->points->len == 0)
    return lb_check_fail(error, "no runs of dls");
  return TRUE;
}

/* The technique's cost averaged over the placements, as the paper
 * averaged its three runs; FALSE when a placement lacks it. */
static gboolean
dls_mean_cost(const DlsTable *t, const DlsPoint *pt, guint k, double *mean)
{
  double sum = 0;
  for (guint pl = 0; pl < t->nplaces; pl++) {
    if (!pt->have[pl][k])
      return FALSE;
    sum += pt->cost[pl][k];
  }
  *mean = sum / t->nplaces;
  return TRUE;
}

/* The seed's percent improvement in cost over STAT, of the mean costs. */
static gboolean
dls_improvement(const DlsTable *t, const DlsPoint *pt, guint k, double *value)
{
  double stat = 0, cost = 0;
  if (!dls_mean_cost(t, pt, 0, &stat) || !dls_mean_cost(t, pt, k, &cost) || stat <= 0)
    return FALSE;
  *value = 100 * (stat - cost) / stat;
  return TRUE;
}

static const DlsPoint *
dls_point(const DlsTable *t, guint64 n, guint ranks)
{
  for (guint j = 0; j < t->points->len; j++) {
    const DlsPoint *pt = &g_array_index(t->points, DlsPoint, j);
    if (pt->n == n && (ranks == 0 || pt->ranks == ranks))
      return pt;
  }
  return NULL;
}

/* The rank counts of the table, ascending, each once. */
static GArray *
dls_ranks(const DlsTable *t)
{
  GArray *r = g_array_new(FALSE, FALSE, sizeof(guint));
  for (guint j = 0; j < t->points->len; j++) {
    guint p = g_array_index(t->points, DlsPoint, j).ranks, k = 0;
    while (k < r->len && g_array_index(r, guint, k) < p)
      k++;
    if (k == r->len || g_array_index(r, guint, k) != p)
      g_array_insert_val(r, k, p);
  }
  return r;
}

static gboolean
dls_technique_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  for (guint i = 0; i < nargs; i++) {
    guint64 n = 0;
    if (i == 1 && !g_ascii_string_to_unsigned(args[i], 10, 1, G_MAXUINT32, &n, NULL))
      return lb_check_fail(error, "'%s' is not a loop size N", args[i]);
    if (i != 1 && dls_index(args[i]) < 0)
      return lb_check_fail(
          error, "'%s' is not a dls technique (stat, ss, fsc, gss, tss, fac, frac, wf, awf, af)",
          args[i]);
  }
  return TRUE;
}

/* TECHNIQUE N: its percent improvement in cost over STAT at the claim's
 * processors and N iterations, of the costs averaged over the claim's
 * runs (the placements). */
static gboolean
dls_improvement_check(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  g_auto(DlsTable) t = {0};
  if (!dls_table(in, &t, FALSE, error))
    return FALSE;
  guint k = (guint)dls_index(in->args[0]);
  guint64 n = g_ascii_strtoull(in->args[1], NULL, 10);
  g_autoptr(GArray) ranks = dls_ranks(&t);
  if (ranks->len != 1)
    return lb_check_fail(error, "the runs have %u processor counts: give the claim its ranks",
                         ranks->len);
  const DlsPoint *pt = dls_point(&t, n, 0);
  if (pt == NULL || !dls_improvement(&t, pt, k, &out->value))
    return lb_check_fail(error,
                         "no runs of dls:stat and dls:%s at N = %" G_GUINT64_FORMAT " in every run",
                         in->args[0], n);
  double stat = 0, cost = 0;
  dls_mean_cost(&t, pt, 0, &stat);
  dls_mean_cost(&t, pt, k, &cost);
  g_autoptr(GString) each = g_string_new(NULL);
  for (guint pl = 0; pl < t.nplaces; pl++)
    g_string_append_printf(each, "%s%s %.1f", pl ? ", " : "", t.places[pl],
                           100 * (pt->cost[pl][0] - pt->cost[pl][k]) / pt->cost[pl][0]);
  out->note = g_strdup_printf("cost %.4g s against STAT's %.4g s, the means of %u runs (each: %s)",
                              cost, stat, t.nplaces, each->str);
  return TRUE;
}

static gboolean
dls_size_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  guint64 n = 0;
  if (strcmp(args[0], "all") != 0 &&
      !g_ascii_string_to_unsigned(args[0], 10, 1, G_MAXUINT32, &n, NULL))
    return lb_check_fail(error, "'%s' is not a loop size N or all", args[0]);
  return TRUE;
}

/* N|all: the configurations (P, N) where a technique other than awf and
 * af has the least mean cost; the table of every technique's improvement
 * as the detail. */
static gboolean
dls_best(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  g_auto(DlsTable) t = {0};
  if (!dls_table(in, &t, FALSE, error))
    return FALSE;
  gboolean all = strcmp(in->args[0], "all") == 0;
  guint64 only = all ? 0 : g_ascii_strtoull(in->args[0], NULL, 10);
  g_autoptr(GString) detail = g_string_new(NULL);
  g_autoptr(GString) losses = g_string_new(NULL);
  g_string_append_printf(
      detail, "improvement in cost over STAT (%%), the costs averaged over %u runs:\n", t.nplaces);
  g_string_append_printf(detail, "%6s %3s %9s", "N", "P", "STAT (s)");
  for (guint k = 1; k < DLS_NAMES; k++)
    g_string_append_printf(detail, " %6s", dls_names[k]);
  g_string_append(detail, "  best\n");
  guint points = 0, lost = 0;
  g_autoptr(GArray) ranks = dls_ranks(&t);
  g_autoptr(GArray) sizes = g_array_new(FALSE, FALSE, sizeof(guint64));
  for (guint j = 0; j < t.points->len; j++) {
    guint64 n = g_array_index(t.points, DlsPoint, j).n;
    gboolean seen = FALSE;
    for (guint k = 0; k < sizes->len; k++)
      seen |= g_array_index(sizes, guint64, k) == n;
    if (!seen && (all || n == only))
      g_array_append_val(sizes, n);
  }
  for (guint a = 0; a < sizes->len; a++)
    for (guint b = 0; b < ranks->len; b++) {
      guint64 n = g_array_index(sizes, guint64, a);
      const DlsPoint *pt = dls_point(&t, n, g_array_index(ranks, guint, b));
      double stat = 0;
      if (pt == NULL || !dls_mean_cost(&t, pt, 0, &stat))
        continue;
      g_string_append_printf(detail, "%6" G_GUINT64_FORMAT " %3u %9.3f", n, pt->ranks, stat);
      /* STAT, at 0 % over itself, wins when every other loses to it */
      guint best = 0, best_adaptive = 0, others = 0;
      double top = 0, top_adaptive = -G_MAXDOUBLE;
      for (guint k = 1; k < DLS_NAMES; k++) {
        double v = 0;
        if (!dls_improvement(&t, pt, k, &v)) {
          g_string_append_printf(detail, " %6s", "-");
          continue;
        }
        others++;
        g_string_append_printf(detail, " %6.1f", v);
        if (v > top) {
          best = k;
          top = v;
        }
        if (dls_adaptive(k) && v > top_adaptive) {
          best_adaptive = k;
          top_adaptive = v;
        }
      }
      if (others == 0)
        return lb_check_fail(error, "N = %" G_GUINT64_FORMAT ", P = %u: no technique besides STAT",
                             n, pt->ranks);
      points++;
      g_string_append_printf(detail, "  %s\n", dls_names[best]);
      lb_check_output_point(out, !dls_adaptive(best), "N = %" G_GUINT64_FORMAT ", P = %u", n,
                            pt->ranks);
      if (!dls_adaptive(best)) {
        lost++;
        g_string_append_printf(losses, "%sP = %u, N = %" G_GUINT64_FORMAT ": %s %.1f",
                               losses->len ? "; " : "", pt->ranks, n, dls_names[best], top);
        if (best_adaptive > 0)
          g_string_append_printf(losses, " (%s %.1f)", dls_names[best_adaptive], top_adaptive);
      }
    }
  if (points == 0)
    return lb_check_fail(error, "no runs at N = %s", in->args[0]);
  out->value = lost;
  out->note = lost == 0 ? g_strdup_printf("awf or af best at all %u configurations", points)
                        : g_strdup_printf("%u of %u configurations best without adaptation: %s",
                                          lost, points, losses->str);
  out->detail = g_string_free(g_steal_pointer(&detail), FALSE);
  return TRUE;
}

/* N TECHNIQUE ...: the largest improvement of those techniques over the
 * runs' processor counts at N. */
static gboolean
dls_max_improvement(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  g_auto(DlsTable) t = {0};
  if (!dls_table(in, &t, FALSE, error))
    return FALSE;
  guint64 n = g_ascii_strtoull(in->args[0], NULL, 10);
  double top = -G_MAXDOUBLE;
  const char *which = NULL;
  guint at = 0;
  for (guint j = 0; j < t.points->len; j++) {
    const DlsPoint *pt = &g_array_index(t.points, DlsPoint, j);
    for (guint i = 1; i < in->nargs && pt->n == n; i++) {
      double v = 0;
      if (dls_improvement(&t, pt, (guint)dls_index(in->args[i]), &v) && v > top) {
        top = v;
        which = in->args[i];
        at = pt->ranks;
      }
    }
  }
  if (which == NULL)
    return lb_check_fail(error, "no runs of those techniques and STAT at N = %s", in->args[0]);
  out->value = top;
  out->note = g_strdup_printf("%s on %u processors", which, at);
  return TRUE;
}

static gboolean
dls_max_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  guint64 n = 0;
  if (!g_ascii_string_to_unsigned(args[0], 10, 1, G_MAXUINT32, &n, NULL))
    return lb_check_fail(error, "'%s' is not a loop size N", args[0]);
  for (guint i = 1; i < nargs; i++)
    if (dls_index(args[i]) < 0)
      return lb_check_fail(error, "'%s' is not a dls technique", args[i]);
  return TRUE;
}

/* N: how much of STAT's cost its ranks spent not computing, 100 (1 -
 * T_1 / (P T_p)), averaged over the runs, the largest over the processor
 * counts: what a schedule that kept every rank computing to the end, at
 * no cost, would save (exactly so on hosts of equal speed). */
static gboolean
dls_headroom(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  double n = g_ascii_strtod(in->args[0], NULL);
  g_autoptr(GArray) ranks = g_array_new(FALSE, FALSE, sizeof(guint));
  g_autoptr(GArray) sums = g_array_new(FALSE, TRUE, sizeof(double));
  g_autoptr(GArray) counts = g_array_new(FALSE, TRUE, sizeof(guint));
  for (guint i = 0; i < in->nruns; i++) {
    const LbRunResult *res = in->runs[i].result;
    double iterations = 0, efficiency = 0;
    if (strcmp(res->balancer, "dls:stat") != 0 ||
        !lb_run_result_lookup(res, "iterations", &iterations) || iterations != n)
      continue;
    if (!lb_run_result_lookup(res, "efficiency", &efficiency))
      return lb_check_fail(error, "%s: no efficiency", in->runs[i].point);
    guint k = 0;
    while (k < ranks->len && g_array_index(ranks, guint, k) != res->ranks)
      k++;
    if (k == ranks->len) {
      g_array_append_val(ranks, res->ranks);
      g_array_set_size(sums, k + 1);
      g_array_set_size(counts, k + 1);
    }
    g_array_index(sums, double, k) += 100 * (1 - efficiency);
    g_array_index(counts, guint, k)++;
  }
  if (ranks->len == 0)
    return lb_check_fail(error, "no runs of dls:stat at N = %s", in->args[0]);
  g_autoptr(GString) each = g_string_new(NULL);
  guint at = 0;
  out->value = -G_MAXDOUBLE;
  for (guint k = 0; k < ranks->len; k++) {
    double v = g_array_index(sums, double, k) / g_array_index(counts, guint, k);
    g_string_append_printf(each, "%sP = %u: %.1f", k ? ", " : "", g_array_index(ranks, guint, k),
                           v);
    if (v > out->value) {
      out->value = v;
      at = g_array_index(ranks, guint, k);
    }
  }
  out->note = g_strdup_printf("largest on %u processors (%s %%)", at, each->str);
  return TRUE;
}

/* A chunk as a rank's narration tells it (dls's "computed chunk" lines). */
typedef struct {
  guint64 first, end, size, cost;
  int rank, owner;
  double began, computing, ended;
} DlsChunkLine;

static gboolean
dls_chunk_line(const char *line, DlsChunkLine *c)
{
  const char *at = strstr(line, " t="), *rest = strstr(line, " iteration");
  return at != NULL && rest != NULL &&
         sscanf(at,
                " t=%lf s rank %d: computed chunk [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                ") of rank %d: %" G_GUINT64_FORMAT,
                &c->ended, &c->rank, &c->first, &c->end, &c->owner, &c->size) == 6 &&
         (rest = strstr(rest, ", cost ")) != NULL &&
         sscanf(rest, ", cost %" G_GUINT64_FORMAT ", began at %lf s, %lf s computing", &c->cost,
                &c->began, &c->computing) == 3;
}

/* TECHNIQUE N: the run of TECHNIQUE at the claim's processors and N
 * iterations (the claim's first run), made again with narration: every
 * rank's chunks in time. lbsim's number: the share (%) of T_p in which one
 * rank computed alone, from the second-last rank's last chunk to the
 * last's; the detail is the timeline, and the master's account of the
 * chunk that ended last. */
static gboolean
dls_timeline(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  g_autofree char *label = g_strdup_printf("dls:%s", in->args[0]);
  double n = g_ascii_strtod(in->args[1], NULL), iterations = 0;
  const LbCheckRun *run = NULL;
  for (guint i = 0; i < in->nruns && run == NULL; i++)
    if (strcmp(in->runs[i].result->balancer, label) == 0 &&
        lb_run_result_lookup(in->runs[i].result, "iterations", &iterations) && iterations == n)
      run = &in->runs[i];
  if (run == NULL)
    return lb_check_fail(error, "no run of %s at N = %s", label, in->args[1]);
  g_autoptr(LbScenario) sc = lb_job_load(run->job, error);
  if (sc == NULL)
    return FALSE;
  LbScenarioOverrides ov = {0};
  g_autofree char *key = g_strdup_printf("run %s", run->id);
  g_autoptr(LbRunResult) res =
      lb_check_simulate(sc, &ov, LB_CHECK_KEEP_NARRATION, in->sims, key, error);
  if (res == NULL)
    return FALSE;
  guint p = res->ranks;
  g_autofree double *last = g_new0(double, p);
  g_autofree guint *chunks = g_new0(guint, p);
  g_autofree guint64 *iters = g_new0(guint64, p), *cost = g_new0(guint64, p);
  g_autofree double *computing = g_new0(double, p);
  g_autoptr(GArray) lines = g_array_new(FALSE, FALSE, sizeof(DlsChunkLine));
  for (guint i = 0; res->narration != NULL && i < res->narration->len; i++) {
    DlsChunkLine c;
    if (!dls_chunk_line(res->narration->pdata[i], &c) || c.rank < 0 || (guint)c.rank >= p)
      continue;
    g_array_append_val(lines, c);
    last[c.rank] = MAX(last[c.rank], c.ended);
    chunks[c.rank]++;
    iters[c.rank] += c.size;
    cost[c.rank] += c.cost;
    computing[c.rank] += c.computing;
  }
  if (lines->len == 0)
    return lb_check_fail(error, "%s: its narration holds no computed chunks", run->point);
  guint slowest = 0, second = G_MAXUINT;
  for (guint r = 1; r < p; r++)
    if (last[r] > last[slowest])
      slowest = r;
  for (guint r = 0; r < p; r++)
    if (r != slowest && (second == G_MAXUINT || last[r] > last[second]))
      second = r;
  double tail = second == G_MAXUINT ? 0 : last[slowest] - last[second];
  out->value = last[slowest] > 0 ? 100 * tail / last[slowest] : 0;
  g_autoptr(GString) d = g_string_new(NULL);
  g_string_append_printf(d,
                         "%s: the chunks by rank (first iteration, size, owner when not itself, "
                         "start and end in s); the last three of each:\n",
                         run->point);
  for (guint r = 0; r < p; r++) {
    g_string_append_printf(d,
                           "rank %2u: %3u chunks, %5" G_GUINT64_FORMAT
                           " iterations, cost %8" G_GUINT64_FORMAT
                           ", %7.3f s computing, done %7.3f s:",
                           r, chunks[r], iters[r], cost[r], computing[r], last[r]);
    guint shown = MIN(chunks[r], 3);
    for (guint i = 0, seen = 0; i < lines->len; i++) {
      const DlsChunkLine *c = &g_array_index(lines, DlsChunkLine, i);
      if ((guint)c->rank != r || ++seen <= chunks[r] - shown)
        continue;
      g_string_append_printf(d, " [%" G_GUINT64_FORMAT " +%" G_GUINT64_FORMAT, c->first, c->size);
      if (c->owner != c->rank)
        g_string_append_printf(d, " of %d", c->owner);
      g_string_append_printf(d, " %.3f-%.3f]", c->began, c->ended);
    }
    g_string_append_c(d, '\n');
  }
  /* the master's account of the chunk that ended last */
  const DlsChunkLine *final = NULL;
  for (guint i = 0; i < lines->len; i++) {
    const DlsChunkLine *c = &g_array_index(lines, DlsChunkLine, i);
    if ((guint)c->rank == slowest && c->ended == last[slowest])
      final = c;
  }
  g_assert(final != NULL); /* the slowest rank's last line set last[slowest] */
  g_autofree char *range =
      g_strdup_printf("[%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ")", final->first, final->end);
  for (guint i = 0; i < res->narration->len; i++) {
    const char *line = res->narration->pdata[i];
    if (strstr(line, range) != NULL && strstr(line, "computed chunk") == NULL)
      g_string_append_printf(d, "the chunk that ended last, as the master chose it: %s\n",
                             strstr(line, "t=") != NULL ? strstr(line, "t=") : line);
  }
  out->note = g_strdup_printf(
      "rank %u ends at %.3f s, %.3f s after rank %u: its last chunk, %" G_GUINT64_FORMAT
      " iteration%s from %" G_GUINT64_FORMAT " (cost %" G_GUINT64_FORMAT "), ran %.3f-%.3f s",
      slowest, last[slowest], tail, second, final->size, final->size == 1 ? "" : "s", final->first,
      final->cost, final->began, final->ended);
  out->detail = g_string_free(g_steal_pointer(&d), FALSE);
  return TRUE;
}

/* ---- chaube2003: the seed's "family 6" read as each family ---- */

static gboolean
dls_families_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  guint64 n = 0;
  if (!g_ascii_string_to_unsigned(args[0], 10, 1, G_MAXUINT32, &n, NULL))
    return lb_check_fail(error, "'%s' is not a loop size N", args[0]);
  if (strcmp(args[1], "max") != 0 && strcmp(args[1], "best") != 0)
    return lb_check_fail(error, "'%s' is not max or best", args[1]);
  return TRUE;
}

/* One family's findings at N over the processor counts. */
typedef struct {
  int family;
  double idle, top, top_adaptive; /* the largest over P */
  guint idle_at, top_at, adaptive_at, top_k, adaptive_k;
  guint configurations, lost; /* where a technique that does not adapt is cheapest */
  GString *lost_at;
} DlsFamily;

static void
dls_family(const DlsTable *t, guint64 n, int family, DlsFamily *f)
{
  *f = (DlsFamily){family, -G_MAXDOUBLE, -G_MAXDOUBLE, -G_MAXDOUBLE};
  f->lost_at = g_string_new(NULL);
  g_autoptr(GArray) ranks = dls_ranks(t);
  for (guint b = 0; b < ranks->len; b++)
    for (guint j = 0; j < t->points->len; j++) {
      const DlsPoint *pt = &g_array_index(t->points, DlsPoint, j);
      double stat = 0;
      if (pt->n != n || pt->family != family || pt->ranks != g_array_index(ranks, guint, b) ||
          !dls_mean_cost(t, pt, 0, &stat))
        continue;
      double idle = 0;
      for (guint pl = 0; pl < t->nplaces; pl++)
        idle += pt->idle[pl] / t->nplaces;
      if (idle > f->idle) {
        f->idle = idle;
        f->idle_at = pt->ranks;
      }
      guint best = 0;
      double top = 0;
      for (guint k = 1; k < DLS_NAMES; k++) {
        double v = 0;
        if (!dls_improvement(t, pt, k, &v))
          continue;
        if (v > top) {
          top = v;
          best = k;
        }
        if (v > f->top) {
          f->top = v;
          f->top_at = pt->ranks;
          f->top_k = k;
        }
        if (dls_adaptive(k) && v > f->top_adaptive) {
          f->top_adaptive = v;
          f->adaptive_at = pt->ranks;
          f->adaptive_k = k;
        }
      }
      f->configurations++;
      if (!dls_adaptive(best)) {
        f->lost++;
        g_string_append_printf(f->lost_at, "%s%u:%s", f->lost_at->len ? " " : "", pt->ranks,
                               dls_names[best]);
      }
    }
}

/* N max|best: the claim's runs vary the family (workload.aqr-family); for
 * each at N, over the processor counts and of the costs averaged over the
 * placements: STAT's largest idle share, the largest cut of any technique
 * and of awf or af, and the processor counts where a technique that does
 * not adapt is cheapest. lbsim's number, max: the families whose largest
 * awf or af cut is within a factor of two of the seed's 68 %; best: those
 * where awf or af is cheapest at every processor count. The detail is the
 * table of every family. */
static gboolean
dls_families(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  g_auto(DlsTable) t = {0};
  if (!dls_table(in, &t, TRUE, error))
    return FALSE;
  guint64 n = g_ascii_strtoull(in->args[0], NULL, 10);
  gboolean max = strcmp(in->args[1], "max") == 0;
  g_autoptr(GArray) families = g_array_new(FALSE, FALSE, sizeof(int));
  for (guint j = 0; j < t.points->len; j++) {
    int family = g_array_index(t.points, DlsPoint, j).family, k = 0;
    while (k < (int)families->len && g_array_index(families, int, k) < family)
      k++;
    if (k == (int)families->len || g_array_index(families, int, k) != family)
      g_array_insert_val(families, k, family);
  }
  g_autoptr(GString) d = g_string_new(NULL);
  g_string_append_printf(d,
                         "at N = %" G_GUINT64_FORMAT ", the costs averaged over %u runs, the "
                         "largest over the processor counts (P):\n%6s %15s %20s %20s  %s\n",
                         n, t.nplaces, "family", "STAT idle (P)", "best cut (P)",
                         "awf or af best (P)", "a technique that does not adapt cheapest at P");
  g_autoptr(GString) each = g_string_new(NULL);
  guint counted = 0, seen = 0;
  for (guint i = 0; i < families->len; i++) {
    DlsFamily f;
    dls_family(&t, n, g_array_index(families, int, i), &f);
    if (f.configurations == 0) {
      g_string_free(f.lost_at, TRUE);
      continue;
    }
    seen++;
    gboolean hit = max ? f.top_adaptive >= 34 && f.top_adaptive <= 136 : f.lost == 0;
    counted += hit;
    g_autofree char *top = g_strdup_printf("%s %.1f (%u)", dls_names[f.top_k], f.top, f.top_at);
    g_autofree char *adaptive =
        g_strdup_printf("%s %.1f (%u)", dls_names[f.adaptive_k], f.top_adaptive, f.adaptive_at);
    g_autofree char *idle = g_strdup_printf("%.1f (%u)", f.idle, f.idle_at);
    g_string_append_printf(d, "%6d %15s %20s %20s  %u of %u%s%s\n", f.family, idle, top, adaptive,
                           f.lost, f.configurations, f.lost ? ": " : "", f.lost_at->str);
    if (max)
      g_string_append_printf(each, "%s%d: %s %.1f", each->len ? ", " : "", f.family,
                             dls_names[f.adaptive_k], f.top_adaptive);
    else
      g_string_append_printf(each, "%s%d: %u of %u", each->len ? ", " : "", f.family, f.lost,
                             f.configurations);
    g_string_free(f.lost_at, TRUE);
  }
  if (seen == 0)
    return lb_check_fail(error, "no runs at N = %s", in->args[0]);
  out->value = counted;
  out->note = g_strdup_printf(
      max ? "%u of %u families: awf or af within 2x of 68 %% (largest cut: %s)"
          : "%u of %u families: awf or af cheapest at every P (P where another is: %s)",
      counted, seen, each->str);
  out->detail = g_string_free(g_steal_pointer(&d), FALSE);
  return TRUE;
}

/* ---- chaube2003: Table 2, chunks against their order ---- */

static const char *const chunk_orders[] = {"P", "N", "N/Kopt", "Plog(N/P)", "PlogN", NULL};

/* Table 2's order of a technique's chunk count on N iterations and P
 * processors, constants aside: FSC's N / K_opt with K_opt = (sqrt(2) N h
 * / (sigma P sqrt(ln P)))^(2/3) is N^(1/3) (P sqrt(ln P))^(2/3) times a
 * constant of h and sigma. */
static double
chunk_order(const char *order, double n, double p)
{
  if (strcmp(order, "P") == 0)
    return p;
  if (strcmp(order, "N") == 0)
    return n;
  if (strcmp(order, "N/Kopt") == 0)
    return cbrt(n) * pow(p * sqrt(log(p)), 2.0 / 3.0);
  if (strcmp(order, "Plog(N/P)") == 0)
    return p * log2(n / p);
  return p * log2(n);
}

static gboolean
dls_chunks_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  if (dls_index(args[0]) < 0)
    return lb_check_fail(
        error, "'%s' is not a dls technique (stat, ss, fsc, gss, tss, fac, frac, wf, awf, af)",
        args[0]);
  if (!g_strv_contains(chunk_orders, args[1]))
    return lb_check_fail(error, "'%s' is not an order of Table 2 (P, N, N/Kopt, Plog(N/P), PlogN)",
                         args[1]);
  return TRUE;
}

/* A technique's chunks in each configuration (P, N), averaged over the
 * claim's runs (the placements). */
typedef struct {
  guint64 ranks, n;
  double chunks;
} DlsCount;

static GArray *
dls_counts(const LbCheckInput *in, const char *label, GError **error)
{
  g_autoptr(GArray) counts = g_array_new(FALSE, FALSE, sizeof(DlsCount));
  g_autoptr(GArray) runs = g_array_new(FALSE, TRUE, sizeof(guint));
  for (guint i = 0; i < in->nruns; i++) {
    const LbRunResult *res = in->runs[i].result;
    if (strcmp(res->balancer, label) != 0)
      continue;
    double n = 0, chunks = 0;
    if (!lb_run_result_lookup(res, "iterations", &n) ||
        !lb_run_result_lookup(res, "chunks", &chunks)) {
      lb_check_fail(error, "%s: no iterations or chunks", in->runs[i].point);
      return NULL;
    }
    guint j = 0;
    while (j < counts->len && (g_array_index(counts, DlsCount, j).ranks != res->ranks ||
                               g_array_index(counts, DlsCount, j).n != (guint64)n))
      j++;
    if (j == counts->len) {
      DlsCount c = {res->ranks, (guint64)n, 0};
      g_array_append_val(counts, c);
      g_array_set_size(runs, j + 1);
    }
    g_array_index(counts, DlsCount, j).chunks += chunks;
    g_array_index(runs, guint, j)++;
  }
  for (guint j = 0; j < counts->len; j++)
    g_array_index(counts, DlsCount, j).chunks /= g_array_index(runs, guint, j);
  return g_steal_pointer(&counts);
}

/* TECHNIQUE ORDER: the technique's chunks (averaged over the claim's
 * runs, the placements) in every configuration (N, P) over its order: a
 * count of that order is a constant times it, so each configuration's
 * ratio is a point, over the ratios' geometric mean (1 for a count
 * exactly of that order); lbsim's number is the largest ratio over the
 * least. */
static gboolean
dls_chunks(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  g_autofree char *label = g_strdup_printf("dls:%s", in->args[0]);
  const char *order = in->args[1];
  g_autoptr(GArray) counts = dls_counts(in, label, error);
  if (counts == NULL)
    return FALSE;
  if (counts->len < 2)
    return lb_check_fail(error, "%s: %u configurations (N, P); an order needs two or more", label,
                         counts->len);
  g_autofree double *ratio = g_new(double, counts->len);
  double log_mean = 0, lo = INFINITY, hi = 0;
  g_autoptr(GString) t = g_string_new(NULL);
  g_string_append_printf(t, "%6s %3s %10s %12s %10s\n", "N", "P", "chunks", order, "ratio");
  for (guint j = 0; j < counts->len; j++) {
    const DlsCount *c = &g_array_index(counts, DlsCount, j);
    double f = chunk_order(order, (double)c->n, (double)c->ranks);
    ratio[j] = c->chunks / f;
    log_mean += log(ratio[j]) / counts->len;
    lo = MIN(lo, ratio[j]);
    hi = MAX(hi, ratio[j]);
    g_string_append_printf(t,
                           "%6" G_GUINT64_FORMAT " %3" G_GUINT64_FORMAT " %10.1f %12.1f %10.4f\n",
                           c->n, c->ranks, c->chunks, f, ratio[j]);
  }
  double mean = exp(log_mean);
  for (guint j = 0; j < counts->len; j++) {
    const DlsCount *c = &g_array_index(counts, DlsCount, j);
    lb_check_output_point(out, ratio[j] / mean, "N = %" G_GUINT64_FORMAT ", P = %" G_GUINT64_FORMAT,
                          c->n, c->ranks);
  }
  out->value = hi / lo;
  out->note = g_strdup_printf("%s's chunks over %s in %u configurations: from %.3g to %.3g "
                              "(largest over least %.2f)",
                              label, order, counts->len, lo, hi, hi / lo);
  out->detail = g_string_free(g_steal_pointer(&t), FALSE);
  return TRUE;
}

/* Adds the growth of the chunks from configuration a to b (one axis
 * fixed) against the order's, as a point and a line of the detail. */
static void
dls_growth_point(LbCheckOutput *out, GString *t, const char *order, const DlsCount *a,
                 const DlsCount *b, gboolean along_n)
{
  double got = b->chunks / a->chunks;
  double want = chunk_order(order, (double)b->n, (double)b->ranks) /
                chunk_order(order, (double)a->n, (double)a->ranks);
  if (along_n)
    lb_check_output_point(
        out, got / want, "P = %" G_GUINT64_FORMAT ", N %" G_GUINT64_FORMAT " -> %" G_GUINT64_FORMAT,
        a->ranks, a->n, b->n);
  else
    lb_check_output_point(
        out, got / want, "N = %" G_GUINT64_FORMAT ", P %" G_GUINT64_FORMAT " -> %" G_GUINT64_FORMAT,
        a->n, a->ranks, b->ranks);
  g_string_append_printf(t, "%-22s %8.1f -> %8.1f %8.3f %8.3f %8.3f\n",
                         g_array_index(out->points, LbCheckPoint, out->points->len - 1).label,
                         a->chunks, b->chunks, got, want, got / want);
}

/* TECHNIQUE ORDER: Table 2's order as growth, constants aside: at each P,
 * the technique's chunks (averaged over the claim's runs) at the largest
 * N over those at the smallest, and at each N, at the most processors over
 * the fewest, each over what the order predicts for the same two
 * configurations (1: the count grows as the order does); a point each,
 * the number the one furthest from 1. */
static gboolean
dls_growth(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  g_autofree char *label = g_strdup_printf("dls:%s", in->args[0]);
  const char *order = in->args[1];
  g_autoptr(GArray) counts = dls_counts(in, label, error);
  if (counts == NULL)
    return FALSE;
  g_autoptr(GString) t = g_string_new(NULL);
  g_string_append_printf(t, "%-22s %20s %8s %8s %8s\n", "growth", "chunks", "lbsim", order, "over");
  for (guint axis = 0; axis < 2; axis++) {
    gboolean along_n = axis == 0;
    /* each value of the fixed axis once, ascending */
    g_autoptr(GArray) fixed = g_array_new(FALSE, FALSE, sizeof(guint64));
    for (guint j = 0; j < counts->len; j++) {
      const DlsCount *c = &g_array_index(counts, DlsCount, j);
      guint64 v = along_n ? c->ranks : c->n;
      guint k = 0;
      while (k < fixed->len && g_array_index(fixed, guint64, k) < v)
        k++;
      if (k == fixed->len || g_array_index(fixed, guint64, k) != v)
        g_array_insert_val(fixed, k, v);
    }
    for (guint k = 0; k < fixed->len; k++) {
      guint64 v = g_array_index(fixed, guint64, k);
      const DlsCount *lo = NULL, *hi = NULL;
      for (guint j = 0; j < counts->len; j++) {
        const DlsCount *c = &g_array_index(counts, DlsCount, j);
        guint64 along = along_n ? c->n : c->ranks;
        if ((along_n ? c->ranks : c->n) != v)
          continue;
        if (lo == NULL || along < (along_n ? lo->n : lo->ranks))
          lo = c;
        if (hi == NULL || along > (along_n ? hi->n : hi->ranks))
          hi = c;
      }
      if (lo != hi)
        dls_growth_point(out, t, order, lo, hi, along_n);
    }
  }
  if (out->points == NULL)
    return lb_check_fail(error, "%s: no two configurations that differ in N alone or P alone",
                         label);
  double worst = 1;
  for (guint i = 0; i < out->points->len; i++) {
    double v = g_array_index(out->points, LbCheckPoint, i).value;
    if (fabs(log(v)) > fabs(log(worst)))
      worst = v;
  }
  out->value = worst;
  out->note = g_strdup_printf("%s's chunks grow as %s within a factor of %.2f over %u pairs of "
                              "configurations",
                              label, order, MAX(worst, 1 / worst), out->points->len);
  out->detail = g_string_free(g_steal_pointer(&t), FALSE);
  return TRUE;
}

/* name, usage, arguments, reads a run, validate, compute; then what the
 * arguments name: labels (first, last, prefix), a metric, a label the
 * runs must have */

const LbReproCheck lb_checks_chaube2003[] = {
    {"dls-improvement", "TECHNIQUE N", 2, 2, TRUE, dls_technique_validate, dls_improvement_check, 0,
     0, "dls:", -1, "dls:stat"},
    {"dls-best", "N|all", 1, 1, TRUE, dls_size_validate, dls_best, -1, -1, NULL, -1, "dls:stat"},
    {"dls-max-improvement", "N TECHNIQUE ...", 2, 10, TRUE, dls_max_validate, dls_max_improvement,
     1, G_MAXINT, "dls:", -1, "dls:stat"},
    {"dls-headroom", "N", 1, 1, TRUE, dls_max_validate, dls_headroom, -1, -1, NULL, -1, "dls:stat"},
    {"dls-timeline", "TECHNIQUE N", 2, 2, TRUE, dls_technique_validate, dls_timeline, 0, 0,
     "dls:", -1, NULL},
    {"dls-chunks", "TECHNIQUE ORDER", 2, 2, TRUE, dls_chunks_validate, dls_chunks, 0, 0, "dls:", -1,
     NULL},
    {"dls-families", "N max|best", 2, 2, TRUE, dls_families_validate, dls_families, -1, -1, NULL,
     -1, "dls:stat"},
    {"dls-growth", "TECHNIQUE ORDER", 2, 2, TRUE, dls_chunks_validate, dls_growth, 0, 0, "dls:", -1,
     NULL},
    {NULL},
};
