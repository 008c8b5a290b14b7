/* lbsim sweep and lbsim merge: the values of --vary, the cross product and
 * its order, results equal to lbsim run's at each point, resumption after
 * a kill, the emit / run-job / merge round trip, and what is refused. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sweep/emit.h"
#include "sweep/sweep.h"
#include "report/report.h"
#include "lbsim-spawn.h"

#define TEACH "scenarios/mlb-teach-16.ini"
#define DLS "scenarios/dls-aqr-hetero-32.ini"

static char *tmp_dir;

static char *
tmp_path(const char *name)
{
  if (tmp_dir == NULL)
    tmp_dir = g_dir_make_tmp("lbsim-sweep-XXXXXX", NULL);
  g_assert_nonnull(tmp_dir);
  return g_build_filename(tmp_dir, name, NULL);
}

static char *
read_text(const char *path)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, &error));
  g_assert_no_error(error);
  return g_steal_pointer(&text);
}

/* A node as compact text without its `measured` objects. */
static void
drop_measured(JsonNode *node)
{
  if (JSON_NODE_HOLDS_OBJECT(node)) {
    JsonObject *o = json_node_get_object(node);
    if (json_object_has_member(o, "measured"))
      json_object_remove_member(o, "measured");
    g_autoptr(GList) members = json_object_get_values(o);
    for (GList *m = members; m != NULL; m = m->next)
      drop_measured(m->data);
  } else if (JSON_NODE_HOLDS_ARRAY(node)) {
    JsonArray *a = json_node_get_array(node);
    for (guint i = 0; i < json_array_get_length(a); i++)
      drop_measured(json_array_get_element(a, i));
  }
}

static char *
canonical(JsonNode *node)
{
  g_autoptr(JsonNode) copy = json_node_copy(node);
  drop_measured(copy);
  return json_to_string(copy, FALSE);
}

static JsonArray *
runs_of(JsonNode *root)
{
  return json_object_get_array_member(json_node_get_object(root), "runs");
}

static guint
count_results(const char *dir)
{
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  const char *name;
  guint n = 0;
  while (d != NULL && (name = g_dir_read_name(d)) != NULL)
    n += g_str_has_suffix(name, ".result");
  return n;
}

/* The unsigned number after `key` in text (a message of lbsim's). */
static guint
number_before(const char *text, const char *key)
{
  const char *at = strstr(text, key);
  g_assert_nonnull(at);
  while (at > text && g_ascii_isdigit(at[-1]))
    at--;
  return (guint)g_ascii_strtoull(at, NULL, 10);
}

static void
test_values(void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) tenths = lb_sweep_values_parse("1.1:2.0:0.1", &error);
  g_assert_no_error(error);
  g_assert_cmpuint(tenths->len, ==, 10);
  for (guint k = 0; k < 10; k++) {
    g_autofree char *expected = g_strdup_printf("%u.%u", (11 + k) / 10, (11 + k) % 10);
    g_assert_cmpstr(tenths->pdata[k], ==, expected);
  }
  static const struct {
    const char *text;
    const char *joined;
  } good[] = {
      {"16,64, 256 ,1024", "16 64 256 1024"},
      {"5:1:-2", "5 3 1"},
      {"0.05:0.2:0.05", "0.05 0.10 0.15 0.20"},
      {"1:2:0.3", "1.0 1.3 1.6 1.9"},
      {"-1:1:1", "-1 0 1"},
      {"7:7:3", "7"},
      {"1:3:1,10", "1 2 3 10"},
      {"dls:stat,dls:gss", "dls:stat dls:gss"},
      {"1:2", "1:2"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(good); i++) {
    g_autoptr(GPtrArray) v = lb_sweep_values_parse(good[i].text, &error);
    g_assert_no_error(error);
    g_ptr_array_add(v, NULL);
    g_autofree char *joined = g_strjoinv(" ", (char **)v->pdata);
    g_assert_cmpstr(joined, ==, good[i].joined);
  }
  static const char *const bad[] = {
      "1:2:0", "2:1:1", "1:2:-0.5", "1,,2", "", "1,2,1", "0:1:0.0000000000000000001", "1:3:1,2"};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autoptr(GError) e = NULL;
    g_autoptr(GPtrArray) v = lb_sweep_values_parse(bad[i], &e);
    g_assert_null(v);
    g_assert_error(e, LB_SWEEP_ERROR, LB_SWEEP_ERROR_INPUT);
  }
}

static const char *const ranks[] = {"8", "16"};
static const char *const highs[] = {"3", "10"};
static const char *const teach_balancers[] = {"none", "mlb"};

/* The teach scenario over ranks (platform from a pattern) and workload.high. */
static void
sweep_teach(Result *r, const char *json, const char *csv, const char *jobs)
{
  lbsim(r, "sweep", TEACH, "--vary", "ranks=8,16", "--platform", "hypercube-{ranks}.xml", "--vary",
        "workload.high=3,10", "-o", json, "--csv", csv, "-j", jobs, NULL);
}

static void
test_order(void)
{
  g_autofree char *json = tmp_path("order.json");
  g_autofree char *csv = tmp_path("order.csv");
  g_auto(Result) r = {0};
  sweep_teach(&r, json, csv, "2");
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.err, "8 runs, 0 reused"));
  g_assert_null(strchr(r.err, '\r')); /* no progress line off a terminal */
  g_autoptr(JsonNode) root = load_json(json);
  JsonObject *sweep = json_object_get_object_member(json_node_get_object(root), "sweep");
  guint total = G_N_ELEMENTS(ranks) * G_N_ELEMENTS(highs) * G_N_ELEMENTS(teach_balancers);
  g_assert_cmpint(json_object_get_int_member(sweep, "runs_total"), ==, total);
  JsonArray *vary = json_object_get_array_member(sweep, "vary");
  g_assert_cmpuint(json_array_get_length(vary), ==, 2);
  g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(vary, 1), "name"), ==,
                  "workload.high");
  JsonArray *runs = runs_of(root);
  g_assert_cmpuint(json_array_get_length(runs), ==, total);
  guint k = 0;
  for (guint a = 0; a < G_N_ELEMENTS(ranks); a++)
    for (guint b = 0; b < G_N_ELEMENTS(highs); b++)
      for (guint c = 0; c < G_N_ELEMENTS(teach_balancers); c++, k++) {
        JsonObject *run = json_array_get_object_element(runs, k);
        JsonObject *point = json_object_get_object_member(run, "point");
        g_assert_cmpint(json_object_get_int_member(point, "ranks"), ==, atoi(ranks[a]));
        /* GROUP.KEY nested, a number as a number (format_version 2) */
        g_assert_false(json_object_has_member(point, "workload.high"));
        JsonObject *workload = json_object_get_object_member(point, "workload");
        g_assert_cmpint(json_object_get_int_member(workload, "high"), ==, atoi(highs[b]));
        g_assert_cmpstr(json_object_get_string_member(run, "balancer"), ==, teach_balancers[c]);
        JsonObject *result = json_object_get_object_member(run, "result");
        /* the platform of the pattern: one host per rank */
        g_assert_cmpint(json_object_get_int_member(result, "hosts"), ==, atoi(ranks[a]));
      }
}

/* Each run of the sweep is the run lbsim run gives at its point, in JSON
 * and in CSV (the point's values first). */
static void
test_equals_run(void)
{
  g_autofree char *json = tmp_path("equal.json");
  g_autofree char *csv = tmp_path("equal.csv");
  g_auto(Result) r = {0};
  sweep_teach(&r, json, csv, "1");
  g_assert_cmpint(r.status, ==, 0);
  g_autoptr(JsonNode) root = load_json(json);
  JsonArray *runs = runs_of(root);
  g_autofree char *csv_text = read_text(csv);
  g_auto(GStrv) rows = g_strsplit(csv_text, "\n", -1);
  guint k = 0;
  for (guint a = 0; a < G_N_ELEMENTS(ranks); a++)
    for (guint b = 0; b < G_N_ELEMENTS(highs); b++) {
      g_autofree char *one = tmp_path("one.json");
      g_autofree char *one_csv = tmp_path("one.csv");
      g_autofree char *platform = g_strdup_printf("platforms/hypercube-%s.xml", ranks[a]);
      g_autofree char *set = g_strdup_printf("workload.high=%s", highs[b]);
      g_auto(Result) single = {0};
      lbsim(&single, "run", "-q", TEACH, "--ranks", ranks[a], "--platform", platform, "--set", set,
            "-o", one, "--csv", one_csv, NULL);
      g_assert_cmpint(single.status, ==, 0);
      g_autoptr(JsonNode) doc = load_json(one);
      JsonArray *want = runs_of(doc);
      g_autofree char *single_csv = read_text(one_csv);
      g_auto(GStrv) want_rows = g_strsplit(single_csv, "\n", -1);
      if (k == 0) {
        g_autofree char *head = g_strdup_printf("ranks,workload.high,%s", want_rows[0]);
        g_assert_cmpstr(rows[0], ==, head);
      }
      g_assert_cmpuint(json_array_get_length(want), ==, G_N_ELEMENTS(teach_balancers));
      for (guint c = 0; c < json_array_get_length(want); c++, k++) {
        JsonObject *run = json_array_get_object_element(runs, k);
        g_autofree char *got = canonical(json_object_get_member(run, "result"));
        g_autofree char *expected = canonical(json_array_get_element(want, c));
        g_assert_cmpstr(got, ==, expected);
        g_autofree char *row = g_strdup_printf("%s,%s,%s", ranks[a], highs[b], want_rows[c + 1]);
        g_assert_cmpstr(rows[k + 1], ==, row);
      }
    }
  g_assert_cmpuint(k, ==, json_array_get_length(runs));
}

/* dls relates each run to the point's STAT run: the same figures as
 * lbsim run of the same balancers, with balancer varied. */
static void
test_related(void)
{
  g_autofree char *json = tmp_path("related.json");
  g_auto(Result) r = {0};
  lbsim(&r, "sweep", DLS, "--vary", "balancer=dls:stat,dls:gss", "--vary",
        "workload.iterations=5200,10400", "-o", json, "-q", NULL);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_cmpstr(r.err, ==, "");
  g_autoptr(JsonNode) root = load_json(json);
  JsonArray *runs = runs_of(root);
  g_assert_cmpuint(json_array_get_length(runs), ==, 4);
  static const char *const iterations[] = {"5200", "10400"};
  for (guint p = 0; p < G_N_ELEMENTS(iterations); p++) {
    g_autofree char *one = tmp_path("related-one.json");
    g_autofree char *set = g_strdup_printf("workload.iterations=%s", iterations[p]);
    g_auto(Result) single = {0};
    lbsim(&single, "run", "-q", DLS, "--set", "balancers.run=dls:stat, dls:gss", "--set", set, "-o",
          one, NULL);
    g_assert_cmpint(single.status, ==, 0);
    g_autoptr(JsonNode) doc = load_json(one);
    for (guint c = 0; c < 2; c++) {
      JsonObject *run = json_array_get_object_element(runs, 2 * p + c);
      g_autofree char *got = canonical(json_object_get_member(run, "result"));
      g_autofree char *expected = canonical(json_array_get_element(runs_of(doc), c));
      g_assert_cmpstr(got, ==, expected);
    }
    /* gss improves on STAT: the related metric was filled in */
    JsonObject *gss = json_array_get_object_element(runs, 2 * p + 1);
    JsonObject *metrics =
        json_object_get_object_member(json_object_get_object_member(gss, "result"), "metrics");
    g_assert_cmpfloat(json_object_get_double_member(metrics, "cost_improvement"), >, 0);
  }
}

static void
new_group(gpointer data)
{
  (void)data;
  setpgid(0, 0);
}

/* A sweep killed (with its children, as a node that dies) after its first
 * result, started again: it reuses what was kept, runs only the rest, and
 * ends with the document of a sweep never interrupted. */
static void
test_resume(void)
{
  g_autofree char *whole = tmp_path("whole.json");
  g_autofree char *json = tmp_path("resumed.json");
  g_autofree char *state = tmp_path("resumed.d");
  g_auto(Result) w = {0};
  lbsim(&w, "sweep", TEACH, "--vary", "workload.high=2:9:1", "-o", whole, "-j", "2", NULL);
  g_assert_cmpint(w.status, ==, 0);
  guint total = number_before(w.err, " runs, 0 reused");
  g_assert_cmpuint(total, ==, 8 * 2);

  const char *argv[] = {g_getenv("LBSIM"),
                        "sweep",
                        TEACH,
                        "--vary",
                        "workload.high=2:9:1",
                        "-o",
                        json,
                        "-j",
                        "1",
                        NULL};
  GPid pid = 0;
  g_autoptr(GError) error = NULL;
  g_assert_true(g_spawn_async(source_root(), (char **)argv, NULL,
                              G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDERR_TO_DEV_NULL, new_group,
                              NULL, &pid, &error));
  g_assert_no_error(error);
  gint64 deadline = g_get_monotonic_time() + 120 * G_USEC_PER_SEC;
  while (count_results(state) == 0 && g_get_monotonic_time() < deadline)
    g_usleep(2000);
  kill(-pid, SIGKILL);
  int status = 0;
  g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
  g_assert_true(WIFSIGNALED(status));
  g_usleep(100000); /* the group's children too */
  guint kept = count_results(state);
  g_assert_cmpuint(kept, >=, 1);
  g_assert_cmpuint(kept, <, total);

  g_auto(Result) again = {0};
  lbsim(&again, "sweep", TEACH, "--vary", "workload.high=2:9:1", "-o", json, "-j", "1", NULL);
  g_assert_cmpint(again.status, ==, 0);
  g_autofree char *reused = g_strdup_printf("%u runs, %u reused", total, kept);
  g_assert_nonnull(strstr(again.err, reused));
  g_assert_cmpuint(number_before(again.err, " runs done in"), ==, total - kept);
  g_autofree char *a = read_text(whole);
  g_autofree char *b = read_text(json);
  g_autofree char *a_fixed = json_without_measured(a);
  g_autofree char *b_fixed = json_without_measured(b);
  g_assert_cmpstr(a_fixed, ==, b_fixed);
}

static void
run_lines(char **lines, guint from, guint to)
{
  for (guint i = from; i < to; i++) {
    int status = 0;
    g_autoptr(GError) error = NULL;
    g_autofree char *quoted = g_shell_quote(lines[i]);
    g_autofree char *sh = g_strdup_printf("sh -c %s", quoted);
    g_assert_true(g_spawn_command_line_sync(sh, NULL, NULL, &status, &error));
    g_assert_no_error(error);
    g_assert_true(g_spawn_check_wait_status(status, NULL));
  }
}

/* A result spoiled one member at a time, as a node's copy could come
 * back: merge refuses it (status 2) naming the file and the member, and
 * writes nothing. */
typedef void (*Spoil)(JsonObject *o);

static void
spoil_version(JsonObject *o)
{
  json_object_set_int_member(o, "version", 3);
}

static void
spoil_ranks(JsonObject *o)
{
  json_object_set_int_member(o, "ranks", -5);
}

static void
spoil_steps(JsonObject *o)
{
  json_object_set_int_member(o, "steps", G_MAXINT32);
}

static void
spoil_final_loads(JsonObject *o)
{
  json_array_remove_element(json_object_get_array_member(o, "final_loads"), 0);
}

static void
spoil_load(JsonObject *o)
{
  JsonArray *loads = json_object_get_array_member(o, "final_loads");
  json_array_remove_element(loads, 3);
  json_array_add_string_element(loads, "40");
}

static void
spoil_messages(JsonObject *o)
{
  JsonObject *summary = json_object_get_object_member(o, "summary");
  json_object_set_double_member(summary, "messages", -1);
}

static void
spoil_phase(JsonObject *o)
{
  JsonArray *phases = json_object_get_array_member(o, "phases");
  json_array_remove_element(phases, 0);
  json_array_add_string_element(phases, "x");
}

static void
spoil_balancer(JsonObject *o)
{
  json_object_remove_member(o, "balancer");
}

static void
spoil_max_load(JsonObject *o)
{
  JsonArray *a = json_array_get_array_element(json_object_get_array_member(o, "adaptations"), 0);
  JsonArray *row = json_array_new();
  for (guint i = 0; i < json_array_get_length(a); i++)
    json_array_add_double_element(row, i == 3 ? 1e300 : json_array_get_double_element(a, i));
  json_array_remove_element(json_object_get_array_member(o, "adaptations"), 0);
  json_array_add_array_element(json_object_get_array_member(o, "adaptations"), row);
}

static void
spoil_param(JsonObject *o)
{
  json_object_set_int_member(json_object_get_object_member(o, "params"), "phase4", 1);
}

static void
spoil_partition(JsonObject *o)
{
  json_object_set_array_member(o, "partition", json_array_new());
}

static void
test_merge_malformed(void)
{
  static const struct {
    Spoil spoil;
    const char *says;
  } cases[] = {
      {spoil_version, "version: expected a whole number from 2 to 2"},
      {spoil_ranks, "ranks: expected a whole number from 1 to 1048576"},
      {spoil_steps, "adaptations: 1 entries, expected 2147483647 (one per step)"},
      {spoil_final_loads, "final_loads: 15 entries, expected 16 (one per rank)"},
      {spoil_load, "final_loads[15]: expected a whole number from 0 to"},
      {spoil_messages, "summary.messages: expected a number from 0 to 2^64"},
      {spoil_phase, "phases[3]: expected an array of 4 numbers"},
      {spoil_balancer, "balancer: missing, expected a string"},
      {spoil_max_load, "adaptations[0][3] (max_load_after): expected a number from 0 to 2^64"},
      {spoil_param, "params.phase4: expected a string"},
      {spoil_partition, "dim: missing, expected a whole number from 1 to 3"},
      {NULL, "nested more than 64 deep"},
  };
  g_autofree char *json = tmp_path("malformed.json");
  g_autofree char *jobs = tmp_path("malformed-jobs.txt");
  g_autofree char *state = tmp_path("malformed.d");
  g_auto(Result) e = {0};
  lbsim(&e, "sweep", TEACH, "--vary", "workload.high=3", "-o", json, "--emit-jobs", jobs, NULL);
  g_assert_cmpint(e.status, ==, 0);
  g_autofree char *text = read_text(jobs);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  guint mlb = 0;
  for (; lines[mlb] != NULL && lines[mlb][0] != '\0'; mlb++) {
    g_auto(GStrv) words = g_strsplit(lines[mlb], " ", -1);
    g_autofree char *job = read_text(words[2]);
    if (strstr(job, "balancer=mlb\n") != NULL)
      break;
  }
  g_assert_true(lines[mlb] != NULL && lines[mlb][0] != '\0');
  run_lines(lines, mlb, mlb + 1);
  g_auto(GStrv) words = g_strsplit(lines[mlb], " ", -1);
  const char *result = words[3];
  g_autofree char *good = read_text(result);
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *bad = NULL;
    if (cases[i].spoil != NULL) {
      g_autoptr(JsonParser) parser = json_parser_new();
      g_autoptr(GError) error = NULL;
      json_parser_load_from_data(parser, good, -1, &error);
      g_assert_no_error(error);
      cases[i].spoil(json_node_get_object(json_parser_get_root(parser)));
      bad = json_to_string(json_parser_get_root(parser), FALSE);
    } else {
      g_autofree char *deep = g_strnfill(1000, '[');
      bad = g_strdup_printf("{\"version\": %s", deep);
    }
    g_assert_true(g_file_set_contents(result, bad, -1, NULL));
    g_auto(Result) m = {0};
    lbsim(&m, "merge", "--partial", "-o", json, state, NULL);
    if (m.status != 2)
      g_error("case %u: exit status %d:\n%s", i, m.status, m.err);
    g_assert_nonnull(strstr(m.err, result));
    if (strstr(m.err, cases[i].says) == NULL)
      g_error("case %u: %s", i, m.err);
    g_assert_false(g_file_test(json, G_FILE_TEST_EXISTS));
  }
  g_assert_true(g_file_set_contents(result, good, -1, NULL));
  g_auto(Result) m = {0};
  lbsim(&m, "merge", "--partial", "-o", json, state, NULL);
  g_assert_cmpint(m.status, ==, 0);
  g_assert_true(g_file_test(json, G_FILE_TEST_EXISTS));
}

/* Varying one balancer's key runs every other balancer once: none of the
 * teaching scenario runs once for mlb's two values of desired, its one
 * result is every point's, mlb runs at both; emitted jobs and a merge do
 * the same. */
static void
test_shared_runs(void)
{
  g_autofree char *json = tmp_path("shared.json");
  g_autofree char *state = tmp_path("shared.d");
  g_auto(Result) r = {0};
  lbsim(&r, "sweep", TEACH, "--vary", "mlb.desired=halving,even", "-o", json, "-j", "2", NULL);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.err, "4 runs, 3 of them distinct"));
  g_assert_cmpuint(count_results(state), ==, 3);
  g_autoptr(JsonNode) root = load_json(json);
  JsonArray *runs = runs_of(root);
  g_assert_cmpuint(json_array_get_length(runs), ==, 4);
  /* in the cross product's order: (halving: none, mlb), (even: none, mlb) */
  g_autofree char *none1 =
      canonical(json_object_get_member(json_array_get_object_element(runs, 0), "result"));
  g_autofree char *none2 =
      canonical(json_object_get_member(json_array_get_object_element(runs, 2), "result"));
  g_autofree char *mlb1 =
      canonical(json_object_get_member(json_array_get_object_element(runs, 1), "result"));
  g_autofree char *mlb2 =
      canonical(json_object_get_member(json_array_get_object_element(runs, 3), "result"));
  g_assert_nonnull(strstr(none1, "\"balancer\":\"none\""));
  g_assert_cmpstr(none1, ==, none2);
  g_assert_nonnull(strstr(mlb1, "\"desired\":\"halving\""));
  g_assert_nonnull(strstr(mlb2, "\"desired\":\"even\""));
  /* each point's own none: the same as a sweep that runs none alone */
  g_autofree char *alone = tmp_path("shared-none.json");
  g_auto(Result) a = {0};
  lbsim(&a, "sweep", TEACH, "--vary", "balancer=none", "-o", alone, NULL);
  g_assert_cmpint(a.status, ==, 0);
  g_autoptr(JsonNode) aroot = load_json(alone);
  g_autofree char *none0 =
      canonical(json_object_get_member(json_array_get_object_element(runs_of(aroot), 0), "result"));
  g_assert_cmpstr(none0, ==, none1);

  /* for a cluster: three jobs, and the merge fills the four runs */
  g_autofree char *cjson = tmp_path("shared-cluster.json");
  g_autofree char *cstate = tmp_path("shared-cluster.d");
  g_autofree char *jobs = tmp_path("shared-jobs.txt");
  g_auto(Result) e = {0};
  lbsim(&e, "sweep", TEACH, "--vary", "mlb.desired=halving,even", "-o", cjson, "--emit-jobs", jobs,
        NULL);
  g_assert_cmpint(e.status, ==, 0);
  g_autofree char *text = read_text(jobs);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  g_assert_cmpuint(g_strv_length(lines), ==, 4); /* three and the empty last */
  run_lines(lines, 0, 3);
  g_auto(Result) m = {0};
  lbsim(&m, "merge", "-o", cjson, cstate, NULL);
  g_assert_cmpint(m.status, ==, 0);
  g_autoptr(JsonNode) croot = load_json(cjson);
  g_assert_cmpuint(json_array_get_length(runs_of(croot)), ==, 4);
  for (guint i = 0; i < 4; i++) {
    g_autofree char *x =
        canonical(json_object_get_member(json_array_get_object_element(runs, i), "result"));
    g_autofree char *y = canonical(
        json_object_get_member(json_array_get_object_element(runs_of(croot), i), "result"));
    g_assert_cmpstr(x, ==, y);
  }
  /* the three result files alone (as copied back from nodes): the same */
  g_autofree char *fjson = tmp_path("shared-files.json");
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(args, g_strdup("merge"));
  g_ptr_array_add(args, g_strdup("-o"));
  g_ptr_array_add(args, g_strdup(fjson));
  g_autoptr(GDir) d = g_dir_open(cstate, 0, NULL);
  const char *name;
  while ((name = g_dir_read_name(d)) != NULL)
    if (g_str_has_suffix(name, ".result"))
      g_ptr_array_add(args, g_build_filename(cstate, name, NULL));
  g_assert_cmpuint(args->len, ==, 3 + 3);
  g_auto(Result) f = {0};
  lbsim(&f, args->pdata[0], args->pdata[1], args->pdata[2], args->pdata[3], args->pdata[4],
        args->pdata[5], NULL);
  g_assert_cmpint(f.status, ==, 0);
  g_autoptr(JsonNode) froot = load_json(fjson);
  g_assert_cmpuint(json_array_get_length(runs_of(froot)), ==, 4);
  for (guint i = 0; i < 4; i++) {
    g_autofree char *x =
        canonical(json_object_get_member(json_array_get_object_element(runs, i), "result"));
    g_autofree char *y = canonical(
        json_object_get_member(json_array_get_object_element(runs_of(froot), i), "result"));
    g_assert_cmpstr(x, ==, y);
  }
}

/* The jobs emitted for a cluster, run in two halves as two nodes would,
 * then merged: the local sweep's document. Before the second half, merge
 * names every missing run. */
static void
test_emit_merge(void)
{
  g_autofree char *local = tmp_path("local.json");
  g_autofree char *local_csv = tmp_path("local.csv");
  g_auto(Result) l = {0};
  sweep_teach(&l, local, local_csv, "2");
  g_assert_cmpint(l.status, ==, 0);

  g_autofree char *json = tmp_path("cluster.json");
  g_autofree char *csv = tmp_path("cluster.csv");
  g_autofree char *state = tmp_path("cluster.d");
  g_autofree char *jobs = tmp_path("jobs.txt");
  g_auto(Result) e = {0};
  lbsim(&e, "sweep", TEACH, "--vary", "ranks=8,16", "--platform", "hypercube-{ranks}.xml", "--vary",
        "workload.high=3,10", "-o", json, "--emit-jobs", jobs, NULL);
  g_assert_cmpint(e.status, ==, 0);
  g_assert_false(g_file_test(json, G_FILE_TEST_EXISTS));
  g_autofree char *text = read_text(jobs);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  guint n = g_strv_length(lines) - 1;
  g_assert_cmpuint(n, ==, 8);
  g_assert_cmpstr(lines[n], ==, "");
  for (guint i = 0; i < n; i++) {
    g_auto(GStrv) words = g_strsplit(lines[i], " ", -1);
    g_assert_cmpuint(g_strv_length(words), ==, 4);
    g_assert_true(g_path_is_absolute(words[0]));
    g_assert_cmpstr(words[1], ==, "run-job");
    g_assert_true(g_path_is_absolute(words[2]) && g_str_has_suffix(words[2], ".job"));
    g_assert_true(g_path_is_absolute(words[3]) && g_str_has_suffix(words[3], ".result"));
  }

  run_lines(lines, 0, n / 2);
  g_auto(Result) part = {0};
  lbsim(&part, "merge", "-o", json, state, NULL);
  g_assert_cmpint(part.status, ==, 1);
  g_assert_false(g_file_test(json, G_FILE_TEST_EXISTS));
  for (guint i = n / 2; i < n; i++) {
    g_auto(GStrv) words = g_strsplit(lines[i], " ", -1);
    g_autofree char *base = g_path_get_basename(words[3]);
    g_assert_nonnull(strstr(part.err, base));
  }
  for (guint i = 0; i < n / 2; i++) {
    g_auto(GStrv) words = g_strsplit(lines[i], " ", -1);
    g_autofree char *base = g_path_get_basename(words[3]);
    g_assert_null(strstr(part.err, base));
  }
  g_auto(Result) partial = {0};
  lbsim(&partial, "merge", "--partial", "-o", json, state, NULL);
  g_assert_cmpint(partial.status, ==, 0);
  g_autoptr(JsonNode) half = load_json(json);
  g_assert_cmpuint(json_array_get_length(runs_of(half)), ==, n / 2);

  run_lines(lines, n / 2, n);
  g_auto(Result) m = {0};
  lbsim(&m, "merge", "-o", json, "--csv", csv, state, NULL);
  g_assert_cmpint(m.status, ==, 0);
  g_autofree char *a = read_text(local);
  g_autofree char *b = read_text(json);
  g_autofree char *a_fixed = json_without_measured(a);
  g_autofree char *b_fixed = json_without_measured(b);
  g_assert_cmpstr(a_fixed, ==, b_fixed);
  g_autofree char *a_csv = read_text(local_csv);
  g_autofree char *b_csv = read_text(csv);
  g_assert_cmpstr(a_csv, ==, b_csv);

  /* the result files themselves, as copied back from nodes, with the
   * state folder for the sweep's definition */
  g_autofree char *again = tmp_path("files.json");
  g_autoptr(GPtrArray) args = g_ptr_array_new();
  g_ptr_array_add(args, (gpointer)g_getenv("LBSIM"));
  g_ptr_array_add(args, "merge");
  g_ptr_array_add(args, "-o");
  g_ptr_array_add(args, again);
  g_auto(GStrv) results = g_new0(char *, n + 1);
  for (guint i = 0; i < n; i++) {
    g_auto(GStrv) words = g_strsplit(lines[i], " ", -1);
    results[i] = g_strdup(words[3]);
    g_ptr_array_add(args, results[i]);
  }
  g_ptr_array_add(args, NULL);
  int status = 0;
  g_autoptr(GError) error = NULL;
  g_assert_true(g_spawn_sync(source_root(), (char **)args->pdata, NULL,
                             G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                             NULL, NULL, &status, &error));
  g_assert_no_error(error);
  g_assert_true(g_spawn_check_wait_status(status, NULL));
  g_autofree char *c = read_text(again);
  g_autofree char *c_fixed = json_without_measured(c);
  g_assert_cmpstr(a_fixed, ==, c_fixed);

  /* emitted again: only what is missing, here nothing */
  g_auto(Result) e2 = {0};
  lbsim(&e2, "sweep", TEACH, "--vary", "ranks=8,16", "--platform", "hypercube-{ranks}.xml",
        "--vary", "workload.high=3,10", "-o", json, "--emit-jobs", jobs, NULL);
  g_assert_cmpint(e2.status, ==, 0);
  g_autofree char *none = read_text(jobs);
  g_assert_cmpstr(none, ==, "");
}

/* ---- schedulers: Slurm through stand-ins, GNU parallel ---- */

/* The runs of sweep_teach, as lbsim names them ("ranks=8 workload.high=3
 * balancer=none"), in the cross product's order. */
static GPtrArray *
teach_labels(void)
{
  GPtrArray *labels = g_ptr_array_new_with_free_func(g_free);
  for (guint a = 0; a < G_N_ELEMENTS(ranks); a++)
    for (guint b = 0; b < G_N_ELEMENTS(highs); b++)
      for (guint c = 0; c < G_N_ELEMENTS(teach_balancers); c++)
        g_ptr_array_add(labels, g_strdup_printf("ranks=%s workload.high=%s balancer=%s", ranks[a],
                                                highs[b], teach_balancers[c]));
  return labels;
}

/* A shell command line in folder dir with bin first on PATH; its exit
 * status, its stdout and stderr in r. */
static void
run_shell(Result *r, const char *dir, const char *bin, const char *line)
{
  const char *argv[] = {"/bin/bash", "-c", line, NULL};
  g_auto(GStrv) env = g_get_environ();
  if (bin != NULL) {
    g_autofree char *path = g_strdup_printf("%s:%s", bin, g_getenv("PATH"));
    env = g_environ_setenv(env, "PATH", path, TRUE);
  }
  int status = 0;
  g_autoptr(GError) error = NULL;
  g_assert_true(g_spawn_sync(dir, (char **)argv, env, G_SPAWN_DEFAULT, NULL, NULL, &r->out, &r->err,
                             &status, &error));
  g_assert_no_error(error);
  r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void
write_program(const char *path, const char *text)
{
  g_assert_true(g_file_set_contents(path, text, -1, NULL));
  g_assert_cmpint(g_chmod(path, 0755), ==, 0);
}

/* Small stand-ins for Slurm: sbatch runs a script at once, each task of
 * its #SBATCH --array in turn with SLURM_ARRAY_TASK_ID set, and prints a
 * job number (--parsable: with a cluster name after it, as Slurm may);
 * srun drops its options and runs the command. Both log to bin/log. */
static const char sbatch_standin[] =
    "#!/bin/bash\n"
    "set -eu\n"
    "log=\"$(dirname \"$0\")/log\"\n"
    "parsable=0 dependency=\n"
    "while [ $# -gt 1 ]; do\n"
    "  case \"$1\" in\n"
    "    --parsable) parsable=1 ;;\n"
    "    --dependency=*) dependency=${1#--dependency=} ;;\n"
    "    *) echo \"sbatch stand-in: unexpected $1\" >&2; exit 2 ;;\n"
    "  esac\n"
    "  shift\n"
    "done\n"
    "id=$(( $(grep -c '^sbatch' \"$log\" || true) + 1 ))\n"
    "echo \"sbatch $id dependency=$dependency $(basename \"$1\")\" >> \"$log\"\n"
    "tasks=$(sed -n 's/^#SBATCH --array=1-\\([0-9]*\\)\\(%[0-9]*\\)\\{0,1\\}$/\\1/p' \"$1\")\n"
    "if [ -n \"$tasks\" ]; then\n"
    "  for task in $(seq 1 \"$tasks\"); do\n"
    "    SLURM_ARRAY_JOB_ID=$id SLURM_ARRAY_TASK_ID=$task bash \"$1\" >&2 ||\n"
    "      echo \"task $task failed\" >> \"$log\"\n"
    "  done\n"
    "else\n"
    "  SLURM_JOB_ID=$id bash \"$1\" >&2 || echo \"job $id failed\" >> \"$log\"\n"
    "fi\n"
    "if [ $parsable = 1 ]; then echo \"$id;cluster\"; else echo \"Submitted batch job $id\"; fi\n";

static const char srun_standin[] =
    "#!/bin/bash\n"
    "echo \"srun $SLURM_ARRAY_TASK_ID\" >> \"$(dirname \"$0\")/log\"\n"
    "while [ \"${1#-}\" != \"$1\" ]; do shift; done\n"
    "exec \"$@\"\n";

/* The sweep as a Slurm array: the scripts pass bash -n, name every run's
 * point above its task, and run end to end through the stand-ins (the
 * array, then the merge with a dependency on it) into the local sweep's
 * JSON and CSV. --lbsim is the program the jobs run; with fewer tasks
 * than runs (--slurm-max-array) each task runs every third. */
static void
test_emit_slurm(void)
{
  g_autofree char *local = tmp_path("slurm-local.json");
  g_autofree char *local_csv = tmp_path("slurm-local.csv");
  g_auto(Result) l = {0};
  sweep_teach(&l, local, local_csv, "2");
  g_assert_cmpint(l.status, ==, 0);

  g_autofree char *bin = tmp_path("slurm-bin");
  g_assert_cmpint(g_mkdir(bin, 0777), ==, 0);
  g_autofree char *sbatch = g_build_filename(bin, "sbatch", NULL);
  g_autofree char *srun = g_build_filename(bin, "srun", NULL);
  g_autofree char *log = g_build_filename(bin, "log", NULL);
  g_autofree char *wrapper = g_build_filename(bin, "my-lbsim", NULL);
  write_program(sbatch, sbatch_standin);
  write_program(srun, srun_standin);
  g_autofree char *wrapper_text = g_strdup_printf(
      "#!/bin/bash\necho \"lbsim $1\" >> %s\nexec %s \"$@\"\n", log, g_getenv("LBSIM"));
  write_program(wrapper, wrapper_text);
  g_assert_true(g_file_set_contents(log, "", 0, NULL));

  g_autofree char *json = tmp_path("slurm.json");
  g_autofree char *csv = tmp_path("slurm.csv");
  g_autofree char *dir = tmp_path("slurm-jobs");
  g_auto(Result) e = {0};
  lbsim(&e, "sweep", TEACH, "--vary", "ranks=8,16", "--platform", "hypercube-{ranks}.xml", "--vary",
        "workload.high=3,10", "-o", json, "--csv", csv, "--emit-jobs", dir, "--scheduler", "slurm",
        "--lbsim", wrapper, "--slurm-time", "0:10:00", "--sbatch", "--account=lb", NULL);
  g_assert_cmpint(e.status, ==, 0);
  g_assert_false(g_file_test(json, G_FILE_TEST_EXISTS));
  static const char *const scripts[] = {"array.sbatch", "merge.sbatch", "submit.sh"};
  for (guint i = 0; i < G_N_ELEMENTS(scripts); i++) {
    g_autofree char *path = g_build_filename(dir, scripts[i], NULL);
    g_assert_true(g_file_test(path, G_FILE_TEST_IS_EXECUTABLE));
    g_autofree char *check = g_strdup_printf("bash -n %s", path);
    g_auto(Result) n = {0};
    run_shell(&n, tmp_dir, NULL, check);
    g_assert_cmpint(n.status, ==, 0);
    g_assert_cmpstr(n.err, ==, "");
  }
  /* every task named by its point, in the sweep's order */
  g_autofree char *array_path = g_build_filename(dir, "array.sbatch", NULL);
  g_autofree char *array = read_text(array_path);
  g_assert_nonnull(strstr(array, "\n#SBATCH --array=1-8\n"));
  g_assert_nonnull(strstr(array, "\n#SBATCH --time=0:10:00\n"));
  g_assert_nonnull(strstr(array, "\n#SBATCH --account=lb\n"));
  g_autoptr(GPtrArray) labels = teach_labels();
  for (guint i = 0; i < labels->len; i++) {
    g_autofree char *task = g_strdup_printf("\n  # %s\n  %u) id=", (char *)labels->pdata[i], i + 1);
    g_assert_nonnull(strstr(array, task));
  }
  /* emitted again with at most 3 tasks: task K runs K, K + 3, K + 6 */
  g_autofree char *long_csv = tmp_path("slurm-long.csv");
  g_auto(Result) three = {0};
  lbsim(&three, "sweep", TEACH, "--vary", "ranks=8,16", "--platform", "hypercube-{ranks}.xml",
        "--vary", "workload.high=3,10", "-o", json, "--csv", csv, "--long-csv", long_csv,
        "--emit-jobs", dir, "--scheduler", "slurm", "--lbsim", wrapper, "--slurm-max-array", "3",
        "--slurm-array-limit", "2", "--slurm-merge-time", "0:05:00", "--slurm-merge-mem", "8G",
        NULL);
  g_assert_cmpint(three.status, ==, 0);
  g_autofree char *array3 = read_text(array_path);
  /* at most two tasks at once; the merge job's own limits, the tasks' the
   * defaults */
  g_assert_nonnull(strstr(array3, "\n#SBATCH --array=1-3%2\n"));
  g_assert_null(strstr(array3, "--account"));
  g_assert_nonnull(strstr(array3, "\n#SBATCH --time=01:00:00\n#SBATCH --mem=2G\n"));
  /* the merge job writes the long CSV too */
  g_autofree char *merge_path = g_build_filename(dir, "merge.sbatch", NULL);
  g_autofree char *merge_text = read_text(merge_path);
  g_autofree char *long_arg = g_strdup_printf(" --long-csv %s", long_csv);
  g_assert_nonnull(strstr(merge_text, long_arg));
  g_assert_nonnull(strstr(merge_text, "\n#SBATCH --time=0:05:00\n#SBATCH --mem=8G\n"));

  g_autofree char *submit = g_build_filename(dir, "submit.sh", NULL);
  g_auto(Result) s = {0};
  run_shell(&s, tmp_dir, bin, submit);
  g_test_message("%s%s", s.out, s.err);
  g_assert_cmpint(s.status, ==, 0);
  g_assert_nonnull(strstr(s.out, "job array 1 (8 runs), then merge job 2"));
  g_autofree char *logged = read_text(log);
  g_autoptr(GString) want = g_string_new("sbatch 1 dependency= array.sbatch\n");
  for (guint i = 0; i < 8; i++)
    g_string_append_printf(want, "srun %u\nlbsim run-job\n", i / 3 + 1);
  g_string_append(want, "sbatch 2 dependency=afterany:1 merge.sbatch\nlbsim merge\n");
  g_assert_cmpstr(logged, ==, want->str);

  g_autofree char *a = read_text(local);
  g_autofree char *b = read_text(json);
  g_autofree char *a_fixed = json_without_measured(a);
  g_autofree char *b_fixed = json_without_measured(b);
  g_assert_cmpstr(a_fixed, ==, b_fixed);
  g_autofree char *a_csv = read_text(local_csv);
  g_autofree char *b_csv = read_text(csv);
  g_assert_cmpstr(a_csv, ==, b_csv);
  g_autofree char *long_text = read_text(long_csv);
  g_assert_true(g_str_has_prefix(long_text, "scenario,balancer,label,ranks,seed,"));

  /* emitted again: no task left, submit.sh only merges */
  g_auto(Result) again = {0};
  lbsim(&again, "sweep", TEACH, "--vary", "ranks=8,16", "--platform", "hypercube-{ranks}.xml",
        "--vary", "workload.high=3,10", "-o", json, "--csv", csv, "--emit-jobs", dir, "--scheduler",
        "slurm", NULL);
  g_assert_cmpint(again.status, ==, 0);
  g_autofree char *none = read_text(array_path);
  g_assert_null(strstr(none, "--array"));
  g_autofree char *submit_text = read_text(submit);
  g_assert_null(strstr(submit_text, "array.sbatch"));
  g_assert_nonnull(strstr(submit_text, "merge.sbatch"));
}

/* The job list for GNU parallel: each line ends with its run's point, so
 * parallel's joblog names every run; merged, the local sweep's JSON. */
static void
test_emit_parallel(void)
{
  g_autofree char *parallel = g_find_program_in_path("parallel");
  if (parallel == NULL) {
    g_test_skip("GNU parallel (Debian package parallel, tools/install-deps) is not installed");
    return;
  }
  g_autofree char *local = tmp_path("parallel-local.json");
  g_autofree char *local_csv = tmp_path("parallel-local.csv");
  g_auto(Result) l = {0};
  sweep_teach(&l, local, local_csv, "2");
  g_assert_cmpint(l.status, ==, 0);

  g_autofree char *json = tmp_path("parallel.json");
  g_autofree char *csv = tmp_path("parallel.csv");
  g_autofree char *jobs = tmp_path("parallel-jobs.txt");
  g_autofree char *state = tmp_path("parallel.d");
  g_auto(Result) e = {0};
  lbsim(&e, "sweep", TEACH, "--vary", "ranks=8,16", "--platform", "hypercube-{ranks}.xml", "--vary",
        "workload.high=3,10", "-o", json, "--csv", csv, "--emit-jobs", jobs, "--scheduler",
        "parallel", NULL);
  g_assert_cmpint(e.status, ==, 0);
  g_assert_nonnull(strstr(e.err, "--csv"));
  g_autofree char *line =
      g_strdup_printf("%s --will-cite --joblog joblog.txt -j 2 < %s", parallel, jobs);
  g_auto(Result) p = {0};
  run_shell(&p, tmp_dir, NULL, line);
  g_test_message("%s%s", p.out, p.err);
  g_assert_cmpint(p.status, ==, 0);
  g_autofree char *joblog_path = tmp_path("joblog.txt");
  g_autofree char *joblog = read_text(joblog_path);
  g_auto(GStrv) rows = g_strsplit(joblog, "\n", -1);
  g_assert_cmpuint(g_strv_length(rows), ==, 10); /* the header, 8 runs, "" */
  g_autoptr(GPtrArray) labels = teach_labels();
  for (guint i = 0; i < labels->len; i++) {
    g_autofree char *tail = g_strdup_printf("  # %s", (char *)labels->pdata[i]);
    guint found = 0;
    for (guint r = 1; rows[r] != NULL; r++) {
      g_auto(GStrv) f = g_strsplit(rows[r], "\t", -1);
      if (g_strv_length(f) == 9 && g_str_has_suffix(f[8], tail)) {
        g_assert_cmpstr(f[6], ==, "0"); /* Exitval */
        found++;
      }
    }
    g_assert_cmpuint(found, ==, 1);
  }
  g_auto(Result) m = {0};
  lbsim(&m, "merge", "-o", json, "--csv", csv, state, NULL);
  g_assert_cmpint(m.status, ==, 0);
  g_autofree char *a = read_text(local);
  g_autofree char *b = read_text(json);
  g_autofree char *a_fixed = json_without_measured(a);
  g_autofree char *b_fixed = json_without_measured(b);
  g_assert_cmpstr(a_fixed, ==, b_fixed);
  g_autofree char *a_csv = read_text(local_csv);
  g_autofree char *b_csv = read_text(csv);
  g_assert_cmpstr(a_csv, ==, b_csv);
}

/* What --emit-jobs refuses: a Slurm folder's file lbsim did not write
 * (kept as it was), options of another scheduler, unknown schedulers,
 * scheduler options without --emit-jobs. */
static void
test_emit_refuse(void)
{
  g_autofree char *dir = tmp_path("foreign-jobs");
  g_assert_cmpint(g_mkdir(dir, 0777), ==, 0);
  g_autofree char *submit = g_build_filename(dir, "submit.sh", NULL);
  g_assert_true(g_file_set_contents(submit, "#!/bin/sh\necho mine\n", -1, NULL));
  g_autofree char *json = tmp_path("foreign.json");
  g_auto(Result) r = {0};
  lbsim(&r, "sweep", TEACH, "--vary", "workload.high=3,10", "-o", json, "--emit-jobs", dir,
        "--scheduler", "slurm", NULL);
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "submit.sh exists and is not a script lbsim"));
  g_autofree char *kept = read_text(submit);
  g_assert_cmpstr(kept, ==, "#!/bin/sh\necho mine\n");
  g_autofree char *array = g_build_filename(dir, "array.sbatch", NULL);
  g_assert_false(g_file_test(array, G_FILE_TEST_EXISTS));

  g_autofree char *jobs = tmp_path("refused-jobs.txt");
  static const struct {
    const char *a, *b, *says;
  } cases[] = {
      {"--scheduler", "pbs", "--scheduler 'pbs': expected plain, parallel or slurm"},
      {"--slurm-time", "1:00:00", "--slurm-time is for --scheduler slurm"},
      {"--sbatch", "--account=x", "--sbatch is for --scheduler slurm"},
      {"--slurm-array-limit", "4", "--slurm-array-limit is for --scheduler slurm"},
      {"--slurm-merge-mem", "8G", "--slurm-merge-mem is for --scheduler slurm"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_auto(Result) c = {0};
    lbsim(&c, "sweep", TEACH, "--vary", "workload.high=3,10", "-o", json, "--emit-jobs", jobs,
          cases[i].a, cases[i].b, NULL);
    g_assert_cmpint(c.status, ==, 2);
    if (strstr(c.err, cases[i].says) == NULL)
      g_error("case %u: %s", i, c.err);
    g_assert_false(g_file_test(jobs, G_FILE_TEST_EXISTS));
  }
  /* Slurm's time forms only: nothing else is written into the script */
  static const char *const times[] = {"1h", "abc;rm",    "1:2:3:4", "-1",
                                      "1-", "1-2:3:4:5", ":30",     ""};
  for (guint i = 0; i < G_N_ELEMENTS(times); i++) {
    g_auto(Result) t = {0};
    lbsim(&t, "sweep", TEACH, "--vary", "workload.high=3,10", "-o", json, "--emit-jobs", dir,
          "--scheduler", "slurm", "--force", "--slurm-time", times[i], NULL);
    g_assert_cmpint(t.status, ==, 2);
    g_assert_nonnull(strstr(t.err, "expected one of Slurm's forms"));
    g_assert_false(g_file_test(array, G_FILE_TEST_EXISTS));
  }
  /* the merge job's time is checked as the tasks' is, the limit is a count */
  static const char *const refused[][3] = {
      {"--slurm-merge-time", "1h", "--slurm-merge-time '1h': expected one of Slurm's forms"},
      {"--slurm-array-limit", "0", "--slurm-array-limit '0': expected a whole number"},
      {"--slurm-merge-partition", "a b", "--slurm-merge-partition 'a b': expected one word"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(refused); i++) {
    g_auto(Result) t = {0};
    lbsim(&t, "sweep", TEACH, "--vary", "workload.high=3,10", "-o", json, "--emit-jobs", dir,
          "--scheduler", "slurm", "--force", refused[i][0], refused[i][1], NULL);
    g_assert_cmpint(t.status, ==, 2);
    if (strstr(t.err, refused[i][2]) == NULL)
      g_error("%s %s: %s", refused[i][0], refused[i][1], t.err);
    g_assert_false(g_file_test(array, G_FILE_TEST_EXISTS));
  }
  static const char *const good[] = {"30", "30:00", "1:00:00", "2-0", "2-12:30", "2-12:30:00"};
  for (guint i = 0; i < G_N_ELEMENTS(good); i++)
    g_assert_true(lb_emit_slurm_time_valid(good[i]));
  g_auto(Result) bad = {0}, lone = {0};
  lbsim(&bad, "sweep", TEACH, "--vary", "workload.high=3,10", "-o", json, "--emit-jobs", dir,
        "--scheduler", "slurm", "--force", "--slurm-mem", "2 G", NULL);
  g_assert_cmpint(bad.status, ==, 2);
  g_assert_nonnull(strstr(bad.err, "--slurm-mem '2 G': expected one word"));
  lbsim(&lone, "sweep", TEACH, "--vary", "workload.high=3,10", "-o", json, "--scheduler",
        "parallel", NULL);
  g_assert_cmpint(lone.status, ==, 2);
  g_assert_nonnull(strstr(lone.err, "--scheduler is for --emit-jobs"));
  g_assert_false(g_file_test(json, G_FILE_TEST_EXISTS));
}

/* Outputs of something else are not replaced without --force; a state
 * folder of another sweep neither. */
static void
test_refuse(void)
{
  g_autofree char *json = tmp_path("taken.json");
  g_auto(Result) run = {0}, s = {0}, forced = {0}, other = {0};
  lbsim(&run, "run", "-q", TEACH, "-o", json, NULL);
  g_assert_cmpint(run.status, ==, 0);
  g_autofree char *before = read_text(json);
  lbsim(&s, "sweep", TEACH, "--vary", "workload.high=3,10", "-o", json, "-q", NULL);
  g_assert_cmpint(s.status, ==, 2);
  g_assert_nonnull(strstr(s.err, "--force"));
  g_autofree char *after = read_text(json);
  g_assert_cmpstr(before, ==, after);
  lbsim(&forced, "sweep", TEACH, "--vary", "workload.high=3,10", "-o", json, "-q", "--force", NULL);
  g_assert_cmpint(forced.status, ==, 0);
  g_autoptr(JsonNode) root = load_json(json);
  g_assert_cmpuint(json_array_get_length(runs_of(root)), ==, 4);
  /* the same outputs for other values */
  lbsim(&other, "sweep", TEACH, "--vary", "workload.high=3,5", "-o", json, "-q", NULL);
  g_assert_cmpint(other.status, ==, 2);
  g_assert_nonnull(strstr(other.err, "another sweep"));
}

static void
test_errors(void)
{
  static const struct {
    const char *vary, *platform, *says;
  } cases[] = {
      {"mlb.threshold=1,2", NULL, "at mlb.threshold=1: "},
      {"workload.size=64,0", NULL, "at workload.size=0: "},
      {"workload.size=1:10:0", NULL, "the step is 0"},
      {"frobnicate=1", NULL, "unknown name 'frobnicate'"},
      {"ranks=8,x", NULL, "'x'"},
      {"balancer=mlb,nonesuch", NULL, "unknown balancer 'nonesuch'"},
      {"ranks=8,16", "hypercube-{rank}.xml", "{rank}"},
      {"ranks=8,16", "nonesuch-{ranks}.xml", "at ranks=8: "},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *json = tmp_path("error.json");
    g_auto(Result) r = {0};
    if (cases[i].platform != NULL)
      lbsim(&r, "sweep", TEACH, "--vary", cases[i].vary, "--platform", cases[i].platform, "-o",
            json, NULL);
    else
      lbsim(&r, "sweep", TEACH, "--vary", cases[i].vary, "-o", json, NULL);
    g_assert_cmpint(r.status, ==, 2);
    g_assert_nonnull(strstr(r.err, cases[i].says));
    g_assert_false(g_file_test(json, G_FILE_TEST_EXISTS)); /* nothing ran */
  }
  g_auto(Result) help = {0}, merge_help = {0}, twice = {0}, both = {0};
  lbsim(&help, "help", "sweep", NULL);
  g_assert_cmpint(help.status, ==, 0);
  g_assert_nonnull(strstr(help.out, "--vary=NAME=LIST"));
  g_assert_nonnull(strstr(help.out, "--emit-jobs=FILE"));
  lbsim(&merge_help, "merge", "--help", NULL);
  g_assert_cmpint(merge_help.status, ==, 0);
  g_assert_nonnull(strstr(merge_help.out, "--partial"));
  lbsim(&twice, "sweep", TEACH, "--vary", "seed=1,2", "--vary", "scenario.seed=3", NULL);
  g_assert_cmpint(twice.status, ==, 2);
  lbsim(&both, "sweep", TEACH, "--vary", "workload.high=1,2", "--set", "workload.high=3", NULL);
  g_assert_cmpint(both.status, ==, 2);
}

/* A run that fails is named; the others are done and written. */
static void
test_failure(void)
{
  g_autofree char *json = tmp_path("failing.json");
  g_autofree char *state = tmp_path("failing.d");
  g_autofree char *jobs = tmp_path("failing.txt");
  g_auto(Result) e = {0}, r = {0};
  lbsim(&e, "sweep", TEACH, "--vary", "workload.high=3,10", "-o", json, "--emit-jobs", jobs, NULL);
  g_assert_cmpint(e.status, ==, 0);
  /* the second run's result cannot be written: its name is a folder */
  g_autofree char *ini = g_build_filename(state, "sweep.ini", NULL);
  g_autoptr(GKeyFile) kf = g_key_file_new();
  g_assert_true(g_key_file_load_from_file(kf, ini, G_KEY_FILE_NONE, NULL));
  g_autofree char *run2 = g_key_file_get_string(kf, "runs", "run2", NULL);
  g_assert_nonnull(run2);
  g_autofree char *id = g_strndup(run2, strcspn(run2, " "));
  g_autofree char *name = g_strconcat(id, ".result", NULL);
  g_autofree char *blocked = g_build_filename(state, name, NULL);
  g_assert_cmpint(g_mkdir(blocked, 0777), ==, 0);
  lbsim(&r, "sweep", TEACH, "--vary", "workload.high=3,10", "-o", json, NULL);
  g_assert_cmpint(r.status, ==, 1);
  g_assert_nonnull(strstr(r.err, "workload.high=3 balancer=mlb failed"));
  g_autoptr(JsonNode) root = load_json(json);
  g_assert_cmpuint(json_array_get_length(runs_of(root)), ==, 3);
}

/* Without -o: NAME-sweep.json and NAME-sweep.d in the working folder. */
static void
test_default_names(void)
{
  g_autofree char *dir = tmp_path("cwd");
  g_assert_cmpint(g_mkdir(dir, 0777), ==, 0);
  g_autofree char *scenario = g_build_filename(source_root(), TEACH, NULL);
  const char *argv[] = {g_getenv("LBSIM"), "sweep", scenario, "--vary", "seed=1,2", "-q", NULL};
  int status = 0;
  g_autoptr(GError) error = NULL;
  g_assert_true(g_spawn_sync(dir, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL,
                             &status, &error));
  g_assert_no_error(error);
  g_assert_true(g_spawn_check_wait_status(status, NULL));
  g_autofree char *json = g_build_filename(dir, "mlb-teach-16-sweep.json", NULL);
  g_autofree char *ini = g_build_filename(dir, "mlb-teach-16-sweep.d", "sweep.ini", NULL);
  g_assert_true(g_file_test(json, G_FILE_TEST_IS_REGULAR));
  g_assert_true(g_file_test(ini, G_FILE_TEST_IS_REGULAR));
}

/* ---- replicates ---- */

/* got within 1e-8 of want relative to scale (or 1e-12 near 0): the JSON
 * holds 10 digits, and a spread from rounded values is as far off as the
 * values' rounding. */
static void
assert_near(double got, double want, double scale, const char *what)
{
  double tolerance = MAX(MAX(fabs(want), scale) * 1e-8, 1e-12);
  if (!(fabs(got - want) <= tolerance))
    g_error("%s: %.17g, expected %.17g", what, got, want);
}

static void
assert_close(double got, double want, const char *what)
{
  assert_near(got, want, 0, what);
}

static void
test_stats(void)
{
  /* P(|T| < t) = 0.95 in closed form: df 1, tan(0.95 pi / 2); df 2,
   * t / sqrt(2 + t^2) = 0.95 */
  assert_close(lb_stats_t975(1), tan(0.95 * G_PI / 2), "t(1)");
  assert_close(lb_stats_t975(2), sqrt(2 * 0.95 * 0.95 / (1 - 0.95 * 0.95)), "t(2)");
  g_assert_cmpfloat(fabs(lb_stats_t975(30) - 2.0423), <, 1e-4); /* the printed tables' */
  g_assert_cmpfloat(fabs(lb_stats_t975(1000) - 1.9623), <, 1e-4);
  const double x[] = {2, 4, 9};
  LbStats s;
  lb_stats_of(x, 3, &s);
  g_assert_cmpuint(s.n, ==, 3);
  assert_close(s.mean, 5, "mean");
  assert_close(s.sd, sqrt(13), "sd"); /* (9 + 1 + 16) / 2 */
  g_assert_cmpfloat(s.min, ==, 2);
  g_assert_cmpfloat(s.max, ==, 9);
  assert_close(s.ci_low, 5 - lb_stats_t975(2) * sqrt(13) / sqrt(3), "ci95_low");
  assert_close(s.ci_high, 5 + lb_stats_t975(2) * sqrt(13) / sqrt(3), "ci95_high");
  lb_stats_of(x, 1, &s);
  g_assert_cmpfloat(s.mean, ==, 2);
  g_assert_true(isnan(s.sd) && isnan(s.ci_low) && isnan(s.ci_high));
}

static const char *const replicate_measures[][2] = {
    {"summary", "imbalance_before"}, {"summary", "imbalance_after"}, {"summary", "total_time"},
    {"summary", "bytes_moved"},      {"metrics", "compute_time"},    {"metrics", "migrate_time"},
};

/* --repeat 3: each point's statistics equal those of its three runs,
 * worked out here from the runs in the same document. */
static void
test_replicates(void)
{
  g_autofree char *json = tmp_path("replicates.json");
  g_autofree char *stats_csv = tmp_path("replicates-stats.csv");
  g_autofree char *state = tmp_path("replicates.d");
  g_auto(Result) r = {0};
  lbsim(&r, "sweep", TEACH, "--set", "workload.pattern=random", "--vary", "ranks=4,8,16",
        "--platform", "hypercube-{ranks}.xml", "--repeat", "3", "-o", json, "--stats-csv",
        stats_csv, "-j", "2", "-q", NULL);
  g_assert_cmpint(r.status, ==, 0);
  g_autoptr(JsonNode) root = load_json(json);
  JsonObject *doc = json_node_get_object(root);
  JsonObject *sweep = json_object_get_object_member(doc, "sweep");
  g_assert_cmpstr(json_object_get_string_member(sweep, "replicates"), ==, "seed");
  JsonArray *vary = json_object_get_array_member(sweep, "vary");
  JsonObject *seeds = json_array_get_object_element(vary, json_array_get_length(vary) - 1);
  g_assert_cmpstr(json_object_get_string_member(seeds, "name"), ==, "seed");
  JsonArray *values = json_object_get_array_member(seeds, "values");
  g_assert_cmpuint(json_array_get_length(values), ==, 3);
  for (guint k = 0; k < 3; k++) /* the scenario's seed, 1, then 2 and 3: numbers */
    g_assert_cmpint(json_array_get_int_element(values, k), ==, 1 + k);
  JsonArray *runs = runs_of(root);
  g_assert_cmpuint(json_array_get_length(runs), ==, 3 * 3 * 2);
  JsonArray *stats = json_object_get_array_member(doc, "statistics");
  g_assert_cmpuint(json_array_get_length(stats), ==, 3 * 2);
  const double t = sqrt(2 * 0.95 * 0.95 / (1 - 0.95 * 0.95));
  g_autofree char *csv_text = read_text(stats_csv);
  g_auto(GStrv) rows = g_strsplit(csv_text, "\n", -1);
  g_assert_cmpstr(rows[0], ==,
                  "ranks,balancer,metric,unit,runs,mean,sd,min,max,ci95_low,ci95_high");
  gboolean spread = FALSE;
  guint checked = 0;
  for (guint g = 0; g < json_array_get_length(stats); g++) {
    JsonObject *st = json_array_get_object_element(stats, g);
    JsonObject *point = json_object_get_object_member(st, "point");
    gint64 nranks = json_object_get_int_member(point, "ranks");
    g_assert_false(json_object_has_member(point, "seed"));
    const char *balancer = json_object_get_string_member(st, "balancer");
    g_assert_cmpint(json_object_get_int_member(st, "runs"), ==, 3);
    for (guint m = 0; m < G_N_ELEMENTS(replicate_measures); m++) {
      const char *group = replicate_measures[m][0], *name = replicate_measures[m][1];
      double x[3];
      guint n = 0;
      for (guint i = 0; i < json_array_get_length(runs); i++) {
        JsonObject *run = json_array_get_object_element(runs, i);
        JsonObject *at = json_object_get_object_member(run, "point");
        JsonObject *result = json_object_get_object_member(run, "result");
        JsonObject *values_of = json_object_get_object_member(result, group);
        if (json_object_get_int_member(at, "ranks") != nranks ||
            strcmp(json_object_get_string_member(run, "balancer"), balancer) != 0 ||
            !json_object_has_member(values_of, name))
          continue;
        g_assert_cmpint(json_object_get_int_member(at, "seed"), ==, 1 + n);
        x[n++] = json_object_get_double_member(values_of, name);
      }
      JsonObject *measures = json_object_get_object_member(st, group);
      g_assert_cmpint(json_object_has_member(measures, name), ==, n == 3);
      if (n == 0)
        continue;
      g_assert_cmpuint(n, ==, 3);
      double mean = (x[0] + x[1] + x[2]) / 3;
      double sd = sqrt(((x[0] - mean) * (x[0] - mean) + (x[1] - mean) * (x[1] - mean) +
                        (x[2] - mean) * (x[2] - mean)) /
                       2);
      spread |= sd > 0;
      double scale = MAX(fabs(x[0]), MAX(fabs(x[1]), fabs(x[2])));
      JsonObject *o = json_object_get_object_member(measures, name);
      assert_near(json_object_get_double_member(o, "mean"), mean, scale, name);
      assert_near(json_object_get_double_member(o, "sd"), sd, scale, name);
      assert_near(json_object_get_double_member(o, "min"), MIN(x[0], MIN(x[1], x[2])), scale, name);
      assert_near(json_object_get_double_member(o, "max"), MAX(x[0], MAX(x[1], x[2])), scale, name);
      assert_near(json_object_get_double_member(o, "ci95_low"), mean - t * sd / sqrt(3), scale,
                  name);
      assert_near(json_object_get_double_member(o, "ci95_high"), mean + t * sd / sqrt(3), scale,
                  name);
      /* the statistics CSV's row says the same */
      g_autofree char *lead =
          g_strdup_printf("%" G_GINT64_FORMAT ",%s,%s,", nranks, balancer, name);
      const char *row = NULL;
      for (guint k = 1; rows[k] != NULL && row == NULL; k++)
        if (g_str_has_prefix(rows[k], lead))
          row = rows[k];
      g_assert_nonnull(row);
      g_auto(GStrv) cells = g_strsplit(row, ",", -1);
      g_assert_cmpuint(g_strv_length(cells), ==, 11);
      g_assert_cmpstr(cells[4], ==, "3");
      assert_near(g_ascii_strtod(cells[5], NULL), mean, scale, "CSV mean");
      assert_near(g_ascii_strtod(cells[9], NULL), mean - t * sd / sqrt(3), scale, "CSV ci95_low");
      assert_near(g_ascii_strtod(cells[10], NULL), mean + t * sd / sqrt(3), scale, "CSV ci95_high");
      checked++;
    }
  }
  g_assert_cmpuint(checked, ==, 3 * (6 + 5)); /* none has no migrate_time */
  g_assert_true(spread); /* the seeds made different loads: the bands are not empty */

  /* merge writes the same statistics from the state folder */
  g_autofree char *merged = tmp_path("replicates-merged.json");
  g_autofree char *merged_csv = tmp_path("replicates-merged.csv");
  g_auto(Result) m = {0};
  lbsim(&m, "merge", state, "-o", merged, "--stats-csv", merged_csv, "-q", NULL);
  g_assert_cmpint(m.status, ==, 0);
  g_autofree char *again = read_text(merged_csv);
  g_assert_cmpstr(again, ==, csv_text);
  g_autoptr(JsonNode) merged_root = load_json(merged);
  g_autofree char *a = canonical(json_object_get_member(doc, "statistics"));
  g_autofree char *b =
      canonical(json_object_get_member(json_node_get_object(merged_root), "statistics"));
  g_assert_cmpstr(a, ==, b);

  /* the report: charts against ranks with two bands per line, none
   * against the seed */
  g_autofree char *page = tmp_path("replicates-page");
  g_auto(Result) rep = {0};
  lbsim(&rep, "report", json, page, NULL);
  g_assert_cmpint(rep.status, ==, 0);
  g_autofree char *svg_path = g_build_filename(page, "mlb-teach-16.vs-ranks.time.svg", NULL);
  g_autofree char *svg = read_text(svg_path);
  guint bands = 0, bars = 0;
  for (const char *c = svg; (c = strstr(c, "class=\"band\"")) != NULL; c++)
    bands++;
  for (const char *c = svg; (c = strstr(c, "class=\"bars\"")) != NULL; c++)
    bars++;
  /* ranks 4, 8, 16 on a log2 axis: evenly spaced (none's line, after
   * the ideal-scaling reference) */
  const char *none = strstr(svg, "<g class=\"series\" data-series=\"none\"");
  g_assert_nonnull(none);
  const char *line = strstr(none, "<path class=\"line\"");
  g_assert_nonnull(line);
  const char *d = strstr(line, " d=\"M");
  g_assert_nonnull(d);
  double px[3];
  char *end = (char *)d + strlen(" d=\"M");
  for (guint k = 0; k < 3; k++) {
    px[k] = g_ascii_strtod(end, &end);
    end = strchr(end, 'L') != NULL && k < 2 ? strchr(end, 'L') + 1 : end;
  }
  g_assert_cmpfloat(fabs((px[1] - px[0]) - (px[2] - px[1])), <, 0.05);
  /* none's line goes through its means */
  g_assert_nonnull(strstr(line, "data-x=\"4 8 16\""));
  const char *ys = strstr(line, "data-y=\"");
  g_assert_nonnull(ys);
  end = (char *)ys + strlen("data-y=\"");
  for (guint k = 0; k < 3; k++) {
    JsonObject *st = json_array_get_object_element(stats, 2 * k);
    g_assert_cmpstr(json_object_get_string_member(st, "balancer"), ==, "none");
    double want = json_object_get_double_member(
        json_object_get_object_member(json_object_get_object_member(st, "summary"), "total_time"),
        "mean");
    double got = g_ascii_strtod(end, &end);
    g_assert_cmpfloat(fabs(got - want), <=, 1e-6 * want);
  }
  /* min-max shaded, the interval as error bars, for none and mlb */
  g_assert_cmpuint(bands, ==, 2);
  g_assert_cmpuint(bars, ==, 2);
  g_autofree char *seed_chart = g_build_filename(page, "mlb-teach-16.vs-seed.time.svg", NULL);
  g_assert_false(g_file_test(seed_chart, G_FILE_TEST_EXISTS));
  g_autofree char *index = g_build_filename(page, "index.html", NULL);
  g_autofree char *html = read_text(index);
  g_assert_nonnull(strstr(html, "replicates: seed"));
  g_assert_nonnull(strstr(html, "3 replicates (seed)"));
  /* the means table: mlb at 16 ranks, its total time's mean as the JSON's */
  JsonObject *last = json_array_get_object_element(stats, json_array_get_length(stats) - 1);
  g_assert_cmpstr(json_object_get_string_member(last, "balancer"), ==, "mlb");
  double mean = json_object_get_double_member(
      json_object_get_object_member(json_object_get_object_member(last, "summary"), "total_time"),
      "mean");
  g_autofree char *means_path = g_build_filename(page, "mlb-teach-16.sweep-means.csv", NULL);
  g_autofree char *means = read_text(means_path);
  g_auto(GStrv) lines = g_strsplit(means, "\n", -1);
  g_assert_cmpstr(lines[0], ==,
                  "ranks,balancer,runs,imbalance_after_mean,imbalance_after_ci95_half,"
                  "balance_time_mean,balance_time_ci95_half,total_time_mean,total_time_ci95_half");
  g_assert_cmpuint(g_strv_length(lines), ==, 1 + 3 * 2 + 1);
  g_auto(GStrv) cells = g_strsplit(lines[6], ",", -1);
  g_assert_cmpstr(cells[0], ==, "16");
  g_assert_cmpstr(cells[1], ==, "mlb");
  g_assert_cmpstr(cells[2], ==, "3");
  assert_close(g_ascii_strtod(cells[7], NULL), mean, "the page's mean");
}

/* --replicates names given seeds; what is refused. */
static void
test_replicates_refused(void)
{
  g_autofree char *json = tmp_path("named.json");
  g_auto(Result) named = {0};
  g_autofree char *implied = tmp_path("implied.json");
  g_auto(Result) seeds = {0};
  lbsim(&named, "sweep", TEACH, "--set", "workload.pattern=random", "--vary", "seed=5,9", "--vary",
        "balancer=mlb", "--replicates", "seed", "-o", json, "-q", NULL);
  g_assert_cmpint(named.status, ==, 0);
  /* a varied seed's values are replicates without --replicates too */
  lbsim(&seeds, "sweep", TEACH, "--set", "workload.pattern=random", "--vary", "seed=5,9", "--vary",
        "balancer=mlb", "-o", implied, "-q", NULL);
  g_assert_cmpint(seeds.status, ==, 0);
  g_autoptr(JsonNode) implied_root = load_json(implied);
  JsonObject *implied_doc = json_node_get_object(implied_root);
  g_assert_cmpstr(json_object_get_string_member(json_object_get_object_member(implied_doc, "sweep"),
                                                "replicates"),
                  ==, "seed");
  g_assert_cmpuint(json_array_get_length(json_object_get_array_member(implied_doc, "statistics")),
                   ==, 1);
  g_autoptr(JsonNode) root = load_json(json);
  JsonArray *stats = json_object_get_array_member(json_node_get_object(root), "statistics");
  g_assert_cmpuint(json_array_get_length(stats), ==, 1);
  JsonArray *replicates =
      json_object_get_array_member(json_array_get_object_element(stats, 0), "replicates");
  g_assert_cmpint(json_array_get_int_element(replicates, 0), ==, 5);
  g_assert_cmpint(json_array_get_int_element(replicates, 1), ==, 9);
  /* a user's file is not replaced by a long or statistics CSV; the
   * sweep's own is */
  g_autofree char *mine = tmp_path("mine.csv");
  g_assert_true(g_file_set_contents(mine, "a,b\n1,2\n", -1, NULL));
  const char *const tables[] = {"--long-csv", "--stats-csv"};
  for (guint t = 0; t < G_N_ELEMENTS(tables); t++) {
    g_auto(Result) refused = {0}, own = {0}, again = {0};
    lbsim(&refused, "sweep", TEACH, "--set", "workload.pattern=random", "--vary", "seed=5,9",
          "--vary", "balancer=mlb", "--replicates", "seed", "-o", json, tables[t], mine, "-q",
          NULL);
    g_assert_cmpint(refused.status, ==, 2);
    g_assert_nonnull(strstr(refused.err, "is not this sweep's CSV"));
    g_assert_nonnull(strstr(refused.err, tables[t]));
    g_autofree char *kept = read_text(mine);
    g_assert_cmpstr(kept, ==, "a,b\n1,2\n");
    g_autofree char *table = tmp_path("own.csv");
    g_unlink(table);
    lbsim(&own, "sweep", TEACH, "--set", "workload.pattern=random", "--vary", "seed=5,9", "--vary",
          "balancer=mlb", "--replicates", "seed", "-o", json, tables[t], table, "-q", NULL);
    g_assert_cmpint(own.status, ==, 0);
    lbsim(&again, "sweep", TEACH, "--set", "workload.pattern=random", "--vary", "seed=5,9",
          "--vary", "balancer=mlb", "--replicates", "seed", "-o", json, tables[t], table, "-q",
          NULL);
    g_assert_cmpint(again.status, ==, 0);
  }
  static const struct {
    const char *args[6], *says;
  } cases[] = {
      {{"--repeat", "2", "--vary", "seed=1,2"}, "--repeat and --vary seed"},
      {{"--repeat", "2", "--set", "scenario.seed=4"}, "--repeat and --set scenario.seed=4"},
      {{"--repeat", "0"}, "--repeat '0'"},
      {{"--repeat", "2", "--replicates", "seed"}, "--repeat and --replicates"},
      {{"--vary", "workload.high=3,10", "--replicates", "seed"}, "--replicates seed: not a varied"},
      {{"--vary", "workload.high=3,10", "--stats-csv", "s.csv"}, "--stats-csv: no replicates"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *out = tmp_path("refused.json");
    g_auto(Result) r = {0};
    const char *const *a = cases[i].args;
    lbsim(&r, "sweep", TEACH, a[0], a[1], a[2] != NULL ? a[2] : "-q", a[3] != NULL ? a[3] : "-q",
          "-o", out, NULL);
    g_assert_cmpint(r.status, ==, 2);
    if (strstr(r.err, cases[i].says) == NULL)
      g_error("%s: %s", cases[i].says, r.err);
    g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
  }
}

/* The series' style attributes of a chart's <g class="series"> for name,
 * or NULL when the chart has no such series. */
static char *
series_style(const char *svg, const char *name)
{
  g_autofree char *open = g_strdup_printf("<g class=\"series\" data-series=\"%s\"", name);
  const char *at = strstr(svg, open);
  if (at == NULL)
    return NULL;
  const char *end = strstr(at, " clip-path=");
  g_assert_nonnull(end);
  return g_strndup(at + strlen(open), (gsize)(end - at - strlen(open)));
}

/* A sweep whose baseline dwarfs the rest on the imbalance chart gets a
 * close-up without it, its other lines in the styles of the full chart;
 * the balancers left out are those the JSON says exceed 1 by ten times the
 * median balancer's excess; a time of 0 in the means table has its unit. */
static void
test_close_up(void)
{
  g_autofree char *json = tmp_path("close-up.json");
  g_auto(Result) r = {0};
  lbsim(&r, "sweep", "-q", "scenarios/field2d-hypercube-64.ini", "--vary", "ranks=4,16",
        "--platform", "hypercube-{ranks}.xml", "--repeat", "2", "-o", json, NULL);
  g_assert_cmpint(r.status, ==, 0);
  g_autoptr(JsonNode) root = load_json(json);
  JsonArray *runs = json_object_get_array_member(json_node_get_object(root), "runs");
  static const char *const names[] = {"none", "mlb", "mlb-nd", "lbd"};
  double excess[G_N_ELEMENTS(names)] = {0};
  for (guint i = 0; i < json_array_get_length(runs); i++) {
    JsonObject *run = json_array_get_object_element(runs, i);
    const char *b = json_object_get_string_member(run, "balancer");
    JsonObject *summary =
        json_object_get_object_member(json_object_get_object_member(run, "result"), "summary");
    double after = json_object_get_double_member(summary, "imbalance_after");
    for (guint k = 0; k < G_N_ELEMENTS(names); k++)
      if (strcmp(b, names[k]) == 0)
        excess[k] = MAX(excess[k], after - 1);
  }
  double sorted[G_N_ELEMENTS(names)];
  memcpy(sorted, excess, sizeof sorted);
  for (guint i = 0; i < G_N_ELEMENTS(sorted); i++)
    for (guint j = i + 1; j < G_N_ELEMENTS(sorted); j++)
      if (sorted[j] < sorted[i]) {
        double t = sorted[i];
        sorted[i] = sorted[j];
        sorted[j] = t;
      }
  double median = (sorted[1] + sorted[2]) / 2;
  g_assert_cmpfloat(excess[0], >=, 10 * median); /* none, on this scenario */

  g_autofree char *page = tmp_path("close-up-page");
  g_auto(Result) rep = {0};
  lbsim(&rep, "report", json, page, NULL);
  g_assert_cmpint(rep.status, ==, 0);
  g_autofree char *full_path =
      g_build_filename(page, "field2d-hypercube-64.vs-ranks.imbalance.svg", NULL);
  g_autofree char *close_path =
      g_build_filename(page, "field2d-hypercube-64.vs-ranks.imbalance-close.svg", NULL);
  g_autofree char *full = read_text(full_path);
  g_autofree char *close = read_text(close_path);
  g_assert_nonnull(strstr(close, "close up"));
  for (guint k = 0; k < G_N_ELEMENTS(names); k++) {
    g_autofree char *in_full = series_style(full, names[k]);
    g_autofree char *in_close = series_style(close, names[k]);
    g_assert_nonnull(in_full);
    if (excess[k] >= 10 * median) {
      g_assert_null(in_close);
    } else {
      g_assert_nonnull(in_close);
      g_assert_cmpstr(in_close, ==, in_full);
    }
  }
  g_autofree char *index = g_build_filename(page, "index.html", NULL);
  g_autofree char *html = read_text(index);
  const char *none_row = strstr(html, "<tr data-balancer=\"none\">");
  g_assert_nonnull(none_row);
  g_autofree char *row = g_strndup(none_row, (gsize)(strstr(none_row, "</tr>") - none_row));
  g_assert_nonnull(strstr(row, ">0\xc2\xa0s<")); /* a no-break space */
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/sweep/values", test_values);
  g_test_add_func("/sweep/order", test_order);
  g_test_add_func("/sweep/equals-run", test_equals_run);
  g_test_add_func("/sweep/related", test_related);
  g_test_add_func("/sweep/resume", test_resume);
  g_test_add_func("/sweep/shared-runs", test_shared_runs);
  g_test_add_func("/sweep/emit-merge", test_emit_merge);
  g_test_add_func("/sweep/emit-slurm", test_emit_slurm);
  g_test_add_func("/sweep/emit-parallel", test_emit_parallel);
  g_test_add_func("/sweep/emit-refuse", test_emit_refuse);
  g_test_add_func("/sweep/merge-malformed", test_merge_malformed);
  g_test_add_func("/sweep/refuse", test_refuse);
  g_test_add_func("/sweep/errors", test_errors);
  g_test_add_func("/sweep/failure", test_failure);
  g_test_add_func("/sweep/default-names", test_default_names);
  g_test_add_func("/sweep/stats", test_stats);
  g_test_add_func("/sweep/replicates", test_replicates);
  g_test_add_func("/sweep/close-up", test_close_up);
  g_test_add_func("/sweep/replicates-refused", test_replicates_refused);
  int status = g_test_run();
  if (tmp_dir != NULL)
    remove_tree(tmp_dir);
  return status;
}
