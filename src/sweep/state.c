/* A sweep's state folder (sweep.ini and a result per run, kept so that a
 * sweep resumes) and the outputs it may replace: only its own. */
#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

#include "io/input.h"
#include "io/output.h"
#include "runner/transport.h"
#include "sweep/emit.h"
#include "sweep/sweep.h"

void
lb_sweep_results_free(LbRunResult **results, guint n)
{
  for (guint i = 0; results != NULL && i < n; i++)
    lb_run_result_free(results[i]);
  g_free(results);
}

char *
lb_sweep_default_json(const LbSweep *sw)
{
  g_autofree char *name = g_strdup(sw->name);
  g_strdelimit(name, G_DIR_SEPARATOR_S, '_');
  return g_strdup_printf("%s-sweep.json", name);
}

char *
lb_sweep_default_state(const char *json)
{
  gsize n = strlen(json);
  if (n > strlen(".json") && g_str_has_suffix(json, ".json"))
    return g_strdup_printf("%.*s.d", (int)(n - strlen(".json")), json);
  return g_strdup_printf("%s.d", json);
}

/* ---- what may be replaced ---- */

/* lbsim writes a sweep's definition near the start of its JSON: a look
 * at this much of a file tells whether it is a sweep's and whose. */
#define JSON_HEAD (64 * 1024)

/* The definition a sweep's JSON names in its first JSON_HEAD bytes, as
 * lb_sweep_document writes it, or NULL. */
static char *
definition_in_head(const char *text)
{
  const char *p = text + strspn(text, " \t\r\n");
  if (*p != '{')
    return NULL;
  const char *sweep = strstr(p, "\"sweep\": {");
  const char *key = sweep != NULL ? strstr(sweep, "\"definition\": \"") : NULL;
  if (key == NULL)
    return NULL;
  key += strlen("\"definition\": \"");
  gsize n = strcspn(key, "\"\\\n");
  return key[n] == '"' ? g_strndup(key, n) : NULL;
}

/* A JSON output may replace nothing but this sweep's own: one whose
 * `definition` is this sweep's. A device or FIFO is written in place and
 * never read. */
gboolean
lb_sweep_check_json(const char *path, const LbSweep *sw, GError **error)
{
  if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
    return TRUE;
  g_autofree char *text = NULL;
  g_autofree char *id =
      lb_input_read_prefix(path, JSON_HEAD, &text, NULL) ? definition_in_head(text) : NULL;
  if (g_strcmp0(id, sw->id) == 0)
    return TRUE;
  return lb_sweep_fail(error, LB_SWEEP_ERROR_STATE,
                       "%s exists and holds %s: give another -o, or --force to replace it", path,
                       id != NULL ? "another sweep's results"
                                  : "something else than a sweep's results");
}

/* A CSV output: one that starts with this sweep's columns. */
static gboolean
check_csv(const char *path, const LbSweep *sw, GError **error)
{
  g_autofree char *text = NULL;
  if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
    return TRUE;
  g_autoptr(GString) head = g_string_new(NULL);
  for (guint a = 0; a < sw->axes->len; a++) {
    const LbSweepAxis *x = sw->axes->pdata[a];
    if (strcmp(x->name, "balancer") != 0)
      g_string_append_printf(head, "%s,", x->name);
  }
  g_string_append(head, "balancer,");
  if (lb_input_read_prefix(path, head->len, &text, NULL) && g_str_has_prefix(text, head->str))
    return TRUE;
  return lb_sweep_fail(error, LB_SWEEP_ERROR_STATE,
                       "%s exists and is not this sweep's CSV: give another --csv, or --force to "
                       "replace it",
                       path);
}

/* A long or statistics CSV: one that starts with this sweep's header. */
static gboolean
check_table(const char *option, const char *path, const char *text, GError **error)
{
  g_autofree char *have = NULL;
  if (path == NULL || strcmp(path, "-") == 0 || !g_file_test(path, G_FILE_TEST_IS_REGULAR))
    return TRUE;
  gsize n = strcspn(text, "\n") + 1;
  if (lb_input_read_prefix(path, n, &have, NULL) && strncmp(have, text, n) == 0)
    return TRUE;
  return lb_sweep_fail(error, LB_SWEEP_ERROR_STATE,
                       "%s exists and is not this sweep's CSV: give another %s, or --force to "
                       "replace it",
                       path, option);
}

gboolean
lb_sweep_check_tables(const LbSweepFiles *files, const LbSweep *sw, GError **error)
{
  if (files->csv != NULL && strcmp(files->csv, "-") != 0 && !check_csv(files->csv, sw, error))
    return FALSE;
  g_autofree LbRunResult **none = g_new0(LbRunResult *, MAX(sw->runs->len, 1));
  g_autofree char *long_head = lb_sweep_long_csv(sw, none);
  g_autofree char *stats_head = lb_sweep_stats_csv(sw, none);
  return check_table("--long-csv", files->long_csv, long_head, error) &&
         check_table("--stats-csv", files->stats_csv, stats_head, error);
}

/* The state folder: this sweep's, a new one, or (--force) another's. */
gboolean
lb_sweep_check_state(const char *dir, const LbSweep *sw, gboolean force, GError **error)
{
  g_autofree char *ini = g_build_filename(dir, "sweep.ini", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) local = NULL;
  if (g_file_test(ini, G_FILE_TEST_EXISTS) &&
      !lb_input_read(ini, LB_INPUT_SWEEP_STATE, &text, NULL, &local)) {
    g_propagate_error(error, g_steal_pointer(&local));
    return FALSE;
  }
  if (text != NULL) {
    if (force || strcmp(text, sw->definition) == 0)
      return TRUE;
    return lb_sweep_fail(
        error, LB_SWEEP_ERROR_STATE,
        "%s holds another sweep's runs (other keys, values, balancers or scenario "
        "contents): give another -o or --state, or --force to make it this sweep's "
        "(the results of runs the two share are kept)",
        dir);
  }
  if (!g_file_test(dir, G_FILE_TEST_EXISTS))
    return TRUE;
  if (!g_file_test(dir, G_FILE_TEST_IS_DIR))
    return lb_sweep_fail(error, LB_SWEEP_ERROR_STATE, "--state %s: not a folder", dir);
  g_autoptr(GDir) d = g_dir_open(dir, 0, error);
  if (d == NULL)
    return FALSE;
  if (force || g_dir_read_name(d) == NULL)
    return TRUE;
  return lb_sweep_fail(error, LB_SWEEP_ERROR_STATE,
                       "%s is not empty and holds no sweep.ini: give another -o or --state, or "
                       "--force to use it",
                       dir);
}

/* ---- results ---- */

LbRunResult *
lb_sweep_read_result(const char *path, const LbSweepRun *run, GError **error)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) local = NULL;
  if (!lb_input_read(path, LB_INPUT_RESULT, &text, NULL, error))
    return NULL;
  LbRunResult *result = lb_result_from_transport(text, &local);
  if (result == NULL) {
    lb_sweep_fail(error, LB_SWEEP_ERROR_STATE, "%s: not a run's result: %s", path, local->message);
    return NULL;
  }
  if (strcmp(result->balancer, run->balancer) != 0) {
    lb_sweep_fail(error, LB_SWEEP_ERROR_STATE, "%s: a result of %s, where the sweep expects %s",
                  path, result->balancer, run->balancer);
    lb_run_result_free(result);
    return NULL;
  }
  return result;
}

/* The results kept in the state folder; the rest runs again. */
guint
lb_sweep_read_kept(const char *dir, const LbSweep *sw, LbRunResult **results, gboolean quiet)
{
  guint kept = 0;
  for (guint i = 0; i < sw->runs->len; i++) {
    g_autofree char *path = lb_sweep_run_file(dir, sw->runs->pdata[i], ".result");
    g_autoptr(GError) error = NULL;
    if (!g_file_test(path, G_FILE_TEST_EXISTS))
      continue;
    results[i] = lb_sweep_read_result(path, sw->runs->pdata[i], &error);
    if (results[i] != NULL)
      kept++;
    else if (!quiet)
      g_printerr("lbsim: %s: running it again\n", error->message);
  }
  return kept;
}

/* Before anything is made or run: each output can be written, none is
 * an input (the scenario, a point's platform, a file a point reads) or
 * another output, and the state folder is none of them either. */
gboolean
lb_sweep_check_files(const LbSweep *sw, const char *json, const char *csv, const LbEmit *emit,
                     const char *state, const LbSweepFiles *more, GError **error)
{
  g_autoptr(LbFileSet) set = lb_file_set_new();
  lb_file_set_input(set, "the scenario", sw->scenario);
  for (guint i = 0; i < sw->runs->len; i++) {
    const LbSweepRun *run = sw->runs->pdata[i];
    if (run->platform != NULL)
      lb_file_set_input(set, "the platform", run->platform);
  }
  const GArray *read = lb_input_files();
  for (guint i = 0; i < read->len; i++) {
    const LbInputFile *f = &g_array_index(read, LbInputFile, i);
    lb_file_set_input(set, lb_input_kind_name(f->kind), f->path);
  }
  const char *const outputs[][2] = {{"-o", json},
                                    {"--csv", csv},
                                    {"--long-csv", more->long_csv},
                                    {"--stats-csv", more->stats_csv}};
  for (guint i = 0; i < G_N_ELEMENTS(outputs); i++)
    if (outputs[i][1] != NULL && (!lb_output_check(outputs[i][0], outputs[i][1], error) ||
                                  !lb_file_set_output(set, outputs[i][0], outputs[i][1], error)))
      return FALSE;
  if ((emit != NULL && !lb_emit_check(emit, sw, set, error)) ||
      !lb_file_set_output(set, "--state", state, error))
    return FALSE;
  GStatBuf st;
  if (g_stat(state, &st) == 0 && !S_ISDIR(st.st_mode))
    return lb_sweep_fail(error, LB_SWEEP_ERROR_STATE, "--state %s: not a folder", state);
  return TRUE;
}

gboolean
lb_sweep_state_make(const char *dir, const LbSweep *sw)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *ini = g_build_filename(dir, "sweep.ini", NULL);
  if (g_mkdir_with_parents(dir, 0777) != 0) {
    int errsv = errno;
    g_printerr("lbsim: cannot make %s: %s\n", dir, g_strerror(errsv));
    return FALSE;
  }
  if (!lb_output_write(ini, sw->definition, -1, &error)) {
    g_printerr("lbsim: %s\n", error->message);
    return FALSE;
  }
  return TRUE;
}
