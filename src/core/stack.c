/* The memory of the ranks' stacks when they have no guard pages (stack.h):
 * SimGrid asks for each such stack zeroed (calloc), and glibc clears a
 * block carved from the top of its heap even where no page of it was ever
 * touched, so every page of every stack became resident (65,536 ranks: 2
 * GiB of zeros). A stack needs no zeros: while the ranks are made, a
 * request of exactly a stack's size gets a plain malloc, whose pages stay
 * untouched until the rank's calls reach them. lbsim's calloc is the C
 * library's everywhere else; a preloaded allocator (valgrind, heaptrack,
 * a sanitizer) comes first and keeps its own. */
#include "core/stack.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xbt/config.h>

/* gcc says __SANITIZE_ADDRESS__, clang __has_feature: under a sanitizer
 * its runtime's calloc must stay the only one */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LB_SANITIZER_RUNTIME 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                         \
    __has_feature(memory_sanitizer)
#define LB_SANITIZER_RUNTIME 1
#endif
#endif

#if defined(__GLIBC__) && !defined(LB_SANITIZER_RUNTIME)
#define LB_UNZEROED_STACKS 1
void *__libc_calloc(size_t nmemb, size_t size);
#endif

/* the stack's size while the ranks are made, else 0; and where their
 * stacks lie */
static size_t unzeroed_bytes;
static guintptr lowest, highest;

#ifdef LB_UNZEROED_STACKS
void *
calloc(size_t nmemb, size_t size)
{
  /* SimGrid's xbt_malloc0(stack size) */
  if (G_UNLIKELY(unzeroed_bytes != 0) && size == 1 && nmemb == unzeroed_bytes) {
    void *stack = malloc(nmemb);
    guintptr at = (guintptr)stack;
    if (stack != NULL) {
      lowest = lowest == 0 ? at : MIN(lowest, at);
      highest = MAX(highest, at + nmemb);
    }
    return stack;
  }
  return __libc_calloc(nmemb, size);
}
#endif

gboolean
lb_stacks_unzeroed_begin(void)
{
#ifdef LB_UNZEROED_STACKS
  /* guarded stacks are mappings of their own; below glibc's threshold (and
   * lbsim's), a block comes from the heap, and it is the heap's pages that
   * calloc clears */
  if (sg_cfg_get_int("contexts/guard-size") != 0)
    return FALSE;
  gsize stack_bytes = (gsize)sg_cfg_get_int("contexts/stack-size") * 1024;
  if (stack_bytes == 0 || stack_bytes >= LB_UNZEROED_STACK_MAX_BYTES)
    return FALSE;
  unzeroed_bytes = stack_bytes;
  lowest = highest = 0;
  return TRUE;
#else
  return FALSE;
#endif
}

/* The heap under the stacks is kept out of huge pages: the kernel's
 * khugepaged would otherwise, in a long run, merge a stack's few touched
 * pages and the untouched ones around them into whole resident 2 MiB
 * pages (the heap asks for huge pages: runner/malloc-tune.c). */
void
lb_stacks_unzeroed_end(gboolean begun)
{
  if (!begun)
    return;
  unzeroed_bytes = 0;
  gsize page = (gsize)sysconf(_SC_PAGESIZE);
  guintptr from = (lowest + page - 1) & ~(guintptr)(page - 1);
  guintptr to = highest & ~(guintptr)(page - 1);
  if (lowest != 0 && to > from)
    madvise((void *)from, to - from, MADV_NOHUGEPAGE);
}
