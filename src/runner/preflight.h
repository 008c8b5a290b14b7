/* The platform checked before anything runs: runs are children of their
 * own (a SimGrid engine cannot be restarted), and SimGrid works routes out
 * only when a simulation starts, so a child loads the platform, seals it
 * and runs every check of a run's set-up before the first run starts or
 * prints a line. Waiting for the first run's own verdict instead would
 * save one load of the platform (0.2 s of CPU at 4096 ranks, 1.2 s at
 * 16384), but that run would have begun its outputs, the process with
 * --no-fork could not report a SimGrid abort in one line, and a sweep
 * checks every point before its first run. */
#pragma once

#include "lbsim/run.h"
#include "lbsim/scenario.h"

/* The settings, the platform's XML, then (in a child process) the
 * platform as SimGrid loads and seals it, with the ranks placed as the
 * scenario's runs place them. options may be NULL (no settings). On
 * failure *exit_code is 2 for input, 3 invariant, 1 anything else, and
 * the error is the one line a run would have stopped on. A platform that
 * passed with the same ranks, placement and background hosts is not
 * loaded again in this process. */
gboolean lb_preflight(const LbScenario *scenario, const LbRunOptions *options, int *exit_code,
                      GError **error);
