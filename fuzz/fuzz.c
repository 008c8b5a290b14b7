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

/* Workloads above these sizes are left out: building them takes seconds
 * (an H-tree of a million elements, a SAMR hierarchy over a large root),
 * which would hold the fuzzer to a few inputs a second; their keys are
 * still read and checked for every smaller value. */
#define FUZZ_MAX_UNITS 65536
#define FUZZ_MAX_LEVEL 10

static gboolean
number_above(GKeyFile *kf, const char *group, const char *key, double limit)
{
  g_autofree char *text = g_key_file_get_value(kf, group, key, NULL);
  if (text == NULL)
    return FALSE;
  /* NXxNY(xNZ): the product */
  double product = 1;
  g_auto(GStrv) parts = g_strsplit_set(text, "xX*", -1);
  for (guint i = 0; parts[i] != NULL; i++) {
    double v = g_ascii_strtod(g_strstrip(parts[i]), NULL);
    product *= v > 1 ? v : 1;
  }
  return product > limit;
}

static gboolean
too_big(const uint8_t *data, size_t size)
{
  g_autoptr(GKeyFile) kf = g_key_file_new();
  if (!g_key_file_load_from_data(kf, (const char *)data, size, G_KEY_FILE_NONE, NULL))
    return FALSE;
  static const char *const groups[] = {"workload", "as-htree", "as-samr", "as-loop"};
  static const char *const units[] = {"size", "field-size", "elements", "iterations"};
  for (guint g = 0; g < G_N_ELEMENTS(groups); g++) {
    for (guint k = 0; k < G_N_ELEMENTS(units); k++)
      if (number_above(kf, groups[g], units[k], FUZZ_MAX_UNITS))
        return TRUE;
    if (number_above(kf, groups[g], "max-level", FUZZ_MAX_LEVEL) ||
        number_above(kf, groups[g], "levels", 3) || number_above(kf, groups[g], "factor", 4))
      return TRUE;
  }
  return number_above(kf, "scenario", "ranks", 4096);
}

gboolean
lb_fuzz_load(const uint8_t *data, size_t size)
{
  if (too_big(data, size))
    return FALSE;
  g_autofree char *path = write_file("scenario.ini", data, size);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbScenario) sc = lb_scenario_load(path, NULL, &error);
  if ((sc == NULL) == (error == NULL))
    abort();
  if (error != NULL && (error->message == NULL || error->message[0] == '\0'))
    abort();
  return sc != NULL;
}
