/* What SimGrid would abort on in the middle of a run, or simulate other than
 * lbsim's figures assume, found before anything runs: rates and latencies
 * out of range, profiles, failures, wifi, models other than the flow
 * models, hosts that no route joins. */
#pragma once

#include <simgrid/forward.h>
#include "lbsim/run.h"
#include "lbsim/scenario.h"

/* Before SimGrid: SimGrid settings (--cfg KEY:VALUE) lbsim cannot run
 * faithfully. The error names the setting. */
gboolean lb_platform_check_cfg(const char *const *cfg, GError **error);

/* Before SimGrid: reads the platform's XML for what lbsim refuses (a
 * speed or bandwidth not finite and above 0, a latency not finite and at
 * least 0, profiles, state changes, wifi, a <config> setting refused as
 * by lb_platform_check_cfg). The error names the line, the element and
 * the attribute. */
gboolean lb_platform_check_xml(const LbScenario *scenario, GError **error);

/* Once SimGrid has sealed the platform (from an actor: routes are worked
 * out as the simulation starts): every rank's host computes, and the
 * routes between the ranks' hosts exist (hosts[r] is rank r's). */
gboolean lb_platform_check_hosts(const LbScenario *scenario, const sg_host_t *hosts,
                                 GError **error);

/* Starts SimGrid (call once per process) with options' settings, loads the
 * platform and checks it as a run of the scenario would, without running
 * anything. Defined with the engine, whose set-up it shares. */
gboolean lb_run_check_platform(const LbScenario *scenario, const LbRunOptions *options,
                               GError **error);
