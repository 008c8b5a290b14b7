/* lbsim merge's library side: the sweep a set of state folders and result
 * files belongs to, and their results in the sweep's order. */
#include <string.h>

#include "io/output.h"
#include "sweep/sweep.h"

/* The sweep the arguments belong to: the sweep.ini of each folder given
 * and of the folder of each result file given, all the same. */
LbSweep *
lb_sweep_merge_definition(int argc, char **argv, GError **error)
{
  g_autoptr(LbSweep) sw = NULL;
  const char *from = NULL;
  for (int i = 1; i < argc; i++) {
    gboolean dir = g_file_test(argv[i], G_FILE_TEST_IS_DIR);
    if (!dir && !g_file_test(argv[i], G_FILE_TEST_IS_REGULAR)) {
      lb_sweep_fail(error, LB_SWEEP_ERROR_STATE, "%s: no such file or folder", argv[i]);
      return NULL;
    }
    g_autofree char *folder = dir ? g_strdup(argv[i]) : g_path_get_dirname(argv[i]);
    g_autofree char *ini = g_build_filename(folder, "sweep.ini", NULL);
    if (!dir && !g_file_test(ini, G_FILE_TEST_EXISTS))
      continue;
    g_autoptr(LbSweep) here = lb_sweep_read(folder, error);
    if (here == NULL)
      return NULL;
    if (sw == NULL) {
      sw = g_steal_pointer(&here);
      from = argv[i];
    } else if (strcmp(sw->definition, here->definition) != 0) {
      lb_sweep_fail(error, LB_SWEEP_ERROR_STATE,
                    "%s and %s belong to different sweeps (their sweep.ini differ)", from, argv[i]);
      return NULL;
    }
  }
  if (sw == NULL)
    lb_sweep_fail(error, LB_SWEEP_ERROR_STATE,
                  "no sweep.ini next to the result files: give the sweep's state folder too");
  return g_steal_pointer(&sw);
}

/* The runs that share run first's result (points that reuse it), read
 * from path too. */
static gboolean
read_shared(const LbSweep *sw, guint first, const char *path, LbRunResult **results, GError **error)
{
  for (guint j = ((const LbSweepRun *)sw->runs->pdata[first])->next; j != 0;
       j = ((const LbSweepRun *)sw->runs->pdata[j])->next)
    if (results[j] == NULL &&
        (results[j] = lb_sweep_read_result(path, sw->runs->pdata[j], error)) == NULL)
      return FALSE;
  return TRUE;
}

gboolean
lb_sweep_merge_results(const LbSweep *sw, int argc, char **argv, LbRunResult **results,
                       GError **error)
{
  g_autoptr(GHashTable) by_id = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint i = 0; i < sw->runs->len; i++)
    if (((LbSweepRun *)sw->runs->pdata[i])->first == i)
      g_hash_table_insert(by_id, ((LbSweepRun *)sw->runs->pdata[i])->id, GUINT_TO_POINTER(i + 1));
  for (int a = 1; a < argc; a++) {
    if (g_file_test(argv[a], G_FILE_TEST_IS_DIR)) {
      for (guint i = 0; i < sw->runs->len; i++) {
        g_autofree char *path = lb_sweep_run_file(argv[a], sw->runs->pdata[i], ".result");
        if (results[i] != NULL || !g_file_test(path, G_FILE_TEST_EXISTS))
          continue;
        if ((results[i] = lb_sweep_read_result(path, sw->runs->pdata[i], error)) == NULL)
          return FALSE;
      }
      continue;
    }
    g_autofree char *base = g_path_get_basename(argv[a]);
    g_autofree char *id = g_str_has_suffix(base, ".result")
                              ? g_strndup(base, strlen(base) - strlen(".result"))
                              : NULL;
    guint i = GPOINTER_TO_UINT(id != NULL ? g_hash_table_lookup(by_id, id) : NULL);
    if (i == 0)
      return lb_sweep_fail(error, LB_SWEEP_ERROR_STATE,
                           "%s: not a result of this sweep (ID.result, ID one of its sweep.ini's "
                           "runs)",
                           argv[a]);
    if (results[i - 1] == NULL &&
        ((results[i - 1] = lb_sweep_read_result(argv[a], sw->runs->pdata[i - 1], error)) == NULL ||
         !read_shared(sw, i - 1, argv[a], results, error)))
      return FALSE;
  }
  return TRUE;
}

/* merge's outputs: writable, and none of them a result or state file it
 * reads, or the other output. */
gboolean
lb_sweep_check_merge_files(const LbSweep *sw, int argc, char **argv, const LbSweepFiles *files,
                           GError **error)
{
  g_autoptr(LbFileSet) set = lb_file_set_new();
  for (int i = 1; i < argc; i++) {
    if (!g_file_test(argv[i], G_FILE_TEST_IS_DIR)) {
      lb_file_set_input(set, "the result", argv[i]);
      continue;
    }
    g_autofree char *ini = g_build_filename(argv[i], "sweep.ini", NULL);
    lb_file_set_input(set, "the sweep's definition", ini);
    for (guint r = 0; r < sw->runs->len; r++) {
      g_autofree char *path = lb_sweep_run_file(argv[i], sw->runs->pdata[r], ".result");
      lb_file_set_input(set, "the result", path);
    }
  }
  const char *const outputs[][2] = {{"-o", files->json},
                                    {"--csv", files->csv},
                                    {"--long-csv", files->long_csv},
                                    {"--stats-csv", files->stats_csv}};
  for (guint i = 0; i < G_N_ELEMENTS(outputs); i++)
    if (outputs[i][1] != NULL && (!lb_output_check(outputs[i][0], outputs[i][1], error) ||
                                  !lb_file_set_output(set, outputs[i][0], outputs[i][1], error)))
      return FALSE;
  return TRUE;
}
