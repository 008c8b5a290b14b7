#include "cli/malloc-tune.h"

#include <stdlib.h>
#include <string.h>
#include <glib.h>
#include <unistd.h>

/* glibc keeps at most 7 freed blocks of each small size per thread (its
 * tcache). SimGrid frees its objects for a comm by the thousand between two
 * actor switches; beyond those 7 they went through the arena's bins, where
 * lbsim's large heap made every allocation slow (a tenth of a 4096-rank
 * run). The tcache's depth is a tunable read only at start-up, so lbsim
 * restarts itself once with a deep one before a simulating command, unless
 * the tunable is already set, under valgrind (the new process would escape
 * it) or with sanitizers. */
void
lb_malloc_tune(char **argv)
{
#if !defined(__SANITIZE_ADDRESS__)
  static const char tcache[] = "glibc.malloc.tcache_count=65535";
  const char *tunables = g_getenv("GLIBC_TUNABLES");
  const char *preload = g_getenv("LD_PRELOAD");
  if ((tunables != NULL && strstr(tunables, "glibc.malloc.tcache_count") != NULL) ||
      (preload != NULL && strstr(preload, "vgpreload") != NULL))
    return;
  g_autofree char *value = tunables != NULL && tunables[0] != '\0'
                               ? g_strconcat(tunables, ":", tcache, NULL)
                               : g_strdup(tcache);
  g_setenv("GLIBC_TUNABLES", value, TRUE);
  execv("/proc/self/exe", argv);
  /* no exec: run as is */
#endif
}
