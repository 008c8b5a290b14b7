/* The samr work model (samr.h). At every adaptation the finer levels of
 * the hierarchy are rebuilt from the pattern: the grids of the levels kept
 * stay (with the owners and splits balancing gave them), and each finer
 * level is clustered from the cells of the level above whose pattern load
 * reaches that level's `refine` value, inside each parent grid (so a grid
 * is always contained in its parent), by Berger and Rigoutsos' method. A
 * new grid starts on its parent's owner. Units are the grids: id = index in
 * the table, load = the work of the time steps computed until the next
 * adaptation.
 *
 * Which levels an adaptation rebuilds, and which steps follow it, come
 * from the integration order of Lan, Taylor and Bryan's Fig. 2 (adapt =
 * level): level l + 1 takes `factor` time steps per step of level l, and
 * after each time step of a level l below the finest, the levels above l
 * are rebuilt. Or once per root step, every level (adapt = root). */
#include <math.h>
#include <string.h>

#include "io/input.h"
#include "lbsim/rank.h"
#include "workloads/models.h"
#include "workloads/samr.h"

typedef struct {
  SamrGeometry geo;
  guint levels; /* finest level */
  /* adapt = level: Fig. 2's order as the run goes. A level's clock counts
   * the finest level's time steps (factor^levels a root step); `pending`
   * holds the levels whose time step has just ended, in the order their
   * rebuilds come; the adaptation built rebuilt the levels above `level`
   * and is followed by steps[l] time steps of each level l. */
  gboolean per_level;
  guint64 clock[SAMR_MAX_LEVELS];
  guint pending[SAMR_MAX_LEVELS + 1], npending;
  guint level;
  double time; /* in root steps */
  guint steps[SAMR_MAX_LEVELS];
  guint64 refine[SAMR_MAX_LEVELS]; /* pattern load that refines a cell of level l */
  double efficiency;               /* smallest fraction of flagged cells in a box */
  guint64 root[3];
  GArray *table;         /* SamrGrid: the current hierarchy */
  GArray *parent_of;     /* guint: each grid's parent as the rebuild made it (G_MAXUINT: none) */
  guint built;           /* the adaptation step it is for */
  GPtrArray *sections;   /* hierarchy = FILE: a GArray of SamrGrid per section */
  GArray *section_steps; /* guint: the first adaptation of each section */
  SamrCosts costs;
  /* the table changes (a rebuild, a grid set) count up; the boundary
   * exchange worked out for the table at `exchange_of` */
  guint64 generation, exchange_of;
  SamrExchange *exchange;
  /* the grids of each rank in table order (by_owner[first[r] ..
   * first[r + 1]]), sorted out once for the table at `owners_of` */
  guint64 owners_of;
  guint *first, *by_owner;
} Samr;

static const LbParamSpec samr_params[] = {
    {"preset", LB_PARAM_CHOICE, NULL, 0, 0, "amr64|amr128|shockpool3d",
     "samr: values like the paper's datasets for the keys not given (AMR64, AMR128, ShockPool3D; "
     "see the SAMR page)"},
    {"size", LB_PARAM_STRING, "32x32x32", 0, 0, NULL,
     "samr: root domain cells NXxNYxNZ (3D) or NXxNY (2D)"},
    {"procs", LB_PARAM_STRING, NULL, 0, 0, NULL,
     "samr: the root domain's tiles, one level-0 grid per rank, PXxPY(xPZ) (default: the most "
     "square factorisation of ranks)"},
    {"factor", LB_PARAM_INT, "2", 2, 16, NULL, "samr: refinement factor between levels"},
    {"levels", LB_PARAM_INT, "2", 0, SAMR_MAX_LEVELS - 1, NULL, "samr: finest refinement level"},
    {"refine", LB_PARAM_STRING, NULL, 0, 0, NULL,
     "samr: pattern loads at which a cell of level 0, 1, ... is refined, comma-separated "
     "(default: base + amplitude x (l + 1) / (levels + 1) for hotspots, shock and clusters)"},
    {"efficiency", LB_PARAM_DOUBLE, "0.7", 0.05, 1, NULL,
     "samr: Berger-Rigoutsos: a box is kept once this fraction of its cells is flagged"},
    {"min-cells", LB_PARAM_INT, "0", 0, 1e9, NULL,
     "samr: smallest interior a split may leave, in cells (0: factor^dim, the paper's)"},
    {"ghost", LB_PARAM_INT, "3", 0, 64, NULL,
     "samr: ghost cells on every side of a grid (count in its work and size; the ghost "
     "exchange's depth)"},
    {"hierarchy", LB_PARAM_STRING, NULL, 0, 0, NULL,
     "samr: FILE of grids to replay instead of generating them: OWNER LEVEL X0 Y0 Z0 X1 Y1 Z1 per "
     "line (2D: X0 Y0 X1 Y1), '#' comments, 'step N' starting the hierarchy of adaptation N on"},
    {"adapt", LB_PARAM_CHOICE, "level", 0, 0, "level|root",
     "samr: when the hierarchy is rebuilt: level, after each time step of every level but the "
     "finest, the levels above it (the paper's Fig. 2: factor steps of level l + 1 per step of "
     "level l; [scenario] steps counts these adaptations); root, every level once per root step"},
    {"bytes-per-unit", LB_PARAM_DOUBLE, "64", 0, 1e12, NULL,
     "samr: bytes a cell of a moved grid carries (ghosts included)"},
    {"flops-per-unit", LB_PARAM_DOUBLE, "1000", 0, 1e15, NULL,
     "samr: flops per cell and substep in the compute step"},
    {"exchange", LB_PARAM_CHOICE, "enzo", 0, 0, "enzo|faces|none",
     "samr: the application's boundary exchange between adaptations: enzo, grid by grid as ENZO "
     "does it (each grid with the grids of its level it touches, its parents and its children, "
     "a message between ranks, a copy on one); faces, lbsim's earlier model (faces shared "
     "between ranks, one message a pair of ranks, no parents or children); none"},
    {"exchange-messages", LB_PARAM_CHOICE, "grids", 0, 0, "grids|ranks",
     "samr: with exchange = enzo, a message for each pair of grids on two ranks (as ENZO sends "
     "them), or one a pair of ranks carrying their bytes (cheaper to simulate where ranks hold "
     "hundreds of grids: the latency of the others is not charged)"},
    {"grid-flops", LB_PARAM_DOUBLE, "0", 0, 1e15, NULL,
     "samr: fixed flops a grid pays each time step of its level (the solver's set-up of a grid)"},
    {"copy-bandwidth", LB_PARAM_DOUBLE, "390e6", 1, 1e15, NULL,
     "samr: bytes a second of a boundary copy between two grids of one rank (exchange = enzo)"},
    {NULL},
};

/* Datasets like Lan, Taylor and Bryan's (Table 1, Fig. 7), made from a
 * pattern whose refined regions halve in size level by level, so that
 * every level refines about as many of its own cells (docs/families/
 * samr.md says how each was calibrated). AMR64 and AMR128: one compact
 * cluster, a Gaussian placed off the block corners so that a block
 * decomposition refines on few ranks, one most; the refine values flag the
 * cells within 0.2 / 2^l of its centre at level l, seven levels of factor
 * 2 (32^3 to an effective 4096^3, 64^3 to 8192^3). ShockPool3D: a slightly
 * tilted plane moving from a corner of a 50^3 root (its drift made it
 * cross the root in 600 adaptations of three levels; at seven it moves
 * about 5 %), flagged within 0.04 / 2^l of the front, seven levels (50^3
 * to an effective 6400^3),
 * clustered at ENZO's own ShockPool3D problem's MinimumEfficiency, 0.5
 * (see samr.md). */
/* key, value pairs, a few a line */
/* clang-format off */
#define AMR_KEYS(size)                                                               \
  "size", size,                                                                      \
  "levels", "7", "factor", "2", "ghost", "3",                                        \
  "pattern", "hotspots", "hotspots", "1", "centre", "0.7,0.45,0.45",                 \
  "width", "0.1", "amplitude", "10000000", "base", "0", "drift", "0",                \
  "refine", "1353353,6065307,8824969,9692332,9922179,9980488,9995118",               \
  "flops-per-unit", "14400", NULL
static const char *const amr64_keys[] = {AMR_KEYS("32x32x32")};
static const char *const amr128_keys[] = {AMR_KEYS("64x64x64")};
static const char *const shockpool3d_keys[] = {
  "size", "50x50x50",
  "levels", "7", "factor", "2", "ghost", "3", "efficiency", "0.5",
  "pattern", "shock", "angle", "10", "elevation", "5", "at", "0.05", "drift", "0.0105",
  "width", "0.1", "amplitude", "10000000", "base", "0",
  "refine", "9231163,9801987,9950125,9987508,9996875,9999219,9999805",
  "flops-per-unit", "4800", NULL};
/* clang-format on */

static const LbPreset samr_presets[] = {
    {"amr64", "AMR64-like: 32^3 root, seven levels round one compact cluster", amr64_keys},
    {"amr128", "AMR128-like: AMR64 on a 64^3 root", amr128_keys},
    {"shockpool3d", "ShockPool3D-like: 50^3 root, a tilted plane moving across", shockpool3d_keys},
    {NULL},
};

static Samr *
samr_of(const LbWork *work)
{
  return work->data;
}

const SamrGeometry *
lb_samr_geometry(const LbWork *work)
{
  return &samr_of(work)->geo;
}

/* Time steps of a level from the adaptation built to the next. */
static guint64
steps_of(const Samr *s, guint level)
{
  return s->per_level ? s->steps[level] : lb_samr_substeps(&s->geo, level);
}

guint64
lb_samr_work(const LbWork *work, const SamrGrid *grid)
{
  const Samr *s = samr_of(work);
  return lb_samr_cells(&s->geo, grid) * steps_of(s, grid->level);
}

guint
lb_samr_rebuilt_from(const LbWork *work)
{
  const Samr *s = samr_of(work);
  if (s->sections != NULL)
    return 0;
  return s->per_level ? s->level + 1 : 1;
}

void
lb_samr_adaptation(const LbWork *work, guint *level, double *time, guint *steps)
{
  const Samr *s = samr_of(work);
  *level = s->per_level ? s->level : 0;
  *time = s->per_level ? s->time : (double)s->built;
  for (guint l = 0; l <= s->levels; l++)
    steps[l] = (guint)steps_of(s, l);
}

/* After the adaptation built (its rebuild done, the finest level present
 * `depth`): the time steps until the next one, in Fig. 2's order, and the
 * level whose step ends first. A level steps when its clock is behind its
 * parent's (the finest such first), else the root steps; a step of the
 * finest level present ends the steps of the levels it catches up with:
 * its own (its rebuild can make a finer level, up to `levels`), then each
 * coarser level whose clock it reached, the finer first. */
static void
advance(Samr *s, guint depth)
{
  memset(s->steps, 0, sizeof s->steps);
  while (s->npending == 0) {
    guint l = depth;
    while (l > 0 && s->clock[l] >= s->clock[l - 1])
      l--;
    s->clock[l] += lb_samr_substeps(&s->geo, s->levels - l);
    s->steps[l]++;
    if (l < depth)
      continue;
    if (l < s->levels || l == 0)
      s->pending[s->npending++] = l;
    for (guint m = l; m-- > 0 && s->clock[m + 1] == s->clock[m];)
      s->pending[s->npending++] = m;
  }
}

/* The next adaptation's level: the first pending rebuild. */
static guint
next_level(Samr *s)
{
  guint m = s->pending[0];
  memmove(s->pending, s->pending + 1, --s->npending * sizeof(guint));
  return m;
}

const SamrGrid *
lb_samr_grid(const LbWork *work, guint64 id)
{
  return &g_array_index(samr_of(work)->table, SamrGrid, id);
}

guint64
lb_samr_grids(const LbWork *work)
{
  return samr_of(work)->table->len;
}

void
lb_samr_set(const LbWork *work, guint64 id, const SamrGrid *grid)
{
  GArray *table = samr_of(work)->table;
  if (table->len <= id)
    g_array_set_size(table, (guint)id + 1);
  g_array_index(table, SamrGrid, id) = *grid;
  samr_of(work)->generation++;
}

/* The children of a parent grid: its cells flagged where the pattern's load
 * at their centre reaches the level's refine value (rows: the pattern's
 * row function for the level, or NULL), clustered, refined. */
static void
children(const LbWork *work, const Samr *s, const LbPatternRows *rows, guint at, GArray *table,
         GArray *parent_of)
{
  const SamrGrid from = g_array_index(table, SamrGrid, at), *parent = &from; /* the table grows */
  guint dim = s->geo.dim;
  guint64 size[3] = {1, 1, 1}, scale = lb_samr_substeps(&s->geo, parent->level);
  for (guint a = 0; a < dim; a++)
    size[a] = s->root[a] * scale;
  g_autoptr(SamrFlags) flags = lb_samr_flags_new(&work->pattern, work->pattern_at, rows, dim, size,
                                                 parent->lo, parent->hi, s->refine[parent->level]);
  g_autoptr(GArray) boxes = g_array_new(FALSE, FALSE, sizeof(gint64));
  lb_samr_cluster(flags, dim, s->efficiency, boxes);
  for (guint b = 0; b < boxes->len; b += 6) {
    const gint64 *box = &g_array_index(boxes, gint64, b);
    SamrGrid child = {parent->owner, parent->level + 1, {0, 0, 0}, {1, 1, 1}};
    for (guint a = 0; a < dim; a++) {
      child.lo[a] = box[a] * s->geo.factor;
      child.hi[a] = box[3 + a] * s->geo.factor;
    }
    g_array_append_val(table, child);
    g_array_append_val(parent_of, at);
  }
}

/* The hierarchy of an adaptation: the grids of the levels it keeps as
 * they are (the root's, or with adapt = level those up to the level whose
 * step it follows), the finer levels anew from the pattern at its time,
 * level by level in the table's order. */
static void
rebuild(const LbWork *work, Samr *s, guint adaptation)
{
  if (s->sections != NULL) {
    guint k = 0;
    for (guint i = 0; i < s->section_steps->len; i++)
      if (g_array_index(s->section_steps, guint, i) <= adaptation)
        k = i;
    GArray *grids = s->sections->pdata[k];
    g_array_unref(s->table);
    s->table = g_array_copy(grids);
    g_array_set_size(s->parent_of, 0);
    s->built = adaptation;
    s->generation++;
    return;
  }
  LbWork *mutable = (LbWork *)work;
  guint keep = 0;
  double time = adaptation;
  if (s->per_level) {
    /* the adaptations come in order: each follows from the last */
    g_assert(adaptation == (s->built == G_MAXUINT ? 0 : s->built + 1));
    keep = adaptation == 0 ? 0 : next_level(s);
    /* new grids start at the time of the level they refine */
    for (guint l = keep + 1; l <= s->levels; l++)
      s->clock[l] = s->clock[keep];
    s->level = keep;
    time = (double)s->clock[keep] / (double)lb_samr_substeps(&s->geo, s->levels);
    s->time = time;
  }
  if (work->pattern_at == NULL || work->pattern_at_adaptation != adaptation) {
    lb_pattern_at_free(mutable->pattern_at);
    mutable->pattern_at = lb_pattern_at_time(&work->pattern, work->dim, time);
    mutable->pattern_at_adaptation = adaptation;
  }
  GArray *table = g_array_sized_new(FALSE, FALSE, sizeof(SamrGrid), s->table->len);
  GArray *parent_of = g_array_sized_new(FALSE, FALSE, sizeof(guint), s->table->len);
  /* the kept grids, their parents' places renumbered as they are kept */
  g_autofree guint *kept_at = g_new(guint, MAX(s->table->len, 1));
  for (guint i = 0; i < s->table->len; i++) {
    kept_at[i] = G_MAXUINT;
    if (g_array_index(s->table, SamrGrid, i).level > keep)
      continue;
    guint was = i < s->parent_of->len ? g_array_index(s->parent_of, guint, i) : G_MAXUINT;
    guint parent = was < i ? kept_at[was] : G_MAXUINT;
    kept_at[i] = table->len;
    g_array_append_val(table, g_array_index(s->table, SamrGrid, i));
    g_array_append_val(parent_of, parent);
  }
  /* the parents of the first level rebuilt are the kept grids of level
   * keep, wherever splits put them in the table; then each new level's */
  guint first = 0;
  for (guint level = keep; level < s->levels; level++) {
    guint end = table->len;
    guint64 size[3] = {1, 1, 1};
    for (guint a = 0; a < s->geo.dim; a++)
      size[a] = s->root[a] * lb_samr_substeps(&s->geo, level);
    lb_pattern_at_prepare(work->pattern_at, &work->pattern, size);
    g_autoptr(LbPatternRows) rows =
        lb_pattern_rows_new(&work->pattern, work->pattern_at, s->geo.dim, size, s->refine[level]);
    for (guint i = first; i < end; i++)
      if (g_array_index(table, SamrGrid, i).level == level)
        children(work, s, rows, i, table, parent_of);
    first = end;
  }
  g_array_unref(s->table);
  s->table = table;
  g_array_unref(s->parent_of);
  s->parent_of = parent_of;
  s->built = adaptation;
  s->generation++;
  if (s->per_level) {
    guint depth = 0;
    for (guint i = 0; i < table->len; i++)
      depth = MAX(depth, g_array_index(table, SamrGrid, i).level);
    advance(s, depth);
  }
}

static void
samr_update(const LbWork *work, guint rank, GArray *units, guint adaptation)
{
  Samr *s = samr_of(work);
  if (s->built != adaptation)
    rebuild(work, s, adaptation);
  if (s->first == NULL || s->owners_of != s->generation) {
    g_free(s->first);
    g_free(s->by_owner);
    s->first = g_new0(guint, work->ranks + 1);
    s->by_owner = g_new(guint, MAX(s->table->len, 1));
    for (guint i = 0; i < s->table->len; i++)
      s->first[g_array_index(s->table, SamrGrid, i).owner + 1]++;
    for (guint r = 0; r < work->ranks; r++)
      s->first[r + 1] += s->first[r];
    g_autofree guint *fill = g_memdup2(s->first, work->ranks * sizeof(guint));
    for (guint i = 0; i < s->table->len; i++)
      s->by_owner[fill[g_array_index(s->table, SamrGrid, i).owner]++] = i;
    s->owners_of = s->generation;
  }
  g_array_set_size(units, 0);
  for (guint k = s->first[rank]; k < s->first[rank + 1]; k++) {
    guint i = s->by_owner[k];
    LbUnit u = {i, lb_samr_work(work, &g_array_index(s->table, SamrGrid, i))};
    g_array_append_val(units, u);
  }
}

/* Before the first step: the level-0 tiles only (update builds the rest). */
static void
samr_initial_units(const LbWork *work, guint rank, LbStart start, GArray *units)
{
  (void)start;
  const Samr *s = samr_of(work);
  for (guint i = 0; i < s->table->len; i++)
    if (g_array_index(s->table, SamrGrid, i).owner == rank) {
      LbUnit u = {i, 0};
      g_array_append_val(units, u);
    }
}

static char *
samr_describe_start(const LbWork *work, LbStart start)
{
  (void)start;
  if (samr_of(work)->sections != NULL)
    return g_strdup_printf("the grids of %s", lb_params_get_string(work->params, "hierarchy"));
  GString *t = g_string_new("root tiles ");
  for (guint a = 0; a < work->dim; a++)
    g_string_append_printf(t, "%s%" G_GUINT64_FORMAT, a ? "x" : "", work->procs[a]);
  g_string_append(t, ", finer grids on their parent's rank");
  return g_string_free(t, FALSE);
}

static guint64
samr_total_units(const LbWork *work)
{
  return samr_of(work)->table->len;
}

/* What a step conserves: interior cells, interior work, and a checksum of
 * interior cells by level, which moves and splits keep. */
static void
samr_conserve(const LbWork *work, const LbUnit *units, gsize n, LbConserved *into)
{
  const Samr *s = samr_of(work);
  for (gsize i = 0; i < n; i++) {
    const SamrGrid *g = lb_samr_grid(work, units[i].id);
    guint64 cells = lb_samr_interior_cells(&s->geo, g);
    into->count += cells;
    into->load += cells * lb_samr_substeps(&s->geo, g->level);
    into->checksum += cells * lb_hash64(g->level + 1);
  }
}

static double
samr_bytes(const LbWork *work, const LbUnit *units, gsize n)
{
  const Samr *s = samr_of(work);
  double bytes = 0;
  for (gsize i = 0; i < n; i++)
    bytes += (double)lb_samr_cells(&s->geo, lb_samr_grid(work, units[i].id)) * work->bytes_per_unit;
  return bytes;
}

static int
compare_neighbours(gconstpointer a, gconstpointer b)
{
  const LbNeighbour *x = a, *y = b;
  return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* The ghost exchange: every grid of mine with every grid of the same
 * level on another rank that touches it, the shared faces once per time
 * step of the level until the next adaptation, summed by rank. */
static void
samr_neighbours(const LbWork *work, guint me, const LbUnit *units, gsize n, GArray *out)
{
  const Samr *s = samr_of(work);
  g_autoptr(GHashTable) by_rank = g_hash_table_new(NULL, NULL);
  g_autoptr(GArray) list = g_array_new(FALSE, FALSE, sizeof(LbNeighbour));
  for (gsize i = 0; i < n; i++) {
    const SamrGrid *g = lb_samr_grid(work, units[i].id);
    for (guint j = 0; j < s->table->len; j++) {
      const SamrGrid *h = &g_array_index(s->table, SamrGrid, j);
      if (h->owner == me || h->level != g->level)
        continue;
      guint64 faces =
          lb_boxes_shared_faces(g->lo, g->hi, h->lo, h->hi, s->geo.dim) * steps_of(s, g->level);
      if (faces == 0)
        continue;
      gpointer at = NULL;
      if (g_hash_table_lookup_extended(by_rank, GUINT_TO_POINTER(h->owner + 1), NULL, &at)) {
        g_array_index(list, LbNeighbour, GPOINTER_TO_UINT(at)).faces += faces;
      } else {
        LbNeighbour nb = {h->owner, faces};
        g_hash_table_insert(by_rank, GUINT_TO_POINTER(h->owner + 1), GUINT_TO_POINTER(list->len));
        g_array_append_val(list, nb);
      }
    }
  }
  g_array_sort(list, compare_neighbours);
  g_array_append_vals(out, list->data, list->len);
}

/* The application's step of rank `me` with exchange = enzo or none: the
 * hierarchy's exchange (samr-grid.c), worked out once for the table as
 * the balancing step left it (the first rank to ask; every rank asks after
 * the last rank's balancing is over), each rank taking its part. */
static gboolean
samr_app_step(const LbWork *work, guint me, const LbUnit *units, gsize n, LbAppStep *step)
{
  (void)units;
  (void)n;
  Samr *s = samr_of(work);
  if (s->costs.exchange == SAMR_EXCHANGE_FACES)
    return FALSE;
  if (s->exchange == NULL || s->exchange_of != s->generation) {
    lb_samr_exchange_free(s->exchange);
    guint64 steps[SAMR_MAX_LEVELS];
    guint levels = 0;
    for (guint i = 0; i < s->table->len; i++)
      levels = MAX(levels, g_array_index(s->table, SamrGrid, i).level);
    for (guint l = 0; l <= levels; l++)
      steps[l] = steps_of(s, l);
    s->exchange = lb_samr_exchange_new(&s->geo, s->table, (const guint *)s->parent_of->data,
                                       s->parent_of->len, steps, levels, &s->costs, work->ranks);
    s->exchange_of = s->generation;
  }
  lb_samr_exchange_rank(s->exchange, me, step);
  step->copy_bandwidth = s->costs.copy_bandwidth;
  return TRUE;
}

static void
samr_grids(const LbWork *work, GArray *out)
{
  const Samr *s = samr_of(work);
  for (guint i = 0; i < s->table->len; i++) {
    const SamrGrid *g = &g_array_index(s->table, SamrGrid, i);
    LbGridPart part = {g->owner,
                       g->level,
                       {g->lo[0], g->lo[1], g->lo[2]},
                       {g->hi[0], g->hi[1], g->hi[2]},
                       lb_samr_load(&s->geo, g),
                       lb_samr_substeps(&s->geo, g->level)};
    g_array_append_val(out, part);
  }
}

static void
samr_free(gpointer data)
{
  Samr *s = data;
  lb_samr_exchange_free(s->exchange);
  g_array_unref(s->table);
  g_array_unref(s->parent_of);
  g_free(s->first);
  g_free(s->by_owner);
  if (s->sections != NULL)
    g_ptr_array_unref(s->sections);
  if (s->section_steps != NULL)
    g_array_unref(s->section_steps);
  g_free(s);
}

void
lb_samr_bounds(const SamrGeometry *g, double root_cells, guint levels, guint ranks,
               const double *fractions, double efficiency, gboolean rows, double *grids,
               double *flags)
{
  *grids = ranks;
  *flags = 0;
  double cells = root_cells, parents = root_cells, per_cell = pow(g->factor, g->dim);
  for (guint l = 0; l < levels; l++) {
    /* flagged cells of level l lie in its grids; a box of flagged cells is
     * at least `efficiency` flagged (or one cell) and holds one at least */
    double flagged = fractions != NULL ? MIN(parents, fractions[l] * cells) : parents;
    *grids += flagged;
    /* one parent's flags at a time, no larger than the level's parents: a
     * box of c cells has c^((dim - 1) / dim) rows along its longest axis at
     * most, each an offset and its runs (a run from a row function, up
     * to half its cells and one more cell by cell), no more runs than
     * flagged cells */
    double nrows = pow(parents, (g->dim - 1.0) / g->dim);
    double runs = MIN(rows ? nrows : parents / 2 + nrows, MAX(flagged, 1));
    *flags = MAX(*flags, LB_SAMR_ROW_BYTES * (nrows + 1) + LB_SAMR_RUN_BYTES * runs);
    cells *= per_cell;
    parents = MIN(cells, flagged / efficiency * per_cell);
  }
}

/* A ball's volume in dim (2 or 3) dimensions. */
static double
ball(guint dim, double r)
{
  return dim == 2 ? G_PI * r * r : 4.0 / 3.0 * G_PI * r * r * r;
}

/* The most of the domain (a fraction) whose cells of level l the pattern
 * can flag at any time of the run: where its load can reach refine[l]. A
 * cell is flagged by its centre, so regions grow by half a cell's
 * diagonal. Hot spots: a sum of n spots reaches t above the base only
 * within the radius where one spot alone gives t / n. A shock: a slab
 * across the unit cube, whose largest section is sqrt(2). Clusters: n
 * balls of their largest radius. Other patterns: all of it. */
static double
flag_fraction(const LbWork *work, const Samr *s, guint level)
{
  const LbPattern *p = &work->pattern;
  double t = (double)s->refine[level] - (double)p->base;
  guint64 narrowest = MIN(s->root[0], s->root[1]);
  if (s->geo.dim == 3)
    narrowest = MIN(narrowest, s->root[2]);
  double pad = 0.5 * sqrt((double)s->geo.dim) /
               ((double)narrowest * (double)lb_samr_substeps(&s->geo, level));
  if (t <= 0)
    return 1;
  double fraction = 1;
  if (p->kind == LB_PATTERN_HOTSPOTS) {
    double n = p->hotspots;
    fraction = n * p->amplitude < t
                   ? 0
                   : n * ball(s->geo.dim, p->width * sqrt(2 * log(n * p->amplitude / t)) + pad);
  } else if (p->kind == LB_PATTERN_SHOCK) {
    fraction =
        p->amplitude < t ? 0 : (2 * p->width * sqrt(2 * log(p->amplitude / t)) + 2 * pad) * G_SQRT2;
  } else if (p->kind == LB_PATTERN_CLUSTERS) {
    double n = p->clusters;
    double radius = p->width + p->growth * work->steps;
    fraction = n * p->amplitude < t ? 0 : n * ball(s->geo.dim, radius + pad);
  }
  return MIN(fraction, 1.0);
}

/* NXxNY or NXxNYxNZ, at most 2^20 cells along an axis of the root (its
 * finer levels multiply that by factor^level); *dim gets 2 or 3. */
static gboolean
parse_dims(const char *text, guint64 *out, guint *dim)
{
  guint n = 1;
  for (const char *c = text; *c != '\0'; c++)
    n += *c == 'x';
  if (n < 2 || n > 3 || !lb_parse_dims(text, n, out))
    return FALSE;
  for (guint a = 0; a < n; a++)
    if (out[a] > 1u << 20)
      return FALSE;
  *dim = n;
  return TRUE;
}

static void
free_section(gpointer data)
{
  g_array_unref(data);
}

/* hierarchy = FILE: sections of grids, each checked against the root and
 * its parents; errors name the file and line. */
static gboolean
read_hierarchy(LbWork *work, Samr *s, const char *file, const char *dir, GError **error)
{
  const char *name = lb_params_get_string(work->params, "hierarchy");
  g_autofree char *path =
      g_path_is_absolute(name) ? g_strdup(name) : g_build_filename(dir, name, NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) local = NULL;
  gsize length = 0;
  if (!lb_input_read(path, LB_INPUT_HIERARCHY, &text, &length, &local))
    return lb_workload_fail(error, file, "hierarchy", "%s", local->message);
  guint nul = lb_text_nul_line(text, length);
  if (nul != 0)
    return lb_workload_fail(error, file, "hierarchy", "%s:%u: a NUL byte (is this a text file?)",
                            path, nul);
  guint dim = s->geo.dim, width = 2 + 2 * dim;
  s->sections = g_ptr_array_new_with_free_func(free_section);
  s->section_steps = g_array_new(FALSE, FALSE, sizeof(guint));
  GArray *current = NULL;
  /* the line of each grid of the current section, to name an overlap's */
  g_autoptr(GArray) grid_lines = g_array_new(FALSE, FALSE, sizeof(guint));
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  for (guint ln = 0; lines[ln] != NULL; ln++) {
    char *line = lines[ln];
    char *hash = strchr(line, '#');
    if (hash != NULL)
      *hash = '\0';
    g_strstrip(line);
    if (*line == '\0')
      continue;
    if (g_str_has_prefix(line, "step")) {
      char *end = NULL;
      guint64 step = g_ascii_strtoull(line + 4, &end, 10);
      guint last = s->section_steps->len
                       ? g_array_index(s->section_steps, guint, s->section_steps->len - 1)
                       : 0;
      if (end == line + 4 || *end != '\0' || step > G_MAXUINT32 ||
          (s->section_steps->len > 0 && step <= last))
        return lb_workload_fail(error, file, "hierarchy",
                                "%s:%u: 'step N' with N larger than the last step's (%s)", path,
                                ln + 1, line);
      current = g_array_new(FALSE, FALSE, sizeof(SamrGrid));
      g_ptr_array_add(s->sections, current);
      g_array_set_size(grid_lines, 0);
      guint st = (guint)step;
      g_array_append_val(s->section_steps, st);
      continue;
    }
    if (current == NULL) {
      current = g_array_new(FALSE, FALSE, sizeof(SamrGrid));
      g_ptr_array_add(s->sections, current);
      guint zero = 0;
      g_array_append_val(s->section_steps, zero);
    }
    g_auto(GStrv) f = g_strsplit_set(line, " \t", -1);
    gint64 v[8];
    guint n = 0;
    for (guint i = 0; f[i] != NULL; i++) {
      if (*f[i] == '\0')
        continue;
      char *end = NULL;
      gint64 x = g_ascii_strtoll(f[i], &end, 10);
      if (*end != '\0' || n == width)
        return lb_workload_fail(
            error, file, "hierarchy",
            "%s:%u: a grid is %u integers (OWNER LEVEL and a box of %u corners)", path, ln + 1,
            width, dim);
      v[n++] = x;
    }
    if (n != width)
      return lb_workload_fail(error, file, "hierarchy",
                              "%s:%u: %u numbers, a grid is %u (OWNER LEVEL %s)", path, ln + 1, n,
                              width, dim == 3 ? "X0 Y0 Z0 X1 Y1 Z1" : "X0 Y0 X1 Y1");
    if (v[0] < 0 || v[0] >= work->ranks)
      return lb_workload_fail(error, file, "hierarchy",
                              "%s:%u: owner %" G_GINT64_FORMAT " is not a rank (0 .. %u)", path,
                              ln + 1, v[0], work->ranks - 1);
    if (v[1] < 0 || v[1] >= SAMR_MAX_LEVELS)
      return lb_workload_fail(error, file, "hierarchy",
                              "%s:%u: level %" G_GINT64_FORMAT " is not in 0 .. %u", path, ln + 1,
                              v[1], SAMR_MAX_LEVELS - 1);
    SamrGrid g = {(guint)v[0], (guint)v[1], {0, 0, 0}, {1, 1, 1}};
    guint64 scale = lb_samr_substeps(&s->geo, g.level);
    for (guint a = 0; a < dim; a++) {
      g.lo[a] = v[2 + a];
      g.hi[a] = v[2 + dim + a];
      if (g.lo[a] < 0 || g.hi[a] <= g.lo[a] || (guint64)g.hi[a] > s->root[a] * scale)
        return lb_workload_fail(error, file, "hierarchy",
                                "%s:%u: the box [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                                ") along axis %u "
                                "is empty or leaves level %u's %" G_GUINT64_FORMAT " cells",
                                path, ln + 1, g.lo[a], g.hi[a], a, g.level, s->root[a] * scale);
    }
    if (g.level > 0) {
      gboolean inside = FALSE;
      for (guint i = 0; i < current->len && !inside; i++) {
        const SamrGrid *p = &g_array_index(current, SamrGrid, i);
        if (p->level + 1 != g.level)
          continue;
        inside = TRUE;
        for (guint a = 0; a < dim; a++)
          inside &= g.lo[a] >= p->lo[a] * (gint64)s->geo.factor &&
                    g.hi[a] <= p->hi[a] * (gint64)s->geo.factor;
      }
      if (!inside)
        return lb_workload_fail(
            error, file, "hierarchy",
            "%s:%u: a grid of level %u must lie inside a grid of level %u listed before "
            "it",
            path, ln + 1, g.level, g.level - 1);
    }
    /* the grids of a level are disjoint (a cell is refined once) */
    for (guint i = 0; i < current->len; i++) {
      const SamrGrid *o = &g_array_index(current, SamrGrid, i);
      gboolean overlap = o->level == g.level;
      for (guint a = 0; a < dim && overlap; a++)
        overlap = g.lo[a] < o->hi[a] && o->lo[a] < g.hi[a];
      if (overlap)
        return lb_workload_fail(error, file, "hierarchy",
                                "%s:%u: the grid overlaps the grid of level %u on line %u (the "
                                "grids of a level must not share a cell)",
                                path, ln + 1, g.level, g_array_index(grid_lines, guint, i));
    }
    g_array_append_val(current, g);
    guint line_no = ln + 1;
    g_array_append_val(grid_lines, line_no);
  }
  for (guint i = 0; i < s->sections->len; i++)
    if (((GArray *)s->sections->pdata[i])->len == 0)
      return lb_workload_fail(error, file, "hierarchy", "%s: step %u has no grids", path,
                              g_array_index(s->section_steps, guint, i));
  if (s->sections->len == 0)
    return lb_workload_fail(error, file, "hierarchy", "%s holds no grids", path);
  if (g_array_index(s->section_steps, guint, 0) != 0)
    return lb_workload_fail(error, file, "hierarchy", "%s: the first section must be step 0", path);
  return TRUE;
}

static gboolean
samr_load_work(LbWork *work, const char *file, const char *dir, GError **error)
{
  const LbParams *w = work->params;
  g_autofree Samr *s = g_new0(Samr, 1);
  guint64 root[3] = {1, 1, 1};
  guint dim = 0;
  const char *size = lb_params_get_string(w, "size");
  if (!parse_dims(size, root, &dim))
    return lb_workload_fail(error, file, "size",
                            "'%s' is not NXxNY or NXxNYxNZ of positive integers", size);
  work->dim = dim;
  for (guint a = 0; a < 3; a++) {
    work->size[a] = root[a];
    s->root[a] = root[a];
    work->procs[a] = 1;
  }
  work->cells = root[0] * root[1] * root[2];
  s->geo.dim = dim;
  s->geo.factor = (guint)lb_params_get_int(w, "factor");
  s->geo.ghost = (guint)lb_params_get_int(w, "ghost");
  guint min_cells = (guint)lb_params_get_int(w, "min-cells");
  s->geo.min_cells = min_cells > 0 ? min_cells : (guint)lb_samr_substeps(&s->geo, dim);
  s->levels = (guint)lb_params_get_int(w, "levels");
  s->efficiency = lb_params_get_double(w, "efficiency");
  work->bytes_per_unit = lb_params_get_double(w, "bytes-per-unit");
  work->flops_per_unit = lb_params_get_double(w, "flops-per-unit");
  work->ghost_depth = s->geo.ghost;
  const char *exchange = lb_params_get_string(w, "exchange");
  s->costs.exchange = strcmp(exchange, "enzo") == 0    ? SAMR_EXCHANGE_ENZO
                      : strcmp(exchange, "faces") == 0 ? SAMR_EXCHANGE_FACES
                                                       : SAMR_EXCHANGE_NONE;
  s->costs.grid_flops = lb_params_get_double(w, "grid-flops");
  s->costs.copy_bandwidth = lb_params_get_double(w, "copy-bandwidth");
  s->costs.bytes_per_unit = work->bytes_per_unit;
  s->costs.by_ranks = strcmp(lb_params_get_string(w, "exchange-messages"), "ranks") == 0;
  if (lb_params_is_set(w, "refine")) {
    g_auto(GStrv) parts = g_strsplit(lb_params_get_string(w, "refine"), ",", -1);
    if (g_strv_length(parts) != s->levels)
      return lb_workload_fail(error, file, "refine",
                              "%u values for levels = %u (one per refined level)",
                              g_strv_length(parts), s->levels);
    for (guint l = 0; l < s->levels; l++) {
      char *end = NULL;
      g_strstrip(parts[l]);
      if (parts[l][0] == '\0')
        return lb_workload_fail(error, file, "refine", "item %u of the list is empty", l + 1);
      s->refine[l] = g_ascii_strtoull(parts[l], &end, 10);
      if (parts[l][0] == '\0' || !g_ascii_isdigit(parts[l][0]) || *end != '\0')
        return lb_workload_fail(error, file, "refine",
                                "'%s' is not a load (a non-negative integer)", parts[l]);
    }
  } else {
    double base = (double)work->pattern.base, amp = work->pattern.amplitude;
    if (work->pattern.kind != LB_PATTERN_HOTSPOTS && work->pattern.kind != LB_PATTERN_SHOCK &&
        work->pattern.kind != LB_PATTERN_CLUSTERS && s->levels > 0 &&
        !lb_params_is_set(w, "hierarchy"))
      return lb_workload_fail(
          error, file, "refine",
          "pattern %s needs refine = LOADS (the defaults follow base and amplitude of "
          "hotspots, shock and clusters)",
          lb_params_get_string(w, "pattern"));
    for (guint l = 0; l < s->levels; l++)
      s->refine[l] = (guint64)(base + amp * (l + 1) / (s->levels + 1));
  }
  if (lb_params_is_set(w, "procs")) {
    const char *procs = lb_params_get_string(w, "procs");
    guint pd = 0;
    guint64 p[3] = {1, 1, 1};
    if (!parse_dims(procs, p, &pd) || pd != dim)
      return lb_workload_fail(error, file, "procs", "'%s' is not %s of positive integers", procs,
                              dim == 2 ? "PXxPY" : "PXxPYxPZ");
    if (p[0] * p[1] * p[2] != work->ranks)
      return lb_workload_fail(error, file, "procs",
                              "%s makes %" G_GUINT64_FORMAT " ranks, but [scenario] ranks is %u",
                              procs, p[0] * p[1] * p[2], work->ranks);
    memcpy(work->procs, p, sizeof p);
  } else {
    lb_grid_square_factors(work->ranks, dim, work->procs);
  }
  for (guint a = 0; a < dim && !lb_params_is_set(w, "hierarchy"); a++)
    if (work->procs[a] > root[a])
      return lb_workload_fail(error, file, lb_params_is_set(w, "procs") ? "procs" : "size",
                              "%" G_GUINT64_FORMAT
                              " tiles along axis %u, but the root has %" G_GUINT64_FORMAT
                              " cells there",
                              work->procs[a], a, root[a]);
  if (!lb_params_is_set(w, "hierarchy")) {
    double grids = 0, flags = 0, fractions[SAMR_MAX_LEVELS];
    for (guint l = 0; l < s->levels; l++)
      fractions[l] = flag_fraction(work, s, l);
    gboolean rows = lb_pattern_has_rows(&work->pattern);
    lb_samr_bounds(&s->geo, (double)work->cells, s->levels, work->ranks, fractions, s->efficiency,
                   rows, &grids, &flags);
    g_autofree char *what = g_strdup_printf(
        "%u levels refined by %u may make up to %.3g grids, and a grid's flags %.3g bytes (%s), "
        "which need",
        s->levels, s->geo.factor, grids, flags,
        rows ? "a run a row" : "runs of the cells along its rows");
    if (!lb_work_check_memory(work, grids * LB_SAMR_GRID_BYTES + flags, file, "levels", what,
                              error))
      return FALSE;
  }
  s->per_level =
      strcmp(lb_params_get_string(w, "adapt"), "level") == 0 && !lb_params_is_set(w, "hierarchy");
  /* the root tiles, one per rank, the first axis fastest */
  s->table = g_array_new(FALSE, FALSE, sizeof(SamrGrid));
  s->parent_of = g_array_new(FALSE, FALSE, sizeof(guint));
  for (guint r = 0; r < work->ranks; r++) {
    SamrGrid g = {r, 0, {0, 0, 0}, {1, 1, 1}};
    guint64 rest = r;
    for (guint a = 0; a < dim; a++) {
      guint64 c = rest % work->procs[a];
      rest /= work->procs[a];
      g.lo[a] = (gint64)(root[a] * c / work->procs[a]);
      g.hi[a] = (gint64)(root[a] * (c + 1) / work->procs[a]);
    }
    g_array_append_val(s->table, g);
  }
  s->built = G_MAXUINT;
  if (lb_params_is_set(w, "hierarchy")) {
    gboolean ok = read_hierarchy(work, s, file, dir, error);
    guint most = 0;
    for (guint i = 0; ok && i < s->sections->len; i++)
      most = MAX(most, ((GArray *)s->sections->pdata[i])->len);
    if (ok) {
      g_autofree char *what = g_strdup_printf("its steps of up to %u grids need", most);
      ok = lb_work_check_memory(work, (double)most * LB_SAMR_GRID_BYTES, file, "hierarchy", what,
                                error);
    }
    if (ok) {
      g_array_unref(s->table);
      s->table = g_array_copy(s->sections->pdata[0]);
    }
    work->data = g_steal_pointer(&s);
    return ok;
  }
  work->data = g_steal_pointer(&s);
  return TRUE;
}

const LbModel lb_samr_model = {
    .name = "samr",
    .summary = "a structured AMR grid hierarchy rebuilt at every adaptation step; units are "
               "grids (boxes of cells with ghost zones) that balancers move and split",
    .offers = LB_CAP_GRIDS,
    .params = samr_params,
    .presets = samr_presets,
    .patterns = TRUE,
    .load = samr_load_work,
    .free_data = samr_free,
    .initial_units = samr_initial_units,
    .describe_start = samr_describe_start,
    .update = samr_update,
    .total_units = samr_total_units,
    .conserve = samr_conserve,
    .neighbours = samr_neighbours,
    .app_step = samr_app_step,
    .grids = samr_grids,
    .bytes = samr_bytes,
};
