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

static void
add(GArray *transfers, double *copy_bytes, guint from, guint to, double bytes)
{
  if (bytes <= 0)
    return;
  if (from == to) {
    copy_bytes[from] += bytes;
    return;
  }
  Transfer t = {from, to, transfers->len, bytes};
  g_array_append_val(transfers, t);
}

/* The first index of sorted (by lo[0]) whose lo[0] is at least x. */
static guint
lower_bound(const GArray *table, const guint *sorted, guint n, gint64 x)
{
  guint lo = 0, hi = n;
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    if (g_array_index(table, SamrGrid, sorted[mid]).lo[0] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

SamrExchange *
lb_samr_exchange_new(const SamrGeometry *g, const GArray *table, const guint64 *steps, guint levels,
                     const SamrCosts *costs, guint ranks)
{
  SamrExchange *x = g_new0(SamrExchange, 1);
  x->ranks = ranks;
  x->copy_bytes = g_new0(double, ranks);
  x->flops = g_new0(double, ranks);
  guint dim = g->dim;
  double per_coarse = pow(g->factor, dim), unit = costs->bytes_per_unit;
  /* the grids of each level, by their lower x */
  g_autoptr(GPtrArray) by_level = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
  gint64 widest[SAMR_MAX_LEVELS] = {0};
  for (guint l = 0; l <= levels; l++)
    g_ptr_array_add(by_level, g_array_new(FALSE, FALSE, sizeof(guint)));
  for (guint i = 0; i < table->len; i++) {
    const SamrGrid *grid = &g_array_index(table, SamrGrid, i);
    g_assert(grid->level <= levels);
    g_array_append_val(by_level->pdata[grid->level], i);
    widest[grid->level] = MAX(widest[grid->level], grid->hi[0] - grid->lo[0]);
    x->flops[grid->owner] += costs->grid_flops * (double)steps[grid->level];
  }
  for (guint l = 0; l <= levels; l++)
    g_array_sort_with_data(by_level->pdata[l], compare_lo, (gpointer)table);
  g_autoptr(GArray) transfers = g_array_new(FALSE, FALSE, sizeof(Transfer));
  for (guint l = 0; l <= levels && costs->exchange != SAMR_EXCHANGE_NONE; l++) {
    const GArray *level = by_level->pdata[l];
    const guint *sorted = (const guint *)level->data;
    /* siblings: the faces they share, ghost cells deep, both ways, once a
     * step of their level */
    for (guint k = 0; k < level->len && steps[l] > 0 && g->ghost > 0; k++) {
      const SamrGrid *a = &g_array_index(table, SamrGrid, sorted[k]);
      for (guint m = k + 1; m < level->len; m++) {
        const SamrGrid *b = &g_array_index(table, SamrGrid, sorted[m]);
        if (b->lo[0] > a->hi[0])
          break;
        guint64 faces = lb_boxes_shared_faces(a->lo, a->hi, b->lo, b->hi, dim);
        if (faces == 0)
          continue;
        double bytes = (double)faces * g->ghost * unit * (double)steps[l];
        add(transfers, x->copy_bytes, a->owner, b->owner, bytes);
        add(transfers, x->copy_bytes, b->owner, a->owner, bytes);
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
      /* parents whose x range [lo, hi) x factor meets the child's */
      guint from = lower_bound(table, psorted, parents->len, c->lo[0] / f - widest[l - 1] - 1);
      for (guint m = from; m < parents->len; m++) {
        const SamrGrid *p = &g_array_index(table, SamrGrid, psorted[m]);
        if (p->lo[0] * f >= c->hi[0])
          break;
        double overlap = 1;
        for (guint a = 0; a < dim && overlap > 0; a++) {
          gint64 lo = MAX(p->lo[a] * f, c->lo[a]), hi = MIN(p->hi[a] * f, c->hi[a]);
          overlap = hi > lo ? overlap * (double)(hi - lo) : 0;
        }
        if (overlap == 0)
          continue;
        /* projection: the child's interior over the parent, coarsened,
         * once a step of the parent's level */
        double projection = ceil(overlap / per_coarse) * unit * (double)steps[l - 1];
        add(transfers, x->copy_bytes, c->owner, p->owner, projection);
        /* interpolation: the child's ghost zone, its share over this
         * parent, from the parent's cells, once a step of the child's */
        double interpolation =
            ceil(shell * (overlap / interior) / per_coarse) * unit * (double)steps[l];
        add(transfers, x->copy_bytes, p->owner, c->owner, interpolation);
      }
    }
  }
  g_array_sort(transfers, compare_transfers);
  if (costs->by_ranks && transfers->len > 0) {
    guint kept = 0;
    Transfer *t = (Transfer *)transfers->data;
    for (guint i = 1; i < transfers->len; i++) {
      if (t[i].from == t[kept].from && t[i].to == t[kept].to)
        t[kept].bytes += t[i].bytes;
      else
        t[++kept] = t[i];
    }
    g_array_set_size(transfers, kept + 1);
  }
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
