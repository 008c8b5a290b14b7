/* The arithmetic of Load Balancing by Dimension, free of messaging: boxes,
 * the load-balance metric along an axis, and where cuts go from measured
 * loads. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A box of cells, half-open along each axis. */
typedef struct {
  guint64 lo[3], hi[3];
} LbdBox;

static inline guint64
lbd_box_cells(const LbdBox *b, guint dim)
{
  guint64 n = 1;
  for (guint a = 0; a < dim; a++)
    n *= b->hi[a] > b->lo[a] ? b->hi[a] - b->lo[a] : 0;
  return n;
}

/* Whether two boxes share at least one cell. */
gboolean lbd_boxes_meet(const LbdBox *a, const LbdBox *b, guint dim);

/* The metric of a set of slabs: max / mean - 1 of their loads (0 when
 * there is no load). The document's f_I over columns and f_J over rows. */
double lbd_metric(const guint64 *slab_loads, guint n);

/* New cuts along `axis` of the range [lo, hi) into `parts` slabs of equal
 * estimated load. A rank knows only the load of each subset (after MESH),
 * so the load is taken as spread evenly over each box: box b adds
 * loads[b] / width_b to every cell of its extent along the axis. cuts[0] =
 * lo, cuts[parts] = hi, and cut k is the cell boundary whose estimated
 * prefix is nearest to k / parts of the total (never before cut k - 1). */
void lbd_equalize_cuts(const LbdBox *boxes, const guint64 *loads, guint n, guint axis, guint64 lo,
                       guint64 hi, guint parts, guint64 *cuts);

/* New cuts from the load profile along the axis: profile[x] is the load
 * of the cells at coordinate x (x in [0, width)), summed across the piece.
 * Cut k is the cell boundary whose prefix of the profile is nearest to k /
 * parts of the total (the earlier on a tie, never before cut k - 1), so
 * the slabs' loads are known exactly before anything moves: *loads gets
 * them (parts values). cuts[0] = 0, cuts[parts] = width. */
void lbd_profile_cuts(const guint64 *profile, guint64 width, guint parts, guint64 *cuts,
                      guint64 *loads);

/* The best cuts of the profile: the least bottleneck B that any cuts into
 * `parts` contiguous slabs reach (the heaviest slab as light as it can
 * be, so the metric as low as it can be), and among the cuts that reach
 * it, each cut as near lbd_profile_cuts' as B allows (those very cuts
 * when they reach B). Returns B; cuts and *loads as lbd_profile_cuts. */
guint64 lbd_best_cuts(const guint64 *profile, guint64 width, guint parts, guint64 *cuts,
                      guint64 *loads);

G_END_DECLS
