/* The stack SimGrid gives each rank's actor. Below LB_GUARD_PAGES_MAX_RANKS
 * every stack has a guard page below it, which turns an overflow into a
 * crash, and only the pages a rank's calls reach are resident. Each guarded
 * stack is two mappings, so past about 32000 actors the kernel's limit on a
 * process's mappings (65530) is reached: there the stacks go without guard
 * pages, and SimGrid takes them from the heap zeroed, every page resident
 * (a 48 KiB stack: 768 MiB at 16384 ranks against the 10 KiB a rank of mlb
 * touches). The small stack is four times what every family's shipped
 * scenarios run in with guard pages (8 KiB runs them, 4 KiB crashes);
 * tests/test-cli.c runs every family with guard pages and half of it, so a
 * balancer whose calls grow deeper fails there before a large run
 * overflows silently. --cfg contexts/stack-size:KIB overrides either. */
#pragma once

#define LB_STACK_KIB 128
#define LB_SMALL_STACK_KIB 32
#define LB_GUARD_PAGES_MAX_RANKS 30000
