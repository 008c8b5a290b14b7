/* Where huge pages are kept out of a simulation: the actors' stacks, and
 * runs too small to gain from them (runner/malloc-tune.c asks the C library
 * for them); and what the heap of such a run keeps. */
#pragma once

#include <glib.h>

/* Runs of at least this many ranks simulate with huge pages. */
#define LB_HUGE_PAGES_MIN_RANKS 4096

/* Holds huge pages off for the whole process; returns whether it did (not
 * when they were off already, which stays). */
gboolean lb_huge_pages_hold(void);

/* Undoes a hold that lb_huge_pages_hold reported (held FALSE: nothing). */
void lb_huge_pages_release(gboolean held);

/* For a run of fewer than LB_HUGE_PAGES_MIN_RANKS ranks: blocks of up to
 * 32 MiB come from the heap and stay there once freed, where
 * runner/malloc-tune.c has every block over 128 KiB mapped on its own. */
void lb_heap_keep_large_blocks(void);
