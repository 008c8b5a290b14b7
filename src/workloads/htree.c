/* The htree work model (htree.h). At every adaptation step the tree is
 * built anew, top-down: from the elements' positions (refine = elements:
 * points placed by the scenario's pattern, sorted by their finest-level
 * Morton code, so that a node's elements are one run of the sorted codes)
 * or from the Poisson problem's error estimate (refine = poisson). A node
 * no longer meeting the split condition simply has no children in the new
 * tree: that is the pruning. The tree is a few flat arrays in pre-order,
 * 16 bytes per hnode, searched by binary search. */
#include "workloads/htree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workloads/models.h"

#define LEVEL_BITS 5
#define LEVEL_MASK ((1u << LEVEL_BITS) - 1)

struct _LbHtree {
  guint dim, max_level;
  guint64 own_internal; /* elements an internal hnode holds itself */
  gsize n, cap;
  /* (Morton code of the first finest cell) << LEVEL_BITS | level:
   * ascending, which is the pre-order */
  guint64 *key;
  guint32 *count; /* elements in the node's region */
  guint32 *size;  /* hnodes of its subtree */
};

typedef enum {
  LOAD_CONSTANT,
  LOAD_PER_NODE,
  LOAD_MEASURED,
} LoadCase;

typedef struct {
  guint dim, min_level, max_level;
  gboolean poisson;
  LbPoissonBoundary boundary; /* refine = poisson */
  guint64 elements, leaf_elements;
  double tolerance, decay;
  gsize budget; /* refine = poisson: hnodes a tree may have (the machine's memory) */
  LoadCase load;
  guint64 node_load, node_load_max, element_load;
  double bytes_per_element;
  LbHtree *tree;     /* of adaptation step `built` */
  LbHtree *previous; /* the tree the units held before it, or NULL */
  guint built;
  /* the next step's tree, built on a thread of its own while the ranks
   * simulate this one: a step's tree is a function of the model and the
   * step alone, and building it (placing every element, sorting their
   * codes) would otherwise hold the whole simulation up. Started by the
   * process that simulates (ahead_pid): a forked child has no such
   * thread. */
  GThread *ahead;
  guint ahead_step; /* the step last given to it */
  pid_t ahead_pid;
  /* where the last lb_work_bytes search ended: a balancer weighs the
   * hnodes it sends one at a time, in runs of the curve's order, which
   * lie close together in the tree (only where a search starts; any
   * value finds the same hnode) */
  gsize bytes_hint;
} Htree;

/* An element's draws, and the stream of the per-node loads. */
enum {
  DRAW_PICK = 0,
  DRAW_UNIFORM = 1, /* + axis */
  DRAW_NORMAL = 4,  /* + 0 .. 3 */
  DRAW_BALL = 8,
};
#define STREAM_NODE_LOAD 0x10adull

static const LbParamSpec htree_params[] = {
    {"dim", LB_PARAM_INT, "2", 2, 3, NULL,
     "htree: dimensions of the domain [0,1)^dim: 2 (quadtree) or 3 (octree)"},
    {"min-level", LB_PARAM_INT, "2", 0, LB_HTREE_MAX_LEVEL_2D, NULL,
     "htree: every hnode above this level splits, whatever the condition"},
    {"max-level", LB_PARAM_INT, "12", 0, LB_HTREE_MAX_LEVEL_2D, NULL,
     "htree: the level limit: no hnode of this level splits (at most 24 in 2D, 16 in 3D)"},
    {"refine", LB_PARAM_CHOICE, "elements", 0, 0, "elements|poisson",
     "htree: the split condition: more than leaf-elements elements (placed by the pattern), or "
     "the seed's Poisson problem's error estimate above the tolerance (2D)"},
    {"elements", LB_PARAM_INT, "100000", 1, 1e9, NULL,
     "htree, refine elements: number of elements"},
    {"leaf-elements", LB_PARAM_INT, "8", 0, 1e9, NULL,
     "htree, refine elements: an hnode splits while it holds more elements than this"},
    {"tolerance", LB_PARAM_DOUBLE, "1e-4", 0, 1e9, NULL,
     "htree, refine poisson: a square splits while its error estimate exceeds tolerance x "
     "tolerance-decay^step"},
    {"boundary", LB_PARAM_CHOICE, "sinh", 0, 0, "sinh|constant",
     "htree, refine poisson: the seed's Dirichlet condition: (2) h = 10 cos(2 pi (x - y)) "
     "sinh(2 pi (x + y + 2)) / sinh(8 pi), or (1) h = 10, whose solution needs no grid finer "
     "than min-level"},
    {"tolerance-decay", LB_PARAM_DOUBLE, "0.5", 1e-6, 1, NULL,
     "htree, refine poisson: factor on the tolerance per adaptation step (the hierarchy gains "
     "grids)"},
    {"load", LB_PARAM_CHOICE, "constant", 0, 0, "constant|per-node|measured",
     "htree: load per hnode: constant and equal, constant but per node, or measured (changing "
     "with the elements)"},
    {"node-load", LB_PARAM_INT, "1", 0, 1e9, NULL,
     "htree: the load of an hnode (per-node: the smallest; measured: without its elements)"},
    {"node-load-max", LB_PARAM_INT, "10", 0, 1e9, NULL,
     "htree, load per-node: the largest; each hnode's load is drawn from node-load .. "
     "node-load-max by a seeded hash of its id"},
    {"element-load", LB_PARAM_INT, "1", 0, 1e6, NULL,
     "htree, load measured: load added per element a leaf holds"},
    {"bytes-per-unit", LB_PARAM_DOUBLE, "64", 0, 1e12, NULL,
     "htree: bytes a moved hnode carries (its own data)"},
    {"bytes-per-element", LB_PARAM_DOUBLE, "32", 0, 1e12, NULL,
     "htree: bytes each element of a moved hnode carries (elements belong to leaves; with "
     "refine poisson every hnode holds its one point)"},
    {"flops-per-unit", LB_PARAM_DOUBLE, "1e4", 0, 1e15, NULL,
     "flops per unit of load in the compute step"},
    {NULL},
};

/* ---- location codes ---- */

/* Written out per dimension (2 or 3), with constant divisors: the
 * balancers make and take apart ids for every face they look at. */
static guint64
morton(const guint64 *coords, guint dim)
{
  if (dim == 2)
    return lb_bits_spread(2, coords[0]) | lb_bits_spread(2, coords[1]) << 1;
  return lb_bits_spread(3, coords[0]) | lb_bits_spread(3, coords[1]) << 1 |
         lb_bits_spread(3, coords[2]) << 2;
}

/* The level whose marker bit is bit `top`, rounded down. */
static guint
level_below(guint top, guint dim)
{
  return dim == 2 ? top / 2 : top / 3;
}

guint64
lb_htree_id(guint dim, guint level, const guint64 *coords)
{
  g_return_val_if_fail(dim * level < 64, 0);
  return 1ull << (dim * level) | morton(coords, dim);
}

guint
lb_htree_decode(guint64 id, guint dim, guint64 *coords)
{
  g_return_val_if_fail(id > 0, 0);
  guint top = 63 - (guint)__builtin_clzll(id);
  guint64 m = id ^ (1ull << top);
  if (dim == 2) {
    coords[0] = lb_bits_gather(2, m);
    coords[1] = lb_bits_gather(2, m >> 1);
  } else {
    coords[0] = lb_bits_gather(3, m);
    coords[1] = lb_bits_gather(3, m >> 1);
    coords[2] = lb_bits_gather(3, m >> 2);
  }
  return level_below(top, dim);
}

guint64
lb_htree_parent(guint64 id, guint dim)
{
  return id >> dim;
}

guint64
lb_htree_child(guint64 id, guint dim, guint k)
{
  return id << dim | k;
}

/* ---- trees ---- */

static guint
key_level(guint64 key)
{
  return (guint)(key & LEVEL_MASK);
}

static guint64
key_of(const LbHtree *t, guint level, guint64 m)
{
  return (m << (t->dim * (t->max_level - level))) << LEVEL_BITS | level;
}

/* The key an id would have in t; FALSE if no node of t can have it. */
static gboolean
key_of_id(const LbHtree *t, guint64 id, guint64 *key)
{
  if (id == 0)
    return FALSE;
  guint top = 63 - (guint)__builtin_clzll(id);
  guint level = level_below(top, t->dim);
  if (level * t->dim != top || level > t->max_level)
    return FALSE;
  *key = key_of(t, level, id ^ (1ull << top));
  return TRUE;
}

/* A new empty tree, or `reuse` emptied: its arrays are kept, already
 * faulted in, for the next step's tree. */
static LbHtree *
tree_new(guint dim, guint max_level, guint64 own_internal, LbHtree *reuse)
{
  LbHtree *t = reuse != NULL ? reuse : g_new0(LbHtree, 1);
  t->n = 0;
  t->dim = dim;
  t->max_level = max_level;
  t->own_internal = own_internal;
  return t;
}

static gsize
push(LbHtree *t, guint level, guint64 m, guint64 count)
{
  if (t->n == t->cap) {
    t->cap = MAX(t->cap * 2, 1024);
    t->key = g_renew(guint64, t->key, t->cap);
    t->count = g_renew(guint32, t->count, t->cap);
    t->size = g_renew(guint32, t->size, t->cap);
  }
  g_assert(t->n < G_MAXUINT32 && count <= G_MAXUINT32);
  t->key[t->n] = key_of(t, level, m);
  t->count[t->n] = (guint32)count;
  t->size[t->n] = 1;
  return t->n++;
}

void
lb_htree_free(LbHtree *t)
{
  if (t == NULL)
    return;
  g_free(t->key);
  g_free(t->count);
  g_free(t->size);
  g_free(t);
}

gsize
lb_htree_size(const LbHtree *t)
{
  return t->n;
}

/* This file's own per-hnode calls go to static forms such as this one,
 * which the compiler may inline; the exported names are for the other
 * modules. */
static guint64
id_at(const LbHtree *t, gsize at)
{
  guint64 key = t->key[at];
  guint level = key_level(key);
  return 1ull << (t->dim * level) | (key >> LEVEL_BITS) >> (t->dim * (t->max_level - level));
}

guint64
lb_htree_id_at(const LbHtree *t, gsize at)
{
  return id_at(t, at);
}

/* The first position in a[0..n) whose key is >= v, searched outwards from
 * hint: a rank's units come in runs of the pre-order, so the next one is
 * usually close to the last. */
static gsize
lower_bound_near(const guint64 *a, gsize n, guint64 v, gsize hint)
{
  gsize lo, hi; /* the answer lies in [lo, hi] */
  gsize step = 1;
  if (a[hint] < v) {
    lo = hint + 1;
    while (lo + step - 1 < n && a[lo + step - 1] < v) {
      lo += step;
      step *= 2;
    }
    hi = MIN(lo + step - 1, n);
  } else {
    hi = hint;
    while (hi >= step && a[hi - step] >= v) {
      hi -= step;
      step *= 2;
    }
    lo = hi >= step ? hi - step + 1 : 0;
  }
  while (lo < hi) {
    gsize mid = lo + (hi - lo) / 2;
    if (a[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static gboolean
find_near(const LbHtree *t, guint64 id, gsize *hint, gsize *at)
{
  guint64 key;
  if (t->n == 0 || !key_of_id(t, id, &key))
    return FALSE;
  gsize pos = lower_bound_near(t->key, t->n, key, MIN(*hint, t->n - 1));
  *hint = MIN(pos, t->n - 1);
  if (pos == t->n || t->key[pos] != key)
    return FALSE;
  *at = pos;
  return TRUE;
}

gboolean
lb_htree_find(const LbHtree *t, guint64 id, gsize *at)
{
  gsize hint = t->n / 2, where = 0;
  gboolean found = find_near(t, id, &hint, &where);
  if (found && at != NULL)
    *at = where;
  return found;
}

gboolean
lb_htree_is_leaf(const LbHtree *t, gsize at)
{
  return t->size[at] == 1;
}

gsize
lb_htree_subtree(const LbHtree *t, gsize at)
{
  return t->size[at];
}

guint64
lb_htree_elements(const LbHtree *t, gsize at)
{
  return t->count[at];
}

static guint64
own_elements(const LbHtree *t, gsize at)
{
  return t->size[at] == 1 ? t->count[at] : t->own_internal;
}

guint64
lb_htree_own_elements(const LbHtree *t, gsize at)
{
  return own_elements(t, at);
}

/* ---- the tree over points ---- */

/* Least significant digit first, in equal passes of at most 11 bits: a
 * pass's 2^11 write positions stay in the first-level cache, which the
 * scatter gains more from than it loses to a pass more. Returns the buffer
 * that holds the sorted keys (keys or other). */
static guint64 *
radix_sort(guint64 *keys, guint64 *other, gsize n, guint bits)
{
  guint passes = MAX((bits + 10) / 11, 1u);
  guint digit = (bits + passes - 1) / passes;
  guint64 mask = (1ull << digit) - 1;
  g_autofree gsize *start = g_new(gsize, 1u << digit);
  guint64 *from = keys, *to = other;
  for (guint shift = 0; shift < bits; shift += digit) {
    memset(start, 0, sizeof(gsize) << digit);
    for (gsize i = 0; i < n; i++)
      start[(from[i] >> shift) & mask]++;
    gsize sum = 0;
    for (guint64 d = 0; d <= mask; d++) {
      gsize c = start[d];
      start[d] = sum;
      sum += c;
    }
    for (gsize i = 0; i < n; i++)
      to[start[(from[i] >> shift) & mask]++] = from[i];
    guint64 *swap = from;
    from = to;
    to = swap;
  }
  return from;
}

static gsize
lower_bound(const guint64 *a, gsize lo, gsize hi, guint64 v)
{
  while (lo < hi) {
    gsize mid = lo + (hi - lo) / 2;
    if (a[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

typedef struct {
  LbHtree *tree;
  guint min_level;
  guint64 leaf_elements;
  const guint64 *keys; /* finest-level Morton codes, sorted */
} PointBuild;

/* Node m of level `level` holds the elements keys[lo, hi); its children
 * split that run at the first codes of their regions. */
static void
split_points(PointBuild *b, guint level, guint64 m, gsize lo, gsize hi)
{
  LbHtree *t = b->tree;
  gsize at = push(t, level, m, hi - lo);
  if (level < t->max_level && (level < b->min_level || hi - lo > b->leaf_elements)) {
    guint shift = t->dim * (t->max_level - level - 1);
    guint children = 1u << t->dim;
    gsize start = lo;
    for (guint c = 0; c < children; c++) {
      guint64 child = m << t->dim | c;
      gsize end = c + 1 == children ? hi : lower_bound(b->keys, start, hi, (child + 1) << shift);
      split_points(b, level + 1, child, start, end);
      start = end;
    }
  }
  t->size[at] = (guint32)(t->n - at);
}

/* A coordinate in [0,1) to its cell at the finest level. */
static guint64
finest_cell(double x, guint max_level)
{
  guint64 cells = 1ull << max_level;
  if (!(x > 0))
    return 0;
  guint64 q = (guint64)(x * (double)cells);
  return MIN(q, cells - 1);
}

static guint64
finest_code(const double *x, guint dim, guint max_level)
{
  guint64 q[LB_MAX_DIM];
  for (guint a = 0; a < dim; a++)
    q[a] = finest_cell(x[a], max_level);
  return morton(q, dim);
}

/* Sorts keys (the elements' finest codes; spare: as many for the sort)
 * and builds the tree over them. */
static LbHtree *
tree_from_codes(guint dim, guint min_level, guint max_level, guint64 leaf_elements, guint64 *keys,
                guint64 *spare, gsize n, LbHtree *reuse)
{
  const guint64 *sorted = radix_sort(keys, spare, n, dim * max_level);
  PointBuild b = {tree_new(dim, max_level, 0, reuse), min_level, leaf_elements, sorted};
  split_points(&b, 0, 0, 0, n);
  return b.tree;
}

LbHtree *
lb_htree_new_points(guint dim, guint min_level, guint max_level, guint64 leaf_elements,
                    const double *points, gsize n)
{
  g_return_val_if_fail(dim == 2 || dim == 3, NULL);
  g_return_val_if_fail(max_level <= (dim == 2 ? LB_HTREE_MAX_LEVEL_2D : LB_HTREE_MAX_LEVEL_3D),
                       NULL);
  g_autofree guint64 *keys = g_new(guint64, MAX(n, 1));
  g_autofree guint64 *spare = g_new(guint64, MAX(n, 1));
  for (gsize i = 0; i < n; i++)
    keys[i] = finest_code(points + i * dim, dim, max_level);
  return tree_from_codes(dim, min_level, max_level, leaf_elements, keys, spare, n, NULL);
}

/* ---- the multigrid case ---- */

double
lb_htree_poisson_solution(LbPoissonBoundary boundary, double x, double y)
{
  if (boundary == LB_POISSON_CONSTANT)
    return 10.0;
  return 10.0 * cos(2 * G_PI * (x - y)) * sinh(2 * G_PI * (x + y + 2)) / sinh(8 * G_PI);
}

double
lb_htree_poisson_surplus(LbPoissonBoundary boundary, guint level, guint64 x, guint64 y)
{
  double h = ldexp(1.0, -(int)level);
  double x0 = (double)x * h, y0 = (double)y * h, x1 = x0 + h, y1 = y0 + h;
  double corners =
      (lb_htree_poisson_solution(boundary, x0, y0) + lb_htree_poisson_solution(boundary, x1, y0) +
       lb_htree_poisson_solution(boundary, x0, y1) + lb_htree_poisson_solution(boundary, x1, y1)) /
      4;
  return fabs(lb_htree_poisson_solution(boundary, x0 + h / 2, y0 + h / 2) - corners);
}

typedef struct {
  LbHtree *tree;
  LbPoissonBoundary boundary;
  guint min_level;
  double tolerance;
  gsize budget; /* hnodes at most: past it the build stops */
} PoissonBuild;

static void
split_poisson(PoissonBuild *b, guint level, guint64 x, guint64 y)
{
  LbHtree *t = b->tree;
  if (t->n >= b->budget)
    return;
  guint64 coords[2] = {x, y};
  gsize at = push(t, level, morton(coords, 2), 1);
  if (level < t->max_level &&
      (level < b->min_level || lb_htree_poisson_surplus(b->boundary, level, x, y) > b->tolerance))
    for (guint c = 0; c < 4; c++)
      split_poisson(b, level + 1, 2 * x + (c & 1), 2 * y + (c >> 1));
  t->size[at] = (guint32)(t->n - at);
  t->count[at] = t->size[at]; /* one point per hnode of the subtree */
}

/* NULL (and `reuse` freed) when the tree would have `budget` hnodes or
 * more: a small tolerance refines every square down to max-level, 4^l of
 * them at level l. */
static LbHtree *
poisson_tree(LbPoissonBoundary boundary, guint min_level, guint max_level, double tolerance,
             gsize budget, LbHtree *reuse)
{
  PoissonBuild b = {tree_new(2, max_level, 1, reuse), boundary, min_level, tolerance, budget};
  split_poisson(&b, 0, 0, 0);
  if (b.tree->n >= budget) {
    lb_htree_free(b.tree);
    return NULL;
  }
  return b.tree;
}

LbHtree *
lb_htree_new_poisson(LbPoissonBoundary boundary, guint min_level, guint max_level, double tolerance,
                     gsize budget)
{
  g_return_val_if_fail(max_level <= LB_HTREE_MAX_LEVEL_2D, NULL);
  return poisson_tree(boundary, min_level, max_level, tolerance, MIN(budget, G_MAXUINT32), NULL);
}

/* ---- where the elements are ---- */

/* Element i's random numbers: one hash per element, then one per draw. */
static guint64
element_stream(guint64 seed, guint64 i)
{
  return lb_hash64(seed ^ lb_hash64(i ^ 0x5eedc0de00000000ull));
}

static double
element_random(guint64 stream, guint k)
{
  return (double)(lb_hash64(stream + k * 0x9e3779b97f4a7c15ull) >> 11) * 0x1.0p-53;
}

static double
wrap(double x)
{
  double w = x - floor(x);
  return w < 1.0 ? w : 0.0;
}

/* The pattern's features at a step as shares of the elements: spot k takes
 * [cumulative[k-1], cumulative[k]) of the total weight, then the front,
 * then the uniform background. A share is the feature's mass in the
 * pattern's load field (height x volume), so that the elements are spread
 * as the load the pattern would give the cells. */
typedef struct {
  const LbPattern *pattern;
  guint dim;
  guint64 seed;
  guint nspots;
  LbPatternSpot *spots;
  double *cumulative; /* nspots + 1: spots, then the front (shock) */
  double total;       /* with the background */
  double front, normal[LB_MAX_DIM];
  guint front_axis; /* the axis along which an element is put on the front */
} Placer;

static double
ball_volume(double radius, guint dim)
{
  return dim == 2 ? G_PI * radius * radius : 4.0 / 3.0 * G_PI * radius * radius * radius;
}

static void
placer_init(Placer *pl, const LbWork *work, guint adaptation)
{
  const LbPattern *p = &work->pattern;
  memset(pl, 0, sizeof *pl);
  pl->pattern = p;
  pl->dim = work->dim;
  pl->seed = work->seed;
  g_autoptr(LbPatternAt) at = lb_pattern_at_new(p, work->dim, adaptation);
  gboolean features = p->kind == LB_PATTERN_HOTSPOTS || p->kind == LB_PATTERN_CLUSTERS ||
                      p->kind == LB_PATTERN_SHOCK;
  pl->nspots = lb_pattern_at_spots(at);
  pl->spots = g_new0(LbPatternSpot, pl->nspots + 1);
  pl->cumulative = g_new0(double, pl->nspots + 1);
  double sum = 0;
  for (guint k = 0; k < pl->nspots; k++) {
    LbPatternSpot s = lb_pattern_at_spot(at, k);
    pl->spots[k] = s;
    if (p->kind == LB_PATTERN_HOTSPOTS)
      sum += s.height * pow(2 * G_PI * p->width * p->width, work->dim / 2.0);
    else if (s.radius >= 0)
      sum += s.height * ball_volume(s.radius, work->dim);
    pl->cumulative[k] = sum;
  }
  if (p->kind == LB_PATTERN_SHOCK) {
    pl->front = lb_pattern_at_front(at, pl->normal);
    for (guint a = 1; a < work->dim; a++)
      if (fabs(pl->normal[a]) > fabs(pl->normal[pl->front_axis]))
        pl->front_axis = a;
    sum += p->amplitude * sqrt(2 * G_PI) * p->width; /* per unit area of front */
  }
  pl->cumulative[pl->nspots] = sum;
  pl->total = features ? sum + (double)p->base : 0;
}

static void
placer_clear(Placer *pl)
{
  g_free(pl->spots);
  g_free(pl->cumulative);
}

static void
normals(guint64 stream, guint n, double *z)
{
  for (guint k = 0; k < n; k += 2) {
    double u1 = 1.0 - element_random(stream, DRAW_NORMAL + k); /* (0, 1] */
    double u2 = element_random(stream, DRAW_NORMAL + k + 1);
    double r = sqrt(-2.0 * log(u1));
    z[k] = r * cos(2 * G_PI * u2);
    if (k + 1 < n)
      z[k + 1] = r * sin(2 * G_PI * u2);
  }
}

static void
place_uniform(guint64 stream, guint dim, double *x)
{
  for (guint a = 0; a < dim; a++)
    x[a] = element_random(stream, DRAW_UNIFORM + a);
}

/* Element i's position: its share (a fixed draw) picks a feature, and its
 * fixed offsets place it relative to the feature wherever the feature is
 * at this step, so that the elements of a feature move with it. */
static void
place(const Placer *pl, guint64 i, double *x)
{
  guint dim = pl->dim;
  guint64 stream = element_stream(pl->seed, i);
  if (pl->total <= 0) {
    place_uniform(stream, dim, x);
    return;
  }
  double v = element_random(stream, DRAW_PICK) * pl->total;
  guint lo = 0, hi = pl->nspots + 1; /* the first share that ends above v */
  while (lo < hi) {
    guint mid = (lo + hi) / 2;
    if (pl->cumulative[mid] <= v)
      lo = mid + 1;
    else
      hi = mid;
  }
  double z[LB_MAX_DIM + 1];
  if (lo < pl->nspots) {
    const LbPatternSpot *s = &pl->spots[lo];
    normals(stream, dim, z);
    if (pl->pattern->kind == LB_PATTERN_HOTSPOTS) {
      for (guint a = 0; a < dim; a++)
        x[a] = wrap(s->centre[a] + pl->pattern->width * z[a]);
      return;
    }
    /* a cluster: uniform in its ball */
    double norm = 0;
    for (guint a = 0; a < dim; a++)
      norm += z[a] * z[a];
    norm = sqrt(norm);
    double u = element_random(stream, DRAW_BALL);
    double r = s->radius * (dim == 2 ? sqrt(u) : cbrt(u));
    for (guint a = 0; a < dim; a++)
      x[a] = wrap(s->centre[a] + (norm > 0 ? r * z[a] / norm : 0));
    return;
  }
  place_uniform(stream, dim, x);
  if (lo == pl->nspots && pl->pattern->kind == LB_PATTERN_SHOCK) {
    /* on the front at a normal distance of width x z, uniform along it:
     * solve for the coordinate along the axis closest to the normal; where
     * the front does not cross the domain, the element stays uniform */
    normals(stream, 1, z);
    guint f = pl->front_axis;
    double along = pl->front + pl->pattern->width * z[0];
    for (guint a = 0; a < dim; a++)
      if (a != f)
        along -= pl->normal[a] * x[a];
    double xf = along / pl->normal[f];
    if (xf >= 0 && xf < 1)
      x[f] = xf;
  }
}

/* ---- the model ---- */

static Htree *
htree_of(const LbWork *work)
{
  return work->data;
}

guint64
lb_htree_work_elements(const LbWork *work)
{
  return htree_of(work)->poisson ? 0 : htree_of(work)->elements;
}

void
lb_htree_place(const LbWork *work, guint adaptation, double *points)
{
  const Htree *h = htree_of(work);
  g_return_if_fail(!h->poisson);
  Placer pl;
  placer_init(&pl, work, adaptation);
  for (guint64 i = 0; i < h->elements; i++)
    place(&pl, i, points + i * h->dim);
  placer_clear(&pl);
}

static LbHtree *
build_step(const LbWork *work, Htree *h, guint adaptation, LbHtree *reuse)
{
  if (h->poisson)
    return poisson_tree(h->boundary, h->min_level, h->max_level,
                        h->tolerance * pow(h->decay, adaptation), h->budget, reuse);
  Placer pl;
  placer_init(&pl, work, adaptation);
  /* the elements' codes and the sort's other buffer (16 bytes an element)
   * live only while the tree is built: apart from step 1's, the builds run
   * on the side, where faulting them in anew delays nothing */
  g_autofree guint64 *codes = g_new(guint64, h->elements);
  g_autofree guint64 *spare = g_new(guint64, h->elements);
  for (guint64 i = 0; i < h->elements; i++) {
    double x[LB_MAX_DIM];
    place(&pl, i, x);
    codes[i] = finest_code(x, h->dim, h->max_level);
  }
  placer_clear(&pl);
  return tree_from_codes(h->dim, h->min_level, h->max_level, h->leaf_elements, codes, spare,
                         h->elements, reuse);
}

typedef struct {
  const LbWork *work;
  Htree *h;
  guint adaptation;
  LbHtree *reuse;
} AheadBuild;

/* Only build_step runs on the thread: it reads the model's settings, and
 * writes only what it allocates. */
static gpointer
build_ahead(gpointer data)
{
  AheadBuild *a = data;
  LbHtree *t = build_step(a->work, a->h, a->adaptation, a->reuse);
  g_free(a);
  return t;
}

/* Starts building step `adaptation`'s tree (in `reuse`'s arrays), if the
 * scenario has that step; if no thread can be had, rebuild makes it when
 * it is wanted. */
static void
start_ahead(const LbWork *work, Htree *h, guint adaptation, LbHtree *reuse)
{
  g_assert(h->ahead == NULL);
  h->ahead_step = adaptation;
  if (adaptation >= work->steps) {
    lb_htree_free(reuse);
    return;
  }
  AheadBuild *a = g_new(AheadBuild, 1);
  *a = (AheadBuild){work, h, adaptation, reuse};
  h->ahead = g_thread_try_new("htree-ahead", build_ahead, a, NULL);
  if (h->ahead == NULL) {
    lb_htree_free(reuse);
    g_free(a);
    return;
  }
  h->ahead_pid = getpid();
}

/* The tree the thread built, if it built step `adaptation`'s; NULL
 * otherwise. A thread started before a fork does not run in the child: the
 * child leaves it alone and builds the tree itself. */
static LbHtree *
join_ahead(Htree *h, guint adaptation)
{
  if (h->ahead == NULL)
    return NULL;
  if (h->ahead_pid != getpid()) {
    h->ahead = NULL;
    return NULL;
  }
  LbHtree *t = g_thread_join(g_steal_pointer(&h->ahead));
  if (h->ahead_step == adaptation)
    return t;
  lb_htree_free(t);
  return NULL;
}

/* Once per adaptation step, by the first rank that asks: the tree of the
 * last step stays as `previous`, the one the units were made for, and the
 * next step's is started on the side. */
static void
rebuild(const LbWork *work, Htree *h, guint adaptation)
{
  LbHtree *next = join_ahead(h, adaptation);
  LbHtree *recycled = g_steal_pointer(&h->previous);
  if (adaptation == 0) {
    lb_htree_free(recycled);
    recycled = g_steal_pointer(&h->tree);
  }
  if (next == NULL)
    next = build_step(work, h, adaptation, g_steal_pointer(&recycled));
  /* the load built the last step's tree, the largest (the tolerance only
   * shrinks), within the budget */
  g_assert(next != NULL);
  h->previous = h->tree;
  h->tree = next;
  h->built = adaptation;
  start_ahead(work, h, adaptation + 1, recycled);
}

const LbHtree *
lb_htree_of(const LbWork *work)
{
  return htree_of(work)->tree;
}

static guint64
node_load(const LbWork *work, const LbHtree *t, gsize at)
{
  const Htree *h = htree_of(work);
  switch (h->load) {
  case LOAD_CONSTANT:
    return h->node_load;
  case LOAD_PER_NODE: {
    guint64 id = id_at(t, at);
    guint64 r = lb_hash64(work->seed ^ lb_hash64(STREAM_NODE_LOAD << 48 ^ id));
    return h->node_load + r % (h->node_load_max - h->node_load + 1);
  }
  case LOAD_MEASURED:
    return h->node_load + own_elements(t, at) * h->element_load;
  }
  g_assert_not_reached();
}

guint64
lb_htree_load(const LbWork *work, const LbHtree *t, gsize at)
{
  return node_load(work, t, at);
}

static void
append_unit(GArray *out, guint64 id, guint64 load)
{
  LbUnit u = {id, load};
  g_array_append_val(out, u);
}

typedef struct {
  guint index; /* of the unit, among those kept */
  gsize at;    /* its place in the new tree */
} Gain;

/* A rank keeps its units still in the tree, with their new loads; a unit
 * that was a leaf and has children now brings its whole new subtree, right
 * after it (new hnodes start where their parent region is); the others
 * vanish. Every new hnode has exactly one such ancestor, the deepest one
 * the last tree had (an hnode splits into all its children at once), so
 * every hnode ends on exactly one rank. In place, forwards to keep, then
 * backwards to open room for the gains; the cost is the rank's units'
 * searches and the hnodes it gains. */
static void
htree_update(const LbWork *work, guint rank, GArray *units, guint adaptation)
{
  (void)rank;
  Htree *h = htree_of(work);
  if (h->built != adaptation)
    rebuild(work, h, adaptation);
  const LbHtree *now = h->tree, *before = h->previous;
  g_autoptr(GArray) gains = g_array_new(FALSE, FALSE, sizeof(Gain));
  gsize hint_now = 0, hint_before = 0, extra = 0;
  LbUnit *u = (LbUnit *)units->data;
  guint kept = 0;
  for (guint i = 0; i < units->len; i++) {
    gsize at = 0, was = 0;
    guint64 id = u[i].id;
    if (!find_near(now, id, &hint_now, &at))
      continue;
    u[kept] = (LbUnit){id, node_load(work, now, at)};
    if (before != NULL && now->size[at] > 1 && find_near(before, id, &hint_before, &was) &&
        before->size[was] == 1) {
      Gain g = {kept, at};
      g_array_append_val(gains, g);
      extra += now->size[at] - 1;
    }
    kept++;
  }
  g_array_set_size(units, (guint)(kept + extra));
  u = (LbUnit *)units->data;
  gsize w = kept + extra;
  guint next = gains->len;
  for (guint r = kept; r-- > 0;) {
    const Gain *g = next > 0 ? &g_array_index(gains, Gain, next - 1) : NULL;
    if (g != NULL && g->index == r) {
      for (gsize j = g->at + now->size[g->at] - 1; j > g->at; j--)
        u[--w] = (LbUnit){id_at(now, j), node_load(work, now, j)};
      next--;
    }
    u[--w] = u[r];
  }
  g_assert(w == 0);
}

/* Equal counts of the step-0 tree's pre-order (a parent before its
 * children), for balancers that start from the model's distribution. */
static void
htree_initial_units(const LbWork *work, guint rank, LbStart start, GArray *units)
{
  (void)start;
  Htree *h = htree_of(work);
  if (h->built != 0)
    rebuild(work, h, 0);
  gsize n = h->tree->n;
  gsize first = (gsize)((unsigned __int128)n * rank / work->ranks);
  gsize end = (gsize)((unsigned __int128)n * (rank + 1) / work->ranks);
  for (gsize j = first; j < end; j++)
    append_unit(units, id_at(h->tree, j), 0);
}

static char *
htree_describe_start(const LbWork *work, LbStart start)
{
  (void)work;
  (void)start;
  return g_strdup("Morton pre-order of the hnodes, equal counts");
}

static guint64
htree_total_units(const LbWork *work)
{
  return htree_of(work)->tree->n;
}

static void
htree_leaves(const LbWork *work, GArray *out)
{
  const LbHtree *t = htree_of(work)->tree;
  for (gsize at = 0; at < t->n; at++) {
    if (t->size[at] != 1)
      continue;
    LbLeaf leaf = {.id = id_at(t, at)};
    guint64 c[LB_MAX_DIM] = {0};
    leaf.level = lb_htree_decode(leaf.id, t->dim, c);
    for (guint a = 0; a < t->dim; a++)
      leaf.coords[a] = (guint32)c[a];
    g_array_append_val(out, leaf);
  }
}

static double
htree_bytes(const LbWork *work, const LbUnit *units, gsize n)
{
  Htree *h = htree_of(work);
  double bytes = 0;
  gsize hint = h->bytes_hint;
  for (gsize i = 0; i < n; i++) {
    gsize at = 0;
    guint64 own = find_near(h->tree, units[i].id, &hint, &at) ? own_elements(h->tree, at) : 0;
    bytes += work->bytes_per_unit + (double)own * h->bytes_per_element;
  }
  h->bytes_hint = hint;
  return bytes;
}

static void
htree_free(gpointer data)
{
  Htree *h = data;
  lb_htree_free(join_ahead(h, h->ahead_step));
  lb_htree_free(h->tree);
  lb_htree_free(h->previous);
  g_free(h);
}

/* A key that only applies when `guard` has the value `needed`. */
static gboolean
applies_only(const LbParams *w, const char *file, const char *key, const char *guard,
             const char *needed, GError **error)
{
  const char *current = lb_params_get_text(w, guard);
  if (!lb_params_is_set(w, key) || strcmp(current, needed) == 0)
    return TRUE;
  return lb_workload_fail(error, file, key, "applies to %s %s, but %s is %s", guard, needed, guard,
                          current);
}

/* The cross-key checks the table cannot make. */
static gboolean
check_keys(LbWork *work, const Htree *h, const char *file, GError **error)
{
  const LbParams *w = work->params;
  guint cap = h->dim == 2 ? LB_HTREE_MAX_LEVEL_2D : LB_HTREE_MAX_LEVEL_3D;
  if (h->max_level > cap)
    return lb_workload_fail(error, file, "max-level",
                            "%u is above %u, the limit in %uD (location codes fit 64 bits)",
                            h->max_level, cap, h->dim);
  if (h->min_level > h->max_level)
    return lb_workload_fail(error, file, "min-level", "%u is above max-level (%u)", h->min_level,
                            h->max_level);
  if (h->poisson) {
    if (h->dim != 2)
      return lb_workload_fail(error, file, "dim",
                              "refine = poisson is the seed's 2D problem, but dim is %u", h->dim);
    if (!applies_only(w, file, "elements", "refine", "elements", error) ||
        !applies_only(w, file, "leaf-elements", "refine", "elements", error))
      return FALSE;
    for (const LbParamSpec *s = lb_model_param_spec(work->model); s->name != NULL; s++) {
      gboolean pattern_key = FALSE;
      lb_pattern_key_applies(s->name, "", &pattern_key);
      if ((pattern_key || strcmp(s->name, "pattern") == 0) &&
          !applies_only(w, file, s->name, "refine", "elements", error))
        return FALSE;
    }
  } else {
    if (!applies_only(w, file, "tolerance", "refine", "poisson", error) ||
        !applies_only(w, file, "tolerance-decay", "refine", "poisson", error) ||
        !applies_only(w, file, "boundary", "refine", "poisson", error))
      return FALSE;
    if (work->pattern.kind == LB_PATTERN_FILE)
      return lb_workload_fail(error, file, "pattern",
                              "file gives one load per cell, but htree places elements: use "
                              "hotspots, clusters, shock or a uniform pattern");
  }
  if (!applies_only(w, file, "node-load-max", "load", "per-node", error) ||
      !applies_only(w, file, "element-load", "load", "measured", error))
    return FALSE;
  if (h->load == LOAD_PER_NODE && h->node_load_max < h->node_load)
    return lb_workload_fail(error, file, "node-load-max",
                            "%" G_GUINT64_FORMAT " is below node-load (%" G_GUINT64_FORMAT ")",
                            h->node_load_max, h->node_load);
  /* every hnode above min-level splits, whatever the elements; refine =
   * poisson's tree is known only once built (under a budget) */
  double full = lb_htree_full_hnodes(h->dim, h->min_level);
  g_autofree char *full_what =
      g_strdup_printf("%u makes %.3g hnodes, which need", h->min_level, full);
  if (!lb_work_check_memory(work, full * LB_HTREE_HNODE_BYTES, file, "min-level", full_what, error))
    return FALSE;
  if (h->poisson)
    return TRUE;
  double hnodes =
      lb_htree_max_hnodes(h->dim, h->min_level, h->max_level, h->elements, h->leaf_elements);
  g_autofree char *what = g_strdup_printf(
      "%" G_GUINT64_FORMAT " elements and their tree (up to %.3g hnodes with max-level %u and "
      "leaf-elements %" G_GUINT64_FORMAT ") need",
      h->elements, hnodes, h->max_level, h->leaf_elements);
  return lb_work_check_memory(
      work, (double)h->elements * LB_HTREE_ELEMENT_BYTES + hnodes * LB_HTREE_HNODE_BYTES, file,
      "elements", what, error);
}

double
lb_htree_full_hnodes(guint dim, guint level)
{
  double full = 0;
  for (guint l = 0; l <= level; l++)
    full += ldexp(1.0, (int)(dim * l));
  return full;
}

double
lb_htree_max_hnodes(guint dim, guint min_level, guint max_level, guint64 elements,
                    guint64 leaf_elements)
{
  double internal = 0;
  double split = floor((double)elements / ((double)leaf_elements + 1));
  for (guint l = 0; l < max_level; l++) {
    double level = ldexp(1.0, (int)(dim * l));
    internal += l < min_level ? level : MIN(level, split);
  }
  return 1 + ldexp(internal, (int)dim);
}

static gboolean
htree_load_work(LbWork *work, const char *file, const char *dir, GError **error)
{
  (void)dir;
  const LbParams *w = work->params;
  g_autofree Htree *h = g_new0(Htree, 1);
  h->dim = (guint)lb_params_get_int(w, "dim");
  h->min_level = (guint)lb_params_get_int(w, "min-level");
  h->max_level = (guint)lb_params_get_int(w, "max-level");
  h->poisson = strcmp(lb_params_get_string(w, "refine"), "poisson") == 0;
  h->boundary = strcmp(lb_params_get_string(w, "boundary"), "constant") == 0 ? LB_POISSON_CONSTANT
                                                                             : LB_POISSON_SINH;
  h->elements = (guint64)lb_params_get_int(w, "elements");
  h->leaf_elements = (guint64)lb_params_get_int(w, "leaf-elements");
  h->tolerance = lb_params_get_double(w, "tolerance");
  h->decay = lb_params_get_double(w, "tolerance-decay");
  const char *load = lb_params_get_string(w, "load");
  h->load = strcmp(load, "per-node") == 0   ? LOAD_PER_NODE
            : strcmp(load, "measured") == 0 ? LOAD_MEASURED
                                            : LOAD_CONSTANT;
  h->node_load = (guint64)lb_params_get_int(w, "node-load");
  h->node_load_max = (guint64)lb_params_get_int(w, "node-load-max");
  h->element_load = (guint64)lb_params_get_int(w, "element-load");
  h->bytes_per_element = lb_params_get_double(w, "bytes-per-element");
  work->dim = h->dim;
  work->bytes_per_unit = lb_params_get_double(w, "bytes-per-unit");
  work->flops_per_unit = lb_params_get_double(w, "flops-per-unit");
  work->ghost_depth = 0;
  /* the finest cells along each axis; the model's units are not cells */
  for (guint a = 0; a < LB_MAX_DIM; a++) {
    work->size[a] = a < h->dim ? 1ull << h->max_level : 1;
    work->procs[a] = 1;
  }
  work->cells = 0;
  if (!check_keys(work, h, file, error))
    return FALSE;
  /* a tree over the machine's memory is refused while it is being built:
   * tolerance 0 would otherwise refine all 4^max-level squares */
  double have = lb_machine_memory();
  h->budget = have > 0 ? (gsize)MIN(have / LB_HTREE_HNODE_BYTES, (double)G_MAXUINT32) : G_MAXUINT32;
  h->tree = build_step(work, h, 0, NULL);
  h->built = 0;
  /* the tolerance shrinks step by step, and the tree of a smaller one
   * holds the tree of a larger: the last step's is the largest, and it
   * must fit before the run starts rather than stop it on the way */
  guint last = work->steps > 0 ? work->steps - 1 : 0;
  g_autoptr(LbHtree) largest = NULL;
  if (h->tree != NULL && h->poisson && last > 0 && h->decay < 1)
    largest = build_step(work, h, last, NULL);
  const LbHtree *check = last > 0 && h->poisson && h->decay < 1 ? largest : h->tree;
  if (check == NULL || (have > 0 && (double)check->n * LB_HTREE_HNODE_BYTES > have)) {
    gsize n = check != NULL ? check->n : h->budget;
    guint step = h->tree == NULL ? 0 : last;
    g_autofree char *text = g_strdup_printf(
        "the tree of step %u %s %zu hnodes%s, about %.1f GiB, more than this machine's %.1f GiB%s",
        step, check != NULL ? "has" : "would have", n, check != NULL ? "" : " or more",
        (double)n * LB_HTREE_HNODE_BYTES / 0x1p30, have / 0x1p30,
        step > 0 ? "; raise tolerance or tolerance-decay, run fewer steps, or lower max-level"
                 : "");
    const char *key = h->poisson ? (step > 0 ? "tolerance-decay" : "tolerance") : "max-level";
    htree_free(g_steal_pointer(&h));
    return lb_workload_fail(error, file, key, "%s", text);
  }
  work->memory = MAX(work->memory, (double)check->n * LB_HTREE_HNODE_BYTES);
  work->data = g_steal_pointer(&h);
  return TRUE;
}

const LbModel lb_htree_model = {
    .name = "htree",
    .summary = "the H-tree of an irregular problem: a quadtree or octree over elements placed by "
               "the pattern (or the seed's adaptive multigrid squares), rebuilt at every "
               "adaptation step; units are all hnodes",
    .offers = LB_CAP_TREE,
    .params = htree_params,
    .patterns = TRUE,
    .load = htree_load_work,
    .free_data = htree_free,
    .initial_units = htree_initial_units,
    .describe_start = htree_describe_start,
    .update = htree_update,
    .total_units = htree_total_units,
    /* no conserve: the default's count, load and id checksum. The elements
     * of a region are a function of its id under the step's tree, the one
     * both sides of the check are taken under, so mixing them into the
     * checksum would catch nothing more */
    .leaves = htree_leaves,
    .bytes = htree_bytes,
};
