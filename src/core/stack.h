/* The stack SimGrid gives each rank's actor. Below LB_GUARD_PAGES_MAX_RANKS
 * every stack has a guard page below it, which turns an overflow into a
 * crash, and only the pages a rank's calls reach are resident. Each guarded
 * stack is two mappings, so past about 32000 actors the kernel's limit on a
 * process's mappings (65530) is reached: there the stacks go without guard
 * pages, and SimGrid takes them from the heap with calloc, which lbsim
 * keeps from clearing them (core/stack.c): again only the pages a rank
 * touches are resident (mlb: 12 KiB a rank). The small stack is four
 * times what every family's shipped scenarios run in with guard pages (8
 * KiB runs them, 4 KiB crashes); tests/test-cli.c runs every family with
 * guard pages and half of it, so a balancer whose calls grow deeper fails
 * there before a large run overflows silently. --cfg contexts/stack-size:KIB
 * (and contexts/guard-size:BYTES) overrides either. */
#pragma once

#include <glib.h>

#define LB_STACK_KIB 128
#define LB_SMALL_STACK_KIB 32
#define LB_GUARD_PAGES_MAX_RANKS 30000

/* Stacks of fewer bytes come from the heap (glibc's mmap threshold, as
 * runner/malloc-tune.c sets it): those are the ones calloc would clear. */
#define LB_UNZEROED_STACK_MAX_BYTES (128 * 1024)

/* Until lb_stacks_unzeroed_end, the actors' stacks SimGrid makes are not
 * cleared (core/stack.c says why), when its settings (contexts/guard-size,
 * contexts/stack-size) give them no guard pages. Returns whether it began:
 * not under sanitizers, not for stacks that come from their own mappings
 * anyway. */
gboolean lb_stacks_unzeroed_begin(void);
void lb_stacks_unzeroed_end(gboolean begun);
