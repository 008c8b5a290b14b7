#include "io/temporary.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>

/* at once: an output being written, the folders of a run */
#define MAX_PATHS 8

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *paths[MAX_PATHS];

/* Under the lock. */
static void
add(const char *path)
{
  guint i = 0;
  while (i < MAX_PATHS && paths[i] != NULL)
    i++;
  g_assert(i < MAX_PATHS);
  paths[i] = g_strdup(path);
}

int
lb_temporary_mkstemp(char *tmpl, int flags, int mode)
{
  pthread_mutex_lock(&lock);
  int fd = g_mkstemp_full(tmpl, flags, mode);
  int errsv = errno;
  if (fd >= 0)
    add(tmpl);
  pthread_mutex_unlock(&lock);
  errno = errsv;
  return fd;
}

char *
lb_temporary_make_dir(const char *tmpl, GError **error)
{
  pthread_mutex_lock(&lock);
  char *dir = g_dir_make_tmp(tmpl, error);
  if (dir != NULL)
    add(dir);
  pthread_mutex_unlock(&lock);
  return dir;
}

void
lb_temporary_forget(const char *path)
{
  pthread_mutex_lock(&lock);
  for (guint i = 0; i < MAX_PATHS; i++)
    if (paths[i] != NULL && strcmp(paths[i], path) == 0)
      g_clear_pointer(&paths[i], g_free);
  pthread_mutex_unlock(&lock);
}

void
lb_temporary_remove_tree(const char *path)
{
  GStatBuf st;
  if (g_lstat(path, &st) != 0)
    return;
  if (S_ISDIR(st.st_mode)) {
    g_autoptr(GDir) d = g_dir_open(path, 0, NULL);
    const char *name;
    while (d != NULL && (name = g_dir_read_name(d)) != NULL) {
      g_autofree char *inner = g_build_filename(path, name, NULL);
      lb_temporary_remove_tree(inner);
    }
    g_rmdir(path);
  } else {
    g_unlink(path);
  }
}

void
lb_temporary_remove_all(void)
{
  /* the lock stays held: nothing registers a path from now on */
  pthread_mutex_lock(&lock);
  for (guint i = 0; i < MAX_PATHS; i++)
    if (paths[i] != NULL)
      lb_temporary_remove_tree(paths[i]);
}

void
lb_temporary_reset_in_child(void)
{
  static const pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
  lock = fresh;
  memset(paths, 0, sizeof paths);
}
