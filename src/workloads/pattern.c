/* Load patterns as pure functions of (cell, adaptation step): every rank
 * sets the loads of the cells it holds without a message. Positions are cell
 * centres in [0,1)^dim; the domain wraps, so moving features that leave one
 * side come back at the other and a long run keeps its load. */
#include "lbsim/workload.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BUCKETS 4096

/* Random streams: axis 0 keeps the streams of the 1D array, so 1D loads are
 * what they were before patterns went n-dimensional. */
enum {
  STREAM_CENTRE = 1,
  STREAM_STRENGTH = 2,
  STREAM_DIRECTION = 3,
  STREAM_CENTRE_AXIS = 16,    /* + axis, axes >= 1 */
  STREAM_DIRECTION_AXIS = 32, /* + axis, axes >= 1 */
  STREAM_CLUSTER = 64,        /* + axis */
};

typedef struct {
  double centre[LB_MAX_DIM];
  double height;
  double reach2; /* squared distance (in widths) beyond which it adds nothing */
  double radius; /* clusters: radius at this step, < 0 before it appears */
} Spot;

struct _LbPatternAt {
  guint dim;
  guint nspots;
  Spot *spots;
  /* hotspots: spots whose reach along the first axis meets bucket b, in
   * spot order, so that sums are added in the same order as without them */
  guint *bucket_start; /* BUCKETS + 1 */
  guint *bucket_spots;
  guint *spot_first, *spot_span; /* spot k is in buckets first + [0, span), wrapping */
  /* hotspots on a grid of `table_size` cells, per spot and axis (spot k,
   * axis a, index i at (k * dim + a) * row + i, row the largest size):
   * each cell centre's squared distance in widths and its factor */
  guint64 table_size[LB_MAX_DIM];
  gsize table_row;
  double *table_z2, *table_factor;
  /* per spot, table_row + 1 counts: of the first axis' indices below i,
   * how many are within the spot's reach along that axis alone */
  guint32 *table_near_x;
  double front; /* shock: position of the front along the normal */
  double edge;  /* step: position of the edge along the first axis */
  double normal[LB_MAX_DIM];
};

static double
unit_random(guint64 seed, guint64 stream, guint64 i)
{
  return (double)(lb_hash64(seed ^ lb_hash64(stream * 0x100000001b3ull + i)) >> 11) * 0x1.0p-53;
}

void
lb_pattern_clear(LbPattern *pattern)
{
  g_clear_pointer(&pattern->file_loads, g_free);
  pattern->file_len = 0;
}

/* Distance on the unit circle. */
static double
circle_distance(double a, double b)
{
  double d = fabs(a - b);
  return d > 0.5 ? 1.0 - d : d;
}

static double
wrap(double x)
{
  return x - floor(x);
}

/* A spot's contribution h exp(-z^2/2) can be skipped where it cannot change
 * the sum: below half an ulp of the background (every partial sum is at
 * least the background, so adding it leaves the double unchanged), or,
 * with no background, where it underflows to zero. The margin covers exp's
 * rounding. */
static double
reach2(double height, guint64 base)
{
  if (base == 0) /* below 2^-1075, a product rounds to zero */
    return 2.0 * (log(height) + 1075 * G_LN2) + 1.0;
  double tiny = (nextafter((double)base, INFINITY) - (double)base) / 2;
  if (height < tiny)
    return 0;
  return 2.0 * log(height / tiny) + 1.0;
}

/* Two passes over the spots in order (count, then place), so that every
 * bucket lists its spots in spot order. */
static void
fill_buckets(LbPatternAt *ps, double width)
{
  ps->bucket_start = g_new0(guint, BUCKETS + 1);
  guint *first = ps->spot_first = g_new(guint, ps->nspots);
  guint *span = ps->spot_span = g_new(guint, ps->nspots);
  for (guint k = 0; k < ps->nspots; k++) {
    /* a bucket of slack on each side covers rounding at bucket edges */
    double reach = width * sqrt(ps->spots[k].reach2) * (1 + 1e-9);
    double lo = ps->spots[k].centre[0] - reach;
    gboolean all = 2 * reach >= 1;
    guint covered = all ? BUCKETS : (guint)MIN(ceil(2 * reach * BUCKETS) + 4, (double)BUCKETS);
    first[k] = all ? 0 : (guint)((gint64)floor(lo * BUCKETS) - 1 + 2 * BUCKETS) % BUCKETS;
    span[k] = covered;
    for (guint i = 0; i < covered; i++)
      ps->bucket_start[(first[k] + i) % BUCKETS + 1]++;
  }
  for (guint b = 0; b < BUCKETS; b++)
    ps->bucket_start[b + 1] += ps->bucket_start[b];
  ps->bucket_spots = g_new(guint, ps->bucket_start[BUCKETS] + 1);
  g_autofree guint *fill = g_memdup2(ps->bucket_start, sizeof(guint) * BUCKETS);
  for (guint k = 0; k < ps->nspots; k++)
    for (guint i = 0; i < span[k]; i++)
      ps->bucket_spots[fill[(first[k] + i) % BUCKETS]++] = k;
}

LbPatternAt *
lb_pattern_at_new(const LbPattern *p, guint dim, guint adaptation)
{
  return lb_pattern_at_time(p, dim, (double)adaptation);
}

LbPatternAt *
lb_pattern_at_time(const LbPattern *p, guint dim, double adaptation)
{
  LbPatternAt *ps = g_new0(LbPatternAt, 1);
  ps->dim = dim;
  if (p->kind == LB_PATTERN_HOTSPOTS) {
    ps->nspots = p->hotspots;
    ps->spots = g_new0(Spot, ps->nspots);
    for (guint k = 0; k < p->hotspots; k++) {
      Spot *s = &ps->spots[k];
      for (guint a = 0; a < dim; a++) {
        double start = unit_random(p->seed, a == 0 ? STREAM_CENTRE : STREAM_CENTRE_AXIS + a, k);
        double direction =
            unit_random(p->seed, a == 0 ? STREAM_DIRECTION : STREAM_DIRECTION_AXIS + a, k) < 0.5
                ? -1.0
                : 1.0;
        if (k == 0 && p->has_centre)
          start = p->centre[a];
        double centre = start + direction * p->drift * adaptation;
        s->centre[a] = centre - floor(centre);
      }
      /* a placed spot is the pattern's own peak */
      s->height = k == 0 && p->has_centre
                      ? p->amplitude
                      : p->amplitude * (0.5 + 0.5 * unit_random(p->seed, STREAM_STRENGTH, k));
      s->reach2 = reach2(s->height, p->base);
    }
    fill_buckets(ps, p->width);
  } else if (p->kind == LB_PATTERN_CLUSTERS) {
    ps->nspots = p->clusters;
    ps->spots = g_new0(Spot, ps->nspots);
    for (guint k = 0; k < p->clusters; k++) {
      Spot *s = &ps->spots[k];
      for (guint a = 0; a < dim; a++)
        s->centre[a] =
            k == 0 && p->has_centre ? p->centre[a] : unit_random(p->seed, STREAM_CLUSTER + a, k);
      s->height = p->amplitude;
      double appear = (double)k * p->interval;
      s->radius = adaptation >= appear ? p->width + p->growth * (adaptation - appear) : -1.0;
    }
  } else if (p->kind == LB_PATTERN_STEP) {
    /* at = 1 puts the edge at the right end (all high); only a drifted edge wraps */
    ps->edge = p->at + p->drift * adaptation;
    if (ps->edge < 0.0 || ps->edge > 1.0)
      ps->edge -= floor(ps->edge);
  } else if (p->kind == LB_PATTERN_SHOCK) {
    double a = p->angle * G_PI / 180.0, e = p->elevation * G_PI / 180.0;
    double n[3] = {cos(a) * cos(e), sin(a) * cos(e), sin(e)};
    if (dim == 1)
      n[0] = 1;
    double norm = 0, lo = 0, hi = 0;
    for (guint i = 0; i < dim; i++)
      norm += n[i] * n[i];
    norm = sqrt(norm);
    for (guint i = 0; i < dim; i++) {
      ps->normal[i] = n[i] / norm;
      lo += MIN(ps->normal[i], 0);
      hi += MAX(ps->normal[i], 0);
    }
    /* The front sweeps the projections of the unit cube [lo, hi] and wraps. */
    double s = p->at + p->drift * adaptation;
    ps->front = lo + wrap(s) * (hi - lo);
    if (s == 1.0)
      ps->front = hi;
  }
  return ps;
}

void
lb_pattern_at_free(LbPatternAt *ps)
{
  if (ps == NULL)
    return;
  g_free(ps->spots);
  g_free(ps->table_z2);
  g_free(ps->table_factor);
  g_free(ps->table_near_x);
  g_free(ps->bucket_start);
  g_free(ps->bucket_spots);
  g_free(ps->spot_first);
  g_free(ps->spot_span);
  g_free(ps);
}

guint
lb_pattern_at_spots(const LbPatternAt *ps)
{
  return ps->nspots;
}

LbPatternSpot
lb_pattern_at_spot(const LbPatternAt *ps, guint k)
{
  g_return_val_if_fail(k < ps->nspots, (LbPatternSpot){{0}});
  const Spot *s = &ps->spots[k];
  LbPatternSpot out = {{0}, s->height, s->radius};
  for (guint a = 0; a < ps->dim; a++)
    out.centre[a] = s->centre[a];
  return out;
}

double
lb_pattern_at_front(const LbPatternAt *ps, double *normal)
{
  for (guint a = 0; a < ps->dim; a++)
    normal[a] = ps->normal[a];
  return ps->front;
}

static double
centre_of(guint64 index, guint64 size)
{
  return ((double)index + 0.5) / (double)size;
}

/* A hot spot's contribution is separable: height x the product over the
 * axes of exp(-z_a^2 / 2), z_a the distance along axis a in widths. It is
 * computed as that product (not as one exp of the sum), so that a table of
 * the factors along each axis gives the same doubles as computing them. */
static double
axis_z2(const LbPattern *p, const Spot *s, guint a, guint64 index, guint64 size)
{
  double z = circle_distance(centre_of(index, size), s->centre[a]) / p->width;
  return z * z;
}

/* Tables are made for grids of two or three axes, of at most this many
 * entries (spots x axes x the largest size); others compute each factor.
 * Along one axis a table would save no exp, only memory the size of the
 * array. */
#define TABLE_MAX_ENTRIES (1u << 20)

void
lb_pattern_at_prepare(LbPatternAt *ps, const LbPattern *p, const guint64 *size)
{
  if (p->kind != LB_PATTERN_HOTSPOTS || ps->nspots == 0 || ps->dim < 2)
    return;
  if (ps->table_z2 != NULL && memcmp(ps->table_size, size, ps->dim * sizeof(guint64)) == 0)
    return;
  g_clear_pointer(&ps->table_z2, g_free);
  g_clear_pointer(&ps->table_factor, g_free);
  g_clear_pointer(&ps->table_near_x, g_free);
  gsize row = 0;
  for (guint a = 0; a < ps->dim; a++)
    row = MAX(row, (gsize)size[a]);
  gsize entries = (gsize)ps->nspots * ps->dim * row;
  if (entries > TABLE_MAX_ENTRIES)
    return;
  ps->table_z2 = g_new(double, entries);
  ps->table_factor = g_new(double, entries);
  ps->table_row = row;
  for (guint a = 0; a < ps->dim; a++)
    ps->table_size[a] = size[a];
  for (guint k = 0; k < ps->nspots; k++)
    for (guint a = 0; a < ps->dim; a++) {
      gsize at = ((gsize)k * ps->dim + a) * row;
      for (guint64 i = 0; i < size[a]; i++) {
        double z2 = axis_z2(p, &ps->spots[k], a, i, size[a]);
        ps->table_z2[at + i] = z2;
        ps->table_factor[at + i] = exp(-0.5 * z2);
      }
    }
  ps->table_near_x = g_new(guint32, (gsize)ps->nspots * (row + 1));
  for (guint k = 0; k < ps->nspots; k++) {
    const double *z2_x = ps->table_z2 + (gsize)k * ps->dim * row;
    guint32 *near = ps->table_near_x + (gsize)k * (row + 1);
    near[0] = 0;
    for (guint64 i = 0; i < size[0]; i++)
      near[i + 1] = near[i] + (z2_x[i] <= ps->spots[k].reach2);
  }
}

static gboolean
has_table(const LbPatternAt *ps, guint dim, const guint64 *size)
{
  if (ps->table_z2 == NULL)
    return FALSE;
  for (guint a = 0; a < dim; a++)
    if (ps->table_size[a] != size[a])
      return FALSE;
  return TRUE;
}

static guint64
hotspots_load(const LbPattern *p, const LbPatternAt *ps, guint dim, const guint64 *index,
              const guint64 *size)
{
  guint b = MIN((guint)(centre_of(index[0], size[0]) * BUCKETS), BUCKETS - 1);
  gboolean table = has_table(ps, dim, size);
  double load = (double)p->base;
  for (guint i = ps->bucket_start[b]; i < ps->bucket_start[b + 1]; i++) {
    guint k = ps->bucket_spots[i];
    const Spot *s = &ps->spots[k];
    double z2a[LB_MAX_DIM], z2 = 0;
    for (guint a = 0; a < dim; a++) {
      z2a[a] = table ? ps->table_z2[((gsize)k * dim + a) * ps->table_row + index[a]]
                     : axis_z2(p, s, a, index[a], size[a]);
      z2 += z2a[a];
    }
    if (z2 > s->reach2)
      continue;
    double c = s->height;
    for (guint a = 0; a < dim; a++)
      c *= table ? ps->table_factor[((gsize)k * dim + a) * ps->table_row + index[a]]
                 : exp(-0.5 * z2a[a]);
    load += c;
  }
  return lb_round_load(load);
}

/* A cell's linear id (first axis fastest) to its coordinates. */
static void
index_of(guint64 id, guint dim, const guint64 *size, guint64 *index)
{
  if (dim == 1) {
    index[0] = id;
    return;
  }
  index[0] = id % size[0];
  index[1] = (id / size[0]) % size[1];
  if (dim == 3)
    index[2] = id / (size[0] * size[1]);
}

/* hotspots_load with the tables, for the units' cells: the same operations
 * in the same order for each cell, so the same doubles. Units that follow
 * each other along a row of the first axis (a box's cells row by row) are
 * taken as one run, spot by spot in spot order over the run's cells; for
 * each cell a spot counts when hotspots_load would count it: it is in the
 * cell's bucket, and its z^2 is within its reach (adding +0.0 otherwise
 * leaves the sum as it is). Along a row, a spot whose z^2 over the other
 * axes alone is past its reach is past it at every cell (adding z_0^2 >= 0
 * cannot round below it) and is left out of the row; so is one whose z^2
 * along x alone is past its reach at every cell of the run. */
static void
hotspots_table_units(const LbPattern *p, const LbPatternAt *ps, guint dim, const guint64 *size,
                     LbUnit *units, gsize n)
{
  gsize longest = (gsize)MIN((guint64)n, size[0]);
  g_autofree double *loads = g_new(double, longest);
  g_autofree guint *bucket = g_new(guint, longest);
  guint64 index[LB_MAX_DIM] = {0};
  for (gsize i = 0; i < n;) {
    index_of(units[i].id, dim, size, index);
    /* the run: consecutive ids up to the row's end */
    gsize len = 1;
    while (i + len < n && units[i + len].id == units[i].id + len && index[0] + len < size[0])
      len++;
    for (gsize x = 0; x < len; x++) {
      loads[x] = (double)p->base;
      bucket[x] = MIN((guint)(centre_of(index[0] + x, size[0]) * BUCKETS), BUCKETS - 1);
    }
    for (guint k = 0; k < ps->nspots; k++) {
      const Spot *s = &ps->spots[k];
      /* spot k's tables: axis a's row starts at a x table_row */
      gsize row = ps->table_row;
      const double *z2_k = ps->table_z2 + (gsize)k * dim * row;
      const double *factor_k = ps->table_factor + (gsize)k * dim * row;
      const double *z2_x = z2_k + index[0], *factor_x = factor_k + index[0];
      double z2_y = z2_k[row + index[1]], factor_y = factor_k[row + index[1]];
      double z2_z = 0, factor_z = 1;
      if (dim == 3) {
        z2_z = z2_k[2 * row + index[2]];
        factor_z = factor_k[2 * row + index[2]];
      }
      if ((dim == 3 ? z2_y + z2_z : z2_y) > s->reach2)
        continue;
      /* nor can it count at a cell out of reach along x alone */
      const guint32 *near = ps->table_near_x + (gsize)k * (row + 1);
      if (near[index[0] + len] == near[index[0]])
        continue;
      guint first = ps->spot_first[k], span = ps->spot_span[k];
      for (gsize x = 0; x < len; x++) {
        double z2 = z2_x[x] + z2_y;
        double c = s->height * factor_x[x] * factor_y;
        if (dim == 3) {
          z2 += z2_z;
          c *= factor_z;
        }
        gboolean counts = ((bucket[x] - first) & (BUCKETS - 1)) < span && z2 <= s->reach2;
        loads[x] += counts ? c : 0.0;
      }
    }
    for (gsize x = 0; x < len; x++)
      units[i + x].load = lb_round_load(loads[x]);
    i += len;
  }
}

void
lb_pattern_load_units(const LbPattern *p, const LbPatternAt *ps, guint dim, const guint64 *size,
                      LbUnit *units, gsize n)
{
  if (p->kind == LB_PATTERN_HOTSPOTS && has_table(ps, dim, size)) {
    hotspots_table_units(p, ps, dim, size, units, n);
    return;
  }
  guint64 index[LB_MAX_DIM] = {0};
  for (gsize i = 0; i < n; i++) {
    index_of(units[i].id, dim, size, index);
    units[i].load = lb_pattern_load(p, ps, dim, index, size, units[i].id);
  }
}

static guint64
clusters_load(const LbPattern *p, const LbPatternAt *ps, guint dim, const guint64 *index,
              const guint64 *size)
{
  double load = (double)p->base;
  for (guint k = 0; k < ps->nspots; k++) {
    const Spot *s = &ps->spots[k];
    if (s->radius < 0)
      continue;
    double d2 = 0;
    for (guint a = 0; a < dim; a++) {
      double d = circle_distance(centre_of(index[a], size[a]), s->centre[a]);
      d2 += d * d;
    }
    if (d2 <= s->radius * s->radius)
      load += p->amplitude;
  }
  return lb_round_load(load);
}

/* A shock's load is a function of z, the cell's distance to the front in
 * widths: shock_z and shock_at_z are the two halves of shock_load, the
 * same operations, so the row search below works on the same doubles. */
static double
shock_z(const LbPattern *p, const LbPatternAt *ps, guint dim, const guint64 *index,
        const guint64 *size)
{
  double along = 0;
  for (guint a = 0; a < dim; a++)
    along += ps->normal[a] * centre_of(index[a], size[a]);
  return (along - ps->front) / p->width;
}

static guint64
shock_at_z(const LbPattern *p, double z)
{
  return lb_round_load((double)p->base + p->amplitude * exp(-0.5 * z * z));
}

static guint64
shock_load(const LbPattern *p, const LbPatternAt *ps, guint dim, const guint64 *index,
           const guint64 *size)
{
  return shock_at_z(p, shock_z(p, ps, dim, index, size));
}

/* ---- rows at or above a threshold ---- */

struct _LbPatternRows {
  const LbPattern *p;
  const LbPatternAt *ps;
  guint dim;
  guint64 size[LB_MAX_DIM];
  /* a cell reaches the threshold exactly when its z is in [-reach, reach]
   * (reach < 0: no cell does) */
  double reach;
};

static guint64
double_bits(double x)
{
  guint64 b;
  memcpy(&b, &x, sizeof b);
  return b;
}

static double
bits_double(guint64 b)
{
  double x;
  memcpy(&x, &b, sizeof x);
  return x;
}

/* shock_at_z depends on z through z * z (the same double for z and -z)
 * and falls as |z| grows (exp, the product and the rounding are
 * monotonic), so the z that reach a threshold are [-reach, reach]: reach
 * is the largest non-negative double that does, found by bisection on the
 * doubles' bits (ordered as their values for non-negative doubles). */
static double
shock_reach(const LbPattern *p, guint64 threshold)
{
  if (shock_at_z(p, 0.0) < threshold)
    return -1;
  if (shock_at_z(p, INFINITY) >= threshold)
    return INFINITY;
  guint64 in = double_bits(0.0), out = double_bits(INFINITY);
  while (out - in > 1) {
    guint64 mid = in + (out - in) / 2;
    if (shock_at_z(p, bits_double(mid)) >= threshold)
      in = mid;
    else
      out = mid;
  }
  return bits_double(in);
}

gboolean
lb_pattern_has_rows(const LbPattern *p)
{
  return p->kind == LB_PATTERN_SHOCK;
}

LbPatternRows *
lb_pattern_rows_new(const LbPattern *p, const LbPatternAt *ps, guint dim, const guint64 *size,
                    guint64 threshold)
{
  if (!lb_pattern_has_rows(p))
    return NULL;
  LbPatternRows *rows = g_new0(LbPatternRows, 1);
  rows->p = p;
  rows->ps = ps;
  rows->dim = dim;
  memcpy(rows->size, size, dim * sizeof(guint64));
  rows->reach = shock_reach(p, threshold);
  return rows;
}

void
lb_pattern_rows_free(LbPatternRows *rows)
{
  g_free(rows);
}

/* Along a row z(i) is monotonic in i (each operation of shock_z is, in
 * the cell's centre along the axis): rising where the normal's component
 * along the axis is positive, falling where it is negative. */
typedef struct {
  const LbPatternRows *rows;
  guint64 index[LB_MAX_DIM];
  guint axis;
  double bound; /* past: z(i) >= bound (rising) or z(i) <= bound (falling) */
  gboolean rising, strict;
} RowSearch;

static gboolean
row_past(RowSearch *r, guint64 i)
{
  r->index[r->axis] = i;
  double z = shock_z(r->rows->p, r->rows->ps, r->rows->dim, r->index, r->rows->size);
  if (r->rising)
    return r->strict ? z > r->bound : z >= r->bound;
  return r->strict ? z < r->bound : z <= r->bound;
}

/* The first i of [a, b) past the bound (b if none), the bound being
 * monotonic along the row: from the estimate `hint`, galloping to bracket
 * it, then bisecting, so that an estimate off by k cells costs about
 * 2 log2 k evaluations. */
static guint64
row_first(RowSearch *r, guint64 a, guint64 b, double hint)
{
  if (a == b)
    return a;
  guint64 h = !(hint > (double)a) ? a : hint >= (double)(b - 1) ? b - 1 : (guint64)hint;
  guint64 lo, hi;
  if (row_past(r, h)) { /* the answer is at h or below */
    hi = h;
    for (guint64 d = 1;; d *= 2) {
      if (hi == a)
        return a;
      guint64 m = hi - a > d ? hi - d : a;
      if (!row_past(r, m)) {
        lo = m + 1;
        break;
      }
      hi = m;
    }
  } else { /* above h */
    lo = h + 1;
    for (guint64 d = 1;; d *= 2) {
      guint64 m = b - lo > d ? lo + d - 1 : b;
      if (m == b) {
        hi = b;
        break;
      }
      if (row_past(r, m)) {
        hi = m;
        break;
      }
      lo = m + 1;
    }
  }
  while (lo < hi) {
    guint64 mid = lo + (hi - lo) / 2;
    if (row_past(r, mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

void
lb_pattern_rows_find(const LbPatternRows *rows, const guint64 *index, guint axis, guint64 lo,
                     guint64 hi, guint64 *start, guint64 *end)
{
  *start = *end = lo;
  if (lo >= hi || rows->reach < 0)
    return;
  if (rows->reach == INFINITY) {
    *end = hi;
    return;
  }
  const LbPatternAt *ps = rows->ps;
  const LbPattern *p = rows->p;
  RowSearch r = {rows, {0}, axis, 0, TRUE, FALSE};
  memcpy(r.index, index, rows->dim * sizeof(guint64));
  double slope = ps->normal[axis];
  if (slope == 0) { /* z is the same along the row */
    double z = shock_z(p, ps, rows->dim, r.index, rows->size);
    if (z >= -rows->reach && z <= rows->reach)
      *end = hi;
    return;
  }
  /* the estimate: z = (rest + slope (i + 0.5) / n - front) / width */
  double rest = 0, n = (double)rows->size[axis];
  for (guint a = 0; a < rows->dim; a++)
    if (a != axis)
      rest += ps->normal[a] * centre_of(index[a], rows->size[a]);
  double near = ((ps->front - rows->reach * p->width - rest) / slope) * n - 0.5;
  double far = ((ps->front + rows->reach * p->width - rest) / slope) * n - 0.5;
  r.rising = slope > 0;
  /* the run: from the first cell past its near bound (z >= -reach rising,
   * z <= reach falling) to the first past its far one (z > reach rising,
   * z < -reach falling) */
  r.bound = r.rising ? -rows->reach : rows->reach;
  r.strict = FALSE;
  guint64 s = row_first(&r, lo, hi, ceil(r.rising ? near : far));
  r.bound = r.rising ? rows->reach : -rows->reach;
  r.strict = TRUE;
  guint64 e = row_first(&r, s, hi, ceil(r.rising ? far : near));
  *start = s;
  *end = e;
}

guint64
lb_pattern_load(const LbPattern *p, const LbPatternAt *ps, guint dim, const guint64 *index,
                const guint64 *size, guint64 id)
{
  switch (p->kind) {
  case LB_PATTERN_UNIFORM:
    return p->value;
  case LB_PATTERN_RANDOM:
    return p->min + lb_hash64(p->seed ^ lb_hash64(id)) % (p->max - p->min + 1);
  case LB_PATTERN_HOTSPOTS:
    return hotspots_load(p, ps, dim, index, size);
  case LB_PATTERN_RAMP: {
    if (size[0] == 1)
      return p->from;
    double t = (double)index[0] / (double)(size[0] - 1);
    return lb_round_load((double)p->from + t * ((double)p->to - (double)p->from));
  }
  case LB_PATTERN_STEP:
    return centre_of(index[0], size[0]) < ps->edge ? p->high : p->low;
  case LB_PATTERN_FILE:
    return p->file_loads[id];
  case LB_PATTERN_SHOCK:
    return shock_load(p, ps, dim, index, size);
  case LB_PATTERN_CLUSTERS:
    return clusters_load(p, ps, dim, index, size);
  }
  g_assert_not_reached();
}
