/* Work models: what the units are, how they start, how their loads change,
 * what they cost to move and compute, what a balancing step must conserve,
 * and who exchanges ghost data with whom. One registry row per model. */
#pragma once

#include <glib.h>
#include "lbsim/params.h"
#include "lbsim/workload.h"

G_BEGIN_DECLS

typedef struct _LbModel LbModel;

/* A named set of values for a model's [workload] keys (`preset = NAME`):
 * each applies where the scenario does not give the key itself. keys:
 * key, value, key, value, ..., NULL. */
typedef struct {
  const char *name;
  const char *summary;
  const char *const *keys;
} LbPreset;

/* What a balancing step must conserve, summed over units. A model whose
 * units split or merge counts what they are made of (cells), not units. */
typedef struct {
  guint64 count, load, checksum;
} LbConserved;

/* How a rank's units start. */
typedef enum {
  LB_START_NATIVE, /* the model's own distribution (array1d's blocks, a field's processor grid) */
  LB_START_ORDER,  /* contiguous pieces of the model's total order (order-keeping balancers) */
  LB_START_BLOCKS_LAST_FASTEST, /* a field's processor grid, ranks numbered with the last axis
                                 * fastest (so that a slab is a run of consecutive ranks) */
} LbStart;

/* What a balancer needs of a model and a model offers: a balancer runs on
 * every model that offers all it needs, so a new model that offers what a
 * family needs runs that family without a change to it. */
typedef enum {
  LB_CAP_CELLS = 1 << 0,      /* units are the cells of a regular grid, one unit a cell */
  LB_CAP_ORDER = 1 << 1,      /* the units have a total order that balancers may keep */
  LB_CAP_BOXES = 1 << 2,      /* the cells form a 2D or 3D grid that boxes of ranks can cut */
  LB_CAP_GRIDS = 1 << 3,      /* units are the grids of a hierarchy of refinement levels */
  LB_CAP_TREE = 1 << 4,       /* units are the hnodes of an H-tree */
  LB_CAP_ITERATIONS = 1 << 5, /* units are the independent iterations of a loop */
} LbCapability;

/* "cells in an order" and the like: what caps names, for messages. */
char *lb_capabilities_describe(guint caps);

/* A grid of a model whose units are grids, as --detail lists it. */
typedef struct {
  guint owner, level;
  gint64 lo[3], hi[3]; /* half-open, in its level's cells; unused axes [0, 1) */
  guint64 load;
  guint64 scale; /* cells of its level per root cell along an axis (pictures) */
} LbGridPart;

/* A leaf of a tree model's tree: its unit id, and its square (2D) or cube
 * of side 2^-level at coords x 2^-level in [0,1)^dim. */
typedef struct {
  guint64 id;
  guint level;
  guint32 coords[3];
} LbLeaf;

/* Cell faces two half-open boxes of dim axes share: 0 unless they touch
 * along one axis and overlap along the others (the ghost exchange's
 * measure between two rectangular pieces). */
guint64 lb_boxes_shared_faces(const gint64 *alo, const gint64 *ahi, const gint64 *blo,
                              const gint64 *bhi, guint dim);

/* One message of the application's step between adaptations: to a rank,
 * its bytes. */
typedef struct {
  guint rank;
  double bytes;
} LbAppMessage;

/* The application's step of a model that knows its communication whole (a
 * grid hierarchy's boundary exchange, grid by grid): the messages a rank
 * sends, ascending by rank, how many it receives, the bytes it copies
 * between its own units, and the flops it computes beyond its units'
 * loads (a cost per unit). */
typedef struct {
  GArray *messages; /* LbAppMessage */
  guint receives;
  double copy_bytes, copy_bandwidth;
  double flops;
} LbAppStep;

/* What happened to a unit in a balancing step, as --detail lists it. */
typedef enum {
  LB_EVENT_MOVE,  /* unit went whole from `from` to `to` */
  LB_EVENT_SPLIT, /* a piece of unit (the new unit `piece`) went to `to` */
} LbEventKind;

typedef struct {
  guint adaptation;
  LbEventKind kind;
  guint64 unit, piece;
  guint from, to;
  guint64 load;
} LbEvent;

/* An instantiated model: the [workload] group read and checked. */
typedef struct {
  const LbModel *model;
  LbParams *params;
  guint64 seed;
  guint ranks;
  guint steps; /* adaptation steps the scenario runs */
  /* bytes the model and its units may need at most, estimated (and checked
   * against lb_machine_memory) before anything large is built */
  double memory;
  LbPattern pattern;
  guint dim;
  guint64 size[LB_MAX_DIM];  /* cells per axis, first axis fastest in the linear order */
  guint64 procs[LB_MAX_DIM]; /* native processor grid (fields) */
  guint64 cells;             /* product of size */
  double bytes_per_unit, flops_per_unit;
  guint ghost_depth;
  gpointer data; /* the model's own */
  /* the pattern at the last step asked for: a pure function of (pattern,
   * step), made once per step rather than once per rank */
  LbPatternAt *pattern_at;
  guint pattern_at_adaptation;
} LbWork;

struct _LbModel {
  const char *name;
  const char *summary;
  /* [workload] keys besides `model` (the pattern keys are added to every
   * model whose `patterns` is TRUE); NULL-terminated. */
  const LbParamSpec *params;
  /* Its presets, ending with a NULL name, or NULL; a model with presets
   * has a `preset` key (a choice of their names) among its params. */
  const LbPreset *presets;
  gboolean patterns;
  /* What it offers balancers (LbCapability bits). */
  guint offers;
  /* Name of the total order order-keeping balancers respect, or NULL
   * (LB_CAP_ORDER offered with it). */
  const char *order;
  /* Fills work from params; errors name file, group and key. dir is the
   * scenario's folder, for relative paths. */
  gboolean (*load)(LbWork *work, const char *file, const char *dir, GError **error);
  void (*free_data)(gpointer data);
  /* Units rank r holds before the first step (loads are set by update). */
  void (*initial_units)(const LbWork *work, guint rank, LbStart start, GArray *units);
  /* Describes the initial distribution for reports ("blocks 4x4"). */
  char *(*describe_start)(const LbWork *work, LbStart start);
  /* Sets the loads of rank's units for an adaptation step; may create or
   * remove units. NULL: loads from the pattern at each unit's cell. */
  void (*update)(const LbWork *work, guint rank, GArray *units, guint adaptation);
  /* Units of the whole model, for reports; NULL: cells. */
  guint64 (*total_units)(const LbWork *work);
  /* Adds what a set of units conserves; NULL: one unit, its load, its id. */
  void (*conserve)(const LbWork *work, const LbUnit *units, gsize n, LbConserved *into);
  /* Neighbours for the ghost exchange: for every unit of `units` owned by
   * `me`, adds to counts[q] the faces it shares with units of rank q, given
   * the owner of every id, and appends q to `touched` (guint) when counts[q]
   * leaves 0. NULL: no ghost exchange. */
  void (*boundary)(const LbWork *work, const guint32 *owner, guint me, const LbUnit *units, gsize n,
                   guint64 *counts, GArray *touched);
  /* Or the ghost exchange's neighbours from the model's own knowledge of
   * who holds what (a grid hierarchy): appends LbNeighbour (rank, faces)
   * in ascending rank order. NULL: boundary, if any. */
  void (*neighbours)(const LbWork *work, guint me, const LbUnit *units, gsize n, GArray *out);
  /* Or the whole application step of rank `me` (fills step->messages, its
   * copies and extra flops; returns FALSE to use neighbours instead, as a
   * model's option may ask). Called once the balancing step is over on
   * every rank. NULL: neighbours, if any. */
  gboolean (*app_step)(const LbWork *work, guint me, const LbUnit *units, gsize n, LbAppStep *step);
  /* The grids after the run, for --detail (models of grids); may be NULL. */
  void (*grids)(const LbWork *work, GArray *out);
  /* The leaves of the tree the last update built, in any order, for the
   * pictures of a curve through them (models of trees); may be NULL. */
  void (*leaves)(const LbWork *work, GArray *out);
  /* Simulated bytes of moving units; NULL: bytes-per-unit each. */
  double (*bytes)(const LbWork *work, const LbUnit *units, gsize n);
};

const LbModel *lb_model_lookup(const char *name);
/* A model's preset of that name, or NULL. */
const LbPreset *lb_model_preset(const LbModel *model, const char *name);
/* NULL-terminated, in registry order. */
const LbModel *const *lb_models(void);
/* Adds a model to the registry (tests, programs that link lbsim's library
 * with models of their own) before any scenario is read; its name must be
 * new. Balancers run on it by what it offers. */
void lb_model_register(const LbModel *model);
/* Every [workload] key of a model: `model`, its own keys and the pattern
 * keys, as one table (built once). */
const LbParamSpec *lb_model_param_spec(const LbModel *model);

/* Reads [workload] values (already parsed against lb_model_param_spec)
 * into a new work instance for a run of `steps` adaptation steps. A work
 * that would not fit in lb_machine_memory() is an input error. */
LbWork *lb_work_new(const LbModel *model, LbParams *params, guint64 seed, guint ranks, guint steps,
                    const char *file, const char *dir, GError **error);
void lb_work_free(LbWork *work);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LbWork, lb_work_free)

/* The bytes lbsim may use: the machine's physical memory, or less where
 * a limit (ulimit -v or -d, a memory cgroup) says so; 0 if unknown. */
double lb_machine_memory(void);
/* bytes in GiB for a message: "61.2 GiB", or "1.24e+18 GiB" past 10^4. */
char *lb_gib_text(double bytes);
/* What the core keeps of a unit: held once (16 bytes), copied once while
 * it moves, and an owner slot for the ghost exchange. */
#define LB_UNIT_BYTES 40.0
/* What a balancer run keeps per adaptation step (its step results, phase
 * totals and metrics), rounded up. */
#define LB_STEP_BYTES 1024.0

void lb_work_initial_units(const LbWork *work, guint rank, LbStart start, GArray *units);
char *lb_work_describe_start(const LbWork *work, LbStart start);
void lb_work_update(const LbWork *work, guint rank, GArray *units, guint adaptation);
guint64 lb_work_total_units(const LbWork *work);
void lb_work_conserve(const LbWork *work, const LbUnit *units, gsize n, LbConserved *into);
/* Whether lb_work_conserve is the default, unit by unit with
 * lb_conserve_unit (a pass over the units may then do it on the way). */
gboolean lb_work_conserves_units(const LbWork *work);
/* The default of what a unit conserves: itself, its load, its id. */
static inline void
lb_conserve_unit(LbConserved *into, const LbUnit *unit)
{
  into->count++;
  into->load += unit->load;
  into->checksum += lb_hash64(unit->id);
}
/* Simulated bytes of moving units, and flops of computing them. */
double lb_work_bytes(const LbWork *work, const LbUnit *units, gsize n);
double lb_work_flops(const LbWork *work, guint64 load);
/* The loop model's cost of every iteration at an adaptation step, in
 * iteration order (what each rank holds when a loop's data is
 * replicated); NULL for other models. */
const guint64 *lb_loop_costs(const LbWork *work, guint adaptation);
gboolean lb_work_has_ghosts(const LbWork *work);

/* A view of a field as another model's workload, for balancers that do
 * not run on fields, so that every family can be compared on one
 * workload: the same domain, pattern keys and seed, as the units of the
 * balancer's model (src/workloads/adapt.c). */
typedef struct {
  const char *to;    /* the model the field is seen as */
  const char *group; /* the scenario's group of the view's own keys, "as-samr" */
  const char *keeps; /* what the view keeps of the workload, for help and README */
} LbAdapter;

/* The view that gives a balancer what it needs (LbCapability bits) on a
 * workload of model `from`, or NULL. */
const LbAdapter *lb_adapter_for(const LbModel *from, guint needs);
const LbAdapter *lb_adapter_by_group(const char *group);
/* Every view; returns their number. */
guint lb_adapters(const LbAdapter **out);
/* The view of a field: params (the target model's, holding the view
 * group's keys; taken) completed with what the view takes from the field.
 * Errors name the view's group. */
LbWork *lb_adapter_build(const LbAdapter *adapter, const LbWork *field, LbParams *params,
                         const char *file, const char *dir, GError **error);

/* Which pattern keys apply to which patterns (for strict checking). */
gboolean lb_pattern_key_applies(const char *key, const char *pattern, gboolean *is_pattern_key);

G_END_DECLS
