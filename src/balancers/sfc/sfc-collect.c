/* The application's collection of remote data on an SFC partition of an
 * H-tree (Baiardi, Chiti, Mori, Ricci 2001, sections 4 and 5.2-5.3): the
 * seed's three strategies as messages, on the stencil of sfc-stencil.c.
 *   request/answer     a rank asks the owner for every remote square it
 *                      needs (`ra-batch` requests per message) and gets
 *                      one answer message per request message;
 *   fault prevention   owners push, unasked, every hnode to every rank
 *                      whose segment meets the region across one of its
 *                      faces (a safe superset: the owner does not know how
 *                      deep the other side is), `merge` hnodes per message;
 *   informed           section 5.2: every rank announces to each owner the
 *                      boundary hnodes (place and depth) that have a
 *                      neighbouring square there; the owner keeps what it
 *                      heard and, from it and the replicated tree, pushes
 *                      exactly the hnodes that cover those squares,
 *                      unasked. After a rebalancing every boundary is
 *                      announced anew; after a step without one only what
 *                      changed (new grids of a refinement, pruned ones);
 *   informed-needs     lbsim's own, kept for comparison: every step each
 *                      rank sends each owner the squares it needs there,
 *                      then owners push the hnodes that cover them (in
 *                      effect a batched request).
 * Receivers learn how many messages reach them from a reduce-scatter of
 * counts (the seed's implementation sends np - 1 synchronisation messages
 * per rank instead, 16 million per exchange at 4096 ranks); in
 * informed-needs a push's first word tells how many messages its sender
 * sends, and in informed a rank stops receiving when every square it
 * needs is covered. Every rank checks that what it received covers every
 * square it needed. */
#include <string.h>
#include <xbt/log.h>

#include "balancers/sfc/sfc-collect.h"
#include "balancers/sfc/sfc-stencil.h"
#include "balancers/sort.h"
#include "balancers/sfc/sfc-plan.h"
#include "lbsim/model.h"
#include "workloads/htree.h"

XBT_LOG_EXTERNAL_CATEGORY(lb_sfc);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(lb_sfc_collect, lb_sfc,
                                "SFC data collection: each collection's time (debug)");

#define TAG_REQUEST 0x200
#define TAG_ANSWER 0x201
#define TAG_PUSH 0x202
#define TAG_DEPTH 0x203 /* once a step: TAG_OF's spacing leaves it to itself */

/* How many messages reach me, from the (rank d, messages I send to d)
 * pairs in to and counts (a rank may come more than once: its counts add
 * up): a reduce-scatter of the entries, no rank holding p words. Empties
 * both arrays, for the next use. */
static guint64
messages_to_me(LbRank *self, GArray *to, GArray *counts)
{
  g_assert(to->len == counts->len);
  guint64 n = lb_reduce_scatter_sum_u64_sparse(self, (const guint *)to->data,
                                               (const guint64 *)counts->data, to->len);
  g_array_set_size(to, 0);
  g_array_set_size(counts, 0);
  return n;
}

/* A (rank, messages) pair for messages_to_me. */
static void
count_to(GArray *to, GArray *counts, guint d, guint64 messages)
{
  g_array_append_val(to, d);
  g_array_append_val(counts, messages);
}

static double
data_bytes(const SfcView *v, guint n)
{
  return LB_HEADER_BYTES + n * (8.0 + v->bytes_per_hnode);
}

static double
id_bytes(guint n)
{
  return LB_HEADER_BYTES + n * 8.0;
}

/* Tags of the k-th collection of a step: each apart from the next's. */
#define TAG_OF(base, k) ((int)(base) + 16 * (int)(k))

/* Section 5.3's receive: an MPI_Irecv from any source, posted before the
 * rank sends and again after each message it takes, so that what the
 * others send it travels while it waits (with blocking receives each
 * transfer would start only when its receive asked for it, one after
 * another: 15 pushes of 15 points took 15 latencies on the T3E instead of
 * one and their bytes). */
typedef struct {
  LbRank *self;
  int tag;
  LbRequest *req;
} Inbox;

static void
inbox_open(Inbox *in, LbRank *self, int tag)
{
  *in = (Inbox){self, tag, lb_irecv(self, LB_ANY_SOURCE, tag)};
}

static LbMsg *
inbox_take(Inbox *in)
{
  LbMsg *msg = lb_wait(in->self, in->req);
  lb_request_free(in->req);
  in->req = lb_irecv(in->self, LB_ANY_SOURCE, in->tag);
  return msg;
}

static void
inbox_close(Inbox *in)
{
  g_clear_pointer(&in->req, lb_request_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Inbox, inbox_close)

/* ---- the V-cycle's collections ---- */

/* The bucket of an hnode or a square: its level when the step collects
 * level by level, else 0 (one bucket for every level). */
static inline guint
bucket_of(const SfcView *v, guint64 id)
{
  return v->by_level ? (guint)(63 - __builtin_clzll(id)) / v->dim : 0;
}

static guint
buckets_of(const SfcView *v)
{
  return v->by_level ? v->deepest + 1 : 1;
}

/* One collection of the step: an operator's, on one bucket. */
typedef struct {
  guint op, bucket;
} Phase;

/* The step's collections in the V-cycle's order: the first half of the
 * operators (pre-smoothing, restriction) on each level from the deepest
 * to the root's, then the others (prolongation, post-smoothing) back
 * down; with one bucket, the operators in turn. */
static GArray *
phases_of(const SfcView *v)
{
  guint nb = buckets_of(v), down = (v->operators + 1) / 2;
  GArray *phases = g_array_sized_new(FALSE, FALSE, sizeof(Phase), nb * v->operators);
  for (guint b = nb; b-- > 0;)
    for (guint op = 0; op < down; op++) {
      Phase ph = {op, b};
      g_array_append_val(phases, ph);
    }
  for (guint b = 0; b < nb; b++)
    for (guint op = down; op < v->operators; op++) {
      Phase ph = {op, b};
      g_array_append_val(phases, ph);
    }
  return phases;
}

/* The load of my hnodes in each bucket. */
static double *
bucket_loads(const SfcView *v)
{
  double *loads = g_new0(double, buckets_of(v));
  for (guint i = 0; i < v->seq->len; i++) {
    const SfcHnode *h = &g_array_index(v->seq, SfcHnode, i);
    loads[bucket_of(v, h->id)] += (double)h->load;
  }
  return loads;
}

/* What follows a collection level by level: the operator on my hnodes of
 * that level, its share of their work (section 5.2: "The values of points
 * in I_h(op, l) are exchanged among the processes just before the
 * application of op"). With one bucket the core computes after. */
static void
compute_phase(LbRank *self, const SfcView *v, const double *loads, const Phase *ph, double start)
{
  double exchanged = lb_now();
  if (v->by_level)
    lb_app_compute(self, loads[ph->bucket] * v->flops_per_load / v->operators);
  if (v->by_level)
    XBT_DEBUG("step %u, rank %d, operator %u, level %u: %.9f s collecting, %.9f s computing",
              lb_rank_adaptation(self), v->me, ph->op, ph->bucket, exchanged - start,
              lb_now() - exchanged);
  else
    XBT_DEBUG("step %u, rank %d, operator %u, every level: %.9f s collecting",
              lb_rank_adaptation(self), v->me, ph->op, exchanged - start);
}

/* Section 5.3's end of a collection: "After sending A_h I_k(op, l) for
 * any k, P_h broadcasts, through np - 1 MPI_Isend, a synchronization
 * message and it continues to receive data from its partners. Since P_h
 * does not know how many data it will receive, it waits for the
 * synchronization message from all the other processes." An empty
 * message on the collection's tag, after the rank's pushes: one sender's
 * messages are taken in the order it sent them. */
static void
send_syncs(LbRank *self, const SfcView *v, int tag, SfcCollected *out)
{
  for (guint k = 1; k < v->p; k++) {
    lb_send(self, (int)(((guint)v->me + k) % v->p), tag, NULL, 0, LB_HEADER_BYTES);
    out->sync_messages++;
  }
}

/* A rank's needs split by bucket: the squares (SfcSquare, by key) and
 * their owners (guint), each array a GPtrArray's entry b. */
static void
split_needs(const SfcView *v, const GArray *needs, const GArray *owners, GPtrArray *squares,
            GPtrArray *by_owner)
{
  guint nb = buckets_of(v);
  g_autofree guint *sizes = g_new0(guint, nb);
  for (guint i = 0; i < needs->len; i++)
    sizes[bucket_of(v, g_array_index(needs, SfcSquare, i).id)]++;
  for (guint b = 0; b < nb; b++) {
    g_ptr_array_add(squares, g_array_sized_new(FALSE, FALSE, sizeof(SfcSquare), sizes[b]));
    g_ptr_array_add(by_owner, g_array_sized_new(FALSE, FALSE, sizeof(guint), sizes[b]));
  }
  for (guint i = 0; i < needs->len; i++) {
    const SfcSquare *s = &g_array_index(needs, SfcSquare, i);
    guint b = bucket_of(v, s->id);
    g_array_append_val(squares->pdata[b], *s);
    g_array_append_val(by_owner->pdata[b], g_array_index(owners, guint, i));
  }
}

static GPtrArray *
arrays_new(void)
{
  return g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
}

/* One hnode to push in a bucket's collections: to whom, and its index in
 * my segment. */
typedef struct {
  guint bucket, dest, at;
} Push;

static inline gboolean
push_before(const Push *x, const Push *y)
{
  if (x->bucket != y->bucket)
    return x->bucket < y->bucket;
  return x->dest != y->dest ? x->dest < y->dest : x->at < y->at;
}

LB_DEFINE_SORT(sort_pushes, Push, push_before)

/* Sorts the pushes by bucket, destination and index (my segment's order,
 * the keys': a receiver's searches go on from one message to the next),
 * once each; returns where each bucket's run starts (nb + 1 entries). */
static guint *
push_runs(GArray *pushes, guint nb)
{
  Push *p = (Push *)pushes->data;
  sort_pushes(p, pushes->len);
  guint w = 0;
  for (guint i = 0; i < pushes->len; i++)
    if (w == 0 || push_before(&p[w - 1], &p[i]))
      p[w++] = p[i];
  g_array_set_size(pushes, w);
  guint *runs = g_new(guint, nb + 1);
  guint i = 0;
  for (guint b = 0; b <= nb; b++) {
    while (i < w && p[i].bucket < b)
      i++;
    runs[b] = i;
  }
  return runs;
}

/* Pushes p[from..to) (one bucket's, by destination), `merge` hnodes a
 * message; with count_word the first word of each tells how many
 * messages its destination gets in this collection. */
static void
send_pushes(LbRank *self, const SfcView *v, const Push *p, guint from, guint to, int tag,
            gboolean count_word, SfcCollected *out)
{
  g_autofree guint64 *buf = g_new(guint64, v->merge + 1);
  for (guint i = from; i < to;) {
    guint d = p[i].dest, j = i;
    while (j < to && p[j].dest == d)
      j++;
    guint64 messages = (j - i + v->merge - 1) / v->merge;
    for (guint k = i; k < j; k += v->merge) {
      guint m = MIN(v->merge, j - k), w = 0;
      if (count_word)
        buf[w++] = messages;
      for (guint x = 0; x < m; x++)
        buf[w++] = sfc_tagged(v, p[k + x].at);
      lb_send(self, (int)d, tag, buf, w * sizeof(guint64),
              data_bytes(v, m) + (count_word ? 8.0 : 0.0));
      out->data_messages++;
      out->hnodes_sent += m;
    }
    i = j;
  }
}

/* How many push messages of each bucket reach me: a reduce-scatter per
 * bucket, once a step (every operator pushes the same). */
static guint64 *
pushes_to_me(LbRank *self, const SfcView *v, const GArray *pushes, const guint *runs)
{
  guint nb = buckets_of(v);
  const Push *p = (const Push *)pushes->data;
  guint64 *incoming = g_new(guint64, nb);
  g_autoptr(GArray) to = g_array_new(FALSE, FALSE, sizeof(guint));
  g_autoptr(GArray) counts = g_array_new(FALSE, FALSE, sizeof(guint64));
  for (guint b = 0; b < nb; b++) {
    for (guint i = runs[b]; i < runs[b + 1];) {
      guint j = i;
      while (j < runs[b + 1] && p[j].dest == p[i].dest)
        j++;
      count_to(to, counts, p[i].dest, (j - i + v->merge - 1) / v->merge);
      i = j;
    }
    incoming[b] = messages_to_me(self, to, counts);
  }
  return incoming;
}

static void
request_answer(LbRank *self, const SfcView *v, SfcCollected *out)
{
  g_autoptr(GArray) owners = g_array_new(FALSE, FALSE, sizeof(guint));
  g_autoptr(GArray) faces = sfc_remote_faces(v);
  g_autoptr(GArray) needs = sfc_remote_needs(v, faces, owners);
  g_autoptr(GPtrArray) squares = arrays_new(), by_owner = arrays_new(), batches = arrays_new();
  split_needs(v, needs, owners, squares, by_owner);
  guint nb = buckets_of(v);
  g_autofree guint64 *incoming = g_new(guint64, nb);
  g_autoptr(GArray) to = g_array_new(FALSE, FALSE, sizeof(guint));
  g_autoptr(GArray) counts = g_array_new(FALSE, FALSE, sizeof(guint64));
  for (guint b = 0; b < nb; b++) {
    /* requests go out per owner in batches; owners come in key order, so
     * each owner's squares are one run: the batches, as [from, to) */
    const GArray *sq = squares->pdata[b], *ow = by_owner->pdata[b];
    GArray *bt = g_array_new(FALSE, FALSE, sizeof(guint) * 2);
    g_ptr_array_add(batches, bt);
    for (guint i = 0; i < sq->len;) {
      guint owner = g_array_index(ow, guint, i), j = i;
      while (j < sq->len && j - i < v->ra_batch && g_array_index(ow, guint, j) == owner)
        j++;
      count_to(to, counts, owner, 1);
      guint range[2] = {i, j};
      g_array_append_vals(bt, range, 1);
      i = j;
    }
    /* the same requests every operator: how many reach me, once */
    incoming[b] = messages_to_me(self, to, counts);
  }
  g_autofree double *loads = bucket_loads(v);
  g_autoptr(GArray) phases = phases_of(v);
  for (guint k = 0; k < phases->len; k++) {
    const Phase *ph = &g_array_index(phases, Phase, k);
    double start = lb_now();
    const GArray *sq = squares->pdata[ph->bucket], *ow = by_owner->pdata[ph->bucket];
    const GArray *bt = batches->pdata[ph->bucket];
    g_auto(Inbox) requests, answers;
    inbox_open(&requests, self, TAG_OF(TAG_REQUEST, k));
    inbox_open(&answers, self, TAG_OF(TAG_ANSWER, k));
    for (guint b = 0; b < bt->len; b++) {
      const guint *range = (const guint *)bt->data + 2 * b;
      g_autofree guint64 *ids = g_new(guint64, range[1] - range[0]);
      for (guint j = range[0]; j < range[1]; j++)
        ids[j - range[0]] = g_array_index(sq, SfcSquare, j).id;
      lb_send(self, (int)g_array_index(ow, guint, range[0]), TAG_OF(TAG_REQUEST, k), ids,
              (range[1] - range[0]) * sizeof(guint64), id_bytes(range[1] - range[0]));
      out->control_messages++;
      out->announced += range[1] - range[0];
    }
    /* serve the requests that come, one answer message each */
    for (guint64 r = 0; r < incoming[ph->bucket]; r++) {
      g_autoptr(LbMsg) msg = inbox_take(&requests);
      guint n = (guint)(msg->len / sizeof(guint64));
      g_autofree guint64 *answer = g_new(guint64, MAX(n, 1));
      for (guint i = 0; i < n; i++) {
        guint64 id;
        memcpy(&id, msg->data + i * sizeof(guint64), sizeof id);
        answer[i] = sfc_tagged(v, sfc_covering(v, sfc_key(v->curve, v->dim, v->order, id)));
      }
      lb_send(self, msg->src, TAG_OF(TAG_ANSWER, k), answer, n * sizeof(guint64), data_bytes(v, n));
      out->data_messages++;
      out->hnodes_sent += n;
    }
    g_autoptr(GArray) got = g_array_new(FALSE, FALSE, sizeof(SfcSquare));
    for (guint b = 0; b < bt->len; b++) {
      g_autoptr(LbMsg) msg = inbox_take(&answers);
      sfc_keep_received(v, got, msg->data, (guint)(msg->len / sizeof(guint64)));
    }
    out->needed += sq->len;
    out->received += got->len;
    out->useless += sfc_check_coverage(v, sq, got);
    compute_phase(self, v, loads, ph, start);
  }
  out->phases += phases->len;
}

/* Pushes of the collection until every other rank's synchronisation
 * message came. */
static void
receive_until_synced(Inbox *inbox, const SfcView *v, GArray *got)
{
  for (guint synced = 0; synced + 1 < v->p;) {
    g_autoptr(LbMsg) msg = inbox_take(inbox);
    if (msg->len == 0)
      synced++;
    else
      sfc_keep_received(v, got, msg->data, (guint)(msg->len / sizeof(guint64)));
  }
}

/* Fault prevention: every hnode of mine goes, unasked, to every rank
 * whose segment meets the region across one of its faces. Level by level
 * it goes in its own level's collections, and a leaf in every deeper
 * level's too: the square across one of the receiver's hnodes of such a
 * level may lie inside it, and without the receiver's depths (section
 * 5.2: "P_h computes an approximation A_h I_k(op, l) of I_k(op, l) that,
 * because of safety, includes all the squares that could be a neighbor of
 * a square at level l in Do(P_k)") its owner cannot know. */
static void
fault_prevention(LbRank *self, const SfcView *v, SfcCollected *out)
{
  guint nb = buckets_of(v);
  g_autoptr(GArray) pushes = g_array_new(FALSE, FALSE, sizeof(Push));
  guint64 faces[6];
  const SfcHnode *h = (const SfcHnode *)v->seq->data;
  for (guint i = 0; i < v->seq->len; i++) {
    guint n = sfc_face_squares(v->dim, h[i].id, faces);
    guint b = bucket_of(v, h[i].id), last = v->by_level && sfc_is_leaf(v, i) ? nb - 1 : b;
    for (guint k = 0; k < n; k++) {
      /* every rank whose segment meets the square's subtree: the keys
       * from the square's to the last of its region */
      guint64 c[3];
      guint level = lb_htree_decode(faces[k], v->dim, c);
      guint64 lo = sfc_key(v->curve, v->dim, v->order, faces[k]);
      guint64 span = G_GUINT64_CONSTANT(1) << (v->dim * (v->order - level));
      guint64 hi = ((lo >> 5) + span) << 5;
      int first = sfc_owner(v->starts, v->p, lo), end = sfc_owner(v->starts, v->p, hi - 1);
      for (int d = first; d <= end; d++)
        if (d != v->me)
          for (guint bb = b; bb <= last; bb++) {
            Push p = {bb, (guint)d, i};
            g_array_append_val(pushes, p);
          }
    }
  }
  /* an hnode may reach a destination over several faces: once each */
  g_autofree guint *runs = push_runs(pushes, nb);
  g_autofree guint64 *incoming = v->sync_messages ? NULL : pushes_to_me(self, v, pushes, runs);
  g_autoptr(GArray) owners = g_array_new(FALSE, FALSE, sizeof(guint));
  g_autoptr(GArray) remote = sfc_remote_faces(v);
  g_autoptr(GArray) needs = sfc_remote_needs(v, remote, owners);
  g_autoptr(GPtrArray) squares = arrays_new(), by_owner = arrays_new();
  split_needs(v, needs, owners, squares, by_owner);
  g_autofree double *loads = bucket_loads(v);
  g_autoptr(GArray) phases = phases_of(v);
  for (guint k = 0; k < phases->len; k++) {
    const Phase *ph = &g_array_index(phases, Phase, k);
    double start = lb_now();
    const GArray *sq = squares->pdata[ph->bucket];
    g_auto(Inbox) inbox;
    inbox_open(&inbox, self, TAG_OF(TAG_PUSH, k));
    send_pushes(self, v, (const Push *)pushes->data, runs[ph->bucket], runs[ph->bucket + 1],
                TAG_OF(TAG_PUSH, k), FALSE, out);
    g_autoptr(GArray) got = g_array_new(FALSE, FALSE, sizeof(SfcSquare));
    if (v->sync_messages) {
      send_syncs(self, v, TAG_OF(TAG_PUSH, k), out);
      receive_until_synced(&inbox, v, got);
    } else
      for (guint64 r = 0; r < incoming[ph->bucket]; r++) {
        g_autoptr(LbMsg) msg = inbox_take(&inbox);
        sfc_keep_received(v, got, msg->data, (guint)(msg->len / sizeof(guint64)));
      }
    out->needed += sq->len;
    out->received += got->len;
    out->useless += sfc_check_coverage(v, sq, got);
    compute_phase(self, v, loads, ph, start);
  }
  out->phases += phases->len;
}

static void
list_add(GPtrArray *lists, guint d, guint64 value)
{
  GArray *l = lists->pdata[d];
  if (l == NULL)
    lists->pdata[d] = l = g_array_new(FALSE, FALSE, sizeof(guint64));
  if (l->len == 0 || g_array_index(l, guint64, l->len - 1) != value)
    g_array_append_val(l, value);
}

static void
free_list(gpointer l)
{
  if (l != NULL)
    g_array_unref(l);
}

/* The index of value in an ascending array of guint that holds it. */
static guint
position(const GArray *sorted, guint value)
{
  guint lo = 0, hi = sorted->len;
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    if (g_array_index(sorted, guint, mid) < value)
      lo = mid + 1;
    else
      hi = mid;
  }
  g_assert(lo < sorted->len && g_array_index(sorted, guint, lo) == value);
  return lo;
}

static void
informed_needs(LbRank *self, const SfcView *v, SfcCollected *out)
{
  g_autoptr(GArray) owners = g_array_new(FALSE, FALSE, sizeof(guint));
  g_autoptr(GArray) faces = sfc_remote_faces(v);
  g_autoptr(GArray) needs = sfc_remote_needs(v, faces, owners);
  /* the depth and place of every square needed from each owner: one
   * message per owner, once for all the operators of the step (the
   * paper's once per V-cycle) */
  g_autoptr(GPtrArray) asks = g_ptr_array_new_full(v->p, free_list);
  g_ptr_array_set_size(asks, (gint)v->p);
  for (guint i = 0; i < needs->len; i++)
    list_add(asks, g_array_index(owners, guint, i), g_array_index(needs, SfcSquare, i).id);
  g_autoptr(GArray) to = g_array_new(FALSE, FALSE, sizeof(guint));
  g_autoptr(GArray) counts = g_array_new(FALSE, FALSE, sizeof(guint64));
  for (guint d = 0; d < v->p; d++)
    if (asks->pdata[d] != NULL)
      count_to(to, counts, d, 1);
  guint64 incoming = messages_to_me(self, to, counts);
  g_auto(Inbox) lists;
  inbox_open(&lists, self, TAG_DEPTH);
  for (guint d = 0; d < v->p; d++) {
    GArray *l = asks->pdata[d];
    if (l == NULL)
      continue;
    lb_send(self, (int)d, TAG_DEPTH, l->data, l->len * sizeof(guint64), id_bytes(l->len));
    out->control_messages++;
    out->announced += l->len;
  }
  /* what each asker needs: the distinct hnodes covering its squares, in
   * the bucket of each square */
  g_autoptr(GArray) covers = g_array_new(FALSE, FALSE, sizeof(Push));
  for (guint64 k = 0; k < incoming; k++) {
    g_autoptr(LbMsg) msg = inbox_take(&lists);
    guint n = (guint)(msg->len / sizeof(guint64));
    for (guint i = 0; i < n; i++) {
      guint64 id;
      memcpy(&id, msg->data + i * sizeof(guint64), sizeof id);
      Push p = {bucket_of(v, id), (guint)msg->src,
                sfc_covering(v, sfc_key(v->curve, v->dim, v->order, id))};
      g_array_append_val(covers, p);
    }
  }
  guint nb = buckets_of(v);
  g_autofree guint *runs = push_runs(covers, nb);
  g_autoptr(GPtrArray) squares = arrays_new(), by_owner = arrays_new();
  split_needs(v, needs, owners, squares, by_owner);
  g_autofree double *loads = bucket_loads(v);
  g_autoptr(GArray) phases = phases_of(v);
  for (guint k = 0; k < phases->len; k++) {
    const Phase *ph = &g_array_index(phases, Phase, k);
    double start = lb_now();
    const GArray *sq = squares->pdata[ph->bucket], *ow = by_owner->pdata[ph->bucket];
    g_auto(Inbox) inbox;
    inbox_open(&inbox, self, TAG_OF(TAG_PUSH, k));
    send_pushes(self, v, (const Push *)covers->data, runs[ph->bucket], runs[ph->bucket + 1],
                TAG_OF(TAG_PUSH, k), TRUE, out);
    /* the owners I need something of in this bucket, ascending (needs
     * ascend by key, so their owners never decrease), and how many
     * messages each has still to send me (G_MAXUINT64 until its first
     * one says) */
    g_autoptr(GArray) asked = g_array_new(FALSE, FALSE, sizeof(guint));
    for (guint i = 0; i < ow->len; i++)
      if (i == 0 || g_array_index(ow, guint, i - 1) != g_array_index(ow, guint, i))
        g_array_append_val(asked, g_array_index(ow, guint, i));
    g_autofree guint64 *remaining = g_new(guint64, MAX(asked->len, 1));
    for (guint i = 0; i < asked->len; i++)
      remaining[i] = G_MAXUINT64;
    g_autoptr(GArray) got = g_array_new(FALSE, FALSE, sizeof(SfcSquare));
    for (guint pending = asked->len; pending > 0;) {
      g_autoptr(LbMsg) msg = inbox_take(&inbox);
      guint at = position(asked, (guint)msg->src);
      if (remaining[at] == G_MAXUINT64)
        memcpy(&remaining[at], msg->data, sizeof remaining[at]);
      pending -= --remaining[at] == 0;
      sfc_keep_received(v, got, msg->data + sizeof(guint64),
                        (guint)(msg->len / sizeof(guint64) - 1));
    }
    out->needed += sq->len;
    out->received += got->len;
    out->useless += sfc_check_coverage(v, sq, got);
    compute_phase(self, v, loads, ph, start);
  }
  out->phases += phases->len;
}

/* ---- informed fault prevention as section 5.2 has it ---- */

/* In an announcement, an hnode that left the announcer's boundary with
 * the receiver (pruned, or its neighbouring squares now elsewhere). */
#define GONE_BIT (G_GUINT64_CONSTANT(1) << 63)

struct _SfcInformed {
  GHashTable *told;  /* owner -> GArray of my hnode ids I announced to it, ascending */
  GHashTable *heard; /* rank -> GArray of its hnode ids it announced to me, ascending */
};

SfcInformed *
sfc_informed_new(void)
{
  SfcInformed *informed = g_new(SfcInformed, 1);
  informed->told = g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)g_array_unref);
  informed->heard = g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)g_array_unref);
  return informed;
}

void
sfc_informed_free(SfcInformed *informed)
{
  if (informed == NULL)
    return;
  g_hash_table_unref(informed->told);
  g_hash_table_unref(informed->heard);
  g_free(informed);
}

typedef struct {
  guint64 rank, id;
} Facing;

static inline gboolean
facing_before(const Facing *x, const Facing *y)
{
  return x->rank != y->rank ? x->rank < y->rank : x->id < y->id;
}

LB_DEFINE_SORT(sort_facing, Facing, facing_before)

/* Section 5.2's Bo(op, P_k) towards every P_h: each of my hnodes with
 * every other rank that holds a square it needs across a face, by rank
 * then id, once each. */
static GArray *
boundary(const GArray *faces)
{
  GArray *out = g_array_sized_new(FALSE, FALSE, sizeof(Facing), faces->len);
  g_array_set_size(out, faces->len);
  for (guint i = 0; i < faces->len; i++) {
    const SfcFace *rf = &g_array_index(faces, SfcFace, i);
    g_array_index(out, Facing, i) = (Facing){rf->owner, rf->hnode};
  }
  sort_facing((Facing *)out->data, out->len);
  guint w = 0;
  const Facing *f = (const Facing *)out->data;
  for (guint i = 0; i < out->len; i++)
    if (w == 0 || f[w - 1].rank != f[i].rank || f[w - 1].id != f[i].id)
      g_array_index(out, Facing, w++) = f[i];
  g_array_set_size(out, w);
  return out;
}

static inline gboolean
uint_before(const guint *x, const guint *y)
{
  return *x < *y;
}

LB_DEFINE_SORT(sort_uints, guint, uint_before)

/* The keys of a table of ranks, ascending: the order of sends must not
 * depend on hashing. */
static GArray *
sorted_ranks(GHashTable *table)
{
  GArray *ranks = g_array_new(FALSE, FALSE, sizeof(guint));
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init(&it, table);
  while (g_hash_table_iter_next(&it, &key, NULL)) {
    guint r = GPOINTER_TO_UINT(key);
    g_array_append_val(ranks, r);
  }
  sort_uints((guint *)ranks->data, ranks->len);
  return ranks;
}

/* What changed from an ascending list of ids to the ascending ids of a run
 * of Facings, appended to out in one ascending list (by id without
 * GONE_BIT): those only in now as they are, those only in before with
 * GONE_BIT. */
static void
diff_ids(const guint64 *before, guint nb, const Facing *now, guint nn, GArray *out)
{
  guint w = out->len, i = 0, j = 0;
  g_array_set_size(out, w + nb + nn);
  guint64 *o = (guint64 *)out->data;
  while (i < nb || j < nn) {
    if (j == nn || (i < nb && before[i] < now[j].id))
      o[w++] = before[i++] | GONE_BIT;
    else if (i == nb || now[j].id < before[i])
      o[w++] = now[j++].id;
    else {
      i++;
      j++;
    }
  }
  g_array_set_size(out, w);
}

/* Applies an announcement (ascending by id, as diff_ids makes it) to what
 * I heard from its sender, in place: the gone ids out in a forward pass,
 * then the new ones merged in from the back. What I heard from a rank is
 * what it told me, so a new id is not among it already. */
static void
apply_announcement(GArray *heard, const guint64 *ids, guint n)
{
  guint64 *h = (guint64 *)heard->data;
  guint w = 0, k = 0, added = 0;
  for (guint i = 0; i < n; i++) {
    g_assert(i == 0 || (ids[i - 1] & ~GONE_BIT) < (ids[i] & ~GONE_BIT));
    added += (ids[i] & GONE_BIT) == 0;
  }
  for (guint i = 0; i < heard->len; i++) {
    while (k < n && ((ids[k] & GONE_BIT) == 0 || (ids[k] & ~GONE_BIT) < h[i]))
      k++;
    if (k < n && (ids[k] & ~GONE_BIT) == h[i])
      continue;
    h[w++] = h[i];
  }
  g_assert(heard->len - w == n - added); /* every gone id was heard */
  g_array_set_size(heard, w + added);
  h = (guint64 *)heard->data;
  gint64 i = (gint64)w - 1, out = (gint64)(w + added) - 1;
  for (gint64 j = (gint64)n - 1; j >= 0; j--) {
    if (ids[j] & GONE_BIT)
      continue;
    while (i >= 0 && h[i] > ids[j])
      h[out--] = h[i--];
    g_assert(i < 0 || h[i] != ids[j]);
    h[out--] = ids[j];
  }
  g_assert(out == i);
}

/* The announcements: to every owner, what changed in my boundary towards
 * it since I last told it (all of it after a rebalancing, when both sides
 * forget), all in one list with a run per owner. Then what reaches me,
 * from any source. */
static void
announce(LbRank *self, const SfcView *v, const GArray *faces, SfcInformed *inf, SfcCollected *out)
{
  if (v->rebalanced) {
    g_hash_table_remove_all(inf->told);
    g_hash_table_remove_all(inf->heard);
  }
  g_autoptr(GArray) now = boundary(faces);
  /* every owner I face now or told before, once */
  g_autoptr(GArray) owners = sorted_ranks(inf->told);
  for (guint i = 0; i < now->len; i++) {
    guint r = (guint)g_array_index(now, Facing, i).rank;
    if (i == 0 || g_array_index(now, Facing, i - 1).rank != r)
      g_array_append_val(owners, r);
  }
  sort_uints((guint *)owners->data, owners->len);
  g_autoptr(GArray) changes = g_array_new(FALSE, FALSE, sizeof(guint64));
  g_autoptr(GArray) to = g_array_new(FALSE, FALSE, sizeof(guint));
  g_autoptr(GArray) ends = g_array_new(FALSE, FALSE, sizeof(guint)); /* of to's runs */
  const Facing *f = (const Facing *)now->data;
  guint at = 0;
  for (guint i = 0; i < owners->len; i++) {
    guint r = g_array_index(owners, guint, i);
    if (i > 0 && g_array_index(owners, guint, i - 1) == r)
      continue;
    while (at < now->len && f[at].rank < r)
      at++;
    guint from = at;
    while (at < now->len && f[at].rank == r)
      at++;
    guint n = at - from, start = changes->len;
    GArray *told = g_hash_table_lookup(inf->told, GUINT_TO_POINTER(r));
    diff_ids(told != NULL ? (const guint64 *)told->data : NULL, told != NULL ? told->len : 0,
             f + from, n, changes);
    if (changes->len > start) {
      g_array_append_val(to, r);
      g_array_append_val(ends, changes->len);
    }
    if (n == 0) {
      g_hash_table_remove(inf->told, GUINT_TO_POINTER(r));
      continue;
    }
    if (told == NULL) {
      told = g_array_sized_new(FALSE, FALSE, sizeof(guint64), n);
      g_hash_table_insert(inf->told, GUINT_TO_POINTER(r), told);
    }
    g_array_set_size(told, n);
    for (guint k = 0; k < n; k++)
      g_array_index(told, guint64, k) = f[from + k].id;
  }
  /* one message to each rank of `to` (ascending): the counts that are not
   * zero, with no array of p counts to make and scan */
  g_autoptr(GArray) ones = g_array_sized_new(FALSE, FALSE, sizeof(guint64), to->len);
  for (guint i = 0; i < to->len; i++) {
    guint64 one = 1;
    g_array_append_val(ones, one);
  }
  guint64 incoming = lb_reduce_scatter_sum_u64_sparse(self, (const guint *)to->data,
                                                      (const guint64 *)ones->data, to->len);
  g_auto(Inbox) depths;
  inbox_open(&depths, self, TAG_DEPTH);
  for (guint i = 0; i < to->len; i++) {
    guint start = i == 0 ? 0 : g_array_index(ends, guint, i - 1);
    guint m = g_array_index(ends, guint, i) - start;
    lb_send(self, (int)g_array_index(to, guint, i), TAG_DEPTH,
            &g_array_index(changes, guint64, start), m * sizeof(guint64), id_bytes(m));
    out->control_messages++;
    out->announced += m;
  }
  for (guint64 k = 0; k < incoming; k++) {
    g_autoptr(LbMsg) msg = inbox_take(&depths);
    gpointer src = GUINT_TO_POINTER((guint)msg->src);
    GArray *heard = g_hash_table_lookup(inf->heard, src);
    if (heard == NULL) {
      heard = g_array_new(FALSE, FALSE, sizeof(guint64));
      g_hash_table_insert(inf->heard, src, heard);
    }
    apply_announcement(heard, (const guint64 *)msg->data, (guint)(msg->len / sizeof(guint64)));
    if (heard->len == 0)
      g_hash_table_remove(inf->heard, src);
  }
}

/* What I push to each rank from what it announced: the hnodes of mine
 * that cover the squares across its boundary hnodes' faces that I hold,
 * once each (section 5.2's A_h I_k, exact with the depths), in the bucket
 * of the hnode announced. One index of my hnodes for all of them, freed
 * before the next wait: the ranks do not all hold one at once. */
static GArray *
pushes_to(const SfcView *v, GHashTable *heard, const GArray *ranks)
{
  g_autoptr(SfcIndex) mine = sfc_index_new(v);
  GArray *pushes = g_array_new(FALSE, FALSE, sizeof(Push));
  guint64 faces[6];
  for (guint r = 0; r < ranks->len; r++) {
    guint rank = g_array_index(ranks, guint, r);
    const GArray *from = g_hash_table_lookup(heard, GUINT_TO_POINTER(rank));
    for (guint i = 0; i < from->len; i++) {
      guint64 id = g_array_index(from, guint64, i);
      guint nf = sfc_face_squares(v->dim, id, faces);
      for (guint k = 0; k < nf; k++) {
        int at = sfc_index_at(mine, faces[k]);
        if (at < 0) { /* a square of mine only if a leaf of mine holds it */
          guint64 key = sfc_key(v->curve, v->dim, v->order, faces[k]);
          if (sfc_owner_near(v, key) != v->me)
            continue;
          at = (int)sfc_covering(v, key);
        }
        Push p = {bucket_of(v, id), rank, (guint)at};
        g_array_append_val(pushes, p);
      }
    }
  }
  return pushes;
}

/* The first of the squares s[from..n) (ascending keys) with a key not
 * before key: a search whose step does not branch on the comparison
 * (which way it goes is a coin toss to the processor), written as a mask
 * since the compiler makes a branch of the conditional. */
static guint
first_from_key(const SfcSquare *s, guint from, guint n, guint64 key)
{
  if (from >= n)
    return from;
  const SfcSquare *base = s + from;
  guint len = n - from; /* the answer lies in [base, base + len] */
  while (len > 1) {
    guint half = len / 2;
    base += half & -(guint)(base[half - 1].key < key);
    len -= half;
  }
  return (guint)(base - s) + (base->key < key);
}

/* first_from_key from s[from], where the answer is expected to be near:
 * steps doubling from there, then the search within the last step. */
static guint
first_from_key_near(const SfcSquare *s, guint from, guint n, guint64 key)
{
  guint step = 1;
  while (from + step <= n && s[from + step - 1].key < key) {
    from += step;
    step *= 2;
  }
  return first_from_key(s, from, MIN(from + step, n), key);
}

/* Where the search for an owner's next hnode starts: an owner pushes in
 * key order, and its messages come in the order sent. */
typedef struct {
  guint owner, at;
} Cursor;

/* One cursor per owner of my needs (needs ascend by key, so their owners
 * never decrease), at the first square it covers. */
static GArray *
cursors_new(const GArray *owners)
{
  GArray *c = g_array_new(FALSE, FALSE, sizeof(Cursor));
  for (guint i = 0; i < owners->len; i++) {
    guint o = g_array_index(owners, guint, i);
    if (c->len == 0 || g_array_index(c, Cursor, c->len - 1).owner != o) {
      Cursor k = {o, i};
      g_array_append_val(c, k);
    }
  }
  return c;
}

static Cursor *
cursor_of(GArray *cursors, guint owner)
{
  guint lo = 0, hi = cursors->len;
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    if (g_array_index(cursors, Cursor, mid).owner < owner)
      lo = mid + 1;
    else
      hi = mid;
  }
  g_assert(lo < cursors->len && g_array_index(cursors, Cursor, lo).owner == owner);
  return &g_array_index(cursors, Cursor, lo);
}

/* How many of my needed squares (ascending keys, each once) the n hnodes
 * received at r (in key order, as their owner pushes them) cover: each its
 * own square, or, for a leaf, every square of its region (whose keys are
 * one run from its own). The search goes on from where the owner's last
 * hnode ended, *at: the needs are cold in the cache when a message wakes
 * the rank, and searches from the start cost a miss a step. */
static guint
squares_covered(const SfcView *v, const GArray *needs, const SfcSquare *r, guint n, guint *at)
{
  const SfcSquare *s = (const SfcSquare *)needs->data;
  guint len = needs->len, covered = 0;
  for (guint i = 0; i < n; i++) {
    guint64 lo = r[i].key;
    /* nothing I need from this owner lies before where its last hnode
     * ended: the search from there finds what one from the start would */
    g_assert(*at == 0 || s[*at - 1].key < lo);
    guint a = first_from_key_near(s, *at, len, lo);
    guint end = a + (a < len && s[a].key == lo);
    if (r[i].id & SFC_LEAF_BIT) {
      guint level = (guint)(63 - __builtin_clzll(r[i].id & ~SFC_LEAF_BIT)) / v->dim;
      guint64 hi = ((lo >> 5) + (G_GUINT64_CONSTANT(1) << (v->dim * (v->order - level)))) << 5;
      end = first_from_key_near(s, a, len, hi);
    }
    g_assert(end > a); /* nothing useless comes */
    covered += end - a;
    *at = end;
  }
  return covered;
}

static void
informed(LbRank *self, const SfcView *v, SfcCollected *out)
{
  SfcInformed *inf = v->informed;
  g_assert(inf != NULL);
  g_autoptr(GArray) faces = sfc_remote_faces(v);
  double announcing = lb_now();
  announce(self, v, faces, inf, out);
  XBT_DEBUG("step %u, rank %d, announcements: %.9f s", lb_rank_adaptation(self), v->me,
            lb_now() - announcing);
  g_autoptr(GArray) owners = g_array_new(FALSE, FALSE, sizeof(guint));
  g_autoptr(GArray) needs = sfc_remote_needs(v, faces, owners);
  g_autoptr(GPtrArray) squares = arrays_new(), by_owner = arrays_new();
  split_needs(v, needs, owners, squares, by_owner);
  g_autoptr(GArray) ranks = sorted_ranks(inf->heard);
  g_autoptr(GArray) pushes = pushes_to(v, inf->heard, ranks);
  g_autofree guint *runs = push_runs(pushes, buckets_of(v));
  g_autofree double *loads = bucket_loads(v);
  g_autoptr(GArray) phases = phases_of(v);
  for (guint k = 0; k < phases->len; k++) {
    const Phase *ph = &g_array_index(phases, Phase, k);
    double start = lb_now();
    const GArray *sq = squares->pdata[ph->bucket], *ow = by_owner->pdata[ph->bucket];
    g_auto(Inbox) inbox;
    inbox_open(&inbox, self, TAG_OF(TAG_PUSH, k));
    /* push, `merge` per message, non-blocking */
    send_pushes(self, v, (const Push *)pushes->data, runs[ph->bucket], runs[ph->bucket + 1],
                TAG_OF(TAG_PUSH, k), FALSE, out);
    g_autoptr(GArray) got = g_array_sized_new(FALSE, FALSE, sizeof(SfcSquare), sq->len);
    if (v->sync_messages) {
      send_syncs(self, v, TAG_OF(TAG_PUSH, k), out);
      receive_until_synced(&inbox, v, got);
    }
    /* or whatever comes first until every square I need is covered: each
     * is covered by one hnode, which its owner pushes once, so nothing
     * more can come, and no message needs to say how many there are */
    g_autoptr(GArray) cursors = cursors_new(ow);
    for (guint covered = 0; !v->sync_messages && covered < sq->len;) {
      g_autoptr(LbMsg) msg = inbox_take(&inbox);
      guint from = got->len;
      sfc_keep_received(v, got, msg->data, (guint)(msg->len / sizeof(guint64)));
      Cursor *c = cursor_of(cursors, (guint)msg->src);
      covered +=
          squares_covered(v, sq, &g_array_index(got, SfcSquare, from), got->len - from, &c->at);
    }
    out->needed += sq->len;
    out->received += got->len;
    out->useless += sfc_check_coverage(v, sq, got);
    compute_phase(self, v, loads, ph, start);
  }
  out->phases += phases->len;
}

void
sfc_collect_run(LbRank *self, const SfcView *view, SfcStrategy strategy, SfcCollected *out)
{
  memset(out, 0, sizeof *out);
  switch (strategy) {
  case SFC_REQUEST_ANSWER:
    request_answer(self, view, out);
    break;
  case SFC_FAULT_PREVENTION:
    fault_prevention(self, view, out);
    break;
  case SFC_INFORMED:
    informed(self, view, out);
    break;
  case SFC_INFORMED_NEEDS:
    informed_needs(self, view, out);
    break;
  case SFC_NO_COLLECTION:
    break;
  }
  lb_wait_sends(self);
}
