/* Test reports a CI server reads: JUnit XML (a <testsuite> of <testcase>
 * elements, as GitLab, Jenkins and GitHub's test reporters take it) and
 * TAP version 13 (a test point each) for prove and meson; lbsim check
 * makes a suite a scenario (a case an [expect] line, and one a value held
 * to --baseline), lbsim reproduce --check a suite of the paper's claims. */
#pragma once

#include <glib.h>

#include "report/diff.h"
#include "report/expect.h"

typedef enum {
  LB_TEST_PASS,
  LB_TEST_FAIL,
  LB_TEST_SKIP,
  LB_TEST_ERROR, /* could not be held: its runs failed */
} LbTestOutcome;

typedef struct {
  char *name;
  LbTestOutcome outcome;
  char *message; /* why it failed, was skipped or is in error; NULL when it passed */
  char *type;    /* the kind of failure or error ("expect", "baseline", "run", "claim") */
} LbTestCase;

typedef struct {
  char *name;     /* the suite, and its cases' classname */
  double seconds; /* wall time */
  GArray *cases;  /* LbTestCase */
} LbTestSuite;

LbTestSuite *lb_test_suite_new(const char *name, double seconds);
void lb_test_suite_free(LbTestSuite *suite);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LbTestSuite, lb_test_suite_free)
void lb_test_suite_add(LbTestSuite *suite, const char *name, LbTestOutcome outcome,
                       const char *message, const char *type);

/* lbsim check's suite of one scenario: its [expect] lines' outcomes
 * (NULL when its runs failed: every line is then an error with `error`),
 * then the values held to a baseline (LbDiffRow, or NULL). */
LbTestSuite *lb_test_suite_of_check(const LbScenario *sc, const LbExpectOutcome *outcomes, guint n,
                                    const GPtrArray *baseline, double seconds, const char *error);

/* The JUnit document of the suites, in order. */
char *lb_junit_document(LbTestSuite *const *suites, guint n, const char *name);

/* The TAP document of the suites, in order. */
char *lb_tap_document(LbTestSuite *const *suites, guint n);
