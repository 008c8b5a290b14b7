#include "runner/runner.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/output.h"
#include "runner/child.h"
#include "runner/job.h"
#include "runner/preflight.h"
#include "runner/signals.h"
#include "core/platform-check.h"
#include "runner/transport.h"

char *
lb_runner_trace_name(const char *base, const char *balancer, guint runs)
{
  if (base == NULL || runs == 1)
    return g_strdup(base);
  g_autofree char *part = lb_output_file_part(balancer);
  return g_strdup_printf("%s.%s", base, part);
}

char *
lb_runner_paje_name(const char *base, const char *balancer, guint runs)
{
  if (base == NULL || runs == 1)
    return g_strdup(base);
  gsize n = strlen(base);
  g_autofree char *part = lb_output_file_part(balancer);
  if (n > strlen(".paje") && g_str_has_suffix(base, ".paje"))
    return g_strdup_printf("%.*s.%s.paje", (int)(n - strlen(".paje")), base, part);
  return g_strdup_printf("%s.%s.paje", base, part);
}

gboolean
lb_runner_parse_count(const char *option, const char *text, guint *value, GError **error)
{
  guint64 v = 0;
  if (!g_ascii_string_to_unsigned(text, 10, 1, G_MAXINT, &v, NULL)) {
    g_set_error(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT,
                "%s '%s': expected a whole number from 1 to %d", option, text, G_MAXINT);
    return FALSE;
  }
  *value = (guint)v;
  return TRUE;
}

static void
remove_dir(const char *dir)
{
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  const char *name;
  while (d != NULL && (name = g_dir_read_name(d)) != NULL) {
    g_autofree char *path = g_build_filename(dir, name, NULL);
    g_unlink(path);
  }
  g_rmdir(dir);
}

/* The end of the forked runs: their folder removed, then signals end the
 * process again. Returns the signal that came meanwhile, or 0. */
static int
finish(const char *dir)
{
  remove_dir(dir);
  return lb_signals_unwatch();
}

/* A run's job, through its written form (kept in dir), as a cluster's
 * would go. */
static LbJob *
job_of(const LbScenario *sc, const LbScenarioOverrides *ov, guint index, const char *dir)
{
  const LbBalancerRun *brun = sc->runs->pdata[index];
  g_autoptr(LbJob) job = lb_job_new(sc->file, ov, brun->label);
  g_autofree char *data = lb_job_to_data(job);
  g_autofree char *path = g_strdup_printf("%s/run-%u.job", dir, index);
  g_file_set_contents(path, data, -1, NULL);
  LbJob *back = lb_job_from_data(data, NULL);
  g_assert(back != NULL);
  return back;
}

void
lb_runner_relate(LbRunResult *const *results, guint n)
{
  for (guint i = 0; i < n; i++) {
    const LbBalancer *b = lb_balancer_of_label(results[i]->balancer);
    if (b->relate != NULL)
      b->relate(results[i], results, n);
  }
}

gboolean
lb_runner_run(const LbScenario *sc, const LbScenarioOverrides *ov, const LbRunnerOptions *options,
              GPtrArray **results, int *exit_code, GError **error)
{
  guint n = sc->runs->len;
  guint jobs = MAX(options->jobs, 1);
  /* the children's progress lines end without a newline on a terminal */
  const char *clear = options->run.progress ? "\r\033[K" : "";
  *exit_code = 2;
  if (!lb_platform_check_cfg(options->run.cfg, error) || !lb_platform_check_xml(sc, error))
    return FALSE;
  if (options->in_process) {
    g_return_val_if_fail(n == 1, FALSE);
    /* SimGrid aborts the process on a platform it rejects: checked in a
     * child first */
    if (!lb_preflight(sc, &options->run, exit_code, error))
      return FALSE;
    lb_signals_alone();
    LbRunResult *result = lb_run_simulate(sc, 0, &options->run, error);
    if (result == NULL) {
      *exit_code = g_error_matches(*error, LB_RUN_ERROR, LB_RUN_ERROR_INVARIANT) ? 3
                   : g_error_matches(*error, LB_RUN_ERROR, LB_RUN_ERROR_AT_END)  ? 1
                                                                                 : 2;
      return FALSE;
    }
    *results = g_ptr_array_new_with_free_func((GDestroyNotify)lb_run_result_free);
    g_ptr_array_add(*results, result);
    lb_runner_relate((LbRunResult *const *)(*results)->pdata, (*results)->len);
    *exit_code = 0;
    return TRUE;
  }
  g_autofree pid_t *pids = g_new0(pid_t, n);
  /* before the folder is made: a signal from here on is only kept */
  lb_signals_watch(pids, n);
  g_autofree char *dir = g_dir_make_tmp("lbsim-XXXXXX", error);
  if (dir != NULL)
    lb_signals_janitor(dir);
  if (dir == NULL) {
    lb_signals_unwatch();
    *exit_code = 1;
    return FALSE;
  }
  g_autofree gint64 *started = g_new0(gint64, n);
  guint next = 0, running = 0, done = 0;
  /* The first run checks the platform and its hosts before its ranks
   * start (the runs share them): until it has, nothing else starts and no
   * progress line is printed, so that a platform error is the only line. */
  gboolean checked = FALSE;
  int failure = 0;
  g_autofree char *failure_text = NULL;

  fflush(NULL);
  while (done < n) {
    while (failure == 0 && lb_signals_caught() == 0 && running < jobs && next < n &&
           (next == 0 || checked)) {
      g_autoptr(LbJob) job = job_of(sc, ov, next, dir);
      LbRunOptions run_options = options->run;
      g_autofree char *trace = lb_runner_trace_name(options->run.message_trace, job->balancer, n);
      g_autofree char *paje = lb_runner_paje_name(options->run.paje_trace, job->balancer, n);
      g_autofree char *tag = g_strdup_printf("run-%u", next);
      g_autofree char *out = g_strdup_printf("%s/run-%u.json", dir, next);
      run_options.message_trace = trace;
      run_options.paje_trace = paje;
      int ready = -1;
      if (!lb_child_spawn(job, sc, next, &run_options, dir, tag, out, &pids[next],
                          next == 0 ? &ready : NULL)) {
        failure = 1;
        failure_text = g_strdup_printf("fork: %s", g_strerror(errno));
        break;
      }
      started[next] = g_get_monotonic_time();
      if (next == 0 && !(checked = lb_child_wait_ready(ready))) {
        /* it ended before: reaped below, its error reported */
        next++;
        running++;
        break;
      }
      if (!options->quiet)
        g_printerr("%slbsim: [%u/%u] %s: running\n", clear, next + 1, n,
                   ((LbBalancerRun *)sc->runs->pdata[next])->label);
      next++;
      running++;
    }
    if (running == 0)
      break;
    int status = 0;
    gint reaped = lb_child_reap(pids, n, &status);
    if (reaped < 0)
      break;
    guint index = (guint)reaped;
    running--;
    done++;
    if (lb_signals_caught() != 0)
      continue; /* stopped, not failed */
    const char *name = ((LbBalancerRun *)sc->runs->pdata[index])->label;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      if (!options->quiet)
        g_printerr("%slbsim: [%u/%u] %s: done in %.1f s\n", clear, index + 1, n, name,
                   (double)(g_get_monotonic_time() - started[index]) / 1e6);
      continue;
    }
    if (failure == 0) {
      g_autofree char *tag = g_strdup_printf("run-%u", index);
      failure_text =
          lb_child_failure(sc->file, sc->platform, &options->run, dir, tag, name, status, &failure);
      for (guint i = 0; i < n; i++)
        if (pids[i] > 0)
          kill(pids[i], SIGTERM);
    }
  }
  if (failure != 0 || lb_signals_caught() != 0) {
    int sig = finish(dir);
    if (sig != 0) {
      *exit_code = lb_signals_error(sig, error);
      return FALSE;
    }
    *exit_code = failure;
    g_set_error(error, LB_RUN_ERROR, failure == 3 ? LB_RUN_ERROR_INVARIANT : LB_RUN_ERROR_INPUT,
                "%s", failure_text);
    return FALSE;
  }
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func((GDestroyNotify)lb_run_result_free);
  for (guint i = 0; i < n; i++) {
    g_autofree char *path = g_strdup_printf("%s/run-%u.json", dir, i);
    g_autofree char *text = NULL;
    LbRunResult *result = NULL;
    if (g_file_get_contents(path, &text, NULL, error))
      result = lb_result_from_transport(text, error);
    if (result == NULL) {
      finish(dir);
      *exit_code = 1;
      return FALSE;
    }
    g_ptr_array_add(out, result);
  }
  int sig = finish(dir);
  if (sig != 0) {
    *exit_code = lb_signals_error(sig, error);
    return FALSE;
  }
  lb_runner_relate((LbRunResult *const *)out->pdata, out->len);
  *results = g_steal_pointer(&out);
  *exit_code = 0;
  return TRUE;
}
