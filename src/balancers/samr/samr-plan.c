/* ENZO's original scheme and move+split on the global grid table
 * (samr-plan.h). */
#include "balancers/samr/samr-plan.h"

#include <math.h>

#include "balancers/samr/samr-table.h"

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

static void note(GPtrArray *notes, const char *format, ...) G_GNUC_PRINTF(2, 3);

/* A line of the story, told from the scheme's own variables as it decides
 * (notes NULL: no story). */
static void
note(GPtrArray *notes, const char *format, ...)
{
  if (notes == NULL)
    return;
  va_list args;
  va_start(args, format);
  g_ptr_array_add(notes, g_strdup_vprintf(format, args));
  va_end(args);
}

static SamrGrid *
grid_at(GArray *grids, guint i)
{
  return &g_array_index(grids, SamrGrid, i);
}

static void
move_grid(SamrTable *t, guint i, guint to, guint64 *loads, guint attempt, GArray *actions)
{
  const SamrGrid *grid = grid_at(samr_table_grids(t), i);
  guint64 load = samr_table_load(t, i);
  SamrAction a = {.kind = SAMR_MOVE,
                  .grid = i,
                  .from = grid->owner,
                  .to = to,
                  .load = load,
                  .attempt = attempt};
  loads[grid->owner] -= load;
  loads[to] += load;
  samr_table_move(t, i, to);
  g_array_append_val(actions, a);
}

void
samr_original(const SamrGeometry *g, GArray *grids, guint64 *loads, guint p, double threshold,
              GArray *actions, GPtrArray *notes)
{
  SamrTable *t = samr_table_new(g, grids, p);
  for (guint pass = 0;;) {
    guint mx, mn;
    samr_extremes(loads, p, &mx, &mn);
    if (!((double)loads[mx] > threshold * (double)loads[mn])) {
      note(notes,
           "pass %u: MaxProc %u (%" G_GUINT64_FORMAT "), MinProc %u (%" G_GUINT64_FORMAT
           "): MaxLoad <= %g x MinLoad = %.2f: balanced, done",
           pass, mx, loads[mx], mn, loads[mn], threshold, threshold * (double)loads[mn]);
      break;
    }
    double limit = (double)(loads[mx] - loads[mn]) / 2.0;
    guint i = samr_table_first_between(t, mx, -INFINITY, limit);
    if (i == G_MAXUINT) {
      /* no grid qualifies: the figure's loop would spin; the scheme stops */
      note(notes,
           "pass %u: MaxProc %u (%" G_GUINT64_FORMAT "), MinProc %u (%" G_GUINT64_FORMAT
           "): MaxLoad > %g x MinLoad = %.2f, but no grid of rank %u is below (MaxLoad - "
           "MinLoad) / 2 = %.2f: the scheme stops",
           pass, mx, loads[mx], mn, loads[mn], threshold, threshold * (double)loads[mn], mx, limit);
      break;
    }
    guint64 max_load = loads[mx], min_load = loads[mn];
    move_grid(t, i, mn, loads, pass, actions);
    note(notes,
         "pass %u: MaxProc %u (%" G_GUINT64_FORMAT "), MinProc %u (%" G_GUINT64_FORMAT
         "): MaxLoad > %g x MinLoad = %.2f; grid %u (%" G_GUINT64_FORMAT
         "), the first of rank %u below (MaxLoad - MinLoad) / 2 = %.2f, moves to rank %u: "
         "now %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT,
         pass, mx, max_load, mn, min_load, threshold, threshold * (double)min_load, i,
         samr_table_load(t, i), mx, limit, mn, loads[mx], loads[mn]);
    pass++;
  }
  samr_table_free(t);
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
  guint64 per_plane = across_ghost * lb_samr_substeps(g, grid->level);
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
split_phase(const SamrGeometry *g, SamrTable *t, guint64 *loads, guint p, guint mx, guint mn,
            guint attempt, GArray *actions, GPtrArray *notes)
{
  GArray *grids = samr_table_grids(t);
  guint64 total = 0;
  for (guint r = 0; r < p; r++)
    total += loads[r];
  double hole = (double)total / p - (double)loads[mn];
  guint largest = samr_table_largest(t, mx);
  guint64 largest_load = largest != G_MAXUINT ? samr_table_load(t, largest) : 0;
  if (largest == G_MAXUINT) {
    note(notes, "pass %u: split: rank %u holds no grid: nothing to split", attempt, mx);
    return FALSE;
  }
  if ((double)largest_load <= hole) {
    move_grid(t, largest, mn, loads, attempt, actions);
    note(notes,
         "pass %u: split: rank %u's largest grid %u (%" G_GUINT64_FORMAT
         ") fits MinProc %u's hole AvgLoad - MinLoad = %.2f: it moves whole; now %" G_GUINT64_FORMAT
         " and %" G_GUINT64_FORMAT,
         attempt, mx, largest, largest_load, mn, hole, loads[mx], loads[mn]);
    return TRUE;
  }
  guint axis = 0;
  gint64 at = 0;
  guint64 want = hole > 0 ? (guint64)(hole + 0.5) : 0;
  if (!samr_split_plane(g, grid_at(grids, largest), want, &axis, &at)) {
    note(notes,
         "pass %u: split: rank %u's largest grid %u (%" G_GUINT64_FORMAT
         ") is above the hole %.2f but cannot be cut (both parts need %u cells): nothing "
         "happens",
         attempt, mx, largest, largest_load, hole, g->min_cells);
    return FALSE;
  }
  SamrGrid piece = *grid_at(grids, largest);
  piece.lo[axis] = at;
  piece.owner = mn;
  SamrGrid *rest = grid_at(grids, largest);
  guint64 before = samr_table_load(t, largest);
  rest->hi[axis] = at;
  samr_table_resized(t, largest);
  guint64 after = samr_table_load(t, largest), moved = lb_samr_load(g, &piece);
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
  samr_table_append(t, &piece);
  g_array_append_val(actions, a);
  note(notes,
       "pass %u: split: rank %u's largest grid %u (%" G_GUINT64_FORMAT
       ") is above MinProc %u's hole AvgLoad - MinLoad = %.2f: cut along %c at %" G_GINT64_FORMAT
       ", the piece (grid %u, %" G_GUINT64_FORMAT ") goes to rank %u, %" G_GUINT64_FORMAT
       " stays; now %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT,
       attempt, mx, largest, before, mn, hole, "xyz"[axis], at, a.piece, moved, mn, after,
       loads[mx], loads[mn]);
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
                SamrReading reading, GArray *actions, GPtrArray *notes)
{
  gboolean done = FALSE;
  guint last_max = 0, last_min = 0;
  guint cap = SAMR_MAX_ATTEMPTS(p, grids->len), attempt = 0;
  SamrTable *t = samr_table_new(g, grids, p);
  for (; !done && attempt < cap; attempt++) {
    guint mx, mn, acted = actions->len;
    samr_extremes(loads, p, &mx, &mn);
    double avg = average(loads, p);
    if (!((double)loads[mx] > threshold * avg)) {
      note(notes,
           "pass %u: MaxProc %u (%" G_GUINT64_FORMAT "): MaxLoad <= %g x AvgLoad %.2f = %.2f: "
           "balanced, done",
           attempt, mx, loads[mx], threshold, avg, threshold * avg);
      done = TRUE;
      break;
    }
    note(notes,
         "pass %u: MaxProc %u (%" G_GUINT64_FORMAT "), MinProc %u (%" G_GUINT64_FORMAT
         "): MaxLoad > %g x AvgLoad %.2f = %.2f: the moving phase",
         attempt, mx, loads[mx], mn, loads[mn], threshold, avg, threshold * avg);
    /* the moving-grid phase: at most one move per grid of the table */
    guint j = 0;
    for (; j < grids->len; j++) {
      gboolean holds = !((double)loads[mx] > threshold * avg);
      if (reading == SAMR_READING_PROSE && holds) {
        note(notes,
             "pass %u: MaxProc %u (%" G_GUINT64_FORMAT ") <= %.2f: the ratio holds, the moving "
             "phase stops (section 4's text)",
             attempt, mx, loads[mx], threshold * avg);
        break;
      }
      double low = avg / threshold - (double)loads[mn], high = avg * threshold - (double)loads[mn];
      guint i = samr_table_first_between(t, mx, low, high);
      if (i == G_MAXUINT) {
        note(notes,
             "pass %u: no grid of MaxProc %u (%" G_GUINT64_FORMAT
             ") lies in (AvgLoad / %g - MinLoad, AvgLoad x %g - MinLoad) = (%.2f, %.2f) for "
             "MinProc %u (%" G_GUINT64_FORMAT "): the moving phase ends",
             attempt, mx, loads[mx], threshold, threshold, low, high, mn, loads[mn]);
        break;
      }
      guint64 max_load = loads[mx], min_load = loads[mn];
      guint from = mx, to = mn;
      move_grid(t, i, mn, loads, attempt, actions);
      note(notes,
           "pass %u: move grid %u (%" G_GUINT64_FORMAT ") from MaxProc %u (%" G_GUINT64_FORMAT
           ") to MinProc %u (%" G_GUINT64_FORMAT
           "): it lies in (%.2f, %.2f); now %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT "%s",
           attempt, i, samr_table_load(t, i), from, max_load, to, min_load, low, high, loads[from],
           loads[to], holds ? " (the ratio held already: Fig. 8's loop moves on regardless)" : "");
      samr_extremes(loads, p, &mx, &mn);
      avg = average(loads, p);
    }
    if (j == grids->len)
      note(notes, "pass %u: the moving phase made its %u moves, one per grid", attempt, j);
    /* the splitting-grid phase */
    if ((double)loads[mx] > threshold * avg) {
      gboolean repeated = mx == last_max && mn == last_min;
      const char *says = !repeated                        ? ""
                         : reading == SAMR_READING_FIGURE ? "; the pair repeats the last one: Done "
                                                            "after it (Fig. 8)"
                                                          : "; the pair repeats the last one, but "
                                                            "the scheme goes on while a pass moves "
                                                            "load (section 4's text)";
      note(notes,
           "pass %u: MaxProc %u (%" G_GUINT64_FORMAT "), MinProc %u (%" G_GUINT64_FORMAT
           "): MaxLoad > %g x AvgLoad %.2f = %.2f: the splitting phase%s",
           attempt, mx, loads[mx], mn, loads[mn], threshold, avg, threshold * avg, says);
      if (repeated && reading == SAMR_READING_FIGURE)
        done = TRUE;
      last_max = mx;
      last_min = mn;
      split_phase(g, t, loads, p, mx, mn, attempt, actions, notes);
      /* every move and split takes load from MaxProc to MinProc, no more than
       * its hole: the sum of the loads' squares falls, so a pass that moves
       * load is never undone; one that moves nothing ends the scheme */
      if (reading == SAMR_READING_PROSE && actions->len == acted) {
        note(notes,
             "pass %u: nothing moved in this pass: done (section 4's text: not enough "
             "grids to redistribute)",
             attempt);
        done = TRUE;
      }
    } else {
      note(notes,
           "pass %u: MaxProc %u (%" G_GUINT64_FORMAT ") <= %g x AvgLoad %.2f = %.2f: no split, "
           "done",
           attempt, mx, loads[mx], threshold, avg, threshold * avg);
      done = TRUE;
    }
  }
  if (!done)
    note(notes, "stopped after %u passes (the guard)", attempt);
  samr_table_free(t);
  return attempt;
}

guint
samr_transfer_waves(const GArray *actions, guint *wave)
{
  /* the wave after which each rank is free again (0: none yet) */
  g_autoptr(GHashTable) free_after = g_hash_table_new(NULL, NULL);
  guint waves = 0;
  for (guint k = 0; k < actions->len; k++) {
    const SamrAction *a = &g_array_index(actions, SamrAction, k);
    guint from = GPOINTER_TO_UINT(g_hash_table_lookup(free_after, GUINT_TO_POINTER(a->from + 1)));
    guint to = GPOINTER_TO_UINT(g_hash_table_lookup(free_after, GUINT_TO_POINTER(a->to + 1)));
    wave[k] = MAX(from, to);
    g_hash_table_insert(free_after, GUINT_TO_POINTER(a->from + 1), GUINT_TO_POINTER(wave[k] + 1));
    g_hash_table_insert(free_after, GUINT_TO_POINTER(a->to + 1), GUINT_TO_POINTER(wave[k] + 1));
    waves = MAX(waves, wave[k] + 1);
  }
  return waves;
}

void
samr_replay(const GArray *before, const GArray *actions, SamrGrid *grid_after, SamrGrid *piece)
{
  g_autoptr(GArray) grids = g_array_copy((GArray *)before);
  for (guint k = 0; k < actions->len; k++) {
    const SamrAction *a = &g_array_index(actions, SamrAction, k);
    SamrGrid *g = grid_at(grids, a->grid);
    if (a->kind == SAMR_SPLIT) {
      SamrGrid cut = *g;
      cut.lo[a->axis] = a->at;
      cut.owner = a->to;
      g->hi[a->axis] = a->at;
      g_assert(a->piece == grids->len);
      piece[k] = cut;
      grid_after[k] = *g;
      g_array_append_val(grids, cut);
    } else {
      g->owner = a->to;
      grid_after[k] = *g;
    }
  }
}
