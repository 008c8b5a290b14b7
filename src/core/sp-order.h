/* The ordered sequence SP of the p-nodes (F. Baiardi, S. Chiti, P. Mori and
 * L. Ricci, "Integrating load balancing and locality in the parallelization
 * of irregular problems", 2001, section 3): A immediately precedes B if an
 * interaction between A and B costs no more than one between A and any
 * p-node after B. The arithmetic of two constructions, free of SimGrid so
 * that it can be tested alone; hosts are numbers 0 .. n-1. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define LB_SP_MAX_DIMS 16

/* The cost of an interaction from host a to host b; smaller is cheaper. */
typedef double (*LbSpCostFunc)(guint a, guint b, gpointer data);

/* A Hamiltonian path through a torus of sizes[0] x sizes[1] x ... whose
 * consecutive nodes are one link apart: order[i] is the host of the i-th
 * node, host x0 + s0 x1 + s0 s1 x2 + ... (first dimension fastest).
 * order holds the product of the sizes. */
void lb_sp_snake(const guint *sizes, guint ndims, guint *order);

/* "X,Y,Z" (up to LB_SP_MAX_DIMS sizes, each at least 1) into sizes;
 * FALSE if the text is not such a list or the product exceeds G_MAXUINT. */
gboolean lb_sp_parse_sizes(const char *text, guint *sizes, guint *ndims);

/* The paper's definition taken literally from host 0: order[k+1] is the
 * host not yet in order[0 .. k] that costs least from order[k], the lowest
 * number among equals. Fills order[0 .. count-1], count <= n, with
 * (count - 1) (n - count/2) calls of cost. */
void lb_sp_greedy(guint n, guint count, LbSpCostFunc cost, gpointer data, guint *order);

G_END_DECLS
