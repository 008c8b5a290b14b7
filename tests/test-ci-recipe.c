/* The CI recipe of docs/ci/ (lbsim-ci.sh and the GitHub and GitLab files
 * the tutorial shows): the CI files parsed (python3-yaml, else read line
 * by line), their commands run as they give them on a sample repository
 * laid out as they say, the JUnit report and the exit statuses held; and
 * the tutorial showing the files as they are. */
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
    tmp_dir = g_dir_make_tmp("lbsim-recipe-XXXXXX", NULL);
  g_assert_nonnull(tmp_dir);
  return g_build_filename(tmp_dir, name, NULL);
}

/* A file of the source tree's text. */
static char *
source_text(const char *relative)
{
  g_autofree char *path = g_build_filename(source_root(), relative, NULL);
  char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  return text;
}

/* A YAML file as JSON (python3-yaml, every scalar a string), or NULL
 * when python3 has no yaml module. */
static JsonNode *
yaml_document(const char *relative)
{
  g_autofree char *path = g_build_filename(source_root(), relative, NULL);
  const char *argv[] = {"python3", "-c",
                        "import json, sys, yaml\n"
                        "json.dump(yaml.load(open(sys.argv[1]), Loader=yaml.BaseLoader), "
                        "sys.stdout)",
                        path, NULL};
  int status = 0;
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err,
                             &status, &error));
  g_assert_no_error(error);
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0 && strstr(err, "No module named 'yaml'")) {
    g_test_message("python3-yaml is not installed: %s checked line by line", relative);
    return NULL;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    g_error("%s is not valid YAML: %s", relative, err);
  g_autoptr(JsonParser) parser = json_parser_new();
  g_assert_true(json_parser_load_from_data(parser, out, -1, NULL));
  return json_node_copy(json_parser_get_root(parser));
}

/* Without a YAML parser: the lines of a CI file that run the script, in
 * order, and its image and report named somewhere. */
static GPtrArray *
recipe_lines(const char *relative)
{
  GPtrArray *commands = g_ptr_array_new_with_free_func(g_free);
  g_autofree char *text = source_text(relative);
  g_assert_nonnull(strstr(text, "debian:12"));
  g_assert_nonnull(strstr(text, "lbsim-results/report.xml"));
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++) {
    const char *at = strstr(lines[i], "sh ci/lbsim-ci.sh");
    if (at == NULL)
      continue;
    const char *start = lines[i] + strspn(lines[i], " -");
    if (g_str_has_prefix(start, "run: "))
      start += strlen("run: ");
    g_ptr_array_add(commands, g_strdup(start));
  }
  return commands;
}

static void
add_script_lines(GPtrArray *commands, const char *text)
{
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (strstr(lines[i], "ci/lbsim-ci.sh") != NULL)
      g_ptr_array_add(commands, g_strdup(lines[i]));
}

/* GitHub Actions: on pushes and pull requests, one job in Debian 12, the
 * submodule checked out, the diff on pull requests only, the JUnit report
 * published and the results kept even when check fails. */
static GPtrArray *
github_commands(void)
{
  const char *file = "docs/ci/github-workflow.yml";
  g_autoptr(JsonNode) doc = yaml_document(file);
  if (doc == NULL)
    return recipe_lines(file);
  GPtrArray *commands = g_ptr_array_new_with_free_func(g_free);
  JsonObject *root = json_node_get_object(doc);
  JsonObject *on = json_object_get_object_member(root, "on");
  g_assert_true(json_object_has_member(on, "push") && json_object_has_member(on, "pull_request"));
  JsonObject *jobs = json_object_get_object_member(root, "jobs");
  g_assert_cmpuint(json_object_get_size(jobs), ==, 1);
  g_autoptr(GList) names = json_object_get_members(jobs);
  JsonObject *job = json_object_get_object_member(jobs, names->data);
  g_assert_cmpstr(json_object_get_string_member(job, "container"), ==, "debian:12");
  JsonArray *steps = json_object_get_array_member(job, "steps");
  gboolean checkout = FALSE, report = FALSE, kept = FALSE;
  for (guint i = 0; i < json_array_get_length(steps); i++) {
    JsonObject *step = json_array_get_object_element(steps, i);
    const char *uses = json_object_get_string_member_with_default(step, "uses", "");
    const char *when = json_object_get_string_member_with_default(step, "if", "");
    JsonObject *with =
        json_object_has_member(step, "with") ? json_object_get_object_member(step, "with") : NULL;
    if (g_str_has_prefix(uses, "actions/checkout@"))
      checkout = g_strcmp0(json_object_get_string_member(with, "submodules"), "true") == 0;
    if (g_str_has_prefix(uses, "mikepenz/action-junit-report@"))
      report = strstr(when, "!cancelled()") != NULL &&
               g_strcmp0(json_object_get_string_member(with, "report_paths"),
                         "lbsim-results/report.xml") == 0;
    if (g_str_has_prefix(uses, "actions/upload-artifact@"))
      kept = strstr(when, "!cancelled()") != NULL &&
             g_strcmp0(json_object_get_string_member(with, "path"), "lbsim-results/") == 0;
    const char *run = json_object_get_string_member_with_default(step, "run", NULL);
    if (run == NULL)
      continue;
    if (strstr(run, "lbsim-ci.sh diff") != NULL)
      g_assert_nonnull(strstr(when, "github.event_name == 'pull_request'"));
    add_script_lines(commands, run);
  }
  g_assert_true(checkout && report && kept);
  return commands;
}

/* GitLab: merge request pipelines (a branch pipeline where none is open),
 * one job in Debian 12 with the submodule, the diff after the script on
 * merge requests, the report and results kept even when check fails. */
static GPtrArray *
gitlab_commands(void)
{
  const char *file = "docs/ci/gitlab-ci.yml";
  g_autoptr(JsonNode) doc = yaml_document(file);
  if (doc == NULL)
    return recipe_lines(file);
  GPtrArray *commands = g_ptr_array_new_with_free_func(g_free);
  JsonObject *root = json_node_get_object(doc);
  JsonArray *rules =
      json_object_get_array_member(json_object_get_object_member(root, "workflow"), "rules");
  g_assert_nonnull(
      strstr(json_object_get_string_member(json_array_get_object_element(rules, 0), "if"),
             "merge_request_event"));
  JsonObject *job = json_object_get_object_member(root, "lbsim");
  g_assert_cmpstr(json_object_get_string_member(job, "image"), ==, "debian:12");
  g_assert_cmpstr(json_object_get_string_member(json_object_get_object_member(job, "variables"),
                                                "GIT_SUBMODULE_STRATEGY"),
                  ==, "recursive");
  JsonObject *artifacts = json_object_get_object_member(job, "artifacts");
  g_assert_cmpstr(json_object_get_string_member(artifacts, "when"), ==, "always");
  g_assert_cmpstr(
      json_object_get_string_member(json_object_get_object_member(artifacts, "reports"), "junit"),
      ==, "lbsim-results/report.xml");
  static const char *const parts[] = {"script", "after_script"};
  for (guint p = 0; p < G_N_ELEMENTS(parts); p++) {
    JsonArray *lines = json_object_get_array_member(job, parts[p]);
    for (guint i = 0; i < json_array_get_length(lines); i++)
      add_script_lines(commands, json_array_get_string_element(lines, i));
  }
  return commands;
}

/* Runs a recipe's command in the sample repository as its CI would on a
 * merge request, with lbsim the one under test; *out gets its standard
 * output, then its standard error. */
static int
run_command(const char *repo, const char *command, char **out)
{
  g_auto(GStrv) env = g_get_environ();
  env = g_environ_setenv(env, "LBSIM", g_getenv("LBSIM"), TRUE);
  env = g_environ_setenv(env, "CI_PIPELINE_SOURCE", "merge_request_event", TRUE);
  env = g_environ_setenv(env, "GITHUB_EVENT_NAME", "pull_request", TRUE);
  const char *argv[] = {"sh", "-c", command, NULL};
  int status = 0;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  g_assert_true(g_spawn_sync(repo, (char **)argv, env, G_SPAWN_SEARCH_PATH, NULL, NULL, out, &err,
                             &status, &error));
  g_assert_no_error(error);
  g_test_message("%s: %s%s", command, *out, err);
  g_assert_true(WIFEXITED(status));
  /* what it said on either stream */
  char *both = g_strconcat(*out, err, NULL);
  g_free(*out);
  *out = both;
  return WEXITSTATUS(status);
}

static void
write_file(const char *dir, const char *name, const char *text)
{
  g_autofree char *path = g_build_filename(dir, name, NULL);
  g_autofree char *folder = g_path_get_dirname(path);
  g_assert_cmpint(g_mkdir_with_parents(folder, 0700), ==, 0);
  g_assert_true(g_file_set_contents(path, text, -1, NULL));
}

/* A scenario of the sample repository: mlb-teach-16's step on 16 ranks,
 * the left quarter's load `high`, its [expect] lines. */
static void
sample_scenario(const char *repo, const char *name, int high, const char *expect)
{
  g_autofree char *file = g_strdup_printf("scenarios/%s.ini", name);
  g_autofree char *text = g_strdup_printf(
      "[scenario]\nname = %s\nplatform = hypercube-16.xml\nranks = 16\nseed = 1\nsteps = 1\n"
      "[workload]\nsize = 64\npattern = step\nhigh = %d\nlow = 1\nat = 0.25\ndrift = 0\n"
      "[balancers]\nrun = none, mlb\n[expect]\n%s\n",
      name, high, expect);
  write_file(repo, file, text);
}

/* The sample repository: the recipe's files where it puts them, three
 * scenarios with the baselines `update` wrote when they all held; since,
 * one scenario's bound was tightened below what it does (it fails) and
 * another's workload changed (its baseline moved). */
static char *
sample_repository(void)
{
  char *repo = tmp_path("repository");
  static const char *const copies[][2] = {
      {"docs/ci/lbsim-ci.sh", "ci/lbsim-ci.sh"},
      {"docs/ci/github-workflow.yml", ".github/workflows/lbsim.yml"},
      {"docs/ci/gitlab-ci.yml", ".gitlab-ci.yml"}};
  for (guint i = 0; i < G_N_ELEMENTS(copies); i++) {
    g_autofree char *text = source_text(copies[i][0]);
    write_file(repo, copies[i][1], text);
  }
  const char *holds = "mlb.schedule_steps <= log2(ranks)";
  sample_scenario(repo, "passes", 10, holds);
  sample_scenario(repo, "fails", 10, holds);
  sample_scenario(repo, "moved", 10, holds);
  g_autofree char *out = NULL;
  g_assert_cmpint(run_command(repo, "sh ci/lbsim-ci.sh update", &out), ==, 0);
  sample_scenario(repo, "fails", 10, "mlb.schedule_steps <= log2(ranks)\nmlb.amounts_steps < 2");
  sample_scenario(repo, "moved", 11, holds);
  return repo;
}

/* A recipe's commands on the sample repository: check and diff, each
 * exit 1; the JUnit report valid, a suite a scenario: the passing one
 * clean, the failing one its [expect] line, the moved one its baseline's
 * values; the diff of each baseline against its new result. */
static void
hold_recipe(const char *repo, GPtrArray *commands, const char *which)
{
  g_test_message("%s", which);
  g_assert_cmpuint(commands->len, ==, 3);
  g_assert_nonnull(strstr(commands->pdata[0], "sh ci/lbsim-ci.sh install"));
  g_assert_nonnull(strstr(commands->pdata[1], "sh ci/lbsim-ci.sh check"));
  g_assert_nonnull(strstr(commands->pdata[2], "sh ci/lbsim-ci.sh diff"));
  g_autofree char *results = g_build_filename(repo, "lbsim-results", NULL);
  remove_tree(results);
  g_autofree char *check = NULL, *diff = NULL;
  g_assert_cmpint(run_command(repo, commands->pdata[1], &check), ==, 1);
  g_assert_cmpint(run_command(repo, commands->pdata[2], &diff), ==, 1);

  g_autofree char *xml = g_build_filename(results, "report.xml", NULL);
  g_assert_cmpint(validate(xml), ==, 0);
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(xml, &text, NULL, NULL));
  g_assert_nonnull(
      strstr(text, "<testsuite name=\"passes\" tests=\"1\" failures=\"0\" errors=\"0\""));
  g_assert_nonnull(
      strstr(text, "<testsuite name=\"fails\" tests=\"2\" failures=\"1\" errors=\"0\""));
  g_assert_nonnull(strstr(text, "<failure message=\"actual 10, bound &lt; 2\" type=\"expect\"/>"));
  const char *moved = strstr(text, "<testsuite name=\"moved\" tests=\"17\" failures=\"14\"");
  g_assert_nonnull(moved);
  g_assert_nonnull(strstr(moved, "name=\"baseline: mlb total_time\""));
  g_assert_nonnull(strstr(moved, "type=\"baseline\""));
  g_assert_true(strstr(text, "type=\"baseline\"") > moved);

  const char *at_moved = strstr(diff, "== moved.json\n");
  g_assert_nonnull(at_moved);
  g_assert_nonnull(strstr(at_moved, "58 values compared, 16 differ, 14 beyond the tolerance"));
  g_assert_nonnull(strstr(diff, "== passes.json\n58 values compared, 0 differ"));
  g_assert_nonnull(strstr(diff, "== fails.json\n58 values compared, 0 differ"));
  g_autofree char *moved_diff = g_build_filename(results, "moved.diff.json", NULL);
  g_autoptr(JsonNode) doc = load_json(moved_diff);
  g_assert_cmpint(json_object_get_int_member(json_node_get_object(doc), "moved"), ==, 14);
}

/* Both recipes on the sample repository; then a repository whose
 * scenarios all hold (exit 0 both), and one with a scenario that has no
 * baseline yet (bad input: check says to write it). The packages the
 * script installs are among those lbsim builds with (tools/install-deps). */
static void
test_recipe(void)
{
  g_autofree char *repo = sample_repository();
  g_autoptr(GPtrArray) github = github_commands();
  g_autoptr(GPtrArray) gitlab = gitlab_commands();
  hold_recipe(repo, github, "docs/ci/github-workflow.yml");
  hold_recipe(repo, gitlab, "docs/ci/gitlab-ci.yml");

  static const char *const gone[] = {"scenarios/fails.ini", "scenarios/moved.ini",
                                     "baselines/fails.json", "baselines/moved.json"};
  for (guint i = 0; i < G_N_ELEMENTS(gone); i++) {
    g_autofree char *path = g_build_filename(repo, gone[i], NULL);
    g_assert_cmpint(g_unlink(path), ==, 0);
  }
  g_autofree char *check = NULL, *diff = NULL, *fresh = NULL;
  g_assert_cmpint(run_command(repo, github->pdata[1], &check), ==, 0);
  g_assert_cmpint(run_command(repo, github->pdata[2], &diff), ==, 0);
  sample_scenario(repo, "fresh", 10, "mlb.schedule_steps <= 4");
  g_assert_cmpint(run_command(repo, gitlab->pdata[1], &fresh), ==, 2);
  g_assert_nonnull(strstr(fresh, "baselines/fresh.json: no such file (write it with "
                                 "--update-baseline)"));

  g_autofree char *script = source_text("docs/ci/lbsim-ci.sh");
  g_autofree char *deps = source_text("tools/install-deps");
  const char *list = strstr(script, "\npackages=\"");
  g_assert_nonnull(list);
  list += strlen("\npackages=\"");
  g_autofree char *packages = g_strndup(list, strcspn(list, "\""));
  g_auto(GStrv) names = g_strsplit(packages, " ", -1);
  g_assert_cmpuint(g_strv_length(names), >=, 5);
  for (guint i = 0; names[i] != NULL; i++) {
    g_autofree char *word = g_strdup_printf(" %s ", names[i]);
    g_autofree char *last = g_strdup_printf(" %s\n", names[i]);
    g_autofree char *first = g_strdup_printf("(%s ", names[i]);
    if (strstr(deps, word) == NULL && strstr(deps, last) == NULL && strstr(deps, first) == NULL)
      g_error("docs/ci/lbsim-ci.sh installs %s, which tools/install-deps does not", names[i]);
  }
}

/* The script parses as POSIX sh (dash), and shellcheck finds nothing in
 * it where shellcheck is installed. */
static void
test_recipe_script(void)
{
  g_autofree char *script = g_build_filename(source_root(), "docs", "ci", "lbsim-ci.sh", NULL);
  g_autofree char *shellcheck = g_find_program_in_path("shellcheck");
  const char *parse[] = {"dash", "-n", script, NULL};
  const char *check[] = {shellcheck, "-s", "sh", script, NULL};
  const char *const *runs[] = {parse, check};
  for (guint i = 0; i < G_N_ELEMENTS(runs); i++) {
    if (runs[i][0] == NULL) {
      g_test_message("shellcheck is not installed: the script is only parsed");
      continue;
    }
    int status = 0;
    g_autofree char *out = NULL, *err = NULL;
    g_autoptr(GError) error = NULL;
    g_assert_true(g_spawn_sync(NULL, (char **)runs[i], NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out,
                               &err, &status, &error));
    g_assert_no_error(error);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      g_error("%s: %s%s", runs[i][0], out, err);
  }
}

/* The tutorial shows the recipe's CI files as they are, each between its
 * markers (tools/update-readme writes them). */
static void
test_recipe_in_tutorial(void)
{
  g_autofree char *tutorial = source_text("docs/tutorial.md");
  static const char *const shown[][2] = {{"ci-github", "docs/ci/github-workflow.yml"},
                                         {"ci-gitlab", "docs/ci/gitlab-ci.yml"}};
  for (guint i = 0; i < G_N_ELEMENTS(shown); i++) {
    g_autofree char *begin = g_strdup_printf("\n<!-- %s:begin -->\n", shown[i][0]);
    g_autofree char *end = g_strdup_printf("\n<!-- %s:end -->\n", shown[i][0]);
    const char *from = strstr(tutorial, begin);
    g_assert_nonnull(from);
    from += strlen(begin);
    const char *to = strstr(from, end);
    g_assert_nonnull(to);
    /* a code block: every line indented by four spaces, an empty one
     * left empty, between two empty lines */
    g_autoptr(GString) want = g_string_new("\n");
    g_autofree char *text = source_text(shown[i][1]);
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    guint n = g_strv_length(lines);
    if (n > 0 && lines[n - 1][0] == '\0')
      n--; /* the file's final newline */
    for (guint k = 0; k < n; k++) {
      g_strchomp(lines[k]);
      g_string_append_printf(want, "%s%s\n", lines[k][0] != '\0' ? "    " : "", lines[k]);
    }
    g_string_append_c(want, '\n');
    g_autofree char *got = g_strndup(from, (gsize)(to - from) + 1);
    if (g_strcmp0(got, want->str) != 0)
      g_error("docs/tutorial.md's %s section is not %s: run tools/update-readme", shown[i][0],
              shown[i][1]);
  }
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/recipe/sample-repository", test_recipe);
  g_test_add_func("/recipe/script", test_recipe_script);
  g_test_add_func("/recipe/in-tutorial", test_recipe_in_tutorial);
  int code = g_test_run();
  if (tmp_dir != NULL)
    remove_tree(tmp_dir);
  return code;
}
