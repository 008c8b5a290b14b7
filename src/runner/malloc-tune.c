#include "runner/malloc-tune.h"

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
 * lbd; a smaller run raises it again, core/huge-pages.c). And glibc puts its heap in huge pages
 * when asked (the kernel's default gives them to who asks): at 4096 ranks SimGrid's objects and
 * lbsim's spread over most of a gigabyte, and with small pages the
 * processor's translations of their addresses miss all the time (paired
 * runs at 4096 ranks with huge pages: sfc-shift 0.81 of the wall, lbd
 * 0.89; core/huge-pages.c keeps the actors' stacks and small runs out of
 * them). The tunables are read only at start-up, so lbsim restarts
 * itself once with them before a simulating command, unless the tcache's
 * is already set, under valgrind (the new process would escape it) or with
 * sanitizers; a tunable the caller set is left as it is. */
void
lb_malloc_tune(char **argv)
{
#if !defined(__SANITIZE_ADDRESS__)
  static const char *const ours[] = {
      "glibc.malloc.tcache_count=65535",
      "glibc.malloc.mmap_threshold=131072",
      "glibc.malloc.hugetlb=1",
  };
  const char *tunables = g_getenv("GLIBC_TUNABLES");
  const char *preload = g_getenv("LD_PRELOAD");
  if ((tunables != NULL && strstr(tunables, "glibc.malloc.tcache_count") != NULL) ||
      (preload != NULL && strstr(preload, "vgpreload") != NULL))
    return;
  g_autoptr(GString) value = g_string_new(tunables);
  for (guint i = 0; i < G_N_ELEMENTS(ours); i++) {
    g_autofree char *name = g_strndup(ours[i], strcspn(ours[i], "="));
    if (tunables != NULL && strstr(tunables, name) != NULL)
      continue;
    if (value->len > 0)
      g_string_append_c(value, ':');
    g_string_append(value, ours[i]);
  }
  g_setenv("GLIBC_TUNABLES", value->str, TRUE);
  execv("/proc/self/exe", argv);
  /* no exec: run as is */
#endif
}
