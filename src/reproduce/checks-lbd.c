/* The checks of "Load Balancing by Dimension", a design note of the PDT
 * code: BUILD_UNDIRECTED_TDG (its Figure 3 and random cuts), which axis
 * goes first, and how the loops end. */
#include <math.h>
#include <string.h>

#include "balancers/cuts/tdg.h"
#include "lbsim/balancer.h"
#include "lbsim/model.h"
#include "reproduce/checks-common.h"

/* ---- lbd: BUILD_UNDIRECTED_TDG ---- */

/* Figure 3's partition as the walk-through tells it: three columns of
 * three subsets, numbered up each column (0 .. 2, 3 .. 5, 6 .. 8), the
 * columns' y cuts c[column][1..2] (c[.][0] = 0, c[.][3] = the height).
 * The walk-through compares cuts with subsets' bounds; each comparison it
 * states is one condition here. */
static gboolean
walkthrough_holds(guint64 c[3][4])
{
  /* subset 0 = column 0's [0, c0_1); column 1's first cut is below its
   * ymax and above its ymin: 3 and 4 */
  gboolean ok = c[1][1] < c[0][1] && c[1][1] > c[0][0];
  /* column 1's second cut is above subset 0's ymax, the one before below
   * it: 4 again */
  ok &= c[1][2] > c[0][1] && c[1][1] < c[0][1];
  /* subset 4 = column 1's [c1_1, c1_2); column 0's first cut is below its
   * ymax and above its ymin: 0 and 1; the second too: 1 and 2 */
  ok &= c[0][1] < c[1][2] && c[0][1] > c[1][1];
  ok &= c[0][2] < c[1][2] && c[0][2] > c[1][1];
  /* column 2's first cut is below subset 4's ymax and below its ymin:
   * nothing */
  ok &= c[2][1] < c[1][2] && c[2][1] < c[1][1];
  /* its second cut is above subset 4's ymax, the one before below it: 7 */
  ok &= c[2][2] > c[1][2] && c[2][1] < c[1][2];
  return ok;
}

static gboolean
figure3_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  for (guint i = 0; i < nargs; i++) {
    g_auto(GStrv) parts = g_strsplit(args[i], ":", 2);
    guint64 s = 0;
    g_autoptr(GArray) list = parts[1] != NULL ? lb_check_numbers(parts[1]) : NULL;
    if (!g_ascii_string_to_unsigned(parts[0], 10, 0, 8, &s, NULL) || list == NULL)
      return lb_check_fail(error, "check tdg-figure3: '%s' is not SUBSET:N,N,... (subsets 0 .. 8)",
                           args[i]);
  }
  return TRUE;
}

static char *
ids_text(const GArray *ids)
{
  GString *t = g_string_new(NULL);
  for (guint i = 0; i < ids->len; i++)
    g_string_append_printf(t, "%s%u", i ? ", " : "", g_array_index(ids, guint, i));
  return g_string_free(t, FALSE);
}

static char *
ids_text_of(const GArray *numbers64)
{
  GString *t = g_string_new(NULL);
  for (guint i = 0; i < numbers64->len; i++)
    g_string_append_printf(t, "%s%" G_GUINT64_FORMAT, i ? ", " : "",
                           g_array_index(numbers64, guint64, i));
  return g_string_free(t, FALSE);
}

/* The walk-through of Figure 3 (its picture is not in the text): every
 * partition of a 12 x 8 grid into three columns of three subsets that
 * meets the walk-through's comparisons, and on each the neighbours
 * lbsim's BUILD_UNDIRECTED_TDG gives the subsets named (those to the
 * right and left: the document takes above and below as known). lbsim's
 * number: the lists that differ from the document's. */
static gboolean
tdg_figure3(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  const guint64 height = 8;
  const guint64 xcuts[4] = {0, 4, 8, 12};
  guint fits = 0, differ = 0;
  g_autoptr(GString) detail = g_string_new(NULL);
  guint64 c[3][4];
  for (guint col = 0; col < 3; col++) {
    c[col][0] = 0;
    c[col][3] = height;
  }
  /* every pair of interior cuts in every column */
  for (guint64 a = 1; a < height; a++)
    for (guint64 b = a + 1; b < height; b++)
      for (guint64 e = 1; e < height; e++)
        for (guint64 f = e + 1; f < height; f++)
          for (guint64 g = 1; g < height; g++)
            for (guint64 h = g + 1; h < height; h++) {
              c[0][1] = a, c[0][2] = b, c[1][1] = e, c[1][2] = f, c[2][1] = g, c[2][2] = h;
              if (!walkthrough_holds(c))
                continue;
              fits++;
              LbColumns cols = {3, 3, xcuts, &c[0][0]};
              for (guint i = 0; i < in->nargs; i++) {
                g_auto(GStrv) parts = g_strsplit(in->args[i], ":", 2);
                guint s = (guint)g_ascii_strtoull(parts[0], NULL, 10);
                g_autoptr(GArray) want = lb_check_numbers(parts[1]);
                g_autoptr(GArray) all = g_array_new(FALSE, FALSE, sizeof(guint));
                lb_tdg_neighbours(&cols, s, all);
                g_autoptr(GArray) sideways = g_array_new(FALSE, FALSE, sizeof(guint));
                for (guint k = 0; k < all->len; k++)
                  if (g_array_index(all, guint, k) / 3 != s / 3)
                    g_array_append_val(sideways, g_array_index(all, guint, k));
                gboolean same = sideways->len == want->len;
                for (guint k = 0; same && k < want->len; k++)
                  same = g_array_index(sideways, guint, k) == g_array_index(want, guint64, k);
                differ += !same;
                if (fits == 1) {
                  g_autofree char *side = ids_text(sideways), *every = ids_text(all);
                  g_autofree char *doc = ids_text_of(want);
                  g_string_append_printf(detail,
                                         "subset %u: right and left %s (the document: %s); with "
                                         "above and below %s\n",
                                         s, side, doc, every);
                }
              }
              if (fits == 1) {
                g_autoptr(GString) cuts =
                    g_string_new("one such partition (x cuts 0 4 8 12, y cuts of each column):\n");
                for (guint col = 0; col < 3; col++)
                  g_string_append_printf(
                      cuts,
                      "column %u: %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
                      " %" G_GUINT64_FORMAT " (subsets %u .. %u, bottom up)\n",
                      col, c[col][0], c[col][1], c[col][2], c[col][3], 3 * col, 3 * col + 2);
                g_string_prepend(detail, cuts->str);
              }
            }
  if (fits == 0)
    return lb_check_fail(error, "no partition meets the walk-through's comparisons");
  out->value = differ;
  out->note = g_strdup_printf("%u partitions of a 12 x 8 grid meet the walk-through's "
                              "comparisons; on them %u of %u lists differ from the document's",
                              fits, differ, fits * in->nargs);
  out->detail = g_string_free(g_steal_pointer(&detail), FALSE);
  return TRUE;
}

/* Rectangle adjacency by painting the cells: two subsets are neighbours
 * when a cell of one shares a side with a cell of the other (cuts are
 * whole cells, so that is an edge of positive length). adj is n x n. */
static void
painted_adjacency(const LbColumns *p, guint64 width, guint64 height, gboolean *adj)
{
  guint n = p->ncols * p->nrows;
  g_autofree guint *owner = g_new(guint, width * height);
  for (guint c = 0; c < p->ncols; c++)
    for (guint r = 0; r < p->nrows; r++)
      for (guint64 x = p->xcuts[c]; x < p->xcuts[c + 1]; x++)
        for (guint64 y = lb_tdg_column_y(p, c, r); y < lb_tdg_column_y(p, c, r + 1); y++)
          owner[y * width + x] = c * p->nrows + r;
  for (guint64 y = 0; y < height; y++)
    for (guint64 x = 0; x < width; x++) {
      guint a = owner[y * width + x];
      if (x + 1 < width && owner[y * width + x + 1] != a)
        adj[a * n + owner[y * width + x + 1]] = adj[owner[y * width + x + 1] * n + a] = TRUE;
      if (y + 1 < height && owner[(y + 1) * width + x] != a)
        adj[a * n + owner[(y + 1) * width + x]] = adj[owner[(y + 1) * width + x] * n + a] = TRUE;
    }
}

static void
random_cuts(GRand *rand, guint64 *cuts, guint n, guint64 extent)
{
  cuts[0] = 0;
  cuts[n] = extent;
  for (guint i = 1; i < n; i++)
    cuts[i] = (guint64)g_rand_int_range(rand, 0, (gint32)extent + 1);
  qsort(cuts + 1, n - 1, sizeof *cuts, lb_check_compare_guint64);
}

/* BUILD_UNDIRECTED_TDG (lb_tdg_neighbours) against painted rectangle
 * adjacency on random partitions: up to 6 x 6 subsets on grids up to
 * 24 x 24 cells, equal cuts (empty subsets and columns, cuts level with
 * the neighbour column's) included. lbsim's number: the partitions where
 * any subset's list differs. */
static gboolean
tdg_random(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  guint partitions = in->quick ? 2000 : 20000, differ = 0, ties = 0;
  guint64 subsets = 0, empty = 0;
  g_autoptr(GRand) rand = g_rand_new_with_seed(2024);
  for (guint t = 0; t < partitions; t++) {
    guint ncols = (guint)g_rand_int_range(rand, 1, 7), nrows = (guint)g_rand_int_range(rand, 1, 7);
    guint64 width = (guint64)g_rand_int_range(rand, 1, 25);
    guint64 height = (guint64)g_rand_int_range(rand, 1, 25);
    g_autofree guint64 *xcuts = g_new(guint64, ncols + 1);
    g_autofree guint64 *ycuts = g_new(guint64, ncols * (nrows + 1));
    random_cuts(rand, xcuts, ncols, width);
    for (guint c = 0; c < ncols; c++)
      random_cuts(rand, ycuts + c * (nrows + 1), nrows, height);
    LbColumns cols = {ncols, nrows, xcuts, ycuts};
    guint n = ncols * nrows;
    g_autofree gboolean *adj = g_new0(gboolean, n * n);
    painted_adjacency(&cols, width, height, adj);
    gboolean same = TRUE, tie = FALSE;
    for (guint s = 0; s < n; s++) {
      g_autoptr(GArray) got = g_array_new(FALSE, FALSE, sizeof(guint));
      lb_tdg_neighbours(&cols, s, got);
      guint want = 0;
      for (guint o = 0; o < n; o++)
        want += adj[s * n + o];
      same &= got->len == want;
      for (guint k = 0; k < got->len; k++)
        same &= adj[s * n + g_array_index(got, guint, k)];
      subsets++;
      guint c = s / nrows, r = s % nrows;
      empty +=
          xcuts[c] == xcuts[c + 1] || ycuts[c * (nrows + 1) + r] == ycuts[c * (nrows + 1) + r + 1];
      for (guint k = 1; c + 1 < ncols && r + 1 < nrows && k < nrows; k++)
        tie |= ycuts[c * (nrows + 1) + r + 1] == ycuts[(c + 1) * (nrows + 1) + k];
    }
    differ += !same;
    ties += tie;
  }
  out->value = differ;
  out->note =
      g_strdup_printf("%u random partitions (%" G_GUINT64_FORMAT " subsets, %" G_GUINT64_FORMAT
                      " empty; %u with a cut level with the next column's): %u differ "
                      "from painted rectangle adjacency",
                      partitions, subsets, empty, ties, differ);
  return TRUE;
}

/* ---- lbd: which axis goes first ---- */

/* max / mean - 1 of the slabs' loads, as the exact fraction max * n /
 * total (compared without rounding). */
typedef struct {
  guint64 max, total;
  guint n;
} Metric;

static Metric
slab_metric(GHashTable *slabs)
{
  Metric m = {0, 0, g_hash_table_size(slabs)};
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, slabs);
  while (g_hash_table_iter_next(&it, &key, &value)) {
    guint64 load = *(guint64 *)value;
    m.max = MAX(m.max, load);
    m.total += load;
  }
  return m;
}

/* f_a <= f_b, exactly: max_a n_a / T <= max_b n_b / T. */
static gboolean
metric_le(Metric a, Metric b)
{
  return (unsigned __int128)a.max * a.n <= (unsigned __int128)b.max * b.n;
}

static double
metric_value(Metric m)
{
  return m.total > 0 ? (double)m.max * m.n / (double)m.total - 1.0 : 0.0;
}

/* f_I and f_J of a field run's starting partition at step 0, computed
 * here: the ranks' loads summed over the ranks whose boxes start at the
 * same x (a column of the processor grid) and the same y (a row). */
static gboolean
start_metrics(const LbJob *job, Metric *fx, Metric *fy, GError **error)
{
  g_autoptr(LbScenario) sc = lb_job_load(job, error);
  if (sc == NULL)
    return FALSE;
  const LbBalancerRun *brun = sc->runs->pdata[0];
  const LbWork *work = brun->work;
  if (work->dim != 2)
    return lb_check_fail(error, "a field of %u dimensions: the check reads 2D fields", work->dim);
  LbStart start = lb_scenario_start(sc, brun->balancer);
  g_autoptr(GHashTable) columns =
      g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
  g_autoptr(GHashTable) rows = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
  g_autoptr(GArray) units = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  for (guint r = 0; r < sc->ranks; r++) {
    g_array_set_size(units, 0);
    lb_work_initial_units(work, r, start, units);
    lb_work_update(work, r, units, 0);
    gint64 x0 = G_MAXINT64, y0 = G_MAXINT64;
    guint64 load = 0;
    for (guint i = 0; i < units->len; i++) {
      const LbUnit *u = &g_array_index(units, LbUnit, i);
      x0 = MIN(x0, (gint64)(u->id % work->size[0]));
      y0 = MIN(y0, (gint64)(u->id / work->size[0]));
      load += u->load;
    }
    GHashTable *tables[2] = {columns, rows};
    gint64 keys[2] = {x0, y0};
    for (guint a = 0; a < 2; a++) {
      guint64 *sum = g_hash_table_lookup(tables[a], &keys[a]);
      if (sum == NULL) {
        sum = g_new0(guint64, 1);
        g_hash_table_insert(tables[a], g_memdup2(&keys[a], sizeof keys[a]), sum);
      }
      *sum += load;
    }
  }
  *fx = slab_metric(columns);
  *fy = slab_metric(rows);
  return TRUE;
}

/* LOAD_BALANCE_BY_DIMENSION's first choice: x first when f_I <= f_J.
 * lbsim's number: the runs of BALANCER whose first-axis metric at step 0
 * is not the axis of the smaller metric computed here. */
static gboolean
first_axis(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  const char *balancer = in->args[0];
  guint differ = 0, first[2] = {0, 0}, runs = 0;
  double spread[2][2] = {{G_MAXDOUBLE, -G_MAXDOUBLE}, {G_MAXDOUBLE, -G_MAXDOUBLE}};
  for (guint i = 0; i < in->nruns; i++) {
    const LbRunResult *res = in->runs[i].result;
    if (strcmp(res->balancer, balancer) != 0)
      continue;
    int k = lb_metric_defs_find(res->metric_defs, "first-axis");
    if (k < 0 || res->adaptation_metrics == NULL || res->nadaptations == 0)
      return lb_check_fail(error, "%s: no first-axis metric", in->runs[i].point);
    double axis = res->adaptation_metrics[k]; /* step 0 */
    Metric fx, fy;
    g_autoptr(GError) local = NULL;
    if (!start_metrics(in->runs[i].job, &fx, &fy, &local))
      return lb_check_fail(error, "%s: %s", in->runs[i].point, local->message);
    guint want = metric_le(fx, fy) ? 0 : 1;
    differ += axis != want;
    first[want]++;
    runs++;
    double ratio = metric_value(fy) - metric_value(fx);
    spread[want][0] = MIN(spread[want][0], ratio);
    spread[want][1] = MAX(spread[want][1], ratio);
  }
  if (runs == 0)
    return lb_check_fail(error, "no runs of %s", balancer);
  if (first[0] == 0 || first[1] == 0)
    return lb_check_fail(error,
                         "in all %u runs %s has the smaller metric: the runs cannot test the "
                         "choice (vary the load so that each axis leads somewhere)",
                         runs, first[0] == 0 ? "y" : "x");
  out->value = differ;
  out->note = g_strdup_printf("%u runs: f_x <= f_y in %u (f_y - f_x %.3f .. %.3f), f_x > f_y in "
                              "%u (%.3f .. %.3f); %u first axes differ from the smaller metric's",
                              runs, first[0], spread[0][0], spread[0][1], first[1], spread[1][0],
                              spread[1][1], differ);
  return TRUE;
}

/* ---- lbd: how the loops end ---- */

static const char *const loop_ends[] = {"tolerance", "unchanged", "cap", "worse", NULL};

static gboolean
loops_validate(const char *const *args, guint nargs, const char *dir, GError **error)
{
  if (strcmp(args[0], "count") != 0 && strcmp(args[0], "share") != 0)
    return lb_check_fail(error, "check loops: '%s' is not count or share", args[0]);
  /* the cap and a worse metric cannot end a loop of lbd's Redistribute
   * (the profile move never makes the metric worse and converges well
   * within the cap): a claim of them could not fail */
  if (strcmp(args[1], "tolerance") != 0 && strcmp(args[1], "unchanged") != 0)
    return lb_check_fail(error, "check loops: '%s' is not tolerance or unchanged", args[1]);
  return TRUE;
}

/* How BALANCER's Redistribute loops ended, over every run the claim reads
 * (its loops-* metrics: within the tolerance, no better cuts, at the cap,
 * sent back after a worse metric): the loops that ended so, or their
 * share of all loops in percent. */
static gboolean
loops(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  const char *balancer = in->args[2];
  double count[G_N_ELEMENTS(loop_ends) - 1] = {0};
  guint runs = 0, want = 0;
  g_autoptr(GString) per_run = g_string_new(NULL);
  for (guint i = 0; i < in->nruns; i++) {
    const LbRunResult *res = in->runs[i].result;
    if (strcmp(res->balancer, balancer) != 0)
      continue;
    runs++;
    g_string_append_printf(per_run, "%s:", in->runs[i].point);
    for (guint k = 0; loop_ends[k] != NULL; k++) {
      g_autofree char *metric = g_strdup_printf("loops-%s", loop_ends[k]);
      double v = 0;
      if (!lb_run_result_lookup(res, metric, &v))
        return lb_check_fail(error, "%s: no metric %s", in->runs[i].point, metric);
      count[k] += v;
      g_string_append_printf(per_run, " %s %.0f", loop_ends[k], v);
      if (strcmp(loop_ends[k], in->args[1]) == 0)
        want = k;
    }
    g_string_append_c(per_run, '\n');
  }
  if (runs == 0)
    return lb_check_fail(error, "no runs of %s", balancer);
  double all = 0;
  for (guint k = 0; loop_ends[k] != NULL; k++)
    all += count[k];
  out->value = strcmp(in->args[0], "count") == 0 ? count[want]
               : all > 0                         ? 100.0 * count[want] / all
                                                 : 0;
  out->note = g_strdup_printf("%.0f loops in %u runs: %.0f within the tolerance, %.0f no better "
                              "cuts, %.0f at the cap, %.0f after a worse metric",
                              all, runs, count[0], count[1], count[2], count[3]);
  /* the table once, with the share */
  if (strcmp(in->args[0], "share") == 0)
    out->detail = g_string_free(g_steal_pointer(&per_run), FALSE);
  return TRUE;
}

const LbReproCheck lb_checks_lbd[] = {
    {"tdg-figure3", "SUBSET:N,N,... (the document's lists)", 1, 9, FALSE, figure3_validate,
     tdg_figure3, LB_CHECK_NO_LABELS},
    {"tdg-random", "no arguments", 0, 0, FALSE, NULL, tdg_random, LB_CHECK_NO_LABELS},
    {"first-axis", "BALANCER", 1, 1, TRUE, NULL, first_axis, 0, 0, NULL, -1, NULL},
    {"loops", "count|share tolerance|unchanged BALANCER", 3, 3, TRUE, loops_validate, loops, 2, 2,
     NULL, -1, NULL},
    {NULL},
};
