/* Results as JSON (the stable contract), a terminal table and CSV, all
 * from typed run results. */
#pragma once

#include "lbsim/run.h"
#include "lbsim/scenario.h"
#include "metrics/summary.h"
#include "report/expect.h"
#include "report/json-writer.h"

/* The whole document: the scenario, the platform and every run (LbRunResult),
 * in scenario order. */
char *lb_report_document(const LbScenario *scenario, GPtrArray *results);

/* A run's document with the outcomes of its [expect] lines (lbsim check),
 * in "checks". */
char *lb_report_document_checked(const LbScenario *scenario, GPtrArray *results,
                                 const LbExpectOutcome *checks, guint nchecks);
/* lbsim check of several scenarios: {"format", ..., "checks": [DOCUMENT,
 * ...]}, each DOCUMENT a checked run's document, in the scenarios' order. */
char *lb_report_check_documents(const LbScenario *const *scenarios, GPtrArray *const *results,
                                const LbExpectOutcome *const *checks, const guint *nchecks,
                                guint count);

/* One run's object, as an element of the document's `runs` (key NULL) or
 * as a member (a sweep's `result`). */
void lb_report_write_run(LbJson *j, const char *key, const LbRunResult *result);

/* A summary field of a run as the table writes it ("-" when the run has
 * none). */
char *lb_report_summary_text(const LbSummaryField *field, const LbRunResult *result);
/* One row per run: the numbers a user compares first. */
char *lb_report_table(GPtrArray *results);
/* The common summary and every declared metric of any run, one row per run. */
char *lb_report_csv(GPtrArray *results);
/* The same with nlead columns first (a sweep's varied keys): names heads
 * them and row r starts with cells[r * nlead] .. cells[r * nlead + nlead - 1]. */
/* Appends a CSV cell: quoted (RFC 4180) when it holds a comma, a quote or
 * a line break. */
void lb_report_csv_text(GString *out, const char *text);
char *lb_report_csv_lead(GPtrArray *results, guint nlead, const char *const *names,
                         const char *const *cells);
/* The long CSV: one row per (run, metric), every value a number, so that
 * the files of several runs, sweeps and scenarios concatenate into one
 * table. Columns: scenario, balancer (the family), label, ranks, seed,
 * then nlead varied keys (names), then metric, value, unit, lbsim. The
 * metrics are the summary's (JSON names), then the declared ones the
 * summary does not hold; a metric the run has none of has no row. */
void lb_report_long_csv_head(GString *out, guint nlead, const char *const *names);
/* The rows of one run: its point's varied values are cells[0 .. nlead-1]. */
void lb_report_long_csv_rows(GString *out, const LbRunResult *result, const char *scenario,
                             guint64 seed, guint nlead, const char *const *cells);
/* The long CSV of lbsim run: the scenario's name and seed, no varied key. */
char *lb_report_long_csv(const char *scenario, guint64 seed, GPtrArray *results);

/* Replicates of one measurement: their count, mean, sample standard
 * deviation, least and greatest, and the 95 % confidence interval of the
 * mean, mean -/+ t * sd / sqrt(n) with t the 0.975 quantile of Student's
 * t with n - 1 degrees of freedom (sd and the interval NAN when n < 2). */
typedef struct {
  guint n;
  double mean, sd, min, max, ci_low, ci_high;
} LbStats;
void lb_stats_of(const double *values, guint n, LbStats *stats);
/* The 0.975 quantile of Student's t with df degrees of freedom (df > 0). */
double lb_stats_t975(guint df);

/* Steps, messages, bytes and time of every phase of every run, then each
 * run's other declared metrics. */
char *lb_report_phases(GPtrArray *results);

/* The table's formats: bytes in B, KiB, MiB...; seconds in us, ms or s;
 * a declared metric's value after its unit. */
char *lb_report_bytes(double bytes);
char *lb_report_seconds(double seconds);
char *lb_report_metric_value(const LbMetricDef *def, double value);

/* Every JSON document lbsim writes for its users (a run's, a sweep's or a
 * merge's, a reproduction's) begins with its format: "format":
 * "lbsim-result", "format_version": LB_RESULT_FORMAT_VERSION, then "lbsim":
 * the version that wrote it (docs/reference/lbsim-result.schema.json). The
 * version changes when a member is removed, renamed or changes meaning or
 * type; new members do not change it. */
#define LB_RESULT_FORMAT "lbsim-result"
/* 2: a sweep's point and vary values keep their types (numbers as
 * numbers) and a point's GROUP.KEY is member KEY of member GROUP */
/* 3: a measure that does not apply to a run (schedule_steps of a balancer
 * that declares none) is null in the JSON and empty in the CSV, not 0 */
#define LB_RESULT_FORMAT_VERSION 3
struct _LbJson;
void lb_report_write_format(struct _LbJson *j);
