/* The samr work model: a structured AMR grid hierarchy (a root domain
 * of cells tiled into level-0 grids, finer levels clustered where a
 * pattern flags cells), rebuilt at every adaptation step; units are grids.
 * The grid table is the hierarchy's "real" data: its owners and boxes. A
 * grid's owner changes it when the grid moves or splits; everything else
 * reads it only through what ranks send each other. */
#pragma once

#include <glib.h>

#include "lbsim/model.h"

G_BEGIN_DECLS

/* The geometry of a hierarchy: grids are boxes of interior cells in the
 * index space of their level, with `ghost` cells added on every side. */
typedef struct {
  guint dim;       /* 2 or 3 */
  guint factor;    /* refinement factor between levels */
  guint ghost;     /* ghost cells per side */
  guint min_cells; /* smallest interior a split may leave (cells) */
} SamrGeometry;

/* A grid as the global table holds it: the "fake" grid. */
typedef struct {
  guint owner;
  guint level;
  gint64 lo[3], hi[3]; /* interior, half-open; unused axes are [0, 1) */
} SamrGrid;

/* Interior cells, cells with ghosts, and the work per root step: cells
 * with ghosts x factor^level substeps (the integration order of the
 * paper's section 2.2). */
guint64 lb_samr_interior_cells(const SamrGeometry *g, const SamrGrid *grid);
guint64 lb_samr_cells(const SamrGeometry *g, const SamrGrid *grid);
guint64 lb_samr_load(const SamrGeometry *g, const SamrGrid *grid);
/* factor^level */
guint64 lb_samr_substeps(const SamrGeometry *g, guint level);

/* The work of a grid from this adaptation to the next, what its unit's
 * load is: cells with ghosts x the time steps its level takes meanwhile
 * (adapt = root: factor^level, one root step). */
guint64 lb_samr_work(const LbWork *work, const SamrGrid *grid);
/* The first level the current adaptation rebuilt (its grids are new, on
 * their parents' ranks); 1 with adapt = root, 0 for a replayed hierarchy. */
guint lb_samr_rebuilt_from(const LbWork *work);
/* The adaptation built, in Fig. 2's order (adapt = level): the level whose
 * time step it follows (it rebuilt the levels above; 0 for the first and
 * with adapt = root), its time in root steps, and the time steps of each
 * level 0 .. levels until the next adaptation (steps: room for levels + 1;
 * adapt = root: factor^l, one root step). */
void lb_samr_adaptation(const LbWork *work, guint *level, double *time, guint *steps);

/* The geometry and the grid of a unit id of a samr work (the table of the
 * current adaptation step). */
const SamrGeometry *lb_samr_geometry(const LbWork *work);
const SamrGrid *lb_samr_grid(const LbWork *work, guint64 id);
guint64 lb_samr_grids(const LbWork *work);
/* The rank that held a grid's data sets it anew after balancing: its box
 * and owner, for the grids it held and the pieces cut from them (ids past
 * the table's end grow it). */
void lb_samr_set(const LbWork *work, guint64 id, const SamrGrid *grid);

/* What a run keeps per grid: its entry in the table and in the table
 * being rebuilt, a unit on some rank, and its box while clustering. */
#define LB_SAMR_GRID_BYTES (2.0 * sizeof(SamrGrid) + LB_UNIT_BYTES + 6 * sizeof(gint64))

/* The most a hierarchy generated down to level `levels` over a root of
 * root_cells cells tiled for `ranks` may hold, when at most fractions[l]
 * of the cells of level l can be flagged (NULL: all of them) and the
 * clustering keeps boxes at least `efficiency` flagged: each finer box
 * holding at least one flagged cell of its parent's level (*grids), and
 * the flags of the largest parent level, one byte a cell (*flags). */
void lb_samr_bounds(const SamrGeometry *g, double root_cells, guint levels, guint ranks,
                    const double *fractions, double efficiency, double *grids, double *flags);

extern const LbModel lb_samr_model;

G_END_DECLS
