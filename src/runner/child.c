/* A simulation in a child process of its own: forked, reaped, and what
 * its failure was, read from what it left in its folder. */
#include "runner/child.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/signals.h"

static void
say_ready(gpointer data)
{
  int fd = GPOINTER_TO_INT(data);
  if (write(fd, "", 1) < 0) {
    /* the parent is gone: its signal ends this child */
  }
  close(fd);
}

gboolean
lb_child_wait_ready(int ready)
{
  char byte;
  ssize_t n;
  do
    n = read(ready, &byte, 1);
  while (n < 0 && errno == EINTR);
  close(ready);
  return n == 1;
}

gboolean
lb_child_spawn(const LbJob *job, const LbScenario *sc, guint index, const LbRunOptions *options,
               const char *dir, const char *tag, const char *result, pid_t *slot, int *ready)
{
  int fds[2] = {-1, -1};
  if (ready != NULL && pipe(fds) != 0)
    return FALSE;
  for (guint i = 0; ready != NULL && i < 2; i++)
    fcntl(fds[i], F_SETFD, FD_CLOEXEC);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid != 0) {
    int saved = errno;
    if (fds[1] >= 0)
      close(fds[1]);
    if (pid < 0) {
      if (fds[0] >= 0)
        close(fds[0]);
      errno = saved;
      return FALSE;
    }
    lb_signals_child_started(slot, pid);
    if (ready != NULL)
      *ready = fds[0];
    return TRUE;
  }
  lb_signals_in_child(parent, dir);
  if (fds[0] >= 0)
    close(fds[0]);
  LbRunOptions run_options = *options;
  g_autofree char *stage = g_strdup_printf("%s/%s.stage", dir, tag);
  g_autofree char *err = g_strdup_printf("%s/%s.err", dir, tag);
  run_options.stage_file = stage;
  if (ready != NULL) {
    run_options.at_start = say_ready;
    run_options.at_start_data = GINT_TO_POINTER(fds[1]);
  }
  int code = lb_job_execute(job, sc, index, &run_options, result, err);
  fflush(NULL);
  _exit(code);
}

/* SimGrid's words from the log of a child it aborted: the first critical
 * line (else the first error), without its prefixes. */
static char *
simgrid_message(const char *dir, const char *tag)
{
  g_autofree char *path = g_strdup_printf("%s/%s.stage.log", dir, tag);
  g_autofree char *text = NULL;
  if (!g_file_get_contents(path, &text, NULL, NULL))
    return NULL;
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  static const char *const levels[] = {"CRITICAL] ", "ERROR] "};
  for (guint l = 0; l < G_N_ELEMENTS(levels); l++) {
    for (guint i = 0; lines[i] != NULL; i++) {
      const char *m = strstr(lines[i], levels[l]);
      if (m == NULL)
        continue;
      m += strlen(levels[l]);
      if (g_str_has_prefix(m, "Uncaught exception ") && strstr(m, ": ") != NULL)
        m = strstr(m, ": ") + 2;
      return g_strdup(m);
    }
  }
  return NULL;
}

/* The error of a child that died before it could report one: an input
 * error if SimGrid aborted it while reading the settings or the platform. */
static char *
stage_failure(const char *file, const char *platform, const LbRunOptions *options, const char *dir,
              const char *tag, int status)
{
  g_autofree char *path = g_strdup_printf("%s/%s.stage", dir, tag);
  g_autofree char *stage = NULL;
  if (!g_file_get_contents(path, &stage, NULL, NULL))
    return NULL;
  g_autofree char *said = simgrid_message(dir, tag);
  if (said == NULL)
    said = WIFSIGNALED(status) ? g_strdup_printf("it crashed (signal %d: %s)", WTERMSIG(status),
                                                 g_strsignal(WTERMSIG(status)))
                               : g_strdup_printf("it failed (exit status %d)", WEXITSTATUS(status));
  if (strcmp(stage, "settings") == 0) {
    g_autoptr(GString) given = g_string_new(NULL);
    for (guint i = 0; options->cfg != NULL && options->cfg[i] != NULL; i++)
      g_string_append_printf(given, "%s--cfg %s", given->len ? ", " : "", options->cfg[i]);
    for (guint i = 0; options->log != NULL && options->log[i] != NULL; i++)
      g_string_append_printf(given, "%s--log %s", given->len ? ", " : "", options->log[i]);
    return g_strdup_printf("SimGrid rejects %s: %s", given->len ? given->str : "its settings",
                           said);
  }
  if (strcmp(stage, "platform") == 0)
    return g_strdup_printf("%s: [scenario] platform: SimGrid could not load %s: %s", file, platform,
                           said);
  if (strcmp(stage, "routes") == 0)
    return g_strdup_printf("%s: [scenario] platform: %s: SimGrid failed looking up the routes "
                           "between the ranks' hosts: %s",
                           file, platform, said);
  return NULL;
}

char *
lb_child_failure(const char *file, const char *platform, const LbRunOptions *options,
                 const char *dir, const char *tag, const char *name, int status, int *code)
{
  g_autofree char *err = g_strdup_printf("%s/%s.err", dir, tag);
  char *text = NULL;
  if (WIFEXITED(status) && g_file_get_contents(err, &text, NULL, NULL)) {
    *code = WEXITSTATUS(status);
    return text;
  }
  if ((text = stage_failure(file, platform, options, dir, tag, status)) != NULL) {
    *code = 2;
    return text;
  }
  *code = 1;
  return WIFSIGNALED(status)
             ? g_strdup_printf("the %s run crashed (signal %d: %s)", name, WTERMSIG(status),
                               g_strsignal(WTERMSIG(status)))
             : g_strdup_printf("the %s run failed (exit status %d)", name, WEXITSTATUS(status));
}

gint
lb_child_reap(pid_t *pids, guint n, int *status)
{
  for (;;) {
    siginfo_t info = {0};
    /* WNOWAIT: the child stays a zombie, its pid not reused, until its
     * slot is cleared */
    if (waitid(P_ALL, 0, &info, WEXITED | WNOWAIT) != 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    gint found = -1;
    for (guint k = 0; k < n && found < 0; k++)
      if (pids[k] == info.si_pid)
        found = (gint)k;
    if (found >= 0)
      lb_signals_child_ended(&pids[found]);
    while (waitpid(info.si_pid, status, 0) < 0 && errno == EINTR)
      ;
    if (found >= 0)
      return found;
  }
}
