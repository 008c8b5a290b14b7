/* lbsim sweep and lbsim merge: a sweep's jobs run here (forked, up to -j at
 * a time) or written down for a cluster, and their results gathered into
 * one document. */
#include <errno.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/child.h"
#include "cli/commands.h"
#include "cli/emit-jobs.h"
#include "runner/runner.h"
#include "runner/signals.h"
#include "cli/sweep.h"
#include "io/input.h"
#include "io/output.h"
#include "report/report.h"
#include "report/results.h"
#include "runner/transport.h"

/* missing runs listed by name, at most */
#define MAX_LISTED 20
/* the documents are rewritten after a run unless writing them took more
 * than 1/WRITE_SHARE of the time since they were last written */
#define WRITE_SHARE 20

static void
print_error(const GError *error)
{
  g_printerr("lbsim: %s\n", error->message);
}

static gboolean G_GNUC_PRINTF(2, 3) state_error(GError **error, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  g_autofree char *text = g_strdup_vprintf(format, args);
  va_end(args);
  g_set_error_literal(error, LB_SWEEP_ERROR, LB_SWEEP_ERROR_STATE, text);
  return FALSE;
}

static void
results_free(LbRunResult **results, guint n)
{
  for (guint i = 0; results != NULL && i < n; i++)
    lb_run_result_free(results[i]);
  g_free(results);
}

static char *
default_json(const LbSweep *sw)
{
  g_autofree char *name = g_strdup(sw->name);
  g_strdelimit(name, G_DIR_SEPARATOR_S, '_');
  return g_strdup_printf("%s-sweep.json", name);
}

static char *
default_state(const char *json)
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
static gboolean
check_json(const char *path, const LbSweep *sw, GError **error)
{
  if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
    return TRUE;
  g_autofree char *text = NULL;
  g_autofree char *id =
      lb_input_read_prefix(path, JSON_HEAD, &text, NULL) ? definition_in_head(text) : NULL;
  if (g_strcmp0(id, sw->id) == 0)
    return TRUE;
  return state_error(
      error, "%s exists and holds %s: give another -o, or --force to replace it", path,
      id != NULL ? "another sweep's results" : "something else than a sweep's results");
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
  return state_error(error,
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
  return state_error(error,
                     "%s exists and is not this sweep's CSV: give another %s, or --force to "
                     "replace it",
                     path, option);
}

static gboolean
check_tables(const LbSweepFiles *files, const LbSweep *sw, GError **error)
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
static gboolean
check_state(const char *dir, const LbSweep *sw, gboolean force, GError **error)
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
    return state_error(error,
                       "%s holds another sweep's runs (other keys, values, balancers or scenario "
                       "contents): give another -o or --state, or --force to make it this sweep's "
                       "(the results of runs the two share are kept)",
                       dir);
  }
  if (!g_file_test(dir, G_FILE_TEST_EXISTS))
    return TRUE;
  if (!g_file_test(dir, G_FILE_TEST_IS_DIR))
    return state_error(error, "--state %s: not a folder", dir);
  g_autoptr(GDir) d = g_dir_open(dir, 0, error);
  if (d == NULL)
    return FALSE;
  if (force || g_dir_read_name(d) == NULL)
    return TRUE;
  return state_error(error,
                     "%s is not empty and holds no sweep.ini: give another -o or --state, or "
                     "--force to use it",
                     dir);
}

/* ---- results ---- */

static char *
run_file(const char *dir, const LbSweepRun *run, const char *suffix)
{
  g_autofree char *name = g_strconcat(run->id, suffix, NULL);
  return g_build_filename(dir, name, NULL);
}

static LbRunResult *
read_result(const char *path, const LbSweepRun *run, GError **error)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) local = NULL;
  if (!lb_input_read(path, LB_INPUT_RESULT, &text, NULL, error))
    return NULL;
  LbRunResult *result = lb_result_from_transport(text, &local);
  if (result == NULL) {
    state_error(error, "%s: not a run's result: %s", path, local->message);
    return NULL;
  }
  if (strcmp(result->balancer, run->balancer) != 0) {
    state_error(error, "%s: a result of %s, where the sweep expects %s", path, result->balancer,
                run->balancer);
    lb_run_result_free(result);
    return NULL;
  }
  return result;
}

/* The results kept in the state folder; the rest runs again. */
static guint
read_kept(const char *dir, const LbSweep *sw, LbRunResult **results, gboolean quiet)
{
  guint kept = 0;
  for (guint i = 0; i < sw->runs->len; i++) {
    g_autofree char *path = run_file(dir, sw->runs->pdata[i], ".result");
    g_autoptr(GError) error = NULL;
    if (!g_file_test(path, G_FILE_TEST_EXISTS))
      continue;
    results[i] = read_result(path, sw->runs->pdata[i], &error);
    if (results[i] != NULL)
      kept++;
    else if (!quiet)
      g_printerr("lbsim: %s: running it again\n", error->message);
  }
  return kept;
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
    g_autofree char *path = run_file(dir, run, suffixes[s]);
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
      g_autofree char *job = run_file(s->state, run, ".job");
      g_autofree char *result = run_file(s->state, run, ".result");
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
      g_autofree char *result = run_file(s->state, run, ".result");
      for (guint j = i; j < sw->runs->len && code == 0; j++)
        if (((const LbSweepRun *)sw->runs->pdata[j])->first == i &&
            (s->results[j] = read_result(result, sw->runs->pdata[j], &local)) == NULL) {
          code = 1;
          text = g_strdup(local->message);
        }
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

/* Before anything is made or run: each output can be written, none is
 * an input (the scenario, a point's platform, a file a point reads) or
 * another output, and the state folder is none of them either. */
static gboolean
check_files(const LbSweep *sw, const char *json, const char *csv, const LbEmit *emit,
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
    return state_error(error, "--state %s: not a folder", state);
  return TRUE;
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

/* Ranks varied on the scenario's one platform: each point runs on the
 * first hosts of it, which a user may not expect; say so once a count. */
static void
say_hosts(const LbSweep *sw)
{
  guint axis = 0;
  while (axis < sw->axes->len && strcmp(((LbSweepAxis *)sw->axes->pdata[axis])->name, "ranks") != 0)
    axis++;
  if (sw->platform != NULL || axis == sw->axes->len)
    return;
  g_autoptr(GHashTable) said = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint i = 0; i < sw->runs->len; i++) {
    const LbSweepRun *run = sw->runs->pdata[i];
    const char *ranks = lb_sweep_value(sw, run->point, axis);
    if (run->platform == NULL || !g_hash_table_add(said, (gpointer)ranks))
      continue;
    g_autofree char *base = g_path_get_basename(run->platform);
    g_printerr("lbsim: ranks=%s runs on %s of the hosts of the scenario's platform, %s, placed "
               "as its [scenario] placement says (host r for rank r by default); --platform "
               "PATTERN gives each point its own, e.g. hypercube-{ranks}.xml\n",
               ranks, ranks, base);
  }
}

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
  LbEmit emit = {LB_SCHEDULER_PLAIN};
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
  g_autofree char *json = a.json != NULL ? g_strdup(a.json) : default_json(sw);
  /* -o /dev/stdout or a FIFO: the state folder is named after the scenario */
  g_autofree char *named =
      g_file_test(json, G_FILE_TEST_EXISTS) && !g_file_test(json, G_FILE_TEST_IS_REGULAR)
          ? default_json(sw)
          : g_strdup(json);
  g_autofree char *state = a.state != NULL ? g_strdup(a.state) : default_state(named);
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
  if (!check_files(sw, json, a.csv, a.emit != NULL ? &emit : NULL, state, &files, &error) ||
      !check_state(state, sw, a.force, &error) ||
      (!a.force && (!check_json(json, sw, &error) || !check_tables(&files, sw, &error)))) {
    print_error(error);
    return LB_EXIT_INPUT;
  }
  if (!a.quiet)
    say_hosts(sw);
  if (a.emit != NULL) {
    g_autofree char *ini = g_build_filename(state, "sweep.ini", NULL);
    if (g_mkdir_with_parents(state, 0777) != 0) {
      int errsv = errno;
      g_printerr("lbsim: cannot make %s: %s\n", state, g_strerror(errsv));
      return 1;
    }
    if (!lb_output_write(ini, sw->definition, -1, &error)) {
      print_error(error);
      return 1;
    }
    guint n = sw->runs->len;
    LbRunResult **results = g_new0(LbRunResult *, n);
    read_kept(state, sw, results, a.quiet);
    int code = lb_emit_jobs(&emit, sw, results);
    results_free(results, n);
    return code;
  }
  LbRunResult **results = NULL;
  int code = lb_sweep_execute_files(sw, state, &files, jobs, a.quiet, &results);
  results_free(results, sw->runs->len);
  return code;
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
  g_autofree char *ini = g_build_filename(state, "sweep.ini", NULL);
  if (g_mkdir_with_parents(state, 0777) != 0) {
    int errsv = errno;
    g_printerr("lbsim: cannot make %s: %s\n", state, g_strerror(errsv));
    return 1;
  }
  if (!lb_output_write(ini, sw->definition, -1, &error)) {
    print_error(error);
    return 1;
  }
  guint kept = read_kept(state, sw, results, quiet);
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

/* ---- merge ---- */

typedef struct {
  char *json;
  char *csv;
  char *long_csv;
  char *stats_csv;
  gboolean partial;
  gboolean force;
  gboolean quiet;
} MergeArgs;

static void
merge_args_clear(MergeArgs *a)
{
  g_free(a->json);
  g_free(a->csv);
  g_free(a->long_csv);
  g_free(a->stats_csv);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(MergeArgs, merge_args_clear)

/* The sweep the arguments belong to: the sweep.ini of each folder given
 * and of the folder of each result file given, all the same. */
static LbSweep *
merge_definition(int argc, char **argv, GError **error)
{
  g_autoptr(LbSweep) sw = NULL;
  const char *from = NULL;
  for (int i = 1; i < argc; i++) {
    gboolean dir = g_file_test(argv[i], G_FILE_TEST_IS_DIR);
    if (!dir && !g_file_test(argv[i], G_FILE_TEST_IS_REGULAR)) {
      state_error(error, "%s: no such file or folder", argv[i]);
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
      state_error(error, "%s and %s belong to different sweeps (their sweep.ini differ)", from,
                  argv[i]);
      return NULL;
    }
  }
  if (sw == NULL)
    state_error(error, "no sweep.ini next to the result files: give the sweep's state folder too");
  return g_steal_pointer(&sw);
}

/* The runs that share run first's result (points that reuse it), read
 * from path too. */
static gboolean
read_shared(const LbSweep *sw, guint first, const char *path, LbRunResult **results, GError **error)
{
  for (guint j = first + 1; j < sw->runs->len; j++)
    if (((const LbSweepRun *)sw->runs->pdata[j])->first == first && results[j] == NULL &&
        (results[j] = read_result(path, sw->runs->pdata[j], error)) == NULL)
      return FALSE;
  return TRUE;
}

static gboolean
merge_results(const LbSweep *sw, int argc, char **argv, LbRunResult **results, GError **error)
{
  g_autoptr(GHashTable) by_id = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint i = 0; i < sw->runs->len; i++)
    if (((LbSweepRun *)sw->runs->pdata[i])->first == i)
      g_hash_table_insert(by_id, ((LbSweepRun *)sw->runs->pdata[i])->id, GUINT_TO_POINTER(i + 1));
  for (int a = 1; a < argc; a++) {
    if (g_file_test(argv[a], G_FILE_TEST_IS_DIR)) {
      for (guint i = 0; i < sw->runs->len; i++) {
        g_autofree char *path = run_file(argv[a], sw->runs->pdata[i], ".result");
        if (results[i] != NULL || !g_file_test(path, G_FILE_TEST_EXISTS))
          continue;
        if ((results[i] = read_result(path, sw->runs->pdata[i], error)) == NULL)
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
      return state_error(error,
                         "%s: not a result of this sweep (ID.result, ID one of its sweep.ini's "
                         "runs)",
                         argv[a]);
    if (results[i - 1] == NULL &&
        ((results[i - 1] = read_result(argv[a], sw->runs->pdata[i - 1], error)) == NULL ||
         !read_shared(sw, i - 1, argv[a], results, error)))
      return FALSE;
  }
  return TRUE;
}

/* merge's outputs: writable, and none of them a result or state file it
 * reads, or the other output. */
static gboolean
check_merge_files(const LbSweep *sw, int argc, char **argv, const LbSweepFiles *files,
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
      g_autofree char *path = run_file(argv[i], sw->runs->pdata[r], ".result");
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

int
lb_cmd_merge(const LbCommand *self, int argc, char **argv)
{
  g_auto(MergeArgs) a = {0};
  GOptionEntry entries[] = {
      {"json", 'o', 0, G_OPTION_ARG_FILENAME, &a.json,
       "The results as JSON (default: NAME-sweep.json, NAME the scenario's)", "FILE"},
      {"csv", 0, 0, G_OPTION_ARG_FILENAME, &a.csv, "The results as CSV, one row per run", "FILE"},
      {"long-csv", 0, 0, G_OPTION_ARG_FILENAME, &a.long_csv,
       "The results as CSV, one row per run and metric", "FILE"},
      {"stats-csv", 0, 0, G_OPTION_ARG_FILENAME, &a.stats_csv,
       "For a sweep with replicates: each measure's statistics as CSV", "FILE"},
      {"partial", 0, 0, G_OPTION_ARG_NONE, &a.partial,
       "Write the runs there are when some are missing (still named)", NULL},
      {"force", 0, 0, G_OPTION_ARG_NONE, &a.force, "Replace outputs made by another sweep", NULL},
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &a.quiet, "No summary on stderr", NULL},
      {NULL},
  };
  g_auto(GStrv) args = lb_command_parse(
      self, entries,
      "Gathers the results of a sweep's jobs (lbsim sweep --emit-jobs, each job run with\n"
      "lbsim run-job) into the JSON and CSV that lbsim sweep writes. Give the state folder,\n"
      "or result files with the state folder (its sweep.ini holds the sweep's order).\n"
      "Exit status: 0 done, 1 runs are missing (named; --partial writes the others),\n"
      "2 bad input.",
      argc, argv);
  if (args == NULL)
    return LB_EXIT_INPUT;
  g_autoptr(GError) error = NULL;
  argc = (int)g_strv_length(args);
  argv = args;
  if (argc < 2) {
    g_printerr("lbsim: merge needs the sweep's state folder or result files (see lbsim merge "
               "--help)\n");
    return LB_EXIT_INPUT;
  }
  g_autoptr(LbSweep) sw = merge_definition(argc, argv, &error);
  if (sw == NULL) {
    print_error(error);
    return LB_EXIT_INPUT;
  }
  guint n = sw->runs->len;
  LbRunResult **results = g_new0(LbRunResult *, n);
  int code = 0;
  guint missing = 0;
  g_autofree char *json = a.json != NULL ? g_strdup(a.json) : default_json(sw);
  const LbSweepFiles files = {json, a.csv, a.long_csv, a.stats_csv};
  if (!merge_results(sw, argc, argv, results, &error)) {
    print_error(error);
    code = LB_EXIT_INPUT;
  } else if (!check_merge_files(sw, argc, argv, &files, &error)) {
    print_error(error);
    code = LB_EXIT_INPUT;
  } else if (a.stats_csv != NULL && sw->replicates < 0) {
    g_printerr("lbsim: --stats-csv: the sweep has no replicates\n");
    code = LB_EXIT_INPUT;
  } else if (!a.force && ((strcmp(json, "-") != 0 && !check_json(json, sw, &error)) ||
                          !check_tables(&files, sw, &error))) {
    print_error(error);
    code = LB_EXIT_INPUT;
  } else {
    for (guint i = 0; i < n; i++) {
      if (results[i] != NULL)
        continue;
      if (++missing <= MAX_LISTED) {
        g_autofree char *what = lb_sweep_describe(sw, sw->runs->pdata[i]);
        g_printerr("lbsim: missing: %s (%s.result)\n", what,
                   ((LbSweepRun *)sw->runs->pdata[i])->id);
      }
    }
    if (missing > MAX_LISTED)
      g_printerr("lbsim: ... and %u more\n", missing - MAX_LISTED);
    Outputs out = {sw, results, files, 0, 0};
    if (missing > 0 && !a.partial) {
      g_printerr("lbsim: %u of %u runs missing: nothing written (--partial writes the others)\n",
                 missing, n);
      code = 1;
    } else if (!write_outputs(&out, TRUE, &error)) {
      print_error(error);
      code = 1;
    } else if (!a.quiet) {
      g_printerr("lbsim: %u of %u runs in %s\n", n - missing, n, json);
    }
  }
  results_free(results, n);
  return code;
}
