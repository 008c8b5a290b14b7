/* The global grid table as ENZO's two schemes scan it (samr-plan.h): each
 * grid's load and each rank's grids in table order, in chunks that know
 * their smallest and largest load, so that "the first grid of MaxProc
 * whose load ..." looks only at MaxProc's grids, and of those only at the
 * chunks that can hold one, and finds what a scan of the whole table
 * finds. A shock's hierarchy holds 10^5 grids and move+split makes
 * thousands of moves an adaptation. */
#pragma once

#include <glib.h>

#include "workloads/samr.h"

G_BEGIN_DECLS

typedef struct _SamrTable SamrTable;

/* Indexes `grids` (SamrGrid) for p ranks; the table keeps the array, which
 * changes only through the calls below (and samr_table_resized). */
SamrTable *samr_table_new(const SamrGeometry *g, GArray *grids, guint p);
void samr_table_free(SamrTable *t);

GArray *samr_table_grids(const SamrTable *t);
guint64 samr_table_load(const SamrTable *t, guint i);

/* The first grid (table order) of `rank` whose load, as a double, lies
 * strictly between low and high; G_MAXUINT when none does. */
guint samr_table_first_between(const SamrTable *t, guint rank, double low, double high);

/* The first grid of `rank` with the largest load; G_MAXUINT when it holds
 * none. */
guint samr_table_largest(const SamrTable *t, guint rank);

/* Grid i goes to rank `to`. */
void samr_table_move(SamrTable *t, guint i, guint to);

/* Grid i's box changed (its owner did not): its load is taken again. */
void samr_table_resized(SamrTable *t, guint i);

/* Appends a grid to the table (a split's piece). */
void samr_table_append(SamrTable *t, const SamrGrid *grid);

G_END_DECLS
