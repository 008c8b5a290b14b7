/* The C library's allocator tuned for SimGrid's pattern of frees. */
#pragma once

/* Restarts this process once (execv of /proc/self/exe with argv) with a
 * deep thread cache, unless it is tuned already, under valgrind or built
 * with the address sanitizer; returns when it does not restart. */
void lb_malloc_tune(char **argv);
