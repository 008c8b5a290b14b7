/* Scenario files: GLib key files, checked strictly against the parameter
 * tables of the scenario, the workload and every balancer. */
#pragma once

#include <glib.h>
#include "lbsim/balancer.h"
#include "lbsim/params.h"
#include "lbsim/model.h"

G_BEGIN_DECLS

#define LB_SCENARIO_ERROR (lb_scenario_error_quark())
GQuark lb_scenario_error_quark(void);

typedef enum {
  LB_SCENARIO_ERROR_PARSE,
  LB_SCENARIO_ERROR_UNKNOWN_GROUP,
  LB_SCENARIO_ERROR_UNKNOWN_KEY,
  LB_SCENARIO_ERROR_INVALID,
  LB_SCENARIO_ERROR_MISSING,
  LB_SCENARIO_ERROR_PLATFORM,
} LbScenarioError;

typedef enum {
  LB_PLACEMENT_AUTO,
  LB_PLACEMENT_LINEAR,
  LB_PLACEMENT_GRAY,
  LB_PLACEMENT_COST,
  LB_PLACEMENT_QUEUE,
} LbPlacement;

typedef enum {
  LB_EXPECT_LE,
  LB_EXPECT_LT,
  LB_EXPECT_GE,
  LB_EXPECT_GT,
  LB_EXPECT_EQ,
} LbExpectOp;

/* An expression of [expect] or [let] (its parser is lbsim's own). */
typedef struct _LbExpr LbExpr;

/* A name of [let] and its expression. */
typedef struct {
  char *name;
  LbExpr *expr;
  char *text; /* as written */
} LbLet;

typedef struct {
  char *balancer;
  char *metric; /* a summary field or a declared metric, with '-' or '_' */
  LbExpectOp op;
  /* compared with value, or, for a relation between runs (other_balancer
   * non-NULL), with value x other_balancer's other_metric */
  double value;
  char *other_balancer, *other_metric;
  char *text; /* as written, for messages */
  guint line; /* in the scenario file; 0 when given with --set */
  /* a formula on the right (numbers, ranks, steps, [let] names, any
   * balancer's metric, log2 ceil floor min max): NULL for a number or a
   * relation */
  LbExpr *formula;
} LbExpect;

typedef struct {
  const LbBalancer *balancer;
  LbParams *params;
  char *label; /* as `run` lists it: the name, or NAME:VARIANT */
  /* what it runs on: the scenario's workload, or a view of it for a
   * balancer of another model (adapter then non-NULL; owned by the scenario) */
  const LbWork *work;
  const LbAdapter *adapter;
} LbBalancerRun;

/* Command-line changes applied before checking. */
typedef struct {
  gint ranks;              /* 0: keep */
  const char *platform;    /* NULL: keep; relative to the working directory */
  const char *balancer;    /* NULL: run the file's list */
  const char *const *sets; /* "group.key=value", NULL-terminated */
} LbScenarioOverrides;

/* A competing load on one host, from [scenario] background: from start to
 * end (simulated seconds; end INFINITY: to the end of the run) it leaves
 * the rank on the host share of the host's speed. */
typedef struct {
  char *host;
  double share; /* in (0, 1] */
  double start, end;
  guint entry; /* the list entry it comes from, from 0 */
} LbBackground;

typedef struct {
  char *file;
  char *name;
  char *description;
  char *platform; /* resolved path */
  guint ranks;
  guint64 seed;
  /* seeds the queue's draw of nodes and the background traffic's: seed
   * unless [scenario] placement-seed is given (placement_seed_set) */
  guint64 placement_seed;
  gboolean placement_seed_set;
  guint nadaptations; /* adaptation steps */
  LbPlacement placement;
  char *background; /* [scenario] background as given, or NULL */
  GArray *loads;    /* LbBackground, one per host and entry, in the list's order */
  /* [scenario] background-traffic: other jobs' flows out of and into each
   * edge switch the run uses (0: none) */
  guint background_traffic;
  LbWork *work;
  GPtrArray *runs;    /* LbBalancerRun */
  GPtrArray *views;   /* LbWork: views of work that runs use, at most one per adapter */
  GPtrArray *expects; /* LbExpect */
  GPtrArray *lets;    /* LbLet, [let] */
  /* bytes the run may need at most: the work's and views' estimates and
   * what every balancer run keeps per step (checked at load) */
  double memory;
  /* the work's units as loaded: what the results report, whichever run
   * (in this process or a child) changed the work since */
  guint64 elements;
} LbScenario;

/* A scenario argument as a file: itself when it exists or names a folder,
 * else the shipped scenario of that name (mlb-teach-16, or
 * mlb-teach-16.ini, in the data directory's scenarios/), else itself. */
char *lb_scenario_find(const char *name);
/* A scenario file's [scenario] description, read as lb_scenario_load reads
 * the file but checked no further; NULL if it has none or does not parse. */
char *lb_scenario_description(const char *path);
LbScenario *lb_scenario_load(const char *path, const LbScenarioOverrides *overrides,
                             GError **error);
/* A scenario given as text (and the loads file it may name, loads.txt
 * beside it, when loads is not NULL), loaded from a temporary folder that
 * is gone on return; errors name it `name` instead of the temporary file
 * (NULL: they keep that path). */
LbScenario *lb_scenario_load_text(const char *text, const char *loads, const char *name,
                                  const LbScenarioOverrides *overrides, GError **error);
void lb_scenario_free(LbScenario *scenario);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LbScenario, lb_scenario_free)

/* The table behind [scenario], for help and README ([workload]'s are the
 * models', lb_model_param_spec). */
const LbParamSpec *lb_scenario_params(void);

/* Where a balancer starts from on the scenario's model. */
LbStart lb_scenario_start(const LbScenario *scenario, const LbBalancer *balancer);
/* The units rank `rank` starts a run with (units emptied first): the
 * balancer's own initial mapping, or the model's in the run's start. */
void lb_scenario_initial_units(const LbScenario *scenario, const LbBalancerRun *brun, guint rank,
                               GArray *units);

/* The balancer a run label (NAME or NAME:VARIANT) names, or NULL. */
const LbBalancer *lb_balancer_of_label(const char *label);

/* Where platform files are looked for after the scenario's own folder. */
const char *lb_platform_dir(void);

/* [scenario] background, "HOSTS:SHARE[@START-END], ...": one LbBackground
 * per host of each entry (HOSTS a name or a range nA-nB), or NULL with an
 * error (LB_SCENARIO_ERROR_INVALID) that names the entry. Empty text: no
 * load. */
GArray *lb_background_parse(const char *text, GError **error);

/* A line of [expect] as its key and value: "mlb.schedule-steps" and
 * "<= 10" (a bound), or a relation between two runs of the scenario,
 * "move-split.total-time" and "< enzo-original.total-time" or
 * "<= 0.8 * enzo-original.imbalance-ratio". */
gboolean lb_expect_parse(const char *key, const char *value, LbExpect **out, GError **error);
void lb_expect_free(LbExpect *expect);
const char *lb_expect_op_text(LbExpectOp op);
/* Whether actual compares as the line says with bound: expect->value, or
 * value x the other run's metric for a relation. */
gboolean lb_expect_holds(const LbExpect *expect, double actual, double bound);

G_END_DECLS
