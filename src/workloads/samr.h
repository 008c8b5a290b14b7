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

/* The most levels a hierarchy has (levels 0 .. SAMR_MAX_LEVELS - 1). */
#define SAMR_MAX_LEVELS 8

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

/* The cells of a parent grid's box [lo, hi) (a level of size[0 .. dim)
 * cells) whose pattern load reaches threshold (samr-flags.c): runs along
 * the rows of the box's longest axis, each row's from the pattern's row
 * function (rows, lb_pattern_rows_new for that level and threshold) where
 * it has one, else (rows NULL) cell by cell. */
typedef struct _SamrFlags SamrFlags;
SamrFlags *lb_samr_flags_new(const LbPattern *pattern, const LbPatternAt *at,
                             const LbPatternRows *rows, guint dim, const guint64 *size,
                             const gint64 *lo, const gint64 *hi, guint64 threshold);
guint64 lb_samr_flags_count(const SamrFlags *flags);
/* The memory the flags take, in bytes: their rows' offsets and runs. */
gsize lb_samr_flags_bytes(const SamrFlags *flags);
void lb_samr_flags_free(SamrFlags *flags);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SamrFlags, lb_samr_flags_free)
/* Berger and Rigoutsos' clustering of the flags into boxes of the flags'
 * level (6 gint64 each, lo then hi, appended): a box is kept once
 * `efficiency` of its cells are flagged, else cut at a hole, an
 * inflection of the signatures or the middle. */
void lb_samr_cluster(const SamrFlags *flags, guint dim, double efficiency, GArray *boxes);

/* What a run keeps per grid: its entry in the table and in the table
 * being rebuilt, a unit on some rank, and its box while clustering. */
#define LB_SAMR_GRID_BYTES (2.0 * sizeof(SamrGrid) + LB_UNIT_BYTES + 6 * sizeof(gint64))

/* What the flags of a parent grid take (samr-flags.c): an offset a row,
 * two coordinates a run. */
#define LB_SAMR_ROW_BYTES ((double)sizeof(guint64))
#define LB_SAMR_RUN_BYTES (2.0 * sizeof(gint64))

/* The most a hierarchy generated down to level `levels` over a root of
 * root_cells cells tiled for `ranks` may hold, when at most fractions[l]
 * of the cells of level l can be flagged (NULL: all of them) and the
 * clustering keeps boxes at least `efficiency` flagged: each finer box
 * holding at least one flagged cell of its parent's level (*grids), and
 * the flags of one parent grid, in bytes (*flags): its rows and runs, as
 * large as the largest parent level, a run a row where the pattern has a
 * row function (rows), up to half the cells of a row otherwise. */
void lb_samr_bounds(const SamrGeometry *g, double root_cells, guint levels, guint ranks,
                    const double *fractions, double efficiency, gboolean rows, double *grids,
                    double *flags);

/* What the application pays between adaptations besides its cells
 * (samr-grid.c): the boundary exchange grid by grid (`exchange = enzo`),
 * lbsim's earlier faces between ranks (`faces`, through the model's
 * neighbours), or none; a fixed cost a grid a step; local copies' speed. */
typedef enum {
  SAMR_EXCHANGE_ENZO,
  SAMR_EXCHANGE_FACES,
  SAMR_EXCHANGE_NONE,
} SamrExchangeKind;

typedef struct {
  SamrExchangeKind exchange;
  double grid_flops;     /* flops a grid a time step of its level */
  double copy_bandwidth; /* bytes a second of a copy between two grids of a rank */
  double bytes_per_unit; /* bytes a cell */
  gboolean by_ranks;     /* one message a pair of ranks, the sum of their grids' */
} SamrCosts;

/* The exchange of a hierarchy (table) for the time steps of each level
 * until the next adaptation (steps[0 .. levels]): every pair of touching
 * grids of one level (faces x ghost cells deep, both ways, once a step of
 * the level), every overlapping parent and child (the child's interior
 * over the parent, coarsened, to the parent once a step of the parent's
 * level; the child's ghost zone's share, coarsened, from the parent once a
 * step of the child's), each a message between two ranks or a copy on
 * one (none of these with costs->exchange = none); and each grid's
 * grid_flops a step. parent_of[i] (i < hints; G_MAXUINT for none) names
 * the grid that held grid i when it was made: where it still holds the
 * child whole, the other parents are not searched (the same exchange). */
typedef struct _SamrExchange SamrExchange;
SamrExchange *lb_samr_exchange_new(const SamrGeometry *g, const GArray *table,
                                   const guint *parent_of, guint hints, const guint64 *steps,
                                   guint levels, const SamrCosts *costs, guint ranks);
/* (costs->by_ranks: the messages from one rank to another are one, of
 * their bytes summed.) Appends rank's messages (by receiver, then as found)
 * to step->messages,
 * adds its copies' bytes and its grids' flops. */
void lb_samr_exchange_rank(const SamrExchange *x, guint rank, LbAppStep *step);
void lb_samr_exchange_free(SamrExchange *x);

extern const LbModel lb_samr_model;

G_END_DECLS
