/* A paper's reproduction run and judged: its sweeps made (every scenario
 * read, every claim's labels, metrics and processor counts held against
 * them before anything runs), run, each claim evaluated by its rule, and
 * the scorecard of its headline claims. */
#pragma once

#include "report/junit.h"

#include "reproduce/claims.h"

/* Makes the runs' sweeps (quick: the reduced form; sets: --set overrides
 * for every run, or NULL) and checks that every claim names balancers,
 * metrics and processor counts its runs have. */
gboolean lb_paper_prepare(LbPaper *paper, gboolean quick, const char *const *sets, GError **error);

/* Runs what the state folder does not hold yet (STATE/NAME/ a run each);
 * the exit code of the worst run (0, 1 or 3). */
int lb_paper_execute(LbPaper *paper, const char *state, guint jobs, gboolean quiet);

/* Evaluates every claim and diagnostic (checks may run simulations of
 * their own, jobs at a time, kept in STATE/checks/ so that the same
 * command evaluates again without them; state NULL: none kept); 1 when
 * a check could not be made. */
int lb_paper_evaluate(LbPaper *paper, const char *state, gboolean quick, guint jobs,
                      gboolean quiet);

typedef struct {
  guint headline;       /* headline claims */
  guint reproduced;     /* of them, agreeing (calibrated ones aside) */
  guint not_reproduced; /* disagreeing (calibrated ones aside) */
  guint known;          /* of those, listed as known */
  guint not_evaluated;  /* not in the quick form */
  guint failed;         /* could not be evaluated */
  guint calibrated;     /* evaluated, but fitted to: never counted as reproduced */
  guint claims;         /* every claim */
  guint evaluated, agreeing;
  guint stale;       /* claims listed as known that agree */
  guint diagnostics; /* lbsim's own numbers */
} LbScorecard;

void lb_paper_scorecard(const LbPaper *paper, LbScorecard *card);

/* Whether --check fails: a headline claim disagrees and is not known, a
 * known one agrees, or a headline claim could not be evaluated. Each
 * reason a line of *why (may be NULL). */
gboolean lb_paper_check_fails(const LbPaper *paper, char **why);
/* --check's verdict said on stderr, a line per reason: 1 when the paper
 * fails it, else 0. */
int lb_paper_check_say(const LbPaper *paper);
/* The claims as a test suite, as --check holds them: a claim that fails
 * the verdict fails (or is in error when it could not be evaluated); one
 * that agrees passes; known disagreements, claims the verdict leaves and
 * those not run are skipped, with why. */
LbTestSuite *lb_paper_test_suite(const LbPaper *paper, double seconds);
