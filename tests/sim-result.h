/* What the tests that run whole simulations through the runner share: a
 * scenario from text, its runs as JSON, and every unit's load at the first
 * step. */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "runner/runner.h"
#include "lbsim/scenario.h"
#include "report/report.h"

typedef struct {
  LbScenario *scenario;
  JsonParser *parser;
  JsonObject *run; /* the last run */
} SimResult;

static inline void
sim_result_clear(SimResult *r)
{
  lb_scenario_free(r->scenario);
  g_clear_object(&r->parser);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(SimResult, sim_result_clear)

/* loads, if not NULL, go to loads.txt beside the scenario. */
static inline gboolean
simulate_with(const char *ini, const char *loads, gboolean narrate, SimResult *out)
{
  g_autofree char *dir = g_dir_make_tmp("lbsim-test-XXXXXX", NULL);
  g_autofree char *path = g_build_filename(dir, "s.ini", NULL);
  g_autofree char *loads_path = g_build_filename(dir, "loads.txt", NULL);
  g_assert_true(g_file_set_contents(path, ini, -1, NULL));
  if (loads != NULL)
    g_assert_true(g_file_set_contents(loads_path, loads, -1, NULL));
  g_autoptr(GError) error = NULL;
  out->scenario = lb_scenario_load(path, NULL, &error);
  g_assert_no_error(error);
  LbRunnerOptions options = {.jobs = 1, .quiet = TRUE, .run = {.detail = TRUE, .narrate = narrate}};
  g_autoptr(GPtrArray) results = NULL;
  int code = -1;
  gboolean ok = lb_runner_run(out->scenario, NULL, &options, &results, &code, &error);
  g_unlink(path);
  g_unlink(loads_path);
  g_rmdir(dir);
  g_assert_no_error(error);
  g_assert_true(ok);
  g_autofree char *doc = lb_report_document(out->scenario, results);
  out->parser = json_parser_new();
  g_assert_true(json_parser_load_from_data(out->parser, doc, -1, NULL));
  JsonArray *runs =
      json_object_get_array_member(json_node_get_object(json_parser_get_root(out->parser)), "runs");
  out->run = json_array_get_object_element(runs, json_array_get_length(runs) - 1);
  return TRUE;
}

static inline gboolean
simulate(const char *ini, SimResult *out)
{
  return simulate_with(ini, NULL, FALSE, out);
}

/* Every unit's load at the first step, in the model's order; *n of them. */
static inline guint64 *
element_loads(const LbScenario *sc, guint64 *count)
{
  guint64 n = *count = lb_work_total_units(sc->work);
  g_autoptr(GArray) units = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  for (guint64 i = 0; i < n; i++) {
    LbUnit u = {i, 0};
    g_array_append_val(units, u);
  }
  lb_work_update(sc->work, 0, units, 0);
  guint64 *loads = g_new(guint64, n);
  for (guint64 i = 0; i < n; i++)
    loads[i] = g_array_index(units, LbUnit, i).load;
  return loads;
}
