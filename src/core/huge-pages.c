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

#include <malloc.h>
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

/* A mapping made anew is faulted in a page at a time, and a small run may
 * remake large tables at every adaptation step: samr at seven levels
 * rebuilds, gathers, balances and exchanges tables of 140,000 grids 600
 * times. With every block over 128 KiB mapped and unmapped on its own
 * (runner/malloc-tune.c), 100 of those adaptations on 32 ranks spent 4.3 s
 * of 29.4 in the kernel; with blocks up to 32 MiB kept on the heap, 0.7 s
 * and 0.93 of the wall, for 18 % more memory at the peak (three paired
 * runs). At 1024 ranks, paired: lbd 0.95 of the wall, sfc-shift 0.86,
 * dls:af and mlb the same, 2.5 to 7.5 % more memory. Runs of
 * LB_HUGE_PAGES_MIN_RANKS ranks and more keep malloc-tune.c's threshold:
 * sfc-shift at 4096 ranks ran no faster with blocks kept (1.01, paired). */
void
lb_heap_keep_large_blocks(void)
{
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
}
