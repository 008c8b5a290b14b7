/* Space-filling curves over a grid of 2^order cells per axis, in 2D or 3D,
 * as pure arithmetic: the position of a cell along the curve and back.
 *
 * Both curves are recursive: the cells of every aligned cube of side 2^s
 * (its corner a multiple of 2^s on every axis) hold one run of 2^(dim*s)
 * consecutive positions, whose first is a multiple of 2^(dim*s). So a cube
 * at level l of a 2^order grid (side 2^(order-l), coordinates c in the
 * 2^l grid of its level) occupies exactly
 *   [lb_curve_cube_start(kind, dim, order, l, c), + 2^(dim*(order-l)))
 * of the order-`order` curve, and a visit of an H-tree that orders its
 * hnodes by that start visits every hnode's sub-spaces recursively, each
 * one's before the next hnode of its level. Coarser curves are prefixes
 * of finer ones: the position of c in the order-l curve is the position
 * of c << (order - l) in the order-`order` curve, shifted right by
 * dim * (order - l).
 *
 * Hilbert: two consecutive cells differ by 1 on one axis. At every order
 * the curve enters at the origin cell and leaves at (2^order - 1, 0[, 0]).
 * At order 1 it visits, in 2D, (0,0) (0,1) (1,1) (1,0) and, in 3D,
 * (0,0,0) (0,0,1) (0,1,1) (0,1,0) (1,1,0) (1,1,1) (1,0,1) (1,0,0): the
 * binary reflected Gray code with axis 0 as its highest bit; at every
 * order the halves of each axis are visited in that order (prefixes).
 * It is Butz's Hilbert curve in the formulation of J. Skilling,
 * "Programming the Hilbert curve", AIP Conference Proceedings 707, 2004.
 *
 * Morton (Z-order): the bits of the coordinates interleaved, axis 0 the
 * lowest bit of each group of dim bits. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  LB_CURVE_HILBERT,
  LB_CURVE_MORTON,
} LbCurveKind;

/* dim * order must fit: order up to 31 in 2D and 21 in 3D. */
#define LB_CURVE_MAX_BITS 63

/* "hilbert" or "morton"; FALSE for any other name. */
gboolean lb_curve_parse(const char *name, LbCurveKind *out);
const char *lb_curve_name(LbCurveKind kind);

/* The largest order of a dim-dimensional curve: LB_CURVE_MAX_BITS / dim. */
guint lb_curve_max_order(guint dim);

/* Position along the order-`order` curve, in [0, 2^(dim*order)), of the
 * cell with coordinates c[0..dim), each in [0, 2^order). dim is 2 or 3. */
guint64 lb_curve_index(LbCurveKind kind, guint dim, guint order, const guint32 *c);

/* lb_curve_index of the cell at Morton position morton (its coordinates
 * interleaved, as lb_curve_index(LB_CURVE_MORTON, ...) gives it): the
 * location code of an H-tree node read without decoding it. */
guint64 lb_curve_index_of_morton(LbCurveKind kind, guint dim, guint order, guint64 morton);

/* The 2D Hilbert index of the cell at Morton position morton
 * (lb_curve_index_of_morton's, with no checks), inline for the keys of
 * H-trees: by whole bytes, the order rounded up to four levels, the
 * missing low levels zeros, and their bits dropped from the index (coarser
 * curves are prefixes of finer ones). The table is curve.c's state machine
 * four levels at a time: [state][Morton byte] = index bits << 2 | state. */
extern guint16 lb_curve_hilbert2_bytes[4][256];

static inline guint64
lb_curve_hilbert2_of_morton(guint order, guint64 morton)
{
  guint pad = (4 - order % 4) % 4;
  morton <<= 2 * pad;
  guint64 index = 0;
  guint s = 0;
  for (guint b = order + pad; b > 0; b -= 4) {
    guint e = lb_curve_hilbert2_bytes[s][morton >> (2 * b - 8) & 0xff];
    index = index << 8 | e >> 2;
    s = e & 3;
  }
  return index >> (2 * pad);
}

/* The inverse: the coordinates c[0..dim) of the cell at position index. */
void lb_curve_coords(LbCurveKind kind, guint dim, guint order, guint64 index, guint32 *c);

/* The curve position of the first cell of the aligned cube of side
 * 2^(order-level) at coordinates c of level `level` (each in
 * [0, 2^level)), in the order-`order` curve: the key of an hnode. */
guint64 lb_curve_cube_start(LbCurveKind kind, guint dim, guint order, guint level,
                            const guint32 *c);

G_END_DECLS
