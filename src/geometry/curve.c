/* Hilbert and Morton curves in 2D and 3D (curve.h). */
#include "geometry/curve.h"
#include "lbsim/workload.h"

#include <string.h>

gboolean
lb_curve_parse(const char *name, LbCurveKind *out)
{
  if (g_strcmp0(name, "hilbert") == 0)
    *out = LB_CURVE_HILBERT;
  else if (g_strcmp0(name, "morton") == 0)
    *out = LB_CURVE_MORTON;
  else
    return FALSE;
  return TRUE;
}

const char *
lb_curve_name(LbCurveKind kind)
{
  return kind == LB_CURVE_HILBERT ? "hilbert" : "morton";
}

guint
lb_curve_max_order(guint dim)
{
  return LB_CURVE_MAX_BITS / dim;
}

/* If axis a has bit q, reflect the bits below q of axis 0, else swap the
 * bits below q of axes 0 and a; without branches, which the bits of
 * coordinates would defeat. The step is its own inverse. */
static inline void
reflect_or_swap(guint32 *x, guint a, guint32 q, guint32 low)
{
  guint32 set = (guint32)0 - ((x[a] & q) != 0);
  guint32 differ = (x[0] ^ x[a]) & low & ~set;
  x[0] ^= (low & set) | differ;
  x[a] ^= differ;
}

/* Skilling's transform of the coordinates x[0..dim) into the "transposed"
 * Hilbert index: bit b of x[a] becomes bit dim * b + (dim - 1 - a) of the
 * index. From the top level down, each level's sub-cube is reflected or
 * has its axes swapped so that the curve inside it runs like the curve of
 * order 1; then the levels' Gray codes are decoded into binary. */
static inline void
axes_to_transposed(guint dim, guint order, guint32 *x)
{
  for (guint b = order - 1; b > 0; b--) {
    guint32 q = (guint32)1 << b, low = q - 1;
    for (guint a = 0; a < dim; a++)
      reflect_or_swap(x, a, q, low);
  }
  for (guint a = 1; a < dim; a++)
    x[a] ^= x[a - 1];
  guint32 flip = 0;
  for (guint b = order - 1; b > 0; b--)
    flip ^= (((guint32)1 << b) - 1) & ((guint32)0 - (x[dim - 1] >> b & 1));
  for (guint a = 0; a < dim; a++)
    x[a] ^= flip;
}

/* The inverse of axes_to_transposed, its steps undone in reverse order. */
static inline void
transposed_to_axes(guint dim, guint order, guint32 *x)
{
  guint32 flip = x[dim - 1] >> 1;
  for (guint a = dim - 1; a > 0; a--)
    x[a] ^= x[a - 1];
  x[0] ^= flip;
  for (guint b = 1; b < order; b++) {
    guint32 q = (guint32)1 << b, low = q - 1;
    for (guint a = dim; a-- > 0;)
      reflect_or_swap(x, a, q, low);
  }
}

/* Skilling's 2D curve as a machine of four states, derived from the
 * transform above and checked against its inverse (tests/test-curve.c):
 * at each level from the top, the state and the level's Morton digit (y
 * << 1 | x) give two bits of the index (entry >> 2) and the next state
 * (entry & 3). It does a level in a table look-up where the transform
 * takes two reflections or swaps, and four levels at once with
 * lb_curve_hilbert2_bytes. Indexed by Morton digits, it reads an H-tree's location
 * codes (their coordinates interleaved the same way) as they are. */
static const guint8 hilbert2_level[4][4] = {
    {1, 14, 4, 8},
    {0, 5, 15, 9},
    {10, 12, 6, 3},
    {11, 7, 13, 2},
};

/* Four levels: [state][Morton byte] = index bits << 2 | state (curve.h),
 * filled when the library is loaded, before anything can read it. */
guint16 lb_curve_hilbert2_bytes[4][256];

__attribute__((constructor)) static void
fill_hilbert2_bytes(void)
{
  for (guint state = 0; state < 4; state++)
    for (guint digits = 0; digits < 256; digits++) {
      guint s = state, bits = 0;
      for (guint b = 4; b-- > 0;) {
        guint e = hilbert2_level[s][digits >> (2 * b) & 3];
        bits = bits << 2 | e >> 2;
        s = e & 3;
      }
      lb_curve_hilbert2_bytes[state][digits] = (guint16)(bits << 2 | s);
    }
}

static void
check_args(guint dim, guint order)
{
  g_assert(dim == 2 || dim == 3);
  g_assert(dim * order <= LB_CURVE_MAX_BITS);
}

static guint64
morton_of(guint dim, const guint32 *c)
{
  guint64 morton = 0;
  for (guint a = 0; a < dim; a++)
    morton |= lb_bits_spread(dim, c[a]) << a;
  return morton;
}

/* A constant dim lets the compiler unroll the axes and keep them in
 * registers. */
static guint64
hilbert3_index(guint order, const guint32 *c)
{
  guint32 x[3] = {c[0], c[1], c[2]};
  axes_to_transposed(3, order, x);
  guint64 index = 0;
  for (guint a = 0; a < 3; a++)
    index |= lb_bits_spread(3, x[a]) << (2 - a);
  return index;
}

guint64
lb_curve_index(LbCurveKind kind, guint dim, guint order, const guint32 *c)
{
  check_args(dim, order);
  for (guint a = 0; a < dim; a++)
    g_assert((guint64)c[a] >> order == 0);
  if (order == 0)
    return 0;
  if (kind == LB_CURVE_MORTON)
    return morton_of(dim, c);
  if (dim == 2)
    return lb_curve_hilbert2_of_morton(order, morton_of(2, c));
  return hilbert3_index(order, c);
}

guint64
lb_curve_index_of_morton(LbCurveKind kind, guint dim, guint order, guint64 morton)
{
  check_args(dim, order);
  g_assert(order == 0 ? morton == 0 : morton >> (dim * order - 1) >> 1 == 0);
  if (order == 0 || kind == LB_CURVE_MORTON)
    return morton;
  if (dim == 2)
    return lb_curve_hilbert2_of_morton(order, morton);
  guint32 c[3];
  for (guint a = 0; a < 3; a++)
    c[a] = lb_bits_gather(3, morton >> a);
  return hilbert3_index(order, c);
}

void
lb_curve_coords(LbCurveKind kind, guint dim, guint order, guint64 index, guint32 *c)
{
  check_args(dim, order);
  g_assert(order == 0 ? index == 0 : index >> (dim * order - 1) >> 1 == 0);
  if (kind == LB_CURVE_MORTON) {
    for (guint a = 0; a < dim; a++)
      c[a] = lb_bits_gather(dim, index >> a);
    return;
  }
  guint32 x[3];
  for (guint a = 0; a < dim; a++)
    x[a] = lb_bits_gather(dim, index >> (dim - 1 - a));
  if (dim == 2)
    transposed_to_axes(2, order, x);
  else
    transposed_to_axes(3, order, x);
  memcpy(c, x, dim * sizeof *c);
}

/* Coarser curves being prefixes of finer ones, the cube's first cell is
 * its position in the level's own curve, followed by zeros. */
guint64
lb_curve_cube_start(LbCurveKind kind, guint dim, guint order, guint level, const guint32 *c)
{
  check_args(dim, order);
  g_assert(level <= order);
  return lb_curve_index(kind, dim, level, c) << (dim * (order - level));
}
