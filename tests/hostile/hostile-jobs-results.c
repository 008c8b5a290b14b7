/* Job files (lbsim run-job) read as strictly as scenarios, and lbsim's
 * JSON read back (lbsim report, lbsim merge) as input that may be
 * anything: each bad one refused before anything is written. */
#include <json-glib/json-glib.h>
#include <stdarg.h>
#include <string.h>

#include "hostile.h"

/* Status 2 and one line, holding each of the needles in args. */
static void
assert_refused_va(const HostileResult *r, va_list args)
{
  hostile_assert_refused(r, 2, NULL);
  for (const char *needle; (needle = va_arg(args, const char *)) != NULL;)
    if (strstr(r->err, needle) == NULL)
      g_error("stderr does not name '%s':\n%s", needle, r->err);
}

/* ---- job files ---- */

/* run-job j.ini r.json with text as j.ini, next to the small scenario:
 * refused with status 2 and one line holding each needle, nothing
 * written. */
static void
job_refused(const char *text, ...)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_scenario(hc);
  hostile_write(hc, "j.ini", text);
  hostile_snapshot(hc);
  g_auto(HostileResult) r = {0};
  hostile_run(hc, &r, "run-job", "j.ini", "r.json", NULL);
  va_list args;
  va_start(args, text);
  assert_refused_va(&r, args);
  va_end(args);
  hostile_assert_unchanged(hc);
}

#define JOB_HEAD "[job]\nscenario = s.ini\nbalancer = mlb\n"

static void
test_job_repeated_balancer(void)
{
  job_refused(JOB_HEAD "balancer = none\n", "j.ini:4:", "[job] balancer", "repeated",
              "first on line 3", NULL);
}

/* the form run-job --help once showed: one set key for all overrides */
static void
test_job_unknown_key(void)
{
  job_refused(JOB_HEAD "set = workload.pattern=bogus\n", "j.ini:4:", "[job] set", "unknown key",
              "set1 = GROUP.KEY=VALUE", NULL);
}

static void
test_job_unknown_group(void)
{
  job_refused(JOB_HEAD "[workload]\npattern = bogus\n", "j.ini:4:", "[workload]", "unknown group",
              NULL);
}

static void
test_job_set2_without_set1(void)
{
  job_refused(JOB_HEAD "set2 = workload.pattern=ramp\n", "j.ini:4:", "[job] set2", "no set1", NULL);
}

static void
test_job_malformed_set(void)
{
  job_refused(JOB_HEAD "set1 = workload.size=128\nset2 = workload.pattern\n",
              "j.ini:5:", "[job] set2", "'workload.pattern'", "GROUP.KEY=VALUE", NULL);
}

static void
test_job_bad_ranks(void)
{
  job_refused(JOB_HEAD "ranks = -5\n", "j.ini:4:", "[job] ranks", "'-5'",
              "a whole number from 1 to", NULL);
}

static void
test_job_missing_balancer(void)
{
  job_refused("[job]\nscenario = s.ini\n", "j.ini", "[job] balancer", "missing", NULL);
}

/* An unknown key in a set line is the error --set gives, word for word. */
static void
test_job_bad_set_key(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_scenario(hc);
  hostile_write(hc, "j.ini", JOB_HEAD "set1 = workload.bogus=1\n");
  hostile_snapshot(hc);
  g_auto(HostileResult) with_set = {0};
  hostile_run(hc, &with_set, "run", "s.ini", "-b", "mlb", "--set", "workload.bogus=1", NULL);
  hostile_assert_refused(&with_set, 2, "s.ini", "[workload] bogus", "unknown key", NULL);
  g_auto(HostileResult) r = {0};
  hostile_run(hc, &r, "run-job", "j.ini", "r.json", NULL);
  hostile_assert_refused(&r, 2, "s.ini", "[workload] bogus", NULL);
  g_assert_cmpstr(r.err, ==, with_set.err);
  hostile_assert_unchanged(hc);
}

/* The example job of run-job --help, taken from the help text as shown,
 * runs with its overrides: the step field of s.ini (high cells up to a
 * quarter of the array) at size 128 and high 20 holds 32 x 20 + 96 x 1
 * units of load, where s.ini alone holds 16 x 10 + 48. */
static void
test_job_help_example(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_scenario(hc);
  g_auto(HostileResult) help = {0};
  hostile_run(hc, &help, "run-job", "--help", NULL);
  g_assert_cmpint(help.status, ==, 0);
  const char *start = strstr(help.out, "\n  [job]\n");
  g_assert_nonnull(start);
  const char *end = strstr(start + 1, "\n\n");
  g_assert_nonnull(end);
  g_auto(GStrv) lines = g_strsplit(start + 1, "\n", -1);
  guint n = 0;
  for (const char *c = start + 1; c < end; c++)
    n += *c == '\n';
  g_autoptr(GString) job = g_string_new(NULL);
  for (guint i = 0; i <= n; i++) {
    g_assert_true(g_str_has_prefix(lines[i], "  "));
    g_string_append_printf(job, "%s\n", lines[i] + 2);
  }
  g_assert_nonnull(strstr(job->str, "set1 = "));
  hostile_write(hc, "example.ini", job->str);
  g_auto(HostileResult) r = {0};
  hostile_run(hc, &r, "run-job", "example.ini", "r.json", NULL);
  if (r.status != 0)
    g_error("the example of run-job --help:\n%s\nexit status %d:\n%s", job->str, r.status, r.err);
  g_autofree char *path = hostile_path(hc, "r.json");
  g_autoptr(JsonParser) parser = json_parser_new();
  g_autoptr(GError) error = NULL;
  json_parser_load_from_file(parser, path, &error);
  g_assert_no_error(error);
  JsonObject *o = json_node_get_object(json_parser_get_root(parser));
  g_assert_cmpstr(json_object_get_string_member(o, "balancer"), ==, "mlb");
  g_assert_cmpint(json_object_get_int_member(o, "ranks"), ==, 16);
  JsonArray *loads = json_object_get_array_member(o, "final_loads");
  gint64 total = 0;
  for (guint i = 0; i < json_array_get_length(loads); i++)
    total += json_array_get_int_element(loads, i);
  g_assert_cmpint(total, ==, 32 * 20 + 96 * 1);
}

/* ---- lbsim report ---- */

typedef void (*Spoil)(JsonObject *root);

/* The JSON of lbsim run -o for the small scenario, spoiled; then lbsim
 * report of it into out/: refused naming the file and each needle, out/
 * never made. */
static void
report_refused(Spoil spoil, const char *raw, ...)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_scenario(hc);
  if (raw == NULL) {
    g_auto(HostileResult) run = {0};
    hostile_run(hc, &run, "run", "-q", "s.ini", "-o", "run.json", NULL);
    g_assert_cmpint(run.status, ==, 0);
    g_autofree char *path = hostile_path(hc, "run.json");
    g_autoptr(JsonParser) parser = json_parser_new();
    g_autoptr(GError) error = NULL;
    json_parser_load_from_file(parser, path, &error);
    g_assert_no_error(error);
    JsonNode *root = json_parser_get_root(parser);
    spoil(json_node_get_object(root));
    g_autoptr(JsonGenerator) gen = json_generator_new();
    json_generator_set_root(gen, root);
    g_autofree char *text = json_generator_to_data(gen, NULL);
    hostile_write(hc, "r.json", text);
    g_unlink(path);
  } else {
    hostile_write(hc, "r.json", raw);
  }
  hostile_snapshot(hc);
  g_auto(HostileResult) r = {0};
  hostile_run(hc, &r, "report", "r.json", "out", NULL);
  va_list args;
  va_start(args, raw);
  assert_refused_va(&r, args);
  va_end(args);
  g_assert_true(g_str_has_prefix(r.err, "lbsim: r.json: "));
  hostile_assert_unchanged(hc);
}

static JsonObject *
run_of(JsonObject *root, guint i)
{
  return json_array_get_object_element(json_object_get_array_member(root, "runs"), i);
}

static void
test_report_deep(void)
{
  g_autofree char *deep = g_strnfill(100000, '[');
  report_refused(NULL, deep, "nested more than 64", NULL);
}

static void
wrong_type(JsonObject *root)
{
  json_object_set_string_member(json_object_get_object_member(run_of(root, 1), "summary"),
                                "messages", "many");
}

static void
test_report_wrong_type(void)
{
  report_refused(wrong_type, NULL, "runs[1].summary.messages: expected a whole number", NULL);
}

static void
negative_ranks(JsonObject *root)
{
  json_object_set_int_member(root, "ranks", -5);
}

static void
test_report_negative_ranks(void)
{
  report_refused(negative_ranks, NULL, "ranks: expected a whole number from 1 to 1048576", NULL);
}

/* 1e400 is no double: json-glib reads it as infinity */
static void
test_report_huge_number(void)
{
  report_refused(NULL,
                 "{\"lbsim\": \"0.1.0\", \"scenario\": {\"name\": \"s\"}, \"ranks\": 1e400, "
                 "\"runs\": []}",
                 "ranks: expected a whole number from 1 to 1048576", NULL);
}

static void
short_final_loads(JsonObject *root)
{
  JsonArray *loads = json_array_new();
  for (guint i = 0; i < 3; i++)
    json_array_add_int_element(loads, 4);
  json_object_set_array_member(run_of(root, 1), "final_loads", loads);
}

static void
test_report_final_loads(void)
{
  report_refused(short_final_loads, NULL, "runs[1].final_loads: 3 entries", "one per rank (16)",
                 NULL);
}

static void
no_adaptations(JsonObject *root)
{
  json_object_remove_member(run_of(root, 0), "adaptations");
}

static void
test_report_missing_field(void)
{
  report_refused(no_adaptations, NULL, "runs[0].adaptations: missing", NULL);
}

/* ---- lbsim merge ---- */

/* A sweep's jobs (written, one run), then that run's result spoiled:
 * merge names the result file and the field, and writes nothing. */
static void
test_merge_malformed(void)
{
  g_autoptr(HostileCase) hc = hostile_case_new();
  hostile_scenario(hc);
  g_auto(HostileResult) emit = {0};
  hostile_run(hc, &emit, "sweep", "-q", "s.ini", "-V", "workload.high=10,20", "-o", "sw.json",
              "--state", "st", "--emit-jobs", "jobs.txt", NULL);
  g_assert_cmpint(emit.status, ==, 0);
  g_autofree char *st = hostile_path(hc, "st");
  g_autoptr(GDir) d = g_dir_open(st, 0, NULL);
  g_assert_nonnull(d);
  g_autofree char *id = NULL;
  for (const char *name; (name = g_dir_read_name(d)) != NULL && id == NULL;)
    if (g_str_has_suffix(name, ".job"))
      id = g_strndup(name, strlen(name) - strlen(".job"));
  g_assert_nonnull(id);
  g_autofree char *job = g_strdup_printf("st/%s.job", id);
  g_autofree char *result = g_strdup_printf("st/%s.result", id);
  g_auto(HostileResult) run = {0};
  hostile_run(hc, &run, "run-job", job, result, NULL);
  g_assert_cmpint(run.status, ==, 0);

  g_autofree char *path = hostile_path(hc, result);
  g_autoptr(JsonParser) parser = json_parser_new();
  g_autoptr(GError) error = NULL;
  json_parser_load_from_file(parser, path, &error);
  g_assert_no_error(error);
  JsonNode *root = json_parser_get_root(parser);
  JsonArray *loads = json_array_new();
  json_array_add_int_element(loads, 1);
  json_object_set_array_member(json_node_get_object(root), "final_loads", loads);
  g_autoptr(JsonGenerator) gen = json_generator_new();
  json_generator_set_root(gen, root);
  g_autofree char *text = json_generator_to_data(gen, NULL);
  hostile_write(hc, result, text);

  hostile_snapshot(hc);
  g_auto(HostileResult) r = {0};
  hostile_run(hc, &r, "merge", "st", "-o", "merged.json", NULL);
  hostile_assert_refused(&r, 2, result, "final_loads: 1 entries, expected 16 (one per rank)", NULL);
  hostile_assert_unchanged(hc);
}

void
hostile_register_jobs_and_results(void)
{
  g_test_add_func("/hostile/jobs/repeated-balancer", test_job_repeated_balancer);
  g_test_add_func("/hostile/jobs/unknown-key", test_job_unknown_key);
  g_test_add_func("/hostile/jobs/unknown-group", test_job_unknown_group);
  g_test_add_func("/hostile/jobs/set2-without-set1", test_job_set2_without_set1);
  g_test_add_func("/hostile/jobs/malformed-set", test_job_malformed_set);
  g_test_add_func("/hostile/jobs/bad-set-key", test_job_bad_set_key);
  g_test_add_func("/hostile/jobs/bad-ranks", test_job_bad_ranks);
  g_test_add_func("/hostile/jobs/missing-balancer", test_job_missing_balancer);
  g_test_add_func("/hostile/jobs/help-example", test_job_help_example);
  g_test_add_func("/hostile/results/report-deep", test_report_deep);
  g_test_add_func("/hostile/results/report-wrong-type", test_report_wrong_type);
  g_test_add_func("/hostile/results/report-negative-ranks", test_report_negative_ranks);
  g_test_add_func("/hostile/results/report-huge-number", test_report_huge_number);
  g_test_add_func("/hostile/results/report-final-loads", test_report_final_loads);
  g_test_add_func("/hostile/results/report-missing-field", test_report_missing_field);
  g_test_add_func("/hostile/results/merge-malformed", test_merge_malformed);
}
