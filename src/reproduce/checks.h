/* The claims lbsim reproduce computes itself (`measure = check NAME ARGS`
 * in a paper's claims.ini): worked examples and exact checks over many
 * cases. Each is one row of a table: a function that runs lbsim's own code
 * (a balancer's plan functions, or real runs) and compares what it gives
 * with a computation of the check's own. docs/reference/reproduce.md lists
 * them. */
#pragma once

#include "runner/job.h"
#include "lbsim/run.h"

/* One run of the claim's [run:NAME] sweep, at the claim's ranks. */
typedef struct {
  const char *id;            /* the sweep's id of it: its job and its scenario file's bytes */
  const LbJob *job;          /* how it ran: its scenario file and overrides */
  const char *point;         /* "ranks=16 seed=3 balancer=mlb", for notes */
  const LbRunResult *result; /* what it gave */
} LbCheckRun;

/* How a check runs simulations of its own: jobs at a time, each result
 * kept in keep_dir (the state folder's checks/; NULL: none kept) under
 * the text that determines it, so that the same command evaluates the
 * claims again without them. */
typedef struct {
  guint jobs;
  const char *keep_dir;
} LbCheckSims;

typedef struct {
  gboolean quick;          /* the reduced form: fewer cases */
  const LbCheckSims *sims; /* for a check that runs its own simulations */
  const char *dir;         /* the paper's folder: files the arguments name are in it */
  const char *const *args; /* the words after the check's name */
  guint nargs;
  const LbCheckRun *runs; /* the claim's run; none for a check that reads no run */
  guint nruns;
} LbCheckInput;

/* One point of a check that computes a family (every processor count, a
 * configuration): a claim whose rule is 'every RULE' or 'spans LO HI'
 * judges them. */
typedef struct {
  char *label; /* "p = 4", "N = 1080, P = 8" */
  double value;
  /* a claim's point of a run at a processor count: the run's index among
   * the claim's runs and the processors; a check's own: 0 processors */
  guint run, ranks;
} LbCheckPoint;

typedef struct {
  double value;   /* lbsim's number, compared with the paper's by the claim's rule */
  char *note;     /* one line beside it */
  char *detail;   /* a worked example as lbsim computes it (lines), or NULL */
  GArray *points; /* LbCheckPoint (the caller frees), or NULL */
} LbCheckOutput;

/* Adds a point to out->points (made on the first). */
void lb_check_output_point(LbCheckOutput *out, double value, const char *format, ...)
    G_GNUC_PRINTF(3, 4);

typedef struct {
  const char *name;
  const char *usage; /* its arguments, for the error that refuses others */
  guint min_args, max_args;
  gboolean needs_run; /* reads the results of the claim's run */
  /* the arguments, checked before anything runs; NULL: any will do */
  gboolean (*validate)(const char *const *args, guint nargs, const char *dir, GError **error);
  gboolean (*compute)(const LbCheckInput *in, LbCheckOutput *out, GError **error);
  /* What its arguments name, held against the claim's runs before anything
   * runs: the arguments from label_first to label_last (-1: none; G_MAXINT:
   * to the end) are balancer labels, or with label_prefix the variants of
   * one ("dls:" + a technique); metric_arg names a metric of them (-1:
   * none); needs_label is a label the runs must have (or NULL). */
  int label_first, label_last;
  const char *label_prefix;
  int metric_arg;
  const char *needs_label;
} LbReproCheck;

/* A check that cannot make its number (a run it needs failed). */
GQuark lb_repro_check_error_quark(void);

/* The row of a check, or NULL. */
const LbReproCheck *lb_repro_check_lookup(const char *name);
/* Every check's name, for an error: "gray-codes, coarse-children, ..." */
char *lb_repro_check_names(void);
