#define _GNU_SOURCE
#include "io/datadir.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <string.h>

/* From meson: the prefix's layout, and the source tree's data. */
#ifndef LB_INSTALL_BINDIR
#define LB_INSTALL_BINDIR "bin"
#endif
#ifndef LB_INSTALL_LIBDIR
#define LB_INSTALL_LIBDIR "lib"
#endif
#ifndef LB_INSTALL_DATADIR
#define LB_INSTALL_DATADIR "share"
#endif
#ifndef LB_INSTALL_DOCDIR
#define LB_INSTALL_DOCDIR "share/doc/lbsim"
#endif
#ifndef LB_SOURCE_DATA_DIR
#define LB_SOURCE_DATA_DIR "."
#endif

static gboolean
holds(const char *dir, const char *folder)
{
  g_autofree char *path = g_build_filename(dir, folder, NULL);
  return g_file_test(path, G_FILE_TEST_IS_DIR);
}

/* dir without its trailing `tail` components ("/opt/x/lib/x86_64-linux-gnu"
 * less "lib/x86_64-linux-gnu" is "/opt/x"), or NULL when it does not end so. */
static char *
strip_tail(const char *dir, const char *tail)
{
  if (g_path_is_absolute(tail))
    return NULL;
  g_autofree char *clean_tail = g_canonicalize_filename(tail, "/");
  const char *t = clean_tail + 1; /* without its leading '/' */
  gsize nd = strlen(dir), nt = strlen(t);
  if (nt == 0 || nd <= nt || strcmp(dir + nd - nt, t) != 0 || dir[nd - nt - 1] != '/')
    return NULL;
  return g_strndup(dir, nd - nt - 1);
}

/* PREFIX/where of the prefix the object holding this code was installed
 * in (a shared liblbsim in LIBDIR, or a program in BINDIR that links it),
 * when that folder holds `folder`. */
static char *
installed_dir(const char *where, const char *folder)
{
  Dl_info info;
  if (dladdr((const void *)installed_dir, &info) == 0 || info.dli_fname == NULL)
    return NULL;
  g_autofree char *resolved = g_canonicalize_filename(info.dli_fname, NULL);
  /* follow a link such as liblbsim.so.0 -> liblbsim.so.0.1.0 no further:
   * both sit in the same folder */
  g_autofree char *dir = g_path_get_dirname(resolved);
  const char *tails[] = {LB_INSTALL_LIBDIR, LB_INSTALL_BINDIR};
  for (guint i = 0; i < G_N_ELEMENTS(tails); i++) {
    g_autofree char *prefix = strip_tail(dir, tails[i]);
    if (prefix == NULL)
      continue;
    char *found = g_build_filename(prefix, where, NULL);
    if (holds(found, folder))
      return found;
    g_free(found);
  }
  return NULL;
}

const char *
lb_data_dir(void)
{
  static gsize done = 0;
  static char *dir = NULL;
  if (g_once_init_enter(&done)) {
    const char *env = g_getenv("LBSIM_DATA_DIR");
    if (env != NULL && *env != '\0')
      dir = g_strdup(env);
    else if ((dir = installed_dir(LB_INSTALL_DATADIR "/lbsim", "platforms")) == NULL &&
             holds(LB_SOURCE_DATA_DIR, "platforms"))
      dir = g_strdup(LB_SOURCE_DATA_DIR);
    g_once_init_leave(&done, 1);
  }
  return dir;
}

const char *
lb_doc_dir(void)
{
  static gsize done = 0;
  static char *dir = NULL;
  if (g_once_init_enter(&done)) {
    if ((dir = installed_dir(LB_INSTALL_DOCDIR "/docs", "reference")) == NULL) {
      g_autofree char *source = g_build_filename(LB_SOURCE_DATA_DIR, "docs", NULL);
      if (holds(source, "reference"))
        dir = g_steal_pointer(&source);
    }
    g_once_init_leave(&done, 1);
  }
  return dir;
}

char *
lb_data_file(const char *first, ...)
{
  const char *dir = lb_data_dir();
  if (dir == NULL)
    return NULL;
  g_autoptr(GPtrArray) parts = g_ptr_array_new();
  g_ptr_array_add(parts, (gpointer)dir);
  va_list args;
  va_start(args, first);
  for (const char *p = first; p != NULL; p = va_arg(args, const char *))
    g_ptr_array_add(parts, (gpointer)p);
  va_end(args);
  g_ptr_array_add(parts, NULL);
  return g_build_filenamev((char **)parts->pdata);
}
