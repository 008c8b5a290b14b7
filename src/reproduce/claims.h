/* A paper's reproduction as data: its claims.ini read and checked (the
 * runs of its experiment, its claims with the rule that says what
 * agreeing means, the diagnostics lbsim prints beside them, the inputs
 * the paper does not state), and the rules themselves.
 * docs/reference/reproduce.md describes the file. */
#pragma once

#include "reproduce/checks.h"
#include "sweep/sweep.h"

typedef enum {
  LB_MEASURE_VALUE,       /* BALANCER METRIC */
  LB_MEASURE_IMPROVEMENT, /* METRIC A B: 100 (A - B) / A */
  LB_MEASURE_EXCESS,      /* METRIC A B: 100 (A - B) / B, A's excess over B */
  LB_MEASURE_RATIO,       /* METRIC A B: A / B */
  LB_MEASURE_SHARE,       /* METRIC A B: 100 A / B, A's as a share of B's */
  LB_MEASURE_GAP,         /* METRIC A B C: 100 (A - B) / C, in points of C */
  LB_MEASURE_RELATIVE,    /* METRIC A B C ...: A over the least of A, B, C, ... */
  LB_MEASURE_ABOVE,       /* METRIC A B C ...: 100 (A / least - 1), % above the least */
  LB_MEASURE_ORDER,       /* METRIC A B C ...: pairs out of order (A <= B <= C ...) */
  LB_MEASURE_CHECK,       /* NAME ARGS ...: a check of reproduce-checks.c */
} LbMeasure;

typedef enum {
  LB_RULE_SAME_SIGN, /* the paper's sign; only beside a magnitude claim */
  LB_RULE_WITHIN_2X, /* between half and twice the paper's (so of its sign) */
  LB_RULE_AT_MOST,   /* a guarantee the paper states: at most HI */
  LB_RULE_AT_LEAST,  /* at least LO */
  LB_RULE_RANGE,     /* from LO to HI */
  LB_RULE_EXACTLY,   /* LO exactly (a count) */
  LB_RULE_SPANS,     /* a family of points: its least near LO, its largest near HI */
} LbRuleKind;

typedef struct {
  LbRuleKind kind;
  gboolean every; /* every point of the claim holds the rule */
  double lo, hi;
} LbRule;

/* "within-2x", "range 1 1.8", "every at-least 50", "spans 5.9 81.2", ... */
gboolean lb_rule_parse(const char *text, LbRule *rule, GError **error);
/* Whether one number holds the rule against the paper's (every aside). */
gboolean lb_rule_holds(const LbRule *rule, double paper, double x);
/* Judges the points of a claim: a rule of one point on values[0], every
 * on all of them, spans on their least and largest. *shown is the number
 * to print (the worst point, spans' largest), *at its index. */
gboolean lb_rule_judge(const LbRule *rule, double paper, const double *values, guint n,
                       double *shown, guint *at);

typedef enum {
  LB_FORM_NONE = 0,
  LB_FORM_FULL = 1,
  LB_FORM_QUICK = 2,
  LB_FORM_BOTH = 3,
  LB_FORM_DEEP = 4, /* the deep form, for a claim that reads a run made deep */
} LbForm;

typedef enum {
  LB_CLAIM_NOT_RUN,      /* the quick form does not run it */
  LB_CLAIM_FAILED,       /* a run it reads failed, or its check could not be made */
  LB_CLAIM_AGREES,       /* lbsim's number agrees with the paper's */
  LB_CLAIM_DISAGREES,    /* and claims.ini does not list it as known */
  LB_CLAIM_KNOWN,        /* a disagreement claims.ini lists with its reason */
  LB_CLAIM_KNOWN_AGREES, /* listed as known, but it agrees now: the list is stale */
} LbClaimStatus;

/* A point of a claim: "amr64 on 32", or a check's own (its points move
 * into the claim). */
typedef LbCheckPoint LbClaimPoint;

typedef struct {
  char *id;
  gboolean diagnostic; /* lbsim's own number: no paper, no rule */
  char *text;          /* what is claimed, or what the diagnostic shows */
  char *words;         /* the paper's words, quoted (headline claims) */
  char *unit, *rule_text, *figure;
  char *measure_text; /* as written, spaces normalised */
  char **runs;        /* the runs it reads (NULL: a check that reads none) */
  GArray *ranks;      /* guint: its processor counts; empty: every count (checks) */
  LbMeasure measure;
  char *metric;
  char **labels; /* value: the balancer; the others: A B C ... */
  const LbReproCheck *check;
  char **args; /* a check's words after its name */
  double paper;
  LbRule rule;
  gboolean headline;
  LbForm known; /* the forms in which it is a known disagreement */
  char *known_reason;
  char *known_deep_reason; /* known-deep: why it disagrees in the deep form, or NULL */
  char *calibrated;        /* the [calibration] key fitted to it, or NULL */
  /* evaluated */
  LbClaimStatus status;
  gboolean done;   /* lbsim has a number */
  gboolean agrees; /* by the rule, when done */
  double lbsim;
  GArray *points; /* LbClaimPoint: every point judged */
  char *note, *detail;
} LbClaim;

typedef struct {
  char *key, *value, *source;
} LbCalibration;

typedef struct {
  char *name, *scenario; /* the scenario's path */
  char *ranks, *quick_ranks;
  guint quick_steps;       /* 0: the scenario's */
  char *vary, *quick_vary; /* more axes: "NAME=LIST; NAME=LIST", or NULL */
  char *platform;          /* a pattern such as hypercube-{ranks}.xml, or NULL */
  gboolean deep;           /* run with [deep]'s settings (lb_paper_deepen) */
  gboolean left_out;       /* not among --only's runs: not run, its claims not evaluated */
  LbSweep *sweep;
  LbRunResult **results;
} LbPaperRun;

typedef struct {
  char *key, *dir, *cite, *summary;
  GPtrArray *runs;        /* LbPaperRun */
  GPtrArray *claims;      /* LbClaim, the claims then the diagnostics, in file order */
  GPtrArray *calibration; /* LbCalibration */
  /* [deep]: the paper's scale where the full form reduces it to fit its
   * time, or NULL; deep once lb_paper_deepen has applied it */
  char *deep_summary;
  char **deep_runs, **deep_sets;
  gboolean deep;
  char **only; /* --only: the runs chosen (lb_paper_only), or NULL: every run */
} LbPaper;

/* The folder of the papers: $LBSIM_PAPERS_DIR, else the installed or
 * source tree's scenarios/papers. */
const char *lb_papers_dir(void);
/* Every paper's key, sorted. */
GPtrArray *lb_paper_keys(void);

/* Reads and checks scenarios/papers/KEY/claims.ini (the scenarios are
 * not read yet: lb_paper_prepare). */
LbPaper *lb_paper_load(const char *key, GError **error);
void lb_paper_free(LbPaper *paper);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LbPaper, lb_paper_free)

const LbPaperRun *lb_paper_run(const LbPaper *paper, const char *name);

/* The deep form: [deep]'s runs take its settings (before any --set), and
 * a claim that reads one of them is a known disagreement only by its
 * known-deep. FALSE (error set) when the paper has no [deep]. */
gboolean lb_paper_deepen(LbPaper *paper, GError **error);
/* --only: the runs named (each NAME or a comma list of them) run, the
 * others are left out, and a claim is evaluated only when every run it
 * reads is among them. FALSE (error set) for a name the paper has no run
 * of. */
gboolean lb_paper_only(LbPaper *paper, const char *const *names, GError **error);
/* "amr64, no-dlb": --only's runs, or NULL. */
char *lb_paper_only_text(const LbPaper *paper);
/* Whether the claim reads a run --only left out, or (a check that reads
 * no run) --only was given at all. */
gboolean lb_claim_left_out(const LbPaper *paper, const LbClaim *claim);

/* What the deep form changes, one line. */
char *lb_paper_deep_text(const LbPaper *paper);

/* The processor counts of a run in a form. */
GArray *lb_paper_run_ranks(const LbPaperRun *run, gboolean quick);
