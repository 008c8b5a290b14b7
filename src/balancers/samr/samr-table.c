/* ENZO's grid table, indexed by rank (samr-table.h). */
#include "balancers/samr/samr-table.h"

#include <string.h>

/* A run of one rank's grids, ascending, CHUNK to 2 CHUNK of them (fewer
 * in a rank's last or only one), with their extreme loads. */
#define CHUNK 64

typedef struct {
  guint len;
  guint64 min, max;
  guint at[2 * CHUNK];
} Chunk;

struct _SamrTable {
  const SamrGeometry *g;
  GArray *grids;
  GArray *load;     /* guint64 a grid */
  GPtrArray **held; /* p arrays of Chunk, in table order */
  guint p;
};

static void
measure(const SamrTable *t, Chunk *c)
{
  c->min = G_MAXUINT64;
  c->max = 0;
  for (guint k = 0; k < c->len; k++) {
    guint64 load = samr_table_load(t, c->at[k]);
    c->min = MIN(c->min, load);
    c->max = MAX(c->max, load);
  }
}

SamrTable *
samr_table_new(const SamrGeometry *g, GArray *grids, guint p)
{
  SamrTable *t = g_new0(SamrTable, 1);
  t->g = g;
  t->grids = g_array_ref(grids);
  t->p = p;
  t->load = g_array_sized_new(FALSE, FALSE, sizeof(guint64), grids->len);
  t->held = g_new(GPtrArray *, p);
  for (guint r = 0; r < p; r++)
    t->held[r] = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; i < grids->len; i++) {
    const SamrGrid *grid = &g_array_index(grids, SamrGrid, i);
    guint64 load = lb_samr_load(g, grid);
    g_array_append_val(t->load, load);
    GPtrArray *held = t->held[grid->owner];
    Chunk *last = held->len > 0 ? held->pdata[held->len - 1] : NULL;
    if (last == NULL || last->len == CHUNK) {
      last = g_new0(Chunk, 1);
      last->min = G_MAXUINT64;
      g_ptr_array_add(held, last);
    }
    last->at[last->len++] = i;
    last->min = MIN(last->min, load);
    last->max = MAX(last->max, load);
  }
  return t;
}

void
samr_table_free(SamrTable *t)
{
  if (t == NULL)
    return;
  for (guint r = 0; r < t->p; r++)
    g_ptr_array_unref(t->held[r]);
  g_free(t->held);
  g_array_unref(t->load);
  g_array_unref(t->grids);
  g_free(t);
}

GArray *
samr_table_grids(const SamrTable *t)
{
  return t->grids;
}

guint64
samr_table_load(const SamrTable *t, guint i)
{
  return g_array_index(t->load, guint64, i);
}

guint
samr_table_first_between(const SamrTable *t, guint rank, double low, double high)
{
  const GPtrArray *held = t->held[rank];
  for (guint c = 0; c < held->len; c++) {
    const Chunk *chunk = held->pdata[c];
    if (!((double)chunk->max > low && (double)chunk->min < high))
      continue;
    for (guint k = 0; k < chunk->len; k++) {
      double load = (double)samr_table_load(t, chunk->at[k]);
      if (load > low && load < high)
        return chunk->at[k];
    }
  }
  return G_MAXUINT;
}

guint
samr_table_largest(const SamrTable *t, guint rank)
{
  const GPtrArray *held = t->held[rank];
  const Chunk *best = NULL;
  for (guint c = 0; c < held->len; c++) {
    const Chunk *chunk = held->pdata[c];
    if (chunk->len > 0 && (best == NULL || chunk->max > best->max))
      best = chunk;
  }
  for (guint k = 0; best != NULL && k < best->len; k++)
    if (samr_table_load(t, best->at[k]) == best->max)
      return best->at[k];
  return G_MAXUINT;
}

/* The chunk of `held` where grid i is or would go: the first whose last
 * grid is at least i, else the last; -1 when there are none. */
static gint
chunk_of(const GPtrArray *held, guint i)
{
  if (held->len == 0)
    return -1;
  guint lo = 0, hi = held->len - 1;
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    const Chunk *c = held->pdata[mid];
    if (c->at[c->len - 1] < i)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (gint)lo;
}

static guint
slot_of(const Chunk *c, guint i)
{
  guint lo = 0, hi = c->len;
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    if (c->at[mid] < i)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static void
take(SamrTable *t, guint rank, guint i)
{
  GPtrArray *held = t->held[rank];
  gint c = chunk_of(held, i);
  g_assert(c >= 0);
  Chunk *chunk = held->pdata[c];
  guint k = slot_of(chunk, i);
  g_assert(k < chunk->len && chunk->at[k] == i);
  memmove(&chunk->at[k], &chunk->at[k + 1], (chunk->len - k - 1) * sizeof(guint));
  if (--chunk->len == 0)
    g_ptr_array_remove_index(held, (guint)c);
  else
    measure(t, chunk);
}

static void
put(SamrTable *t, guint rank, guint i)
{
  GPtrArray *held = t->held[rank];
  gint c = chunk_of(held, i);
  if (c < 0) {
    g_ptr_array_add(held, g_new0(Chunk, 1));
    c = 0;
  }
  Chunk *chunk = held->pdata[c];
  guint k = slot_of(chunk, i);
  memmove(&chunk->at[k + 1], &chunk->at[k], (chunk->len - k) * sizeof(guint));
  chunk->at[k] = i;
  chunk->len++;
  if (chunk->len == 2 * CHUNK) {
    Chunk *right = g_new0(Chunk, 1);
    right->len = CHUNK;
    memcpy(right->at, &chunk->at[CHUNK], CHUNK * sizeof(guint));
    chunk->len = CHUNK;
    measure(t, right);
    g_ptr_array_insert(held, c + 1, right);
  }
  measure(t, chunk);
}

void
samr_table_move(SamrTable *t, guint i, guint to)
{
  SamrGrid *grid = &g_array_index(t->grids, SamrGrid, i);
  take(t, grid->owner, i);
  put(t, to, i);
  grid->owner = to;
}

void
samr_table_resized(SamrTable *t, guint i)
{
  const SamrGrid *grid = &g_array_index(t->grids, SamrGrid, i);
  g_array_index(t->load, guint64, i) = lb_samr_load(t->g, grid);
  GPtrArray *held = t->held[grid->owner];
  measure(t, held->pdata[chunk_of(held, i)]);
}

void
samr_table_append(SamrTable *t, const SamrGrid *grid)
{
  guint i = t->grids->len;
  guint64 load = lb_samr_load(t->g, grid);
  g_array_append_val(t->grids, *grid);
  g_array_append_val(t->load, load);
  put(t, grid->owner, i);
}
