/* lbsim check's test reports as a CI server reads them: JUnit XML valid
 * against tests/junit.xsd (checked by xmllint), TAP version 13 as prove
 * reads it, a test per [expect] line with its failure, skip or error. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

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

/* xmllint --schema tests/junit.xsd FILE: its exit status. */
static int
validate(const char *file)
{
  g_autofree char *schema = g_build_filename(source_root(), "tests", "junit.xsd", NULL);
  const char *argv[] = {"xmllint", "--noout", "--schema", schema, file, NULL};
  int status = 0;
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL, *err = NULL;
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err,
                             &status, &error));
  g_assert_no_error(error);
  if (!WIFEXITED(status))
    return -1;
  if (WEXITSTATUS(status) != 0)
    g_test_message("xmllint: %s", err);
  return WEXITSTATUS(status);
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
  g_assert_nonnull(strstr(text, "<failure message=\"actual 4, bound &lt; 2\" type=\"expect\">"));
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

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/junit/schema-refuses", test_schema_refuses);
  g_test_add_func("/junit/mixed", test_mixed);
  g_test_add_func("/junit/prove", test_prove);
  g_test_add_func("/junit/errors-and-many", test_errors_and_many);
  g_test_add_func("/junit/run-refuses", test_run_refuses);
  int code = g_test_run();
  if (tmp_dir != NULL)
    remove_tree(tmp_dir);
  return code;
}
