/* ENZO's dynamic load balancers for structured AMR, as Z. Lan, V. E. Taylor
 * and G. Bryan describe them ("A novel dynamic load balancing scheme for
 * parallel systems", J. Parallel Distrib. Comput. 62, 2002): the original
 * scheme (Fig. 3) and move+split (Fig. 8), run as section 4 and Fig. 10
 * have it. Every adaptation step:
 *   gather  the global grid information ("fake grids": a grid's id, level
 *           and box, 32 bytes) is replicated: every rank allgathers its
 *           own grids' and builds the same table;
 *   decide  every rank runs the scheme on that table and reaches the same
 *           moves and splits (decide-flops per grid scanned);
 *   move    as Fig. 10 has it (transfers = parallel): every decision is a
 *           transfer of its own, in the order decided; a rank takes part
 *           in one at a time, so a transfer waits for the earlier ones of
 *           its two ranks (processor 3 waits for processor 0, still
 *           sending to 5) and transfers that share no rank overlap. Or
 *           lbsim's shortcut (transfers = merged): every grid or piece
 *           that changed hands goes once, straight from the rank that
 *           held its data to the rank that holds it after all the
 *           decisions, one message per pair of ranks, all at once. */
#include <math.h>
#include <string.h>
#include <xbt/log.h>

#include "balancers/registry.h"
#include "balancers/samr/samr-plan.h"
#include "lbsim/model.h"

XBT_LOG_EXTERNAL_CATEGORY(lb);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(lb_samr, lb, "ENZO's SAMR balancers");

enum { PHASE_GATHER, PHASE_DECIDE, PHASE_MOVE };

static const char *const samr_phases[] = {"gather", "decide", "move", NULL};

enum {
  METRIC_IMBALANCE_RATIO,
  METRIC_AVG_STD,
  METRIC_IDLE_PROCS,
  METRIC_LEVEL_IMBALANCE_RATIO,
  METRIC_LEVEL_AVG_STD,
  METRIC_GRIDS_MOVED,
  METRIC_GRIDS_SPLIT,
  METRIC_GRIDS,
  METRIC_ATTEMPTS,
  METRIC_FINEST_LEVEL,
  METRIC_LEVEL_GRIDS, /* one a level, 0 .. SAMR_MAX_LEVELS - 1 */
};

#define LEVEL_GRIDS(l)                                                                             \
  {                                                                                                \
    "level-" #l "-grids", "grids", LB_AGGREGATE_MEAN, LB_COMBINE_MAX, NULL,                        \
        "grids of level " #l " after balancing, averaged over adaptations"                         \
  }

/* The paper's metrics (section 5.1) are on its load, "the total amount of
 * grids in bytes on a processor": every grid a rank holds. */
static const LbMetricSpec samr_metrics[] = {
    {"imbalance-ratio", "ratio", LB_AGGREGATE_MEAN, LB_COMBINE_MAX, NULL,
     "the paper's eq. 1 on its load (the bytes of all the grids a rank holds, cells with ghosts): "
     "MaxLoad / AvgLoad after balancing, averaged over adaptations"},
    {"avg-std", "ratio", LB_AGGREGATE_MEAN, LB_COMBINE_MAX, NULL,
     "the paper's eq. 2 as lbsim reads it, on its load: the standard deviation (P - 1 in the "
     "denominator) of L_i / AvgLoad after balancing, averaged over adaptations"},
    {"idle-procs", "%", LB_AGGREGATE_MEAN, LB_COMBINE_MAX, NULL,
     "the paper's eq. 3: percentage of ranks with none of the grids a balancing covered "
     "(levels), after it, averaged over adaptations (every rank holds a root tile, so no rank "
     "is ever idle on all its grids: Fig. 13's idle processors are a level's)"},
    {"level-imbalance-ratio", "ratio", LB_AGGREGATE_MEAN, LB_COMBINE_MAX, NULL,
     "eq. 1 on the grids each balancing covered (levels: with each, every rebuilt level on its "
     "own, then the mean over those levels), averaged over adaptations"},
    {"level-avg-std", "ratio", LB_AGGREGATE_MEAN, LB_COMBINE_MAX, NULL,
     "eq. 2 as lbsim reads it on the grids each balancing covered, averaged over adaptations"},
    {"grids-moved", "grids", LB_AGGREGATE_SUM, LB_COMBINE_MAX, NULL, "grids moved whole"},
    {"grids-split", "grids", LB_AGGREGATE_SUM, LB_COMBINE_MAX, NULL,
     "grids split, a piece of each moving"},
    {"grids", "grids", LB_AGGREGATE_MEAN, LB_COMBINE_MAX, NULL,
     "grids of the hierarchy after balancing"},
    {"attempts", "passes", LB_AGGREGATE_MAX, LB_COMBINE_MAX, NULL,
     "move-split: passes of Fig. 8's while loop (moving phase, then a split); the original: "
     "moves, one per pass of Fig. 3's loop"},
    {"finest-level", "level", LB_AGGREGATE_MAX, LB_COMBINE_MAX, NULL,
     "the deepest level of the hierarchy reached"},
    LEVEL_GRIDS(0),
    LEVEL_GRIDS(1),
    LEVEL_GRIDS(2),
    LEVEL_GRIDS(3),
    LEVEL_GRIDS(4),
    LEVEL_GRIDS(5),
    LEVEL_GRIDS(6),
    LEVEL_GRIDS(7),
    {NULL},
};

G_STATIC_ASSERT(SAMR_MAX_LEVELS == 8);

#define TRANSFERS_HELP                                                                             \
  "parallel: each decision its own transfer in the order decided, a rank in one at a time "        \
  "(Fig. 10); merged: lbsim's shortcut, each grid straight to its final rank, one message per "    \
  "pair of ranks, all at once"

#define LEVELS_HELP                                                                                \
  "the grids a balancing covers: each level the adaptation rebuilt on its own (ENZO balances "     \
  "the new grids level by level; a level's load is its grids' bytes), the rebuilt levels "         \
  "together, or all grids (load: cells x substeps, work per root step)"

static const LbParamSpec original_params[] = {
    {"threshold", LB_PARAM_DOUBLE, "1.5", 1, 1e9, NULL,
     "balance while MaxLoad > threshold x MinLoad (Fig. 3; 1.5 is ENZO's hard-coded value)"},
    {"decide-flops", LB_PARAM_DOUBLE, "50", 0, 1e9, NULL,
     "flops per grid the scheme scans on every rank"},
    {"transfers", LB_PARAM_CHOICE, "parallel", 0, 0, "parallel|merged", TRANSFERS_HELP},
    {"levels", LB_PARAM_CHOICE, "each", 0, 0, "each|rebuilt|all", LEVELS_HELP},
    {NULL},
};

static const LbParamSpec move_split_params[] = {
    {"threshold", LB_PARAM_DOUBLE, "1.2", 1, 1e9, NULL,
     "balance while MaxLoad > threshold x AvgLoad (Fig. 8; the paper's experiments use 1.2)"},
    {"reading", LB_PARAM_CHOICE, "prose", 0, 0, "figure|prose",
     "prose: as section 4's text says (the moving phase stops once the ratio is met; the step "
     "goes on while a pass moves load); figure: as Fig. 8 prints it (the moving loop runs its "
     "course, moving grids back and forth once the ratio holds; Done when the (MaxProc, MinProc) "
     "pair repeats)"},
    {"decide-flops", LB_PARAM_DOUBLE, "50", 0, 1e9, NULL,
     "flops per grid the scheme scans on every rank"},
    {"transfers", LB_PARAM_CHOICE, "parallel", 0, 0, "parallel|merged", TRANSFERS_HELP},
    {"levels", LB_PARAM_CHOICE, "each", 0, 0, "each|rebuilt|all", LEVELS_HELP},
    {NULL},
};

#define TAG_MOVE(action) ((int)(0x100000 + (action)))

/* A fake grid as it travels: id, level, box. */
typedef struct {
  guint32 id, level;
  gint32 lo[3], hi[3];
} FakeGrid;

/* The table the last rank built from the gathered bytes: every rank of a
 * step receives the same bytes (one block shared by all, as
 * lb_allgatherv_shared gives it), so the simulator decodes them once and
 * the other ranks take that table (their time is the decide phase's). The
 * bytes are held, so that no other block can take their address. */
static struct {
  GBytes *bytes;
  GArray *table;
} decoded;

/* gather: every rank's grids, into one table indexed by id. */
static GArray *
gather(LbRank *self)
{
  const LbWork *work = lb_rank_work(self);
  GArray *units = lb_rank_units(self);
  g_autofree FakeGrid *mine = g_new0(FakeGrid, MAX(units->len, 1));
  for (guint i = 0; i < units->len; i++) {
    guint64 id = g_array_index(units, LbUnit, i).id;
    const SamrGrid *g = lb_samr_grid(work, id); /* my own, real grid */
    mine[i].id = (guint32)id;
    mine[i].level = g->level;
    for (guint a = 0; a < 3; a++) {
      mine[i].lo[a] = (gint32)g->lo[a];
      mine[i].hi[a] = (gint32)g->hi[a];
    }
  }
  guint p = (guint)lb_rank_count(self);
  const gsize *offsets = NULL;
  lb_narrate_labels(self, "the table of grids, their boxes and levels (mine: %u)", units->len);
  g_autoptr(GBytes) all =
      lb_allgatherv_shared_offsets(self, mine, units->len * sizeof(FakeGrid), &offsets);
  gsize size = 0;
  const guint8 *data = g_bytes_get_data(all, &size);
  if (decoded.bytes != NULL && g_bytes_get_data(decoded.bytes, NULL) == (gconstpointer)data &&
      g_bytes_get_size(decoded.bytes) == size)
    return g_array_ref(decoded.table);
  guint n = (guint)(offsets[p] / sizeof(FakeGrid));
  GArray *table = g_array_sized_new(FALSE, TRUE, sizeof(SamrGrid), n);
  g_array_set_size(table, n);
  for (guint r = 0; r < p; r++)
    for (gsize o = offsets[r]; o < offsets[r + 1]; o += sizeof(FakeGrid)) {
      FakeGrid f;
      memcpy(&f, data + o, sizeof f);
      g_assert_cmpuint(f.id, <, n);
      SamrGrid *g = &g_array_index(table, SamrGrid, f.id);
      g->owner = r;
      g->level = f.level;
      for (guint a = 0; a < 3; a++) {
        g->lo[a] = f.lo[a];
        g->hi[a] = f.hi[a];
      }
    }
  g_clear_pointer(&decoded.bytes, g_bytes_unref);
  g_clear_pointer(&decoded.table, g_array_unref);
  decoded.bytes = g_bytes_ref(all);
  decoded.table = g_array_ref(table);
  return table;
}

static int
compare_units(gconstpointer a, gconstpointer b)
{
  guint64 x = ((const LbUnit *)a)->id, y = ((const LbUnit *)b)->id;
  return x < y ? -1 : x > y;
}

static int
by_owner(gconstpointer a, gconstpointer b, gpointer data)
{
  const GArray *after = data;
  guint i = *(const guint *)a, j = *(const guint *)b;
  guint x = g_array_index(after, SamrGrid, i).owner, y = g_array_index(after, SamrGrid, j).owner;
  if (x != y)
    return x < y ? -1 : 1;
  return i < j ? -1 : i > j;
}

/* move: every grid (or piece) travels once, from the rank that held its
 * data before the decisions to the rank that holds it after them: all
 * ranks know both tables, so a grid that the decisions pass along
 * (A to B, then B to C) goes straight from A to C, and a piece goes from
 * the rank that held the grid it was cut from. One message per pair of
 * ranks, sent without waiting; a rank waits only for what it receives. */
static void
carry_out(LbRank *self, const GArray *before, const GArray *after, const GArray *actions)
{
  const LbWork *work = lb_rank_work(self);
  GArray *units = lb_rank_units(self);
  guint me = (guint)lb_rank_id(self), p = (guint)lb_rank_count(self);
  guint n0 = before->len, n1 = after->len;
  /* where each grid's data is before: its own owner, or for a piece the
   * holder of the grid it was cut from */
  g_autofree guint *source = g_new(guint, n1);
  for (guint i = 0; i < n0; i++)
    source[i] = g_array_index(before, SamrGrid, i).owner;
  for (guint k = 0; k < actions->len; k++) {
    const SamrAction *a = &g_array_index(actions, SamrAction, k);
    if (a->kind == SAMR_SPLIT)
      source[a->piece] = source[a->grid];
  }
  g_autoptr(GArray) out = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  g_autofree gboolean *from = g_new0(gboolean, p);
  g_autoptr(GArray) kept = g_array_new(FALSE, FALSE, sizeof(LbUnit));
  for (guint i = 0; i < n1; i++) {
    const SamrGrid *g = &g_array_index(after, SamrGrid, i);
    if (source[i] == me) {
      lb_samr_set(work, i, g); /* the data I held, as it ends */
      LbUnit u = {i, lb_samr_work(work, g)};
      if (g->owner == me)
        g_array_append_val(kept, u);
    } else if (g->owner == me) {
      from[source[i]] = TRUE;
    }
  }
  /* what I send, by destination then id: one message per destination */
  g_autoptr(GArray) sends = g_array_new(FALSE, FALSE, sizeof(guint));
  for (guint i = 0; i < n1; i++)
    if (source[i] == me && g_array_index(after, SamrGrid, i).owner != me)
      g_array_append_val(sends, i);
  g_array_sort_with_data(sends, by_owner, (gpointer)after);
  for (guint k = 0; k < sends->len;) {
    guint q = g_array_index(after, SamrGrid, g_array_index(sends, guint, k)).owner;
    g_array_set_size(out, 0);
    for (; k < sends->len; k++) {
      guint i = g_array_index(sends, guint, k);
      const SamrGrid *g = &g_array_index(after, SamrGrid, i);
      if (g->owner != q)
        break;
      LbUnit u = {i, lb_samr_work(work, g)};
      g_array_append_val(out, u);
    }
    lb_phase_round(self, 0);
    lb_send_units(self, (int)q, TAG_MOVE(0), 0, (const LbUnit *)out->data, out->len, NULL);
  }
  g_array_set_size(units, 0);
  g_array_append_vals(units, kept->data, kept->len);
  for (guint q = 0; q < p; q++)
    if (from[q])
      lb_recv_units(self, (int)q, TAG_MOVE(0), units, NULL);
  g_array_sort(units, compare_units);
  lb_wait_sends(self);
}

/* The paper's metrics (section 5.1) of one set of grids balanced: their
 * load per rank in bytes (cells with ghosts), after balancing. */
typedef struct {
  double ratio, std, idle;
} Quality;

static Quality
quality(const SamrGeometry *geo, const GArray *grids, const guint *members, guint n, guint p)
{
  g_autofree double *bytes = g_new0(double, p);
  for (guint k = 0; k < n; k++) {
    const SamrGrid *g = &g_array_index(grids, SamrGrid, members[k]);
    bytes[g->owner] += (double)lb_samr_cells(geo, g);
  }
  double total = 0, max = 0;
  guint idle = 0;
  for (guint r = 0; r < p; r++) {
    total += bytes[r];
    max = MAX(max, bytes[r]);
    idle += bytes[r] == 0;
  }
  double avg = total / p, var = 0;
  for (guint r = 0; r < p && avg > 0; r++) {
    double d = bytes[r] / avg - 1.0;
    var += d * d;
  }
  return (Quality){avg > 0 ? max / avg : 1.0, p > 1 ? sqrt(var / (p - 1)) : 0.0, 100.0 * idle / p};
}

/* Which grids a balancing covers: each level rebuilt at this adaptation
 * on its own (ENZO balances the new grids level by level), the rebuilt
 * levels together, or every grid. */
typedef enum {
  COVER_EACH,
  COVER_REBUILT,
  COVER_ALL,
} Cover;

/* Every rank runs the scheme on the same table and reaches the same
 * decisions. The simulator works them out once per table: a rank whose
 * table, geometry and parameters equal the last rank's takes its result
 * (its time is still charged as decide-flops); any other input is decided
 * afresh. Ranks read the shared result until they finish the step, and the
 * next step's decisions come after the regridding, which waits for all. */
typedef struct {
  GArray *before, *after, *actions; /* SamrGrid, SamrGrid, SamrAction */
  GPtrArray *notes;                 /* the scheme's story, when narrating */
  /* per action: its wave (Fig. 10), its grid and a split's piece after it */
  guint *wave;
  SamrGrid *grid_after, *piece;
  Quality quality; /* the mean over the sets of grids balanced */
  Quality paper;   /* every grid: the paper's load */
  guint level_grids[SAMR_MAX_LEVELS], finest;
  SamrGeometry geo;
  guint p, attempts, from;
  double threshold;
  gboolean move_split;
  SamrReading reading;
  Cover cover;
} Decision;

static Decision last;

static gboolean
same_grids(const GArray *a, const GArray *b)
{
  if (a == b)
    return TRUE;
  if (a->len != b->len)
    return FALSE;
  for (guint i = 0; i < a->len; i++) {
    const SamrGrid *x = &g_array_index(a, SamrGrid, i), *y = &g_array_index(b, SamrGrid, i);
    if (x->owner != y->owner || x->level != y->level)
      return FALSE;
    for (guint k = 0; k < 3; k++)
      if (x->lo[k] != y->lo[k] || x->hi[k] != y->hi[k])
        return FALSE;
  }
  return TRUE;
}

/* The scheme on the grids of levels lo .. hi of last.after: they are taken
 * out as a table of their own (their loads per rank the scheme's MaxLoad,
 * MinLoad and AvgLoad), decided on, and put back; its actions, their grids
 * and pieces renumbered into last.after, are appended to last.actions. */
static void
decide_set(guint lo, guint hi)
{
  const SamrGeometry *geo = &last.geo;
  guint p = last.p;
  g_autoptr(GArray) map = g_array_new(FALSE, FALSE, sizeof(guint)); /* set index -> table */
  g_autoptr(GArray) set = g_array_new(FALSE, FALSE, sizeof(SamrGrid));
  for (guint i = 0; i < last.after->len; i++) {
    const SamrGrid *g = &g_array_index(last.after, SamrGrid, i);
    if (g->level >= lo && g->level <= hi) {
      g_array_append_val(set, *g);
      g_array_append_val(map, i);
    }
  }
  g_autofree guint64 *loads = g_new0(guint64, p);
  for (guint i = 0; i < set->len; i++) {
    const SamrGrid *g = &g_array_index(set, SamrGrid, i);
    loads[g->owner] += lb_samr_load(geo, g);
  }
  g_autoptr(GArray) actions = g_array_new(FALSE, FALSE, sizeof(SamrAction));
  g_autoptr(GPtrArray) notes = last.notes != NULL ? g_ptr_array_new_with_free_func(g_free) : NULL;
  if (last.move_split) {
    last.attempts +=
        samr_move_split(geo, set, loads, p, last.threshold, last.reading, actions, notes);
  } else {
    samr_original(geo, set, loads, p, last.threshold, actions, notes);
    last.attempts += actions->len;
  }
  for (guint k = 0; k < actions->len; k++) {
    SamrAction a = g_array_index(actions, SamrAction, k);
    a.grid = g_array_index(map, guint, a.grid);
    if (a.kind == SAMR_SPLIT) {
      guint at = last.after->len;
      g_array_append_val(last.after, g_array_index(set, SamrGrid, a.piece));
      g_array_append_val(map, at);
      a.piece = at;
    }
    g_array_append_val(last.actions, a);
  }
  for (guint i = 0; i < set->len; i++)
    g_array_index(last.after, SamrGrid, g_array_index(map, guint, i)) =
        g_array_index(set, SamrGrid, i);
  for (guint k = 0; notes != NULL && k < notes->len; k++)
    g_ptr_array_add(last.notes, lo == hi && last.cover == COVER_EACH
                                    ? g_strdup_printf("level %u: %s", lo, (char *)notes->pdata[k])
                                    : g_strdup(notes->pdata[k]));
  Quality q = quality(geo, last.after, (const guint *)map->data, map->len, p);
  last.quality.ratio += q.ratio;
  last.quality.std += q.std;
  last.quality.idle += q.idle;
}

/* Takes the gathered table (it becomes the decision's "before"); from: the
 * first level the adaptation rebuilt. */
static const Decision *
decide(const SamrGeometry *geo, GArray *table, guint p, double threshold, gboolean move_split,
       SamrReading reading, Cover cover, guint from, gboolean narrate)
{
  if (last.before != NULL && last.p == p && last.threshold == threshold &&
      last.move_split == move_split && last.reading == reading && last.cover == cover &&
      last.from == from && (last.notes != NULL || !narrate) &&
      memcmp(&last.geo, geo, sizeof *geo) == 0 && same_grids(last.before, table)) {
    g_array_unref(table);
    return &last;
  }
  g_clear_pointer(&last.before, g_array_unref);
  g_clear_pointer(&last.after, g_array_unref);
  g_clear_pointer(&last.actions, g_array_unref);
  g_clear_pointer(&last.notes, g_ptr_array_unref);
  g_clear_pointer(&last.wave, g_free);
  g_clear_pointer(&last.grid_after, g_free);
  g_clear_pointer(&last.piece, g_free);
  last.geo = *geo;
  last.p = p;
  last.threshold = threshold;
  last.move_split = move_split;
  last.reading = reading;
  last.cover = cover;
  last.from = from;
  last.attempts = 0;
  last.quality = (Quality){0, 0, 0};
  last.before = table;
  last.after = g_array_copy(table);
  last.actions = g_array_new(FALSE, FALSE, sizeof(SamrAction));
  if (narrate)
    last.notes = g_ptr_array_new_with_free_func(g_free);
  guint finest = 0;
  for (guint i = 0; i < table->len; i++)
    finest = MAX(finest, g_array_index(table, SamrGrid, i).level);
  guint sets = 0;
  if (cover == COVER_ALL || from > finest) {
    /* every grid; or nothing above the root rebuilt this time */
    decide_set(0, finest);
    sets = 1;
  } else if (cover == COVER_REBUILT) {
    decide_set(from, finest);
    sets = 1;
  } else {
    for (guint l = from; l <= finest; l++, sets++)
      decide_set(l, l);
  }
  last.quality.ratio /= sets;
  last.quality.std /= sets;
  last.quality.idle /= sets;
  g_autofree guint *every = g_new(guint, MAX(last.after->len, 1));
  memset(last.level_grids, 0, sizeof last.level_grids);
  last.finest = 0;
  for (guint i = 0; i < last.after->len; i++) {
    guint level = g_array_index(last.after, SamrGrid, i).level;
    every[i] = i;
    last.level_grids[level]++;
    last.finest = MAX(last.finest, level);
  }
  last.paper = quality(geo, last.after, every, last.after->len, p);
  guint n = last.actions->len;
  last.wave = g_new0(guint, MAX(n, 1));
  last.grid_after = g_new0(SamrGrid, MAX(n, 1));
  last.piece = g_new0(SamrGrid, MAX(n, 1));
  samr_transfer_waves(last.actions, last.wave);
  samr_replay(last.before, last.actions, last.grid_after, last.piece);
  return &last;
}

/* Fig. 10: the decisions in order, each a transfer of its own between its
 * two ranks; a rank takes part in one at a time (its sends are waited for
 * before its next transfer), so a transfer starts once both ranks are
 * done with their earlier ones. A communication round is a wave. The
 * sender sets what it sends in the model's table (its bytes are the
 * grid's as it is then); every rank sets its grids as they end. */
static void
carry_out_in_order(LbRank *self, const Decision *d)
{
  const LbWork *work = lb_rank_work(self);
  GArray *units = lb_rank_units(self);
  guint me = (guint)lb_rank_id(self);
  /* where each grid this rank holds sits in units (it takes grids from the
   * end to fill a hole, and sorts them at the end) */
  g_autoptr(GHashTable) where = g_hash_table_new(NULL, NULL);
  for (guint i = 0; i < units->len; i++)
    g_hash_table_insert(where, GSIZE_TO_POINTER(g_array_index(units, LbUnit, i).id + 1),
                        GUINT_TO_POINTER(i));
  for (guint k = 0; k < d->actions->len; k++) {
    const SamrAction *a = &g_array_index(d->actions, SamrAction, k);
    if (a->from != me && a->to != me)
      continue;
    lb_phase_round(self, d->wave[k]);
    if (a->to == me) {
      guint had = units->len;
      lb_recv_units(self, (int)a->from, TAG_MOVE(k), units, NULL);
      for (guint i = had; i < units->len; i++)
        g_hash_table_insert(where, GSIZE_TO_POINTER(g_array_index(units, LbUnit, i).id + 1),
                            GUINT_TO_POINTER(i));
      continue;
    }
    gpointer found = NULL;
    gboolean holds =
        g_hash_table_lookup_extended(where, GSIZE_TO_POINTER(a->grid + 1), NULL, &found);
    g_assert(holds); /* the decisions follow the data */
    guint at = GPOINTER_TO_UINT(found);
    LbUnit sent;
    if (a->kind == SAMR_SPLIT) {
      guint64 whole = g_array_index(units, LbUnit, at).load;
      lb_samr_set(work, a->grid, &d->grid_after[k]);
      g_array_index(units, LbUnit, at).load = lb_samr_work(work, &d->grid_after[k]);
      lb_samr_set(work, a->piece, &d->piece[k]);
      sent = (LbUnit){a->piece, lb_samr_work(work, &d->piece[k])};
      lb_narrate_resize(self, (gint64)(g_array_index(units, LbUnit, at).load + sent.load) -
                                  (gint64)whole);
      lb_narrate_label(self, "a piece of grid %u (load %" G_GUINT64_FORMAT ")", a->grid, sent.load);
    } else {
      lb_samr_set(work, a->grid, &d->grid_after[k]);
      sent = (LbUnit){a->grid, lb_samr_work(work, &d->grid_after[k])};
      lb_narrate_label(self, "grid %u (load %" G_GUINT64_FORMAT ")", a->grid, sent.load);
      g_hash_table_remove(where, GSIZE_TO_POINTER(a->grid + 1));
      g_array_remove_index_fast(units, at);
      if (at < units->len)
        g_hash_table_insert(where, GSIZE_TO_POINTER(g_array_index(units, LbUnit, at).id + 1),
                            GUINT_TO_POINTER(at));
    }
    lb_send_units(self, (int)a->to, TAG_MOVE(k), d->wave[k], &sent, 1, NULL);
    lb_wait_sends(self);
  }
  for (guint i = 0; i < units->len; i++) {
    LbUnit *u = &g_array_index(units, LbUnit, i);
    const SamrGrid *g = &g_array_index(d->after, SamrGrid, u->id);
    g_assert(g->owner == me);
    lb_samr_set(work, u->id, g);
    u->load = lb_samr_work(work, g);
  }
  g_array_sort(units, compare_units);
}

static void
balance(LbRank *self, gboolean move_split)
{
  const LbParams *params = lb_rank_params(self);
  const LbWork *work = lb_rank_work(self);
  const SamrGeometry *geo = lb_samr_geometry(work);
  guint p = (guint)lb_rank_count(self);

  lb_phase_begin(self, PHASE_GATHER);
  GArray *table = gather(self);

  lb_phase_begin(self, PHASE_DECIDE);
  double threshold = lb_params_get_double(params, "threshold");
  SamrReading reading = move_split && strcmp(lb_params_get_string(params, "reading"), "prose") == 0
                            ? SAMR_READING_PROSE
                            : SAMR_READING_FIGURE;
  guint scanned = table->len;
  const char *covers = lb_params_get_string(params, "levels");
  Cover cover = strcmp(covers, "each") == 0      ? COVER_EACH
                : strcmp(covers, "rebuilt") == 0 ? COVER_REBUILT
                                                 : COVER_ALL;
  const Decision *d = decide(geo, table, p, threshold, move_split, reading, cover,
                             lb_samr_rebuilt_from(work), lb_rank_narrating(self));
  const GArray *actions = d->actions;
  lb_metric_record(self, METRIC_ATTEMPTS, d->attempts);
  lb_execute(self, lb_params_get_double(params, "decide-flops") * scanned * (actions->len + 1));
  guint moved = 0, split = 0;
  for (guint k = 0; k < actions->len; k++) {
    const SamrAction *a = &g_array_index(actions, SamrAction, k);
    if (a->kind == SAMR_MOVE)
      moved++;
    else
      split++;
    if (lb_rank_id(self) == 0) /* every rank decides the same: rank 0 records */
      lb_record_event(self, a->kind == SAMR_MOVE ? LB_EVENT_MOVE : LB_EVENT_SPLIT, a->grid,
                      a->piece, a->from, a->to, a->load);
  }
  /* and rank 0 tells how the scheme decided */
  for (guint k = 0; lb_rank_id(self) == 0 && d->notes != NULL && k < d->notes->len; k++)
    lb_narrate(self, "%s", (const char *)d->notes->pdata[k]);
  lb_metric_record(self, METRIC_GRIDS_MOVED, moved);
  lb_metric_record(self, METRIC_GRIDS_SPLIT, split);
  lb_metric_record(self, METRIC_IMBALANCE_RATIO, d->paper.ratio);
  lb_metric_record(self, METRIC_AVG_STD, d->paper.std);
  lb_metric_record(self, METRIC_IDLE_PROCS, d->quality.idle);
  lb_metric_record(self, METRIC_LEVEL_IMBALANCE_RATIO, d->quality.ratio);
  lb_metric_record(self, METRIC_LEVEL_AVG_STD, d->quality.std);
  lb_metric_record(self, METRIC_GRIDS, d->after->len);
  lb_metric_record(self, METRIC_FINEST_LEVEL, d->finest);
  for (guint l = 0; l < SAMR_MAX_LEVELS; l++)
    lb_metric_record(self, METRIC_LEVEL_GRIDS + (int)l, d->level_grids[l]);

  lb_phase_begin(self, PHASE_MOVE);
  if (strcmp(lb_params_get_string(params, "transfers"), "merged") == 0)
    carry_out(self, d->before, d->after, actions);
  else
    carry_out_in_order(self, d);
}

static void
original_balance(LbRank *self, gpointer state)
{
  (void)state;
  balance(self, FALSE);
}

static void
move_split_balance(LbRank *self, gpointer state)
{
  (void)state;
  balance(self, TRUE);
}

#define CITE                                                                                       \
  "Z. Lan, V. E. Taylor and G. Bryan, \"A novel dynamic load balancing scheme for parallel "       \
  "systems\", Journal of Parallel and Distributed Computing 62, 2002"

const LbBalancer lb_enzo_original_balancer = {
    .name = "enzo-original",
    .summary = "ENZO's original SAMR scheme: MaxProc sends its first grid smaller than half the "
               "difference to MinProc, while MaxLoad > threshold x MinLoad",
    .cite = CITE ", Fig. 3",
    .params = original_params,
    .phases = samr_phases,
    .metrics = samr_metrics,
    .needs = LB_CAP_GRIDS,
    .balance = original_balance,
};

const LbBalancer lb_move_split_balancer = {
    .name = "move-split",
    .summary = "ENZO with move+split: direct grid moves that fill MinProc up to the average, "
               "then splits of MaxProc's largest grid, while MaxLoad > threshold x AvgLoad",
    .cite = CITE ", Fig. 8",
    .params = move_split_params,
    .phases = samr_phases,
    .metrics = samr_metrics,
    .needs = LB_CAP_GRIDS,
    .balance = move_split_balance,
};
