/* Grids of cells with integer loads from a pattern: the 1D load array and
 * the 2D and 3D fields. A cell's id is its index in the linear order, the
 * first axis fastest (row-major for a field: x along a row, rows one after
 * another, then planes), which is the total order order-keeping balancers
 * respect. */
#include <stdlib.h>
#include <string.h>

#include "workloads/models.h"

static gboolean fail(GError **error, int code, const char *file, const char *key,
                     const char *format, ...) G_GNUC_PRINTF(5, 6);

static gboolean
fail(GError **error, int code, const char *file, const char *key, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  g_autofree char *text = g_strdup_vprintf(format, args);
  va_end(args);
  g_set_error(error, LB_PARAM_ERROR, code, "%s: [workload] %s: %s", file, key, text);
  return FALSE;
}

static char *
resolve_relative(const char *dir, const char *path)
{
  return g_path_is_absolute(path) ? g_strdup(path) : g_build_filename(dir, path, NULL);
}

/* Loads of the file pattern, one per cell. */
static gboolean
read_file_loads(LbWork *work, const char *file, const char *dir, gboolean sets_size, GError **error)
{
  const LbParams *w = work->params;
  if (work->pattern.kind != LB_PATTERN_FILE)
    return TRUE;
  if (!lb_params_is_set(w, "file"))
    return fail(error, LB_PARAM_ERROR_MISSING, file, "file", "pattern file needs file = PATH");
  if (sets_size && lb_params_is_set(w, "size"))
    return fail(error, LB_PARAM_ERROR_INVALID, file, "size",
                "pattern file takes its size from the file; remove size");
  g_autofree char *path = resolve_relative(dir, lb_params_get_string(w, "file"));
  g_autoptr(GArray) loads = NULL;
  g_autoptr(GError) local = NULL;
  if (!lb_read_integers(path, &loads, &local))
    return fail(error, LB_PARAM_ERROR_INVALID, file, "file", "%s", local->message);
  if (loads->len == 0)
    return fail(error, LB_PARAM_ERROR_INVALID, file, "file", "%s holds no loads", path);
  if (sets_size)
    work->size[0] = work->cells = loads->len;
  else if (loads->len != work->cells)
    return fail(error, LB_PARAM_ERROR_INVALID, file, "file",
                "%s holds %u loads; size gives %" G_GUINT64_FORMAT " cells", path, loads->len,
                work->cells);
  work->pattern.file_len = loads->len;
  work->pattern.file_loads = (guint64 *)g_array_free(g_steal_pointer(&loads), FALSE);
  return TRUE;
}

static void
read_costs(LbWork *work)
{
  work->bytes_per_unit = lb_params_get_double(work->params, "bytes-per-unit");
  work->flops_per_unit = lb_params_get_double(work->params, "flops-per-unit");
  work->ghost_depth = (guint)lb_params_get_int(work->params, "ghost-depth");
}

static void
add_range(GArray *units, guint64 first, guint64 end)
{
  g_array_set_size(units, (guint)(end - first));
  LbUnit *u = (LbUnit *)units->data;
  for (guint64 id = first; id < end; id++)
    u[id - first] = (LbUnit){id, 0};
}

/* Equal contiguous pieces of the linear order. */
static guint64
linear_bound(guint64 cells, guint ranks, guint r)
{
  return (guint64)(((unsigned __int128)cells * r) / ranks);
}

/* Same-shaped neighbours: the cells one step away along each axis (the
 * domain does not wrap for the ghost exchange). */
static inline void
count_face(guint32 q, guint me, guint64 *counts, GArray *touched)
{
  if (q == me)
    return;
  if (counts[q]++ == 0)
    g_array_append_val(touched, q);
}

static void
grid_boundary(const LbWork *work, const guint32 *owner, guint me, const LbUnit *units, gsize n,
              guint64 *counts, GArray *touched)
{
  guint64 stride[LB_MAX_DIM] = {1, work->size[0], work->size[0] * work->size[1]};
  for (gsize i = 0; i < n; i++) {
    guint64 id = units[i].id;
    for (guint a = 0; a < work->dim; a++) {
      guint64 coord = (id / stride[a]) % work->size[a];
      if (coord > 0)
        count_face(owner[id - stride[a]], me, counts, touched);
      if (coord + 1 < work->size[a])
        count_face(owner[id + stride[a]], me, counts, touched);
    }
  }
}

/* ---- array1d ---- */

typedef enum {
  DISTRIBUTION_BLOCK,
  DISTRIBUTION_RANDOM,
  DISTRIBUTION_FILE,
} Distribution;

typedef struct {
  Distribution distribution;
  guint64 *bounds; /* ranks + 1 */
} Array1d;

static const LbParamSpec array1d_params[] = {
    {"size", LB_PARAM_INT, "65536", 1, 1e10, NULL, "array1d: number of elements N"},
    {"distribution", LB_PARAM_CHOICE, "block", 0, 0, "block|random|file",
     "array1d: initial split: equal-count blocks, random contiguous blocks, or counts from a file"},
    {"distribution-file", LB_PARAM_STRING, NULL, 0, 0, NULL,
     "array1d, distribution file: one element count per rank"},
    {"ghost-depth", LB_PARAM_INT, "0", 0, 1000000, NULL,
     "elements (cells) exchanged with each neighbour per adaptation step; 0: no ghost exchange"},
    {"bytes-per-unit", LB_PARAM_DOUBLE, "64", 0, 1e12, NULL, "bytes a moved element carries"},
    {"flops-per-unit", LB_PARAM_DOUBLE, "1e4", 0, 1e15, NULL,
     "flops per unit of load in the compute step"},
    {NULL},
};

static int
compare_u64(const void *a, const void *b)
{
  guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;
  return x < y ? -1 : x > y;
}

static gboolean
read_counts(LbWork *work, Array1d *a, const char *file, const char *dir, GError **error)
{
  const LbParams *w = work->params;
  g_autofree char *path = resolve_relative(dir, lb_params_get_string(w, "distribution-file"));
  g_autoptr(GArray) counts = NULL;
  g_autoptr(GError) local = NULL;
  if (!lb_read_integers(path, &counts, &local))
    return fail(error, LB_PARAM_ERROR_INVALID, file, "distribution-file", "%s", local->message);
  guint64 sum = 0;
  gboolean overflow = FALSE;
  for (guint i = 0; i < counts->len; i++)
    overflow |= !g_uint64_checked_add(&sum, sum, g_array_index(counts, guint64, i));
  if (overflow)
    return fail(error, LB_PARAM_ERROR_INVALID, file, "distribution-file",
                "%s: the counts add up to more than 2^64", path);
  if (counts->len != work->ranks || sum != work->cells)
    return fail(error, LB_PARAM_ERROR_INVALID, file, "distribution-file",
                "%s holds %u counts summing to %" G_GUINT64_FORMAT
                "; expected %u counts (one per rank) summing to %" G_GUINT64_FORMAT,
                path, counts->len, sum, work->ranks, work->cells);
  a->bounds[0] = 0;
  for (guint r = 0; r < work->ranks; r++)
    a->bounds[r + 1] = a->bounds[r] + g_array_index(counts, guint64, r);
  return TRUE;
}

static void
array1d_free(gpointer data)
{
  Array1d *a = data;
  g_free(a->bounds);
  g_free(a);
}

static gboolean
array1d_load(LbWork *work, const char *file, const char *dir, GError **error)
{
  const LbParams *w = work->params;
  Array1d *a = g_new0(Array1d, 1);
  work->data = a;
  work->dim = 1;
  work->size[1] = work->size[2] = 1;
  work->procs[0] = work->ranks;
  work->procs[1] = work->procs[2] = 1;
  work->size[0] = work->cells = (guint64)lb_params_get_int(w, "size");
  read_costs(work);
  if (!read_file_loads(work, file, dir, TRUE, error))
    return FALSE;

  const char *distribution = lb_params_get_string(w, "distribution");
  a->distribution = strcmp(distribution, "random") == 0 ? DISTRIBUTION_RANDOM
                    : strcmp(distribution, "file") == 0 ? DISTRIBUTION_FILE
                                                        : DISTRIBUTION_BLOCK;
  if (lb_params_is_set(w, "distribution-file") && a->distribution != DISTRIBUTION_FILE)
    return fail(error, LB_PARAM_ERROR_INVALID, file, "distribution-file",
                "applies to distribution file, but distribution is %s", distribution);
  if (a->distribution == DISTRIBUTION_FILE && !lb_params_is_set(w, "distribution-file"))
    return fail(error, LB_PARAM_ERROR_MISSING, file, "distribution-file",
                "distribution file needs distribution-file = PATH");

  guint ranks = work->ranks;
  guint64 n = work->cells;
  a->bounds = g_new(guint64, ranks + 1);
  switch (a->distribution) {
  case DISTRIBUTION_BLOCK:
    for (guint r = 0; r <= ranks; r++)
      a->bounds[r] = linear_bound(n, ranks, r);
    break;
  case DISTRIBUTION_RANDOM:
    a->bounds[0] = 0;
    a->bounds[ranks] = n;
    for (guint r = 1; r < ranks; r++)
      a->bounds[r] = lb_hash64(work->seed ^ lb_hash64(0x5eed0000ull + r)) % (n + 1);
    qsort(a->bounds + 1, ranks - 1, sizeof(guint64), compare_u64);
    break;
  case DISTRIBUTION_FILE:
    return read_counts(work, a, file, dir, error);
  }
  return TRUE;
}

/* The array's own split is already contiguous in its order. */
static void
array1d_initial_units(const LbWork *work, guint rank, LbStart start, GArray *units)
{
  const Array1d *a = work->data;
  add_range(units, a->bounds[rank], a->bounds[rank + 1]);
}

static char *
array1d_describe_start(const LbWork *work, LbStart start)
{
  static const char *const names[] = {"block", "random", "file"};
  return g_strdup(names[((const Array1d *)work->data)->distribution]);
}

const LbModel lb_array1d_model = {
    .name = "array1d",
    .summary = "N elements with integer loads, split into contiguous blocks",
    .offers = LB_CAP_CELLS | LB_CAP_ORDER,
    .params = array1d_params,
    .patterns = TRUE,
    .order = "array",
    .load = array1d_load,
    .free_data = array1d_free,
    .initial_units = array1d_initial_units,
    .describe_start = array1d_describe_start,
    .boundary = grid_boundary,
};

/* ---- field2d, field3d ---- */

static const LbParamSpec field_params[] = {
    {"size", LB_PARAM_STRING, NULL, 0, 0, NULL,
     "fields: cells NXxNY (field2d, default 256x256) or NXxNYxNZ (field3d, default 64x64x64)"},
    {"procs", LB_PARAM_STRING, NULL, 0, 0, NULL,
     "fields: processor grid PXxPY(xPZ) of the initial equal blocks; its product is ranks "
     "(default: the most square factorisation of ranks)"},
    {"ghost-depth", LB_PARAM_INT, "1", 0, 1000000, NULL,
     "cells exchanged across each shared face with each neighbour per adaptation step; 0: none"},
    {"bytes-per-unit", LB_PARAM_DOUBLE, "64", 0, 1e12, NULL, "bytes a moved cell carries"},
    {"flops-per-unit", LB_PARAM_DOUBLE, "1e4", 0, 1e15, NULL,
     "flops per unit of load in the compute step"},
    {NULL},
};

/* "2048x2048": exactly dim positive integers. */
gboolean
lb_parse_dims(const char *text, guint dim, guint64 *out)
{
  g_auto(GStrv) parts = g_strsplit(text, "x", -1);
  if (g_strv_length(parts) != dim)
    return FALSE;
  for (guint a = 0; a < dim; a++) {
    char *end = NULL;
    const char *s = parts[a];
    if (!g_ascii_isdigit(*s))
      return FALSE;
    guint64 v = g_ascii_strtoull(s, &end, 10);
    if (*end != '\0' || v == 0 || v > G_MAXUINT32)
      return FALSE;
    out[a] = v;
  }
  return TRUE;
}

static char *
format_dims(const guint64 *v, guint dim)
{
  GString *s = g_string_new(NULL);
  for (guint a = 0; a < dim; a++)
    g_string_append_printf(s, "%s%" G_GUINT64_FORMAT, a ? "x" : "", v[a]);
  return g_string_free(s, FALSE);
}

void
lb_grid_square_factors(guint p, guint dim, guint64 *out)
{
  if (dim == 1) {
    out[0] = p;
    return;
  }
  /* the factor of this axis: the largest divisor not above the dim-th root */
  guint best = 1;
  for (guint f = 1; f <= p; f++) {
    double power = 1;
    for (guint i = 0; i < dim; i++)
      power *= f;
    if (power > p)
      break;
    if (p % f == 0)
      best = f;
  }
  lb_grid_square_factors(p / best, dim - 1, out);
  out[dim - 1] = best;
}

static gboolean
field_load(LbWork *work, guint dim, const char *file, const char *dir, GError **error)
{
  const LbParams *w = work->params;
  work->dim = dim;
  work->size[1] = work->size[2] = 1;
  work->procs[1] = work->procs[2] = 1;
  read_costs(work);
  const char *size = lb_params_is_set(w, "size") ? lb_params_get_string(w, "size")
                     : dim == 2                  ? "256x256"
                                                 : "64x64x64";
  if (!lb_parse_dims(size, dim, work->size))
    return fail(error, LB_PARAM_ERROR_INVALID, file, "size",
                "'%s' is not %s of positive integers (e.g. %s)", size,
                dim == 2 ? "NXxNY" : "NXxNYxNZ", dim == 2 ? "2048x2048" : "256x256x256");
  work->cells = 1;
  for (guint a = 0; a < dim; a++) {
    if (!g_uint64_checked_mul(&work->cells, work->cells, work->size[a]) ||
        work->cells > (guint64)G_MAXUINT32 * 4)
      return fail(error, LB_PARAM_ERROR_INVALID, file, "size", "'%s' has too many cells", size);
  }
  if (lb_params_is_set(w, "procs")) {
    const char *procs = lb_params_get_string(w, "procs");
    if (!lb_parse_dims(procs, dim, work->procs))
      return fail(error, LB_PARAM_ERROR_INVALID, file, "procs",
                  "'%s' is not %s of positive integers", procs, dim == 2 ? "PXxPY" : "PXxPYxPZ");
    guint64 product = 1;
    for (guint a = 0; a < dim; a++)
      product *= work->procs[a];
    if (product != work->ranks)
      return fail(error, LB_PARAM_ERROR_INVALID, file, "procs",
                  "%s makes %" G_GUINT64_FORMAT " ranks, but [scenario] ranks is %u", procs,
                  product, work->ranks);
  } else {
    lb_grid_square_factors(work->ranks, dim, work->procs);
  }
  for (guint a = 0; a < dim; a++)
    if (work->procs[a] > work->size[a]) {
      g_autofree char *p = format_dims(work->procs, dim);
      return fail(
          error, LB_PARAM_ERROR_INVALID, file, lb_params_is_set(w, "procs") ? "procs" : "size",
          "the processor grid %s has more processors than cells along axis %u (%" G_GUINT64_FORMAT
          ")",
          p, a, work->size[a]);
    }
  return read_file_loads(work, file, dir, FALSE, error);
}

static gboolean
field2d_load(LbWork *work, const char *file, const char *dir, GError **error)
{
  return field_load(work, 2, file, dir, error);
}

static gboolean
field3d_load(LbWork *work, const char *file, const char *dir, GError **error)
{
  return field_load(work, 3, file, dir, error);
}

/* Native: the block of the processor grid at rank r's coordinates (the
 * first axis fastest, as for cells, or the last); in order: equal pieces of the linear
 * order. Units come sorted by id either way. */
static void
field_initial_units(const LbWork *work, guint rank, LbStart start, GArray *units)
{
  if (start == LB_START_ORDER) {
    add_range(units, linear_bound(work->cells, work->ranks, rank),
              linear_bound(work->cells, work->ranks, rank + 1));
    return;
  }
  guint64 lo[LB_MAX_DIM] = {0}, hi[LB_MAX_DIM] = {1, 1, 1};
  guint64 rest = rank;
  for (guint i = 0; i < work->dim; i++) {
    guint a = start == LB_START_BLOCKS_LAST_FASTEST ? work->dim - 1 - i : i;
    guint64 c = rest % work->procs[a];
    rest /= work->procs[a];
    lo[a] = linear_bound(work->size[a], (guint)work->procs[a], (guint)c);
    hi[a] = linear_bound(work->size[a], (guint)work->procs[a], (guint)c + 1);
  }
  g_array_set_size(units, 0);
  for (guint64 z = lo[2]; z < hi[2]; z++)
    for (guint64 y = lo[1]; y < hi[1]; y++) {
      guint64 row = (z * work->size[1] + y) * work->size[0];
      for (guint64 x = lo[0]; x < hi[0]; x++) {
        LbUnit u = {row + x, 0};
        g_array_append_val(units, u);
      }
    }
}

static char *
field_describe_start(const LbWork *work, LbStart start)
{
  if (start == LB_START_ORDER)
    return g_strdup("linear blocks (row-major)");
  g_autofree char *p = format_dims(work->procs, work->dim);
  if (start == LB_START_BLOCKS_LAST_FASTEST)
    return g_strdup_printf("blocks %s, ranks along the last axis first", p);
  return g_strdup_printf("blocks %s", p);
}

const LbModel lb_field2d_model = {
    .name = "field2d",
    .summary = "a 2D field of NX x NY cells with integer loads, split into a PX x PY grid of "
               "blocks",
    .offers = LB_CAP_CELLS | LB_CAP_ORDER | LB_CAP_BOXES,
    .params = field_params,
    .patterns = TRUE,
    .order = "row-major",
    .load = field2d_load,
    .initial_units = field_initial_units,
    .describe_start = field_describe_start,
    .boundary = grid_boundary,
};

const LbModel lb_field3d_model = {
    .name = "field3d",
    .summary = "a 3D field of NX x NY x NZ cells with integer loads, split into a PX x PY x PZ "
               "grid of blocks",
    .offers = LB_CAP_CELLS | LB_CAP_ORDER | LB_CAP_BOXES,
    .params = field_params,
    .patterns = TRUE,
    .order = "row-major",
    .load = field3d_load,
    .initial_units = field_initial_units,
    .describe_start = field_describe_start,
    .boundary = grid_boundary,
};
