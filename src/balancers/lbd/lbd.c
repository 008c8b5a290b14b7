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
 *           with BUILD_UNDIRECTED_TDG (2D).
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
     "the most neighbours any subset has in the task dependence graph (2D)"},
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
#define TAG_BOXES 0x2000

/* The cut hierarchy every rank keeps (the cuts of other slabs as of the
 * last graph phase). */
typedef struct {
  guint dim;
  guint order[3];    /* the axis of each level */
  guint64 parts[3];  /* slabs per level: the processor grid along its axis */
  guint64 extent[3]; /* cells along each axis */
  guint64 *cut[3];   /* level l: one row of parts[l] + 1 cuts per piece above it */
  guint ranks;
  guint64 procs[3];
  LbdBox *boxes; /* every rank's box now */
  int me;
} Lbd;

static void
lbd_free(gpointer state)
{
  Lbd *s = state;
  for (guint l = 0; l < 3; l++)
    g_free(s->cut[l]);
  g_free(s->boxes);
  g_free(s);
}

/* Grid coordinate of rank r along axis a (the first axis fastest). */
static guint64
coord(const Lbd *s, guint r, guint a)
{
  guint64 rest = r;
  for (guint b = 0; b < a; b++)
    rest /= s->procs[b];
  return rest % s->procs[a];
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

static guint64 *
cuts_of(const Lbd *s, guint r, guint l)
{
  return s->cut[l] + piece(s, r, l) * (s->parts[l] + 1);
}

static gsize
pieces(const Lbd *s, guint l)
{
  gsize n = 1;
  for (guint k = 0; k < l; k++)
    n *= s->parts[k];
  return n;
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
  for (guint l = 0; l < s->dim; l++) {
    const guint64 *c = cuts_of(s, r, l);
    guint64 k = coord(s, r, s->order[l]);
    b.lo[s->order[l]] = c[k];
    b.hi[s->order[l]] = c[k + 1];
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

static gpointer
lbd_new(LbRank *self)
{
  const LbWork *work = lb_rank_work(self);
  Lbd *s = g_new0(Lbd, 1);
  s->dim = work->dim;
  s->ranks = (guint)lb_rank_count(self);
  s->me = lb_rank_id(self);
  for (guint a = 0; a < 3; a++) {
    s->procs[a] = a < s->dim ? work->procs[a] : 1;
    s->extent[a] = a < s->dim ? work->size[a] : 1;
  }
  guint order[3] = {0, 1, 2};
  set_order(s, order); /* the model's own blocks: where every rank starts */
  s->boxes = g_new(LbdBox, s->ranks);
  for (guint r = 0; r < s->ranks; r++)
    s->boxes[r] = box_of(s, r);
  g_assert_cmpuint(lb_rank_units(self)->len, ==, lbd_box_cells(&s->boxes[s->me], s->dim));
  return s;
}

static guint64
units_load(GArray *units)
{
  guint64 load = 0;
  for (guint i = 0; i < units->len; i++)
    load += g_array_index(units, LbUnit, i).load;
  return load;
}

/* MESH: the rank recounts its subset's load. */
static guint64
mesh(LbRank *self)
{
  GArray *units = lb_rank_units(self);
  lb_execute(self, lb_params_get_double(lb_rank_params(self), "mesh-flops") * units->len);
  return units_load(units);
}

/* The rank that owns cell id under the hierarchy's cuts, among the ranks
 * of `members` (a piece of level `from` or the whole domain). */
static guint
owner_of(const Lbd *s, guint64 id, const LbWork *work, guint any_member)
{
  guint64 x[3] = {id % work->size[0], work->dim > 1 ? (id / work->size[0]) % work->size[1] : 0,
                  work->dim > 2 ? id / (work->size[0] * work->size[1]) : 0};
  guint64 k[3] = {0, 0, 0};
  gsize index = 0;
  for (guint l = 0; l < s->dim; l++) {
    const guint64 *c = s->cut[l] + index * (s->parts[l] + 1);
    guint64 lo = 0, hi = s->parts[l]; /* last k with c[k] <= x */
    while (hi - lo > 1) {
      guint64 mid = (lo + hi) / 2;
      if (c[mid] <= x[s->order[l]])
        lo = mid;
      else
        hi = mid;
    }
    /* empty slabs share their cut: the cell is in the last of them */
    k[s->order[l]] = lo;
    index = index * s->parts[l] + lo;
  }
  (void)any_member;
  guint64 r = 0, stride = 1;
  for (guint a = 0; a < 3; a++) {
    r += k[a] * stride;
    stride *= s->procs[a];
  }
  return (guint)r;
}

static int
compare_units(gconstpointer a, gconstpointer b)
{
  guint64 x = ((const LbUnit *)a)->id, y = ((const LbUnit *)b)->id;
  return x < y ? -1 : x > y;
}

/* Moves cells from the boxes in s->boxes to those of the hierarchy's cuts,
 * among `members` (every rank, or one slab). A rank knows every member's
 * old and new box, so it knows whom to expect cells from. */
static void
repartition(LbRank *self, Lbd *s, const int *members, guint n, int tag, guint round)
{
  const LbWork *work = lb_rank_work(self);
  GArray *units = lb_rank_units(self);
  g_autofree LbdBox *next = g_new(LbdBox, n);
  for (guint i = 0; i < n; i++)
    next[i] = box_of(s, (guint)members[i]);
  /* where each of my cells goes */
  g_autoptr(GHashTable) out =
      g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, (GDestroyNotify)g_array_unref);
  g_autoptr(GArray) keep = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  for (guint i = 0; i < units->len; i++) {
    const LbUnit *u = &g_array_index(units, LbUnit, i);
    guint dst = owner_of(s, u->id, work, (guint)members[0]);
    if ((int)dst == s->me) {
      g_array_append_val(keep, *u);
      continue;
    }
    GArray *to = g_hash_table_lookup(out, GUINT_TO_POINTER(dst));
    if (to == NULL) {
      to = g_array_new(FALSE, FALSE, sizeof(LbUnit));
      g_hash_table_insert(out, GUINT_TO_POINTER(dst), to);
    }
    g_array_append_val(to, *u);
  }
  /* in member order, so that runs repeat byte for byte */
  for (guint i = 0; i < n; i++) {
    GArray *to = g_hash_table_lookup(out, GINT_TO_POINTER(members[i]));
    if (to == NULL)
      continue;
    g_assert(lbd_boxes_meet(&s->boxes[s->me], &next[i], s->dim));
    lb_send_units(self, members[i], tag, round, (const LbUnit *)to->data, to->len, NULL);
  }
  g_array_set_size(units, 0);
  g_array_append_vals(units, keep->data, keep->len);
  LbdBox mine = box_of(s, (guint)s->me);
  for (guint i = 0; i < n; i++)
    if (members[i] != s->me && lbd_boxes_meet(&s->boxes[members[i]], &mine, s->dim))
      lb_recv_units(self, members[i], tag, units, NULL);
  g_array_sort(units, compare_units);
  lb_wait_sends(self);
  for (guint i = 0; i < n; i++)
    s->boxes[members[i]] = next[i];
  g_assert_cmpuint(units->len, ==, lbd_box_cells(&mine, s->dim));
}

/* Loads of the slabs of one level inside a piece, from the members' loads
 * (members[i] has loads[i]). */
static void
slab_loads(const Lbd *s, guint l, const int *members, const guint64 *loads, guint n, guint64 *slabs)
{
  memset(slabs, 0, sizeof(guint64) * s->parts[l]);
  for (guint i = 0; i < n; i++)
    slabs[coord(s, (guint)members[i], s->order[l])] += loads[i];
}

/* One level's loop of the pseudocode inside one piece: while the metric is
 * above the tolerance, move the cuts, move the cells, mesh again. loads
 * holds the members' loads on entry and on return. Returns the
 * iterations. */
static guint
balance_level(LbRank *self, Lbd *s, guint l, LbGroup *group, const int *members, guint n,
              guint64 *loads)
{
  const LbParams *params = lb_rank_params(self);
  double tolerance = lb_params_get_double(params, "tolerance");
  guint max_iterations = (guint)lb_params_get_int(params, "max-iterations");
  guint axis = s->order[l];
  g_autofree guint64 *slabs = g_new(guint64, s->parts[l]);
  g_autofree guint64 *cuts = g_new(guint64, s->parts[l] + 1);
  g_autofree LbdBox *boxes = g_new(LbdBox, n);
  guint iterations = 0;
  for (;;) {
    slab_loads(s, l, members, loads, n, slabs);
    double f = lbd_metric(slabs, (guint)s->parts[l]);
    lb_narrate(self, "level %u (%c): metric %.4f after %u redistributions", l, "xyz"[axis], f,
               iterations);
    if (f <= tolerance || iterations == max_iterations)
      break;
    for (guint i = 0; i < n; i++)
      boxes[i] = s->boxes[members[i]];
    guint64 *now = cuts_of(s, (guint)s->me, l);
    lbd_equalize_cuts(boxes, loads, n, axis, 0, s->extent[axis], (guint)s->parts[l], cuts);
    if (memcmp(cuts, now, sizeof(guint64) * (s->parts[l] + 1)) == 0)
      break; /* the estimate cannot do better */
    memcpy(now, cuts, sizeof(guint64) * (s->parts[l] + 1));
    lb_phase_round(self, iterations);
    repartition(self, s, members, n, TAG(l, iterations), iterations);
    guint64 mine = mesh(self);
    if (group != NULL)
      lb_group_allgather(group, &mine, sizeof mine, loads);
    else
      lb_allgather(self, &mine, sizeof mine, loads);
    iterations++;
  }
  return iterations;
}

/* The members of my piece of level l (ranks that share the coordinates of
 * the levels above), ascending. */
static int *
piece_members(const Lbd *s, guint l, guint *n)
{
  GArray *m = g_array_new(FALSE, FALSE, sizeof(int));
  gsize mine = piece(s, (guint)s->me, l);
  for (guint r = 0; r < s->ranks; r++)
    if (piece(s, r, l) == mine) {
      int x = (int)r;
      g_array_append_val(m, x);
    }
  *n = m->len;
  return (int *)g_array_free(m, FALSE);
}

/* The 2D graph of BUILD_UNDIRECTED_TDG from the gathered boxes: columns
 * are the first level's slabs, their subsets the second's. */
static guint
tdg_neighbours(const Lbd *s)
{
  if (s->dim != 2)
    return 0;
  guint ncols = (guint)s->parts[0], nrows = (guint)s->parts[1];
  g_autofree guint64 *ycuts = g_new(guint64, (gsize)ncols * (nrows + 1));
  for (guint c = 0; c < ncols; c++)
    memcpy(ycuts + (gsize)c * (nrows + 1), s->cut[1] + (gsize)c * (nrows + 1),
           sizeof(guint64) * (nrows + 1));
  LbColumns p = {ncols, nrows, s->cut[0], ycuts};
  guint c = (guint)coord(s, (guint)s->me, s->order[0]);
  guint r = (guint)coord(s, (guint)s->me, s->order[1]);
  g_autoptr(GArray) out = g_array_new(FALSE, FALSE, sizeof(guint));
  lb_tdg_neighbours(&p, c * nrows + r, out);
  return out->len;
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

static void
lbd_balance(LbRank *self, gpointer state)
{
  Lbd *s = state;
  guint p = s->ranks;

  lb_phase_begin(self, PHASE_MESH);
  g_autofree guint64 *loads = g_new(guint64, p);
  guint64 mine = mesh(self);
  lb_allgather(self, &mine, sizeof mine, loads);
  /* f along each axis; the smaller first, as the pseudocode chooses */
  double f[3] = {0, 0, 0};
  guint order[3] = {0, 1, 2};
  g_autofree int *everyone = g_new(int, p);
  for (guint r = 0; r < p; r++)
    everyone[r] = (int)r;
  for (guint a = 0; a < s->dim; a++) {
    g_autofree guint64 *slabs = g_new0(guint64, s->procs[a]);
    for (guint r = 0; r < p; r++)
      slabs[coord(s, r, a)] += loads[r];
    f[a] = lbd_metric(slabs, (guint)s->procs[a]);
  }
  g_qsort_with_data(order, (gint)s->dim, sizeof(guint), compare_axes, f);
  gboolean reordered = memcmp(order, s->order, sizeof(guint) * s->dim) != 0;
  g_autofree char *fz = s->dim == 3 ? g_strdup_printf(", f_z %.4f", f[2]) : g_strdup("");
  lb_narrate(self, "load %" G_GUINT64_FORMAT "; f_x %.4f, f_y %.4f%s; %c first%s", mine, f[0], f[1],
             fz, "xyz"[order[0]], reordered ? " (a new order: cuts start even)" : "");
  lb_metric_record(self, METRIC_FIRST_AXIS, order[0]);
  if (reordered) {
    /* a new hierarchy: start from its even cuts, moving the cells there */
    lb_phase_begin(self, PHASE_SLABS);
    set_order(s, order);
    repartition(self, s, everyone, p, TAG(3, 0), 0);
    mine = mesh(self);
    lb_allgather(self, &mine, sizeof mine, loads);
  }

  /* level 0 across the domain, then each level inside its piece */
  static const guint phases[] = {PHASE_SLABS, PHASE_STRIPS, PHASE_BLOCKS};
  for (guint l = 0; l < s->dim; l++) {
    lb_phase_begin(self, phases[l]);
    guint n = p;
    g_autofree int *members = l == 0 ? NULL : piece_members(s, l, &n);
    g_autofree guint64 *piece_loads = NULL;
    g_autoptr(LbGroup) group = NULL;
    if (l > 0) {
      /* the piece's loads, from the gathered ones; the group's own
       * allgathers keep them as cells move */
      piece_loads = g_new(guint64, n);
      for (guint i = 0; i < n; i++)
        piece_loads[i] = loads[members[i]];
      group = lb_group_new(
          self, (guint)(l == 1 ? 0 : s->parts[0]) + (guint)piece(s, (guint)s->me, l), members, n);
    }
    guint iterations = balance_level(self, s, l, group, l == 0 ? everyone : members, n,
                                     l == 0 ? loads : piece_loads);
    lb_metric_record(self, METRIC_ITER_X + s->order[l], iterations);
    if (l > 0)
      for (guint i = 0; i < n; i++)
        loads[members[i]] = piece_loads[i];
  }

  /* every rank learns every box: the cuts of the other slabs, and the
   * graph's input */
  lb_phase_begin(self, PHASE_GRAPH);
  LbdBox box = box_of(s, (guint)s->me);
  lb_allgather(self, &box, sizeof box, s->boxes);
  for (guint r = 0; r < p; r++)
    for (guint l = 0; l < s->dim; l++) {
      guint64 *c = cuts_of(s, r, l);
      guint64 k = coord(s, r, s->order[l]);
      c[k] = s->boxes[r].lo[s->order[l]];
      c[k + 1] = s->boxes[r].hi[s->order[l]];
    }
  lb_metric_record(self, METRIC_NEIGHBOURS, tdg_neighbours(s));
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
