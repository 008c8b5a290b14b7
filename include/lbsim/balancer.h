/* The balancer interface: one entry signature, one registry table. */
#pragma once

#include <glib.h>
#include "lbsim/metric.h"
#include "lbsim/params.h"
#include "lbsim/rank.h"

G_BEGIN_DECLS

struct _LbRunResult;

/* What `lbsim explain` gives a balancer's explain hook. */
typedef struct {
  guint ranks;
  const LbParams *params;
  const guint64 *initial_loads; /* per rank, before the first balancing */
  const LbWork *work;           /* the case's model (updating it to a step rebuilds that step) */
  guint nadaptations;
} LbExplainCase;

/* A block of a balancer's tree of ranks (MLB's sub-hypercubes): ranks
 * [first, first + size) at a level (0: the root), their load before the
 * first balancing and the load they should hold. */
typedef struct {
  guint level, first, size;
  guint64 load, desired;
} LbExplainBlock;

typedef struct {
  const char *name;
  const char *summary;
  const char *cite; /* the paper behind it: authors, title, venue, year */
  const LbParamSpec *params;
  const char *const *phases;   /* NULL-terminated; may be empty */
  const LbMetricSpec *metrics; /* declared metrics, NULL-terminated; may be NULL */
  guint needs;                 /* what it needs of a model: LbCapability bits */
  gboolean keeps_order;        /* result: contiguous pieces of the model's order, in rank order */
  gboolean owns_compute;       /* it runs the units' compute itself (loop scheduling) */
  gboolean sets_neighbours;    /* every rank, every step: lb_rank_set_neighbours (no owner map) */
  LbStart start;               /* where units start when it keeps no order (default: native) */
  /* `run = NAME:VARIANT` runs the balancer again under another label: its
   * parameters are [NAME]'s, then this key set to VARIANT when VARIANT is
   * one of its values (dls:fac), then [NAME:VARIANT]'s. NULL: a variant
   * needs its group. */
  const char *variant_key;
  /* Checks what the parameters cannot check alone (e.g. p = 2^d, a
   * processor grid of powers of two); work is the scenario's model. */
  gboolean (*check)(guint ranks, const LbWork *work, const LbParams *params, GError **error);
  /* Per-rank state that lives across adaptation steps: made before the
   * first step, freed after the last. Both may be NULL. */
  gpointer (*state_new)(LbRank *self);
  void (*state_free)(gpointer state);
  /* Called on every rank at every adaptation step. */
  void (*balance)(LbRank *self, gpointer state);
  /* Where units start when the balancer makes its own initial mapping
   * (the input's decomposition, before the first step: no messages), or
   * NULL for `start`. Called for every rank in turn, before the run. */
  void (*initial_units)(const LbWork *work, const LbParams *params, guint ranks, guint rank,
                        GArray *units);
  char *(*describe_start)(const LbWork *work, const LbParams *params);
  /* The position of a unit in the order the balancer keeps (a curve's
   * order), or NULL. With it, every step checks the range property: each
   * rank's units are one run of that order, the runs in rank order. */
  guint64 (*order_key)(const LbWork *work, const LbParams *params, guint64 id);
  /* order_key of n units at once, or NULL: a balancer whose key needs its
   * parameters reads them once here, not once a unit (every step checks
   * every unit). */
  void (*order_keys)(const LbWork *work, const LbParams *params, const LbUnit *units, gsize n,
                     guint64 *keys);
  /* Whether, under these parameters, the order it keeps may break (a
   * paper's rule read literally), or NULL: never. Then a step does not
   * fail on its order; it records the units out of order (the fewest that
   * must move for the ranks' runs to be contiguous and in rank order) in
   * the balancer's declared metric "order-breaks". */
  gboolean (*breaks_order)(const LbParams *params);
  /* The application's communication, when the family defines its own (the
   * SFC family's collection of remote data), in place of the ghost
   * exchange: runs on every rank after balancing, before the compute, and
   * is timed and counted as the ghost exchange. It may compute part of the
   * rank's work between its exchanges (lb_app_compute), which counts as
   * computation. NULL: the ghost exchange. */
  void (*collect)(LbRank *self, gpointer state);
  /* Once every run of a scenario is done: fills the metrics of result that
   * compare it with the others (all[n], result among them), or NULL. */
  void (*relate)(struct _LbRunResult *result, struct _LbRunResult *const *all, guint n);
  /* The space-filling curve whose order it keeps ("hilbert", "morton"),
   * for pictures of its partition; NULL: Hilbert's. */
  const char *(*curve)(const LbParams *params);
  /* Family-specific teaching output for `lbsim explain`, or NULL. */
  void (*explain)(const LbExplainCase *c, GString *out);
  /* The tree of blocks it balances by (LbExplainBlock, root first), for
   * the text and the page of `lbsim explain`, or NULL. */
  void (*explain_blocks)(const LbExplainCase *c, GArray *blocks);
} LbBalancer;

const LbBalancer *lb_balancer_lookup(const char *name);
/* NULL-terminated, in registry order. */
const LbBalancer *const *lb_balancers(void);
struct _LbModel;
/* Whether the model offers all the balancer needs. */
gboolean lb_balancer_supports(const LbBalancer *balancer, const struct _LbModel *model);
/* Why a balancer cannot run on a model (the model does not offer what it
 * needs), or NULL when it can. */
char *lb_balancer_refuses_model(const LbBalancer *balancer, const struct _LbModel *model);
/* The registered models it runs on, "array1d, field2d, field3d". */
char *lb_balancer_models_text(const LbBalancer *balancer);
/* Adds a balancer to the registry (for tests and programs that link lbsim's
 * library with balancers of their own); its name must be new. */
void lb_balancer_register(const LbBalancer *balancer);

/* Every metric of a balancer's runs, in report order: its declared ones,
 * four per phase (steps, messages, bytes, time), then the application's
 * (compute-time, ghost-time, ghost-messages, ghost-bytes). */
GArray *lb_balancer_metric_defs(const LbBalancer *balancer);
/* The index of a metric in those defs ('-' and '_' alike), or -1. */
int lb_metric_defs_find(GArray *defs, const char *name);

G_END_DECLS
