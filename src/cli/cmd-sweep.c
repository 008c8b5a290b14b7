/* lbsim sweep: the options, then the sweep (src/sweep/) run here, forked up
 * to -j at a time, or its jobs written down for a cluster. */
#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "io/output.h"
#include "runner/runner.h"
#include "runner/signals.h"
#include "sweep/emit.h"
#include "sweep/sweep.h"

static void
print_error(const GError *error)
{
  g_printerr("lbsim: %s\n", error->message);
}

typedef struct {
  char **vary;
  char *platform;
  char **sets;
  char *json;
  char *csv;
  char *state;
  char *jobs;
  char *emit;
  char *long_csv;
  char *stats_csv;
  char *repeat;
  char *replicates;
  char *scheduler;
  char *lbsim;
  char *slurm_time, *slurm_mem, *slurm_partition, *slurm_max_array, *slurm_array_limit;
  char *slurm_merge_time, *slurm_merge_mem, *slurm_merge_partition;
  char **sbatch;
  gboolean force;
  gboolean quiet;
} SweepArgs;

static void
sweep_args_clear(SweepArgs *a)
{
  g_strfreev(a->vary);
  g_free(a->platform);
  g_strfreev(a->sets);
  g_free(a->json);
  g_free(a->csv);
  g_free(a->state);
  g_free(a->jobs);
  g_free(a->emit);
  g_free(a->long_csv);
  g_free(a->stats_csv);
  g_free(a->repeat);
  g_free(a->replicates);
  g_free(a->scheduler);
  g_free(a->lbsim);
  g_free(a->slurm_time);
  g_free(a->slurm_mem);
  g_free(a->slurm_partition);
  g_free(a->slurm_max_array);
  g_free(a->slurm_array_limit);
  g_free(a->slurm_merge_time);
  g_free(a->slurm_merge_mem);
  g_free(a->slurm_merge_partition);
  g_strfreev(a->sbatch);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(SweepArgs, sweep_args_clear)

int
lb_cmd_sweep(const LbCommand *self, int argc, char **argv)
{
  g_auto(SweepArgs) a = {0};
  GOptionEntry entries[] = {
      {"vary", 'V', 0, G_OPTION_ARG_STRING_ARRAY, &a.vary,
       "Vary a key over a list (a,b,c) or a range (START:END:STEP, end included); NAME: ranks, "
       "platform, seed, steps, balancer or GROUP.KEY (repeatable: the cross product)",
       "NAME=LIST"},
      {"platform", 0, 0, G_OPTION_ARG_FILENAME, &a.platform,
       "Override [scenario] platform; {NAME} is the point's value of a varied NAME, e.g. "
       "hypercube-{ranks}.xml",
       "PATTERN"},
      {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &a.sets,
       "Override a key at every point (repeatable)", "GROUP.KEY=VALUE"},
      {"json", 'o', 0, G_OPTION_ARG_FILENAME, &a.json,
       "The results as JSON (default: NAME-sweep.json, NAME the scenario's)", "FILE"},
      {"csv", 0, 0, G_OPTION_ARG_FILENAME, &a.csv, "The results as CSV, one row per run", "FILE"},
      {"long-csv", 0, 0, G_OPTION_ARG_FILENAME, &a.long_csv,
       "The results as CSV, one row per run and metric (the files of several sweeps "
       "concatenate)",
       "FILE"},
      {"repeat", 0, 0, G_OPTION_ARG_STRING, &a.repeat,
       "Run each point N times, with the seeds S, S+1, ..., S+N-1 (S the scenario's): the "
       "documents give each measure's mean, spread and 95% interval",
       "N"},
      {"replicates", 0, 0, G_OPTION_ARG_STRING, &a.replicates,
       "The varied NAME whose values are replicates of one point, as with --repeat (a varied "
       "seed's are without it)",
       "NAME"},
      {"stats-csv", 0, 0, G_OPTION_ARG_FILENAME, &a.stats_csv,
       "With replicates (--repeat, a varied seed, --replicates): the mean, sd, min, max and 95% "
       "interval of every measure as CSV, one row per point, balancer and metric",
       "FILE"},
      {"state", 0, 0, G_OPTION_ARG_FILENAME, &a.state,
       "Keep each run's job and result here (default: the JSON file's name, .json replaced by "
       ".d)",
       "DIR"},
      {"jobs", 'j', 0, G_OPTION_ARG_STRING, &a.jobs,
       "Simulations at once (default: the number of processors)", "N"},
      {"emit-jobs", 0, 0, G_OPTION_ARG_FILENAME, &a.emit,
       "Run nothing: write the missing runs for a --scheduler (a FILE of commands, or a DIR of "
       "Slurm scripts), then gather the results with lbsim merge",
       "FILE|DIR"},
      {"scheduler", 0, 0, G_OPTION_ARG_STRING, &a.scheduler,
       "With --emit-jobs: plain (one command a line, the default), parallel (each line ends "
       "with its point, for GNU parallel's joblog) or slurm (DIR: a job array, a merge job and "
       "submit.sh)",
       "NAME"},
      {"lbsim", 0, 0, G_OPTION_ARG_FILENAME, &a.lbsim,
       "With --emit-jobs: the lbsim the jobs run (default: this program's absolute path)", "PATH"},
      {"slurm-time", 0, 0, G_OPTION_ARG_STRING, &a.slurm_time,
       "With --scheduler slurm: each task's time limit (default 01:00:00)", "TIME"},
      {"slurm-mem", 0, 0, G_OPTION_ARG_STRING, &a.slurm_mem,
       "With --scheduler slurm: each task's memory (default 2G)", "SIZE"},
      {"slurm-partition", 0, 0, G_OPTION_ARG_STRING, &a.slurm_partition,
       "With --scheduler slurm: the partition (default: the cluster's)", "NAME"},
      {"slurm-max-array", 0, 0, G_OPTION_ARG_STRING, &a.slurm_max_array,
       "With --scheduler slurm: array tasks at most, below the cluster's MaxArraySize; a task "
       "then runs several runs (default 1000)",
       "N"},
      {"slurm-array-limit", 0, 0, G_OPTION_ARG_STRING, &a.slurm_array_limit,
       "With --scheduler slurm: array tasks running at once (#SBATCH --array=1-K%N; default: "
       "no limit)",
       "N"},
      {"slurm-merge-time", 0, 0, G_OPTION_ARG_STRING, &a.slurm_merge_time,
       "With --scheduler slurm: the merge job's time limit (default: --slurm-time's)", "TIME"},
      {"slurm-merge-mem", 0, 0, G_OPTION_ARG_STRING, &a.slurm_merge_mem,
       "With --scheduler slurm: the merge job's memory (default: --slurm-mem's)", "SIZE"},
      {"slurm-merge-partition", 0, 0, G_OPTION_ARG_STRING, &a.slurm_merge_partition,
       "With --scheduler slurm: the merge job's partition (default: --slurm-partition's)", "NAME"},
      {"sbatch", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a.sbatch,
       "With --scheduler slurm: one more #SBATCH option for both jobs, e.g. "
       "--sbatch=--account=NAME (repeatable)",
       "OPTION"},
      {"force", 0, 0, G_OPTION_ARG_NONE, &a.force,
       "Replace outputs and a state folder made by another sweep", NULL},
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &a.quiet, "No progress or summary on stderr", NULL},
      {NULL},
  };
  g_auto(GStrv) args = lb_command_parse(
      self, entries,
      "Runs the scenario's balancers at every point of the cross product of the --vary lists,\n"
      "up to -j at a time, each run in its own process. The JSON and CSV files are rewritten\n"
      "as runs finish; each run's result is kept in the state folder, so the same command\n"
      "after an interruption runs only what is missing. See docs/reference/sweeps.md.\n"
      "Exit status: 0 done, 1 a run failed otherwise, 2 bad input, 3 a run broke an invariant.",
      argc, argv);
  if (args == NULL)
    return LB_EXIT_INPUT;
  g_autoptr(GError) error = NULL;
  if (g_strv_length(args) != 2) {
    g_printerr("lbsim: sweep needs exactly one scenario file (see lbsim sweep --help)\n");
    return LB_EXIT_INPUT;
  }
  guint jobs = 0;
  if (a.jobs != NULL && !lb_runner_parse_count("--jobs", a.jobs, &jobs, &error)) {
    print_error(error);
    return LB_EXIT_INPUT;
  }
  if (a.json != NULL && strcmp(a.json, "-") == 0) {
    g_printerr("lbsim: -o -: a sweep rewrites its JSON as runs finish: give a file\n");
    return LB_EXIT_INPUT;
  }
  LbEmit emit = {&lb_emit_plain};
  const char *const emitting[][2] = {{"--scheduler", a.scheduler},
                                     {"--lbsim", a.lbsim},
                                     {"--slurm-time", a.slurm_time},
                                     {"--slurm-mem", a.slurm_mem},
                                     {"--slurm-partition", a.slurm_partition},
                                     {"--slurm-max-array", a.slurm_max_array},
                                     {"--slurm-array-limit", a.slurm_array_limit},
                                     {"--slurm-merge-time", a.slurm_merge_time},
                                     {"--slurm-merge-mem", a.slurm_merge_mem},
                                     {"--slurm-merge-partition", a.slurm_merge_partition},
                                     {"--sbatch", a.sbatch != NULL ? a.sbatch[0] : NULL}};
  for (guint i = 0; a.emit == NULL && i < G_N_ELEMENTS(emitting); i++)
    if (emitting[i][1] != NULL) {
      g_printerr("lbsim: %s is for --emit-jobs\n", emitting[i][0]);
      return LB_EXIT_INPUT;
    }
  if ((a.scheduler != NULL && !lb_emit_parse_scheduler(a.scheduler, &emit.scheduler, &error)) ||
      (a.slurm_max_array != NULL && !lb_runner_parse_count("--slurm-max-array", a.slurm_max_array,
                                                           &emit.slurm_max_array, &error)) ||
      (a.slurm_array_limit != NULL &&
       !lb_runner_parse_count("--slurm-array-limit", a.slurm_array_limit, &emit.slurm_array_limit,
                              &error))) {
    print_error(error);
    return LB_EXIT_INPUT;
  }
  guint repeat = 0;
  if (a.repeat != NULL && !lb_runner_parse_count("--repeat", a.repeat, &repeat, &error)) {
    print_error(error);
    return LB_EXIT_INPUT;
  }
  /* a stop from here on prints one line and leaves no temporary file */
  lb_signals_alone();
  g_autoptr(LbSweep) sw =
      lb_sweep_new_replicated(args[1], (const char *const *)a.vary, a.platform,
                              (const char *const *)a.sets, repeat, a.replicates, &error);
  if (sw == NULL) {
    print_error(error);
    return LB_EXIT_INPUT;
  }
  g_autofree char *json = a.json != NULL ? g_strdup(a.json) : lb_sweep_default_json(sw);
  /* -o /dev/stdout or a FIFO: the state folder is named after the scenario */
  g_autofree char *named =
      g_file_test(json, G_FILE_TEST_EXISTS) && !g_file_test(json, G_FILE_TEST_IS_REGULAR)
          ? lb_sweep_default_json(sw)
          : g_strdup(json);
  g_autofree char *state = a.state != NULL ? g_strdup(a.state) : lb_sweep_default_state(named);
  const LbSweepFiles files = {json, a.csv, a.long_csv, a.stats_csv};
  const char *const tables[][2] = {
      {"--csv", a.csv}, {"--long-csv", a.long_csv}, {"--stats-csv", a.stats_csv}};
  for (guint t = 0; t < G_N_ELEMENTS(tables); t++)
    if (tables[t][1] != NULL && strcmp(tables[t][1], "-") == 0) {
      g_printerr("lbsim: %s -: a sweep rewrites its CSV as runs finish: give a file\n",
                 tables[t][0]);
      return LB_EXIT_INPUT;
    }
  if (a.stats_csv != NULL && sw->replicates < 0) {
    g_printerr("lbsim: --stats-csv: no replicates (give --repeat N, --vary seed=LIST or "
               "--replicates NAME)\n");
    return LB_EXIT_INPUT;
  }
  emit.target = a.emit;
  emit.lbsim = a.lbsim;
  emit.json = json;
  emit.csv = a.csv;
  emit.long_csv = a.long_csv;
  emit.stats_csv = a.stats_csv;
  emit.state = state;
  emit.slurm_time = a.slurm_time;
  emit.slurm_mem = a.slurm_mem;
  emit.slurm_partition = a.slurm_partition;
  emit.slurm_merge_time = a.slurm_merge_time;
  emit.slurm_merge_mem = a.slurm_merge_mem;
  emit.slurm_merge_partition = a.slurm_merge_partition;
  emit.sbatch = (const char *const *)a.sbatch;
  emit.force = a.force;
  emit.quiet = a.quiet;
  if (!lb_sweep_check_files(sw, json, a.csv, a.emit != NULL ? &emit : NULL, state, &files,
                            &error) ||
      !lb_sweep_check_state(state, sw, a.force, &error) ||
      (!a.force &&
       (!lb_sweep_check_json(json, sw, &error) || !lb_sweep_check_tables(&files, sw, &error)))) {
    print_error(error);
    return LB_EXIT_INPUT;
  }
  if (!a.quiet)
    lb_sweep_say_hosts(sw);
  if (a.emit != NULL) {
    if (!lb_sweep_state_make(state, sw))
      return 1;
    guint n = sw->runs->len;
    LbRunResult **results = g_new0(LbRunResult *, n);
    lb_sweep_read_kept(state, sw, results, a.quiet);
    int code = lb_emit_jobs(&emit, sw, results);
    lb_sweep_results_free(results, n);
    return code;
  }
  LbRunResult **results = NULL;
  int code = lb_sweep_execute_files(sw, state, &files, jobs, a.quiet, &results);
  lb_sweep_results_free(results, sw->runs->len);
  return code;
}
