/* What SimGrid would abort on in the middle of a run, found before it: a
 * speed or a bandwidth of 0, hosts that no route joins. */
#pragma once

#include <simgrid/forward.h>
#include "lbsim/scenario.h"

/* Before SimGrid: reads the platform's XML for speeds and bandwidths that
 * are not above 0 (SimGrid aborts on some while loading). */
gboolean lb_platform_check_xml(const LbScenario *scenario, GError **error);

/* After loading: every rank's host computes, and reaches rank 0's host and
 * back (hosts[r] is rank r's). */
gboolean lb_platform_check_hosts(const LbScenario *scenario, const sg_host_t *hosts,
                                 GError **error);
