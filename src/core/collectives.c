/* Collectives as binomial trees of point-to-point messages, so that their
 * cost is simulated on the platform like any other traffic. Every rank
 * calls them in the same order, so a per-rank sequence number tells the
 * rounds apart. */
#include <string.h>

#include "core/core.h"

#define COLLECTIVE_TAG(seq) ((int)(0x40000000u | ((seq) & 0x3fffffffu)))

typedef void (*CombineFunc)(void *into, const void *from, gsize len);

static int
real_rank(int virtual_rank, int root, int p)
{
  return (virtual_rank + root) % p;
}

static void
tree_reduce(LbRank *self, int root, void *buf, gsize len, CombineFunc combine, int tag)
{
  int p = (int)self->run->ranks;
  int vr = (self->id - root + p) % p;
  for (int mask = 1; mask < p; mask <<= 1) {
    if (vr & mask) {
      lb_core_send(self, real_rank(vr - mask, root, p), tag, buf, len, (double)len);
      return;
    }
    if (vr + mask < p) {
      g_autoptr(LbMsg) msg = lb_core_recv(self, real_rank(vr + mask, root, p), tag);
      combine(buf, msg->data, len);
    }
  }
}

static void
tree_bcast(LbRank *self, int root, void *buf, gsize len, int tag)
{
  int p = (int)self->run->ranks;
  int vr = (self->id - root + p) % p;
  int mask = 1;
  while (mask < p) {
    if (vr & mask) {
      g_autoptr(LbMsg) msg = lb_core_recv(self, real_rank(vr - mask, root, p), tag);
      memcpy(buf, msg->data, len);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (vr + mask < p)
      lb_core_send(self, real_rank(vr + mask, root, p), tag, buf, len, (double)len);
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

static void
allreduce(LbRank *self, void *buf, gsize len, CombineFunc combine)
{
  int tag = COLLECTIVE_TAG(self->coll_seq++);
  tree_reduce(self, 0, buf, len, combine, tag);
  tree_bcast(self, 0, buf, len, tag);
  lb_wait_sends(self);
}

void
lb_barrier(LbRank *self)
{
  guint8 token = 0;
  allreduce(self, &token, 0, combine_nothing);
}

void
lb_allreduce_sum_u64(LbRank *self, guint64 *values, guint n)
{
  allreduce(self, values, n * sizeof(guint64), combine_sum_u64);
}

void
lb_allreduce_max_double(LbRank *self, double *values, guint n)
{
  allreduce(self, values, n * sizeof(double), combine_max_double);
}

void
lb_bcast(LbRank *self, int root, void *data, gsize len)
{
  tree_bcast(self, root, data, len, COLLECTIVE_TAG(self->coll_seq++));
  lb_wait_sends(self);
}

void
lb_allgather(LbRank *self, const void *mine, gsize len, void *all)
{
  /* Gather up the binomial tree rooted at 0: the subtree of virtual rank v
   * holds the contiguous blocks v .. v + mask - 1. */
  int p = (int)self->run->ranks;
  int tag = COLLECTIVE_TAG(self->coll_seq++);
  guint8 *out = all;
  memcpy(out + (gsize)self->id * len, mine, len);
  int have = 1;
  for (int mask = 1; mask < p; mask <<= 1) {
    if (self->id & mask) {
      lb_core_send(self, self->id - mask, tag, out + (gsize)self->id * len, (gsize)have * len,
              (double)have * (double)len);
      break;
    }
    if (self->id + mask < p) {
      g_autoptr(LbMsg) msg = lb_core_recv(self, self->id + mask, tag);
      memcpy(out + (gsize)(self->id + mask) * len, msg->data, msg->len);
      have += (int)(msg->len / MAX(len, 1));
    }
  }
  tree_bcast(self, 0, all, (gsize)p * len, tag);
  lb_wait_sends(self);
}
