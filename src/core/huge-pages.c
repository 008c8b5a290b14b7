/* lbsim's allocator puts its heap in huge pages (runner/malloc-tune.c), and
 * SimGrid takes each actor's stack from that heap, a guard page below it:
 * a stack written (at its top, as it is made) while the heap's end is one
 * huge page made the whole 2 MiB resident, and with it every stack made
 * next in that page (4096 ranks: 428 MiB of stacks instead of 49). Made
 * with huge pages held off, each stack is a small mapping of its own
 * between guard pages, in small pages for good, resident only where the
 * rank's calls reach. A run of fewer ranks than LB_HUGE_PAGES_MIN_RANKS
 * holds them off while it simulates: its heap is small enough for small
 * pages (single runs with them: mlb at 4096 ranks for 4 s 1.05 times
 * slower, dls:fac at 1024 1.10, sfc-shift at 1024 no faster), while lbd
 * and sfc-shift at 4096 ran at 0.89 and 0.81 of the wall (paired). */
#include "core/huge-pages.h"

#include <sys/prctl.h>

gboolean
lb_huge_pages_hold(void)
{
  if (prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) != 0)
    return FALSE;
  return prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0;
}

void
lb_huge_pages_release(gboolean held)
{
  if (held)
    prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0);
}
