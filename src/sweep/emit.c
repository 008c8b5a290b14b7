/* lbsim sweep --emit-jobs: the job files of a sweep's missing runs, then
 * the files of the scheduler that runs them elsewhere. */
#include "sweep/emit.h"

#include <string.h>

#include "io/input.h"

/* the schedulers, one row each */
static const LbEmitter *const schedulers[] = {&lb_emit_plain, &lb_emit_parallel, &lb_emit_slurm};

gboolean
lb_emit_parse_scheduler(const char *text, const LbEmitter **scheduler, GError **error)
{
  g_autoptr(GString) names = g_string_new(NULL);
  for (guint i = 0; i < G_N_ELEMENTS(schedulers); i++) {
    if (strcmp(text, schedulers[i]->name) == 0) {
      *scheduler = schedulers[i];
      return TRUE;
    }
    g_string_append_printf(names, "%s%s",
                           i == 0                              ? ""
                           : i + 1 == G_N_ELEMENTS(schedulers) ? " or "
                                                               : ", ",
                           schedulers[i]->name);
  }
  return lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT, "--scheduler '%s': expected %s", text,
                       names->str);
}

char *
lb_emit_shell_word(const char *text)
{
  const char *safe = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=+-,@%";
  if (*text != '\0' && strspn(text, safe) == strlen(text))
    return g_strdup(text);
  return g_shell_quote(text);
}

char *
lb_emit_comment(const LbSweep *sw, const LbSweepRun *run)
{
  char *text = lb_sweep_describe(sw, run);
  for (char *c = text; *c != '\0'; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f)
      *c = ' ';
  return text;
}

gboolean
lb_emit_has_control(const char *text)
{
  for (const char *c = text; *c != '\0'; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f)
      return TRUE;
  return FALSE;
}

char *
lb_emit_tables(const LbEmit *e, gboolean absolute)
{
  g_autoptr(GString) text = g_string_new(NULL);
  const char *const tables[][2] = {
      {"--csv", e->csv}, {"--long-csv", e->long_csv}, {"--stats-csv", e->stats_csv}};
  for (guint t = 0; t < G_N_ELEMENTS(tables); t++) {
    if (tables[t][1] == NULL)
      continue;
    if (!absolute) {
      g_string_append_printf(text, " %s %s", tables[t][0], tables[t][1]);
      continue;
    }
    g_autofree char *path = g_canonicalize_filename(tables[t][1], NULL);
    g_autofree char *word = lb_emit_shell_word(path);
    g_string_append_printf(text, " %s %s", tables[t][0], word);
  }
  return g_string_free(g_steal_pointer(&text), FALSE);
}

gboolean
lb_emit_check(const LbEmit *e, const LbSweep *sw, LbFileSet *set, GError **error)
{
  const LbEmitter *scheduler = e->scheduler != NULL ? e->scheduler : &lb_emit_plain;
  /* a scheduler's options, refused with another */
  const struct {
    const char *option;
    gboolean given;
    const LbEmitter *of;
  } owned[] = {
      {"--slurm-time", e->slurm_time != NULL, &lb_emit_slurm},
      {"--slurm-merge-time", e->slurm_merge_time != NULL, &lb_emit_slurm},
      {"--slurm-mem", e->slurm_mem != NULL, &lb_emit_slurm},
      {"--slurm-merge-mem", e->slurm_merge_mem != NULL, &lb_emit_slurm},
      {"--slurm-partition", e->slurm_partition != NULL, &lb_emit_slurm},
      {"--slurm-merge-partition", e->slurm_merge_partition != NULL, &lb_emit_slurm},
      {"--sbatch", e->sbatch != NULL && e->sbatch[0] != NULL, &lb_emit_slurm},
      {"--slurm-max-array", e->slurm_max_array > 0, &lb_emit_slurm},
      {"--slurm-array-limit", e->slurm_array_limit > 0, &lb_emit_slurm},
  };
  for (guint i = 0; i < G_N_ELEMENTS(owned); i++)
    if (owned[i].given && owned[i].of != scheduler)
      return lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT, "%s is for --scheduler %s", owned[i].option,
                           owned[i].of->name);
  if (e->lbsim != NULL && (*e->lbsim == '\0' || lb_emit_has_control(e->lbsim)))
    return lb_sweep_fail(error, LB_SWEEP_ERROR_INPUT, "--lbsim '%s': expected a program", e->lbsim);
  return scheduler->check(e, sw, set, error);
}

int
lb_emit_jobs(const LbEmit *e, const LbSweep *sw, LbRunResult *const *results)
{
  const LbEmitter *scheduler = e->scheduler != NULL ? e->scheduler : &lb_emit_plain;
  g_autoptr(GError) error = NULL;
  g_autofree char *exe = e->lbsim != NULL ? NULL : g_file_read_link("/proc/self/exe", &error);
  if (e->lbsim == NULL && exe == NULL) {
    g_printerr("lbsim: %s\n", error->message);
    return 1;
  }
  /* a bare name is found on the nodes' PATH; a path is made absolute */
  g_autofree char *program = e->lbsim == NULL ? g_strdup(exe)
                             : strchr(e->lbsim, '/') != NULL
                                 ? g_canonicalize_filename(e->lbsim, NULL)
                                 : g_strdup(e->lbsim);
  g_autofree char *lbsim = lb_emit_shell_word(program);
  g_autofree char *state = g_canonicalize_filename(e->state, NULL);
  g_autoptr(GPtrArray) missing = g_ptr_array_new();
  guint distinct = 0;
  for (guint i = 0; i < sw->runs->len; i++) {
    const LbSweepRun *run = sw->runs->pdata[i];
    /* a run other points share is one job */
    distinct += run->first == i;
    if (results[i] != NULL || run->first != i)
      continue;
    g_autofree char *job = lb_sweep_run_file(state, run, ".job");
    g_autofree char *data = lb_job_to_data(run->job);
    if (!lb_output_write(job, data, -1, &error)) {
      g_printerr("lbsim: %s\n", error->message);
      return 1;
    }
    g_ptr_array_add(missing, (gpointer)run);
  }
  const LbEmitJobs jobs = {missing, lbsim, state, distinct - missing->len, distinct};
  if (!scheduler->write(e, sw, &jobs, &error)) {
    g_printerr("lbsim: %s\n", error->message);
    return 1;
  }
  if (!e->quiet)
    scheduler->say(e, &jobs);
  return 0;
}
