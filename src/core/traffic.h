/* [scenario] background-traffic: other jobs' flows across the uplinks of
 * the edge switches a run uses, between nodes the run did not take. */
#pragma once

#include <simgrid/forward.h>
#include "lbsim/scenario.h"

/* A flow of other jobs, from node `from` to node `to`. */
typedef struct {
  guint from, to;
} LbTrafficFlow;

/* The flows, as nodes: switch_of[k] is node k's edge switch, taken[k] TRUE
 * when node k holds a rank. For every switch that holds a rank (in switch
 * order), `flows` of its nodes the run did not take and that send nothing
 * yet each send to such a node on another switch that receives nothing
 * yet, and likewise `flows` receive, all drawn with the seed. A node sends
 * at most one flow and receives at most one, so at least `flows` flows
 * leave and enter each of the run's switches (some drawn for another),
 * fewer where it has fewer free nodes. The same seed gives the same flows
 * on every machine. */
GArray *lb_traffic_plan(const guint *switch_of, const gboolean *taken, guint nodes, guint flows,
                        guint64 seed);

/* After the ranks are placed: the flows between hosts (each node's first
 * host), or an error naming [scenario] background-traffic when the
 * platform does not say its nodes' switches (lbsim-switch-nodes). *hosts_out
 * gets 2 hosts a flow, sender then receiver (g_free it); NULL and 0 flows
 * without background traffic. */
gboolean lb_traffic_hosts(const LbScenario *scenario, const sg_host_t *placed,
                          sg_host_t **hosts_out, guint *nflows, GError **error);

/* Starts each flow as a pair of daemon actors that send and receive one
 * message larger than any run moves, so it lasts as long as the ranks. */
void lb_traffic_start(const sg_host_t *hosts, guint nflows);
