/* Which host each rank runs on: rank r on host r (linear), on host gray(r)
 * (gray), on the r-th host of the SP sequence by communication cost
 * (cost), or on whole nodes drawn at random with the scenario's seed
 * (queue). Hosts are numbered by the number in their names. */
#pragma once

#include <simgrid/forward.h>
#include "lbsim/scenario.h"

/* After the platform is loaded: *placed gets one host per rank (g_free
 * it), *name the placement used, e.g. "gray" or "cost (snake)". */
gboolean lb_place_ranks(const LbScenario *scenario, sg_host_t **placed, char **name,
                        GError **error);

/* Hosts a node: the platform's lbsim-node-hosts (K: hosts K k .. K k + K - 1
 * are node k), 1 without it, 0 with an error when it is not a number that
 * divides nhosts. After the platform is loaded. */
guint lb_node_hosts(const LbScenario *scenario, guint nhosts, GError **error);

/* count of nodes 0 .. nodes - 1, drawn at random without replacement, in the
 * order drawn: the same for the same seed, on every machine. */
void lb_queue_draw(guint nodes, guint count, guint64 seed, guint *drawn);

/* The platform's hosts by the number in their names (xbt_free the list). */
sg_host_t *lb_hosts_in_order(size_t *count);

/* An lbsim-platgen property of the platform (on its root zone or the zone
 * that wraps its cluster), or NULL. */
const char *lb_platform_property(const char *key);
