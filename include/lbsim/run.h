/* One simulation: one scenario, one balancer, one SimGrid engine. */
#pragma once

#include <glib.h>
#include "lbsim/metric.h"
#include "lbsim/scenario.h"

G_BEGIN_DECLS

#define LB_RUN_ERROR (lb_run_error_quark())
GQuark lb_run_error_quark(void);

typedef enum {
  LB_RUN_ERROR_INPUT,     /* the scenario cannot run on this platform */
  LB_RUN_ERROR_INVARIANT, /* a unit was lost or duplicated, order broken */
  LB_RUN_ERROR_AT_END,    /* the caller's hook at the end of the run failed */
} LbRunError;

/* A piece of work a balancer that owns the compute ran (a chunk of
 * loop iterations): who ran it, whose data it was (another rank's: it
 * migrated), when, in simulated seconds. */
typedef struct {
  guint adaptation;
  guint rank, owner;
  guint64 first, count, load; /* iterations [first, first + count), their summed load */
  double began, ended;
} LbChunk;

/* What a run leaves once its last step is balanced, for the caller's hook
 * (the pictures of the final partition): read-only, valid during the
 * call. */
typedef struct {
  const LbScenario *scenario;
  const LbBalancerRun *brun;
  const LbWork *work; /* the units' model: the run's view of the workload, if any */
  guint ranks, nadaptations;
  double imbalance_before, imbalance_after; /* of the last step */
  const guint64 *rank_load;                 /* per rank, after the last balancing */
  const guint64 *rank_load_before;          /* per rank, as the last balancing found them */
  const guint32 *owner;                     /* per cell id, for models of cells; else NULL */
  const GArray *const *units;               /* per rank, its LbUnit after the last balancing */
  /* with keep_before: per rank, its units as the last balancing found
   * them (models of trees), and the grids (models of grids); else NULL */
  const GArray *const *units_before;
  const GArray *grids_before;
  const GArray *chunks; /* with keep_chunks: LbChunk, in the order computed; else NULL */
} LbRunEnd;

/* A hook at the end of a run: its error becomes the run's
 * (LB_RUN_ERROR_AT_END, its message kept). */
typedef gboolean (*LbRunEndFunc)(const LbRunEnd *end, gpointer data, GError **error);

typedef struct {
  gboolean detail;           /* keep the schedule's transfers */
  gboolean narrate;          /* keep balancer narration (lbsim explain) */
  const char *message_trace; /* file for the message pattern, or NULL */
  const char *paje_trace;    /* SimGrid Paje trace file, or NULL */
  gboolean paje_links;       /* and the links' bandwidth in use in it */
  LbRunEndFunc at_end;       /* called once the run's last step is balanced, or NULL */
  gpointer at_end_data;
  gboolean keep_before; /* keep the last step's units and grids before balancing */
  gboolean keep_chunks; /* keep the chunks a balancer that owns the compute ran (LbChunk) */
  /* called once the platform and the ranks' hosts are checked, before
   * any rank starts, or NULL */
  void (*at_start)(gpointer data);
  gpointer at_start_data;
  const char *const *cfg; /* extra --cfg=... for SimGrid */
  const char *const *log; /* extra --log=... (XBT categories lb, lb_core, lb_mlb) */
  gboolean verbose;       /* SimGrid and balancer logs on stderr */
  gboolean progress;      /* adaptation steps on stderr */
  const char *stage_file; /* where the stage reached is written, or NULL:
                             SimGrid aborts the process on a bad setting or
                             platform; its messages until the simulation
                             starts go to STAGE_FILE.log */
} LbRunOptions;

typedef struct {
  const char *name;
  guint rounds; /* communication rounds */
  guint64 messages;
  double bytes;
  double time;
} LbPhaseResult;

/* A run of consecutive ids moved in one communication round: a transfer
 * of a set of units is one or more of these. */
typedef struct {
  guint adaptation;
  guint round;
  guint src, dst;
  guint64 first, count, load;
  int phase;   /* the balancer's phase it was sent in, -1: none */
  guint stage; /* lb_narrate_stage's when it was sent */
  guint step;  /* the sender's step of its phase then (lb_narrate_step) */
  double time; /* simulated seconds, when it was sent */
} LbTransfer;

/* Where a line of narration belongs (lbsim explain): the step of a stage's
 * phase the rank was in when it said it, and when. The narration's line of
 * the same index is what it said. */
typedef struct {
  guint adaptation, stage, step, rank;
  int phase;
  double time;
} LbNote;

/* A message a balancer sent, kept with narration: in which step of which
 * phase, between whom, its bytes, the units it carried (count and summed
 * load), what the sender's own units gained in load as it sent
 * (lb_narrate_resize's) and what it carries in words (lb_narrate_label's,
 * or NULL). */
typedef struct {
  guint adaptation, stage, step;
  int phase;
  guint src, dst;
  double bytes, time;
  guint64 units, load;
  gint64 resized; /* what the units the sender keeps gained when it sent (a split's ghosts) */
  char *label;
} LbSent;

/* Where a rank ran, kept with narrate (explain's page draws the machine
 * from it): its host's number (the one in its name), the host's speed in
 * flop/s, and its edge switch (the platform's lbsim-switch-nodes, else the
 * ranks whose routes have the fewest links between them, grouped). */
typedef struct {
  guint host;
  double speed;
  guint group;
} LbRankHost;

/* The machine the ranks ran on, with narrate: its lbsim-topology property
 * ("hypercube", "torus", "fat-tree", "cluster"; NULL: none), a torus's
 * sizes (lbsim-torus-dims, first fastest: host x + X y + X Y z), and
 * every rank's host (ranks entries). */
typedef struct {
  char *topology;
  guint ndims;
  guint dims[4];
  LbRankHost *ranks;
} LbMachine;

/* A rank's part of the final partition: the bounding box of its cells
 * (half-open, per axis), its load, and the ranks whose cells share a face
 * with its own (the application's ghost-exchange graph), ascending. */
typedef struct {
  guint64 lo[3], hi[3];
  guint64 load;
  guint nneighbours;
  guint *neighbours;
} LbRankPart;

/* The common summary of one adaptation step. */
typedef struct {
  double imbalance_before, imbalance_after;
  guint64 max_load_before, max_load_after;
  guint64 total_load;
  guint64 messages;
  double bytes;       /* all balancer messages */
  double bytes_moved; /* work units only */
  double balance_time, app_time;
} LbAdaptationResult;

typedef struct _LbRunResult {
  char *balancer;
  LbParams *params;
  char *model; /* the model of the units it balanced */
  char *view;  /* NULL, or how they came from the scenario's workload ("field2d seen as htree") */
  char *start; /* the initial distribution the balancer started from */
  guint ranks, nadaptations, hosts;
  char *placement;
  /* summary (averages over adaptation steps for imbalances, sums otherwise) */
  double imbalance_before, imbalance_after;
  guint64 messages;
  double bytes, bytes_moved;
  double balance_time, app_time, total_time;
  /* declared metrics: defs (LbMetricDef, from lb_balancer_metric_defs), the
   * run's values and steps x defs per-step values */
  GArray *metric_defs;
  double *metrics;
  double *adaptation_metrics;
  guint nphases;
  LbPhaseResult *phases;
  guint64 *final_loads;
  GArray *transfers;     /* LbTransfer, with detail */
  guint dim;             /* of the model's cells */
  LbRankPart *partition; /* ranks entries, with detail; NULL otherwise */
  GArray *grids;         /* LbGridPart, with detail, for models of grids */
  GArray *events;        /* LbEvent, with detail, for balancers that record them */
  LbAdaptationResult *adaptations;
  GPtrArray *narration; /* strings, with narrate */
  /* with narrate: where each line of the narration belongs (LbNote, one
   * per line, in the same order), the balancer's messages (LbSent, in the
   * order sent), the chunks of a balancer that owns the compute (LbChunk),
   * and what every rank held at the start of every step (steps x ranks) */
  GArray *notes;
  GArray *sent;
  GArray *chunks;
  guint64 *loads_at_start;
  /* with narrate, for models of trees: what every rank held at the start
   * of every step (steps x ranks, each a GArray of LbUnit) */
  GPtrArray *units_at_start;
  GPtrArray *stages; /* the stages' names (lb_narrate_stage), NULL: one stage */
  LbMachine machine; /* with narrate; its ranks NULL otherwise */
  /* wall-clock figures: the only part that differs between identical runs */
  double wall_seconds, sim_wall_seconds;
  guint64 peak_rss_kib;
  guint64 simulated_messages; /* every message, core synchronisation included */
} LbRunResult;

/* A declared metric's value for the run, or for one step; FALSE if the run
 * has no such metric. */
gboolean lb_run_result_metric(const LbRunResult *result, const char *name, double *value);
/* A summary field or declared metric by name ('-' and '_' alike); FALSE
 * when the run has neither, or the field does not apply to it (a derived
 * one such as schedule_steps that its balancer does not declare). */
gboolean lb_run_result_lookup(const LbRunResult *result, const char *name, double *value);
/* Names of the common summary fields [expect] may use. */
const char *const *lb_summary_fields(void);

void lb_run_result_free(LbRunResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LbRunResult, lb_run_result_free)

/* Runs scenario->runs[index]. Initialises SimGrid: call once per process. */
LbRunResult *lb_run_simulate(const LbScenario *scenario, guint index, const LbRunOptions *options,
                             GError **error);

G_END_DECLS
