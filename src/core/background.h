/* [scenario] background on the loaded platform: a competing load on some
 * hosts for part of the run. */
#pragma once

#include "lbsim/scenario.h"

/* Every loaded host exists and has one core (the share a competitor leaves
 * is a share of one core). */
gboolean lb_background_check(const LbScenario *scenario, GError **error);

/* Starts the loads as daemon actors, which end with the ranks: call once
 * the ranks' actors exist, before simgrid_run(). */
void lb_background_start(const LbScenario *scenario);
