/* Declared metrics: every figure beyond the common summary is declared in a
 * table by the balancer or model that produces it, and the terminal table,
 * CSV, JSON and [expect] all come from those tables. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* How a metric's per-step values make the run's value. */
typedef enum {
  LB_AGGREGATE_SUM,
  LB_AGGREGATE_MAX,
  LB_AGGREGATE_MEAN,
  LB_AGGREGATE_LAST,
} LbAggregate;

/* How the values that ranks record in one adaptation step combine. */
typedef enum {
  LB_COMBINE_SUM,
  LB_COMBINE_MAX,
} LbCombine;

/* One row of a metric table; tables end with a row whose name is NULL. */
typedef struct {
  const char *name; /* as in [expect]: "schedule-steps" */
  const char *unit; /* "steps", "messages", "bytes", "s", "ratio", "%" */
  LbAggregate aggregate;
  LbCombine combine;
  /* The number of communication rounds of this phase (a name of the
   * balancer's phase table) rather than values recorded by the ranks. */
  const char *rounds_of;
  const char *help;
  /* A value worked out at the end of each adaptation step from the step's
   * values of the table's rows before it (indexed as the table) and the
   * number of ranks, rather than recorded: a cost from a time, say. */
  double (*derive)(const double *step, guint ranks);
} LbMetricSpec;

/* A metric of a run: a declared row, or one made for a phase or for the
 * application step. */
typedef struct {
  char *name;
  char *unit;
  LbAggregate aggregate;
  LbCombine combine;
  int rounds_of; /* phase index, or -1 */
  char *help;
  char *json_name; /* name with '_' for '-' */
  double (*derive)(const double *step, guint ranks);
} LbMetricDef;

void lb_metric_def_clear(LbMetricDef *def);
const char *lb_aggregate_name(LbAggregate aggregate);

G_END_DECLS
