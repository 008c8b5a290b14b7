/* The cut hierarchy shared by lbd and mlb-nd (cuts.h). */
#include <string.h>

#include "balancers/cuts/cuts.h"
#include "balancers/cuts/tdg.h"
#include "lbsim/model.h"

struct _LbCutTable {
  gint refs;
  guint dim;
  guint order[3];
  guint64 parts[3], extent[3];
  guint64 *cut[3];
  GBytes *gathered; /* what an allgather brought (its cache key), or NULL */
};

static LbCutTable *
table_ref(LbCutTable *t)
{
  g_atomic_int_inc(&t->refs);
  return t;
}

static void
table_unref(LbCutTable *t)
{
  if (t == NULL || !g_atomic_int_dec_and_test(&t->refs))
    return;
  for (guint l = 0; l < 3; l++)
    g_free(t->cut[l]);
  if (t->gathered != NULL)
    g_bytes_unref(t->gathered);
  g_free(t);
}

void
lb_cuts_free(gpointer state)
{
  LbCuts *s = state;
  table_unref(s->table);
  for (guint l = 0; l < 3; l++)
    g_free(s->own[l]);
  GArray *spare = lb_unit_share_release(s->sent);
  if (spare != NULL)
    g_array_unref(spare);
  if (s->spans != NULL)
    g_array_unref(s->spans);
  if (s->peers != NULL)
    g_array_unref(s->peers);
  g_free(s);
}

/* Grid coordinate of rank r along axis a. */
guint64
lb_cuts_coord(const LbCuts *s, guint r, guint a)
{
  return (r / s->stride[a]) % s->procs[a];
}

/* The index of the piece of level l that rank r is in (levels above l). */
gsize
lb_cuts_piece(const LbCuts *s, guint r, guint l)
{
  gsize index = 0;
  for (guint k = 0; k < l; k++)
    index = index * s->parts[k] + lb_cuts_coord(s, r, s->order[k]);
  return index;
}

static gsize
pieces(const LbCuts *s, guint l)
{
  gsize n = 1;
  for (guint k = 0; k < l; k++)
    n *= s->parts[k];
  return n;
}

guint64 *
lb_cuts_row(const LbCuts *s, guint l, gsize index)
{
  if ((int)l == s->alt_level && index == s->alt_index)
    return (guint64 *)s->alt_row;
  if (index == s->own_index[l])
    return s->own[l];
  return s->table->cut[l] + index * (s->parts[l] + 1);
}

static gboolean
same_shape(const LbCutTable *t, const LbCuts *s)
{
  return t->dim == s->dim && memcmp(t->order, s->order, sizeof t->order) == 0 &&
         memcmp(t->parts, s->parts, sizeof t->parts) == 0 &&
         memcmp(t->extent, s->extent, sizeof t->extent) == 0;
}

static LbCutTable *
table_new(const LbCuts *s)
{
  LbCutTable *t = g_new0(LbCutTable, 1);
  t->refs = 1;
  t->dim = s->dim;
  memcpy(t->order, s->order, sizeof t->order);
  memcpy(t->parts, s->parts, sizeof t->parts);
  memcpy(t->extent, s->extent, sizeof t->extent);
  for (guint l = 0; l < s->dim; l++)
    t->cut[l] = g_new(guint64, pieces(s, l) * (s->parts[l] + 1));
  return t;
}

/* My pieces' rows, from the table. */
static void
take_own_rows(LbCuts *s)
{
  for (guint l = 0; l < s->dim; l++) {
    gsize w = s->parts[l] + 1;
    s->own_index[l] = lb_cuts_piece(s, (guint)s->me, l);
    g_free(s->own[l]);
    s->own[l] = g_memdup2(s->table->cut[l] + s->own_index[l] * w, w * sizeof(guint64));
  }
}

/* Equal cuts everywhere, the processor grid's blocks: one table per shape
 * for all ranks (the simulator's memory; every rank knows these cuts). */
static GPtrArray *uniform_tables;

static void
uniform_cuts(LbCuts *s)
{
  LbCutTable *t = NULL;
  for (guint i = 0; uniform_tables != NULL && i < uniform_tables->len && t == NULL; i++)
    if (same_shape(uniform_tables->pdata[i], s))
      t = uniform_tables->pdata[i];
  if (t == NULL) {
    t = table_new(s);
    for (guint l = 0; l < s->dim; l++) {
      gsize rows = pieces(s, l), w = s->parts[l] + 1;
      for (gsize i = 0; i < rows; i++)
        for (guint64 k = 0; k < w; k++)
          t->cut[l][i * w + k] =
              (guint64)(((unsigned __int128)s->extent[s->order[l]] * k) / s->parts[l]);
    }
    if (uniform_tables == NULL)
      uniform_tables = g_ptr_array_new();
    g_ptr_array_add(uniform_tables, t); /* the list's reference, for the process */
  }
  table_unref(s->table);
  s->table = table_ref(t);
  take_own_rows(s);
}

LbdBox
lb_cuts_box(const LbCuts *s, guint r)
{
  LbdBox b = {{0, 0, 0}, {1, 1, 1}};
  gsize index = 0;
  for (guint l = 0; l < s->dim; l++) {
    guint a = s->order[l];
    guint64 k = lb_cuts_coord(s, r, a);
    const guint64 *c = lb_cuts_row(s, l, index);
    b.lo[a] = c[k];
    b.hi[a] = c[k + 1];
    index = index * s->parts[l] + k;
  }
  return b;
}

void
lb_cuts_set_order(LbCuts *s, const guint *order)
{
  for (guint l = 0; l < s->dim; l++) {
    s->order[l] = order[l];
    s->parts[l] = s->procs[order[l]];
  }
  uniform_cuts(s);
}

/* A copy of the hierarchy (to remember the boxes cells move from). */
LbCuts *
lb_cuts_new(LbRank *self, gboolean last_fastest)
{
  const LbWork *work = lb_rank_work(self);
  LbCuts *s = g_new0(LbCuts, 1);
  s->alt_level = -1;
  s->spans = g_array_new(FALSE, FALSE, sizeof(LbUnitSpan));
  s->peers = g_array_new(FALSE, FALSE, sizeof(guint));
  s->dim = work->dim;
  s->ranks = (guint)lb_rank_count(self);
  s->me = lb_rank_id(self);
  for (guint a = 0; a < 3; a++) {
    s->procs[a] = a < s->dim ? work->procs[a] : 1;
    s->extent[a] = a < s->dim ? work->size[a] : 1;
  }
  guint64 stride = 1;
  for (guint i = 0; i < 3; i++) {
    guint a = last_fastest ? 2 - i : i;
    s->stride[a] = stride;
    stride *= s->procs[a];
  }
  guint order[3] = {0, 1, 2};
  lb_cuts_set_order(s, order);
  LbdBox mine = lb_cuts_box(s, (guint)s->me);
  g_assert_cmpuint(lb_rank_units(self)->len, ==, lbd_box_cells(&mine, s->dim));
  return s;
}

LbCuts *
lb_cuts_copy(const LbCuts *s)
{
  LbCuts *c = g_memdup2(s, sizeof *s);
  c->sent = NULL;
  c->spans = c->peers = NULL;
  c->table = table_ref(s->table);
  for (guint l = 0; l < s->dim; l++)
    c->own[l] = g_memdup2(s->own[l], sizeof(guint64) * (s->parts[l] + 1));
  return c;
}

/* Appends the ranks whose boxes meet `box`, inside the piece of level
 * `from` given by index and the coordinates fixed so far (rank_part). */
static void
meeting(const LbCuts *s, guint l, gsize index, guint64 rank_part, const LbdBox *box, GArray *out)
{
  if (l == s->dim) {
    guint r = (guint)rank_part;
    g_array_append_val(out, r);
    return;
  }
  guint a = s->order[l];
  const guint64 *c = lb_cuts_row(s, l, index);
  for (guint64 k = 0; k < s->parts[l]; k++)
    if (c[k] < c[k + 1] && c[k] < box->hi[a] && c[k + 1] > box->lo[a])
      meeting(s, l + 1, index * s->parts[l] + k, rank_part + k * s->stride[a], box, out);
}

static int
compare_guint(gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *)a, y = *(const guint *)b;
  return x < y ? -1 : x > y;
}

/* The spans of `cells` (the cells of `box`, sorted by id) that hold
 * `part`, a box inside `box`: runs along the first axis, with their ids in
 * a field of `extent` cells. */
static void
box_spans(const LbdBox *box, const LbdBox *part, const guint64 *extent, GArray *out)
{
  guint64 wx = box->hi[0] - box->lo[0], wy = box->hi[1] - box->lo[1];
  guint64 run = part->hi[0] - part->lo[0];
  g_array_set_size(out, 0);
  for (guint64 z = part->lo[2]; z < part->hi[2]; z++)
    for (guint64 y = part->lo[1]; y < part->hi[1]; y++) {
      LbUnitSpan span = {(part->lo[0] - box->lo[0]) +
                             wx * ((y - box->lo[1]) + wy * (z - box->lo[2])),
                         run, part->lo[0] + extent[0] * (y + extent[1] * z)};
      g_array_append_val(out, span);
    }
}

static LbdBox
intersect(const LbdBox *a, const LbdBox *b)
{
  LbdBox c;
  for (guint i = 0; i < 3; i++) {
    c.lo[i] = MAX(a->lo[i], b->lo[i]);
    c.hi[i] = MAX(c.lo[i], MIN(a->hi[i], b->hi[i]));
  }
  return c;
}

/* The ranks of my piece of level `from` whose boxes under h meet `box`. */
static void
meeting_in_piece(const LbCuts *h, int me, guint from, const LbdBox *box, GArray *out)
{
  guint64 fixed = 0;
  for (guint l = 0; l < from; l++)
    fixed += lb_cuts_coord(h, (guint)me, h->order[l]) * h->stride[h->order[l]];
  meeting(h, from, lb_cuts_piece(h, (guint)me, from), fixed, box, out);
}

/* Moves cells from the boxes of `old` to those of s, inside the piece of
 * level `from` that holds this rank. A rank knows both hierarchies, so it
 * knows whom to send which box of cells, and whom to expect cells from. */
void
lb_cuts_repartition(LbRank *self, LbCuts *s, const LbCuts *old, guint from, int tag, guint round,
                    guint64 *load)
{
  LbdBox was = lb_cuts_box(old, (guint)s->me), mine = lb_cuts_box(s, (guint)s->me);
  /* the same box: both hierarchies are partitions, so no other box met
   * mine before or meets it now, and nothing moves in or out */
  if (memcmp(&was, &mine, sizeof was) == 0)
    return;
  /* my units go out as a share that the messages refer to (no copy), and
   * stay as they are until every receiver has read them: the array of the
   * move before is reused for the new units when no message holds it */
  GArray *fresh = lb_unit_share_release(s->sent);
  s->sent =
      lb_rank_share_units(self, fresh != NULL ? fresh : g_array_new(FALSE, FALSE, sizeof(LbUnit)));
  const LbUnit *held = lb_unit_share_units(s->sent, NULL);
  GArray *targets = s->peers;
  g_array_set_size(targets, 0);
  meeting_in_piece(s, s->me, from, &was, targets);
  GArray *spans = s->spans;
  for (guint i = 0; i < targets->len; i++) { /* ascending: runs repeat byte for byte */
    guint dst = g_array_index(targets, guint, i);
    LbdBox theirs = lb_cuts_box(s, dst);
    if ((int)dst == s->me || !lbd_boxes_meet(&theirs, &was, s->dim))
      continue;
    LbdBox part = intersect(&was, &theirs);
    box_spans(&was, &part, s->extent, spans);
    if (lb_rank_narrating(self)) {
      g_autoptr(GString) where = g_string_new(NULL);
      for (guint a = 0; a < s->dim; a++)
        g_string_append_printf(where, "%s%c %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT,
                               a ? ", " : "", "xyz"[a], part.lo[a], part.hi[a] - 1);
      lb_narrate_label(self, "a piece of my block: %" G_GUINT64_FORMAT " cells, %s",
                       lbd_box_cells(&part, s->dim), where->str);
    }
    lb_send_unit_spans(self, (int)dst, tag, round, s->sent, (const LbUnitSpan *)spans->data,
                       spans->len);
  }
  /* my new box's cells, each put where its id belongs (no sort): the ones
   * I keep straight from the old array, the others as they arrive */
  const LbWork *work = lb_rank_work(self);
  guint64 cells_now = lbd_box_cells(&mine, s->dim);
  GArray *now = lb_rank_units(self);
  g_array_set_size(now, (guint)cells_now);
  guint64 wx = mine.hi[0] - mine.lo[0], wy = mine.hi[1] - mine.lo[1];
  guint64 placed = 0, sum = 0;
  if (lbd_boxes_meet(&was, &mine, s->dim)) {
    LbdBox part = intersect(&was, &mine);
    guint64 owx = was.hi[0] - was.lo[0], owy = was.hi[1] - was.lo[1];
    guint64 run = part.hi[0] - part.lo[0];
    for (guint64 z = part.lo[2]; z < part.hi[2]; z++)
      for (guint64 y = part.lo[1]; y < part.hi[1]; y++) {
        guint64 from_at =
            (part.lo[0] - was.lo[0]) + owx * ((y - was.lo[1]) + owy * (z - was.lo[2]));
        guint64 to_at = (part.lo[0] - mine.lo[0]) + wx * ((y - mine.lo[1]) + wy * (z - mine.lo[2]));
        memcpy(&g_array_index(now, LbUnit, to_at), held + from_at, run * sizeof(LbUnit));
        for (guint64 i = 0; i < run; i++)
          sum += held[from_at + i].load;
        placed += run;
      }
  }
  /* senders: the old boxes of my piece that meet my new box (the levels
   * above may have left the whole piece empty) */
  GArray *senders = s->peers;
  g_array_set_size(senders, 0);
  meeting_in_piece(old, s->me, from, &mine, senders);
  guint64 nx = work->size[0], ny = s->dim > 1 ? work->size[1] : 1;
  for (guint i = 0; i < senders->len; i++) {
    guint src = g_array_index(senders, guint, i);
    LbdBox theirs = lb_cuts_box(old, src);
    if ((int)src == s->me || !lbd_boxes_meet(&theirs, &mine, s->dim))
      continue;
    const LbUnit *in;
    const LbUnitSpan *runs;
    guint n_runs;
    LbMsg *msg = lb_recv_unit_spans(self, (int)src, tag, &in, &runs, &n_runs);
    for (guint j = 0; j < n_runs; j++) {
      /* a run along x: one place, one copy */
      const LbUnit *run = in + runs[j].at;
      gsize n = runs[j].n;
      if (n == 0)
        continue;
      guint64 id = runs[j].id, x = id % nx, y = (id / nx) % ny, z = id / (nx * ny);
      guint64 at = (x - mine.lo[0]) + wx * ((y - mine.lo[1]) + wy * (z - mine.lo[2]));
      g_assert(at + n <= cells_now);
      LbUnit *to = &g_array_index(now, LbUnit, at);
      memcpy(to, run, n * sizeof(LbUnit));
      /* a run from its id, as the sender promised */
      g_assert(to[0].id == id && to[n - 1].id == id + (n - 1));
      for (gsize k = 0; k < n; k++)
        sum += to[k].load;
      placed += n;
    }
    lb_msg_free(msg); /* and with it the reference to the sender's units */
  }
  g_assert_cmpuint(placed, ==, cells_now);
  lb_wait_sends(self);
  if (load != NULL)
    *load = sum;
}

/* The members of my piece of level l (ranks that share the coordinates of
 * the levels above), ascending. */
int *
lb_cuts_piece_members(const LbCuts *s, guint l, guint *n)
{
  GArray *m = g_array_new(FALSE, FALSE, sizeof(int));
  /* the free axes are the levels l and below */
  guint64 base = 0;
  for (guint k = 0; k < l; k++)
    base += lb_cuts_coord(s, (guint)s->me, s->order[k]) * s->stride[s->order[k]];
  guint64 count = 1;
  for (guint k = l; k < s->dim; k++)
    count *= s->parts[k];
  for (guint64 i = 0; i < count; i++) {
    guint64 rest = i, r = base;
    for (guint k = l; k < s->dim; k++) {
      r += (rest % s->parts[k]) * s->stride[s->order[k]];
      rest /= s->parts[k];
    }
    int x = (int)r;
    g_array_append_val(m, x);
  }
  g_array_sort(m, (GCompareFunc)compare_guint);
  *n = m->len;
  return (int *)g_array_free(m, FALSE);
}

/* The application's neighbour graph. In 2D, BUILD_UNDIRECTED_TDG on the
 * cuts: columns are the first level's slabs, their subsets the second's.
 * In 3D, the boxes that meet mine grown by one cell along each axis in
 * turn, found down the cut hierarchy. Each edge carries the faces the two
 * boxes share; returns the number of neighbours. */
guint
lb_cuts_build_graph(LbRank *self, const LbCuts *s)
{
  LbdBox mine = lb_cuts_box(s, (guint)s->me);
  g_autoptr(GArray) ranks = g_array_new(FALSE, FALSE, sizeof(guint));
  if (s->dim == 2) {
    /* after the gather, my rows are the table's */
    LbColumns p = {(guint)s->parts[0], (guint)s->parts[1], s->table->cut[0], s->table->cut[1]};
    guint c = (guint)lb_cuts_coord(s, (guint)s->me, s->order[0]);
    guint r = (guint)lb_cuts_coord(s, (guint)s->me, s->order[1]);
    g_autoptr(GArray) subsets = g_array_new(FALSE, FALSE, sizeof(guint));
    lb_tdg_neighbours(&p, c * p.nrows + r, subsets);
    for (guint i = 0; i < subsets->len; i++) {
      guint subset = g_array_index(subsets, guint, i);
      guint q = (guint)((subset / p.nrows) * s->stride[s->order[0]] +
                        (subset % p.nrows) * s->stride[s->order[1]]);
      g_array_append_val(ranks, q);
    }
  } else if (lbd_box_cells(&mine, s->dim) > 0) {
    for (guint a = 0; a < s->dim; a++) {
      LbdBox grown = mine;
      grown.lo[a] -= grown.lo[a] > 0;
      grown.hi[a] += grown.hi[a] < s->extent[a];
      meeting(s, 0, 0, 0, &grown, ranks);
    }
  }
  g_array_sort(ranks, compare_guint);
  g_autoptr(GArray) graph = g_array_new(FALSE, FALSE, sizeof(LbNeighbour));
  for (guint i = 0; i < ranks->len; i++) {
    guint q = g_array_index(ranks, guint, i);
    if ((int)q == s->me ||
        (graph->len > 0 && g_array_index(graph, LbNeighbour, graph->len - 1).rank == q))
      continue;
    LbdBox theirs = lb_cuts_box(s, q);
    /* cell coordinates stay far below 2^63: the boxes read as signed */
    LbNeighbour n = {q, lb_boxes_shared_faces((const gint64 *)mine.lo, (const gint64 *)mine.hi,
                                              (const gint64 *)theirs.lo, (const gint64 *)theirs.hi,
                                              s->dim)};
    g_assert(n.faces > 0);
    g_array_append_val(graph, n);
  }
  lb_rank_set_neighbours(self, (const LbNeighbour *)graph->data, graph->len);
  if (lb_rank_narrating(self)) {
    g_autoptr(GString) text = g_string_new(NULL);
    for (guint a = 0; a < s->dim; a++)
      g_string_append_printf(text, "%s[%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ")",
                             a ? " x " : "my box ", mine.lo[a], mine.hi[a]);
    g_string_append_printf(text, ": %u neighbour%s", graph->len, graph->len == 1 ? "" : "s");
    for (guint i = 0; i < graph->len; i++) {
      const LbNeighbour *n = &g_array_index(graph, LbNeighbour, i);
      g_string_append_printf(text, "%s rank %u (%" G_GUINT64_FORMAT " face%s)", i ? "," : ":",
                             n->rank, n->faces, n->faces == 1 ? "" : "s");
    }
    lb_narrate(self, "%s", text->str);
  }
  return graph->len;
}

/* The table an allgather of lower cuts makes: every rank gets the same
 * bytes (one block, lb_allgather_shared) and makes the same table, so the
 * simulator makes it once and the ranks share it (the last one made is
 * kept to compare with: the same block, or the same bytes again). */
static LbCutTable *last_gathered;

char *
lb_cuts_describe_piece(const LbCuts *s, guint l)
{
  if (l == 0)
    return g_strdup("the whole domain");
  LbdBox box = lb_cuts_box(s, (guint)s->me);
  GString *out = g_string_new("inside");
  for (guint k = 0; k < l; k++) {
    guint a = s->order[k];
    g_string_append_printf(out, "%s %c in [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ")",
                           k ? "," : "", "xyz"[a], box.lo[a], box.hi[a]);
  }
  return g_string_free(out, FALSE);
}

/* Every rank learns every piece's cuts: each sends the lower cut of its
 * box at every level below the first (the first's are everyone's already). */
void
lb_cuts_gather(LbRank *self, LbCuts *s)
{
  if (s->dim < 2)
    return;
  guint levels = s->dim - 1;
  g_autofree guint32 *mine = g_new(guint32, levels);
  LbdBox box = lb_cuts_box(s, (guint)s->me);
  for (guint l = 1; l < s->dim; l++)
    mine[l - 1] = (guint32)box.lo[s->order[l]];
  lb_narrate_labels(self, "the lower cuts of boxes inside their slabs (%u a rank)", levels);
  g_autoptr(GBytes) gathered = lb_allgather_shared(self, mine, sizeof(guint32) * levels);
  const guint32 *all = g_bytes_get_data(gathered, NULL);
  LbCutTable *t = last_gathered;
  gsize w0 = s->parts[0] + 1;
  gboolean same = t != NULL && same_shape(t, s) &&
                  (t->gathered == gathered || g_bytes_equal(t->gathered, gathered)) &&
                  memcmp(t->cut[0], s->own[0], w0 * sizeof(guint64)) == 0;
  if (same && t->gathered != gathered) {
    /* the same bytes in a new block (the first rank of a step): the
     * other ranks compare pointers with it */
    g_bytes_unref(t->gathered);
    t->gathered = g_bytes_ref(gathered);
  }
  if (!same) {
    t = table_new(s);
    /* the first level: mine, as everyone's */
    memcpy(t->cut[0], s->own[0], w0 * sizeof(guint64));
    /* rank r's grid coordinates, counted up from the fastest axis (no
     * divisions) */
    guint fast[3] = {0, 1, 2};
    for (guint i = 0; i < s->dim; i++)
      for (guint j = i + 1; j < s->dim; j++)
        if (s->stride[fast[j]] < s->stride[fast[i]]) {
          guint x = fast[i];
          fast[i] = fast[j];
          fast[j] = x;
        }
    guint64 c[3] = {0, 0, 0};
    for (guint r = 0; r < s->ranks; r++) {
      gsize index = 0;
      for (guint l = 1; l < s->dim; l++) {
        index = index * s->parts[l - 1] + c[s->order[l - 1]];
        t->cut[l][index * (s->parts[l] + 1) + c[s->order[l]]] = all[(gsize)r * levels + l - 1];
      }
      for (guint i = 0; i < s->dim && ++c[fast[i]] == s->procs[fast[i]]; i++)
        c[fast[i]] = 0;
    }
    /* the upper ends, which no rank's lower cut gives */
    for (guint l = 1; l < s->dim; l++) {
      gsize w = s->parts[l] + 1;
      for (gsize i = 0; i < pieces(s, l); i++)
        t->cut[l][i * w + s->parts[l]] = s->extent[s->order[l]];
    }
    t->gathered = g_bytes_ref(gathered);
    table_unref(last_gathered);
    last_gathered = t; /* the cache's reference */
  }
  table_unref(s->table);
  s->table = table_ref(t);
  take_own_rows(s);
}

void
lb_cuts_add_profile(const LbCuts *s, const GArray *units, guint axis, guint64 base,
                    guint64 *profile)
{
  LbdBox box = lb_cuts_box(s, (guint)s->me);
  g_assert_cmpuint(units->len, ==, lbd_box_cells(&box, s->dim));
  const LbUnit *cell = (const LbUnit *)units->data;
  guint64 w0 = box.hi[0] - box.lo[0];
  for (guint64 z = box.lo[2]; z < box.hi[2]; z++)
    for (guint64 y = box.lo[1]; y < box.hi[1]; y++) {
      if (axis == 0) {
        guint64 *row = profile + (box.lo[0] - base);
        for (guint64 x = 0; x < w0; x++)
          row[x] += cell[x].load;
      } else {
        guint64 along = 0; /* the row's sum, kept out of memory */
        for (guint64 x = 0; x < w0; x++)
          along += cell[x].load;
        profile[(axis == 1 ? y : z) - base] += along;
      }
      cell += w0;
    }
}
