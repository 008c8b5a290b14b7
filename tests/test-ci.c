/* What a user's CI runs: lbsim check's test reports, JUnit XML valid
 * against tests/junit.xsd (checked by xmllint), TAP version 13 as prove
 * reads it, a test per [expect] line with its failure, skip or error;
 * lbsim diff between two results, held to tolerances; and the regression
 * suite (the CI recipe's own tests: test-ci-recipe.c). */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "junit-valid.h"
#include "lbsim-spawn.h"

static char *tmp_dir;

static char *
tmp_path(const char *name)
{
  if (tmp_dir == NULL)
    tmp_dir = g_dir_make_tmp("lbsim-junit-XXXXXX", NULL);
  g_assert_nonnull(tmp_dir);
  return g_build_filename(tmp_dir, name, NULL);
}

/* A scenario of three lines: one holds, one fails (mlb's 4 steps on 16
 * ranks against < 2), one is none's; with -b mlb the last is skipped. */
static char *
mixed_scenario(const char *name, const char *platform)
{
  g_autofree char *file = g_strdup_printf("%s.ini", name);
  char *path = tmp_path(file);
  g_autofree char *text = g_strdup_printf(
      "[scenario]\nname = %s\nplatform = %s\nranks = 16\nseed = 1\nsteps = 1\n"
      "[workload]\nmodel = field2d\nsize = 64x64\npattern = hotspots\n"
      "[balancers]\nrun = none, mlb\n"
      "[expect]\nmlb.schedule_steps <= 4\nmlb.schedule_steps < 2\nnone.imbalance_after >= 1\n",
      name, platform);
  g_assert_true(g_file_set_contents(path, text, -1, NULL));
  return path;
}

static void
test_schema_refuses(void)
{
  /* the schema holds something: a test case without its classname, and
   * one with two outcomes, fail it */
  g_autofree char *bad = tmp_path("bad.xml");
  g_assert_true(g_file_set_contents(
      bad,
      "<?xml version=\"1.0\"?>\n<testsuites><testsuite name=\"s\" tests=\"1\" failures=\"0\" "
      "errors=\"0\"><testcase name=\"t\"/></testsuite></testsuites>\n",
      -1, NULL));
  g_assert_cmpint(validate(bad), !=, 0);
  g_assert_true(g_file_set_contents(
      bad,
      "<?xml version=\"1.0\"?>\n<testsuites><testsuite name=\"s\" tests=\"1\" failures=\"1\" "
      "errors=\"0\"><testcase name=\"t\" classname=\"s\"><failure/><skipped/></testcase>"
      "</testsuite></testsuites>\n",
      -1, NULL));
  g_assert_cmpint(validate(bad), !=, 0);
}

static void
test_mixed(void)
{
  g_autofree char *ini = mixed_scenario("mixed", "hypercube-16.xml");
  g_autofree char *xml = tmp_path("mixed.xml");
  g_auto(Result) r = {0};
  lbsim(&r, "check", "-q", "-b", "mlb", "--junit", xml, "--tap", ini, NULL);
  g_assert_cmpint(r.status, ==, 1);
  /* TAP alone on standard output, the tables on standard error */
  g_assert_true(g_str_has_prefix(r.out, "TAP version 13\n1..3\n"));
  g_assert_nonnull(strstr(r.out, "\nok 1 - mixed: mlb.schedule_steps <= 4\n"));
  g_assert_nonnull(strstr(r.out, "\nnot ok 2 - mixed: mlb.schedule_steps < 2\n  ---\n"
                                 "  message: \"actual 4, bound < 2\"\n"));
  g_assert_nonnull(strstr(
      r.out, "\nok 3 - mixed: none.imbalance_after >= 1 # SKIP balancer none was not run\n"));
  g_assert_null(strstr(r.out, "PASS"));
  g_assert_nonnull(strstr(r.err, "FAIL  mlb.schedule_steps < 2"));

  g_assert_cmpint(validate(xml), ==, 0);
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(xml, &text, NULL, NULL));
  g_assert_nonnull(strstr(text, "<testsuite name=\"mixed\" tests=\"3\" failures=\"1\" errors=\"0\" "
                                "skipped=\"1\""));
  g_assert_nonnull(strstr(text, "<testcase classname=\"mixed\" name=\"mlb.schedule_steps &lt;= 4\" "
                                "time=\"0\"/>"));
  g_assert_nonnull(strstr(text, "<failure message=\"actual 4, bound &lt; 2\" type=\"expect\"/>"));
  g_assert_nonnull(strstr(text, "<skipped message=\"balancer none was not run\"/>"));
}

/* prove reads the TAP: one failure of three, one of them skipped. */
static void
test_prove(void)
{
  g_autofree char *ini = mixed_scenario("proved", "hypercube-16.xml");
  g_autofree char *script = tmp_path("check.t");
  g_autofree char *text = g_strdup_printf(
      "#!/bin/sh\nexec '%s' check -q -b mlb --tap '%s' 2>/dev/null\n", g_getenv("LBSIM"), ini);
  g_assert_true(g_file_set_contents(script, text, -1, NULL));
  g_assert_cmpint(g_chmod(script, 0755), ==, 0);
  const char *argv[] = {"prove", script, NULL};
  int status = 0;
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err,
                             &status, &error));
  g_assert_no_error(error);
  g_test_message("%s%s", out, err);
  g_assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 0);
  g_assert_nonnull(strstr(out, "Failed 1/3 subtests"));
  g_assert_nonnull(strstr(out, "1 skipped subtest"));
}

/* Runs that fail (a platform without a host) make every line an error;
 * several scenarios are a testsuite each, in order. */
static void
test_errors_and_many(void)
{
  g_autofree char *empty = tmp_path("empty.xml");
  g_assert_true(g_file_set_contents(
      empty,
      "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<platform version=\"4.1\"><zone id=\"world\" routing=\"Full\"></zone></platform>\n",
      -1, NULL));
  g_autofree char *broken = mixed_scenario("broken", empty);
  g_autofree char *fine = g_build_filename(source_root(), "scenarios", "mlb-teach-16.ini", NULL);
  g_autofree char *xml = tmp_path("many.xml");
  g_auto(Result) r = {0};
  lbsim(&r, "check", "-q", "--junit", xml, "--tap", fine, broken, NULL);
  g_assert_cmpint(r.status, ==, 2);
  g_assert_cmpint(validate(xml), ==, 0);
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(xml, &text, NULL, NULL));
  const char *first = strstr(text, "<testsuite name=\"mlb-teach-16\" tests=\"6\" failures=\"0\" "
                                   "errors=\"0\" skipped=\"0\"");
  const char *second = strstr(text, "<testsuite name=\"broken\" tests=\"3\" failures=\"0\" "
                                    "errors=\"3\" skipped=\"0\"");
  g_assert_nonnull(first);
  g_assert_nonnull(second);
  g_assert_true(first < second);
  g_assert_nonnull(strstr(text, "<testsuites name=\"lbsim check\" tests=\"9\" failures=\"0\" "
                                "errors=\"3\" skipped=\"0\""));
  g_assert_nonnull(strstr(text, "has no host\" type=\"run\"/>"));
  g_assert_true(g_str_has_prefix(r.out, "TAP version 13\n1..9\n"));
  g_assert_nonnull(strstr(r.out, "\nnot ok 7 - broken: mlb.schedule_steps <= 4\n"));
  g_assert_nonnull(strstr(r.out, "  severity: error\n"));
}

/* --junit and --tap are check's: run refuses them. */
static void
test_run_refuses(void)
{
  g_autofree char *fine = g_build_filename(source_root(), "scenarios", "mlb-teach-16.ini", NULL);
  g_auto(Result) r = {0};
  lbsim(&r, "run", "-q", "--tap", fine, NULL);
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "--tap"));
}

/* Runs mlb-teach-16 with extra --set arguments into NAME.json. */
static char *
teach_result(const char *name, const char *set)
{
  g_autofree char *file = g_strdup_printf("%s.json", name);
  char *json = tmp_path(file);
  g_autofree char *ini = g_build_filename(source_root(), "scenarios", "mlb-teach-16.ini", NULL);
  g_auto(Result) r = {0};
  if (set != NULL)
    lbsim(&r, "run", "-q", "-o", json, "--set", set, ini, NULL);
  else
    lbsim(&r, "run", "-q", "-o", json, ini, NULL);
  g_assert_cmpint(r.status, ==, 0);
  return json;
}

/* Two runs of one scenario and seed are the same; a heavier left quarter
 * (high = 11, not 10) moves none's app_time by exactly 10 % (its slowest
 * rank's work, all of it in the heavy quarter) and mlb's bytes moved; a
 * 20 % tolerance holds them all, 5 % not, a metric's own tolerance wins
 * over the general one, --only narrows, --json says the same. */
static void
test_diff_runs(void)
{
  g_autofree char *a = teach_result("a", NULL);
  g_autofree char *same = teach_result("same", NULL);
  g_autofree char *heavy = teach_result("heavy", "workload.high=11");
  g_auto(Result) eq = {0}, moved = {0}, loose = {0}, tight = {0}, own = {0}, only = {0}, json = {0};
  lbsim(&eq, "diff", a, same, NULL);
  g_assert_cmpint(eq.status, ==, 0);
  g_assert_nonnull(strstr(eq.out, "values compared, 0 differ, 0 beyond the tolerance"));
  lbsim(&moved, "diff", a, heavy, NULL);
  g_assert_cmpint(moved.status, ==, 1);
  g_assert_nonnull(strstr(moved.out, "+10.00%  MOVED"));
  g_assert_nonnull(strstr(moved.out, "\nnone   app_time "));
  g_assert_nonnull(strstr(moved.out, "phase.migrate.bytes"));
  lbsim(&loose, "diff", "--tolerance", "20%", a, heavy, NULL);
  g_assert_cmpint(loose.status, ==, 0);
  g_assert_null(strstr(loose.out, "MOVED"));
  lbsim(&tight, "diff", "--tolerance", "5%", a, heavy, NULL);
  g_assert_cmpint(tight.status, ==, 1);
  /* app_time's own 20 % wins over 1 %, but total_time (+9.35 %) still moves */
  lbsim(&own, "diff", "-t", "1%", "-t", "app_time=20%", "--only", "app_time,total_time", a, heavy,
        NULL);
  g_assert_cmpint(own.status, ==, 1);
  g_assert_nonnull(strstr(own.out, "app_time"));
  g_assert_nonnull(strstr(own.out, "within"));
  g_assert_null(strstr(own.out, "bytes_moved"));
  lbsim(&only, "diff", "--only", "messages,schedule_steps", a, heavy, NULL);
  g_assert_cmpint(only.status, ==, 0);
  g_assert_nonnull(strstr(only.out, "3 values compared, 0 differ"));
  lbsim(&json, "diff", "--json", "-", a, heavy, NULL);
  g_assert_cmpint(json.status, ==, 1);
  g_autoptr(JsonParser) p = json_parser_new();
  g_assert_true(json_parser_load_from_data(p, json.out, -1, NULL));
  JsonObject *root = json_node_get_object(json_parser_get_root(p));
  g_assert_cmpstr(json_object_get_string_member(root, "format"), ==, "lbsim-diff");
  g_assert_cmpint(json_object_get_int_member(root, "moved"), ==, 16);
}

/* Different scenarios, a reproduction against a run, a bad tolerance: 2,
 * each named. A run with one balancer fewer: its values are in A only. */
static void
test_diff_refuses(void)
{
  g_autofree char *a = teach_result("ra", NULL);
  g_autofree char *renamed = teach_result("renamed", "scenario.name=other");
  g_autofree char *fewer = tmp_path("fewer.json");
  g_autofree char *ini = g_build_filename(source_root(), "scenarios", "mlb-teach-16.ini", NULL);
  g_auto(Result) run = {0}, other = {0}, bad = {0}, one = {0}, args = {0};
  lbsim(&run, "run", "-q", "-b", "mlb", "-o", fewer, ini, NULL);
  g_assert_cmpint(run.status, ==, 0);
  lbsim(&other, "diff", a, renamed, NULL);
  g_assert_cmpint(other.status, ==, 2);
  g_assert_nonnull(strstr(other.err, "of scenario 'mlb-teach-16'"));
  g_assert_nonnull(strstr(other.err, "of scenario 'other'"));
  lbsim(&bad, "diff", "-t", "x=abc", a, a, NULL);
  g_assert_cmpint(bad.status, ==, 2);
  g_assert_nonnull(strstr(bad.err, "'abc' is not an amount"));
  lbsim(&one, "diff", a, fewer, NULL);
  g_assert_cmpint(one.status, ==, 1);
  g_assert_nonnull(strstr(one.out, "only in A"));
  lbsim(&args, "diff", a, NULL);
  g_assert_cmpint(args.status, ==, 2);
}

/* A sweep over the seed, then the same sweep with one point changed (its
 * platform and seed as before, the load of the heavy quarter up at
 * seed 2 only, written as the other run's result); the difference is at
 * that point and balancer only. */
static void
test_diff_sweep(void)
{
  g_autofree char *ini = g_build_filename(source_root(), "scenarios", "mlb-teach-16.ini", NULL);
  g_autofree char *a = tmp_path("sweep-a.json"), *b = tmp_path("sweep-b.json");
  g_autofree char *sa = tmp_path("sweep-a.d"), *sb = tmp_path("sweep-b.d");
  g_auto(Result) ra = {0}, rb = {0}, d = {0}, same = {0};
  lbsim(&ra, "sweep", "-q", "-j", "1", "--vary", "seed=1,2", "-o", a, "--state", sa, ini, NULL);
  g_assert_cmpint(ra.status, ==, 0);
  lbsim(&rb, "sweep", "-q", "-j", "1", "--vary", "seed=1,2", "-o", b, "--state", sb, ini, NULL);
  g_assert_cmpint(rb.status, ==, 0);
  lbsim(&same, "diff", a, b, NULL);
  g_assert_cmpint(same.status, ==, 0);
  /* one point changed: seed 2's mlb total time up by a tenth */
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(b, &text, NULL, NULL));
  g_autoptr(JsonParser) p = json_parser_new();
  g_assert_true(json_parser_load_from_data(p, text, -1, NULL));
  JsonObject *root = json_node_get_object(json_parser_get_root(p));
  JsonArray *runs = json_object_get_array_member(root, "runs");
  guint changed = 0;
  for (guint i = 0; i < json_array_get_length(runs); i++) {
    JsonObject *run = json_array_get_object_element(runs, i);
    JsonObject *point = json_object_get_object_member(run, "point");
    if (json_object_get_int_member(point, "seed") != 2 ||
        strcmp(json_object_get_string_member(run, "balancer"), "mlb") != 0)
      continue;
    JsonObject *summary =
        json_object_get_object_member(json_object_get_object_member(run, "result"), "summary");
    json_object_set_double_member(summary, "total_time",
                                  json_object_get_double_member(summary, "total_time") * 1.1);
    changed++;
  }
  g_assert_cmpuint(changed, ==, 1);
  g_autoptr(JsonGenerator) gen = json_generator_new();
  json_generator_set_root(gen, json_parser_get_root(p));
  g_assert_true(json_generator_to_file(gen, b, NULL));
  lbsim(&d, "diff", a, b, NULL);
  g_assert_cmpint(d.status, ==, 1);
  g_assert_nonnull(strstr(d.out, "seed=2 mlb  total_time"));
  g_assert_nonnull(strstr(d.out, "+10.00%  MOVED"));
  g_assert_nonnull(strstr(d.out, ", 1 differ, 1 beyond the tolerance"));
}

/* Two reproductions of one paper, claim by claim: lbsim's number and
 * whether it agrees; a claim in one only is named; two papers are refused. */
static void
test_diff_reproductions(void)
{
  g_autofree char *a = tmp_path("rep-a.json"), *b = tmp_path("rep-b.json"),
                  *c = tmp_path("rep-c.json");
  g_assert_true(
      g_file_set_contents(a,
                          "{\"format\": \"lbsim-reproduction\", \"paper\": \"p\", \"claims\": ["
                          "{\"id\": \"x\", \"lbsim\": 10, \"agrees\": true},"
                          "{\"id\": \"y\", \"lbsim\": 5, \"agrees\": false},"
                          "{\"id\": \"z\", \"lbsim\": null, \"agrees\": null}]}",
                          -1, NULL));
  g_assert_true(
      g_file_set_contents(b,
                          "{\"format\": \"lbsim-reproduction\", \"paper\": \"p\", \"claims\": ["
                          "{\"id\": \"x\", \"lbsim\": 10.5, \"agrees\": true},"
                          "{\"id\": \"y\", \"lbsim\": 5, \"agrees\": true},"
                          "{\"id\": \"w\", \"lbsim\": 1, \"agrees\": true}]}",
                          -1, NULL));
  g_assert_true(g_file_set_contents(
      c, "{\"format\": \"lbsim-reproduction\", \"paper\": \"q\", \"claims\": []}", -1, NULL));
  g_auto(Result) d = {0}, loose = {0}, other = {0};
  lbsim(&d, "diff", a, b, NULL);
  g_assert_cmpint(d.status, ==, 1);
  g_assert_nonnull(strstr(d.out, "x      lbsim"));
  g_assert_nonnull(strstr(d.out, "+5.00%  MOVED"));
  g_assert_nonnull(strstr(d.out, "y      agrees"));
  g_assert_nonnull(strstr(d.out, "only in A"));
  g_assert_nonnull(strstr(d.out, "only in B"));
  lbsim(&loose, "diff", "-t", "lbsim=10%", "--only", "lbsim", a, b, NULL);
  g_assert_cmpint(loose.status, ==, 1); /* z and w are still in one only */
  g_assert_nonnull(strstr(loose.out, "within"));
  lbsim(&other, "diff", a, c, NULL);
  g_assert_cmpint(other.status, ==, 2);
  g_assert_nonnull(strstr(other.err, "two reproductions of one paper"));
}

/* A baseline written, then held: the same scenario passes; a heavier
 * quarter fails it (exit 1, each moved value a failing test case in the
 * JUnit file, named "baseline: mlb total_time"), unless the tolerance
 * takes it; a missing baseline is bad input; a folder holds one a
 * scenario. */
static void
test_baseline(void)
{
  g_autofree char *ini = g_build_filename(source_root(), "scenarios", "mlb-teach-16.ini", NULL);
  g_autofree char *dir = tmp_path("baselines");
  g_assert_cmpint(g_mkdir(dir, 0700), ==, 0);
  g_autofree char *file = g_build_filename(dir, "mlb-teach-16.json", NULL);
  g_autofree char *xml = tmp_path("baseline.xml");
  g_auto(Result) write = {0}, same = {0}, moved = {0}, loose = {0}, missing = {0}, alone = {0};
  lbsim(&write, "check", "-q", "--baseline", dir, "--update-baseline", ini, NULL);
  g_assert_cmpint(write.status, ==, 0);
  g_assert_true(g_file_test(file, G_FILE_TEST_IS_REGULAR));
  lbsim(&same, "check", "-q", "--baseline", file, ini, NULL);
  g_assert_cmpint(same.status, ==, 0);
  g_assert_nonnull(strstr(same.out, "58 values compared, 0 differ"));
  lbsim(&moved, "check", "-q", "--baseline", dir, "--set", "workload.high=11", "--junit", xml, ini,
        NULL);
  g_assert_cmpint(moved.status, ==, 1);
  g_assert_nonnull(strstr(moved.out, "16 differ, 16 beyond the tolerance"));
  g_assert_cmpint(validate(xml), ==, 0);
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(xml, &text, NULL, NULL));
  /* 6 [expect] lines that hold, 16 baseline values that moved */
  g_assert_nonnull(strstr(text, "tests=\"22\" failures=\"16\""));
  g_assert_nonnull(strstr(text, "name=\"baseline: mlb total_time\""));
  g_assert_nonnull(strstr(text, "<failure message=\"baseline 0.02523825714, now 0.02701325714\" "
                                "type=\"baseline\"/>"));
  lbsim(&loose, "check", "-q", "--baseline", dir, "-t", "20%", "--set", "workload.high=11", ini,
        NULL);
  g_assert_cmpint(loose.status, ==, 0);
  g_autofree char *nothere = tmp_path("nothere.json");
  lbsim(&missing, "check", "-q", "--baseline", nothere, ini, NULL);
  g_assert_cmpint(missing.status, ==, 2);
  g_assert_nonnull(strstr(missing.err, "write it with --update-baseline"));
  lbsim(&alone, "check", "-q", "--tolerance", "1%", ini, NULL);
  g_assert_cmpint(alone.status, ==, 2);
}

/* lbsim reproduce --check --junit --tap on a toy paper (mlb-teach-16's
 * run): a claim that agrees passes, a known disagreement is skipped with
 * its reason, a headline claim that disagrees fails the verdict and its
 * test case. */
static void
test_reproduce_reports(void)
{
  g_autofree char *papers = tmp_path("papers");
  g_autofree char *toy = g_build_filename(papers, "toy", NULL);
  g_assert_cmpint(g_mkdir_with_parents(toy, 0700), ==, 0);
  g_autofree char *ini = g_build_filename(source_root(), "scenarios", "mlb-teach-16.ini", NULL);
  g_autofree char *copy = g_build_filename(toy, "s.ini", NULL);
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(ini, &text, NULL, NULL));
  g_assert_true(g_file_set_contents(copy, text, -1, NULL));
  g_autofree char *claims = g_build_filename(toy, "claims.ini", NULL);
  const char *head = "run = r\nranks = 16\nheadline = true\n";
  g_autofree char *body =
      g_strdup_printf("[paper]\ncite = A. Author, \"A title\", 2000\nsummary = a toy\n"
                      "[run:r]\nscenario = s.ini\nranks = 16\nquick-ranks = 16\n"
                      "[claim:steps]\nclaim = log2 p steps\nwords = four steps\n%s"
                      "measure = value mlb schedule_steps\npaper = 4\nrule = exactly 4\n"
                      "[claim:imbalance]\nclaim = exact balance\nwords = balanced\n%s"
                      "measure = value mlb imbalance_after\npaper = 1\nrule = exactly 1\n"
                      "known = both: whole elements of 10 cannot balance 13 a rank\n"
                      "[claim:messages]\nclaim = one message\nwords = one\n%s"
                      "measure = value mlb messages\npaper = 1\nrule = exactly 1\n",
                      head, head, head);
  g_assert_true(g_file_set_contents(claims, body, -1, NULL));
  g_autofree char *state = tmp_path("toy-state");
  g_autofree char *xml = tmp_path("toy.xml");
  g_auto(GStrv) env = g_environ_setenv(g_get_environ(), "LBSIM_PAPERS_DIR", papers, TRUE);
  g_auto(Result) r = {0}, without = {0};
  lbsim_env(&r, env, "reproduce", "toy", "--quick", "--check", "-q", "--state", state, "--junit",
            xml, "--tap", NULL);
  g_assert_cmpint(r.status, ==, 1);
  g_assert_true(g_str_has_prefix(r.out, "TAP version 13\n1..3\nok 1 - toy: steps\n"));
  g_assert_nonnull(strstr(r.out, "ok 2 - toy: imbalance # SKIP known disagreement, paper 1, "
                                 "lbsim 1.538461538 (exactly 1): whole elements"));
  g_assert_nonnull(strstr(r.out, "not ok 3 - toy: messages\n"));
  g_assert_cmpint(validate(xml), ==, 0);
  g_autofree char *doc = NULL;
  g_assert_true(g_file_get_contents(xml, &doc, NULL, NULL));
  g_assert_nonnull(strstr(doc, "<testsuite name=\"toy\" tests=\"3\" failures=\"1\" errors=\"0\" "
                               "skipped=\"1\""));
  g_assert_nonnull(strstr(doc, "<failure message=\"paper 1, lbsim 220 (exactly 1)\" "
                               "type=\"claim\"/>"));
  lbsim_env(&without, env, "reproduce", "toy", "--quick", "--state", state, "--tap", NULL);
  g_assert_cmpint(without.status, ==, 2);
  g_assert_nonnull(strstr(without.err, "add --check"));
}

/* mlb-teach-16 (16 ranks, 1 step) with [let] and [expect] lines of its own. */
static char *
formula_scenario(const char *name, const char *let, const char *expect)
{
  g_autofree char *file = g_strdup_printf("%s.ini", name);
  char *path = tmp_path(file);
  g_autofree char *text = g_strdup_printf(
      "[scenario]\nname = %s\nplatform = hypercube-16.xml\nranks = 16\nseed = 1\nsteps = 1\n"
      "[workload]\nsize = 64\npattern = step\nhigh = 10\nlow = 1\nat = 0.25\ndrift = 0\n"
      "[balancers]\nrun = none, mlb\n[let]\n%s\n[expect]\n%s\n",
      name, let, expect);
  g_assert_true(g_file_set_contents(path, text, -1, NULL));
  return path;
}

/* Bounds as formulas: every operator and function, ranks and steps, [let]
 * names reading earlier ones, metrics and phase figures of any balancer,
 * each line's value printed beside the actual; a formula that reads a
 * balancer not run is skipped; a bound that does not hold fails. */
static void
test_formulas(void)
{
  g_autofree char *ini =
      formula_scenario("formulas", "d = log2(ranks)\nhalf = d / 2\nsteps2 = steps * 2",
                       "mlb.schedule_steps <= log2(ranks)\n"
                       "mlb.amounts_steps == d*(d+1)/2\n"
                       "mlb.accumulate_steps == mlb.phase.accumulate.steps\n"
                       "mlb.desired_steps == min(ceil(half - 0.5), floor(-(-1))) - 2\n"
                       "mlb.messages >= max(ranks, 2) * (steps2 + 1) - none.messages\n"
                       "mlb.imbalance_after < 1.6 - 3e-2\n"
                       "none.imbalance_after <= mlb.imbalance_after * 2 + d - 3.9");
  g_auto(Result) r = {0}, only = {0};
  lbsim(&r, "check", "-q", ini, NULL);
  g_test_message("%s%s", r.out, r.err);
  g_assert_cmpint(r.status, ==, 1);
  g_assert_nonnull(strstr(r.out, "PASS  mlb.schedule_steps <= log2(ranks) (actual 4, bound 4)"));
  g_assert_nonnull(strstr(r.out, "PASS  mlb.amounts_steps == d*(d+1)/2 (actual 10, bound 10)"));
  g_assert_nonnull(strstr(
      r.out, "PASS  mlb.accumulate_steps == mlb.phase.accumulate.steps (actual 4, bound 4)"));
  /* min(ceil(1.5), 1) - 2 = -1: the line fails with that bound */
  g_assert_nonnull(strstr(r.out, "FAIL  mlb.desired_steps == min(ceil(half - 0.5), floor(-(-1))) "
                                 "- 2 (actual 0, bound -1)"));
  g_assert_nonnull(strstr(r.out, "(actual 220, bound 48)"));
  g_assert_nonnull(strstr(r.out, "PASS  mlb.imbalance_after < 1.6 - 3e-2 (actual 1.538461538, "
                                 "bound 1.57)"));
  /* 1.538 x 2 + 4 - 3.9 = 3.177 over none's 3.077 */
  g_assert_nonnull(strstr(r.out, "PASS  none.imbalance_after <= mlb.imbalance_after * 2 + d - 3.9 "
                                 "(actual 3.076923077, bound 3.176923077)"));
  g_assert_nonnull(strstr(r.out, "6 passed, 1 failed"));
  /* mlb alone: the lines whose formula reads none are skipped */
  lbsim(&only, "check", "-q", "-b", "mlb", ini, NULL);
  g_assert_nonnull(strstr(only.out, "SKIP  mlb.messages >= max(ranks, 2) * (steps2 + 1) - "
                                    "none.messages (balancer none was not run)"));
}

/* A parse error of each kind: exit 2, the column named. */
static void
test_formula_errors(void)
{
  const char *const cases[][3] = {
      {"d = 1", "mlb.schedule_steps <= log2(ranks) +", "column 14: a number, a name or '('"},
      {"d = 1", "mlb.schedule_steps <= (ranks", "column 7: a ')' is missing"},
      {"d = 1", "mlb.schedule_steps <= ranks 2", "column 7: '2' after a whole expression"},
      {"d = 1", "mlb.schedule_steps <= min(ranks)", "min takes two arguments"},
      {"d = 1", "mlb.schedule_steps <= sqrt(ranks)", "unknown function 'sqrt'"},
      {"d = 1", "mlb.schedule_steps <= rank + 1", "'rank' is not ranks, steps nor a [let] name"},
      {"d = 1", "mlb.schedule_steps <= mlb.phase.nope.steps", "has no metric 'phase.nope.steps'"},
      {"d = 1", "mlb.schedule_steps <= lbz.messages + 1", "unknown balancer 'lbz'"},
      {"d = e + 1\ne = 2", "mlb.schedule_steps <= d", "'e' is not ranks, steps nor a [let] name"},
      {"ranks = 2", "mlb.schedule_steps <= 4", "not ranks or steps"},
      {"d = 1..2", "mlb.schedule_steps <= d", "'1..2' is not a number"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *name = g_strdup_printf("bad-%u", i);
    g_autofree char *ini = formula_scenario(name, cases[i][0], cases[i][1]);
    g_auto(Result) r = {0};
    lbsim(&r, "check", "-q", ini, NULL);
    if (r.status != 2 || strstr(r.err, cases[i][2]) == NULL)
      g_error("case %u: exit %d, stderr: %s", i, r.status, r.err);
  }
}

/* check --json DIR/: one file a scenario, DIR/NAME.json, named as
 * --baseline DIR/ names them, so that lbsim diff pairs a baseline with the
 * new result; one scenario too; a missing folder and two scenarios of one
 * name are bad input, before anything runs. */
static void
test_json_folder(void)
{
  g_autofree char *teach = g_build_filename(source_root(), "scenarios", "mlb-teach-16.ini", NULL);
  g_autofree char *other = formula_scenario("other", "d = 1", "mlb.schedule_steps <= 4");
  g_autofree char *dir = tmp_path("results");
  g_autofree char *base = tmp_path("bases");
  g_assert_cmpint(g_mkdir(dir, 0700), ==, 0);
  g_assert_cmpint(g_mkdir(base, 0700), ==, 0);
  g_autofree char *dir_slash = g_strconcat(dir, "/", NULL);
  g_auto(Result) two = {0}, one = {0}, written = {0}, same = {0}, missing = {0}, twice = {0};
  lbsim(&written, "check", "-q", "--baseline", base, "--update-baseline", teach, other, NULL);
  g_assert_cmpint(written.status, ==, 0);
  lbsim(&two, "check", "-q", "--json", dir_slash, teach, other, NULL);
  g_assert_cmpint(two.status, ==, 0);
  g_autofree char *teach_json = g_build_filename(dir, "mlb-teach-16.json", NULL);
  g_autofree char *other_json = g_build_filename(dir, "other.json", NULL);
  g_autoptr(JsonNode) doc = load_json(other_json);
  JsonObject *root = json_node_get_object(doc);
  g_assert_cmpstr(
      json_object_get_string_member(json_object_get_object_member(root, "scenario"), "name"), ==,
      "other");
  g_assert_cmpuint(json_array_get_length(json_object_get_array_member(root, "checks")), ==, 1);
  g_autofree char *teach_base = g_build_filename(base, "mlb-teach-16.json", NULL);
  lbsim(&same, "diff", teach_base, teach_json, NULL);
  g_assert_cmpint(same.status, ==, 0);
  g_assert_nonnull(strstr(same.out, "58 values compared, 0 differ"));
  /* one scenario: the folder (without its '/') still names the file */
  g_assert_cmpint(g_unlink(other_json), ==, 0);
  lbsim(&one, "check", "-q", "--json", dir, other, NULL);
  g_assert_cmpint(one.status, ==, 0);
  g_assert_true(g_file_test(other_json, G_FILE_TEST_IS_REGULAR));
  g_autofree char *nowhere = tmp_path("nowhere/");
  lbsim(&missing, "check", "-q", "--json", nowhere, teach, other, NULL);
  g_assert_cmpint(missing.status, ==, 2);
  g_assert_nonnull(strstr(missing.err, "does not exist"));
  g_assert_null(strstr(missing.out, "PASS"));
  lbsim(&twice, "check", "-q", "--json", dir_slash, teach, teach, NULL);
  g_assert_cmpint(twice.status, ==, 2);
  g_assert_nonnull(strstr(twice.err, "are both named 'mlb-teach-16'"));
}

/* scenarios/regression/: each family's golden step counts, formulas of
 * the processor count, held from 2 to 4096 ranks by one lbsim check of
 * several scenarios a count: every family at 2, 16 and 128, those whose
 * collectives take ceil(log2 p) rounds at 12 too, mlb and scratch-remap
 * at 1024, sfc-shift (the quickest there) at 4096. Every family holds at
 * every power of two to 4096, checked by hand: at 4096 mlb takes 7 to 16 s
 * on two busy cores, diffusion 45 s. */
typedef struct {
  const char *ranks, *platform;
  const char *const scenarios[9];
} RegressionRun;

#define EVERY_FAMILY                                                                               \
  {                                                                                                \
    "mlb-steps", "mlb-nd-steps", "lbd-steps", "samr-steps", "sfc-shift-steps", "dls-steps",        \
        "scratch-remap-steps", "diffusion-steps", NULL                                             \
  }

static const RegressionRun regression_runs[] = {
    {"2", "hypercube-2.xml", EVERY_FAMILY},
    {"16", "hypercube-16.xml", EVERY_FAMILY},
    {"128", "hypercube-128.xml", EVERY_FAMILY},
    {"12",
     "hypercube-16.xml",
     {"samr-steps", "sfc-shift-steps", "scratch-remap-steps", "diffusion-steps", NULL}},
    {"1024", "hypercube-1024.xml", {"mlb-steps", "scratch-remap-steps", NULL}},
    {"4096", "hypercube-4096.xml", {"sfc-shift-steps", NULL}},
};

static void
test_regression_suite(gconstpointer data)
{
  const RegressionRun *run = data;
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
  g_autofree char *xml = tmp_path("regression.xml");
  const char *const head[] = {"check",      "-q",          "--ranks", run->ranks,
                              "--platform", run->platform, "--junit", xml};
  for (guint i = 0; i < G_N_ELEMENTS(head); i++)
    g_ptr_array_add(argv, g_strdup(head[i]));
  guint n = 0;
  for (; run->scenarios[n] != NULL; n++)
    g_ptr_array_add(argv, g_strdup_printf("scenarios/regression/%s.ini", run->scenarios[n]));
  g_ptr_array_add(argv, NULL);
  g_auto(Result) r = {0};
  spawn_lbsim_argv(&r, NULL, (const char *const *)argv->pdata);
  if (r.status != 0)
    g_error("p = %s: exit %d\n%s%s", run->ranks, r.status, r.out, r.err);
  g_assert_null(strstr(r.out, "SKIP"));
  guint held = 0;
  for (const char *at = r.out; (at = strstr(at, " passed, 0 failed\n")) != NULL; at++)
    held++;
  g_assert_cmpuint(held, ==, n);
  if (g_strcmp0(run->scenarios[0], "mlb-steps") == 0) {
    /* d(d+1)/2 amount steps, d = log2 p, printed as the bound */
    guint d = (guint)g_bit_nth_msf(g_ascii_strtoull(run->ranks, NULL, 10), -1);
    g_autofree char *amounts =
        g_strdup_printf("PASS  mlb.amounts_steps == d*(d+1)/2 (actual %u, bound %u)",
                        d * (d + 1) / 2, d * (d + 1) / 2);
    g_assert_nonnull(strstr(r.out, amounts));
  }
  g_assert_cmpint(validate(xml), ==, 0);
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(xml, &text, NULL, NULL));
  g_assert_nonnull(strstr(text, "failures=\"0\" errors=\"0\" skipped=\"0\""));
}

/* Every scenario of scenarios/regression/ is held at 2 ranks, and so at
 * every count of its family. */
static void
test_regression_listed(void)
{
  g_autofree char *dir = g_build_filename(source_root(), "scenarios", "regression", NULL);
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  g_assert_nonnull(d);
  guint files = 0;
  for (const char *f; (f = g_dir_read_name(d)) != NULL;) {
    if (!g_str_has_suffix(f, ".ini"))
      continue;
    g_autofree char *name = g_strndup(f, strlen(f) - 4);
    if (!g_strv_contains(regression_runs[0].scenarios, name))
      g_error("scenarios/regression/%s is not in tests/test-ci.c's regression_runs", f);
    files++;
  }
  g_assert_cmpuint(files, ==, g_strv_length((char **)regression_runs[0].scenarios));
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/junit/schema-refuses", test_schema_refuses);
  g_test_add_func("/junit/mixed", test_mixed);
  g_test_add_func("/junit/prove", test_prove);
  g_test_add_func("/junit/errors-and-many", test_errors_and_many);
  g_test_add_func("/junit/run-refuses", test_run_refuses);
  g_test_add_func("/diff/runs", test_diff_runs);
  g_test_add_func("/diff/refuses", test_diff_refuses);
  g_test_add_func("/diff/sweep", test_diff_sweep);
  g_test_add_func("/diff/reproductions", test_diff_reproductions);
  g_test_add_func("/baseline/held", test_baseline);
  g_test_add_func("/baseline/json-folder", test_json_folder);
  g_test_add_func("/reproduce/reports", test_reproduce_reports);
  g_test_add_func("/expect/formulas", test_formulas);
  g_test_add_func("/expect/formula-errors", test_formula_errors);
  g_test_add_func("/regression/listed", test_regression_listed);
  for (guint i = 0; i < G_N_ELEMENTS(regression_runs); i++) {
    g_autofree char *path = g_strdup_printf("/regression/ranks-%s", regression_runs[i].ranks);
    g_test_add_data_func(path, &regression_runs[i], test_regression_suite);
  }
  int code = g_test_run();
  if (tmp_dir != NULL)
    remove_tree(tmp_dir);
  return code;
}
