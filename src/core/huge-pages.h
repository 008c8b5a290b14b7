/* Where huge pages are kept out of a simulation: the actors' stacks, and
 * runs too small to gain from them (runner/malloc-tune.c asks the C library
 * for them). */
#pragma once

#include <glib.h>

/* Runs of at least this many ranks simulate with huge pages. */
#define LB_HUGE_PAGES_MIN_RANKS 4096

/* Holds huge pages off for the whole process; returns whether it did (not
 * when they were off already, which stays). */
gboolean lb_huge_pages_hold(void);

/* Undoes a hold that lb_huge_pages_hold reported (held FALSE: nothing). */
void lb_huge_pages_release(gboolean held);
