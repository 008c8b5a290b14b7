/* Shared by the fuzz targets, see fuzz.h. */
#include "fuzz.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lbsim/scenario.h"

static char *dir = NULL;

/* The folder holds files only. */
static void
fuzz_cleanup(void)
{
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  for (const char *name; d != NULL && (name = g_dir_read_name(d)) != NULL;) {
    g_autofree char *path = g_build_filename(dir, name, NULL);
    g_unlink(path);
  }
  g_rmdir(dir);
}

static const char *
fuzz_dir(void)
{
  if (dir == NULL) {
    g_autofree char *name = g_strdup_printf("lbsim-fuzz-%d", (int)getpid());
    dir = g_build_filename(g_get_tmp_dir(), name, NULL);
    if (g_mkdir_with_parents(dir, 0700) != 0)
      g_error("cannot make %s", dir);
    atexit(fuzz_cleanup);
  }
  return dir;
}

static char *
write_file(const char *name, const uint8_t *data, size_t size)
{
  char *path = g_build_filename(fuzz_dir(), name, NULL);
  /* not g_file_set_contents: it syncs a file it replaces, a disk write per input */
  FILE *f = fopen(path, "wb");
  if (f == NULL || fwrite(data, 1, size, f) != size || fclose(f) != 0)
    g_error("cannot write %s", path);
  return path;
}

void
lb_fuzz_write(const char *name, const uint8_t *data, size_t size)
{
  g_free(write_file(name, data, size));
}

gboolean
lb_fuzz_load(const uint8_t *data, size_t size)
{
  g_autofree char *path = write_file("scenario.ini", data, size);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbScenario) sc = lb_scenario_load(path, NULL, &error);
  if ((sc == NULL) == (error == NULL))
    abort();
  if (error != NULL && (error->message == NULL || error->message[0] == '\0'))
    abort();
  return sc != NULL;
}
