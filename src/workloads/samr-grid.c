/* A grid's measures and what a hierarchy of grids costs between two
 * adaptations (samr.h), as ENZO pays it: every grid computes its ghost zone
 * with its interior; at each time step of its level it exchanges its
 * boundary with the grids of its level that touch it, takes its ghost zone
 * from its parents (interpolation) and, at each step of its parent's level,
 * gives its interior back to them (projection); between grids of one rank
 * that is a copy, between ranks a message. Lan, Taylor and Bryan (2002),
 * section 5.2: "When more smaller grids are introduced across processors,
 * more communication is needed to transfer data among processors and more
 * computational load is added because each grid requires a ghost zone". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/samr.h"

guint64
lb_samr_interior_cells(const SamrGeometry *g, const SamrGrid *grid)
{
  guint64 n = 1;
  for (guint a = 0; a < g->dim; a++)
    n *= (guint64)(grid->hi[a] - grid->lo[a]);
  return n;
}

guint64
lb_samr_cells(const SamrGeometry *g, const SamrGrid *grid)
{
  guint64 n = 1;
  for (guint a = 0; a < g->dim; a++)
    n *= (guint64)(grid->hi[a] - grid->lo[a]) + 2u * g->ghost;
  return n;
}

guint64
lb_samr_substeps(const SamrGeometry *g, guint level)
{
  guint64 s = 1;
  for (guint l = 0; l < level; l++)
    s *= g->factor;
  return s;
}

guint64
lb_samr_load(const SamrGeometry *g, const SamrGrid *grid)
{
  return lb_samr_cells(g, grid) * lb_samr_substeps(g, grid->level);
}

/* ---- the boundary exchange ---- */

/* One transfer of the exchange: from a grid's rank to another's. */
typedef struct {
  guint from, to;
  guint seq; /* the order it was found in, for a stable order */
  double bytes;
} Transfer;

struct _SamrExchange {
  guint ranks;
  Transfer *messages; /* between ranks, by sender, then receiver, then seq */
  guint *first;       /* ranks + 1 offsets into messages, by sender */
  guint *receives;    /* per rank: messages it receives */
  double *copy_bytes; /* per rank: bytes copied between its own grids */
  double *flops;      /* per rank: the fixed cost of its grids */
};

static int
compare_transfers(gconstpointer a, gconstpointer b)
{
  const Transfer *x = a, *y = b;
  if (x->from != y->from)
    return x->from < y->from ? -1 : 1;
  if (x->to != y->to)
    return x->to < y->to ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Grid indices of one level, sorted by their lower corner along x. */
static int
compare_lo(gconstpointer a, gconstpointer b, gpointer data)
{
  const GArray *table = data;
  const SamrGrid *x = &g_array_index(table, SamrGrid, *(const guint *)a);
  const SamrGrid *y = &g_array_index(table, SamrGrid, *(const guint *)b);
  if (x->lo[0] != y->lo[0])
    return x->lo[0] < y->lo[0] ? -1 : 1;
  return *(const guint *)a < *(const guint *)b ? -1 : 1;
}

/* Sorts a level's grid indices (ascending) by their lower x, keeping
 * their order among equals (compare_lo's order): by counting where the
 * lower corners span little more than the grids, else by comparing. */
static void
sort_by_lo(GArray *level, const GArray *table)
{
  const guint *at = (const guint *)level->data;
  guint n = level->len;
  if (n < 2)
    return;
  gint64 least = G_MAXINT64, most = G_MININT64;
  for (guint k = 0; k < n; k++) {
    gint64 x = g_array_index(table, SamrGrid, at[k]).lo[0];
    least = MIN(least, x);
    most = MAX(most, x);
  }
  if (most - least > 4 * (gint64)n + 1024) {
    g_array_sort_with_data(level, compare_lo, (gpointer)table);
    return;
  }
  gsize span = (gsize)(most - least) + 1;
  g_autofree guint *start = g_new0(guint, span + 1);
  for (guint k = 0; k < n; k++)
    start[g_array_index(table, SamrGrid, at[k]).lo[0] - least + 1]++;
  for (gsize i = 0; i < span; i++)
    start[i + 1] += start[i];
  g_autofree guint *sorted = g_new(guint, n);
  for (guint k = 0; k < n; k++)
    sorted[start[g_array_index(table, SamrGrid, at[k]).lo[0] - least]++] = at[k];
  memcpy(level->data, sorted, n * sizeof(guint));
}

static int
compare_positions(const void *a, const void *b)
{
  guint x = *(const guint *)a, y = *(const guint *)b;
  return x < y ? -1 : x > y;
}

/* Keys numbered in the order they were first seen: an open-addressed
 * table (key + 1 in a slot, 0 empty, at most half full) from a key to its
 * number. The transfers between pairs of ranks and the lattice cells of
 * the buckets below each number theirs with it. */
typedef struct {
  guint64 *keys;
  guint *numbers;
  gsize slots; /* a power of two, or 0 */
  guint len;   /* keys numbered */
} Numbering;

/* The slot of key: its own, or the empty one where it would go (slots > 0). */
static gsize
numbering_slot(const Numbering *t, guint64 key)
{
  gsize k = (gsize)(lb_hash64(key) & (t->slots - 1));
  while (t->keys[k] != 0 && t->keys[k] != key + 1)
    k = (k + 1) & (t->slots - 1);
  return k;
}

/* key's number, or G_MAXUINT if it has none. */
static guint
numbering_find(const Numbering *t, guint64 key)
{
  if (t->slots == 0)
    return G_MAXUINT;
  gsize k = numbering_slot(t, key);
  return t->keys[k] != 0 ? t->numbers[k] : G_MAXUINT;
}

/* key's number, the next one if it has none yet (*added says which). */
static guint
numbering_add(Numbering *t, guint64 key, gboolean *added)
{
  if (2 * ((gsize)t->len + 1) > t->slots) {
    g_autofree guint64 *keys = t->keys;
    g_autofree guint *numbers = t->numbers;
    gsize old = t->slots;
    t->slots = MAX(2 * old, 1024);
    t->keys = g_new0(guint64, t->slots);
    t->numbers = g_new(guint, t->slots);
    for (gsize i = 0; i < old; i++)
      if (keys[i] != 0) {
        gsize k = numbering_slot(t, keys[i] - 1);
        t->keys[k] = keys[i];
        t->numbers[k] = numbers[i];
      }
  }
  gsize k = numbering_slot(t, key);
  *added = t->keys[k] == 0;
  if (*added) {
    t->keys[k] = key + 1;
    t->numbers[k] = t->len++;
  }
  return t->numbers[k];
}

static void
numbering_clear(Numbering *t)
{
  g_free(t->keys);
  g_free(t->numbers);
}

/* The transfers found, in the order found; with by_ranks, one a pair of
 * ranks (numbered as its transfer), its bytes summed in that order. */
typedef struct {
  GArray *transfers;
  double *copy_bytes;
  guint ranks;
  gboolean by_ranks;
  Numbering pairs;
} Found;

static void
add(Found *f, guint from, guint to, double bytes)
{
  if (bytes <= 0)
    return;
  if (from == to) {
    f->copy_bytes[from] += bytes;
    return;
  }
  if (f->by_ranks) {
    gboolean added;
    guint at = numbering_add(&f->pairs, (guint64)from * f->ranks + to, &added);
    if (!added) {
      g_array_index(f->transfers, Transfer, at).bytes += bytes;
      return;
    }
  }
  Transfer t = {from, to, f->transfers->len, bytes};
  g_array_append_val(f->transfers, t);
}

/* The grids of one level (positions into its list sorted by lo[0])
 * bucketed on a lattice of boxes, so that the grids whose closed boxes meet
 * a closed box are found without looking at every grid of the level: a
 * shock's plane of 10^5 grids shares one x range. The lattice cells in use
 * are numbered (Numbering), each number a bucket; a bucket's positions are
 * ascending. */
typedef struct {
  guint dim;
  gint64 edge[3];  /* the lattice's spacing along each axis */
  Numbering cells; /* a lattice cell's key to its bucket */
  guint *start;    /* buckets + 1 offsets into at */
  guint *at;       /* the positions, bucket by bucket, ascending in each */
  guint *own;      /* the buckets of each position, position by position */
  guint *first;    /* n + 1 offsets into own */
  guint *seen;     /* per position: the last query that found it */
  guint query;
} Buckets;

#define BUCKET_BITS 21

static guint64
bucket_key(const guint64 *c)
{
  return c[0] | c[1] << BUCKET_BITS | c[2] << (2 * BUCKET_BITS);
}

/* The lattice cells [from, to] (inclusive, per axis) a closed box [lo, hi]
 * meets. */
static void
bucket_span(const Buckets *b, const gint64 *lo, const gint64 *hi, guint64 *from, guint64 *to)
{
  for (guint a = 0; a < 3; a++) {
    from[a] = a < b->dim ? (guint64)(MAX(lo[a], 0) / b->edge[a]) : 0;
    to[a] = a < b->dim ? (guint64)(MAX(hi[a], 0) / b->edge[a]) : 0;
  }
}

/* Spacing: twice the grids' mean extent (fewer cells a grid, measured
 * faster on a shock's plane), but no grid over 9 cells of the lattice
 * an axis and the lattice within 2^21 cells an axis. Each grid's lattice
 * cells are looked up once (making the buckets, and kept as the grid's),
 * then the grids are placed in their buckets. */
static void
buckets_init(Buckets *b, const GArray *table, const guint *sorted, guint n, guint dim)
{
  b->dim = dim;
  b->query = 0;
  b->seen = g_new0(guint, MAX(n, 1));
  guint64 entries = 0;
  for (guint a = 0; a < 3; a++) {
    gint64 sum = 0, widest = 0, top = 0;
    for (guint k = 0; k < n && a < dim; k++) {
      const SamrGrid *g = &g_array_index(table, SamrGrid, sorted[k]);
      sum += g->hi[a] - g->lo[a];
      widest = MAX(widest, g->hi[a] - g->lo[a]);
      top = MAX(top, g->hi[a]);
    }
    gint64 edge = n > 0 ? 2 * sum / n : 1;
    edge = MAX(edge, widest / 8);
    edge = MAX(edge, (top >> (BUCKET_BITS - 1)) + 1);
    b->edge[a] = MAX(edge, 1);
  }
  for (guint k = 0; k < n; k++) {
    const SamrGrid *g = &g_array_index(table, SamrGrid, sorted[k]);
    guint64 from[3], to[3], cells = 1;
    bucket_span(b, g->lo, g->hi, from, to);
    for (guint a = 0; a < 3; a++)
      cells *= to[a] - from[a] + 1;
    entries += cells;
  }
  b->cells = (Numbering){NULL, NULL, 0, 0};
  b->own = g_new(guint, MAX(entries, 1));
  b->first = g_new(guint, n + 1);
  g_autoptr(GArray) counts = g_array_new(FALSE, TRUE, sizeof(guint));
  guint e = 0;
  for (guint k = 0; k < n; k++) {
    const SamrGrid *g = &g_array_index(table, SamrGrid, sorted[k]);
    guint64 from[3], to[3], c[3];
    bucket_span(b, g->lo, g->hi, from, to);
    b->first[k] = e;
    for (c[2] = from[2]; c[2] <= to[2]; c[2]++)
      for (c[1] = from[1]; c[1] <= to[1]; c[1]++)
        for (c[0] = from[0]; c[0] <= to[0]; c[0]++) {
          gboolean added;
          guint bucket = numbering_add(&b->cells, bucket_key(c), &added);
          if (added)
            g_array_set_size(counts, b->cells.len);
          b->own[e++] = bucket;
          g_array_index(counts, guint, bucket)++;
        }
  }
  b->first[n] = e;
  guint buckets = b->cells.len;
  b->start = g_new0(guint, buckets + 1);
  for (guint i = 0; i < buckets; i++)
    b->start[i + 1] = b->start[i] + g_array_index(counts, guint, i);
  b->at = g_new(guint, MAX(entries, 1));
  guint *fill = (guint *)counts->data;
  memcpy(fill, b->start, buckets * sizeof(guint));
  for (guint k = 0; k < n; k++)
    for (guint i = b->first[k]; i < b->first[k + 1]; i++)
      b->at[fill[b->own[i]]++] = k;
}

static void
buckets_clear(Buckets *b)
{
  numbering_clear(&b->cells);
  g_free(b->own);
  g_free(b->first);
  g_free(b->start);
  g_free(b->at);
  g_free(b->seen);
}

/* The positions a query found: a buffer reused from query to query. */
typedef struct {
  guint *at;
  guint len, cap;
} Positions;

static void
positions_add(Positions *p, guint at)
{
  if (p->len == p->cap) {
    p->cap = MAX(2 * p->cap, 64);
    p->at = g_renew(guint, p->at, p->cap);
  }
  p->at[p->len++] = at;
}

/* Ascending; most lists are short, where an insertion sort is quickest. */
static void
positions_sort(Positions *p)
{
  if (p->len > 32) {
    qsort(p->at, p->len, sizeof(guint), compare_positions);
    return;
  }
  for (guint i = 1; i < p->len; i++) {
    guint v = p->at[i], j = i;
    for (; j > 0 && p->at[j - 1] > v; j--)
      p->at[j] = p->at[j - 1];
    p->at[j] = v;
  }
}

/* Adds to found the positions from `after` on held by one bucket, each
 * once a query. */
static void
bucket_collect(Buckets *b, guint bucket, guint after, Positions *found)
{
  for (guint i = b->start[bucket]; i < b->start[bucket + 1]; i++) {
    guint at = b->at[i];
    if (at >= after && b->seen[at] != b->query) {
      b->seen[at] = b->query;
      positions_add(found, at);
    }
  }
}

/* The positions whose closed boxes may meet the closed box [lo, hi] (every
 * one that does, and others sharing its lattice cells), from `after` on,
 * ascending, into found (emptied first). */
static void
buckets_find(Buckets *b, const gint64 *lo, const gint64 *hi, guint after, Positions *found)
{
  found->len = 0;
  b->query++;
  guint64 from[3], to[3], c[3];
  bucket_span(b, lo, hi, from, to);
  for (c[2] = from[2]; c[2] <= to[2]; c[2]++)
    for (c[1] = from[1]; c[1] <= to[1]; c[1]++)
      for (c[0] = from[0]; c[0] <= to[0]; c[0]++) {
        guint bucket = numbering_find(&b->cells, bucket_key(c));
        if (bucket != G_MAXUINT)
          bucket_collect(b, bucket, after, found);
      }
  positions_sort(found);
}

/* The positions from `after` on that share a lattice cell with position
 * k (every one whose closed box meets k's), ascending, into found: k's
 * own buckets, without looking its cells up. */
static void
buckets_find_own(Buckets *b, guint k, guint after, Positions *found)
{
  found->len = 0;
  b->query++;
  for (guint j = b->first[k]; j < b->first[k + 1]; j++)
    bucket_collect(b, b->own[j], after, found);
  positions_sort(found);
}

/* The parent a child's box lies in whole, when parent_of names one that
 * still holds it (a split may have left it only part of it): then no
 * other grid of the parent level overlaps the child. */
static const SamrGrid *
holding_parent(const GArray *table, const guint *parent_of, guint hints, guint child, gint64 f,
               guint dim)
{
  if (child >= hints || parent_of[child] >= table->len)
    return NULL;
  const SamrGrid *c = &g_array_index(table, SamrGrid, child);
  const SamrGrid *p = &g_array_index(table, SamrGrid, parent_of[child]);
  if (p->level + 1 != c->level)
    return NULL;
  for (guint a = 0; a < dim; a++)
    if (p->lo[a] * f > c->lo[a] || p->hi[a] * f < c->hi[a])
      return NULL;
  return p;
}

SamrExchange *
lb_samr_exchange_new(const SamrGeometry *g, const GArray *table, const guint *parent_of,
                     guint hints, const guint64 *steps, guint levels, const SamrCosts *costs,
                     guint ranks)
{
  SamrExchange *x = g_new0(SamrExchange, 1);
  x->ranks = ranks;
  x->copy_bytes = g_new0(double, ranks);
  x->flops = g_new0(double, ranks);
  guint dim = g->dim;
  double per_coarse = pow(g->factor, dim), unit = costs->bytes_per_unit;
  /* the grids of each level, by their lower x */
  g_autoptr(GPtrArray) by_level = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
  for (guint l = 0; l <= levels; l++)
    g_ptr_array_add(by_level, g_array_new(FALSE, FALSE, sizeof(guint)));
  for (guint i = 0; i < table->len; i++) {
    const SamrGrid *grid = &g_array_index(table, SamrGrid, i);
    g_assert(grid->level <= levels);
    g_array_append_val(by_level->pdata[grid->level], i);
    x->flops[grid->owner] += costs->grid_flops * (double)steps[grid->level];
  }
  for (guint l = 0; l <= levels; l++)
    sort_by_lo(by_level->pdata[l], table);
  g_autoptr(GArray) transfers = g_array_new(FALSE, FALSE, sizeof(Transfer));
  Found sink = {transfers, x->copy_bytes, ranks, costs->by_ranks, {NULL, NULL, 0, 0}};
  Positions found = {NULL, 0, 0};
  Buckets buckets[2] = {0}; /* of level l and of l - 1 */
  for (guint l = 0; l <= levels && costs->exchange != SAMR_EXCHANGE_NONE; l++) {
    const GArray *level = by_level->pdata[l];
    const guint *sorted = (const guint *)level->data;
    if (l > 0)
      buckets[1] = buckets[0];
    buckets_init(&buckets[0], table, sorted, level->len, dim);
    /* siblings: the faces they share, ghost cells deep, both ways, once a
     * step of their level; each pair once, in the order of the first */
    for (guint k = 0; k < level->len && steps[l] > 0 && g->ghost > 0; k++) {
      const SamrGrid *a = &g_array_index(table, SamrGrid, sorted[k]);
      buckets_find_own(&buckets[0], k, k + 1, &found);
      for (guint j = 0; j < found.len; j++) {
        const SamrGrid *b = &g_array_index(table, SamrGrid, sorted[found.at[j]]);
        guint64 faces = lb_boxes_shared_faces(a->lo, a->hi, b->lo, b->hi, dim);
        if (faces == 0)
          continue;
        double bytes = (double)faces * g->ghost * unit * (double)steps[l];
        add(&sink, a->owner, b->owner, bytes);
        add(&sink, b->owner, a->owner, bytes);
      }
    }
    if (l == 0)
      continue;
    /* parents and children: each child's part over each parent it
     * overlaps (a split parent may have two), in the parent's cells */
    const GArray *parents = by_level->pdata[l - 1];
    const guint *psorted = (const guint *)parents->data;
    gint64 f = g->factor;
    for (guint k = 0; k < level->len; k++) {
      const SamrGrid *c = &g_array_index(table, SamrGrid, sorted[k]);
      double interior = (double)lb_samr_interior_cells(g, c);
      double shell = (double)lb_samr_cells(g, c) - interior;
      /* the parent that holds it whole, or those that may overlap it:
       * the child's box in their cells */
      const SamrGrid *holder = holding_parent(table, parent_of, hints, sorted[k], f, dim);
      if (holder == NULL) {
        gint64 lo[3], hi[3];
        for (guint a = 0; a < dim; a++) {
          lo[a] = c->lo[a] / f;
          hi[a] = (c->hi[a] + f - 1) / f;
        }
        buckets_find(&buckets[1], lo, hi, 0, &found);
      }
      for (guint j = 0; j < (holder != NULL ? 1 : found.len); j++) {
        const SamrGrid *p =
            holder != NULL ? holder : &g_array_index(table, SamrGrid, psorted[found.at[j]]);
        double overlap = 1;
        for (guint a = 0; a < dim && overlap > 0; a++) {
          gint64 olo = MAX(p->lo[a] * f, c->lo[a]), ohi = MIN(p->hi[a] * f, c->hi[a]);
          overlap = ohi > olo ? overlap * (double)(ohi - olo) : 0;
        }
        if (overlap == 0)
          continue;
        /* projection: the child's interior over the parent, coarsened,
         * once a step of the parent's level */
        double projection = ceil(overlap / per_coarse) * unit * (double)steps[l - 1];
        add(&sink, c->owner, p->owner, projection);
        /* interpolation: the child's ghost zone, its share over this
         * parent, from the parent's cells, once a step of the child's */
        double interpolation =
            ceil(shell * (overlap / interior) / per_coarse) * unit * (double)steps[l];
        add(&sink, p->owner, c->owner, interpolation);
      }
    }
    buckets_clear(&buckets[1]);
  }
  if (costs->exchange != SAMR_EXCHANGE_NONE)
    buckets_clear(&buckets[0]);
  g_free(found.at);
  numbering_clear(&sink.pairs);
  g_array_sort(transfers, compare_transfers);
  x->first = g_new0(guint, ranks + 1);
  x->receives = g_new0(guint, ranks);
  for (guint i = 0; i < transfers->len; i++) {
    const Transfer *t = &g_array_index(transfers, Transfer, i);
    x->first[t->from + 1]++;
    x->receives[t->to]++;
  }
  for (guint r = 0; r < ranks; r++)
    x->first[r + 1] += x->first[r];
  x->messages = (Transfer *)g_array_free(g_steal_pointer(&transfers), FALSE);
  return x;
}

void
lb_samr_exchange_rank(const SamrExchange *x, guint rank, LbAppStep *step)
{
  g_assert(rank < x->ranks);
  for (guint i = x->first[rank]; i < x->first[rank + 1]; i++) {
    LbAppMessage m = {x->messages[i].to, x->messages[i].bytes};
    g_array_append_val(step->messages, m);
  }
  step->receives += x->receives[rank];
  step->copy_bytes += x->copy_bytes[rank];
  step->flops += x->flops[rank];
}

void
lb_samr_exchange_free(SamrExchange *x)
{
  if (x == NULL)
    return;
  g_free(x->messages);
  g_free(x->first);
  g_free(x->receives);
  g_free(x->copy_bytes);
  g_free(x->flops);
  g_free(x);
}
