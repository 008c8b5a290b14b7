/* Sweeps: the cross product of varied scenario keys, one job per point and
 * balancer, each job's result kept in a state folder so that a sweep can
 * stop and resume, or be spread over a cluster and merged. */
#pragma once

#include "runner/job.h"
#include "lbsim/run.h"
#include "report/results.h"

#define LB_SWEEP_ERROR (lb_sweep_error_quark())
GQuark lb_sweep_error_quark(void);

typedef enum {
  LB_SWEEP_ERROR_INPUT, /* a --vary, --platform or --set, or a point that does not load */
  LB_SWEEP_ERROR_STATE, /* a state folder or an output that is not this sweep's */
} LbSweepError;

/* Sets error (LB_SWEEP_ERROR, code) to the formatted text: FALSE. */
gboolean lb_sweep_fail(GError **error, LbSweepError code, const char *format, ...)
    G_GNUC_PRINTF(3, 4);

typedef struct {
  guint point;    /* in the cross product of the axes other than balancer */
  char *balancer; /* a label of the scenario's run list */
  char *id;       /* hex digest of the job and the scenario file's bytes */
  LbJob *job;     /* NULL when read back from a state folder */
  char *platform; /* the resolved platform (for messages); NULL when read back */
  /* the first run of the sweep with the same id, or this one's index: a
   * balancer's run does not depend on another balancer's keys (varying
   * mlb.desired runs none once), so points share it */
  guint first;
  guint next; /* the next run with the same id, or 0 when none (0 is always a first) */
} LbSweepRun;

typedef struct {
  char *scenario;   /* absolute */
  char *name;       /* the scenario's, at the first point */
  char *platform;   /* the --platform pattern, or NULL */
  char **sets;      /* the fixed --set overrides, or NULL */
  GPtrArray *axes;  /* LbSweepAxis, in the order given */
  guint npoints;    /* of the axes other than balancer; the last varies fastest */
  GPtrArray *runs;  /* LbSweepRun, in the cross product's order */
  gint replicates;  /* the axis whose values are replicates (--repeat, --replicates), or -1 */
  guint64 seed;     /* the scenario's seed at the first point */
  char *definition; /* the text of STATE/sweep.ini */
  char *id;         /* hex digest of the definition */
} LbSweep;

/* A --vary list: values separated by commas, each a value as written or a
 * range START:END:STEP of decimal numbers (END included when reached),
 * counted in integers of the finest precision among the three and printed
 * with it: 1.1:2.0:0.1 gives the ten values 1.1 .. 2.0. Returns the values
 * (char *), or NULL with LB_SWEEP_ERROR_INPUT. */
GPtrArray *lb_sweep_values_parse(const char *text, GError **error);

/* The sweep of scenario over every --vary NAME=LIST of vary, with the
 * platform pattern ({NAME} is the point's value of NAME) and the fixed
 * overrides sets. Loads the scenario of every point first: an error names
 * the point. */
LbSweep *lb_sweep_new(const char *scenario, const char *const *vary, const char *platform,
                      const char *const *sets, GError **error);
/* The same with replicates: repeat > 0 adds the last axis, seed, with the
 * repeat values S, S + 1, ..., S + repeat - 1 (S the scenario's seed at
 * the first point), or replicates names a varied key (not balancer) whose
 * values are replicates; without either, a varied seed's values are. The
 * documents then give each measure's mean and spread over the replicates
 * of every other point and balancer. */
LbSweep *lb_sweep_new_replicated(const char *scenario, const char *const *vary,
                                 const char *platform, const char *const *sets, guint repeat,
                                 const char *replicates, GError **error);
/* The sweep a state folder holds (its sweep.ini), for merging. */
LbSweep *lb_sweep_read(const char *dir, GError **error);
void lb_sweep_free(LbSweep *sweep);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LbSweep, lb_sweep_free)

/* How many distinct runs (ids) the sweep has: what runs, the others
 * reuse one of them. */
guint lb_sweep_distinct(const LbSweep *sweep);

/* Ranks varied on the scenario's one platform (no --platform): says on
 * stderr, once per count, which hosts each point's ranks run on. */
void lb_sweep_say_hosts(const LbSweep *sweep);

/* The value of axis (not the balancer axis) at point. */
const char *lb_sweep_value(const LbSweep *sweep, guint point, guint axis);
/* "ranks=16 move-split.threshold=1.1 balancer=move-split" */
char *lb_sweep_describe(const LbSweep *sweep, const LbSweepRun *run);

/* The documents, from results[i] for runs->pdata[i] (NULL: not done). A
 * run whose balancer relates it to the others of its point (dls and its
 * improvement over STAT) is left out until its point is complete; the
 * related metrics of complete points are filled in. JSON: the sweep's
 * definition, then one {"point", "balancer", "result"} per run in the
 * cross product's order, "result" as in lbsim run's `runs`. CSV: the
 * varied values, then lbsim run's columns. */
char *lb_sweep_document(const LbSweep *sweep, LbRunResult *const *results);
char *lb_sweep_csv(const LbSweep *sweep, LbRunResult *const *results);
/* The long CSV (see lb_report_long_csv_head): the varied keys other than
 * ranks, seed and balancer are the lead columns. */
char *lb_sweep_long_csv(const LbSweep *sweep, LbRunResult *const *results);
/* With replicates: one row per other point, balancer and measure: the
 * varied keys (the replicates' aside), balancer, metric, unit, runs, mean,
 * sd, min, max, ci95_low, ci95_high (LbStats). */
char *lb_sweep_stats_csv(const LbSweep *sweep, LbRunResult *const *results);

/* The files a sweep rewrites as runs finish (NULL: not asked for). */
typedef struct {
  const char *json, *csv, *long_csv, *stats_csv;
} LbSweepFiles;

/* Runs what a sweep's state folder (made if missing) does not hold yet,
 * up to jobs at a time (0: one per processor), rewriting json (and csv,
 * if not NULL) as runs finish; *results gets one result per run, NULL for
 * one that failed (free each and the array). The state folder and the
 * outputs are the caller's to check first. Returns the exit status. */
int lb_sweep_execute(const LbSweep *sweep, const char *state, const char *json, const char *csv,
                     guint jobs, gboolean quiet, LbRunResult ***results);
int lb_sweep_execute_files(const LbSweep *sweep, const char *state, const LbSweepFiles *files,
                           guint jobs, gboolean quiet, LbRunResult ***results);

/* Writes the documents of files from results now (lbsim merge). */
gboolean lb_sweep_write_documents(const LbSweep *sweep, LbRunResult *const *results,
                                  const LbSweepFiles *files, GError **error);

/* ---- the state folder and the outputs (state.c) ---- */

/* NAME-sweep.json, NAME the scenario's; the state folder of a JSON FILE:
 * FILE without .json, then .d */
char *lb_sweep_default_json(const LbSweep *sweep);
char *lb_sweep_default_state(const char *json);
/* A JSON output may replace only this sweep's (its definition's digest
 * near its start), a CSV only one with this sweep's columns. */
gboolean lb_sweep_check_json(const char *path, const LbSweep *sweep, GError **error);
gboolean lb_sweep_check_tables(const LbSweepFiles *files, const LbSweep *sweep, GError **error);
/* A state folder: new, empty, this sweep's, or (force) another's. */
gboolean lb_sweep_check_state(const char *dir, const LbSweep *sweep, gboolean force,
                              GError **error);
/* Before anything is made or run: each output can be written, none is an
 * input or another output, the state folder neither; with emit, its
 * scheduler's options and files too. */
struct LbEmit;
gboolean lb_sweep_check_files(const LbSweep *sweep, const char *json, const char *csv,
                              const struct LbEmit *emit, const char *state,
                              const LbSweepFiles *more, GError **error);
/* DIR/ID.SUFFIX of a run (.job, .result, ...). */
char *lb_sweep_run_file(const char *dir, const LbSweepRun *run, const char *suffix);
/* A run's result file, checked to be of the run's balancer. */
LbRunResult *lb_sweep_read_result(const char *path, const LbSweepRun *run, GError **error);
/* The results the state folder holds into results (by run); a bad one is
 * said (unless quiet) and runs again. Returns how many were read. */
guint lb_sweep_read_kept(const char *dir, const LbSweep *sweep, LbRunResult **results,
                         gboolean quiet);
void lb_sweep_results_free(LbRunResult **results, guint n);
/* The state folder made if missing, the sweep's definition written in it
 * (sweep.ini): FALSE after saying why on stderr. */
gboolean lb_sweep_state_make(const char *dir, const LbSweep *sweep);

/* ---- merging (merge.c): paths[1..argc), as lbsim merge takes them ---- */

/* The sweep the state folders and result files belong to (the sweep.ini of
 * each folder, and of each result file's folder), all the same one. */
LbSweep *lb_sweep_merge_definition(int argc, char **argv, GError **error);
/* Their results into results (by run), those other points share too. */
gboolean lb_sweep_merge_results(const LbSweep *sweep, int argc, char **argv, LbRunResult **results,
                                GError **error);
/* merge's outputs: writable, none of them a file it reads or another. */
gboolean lb_sweep_check_merge_files(const LbSweep *sweep, int argc, char **argv,
                                    const LbSweepFiles *files, GError **error);
