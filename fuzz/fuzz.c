/* Shared by the fuzz targets, see fuzz.h. */
#include "fuzz.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* NXxNY(xNZ): the product, from the first number on */
static double
product_of(const char *text)
{
  double product = 1;
  g_auto(GStrv) parts = g_strsplit_set(text, "xX*", -1);
  for (guint i = 0; parts[i] != NULL; i++) {
    double v = g_ascii_strtod(g_strstrip(parts[i]), NULL);
    product *= v > 1 ? v : 1;
  }
  return product;
}

static gboolean
value_too_big(const char *group, const char *key, const char *value)
{
  if (strcmp(group, "scenario") == 0)
    return strcmp(key, "ranks") == 0 && product_of(value) > 4096;
  static const char *const groups[] = {"workload", "as-htree", "as-samr", "as-loop"};
  gboolean sized = FALSE;
  for (guint g = 0; g < G_N_ELEMENTS(groups); g++)
    sized = sized || strcmp(group, groups[g]) == 0;
  if (!sized)
    return FALSE;
  static const char *const units[] = {"size", "field-size", "elements", "iterations"};
  for (guint k = 0; k < G_N_ELEMENTS(units); k++)
    if (strcmp(key, units[k]) == 0)
      return product_of(value) > FUZZ_MAX_UNITS;
  return (strcmp(key, "max-level") == 0 && product_of(value) > FUZZ_MAX_LEVEL) ||
         (strcmp(key, "levels") == 0 && product_of(value) > 3) ||
         (strcmp(key, "factor") == 0 && product_of(value) > 4);
}

/* Every "KEY = VALUE" line under its [GROUP], read loosely (not with
 * GKeyFile, which refuses lines lbsim reads, such as [expect]'s), and up
 * to the first NUL byte only, as far as lbsim reads a file before it
 * rejects it. */
static gboolean
too_big(const uint8_t *data, size_t size)
{
  g_autofree char *text = g_strndup((const char *)data, size);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  g_autofree char *group = g_strdup("");
  for (guint i = 0; lines[i] != NULL; i++) {
    char *line = g_strstrip(lines[i]);
    if (*line == '[') {
      g_free(group);
      group = g_strndup(line + 1, strcspn(line + 1, "]"));
      continue;
    }
    char *eq = strchr(line, '=');
    if (eq == NULL)
      continue;
    *eq = '\0';
    if (value_too_big(group, g_strstrip(line), eq + 1))
      return TRUE;
  }
  return FALSE;
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
