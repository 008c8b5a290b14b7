/* lbsim check's verdicts as test reports a CI server reads: JUnit XML (one
 * <testsuite> a scenario, one <testcase> an [expect] line), as GitLab,
 * Jenkins and GitHub's test reporters take it, and TAP version 13 (one
 * test point a line) for prove and meson. */
#pragma once

#include <glib.h>

#include "report/diff.h"
#include "report/expect.h"

/* One scenario as lbsim check held it. */
typedef struct {
  const char *name;                /* the scenario's name: the suite and the classname */
  const LbScenario *scenario;      /* its [expect] lines (for their operators) */
  const LbExpectOutcome *outcomes; /* in the lines' order; NULL when the runs failed */
  guint n;
  double seconds;    /* wall time of its runs and checks */
  const char *error; /* why its runs failed (a broken invariant, ...), or NULL */
  /* --baseline: the values that differ from it (LbDiffRow; those within
   * their tolerance pass), or NULL */
  const GPtrArray *baseline;
} LbCheckReport;

/* The JUnit document of the scenarios, in order. */
char *lb_junit_document(const LbCheckReport *reports, guint n);

/* The TAP document of the scenarios, in order. */
char *lb_tap_document(const LbCheckReport *reports, guint n);
