/* Work units and load patterns: loads as pure functions of a position in
 * [0,1)^dim and the adaptation step, shared by every work model. */
#pragma once

#include <glib.h>
#include <math.h>

G_BEGIN_DECLS

/* A work unit: identified by a stable id (for grids, the cell's index in
 * the model's linear order), with a non-negative integer load. */
typedef struct {
  guint64 id;
  guint64 load;
} LbUnit;

typedef enum {
  LB_PATTERN_UNIFORM,
  LB_PATTERN_RANDOM,
  LB_PATTERN_HOTSPOTS,
  LB_PATTERN_RAMP,
  LB_PATTERN_STEP,
  LB_PATTERN_FILE,
  LB_PATTERN_SHOCK,
  LB_PATTERN_CLUSTERS,
} LbPatternKind;

#define LB_MAX_DIM 3

/* A load pattern and its parameters (the [workload] pattern keys). */
typedef struct {
  LbPatternKind kind;
  guint64 seed;
  guint64 value;    /* uniform */
  guint64 min, max; /* random: inclusive range */
  guint hotspots;   /* hotspots: count */
  double width; /* hotspots, shock: std deviation; clusters: initial radius (domain fractions) */
  gboolean has_centre; /* hotspots, clusters: the first one's centre given */
  double centre[3];    /* its coordinates (fractions of the domain) */
  double amplitude;    /* hotspots, shock, clusters: peak load added */
  double drift;        /* hotspots, step, shock: fraction of the domain moved per step */
  guint64 base;        /* hotspots, shock, clusters: background load */
  guint64 from, to;    /* ramp (along the first axis) */
  guint64 low, high;   /* step */
  double at;           /* step, shock: position of the edge or front at step 0 */
  double angle;        /* shock: direction of the front's normal in the x-y plane, degrees */
  double elevation;    /* shock: angle of the normal out of the x-y plane (3D), degrees */
  guint clusters;      /* clusters: count */
  double growth;       /* clusters: radius added per step after appearing */
  guint interval;      /* clusters: steps between two appearances */
  guint64 *file_loads; /* file: one load per unit, in the model's linear order */
  guint64 file_len;
} LbPattern;

void lb_pattern_clear(LbPattern *pattern);

/* What a pattern needs at one adaptation step (hot-spot centres and the
 * buckets that find them), computed once per step and rank. */
typedef struct _LbPatternAt LbPatternAt;

LbPatternAt *lb_pattern_at_new(const LbPattern *pattern, guint dim, guint adaptation);
/* The same at a time between steps (a model whose steps are finer than
 * the pattern's: time in adaptation steps, 2.5 halfway through the third). */
LbPatternAt *lb_pattern_at_time(const LbPattern *pattern, guint dim, double time);
/* Readies it for many loads on a grid of size[0..dim) cells (tables along
 * each axis): the loads are the same, only faster. */
void lb_pattern_at_prepare(LbPatternAt *step, const LbPattern *pattern, const guint64 *size);
void lb_pattern_at_free(LbPatternAt *step);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LbPatternAt, lb_pattern_at_free)

/* A moving feature of a pattern at a step, for models that place elements
 * where the load is rather than read loads per cell. */
typedef struct {
  double centre[LB_MAX_DIM];
  double height; /* hot spot: its peak; cluster: the pattern's amplitude */
  double radius; /* cluster: its radius at the step, < 0 before it appears; hot spot: 0 */
} LbPatternSpot;

/* The hot spots or clusters of a pattern at a step (0 for other patterns). */
guint lb_pattern_at_spots(const LbPatternAt *step);
LbPatternSpot lb_pattern_at_spot(const LbPatternAt *step, guint k);
/* Shock: the front's position along its unit normal (dim values) at the
 * step. */
double lb_pattern_at_front(const LbPatternAt *step, double *normal);

/* Load of the cell with integer coordinates index[0..dim) in a grid of
 * size[0..dim) cells (first axis fastest), whose linear id is id. */
guint64 lb_pattern_load(const LbPattern *pattern, const LbPatternAt *step, guint dim,
                        const guint64 *index, const guint64 *size, guint64 id);
/* The loads of n units of that grid, from their ids: each what
 * lb_pattern_load gives its cell, faster on runs of consecutive ids. */
void lb_pattern_load_units(const LbPattern *pattern, const LbPatternAt *step, guint dim,
                           const guint64 *size, LbUnit *units, gsize n);

/* The cells of one row of that grid whose load reaches a threshold,
 * found without evaluating each cell, where the pattern can: a shock's
 * load falls with the distance to its front, so along any row the cells
 * at or above a threshold are one interval. lb_pattern_has_rows says
 * whether the pattern can; lb_pattern_rows_new returns NULL for the
 * other patterns (evaluate each cell), else an object that
 * gives, for the row through index (index[axis] ignored) from lo to hi
 * along axis, the interval [*start, *end) of cells whose lb_pattern_load
 * is at least threshold (start == end: none): exactly those. */
typedef struct _LbPatternRows LbPatternRows;
gboolean lb_pattern_has_rows(const LbPattern *pattern);
LbPatternRows *lb_pattern_rows_new(const LbPattern *pattern, const LbPatternAt *step, guint dim,
                                   const guint64 *size, guint64 threshold);
void lb_pattern_rows_find(const LbPatternRows *rows, const guint64 *index, guint axis, guint64 lo,
                          guint64 hi, guint64 *start, guint64 *end);
void lb_pattern_rows_free(LbPatternRows *rows);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LbPatternRows, lb_pattern_rows_free)

/* An upper bound of any cell's load at any step (for the 2^62 check). */
double lb_pattern_max_load(const LbPattern *pattern);

/* llround(v) as a load, without the library call on the common path:
 * for 0 <= v < 2^52, v minus its truncation is exact, so comparing it with
 * one half rounds halves away from zero exactly as llround does. */
static inline guint64
lb_round_load(double v)
{
  if (!(v >= 0 && v < 0x1p52))
    return (guint64)llround(v);
  guint64 t = (guint64)v;
  return t + (v - (double)t >= 0.5);
}

/* A 64-bit mixer (splitmix64's finaliser): seeded loads, id checksums. */
static inline guint64
lb_hash64(guint64 x)
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* Bit interleaving for 2D and 3D location codes and curves: bit i of x
 * moved to bit dim * i (the 32 low bits of x in 2D, its 21 low bits in
 * 3D), and back. */
static inline guint64
lb_bits_spread(guint dim, guint64 x)
{
  if (dim == 2) {
    x &= 0xffffffffull;
    x = (x | x << 16) & 0x0000ffff0000ffffull;
    x = (x | x << 8) & 0x00ff00ff00ff00ffull;
    x = (x | x << 4) & 0x0f0f0f0f0f0f0f0full;
    x = (x | x << 2) & 0x3333333333333333ull;
    return (x | x << 1) & 0x5555555555555555ull;
  }
  x &= 0x1fffffull;
  x = (x | x << 32) & 0x001f00000000ffffull;
  x = (x | x << 16) & 0x001f0000ff0000ffull;
  x = (x | x << 8) & 0x100f00f00f00f00full;
  x = (x | x << 4) & 0x10c30c30c30c30c3ull;
  return (x | x << 2) & 0x1249249249249249ull;
}

static inline guint32
lb_bits_gather(guint dim, guint64 x)
{
  if (dim == 2) {
    x &= 0x5555555555555555ull;
    x = (x | x >> 1) & 0x3333333333333333ull;
    x = (x | x >> 2) & 0x0f0f0f0f0f0f0f0full;
    x = (x | x >> 4) & 0x00ff00ff00ff00ffull;
    x = (x | x >> 8) & 0x0000ffff0000ffffull;
    return (guint32)((x | x >> 16) & 0xffffffffu);
  }
  x &= 0x1249249249249249ull;
  x = (x | x >> 2) & 0x10c30c30c30c30c3ull;
  x = (x | x >> 4) & 0x100f00f00f00f00full;
  x = (x | x >> 8) & 0x001f0000ff0000ffull;
  x = (x | x >> 16) & 0x001f00000000ffffull;
  return (guint32)((x | x >> 32) & 0x1fffffu);
}

/* Whitespace-separated non-negative integers; a NUL byte is an error. */
gboolean lb_read_integers(const char *path, GArray **values, GError **error);
/* The line (from 1) of the first NUL byte in text[0 .. length), 0 when
 * there is none: a file lbsim reads as text is refused there, since a C
 * string would end at it and what follows would go unread. */
guint lb_text_nul_line(const char *text, gsize length);

G_END_DECLS
