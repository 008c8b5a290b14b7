/* The undirected task dependence graph of a column partition
 * (BUILD_UNDIRECTED_TDG of the Load Balancing by Dimension document):
 * straight cuts across the domain make columns, and each column has cuts of
 * its own that make its subsets. Pure arithmetic, no messages. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Column c spans x in [xcuts[c], xcuts[c + 1]); its subset r spans y in
 * [ycuts[c * (nrows + 1) + r], ycuts[c * (nrows + 1) + r + 1]). Subset
 * c * nrows + r is subset r of column c, as the document numbers them
 * (down each column, then the next column). Cuts never decrease; equal cuts
 * make empty subsets or columns. */
typedef struct {
  guint ncols, nrows;
  const guint64 *xcuts; /* ncols + 1 */
  const guint64 *ycuts; /* ncols * (nrows + 1) */
} LbColumns;

static inline guint64
lb_tdg_column_y(const LbColumns *p, guint column, guint cut)
{
  return p->ycuts[(gsize)column * (p->nrows + 1) + cut];
}

/* Appends to out (guint) the neighbours of a subset in ascending order,
 * each once: the subsets of its column above and below it, and those of
 * the nearest non-empty columns left and right whose y ranges overlap its
 * own, found from those columns' cuts as the document's pseudocode walks
 * them. An empty subset has no neighbours and is no one's. */
void lb_tdg_neighbours(const LbColumns *p, guint subset, GArray *out);

/* The same relation by brute force over every pair of rectangles: two
 * non-empty rectangles are neighbours when they share an edge of positive
 * length. For tests. */
void lb_tdg_brute_force(const LbColumns *p, guint subset, GArray *out);

G_END_DECLS
