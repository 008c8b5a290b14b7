/* Collectives as binomial trees of point-to-point messages, so that their
 * cost is simulated on the platform like any other traffic. They run over
 * a group; the all-ranks collectives use the group of everyone. Members
 * call a group's collectives in the same order, so a per-group sequence
 * number in the tag tells the rounds apart. */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

/* Above LB_TAG_USER_MAX: bit 30 marks core traffic; bit 29 clear is the
 * all-ranks group, bit 29 set a group with its id above a 13-bit sequence
 * number. A sequence number wraps harmlessly: members are never more than
 * a tree depth of collectives apart. */
#define ALL_RANKS_TAG_BASE 0x40000000u
#define ALL_RANKS_SEQ_MASK 0x1fffffffu
#define GROUP_TAG_BASE 0x60000000u
#define GROUP_SEQ_BITS 13
#define GROUP_SEQ_MASK ((1u << GROUP_SEQ_BITS) - 1)

G_STATIC_ASSERT(((guint)LB_GROUP_ID_MAX << GROUP_SEQ_BITS | GROUP_SEQ_MASK) <= ALL_RANKS_SEQ_MASK);
G_STATIC_ASSERT((ALL_RANKS_TAG_BASE & LB_TAG_USER_MAX) == 0);

struct _LbGroup {
  LbRank *self;
  int *members;   /* NULL: every rank, in rank order */
  GBytes *shared; /* members' block, when the group does not own them */
  guint size, me;
  guint tag_base, seq_mask;
  guint *seq; /* the group of everyone counts in its rank, so that every
                 temporary copy continues the same sequence */
  guint own_seq;
};

typedef void (*CombineFunc)(void *into, const void *from, gsize len);

static LbGroup
everyone(LbRank *self)
{
  return (LbGroup){
      .self = self,
      .size = self->run->ranks,
      .me = (guint)self->id,
      .tag_base = ALL_RANKS_TAG_BASE,
      .seq_mask = ALL_RANKS_SEQ_MASK,
      .seq = &self->coll_seq,
  };
}

static int
next_tag(LbGroup *g)
{
  return (int)(g->tag_base | ((*g->seq)++ & g->seq_mask));
}

static int
member(const LbGroup *g, int index)
{
  return g->members != NULL ? g->members[index] : index;
}

static void
send_to(LbGroup *g, int index, int tag, const void *buf, gsize len)
{
  lb_core_send(g->self, member(g, index), tag, buf, len, (double)len);
}

static LbMsg *
recv_from(LbGroup *g, int index, int tag)
{
  return lb_core_recv(g->self, member(g, index), tag);
}

static int
real_index(int virtual_index, int root, int p)
{
  return (virtual_index + root) % p;
}

/* A binomial tree over the group's members takes ceil(log2 p) rounds: the
 * current phase counts them as steps, as it counts a balancer's own rounds.
 * Every member numbers them alike, whether it takes part in each or not. */
static void
tree_rounds(const LbGroup *g)
{
  guint depth = 0;
  while ((1u << depth) < g->size)
    depth++;
  lb_phase_collective_rounds(g->self, depth);
}

static void
tree_reduce(LbGroup *g, int root, void *buf, gsize len, CombineFunc combine, int tag)
{
  tree_rounds(g);
  int p = (int)g->size;
  int vr = ((int)g->me - root + p) % p;
  for (int mask = 1; mask < p; mask <<= 1) {
    if (vr & mask) {
      send_to(g, real_index(vr - mask, root, p), tag, buf, len);
      return;
    }
    if (vr + mask < p) {
      g_autoptr(LbMsg) msg = recv_from(g, real_index(vr + mask, root, p), tag);
      combine(buf, msg->data, len);
    }
  }
}

/* The root sends len bytes of buf; every other member forwards what its
 * parent sent and returns that message. */
static LbMsg *
tree_bcast(LbGroup *g, int root, const void *buf, gsize len, int tag)
{
  tree_rounds(g);
  int p = (int)g->size;
  int vr = ((int)g->me - root + p) % p;
  LbMsg *msg = NULL;
  int mask = 1;
  while (mask < p) {
    if (vr & mask) {
      msg = recv_from(g, real_index(vr - mask, root, p), tag);
      buf = msg->data;
      len = msg->len;
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (vr + mask < p)
      send_to(g, real_index(vr + mask, root, p), tag, buf, len);
  return msg;
}

static void
bcast_fixed(LbGroup *g, int root, void *buf, gsize len, int tag)
{
  g_autoptr(LbMsg) msg = tree_bcast(g, root, buf, len, tag);
  if (msg != NULL) {
    g_assert(msg->len == len);
    memcpy(buf, msg->data, len);
  }
}

static void
append_blocks(GByteArray *wire, const GArray *lens, const GByteArray *data)
{
  g_byte_array_append(wire, (const guint8 *)lens->data, lens->len * (guint)sizeof(guint64));
  g_byte_array_append(wire, data->data, data->len);
}

/* Gathers blocks up the binomial tree rooted at member 0: the subtree of v
 * holds the contiguous blocks v .. v + mask - 1, so they arrive in order
 * and data ends as their concatenation. With lens (guint64 per block),
 * messages start with the lengths of their blocks. Returns TRUE on member
 * 0, which ends with every block. */
static gboolean
tree_gather(LbGroup *g, int tag, GByteArray *data, GArray *lens)
{
  tree_rounds(g);
  int p = (int)g->size, me = (int)g->me;
  for (int mask = 1; mask < p; mask <<= 1) {
    if (me & mask) {
      if (lens == NULL) {
        send_to(g, me - mask, tag, data->data, data->len);
      } else {
        g_autoptr(GByteArray) wire = g_byte_array_new();
        append_blocks(wire, lens, data);
        send_to(g, me - mask, tag, wire->data, wire->len);
      }
      return FALSE;
    }
    if (me + mask < p) {
      g_autoptr(LbMsg) msg = recv_from(g, me + mask, tag);
      gsize head = 0;
      if (lens != NULL) {
        guint blocks = (guint)MIN(mask, p - me - mask);
        head = blocks * sizeof(guint64);
        g_assert(msg->len >= head);
        g_array_set_size(lens, lens->len + blocks);
        memcpy(&g_array_index(lens, guint64, lens->len - blocks), msg->data, head);
      }
      g_byte_array_append(data, msg->data + head, (guint)(msg->len - head));
    }
  }
  return TRUE;
}

static void
allreduce(LbGroup *g, void *buf, gsize len, CombineFunc combine)
{
  int tag = next_tag(g);
  tree_reduce(g, 0, buf, len, combine, tag);
  bcast_fixed(g, 0, buf, len, tag);
  lb_wait_sends(g->self);
}

static void
combine_nothing(void *into, const void *from, gsize len)
{
}

static void
combine_sum_u64(void *into, const void *from, gsize len)
{
  guint64 *a = into;
  const guint64 *b = from;
  for (gsize i = 0; i < len / sizeof(guint64); i++)
    a[i] += b[i];
}

static void
combine_max_double(void *into, const void *from, gsize len)
{
  double *a = into;
  const double *b = from;
  for (gsize i = 0; i < len / sizeof(double); i++)
    a[i] = MAX(a[i], b[i]);
}

/* Ties go to the lower rank, whatever order the tree combines in. */
static void
combine_minloc(void *into, const void *from, gsize len)
{
  LbValueRank *a = into;
  const LbValueRank *b = from;
  for (gsize i = 0; i < len / sizeof(LbValueRank); i++)
    if (b[i].value < a[i].value || (b[i].value == a[i].value && b[i].rank < a[i].rank))
      a[i] = b[i];
}

static void
combine_maxloc(void *into, const void *from, gsize len)
{
  LbValueRank *a = into;
  const LbValueRank *b = from;
  for (gsize i = 0; i < len / sizeof(LbValueRank); i++)
    if (b[i].value > a[i].value || (b[i].value == a[i].value && b[i].rank < a[i].rank))
      a[i] = b[i];
}

static LbGroup *
group_alloc(LbRank *self, guint id, int *members, guint n, guint me)
{
  g_assert(me < n);
  LbGroup *g = g_new0(LbGroup, 1);
  g->self = self;
  g->members = members;
  g->size = n;
  g->me = me;
  g->tag_base = GROUP_TAG_BASE | id << GROUP_SEQ_BITS;
  g->seq_mask = GROUP_SEQ_MASK;
  g->seq = &g->own_seq;
  return g;
}

LbGroup *
lb_group_new(LbRank *self, guint id, const int *members, guint n)
{
  g_assert(id <= LB_GROUP_ID_MAX && n > 0);
  guint me = G_MAXUINT;
  for (guint i = 0; i < n; i++) {
    g_assert(members[i] >= 0 && (guint)members[i] < self->run->ranks);
    g_assert(i == 0 || members[i - 1] < members[i]);
    if (members[i] == self->id)
      me = i;
  }
  return group_alloc(self, id, g_memdup2(members, n * sizeof(int)), n, me);
}

static int
compare_int(gconstpointer a, gconstpointer b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return x < y ? -1 : x > y;
}

LbGroup *
lb_group_new_shared(LbRank *self, guint id, GBytes *members)
{
  gsize size = 0;
  const int *m = g_bytes_get_data(members, &size);
  guint n = (guint)(size / sizeof(int));
  g_assert(id <= LB_GROUP_ID_MAX && n > 0 && size == n * sizeof(int));
  g_assert(m[0] >= 0 && (guint)m[n - 1] < self->run->ranks);
  const int *mine = bsearch(&self->id, m, n, sizeof(int), compare_int);
  g_assert(mine != NULL);
  LbGroup *g = group_alloc(self, id, (int *)m /* read only */, n, (guint)(mine - m));
  g->shared = g_bytes_ref(members);
  return g;
}

void
lb_group_free(LbGroup *group)
{
  if (group == NULL)
    return;
  if (group->shared != NULL)
    g_bytes_unref(group->shared);
  else
    g_free(group->members);
  g_free(group);
}

int
lb_group_rank(const LbGroup *group)
{
  return (int)group->me;
}

int
lb_group_size(const LbGroup *group)
{
  return (int)group->size;
}

void
lb_group_barrier(LbGroup *group)
{
  guint8 token = 0;
  allreduce(group, &token, 0, combine_nothing);
}

void
lb_group_allreduce_sum_u64(LbGroup *group, guint64 *values, guint n)
{
  allreduce(group, values, n * sizeof(guint64), combine_sum_u64);
}

void
lb_group_allreduce_max_double(LbGroup *group, double *values, guint n)
{
  allreduce(group, values, n * sizeof(double), combine_max_double);
}

void
lb_group_reduce_sum_u64(LbGroup *group, int root, guint64 *values, guint n)
{
  g_assert(root >= 0 && (guint)root < group->size);
  tree_reduce(group, root, values, n * sizeof(guint64), combine_sum_u64, next_tag(group));
  lb_wait_sends(group->self);
}

void
lb_group_bcast(LbGroup *group, int root, void *data, gsize len)
{
  g_assert(root >= 0 && (guint)root < group->size);
  bcast_fixed(group, root, data, len, next_tag(group));
  lb_wait_sends(group->self);
}

void
lb_group_allgather(LbGroup *group, const void *mine, gsize len, void *all)
{
  int tag = next_tag(group);
  g_autoptr(GByteArray) data = g_byte_array_new();
  g_byte_array_append(data, mine, (guint)len);
  if (tree_gather(group, tag, data, NULL) && data->len > 0)
    memcpy(all, data->data, data->len);
  bcast_fixed(group, 0, all, (gsize)group->size * len, tag);
  lb_wait_sends(group->self);
}

/* The offsets of the p blocks of an allgatherv from the lengths that head
 * its data; returns the head's size. */
static gsize
read_offsets(const guint8 *all, guint p, gsize *offsets)
{
  offsets[0] = 0;
  for (guint r = 0; r < p; r++) {
    guint64 block;
    memcpy(&block, all + r * sizeof(guint64), sizeof block);
    offsets[r + 1] = offsets[r] + block;
  }
  return p * sizeof(guint64);
}

void *
lb_group_allgatherv(LbGroup *group, const void *mine, gsize len, gsize *offsets)
{
  int tag = next_tag(group);
  guint p = group->size;
  g_autoptr(GByteArray) data = g_byte_array_new();
  g_byte_array_append(data, mine, (guint)len);
  g_autoptr(GArray) lens = g_array_new(FALSE, FALSE, sizeof(guint64));
  guint64 mine_len = len;
  g_array_append_val(lens, mine_len);
  /* The root sends the p lengths, then the blocks. */
  g_autoptr(GByteArray) wire = g_byte_array_new();
  if (tree_gather(group, tag, data, lens))
    append_blocks(wire, lens, data);
  g_autoptr(LbMsg) msg = tree_bcast(group, 0, wire->data, wire->len, tag);
  const guint8 *all = msg != NULL ? msg->data : wire->data;
  gsize all_len = msg != NULL ? msg->len : wire->len;
  gsize head = read_offsets(all, p, offsets);
  g_assert(all_len == head + offsets[p]);
  guint8 *out = g_malloc(offsets[p] + 1);
  if (offsets[p] > 0)
    memcpy(out, all + head, offsets[p]);
  lb_wait_sends(group->self);
  return out;
}

void
lb_barrier(LbRank *self)
{
  LbGroup all = everyone(self);
  lb_group_barrier(&all);
}

void
lb_allreduce_sum_u64(LbRank *self, guint64 *values, guint n)
{
  LbGroup all = everyone(self);
  lb_group_allreduce_sum_u64(&all, values, n);
}

void
lb_allreduce_max_double(LbRank *self, double *values, guint n)
{
  LbGroup all = everyone(self);
  lb_group_allreduce_max_double(&all, values, n);
}

void
lb_allreduce_minloc(LbRank *self, LbValueRank *values, guint n)
{
  LbGroup all = everyone(self);
  allreduce(&all, values, n * sizeof(LbValueRank), combine_minloc);
}

void
lb_allreduce_maxloc(LbRank *self, LbValueRank *values, guint n)
{
  LbGroup all = everyone(self);
  allreduce(&all, values, n * sizeof(LbValueRank), combine_maxloc);
}

void
lb_bcast(LbRank *self, int root, void *data, gsize len)
{
  LbGroup all = everyone(self);
  lb_group_bcast(&all, root, data, len);
}

void *
lb_bcastv(LbRank *self, int root, const void *data, gsize len, gsize *out_len)
{
  g_assert(root >= 0 && (guint)root < self->run->ranks);
  LbGroup all = everyone(self);
  g_autoptr(LbMsg) msg = tree_bcast(&all, root, data, len, next_tag(&all));
  if (msg != NULL) {
    data = msg->data;
    len = msg->len;
  }
  guint8 *out = g_malloc(len + 1);
  if (len > 0)
    memcpy(out, data, len);
  *out_len = len;
  lb_wait_sends(self);
  return out;
}

void *
lb_allgatherv(LbRank *self, const void *mine, gsize len, gsize *offsets)
{
  LbGroup all = everyone(self);
  return lb_group_allgatherv(&all, mine, len, offsets);
}

void
lb_allgather(LbRank *self, const void *mine, gsize len, void *all)
{
  LbGroup everyone_group = everyone(self);
  lb_group_allgather(&everyone_group, mine, len, all);
}

/* The broadcast of a shared block: each message carries a reference to
 * the root's bytes (the network is charged all of them but `unbilled`, what
 * the simulator added for itself) instead of a copy, so that p ranks hold
 * one block, not p. */
static GBytes *
tree_bcast_shared(LbGroup *g, GBytes *bytes, gsize unbilled, int tag)
{
  tree_rounds(g);
  int p = (int)g->size, vr = (int)g->me;
  int mask = 1;
  while (mask < p) {
    if (vr & mask) {
      g_autoptr(LbMsg) msg = recv_from(g, vr - mask, tag);
      g_assert(msg->len == sizeof bytes);
      memcpy(&bytes, msg->data, sizeof bytes); /* the sender's reference is now mine */
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (vr + mask < p) {
      GBytes *ref = g_bytes_ref(bytes);
      lb_core_send(g->self, member(g, vr + mask), tag, &ref, sizeof ref,
                   (double)(g_bytes_get_size(bytes) - unbilled));
    }
  return bytes;
}

GBytes *
lb_allgatherv_shared_offsets(LbRank *self, const void *mine, gsize len, const gsize **offsets)
{
  LbGroup g = everyone(self);
  int tag = next_tag(&g);
  guint p = g.size;
  g_autoptr(GByteArray) data = g_byte_array_new();
  g_byte_array_append(data, mine, (guint)len);
  g_autoptr(GArray) lens = g_array_new(FALSE, FALSE, sizeof(guint64));
  guint64 mine_len = len;
  g_array_append_val(lens, mine_len);
  /* The root sends the p lengths and the blocks, as lb_allgatherv's root
   * does; the block it shares starts with the p + 1 offsets the lengths
   * give, computed once here rather than by every rank (p of them reading
   * p lengths is p^2 at scale). The network is charged the lengths, not
   * the one entry more. */
  GBytes *wire = NULL;
  gsize head = (p + 1) * sizeof(gsize);
  if (tree_gather(&g, tag, data, lens)) {
    gsize *w = g_malloc(head + data->len); /* g_malloc: aligned for gsize */
    w[0] = 0;
    for (guint r = 0; r < p; r++)
      w[r + 1] = w[r] + (gsize)g_array_index(lens, guint64, r);
    if (data->len > 0)
      memcpy((guint8 *)w + head, data->data, data->len);
    wire = g_bytes_new_take(w, head + data->len);
  }
  G_STATIC_ASSERT(sizeof(gsize) == sizeof(guint64));
  wire = tree_bcast_shared(&g, wire, sizeof(gsize), tag);
  gsize size = 0;
  const guint8 *all = g_bytes_get_data(wire, &size);
  *offsets = (const gsize *)(gconstpointer)all;
  g_assert(size == head + (*offsets)[p]);
  GBytes *out = g_bytes_new_from_bytes(wire, head, (*offsets)[p]);
  g_bytes_unref(wire);
  lb_wait_sends(self);
  return out;
}

GBytes *
lb_allgatherv_shared(LbRank *self, const void *mine, gsize len, gsize *offsets)
{
  const gsize *shared = NULL;
  GBytes *out = lb_allgatherv_shared_offsets(self, mine, len, &shared);
  memcpy(offsets, shared, ((gsize)lb_rank_count(self) + 1) * sizeof(gsize));
  return out;
}

GBytes *
lb_allgather_shared(LbRank *self, const void *mine, gsize len)
{
  LbGroup g = everyone(self);
  int tag = next_tag(&g);
  GByteArray *data = g_byte_array_new();
  g_byte_array_append(data, mine, (guint)len);
  GBytes *all = NULL;
  if (tree_gather(&g, tag, data, NULL))
    all = g_byte_array_free_to_bytes(data);
  else
    g_byte_array_unref(data);
  all = tree_bcast_shared(&g, all, 0, tag);
  g_assert(g_bytes_get_size(all) == (gsize)g.size * len);
  lb_wait_sends(self);
  return all;
}

guint64
lb_reduce_scatter_sum_u64(LbRank *self, const guint64 *values)
{
  guint p = self->run->ranks;
  g_autoptr(GArray) ranks = g_array_new(FALSE, FALSE, sizeof(guint));
  g_autoptr(GArray) nonzero = g_array_new(FALSE, FALSE, sizeof(guint64));
  for (guint r = 0; r < p; r++)
    if (values[r] != 0) {
      g_array_append_val(ranks, r);
      g_array_append_val(nonzero, values[r]);
    }
  return lb_reduce_scatter_sum_u64_sparse(self, (const guint *)ranks->data,
                                          (const guint64 *)nonzero->data, ranks->len);
}

/* One (rank, value) of a sparse vector in a message. */
typedef struct {
  guint64 rank, value;
} SparseEntry;

static int
compare_entries(gconstpointer a, gconstpointer b)
{
  guint64 x = ((const SparseEntry *)a)->rank, y = ((const SparseEntry *)b)->rank;
  return x < y ? -1 : x > y;
}

/* Sorts entries by rank and sums those of one rank into one. */
static void
merge_entries(GArray *entries)
{
  g_array_sort(entries, compare_entries);
  guint out = 0;
  for (guint i = 0; i < entries->len; i++) {
    const SparseEntry *e = &g_array_index(entries, SparseEntry, i);
    if (out > 0 && g_array_index(entries, SparseEntry, out - 1).rank == e->rank)
      g_array_index(entries, SparseEntry, out - 1).value += e->value;
    else
      g_array_index(entries, SparseEntry, out++) = *e;
  }
  g_array_set_size(entries, out);
}

guint64
lb_reduce_scatter_sum_u64_sparse(LbRank *self, const guint *ranks, const guint64 *values, guint n)
{
  LbGroup g = everyone(self);
  guint p = g.size, me = g.me;
  if ((p & (p - 1)) != 0 || p == 1) { /* not a power of two: the whole sums, then mine */
    g_autofree guint64 *all = g_new0(guint64, p);
    for (guint i = 0; i < n; i++)
      all[ranks[i]] += values[i];
    if (p > 1)
      allreduce(&g, all, p * sizeof(guint64), combine_sum_u64);
    return all[me];
  }
  /* recursive halving: each step keeps the half of the range that holds
   * my entry, sends the other half to the partner that keeps it, and adds
   * what that partner sends of mine. Every step's half is sent as the
   * entries that are not zero, billed as the whole half (the words a dense
   * reduce-scatter sends): no rank holds p words, which at thousands of
   * ranks would be p^2 at once. */
  int tag = next_tag(&g);
  guint lo = 0;
  g_autoptr(GArray) held = g_array_new(FALSE, FALSE, sizeof(SparseEntry));
  for (guint i = 0; i < n; i++) {
    g_assert(ranks[i] < p);
    if (values[i] != 0) {
      SparseEntry e = {ranks[i], values[i]};
      g_array_append_val(held, e);
    }
  }
  merge_entries(held);
  g_autoptr(GArray) kept = g_array_new(FALSE, FALSE, sizeof(SparseEntry));
  g_autoptr(GArray) give = g_array_new(FALSE, FALSE, sizeof(SparseEntry));
  for (guint h = p / 2; h > 0; h /= 2) {
    guint other = me ^ h;
    guint keep = (me & h) != 0 ? lo + h : lo; /* the half I keep: keep .. keep + h */
    g_array_set_size(kept, 0);
    g_array_set_size(give, 0);
    for (guint i = 0; i < held->len; i++) {
      const SparseEntry *e = &g_array_index(held, SparseEntry, i);
      g_array_append_val(e->rank >= keep && e->rank < keep + h ? kept : give, *e);
    }
    lb_core_send(self, member(&g, (int)other), tag, give->data, give->len * sizeof(SparseEntry),
                 (double)(h * sizeof(guint64)));
    g_autoptr(LbMsg) msg = recv_from(&g, (int)other, tag);
    g_assert(msg->len % sizeof(SparseEntry) == 0);
    /* both by rank, once each: merged in one pass into held */
    guint nk = kept->len, nr = (guint)(msg->len / sizeof(SparseEntry)), i = 0, j = 0;
    const SparseEntry *k = (const SparseEntry *)kept->data;
    g_array_set_size(held, nk + nr);
    SparseEntry *out = (SparseEntry *)held->data;
    guint w = 0;
    while (i < nk || j < nr) {
      SparseEntry e;
      if (j < nr)
        memcpy(&e, msg->data + j * sizeof e, sizeof e);
      if (j == nr || (i < nk && k[i].rank < e.rank))
        out[w++] = k[i++];
      else {
        g_assert(e.rank >= keep && e.rank < keep + h && (w == 0 || out[w - 1].rank < e.rank));
        if (i < nk && k[i].rank == e.rank)
          e.value += k[i++].value;
        out[w++] = e;
        j++;
      }
    }
    g_array_set_size(held, w);
    lo = keep;
  }
  g_assert(lo == me);
  guint64 sum = 0;
  for (guint i = 0; i < held->len; i++)
    sum += g_array_index(held, SparseEntry, i).value;
  lb_wait_sends(self);
  return sum;
}
