/* `lbsim explain`: run one balancer on a small case with narration on and
 * tell the story: who holds what, what every phase did, every transfer. */
#include "cli/explain.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "balancers/mlb/mlb-plan.h"
#include "cli/runner.h"
#include "lbsim/balancer.h"
#include "lbsim/scenario.h"

/* The built-in example: 3 elements per rank (24 on the default 8 ranks),
 * on the shipped hypercube that fits the ranks. */
static const char small_case[] = "[scenario]\n"
                                 "name = explain\n"
                                 "platform = %s\n"
                                 "ranks = %u\n"
                                 "[workload]\n"
                                 "size = %u\n"
                                 "pattern = step\n"
                                 "high = 9\n"
                                 "low = 1\n"
                                 "at = 0.3\n"
                                 "drift = 0\n"
                                 "[balancers]\n"
                                 "run = none\n";

#define BUILTIN "the built-in example"
#define LARGEST_HYPERCUBE 16384

static LbScenario *
load_text(const char *text, const LbScenarioOverrides *ov, GError **error)
{
  g_autofree char *dir = g_dir_make_tmp("lbsim-explain-XXXXXX", error);
  if (dir == NULL)
    return NULL;
  g_autofree char *path = g_build_filename(dir, "explain.ini", NULL);
  g_autoptr(GError) local = NULL;
  LbScenario *sc = NULL;
  if (g_file_set_contents(path, text, -1, &local))
    sc = lb_scenario_load(path, ov, &local);
  g_unlink(path);
  g_rmdir(dir);
  if (sc != NULL)
    return sc;
  /* the user never saw the temporary file: name the example instead */
  gboolean named = g_str_has_prefix(local->message, path);
  g_set_error(error, local->domain, local->code, BUILTIN "%s%s", named ? "" : ": ",
              local->message + (named ? strlen(path) : 0));
  return NULL;
}

/* --ranks or --set scenario.ranks may change the ranks, and with them the
 * platform and the size: the second load has them right. */
static LbScenario *
load_builtin(const LbScenarioOverrides *ov, GError **error)
{
  g_autofree char *platforms = g_canonicalize_filename(lb_platform_dir(), NULL);
  guint ranks = ov->ranks > 0 ? (guint)ov->ranks : 8;
  for (guint pass = 0; pass < 2; pass++) {
    guint hosts = 2;
    while (hosts < ranks && hosts < LARGEST_HYPERCUBE)
      hosts *= 2;
    g_autofree char *name = g_strdup_printf("hypercube-%u.xml", hosts);
    g_autofree char *platform = g_build_filename(platforms, name, NULL);
    g_autofree char *text = g_strdup_printf(small_case, platform, ranks, 3 * ranks);
    g_autoptr(LbScenario) sc = load_text(text, ov, error);
    if (sc == NULL)
      return NULL;
    if (sc->ranks == ranks) {
      g_free(sc->file);
      sc->file = g_strdup(BUILTIN);
      return g_steal_pointer(&sc);
    }
    ranks = sc->ranks;
  }
  g_assert_not_reached();
}

static void
print_initial(const LbScenario *sc, guint64 *loads_by_rank)
{
  guint p = sc->ranks;
  g_autofree guint64 *bounds = g_new(guint64, p + 1);
  lb_array1d_initial_bounds(&sc->array, p, bounds);
  g_print("Initial distribution (element loads by rank):\n");
  for (guint r = 0; r < p; r++) {
    g_autoptr(GString) line = g_string_new(NULL);
    loads_by_rank[r] = 0;
    for (guint64 i = bounds[r]; i < bounds[r + 1]; i++) {
      guint64 l = lb_array1d_load(&sc->array, i, 0);
      loads_by_rank[r] += l;
      if (line->len < 60)
        g_string_append_printf(line, " %" G_GUINT64_FORMAT, l);
    }
    g_print("  rank %2u  elements %3" G_GUINT64_FORMAT " .. %3" G_GUINT64_FORMAT
            "  load %5" G_GUINT64_FORMAT "  [%s%s ]\n",
            r, bounds[r], bounds[r + 1] == 0 ? 0 : bounds[r + 1] - 1, loads_by_rank[r],
            line->str, line->len >= 60 ? " ..." : "");
  }
}

/* The MLB tree of section 3.1 and 3.2: accumulated (desired) load of every
 * sub-hypercube, the root first. */
static void
print_mlb_tree(guint p, const guint64 *loads, const char *desired)
{
  guint d = 0;
  while ((1u << d) < p)
    d++;
  guint64 total = 0;
  for (guint r = 0; r < p; r++)
    total += loads[r];
  MlbDesired mode = g_strcmp0(desired, "even") == 0 ? MLB_DESIRED_EVEN : MLB_DESIRED_HALVING;
  g_print("\nThe tree of sub-hypercubes: accumulated load (desired load), root first:\n");
  for (guint level = 0; level <= d; level++) {
    guint size = p >> level;
    g_print("  level %u:", level);
    for (guint first = 0; first < p; first += size) {
      guint64 acc = 0;
      for (guint r = first; r < first + size; r++)
        acc += loads[r];
      guint64 want = mlb_desired_prefix(total, d, first + size, mode) -
                     mlb_desired_prefix(total, d, first, mode);
      g_print(" %" G_GUINT64_FORMAT "(%" G_GUINT64_FORMAT ")", acc, want);
    }
    g_print("\n");
  }
  g_print("  (gray codes of ranks 0 .. %u:", p - 1);
  for (guint r = 0; r < p; r++) {
    g_print(" ");
    for (guint b = d; b-- > 0;)
      g_print("%u", (mlb_gray(r) >> b) & 1u);
  }
  g_print(")\n");
}

static void
print_story(JsonObject *run)
{
  JsonArray *narration = json_object_get_array_member(run, "narration");
  g_print("\nWhat every rank did, in simulated time:\n");
  for (guint i = 0; i < json_array_get_length(narration); i++)
    g_print("  %s\n", json_array_get_string_element(narration, i));

  JsonArray *schedule = json_object_get_array_member(run, "schedule");
  g_print("\nThe schedule (transfers of elements):\n");
  if (json_array_get_length(schedule) == 0)
    g_print("  nothing moves\n");
  for (guint s = 0; s < json_array_get_length(schedule); s++) {
    JsonObject *step = json_array_get_object_element(schedule, s);
    g_print("  step %" G_GINT64_FORMAT ":\n", json_object_get_int_member(step, "step"));
    JsonArray *transfers = json_object_get_array_member(step, "transfers");
    for (guint t = 0; t < json_array_get_length(transfers); t++) {
      JsonObject *x = json_array_get_object_element(transfers, t);
      gint64 first = json_object_get_int_member(x, "first");
      gint64 count = json_object_get_int_member(x, "count");
      g_print("    rank %2" G_GINT64_FORMAT " -> rank %2" G_GINT64_FORMAT
              "  elements %" G_GINT64_FORMAT " .. %" G_GINT64_FORMAT "  load %" G_GINT64_FORMAT
              "\n",
              json_object_get_int_member(x, "src"), json_object_get_int_member(x, "dst"), first,
              first + count - 1, json_object_get_int_member(x, "load"));
    }
  }
  JsonArray *final = json_object_get_array_member(run, "final_loads");
  JsonObject *summary = json_object_get_object_member(run, "summary");
  g_print("\nFinal loads:");
  for (guint r = 0; r < json_array_get_length(final); r++)
    g_print(" %" G_GINT64_FORMAT, json_array_get_int_element(final, r));
  g_print("\nImbalance (max/avg): %.4f before, %.4f after; %" G_GINT64_FORMAT
          " schedule steps, %" G_GINT64_FORMAT " messages\n",
          json_object_get_double_member(summary, "imbalance_before"),
          json_object_get_double_member(summary, "imbalance_after"),
          json_object_get_int_member(summary, "schedule_steps"),
          json_object_get_int_member(summary, "messages"));
}

int
lb_cli_explain(int argc, char **argv)
{
  g_autofree char *ranks_text = NULL;
  g_auto(GStrv) sets = NULL;
  GOptionEntry entries[] = {
    {"ranks", 'p', 0, G_OPTION_ARG_STRING, &ranks_text, "Override [scenario] ranks", "N"},
    {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Override a key (repeatable)",
     "GROUP.KEY=VALUE"},
    {NULL},
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new("BALANCER [SCENARIO.ini]");
  g_option_context_add_main_entries(ctx, entries, NULL);
  g_option_context_set_summary(ctx,
                               "Runs one balancer on a small case (unless a scenario is given: "
                               "8 ranks or --ranks,\n3 elements per rank, on the hypercube that "
                               "fits) and narrates every phase:\nthe loads, the messages, the "
                               "schedule.");
  g_autoptr(GError) error = NULL;
  if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
    g_printerr("lbsim: %s\n", error->message);
    return 2;
  }
  if (argc < 2 || argc > 3) {
    g_printerr("lbsim: explain needs a balancer name and at most one scenario\n");
    return 2;
  }
  guint ranks = 0;
  if (ranks_text != NULL && !lb_runner_parse_count("--ranks", ranks_text, &ranks, &error)) {
    g_printerr("lbsim: %s\n", error->message);
    return 2;
  }
  LbScenarioOverrides ov = {(gint)ranks, NULL, argv[1], (const char *const *)sets};
  g_autoptr(LbScenario) sc =
      argc == 3 ? lb_scenario_load(argv[2], &ov, &error) : load_builtin(&ov, &error);
  if (sc == NULL) {
    g_printerr("lbsim: %s\n", error->message);
    return 2;
  }
  if (sc->ranks > 64 || sc->array.size > 4096)
    g_printerr("lbsim: explain is meant for small cases; %u ranks and %" G_GUINT64_FORMAT
               " elements make a long story\n",
               sc->ranks, sc->array.size);

  LbRunnerOptions ro = {.jobs = 1, .quiet = TRUE, .run = {.detail = TRUE, .narrate = TRUE}};
  g_autoptr(GPtrArray) texts = NULL;
  int code = 0;
  if (!lb_runner_run(sc, &ro, &texts, &code, &error)) {
    g_printerr("lbsim: %s\n", error->message);
    return code;
  }
  g_autoptr(JsonParser) parser = json_parser_new();
  if (!json_parser_load_from_data(parser, texts->pdata[0], -1, &error)) {
    g_printerr("lbsim: internal error reading results: %s\n", error->message);
    return 1;
  }
  JsonObject *run = json_node_get_object(json_parser_get_root(parser));
  const LbBalancerRun *brun = sc->runs->pdata[0];
  g_print("%s on %u ranks (%s), %" G_GUINT64_FORMAT " elements\n%s\n\n", brun->balancer->name,
          sc->ranks, sc->platform, sc->array.size, brun->balancer->summary);
  g_autofree guint64 *loads = g_new0(guint64, sc->ranks);
  print_initial(sc, loads);
  if (strcmp(brun->balancer->name, "mlb") == 0)
    print_mlb_tree(sc->ranks, loads, lb_params_get_string(brun->params, "desired"));
  print_story(run);
  return 0;
}
