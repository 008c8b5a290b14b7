/* The 1D load array: N non-negative integer loads, generated from a seeded
 * pattern as a pure function of (element, step) so that every rank can
 * update the loads it holds without talking to anyone. */
#include "lbsim/workload.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

static double
unit_random(guint64 seed, guint64 stream, guint64 i)
{
  return (double)(lb_hash64(seed ^ lb_hash64(stream * 0x100000001b3ull + i)) >> 11) * 0x1.0p-53;
}

void
lb_array1d_clear(LbArray1d *array)
{
  g_clear_pointer(&array->file_loads, g_free);
  g_clear_pointer(&array->counts, g_free);
  array->counts_len = 0;
}

static double
position(const LbArray1d *array, guint64 id)
{
  return ((double)id + 0.5) / (double)array->size;
}

/* Distance on the unit circle: hot spots that drift off one end come back
 * at the other, so a long dynamic run keeps its load. */
static double
circle_distance(double a, double b)
{
  double d = fabs(a - b);
  return d > 0.5 ? 1.0 - d : d;
}

typedef struct {
  double center, height;
} Hotspot;

/* Where the hot spots are at a step: computed once per step, not per element. */
static Hotspot *
hotspots_at(const LbArray1d *array, guint step)
{
  Hotspot *spots = g_new(Hotspot, array->hotspots);
  for (guint k = 0; k < array->hotspots; k++) {
    double start = unit_random(array->seed, 1, k);
    double strength = 0.5 + 0.5 * unit_random(array->seed, 2, k);
    double direction = unit_random(array->seed, 3, k) < 0.5 ? -1.0 : 1.0;
    double center = start + direction * array->drift * step;
    spots[k].center = center - floor(center);
    spots[k].height = array->amplitude * strength;
  }
  return spots;
}

static guint64
hotspots_sum(const LbArray1d *array, const Hotspot *spots, guint64 id)
{
  double x = position(array, id);
  double load = (double)array->base;
  for (guint k = 0; k < array->hotspots; k++) {
    double z = circle_distance(x, spots[k].center) / array->width;
    load += spots[k].height * exp(-0.5 * z * z);
  }
  return (guint64)llround(load);
}

static guint64
hotspots_load(const LbArray1d *array, guint64 id, guint step)
{
  g_autofree Hotspot *spots = hotspots_at(array, step);
  return hotspots_sum(array, spots, id);
}

guint64
lb_array1d_load(const LbArray1d *array, guint64 id, guint step)
{
  g_assert(id < array->size);
  switch (array->pattern) {
  case LB_PATTERN_UNIFORM:
    return array->value;
  case LB_PATTERN_RANDOM:
    return array->min + lb_hash64(array->seed ^ lb_hash64(id)) % (array->max - array->min + 1);
  case LB_PATTERN_HOTSPOTS:
    return hotspots_load(array, id, step);
  case LB_PATTERN_RAMP: {
    if (array->size == 1)
      return array->from;
    double t = (double)id / (double)(array->size - 1);
    return (guint64)llround((double)array->from + t * ((double)array->to - (double)array->from));
  }
  case LB_PATTERN_STEP: {
    /* at = 1 puts the edge at the right end (all high); only a drifted edge wraps */
    double edge = array->at + array->drift * step;
    if (edge < 0.0 || edge > 1.0)
      edge -= floor(edge);
    return position(array, id) < edge ? array->high : array->low;
  }
  case LB_PATTERN_FILE:
    return array->file_loads[id];
  }
  g_assert_not_reached();
}

void
lb_array1d_update(const LbArray1d *array, LbUnit *units, gsize n, guint step)
{
  if (array->pattern != LB_PATTERN_HOTSPOTS) {
    for (gsize i = 0; i < n; i++)
      units[i].load = lb_array1d_load(array, units[i].id, step);
    return;
  }
  g_autofree Hotspot *spots = hotspots_at(array, step);
  for (gsize i = 0; i < n; i++)
    units[i].load = hotspots_sum(array, spots, units[i].id);
}

static int
compare_u64(const void *a, const void *b)
{
  guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;
  return x < y ? -1 : x > y;
}

void
lb_array1d_initial_bounds(const LbArray1d *array, guint ranks, guint64 *bounds)
{
  guint64 n = array->size;
  switch (array->distribution) {
  case LB_DISTRIBUTION_BLOCK:
    for (guint r = 0; r <= ranks; r++)
      bounds[r] = (guint64)(((unsigned __int128)n * r) / ranks);
    return;
  case LB_DISTRIBUTION_RANDOM:
    bounds[0] = 0;
    bounds[ranks] = n;
    for (guint r = 1; r < ranks; r++)
      bounds[r] = lb_hash64(array->seed ^ lb_hash64(0x5eed0000ull + r)) % (n + 1);
    qsort(bounds + 1, ranks - 1, sizeof(guint64), compare_u64);
    return;
  case LB_DISTRIBUTION_FILE:
    g_assert(array->counts_len == ranks);
    bounds[0] = 0;
    for (guint r = 0; r < ranks; r++)
      bounds[r + 1] = bounds[r] + array->counts[r];
    g_assert(bounds[ranks] == n);
    return;
  }
  g_assert_not_reached();
}

gboolean
lb_read_integers(const char *path, GArray **values, GError **error)
{
  g_autofree char *text = NULL;
  if (!g_file_get_contents(path, &text, NULL, error))
    return FALSE;
  g_autoptr(GArray) out = g_array_new(FALSE, FALSE, sizeof(guint64));
  const char *p = text;
  guint line = 1;
  for (;;) {
    while (g_ascii_isspace(*p)) {
      if (*p == '\n')
        line++;
      p++;
    }
    if (*p == '\0')
      break;
    char *end = NULL;
    errno = 0;
    guint64 v = g_ascii_strtoull(p, &end, 10);
    if (end == p || errno != 0 || (*end != '\0' && !g_ascii_isspace(*end)) || *p == '-') {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                  "%s:%u: expected a non-negative integer", path, line);
      return FALSE;
    }
    g_array_append_val(out, v);
    p = end;
  }
  *values = g_steal_pointer(&out);
  return TRUE;
}
