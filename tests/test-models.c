/* Work models inside real simulations: fields with none and mlb on a
 * hypercube, a fat tree and a torus (conservation is checked by the core
 * at every step), the ghost exchange against counts worked out here,
 * determinism, and the balancer lifecycle. */
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "balancers/cuts/tdg.h"
#include "runner/runner.h"
#include "lbsim/model.h"
#include "lbsim/scenario.h"
#include "report/report.h"
#include "report/results.h"
#include "runner/transport.h"

static char *
write_scenario(const char *text, char **dir)
{
  *dir = g_dir_make_tmp("lbsim-models-XXXXXX", NULL);
  char *path = g_build_filename(*dir, "s.ini", NULL);
  g_assert_true(g_file_set_contents(path, text, -1, NULL));
  return path;
}

static void
remove_scenario(char *path, char *dir)
{
  g_unlink(path);
  g_rmdir(dir);
  g_free(path);
  g_free(dir);
}

/* Runs every balancer of a scenario text; returns the typed results. */
static GPtrArray *run_text_detail(const char *text, LbScenario **scenario, gboolean detail);

static GPtrArray *
run_text(const char *text, LbScenario **scenario)
{
  return run_text_detail(text, scenario, FALSE);
}

static GPtrArray *
run_text_detail(const char *text, LbScenario **scenario, gboolean detail)
{
  char *dir = NULL;
  char *path = write_scenario(text, &dir);
  g_autoptr(GError) error = NULL;
  LbScenario *sc = lb_scenario_load(path, NULL, &error);
  g_assert_no_error(error);
  LbRunnerOptions options = {.jobs = 2, .quiet = TRUE, .run = {.detail = detail}};
  GPtrArray *results = NULL;
  int code = -1;
  gboolean ok = lb_runner_run(sc, NULL, &options, &results, &code, &error);
  remove_scenario(path, dir);
  g_assert_no_error(error);
  g_assert_true(ok);
  *scenario = sc;
  return results;
}

static int
compare_ranks(const guint *a, const guint *b)
{
  return *a < *b ? -1 : *a > *b;
}

static double
metric(const LbRunResult *r, const char *name)
{
  double v = -1;
  g_assert_true(lb_run_result_metric(r, name, &v));
  return v;
}

/* Neighbour pairs and shared faces of the processor grid's blocks, worked
 * out from the block bounds alone. */
static void
grid_ghosts(const LbWork *w, double *messages, double *faces)
{
  *messages = 0;
  *faces = 0;
  for (guint a = 0; a < w->dim; a++) {
    /* pairs across a cut of axis a: (P_a - 1) cuts, each with the product
     * of the other axes' blocks; the face is the product of their widths */
    for (guint64 cut = 1; cut < w->procs[a]; cut++) {
      guint64 pairs = 1;
      double area = 1;
      for (guint b = 0; b < w->dim; b++)
        if (b != a) {
          pairs *= w->procs[b];
          area *= (double)w->size[b]; /* summed over that axis' blocks */
        }
      *messages += 2.0 * (double)pairs;
      *faces += 2.0 * area;
    }
  }
}

typedef struct {
  const char *model, *size, *platform;
  guint ranks;
} FieldCase;

static void
field_case(gconstpointer data)
{
  const FieldCase *c = data;
  g_autofree char *text = g_strdup_printf(
      "[scenario]\nplatform = %s\nranks = %u\nsteps = 3\nseed = 4\n"
      "[workload]\nmodel = %s\nsize = %s\npattern = hotspots\nhotspots = 3\nwidth = 0.1\n"
      "amplitude = 300\nbase = 5\ndrift = 0.05\nghost-depth = 2\nbytes-per-unit = 16\n"
      "[balancers]\nrun = none, mlb\n",
      c->platform, c->ranks, c->model, c->size);
  LbScenario *sc = NULL;
  g_autoptr(GPtrArray) results = run_text(text, &sc);
  const LbWork *w = sc->work;
  const LbRunResult *none = results->pdata[0], *mlb = results->pdata[1];
  g_autofree char *blocks = lb_work_describe_start(w, LB_START_NATIVE);
  g_assert_cmpstr(none->start, ==, blocks);
  g_assert_cmpstr(mlb->start, ==, "linear blocks (row-major)");
  g_assert_cmpstr(mlb->model, ==, c->model);

  /* none keeps the blocks: its ghost exchange is the processor grid's */
  double messages = 0, faces = 0;
  grid_ghosts(w, &messages, &faces);
  g_assert_cmpfloat(metric(none, "ghost-messages"), ==, 3 * messages);
  g_assert_cmpfloat(metric(none, "ghost-bytes"), ==, 3 * faces * 2 * 16);
  g_assert_cmpfloat(metric(none, "ghost-time"), >, 0);
  g_assert_cmpfloat(none->app_time, >=, metric(none, "compute-time"));

  /* mlb: every step ends with at most ceil(T/p) plus one cell's load */
  g_autoptr(GArray) cells = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  for (guint64 id = 0; id < w->cells; id++) {
    LbUnit u = {id, 0};
    g_array_append_val(cells, u);
  }
  for (guint s = 0; s < 3; s++) {
    lb_work_update(w, 0, cells, s);
    guint64 total = 0, heaviest = 0;
    for (guint i = 0; i < cells->len; i++) {
      total += g_array_index(cells, LbUnit, i).load;
      heaviest = MAX(heaviest, g_array_index(cells, LbUnit, i).load);
    }
    const LbAdaptationResult *a = &mlb->adaptations[s];
    g_assert_cmpuint(a->total_load, ==, total);
    g_assert_cmpuint(none->adaptations[s].total_load, ==, total);
    g_assert_cmpuint(a->max_load_after, <=, (total + c->ranks - 1) / c->ranks + heaviest);
    g_assert_cmpuint(none->adaptations[s].max_load_after, ==, none->adaptations[s].max_load_before);
  }
  g_assert_cmpfloat(mlb->imbalance_after, <, none->imbalance_after);
  g_assert_cmpfloat(metric(mlb, "ghost-messages"), >, 0);
  g_assert_cmpfloat(mlb->bytes_moved, >, 0);
  lb_scenario_free(sc);
}

static char *
document_of(const char *text)
{
  LbScenario *sc = NULL;
  g_autoptr(GPtrArray) results = run_text(text, &sc);
  for (guint i = 0; i < results->len; i++) { /* wall-clock figures differ by run */
    LbRunResult *r = results->pdata[i];
    r->wall_seconds = r->sim_wall_seconds = 0;
    r->peak_rss_kib = 0;
  }
  char *doc = lb_report_document(sc, results);
  /* the scenario's temporary file name is in the document */
  char *file = strstr(doc, "\"file\": \"");
  char *end = strchr(file + 9, '"');
  memset(file + 9, 'x', (gsize)(end - file - 9));
  lb_scenario_free(sc);
  return doc;
}

static void
test_determinism(void)
{
  static const char text[] =
      "[scenario]\nplatform = t3e-512.xml\nranks = 32\nsteps = 4\nseed = %d\n"
      "[workload]\nmodel = field3d\nsize = 20x16x12\npattern = clusters\n"
      "clusters = 3\ninterval = 1\ngrowth = 0.05\n"
      "[balancers]\nrun = none, mlb, mlb-nd, lbd\n";
  g_autofree char *t1 = g_strdup_printf(text, 9);
  g_autofree char *t2 = g_strdup_printf(text, 10);
  g_autofree char *a = document_of(t1);
  g_autofree char *b = document_of(t1);
  g_autofree char *c = document_of(t2);
  g_assert_cmpstr(a, ==, b);
  g_assert_cmpstr(a, !=, c);
}

/* array1d keeps no ghost exchange unless asked; with ghost-depth each block
 * talks to the blocks next to it. */
static void
test_array1d_ghosts(void)
{
  static const char text[] = "[scenario]\nplatform = hypercube-16.xml\nranks = 16\nsteps = 2\n"
                             "[workload]\nsize = 1000\npattern = uniform\nghost-depth = %d\n"
                             "bytes-per-unit = 8\n[balancers]\nrun = none\n";
  g_autofree char *off = g_strdup_printf(text, 0);
  g_autofree char *on = g_strdup_printf(text, 3);
  LbScenario *sc = NULL;
  g_autoptr(GPtrArray) r0 = run_text(off, &sc);
  lb_scenario_free(sc);
  g_assert_cmpfloat(metric(r0->pdata[0], "ghost-messages"), ==, 0);
  g_autoptr(GPtrArray) r1 = run_text(on, &sc);
  lb_scenario_free(sc);
  g_assert_cmpfloat(metric(r1->pdata[0], "ghost-messages"), ==, 2 * 2 * 15);
  g_assert_cmpfloat(metric(r1->pdata[0], "ghost-bytes"), ==, 2 * 2 * 15 * 3 * 8);
}

/* With detail, each rank's box, load and neighbours: for none, the blocks
 * of the 4x4 processor grid and their four-neighbourhoods. */
static void
test_partition(void)
{
  static const char text[] = "[scenario]\nplatform = hypercube-16.xml\nranks = 16\n"
                             "[workload]\nmodel = field2d\nsize = 16x12\npattern = ramp\n"
                             "[balancers]\nrun = none, mlb\n";
  LbScenario *sc = NULL;
  g_autoptr(GPtrArray) results = run_text_detail(text, &sc, TRUE);
  const LbRunResult *none = results->pdata[0], *mlb = results->pdata[1];
  g_assert_nonnull(none->partition);
  g_assert_cmpuint(none->dim, ==, 2);
  for (guint r = 0; r < 16; r++) {
    const LbRankPart *part = &none->partition[r];
    guint x = r % 4, y = r / 4;
    g_assert_cmpuint(part->lo[0], ==, 4 * x);
    g_assert_cmpuint(part->hi[0], ==, 4 * x + 4);
    g_assert_cmpuint(part->lo[1], ==, 3 * y);
    g_assert_cmpuint(part->hi[1], ==, 3 * y + 3);
    g_assert_cmpuint(part->load, ==, none->final_loads[r]);
    guint want[4], n = 0; /* ascending: below, left, right, above */
    if (y > 0)
      want[n++] = r - 4;
    if (x > 0)
      want[n++] = r - 1;
    if (x < 3)
      want[n++] = r + 1;
    if (y < 3)
      want[n++] = r + 4;
    g_assert_cmpuint(part->nneighbours, ==, n);
    for (guint i = 0; i < n; i++)
      g_assert_cmpuint(part->neighbours[i], ==, want[i]);
  }
  /* mlb's pieces of the row-major order: the graph is symmetric and loads
   * add up */
  guint64 total = 0;
  for (guint r = 0; r < 16; r++) {
    const LbRankPart *part = &mlb->partition[r];
    total += part->load;
    for (guint i = 0; i < part->nneighbours; i++) {
      const LbRankPart *other = &mlb->partition[part->neighbours[i]];
      gboolean back = FALSE;
      for (guint k = 0; k < other->nneighbours; k++)
        back |= other->neighbours[k] == r;
      g_assert_true(back);
    }
  }
  g_assert_cmpuint(total, ==, mlb->adaptations[0].total_load);
  lb_scenario_free(sc);
}

/* lbd on fields: better than none, a partition of boxes (their volumes add
 * up to the cells), and in 2D the application's neighbours (face adjacency
 * from the owner map) equal BUILD_UNDIRECTED_TDG on the final cuts. */
static void
lbd_case(gconstpointer data)
{
  const FieldCase *c = data;
  g_autofree char *text = g_strdup_printf(
      "[scenario]\nplatform = %s\nranks = %u\nsteps = 3\nseed = 5\n"
      "[workload]\nmodel = %s\nsize = %s\npattern = hotspots\nhotspots = 3\nwidth = 0.1\n"
      "amplitude = 300\nbase = 5\ndrift = 0.05\n"
      "[balancers]\nrun = none, lbd\n",
      c->platform, c->ranks, c->model, c->size);
  LbScenario *sc = NULL;
  g_autoptr(GPtrArray) results = run_text_detail(text, &sc, TRUE);
  const LbRunResult *none = results->pdata[0], *lbd = results->pdata[1];
  g_assert_cmpfloat(lbd->imbalance_after, <, none->imbalance_after);
  g_assert_cmpstr(lbd->start, ==, none->start);
  double iterations = 0;
  g_assert_true(lb_run_result_metric(lbd, "iterations-x", &iterations));
  const LbWork *w = sc->work;
  guint64 volume = 0;
  for (guint r = 0; r < c->ranks; r++) {
    const LbRankPart *part = &lbd->partition[r];
    guint64 v = 1;
    for (guint a = 0; a < w->dim; a++)
      v *= part->hi[a] - part->lo[a];
    volume += part->load > 0 ? v : 0;
  }
  g_assert_cmpuint(volume, <=, w->cells); /* bounding boxes that do not overlap */
  if (w->dim == 2) {
    /* columns: the distinct x ranges of the first level (x or y first) */
    guint px = (guint)w->procs[0], py = (guint)w->procs[1];
    gboolean x_first = TRUE;
    for (guint r = 0; r < c->ranks && x_first; r++) /* a column shares its x range */
      x_first = lbd->partition[r].lo[0] == lbd->partition[r % px].lo[0];
    guint ncols = x_first ? px : py, nrows = x_first ? py : px;
    guint xa = x_first ? 0 : 1, ya = 1 - xa;
    g_autofree guint64 *xcuts = g_new(guint64, ncols + 1);
    g_autofree guint64 *ycuts = g_new(guint64, (gsize)ncols * (nrows + 1));
    g_autofree guint *rank_of = g_new(guint, (gsize)ncols * nrows);
    for (guint r = 0; r < c->ranks; r++) {
      guint col = x_first ? r % px : r / px, row = x_first ? r / px : r % px;
      const LbRankPart *part = &lbd->partition[r];
      xcuts[col] = part->lo[xa];
      xcuts[col + 1] = part->hi[xa];
      ycuts[(gsize)col * (nrows + 1) + row] = part->lo[ya];
      ycuts[(gsize)col * (nrows + 1) + row + 1] = part->hi[ya];
      rank_of[col * nrows + row] = r;
    }
    LbColumns p = {ncols, nrows, xcuts, ycuts};
    for (guint s = 0; s < ncols * nrows; s++) {
      g_autoptr(GArray) tdg = g_array_new(FALSE, FALSE, sizeof(guint));
      lb_tdg_neighbours(&p, s, tdg);
      const LbRankPart *part = &lbd->partition[rank_of[s]];
      g_autoptr(GArray) ranks = g_array_new(FALSE, FALSE, sizeof(guint));
      for (guint i = 0; i < tdg->len; i++)
        g_array_append_val(ranks, rank_of[g_array_index(tdg, guint, i)]);
      g_array_sort(ranks, (GCompareFunc)compare_ranks);
      g_assert_cmpuint(ranks->len, ==, part->nneighbours);
      for (guint i = 0; i < ranks->len; i++)
        g_assert_cmpuint(g_array_index(ranks, guint, i), ==, part->neighbours[i]);
    }
  }
  lb_scenario_free(sc);
}

/* ---- the lifecycle, through a balancer registered here ---- */

typedef struct {
  guint steps_seen;
  guint64 units_at_start;
} LifeState;

static guint states_made, states_freed;

static gpointer
life_new(LbRank *self)
{
  states_made++;
  LifeState *s = g_new0(LifeState, 1);
  s->units_at_start = lb_rank_units(self)->len;
  return s;
}

static void
life_free(gpointer state)
{
  states_freed++;
  g_free(state);
}

enum { METRIC_VISITS, METRIC_STEP, METRIC_UNITS, METRIC_UNITS_PER_RANK };

static double
units_per_rank(const double *step, guint ranks)
{
  return step[METRIC_UNITS] / ranks;
}

static const LbMetricSpec life_metrics[] = {
    {"visits", "calls", LB_AGGREGATE_SUM, LB_COMBINE_SUM, NULL, "balance calls, all ranks"},
    {"step", "", LB_AGGREGATE_LAST, LB_COMBINE_MAX, NULL, "the adaptation step index"},
    {"units", "", LB_AGGREGATE_MEAN, LB_COMBINE_SUM, NULL, "units at start, all ranks"},
    {"units-per-rank", "", LB_AGGREGATE_MEAN, LB_COMBINE_MAX, NULL, "derived", units_per_rank},
    {NULL},
};

/* The state survives from one step to the next: the step index seen in it
 * must follow the core's. */
static void
life_balance(LbRank *self, gpointer state)
{
  LifeState *s = state;
  g_assert_cmpuint(lb_rank_adaptation(self), ==, s->steps_seen);
  s->steps_seen++;
  lb_metric_record(self, METRIC_VISITS, 1);
  lb_metric_record(self, METRIC_STEP, lb_rank_adaptation(self));
  lb_metric_record(self, METRIC_UNITS, (double)s->units_at_start);
  /* owning the compute: the engine runs none after balancing */
  lb_execute(self, 1e6);
  GArray *units = lb_rank_units(self);
  lb_executed(self, (const LbUnit *)units->data, units->len);
}

static const LbParamSpec no_params[] = {{NULL}};
static const char *const no_phases[] = {NULL};

static const LbBalancer life_balancer = {
    .name = "life",
    .summary = "test of the lifecycle",
    .params = no_params,
    .phases = no_phases,
    .metrics = life_metrics,
    .needs = LB_CAP_CELLS,
    .owns_compute = TRUE,
    .state_new = life_new,
    .state_free = life_free,
    .balance = life_balance,
};

/* The transport's text is what json-glib's generator makes of the same
 * document, byte for byte: the results kept in sweeps' state folders
 * before lbsim wrote it itself read as they did. */
static void
assert_generator_text(const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new();
  g_autoptr(GError) error = NULL;
  g_assert_true(json_parser_load_from_data(parser, text, -1, &error));
  g_assert_no_error(error);
  g_autoptr(JsonGenerator) gen = json_generator_new();
  json_generator_set_root(gen, json_parser_get_root(parser));
  g_autofree char *generated = json_generator_to_data(gen, NULL);
  g_assert_cmpstr(text, ==, generated);
}

static void
test_lifecycle(void)
{
  static const char text[] = "[scenario]\nplatform = hypercube-16.xml\nranks = 8\nsteps = 5\n"
                             "[workload]\nsize = 800\n[balancers]\nrun = life\n";
  char *dir = NULL;
  char *path = write_scenario(text, &dir);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbScenario) sc = lb_scenario_load(path, NULL, &error);
  g_assert_no_error(error);
  remove_scenario(path, dir);
  LbRunOptions options = {0};
  g_autoptr(LbRunResult) r = lb_run_simulate(sc, 0, &options, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(states_made, ==, 8);
  g_assert_cmpuint(states_freed, ==, 8);
  g_assert_cmpfloat(metric(r, "visits"), ==, 5 * 8);
  g_assert_cmpfloat(metric(r, "step"), ==, 4);
  g_assert_cmpfloat(metric(r, "units"), ==, 800);
  g_assert_cmpfloat(metric(r, "units-per-rank"), ==, 100);
  g_assert_cmpfloat(metric(r, "compute-time"), ==, 0);
  g_assert_cmpfloat(r->app_time, ==, 0);
  /* the balancer's own compute is balancing time: 1e6 flops per step */
  g_assert_cmpfloat(r->balance_time, >, 0);
  /* typed results survive the trip from child to parent unchanged */
  g_autofree char *text_form = lb_result_to_transport(r);
  g_autoptr(LbRunResult) back = lb_result_from_transport(text_form, &error);
  g_assert_no_error(error);
  g_autofree char *again = lb_result_to_transport(back);
  g_assert_cmpstr(text_form, ==, again);
  assert_generator_text(text_form);
  g_assert_cmpfloat(metric(back, "visits"), ==, 40);
}

/* A transfer keeps the phase and the stage it was sent in through the trip
 * from child to parent (mlb-nd names its axes), and a result written before
 * they were kept (rows of 7 numbers) still reads, without them. */
static void
test_transfer_stages(void)
{
  static const char text[] = "[scenario]\nplatform = hypercube-8.xml\nranks = 8\n"
                             "[workload]\nmodel = field2d\nsize = 16x8\npattern = hotspots\n"
                             "hotspots = 2\nwidth = 0.12\namplitude = 60\nbase = 1\ndrift = 0\n"
                             "[balancers]\nrun = mlb-nd\n";
  char *dir = NULL;
  char *path = write_scenario(text, &dir);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbScenario) sc = lb_scenario_load(path, NULL, &error);
  g_assert_no_error(error);
  remove_scenario(path, dir);
  LbRunOptions options = {.detail = TRUE, .narrate = TRUE};
  g_autoptr(LbRunResult) r = lb_run_simulate(sc, 0, &options, &error);
  g_assert_no_error(error);
  g_assert_nonnull(r->stages);
  g_assert_cmpstr(r->stages->pdata[1], ==, "x axis");
  g_assert_cmpstr(r->stages->pdata[2], ==, "y axis");
  guint by_stage[3] = {0, 0, 0};
  for (guint i = 0; i < r->transfers->len; i++) {
    const LbTransfer *t = &g_array_index(r->transfers, LbTransfer, i);
    g_assert_cmpint(t->phase, >=, 0);
    g_assert_cmpstr(r->phases[t->phase].name, ==, "cells");
    g_assert_cmpuint(t->stage, <, 3);
    by_stage[t->stage]++;
  }
  g_assert_cmpuint(by_stage[1], >, 0); /* cells moved along x and along y */
  g_assert_cmpuint(by_stage[2], >, 0);
  /* a narration line with what JSON escapes */
  g_ptr_array_add(r->narration, g_strdup("\"quoted\" \\ tab\t bell\a del\x7f \xc3\xa9"));
  g_autofree char *form = lb_result_to_transport(r);
  assert_generator_text(form);
  g_autoptr(LbRunResult) back = lb_result_from_transport(form, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(back->transfers->len, ==, r->transfers->len);
  for (guint i = 0; i < r->transfers->len; i++) {
    /* field by field: the struct has padding, which memcmp would read */
    const LbTransfer *a = &g_array_index(r->transfers, LbTransfer, i);
    const LbTransfer *z = &g_array_index(back->transfers, LbTransfer, i);
    g_assert_true(a->adaptation == z->adaptation && a->round == z->round && a->src == z->src &&
                  a->dst == z->dst && a->first == z->first && a->count == z->count &&
                  a->load == z->load && a->phase == z->phase && a->stage == z->stage &&
                  a->step == z->step && a->time == z->time);
  }
  g_assert_cmpstr(back->stages->pdata[2], ==, "y axis");
  /* the same result with its transfer rows (11 numbers: the phase, stage,
   * step and time came later) cut to 7 numbers */
  g_autoptr(GRegex) cut = g_regex_new(
      "\\[(\\d+),(\\d+),(\\d+),(\\d+),(\\d+),(\\d+),(\\d+),\\d+,\\d+,\\d+,[^],]+\\]", 0, 0, NULL);
  g_autofree char *old =
      g_regex_replace(cut, form, -1, 0, "[\\1,\\2,\\3,\\4,\\5,\\6,\\7]", 0, NULL);
  g_assert_cmpstr(old, !=, form);
  g_autoptr(LbRunResult) older = lb_result_from_transport(old, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(older->transfers->len, ==, r->transfers->len);
  const LbTransfer *t0 = &g_array_index(older->transfers, LbTransfer, 0);
  g_assert_cmpint(t0->phase, ==, -1);
  g_assert_cmpuint(t0->stage, ==, 0);
  g_assert_cmpuint(t0->count, ==, g_array_index(r->transfers, LbTransfer, 0).count);
}

/* Owns the compute but rank 1 computes its first unit twice, rank 2 its
 * last never: the core's check of every unit computed once catches it. */
static void
twice_balance(LbRank *self, gpointer state)
{
  GArray *units = lb_rank_units(self);
  const LbUnit *u = (const LbUnit *)units->data;
  guint n = units->len;
  if (lb_rank_id(self) == 2)
    n--;
  lb_executed(self, u, n);
  if (lb_rank_id(self) == 1)
    lb_executed(self, u, 1);
}

static const LbBalancer twice_balancer = {
    .name = "twice",
    .summary = "computes a unit twice and another never",
    .params = no_params,
    .phases = no_phases,
    .needs = LB_CAP_CELLS,
    .owns_compute = TRUE,
    .balance = twice_balance,
};

static void
test_computed_once(void)
{
  static const char text[] =
      "[scenario]\nplatform = hypercube-16.xml\nranks = 4\n"
      "[workload]\nsize = 400\npattern = uniform\n[balancers]\nrun = twice\n";
  char *dir = NULL;
  char *path = write_scenario(text, &dir);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbScenario) sc = lb_scenario_load(path, NULL, &error);
  g_assert_no_error(error);
  remove_scenario(path, dir);
  LbRunOptions options = {0};
  g_autoptr(LbRunResult) r = lb_run_simulate(sc, 0, &options, &error);
  g_assert_null(r);
  /* as many units, the same load (uniform), but not the same ids */
  g_assert_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INVARIANT);
  g_assert_nonnull(strstr(error->message, "'twice' at adaptation step 0 computed 400 units"));
  g_assert_nonnull(strstr(error->message, "id checksum"));
}

static void
test_computed_once_subprocess(void)
{
  g_test_trap_subprocess("/models/computed-once/subprocess", 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
}

static void
test_transfer_stages_subprocess(void)
{
  g_test_trap_subprocess("/models/transfer-stages/subprocess", 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
}

static void
test_lifecycle_subprocess(void)
{
  /* one SimGrid engine per process */
  g_test_trap_subprocess("/models/lifecycle/subprocess", 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
}

/* A model registered here, the 1D array under another name: every
 * balancer runs on it by what it offers, none of them changed for it. */
static LbModel ring_model;

static char *
run_json(const char *model)
{
  g_autofree char *text =
      g_strdup_printf("[scenario]\nname = reg\nplatform = hypercube-16.xml\nranks = 16\nseed = 3\n"
                      "steps = 2\n\n[workload]\nmodel = %s\nsize = 96\npattern = random\n\n"
                      "[balancers]\nrun = none, mlb, scratch-remap, diffusion\n",
                      model);
  g_autofree char *dir = NULL;
  g_autofree char *path = write_scenario(text, &dir);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbScenario) sc = lb_scenario_load(path, NULL, &error);
  g_assert_no_error(error);
  LbRunnerOptions options = {.jobs = 2, .quiet = TRUE, .run = {.detail = TRUE}};
  g_autoptr(GPtrArray) results = NULL;
  int code = -1;
  g_assert_true(lb_runner_run(sc, NULL, &options, &results, &code, &error));
  g_assert_no_error(error);
  g_unlink(path);
  g_rmdir(dir);
  /* the reports name the model; the wall clocks differ */
  g_autofree char *doc = lb_report_document(sc, results);
  g_autoptr(JsonNode) root = json_from_string(doc, &error);
  g_assert_no_error(error);
  /* the scenario's own facts name its file and model */
  json_object_remove_member(json_node_get_object(root), "scenario");
  JsonArray *runs = json_object_get_array_member(json_node_get_object(root), "runs");
  g_assert_cmpuint(json_array_get_length(runs), ==, 4);
  for (guint i = 0; i < json_array_get_length(runs); i++) {
    JsonObject *run = json_array_get_object_element(runs, i);
    g_assert_cmpstr(json_object_get_string_member(run, "model"), ==, model);
    json_object_remove_member(run, "model");
    json_object_remove_member(run, "measured");
  }
  return json_to_string(root, TRUE);
}

static void
test_registered_model(void)
{
  g_autofree char *ring = run_json("ring");
  g_autofree char *array = run_json("array1d");
  /* the same results, byte for byte (not printed when they differ: long) */
  g_assert_cmpuint(strlen(ring), >, 1000);
  g_assert_true(strcmp(ring, array) == 0);
  /* and refused by what it lacks */
  g_autofree char *why = lb_balancer_refuses_model(lb_balancer_lookup("lbd"), &ring_model);
  g_assert_cmpstr(why, ==,
                  "lbd does not run on model ring, which does not offer a 2D or 3D grid of cells "
                  "to cut into boxes (it runs on: field2d, field3d)");
  g_autofree char *mlb = lb_balancer_models_text(lb_balancer_lookup("mlb"));
  g_assert_cmpstr(mlb, ==, "array1d, field2d, field3d, ring");
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  ring_model = *lb_model_lookup("array1d");
  ring_model.name = "ring";
  lb_model_register(&ring_model);
  lb_balancer_register(&life_balancer);
  lb_balancer_register(&twice_balancer);
  static const FieldCase cases[] = {
      {"field2d", "64x48", "hypercube-64.xml", 64},
      {"field2d", "40x30", "fat-tree-1024.xml", 64},
      {"field2d", "64x64", "t3e-512.xml", 128},
      {"field3d", "16x12x10", "hypercube-64.xml", 64},
      {"field3d", "12x12x12", "fat-tree-1024.xml", 32},
      {"field3d", "24x16x16", "t3e-512.xml", 256},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *name =
        g_strdup_printf("/models/%s/%s/%u", cases[i].model, cases[i].platform, cases[i].ranks);
    g_test_add_data_func(name, &cases[i], field_case);
  }
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *name =
        g_strdup_printf("/models/lbd/%s/%s/%u", cases[i].model, cases[i].platform, cases[i].ranks);
    g_test_add_data_func(name, &cases[i], lbd_case);
  }
  g_test_add_func("/models/determinism", test_determinism);
  g_test_add_func("/models/registered", test_registered_model);
  g_test_add_func("/models/partition", test_partition);
  g_test_add_func("/models/array1d-ghosts", test_array1d_ghosts);
  g_test_add_func("/models/lifecycle", test_lifecycle_subprocess);
  g_test_add_func("/models/transfer-stages", test_transfer_stages_subprocess);
  g_test_add_func("/models/transfer-stages/subprocess", test_transfer_stages);
  g_test_add_func("/models/lifecycle/subprocess", test_lifecycle);
  g_test_add_func("/models/computed-once", test_computed_once_subprocess);
  g_test_add_func("/models/computed-once/subprocess", test_computed_once);
  return g_test_run();
}
