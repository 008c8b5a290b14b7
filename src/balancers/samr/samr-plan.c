/* ENZO's original scheme and move+split on the global grid table
 * (samr-plan.h). */
#include "balancers/samr/samr-plan.h"

void
samr_extremes(const guint64 *loads, guint p, guint *max_proc, guint *min_proc)
{
  guint hi = 0, lo = 0;
  for (guint r = 1; r < p; r++) {
    if (loads[r] > loads[hi])
      hi = r;
    if (loads[r] < loads[lo])
      lo = r;
  }
  *max_proc = hi;
  *min_proc = lo;
}

static SamrGrid *
grid_at(GArray *grids, guint i)
{
  return &g_array_index(grids, SamrGrid, i);
}

static void
move_grid(const SamrGeometry *g, GArray *grids, guint i, guint to, guint64 *loads, guint attempt,
          GArray *actions)
{
  SamrGrid *grid = grid_at(grids, i);
  guint64 load = samr_load(g, grid);
  SamrAction a = {.kind = SAMR_MOVE,
                  .grid = i,
                  .from = grid->owner,
                  .to = to,
                  .load = load,
                  .attempt = attempt};
  loads[grid->owner] -= load;
  loads[to] += load;
  grid->owner = to;
  g_array_append_val(actions, a);
}

void
samr_original(const SamrGeometry *g, GArray *grids, guint64 *loads, guint p, double threshold,
              GArray *actions)
{
  for (guint pass = 0;;) {
    guint mx, mn;
    samr_extremes(loads, p, &mx, &mn);
    if (!((double)loads[mx] > threshold * (double)loads[mn]))
      return;
    double limit = (double)(loads[mx] - loads[mn]) / 2.0;
    guint i = 0;
    for (; i < grids->len; i++) {
      const SamrGrid *grid = grid_at(grids, i);
      if (grid->owner == mx && (double)samr_load(g, grid) < limit)
        break;
    }
    if (i == grids->len)
      return; /* no grid qualifies: the figure's loop would spin; the scheme stops */
    move_grid(g, grids, i, mn, loads, pass++, actions);
  }
}

gboolean
samr_split_plane(const SamrGeometry *g, const SamrGrid *grid, guint64 want, guint *axis, gint64 *at)
{
  guint longest = 0;
  for (guint a = 1; a < g->dim; a++)
    if (grid->hi[a] - grid->lo[a] > grid->hi[longest] - grid->lo[longest])
      longest = a;
  gint64 extent = grid->hi[longest] - grid->lo[longest];
  guint64 across = 1, across_ghost = 1; /* the other axes */
  for (guint a = 0; a < g->dim; a++)
    if (a != longest) {
      across *= (guint64)(grid->hi[a] - grid->lo[a]);
      across_ghost *= (guint64)(grid->hi[a] - grid->lo[a]) + 2u * g->ghost;
    }
  guint64 per_plane = across_ghost * samr_substeps(g, grid->level);
  gboolean found = FALSE;
  guint64 best = 0;
  for (gint64 w = 1; w < extent; w++) {
    if ((guint64)w * across < g->min_cells || (guint64)(extent - w) * across < g->min_cells)
      continue;
    guint64 load = ((guint64)w + 2u * g->ghost) * per_plane;
    guint64 off = load > want ? load - want : want - load;
    if (!found || off < best) {
      found = TRUE;
      best = off;
      *axis = longest;
      *at = grid->hi[longest] - w;
    }
  }
  return found;
}

/* Moves MaxProc's largest grid (the first of the largest) to MinProc whole
 * if it fits the hole AvgLoad - MinLoad, else the piece that fills it best.
 * Returns whether anything moved. */
static gboolean
split_phase(const SamrGeometry *g, GArray *grids, guint64 *loads, guint p, guint mx, guint mn,
            guint attempt, GArray *actions)
{
  guint64 total = 0;
  for (guint r = 0; r < p; r++)
    total += loads[r];
  double hole = (double)total / p - (double)loads[mn];
  guint largest = G_MAXUINT;
  guint64 largest_load = 0;
  for (guint i = 0; i < grids->len; i++) {
    const SamrGrid *grid = grid_at(grids, i);
    guint64 load = samr_load(g, grid);
    if (grid->owner == mx && (largest == G_MAXUINT || load > largest_load)) {
      largest = i;
      largest_load = load;
    }
  }
  if (largest == G_MAXUINT)
    return FALSE;
  if ((double)largest_load <= hole) {
    move_grid(g, grids, largest, mn, loads, attempt, actions);
    return TRUE;
  }
  guint axis = 0;
  gint64 at = 0;
  guint64 want = hole > 0 ? (guint64)(hole + 0.5) : 0;
  if (!samr_split_plane(g, grid_at(grids, largest), want, &axis, &at))
    return FALSE;
  SamrGrid piece = *grid_at(grids, largest);
  piece.lo[axis] = at;
  piece.owner = mn;
  SamrGrid *rest = grid_at(grids, largest);
  guint64 before = samr_load(g, rest);
  rest->hi[axis] = at;
  guint64 after = samr_load(g, rest), moved = samr_load(g, &piece);
  loads[mx] = loads[mx] - before + after;
  loads[mn] += moved;
  SamrAction a = {.kind = SAMR_SPLIT,
                  .grid = largest,
                  .from = mx,
                  .to = mn,
                  .piece = grids->len,
                  .axis = axis,
                  .at = at,
                  .load = moved,
                  .attempt = attempt};
  g_array_append_val(grids, piece);
  g_array_append_val(actions, a);
  return TRUE;
}

static double
average(const guint64 *loads, guint p)
{
  guint64 total = 0;
  for (guint r = 0; r < p; r++)
    total += loads[r];
  return (double)total / p;
}

guint
samr_move_split(const SamrGeometry *g, GArray *grids, guint64 *loads, guint p, double threshold,
                SamrReading reading, GArray *actions)
{
  gboolean done = FALSE;
  guint last_max = 0, last_min = 0;
  guint cap = SAMR_MAX_ATTEMPTS(p, grids->len), attempt = 0;
  for (; !done && attempt < cap; attempt++) {
    guint mx, mn;
    samr_extremes(loads, p, &mx, &mn);
    double avg = average(loads, p);
    if (!((double)loads[mx] > threshold * avg))
      return attempt;
    /* the moving-grid phase: at most one move per grid of the table */
    for (guint j = 0; j < grids->len; j++) {
      if (reading == SAMR_READING_PROSE && !((double)loads[mx] > threshold * avg))
        break;
      double low = avg / threshold - (double)loads[mn], high = avg * threshold - (double)loads[mn];
      guint i = 0;
      for (; i < grids->len; i++) {
        const SamrGrid *grid = grid_at(grids, i);
        double load = (double)samr_load(g, grid);
        if (grid->owner == mx && load > low && load < high)
          break;
      }
      if (i == grids->len)
        break;
      move_grid(g, grids, i, mn, loads, attempt, actions);
      samr_extremes(loads, p, &mx, &mn);
      avg = average(loads, p);
    }
    /* the splitting-grid phase */
    if ((double)loads[mx] > threshold * avg) {
      if (mx == last_max && mn == last_min)
        done = TRUE;
      last_max = mx;
      last_min = mn;
      split_phase(g, grids, loads, p, mx, mn, attempt, actions);
    } else {
      done = TRUE;
    }
  }
  return attempt;
}
