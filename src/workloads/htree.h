/* The htree work model: the H-tree of Baiardi, Chiti, Mori and Ricci,
 * "Integrating load balancing and locality in the parallelization of
 * irregular problems" (2001): a quadtree (2D) or octree (3D) over [0,1)^dim
 * whose node splits, halving every axis, while a problem condition holds.
 * Units are all hnodes, internal and leaves; the tree is rebuilt at every
 * adaptation step, and a new hnode starts on the rank that holds its
 * parent region.
 *
 * A unit's id is a location code that no curve enters: 1 << (dim x level)
 * | the Morton code of the node's coordinates at its level (axis 0 the
 * lowest bit), so the root is 1 and an id stays the same while its node
 * exists. */
#pragma once

#include <glib.h>

#include "lbsim/model.h"

G_BEGIN_DECLS

/* The largest max-level: location codes (and a curve key per finest cell)
 * fit 64 bits. */
#define LB_HTREE_MAX_LEVEL_2D 24
#define LB_HTREE_MAX_LEVEL_3D 16

/* ---- location codes ---- */

guint64 lb_htree_id(guint dim, guint level, const guint64 *coords);
/* The level of an id (> 0), and its coordinates at that level into
 * coords[0..dim). */
guint lb_htree_decode(guint64 id, guint dim, guint64 *coords);
/* The root's parent is 0. */
guint64 lb_htree_parent(guint64 id, guint dim);
/* Child k (0 .. 2^dim - 1): bit a of k is the upper half along axis a. */
guint64 lb_htree_child(guint64 id, guint dim, guint k);

/* ---- trees ---- */

/* One adaptation step's tree: its hnodes in Morton pre-order (a parent
 * before its children, a subtree contiguous), which is the order of (the
 * Morton code of the node's first finest cell, level). */
typedef struct _LbHtree LbHtree;

/* The tree over n points (n x dim coordinates in [0,1)): a node splits
 * while it holds more than leaf_elements points and its level is below
 * max_level, or its level is below min_level. */
LbHtree *lb_htree_new_points(guint dim, guint min_level, guint max_level, guint64 leaf_elements,
                             const double *points, gsize n);
/* The seed's two Dirichlet boundary conditions of -Laplace(u) = 0 on
 * ]0,1[^2 (section 5.4): (1) h = 10, (2) h = 10 cos(2 pi (x - y))
 * sinh(2 pi (x + y + 2)) / sinh(8 pi). */
typedef enum {
  LB_POISSON_SINH,     /* (2), the "highly irregular" hierarchy */
  LB_POISSON_CONSTANT, /* (1) */
} LbPoissonBoundary;

/* The seed's multigrid case: squares of ]0,1[^2 split while their surplus
 * (lb_htree_poisson_surplus) exceeds tolerance, up to max_level, and
 * always below min_level. Every hnode computes one point: its element.
 * NULL when the tree would have `budget` hnodes or more (the build stops
 * there). */
LbHtree *lb_htree_new_poisson(LbPoissonBoundary boundary, guint min_level, guint max_level,
                              double tolerance, gsize budget);
void lb_htree_free(LbHtree *tree);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LbHtree, lb_htree_free)

gsize lb_htree_size(const LbHtree *tree);
/* The id of the hnode at pre-order position at. */
guint64 lb_htree_id_at(const LbHtree *tree, gsize at);
/* Whether id is an hnode of the tree, and where (pre-order position). */
gboolean lb_htree_find(const LbHtree *tree, guint64 id, gsize *at);
gboolean lb_htree_is_leaf(const LbHtree *tree, gsize at);
/* Hnodes of the subtree at at, itself included (its pre-order run). */
gsize lb_htree_subtree(const LbHtree *tree, gsize at);
/* Elements in the node's region; and those the node itself holds (points:
 * a leaf holds those of its region, an internal node none; multigrid:
 * every hnode its one point). */
guint64 lb_htree_elements(const LbHtree *tree, gsize at);
guint64 lb_htree_own_elements(const LbHtree *tree, gsize at);

/* The exact solution of the seed's Poisson problem under a boundary
 * condition: both h are harmonic, so u = h everywhere. */
double lb_htree_poisson_solution(LbPoissonBoundary boundary, double x, double y);
/* A square's error estimate: the hierarchical surplus |u(centre) - mean of
 * u at its four corners| of square (x, y) of level `level`. Under (1) it
 * is 0 everywhere: a constant needs no finer grid. */
double lb_htree_poisson_surplus(LbPoissonBoundary boundary, guint level, guint64 x, guint64 y);

/* ---- what a tree may cost ---- */

/* lbsim's own process keeps the tree the load built (step 0's), and the
 * process of a balancer run, which rebuilds the tree at every later step,
 * its own copy besides. Per hnode: a run's three trees (the step's, the
 * last, and the next, built on the side) of 16 bytes with room to grow and
 * its unit on some rank, and the loaded tree with room to grow. */
#define LB_HTREE_HNODE_BYTES (96.0 + LB_UNIT_BYTES + 32.0)
/* Per element (refine = elements): its code and the sort's other buffer,
 * 16 bytes, while a tree is built: one build at a time, the load's and
 * then a run's, each freeing them when done. */
#define LB_HTREE_ELEMENT_BYTES 16.0

/* The most hnodes a tree over `elements` points can have (leaf_elements,
 * min_level and max_level as for lb_htree_new_points): below min-level
 * every node splits; from there a level's internal nodes are disjoint
 * regions holding more than leaf_elements points each; an internal node
 * has 2^dim children. */
double lb_htree_max_hnodes(guint dim, guint min_level, guint max_level, guint64 elements,
                           guint64 leaf_elements);
/* Hnodes of the full tree down to level `level`. */
double lb_htree_full_hnodes(guint dim, guint level);

/* ---- the model ---- */

/* The tree of the last adaptation step the work was updated to (step 0
 * before the first update). */
const LbHtree *lb_htree_of(const LbWork *work);
/* refine = elements: where the work's elements are at an adaptation step,
 * elements x dim coordinates (lb_htree_work_elements of them). */
guint64 lb_htree_work_elements(const LbWork *work);
void lb_htree_place(const LbWork *work, guint adaptation, double *points);
/* The load of the hnode at pre-order position at of tree, as the work's
 * load case gives it. */
guint64 lb_htree_load(const LbWork *work, const LbHtree *tree, gsize at);

extern const LbModel lb_htree_model;

G_END_DECLS
