/* The checks of "Load Balancing by Dimension", a design note of the PDT
 * code: BUILD_UNDIRECTED_TDG (its Figure 3 and random cuts), which axis
 * goes first, how the loops end, and where they end against the best
 * cuts. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "balancers/cuts/tdg.h"
#include "lbsim/balancer.h"
#include "lbsim/model.h"
#include "reproduce/chains.h"
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
   * (the profile's cuts never make the metric worse and converge well
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

/* ---- lbd: the loops against the best cuts ---- */

/* A loop's metric line as lbd narrates it: "level L (a): metric F >
 * tolerance T after N redistributions; PIECE: slabs' loads W W ...", PIECE
 * "the whole domain" or "inside x in [a, b), y in [c, d)". */
typedef struct {
  guint step, level, axis;
  int rank;
  gboolean above;
  guint64 lo[3], hi[3]; /* the piece's box (the whole field along free axes) */
  GArray *loads;        /* guint64, one per slab */
} LoopLine;

static void
loop_line_clear(gpointer data)
{
  LoopLine *l = data;
  g_clear_pointer(&l->loads, g_array_unref);
}

static gboolean
parse_loop_line(const char *line, guint step, const LbWork *work, LoopLine *l)
{
  const char *at = strstr(line, " rank ");
  char axis = 0, cmp[3] = "";
  double f = 0, tolerance = 0;
  if (at == NULL || sscanf(at, " rank %d: level %u (%c): metric %lf %2s tolerance %lf", &l->rank,
                           &l->level, &axis, &f, cmp, &tolerance) != 6)
    return FALSE;
  const char *loads = strstr(at, ": slabs' loads"), *piece = strstr(at, "; ");
  if (loads == NULL || piece == NULL || axis < 'x' || axis > 'z')
    return FALSE;
  l->step = step;
  l->axis = (guint)(axis - 'x');
  l->above = strcmp(cmp, ">") == 0;
  for (guint a = 0; a < 3; a++) {
    l->lo[a] = 0;
    l->hi[a] = a < work->dim ? work->size[a] : 1;
  }
  piece += 2;
  if (g_str_has_prefix(piece, "inside")) {
    const char *p = piece + strlen("inside");
    while (p < loads) {
      char a = 0;
      guint64 lo = 0, hi = 0;
      int used = 0;
      if (sscanf(p, "%*[ ,]%c in [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ")%n", &a, &lo, &hi,
                 &used) != 3 ||
          a < 'x' || a >= 'x' + (char)work->dim)
        return FALSE;
      l->lo[a - 'x'] = lo;
      l->hi[a - 'x'] = hi;
      p += used;
    }
  } else if (!g_str_has_prefix(piece, "the whole domain"))
    return FALSE;
  l->loads = g_array_new(FALSE, FALSE, sizeof(guint64));
  for (const char *p = loads + strlen(": slabs' loads"); *p == ' ';) {
    char *end = NULL;
    guint64 v = g_ascii_strtoull(p + 1, &end, 10);
    if (end == p + 1)
      break;
    g_array_append_val(l->loads, v);
    p = end;
  }
  return l->loads->len > 0;
}

/* The field's load at every cell at an adaptation step, from the model
 * (a pure function of the cell and the step), as MESH measures it. */
static guint64 *
field_at(const LbWork *work, guint step)
{
  g_autoptr(GArray) units = g_array_sized_new(FALSE, FALSE, sizeof(LbUnit), (guint)work->cells);
  g_array_set_size(units, (guint)work->cells);
  for (guint64 i = 0; i < work->cells; i++)
    g_array_index(units, LbUnit, i) = (LbUnit){i, 0};
  lb_work_update(work, 0, units, step);
  guint64 *loads = g_new(guint64, work->cells);
  for (guint64 i = 0; i < work->cells; i++)
    loads[i] = g_array_index(units, LbUnit, i).load;
  return loads;
}

/* The piece's load along the loop's axis, cell by cell: the chain its
 * slabs are contiguous runs of. */
static guint64 *
piece_profile(const LbWork *work, const guint64 *field, const LoopLine *l)
{
  guint64 sx = work->size[0], sy = work->dim > 1 ? work->size[1] : 1;
  guint64 *profile = g_new0(guint64, work->size[l->axis]);
  for (guint64 z = l->lo[2]; z < l->hi[2]; z++)
    for (guint64 y = l->lo[1]; y < l->hi[1]; y++)
      for (guint64 x = l->lo[0]; x < l->hi[0]; x++) {
        guint64 c[3] = {x, y, z};
        profile[c[l->axis]] += field[x + sx * (y + sy * z)];
      }
  return profile;
}

typedef struct {
  double ratio;
  guint64 lbd, best, total, heaviest; /* heaviest: the chain's heaviest cell */
  guint parts;
  const LoopLine *line;
} LoopAtBest;

static int
compare_worse_first(gconstpointer a, gconstpointer b)
{
  double x = ((const LoopAtBest *)a)->ratio, y = ((const LoopAtBest *)b)->ratio;
  return x > y ? -1 : x < y;
}

/* BALANCER: every run the claim reads, made again with narration. At
 * each Redistribute loop that stopped with its metric above the
 * tolerance, the chain the loop's cuts divide (its piece's load along the
 * axis, cell by cell, computed here from the workload at that step) is cut
 * exactly into the loop's slabs (lb_chains_best_bottleneck), and lbd's
 * heaviest slab where it stopped is held against that best. lbsim's
 * number: the loops that stopped more than 5 % above it. */
static gboolean
best_cuts(const LbCheckInput *in, LbCheckOutput *out, GError **error)
{
  const char *balancer = in->args[0];
  guint runs = 0, loops = 0, far = 0, reachable = 0, at_best = 0, one_cell = 0;
  double worst = 0, sum = 0;
  g_autoptr(GString) detail = g_string_new(NULL);
  for (guint i = 0; i < in->nruns; i++) {
    const LbCheckRun *run = &in->runs[i];
    if (strcmp(run->result->balancer, balancer) != 0)
      continue;
    runs++;
    g_autoptr(LbScenario) sc = lb_job_load(run->job, error);
    if (sc == NULL)
      return FALSE;
    const LbWork *work = ((const LbBalancerRun *)sc->runs->pdata[0])->work;
    LbScenarioOverrides ov = {0};
    g_autofree char *key = g_strdup_printf("run %s", run->id);
    g_autoptr(LbRunResult) res =
        lb_check_simulate(sc, &ov, LB_CHECK_KEEP_NARRATION, in->sims, key, error);
    if (res == NULL)
      return FALSE;
    if (fabs(res->imbalance_after - run->result->imbalance_after) >
        1e-9 * MAX(1.0, run->result->imbalance_after))
      return lb_check_fail(error, "%s: made again with narration it ends at %.6f, not %.6f",
                           run->point, res->imbalance_after, run->result->imbalance_after);
    /* the metric lines in story order: a step starts at rank 0's mesh line,
     * and each loop's lines are its teller's, one after the other */
    g_autoptr(GArray) lines = g_array_new(FALSE, FALSE, sizeof(LoopLine));
    g_array_set_clear_func(lines, loop_line_clear);
    int step = -1;
    for (guint k = 0; res->narration != NULL && k < res->narration->len; k++) {
      const char *text = res->narration->pdata[k];
      if (strstr(text, " rank 0: slabs along x ") != NULL)
        step++;
      LoopLine l = {0};
      if (strstr(text, "): metric ") == NULL)
        continue;
      if (step < 0 || !parse_loop_line(text, (guint)step, work, &l)) {
        loop_line_clear(&l);
        return lb_check_fail(error, "%s: a loop's narration is not as this check reads it: '%s'",
                             run->point, text);
      }
      g_array_append_val(lines, l);
    }
    if ((guint)(step + 1) != res->nadaptations)
      return lb_check_fail(error, "%s: the narration tells %d steps of %u", run->point, step + 1,
                           res->nadaptations);
    g_autoptr(GArray) found = g_array_new(FALSE, FALSE, sizeof(LoopAtBest));
    g_autofree guint64 *field = NULL;
    guint field_step = G_MAXUINT;
    for (guint k = 0; k < lines->len; k++) {
      const LoopLine *l = &g_array_index(lines, LoopLine, k), *next = NULL;
      if (k + 1 < lines->len)
        next = &g_array_index(lines, LoopLine, k + 1);
      /* the loop's last line: where it stopped */
      if (!l->above || (next != NULL && next->step == l->step && next->level == l->level &&
                        next->rank == l->rank))
        continue;
      if (field_step != l->step) {
        g_free(field);
        field = field_at(work, l->step);
        field_step = l->step;
      }
      g_autofree guint64 *profile = piece_profile(work, field, l);
      guint64 total = 0, told = 0, most = 0, heaviest = 0;
      for (guint64 c = 0; c < work->size[l->axis]; c++) {
        total += profile[c];
        heaviest = MAX(heaviest, profile[c]);
      }
      for (guint s = 0; s < l->loads->len; s++) {
        told += g_array_index(l->loads, guint64, s);
        most = MAX(most, g_array_index(l->loads, guint64, s));
      }
      if (told != total)
        return lb_check_fail(error,
                             "%s: step %u, level %u: lbd's slabs hold %" G_GUINT64_FORMAT
                             ", the piece's cells %" G_GUINT64_FORMAT " at that step",
                             run->point, l->step, l->level, told, total);
      LoopAtBest b = {
          .lbd = most,
          .best = lb_chains_best_bottleneck(profile, work->size[l->axis], l->loads->len, NULL),
          .total = total,
          .heaviest = heaviest,
          .parts = l->loads->len,
          .line = l,
      };
      b.ratio = b.best > 0 ? (double)b.lbd / (double)b.best : 1.0;
      g_array_append_val(found, b);
    }
    guint run_far = 0, run_reachable = 0;
    double run_worst = 0, run_cell = 0; /* the heaviest cell over the mean slab */
    for (guint k = 0; k < found->len; k++) {
      const LoopAtBest *b = &g_array_index(found, LoopAtBest, k);
      run_far += b->ratio > 1.05;
      at_best += b->lbd == b->best;
      one_cell += b->best == b->heaviest; /* no cuts lighter than one cell */
      /* the best cuts' metric within the tolerance: the loop could have
       * ended there */
      run_reachable += (double)b->best * b->parts / (double)b->total - 1.0 <=
                       lb_params_get_double(res->params, "tolerance");
      run_worst = MAX(run_worst, b->ratio);
      run_cell = MAX(run_cell, (double)b->heaviest * b->parts / (double)b->total);
      sum += b->ratio;
    }
    loops += found->len;
    far += run_far;
    reachable += run_reachable;
    worst = MAX(worst, run_worst);
    g_string_append_printf(detail,
                           "%s: %u loops stopped above the tolerance; lbd's heaviest slab over "
                           "the best %.3f at most, %u more than 5 %% above; the best within the "
                           "tolerance in %u; a cell up to %.2f of the mean slab\n",
                           run->point, found->len, found->len ? run_worst : 1.0, run_far,
                           run_reachable, run_cell);
    g_array_sort(found, compare_worse_first);
    for (guint k = 0; k < MIN(found->len, 3) && g_array_index(found, LoopAtBest, k).ratio > 1.05;
         k++) {
      const LoopAtBest *b = &g_array_index(found, LoopAtBest, k);
      g_string_append_printf(detail,
                             "  step %u, level %u (%c), rank %d's piece, %u slabs: lbd's heaviest "
                             "%" G_GUINT64_FORMAT ", the best %" G_GUINT64_FORMAT
                             " (x %.3f; metric %.4f against %.4f)\n",
                             b->line->step, b->line->level, "xyz"[b->line->axis], b -> line -> rank,
                             b -> parts, b -> lbd, b -> best, b -> ratio,
                             (double)b -> lbd * b -> parts / (double)b -> total - 1.0,
                             (double)b -> best * b -> parts / (double)b -> total - 1.0);
    }
  }
  if (runs == 0)
    return lb_check_fail(error, "no runs of %s", balancer);
  out->value = far;
  out->note = g_strdup_printf("%u loops in %u runs stopped above the tolerance: %u at the best "
                              "cuts, lbd's heaviest slab over the best's %.3f on average and "
                              "%.3f at most, %u more than 5 %% above; the best cuts were within "
                              "the tolerance in %u, their heaviest slab one cell in %u",
                              loops, runs, at_best, loops ? sum / loops : 1.0, loops ? worst : 1.0,
                              far, reachable, one_cell);
  out->detail = g_string_free(g_steal_pointer(&detail), FALSE);
  return TRUE;
}

const LbReproCheck lb_checks_lbd[] = {
    {"tdg-figure3", "SUBSET:N,N,... (the document's lists)", 1, 9, FALSE, figure3_validate,
     tdg_figure3, LB_CHECK_NO_LABELS},
    {"tdg-random", "no arguments", 0, 0, FALSE, NULL, tdg_random, LB_CHECK_NO_LABELS},
    {"first-axis", "BALANCER", 1, 1, TRUE, NULL, first_axis, 0, 0, NULL, -1, NULL},
    {"loops", "count|share tolerance|unchanged BALANCER", 3, 3, TRUE, loops_validate, loops, 2, 2,
     NULL, -1, NULL},
    {"best-cuts", "BALANCER", 1, 1, TRUE, NULL, best_cuts, 0, 0, NULL, -1, NULL},
    {NULL},
};
