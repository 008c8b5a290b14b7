/* lbsim check's verdicts: every [expect] line of a scenario held against
 * its runs' results, as lines of text and (report.h) in the JSON. */
#pragma once

#include <glib.h>

#include "lbsim/run.h"
#include "lbsim/scenario.h"

/* One [expect] line as lbsim check held it. */
typedef struct {
  const char *text;    /* the line as written */
  const char *outcome; /* "pass", "fail" or "skip" */
  double actual;       /* NAN when skipped */
  double bound;        /* what actual was compared with: NAN when skipped */
  const char *skipped; /* why it was skipped (the balancer that did not run), or NULL */
} LbExpectOutcome;

/* Every [expect] line of sc held against results (LbRunResult, the
 * scenario's runs): its outcome, its actual value and what it was
 * compared with (LbExpectOutcome, in the lines' order). */
GArray *lb_expect_outcomes(const LbScenario *sc, GPtrArray *results);
/* The outcomes on standard output, a line each, and the tally: 1 when a
 * line failed, else 0. */
int lb_expect_print(const LbScenario *sc, const GArray *outcomes);
