/* Views of a field (src/workloads/adapt.c): a balancer of another model
 * runs on the same domain, pattern and seed, as its model's units. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "lbsim/scenario.h"
#include "sim-result.h"
#include "workloads/htree.h"

#define HEAD                                                                                       \
  "[scenario]\nplatform = hypercube-8.xml\nranks = 8\nseed = 5\nsteps = 3\n"                       \
  "[workload]\nmodel = field2d\nsize = 100x40\npattern = hotspots\nhotspots = 3\n"                 \
  "width = 0.08\namplitude = 200\nbase = 5\ndrift = 0.05\nflops-per-unit = 700\n"

static LbScenario *
load_text(const char *text, GError **error)
{
  g_autofree char *dir = g_dir_make_tmp("lbsim-views-XXXXXX", NULL);
  g_autofree char *path = g_build_filename(dir, "v.ini", NULL);
  g_assert_true(g_file_set_contents(path, text, -1, NULL));
  LbScenario *sc = lb_scenario_load(path, NULL, error);
  g_unlink(path);
  g_rmdir(dir);
  return sc;
}

static const LbBalancerRun *
run_of(const LbScenario *sc, const char *label)
{
  for (guint i = 0; i < sc->runs->len; i++) {
    const LbBalancerRun *r = sc->runs->pdata[i];
    if (strcmp(r->label, label) == 0)
      return r;
  }
  g_assert_not_reached();
}

/* Every unit of a workload at a step, as its ranks start with them. */
static GArray *
all_units(const LbWork *w, guint adaptation)
{
  GArray *all = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  g_autoptr(GArray) units = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  for (guint r = 0; r < w->ranks; r++) {
    g_array_set_size(units, 0);
    lb_work_initial_units(w, r, LB_START_NATIVE, units);
    lb_work_update(w, r, units, adaptation);
    g_array_append_vals(all, units->data, units->len);
  }
  return all;
}

static guint64
total_load(const GArray *units)
{
  guint64 t = 0;
  for (guint i = 0; i < units->len; i++)
    t += g_array_index(units, LbUnit, i).load;
  return t;
}

/* The field's load of every cell at a step, by id. */
static guint64 *
field_loads(const LbWork *field, guint adaptation)
{
  g_autoptr(GArray) units = all_units(field, adaptation);
  g_assert_cmpuint(units->len, ==, field->cells);
  guint64 *loads = g_new(guint64, field->cells);
  for (guint i = 0; i < units->len; i++)
    loads[g_array_index(units, LbUnit, i).id] = g_array_index(units, LbUnit, i).load;
  return loads;
}

/* dls runs on one iteration per cell, costing the cell's load at every
 * step (the hot spots drift, so the steps differ). */
static void
test_loop(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LbScenario) sc = load_text(HEAD "[balancers]\nrun = none, dls\n", &error);
  g_assert_no_error(error);
  g_assert_null(run_of(sc, "none")->adapter);
  g_assert_true(run_of(sc, "none")->work == sc->work);
  const LbBalancerRun *dls = run_of(sc, "dls");
  g_assert_nonnull(dls->adapter);
  g_assert_cmpstr(dls->work->model->name, ==, "loop");
  g_assert_cmpuint(lb_work_total_units(dls->work), ==, 4000);
  guint changed = 0;
  for (guint step = 0; step < 3; step += 2) {
    g_autofree guint64 *want = field_loads(sc->work, step);
    const guint64 *costs = lb_loop_costs(dls->work, step);
    for (guint64 id = 0; id < 4000; id++)
      g_assert_cmpuint(costs[id], ==, want[id]);
    g_autoptr(GArray) units = all_units(dls->work, step);
    for (guint i = 0; i < units->len; i++) {
      LbUnit u = g_array_index(units, LbUnit, i);
      g_assert_cmpuint(u.load, ==, want[u.id]);
    }
  }
  const guint64 *a = lb_loop_costs(dls->work, 0), *b = lb_loop_costs(dls->work, 2);
  for (guint64 id = 0; id < 4000; id++)
    changed += a[id] != b[id];
  g_assert_cmpuint(changed, >, 400);
}

/* sfc-shift runs on an H-tree whose elements follow the field's load: the
 * view's load per quadrant of the domain is the field's share of it, and
 * its total is the field's up to rounding of the element load. */
static void
test_htree(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LbScenario) sc =
      load_text(HEAD "[balancers]\nrun = sfc-shift\n[as-htree]\nelements = 40000\n", &error);
  g_assert_no_error(error);
  const LbWork *view = run_of(sc, "sfc-shift")->work;
  g_assert_cmpstr(view->model->name, ==, "htree");
  g_assert_cmpint(lb_params_get_int(view->params, "max-level"), ==, 7); /* 2^7 >= 100 */
  g_autofree guint64 *cells = field_loads(sc->work, 0);
  double field_q[4] = {0}, view_q[4] = {0}, field_total = 0, view_total = 0;
  for (guint64 id = 0; id < sc->work->cells; id++) {
    guint x = (guint)(id % 100), y = (guint)(id / 100);
    field_q[(x >= 50) + 2 * (y >= 20)] += (double)cells[id];
    field_total += (double)cells[id];
  }
  g_autoptr(GArray) units = all_units(view, 0);
  for (guint i = 0; i < units->len; i++) {
    LbUnit u = g_array_index(units, LbUnit, i);
    guint64 c[3];
    guint level = lb_htree_decode(u.id, 2, c);
    if (u.load == 0)
      continue;
    g_assert_cmpuint(level, >=, 1);
    view_q[(c[0] >> (level - 1)) + 2 * (c[1] >> (level - 1))] += (double)u.load;
    view_total += (double)u.load;
  }
  g_assert_cmpfloat(fabs(view_total - field_total), <=, 40000 / 2.0);
  for (guint q = 0; q < 4; q++)
    g_assert_cmpfloat(fabs(view_q[q] / view_total - field_q[q] / field_total), <, 0.03);
}

/* The ENZO balancers run on a hierarchy over the field's cells, refined
 * where the load is, whose step-0 work in flops is the field's. */
static void
test_samr(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LbScenario) sc = load_text(HEAD "[balancers]\nrun = enzo-original, move-split\n"
                                            "[as-samr]\nlevels = 1\nrefine = 60\n",
                                       &error);
  g_assert_no_error(error);
  const LbWork *view = run_of(sc, "move-split")->work;
  g_assert_true(run_of(sc, "enzo-original")->work == view); /* one view for both */
  g_assert_cmpstr(view->model->name, ==, "samr");
  g_assert_cmpuint(view->size[0], ==, 100);
  g_assert_cmpuint(view->size[1], ==, 40);
  g_autofree guint64 *cells = field_loads(sc->work, 0);
  double field_flops = 0;
  guint64 hot = 0;
  for (guint64 id = 0; id < sc->work->cells; id++) {
    field_flops += (double)cells[id] * 700;
    hot += cells[id] >= 60;
  }
  g_autoptr(GArray) units = all_units(view, 0);
  double view_flops = (double)total_load(units) * view->flops_per_unit;
  g_assert_cmpfloat(fabs(view_flops - field_flops), <, 1e-9 * field_flops);
  /* the root covers 4000 cells; the flagged ones (and their clusters)
   * refined by 2 add at least 2 x 2 x 2 (substeps) each */
  g_assert_cmpuint(hot, >, 0);
  g_assert_cmpuint(total_load(units), >=, 4000 + 8 * hot);
}

static void
expect_error(const char *text, const char *part1, const char *part2)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LbScenario) sc = load_text(text, &error);
  if (sc != NULL)
    g_error("no error for:\n%s", text);
  g_assert_nonnull(error);
  if (strstr(error->message, part1) == NULL || strstr(error->message, part2) == NULL)
    g_error("'%s' lacks '%s' or '%s'", error->message, part1, part2);
}

static void
test_errors(void)
{
  expect_error(HEAD "[balancers]\nrun = move-split\n[as-samr]\nsize = 8x8\n", "[as-samr] size",
               "taken from the workload ([workload] size)");
  expect_error(HEAD "[balancers]\nrun = sfc-shift\n[as-htree]\nload = constant\n",
               "[as-htree] load", "the view sets it");
  expect_error(HEAD "[balancers]\nrun = dls\n[as-loop]\nbogus = 1\n", "[as-loop] bogus",
               "unknown key");
  /* checked even when no balancer uses the view */
  expect_error(HEAD "[balancers]\nrun = none\n[as-samr]\nlevels = many\n", "[as-samr] levels",
               "many");
  expect_error("[scenario]\nplatform = hypercube-8.xml\nranks = 8\n[workload]\nmodel = field2d\n"
               "size = 64x64\npattern = ramp\n[balancers]\nrun = sfc-shift\n",
               "[as-htree]", "pattern");
  expect_error("[scenario]\nplatform = hypercube-8.xml\nranks = 8\n[workload]\nsize = 64\n"
               "[balancers]\nrun = sfc-shift\n",
               "sfc-shift", "array1d");
  expect_error(HEAD "[balancers]\nrun = none\n[as-tree]\n", "[as-tree]", "unknown group");
}

/* Every family on one field: each run says which view it balanced and
 * keeps every unit (the engine checks conservation at each step). */
static void
test_compare(void)
{
  g_auto(SimResult) r = {0};
  simulate(HEAD "[balancers]\nrun = none, mlb, lbd, sfc-shift, move-split, dls\n"
                "[as-htree]\nelements = 4000\n",
           &r);
  JsonArray *runs =
      json_object_get_array_member(json_node_get_object(json_parser_get_root(r.parser)), "runs");
  static const char *const want[][2] = {
      {"none", NULL},
      {"mlb", NULL},
      {"lbd", NULL},
      {"sfc-shift", "field2d seen as htree"},
      {"move-split", "field2d seen as samr"},
      {"dls", "field2d seen as loop"},
  };
  g_assert_cmpuint(json_array_get_length(runs), ==, G_N_ELEMENTS(want));
  for (guint i = 0; i < G_N_ELEMENTS(want); i++) {
    JsonObject *run = json_array_get_object_element(runs, i);
    g_assert_cmpstr(json_object_get_string_member(run, "balancer"), ==, want[i][0]);
    g_assert_cmpstr(json_object_get_string_member_with_default(run, "view", NULL), ==, want[i][1]);
    JsonObject *summary = json_object_get_object_member(run, "summary");
    double before = json_object_get_double_member(summary, "imbalance_before");
    double after = json_object_get_double_member(summary, "imbalance_after");
    if (strcmp(want[i][0], "none") != 0 && strcmp(want[i][0], "dls") != 0)
      g_assert_cmpfloat(after, <, before);
  }
}

static double
ghost_bytes(const char *order)
{
  g_autofree char *text = g_strdup_printf(
      "[scenario]\nplatform = hypercube-64.xml\nranks = 64\nseed = 2\nsteps = 2\n"
      "[workload]\nmodel = field2d\nsize = 128x128\npattern = hotspots\nhotspots = 2\n"
      "width = 0.1\namplitude = 50\nbase = 10\ndrift = 0.05\n"
      "[balancers]\nrun = mlb\n[mlb]\norder = %s\n",
      order);
  g_auto(SimResult) r = {0};
  simulate(text, &r);
  JsonObject *metrics = json_object_get_object_member(r.run, "metrics");
  JsonObject *summary = json_object_get_object_member(r.run, "summary");
  /* balanced all the same */
  g_assert_cmpfloat(json_object_get_double_member(summary, "imbalance_after"), <, 1.1);
  g_autofree char *start = g_strdup(json_object_get_string_member(r.run, "start"));
  g_assert_nonnull(strstr(start, strcmp(order, "row-major") == 0 ? "row-major" : order));
  return json_object_get_double_member(metrics, "ghost_bytes");
}

/* mlb on a field in a curve's order: every rank holds a run of the curve
 * (the engine checks it at every step through mlb's order key), which is
 * compact where a run of rows is a strip: 256 cells are two rows of 128
 * (about 256 shared faces each side) but near a 16 x 16 square along the
 * curve (about 64 per side). */
static void
test_mlb_curve(void)
{
  double rows = ghost_bytes("row-major");
  double hilbert = ghost_bytes("hilbert");
  double morton = ghost_bytes("morton");
  g_assert_cmpfloat(hilbert, <, rows / 2);
  g_assert_cmpfloat(morton, <, rows / 2);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/views/loop", test_loop);
  g_test_add_func("/views/htree", test_htree);
  g_test_add_func("/views/samr", test_samr);
  g_test_add_func("/views/errors", test_errors);
  g_test_add_func("/views/compare", test_compare);
  g_test_add_func("/views/mlb-curve", test_mlb_curve);
  return g_test_run();
}
