/* Load generators and the 1D array work-unit model. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A work unit: an element of the load array, identified by its global index. */
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
} LbPattern;

typedef enum {
  LB_DISTRIBUTION_BLOCK,
  LB_DISTRIBUTION_RANDOM,
  LB_DISTRIBUTION_FILE,
} LbDistribution;

typedef struct {
  guint64 size;
  guint64 seed;
  LbPattern pattern;
  guint64 value;            /* uniform */
  guint64 min, max;         /* random: inclusive range */
  guint hotspots;           /* hotspots: count */
  double width;             /* hotspots: std deviation, fraction of the array */
  double amplitude;         /* hotspots: peak load added */
  double drift;             /* hotspots, step: fraction of the array moved per step */
  guint64 base;             /* hotspots: background load */
  guint64 from, to;         /* ramp */
  guint64 low, high;        /* step */
  double at;                /* step: position of the edge, fraction of the array */
  guint64 *file_loads;      /* file: size entries */
  LbDistribution distribution;
  guint64 *counts;          /* file distribution: one count per rank */
  guint counts_len;
} LbArray1d;

void lb_array1d_clear(LbArray1d *array);

/* A 64-bit mixer (splitmix64's finaliser): seeded loads, id checksums. */
static inline guint64
lb_hash64(guint64 x)
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* Load of element id at adaptation step (pure: same inputs, same load). */
guint64 lb_array1d_load(const LbArray1d *array, guint64 id, guint step);
/* The same for many units at once (cheaper per element). */
void lb_array1d_update(const LbArray1d *array, LbUnit *units, gsize n, guint step);

/* bounds[r] .. bounds[r + 1] is the block of ids rank r starts with (ranks + 1 entries). */
void lb_array1d_initial_bounds(const LbArray1d *array, guint ranks, guint64 *bounds);

/* Whitespace-separated non-negative integers. */
gboolean lb_read_integers(const char *path, GArray **values, GError **error);

G_END_DECLS
