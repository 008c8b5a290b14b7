/* lbsim's results read back into the typed results they were written
 * from: the user's document of a run or a sweep (lbsim run --json, lbsim
 * sweep -o) for the report page (a child's transport, for the runner and
 * lbsim merge, is runner/transport.h's). Nothing else parses a document. Both readers trust
 * nothing: every member is checked for its type and range, and every count
 * against what it counts, before anything is allocated from it. */
#pragma once

#include <glib.h>

#include "lbsim/run.h"

#define LB_RESULTS_ERROR (lb_results_error_quark())
GQuark lb_results_error_quark(void);

typedef enum {
  LB_RESULTS_ERROR_INPUT, /* not a result lbsim wrote, or not of this lbsim's balancers */
} LbResultsError;

/* A key a sweep varies and its values, as written (canonical text). */
typedef struct {
  char *name;        /* ranks, platform, seed, steps, balancer or GROUP.KEY */
  GPtrArray *values; /* char *, in the sweep's order, NULL-terminated */
} LbSweepAxis;

LbSweepAxis *lb_sweep_axis_new(const char *name);
void lb_sweep_axis_free(LbSweepAxis *axis);

/* One run of a sweep's document. */
typedef struct {
  char **point;   /* its value of each axis, in the axes' order */
  char *balancer; /* its label */
  LbRunResult *result;
} LbSweepResult;

/* A run's or a sweep's document. */
typedef struct {
  const char *kind; /* "run" or "sweep" */
  char *version;    /* of the lbsim that wrote it */
  char *name;       /* the scenario's */
  GPtrArray *runs;  /* LbRunResult: a run's, in scenario order, or every sweep result */
  /* a run's document */
  char *scenario_file, *model, *platform, *background; /* NULL when absent */
  char *background_traffic;                            /* likewise */
  char *seed, *steps, *elements, *hosts;               /* as written, NULL when absent */
  guint ranks;
  /* a sweep's document */
  char *sweep_scenario;
  GPtrArray *axes;    /* LbSweepAxis */
  guint runs_total;   /* 0 when not said */
  gint replicates;    /* the axis whose values are replicates, or -1 */
  GPtrArray *results; /* LbSweepResult, in the document's order */
} LbResults;

/* The document in json (length bytes; source names it in messages). A
 * run's results are filled as the run made them, but for the detail a
 * document may hold besides (schedule, partition, grids, events), which
 * nothing that reads a document needs: those members are left unread. A
 * run of a balancer this lbsim lacks is an error. */
LbResults *lb_results_read(const char *json, gsize length, const char *source, GError **error);
void lb_results_free(LbResults *results);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LbResults, lb_results_free)
