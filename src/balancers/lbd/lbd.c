/* Load Balancing by Dimension (the document "Load Balancing by Dimension",
 * its pseudocode LOAD_BALANCE_BY_DIMENSION and BUILD_UNDIRECTED_TDG).
 *
 * The partition is a hierarchy of straight cuts: along the first axis
 * across the whole domain (columns), then along the second axis inside
 * each column (its own cuts), and in 3D along the third axis inside each
 * of those. Every adaptation step:
 *   mesh    every rank recounts its subset's load (MESH, at a modeled cost
 *           per cell) and the loads are allgathered: f along each axis is
 *           max / mean - 1 of the loads of the slabs of ranks that share
 *           that axis' grid coordinate (f_I over columns, f_J over rows);
 *   slabs   the axis with the smaller metric goes first, as the pseudocode
 *           says: while its f exceeds the tolerance, its cuts move (from
 *           the measured loads, each taken as spread evenly over its box),
 *           the cells move, and every rank meshes again;
 *   strips  inside each slab, its own group of ranks does the same along
 *           the next axis (and in 3D, blocks inside each strip along the
 *           last);
 *   graph   the boxes are allgathered and every rank builds its neighbours
 *           with BUILD_UNDIRECTED_TDG (2D; in 3D from the boxes that
 *           touch its own), the graph of the application's ghost exchange.
 * Every rank computes the same cuts from the same gathered loads, so cuts
 * are never sent; cells are. */
#include <string.h>
#include <xbt/log.h>

#include "balancers/lbd/lbd-plan.h"
#include "balancers/lbd/tdg.h"
#include "balancers/registry.h"
#include "lbsim/model.h"

XBT_LOG_EXTERNAL_CATEGORY(lb);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(lb_lbd, lb, "Load Balancing by Dimension");

enum { PHASE_MESH, PHASE_SLABS, PHASE_STRIPS, PHASE_BLOCKS, PHASE_GRAPH };

static const char *const lbd_phases[] = {"mesh", "slabs", "strips", "blocks", "graph", NULL};

enum { METRIC_ITER_X, METRIC_ITER_Y, METRIC_ITER_Z, METRIC_FIRST_AXIS, METRIC_NEIGHBOURS };

static const LbMetricSpec lbd_metrics[] = {
    {"iterations-x", "iterations", LB_AGGREGATE_SUM, LB_COMBINE_MAX, NULL,
     "redistributions of the cuts along x (the most any slab needed)"},
    {"iterations-y", "iterations", LB_AGGREGATE_SUM, LB_COMBINE_MAX, NULL,
     "redistributions of the cuts along y (the most any slab needed)"},
    {"iterations-z", "iterations", LB_AGGREGATE_SUM, LB_COMBINE_MAX, NULL,
     "redistributions of the cuts along z (3D; the most any slab needed)"},
    {"first-axis", "", LB_AGGREGATE_LAST, LB_COMBINE_MAX, NULL,
     "the axis balanced first at the last step (0 x, 1 y, 2 z): the one with the smaller metric"},
    {"neighbours", "", LB_AGGREGATE_MAX, LB_COMBINE_MAX, NULL,
     "the most neighbours any subset has in the task dependence graph"},
    {NULL},
};

static const LbParamSpec lbd_params[] = {
    {"tolerance", LB_PARAM_DOUBLE, "0.05", 0, 100, NULL,
     "stop moving an axis' cuts once its metric (max/mean - 1 of the slabs' loads) is at most "
     "this"},
    {"max-iterations", LB_PARAM_INT, "10", 1, 1000, NULL,
     "redistributions at most per axis and slab in one adaptation step"},
    {"mesh-flops", LB_PARAM_DOUBLE, "5", 0, 1e9, NULL,
     "flops per cell to recount a subset's load (MESH)"},
    {NULL},
};

static const char *const lbd_models[] = {"field2d", "field3d", NULL};

#define TAG(level, iteration) ((int)(0x1000 + (level)*0x100 + (iteration)))

/* The cut hierarchy every rank keeps: its own piece's cuts as they move,
 * the other pieces' as of the last graph phase. */
typedef struct {
  guint dim;
  guint order[3];    /* the axis of each level */
  guint64 parts[3];  /* slabs per level: the processor grid along its axis */
  guint64 extent[3]; /* cells along each axis */
  guint64 *cut[3];   /* level l: a row of parts[l] + 1 cuts per piece above it */
  guint ranks;
  guint64 procs[3], stride[3]; /* processor grid, rank = sum of coord x stride */
  int me;
  /* a view of the hierarchy before one row moved: that row's old cuts */
  int alt_level;
  gsize alt_index;
  const guint64 *alt_row;
  GArray *held, *outgoing; /* repartition's scratch, kept from one move to the next */
} Lbd;

static void
lbd_free(gpointer state)
{
  Lbd *s = state;
  for (guint l = 0; l < 3; l++)
    g_free(s->cut[l]);
  if (s->held != NULL)
    g_array_unref(s->held);
  if (s->outgoing != NULL)
    g_array_unref(s->outgoing);
  g_free(s);
}

/* Grid coordinate of rank r along axis a (the first axis fastest). */
static guint64
coord(const Lbd *s, guint r, guint a)
{
  return (r / s->stride[a]) % s->procs[a];
}

/* The index of the piece of level l that rank r is in (levels above l). */
static gsize
piece(const Lbd *s, guint r, guint l)
{
  gsize index = 0;
  for (guint k = 0; k < l; k++)
    index = index * s->parts[k] + coord(s, r, s->order[k]);
  return index;
}

static gsize
pieces(const Lbd *s, guint l)
{
  gsize n = 1;
  for (guint k = 0; k < l; k++)
    n *= s->parts[k];
  return n;
}

static guint64 *
row(const Lbd *s, guint l, gsize index)
{
  if ((int)l == s->alt_level && index == s->alt_index)
    return (guint64 *)s->alt_row;
  return s->cut[l] + index * (s->parts[l] + 1);
}

/* Equal cuts everywhere: the processor grid's blocks. */
static void
uniform_cuts(Lbd *s)
{
  for (guint l = 0; l < s->dim; l++) {
    g_free(s->cut[l]);
    gsize rows = pieces(s, l), w = s->parts[l] + 1;
    s->cut[l] = g_new(guint64, rows * w);
    for (gsize i = 0; i < rows; i++)
      for (guint64 k = 0; k < w; k++)
        s->cut[l][i * w + k] =
            (guint64)(((unsigned __int128)s->extent[s->order[l]] * k) / s->parts[l]);
  }
}

static LbdBox
box_of(const Lbd *s, guint r)
{
  LbdBox b = {{0, 0, 0}, {1, 1, 1}};
  gsize index = 0;
  for (guint l = 0; l < s->dim; l++) {
    guint a = s->order[l];
    guint64 k = coord(s, r, a);
    const guint64 *c = row(s, l, index);
    b.lo[a] = c[k];
    b.hi[a] = c[k + 1];
    index = index * s->parts[l] + k;
  }
  return b;
}

static void
set_order(Lbd *s, const guint *order)
{
  for (guint l = 0; l < s->dim; l++) {
    s->order[l] = order[l];
    s->parts[l] = s->procs[order[l]];
  }
  uniform_cuts(s);
}

/* A copy of the hierarchy (to remember the boxes cells move from). */
static Lbd *
lbd_copy(const Lbd *s)
{
  Lbd *c = g_memdup2(s, sizeof *s);
  c->held = c->outgoing = NULL;
  for (guint l = 0; l < s->dim; l++)
    c->cut[l] = g_memdup2(s->cut[l], sizeof(guint64) * pieces(s, l) * (s->parts[l] + 1));
  return c;
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Lbd, lbd_free)

static gpointer
lbd_new(LbRank *self)
{
  const LbWork *work = lb_rank_work(self);
  Lbd *s = g_new0(Lbd, 1);
  s->alt_level = -1;
  s->held = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  s->outgoing = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  s->dim = work->dim;
  s->ranks = (guint)lb_rank_count(self);
  s->me = lb_rank_id(self);
  guint64 stride = 1;
  for (guint a = 0; a < 3; a++) {
    s->procs[a] = a < s->dim ? work->procs[a] : 1;
    s->extent[a] = a < s->dim ? work->size[a] : 1;
    s->stride[a] = stride;
    stride *= s->procs[a];
  }
  guint order[3] = {0, 1, 2};
  set_order(s, order); /* the model's own blocks: where every rank starts */
  LbdBox mine = box_of(s, (guint)s->me);
  g_assert_cmpuint(lb_rank_units(self)->len, ==, lbd_box_cells(&mine, s->dim));
  return s;
}

/* MESH: the rank recounts its subset's load. */
static guint64
mesh(LbRank *self)
{
  GArray *units = lb_rank_units(self);
  lb_execute(self, lb_params_get_double(lb_rank_params(self), "mesh-flops") * units->len);
  guint64 load = 0;
  for (guint i = 0; i < units->len; i++)
    load += g_array_index(units, LbUnit, i).load;
  return load;
}

/* Appends the ranks whose boxes meet `box`, inside the piece of level
 * `from` given by index and the coordinates fixed so far (rank_part). */
static void
meeting(const Lbd *s, guint l, gsize index, guint64 rank_part, const LbdBox *box, GArray *out)
{
  if (l == s->dim) {
    guint r = (guint)rank_part;
    g_array_append_val(out, r);
    return;
  }
  guint a = s->order[l];
  const guint64 *c = row(s, l, index);
  for (guint64 k = 0; k < s->parts[l]; k++)
    if (c[k] < c[k + 1] && c[k] < box->hi[a] && c[k + 1] > box->lo[a])
      meeting(s, l + 1, index * s->parts[l] + k, rank_part + k * s->stride[a], box, out);
}

static int
compare_guint(gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *)a, y = *(const guint *)b;
  return x < y ? -1 : x > y;
}

/* Appends to out the cells of `part` (a box inside `box`) from `cells`,
 * the cells of `box` sorted by id: runs along the first axis. */
static void
take_box(const LbUnit *cells, const LbdBox *box, const LbdBox *part, GArray *out)
{
  guint64 wx = box->hi[0] - box->lo[0], wy = box->hi[1] - box->lo[1];
  guint64 run = part->hi[0] - part->lo[0];
  for (guint64 z = part->lo[2]; z < part->hi[2]; z++)
    for (guint64 y = part->lo[1]; y < part->hi[1]; y++) {
      guint64 first = (part->lo[0] - box->lo[0]) + wx * ((y - box->lo[1]) + wy * (z - box->lo[2]));
      g_array_append_vals(out, cells + first, (guint)run);
    }
}

static LbdBox
intersect(const LbdBox *a, const LbdBox *b)
{
  LbdBox c;
  for (guint i = 0; i < 3; i++) {
    c.lo[i] = MAX(a->lo[i], b->lo[i]);
    c.hi[i] = MAX(c.lo[i], MIN(a->hi[i], b->hi[i]));
  }
  return c;
}

/* The ranks of my piece of level `from` whose boxes under h meet `box`. */
static void
meeting_in_piece(const Lbd *h, int me, guint from, const LbdBox *box, GArray *out)
{
  guint64 fixed = 0;
  for (guint l = 0; l < from; l++)
    fixed += coord(h, (guint)me, h->order[l]) * h->stride[h->order[l]];
  meeting(h, from, piece(h, (guint)me, from), fixed, box, out);
}

/* Moves cells from the boxes of `old` to those of s, inside the piece of
 * level `from` that holds this rank. A rank knows both hierarchies, so it
 * knows whom to send which box of cells, and whom to expect cells from. */
static void
repartition(LbRank *self, Lbd *s, const Lbd *old, guint from, int tag, guint round)
{
  GArray *units = lb_rank_units(self);
  LbdBox was = box_of(old, (guint)s->me), mine = box_of(s, (guint)s->me);
  g_array_set_size(s->held, units->len);
  if (units->len > 0)
    memcpy(s->held->data, units->data, units->len * sizeof(LbUnit));
  const LbUnit *held = (const LbUnit *)s->held->data;
  g_autoptr(GArray) targets = g_array_new(FALSE, FALSE, sizeof(guint));
  meeting_in_piece(s, s->me, from, &was, targets);
  GArray *piece_cells = s->outgoing;
  for (guint i = 0; i < targets->len; i++) { /* ascending: runs repeat byte for byte */
    guint dst = g_array_index(targets, guint, i);
    LbdBox theirs = box_of(s, dst);
    if ((int)dst == s->me || !lbd_boxes_meet(&theirs, &was, s->dim))
      continue;
    LbdBox part = intersect(&was, &theirs);
    g_array_set_size(piece_cells, 0);
    take_box(held, &was, &part, piece_cells);
    lb_send_units(self, (int)dst, tag, round, (const LbUnit *)piece_cells->data, piece_cells->len,
                  NULL);
  }
  /* my new box's cells, each put where its id belongs (no sort) */
  const LbWork *work = lb_rank_work(self);
  guint64 cells_now = lbd_box_cells(&mine, s->dim);
  g_autoptr(GArray) arrived = g_array_sized_new(FALSE, FALSE, sizeof(LbUnit), (guint)cells_now);
  if (lbd_boxes_meet(&was, &mine, s->dim)) {
    LbdBox part = intersect(&was, &mine);
    take_box(held, &was, &part, arrived);
  }
  /* senders: the old boxes of my piece that meet my new box (the levels
   * above may have left the whole piece empty) */
  g_autoptr(GArray) senders = g_array_new(FALSE, FALSE, sizeof(guint));
  meeting_in_piece(old, s->me, from, &mine, senders);
  for (guint i = 0; i < senders->len; i++) {
    guint src = g_array_index(senders, guint, i);
    LbdBox theirs = box_of(old, src);
    if ((int)src != s->me && lbd_boxes_meet(&theirs, &mine, s->dim))
      lb_recv_units(self, (int)src, tag, arrived, NULL);
  }
  g_assert_cmpuint(arrived->len, ==, cells_now);
  g_array_set_size(units, (guint)cells_now);
  guint64 wx = mine.hi[0] - mine.lo[0], wy = mine.hi[1] - mine.lo[1];
  guint64 nx = work->size[0], ny = s->dim > 1 ? work->size[1] : 1;
  const LbUnit *in = (const LbUnit *)arrived->data;
  for (guint i = 0; i < arrived->len;) {
    /* a run along x: one place, one copy */
    guint n = 1;
    while (i + n < arrived->len && in[i + n].id == in[i].id + n)
      n++;
    guint64 id = in[i].id, x = id % nx, y = (id / nx) % ny, z = id / (nx * ny);
    guint64 at = (x - mine.lo[0]) + wx * ((y - mine.lo[1]) + wy * (z - mine.lo[2]));
    memcpy(&g_array_index(units, LbUnit, at), in + i, n * sizeof(LbUnit));
    i += n;
  }
  lb_wait_sends(self);
  g_assert_cmpuint(units->len, ==, lbd_box_cells(&mine, s->dim));
}

/* The members of my piece of level l (ranks that share the coordinates of
 * the levels above), ascending. */
static int *
piece_members(const Lbd *s, guint l, guint *n)
{
  GArray *m = g_array_new(FALSE, FALSE, sizeof(int));
  /* the free axes are the levels l and below */
  guint64 base = 0;
  for (guint k = 0; k < l; k++)
    base += coord(s, (guint)s->me, s->order[k]) * s->stride[s->order[k]];
  guint64 count = 1;
  for (guint k = l; k < s->dim; k++)
    count *= s->parts[k];
  for (guint64 i = 0; i < count; i++) {
    guint64 rest = i, r = base;
    for (guint k = l; k < s->dim; k++) {
      r += (rest % s->parts[k]) * s->stride[s->order[k]];
      rest /= s->parts[k];
    }
    int x = (int)r;
    g_array_append_val(m, x);
  }
  g_array_sort(m, (GCompareFunc)compare_guint);
  *n = m->len;
  return (int *)g_array_free(m, FALSE);
}

/* Group ids of the moved slabs' members at each level (level 1's and
 * level 2's pieces take ids from 0 up). */
#define MOVED_GROUP_ID(level) (LB_GROUP_ID_MAX - (level))

/* After a move, only the slabs whose cuts moved have new loads: every rank
 * of my piece knows which, and knows the others' loads already. The members
 * of the moved slabs (and the piece's first rank, its root) reduce their
 * loads to the root, which broadcasts the whole row: m - 1 + n - 1 messages
 * for m members of moved slabs in a piece of n ranks, against 2(n - 1) for
 * an allreduce of all, in the same 2 log2 steps; the sums are the same. */
static void
update_slabs(LbRank *self, const Lbd *s, guint l, LbGroup *group, const gboolean *moved,
             guint64 *slabs, guint64 mine)
{
  guint parts = (guint)s->parts[l], axis = s->order[l];
  guint64 k_me = coord(s, (guint)s->me, axis);
  guint64 base = 0; /* the piece's first rank: coordinates 0 on the free axes */
  for (guint k = 0; k < l; k++)
    base += coord(s, (guint)s->me, s->order[k]) * s->stride[s->order[k]];
  int root = (int)base;
  if (moved[k_me] || s->me == root) {
    /* the piece's ranks in ascending order (the grid's coordinates
     * counted up, the first axis fastest), those of moved slabs and the root */
    g_autoptr(GArray) members = g_array_new(FALSE, FALSE, sizeof(int));
    gboolean free_axis[3] = {FALSE, FALSE, FALSE};
    for (guint k = l; k < s->dim; k++)
      free_axis[s->order[k]] = TRUE;
    guint64 c[3] = {0, 0, 0};
    for (;;) {
      if (moved[c[axis]] || (c[0] == 0 && c[1] == 0 && c[2] == 0)) {
        int r = (int)(base + c[0] * s->stride[0] + c[1] * s->stride[1] + c[2] * s->stride[2]);
        g_array_append_val(members, r);
      }
      guint a = 0;
      while (a < s->dim && (!free_axis[a] || ++c[a] == s->procs[a])) {
        c[a] = 0;
        a++;
      }
      if (a == s->dim)
        break;
    }
    g_autofree guint64 *sums = g_new0(guint64, parts);
    if (moved[k_me])
      sums[k_me] = mine;
    g_autoptr(LbGroup) movers =
        lb_group_new(self, MOVED_GROUP_ID(l), (const int *)members->data, members->len);
    lb_group_reduce_sum_u64(movers, 0, sums, parts);
    if (s->me == root)
      for (guint k = 0; k < parts; k++)
        if (moved[k])
          slabs[k] = sums[k];
  }
  if (group != NULL)
    lb_group_bcast(group, 0, slabs, sizeof(guint64) * parts);
  else
    lb_bcast(self, root, slabs, sizeof(guint64) * parts);
}

/* One level's loop of the pseudocode inside my piece: while the metric is
 * above the tolerance, move the cuts, move the cells, mesh again. Every
 * box of a slab spans the slab's whole extent along the level's axis, so
 * the slabs' loads are all the estimate needs: an allreduce the first time
 * (unless known, the loads the mesh phase summed), then only the moved
 * slabs' (update_slabs). Returns the iterations; *mine is the rank's load
 * on return. */
static guint
balance_level(LbRank *self, Lbd *s, guint l, LbGroup *group, const guint64 *known, guint64 *mine)
{
  const LbParams *params = lb_rank_params(self);
  double tolerance = lb_params_get_double(params, "tolerance");
  guint max_iterations = (guint)lb_params_get_int(params, "max-iterations");
  guint axis = s->order[l];
  guint parts = (guint)s->parts[l];
  gsize index = piece(s, (guint)s->me, l);
  gsize row_bytes = sizeof(guint64) * (parts + 1);
  g_autofree guint64 *slabs = g_new(guint64, parts);
  g_autofree guint64 *cuts = g_new(guint64, parts + 1);
  g_autofree guint64 *best = g_memdup2(row(s, l, index), row_bytes);
  g_autofree LbdBox *spans = g_new0(LbdBox, parts);
  g_autofree gboolean *moved = g_new0(gboolean, parts);
  guint64 k_me = coord(s, (guint)s->me, axis);
  guint iterations = 0;
  double best_f = G_MAXDOUBLE;
  gboolean back = FALSE; /* the last move went back to the best cuts */
  if (known != NULL)
    memcpy(slabs, known, sizeof(guint64) * parts);
  for (;;) {
    if (iterations > 0) {
      guint count = 0;
      for (guint k = 0; k < parts; k++)
        count += moved[k];
      if (count == parts)
        known = NULL;
      else if (count > 0)
        update_slabs(self, s, l, group, moved, slabs, *mine);
    }
    if (known == NULL) {
      memset(slabs, 0, sizeof(guint64) * parts);
      slabs[k_me] = *mine;
      if (group != NULL)
        lb_group_allreduce_sum_u64(group, slabs, parts);
      else
        lb_allreduce_sum_u64(self, slabs, parts);
    }
    known = slabs;
    double f = lbd_metric(slabs, parts);
    guint64 *now = row(s, l, index);
    lb_narrate(self, "level %u (%c): metric %.4f after %u redistributions", l, "xyz"[axis], f,
               iterations);
    if (back || f <= tolerance)
      break;
    if (f < best_f) {
      best_f = f;
      memcpy(best, now, row_bytes);
    }
    if (iterations == max_iterations)
      break;
    if (f > best_f) {
      /* the estimate made it worse (it assumes load spread evenly over
       * each box, and can swing past the balance): go back to the best
       * cuts seen, and stop */
      memcpy(cuts, best, row_bytes);
      back = TRUE;
      lb_narrate(self, "level %u: worse than %.4f: back to those cuts", l, best_f);
    } else {
      for (guint k = 0; k < parts; k++) {
        spans[k].lo[axis] = now[k];
        spans[k].hi[axis] = now[k + 1];
      }
      lbd_equalize_cuts(spans, slabs, parts, axis, 0, s->extent[axis], parts, cuts);
      if (memcmp(cuts, now, row_bytes) == 0)
        break; /* the estimate cannot do better */
    }
    for (guint k = 0; k < parts; k++)
      moved[k] = cuts[k] != now[k] || cuts[k + 1] != now[k + 1];
    /* the hierarchy as it was: this row's old cuts */
    g_autofree guint64 *before = g_memdup2(now, row_bytes);
    Lbd old = *s;
    old.alt_level = (int)l;
    old.alt_index = index;
    old.alt_row = before;
    memcpy(now, cuts, row_bytes);
    lb_phase_round(self, iterations);
    repartition(self, s, &old, l, TAG(l, iterations), iterations);
    *mine = mesh(self);
    iterations++;
  }
  return iterations;
}

/* Cell faces two boxes share (0 unless they touch along one axis and
 * overlap along the others). */
static guint64
shared_faces(const LbdBox *a, const LbdBox *b, guint dim)
{
  guint64 faces = 1;
  guint touching = 0;
  for (guint i = 0; i < dim; i++) {
    if (a->hi[i] == b->lo[i] || b->hi[i] == a->lo[i]) {
      touching++;
      continue;
    }
    guint64 lo = MAX(a->lo[i], b->lo[i]), hi = MIN(a->hi[i], b->hi[i]);
    if (hi <= lo)
      return 0;
    faces *= hi - lo;
  }
  return touching == 1 ? faces : 0;
}

/* The application's neighbour graph. In 2D, BUILD_UNDIRECTED_TDG on the
 * cuts: columns are the first level's slabs, their subsets the second's.
 * In 3D, the boxes that meet mine grown by one cell along each axis in
 * turn, found down the cut hierarchy. Each edge carries the faces the two
 * boxes share; returns the number of neighbours. */
static guint
build_graph(LbRank *self, const Lbd *s)
{
  LbdBox mine = box_of(s, (guint)s->me);
  g_autoptr(GArray) ranks = g_array_new(FALSE, FALSE, sizeof(guint));
  if (s->dim == 2) {
    LbColumns p = {(guint)s->parts[0], (guint)s->parts[1], s->cut[0], s->cut[1]};
    guint c = (guint)coord(s, (guint)s->me, s->order[0]);
    guint r = (guint)coord(s, (guint)s->me, s->order[1]);
    g_autoptr(GArray) subsets = g_array_new(FALSE, FALSE, sizeof(guint));
    lb_tdg_neighbours(&p, c * p.nrows + r, subsets);
    for (guint i = 0; i < subsets->len; i++) {
      guint subset = g_array_index(subsets, guint, i);
      guint q = (guint)((subset / p.nrows) * s->stride[s->order[0]] +
                        (subset % p.nrows) * s->stride[s->order[1]]);
      g_array_append_val(ranks, q);
    }
  } else if (lbd_box_cells(&mine, s->dim) > 0) {
    for (guint a = 0; a < s->dim; a++) {
      LbdBox grown = mine;
      grown.lo[a] -= grown.lo[a] > 0;
      grown.hi[a] += grown.hi[a] < s->extent[a];
      meeting(s, 0, 0, 0, &grown, ranks);
    }
  }
  g_array_sort(ranks, compare_guint);
  g_autoptr(GArray) graph = g_array_new(FALSE, FALSE, sizeof(LbNeighbour));
  for (guint i = 0; i < ranks->len; i++) {
    guint q = g_array_index(ranks, guint, i);
    if ((int)q == s->me ||
        (graph->len > 0 && g_array_index(graph, LbNeighbour, graph->len - 1).rank == q))
      continue;
    LbdBox theirs = box_of(s, q);
    LbNeighbour n = {q, shared_faces(&mine, &theirs, s->dim)};
    g_assert(n.faces > 0);
    g_array_append_val(graph, n);
  }
  lb_rank_set_neighbours(self, (const LbNeighbour *)graph->data, graph->len);
  return graph->len;
}

static int
compare_axes(gconstpointer a, gconstpointer b, gpointer data)
{
  const double *f = data;
  guint x = *(const guint *)a, y = *(const guint *)b;
  if (f[x] != f[y])
    return f[x] < f[y] ? -1 : 1;
  return x < y ? -1 : x > y;
}

/* Every rank learns every piece's cuts: each sends the lower cut of its
 * box at every level below the first (the first's are everyone's already). */
static void
gather_cuts(LbRank *self, Lbd *s)
{
  if (s->dim < 2)
    return;
  guint levels = s->dim - 1;
  g_autofree guint32 *mine = g_new(guint32, levels);
  LbdBox box = box_of(s, (guint)s->me);
  for (guint l = 1; l < s->dim; l++)
    mine[l - 1] = (guint32)box.lo[s->order[l]];
  g_autofree guint32 *all = g_new(guint32, (gsize)s->ranks * levels);
  lb_allgather(self, mine, sizeof(guint32) * levels, all);
  guint64 c[3] = {0, 0, 0}; /* rank r's grid coordinates, counted up (no divisions) */
  for (guint r = 0; r < s->ranks; r++) {
    gsize index = 0;
    for (guint l = 1; l < s->dim; l++) {
      index = index * s->parts[l - 1] + c[s->order[l - 1]];
      row(s, l, index)[c[s->order[l]]] = all[(gsize)r * levels + l - 1];
    }
    for (guint a = 0; a < s->dim && ++c[a] == s->procs[a]; a++)
      c[a] = 0;
  }
}

static void
lbd_balance(LbRank *self, gpointer state)
{
  Lbd *s = state;

  lb_phase_begin(self, PHASE_MESH);
  guint64 mine = mesh(self);
  /* the slabs' loads along every axis, in one allreduce */
  guint64 total = 0;
  for (guint a = 0; a < s->dim; a++)
    total += s->procs[a];
  g_autofree guint64 *slabs = g_new0(guint64, total);
  guint64 at = 0;
  for (guint a = 0; a < s->dim; a++) {
    slabs[at + coord(s, (guint)s->me, a)] = mine;
    at += s->procs[a];
  }
  lb_allreduce_sum_u64(self, slabs, (guint)total);
  double f[3] = {0, 0, 0};
  at = 0;
  for (guint a = 0; a < s->dim; a++) {
    f[a] = lbd_metric(slabs + at, (guint)s->procs[a]);
    at += s->procs[a];
  }
  /* the smaller metric first, as the pseudocode chooses */
  guint order[3] = {0, 1, 2};
  g_qsort_with_data(order, (gint)s->dim, sizeof(guint), compare_axes, f);
  gboolean reordered = memcmp(order, s->order, sizeof(guint) * s->dim) != 0;
  g_autofree char *fz = s->dim == 3 ? g_strdup_printf(", f_z %.4f", f[2]) : g_strdup("");
  lb_narrate(self, "load %" G_GUINT64_FORMAT "; f_x %.4f, f_y %.4f%s; %c first%s", mine, f[0], f[1],
             fz, "xyz"[order[0]], reordered ? " (a new order: cuts start even)" : "");
  lb_metric_record(self, METRIC_FIRST_AXIS, order[0]);

  lb_phase_begin(self, PHASE_SLABS);
  /* the first level's slabs' loads, summed above for the current cuts */
  const guint64 *known = slabs;
  for (guint a = 0; a < order[0]; a++)
    known += s->procs[a];
  if (reordered) {
    /* a new hierarchy: start from its even cuts, moving the cells there */
    g_autoptr(Lbd) old = lbd_copy(s);
    set_order(s, order);
    repartition(self, s, old, 0, TAG(3, 0), 0);
    mine = mesh(self);
    known = NULL;
  }

  /* level 0 across the domain, then each level inside its piece */
  static const guint phases[] = {PHASE_SLABS, PHASE_STRIPS, PHASE_BLOCKS};
  for (guint l = 0; l < s->dim; l++) {
    if (l > 0)
      lb_phase_begin(self, phases[l]);
    g_autoptr(LbGroup) group = NULL;
    if (l > 0) {
      guint n = 0;
      g_autofree int *members = piece_members(s, l, &n);
      /* ids: level 1's pieces first, then level 2's */
      guint id = (guint)(l == 1 ? 0 : s->parts[0]) + (guint)piece(s, (guint)s->me, l);
      group = lb_group_new(self, id, members, n);
    }
    guint iterations = balance_level(self, s, l, group, l == 0 ? known : NULL, &mine);
    lb_metric_record(self, METRIC_ITER_X + s->order[l], iterations);
  }

  lb_phase_begin(self, PHASE_GRAPH);
  gather_cuts(self, s);
  lb_metric_record(self, METRIC_NEIGHBOURS, build_graph(self, s));
}

/* Each slab and strip runs its collectives in a group of its own, and
 * group ids are 16-bit. */
#define LBD_MAX_RANKS 60000

static gboolean
lbd_check(guint ranks, const LbParams *params, GError **error)
{
  if (ranks > LBD_MAX_RANKS) {
    g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID,
                "[scenario] ranks: lbd runs on at most %u ranks (one group per slab and strip); "
                "%u is more",
                LBD_MAX_RANKS, ranks);
    return FALSE;
  }
  return TRUE;
}

const LbBalancer lb_lbd_balancer = {
    .name = "lbd",
    .summary = "Load Balancing by Dimension: straight cuts along one axis, then cuts inside each "
               "slab along the next, moved until each metric is under its tolerance",
    .cite = "\"Load Balancing by Dimension\", design document of the PDT code (no author or year "
            "given)",
    .params = lbd_params,
    .phases = lbd_phases,
    .metrics = lbd_metrics,
    .models = lbd_models,
    .check = lbd_check,
    .state_new = lbd_new,
    .state_free = lbd_free,
    .balance = lbd_balance,
};
