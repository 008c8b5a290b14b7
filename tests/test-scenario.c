/* Scenario files: what a valid file loads to, comments and [expect] forms,
 * command-line overrides, and every input error (named by file, group and
 * key). Scenarios are written into a fresh folder per test. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "lbsim/scenario.h"
#include "lbsim-spawn.h"

typedef struct {
  char *dir;
  char *cwd;
} Fixture;

static void
fixture_setup(Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp("lbsim-scenario-XXXXXX", &error);
  g_assert_no_error(error);
  f->dir = g_canonicalize_filename(dir, NULL);
  f->cwd = g_get_current_dir();
}

static void
fixture_teardown(Fixture *f, gconstpointer data)
{
  g_assert_cmpint(g_chdir(f->cwd), ==, 0);
  remove_tree(f->dir);
  g_free(f->dir);
  g_free(f->cwd);
}

/* Writes name (which may hold folders) under the fixture's folder. */
static char *
write_file(Fixture *f, const char *name, const char *text)
{
  char *path = g_build_filename(f->dir, name, NULL);
  g_autofree char *parent = g_path_get_dirname(path);
  g_assert_cmpint(g_mkdir_with_parents(parent, 0755), ==, 0);
  g_autoptr(GError) error = NULL;
  g_file_set_contents(path, text, -1, &error);
  g_assert_no_error(error);
  return path;
}

/* A real platform file, for the cases that place one next to a scenario. */
static char *
platform_text(const char *name)
{
  g_autofree char *path = g_build_filename(lb_platform_dir(), name, NULL);
  char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_file_get_contents(path, &text, NULL, &error);
  g_assert_no_error(error);
  return text;
}

static char *
shipped_platform(const char *name)
{
  g_autofree char *path = g_build_filename(lb_platform_dir(), name, NULL);
  return g_canonicalize_filename(path, NULL);
}

static LbScenario *
load_ok(const char *path, const LbScenarioOverrides *ov)
{
  g_autoptr(GError) error = NULL;
  LbScenario *sc = lb_scenario_load(path, ov, &error);
  g_assert_no_error(error);
  g_assert_nonnull(sc);
  return sc;
}

static const LbBalancerRun *
run_at(const LbScenario *sc, guint i)
{
  g_assert_cmpuint(i, <, sc->runs->len);
  return sc->runs->pdata[i];
}

static const LbExpect *
expect_at(const LbScenario *sc, guint i)
{
  g_assert_cmpuint(i, <, sc->expects->len);
  return sc->expects->pdata[i];
}

static void
assert_expect(const LbExpect *e, const char *balancer, const char *metric, LbExpectOp op,
              double value, const char *text)
{
  g_assert_cmpstr(e->balancer, ==, balancer);
  g_assert_cmpstr(e->metric, ==, metric);
  g_assert_cmpint(e->op, ==, op);
  g_assert_cmpfloat(e->value, ==, value);
  if (text != NULL)
    g_assert_cmpstr(e->text, ==, text);
}

#define HEAD "[scenario]\nplatform = hypercube-16.xml\nranks = 16\n"
#define RUN_NONE "[balancers]\nrun = none\n"
/* sfc-shift on a small H-tree */
#define SFC_HTREE                                                                                  \
  "[balancers]\nrun = sfc-shift\n[workload]\nmodel = htree\nelements = 100\nmax-level = 4\n"

static void
test_full(Fixture *f, gconstpointer data)
{
  g_autofree char *path = write_file(f, "full.ini",
                                     "# every key that matters\n"
                                     "[scenario]\n"
                                     "name = full-test\n"
                                     "description = all of it\n"
                                     "platform = hypercube-16.xml\n"
                                     "ranks = 16\n"
                                     "seed = 42\n"
                                     "steps = 5\n"
                                     "placement = linear\n"
                                     "\n"
                                     "[workload]\n"
                                     "model = array1d\n"
                                     "size = 4096\n"
                                     "pattern = hotspots\n"
                                     "hotspots = 4\n"
                                     "width = 0.05\n"
                                     "amplitude = 500\n"
                                     "base = 7\n"
                                     "drift = -0.02\n"
                                     "distribution = random\n"
                                     "bytes-per-unit = 128\n"
                                     "flops-per-unit = 2e4\n"
                                     "\n"
                                     "[balancers]\n"
                                     "run = none, mlb\n"
                                     "\n"
                                     "[mlb]\n"
                                     "desired = even\n"
                                     "phase3 = finest\n"
                                     "sum-flops = 3\n"
                                     "\n"
                                     "[expect]\n"
                                     "mlb.schedule-steps <= 10\n"
                                     "mlb.imbalance-after < 1.02\n"
                                     "none.imbalance-after >= 1\n"
                                     "mlb.messages > 0\n"
                                     "none.bytes-moved == 0\n"
                                     "mlb.accumulate-steps = <= 4\n");
  g_autoptr(LbScenario) sc = load_ok(path, NULL);
  g_assert_cmpstr(sc->file, ==, path);
  g_assert_cmpstr(sc->name, ==, "full-test");
  g_assert_cmpstr(sc->description, ==, "all of it");
  g_autofree char *platform = shipped_platform("hypercube-16.xml");
  g_assert_cmpstr(sc->platform, ==, platform);
  g_assert_true(g_path_is_absolute(sc->platform));
  g_assert_cmpuint(sc->ranks, ==, 16);
  g_assert_cmpuint(sc->seed, ==, 42);
  g_assert_cmpuint(sc->nadaptations, ==, 5);
  g_assert_cmpint(sc->placement, ==, LB_PLACEMENT_LINEAR);

  const LbPattern *a = &sc->work->pattern;
  g_assert_cmpuint(a->seed, ==, 42); /* the scenario's seed drives the loads */
  g_assert_cmpuint(sc->work->cells, ==, 4096);
  g_assert_cmpint(a->kind, ==, LB_PATTERN_HOTSPOTS);
  g_assert_cmpuint(a->hotspots, ==, 4);
  g_assert_cmpfloat(a->width, ==, 0.05);
  g_assert_cmpfloat(a->amplitude, ==, 500);
  g_assert_cmpuint(a->base, ==, 7);
  g_assert_cmpfloat(a->drift, ==, -0.02);
  g_assert_cmpstr(lb_params_get_string(sc->work->params, "distribution"), ==, "random");
  g_assert_null(a->file_loads);
  g_assert_cmpfloat(sc->work->bytes_per_unit, ==, 128);
  g_assert_cmpfloat(sc->work->flops_per_unit, ==, 2e4);

  g_assert_cmpuint(sc->runs->len, ==, 2);
  const LbBalancerRun *none = run_at(sc, 0), *mlb = run_at(sc, 1);
  g_assert_true(none->balancer == lb_balancer_lookup("none"));
  g_assert_true(mlb->balancer == lb_balancer_lookup("mlb"));
  g_assert_cmpstr(lb_params_get_string(mlb->params, "desired"), ==, "even");
  g_assert_cmpstr(lb_params_get_string(mlb->params, "phase3"), ==, "finest");
  g_assert_cmpfloat(lb_params_get_double(mlb->params, "sum-flops"), ==, 3);
  g_assert_true(lb_params_is_set(mlb->params, "desired"));

  g_assert_cmpuint(sc->expects->len, ==, 6);
  assert_expect(expect_at(sc, 0), "mlb", "schedule_steps", LB_EXPECT_LE, 10,
                "mlb.schedule_steps <= 10");
  assert_expect(expect_at(sc, 1), "mlb", "imbalance_after", LB_EXPECT_LT, 1.02,
                "mlb.imbalance_after < 1.02");
  assert_expect(expect_at(sc, 2), "none", "imbalance_after", LB_EXPECT_GE, 1,
                "none.imbalance_after >= 1");
  assert_expect(expect_at(sc, 3), "mlb", "messages", LB_EXPECT_GT, 0, "mlb.messages > 0");
  assert_expect(expect_at(sc, 4), "none", "bytes_moved", LB_EXPECT_EQ, 0, "none.bytes_moved == 0");
  assert_expect(expect_at(sc, 5), "mlb", "accumulate_steps", LB_EXPECT_LE, 4,
                "mlb.accumulate_steps <= 4");
}

static void
test_defaults(Fixture *f, gconstpointer data)
{
  g_autofree char *path = write_file(f, "minimal.ini", HEAD "[balancers]\nrun = mlb\n");
  g_autoptr(LbScenario) sc = load_ok(path, NULL);
  g_assert_cmpstr(sc->name, ==, "minimal"); /* the file's name without .ini */
  g_assert_null(sc->description);
  g_assert_cmpuint(sc->seed, ==, 1);
  g_assert_cmpuint(sc->nadaptations, ==, 1);
  g_assert_cmpint(sc->placement, ==, LB_PLACEMENT_AUTO);
  g_assert_null(sc->background);
  g_assert_cmpuint(sc->loads->len, ==, 0);
  const LbPattern *a = &sc->work->pattern;
  g_assert_cmpuint(a->seed, ==, 1);
  g_assert_cmpuint(sc->work->cells, ==, 65536);
  g_assert_cmpint(a->kind, ==, LB_PATTERN_RANDOM);
  g_assert_cmpuint(a->min, ==, 1);
  g_assert_cmpuint(a->max, ==, 100);
  g_assert_cmpuint(a->value, ==, 1);
  g_assert_cmpuint(a->hotspots, ==, 3);
  g_assert_cmpfloat(a->width, ==, 0.02);
  g_assert_cmpfloat(a->amplitude, ==, 1000);
  g_assert_cmpuint(a->base, ==, 10);
  g_assert_cmpfloat(a->drift, ==, 0.01);
  g_assert_cmpuint(a->from, ==, 1);
  g_assert_cmpuint(a->to, ==, 100);
  g_assert_cmpuint(a->low, ==, 1);
  g_assert_cmpuint(a->high, ==, 10);
  g_assert_cmpfloat(a->at, ==, 0.5);
  g_assert_cmpstr(lb_params_get_string(sc->work->params, "distribution"), ==, "block");
  g_assert_cmpfloat(sc->work->bytes_per_unit, ==, 64);
  g_assert_cmpfloat(sc->work->flops_per_unit, ==, 1e4);
  g_assert_cmpuint(sc->runs->len, ==, 1);
  const LbBalancerRun *mlb = run_at(sc, 0);
  g_assert_true(mlb->balancer == lb_balancer_lookup("mlb"));
  g_assert_cmpstr(lb_params_get_string(mlb->params, "desired"), ==, "halving");
  g_assert_false(lb_params_is_set(mlb->params, "desired"));
  g_assert_nonnull(sc->expects);
  g_assert_cmpuint(sc->expects->len, ==, 0);

  g_autofree char *other = write_file(f, "other.conf", HEAD RUN_NONE);
  g_autoptr(LbScenario) sc2 = load_ok(other, NULL);
  g_assert_cmpstr(sc2->name, ==, "other.conf");

  /* each pattern's own keys reach the array */
  g_autofree char *ramp =
      write_file(f, "ramp.ini", HEAD RUN_NONE "[workload]\npattern = ramp\nfrom = 3\nto = 9\n");
  g_autoptr(LbScenario) sc3 = load_ok(ramp, NULL);
  g_assert_cmpint(sc3->work->pattern.kind, ==, LB_PATTERN_RAMP);
  g_assert_cmpuint(sc3->work->pattern.from, ==, 3);
  g_assert_cmpuint(sc3->work->pattern.to, ==, 9);
  g_autofree char *step = write_file(
      f, "step.ini",
      HEAD RUN_NONE "[workload]\npattern = step\nlow = 2\nhigh = 20\nat = 0.25\ndrift = 0\n");
  g_autoptr(LbScenario) sc4 = load_ok(step, NULL);
  g_assert_cmpint(sc4->work->pattern.kind, ==, LB_PATTERN_STEP);
  g_assert_cmpuint(sc4->work->pattern.low, ==, 2);
  g_assert_cmpuint(sc4->work->pattern.high, ==, 20);
  g_assert_cmpfloat(sc4->work->pattern.at, ==, 0.25);
  g_assert_cmpfloat(sc4->work->pattern.drift, ==, 0);
  g_autofree char *uniform =
      write_file(f, "uniform.ini", HEAD RUN_NONE "[workload]\npattern = uniform\nvalue = 0\n");
  g_autoptr(LbScenario) sc5 = load_ok(uniform, NULL);
  g_assert_cmpint(sc5->work->pattern.kind, ==, LB_PATTERN_UNIFORM);
  g_assert_cmpuint(sc5->work->pattern.value, ==, 0);
  g_autofree char *random_path =
      write_file(f, "random.ini", HEAD RUN_NONE "[workload]\nmin = 5\nmax = 5\n"); /* min = max */
  g_autoptr(LbScenario) sc6 = load_ok(random_path, NULL);
  g_assert_cmpuint(sc6->work->pattern.min, ==, 5);
  g_assert_cmpuint(sc6->work->pattern.max, ==, 5);
}

/* Every placement by name, and `--set scenario.placement=cost`. */
static void
test_placements(Fixture *f, gconstpointer data)
{
  static const struct {
    const char *text;
    LbPlacement placement;
  } names[] = {
      {"auto", LB_PLACEMENT_AUTO}, {"linear", LB_PLACEMENT_LINEAR}, {"gray", LB_PLACEMENT_GRAY},
      {"cost", LB_PLACEMENT_COST}, {"queue", LB_PLACEMENT_QUEUE},
  };
  for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
    g_autofree char *text = g_strdup_printf(HEAD "placement = %s\n" RUN_NONE, names[i].text);
    g_autofree char *path = write_file(f, "placement.ini", text);
    g_autoptr(LbScenario) sc = load_ok(path, NULL);
    g_assert_cmpint(sc->placement, ==, names[i].placement);
  }
  g_autofree char *path = write_file(f, "set.ini", HEAD "placement = gray\n" RUN_NONE);
  const char *const sets[] = {"scenario.placement=cost", NULL};
  LbScenarioOverrides ov = {.sets = sets};
  g_autoptr(LbScenario) sc = load_ok(path, &ov);
  g_assert_cmpint(sc->placement, ==, LB_PLACEMENT_COST);
}

static void
test_comments(Fixture *f, gconstpointer data)
{
  g_autofree char *path = write_file(f, "c.ini",
                                     "; a comment line\n"
                                     "   # an indented one\n"
                                     "[scenario] ; the main group\n"
                                     "name = a;b#c\n"
                                     "description = text # a note\n"
                                     "platform = hypercube-16.xml   ; from platforms/\n"
                                     "ranks = 16\t# tab, then the comment\n"
                                     "steps = 3 ; not part of the number\n"
                                     "[balancers]\n"
                                     "run = none;mlb\n"
                                     "[expect]  # checks\n"
                                     "mlb.schedule-steps <= 10 ; the paper's bound\n"
                                     "# mlb.messages > 1\n");
  g_autoptr(LbScenario) sc = load_ok(path, NULL);
  g_assert_cmpstr(sc->name, ==, "a;b#c"); /* no whitespace before: part of the value */
  g_assert_cmpstr(sc->description, ==, "text");
  g_assert_cmpuint(sc->ranks, ==, 16);
  g_assert_cmpuint(sc->nadaptations, ==, 3);
  g_assert_cmpuint(sc->runs->len, ==, 2);
  g_assert_true(run_at(sc, 1)->balancer == lb_balancer_lookup("mlb"));
  g_assert_cmpuint(sc->expects->len, ==, 1);
  assert_expect(expect_at(sc, 0), "mlb", "schedule_steps", LB_EXPECT_LE, 10,
                "mlb.schedule_steps <= 10");
}

static void
test_expect_forms(Fixture *f, gconstpointer data)
{
  g_autofree char *path = write_file(f, "e.ini",
                                     HEAD RUN_NONE "[expect]\n"
                                                   "mlb.messages<=3\n"
                                                   "mlb.bytes >=3\n"
                                                   "mlb.migrate-steps<3\n"
                                                   "mlb.amounts-steps> 3\n"
                                                   "mlb.desired-steps==3\n"
                                                   "mlb.ghost-bytes = == 3\n"
                                                   "mlb.compute-time = >3\n"
                                                   "  mlb.balance-time   <   -1.5e1  \n"
                                                   "\n"
                                                   "none.imbalance-after >= 1.0\n"
                                                   "none.imbalance-after <= 1.5\n"
                                                   "none.imbalance-after < 2 ; a third bound\n");
  g_autoptr(LbScenario) sc = load_ok(path, NULL);
  g_assert_cmpuint(sc->expects->len, ==, 11);
  assert_expect(expect_at(sc, 0), "mlb", "messages", LB_EXPECT_LE, 3, "mlb.messages <= 3");
  assert_expect(expect_at(sc, 1), "mlb", "bytes", LB_EXPECT_GE, 3, "mlb.bytes >= 3");
  assert_expect(expect_at(sc, 2), "mlb", "migrate_steps", LB_EXPECT_LT, 3, "mlb.migrate_steps < 3");
  assert_expect(expect_at(sc, 3), "mlb", "amounts_steps", LB_EXPECT_GT, 3, "mlb.amounts_steps > 3");
  assert_expect(expect_at(sc, 4), "mlb", "desired_steps", LB_EXPECT_EQ, 3,
                "mlb.desired_steps == 3");
  assert_expect(expect_at(sc, 5), "mlb", "ghost_bytes", LB_EXPECT_EQ, 3, "mlb.ghost_bytes == 3");
  assert_expect(expect_at(sc, 6), "mlb", "compute_time", LB_EXPECT_GT, 3, "mlb.compute_time > 3");
  assert_expect(expect_at(sc, 7), "mlb", "balance_time", LB_EXPECT_LT, -15,
                "mlb.balance_time < -1.5e1");
  /* a metric bounded on both sides keeps every bound */
  assert_expect(expect_at(sc, 8), "none", "imbalance_after", LB_EXPECT_GE, 1, NULL);
  assert_expect(expect_at(sc, 9), "none", "imbalance_after", LB_EXPECT_LE, 1.5, NULL);
  assert_expect(expect_at(sc, 10), "none", "imbalance_after", LB_EXPECT_LT, 2, NULL);
}

static void
test_file_pattern(Fixture *f, gconstpointer data)
{
  g_free(write_file(f, "data/loads.txt", "5 0 7\n7 1\n2 2 2\n"));
  g_free(write_file(f, "data/counts.txt", "2\n0\n3\n3\n"));
  g_autofree char *path = write_file(f, "f.ini",
                                     "[scenario]\nplatform = hypercube-4.xml\nranks = 4\n" RUN_NONE
                                     "[workload]\npattern = file\nfile = data/loads.txt\n"
                                     "distribution = file\ndistribution-file = data/counts.txt\n");
  /* the data files are found next to the scenario, not in the working directory */
  g_assert_false(g_file_test("data/loads.txt", G_FILE_TEST_EXISTS));
  g_autoptr(LbScenario) sc = load_ok(path, NULL);
  const LbPattern *a = &sc->work->pattern;
  g_assert_cmpint(a->kind, ==, LB_PATTERN_FILE);
  g_assert_cmpuint(sc->work->cells, ==, 8);
  static const guint64 loads[] = {5, 0, 7, 7, 1, 2, 2, 2};
  g_assert_cmpmem(a->file_loads, sc->work->cells * sizeof(guint64), loads, sizeof loads);
  g_assert_cmpstr(lb_params_get_string(sc->work->params, "distribution"), ==, "file");
  /* counts 2 0 3 3 */
  static const guint64 first[] = {0, 2, 2, 5}, count[] = {2, 0, 3, 3};
  g_autoptr(GArray) units = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  for (guint r = 0; r < sc->ranks; r++) {
    lb_work_initial_units(sc->work, r, LB_START_NATIVE, units);
    g_assert_cmpuint(units->len, ==, count[r]);
    if (units->len > 0)
      g_assert_cmpuint(g_array_index(units, LbUnit, 0).id, ==, first[r]);
    lb_work_update(sc->work, r, units, 0);
    for (guint i = 0; i < units->len; i++)
      g_assert_cmpuint(g_array_index(units, LbUnit, i).load, ==, loads[first[r] + i]);
  }
}

static void
test_platform_lookup(Fixture *f, gconstpointer data)
{
  g_autofree char *xml = platform_text("hypercube-4.xml");
  g_autofree char *local = write_file(f, "sub/local.xml", xml);
  g_autofree char *shadow = write_file(f, "sub/hypercube-16.xml", xml);
  g_autofree char *nested = write_file(f, "sub/machines/m.xml", xml);

  /* relative to the scenario's folder, whatever the working directory */
  g_autofree char *p1 =
      write_file(f, "sub/a.ini", "[scenario]\nplatform = local.xml\nranks = 4\n" RUN_NONE);
  g_autoptr(LbScenario) s1 = load_ok(p1, NULL);
  g_assert_cmpstr(s1->platform, ==, local);

  g_autofree char *p2 =
      write_file(f, "sub/b.ini", "[scenario]\nplatform = machines/m.xml\nranks = 4\n" RUN_NONE);
  g_autoptr(LbScenario) s2 = load_ok(p2, NULL);
  g_assert_cmpstr(s2->platform, ==, nested);

  /* the scenario's folder comes before platforms/ */
  g_autofree char *p3 = write_file(f, "sub/c.ini", HEAD RUN_NONE);
  g_autoptr(LbScenario) s3 = load_ok(p3, NULL);
  g_assert_cmpstr(s3->platform, ==, shadow);

  /* then platforms/ */
  g_autofree char *p4 = write_file(f, "d.ini", HEAD RUN_NONE);
  g_autoptr(LbScenario) s4 = load_ok(p4, NULL);
  g_autofree char *shipped = shipped_platform("hypercube-16.xml");
  g_assert_cmpstr(s4->platform, ==, shipped);

  g_autofree char *text = g_strdup_printf("[scenario]\nplatform = %s\nranks = 4\n" RUN_NONE, local);
  g_autofree char *p5 = write_file(f, "e.ini", text);
  g_autoptr(LbScenario) s5 = load_ok(p5, NULL);
  g_assert_cmpstr(s5->platform, ==, local);

  g_autofree char *p6 =
      write_file(f, "f.ini", "[scenario]\nplatform = ./sub/../sub/local.xml\nranks = 4\n" RUN_NONE);
  g_autoptr(LbScenario) s6 = load_ok(p6, NULL);
  g_assert_cmpstr(s6->platform, ==, local); /* canonical */
}

static void
test_override_ranks(Fixture *f, gconstpointer data)
{
  g_autofree char *path = write_file(f, "r.ini", HEAD "[balancers]\nrun = none, mlb\n");
  LbScenarioOverrides ov = {.ranks = 4};
  g_autoptr(LbScenario) sc = load_ok(path, &ov);
  g_assert_cmpuint(sc->ranks, ==, 4);
  LbScenarioOverrides keep = {.ranks = 0};
  g_autoptr(LbScenario) kept = load_ok(path, &keep);
  g_assert_cmpuint(kept->ranks, ==, 16);

  /* a file without ranks is complete with --ranks */
  g_autofree char *bare =
      write_file(f, "bare.ini", "[scenario]\nplatform = hypercube-16.xml\n" RUN_NONE);
  LbScenarioOverrides eight = {.ranks = 8};
  g_autoptr(LbScenario) sc2 = load_ok(bare, &eight);
  g_assert_cmpuint(sc2->ranks, ==, 8);
}

static void
test_override_platform(Fixture *f, gconstpointer data)
{
  g_autofree char *xml = platform_text("hypercube-4.xml");
  g_free(write_file(f, "here.xml", xml));
  g_free(write_file(f, "sub/only-sub.xml", xml));
  g_autofree char *path = write_file(f, "sub/s.ini", HEAD RUN_NONE);
  g_assert_cmpint(g_chdir(f->dir), ==, 0);
  g_autofree char *cwd = g_get_current_dir(); /* f->dir, symbolic links resolved */
  g_autofree char *here = g_build_filename(cwd, "here.xml", NULL);

  LbScenarioOverrides ov = {.platform = "here.xml"};
  g_autoptr(LbScenario) sc = load_ok(path, &ov);
  g_assert_cmpstr(sc->platform, ==, here);

  LbScenarioOverrides shipped = {.platform = "hypercube-8.xml"};
  g_autoptr(LbScenario) sc2 = load_ok(path, &shipped);
  g_autofree char *expected = shipped_platform("hypercube-8.xml");
  g_assert_cmpstr(sc2->platform, ==, expected);

  /* a file without platform is complete with --platform */
  g_autofree char *bare = write_file(f, "sub/bare.ini", "[scenario]\nranks = 4\n" RUN_NONE);
  g_autoptr(LbScenario) sc3 = load_ok(bare, &ov);
  g_assert_cmpstr(sc3->platform, ==, here);

  /* --platform is relative to the working directory, not to the scenario */
  LbScenarioOverrides wrong = {.platform = "only-sub.xml"};
  g_autoptr(GError) error = NULL;
  g_autoptr(LbScenario) none = lb_scenario_load(path, &wrong, &error);
  g_assert_null(none);
  g_assert_error(error, LB_SCENARIO_ERROR, LB_SCENARIO_ERROR_PLATFORM);
  g_assert_nonnull(strstr(error->message, path));
  g_assert_nonnull(strstr(error->message, "--platform"));
  g_assert_nonnull(strstr(error->message, "only-sub.xml"));
}

static void
test_override_balancer(Fixture *f, gconstpointer data)
{
  g_autofree char *path =
      write_file(f, "b.ini", HEAD "[balancers]\nrun = none, mlb\n[mlb]\ndesired = even\n");
  LbScenarioOverrides ov = {.balancer = "mlb"};
  g_autoptr(LbScenario) sc = load_ok(path, &ov);
  g_assert_cmpuint(sc->runs->len, ==, 1);
  g_assert_true(run_at(sc, 0)->balancer == lb_balancer_lookup("mlb"));
  g_assert_cmpstr(lb_params_get_string(run_at(sc, 0)->params, "desired"), ==, "even");

  LbScenarioOverrides none = {.balancer = "none"};
  g_autoptr(LbScenario) sc2 = load_ok(path, &none);
  g_assert_cmpuint(sc2->runs->len, ==, 1);
  g_assert_true(run_at(sc2, 0)->balancer == lb_balancer_lookup("none"));

  /* and a file with no run list at all */
  g_autofree char *bare = write_file(f, "bare.ini", HEAD);
  g_autoptr(LbScenario) sc3 = load_ok(bare, &ov);
  g_assert_cmpuint(sc3->runs->len, ==, 1);
}

/* NAME:VARIANT: the base group, then the variant key, then the variant's
 * group; labels name the runs, [expect] and --set use them. */
static void
test_variants(Fixture *f, gconstpointer data)
{
  g_autofree char *path =
      write_file(f, "v.ini",
                 HEAD "[workload]\nmodel = loop\niterations = 100\n"
                      "[balancers]\nrun = dls:stat, dls:fac, dls:mine, none:again\n"
                      "[dls]\nbreak-after = 7\ntechnique = gss\n"
                      "[dls:fac]\nrequest-when = 3\n"
                      "[dls:mine]\ntechnique = af\nbreak-after = 9\n"
                      "[none:again]\n"
                      "[expect]\ndls:fac.cost-improvement > 0\n");
  const char *const sets[] = {"dls:stat.break-after=2", NULL};
  LbScenarioOverrides ov = {.sets = sets};
  g_autoptr(LbScenario) sc = load_ok(path, &ov);
  g_assert_cmpuint(sc->runs->len, ==, 4);
  const char *labels[] = {"dls:stat", "dls:fac", "dls:mine"};
  const char *techniques[] = {"stat", "fac", "af"};
  const gint64 breaks[] = {2, 7, 9};
  for (guint i = 0; i < 3; i++) {
    g_assert_cmpstr(run_at(sc, i)->label, ==, labels[i]);
    g_assert_true(run_at(sc, i)->balancer == lb_balancer_lookup("dls"));
    g_assert_cmpstr(lb_params_get_string(run_at(sc, i)->params, "technique"), ==, techniques[i]);
    g_assert_cmpint(lb_params_get_int(run_at(sc, i)->params, "break-after"), ==, breaks[i]);
  }
  g_assert_cmpint(lb_params_get_int(run_at(sc, 1)->params, "request-when"), ==, 3);
  g_assert_cmpint(lb_params_get_int(run_at(sc, 0)->params, "request-when"), ==, 0);
  /* a balancer without a variant key: the group alone makes the variant */
  g_assert_cmpstr(run_at(sc, 3)->label, ==, "none:again");
  g_assert_true(run_at(sc, 3)->balancer == lb_balancer_lookup("none"));
  g_assert_cmpuint(sc->expects->len, ==, 1);

  LbScenarioOverrides one = {.balancer = "dls:af"};
  g_autoptr(LbScenario) sc2 = load_ok(path, &one);
  g_assert_cmpstr(run_at(sc2, 0)->label, ==, "dls:af");
  g_assert_cmpstr(lb_params_get_string(run_at(sc2, 0)->params, "technique"), ==, "af");
}

static void
test_override_sets(Fixture *f, gconstpointer data)
{
  g_autofree char *path = write_file(f, "s.ini",
                                     HEAD "steps = 2\n"
                                          "[workload]\nsize = 1000\n"
                                          "[balancers]\nrun = none, mlb\n"
                                          "[mlb]\ndesired = halving\n"
                                          "[expect]\n"
                                          "mlb.schedule-steps <= 10\n"
                                          "none.imbalance-after >= 1\n"
                                          "none.imbalance-after <= 1.5\n");
  const char *const sets[] = {"workload.pattern=uniform",
                              "workload.value=9",
                              "mlb.desired=even",
                              "mlb.phase3=finest",
                              "scenario.steps=3",
                              "expect.none.imbalance-after=<= 1.2",
                              NULL};
  LbScenarioOverrides ov = {.sets = sets};
  g_autoptr(LbScenario) sc = load_ok(path, &ov);
  g_assert_cmpint(sc->work->pattern.kind, ==, LB_PATTERN_UNIFORM);
  g_assert_cmpuint(sc->work->pattern.value, ==, 9);
  g_assert_cmpuint(sc->work->cells, ==, 1000);
  g_assert_cmpuint(sc->nadaptations, ==, 3);
  const LbParams *mlb = run_at(sc, 1)->params;
  g_assert_cmpstr(lb_params_get_string(mlb, "desired"), ==, "even");
  g_assert_cmpstr(lb_params_get_string(mlb, "phase3"), ==, "finest");
  /* a set [expect] key replaces the file's lines with that key */
  g_assert_cmpuint(sc->expects->len, ==, 2);
  assert_expect(expect_at(sc, 0), "mlb", "schedule_steps", LB_EXPECT_LE, 10, NULL);
  assert_expect(expect_at(sc, 1), "none", "imbalance_after", LB_EXPECT_LE, 1.2,
                "none.imbalance_after <= 1.2");

  /* spaces around '=' as in a file */
  const char *const spaced[] = {"scenario.steps = 4", "mlb.desired =even", "workload.size= 2000",
                                "expect.mlb.messages = > 0", NULL};
  LbScenarioOverrides ov2 = {.sets = spaced};
  g_autoptr(LbScenario) sc2 = load_ok(path, &ov2);
  g_assert_cmpuint(sc2->nadaptations, ==, 4);
  g_assert_cmpuint(sc2->work->cells, ==, 2000);
  g_assert_cmpstr(lb_params_get_string(run_at(sc2, 1)->params, "desired"), ==, "even");
  assert_expect(expect_at(sc2, 3), "mlb", "messages", LB_EXPECT_GT, 0, "mlb.messages > 0");

  /* without sets the file's values stand */
  g_autoptr(LbScenario) plain = load_ok(path, NULL);
  g_assert_cmpint(plain->work->pattern.kind, ==, LB_PATTERN_RANDOM);
  g_assert_cmpuint(plain->nadaptations, ==, 2);
  g_assert_cmpuint(plain->expects->len, ==, 3);
}

/* ---- errors ---- */

typedef struct {
  const char *name;
  const char *text;
  const char *aux_name; /* a file written next to the scenario */
  const char *aux_text;
  const char *set;      /* one --set */
  gint ranks;           /* --ranks */
  const char *balancer; /* --balancer */
  int code;
  const char *group; /* the message names [group] key, or [group] if key is NULL */
  const char *key;
  const char *detail; /* more text the message holds */
  const char *absent; /* text it must not hold */
} ErrorCase;

static const ErrorCase error_cases[] = {
    {"syntax/open-group", "[scenario\nranks = 16\n", .code = LB_SCENARIO_ERROR_PARSE},
    {"syntax/no-group", "ranks = 16\n", .code = LB_SCENARIO_ERROR_PARSE},
    {"syntax/not-a-pair", HEAD "ranks 16\n" RUN_NONE, .code = LB_SCENARIO_ERROR_PARSE,
     .detail = "ranks 16"},
    {"repeated/key", HEAD "ranks = 8\n" RUN_NONE, .code = LB_SCENARIO_ERROR_PARSE,
     .group = "scenario", .key = "ranks",
     .detail = "bad.ini:4: [scenario] ranks: the key is repeated (first on line 3)"},
    {"repeated/key-spaced", HEAD RUN_NONE "[workload]\nsize=8\n  size   =   9  ; again\n",
     .code = LB_SCENARIO_ERROR_PARSE, .group = "workload", .key = "size",
     .detail = ":8: [workload] size: the key is repeated (first on line 7)"},
    {"repeated/key-in-repeated-group", HEAD RUN_NONE "[scenario]\nsteps = 2\n",
     .code = LB_SCENARIO_ERROR_PARSE, .group = "scenario",
     .detail = ":6: [scenario]: the group is repeated (first on line 1)"},
    {"repeated/group-expect", HEAD RUN_NONE "[expect]\nnone.messages == 0\n[expect]\n",
     .code = LB_SCENARIO_ERROR_PARSE, .group = "expect",
     .detail = ":8: [expect]: the group is repeated (first on line 6)"},
    {"repeated/balancer-group", HEAD "[balancers]\nrun = mlb\n[mlb]\ndesired = even\n[mlb]\n",
     .code = LB_SCENARIO_ERROR_PARSE, .group = "mlb", .detail = "the group is repeated"},
    {"locale-key", HEAD "ranks[de] = 8\n" RUN_NONE, .code = LB_SCENARIO_ERROR_PARSE,
     .group = "scenario", .key = "ranks[de]",
     .detail = ":4: [scenario] ranks[de]: localized keys (KEY[LOCALE]) are not supported"},
    {"locale-key/new", HEAD "name[fr] = essai\n" RUN_NONE, .code = LB_SCENARIO_ERROR_PARSE,
     .group = "scenario", .key = "name[fr]", .detail = "localized keys"},
    {"utf8/name", HEAD "name = caf\xe9\n" RUN_NONE, .code = LB_SCENARIO_ERROR_INVALID,
     .group = "scenario", .key = "name", .detail = "not valid UTF-8"},
    {"utf8/description", HEAD "description = \xff\xfe\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "description",
     .detail = "not valid UTF-8"},
    {"utf8/set", HEAD RUN_NONE, .set = "scenario.name=a\xc3", .code = LB_SCENARIO_ERROR_INVALID,
     .group = "scenario", .key = "name", .detail = "not valid UTF-8"},
    {"unknown-group", HEAD RUN_NONE "[workloads]\nsize = 3\n",
     .code = LB_SCENARIO_ERROR_UNKNOWN_GROUP, .group = "workloads", .detail = "unknown group"},
    {"unknown-group/balancer", HEAD RUN_NONE "[rcb]\ntolerance = 0.05\n",
     .code = LB_SCENARIO_ERROR_UNKNOWN_GROUP, .group = "rcb"},
    {"unknown-key/scenario", HEAD "rank = 3\n" RUN_NONE, .code = LB_SCENARIO_ERROR_UNKNOWN_KEY,
     .group = "scenario", .key = "rank", .detail = "known: name, description, platform, ranks"},
    {"unknown-key/workload", HEAD RUN_NONE "[workload]\nsizes = 10\n",
     .code = LB_SCENARIO_ERROR_UNKNOWN_KEY, .group = "workload", .key = "sizes",
     .detail = "bytes-per-unit"},
    {"unknown-key/mlb", HEAD "[balancers]\nrun = mlb\n[mlb]\ndesire = even\n",
     .code = LB_SCENARIO_ERROR_UNKNOWN_KEY, .group = "mlb", .key = "desire",
     .detail = "known: desired, phase3"},
    {"unknown-key/mlb-not-run", HEAD RUN_NONE "[mlb]\ndesire = even\n",
     .code = LB_SCENARIO_ERROR_UNKNOWN_KEY, .group = "mlb", .key = "desire"},
    {"unknown-key/none", HEAD RUN_NONE "[none]\nlevel = 1\n", .code = LB_SCENARIO_ERROR_UNKNOWN_KEY,
     .group = "none", .key = "level", .detail = "known: none"},
    {"unknown-key/balancers", HEAD "[balancers]\nrun = none\nruns = mlb\n",
     .code = LB_SCENARIO_ERROR_UNKNOWN_KEY, .group = "balancers", .key = "runs",
     .detail = "known: run"},
    {"unknown-key/set", HEAD RUN_NONE, .set = "workload.bogus=1",
     .code = LB_SCENARIO_ERROR_UNKNOWN_KEY, .group = "workload", .key = "bogus"},
    {"bad-int/ranks", "[scenario]\nplatform = hypercube-16.xml\nranks = sixteen\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "ranks",
     .detail = "'sixteen' is not an integer"},
    {"bad-int/size", HEAD RUN_NONE "[workload]\nsize = 2048x2048\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "size",
     .detail = "not an integer"},
    {"bad-int/fraction", HEAD "steps = 2.5\n" RUN_NONE, .code = LB_SCENARIO_ERROR_INVALID,
     .group = "scenario", .key = "steps", .detail = "not an integer"},
    {"bad-number", HEAD RUN_NONE "[workload]\npattern = hotspots\nwidth = narrow\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "width",
     .detail = "'narrow' is not a number"},
    {"bad-number/mlb", HEAD "[balancers]\nrun = mlb\n[mlb]\nsum-flops = lots\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "mlb", .key = "sum-flops",
     .detail = "not a number"},
    {"range/steps", HEAD "steps = 0\n" RUN_NONE, .code = LB_SCENARIO_ERROR_INVALID,
     .group = "scenario", .key = "steps", .detail = "out of range"},
    {"range/ranks", "[scenario]\nplatform = hypercube-16.xml\nranks = 0\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "ranks",
     .detail = "out of range"},
    {"range/ranks-override", HEAD RUN_NONE, .ranks = 2000000, .code = LB_SCENARIO_ERROR_INVALID,
     .group = "scenario", .key = "ranks", .detail = "out of range"},
    {"range/seed", HEAD "seed = -1\n" RUN_NONE, .code = LB_SCENARIO_ERROR_INVALID,
     .group = "scenario", .key = "seed", .detail = "out of range"},
    {"range/size", HEAD RUN_NONE "[workload]\nsize = 0\n", .code = LB_SCENARIO_ERROR_INVALID,
     .group = "workload", .key = "size", .detail = "out of range"},
    {"range/width", HEAD RUN_NONE "[workload]\npattern = hotspots\nwidth = 2\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "width",
     .detail = "out of range"},
    {"range/drift", HEAD RUN_NONE "[workload]\npattern = step\ndrift = -1.5\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "drift",
     .detail = "out of range"},
    {"range/at", HEAD RUN_NONE "[workload]\npattern = step\nat = 1.01\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "at", .detail = "out of range"},
    {"choice/placement", HEAD "placement = diagonal\n" RUN_NONE, .code = LB_SCENARIO_ERROR_INVALID,
     .group = "scenario", .key = "placement",
     .detail = "'diagonal' is not one of: auto, linear, gray, cost"},
    {"choice/placement-case", HEAD "placement = Cost\n" RUN_NONE, .code = LB_SCENARIO_ERROR_INVALID,
     .group = "scenario", .key = "placement", .detail = "'Cost' is not one of"},
    {"choice/pattern", HEAD RUN_NONE "[workload]\npattern = gaussian\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "pattern",
     .detail = "'gaussian' is not one of"},
    {"lbd/array1d", HEAD "[balancers]\nrun = none, lbd\n", .code = LB_SCENARIO_ERROR_INVALID,
     .group = "balancers", .key = "run",
     .detail = "lbd does not run on model array1d, which does not offer a 2D or 3D grid of cells "
               "to cut into boxes (it runs on: field2d, field3d)"},
    {"lbd/tolerance",
     HEAD "[balancers]\nrun = lbd\n[workload]\nmodel = field2d\n[lbd]\n"
          "tolerance = -0.1\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "lbd", .key = "tolerance",
     .detail = "out of range"},
    {"lbd/max-iterations",
     HEAD "[balancers]\nrun = lbd\n[workload]\nmodel = field2d\n[lbd]\n"
          "max-iterations = 0\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "lbd", .key = "max-iterations",
     .detail = "out of range"},
    {"lbd/unknown-key",
     HEAD "[balancers]\nrun = lbd\n[workload]\nmodel = field2d\n[lbd]\n"
          "column-tolerance = 0.1\n",
     .code = LB_SCENARIO_ERROR_UNKNOWN_KEY, .group = "lbd", .key = "column-tolerance"},
    {"mlb-nd/array1d", HEAD "[balancers]\nrun = mlb-nd\n", .code = LB_SCENARIO_ERROR_INVALID,
     .group = "balancers", .key = "run",
     .detail = "mlb-nd does not run on model array1d, which does not offer a 2D or 3D grid of "
               "cells to cut into boxes (it runs on: field2d, field3d)"},
    {"mlb-nd/procs",
     HEAD "[balancers]\nrun = none, mlb-nd\n[workload]\nmodel = field2d\nprocs = 3x4\n",
     .ranks = 12, .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "procs",
     .detail = "every axis of the processor grid must be a power of two; 3x4 has 3 along x"},
    {"mlb-nd/procs-default", HEAD "[balancers]\nrun = mlb-nd\n[workload]\nmodel = field3d\n",
     .ranks = 24, .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "procs",
     .detail = "4x3x2 has 3 along y"},
    {"mlb-nd/phase4",
     HEAD "[balancers]\nrun = mlb-nd\n[workload]\nmodel = field2d\n[mlb-nd]\nphase4 = nearest\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "mlb-nd", .key = "phase4",
     .detail = "'nearest' is not one of: loan, midpoint"},
    {"mlb-nd/phase3",
     HEAD "[balancers]\nrun = mlb-nd\n[workload]\nmodel = field2d\n[mlb-nd]\nphase3 = all\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "mlb-nd", .key = "phase3",
     .detail = "'all' is not one of: levels, local, finest"},
    {"mlb/phase4", HEAD "[balancers]\nrun = mlb\n[mlb]\nphase4 = closest\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "mlb", .key = "phase4",
     .detail = "'closest' is not one of: loan, midpoint"},
    {"lbd/mesh-flops",
     HEAD "[balancers]\nrun = lbd\n[workload]\nmodel = field2d\n[lbd]\nmesh-flops = -1\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "lbd", .key = "mesh-flops",
     .detail = "out of range"},
    {"field/procs-format", HEAD RUN_NONE "[workload]\nmodel = field2d\nprocs = 4by4\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "procs",
     .detail = "'4by4' is not PXxPY of positive integers"},
    {"field/size-dims", HEAD RUN_NONE "[workload]\nmodel = field2d\nsize = 64x64x64\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "size",
     .detail = "is not NXxNY of positive integers"},
    {"field/ghost-depth", HEAD RUN_NONE "[workload]\nmodel = field2d\nghost-depth = -1\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "ghost-depth",
     .detail = "out of range"},
    {"field/bytes-per-unit", HEAD RUN_NONE "[workload]\nmodel = field2d\nbytes-per-unit = -2\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "bytes-per-unit",
     .detail = "out of range"},
    {"samr/hierarchy-width",
     HEAD RUN_NONE "[workload]\nmodel = samr\nsize = 16x16\nhierarchy = h.txt\n", "h.txt",
     "# owner level box\n0 0 0 0 16\n", .code = LB_SCENARIO_ERROR_INVALID, .group = "workload",
     .key = "hierarchy", .detail = "h.txt:2: 5 numbers, a grid is 6 (OWNER LEVEL X0 Y0 X1 Y1)"},
    {"samr/hierarchy-parent",
     HEAD RUN_NONE "[workload]\nmodel = samr\nsize = 16x16\nhierarchy = h.txt\n", "h.txt",
     "0 0 0 0 8 16\n1 0 8 0 16 16\n0 1 0 0 20 4\n", .code = LB_SCENARIO_ERROR_INVALID,
     .group = "workload", .key = "hierarchy",
     .detail = "h.txt:3: a grid of level 1 must lie inside a grid of level 0 listed before it"},
    /* the issue's case: two level-0 grids of a 100x1 domain sharing cells */
    {"samr/hierarchy-overlap",
     HEAD RUN_NONE "[workload]\nmodel = samr\nsize = 100x1\nhierarchy = h.txt\n", "h.txt",
     "0 0 0 0 36 1\n2 0 10 0 20 1\n", .code = LB_SCENARIO_ERROR_INVALID, .group = "workload",
     .key = "hierarchy",
     .detail = "h.txt:2: the grid overlaps the grid of level 0 on line 1 (the grids of a level "
               "must not share a cell)"},
    {"samr/hierarchy-overlap-fine",
     HEAD RUN_NONE "[workload]\nmodel = samr\nsize = 16x16\nhierarchy = h.txt\n", "h.txt",
     "0 0 0 0 16 16\n# touching is not overlapping\n1 1 0 0 8 8\n2 1 8 0 16 8\n3 1 4 4 12 12\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "hierarchy",
     .detail = "h.txt:5: the grid overlaps the grid of level 1 on line 3"},
    {"samr/hierarchy-owner",
     HEAD RUN_NONE "[workload]\nmodel = samr\nsize = 16x16\nhierarchy = h.txt\n", "h.txt",
     "16 0 0 0 16 16\n", .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "hierarchy",
     .detail = "h.txt:1: owner 16 is not a rank (0 .. 15)"},
    {"samr/hierarchy-box",
     HEAD RUN_NONE "[workload]\nmodel = samr\nsize = 16x16\nhierarchy = h.txt\n", "h.txt",
     "0 0 0 0 17 16\n", .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "hierarchy",
     .detail = "leaves level 0's 16 cells"},
    {"samr/hierarchy-steps",
     HEAD RUN_NONE "[workload]\nmodel = samr\nsize = 16x16\nhierarchy = h.txt\n", "h.txt",
     "step 0\n0 0 0 0 16 16\nstep 0\n", .code = LB_SCENARIO_ERROR_INVALID, .group = "workload",
     .key = "hierarchy", .detail = "h.txt:3: 'step N' with N larger than the last step's"},
    {"samr/hierarchy-missing",
     HEAD RUN_NONE "[workload]\nmodel = samr\nsize = 16x16\nhierarchy = none.txt\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "hierarchy",
     .detail = "none.txt"},
    {"samr/refine-count",
     HEAD RUN_NONE "[workload]\nmodel = samr\nlevels = 2\nrefine = 100\npattern = hotspots\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "refine",
     .detail = "1 values for levels = 2"},
    {"samr/refine-pattern", HEAD RUN_NONE "[workload]\nmodel = samr\npattern = random\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "refine",
     .detail = "pattern random needs refine = LOADS"},
    {"samr/size", HEAD RUN_NONE "[workload]\nmodel = samr\nsize = 32\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "size",
     .detail = "'32' is not NXxNY or NXxNYxNZ"},
    {"loop/iterations", HEAD RUN_NONE "[workload]\nmodel = loop\niterations = 0\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "iterations",
     .detail = "out of range"},
    {"variant/not-a-technique", HEAD "[workload]\nmodel = loop\n[balancers]\nrun = dls:fca\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "balancers", .key = "run",
     .detail = "'fca' is not a value of [dls] technique, and no group [dls:fca]"},
    {"variant/no-group", HEAD "[balancers]\nrun = mlb:x\n", .code = LB_SCENARIO_ERROR_INVALID,
     .group = "balancers", .key = "run", .detail = "no group [mlb:x]"},
    {"variant/empty", HEAD "[balancers]\nrun = mlb:\n", .code = LB_SCENARIO_ERROR_INVALID,
     .group = "balancers", .key = "run", .detail = "a variant is NAME:VARIANT"},
    {"variant/twice", HEAD "[workload]\nmodel = loop\n[balancers]\nrun = dls:ss, dls:ss\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "balancers", .key = "run",
     .detail = "'dls:ss' is listed twice"},
    {"variant/bad-key",
     HEAD "[workload]\nmodel = loop\n[balancers]\nrun = dls:x\n[dls:x]\nspeed = 2\n",
     .code = LB_SCENARIO_ERROR_UNKNOWN_KEY, .group = "dls:x", .key = "speed"},
    {"dls/foreman", HEAD "[workload]\nmodel = loop\n[balancers]\nrun = dls\n[dls]\nforeman = 16\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "dls", .key = "foreman",
     .detail = "rank 16 does not exist"},
    {"loop/cost", HEAD RUN_NONE "[workload]\nmodel = loop\ncost = weibull\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "cost", .detail = "weibull"},
    {"loop/mean", HEAD RUN_NONE "[workload]\nmodel = loop\ncost = normal\nmean = -1\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "mean",
     .detail = "out of range"},
    {"loop/sd", HEAD RUN_NONE "[workload]\nmodel = loop\ncost = normal\nsd = -5\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "sd", .detail = "out of range"},
    {"loop/sd-applies", HEAD RUN_NONE "[workload]\nmodel = loop\ncost = exponential\nsd = 5\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "sd",
     .detail = "applies to cost normal|bimodal, but cost is exponential"},
    {"loop/shape", HEAD RUN_NONE "[workload]\nmodel = loop\ncost = gamma\nshape = 0\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "shape",
     .detail = "out of range"},
    {"loop/shape-applies", HEAD RUN_NONE "[workload]\nmodel = loop\ncost = normal\nshape = 3\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "shape",
     .detail = "applies to cost gamma"},
    {"loop/mean2", HEAD RUN_NONE "[workload]\nmodel = loop\ncost = bimodal\nmean2 = x\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "mean2"},
    {"loop/share", HEAD RUN_NONE "[workload]\nmodel = loop\ncost = bimodal\nshare = 1.5\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "share",
     .detail = "out of range"},
    {"loop/cost-min", HEAD RUN_NONE "[workload]\nmodel = loop\ncost = uniform\ncost-min = -1\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "cost-min",
     .detail = "out of range"},
    {"loop/cost-max",
     HEAD RUN_NONE "[workload]\nmodel = loop\ncost = increasing\ncost-max = 1e13\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "cost-max"},
    {"loop/cost-min-max",
     HEAD RUN_NONE "[workload]\nmodel = loop\ncost = uniform\ncost-min = 10\ncost-max = 5\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "cost-min",
     .detail = "10 is larger than cost-max (5)"},
    {"loop/cost-min-applies",
     HEAD RUN_NONE "[workload]\nmodel = loop\ncost = normal\ncost-min = 10\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "cost-min",
     .detail = "applies to cost uniform|increasing|decreasing"},
    {"loop/cost-file-missing", HEAD RUN_NONE "[workload]\nmodel = loop\ncost = file\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "cost-file",
     .detail = "cost file needs cost-file = PATH"},
    {"loop/cost-file-applies", HEAD RUN_NONE "[workload]\nmodel = loop\ncost-file = c.txt\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "cost-file",
     .detail = "applies to cost file, but cost is constant"},
    {"loop/field-size", HEAD RUN_NONE "[workload]\nmodel = loop\ncost = field\nfield-size = 32\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "field-size",
     .detail = "'32' is not NXxNY or NXxNYxNZ"},
    {"loop/field-size-cells",
     HEAD RUN_NONE "[workload]\nmodel = loop\ncost = field\nfield-size = 10000x10001\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "field-size",
     .detail = "more than 10^8 cells"},
    {"loop/field-iterations",
     HEAD RUN_NONE "[workload]\nmodel = loop\ncost = field\nfield-size = 8x8\niterations = 100\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "iterations",
     .detail = "the field has 64 cells"},
    {"loop/field-pattern-file",
     HEAD RUN_NONE "[workload]\nmodel = loop\ncost = field\npattern = file\nfile = l.txt\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "pattern",
     .detail = "use cost = file"},
    {"loop/pattern-applies", HEAD RUN_NONE "[workload]\nmodel = loop\npattern = hotspots\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "pattern",
     .detail = "applies to cost field, but cost is constant"},
    {"loop/pattern-key-applies", HEAD RUN_NONE "[workload]\nmodel = loop\ncost = aqr\nmin = 5\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "min",
     .detail = "applies to cost field, but cost is aqr"},
    {"loop/aqr-families", HEAD RUN_NONE "[workload]\nmodel = loop\ncost = aqr\naqr-families = 9\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "aqr-families",
     .detail = "out of range"},
    {"loop/aqr-levels", HEAD RUN_NONE "[workload]\nmodel = loop\ncost = aqr\naqr-levels = 0\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "aqr-levels",
     .detail = "out of range"},
    {"loop/aqr-tolerances",
     HEAD RUN_NONE "[workload]\nmodel = loop\ncost = aqr\naqr-tolerances = 14\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "aqr-tolerances",
     .detail = "out of range"},
    {"loop/aqr-rules", HEAD RUN_NONE "[workload]\nmodel = loop\ncost = aqr\naqr-rules = 3\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "aqr-rules",
     .detail = "out of range"},
    {"loop/aqr-model", HEAD RUN_NONE "[workload]\nmodel = loop\ncost = aqr\naqr-model = simpson\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "aqr-model"},
    {"loop/aqr-formula-samples",
     HEAD RUN_NONE "[workload]\nmodel = loop\ncost = aqr\naqr-model = formula\naqr-samples = 2\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "aqr-samples",
     .detail = "applies to aqr-model quadrature"},
    {"loop/aqr-integrals",
     HEAD RUN_NONE "[workload]\nmodel = loop\ncost = aqr\naqr-family = 3\niterations = 2000\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "iterations",
     .detail = "raise aqr-samples"},
    {"loop/aqr-applies", HEAD RUN_NONE "[workload]\nmodel = loop\naqr-levels = 3\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "aqr-levels",
     .detail = "applies to cost aqr"},
    {"loop/bytes-per-iteration",
     HEAD RUN_NONE "[workload]\nmodel = loop\nbytes-per-iteration = -1\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "bytes-per-iteration",
     .detail = "out of range"},
    {"loop/flops-per-unit", HEAD RUN_NONE "[workload]\nmodel = loop\nflops-per-unit = -1\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "flops-per-unit",
     .detail = "out of range"},
    {"move-split/reading",
     HEAD "[balancers]\nrun = move-split\n[workload]\nmodel = samr\npattern = hotspots\n"
          "[move-split]\nreading = text\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "move-split", .key = "reading",
     .detail = "'text' is not one of: figure, prose"},
    {"enzo-original/threshold",
     HEAD "[balancers]\nrun = enzo-original\n[workload]\nmodel = samr\npattern = hotspots\n"
          "[enzo-original]\nthreshold = 0.9\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "enzo-original", .key = "threshold",
     .detail = "out of range"},
    {"sfc-shift/curve", HEAD SFC_HTREE "[sfc-shift]\ncurve = peano\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "sfc-shift", .key = "curve",
     .detail = "'peano' is not one of: hilbert, morton"},
    {"sfc-shift/curve-case", HEAD SFC_HTREE "[sfc-shift]\ncurve = Hilbert\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "sfc-shift", .key = "curve",
     .detail = "'Hilbert' is not one of"},
    {"sfc-shift/threshold-negative", HEAD SFC_HTREE "[sfc-shift]\nthreshold = -0.1\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "sfc-shift", .key = "threshold",
     .detail = "out of range 0 .. 1000000"},
    {"sfc-shift/threshold-text", HEAD SFC_HTREE "[sfc-shift]\nthreshold = five percent\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "sfc-shift", .key = "threshold",
     .detail = "is not a number"},
    {"sfc-shift/threshold-nan", HEAD SFC_HTREE "[sfc-shift]\nthreshold = nan\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "sfc-shift", .key = "threshold",
     .detail = "'nan' is not a number"},
    {"sfc-shift/period-zero", HEAD SFC_HTREE "[sfc-shift]\nperiod = 0\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "sfc-shift", .key = "period",
     .detail = "out of range 1 .. 1000000"},
    {"sfc-shift/period-fraction", HEAD SFC_HTREE "[sfc-shift]\nperiod = 1.5\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "sfc-shift", .key = "period",
     .detail = "'1.5' is not an integer"},
    {"sfc-shift/collect", HEAD SFC_HTREE "[sfc-shift]\ncollect = push\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "sfc-shift", .key = "collect",
     .detail =
         "'push' is not one of: request-answer, fault-prevention, informed, informed-needs, none"},
    {"sfc-shift/operators", HEAD SFC_HTREE "[sfc-shift]\noperators = 0\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "sfc-shift", .key = "operators",
     .detail = "out of range 1 .. 1000"},
    {"sfc-shift/merge", HEAD SFC_HTREE "[sfc-shift]\nmerge = 0\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "sfc-shift", .key = "merge",
     .detail = "out of range 1 .. 1000000"},
    {"sfc-shift/ra-batch", HEAD SFC_HTREE "[sfc-shift]\nra-batch = 0\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "sfc-shift", .key = "ra-batch",
     .detail = "out of range 1 .. 1000000"},
    {"sfc-shift/ra-batch-text", HEAD SFC_HTREE "[sfc-shift]\nra-batch = all\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "sfc-shift", .key = "ra-batch",
     .detail = "'all' is not an integer"},
    {"sfc-shift/unknown-key", HEAD SFC_HTREE "[sfc-shift]\norder = hilbert\n",
     .code = LB_SCENARIO_ERROR_UNKNOWN_KEY, .group = "sfc-shift", .key = "order",
     .detail = "known: curve, threshold, period, collect, merge, operators, levels, tree-update, "
               "sync, ra-batch"},
    {"sfc-shift/set", HEAD SFC_HTREE, .set = "sfc-shift.merge=-1",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "sfc-shift", .key = "merge",
     .detail = "out of range"},
    /* on a field, through its view: a field's random loads are no density */
    {"sfc-shift/field2d", HEAD "[balancers]\nrun = none, sfc-shift\n[workload]\nmodel = field2d\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "as-htree", .key = "pattern",
     .detail = "hotspots, clusters, shock and uniform, not random"},
    {"sfc-shift/array1d", HEAD "[balancers]\nrun = sfc-shift\n", .code = LB_SCENARIO_ERROR_INVALID,
     .group = "balancers", .key = "run",
     .detail = "sfc-shift does not run on model array1d, which does not offer an H-tree (it runs "
               "on: htree)"},
    {"sfc-shift/override-samr", HEAD RUN_NONE "[workload]\nmodel = samr\npattern = hotspots\n",
     .balancer = "sfc-shift", .code = LB_SCENARIO_ERROR_INVALID, .group = "balancers", .key = "run",
     .detail = "--balancer: sfc-shift does not run on model samr, which does not offer an H-tree "
               "(it runs on: htree)"},
    {"move-split/field2d", HEAD "[balancers]\nrun = move-split\n[workload]\nmodel = field2d\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "as-samr", .key = "refine",
     .detail = "pattern random needs refine = LOADS"},
    {"move-split/samr-on-array1d", HEAD "[balancers]\nrun = move-split\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "balancers", .key = "run",
     .detail = "move-split does not run on model array1d, which does not offer a hierarchy of "
               "grids (it runs on: samr)"},
    {"choice/model", HEAD RUN_NONE "[workload]\nmodel = mesh\n", .code = LB_SCENARIO_ERROR_INVALID,
     .group = "workload", .key = "model",
     .detail = "unknown model 'mesh' (known: array1d, field2d, field3d, samr, htree, loop)"},
    {"model/unsupported", HEAD "[balancers]\nrun = none, only-1d\n[workload]\nmodel = field2d\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "balancers", .key = "run",
     .detail = "only-1d does not run on model field2d, which does not offer independent "
               "iterations (it runs on: none)"},
    {"model/unsupported-override", HEAD RUN_NONE "[workload]\nmodel = field3d\n",
     .balancer = "only-1d", .code = LB_SCENARIO_ERROR_INVALID, .group = "balancers", .key = "run",
     .detail = "--balancer: only-1d does not run on model field3d"},
    {"field/size-zero", HEAD RUN_NONE "[workload]\nmodel = field2d\nsize = 0x5\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "size",
     .detail = "'0x5' is not NXxNY of positive integers"},
    {"field/size-3d-for-2d", HEAD RUN_NONE "[workload]\nmodel = field2d\nsize = 4x4x4\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "size", .detail = "NXxNY"},
    {"field/size-text", HEAD RUN_NONE "[workload]\nmodel = field3d\nsize = 8x8xeight\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "size", .detail = "NXxNYxNZ"},
    {"field/size-sign", HEAD RUN_NONE "[workload]\nmodel = field2d\nsize = 8x-8\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "size"},
    {"field/procs-product",
     HEAD RUN_NONE "[workload]\nmodel = field2d\nsize = 64x64\nprocs = 4x8\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "procs",
     .detail = "4x8 makes 32 ranks, but [scenario] ranks is 16"},
    {"field/procs-zero", HEAD RUN_NONE "[workload]\nmodel = field2d\nprocs = 0x16\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "procs", .detail = "'0x16'"},
    {"field/procs-more-than-cells",
     HEAD RUN_NONE "[workload]\nmodel = field2d\nsize = 2x100\nprocs = 4x4\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "procs",
     .detail = "more processors than cells along axis 0"},
    {"field/array-key", HEAD RUN_NONE "[workload]\nmodel = field2d\ndistribution = random\n",
     .code = LB_SCENARIO_ERROR_UNKNOWN_KEY, .group = "workload", .key = "distribution"},
    {"field/file-count",
     HEAD RUN_NONE "[workload]\nmodel = field2d\nsize = 4x4\npattern = file\nfile = loads.txt\n",
     "loads.txt", "1 2 3", .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "file",
     .detail = "holds 3 loads; size gives 16 cells"},
    {"array-key/procs", HEAD RUN_NONE "[workload]\nprocs = 4x4\n",
     .code = LB_SCENARIO_ERROR_UNKNOWN_KEY, .group = "workload", .key = "procs"},
    {"pattern-key/shock", HEAD RUN_NONE "[workload]\npattern = hotspots\nangle = 45\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "angle",
     .detail = "applies to pattern shock, but pattern is hotspots"},
    {"range/hotspots", HEAD RUN_NONE "[workload]\npattern = hotspots\nhotspots = 1001\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "hotspots",
     .detail = "out of range"},
    {"expect/unknown-metric",
     HEAD RUN_NONE "[expect]\nnone.imbalance-after < 2\nmlb.schedule-step <= 10\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "expect", .key = "mlb.schedule-step",
     .detail = ":8: [expect] mlb.schedule-step: mlb has no metric 'schedule-step'"},
    {"expect/metric-of-another", HEAD RUN_NONE "[expect]\nnone.migrate-steps == 0\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "expect", .key = "none.migrate-steps",
     .detail = "none has no metric 'migrate-steps'"},
    {"expect/does-not-apply", HEAD RUN_NONE "[expect]\nnone.schedule_steps <= 3\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "expect", .key = "none.schedule_steps",
     .detail = "none has no metric 'schedule_steps'"},
    {"expect/unknown-balancer-2", HEAD RUN_NONE "[expect]\nlbx.messages == 0\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "expect", .key = "lbx.messages",
     .detail = "unknown balancer 'lbx'"},
    {"expect/relation-unknown-balancer", HEAD RUN_NONE "[expect]\nnone.messages <= lbx.messages\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "expect", .key = "none.messages",
     .detail = "'none.messages <= lbx.messages': unknown balancer 'lbx'"},
    {"expect/relation-unknown-metric",
     HEAD RUN_NONE "[expect]\nnone.messages <= 2 * mlb.schedule-step\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "expect", .key = "none.messages",
     .detail = "mlb has no metric 'schedule_step'"},
    {"choice/mlb", HEAD "[balancers]\nrun = mlb\n[mlb]\ndesired = half\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "mlb", .key = "desired",
     .detail = "'half' is not one of: halving, even"},
    {"choice/mlb-not-run", HEAD RUN_NONE "[mlb]\nphase3 = all\n", .code = LB_SCENARIO_ERROR_INVALID,
     .group = "mlb", .key = "phase3", .detail = "'all'"},
    {"empty-value", HEAD "name =\n" RUN_NONE, .code = LB_SCENARIO_ERROR_INVALID,
     .group = "scenario", .key = "name", .detail = "empty"},
    {"missing/ranks", "[scenario]\nplatform = hypercube-16.xml\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_MISSING, .group = "scenario", .key = "ranks"},
    {"missing/scenario", RUN_NONE, .code = LB_SCENARIO_ERROR_MISSING, .group = "scenario",
     .key = "ranks"},
    {"missing/platform", "[scenario]\nranks = 16\n" RUN_NONE, .code = LB_SCENARIO_ERROR_MISSING,
     .group = "scenario", .key = "platform"},
    {"missing/run", HEAD, .code = LB_SCENARIO_ERROR_MISSING, .group = "balancers", .key = "run"},
    {"missing/run-empty", HEAD "[balancers]\nrun = ,\n", .code = LB_SCENARIO_ERROR_MISSING,
     .group = "balancers", .key = "run", .detail = "names no balancer"},
    {"platform/not-found", "[scenario]\nplatform = no-such-machine.xml\nranks = 16\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_PLATFORM, .group = "scenario", .key = "platform",
     .detail = "'no-such-machine.xml' not found (looked for", .absent = "--platform"},
    {"platform/absolute",
     "[scenario]\nplatform = /no/such/dir/hypercube-16.xml\nranks = 16\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_PLATFORM, .group = "scenario", .key = "platform",
     .detail = "'/no/such/dir/hypercube-16.xml' not found", .absent = "/platforms/"},
    {"platform/absolute-not-searched", /* an absolute path is not looked up in platforms/ */
     "[scenario]\nplatform = /hypercube-16.xml\nranks = 16\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_PLATFORM, .group = "scenario", .key = "platform"},
    {"platform/folder", "[scenario]\nplatform = sub\nranks = 16\n" RUN_NONE, "sub/x.xml", "x",
     .code = LB_SCENARIO_ERROR_PLATFORM, .group = "scenario", .key = "platform"},
    {"pattern-key/hotspots", HEAD RUN_NONE "[workload]\npattern = random\nhotspots = 3\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "hotspots",
     .detail = "applies to pattern hotspots, but pattern is random"},
    {"pattern-key/default-pattern", HEAD RUN_NONE "[workload]\nvalue = 4\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "value",
     .detail = "but pattern is random"},
    {"pattern-key/drift", HEAD RUN_NONE "[workload]\npattern = ramp\ndrift = 0.1\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "drift",
     .detail = "hotspots|step|shock"},
    {"pattern-key/file", HEAD RUN_NONE "[workload]\npattern = uniform\nfile = loads.txt\n",
     "loads.txt", "1 2 3", .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "file"},
    {"pattern-key/set", HEAD RUN_NONE "[workload]\nmin = 5\n", .set = "workload.hotspots=3",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "hotspots",
     .detail = "but pattern is random"},
    {"size/memory", HEAD RUN_NONE "[workload]\nsize = 5000000000\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "size",
     .detail = "5000000000 units need about 186.3 GiB"},
    {"size/total-load",
     HEAD RUN_NONE "[workload]\nsize = 10000\npattern = uniform\n"
                   "value = 1000000000000000\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "size",
     .detail = "the total load may reach 1e+19, beyond the 2^62"},
    {"min-max", HEAD RUN_NONE "[workload]\npattern = random\nmin = 10\nmax = 5\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "min",
     .detail = "min (10) is larger than max (5)"},
    {"min-max/by-one", HEAD RUN_NONE "[workload]\nmin = 6\nmax = 5\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "min",
     .detail = "min (6) is larger than max (5)"},
    {"file/no-file", HEAD RUN_NONE "[workload]\npattern = file\n",
     .code = LB_SCENARIO_ERROR_MISSING, .group = "workload", .key = "file"},
    {"file/size", HEAD RUN_NONE "[workload]\npattern = file\nfile = loads.txt\nsize = 3\n",
     "loads.txt", "1 2 3", .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "size"},
    {"file/not-found", HEAD RUN_NONE "[workload]\npattern = file\nfile = nope.txt\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "file", .detail = "nope.txt"},
    {"file/bad-content", HEAD RUN_NONE "[workload]\npattern = file\nfile = loads.txt\n",
     "loads.txt", "1 2\n3 x\n", .code = LB_SCENARIO_ERROR_INVALID, .group = "workload",
     .key = "file", .detail = "loads.txt:2:"},
    {"file/negative", HEAD RUN_NONE "[workload]\npattern = file\nfile = loads.txt\n", "loads.txt",
     "-1\n", .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "file",
     .detail = "loads.txt:1:"},
    {"file/empty", HEAD RUN_NONE "[workload]\npattern = file\nfile = loads.txt\n", "loads.txt",
     "\n", .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "file",
     .detail = "holds no loads"},
    {"distribution/count",
     HEAD RUN_NONE "[workload]\nsize = 100\ndistribution = file\ndistribution-file = counts.txt\n",
     "counts.txt", "10 10 10 10 10 10 10 10 10 10 0 0 0 0 0\n", .code = LB_SCENARIO_ERROR_INVALID,
     .group = "workload", .key = "distribution-file", .detail = "holds 15 counts summing to 100"},
    {"distribution/sum",
     HEAD RUN_NONE "[workload]\nsize = 100\ndistribution = file\ndistribution-file = counts.txt\n",
     "counts.txt", "10 10 10 10 10 10 10 10 10 9 0 0 0 0 0 0\n", .code = LB_SCENARIO_ERROR_INVALID,
     .group = "workload", .key = "distribution-file", .detail = "summing to 99"},
    {"distribution/ranks-override",
     HEAD RUN_NONE "[workload]\nsize = 16\ndistribution = file\ndistribution-file = counts.txt\n",
     "counts.txt", "1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1\n", .ranks = 8,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "distribution-file",
     .detail = "expected 8 counts"},
    {"distribution/bad-content",
     HEAD RUN_NONE "[workload]\nsize = 16\ndistribution = file\ndistribution-file = counts.txt\n",
     "counts.txt", "1 -2\n", .code = LB_SCENARIO_ERROR_INVALID, .group = "workload",
     .key = "distribution-file", .detail = "counts.txt:1:"},
    {"distribution/no-file", HEAD RUN_NONE "[workload]\ndistribution = file\n",
     .code = LB_SCENARIO_ERROR_MISSING, .group = "workload", .key = "distribution-file"},
    {"distribution/file-with-block", HEAD RUN_NONE "[workload]\ndistribution-file = counts.txt\n",
     "counts.txt", "1", .code = LB_SCENARIO_ERROR_INVALID, .group = "workload",
     .key = "distribution-file", .detail = "distribution is block"},
    {"balancer/unknown", HEAD "[balancers]\nrun = none, bogus\n", .code = LB_SCENARIO_ERROR_INVALID,
     .group = "balancers", .key = "run", .detail = "unknown balancer 'bogus' (known: none, mlb"},
    {"balancer/override-unknown", HEAD RUN_NONE, .balancer = "bogus",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "balancers", .key = "run",
     .detail = "--balancer: unknown balancer 'bogus'"},
    {"balancer/twice", HEAD "[balancers]\nrun = mlb; none; mlb\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "balancers", .key = "run",
     .detail = "'mlb' is listed twice"},
    {"mlb/ranks-12",
     "[scenario]\nplatform = hypercube-16.xml\nranks = 12\n[balancers]\nrun = none, mlb\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "ranks",
     .detail = "12 is not a power of two"},
    {"mlb/ranks-override", HEAD "[balancers]\nrun = mlb\n", .ranks = 6,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "ranks",
     .detail = "6 is not a power of two"},
    {"mlb/balancer-override", "[scenario]\nplatform = hypercube-16.xml\nranks = 12\n" RUN_NONE,
     .balancer = "mlb", .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "ranks",
     .detail = "power of two"},
    {"expect/no-operator", HEAD RUN_NONE "[expect]\nnone.imbalance-after 1.5\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "expect", .key = "none.imbalance-after",
     .detail = "needs a comparison"},
    {"expect/equals-only", HEAD RUN_NONE "[expect]\nnone.imbalance-after = 1.5\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "expect", .key = "none.imbalance-after",
     .detail = "needs a comparison"},
    {"expect/not-a-number", HEAD RUN_NONE "[expect]\nnone.imbalance-after <= one\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "expect", .key = "none.imbalance-after",
     .detail = "does not compare with a number"},
    {"expect/trailing", HEAD RUN_NONE "[expect]\nnone.imbalance-after <= 1.5x\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "expect", .key = "none.imbalance-after",
     .detail = "does not compare with a number"},
    {"expect/no-number", HEAD RUN_NONE "[expect]\nnone.imbalance-after >=\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "expect", .key = "none.imbalance-after"},
    {"expect/no-dot", HEAD RUN_NONE "[expect]\nimbalance-after <= 2\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "expect", .key = "imbalance-after",
     .detail = "is not BALANCER.METRIC"},
    {"expect/unknown-balancer", HEAD RUN_NONE "[expect]\nrcb.steps <= 3\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "expect", .key = "rcb.steps",
     .detail = "unknown balancer 'rcb'"},
    {"expect/set", HEAD RUN_NONE, .set = "expect.mlb.steps=3", .code = LB_SCENARIO_ERROR_INVALID,
     .group = "expect", .key = "mlb.steps", .detail = "needs a comparison"},
    {"set/no-equals", HEAD RUN_NONE, .set = "workload.pattern", .code = LB_SCENARIO_ERROR_INVALID,
     .detail = "--set workload.pattern: expected GROUP.KEY=VALUE"},
    {"set/no-dot", HEAD RUN_NONE, .set = "ranks=4", .code = LB_SCENARIO_ERROR_INVALID,
     .detail = "--set ranks=4: expected GROUP.KEY=VALUE"},
    {"set/dot-in-value", HEAD RUN_NONE, .set = "name=a.b", .code = LB_SCENARIO_ERROR_INVALID,
     .detail = "--set name=a.b:"},
    {"set/no-group", HEAD RUN_NONE, .set = ".ranks=4", .code = LB_SCENARIO_ERROR_INVALID,
     .detail = "--set .ranks=4:"},
    {"set/no-key", HEAD RUN_NONE, .set = "scenario.=4", .code = LB_SCENARIO_ERROR_INVALID,
     .detail = "--set scenario.=4:"},
    {"set/bare-word", HEAD RUN_NONE, .set = "ranks", .code = LB_SCENARIO_ERROR_INVALID,
     .detail = "--set ranks: expected GROUP.KEY=VALUE"},
    {"set/space-after-dot", HEAD RUN_NONE, .set = "scenario. ranks=8",
     .code = LB_SCENARIO_ERROR_INVALID,
     .detail = "--set scenario. ranks=8: expected GROUP.KEY=VALUE"},
    {"set/space-in-key", HEAD RUN_NONE, .set = "scenario.ra nks=8",
     .code = LB_SCENARIO_ERROR_INVALID, .detail = "letters, digits, '-' and '_'"},
    {"set/brackets", HEAD RUN_NONE, .set = "[scenario].ranks=8", .code = LB_SCENARIO_ERROR_INVALID,
     .detail = "--set [scenario].ranks=8: expected GROUP.KEY=VALUE"},
    {"set/locale-key", HEAD RUN_NONE, .set = "scenario.ranks[de]=8",
     .code = LB_SCENARIO_ERROR_INVALID, .detail = "--set scenario.ranks[de]=8: expected"},
    {"set/dot-in-key", HEAD RUN_NONE, .set = "scenario.ranks.x=8",
     .code = LB_SCENARIO_ERROR_INVALID, .detail = "expected GROUP.KEY=VALUE"},
    {"set/bad-value", HEAD RUN_NONE, .set = "scenario.steps=many",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "steps",
     .detail = "'many' is not an integer"},
    {"set/unknown-group", HEAD RUN_NONE, .set = "workloads.size=4",
     .code = LB_SCENARIO_ERROR_UNKNOWN_GROUP, .group = "workloads"},
    {"background/share-zero", HEAD "background = n0:0\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "background",
     .detail = "'n0:0': the share '0' is not a number in (0, 1]"},
    {"background/share-above-one", HEAD "background = n0-n3:1.01\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "background",
     .detail = "the share '1.01' is not a number in (0, 1]"},
    {"background/share-negative", HEAD "background = n0:-0.5\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "background",
     .detail = "the share '-0.5'"},
    {"background/share-nan", HEAD "background = n0:nan\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "background",
     .detail = "the share 'nan'"},
    {"background/share-missing", HEAD "background = n0:@1-2\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "background",
     .detail = "the share ''"},
    {"background/share-words", HEAD "background = n0:half\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "background",
     .detail = "the share 'half'"},
    {"background/no-colon", HEAD "background = n0\n" RUN_NONE, .code = LB_SCENARIO_ERROR_INVALID,
     .group = "scenario", .key = "background", .detail = "'n0': expected HOSTS:SHARE[@START-END]"},
    {"background/no-host", HEAD "background = :0.5\n" RUN_NONE, .code = LB_SCENARIO_ERROR_INVALID,
     .group = "scenario", .key = "background", .detail = "no host before ':'"},
    {"background/end-before-start", HEAD "background = n1:0.5@2-1\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "background",
     .detail = "'n1:0.5@2-1': the load must end after it starts (END > START)"},
    {"background/end-equals-start", HEAD "background = n1:0.5@1.5-1.5\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "background",
     .detail = "END > START"},
    {"background/no-dash", HEAD "background = n1:0.5@1\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "background",
     .detail = "expected @START-END or @START-"},
    {"background/negative-start", HEAD "background = n1:0.5@-1-2\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "background",
     .detail = "expected @START-END or @START-"},
    {"background/bad-end", HEAD "background = n1:0.5@1-soon\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "background",
     .detail = "expected @START-END or @START-"},
    {"background/infinite-end", HEAD "background = n1:0.5@1-inf\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "background",
     .detail = "expected @START-END or @START-"},
    {"background/empty-entry", HEAD "background = n0:0.5,,n1:0.5\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "background",
     .detail = "entry 2 of the list is empty"},
    {"background/trailing-comma", HEAD "background = n0:0.5,\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "background",
     .detail = "entry 2 of the list is empty"},
    {"background/backwards-range", HEAD "background = n7-n3:0.5\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "background",
     .detail = "the range n7-n3 runs backwards"},
    {"background/overlap", HEAD "background = n0-n3:0.5, n2:0.25@1-2\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "background",
     .detail = "n2 is loaded twice at once, by 'n0-n3:0.5' and by 'n2:0.25@1-2'"},
    {"background/overlap-open-end", HEAD "background = n5:0.5@3-, n5:0.5@1-4\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "background",
     .detail = "n5 is loaded twice at once, by 'n5:0.5@3-' and by 'n5:0.5@1-4'"},
    {"background/set", HEAD RUN_NONE, .set = "scenario.background=n0:2",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "background",
     .detail = "the share '2'"},
    {"background/hex-share", HEAD "background = n0:0x1p-1\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "background",
     .detail = "the share '0x1p-1' is not a number"},
    {"background/hex-time", HEAD "background = n0:0.5@0x10-\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "background",
     .detail = "expected @START-END"},
    /* numbers are finite decimals: what else strtod reads would pass the
     * load and then fail or mislead every run */
    {"expect/nan", HEAD RUN_NONE "[expect]\nnone.messages <= nan\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "expect", .key = "none.messages",
     .detail = "'none.messages <= nan' does not compare with a number"},
    {"expect/inf", HEAD RUN_NONE "[expect]\nnone.messages < inf\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "expect", .key = "none.messages",
     .detail = "does not compare with a number"},
    {"expect/hex", HEAD RUN_NONE "[expect]\nnone.messages == 0x1p3\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "expect", .key = "none.messages",
     .detail = "'none.messages == 0x1p3'"},
    {"expect/set-infinity", HEAD RUN_NONE, .set = "expect.none.messages=>= -infinity",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "expect", .key = "none.messages",
     .detail = "does not compare with a number"},
    {"bad-number/hex", HEAD RUN_NONE "[workload]\npattern = hotspots\nwidth = 0x1p-5\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "width",
     .detail = "'0x1p-5' is not a number"},
    {"bad-number/set-inf", HEAD RUN_NONE "[workload]\npattern = hotspots\n",
     .set = "workload.amplitude=inf", .code = LB_SCENARIO_ERROR_INVALID, .group = "workload",
     .key = "amplitude", .detail = "'inf' is not a number"},
    {"bad-number/set-nan", HEAD RUN_NONE, .set = "scenario.steps=nan",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "steps",
     .detail = "'nan' is not an integer"},
    {"bad-number/no-digits", HEAD RUN_NONE "[workload]\npattern = hotspots\nwidth = .e5\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "width",
     .detail = "'.e5' is not a number"},
    /* 2^53 + 1 is 2^53 as a double */
    {"range/seed-2^53+1", HEAD "seed = 9007199254740993\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "seed",
     .detail = "9007199254740993 is out of range 0 .. 9007199254740992"},
    {"range/seed-2^63", HEAD "seed = 9223372036854775808\n" RUN_NONE,
     .code = LB_SCENARIO_ERROR_INVALID, .group = "scenario", .key = "seed",
     .detail = "not an integer"},
    {"run/empty-item", HEAD "[balancers]\nrun = none,,mlb\n", .code = LB_SCENARIO_ERROR_INVALID,
     .group = "balancers", .key = "run", .detail = "item 2 of the list is empty"},
    {"run/trailing-comma", HEAD "[balancers]\nrun = none;\n", .code = LB_SCENARIO_ERROR_INVALID,
     .group = "balancers", .key = "run", .detail = "item 2 of the list is empty"},
    {"run/set-empty-item", HEAD RUN_NONE, .set = "balancers.run=,none",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "balancers", .key = "run",
     .detail = "item 1 of the list is empty"},
    {"samr/refine-empty-item",
     HEAD RUN_NONE "[workload]\nmodel = samr\nsize = 16x16\nlevels = 2\nrefine = 5,\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "refine",
     .detail = "item 2 of the list is empty"},
    {"workload/file-folder", HEAD RUN_NONE "[workload]\npattern = file\nfile = loads\n",
     .aux_name = "loads/inside.txt", .aux_text = "1 2 3\n", .code = LB_SCENARIO_ERROR_INVALID,
     .group = "workload", .key = "file", .detail = "loads: a folder, not a regular file"},
    {"samr/hierarchy-folder",
     HEAD RUN_NONE "[workload]\nmodel = samr\nsize = 16x16\nhierarchy = grids\n",
     .aux_name = "grids/inside.txt", .aux_text = "0 0 0 0 16 16\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "hierarchy",
     .detail = "grids: a folder, not a regular file"},
    {"loop/cost-file-folder",
     HEAD RUN_NONE "[workload]\nmodel = loop\ncost = file\ncost-file = costs\n",
     .aux_name = "costs/inside.txt", .aux_text = "1\n", .code = LB_SCENARIO_ERROR_INVALID,
     .group = "workload", .key = "cost-file", .detail = "costs: a folder, not a regular file"},
    {"memory/htree-elements",
     HEAD RUN_NONE "[workload]\nmodel = htree\nelements = 1000000000\nleaf-elements = 0\n"
                   "max-level = 24\npattern = uniform\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "elements",
     .detail = "more than this machine's"},
    {"memory/samr-levels",
     HEAD RUN_NONE "[workload]\nmodel = samr\nsize = 64x64x64\nlevels = 7\nfactor = 16\n"
                   "pattern = hotspots\n",
     .code = LB_SCENARIO_ERROR_INVALID, .group = "workload", .key = "levels",
     .detail = "more than this machine's"},
};

static void
test_error(Fixture *f, gconstpointer data)
{
  const ErrorCase *c = data;
  if (c->aux_name != NULL)
    g_free(write_file(f, c->aux_name, c->aux_text));
  g_autofree char *path = write_file(f, "bad.ini", c->text);
  const char *sets[] = {c->set, NULL};
  LbScenarioOverrides ov = {.ranks = c->ranks, .balancer = c->balancer, .sets = sets};
  g_autoptr(GError) error = NULL;
  g_autoptr(LbScenario) sc = lb_scenario_load(path, &ov, &error);
  g_assert_null(sc);
  g_assert_error(error, LB_SCENARIO_ERROR, c->code);
  g_test_message("%s", error->message);
  g_assert_true(g_str_has_prefix(error->message, path));
  if (c->group != NULL) {
    g_autofree char *where = c->key != NULL ? g_strdup_printf(": [%s] %s: ", c->group, c->key)
                                            : g_strdup_printf(": [%s]: ", c->group);
    g_assert_nonnull(strstr(error->message, where));
  } else if (c->code != LB_SCENARIO_ERROR_PARSE && (c->set == NULL || !strchr(c->set, '['))) {
    g_assert_null(strstr(error->message, "[")); /* no group to name */
  }
  if (c->detail != NULL)
    g_assert_nonnull(strstr(error->message, c->detail));
  if (c->absent != NULL)
    g_assert_null(strstr(error->message, c->absent));
}

static void
test_error_unreadable(Fixture *f, gconstpointer data)
{
  g_autofree char *missing = g_build_filename(f->dir, "missing.ini", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbScenario) sc = lb_scenario_load(missing, NULL, &error);
  g_assert_null(sc);
  g_assert_error(error, LB_SCENARIO_ERROR, LB_SCENARIO_ERROR_PARSE);
  g_assert_true(g_str_has_prefix(error->message, missing));

  g_autoptr(GError) error2 = NULL;
  g_autoptr(LbScenario) sc2 = lb_scenario_load(f->dir, NULL, &error2); /* a folder */
  g_assert_null(sc2);
  g_assert_error(error2, LB_SCENARIO_ERROR, LB_SCENARIO_ERROR_PARSE);
  g_assert_true(g_str_has_prefix(error2->message, f->dir));
}

/* A NUL byte would end the text where it is, and what follows (an [expect]
 * group here) would go unseen: the scenario and the SAMR hierarchy file it
 * names are refused, with the line. */
static void
test_error_nul_byte(Fixture *f, gconstpointer data)
{
  (void)data;
  static const char scenario[] =
      HEAD RUN_NONE "# a comment\0with a NUL\n[expect]\nnone.messages > 0\n";
  g_autofree char *path = g_build_filename(f->dir, "nul.ini", NULL);
  g_assert_true(g_file_set_contents(path, scenario, sizeof scenario - 1, NULL));
  g_autoptr(GError) error = NULL;
  g_autoptr(LbScenario) sc = lb_scenario_load(path, NULL, &error);
  g_assert_null(sc);
  g_assert_error(error, LB_SCENARIO_ERROR, LB_SCENARIO_ERROR_PARSE);
  g_autofree char *where = g_strdup_printf("%s:6: a NUL byte", path);
  g_assert_cmpstr(strstr(error->message, where), ==, error->message);

  static const char hierarchy[] = "0 0 0 0 16 16\n1 1 0\0 0 8 8\n";
  g_autofree char *h = g_build_filename(f->dir, "h.txt", NULL);
  g_assert_true(g_file_set_contents(h, hierarchy, sizeof hierarchy - 1, NULL));
  g_autofree char *with_h = write_file(
      f, "samr.ini", HEAD RUN_NONE "[workload]\nmodel = samr\nsize = 16x16\nhierarchy = h.txt\n");
  g_autoptr(GError) error2 = NULL;
  g_autoptr(LbScenario) sc2 = lb_scenario_load(with_h, NULL, &error2);
  g_assert_null(sc2);
  g_assert_error(error2, LB_SCENARIO_ERROR, LB_SCENARIO_ERROR_INVALID);
  g_test_message("%s", error2->message);
  g_assert_nonnull(strstr(error2->message, "[workload] hierarchy: "));
  g_assert_nonnull(strstr(error2->message, "h.txt:2: a NUL byte"));
}

/* A FIFO named as a workload's file is refused at once, not opened and
 * waited on. */
static void
test_error_fifo(Fixture *f, gconstpointer data)
{
  (void)data;
  static const struct {
    const char *workload, *key;
  } cases[] = {
      {"pattern = file\nfile = pipe\n", "file"},
      {"model = samr\nsize = 16x16\nhierarchy = pipe\n", "hierarchy"},
      {"model = loop\ncost = file\ncost-file = pipe\n", "cost-file"},
  };
  g_autofree char *pipe = g_build_filename(f->dir, "pipe", NULL);
  g_assert_cmpint(mkfifo(pipe, 0600), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *text = g_strconcat(HEAD RUN_NONE "[workload]\n", cases[i].workload, NULL);
    g_autofree char *path = write_file(f, "fifo.ini", text);
    g_autoptr(GError) error = NULL;
    g_autoptr(LbScenario) sc = lb_scenario_load(path, NULL, &error);
    g_assert_null(sc);
    g_assert_error(error, LB_SCENARIO_ERROR, LB_SCENARIO_ERROR_INVALID);
    g_autofree char *where =
        g_strdup_printf("%s: [workload] %s: %s: a FIFO", path, cases[i].key, pipe);
    g_assert_cmpstr(strstr(error->message, where), ==, error->message);
  }
}

/* An editor's UTF-8 byte-order mark before the first group is no part of
 * its name; seeds reach exactly 2^53. */
static void
test_bom_and_seed(Fixture *f, gconstpointer data)
{
  (void)data;
  g_autofree char *path =
      write_file(f, "bom.ini", "\xef\xbb\xbf" HEAD "seed = 9007199254740992\n" RUN_NONE);
  g_autoptr(LbScenario) sc = load_ok(path, NULL);
  g_assert_cmpuint(sc->ranks, ==, 16);
  g_assert_cmpuint(sc->seed, ==, G_GUINT64_CONSTANT(9007199254740992));
  /* only at the very start */
  g_autofree char *late = write_file(f, "late.ini", HEAD RUN_NONE "\xef\xbb\xbf[expect]\n");
  g_autoptr(GError) error = NULL;
  g_autoptr(LbScenario) none = lb_scenario_load(late, NULL, &error);
  g_assert_null(none);
  g_assert_nonnull(error);
}

/* What a scenario may need: its work's estimate and, per balancer run,
 * LB_STEP_BYTES a step. */
static void
test_memory(Fixture *f, gconstpointer data)
{
  (void)data;
  g_autofree char *path = write_file(f, "m.ini",
                                     HEAD "steps = 100000\n[balancers]\nrun = none, mlb\n"
                                          "[workload]\nsize = 1000\n");
  g_autoptr(LbScenario) sc = load_ok(path, NULL);
  g_assert_cmpfloat(sc->work->memory, ==, 1000 * 40.0);
  g_assert_cmpfloat(sc->memory, ==, 1000 * 40.0 + 100000 * 2 * 1024.0);
  g_assert_cmpfloat(lb_machine_memory(), >, 0);
}

/* ---- [expect] lines ---- */

static void
test_expect_parse(void)
{
  static const struct {
    const char *key, *value;
    LbExpectOp op;
    double bound;
    const char *balancer, *metric, *text;
  } good[] = {
      {"mlb.schedule-steps", "<= 10", LB_EXPECT_LE, 10, "mlb", "schedule_steps",
       "mlb.schedule_steps <= 10"},
      {"mlb.x", "<3", LB_EXPECT_LT, 3, "mlb", "x", "mlb.x < 3"},
      {"none.imbalance-after", "  >=  1.5  ", LB_EXPECT_GE, 1.5, "none", "imbalance_after",
       "none.imbalance_after >= 1.5"},
      {"a.b-c-d", "> -2e3", LB_EXPECT_GT, -2000, "a", "b_c_d", "a.b_c_d > -2e3"},
      {"mlb.bytes_moved", "==0", LB_EXPECT_EQ, 0, "mlb", "bytes_moved", "mlb.bytes_moved == 0"},
      {"x.y.z", "<= .5", LB_EXPECT_LE, 0.5, "x", "y.z", "x.y.z <= .5"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(good); i++) {
    LbExpect *e = NULL;
    g_autoptr(GError) error = NULL;
    g_assert_true(lb_expect_parse(good[i].key, good[i].value, &e, &error));
    g_assert_no_error(error);
    assert_expect(e, good[i].balancer, good[i].metric, good[i].op, good[i].bound, good[i].text);
    lb_expect_free(e);
  }

  static const struct {
    const char *key, *value;
  } bad[] = {
      {"steps", "<= 10"},        {".steps", "<= 10"},
      {"mlb.", "<= 10"},         {"mlb.steps", "10"},
      {"mlb.steps", "= 10"},     {"mlb.steps", "=< 10"},
      {"mlb.steps", "=> 10"},    {"mlb.steps", "<="},
      {"mlb.steps", "<= ten +"}, {"mlb.steps", "<= 10 apples"},
      {"mlb.steps", "<= 1e999"}, {"mlb.steps", ""},
      {"mlb.steps", "<> 3"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    LbExpect *e = NULL;
    g_autoptr(GError) error = NULL;
    g_assert_false(lb_expect_parse(bad[i].key, bad[i].value, &e, &error));
    g_assert_null(e);
    g_assert_error(error, LB_SCENARIO_ERROR, LB_SCENARIO_ERROR_INVALID);
    g_assert_nonnull(strstr(error->message, bad[i].key));
  }
  /* a bare name parses as a formula: whether the scenario has it is the
   * scenario's check (expect/not-a-number) */
  LbExpect *named = NULL;
  g_assert_true(lb_expect_parse("mlb.steps", "<= ten", &named, NULL));
  g_assert_nonnull(named->formula);
  lb_expect_free(named);
  lb_expect_free(NULL);
}

/* ---- [scenario] background ---- */

static void
assert_load(const GArray *loads, guint i, const char *host, double share, double start, double end,
            guint entry)
{
  g_assert_cmpuint(i, <, loads->len);
  const LbBackground *load = &g_array_index(loads, LbBackground, i);
  g_assert_cmpstr(load->host, ==, host);
  g_assert_cmpfloat(load->share, ==, share);
  g_assert_cmpfloat(load->start, ==, start);
  g_assert_cmpfloat(load->end, ==, end);
  g_assert_cmpuint(load->entry, ==, entry);
}

static GArray *
parse_ok(const char *text)
{
  g_autoptr(GError) error = NULL;
  GArray *loads = lb_background_parse(text, &error);
  g_assert_no_error(error);
  g_assert_nonnull(loads);
  return loads;
}

static void
test_background_parse(void)
{
  g_autoptr(GArray) example = parse_ok("n0-n3:0.5, n9:0.25@0.5-2.0");
  g_assert_cmpuint(example->len, ==, 5);
  for (guint i = 0; i < 4; i++) {
    g_autofree char *host = g_strdup_printf("n%u", i);
    assert_load(example, i, host, 0.5, 0, INFINITY, 0);
  }
  assert_load(example, 4, "n9", 0.25, 0.5, 2.0, 1);

  g_autoptr(GArray) open_end = parse_ok("  node-7 : 1 @ 1e-3- ");
  g_assert_cmpuint(open_end->len, ==, 1);
  assert_load(open_end, 0, "node-7", 1, 1e-3, INFINITY, 0);

  /* a range keeps its prefix, dashes and all; one name with a dash is a name */
  g_autoptr(GArray) prefixed = parse_ok("rack-2-h9-rack-2-h11:.75@.5-1,rack-3:0.1");
  g_assert_cmpuint(prefixed->len, ==, 4);
  assert_load(prefixed, 0, "rack-2-h9", 0.75, 0.5, 1, 0);
  assert_load(prefixed, 2, "rack-2-h11", 0.75, 0.5, 1, 0);
  assert_load(prefixed, 3, "rack-3", 0.1, 0, INFINITY, 1);

  /* different prefixes, or a leading zero: not a range, one name */
  g_autoptr(GArray) names = parse_ok("a1-b2:0.5,n01-n03:0.5,n3-n3:0.5");
  g_assert_cmpuint(names->len, ==, 3);
  assert_load(names, 0, "a1-b2", 0.5, 0, INFINITY, 0);
  assert_load(names, 1, "n01-n03", 0.5, 0, INFINITY, 1);
  assert_load(names, 2, "n3", 0.5, 0, INFINITY, 2);

  /* one host loaded one period after another: meeting ends do not overlap */
  g_autoptr(GArray) successive = parse_ok("n1:0.5@0-1, n1:0.25@1-2, n1:0.75@2-");
  g_assert_cmpuint(successive->len, ==, 3);
  assert_load(successive, 1, "n1", 0.25, 1, 2, 1);

  g_autoptr(GArray) none = parse_ok("   ");
  g_assert_cmpuint(none->len, ==, 0);

  static const char *const bad[] = {
      "n0",        "n0:0",    "n0:1.5",      "n0:0.5@",        "n0:0.5@1",     "n0:0.5@2-1",
      "n0:0.5,",   ",n0:0.5", "n0:0.5@1-2x", "n2-n1:0.5",      "n0:0.5;n1:.5", "n0:0.5,n0:0.5",
      "n0:0.5@-1", "n0:inf",  "n0:0.5@nan-", "n0:0.5@0-1e999",
  };
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autoptr(GError) error = NULL;
    GArray *loads = lb_background_parse(bad[i], &error);
    g_assert_null(loads);
    g_assert_error(error, LB_SCENARIO_ERROR, LB_SCENARIO_ERROR_INVALID);
    g_test_message("%s: %s", bad[i], error->message);
  }
}

static void
test_background_load(Fixture *f, gconstpointer data)
{
  g_autofree char *path =
      write_file(f, "bg.ini", HEAD "background = n0-n1:0.5 , n3:0.25@1-2  ; busy\n" RUN_NONE);
  g_autoptr(LbScenario) sc = load_ok(path, NULL);
  g_assert_cmpstr(sc->background, ==, "n0-n1:0.5 , n3:0.25@1-2");
  g_assert_cmpuint(sc->loads->len, ==, 3);
  assert_load(sc->loads, 0, "n0", 0.5, 0, INFINITY, 0);
  assert_load(sc->loads, 1, "n1", 0.5, 0, INFINITY, 0);
  assert_load(sc->loads, 2, "n3", 0.25, 1, 2, 1);

  /* --set replaces it */
  const char *const sets[] = {"scenario.background=n2:0.5@3-", NULL};
  LbScenarioOverrides ov = {.sets = sets};
  g_autoptr(LbScenario) set = load_ok(path, &ov);
  g_assert_cmpstr(set->background, ==, "n2:0.5@3-");
  g_assert_cmpuint(set->loads->len, ==, 1);
  assert_load(set->loads, 0, "n2", 0.5, 3, INFINITY, 0);
}

static gboolean
holds(const char *value, double actual)
{
  LbExpect *e = NULL;
  g_assert_true(lb_expect_parse("mlb.m", value, &e, NULL));
  g_assert_null(e->other_balancer);
  gboolean result = lb_expect_holds(e, actual, e->value);
  lb_expect_free(e);
  return result;
}

static void
test_expect_holds(void)
{
  double below = nextafter(10, 0), above = nextafter(10, 20);
  g_assert_true(holds("<= 10", below));
  g_assert_true(holds("<= 10", 10));
  g_assert_false(holds("<= 10", above));
  g_assert_true(holds("< 10", below));
  g_assert_false(holds("< 10", 10));
  g_assert_false(holds("< 10", above));
  g_assert_false(holds(">= 10", below));
  g_assert_true(holds(">= 10", 10));
  g_assert_true(holds(">= 10", above));
  g_assert_false(holds("> 10", below));
  g_assert_false(holds("> 10", 10));
  g_assert_true(holds("> 10", above));
  g_assert_false(holds("== 10", below));
  g_assert_true(holds("== 10", 10));
  g_assert_false(holds("== 10", above));

  /* the bound as written and the same literal in a result compare equal */
  g_assert_true(holds("<= 1.02", 1.02));
  g_assert_false(holds("< 1.02", 1.02));
  g_assert_true(holds(">= -0.5", -0.5));
  g_assert_true(holds("== 0", -0.0));
  g_assert_false(holds("<= 5", NAN)); /* a missing number fails every check */
  g_assert_false(holds(">= 5", NAN));

  /* relations between runs: the factor and the other run's metric, the
   * bound then the factor times that run's value */
  static const struct {
    const char *value, *balancer, *metric;
    double factor;
  } relations[] = {
      {"< enzo-original.total-time", "enzo-original", "total_time", 1},
      {"<= 0.8 * enzo-original.imbalance-ratio", "enzo-original", "imbalance_ratio", 0.8},
      {">=2*dls:fac.cost", "dls:fac", "cost", 2},
  };
  for (guint i = 0; i < G_N_ELEMENTS(relations); i++) {
    LbExpect *e = NULL;
    g_assert_true(lb_expect_parse("move-split.total-time", relations[i].value, &e, NULL));
    g_assert_cmpstr(e->other_balancer, ==, relations[i].balancer);
    g_assert_cmpstr(e->other_metric, ==, relations[i].metric);
    g_assert_cmpfloat(e->value, ==, relations[i].factor);
    lb_expect_free(e);
  }
  LbExpect *rel = NULL;
  g_assert_true(lb_expect_parse("a.m", "<= 0.8 * b.m", &rel, NULL));
  g_assert_true(lb_expect_holds(rel, 8, 0.8 * 10));
  g_assert_false(lb_expect_holds(rel, 8.5, 0.8 * 10));
  g_assert_cmpstr(rel->text, ==, "a.m <= 0.8 * b.m");
  lb_expect_free(rel);
  static const char *const not_relations[] = {"< b.", "< .m", "< 0.8 * ", "< b m"};
  for (guint i = 0; i < G_N_ELEMENTS(not_relations); i++) {
    LbExpect *e = NULL;
    g_autoptr(GError) error = NULL;
    g_assert_false(lb_expect_parse("a.m", not_relations[i], &e, &error));
    g_assert_nonnull(strstr(error->message, "another run's metric or a formula"));
  }
  /* not relations but formulas, whose names the scenario checks */
  static const char *const formulas[] = {"< x * b.m", "< 0.8 * b.m * 2", "< nan * b.m"};
  for (guint i = 0; i < G_N_ELEMENTS(formulas); i++) {
    LbExpect *e = NULL;
    g_assert_true(lb_expect_parse("a.m", formulas[i], &e, NULL));
    g_assert_nonnull(e->formula);
    g_assert_null(e->other_balancer);
    lb_expect_free(e);
  }

  static const LbExpectOp ops[] = {LB_EXPECT_LE, LB_EXPECT_LT, LB_EXPECT_GE, LB_EXPECT_GT,
                                   LB_EXPECT_EQ};
  static const char *const texts[] = {"<=", "<", ">=", ">", "=="};
  for (guint i = 0; i < G_N_ELEMENTS(ops); i++) {
    g_assert_cmpstr(lb_expect_op_text(ops[i]), ==, texts[i]);
    g_autofree char *value = g_strdup_printf("%s 7", lb_expect_op_text(ops[i]));
    LbExpect *e = NULL;
    g_assert_true(lb_expect_parse("none.x", value, &e, NULL));
    g_assert_cmpint(e->op, ==, ops[i]);
    lb_expect_free(e);
  }
}

static void
only_1d_balance(LbRank *self, gpointer state)
{
}

static const LbParamSpec no_params[] = {{NULL}};
static const char *const no_phases[] = {NULL};

/* A balancer that needs cells in a loop's iterations, which no model
 * offers, to see a model refused by what it lacks. */
static const LbBalancer only_1d = {
    .name = "only-1d",
    .summary = "test",
    .params = no_params,
    .phases = no_phases,
    .needs = LB_CAP_CELLS | LB_CAP_ITERATIONS,
    .balance = only_1d_balance,
};

/* Capabilities: an order-keeping balancer on a model without an order is
 * refused by what it lacks; on one with an order, or for a balancer that
 * needs nothing, not. */
static void
test_model_order(void)
{
  const LbModel *array = lb_model_lookup("array1d");
  LbModel unordered = *array;
  unordered.offers &= ~(guint)LB_CAP_ORDER;
  const LbBalancer *mlb = lb_balancer_lookup("mlb"), *none = lb_balancer_lookup("none");
  g_autofree char *refused = lb_balancer_refuses_model(mlb, &unordered);
  g_assert_cmpstr(refused, ==,
                  "mlb does not run on model array1d, which does not offer a total order (it "
                  "runs on: array1d, field2d, field3d)");
  g_autofree char *fine = lb_balancer_refuses_model(mlb, array);
  g_assert_null(fine);
  g_autofree char *baseline = lb_balancer_refuses_model(none, &unordered);
  g_assert_null(baseline);
  g_autofree char *unsupported = lb_balancer_refuses_model(&only_1d, lb_model_lookup("field2d"));
  g_assert_cmpstr(unsupported, ==,
                  "only-1d does not run on model field2d, which does not offer independent "
                  "iterations (it runs on: none)");
  /* what each family runs on, from the capabilities alone */
  const char *const runs_on[][2] = {
      {"none", "array1d, field2d, field3d, samr, htree, loop"},
      {"mlb", "array1d, field2d, field3d"},
      {"mlb-nd", "field2d, field3d"},
      {"lbd", "field2d, field3d"},
      {"enzo-original", "samr"},
      {"move-split", "samr"},
      {"sfc-shift", "htree"},
      {"dls", "loop"},
      {"scratch-remap", "array1d, field2d, field3d"},
      {"diffusion", "array1d, field2d, field3d"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(runs_on); i++) {
    g_autofree char *models = lb_balancer_models_text(lb_balancer_lookup(runs_on[i][0]));
    g_assert_cmpstr(models, ==, runs_on[i][1]);
  }
}

int
main(int argc, char *argv[])
{
  g_test_init(&argc, &argv, NULL);
  lb_balancer_register(&only_1d);
  g_test_add_func("/scenario/model-order", test_model_order);
  g_test_add("/scenario/load/full", Fixture, NULL, fixture_setup, test_full, fixture_teardown);
  g_test_add("/scenario/load/defaults", Fixture, NULL, fixture_setup, test_defaults,
             fixture_teardown);
  g_test_add("/scenario/load/placements", Fixture, NULL, fixture_setup, test_placements,
             fixture_teardown);
  g_test_add("/scenario/load/comments", Fixture, NULL, fixture_setup, test_comments,
             fixture_teardown);
  g_test_add("/scenario/load/expect-forms", Fixture, NULL, fixture_setup, test_expect_forms,
             fixture_teardown);
  g_test_add("/scenario/load/file-pattern", Fixture, NULL, fixture_setup, test_file_pattern,
             fixture_teardown);
  g_test_add("/scenario/platform/lookup", Fixture, NULL, fixture_setup, test_platform_lookup,
             fixture_teardown);
  g_test_add("/scenario/override/ranks", Fixture, NULL, fixture_setup, test_override_ranks,
             fixture_teardown);
  g_test_add("/scenario/override/platform", Fixture, NULL, fixture_setup, test_override_platform,
             fixture_teardown);
  g_test_add("/scenario/override/balancer", Fixture, NULL, fixture_setup, test_override_balancer,
             fixture_teardown);
  g_test_add("/scenario/override/sets", Fixture, NULL, fixture_setup, test_override_sets,
             fixture_teardown);
  g_test_add("/scenario/load/variants", Fixture, NULL, fixture_setup, test_variants,
             fixture_teardown);
  g_test_add("/scenario/error/nul-byte", Fixture, NULL, fixture_setup, test_error_nul_byte,
             fixture_teardown);
  g_test_add("/scenario/error/unreadable", Fixture, NULL, fixture_setup, test_error_unreadable,
             fixture_teardown);
  g_test_add("/scenario/error/fifo", Fixture, NULL, fixture_setup, test_error_fifo,
             fixture_teardown);
  g_test_add("/scenario/load/bom-and-seed", Fixture, NULL, fixture_setup, test_bom_and_seed,
             fixture_teardown);
  g_test_add("/scenario/load/memory", Fixture, NULL, fixture_setup, test_memory, fixture_teardown);
  for (guint i = 0; i < G_N_ELEMENTS(error_cases); i++) {
    g_autofree char *name = g_strdup_printf("/scenario/error/%s", error_cases[i].name);
    g_test_add(name, Fixture, &error_cases[i], fixture_setup, test_error, fixture_teardown);
  }
  g_test_add_func("/scenario/background/parse", test_background_parse);
  g_test_add("/scenario/background/load", Fixture, NULL, fixture_setup, test_background_load,
             fixture_teardown);
  g_test_add_func("/scenario/expect/parse", test_expect_parse);
  g_test_add_func("/scenario/expect/holds", test_expect_holds);
  return g_test_run();
}
