#include "cli/malloc-tune.h"

#include <stdlib.h>
#include <string.h>
#include <glib.h>
#include <unistd.h>

/* glibc keeps at most 7 freed blocks of each small size per thread (its
 * tcache). SimGrid frees its objects for a comm by the thousand between two
 * actor switches; beyond those 7 they went through the arena's bins, where
 * lbsim's large heap made every allocation slow (a tenth of a 4096-rank
 * run). And glibc raises its mmap threshold to the size of the largest
 * mapped block freed (up to 32 MiB): after one such free, blocks of that
 * size come from the heap and stay resident once freed (23 MiB more at the
 * peak of a 4096-rank lbd run on a 2048 x 2048 field); a fixed threshold
 * at glibc's default keeps them mapped (no slower at 4096 ranks, mlb or
 * lbd). Both tunables are read only at start-up, so lbsim restarts itself
 * once with them before a simulating command, unless the tcache's is
 * already set, under valgrind (the new process would escape it) or with
 * sanitizers. */
void
lb_malloc_tune(char **argv)
{
#if !defined(__SANITIZE_ADDRESS__)
  static const char tcache[] = "glibc.malloc.tcache_count=65535";
  static const char mmap_threshold[] = "glibc.malloc.mmap_threshold=131072";
  const char *tunables = g_getenv("GLIBC_TUNABLES");
  const char *preload = g_getenv("LD_PRELOAD");
  if ((tunables != NULL && strstr(tunables, "glibc.malloc.tcache_count") != NULL) ||
      (preload != NULL && strstr(preload, "vgpreload") != NULL))
    return;
  gboolean threshold_set =
      tunables != NULL && strstr(tunables, "glibc.malloc.mmap_threshold") != NULL;
  g_autofree char *ours =
      threshold_set ? g_strdup(tcache) : g_strconcat(tcache, ":", mmap_threshold, NULL);
  g_autofree char *value = tunables != NULL && tunables[0] != '\0'
                               ? g_strconcat(tunables, ":", ours, NULL)
                               : g_strdup(ours);
  g_setenv("GLIBC_TUNABLES", value, TRUE);
  execv("/proc/self/exe", argv);
  /* no exec: run as is */
#endif
}
