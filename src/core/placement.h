/* Which host each rank runs on: rank r on host r (linear), on host gray(r)
 * (gray), or on the r-th host of the SP sequence by communication cost
 * (cost). Hosts are numbered by the number in their names. */
#pragma once

#include <simgrid/forward.h>
#include "lbsim/scenario.h"

/* After the platform is loaded: *placed gets one host per rank (g_free
 * it), *name the placement used, e.g. "gray" or "cost (snake)". */
gboolean lb_place_ranks(const LbScenario *scenario, sg_host_t **placed, char **name,
                        GError **error);
