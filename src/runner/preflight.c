#include "runner/preflight.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/child.h"
#include "runner/signals.h"
#include "core/platform-check.h"

#define TAG "preflight"

/* What the check depends on besides the settings, which do not change
 * within a process: the platform, and the hosts the ranks are placed on. */
static char *
check_key(const LbScenario *sc)
{
  g_autoptr(GString) key = g_string_new(NULL);
  g_string_append_printf(key, "%s\n%u\n%d", sc->platform, sc->ranks, (int)sc->placement);
  /* the queue draws its nodes with the seed; traffic needs the switches */
  if (sc->placement == LB_PLACEMENT_QUEUE)
    g_string_append_printf(key, "\n%" G_GUINT64_FORMAT, sc->placement_seed);
  g_string_append_printf(key, "\n%u", sc->background_traffic);
  for (guint i = 0; sc->loads != NULL && i < sc->loads->len; i++)
    g_string_append_printf(key, "\n%s", g_array_index(sc->loads, LbBackground, i).host);
  return g_string_free(g_steal_pointer(&key), FALSE);
}

static void
remove_files(const char *dir)
{
  static const char *const names[] = {TAG ".stage", TAG ".stage.log", TAG ".err", TAG ".log"};
  for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
    g_autofree char *path = g_build_filename(dir, names[i], NULL);
    g_unlink(path);
  }
  g_rmdir(dir);
}

/* The child: its own stderr goes to a file, so that nothing SimGrid says
 * while checking reaches the user twice; its verdict is its exit status,
 * its error text dir/TAG.err, as a run's. */
static G_GNUC_NORETURN void
check_in_child(const LbScenario *sc, const LbRunOptions *options, const char *dir)
{
  g_autofree char *log = g_strdup_printf("%s/" TAG ".log", dir);
  int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd >= 0) {
    dup2(fd, STDERR_FILENO);
    close(fd);
  }
  g_autofree char *stage = g_strdup_printf("%s/" TAG ".stage", dir);
  LbRunOptions quiet = {.cfg = options != NULL ? options->cfg : NULL,
                        .log = options != NULL ? options->log : NULL,
                        .stage_file = stage};
  g_autoptr(GError) error = NULL;
  int code = 0;
  if (!lb_run_check_platform(sc, &quiet, &error)) {
    code = g_error_matches(error, LB_RUN_ERROR, LB_RUN_ERROR_INVARIANT) ? 3
           : g_error_matches(error, LB_RUN_ERROR, LB_RUN_ERROR_INPUT)   ? 2
                                                                        : 1;
    g_autofree char *err = g_strdup_printf("%s/" TAG ".err", dir);
    g_file_set_contents(err, error->message, -1, NULL);
  }
  fflush(NULL);
  _exit(code);
}

gboolean
lb_preflight(const LbScenario *sc, const LbRunOptions *options, int *exit_code, GError **error)
{
  static GHashTable *passed = NULL;
  *exit_code = 2;
  if (!lb_platform_check_cfg(options != NULL ? options->cfg : NULL, error) ||
      !lb_platform_check_xml(sc, error))
    return FALSE;
  g_autofree char *key = check_key(sc);
  if (passed != NULL && g_hash_table_contains(passed, key))
    return TRUE;

  pid_t child = 0;
  lb_signals_watch(&child, 1);
  g_autofree char *dir = g_dir_make_tmp("lbsim-XXXXXX", error);
  if (dir == NULL) {
    lb_signals_unwatch();
    *exit_code = 1;
    return FALSE;
  }
  fflush(NULL);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    lb_signals_in_child(parent, dir);
    check_in_child(sc, options, dir);
  }
  if (pid < 0) {
    lb_signals_unwatch();
    *exit_code = 1;
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "fork: %s", g_strerror(errno));
    remove_files(dir);
    return FALSE;
  }
  lb_signals_child_started(&child, pid);
  int status = 0;
  lb_child_reap(&child, 1, &status);
  int sig = lb_signals_unwatch();
  if (sig != 0) {
    remove_files(dir);
    *exit_code = lb_signals_error(sig, error);
    return FALSE;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    remove_files(dir);
    if (passed == NULL)
      passed = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_hash_table_add(passed, g_steal_pointer(&key));
    *exit_code = 0;
    return TRUE;
  }
  LbRunOptions given = {.cfg = options != NULL ? options->cfg : NULL,
                        .log = options != NULL ? options->log : NULL};
  g_autofree char *text = lb_child_failure(sc->file, sc->platform, &given, dir, TAG,
                                           "platform check", status, exit_code);
  g_set_error(error, LB_RUN_ERROR, *exit_code == 3 ? LB_RUN_ERROR_INVARIANT : LB_RUN_ERROR_INPUT,
              "%s", text);
  remove_files(dir);
  return FALSE;
}
