/* lbsim diff: two results of one scenario compared value by value (runs,
 * checks and sweeps point by point and balancer by balancer; reproductions
 * claim by claim), each difference held to a tolerance. */
#pragma once

#include <glib.h>

#include "report/results.h"

#define LB_DIFF_ERROR (lb_diff_error_quark())
GQuark lb_diff_error_quark(void);

typedef enum {
  LB_DIFF_ERROR_INPUT, /* a bad tolerance, or two results that cannot be compared */
} LbDiffError;

/* How far a value may move: `metric` NULL for every value; relative (a
 * fraction of A's value) or absolute. */
typedef struct {
  char *metric;
  gboolean relative;
  double amount;
} LbTolerance;

/* "1%", "0.5", "messages=0", "total_time=2%" ('-' and '_' alike in the
 * metric's name). */
LbTolerance *lb_tolerance_parse(const char *text, GError **error);
void lb_tolerance_free(LbTolerance *t);

typedef struct {
  const GPtrArray *tolerances; /* LbTolerance: a metric's own wins over the general one */
  const char *const *only;     /* the metrics compared, or NULL for all */
} LbDiffOptions;

/* One value of the two results that is not the same. */
typedef struct {
  char *where;    /* "mlb", "ranks=16 mlb", a claim's id */
  char *metric;   /* "total_time", "schedule_steps", "phase.amounts.messages", "lbsim" */
  double a, b;    /* NAN where the value is absent from that result (or null in it) */
  char only;      /* 'A' or 'B': the value is in that result only; 0: in both */
  gboolean moved; /* beyond its tolerance, or present in one result only */
} LbDiffRow;

void lb_diff_row_free(LbDiffRow *row);

/* The values of two lbsim documents (JSON texts) that differ, as
 * LbDiffRow; *compared counts the values held side by side. NULL with an
 * error when they are not two results of one scenario (or reproductions
 * of one paper) lbsim can compare. */
GPtrArray *lb_diff_documents(const char *a, gsize a_length, const char *a_name, const char *b,
                             gsize b_length, const char *b_name, const LbDiffOptions *options,
                             guint *compared, GError **error);

/* The table of rows for a terminal, with the tally. */
char *lb_diff_table(const GPtrArray *rows, guint compared);

/* The rows as JSON. */
char *lb_diff_json(const GPtrArray *rows, guint compared, const char *a_name, const char *b_name);
