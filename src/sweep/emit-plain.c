/* --scheduler plain: a FILE of commands, one `lbsim run-job JOB RESULT`
 * per missing run, for any scheduler or a shell loop. */
#include "sweep/emit.h"

static gboolean
check_options(const LbEmit *e, const LbSweep *sw, LbFileSet *set, GError **error)
{
  return lb_output_check("--emit-jobs", e->target, error) &&
         lb_file_set_output(set, "--emit-jobs", e->target, error);
}

gboolean
lb_emit_lines(const LbEmit *e, const LbSweep *sw, const LbEmitJobs *jobs, gboolean comments,
              GError **error)
{
  g_autoptr(GString) lines = g_string_new(NULL);
  for (guint i = 0; i < jobs->runs->len; i++) {
    const LbSweepRun *run = jobs->runs->pdata[i];
    g_autofree char *job = lb_sweep_run_file(jobs->state, run, ".job");
    g_autofree char *result = lb_sweep_run_file(jobs->state, run, ".result");
    g_autofree char *job_word = lb_emit_shell_word(job);
    g_autofree char *result_word = lb_emit_shell_word(result);
    g_string_append_printf(lines, "%s run-job %s %s", jobs->lbsim, job_word, result_word);
    if (comments) {
      g_autofree char *label = lb_emit_comment(sw, run);
      g_string_append_printf(lines, "  # %s", label);
    }
    g_string_append_c(lines, '\n');
  }
  return lb_output_text(e->target, lines->str, error);
}

void
lb_emit_say_lines(const LbEmit *e, const LbEmitJobs *jobs, const char *how)
{
  g_autofree char *tables = lb_emit_tables(e, FALSE);
  g_printerr("lbsim: %u jobs in %s (%u of %u runs done already); run them%s, then: lbsim "
             "merge -o %s%s %s\n",
             jobs->runs->len, e->target, jobs->done, jobs->distinct, how, e->json, tables,
             e->state);
}

static gboolean
write_files(const LbEmit *e, const LbSweep *sw, const LbEmitJobs *jobs, GError **error)
{
  return lb_emit_lines(e, sw, jobs, FALSE, error);
}

static void
say(const LbEmit *e, const LbEmitJobs *jobs)
{
  lb_emit_say_lines(e, jobs, "");
}

const LbEmitter lb_emit_plain = {"plain", check_options, write_files, say};
