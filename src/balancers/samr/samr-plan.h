/* The decisions of ENZO's two dynamic load balancers for structured AMR
 * (Z. Lan, V. E. Taylor and G. Bryan, "A novel dynamic load balancing
 * scheme for parallel systems", J. Parallel Distrib. Comput. 62, 2002):
 * the original scheme of its Fig. 3 and move+split of its Fig. 8, on the
 * global grid information every rank holds (ENZO's "fake grids"). Pure
 * arithmetic, free of messaging: every rank runs it on the same table and
 * reaches the same moves and splits. */
#pragma once

#include <glib.h>

#include "workloads/samr.h"

G_BEGIN_DECLS

typedef enum {
  SAMR_MOVE,
  SAMR_SPLIT, /* a piece of a grid goes to `to` as a new grid */
} SamrKind;

/* One decision: a grid moves whole, or a piece of it (a new grid at the end
 * of the table) moves. */
typedef struct {
  SamrKind kind;
  guint grid;     /* index in the table */
  guint from, to; /* ranks */
  guint piece;    /* SPLIT: index of the new grid */
  guint axis;     /* SPLIT: the axis cut */
  gint64 at;      /* SPLIT: the cell plane; the piece is [at, hi) */
  guint64 load;   /* the load that moved */
  guint attempt;  /* move-split: which pass of the while loop, from 0 */
} SamrAction;

/* Both schemes below tell, when notes is not NULL, every test they make
 * and what it decided, one line (a string) a decision, appended to notes.
 *
 * MaxProc and MinProc: the lowest-numbered rank among equals. */
void samr_extremes(const guint64 *loads, guint p, guint *max_proc, guint *min_proc);

/* Fig. 3: while MaxLoad > threshold x MinLoad, move the first grid (table
 * order) on MaxProc whose load is below (MaxLoad - MinLoad) / 2 to MinProc;
 * stop when no grid qualifies. Updates the owners in `grids` (SamrGrid)
 * and `loads` (per rank), appends to actions (SamrAction). */
void samr_original(const SamrGeometry *g, GArray *grids, guint64 *loads, guint p, double threshold,
                   GArray *actions, GPtrArray *notes);

typedef enum {
  SAMR_READING_FIGURE, /* Fig. 8 as printed: the moving loop runs its course; Done on a
                          repeated (MaxProc, MinProc) pair */
  SAMR_READING_PROSE,  /* section 4's text: moving stops once the ratio is met; the
                          passes go on while one moves load */
} SamrReading;

/* Fig. 8: while MaxLoad > threshold x AvgLoad and not Done: the moving
 * phase (at most as many moves as there are grids: the first grid on
 * MaxProc whose load lies strictly between AvgLoad / threshold - MinLoad and
 * AvgLoad x threshold - MinLoad moves to MinProc), then, while the ratio is
 * still exceeded, the splitting phase: Done when (MaxProc, MinProc) repeats
 * the last pair (the split still happens, as the figure has it; with the
 * prose reading a repeated pair does not stop it, a pass that moves
 * nothing does); MaxProc's
 * largest grid goes to MinProc whole if its load is at most AvgLoad -
 * MinLoad, else it is cut along its longest interior axis at the cell
 * plane that makes the piece's load closest to AvgLoad - MinLoad, leaving
 * both parts at least min_cells interior cells (no cut possible: nothing
 * happens, and the repeated pair ends the loop). Splits append grids to
 * the table. Returns the passes of the while loop ("attempts"). */
guint samr_move_split(const SamrGeometry *g, GArray *grids, guint64 *loads, guint p,
                      double threshold, SamrReading reading, GArray *actions, GPtrArray *notes);

/* The figure has no bound on its passes besides the repeated pair; a pass
 * that moves grids back and forth without repeating its last pair could go
 * on, so passes stop at this many (far beyond any case seen). */
#define SAMR_MAX_ATTEMPTS(p, grids) (64u + 16u * ((p) + (grids)))

/* The cut of a split: the plane `at` along `axis` whose piece [at, hi)
 * has the load closest to `want` (the smaller piece on ties), both parts
 * keeping min_cells. FALSE when no plane does. */
gboolean samr_split_plane(const SamrGeometry *g, const SamrGrid *grid, guint64 want, guint *axis,
                          gint64 *at);

/* How the decisions are carried out. Fig. 10 runs them in parallel, each
 * as its own transfer in the order they were decided: a rank takes part in
 * one transfer at a time, so a transfer waits for the earlier ones of its
 * two ranks, and transfers that share no rank overlap. Merged is lbsim's
 * cheaper shortcut: every grid or piece goes once, straight from the rank
 * that held its data to the one that holds it after all the decisions
 * (A -> B -> C as A -> C), one message per pair of ranks, all at once. */
typedef enum {
  SAMR_TRANSFERS_PARALLEL,
  SAMR_TRANSFERS_MERGED,
} SamrTransfers;

/* The wave of each action under Fig. 10's rule: 0 for one whose ranks
 * take part in no earlier action, else one more than the latest wave of
 * the earlier actions it shares a rank with (wave[k] for actions[k]).
 * Returns the number of waves (0 without actions): the transfers on the
 * longest chain of waits. */
guint samr_transfer_waves(const GArray *actions, guint *wave);

/* What each action leaves, replayed in order from the table before the
 * decisions (SamrGrid, as samr_original and samr_move_split found it):
 * grid_after[k] is action k's grid right after it (its new owner; a split
 * shrinks it), piece[k] a split's piece (unset for a move). */
void samr_replay(const GArray *before, const GArray *actions, SamrGrid *grid_after,
                 SamrGrid *piece);

G_END_DECLS
