/* lbsim list: the balancers and models, their parameters, from their
 * tables (and the reference's tables, --markdown). */
#include <string.h>

#include "cli/commands.h"
#include "io/datadir.h"
#include "lbsim/plugin.h"
#include "lbsim/balancer.h"
#include "lbsim/model.h"
#include "lbsim/scenario.h"
#include "workloads/models.h"

static void
print_params(const LbParamSpec *spec, const char *indent)
{
  for (const LbParamSpec *s = spec; s->name != NULL; s++) {
    g_autofree char *type = lb_param_spec_describe_type(s);
    g_print("%s%-18s %s (default: %s)\n%s%-18s   %s\n", indent, s->name, type,
            s->default_value != NULL ? s->default_value : "none", indent, "", s->help);
  }
}

static void
print_markdown_table(const char *title, const LbParamSpec *spec)
{
  g_print("%s\n\n| key | values | default | meaning |\n|---|---|---|---|\n", title);
  for (const LbParamSpec *s = spec; s->name != NULL; s++) {
    g_autofree char *described = lb_param_spec_describe_type(s);
    g_auto(GStrv) parts = g_strsplit(described, "|", -1);
    g_autofree char *type = g_strjoinv("\\|", parts);
    g_print("| `%s` | %s | %s | %s |\n", s->name, type,
            s->default_value != NULL ? s->default_value : "-", s->help);
  }
  g_print("\n");
}

/* The README's key tables come from here, so they cannot drift. */
static int
list_markdown(void)
{
  print_markdown_table("`[scenario]`", lb_scenario_params());
  for (const LbModel *const *m = lb_models(); *m != NULL; m++) {
    g_autofree char *title =
        g_strdup_printf("`[workload]` with `model = %s`: %s", (*m)->name, (*m)->summary);
    print_markdown_table(title, lb_model_param_spec(*m));
  }
  for (const LbBalancer *const *b = lb_balancers(); *b != NULL; b++) {
    g_autofree char *models = lb_balancer_models_text(*b);
    g_autofree char *title =
        g_strdup_printf("`[%s]`: %s (models: %s)", (*b)->name, (*b)->summary, models);
    if ((*b)->params[0].name != NULL)
      print_markdown_table(title, (*b)->params);
    else
      g_print("%s\n\nNo parameters.\n\n", title);
    g_autoptr(GArray) defs = lb_balancer_metric_defs(*b);
    g_print("Metrics of `%s` (for `[expect]`, CSV and the JSON `metrics` objects):\n\n"
            "| metric | unit | over steps | meaning |\n|---|---|---|---|\n",
            (*b)->name);
    for (guint i = 0; i < defs->len; i++) {
      const LbMetricDef *d = &g_array_index(defs, LbMetricDef, i);
      g_print("| `%s` | %s | %s | %s |\n", d->json_name, d->unit, lb_aggregate_name(d->aggregate),
              d->help);
    }
    g_print("\n");
  }
  return 0;
}

/* For shell completion: every balancer's name (and its variants'
 * labels, dls:fac), one a line. */
static int
list_names(void)
{
  for (const LbBalancer *const *b = lb_balancers(); *b != NULL; b++) {
    g_print("%s\n", (*b)->name);
    if ((*b)->variant_key == NULL)
      continue;
    const LbParamSpec *key = lb_param_spec_find((*b)->params, (*b)->variant_key);
    if (key == NULL || key->choices == NULL)
      continue;
    g_auto(GStrv) values = g_strsplit(key->choices, "|", -1);
    for (guint i = 0; values[i] != NULL; i++)
      g_print("%s:%s\n", (*b)->name, values[i]);
  }
  return 0;
}

static int
compare_names(gconstpointer a, gconstpointer b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .ini files of a folder, by name, each as PREFIX + its name without
 * .ini. */
static void
scenario_names(const char *dir, const char *prefix, GPtrArray *names, GPtrArray *paths)
{
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
  for (const char *f; d != NULL && (f = g_dir_read_name(d)) != NULL;)
    if (g_str_has_suffix(f, ".ini") && strcmp(f, "claims.ini") != 0)
      g_ptr_array_add(files, g_strdup(f));
  g_ptr_array_sort(files, compare_names);
  for (guint i = 0; i < files->len; i++) {
    const char *f = files->pdata[i];
    g_ptr_array_add(names, g_strdup_printf("%s%.*s", prefix, (int)(strlen(f) - 4), f));
    g_ptr_array_add(paths, g_build_filename(dir, f, NULL));
  }
}

/* The shipped scenarios, the regression suite's, then each paper's, by
 * the names lbsim run takes, with their [scenario] description. */
static int
list_scenarios(void)
{
  g_autofree char *dir = lb_data_file("scenarios", NULL);
  if (dir == NULL || !g_file_test(dir, G_FILE_TEST_IS_DIR)) {
    g_printerr("lbsim: no shipped scenarios (their folder is not beside lbsim)\n");
    return 1;
  }
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func(g_free);
  scenario_names(dir, "", names, paths);
  g_autofree char *regression = g_build_filename(dir, "regression", NULL);
  scenario_names(regression, "regression/", names, paths);
  g_autofree char *papers = g_build_filename(dir, "papers", NULL);
  g_autoptr(GDir) pd = g_dir_open(papers, 0, NULL);
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func(g_free);
  for (const char *k; pd != NULL && (k = g_dir_read_name(pd)) != NULL;)
    g_ptr_array_add(keys, g_strdup(k));
  g_ptr_array_sort(keys, compare_names);
  for (guint i = 0; i < keys->len; i++) {
    g_autofree char *kdir = g_build_filename(papers, keys->pdata[i], NULL);
    g_autofree char *prefix = g_strdup_printf("papers/%s/", (char *)keys->pdata[i]);
    scenario_names(kdir, prefix, names, paths);
  }
  g_print("Scenarios lbsim run, check and sweep take by name (shipped in %s):\n", dir);
  for (guint i = 0; i < names->len; i++) {
    g_autofree char *about = lb_scenario_description(paths->pdata[i]);
    if (about != NULL)
      g_print("  %-40s %s\n", (char *)names->pdata[i], about);
    else
      g_print("  %s\n", (char *)names->pdata[i]);
  }
  return 0;
}

/* For shell completion: every key --set takes, GROUP.KEY, one a line. */
static int
list_keys(void)
{
  g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) keys = g_ptr_array_new();
  for (const LbParamSpec *s = lb_scenario_params(); s->name != NULL; s++)
    g_ptr_array_add(keys, g_strdup_printf("scenario.%s", s->name));
  for (const LbModel *const *m = lb_models(); *m != NULL; m++)
    for (const LbParamSpec *s = lb_model_param_spec(*m); s->name != NULL; s++)
      g_ptr_array_add(keys, g_strdup_printf("workload.%s", s->name));
  for (const LbBalancer *const *b = lb_balancers(); *b != NULL; b++)
    for (const LbParamSpec *s = (*b)->params; s->name != NULL; s++)
      g_ptr_array_add(keys, g_strdup_printf("%s.%s", (*b)->name, s->name));
  for (guint i = 0; i < keys->len; i++) {
    char *k = keys->pdata[i];
    if (g_hash_table_contains(seen, k)) {
      g_free(k);
      continue;
    }
    g_hash_table_add(seen, k);
    g_print("%s\n", k);
  }
  return 0;
}

int
lb_cmd_list(const LbCommand *self, int argc, char **argv)
{
  argc = lb_command_drop_quiet(argc, argv);
  if (argc == 2 && strcmp(argv[1], "--markdown") == 0)
    return list_markdown();
  if (argc == 2 && strcmp(argv[1], "--names") == 0)
    return list_names();
  if (argc == 2 && strcmp(argv[1], "--keys") == 0)
    return list_keys();
  if (argc == 2 && strcmp(argv[1], "--scenarios") == 0)
    return list_scenarios();
  if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    g_autofree char *usage = lb_command_usage_line(self);
    g_print("%s\n\nLists the balancers with their parameters (name, type and range, default,\n"
            "meaning), then the keys of [scenario] and [workload]. --markdown prints the\n"
            "tables of the reference instead; --names every balancer's name (and variant\n"
            "labels), --keys every GROUP.KEY that --set takes, one a line (for shell\n"
            "completion), --scenarios the shipped scenarios, the regression suite's and the\n"
            "papers' by the names lbsim run takes (mlb-teach-16, regression/mlb-steps,\n"
            "papers/lbd/axes-shock). -q, --quiet: taken as by every command (list prints\n"
            "nothing on stderr but errors).\n",
            usage);
    return 0;
  }
  if (argc > 2) {
    g_printerr("lbsim: list takes at most one balancer name\n");
    return LB_EXIT_INPUT;
  }
  if (argc == 2 && lb_balancer_lookup(argv[1]) == NULL) {
    g_printerr("lbsim: unknown balancer '%s' (lbsim list shows them)\n", argv[1]);
    return LB_EXIT_INPUT;
  }
  for (const LbBalancer *const *b = lb_balancers(); *b != NULL; b++) {
    if (argc == 2 && strcmp((*b)->name, argv[1]) != 0)
      continue;
    g_print("%s: %s\n", (*b)->name, (*b)->summary);
    if ((*b)->cite != NULL)
      g_print("  source: %s\n", (*b)->cite);
    const char *origin = lb_balancer_origin(*b);
    g_print("  from: %s\n", origin != NULL ? origin : "built in");
    g_autofree char *models = lb_balancer_models_text(*b);
    g_autofree char *needs = lb_capabilities_describe((*b)->needs);
    g_print("  models: %s (it needs %s)\n", models, needs);
    if ((*b)->phases[0] != NULL) {
      g_autofree char *phases = g_strjoinv(", ", (char **)(*b)->phases);
      g_print("  phases: %s\n", phases);
    }
    g_autoptr(GArray) defs = lb_balancer_metric_defs(*b);
    g_autoptr(GString) metrics = g_string_new(NULL);
    for (guint i = 0; i < defs->len; i++)
      g_string_append_printf(metrics, "%s%s", i ? ", " : "",
                             g_array_index(defs, LbMetricDef, i).json_name);
    g_print("  metrics (besides the summary's): %s\n", metrics->str);
    if ((*b)->params[0].name != NULL) {
      g_print("  parameters ([%s] group):\n", (*b)->name);
      print_params((*b)->params, "    ");
    }
    g_print("\n");
  }
  if (argc == 1) {
    g_print("[scenario] keys:\n");
    print_params(lb_scenario_params(), "    ");
    for (const LbModel *const *m = lb_models(); *m != NULL; m++) {
      const char *origin = lb_model_origin(*m);
      g_print("\n[workload] keys with model = %s (%s; %s%s):\n", (*m)->name, (*m)->summary,
              origin != NULL ? "from " : "built in", origin != NULL ? origin : "");
      print_params(lb_model_param_spec(*m), "    ");
    }
  }
  return 0;
}
