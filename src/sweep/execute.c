/* A sweep run here: its missing runs forked up to -j at a time, the
 * documents rewritten as they finish. */
#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/output.h"
#include "runner/child.h"
#include "runner/signals.h"
#include "sweep/sweep.h"

/* the documents are rewritten after a run unless writing them took more
 * than 1/WRITE_SHARE of the time since they were last written */
#define WRITE_SHARE 20

static void
print_error(const GError *error)
{
  g_printerr("lbsim: %s\n", error->message);
}

/* ---- the documents, rewritten as runs finish ---- */

typedef struct {
  const LbSweep *sweep;
  LbRunResult *const *results;
  LbSweepFiles files;
  gint64 written, cost; /* when they were last written, and how long that took */
} Outputs;

static gboolean
write_outputs(Outputs *o, gboolean now, GError **error)
{
  gint64 start = g_get_monotonic_time();
  if (!now && start - o->written < WRITE_SHARE * o->cost)
    return TRUE;
  g_autofree char *doc = lb_sweep_document(o->sweep, o->results);
  if (!lb_output_text(o->files.json, doc, error))
    return FALSE;
  char *(*const tables[])(const LbSweep *, LbRunResult *const *) = {lb_sweep_csv, lb_sweep_long_csv,
                                                                    lb_sweep_stats_csv};
  const char *const paths[] = {o->files.csv, o->files.long_csv, o->files.stats_csv};
  for (guint t = 0; t < G_N_ELEMENTS(tables); t++) {
    if (paths[t] == NULL)
      continue;
    g_autofree char *text = tables[t](o->sweep, o->results);
    if (!lb_output_text(paths[t], text, error))
      return FALSE;
  }
  o->written = g_get_monotonic_time();
  o->cost = o->written - start;
  return TRUE;
}

/* ---- running ---- */

static char *
clock_text(gint64 us)
{
  gint64 s = us / G_USEC_PER_SEC;
  if (s >= 3600)
    return g_strdup_printf("%" G_GINT64_FORMAT ":%02d:%02d", s / 3600, (int)(s / 60 % 60),
                           (int)(s % 60));
  return g_strdup_printf("%d:%02d", (int)(s / 60), (int)(s % 60));
}

static void
show_progress(guint done, guint total, guint finished, guint todo, gint64 start)
{
  gint64 elapsed = g_get_monotonic_time() - start;
  g_autofree char *spent = clock_text(elapsed);
  g_autofree char *left =
      finished > 0 ? clock_text(elapsed * (todo - finished) / finished) : g_strdup("?");
  g_printerr("\r\033[Klbsim: %u/%u runs done, %s elapsed, about %s left", done, total, spent, left);
}

static void
remove_scratch(const char *dir, const LbSweepRun *run)
{
  static const char *const suffixes[] = {".err", ".stage", ".stage.log"};
  for (guint s = 0; s < G_N_ELEMENTS(suffixes); s++) {
    g_autofree char *path = lb_sweep_run_file(dir, run, suffixes[s]);
    g_unlink(path);
  }
}

typedef struct {
  const LbSweep *sweep;
  LbRunResult **results;
  const char *state;
  guint jobs;
  gboolean quiet;
} Sweeping;

/* The missing runs, up to jobs at a time. A failed run is named and the
 * others go on; a stop signal ends the running children and keeps what is
 * done: the documents are written, then the exit status says which
 * signal. */
static int
run_missing(const Sweeping *s, Outputs *out)
{
  const LbSweep *sw = s->sweep;
  guint n = sw->runs->len;
  /* one child per distinct run; the points that share it read its result */
  g_autoptr(GArray) todo = g_array_new(FALSE, FALSE, sizeof(guint));
  for (guint i = 0; i < n; i++)
    if (s->results[i] == NULL && ((const LbSweepRun *)sw->runs->pdata[i])->first == i)
      g_array_append_val(todo, i);
  n = lb_sweep_distinct(sw);
  gboolean show = !s->quiet && isatty(STDERR_FILENO);
  g_autoptr(GError) error = NULL;
  g_autofree pid_t *pids = g_new0(pid_t, MAX(todo->len, 1));
  lb_signals_watch(pids, todo->len);
  g_autofree char *tmp = g_dir_make_tmp("lbsim-sweep-XXXXXX", &error);
  if (tmp == NULL) {
    lb_signals_unwatch();
    print_error(error);
    return 1;
  }
  guint next = 0, running = 0, finished = 0, failed = 0, done = n - todo->len;
  int worst = 0;
  gboolean fatal = FALSE, stopping = FALSE;
  gint64 start = g_get_monotonic_time();
  const LbRunOptions options = {0};
  fflush(NULL);
  if (show)
    show_progress(done, n, 0, todo->len, start);
  for (;;) {
    stopping = lb_signals_caught() != 0;
    while (!stopping && !fatal && running < s->jobs && next < todo->len) {
      const LbSweepRun *run = sw->runs->pdata[g_array_index(todo, guint, next)];
      g_autofree char *job = lb_sweep_run_file(s->state, run, ".job");
      g_autofree char *result = lb_sweep_run_file(s->state, run, ".result");
      g_autofree char *data = lb_job_to_data(run->job);
      if (!g_file_set_contents(job, data, -1, &error)) {
        fatal = TRUE;
        break;
      }
      if (!lb_child_spawn(run->job, NULL, 0, &options, tmp, run->id, result, &pids[next], NULL)) {
        g_set_error(&error, G_FILE_ERROR, g_file_error_from_errno(errno), "fork: %s",
                    g_strerror(errno));
        fatal = TRUE;
        break;
      }
      next++;
      running++;
    }
    if (running == 0)
      break;
    int status = 0;
    gint reaped = lb_child_reap(pids, next, &status);
    if (reaped < 0)
      break;
    guint k = (guint)reaped;
    running--;
    guint i = g_array_index(todo, guint, k);
    const LbSweepRun *run = sw->runs->pdata[i];
    g_autofree char *what = lb_sweep_describe(sw, run);
    g_autoptr(GError) local = NULL;
    g_autofree char *text = NULL;
    int code = 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      g_autofree char *result = lb_sweep_run_file(s->state, run, ".result");
      /* the run, then the points that share it */
      guint j = i;
      do {
        s->results[j] = lb_sweep_read_result(result, sw->runs->pdata[j], &local);
        if (s->results[j] == NULL) {
          code = 1;
          text = g_strdup(local->message);
        }
        j = ((const LbSweepRun *)sw->runs->pdata[j])->next;
      } while (j != 0 && code == 0);
    } else if (lb_signals_caught() != 0) {
      remove_scratch(tmp, run);
      continue; /* stopped, not failed */
    } else {
      text = lb_child_failure(sw->scenario, run->platform, &options, tmp, run->id, run->balancer,
                              status, &code);
    }
    remove_scratch(tmp, run);
    finished++;
    done++;
    if (code != 0) {
      g_printerr("%slbsim: %s failed: %s\n", show ? "\r\033[K" : "", what, text);
      worst = MAX(worst, code);
      failed++;
    }
    if (!fatal && !write_outputs(out, FALSE, &error))
      fatal = TRUE;
    if (show)
      show_progress(done, n, finished, todo->len, start);
  }
  g_rmdir(tmp);
  int sig = lb_signals_unwatch();
  if (show)
    g_printerr("\r\033[K");
  if (!fatal && !write_outputs(out, TRUE, &error))
    fatal = TRUE;
  if (fatal) {
    print_error(error);
    return 1;
  }
  if (sig != 0) {
    g_clear_error(&error);
    int code = lb_signals_error(sig, &error);
    print_error(error);
    return code;
  }
  g_autofree char *spent = clock_text(g_get_monotonic_time() - start);
  if (failed > 0)
    g_printerr("lbsim: %u of %u runs failed (named above) and are missing from %s: the same "
               "command runs them again\n",
               failed, n, out->files.json);
  else if (!s->quiet)
    g_printerr("lbsim: %u runs done in %s: %s%s%s\n", finished, spent, out->files.json,
               out->files.csv != NULL ? ", " : "", out->files.csv != NULL ? out->files.csv : "");
  return worst;
}

int
lb_sweep_execute(const LbSweep *sw, const char *state, const char *json, const char *csv,
                 guint jobs, gboolean quiet, LbRunResult ***results_out)
{
  const LbSweepFiles files = {json, csv, NULL, NULL};
  return lb_sweep_execute_files(sw, state, &files, jobs, quiet, results_out);
}

int
lb_sweep_execute_files(const LbSweep *sw, const char *state, const LbSweepFiles *files, guint jobs,
                       gboolean quiet, LbRunResult ***results_out)
{
  g_autoptr(GError) error = NULL;
  guint n = sw->runs->len;
  LbRunResult **results = g_new0(LbRunResult *, n);
  *results_out = results;
  if (!lb_sweep_state_make(state, sw))
    return 1;
  guint kept = lb_sweep_read_kept(state, sw, results, quiet);
  Sweeping s = {sw, results, state, jobs > 0 ? jobs : (guint)g_get_num_processors(), quiet};
  guint distinct = lb_sweep_distinct(sw), kept_distinct = 0;
  for (guint i = 0; i < n; i++)
    kept_distinct += results[i] != NULL && ((const LbSweepRun *)sw->runs->pdata[i])->first == i;
  if (!quiet && distinct < n)
    g_printerr("lbsim: %u runs, %u of them distinct (a balancer runs once for the values of "
               "other balancers' keys), %u reused from %s\n",
               n, distinct, kept_distinct, state);
  else if (!quiet)
    g_printerr("lbsim: %u runs, %u reused from %s\n", n, kept, state);
  Outputs out = {sw, results, *files, 0, 0};
  if (!write_outputs(&out, TRUE, &error)) {
    print_error(error);
    return 1;
  }
  return kept < n ? run_missing(&s, &out) : 0;
}

gboolean
lb_sweep_write_documents(const LbSweep *sw, LbRunResult *const *results, const LbSweepFiles *files,
                         GError **error)
{
  Outputs out = {sw, results, *files, 0, 0};
  return write_outputs(&out, TRUE, error);
}
