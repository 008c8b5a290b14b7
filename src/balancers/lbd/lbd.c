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

#include "balancers/cuts/cuts.h"
#include "balancers/registry.h"
#include "lbsim/model.h"

XBT_LOG_EXTERNAL_CATEGORY(lb);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(lb_lbd, lb, "Load Balancing by Dimension");

enum { PHASE_MESH, PHASE_SLABS, PHASE_STRIPS, PHASE_BLOCKS, PHASE_GRAPH };

static const char *const lbd_phases[] = {"mesh", "slabs", "strips", "blocks", "graph", NULL};

enum {
  METRIC_ITER_X,
  METRIC_ITER_Y,
  METRIC_ITER_Z,
  METRIC_FIRST_AXIS,
  METRIC_NEIGHBOURS,
  METRIC_STOP_TOLERANCE, /* then unchanged, cap, worse: as Stop */
};

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
    {"loops-tolerance", "loops", LB_AGGREGATE_SUM, LB_COMBINE_SUM, NULL,
     "loops (one per level and piece, every step) that stopped with the metric within the "
     "tolerance"},
    {"loops-unchanged", "loops", LB_AGGREGATE_SUM, LB_COMBINE_SUM, NULL,
     "loops that stopped above the tolerance because Redistribute found no better cuts (with "
     "redistribute = best: none exist)"},
    {"loops-cap", "loops", LB_AGGREGATE_SUM, LB_COMBINE_SUM, NULL,
     "loops that stopped at max-iterations"},
    {"loops-worse", "loops", LB_AGGREGATE_SUM, LB_COMBINE_SUM, NULL,
     "loops that stopped after a worse metric sent the cuts back to the best seen (redistribute "
     "= even only)"},
    {NULL},
};

static const LbParamSpec lbd_params[] = {
    {"tolerance", LB_PARAM_DOUBLE, "0.05", 0, 100, NULL,
     "stop moving an axis' cuts once its metric (max/mean - 1 of the slabs' loads) is at most "
     "this"},
    {"max-iterations", LB_PARAM_INT, "10", 1, 1000, NULL,
     "redistributions at most per axis and slab in one adaptation step"},
    {"mesh-flops", LB_PARAM_DOUBLE, "5", 0, 1e9, NULL,
     "flops per cell to recount a subset's load (MESH), and to sum it by coordinate for the "
     "profile"},
    {"axis-order", LB_PARAM_CHOICE, "once", 0, 0, "once|every-step",
     "which axis goes first: the one with the smaller metric, decided once at the first step on "
     "the grid's straight columns and rows and kept (the pseudocode's choice where both metrics "
     "are slab metrics), or decided again every step from the ranks' grid rows and columns "
     "(which rebuilds the hierarchy whenever the two metrics cross)"},
    {"redistribute", LB_PARAM_CHOICE, "best", 0, 0, "best|profile|even",
     "Redistribute, which the document leaves open: best: the best cuts of the piece's load "
     "profile along the axis (allreduced once per loop), whose heaviest slab is the least any "
     "cuts give, each cut as near its share as that allows: a loop stops within the tolerance "
     "or where no cuts do better; profile: the nearest shares of that profile (can stop well "
     "above the best); even: each slab's load taken as spread evenly over its box (lbsim's "
     "first estimate, which can oscillate)"},
    {NULL},
};

#define TAG(level, iteration) ((int)(0x1000 + (level)*0x100 + (iteration)))

static gpointer
lbd_new(LbRank *self)
{
  return lb_cuts_new(self, FALSE); /* the model's own blocks: where every rank starts */
}

/* MESH's simulated time: the rank recounts its subset's load. After a
 * move the simulator has the sum already (lb_cuts_repartition adds it up
 * as it places the cells, and a box that stayed keeps its load), so only
 * the time is taken there. */
static void
mesh_time(LbRank *self)
{
  lb_execute(self,
             lb_params_get_double(lb_rank_params(self), "mesh-flops") * lb_rank_units(self)->len);
}

/* MESH at the start of a step, when the loads have changed: the sum of
 * the rank's own units, which the core has counted already. */
static guint64
mesh(LbRank *self)
{
  mesh_time(self);
  return lb_rank_step_load(self);
}

/* Group ids of the moved slabs' members at each level (level 1's and
 * level 2's pieces take ids from 0 up). */
#define MOVED_GROUP_ID(level) (LB_GROUP_ID_MAX - (level))

/* The ranks of the moved slabs of the piece of level l that starts at rank
 * `base`, and that first rank (the root), ascending. Every rank of the
 * piece lists the same, so the simulator lists each once and the ranks'
 * groups share it (a small table of recent lists, compared whole). */
typedef struct {
  guint dim, l, parts;
  guint order[3];
  guint64 base, procs[3], stride[3];
  gboolean *moved;
  GBytes *members;
} Movers;

static Movers movers_listed[61];

static GBytes *
movers(const LbCuts *s, guint l, guint64 base, const gboolean *moved)
{
  guint parts = (guint)s->parts[l], axis = s->order[l];
  guint64 h = lb_hash64(base ^ ((guint64)l << 40) ^ ((guint64)parts << 48));
  for (guint k = 0; k < parts; k++)
    h = lb_hash64(h ^ ((guint64)moved[k] << (k % 64)));
  Movers *m = &movers_listed[h % G_N_ELEMENTS(movers_listed)];
  if (m->members != NULL && m->dim == s->dim && m->l == l && m->parts == parts && m->base == base &&
      memcmp(m->order, s->order, sizeof m->order) == 0 &&
      memcmp(m->procs, s->procs, sizeof m->procs) == 0 &&
      memcmp(m->stride, s->stride, sizeof m->stride) == 0 &&
      memcmp(m->moved, moved, sizeof(gboolean) * parts) == 0)
    return g_bytes_ref(m->members);
  /* the piece's ranks in ascending order (the grid's coordinates counted
   * up, the first axis fastest), those of moved slabs and the root */
  g_autoptr(GArray) members = g_array_new(FALSE, FALSE, sizeof(int));
  gboolean free_axis[3] = {FALSE, FALSE, FALSE};
  for (guint k = l; k < s->dim; k++)
    free_axis[s->order[k]] = TRUE;
  /* the moved slabs' coordinates along the axis, the only ones visited */
  g_autofree guint64 *along = g_new(guint64, parts);
  guint64 n_moved = 0;
  for (guint k = 0; k < parts; k++)
    if (moved[k])
      along[n_moved++] = k;
  if (!moved[0]) { /* the root: the piece's first rank */
    int root = (int)base;
    g_array_append_val(members, root);
  }
  guint64 d[3] = {0, 0, 0}; /* along `axis` an index into along */
  for (;;) {
    guint64 r = base;
    for (guint a = 0; a < s->dim; a++)
      if (free_axis[a])
        r += (a == axis ? along[d[a]] : d[a]) * s->stride[a];
    int rank = (int)r;
    g_array_append_val(members, rank);
    guint a = 0;
    while (a < s->dim && (!free_axis[a] || ++d[a] == (a == axis ? n_moved : s->procs[a]))) {
      d[a] = 0;
      a++;
    }
    if (a == s->dim)
      break;
  }
  if (m->members != NULL)
    g_bytes_unref(m->members);
  if (m->parts != parts) {
    g_free(m->moved);
    m->moved = g_new(gboolean, parts);
  }
  m->dim = s->dim;
  m->l = l;
  m->parts = parts;
  m->base = base;
  memcpy(m->order, s->order, sizeof m->order);
  memcpy(m->procs, s->procs, sizeof m->procs);
  memcpy(m->stride, s->stride, sizeof m->stride);
  memcpy(m->moved, moved, sizeof(gboolean) * parts);
  guint n = members->len;
  m->members = g_bytes_new_take(g_array_free(g_steal_pointer(&members), FALSE), n * sizeof(int));
  return g_bytes_ref(m->members);
}

/* What a level's pieces are called. */
static const char *
part_name(guint l)
{
  return l == 0 ? "slabs" : l == 1 ? "strips" : "blocks";
}

/* After a move, only the slabs whose cuts moved have new loads: every rank
 * of my piece knows which, and knows the others' loads already. The members
 * of the moved slabs (and the piece's first rank, its root) reduce their
 * loads to the root, which broadcasts the whole row: m - 1 + n - 1 messages
 * for m members of moved slabs in a piece of n ranks, against 2(n - 1) for
 * an allreduce of all, in the same 2 log2 steps; the sums are the same. */
static void
update_slabs(LbRank *self, const LbCuts *s, guint l, LbGroup *group, const gboolean *moved,
             guint64 *slabs, guint64 mine, guint64 *sums)
{
  guint parts = (guint)s->parts[l], axis = s->order[l];
  guint64 k_me = lb_cuts_coord(s, (guint)s->me, axis);
  guint64 base = 0; /* the piece's first rank: coordinates 0 on the free axes */
  for (guint k = 0; k < l; k++)
    base += lb_cuts_coord(s, (guint)s->me, s->order[k]) * s->stride[s->order[k]];
  int root = (int)base;
  if (moved[k_me] || s->me == root) {
    g_autoptr(GBytes) members = movers(s, l, base, moved);
    memset(sums, 0, sizeof(guint64) * parts);
    if (moved[k_me])
      sums[k_me] = mine;
    g_autoptr(LbGroup) group_of_movers = lb_group_new_shared(self, MOVED_GROUP_ID(l), members);
    lb_narrate_labels(self, "the moved %s' loads (%u sums)", part_name(l), parts);
    lb_group_reduce_sum_u64(group_of_movers, 0, sums, parts);
    if (s->me == root)
      for (guint k = 0; k < parts; k++)
        if (moved[k])
          slabs[k] = sums[k];
  }
  lb_narrate_labels(self, "the %s' loads (%u)", part_name(l), parts);
  if (group != NULL)
    lb_group_bcast(group, 0, slabs, sizeof(guint64) * parts);
  else
    lb_bcast(self, root, slabs, sizeof(guint64) * parts);
}

/* Every rank of a piece equalizes the same row from the same loads and
 * reaches the same cuts. The simulator works each input out once and hands
 * the result to the ranks that bring the same input (a small table of
 * recent inputs, since the pieces' ranks interleave); what each rank
 * computes is unchanged, only the simulator's own time is saved. */
typedef struct {
  guint axis, parts;
  guint64 extent;
  guint64 *input; /* the row's cuts (parts + 1), then the slabs' loads (parts) */
  guint64 *cuts;
} Equalized;

static Equalized equalized[61];

static void
equalize_row(const guint64 *now, const guint64 *slabs, guint parts, guint axis, guint64 extent,
             LbdBox *spans, guint64 *cuts)
{
  gsize n = 2 * (gsize)parts + 1;
  /* a few cuts and loads pick the slot; the whole input is compared */
  guint64 h = lb_hash64(((guint64)axis << 32) ^ parts ^ (extent << 8));
  for (guint k = 0; k < parts; k += MAX(parts / 4, 1))
    h = lb_hash64(h ^ now[k + 1] ^ lb_hash64(slabs[k]));
  h = lb_hash64(h ^ slabs[parts - 1]);
  Equalized *e = &equalized[h % G_N_ELEMENTS(equalized)];
  if (e->input != NULL && e->axis == axis && e->parts == parts && e->extent == extent &&
      memcmp(e->input, now, sizeof(guint64) * (parts + 1)) == 0 &&
      memcmp(e->input + parts + 1, slabs, sizeof(guint64) * parts) == 0) {
    memcpy(cuts, e->cuts, sizeof(guint64) * (parts + 1));
    return;
  }
  for (guint k = 0; k < parts; k++) {
    spans[k].lo[axis] = now[k];
    spans[k].hi[axis] = now[k + 1];
  }
  lbd_equalize_cuts(spans, slabs, parts, axis, 0, extent, parts, cuts);
  if (e->parts != parts) {
    g_free(e->input);
    g_free(e->cuts);
    e->input = g_new(guint64, n);
    e->cuts = g_new(guint64, parts + 1);
  }
  e->axis = axis;
  e->parts = parts;
  e->extent = extent;
  memcpy(e->input, now, sizeof(guint64) * (parts + 1));
  memcpy(e->input + parts + 1, slabs, sizeof(guint64) * parts);
  memcpy(e->cuts, cuts, sizeof(guint64) * (parts + 1));
}

/* " 0 4 8 12 16" */
static char *
describe_row(const guint64 *row, guint n)
{
  GString *out = g_string_new(NULL);
  for (guint k = 0; k < n; k++)
    g_string_append_printf(out, " %" G_GUINT64_FORMAT, row[k]);
  return g_string_free(out, FALSE);
}

/* Level l's cuts move from row to cuts: the whole rows, then each cut that
 * moved, from where to where. */
static void
narrate_cuts(LbRank *self, guint l, guint axis, const guint64 *row, const guint64 *cuts,
             guint parts, const char *why)
{
  g_autofree char *from = describe_row(row, parts + 1), *to = describe_row(cuts, parts + 1);
  g_autoptr(GString) moves = g_string_new(NULL);
  for (guint k = 1; k < parts; k++)
    if (row[k] != cuts[k])
      g_string_append_printf(moves, "%scut %u %" G_GUINT64_FORMAT " -> %" G_GUINT64_FORMAT,
                             moves->len ? ", " : "", k, row[k], cuts[k]);
  lb_narrate(self, "level %u (%c): %scuts%s ->%s (%s)", l, "xyz"[axis], why, from, to,
             moves -> str);
}

/* Why a level's loop stopped. */
typedef enum { STOP_TOLERANCE, STOP_UNCHANGED, STOP_CAP, STOP_WORSE } Stop;

/* One level's loop of the pseudocode inside my piece: while the metric is
 * above the tolerance, move the cuts, move the cells, mesh again. Every
 * box of a slab spans the slab's whole extent along the level's axis, so
 * the slabs' loads are what the metric needs: an allreduce the first time
 * (unless known, the loads the mesh phase summed), then only the moved
 * slabs' (update_slabs). Redistribute (which the document leaves open):
 * with `redistribute = best` or `profile`, the piece's load profile along
 * the axis (an allreduce of every rank's cells summed by coordinate, once
 * per loop: moving cells does not change it) gives the cuts: `best` the
 * cuts whose heaviest slab is the least any cuts give, each as near its
 * share as that allows; `profile` each cut where the prefix is nearest its
 * share. The cuts move only when the slabs' loads that the profile gives
 * exactly are better than the current ones: the metric never rises, and
 * the second pass finds the same cuts (with `best`, a loop above the
 * tolerance stops only where no cuts do better, as the pseudocode's `while`
 * asks of a loop that can end). With `even`, each
 * slab's load is taken as spread evenly over its box (which can swing
 * past the balance: a worse metric sends the cuts back to the best seen,
 * and stops). Returns the iterations and sets *stop; *mine is the rank's
 * load on return. */
static guint
balance_level(LbRank *self, LbCuts *s, guint l, LbGroup *group, const guint64 *known, guint64 *mine,
              Stop *stop)
{
  const LbParams *params = lb_rank_params(self);
  double tolerance = lb_params_get_double(params, "tolerance");
  guint max_iterations = (guint)lb_params_get_int(params, "max-iterations");
  const char *redistribute = lb_params_get_string(params, "redistribute");
  gboolean best_cuts = strcmp(redistribute, "best") == 0;
  gboolean by_profile = best_cuts || strcmp(redistribute, "profile") == 0;
  guint axis = s->order[l];
  guint parts = (guint)s->parts[l];
  gsize index = lb_cuts_piece(s, (guint)s->me, l);
  gsize row_bytes = sizeof(guint64) * (parts + 1);
  g_autofree guint64 *slabs = g_new(guint64, parts);
  g_autofree guint64 *cuts = g_new(guint64, parts + 1);
  g_autofree guint64 *best = g_memdup2(lb_cuts_row(s, l, index), row_bytes);
  g_autofree LbdBox *spans = g_new0(LbdBox, parts);
  g_autofree gboolean *moved = g_new0(gboolean, parts);
  g_autofree guint64 *before = g_new(guint64, parts + 1);
  g_autofree guint64 *sums = g_new(guint64, parts); /* update_slabs' */
  g_autofree guint64 *profile = NULL, *expected = g_new(guint64, parts);
  guint64 k_me = lb_cuts_coord(s, (guint)s->me, axis);
  guint iterations = 0;
  double best_f = G_MAXDOUBLE;
  gboolean back = FALSE; /* the last move went back to the best cuts */
  /* every rank of the piece decides the same: its first one tells */
  gboolean teller = lb_rank_narrating(self) && lb_cuts_coord(s, (guint)s->me, axis) == 0;
  for (guint k = l + 1; k < s->dim; k++)
    teller = teller && lb_cuts_coord(s, (guint)s->me, s->order[k]) == 0;
  g_autofree char *piece = teller ? lb_cuts_describe_piece(s, l) : NULL;
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
        update_slabs(self, s, l, group, moved, slabs, *mine, sums);
    }
    if (known == NULL) {
      memset(slabs, 0, sizeof(guint64) * parts);
      slabs[k_me] = *mine;
      lb_narrate_labels(self, "sums of the %s' loads (%u; mine %" G_GUINT64_FORMAT ")",
                        part_name(l), parts, *mine);
      if (group != NULL)
        lb_group_allreduce_sum_u64(group, slabs, parts);
      else
        lb_allreduce_sum_u64(self, slabs, parts);
    }
    known = slabs;
    /* the profile foretold the loads the mesh measured */
    if (by_profile && iterations > 0)
      g_assert_true(memcmp(slabs, expected, sizeof(guint64) * parts) == 0);
    double f = lbd_metric(slabs, parts);
    guint64 *now = lb_cuts_row(s, l, index);
    if (teller) {
      g_autofree char *loads = describe_row(slabs, parts);
      lb_narrate(self,
                 "level %u (%c): metric %.4f %s tolerance %g after %u redistribution%s%s; %s: "
                 "slabs' loads%s",
                 l, "xyz"[axis], f, f <= tolerance ? "<=" : ">", tolerance, iterations,
                 iterations == 1 ? "" : "s", back ? ", back at the best cuts: stop" : "", piece,
                 loads);
    }
    if (back) {
      *stop = STOP_WORSE;
      break;
    }
    if (f <= tolerance) {
      *stop = STOP_TOLERANCE;
      break;
    }
    if (f < best_f) {
      best_f = f;
      memcpy(best, now, row_bytes);
    }
    if (iterations == max_iterations) {
      if (teller)
        lb_narrate(self, "level %u (%c): %u redistributions, the most allowed: stop", l,
                   "xyz"[axis], iterations);
      *stop = STOP_CAP;
      break;
    }
    if (by_profile) {
      if (profile == NULL) {
        /* the piece's load along the axis, cell by cell: my cells, then
         * everyone's */
        guint64 extent = s->extent[axis];
        profile = g_new0(guint64, extent);
        mesh_time(self);
        lb_cuts_add_profile(s, lb_rank_units(self), axis, 0, profile);
        lb_narrate_labels(self, "a load profile along %c (%" G_GUINT64_FORMAT " sums)", "xyz"[axis],
                          extent);
        if (group != NULL)
          lb_group_allreduce_sum_u64(group, profile, (guint)extent);
        else
          lb_allreduce_sum_u64(self, profile, (guint)extent);
      }
      if (best_cuts)
        lbd_best_cuts(profile, s->extent[axis], parts, cuts, expected);
      else
        lbd_profile_cuts(profile, s->extent[axis], parts, cuts, expected);
      const char *which = best_cuts ? "best cuts" : "nearest shares";
      double g = lbd_metric(expected, parts);
      if (memcmp(cuts, now, row_bytes) == 0 || g >= f) {
        if (teller)
          lb_narrate(self, "level %u (%c): the profile's %s%s leave metric %.4f, no better: stop",
                     l, "xyz"[axis], which, memcmp(cuts, now, row_bytes) == 0 ? " (these)" : "", g);
        *stop = STOP_UNCHANGED;
        break;
      }
      if (teller) {
        g_autofree char *why = g_strdup_printf("the profile's %s (metric %.4f): ", which, g);
        narrate_cuts(self, l, axis, now, cuts, parts, why);
      }
    } else if (f > best_f) {
      /* the estimate made it worse (it assumes load spread evenly over
       * each box, and can swing past the balance): go back to the best
       * cuts seen, and stop */
      memcpy(cuts, best, row_bytes);
      back = TRUE;
      if (teller) {
        g_autofree char *why = g_strdup_printf("worse than %.4f: back to those ", best_f);
        narrate_cuts(self, l, axis, now, cuts, parts, why);
      }
    } else {
      equalize_row(now, slabs, parts, axis, s->extent[axis], spans, cuts);
      if (memcmp(cuts, now, row_bytes) == 0) {
        if (teller)
          lb_narrate(self, "level %u (%c): the estimate leaves the cuts where they are: stop", l,
                     "xyz"[axis]);
        *stop = STOP_UNCHANGED;
        break; /* the estimate cannot do better */
      }
      if (teller)
        narrate_cuts(self, l, axis, now, cuts, parts, "equal estimated loads: ");
    }
    for (guint k = 0; k < parts; k++)
      moved[k] = cuts[k] != now[k] || cuts[k + 1] != now[k + 1];
    /* the hierarchy as it was: this row's old cuts */
    memcpy(before, now, row_bytes);
    LbCuts old = *s;
    old.alt_level = (int)l;
    old.alt_index = index;
    old.alt_row = before;
    memcpy(now, cuts, row_bytes);
    lb_phase_round(self, iterations);
    lb_cuts_repartition(self, s, &old, l, TAG(l, iterations), iterations, mine);
    mesh_time(self);
    iterations++;
  }
  return iterations;
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
  LbCuts *s = state;

  lb_phase_begin(self, PHASE_MESH);
  guint64 mine = mesh(self);
  /* the slabs' loads along every axis, in one allreduce */
  guint64 total = 0;
  for (guint a = 0; a < s->dim; a++)
    total += s->procs[a];
  g_autofree guint64 *slabs = g_new0(guint64, total);
  guint64 at = 0;
  for (guint a = 0; a < s->dim; a++) {
    slabs[at + lb_cuts_coord(s, (guint)s->me, a)] = mine;
    at += s->procs[a];
  }
  lb_narrate_labels(self,
                    "sums of the slabs' loads along every axis (%" G_GUINT64_FORMAT
                    "; mine %" G_GUINT64_FORMAT ")",
                    total, mine);
  lb_allreduce_sum_u64(self, slabs, (guint)total);
  double f[3] = {0, 0, 0};
  at = 0;
  for (guint a = 0; a < s->dim; a++) {
    f[a] = lbd_metric(slabs + at, (guint)s->procs[a]);
    at += s->procs[a];
  }
  /* the smaller metric first, as the pseudocode chooses: on the grid's
   * straight columns and rows at the first step, and then again every
   * step only with axis-order = every-step (the ranks' columns and rows
   * are then groups of a hierarchy, not slabs) */
  guint order[3] = {0, 1, 2};
  gboolean every_step =
      strcmp(lb_params_get_string(lb_rank_params(self), "axis-order"), "every-step") == 0;
  if (every_step || !s->order_chosen)
    g_qsort_with_data(order, (gint)s->dim, sizeof(guint), compare_axes, f);
  else
    memcpy(order, s->order, sizeof order);
  s->order_chosen = TRUE;
  gboolean reordered = memcmp(order, s->order, sizeof(guint) * s->dim) != 0;
  if (s->me == 0 && lb_rank_narrating(self)) {
    g_autoptr(GString) metrics = g_string_new(NULL);
    at = 0;
    for (guint a = 0; a < s->dim; a++) {
      g_autofree char *loads = describe_row(slabs + at, (guint)s->procs[a]);
      g_string_append_printf(metrics, "%sslabs along %c%s: f_%c %.4f", a ? "; " : "", "xyz"[a],
                             loads, "xyz"[a], f[a]);
      at += s->procs[a];
    }
    lb_narrate(self, "%s; %c first (%s)%s", metrics->str, "xyz"[order[0]],
               every_step || lb_rank_adaptation(self) == 0 ? "the smaller metric"
                                                           : "the order of the first step",
               reordered ? ", a new order: the cuts start even" : "");
  }
  lb_metric_record(self, METRIC_FIRST_AXIS, order[0]);

  lb_phase_begin(self, PHASE_SLABS);
  /* the first level's slabs' loads, summed above for the current cuts */
  const guint64 *known = slabs;
  for (guint a = 0; a < order[0]; a++)
    known += s->procs[a];
  if (reordered) {
    /* a new hierarchy: start from its even cuts, moving the cells there */
    g_autoptr(LbCuts) old = lb_cuts_copy(s);
    lb_cuts_set_order(s, order);
    lb_cuts_repartition(self, s, old, 0, TAG(3, 0), 0, &mine);
    mesh_time(self);
    known = NULL;
  }

  /* level 0 across the domain, then each level inside its piece */
  static const guint phases[] = {PHASE_SLABS, PHASE_STRIPS, PHASE_BLOCKS};
  for (guint l = 0; l < s->dim; l++) {
    /* a stage per level and axis: "level 1, y axis" */
    g_autofree char *stage = g_strdup_printf("level %u, %c axis", l, "xyz"[s->order[l]]);
    lb_narrate_stage(self, 1 + 3 * l + s->order[l], stage);
    if (l > 0)
      lb_phase_begin(self, phases[l]);
    g_autoptr(LbGroup) group = NULL;
    if (l > 0) {
      guint n = 0;
      g_autofree int *members = lb_cuts_piece_members(s, l, &n);
      /* ids: level 1's pieces first, then level 2's */
      guint id = (guint)(l == 1 ? 0 : s->parts[0]) + (guint)lb_cuts_piece(s, (guint)s->me, l);
      group = lb_group_new(self, id, members, n);
    }
    Stop stop = STOP_TOLERANCE;
    guint iterations = balance_level(self, s, l, group, l == 0 ? known : NULL, &mine, &stop);
    lb_metric_record(self, METRIC_ITER_X + s->order[l], iterations);
    /* each piece's loop counts once: its first rank records why it stopped */
    gboolean first = TRUE;
    for (guint k = l; k < s->dim; k++)
      first = first && lb_cuts_coord(s, (guint)s->me, s->order[k]) == 0;
    if (first)
      lb_metric_record(self, METRIC_STOP_TOLERANCE + stop, 1);
  }

  lb_phase_begin(self, PHASE_GRAPH);
  lb_cuts_gather(self, s);
  lb_metric_record(self, METRIC_NEIGHBOURS, lb_cuts_build_graph(self, s));
}

static gboolean
lbd_check(guint ranks, const LbWork *work, const LbParams *params, GError **error)
{
  if (ranks > LB_CUTS_MAX_RANKS) {
    g_set_error(error, LB_PARAM_ERROR, LB_PARAM_ERROR_INVALID,
                "[scenario] ranks: lbd runs on at most %u ranks (one group per slab and strip); "
                "%u is more",
                LB_CUTS_MAX_RANKS, ranks);
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
    .needs = LB_CAP_CELLS | LB_CAP_BOXES,
    .sets_neighbours = TRUE,
    .check = lbd_check,
    .state_new = lbd_new,
    .state_free = lb_cuts_free,
    .balance = lbd_balance,
};
