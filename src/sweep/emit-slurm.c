/* --scheduler slurm: a folder of three scripts, a job array with a task
 * per missing run (array.sbatch), the merge (merge.sbatch) and submit.sh,
 * which submits the array, then the merge once every task has ended. */
#include "sweep/emit.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

#include "io/input.h"

#define DEFAULT_TIME "01:00:00"
#define DEFAULT_MEM "2G"
/* Slurm's default MaxArraySize is 1001: task numbers up to 1000 */
#define DEFAULT_MAX_ARRAY 1000
/* the second line of every script, then the sweep's definition digest:
 * what tells a folder's earlier scripts from anyone else's files */
#define MARKER "# lbsim-jobs sweep "

static const char *const slurm_files[] = {"array.sbatch", "merge.sbatch", "submit.sh"};

/* A value of an #SBATCH line: one word, nothing sbatch would read past. */
static gboolean
check_sbatch_value(const char *option, const char *value, gboolean spaces, GError **error)
{
  if (value == NULL)
    return TRUE;
  if (*value == '\0' || lb_emit_has_control(value) || (!spaces && strpbrk(value, " \t") != NULL))
    return lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT, "%s '%s': expected %s", option, value,
                         spaces ? "an sbatch option on one line" : "one word");
  return TRUE;
}

/* A script of this folder: new, one this sweep's --emit-jobs wrote, or
 * (force) anything. */
static gboolean
check_script(const char *path, const LbSweep *sw, gboolean force, GError **error)
{
  if (force || !g_file_test(path, G_FILE_TEST_IS_REGULAR))
    return TRUE;
  g_autofree char *text = NULL;
  g_autofree char *mine = g_strdup_printf("\n" MARKER "%s ", sw->id);
  if (lb_input_read_prefix(path, 512, &text, NULL) && strstr(text, mine) != NULL)
    return TRUE;
  return lb_sweep_fail(
      error, LB_SWEEP_ERROR_STATE,
      "%s exists and is not a script lbsim sweep --emit-jobs wrote for this sweep: give "
      "another folder, or --force to replace it",
      path);
}

/* Slurm's time formats (sbatch --time): minutes, minutes:seconds,
 * hours:minutes:seconds, days-hours, days-hours:minutes and
 * days-hours:minutes:seconds, each a whole number. */
gboolean
lb_emit_slurm_time_valid(const char *text)
{
  const char *dash = strchr(text, '-');
  g_auto(GStrv) fields = g_strsplit(dash != NULL ? dash + 1 : text, ":", -1);
  guint n = g_strv_length(fields);
  if (n == 0 || n > 3)
    return FALSE;
  g_autofree char *days = dash != NULL ? g_strndup(text, dash - text) : NULL;
  if (days != NULL && (*days == '\0' || days[strspn(days, "0123456789")] != '\0'))
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (*fields[i] == '\0' || fields[i][strspn(fields[i], "0123456789")] != '\0' ||
        strlen(fields[i]) > 9)
      return FALSE;
  return TRUE;
}

static gboolean
check_options(const LbEmit *e, const LbSweep *sw, LbFileSet *set, GError **error)
{
  /* the one-word values first, --sbatch last */
  const char *const values[][2] = {{"--slurm-time", e->slurm_time},
                                   {"--slurm-merge-time", e->slurm_merge_time},
                                   {"--slurm-mem", e->slurm_mem},
                                   {"--slurm-merge-mem", e->slurm_merge_mem},
                                   {"--slurm-partition", e->slurm_partition},
                                   {"--slurm-merge-partition", e->slurm_merge_partition}};
  for (guint i = 0; i < 2; i++)
    if (values[i][1] != NULL && !lb_emit_slurm_time_valid(values[i][1]))
      return lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT,
                           "%s '%s': expected one of Slurm's forms, MINUTES, "
                           "MINUTES:SECONDS, HOURS:MINUTES:SECONDS, DAYS-HOURS, DAYS-HOURS:MINUTES "
                           "or DAYS-HOURS:MINUTES:SECONDS (e.g. 1:00:00 for an hour)",
                           values[i][0], values[i][1]);
  for (guint i = 0; i < G_N_ELEMENTS(values); i++)
    if (!check_sbatch_value(values[i][0], values[i][1], FALSE, error))
      return FALSE;
  for (guint i = 0; e->sbatch != NULL && e->sbatch[i] != NULL; i++)
    if (!check_sbatch_value("--sbatch", e->sbatch[i], TRUE, error))
      return FALSE;
  for (guint i = 0; e->sbatch != NULL && e->sbatch[i] != NULL; i++)
    if (e->sbatch[i][0] != '-')
      return lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT,
                           "--sbatch '%s': expected an sbatch option, such as --account=NAME",
                           e->sbatch[i]);
  gboolean make = FALSE;
  if (!lb_output_check_folder("--emit-jobs", e->target, &make, error))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS(slurm_files); i++) {
    g_autofree char *path = g_build_filename(e->target, slurm_files[i], NULL);
    if ((!make && (!lb_output_check("--emit-jobs", path, error) ||
                   !check_script(path, sw, e->force, error))) ||
        !lb_file_set_output(set, "--emit-jobs", path, error))
      return FALSE;
  }
  return TRUE;
}

/* The #SBATCH lines of a script: the array's (merge FALSE) or the merge
 * job's, whose limits default to the array's. */
static void
sbatch_common(GString *out, const LbEmit *e, gboolean merge)
{
  const char *time = merge && e->slurm_merge_time != NULL ? e->slurm_merge_time : e->slurm_time;
  const char *mem = merge && e->slurm_merge_mem != NULL ? e->slurm_merge_mem : e->slurm_mem;
  const char *partition =
      merge && e->slurm_merge_partition != NULL ? e->slurm_merge_partition : e->slurm_partition;
  g_string_append_printf(out, "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n");
  g_string_append_printf(out, "#SBATCH --time=%s\n", time != NULL ? time : DEFAULT_TIME);
  g_string_append_printf(out, "#SBATCH --mem=%s\n", mem != NULL ? mem : DEFAULT_MEM);
  if (partition != NULL)
    g_string_append_printf(out, "#SBATCH --partition=%s\n", partition);
  for (guint i = 0; e->sbatch != NULL && e->sbatch[i] != NULL; i++)
    g_string_append_printf(out, "#SBATCH %s\n", e->sbatch[i]);
}

/* The sweep's name as a Slurm job name: letters, digits, - _ . only. */
static char *
job_name(const LbSweep *sw, const char *suffix)
{
  g_autofree char *name = g_strconcat("lbsim-", sw->name, suffix, NULL);
  return g_strcanon(g_steal_pointer(&name),
                    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.", '_');
}

static gboolean
write_script(const char *dir, const char *name, const char *text, GError **error)
{
  g_autofree char *path = g_build_filename(dir, name, NULL);
  if (!lb_output_write(path, text, -1, error))
    return FALSE;
  if (g_file_test(path, G_FILE_TEST_IS_REGULAR) && g_chmod(path, 0755) != 0) {
    int errsv = errno;
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errsv),
                "cannot make %s executable: %s", path, g_strerror(errsv));
    return FALSE;
  }
  return TRUE;
}

/* array.sbatch (task K runs the K-th missing run; a comment above each
 * names its point), merge.sbatch (lbsim merge into the sweep's JSON and
 * CSV) and submit.sh (the array, then the merge once every task has
 * ended: afterany, so that the merge names the runs that failed). */
static gboolean
write_files(const LbEmit *e, const LbSweep *sw, const LbEmitJobs *jobs, GError **error)
{
  GPtrArray *runs = jobs->runs;
  const char *lbsim = jobs->lbsim, *state = jobs->state;
  g_autofree char *dir = g_canonicalize_filename(e->target, NULL);
  g_autofree char *dir_word = lb_emit_shell_word(dir);
  g_autofree char *marker = g_strdup_printf(MARKER "%s (%s)", sw->id, sw->name);
  g_autoptr(GString) array = g_string_new("#!/bin/bash\n");
  g_autofree char *array_name = job_name(sw, "");
  guint max = e->slurm_max_array > 0 ? e->slurm_max_array : DEFAULT_MAX_ARRAY;
  guint tasks = MIN(runs->len, max);
  g_string_append_printf(array, "%s: its %u runs still missing, %s\n", marker, runs->len,
                         tasks == runs->len ? "one array task each"
                                            : "task K runs K, K + TASKS, K + 2 TASKS, ...");
  g_string_append(array,
                  "# Submit it with submit.sh (the merge follows), or sbatch array.sbatch\n");
  g_string_append_printf(array, "#SBATCH --job-name=%s\n", array_name);
  if (runs->len > 0 && e->slurm_array_limit > 0)
    g_string_append_printf(array, "#SBATCH --array=1-%u%%%u\n", tasks, e->slurm_array_limit);
  else if (runs->len > 0)
    g_string_append_printf(array, "#SBATCH --array=1-%u\n", tasks);
  g_string_append_printf(array, "#SBATCH --output=%s/run-%%A_%%a.out\n", dir);
  sbatch_common(array, e, FALSE);
  g_autofree char *state_word = lb_emit_shell_word(state);
  g_string_append_printf(array, "set -eu\nlbsim=%s\nstate=%s\n", lbsim, state_word);
  g_string_append(array, "run() {\n  case \"$1\" in\n");
  for (guint i = 0; i < runs->len; i++) {
    const LbSweepRun *run = runs->pdata[i];
    g_autofree char *label = lb_emit_comment(sw, run);
    g_string_append_printf(array, "  # %s\n  %u) id=%s ;;\n", label, i + 1, run->id);
  }
  g_string_append(array, "  *) echo \"array.sbatch: no run $1\" >&2; return 2 ;;\n"
                         "  esac\n"
                         "  srun --ntasks=1 \"$lbsim\" run-job \"$state/$id.job\" "
                         "\"$state/$id.result\"\n"
                         "}\n");
  g_string_append_printf(array,
                         "status=0\n"
                         "for k in $(seq \"${SLURM_ARRAY_TASK_ID:?not an array task}\" %u %u); do\n"
                         "  run \"$k\" || status=$?\n"
                         "done\n"
                         "exit $status\n",
                         MAX(tasks, 1), runs->len);

  g_autoptr(GString) merge = g_string_new("#!/bin/bash\n");
  g_autofree char *merge_name = job_name(sw, "-merge");
  g_string_append_printf(merge, "%s: the merge, once the array is done\n", marker);
  g_string_append_printf(merge, "#SBATCH --job-name=%s\n#SBATCH --output=%s/merge-%%j.out\n",
                         merge_name, dir);
  sbatch_common(merge, e, TRUE);
  g_autofree char *json = g_canonicalize_filename(e->json, NULL);
  g_autofree char *json_word = lb_emit_shell_word(json);
  g_string_append_printf(merge, "exec %s merge -o %s", lbsim, json_word);
  g_autofree char *tables = lb_emit_tables(e, TRUE);
  g_string_append(merge, tables);
  g_string_append_printf(merge, "%s %s\n", e->force ? " --force" : "", state_word);

  g_autoptr(GString) submit = g_string_new("#!/bin/bash\n");
  g_string_append_printf(submit, "%s: submits the array, then the merge after it\nset -eu\n",
                         marker);
  if (runs->len > 0)
    g_string_append_printf(
        submit,
        "array=$(sbatch --parsable %s/array.sbatch)\n"
        "array=${array%%%%;*}\n"
        "merge=$(sbatch --parsable --dependency=afterany:\"$array\" "
        "%s/merge.sbatch)\n"
        "echo \"lbsim: job array $array (%u runs), then merge job ${merge%%%%;*}\"\n",
        dir_word, dir_word, runs->len);
  else
    g_string_append_printf(submit,
                           "merge=$(sbatch --parsable %s/merge.sbatch)\n"
                           "echo \"lbsim: no run missing, merge job ${merge%%%%;*}\"\n",
                           dir_word);

  gboolean make = FALSE;
  if (!lb_output_check_folder("--emit-jobs", e->target, &make, error) ||
      (make && !lb_output_make_folder("--emit-jobs", e->target, error)))
    return FALSE;
  return write_script(e->target, "array.sbatch", array->str, error) &&
         write_script(e->target, "merge.sbatch", merge->str, error) &&
         write_script(e->target, "submit.sh", submit->str, error);
}

static void
say(const LbEmit *e, const LbEmitJobs *jobs)
{
  g_printerr("lbsim: %u runs in %s/array.sbatch (%u of %u done already); %s/submit.sh submits "
             "it, then the merge job that writes %s\n",
             jobs->runs->len, e->target, jobs->done, jobs->distinct, e->target, e->json);
}

const LbEmitter lb_emit_slurm = {"slurm", check_options, write_files, say};
