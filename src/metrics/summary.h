/* The run's summary: one row per field, from which the child-to-parent
 * transport, the user's JSON, the CSV, the terminal table, [expect] and
 * the report all come. Adding a summary field is one row. */
#pragma once

#include <glib.h>

#include "lbsim/metric.h"
#include "lbsim/run.h"

typedef enum {
  LB_SUMMARY_RUN = 1 << 0,  /* a field of the run (LbRunResult) */
  LB_SUMMARY_STEP = 1 << 1, /* a field of each step (LbAdaptationResult) */
} LbSummaryWhere;

typedef enum {
  LB_SUMMARY_RATIO,   /* "%.4f" in the table */
  LB_SUMMARY_COUNT,   /* a whole number */
  LB_SUMMARY_BYTES,   /* "265.4 MiB" */
  LB_SUMMARY_SECONDS, /* "2.215 s" */
} LbSummaryKind;

typedef struct {
  const char *name;      /* for [expect] and the command line: "imbalance-before" */
  const char *json;      /* in the JSON and the CSV: "imbalance_before" */
  const char *unit;      /* "", "messages", "bytes", "s", "rounds" */
  LbSummaryKind kind;    /* how the table writes it */
  LbAggregate aggregate; /* how the run's value comes from its steps' */
  guint where;           /* LbSummaryWhere bits */
  const char *column;    /* the terminal table's header, or NULL */
  gboolean csv;          /* a column of the CSV */
  gboolean whole;        /* a guint64 in the results (else a double) */
  /* where it lives in LbRunResult and in LbAdaptationResult (-1: derived
   * from the declared metric of the same name; it does not apply, null in
   * the JSON and empty in the CSV, when there is none) */
  gssize run_offset, step_offset;
  const char *help;
} LbSummaryField;

/* The rows, in the order of the JSON; the last has a NULL name. */
const LbSummaryField *lb_summary(void);
/* The row of a name ('-' and '_' alike), or NULL. */
const LbSummaryField *lb_summary_lookup(const char *name);

/* A field's value for the run (step < 0) or one of its steps: FALSE
 * when the run has none (a derived field its balancer does not declare);
 * *value is then 0. */
gboolean lb_summary_get(const LbSummaryField *f, const LbRunResult *r, int step, double *value);
/* Sets a stored field's value (a result read back). */
void lb_summary_set(const LbSummaryField *f, LbRunResult *r, int step, double value);
