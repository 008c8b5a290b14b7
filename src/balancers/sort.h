/* Stable sorts that compare inline, for arrays sorted on a simulation's
 * path: g_array_sort calls its comparator through a pointer and moves
 * elements as bytes, several times the cost for the small records the
 * balancers sort by the thousand a step. */
#pragma once

#include <string.h>
#include <glib.h>

#define LB_SORT_RUN 16

/* Defines `static void name(type *a, gsize n)`, a stable sort by before(x,
 * y) (a `static inline gboolean` of two `const type *`: x goes strictly
 * before y): insertion sort on runs of LB_SORT_RUN, then merges through a
 * buffer from the heap (one on the stack would grow every rank's stack:
 * 19 MiB more at 4096 ranks). An array already in order is left after one
 * pass over it. */
#define LB_DEFINE_SORT(name, type, before)                                                         \
  static void name(type *a, gsize n)                                                               \
  {                                                                                                \
    gsize sorted = 1;                                                                              \
    while (sorted < n && !before(&a[sorted], &a[sorted - 1]))                                      \
      sorted++;                                                                                    \
    if (sorted >= n)                                                                               \
      return;                                                                                      \
    for (gsize lo = 0; lo < n; lo += LB_SORT_RUN) {                                                \
      gsize hi = MIN(lo + LB_SORT_RUN, n);                                                         \
      for (gsize i = lo + 1; i < hi; i++) {                                                        \
        type v = a[i];                                                                             \
        gsize j = i;                                                                               \
        for (; j > lo && before(&v, &a[j - 1]); j--)                                               \
          a[j] = a[j - 1];                                                                         \
        a[j] = v;                                                                                  \
      }                                                                                            \
    }                                                                                              \
    if (n <= LB_SORT_RUN)                                                                          \
      return;                                                                                      \
    g_autofree type *tmp = g_new(type, n);                                                         \
    type *from = a, *to = tmp;                                                                     \
    for (gsize width = LB_SORT_RUN; width < n; width *= 2) {                                       \
      for (gsize lo = 0; lo < n; lo += 2 * width) {                                                \
        gsize mid = MIN(lo + width, n), hi = MIN(lo + 2 * width, n), i = lo, j = mid, k = lo;      \
        while (i < mid && j < hi)                                                                  \
          to[k++] = before(&from[j], &from[i]) ? from[j++] : from[i++];                            \
        while (i < mid)                                                                            \
          to[k++] = from[i++];                                                                     \
        while (j < hi)                                                                             \
          to[k++] = from[j++];                                                                     \
      }                                                                                            \
      type *swap = from;                                                                           \
      from = to;                                                                                   \
      to = swap;                                                                                   \
    }                                                                                              \
    if (from != a)                                                                                 \
      memcpy(a, from, n * sizeof(type));                                                           \
  }
