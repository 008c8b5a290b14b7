/* lbsim run-job: the child side of run and sweep, for a job written down
 * elsewhere (a cluster's). */
#include <string.h>

#include "cli/commands.h"
#include "runner/job.h"
#include "runner/signals.h"
#include "io/input.h"
#include "io/output.h"

int
lb_cmd_run_job(const LbCommand *self, int argc, char **argv)
{
  lb_signals_alone();
  argc = lb_command_drop_quiet(argc, argv);
  if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    g_autofree char *usage = lb_command_usage_line(self);
    g_print("%s\n\n"
            "Runs one job, one balancer of a scenario, and writes its typed result (for\n"
            "lbsim merge). A job file holds one [job] group, for example:\n\n"
            "  [job]\n"
            "  scenario = s.ini\n"
            "  balancer = mlb\n"
            "  ranks = 16\n"
            "  set1 = workload.size=128\n"
            "  set2 = workload.high=20\n\n"
            "scenario (a path from the current folder) and balancer are required; ranks,\n"
            "platform and set1, set2, ... are optional. Each setN holds one GROUP.KEY=VALUE,\n"
            "as --set of lbsim run, numbered from 1 without gaps; plugin1, plugin2, ... name\n"
            "plugins to load first (a sweep writes the ones it had loaded). Any other group\n"
            "or key, a repeated one or a bad value is an error naming the line.\n"
            "-q, --quiet: taken as by every command (run-job prints nothing on stderr but\n"
            "errors).\n"
            "Exit status: 0 done, 1 the result could not be written, 2 bad input, 3 a run\n"
            "broke an invariant.\n",
            usage);
    return 0;
  }
  if (argc != 3) {
    g_printerr("lbsim: run-job needs a job file and a result file (see lbsim run-job --help)\n");
    return LB_EXIT_INPUT;
  }
  g_autoptr(GError) error = NULL;
  g_autoptr(LbJob) job = lb_job_from_file(argv[1], &error);
  if (job == NULL) {
    lb_command_error(error);
    return LB_EXIT_INPUT;
  }
  g_autoptr(LbScenario) sc = lb_job_load(job, &error);
  if (sc == NULL) {
    lb_command_error(error);
    return LB_EXIT_INPUT;
  }
  g_autoptr(LbFileSet) files = lb_file_set_new();
  lb_file_set_input(files, "the job", argv[1]);
  lb_file_set_input(files, "the scenario", sc->file);
  lb_file_set_input(files, "the platform", sc->platform);
  const GArray *read = lb_input_files();
  for (guint i = 0; i < read->len; i++) {
    const LbInputFile *f = &g_array_index(read, LbInputFile, i);
    lb_file_set_input(files, lb_input_kind_name(f->kind), f->path);
  }
  if (!lb_output_check("the result", argv[2], &error) ||
      !lb_file_set_output(files, "the result", argv[2], &error)) {
    lb_command_error(error);
    return LB_EXIT_INPUT;
  }
  LbRunOptions options = {0};
  return lb_job_execute(job, sc, 0, &options, argv[2], NULL);
}
