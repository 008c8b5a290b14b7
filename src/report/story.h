/* The story of a run as lbsim explain tells it, from its result: what every
 * rank did (the narration), the schedule's transfers step by step (summed
 * per round and pair of ranks for a tree's units), the final boxes and
 * neighbours, loads and imbalance. */
#pragma once

#include <glib.h>

#include "lbsim/balancer.h"
#include "lbsim/run.h"

/* The text, from "What every rank did" on; tree: the units are a tree's
 * (counted, not named by their ids). */
char *lb_report_story(const LbRunResult *run, const LbBalancer *balancer, const LbParams *params,
                      gboolean tree);
